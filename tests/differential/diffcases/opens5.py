"""Found by helper opens5 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch must match."""
from .base import H, H2, PAYLOAD, case, eth, program, varbit_program

CAT = "p4c Predication"

_FR = [(1, H(a, b, c)) for a in range(4) for b in (0, 7) for c in (0, 1)]
_FR2 = [(1, H2(a, b, c, b=b2, c=c2)) for a in (0, 1, 3) for b in (0, 1) for c in (0, 1) for b2 in (0, 7) for c2 in (0, 1)]
_TBL = "    table t { actions = { a1; } default_action = a1(); }\n"
_DUQ = "if (q.a != 1) { q.a = q.a + 1; } else if (q.a != 3) { q.a = 3; }"
_DUM = "if (m.v != 1) { m.v = m.v + 1; } else if (m.v != 3) { m.v = 3; }"
_ST = "struct s_t { bit<8> v; bit<8> w; }\n"
_OUT = "        hdr.h.d = (bit<32>)meta.s.v;\n        hdr.h.b = meta.s.w;\n"


def _case(name: str, top: str, decls: str, call: str = "        a1();\n", frames=_FR):
    return case(f"opens5_{name}", CAT, program(call, ingress_decls=decls, top=top, headers=_ST, meta="    s_t s;\n"),
                frames=frames, json_path=True)


# probes: calls with header / struct arguments in an action
CASES = [
    _case(name, top, decls, call) for name, top, decls, call in (
        ("function_with_an_inout_header_called_in_an_action", f"void f(inout h_t q) {{ {_DUQ} }}\n",
         "    action a1() { f(hdr.h); }\n", "        a1();\n"),
        ("function_with_an_inout_header_called_under_an_if_in_an_action", f"void f(inout h_t q) {{ {_DUQ} }}\n",
         "    action a1() { if (hdr.h.c == 0) { f(hdr.h); } }\n", "        a1();\n"),
        ("action_with_an_inout_header_called_under_an_if", "", f"    action a2(inout h_t q) {{ {_DUQ} }}\n"
         "    action a1() { if (hdr.h.c == 0) { a2(hdr.h); } }\n", "        a1();\n"),
        ("action_with_an_inout_header_called_under_an_if_in_a_table", "", f"    action a2(inout h_t q) {{ {_DUQ} }}\n"
         "    action a1() { if (hdr.h.c == 0) { a2(hdr.h); } }\n" + _TBL, "        t.apply();\n"),
        ("function_with_an_inout_struct_called_in_an_action", f"void f(inout s_t m) {{ {_DUM} }}\n",
         "    action a1() { meta.s.v = hdr.h.a; f(meta.s); }\n", "        a1();\n" + _OUT),
        ("function_with_an_inout_struct_called_under_an_if_in_an_action", f"void f(inout s_t m) {{ {_DUM} }}\n",
         "    action a1() { meta.s.v = hdr.h.a; if (hdr.h.c == 0) { f(meta.s); } }\n", "        a1();\n" + _OUT),
        ("function_with_an_in_header_and_an_out_field_called_under_an_if",
         "void f(in h_t q, out bit<8> x) { x = q.a; if (x != 1) { x = x + 1; } else if (x != 3) { x = 3; } }\n",
         "    action a1() { if (hdr.h.c == 0) { f(hdr.h, hdr.h.b); } }\n", "        a1();\n"),
        ("action_with_an_out_struct_called_under_an_if", "",
         "    action a2(out s_t m) { m.v = hdr.h.a; m.w = 4; " + _DUM + " }\n"
         "    action a1() { if (hdr.h.c == 0) { a2(meta.s); } }\n", "        a1();\n" + _OUT),
        ("action_with_an_out_header_called_under_an_if", "",
         "    action a2(out h_t q) { q.a = hdr.h.a; q.b = 4; " + _DUQ + " }\n"
         "    action a1() { if (hdr.h.c == 0) { a2(hdr.h); } }\n", "        a1();\n"),
        ("function_with_an_out_header_called_in_an_action", "void f(out h_t q, in bit<8> v) { q.a = v; " + _DUQ + " }\n",
         "    action a1() { f(hdr.h, hdr.h.b); }\n", "        a1();\n"),
        ("action_with_two_headers_called_under_an_if", "",
         "    action a2(inout h_t q, inout h_t r) { if (q.a != 1) { q.a = q.a + 1; r.b = q.a; } else if (q.a != 3) { q.a = 3; } }\n"
         "    action a1() { if (hdr.h.c == 0) { a2(hdr.h, hdr.h); } }\n", "        a1();\n"),
    )
]

# probes: a ?: in a callee pasted into an action with an if
CASES += [
    _case(name, top, decls, call) for name, top, decls, call in (
        ("function_with_a_mux_called_under_an_if_in_an_action",
         "void f(inout bit<8> x) { x = (x == 2) ? 8w5 : x + 1; if (x == 3) { x = 9; } }\n",
         "    action a1() { if (hdr.h.c == 0) { f(hdr.h.a); } }\n", "        a1();\n"),
        ("action_with_a_mux_in_an_else_called_in_an_action", "",
         "    action a2(inout bit<8> x) { if (hdr.h.b == 0) { x = 1; } else { x = (hdr.h.c == 0) ? 8w4 : x; if (x == 2) { x = 7; } } }\n"
         "    action a1() { a2(hdr.h.a); }\n", "        a1();\n"),
        ("function_with_a_mux_in_an_else_called_in_an_action",
         "void f(inout bit<8> x, in bit<8> b, in bit<16> c) { if (b == 0) { x = 1; } else { x = (c == 0) ? 8w4 : x; if (x == 2) { x = 7; } } }\n",
         "    action a1() { f(hdr.h.a, hdr.h.b, hdr.h.c); }\n", "        a1();\n"),
    )
]

# probes: the pass's state after an action variant (dead_reads.specialize_copy_out_bodies)
_A0V = "    action a0(inout h_t q) { if (hdr.h.c == 7) { hdr.h2.c = 3; hdr.h2.b = (bit<8>)hdr.h2.c; } }\n"
_A1V = ("    action a1() { if (hdr.h.b != 9) { if (hdr.h2.b != 1) { hdr.h2.b = hdr.h2.b + 1; } "
        "else if (hdr.h2.b != 3) { hdr.h2.b = 3; } } }\n")
_FRV = [(1, H2(0x31, b2, 0x3334, 0x35363738, b=b, c=c)) for b2 in range(4) for b in (0, 9) for c in (0, 7)]
CASES += [
    _case(f"predicated_after_a_variant{how}", "", _A0V + _A1V + extra, call, frames=_FRV)
    for how, extra, call in (
        ("", "", "        a0(hdr.h2);\n        a1();\n"),
        ("_and_the_body_as_written", "", "        a0(hdr.h2);\n        a0(hdr.h);\n        a1();\n"),
        ("_the_body_as_written_first", "", "        a0(hdr.h);\n        a0(hdr.h2);\n        a1();\n"),
        ("_in_tables", "    table t0 { actions = { a0(hdr.h2); } default_action = a0(hdr.h2); }\n"
         "    table t1 { actions = { a1; } default_action = a1(); }\n", "        t0.apply();\n        t1.apply();\n"))
]

# probes: a program's own header copies in an action's `if`, predicated now as p4c does
_FRH = [(1, H2(a, b, c, b=b2, c=c2)) for a in (0, 1) for b in (0, 1) for c in (0, 3) for b2 in (0, 7) for c2 in (0, 1)] + \
       [(1, H(a, b, c)) for a in (0, 1) for b in (0, 7) for c in (0, 1)]
CASES += [
    _case(f"header_copy_{name}", "", f"    action a1() {{ {body} }}\n", "        a1();\n", frames=_FRH)
    for name, body in (
        ("in_an_if_else", "if (hdr.h.b == 0) { hdr.h2 = hdr.h; } else { hdr.h2.a = 5; }"),
        ("after_a_store_in_the_same_if", "if (hdr.h.c == 0) { hdr.h.a = 9; hdr.h2 = hdr.h; hdr.h2.b = hdr.h2.a; }"),
        ("in_an_else_if", "if (hdr.h.b == 0) { hdr.h2.a = 1; hdr.h = hdr.h2; } else if (hdr.h.c == 0) { hdr.h2 = hdr.h; "
                          "hdr.h2.b = hdr.h2.a; }"),
        ("nested_double_update", "if (hdr.h.c == 0) { if (hdr.h2.a != 1) { hdr.h2 = hdr.h; } else if (hdr.h2.c != 3) "
                                 "{ hdr.h2.a = 3; } }"),
        ("of_a_local_header", "h_t t; if (hdr.h.b == 0) { t = hdr.h; t.a = t.a + 1; hdr.h2 = t; } else { t = hdr.h2; "
                              "hdr.h = t; }"),
        ("of_an_invalid_header", "h_t t; if (hdr.h.b == 0) { hdr.h2 = t; } else { hdr.h2.a = hdr.h2.a + 1; }"),
    )
]

# probes: varbit arguments of a call in an action with an `if`
_FRVB = [(1, eth(0x1234) + bytes([n]) + bytes(range(0x11, 0x11 + n // 8)) + b"\xa1\xa2" + bytes([t]) + PAYLOAD)
         for n in (0, 8, 16) for t in (0, 1, 3)]
_DUT = "if (hdr.tail.t != 1) { hdr.tail.t = hdr.tail.t + 1; } else if (hdr.tail.t != 3) { hdr.tail.t = 3; }"
_VB_DIES = "simple_switch 1.15.5 dies executing p4c's predicated varbit assignment (assign_VL of a ?:: tag == FIELD)"
CASES += [
    case(f"opens5_{name}", CAT, varbit_program(f"""
{decls}
    apply {{
        {"t.apply()" if "table t" in decls else "a1()"};
        sm.egress_spec = 2;
    }}""", top=top), frames=_FRVB, **({"p4info_only": _VB_DIES} if "varbit_a" in name else {"json_path": True}))
    for name, top, decls in (
        ("function_with_an_inout_varbit_header_called_under_an_if", "void f(inout vb_t q, in vb_t r) { q = r; }\n",
         f"    action a1() {{ if (hdr.len.n == 8) {{ f(hdr.x, hdr.y); }} {_DUT} }}"),
        ("action_with_a_varbit_argument_called_under_an_if", "",
         f"    action a2(in varbit<32> v) {{ hdr.x.v = v; {_DUT} }}\n"
         "    action a1() { if (hdr.len.n == 8) { a2(hdr.y.v); } }"),
        ("varbit_assignment_in_an_if_in_an_action", "",
         f"    action a1() {{ if (hdr.len.n == 8) {{ hdr.x.v = hdr.y.v; }} {_DUT} }}"),
        ("varbit_assignment_in_an_if_in_a_table_action", "",
         "    action a1() { if (hdr.len.n == 8) { hdr.x.v = hdr.y.v; } }\n"
         "    table t { key = { hdr.tail.t: exact; } actions = { a1; NoAction; } default_action = NoAction(); "
         "const entries = { 1: a1(); } }"),
        ("function_with_an_out_varbit_called_in_an_action", "void f(out varbit<32> v, in varbit<32> w) { v = w; }\n",
         f"    action a1() {{ f(hdr.x.v, hdr.y.v); {_DUT} }}"),
    )
]

# the whole user metadata as a function's inout argument in an action: p4c's JSON names a header
# instance "m" of type meta_t with fields "userMetadata.m8" (which meta_t lacks), and simple_switch_grpc
# 1.15.5 dies (SIGSEGV) on it; checkmate-switch runs the call (P4Info only; the bmv2json loader refuses
# that JSON: "header type 'meta_t' has no field 'userMetadata.m8'")
CASES.append(case("opens5_user_metadata_as_an_inout_function_argument_in_an_action", CAT, program(
    "        a1();\n        hdr.h.d = (bit<32>)meta.m8;\n", top="void f(inout meta_t m) { if (m.m8 != 1) { m.m8 = m.m8 + 1; } "
    "else if (m.m8 != 3) { m.m8 = 3; } }\n",
    ingress_decls="    action a1() { meta.m8 = hdr.h.a; if (hdr.h.c == 0) { f(meta); } }\n"), frames=_FR,
    p4info_only="simple_switch_grpc 1.15.5 dies (SIGSEGV) on p4c's JSON of a function's inout user-metadata argument"))

# probes: the whole headers struct, and a stack element, as a callee's argument in an action
_DUG = "if (g.h.a != 1) { g.h.a = g.h.a + 1; } else if (g.h.a != 3) { g.h.a = 3; g.h2 = g.h; }"
CASES += [
    case(f"opens5_{name}", CAT, program(call, ingress_decls=decls, top=top, fields=fields, deparser=dep), frames=_FR + _FR2[:8],
         json_path=True)
    for name, top, decls, call, fields, dep in (
        ("function_with_the_headers_struct_called_under_an_if_in_an_action", f"void f(inout headers_t g) {{ {_DUG} }}\n",
         "    action a1() { if (hdr.h.c == 0) { f(hdr); } }\n", "        a1();\n", "", None),
        ("action_with_the_headers_struct_called_in_an_action", "", f"    action a2(inout headers_t g) {{ {_DUG} }}\n"
         "    action a1() { a2(hdr); }\n", "        a1();\n", "", None),
        ("action_with_a_stack_element_called_under_an_if", "", f"    action a2(inout h_t q) {{ {_DUQ} }}\n"
         "    action a1() { hdr.hs[1] = hdr.h; if (hdr.h.c == 0) { a2(hdr.hs[1]); } hdr.h.b = hdr.hs[1].a; }\n",
         "        a1();\n", "    h_t[2] hs;\n", None),
    )
]

# probes: a program's own struct copies in an action's `if` (p4c's CopyStructures splits them first)
_OUT2 = "        hdr.h.d = meta.s.v ++ meta.s.w ++ meta.s2.v ++ meta.s2.w;\n"
CASES += [
    case(f"opens5_struct_copy_{name}", CAT, program("        a1();\n" + _OUT2, ingress_decls=f"    action a1() {{ {body} }}\n",
                                                    headers=_ST, meta="    s_t s;\n    s_t s2;\n"), frames=_FR, json_path=True)
    for name, body in (
        ("after_a_store_in_the_same_if", "meta.s.v = hdr.h.a; if (hdr.h.c == 0) { meta.s.v = 9; meta.s2 = meta.s; "
                                         "meta.s2.w = meta.s2.v; }"),
        ("nested_double_update", "meta.s.v = hdr.h.a; meta.s2.v = hdr.h.b; if (hdr.h.c == 0) { if (meta.s.v != 1) { "
                                 "meta.s.v = meta.s.v + 1; meta.s2 = meta.s; } else if (meta.s.v != 3) { meta.s2 = meta.s; "
                                 "meta.s.v = 3; } }"),
        ("double_update", "meta.s.v = hdr.h.a; if (meta.s.v != 1) { meta.s2 = meta.s; meta.s.v = meta.s2.v + 1; } "
                          "else if (meta.s.v != 3) { meta.s.v = 3; meta.s2 = meta.s; }"),
    )
]

# probes: an expression call of a non-void function in an action
CASES += [
    _case(name, top, decls) for name, top, decls in (
        ("value_function_with_a_double_update_called_in_an_action",
         "bit<8> g(in bit<8> v) { bit<8> x = v; if (x != 1) { x = x + 1; } else if (x != 3) { x = 3; } return x; }\n",
         "    action a1() { hdr.h.a = g(hdr.h.a); }\n"),
        ("value_function_with_returns_called_under_an_if_in_an_action",
         "bit<8> g(in bit<8> v) { if (v == 1) { return 7; } else if (v == 2) { return v + 4; } return v; }\n",
         "    action a1() { if (hdr.h.c == 0) { hdr.h.a = g(hdr.h.a) + 1; } }\n"),
        ("value_function_with_returns_assigned_under_an_if_in_an_action",
         "bit<8> g(in bit<8> v) { if (v == 1) { return 7; } else if (v == 2) { return v + 4; } return v; }\n",
         "    action a1() { if (hdr.h.c == 0) { hdr.h.a = g(hdr.h.a); } else { hdr.h.a = g(hdr.h.b); } }\n"),
        ("value_function_with_a_double_update_assigned_under_an_if_in_an_action",
         "bit<8> g(in bit<8> v) { bit<8> x = v; if (x != 1) { x = x + 1; } else if (x != 3) { x = 3; } return x; }\n",
         "    action a1() { if (hdr.h.c == 0) { hdr.h.a = g(hdr.h.a); } }\n"),
        ("value_function_with_an_out_argument_called_in_an_action",
         "bit<8> g(in bit<8> v, out bit<8> w) { w = v; if (w != 1) { w = w + 1; } else if (w != 3) { w = 3; } "
         "return w + 16; }\n",
         "    action a1() { hdr.h.a = g(hdr.h.a, hdr.h.b); }\n"),
    )
]
