"""P4Runtime idle timeouts (``support_timeout = true``), as simple_switch_grpc 1.15.5 answers them.

Found by helper corpus10 with p4-guide's ``ptf-tests/idletimeout`` program: checkmate-switch
refused every entry with an ``idle_timeout_ns`` (UNIMPLEMENTED) and sent no
IdleTimeoutNotification.  The first tests run without a switch process (the P4Runtime server's
writer, reader and ageing sweep on a pipeline checkmate-p4c compiled; hit times are set by
hand); the last ones run the same writes, reads and a notification on real BMv2 and on
checkmate-switch and compare the answers.
"""
from __future__ import annotations

import json

import pytest
from grpc import StatusCode
from p4.v1 import p4runtime_pb2 as pb

from switch.compiler import compile_source
from switch.p4rt_server.ageing import AgeingMonitor
from switch.p4rt_server.digests import DigestEngine
from switch.p4rt_server.errors import P4RTError
from switch.p4rt_server.reads import EntityReader
from switch.p4rt_server.state import build_state
from switch.p4rt_server.writes import EntityWriter

U = pb.Update

#: p4-guide ptf-tests/idletimeout (trimmed): mac_da_fwd ages its entries, redirect does not
PROGRAM = """#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dstAddr; bit<48> srcAddr; bit<16> etherType; }
struct headers_t { ethernet_t ethernet; }
struct metadata_t { }
parser P(packet_in pkt, out headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.ethernet); transition accept; } }
control I(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    action my_drop() { mark_to_drop(sm); }
    action set_port(bit<9> port) { sm.egress_spec = port; }
    table mac_da_fwd {
        key = { hdr.ethernet.dstAddr: exact; }
        actions = { @tableonly set_port; my_drop; @defaultonly NoAction; }
        support_timeout = true;
        default_action = my_drop;
    }
    table redirect_by_ethertype {
        key = { hdr.ethernet.etherType: exact; }
        actions = { @tableonly set_port; @defaultonly NoAction; }
        const default_action = NoAction;
    }
    apply { mac_da_fwd.apply(); redirect_by_ethertype.apply(); } }
control E(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) { apply { } }
control V(inout headers_t hdr, inout metadata_t meta) { apply { } }
control C(inout headers_t hdr, inout metadata_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def _names(info):
    def find(kind, suffix):
        return next(x for x in getattr(info, kind) if x.preamble.name.endswith(suffix))
    return find("tables", "mac_da_fwd"), find("tables", "redirect_by_ethertype"), find("actions", "set_port"), \
        find("actions", "my_drop")


def entry(info, mac: int, timeout: int | None = None, drop: bool = False, table=None):
    fwd, _, sp, dr = _names(info)
    t = table or fwd
    e = pb.TableEntry(table_id=t.preamble.id)
    e.match.add(field_id=t.match_fields[0].id).exact.value = mac.to_bytes(6 if t is fwd else 2, "big").lstrip(b"\0") or b"\0"
    e.action.action.action_id = (dr if drop else sp).preamble.id
    if not drop:
        e.action.action.params.add(param_id=1, value=b"\x02")
    if timeout is not None:
        e.idle_timeout_ns = timeout
    return e


NOW = 10**9   # the ageing clock, frozen (ms)


@pytest.fixture()
def frozen_clock(monkeypatch):
    from switch.runtime import tables
    monkeypatch.setattr(tables, "now_ms", lambda: NOW)


@pytest.fixture()
def server(frozen_clock):
    prog = compile_source(PROGRAM, "idle.p4")
    st = build_state(pb.ForwardingPipelineConfig(p4info=prog.p4info, p4_device_config=json.dumps(prog.device_config).encode()))
    sent = []
    eng = DigestEngine(lambda resp: None)
    mon = AgeingMonitor(sent.append, interval=3600)   # the tests sweep by hand
    mon.set_state(st)
    yield st, EntityWriter(eng), EntityReader(eng), mon, sent
    mon.close()
    eng.close()


def _write(srv, kind, te):
    st, w = srv[0], srv[1]
    try:
        w.apply(st, pb.Update(type=kind, entity=pb.Entity(table_entry=te)))
        return "OK"
    except P4RTError as e:
        return e.code.name


def _read(srv, te):
    return [e.table_entry for e in srv[2].read(srv[0], pb.Entity(table_entry=te))]


def _age(st, info, mac: int, ms: int) -> None:
    """Make an installed entry look last hit ``ms`` milliseconds ago."""
    fwd = _names(info)[0]
    table = st.pipeline.tables[fwd.preamble.id]
    inst = next(i for i in table._installed.values() if i.key == (mac,))
    inst.hit = NOW - ms


def test_entries_keep_their_idle_timeout(server):
    st = server[0]
    info = st.index.p4info
    fwd, red, _, _ = _names(info)
    assert _write(server, U.INSERT, entry(info, 7, 1_500_000_000)) == "OK"        # UNIMPLEMENTED before
    assert _write(server, U.INSERT, entry(info, 8)) == "OK"
    assert _write(server, U.INSERT, entry(info, 0x800, 10**9, table=red)) == "INVALID_ARGUMENT"
    # PI's messages, which p4-guide's ptf-tests/idletimeout compares
    for te, msg in ((entry(info, 0x800, 10**9, table=red), "idle_timeout_ns must be set to 0 for tables which do not support idle timeout"),
                    (entry(info, 5, -1), "idle_timeout_ns must be a positive value")):
        with pytest.raises(P4RTError) as ei:
            server[1].apply(st, pb.Update(type=U.INSERT, entity=pb.Entity(table_entry=te)))
        assert ei.value.code == StatusCode.INVALID_ARGUMENT and ei.value.message == msg
    for kind, te in ((U.INSERT, entry(info, 6, 10**9)), (U.MODIFY, entry(info, 7)), (U.DELETE, entry(info, 7)),
                     (U.MODIFY, pb.TableEntry(table_id=fwd.preamble.id, is_default_action=True))):
        te.time_since_last_hit.elapsed_ns = 5
        with pytest.raises(P4RTError) as ei:
            server[1].apply(st, pb.Update(type=kind, entity=pb.Entity(table_entry=te)))
        assert ei.value.message == "has_time_since_last_hit must not be set in WriteRequest"
    got = {e.match[0].exact.value: e.idle_timeout_ns for e in _read(server, pb.TableEntry(table_id=fwd.preamble.id))}
    assert got == {b"\x07": 1_500_000_000, b"\x08": 0}
    assert _write(server, U.MODIFY, entry(info, 7, drop=True)) == "OK"           # no timeout given: none left
    assert _write(server, U.MODIFY, entry(info, 8, 10**9, drop=True)) == "OK"
    got = {e.match[0].exact.value: e.idle_timeout_ns for e in _read(server, pb.TableEntry(table_id=fwd.preamble.id))}
    assert got == {b"\x07": 0, b"\x08": 10**9}


def test_time_since_last_hit_reads_like_pi(server):
    st = server[0]
    info = st.index.p4info
    fwd, red, _, _ = _names(info)
    for mac, timeout in ((1, 5_000_000_000), (2, 3_000_000_000), (3, None), (4, 1_234_567), (5, 999_999)):
        assert _write(server, U.INSERT, entry(info, mac, timeout)) == "OK"
    for mac, ms in ((1, 4), (2, 302), (3, 50), (4, 7), (5, 300)):
        _age(st, info, mac, ms)
    q = pb.TableEntry(table_id=fwd.preamble.id)
    q.time_since_last_hit.elapsed_ns = 0
    got = [(e.match[0].exact.value[0], e.time_since_last_hit.elapsed_ns) for e in _read(server, q)]
    # BMv2's time left in ms, made "elapsed" again by PI with a 32-bit product (5 s after 4 ms: 2**32 + 4 ms);
    # under 1 ms BMv2 has no timeout and PI reads its "none left" as -1 (probed: 999999 -> 1000000)
    assert got == [(1, 4298967296), (2, 302_000_000), (3, 0), (4, 1_234_567), (5, 1_000_000)]
    assert all(not e.HasField("time_since_last_hit") for e in _read(server, pb.TableEntry(table_id=fwd.preamble.id)))
    for bad in (pb.TableEntry(table_id=red.preamble.id), pb.TableEntry(),
                pb.TableEntry(table_id=fwd.preamble.id, is_default_action=True)):
        bad.time_since_last_hit.elapsed_ns = 0
        with pytest.raises(P4RTError) as ei:
            _read(server, bad)
        assert ei.value.code == StatusCode.INVALID_ARGUMENT and "time_since_last_hit" in ei.value.message


def test_the_sweep_reports_idle_entries_every_other_time(server):
    st, _, _, mon, sent = server
    info = st.index.p4info
    fwd = _names(info)[0]
    for mac, timeout in ((1, 10**9), (2, None), (3, 2 * 10**9), (4, 10**9)):
        assert _write(server, U.INSERT, entry(info, mac, timeout)) == "OK"
    assert mon.sweep() == []
    _age(st, info, 1, 1000)      # idle for exactly its timeout: reported (>=)
    _age(st, info, 2, 10**6)     # no timeout: never
    _age(st, info, 3, 1999)      # not yet
    _age(st, info, 4, 5000)

    def reported(msgs):
        assert all(m.WhichOneof("update") == "idle_timeout_notification" for m in msgs)
        return [[(e.table_id, e.match[0].exact.value[0], e.idle_timeout_ns, e.HasField("action")) for e in m.idle_timeout_notification.table_entry]
                for m in msgs]
    t = fwd.preamble.id
    assert reported(mon.sweep()) == [[(t, 1, 10**9, False), (t, 4, 10**9, False)]]
    assert mon.sweep() == []                      # still idle, but the previous sweep reported them
    _age(st, info, 3, 2500)
    assert reported(mon.sweep()) == [[(t, 1, 10**9, False), (t, 3, 2 * 10**9, False), (t, 4, 10**9, False)]]
    table = st.pipeline.tables[t]
    assert table.lookup((1,))[2] is not None      # a hit stamps the entry: 1 is no longer idle
    assert next(i for i in table._installed.values() if i.key == (1,)).hit == NOW
    assert mon.sweep() == []                      # 3 and 4 were reported by the previous sweep
    assert _write(server, U.DELETE, entry(info, 4)) == "OK"
    assert reported(mon.sweep()) == [[(t, 3, 2 * 10**9, False)]]
    assert len(sent) == 3 and all(m.idle_timeout_notification.timestamp > 0 for m in sent)


def _with_elapsed(te):
    te.time_since_last_hit.elapsed_ns = 1
    return te


# ----------------------------------------------------------------------------- on both switches
def test_idle_timeouts_against_bmv2(targets):
    from diff_targets import bmv2_available
    from test_p4rt_vs_bmv2 import run, u, w
    if bmv2_available() is not None:
        pytest.skip("needs simple_switch_grpc")

    def ops(info):
        fwd, red, _, _ = _names(info)
        read = ("read", [pb.Entity(table_entry=pb.TableEntry(table_id=fwd.preamble.id))])
        hit = pb.TableEntry(table_id=fwd.preamble.id)
        hit.time_since_last_hit.elapsed_ns = 0
        hit_red = pb.TableEntry(table_id=red.preamble.id)
        hit_red.time_since_last_hit.elapsed_ns = 0
        hit_def = pb.TableEntry(table_id=fwd.preamble.id, is_default_action=True)
        hit_def.time_since_last_hit.elapsed_ns = 0
        return [w(u(U.INSERT, table_entry=entry(info, 7, 1_500_000_000))), w(u(U.INSERT, table_entry=entry(info, 8))),
                w(u(U.INSERT, table_entry=entry(info, 9, 1_234_567))), w(u(U.INSERT, table_entry=entry(info, 10, 999_999))),
                w(u(U.INSERT, table_entry=entry(info, 0x800, 10**9, table=red))), read,
                w(u(U.MODIFY, table_entry=entry(info, 7, drop=True))),
                w(u(U.MODIFY, table_entry=entry(info, 8, 1_999_999, drop=True))), read,
                ("traffic", [(1, bytes.fromhex("000000000055" + "00" * 6 + "0800") + bytes(20))]),  # 0.3 s
                ("read", [pb.Entity(table_entry=hit)]),      # every entry capped or without timeout
                ("read", [pb.Entity(table_entry=hit_red)]), ("read", [pb.Entity(table_entry=hit_def)]),
                w(u(U.DELETE, table_entry=entry(info, 9, 5))), read,
                w(u(U.INSERT, table_entry=entry(info, 11, -5))),
                w(u(U.INSERT, table_entry=_with_elapsed(entry(info, 12, 10**9)))),
                w(u(U.MODIFY, table_entry=_with_elapsed(entry(info, 8, 10**9)))),
                w(u(U.DELETE, table_entry=_with_elapsed(entry(info, 8)))),
                w(u(U.MODIFY, table_entry=_with_elapsed(pb.TableEntry(table_id=fwd.preamble.id, is_default_action=True)))),
                w(u(U.MODIFY, table_entry=pb.TableEntry(table_id=fwd.preamble.id, is_default_action=True, idle_timeout_ns=10**6))),
                read]
    assert not run(targets, 1, ops, source=PROGRAM)


def _first_notifications(targets, name: str, source: str, updates, base0: int) -> list[list[str]]:
    """The entries (as text) of the first IdleTimeoutNotification BMv2 and checkmate-switch each send
    their primary after ``updates(p4info)`` are written on ``source`` compiled by p4c."""
    import fuzz_p4rt as F
    from diff_targets import bmv2_available
    if bmv2_available() is not None:
        pytest.skip("needs simple_switch_grpc")
    ref = F.compile_p4c(F.Case(name=name, category="p4rt", source=source))
    config = F.pipeline_config(ref.p4info, ref.device_config)
    got = []
    for k, t in enumerate((targets.bmv2, targets.cm)):
        base = (k + base0) << 50
        side = F._open(t, base, config)
        try:
            side.primary.set_pipeline(config, "VERIFY_AND_COMMIT", election_id=base)
            side.primary.write(*updates(ref.p4info), election_id=base)
            note = side.primary.expect("idle_timeout_notification", 4.0)
            got.append([str(e) for e in note.table_entry])
        finally:
            F._close(side)
    return got


def test_idle_timeout_notification_against_bmv2(targets):
    """An entry idle past its timeout is reported to the primary: the same IdleTimeoutNotification
    entries (key, priority, idle_timeout_ns; no action) on both switches."""
    def updates(info):
        return [pb.Update(type=U.INSERT, entity=pb.Entity(table_entry=entry(info, mac, to)))
                for mac, to in ((5, 1_000_000), (6, None), (7, 60 * 10**9), (8, 1_500_000))]
    got = [sorted(g) for g in _first_notifications(targets, "idle_note", PROGRAM, updates, 91)]
    assert got[0] == got[1] and len(got[0]) == 2


#: two ageing tables, one needing priorities: a sweep's finds go out as ONE notification (PI's buffer)
TWO_TABLES = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<32> a; bit<16> b; }
struct hs { h_t h; }
struct m_t { }
parser P(packet_in p, out hs hdr, inout m_t m, inout standard_metadata_t sm) { state start { p.extract(hdr.h); transition accept; } }
control I(inout hs hdr, inout m_t m, inout standard_metadata_t sm) {
    action fwd(bit<9> port) { sm.egress_spec = port; }
    table tt { key = { hdr.h.a: ternary; hdr.h.b: range; } actions = { fwd; NoAction; } support_timeout = true; }
    table tl { key = { hdr.h.a: lpm; } actions = { fwd; NoAction; } support_timeout = true; }
    apply { tt.apply(); tl.apply(); } }
control E(inout hs hdr, inout m_t m, inout standard_metadata_t sm) { apply { } }
control V(inout hs hdr, inout m_t m) { apply { } }
control C(inout hs hdr, inout m_t m) { apply { } }
control D(packet_out p, in hs hdr) { apply { p.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def _two_table_updates(info):
    tt = next(t for t in info.tables if t.preamble.name.endswith("tt"))
    tl = next(t for t in info.tables if t.preamble.name.endswith("tl"))
    fwd = next(a for a in info.actions if a.preamble.name.endswith("fwd"))
    out = []
    for table, prio, match in ((tl, 0, [("lpm", b"\x0a\x00\x00\x00", 8)]),
                               (tt, 10, [("ternary", b"\x0a\x00\x00\x00", b"\xff\x00\x00\x00"), ("range", b"\x00\x01", b"\x00\x09")]),
                               (tt, 20, [("ternary", b"\x01", b"\x01")])):
        e = pb.TableEntry(table_id=table.preamble.id, priority=prio, idle_timeout_ns=1_000_000)
        for fid, (kind, a, b) in enumerate(match, 1):
            f = e.match.add(field_id=fid)
            if kind == "lpm":
                f.lpm.value, f.lpm.prefix_len = a, b
            elif kind == "ternary":
                f.ternary.value, f.ternary.mask = a, b
            else:
                f.range.low, f.range.high = a, b
        e.action.action.action_id = fwd.preamble.id
        e.action.action.params.add(param_id=1, value=b"\x01")
        out.append(pb.Update(type=U.INSERT, entity=pb.Entity(table_entry=e)))
    return out


def test_one_notification_per_sweep(frozen_clock):
    prog = compile_source(TWO_TABLES, "idle2.p4")
    st = build_state(pb.ForwardingPipelineConfig(p4info=prog.p4info, p4_device_config=json.dumps(prog.device_config).encode()))
    eng = DigestEngine(lambda resp: None)
    mon = AgeingMonitor(lambda resp: None, interval=3600)
    try:
        mon.set_state(st)
        for upd in _two_table_updates(prog.p4info):
            EntityWriter(eng).apply(st, upd)
        for t in st.pipeline.tables.values():
            for inst in t._installed.values():
                inst.hit = NOW - 5
        msgs = mon.sweep()
        assert len(msgs) == 1   # was one per table
        got = [(e.table_id, e.priority, len(e.match)) for e in msgs[0].idle_timeout_notification.table_entry]
        tt, tl = (next(t.preamble.id for t in prog.p4info.tables if t.preamble.name.endswith(n)) for n in ("tt", "tl"))
        assert got == [(tt, 10, 2), (tt, 20, 1), (tl, 0, 1)]   # the program's table order, handle order
    finally:
        mon.close()
        eng.close()


def test_notification_of_two_tables_against_bmv2(targets):
    got = _first_notifications(targets, "idle_note2", TWO_TABLES, _two_table_updates, 95)
    assert got[0] == got[1] and len(got[0]) == 3
