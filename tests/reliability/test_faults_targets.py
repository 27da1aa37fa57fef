"""``checkmate faults --switch bmv2``'s plan and table, without a network: which scenarios BMv2 can
express, the traffic-manager ones listed as SKIP with the reason, and the BMv2 table in its own
docs section (the embedded one untouched)."""
from topologies import faults as F


def test_bmv2_plan_keeps_what_bmv2_can_express():
    quick, _ = F.plan(True, 11, None, 3, "bmv2")
    chains, skipped = F.for_target(quick, "bmv2")
    kinds = [r["kind"] for _, rows in chains for r in rows]
    assert kinds == ["shadow", "switch", "trainer"] and [r["kind"] for r in skipped] == ["loss"]
    full, _ = F.plan(False, 11, 2, 3, "bmv2")
    chains, skipped = F.for_target(full, "bmv2")
    assert {c for c, _ in chains} == {"infra", "kill"}
    assert sorted({r["kind"] for r in skipped}) == ["loss", "slow"] and len(skipped) == 5
    # the embedded target runs everything, and its quick suite is unchanged
    emb, _ = F.plan(True, 11, None, 3)
    assert F.for_target(emb, "embedded") == (emb, [])
    assert [r["kind"] for r in emb[0][1]] == ["loss", "shadow", "trainer"]


def test_skipped_rows_say_why_and_bmv2_table_has_its_own_section(tmp_path):
    row = F.skipped_row(F.row("loss 1 % on shadow ports", "loss", tm={}, gap=1))
    assert row["verdict"] == "SKIP" and "traffic manager" in row["skip_reason"]
    table = {"quick": True, "date": "d", "seed": 1, "iters": 5, "trainers": 3, "duration_s": 1.0,
             "out": "x", "switch": "bmv2", "rows": [row]}
    md = F.markdown(table)
    assert "BMv2 simple_switch_grpc" in md and "| loss 1 % on shadow ports | - | - | - | not run: needs" in md
    doc = tmp_path / "R.md"
    doc.write_text(f"# R\n\n{F.BEGIN}\nembedded table\n{F.END}\n\nother text\n")
    F.write_doc(md, doc, switch="bmv2")
    F.write_doc(md.replace("d)", "e)"), doc, switch="bmv2")  # second write replaces, not appends
    text = doc.read_text()
    assert "embedded table" in text and "other text" in text
    assert text.count("<!-- faults-bmv2:begin -->") == 1 and "## Fault scenarios on BMv2" in text
