"""Minimal programs reduced from the random expression/statement programs of ``fuzz_exprs``
(fuzzx): each one is a disagreement with BMv2 that was found, reduced and fixed."""
from .base import H2, PAYLOAD, VALUES, case, eth, hdr, program

CAT = "random programs: expressions"

# h2 valid in some frames, invalid in others
BOTH = VALUES[:3] + [(1, H2(0x11, 0x22, 0x3344, 0x55667788)), (2, H2(0xff, 0, 0xffff, 1, b=7))]

STACK_PARSER = """\
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        pkt.extract(hdr.s[0]);
        transition select(hdr.h.a) {
            0xee: more;
            default: accept;
        }
    }
    state more {
        pkt.extract(hdr.s[1]);
        transition accept;
    }"""
STACK_DEPARSER = "        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"
STACK_FRAMES = [(1, eth(0x1234) + hdr(1, 2, 3, 4) + hdr(5, 6, 7, 8) + PAYLOAD),
                (2, eth(0x1234) + hdr(0xee, 1, 0, 1) + hdr(9, 10, 11, 12) + hdr(13, 14, 15, 16) + PAYLOAD),
                (3, eth(0x1234) + hdr(0xee, 0, 1, 0) + hdr(0x21, 0x22, 0x23, 0x24) + hdr(0x31, 0x32, 0x33, 0x34))]


BUMP = "bit<8> bump(inout bit<8> c) { c = c + 3; return c; }\n"


def stack_program(body: str) -> str:
    return program(body, fields="    h_t[2] s;\n", parser=STACK_PARSER, deparser=STACK_DEPARSER)


CASES = [
    # p4c 1.2.4.8 builds an initializer that reads its own destination header in a temporary
    # header it never validates (add_header h2; tmp.f = ...; assign_header h2 = tmp): on BMv2 h2
    # ends invalid, its fields zeroed by the add_header when it was invalid, else unchanged
    case("fuzzx_init_reads_target", CAT, program(
        "        hdr.h2 = {hdr.h2.a, 1, 2, 3};\n"
        "        hdr.h.b = hdr.h2.isValid() ? 8w1 : 8w0; hdr.h.c = hdr.h2.c; hdr.h.d = hdr.h2.d;\n"),
        frames=BOTH),
    case("fuzzx_init_named_reads_target", CAT, program(
        "        hdr.h2 = {a = 9, b = hdr.h2.b + 1, c = 2, d = 3}; hdr.h.b = hdr.h2.b;\n"
        "        hdr.h2.setValid();\n"), frames=BOTH),
    # ...not when the read sits in a ?: (p4c evaluates it into a temporary first: the value from
    # before the add_header), nor from another header.  The field an invalid h2 is read at is
    # written first: left unwritten it holds a stale PHV value, which BMv2's pool hands out by
    # timing (this case once failed so in a full run, and differed in 4 of 6 repeated runs)
    case("fuzzx_init_reads_target_in_mux", CAT, program(
        "        if (!hdr.h2.isValid()) { hdr.h2.a = 8w0x5a; }\n"
        "        hdr.h2 = {(hdr.h.b == 0) ? hdr.h2.a : 8w1, 2, hdr.h.c, 4};\n"), frames=BOTH),
    # a nested ?: stays in the expression, and isValid() of the target counts as a use
    case("fuzzx_init_nested_mux_isvalid", CAT, program(
        "        hdr.h2 = {1, (hdr.h2.isValid() ? 8w1 : 8w2) + 1, hdr.h.c, 4}; hdr.h.b = hdr.h2.b;\n"
        "        hdr.h2.setValid();\n"), frames=BOTH),
    case("fuzzx_init_top_mux_isvalid", CAT, program(
        "        hdr.h2 = {hdr.h2.isValid() ? 8w1 : 8w2, 1, hdr.h.c, 4};\n"), frames=BOTH),
    # ...nor when an element calls a function: p4c evaluates every element into a temporary first
    case("fuzzx_init_cast_mux_isvalid", CAT, program(
        "        if (!hdr.h2.isValid()) { hdr.h2.c = 16w0x5a5a; }  // (a known value, as above)\n"
        "        hdr.h2 = {1, (bit<8>)(hdr.h2.isValid() ? 4w1 : 4w2), ~(hdr.h.b == 0 ? hdr.h2.c : 16w3), 4};\n"
        "        hdr.h.b = hdr.h2.b; hdr.h.c = hdr.h2.c;\n"), frames=BOTH),
    case("fuzzx_init_reads_target_with_call", CAT, program(
        "        hdr.h2 = {hdr.h2.a, bump(meta.m8), hdr.h.c, 4}; hdr.h.b = meta.m8;\n", top=BUMP), frames=BOTH),
    case("fuzzx_init_reads_other", CAT, program(
        "        hdr.h2 = {hdr.h.a, hdr.h.b, 2, hdr.h.d};\n"), frames=BOTH),
    # stack elements: the same constant index, a different one, a run-time one (simple_switch
    # 1.15.5 dies on p4c's JSON for a run-time-indexed destination, so none here)
    case("fuzzx_init_stack_same", CAT, stack_program(
        "        hdr.s[1] = {hdr.s[1].a, 1, 2, 3}; hdr.h.b = hdr.s[1].b;\n"), frames=STACK_FRAMES),
    case("fuzzx_init_stack_other", CAT, stack_program(
        "        hdr.s[1] = {hdr.s[0].a, 1, 2, 3};\n"), frames=STACK_FRAMES),
    case("fuzzx_init_stack_runtime", CAT, stack_program(
        "        hdr.s[1] = {hdr.s[hdr.h.d[0:0]].a, 1, 2, 3}; hdr.h.b = hdr.s[1].b;\n"), frames=STACK_FRAMES),
    # a slice assignment whose right-hand side changes the sliced field (an inout argument): the
    # other bits are those after the call, as is a run-time index on the left (BMv2 evaluates the
    # right-hand side first)
    case("fuzzx_slice_assign_rhs_effect", CAT, program(
        "        hdr.h.a[0:0] = bump(hdr.h.a)[0:0]; hdr.h.c[11:4] = bump(hdr.h.c[11:4]) + 1;\n"
        "        meta.m8 = hdr.h.b; meta.m8[6:6] = (bit<1>)((bump(meta.m8) & 1) == 0 && (bump(meta.m8) & 2) == 2);\n"
        "        hdr.h.b = meta.m8;\n", top=BUMP)),
    case("fuzzx_index_rhs_effect", CAT, stack_program(
        "        meta.m8 = hdr.h.b; hdr.s[meta.m8[0:0]].b = bump(meta.m8); hdr.h.c[7:0] = meta.m8;\n"
        "        hdr.s[meta.m8[1:1]].c[3:0] = bump(meta.m8)[3:0];\n").replace("\nparser P", BUMP + "parser P"),
        frames=STACK_FRAMES),
    # p4c's strength reduction (x * 0, x & 0 -> 0) folds the condition: the branch is dead and its
    # action stays out of the P4Info (fuzzx seed 4004)
    case("fuzzx_strength_reduced_if", CAT, program(
        "        if (((bit<4>)hdr.h.a * 0) != 0) { a0(); } else if ((hdr.h.c & 0) == 1) { a1(); } else { hdr.h.b = 1; }\n",
        ingress_decls="    action a0() { hdr.h.a = 1; }\n    action a1() { hdr.h.a = 2; }\n")),
    # an action called only from a branch p4c folds away is removed before p4c's BMv2 checks: its
    # conditional setValid is no error (fuzzx seed 5124)
    case("fuzzx_dead_call_of_bad_action", CAT, program(
        "        if (-16s32768 >= -16s1) { a0(); } else { hdr.h.b = 1; }\n",
        ingress_decls="    action a0() { if (hdr.h.a == 1) { return; } hdr.h2.setValid(); }\n")),
    # a shift by a constant at or past the width is 0, but its left operand's call still runs
    # (fuzzx seed 5133)
    case("fuzzx_shift_out_keeps_call", CAT, program(
        "        tuple<bit<8>, bit<8>> t = {1, bump(hdr.h.a) << 9}; hdr.h.b = t[0] + t[1];\n"
        "        hdr.h.c[7:0] = bump(meta.m8) << 8; hdr.h.d[7:0] = meta.m8;\n", top=BUMP)),
    # an inout header argument of an action is a copy: the body's direct writes to the argument
    # are overwritten at copy-out (fuzzx seed 5119)
    case("fuzzx_action_inout_header_alias", CAT, program(
        "        b0(hdr.h); b1(hdr.h);\n",
        ingress_decls="    action b0(inout h_t q) { q.a = 1; hdr.h.b = 5; q.c = 7; }\n"
                      "    action b1(inout h_t q) { q.setValid(); hdr.h.d[3:0] = 5; }\n")),
]
