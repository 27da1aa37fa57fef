"""``make test``: the suite as two pytest processes side by side, ``root`` tests and the rest.

The suite is about half compile/CPU work (the differential block, the compiler and pipeline
suites) and half tests that mostly wait on processes they started (Mininet testbeds, BMv2,
network namespaces); one after the other they left a core idle much of the time.  The split
follows the ``root`` marker (registered in pyproject.toml): a test that makes network namespaces,
veths, Mininet hosts or AF_PACKET sockets carries it, and those run one at a time in their own
process, exactly as before -- two rigs never meet.  Everything else runs, in order, in the other,
except the tests marked ``beside_root`` (tests/conftest.py: whole directories that start no rig),
which join the root process: the root tests alone ended long before the rest, leaving a core idle.

Both shards get the same pytest arguments (``make test PYTEST_ARGS=...``); their output is
interleaved line by line behind a ``root |`` / ``rest |`` prefix, and each prints its own summary.
The exit status is the worse of the two, where "no tests selected" (pytest's 5) counts as a pass
for a shard when the other shard ran tests.  ``--serial`` runs one pytest over everything instead.

The two shards finish minutes apart, so one shard's verdict can sit far above the end of the log;
CI shows only the log's tail.  After both have exited, each shard's final summary line and its
FAILED/ERROR lines are printed again, last, so the tail always names what failed.
"""
from __future__ import annotations

import subprocess
import sys
import threading

SHARDS = (("root", "root or beside_root"), ("rest", "not root and not beside_root"))
NO_TESTS = 5


VERDICT_PREFIXES = ("FAILED ", "ERROR ")


def is_summary(line: str) -> bool:
    """pytest's closing line, e.g. ``==== 3 failed, 40 passed in 9.1s ====``."""
    s = line.strip()
    return s.startswith("=") and s.endswith("=") and " in " in s and any(
        w in s for w in ("passed", "failed", "error", "skipped", "deselected", "no tests ran"))


def _pump(name: str, stream, lock: threading.Lock, verdicts: list[str]) -> None:
    for line in iter(stream.readline, ""):
        if line.startswith(VERDICT_PREFIXES) or is_summary(line):
            verdicts.append(line.rstrip("\n"))
        with lock:
            sys.stdout.write(f"{name} | {line}")
            sys.stdout.flush()


def combine(codes: dict[str, int]) -> int:
    """One exit status for the shards' statuses (see the module docstring)."""
    ran = [c for c in codes.values() if c != NO_TESTS]
    if not ran:
        return NO_TESTS
    return max(ran)


def main(argv: list[str]) -> int:
    pytest = [sys.executable, "-m", "pytest"]
    if argv[:1] == ["--serial"]:
        return subprocess.call(pytest + argv[1:])
    lock = threading.Lock()
    procs, pumps, verdicts = {}, [], {name: [] for name, _ in SHARDS}
    for name, expr in SHARDS:
        # -m combines with a -m the caller gave: the caller's selection and the shard's, both
        args = pytest + ["-m", expr] + argv
        if "-m" in argv:
            i = argv.index("-m")
            args = pytest + argv[:i] + ["-m", f"({argv[i + 1]}) and ({expr})"] + argv[i + 2:]
        if name == "root":
            args.append("-v")  # a line per test: ~50 long tests would otherwise fill one progress line
        p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
        t = threading.Thread(target=_pump, args=(name, p.stdout, lock, verdicts[name]), daemon=True)
        t.start()
        procs[name] = p
        pumps.append(t)
    try:
        codes = {name: p.wait() for name, p in procs.items()}
    except KeyboardInterrupt:
        for p in procs.values():
            p.terminate()
        codes = {name: p.wait() for name, p in procs.items()}
    for t in pumps:
        t.join()
    rc = combine(codes)
    for name, lines in verdicts.items():
        for line in lines:
            print(f"run_suite: {name} | {line}", flush=True)
    print(f"run_suite: {', '.join(f'{n} exited {c}' for n, c in codes.items())} -> {rc}", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
