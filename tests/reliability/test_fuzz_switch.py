"""Fuzzing the switch: p4src/checkmate.p4 in-process (switch.runtime.Pipeline) and as a real
checkmate-switch process over its UDP-tunnel ports.

Every frame of a deterministic corpus (random bytes, truncated Ethernet/IPv4/UDP/Checkmate headers,
bad versions/flags/dtypes/lengths, huge counts, wrong jobs, byte flips) is checked against the data
plane's documented policy (docs/DATAPLANE.md, ``conftest.oracle``): dropped frames are counted in
``drops``, malformed Checkmate headers (truncated / version != 1) are counted in ``malformed`` and
forwarded unchanged, never copied; only well-formed FINAL chunks from trainer ports are copied.
Afterwards valid traffic still forwards and copies correctly.
"""
from __future__ import annotations

import time

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from checkmate import wire

from .conftest import P, P4RT, build_corpus, counter_cells, oracle, valid_chunk

N_INPROC = 10_000
N_PROC = 2_000


def _expected_totals(corpus):
    mal, drops, outs, copies = [0, 0], [0] * 8, 0, 0
    for port, f in corpus:
        e = oracle(port, f)
        if e.malformed is not None:
            mal[e.malformed] += 1
        if e.drop is not None:
            drops[e.drop] += 1
        outs += e.outputs
        copies += e.copy
    return mal, drops, outs, copies


def _check_valid_traffic(outs, f):
    """A FINAL chunk h1 -> h2 (param 1: shard 0, shadow sh1 on port 4): original on 2, copy on 4."""
    by_port = {p: d for p, d in outs}
    assert sorted(by_port) == [2, 4], f"valid FINAL chunk: expected outputs on ports 2 and 4, got {sorted(by_port)}"
    orig, copy = Ether(by_port[2]), Ether(by_port[4])
    assert orig[IP].dst == "10.77.0.2" and by_port[2][34:] == f[34:]
    assert copy[IP].dst == "10.77.0.101" and copy[UDP].dport == 48880 and by_port[4][42:] == f[42:]


def test_pipeline_survives_10k_malformed_frames(star_pipe, index):
    pipe = star_pipe()
    corpus = build_corpus(N_INPROC, seed=11)
    assert len(corpus) >= 10_000
    mismatches = []
    for i, (port, f) in enumerate(corpus):
        try:
            outs = pipe.process(port, f)
        except Exception as e:  # noqa: BLE001 -- any exception is a crash of the data plane
            raise AssertionError(f"frame #{i} ({len(f)} bytes, port {port}) crashed the pipeline: "
                                 f"{type(e).__name__}: {e}; frame={f[:80].hex()}") from e
        exp = oracle(port, f)
        if len(outs) != exp.outputs:
            mismatches.append((i, port, len(outs), exp, f[:80].hex()))
            continue
        if exp.outputs and exp.malformed is not None:
            # malformed: forwarded unchanged (only MACs, TTL and IPv4 checksum differ), never copied
            (_, o), = outs
            assert o[34:] == f[34:], f"frame #{i}: malformed Checkmate datagram altered in forwarding"
        if exp.copy:
            assert any(o[42:] == f[42:] and Ether(o)[UDP].dport == 48880 for _, o in outs), f"frame #{i}: bad copy"
    assert not mismatches, (f"{len(mismatches)} frames disagree with the documented policy; first: "
                            f"{mismatches[:3]}")
    mal, drops, _, copies = _expected_totals(corpus)
    got_mal = [c[0] for c in counter_cells(pipe, index, "malformed")]
    got_drops = [c[0] for c in counter_cells(pipe, index, "drops")]
    got_copies = sum(c[0] for c in counter_cells(pipe, index, "shard_replicas"))
    assert got_mal == mal, f"malformed counter {got_mal} != policy {mal} (0 version, 1 truncated)"
    assert got_drops == drops, f"drops counter {got_drops} != policy {drops}"
    assert got_copies == copies
    assert mal[0] > 500 and mal[1] > 500 and copies > 500  # the corpus really exercises each path
    # the switch still forwards and copies valid traffic exactly
    f = valid_chunk(param_id=1, iteration=99)
    _check_valid_traffic(pipe.process(1, f), f)


def test_pipeline_extreme_frames(star_pipe):
    """Empty, 1-byte, header-only and 64 KiB frames; an all-0xff Checkmate header; count 0xffff."""
    pipe = star_pipe()
    base = valid_chunk()
    cases = [b"", b"\x00", base[:14], base[:33], base[:41], base[:42], base[:73], base[:74],
             base + bytes(65_000), base[:42] + b"\xff" * 32, base[:42] + b"\x01\x01\x00\x00" + b"\xff" * 28]
    for f in cases:
        for port in (1, 4, 255, 0):
            outs = pipe.process(port, f)
            assert len(outs) == oracle(port, f).outputs or port in (0, 255), (len(f), port, outs)


def _read_counter(ctl: P4RT, index, short: str) -> list[int]:
    cid = index.id("counters", short)
    ents = ctl.read(P.Entity(counter_entry=P.CounterEntry(counter_id=cid)))
    cells = {e.counter_entry.index.index: e.counter_entry.data.packet_count for e in ents}
    return [cells.get(i, 0) for i in range(max(cells) + 1 if cells else 0)]


def test_switch_process_survives_fuzz_burst(programmed_switch, index):
    sp = programmed_switch
    corpus = build_corpus(N_PROC, seed=23)
    ctl = P4RT(sp.grpc_addr)
    try:
        mal0 = _read_counter(ctl, index, "malformed")
        before = sp.stats()
        sent = 0
        for k in range(0, len(corpus), 250):  # bursts, paced on the switch's own rx counter (no loss)
            for port, f in corpus[k:k + 250]:
                sp.send(port, f)
                sent += 1
            end = time.monotonic() + 30
            while sp.stats()["rx"] - before["rx"] < sent and time.monotonic() < end:
                time.sleep(0.05)
        got = sp.drain_all(quiet=1.0)
        assert sp.alive(), f"checkmate-switch died: {sp.log_path.read_text()[-2000:]}"
        st = sp.stats()
        assert st["rx"] - before["rx"] == sent, f"switch received {st['rx'] - before['rx']} of {sent} frames"
        assert st["pipeline_errors"] == before["pipeline_errors"], \
            f"pipeline errors in the switch process: {sp.log_path.read_text()[-2000:]}"
        mal, _, outs, copies = _expected_totals(corpus)
        total_out = sum(len(v) for v in got.values())
        assert total_out == outs, f"switch emitted {total_out} frames, the policy says {outs}"
        mal1 = _read_counter(ctl, index, "malformed")
        delta = [a - (mal0[i] if i < len(mal0) else 0) for i, a in enumerate(mal1)]
        assert delta == mal, f"malformed counter over P4Runtime {delta} != policy {mal} (0 version, 1 truncated)"
        # still up, still forwarding and copying valid traffic
        f = valid_chunk(param_id=1, iteration=1234)
        sp.send(1, f)
        outs2 = [(p, sp.recv(p, 5)) for p in (2, 4)]
        assert all(o is not None for _, o in outs2), "valid FINAL chunk not forwarded/copied after the fuzz burst"
        _check_valid_traffic(outs2, f)
    finally:
        ctl.close()
