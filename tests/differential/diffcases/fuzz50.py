"""Found by helper fuzz50 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5."""
from .base import H, case, program
from .fuzz28 import _HC, _HC_FR, CAT

CASES = []

# fuzz_exprs seed 19768 itself: in the flow p4c's front-end SimplifyDefUse does not visit (after a
# single-case switch whose case exits) each call site -- each table -- runs its own copy of the action,
# whose directional parameters (RemoveActionParameters), inlined functions' parameters, locals and value
# (FunctionsInliner) and return flag (RemoveReturns) are control locals read only there: every store
# to them goes, the method calls stay.  `q.setValid(); q.x = 7;` leaves the argument valid with x = 0,
# a `return` returns nothing, `tick(hdr.h.b)` writes h.b = 0 and is 0, an `in` parameter reads 0.
_SW = "        switch (hdr.h.a) { 6: { exit; } }\n"
_DECLS = """\
    action a(inout e_t q) { q.setValid(); q.x = 7; }
    action r() { if (hdr.h.b == 1) { return; } hdr.h.c = 7; }
    action f() { if (tick(hdr.h.b) == 2) { hdr.h.c = 9; } hdr.h.d = 5; }
    action i(in bit<8> v) { hdr.h.c = (bit<16>)v; }
    action l(inout e_t q) { bit<8> v = hdr.h.b + 1; q.setValid(); hdr.h.c = (bit<16>)v; }
    table t { actions = { a(hdr.o); } default_action = a(hdr.o); }
"""
_TOP = "bit<8> tick(inout bit<8> c) { c = c + 1; return c; }\n"
for _name, _body in [
        ("a_header_parameter_made_valid", _SW + "        a(hdr.o);\n"),
        ("a_table_default_action_making_its_parameter_valid", _SW + "        t.apply();\n"),
        ("an_action_also_called_before_the_switch", "        a(hdr.s[1]);\n" + _SW + "        a(hdr.o);\n"),
        ("a_return", _SW + "        r();\n"),
        ("a_function_call_with_an_inout_argument", _SW + "        f();\n"),
        ("an_in_parameter", _SW + "        i(hdr.h.b);\n"),
        # (a guard: the copies share the body's locals -- MoveDeclarations ran first -- so one read
        # where the flow is visited keeps their stores)
        ("a_header_parameter_made_valid_past_a_case_that_returns",
         "        switch (hdr.h.a) { 6: { return; } }\n        a(hdr.o);\n"),
        ("a_local_kept_by_a_call_before_the_switch", "        l(hdr.s[1]);\n" + _SW + "        l(hdr.o);\n")]:
    CASES.append(case(f"fuzz50_unvisited_action_copy_with_{_name}", CAT,
                      program(_body, ingress_decls=_DECLS, top=_TOP, **_HC), frames=_HC_FR))

# fuzz_headers seed 11387: p4c's LocalCopyPropagation takes a single-case switch's case as always run
# (switch_copies): a header initializer there is `hdr.h2.setValid();` and a store per field, copies past
# the switch like any field store, and a value holding an `isValid()` is propagated too (of the stored
# header itself included) -- evaluated where it is read.  checkmate-p4c propagated none of them.
_SW1 = "        switch (hdr.h.b) { 1: { %s } }\n        hdr.h.a = (bit<8>)hdr.h2.d;\n"
for _name, _case in [
        ("a_header_initializer", "hdr.h2 = { 8w5, 8w2, 16w1, 32w7 };"),
        ("a_header_initializer_with_an_is_valid_value", "hdr.h2 = { 8w5, 8w2, 16w1, 32w1 + (hdr.h.isValid() ? 32w3 : 32w4) };"),
        ("a_field_store_with_an_is_valid_value", "hdr.h2.d = 32w1 + (hdr.h2.isValid() ? 32w3 : 32w4);"),
        ("a_header_initializer_then_a_set_valid", "hdr.h2 = { 8w5, 8w2, 16w1, 32w7 }; hdr.h2.setValid();")]:
    CASES.append(case(f"fuzz50_single_case_switch_copy_of_{_name}", CAT, program(_SW1 % _case),
                      frames=[(1, H(a, b)) for a in (1, 0xee) for b in (0, 1)]))

# fuzz_headers seed 11387 (second half): p4c inlines a sub-control body before LocalCopyPropagation, so
# the copies a single-case switch leaves at the body's end go on in the caller after the apply
# (subcontrol_copies.end_copies_after).  Guard: a body that may exit ends them.
_SUB = """control S(inout headers_t hh, inout meta_t mm) {
    apply {
        switch (hh.h.b) { 1: { %s } }
    }
}
"""
for _name, _case, _after in [
        ("a_field_store", "hh.h.c = 16w9;", "hdr.h.d = (bit<32>)hdr.h.c;"),
        ("a_header_initializer", "hh.h2 = { 8w5, 8w2, 16w1, 32w7 };", "hdr.h.a = (bit<8>)hdr.h2.d;"),
        ("a_metadata_store_read_through_the_header", "mm.m8 = hh.h.a + 8w3;", "hdr.h.c = (bit<16>)meta.m8;"),
        ("a_case_that_exits", "hh.h.c = 16w9; exit;", "hdr.h.d = (bit<32>)hdr.h.c;"),
        ("a_case_that_returns", "hh.h.c = 16w9; return;", "hdr.h.d = (bit<32>)hdr.h.c;")]:
    CASES.append(case(f"fuzz50_single_case_switch_copy_of_a_sub_control_read_after_its_apply_{_name}", CAT,
                      program("        s.apply(hdr, meta);\n        " + _after + "\n",
                              ingress_decls="    S() s;\n", top=_SUB % _case),
                      frames=[(1, H(a, b, 0x1234, 0x5678)) for a in (1, 0xee) for b in (0, 1)]))

# fuzz_headers seed 11327 (REJECT): a header initializer under an `if` in an action that a whole
# assignment of the header after the `if` overwrites on every path is a dead store p4c's front-end
# SimplifyDefUse removes before its back end looks for conditional execution: p4c compiles it
# (elab_calls.live_cond_init_ops); checkmate-p4c refused it.  (A field store after it does not
# overwrite it: both refuse that.)
for _name, _body in [
        ("after_the_if", "if (hdr.h.a == 1) { hdr.h2 = {1, 2, 3, 4}; } hdr.h2 = hdr.h;"),
        ("after_an_if_whose_else_writes_a_field", "if (hdr.h.a == 1) { hdr.h2 = {1, 2, 3, 4}; } else { hdr.h2.b = 3; } hdr.h2 = hdr.h;"),
        ("of_a_stack_element", "if (hdr.h.a == 1) { hdr.s[0] = {1, 2}; } else { hdr.s[1].x = 3; } hdr.s[0] = hdr.s[1];")]:
    for _how, _apply in [("table", "        t.apply();\n"), ("call", "        a0();\n")]:
        CASES.append(case(f"fuzz50_header_initializer_in_an_action_if_overwritten_{_name}_{_how}", CAT,
                          program(_apply, ingress_decls="    action a0() { %s }\n"
                                  "    table t { actions = { a0; } default_action = a0(); }\n" % _body,
                                  **dict(_HC, headers="header e_t { bit<8> x; bit<8> y; }\n")),
                          frames=[(1, H(a, b, 0x2233, 0x44556677)) for a in (1, 5) for b in (1, 2)]))


# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
