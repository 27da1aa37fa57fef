"""The whole shard in one Adam pass (:mod:`shadow.merged`) against the trainer's own per-tensor
``torch.optim`` step, bit for bit: when it is used (AdamW, amsgrad, foreach on/off) and when not (Adam
with coupled weight decay, a kernel the probe catches differing by one rounding), LRs that differ per
group for some steps (the per-group fallback on the same storage), a ``no_grad`` step before any state
exists, and published snapshots that share nothing with the storage the next steps write."""
import numpy as np
import pytest
import torch

from shadow import merged
from shadow.merged import MergedAdam

from tests.shadow.test_replay_flat import Trainer, check, slot_of


@pytest.mark.parametrize("foreach", [False, True])
@pytest.mark.parametrize("kind", ["adamw", "adamw-amsgrad"])
def test_merged_step_is_bitwise_and_used(bits, kind, foreach):
    tr = Trainer(kind, foreach, seed=3)
    rep, lay = tr.bootstrap()
    assert rep._merged is not None
    assert rep._merged.amsgrad == (kind == "adamw-amsgrad")
    snap0 = rep.snapshot()
    assert snap0.opt_state == {}  # no step yet: the trainer has no optimizer state either
    check(bits, rep, tr, lay.owned)
    for _ in range(30):
        m, grads = tr.step()
        rep.step(m, slot_of(lay, grads))
        check(bits, rep, tr, lay.owned)
    assert rep._merged is not None


def test_group_lrs_that_differ_fall_back_per_group_and_stay_exact(bits, monkeypatch):
    tr = Trainer("adamw", False, seed=4)
    # group 1's LR differs from group 0's on every third step only
    tr.sched = torch.optim.lr_scheduler.LambdaLR(
        tr.opt, [lambda s: 1.0 / (1 + 0.1 * s), lambda s: 0.5 if s % 3 == 1 else 1.0 / (1 + 0.1 * s)])
    rep, lay = tr.bootstrap()
    used = []
    real = MergedAdam.step

    def spy(self, grad, lrs):
        ok = real(self, grad, lrs)
        used.append(ok)
        return ok

    monkeypatch.setattr(MergedAdam, "step", spy)
    for _ in range(24):
        m, grads = tr.step()
        rep.step(m, slot_of(lay, grads))
        check(bits, rep, tr, lay.owned)
    assert True in used and False in used  # both paths ran, on the same state


def test_no_grad_before_any_state_and_after(bits):
    tr = Trainer("adamw", False, seed=5)
    rep, lay = tr.bootstrap()
    m, grads = tr.step(unused=(3,))  # the first step already leaves a param out
    rep.step(m, slot_of(lay, grads))
    check(bits, rep, tr, lay.owned)
    assert rep._merged is None and rep.flat is None
    for _ in range(6):
        m, grads = tr.step()
        rep.step(m, slot_of(lay, grads))
        check(bits, rep, tr, lay.owned)


def test_coupled_weight_decay_is_not_merged(bits):
    tr = Trainer("adam", False, seed=6)  # Adam with weight_decay 0.05 on one group: grad += wd * param
    rep, lay = tr.bootstrap()
    assert rep._merged is None and rep.flat is not None
    for _ in range(8):
        m, grads = tr.step()
        rep.step(m, slot_of(lay, grads))
        check(bits, rep, tr, lay.owned)


def _steps(tr, rep, lay, n):
    for _ in range(n):
        m, grads = tr.step()
        rep.step(m, slot_of(lay, grads))


def test_a_held_snapshot_is_never_written_and_a_dropped_one_is_reused(bits):
    """The next step writes into a copy of the state nobody holds: every published state, or any
    part of one (a dict, a tensor, a slice, a NumPy array of it), keeps its values however many steps
    follow; copies nobody holds are reused (the pool stays small)."""
    tr = Trainer("adamw", False, seed=7)
    rep, lay = tr.bootstrap()
    _steps(tr, rep, lay, 2)
    held = []  # (what is held, how to read its values back, the values when published)
    for it in range(6):
        snap = rep.snapshot()
        pid = lay.owned[it % len(lay.owned)]
        if it == 0:
            obj = snap
            read = lambda o, pid=pid: o.tensors[pid]
        elif it == 1:
            obj = snap.opt_state  # only the dict
            read = lambda o, pid=pid: o[pid]["exp_avg_sq"]
        elif it == 2:
            obj = snap.tensors[pid]  # only one tensor
            read = lambda o: o
        elif it == 3:
            obj = snap.opt_state[pid]["exp_avg"].reshape(-1)[1:]  # a view of it
            read = lambda o: o
        elif it == 4:
            obj = snap.tensors[pid].numpy()  # a NumPy array of it
            read = lambda o: torch.from_numpy(o.copy())
        else:
            obj = snap.opt_state[pid]["step"]
            read = lambda o: o
        held.append((obj, read, read(obj).clone()))
        del snap
        _steps(tr, rep, lay, 1)
    _steps(tr, rep, lay, 10)
    for obj, read, want in held:
        assert bits(read(obj), want)
    check(bits, rep, tr, lay.owned)
    pool = len(rep._merged.pool)
    held.clear()
    _steps(tr, rep, lay, 20)  # nothing held now: the same few copies go round
    assert len(rep._merged.pool) == pool
    check(bits, rep, tr, lay.owned)


def test_probe_catches_a_kernel_one_rounding_off(bits, monkeypatch):
    """Dividing by the bias correction as a multiplication by its reciprocal rounds differently for some
    elements: the probe must refuse it, and the replica then steps per group (still exact)."""

    def recip(a, b, out=None):
        return np.multiply(a, np.float32(1.0) / b, out=out)

    monkeypatch.setattr(np, "divide", recip)  # what the merged step divides with
    monkeypatch.setattr(merged, "_exact_cache", {})
    tr = Trainer("adamw", False, seed=8)
    rep, lay = tr.bootstrap()
    assert rep._merged is None and rep.flat is not None
    for _ in range(5):
        m, grads = tr.step()
        rep.step(m, slot_of(lay, grads))
        check(bits, rep, tr, lay.owned)
