"""Two real shadow nodes (loopback UDP + management TCP) fed by a real rank-0 ShadowLink, for tests of
what travels between them per iteration (tests/bench/test_shadow_check.py, tests/shadow/
test_manifest_batch.py): ``feed(it)`` sends iteration ``it``'s gradient chunks to each shard (all but
``drop_shard``'s) and hands the link the iteration's record, as a training step would (``manifest_first``:
the record first, its manifests delivered, then the chunks)."""
from __future__ import annotations

import contextlib
import socket

import torch

from shadow.node import ShadowConfig, ShadowNode
from shadow.packets import gradient_packets
from trainer_hooks.iteration import IterationRecord
from trainer_hooks.layout import shard_plan
from trainer_hooks.shadow_link import ShadowAddr, ShadowLink


@contextlib.contextmanager
def link_rig(tmp_path, job: int, link_attrs: dict | None = None, **node_cfg):
    """``(link, nodes, feed)``; everything closed on exit.  ``link_attrs``: ShadowLink attributes set
    before the bootstrap (which connects: e.g. ``ack_batch``, asked of the shadows at connect)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Linear(8, 2))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    nodes = [ShadowNode(ShadowConfig(job, s, ("127.0.0.1", 0), ("127.0.0.1", 0), tmp_path / str(s),
                                     **node_cfg)).start() for s in (0, 1)]
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    link = None
    try:
        owner = shard_plan(model, 2)
        link = ShadowLink(job, [ShadowAddr(*n.mgmt_address, n.data_address[1]) for n in nodes], model, opt, owner,
                          timeout=10)
        for k, v in (link_attrs or {}).items():
            setattr(link, k, v)
        link.bootstrap_all(0)
        grads = {pid: torch.randn(p.shape) for pid, p in enumerate(model.parameters())}

        def feed(it, drop_shard=None, manifest_first=False):
            if manifest_first:  # the gradient then completes in the shadows' ingest threads
                link.on_record(IterationRecord(it, (1e-3,), None, False))
                link.flush(10)
            for k, n in enumerate(nodes):
                if k == drop_shard:
                    continue
                own = {pid: g for pid, g in grads.items() if owner[pid] == k}
                for pkt in gradient_packets(job, it, own):
                    tx.sendto(pkt, n.data_address)
            if not manifest_first:
                link.on_record(IterationRecord(it, (1e-3,), None, False))

        yield link, nodes, feed
    finally:
        tx.close()
        if link is not None:
            link.close(5)
        for n in nodes:
            n.stop()
