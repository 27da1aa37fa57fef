"""Actions and copy-in/copy-out: directional parameters, actions calling actions, exit
inside an action with inout arguments, aliasing arguments, out parameters left unwritten,
header-stack elements as inout arguments (in range and out of range), evaluation order
of the left-hand side against right-hand side side effects, sub-controls."""
from controller.entities import Entry

from .base import H, PAYLOAD, case, hdr, program

CAT = "actions / copy-in copy-out"

STACK = dict(headers="", fields="    h_t[3] s;\n")
STACK_PARSER = """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.s.next); transition select(hdr.s.last.a) { 0xee: ph; default: accept; } }"""
STACK_DEP = "        pkt.emit(hdr.eth);\n        pkt.emit(hdr.s);"
SFR = [(1, H(1, 2, 3, 4)), (2, H(0xee, 1, 1, 1) + hdr(0xee, 2, 2, 2) + hdr(7, 3, 3, 3) + PAYLOAD),
       (3, H(0xee, 5, 5, 5) + hdr(9, 6, 6, 6) + PAYLOAD)]


def stack_prog(ingress, decls="", top=""):
    return program(ingress, ingress_decls=decls, fields=STACK["fields"], parser=STACK_PARSER,
                   deparser=STACK_DEP, top=top)


DECLS = {
    "inout_exit": """
    action a(inout bit<8> x) { x = 0x11; exit; }""",
    "alias": """
    action a(inout bit<8> x, inout bit<8> y) { x = x + 1; y = y + 2; }""",
    "out_unwritten": """
    action a(out bit<8> x) { }""",
    "nested": """
    action inner(inout bit<8> x, bit<8> v) { x = x ^ v; }
    action outer(inout bit<8> x) { inner(x, 0x0f); inner(x, 0xf0); x = x + 1; }""",
    "in_copy": """
    action a(in bit<8> x) { hdr.h.a = 0; hdr.h.b = x; }""",
}

CASES = [
    case("cio_inout_exit", CAT, program("        a(hdr.h.b); hdr.h.b = 0x22;\n", ingress_decls=DECLS["inout_exit"])),
    case("cio_alias_same_field", CAT, program("        a(hdr.h.a, hdr.h.a);\n", ingress_decls=DECLS["alias"])),
    case("cio_alias_header_and_field", CAT, program("        aa(hdr.h, hdr.h.b);\n", ingress_decls="""
    action aa(inout h_t x, inout bit<8> y) { x.b = 0x33; y = y + 1; x.a = y; }""")),
    case("cio_out_unwritten", CAT, program("        a(hdr.h.c[7:0]);\n", ingress_decls=DECLS["out_unwritten"])),
    case("cio_nested_actions", CAT, program("        outer(hdr.h.a);\n", ingress_decls=DECLS["nested"])),
    case("cio_in_copy_before_body", CAT, program("        a(hdr.h.a);\n", ingress_decls=DECLS["in_copy"])),
    case("cio_exit_in_table_action", CAT, program("        t.apply(); hdr.h.a = 0x44;\n", ingress_decls="""
    action stop() { hdr.h.b = 0x99; exit; }
    table t { key = { hdr.h.a: exact; } actions = { stop; NoAction; } default_action = stop(); }"""),
         entries=[Entry("I.t", {"hdr.h.a": 1}, "NoAction")]),
    case("cio_stack_inout_in_range", CAT, stack_prog("        a(hdr.s[1]);\n", decls="""
    action a(inout h_t x) { x.b = 0x77; }"""), frames=SFR),
    # A run-time index as an inout argument (a(hdr.s[i])) crashes simple_switch_grpc 1.15.5
    # (SIGSEGV): not testable against BMv2, see docs/CONFORMANCE.md.
    case("cio_lhs_index_after_rhs", CAT, stack_prog("        meta.m8 = 0; hdr.s[meta.m8].b = f(meta.m8);\n",
                                                   top="bit<8> f(inout bit<8> i) { i = 1; return 0x5a; }\n"), frames=SFR),
    # found with p4c's STF tests (tests/differential/stf.py): a call in the index runs
    # before the right-hand side, a plain read after it (the case above)
    case("cio_lhs_index_call_before_rhs", CAT, stack_prog(
        "        meta.m8 = 0; hdr.s[id(meta.m8)].b = f(meta.m8);\n"
        "        hdr.s[id((bit<8>)hdr.s[0].a[0:0])].b = f(hdr.s[0].a);\n",
        top="bit<8> f(inout bit<8> i) { i = 1; return 0x5a; }\nbit<8> id(in bit<8> v) { return v; }\n"), frames=SFR),
    case("cio_lhs_index_call_slice_before_rhs", CAT, stack_prog(
        "        meta.m8 = 0; hdr.s[id(meta.m8)].d[15:8] = f(meta.m8);\n",
        top="bit<8> f(inout bit<8> i) { i = 1; return 0x5a; }\nbit<8> id(in bit<8> v) { return v; }\n"), frames=SFR),
    # an out-of-range run-time index as an argument the action never uses: p4c drops the
    # copy-in, so BMv2 runs the packet on (checkmate dropped it before)
    case("cio_stack_oob_unused_inout", CAT, stack_prog("        a(hdr.s[hdr.s[0].b].a); hdr.s[0].c = 0x7777;\n", decls="""
    action a(inout bit<8> x) { }"""), frames=SFR),
    case("cio_function_out_struct", CAT, program("        g(hdr.h.a, meta); hdr.h.c = meta.m16;\n",
                                                top="void g(in bit<8> x, out meta_t m) { m.m8 = x; m.m16 = (bit<16>)x << 4; m.m32 = 0; }\n")),
    case("cio_subcontrol_inout", CAT, program("        sub.apply(hdr.h, meta.m8); hdr.h.b = meta.m8;\n",
                                             top="""
control Sub(inout h_t x, out bit<8> r) { apply { x.a = x.a + 1; r = x.a; if (x.a == 2) { return; } x.c = 0xcccc; } }
""", ingress_decls="    Sub() sub;\n")),
    case("cio_subcontrol_exit", CAT, program("        sub.apply(hdr.h); hdr.h.b = 0xbb;\n", top="""
control Sub(inout h_t x) { apply { x.a = 0x1e; if (x.c == 3) { exit; } x.d = 0; } }
""", ingress_decls="    Sub() sub;\n")),
    case("cio_action_direction_params", CAT, program("        t.apply();\n", ingress_decls="""
    action a(inout bit<8> x, bit<8> v) { x = x + v; }
    table t { key = { hdr.h.a: exact; } actions = { a(hdr.h.b); NoAction; } default_action = NoAction(); }"""),
         entries=[Entry("I.t", {"hdr.h.a": 1}, "I.a", {"v": 5}), Entry("I.t", {"hdr.h.a": 0xff}, "I.a", {"v": 0x80})]),
    case("cio_action_locals", CAT, program("        a();\n", ingress_decls="""
    action a() { bit<8> t = hdr.h.a; hdr.h.a = hdr.h.b; hdr.h.b = t; }""")),
    case("cio_control_locals", CAT, program("        x = hdr.h.a; a(); hdr.h.b = x;\n", ingress_decls="""
    bit<8> x = 3;
    action a() { x = x + 1; }""")),
]
