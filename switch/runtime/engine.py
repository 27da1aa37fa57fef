"""The packet path of BMv2 simple_switch around the generated program functions.

:class:`Engine` holds the generated namespace and runs one received frame through
ingress, the packet replication engine and egress (see :mod:`.pipeline` for the
order of operations), returning the frames that leave the switch.
"""
from __future__ import annotations

from collections import deque

DROP_PORT = 511
MAX_PASSES = 64
I_NORMAL, I_I2E, I_E2E, I_RECIRC, I_REPL, I_RESUB = 0, 1, 2, 4, 5, 6


class ParserError(Exception):
    """Raised inside the generated parser; ``code`` is the P4 error number."""

    def __init__(self, code: int):
        self.code = code


class ExitSignal(Exception):
    """``exit`` statement: leaves the current control."""


class Stack:
    """A header stack: ``a`` holds the elements, ``n`` is ``nextIndex``."""

    __slots__ = ("a", "n", "cls")

    def __init__(self, a, cls):
        self.a = a
        self.n = 0
        self.cls = cls

    def copy(self):
        s = Stack([h.copy() for h in self.a], self.cls)
        s.n = self.n
        return s

    def nxt(self):
        if self.n >= len(self.a):
            raise ParserError(3)  # StackOutOfBounds
        return self.a[self.n]

    def last(self):
        if self.n == 0:
            raise ParserError(3)
        return self.a[self.n - 1]

    def push_front(self, k: int) -> None:
        size = len(self.a)
        k = min(k, size)
        self.a = [self.cls() for _ in range(k)] + self.a[:size - k]
        self.n = min(self.n + k, size)

    def pop_front(self, k: int) -> None:
        size = len(self.a)
        k = min(k, size)
        self.a = self.a[k:] + [self.cls() for _ in range(k)]
        self.n = max(self.n - k, 0)


class PacketState:
    """Everything one packet carries through a pass of the pipeline."""

    __slots__ = ("data", "off", "hdr", "meta", "sm", "plen", "ilen", "port", "clone", "resub",
                 "recirc", "digest", "dm", "trunc", "tr", "clip")

    def __init__(self, data: bytes, port: int, tr):
        self.data = data
        self.off = 0
        self.plen = len(data)
        self.ilen = len(data)
        self.port = port
        self.clone = None
        self.resub = None
        self.recirc = None
        self.digest = None
        self.dm = None
        self.trunc = None
        self.clip = 0
        self.tr = tr


class Engine:
    def __init__(self, ir, pipeline, ns, source: str):
        self.ir = ir
        self.pl = pipeline
        self.ns = ns
        self.source = source
        self.parse = ns["run_parser"]
        self.verify = ns["run_verify_checksum"]
        self.ingress = ns["run_ingress"]
        self.egress = ns["run_egress"]
        self.compute = ns["run_compute_checksum"]
        self.deparse = ns["run_deparser"]
        self.new_headers = ns["new_headers"]
        self.new_meta = ns["new_meta"]
        self.new_sm = ns["new_sm"]
        self.copy_fl = ns["copy_field_list"]
        self.AssertionFailed = ns["AssertionFailed"]

    # one parse of a frame into fresh headers/metadata
    def _parsed(self, data: bytes, port: int, itype: int, tr, carry=None, set_port=True) -> PacketState:
        P = PacketState(data, port, tr)
        P.hdr = self.new_headers()
        P.meta = self.new_meta()
        sm = P.sm = self.new_sm()
        if set_port:
            sm.ingress_port = port
        sm.packet_length = len(data)
        sm.instance_type = itype
        sm.ingress_global_timestamp = self.pl.clock()
        if carry is not None:
            self.copy_fl(carry[0], P.meta, carry[1])
        self.parse(P)
        self.verify(P)
        return P

    def run(self, port: int, frame: bytes) -> list[tuple[int, bytes]]:
        tr = self.pl.trace
        out: list[tuple[int, bytes]] = []
        ingress_q = deque([(frame, port, I_NORMAL, None)])
        passes = 0
        while ingress_q:
            passes += 1
            if passes > MAX_PASSES:
                if tr:
                    tr(f"dropping: more than {MAX_PASSES} resubmit/recirculate passes")
                break
            data, iport, itype, carry = ingress_q.popleft()
            egress_q: deque = deque()
            self._ingress(data, iport, itype, carry, tr, ingress_q, egress_q)
            while egress_q:
                P, eport = egress_q.popleft()
                self._egress(P, eport, tr, ingress_q, egress_q, out)
        return out

    def _ingress(self, data, iport, itype, carry, tr, ingress_q, egress_q) -> None:
        if tr:
            tr(f"ingress port {iport}, {len(data)} bytes, instance_type {itype}")
        P = self._parsed(data, iport, itype, tr, carry)
        try:
            self.ingress(P)
        except self.AssertionFailed as e:
            if tr:
                tr(f"assert failed at {e}: packet dropped")
            return
        sm = P.sm
        pl = self.pl
        if P.clone is not None:
            sess, fl = P.clone
            cfg = pl.clone_sessions.get(sess)
            if cfg is None:
                if tr:
                    tr(f"clone session {sess} not configured: no clone")
            else:
                reps, _cos, trunc = cfg
                for eport, rid in reps:
                    C = self._parsed(data, iport, I_I2E, tr, (P.meta, fl) if fl else None, set_port=False)
                    C.sm.egress_rid = rid
                    C.clip = trunc
                    C.plen = len(data)
                    egress_q.append((C, eport))
                    if tr:
                        tr(f"I2E clone (session {sess}) to port {eport} rid {rid}")
        if P.digest is not None and pl.on_digest is not None:
            pl.on_digest(*P.digest)
        if P.resub is not None:
            if tr:
                tr("resubmit")
            ingress_q.append((data, iport, I_RESUB, (P.meta, P.resub)))
            return
        grp = sm.mcast_grp
        if grp:
            reps = pl.mcast_groups.get(grp)
            if tr:
                tr(f"multicast group {grp}: {len(reps or ())} replica(s)")
            for eport, rid in reps or ():
                R = PacketState(P.data, iport, tr)
                R.off, R.plen, R.ilen = P.off, P.plen, P.ilen
                R.hdr, R.meta, R.sm = P.hdr.copy(), P.meta.copy(), P.sm.copy()
                R.sm.egress_rid = rid
                R.sm.instance_type = I_REPL
                R.trunc = P.trunc
                egress_q.append((R, eport))
            return
        eport = sm.egress_spec
        if eport == DROP_PORT:
            if tr:
                tr("dropped at the end of ingress (egress_spec 511)")
            return
        sm.instance_type = I_NORMAL
        egress_q.append((P, eport))

    def _egress(self, P: PacketState, eport: int, tr, ingress_q, egress_q, out) -> None:
        sm = P.sm
        sm.egress_port = eport
        sm.egress_spec = 0
        sm.packet_length = P.plen
        sm.egress_global_timestamp = self.pl.clock()
        P.clone = None
        P.recirc = None
        P.digest = None
        if tr:
            tr(f"egress port {eport}, instance_type {sm.instance_type}, egress_rid {sm.egress_rid}")
        try:
            self.egress(P)
        except self.AssertionFailed as e:
            if tr:
                tr(f"assert failed at {e}: packet dropped")
            return
        if P.clone is not None:
            sess, fl = P.clone
            cfg = self.pl.clone_sessions.get(sess)
            if cfg is None:
                if tr:
                    tr(f"clone session {sess} not configured: no clone")
            else:
                reps, _cos, trunc = cfg
                for cport, rid in reps:
                    C = PacketState(P.data, P.port, tr)
                    C.off, C.plen, C.ilen = P.off, P.plen, P.ilen
                    C.hdr = P.hdr.copy()
                    C.meta = self.new_meta()
                    if fl:
                        self.copy_fl(P.meta, C.meta, fl)
                    C.sm = self.new_sm()
                    C.sm.instance_type = I_E2E
                    C.sm.egress_rid = rid
                    C.clip = trunc
                    egress_q.append((C, cport))
                    if tr:
                        tr(f"E2E clone (session {sess}) to port {cport} rid {rid}")
        if sm.egress_spec == DROP_PORT:
            if tr:
                tr("dropped in egress (mark_to_drop)")
            return
        self.compute(P)
        data = self.deparse(P) + P.data[P.off:]
        if P.trunc is not None and P.trunc < len(data):
            data = data[:P.trunc]
        if P.recirc is not None:
            if tr:
                tr("recirculate")
            ingress_q.append((data, P.port, I_RECIRC, (P.meta, P.recirc)))
            return
        if P.clip and P.clip < len(data):
            data = data[:P.clip]
        if tr:
            tr(f"out port {eport}, {len(data)} bytes")
        out.append((eport, data))
