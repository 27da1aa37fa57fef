"""The STF runner's switch-free part (tests/differential/stf.py): reading p4c's STF text,
resolving its names against a real P4Info (compiled here by checkmate-p4c) the way p4c's
bmv2stf does, and checking output frames against ``expect`` lines.  Runs without BMv2."""
from __future__ import annotations

import pytest

from controller.p4info import P4InfoIndex
from stf import Expect, StfError, match_expects, parse_stf, to_entry
from switch.compiler import compile_source

PROGRAM = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<32> f1; bit<16> h; bit<8> b; }
struct hs { h_t data; h_t[2] extra; }
struct m_t { }
parser P(packet_in p, out hs hdr, inout m_t m, inout standard_metadata_t sm) {
    state start { p.extract(hdr.data); transition accept; } }
control V(inout hs hdr, inout m_t m) { apply { } }
control Ing(inout hs hdr, inout m_t m, inout standard_metadata_t sm) {
    action setb(bit<9> port, bit<8> val) { hdr.data.b = val; sm.egress_spec = port; }
    action noop() { }
    table tern { key = { hdr.data.f1: ternary; hdr.extra[0].h: ternary; } actions = { setb; noop; } }
    table ex { key = { hdr.data.h: exact; hdr.extra[1].isValid(): exact; } actions = { setb; noop; } }
    table lp { key = { hdr.data.f1: lpm @name("addr"); } actions = { setb; noop; } }
    apply { tern.apply(); ex.apply(); lp.apply(); } }
control Eg(inout hs hdr, inout m_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs hdr, inout m_t m) { apply { } }
control D(packet_out p, in hs hdr) { apply { p.emit(hdr); } }
V1Switch(P(), V(), Ing(), Eg(), C(), D()) main;
"""

STF = """\
# a comment
add tern 7 data.f1:0x****0101 extra$0.h:0x12&&&0xff Ing.setb(val:0x7f, port:2)
add tern data.f1:0x01020304 extra$0.h:0 setb(port:1, val:1)   # trailing comment
add ex data.h:0x10 extra$1.$valid$:1 noop()
add lp addr:0x0a000000/8 setb(port:3, val:3)
setdefault lp setb(port:4, val:4)
expect 2 00000101 **** 7f $
packet 0 00000101 0000 55
packet 1 00 000
wait
mirroring_add 5 4
mc_mgrp_create 1113
mc_node_create 400 6 7
mc_node_associate 1113 0
check_counter Ing.c(3) bytes == 64
register_write r 0 1
"""


@pytest.fixture(scope="module")
def index():
    return P4InfoIndex(compile_source(PROGRAM, "stf_unit.p4").p4info)


def test_parse_commands():
    cmds = parse_stf(STF, "t.stf")
    kinds = [c.kind for c in cmds]
    assert kinds == ["add", "add", "add", "add", "setdefault", "expect", "packet", "packet", "wait",
                     "mirroring_add", "mc_mgrp_create", "mc_node_create", "mc_node_associate",
                     "check_counter", "unsupported"]
    a = cmds[0]
    assert (a.line, a.table, a.priority, a.action) == (2, "tern", 7, "Ing.setb")
    assert a.keys == [("data.f1", "0x****0101"), ("extra$0.h", "0x12&&&0xff")]
    assert a.args == [("val", "0x7f"), ("port", "2")]
    assert cmds[1].priority is None
    assert cmds[6].port == 0 and cmds[6].data == bytes.fromhex("00000101000055")
    assert cmds[7].port == 1 and cmds[7].data == bytes.fromhex("000000")  # 5 nibbles: padded with 0
    e = cmds[5].expect
    assert e.port == 2 and e.exact_end and e.pattern == "00000101****7f"
    assert cmds[11].ints == [400, 6, 7]
    c = cmds[13]
    assert (c.counter, c.index, c.what, c.op, c.value) == ("Ing.c", 3, "bytes", "==", 64)


@pytest.mark.parametrize("text, msg", [
    ("packet x 00", "t.stf:1: packet needs a port number"),
    ("expect 0 0g", "t.stf:1: not a frame in hex"),
    ("add t k:1 act", "t.stf:1: expected an action call"),
    ("add t k act()", "t.stf:1: key 'k' is not NAME:VALUE"),
    ("\ncheck_counter c[1] == 2", "t.stf:2: check_counter needs"),
])
def test_parse_errors_name_the_line(text, msg):
    with pytest.raises(StfError, match=msg.replace("[", r"\[").replace("(", r"\(")):
        parse_stf(text, "t.stf")


def test_names_resolve_like_bmv2stf(index):
    cmds = parse_stf(STF, "t.stf")
    e = to_entry(index, cmds[0], auto_priority=100)
    assert e.table == "Ing.tern" and e.action == "Ing.setb" and e.priority == 8   # STF 7 -> 7 + 1
    assert e.match == {"hdr.data.f1": (0x0101, 0xffff), "hdr.extra[0].h": (0x12, 0xff)}
    assert e.params == {"val": 0x7f, "port": 2}
    e = to_entry(index, cmds[1], auto_priority=100)
    assert e.priority == 100 and e.match["hdr.data.f1"] == (0x01020304, 0xffffffff)
    e = to_entry(index, cmds[2])
    assert e.match == {"hdr.data.h": 0x10, "hdr.extra[1].$valid$": 1} and e.action == "Ing.noop"
    e = to_entry(index, cmds[3])
    assert e.match == {"addr": (0x0a000000, 8)} and e.params == {"port": 3, "val": 3}
    d = to_entry(index, cmds[4])
    assert d.is_default and d.table == "Ing.lp" and d.params == {"port": 4, "val": 4}


def test_unknown_names_are_named(index):
    with pytest.raises(StfError, match=r"line 1: add nosuch .*no table named 'nosuch'"):
        to_entry(index, parse_stf("add nosuch data.h:1 noop()")[0])
    with pytest.raises(StfError, match="has no match field 'zz'"):
        to_entry(index, parse_stf("add ex zz:1 noop()")[0])
    with pytest.raises(StfError, match="has no parameter 'bogus'"):
        to_entry(index, parse_stf("add lp addr:0/0 setb(bogus:1)")[0])


def test_expects():
    e = Expect(1, "aa**cc", False)
    assert e.matches(bytes.fromhex("aabbcc")) and e.matches(bytes.fromhex("aa00ccdd"))
    assert not e.matches(bytes.fromhex("abbbcc")) and not e.matches(bytes.fromhex("aabb"))
    assert not Expect(1, "aa**cc", True).matches(bytes.fromhex("aabbccdd"))
    exps = [Expect(1, "aa", False), Expect(1, "bb", False), Expect(2, "cc", True)]
    assert match_expects(exps, [(1, b"\xaa"), (1, b"\xbb"), (2, b"\xcc"), (3, b"\x00")]) == []
    probs = match_expects(exps, [(1, b"\xbb"), (1, b"\xaa"), (1, b"\xdd")])
    assert probs == ["port 1: expected aa, got bb", "port 1: expected bb, got aa",
                     "port 1: unexpected frame dd", "port 2: expected cc$, no frame"]


def test_program_pairs_from_folders_and_files(tmp_path):
    from stf_run import programs
    for name in ("a.p4", "a.stf", "b.p4", "c.stf"):
        (tmp_path / name).write_text("")
    assert programs([str(tmp_path)]) == [(tmp_path / "a.p4", tmp_path / "a.stf")]  # b and c lack a partner
    assert programs([str(tmp_path / "a.stf")]) == [(tmp_path / "a.p4", tmp_path / "a.stf")]
    with pytest.raises(ValueError, match=r"b\.stf"):
        programs([str(tmp_path / "b.p4")])


def test_slice_keys_are_named_with_their_colon():
    """A key on a slice is ``hdr.f[7:0]`` in P4Info; the STF's ``NAME:VALUE`` splits at the first
    colon outside brackets (p4-guide's exit-*-bmv2 and matchkinds key on slices)."""
    prog = PROGRAM.replace("table lp {", "table sl { key = { hdr.data.f1[7:0]: exact; "
                           "hdr.data.h[15:8]: range; } actions = { noop; } }\n    table lp {")
    prog = prog.replace("lp.apply(); }", "lp.apply(); sl.apply(); }")
    idx = P4InfoIndex(compile_source(prog, "stf_slice.p4").p4info)
    e = to_entry(idx, parse_stf("add sl hdr.data.f1[7:0]:0x05 hdr.data.h[15:8]:1..10 noop()")[0])
    assert e.match == {"hdr.data.f1[7:0]": 5, "hdr.data.h[15:8]": (1, 10)}


def test_p4c_cache_key_covers_nested_includes(tmp_path):
    """stf_run caches p4c's output by a hash of the program and its local includes at any depth
    (it counted the main file's siblings only: an edited include two folders down was not seen)."""
    from stf_run import source_hash
    for d, text in (("a", "const bit<8> X = 1;"), ("b", "const bit<8> X = 2;")):
        (tmp_path / d / "inc" / "sub").mkdir(parents=True)
        (tmp_path / d / "main.p4").write_text('#include "inc/top.p4"\n')
        (tmp_path / d / "inc" / "top.p4").write_text('#include "sub/leaf.p4"\n')
        (tmp_path / d / "inc" / "sub" / "leaf.p4").write_text(text)
    assert source_hash(tmp_path / "a" / "main.p4") != source_hash(tmp_path / "b" / "main.p4")


class _FakeProc:
    def __init__(self, code):
        self.returncode = code

    def poll(self):
        return self.returncode


class _FakeTarget:
    """Enough of a diff_targets target for run_stf: a process that has exited (or not) and a
    P4Runtime connection whose calls take ``delay`` seconds."""
    name = "bmv2"

    def __init__(self, code=None, delay=0.0):
        import threading
        import time
        self.p = type("P", (), {"proc": _FakeProc(code), "tail": lambda self, n: "Segmentation fault"})()
        self._cv, self._out, self._last = threading.Condition(), [], time.monotonic()
        delay_ = delay

        class Conn:
            def set_pipeline(self, *a):
                time.sleep(delay_)

            def write(self, *a):
                time.sleep(delay_)
        self.conn = Conn()

    def drain(self):
        self._out.clear()

    def inject(self, port, data):
        pass


def test_run_stf_reports_a_dead_switch_at_once():
    """corpus12's open item: a simple_switch_grpc that died loading a program made stf_run wait on
    every RPC's timeout (20 minutes for one program) instead of saying so."""
    import time
    from stf_run import run_stf
    from diff_harness import Compiled
    cmds = parse_stf("packet 0 00\npacket 1 01\n")
    t0 = time.monotonic()
    run = run_stf(_FakeTarget(code=-11), Compiled(None, b"{}"), cmds, 0.01)
    assert time.monotonic() - t0 < 5
    assert "exited (code -11)" in run.error and "Segmentation fault" in run.error


def test_run_stf_gives_up_on_a_hung_switch_after_its_limit():
    from stf_run import run_stf
    from diff_harness import Compiled
    from p4.config.v1 import p4info_pb2
    cmds = parse_stf("packet 0 00\nadd t k:1 a()\npacket 0 00\nadd t k:2 a()\n")
    run = run_stf(_FakeTarget(delay=0.3), Compiled(p4info_pb2.P4Info(), b"{}"), cmds, 0.01, limit=0.2)
    assert "did not finish the STF within 0.2 s" in run.error
