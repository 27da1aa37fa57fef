"""The packet path of BMv2 simple_switch around the generated program functions.

:class:`Engine` holds the generated namespace and runs one received frame through
ingress, the packet replication engine and egress (see :mod:`.pipeline` for the
order of operations), returning the frames that leave the switch.  A received packet
starts from the headers of the pass that ended last, all invalid but with their field
values, as BMv2 reuses a PHV from its pool (unless it follows within ``REUSE_GAP_S``).  A
resubmitted or recirculated copy takes its PHV at the end of ingress or egress
(``clone_no_phv_ptr``) while the original still holds its own, which is released right after, on
top of the pool: a chain of resubmits or recirculations alternates between two PHVs, and an
invalid header's field bumped each pass grows every other pass (helper recirc47).  The headers
inside the metadata struct are PHV headers too: they come from the same pooled pass.  An E2E
clone and a replica take the next pooled pass's PHV too and copy the valid headers into it, as BMv2's
``PHV::copy_headers`` does (an invalid one keeps that PHV's values; an E2E clone's other
metadata is reset); a clone first takes one for its clone session's copy (an I2E clone's: the
frame parsed again into it), which goes back on top of the pool once the replicas took theirs
(``Engine._session_copy``).  The copies of a multicast group or clone session take their PHVs in
BMv2's node order (:mod:`.replication`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from time import perf_counter

DROP_PORT = 511
# resubmit/recirculate passes of one packet before it is dropped: BMv2 sets no bound, so a finite
# loop must finish as there (a public key-value store answers a RANGE request by recirculating once
# per key: 70 keys, 70 passes; 64 cut it: helper corpus17); the bound only stops an endless loop
MAX_PASSES = 4096
# E2E clones one received frame may make: BMv2 sets no bound either (an egress that clones every
# packet E2E, clones included, sends frames forever, one at a time, from bounded queues of 64
# packets); Engine.run returns a list, so an endless clone chain is cut here (helper loop45)
MAX_E2E_CLONES = MAX_PASSES
# a packet that starts less than this many seconds after the previous one ended was, on
# BMv2, most likely received while that one was still in its pipeline (a burst): its PHV
# then comes fresh from the pool, not the previous packet's (see Engine._headers).  Wide
# enough that scheduling jitter on a loaded host does not split a burst; a sender that
# waits for each frame's output (tutorial scripts, test rigs) leaves longer gaps.
REUSE_GAP_S = 0.02
# finished passes kept as BMv2's PHV pool (it holds as many PHVs as were ever in flight at once)
POOL_MAX = 64
I_NORMAL, I_I2E, I_E2E, I_RECIRC, I_REPL, I_RESUB = 0, 1, 2, 4, 5, 6


@dataclass(frozen=True)
class TargetOptions:
    """simple_switch_grpc's target options that change the packet path (after ``--`` on its command
    line): the drop port and the number of priority queues per egress port."""

    drop_port: int = DROP_PORT      # --drop-port: what mark_to_drop writes and what drops a packet
    priority_queues: int = 1        # --priority-queues: standard_metadata.priority must be below it
    dump_packet_data: int = 0       # --dump-packet-data: bytes of each packet from/to a port in the trace

    def __post_init__(self):
        if not (isinstance(self.drop_port, int) and 0 <= self.drop_port <= 511):
            raise ValueError(f"drop port {self.drop_port!r}: must fit standard_metadata.egress_spec (0..511)")
        if not (isinstance(self.priority_queues, int) and self.priority_queues >= 1):
            raise ValueError(f"priority queues {self.priority_queues!r}: at least 1 per port")
        if not (isinstance(self.dump_packet_data, int) and self.dump_packet_data >= 0):
            raise ValueError(f"dump packet data {self.dump_packet_data!r}: a byte count (0: none)")


class ParserError(Exception):
    """Raised inside the generated parser; ``code`` is the P4 error number."""

    off = None  # set by a sub-parser: how far the packet was consumed when it failed

    def __init__(self, code: int):
        self.code = code


class StackEmpty(Exception):
    """``hs.last`` of a stack nothing was extracted into: simple_switch asserts in
    ``Stack::get_last`` and dies (errs18 probe c_last_before_extract), so the packet is dropped."""


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
            raise StackEmpty()
        return self.a[self.n - 1]

    # BMv2 1.15 (StackP4_16) shifts a header stack as it shifts a stack of unions (below) and then
    # marks the vacated headers invalid: they keep the values of the elements rotated into them (a
    # key or a read of such an element, or a setValid() on it, sees them -- corpus11, measured)
    def push_front(self, k: int) -> None:
        self.push_front_u(k)
        for h in self.a[:min(k, len(self.a))]:
            h._v = False

    def pop_front(self, k: int) -> None:
        self.pop_front_u(k)
        for h in self.a[len(self.a) - min(k, len(self.a)):]:
            h._v = False

    # A stack of header unions on BMv2 (1.15): push/pop swap elements pairwise
    # (push_front: a[i] <-> a[i-k] for i from the top down; pop_front: a[i] <-> a[i+k]
    # from the bottom up) and then fail to invalidate the vacated unions, so their
    # old contents stay valid.  BMv2 decides: these reproduce it.
    def push_front_u(self, k: int) -> None:
        a = self.a
        k = min(k, len(a))
        if k:
            for i in range(len(a) - 1, k - 1, -1):
                a[i], a[i - k] = a[i - k], a[i]
        self.n = min(self.n + k, len(a))

    def pop_front_u(self, k: int) -> None:
        a = self.a
        k = min(k, len(a))
        if k:
            for i in range(len(a) - k):
                a[i], a[i + k] = a[i + k], a[i]
        self.n = max(self.n - k, 0)


class PacketState:
    """Everything one packet carries through a pass of the pipeline.

    Slots, all set in ``__init__``: every attribute read on the packet path is then a
    plain slot load (rarely set ones -- clone, resubmit, digest, ... -- start as None).
    """

    __slots__ = ("data", "plen", "ilen", "port", "tr", "off", "clone", "resub", "recirc", "digest",
                 "dm", "trunc", "clip", "hdr", "meta", "sm")

    def __init__(self, data: bytes, port: int, tr):
        self.data = data
        self.plen = self.ilen = len(data)
        self.port = port
        self.tr = tr
        self.off = self.clip = 0
        self.clone = self.resub = self.recirc = self.digest = self.dm = self.trunc = None
        self.hdr = self.meta = self.sm = None


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
        self.reuse_headers = ns["reuse_headers"]
        # BMv2 takes a packet's PHV from a pool (last released, first reused) and only marks
        # its headers invalid: a header the parser does not extract keeps the values of the
        # packet that last used that PHV.  ``_passes`` are the passes of the packet being
        # processed, in the order they started ingress or egress (a pass seen again moves to
        # the end); when the next packet is received they are released onto ``_pool`` in that
        # order, so the pass processed last is on top: the received packet takes its headers
        # (see :meth:`_headers`), its I2E clones the next ones, and every other copy BMv2 makes
        # (a replica, an E2E clone) uses one up (:meth:`_pooled`); a resubmitted or recirculated
        # pass takes the top one and releases its original right away (:meth:`_requeued`).
        # ``_last_t`` is when the previous received packet started.
        self._passes: list = []
        self._pool: list = []
        self._last_t = -1.0
        self.new_meta = ns["new_meta"]
        self.new_sm = ns["new_sm"]
        self.copy_fl = ns["copy_field_list"]
        self.copy_mh = ns["copy_meta_headers"]
        self.reuse_mh = ns["reuse_meta_headers"]
        self.copy_valid = ns["copy_valid_headers"]
        self.copy_valid_mh = ns["copy_valid_meta_headers"]
        self._src = None     # the pooled pass whose PHV the pass being built takes (_new_meta)
        self._e2e_left = MAX_E2E_CLONES   # E2E clones the frame in Engine.run may still make
        self.AssertionFailed = ns["AssertionFailed"]
        self.clock = pipeline.clock
        # the timestamps of standard_metadata cost a clock read each: only for programs
        # that can read them
        self.need_ts = _reads_timestamps(source)
        # egress queues per port (simple_switch_grpc's --priority-queues, default 1): a packet
        # whose standard_metadata.priority is not below it is dropped when it is enqueued
        self.priority_queues = 1
        # the drop port (--drop-port, default 511): mark_to_drop writes it (the generated code's
        # ``_DROP``), egress_spec equal to it at the end of ingress or egress drops the packet,
        # and egress starts with egress_spec = drop port + 1 (9 bits: 0 for 511), as BMv2 does
        self.drop_port = DROP_PORT
        self.egress_spec0 = 0
        self.dump = 0   # bytes of a packet received from / sent to a port shown in the trace

    def set_target_options(self, opts: TargetOptions) -> None:
        """simple_switch_grpc's ``--drop-port`` and ``--priority-queues`` (see __init__)."""
        self.drop_port = opts.drop_port
        self.egress_spec0 = (opts.drop_port + 1) & 0x1FF
        self.ns["_DROP"] = opts.drop_port
        self.priority_queues = opts.priority_queues
        self.dump = opts.dump_packet_data

    # one parse of a frame into fresh headers/metadata
    def _parsed(self, data: bytes, port: int, itype: int, tr, carry=None, set_port=True, phv=None) -> PacketState:
        """``phv``: ``(src,)``, the pooled pass (None: a fresh PHV) the copy took already (_requeued)."""
        P = PacketState(data, port, tr)
        P.hdr = self._headers() if itype == I_NORMAL else self._pooled() if phv is None else self._from(phv[0])
        if itype == I_I2E:
            return self._session_parse(P, tr)
        P.meta = self._new_meta()
        sm = P.sm = self.new_sm()
        if set_port:
            sm.ingress_port = port
        sm.packet_length = len(data)
        sm.instance_type = itype
        if self.need_ts:
            sm.ingress_global_timestamp = self.clock()
        if carry is not None:
            self.copy_fl(carry[0], P.meta, carry[1])
        return P if self._parse(P, tr) else None

    def _session_parse(self, P, tr) -> PacketState:
        """An I2E clone's session copy, parsed (see :meth:`_clone`): simple_switch sets only its
        ``ingress_port`` before the parse, so the parser reads the rest of ``standard_metadata`` as
        the pooled PHV's last pass left it (a fresh PHV: 0; helper p4rt68's probe: a parser selecting
        on ``instance_type, packet_length`` saw (0, 0) on a fresh pool, (0, 38) in a 38-byte
        frame's PHV).  The user metadata too: simple_switch resets a received packet's (``receive_``),
        not this copy's, whose parser reads the pooled PHV's last values; it is reset after the parse."""
        src, self._src = self._src, None
        if src is not None and src.meta is not None:
            P.meta = src.meta.copy()
            self.reuse_mh(src.meta, P.meta)   # (its headers: invalid, values kept, as _new_meta's)
        else:
            P.meta = self.new_meta()
        P.sm = src.sm.copy() if src is not None and src.sm is not None else self.new_sm()
        P.sm.ingress_port = P.port
        return P if self._parse(P, tr) else None

    def _parse(self, P, tr) -> bool:
        """Parser and checksum verification; False when a statement simple_switch dies on (a failed
        ``assert``, elab_object_calls.bmv2_dies: a ``log_msg`` in a parser state) dropped the packet
        there -- it escaped the pipeline before (helper errs18's probe c_log_in_parser)."""
        try:
            self.parse(P)
            if self.verify is not None:
                self.verify(P)
        except self.AssertionFailed as e:
            if tr:
                tr(f"assert failed at {e}: packet dropped")
            return False
        except StackEmpty:
            if tr:
                tr("the last element of an empty header stack (simple_switch dies on it): packet dropped")
            return False
        return True

    def _headers(self):
        """Headers for a new pass: the last finished packet's, reset as BMv2 resets a PHV
        from its pool (all invalid, field values kept), else fresh ones.  BMv2 releases a
        PHV when the packet leaves; a packet received while the previous one is still in
        flight gets another one (a new, zeroed PHV while the pool is small): a packet that
        follows the previous one within ``REUSE_GAP_S`` (frames queued back to back) starts
        from fresh headers, as the differential suite's bursts see on BMv2.  The gap is
        taken between the starts of consecutive received packets (one clock read per packet;
        a packet's own processing takes microseconds, the gap is milliseconds).  Only a
        received packet's first pass comes here (the passes it makes take theirs from
        :meth:`_pooled`)."""
        now = perf_counter()
        t = self._last_t
        self._last_t = now
        pool = self._pool
        if self._passes:
            pool += self._passes
            self._passes = []
            if len(pool) > POOL_MAX:
                del pool[:-POOL_MAX]
        if now - t < REUSE_GAP_S:
            pool.clear()
            self._src = None
            return self.new_headers()
        return self._reuse(pool)

    def _reuse(self, pool):
        """The next pooled pass's headers, reset; ``_src`` keeps that pass for :meth:`_new_meta`."""
        return self._from(pool.pop() if pool else None)

    def _from(self, src):
        """The headers of pooled pass ``src``, reset (fresh ones for None); ``_src`` keeps it."""
        self._src = src
        return self.new_headers() if src is None else self.reuse_headers(src.hdr)

    def _requeued(self, P):
        """BMv2 resubmits or recirculates a copy of ``P`` (``clone_no_phv_ptr``): the copy takes the
        pool's top PHV while ``P`` holds its own, then ``P``'s is released on top of the pool.
        Returns ``(src,)``, the pooled pass (None: a fresh PHV) the copy's parse starts from."""
        pool = self._pool
        taken = (pool.pop() if pool else None,)
        if P in self._passes:
            self._passes.remove(P)
        pool.append(P)
        if len(pool) > POOL_MAX:
            del pool[:-POOL_MAX]
        return taken

    def _new_meta(self):
        """Metadata for the pass whose headers :meth:`_headers` / :meth:`_pooled` just gave:
        fresh, but for the headers inside the metadata struct, which are PHV headers too and
        come from the same pooled PHV (invalid, values kept; gen_blocks.gen_meta_headers)."""
        m = self.new_meta()
        src, self._src = self._src, None
        if src is not None and src.meta is not None:
            self.reuse_mh(src.meta, m)
        return m

    def _pooled(self):
        """Headers for a pass BMv2 parses again into a PHV from its pool (an I2E clone; an E2E
        clone, which copies the valid headers into it): the next released pass's, reset as
        :meth:`_headers` resets them, else fresh ones.
        A replica takes one too (the original's PHV goes back to the pool after ingress)."""
        return self._reuse(self._pool)

    def _started(self, P) -> None:
        """Note that pass ``P`` starts ingress or egress (see ``_passes``)."""
        passes = self._passes
        if passes and passes[-1] is P:
            return
        if P in passes:
            passes.remove(P)
        passes.append(P)
        if len(passes) > POOL_MAX:   # the pool keeps the last POOL_MAX only (_headers): the same ones,
            del passes[0]            # and an endless loop's 4096 passes cost no O(n) search each

    def run(self, port: int, frame: bytes, out=None) -> list[tuple[int, bytes]]:
        """The frames ``frame`` makes leave the switch, ``[(egress_port, bytes), ...]`` in the
        order BMv2 emits them.  With ``out`` (anything with ``append``), each one is appended
        there the moment its egress pass ends -- a multicast group's first copy (the forward,
        for Checkmate's groups) before the next copy's egress pass runs -- and ``out`` is
        returned; the packet path itself is the same."""
        tr = self.pl.trace
        if out is None:
            out = []
        ingress_q = [(frame, port, I_NORMAL, None, None)]
        egress_q: list = []
        self._e2e_left = MAX_E2E_CLONES
        if tr is not None:
            return self._drain(tr, ingress_q, 0, egress_q, 0, out)
        # fast path (no trace): the first ingress pass and, for one unicast copy, its
        # egress pass inline; anything more continues in the general loop
        P = PacketState(frame, port, None)
        P.hdr = self._headers()
        P.meta = self._new_meta()
        sm = P.sm = self.new_sm()
        sm.ingress_port = port
        sm.packet_length = P.ilen
        sm.instance_type = I_NORMAL
        if self.need_ts:
            sm.ingress_global_timestamp = self.clock()
        if not self._parse(P, None):
            return out
        self._ingress_parsed(P, frame, port, None, ingress_q, egress_q)
        if len(egress_q) == 1 and len(ingress_q) == 1:
            P, eport = egress_q[0]
            self._egress(P, eport, None, ingress_q, egress_q, out)
            if len(egress_q) == 1 and len(ingress_q) == 1:
                return out
            return self._drain(None, ingress_q, 1, egress_q, 1, out)
        return self._drain(None, ingress_q, 1, egress_q, 0, out)

    def _drain(self, tr, ingress_q, i, egress_q, j, out):
        """The general loop: egress copies of the current pass from ``egress_q[j]`` on,
        then the ingress passes from ``ingress_q[i]`` on (resubmit/recirculate)."""
        while True:
            while j < len(egress_q):  # E2E clones are appended while we go
                P, eport = egress_q[j]
                egress_q[j] = None    # (an E2E clone chain keeps no packet it has sent)
                j += 1
                self._egress(P, eport, tr, ingress_q, egress_q, out)
            if i >= len(ingress_q):
                return out
            if i >= MAX_PASSES:
                if tr:
                    tr(f"dropping: more than {MAX_PASSES} resubmit/recirculate passes")
                return out
            data, iport, itype, carry, phv = ingress_q[i]
            i += 1
            egress_q = []
            j = 0
            self._ingress(data, iport, itype, carry, tr, ingress_q, egress_q, phv)

    def _ingress(self, data, iport, itype, carry, tr, ingress_q, egress_q, phv=None) -> None:
        if tr:
            tr(f"ingress port {iport}, {len(data)} bytes, instance_type {itype}")
            if self.dump and itype == I_NORMAL:
                tr(f"packet data: {data[:self.dump].hex(' ')}")
        # BMv2 (simple_switch.cpp): a resubmitted or recirculated packet gets a PHV whose
        # metadata is reset (``reset_metadata()``): ingress_port reads 0 unless the preserved
        # field list carries it; only instance_type and packet_length are set again.
        P = self._parsed(data, iport, itype, tr, carry, set_port=itype == I_NORMAL, phv=phv)
        if P is not None:
            self._ingress_parsed(P, data, iport, tr, ingress_q, egress_q)

    def _run_control(self, control, P, tr, where: str) -> bool:
        """Run the ingress or egress control on ``P``; False when it dropped the packet as BMv2 does:
        a failed ``assert`` or a header stack index out of bounds ends the packet's life there."""
        try:
            control(P)
        except self.AssertionFailed as e:
            if tr:
                tr(f"assert failed at {e}: packet dropped")
            return False
        except (IndexError, StackEmpty):
            if tr:
                tr(f"header stack index out of bounds in {where}: packet dropped")
            return False
        return True

    def _ingress_parsed(self, P, data, iport, tr, ingress_q, egress_q) -> None:
        self._started(P)
        if self.ingress is not None and not self._run_control(self.ingress, P, tr, "ingress"):
            return
        sm = P.sm
        if P.clone is not None or P.digest is not None or P.resub is not None:
            if self._ingress_specials(P, data, iport, tr, ingress_q, egress_q):
                return
        grp = sm.mcast_grp
        if grp:
            reps = self.pl.mcast_groups.get(grp) or ()
            if tr:
                tr(f"multicast group {grp}: {len(reps)} replica(s)")
            if reps:
                # every BMv2 replica is a fresh copy (no recirculate/truncate request) in a PHV from the
                # pool, into which the valid headers are copied (clone_with_phv: copy_headers), made in
                # BMv2's node order (replication.replica_plan)
                takes, runs = self.pl.mcast_plans.get(grp) or _in_order(len(reps))
                made = [None] * len(reps)
                for k in takes:
                    R = made[k] = self._copy_of(P, tr)
                    R.sm = P.sm.copy()
                    R.sm.egress_rid = reps[k][1]
                    R.sm.instance_type = I_REPL
                egress_q.extend((made[k], reps[k][0]) for k in runs)
            return
        eport = sm.egress_spec
        if eport == self.drop_port:
            if tr:
                tr(f"dropped at the end of ingress (egress_spec {eport}: the drop port)")
            return
        sm.instance_type = I_NORMAL
        egress_q.append((P, eport))

    def _ingress_specials(self, P, data, iport, tr, ingress_q, egress_q) -> bool:
        """I2E clone, digest and resubmit at the end of ingress; True if resubmitted."""
        pl = self.pl
        if P.clone is not None:
            # BMv2: the original frame is parsed again with the received packet's ingress_port (a
            # parser selecting on it parses the clone as the original: helper p4rt68), then *all*
            # metadata (standard_metadata included: ingress_port reads 0) is reset and only the
            # preserved field list is copied over (_clone)
            self._clone(P, I_I2E, lambda: self._parsed(data, iport, I_I2E, tr, None), tr, egress_q)
        if P.digest is not None and pl.on_digest is not None:
            did, vals = P.digest
            pl.on_digest(did, vals() if callable(vals) else vals)
        if P.resub is not None:
            if tr:
                tr("resubmit")
            ingress_q.append((data, iport, I_RESUB, (P.meta, P.resub), self._requeued(P)))
            return True
        return False

    def _clone(self, P: PacketState, kind: int, make, tr, egress_q) -> None:
        """Queue one clone of ``P`` per replica of its clone session (``make()`` builds each packet):
        fresh metadata but for the preserved field list, fresh ``standard_metadata`` with the
        session's ``egress_rid``, cut to the session's truncation length when it leaves."""
        sess, fl = P.clone
        cfg = self.pl.clone_sessions.get(sess)
        if cfg is None:
            if tr:
                tr(f"clone session {sess} not configured: no clone")
            return
        reps, _cos, trunc = cfg
        if kind == I_I2E:
            # BMv2 parses the frame again into the session's copy (a PHV from the pool), resets its
            # metadata but for the preserved field list, and the replicas copy it
            held = make()
            if held is None:   # (its parser dropped it, as the original's did not: an assert on a field)
                return
            pooled, held.meta = held.meta, self.new_meta()
            if pooled is not None:   # its metadata headers stay as the parse left them
                self.copy_mh(pooled, held.meta)
            if fl is not None:   # (p4c's JSON: 0 for a plain clone, no list has id 0)
                self.copy_fl(P.meta, held.meta, fl)
        else:
            held = self._session_copy(P)
        takes, runs = self.pl.clone_plans.get(sess) or _in_order(len(reps))
        made = [None] * len(reps)
        for k in takes:   # the replicas take their PHVs in BMv2's node order (replication.replica_plan)
            if kind == I_E2E:
                if self._e2e_left <= 0:
                    if tr:
                        tr(f"E2E clone dropped: more than {MAX_E2E_CLONES} E2E clones of one received frame")
                    break
                self._e2e_left -= 1
                C = make()
                pooled, C.meta = C.meta, self.new_meta()
                if pooled is not None:   # a clone in a pooled PHV keeps its metadata headers as
                    self.copy_mh(pooled, C.meta)   # make() took them (the rest of its metadata reset)
                # headers in the metadata struct are PHV headers: the valid ones copied
                self.copy_valid_mh(P.meta, C.meta)
                if fl is not None:
                    self.copy_fl(P.meta, C.meta, fl)
            else:
                C = self._copy_of(held, tr)
            C.sm = self.new_sm()
            C.sm.instance_type = kind
            C.sm.egress_rid = reps[k][1]
            C.clip = trunc
            made[k] = C
        for k in runs:
            if made[k] is not None:
                egress_q.append((made[k], reps[k][0]))
                if tr:
                    tr(f"{'I2E' if kind == I_I2E else 'E2E'} clone (session {sess}) to port {reps[k][0]} "
                       f"rid {reps[k][1]}")
        # the session's own copy goes back to the pool once its replicas are made
        self._release(held)

    def _copy_of(self, Y, tr) -> PacketState:
        """A replica of ``Y`` (BMv2's ``clone_with_phv_ptr``): a PHV from the pool into which ``Y``'s
        valid headers are copied, ``Y``'s metadata (its headers: the valid ones; the invalid ones
        keep the pooled PHV's values), the frame shared.  The caller sets ``sm``."""
        R = PacketState(Y.data, Y.port, tr)
        R.off, R.plen, R.ilen = Y.off, Y.plen, Y.ilen
        R.hdr, R.meta = self.copy_valid(Y.hdr, self._pooled()), Y.meta.copy()
        src, self._src = self._src, None
        self.reuse_mh(src.meta if src is not None and src.meta is not None else self.new_meta(), R.meta)
        self.copy_valid_mh(Y.meta, R.meta)
        return R

    def _session_copy(self, P) -> PacketState:
        """The copy an E2E clone first makes on BMv2: a P4Runtime clone session is a multicast group
        on simple_switch_grpc (PI's PreCloneMgr sets ``mc_grp_id``, no egress port), so the egress
        thread clones ``P`` into a PHV from the pool (``clone_with_phv_reset_metadata``: the valid
        headers copied), each replica then takes a PHV of its own (``multicast``:
        ``clone_with_phv_ptr``) and the copy's PHV goes back on top of the pool at once, holding
        ``P``'s valid headers: the next pass takes it (mutz46's stamped probe: each clone takes the
        PHV of the original two frames back; fuzz_mutants 5068, 6013).  BMv2 makes an I2E clone
        so too (:meth:`_clone`): the frame parsed again into the session's copy, its metadata reset
        but for the field list, the replicas copy it, and the ingress thread releases the copy
        before it drops or enqueues the original (helper p4rt68's stamped probes: after a frame
        that left two PHVs, every replica of the next frame's I2E clone reads a fresh PHV, every
        run).  Which PHVs the frames after that get depends on BMv2's egress and transmit threads."""
        Y = PacketState(P.data, P.port, None)
        Y.hdr = self.copy_valid(P.hdr, self._pooled())
        Y.meta = self._new_meta()
        self.copy_valid_mh(P.meta, Y.meta)
        return Y

    def _release(self, Y) -> None:
        """PHV copy ``Y`` goes back on top of the pool (see :meth:`_requeued`)."""
        pool = self._pool
        pool.append(Y)
        if len(pool) > POOL_MAX:
            del pool[:-POOL_MAX]

    def _egress(self, P: PacketState, eport: int, tr, ingress_q, egress_q, out) -> None:
        self._started(P)
        sm = P.sm
        # every packet on egress_q went through BMv2's enqueue(), which drops it when its
        # priority names no queue ("Priority out of range, dropping packet")
        if getattr(sm, "priority", 0) >= self.priority_queues:  # (absent before V1MODEL_VERSION 20200408)
            if tr:
                tr(f"dropped at enqueue: priority {getattr(sm, 'priority', 0)} out of range ({self.priority_queues} queue(s))")
            return
        sm.egress_port = eport
        sm.egress_spec = self.egress_spec0
        sm.packet_length = P.plen
        if self.need_ts:
            sm.egress_global_timestamp = self.clock()
        if P.clone is not None or P.digest is not None:
            P.clone = P.digest = None
        if tr:
            tr(f"egress port {eport}, instance_type {sm.instance_type}, egress_rid {sm.egress_rid}")
        if self.egress is not None and not self._run_control(self.egress, P, tr, "egress"):
            return
        if P.clone is not None:
            def e2e():  # the packet as egress left it: headers copied, the rest of the frame shared
                C = PacketState(P.data, P.port, tr)
                C.off, C.plen, C.ilen = P.off, P.plen, P.ilen
                # BMv2's E2E clone takes a PHV from the pool and copies the valid headers into it
                # (PHV::copy_headers): an invalid one keeps that PHV's values (gen_copy_valid)
                C.hdr = self.copy_valid(P.hdr, self._pooled())
                C.meta = self._new_meta()
                return C
            self._clone(P, I_E2E, e2e, tr, egress_q)
        if sm.egress_spec == self.drop_port:
            if tr:
                tr("dropped in egress (mark_to_drop)")
            return
        if self.compute is not None:
            self.compute(P)
        data = self.deparse(P) + P.data[P.off:]
        if P.recirc is not None:
            # BMv2 recirculates the whole deparsed packet: truncate() cuts only what leaves a port
            if tr:
                tr("recirculate")
            ingress_q.append((data, P.port, I_RECIRC, (P.meta, P.recirc), self._requeued(P)))
            return
        if P.trunc is not None and P.trunc < len(data):
            data = data[:P.trunc]
        if P.clip and P.clip < len(data):
            data = data[:P.clip]
        if tr:
            tr(f"out port {eport}, {len(data)} bytes")
            if self.dump:
                tr(f"packet data: {data[:self.dump].hex(' ')}")
        out.append((eport, data))


def _in_order(n: int) -> tuple[range, range]:
    """The plan of copies made and run as written (a group set without ``mcast_group_set``)."""
    return range(n), range(n)


# lines of the generated struct classes (``__init__``/``copy``), which touch every field
_BOILERPLATE = re.compile(r"\s*(self|c)\.\w+ = (0|self\.\w+)$")


def _reads_timestamps(source: str) -> bool:
    """Whether generated code can observe ``*_global_timestamp``: a line that names one
    (other than the struct classes' own init/copy) or copies/compares whole structs
    (which could carry standard_metadata along) -- conservative: True when unsure."""
    for line in source.splitlines():
        if "global_timestamp" in line and not _BOILERPLATE.match(line) and "__slots__" not in line:
            return True
        if ("_copy_into(" in line or "_eq(" in line or ".copy()" in line) and not line.lstrip().startswith(
                ("c.", "return c", "def ")):
            return True
    return False
