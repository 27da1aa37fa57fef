"""GradGuard in-process: bit equality (NaN, signed zero), scaled/changed verdicts, and reused copy
buffers that never leak one iteration's reduced gradient into another's check; the bucket kept by reference
against separate gradients, and the guard rail for gradients that alias it (which would hide a change)."""
import torch

from trainer_hooks.grad_guard import GradGuard


def _setup(values):
    buf = torch.tensor(values, dtype=torch.float32)
    ps = [torch.nn.Parameter(torch.zeros(2)), torch.nn.Parameter(torch.zeros(len(values) - 2))]
    ps[0].grad, ps[1].grad = buf[:2].clone(), buf[2:].clone()
    return buf, ps, [(0, 2), (1, len(values) - 2)]


def test_bit_equality_sees_signed_zero_and_nan_payloads():
    buf, ps, meta = _setup([1.0, float("nan"), 0.0, 3.0])
    g = GradGuard({0: "a", 1: "b"})
    g.capture(1, meta, buf)
    assert g.check(1, ps).kind == "unchanged"  # NaN bits equal: unchanged, although nan != nan
    ps[1].grad[0] = -0.0  # == 0.0 as a float, different bits
    v = g.check(1, ps)
    assert v.kind == "changed" and "'b'" in v.detail


def test_reused_buffers_across_iterations_and_verdicts():
    g = GradGuard({0: "a", 1: "b"})
    for it in range(1, 6):
        buf, ps, meta = _setup([float(it), 2.0, 3.0 * it, 4.0])
        g.capture(it, meta, buf)
        buf.fill_(99.0)  # the bucket is reused by the next all-reduce: the guard kept its own copy
        if it % 2:
            assert g.check(it, ps).kind == "unchanged"
        else:
            torch._foreach_mul_([p.grad for p in ps], torch.tensor(0.5))
            v = g.check(it, ps)
            assert v.kind == "scaled" and v.coef == 0.5
    assert g.check(4, ps).kind == "changed"  # not the captured iteration
    ps[0].grad.mul_(0.5)  # only one parameter scaled: no single coefficient
    g.capture(6, meta, torch.tensor([5.0, 2.0, 15.0, 4.0]))
    assert g.check(6, ps).kind == "changed"


def params_with_grads(bucket, meta, as_views):
    params = [torch.nn.Parameter(torch.zeros(n)) for _, n in sorted(meta)]
    at = 0
    for pid, n in meta:
        view = bucket[at:at + n]
        params[pid].grad = view if as_views else view.clone()
        at += n
    return params


def test_by_reference_sees_changes_to_separate_gradients():
    meta = [(1, 5), (0, 7)]  # buffer order is not param order
    bucket = torch.randn(12)
    g = GradGuard({0: "a", 1: "b"})
    params = params_with_grads(bucket, meta, as_views=False)
    g.capture(1, meta, bucket, copy=False)
    assert g.check(1, params).kind == "unchanged"
    g.capture(2, meta, bucket, copy=False)
    for p in params:
        p.grad.mul_(0.25)
    v = g.check(2, params)
    assert (v.kind, v.coef) == ("scaled", 0.25)
    g.capture(3, meta, bucket, copy=False)
    params[0].grad[3] = 0.0
    assert g.check(3, params).kind == "changed"
    assert g.copy_always is False


def test_gradients_aliasing_the_reference_are_never_taken_as_unchanged():
    meta = [(0, 4), (1, 6)]
    bucket = torch.randn(10)
    g = GradGuard({0: "a", 1: "b"})
    params = params_with_grads(bucket, meta, as_views=True)
    g.capture(1, meta, bucket, copy=False)
    for p in params:
        p.grad.mul_(0.5)  # changes the bucket too: compared with itself it would look unchanged
    v = g.check(1, params)
    assert v.kind == "changed" and "shares memory" in v.detail, v
    assert g.copy_always  # from now on the guard copies, even when asked not to
    g.capture(2, meta, bucket, copy=False)
    for p in params:
        p.grad.mul_(0.5)
    v = g.check(2, params)
    assert (v.kind, v.coef) == ("scaled", 0.5)


def test_the_recorded_clip_coefficient_is_checked_first_and_never_trusted_blindly():
    meta = [(0, 300), (1, 7)]
    bucket = torch.randn(307)
    g = GradGuard({0: "a", 1: "b"})
    c = float(torch.tensor(0.3, dtype=torch.float32))
    for it, (applied, hint, want) in enumerate([
            (c, c, ("scaled", c)),            # ckpt.clip_grad_norm_'s own coefficient: the fast path
            (0.5, c, ("scaled", 0.5)),        # a stale hint: the search still finds the applied one
            (None, c, ("changed", None)),     # not one coefficient: never "scaled" by the hint
    ], start=1):
        params = params_with_grads(bucket, meta, as_views=False)
        if applied is None:
            torch._foreach_mul_([p.grad for p in params], torch.tensor(c))
            params[1].grad[0] += 1.0
        else:
            torch._foreach_mul_([p.grad for p in params], torch.tensor(applied, dtype=torch.float32))
        g.capture(it, meta, bucket, copy=False)
        v = g.check(it, params, hint)
        assert (v.kind, v.coef) == want, (it, v)
