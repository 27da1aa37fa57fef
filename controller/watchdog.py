"""Heartbeat watchdog: which training ranks are hung, from the switches' heartbeat digests.

The data plane sends ``(job_id, rank, iteration)`` whenever a rank's FINAL chunks move to
another iteration (see docs/DATAPLANE.md, "Heartbeat").  A rank going *back* therefore means
the job restarted from an older checkpoint: the watchdog starts a new incarnation of that job
(every rank unreported again, the first iteration is the restart's; hung ranks are reported
recovered), so a restarted job is watched from its first chunk -- nobody has to reset switch
registers or tell the watchdog.  :class:`Watchdog` keeps, per (job, rank), the newest iteration and when
it last advanced, and flags a rank as **hung** when

* **lag**: the job's most advanced rank is ``lag_threshold`` (default 2) or more iterations
  ahead of it -- a rank expected from the topology that never reported counts as being one
  iteration before the first iteration the watchdog saw for the job (-1 for a fresh job; after
  a restore the job's first heartbeats may start at any iteration, and the ranks' first digests
  arrive one after the other, so this does not flag the later ones); or
* **silence**: it has not advanced for ``silence_s`` seconds while another rank of the same
  job advanced within that window (a whole job pausing -- e.g. evaluation -- flags nobody).

A hung rank that catches up is cleared.  :meth:`Watchdog.observe` and
:meth:`Watchdog.check` return the *transitions* (:class:`Verdict` with ``hung`` True or
False) so callers log each once; :meth:`Watchdog.snapshot` is the table the CLI prints.

:class:`DigestPump` feeds a watchdog from live :class:`~controller.device.Device` s: one
thread per switch drains its DigestLists, acknowledges each list, and decodes it.  The
clock is injectable, so the logic is unit-tested without sleeping.
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Callable, Iterable

from .entities import Heartbeat

log = logging.getLogger("checkmate.watchdog")


@dataclass
class RankState:
    job_id: int
    rank: int
    iteration: int = -1  # -1: never heard of
    last_seen: float | None = None
    last_advance: float | None = None
    hung: bool = False
    reason: str = ""


@dataclass(frozen=True)
class Verdict:
    job_id: int
    rank: int
    iteration: int
    hung: bool
    reason: str

    def __str__(self) -> str:
        state = "HUNG" if self.hung else "recovered"
        return f"job {self.job_id} rank {self.rank} {state} at iteration {self.iteration}: {self.reason}"


class Watchdog:
    def __init__(self, lag_threshold: int = 2, silence_s: float = 30.0,
                 expected: Iterable[tuple[int, int]] = (), clock: Callable[[], float] = time.monotonic):
        if lag_threshold < 1:
            raise ValueError(f"lag_threshold must be >= 1, got {lag_threshold}")
        self.lag_threshold, self.silence_s, self.clock = lag_threshold, silence_s, clock
        self.ranks: dict[tuple[int, int], RankState] = {}
        self.first_seen: dict[int, int] = {}  # job -> lowest iteration heard
        self.lock = threading.Lock()
        for job, rank in expected:
            self.ranks[(job, rank)] = RankState(job, rank)

    def observe(self, hb: Heartbeat, now: float | None = None) -> list[Verdict]:
        now = self.clock() if now is None else now
        out: list[Verdict] = []
        with self.lock:
            st = self.ranks.setdefault((hb.job_id, hb.rank), RankState(hb.job_id, hb.rank))
            if 0 <= hb.iteration < st.iteration:
                out = self._new_incarnation(hb.job_id, hb.iteration)
                st = self.ranks[(hb.job_id, hb.rank)]
            st.last_seen = now
            first = self.first_seen.get(hb.job_id)
            self.first_seen[hb.job_id] = hb.iteration if first is None else min(first, hb.iteration)
            if hb.iteration > st.iteration:
                st.iteration = hb.iteration
                st.last_advance = now
        return out + self.check(now)

    def _new_incarnation(self, job: int, iteration: int) -> list[Verdict]:
        """The job restarted at ``iteration`` (lock held): forget its ranks' progress."""
        out = []
        for key, old in list(self.ranks.items()):
            if old.job_id != job:
                continue
            if old.hung:
                v = Verdict(job, old.rank, old.iteration, False, f"job restarted at iteration {iteration}")
                log.info("%s", v)
                out.append(v)
            self.ranks[key] = RankState(job, old.rank)
        self.first_seen[job] = iteration
        return out

    def check(self, now: float | None = None) -> list[Verdict]:
        now = self.clock() if now is None else now
        out = []
        with self.lock:
            jobs: dict[int, list[RankState]] = {}
            for st in self.ranks.values():
                jobs.setdefault(st.job_id, []).append(st)
            for job, ranks in jobs.items():
                top = max(st.iteration for st in ranks)
                first = self.first_seen.get(job)
                for st in ranks:
                    reason = self._reason(st, ranks, top, first, now)
                    if bool(reason) != st.hung:
                        st.hung = bool(reason)
                        v = Verdict(st.job_id, st.rank, st.iteration, st.hung,
                                    reason or f"caught up (job at iteration {top})")
                        (log.warning if st.hung else log.info)("%s", v)
                        out.append(v)
                    st.reason = reason
        return out

    def _reason(self, st: RankState, ranks: list[RankState], top: int, first: int | None, now: float) -> str:
        if st.iteration < 0:
            if first is None:
                return ""
            lag = top - (first - 1)
            if lag >= self.lag_threshold:
                return f"never reported while the job went from iteration {first} to {top}"
            return ""
        lag = top - st.iteration
        if lag >= self.lag_threshold:
            return f"at iteration {st.iteration}, {lag} behind the job's iteration {top}"
        if st.last_advance is not None and self.silence_s > 0:
            silent = now - st.last_advance
            others = [o for o in ranks if o is not st and o.last_advance is not None
                      and o.last_advance > st.last_advance and now - o.last_advance < self.silence_s]
            if silent >= self.silence_s and others:
                return f"silent for {silent:.1f}s while rank(s) {', '.join(str(o.rank) for o in others)} advanced"
        return ""

    def hung(self) -> list[RankState]:
        with self.lock:
            return sorted((s for s in self.ranks.values() if s.hung), key=lambda s: (s.job_id, s.rank))

    def snapshot(self, now: float | None = None) -> list[dict]:
        now = self.clock() if now is None else now
        with self.lock:
            rows = sorted(self.ranks.values(), key=lambda s: (s.job_id, s.rank))
            return [{"job_id": s.job_id, "rank": s.rank,
                     "iteration": s.iteration if s.iteration >= 0 else None,
                     "age_s": None if s.last_advance is None else round(now - s.last_advance, 3),
                     "hung": s.hung, "reason": s.reason} for s in rows]


class DigestPump:
    """Drain heartbeat digests from devices into a :class:`Watchdog` (one thread per device)."""

    def __init__(self, devices, watchdog: Watchdog, on_verdict: Callable[[Verdict], None] | None = None,
                 on_heartbeat: Callable[[Heartbeat], None] | None = None):
        self.devices, self.watchdog = list(devices), watchdog
        self.on_verdict, self.on_heartbeat = on_verdict, on_heartbeat
        self.stop_event = threading.Event()
        self.threads: list[threading.Thread] = []
        self.received = 0

    def start(self) -> "DigestPump":
        for dev in self.devices:
            t = threading.Thread(target=self._pump, args=(dev,), name=f"digests-{dev.name}", daemon=True)
            t.start()
            self.threads.append(t)
        return self

    def _pump(self, dev) -> None:
        while not self.stop_event.is_set():
            for dl in dev.conn.digests(timeout=0.2):
                dev.conn.ack(dl)
                for hb in dev.decode_digest(dl):
                    if not isinstance(hb, Heartbeat):
                        continue
                    self.received += 1
                    if self.on_heartbeat:
                        self.on_heartbeat(hb)
                    for v in self.watchdog.observe(hb):
                        if self.on_verdict:
                            self.on_verdict(v)
                if self.stop_event.is_set():
                    return
            if dev.conn.stream_ended.is_set():
                return

    def tick(self) -> list[Verdict]:
        vs = self.watchdog.check()
        for v in vs:
            if self.on_verdict:
                self.on_verdict(v)
        return vs

    def stop(self) -> None:
        self.stop_event.set()
        for t in self.threads:
            t.join(timeout=2)
