"""Tables: exact, lpm (longest prefix wins), ternary (highest priority wins), range,
optional, default actions (compile-time and runtime), const entries and const
default_action, .hit/.miss, switch (t.apply().action_run), egress port from a table.

Semantics: P4-16 spec "Match-action units"/"Tables"; BMv2 docs/simple_switch.md
"Table match kinds supported" (lpm: longest prefix; ternary/range: the entry with
the highest P4Runtime priority wins); P4Runtime spec (an omitted ternary/lpm/range/
optional field is a wildcard; entries with equal key and priority are duplicates).
"""
import struct

import pytest

from p4conf import Switch, eth

PROG = "tables.p4"
FIELDS = ["addr", "port", "k8", "opt", "a", "b", "c", "d", "e", "f", "flags", "sw"]
FMT = "!IHBBBBBBBBBB"
PAYLOAD = b"\x00tail-bytes"


@pytest.fixture
def sw():
    return Switch(PROG)


def encode(**v) -> bytes:
    return eth(0x88B5) + struct.pack(FMT, *(v.get(k, 0) for k in FIELDS)) + PAYLOAD


def ip(s):
    a, b, c, d = (int(x) for x in s.split("."))
    return (a << 24) | (b << 16) | (c << 8) | d


def expected(inp: dict, **changes) -> bytes:
    """What the program does with no runtime entries, plus `changes`."""
    out = {k: inp.get(k, 0) for k in FIELDS}
    out["b"] = 0xEE                    # t_lpm misses -> default_action set_b(0xEE)
    out["flags"] |= 0x02               # ... and .miss is true
    out["f"] = {1: 0x11, 2: 0x22}.get(out["k8"], 0x99)   # const entries / const default
    out["sw"] = 0xC3                   # t_sw misses -> NoAction -> switch default
    for k, v in changes.items():
        if k == "flags":
            out["flags"] = v
        else:
            out[k] = v
    return struct.pack(FMT, *(out[k] for k in FIELDS))


def run(sw, **inp):
    out_port, out = sw.send1(3, encode(**inp))
    assert out[:14] == eth(0x88B5) and out[-len(PAYLOAD):] == PAYLOAD
    return out_port, out[14:-len(PAYLOAD)]


def test_no_entries_defaults(sw):
    inp = dict(k8=7, a=0x5A)
    assert run(sw, **inp) == (1, expected(inp))


def test_exact_hit_and_miss(sw):
    sw.add("MyIngress.t_exact", "MyIngress.set_a", {"hdr.t.k8": 7}, {"v": 0x77})
    hit = dict(k8=7)
    assert run(sw, **hit) == (1, expected(hit, a=0x77, flags=0x03))
    miss = dict(k8=8, a=0x42)
    assert run(sw, **miss) == (1, expected(miss))


def test_lpm_longest_prefix_wins_regardless_of_insert_order(sw):
    t, a = "MyIngress.t_lpm", "MyIngress.set_b"
    sw.add(t, a, {"hdr.t.addr": (ip("10.1.2.0"), 24)}, {"v": 3})
    sw.add(t, a, {"hdr.t.addr": (ip("10.0.0.0"), 8)}, {"v": 1})
    sw.add(t, a, {"hdr.t.addr": (ip("10.1.0.0"), 16)}, {"v": 2})
    sw.add(t, a, {"hdr.t.addr": (ip("10.1.2.3"), 32)}, {"v": 4})
    for addr, v in [("10.1.2.3", 4), ("10.1.2.4", 3), ("10.1.9.9", 2), ("10.200.0.1", 1)]:
        inp = dict(addr=ip(addr))
        assert run(sw, **inp) == (1, expected(inp, b=v, flags=0)), addr
    inp = dict(addr=ip("11.0.0.1"))
    assert run(sw, **inp) == (1, expected(inp))


def test_lpm_wildcard_entry_matches_everything(sw):
    # P4Runtime: a don't-care LPM field is expressed by omitting it (= prefix length 0)
    sw.add("MyIngress.t_lpm", "MyIngress.set_b", {}, {"v": 9})
    inp = dict(addr=ip("192.0.2.1"))
    assert run(sw, **inp) == (1, expected(inp, b=9, flags=0))


def test_ternary_highest_priority_wins_not_most_specific(sw):
    t, a = "MyIngress.t_tern", "MyIngress.set_c"
    sw.add(t, a, {"hdr.t.k8": (0x00, 0x00)}, {"v": 1}, priority=1)
    sw.add(t, a, {"hdr.t.k8": (0x12, 0xFF)}, {"v": 3}, priority=5)
    sw.add(t, a, {"hdr.t.k8": (0x10, 0xF0)}, {"v": 2}, priority=10)
    for k8, v in [(0x12, 2), (0x1F, 2), (0x22, 1), (0x00, 1)]:
        inp = dict(k8=k8)
        assert run(sw, **inp) == (1, expected(inp, c=v)), hex(k8)


def test_ternary_mask_bits(sw):
    sw.add("MyIngress.t_tern", "MyIngress.set_c", {"hdr.t.k8": (0x81, 0x81)}, {"v": 7},
           priority=1)
    for k8, hit in [(0x81, True), (0xFF, True), (0x80, False), (0x01, False)]:
        inp = dict(k8=k8, c=0x33)
        assert run(sw, **inp) == (1, expected(inp, **({"c": 7} if hit else {}))), hex(k8)


def test_range_inclusive_and_priority(sw):
    t, a = "MyIngress.t_range", "MyIngress.set_d"
    sw.add(t, a, {"hdr.t.port": (1000, 2000)}, {"v": 1}, priority=1)
    sw.add(t, a, {"hdr.t.port": (1500, 1600)}, {"v": 2}, priority=2)
    for port, v in [(999, None), (1000, 1), (1499, 1), (1500, 2), (1550, 2), (1600, 2),
                    (1601, 1), (2000, 1), (2001, None)]:
        inp = dict(port=port, d=0x44)
        exp = expected(inp) if v is None else expected(inp, d=v)
        assert run(sw, **inp) == (1, exp), port


def test_optional_match_and_wildcard(sw):
    t, a = "MyIngress.t_opt", "MyIngress.set_e"
    sw.add(t, a, {"hdr.t.k8": 5, "hdr.t.opt": 7}, {"v": 2}, priority=20)
    sw.add(t, a, {"hdr.t.k8": 5}, {"v": 1}, priority=10)       # opt omitted = don't care
    assert run(sw, k8=5, opt=7) == (1, expected(dict(k8=5, opt=7), e=2))
    assert run(sw, k8=5, opt=8) == (1, expected(dict(k8=5, opt=8), e=1))
    assert run(sw, k8=6, opt=7) == (1, expected(dict(k8=6, opt=7)))


@pytest.mark.parametrize("k8,f", [(1, 0x11), (2, 0x22), (3, 0x99), (0, 0x99)])
def test_const_entries_and_const_default(sw, k8, f):
    inp = dict(k8=k8)
    out = run(sw, **inp)
    assert out == (1, expected(inp))
    assert out[1][4 + 2 + FIELDS.index("f") - 2] == f     # addr(4) + port(2), then 8-bit fields


def test_switch_on_action_run(sw):
    sw.add("MyIngress.t_sw", "MyIngress.act_x", {"hdr.t.opt": 1})
    sw.add("MyIngress.t_sw", "MyIngress.act_y", {"hdr.t.opt": 2}, {"unused": 0})
    sw.add("MyIngress.t_sw", "NoAction", {"hdr.t.opt": 3})
    assert run(sw, opt=1) == (1, expected(dict(opt=1), sw=0xA1))
    assert run(sw, opt=2) == (1, expected(dict(opt=2), sw=0xB2))
    assert run(sw, opt=3) == (1, expected(dict(opt=3), sw=0xC3))   # hit NoAction -> default
    assert run(sw, opt=4) == (1, expected(dict(opt=4), sw=0xC3))   # miss -> default


def test_runtime_default_action_replaces_compile_time_default(sw):
    sw.set_default("MyIngress.t_lpm", "MyIngress.set_b", {"v": 0x42})
    inp = dict(addr=1)
    assert run(sw, **inp) == (1, expected(inp, b=0x42))   # still a miss: flag 0x02 set


def test_table_sets_egress_port(sw):
    sw.add("MyIngress.t_port", "MyIngress.to_port", {"hdr.t.port": 77}, {"port": 9})
    assert run(sw, port=77)[0] == 9
    assert run(sw, port=78)[0] == 1


def test_duplicate_insert_rejected_and_delete_restores_miss(sw):
    from switch.runtime import EntryExists

    e = sw.add("MyIngress.t_exact", "MyIngress.set_a", {"hdr.t.k8": 9}, {"v": 1})
    tid = sw.info.table("MyIngress.t_exact").preamble.id
    with pytest.raises(EntryExists):
        sw.pipe.table_insert(tid, sw.entry("MyIngress.t_exact", "MyIngress.set_a",
                                           {"hdr.t.k8": 9}, {"v": 2}))
    assert run(sw, k8=9) == (1, expected(dict(k8=9), a=1, flags=0x03))
    sw.pipe.table_delete(tid, e)
    assert run(sw, k8=9) == (1, expected(dict(k8=9)))


def test_modify_entry_changes_action_data(sw):
    sw.add("MyIngress.t_exact", "MyIngress.set_a", {"hdr.t.k8": 4}, {"v": 1})
    tid = sw.info.table("MyIngress.t_exact").preamble.id
    sw.pipe.table_modify(tid, sw.entry("MyIngress.t_exact", "MyIngress.set_a",
                                       {"hdr.t.k8": 4}, {"v": 0x66}))
    assert run(sw, k8=4) == (1, expected(dict(k8=4), a=0x66, flags=0x03))


def test_non_t_frame_takes_else_branch(sw):
    f = eth(0x0806) + b"\x00" * 28
    assert sw.send1(2, f) == (1, f)


# ---- control-plane validation (P4Runtime spec, "TableEntry" / "FieldMatch";
# p4lang/PI, the P4Runtime server of simple_switch_grpc, answers INVALID_ARGUMENT)

def _rejects(sw, table, action, match, params=None, priority=0):
    from switch.runtime import PipelineError

    with pytest.raises(PipelineError):
        sw.add(table, action, match, params, priority)


def test_ternary_value_outside_mask_rejected(sw):
    _rejects(sw, "MyIngress.t_tern", "MyIngress.set_c", {"hdr.t.k8": (0x13, 0xF0)}, {"v": 1}, 1)


def test_lpm_value_bits_beyond_prefix_rejected(sw):
    _rejects(sw, "MyIngress.t_lpm", "MyIngress.set_b", {"hdr.t.addr": (ip("10.1.2.3"), 16)},
             {"v": 1})


def test_lpm_prefix_longer_than_field_rejected(sw):
    _rejects(sw, "MyIngress.t_lpm", "MyIngress.set_b", {"hdr.t.addr": (0, 33)}, {"v": 1})


def test_value_wider_than_field_rejected(sw):
    _rejects(sw, "MyIngress.t_exact", "MyIngress.set_a", {"hdr.t.k8": 0x100}, {"v": 1})


def test_param_wider_than_declared_rejected(sw):
    _rejects(sw, "MyIngress.t_exact", "MyIngress.set_a", {"hdr.t.k8": 1}, {"v": 0x100})


def test_action_not_in_table_rejected(sw):
    _rejects(sw, "MyIngress.t_exact", "MyIngress.set_b", {"hdr.t.k8": 1}, {"v": 1})


def test_ternary_entry_needs_priority(sw):
    _rejects(sw, "MyIngress.t_tern", "MyIngress.set_c", {"hdr.t.k8": (0x10, 0xF0)}, {"v": 1}, 0)


def test_range_low_above_high_rejected(sw):
    _rejects(sw, "MyIngress.t_range", "MyIngress.set_d", {"hdr.t.port": (10, 5)}, {"v": 1}, 1)


def test_const_table_is_read_only(sw):
    _rejects(sw, "MyIngress.t_const", "MyIngress.set_f", {"hdr.t.k8": 9}, {"v": 1})


def test_table_size_is_enforced(sw):
    from switch.runtime import PipelineError

    for i in range(64):       # size = 64
        sw.add("MyIngress.t_port", "MyIngress.to_port", {"hdr.t.port": i}, {"port": 2})
    with pytest.raises(PipelineError):
        sw.add("MyIngress.t_port", "MyIngress.to_port", {"hdr.t.port": 64}, {"port": 2})


def test_const_entries_are_listed(sw):
    tid = sw.info.table("MyIngress.t_const").preamble.id
    got = sorted((e.matches[0].value, dict(e.params)) for e in sw.pipe.table_entries(tid))
    assert [k for k, _ in got] == [1, 2]
    assert [list(p.values()) for _, p in got] == [[0x11], [0x22]]


# const entries (BMv2 docs/simple_switch.md "Specifying match criteria for table
# entries using const entries" and "Range/Ternary tables"): for range and ternary
# tables the entry listed first wins; for an lpm table the longest prefix wins,
# whatever the order; `_` matches everything; a plain value is an exact match.

def _range(k):
    for lo, hi, v in [(2, 9, 1), (7, 14, 2), (20, 20, 3), (22, 22, 4)]:
        if lo <= k <= hi:
            return v
    return 5


def _tern(k):
    for val, mask, v in [(0x08, 0xF8, 1), (0x20, 0x61, 2), (0x30, 0xFF, 3), (0xEE, 0xFF, 4)]:
        if k & mask == val & mask:
            return v
    return 5


def _lpm(k):
    best = (-1, 5)
    for val, plen, v in [(0x08, 5, 1), (0x20, 3, 2), (0x0A, 8, 3), (0xEE, 8, 4)]:
        mask = (0xFF << (8 - plen)) & 0xFF
        if k & mask == val & mask and plen > best[0]:
            best = (plen, v)
    return best[1]


@pytest.mark.parametrize("k", [0, 1, 2, 7, 8, 9, 10, 0x0A, 0x0F, 14, 15, 20, 21, 22,
                               0x20, 0x21, 0x30, 0x31, 0x3F, 0xA0, 0xEE, 0xFF])
def test_const_entries_priority_by_match_kind(k):
    sw = Switch("const_entries.p4")
    f = eth(0x1234) + bytes([k, 0, 0, 0, 0]) + b"cc"
    port, out = sw.send1(1, f)
    m = 0x11 if k & 1 else 0x22
    assert (port, list(out[14:19])) == (1, [k, _range(k), _tern(k), _lpm(k), m])


def test_hit_and_miss_inside_expressions():
    sw = Switch("hit_expr.p4")
    sw.add("MyIngress.t1", "MyIngress.noop", {"hdr.r.k": 1})
    sw.add("MyIngress.t2", "MyIngress.noop", {"hdr.r.k": 2})
    for k, x, y in [(1, 1, 3), (2, 2, 4), (3, 2, 3)]:
        f = eth(0x1234) + bytes([k, 0, 0]) + b"p"
        assert sw.send1(1, f) == (1, eth(0x1234) + bytes([k, x, y]) + b"p"), k


def test_missing_entries_and_defaults_control_plane_errors(sw):
    from switch.runtime import EntryNotFound, PipelineError

    tid = sw.info.table("MyIngress.t_exact").preamble.id
    e = sw.entry("MyIngress.t_exact", "MyIngress.set_a", {"hdr.t.k8": 0x42}, {"v": 1})
    with pytest.raises(EntryNotFound):
        sw.pipe.table_delete(tid, e)
    with pytest.raises(EntryNotFound):
        sw.pipe.table_modify(tid, e)
    with pytest.raises(PipelineError):          # set_b is not an action of t_exact
        sw.set_default("MyIngress.t_exact", "MyIngress.set_b", {"v": 1})
    sw.set_default("MyIngress.t_lpm", "MyIngress.set_b", {"v": 0x31})
    d = sw.pipe.table_get_default(sw.info.table("MyIngress.t_lpm").preamble.id)
    assert d.action_id == sw.info.action("MyIngress.set_b").preamble.id
    assert list(d.params.values()) == [0x31]
