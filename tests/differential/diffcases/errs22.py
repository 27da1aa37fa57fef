"""Programs found by helper errs22 (issue #15): a ninth sweep of probe programs of our own (kept in
/work/e22, outside the repository: parser `select` on tuples, masks, ranges and value sets, default
placement and `_`, header stack `next`/`last`/`lastIndex` in parsers, `verify` and `error`
comparisons, `@priority`/`priority=` with `largest_priority_wins`, non-const `entries`, table size
and selector properties, `@match`, `bit<0>`/`int<1>`, wide shifts, casts of negative literals,
nested `?:`, varbit extracts, `advance`, `@noWarn`, function-like macros, `static_assert`), each
decided by real p4c 1.2.4.8 and, for what runs, by simple_switch_grpc.

``CASES``: programs p4c accepts that checkmate-p4c refused or ran differently.  ``INVALID`` (read by
tests/differential/test_invalid.py): programs p4c rejects that checkmate-p4c accepted.  Positions:
tests/p4c/test_error_lines.py.
"""
from .base import case, H, program, start_state, VALUES

CAT = "front end (p4c-compatible)"

CASES = []

# A constant of a tuple type as the whole keyset of a select on two keys (`const tuple<bit<8>,
# bit<8>> KT = {1, 2};` ... `select(a, b) { KT: ...; }`): p4c takes it as the keyset `(1, 2)` and
# its JSON loads; checkmate-p4c refused "select case has 1 keysets for 2 keys" (/work/e22 pa
# a_label_tuple_const).  A tuple constant of other element types stays p4c's type error.
_KT_PARSER = start_state() + """
    state parse_h {
        pkt.extract(hdr.h);
        transition select(hdr.h.a, hdr.h.b) { KT: p2; KU: p3; KB: p2; default: accept; }
    }
    state p2 { meta.m8 = 7; transition accept; }
    state p3 { meta.m8 = 9; transition select(hdr.h.a, hdr.h.c == 0x0304) { KC: p2; default: accept; } }"""
CASES.append(case("errs22_tuple_constant_as_a_select_keyset", CAT, program(
    "        hdr.h.d = (bit<32>)meta.m8;\n", parser=_KT_PARSER,
    top="const tuple<bit<8>, bit<8>> KT = { 1, 2 };\nconst tuple<bit<8>, bit<8>> KU = { 0x11, 0x22 };\n"
        "const tuple<bit<8>, bit<8>> KB = { 0xee, 0 };\nconst tuple<bit<8>, bool> KC = { 0x11, true };\n"),
    frames=list(VALUES) + [(1, H(0x11, 0x22, 0x0304, 0)), (2, H(0x11, 0x22, 0x0305, 0)), (3, H(0xee, 0, 1, 2))],
    json_path=True))


# The same with a list expression as the keyset (`select(a, b) { { 1, 2 }: ... }`) and a tuple
# constant of one element for one key (`select(a) { K1: ... }`): p4c takes both (/work/e22 pe
# e_kt_list_literal, e_kt_single_key); checkmate-p4c refused them
CASES.append(case("errs22_list_keyset_and_one_element_tuple_constant", CAT, program(
    "        hdr.h.d = (bit<32>)meta.m8;\n", top="const tuple<bit<8>> K1 = { 0x11 };\n", parser=start_state() + """
    state parse_h {
        pkt.extract(hdr.h);
        transition select(hdr.h.a, hdr.h.b) { { 1, 2 }: p2; { 0x11, 0x22 }: p3; default: accept; }
    }
    state p2 { meta.m8 = 7; transition accept; }
    state p3 { meta.m8 = 9; transition select(hdr.h.a) { K1: p2; default: accept; } }"""),
    frames=list(VALUES) + [(1, H(0x11, 0x22, 0x0304, 0)), (2, H(0x11, 0x23, 0, 0))], json_path=True))

# `...` in a list keyset: the keys past the list match their default value, 0 (`select(a, b) {
# { 0, ... }: }` is p4c's JSON value 0x0000; /work/e22 pg g_l_dots, ph h_dots_*); checkmate-p4c refused
CASES.append(case("errs22_list_keyset_with_dots", CAT, program(
    "        hdr.h.d = (bit<32>)meta.m8;\n", parser=start_state() + """
    state parse_h {
        pkt.extract(hdr.h);
        transition select(hdr.h.a, hdr.h.b, hdr.h.c) { { 0, ... }: p2; { 0x11, 0x22, ... }: p3; { ... }: p3; default: accept; }
    }
    state p2 { meta.m8 = 7; transition accept; }
    state p3 { meta.m8 = 9; transition accept; }"""),
    frames=list(VALUES) + [(1, H(0x11, 0x22, 0, 0)), (2, H(0, 0, 5, 0)), (3, H(0x11, 0x22, 3, 0))], json_path=True))

# `hs.next.setValid()` / `setInvalid()` / `hs.next = x` in a parser state: p4c writes add_header /
# remove_header / assign_header of a
# "stack_field" ["s", "next"]; simple_switch 1.15.5 loads it and dies on the first packet that gets
# there (actions.h: "Default switch case should not be reachable"); checkmate-switch made s[nextIndex]
# valid and forwarded the packet.  It now drops the packet there with a trace line
# (elab_object_calls.bmv2_dies; /work/e22 pa a_stk_next_setvalid; tests/p4c/test_load_refused.py DIES).
# P4Info compared only (BMv2 cannot run it).
_DIES = "simple_switch 1.15.5 dies executing hs.next.setValid() in a parser (actions.h: default switch case)"
CASES.append(case("errs22_stack_next_set_valid_in_a_parser", CAT, program(
    "        hdr.h.b = meta.m8;\n", headers="header s_t { bit<8> v; }\n", fields="    s_t[3] s;\n",
    deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);", parser=start_state() + """
    state parse_h {
        pkt.extract(hdr.h);
        pkt.extract(hdr.s.next);
        hdr.s.next.setValid();
        hdr.s.next = hdr.s[0];
        transition accept;
    }"""), p4info_only=_DIES))

INVALID = {
    # a value set as the one element of a list keyset (`select(a) { { vs }: ... }`): p4c's "vs: must
    # evaluate to a compile-time constant"; the list unwrapping (errs22) took it as the value set (pg g_l_vs_only_one)
    "errs22_value_set_inside_a_list_keyset": (
        program("        hdr.h.b = meta.m8;\n", parser="    value_set<bit<8>>(4) vs8;\n" + start_state() + """
    state parse_h {
        pkt.extract(hdr.h);
        transition select(hdr.h.a) { { vs8 }: accept; default: accept; }
    }"""), ("must evaluate to a compile-time constant",)),
}
