"""Disagreements found by helper fuzz36 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5.

fuzz_exprs seed 17951: a ``?:`` assigned in the case of a single-case switch is p4c's temporary
past the switch (:mod:`switch.compiler.switch_copies`, mutz38) -- unless the front end's strength
reduction removed it first: ``c ? x : x`` is x where ``c`` calls nothing (then the copy is x, and
``h.c = c ? h.c : h.c`` copies nothing); with ``isValid()`` in ``c`` it stays, and the temporary,
0 where the case did not run, is read after the switch (checkmate-p4c had it the other way
round).  A function called for its value alone in the case (``f0(x);``) writes nothing but its
out/inout arguments: the case's copies go on past it (:func:`.copy_paths.may_write`).
fuzz_exprs seed 18038: a self-reading header initializer after a sub-control apply that gets the
headers struct in place makes the body's stores to fields it does not read dead, per call site
(:func:`.header_init.drop_stores_before_self_init`, ``UnionRules.self_init_body_stores``).
"""
from .base import H, H2, case, program

CAT = "front end (p4c-compatible)"

CASES = []

_FR = [(1, H(a, b, 0x1234, d=0x10)) for a in (7, 8) for b in (0, 1)]
_E = "enum bit<16> E_t { A = 19, B = 0x1233, C = 134 }"
for _name, _body in [
        ("same_arms_without_calls_is_the_arm", "switch (hdr.h.a) { 7: { hdr.h.c = (hdr.h.b == 1) ? hdr.h.c : hdr.h.c; } } hdr.h.d = (bit<32>)hdr.h.c;"),
        ("same_arms_without_calls_in_a_mux_key", "switch ((hdr.h.b == 1 ? hdr.h.a : hdr.h.a) |-| 1) { 6: { hdr.h.c = (hdr.h.b == 1) ? hdr.h.c : hdr.h.c; } } hdr.h.d = (bit<32>)hdr.h.c;"),
        ("same_arms_without_calls_read_under_casts", "switch (hdr.h.a) { 7: { hdr.h.c = (hdr.h.b == 1) ? hdr.h.c : hdr.h.c; } } hdr.h.d = ((int<40>)(int<16>)hdr.h.c)[35:4];"),
        ("same_arms_on_is_valid_is_the_temporary", "switch (hdr.h.a) { 7: { hdr.h.c = hdr.h2.isValid() ? hdr.h.c : hdr.h.c; } } hdr.h.d = (bit<32>)hdr.h.c;"),
        ("same_arms_on_is_valid_in_a_mux_key", "switch ((hdr.h2.isValid() ? hdr.h.a : hdr.h.a) |-| 1) { 6: { hdr.h.c = hdr.h2.isValid() ? hdr.h.c : hdr.h.c; } } hdr.h.d = (bit<32>)hdr.h.c;"),
        ("same_arms_on_is_valid_enum_switch", "switch ((E_t)((hdr.h2.isValid() ? hdr.h.c : hdr.h.c) |-| 1)) { E_t.C: { hdr.h.c = hdr.h2.isValid() ? hdr.h.c : hdr.h.c; } } hdr.h.d = (bit<32>)hdr.h.c;"),
        # guard: other arms stay a ?: (the temporary, as before)
        ("other_arms_is_the_temporary", "switch (hdr.h.a) { 7: { hdr.h.c = (hdr.h.b == 1) ? hdr.h.c : hdr.h.c + 1; } } hdr.h.d = (bit<32>)hdr.h.c;"),
        ]:
    CASES.append(case(f"fuzz36_single_case_switch_conditional_{_name}", CAT, program("        " + _body + "\n", top=_E), frames=_FR))

# fuzz_exprs seed 18038: a sub-control given the headers struct in place (p4c inlines it) stores a
# field of hdr.h2; a later self-reading initializer of hdr.h2 that does not read that field makes
# the store dead for p4c's def-use -- BMv2's initializer then writes no field, the store is gone
_SCI = "control SC(inout headers_t hdr, inout meta_t meta) { apply { %s } }\n"
_FR2 = [(1, H2(a2, 2, 0x3344, 0x55667788, c=0x1122)) for a2 in (1, 9)]
for _name, _sc, _body in [
        ("dropped", "hdr.h2.c = hdr.h.c + 1; meta.m8 = 3;", "sc.apply(hdr, meta); hdr.h2 = {hdr.h2.a, 5, 6, 7};"),
        ("dropped_after_other_stores", "hdr.h2.d = 1; hdr.h2.c = hdr.h2.c + hdr.h.c; hdr.h.b = hdr.h2.b;",
         "hdr.h2.c = 9; sc.apply(hdr, meta); hdr.h2 = {hdr.h2.a, hdr.h2.b + 1, 6, 7};"),
        ("dropped_at_one_site_of_two", "hdr.h2.c = hdr.h2.c + 1;",
         "sc.apply(hdr, meta); hdr.h.c = hdr.h2.c; sc.apply(hdr, meta); hdr.h2 = {hdr.h2.a, 5, 6, 7};"),
        ("dropped_past_a_switch_and_an_if_in_the_body",   # (fuzz_exprs seed 18152)
         "switch (hdr.h.b) { } hdr.h2.c = hdr.h2.c * 335; if (hdr.h.a == 3) { meta.m8 = 1; }",
         "sc.apply(hdr, meta); hdr.h2 = {hdr.h2.a, 5, 6, 7};"),
        ("dropped_past_an_unread_local_in_a_switch_case",   # (fuzz_exprs seed 18152)
         "hdr.h2.c = hdr.h2.c * 335;",
         "sc.apply(hdr, meta); switch (hdr.h.b) { 2: { bit<8> l7 = hdr.h2.c[7:0] + 1; } } hdr.h2 = {hdr.h2.a, 5, 6, 7};"),
        ("dropped_past_an_unread_local", "hdr.h2.c = hdr.h2.c * 335;",
         "sc.apply(hdr, meta); bit<8> l7 = hdr.h2.c[7:0] + 1; hdr.h2 = {hdr.h2.a, 5, 6, 7};"),
        # guards: the initializer reads the field, or the body reads it after the store, or the local is read
        ("kept_read_by_a_local_read_later", "hdr.h2.c = hdr.h2.c * 335;",
         "sc.apply(hdr, meta); bit<8> l7 = hdr.h2.c[7:0] + 1; hdr.h2 = {hdr.h2.a, 5, 6, 7}; hdr.h.b = l7;"),
        ("kept_read_by_the_initializer", "hdr.h2.c = hdr.h.c + 1;", "sc.apply(hdr, meta); hdr.h2 = {hdr.h2.a, 5, hdr.h2.c, 7};"),
        ("kept_read_in_the_body", "hdr.h2.c = hdr.h.c + 1; hdr.h.b = hdr.h2.c[7:0];",
         "sc.apply(hdr, meta); hdr.h2 = {hdr.h2.a, 5, 6, 7};"),
        ]:
    CASES.append(case(f"fuzz36_self_reading_initializer_after_a_sub_control_store_{_name}", CAT, program(
        "        " + _body + " hdr.h.d = (bit<32>)hdr.h2.c;\n", top=_SCI % _sc, ingress_decls="    SC() sc;"), frames=_FR2))

# fuzz_exprs seed 17951: a function called for its value alone (`f0(..);`, p4c inlines it) in the
# case of a single-case switch writes nothing but its out/inout arguments -- the case's copies go
# on past it (`hdr.h.c = 5` read as 5 after the switch, also where no case ran)
_F0 = "bool f0(in bit<8> p) { return p == 3; }\n"
for _name, _body in [
        ("plain", "switch (hdr.h.a) { 7: { hdr.h.c = 5; f0(hdr.h.b); } } hdr.h.d = (bit<32>)hdr.h.c;"),
        ("in_a_nested_switch", "switch (hdr.h.a) { 7: { hdr.h.c = hdr.h2.isValid() ? hdr.h.c : hdr.h.c; "
         "switch (hdr.h.b) { 1: default: { f0(hdr.h.b); } } } } hdr.h.d = (bit<32>)hdr.h.c;"),
        ]:
    CASES.append(case(f"fuzz36_single_case_switch_copy_past_a_function_call_statement_{_name}", CAT, program(
        "        " + _body + "\n", top=_F0), frames=_FR))

# fuzz_exprs seed 18175: a function with a return value called as a statement, given a bool
# metadata field (held as bit<1>, read through a cast) as its inout argument: checkmate-switch
# refused the pipeline ("assignment to cast inside an expression")
_FB = "bit<8> fb(inout bool p) { p = !p; return 8w1; }\nbool fc(inout bool p, in bit<8> x) { p = x == 8; return p; }\n"
for _name, _body in [
        ("statement", "meta.mb = hdr.h.a == 7; fb(meta.mb); hdr.h.b = meta.mb ? 8w1 : 8w2;"),
        ("in_an_expression", "meta.mb = hdr.h.a == 7; hdr.h.c = (bit<16>)fb(meta.mb); if (fc(meta.mb, hdr.h.a)) { hdr.h.b = 3; }"
         " hdr.h.d = meta.mb ? 32w1 : 32w2;"),
        ]:
    CASES.append(case(f"fuzz36_bool_metadata_field_as_inout_argument_of_a_function_with_a_value_{_name}", CAT, program(
        "        " + _body + "\n", top=_FB, meta="    bool mb;\n"), frames=_FR))
