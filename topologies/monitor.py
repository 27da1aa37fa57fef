"""Testbed helpers that watch a run from the outside: shadow status pollers, the failure injector,
metrics tailing, interface counters, port picking and ``--stop``.

They are separate from ``topologies/runner.py`` (the scenario itself) so the fault scenarios
(``topologies/faults.py``) and the benchmarks can use them without pulling in the runner.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time
from pathlib import Path

from checkmate import paths

from .procs import cleanup_state

TRAIN_SCRIPT = paths.ROOT / "examples" / "ddp_train.py"


class TestbedError(RuntimeError):
    pass


def missing_components() -> list[str]:
    """Components the scenario needs that are still placeholders in this checkout (named by issue)."""
    out = []
    for mod, what in (("switch/cli.py", "checkmate-switch (issue #4)"), ("shadow/cli.py", "checkmate-shadow (issue #7)"),
                      ("controller/plan.py", "controller plan (issue #6)")):
        f = paths.ROOT / mod
        if not f.exists() or "checkmate.notimpl import not_implemented" in f.read_text():
            out.append(what)
    if not TRAIN_SCRIPT.exists():
        out.append("examples/ddp_train.py (issue #8)")
    return out


# ------------------------------------------------------------------------------------------------
# --stop
# ------------------------------------------------------------------------------------------------

def stop_all(logs_root) -> int:
    """Remove everything recorded by runs under ``logs_root`` (live runners are asked to stop first)."""
    logs_root = Path(logs_root)
    states = sorted(logs_root.glob("*/state.json")) if logs_root.exists() else []
    if not states:
        print(f"checkmate testbed --stop: nothing recorded under {logs_root}/")
        return 0
    total = {"procs": 0, "intfs": 0}
    for st in states:
        got = cleanup_state(st, log=lambda m: print(f"  {m}"))
        for k in total:
            total[k] += got[k]
    print(f"checkmate testbed --stop: {len(states)} run(s): stopped {total['procs']} process(es), "
          f"deleted {total['intfs']} interface(s)")
    return 0


# ------------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------------

def port_search_range() -> tuple[int, int]:
    """Where :func:`free_port_block` looks: below the kernel's ephemeral range
    (``net.ipv4.ip_local_port_range``) when that leaves room -- the kernel never hands out a port
    there for another program's ``bind(port 0)`` or outgoing connection, so a block found free stays
    free until the switches bind it (the testbed's own parallel runs pick random places) -- else
    50051..59000."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    return (20000, low) if low - 20000 >= 4096 else (50051, 59000)


def free_port_block(count: int, start: int | None = None) -> int:
    """A port ``p`` such that p..p+count-1 are all free on 127.0.0.1, searched in
    :func:`port_search_range` from ``start`` (default: a random place, so concurrent runs on one
    machine rarely probe the same ports)."""
    import random
    lo, hi = port_search_range()
    p = start if start is not None else lo + 16 * random.randrange(max(1, (hi - lo - count) // 16))
    for _ in range(2000):
        if p + count > hi:
            p = lo
        socks = []
        try:
            for i in range(count):
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                socks.append(s)
                s.bind(("127.0.0.1", p + i))
            return p
        except OSError:
            p += count
        finally:
            for s in socks:
                s.close()
    raise TestbedError(f"no {count} consecutive free TCP ports in {lo}..{hi}")


def read_jsonl(path: Path, pos: int = 0) -> tuple[list[dict], int]:
    """New complete JSON lines of ``path`` from byte ``pos``; returns (records, new pos)."""
    try:
        with open(path, "rb") as f:
            f.seek(pos)
            data = f.read()
    except FileNotFoundError:
        return [], pos
    end = data.rfind(b"\n") + 1
    out = []
    for line in data[:end].splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out, pos + end


def _get(rec: dict, *names, default=None):
    for n in names:
        if n in rec and rec[n] is not None:
            return rec[n]
    return default


def iteration_of(rec: dict):
    return _get(rec, "iteration", "iter", "step")


def intf_counters(name: str) -> tuple[int, int, int, int]:
    base = Path(f"/sys/class/net/{name}/statistics")
    try:
        return tuple(int((base / f).read_text()) for f in ("tx_bytes", "rx_bytes", "tx_packets", "rx_packets"))
    except (OSError, ValueError):
        return (0, 0, 0, 0)


# ------------------------------------------------------------------------------------------------
# shadow status pollers (one thread per shadow, living in the shadow host's namespace)
# ------------------------------------------------------------------------------------------------

class ShadowPoller(threading.Thread):
    def __init__(self, name: str, host_pid: int, ip: str, mgmt_port: int, shard: int, t0: float,
                 interval: float = 0.2):
        super().__init__(name=f"poll-{name}", daemon=True)
        self.host_pid, self.ip, self.port, self.shard, self.t0 = host_pid, ip, mgmt_port, shard, t0
        self.interval = interval
        self.samples: list[dict] = []
        self.latest: dict | None = None
        self.error = ""
        self._halt = threading.Event()
        self._phase = ""

    def set_phase(self, phase: str) -> None:
        self._phase = phase

    def stop(self) -> None:
        self._halt.set()

    def run(self) -> None:
        from .netns import in_netns
        try:
            from shadow.client import ShadowClient
        except Exception as e:  # noqa: BLE001
            self.error = f"shadow.client unavailable: {e}"
            return
        try:
            with in_netns(self.host_pid):
                client = ShadowClient(self.ip, self.port, timeout=2.0)
                while not self._halt.wait(self.interval):
                    try:
                        st = client.status()
                    except Exception as e:  # noqa: BLE001 -- a restarting shadow is normal
                        self.error = f"{type(e).__name__}: {e}"
                        client.close()
                        continue
                    rec = {"t": round(time.monotonic() - self.t0, 3), "phase": self._phase, "shard": self.shard,
                           **{k: getattr(st, k) for k in ("latest_iteration", "previous_iteration",
                                                           "persisted_iteration", "pending",
                                                           "bytes_received", "packets", "duplicates", "losses",
                                                           "rejected", "needs_resync", "lag",
                                                           "held_iterations")
                              if hasattr(st, k)}}
                    self.latest = rec
                    self.samples.append(rec)
                client.close()
        except Exception as e:  # noqa: BLE001
            self.error = f"{type(e).__name__}: {e}"


class IterationKiller(threading.Thread):
    """Base of the failure injectors: watches a trainer's metrics file every few milliseconds (so a kill
    lands within about one iteration even for fast iterations) and, once it says iteration ``fail_at``
    is finished, calls :meth:`kill` with the iterations at or past ``fail_at`` that the new records
    name (file order).  ``kill`` returns whether it killed; if not, the watch goes on.  After a kill,
    ``fired`` is set, ``t_kill`` is its monotonic time and ``iteration`` the iteration it counted."""

    def __init__(self, name: str, metrics: Path, fail_at: int):
        super().__init__(name=name, daemon=True)
        self.metrics, self.fail_at = metrics, fail_at
        self.fired = threading.Event()
        self.iteration = None
        self.t_kill = None
        self._halt = threading.Event()

    def stop(self) -> None:
        self._halt.set()

    def kill(self, reached: list[int]) -> bool:
        raise NotImplementedError

    def killed(self, iteration: int) -> None:
        self.t_kill, self.iteration = time.monotonic(), iteration
        self.fired.set()

    def run(self) -> None:
        pos = 0
        while not self._halt.is_set():
            recs, pos = read_jsonl(self.metrics, pos)
            reached = [it for it in map(iteration_of, recs) if it is not None and it >= self.fail_at]
            if reached and self.kill(reached):
                return
            time.sleep(0.003)


class FailureInjector(IterationKiller):
    """Kills the victim trainer (SIGKILL to its process group, like a node crash) as soon as its own
    metrics say it has finished iteration ``fail_at``; the main loop then detects the failure like an
    operator would (process exit, controller watchdog).  The iteration it reports is the newest one the
    victim had logged when the kill was sent: on a loaded machine one poll can find ``fail_at`` and the
    next iteration together, and the victim had finished both."""

    def __init__(self, metrics: Path, fail_at: int, pid: int):
        super().__init__("failure-injector", metrics, fail_at)
        self.pid = pid

    def kill(self, reached: list[int]) -> bool:
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.killed(max(reached))
        return True


# ------------------------------------------------------------------------------------------------


def _tail(path, n: int = 3000) -> str:
    from .net import tail
    return tail(path, n)


# ------------------------------------------------------------------------------------------------
# entry point
# ------------------------------------------------------------------------------------------------

