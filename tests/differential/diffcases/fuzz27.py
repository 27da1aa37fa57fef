"""Disagreements found by helper fuzz27 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import H, H2, case, program

CAT = "front end (p4c-compatible)"

CASES = []

# fuzz_exprs seed 10599 (fuzz26's open item): an action's out/inout arguments are copied back
# after its body -- RemoveActionParameters writes the copies for a table's action, InlineActions
# for a call -- and p4c's def-use drops a store the copy-back overwrites, so BMv2 never reads the
# element at a run-time index past the stack's end for it (p4c's JSON has an empty `a1`).
# checkmate-switch read it and dropped the packet (h.a = 3).  Per use: t3 copies back into s[2],
# where the store stays (taken only for an index in range: BMv2 dies on the read past the end).
_STK_PARSER = """
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.h); pkt.extract(hdr.s[0]); pkt.extract(hdr.s[1]);
                  pkt.extract(hdr.s[2]); transition accept; }
"""
_STK = dict(headers="header e_t { bit<8> x; }\n", fields="    e_t[3] s;\n", parser=_STK_PARSER,
            deparser="        pkt.emit(hdr.eth); pkt.emit(hdr.h); pkt.emit(hdr.s);\n")
_STK_FR = [(1, H(a, 0x11, 0x2233, 0x44556677)) for a in (0, 1, 2, 3)]
_COPY_BACK = """
    action a1(inout e_t q) { hdr.s[0] = hdr.s[hdr.h.a[1:0]]; }
    action a2(inout bit<8> q) { hdr.s[1].x = hdr.s[hdr.h.a[1:0]].x + 1; }
    action a3(inout e_t q, inout bit<8> r) { hdr.h.b = hdr.s[hdr.h.a[1:0]].x; { hdr.s[2] = hdr.s[hdr.h.a[1:0]]; } }
    table t1 { actions = { a1(hdr.s[0]); } default_action = a1(hdr.s[0]); }
    table t2 { actions = { a2(hdr.s[1].x); } default_action = a2(hdr.s[1].x); }
    table t3 { actions = { a1(hdr.s[2]); } default_action = a1(hdr.s[2]); }
    table t4 { actions = { a3(hdr.s[2], hdr.h.b); } default_action = a3(hdr.s[2], hdr.h.b); }
"""
for _name, _body in [
        ("table_action", "        t1.apply();\n"),
        ("table_action_field", "        t2.apply();\n"),
        ("table_action_two_arguments_in_a_block", "        t4.apply();\n"),
        ("table_action_live_at_another_table", "        t1.apply();\n        if (hdr.h.a < 3) { t3.apply(); }\n"),
        ("direct_call", "        a1(hdr.s[0]);\n"),
        ("direct_call_field", "        a2(hdr.s[1].x);\n")]:
    CASES.append(case(f"fuzz27_dead_stack_read_overwritten_by_copy_back_{_name}", "stacks", program(
        _body + "        hdr.h.c = 0x7777;\n", ingress_decls=_COPY_BACK, **_STK), frames=_STK_FR))

# fuzz_exprs seed 10417 (fuzz26's open item; lead40's rule): p4c's front-end SimplifyDefUse is
# blind to an `exit` in a sub-control body, so it drops a store overwritten after the apply; the
# statements in between may be an `if`, `switch`, block, loop (spelled out for p4c), setValid /
# setInvalid, a function call ... when they neither read nor write the stored path (measured on
# p4c's JSON).  An isValid() reads only the validity; a run-time stack index touches the same
# member of every element.  checkmate-p4c let only an `if` of plain assignments through, so where
# SC exits (h.b != 0) it sent the stored value, BMv2 the parsed one.  Guards (kept by p4c too):
# the same member at a run-time index, an isValid() of a whole header stored, a function's inout
# argument, all agreeing before.
_SC = dict(_STK, headers="header e_t { bit<8> x; bit<8> y; }\n",
           top="control SC(in bit<8> v) { apply { if (v != 0) { exit; } } }\n"
               "bit<8> f(in bool b) { return b ? 8w1 : 8w2; }\nbit<8> g(inout bit<8> b) { b = b + 1; return b; }\n",
           ingress_decls="    SC() sc;\n")
_SC_FR = [(1, H(a, b, c, 0x44556677) + bytes([0x30 + a])) for a in (0, 1) for b in (0, 5) for c in (1, 2)]


def _across(store: str, then: str, other: str = "") -> str:
    return program(f"        {store}\n        sc.apply(hdr.h.b);\n"
                   f"        if (hdr.h.c == 1) {{\n            {then}\n        }} else {{\n            {other}\n        }}\n"
                   "        hdr.s[0] = {9, 9};\n", **_SC)


_F = "hdr.s[0].x = hdr.h.a + 1;"
_W = "hdr.s[0] = {hdr.h.a, 3};"
for _name, _store, _then, _else in [
        ("set_valid", _F, "hdr.s[0].setValid();", ""),
        ("set_invalid_of_a_whole_header", _W, "hdr.s[0].setInvalid();", ""),
        ("is_valid_read", _F, "if (hdr.s[0].isValid()) { hdr.h.d = 1; }", ""),
        ("run_time_index_write_of_another_member", _F, "", "hdr.s[hdr.h.a[0:0]].y = hdr.h.b;"),
        ("run_time_index_read_of_another_member", _F, "hdr.h.d = (bit<32>)hdr.s[hdr.h.a[0:0]].y;", ""),
        ("function_call", _F, "hdr.h.d = (bit<32>)f(hdr.h.b == 2);", "f(hdr.h.b == 3);"),
        ("function_inout_argument_elsewhere", _W, "hdr.h.d = (bit<32>)g(hdr.h.b);", ""),
        ("switch_and_block", _F, "switch (hdr.h.b) { 2: { hdr.h.d = 5; } }", "{ bit<8> l = hdr.h.b; hdr.h.d = (bit<32>)l; }"),
        ("nested_if", _F, "if (hdr.h.b == 3) { hdr.s[1].setValid(); } else { hdr.h.d = 6; }", ""),
        ("kept_run_time_index_write_of_the_member", _F, "", "hdr.s[hdr.h.a[0:0]].x = hdr.h.b;"),
        ("kept_run_time_index_read_of_the_member", _F, "hdr.h.d = (bit<32>)hdr.s[hdr.h.a[0:0]].x;", ""),
        ("kept_is_valid_of_a_whole_header", _W, "if (hdr.s[0].isValid()) { hdr.h.d = 1; }", ""),
        ("kept_function_inout_argument", _W, "hdr.h.d = (bit<32>)g(hdr.s[0].y);", "")]:
    CASES.append(case(f"fuzz27_store_before_an_exiting_sub_control_across_{_name}", CAT,
                      _across(_store, _then, _else), frames=_SC_FR))

# fuzz_exprs seed 10852: p4c 1.2.4.8 has no loops -- the reference spells a loop out, a constant
# declaration of its variable per iteration -- and its midend propagates those constants and
# folds `a ++ b` of constants as (a << |b|) + b, so a negative signed right operand borrows from
# the left one (fuzz_exprs 5660's literal rule): `(int<3>)(int<4>)fi ++ (int<2>)(int<4>)fi` is
# -5 for fi = 7 (not -1), and the `if` below is not taken.  checkmate-p4c kept the loop and
# concatenated the bits at run time.  Now a `++` whose operands are made of constants and loop
# variables the body does not write (a `for (.. in {..})` over constants, a three-part `for`
# with a constant start, condition and update) does the same at run time.
_LOOP_BODY = ("            if (((int<3>)(int<4>)fi ++ (int<2>)(int<4>)fi) >= -1) { hdr.h.b = hdr.h.b + 1; }\n"
              "            hdr.h.d = hdr.h.d + (bit<32>)(bit<5>)((int<3>)(int<4>)fi ++ (int<2>)(int<4>)(fi + 1));\n")


def _spelled_out(values) -> str:
    return program("".join(f"        {{ bit<4> fi = {v};\n{_LOOP_BODY}        }}\n" for v in values))


CASES.append(case("fuzz27_concat_of_loop_constants_folded_as_p4c_for_in", CAT, program(
    "        for (bit<4> fi in {7, 13, 11, 5}) {\n" + _LOOP_BODY + "        }\n"),
    ref_source=_spelled_out([7, 13, 11, 5])))
CASES.append(case("fuzz27_concat_of_loop_constants_folded_as_p4c_three_part_for", CAT, program(
    "        for (bit<4> fi = 5; fi <= 7; fi = fi + 1) {\n" + _LOOP_BODY + "        }\n"),
    ref_source=_spelled_out([5, 6, 7])))

# fuzz_exprs seed 10995, the same fold through p4c's constant propagation: a sub-control's `out`
# argument set to a constant (p4c inlines the body first), or a local holding one, makes the
# `++` constant for p4c's midend: `6s5 ++ v` with v = -2 is (5 << 2) - 2 = 0x12 on BMv2, not 0x16.
# checkmate-p4c marks a `++` that its propagation (const_index, which never keeps a constant p4c
# drops) proves constant.  A guard: v from a header field stays a run-time concatenation.
_OUT_SC = "control SO(out int<2> p) { apply { p = (-2s1 - 2s1); } }\n"
CASES.append(case("fuzz27_concat_folded_as_p4c_after_a_sub_control_out_argument", CAT, program(
    "        int<2> v = (int<2>)hdr.h.a[1:0];\n        so.apply(v);\n"
    "        hdr.h.b = (bit<8>)((-6s31 - 6s1) ++ v);\n", top=_OUT_SC, ingress_decls="    SO() so;\n")))
CASES.append(case("fuzz27_concat_folded_as_p4c_of_a_local_constant", CAT, program(
    "        int<2> v = -2;\n        hdr.h.b = (bit<8>)(6s5 ++ v);\n"
    "        int<2> w = (int<2>)hdr.h.a[1:0];\n        hdr.h.c = (bit<16>)(bit<8>)(6s5 ++ w);\n")))

# fuzz_exprs seed 11101 (reduced): lead10's rule -- p4c's def-use takes a header initializer that
# reads its own header (BMv2 leaves the header invalid and writes no field) as a definition of
# every field, and drops an earlier store to a field it does not read -- also reaches into a direct
# action call before it (p4c has inlined the call), in a `switch` case too, and an isValid() of
# the header in the initializer reads no field.  BMv2 keeps h2.c as parsed; checkmate-switch wrote
# 342 (0x0156).  The call runs a copy of the action without the dead store (dead_reads' variants).
_A342 = "    action a1(in bit<8> q) { hdr.h.setValid(); hdr.h2.c = 342; hdr.h.d = 7; }\n"
_SELF = "        hdr.h2 = {a = ~hdr.h2.a, b = 1, c = 2, d = 3};\n        hdr.h.c = hdr.h2.c;\n"
_SELF_V = ("        hdr.h2 = {a = ~hdr.h2.a, b = 1, c = 2, d = (hdr.h.b == 1) ? 32w3 : (hdr.h2.isValid() ? 32w4 : 32w5)};\n"
           "        hdr.h.c = hdr.h2.c;\n")
_FR_H2 = [(1, H2(0x31, 0x32, 0x3334, 0x35363738, b=1)), (1, H2(0x41, 0x42, 0x4344, 0x45464748, b=2))]
for _name, _body in [("an_action_call", "        a1(1);\n" + _SELF),
                     ("an_action_call_in_a_default_switch_case",
                      "        switch (hdr.h.b) { default: { a1(1); } }\n" + _SELF),
                     ("an_initializer_reading_the_validity", "        hdr.h2.c = 342;\n" + _SELF_V),
                     # (a function called in another case reads and writes its arguments only)
                     ("an_action_call_next_to_a_function_call",
                      "        switch (hdr.h.b) { 1: { tick(meta.m8); } default: { a1(1); } }\n" + _SELF)]:
    CASES.append(case(f"fuzz27_store_before_self_init_dropped_through_{_name}", CAT,
                      program(_body, ingress_decls=_A342, top="bit<8> tick(inout bit<8> c) { c = c + 1; return c; }\n"),
                      frames=_FR_H2))

# fuzz_exprs seed 11600: p4c's strength reduction makes a slice of a left shift by a constant
# past the slice's high bit 0 (`((bit<15>)x << 14)[4:1]`), so `switch ((En_t)(..)[4:1])` is a
# switch on an enum cast from a constant, which p4c's front end folds to its `default` (none here:
# nothing runs, fuzz25's rule); checkmate-p4c ran the case that matched 0 at run time.  An `if`
# on such a slice is folded too (its table stays out of the P4Info).
CASES.append(case("fuzz27_switch_on_an_enum_cast_of_a_slice_of_a_shift_folded", CAT, program(
    "        switch ((En_t)(((bit<15>)hdr.h.a << 14))[4:1]) {\n"
    "            En_t.A:\n            En_t.C: { hdr.h.b = 0x77; }\n        }\n"
    "        if ((((bit<15>)hdr.h.a << 12))[11:4] == 0) { hdr.h.c = 0x5555; } else { t.apply(); }\n",
    top="enum bit<4> En_t { A = 4, B = 8, C = 0 }\n",
    ingress_decls="    action sd() { hdr.h.d = 9; }\n    table t { actions = { sd; } default_action = sd(); }\n")))
