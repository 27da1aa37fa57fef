"""docs/DEPLOY.md, executed: real-host deployment on plain network namespaces, torchrun restarts a killed worker.

Every machine of the page is a network namespace (``sw``, ``h1``, ``h2``, ``sh1``, ``sh2``; no Mininet),
every cable a veth pair: the switch's ends are renamed ``eth<port>`` inside ``sw``, the hosts' ends
``eth0`` (MAC and address from ``topologies/realhosts.json``), and a management veth joins this
process's namespace (the operator, 10.78.0.254) to the switch box (10.78.0.1).  The commands are not
written here: they are the page's code blocks marked ``deploy:<role>``, run with ``bash -c`` in the
role's namespace(s) with the page's variables set (``CHECKMATE``, ``WORK``, ``MY_IP``, ``SHARD``,
``RDZV_IS_HOST``).  Once the job has logged a few iterations the worker on h2 is SIGKILLed; only
torchrun reacts.  Verdict: both torchruns exit 0, one first start and one restart, every rank resumed
at the same iteration and at most one behind the job's progress, and rank 0's final model and
optimizer equal an uninterrupted run bit for bit.  Everything created is removed, also on failure.
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "DEPLOY.md"
TOPO = ROOT / "topologies" / "realhosts.json"
MGMT_OPERATOR, MGMT_SWITCH = "10.78.0.254/24", "10.78.0.1/24"
KILL_AFTER = 5

pytestmark = [pytest.mark.root, pytest.mark.timeout(900),
              pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces, AF_PACKET)")]

TAG = f"cd{os.getpid() % 10000}"
BLOCK = re.compile(r"^```sh deploy:(\w+)\n(.*?)^```", re.M | re.S)


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def doc_blocks() -> dict[str, str]:
    """``{role: script}`` from the page; a role used twice is a mistake in the page."""
    out: dict[str, str] = {}
    for role, body in BLOCK.findall(DOC.read_text()):
        assert role not in out, f"{DOC}: two deploy:{role} blocks"
        out[role] = body
    return out


def test_page_has_every_role():
    blocks = doc_blocks()
    assert set(blocks) == {"switch", "operator", "shadow", "trainer", "after"}, sorted(blocks)
    assert "--resume-auto" in blocks["trainer"] and "--max-restarts" in blocks["trainer"]
    assert "--rdzv-backend c10d" in blocks["trainer"] and "--shadows" in blocks["trainer"]
    topo = json.loads(TOPO.read_text())
    grpc = topo["switches"]["s1"]
    assert f"--grpc-server-addr {grpc['grpc_host']}:{grpc['grpc_port']}" in blocks["switch"]
    for _, port in (link for link in topo["links"]):
        n = int(port.split("-p")[1])
        assert f"-i {n}@eth{n}" in blocks["switch"], f"switch block lacks port {n}"


def sh(*args, check=True):
    return subprocess.run(args, check=check, capture_output=True, text=True, timeout=30)


class Cluster:
    """The namespaces and veths of the page's machines; :meth:`close` removes them."""

    def __init__(self):
        self.topo = json.loads(TOPO.read_text())
        self.namespaces: list[str] = []
        self.links: list[str] = []

    def ns(self, machine: str) -> str:
        return f"{TAG}{machine}"

    def add_ns(self, machine: str) -> list[str]:
        name = self.ns(machine)
        sh("ip", "netns", "add", name)
        self.namespaces.append(name)
        n = ["ip", "netns", "exec", name]
        sh(*n, "ip", "link", "set", "lo", "up")
        sh(*n, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", check=False)
        return n

    def veth_into(self, machine: str, root_name: str, inner: str, *, mac=None, cidr=None) -> None:
        n = ["ip", "netns", "exec", self.ns(machine)]
        sh("ip", "link", "set", root_name, "netns", self.ns(machine))
        sh(*n, "ip", "link", "set", root_name, "name", inner)
        if mac:
            sh(*n, "ip", "link", "set", inner, "address", mac)
        if cidr:
            sh(*n, "ip", "addr", "add", cidr, "dev", inner)
        if shutil.which("ethtool"):
            sh(*n, "ethtool", "-K", inner, "tx", "off", "rx", "off", "tso", "off", "gso", "off", "gro", "off",
               check=False)
        sh(*n, "ip", "link", "set", inner, "up")

    def build(self) -> None:
        self.add_ns("sw")
        for host in self.topo["hosts"]:
            self.add_ns(host)
        for host, port in self.topo["links"]:
            h = self.topo["hosts"][host]
            num = int(port.split("-p")[1])
            a, b = f"{TAG}s{num}", f"{TAG}h{num}"
            sh("ip", "link", "add", a, "type", "veth", "peer", "name", b)
            self.links.append(a)
            self.veth_into("sw", a, f"eth{num}")
            self.veth_into(host, b, "eth0", mac=h["mac"], cidr=h["ip"])
        a, b = f"{TAG}m0", f"{TAG}m1"
        sh("ip", "link", "add", a, "type", "veth", "peer", "name", b)
        self.links.append(a)
        sh("ip", "addr", "add", MGMT_OPERATOR, "dev", a)
        sh("ip", "link", "set", a, "up")
        self.veth_into("sw", b, "mgmt0", cidr=MGMT_SWITCH)

    def close(self) -> None:
        for name in self.namespaces:
            sh("ip", "netns", "del", name, check=False)
        for link in self.links:
            if sh("ip", "link", "show", link, check=False).returncode == 0:
                sh("ip", "link", "del", link, check=False)


class Procs:
    """Background commands, each in its own session (killed as a group at the end)."""

    def __init__(self, env: dict, logs: Path):
        self.env, self.logs = env, logs
        self.procs: dict[str, subprocess.Popen] = {}

    def start(self, name: str, ns: str | None, script: str, extra_env: dict | None = None,
              stdout_pipe: bool = False) -> subprocess.Popen:
        argv = (["ip", "netns", "exec", ns] if ns else []) + ["bash", "-c", script]
        log = open(self.logs / f"{name}.log", "w")
        p = subprocess.Popen(argv, env={**self.env, **(extra_env or {})}, cwd=self.logs,
                             stdout=subprocess.PIPE if stdout_pipe else log, stderr=log, text=True,
                             start_new_session=True)
        log.close()
        self.procs[name] = p
        return p

    def log(self, name: str) -> str:
        path = self.logs / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def close(self) -> None:
        for p in self.procs.values():
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for p in self.procs.values():
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(5)


def training_worker(pid: int) -> int | None:
    """A ddp_train.py worker started by the torchrun under ``pid``."""
    from topologies.launcher import descendants
    for child in descendants(pid):
        try:
            env = Path(f"/proc/{child}/environ").read_bytes()
            cmd = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"ddp_train.py" in cmd and b"TORCHELASTIC_RESTART_COUNT=" in env:
            return child
    return None


def wait_for(what: str, cond, timeout: float, procs: Procs, watch=()) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        for name in watch:
            if procs.procs[name].poll() is not None:
                pytest.fail(f"{name} exited ({procs.procs[name].returncode}) while waiting for {what}:\n"
                            + procs.log(name)[-3000:])
        if time.monotonic() > deadline:
            pytest.fail(f"timed out ({timeout:.0f}s) waiting for {what}:\n"
                        + "".join(f"--- {n}\n{procs.log(n)[-1500:]}" for n in watch))
        time.sleep(0.05)


def test_documented_deployment_survives_a_killed_worker(tmp_path):
    from switch.ready import wait_ready
    blocks = doc_blocks()
    resume = _load("checkmate_tests_torchrun_resume", ROOT / "tests" / "hooks" / "test_torchrun_resume.py")
    example = _load("checkmate_tests_example_resume", ROOT / "tests" / "hooks" / "test_example_resume.py")
    work = tmp_path / "work"
    work.mkdir()
    logs = tmp_path / "logs"
    logs.mkdir()
    venv_bin = str(Path(sys.executable).parent)
    env = dict(os.environ, PATH=venv_bin + os.pathsep + os.environ.get("PATH", ""), PYTHONPATH=str(ROOT),
               CHECKMATE=str(ROOT), WORK=str(work), OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    cluster, procs = Cluster(), Procs(env, logs)
    topo = cluster.topo
    trainers = sorted((h for h, d in topo["hosts"].items() if d["role"] == "trainer"),
                      key=lambda h: topo["hosts"][h]["rank"])
    shadows = sorted((h for h, d in topo["hosts"].items() if d["role"] == "shadow"),
                     key=lambda h: topo["hosts"][h]["shard"])
    rdzv_host = re.search(r"--rdzv-endpoint (\S+):", blocks["trainer"]).group(1)
    iters = int(re.search(r"--iters (\d+)", blocks["trainer"]).group(1))
    ip = {h: d["ip"].split("/")[0] for h, d in topo["hosts"].items()}
    try:
        cluster.build()
        # the switch box
        sw = procs.start("switch", cluster.ns("sw"), blocks["switch"], stdout_pipe=True)
        ready = wait_ready(sw, timeout=60)
        assert ready["grpc"] == "10.78.0.1:50051", ready
        # the operator: shard plan, program the switch (over the management network)
        op = subprocess.run(["bash", "-c", "set -e\n" + blocks["operator"]], env=env, cwd=logs,
                            capture_output=True, text=True, timeout=300)
        assert op.returncode == 0, f"operator block failed:\n{op.stdout[-2000:]}\n{op.stderr[-3000:]}"
        assert json.loads((work / "plan.json").read_text())["shards"] == len(shadows)
        # the shadows
        for h in shadows:
            procs.start(h, cluster.ns(h), blocks["shadow"],
                        {"MY_IP": ip[h], "SHARD": str(topo["hosts"][h]["shard"])})
        for h in shadows:
            wait_for(f"{h} ready", lambda h=h: "shadow ready" in procs.log(h), 60, procs, watch=[h])
        # the trainers, under torchrun
        for h in trainers:
            procs.start(h, cluster.ns(h), blocks["trainer"],
                        {"MY_IP": ip[h], "RDZV_IS_HOST": "1" if ip[h] == rdzv_host else "0"})
        metrics = [work / f"metrics-rank{r}.jsonl" for r in range(len(trainers))]
        wait_for(f"iteration {KILL_AFTER}",
                 lambda: max((resume.iterations(m)[-1:] or [0])[0] for m in metrics) >= KILL_AFTER,
                 300, procs, watch=[*trainers, *shadows, "switch"])
        victim_host = trainers[-1]
        victim = training_worker(procs.procs[victim_host].pid)
        assert victim is not None, f"no ddp_train.py worker under {victim_host}'s torchrun"
        os.kill(victim, signal.SIGKILL)
        for h in trainers:
            try:
                rc = procs.procs[h].wait(timeout=420)
            except subprocess.TimeoutExpired:
                pytest.fail(f"{h}'s torchrun did not finish:\n" + "".join(
                    f"--- {n}\n{procs.log(n)[-2500:]}" for n in trainers))
            assert rc == 0, f"{h}'s torchrun exited {rc}:\n{procs.log(h)[-4000:]}"
        after = subprocess.run(["bash", "-c", "set -e\n" + blocks["after"]], env=env, cwd=logs,
                               capture_output=True, text=True, timeout=60)
        assert after.returncode == 0, f"after block failed:\n{after.stderr[-2000:]}"
        for h in shadows:
            assert procs.procs[h].poll() is None, f"shadow {h} died:\n{procs.log(h)[-2000:]}"
    finally:
        procs.close()
        cluster.close()
    log = "".join(procs.log(h) for h in trainers)
    assert "torchrun first start" in log and "torchrun restart" in log, log[-3000:]
    resumed = sorted({int(m) for m in re.findall(r"resumed at iteration (\d+)", log)})
    assert len(resumed) == 1, f"the ranks resumed at different iterations: {resumed}"
    progress = max(resume.progress_before_restart(resume.iterations(m), resumed[0]) for m in metrics)
    assert KILL_AFTER <= progress < iters, "the kill happened mid-run"
    assert 0 <= progress - resumed[0] <= 1, f"resumed at {resumed[0]} after the job had reached {progress}"
    final = torch.load(work / "final-rank0.pt", weights_only=False)
    want = example.uninterrupted(["--job-id", "1"], iters, world=len(trainers))
    for k in want["model"]:
        assert torch.equal(final["model"][k], want["model"][k]), f"{k} differs after the torchrun restart"
    for i, st in want["optimizer"]["state"].items():
        for k, v in st.items():
            assert torch.equal(final["optimizer"]["state"][i][k], v), f"optimizer {k} of param {i} differs"
