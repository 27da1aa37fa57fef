"""p4c's constant propagation into run-time stack indices, the rest of its reach, what p4c checks
after an unconditional ``exit`` or ``return``, and a store p4c's def-use drops before a
self-reading header initializer (lead, round 10; issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5.

p4c carries a constant into a later stack index also through header fields, across a table
apply or an action call that does not write it, into a ``.hit``/``.miss`` branch and a
``switch`` case, and past an extern that writes something else (``switch/compiler/const_index``).
It forgets it where the table's or action's body writes it (p4c does not follow
``action_run`` into the action that ran), on ``setValid``/``setInvalid`` of the header and on a
whole-header assignment.  The cases compile the forgetting side and run it (before this round
checkmate-p4c refused the ``.hit`` and ``.miss`` ones: it kept the constant through the table a
condition applies); ``INVALID`` holds the refused side.

(BMv2 1.15.5 aborts loading p4c's JSON when a control starts with an assignment that reads a
stack element at a run-time index and applies a table after it -- ``Json::LogicError``,
"requires arrayValue" -- so the case applies its ``switch`` table first.)

After an unconditional ``return`` p4c removes the rest of an action before its BMv2 backend looks
for conditional execution: an ``exit``, a method or extern call, a ``setValid`` under an ``if``
there is accepted (checkmate-p4c refused them).  After an unconditional ``exit`` it still looks: an
action call there whose callee holds an ``exit``, a method or an extern call, under an ``if``, is
refused (checkmate-p4c accepted it) -- as the same statements written out were already."""
from .base import H, H2, case, program

CAT = "front end (p4c-compatible)"
_STK = "    h_t[3] s;\n"
_DECLS = ("    action setix(bit<8> v) { meta.m8 = v; }\n"
          "    action setb(bit<8> v) { hdr.h.b = v; }\n"
          "    action setc(bit<16> v) { hdr.h.c = v; }\n"
          "    table t1 { key = { hdr.h.a : exact; } actions = { setix; NoAction; } default_action = setix(1); }\n"
          "    table t2 { key = { hdr.h.a : exact; } actions = { setix; NoAction; } default_action = setix(2); }\n"
          "    table t3 { key = { hdr.h.a : exact; } actions = { setb; NoAction; } default_action = setb(0); }\n"
          "    table t4 { key = { hdr.h.a : exact; } actions = { setix; setc; } default_action = setix(0); }\n")
# the element at the run-time index written and read back into h (observable)
_USE = ("hdr.s[{i}].a = {v}; hdr.h.{f} = (bit<{w}>)hdr.s[{i}].a;")

CASES = [
    case("lead10_stack_index_constant_forgotten_by_table_in_condition", CAT, program(
        "        meta.m8 = 3;\n"
        "        switch (t4.apply().action_run) { setc: { hdr.h.d = 2; } }\n"
        "        hdr.s[meta.m8].a = 4; hdr.eth.src[7:0] = hdr.s[meta.m8].a;\n"
        "        meta.m8 = 3;\n"
        "        if (t1.apply().miss) { " + _USE.format(i="meta.m8", v=7, f="c", w=16) + " }\n"
        "        meta.m8 = 3;\n"
        "        if (t2.apply().hit) { hdr.h.d = 1; } else { " + _USE.format(i="meta.m8", v=8, f="d", w=32) + " }\n"
        "        hdr.h.b = 3;\n"
        "        t3.apply();\n"
        "        " + _USE.format(i="hdr.h.b", v=9, f="a", w=8) + "\n",
        fields=_STK, ingress_decls=_DECLS),
        frames=[(0, H(1, 2, 3, 4)), (1, H(0x22, 0, 0, 0)), (2, H2(5, 6))]),
    # the header's fields are forgotten on setValid/setInvalid and on a whole-header assignment
    # (at run time the value stays 3: the guarded reads never run)
    case("lead10_stack_index_header_field_forgotten", CAT, program(
        "        hdr.h2.b = 3;\n        hdr.h2.setInvalid();\n"
        "        if (hdr.h2.b < 3) { hdr.s[hdr.h2.b].setValid(); }\n"
        "        hdr.h2.b = 3;\n        hdr.h2.setValid();\n"
        "        if (hdr.h2.b < 3) { hdr.s[hdr.h2.b].setValid(); }\n"
        "        hdr.h2.b = 3;\n        hdr.h2 = hdr.h;\n"
        "        if (hdr.h2.b < 3) { hdr.s[hdr.h2.b].setValid(); hdr.h.c = 5; }\n",
        fields=_STK), frames=[(0, H(1, 2, 3, 4)), (1, H(1, 7, 0, 0)), (2, H2(5, 1))]),
]

# an action's rest after an unconditional return: dead, unchecked by p4c, never run
_RET = ("    counter(4, CounterType.packets) cnt;\n"
        "    action r1() { hdr.h.c = 1; return; if (hdr.h.b == 1) { exit; } }\n"
        "    action r2() { hdr.h.c = hdr.h.c + 2; return; if (hdr.h.b == 1) { cnt.count(1); } }\n"
        "    action r3() { hdr.h.d = 3; return; if (hdr.h.b == 1) { hdr.h2.setValid(); } }\n"
        "    action r4() { hdr.h.d = hdr.h.d + 4; return; if (hdr.h.b == 1) { mark_to_drop(sm); } }\n"
        "    action r5() { hdr.h.a = 5; return; if (hdr.h.b == 1) { hdr.h.setInvalid(); } }\n"
        "    action r6() { hdr.h.b = hdr.h.b + 6; { return; } if (hdr.h.b == 7) { exit; } }\n")
CASES.append(case("lead10_action_rest_after_return_unchecked", CAT, program(
    "        if (hdr.h.isValid()) { r1(); r2(); r3(); r4(); r5(); r6(); }\n", ingress_decls=_RET),
    frames=[(0, H(1, 1, 3, 4)), (1, H(9, 1, 0, 0)), (2, H2(5, 1))]))

_REG = "    register<bit<16>>(4) r;\n"
# p4c 1.2.4.8 refuses these (test_invalid.py takes them in): name -> (source, words of the message)
INVALID = {
    "stack_index_header_field_constant": (program(
        "        hdr.h.b = 3;\n        hdr.s[hdr.h.b].a = 1;\n", fields=_STK), ("Array index 8w3",)),
    "stack_index_constant_across_table_not_writing_it": (program(
        "        meta.m8 = 3;\n        t3.apply();\n        hdr.s[meta.m8].a = 1;\n", fields=_STK,
        ingress_decls=_DECLS), ("Array index 8w3",)),
    "stack_index_constant_into_hit_branch": (program(
        "        hdr.h.c = 4;\n        if (t1.apply().hit) { hdr.s[hdr.h.c].a = 1; }\n", fields=_STK,
        ingress_decls=_DECLS), ("Array index 16w4",)),
    "stack_index_constant_into_switch_case": (program(
        "        meta.m8 = 3;\n        switch (t3.apply().action_run) { setb: { hdr.s[meta.m8].a = 1; } }\n",
        fields=_STK, ingress_decls=_DECLS), ("Array index 8w3",)),
    "stack_index_constant_read_before_its_write": (program(
        "        hdr.h.b = 3;\n        hdr.h.b = hdr.h.b + 1;\n        hdr.s[hdr.h.b - 1].a = 1;\n", fields=_STK),
        ("Array index 8w3",)),
    "stack_index_constant_past_extern_writing_another_field": (program(
        "        meta.m8 = 3;\n        r.read(meta.m16, 0);\n        hdr.s[meta.m8].a = 1;\n", fields=_STK,
        ingress_decls=_REG), ("Array index 8w3",)),
    "stack_index_constant_past_register_write_of_it": (program(
        "        meta.m8 = 3;\n        r.write(0, (bit<16>)meta.m8);\n        hdr.s[meta.m8].a = 1;\n", fields=_STK,
        ingress_decls=_REG), ("Array index 8w3",)),
    "stack_index_constant_past_action_call_writing_another_field": (program(
        "        meta.m8 = 3;\n        setb(5);\n        hdr.s[meta.m8].a = 1;\n", fields=_STK,
        ingress_decls=_DECLS), ("Array index 8w3",)),
    "stack_index_constant_past_push_front": (program(
        "        meta.m8 = 3;\n        hdr.s.push_front(1);\n        hdr.s[meta.m8].a = 1;\n", fields=_STK),
        ("Array index 8w3",)),
}

# an action call under an if after an unconditional exit, the callee holding an exit / a method
# call / an extern call: p4c inlines it and refuses the predicated statement
_A0 = ("    counter(4, CounterType.packets) cnt;\n    action a0() { hdr.h.a = 1; exit; }\n"
       "    action c0() { cnt.count(1); }\n    action v0() { hdr.h.setInvalid(); }\n")
INVALID.update({
    "action_exit_inlined_under_if_after_exit": (program(
        "        a1();\n", ingress_decls=_A0 + "    action a1() { exit; if (hdr.h.b == 1) { a0(); } }\n"),
        ("conditional execution",)),
    "action_counter_inlined_under_if_after_exit": (program(
        "        a1();\n", ingress_decls=_A0 + "    action a1() { exit; if (hdr.h.b == 1) { c0(); } }\n"),
        ("cnt.count", "conditional execution")),
    "action_set_invalid_inlined_under_if_after_exit": (program(
        "        a1();\n", ingress_decls=_A0 + "    action a1() { exit; if (hdr.h.b == 1) { v0(); } }\n"),
        ("setInvalid", "conditional execution")),
})

# a control's rest after a statement that always returns (a return; a block or an if/else whose
# branches all return) is dead for p4c: a table applied again there is not a second apply
# ("a path from table t back to itself") nor a second successor, and a table applied only there
# leaves the P4Info (checkmate-p4c refused the first two).  After an exit, or a switch whose every
# case returns, p4c keeps what follows (test_invalid.py).
_TBL = ("    action seta(bit<8> v) { hdr.h.a = v; }\n"
        "    table t1 { key = { hdr.h.b : exact; } actions = { seta; NoAction; } default_action = seta(0x31); }\n"
        "    table t2 { key = { hdr.h.b : exact; } actions = { seta; NoAction; } default_action = seta(0x32); }\n")
CASES.append(case("lead10_control_rest_after_return_is_dead", CAT, program(
    "        t1.apply();\n"
    "        if (hdr.h.c == 1) { hdr.h.d = 1; return; } else { { hdr.h.d = 2; } return; }\n"
    "        t1.apply();\n        t2.apply();\n", ingress_decls=_TBL),
    frames=[(0, H(1, 1, 1, 4)), (1, H(9, 1, 0, 0))]))
INVALID.update({
    "table_applied_again_after_exit": (program(
        "        t1.apply();\n        exit;\n        t1.apply();\n", ingress_decls=_TBL), ("t1", "more than once")),
    "table_applied_again_after_switch_whose_cases_return": (program(
        "        t1.apply();\n        switch (hdr.h.b) { 1: { return; } default: { return; } }\n        t1.apply();\n",
        ingress_decls=_TBL), ("t1",)),
    "table_applied_again_after_conditional_return": (program(
        "        if (hdr.h.c == 1) { t1.apply(); return; }\n        t1.apply();\n", ingress_decls=_TBL), ("t1",)),
})

# p4c's def-use pass takes a header initializer that reads its own header (lowered as add_header,
# a never-valid temporary, assign_header: the header ends invalid, no field written) as a
# definition of every field, and drops an earlier store to a field the initializer does not read
# when nothing reads it in between; on BMv2 the field then keeps its value from before the store
# (fuzz_exprs seed 2465, minimised by the lead; checkmate-p4c kept the store)
CASES.append(case("lead10_store_before_self_reading_initializer_dropped", CAT, program(
    "        hdr.h2.c = 5; hdr.h.c = hdr.h2.c;\n"
    "        hdr.h2.b = 7;\n"
    "        bit<8> x = hdr.h.a + 1;\n"
    "        hdr.h2.a = 9;\n"
    "        hdr.h2 = {hdr.h2.a, 1, 2, 3};\n"
    "        hdr.h.b = hdr.h2.b; hdr.h.d = hdr.h2.a ++ (bit<24>)hdr.h2.c; hdr.h.a = x;\n"),
    frames=[(0, H2(0x41, 0x42, 0x43, 0x44)), (1, H2(1, 2, 3, 4)), (2, H(1, 2, 3, 4))]))
