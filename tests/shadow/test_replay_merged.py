"""The whole shard in one Adam pass (:mod:`shadow.merged`) against the trainer's own per-tensor
``torch.optim`` step, bit for bit: when it is used (AdamW, amsgrad, foreach on/off; the compiled step of
:mod:`shadow.adam_native` and the torch/NumPy one) and when not (Adam with coupled weight decay, a
kernel the probe catches differing by one rounding, compiled or not), LRs that differ per group for
some steps (the per-group fallback on the same storage), a ``no_grad`` step before any state exists,
and published snapshots that share nothing with the storage the next steps write."""
import numpy as np
import pytest
import torch

from shadow import adam_native, merged
from shadow.merged import MergedAdam

from tests.shadow.test_replay_flat import Trainer, check, slot_of


NATIVE = adam_native.load()


@pytest.fixture(params=["native", "torch"])
def kernel(request, monkeypatch):
    """Run a test with the compiled step (where this machine builds it) and without it."""
    if request.param == "native" and NATIVE is None:
        pytest.skip("shadow/adam_native.c is not built here (no C compiler, no FMA, or CHECKMATE_NATIVE=0)")
    if request.param == "torch":
        monkeypatch.setattr(adam_native, "load", lambda flags=None: None)
    monkeypatch.setattr(merged, "_exact_cache", {})
    return request.param


@pytest.mark.parametrize("foreach", [False, True])
@pytest.mark.parametrize("kind", ["adamw", "adamw-amsgrad"])
def test_merged_step_is_bitwise_and_used(bits, kind, foreach, kernel):
    tr = Trainer(kind, foreach, seed=3)
    rep, lay = tr.bootstrap()
    assert rep._merged is not None
    assert (rep._merged.lib is not None) == (kernel == "native")
    one_call = kernel == "native" and kind == "adamw" and adam_native.torch_sqrt() is not None
    assert (rep._merged.vsqrt is not None) == one_call  # torch's sqrt called from the compiled step
    assert rep._merged.amsgrad == (kind == "adamw-amsgrad")
    snap0 = rep.snapshot()
    assert snap0.opt_state == {}  # no step yet: the trainer has no optimizer state either
    check(bits, rep, tr, lay.owned)
    for _ in range(30):
        m, grads = tr.step()
        rep.step(m, slot_of(lay, grads))
        check(bits, rep, tr, lay.owned)
    assert rep._merged is not None


def test_group_lrs_that_differ_fall_back_per_group_and_stay_exact(bits, monkeypatch, kernel):
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


def test_a_held_snapshot_is_never_written_and_a_dropped_one_is_reused(bits, kernel):
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

    monkeypatch.setattr(np, "divide", recip)  # what the (torch/NumPy) merged step divides with
    monkeypatch.setattr(adam_native, "load", lambda flags=None: None)
    monkeypatch.setattr(merged, "_exact_cache", {})
    tr = Trainer("adamw", False, seed=8)
    rep, lay = tr.bootstrap()
    assert rep._merged is None and rep.flat is not None
    for _ in range(5):
        m, grads = tr.step()
        rep.step(m, slot_of(lay, grads))
        check(bits, rep, tr, lay.owned)


class _OneRoundingOff:
    """The compiled step with the bias correction one float32 rounding off (some elements differ)."""

    def __init__(self, lib):
        self.lib = lib
        self.adam_pre = lib.adam_pre

    def adam_post(self, n, p, m, d, bc2_sqrt, eps, neg_step):
        self.lib.adam_post(n, p, m, d, float(np.nextafter(np.float32(bc2_sqrt), np.float32(2))), eps, neg_step)

    def adam_step(self, *args):
        *head, bc2_sqrt, eps, neg_step = args
        self.lib.adam_step(*head, float(np.nextafter(np.float32(bc2_sqrt), np.float32(2))), eps, neg_step)


@pytest.mark.skipif(NATIVE is None, reason="shadow/adam_native.c is not built here (no C compiler, no FMA, or CHECKMATE_NATIVE=0)")
def test_probe_refuses_a_compiled_step_one_rounding_off(bits, monkeypatch):
    """A compiled step that differs in one rounding must not be used: the probe refuses it and the
    replica takes the torch/NumPy merged step, still exact."""
    monkeypatch.setattr(adam_native, "load", lambda flags=None: _OneRoundingOff(NATIVE))
    monkeypatch.setattr(merged, "_exact_cache", {})
    tr = Trainer("adamw", False, seed=9)
    rep, lay = tr.bootstrap()
    assert rep._merged is not None and rep._merged.lib is None
    assert merged._exact_cache and not any(ok for k, ok in merged._exact_cache.items() if k[3])
    for _ in range(5):
        m, grads = tr.step()
        rep.step(m, slot_of(lay, grads))
        check(bits, rep, tr, lay.owned)


@pytest.mark.skipif(NATIVE is None, reason="shadow/adam_native.c is not built here (no C compiler, no FMA, or CHECKMATE_NATIVE=0)")
@pytest.mark.parametrize("one_call", [True, False])  # torch's sqrt called from C, or torch.sqrt between
@pytest.mark.parametrize("amsgrad", [False, True])
@pytest.mark.parametrize("beta1", [0.9, 0.3])  # lerp's two formulas: weight below / at or above 0.5
def test_compiled_step_equals_the_torch_step_on_special_values(amsgrad, beta1, one_call, monkeypatch):
    """The same state and gradient through both merged steps: identical bits, also for zeros of both
    signs, subnormals, huge values and infinities (NaN: NaN on both sides), every vector-tail length."""
    from shadow.flat import FlatGroup
    if one_call and adam_native.torch_sqrt() is None:
        pytest.skip("this torch exports no MKL vsSqrt: the compiled step always calls torch.sqrt")
    if not one_call:
        monkeypatch.setattr(adam_native, "torch_sqrt", lambda: None)
    rng = np.random.default_rng(11)
    special = np.array([0.0, -0.0, 1e-40, -1e-45, 3e38, -3e38, np.inf, -np.inf, np.nan, 1e-20], dtype=np.float32)
    for n in (1, 5, 8, 17, 33, 1000):
        hps = [{"lr": 1e-3, "betas": (beta1, 0.999), "eps": 1e-8, "weight_decay": 0.01, "amsgrad": amsgrad,
                "decoupled_weight_decay": True},
               {"lr": 1e-3, "betas": (beta1, 0.999), "eps": 1e-8, "weight_decay": 0.0, "amsgrad": amsgrad,
                "decoupled_weight_decay": True}]
        half = (n + 1) // 2
        groups = [FlatGroup(0, [0], [0], 0, half, torch.float32), FlatGroup(1, [1], [0], half * 4, n - half,
                                                                              torch.float32)]
        pieces = [(0, 0, (half,)), (1, half, (n - half,))]
        init = torch.from_numpy(rng.standard_normal(n).astype(np.float32))
        steps = []
        for native in (True, False):
            m = MergedAdam(groups, hps, [(init[:half], None), (init[half:], None)], pieces, native=native)
            assert (m.lib is not None) == native
            assert (m.vsqrt is not None) == (native and one_call and not amsgrad)
            out = []
            g_rng = np.random.default_rng(n)
            for k in range(4):
                g = (g_rng.standard_normal(n) * 10.0 ** g_rng.integers(-30, 4, n)).astype(np.float32)
                g[:min(n, len(special))] = np.roll(special, k)[:min(n, len(special))]
                assert m.step(torch.from_numpy(g), [1e-3 * (k + 1), 1e-3 * (k + 1)])
                out.append(m.cur.S.clone())
            steps.append(out)
        for a, b in zip(*steps):
            nan = torch.isnan(a)
            assert torch.equal(nan, torch.isnan(b))
            assert torch.equal(a[~nan].view(torch.int32), b[~nan].view(torch.int32))
