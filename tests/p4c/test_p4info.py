"""P4Info names and ids as p4c emits them; the CLI's outputs."""
import json
import os

from google.protobuf import text_format
from p4.config.v1 import p4info_pb2

from p4c_helpers import program
from switch.compiler import compile_file, compile_source
from switch.compiler.ids import aliases, assign_ids, jenkins_one_at_a_time
from switch.runtime import Pipeline

HERE = os.path.dirname(os.path.abspath(__file__))
BASIC = os.path.join(HERE, "..", "pipeline", "programs", "basic.p4")


def test_basic_p4_ids_match_p4c():
    # ids of p4lang/tutorials basic.p4 as p4c writes them in basic.p4.p4info.txt
    info = compile_file(BASIC).p4info
    assert [(t.preamble.name, t.preamble.id, t.preamble.alias) for t in info.tables] == [
        ("MyIngress.ipv4_lpm", 37375156, "ipv4_lpm")]
    assert sorted((a.preamble.name, a.preamble.id) for a in info.actions) == [
        ("MyIngress.drop", 25652968), ("MyIngress.ipv4_forward", 28792405), ("NoAction", 21257015)]
    t = info.tables[0]
    assert [(m.id, m.name, m.bitwidth, m.match_type) for m in t.match_fields] == [
        (1, "hdr.ipv4.dstAddr", 32, p4info_pb2.MatchField.LPM)]
    assert t.size == 1024
    fwd = next(a for a in info.actions if a.preamble.name == "MyIngress.ipv4_forward")
    assert [(p.id, p.name, p.bitwidth) for p in fwd.params] == [(1, "dstAddr", 48), (2, "port", 9)]


def test_hash_and_probing():
    assert jenkins_one_at_a_time(b"") == 0
    ids = assign_ids({"table": {"a.t": None, "b.t": None, "x": 0x05}})["table"]
    assert ids["x"] == 0x02000005
    assert all(v >> 24 == 0x02 for v in ids.values()) and len(set(ids.values())) == 3
    assert aliases(["a.b.c", "d.b.c", "e.f"]) == {"a.b.c": "a.b.c", "d.b.c": "d.b.c", "e.f": "f"}


def test_ids_are_stable_and_annotations_apply():
    text = program(locals="""    @name("cnt") counter(16, CounterType.packets) hits;
    @id(0x1234) register<bit<32>>(8) regs;
    @name("fancy") action a(bit<8> v) { hdr.h.a = v; }
    table t { key = { hdr.h.a : exact @name("the_a"); hdr.h.b[15:8] : ternary; }
              actions = { a; } default_action = a(3); size = 64; }""",
                   body="        t.apply(); hits.count(0); regs.write(0, 1);")
    a = compile_source(text, "p.p4").p4info
    b = compile_source(text, "p.p4").p4info
    assert a == b
    assert a.counters[0].preamble.name == "I.cnt"
    names = {x.preamble.name for x in a.actions}
    assert "I.fancy" in names
    t = a.tables[0]
    assert [m.name for m in t.match_fields] == ["the_a", "hdr.h.b[15:8]"]
    assert t.size == 64
    assert a.registers[0].preamble.id == 0x16001234
    assert a.registers[0].type_spec.bitstring.bit.bitwidth == 32 and a.registers[0].size == 8
    assert a.counters[0].spec.unit == p4info_pb2.CounterSpec.PACKETS


def test_digest_and_controller_headers():
    text = program(top="""@controller_header("packet_in") header pin_t { bit<9> port; bit<7> pad; }
struct d_t { bit<8> a; bit<16> b; }""", body="        digest<d_t>(1, { hdr.h.a, hdr.h.b });")
    prog = compile_source(text, "p.p4")
    info = prog.p4info
    assert [d.preamble.name for d in info.digests] == ["d_t"]
    assert info.digests[0].preamble.id >> 24 == 0x17
    members = info.type_info.structs["d_t"].members
    assert [(m.name, m.type_spec.bitstring.bit.bitwidth) for m in members] == [("a", 8), ("b", 16)]
    cpm = info.controller_packet_metadata[0]
    assert cpm.preamble.name == "packet_in" and cpm.preamble.id >> 24 == 0x04
    assert [(m.id, m.name, m.bitwidth) for m in cpm.metadata] == [(1, "port", 9), (2, "pad", 7)]
    ch = prog.device_config["controller_headers"]["packet_in"]
    assert ch["header"] == "pin_t" and [f["width"] for f in ch["fields"]] == [9, 7]


def test_cli_writes_device_config_and_p4info(tmp_path):
    from switch.p4c_cli import main

    out = tmp_path / "out"
    p4info = tmp_path / "x" / "basic.p4info.txtpb"
    assert main([BASIC, "-o", str(out), "--p4runtime-files", str(p4info)]) == 0
    cfg = json.loads((out / "basic.json").read_text())
    info = text_format.Parse(p4info.read_text(), p4info_pb2.P4Info())
    assert info == compile_file(BASIC).p4info
    pl = Pipeline(cfg)  # the JSON written to disk loads and forwards
    pl.insert("ipv4_lpm", {"hdr.ipv4.dstAddr": (0, 0)}, "ipv4_forward", {"dstAddr": 1, "port": 3})
    frame = bytes.fromhex("000000000001000000000002" "0800" "4500001400000000400000000a0000010a000002")
    assert [p for p, _ in pl.process(1, frame)] == [3]


def test_preprocessor_defines_and_local_includes(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "consts.p4").write_text("#define PORT_OF(x) ((x) + 1)\nconst bit<9> BASE = 4;\n")
    text = program(top='#include "consts.p4"\n#ifdef FAST\nconst bit<8> K = 7;\n#else\nconst bit<8> K = 9;\n#endif',
                   body="        hdr.h.a = K; sm.egress_spec = PORT_OF(BASE);")
    src = tmp_path / "p.p4"
    src.write_text(text)
    for defines, k in ((None, 9), ({"FAST": None}, 7)):
        pl = Pipeline(compile_file(src, include_dirs=[tmp_path / "inc"], defines=defines).device_config)
        assert pl.process(0, bytes(4) + b"z") == [(5, bytes([k, 0, 0, 0]) + b"z")]


def test_pragma_once_header_is_read_once(tmp_path):
    # cpp honours `#pragma once` (any spacing) in p4c's mode: a header included again, also by
    # another spelling of its path, is skipped (p4c 1.2.4.8 compiles this; checkmate-p4c read it
    # twice and refused the re-declaration -- helper corpus14)
    (tmp_path / "once.p4").write_text("#pragma once\nconst bit<8> K1 = 3;\n")
    (tmp_path / "once2.p4").write_text("  #  pragma   once  \nconst bit<8> K2 = 4;\n")
    text = program(top='#include "once.p4"\n#include "once.p4"\n#include "./once.p4"\n'
                       '#include "once2.p4"\n#include "once2.p4"',
                   body="        hdr.h.a = K1 + K2; sm.egress_spec = 1;")
    src = tmp_path / "p.p4"
    src.write_text(text)
    pl = Pipeline(compile_file(src).device_config)
    assert pl.process(0, bytes(4) + b"z") == [(1, bytes([7, 0, 0, 0]) + b"z")]


def test_file_of_an_included_header_keeps_the_path_as_written(tmp_path, monkeypatch):
    # cpp names a header included from `main.p4` by `inc/t.p4` (from `/d/main.p4`: `/d/inc/t.p4`),
    # so `@file(__FILE__)` in the P4Info follows how the program was named; p4c 1.2.4.8 lists
    # "inc/t.p4" for a relative invocation, checkmate-p4c listed the absolute path (helper corpus14)
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "t.p4").write_text(
        "control Sub(inout bit<8> x) {\n"
        "    @file(__FILE__) table t { key = { x : exact; } actions = { NoAction; } }\n"
        "    apply { t.apply(); }\n}\n")
    (tmp_path / "main.p4").write_text(program(top='#include "inc/t.p4"', locals="    Sub() sub;",
                                              body="        sub.apply(hdr.h.a); sm.egress_spec = 1;"))
    monkeypatch.chdir(tmp_path)
    for name, want in (("main.p4", '"inc/t.p4"'), (str(tmp_path / "main.p4"), f'"{tmp_path}/inc/t.p4"')):
        info = compile_file(name).p4info
        (tbl,) = [t for t in info.tables if t.preamble.name.endswith(".t")]
        assert list(tbl.preamble.annotations) == [f"@file({want})"]


def test_ir_format_tag_is_shared():
    from switch.compiler.elab_common import IR_FORMAT as compiler_tag
    from switch.runtime.codegen import IR_FORMAT as runtime_tag
    assert compiler_tag == runtime_tag
    assert compile_file(BASIC).device_config["format"] == runtime_tag


def test_table_with_initial_entries_is_full_on_the_target():
    # p4c's BMv2 JSON sizes such a table to its entries (max_size 2 here, whatever `size` says), so
    # BMv2 refuses every control-plane INSERT; the P4Info keeps the declared size (fuzz_samples:
    # samples/init-entries-bmv2.p4)
    text = program(locals="""    action a(bit<8> v) { hdr.h.a = v; }
    table t { key = { hdr.h.a : exact; } actions = { a; } size = 64; entries = { 1 : a(1); 2 : a(2); } }
    table u { key = { hdr.h.b : exact; } actions = { a; } entries = { 1 : a(1); } }
    table v { key = { hdr.h.b : exact; } actions = { a; } entries = { } }""",
                   body="        t.apply(); u.apply(); v.apply();")
    prog = compile_source(text, "p.p4")
    assert sorted((t.preamble.name, t.size) for t in prog.p4info.tables) == [("I.t", 64), ("I.u", 1024), ("I.v", 1024)]
    assert sorted((t["name"], t["size"]) for t in prog.device_config["tables"]) == [("I.t", 2), ("I.u", 1), ("I.v", 1024)]
