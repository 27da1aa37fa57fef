"""Found by helper mutz39 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch must match (``fuzz_mutants --kinds mux_expr``: p4c's
front end dismantles a ``?:`` into an ``if`` assigning a temporary)."""
from controller.entities import Entry

from .base import H, PAYLOAD, VALUES, case, eth, hdr, program
from .fuzz_fuzzp import SUB_REJECT_REPORT
from .fuzz_fuzzt import ACT
from .lead42 import _SUB
from .mutz29 import _COPY_PARSER

CAT = "front end (p4c-compatible)"

# fuzz_mutants --kinds mux_expr seed 251 (on lead42_store_before_select_default_and_rejecting_sub_parser):
# p4c turns a parser `if` into states before its def-use (a `?:` in its condition first into an `if`
# assigning a temporary), so a store in the `if`'s branch that the state after a sub-parser call
# overwrites is dead to it, as a store outside the `if` is (the call ends no path for p4c): p4c drops
# it and where the sub-parser rejects BMv2 sends m16's initial 0.  checkmate-p4c kept stores under a
# parser `if`.  A store that the rest of its branch or a later select reads stays.
_IF = {
    "conditional_expression_condition": "if ((meta.m16 < 8) ? ((hdr.eth.src[15:0]) != 2) : false) { %s }",
    "plain_condition": "if (meta.m16 < 8) { %s }",
    "else_branch": "if (hdr.eth.src[15:0] == 7) { meta.m8 = 3; } else { %s }",
    "nested_if": "if (meta.m16 < 8) { if (hdr.eth.src[15:0] != 2) { %s } }",
}
_STORE = {"dead": "meta.m16 = hdr.eth.src[15:0];",
          "read_in_its_branch": "meta.m16 = hdr.eth.src[15:0]; meta.m8 = (bit<8>)meta.m16 + 1;"}


def _if_parser(stmt: str) -> str:
    return """
    SubR() sub;
    state start { pkt.extract(hdr.eth); %s
                  transition select(hdr.eth.etype, hdr.eth.dst[7:0]) { default: ph; } }
    state ph { sub.apply(pkt, hdr.h, meta.m8); meta.m16 = (bit<16>)hdr.h.b; transition accept; }""" % stmt


_IF_FR = [(1, eth(0x1234) + hdr(5, 1, 2, 3) + hdr(7, 8, 9, 10) + PAYLOAD), (2, eth(0x1234) + hdr(6, 1, 2, 3) + PAYLOAD)]
CASES = [
    case(f"mutz39_parser_store_in_an_if_overwritten_after_a_sub_parser_{name}_{sname}", CAT,
         program(SUB_REJECT_REPORT, top=_SUB, parser=_if_parser(stmt % store)), frames=_IF_FR)
    for name, stmt in _IF.items() for sname, store in _STORE.items()
]

# The same with the `?:` on the right-hand side: `meta.m16 = tmp` goes, then the stores into tmp (read
# by no one), and what only the arms read with them; the `select` on the condition stays, and so does a
# store it reads (BMv2: dst[31:0] = the store's value where the sub-parser rejects).
_M32 = "meta.m32 = hdr.eth.src[31:0]; "
_RHS = {"condition_reads_a_store": _M32 + "meta.m16 = (meta.m32 == 1) ? 16w9 : 16w3;",
        "arms_read_a_store": _M32 + "meta.m16 = (hdr.eth.src[15:0] == 1) ? meta.m32[15:0] : 16w3;"}
CASES += [
    case(f"mutz39_parser_conditional_expression_store_overwritten_after_a_sub_parser_{name}", CAT,
         program(SUB_REJECT_REPORT + "        hdr.eth.dst[31:0] = meta.m32;\n", top=_SUB,
                 parser=_if_parser(stmt).replace("meta.m16 = (bit<16>)hdr.h.b;", "meta.m16 = (bit<16>)hdr.h.b; meta.m32 = 1;")),
         frames=_IF_FR)
    for name, stmt in _RHS.items()
]

# fuzz_mutants --kinds mux_expr seed 20 (on mutz29_stack_copies_propagated_past_extract_next), the half
# mutz38 left: p4c makes a parser's `hdr.s[0].d = c ? a : b` an `if` assigning tmp_0 and
# `hdr.s[0].d = tmp_0` in the state after it, so the mid end's copy propagation reads `hdr.s[0].d` as
# tmp_0 after `extract(hdr.s.next)` overwrote s[0] (BMv2: h.a = (h.d + 1 or s[0].d + 1)[7:0] + ..).
# checkmate-p4c read the extracted s[0].d.
_STALE_MUX = {
    "twice": "hdr.s[0].d = (hdr.s[0].d == 0) ? (hdr.h.d + 1) : hdr.s[0].d; "
             "hdr.s[0].d = (hdr.s[0].d != 3) ? hdr.s[0].d + 1 : hdr.s[0].d;",
    "of_fields": "hdr.s[0].d = (hdr.h.b == 2) ? (hdr.h.d + 1) : 32w7;",
}
CASES += [
    case(f"mutz39_parser_conditional_expression_store_copied_as_its_temporary_{name}", CAT, program(
        "", fields="    h_t[3] s;\n", parser=_COPY_PARSER.replace("hdr.s[0].d = hdr.h.d + 1;", mux)
        .replace("(bit<16>)hdr.s[1].b;", "16w3;"),   # (s[1] not extracted yet: BMv2's pooled PHV)
        deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"),
        frames=[(1, H(1, 2, 3, 4) + bytes(range(40))), (1, H(7, 9, 0xffff, 0xdeadbeef) + bytes(range(100, 140)))])
    for name, mux in _STALE_MUX.items()
]

# fuzz_mutants --kinds mux_expr seed 159 (on fz_key_of_invalid_header_is_zero): p4c's mid end propagates a
# copy into a table key that is a whole field -- `hdr.h2.d = tmp` (the `?:`'s temporary), `= meta.m32`,
# `= hdr.h.d` -- so the key reads the copy's source where h2 is invalid (BMv2 matches 0x55555555 or h.d
# there, not the invalid header's 0); a constant or a computed value is not propagated into a key.
# checkmate-switch read the invalid header's field as 0.
_KEY_TBL = """
    action c(bit<16> v) { hdr.h.c = v; }
    action w() { hdr.h2.d = 0x66; }
    table t2 { key = { hdr.h2.d: range; hdr.h2.c: lpm; } actions = { c; NoAction; } }
    table t { actions = { s; NoAction; } default_action = s(4); }
    table tw { actions = { w; NoAction; } default_action = w(); }
"""
_KEY = {
    "conditional_expression": "hdr.h2.d = (hdr.h2.d != 1) ? (((0x55555555) != 2) ? (0x55555555) : hdr.h2.d) : hdr.h2.d;",
    "metadata_field": "meta.m32 = hdr.h.d ^ 1; hdr.h2.d = meta.m32;",
    "valid_header_field": "hdr.h2.d = hdr.h.d;",
    "local_of_a_field": "bit<32> v = hdr.h.d; hdr.h2.d = v;",
    "computed_local": "bit<32> v = hdr.h.d + 1; hdr.h2.d = v;",
    "constant": "hdr.h2.d = 0x55555555;",
    "past_a_table_not_writing_it": "hdr.h2.d = (hdr.h2.d != 1) ? 32w0x55555555 : hdr.h2.d; t.apply();",
    "past_a_table_writing_it": "hdr.h2.d = (hdr.h2.d != 1) ? 32w0x55555555 : hdr.h2.d; tw.apply();",
    "in_an_if_after_it": "hdr.h2.d = hdr.h.d; if (hdr.h.a != 0x10) {",
}
CASES += [
    case(f"mutz39_whole_field_table_key_read_as_the_copy_propagated_into_it_{name}", CAT, program(
        f"        hdr.h2.c = 0x4444; {body}\n        t2.apply();{' }' * body.endswith('{')}\n",
        ingress_decls=ACT + _KEY_TBL),
        frames=VALUES + [(1, H(0xee, 1) + bytes(8))],
        entries=[Entry("I.t2", {"hdr.h2.d": (0, 0), "hdr.h2.c": (0, 16)}, "I.c", {"v": 3}, 1),
                 Entry("I.t2", {"hdr.h2.d": (1, 0x7fffffff)}, "I.c", {"v": 4}, 2),
                 Entry("I.t2", {"hdr.h2.d": (0x80000000, 0xffffffff)}, "I.c", {"v": 5}, 3)])
    for name, body in _KEY.items()
]

# fuzz_mutants --kinds mux_expr seed 195 (on fuzz22_exit_taken_as_return_in_a_control_with_return):
# p4c's front-end SimplifyDefUse takes the flow past a single-case switch whose case returns (as one
# that exits) as unreachable, so a read there uses no store: an action called only from there (t2's
# a0) loses every store to its locals -- a `?:`'s temporary, a declared local, both control locals
# after MoveDeclarations -- and BMv2 writes h.b = 0 where t2 runs.  checkmate-p4c ran a0 whole.  An
# action also called where the flow is visited keeps them.
_T2 = """
    action a0() { %s }
    table t2 { actions = { a0; NoAction; } default_action = a0(); }
"""
_A0 = {"conditional_expression": "hdr.h.b = (hdr.h.b != 1) ? 8w0x11 : hdr.h.b;",
       "local": "bit<8> v = hdr.h.a + 1; hdr.h.b = v;",
       "conditional_expression_condition": "if ((hdr.h.b != 1) ? hdr.h.c == 0 : false) { hdr.h.b = 9; } else { hdr.h.b = 8; }"}
_SW5 = "        if (hdr.h.a == 3) { return; }\n        switch (hdr.h.b) { 5: { return; } }\n        t2.apply();\n"
CASES += [
    case(f"mutz39_action_local_stores_dropped_past_a_single_case_switch_whose_case_returns_{name}{sfx}", CAT,
         program(pre + _SW5, ingress_decls=_T2 % body),
         frames=[(1, H(a, b)) for a in (1, 3) for b in (0, 1, 5, 6)])
    for name, body in _A0.items()
    for sfx, pre in [("", ""), ("_also_called_before_it", "        if (hdr.h.a == 9) { a0(); }\n")]
]
_UNV_RET = "bit<8> v = 4; if (hdr.h.c == 0x1111) { v = 2; } meta.m8 = 3; " \
           "switch (hdr.h.a) { 5: { meta.m8 = v + 1; return; } } v = 7; hdr.h.b = v; hdr.h.d = (bit<32>)meta.m8;"
CASES.append(case("mutz39_local_store_past_a_single_case_switch_whose_case_returns", CAT,
                  program("        " + _UNV_RET + "\n"),
                  frames=[(1, H(a, b, c, 0x22222222)) for a in (5, 6) for b in (9, 1) for c in (0x1111, 0x1112)]))

# fuzz_mutants --kinds mux_expr seed 638 (on fuzz23_single_case_switch_copy_reading_itself_through_an_
# earlier_value): a `?:` under `~` or a cast in a single-case switch's case is dismantled through them
# too, so the mid end copies `~tmp` / `(bit<16>)tmp` past the switch -- 0xff / 0 where the case did not
# run (BMv2).  checkmate-p4c took only a `?:` at the top for p4c's temporary (mutz38's seeds 125, 196).
_MI = {"under_a_complement": "switch (hdr.h.a) { 5: { meta.m8 = ~((hdr.h.b == 9) ? 8w7 : hdr.h.b); } } "
                             "hdr.h.d = (bit<32>)meta.m8;",
       "under_a_cast": "switch (hdr.h.a) { 5: { meta.m16 = (bit<16>)((hdr.h.b == 9) ? 8w7 : hdr.h.b); } } "
                       "hdr.h.c = meta.m16 + 1;"}
CASES += [
    case(f"mutz39_conditional_expression_in_a_single_case_switch_copied_as_its_temporary_{name}", CAT,
         program("        meta.m8 = 3; meta.m16 = 3; " + body + "\n"),
         frames=[(1, H(a, b, 0x1111, 0x22222222)) for a in (5, 6) for b in (9, 1)])
    for name, body in _MI.items()
]

# fuzz_mutants --kinds mux_expr seed 1187 (on errs13_enum_header_field_read_as_enum): a `?:` whose arms are
# a serializable enum's value and a header field declared of that enum is of the enum for p4c (the field
# is a value of it); checkmate-p4c held the field arm as its bits and refused the program.
_E1H = "enum bit<8> E1 { e1 = 0, e2 = 1, e3 = 2 }\nheader eh_t { E1 v; }\n"
CASES += [
    case(f"mutz39_conditional_expression_of_an_enum_and_a_header_field_declared_of_it_{name}", CAT, program(
        f"        hdr.eh.setValid(); hdr.eh.v = E1.e3;\n        hdr.eh.v = {mux};\n        hdr.h.b = (bit<8>)hdr.eh.v;",
        headers=_E1H, fields="    eh_t eh;\n",
        deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.eh);"))
    for name, mux in [("field_second", "(((E1)hdr.h.a) == hdr.eh.v) ? ((E1)hdr.h.a) : hdr.eh.v"),
                      ("field_first", "(hdr.h.a == 1) ? hdr.eh.v : E1.e2")]
]

# fuzz_mutants --kinds mux_expr seed 1242 (on mutz32_parser_store_read_only_by_a_dropped_store_dropped_too_
# plus_one): p4c's first def-use drops `m32 = tmp_0` of the second `?:` (overwritten past the verify)
# and then tmp_0's stores, emptying its `if`, which SimplifyControlFlow removes before
# RemoveParserControlFlow; the second def-use then drops `m32 = tmp` (only that `if`'s condition read
# it) -- but not `m32 = 5`, read by the first `?:`'s `if`, which had become a `select` by then
# (BMv2: 5 where the verify fails).  checkmate-p4c kept `m32 = tmp` (6).
_TWO = {"two_conditional_expressions": "meta.m32 = (meta.m32 < 8) ? (meta.m32 + 1) : meta.m32; "
                                       "meta.m32 = (meta.m32 == 1) ? meta.m32 + 1 : meta.m32;",
        "one_conditional_expression": "meta.m32 = meta.m32 + 1; meta.m32 = (meta.m32 == 1) ? meta.m32 + 1 : meta.m32;"}
CASES += [
    case(f"mutz39_parser_store_read_only_by_an_emptied_conditional_expression_dropped_{name}", CAT, program(
        "        hdr.h.d = meta.m32;\n        hdr.h.c = meta.m16;\n"
        "        if (sm.parser_error != error.NoError) { hdr.h.b = 0xee; }\n", parser=f"""
    state start {{ pkt.extract(hdr.eth); pkt.extract(hdr.h); meta.m32 = 5; {second} verify(hdr.h.a != 1, error.NoMatch);
                  meta.m16 = 9; pkt.extract(hdr.h2); meta.m32 = 7; meta.m16 = 4; transition accept; }}"""),
        frames=[(1, H(1)), (1, H(2, payload=b"\x01\x02")), (1, H(2))])
    for name, second in _TWO.items()
]
