"""p4c 1.2.4.8 predicates the ``if``s of an action for BMv2 (switch/compiler/predication.py):
these programs of our own run on checkmate-switch as BMv2 runs p4c's JSON (the frames were
taken from BMv2; tests/differential/diffcases/corpus7.py compares them live).  The header is
``h`` of tests/p4c's skeleton (a: bit<8>, b: bit<16>, c: bit<8>); the action writes locals
x, y and the apply block packs them into ``b``.  Also the P4Info names of
a top-level action with a relative @name (switch/compiler/action_copies.py), probed on p4c."""
from __future__ import annotations

from p4c_helpers import p4c_accepts, program
from switch.compiler import compile_source
from switch.runtime import Pipeline


def _run(action_body: str, frames, tmp_path):
    text = program(locals=f"""
    bit<8> x;
    bit<8> y;
    action act() {{ {action_body} }}""", body="""
        x = 0x11; y = 0x22;
        act();
        hdr.h.b = x ++ y;
        sm.egress_spec = 1;""")
    assert p4c_accepts(text, tmp_path) in (None, True), "p4c rejects it"
    pl = Pipeline(compile_source(text, "prog.p4").device_config)
    return [pl.process(0, f)[0][1][1:3] for f in frames]


def _frames(*pairs):
    return [bytes([a, 0, 0, c]) for a, c in pairs]


def test_dependent_else_if(tmp_path):
    # P4 semantics for a == 1 would give y = 1; p4c's Muxes give y = 2
    got = _run("if (hdr.h.a == 1) { x = 1; y = x; } else if (hdr.h.a == 2) { y = 2; x = y; }",
               _frames((1, 0), (2, 0), (3, 0)), tmp_path)
    assert got == [bytes([1, 2]), bytes([2, 2]), bytes([0x11, 0x22])]


def test_nested_else_read(tmp_path):
    # a == 1 writes y only, yet p4c's second Mux for x picks y there (x = 0xf0)
    got = _run("if (hdr.h.a == 1) { y = 0xf0; } else if (hdr.h.a == 2) { if (hdr.h.c == 1) { x = y; } "
               "else if (hdr.h.c == 2) { x = y; } }",
               _frames((1, 0), (2, 1), (2, 2), (2, 3), (3, 1)), tmp_path)
    assert got == [bytes([0xf0, 0xf0]), bytes([0x22, 0x22]), bytes([0x22, 0x22]), bytes([0x11, 0x22]),
                   bytes([0x11, 0x22])]


def test_plain_ifs_unchanged(tmp_path):
    got = _run("if (hdr.h.a == 1) { x = 1; } else if (hdr.h.a == 2) { x = 2; } else { x = 3; y = x; }",
               _frames((1, 0), (2, 0), (0, 0)), tmp_path)
    assert got == [bytes([1, 0x22]), bytes([2, 0x22]), bytes([3, 3])]


def test_toplevel_relative_name_per_control():
    text = program(top="""
@name("bar") action foo2() { }
@name(".qux") action foo4() { }
action plain() { }
control Sub(inout h_t h) {
    table ts { key = { h.a: exact; } actions = { foo2; NoAction; } default_action = NoAction(); }
    apply { ts.apply(); }
}
""", locals="""
    Sub() s1;
    table t1 { key = { hdr.h.a: exact; } actions = { foo2; foo4; plain; NoAction; } default_action = NoAction(); }""",
        body="        t1.apply(); s1.apply(hdr.h); foo2();")
    names = {a.preamble.name: a.preamble.alias for a in compile_source(text, "prog.p4").p4info.actions}
    assert names == {"I.bar": "bar", "qux": "qux", "plain": "plain", "NoAction": "NoAction"}
