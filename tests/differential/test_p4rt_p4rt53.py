"""P4Runtime behaviour helper p4rt53 (issue #15) measured on simple_switch_grpc 1.15.5 and copied,
on checkmate-p4c's build of the program (``p4rt_vs.run(cm_build=True)``) against p4c's JSON on BMv2.

Tables p4c's mid end removes that checkmate-p4c kept (p4rt39's open item, 17 diffcase programs):
P4Info lists them, p4c's JSON has none, and BMv2 answers UNKNOWN to a read of one, of its default
entry, and to a read of all tables (PI asks BMv2 for each P4Info table); checkmate-switch read them.
(1) A table applied only after a single-case switch whose case returns (``switch (hdr.h.b) { 5: {
return; } } t2.apply();``): p4c's RemoveReturns flag makes everything after the switch dead for its
mid end (elab_common.live_prefix keeps it under the switch's ``p4info_rest``), and
``table_successors.midend_kept_tables`` counted a table named there as kept.  (2) A table after
``if ((E)(bit<4>)8w0x15 == E.B) { return; }``: the enum cast overwrote the inner cast's type, so the
constant folded as 0x15 (no match) where p4c folds 5 (the ``if`` returns; ``elab_casts.cast`` now
wraps the inner cast).  Frames agreed already: only P4Runtime showed them."""
from __future__ import annotations

import json

import pytest
from p4.v1 import p4runtime_pb2 as pb

from diff_targets import bmv2_available
from p4rt_vs import run

SKIP = bmv2_available()
U = pb.Update

#: diffcase programs whose table p4c's mid end removes -> the tables it removes
REMOVED = {
    "mutz40_field_store_overwritten_past_a_single_case_switch_whose_case_returns_in_an_action_if": {"I.t2"},
    "mutz41_field_store_past_a_single_case_switch_whose_case_returns_in_an_action_run_switch_case": {"I.t3"},
    "mutz41_field_store_past_a_single_case_switch_whose_case_returns_across_a_table_apply_overwriting": {"I.t2"},
    "fuzz24_enum_cast_of_a_constant_expression_not_folded": {"I.t1", "I.t2", "I.t3"},
}


def _source(name: str) -> str:
    from diffcases import all_cases
    return next(c.source for c in all_cases() if c.name == name)


@pytest.mark.parametrize("name", sorted(REMOVED))
def test_the_build_removes_the_tables_p4c_removes(name):
    """checkmate-p4c's build marks ``midend_removed`` exactly the P4Info tables p4c's JSON lacks (the
    P4Info still lists them: test_p4info_equal)."""
    from switch.compiler import compile_source
    prog = compile_source(_source(name), "p.p4")
    assert {t["name"] for t in prog.device_config["tables"] if t.get("midend_removed")} == REMOVED[name]
    assert REMOVED[name] <= {t.preamble.name for t in prog.p4info.tables}


@pytest.mark.skipif(SKIP is not None, reason=f"P4Runtime differential needs real BMv2: {SKIP}")
@pytest.mark.parametrize("name", sorted(REMOVED)[1:3])
def test_reads_of_a_table_p4c_removed_fail_on_the_build(targets, name):
    """A read of all tables, of a removed one and of its default entry: UNKNOWN on BMv2, a named
    refusal on checkmate-switch (fuzz_p4rt.accepted); it answered them before, from the table it
    kept.  Writes to it are refused too (a MODIFY of its default entry)."""
    removed = REMOVED[name]

    def ops(info):
        out = [("read", [pb.Entity(table_entry=pb.TableEntry())])]
        for t in info.tables:
            if t.preamble.name in removed:
                tid = t.preamble.id
                out += [("read", [pb.Entity(table_entry=pb.TableEntry(table_id=tid))]),
                        ("read", [pb.Entity(table_entry=pb.TableEntry(table_id=tid, is_default_action=True))])]
                d = pb.TableEntry(table_id=tid, is_default_action=True)
                d.action.action.action_id = t.action_refs[0].id
                out.append(("write", [U(type=U.MODIFY, entity=pb.Entity(table_entry=d))], 0))
        return out
    out = run(targets, 0, ops, source=_source(name), cm_build=True)
    assert not out, "\n".join(out)


def test_an_enum_cast_of_a_cast_folds_through_both():
    """``(E)(bit<4>)8w0x15`` is E's 5 for p4c's constant folding (the ``if`` on it returns, the table
    after it is gone from its JSON); the IR keeps both casts."""
    from switch.compiler import compile_source
    from switch.compiler.elab_common import ir_dicts
    src = _source("fuzz24_enum_cast_of_a_constant_expression_not_folded")
    cfg = compile_source(src, "p.p4").device_config
    casts = [d for d in ir_dicts(cfg["blocks"]["ingress"]) if d.get("op") == "cast" and d.get("enum_cast")
             and isinstance(d.get("a"), dict) and d["a"].get("op") == "cast"]
    assert casts and all(c["a"]["t"] == ["bit", 4] for c in casts), json.dumps(casts)[:500]

