"""``checkmate testbed``: the Checkmate testbed end to end on Mininet (``make run`` / ``make stop``).

One command brings up a real network, trains a real model with real DDP, kills a trainer, and proves
that the resumed job ends **bit-identical** to a job that never failed::

    checkmate testbed [--topo star|leafspine|FILE.json] [--model mlp|cnn|gpt] [--trainers N] [--shadows K] [--iters I]
                      [--fail-at I] [--fail-rank R] [--mtu 1500|9000] [--switch embedded|bmv2|auto]
                      [--pcap] [--out results/<run>] [--cli] [--stop]

Scenario (each step bounded by a timeout; the teardown runs whatever happens, also on Ctrl-C/SIGTERM):

1. **Network.** The topology JSON (``topologies/generate.py`` or a file) becomes a Mininet network
   (``topologies/net.py``): hosts in namespaces, one switch process per switch (``checkmate-switch``
   or BMv2 ``simple_switch_grpc``), veth offloads off, static ARP.  Everything started is recorded in
   ``logs/<run>/state.json`` so ``--stop`` can remove it even after a crash.
2. **Control plane.** The runner is the P4Runtime controller: it programs every switch from the
   topology (forwarding, shard map from ``trainer_hooks.shard_plan``, multicast/replication) and runs
   the controller's heartbeat watchdog on the switches' digests.
3. **Reference.** Shadows start on the shadow hosts (``checkmate-shadow``), trainers on the trainer
   hosts (``examples/ddp_train.py``); the job runs ``--iters`` iterations without failure and saves its
   final model + optimizer state.
4. **Failure.** Fresh shadows, the same job again; at ``--fail-at`` one trainer is SIGKILLed.  The
   runner detects the failure twice -- the process exit and the controller watchdog (no heartbeat for
   that rank) -- then stops the surviving trainers (as a job scheduler would).
5. **Resume.** All trainers restart with ``--resume``: they restore model and optimizer from the
   shadows' newest consistent checkpoint and run to ``--iters``.
6. **Verdict.** Final states of reference and resumed job are compared tensor by tensor
   (``torch.equal``, ``topologies/verify.py``).  ``results/<run>/`` receives ``metrics.json``, plots
   (iteration time, loss, checkpoint age per shadow, bytes on training vs shadow ports, heartbeats)
   and ``summary.txt`` with the verdict.  Exit status 0 only for a PASS.

While training runs, a progress bar shows iteration, loss, iteration time and checkpoint age (how many
iterations the newest consistent shadow checkpoint lags the trainers, from the shadows' status API,
polled from inside the shadow hosts' namespaces -- see ``topologies/netns.py``).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import os
import secrets
import socket
import sys
import time
from pathlib import Path

from checkmate import paths

from . import generate, testbed_args
from .monitor import (TRAIN_SCRIPT, FailureInjector, ShadowPoller, TestbedError, _get, _tail,  # noqa: F401
                      free_port_block, intf_counters, iteration_of, missing_components, read_jsonl, stop_all)
from .lifecycle import Terminated, cannot_start, teardown_on_exit  # noqa: F401  (runner.Terminated)
from .procs import ProcessTable

MASTER_PORT = 29500
DEFAULT_ITERS = 50


def model_argv(args) -> list[str]:
    """``--model`` for ``examples/ddp_train.py`` (left out for the default, so any script works)."""
    m = getattr(args, "model", "mlp")
    return [] if m == "mlp" else ["--model", m]


# ------------------------------------------------------------------------------------------------
# command line
# ------------------------------------------------------------------------------------------------

def parse_args(argv):
    p = argparse.ArgumentParser(prog="checkmate testbed", description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--topo", default="star", help="star | leafspine | path to a topology JSON (default star)")
    p.add_argument("--model", default="mlp", choices=("mlp", "cnn", "gpt"),
                   help="the example's model: mlp (default), cnn (ResNet with BatchNorm), gpt (tied embeddings)")
    p.add_argument("--trainers", type=int, default=None,
                   help="trainers of star/leafspine (default 3 star, 4 leafspine); a topology file has its own")
    p.add_argument("--shadows", type=int, default=None,
                   help="shadows of star/leafspine (default 2); a topology file has its own")
    p.add_argument("--iters", type=int, default=DEFAULT_ITERS, help=f"training iterations (default {DEFAULT_ITERS})")
    p.add_argument("--fail-at", type=int, default=None,
                   help="kill a trainer once it has finished this iteration (default iters/2; 0 = no failure)")
    p.add_argument("--fail-rank", type=int, default=None, help="rank to kill (default: the last rank)")
    p.add_argument("--mtu", type=int, default=1500, choices=(1500, 9000))
    p.add_argument("--switch", default="embedded", choices=("embedded", "bmv2", "auto"))
    p.add_argument("--switch-arg", action="append", default=[], metavar="ARG",
                   help="extra argument for every switch process (repeatable, e.g. --switch-arg=--send-order=frame)")
    p.add_argument("--mode", default="switch", choices=("switch", "host"),
                   help="checkpointing mode of the trainers (default switch: copies made by the switch)")
    p.add_argument("--job-id", type=int, default=None)
    p.add_argument("--launcher", default="runner", choices=("runner", "torchrun"),
                   help="runner: the runner kills, stops and relaunches the trainers with --resume; torchrun: each "
                        "trainer host runs a torchrun agent (--max-restarts), which restarts the killed worker "
                        "and the script resumes by itself (--resume-auto; topologies/launcher.py)")
    p.add_argument("--max-restarts", type=int, default=1, help="torchrun --max-restarts with --launcher torchrun")
    p.add_argument("--pcap", action="store_true", help="capture every switch port into pcaps/<run>/")
    p.add_argument("--out", default=None, help="results folder (default results/<run>)")
    p.add_argument("--run", default=None, help="run name (default: a timestamp)")
    p.add_argument("--logs", default=str(paths.LOGS), help="logs root (default logs/)")
    p.add_argument("--no-reference", action="store_true",
                   help="skip the failure-free reference run (no bit-identical verdict)")
    p.add_argument("--train-arg", action="append", default=[], metavar="ARG",
                   help="extra argument for examples/ddp_train.py (repeatable, e.g. --train-arg=--batch=8)")
    p.add_argument("--shadow-loss", type=float, default=0.0, help="drop probability on shadow ports (switch TM)")
    p.add_argument("--shadow-delay-ms", type=float, default=0.0, help="extra delay on shadow ports (switch TM)")
    p.add_argument("--shadow-lossy", action="store_true", help="shadow ports drop instead of back-pressure")
    p.add_argument("--shadow-history", type=int, default=8, metavar="N",
                   help="published states each shadow keeps in memory (checkmate-shadow --history; default 8)")
    p.add_argument("--persist-every", type=int, default=10, metavar="K",
                   help="shadows persist every K-th iteration (restore's fallback; 0 = only at exit; default 10)")
    p.add_argument("--shadow-keep", type=int, default=3, metavar="N", help="persisted files kept per shard (default 3)")
    p.add_argument("--phase-timeout", type=float, default=600.0, help="seconds per training phase (default 600)")
    p.add_argument("--watchdog-timeout", type=float, default=3.0,
                   help="seconds without a heartbeat before the controller flags a rank (default 3)")
    p.add_argument("--cli", action="store_true", help="open the Mininet CLI before tearing down")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--stop", action="store_true", help="tear down what earlier runs recorded under --logs, then exit")
    return testbed_args.check(p, p.parse_args(argv))


# the testbed
# ------------------------------------------------------------------------------------------------

class Testbed:
    def __init__(self, args):
        self.args = args
        self.t0 = time.monotonic()
        self.run = args.run or time.strftime("%Y%m%d-%H%M%S")
        self.tag = secrets.token_hex(2)[:3]
        self.out = Path(args.out) if args.out else paths.RESULTS / self.run
        self.logs = Path(args.logs) / self.run
        self.pcaps = (paths.PCAPS / self.run) if args.pcap else None
        self.topo = self._topology()
        self.job_id = self.topo.get("job_id", 1)
        self.procs: ProcessTable | None = None
        self.net = None
        self.controller = None
        self.pollers: dict[int, ShadowPoller] = {}
        self.events: list[dict] = []
        self.iterations: list[dict] = []
        self.port_samples: list[dict] = []
        self.heartbeats: list[dict] = []
        self.phases: dict[str, dict] = {}
        self._port_roles: list[tuple[str, str, int, str]] = []
        self._last_ports = 0.0
        self._counters = None
        self._tm_stats = None
        self._port_seq = 0
        #: callables ``cb(phase, last_iterations)`` run in the main loop of every training phase
        #: (~5 Hz): the fault suite injects its mid-run faults from here (topologies/faults.py)
        self.tick_hooks: list = []
        self.injector: FailureInjector | None = None
        self.model_info: dict = {}  #: model name, parameter and buffer element counts (shard_owner)

    # -- set-up ----------------------------------------------------------------------------------
    def _topology(self) -> dict:
        a = self.args
        kw = dict(shadow_lossless=not a.shadow_lossy, shadow_loss=a.shadow_loss,
                  shadow_delay_ms=a.shadow_delay_ms)
        if a.job_id is not None:
            kw["job_id"] = a.job_id
        if a.topo in generate.GENERATORS:
            trainers = a.trainers or (3 if a.topo == "star" else 4)
            topo = generate.generate(a.topo, trainers, a.shadows, **kw)
        else:
            topo = json.loads(Path(a.topo).read_text())
            if a.job_id is not None:
                topo["job_id"] = a.job_id
        generate.validate(topo)
        # gRPC ports on the root namespace's loopback: take a free block (several runs may share a machine)
        n = len(topo["switches"])
        base = free_port_block(2 * n)
        for i, name in enumerate(sorted(topo["switches"], key=lambda n: topo["switches"][n]["device_id"])):
            topo["switches"][name]["grpc_port"] = base + i
            topo["switches"][name]["tm_port"] = base + n + i  # the switch's run-time TM control channel
        return topo

    def event(self, what: str, **kw) -> dict:
        ev = {"t": round(time.monotonic() - self.t0, 3), "event": what, **kw}
        self.events.append(ev)
        return ev

    def say(self, msg: str) -> None:
        from tqdm import tqdm
        tqdm.write(f"[{time.monotonic() - self.t0:7.1f}s] {msg}", file=sys.stderr)

    def up(self) -> None:
        from . import net as tnet
        for d in (self.out, self.logs):
            d.mkdir(parents=True, exist_ok=True)
        self._log_handler = logging.FileHandler(self.logs / "controller.log")
        self._log_handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        for name in ("checkmate", "controller"):  # controller / watchdog / client logs -> a file, not the tty
            lg = logging.getLogger(name)
            lg.addHandler(self._log_handler)
            lg.setLevel(logging.INFO)
            lg.propagate = False
        self.procs = ProcessTable(self.logs / "state.json", self.run)
        self.procs.note(tag=self.tag, out=str(self.out))
        generate.save(self.topo, self.out / "topology.json")
        cls = tnet.switch_class(self.args.switch)
        self.say(f"run {self.run}: {self.topo.get('kind', 'custom')} topology, "
                 f"{len(generate.trainers_of(self.topo))} trainers, {len(generate.shadows_of(self.topo))} shadows, "
                 f"{len(self.topo['switches'])} switch(es) [{cls.label}], logs in {self.logs}/")
        self.net = tnet.build_network(self.topo, self.tag, cls, self.procs, self.logs, self.pcaps, self.args.mtu,
                                      switch_extra={"extra_args": list(self.args.switch_arg)})
        self.event("network_up")
        for na, pa, nb, pb, _ in generate.links(self.topo):
            for n, p, far in ((na, pa, nb), (nb, pb, na)):
                if p is None:
                    continue
                role = ("switch" if far in self.topo["switches"] else self.topo["hosts"][far].get("role", "host"))
                self._port_roles.append((tnet.intf_name(self.tag, n, p), n, p, role))
        self.program()

    def program(self) -> None:
        """Program every switch from the topology with the controller (``topologies/control.py``)."""
        from .control import Control
        owner = self.shard_owner()
        from . import net as tnet
        target = "bmv2" if tnet.switch_class(self.args.switch) is tnet.BMv2Switch else "embedded"
        self.controller = Control(self.t0, self.topo, owner, silence_s=self.args.watchdog_timeout, target=target)
        self.controller.heartbeats = self.heartbeats
        self.controller.start()
        self.topo = dict(self.topo, shard_map=self.controller.raw.get("shard_map"))
        generate.save(self.topo, self.out / "topology.json")
        self.event("switches_programmed", shard_map=self.topo.get("shard_map"))

    def shard_owner(self) -> dict[int, int] | None:
        """``{param_id: shard}`` of the example's model: ``trainer_hooks.shard_plan(model, K)`` -- or the
        topology file's own ``shard_map``, checked against the model and then given to the trainers too
        (``--shard-map``), so the switch and the trainers use one map (never silently overwritten)."""
        from trainer_hooks.layout import shard_plan
        from trainer_hooks.shard_map import resolve_shard_map
        spec = importlib.util.spec_from_file_location("checkmate_example_ddp_train", TRAIN_SCRIPT)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        build, parse = getattr(mod, "build", None), getattr(mod, "parse_args", None)
        if build is None or parse is None:
            raise TestbedError(f"{TRAIN_SCRIPT} has no build(args)/parse_args(): cannot compute the shard map")
        margs = parse(["--rank", "0", "--world-size", "2", "--iters", str(self.args.iters)]
                      + model_argv(self.args) + list(self.args.train_arg))
        built = build(margs)
        model = built[0] if isinstance(built, tuple) else built
        self.model_info = {"model": getattr(margs, "model", "mlp"),
                           "parameters": sum(p.numel() for p in model.parameters()),
                           "buffers": sum(b.numel() for b in model.buffers())}
        k = len(generate.shadows_of(self.topo))
        if self.topo.get("shard_map"):
            try:
                owner = resolve_shard_map(self.topo["shard_map"], len(list(model.parameters())), k,
                                          what=f"{self.args.topo}: shard_map")
            except ValueError as e:
                raise TestbedError(f"{e} (omit shard_map to use the trainers' plan, "
                                   f"`examples/ddp_train.py --print-shard-plan {k}`)") from None
            self.trainer_shard_map = owner
            return owner
        return shard_plan(model, k)

    def shard_map_args(self) -> list[str]:
        """``--shard-map`` when the topology file has its own map (the switch is programmed with it)."""
        owner = getattr(self, "trainer_shard_map", None)
        return ["--shard-map", json.dumps(owner)] if owner else []

    def model_args(self) -> list[str]:
        return model_argv(self.args)

    def down(self) -> None:
        from . import net as tnet
        for p in self.pollers.values():
            p.stop()
        if self.controller is not None:
            try:
                self.controller.stop()
            except Exception:  # noqa: BLE001
                pass
        if self.procs is not None:
            for kind in ("trainer", "shadow"):
                self.procs.stop_kind(kind, timeout=3.0)
        if self.net is not None or self.procs is not None:
            tnet.teardown_network(self.net, self.procs, self.topo, self.tag)
        for p in self.pollers.values():
            p.join(timeout=3)
        if self.procs is not None:
            self.procs.remove_state()
        if getattr(self, "_log_handler", None) is not None:
            for name in ("checkmate", "controller"):
                logging.getLogger(name).removeHandler(self._log_handler)
            self._log_handler.close()

    # -- processes on hosts ------------------------------------------------------------------------
    def _env(self) -> dict:
        # GLOO_SOCKET_IFNAME: a namespaced host's hostname resolves to 127.0.0.1; gloo must use eth0
        return {"PYTHONPATH": str(paths.ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1",
                "CHECKMATE_ROOT": str(paths.ROOT), "GLOO_SOCKET_IFNAME": "eth0"}

    # -- fault hooks (issue #11 builds its scenarios on these) --------------------------------------
    def shadow_argv(self, name: str, phase: str) -> list:
        h = self.topo["hosts"][name]
        ip = h["ip"].split("/")[0]
        ckpt = self.out / "ckpt" / phase / name
        ckpt.mkdir(parents=True, exist_ok=True)
        exe = os.environ.get("CHECKMATE_SHADOW", "").split() or [sys.executable, "-m", "shadow.cli"]
        return [*exe, "--job-id", self.job_id, "--shard", h["shard"], "--data", f"{ip}:{h['udp_port']}",
                "--mgmt", f"{ip}:{h['mgmt_port']}", "--ckpt-dir", ckpt,
                # copies are accepted only on the switch-facing link (the host's only data interface)
                "--data-iface", "eth0",
                "--history", getattr(self.args, "shadow_history", 8),
                "--persist-every", getattr(self.args, "persist_every", 0),
                "--keep", getattr(self.args, "shadow_keep", 3)]

    def kill_shadow(self, name: str) -> None:
        """SIGKILL one shadow process (a shadow node crash)."""
        self.procs.kill(f"shadow-{name}")
        self.event("shadow_killed", shadow=name)

    def restart_shadow(self, name: str, phase: str) -> None:
        """Start shadow ``name`` again (same address, same checkpoint folder) and wait until it listens."""
        self.procs.stop(f"shadow-{name}", timeout=3.0)
        self.procs.spawn(f"shadow-{name}", self.shadow_argv(name, phase), self.logs / f"{phase}-{name}.log",
                         node=self.net.get(name), env=self._env(), kind="shadow", cwd=paths.ROOT)
        self._wait_shadows(timeout=90.0, only=[name])
        self.event("shadow_restarted", shadow=name)

    def restart_switch(self, name: str) -> None:
        """Stop and start one switch process (its tables are gone), then let the controller reprogram it."""
        sw = self.net.get(name)
        self.procs.stop(sw.proc_name, timeout=5.0)
        self.event("switch_stopped", switch=name)
        sw.start([])
        if self.controller is not None:
            self.controller.reconnect(name)
        self.event("switch_reprogrammed", switch=name)

    def set_tm(self, switch: str, port: int, **settings) -> dict:
        """Change a switch port's traffic-manager settings at run time (loss, delay, lossless, ...)."""
        from switch.tm_client import TMClient
        sw = self.net.get(switch)
        if not getattr(sw, "tm_port", None):
            raise TestbedError(f"{switch} has no run-time TM control channel")
        with TMClient("127.0.0.1", sw.tm_port) as tm:
            out = tm.set(port, **settings)
        self.event("tm_set", switch=switch, port=port, settings=settings)
        return out

    def start_shadows(self, phase: str) -> None:
        self.procs.stop_kind("shadow", timeout=5.0)
        for name, h in generate.shadows_of(self.topo):
            self.procs.spawn(f"shadow-{name}", self.shadow_argv(name, phase), self.logs / f"{phase}-{name}.log",
                             node=self.net.get(name), env=self._env(), kind="shadow", cwd=paths.ROOT)
        self._wait_shadows(timeout=90.0)
        for name, h in generate.shadows_of(self.topo):
            if h["shard"] not in self.pollers:
                ip = h["ip"].split("/")[0]
                poller = ShadowPoller(name, self.net.get(name).pid, ip, h["mgmt_port"], h["shard"], self.t0)
                poller.start()
                self.pollers[h["shard"]] = poller
        for p in self.pollers.values():
            p.set_phase(phase)
        self.event("shadows_started", phase=phase)

    def _wait_shadows(self, timeout: float, only=None) -> None:
        from .netns import in_netns
        deadline = time.monotonic() + timeout
        pending = {name: h for name, h in generate.shadows_of(self.topo) if only is None or name in only}
        while pending:
            for name, h in list(pending.items()):
                proc = self.procs.procs[f"shadow-{name}"]
                if proc.poll() is not None:
                    raise TestbedError(f"shadow {name} exited with status {proc.poll()} at start-up:\n"
                                       + _tail(proc.log))
                with in_netns(self.net.get(name).pid):
                    try:
                        with socket.create_connection((h["ip"].split("/")[0], h["mgmt_port"]), timeout=0.5):
                            del pending[name]
                    except OSError:
                        pass
            if pending and time.monotonic() > deadline:
                raise TestbedError(f"shadow(s) {', '.join(pending)} not listening after {timeout:.0f}s:\n"
                                   + "".join(_tail(self.procs.procs[f'shadow-{n}'].log) for n in pending))
            if pending:
                time.sleep(0.2)

    def train_args(self, phase: str, h: dict) -> list:
        """``examples/ddp_train.py`` arguments of trainer host ``h`` in ``phase`` (no rank, no rendezvous);
        removes the phase's old metrics/final files of the host's rank."""
        shadows = ",".join(f"{s['ip'].split('/')[0]}:{s['mgmt_port']}" for _, s in generate.shadows_of(self.topo))
        (self.out / "metrics" / phase).mkdir(parents=True, exist_ok=True)
        (self.out / "final" / phase).mkdir(parents=True, exist_ok=True)
        metrics = self.out / "metrics" / phase / "rank{rank}.jsonl"  # ddp_train.py expands {rank}
        final = self.out / "final" / phase / "rank{rank}.pt"
        for f in (metrics, final):
            f = Path(str(f).format(rank=h["rank"]))
            if f.exists():
                f.unlink()
        return ["--iters", self.args.iters, "--mode", self.args.mode, "--job-id", self.job_id, "--shadows", shadows,
                "--bind-ip", h["ip"].split("/")[0], "--save-final", final, "--metrics", metrics,
                "--mtu", self.args.mtu, *self.model_args(), *self.shard_map_args(), *self.args.train_arg]

    def start_trainers(self, phase: str, resume: bool, master_port: int) -> dict[int, str]:
        trainers = generate.trainers_of(self.topo)
        n = len(trainers)
        master_ip = trainers[0][1]["ip"].split("/")[0]
        names = {}
        for name, h in trainers:
            r = h["rank"]
            argv = [sys.executable, str(TRAIN_SCRIPT), "--rank", r, "--world-size", n,
                    "--master", f"{master_ip}:{master_port}", *self.train_args(phase, h)]
            if resume:
                argv += ["--resume", "--allow-fresh"]  # the fault scenarios judge the restore themselves
            pname = f"trainer-{r}"
            self.procs.spawn(pname, argv, self.logs / f"{phase}-{name}.log", node=self.net.get(name),
                             env=self._env(), kind="trainer", cwd=paths.ROOT)
            names[r] = pname
        self.event("trainers_started", phase=phase, resume=resume)
        return names

    # -- monitoring --------------------------------------------------------------------------------
    def sample_ports(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last_ports < 0.5:
            return
        self._last_ports = now
        t = round(now - self.t0, 3)
        self._port_seq += 1
        for intf, sw, port, role in self._port_roles:
            tx, rx, txp, rxp = intf_counters(intf)
            self.port_samples.append({"seq": self._port_seq, "t": t, "switch": sw, "port": port, "role": role, "tx_bytes": tx,
                                      "rx_bytes": rx, "tx_packets": txp, "rx_packets": rxp})

    def ckpt_iteration(self) -> int | None:
        """Newest iteration that *every* shard holds in memory (its published history): the
        consistent checkpoint a restore would pick first, from the pollers; None while there is none."""
        common = None
        for p in self.pollers.values():
            if p.latest is None:
                return None
            held = ({p.latest.get("latest_iteration"), p.latest.get("previous_iteration")}
                    | set(p.latest.get("held_iterations") or ())) - {None}
            common = held if common is None else common & held
        return max(common) if common else None

    def settled_checkpoint(self, quiet: float = 1.0, limit: float = 10.0) -> int | None:
        """:meth:`ckpt_iteration` once the shadows stop moving: with the trainers stopped, copies the
        switch still queues (the embedded target runs behind under load) may complete iterations after
        the kill (CI of 16744eda: the checkpoint read at once was 2, the shadows published 3-4 later
        and the job resumed at 5).  Waits for ``quiet`` seconds without a new packet, publication or
        pending change on any shard, at most ``limit`` seconds; an iteration the kill cut short stays
        pending and is never published (it does not hold the wait past ``quiet``)."""
        keys = ("latest_iteration", "packets", "pending")
        deadline = time.monotonic() + limit
        last, since = None, time.monotonic()
        while time.monotonic() < deadline:
            now = tuple((p.latest or {}).get(k) for p in self.pollers.values() for k in keys)
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet:
                break
            time.sleep(0.1)
        return self.ckpt_iteration()

    def train_phase(self, phase: str, resume: bool, master_port: int, fail_at: int | None = None,
                    fail_rank: int | None = None) -> dict:
        """Run one training phase to completion (or to the injected failure); returns its record."""
        from tqdm import tqdm
        if self.controller is not None:
            self.controller.reset_watchdog()  # a new incarnation of the job: iterations start over
        names = self.start_trainers(phase, resume, master_port)
        info: dict = {"phase": phase, "resume": resume, "t_start": round(time.monotonic() - self.t0, 3)}
        pos = {r: 0 for r in names}
        last_it = {r: None for r in names}
        first_it = None
        deadline = time.monotonic() + self.args.phase_timeout
        injector = None
        if fail_at:
            injector = FailureInjector(Path(str(self.out / "metrics" / phase / "rank{rank}.jsonl").format(rank=fail_rank)),
                                       fail_at, self.procs.procs[names[fail_rank]].pid)
            injector.start()
        self.injector = injector  # tick hooks may move ``injector.fail_at`` (the fault suite does)
        bar = tqdm(total=self.args.iters, desc=f"{phase:>9}", unit="it", disable=self.args.quiet, file=sys.stderr,
                   leave=True, dynamic_ncols=True, mininterval=0.5 if sys.stderr.isatty() else 5.0)
        refresh_every, last_refresh = (0.2 if sys.stderr.isatty() else 5.0), 0.0
        try:
            while True:
                last0 = None
                for r in names:
                    recs, pos[r] = read_jsonl(self.out / "metrics" / phase / f"rank{r}.jsonl", pos[r])
                    for rec in recs:
                        it = iteration_of(rec)
                        if it is None:
                            continue
                        last_it[r] = it
                        first_it = it if first_it is None else min(first_it, it)
                        self.iterations.append({"phase": phase, "rank": r, "t": round(time.monotonic() - self.t0, 3),
                                                **rec})
                        if r == 0:
                            last0 = rec
                if last0 is not None:
                    it = int(iteration_of(last0))
                    ck = self.ckpt_iteration()
                    bar.n = min(it, self.args.iters)
                    bar.set_postfix(loss=f"{_get(last0, 'loss', default=float('nan')):.4f}",
                                    it_ms=f"{1000 * float(_get(last0, 'iter_time', 'time', 'dt', default=0)):.0f}",
                                    ckpt=ck if ck is not None else "-",
                                    age=max(0, it - ck) if ck is not None else "-", refresh=False)
                    if time.monotonic() - last_refresh >= refresh_every or it >= self.args.iters:
                        bar.refresh()
                        last_refresh = time.monotonic()
                self.sample_ports()
                if self.controller is not None:
                    self.controller.poll()
                for cb in list(self.tick_hooks):
                    cb(phase, dict(last_it))
                if injector is not None and injector.fired.is_set():
                    bar.close()
                    return self.handle_failure(names, fail_rank, injector, last_it, info)
                states = {r: self.procs.procs[n].poll() for r, n in names.items()}
                bad = {r: rc for r, rc in states.items() if rc not in (None, 0)}
                if bad and injector is not None and injector.fired.wait(0.5):
                    bar.close()
                    return self.handle_failure(names, fail_rank, injector, last_it, info)
                if bad:
                    raise TestbedError(f"{phase}: trainer(s) failed unexpectedly: {bad}\n"
                                       + "".join(_tail(self.procs.procs[names[r]].log) for r in bad))
                if all(rc == 0 for rc in states.values()):
                    if injector is not None:
                        raise TestbedError(f"{phase}: the job finished before rank {fail_rank} reached "
                                           f"iteration {fail_at}; use a smaller --fail-at")
                    break
                if time.monotonic() > deadline:
                    raise TestbedError(f"{phase}: not finished after {self.args.phase_timeout:.0f}s "
                                       f"(last iterations {last_it})\n"
                                       + "".join(_tail(self.procs.procs[n].log) for n in names.values()))
                time.sleep(0.2)
        finally:
            bar.close()
            if injector is not None:
                injector.stop()
        # read what remains of the metrics
        for r in names:
            recs, pos[r] = read_jsonl(self.out / "metrics" / phase / f"rank{r}.jsonl", pos[r])
            for rec in recs:
                if iteration_of(rec) is not None:
                    last_it[r] = iteration_of(rec)
                    self.iterations.append({"phase": phase, "rank": r, "t": round(time.monotonic() - self.t0, 3),
                                            **rec})
        for r, n in names.items():
            self.procs.forget(n)
        info.update(t_end=round(time.monotonic() - self.t0, 3), first_iteration=first_it, last_iteration=last_it)
        self.sample_ports(force=True)
        self.event("phase_done", phase=phase)
        return info

    def handle_failure(self, names: dict[int, str], rank: int, inj: FailureInjector, last_it: dict,
                       info: dict) -> dict:
        victim = names[rank]
        t_kill, it_kill = inj.t_kill, inj.iteration
        self.event("trainer_killed", rank=rank, iteration=it_kill, t=round(t_kill - self.t0, 3))
        self.say(f"killed trainer rank {rank} (SIGKILL after its iteration {it_kill})")
        # detection 1: the process exit, seen by polling the process as a supervisor would
        rc = self.procs.wait(victim, 10.0)
        t_exit = time.monotonic()
        self.event("failure_detected", source="process_exit", rank=rank, status=rc)
        # detection 2: the controller's heartbeat watchdog (no newer iteration from that rank)
        t_wd = None
        wd_src = "unavailable"
        if self.controller is not None and self.controller.has_watchdog:
            wd_src = "no_verdict"
            deadline = time.monotonic() + self.args.watchdog_timeout * 3 + 5
            while time.monotonic() < deadline:
                self.controller.poll()
                stale = self.controller.stale_ranks()
                if rank in stale:
                    t_wd, wd_src = time.monotonic(), "controller_watchdog:rank_hung"
                    self.event("failure_detected", source="controller_watchdog", ranks=sorted(stale))
                    break
                if self.controller.job_stalled():
                    # a synchronous job stops as a whole: no rank advances any more (the watchdog
                    # flags a single rank only when the others go on); every heartbeat is stale
                    t_wd, wd_src = time.monotonic(), "controller_watchdog:job_stalled"
                    self.event("failure_detected", source="controller_watchdog", stalled=True)
                    break
                self.sample_ports()
                time.sleep(0.1)
        # the job scheduler's part: stop the surviving trainers of the broken job
        for r, n in names.items():
            if r != rank:
                self.procs.stop(n, timeout=3.0)
        for n in names.values():
            self.procs.forget(n)
        self.event("trainers_stopped", phase=info["phase"])
        t_settle = time.monotonic()
        ck = self.settled_checkpoint()
        info["shadow_settle_s"] = round(time.monotonic() - t_settle, 3)
        statuses = {s: (p.latest or {}).get("latest_iteration") for s, p in self.pollers.items()}
        info.update(killed_rank=rank, killed_after_iteration=it_kill, exit_status=rc,
                    t_kill=round(t_kill - self.t0, 3), exit_detect_s=round(t_exit - t_kill, 3),
                    watchdog=wd_src, watchdog_detect_s=round(t_wd - t_kill, 3) if t_wd else None,
                    shadow_latest=statuses, consistent_checkpoint=ck, last_iteration=dict(last_it),
                    t_end=round(time.monotonic() - self.t0, 3))
        return info

    # -- the scenario ------------------------------------------------------------------------------
    def scenario(self) -> dict:
        a = self.args
        trainers = generate.trainers_of(self.topo)
        fail_at = a.fail_at if a.fail_at is not None else max(1, a.iters // 2)
        fail_rank = a.fail_rank if a.fail_rank is not None else len(trainers) - 1
        if fail_at and not 0 < fail_at < a.iters:
            raise TestbedError(f"--fail-at {fail_at} must be within 1..{a.iters - 1} (0 = no failure)")
        if not 0 <= fail_rank < len(trainers):
            raise TestbedError(f"--fail-rank {fail_rank} is not a rank (0..{len(trainers) - 1})")
        missing = missing_components()
        if missing:
            raise TestbedError("not landed yet: " + ", ".join(missing))
        self.up()
        port = MASTER_PORT
        if not a.no_reference:
            self.start_shadows("reference")
            self.phases["reference"] = self.train_phase("reference", resume=False, master_port=port)
            port += 1
        self.start_shadows("failure")
        if getattr(a, "launcher", "runner") == "torchrun":  # failure and restart handled by torchrun's agents, not by us
            from .launcher import torchrun_phase
            self.phases["failure"] = torchrun_phase(self, "failure", port, fail_at or None, fail_rank)
            final_phase = "failure"
        elif fail_at:
            self.phases["failure"] = self.train_phase("failure", False, port, fail_at=fail_at, fail_rank=fail_rank)
            port += 1
            self.phases["resume"] = self.train_phase("resume", True, port)
            final_phase = "resume"
        else:
            self.phases["failure"] = self.train_phase("failure", False, port)
            final_phase = "failure"
        self.sample_ports(force=True)
        self._counters = self.controller.counters() if self.controller is not None else None
        self._tm_stats = self.tm_stats()
        self._switch_cpu = self.switch_cpu()
        return self.verify(final_phase)

    def switch_cpu(self) -> dict:
        """CPU seconds each switch process has used so far (the current process, if it was restarted)."""
        from .procs import proc_cpu_s
        return {sw.name: proc_cpu_s(sw.proc.pid) for sw in (self.net.switches if self.net else [])
                if getattr(sw, "proc", None) is not None}

    def tm_stats(self) -> dict:
        """Per-port traffic-manager counters of every switch (enqueued, sent, drops, pauses, ...)."""
        out = {}
        if self.net is None:
            return out
        try:
            from switch.tm_client import TMClient
        except ImportError:
            return out
        for sw in self.net.switches:
            if not getattr(sw, "tm_port", None) or getattr(sw, "tm_addr", None) is None:  # BMv2: no TM
                continue
            try:
                with TMClient("127.0.0.1", sw.tm_port) as tm:
                    out[sw.name] = {str(k): v for k, v in tm.stats().items()}
            except Exception as e:  # noqa: BLE001 -- BMv2 has none; report, do not fail
                out[sw.name] = f"{type(e).__name__}: {e}"
        return out

    def verify(self, final_phase: str) -> dict:
        from .verify import compare_files
        out = {"final_phase": final_phase, "ranks": {}}
        if self.args.no_reference:
            out.update(identical=None, note="no reference run (--no-reference)")
            return out
        ok = True
        for _, h in generate.trainers_of(self.topo):
            r = h["rank"]
            ref = self.out / "final" / "reference" / f"rank{r}.pt"
            got = self.out / "final" / final_phase / f"rank{r}.pt"
            if not ref.exists() or not got.exists():
                out["ranks"][r] = {"identical": False, "error": f"missing {ref if not ref.exists() else got}"}
                ok = False
                continue
            c = compare_files(ref, got).as_dict()
            out["ranks"][r] = c
            ok = ok and c["identical"]
        out["identical"] = ok
        out["trajectory"] = self.trajectory()
        return out

    def trajectory(self) -> dict:
        """Where the run's per-iteration losses first differ (bitwise) from the reference's, per phase:
        tells a divergence in training (before the failure) from one caused by the restore."""
        ref = {(row["rank"], iteration_of(row)): row.get("loss") for row in self.iterations
               if row["phase"] == "reference"}
        out = {}
        for phase in ("failure", "resume"):
            rows = sorted((row for row in self.iterations if row["phase"] == phase),
                          key=lambda row: (iteration_of(row), row["rank"]))
            first = next((f"iteration {iteration_of(row)} rank {row['rank']}: {row.get('loss')!r} vs "
                          f"{ref.get((row['rank'], iteration_of(row)))!r}" for row in rows
                          if ref.get((row["rank"], iteration_of(row))) != row.get("loss")), None)
            out[phase] = {"iterations": len({iteration_of(row) for row in rows}), "first_difference": first}
        return out

    # -- results -----------------------------------------------------------------------------------
    def results(self, verification: dict | None, error: str | None) -> dict:
        shadow_samples = [s for p in self.pollers.values() for s in p.samples]
        if error or not verification:
            verdict = "ERROR"
        elif verification.get("identical") is None:
            verdict = "UNVERIFIED"
        else:
            verdict = "PASS" if verification["identical"] else "FAIL"
        res = {
            "run": self.run, "verdict": verdict, "error": error,
            "config": {k: v for k, v in vars(self.args).items() if k not in ("stop",)},
            "switch": self.args.switch, "tag": self.tag, "model": self.model_info,
            "topology": self.topo, "phases": self.phases, "events": self.events,
            "verification": verification, "iterations": self.iterations,
            "shadow_status": shadow_samples,
            "shadow_poll_errors": {s: p.error for s, p in self.pollers.items() if p.error},
            "ports": self.port_samples, "heartbeats": self.heartbeats,
            "controller": self.controller.summary() if self.controller is not None else None,
            "switch_counters": self._counters, "tm_stats": self._tm_stats,
            "switch_cpu_s": getattr(self, "_switch_cpu", None),
            "logs": str(self.logs), "pcaps": str(self.pcaps) if self.pcaps else None,
        }
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "metrics.json").write_text(json.dumps(res, indent=1, default=str))
        try:
            from .report import plots, summary
            res["plots"] = plots(res, self.out / "plots")
            text = summary(res)
        except Exception as e:  # noqa: BLE001 -- the verdict must still be written
            text = f"verdict: {verdict}\n(report failed: {type(e).__name__}: {e})\n"
        (self.out / "summary.txt").write_text(text)
        return res


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.stop:
        return stop_all(args.logs)
    why = cannot_start("checkmate testbed")
    if why:
        print(why, file=sys.stderr)
        return 2
    try:
        tb = Testbed(args)
    except (ValueError, TestbedError, OSError) as e:
        print(f"checkmate testbed: {e}", file=sys.stderr)
        return 2
    verification, error = None, None
    with teardown_on_exit(lambda: (tb.say("tearing down"), tb.down())):
        try:
            verification = tb.scenario()
            if args.cli and tb.net is not None:
                from mininet.cli import CLI
                CLI(tb.net)
        except (KeyboardInterrupt, Terminated) as e:
            error = f"interrupted ({type(e).__name__})"
            tb.say(error)
        except Exception as e:  # noqa: BLE001 -- report, tear down, exit non-zero
            error = f"{type(e).__name__}: {e}"
            tb.say(f"error: {error}")
    res = tb.results(verification, error)
    print((tb.out / "summary.txt").read_text(), end="")
    print(f"results: {tb.out}/" + (f"  logs: {tb.logs}/" if tb.logs.is_dir() else "  (no logs: nothing was started)"))
    return 0 if res["verdict"] in ("PASS", "UNVERIFIED") and not error else 1


if __name__ == "__main__":
    sys.exit(main())
