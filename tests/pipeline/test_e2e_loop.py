"""An egress that E2E-clones every packet, its clones included (fuzz_mutants default kinds seed 4495:
``|| (1 == 1)`` on corpus13's E2E-clone base): on BMv2 the chain never ends -- one packet at a time
goes through the egress queues (64 packets each), so its memory stays bounded while it sends frames
forever.  ``Engine.run`` returns a list, so it cuts the chain after MAX_E2E_CLONES clones of one
received frame (before, run never returned and the embedded switch grew to 10 GB).  Counted, not timed:
the sink refuses more frames than the bound allows."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "differential"))

from diffcases.base import H, program  # noqa: E402
from switch.compiler import compile_source  # noqa: E402
from switch.runtime import Pipeline  # noqa: E402
from switch.runtime.engine import MAX_E2E_CLONES  # noqa: E402

SRC = program(egress="""        hdr.h.a = hdr.h.a + 1;
        clone(CloneType.E2E, 5);
""")


class _Sink(list):
    """A frame list that refuses to grow past ``limit`` (an endless run fails instead of hanging)."""
    def __init__(self, limit):
        super().__init__()
        self.limit = limit

    def append(self, item):
        if len(self) >= self.limit:
            raise OverflowError(f"more than {self.limit} frames from one received frame")
        super().append(item)


def test_endless_e2e_clone_chain_is_cut():
    pl = Pipeline(compile_source(SRC, "e2e_loop.p4").device_config)
    pl.clone_session_set(5, [(2, 1)])
    eng = pl.program
    for _ in range(2):
        out = eng.run(1, H(1, 2), out=_Sink(2 * MAX_E2E_CLONES + 10))
        # the original on port 1, then each clone on port 2 (and clones it again) up to the bound
        assert len(out) == MAX_E2E_CLONES + 1
        assert out[0][0] == 1 and {p for p, _ in out[1:]} == {2}
        assert out[1][1][14] == (out[0][1][14] + 1) & 0xff
    # a frame whose egress does not clone is untouched by the previous frame's cut chain
    pl.clone_session_delete(5)
    assert [p for p, _ in pl.process(1, H(1, 2))] == [1]
