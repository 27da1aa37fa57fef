"""Process bookkeeping for the testbed: start, wait, stop -- always bounded -- and a state file.

Every process the testbed starts (switches, shadows, trainers, the Mininet host shells) is recorded
in ``logs/<run>/state.json`` together with its start time from ``/proc/<pid>/stat``; the root-namespace
interfaces the run creates are recorded too.  ``checkmate testbed --stop`` (``make stop``) reads these
files and removes exactly what they list: a pid is signalled only when its start time still matches,
so a recycled pid of somebody else's process is never touched, and nothing is ever killed by name.

Processes are started in their own session (``setsid``; Mininet's ``mnexec -d`` does the same for
processes inside a host namespace), so a stop signals the whole process group: a trainer's gloo
threads or a switch's worker processes go with it.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path


def proc_starttime(pid: int) -> int | None:
    """Field 22 of ``/proc/<pid>/stat`` (clock ticks since boot), or None if the pid is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # comm may contain spaces and parentheses: split after the last ')'
    rest = raw[raw.rindex(")") + 2:].split()
    try:
        if rest[0] == "Z":
            return None  # a zombie is as good as gone
        return int(rest[19])
    except (IndexError, ValueError):
        return None


#: how :func:`proc_cpu` measured: the kernel's nanosecond run-time sum (all threads, including those
#: that already exited), or -- where that clock cannot be read -- ``/proc/<pid>/stat``'s 10 ms ticks
CPU_CLOCK, CPU_TICKS = "clock", "ticks"


def _cpu_clock_id(pid: int) -> int:
    """The CPU-time clock of process ``pid`` (Linux's ``MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)``,
    what ``clock_getcpuclockid(3)`` returns): the scheduler's run time of the whole thread group."""
    return (~pid << 3) | 2


def proc_cpu(pid: int, *, precise: bool = True) -> tuple[float, str] | None:
    """CPU seconds of a live process, all its threads, and how they were measured (``CPU_CLOCK`` or
    ``CPU_TICKS``); None when the pid is gone.

    ``CPU_CLOCK``: ``clock_gettime`` on the process's CPU-time clock -- the scheduler's nanosecond sum,
    threads that exited included (a sum over ``/proc/<pid>/task/*/schedstat`` would lose those), one
    system call.  ``/proc/<pid>/stat``'s utime + stime count 10 ms clock ticks: over a segment of 60
    iterations that is +-10 ms per process, +-0.17 ms per iteration, more than the effects a benchmark
    judges.  They are the fallback (``precise=False``, or a kernel that refuses the clock)."""
    if precise:
        try:
            return time.clock_gettime_ns(_cpu_clock_id(pid)) / 1e9, CPU_CLOCK
        except (OSError, OverflowError, AttributeError):
            pass  # not Linux, or the pid is gone: /proc says which
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
        rest = raw[raw.rindex(")") + 2:].split()
        return (int(rest[11]) + int(rest[12])) / os.sysconf("SC_CLK_TCK"), CPU_TICKS
    except (OSError, IndexError, ValueError):
        return None


def thread_cpu_s(pid: int, name_suffix: str) -> float | None:
    """CPU seconds of the live threads of ``pid`` whose name (``/proc/PID/task/TID/comm``) ends with
    ``name_suffix``, from each thread's nanosecond run time (``schedstat``); None when the pid is
    gone.  Meant for long-lived named threads (a shadow's ``shadowN-persist``): a thread that has
    exited is no longer counted, so a difference over an interval is only right for threads that
    live through it."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    total = 0
    for tid in tids:
        try:
            if not Path(f"/proc/{pid}/task/{tid}/comm").read_text().rstrip("\n").endswith(name_suffix):
                continue
            total += int(Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()[0])
        except (OSError, IndexError, ValueError):
            continue  # the thread ended meanwhile
    return total / 1e9


def proc_cpu_s(pid: int) -> float | None:
    """CPU seconds of a live process, all its threads (:func:`proc_cpu`: nanosecond clock, else ticks)."""
    got = proc_cpu(pid)
    return None if got is None else got[0]


def alive(pid: int, starttime: int | None = None) -> bool:
    st = proc_starttime(pid)
    return st is not None and (starttime is None or st == starttime)


def _tcp_listeners(proc) -> list:
    import psutil
    return [c for c in proc.net_connections(kind="tcp") if c.status == psutil.CONN_LISTEN and c.laddr]


def listens(pid: int, port: int) -> bool:
    """Whether process ``pid`` itself (or a process it started) listens on TCP ``port``.

    A bare TCP connect to the port is not proof that a just-started server is up: when some
    other process took the port between choosing it and the server's ``bind`` (ports of the
    ephemeral range are handed out by the kernel to anyone), the connect reaches that stranger
    while the server dies with "address in use"."""
    import psutil
    try:
        root = psutil.Process(pid)
        family = [root, *root.children(recursive=True)]
    except psutil.Error:
        return False
    for p in family:
        try:
            if any(c.laddr.port == port for c in _tcp_listeners(p)):
                return True
        except psutil.Error:
            continue
    return False


def port_holder(port: int) -> str | None:
    """``"pid N (name)"`` of a process listening on TCP ``port``, for error messages; None if none."""
    import psutil
    try:
        conns = psutil.net_connections(kind="tcp")
    except psutil.Error:
        return None
    for c in conns:
        if c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port and c.pid:
            try:
                return f"pid {c.pid} ({psutil.Process(c.pid).name()})"
            except psutil.Error:
                return f"pid {c.pid}"
    return None


@dataclass
class Proc:
    """One started process: its name in the run, argv, log file, and the Popen (owner side only)."""
    name: str
    argv: list
    log: str
    pid: int
    starttime: int | None
    node: str = ""
    kind: str = ""
    popen: subprocess.Popen | None = field(default=None, repr=False, compare=False)

    def record(self) -> dict:
        return {"name": self.name, "argv": list(self.argv), "log": self.log, "pid": self.pid,
                "starttime": self.starttime, "node": self.node, "kind": self.kind}

    def poll(self) -> int | None:
        if self.popen is not None:
            return self.popen.poll()
        return None if alive(self.pid, self.starttime) else -1

    @property
    def running(self) -> bool:
        return self.poll() is None


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def stop_pid(pid: int, starttime: int | None, timeout: float = 5.0, sig: int = signal.SIGTERM,
             popen: subprocess.Popen | None = None) -> bool:
    """Signal a process group, then SIGKILL it after ``timeout`` seconds; True if it is gone."""
    if not alive(pid, starttime):
        if popen is not None:
            popen.poll()
            try:
                os.killpg(pid, signal.SIGKILL)  # leftover group members of our own child
            except (ProcessLookupError, PermissionError):
                pass
        return True
    if sig is not None:
        _signal_group(pid, sig)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if popen is not None and popen.poll() is not None:
            break
        if not alive(pid, starttime):
            break
        time.sleep(0.05)
    if alive(pid, starttime):
        _signal_group(pid, signal.SIGKILL)
        end = time.monotonic() + 5.0
        while alive(pid, starttime) and time.monotonic() < end:
            if popen is not None:
                popen.poll()
            time.sleep(0.05)
    if popen is not None:
        try:
            popen.wait(timeout=1)
        except subprocess.TimeoutExpired:
            pass
    if popen is not None:
        # the session leader is gone; the rest of its group (if any) goes too.  Safe for our own
        # child only: its pid cannot be recycled while group members still reference it.
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    return not alive(pid, starttime)


class ProcessTable:
    """The processes and interfaces of one run, mirrored to ``state.json`` on every change."""

    def __init__(self, state_path, run: str = ""):
        self.state_path = Path(state_path)
        self.state_path.parent.mkdir(parents=True, exist_ok=True)
        self.run = run
        self.procs: dict[str, Proc] = {}
        self.intfs: list[str] = []
        self.extra: dict = {}
        self._lock = threading.RLock()
        self._save()

    # -- state file ------------------------------------------------------------------------------
    def _save(self) -> None:
        with self._lock:
            state = {"run": self.run, "owner": os.getpid(), "owner_starttime": proc_starttime(os.getpid()),
                     "procs": [p.record() for p in self.procs.values()], "intfs": list(self.intfs),
                     **self.extra}
            tmp = self.state_path.with_suffix(".tmp")
            tmp.write_text(json.dumps(state, indent=1))
            os.replace(tmp, self.state_path)

    def note(self, **kw) -> None:
        with self._lock:
            self.extra.update(kw)
            self._save()

    def add_intfs(self, names) -> None:
        with self._lock:
            for n in names:
                if n not in self.intfs:
                    self.intfs.append(n)
            self._save()

    def adopt(self, name: str, pid: int, argv=(), node: str = "", kind: str = "") -> Proc:
        """Record a process somebody else started (e.g. a Mininet host shell)."""
        with self._lock:
            p = Proc(name, list(argv), "", pid, proc_starttime(pid), node, kind)
            self.procs[name] = p
            self._save()
            return p

    # -- start / stop ----------------------------------------------------------------------------
    def spawn(self, name: str, argv: list, log, node=None, env: dict | None = None, kind: str = "",
              cwd=None) -> Proc:
        """Start ``argv`` (inside Mininet ``node``'s namespaces when given) with output to ``log``."""
        log = Path(log)
        log.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            if name in self.procs and self.procs[name].running:
                raise RuntimeError(f"process {name!r} is already running (pid {self.procs[name].pid})")
            fh = open(log, "ab", buffering=0)
            fh.write(f"### {time.strftime('%H:%M:%S')} start {' '.join(map(str, argv))}\n".encode())
            full_env = dict(os.environ)
            if env:
                full_env.update({k: str(v) for k, v in env.items()})
            argv = [str(a) for a in argv]
            try:
                if node is not None:
                    # mnexec -d: setsid (own process group); -a PID: the node's net and mount namespaces
                    popen = node.popen(argv, stdin=subprocess.DEVNULL, stdout=fh, stderr=subprocess.STDOUT,
                                       env=full_env, cwd=cwd)
                else:
                    popen = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=fh, stderr=subprocess.STDOUT,
                                             env=full_env, cwd=cwd, start_new_session=True)
            finally:
                fh.close()
            p = Proc(name, argv, str(log), popen.pid, proc_starttime(popen.pid),
                     getattr(node, "name", "") if node is not None else "", kind, popen)
            self.procs[name] = p
            self._save()
            return p

    def stop(self, name: str, timeout: float = 5.0, sig: int = signal.SIGTERM) -> bool:
        with self._lock:
            p = self.procs.get(name)
        if p is None:
            return True
        ok = stop_pid(p.pid, p.starttime, timeout, sig, p.popen)
        with self._lock:
            if ok and self.procs.get(name) is p:
                del self.procs[name]
            self._save()
        return ok

    def kill(self, name: str) -> bool:
        """SIGKILL right away (the failure injection)."""
        return self.stop(name, timeout=0.0, sig=signal.SIGKILL)

    def stop_kind(self, kind: str, timeout: float = 5.0) -> None:
        names = [n for n, p in list(self.procs.items()) if p.kind == kind]
        threads = [threading.Thread(target=self.stop, args=(n, timeout)) for n in names]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout + 10)

    def stop_all(self, timeout: float = 5.0, keep_kinds=()) -> None:
        for kind in sorted({p.kind for p in self.procs.values()} - set(keep_kinds)):
            self.stop_kind(kind, timeout)

    def forget(self, name: str) -> None:
        with self._lock:
            self.procs.pop(name, None)
            self._save()

    def wait(self, name: str, timeout: float) -> int | None:
        """Exit status of ``name`` within ``timeout`` seconds, or None if it is still running."""
        p = self.procs[name]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            rc = p.poll()
            if rc is not None:
                return rc
            time.sleep(0.05)
        return p.poll()

    def remove_state(self) -> None:
        try:
            self.state_path.unlink()
        except FileNotFoundError:
            pass


def intf_exists(name: str) -> bool:
    return Path(f"/sys/class/net/{name}").exists()


def delete_intf(name: str) -> None:
    if intf_exists(name):
        subprocess.run(["ip", "link", "del", "dev", name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=10, check=False)


def cleanup_state(state_path, owner_grace: float = 20.0, log=print) -> dict:
    """Remove what one state file recorded; returns counts.  Used by ``--stop``.

    A live owner (a runner still in progress) is asked to tear down itself first (SIGTERM) and given
    ``owner_grace`` seconds; whatever is still recorded afterwards is stopped here.
    """
    state_path = Path(state_path)
    try:
        state = json.loads(state_path.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return {"procs": 0, "intfs": 0}
    owner, owner_st = state.get("owner"), state.get("owner_starttime")
    if owner and owner != os.getpid() and alive(owner, owner_st):
        log(f"run {state.get('run')}: asking runner pid {owner} to tear down")
        os.kill(owner, signal.SIGTERM)
        deadline = time.monotonic() + owner_grace
        while alive(owner, owner_st) and time.monotonic() < deadline:
            time.sleep(0.2)
        if alive(owner, owner_st):
            log(f"run {state.get('run')}: runner pid {owner} did not exit; killing it")
            stop_pid(owner, owner_st, timeout=0, sig=signal.SIGKILL)
        try:
            state = json.loads(state_path.read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return {"procs": 0, "intfs": 0}
    n_procs = 0
    # processes first (trainers, shadows, switches), then the host shells that hold the namespaces
    order = sorted(state.get("procs", []), key=lambda p: p.get("kind") == "host")
    for p in order:
        if alive(p["pid"], p.get("starttime")):
            log(f"stopping {p['name']} (pid {p['pid']})")
            stop_pid(p["pid"], p.get("starttime"), timeout=3.0)
            n_procs += 1
    n_intfs = 0
    for name in state.get("intfs", []):
        if intf_exists(name):
            log(f"deleting interface {name}")
            delete_intf(name)
            n_intfs += 1
    try:
        state_path.unlink()
    except FileNotFoundError:
        pass
    return {"procs": n_procs, "intfs": n_intfs}
