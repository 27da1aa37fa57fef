"""Disagreements found by helper fuzz17 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.

p4c's RemoveReturns drops the rest of a block after a statement that always returns -- a
``return;``, a block holding one, an ``if`` whose both branches always return (also nested, also
inside a branch: ``if (c) { return; h.setValid(); }``) -- before its BMv2 back end looks for
conditional execution in actions.  What follows is dead code: a ``setValid``, a header
initializer, an extern call (``mark_to_drop``), an ``exit`` there is no target error, also in a
function inlined into an action.  checkmate-p4c knew only the unconditional ``return`` at the
action's top level (fuzz_exprs seed 3225: ``if (c) { ...; return; } else { return; }`` and then
``hdr.opt = {...}`` in an action: refused).  A ``switch`` whose every case returns is no such
statement for p4c (and is refused in an action anyway); ``if (c) { return; }`` without an
``else`` leaves the rest conditional (refused by both).

Found while probing that: a ``switch`` in a function is one in every action that calls the
function (p4c inlines functions before its BMv2 mid end refuses switch statements in actions;
also through another function, and in a ``?:`` arm), and no error when the function is called
from a control body or only in an action's dead code; checkmate-p4c accepted the call in an
action (``INVALID`` below, ``test_invalid.py``).

Further down: an ``exit`` in an action called from another action (p4c's InlineActions: no
copy-out of the inner call), an elided run-time-indexed argument (fuzz_exprs seed 3416), and
header-union stores and copy-backs p4c's def-use pass drops whole (fuzz_headers seed 3028), each
with its own comment (the last of them left open here, fixed by helper fuzz18: ``fuzz18.py``).
"""
from .actions import SFR, stack_prog
from .base import Entry, H, H2, case, program

CAT = "front end (p4c-compatible)"

_TOP = """
void f(inout h_t x, in bit<8> k) {
    if (k == 3) { x.b = 2; return; x.setValid(); } else { x.c = 7; return; }
    x.setValid();
    x.a = 9;
}
"""
_ACTIONS = """
    action a0() {
        if (hdr.h.a == 3) {
            hdr.h.b = 1;
            return;
            hdr.h2.setValid();
        } else {
            if (hdr.h.b == 1) { return; } else { { hdr.h.c = 5; return; } }
        }
        hdr.h2 = {1, 2, 3, 4};
        mark_to_drop(sm);
        exit;
    }
    action a1() {
        f(hdr.h, hdr.h.a);
        if (hdr.h.b == 0x80) { f(hdr.h, hdr.h.d[7:0]); }
    }
    action a2() {
        { if (hdr.h.d == 9) { hdr.h.d = 10; return; } else { return; } }
        hdr.h2.setValid();
    }"""

CASES = [
    case("fuzz17_action_rest_after_if_that_always_returns", CAT, program("""
        a0();
        a1();
        a2();
        hdr.h.d = hdr.h.d + (hdr.h2.isValid() ? 32w0x100 : 32w0);
""", top=_TOP, ingress_decls=_ACTIONS),
        frames=[(1, H(3)), (1, H(1, 1)), (1, H(2, 0)), (1, H(3, 0x80, d=3)), (1, H(4, 0x80, d=9)),
                (1, H2(5, 6, b=1)), (1, H2(7, 8, d=9))]),
]

# a function with a switch: fine where a control body calls it, or in an action's dead code
_SW = """
void sw(inout h_t x) { switch (x.a) { 1: { x.b = 2; } 0xee: { x.b = 3; } default: { x.c = 1; } } }
"""
CASES.append(case("fuzz17_function_switch_outside_actions", CAT, program("""
        sw(hdr.h);
        a3();
""", top=_SW, ingress_decls="""
    action a3() {
        if (hdr.h.d == 1) { hdr.h.d = 7; return; } else { return; }
        sw(hdr.h);
    }"""), frames=[(1, H(1)), (1, H(2, d=1)), (1, H2(5, 6))]))

_SWF = _SW + "void sw2(inout h_t x) { sw(x); }\nbit<8> sv(in bit<8> k) { switch (k) { 1: { return 3; } default: { return 4; } } }\n"
INVALID = {
    "function_switch_inlined_into_action": (program(
        "        a0();\n", top=_SWF, ingress_decls="    action a0() { sw(hdr.h); }\n"), ("switch",)),
    "function_switch_through_a_function_in_action": (program(
        "        a0();\n", top=_SWF, ingress_decls="    action a0() { sw2(hdr.h); }\n"), ("switch",)),
    "function_switch_in_a_mux_arm_in_action": (program(
        "        a0();\n", top=_SWF, ingress_decls="    action a0() { hdr.h.b = hdr.h.a == 2 ? sv(hdr.h.a) : 1; }\n"),
        ("switch",)),
}


# An action called from another action's body is pasted in by p4c's InlineActions before
# RemoveActionParameters runs: its copy-out comes after its body, so an `exit` in it skips the
# copy-out (the argument keeps its value from before the call), while the outermost action --
# called from the control or from a table -- copies its own arguments back before the exit.
# checkmate-switch copied every level back (found by a hand probe: `outer(hdr.h.b)` with
# `x = x + 0x10; inner(x);` and `inner` adding 1 and exiting gave 0x13 where BMv2 gives 0x12).
_NEST = """
    action inner(inout bit<8> x) { x = x + 1; hdr.h.c = 0x1111; exit; }
    action inner_h(inout h_t y) { y.b = 0x77; y.a = y.a + 1; exit; }
    action mid(inout bit<8> x) { x = x + 0x20; inner(x); x = 0; }
    action outer(inout bit<8> x) { x = x + 0x10; inner(x); x = 0; }
    action outer3(inout bit<8> x) { x = x + 0x10; mid(x); x = 0; }
    action outer_h(inout h_t y) { y.c = 0x2222; inner_h(y); y.c = 0; }
    action plain() { inner(hdr.h.a); hdr.h.a = 0; }
    action bound(inout bit<8> x, bit<8> v) { x = x + v; inner(x); }
    table t { key = { hdr.h.d: exact; } actions = { bound(hdr.h.b); NoAction; } default_action = NoAction(); }"""

CASES.append(case("fuzz17_nested_action_exit_skips_inner_copy_out", CAT, program("""
        if (hdr.h.d == 0) { outer(hdr.h.b); }
        else if (hdr.h.d == 1) { outer3(hdr.h.b); }
        else if (hdr.h.d == 2) { outer_h(hdr.h); }
        else if (hdr.h.d == 3) { plain(); }
        else if (hdr.h.d == 4) { t.apply(); }
        hdr.h.a = 0x55;
""", ingress_decls=_NEST), entries=[Entry("I.t", {"hdr.h.d": 4}, "I.bound", {"v": 0x40})],
    frames=[(1, H(1, 2, 3, d=d)) for d in range(6)]))


# An argument with a run-time stack index that the action's body never uses has no copy-in or
# copy-out (p4c elides it); one after another out/inout argument made checkmate-switch refuse
# the program when it looked for later copy-outs overwriting the earlier ones (fuzz_exprs seed
# 3416: `b0(hdr.opt.e0, hdr.opt.epad[4:1], hdr.stk[meta.m0].e1)`, "p4_device_config is
# malformed: TypeError").
CASES.append(case("fuzz17_elided_stack_argument_after_an_out_argument", CAT, stack_prog(
    "        b(hdr.s[0].b, hdr.s[hdr.s[0].a].a); hdr.s[0].c = 0x7777;\n", decls="""
    action b(inout bit<8> x, inout bit<8> y) { x = x + 1; }"""), frames=SFR))


# A union-member store in a sub-control body that the caller's next statements overwrite
# unread is dropped by p4c's def-use pass after inlining -- the store itself, not only its
# sibling invalidation: a `setValid()` of the member kept between the two then finds the member
# as it was before the store (invalid: BMv2's add_header makes it valid and invalidates the
# parsed sibling).  checkmate-switch kept the store's value, so the setValid found the member
# valid, did nothing, and the sibling stayed valid (fuzz_headers seed 3028: `hh.u.x = hh.h;
# hh.u.x.setValid();` in a sub-control, then an unwritten `out` argument copied into hdr.u.x).
# d == 1: the store is dead at one call site only (the other reads the member after the call).
_U_TOP = """
control S1(inout headers_t hh) { apply { hh.u.x = hh.h; hh.u.x.setValid(); hh.u.x.d = 5; } }
control S2(out h_t y) { apply { } }
"""
_U_PARSER = """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition select(hdr.h.a) { 3: pw; 4: px; default: accept; } }
    state pw { pkt.extract(hdr.u.w); transition accept; }
    state px { pkt.extract(hdr.u.x); transition accept; }"""
CASES.append(case("fuzz17_dead_union_store_in_subcontrol_before_set_valid", CAT, program("""
        if (hdr.h.d == 0) { s1.apply(hdr); s2.apply(hdr.u.x); }
        else if (hdr.h.d == 1) { s1.apply(hdr); hdr.h.b = hdr.u.x.b; }
        else { s1.apply(hdr); s2.apply(hdr.u.x); }
        hdr.h.c = (bit<16>)((bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.x.isValid());
""", headers="header u16_t { bit<8> a; bit<16> v; }\nheader_union u_t { h_t x; u16_t w; }\n", fields="    u_t u;\n",
    top=_U_TOP, ingress_decls="    S1() s1;\n    S2() s2;\n", parser=_U_PARSER,
    deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.u);"),
    frames=[(1, H(a, 1, 2, d=d, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3, 4) for d in (0, 1, 2)]))


# The same for a dead copy-back of an action's or a sub-control's `out` argument (probes after
# seed 3028): p4c drops the copy-back whole, so a setValid of the member before the overwrite
# finds it invalid and invalidates the parsed sibling (checkmate-switch made the copy-back without
# the sibling invalidation: the member was valid, the setValid did nothing).  A sub-control body
# that assigns the parameter an initializer keeps the initializer's setValid in place (d == 2:
# not a dead copy-back).  d == 4: a dead copy-back with nothing in between leaves u.w valid.
_U_TOP2 = """
control S2(out h_t y) { apply { } }
control S3(out h_t y) { apply { y = {1, 2, 3, 4}; } }
"""
CASES.append(case("fuzz17_dead_union_copy_back_before_set_valid", CAT, program("""
        if (hdr.h.d == 0) { a(hdr.u.x); hdr.u.x.setValid(); hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 1) { a(hdr.u.x); hdr.u.x.setValid(); s2.apply(hdr.u.x); }
        else if (hdr.h.d == 2) { s3.apply(hdr.u.x); s2.apply(hdr.u.x); }
        else if (hdr.h.d == 3) { s3.apply(hdr.u.x); hdr.u.x.setValid(); hdr.u.x = hdr.h2; }
        else { a(hdr.u.x); hdr.u.x = hdr.h2; }
        hdr.h.c = (bit<16>)((bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.x.isValid());
""", headers="header u16_t { bit<8> a; bit<16> v; }\nheader_union u_t { h_t x; u16_t w; }\n", fields="    u_t u;\n",
    top=_U_TOP2, ingress_decls="    S2() s2;\n    S3() s3;\n    action a(out h_t p) { p = {9, 9, 9, 9}; }\n", parser=_U_PARSER,
    deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.u);"),
    frames=[(1, H(a, 1, 2, d=d, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3, 4) for d in range(5)]))


# An action's copy-back p4c judges after inlining sub-controls, where `s2.apply(hdr.u.x)` with s2
# leaving its `out` parameter unwritten, passed in place, is only `hdr.u.x.setInvalid()` -- no
# overwrite: BMv2 makes the copy-back and invalidates u.w (left open here; fixed by helper fuzz18,
# union_defuse._after_inlining; checkmate-p4c took the call as an overwrite, the front end's view).
CASES.append(case("fuzz17_action_copy_back_before_in_place_out_subcontrol", CAT, program("""
        a(hdr.u.x); s2.apply(hdr.u.x);
        hdr.h.c = (bit<16>)((bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.x.isValid());
""", headers="header u16_t { bit<8> a; bit<16> v; }\nheader_union u_t { h_t x; u16_t w; }\n", fields="    u_t u;\n",
    top=_U_TOP2, ingress_decls="    S2() s2;\n    action a(out h_t p) { p = {9, 9, 9, 9}; }\n", parser=_U_PARSER,
    deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.u);"),
    frames=[(1, H(a, 1, 2, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3, 4)]))


# A switch on a value p4c's strength reduction makes constant (`x % 1`, `x - x`) keeps only the
# case it selects: the actions the other cases call stay out of the P4Info (fuzz_exprs seed 3825:
# `switch (hdr.outh.o2 % 2w1)`; checkmate-p4c folded literals only and kept `E.b0`).
CASES.append(case("fuzz17_switch_on_strength_reduced_constant", CAT, program("""
        switch (hdr.h.b % 8w1) { 1: { b0(); } 0: { hdr.h.a = 7; } default: { b0(); } }
        switch (hdr.h.c - hdr.h.c) { 0: { hdr.h.b = 3; } default: { b1(); } }
""", ingress_decls="    action b0() { hdr.h.d = 1; }\n    action b1() { hdr.h.d = 2; }\n")))
