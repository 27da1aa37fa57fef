"""In-process plumbing shared by the single-rank hooks tests: one real rank (gloo, world size 1) in the
pytest process, real :class:`ShadowNode` s on loopback, and ``trainer_hooks.attach`` in host mode
pointed at them.

The tests keep their own models, steps and assertions; only the wiring lives here, so a change to how a
shadow is configured or addressed is made once.  ``conftest.py`` turns :func:`gloo_group` into the
``gloo_group`` fixture and puts this directory on ``sys.path`` (``import shadowkit``).
"""
from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterator

import torch.distributed as dist

import trainer_hooks
from shadow.node import ShadowConfig, ShadowNode
from tests.childproc import free_port  # noqa: F401  (shadowkit.free_port for the hooks tests)

LOOPBACK = "127.0.0.1"


@contextlib.contextmanager
def gloo_group() -> Iterator[None]:
    """The default process group of one rank (gloo, TCP rendezvous on loopback), destroyed on exit.
    Raises :class:`RuntimeError` when this process already has one."""
    if dist.is_initialized():
        raise RuntimeError("a default process group already exists in this process")
    dist.init_process_group("gloo", init_method=f"tcp://{LOOPBACK}:{free_port()}", rank=0, world_size=1)
    try:
        yield
    finally:
        dist.destroy_process_group()


def start_node(tmp_path: Path, job: int, shard: int, data: int = 0, mgmt: int = 0, **cfg) -> ShadowNode:
    """A started shadow for ``shard`` of ``job`` on loopback (port 0: any free one), checkpointing under
    ``tmp_path/ckpt``.  ``loss_timeout`` defaults to 5 s; other ``ShadowConfig`` fields go in ``cfg``."""
    cfg.setdefault("loss_timeout", 5.0)
    return ShadowNode(ShadowConfig(job_id=job, shard=shard, data=(LOOPBACK, data), mgmt=(LOOPBACK, mgmt),
                                   ckpt_dir=tmp_path / "ckpt", **cfg)).start()


@contextlib.contextmanager
def running_nodes(tmp_path: Path, job: int, count: int = 2, **cfg) -> Iterator[list[ShadowNode]]:
    """``count`` shadows (shards 0..count-1) of ``job``; on exit stops whatever the list then holds, so a
    test may replace a node in place (a restart) and still leave nothing running."""
    nodes: list[ShadowNode] = []
    try:
        for k in range(count):
            nodes.append(start_node(tmp_path, job, k, **cfg))
        yield nodes
    finally:
        for n in nodes:
            n.stop()


def spec(nodes: list[ShadowNode]) -> list[tuple[str, int, int]]:
    """The ``shadows=`` argument of ``trainer_hooks.attach``/``restore`` for these nodes."""
    return [(LOOPBACK, n.mgmt_address[1], n.data_address[1]) for n in nodes]


def cli_spec(nodes: list[ShadowNode]) -> str:
    """The same as ``--shadows HOST:MGMT:DATA,...`` for a trainer process (examples/ddp_train.py, workers)."""
    return ",".join(f"{h}:{m}:{d}" for h, m, d in spec(nodes))


def attach_host(ddp, opt, job: int, nodes: list[ShadowNode], **kw):
    """``trainer_hooks.attach`` in host mode on loopback (any free UDP port) feeding ``nodes``."""
    return trainer_hooks.attach(ddp, opt, mode="host", job_id=job, shadows=spec(nodes), udp_port=0,
                                bind_ip=LOOPBACK, **kw)
