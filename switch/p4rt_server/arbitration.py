"""Client arbitration: which StreamChannel is the primary controller.

Rules (P4Runtime spec, "Client Arbitration and Controller Replication"; the same
choices as PI and Stratum where the spec leaves room):

* A client joins by sending MasterArbitrationUpdate on its stream, for a device id;
  it may not change device id later (FAILED_PRECONDITION, its stream ends).  As
  PI, every device id has an election of its own: a client naming another device
  id than the switch's is that (absent) device's primary or backup -- the
  switch's clients are not told -- and the service answers its Writes as a
  device without pipeline would (helper p4rt36's probe,
  tests/differential/test_p4rt_p4rt36.py).  Two live streams of a device may not
  share an election id (INVALID_ARGUMENT, the newcomer's stream ends); no
  election id and an id of 0 are the same id 0 to PI, so of two clients without
  one the second is refused too (helper p4rt35's probe).
* The primary is the device's connected client with the highest election id.
  When the primary leaves, the backup with the next highest id takes over at once
  (as PI/BMv2 do; a controller that restarts with a lower id than its predecessor
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
  (then with the highest id seen).  When the primary changes, every client of the
  device is told; otherwise only the client that sent the update.
* Writes, SetForwardingPipelineConfig and PacketOut need the primary's election id;
  Read and GetForwardingPipelineConfig are open to everyone.  Following PI, a write
  that carries no election id is accepted while no client of the device is
  connected (handy for scripts and tests), and refused otherwise.
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


class _Election:
    """One device id's arbitrated streams, its primary and the highest election id it has seen
    (the :class:`Arbiter`'s lock held by every caller)."""

    def __init__(self, device_id: int):
        self.device_id = device_id
        self.clients: list[Client] = []
        self.max_seen = 0
        self.primary: Client | None = None

    def elect(self) -> None:
        cands = [c for c in self.clients if c.election_id is not None]
        self.primary = max(cands, key=lambda c: c.election_id, default=None)

    def notify_all(self):
        return [(c, self.answer(c)) for c in self.clients]

    def answer(self, client: Client) -> p4runtime_pb2.StreamMessageResponse:
        prim = self.primary
        resp = p4runtime_pb2.StreamMessageResponse()
        arb = resp.arbitration
        arb.device_id = self.device_id
        eid = prim.election_id if prim is not None else self.max_seen
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


class Arbiter:
    """Primary election per device id (``device_id``: this switch's); thread-safe."""

    def __init__(self, device_id: int):
        self.device_id = device_id
        self._lock = threading.Lock()
        self._devices: dict[int, _Election] = {}   # every device id a client has named

    # -- state queries -------------------------------------------------------------
    def primary(self) -> Client | None:
        """This switch's primary client."""
        with self._lock:
            e = self._devices.get(self.device_id)
            return e.primary if e else None

    def is_primary(self, client: Client) -> bool:
        """Whether ``client`` is this switch's primary (a primary of another device id is not)."""
        with self._lock:
            e = self._devices.get(self.device_id)
            return e is not None and e.primary is client

    def check_primary(self, device_id: int, election_id: int | None, what: str) -> None:
        """Raise PERMISSION_DENIED unless ``election_id`` is the primary's of ``device_id``."""
        with self._lock:
            e = self._devices.get(device_id) or _Election(device_id)
            if election_id is None and not e.clients:
                return  # no controller at all: accept unauthenticated writes (PI behaviour)
            if e.primary is not None and e.primary.election_id == election_id:
                return
            holder = "no primary" if e.primary is None else f"the primary's is {e.primary.election_id}"
            raise P4RTError(StatusCode.PERMISSION_DENIED,
                            f"{what}: election id {election_id} is not the primary's of device {device_id} ({holder})")

    # -- stream events -------------------------------------------------------------
    def update(self, client: Client, msg: p4runtime_pb2.MasterArbitrationUpdate) -> list[tuple[Client, p4runtime_pb2.StreamMessageResponse]]:
        """Apply one arbitration message; return the answers to send (client, message)."""
        if client.device_id is not None and msg.device_id != client.device_id:
            raise P4RTError(StatusCode.FAILED_PRECONDITION,
                            f"arbitration: device id changed from {client.device_id} to {msg.device_id}")
        eid = election_int(msg.election_id) if msg.HasField("election_id") else None
        with self._lock:
            e = self._devices.setdefault(msg.device_id, _Election(msg.device_id))
            for other in e.clients:   # (no id is id 0 to PI: one such client)
                if other is not client and other.election_id == eid:
                    raise P4RTError(StatusCode.INVALID_ARGUMENT,
                                    f"arbitration: election id {eid or 0} is already used by another client")
            if client in e.clients and client.election_id == eid and eid is not None:
                return []   # a client repeating its arbitration unchanged: BMv2 sends no answer
            was = e.primary
            if client not in e.clients:
                e.clients.append(client)
            client.election_id, client.device_id = eid, msg.device_id
            e.max_seen = max(e.max_seen, eid or 0)
            e.elect()
            out = e.notify_all() if e.primary is not was else []
            if not any(c is client for c, _ in out):
                out.append((client, e.answer(client)))
            return out

    def remove(self, client: Client) -> list[tuple[Client, p4runtime_pb2.StreamMessageResponse]]:
        """Forget a closed stream; if it was primary, tell the others of its device who is now."""
        with self._lock:
            e = self._devices.get(client.device_id)
            if e is None or client not in e.clients:
                return []
            e.clients.remove(client)
            was = e.primary
            e.elect()
            return e.notify_all() if was is client else []
