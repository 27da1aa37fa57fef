"""The data plane's send order (switch/daemon.py): a FINAL chunk's forward leaves before its
replica's egress pass runs and before the next frame of the batch is processed; the copies to
a lossless (shadow) port follow the batch; every port gets what Pipeline.process returns, in
order.  In process: the real checkmate.p4 pipeline and TM, ports that record their sends."""
from __future__ import annotations

# the bench's frames and its checkmate.p4 set-up (one copied job, a forward port, a lossless shadow port)
from benchmarks.bench_dataplane import FORWARD, OTHER, PROGRAM, SHADOW, _Spec, chunk, frame
from benchmarks.bench_dataplane import IN_PORT as TRAINER_IN
from benchmarks.bench_dataplane import pipeline as _pipeline
from switch.compiler import compile_file
from switch.daemon import Switch
from switch.tm import TrafficManager


def _chunk(seq: int, job: int = 1) -> bytes:
    return chunk(seq, job, count=8, offset=seq)  # small chunks: distinct offsets, one frame each


class _RecordingPort:
    def __init__(self, n, events):
        self.spec, self.number, self.events = _Spec(n), n, events

    def send(self, frame):
        self.events.append(("send", self.number, frame))

    def send_wait(self, frame, timeout):
        self.send(frame)


def test_forward_leaves_before_its_replica_is_processed_and_copies_follow_the_batch():
    compiled = compile_file(str(PROGRAM))
    events: list = []
    tm = TrafficManager()
    ports = [_RecordingPort(n, events) for n in (TRAINER_IN, FORWARD, OTHER, SHADOW)]
    sw = Switch(ports, tm, send_order="frame")
    tm.configure(SHADOW, {"lossless": True})  # as the testbed configures a shadow's port
    pl = _pipeline(compiled)
    sw.install(pl)
    engine = pl.program
    egress = engine.egress

    def recording_egress(P):
        events.append(("egress", P.sm.egress_port, P.sm.egress_rid))
        return egress(P)

    engine.egress = recording_egress
    batch = [_chunk(1), frame(9999, b"plain", dst=bytes([10, 77, 0, 3])), _chunk(2), _chunk(3, job=2), _chunk(4)]
    try:
        sw._process_batch(TRAINER_IN, batch)
    finally:
        tm.close()

    # what each port must carry, in order: Pipeline.process on a twin pipeline
    twin = _pipeline(compiled)
    want: dict[int, list[bytes]] = {}
    for f in batch:
        for port, data in twin.process(TRAINER_IN, f):
            want.setdefault(port, []).append(data)
    got: dict[int, list[bytes]] = {}
    for e in events:
        if e[0] == "send":
            got.setdefault(e[1], []).append(e[2])
    assert got == want
    assert len(want[SHADOW]) == 3 and len(want[FORWARD]) == 4

    kinds = [e[:3] if e[0] == "egress" else e[:2] for e in events]
    # every copied chunk: forward egress, forward sent, then the replica's egress pass
    for i, k in enumerate(kinds):
        if k == ("egress", SHADOW, 1):
            assert kinds[i - 2:i] == [("egress", FORWARD, 0), ("send", FORWARD)], kinds
    # the next frame is parsed only after the previous one's forward left: sends interleave
    assert kinds.index(("send", FORWARD)) < kinds.index(("send", OTHER))
    # the lossless shadow port's copies go after the whole batch's forwards
    last_forward = max(i for i, k in enumerate(kinds) if k[0] == "send" and k[1] != SHADOW)
    assert min(i for i, k in enumerate(kinds) if k == ("send", SHADOW)) > last_forward
    assert sw.stats.tx == 8 and sw.stats.pipeline_errors == 0
    st = tm.stats()
    assert st[FORWARD].sent == 4 and st[SHADOW].sent == 3 and st[OTHER].sent == 1


def test_batch_send_order_sends_after_the_batch_with_the_same_frames_per_port():
    compiled = compile_file(str(PROGRAM))
    events: list = []
    tm = TrafficManager()
    sw = Switch([_RecordingPort(n, events) for n in (TRAINER_IN, FORWARD, OTHER, SHADOW)], tm, send_order="batch")
    tm.configure(SHADOW, {"lossless": True})
    pl = _pipeline(compiled)
    sw.install(pl)
    egress = pl.program.egress

    def recording_egress(P):
        events.append(("egress", P.sm.egress_port, P.sm.egress_rid))
        return egress(P)

    pl.program.egress = recording_egress
    batch = [_chunk(1), _chunk(2, job=2), _chunk(3)]
    try:
        sw._process_batch(TRAINER_IN, batch)
    finally:
        tm.close()
    kinds = [e[0] for e in events]
    assert kinds == ["egress"] * kinds.count("egress") + ["send"] * kinds.count("send")  # every send after the batch
    twin = _pipeline(compiled)
    want = [(p, d) for f in batch for p, d in twin.process(TRAINER_IN, f)]
    assert [(e[1], e[2]) for e in events if e[0] == "send"] == want  # the pipeline's order, all ports
    import pytest
    with pytest.raises(ValueError, match="send_order 'later'"):
        Switch([], TrafficManager(), send_order="later")


def test_pipeline_errors_are_counted_and_each_program_logs_its_first_ten(caplog):
    """A frame the program raises on is counted every time; the warning is logged for the first
    10 per installed program, so a switch that takes many programs (the differential suite)
    still says what went wrong with a later one."""
    class _Raising:
        trace = None

        def process(self, port, frame):
            raise ValueError("boom")

        def process_into(self, port, frames, out):
            return [(i, ValueError("boom")) for i in range(len(frames))]

    tm = TrafficManager()
    sw = Switch([_RecordingPort(n, []) for n in (TRAINER_IN, FORWARD)], tm)
    try:
        caplog.set_level("WARNING", logger="checkmate.switch")
        sw.install(_Raising())
        sw._process_batch(TRAINER_IN, [b"x" * 60] * 12)
        assert sw.stats.pipeline_errors == 12
        assert sum("pipeline error" in r.getMessage() for r in caplog.records) == 10
        sw.install(_Raising())   # a new program: its own first ten
        sw._process(TRAINER_IN, b"y" * 60)
        assert sw.stats.pipeline_errors == 13
        assert sum("pipeline error" in r.getMessage() for r in caplog.records) == 11
    finally:
        tm.close()
