"""Random frames over real veths: checkmate-switch's port layer against BMv2 (issue #15).

Every other generator drives both switches through nanomsg / UDP tunnel ports; here the
frames cross real kernel interfaces, as on Mininet and in the tutorials: BMv2 reads and
writes its veths with libpcap, checkmate-switch with AF_PACKET (``switch/ports.py``: receive
ring, VLAN tag restored from the ring slot, ``send()`` or a transmit ring).  What differs
there is invisible to the other generators.

One :class:`~refrig.Rig` of four veth pairs -- ports 1 and 2 at MTU 1500, 3 and 4 at 9000
(jumbo) -- and one switch process per target for all programs: ``simple_switch_grpc``
(p4c's JSON, the reference), ``checkmate-switch`` on p4c's JSON and on checkmate-p4c's
output, each programmed over P4Runtime with the case's entries, multicast groups and clone
sessions (:func:`diff_harness.program_target`).

Frames (:func:`gen_frames`, seeded): every length from the Ethernet header's 14 bytes (a
veth pads nothing) to the ingress MTU and a few bytes past it (plus runts under 14 bytes,
which the host side cannot send -- the kernel refuses them as it does for BMv2's own
output); no tag, 802.1Q, 802.1ad, QinQ, two 802.1Q tags, priority-tagged (VID 0), a 0x9100
outer tag; broadcast, IPv4/IPv6 multicast, link-local (01:80:c2), all-zero and random MACs;
random EtherTypes (also 802.3 lengths).  Each case's own frames are used as seeds too, so
table entries are hit.  Frames go out in bursts of 1..16 back to back; after each burst the
outputs are collected until the switches are quiet.  ``programs/ports.p4`` turns the frames
into port-layer work: tags pushed/popped, 64 bytes added (past the egress MTU), the
Ethernet header removed or the frame truncated below it (runts out), multicast to all four
ports (jumbo to 1500 as well), clones, drops, and per-port byte counters.

Outputs per port, in order, burst by burst, and every counter are compared with BMv2's.  A
port where BMv2 has fewer frames and its list is a subsequence of ours is recorded as loss
on BMv2 (timing: its queues), not as a disagreement.

    cd <repo> && flock /tmp/checkmate-net.lock env PYTHONPATH=$PWD PATH=/opt/p4lang/bin:$PATH \\
        .venv/bin/python tests/bmv2compat/fuzz_ports.py --seeds 0-9 [--tutorials /work/corpus/tutorials] [-k NAME]

Root, p4c and simple_switch_grpc are needed (the CI test skips without them).  The CI test's veths
are ``fv<n>s``/``fv<n>h``, a command-line run's ``fz<n>...`` (``--tag``): a CI run of the root tests
takes no lock, and one rig's set-up deletes the other's interfaces of the same name.
"""
from __future__ import annotations

import argparse
import errno
import importlib
import json
import random
import select
import socket
import struct
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
for _p in (str(REPO), str(REPO / "tests" / "differential"), str(HERE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from diff_harness import Case, compile_checkmate, compile_p4c, program_target, read_observation, unprogram_target  # noqa: E402
from diff_targets import Target  # noqa: E402
from refrig import Bmv2Grpc, Checkmate, Rig  # noqa: E402

PORTS = (1, 2, 3, 4, 5)
MTU = {1: 1500, 2: 1500, 3: 9000, 4: 9000, 5: 1500}
TARGETS = ("bmv2", "cm-json", "cm-p4")
#: more checkmate-switch set-ups (``--targets``): name -> (compiled by "p4c"/"cm", extra switch options)
EXTRA_TARGETS = {"cm-ring": ("cm", ["--tx-ring"]), "cm-frame": ("cm", ["--send-order", "frame"])}
PROGRAMS = HERE / "programs"


# ------------------------------------------------------------------------------ programs
def repo_cases() -> list[Case]:
    """The repository's programs that forward by port without timing-dependent reads."""
    ports = Case("ports", "ports", (PROGRAMS / "ports.p4").read_text(),
                 mcast={1: [(p, 0) for p in PORTS]}, clones={5: ([(4, 0)], 0)})
    return [ports,
            Case("vlan", "ports", (PROGRAMS / "vlan.p4").read_text()),
            Case("select_nomatch", "ports", (PROGRAMS / "select_nomatch.p4").read_text())]


def checkmate_case() -> Case:
    """p4src/checkmate.p4 with the entries and groups the controller installs on s1 of
    topologies/star.json (ports 1-5); seed frames: FINAL / non-final chunks between trainers and
    from other ports, ARP requests, plain UDP."""
    from checkmate import wire
    from controller.plan import plan_switch
    from controller.topology import Topology
    from tests.dataplane.conftest import chunk_frame

    topo = Topology.load(REPO / "topologies" / "star.json")
    plan = plan_switch(topo, "s1")
    frames = []
    for src, dst in (("h1", "h2"), ("h2", "h3"), ("h3", "h1")):
        for pid in (0, 3, 4, 9):
            frames.append((1, chunk_frame(topo, src, dst, param_id=pid, iteration=pid + 1)))
        frames.append((1, chunk_frame(topo, src, dst, flags=0)))
        frames.append((1, chunk_frame(topo, src, dst, raw_payload=b"\x01\x02")))
    for h in ("h1", "h2", "sh1", "sh2"):
        ip = topo.host(h).ip
        arp = (b"\xff" * 6 + bytes.fromhex("080000000001") + b"\x08\x06" + bytes.fromhex("0001080006040001")
               + bytes.fromhex("080000000001") + socket.inet_aton("10.77.0.1") + bytes(6) + socket.inet_aton(ip))
        frames.append((1, arp))
    frames.append((1, chunk_frame(topo, "h1", "sh1", raw_payload=b"plain udp")))
    assert wire.CHECKMATE_UDP_PORT
    return Case("checkmate", "ports", (REPO / "p4src" / "checkmate.p4").read_text(), frames=frames,
                entries=list(plan.entries), mcast={g.group_id: list(g.replicas) for g in plan.groups})


def tutorial_cases(where: Path) -> tuple[list[Case], dict]:
    """The corpus tutorials (``tut_cases.py`` next to their sources: entries, frames, masks)."""
    sys.path.insert(0, str(where))
    mod = importlib.import_module("tut_cases")
    cases = []
    for c in mod.CASES:
        c.source = (where / f"{c.name}.p4").read_text()
        c.one_by_one = False
        cases.append(c)
    return cases, getattr(mod, "MASKS", {})


# ------------------------------------------------------------------------------ frames
_TAGS = [  # (weight, [tpid, ...]) outer first
    (50, []), (15, [0x8100]), (7, [0x88A8]), (7, [0x88A8, 0x8100]), (5, [0x8100, 0x8100]),
    (6, ["prio"]), (5, [0x9100]), (5, [0x9100, 0x8100])]
_ETYPES = [0x0800, 0x86DD, 0x0806, 0x88B5, 0x1234, 0x8100, 0x88A8, 0x0000, 0x05DC, 0x0600, 0xFFFF]


def _pick(rng, weighted):
    total = sum(w for w, _ in weighted)
    r = rng.uniform(0, total)
    for w, v in weighted:
        r -= w
        if r <= 0:
            return v
    return weighted[-1][1]


def _mac(rng, old: bytes) -> bytes:
    r = rng.random()
    if r < 0.12:
        return b"\xff" * 6
    if r < 0.2:
        return bytes([1, 0, 0x5E, rng.randrange(128), rng.randrange(256), rng.randrange(256)])
    if r < 0.25:
        return bytes([0x33, 0x33]) + rng.randbytes(4)
    if r < 0.3:
        return bytes(6)
    if r < 0.34:
        return bytes([1, 0x80, 0xC2, 0, 0, rng.choice((0, 1, 2, 3, 0xE))])
    if r < 0.5:
        return rng.randbytes(6)
    return old


def gen_frame(rng: random.Random, mtu: int, bases=()) -> bytes:
    """One frame for a port of MTU ``mtu`` (see the module docstring)."""
    if bases and rng.random() < 0.5:
        f = bytes(rng.choice(bases))
        dst, src, rest = f[:6], f[6:12], f[12:]
    else:
        dst, src = rng.randbytes(6), rng.randbytes(6)
        rest = struct.pack("!H", rng.choice(_ETYPES) if rng.random() < 0.7 else rng.randrange(65536))
        rest += rng.randbytes(rng.randrange(0, 64))
    dst, src = _mac(rng, dst), (_mac(rng, src) if rng.random() < 0.2 else src)
    tags = b""
    for t in _pick(rng, _TAGS):
        if t == "prio":  # priority-tagged: VID 0, maybe PCP 0 as well (a TCI of 0)
            tags += struct.pack("!HH", 0x8100, rng.choice((0, rng.randrange(8) << 13)))
        else:
            tags += struct.pack("!HH", t, rng.randrange(65536))
    f = dst + src + tags + rest
    r = rng.random()
    if r < 0.3:
        n = len(f)
    elif r < 0.55:
        n = rng.randrange(14, 65)
    elif r < 0.72:
        n = rng.choice((1, 6, 12, 13, 14, 15, 17, 18, 19, 59, 60, 64, 1500, 1514, 1518,
                        mtu + 13, mtu + 14, mtu + 15, mtu + 17, mtu + 18, mtu + 19))
    else:
        n = rng.randrange(14, mtu + 19)
    return f[:n] if n <= len(f) else f + rng.randbytes(n - len(f))


def gen_bursts(seed: int, bases=(), n_bursts: int = 30) -> list[list[tuple[int, bytes]]]:
    """``n_bursts`` bursts of 1..16 frames (a third of them one frame), all on one ingress port --
    or, for a quarter of the bursts, each frame on a random port (:func:`mixed`)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n_bursts):
        size = 1 if rng.random() < 0.33 else rng.randrange(2, 17)
        mix = size > 1 and rng.random() < 0.25
        port = rng.choice(PORTS)
        burst = []
        for _ in range(size):
            if mix:
                port = rng.choice(PORTS)
            burst.append((port, gen_frame(rng, MTU[port], bases)))
        out.append(burst)
    return out


def mixed(burst) -> bool:
    """Frames of several ingress ports: the order in which a switch takes them is timing (BMv2 reads
    each interface on its own), so such a burst's outputs are compared per port as multisets."""
    return len({p for p, _f in burst}) > 1


# ------------------------------------------------------------------------------ targets
class VethTarget(Target):
    """A switch on the rig's veths, programmed over P4Runtime; a thread reads every host port."""

    def __init__(self, rig: Rig, kind: str, extra=()):
        super().__init__()
        self.rig, self.name = rig, kind
        if kind == "bmv2":
            self.p = Bmv2Grpc(rig)
            addr = self.p.addr
        else:
            self.p = Checkmate(rig, "--no-p4", extra=extra)
            addr = self.p.info["grpc"]
        self.connect(addr)
        self._stop = False
        self._rx = threading.Thread(target=self._loop, daemon=True, name=f"{kind}-rx")
        self._rx.start()

    def _loop(self) -> None:
        fds = {p.fileno(): n for n, p in self.rig.hosts.items()}
        while not self._stop:
            r, _, _ = select.select(list(fds), [], [], 0.1)
            for fd in r:
                n = fds[fd]
                for f in self.rig.hosts[n].recv_batch(64):
                    self._deliver(n, f)

    def inject(self, port: int, frame: bytes) -> str:
        """Send ``frame`` from the host end of ``port``; "" or the errno name the kernel gave."""
        try:
            self.rig.hosts[port].send(frame)
        except OSError as e:
            return errno.errorcode.get(e.errno, str(e.errno))
        finally:
            self.mark_sent()
        return ""

    def stop(self) -> None:
        self._halt()


@dataclass
class Run:
    """What one target did with one case: per burst {port: [hex, ...]} in order, counters."""

    bursts: list = field(default_factory=list)
    unsent: dict = field(default_factory=dict)   # errno name -> count (host side refused the frame)
    counters: dict = field(default_factory=dict)
    error: str = ""


def run_case(target: VethTarget, case: Case, compiled, bursts, idle: float) -> Run:
    run = Run()
    try:
        program_target(target, case, compiled)
        try:
            for burst in bursts:
                target.drain()
                for port, frame in burst:
                    err = target.inject(port, frame)
                    if err:
                        run.unsent[err] = run.unsent.get(err, 0) + 1
                per: dict = {}
                for p, f in target.collect(idle):
                    per.setdefault(p, []).append(f.hex())
                run.bursts.append(per)
            run.counters = read_observation(target, compiled, {}, 0.05).counters
        finally:
            unprogram_target(target, case)
    except Exception as e:  # a refused write, a dead switch: reported with the case
        run.error = f"{type(e).__name__}: {e}"[:1500]
    return run


def _subsequence(short: list, long: list) -> bool:
    it = iter(long)
    return all(x in it for x in short)


def compare(ref: Run, ours: Run, bursts, mask=None) -> tuple[list[str], int]:
    """(disagreements, ports where BMv2 lost frames ours forwarded)."""
    if ref.error or ours.error:
        return ([f"error: bmv2 {ref.error!r} ours {ours.error!r}"] if ref.error != ours.error else []), 0
    diffs, loss = [], 0
    m = mask or (lambda h: h)
    for i, (a, b) in enumerate(zip(ref.bursts, ours.bursts)):
        order = sorted if mixed(bursts[i]) else list
        for p in sorted(set(a) | set(b)):
            x, y = order(m(h) for h in a.get(p, [])), order(m(h) for h in b.get(p, []))
            if x == y:
                continue
            if len(x) < len(y) and _subsequence(x, y):
                loss += 1
                continue
            k = next((j for j, (u, v) in enumerate(zip(x, y)) if u != v), min(len(x), len(y)))
            first = lambda z: f"{len(z[k]) // 2}B {z[k][:96]}" if k < len(z) else "-"  # noqa: E731
            diffs.append(f"burst {i} port {p}: bmv2 {len(x)} frames, ours {len(y)}; frame {k}: bmv2 {first(x)} "
                         f"ours {first(y)}")
    if not loss and ref.counters != ours.counters:
        diffs.append(f"counters: bmv2 {ref.counters} != ours {ours.counters}")
    if ref.unsent != ours.unsent:
        diffs.append(f"unsendable: bmv2 run {ref.unsent} != ours {ours.unsent}")
    return diffs, loss


def _hexmask(fn):
    if fn is None:
        return None
    return lambda h: fn(bytes.fromhex(h)).hex()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0-2", help="seed range A-B or list a,b,c (one frame set per case and seed)")
    ap.add_argument("--bursts", type=int, default=30)
    ap.add_argument("--tutorials", type=Path, help="also the corpus tutorials in this folder (tut_cases.py)")
    ap.add_argument("--no-repo", action="store_true", help="only the tutorials")
    ap.add_argument("--checkmate", action="store_true", help="also p4src/checkmate.p4 with the controller's entries (star)")
    ap.add_argument("-k", default="", help="only cases whose name contains this")
    ap.add_argument("--idle", type=float, default=0.25, help="quiet time that ends a burst's collection (s)")
    ap.add_argument("--out", type=Path, help="write every disagreement as JSON here")
    ap.add_argument("--targets", default=",".join(TARGETS[1:]),
                    help=f"checkmate-switch set-ups compared with BMv2: {', '.join(TARGETS[1:] + tuple(EXTRA_TARGETS))}")
    ap.add_argument("--replay", type=Path, help="run the bursts of a disagreement JSON (written by --out) again")
    ap.add_argument("--only", default="", help="with --replay: only these bursts (indices a,b,c or A-B)")
    ap.add_argument("--tag", default="fz", help="veth name prefix (the CI test uses fv)")
    args = ap.parse_args(argv)
    seeds = _seeds(args.seeds)
    cases = [] if args.no_repo else repo_cases()
    if args.checkmate:
        cases.append(checkmate_case())
    masks = {}
    if args.tutorials:
        tut, masks = tutorial_cases(args.tutorials)
        cases += tut
    cases = [c for c in cases if args.k in c.name]
    replay = None
    if args.replay:
        rec = json.loads(args.replay.read_text())
        replay = [[(p, bytes.fromhex(h)) for p, h in b] for b in rec["bursts"]]
        if args.only:
            replay = [replay[i] for i in _seeds(args.only)]
        cases, seeds = [c for c in cases if c.name == rec["case"]], [rec["seed"]]
    report = run_all(cases, seeds, args.bursts, args.idle, masks, targets=tuple(args.targets.split(",")),
                     replay=replay, tag=args.tag)
    bad = 0
    for (name, seed), r in report.items():
        line = f"{'SAME' if not r['diffs'] else 'DIFF'} {name} seed={seed}: {r['frames']} frames in ({r['unsent']} unsendable)"
        line += f", bmv2 {r['out']} out; bmv2 lost on {r['loss']} port(s)" if r["loss"] else f", {r['out']} out"
        for t, d in r["diffs"].items():
            line += f"\n  {t}: " + "\n  ".join(x[:600] for x in d[:5])
        print(line, flush=True)
        if r["diffs"]:
            bad += 1
            if args.out:
                args.out.mkdir(parents=True, exist_ok=True)
                (args.out / f"{name}-{seed}.json").write_text(json.dumps(r, indent=1))
    total = sum(r["frames"] for r in report.values())
    print(f"{len(report) - bad}/{len(report)} (case, seed) runs identical on {args.targets}; {total} frames")
    return 1 if bad else 0


def run_all(cases, seeds, n_bursts: int, idle: float, masks=None, targets=TARGETS[1:], replay=None,
            tag: str = "fv") -> dict:
    """{(case, seed): summary} -- every case and seed on BMv2 and every target of ``targets``; one
    switch start per target.  ``replay``: these bursts instead of the seed's.  ``tag``: the veths'
    name prefix -- "fv" for the CI test, another for a run from the command line (``--tag``), so
    that the two never delete each other's interfaces (a CI run of the root tests on the same machine
    took no lock: helper p4rt37's run's fv1h went down under it, "Network is down")."""
    masks = masks or {}
    compiled, work = {}, []
    for c in cases:
        ref = compile_p4c(c)
        if isinstance(ref, str):
            print(f"SKIP {c.name}: p4c rejects it: {ref[:200]}")
            continue
        ours = compile_checkmate(c)
        compiled[c.name] = {"bmv2": ref, "cm-json": ref, "cm-p4": ours}
        for t, (by, _extra) in EXTRA_TARGETS.items():
            compiled[c.name][t] = ref if by == "p4c" else ours
        bases = [f for _p, f in c.frames]
        for s in seeds:
            work.append((c, s, replay or gen_bursts(s * 1000 + sum(map(ord, c.name)), bases, n_bursts)))
    runs: dict = {}
    with Rig(ports=PORTS, tag=tag, mtu=MTU) as rig:
        for t in ("bmv2",) + tuple(targets):
            target = VethTarget(rig, "bmv2" if t == "bmv2" else "checkmate", EXTRA_TARGETS.get(t, ("", ()))[1])
            try:
                for c, s, bursts in work:
                    runs[(c.name, s, t)] = run_case(target, c, compiled[c.name][t], bursts, idle)
            finally:
                target.stop()
    report = {}
    for c, s, bursts in work:
        ref = runs[(c.name, s, "bmv2")]
        diffs, loss = {}, 0
        for t in targets:
            d, lost = compare(ref, runs[(c.name, s, t)], bursts, _hexmask(masks.get(c.name)))
            loss = max(loss, lost)
            if d:
                diffs[t] = d
        report[(c.name, s)] = {
            "case": c.name, "seed": s, "frames": sum(len(b) for b in bursts), "unsent": sum(ref.unsent.values()),
            "out": sum(len(v) for b in ref.bursts for v in b.values()), "loss": loss, "diffs": diffs,
            "bursts": [[(p, f.hex()) for p, f in b] for b in bursts] if diffs else [],
            "outputs": {t: runs[(c.name, s, t)].bursts for t in ("bmv2",) + tuple(targets)} if diffs else {}}
    return report


def _seeds(text: str) -> list[int]:
    if "-" in text:
        a, b = text.split("-")
        return list(range(int(a), int(b) + 1))
    return [int(x) for x in text.split(",")]


if __name__ == "__main__":
    sys.exit(main())
