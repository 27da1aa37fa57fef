"""Disagreements found by helper fuzz21 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.

An unconditional ``exit`` in an action does not end p4c's conditional-execution check: only what
follows a ``return`` is removed unchecked.  A header initializer written directly under an ``if``
after the ``exit`` passes, but a function inlined there whose body holds a ``setValid`` -- an
initializer of its ``out`` header parameter included -- is the BMv2 target error
(fuzz_exprs seed 5030; ``INVALID``, taken in by ``test_invalid.py``); checkmate-p4c took the
rest of the action after an ``exit`` as unchecked for inlined functions too.
"""
from .base import H, H2, case, program

CAT = "front end (p4c-compatible)"

CASES = []

_F0 = """
bool f0(out h_t p0) {
    p0 = {1, 2, 3, 4};
    return p0.a == 1;
}
bool f1(out h_t p0) {
    p0.setValid();
    p0.a = 1;
    return p0.b == 1;
}
"""


def _after(verb: str, body: str) -> str:
    return program("        a1(hdr.h.b);\n", top=_F0, ingress_decls=f"""
    action a1(inout bit<8> q0) {{
        {verb};
        if (q0 == 3) {{ q0 = 1; }} else {{ {body} }}
    }}
""")


# accepted by both: a direct header initializer under the if after the exit, the function called
# unconditionally after it, and the function under the if after a return (removed unchecked)
CASES.append(case("fuzz21_function_after_exit_in_action_accepted", CAT, program("""
        if (hdr.h.a == 1) { a1(hdr.h.b); }
        else if (hdr.h.a == 2) { a2(hdr.h.b); }
        else { a3(hdr.h.b); }
""", top=_F0, ingress_decls="""
    action a1(inout bit<8> q0) { exit; if (q0 == 3) { q0 = 1; } else { hdr.h2 = {1, 2, 3, 4}; } }
    action a2(inout bit<8> q0) { exit; hdr.h.c = f0(hdr.h2) ? 16w1 : 16w2; if (q0 == 3) { q0 = 1; } }
    action a3(inout bit<8> q0) { return; if (q0 == 3) { q0 = 1; } else { hdr.h.c = f0(hdr.h2) ? 16w1 : 16w2; } }
"""), frames=[(1, H(a, b)) for a in (1, 2, 3) for b in (3, 4)]))

INVALID = {
    "fuzz21_function_initializer_under_if_after_exit_in_action": (
        _after("exit", "hdr.h.c = f0(hdr.h2) ? 16w1 : 16w2;"), ("conditional execution",)),
    "fuzz21_function_call_under_if_after_exit_in_action": (
        _after("exit", "f0(hdr.h2);"), ("conditional execution",)),
    "fuzz21_function_setvalid_under_if_after_exit_in_action": (
        _after("exit", "f1(hdr.h2);"), ("conditional execution",)),
}


# p4c folds an operation on constants before its strength reduction: `x + (8w5 - 8w5)` is `x`,
# so a `?:` element under it is hoisted out of a self-reading header initializer (the header is
# then made valid on BMv2; fuzz_headers seed 4428: `hdr.u.x = {.., (hdr.u.x.isValid() ? hdr.u.x.b
# : 0) + (8w0x5 - 8w0x5), ..}` in egress).  checkmate-p4c took the constant operand as an
# expression and the element as a read of the header (left invalid).  c == 4: a plain read under
# the folded identity stays a read (invalid on both).
CASES.append(case("fuzz21_self_init_identity_with_folded_constant", CAT, program("""
        if (hdr.h.c == 1) { hdr.h2 = {1, ((hdr.h2.isValid() ? hdr.h2.b : 8w0) + (8w5 - 8w5)), 3, 4}; }
        else if (hdr.h.c == 2) { hdr.h2 = {1, 2, 3, (hdr.h2.isValid() ? hdr.h2.d : 32w7) * (32w3 - 32w2)}; }
        else if (hdr.h.c == 3) { hdr.h2 = {1, ((hdr.h2.isValid() ? hdr.h2.b : 8w9) | (8w0xf0 & 8w0x0f)), 3, 4}; }
        else if (hdr.h.c == 4) { hdr.h2 = {1, 2, 3, hdr.h2.d + (32w5 - 32w5)}; }
        else if (hdr.h.c == 5) { hdr.h2 = {1, 2, 3, (hdr.h2.isValid() ? hdr.h2.d : 32w7) << (8w2 - 8w2)}; }
        hdr.h.b = (bit<8>)(bit<1>)hdr.h2.isValid();
"""), frames=[(1, H(7, 8, c, 9)) for c in range(1, 6)] + [(1, H2(1, 5, 6, 7, c=c)) for c in range(1, 6)]))


# `++` on signed operands: int<a> ++ int<b> is int<a+b>, and so is int<a> ++ a constant bit<b>
# (p4c 1.2.4.8 refuses int ++ bit and bit ++ int with a right operand that is not a constant where
# the value survives its dead-code removal -- its mid end casts the right operand to the result's
# type, sign and width at once; checkmate-p4c accepts those: left open, docs/conformance/RANDOM_PROGRAMS_12_23.md).
CASES.append(case("fuzz21_concat_signed_operands", "expressions", program("""
        int<13> x = (int<5>)(bit<5>)hdr.h.a ++ (int<8>)hdr.h.b;
        hdr.h.c = (bit<16>)(int<16>)x;
        int<13> y = (int<5>)(bit<5>)hdr.h.a ++ 8w0x81;
        hdr.h.d = (bit<32>)(int<32>)y;
        hdr.h.b = (bit<8>)((bit<4>)hdr.h.b ++ 4w0x3);
        if (((int<3>)(bit<3>)hdr.h.a ++ (int<5>)(bit<5>)hdr.h.b) < 0) { hdr.h.a = 0xff; }
"""), frames=[(1, H(a, b)) for a in (0x01, 0x1f, 0x90, 0x04) for b in (0x00, 0x7f, 0x80, 0xff)]))


# A header initializer in an action called from another action under a condition (after a
# conditional `return`) is the BMv2 target error -- unless the call copies an out/inout argument
# back into that same header and the callee's body only assigns it whole: p4c's def-use pass drops
# the initializer as a dead store after inlining (fuzz_exprs seed 5470, from the generator's
# sub-controls: `c0a0(hdr.stk[2])` with `hdr.stk[2] = {...}` in c0a0).  checkmate-p4c refused
# every such call.  Refused as p4c does (INVALID): another argument, a read of the header after
# the initializer, a setValid() call.
_C0 = """
    action c0(inout h_t q) { hdr.h2 = {1, 2, 3, 4}; }
    action c0o(out h_t q) { hdr.h2 = {1, 2, 3, 4}; }
    action c0r(inout h_t q) { hdr.h2 = {1, 2, 3, 4}; hdr.h.b = hdr.h2.a; }
    action c0v(inout h_t q) { hdr.h2.setValid(); }
"""
CASES.append(case("fuzz21_dead_initializer_in_inlined_action", CAT, program("""
        if (hdr.h.c == 1) { c1(); } else { c2(); }
""", ingress_decls=_C0 + """
    action c1() { if (hdr.h.a == 1) { return; } c0(hdr.h2); }
    action c2() { hdr.h.d = 9; if (hdr.h.a == 2) { return; } c0o(hdr.h2); }
"""), frames=[(1, H(a, 3, c)) for a in (1, 2, 3) for c in (1, 2)] + [(1, H2(a, 5, 6, 7, c=c)) for a in (1, 2) for c in (1, 2)]))

for _n, _body in (("other_argument", "c0(hdr.h);"), ("read_after", "c0r(hdr.h2);"), ("setvalid_call", "c0v(hdr.h2);")):
    INVALID[f"fuzz21_initializer_in_inlined_action_{_n}"] = (program(
        "        c1();\n", ingress_decls=_C0 + f"    action c1() {{ if (hdr.h.a == 1) {{ return; }} {_body} }}\n"),
        ("conditional execution",))


# p4c 1.2.4.8's LocalCopyPropagation takes a switch on a value with a single case (one label, no
# default) as if the case always ran (fuzz_exprs seed 5422, from the generator's enum switches):
# c 1x: a return in the case -- nothing after the switch runs, matched or not; c 2x: a constant the
# case assigns to a local is what later reads of it see, matched or not; c 3x: the same inside an if
# branch -- what follows the switch in the branch is dropped, what follows the if runs (the join);
# c 4x: two cases, or two labels on one case, are joined properly.  BMv2 shows p4c's reading.
CASES.append(case("fuzz21_single_case_switch_taken_as_always_run", CAT, program("""
        bit<8> x = 1;
        if (hdr.h.c[15:4] == 1) {
            switch (hdr.h.b) { 22: { hdr.h.a = 7; return; } }
            hdr.h.a = hdr.h.a + 1;
        } else if (hdr.h.c[15:4] == 2) {
            switch (hdr.h.b) { 22: { x = 5; } }
            hdr.h.a = x;
        } else if (hdr.h.c[15:4] == 3) {
            if (hdr.h.a != 0) {
                switch (hdr.h.b) { 22: { x = 6; return; } }
                hdr.h.d = 3;
            }
            hdr.h.a = hdr.h.a + 8 + x;
        } else {
            switch (hdr.h.b) { 21: 22: { x = 5; } }
            switch (hdr.h.b) { 22: { hdr.h.d = 4; return; } 23: { x = 2; } }
            hdr.h.a = x + 16;
        }
        hdr.h.d = hdr.h.d + 1;
"""), frames=[(1, H(a, b, c)) for a in (0, 1) for b in (21, 22, 23) for c in (0x10, 0x20, 0x30, 0x40)]))


# p4c folds a constant switch on a serializable enum whose value is written as a cast
# (`(E)(bit<4>)E.B`, `(E)4w5`) by comparing it with the labels as expressions: no enum member
# equals a cast, so it keeps the `default` case (or nothing) although the value is E.B (fuzz_exprs
# seeds 5462, 5467), also one constant only after strength reduction (`(E)(x - x + 4w5)`, seed 6144);
# `switch (E.B)` selects E.B.  checkmate-p4c selected the case by value.
_EN = "enum bit<4> En_t { A = 1, B = 5, C = 9 }\n"
CASES.append(case("fuzz21_constant_enum_switch_on_a_cast", CAT, program("""
        switch ((En_t)((bit<4>)En_t.B)) { En_t.B: { hdr.h.a = hdr.h.a + 1; } default: { hdr.h.b = 7; } }
        switch ((En_t)4w9) { En_t.C: { hdr.h.c = 3; } }
        switch (En_t.B) { En_t.B: { hdr.h.d = 4; } default: { hdr.h.d = 5; } }
        switch ((En_t)((hdr.h.b[3:0] - hdr.h.b[3:0]) + 4w5)) { En_t.B: { hdr.h.b = 8; } default: { hdr.h.c = 9; } }
""", top=_EN), frames=[(1, H(a, 1, 2, 3)) for a in (0, 0x10)]))


# p4c folds a concatenation of constants as (a << width(b)) + b, so a negative signed right
# operand borrows from the left one: 8s1 ++ -8s16 is 0x00f0 on BMv2, not 0x01f0 (fuzz_exprs seed
# 5660: `(10s1 ++ (-6s16)) - (0 - 265)`); a non-negative or unsigned right operand, and operands
# that are not both constants, concatenate bits.  checkmate concatenated the bits throughout.
# (p4c also folds where its mid end has propagated a field's value within one block: `h.a = ...;
# h2.c = (int<8>)(bit<8>)h.a ++ -8s1;` borrows on BMv2 too -- not modelled.)
CASES.append(case("fuzz21_constant_concat_negative_right_operand", "expressions", program("""
        hdr.h.d = (bit<32>)(bit<8>)((int<4>)(bit<4>)hdr.h.b[7:4] ++ (int<4>)(bit<4>)hdr.h.b[3:0]);
        hdr.h2.setValid();
        hdr.h2.c = (bit<16>)((int<8>)(bit<8>)hdr.h.a ++ (int<8>)(bit<8>)hdr.h.b);
        hdr.h.c = (bit<16>)(8s1 ++ (-8s16));
        hdr.h.a = (bit<8>)(4s2 ++ -4s3);
        hdr.h.b = (bit<8>)(4w2 ++ (bit<4>)(-4s3));
        hdr.h2.d = (bit<32>)((16s1 ++ 8s5) ++ -8s2);
"""), frames=[(1, H(1, 2, 3, 4)), (1, H(0xf0, 0x80))]))


# p4c folds no comparison with an enum value written as a cast of a constant (`(E)16w5 != E.C`):
# the `if` stays, so what follows its `return` is live and its tables stay in the P4Info (fuzz_exprs
# seed 5870: P4Info), also under `||` (no `true || x` short cut); `E.B != E.C` folds, and the table
# after it is dead.  checkmate-p4c folded them all.
CASES.append(case("fuzz21_enum_cast_comparison_not_folded", CAT, program("""
        if (hdr.h.a == 1) {
            if ((En_t)4w5 != En_t.C) { return; }
            t1.apply();
        } else if (hdr.h.a == 2) {
            if (En_t.B != En_t.C) { return; }
            t2.apply();
        } else if (hdr.h.a == 3) {
            if (((En_t)4w5 != En_t.C) || (hdr.h.b != hdr.h.b)) { return; }
            t3.apply();
        }
""", top=_EN, ingress_decls="""
    action s(bit<8> v) { hdr.h.b = v; }
    table t1 { key = { hdr.h.c: exact; } actions = { s; } default_action = s(1); }
    table t2 { key = { hdr.h.c: exact; } actions = { s; } default_action = s(2); }
    table t3 { key = { hdr.h.c: exact; } actions = { s; } default_action = s(3); }
"""), frames=[(1, H(a, 9, 3)) for a in (1, 2, 3, 4)]))


# The single-case switch above with its return under `if ((E)4w5 != E.C)`: p4c's front end keeps
# that `if` (the P4Info), its mid end folds it after EliminateSerEnums, so for the propagation the
# case returns on every path (fuzz_exprs seed 5422 once the comparison was no longer folded).
CASES.append(case("fuzz21_single_case_switch_enum_cast_return", CAT, program("""
        switch (hdr.h.b) { 22: { hdr.h.a = 7; if ((En_t)4w5 != En_t.C) { return; } } }
        hdr.h.d = hdr.h.d + 1;
""", top=_EN), frames=[(1, H(a, b, 3, 4)) for a in (0, 1) for b in (21, 22)]))
