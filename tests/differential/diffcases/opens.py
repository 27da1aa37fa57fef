"""Disagreements closed by helper opens (issue #15): the items earlier helpers (fuzz32, corpus18,
errs18) left open, each decided by real p4c 1.2.4.8 / BMv2 1.15.5 and kept as a case.
"""
from .base import Entry, H, case, program
from .fuzz32 import _SC, _SD, _SF, _SI

CAT = "front end (p4c-compatible)"

CASES = []

# fuzz32's open probe: a whole header stack passed to a function's `in` parameter after a
# single-case switch that copies a case-local into it (`switch (..) { 2: { h_t[3] l = hdr.s;
# l.push_front(1); hdr.s = l; } }` then `hdr.h.c = f(hdr.s);`).  p4c's inliner copies the argument
# into the parameter's local (`s_1 = hdr.s;`), CopyStructures writes that element by element and
# LocalCopyPropagation (taking the single case as always run) reads `l_0[i]` for each -- never
# valid where the case did not run.  checkmate passed `hdr.s`.  Guard: a stack no element of
# which was copied is passed as it is.
# (the deparser, stack setup, frames and switch are fuzz32's, imported above)
_F = ("bit<16> f(in h_t[3] s) { return s[1].isValid() ? s[1].c + (bit<16>)s[1].a : 16w99; }\n"
      "bit<16> f2(in h_t[3] s) { return (s[0].isValid() ? 16w1 : 16w0) + (s[2].isValid() ? 16w2 : 16w0); }\n"
      "h_t f3(in h_t[3] s) { return s[1]; }\n")
for _name, _eg in [
        ("read", _SC + "hdr.h.c = f(hdr.s);"),
        ("validity", _SC + "hdr.h.c = f2(hdr.s);"),
        ("returned_element", _SC + "hdr.h = f3(hdr.s);"),
        ("other_stack_left_alone", _SC + "hdr.h.c = f(hdr.s2);"),]:
    CASES.append(case(f"opens_single_case_switch_stack_copy_into_a_function_in_{_name}", CAT, program(
        _SI, egress="        " + _eg + "\n", top=_F, fields="    h_t[3] s;\n    h_t[3] s2;\n", deparser=_SD),
        frames=_SF))

# Variations around it (42 probes, helper opens): an `inout` stack parameter is copied in the same
# way and copied back after the body (checkmate passed `hdr.s`); a stack copied from another stack
# or one element from a header local; a function called as a statement with an out argument; one
# stack given twice.
_SI2 = _SI + "        hdr.s2[0] = hdr.h; hdr.s2[0].a = 20; hdr.s2[2] = hdr.h; hdr.s2[2].a = 22;\n"
_FV = ("bit<16> fv(in h_t[3] s) { return (s[0].isValid() ? 16w1 : 16w0) + (s[1].isValid() ? 16w2 : 16w0)"
       " + (s[2].isValid() ? 16w4 : 16w0); }\n"
       "bit<16> f2(in h_t[3] s, in h_t[3] t) { return fv(s) + 16w16 * fv(t); }\n"
       "void fo(in h_t[3] s, out bit<16> o) { o = fv(s) + 16w100; }\n"
       "void fio(inout h_t[3] s) { s[2].setValid(); s[2].a = (bit<8>)fv(s); }\n"
       "void gi(inout h_t x) { x.b = x.isValid() ? 8w1 : 8w2; }\n")
for _name, _eg in [
        ("inout", _SC + "fio(hdr.s);"),
        ("from_another_stack", "switch (hdr.h.b) { 2: { hdr.s = hdr.s2; } }\n        hdr.h.c = fv(hdr.s);"),
        ("one_element_from_a_header_local", "switch (hdr.h.b) { 2: { h_t l = hdr.s[0]; l.a = 5; hdr.s[1] = l; } }\n"
                                            "        hdr.h.c = fv(hdr.s);"),
        ("statement_with_out_argument", _SC + "fo(hdr.s, hdr.h.c);"),
        ("given_twice", _SC + "hdr.h.c = f2(hdr.s, hdr.s);"),
        # (an inout header with a whole copy: `x = l_0; ..; hdr.s[1] = x;`)
        ("inout_header", "switch (hdr.h.b) { 2: { h_t l = hdr.s[0]; l.a = 5; hdr.s[1] = l; } }\n        gi(hdr.s[1]);"),]:
    CASES.append(case(f"opens_single_case_switch_stack_copy_into_a_function_{_name}", CAT, program(
        _SI2, egress="        " + _eg + "\n", top=_FV, fields="    h_t[3] s;\n    h_t[3] s2;\n", deparser=_SD),
        frames=_SF))


# fuzz32's second open probe: in a later single-case switch's case, a store to a header field
# that is overwritten after the switch before anything reads it (`hdr.h.c = 9;` with `hdr.h.c =
# meta.m16;` after) is dropped as dead by p4c's front end (SimplifyDefUse), so it does not end
# the first switch's copy `hdr.h.d = 1 | (bit<32>)hdr.h.c` there: the case's `(bit<16>)hdr.h.d`
# reads the old `hdr.h.c` (and, where the first case did not run, `1 | hdr.h.c` instead of 5).
# checkmate ended the copy at the store.  Guard: a store read later ends it.
_SW1 = "        hdr.h.d = 32w5;\n        switch (hdr.h.a) { 7: { hdr.h.d = 32w1 | (bit<32>)hdr.h.c; } }\n"
for _name, _rest in [
        ("in_a_later_single_case_switch", "switch (hdr.h.b) { 1: { hdr.h.c = 9; meta.m16 = (bit<16>)hdr.h.d; } }\n"
                                          "        hdr.h.c = meta.m16;"),
        ("live_store_ends_it", "switch (hdr.h.b) { 1: { hdr.h.c = 9; meta.m16 = (bit<16>)hdr.h.d; } }\n"
                               "        hdr.h.b = (bit<8>)hdr.h.c;"),]:
    CASES.append(case(f"opens_single_case_switch_copy_past_a_dead_store_{_name}", CAT, program(
        _SW1 + "        " + _rest + "\n"), frames=[(1, H(a, b, 0x1234, d=0x10)) for a in (7, 8) for b in (0, 1)]))

# ... and its variations: p4c drops a store overwritten in straight-line code wherever it is -- at
# the top level, in a case of a two-case switch, in a branch, before a direct action writing it, a
# whole-header initializer (its setValid reads no field) -- and then a later single-case switch's
# own copy made by such a store (`{ hdr.h.c = 9; }` read through `hdr.h.d`'s copy later) is none.
# A header initializer ends the copies reading its header before its value is read (p4c:
# setValid first, then the fields).  Guards: a table keyed on it, an exit before the overwrite.
_TB = ("    action n() { meta.m8 = 1; }\n    action wc() { hdr.h.c = 44; }\n"
       "    action b2(inout bit<16> x) { meta.m8 = (bit<8>)x; x = 5; }\n"
       "    table tk { key = { hdr.h.c: exact; } actions = { n; } default_action = n(); }\n")
_S2 = "switch (hdr.h.b) { 1: { hdr.h.c = 9; meta.m16 = (bit<16>)hdr.h.d; } }\n        "
for _name, _rest in [
        ("at_the_top_level", "hdr.h.c = 9; meta.m16 = (bit<16>)hdr.h.d; hdr.h.c = meta.m16;"),
        ("in_a_two_case_switch", "switch (hdr.h.b) { 1: { hdr.h.c = 9; meta.m16 = (bit<16>)hdr.h.d; } 0: { meta.m16 = 3; } }\n"
                                 "        hdr.h.c = meta.m16;"),
        ("in_a_branch", "switch (hdr.h.b) { 1: { if (hdr.h.a == 7) { hdr.h.c = 9; } meta.m16 = (bit<16>)hdr.h.d; } }\n"
                        "        hdr.h.c = meta.m16;"),
        ("overwritten_by_an_action", _S2 + "wc(); hdr.h.b = (bit<8>)meta.m16;"),
        ("overwritten_by_a_header_initializer", _S2 + "hdr.h = { 1, 2, meta.m16, 4 };"),
        ("whose_switch_copy_is_gone", "switch (hdr.h.b) { 1: { hdr.h.c = 9; } }\n"
                                      "        meta.m16 = (bit<16>)hdr.h.d; hdr.h.c = meta.m16;"),
        # (past a switch or branches that do not touch it, or overwriting it on every path; a
        # function's out argument overwrites it)
        ("overwritten_after_another_switch", _S2 + "switch (hdr.h.a) { 8: { meta.m8 = 3; } }\n        hdr.h.c = meta.m16;"),
        ("in_two_later_switches", _S2 + "switch (hdr.h.a) { 8: { hdr.h.c = 10; meta.m8 = (bit<8>)hdr.h.d; } }\n"
                                  "        hdr.h.c = meta.m16 + (bit<16>)meta.m8;"),
        ("overwritten_by_a_function_out_argument", _S2 + "fo2(hdr.h.c); hdr.h.b = (bit<8>)meta.m16;"),
        ("read_by_an_action_inout_argument_ends_it", _S2 + "b2(hdr.h.c); hdr.h.b = (bit<8>)meta.m16;"),
        ("read_by_a_table_key_ends_it", _S2 + "tk.apply(); hdr.h.c = meta.m16;"),
        ("live_past_an_exit_ends_it", _S2 + "if (hdr.h.a == 8) { exit; } hdr.h.c = meta.m16;"),]:
    CASES.append(case(f"opens_single_case_switch_copy_past_a_dead_store_{_name}", CAT, program(
        _SW1 + "        " + _rest + "\n", ingress_decls=_TB, top="void fo2(out bit<16> o) { o = 16w77; }\n"),
        frames=[(1, H(a, b, 0x1234, d=0x10)) for a in (7, 8) for b in (0, 1)]))



# corpus18's open probe: a control type whose only table is @hidden, applied directly twice.  p4c
# makes an instance per application, both named I.C (no P4Info name clashes: the table is hidden),
# and compiles it; its JSON holds two tables I.C.t, which simple_switch refuses ("Duplicate objects
# of type 'control node' with name 'I.C.t'") and simple_switch_grpc dies of (SIGSEGV at
# SetForwardingPipelineConfig).  checkmate-p4c refused it ("table I.C.t is applied more than once");
# now it compiles it with a load refusal (tests/p4c/test_load_refused2.py), its P4Info p4c's.
# Guard: applied once in ingress and once in egress (E.C.t), both load and run.
_DIRECT = """control C(inout headers_t hdr) {
    action bump() { hdr.h.b = hdr.h.b + 1; }
    @hidden table t { actions = { bump; } const default_action = bump(); }
    apply { t.apply(); }
}
"""
_DF = [(1, H(a, b, 0x1234, d=0x10)) for a in (1, 2) for b in (0, 1)]
CASES.append(case("opens_direct_application_twice_hidden_table", CAT, program(
    "        C.apply(hdr);\n        C.apply(hdr);\n", top=_DIRECT), frames=_DF,
    p4info_only="simple_switch_grpc dies loading p4c's JSON: two control nodes named I.C.t"))
CASES.append(case("opens_direct_application_hidden_table_in_ingress_and_egress", CAT, program(
    "        C.apply(hdr);\n", egress="        C.apply(hdr);\n", top=_DIRECT), frames=_DF))


# errs18's open item: a direct counter or meter that two tables attach, one of them applied -- p4c
# removes the unapplied table before its back end and compiles the program (counting, metering on
# the applied one); checkmate-p4c refused it ("cannot be attached to multiple tables").  The error
# lines of the direct meter items: tests/p4c/test_direct_meter_lines.py.
_DT = ("    direct_counter(CounterType.packets) dc;\n    direct_meter<bit<8>>(MeterType.packets) dm;\n"
       "    action a(bit<8> v) { hdr.h.b = v; dm.read(meta.m8); }\n    action n() { dm.read(meta.m8); }\n"
       "    table t { key = { hdr.h.a: exact; } actions = { a; n; } default_action = n(); counters = dc; }\n"
       "    table t2 { key = { hdr.h.a: exact; } actions = { a; n; } default_action = n(); counters = dc; }\n"
       "    table u { key = { hdr.h.a: exact; } actions = { a; n; } default_action = n(); meters = dm; }\n"
       "    table u2 { key = { hdr.h.a: exact; } actions = { a; n; } default_action = n(); meters = dm; }\n")
CASES.append(case("opens_direct_counter_and_meter_on_an_unapplied_second_table", CAT, program(
    "        t.apply(); u2.apply(); hdr.h.c = (bit<16>)meta.m8;\n", ingress_decls=_DT),
    entries=[Entry("I.t", {"hdr.h.a": 1}, "I.a", {"v": 9}), Entry("I.u2", {"hdr.h.a": 2}, "I.a", {"v": 7})],
    frames=[(1, H(a, 0, 0x1234, d=0x10)) for a in (1, 2, 3, 1)]))

# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
