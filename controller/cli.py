"""``checkmate-ctl``: program Checkmate switches and look inside them.

Switches come from ``--switch HOST:PORT[/DEVICE_ID]`` (repeatable) or from
``--topology FILE`` (every switch of the topology, with its device id).  Every command
prints rich tables, or JSON with ``--json`` (integer values, keyed by switch name).

Read-only commands (``tables``, ``entries``, ``counters``, ``mcast``, ``shards``) open no
arbitration stream, so they never disturb the primary controller.  ``program`` and
``heartbeats`` arbitrate with ``--election-id`` (digests go only to the primary).

Exit codes: 0 ok, 1 error (a sentence on stderr), 2 usage, 3 ``heartbeats`` found hung ranks.
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from dataclasses import dataclass

import grpc

from .artifacts import load_artifacts
from .client import SwitchConnection
from .device import Device
from .errors import ControllerError
from .p4info import P4InfoError, P4InfoIndex
from .reconcile import program_topology
from .topology import Topology, TopologyError, ranges_from_owner
from .views import counters_view, human, job_totals, shards_view, tables_view
from .watchdog import DigestPump, Watchdog

EXIT_HUNG = 3


@dataclass(frozen=True)
class Target:
    name: str
    addr: str
    device_id: int


def parse_switch(spec: str, default_device: int) -> Target:
    addr, _, dev = spec.partition("/")
    if ":" not in addr:
        raise argparse.ArgumentTypeError(f"--switch {spec!r}: expected HOST:PORT[/DEVICE_ID]")
    try:
        device_id = int(dev) if dev else default_device
    except ValueError:
        raise argparse.ArgumentTypeError(f"--switch {spec!r}: device id {dev!r} is not an integer") from None
    return Target(addr, addr, device_id)


def targets(args) -> tuple[list[Target], Topology | None]:
    topo = Topology.load(args.topology) if args.topology else None
    ts = [parse_switch(s, args.device_id) for s in args.switch or []]
    if not ts and topo:
        ts = [Target(n, s.grpc_addr, s.device_id) for n, s in topo.switches.items()]
    if not ts:
        ts = [Target("127.0.0.1:50051", "127.0.0.1:50051", args.device_id)]
    return ts, topo


def tls_credentials(args):
    """``--ssl-ca`` [``--ssl-cert`` ``--ssl-key``]: TLS to switches started with ``--grpc-server-ssl``
    (a client certificate where they also require one); None: plaintext."""
    if not args.ssl_ca:
        if args.ssl_cert or args.ssl_key:
            raise ControllerError("--ssl-cert/--ssl-key need --ssl-ca (the CA the switch's certificate chains to)")
        return None
    if bool(args.ssl_cert) != bool(args.ssl_key):
        raise ControllerError("--ssl-cert and --ssl-key go together (the client certificate and its key)")

    def read(path, flag):
        try:
            with open(path, "rb") as f:
                return f.read()
        except OSError as exc:
            raise ControllerError(f"{flag} {path}: {exc.strerror}") from None
    return grpc.ssl_channel_credentials(
        root_certificates=read(args.ssl_ca, "--ssl-ca"),
        private_key=read(args.ssl_key, "--ssl-key") if args.ssl_key else None,
        certificate_chain=read(args.ssl_cert, "--ssl-cert") if args.ssl_cert else None)


def open_device(t: Target, args, *, arbitrate: bool) -> Device:
    conn = SwitchConnection(t.addr, t.device_id, args.election_id, name=t.name, timeout=args.timeout,
                            credentials=tls_credentials(args))
    conn.connect(arbitrate=arbitrate)
    try:
        p4info, _ = conn.get_pipeline()
    except ControllerError:
        conn.close()
        raise
    if p4info is None:
        conn.close()
        raise ControllerError(f"switch {t.name} ({t.addr}, device {t.device_id}) has no P4 program yet; "
                              "run `checkmate-ctl program TOPOLOGY` first")
    return Device(conn, P4InfoIndex(p4info))


# -- output -----------------------------------------------------------------------------------
def emit(args, data, render) -> None:
    if args.json:
        json.dump(data, sys.stdout, indent=2, sort_keys=False)
        sys.stdout.write("\n")
    else:
        from rich.console import Console
        render(Console(), data)


def _table(title, columns, rows):
    from rich.table import Table
    t = Table(title=title, title_justify="left")
    for c in columns:
        t.add_column(c, overflow="fold")
    for r in rows:
        t.add_row(*[str(x) for x in r])
    return t


# -- commands ----------------------------------------------------------------------------------
def each_device(args, fn, arbitrate=False):
    ts, topo = targets(args)
    out = {}
    for t in ts:
        dev = open_device(t, args, arbitrate=arbitrate)
        try:
            out[t.name] = fn(dev, topo)
        finally:
            dev.conn.close()
    return out


def cmd_tables(args) -> int:
    if args.switch or args.topology:
        data = each_device(args, lambda dev, _: tables_view(dev.index))
        data = next(iter(data.values()))
    else:
        data = tables_view(load_artifacts(args.build, target=args.target).index)

    def render(con, rows):
        for t in rows:
            keys = ", ".join(f"{f['name']}:{f['match_type']}({f['bitwidth']})" for f in t["match_fields"])
            acts = "; ".join(a["name"].split(".")[-1] + "(" + ", ".join(f"{p['name']}:{p['bitwidth']}" for p in a["params"]) + ")"
                             for a in t["actions"])
            con.print(f"[bold]{t['alias']}[/bold] ({t['name']}, size {t['size']})\n  key: {keys}\n  actions: {acts}")
    emit(args, data, render)
    return 0


def cmd_entries(args) -> int:
    human_rows = {}

    def get(dev, _):
        if args.table:
            dev.index.get("tables", args.table)
        entries = dev.read_entries(args.table)
        human_rows[dev.name] = [(dev.index.short("tables", e.table), dev.format_match(e), e.priority or "",
                                 dev.format_action(e, short=True)) for e in entries]
        return [e.to_json() for e in entries]
    data = each_device(args, get)

    def render(con, per_switch):
        for sw in per_switch:
            con.print(_table(f"{sw}: {len(human_rows[sw])} entries", ["table", "match", "prio", "action"],
                             human_rows[sw]))
    emit(args, data, render)
    return 0


def _fmt_param(name, v):
    if name in ("mac", "smac", "dmac"):
        return human(v, 48, "mac")
    if name == "ip":
        return human(v, 32, "ip")
    return str(v)


def cmd_counters(args) -> int:
    data = each_device(args, lambda dev, _: counters_view(dev, args.name, args.all))

    def render(con, per_switch):
        for sw, rows in per_switch.items():
            con.print(_table(f"{sw}: counters", ["counter", "index", "packets", "bytes"],
                             [(r["counter"], r["index"], r["packets"], r["bytes"]) for r in rows]))
    emit(args, data, render)
    return 0


def cmd_mcast(args) -> int:
    data = each_device(args, lambda dev, _: [g.to_json() for g in dev.read_groups()])

    def render(con, per_switch):
        for sw, rows in per_switch.items():
            con.print(_table(f"{sw}: multicast groups", ["group", "replicas (port/rid)"],
                             [(g["group_id"], " ".join(f"{r['port']}/{r['rid']}" for r in g["replicas"]))
                              for g in rows]))
    emit(args, data, render)
    return 0


def cmd_shards(args) -> int:
    data = each_device(args, lambda dev, topo: shards_view(dev, topo))

    def render(con, per_switch):
        for sw, rows in per_switch.items():
            con.print(_table(f"{sw}: shard map", ["job", "param ids", "shard", "shadow", "address", "copies"],
                             [(r["job_id"], f"{r['param_lo']}..{r['param_hi']}", r["shard"],
                               (r["shadow"] or {}).get("host") or "-",
                               f"{human((r['shadow'] or {}).get('ip'), 32, 'ip')}:{(r['shadow'] or {}).get('udp_port')} "
                               f"{human((r['shadow'] or {}).get('mac'), 48, 'mac')}" if r["shadow"] else "no rewrite!",
                               f"{r['copies']['packets']} pkts / {r['copies']['bytes']} B" if r["copies"] else "-")
                              for r in rows]))
            for job, t in job_totals(rows).items():
                con.print(f"  job {job}: {t['packets']} copies, {t['bytes']} bytes")
    emit(args, data, render)
    return 0


def _norm_addr(addr: str) -> str:
    host, _, port = addr.rpartition(":")
    return f"{'127.0.0.1' if host in ('localhost', '') else host}:{port}"


def switches_named(topo: Topology, specs: list[str]) -> set[str]:
    """The topology switches that ``--switch`` addresses name; an address that names none is an error
    (programming nothing and exiting 0 would look like success)."""
    by_addr = {_norm_addr(sw.grpc_addr): n for n, sw in topo.switches.items()}
    only, unknown = set(), []
    for spec in specs:
        addr = _norm_addr(parse_switch(spec, 0).addr)
        if addr in by_addr:
            only.add(by_addr[addr])
        else:
            unknown.append(parse_switch(spec, 0).addr)
    if unknown:
        have = ", ".join(f"{n} at {sw.grpc_addr}" for n, sw in sorted(topo.switches.items()))
        raise ControllerError(f"--switch {', '.join(unknown)} matches no switch of topology {topo.source} "
                              f"({have}); program takes its switches, addresses and device ids from the "
                              "topology: fix switches.NAME.grpc_port there, or drop --switch to program them all")
    return only


def with_shard_plan(topology_path: str, plan_path: str) -> Topology:
    """The topology with its ``shard_map`` taken from a shard plan: the JSON that
    ``examples/ddp_train.py --print-shard-plan K`` prints (``{"owner": {param_id: shard}, ...}``)
    or a bare ``{param_id: shard}`` object -- the map the trainers compute with ``shard_plan``."""
    try:
        plan = json.loads(open(plan_path).read())
        owner = plan.get("owner", plan) if isinstance(plan, dict) else None
        owner = {int(pid): int(shard) for pid, shard in owner.items()}
    except (OSError, ValueError, TypeError, AttributeError) as e:
        raise ControllerError(f"--shard-plan {plan_path}: not a shard plan ({{param_id: shard}} or "
                              f"--print-shard-plan output): {e}") from None
    raw = json.loads(open(topology_path).read())
    raw["shard_map"] = {str(s): [list(r) for r in rs] for s, rs in ranges_from_owner(owner).items()}
    return Topology.from_dict(raw, source=f"{topology_path} + {plan_path}")


def cmd_program(args) -> int:
    path = args.topology_file or args.topology
    if not path:
        raise ControllerError("program needs a topology: checkmate-ctl program TOPOLOGY")
    topo = Topology.load(path)
    if args.shard_plan:
        topo = with_shard_plan(path, args.shard_plan)
    only = switches_named(topo, args.switch) if args.switch else None  # before anything is loaded or sent
    art = load_artifacts(args.build, target=args.target)
    reports = program_topology(topo, art, election_id=args.election_id, timeout=args.timeout, only=only,
                               force_pipeline=args.force_pipeline, credentials=tls_credentials(args))
    out = {name: rep.to_json() for name, rep in reports.items()}

    def render(con, per_switch):
        con.print(f"pipeline from {art.source}")
        con.print(_table("programmed", ["switch", "pipeline", "entries +/~/-", "groups +/~/-", "digests"],
                         [(n, "pushed" if r["pipeline_pushed"] else "kept",
                           f"{r['inserted']}/{r['modified']}/{r['deleted']}",
                           f"{r['groups_inserted']}/{r['groups_modified']}/{r['groups_deleted']}",
                           ", ".join(r["digests"])) for n, r in per_switch.items()]))
    emit(args, out, render)
    return 0


def cmd_heartbeats(args) -> int:
    ts, topo = targets(args)
    expected = [(topo.job_id, h.rank) for h in topo.trainers()] if topo else []
    wd = Watchdog(lag_threshold=args.lag, silence_s=args.silence, expected=expected)
    devs = []
    try:
        for t in ts:
            devs.append(open_device(t, args, arbitrate=True))
        watch_lines = args.watch and not args.json
        pump = DigestPump(devs, wd, on_verdict=(lambda v: print(f"!! {v}", flush=True)) if watch_lines else None,
                          on_heartbeat=(lambda hb: print(f"{hb.device}: job {hb.job_id} rank {hb.rank} "
                                                         f"iteration {hb.iteration}", flush=True))
                          if watch_lines else None).start()
        deadline = time.monotonic() + (args.duration if args.duration is not None else (1e18 if args.watch else 3.0))
        try:
            while time.monotonic() < deadline:
                time.sleep(min(0.2, max(0.0, deadline - time.monotonic())))
                pump.tick()
        except KeyboardInterrupt:
            pass
        pump.stop()
    finally:
        for d in devs:
            d.conn.close()
    snap = wd.snapshot()
    data = {"ranks": snap, "hung": [r for r in snap if r["hung"]], "digests": pump.received}

    def render(con, d):
        con.print(_table(f"heartbeats ({d['digests']} digests)", ["job", "rank", "iteration", "age (s)", "state"],
                         [(r["job_id"], r["rank"], human(r["iteration"]), human(r["age_s"]),
                           f"[red]HUNG: {r['reason']}[/red]" if r["hung"]
                           else "no heartbeat yet" if r["iteration"] is None else "ok") for r in d["ranks"]]))
    emit(args, data, render)
    return EXIT_HUNG if data["hung"] else 0


def cmd_shell(args) -> int:
    ts, _ = targets(args)
    t = ts[0]
    try:
        import p4runtime_sh  # noqa: F401  (p4runtime-shell, optional)
    except ImportError:
        p4runtime_sh = None
    if p4runtime_sh is not None:
        import runpy
        sys.argv = ["p4runtime-sh", "--grpc-addr", t.addr, "--device-id", str(t.device_id),
                    "--election-id", f"0,{args.election_id}"]
        runpy.run_module("p4runtime_sh", run_name="__main__")
        return 0
    import code
    from . import entities
    dev = open_device(t, args, arbitrate=True)
    banner = (f"checkmate-ctl shell on {t.name} ({t.addr}, device {t.device_id}); p4runtime-shell is not "
              "installed, so this is the built-in shell.\n"
              "  dev.read_entries('ipv4_route'), dev.insert(Entry(...)), dev.read_groups(), "
              "dev.read_counter('shard_replicas')\n  tables: " + ", ".join(
                  dev.index.short("tables", n) for n in dev.index.names("tables")))
    try:
        code.interact(banner=banner, local={"dev": dev, "index": dev.index, "Entry": entities.Entry,
                                            "McastGroup": entities.McastGroup})
    finally:
        dev.conn.close()
    return 0


COMMANDS = {
    "tables": (cmd_tables, "tables with match fields and actions (from the switch's P4Info, or build/)"),
    "entries": (cmd_entries, "installed table entries (all tables, or TABLE)"),
    "counters": (cmd_counters, "counter cells (non-zero unless --all)"),
    "mcast": (cmd_mcast, "multicast groups and their replicas"),
    "shards": (cmd_shards, "the shard map decoded to shadows, with copy counters"),
    "heartbeats": (cmd_heartbeats, "per job/rank iteration and age from heartbeat digests; hung ranks flagged"),
    "program": (cmd_program, "program every switch of TOPOLOGY (idempotent reconcile)"),
    "shell": (cmd_shell, "interactive P4Runtime shell on a switch"),
}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="checkmate-ctl", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    p.add_argument("--switch", action="append", metavar="HOST:PORT[/DEVICE_ID]",
                   help="a switch's P4Runtime address (repeatable)")
    p.add_argument("--topology", metavar="FILE", help="topology JSON: its switches (and names for shards)")
    p.add_argument("--device-id", type=int, default=0, help="device id for --switch without /ID (default 0)")
    p.add_argument("--election-id", type=int, default=1, help="election id when arbitrating (default 1)")
    p.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for a switch (default 5)")
    p.add_argument("--ssl-ca", metavar="PEM", help="P4Runtime over TLS: the CA of the switches' certificates")
    p.add_argument("--ssl-cert", metavar="PEM", help="TLS client certificate (switches with client auth)")
    p.add_argument("--ssl-key", metavar="PEM", help="the client certificate's private key")
    p.add_argument("--build", default=None,
                   help="build folder (default build/) with checkmate.<target>.{json,p4info.txtpb}")
    p.add_argument("--target", default="embedded", choices=("embedded", "bmv2"),
                   help="the switches' kind, for program/tables: embedded checkmate-switch (default) or BMv2 "
                        "simple_switch_grpc (p4c's pipeline, compiled now if p4c is on PATH and build/ lacks it)")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.add_argument("-v", "--verbose", action="store_true")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND")
    for name, (_, text) in COMMANDS.items():
        sp = sub.add_parser(name, help=text, description=text)
        sp.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="JSON output")
        if name == "entries":
            sp.add_argument("table", nargs="?", help="table name (full or short)")
        elif name == "counters":
            sp.add_argument("name", nargs="?", help="counter name (full or short)")
            sp.add_argument("--all", action="store_true", help="also show zero cells")
        elif name == "heartbeats":
            sp.add_argument("--watch", action="store_true", help="keep listening and print as digests arrive")
            sp.add_argument("--duration", type=float, default=None,
                            help="seconds to listen (default 3, or forever with --watch)")
            sp.add_argument("--lag", type=int, default=2, help="iterations behind that flag a rank (default 2)")
            sp.add_argument("--silence", type=float, default=30.0,
                            help="seconds without progress, while others advance, that flag a rank (default 30)")
        elif name == "program":
            sp.add_argument("topology_file", nargs="?", metavar="TOPOLOGY")
            sp.add_argument("--force-pipeline", action="store_true", help="push the pipeline even if installed")
            sp.add_argument("--shard-plan", metavar="FILE", default=None,
                            help="shard map from this plan (ddp_train.py --print-shard-plan K output) "
                                 "instead of the topology's shard_map")
    return p


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.cmd:
        parser.print_help()
        return 2
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if args.build is None:
        from checkmate.paths import BUILD
        args.build = BUILD
    try:
        return COMMANDS[args.cmd][0](args)
    except argparse.ArgumentTypeError as e:
        parser.error(str(e))
    except (ControllerError, TopologyError, P4InfoError) as e:
        print(f"checkmate-ctl {args.cmd}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
