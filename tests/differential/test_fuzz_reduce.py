"""The reducer's search, without switches: ``still_fails`` replaced by a predicate on the candidate.

What matters for a finding that needs its writes (fuzz_pre's multicast groups, fuzz_tables'
entries): every candidate the reducer tries is the original :class:`Case` with only its source
changed, and the result is the smallest source the predicate still holds for.
"""
from __future__ import annotations

import fuzz_reduce
from diff_harness import Case
from controller.entities import Entry

PROGRAM = """\
control C(inout H h) {
    action a() {
        h.x = 1;
        h.y = 2;
    }
    apply {
        h.z = 3;
        if (h.x == 1) {
            h.w = 4;
        }
        a();
    }
}
"""


def test_reduce_keeps_everything_but_the_source(monkeypatch):
    seen = []

    def still_fails(targets, case, kind):
        seen.append(case)
        return "h.w = 4;" in case.source   # the "disagreement" lives in that line

    monkeypatch.setattr(fuzz_reduce, "still_fails", still_fails)
    entry = Entry(table="C.t", match={"h.x": 1}, action="C.a")
    case = Case(name="f", category="fuzz", source=PROGRAM, frames=[(1, b"\x00" * 20)], entries=[entry],
                mcast={1: [(2, 0), (3, 1)]}, clones={5: ([(4, 0)], 0)}, one_by_one=True,
                mcast_changes={1: {1: [(2, 0)]}})
    out = fuzz_reduce.reduce(None, case, "FRAMES", log=open("/dev/null", "w"))
    assert "h.w = 4;" in out
    for gone in ("h.z = 3;", "h.y = 2;", "a();"):
        assert gone not in out, out
    assert seen, "the reducer tried nothing"
    for c in seen:
        assert (c.frames, c.entries, c.mcast, c.clones, c.one_by_one, c.mcast_changes) == \
            (case.frames, case.entries, case.mcast, case.clones, case.one_by_one, case.mcast_changes)


def test_units_take_blocks_whole():
    lines = PROGRAM.splitlines()
    got = {lines[a].strip(): b - a for a, b in fuzz_reduce.units(lines)}
    assert got["if (h.x == 1) {"] == 3          # the if with its body and closing brace
    assert got["action a() {"] == 4             # an action as a whole
    assert got["h.z = 3;"] == 1


def test_reduce_shrinks_a_template_in_both_spellings(monkeypatch):
    # a generator's text with a placeholder spelled one way for checkmate-p4c, another for p4c
    text = PROGRAM.replace("h.z = 3;", "/*@0@*/")
    alts = {"/*@0@*/": ("h.z += 3;", "h.z = h.z + 3;")}

    def resolve(t, ref):
        for k, v in alts.items():
            t = t.replace(k, v[ref])
        return t
    seen = []

    def still_fails(targets, case, kind):
        seen.append(case)
        return "h.z += 3;" in case.source and "h.z = h.z + 3;" in (case.ref_source or "")

    monkeypatch.setattr(fuzz_reduce, "still_fails", still_fails)
    case = Case(name="f", category="fuzz", source=resolve(text, False), frames=[(1, b"\x00" * 20)],
                ref_source=resolve(text, True))
    out = fuzz_reduce.reduce(None, case, "FRAMES", log=open("/dev/null", "w"), template=(text, resolve))
    assert "/*@0@*/" in out
    for gone in ("h.w = 4;", "h.y = 2;", "a();"):
        assert gone not in out, out
    assert all("/*@" not in c.source + (c.ref_source or "") for c in seen)
    assert all(c.ref_source for c in seen if "h.z" in c.source)   # (one text: None where both agree)
