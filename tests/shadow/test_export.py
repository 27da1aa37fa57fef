"""Export of a whole model (all shards) to a torch.save state dict and to PyTorch DCP.

The export is checked by loading it back into a fresh parameter list + ``torch.optim.AdamW`` and
taking the *next* training step: it must equal the trainer's next step bit for bit (so the export
is a faithful restore point, not just equal-looking tensors).
"""
import pytest
import torch

from shadow import export


def _fresh(run, foreach):
    params = [torch.nn.Parameter(torch.zeros(p.shape)) for p in run.params]
    groups = []
    for g, hp in enumerate(run.spec.param_groups):
        groups.append({"params": [params[p.param_id] for p in run.params if p.group == g],
                       **{k: v for k, v in hp.items() if k in ("lr", "weight_decay", "eps", "amsgrad", "maximize")},
                       "betas": tuple(hp["betas"])})
    return params, torch.optim.AdamW(groups, foreach=foreach)


def _next_step_matches(run, params, opt, it):
    """Apply the trainer's iteration ``it+1`` to the restored state; compare with the trainer."""
    s = run.steps[it]
    for pid, p in enumerate(params):
        p.grad = s.grads[pid].clone()
    torch._foreach_mul_([p.grad for p in params], torch.tensor(s.manifest.clip_coef, dtype=torch.float32))
    for g, lr in zip(opt.param_groups, s.manifest.lrs):
        g["lr"] = lr
    if not s.manifest.skip:
        opt.step()
    want, _ = run.state(it + 1)
    for pid, p in enumerate(params):
        assert torch.equal(p.detach(), want[pid]), f"param {pid} after restore + 1 step"


@pytest.mark.timeout(90)
def test_export_from_disk_to_torch_and_dcp(reference_run, cluster, tmp_path):
    run = reference_run(True)
    c = cluster(run, shards=2)
    c.drive(5)
    c.clients[0].persist()
    c.clients[1].persist()
    out_pt, out_dcp = tmp_path / "model.pt", tmp_path / "dcp"
    from checkmate.cli import main as checkmate_main  # through the `checkmate export` dispatch
    rc = checkmate_main(["export", "--ckpt-dir", str(tmp_path / "ckpt"), "--job-id", "7", "--torch", str(out_pt), "--dcp", str(out_dcp)])
    assert rc == 0
    sd = torch.load(out_pt, weights_only=True)
    assert sd["iteration"] == 5 and sd["job_id"] == 7
    want, _ = run.state(5)
    for p in run.params:
        assert torch.equal(sd["model"][p.name], want[p.param_id])
    params, opt = _fresh(run, True)
    with torch.no_grad():
        for p in run.params:
            params[p.param_id].copy_(sd["model"][p.name])
    opt.load_state_dict(sd["optimizer"])
    _next_step_matches(run, params, opt, 5)

    # DCP: load into a zero template with the same layout, then the same check
    template = export.dcp_state_dict(export.assemble(export.shards_from_dir(tmp_path / "ckpt", 7)))
    template = {"iteration": 0, "model": {k: torch.zeros_like(v) for k, v in template["model"].items()},
                "optimizer": {"state": {k: {n: torch.zeros_like(t) for n, t in v.items()} for k, v in template["optimizer"]["state"].items()},
                              "param_groups": template["optimizer"]["param_groups"]}}
    export.load_dcp_into(template, out_dcp)
    assert template["iteration"] == 5
    for p in run.params:
        assert torch.equal(template["model"][p.name], want[p.param_id])
    _, opt_want = run.state(5)
    for p in run.params:
        for k, v in opt_want[p.param_id].items():
            assert torch.equal(template["optimizer"]["state"][p.name][k], v)
    # refusing to overwrite an existing DCP directory
    assert export.main(["--ckpt-dir", str(tmp_path / "ckpt"), "--job-id", "7", "--dcp", str(out_dcp)]) == 1


@pytest.mark.timeout(90)
def test_export_from_live_shadows_picks_newest_common_iteration(reference_run, cluster, tmp_path):
    run = reference_run(False)
    c = cluster(run, shards=2)
    c.drive(3)
    # shard 0 runs one iteration ahead: 3 is the newest both hold
    c.send(0, c.packets(4, 0))
    c.clients[0].manifest(run.steps[3].manifest)
    assert c.wait_latest(4, shards=[0])
    addrs = ",".join(f"{h}:{p}" for h, p in (n.mgmt_address for n in c.nodes))
    out = tmp_path / "live.pt"
    assert export.main(["--shadows", addrs, "--torch", str(out)]) == 0
    sd = torch.load(out, weights_only=True)
    assert sd["iteration"] == 3
    params, opt = _fresh(run, False)
    with torch.no_grad():
        for p in run.params:
            params[p.param_id].copy_(sd["model"][p.name])
    opt.load_state_dict(sd["optimizer"])
    _next_step_matches(run, params, opt, 3)


def test_export_refuses_incomplete_sets(reference_run, cluster, tmp_path, capsys):
    run = reference_run(True)
    c = cluster(run, shards=2)
    c.drive(1)
    c.clients[0].persist()  # shard 1 never persisted
    rc = export.main(["--ckpt-dir", str(tmp_path / "ckpt"), "--job-id", "7", "--torch", str(tmp_path / "x.pt")])
    assert rc == 1 and "shards [1]" in capsys.readouterr().err
    assert not (tmp_path / "x.pt").exists()
    states = [c.clients[0].fetch()]
    with pytest.raises(export.ExportError, match="shard"):
        export.assemble(states)
