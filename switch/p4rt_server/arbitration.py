"""Client arbitration: which StreamChannel is the primary controller.

Rules (P4Runtime spec, "Client Arbitration and Controller Replication"; the same
choices as PI and Stratum where the spec leaves room):

* A client joins by sending MasterArbitrationUpdate on its stream.  The device id
  must be the switch's (else the stream ends with NOT_FOUND); a client may not
  change device id later (FAILED_PRECONDITION).  Two live streams may not share an
  election id (INVALID_ARGUMENT, the newcomer's stream ends); no election id and an
  id of 0 are the same id 0 to PI, so of two clients without one the second is
  refused too (helper p4rt35's probe).
* The primary is the connected client with the highest election id.  When the
  primary leaves, the backup with the next highest id takes over at once (as
  PI/BMv2 do; a controller that restarts with a lower id than its predecessor
  still gets the switch).  A client without election id is a backup that never
  becomes primary.
* Roles: simple_switch_grpc 1.15.5 (its PI) ignores them -- a Role (name, id or
  config) in an arbitration and the role of a Write or SetForwardingPipelineConfig
  change nothing, every client competes for the one primary and no answer carries
  a role (helper p4rt35's probe, tests/differential/test_p4rt_p4rt35.py); so the
  arbiter never looks at a role.
* Every arbitration answer carries the primary's election id (or, with no
  primary, the highest id seen) and a status: OK to the primary, ALREADY_EXISTS
  to backups while a primary exists, NOT_FOUND to everyone while there is none
  (then with the highest id seen).  When the primary changes, every client is
  told; otherwise only the client that sent the update.
* Writes, SetForwardingPipelineConfig and PacketOut need the primary's election id;
  Read and GetForwardingPipelineConfig are open to everyone.  Following PI, a write
  that carries no election id is accepted while no client at all is connected
  (handy for scripts and tests), and refused otherwise.
"""
from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field

from google.rpc import code_pb2, status_pb2
from grpc import StatusCode
from p4.v1 import p4runtime_pb2

from .errors import P4RTError

_ids = itertools.count(1)


def election_int(eid) -> int | None:
    """A p4.v1.Uint128 as int; None when the message does not carry one."""
    if eid is None:
        return None
    value = (eid.high << 64) | eid.low
    return value if value else None


@dataclass(eq=False)
class Client:
    """One StreamChannel.  ``send`` queues a StreamMessageResponse towards the client."""

    send: object
    peer: str = ""
    id: int = field(default_factory=lambda: next(_ids))
    election_id: int | None = None
    device_id: int | None = None  # None until the first arbitration message


class Arbiter:
    """Primary election of one device; thread-safe."""

    def __init__(self, device_id: int):
        self.device_id = device_id
        self._lock = threading.Lock()
        self._clients: list[Client] = []   # the arbitrated streams
        self._max_seen = 0
        self._primary: Client | None = None

    # -- state queries -------------------------------------------------------------
    def primary(self) -> Client | None:
        with self._lock:
            return self._primary

    def is_primary(self, client: Client) -> bool:
        with self._lock:
            return self._primary is client

    def check_primary(self, election_id: int | None, what: str) -> None:
        """Raise PERMISSION_DENIED unless ``election_id`` is the primary's."""
        with self._lock:
            prim = self._primary
            if election_id is None and not self._clients:
                return  # no controller at all: accept unauthenticated writes (PI behaviour)
            if prim is not None and prim.election_id == election_id:
                return
            holder = "no primary" if prim is None else f"the primary's is {prim.election_id}"
            raise P4RTError(StatusCode.PERMISSION_DENIED,
                            f"{what}: election id {election_id} is not the primary's ({holder})")

    # -- stream events -------------------------------------------------------------
    def update(self, client: Client, msg: p4runtime_pb2.MasterArbitrationUpdate) -> list[tuple[Client, p4runtime_pb2.StreamMessageResponse]]:
        """Apply one arbitration message; return the answers to send (client, message)."""
        if msg.device_id != self.device_id:
            if client.device_id is not None:
                raise P4RTError(StatusCode.FAILED_PRECONDITION,
                                f"arbitration: device id changed from {client.device_id} to {msg.device_id}")
            raise P4RTError(StatusCode.NOT_FOUND,
                            f"arbitration: device id {msg.device_id} is not this switch (device id {self.device_id})")
        eid = election_int(msg.election_id) if msg.HasField("election_id") else None
        with self._lock:
            for other in self._clients:   # (no id is id 0 to PI: one such client)
                if other is not client and other.election_id == eid:
                    raise P4RTError(StatusCode.INVALID_ARGUMENT,
                                    f"arbitration: election id {eid or 0} is already used by another client")
            if client in self._clients and client.election_id == eid and eid is not None:
                return []   # a client repeating its arbitration unchanged: BMv2 sends no answer
            was = self._primary
            if client not in self._clients:
                self._clients.append(client)
            client.election_id, client.device_id = eid, msg.device_id
            self._max_seen = max(self._max_seen, eid or 0)
            self._elect()
            out = self._notify_all() if self._primary is not was else []
            if not any(c is client for c, _ in out):
                out.append((client, self._answer(client)))
            return out

    def remove(self, client: Client) -> list[tuple[Client, p4runtime_pb2.StreamMessageResponse]]:
        """Forget a closed stream; if it was primary, tell the others who is now."""
        with self._lock:
            if client not in self._clients:
                return []
            self._clients.remove(client)
            was = self._primary
            self._elect()
            return self._notify_all() if was is client else []

    # -- internals (lock held) -----------------------------------------------------
    def _elect(self) -> None:
        cands = [c for c in self._clients if c.election_id is not None]
        self._primary = max(cands, key=lambda c: c.election_id, default=None)

    def _notify_all(self):
        return [(c, self._answer(c)) for c in self._clients]

    def _answer(self, client: Client) -> p4runtime_pb2.StreamMessageResponse:
        prim = self._primary
        resp = p4runtime_pb2.StreamMessageResponse()
        arb = resp.arbitration
        arb.device_id = self.device_id
        eid = prim.election_id if prim is not None else self._max_seen
        if eid:
            arb.election_id.high, arb.election_id.low = eid >> 64, eid & ((1 << 64) - 1)
        if prim is client:
            arb.status.CopyFrom(status_pb2.Status(code=code_pb2.OK, message="primary"))
        elif prim is not None:
            arb.status.CopyFrom(status_pb2.Status(code=code_pb2.ALREADY_EXISTS,
                                                  message="backup: another client is primary"))
        else:
            arb.status.CopyFrom(status_pb2.Status(code=code_pb2.NOT_FOUND, message="no primary"))
        return resp
