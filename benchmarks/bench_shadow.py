"""Shadow node throughput: ingest (Gbit/s) and optimizer replay (params/s), each against a baseline
measured in the same run.

1. **Socket ingest.**  A burst of two iterations of full-MTU Checkmate FINAL packets (1432-byte UDP
   payloads, 350 fp32 elements) covering a shard of ``--params`` elements is queued in the receiving
   socket's buffer on 127.0.0.1, then drained and timed -- so the receiver, not a Python sender on
   a shared 2-core box, is what is measured.  Two receivers take the same bursts in turn, burst by burst (so
   both see the same machine load), best of ``--reps`` each:

   * **bare**: ``recv_into`` one buffer in a loop -- the ceiling for any Python receiver here;
   * **shadow**: a real :class:`shadow.node.ShadowNode` (bootstrapped with the shard; its ingest
     thread is parked on the node lock while the burst is queued): validate with
     ``checkmate.wire.unpack_fields``, check ownership, dedupe with the coverage map, copy the
     payload into the iteration's slot.  Completeness (every byte placed) is checked.

   Printed: Gbit/s (UDP payload) and packets/s of each and the ratio shadow/bare.
2. **Ingest, no sockets.**  ``Reassembler.ingest`` over pre-built datagrams in-process vs. a loop
   that only copies each datagram into the receive buffer (memcpy baseline); interleaved, best of
   ``--reps``.
3. **Optimizer replay.**  :class:`shadow.replay.AdamWReplica` (byte-swap of the received big-endian
   gradient, zero-copy views, clip multiply, ``torch.optim.AdamW.step``) and the publish snapshot,
   against the trainer's own work on the same tensor sizes (clip multiply + ``torch.optim.AdamW.step``),
   foreach True and False; interleaved, best of 5.

4. **Rank 0's per-iteration extras** (``--only rank0``): the manifest to 3 in-process shadows, pipelined
   as the trainer's link thread sends it (one frame encoded once, sent to every shard, then the acks)
   against one blocking request per shard encoded per shard (how it was sent before); and
   :class:`trainer_hooks.grad_guard.GradGuard` capture + check against a fresh ``clone`` per bucket and an
   elementwise ``torch.equal`` of ``int32`` views (how it compared before).  CPU of the calling thread
   (``time.thread_time``), interleaved rounds, median.

``python -m benchmarks.bench_shadow [--params N] [--reps R] [--only socket,inproc,optimizer,rank0] [--json FILE]``
"""
from __future__ import annotations

import argparse
import json
import select
import socket
import sys
import time

import torch

from checkmate import wire
from shadow.ingest import Counters, Reassembler
from shadow.layout import ShardLayout
from shadow.node import ShadowConfig, ShadowNode
from shadow.packets import gradient_packets, payload_bytes
from shadow.protocol import Bootstrap, Manifest, OptimizerSpec, ParamSpec, ShardMap
from shadow.replay import AdamWReplica

ELEMS = 350  # 32 + 350*4 = 1432-byte payload: fits a 1500 MTU with IP/UDP headers
JOB = 11
RCVBUF = 64 << 20  # the kernel caps it at 2 x net.core.rmem_max

def _sizes(total: int) -> list[int]:
    """A shard of ``total`` elements as a few transformer-like params (one big, several small)."""
    big = int(total * 0.8)
    rest = total - big
    return [big] + [rest // 4] * 3 + [rest - 3 * (rest // 4)]


def _burst(sizes, iterations) -> list[bytes]:
    payload = {i: torch.randn(n) for i, n in enumerate(sizes)}
    out = []
    for it in iterations:
        out += gradient_packets(JOB, it, payload, elems=ELEMS)
    return out


def _send_all(sock, pkts, addr) -> None:
    for p in pkts:
        sock.sendto(p, addr)


class BareReceiver:
    """A bare ``recv_into`` loop (non-blocking, select when empty: the node's receive pattern)."""

    def __init__(self):
        self.s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
        self.s.bind(("127.0.0.1", 0))
        self.s.setblocking(False)
        self.buf = bytearray(65536)

    def drain(self, tx, pkts, r) -> tuple[float, bool]:
        """Queue the burst in the socket, then time draining it."""
        s, buf = self.s, self.buf
        _send_all(tx, pkts, s.getsockname())
        n = 0
        t = time.perf_counter()
        while n < len(pkts):
            try:
                s.recv_into(buf)
                n += 1
            except BlockingIOError:
                if not select.select([s], [], [], 2.0)[0]:
                    return time.perf_counter() - t, False
        return time.perf_counter() - t, True

    def close(self):
        self.s.close()


class ShadowReceiver:
    """A real node; the burst is queued while its ingest thread is parked on the node lock, then
    timed from release until the node has counted every datagram and placed every byte."""

    def __init__(self, sizes, tmpdir):
        self.sizes = sizes
        self.node = ShadowNode(ShadowConfig(JOB, 0, ("127.0.0.1", 0), ("127.0.0.1", 0), tmpdir,
                                            loss_timeout=60.0, rcvbuf=RCVBUF)).start()

    def drain(self, tx, pkts, r) -> tuple[float, bool]:
        node, c = self.node, self.node.counters
        node.bootstrap(_bootstrap(self.sizes, 2 * r))  # burst r carries iterations 2r+1, 2r+2
        with node._lock:  # the benchmark's only reach inside: park the ingest thread
            want, placed0 = c.packets + len(pkts), c.bytes_received
            _send_all(tx, pkts, node.data_address)
            t = time.perf_counter()
        deadline = t + 30
        while c.packets < want and time.perf_counter() < deadline:
            time.sleep(0.0005)
        dt = time.perf_counter() - t
        return dt, c.packets >= want and c.bytes_received - placed0 == sum(len(p) - wire.HEADER_LEN for p in pkts)

    def close(self):
        self.node.stop()


def socket_ingest(bursts, sizes, tmpdir) -> dict:
    """Both receivers, interleaved burst by burst (same noise for both); best time of each."""
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    recv = {"bare": BareReceiver(), "shadow": ShadowReceiver(sizes, tmpdir)}
    res = {k: {"packets": len(bursts[0]), "bytes": sum(map(len, bursts[0])), "seconds": float("inf"),
               "complete": True} for k in recv}
    try:
        for r, pkts in enumerate(bursts):
            for k, rx in recv.items():
                dt, ok = rx.drain(tx, pkts, r)
                res[k]["seconds"] = min(res[k]["seconds"], dt)
                res[k]["complete"] &= ok
    finally:
        tx.close()
        for rx in recv.values():
            rx.close()
    return res


def _bootstrap(sizes, iteration: int = 0) -> Bootstrap:
    params = [ParamSpec(i, f"p{i}", (n,), "float32", 0) for i, n in enumerate(sizes)]
    owner = {i: 0 for i in range(len(sizes))}
    spec = OptimizerSpec("adamw", True, False, [{"lr": 1e-3, "betas": [0.9, 0.999], "eps": 1e-8, "weight_decay": 0.01}])
    return Bootstrap(JOB, 0, iteration, params, ShardMap(JOB, 1, owner, []), spec, {i: torch.zeros(n) for i, n in enumerate(sizes)}, {})


def inproc_ingest(sizes, reps: int = 3) -> dict:
    """One iteration's datagrams through ``Reassembler.ingest`` vs. only copying each datagram into
    the receive buffer (what ``recv_into`` does); interleaved, best of ``reps``."""
    b = _bootstrap(sizes)
    layout = ShardLayout.build(b.params, b.shard_map.owner, 0)
    pkts = gradient_packets(JOB, 1, {i: torch.randn(n) for i, n in enumerate(sizes)}, elems=ELEMS)
    buf = bytearray(65536)
    mv = memoryview(buf)
    best = {"memcpy_s": float("inf"), "ingest_s": float("inf")}
    for _ in range(reps):
        t = time.perf_counter()
        for p in pkts:
            buf[:len(p)] = p
        best["memcpy_s"] = min(best["memcpy_s"], time.perf_counter() - t)
        r = Reassembler(layout, JOB, 1, 3, Counters())
        t = time.perf_counter()
        for p in pkts:
            n = len(p)
            buf[:n] = p
            r.ingest(buf, mv, n)
        best["ingest_s"] = min(best["ingest_s"], time.perf_counter() - t)
        assert r.slots[1].complete, "in-process ingest lost data"
    return {**best, "bytes": sum(map(len, pkts)), "packets": len(pkts)}


def optimizer(sizes, foreach: bool, iters: int = 5) -> dict:
    b = _bootstrap(sizes)
    b.optimizer.foreach = foreach
    layout = ShardLayout.build(b.params, b.shard_map.owner, 0)
    rep = AdamWReplica(b, layout, "big")
    slot = bytearray(layout.total_bytes)
    wire_grads = {pid: payload_bytes(torch.randn(n), "big") for pid, n in enumerate(sizes)}

    def receive():  # what ingest leaves in the slot: big-endian gradients at their offsets
        for pid, raw in wire_grads.items():
            slot[layout.byte_base[pid]:layout.byte_base[pid] + len(raw)] = raw
    ref = [torch.nn.Parameter(torch.zeros(n)) for n in sizes]
    opt = torch.optim.AdamW(ref, lr=1e-3, weight_decay=0.01, foreach=foreach)
    for p in ref:
        p.grad = torch.randn_like(p)
    n = sum(sizes)
    grads = [p.grad for p in ref]
    coef = torch.tensor(0.5)

    def trainer_step():  # what the trainer does after the all-reduce: clip multiply + AdamW step
        torch._foreach_mul_(grads, coef)
        opt.step()
    trainer_step()  # warm-up: the first step allocates the AdamW state
    receive()
    rep.step(Manifest(JOB, 1, [1e-3], 0.5, False), slot)
    # interleaved, best of `iters` each: both sides see the same (shared, noisy) machine
    base = t_step = t_snap = float("inf")
    for i in range(iters):
        t = time.perf_counter()
        trainer_step()
        base = min(base, time.perf_counter() - t)
        receive()
        t = time.perf_counter()
        rep.step(Manifest(JOB, i + 2, [1e-3], 0.5, False), slot)
        t_step = min(t_step, time.perf_counter() - t)
        t = time.perf_counter()
        rep.snapshot()
        t_snap = min(t_snap, time.perf_counter() - t)
    return {"params": n, "torch_s": base, "replica_s": t_step, "snapshot_s": t_snap}


def rank0_manifests(tmpdir: str, shards: int = 3, n: int = 200, rounds: int = 5) -> dict:
    """Thread CPU (us) per iteration to get one manifest acknowledged by every shard."""
    from shadow.client import ShadowClient
    from shadow.protocol import pack_message
    nodes = [ShadowNode(ShadowConfig(JOB, 0, ("127.0.0.1", 0), ("127.0.0.1", 0), f"{tmpdir}/r0-{k}")).start()
             for k in range(shards)]
    clients = []
    try:
        for nd in nodes:
            nd.bootstrap(_bootstrap(_sizes(17850)))
            clients.append(ShadowClient(*nd.mgmt_address))

        def blocking(m):  # one request per shard in turn, each frame encoded for its shard
            for c in clients:
                c.begin("manifest", pack_message("manifest", m))
                c.finish("manifest")

        def pipelined(m):
            f = pack_message("manifest", m)
            for c in clients:
                c.begin("manifest", f)
            for c in clients:
                c.finish("manifest")
        res, it = {"blocking": [], "pipelined": []}, 1
        for _ in range(rounds):
            for name, fn in (("blocking", blocking), ("pipelined", pipelined)):
                t = time.thread_time()
                for _ in range(n):
                    fn(Manifest(JOB, it, [1e-3], 0.5, False))
                    it += 1
                res[name].append((time.thread_time() - t) / n * 1e6)
        return {k: sorted(v)[len(v) // 2] for k, v in res.items()}
    finally:
        for c in clients:
            c.close()
        for nd in nodes:
            nd.stop()


def rank0_guard(total: int, rounds: int = 5) -> dict:
    """Thread CPU (us) per iteration of GradGuard capture + check, against clone + torch.equal."""
    from trainer_hooks.grad_guard import GradGuard
    sizes = _sizes(total)
    params = [torch.nn.Parameter(torch.zeros(k)) for k in sizes]
    bucket = torch.randn(total)
    at = 0
    for p, k in zip(params, sizes):
        p.grad = bucket[at:at + k].clone()
        at += k
    meta = [(i, k) for i, k in enumerate(sizes)]
    guard = GradGuard({})

    def naive(_it):
        copy = bucket.clone()
        at = 0
        for p, k in zip(params, sizes):
            assert torch.equal(p.grad.view(torch.int32), copy[at:at + k].view(torch.int32))
            at += k

    def guarded(it):
        guard.capture(it, meta, bucket)
        assert guard.check(it, params).kind == "unchanged"
    reps = max(3, min(300, 5_000_000 // total))
    res, it = {"clone+torch.equal": [], "GradGuard": []}, 0
    for _ in range(rounds):
        for name, fn in (("clone+torch.equal", naive), ("GradGuard", guarded)):
            t = time.thread_time()
            for _ in range(reps):
                fn(it)
                it += 1
            res[name].append((time.thread_time() - t) / reps * 1e6)
    return {k: sorted(v)[len(v) // 2] for k, v in res.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="bench_shadow", description=__doc__.splitlines()[0])
    ap.add_argument("--params", type=int, default=1_000_000, help="elements in the shard (a burst of 2 "
                    "iterations must fit the socket buffer)")
    ap.add_argument("--reps", type=int, default=3, help="repetitions (best is reported)")
    ap.add_argument("--opt-params", type=int, default=4_000_000, help="elements for the optimizer benchmark")
    ap.add_argument("--json", help="also write the figures here")
    ap.add_argument("--tmp", default="/tmp/bench_shadow")
    ap.add_argument("--only", default="socket,inproc,optimizer,rank0", help="comma-separated sections")
    a = ap.parse_args(argv)
    only = set(a.only.split(","))
    sizes = _sizes(a.params)
    out = {}
    if "rank0" in only:
        r = rank0_manifests(a.tmp)
        print(f"== rank 0: manifest to 3 shards, thread CPU per iteration: one blocking request per shard "
              f"{r['blocking']:.1f} us, pipelined {r['pipelined']:.1f} us (ratio {r['pipelined'] / r['blocking']:.2f})")
        out["rank0_manifests"] = r
        for total in (17_850, 2_000_000):
            g = rank0_guard(total)
            print(f"== rank 0: gradient check, {total:,} params, thread CPU per iteration: clone+torch.equal "
                  f"{g['clone+torch.equal']:.1f} us, GradGuard {g['GradGuard']:.1f} us "
                  f"(ratio {g['GradGuard'] / g['clone+torch.equal']:.2f})")
            out[f"rank0_guard_{total}"] = g

    def gbps(r):
        return r["bytes"] * 8 / r["seconds"] / 1e9

    if "socket" in only:
        _socket_section(a, sizes, out, gbps)
    if "inproc" in only:
        _inproc_section(a, sizes, out)
    if "optimizer" in only:
        _optimizer_section(a, out)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1, default=str)
    return 0


def _socket_section(a, sizes, out, gbps) -> None:
    bursts = [_burst(sizes, (2 * r + 1, 2 * r + 2)) for r in range(a.reps)]
    pkts = bursts[0]
    print(f"== socket ingest: shard of {a.params:,} fp32 elements, burst of 2 iterations = {len(pkts):,} "
          f"datagrams of {len(pkts[0])} B queued in the socket, then drained (interleaved, best of {a.reps})")
    res = socket_ingest(bursts, sizes, a.tmp)
    bare, shad = res["bare"], res["shadow"]
    for name, r in (("bare recv loop", bare), ("shadow node", shad)):
        print(f"  {name:15s} {gbps(r):6.3f} Gbit/s  {r['packets'] / r['seconds'] / 1e3:8.1f} kpkt/s"
              f"{'' if r['complete'] else '  (INCOMPLETE: socket buffer too small, lower --params)'}")
    ratio = gbps(shad) / gbps(bare)
    print(f"  ratio shadow/bare = {ratio:.2f}")
    out["socket"] = {"bare": bare, "shadow": shad, "ratio": ratio}


def _inproc_section(a, sizes, out) -> None:
    ip = inproc_ingest(sizes, a.reps)
    r2 = ip["memcpy_s"] / ip["ingest_s"]
    print(f"== in-process ingest (no sockets), {ip['packets']:,} packets")
    print(f"  memcpy baseline {ip['bytes'] * 8 / ip['memcpy_s'] / 1e9:7.2f} Gbit/s   "
          f"Reassembler.ingest {ip['bytes'] * 8 / ip['ingest_s'] / 1e9:6.2f} Gbit/s "
          f"({ip['packets'] / ip['ingest_s'] / 1e3:.0f} kpkt/s)   ratio {r2:.3f}")
    out["inproc"] = {**ip, "ratio": r2}


def _optimizer_section(a, out) -> None:
    print(f"== optimizer replay, {a.opt_params:,} params")
    for fe in (True, False):
        o = optimizer(_sizes(a.opt_params), fe)
        print(f"  foreach={fe!s:5s} trainer clip+AdamW {o['params'] / o['torch_s'] / 1e6:7.1f} Mparam/s   "
              f"replica step {o['params'] / o['replica_s'] / 1e6:7.1f} Mparam/s (ratio {o['torch_s'] / o['replica_s']:.2f})   "
              f"step+snapshot {o['params'] / (o['replica_s'] + o['snapshot_s']) / 1e6:7.1f} Mparam/s "
              f"(ratio {o['torch_s'] / (o['replica_s'] + o['snapshot_s']):.2f})")
        out[f"optimizer_foreach_{fe}"] = o


if __name__ == "__main__":
    sys.exit(main())
