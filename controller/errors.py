"""Controller errors that say what happened in sentences.

* :class:`ConnectionFailed` -- the switch could not be reached or would not make us
  primary; the message states the address, device id and election id tried, the gRPC
  reason, and where to look (the switch log).
* :class:`WriteFailed` -- a P4Runtime Write was refused; P4Runtime packs one
  ``p4.v1.Error`` per update into the status details, and :func:`decode_write_error`
  turns each failed one into a sentence naming the update's table, match fields,
  values and action (``describe`` callbacks come from the layer that knows names).
* :class:`ReadFailed` -- the switch answered a Read with an error (unsupported entity...).
* :class:`ControllerError` -- base class; the CLI prints ``str(err)`` and exits 1.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import grpc
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2

SWITCH_LOG_HINT = ("see the switch log (checkmate-switch --log-file, or logs/<switch>.log "
                   "from the testbed; simple_switch_grpc: --log-file / --log-console)")


class ControllerError(Exception):
    """Any controller failure; ``str()`` is a complete sentence for the user."""


class ConnectionFailed(ControllerError):
    def __init__(self, addr: str, device_id: int, election_id: int, reason: str):
        self.addr, self.device_id, self.election_id, self.reason = addr, device_id, election_id, reason
        super().__init__(f"cannot control switch at {addr} (device id {device_id}, election id {election_id}): "
                         f"{reason}; {SWITCH_LOG_HINT}")


class ReadFailed(ControllerError):
    """The switch answered but refused a Read (e.g. an entity kind it does not support)."""


@dataclass(frozen=True)
class UpdateError:
    index: int  # position of the update in the batch
    code: str  # canonical gRPC code name, e.g. ALREADY_EXISTS
    message: str
    update: str  # description of the update (type, table, match, action)

    def __str__(self) -> str:
        return f"update #{self.index} {self.update}: {self.code}: {self.message}"


class WriteFailed(ControllerError):
    def __init__(self, addr: str, errors: Sequence[UpdateError], summary: str = ""):
        self.addr, self.errors = addr, list(errors)
        lines = [f"switch {addr} refused {len(self.errors)} update(s)" + (f" ({summary})" if summary else "") + ":"]
        lines += [f"  {e}" for e in self.errors]
        super().__init__("\n".join(lines))


def _status_of(err: grpc.RpcError) -> status_pb2.Status | None:
    for key, value in (err.trailing_metadata() or ()):
        if key == "grpc-status-details-bin":
            st = status_pb2.Status()
            st.ParseFromString(value)
            return st
    return None


def decode_write_error(err: grpc.RpcError, updates: Sequence[p4runtime_pb2.Update],
                       describe: Callable[[p4runtime_pb2.Update], str]) -> list[UpdateError]:
    """One :class:`UpdateError` per failed update (all of them if the switch gave no details)."""
    st = _status_of(err)
    out = []
    if st is not None and st.details:
        for i, anyd in enumerate(st.details):
            e = p4runtime_pb2.Error()
            if not anyd.Unpack(e) or e.canonical_code == code_pb2.OK:
                continue
            upd = updates[i] if i < len(updates) else None
            out.append(UpdateError(i, code_pb2.Code.Name(e.canonical_code), e.message,
                                   describe(upd) if upd is not None else "(not in batch)"))
    if not out:
        code = err.code().name if err.code() else "UNKNOWN"
        details = err.details() or ""
        for i, upd in enumerate(updates):
            out.append(UpdateError(i, code, details, describe(upd)))
            if len(updates) > 1:
                break  # without per-update details we cannot tell which one failed
    return out


def rpc_reason(err: grpc.RpcError) -> str:
    code = err.code()
    name = code.name if code else "UNKNOWN"
    details = (err.details() or "").strip()
    if code == grpc.StatusCode.UNAVAILABLE:
        return f"nothing answers gRPC there ({name}: {details}) -- is the switch running and listening on that address?"
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return f"the switch did not answer in time ({name})"
    return f"{name}: {details}"
