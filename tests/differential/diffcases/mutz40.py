"""Found by helper mutz40 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5."""
from controller.entities import Entry

from .base import H, H2, PAYLOAD, VALUES, case, eth, hdr, program
from .fuzz11 import _REJ_BODY

CAT = "front end (p4c-compatible)"

# fuzz37's open item: a function with an inout argument called under a `?:` arm (or the right operand of
# `&&`/`||`) after a single-case switch whose case gave the argument a copy -- p4c's SideEffectOrdering
# puts the inlined call in an `if`, whose copy-in reads the copy: BMv2 writes tk(3) = 4 where the arm
# runs, also where the case did not run (checkmate read the variable: 0 + 1); past the statement the
# copy is ended by the join (the argument itself: 0 where neither ran).  An `out` argument has no copy-in.
_FR = [(1, H(a, b, 0x1234, d=0x10)) for a in (7, 8) for b in (0, 1)]
_TK = "bit<8> tk(inout bit<8> c) { c = c + 1; return c; }\nbit<8> tq(out bit<8> c) { c = 4; return 3; }\n"
_MC = {
    "inout": "switch (hdr.h.a) { 7: { meta.m8 = 3; } } hdr.h.d = (hdr.h.b == 0) ? (bit<32>)tk(meta.m8) : 9; hdr.h.c = (bit<16>)meta.m8;",
    "in_the_else_arm": "switch (hdr.h.a) { 7: { meta.m8 = 3; } } hdr.h.d = (hdr.h.b == 0) ? 9 : (bit<32>)tk(meta.m8); hdr.h.c = (bit<16>)meta.m8;",
    "plus_one": "switch (hdr.h.a) { 7: { meta.m8 = 3; } } hdr.h.d = (hdr.h.b == 0) ? (bit<32>)tk(meta.m8) + 1 : 9; hdr.h.c = (bit<16>)meta.m8;",
    "of_a_field": "switch (hdr.h.a) { 7: { hdr.h.b = 3; } } hdr.h.d = (hdr.h.c == 0x1234) ? (bit<32>)tk(hdr.h.b) : 9; hdr.h.c = (bit<16>)hdr.h.b;",
    "guard_out_argument": "switch (hdr.h.a) { 7: { meta.m8 = 3; } } hdr.h.d = (hdr.h.b == 0) ? (bit<32>)tq(meta.m8) : 9; hdr.h.c = (bit<16>)meta.m8;",
    "and": "switch (hdr.h.a) { 7: { meta.m8 = 3; } } if (hdr.h.b == 0 && tk(meta.m8) == 4) { hdr.h.d = 1; } hdr.h.c = (bit<16>)meta.m8;",
    "or": "switch (hdr.h.a) { 7: { meta.m8 = 3; } } if (hdr.h.b == 0 || tk(meta.m8) == 4) { hdr.h.d = 1; } hdr.h.c = (bit<16>)meta.m8;",
    "guard_reading_the_argument": "switch (hdr.h.a) { 7: { meta.m8 = 3; } } hdr.h.d = (meta.m8 == 3) ? (bit<32>)tk(meta.m8) : 9; hdr.h.c = (bit<16>)meta.m8;",
    "nested": "switch (hdr.h.a) { 7: { meta.m8 = 3; } } hdr.h.d = (hdr.h.b == 0) ? ((hdr.h.c == 0x1234) ? (bit<32>)tk(meta.m8) : 7) : 9; hdr.h.c = (bit<16>)meta.m8;",
    "both_arms": "switch (hdr.h.a) { 7: { meta.m8 = 3; } } hdr.h.d = (hdr.h.b == 0) ? (bit<32>)tk(meta.m8) : (bit<32>)tk(meta.m8) + 8; hdr.h.c = (bit<16>)meta.m8;",
    "other_arm_reads_it": "switch (hdr.h.a) { 7: { meta.m8 = 3; } } hdr.h.d = (hdr.h.b == 0) ? (bit<32>)tk(meta.m8) : (bit<32>)meta.m8; hdr.h.c = (bit<16>)meta.m8;",
    "guard_in_the_case": "switch (hdr.h.a) { 7: { meta.m8 = 3; hdr.h.d = (hdr.h.b == 0) ? (bit<32>)tk(meta.m8) : 9; } } hdr.h.c = (bit<16>)meta.m8;",
}
CASES = [
    case(f"mutz40_function_call_under_a_conditional_expression_in_a_single_case_switch_{name}", CAT,
         program("        " + body + "\n", top=_TK), frames=_FR)
    for name, body in _MC.items()
]

# fuzz_mutants --kinds action_if seed 3550: the flow past a single-case switch whose case returns (or
# exits) is not visited by p4c's front-end SimplifyDefUse: a read there uses no store, so a field store
# there that a later assignment of the field overwrites on every path is dropped -- also where that
# assignment, or a statement between, reads it (BMv2: `h.b = 0x11; h.b = h.b + 2;` in t2's action
# writes 0 + 2).  A store the end of the control reaches stays (guards).
_UNV_TBL = "    table t2 { actions = { a0; NoAction; } default_action = a0(); }\n"
_UNV_FR = [(1, H(3, b, 0x1234, d=0x10)) for b in (0, 5, 6)]
_UNV = {
    "in_an_action_if": ("if (hdr.h.b == 0) { hdr.h.b = 0x11; hdr.h.b = hdr.h.b + 2; } else { hdr.h.b = 0x11; }", "return", ""),
    "in_an_action": ("hdr.h.c = 1; hdr.h.c = hdr.h.c + 1;", "return", ""),
    "in_an_action_exit": ("hdr.h.c = 1; hdr.h.c = hdr.h.c + 1;", "exit", ""),
    "in_an_action_slice": ("hdr.h.c = 1; hdr.h.c[7:0] = hdr.h.c[15:8];", "return", ""),
    "in_an_action_read_between": ("hdr.h.c = 1; hdr.h.b = hdr.h.c[7:0]; hdr.h.c = hdr.h.c + 1;", "return", ""),
    "in_an_action_if_between": ("hdr.h.c = 1; if (hdr.h.b == 0) { hdr.h.d = 1; } hdr.h.c = hdr.h.c + 1;", "return", ""),
    "in_the_control": ("hdr.h.d = 3;", "return", " hdr.h.c = 1; hdr.h.d = (bit<32>)hdr.h.c; hdr.h.c = hdr.h.c + 1;"),
    "in_the_control_both_arms": ("hdr.h.d = 3;", "return", " hdr.h.c = 1; if (hdr.h.b == 0) { hdr.h.c = hdr.h.c + 1; } else { hdr.h.c = hdr.h.c + 2; }"),
    "in_an_action_overwritten_after_the_apply": ("hdr.h.c = 1;", "return", " hdr.h.c = hdr.h.c + 1;"),
    "in_an_action_overwritten_after_the_apply_in_both_arms": ("hdr.h.c = 1; hdr.h.d = 2;", "return", " if (hdr.h.b == 0) { hdr.h.c = hdr.h.c + 1; } else { hdr.h.c = 3; }"),
    # guards: the store reaches the end of the control on some path
    "guard_overwritten_after_the_apply_in_one_arm": ("hdr.h.c = 1;", "return", " if (hdr.h.b == 0) { hdr.h.c = hdr.h.c + 1; }"),
    "guard_read_only": ("hdr.h.c = 1; hdr.h.d = hdr.h.d + (bit<32>)hdr.h.c;", "return", ""),
    "guard_one_arm": ("hdr.h.d = 3;", "return", " hdr.h.c = 1; if (hdr.h.b == 0) { hdr.h.c = hdr.h.c + 1; }"),
}
CASES += [
    case(f"mutz40_field_store_overwritten_past_a_single_case_switch_whose_case_returns_{name}{'_after_an_exit' if pre else ''}", CAT, program(
        "        %sswitch (hdr.h.b) { 5: { %s; } } t2.apply();%s\n" % (pre, end, after),
        ingress_decls=f"    action a0() {{ {act} }}\n" + _UNV_TBL), frames=_UNV_FR)
    for name, (act, end, after) in _UNV.items()
    for pre in ("", "if (hdr.h.a == 2) { exit; } ")
]

# fuzz_mutants seed 3304 (select_key on fuzz11_store_before_rejecting_sub_parser_dropped): a sub-parser's
# select with no matching case and no default -- p4c's JSON has a null next state there, and p4c inlines
# the sub-parser, so BMv2 ends the whole parse (no error), as at `transition reject`; checkmate-switch
# returned to the caller's state as from `accept` (switch/runtime/gen_blocks.py).
_SUB_NM = ("parser Sub(packet_in p, out h_t x) {\n"
           "    state start { p.extract(x); transition select(x.a) { 1: reject; %s: accept; } } }\n")
CASES += [
    case(f"mutz40_sub_parser_select_without_a_match_ends_the_parse_{name}", CAT, program(_REJ_BODY, top=_SUB_NM % keyset, parser="""
    Sub() sub;
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: a; default: e; } }
    state a { meta.m32 = 5; sub.apply(pkt, hdr.h); meta.m32 = 7; transition accept; }
    state e { meta.m16 = 5; sub.apply(pkt, hdr.h); meta.m16 = 7; transition accept; }"""),
        frames=[(1, eth(t) + hdr(a, 2, 3, 4) + PAYLOAD) for t in (0x1234, 0x1235) for a in (1, 2, 3)])
    for name, keyset in (("masked", "1 &&& 0x1ff"), ("value", "3"), ("range", "3..4"))
]

# mutz39's open note: a copy in the caller reaches the table keys of a sub-control p4c inlines at the
# apply -- `hdr.h2.d = c ? a : b; sc.apply(hdr, meta);` with sc's `key = { hdr.h2.d: range; }` is p4c's
# `?:` temporary in the key, so BMv2 matches the `?:` value where h2 is invalid (not the invalid field's
# zeros); `= meta.m32`, `= hdr.h.d` likewise put the source into the key.
_SC_KEY = """control SC(inout headers_t hdr, inout meta_t meta) {
    action c(bit<16> v) { hdr.h.c = v; }
    table t2 { key = { hdr.h2.d: range; hdr.h2.c: lpm; } actions = { c; NoAction; } }
    apply { %s }
}
"""
_SCK = {
    "conditional_expression": ("hdr.h2.d = (hdr.h2.d != 1) ? (((0x55555555) != 2) ? (0x55555555) : hdr.h2.d) : hdr.h2.d;", "t2.apply();"),
    "metadata_field": ("meta.m32 = hdr.h.d ^ 1; hdr.h2.d = meta.m32;", "t2.apply();"),
    "valid_header_field": ("hdr.h2.d = hdr.h.d;", "t2.apply();"),
    "in_an_if_in_the_body": ("hdr.h2.d = (hdr.h2.d != 1) ? 32w0x55555555 : hdr.h2.d;", "if (hdr.h.a != 0x10) { t2.apply(); }"),
    # guards: the body writes the field first; a constant is no copy into a key
    "guard_written_in_the_body": ("hdr.h2.d = (hdr.h2.d != 1) ? 32w0x55555555 : hdr.h2.d;", "hdr.h2.d = 7; t2.apply();"),
    "guard_constant": ("hdr.h2.d = 0x55555555;", "t2.apply();"),
}
CASES += [
    case(f"mutz40_table_key_of_an_inlined_sub_control_read_as_the_caller_copy_{name}", CAT, program(
        f"        hdr.h2.c = 0x4444; {caller}\n        sc.apply(hdr, meta);\n",
        top=_SC_KEY % body, ingress_decls="    SC() sc;"),
        frames=VALUES + [(1, H(0xee, 1) + bytes(8))],
        entries=[Entry("I.sc.t2", {"hdr.h2.d": (0, 0), "hdr.h2.c": (0, 16)}, "I.sc.c", {"v": 3}, 1),
                 Entry("I.sc.t2", {"hdr.h2.d": (1, 0x7fffffff)}, "I.sc.c", {"v": 4}, 2),
                 Entry("I.sc.t2", {"hdr.h2.d": (0x80000000, 0xffffffff)}, "I.sc.c", {"v": 5}, 3)])
    for name, (caller, body) in _SCK.items()
]

# fuzz_mutants --kinds exit_stmt seed 3374 (on fuzz23_single_case_switch_copies_tuple_elements_past_
# function_calls): the mid end's LocalCopyPropagation does not visit the flow past a single-case switch
# whose case exits, and a local read only there loses its stores -- so does the parameter variable p4c's
# inliner makes for a function called there (`x_0 = hdr.h2; ..; hdr.h2 = x_0;`): BMv2 copies back the
# uninitialized variable (an invalid header: h2 is not emitted; a bit<8>: 0).
_FX = ("void fh(inout h_t x, in bool c) { if (c) { x.a = 9; } }\n"
       "void fb(inout bit<8> p) { p = p + 1; }\n"
       "void fo(out bit<8> p) { p = 4; }\n")
_FXC = {
    "header": "fh(hdr.h2, hdr.h.c == 3);",
    "header_taken": "fh(hdr.h2, hdr.h.c == 9);",
    "bit": "fb(hdr.h.b);",
    "out_bit": "fo(hdr.h.b);",
}
CASES += [
    case(f"mutz40_inlined_function_parameter_past_a_single_case_switch_whose_case_{end}s_{name}", CAT, program(
        f"        switch (hdr.h.a) {{ 5: {{ hdr.h.c = 7; {end}; }} }}\n        {call}\n        hdr.h.d = (bit<32>)hdr.h.c;\n",
        top=_FX), frames=[(1, H(4, 3, 9)), (1, H(5, 3, 9)), (1, eth(0x1234) + hdr(0xee, 3, 9) + hdr(1, 2, 3, 4) + PAYLOAD)])
    for name, call in _FXC.items() for end in ("exit", "return")
]
_FV = "bit<8> g(in bit<8> v) { return v + 1; }\nbit<8> gi(inout bit<8> v) { v = v + 2; return v + 1; }\n"
_FVC = {
    "value": "hdr.h.c = (bit<16>)g(hdr.h.b);",
    "value_in_a_condition": "if (g(hdr.h.b) == 4) { hdr.h.c = 1; }",
    "value_with_an_inout": "hdr.h.c = (bit<16>)gi(hdr.h.b);",
}
CASES += [
    case(f"mutz40_inlined_function_value_past_a_single_case_switch_whose_case_exits_{name}", CAT, program(
        f"        switch (hdr.h.a) {{ 5: {{ hdr.h.c = 7; exit; }} }}\n        {call}\n        hdr.h.d = (bit<32>)hdr.h.c;\n",
        top=_FV), frames=[(1, H(4, 3, 9)), (1, H(5, 3, 9))])
    for name, call in _FVC.items()
]

from .fuzz22 import _STK_PARSER  # noqa: E402

# fuzz_mutants --kinds mux_expr seed 1528 (the same base): p4c's def-use empties an `if` whose arms hold
# only dead stores and SimplifyControlFlow removes it, so BMv2 never evaluates its condition's `hdr.s[i]`
# (a `?:` condition too); checkmate-switch read it and dropped the packet for i past the end.
_EMPTIED = {
    "conditional_expression_condition": "if (((hdr.s[hdr.h.a[1:0]].x + 1) == hdr.h.b) ? ((hdr.s[hdr.h.a[1:0]].x + 1) != 2) : false) { hdr.h.b = hdr.s[hdr.h.a[1:0]].x + 1; }",
    "plain_condition": "if (hdr.s[hdr.h.a[1:0]].x == 1) { hdr.h.b = 3; } else { hdr.h.b = 4; }",
    # guard (i < 3 only: BMv2 dies reading past the end): an arm that keeps a statement keeps the if
    "guard_kept_arm": "if (hdr.s[hdr.h.a[1:0]].x == 0xa1) { hdr.h.b = 3; hdr.h.c = 9; }",
}
CASES += [
    case(f"mutz40_emptied_if_reading_a_stack_past_the_end_{name}", "stacks", program(f"""
        if (hdr.h.d[7:0] == 2) {{
            {body}
            hdr.s[0].x = 3;
            hdr.h.b = 7;
        }}
""", headers="header e_t { bit<8> x; }\n", fields="    e_t[3] s;\n", parser=_STK_PARSER),
        frames=[(1, H(a, 0x11, 0x2233, 2)) for a in range(3 if name.startswith("guard") else 4)])
    for name, body in _EMPTIED.items()
]
# fuzz_mutants --kinds stack_op seed 3793 (on fuzz22_dead_store_of_a_stack_read_past_the_end): a
# `pop_front`/`push_front` of another stack between a store and the assignment that overwrites it reads
# nothing of the target for p4c's def-use, so the store -- reading `hdr.s[i]` past the end -- is dropped
# and BMv2 forwards the packet; checkmate-switch evaluated the read and dropped it.
CASES += [
    case(f"mutz40_dead_store_of_a_stack_read_past_the_end_across_a_{op}", "stacks", program(f"""
        if (hdr.h.d[7:0] == 2) {{
            hdr.h.b = hdr.s[hdr.h.a[1:0]].x + 1;
            hdr.s.{op}(1); hdr.s[2].x = hdr.s[2].x + 1; hdr.s[0].x = 3;
            hdr.h.b = 7;
        }}
""", headers="header e_t { bit<8> x; }\n", fields="    e_t[3] s;\n", parser=_STK_PARSER),
        frames=[(1, H(a, 0x11, 0x2233, 2)) for a in range(4)])
    for op in ("pop_front", "push_front")
]

# fuzz_mutants --kinds mux_expr seed 1588 (on fuzz22_store_before_nested_self_initializer_dropped): the
# `if` after a store reads the field, its arm's store is dead before the self-reading initializer, so
# p4c's def-use empties the `if`, SimplifyControlFlow removes it with its condition, and the repeated
# def-use drops the store too: BMv2 reads h2.b as parsed after the initializer (which writes no field).
_SELF = {
    "conditional_expression": "hdr.h2.b = (hdr.h2.b != 1) ? (hdr.h.a) : hdr.h2.b; if (hdr.h2.b == 2) { hdr.h2.b = 7; }",
    "plain": "hdr.h2.b = hdr.h.a; if (hdr.h2.b == 2) { hdr.h2.b = 7; }",
    "plain_else": "hdr.h2.b = hdr.h.a; if (hdr.h2.b == 2) { hdr.h2.b = 7; } else { hdr.h2.b = 6; }",
    # guard: an arm that keeps a statement keeps the `if` and its read
    "guard_kept_arm": "hdr.h2.b = hdr.h.a; if (hdr.h2.b == 0xee) { hdr.h2.b = 7; meta.m8 = 1; } hdr.h.b = meta.m8;",
}
CASES += [
    case(f"mutz40_store_read_only_by_an_emptied_if_before_a_self_initializer_{name}", CAT, program(f"""
        {body}
        hdr.h2.d = 5;
        {{
            bit<8> l = hdr.h.b;
            {{ hdr.h2.setValid(); }}
            {{
                switch (hdr.h.b) {{ 0: {{ }} default: {{ hdr.h2.c = hdr.h2.c + 1; }} }}
                hdr.h2 = {{hdr.h2.a + 1, 7, 8, hdr.h2.d}};
            }}
        }}
        hdr.h.c = (bit<16>)hdr.h2.b;
        hdr.h.d = hdr.h2.d;
"""), frames=[(1, H2(3, 4, 5, 6, b=b)) for b in (0, 1)] + [(1, H(9, b)) for b in (0, 1)])
    for name, body in _SELF.items()
]

# The mid end's LocalCopyPropagation (past a single-case switch whose case exits) drops the stores of a
# `?:`'s temporary too -- a local read only in the flow it does not visit -- so the target reads 0.
_MX = {
    "plain": "hdr.h.c = (hdr.h.b == 3) ? 16w1 : 16w2;",
    "function_arm": "hdr.h.c = (hdr.h.b == 3) ? (bit<16>)g(hdr.h.b) : 16w2;",
    "condition": "if ((hdr.h.b == 3) ? true : hdr.h.a == 4) { hdr.h.c = 1; }",
}
CASES += [
    case(f"mutz40_conditional_expression_past_a_single_case_switch_whose_case_{end}s_{name}", CAT, program(
        f"        switch (hdr.h.a) {{ 5: {{ hdr.h.c = 7; {end}; }} }}\n        {body}\n        hdr.h.d = (bit<32>)hdr.h.c;\n",
        top=_FV), frames=[(1, H(4, 3, 9)), (1, H(4, 2, 9)), (1, H(5, 3, 9))])
    for name, body in _MX.items() for end in ("exit", "return")
]

# fuzz_mutants --kinds exit_stmt seed 3793 (on fuzz22_single_case_switch_drop_ends_at_next_return): past
# a single-case switch whose case returns, the mid end drops the statements up to the next `return` with
# it (the flag it sets included: elab_common.live_prefix); what follows a plain `return` is dead code, which
# checkmate ran (`h.d = 8` after `h.a = 7; return; switch (..) {..}`).
CASES.append(case("mutz40_dead_code_after_a_return_dropped_past_a_single_case_switch_whose_case_returns", CAT, program("""
        if (hdr.h.c == 2) {
            switch (hdr.h.b) { 5: { return; } }
            hdr.h.a = 7; return;
            switch (hdr.h.b) { 6: { return; } }
            hdr.h.d = 8;
        }
        hdr.h.c = hdr.h.c + 16;
"""), frames=[(1, H(1, b, c, d)) for b in (0, 5, 6) for c in (1, 2) for d in (0, 1)]))
