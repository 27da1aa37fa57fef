"""Found by helper mutz33 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch must match (fuzz_mutants: p4c_mutate's mutants of the
differential cases, run on both switches)."""
from .base import DEFAULT_DEPARSER, Entry, case, program

CAT = "front end (p4c-compatible)"

_TOP = "struct dg_t { bit<16> c; }\nstruct dg2_t { bit<8> a; }\n"
_DIG = "        digest<dg2_t>(1, { hdr.h.a });\n"

# fuzz_mutants seeds 711, 735 (op_swap, select_key on open6_digest_in_deparser): p4c puts a
# deparser's extern calls in the deparser's `primitives` (generate_digest, log_msg, assert,
# truncate), which simple_switch runs -- a digest there sends nothing (BMv2 learns at the end of
# ingress); the BMv2-JSON loader refused p4c's JSON ("deparser primitives are not supported").
# (A hash there: simple_switch refuses the JSON -- tests/p4c/test_load_refused.py.)
CASES = [
    case(f"mutz33_deparser_primitives_on_p4c_json_{name}", "digests", program(
        "        if (hdr.h.a <= 1) { digest<dg_t>(1, { hdr.h.c }); }\n", top=_TOP, deparser=dep),
        json_path=True)
    for name, dep in [
        ("digest_before_the_emits", _DIG + DEFAULT_DEPARSER),
        ("digest_after_the_emits", DEFAULT_DEPARSER + "\n" + _DIG),
        ("log_msg", "        log_msg(\"a={}\", {hdr.h.a});\n" + DEFAULT_DEPARSER),
        ("truncate", "        truncate(20);\n" + DEFAULT_DEPARSER),
    ]
]

# fuzz_mutants seed 804 (op_swap on an action-exit case): p4c inlines an action call, so an exit in
# the called action ends the caller too, and what follows the call is removed unchecked -- a
# division p4c could not evaluate there is no error (BMv2 runs the program); checkmate-p4c
# refused it ("the divisor must be a compile-time power of two").  Through two calls too.
_EXIT = ("    action a0() { hdr.h.a = 1; exit; }\n"
         "    action a1() { hdr.h.b = hdr.h.b + 1; a0(); }\n")
CASES += [
    case(f"mutz33_code_after_a_call_of_an_exiting_action_removed_{name}", CAT, program(
        "        if (hdr.h.b == 2) { a2(); }\n        hdr.h.d = 9;\n", ingress_decls=_EXIT + a2),
        frames=[(1, bytes.fromhex("00000000000200000000000112340701000300000004")),
                (1, bytes.fromhex("00000000000200000000000112340702000300000004")),
                (1, bytes.fromhex("00000000000200000000000112340703000300000004"))])
    for name, a2 in [
        ("division", "    action a2() { a0(); if (hdr.h.c == 3) { hdr.h.c = 2; hdr.h.c = hdr.h.c / 3; } }\n"),
        ("division_through_two_calls", "    action a2() { a1(); hdr.h.c = hdr.h.c / 3; }\n"),
        ("guard_before_the_call", "    action a2() { hdr.h.c = hdr.h.c + 5; a1(); hdr.h.c = 7; }\n"),
    ]
]

# p4c_mutate seed 208 (name_clash on tbl_keyless): `@name("nop")` on an action nothing uses, declared
# before the `action nop()` a table lists -- p4c removes the unused one before it lists actions, so
# the P4Info's I.nop is the listed one (no parameters) and BMv2 runs it; checkmate-p4c took the first
# declared for the name and refused the table ("other control-plane parameters").
_NC = ("    action set_b(bit<8> v) { hdr.h.b = v; }\n"
       "    @name(\"nop\") action set_port(bit<9> p) { sm.egress_spec = p; }\n"
       "    action nop() { hdr.h.c = 0x77; }\n"
       "    table t { key = { hdr.h.a: exact; } actions = { set_b; nop; } default_action = set_b(0x42); }\n")
CASES.append(case("mutz33_unused_action_named_like_a_listed_one", CAT, program(
    "        t.apply();\n", ingress_decls=_NC),
    entries=[Entry("I.t", {"hdr.h.a": 1}, "I.nop"), Entry("I.t", {"hdr.h.a": 0xff}, "I.set_b", {"v": 9})]))

# fuzz_mutants seed 1229 (op_swap on fuzz26's single-case switch): p4c's front-end strength reduction
# makes `h.b = h.b - h.b` a store of 0 (also `x ^ x`, `x & 0`), so its constant propagation folds a
# later `h.b % 5` -- BMv2 runs the program; checkmate-p4c's propagation folded only constant
# values and refused the division ("the divisor must be a compile-time power of two").
CASES += [
    case(f"mutz33_store_of_a_strength_reduced_zero_folds_a_division_{name}", CAT, program(
        body + "        hdr.h.c = (bit<16>)(hdr.h.b ^ 3);\n"),
        frames=[(1, bytes.fromhex("000000000002000000000001123405020003000000040a0b")),
                (1, bytes.fromhex("000000000002000000000001123406020003000000040a0b"))])
    for name, body in [
        ("in_a_switch_case", "        switch (hdr.h.a) { 5: { hdr.h.b = hdr.h.b - hdr.h.b; hdr.h.b = hdr.h.b % 5; } }\n"),
        ("xor_in_an_if", "        if (hdr.h.a == 5) { hdr.h.b = hdr.h.b ^ hdr.h.b; hdr.h.b = hdr.h.b % 5; }\n"),
        ("and_zero", "        hdr.h.b = hdr.h.b & 0;\n        hdr.h.b = hdr.h.b % 5;\n"),
    ]
]

# p4c_mutate seed 619 (sub_wrap on corpus15_division_under_times_zero_is_removed): a sub-control stores
# `meta.m8 = hdr.h.a / 3` and the caller then assigns `meta.m8 = (meta.m8 / 5) * 8w0` -- p4c's
# strength reduction leaves no read of m8 there, so its def-use drops the sub-control's store (after
# inlining) with the division p4c could not evaluate; checkmate-p4c saw the read and refused it.
_SUB = "control S(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { meta.m8 = hdr.h.a / 3; } }\n"
CASES += [
    case(f"mutz33_sub_control_division_store_overwritten_by_a_reduced_value_{name}", CAT, program(
        "        s.apply(hdr, meta, sm);\n" + after + "        hdr.h.b = hdr.h.a + meta.m8;\n",
        top=_SUB, ingress_decls="    S() s;\n"))
    for name, after in [("times_zero", "        meta.m8 = (meta.m8 / 5) * 8w0;\n"),
                        ("minus_itself", "        meta.m8 = meta.m8 - meta.m8;\n")]
]
