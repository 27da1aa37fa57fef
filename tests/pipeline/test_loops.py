"""Long resubmit/recirculate loops (runtime/engine.py): BMv2 sets no bound, the embedded target cuts a
packet after MAX_PASSES passes.  Such a loop's passes are released onto the PHV pool (POOL_MAX) when
the next packet arrives; ``Engine._passes`` keeps only the last POOL_MAX of them (the pool keeps no
more), so that a pass start is no O(passes) search (helper regs: 4096 passes took ~0.26 s a packet,
now ~0.05 s) and the pool, hence the next packets' reused header values, is the same as before.
Since helper recirc47 a recirculated pass releases its original onto the pool at once
(``Engine._requeued``), as BMv2 does, so a loop's passes no longer pile up in ``_passes``."""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "differential"))

from diffcases.base import H, program  # noqa: E402
from switch.compiler import compile_source  # noqa: E402
from switch.runtime import Pipeline  # noqa: E402
from switch.runtime.engine import POOL_MAX, REUSE_GAP_S  # noqa: E402

# h2 is never extracted: setValid shows the values the pooled PHV kept; each pass counts into it
SRC = program("""        if (!hdr.h2.isValid()) { hdr.h2.setValid(); }
        hdr.h2.a = hdr.h2.a + 1;
""", egress="""        hdr.h2.c = (bit<16>)meta.n;
        if (meta.n < hdr.h.b || hdr.h.a == 0xff) {
            meta.n = meta.n + 1;
            hdr.h2.d = hdr.h2.d + 1;
            recirculate_preserving_field_list(0);
        }
""", meta="    @field_list(0) bit<8> n;\n")


def _old_started(self, P):
    """Engine._started before the bound (every pass of the packet kept)."""
    passes = self._passes
    if passes and passes[-1] is P:
        return
    if P in passes:
        passes.remove(P)
    passes.append(P)


def test_long_loops_keep_the_pool_and_are_cut_at_max_passes():
    ir = compile_source(SRC, "loops.p4").device_config
    new, old = Pipeline(ir), Pipeline(ir)
    old.program._started = _old_started.__get__(old.program)
    frames = [H(1, 100), H(2, 3), H(0xff), H(3, 70), H(4, 0), H(5, 200), H(6, 65), H(7, 1)]
    for f in frames:
        time.sleep(REUSE_GAP_S * 1.5)
        a = new.process(1, f)
        time.sleep(REUSE_GAP_S * 1.5)
        assert old.process(1, f) == a
        assert len(new.program._passes) <= POOL_MAX
        if f[14] == 0xff:   # endless: cut after MAX_PASSES passes, nothing sent; each recirculated
            # pass released its original onto the pool (Engine._requeued, helper recirc47)
            assert a == [] and len(old.program._passes) <= 1 and len(old.program._pool) <= POOL_MAX

