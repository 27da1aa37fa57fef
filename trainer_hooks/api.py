"""``trainer_hooks.attach``: Checkmate on a stock DDP model in one call.

::

    ddp = DistributedDataParallel(model)
    opt = torch.optim.AdamW(ddp.parameters(), lr=1e-3)
    ckpt = trainer_hooks.attach(ddp, opt, mode="switch", job_id=1,
                                shadows=[("10.77.0.101", 48881), ("10.77.0.102", 48881)])
    for it in range(ckpt.iteration, iters):
        loss_fn(ddp(x), y).backward()
        ckpt.clip_grad_norm_(1.0)        # optional; instead of torch.nn.utils.clip_grad_norm_
        opt.step(); sched.step(); opt.zero_grad()
    ckpt.close()

What ``attach`` wires up, without touching the model or forking torch:

* ``ddp.register_comm_hook(state, checkmate_hook)``: each bucket is averaged by
  the UDP ring of :mod:`trainer_hooks.transport` (modes ``switch``/``host``);
* ``optimizer.register_step_pre_hook`` / ``register_step_post_hook``: the
  iteration bookkeeping of :mod:`trainer_hooks.iteration` (LRs are read from
  ``optimizer.param_groups`` at step time, so any LR scheduler just works);
* on rank 0, a :class:`~trainer_hooks.shadow_link.ShadowLink` that bootstraps
  every shard before the first gradient and sends one manifest per iteration.

Modes: ``switch`` -- the switch copies FINAL chunks to the shadows;
``host`` -- the trainers send those copies themselves (software baseline);
``off`` -- no hook at all: DDP's stock gloo all-reduce, the overhead baseline
(``clip_grad_norm_``/``skip_step`` still work, so one script serves all modes).
``switch`` with no shadows runs the UDP ring alone (transport ablation).
"""
from __future__ import annotations

import itertools
import logging
import os
import socket
import time
from dataclasses import dataclass

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from checkmate import wire
from shadow.device_optim import inexact_replay
from shadow.optimizers import optimizer_kind
from trainer_hooks.buffers import buffer_capturer, no_grad_reader
from trainer_hooks.grad_guard import GradGuard
from trainer_hooks.hook import HookState, checkmate_hook
from trainer_hooks.iteration import IterationTracker
from trainer_hooks.layout import packet_bases, param_ids, shard_plan
from trainer_hooks.shadow_link import ShadowAddr, ShadowLink, ShadowsUnavailable
from trainer_hooks.shard_map import ShardMapMismatch, resolve_shard_map, verify_switch_map
from trainer_hooks.transport import UdpRing

log = logging.getLogger(__name__)

MODES = ("switch", "host", "off")
_generation = itertools.count()  # attach() calls in this process (unique store keys)


@dataclass(frozen=True)
class RingConfig:
    """Transport knobs (see :class:`trainer_hooks.transport.UdpRing`)."""

    bind_ip: str | None = None  # default: this host's address towards MASTER_ADDR
    udp_port: int = wire.CHECKMATE_UDP_PORT  # 0: an ephemeral port (several ranks on one host)
    mtu: int = 1500
    window: int = 512  # seqs in flight per ring edge (see docs/hooks/RING.md)
    rto: float = 0.05  # minimum retransmission timeout; the ring adapts it to the measured RTT
    timeout: float = 120.0
    loss_prob: float = 0.0
    seed: int = 0
    gso: bool = True  # batch datagrams with UDP GSO/GRO where the kernel allows it


def parse_shadows(shadows) -> list[ShadowAddr]:
    """``[(host, mgmt[, data]) | "host:mgmt[:data]", ...]`` -> :class:`ShadowAddr` list (shard order)."""
    out = []
    for s in shadows or ():
        parts = s.split(":") if isinstance(s, str) else list(s)
        if len(parts) not in (2, 3) or not str(parts[0]):
            raise ValueError(f"shadow {s!r}: expected (host, mgmt_port[, data_port]) or 'HOST:MGMT[:DATA]'")
        try:
            ports = [int(p) for p in parts[1:]]
        except (TypeError, ValueError):
            raise ValueError(f"shadow {s!r}: ports must be integers") from None
        if not all(0 < p < 65536 for p in ports):
            raise ValueError(f"shadow {s!r}: ports must be in 1..65535")
        data = ports[1] if len(ports) == 2 else wire.SHADOW_UDP_PORT
        out.append(ShadowAddr(str(parts[0]), ports[0], data))
    return out


def default_bind_ip() -> str:
    """The local address the kernel would use towards ``MASTER_ADDR`` (no packet is sent)."""
    master = os.environ.get("MASTER_ADDR", "127.0.0.1")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect((master, 9))
            return s.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def _exchange_addresses(job_id: int, rank: int, world: int, addr: tuple[str, int]) -> list[tuple[str, int]]:
    store = dist.distributed_c10d._get_default_store()
    prefix = f"checkmate/{job_id}/{next(_generation)}/udp/"
    store.set(prefix + str(rank), f"{addr[0]}:{addr[1]}")
    out = []
    for r in range(world):
        host, _, port = store.get(prefix + str(r)).decode().rpartition(":")
        out.append((host, int(port)))
    return out


class Checkpointer:
    """What :func:`attach` returns: the per-job handle used by the training loop."""

    def __init__(self, ddp_model, optimizer, mode, job_id, rank, world_size, iteration,
                 ring=None, tracker=None, link=None, shard_map=None, handles=()):
        self.ddp_model, self.optimizer = ddp_model, optimizer
        self.model = ddp_model.module
        self.mode, self.job_id, self.rank, self.world_size = mode, job_id, rank, world_size
        self.ring, self.tracker, self.link = ring, tracker, link
        self.shard_map: dict[int, int] = shard_map or {}
        self._handles = list(handles)
        self._off_completed = iteration
        self._closed = False
        self.hook_state = None
        #: the first step's check of the shadows' replay (``attach(verify_replay=...)``), once it ran
        self.replay_check = None
        self._replay_checked = False

    def _verify_replay_once(self, timeout: float = 60.0) -> None:
        """Rank 0, after the first optimizer step: the shadows' replay of it vs this trainer (once)."""
        if self._replay_checked:
            return
        self._replay_checked = True
        target = self.iteration
        try:
            chk = self.compare_with_shadows(target, timeout=timeout)
        except (TimeoutError, OSError, ValueError) as e:
            log.warning("checkmate: could not verify the shadows' replay of iteration %d: %s", target, e)
            return
        self.replay_check = chk
        if chk.identical:
            log.info("checkmate: the shadows' replay of iteration %d is bit-identical to this trainer "
                     "(%d elements: parameters and optimizer state)", target, chk.elements)
        else:
            worst = sorted(chk.per_tensor.items(), key=lambda kv: -kv[1][0])[:3]
            log.warning("checkmate: the shadows' replay of iteration %d differs from this trainer in %d of %d "
                        "elements (max %d ulp; e.g. %s): their checkpoints are within rounding, not bit-exact "
                        "(docs/HOOKS.md, 'Optimizer step on the GPU')", target, chk.differing, chk.elements,
                        chk.max_ulp, ", ".join(f"{k}: {d}" for k, (d, _) in worst))

    @property
    def iteration(self) -> int:
        """Iterations completed so far (optimizer steps plus skipped steps)."""
        return self.tracker.completed if self.tracker is not None else self._off_completed

    # -- training-loop calls ----------------------------------------------------------------
    @torch.no_grad()
    def clip_grad_norm_(self, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                        foreach: bool | None = None) -> torch.Tensor:
        """``torch.nn.utils.clip_grad_norm_`` over the model, with the coefficient mirrored.

        Same operations as torch (total norm, ``clamp(max_norm / (norm + 1e-6), max=1)``,
        one multiplication per gradient element), and the float32 coefficient is recorded
        for the manifest so the shadows multiply by exactly the same bits.
        """
        grads = [p.grad for p in self.model.parameters() if p.grad is not None]
        if not grads:
            return torch.tensor(0.0)
        total = torch.nn.utils.get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
        coef = torch.clamp(float(max_norm) / (total + 1e-6), max=1.0)
        if self.tracker is not None:
            self.tracker.record_clip(float(coef))
        torch._foreach_mul_(grads, coef.to(grads[0].device))
        return total

    def skip_step(self) -> None:
        """Declare that this iteration takes no optimizer step (e.g. an AMP overflow)."""
        if self.tracker is not None:
            self.tracker.skip_step()
        else:
            self._off_completed += 1

    def flush(self, timeout: float = 30.0) -> bool:
        """Rank 0: wait until every manifest so far has reached the shadows (bounded)."""
        return self.link.flush(timeout) if self.link is not None else True

    def wait_for_shadows(self, iteration: int | None = None, timeout: float = 30.0) -> bool:
        """Rank 0: wait until every shard has published ``iteration`` (default: the last completed)."""
        if self.link is None:
            return True
        target = self.iteration if iteration is None else iteration
        deadline = time.monotonic() + timeout
        if not self.flush(timeout):
            return False
        while time.monotonic() < deadline:
            self.link.check_shard_map()  # ShardMapMismatch: waiting would never succeed
            self.link.serve_resyncs(self.iteration)  # a shard lost after the last step
            try:
                if all((c.status().latest_iteration or 0) >= target for c in self.link.clients):
                    return True
            except OSError:
                pass
            time.sleep(0.02)
        return False

    def compare_with_shadows(self, iteration: int | None = None, timeout: float = 30.0):
        """Rank 0: the trainer's parameters and AdamW state vs every shard's replay of ``iteration`` (default:
        the last completed), bit for bit -- :func:`trainer_hooks.stepcheck.compare_with_shadows`."""
        from trainer_hooks.stepcheck import compare_with_shadows
        if self.link is None:
            raise RuntimeError("compare_with_shadows() runs on rank 0 of a job with shadows")
        target = self.iteration if iteration is None else iteration
        if not self.wait_for_shadows(target, timeout):
            raise TimeoutError(f"the shadows did not publish iteration {target} within {timeout:g}s")
        return compare_with_shadows(self.model, self.optimizer, self.link.shadows, iteration=target, timeout=timeout)

    @property
    def stats(self) -> dict:
        out = {"iteration": self.iteration, "mode": self.mode}
        if self.ring is not None:
            out["transport"] = self.ring.stats
        if self.link is not None:
            out["shadows"] = self.link.stats
        if self.tracker is not None:
            out["skipped"] = self.tracker.skipped
        if self.hook_state is not None:
            out["bucket_layouts"] = sorted(self.hook_state.layouts)
        return out

    def close(self, timeout: float = 30.0) -> None:
        """Flush manifests, let the ring drain (peers may still need our packets), stop threads."""
        if self._closed:
            return
        self._closed = True
        for h in self._handles:
            h.remove()
        if self.hook_state is not None and self.hook_state.staging is not None:
            self.hook_state.staging.close()
        if self.link is not None:
            self.link.close(timeout)
        if self.ring is not None:
            self.ring.close(linger=min(timeout, 10.0))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def attach(ddp_model: DistributedDataParallel, optimizer: torch.optim.Optimizer, *, mode: str = "switch",
           job_id: int, shadows=(), iteration: int = 0, ring: RingConfig | None = None,
           shadow_timeout: float = 30.0, on_grad_change: str = "resync", shard_map=None,
           verify_map: bool = True, verify_map_timeout: float = 5.0, verify_replay: bool | None = None,
           **ring_kwargs) -> Checkpointer:
    """Attach Checkmate to a DDP model and its optimizer; see the module docstring.

    ``shadows``: shard order, ``(host, mgmt_port[, data_port])`` or ``"HOST:MGMT[:DATA]"``
    (data port default ``SHADOW_UDP_PORT``).  ``iteration``: iterations already applied to the
    model (the value :func:`trainer_hooks.restore` returned).  Transport knobs go in ``ring`` or as
    keywords (``bind_ip``, ``udp_port``, ``mtu``, ``window``, ``rto``, ``timeout``, ``loss_prob``,
    ``seed``).  ``on_grad_change``: what rank 0 does when ``param.grad`` was changed after the
    all-reduce beyond one uniform scale (:mod:`trainer_hooks.grad_guard`): ``"resync"`` (default:
    the iteration is not replayed, every shard is re-bootstrapped from the trainer's state, a
    WARNING is logged) or ``"raise"`` (:class:`~trainer_hooks.iteration.GradientsChanged` from
    ``optimizer.step()``).  ``shard_map``: the map the switch was programmed with, ``{param_id: shard}``
    or ``{shard: [[lo, hi], ...]}`` (default :func:`~trainer_hooks.layout.shard_plan`; see
    :mod:`trainer_hooks.shard_map`); in switch mode the switch's map is probed at bootstrap
    (``verify_map``, up to ``verify_map_timeout`` s) and a mismatch fails ``attach`` on every rank.
    ``verify_replay``: after the first step, rank 0 waits for the shadows to publish it and compares
    their replay with its own parameters and optimizer state, bit for bit (:meth:`Checkpointer.
    compare_with_shadows`); the result lands in ``Checkpointer.replay_check`` and the log (a WARNING
    when they differ).  Default: on for a trainer whose parameters are not on the CPU (a GPU's kernels
    round as the shadows' replay does only where :mod:`shadow.device_optim` matched them), off on CPU
    (where the shadows' start-up probes already establish it).  A one-time wait of one iteration's
    publication plus a fetch of the shards' state.
    Collective: every rank must call it.
    """
    if not isinstance(ddp_model, DistributedDataParallel):
        raise TypeError(f"attach() needs a torch DistributedDataParallel model, got {type(ddp_model).__name__}")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if not isinstance(job_id, int) or not 0 <= job_id <= wire.FIELD_MAX["job_id"]:
        raise ValueError(f"job_id must be an int in 0..{wire.FIELD_MAX['job_id']}, got {job_id!r}")
    if not isinstance(iteration, int) or iteration < 0:
        raise ValueError(f"iteration must be a non-negative int, got {iteration!r}")
    if on_grad_change not in ("resync", "raise"):
        raise ValueError(f"on_grad_change must be 'resync' or 'raise', got {on_grad_change!r}")
    cfg = ring or RingConfig()
    if ring_kwargs:
        cfg = RingConfig(**{**cfg.__dict__, **ring_kwargs})
    addrs = parse_shadows(shadows)
    pg = ddp_model.process_group
    rank, world = dist.get_rank(pg), dist.get_world_size(pg)
    model = ddp_model.module
    opt_params = {id(p) for g in optimizer.param_groups for p in g["params"]}
    if any(id(p) not in opt_params for p in model.parameters() if p.requires_grad):
        raise ValueError("the optimizer must hold every trainable parameter of the DDP model")

    if mode == "off":
        ck = Checkpointer(ddp_model, optimizer, mode, job_id, rank, world, iteration)
        ck._handles.append(optimizer.register_step_post_hook(
            lambda *_: setattr(ck, "_off_completed", ck._off_completed + 1)))
        return ck

    if mode == "host" and not addrs:
        raise ValueError("mode='host' needs shadows to send the FINAL copies to")
    if mode == "switch" and world < 2:
        raise ValueError("mode='switch' needs world_size >= 2: with one rank no gradient crosses the switch")
    if addrs:
        optimizer_kind(optimizer)  # raises UnsupportedOptimizer (a TypeError) naming what the shadows replay
        devices = {p.device.type for g in optimizer.param_groups for p in g["params"]}
        why = inexact_replay(devices.pop() if len(devices) == 1 else "mixed")
        if why and rank == 0:
            log.warning("checkmate: %s (ckpt.compare_with_shadows() measures it)", why)
    max_el = wire.max_elements(cfg.mtu)
    owner = {}
    if addrs:
        n_params = len(list(model.parameters()))
        owner = (resolve_shard_map(shard_map, n_params, len(addrs)) if shard_map is not None
                 else shard_plan(model, len(addrs)))

    # --- transport: one UDP socket, peer addresses through the c10d store ---------------------
    bind_ip = cfg.bind_ip or default_bind_ip()
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sock.bind((bind_ip, cfg.udp_port))
        peers = _exchange_addresses(job_id, rank, world, sock.getsockname())
        copies = {pid: addrs[s].data for pid, s in owner.items()} if mode == "host" else None
        udp = UdpRing(sock, rank, world, peers[(rank - 1) % world], peers[(rank + 1) % world], job_id=job_id,
                      window=cfg.window, rto=cfg.rto, timeout=cfg.timeout, loss_prob=cfg.loss_prob,
                      seed=cfg.seed, final_copies=copies, gso=cfg.gso)
    except BaseException:
        sock.close()
        raise

    link, failure = None, [None]
    if rank == 0 and addrs:
        try:
            link = ShadowLink(job_id, addrs, model, optimizer, owner, timeout=shadow_timeout)
            link.bootstrap_all(iteration)
        except Exception as e:  # noqa: BLE001 - reported on every rank below
            what = str(e) if isinstance(e, ShadowsUnavailable) else f"{type(e).__name__}: {e}"
            failure[0] = f"bootstrapping the shadows failed on rank 0: {what}"
        if failure[0] is None and mode == "switch" and verify_map:  # does the switch copy each param to its owner?
            try:
                verify_switch_map(job_id, owner, link.clients, [f"{a.host}:{a.mgmt_port}" for a in addrs],
                                  bind_ip, peers[1 % world], timeout=verify_map_timeout)
            except ShardMapMismatch as e:
                failure[0] = str(e)
            except Exception as e:  # noqa: BLE001 - reported on every rank below
                failure[0] = f"probing the switch's shard map failed on rank 0: {type(e).__name__}: {e}"
    # collective: no gradient may reach a shadow before its bootstrap, and a failure stops every rank
    dist.broadcast_object_list(failure, src=dist.get_global_rank(pg, 0) if pg is not None else 0, group=pg)
    if failure[0] is not None:
        if link is not None:
            link.close(1.0)
        udp.close(linger=0.0)
        raise (ShardMapMismatch if failure[0].startswith("shard map mismatch") else ShadowsUnavailable)(failure[0])
    lrs = lambda: [g["lr"] for g in optimizer.param_groups]  # noqa: E731
    guard = check = None
    if link is not None:  # only rank 0 talks to the shadows: only its gradients need the check
        params = list(model.parameters())
        names = {i: n for i, (n, _) in enumerate(model.named_parameters())}
        guard = GradGuard(names)
        check = lambda it, hint: guard.check(it, params, hint)  # noqa: E731
    tracker = IterationTracker(iteration, lrs, link.on_record if link is not None else None,
                               capture_buffers=buffer_capturer(model) if link is not None else None,
                               read_no_grad=no_grad_reader(model) if link is not None else None,
                               check_grads=check, on_grad_change=on_grad_change)
    bases = packet_bases([p.numel() for p in model.parameters()], max_el)
    hook_state = HookState(udp, param_ids(model), world, max_el, bases, tracker, guard=guard,
                           guard_copy=bool(getattr(ddp_model, "gradient_as_bucket_view", True)))
    ddp_model.register_comm_hook(hook_state, checkmate_hook)
    handles = [optimizer.register_step_pre_hook(lambda *_: tracker.on_step_pre()),
               optimizer.register_step_post_hook(lambda *_: tracker.on_step_post())]
    ck = Checkpointer(ddp_model, optimizer, mode, job_id, rank, world, iteration,
                      ring=udp, tracker=tracker, link=link, shard_map=owner, handles=handles)
    ck.hook_state = hook_state
    if verify_replay is None:
        verify_replay = any(p.device.type != "cpu" for g in optimizer.param_groups for p in g["params"])
    if link is not None and verify_replay:
        ck._handles.append(optimizer.register_step_post_hook(lambda *_: ck._verify_replay_once()))
    return ck
