"""A replica's CPU cost on the real switch daemon, against a plain forward, on veths.

    sudo python -m benchmarks.bench_replica [--impl new=. --impl old=../main] [--rounds 3]

``benchmarks/bench_pipeline.py`` prices a replica inside one process (the pipeline alone); this
prices it where the training bench pays it: ``checkmate-switch`` (``python -m switch.cli``) on
three veths with ``p4src/checkmate.p4`` programmed over P4Runtime, its shadow port lossless as
the testbed configures it.  Host A (port 1, a trainer port) sends Checkmate FINAL chunks of the
full MTU to host B (port 2) at a fixed offered rate, in bursts like the ring's windows; both B
and the shadow S (port 3) receive them on UDP sockets.  Two phases of the same frames, rate and
length, alternating within every round:

* **fwd**: the chunks carry a job id the shard map does not know -- every table, every action
  but the copy: one frame out per frame in (the forward's cost);
* **rep**: the copied job -- one frame to B and one replica to S per frame in.

The switch's CPU (run time of all its threads, the figure the training bench reports as "switch
CPU", at ns resolution) over each phase gives

* per forward = CPU(fwd) / frames;
* per replica = (CPU(rep) - CPU(fwd)) / frames -- the PRE copy, the egress rewrite and checksum,
  the deparse, the TM's lossless port and the send on the real socket;

and their ratio (issue #16's target: <= 1.5).  A third phase, **hb** (``--iter-every``), advances the
copied job's iteration every N chunks, so the switch sends a heartbeat digest per rank and iteration
that a controller session here acknowledges: per digest and per iteration it reports the CPU of the
switch's threads other than the data plane's (gRPC stream, acks, digest timer; steady from round to
round), and beside it the whole process's hb - rep difference with its spread over rounds (the data
plane's phase-to-phase spread swamps it; docs/BENCHMARKS.md).  With several ``--impl LABEL=REPO_ROOT`` the switch
of each checkout runs in turn in every round (the same frames, sender and receivers, this
checkout's), so an old and a new data plane are compared in one run: it prints per-forward and
per-replica CPU of each, the ratio, and each implementation's CPU over the first one's.  Medians
over rounds; on a shared machine only same-run ratios mean anything.  Needs root.
"""
from __future__ import annotations

import argparse
import json
import os
import select
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

from benchmarks.bench_switch import GW_MAC, REPO, Topology, _mac, _stop, _wait_line, sh

PROGRAM = REPO / "p4src" / "checkmate.p4"
JOB_COPIED, JOB_NOT_COPIED = 1, 2
SHADOW_PORT = 48880
ITERATION_AT = 14 + 20 + 8 + 8  # Ethernet, IPv4, UDP, then the Checkmate header's iteration (and rank) fields


def chunk_frame(src_mac: str, mtu: int, job: int, seq: int = 1) -> bytes:
    """Ethernet/IPv4/UDP 10.0.1.1 -> 10.0.2.2:CHECKMATE_UDP_PORT carrying a FINAL fp32 chunk that
    fills ``mtu`` (rank 0, iteration 7, param 5: one heartbeat digest per phase at most)."""
    from checkmate.wire import CHECKMATE_UDP_PORT, FLAG_FINAL, HEADER_LEN, ChunkHeader, encode

    count = (mtu - 28 - HEADER_LEN) // 4
    payload = encode(ChunkHeader(flags=FLAG_FINAL, job_id=job, iteration=7, rank=0, bucket=0, param_id=5,
                                 offset=0, count=count, seq=seq), bytes(4 * count))
    udp = struct.pack("!HHHH", 40000, CHECKMATE_UDP_PORT, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0,
                     bytes([10, 0, 1, 1]), bytes([10, 0, 2, 2]))
    s = sum(struct.unpack("!10H", ip))
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    ip = ip[:10] + struct.pack("!H", ~s & 0xFFFF) + ip[12:]
    return _mac(GW_MAC) + _mac(src_mac) + b"\x08\x00" + ip + udp


# ---------------------------------------------------------------- roles (child processes)
def role_send(iface: str, src_mac: str, mtu: int, job: int, frames: int, rate: float, burst: int,
              iter_every: int = 0, ranks: int = 1) -> None:
    """``frames`` chunks, ``burst`` at a time, one burst every ``burst / rate`` s, from ``ranks``
    ranks in turn; with ``iter_every`` the iteration advances every that many chunks (a heartbeat
    digest per rank each time, close together as in the ring's all-gather)."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    base = chunk_frame(src_mac, mtu, job)
    n, t0 = 0, time.monotonic()
    it0 = int(t0 * 1000) % 1000000 * 1000  # never an iteration seen before
    frame_of = {}
    while n < frames:
        for _ in range(min(burst, frames - n)):
            key = (n // iter_every if iter_every else 0, n % ranks)
            f = frame_of.get(key)
            if f is None:
                frame_of.clear()
                f = frame_of[key] = (base[:ITERATION_AT] + struct.pack("!IH", (it0 + key[0]) & 0xFFFFFFFF, key[1])
                                     + base[ITERATION_AT + 6:])
            while True:
                try:
                    s.send(f)
                    break
                except BlockingIOError:
                    time.sleep(0.0001)
            n += 1
        due = t0 + n / rate
        left = due - time.monotonic()
        if left > 0:
            time.sleep(left)
    print(json.dumps({"sent": n, "s": time.monotonic() - t0}), flush=True)


def role_recv(port: int) -> None:
    """Count UDP datagrams to ``port``; print the count for every line read on stdin."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.bind(("0.0.0.0", port))
    s.setblocking(False)
    print("READY", flush=True)
    n = 0
    while True:
        r, _, _ = select.select([s, sys.stdin], [], [])
        if s in r:
            while True:
                try:
                    s.recv(65535)
                except BlockingIOError:
                    break
                n += 1
        if sys.stdin in r:
            if not sys.stdin.readline():
                return
            print(n, flush=True)


# ---------------------------------------------------------------- orchestration
def _child(args, ns, ready=True):
    cmd = ["ip", "netns", "exec", ns, sys.executable, "-m", "benchmarks.bench_replica", "--role", *map(str, args)]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, cwd=REPO)
    if ready:
        _wait_line(p, "READY", 30)
    return p


def _count(p) -> int:
    p.stdin.write("\n")
    p.stdin.flush()
    return int(_wait_line(p, "", 10))


def thread_cpu_s(pid: int) -> dict[str, float]:
    """CPU seconds of each live thread of a process (``/proc/PID/task/TID/schedstat``)."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                out[tid] = int(f.read().split()[0]) / 1e9
        except (FileNotFoundError, ProcessLookupError):
            pass
    return out


def process_cpu_s(pid: int) -> float:
    """CPU seconds of a whole process: its threads' run time in ns (``/proc/PID/task/*/schedstat``;
    ``/proc/PID/stat`` counts 10 ms ticks, too coarse for a 1 s phase).  A thread that exits
    within a phase takes its time with it; the switch's threads live as long as it does."""
    return sum(thread_cpu_s(pid).values())


def start_switch(topo: Topology, root: Path, program: Path, digest_cfg: dict | None = None, ranks: int = 1,
                 extra_args: tuple[str, ...] = ()):
    """``python -m switch.cli`` of the checkout at ``root`` on the three veths, programmed like the
    testbed: port 1 a trainer port, (job 1, any param) -> rid 1 -> group {2, 3}, rid 1 -> the shadow."""
    from controller.client import SwitchConnection
    from controller.device import INSERT, Device
    from controller.entities import Entry, McastGroup
    from controller.p4info import P4InfoIndex
    from controller.plan import HEARTBEAT_DIGEST

    env = dict(os.environ, PYTHONPATH=str(root))
    p = subprocess.Popen([sys.executable, "-m", "switch.cli", "-i", f"1@{topo.sw_a}", "-i", f"2@{topo.sw_b}",
                          "-i", f"3@{topo.sw_s}", "--tm", "3:lossless=true", "--grpc-server-addr", "127.0.0.1:0",
                          "--log-level", "warning", *extra_args, str(program)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=root, env=env)
    line = _wait_line(p, "checkmate-switch READY", 120)
    addr = json.loads(line.split(" ", 2)[2])["grpc"]
    conn = SwitchConnection(addr).connect()
    p4info, _ = conn.get_pipeline()
    dev = Device(conn, P4InfoIndex(p4info))
    gw = GW_MAC
    entries = [
        Entry("ipv4_route", {"hdr.ipv4.dstAddr": ("10.0.1.0", 24)}, "forward", {"port": 1, "smac": gw, "dmac": topo.mac_a}),
        Entry("ipv4_route", {"hdr.ipv4.dstAddr": ("10.0.2.0", 24)}, "forward", {"port": 2, "smac": gw, "dmac": topo.mac_b}),
        Entry("ipv4_route", {"hdr.ipv4.dstAddr": ("10.0.3.0", 24)}, "forward", {"port": 3, "smac": gw, "dmac": topo.mac_s}),
        Entry("trainer_port", {"standard_metadata.ingress_port": 1}, "mark_trainer"),
        *(Entry("heartbeat_slot", {"hdr.checkmate.job_id": JOB_COPIED, "hdr.checkmate.rank": r},
                "set_heartbeat_slot", {"slot": r}) for r in range(ranks)),
        Entry("shard_map", {"hdr.checkmate.job_id": JOB_COPIED, "hdr.checkmate.param_id": (0, 1 << 20)},
              "set_shard", {"rid": 1}, priority=1),
        Entry("replication", {"meta.out_port": 2, "meta.shard_rid": 1}, "replicate", {"group": 1}),
        Entry("shadow_rewrite", {"standard_metadata.egress_rid": 1}, "to_shadow",
              {"mac": topo.mac_s, "ip": "10.0.3.3", "udp_port": SHADOW_PORT}),
    ]
    dev.write([dev.group_update(INSERT, McastGroup.of(1, [(2, 0), (3, 1)])),
               dev.digest_update(INSERT, HEARTBEAT_DIGEST, **(digest_cfg or {}))]
              + [dev.entry_update(INSERT, e) for e in entries], "bench_replica")
    return p, conn


def per_round(ph: dict, iter_every: int) -> dict:
    """Per-frame figures of one round's phases.  CPU is divided by the chunks the switch forwarded
    (B's count): a frame the kernel dropped before the switch read it cost the switch nothing."""
    fwd, rep = ph["fwd"], ph["rep"]
    fwd_us = fwd["cpu_s"] / max(1, fwd["to_b"]) * 1e6
    rep_us = rep["cpu_s"] / max(1, rep["to_b"]) * 1e6
    row = {"fwd_us": fwd_us, "rep_total_us": rep_us, "replica_us": rep_us - fwd_us, "phases": ph,
           "complete": all(p["to_b"] == p["sent"] and p["to_shadow"] == (0 if m == "fwd" else p["sent"])
                           for m, p in ph.items())}
    row["ratio"] = row["replica_us"] / fwd_us if fwd_us > 0 else float("nan")
    hb = ph.get("hb")
    if hb:
        iters = max(1.0, hb["to_b"] / iter_every)
        # the heartbeat phase less what its frames cost in the rep phase: the whole process.  This is
        # the difference of two ~0.7 s phases whose data-plane CPU alone differs by +-10 % from one
        # phase to the next (+-60 ms, more than the digests' whole cost): a figure with a spread of
        # several hundred us per digest, kept for reference (``digest_us``, ``digests_per_iter_total_us``)
        extra_s = hb["cpu_s"] - rep_us * 1e-6 * hb["to_b"]
        row["digest_us"] = extra_s * 1e6 / max(1, hb["digests"])
        row["digests_per_iter_total_us"] = extra_s * 1e6 / iters
        # the same from the threads other than the data plane's alone: what the digests cost outside the
        # packet path (gRPC stream, acks, timer), steady to a few us from round to round.  The data
        # plane's own part (DigestEngine.offer, a few us per digest: docs/SWITCH.md) is below this
        # bench's resolution, so the per-iteration figure is this one
        other_s = hb["other_threads_cpu_s"] - rep["other_threads_cpu_s"] / max(1, rep["to_b"]) * hb["to_b"]
        row["digest_other_threads_us"] = other_s * 1e6 / max(1, hb["digests"])
        # per iteration: the heartbeats of all ranks of one iteration
        row["digests_per_iter_us"] = other_s * 1e6 / iters
    return row


MODES = {"fwd": (JOB_NOT_COPIED, False), "rep": (JOB_COPIED, False), "hb": (JOB_COPIED, True)}


def phase(topo: Topology, sw_pid: int, rx_b, rx_s, mode: str, args, pump) -> dict:
    """One sender run through the switch; the switch's CPU over it and what B and S received."""
    job, beats = MODES[mode]
    b0, s0, d0 = _count(rx_b), _count(rx_s), pump.count
    t0 = thread_cpu_s(sw_pid)
    c0 = sum(t0.values())
    tx = _child(["send", topo.if_a, topo.mac_a, args.mtu, job, args.frames, args.rate, args.burst,
                 args.iter_every if beats else 0, args.ranks], topo.ns_a, ready=False)
    out, err = tx.communicate(timeout=args.frames / args.rate + 60)
    if tx.returncode:
        raise RuntimeError(f"sender failed: {err[-2000:]}")
    # the switch has drained when B's count stops moving
    last, still = -1, 0
    while still < 3:
        time.sleep(0.1)
        now = _count(rx_b)
        still = still + 1 if now == last else 0
        last = now
    t1 = thread_cpu_s(sw_pid)
    c1 = sum(t1.values())
    # the data plane is the busiest thread; the others serve P4Runtime (digests, acks) and the TM
    per = sorted((t1[t] - t0.get(t, 0.0) for t in t1), reverse=True)
    return {"mode": mode, "sent": json.loads(out.strip().splitlines()[-1])["sent"], "to_b": last - b0,
            "to_shadow": _count(rx_s) - s0, "digests": pump.count - d0, "cpu_s": c1 - c0,
            "other_threads_cpu_s": sum(per[1:])}


class DigestPump:
    """The controller's side of the heartbeat digests: drain every DigestList and acknowledge it."""

    def __init__(self, conn):
        self.conn, self.count = conn, 0
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _run(self):
        while not self.conn.stream_ended.is_set():
            for dl in self.conn.digests(timeout=0.2):
                self.count += len(dl.data)
                self.conn.ack(dl)


def run(impls: list[tuple[str, Path]], args) -> dict:
    rounds: dict[str, list[dict]] = {label: [] for label, _ in impls}
    digest_cfg = {}  # the controller's own defaults (controller.device.Device.digest_update) unless given
    if args.digest_list is not None:
        digest_cfg["max_list_size"] = args.digest_list
    if args.digest_timeout_ms is not None:
        digest_cfg["max_timeout_ns"] = int(args.digest_timeout_ms * 1e6)
    with Topology(tag=f"{os.getpid() % 10000}r", mtu=args.mtu, shadow=True) as topo:
        rx_b = _child(["recv", 48879], topo.ns_b)
        rx_s = _child(["recv", SHADOW_PORT], topo.ns_s)
        try:
            for r in range(args.rounds):
                order = impls if r % 2 == 0 else impls[::-1]
                for label, root in order:
                    sw, conn = start_switch(topo, root, args.program, digest_cfg, args.ranks,
                                            tuple(args.switch_args.get(label, ())))
                    pump = DigestPump(conn)
                    try:
                        modes = ["fwd", "rep"] + (["hb"] if args.iter_every else [])
                        ph = {m: phase(topo, sw.pid, rx_b, rx_s, m, args, pump)
                              for m in (modes if r % 2 == 0 else modes[::-1])}
                    finally:
                        conn.close()
                        _stop(sw)
                    row = per_round(ph, args.iter_every)
                    rounds[label].append(row)
                    hb = ph.get("hb")
                    print(f"round {r + 1} {label:6s} forward {row['fwd_us']:6.1f} us/frame  replica "
                          f"{row['replica_us']:6.1f} us  ratio {row['ratio']:.2f}"
                          + (f"  digest {row['digest_other_threads_us']:4.0f} us off the data plane "
                             f"({row['digest_us']:.0f} us whole process, noisy; {hb['digests']} digests)" if hb else "")
                          + f"  [to B/S per phase: " + ", ".join(f"{m} {p['to_b']}/{p['to_shadow']} of {p['sent']}"
                                                                for m, p in ph.items()) + "]"
                          + ("" if row["complete"] else "  (frames lost: the switch fell behind, round left out)"),
                          flush=True)
        finally:
            for p in (rx_b, rx_s):
                _stop(p)
    summary = {}
    base = None
    for label, _ in impls:
        rows = [r for r in rounds[label] if r["complete"]] or rounds[label]
        med = {k: statistics.median(r[k] for r in rows) for k in
               ("fwd_us", "replica_us", "rep_total_us", "ratio", "digest_us", "digests_per_iter_us",
                "digests_per_iter_total_us", "digest_other_threads_us") if k in rows[0]}
        summary[label] = med
        base = base or med
        print(f"{label:6s} median over {len(rows)} round(s): forward {med['fwd_us']:.1f} us/frame, replica "
              f"{med['replica_us']:.1f} us, replica/forward {med['ratio']:.2f} (goal <= 1.5); switch CPU per "
              f"copied chunk (forward + replica) {med['rep_total_us']:.1f} us = "
              f"{med['rep_total_us'] / base['rep_total_us']:.2f}x {impls[0][0]}"
              + (f"; a heartbeat digest {med['digest_other_threads_us']:.0f} us off the data plane, an "
                 f"iteration's {args.ranks} {med['digests_per_iter_us']:.0f} us (whole-process difference "
                 f"{med['digest_us']:.0f} us per digest, rounds {min(r['digest_us'] for r in rows):.0f} to "
                 f"{max(r['digest_us'] for r in rows):.0f}: phase-to-phase noise)"
                 if "digest_us" in med else ""), flush=True)
    return {"summary": summary, "rounds": rounds, "mtu": args.mtu, "frames": args.frames, "rate": args.rate,
            "burst": args.burst}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--role", nargs="+", help=argparse.SUPPRESS)
    ap.add_argument("--impl", action="append", default=[], metavar="LABEL=REPO_ROOT",
                    help="a checkout whose switch to measure (repeatable; default: this one, as 'this')")
    ap.add_argument("--switch-arg", action="append", default=[], metavar="LABEL=ARG",
                    help="an extra checkmate-switch argument for the --impl LABEL (repeatable; e.g. "
                         "--impl frame=. --impl batch=. --switch-arg batch=--send-order=batch)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--frames", type=int, default=20000, help="chunks per phase")
    ap.add_argument("--rate", type=float, default=15000, help="offered chunks/s")
    ap.add_argument("--burst", type=int, default=16, help="chunks per burst (the ring sends windows)")
    ap.add_argument("--iter-every", type=int, default=200,
                    help="a third phase 'hb': the copied job's iteration advances every N chunks, so the switch "
                         "sends a heartbeat digest (acknowledged by this process) each time; 0: no such phase")
    ap.add_argument("--ranks", type=int, default=3, help="ranks the chunks come from, in turn (heartbeat slots)")
    ap.add_argument("--digest-list", type=int, default=None,
                    help="DigestEntry max_list_size (default: the controller's, controller.device.DIGEST_MAX_LIST_SIZE)")
    ap.add_argument("--digest-timeout-ms", type=float, default=None,
                    help="DigestEntry max_timeout in ms (default: the controller's)")
    ap.add_argument("--mtu", type=int, default=1500)
    ap.add_argument("--program", type=Path, default=PROGRAM)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)
    if args.role:
        role, *rest = args.role
        if role == "send":
            role_send(rest[0], rest[1], int(rest[2]), int(rest[3]), int(rest[4]), float(rest[5]), int(rest[6]),
                      int(rest[7]), int(rest[8]))
        elif role == "recv":
            role_recv(int(rest[0]))
        return 0
    if os.geteuid() != 0:
        print("bench_replica: needs root (network namespaces, AF_PACKET)", file=sys.stderr)
        return 2
    impls = []
    args.switch_args = {}
    for spec in args.switch_arg:
        label, sep, arg = spec.partition("=")
        if not sep or not arg:
            ap.error(f"--switch-arg {spec!r}: expected LABEL=ARG")
        args.switch_args.setdefault(label, []).append(arg)
    for spec in args.impl or [f"this={REPO}"]:
        label, sep, root = spec.partition("=")
        if not sep or not (Path(root) / "switch" / "cli.py").exists():
            ap.error(f"--impl {spec!r}: expected LABEL=REPO_ROOT of a checkout with switch/cli.py")
        impls.append((label, Path(root).resolve()))
    unknown = set(args.switch_args) - {label for label, _ in impls}
    if unknown:
        ap.error(f"--switch-arg for {', '.join(sorted(unknown))}: no such --impl label")
    print(f"replica vs forward on the real checkmate-switch; {args.program.name}, MTU {args.mtu}, {args.frames} "
          f"chunks per phase at {args.rate:.0f}/s in bursts of {args.burst}; {args.rounds} round(s); "
          f"switches: {', '.join(f'{l}={r}' + ''.join(' ' + a for a in args.switch_args.get(l, ())) for l, r in impls)}",
          flush=True)
    out = run(impls, args)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
