"""Match kinds, priorities, const entries, action_run/hit/miss, direct resources (tables.p4)."""
import pytest

from pipeline_helpers import compiled, pipeline
from switch.runtime import CounterData, FieldMatch, InvalidEntry, MeterConfig, TableEntry

ETH = bytes(12) + b"\x12\x34"


def frame(a, b, c, res=0, trail=0):
    return ETH + bytes([a]) + b.to_bytes(2, "big") + bytes([c, res, trail]) + b"pp"


def result(pl, a, b, c):
    out = pl.process(0, frame(a, b, c))
    assert len(out) == 1 and out[0][0] == 1
    return out[0][1][18], out[0][1][19]


@pytest.fixture()
def pl():
    return pipeline("tables.p4")


def test_ternary_range_optional_priorities(pl):
    pl.insert("tern", {"h.k.a": (0x10, 0xF0), "h.k.b": (100, 200)}, "I.set", {"v": 1}, priority=10)
    pl.insert("tern", {"h.k.a": (0x12, 0xFF), "cee": 7}, "I.set", {"v": 2}, priority=20)
    pl.insert("tern", {}, "renamed", {}, priority=1)
    assert result(pl, 0x15, 150, 0) == (1, 1)        # first entry
    assert result(pl, 0x12, 150, 7) == (2, 1)        # both match, priority 20 wins
    assert result(pl, 0x12, 150, 8) == (1, 1)        # optional field differs
    assert result(pl, 0x15, 201, 0) == (0xEE, 2)     # out of range -> catch-all
    pl.delete("tern", {}, priority=1)
    assert result(pl, 0x15, 201, 0) == (0, 3)        # miss -> NoAction -> default case


def test_equal_priorities_lowest_handle_wins(pl):
    """Among entries of one priority BMv2 takes the lowest handle, and a delete frees its handle
    for the next insert (fuzz_p4rt seed 3492: a catch-all inserted after a delete won over an
    older overlapping entry); reads list entries in handle order."""
    pl.insert("tern", {"h.k.a": (0x10, 0xF0)}, "I.set", {"v": 1}, priority=5)
    pl.insert("tern", {"h.k.b": (100, 200)}, "I.set", {"v": 2}, priority=5)
    assert result(pl, 0x15, 150, 0)[0] == 1
    pl.delete("tern", {"h.k.a": (0x10, 0xF0)}, priority=5)
    pl.insert("tern", {"h.k.a": (0x15, 0xFF)}, "I.set", {"v": 3}, priority=5)   # takes handle 1 again
    assert result(pl, 0x15, 150, 0)[0] == 3
    assert [e.params for e in pl.table_entries(pl.names.table_id("I.tern"))] == [{1: 3}, {1: 2}]


def test_const_entries_order_and_exit(pl):
    # (0x10 &&& 0xF0, 1) comes first so it wins over the exact 0x11 entry
    assert result(pl, 0x11, 0, 1) == (1, 0x13)
    # the stop action exits the ingress control: trail set by the action stays, no |0x10
    assert result(pl, 0x20, 0, 2) == (0, 0x55)
    assert result(pl, 0x20, 0, 3) == (0, 3)          # fixed misses -> else-branch not taken


def test_const_table_is_read_only(pl):
    tid = pl.names.table_id("I.fixed")
    entries = pl.table_entries(tid)
    assert [e.is_const for e in entries] == [True, True, True]
    # as BMv2's P4Runtime server reads them: INT32_MAX minus p4c's JSON numbering 1, 2, 3
    assert [e.priority for e in entries] == [2**31 - 2, 2**31 - 3, 2**31 - 4]
    with pytest.raises(InvalidEntry, match="I.fixed.*const"):
        pl.table_insert(tid, TableEntry([FieldMatch.exact(2, 9)], entries[0].action_id, {1: 1}, 5))
    with pytest.raises(InvalidEntry, match="default action is const"):
        pl.set_default("I.fixed", "NoAction")


def test_p4runtime_validation(pl):
    with pytest.raises(InvalidEntry, match="priority"):
        pl.insert("tern", {"h.k.a": (1, 0xFF)}, "I.set", {"v": 1})
    with pytest.raises(InvalidEntry, match="h.k.a.*bits outside mask"):
        pl.insert("tern", {"h.k.a": (0x11, 0xF0)}, "I.set", {"v": 1}, priority=1)
    with pytest.raises(InvalidEntry, match="low 9 > high 3"):
        pl.insert("tern", {"h.k.b": (9, 3)}, "I.set", {"v": 1}, priority=1)
    with pytest.raises(InvalidEntry, match="@defaultonly"):
        pl.insert("tern", {"h.k.b": (1, 3)}, "NoAction", {}, priority=1)
    with pytest.raises(InvalidEntry, match="no match field 'zz'"):
        pl.insert("tern", {"zz": 1}, "I.set", {"v": 1}, priority=1)


def test_direct_counter(pl):
    e = pl.insert("tern", {"h.k.a": (0x10, 0xF0)}, "I.set", {"v": 1}, priority=5)
    for _ in range(3):
        pl.process(0, frame(0x15, 0, 0))
    pl.process(0, frame(0x25, 0, 0))                 # miss: not counted
    n = len(frame(0, 0, 0))
    assert pl.entry_counter("tern", {"h.k.a": (0x10, 0xF0)}, priority=5) == CounterData(3, 3 * n)
    tid = pl.names.table_id("tern")
    assert pl.table_entries(tid)[0].counter == CounterData(3, 3 * n)
    pl.direct_counter_write(tid, e, CounterData(0, 0))
    assert pl.direct_counter_read(tid, e) == CounterData(0, 0)


def test_direct_meter_colors(pl):
    now = [0]
    p = pipeline("tables.p4", clock=lambda: now[0])
    p.insert("metered", {"h.k.a": 0xFF}, "I.set_metered", {"v": 7})
    # unconfigured: GREEN (0)
    assert result(p, 0xFF, 0, 0) == (7, 0)
    tid = p.names.table_id("metered")
    entry = p.table_entries(tid)[0]
    # 1 packet/s committed, burst 1; 2 packets/s peak, burst 2
    p.direct_meter_set(tid, entry, MeterConfig(cir=1, cburst=1, pir=2, pburst=2))
    colors = [result(p, 0xFF, 0, 0)[1] for _ in range(3)]
    assert colors == [0, 1, 2]                        # GREEN, YELLOW, RED
    now[0] += 1_000_000                               # one second later: refilled
    assert result(p, 0xFF, 0, 0)[1] == 0


def test_default_action_with_args_and_miss(pl):
    # metered misses: default set_metered(0xDD) runs; the direct meter is not read on a miss, so m.color
    # keeps what it held.  checkmate-p4c keeps the `m.color = 9` before the apply; real p4c treats
    # `tm.read(m.color)` in every action of the table as a write and drops that store as dead, so on
    # p4c's JSON (and on BMv2) the field still holds its initial 0 (docs/CONFORMANCE.md)
    import os
    assert result(pl, 0xFF, 0, 0) == (0xDD, 0 if os.environ.get("CHECKMATE_P4C_FROZEN") else 9)


def test_p4info_names_and_ids():
    info = compiled("tables.p4").p4info
    t = {x.preamble.name: x for x in info.tables}
    assert t["I.tern"].preamble.id == 0x0200ABCD
    assert [(m.name, m.match_type) for m in t["I.tern"].match_fields] == [
        ("h.k.a", 4), ("h.k.b", 5), ("cee", 6)]
    assert t["I.fixed"].is_const_table and t["I.fixed"].const_default_action_id
    names = {a.preamble.name for a in info.actions}
    assert {"I.renamed", "I.set", "NoAction"} <= names
    assert [d.preamble.name for d in info.direct_counters] == ["I.tc"]
    assert info.direct_counters[0].direct_table_id == 0x0200ABCD
    refs = {r.id: r.scope for r in t["I.tern"].action_refs}
    noaction = next(a.preamble.id for a in info.actions if a.preamble.name == "NoAction")
    assert refs[noaction] == 2  # DEFAULT_ONLY
