"""The component micro-benchmarks in one place, each with its ratio, gathered into one JSON::

    python -m benchmarks.micro [--quick] [--only pipeline,switch,shadow,allreduce,allreduce-jumbo] [--json FILE]

Runs, one after the other (each a subprocess with a time limit, so one hanging benchmark cannot
stall the rest), the benchmarks written with their components:

============  ==========================================  =====================================
name          what                                        ratio gathered
============  ==========================================  =====================================
pipeline      ``benchmarks/bench_pipeline.py``: embedded   checkmate.p4 FINAL chunk (+ replica)
              v1model pipeline in-process vs a bytes copy  packets/s / copy-loop packets/s; a
                                                          replica's cost / a forwarded chunk's
switch        ``benchmarks/bench_switch.py`` (root):       checkmate-switch packets/s / bare
              checkmate-switch vs a bare AF_PACKET fwd     AF_PACKET forwarder (per MTU)
replica       ``benchmarks/bench_replica.py`` (root): the  the switch process's CPU per replica /
              real checkmate-switch on veths, copied vs    per forward; CPU of one iteration's
              uncopied chunks, heartbeat digests           heartbeat digests / per forward
shadow        ``benchmarks/bench_shadow.py``: shadow       socket ingest shadow/bare; optimizer
              ingest and optimizer replay                  replay torch/replica time
allreduce     ``benchmarks/bench_allreduce.py``: the       ring time / gloo time (per size,
              hook's UDP ring vs gloo, loopback, MTU 1500  up to 4 MB); the ranks' CPU ratio;
                                                           datagrams dropped + resent meanwhile
allreduce-    the same at MTU 9000                         the same (per size)
jumbo
============  ==========================================  =====================================

Each benchmark's own output is kept verbatim (``stdout``) next to the parsed ratios; the ratios are
printed as one table at the end.  ``checkmate bench`` calls :func:`run_all` for its full run.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# name -> (module, args full, args quick, timeout s, needs root)
BENCHES = {
    "pipeline": ("benchmarks.bench_pipeline", ["--packets", "20000", "--repeat", "3"],
                 ["--packets", "3000", "--repeat", "2"], 120, False),
    "switch": ("benchmarks.bench_switch", ["--mtu", "1500", "--mtu", "9000", "--seconds", "2", "--repeat", "3"],
               ["--mtu", "1500", "--seconds", "1", "--repeat", "1"], 150, True),
    "replica": ("benchmarks.bench_replica", ["--rounds", "3", "--frames", "20000"],
                ["--rounds", "1", "--frames", "4000"], 240, True),
    "shadow": ("benchmarks.bench_shadow", ["--params", "500000", "--opt-params", "2000000", "--reps", "3"],
               ["--params", "100000", "--opt-params", "300000", "--reps", "1"], 150, False),
    "allreduce": ("benchmarks.bench_allreduce",
                  ["--world-size", "3", "--sizes", "1024,16384,1048576", "--reps", "5", "--mtu", "1500"],
                  ["--world-size", "3", "--sizes", "1024,65536", "--reps", "3"], 240, False),
    "allreduce-jumbo": ("benchmarks.bench_allreduce",
                        ["--world-size", "3", "--sizes", "16384,1048576", "--reps", "5", "--mtu", "9000"],
                        ["--world-size", "3", "--sizes", "65536", "--reps", "3", "--mtu", "9000"], 180, False),
}
HAS_JSON = {"switch", "replica", "shadow", "allreduce", "allreduce-jumbo"}


def parse_ratios(name: str, text: str, data=None) -> dict:
    """The ratios a benchmark printed (and, where it wrote JSON, read from there): ``{label: float}``."""
    out: dict[str, float] = {}
    if name == "pipeline":
        for line in text.splitlines():
            m = re.match(r"^(.+?)\s+[\d,]+\s+[\d,]+\s+([\d.]+)\s*$", line)
            if m and not m.group(1).startswith("copy"):
                out[f"pipeline {m.group(1).strip()} / copy"] = float(m.group(2))
        m = re.search(r"^replica .*?= ([\d.]+)x a forwarded chunk", text, re.M)
        if m:
            out["pipeline replica / forwarded chunk"] = float(m.group(1))
    elif name == "switch":
        if isinstance(data, list):
            for row in data:
                out[f"switch/bare MTU {row['mtu']}"] = float(row["ratio"])
        else:
            for m in re.finditer(r"MTU\s+(\d+).*?ratio ([\d.]+)", text):
                out[f"switch/bare MTU {m.group(1)}"] = float(m.group(2))
    elif name == "replica":
        if isinstance(data, dict) and data.get("summary"):
            med = next(iter(data["summary"].values()))
            out["switch replica / forward (real daemon)"] = float(med["ratio"])
            if "digests_per_iter_us" in med:
                out["switch heartbeat digests of an iteration / forward"] = med["digests_per_iter_us"] / med["fwd_us"]
        else:
            m = re.search(r"replica/forward ([\d.]+)", text)
            if m:
                out["switch replica / forward (real daemon)"] = float(m.group(1))
    elif name == "shadow":
        m = re.search(r"ratio shadow/bare = ([\d.]+)", text)
        if m:
            out["shadow ingest/bare socket"] = float(m.group(1))
        m = re.search(r"Reassembler\.ingest.*?ratio ([\d.]+)", text)
        if m:
            out["shadow reassembly/memcpy"] = float(m.group(1))
        for m in re.finditer(r"foreach=(\w+)\s.*?replica step .*?\(ratio ([\d.]+)\)", text):
            out[f"shadow AdamW replay foreach={m.group(1)} torch/replica"] = float(m.group(2))
    elif name.startswith("allreduce"):
        if isinstance(data, dict) and data.get("results"):
            mtu = (data.get("args") or {}).get("mtu", 1500)
            for r in data["results"]:
                out[f"ring/gloo MTU {mtu} {r['elements']} el"] = r["ring_s"] / r["gloo_s"]
                if r.get("gloo_proc_cpu_sum_s"):  # the ranks' CPU ratio: what a loaded machine's wall tends to
                    out[f"ring/gloo CPU MTU {mtu} {r['elements']} el"] = (r["ring_proc_cpu_sum_s"]
                                                                          / r["gloo_proc_cpu_sum_s"])
                if "socket_drops" in r:  # was this figure's run lossy? drops + resends in its timed part
                    out[f"ring drops+resends MTU {mtu} {r['elements']} el"] = r["socket_drops"] + r["retransmits"]
        else:
            for m in re.finditer(r"^\s*(\d+)\s+[\d.]+\s+\d+\s+[\d.]+\s+[\d.]+\s+([\d.]+)x", text, re.M):
                out[f"ring/gloo {m.group(1)} el"] = float(m.group(2))
    return out


def run_one(name: str, quick: bool = False, timeout: float | None = None) -> dict:
    module, full, short, limit, root = BENCHES[name]
    if root and os.geteuid() != 0:
        return {"name": name, "skipped": "needs root"}
    args = list(short if quick else full)
    tmp = None
    if name in HAS_JSON:
        fd, tmp = tempfile.mkstemp(prefix=f"micro-{name}-", suffix=".json")
        os.close(fd)
        args += ["--json", tmp]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMP_NUM_THREADS="1")
    t0 = time.monotonic()
    rec = {"name": name, "command": [sys.executable, "-m", module, *args]}
    try:
        p = subprocess.run(rec["command"], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=timeout or limit, start_new_session=True)
        rec.update(returncode=p.returncode, stdout=p.stdout, stderr=p.stderr[-3000:])
    except subprocess.TimeoutExpired as e:
        rec.update(returncode=None, error=f"timed out after {e.timeout:.0f} s",
                   stdout=(e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""))
    rec["seconds"] = round(time.monotonic() - t0, 1)
    data = None
    if tmp:
        try:
            data = json.loads(Path(tmp).read_text() or "null")
        except (OSError, json.JSONDecodeError):
            data = None
        finally:
            Path(tmp).unlink(missing_ok=True)
    rec["data"] = data
    rec["ratios"] = parse_ratios(name, rec.get("stdout", ""), data)
    if rec.get("returncode") not in (0, None) and "error" not in rec:
        rec["error"] = f"exit status {rec['returncode']}"
    return rec


def run_all(json_path=None, quick: bool = False, only=None, log=print) -> dict:
    """Run the micro-benchmarks; returns ``{"benchmarks": {name: record}, "ratios": {label: value}}``."""
    names = [n for n in BENCHES if not only or n in only]
    out = {"benchmarks": {}, "ratios": {}, "quick": quick}
    for n in names:
        log(f"micro: {n} ...")
        rec = run_one(n, quick)
        out["benchmarks"][n] = rec
        out["ratios"].update(rec["ratios"])
        log(f"micro: {n} done in {rec.get('seconds', 0)} s"
            + (f" ({rec.get('error') or rec.get('skipped')})" if rec.get("error") or rec.get("skipped") else ""))
    if json_path:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(json_path).write_text(json.dumps(out, indent=1, default=str))
    return out


def fmt(out: dict) -> str:
    lines = [f"{'micro-benchmark ratio':60s} {'value':>8s}"]
    for k, v in out["ratios"].items():
        lines.append(f"{k:60s} {v:8.3f}")
    for n, rec in out["benchmarks"].items():
        if rec.get("error") or rec.get("skipped"):
            lines.append(f"{n}: {rec.get('error') or rec.get('skipped')}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (about a minute)")
    ap.add_argument("--only", default="", help="comma list of " + ",".join(BENCHES))
    ap.add_argument("--json", default=None, help="write everything here")
    ap.add_argument("--verbose", action="store_true", help="also print each benchmark's own output")
    a = ap.parse_args(argv)
    only = [x for x in a.only.split(",") if x] or None
    out = run_all(a.json, a.quick, only, log=lambda m: print(m, file=sys.stderr, flush=True))
    if a.verbose:
        for n, rec in out["benchmarks"].items():
            print(f"== {n}\n{rec.get('stdout', '')}")
    print(fmt(out), end="")
    return 0 if not any(r.get("error") for r in out["benchmarks"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
