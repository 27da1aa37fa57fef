"""``checkmate export``: a whole model from all shards, as a ``torch.save`` state dict and as PyTorch DCP.

Sources (one of):

* ``--ckpt-dir DIR`` -- the shadows' persisted files; each is checksum-verified on load.  The newest
  iteration that *every* shard has on disk is exported (or ``--iteration I``).  ``DIR`` is any of
  (:func:`find_ckpt_roots`): one ``checkmate-shadow --ckpt-dir`` (``DIR/job<J>/shard<S>/iter*.cmshard``);
  a testbed phase folder, one such directory per shadow (``results/<run>/ckpt/<phase>/<shadow>/job<J>/...``);
  or a testbed run folder (``results/<run>``, ``results/<run>/ckpt``), whose phase written last is
  taken (and named).  ``--job-id`` may be left out when the files hold one job.
* ``--shadows HOST:PORT,...`` -- live shadows over the management API; the newest iteration every
  shard still holds in memory (latest or previous) is fetched.

Outputs (one or both):

* ``--torch FILE``: ``torch.save`` of ``{"iteration", "job_id", "model": {name: tensor},
  "optimizer": <torch.optim.Optimizer.state_dict() format>}`` -- ``model.load_state_dict(sd["model"])``
  and ``AdamW(groups as in training).load_state_dict(sd["optimizer"])`` restore training; the
  optimizer's integer ids number params group by group, in ``param_id`` order within a group
  (what ``optimizer.state_dict()`` produces when groups list params in ``model.parameters()`` order).
* ``--dcp DIR``: ``torch.distributed.checkpoint.save`` (single process, ``FileSystemWriter``) of
  ``{"iteration", "model": {name: tensor}, "optimizer": {"state": {name: {...}},
  "param_groups": [{..., "params": [name, ...]}]}}`` -- the FQN-keyed layout of
  ``torch.distributed.checkpoint.state_dict``.

Both outputs are written atomically (temp file / temp directory, then rename).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import warnings
from pathlib import Path

import torch

from .client import ShadowClient
from .protocol import ShadowError, ShardState
from .store import CheckpointCorrupt, ShardStore, fsync_dir, list_iterations, write_durable


class ExportError(RuntimeError):
    pass


# -- collecting shards --------------------------------------------------------------------------
_LAYOUTS = ("DIR/job<J>/shard<S>/iter*.cmshard (checkmate-shadow --ckpt-dir), a testbed phase folder "
            "DIR/<shadow>/job<J>/shard<S>/, or a testbed run folder DIR/ckpt/<phase>/<shadow>/...")


def _jobs(d: Path) -> list[Path]:
    return sorted(j for j in d.iterdir() if j.is_dir() and j.name.startswith("job") and j.name[3:].isdigit())


def _newest_file(d: Path) -> float:
    return max((f.stat().st_mtime for f in d.rglob("*.cmshard")), default=0.0)


def find_ckpt_roots(path) -> tuple[list[Path], str]:
    """The ``--ckpt-dir`` roots under ``path`` and a note on what was found (empty for a plain root).

    A plain root holds ``job<J>/``; a testbed phase folder holds one root per shadow; a testbed run
    folder (or its ``ckpt/``) holds phase folders, of which the one with the newest file is taken --
    the shadows of the last phase, which also ran through the resume."""
    path = Path(path)
    if not path.is_dir():
        raise ExportError(f"{path}: no such directory")
    if _jobs(path):
        return [path], ""
    shadows = [d for d in sorted(path.iterdir()) if d.is_dir() and _jobs(d)]
    if shadows:
        return shadows, f"{path}: shadows {', '.join(d.name for d in shadows)}"
    ckpt = path / "ckpt" if (path / "ckpt").is_dir() else path
    phases = [d for d in sorted(ckpt.iterdir()) if d.is_dir() and any(_jobs(s) for s in d.iterdir() if s.is_dir())]
    if not phases:
        raise ExportError(f"{path}: no shadow checkpoints here; expected {_LAYOUTS}")
    phase = max(phases, key=_newest_file)
    roots, _ = find_ckpt_roots(phase)
    note = (f"{ckpt}: phase {phase.name!r} (written last; phases: {', '.join(d.name for d in phases)} -- "
            f"choose one with --ckpt-dir {ckpt}/PHASE), shadows {', '.join(d.name for d in roots)}")
    return roots, note


def job_ids(roots) -> list[int]:
    return sorted({int(j.name[3:]) for r in roots for j in _jobs(Path(r))})


def shards_from_dir(ckpt_dir, job_id: int, iteration: int | None = None) -> list[ShardState]:
    """Load every shard of one iteration from persisted files (newest iteration all shards hold).

    ``ckpt_dir`` is one ``--ckpt-dir`` root or a list of them (a testbed's shadows each have their own;
    see :func:`find_ckpt_roots`).  Files are verified on load (checksum, types, identity).  A corrupt
    file is an error naming it (never a silent fall-back); it does not block exporting an older
    iteration with ``iteration``.
    """
    roots = [Path(r) for r in ckpt_dir] if isinstance(ckpt_dir, (list, tuple)) else [Path(ckpt_dir)]
    root = roots[0] / f"job{job_id}" if len(roots) == 1 else Path(os.path.commonpath(roots))
    where: dict[int, Path] = {}
    for r in roots:
        d = r / f"job{job_id}"
        if not d.is_dir():
            continue
        for sd in d.iterdir():
            if sd.name.startswith("shard") and sd.name[5:].isdigit():
                s = int(sd.name[5:])
                if s in where:
                    raise ExportError(f"shard {s} of job {job_id} is in two places: {where[s]} and {r}; "
                                      "give the --ckpt-dir of one run or phase")
                where[s] = r
    if not where:
        have = job_ids(roots)
        raise ExportError(f"{root}: no checkpoints of job {job_id}"
                          + (f" (jobs here: {', '.join(map(str, have))})" if have else ""))
    found = sorted(where)
    its = {s: set(list_iterations(where[s], job_id, s)) for s in found}
    stores = {s: ShardStore(where[s], job_id, s) for s in found}
    problems: list[str] = []
    num = None  # the shard count, from the newest file of any shard that verifies
    for it, s in sorted(((it, s) for s in found for it in its[s]), reverse=True):
        try:
            num = stores[s].load(it).num_shards
            break
        except CheckpointCorrupt as e:
            problems.append(str(e))
    if num is None:
        raise ExportError(f"{root}: no checkpoint file verifies: " + "; ".join(problems[:3]))
    missing = [s for s in range(num) if not its.get(s)]
    if missing:
        raise ExportError(f"{root}: shards {missing} of {num} have no persisted checkpoint")
    common = set.intersection(*(its[s] for s in range(num)))
    if iteration is not None and iteration not in common:
        raise ExportError(f"{root}: iteration {iteration} is not persisted by every shard "
                          f"({ {s: sorted(its[s]) for s in range(num)} })")
    if iteration is None:
        if not common:
            raise ExportError(f"{root}: no iteration is persisted by all {num} shards "
                              f"({ {s: sorted(its[s]) for s in range(num)} })")
        iteration = max(common)
    try:
        return [stores[s].load(iteration) for s in range(num)]
    except CheckpointCorrupt as e:
        older = sorted((it for it in common if it < iteration), reverse=True)
        hint = f"; older iterations held by every shard: {older} (choose one with --iteration)" if older else ""
        raise ExportError(f"{e}{hint}") from None


def shards_from_shadows(addrs: list[str], iteration: int | None = None, timeout: float = 30.0) -> list[ShardState]:
    clients = [ShadowClient.from_address(a, timeout=timeout) for a in addrs]
    try:
        held = []
        for a, c in zip(addrs, clients):
            st = c.status()
            held.append({i for i in (st.latest_iteration, st.previous_iteration) if i is not None})
        common = set.intersection(*held) if held else set()
        if iteration is None:
            if not common:
                raise ExportError(f"no iteration is held by all shadows ({dict(zip(addrs, map(sorted, held)))})")
            iteration = max(common)
        return [c.fetch(iteration) for c in clients]
    finally:
        for c in clients:
            c.close()


# -- assembling -----------------------------------------------------------------------------
def assemble(states: list[ShardState]) -> dict:
    """Merge shard states into ``{"iteration", "job_id", "model", "optimizer"}`` (torch formats)."""
    if not states:
        raise ExportError("no shards to export")
    s0 = states[0]
    for s in states:
        for f in ("job_id", "iteration", "num_shards"):
            if getattr(s, f) != getattr(s0, f):
                raise ExportError(f"shard {s.shard}: field '{f}' is {getattr(s, f)}, shard {s0.shard} has {getattr(s0, f)}")
        if [(p.name, p.shape, p.group) for p in s.params] != [(p.name, p.shape, p.group) for p in s0.params]:
            raise ExportError(f"shard {s.shard}: field 'params' differs from shard {s0.shard} (different models?)")
    shards = sorted(s.shard for s in states)
    if shards != list(range(s0.num_shards)):
        raise ExportError(f"field 'shard': have shards {shards}, need 0..{s0.num_shards - 1}")
    tensors, opt_state = {}, {}
    for s in states:
        for pid, t in s.tensors.items():
            if pid in tensors:
                raise ExportError(f"param {pid} ({s0.params[pid].name}) is held by two shards")
            tensors[pid] = t
        opt_state.update(s.opt_state)
    buffers, frozen = {}, {}
    for s in states:  # the buffer shard's buffers and frozen params (trainer_hooks/buffers.py)
        buffers.update(getattr(s, "buffers", {}) or {})
        frozen.update(getattr(s, "frozen", {}) or {})
    for p in s0.params:
        if p.param_id not in tensors and p.name in frozen:
            tensors[p.param_id] = frozen[p.name]
    missing = [p.name for p in s0.params if p.param_id not in tensors]
    if missing:
        raise ExportError(f"params not held by any shard: {missing[:5]}")
    # the newest LR per group is known only to shards that own a param of that group
    groups = [dict(g) for g in s0.optimizer.param_groups]
    for s in states:
        owned_groups = {s0.params[pid].group for pid in s.tensors} - {-1}
        for g in owned_groups:
            groups[g]["lr"] = s.optimizer.param_groups[g]["lr"]
    model = {p.name: tensors[p.param_id] for p in s0.params}
    model.update(buffers)
    index, state, pgroups = 0, {}, []
    for g, hp in enumerate(groups):
        ids = []
        for p in s0.params:
            if p.group == g:
                if p.param_id in opt_state:
                    state[index] = dict(opt_state[p.param_id])
                ids.append(index)
                index += 1
        d = {k: (tuple(v) if k == "betas" else v) for k, v in hp.items()}
        d["params"] = ids
        pgroups.append(d)
    return {"iteration": s0.iteration, "job_id": s0.job_id, "model": model,
            "optimizer": {"state": state, "param_groups": pgroups},
            "_names": [p.name for g in range(len(groups)) for p in s0.params if p.group == g]}


def save_torch(sd: dict, path) -> Path:
    path = Path(path)
    out = {k: v for k, v in sd.items() if not k.startswith("_")}
    write_durable(path, lambda f: torch.save(out, f))
    return path


def dcp_state_dict(sd: dict) -> dict:
    """The FQN-keyed layout saved to DCP (see the module docstring)."""
    names = sd["_names"]
    opt = sd["optimizer"]
    return {"iteration": sd["iteration"], "model": dict(sd["model"]),
            "optimizer": {"state": {names[i]: dict(v) for i, v in opt["state"].items()},
                          "param_groups": [{**g, "params": [names[i] for i in g["params"]]} for g in opt["param_groups"]]}}


def save_dcp(sd: dict, out_dir) -> Path:
    import torch.distributed.checkpoint as dcp
    out = Path(out_dir)
    if out.exists():
        raise ExportError(f"{out}: already exists (refusing to mix two checkpoints in one DCP directory)")
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*single process.*")
            dcp.save(dcp_state_dict(sd), storage_writer=dcp.FileSystemWriter(str(tmp), sync_files=True))
        os.rename(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    fsync_dir(out.parent)
    return out


def load_dcp_into(template: dict, dcp_dir) -> dict:
    """Load a DCP export in place into ``template`` (same layout as :func:`dcp_state_dict`)."""
    import torch.distributed.checkpoint as dcp
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*single process.*")
        dcp.load(template, storage_reader=dcp.FileSystemReader(str(dcp_dir)))
    return template


# -- command line ---------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="checkmate export", description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--ckpt-dir", help="a shadow's --ckpt-dir, or a testbed run or phase folder "
                     "(results/<run>, results/<run>/ckpt/<phase>)")
    src.add_argument("--shadows", help="live shadows: HOST:MGMT_PORT,... (shard order irrelevant)")
    ap.add_argument("--job-id", type=int, required=False,
                    help="job id (with --ckpt-dir; may be left out when the files hold one job)")
    ap.add_argument("--iteration", type=int, help="export this iteration (default: newest common)")
    ap.add_argument("--torch", dest="torch_out", help="write a torch.save state dict here")
    ap.add_argument("--dcp", dest="dcp_out", help="write a PyTorch DCP checkpoint directory here")
    ap.add_argument("--timeout", type=float, default=30.0)
    a = ap.parse_args(argv)
    if not a.torch_out and not a.dcp_out:
        ap.error("nothing to write: give --torch FILE and/or --dcp DIR")
    try:
        if a.ckpt_dir:
            roots, note = find_ckpt_roots(a.ckpt_dir)
            if note:
                print(f"checkmate export: from {note}", file=sys.stderr)
            if a.job_id is None:
                jobs = job_ids(roots)
                if len(jobs) != 1:
                    ap.error(f"--ckpt-dir {a.ckpt_dir} holds jobs {', '.join(map(str, jobs))}: "
                             "choose one with --job-id")
                a.job_id = jobs[0]
            states = shards_from_dir(roots, a.job_id, a.iteration)
        else:
            states = shards_from_shadows([s for s in a.shadows.split(",") if s], a.iteration, a.timeout)
        sd = assemble(states)
        if a.torch_out:
            print(f"wrote {save_torch(sd, a.torch_out)} (iteration {sd['iteration']})")
        if a.dcp_out:
            print(f"wrote {save_dcp(sd, a.dcp_out)} (iteration {sd['iteration']})")
    except (ExportError, ShadowError, ValueError, OSError, ConnectionError, TimeoutError) as e:
        print(f"checkmate export: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
