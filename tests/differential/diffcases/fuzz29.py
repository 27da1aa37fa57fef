"""Disagreements found by helper fuzz29 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import H, H2, case, program

CAT = "front end (p4c-compatible)"

CASES = []

_FR = [(1, H(a, b, 0x0102, 0x03040506 + a)) for a, b in ((5, 0x13), (6, 0x17), (5, 2), (6, 0x2e))]

# fuzz_exprs seed 12527 (fuzz28's open item): p4c's StrengthReduction folds `x - x` to 0 before
# LocalCopyPropagation, so an assignment `x = x - x` (`x -= x`) in the single case of a switch is a
# constant store that propagates past the switch (switch_copies), though its value names x.
for _name, _body in [
        ("a_self_subtraction", "hdr.h.b = hdr.h.b - hdr.h.b;"),
        ("a_self_subtraction_in_a_loop_spelled_out", "{ bit<8> i = 0; hdr.h.b = hdr.h.b - hdr.h.b; }"),]:
    CASES.append(case(f"fuzz29_single_case_switch_propagates_{_name}", CAT, program(
        f"        switch (hdr.h.a) {{ 5: {{ {_body} }} }}\n        hdr.h.c = (bit<16>)(hdr.h.b ^ 3);\n"),
        frames=_FR))

# fuzz_exprs seed 12527 itself: the store is in a `for` loop, which the reference spells out for
# p4c 1.2.4.8 (a block per iteration, the loop variable a constant declaration in each); the
# single case's straight-line part then holds each iteration's body with the variable's value put
# in (`switch_copies._unrolled`).  checkmate left the loop opaque.
_LOOPS = [
    ("a_self_subtraction_in_a_loop", "for (bit<8> i = 0; i < 1; i += 1) { hdr.h.b = hdr.h.b - hdr.h.b; }",
     "{ bit<8> i = 0; hdr.h.b = hdr.h.b - hdr.h.b; }"),
    ("the_last_iteration_of_a_loop", "for (bit<8> i = 0; i < 3; i += 1) { hdr.h.b = i + 4; }",
     "{ bit<8> i = 0; hdr.h.b = i + 4; } { bit<8> i = 1; hdr.h.b = i + 4; } { bit<8> i = 2; hdr.h.b = i + 4; }"),
    ("the_last_value_of_a_loop_over_a_list", "for (bit<8> v in {3, 9}) { hdr.h.b = v; }",
     "{ bit<8> v = 3; hdr.h.b = v; } { bit<8> v = 9; hdr.h.b = v; }"),
    ("a_loop_reading_a_field", "for (bit<8> i = 0; i < 2; i += 1) { hdr.h.b = hdr.h.a + i; }",
     "{ bit<8> i = 0; hdr.h.b = hdr.h.a + i; } { bit<8> i = 1; hdr.h.b = hdr.h.a + i; }"),]
for _name, _loop, _ref in _LOOPS:
    _prog = "        switch (hdr.h.a) {{ 5: {{ {} }} }}\n        hdr.h.c = (bit<16>)(hdr.h.b ^ 3);\n"
    CASES.append(case(f"fuzz29_single_case_switch_propagates_{_name}", CAT, program(_prog.format(_loop)),
                      frames=_FR, ref_source=program(_prog.format(_ref))))

# fuzz_exprs seed 12598 (fuzz28's open item): p4c's def-use drops a store to a field of a header
# before an initializer of that header that reads the header (`hdr.h2 = {a = ~hdr.h2.a, ..}`:
# header_init), walking back over the reference's spelled-out copies of a `for` loop that does not
# use the header; on BMv2 the initializer writes no field, so the field keeps its value from before
# the store.  checkmate's walk stopped at the loop and kept the store.  Guard: a loop that reads
# the field keeps it.
_SELF = "        hdr.h2 = {a = ~hdr.h2.a, b = 1, c = 2, d = 3};\n        hdr.h.c = hdr.h2.c;\n"
_FR_H2 = [(1, H2(0x31, 0x32, 0x3334, 0x35363738, b=1)), (1, H2(0x41, 0x42, 0x4344, 0x45464748, b=2))]
for _name, _loop, _ref in [
        ("over_a_list", "for (bit<8> i in {1, 2}) { meta.m8 = meta.m8 + i; }",
         "{ bit<8> i = 1; meta.m8 = meta.m8 + i; } { bit<8> i = 2; meta.m8 = meta.m8 + i; }"),
        ("with_a_continue", "for (bit<8> i = 0; i < 2; i += 1) { if (hdr.h.b == 1) { continue; } meta.m8 = i; }",
         "{ bit<8> i = 0; if (!(hdr.h.b == 1)) { meta.m8 = i; } } { bit<8> i = 1; if (!(hdr.h.b == 1)) { meta.m8 = i; } }"),
        ("kept_a_loop_reading_the_field", "for (bit<8> i in {1, 2}) { meta.m8 = hdr.h2.c[7:0] + i; }",
         "{ bit<8> i = 1; meta.m8 = hdr.h2.c[7:0] + i; } { bit<8> i = 2; meta.m8 = hdr.h2.c[7:0] + i; }")]:
    _prog = "        hdr.h2.c = 342;\n        LOOP\n" + _SELF + "        hdr.h.b = meta.m8;\n"
    CASES.append(case(f"fuzz29_store_before_self_init_dropped_across_a_loop_{_name}", CAT,
                      program(_prog.replace("LOOP", _loop)), frames=_FR_H2,
                      ref_source=program(_prog.replace("LOOP", _ref))))

# fuzz_exprs seed 12748: an action's inout/out header argument is copied back whole after the body
# (`a0(hdr.opt)`), so p4c's def-use drops the body's stores to that header (its initializer, a
# setValid(), a field) -- p4c's JSON has an empty action; on BMv2 the copy-back of an invalid header
# writes no field, so where the argument was invalid the header keeps the fields it had.
# checkmate-switch ran the stores (dead_reads.specialize_copy_out_bodies now drops them for such a
# use); a setValid() whose header is read before the copy-back stays.
_FR_OPT = [(1, H(1, 2, 0x0102, 0x03040506)), (1, H2(0x31, 0x32, 0x3334, 0x35363738, b=1))]
for _name, _act, _tbl in [
        ("a_header_initializer", "action a0(inout h_t q) { hdr.h2 = {a = 1, b = 2, c = 3, d = 4}; }", False),
        ("a_set_valid_and_a_field", "action a0(inout h_t q) { hdr.h2.setValid(); hdr.h2.c = 3; }", False),
        ("an_out_argument", "action a0(out h_t q) { hdr.h2 = {a = 1, b = 2, c = 3, d = 4}; }", False),
        ("a_table_s_default_action", "action a0(inout h_t q) { hdr.h2 = {a = 1, b = 2, c = 3, d = 4}; }", True),
        ("a_field_but_not_a_set_valid_read_after", "action a0(inout h_t q) { hdr.h2.setValid(); hdr.h2.c = 3; "
         "hdr.h.b = hdr.h2.b; }", False)]:
    _decls = f"    {_act}\n" + ("    table t { actions = { a0(hdr.h2); } default_action = a0(hdr.h2); }\n" if _tbl else "")
    CASES.append(case(f"fuzz29_action_header_copy_back_drops_the_body_s_{_name}", CAT, program(
        f"        {'t.apply()' if _tbl else 'a0(hdr.h2)'};\n        hdr.h.c = hdr.h2.c;\n        hdr.h.a = (bit<8>)hdr.h2.d;\n",
        ingress_decls=_decls), frames=_FR_OPT))

# fuzz_exprs seed 12990 (REJECT): a header initializer after a conditional `return` in an action is
# BMv2's "conditional execution in actions" error at each call (fuzz_exprs seed 8015) -- but not at a
# call in a branch p4c removes (`if (false)`, or one only its strength reduction folds): p4c accepts
# the program, the action unused.  checkmate-p4c judged the call there too.
for _name, _cond in [("a_literal_false", "false"), ("a_strength_reduced_condition", "(hdr.h.b & 0) != 0")]:
    CASES.append(case(f"fuzz29_conditional_header_init_in_an_action_called_in_{_name}_branch", CAT, program(
        f"        if ({_cond}) {{ a0(hdr.h.b); }}\n        hdr.h.c = 7;\n",
        ingress_decls="    action a0(inout bit<8> q) { if (meta.m8 == 1) { return; } hdr.h2 = {1, 2, 3, 4}; }\n"),
        frames=_FR_OPT))
