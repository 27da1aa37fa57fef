"""Guards of helper mutz72's fix (diffcases/mutz72.py): an action's store of a match_kind comparison into its
control's variables is judged at the action's call sites (p4c inlines the call, and its def-use sees a table's
apply as its actions), so it stays refused ("could not convert expression to Json") where the store is read
after the call, reaches the control's end, an `exit` in the action, or a store that is read in turn -- and
compiles where the caller overwrites it first.  With p4c on PATH its verdicts are checked too."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from switch.compiler import P4CompileError, compile_source

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "differential"))
from diffcases.base import program  # noqa: E402

_B = "    action b() { meta.m8 = (exact == lpm) ? 8w1 : 8w2; }\n"
_T = "    table t { key = { hdr.h.a: exact; } actions = { b; NoAction; } default_action = NoAction(); }\n"
_IF = "    action b() { if (exact == lpm) { meta.m8 = 1; } }\n"
_SUB = """control S(inout headers_t hdr, inout meta_t meta) {
    action b() { meta.m8 = (exact == lpm) ? 8w1 : 8w2; }
    apply { b(); }
}
"""
LIVE = {
    "read_after_the_call": program("        b();\n        hdr.h.b = meta.m8;\n", ingress_decls=_B),
    "live_at_the_end": program("        b();\n", ingress_decls=_B),
    "an_if_arm_read_after": program("        b();\n        hdr.h.b = meta.m8;\n", ingress_decls=_IF),
    "an_if_arm_storing_another_live_field": program(
        "        b();\n        meta.m8 = hdr.h.b;\n",
        ingress_decls="    action b() { if (exact == lpm) { meta.m8 = 1; hdr.h.a = 2; } }\n"),
    "exit_after_the_call": program("        b();\n        exit;\n", ingress_decls=_B),
    "return_after_the_call": program("        b();\n        return;\n", ingress_decls=_B),
    "exit_in_the_action": program("        b();\n        meta.m8 = hdr.h.b;\n",
                                  ingress_decls="    action b() { meta.m8 = (exact == lpm) ? 8w1 : 8w2; exit; }\n"),
    "read_in_the_action": program("        b();\n        meta.m8 = hdr.h.b;\n",
                                  ingress_decls="    action b() { meta.m8 = (exact == lpm) ? 8w1 : 8w2; hdr.h.b = meta.m8; }\n"),
    "read_through_an_out_argument": program(
        "        b(hdr.h.a);\n        meta.m8 = hdr.h.b;\n",
        ingress_decls="    action b(out bit<8> o) { meta.m8 = (exact == lpm) ? 8w1 : 8w2; o = meta.m8; }\n"),
    "through_an_action_local": program(
        "        b();\n", ingress_decls="    action b() { bit<8> v = (exact == lpm) ? 8w1 : 8w2; meta.m8 = v; }\n"),
    "a_control_local_read": program("        b();\n        hdr.h.b = x;\n",
                                    ingress_decls="    bit<8> x;\n    action b() { x = (exact == lpm) ? 8w1 : 8w2; }\n"),
    "one_of_two_calls_live": program("        b();\n        meta.m8 = hdr.h.b;\n        b();\n", ingress_decls=_B),
    "an_action_calling_it": program("        c();\n        hdr.h.b = meta.m8;\n",
                                    ingress_decls=_B + "    action c() { b(); hdr.h.a = 3; }\n"),
    "read_by_the_next_action": program("        b();\n        c();\n        meta.m8 = 1;\n",
                                       ingress_decls=_B + "    action c() { hdr.h.b = meta.m8; }\n"),
    "a_call_under_an_if_else_live": program("        if (hdr.h.a == 1) { b(); } else { meta.m8 = 5; }\n"
                                            "        hdr.h.b = meta.m8;\n", ingress_decls=_B),
    "a_table_applied_again": program("        t.apply();\n        meta.m8 = hdr.h.b;\n        t.apply();\n", ingress_decls=_B + _T),
    "a_table_and_a_call": program("        b();\n        meta.m8 = hdr.h.b;\n        t.apply();\n", ingress_decls=_B + _T),
    "a_table_switch_case_reading_it": program(
        "        switch (t.apply().action_run) { b: { hdr.h.a = meta.m8; } default: { } }\n        meta.m8 = hdr.h.b;\n",
        ingress_decls=_B + _T),
    "a_table_hit_arm_reading_it": program("        if (t.apply().hit) { hdr.h.a = meta.m8; }\n        meta.m8 = hdr.h.b;\n",
                                          ingress_decls=_B + _T),
    "a_table_key_reading_it": program("        b();\n        t2.apply();\n        meta.m8 = hdr.h.b;\n",
                                      ingress_decls=_B + "    table t2 { key = { meta.m8: exact; } actions = { NoAction; } }\n"),
    "a_switch_case_call_read_after": program("        switch (hdr.h.a) { 1: { b(); } default: { } }\n        hdr.h.b = meta.m8;\n",
                                             ingress_decls=_B),
    "a_sub_control_read_after": program("        s.apply(hdr, meta);\n        hdr.h.b = meta.m8;\n", top=_SUB,
                                        ingress_decls="    S() s;\n"),
}
DEAD = {
    "a_table_listing_it_unapplied": program("        b();\n        meta.m8 = hdr.h.b;\n", ingress_decls=_B + _T),
    "an_unused_table_action": program("        meta.m8 = hdr.h.b;\n", ingress_decls=_B + _T),
}


@pytest.mark.parametrize("name", sorted(LIVE))
def test_action_store_read_at_a_call_site_refused(name):
    with pytest.raises(P4CompileError, match="could not convert expression to Json"):
        compile_source(LIVE[name], f"{name}.p4")


@pytest.mark.parametrize("name", sorted(DEAD))
def test_action_store_dead_at_every_call_site_compiles(name):
    compile_source(DEAD[name], f"{name}.p4")


@pytest.mark.skipif(shutil.which("p4c") is None, reason="needs real p4c")
def test_p4c_agrees():
    from test_mutants import p4c_wrong_verdicts
    assert p4c_wrong_verdicts({n: (s,) for n, s in LIVE.items()}, DEAD) == []


def test_compound_assign_mutants_build_as_their_p4c_spelling():
    """fuzz_mutants' paired kind ``compound_assign`` (helper mutz72): each mutant's ``L op= R;`` (its source)
    and ``L = L op (R);`` (its ref_source, what p4c compiles) give checkmate-p4c the same device config, or
    are both refused -- the frames' comparison then rests on the lowering alone."""
    import json

    from fuzz_mutants import generate

    def build(text):
        try:
            return json.dumps(compile_source(text, "m.p4").device_config, sort_keys=True, default=str)
        except P4CompileError:
            return None
    kept = 0
    for seed in range(1, 31):
        c = generate(seed, "compound_assign")
        assert "=" in c.note and c.ref_source and c.ref_source != c.source, seed
        a, b = build(c.source), build(c.ref_source)
        assert a == b, (seed, c.note)
        kept += a is not None
    assert kept >= 20
