"""``checkmate-shadow``: run one shadow node until SIGINT/SIGTERM.

    checkmate-shadow --job-id J --shard S --data ADDR:PORT --mgmt ADDR:PORT --ckpt-dir DIR
                     [--persist-every K] [--loss-timeout S] [--ring N] [--payload-order big|little] [--keep N] [--history N]
                     [--torch-threads N] [--ingest-nap S] [--ingest-defer S]

Prints one line ``shadow ready job=J shard=S data=HOST:PORT mgmt=HOST:PORT`` (actual ports, so port 0
works) once both sockets are bound, then a status line every ``--status-every`` seconds.  On exit the
latest published iteration is persisted (unless ``--no-final-persist``).

Torch runs the replayed optimizer step on one intra-op thread by default (``--torch-threads 1``).
A shard's step is elementwise work; once a tensor is large enough for torch to split it (tens of
thousands of elements), torch's default of one OpenMP thread per core leaves worker threads that
spin between steps, CPU taken from the trainers on a shared machine.  Elementwise kernels give the
same bits on any thread count, so replay stays bit-identical with the trainer.
"""
from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading

from checkmate import wire

from .node import ShadowConfig, ShadowNode, parse_addr


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="checkmate-shadow", description="Checkmate shadow node: replays the "
                                 "trainer's AdamW step on one shard from the switch's gradient copies.")
    ap.add_argument("--job-id", type=int, required=True)
    ap.add_argument("--shard", type=int, required=True)
    ap.add_argument("--data", default=f"0.0.0.0:{wire.SHADOW_UDP_PORT}", help="UDP ADDR:PORT for the copies")
    ap.add_argument("--mgmt", default=f"127.0.0.1:{wire.SHADOW_UDP_PORT + 1}", help="TCP ADDR:PORT for management")
    ap.add_argument("--ckpt-dir", required=True)
    ap.add_argument("--persist-every", type=int, default=0, metavar="K", help="persist every K iterations (0: on request)")
    ap.add_argument("--loss-timeout", type=float, default=2.0, metavar="S")
    ap.add_argument("--ring", type=int, default=4, help="iteration buffers")
    ap.add_argument("--payload-order", choices=("big", "little"), default="big")
    ap.add_argument("--keep", type=int, default=3, help="persisted checkpoints kept per shard")
    ap.add_argument("--history", type=int, default=8, metavar="N",
                    help="published states kept in memory, fetchable by iteration (default 8, at least 2)")
    ap.add_argument("--allow-from", action="append", default=[], metavar="ADDR|CIDR",
                    help="accept copies only from these sources (repeatable; the switch-facing link)")
    ap.add_argument("--data-iface", metavar="IFACE", help="bind the data socket to this interface (SO_BINDTODEVICE)")
    ap.add_argument("--status-every", type=float, default=0.0, metavar="S", help="print status every S seconds")
    ap.add_argument("--no-final-persist", action="store_true")
    ap.add_argument("--ingest-nap", type=float, default=0.002, metavar="S",
                    help="sleep S seconds after draining the data socket while an iteration is partly received, "
                         "so its remaining datagrams are taken in one batch (default 0.002; 0: wake per datagram)")
    ap.add_argument("--ingest-defer", type=float, default=0.05, metavar="S",
                    help="while the manifests' drains of the data socket complete the iterations, the ingest "
                         "thread only looks every S seconds (default 0.05; 0: it always watches the socket)")
    ap.add_argument("--torch-threads", type=int, default=1, metavar="N",
                    help="torch intra-op threads for the optimizer replay (default 1; 0: torch's default)")
    ap.add_argument("-v", "--verbose", action="store_true")
    return ap


def limit_torch_threads(n: int) -> None:
    """Run torch's intra-op work on ``n`` threads (0: leave torch's default).  Process-wide, so only
    a process that is a shadow calls it (never an in-process node beside a trainer)."""
    if n < 0:
        raise ValueError(f"--torch-threads: {n} < 0")
    if n:
        import torch
        torch.set_num_threads(n)


def main(argv: list[str] | None = None) -> int:
    a = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if a.verbose else logging.INFO, format="%(asctime)s %(name)s %(message)s")
    try:
        cfg = ShadowConfig(job_id=a.job_id, shard=a.shard, data=parse_addr(a.data, wire.SHADOW_UDP_PORT),
                           mgmt=parse_addr(a.mgmt), ckpt_dir=a.ckpt_dir, persist_every=a.persist_every,
                           loss_timeout=a.loss_timeout, ring=a.ring, payload_order=a.payload_order,
                           keep=a.keep, history=a.history, allowed_sources=tuple(a.allow_from), data_iface=a.data_iface,
                           ingest_nap=a.ingest_nap, ingest_defer=a.ingest_defer)
        limit_torch_threads(a.torch_threads)
        node = ShadowNode(cfg).start()
    except (ValueError, OSError) as e:
        print(f"checkmate-shadow: {e}", file=sys.stderr)
        return 2
    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    d, m = node.data_address, node.mgmt_address
    print(f"shadow ready job={a.job_id} shard={a.shard} data={d[0]}:{d[1]} mgmt={m[0]}:{m[1]}", flush=True)
    try:
        while not done.wait(a.status_every or 3600):
            if a.status_every:
                print(node.status(), flush=True)
    finally:
        if not a.no_final_persist and node.latest is not None:
            try:
                print(f"persisted {node.persist_now(timeout=30)}", flush=True)
            except Exception as e:  # report, still shut down
                print(f"checkmate-shadow: final persist failed: {e}", file=sys.stderr)
        node.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
