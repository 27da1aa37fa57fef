"""Constructs left open by the earlier rounds and taken up by helper open8 (issue #15), each
decided by real p4c 1.2.4.8 / BMv2 1.15.5.

Header unions through an inlined sub-control.  p4c inlines a sub-control and uses an ``inout``
header argument in place, so each time the body makes a union member argument valid BMv2
invalidates the member's siblings -- also when the body makes it invalid again before it ends
(checkmate-switch passes such a member through a copy that records whether it was ever valid,
``gen_helpers._tracked``).  And p4c's def-use pass runs after the inlining: a union-member
store in the body that the caller overwrites after the call, unread, is dropped (BMv2 keeps
the sibling valid) -- per call site (``union_defuse.settle_body_stores``); a setValid or an
initializer (``= {...}``, a setValid for p4c) is kept."""
from .base import PAYLOAD, case, eth, hdr, program
from .fuzz_fuzzh import U_FR, U_HDR, U_PARSER

CAT = "front end (p4c-compatible)"
U_DEP = "        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.u);"
U_OBS = "        hdr.eth.src[2:0] = (bit<1>)hdr.u.x.isValid() ++ (bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.isValid();\n"


def _u_frames(bs):
    """U_FR, one frame with u.x parsed, and one with u.w parsed for each ``h.b`` in ``bs``."""
    return U_FR + [(1, eth(0x1234) + hdr(2, 5, 2, 3) + hdr(9, 8, 7, 6) + PAYLOAD)] + \
        [(2, eth(0x1234) + hdr(3, b, 2, 3) + bytes.fromhex("07620a") + PAYLOAD) for b in bs]


CASES = [
    # a union member passed as an inout/out header argument made valid and then invalid again
    # by the body (also only on one path, also by a whole-header assignment): its sibling
    # went invalid when it was made valid (it stayed valid on ours)
    case("open8_union_member_argument_valid_then_invalid", CAT, program(
        "        if (hdr.h.b == 1) { s1.apply(hdr.u.x); } else if (hdr.h.b == 4) { s2.apply(hdr.u.x); }\n"
        "        else if (hdr.h.b == 5) { s3.apply(hdr.u.x); } else if (hdr.h.b == 6) { s4.apply(hdr.u.x, hdr.h); }\n"
        "        else if (hdr.h.b == 7) { s5.apply(hdr.u.x); } else if (hdr.h.b == 2) { s6.apply(hdr.u.x); }\n" + U_OBS,
        headers=U_HDR, fields="    u_t u;\n", parser=U_PARSER, deparser=U_DEP,
        top="control S1(inout h_t y) { apply { y.setValid(); y.setInvalid(); } }\n"
            "control S2(out h_t y) { apply { y.setValid(); y.a = 1; y.setInvalid(); } }\n"
            "control S3(inout h_t y) { apply { y = { 1, 2, 3, 4 }; y.setInvalid(); } }\n"
            "control S4(inout h_t y, in h_t z) { apply { y = z; if (z.c == 2) { y.setInvalid(); } } }\n"
            "control S5(inout h_t y) { apply { if (y.isValid()) { y.setInvalid(); } else { y.setValid(); y.setInvalid(); } } }\n"
            "control S6(inout h_t y) { apply { y.setValid(); } }\n",
        ingress_decls="    S1() s1; S2() s2; S3() s3; S4() s4; S5() s5; S6() s6;\n"),
        frames=_u_frames((2, 6, 7)), json_path=True),

    # a union-member store in a sub-control body that the caller overwrites after the call,
    # unread: p4c drops it after inlining (the sibling stays valid) -- the last statement,
    # before writes of other fields, under an if, before another sub-control's overwrite; one
    # instance (s8) applied where it is dead and where the caller reads the member (kept).
    # Kept: a setValid of the argument (s6), an initializer (s14), and (s7) a dead copy-back
    case("open8_union_store_dead_across_inlined_control", CAT, program(
        "        if (hdr.h.b == 1) { s6.apply(hdr.u.x); hdr.u.x = hdr.h2; }\n"
        "        else if (hdr.h.b == 4) { s7.apply(hdr.u.x, hdr.h); hdr.u.x = hdr.h2; }\n"
        "        else if (hdr.h.b == 5) { s8.apply(hdr); hdr.u.x = hdr.h2; } else if (hdr.h.b == 6) { s9.apply(hdr); hdr.u.x = hdr.h2; }\n"
        "        else if (hdr.h.b == 7) { s8.apply(hdr); hdr.h.c = hdr.u.x.c; hdr.u.x = hdr.h2; }\n"
        "        else if (hdr.h.b == 2) { s10.apply(hdr); hdr.u.x = hdr.h2; }\n"
        "        else if (hdr.h.b == 8) { s11.apply(hdr); hdr.u.x = hdr.h2; } else if (hdr.h.b == 9) { s12.apply(hdr); hdr.u.x = hdr.h2; }\n"
        "        else if (hdr.h.b == 10) { s8.apply(hdr); s13.apply(hdr); }\n"
        "        else if (hdr.h.b == 11) { s8.apply(hdr); hdr.h.d = 7; hdr.u.x = hdr.h2; }\n"
        "        else if (hdr.h.b == 12) { s14.apply(hdr.u); hdr.u.x = hdr.h2; }\n" + U_OBS,
        headers=U_HDR, fields="    u_t u;\n", parser=U_PARSER, deparser=U_DEP,
        top="control S6(inout h_t y) { apply { y.setValid(); } }\n"
            "control S7(inout h_t y, in h_t z) { apply { y = z; } }\n"
            "control S8(inout headers_t hh) { apply { hh.u.x = hh.h; } }\n"
            "control S9(inout headers_t hh) { apply { hh.u.x = hh.h; hh.h.a = 1; } }\n"
            "control S10(inout headers_t hh) { apply { if (hh.h.c == 2) { hh.u.x = hh.h; } } }\n"
            "control S11(inout headers_t hh) { apply { hh.u.x = hh.h; hh.u.x.a = 3; } }\n"
            "control S12(inout headers_t hh) { apply { hh.u.x = hh.h; hh.eth.src = 1; } }\n"
            "control S13(inout headers_t hh) { apply { hh.u.x = hh.h2; } }\n"
            "control S14(inout u_t uu) { apply { uu.x = { 1, 2, 3, 4 }; } }\n",
        ingress_decls="    S6() s6; S7() s7; S8() s8; S9() s9; S10() s10; S11() s11; S12() s12; S13() s13; S14() s14;\n"),
        frames=_u_frames((2, 6, 7, 8, 9, 10, 11, 12)), json_path=True),
]

# p4c 1.2.4.8 refuses these (test_invalid.py takes them in): name -> (source, words of the message).
# p4c's constant propagation carries a constant stored in a local or a metadata field to a
# later run-time stack index and refuses the index it proves out of range
_STK = "    h_t[3] s;\n"
INVALID = {
    "stack_index_metadata_constant_out_of_range": (program(
        "        meta.m8 = 3;\n        hdr.h.b = 1;\n        hdr.s[meta.m8].a = 1;\n", fields=_STK), ("Array index 8w3",)),
    "stack_index_local_constant_out_of_range": (program(
        "        bit<8> ix = 3;\n        hdr.h.a = hdr.s[ix].a;\n", fields=_STK), ("Array index 8w3",)),
    # read under an if, written before it; computed from the constant; in egress; setValid
    "stack_index_constant_read_in_branch": (program(
        "        meta.m8 = 1;\n        if (hdr.h.a == 1) { hdr.s[meta.m8 + 2].a = 1; }\n", fields=_STK), ("Array index 8w3",)),
    "stack_index_constant_in_egress_set_valid": (program(
        "", egress="        meta.m16 = 5;\n        hdr.s[meta.m16].setValid();\n", fields=_STK), ("Array index 16w5",)),
    "stack_index_constant_in_action": (program(
        "        a();\n", fields=_STK, ingress_decls="    action a() { meta.m8 = 200; hdr.s[meta.m8] = hdr.h; }\n"),
        ("Array index 8w200",)),
}

# an action calling (p4c inlines it) an action whose body holds an exit, a method or an extern
# call, under an if or after a conditional return: p4c's BMv2 backend refuses the predicated
# call (fuzz_exprs seed 2008)
_A0 = "    action a0() { hdr.h.a = 1; exit; }\n"
INVALID.update({
    "action_exit_inlined_after_conditional_return": (program(
        "        a1();\n", ingress_decls=_A0 + "    action a1() { if (hdr.h.b == 1) { return; } a0(); }\n"),
        ("exit (in action I.a0", "conditional execution")),
    "action_exit_inlined_under_if_two_levels": (program(
        "        a2();\n", ingress_decls=_A0 + "    action a1() { hdr.h.c = 1; a0(); }\n"
                                      "    action a2() { if (hdr.h.b == 1) { a1(); } }\n"), ("conditional execution",)),
    "action_set_valid_inlined_under_if": (program(
        "        a1();\n", ingress_decls="    action a0() { hdr.h2.setValid(); }\n    action a1() { if (hdr.h.b == 1) { a0(); } }\n"),
        ("setValid", "conditional execution")),
    "action_counter_inlined_after_conditional_return": (program(
        "        a1();\n", ingress_decls="    counter(4, CounterType.packets) c;\n    action a0() { c.count(1); }\n"
                                        "    action a1() { if (hdr.h.b == 1) { return; } a0(); }\n"), ("c.count", "conditional execution")),
})
# ... and runs these: the call itself unconditional (an if before or after it), a callee
# without such a statement under an if
CASES.append(case("open8_action_exit_inlined_unconditionally", CAT, program(
    "        if (hdr.h.b == 1) { a1(); } else if (hdr.h.b == 2) { a2(); } else { a3(); }\n        hdr.h.d = 9;\n",
    ingress_decls=_A0 + "    action a1() { if (hdr.h.c == 3) { hdr.h.c = 2; } a0(); }\n"
                        "    action a2() { a0(); if (hdr.h.c == 3) { hdr.h.c = 2; } }\n"
                        "    action b0() { hdr.h.a = hdr.h.b + 1; }\n    action a3() { if (hdr.h.c == 3) { b0(); } }\n"),
    frames=[(1, eth(0x1234) + hdr(7, b, 3, 4) + PAYLOAD) for b in (1, 2, 3)]))

# ... and accepts these (an index a branch may change, one computed down into range, a slice
# write): checkmate-p4c must too -- they run as on BMv2 (the frames take the branch)
CASES.append(case("open8_stack_index_constant_not_proven", CAT, program(
    "        meta.m8 = 3;\n        if (hdr.h.a == 1) { meta.m8 = 1; }\n        hdr.s[meta.m8].a = 1;\n"
    "        meta.m16 = 3;\n        meta.m16 = meta.m16 - 1;\n        hdr.s[meta.m16].b = 2;\n"
    "        bit<8> k = 3;\n        k[1:0] = 0;\n        hdr.s[k].c = 3;\n"
    "        hdr.h.c = meta.m8 ++ meta.m16[7:0];\n", fields=_STK,
    deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"),
    frames=[(1, eth(0x1234) + hdr(1, 2, 3, 4) + PAYLOAD), (2, eth(0x1234) + hdr(1, 7, 3, 4) + PAYLOAD)]))

# fuzz_headers seed 2071: an initializer into a header whose element reads that header through a
# ?: under an operation p4c's strength reduction removes first (`0 | (c ? h.x : 0)`, `x * 1`,
# `(0 ++ x)[w-1:0]`, ...): the ?: is then a whole element, hoisted before the header is built,
# so the header becomes valid on BMv2 (it stayed invalid on ours); `|+| 0` is not reduced
_C = "(hdr.{0}.isValid() ? (bit<32>)hdr.{0}.c : 32w0)"
CASES.append(case("open8_initializer_read_hoisted_after_strength_reduction", CAT, program(
    f"        hdr.h2 = {{ a = 1, b = 1, c = 1, d = (32w0 | {_C.format('h2')}) }};\n"
    f"        hdr.s[0] = {{ 2, 2, 2, ({_C.format('s[0]')} * 32w1) ^ 0 }};\n"
    f"        hdr.s[1] = {{ a = 3, b = 3, c = 3, d = (32w0 ++ {_C.format('s[1]')})[31:0] }};\n"
    f"        hdr.s[2] = {{ 4, 4, 4, ({_C.format('s[2]')} |+| 32w0) }};\n"
    "        hdr.eth.src[3:0] = (bit<1>)hdr.s[0].isValid() ++ (bit<1>)hdr.s[1].isValid() ++ "
    "(bit<1>)hdr.s[2].isValid() ++ (bit<1>)hdr.h2.isValid();\n",
    fields="    h_t[3] s;\n", deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.h2);\n"
                                "        pkt.emit(hdr.s);"),
    frames=[(1, eth(0x0800) + PAYLOAD), (2, eth(0x1234) + hdr(1, 2, 3, 4) + PAYLOAD)]))
