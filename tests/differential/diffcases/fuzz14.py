"""Disagreements found by helper fuzz14 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case (``INVALID``: refused by p4c, taken in by ``test_invalid.py``).

A call in the right operand of ``&&``/``||`` or in an arm of ``?:`` runs only on a condition:
p4c's SideEffectOrdering turns it into an ``if``, so in an action a function called there
whose body holds a method or extern call (``p.setValid()``) is the BMv2 back end's
"Conditional execution in actions unsupported on this target" (fuzz_exprs seed 2741:
``if (x == 1 || f0(hdr.stk[2]))``).  checkmate-p4c took the operand as unconditional and
accepted the program.  A left operand or condition p4c folds (``true && f(h)``,
``false || f(h)``, ``(x ^ x) == 1 || f(h)``) leaves the call unconditional, and outside an
action the operand may call anything: those run (``fuzz14_conditional_operand_calls_run``)."""
from .base import H, case, program

CAT = "front end (p4c-compatible)"

_F0 = "bool f0(inout h_t p) { p.setValid(); p.a = 7; p.b = 8; p.c = 9; p.d = 10; return true; }\n"
_META = "    bool m1;\n"


def _in_action(stmt: str) -> str:
    return program("        a2();\n", top=_F0, meta=_META,
                   ingress_decls=f"    action a2() {{\n        {stmt}\n    }}\n")


INVALID = {
    "function_set_valid_in_or_operand_in_action": (
        _in_action("if (hdr.h.a == 1 || f0(hdr.h2)) { hdr.h.b = 1; }"), ("p.setValid", "conditional execution")),
    "function_set_valid_in_and_operand_in_action": (
        _in_action("meta.m1 = hdr.h.a == 1 && f0(hdr.h2);"), ("p.setValid", "conditional execution")),
    # p4c folds no `x && false`: the right operand of the || stays conditional
    "function_set_valid_after_unfolded_and_false": (
        _in_action("meta.m1 = (meta.m1 && false) || f0(hdr.h2);"), ("p.setValid", "conditional execution")),
    "function_set_valid_in_mux_arm_in_action": (
        _in_action("meta.m1 = hdr.h.a == 1 ? true : f0(hdr.h2);"), ("p.setValid", "conditional execution")),
    # through a function whose body has the || (inlined into the action)
    "function_set_valid_in_or_operand_of_a_function_in_action": (program(
        "        a2();\n", top=_F0 + "bool g(in bit<8> k, inout h_t x) { return k == 1 || f0(x); }\n", meta=_META,
        ingress_decls="    action a2() { meta.m1 = g(hdr.h.a, hdr.h2); }\n"), ("p.setValid", "conditional execution")),
}

CASES = [
    case("fuzz14_conditional_operand_calls_run", CAT, program("""
        a2();
        if (hdr.h.a == 2 || f0(hdr.h2)) { hdr.h.c = 3; }
        meta.m1 = hdr.h.a == 3 ? f0(hdr.h2) : false;
        hdr.h.d = meta.m1 ? 32w1 : 32w0;
""", top=_F0, meta=_META, ingress_decls="""
    action a2() {
        meta.m1 = f0(hdr.h2) || hdr.h.a == 1;
        meta.m1 = true && f0(hdr.h2);
        meta.m1 = false || f0(hdr.h2);
        meta.m1 = (hdr.h.a ^ hdr.h.a) == 1 || f0(hdr.h2);
        hdr.h.b = meta.m1 ? 8w9 : 8w4;
    }"""), frames=[(1, H(a)) for a in range(1, 5)], json_path=True),
]

# A union member assigned and then overwritten by the copy-out of an action's `out` argument
# before anything reads it: p4c inlines the action (its body writes the local parameter, then
# `hdr.u.x = y`), and its def-use pass drops the first assignment -- which on BMv2 would have
# invalidated the sibling `hdr.u.w`, so that stays valid (fuzz_headers seed 2542).  An action
# whose body reads the member keeps the store.
_UNION = "header u16_t { bit<8> a; bit<16> v; }\nheader_union u_t { h_t x; u16_t w; h_t v; }\n"
_UPARSER = """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition select(hdr.h.a) { 3: pw; default: accept; } }
    state pw { pkt.extract(hdr.u.w); transition accept; }"""
_UDEPARSER = "        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.u);"
_UVALID = ("        hdr.h.d = (hdr.u.w.isValid() ? 32w1 : 32w0) | (hdr.u.x.isValid() ? 32w2 : 32w0) | "
           "(hdr.u.v.isValid() ? 32w4 : 32w0);\n")
CASES.append(case("fuzz14_union_store_overwritten_by_action_out_copy", CAT, program("""
        if (hdr.h.b == 0) { hdr.u.x = {1, 2, 3, 4}; hdr.h.c = 7; a1(hdr.u.x); }
        else { hdr.u.v = {9, 8, 7, 6}; a2(hdr.u.v); }
""" + _UVALID, headers=_UNION, fields="    u_t u;\n", parser=_UPARSER, deparser=_UDEPARSER, ingress_decls="""
    action a1(out h_t y) { hdr.h.b = 5; }
    action a2(out h_t y) { hdr.h.b = hdr.u.v.b; }"""),
    frames=[(1, H(3, b, payload=bytes([1, 0x6c, 0xf3]))) for b in (0, 1)] + [(1, H(2))], json_path=True))

# p4c's lexer reads a name as a type wherever no object declaration (variable, constant,
# instance, control/parser parameter) of that name is in scope -- and an action's name and its
# parameters are none: `action I()` inside `control I` (the left-open item of helper fuzz13) or
# an action named after a header type may be declared but not called or listed in a table, and
# an action parameter named after a type may not be read ("syntax error, unexpected
# TYPE_IDENTIFIER" / "unexpected ;").  checkmate-p4c took them.  Declared and unused, or
# shadowed by a variable, they compile (the case below runs them).
INVALID.update({
    "action_named_after_its_control_called": (program(
        "        I();\n", ingress_decls="    action I() { hdr.h.b = 1; }\n"), ("I is a type name",)),
    "action_named_after_a_header_type_in_a_table": (program(
        "        t.apply();\n", ingress_decls="    action h_t() { hdr.h.b = 1; }\n"
        "    table t { key = { hdr.h.a: exact; } actions = { h_t; NoAction; } }\n"), ("h_t is a type name",)),
    "action_parameter_named_after_a_type_read": (program(
        "        t.apply();\n", ingress_decls="    action a(bit<8> h_t) { hdr.h.b = h_t; }\n"
        "    table t { key = { hdr.h.a: exact; } actions = { a; NoAction; } }\n"), ("h_t is a type name",)),
})
CASES.append(case("fuzz14_type_named_actions_declared_unused", CAT, program(
    "        t.apply();\n        bit<8> h_t = hdr.h.a + 1;\n        hdr.h.c = (bit<16>)h_t;\n", ingress_decls="""
    action I() { hdr.h.b = 1; }
    action ethernet_t() { hdr.h.b = 2; }
    action a(bit<8> h_t) { hdr.h.b = 3; }
    bit<8> E = 4;
    action b() { hdr.h.d = (bit<32>)E; }
    table t { key = { hdr.h.a: exact; } actions = { a; b; NoAction; } const entries = { 1: a(5); 2: b(); } }"""),
    frames=[(1, H(a)) for a in range(3)], json_path=True))

# p4c removes a sub-control instance nothing applies before its BMv2 back end's target checks,
# and an unused action too: a conditional setValid in an action of an unapplied instance, or a
# shift by more than 256 in its body or in an unused action, is no error then (it is when applied:
# spec5_shift_amount_over_256).  checkmate-p4c refused them.
CASES.append(case("fuzz14_target_checks_skip_unapplied_subcontrols", CAT, program(
    "        c1.apply(hdr.h);\n        if (false) { c3.apply(hdr.h); }\n", top="""
control C(inout h_t h) {
    action a() { if (h.a == 1) { h.setValid(); } }
    apply { h.b = h.b + 1; }
}
control Bad(inout h_t h) {
    action a() { if (h.a == 1) { h.setValid(); } }
    table t { key = { h.a: exact; } actions = { a; NoAction; } }
    apply { a(); t.apply(); h.d = h.d << 300; }
}""", ingress_decls="""
    C() c1; Bad() c2; Bad() c3;
    action u() { hdr.h.d = hdr.h.d << 300; }"""),
    frames=[(1, H(a, 5)) for a in range(3)], json_path=True))

# ... and so it is for the copy-out of a function's `out` argument and of a sub-control's (p4c
# inlines both; their bodies reach the caller's headers only through parameters), while an
# assignment from a function's return value overwrites it plainly, and a body that may `exit`
# does not keep the store (nor a stack's push or pop in between, seed fuzz_headers 2574) -- unless the body writes the parameter (used in place, its write
# invalidates the sibling on BMv2; SY) (probe programs of fuzz14).
CASES.append(case("fuzz14_union_store_overwritten_by_function_and_control_out", CAT, program("""
        if (hdr.h.b == 0) { hdr.u.x = {1, 2, 3, 4}; hdr.h.c = 7; f(hdr.u.x); }
        else if (hdr.h.b == 1) { hdr.u.x = {1, 2, 3, 4}; hdr.s.push_front(1); sc.apply(hdr.u.x); }
        else if (hdr.h.b == 2) { hdr.u.x = {1, 2, 3, 4}; hdr.u.x = g(); }
        else if (hdr.h.b == 3) { hdr.u.x = {1, 2, 3, 4}; sx.apply(hdr.u.x); }
        else { hdr.u.x = {1, 2, 3, 4}; sy.apply(hdr.u.x); }
""" + _UVALID, headers=_UNION, fields="    u_t u;\n    h_t[2] s;\n", parser=_UPARSER, deparser=_UDEPARSER,
    top="void f(out h_t y) { }\nh_t g() { h_t z; return z; }\ncontrol SC(out h_t y) { apply { } }\n"
        "control SX(out h_t y) { apply { if (y.isValid()) { exit; } } }\n"
        "control SY(out h_t y) { apply { y.setValid(); y = {5, 6, 7, 8}; exit; } }\n",
    ingress_decls="    SC() sc;\n    SX() sx;\n    SY() sy;\n"),
    frames=[(1, H(3, b, payload=bytes([1, 0x6c, 0xf3]))) for b in range(5)], json_path=True))
