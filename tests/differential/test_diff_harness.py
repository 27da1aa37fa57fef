"""diff_harness.write_source: the file a compiler reads holds the text of the case that asked for it,
whatever another run writing the same case name does meanwhile (the work folder is per user)."""
from __future__ import annotations

import threading

from diff_harness import Case, write_source


def test_two_texts_under_one_name_keep_their_own_files(monkeypatch, tmp_path):
    monkeypatch.setenv("CHECKMATE_DIFF_WORK", str(tmp_path))
    a = Case(name="same_name", category="t", source="// program A\n")
    b = Case(name="same_name", category="t", source="// program B\n")
    pa = write_source(a)
    pb = write_source(b)
    assert pa != pb and pa.name == pb.name == "same_name.p4"   # p4c's messages still name the case
    assert pa.read_text() == a.source and pb.read_text() == b.source
    ref = Case(name="same_name", category="t", source="// ours\n", ref_source="// p4c's\n")
    pr = write_source(ref, ref=True)
    assert pr.name == "same_name.ref.p4" and pr.read_text() == ref.ref_source
    assert write_source(ref).read_text() == ref.source


def test_concurrent_writers_never_hand_out_another_text_or_half_a_file(monkeypatch, tmp_path):
    monkeypatch.setenv("CHECKMATE_DIFF_WORK", str(tmp_path))
    cases = [Case(name="race", category="t", source=f"// {i}\n" + "x" * 200_000) for i in range(4)]
    bad: list = []

    def writer(case):
        for _ in range(50):
            if write_source(case).read_text() != case.source:
                bad.append(case.source[:8])
    threads = [threading.Thread(target=writer, args=(c,)) for c in cases * 2]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad
    assert not [p for p in tmp_path.rglob(".*") if p.is_file()]   # no temporary left behind
