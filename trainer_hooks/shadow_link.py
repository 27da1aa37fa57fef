"""Rank 0's side of the shadow protocol: bootstrap, per-iteration manifests, resync.

:class:`ShadowLink` holds one :class:`shadow.client.ShadowClient` per shard.
``bootstrap_all`` runs synchronously at attach (the shadows must know the
shard layout before the first FINAL chunk arrives).  Manifests are queued to
one sender thread, so the training loop never waits on a TCP round trip; the
queue is FIFO.  A manifest without buffers (the common case) does not even
go through the queue: the training thread posts it as a compact binary frame
to every shard (:meth:`ShadowLink._post_now`): per iteration and shard one
``send``, no thread hand-off.  The acks are read without waiting, and only every
``ack_batch`` manifests or ``ack_interval`` seconds (one non-blocking ``read`` per
shard for all that arrived): reading an ack costs more than posting a manifest.
The shadows are asked to ack cumulatively, one ack per ``ack_batch`` manifests
(at once for a resync need, a grown loss or misrouted count; ``flush`` asks for
what they hold): an ack they need not write is one the link need not read.
Whatever could wait (a connect, a full socket, a client busy with another call,
a JSON manifest with buffers) goes to the sender thread.

A shadow that answers ``needs_resync`` -- or that cannot be reached -- is
marked; at the next optimizer step the training thread waits for the queued
manifests to go out, snapshots the current model and optimizer state of that
shard (a consistent point: between steps) and sends a fresh
:class:`~shadow.protocol.Bootstrap` synchronously, before the next gradient
can exist.  Shadow trouble never
stops training: it is logged and counted in :class:`LinkStats`.
"""
from __future__ import annotations

import dataclasses
import logging
import queue
import threading
import time
from dataclasses import dataclass, field

import torch

from shadow import device_optim
from shadow.client import ShadowClient
from shadow.protocol import (DTYPE_NAMES, Bootstrap, Manifest, OptimizerSpec, ParamSpec, ShadowError, ShardMap,
                             pack_manifest, pack_message)
from trainer_hooks.buffers import BUFFER_SHARD, capture_buffers, capture_frozen
from trainer_hooks.iteration import IterationRecord
from trainer_hooks.shard_map import ShardMapMismatch, mismatch_message

log = logging.getLogger(__name__)


class ShadowsUnavailable(RuntimeError):
    """The shadows could not be bootstrapped at :func:`trainer_hooks.attach`; the message names the
    shard, its address and the reason (raised on every rank)."""


@dataclass(frozen=True)
class ShadowAddr:
    """Where one shard's shadow listens: TCP management and UDP data (host mode target)."""

    host: str
    mgmt_port: int
    data_port: int

    @property
    def data(self) -> tuple[str, int]:
        return (self.host, self.data_port)


@dataclass
class LinkStats:
    manifests_sent: int = 0
    bootstraps_sent: int = 0
    resyncs: int = 0
    group_resyncs: int = 0  #: healthy shards re-bootstrapped together with a resynced one
    errors: int = 0
    last_error: str = ""
    acks: list = field(default_factory=list)  # the last ManifestAck per shard
    #: iterations not replayed because the gradients were changed after the all-reduce beyond one
    #: uniform scale (trainer_hooks.grad_guard); each one resynced every shard
    unreplayable: int = 0
    #: per shard, the shadow's loss count as of its last ack (iterations it gave up on)
    shadow_losses: list = field(default_factory=list)


def param_specs(model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> list[ParamSpec]:
    """One :class:`ParamSpec` per parameter, in ``model.parameters()`` order (a frozen parameter that
    is not in the optimizer gets group -1: no shard owns it, see :mod:`trainer_hooks.buffers`)."""
    group_of = {id(p): g for g, grp in enumerate(optimizer.param_groups) for p in grp["params"]}
    names = {id(p): n for n, p in model.named_parameters()}
    specs = []
    for pid, p in enumerate(model.parameters()):
        if id(p) not in group_of and p.requires_grad:
            raise ValueError(f"parameter {names.get(id(p), pid)!r} (param_id {pid}) is not in the optimizer; "
                             "Checkmate replays the optimizer over every parameter of the model")
        if p.dtype != torch.float32 and (p.requires_grad or p.dtype not in DTYPE_NAMES):
            raise ValueError(f"parameter {names.get(id(p))!r} is {p.dtype}; the Checkmate ring carries float32")
        specs.append(ParamSpec(pid, names.get(id(p), str(pid)), tuple(p.shape), DTYPE_NAMES[p.dtype],
                               group_of.get(id(p), -1)))
    return specs


class ShadowLink:
    def __init__(self, job_id: int, shadows: list[ShadowAddr], model: torch.nn.Module,
                 optimizer: torch.optim.Optimizer, owner: dict[int, int], *, timeout: float = 30.0):
        self.job_id = job_id
        self.shadows = shadows
        self.model, self.optimizer = model, optimizer
        self.params = list(model.parameters())
        self.specs = param_specs(model, optimizer)
        self.shard_map = ShardMap(job_id, len(shadows), dict(owner), [f"{s.host}:{s.data_port}" for s in shadows])
        self.owned = [self.shard_map.owned(k) for k in range(len(shadows))]
        self.clients = [ShadowClient(s.host, s.mgmt_port, timeout=timeout) for s in shadows]
        self.stats = LinkStats(acks=[None] * len(shadows), shadow_losses=[0] * len(shadows))
        #: on a resync, bootstrap every reachable shard at the same iteration (see serve_resyncs)
        self.group_resync = True
        #: manifests as compact binary frames, posted without waiting for acks (see _send_manifests);
        #: False: JSON requests, one round trip per iteration (a shadow that predates the compact form)
        self.compact = True
        #: compact manifests sent per write: 1 sends each iteration's manifest right after its step; N > 1
        #: holds up to N-1 of them back and sends N in one write per shard (one wake-up of each shadow's
        #: connection thread for N iterations, which then replays them back to back), at the price of the
        #: shadows publishing up to N-1 iterations later.  flush() (wait_for_shadows, resyncs, close)
        #: sends what is held.
        self.manifest_batch = 1
        self._held: list[tuple[bytes, int]] = []  # (frame, iteration) held back by manifest_batch
        #: the training thread reads the acks of posted manifests only once ``ack_batch`` manifests were
        #: posted since its last read, or ``ack_interval`` seconds after it, whichever comes first (1 / 0:
        #: after every manifest).  Reading is the expensive half of posting: a ``read`` that finds an
        #: ack makes the kernel send the TCP acknowledgement of it at once, through the shadow's receive
        #: path, charged to this thread; left unread, that acknowledgement rides on the next manifest.
        #: The price: a shard's resync request, loss count or misrouted copies are noticed up to
        #: ``ack_interval`` (plus one iteration) later.  flush() -- wait_for_shadows, resyncs, close --
        #: still reads every outstanding ack.  The shadows are asked (``hello``, at each connect) to ack
        #: cumulatively, one ack per ``ack_batch`` manifests -- at once, though, for anything the trainer
        #: acts on (docs/SHADOW.md, *Acks*); an older shadow acks every manifest, as before.
        self.ack_batch = 16
        self.ack_interval = 0.1
        self._unread = 0  # manifests posted by the training thread since its last read of the acks
        self._read_at = time.monotonic()
        self._resync: set[int] = set()
        self._powers: tuple | None = None  # (bootstrap iteration, first step, tables): see _powers_for
        self._powers_until: int | None = None  # the iteration at which the shadows' tables run out
        self._boot_iter: dict[int, int] = {}  # shard -> iteration of the last bootstrap sent
        self._retry_at: dict[int, float] = {}  # shard -> monotonic time before which no resync is tried
        self._backoff: dict[int, float] = {}
        self._lock = threading.Lock()
        self._map_error = ""  # set by the sender thread from an ack with misrouted copies
        self._q: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="checkmate-shadow-link", daemon=True)
        self._thread.start()

    @property
    def ack_batch(self) -> int:
        return self._ack_batch

    @ack_batch.setter
    def ack_batch(self, n: int) -> None:
        self._ack_batch = int(n)
        for c in self.clients:  # asked for at the client's next connect (bootstrap_all connects)
            c.ack_every = max(1, self._ack_batch)

    # -- state snapshots (training thread, between steps) ------------------------------------
    def snapshot(self, shard: int, iteration: int, *, resync: bool = False) -> Bootstrap:
        state = self.optimizer.state
        tensors, opt_state = {}, {}
        with torch.no_grad():
            for pid in self.owned[shard]:
                p = self.params[pid]
                tensors[pid] = p.detach().to("cpu", copy=True)  # the shadows live on CPU (CUDA models too)
                st = state.get(p)
                if st:
                    opt_state[pid] = {k: v.detach().to("cpu", copy=True) for k, v in st.items()
                                      if isinstance(v, torch.Tensor)}
        extra = {}
        if shard == BUFFER_SHARD:  # buffers as of `iteration` (between steps) and the frozen params
            extra = dict(buffers=capture_buffers(self.model), frozen=capture_frozen(self.model))
        spec = OptimizerSpec.from_optimizer(self.optimizer)
        powers = self._powers_for(spec, iteration)
        if powers is not None:
            extra.update(device_powers_from=powers[0], device_powers=powers[1])
        return Bootstrap(self.job_id, shard, iteration, self.specs, self.shard_map,
                         spec, tensors, opt_state, resync=resync, **extra)

    def _powers_for(self, spec: OptimizerSpec, iteration: int) -> tuple[int, dict] | None:
        """The GPU's ``beta ** step`` for the next :data:`~shadow.device_optim.POWERS_SPAN` optimizer steps
        where the shadows need them (fused Adam/AdamW on CUDA), computed once per bootstrap round; the
        link re-bootstraps every shard before they run out (:meth:`on_record`)."""
        if not device_optim.needs_powers(spec.kind, spec.device, spec.fused):
            return None
        if self._powers is None or self._powers[0] != iteration:
            steps = [torch.as_tensor(st["step"]).reshape(()).float() for st in self.optimizer.state.values()
                     if "step" in st]
            first = int(torch.stack(steps).min().item()) + 1 if steps else 1  # (one device sync)
            betas = [b for g in self.optimizer.param_groups for b in g["betas"]]
            device = self.params[0].device
            self._powers = (iteration, first, device_optim.device_powers(betas, first, device_optim.POWERS_SPAN, device))
            self._powers_until = iteration + device_optim.POWERS_SPAN  # (skipped steps only make it early)
        return self._powers[1], self._powers[2]

    def bootstrap_all(self, iteration: int) -> None:
        """Synchronously (re)initialise every shard from the current state; raises on failure."""
        for k, c in enumerate(self.clients):
            try:
                status = c.bootstrap(self.snapshot(k, iteration))
            except (OSError, ShadowError) as e:
                raise ShadowsUnavailable(f"shard {k}: {e}") from e
            if status.shard != k or status.job_id != self.job_id:
                raise RuntimeError(f"shadow {self.shadows[k]} is job {status.job_id} shard {status.shard}, "
                                   f"expected job {self.job_id} shard {k} (shadows are listed in shard order)")
            self._boot_iter[k] = iteration
            self.stats.bootstraps_sent += 1

    # -- per iteration (training thread) ------------------------------------------------------
    def on_record(self, rec: IterationRecord) -> None:
        """Queue the manifest of a finished iteration, then serve any resync that is owed.

        An ``unreplayable`` record (gradients changed after the all-reduce) gets no manifest: the
        shadows can never apply that iteration, and every shard is re-bootstrapped right away from
        the trainer's state after the step -- so no shard publishes a wrong state, and all hold it.
        """
        self.check_shard_map()
        if rec.unreplayable:
            self.stats.unreplayable += 1
            log.warning("checkmate: %s; the iteration is not replayed, every shard is resynced from the trainer's "
                        "state instead (a full state transfer per such step: clip with ckpt.clip_grad_norm_ or "
                        "scale all gradients by one factor to avoid it)", rec.unreplayable)
            with self._lock:
                self._resync |= set(range(len(self.clients)))
            self.serve_resyncs(rec.iteration)
            return
        if self._powers_until is not None and rec.iteration >= self._powers_until:
            with self._lock:  # the shadows' table of the GPU's beta ** step runs out: fresh bootstraps
                self._resync |= set(range(len(self.clients)))
            self._powers_until = None
        m = Manifest(self.job_id, rec.iteration, list(rec.lrs), rec.clip_coef, rec.skip, rec.buffers,
                     list(rec.no_grad))
        if self.compact and m.buffers is None:
            self._post_now(m)
        else:
            self.send_held()  # (in order: the held compact manifests first)
            self._q.put(("manifest", m))
        self.serve_resyncs(rec.iteration)

    def _post_now(self, m: Manifest) -> None:
        """Post the compact manifest from the training thread -- a few microseconds, never a wait: a
        ``send`` per shard (``ShadowClient.try_post``) and a non-blocking read of the acks that
        arrived.  A shard whose client is busy, unconnected or whose socket is full gets the frame
        through the link thread instead (which may wait, connect, and reports failures)."""
        frame = pack_manifest(m)
        self.stats.manifests_sent += 1
        if self.manifest_batch > 1:
            self._held.append((frame, m.iteration))
            if len(self._held) < self.manifest_batch:
                return
        self.send_held(frame, m.iteration)

    def send_held(self, frame: bytes | None = None, iteration: int | None = None) -> None:
        """Post the held compact manifests (``manifest_batch``), or ``frame`` when none are held: one
        write per shard, then -- when ``ack_batch`` / ``ack_interval`` says so -- a non-blocking read of
        the acks that arrived."""
        count, last = 1, iteration
        if self._held:
            count, last = len(self._held), self._held[-1][1]
            frame = b"".join(f for f, _ in self._held)
            self._held.clear()
        elif frame is None:
            return
        skip = ()
        if self._resync:
            with self._lock:
                skip = set(self._resync)
        for k, c in enumerate(self.clients):
            if k in skip:
                continue  # it gets a fresh bootstrap anyway
            if not c.try_post(frame, count):
                self._q.put(("post", k, frame, last, count))
        self._unread += count
        now = time.monotonic()
        if self._unread >= self.ack_batch or now - self._read_at >= self.ack_interval:
            self._unread, self._read_at = 0, now
            self._collect_acks(block=False, wait=False)  # a client busy in the link thread is skipped

    def serve_resyncs(self, iteration: int) -> None:
        """Bootstrap every shard marked for resync from the current state (= ``iteration``).

        Synchronous, in the training thread, after the queued manifests went out: the next
        gradient (``iteration + 1``) cannot reach the shadow before its new state.  With several
        ranks this holds too -- no chunk of ``iteration + 1`` is fully reduced before rank 0
        has contributed to it.  Resyncs are rare; the pause is the price of a consistent state.
        """
        if not self._resync:
            return  # the usual case (a shard added meanwhile by the link thread is served next time)
        now = time.monotonic()
        with self._lock:
            due = {k for k in self._resync if self._retry_at.get(k, 0.0) <= now}
            self._resync -= due
        if not due:
            return
        for k in due:
            self._boot_iter[k] = iteration  # acks of manifests up to here no longer ask for one
        self.flush()
        synced = False
        for k in sorted(due):
            self.stats.resyncs += 1
            t_try = time.monotonic()
            try:
                self.clients[k].bootstrap(self.snapshot(k, iteration, resync=True))
                self.stats.bootstraps_sent += 1
                self._backoff.pop(k, None)
                synced = True
                log.warning("checkmate: shadow %s (shard %d) resynced at iteration %d", self._where(k), k, iteration)
            except Exception as e:  # noqa: BLE001 - retried later, with backoff (a dead shadow must not stall training)
                # A fast failure (connection refused: the host is up, the shadow process is not) costs
                # training nothing, so retry every second -- a restarted shadow is resynced within ~1 s.
                # A slow one (timeout: host unreachable) stalled this step: back off, doubling to 30 s.
                fast = time.monotonic() - t_try < 0.5
                self._backoff[k] = 1.0 if fast else min(2 * self._backoff.get(k, 0.5), 30.0)
                self._retry_at[k] = time.monotonic() + self._backoff[k]
                self._fail(k, f"resync at iteration {iteration}", e)
        if synced and self.group_resync:
            # The other shards get the same state too, so every shard holds ``iteration`` as soon as
            # this returns: a failure right after a resync still finds a common iteration in memory,
            # even when a healthy shard had not published ``iteration`` yet (or lost it as well).
            with self._lock:
                others = [k for k in range(len(self.clients)) if k not in due and k not in self._resync]
            for k in others:
                try:
                    self.clients[k].bootstrap(self.snapshot(k, iteration, resync=True))
                    self.stats.bootstraps_sent += 1
                    self.stats.group_resyncs += 1
                except Exception as e:  # noqa: BLE001
                    self._fail(k, f"group resync at iteration {iteration}", e)

    def flush(self, timeout: float = 30.0) -> bool:
        """Wait until every queued message was handled (bounded); True if the queue drained."""
        self.send_held()
        done = threading.Event()
        self._q.put(("flush", done))
        return done.wait(timeout)

    def close(self, timeout: float = 30.0) -> None:
        self.flush(timeout)
        self._q.put(None)
        self._thread.join(timeout=5.0)
        for c in self.clients:
            c.close()

    # -- sender thread ---------------------------------------------------------------------------
    def _fail(self, shard: int, what: str, e: BaseException) -> None:
        self.stats.errors += 1
        self.stats.last_error = f"shard {shard}: {what}: {e}"
        log.warning("checkmate: shadow %s (shard %d) %s failed: %s; will resync", self.shadows[shard], shard, what, e)
        with self._lock:
            self._resync.add(shard)

    def check_shard_map(self) -> None:
        """Raise :class:`ShardMapMismatch` once a shadow reported copies of parameters it does not own."""
        if self._map_error:
            raise ShardMapMismatch(self._map_error)

    def _where(self, k: int) -> str:
        return f"{self.shadows[k].host}:{self.shadows[k].mgmt_port}"

    def _note_ack(self, k: int, ack) -> None:
        """Surface what an ack says about the shard: misrouted copies (a shard map mismatch, raised in
        the training thread by :meth:`check_shard_map`) and a grown loss count (a WARNING)."""
        if getattr(ack, "misrouted", 0) and not self._map_error:
            self._map_error = mismatch_message(k, self._where(k), list(ack.misrouted_params), ack.misrouted,
                                               self.shard_map.owner)
            log.error("checkmate: %s", self._map_error)
        losses = getattr(ack, "losses", None)
        if losses is None or losses <= self.stats.shadow_losses[k]:
            return
        log.warning("checkmate: shadow %s (shard %d) lost %d iteration(s) (%d in all): %s",
                    self._where(k), k, losses - self.stats.shadow_losses[k], losses, ack.reason or "no reason given")
        self.stats.shadow_losses[k] = losses

    def _run(self) -> None:
        while True:
            item = self._q.get()
            if item is None:
                return
            if item[0] == "flush":
                self._collect_acks(block=True)
                item[1].set()
            elif item[0] == "manifest":
                self._send_manifests(item[1])
                self.stats.manifests_sent += 1
            elif item[0] == "post":  # a compact manifest the training thread could not send at once
                _, k, frame, it, count = item
                with self._lock:
                    if k in self._resync:
                        continue
                try:
                    self.clients[k].post_manifest(frame, count)
                except Exception as e:  # noqa: BLE001
                    self._fail(k, f"manifest {it}", e)
                self._collect_acks(block=False)

    def _send_manifests(self, full: Manifest) -> None:
        """One iteration's manifest to every shard.

        Compact (default): the manifest without buffers is packed once into a fixed binary frame
        (``shadow.protocol.pack_manifest``) and *posted* to every shard -- one ``send`` each, no wait
        for the ack; the acks of earlier manifests that already arrived are read right after (one
        non-blocking ``recv`` per shard), so the link thread neither waits a round trip nor wakes up
        for an ack.  A shard asking for a resync is thus noticed one iteration later (its ack of
        iteration ``i`` is read when ``i + 1`` is posted, or at :meth:`flush`).  A manifest that
        carries buffers (the buffer shard of a model with buffers) goes as a JSON request, as does
        every manifest with ``compact = False`` (a shadow of an older protocol): each frame encoded
        once, sent to all shards, then the acks read -- one round trip for all shards."""
        lean = dataclasses.replace(full, buffers=None) if full.buffers is not None else full
        compact = self.compact
        frames = {}
        sent = []
        for k, c in enumerate(self.clients):
            m = full if k == BUFFER_SHARD else lean  # only the buffer shard carries buffers
            with self._lock:
                if k in self._resync:
                    continue  # it gets a fresh bootstrap anyway; don't wait on a sick shadow
            try:
                if compact and m.buffers is None:
                    if "compact" not in frames:
                        frames["compact"] = pack_manifest(m)
                    c.post_manifest(frames["compact"])
                else:
                    if id(m) not in frames:
                        frames[id(m)] = pack_message("manifest", m)
                    c.begin("manifest", frames[id(m)])
                    sent.append(k)
            except Exception as e:  # noqa: BLE001 - a shadow problem must not stop training
                self._fail(k, f"manifest {m.iteration}", e)
        for k in sent:
            try:
                ack = self.clients[k].finish("manifest")
            except Exception as e:  # noqa: BLE001
                self._fail(k, f"manifest {full.iteration}", e)
                continue
            self._handle_ack(k, ack)
        if compact:
            self._collect_acks(block=False)

    def _collect_acks(self, block: bool, wait: bool = True) -> None:
        """Read the acks of posted manifests (``block``: every one outstanding; ``wait=False``: skip a
        client another thread is using) and act on them.  A shadow's failure never stops training."""
        for k, c in enumerate(self.clients):
            try:
                acks = c.take_acks(block, wait)  # (also acks another call on the client read on its way)
            except Exception as e:  # noqa: BLE001
                self._fail(k, "reading manifest acks", e)
                continue
            for ack in acks:
                if isinstance(ack, Exception):
                    self._fail(k, "manifest", ack)
                else:
                    self._handle_ack(k, ack)

    def _handle_ack(self, k: int, ack) -> None:
        self.stats.acks[k] = ack
        self._note_ack(k, ack)
        if ack.needs_resync and ack.iteration > self._boot_iter.get(k, -1):
            log.warning("checkmate: shadow %s (shard %d) asks for a resync at iteration %d (%s)",
                        self._where(k), k, ack.iteration, ack.reason)
            with self._lock:
                self._resync.add(k)
