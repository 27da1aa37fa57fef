"""``checkmate-switch``: the embedded v1model switch, a drop-in for ``simple_switch_grpc``.

    checkmate-switch -i 1@veth1 -i 2@veth2 --cpu-port 255 --grpc-server-addr 127.0.0.1:50051 prog.p4
    checkmate-switch --no-p4 -i 1@udp:127.0.0.1:0:127.0.0.1:40001 --grpc-server-addr 127.0.0.1:0

PROGRAM is a ``.p4`` file (compiled on the fly with :func:`switch.compiler.compile_file`)
or a device config written by ``checkmate-p4c`` (JSON; its P4Info is rebuilt from the
IR, or read from ``--p4info``).  Without PROGRAM, or with ``--no-p4``, the switch
drops every packet until a controller sends SetForwardingPipelineConfig.

Traffic manager per egress port: ``--tm PORT:key=value[,key=value]`` (``*`` for all
ports) with keys ``queue_depth``/``depth``, ``rate_bps``/``rate`` (``10G``, ``250M``),
``drop_prob``/``drop``, ``delay_s``/``delay``, ``lossless``, ``pause_timeout_s``;
changed at run time through ``--tm-server-addr`` (JSON lines; :mod:`switch.tm_client`).

When everything listens, one line goes to stdout::

    checkmate-switch READY {"grpc": "127.0.0.1:50051", "tm": "127.0.0.1:9600" | null,
                            "ports": {"1": "veth1", "2": "udp:127.0.0.1:40000->127.0.0.1:40001"}}

so that a parent that asked for port 0 learns the real ports.
"""
from __future__ import annotations

import argparse
import json
from dataclasses import asdict
import logging
import os
import signal
import sys
import threading

from switch import cli_compat
from switch.ready import format_ready
from switch.runtime import DROP_PORT, TargetOptions
from switch.tracelog import MAX_FILES, MAX_SIZE, RotatingFile, TraceLog

log = logging.getLogger("checkmate.switch")

#: ``--log-level`` values: simple_switch_grpc's (trace, debug, info, warn, error, off) and ``warning``
LOG_LEVELS = {"trace": logging.DEBUG, "debug": logging.DEBUG, "info": logging.INFO, "warn": logging.WARNING,
              "warning": logging.WARNING, "error": logging.ERROR, "off": logging.CRITICAL + 10}


def _addr(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise argparse.ArgumentTypeError(f"{text!r}: expected HOST:PORT")
    try:
        return host, int(port)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: port {port!r} is not an integer") from None


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="checkmate-switch",
                                 description="Embedded P4 (v1model) switch with a P4Runtime server "
                                             "(drop-in for simple_switch_grpc).")
    ap.add_argument("program", nargs="?", help=".p4 source or checkmate-p4c JSON device config")
    ap.add_argument("-i", "--interface", action="append", default=[], metavar="PORT@IFACE",
                    help="attach a port: N@IFACE (AF_PACKET, root) or N@udp:LHOST:LPORT:RHOST:RPORT")
    ap.add_argument("--device-id", type=int, default=0)
    ap.add_argument("--cpu-port", type=int, default=None, help="port number of the CPU (PacketIn/PacketOut)")
    ap.add_argument("--no-p4", action="store_true", help="start without a program; wait for SetForwardingPipelineConfig")
    ap.add_argument("--grpc-server-addr", default="127.0.0.1:9559", type=_addr, metavar="HOST:PORT")
    ap.add_argument("--p4info", help="P4Info (text or binary) for a JSON PROGRAM; default: rebuilt from the IR")
    ap.add_argument("-I", dest="include", action="append", default=[], help="include dir when compiling a .p4")
    ap.add_argument("--pcap", metavar="DIR", nargs="?", const=".",
                    help="write <iface>_in.pcap / <iface>_out.pcap per port into DIR (default: the current "
                         "directory; a UDP port's label is its number)")
    ap.add_argument("--thrift-port", type=int, default=None,
                    help="accepted for simple_switch_grpc compatibility and ignored (no Thrift server)")
    ap.add_argument("--log-console", action="store_true", help="per-packet trace to stderr")
    ap.add_argument("--log-file", metavar="NAME", help="per-packet trace to NAME.txt (rotated as BMv2 does)")
    ap.add_argument("-L", "--log-level", default="info", type=str.lower, choices=list(LOG_LEVELS),
                    metavar="{trace,debug,info,warn,error,off}",
                    help="simple_switch_grpc's levels (warning = warn; trace = debug here, the per-packet "
                         "trace is --log-console/--log-file); default info")
    ap.add_argument("--tm", action="append", default=[], metavar="PORT:key=value,...",
                    help="traffic-manager settings of an egress port (repeatable; '*' = all ports)")
    ap.add_argument("--tm-server-addr", type=_addr, default=None, metavar="HOST:PORT",
                    help="serve the run-time TM control channel here (port 0: pick one)")
    ap.add_argument("--seed", type=int, default=None, help="seed of the TM's fault-injection RNG")
    ap.add_argument("--send-order", choices=("frame", "batch"), default="batch",
                    help="batch (default): every output after its receive batch (fewer receiver wake-ups, less "
                         "switch CPU); frame: a frame to an unshaped, non-lossless port leaves as soon as its "
                         "egress pass ends (earlier forwards); per-port order is the same")
    ap.add_argument("--tx-ring", action="store_true",
                    help="AF_PACKET ports send through a PACKET_TX_RING: one send() per port and receive batch "
                         "(less CPU with large batches, more with single frames; docs/SWITCH.md)")
    cli_compat.add_options(ap)
    return ap


def load_program(path: str, include=(), p4info_path: str | None = None):
    """Return (device_config dict, P4Info) for a .p4 file or a compiled JSON device config; the
    P4Info is None for p4c's BMv2 JSON given without ``--p4info``."""
    from p4.config.v1 import p4info_pb2

    if path.endswith(".p4"):
        from switch.compiler import compile_file
        prog = compile_file(path, include_dirs=include)
        return prog.device_config, prog.p4info
    with open(path, "rb") as f:
        raw = f.read()
    try:
        ir = json.loads(raw)
    except ValueError as exc:
        raise ValueError(f"{path}: not a .p4 file and not a JSON device config: {exc}") from None
    p4info = None
    if p4info_path:
        p4info = p4info_pb2.P4Info()
        data = open(p4info_path, "rb").read()
        try:
            from google.protobuf import text_format
            text_format.Parse(data.decode(), p4info)
        except (UnicodeDecodeError, Exception):
            p4info = p4info_pb2.P4Info.FromString(data)
    from switch.bmv2json import Bmv2JsonError, is_bmv2_json, translate
    if is_bmv2_json(ir):
        _check_json_version(path, ir)
        # p4c --target bmv2 output, as simple_switch_grpc takes it: ids come from p4c's P4Info.
        # Without one (the p4lang tutorials start the switch with the JSON alone and push JSON +
        # P4Info later), the data plane runs it with private ids and P4Runtime has no pipeline
        # until SetForwardingPipelineConfig, as on simple_switch_grpc (P4Info None)
        try:
            return translate(ir, p4info), p4info
        except Bmv2JsonError as exc:
            raise ValueError(f"{path}: {exc}") from None
    if p4info is not None:
        return ir, p4info
    from switch.compiler.p4info import build_p4info
    return ir, build_p4info(ir)


def _check_json_version(path: str, ir: dict) -> None:
    """simple_switch_grpc refuses to start with a BMv2 JSON whose ``__meta__.version`` is not 2.x up
    to 2.24 (it takes any through P4Runtime: so does SetForwardingPipelineConfig here)."""
    version = (ir.get("__meta__") or {}).get("version")
    if not (isinstance(version, list) and len(version) == 2 and all(isinstance(v, int) for v in version)):
        return   # no tag: BMv2 reads it as the current version
    major, minor = version
    if major != 2:
        raise ValueError(f"{path}: a BMv2 JSON of major version 2 is required; this one is tagged {major}.{minor}")
    if minor > 24:
        raise ValueError(f"{path}: the most recent BMv2 JSON version supported is 2.24; this one is tagged 2.{minor}")


def _setup_logging(args) -> TraceLog | None:
    logging.basicConfig(level=LOG_LEVELS[args.log_level], stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if not (args.log_console or args.log_file):
        return None
    file = None
    if args.log_file:
        file = RotatingFile(args.log_file, MAX_SIZE if args.log_file_max_size is None else args.log_file_max_size,
                            MAX_FILES if args.log_file_max_files is None else args.log_file_max_files)
    return TraceLog(console=args.log_console, file=file)


def normalize_argv(argv: list[str]) -> list[str]:
    """simple_switch_grpc puts target options after ``--`` (``prog.json -- --cpu-port 255``);
    accept that form by dropping the separator."""
    return [a for a in argv if a != "--"]


def main(argv=None) -> int:
    argv = normalize_argv(list(sys.argv[1:] if argv is None else argv))
    args = build_parser().parse_args(argv)
    if args.version:
        print(f"checkmate-switch {_version()} (simple_switch_grpc 1.15.5's command line and behaviour)")
        return 0
    if args.json_version:
        print(cli_compat.JSON_VERSION)
        return 0
    try:
        notes = cli_compat.check(args)
        opts = TargetOptions(drop_port=DROP_PORT if args.drop_port is None else args.drop_port,
                             priority_queues=1 if args.priority_queues is None else args.priority_queues,
                             dump_packet_data=args.dump_packet_data)
        credentials = cli_compat.server_credentials(args)
        trace = _setup_logging(args)
    except (ValueError, OSError) as exc:
        print(f"checkmate-switch: error: {exc}", file=sys.stderr)
        return 2
    for note in notes:
        log.info("%s", note)

    from p4.v1 import p4runtime_pb2

    from .daemon import Switch
    from .p4rt_server import serve
    from .p4rt_server.errors import P4RTError
    from .ports import open_port, parse_port_spec
    from .tm import TMControlServer, TrafficManager, parse_tm_flag

    try:
        specs = [parse_port_spec(s) for s in args.interface]
        nums = [s.number for s in specs]
        dup = {n for n in nums if nums.count(n) > 1}
        if dup:
            raise ValueError(f"-i: port number(s) {sorted(dup)} given twice")
        if args.cpu_port == 0:   # simple_switch_grpc exits (status 1) on it too
            raise ValueError("--cpu-port 0: 0 is not a valid CPU port (simple_switch_grpc refuses it as well)")
        if args.cpu_port is not None and args.cpu_port in nums:
            raise ValueError(f"--cpu-port {args.cpu_port} is also a data port")
        tm_flags = [parse_tm_flag(t) for t in args.tm]
        for port, _ in tm_flags:
            if port is not None and port not in nums:
                raise ValueError(f"--tm: port {port} is not attached with -i (ports: {nums})")
        program = None
        if args.program and not args.no_p4:
            program = load_program(args.program, args.include, args.p4info)
    except Exception as exc:  # bad flags or program: say what and where, exit 2
        print(f"checkmate-switch: error: {exc}", file=sys.stderr)
        return 2

    ports = []
    try:
        for s in specs:
            ports.append(open_port(s, tx_ring=args.tx_ring))
    except (OSError, ValueError) as exc:
        for p in ports:
            p.close()
        print(f"checkmate-switch: error: {exc}", file=sys.stderr)
        return 2

    tm = TrafficManager(seed=args.seed)
    sw = Switch(ports, tm, cpu_port=args.cpu_port, pcap_dir=args.pcap, trace=trace,
                send_order=args.send_order, target_options=opts)
    for port, changes in tm_flags:
        tm.configure(port, changes)
    host, gport = args.grpc_server_addr
    try:
        server, service, bound = serve(sw, f"{host}:{gport}", device_id=args.device_id, credentials=credentials)
    except (OSError, RuntimeError) as exc:
        sw.stop()
        print(f"checkmate-switch: error: P4Runtime server: {exc}", file=sys.stderr)
        return 2
    tm_srv = None
    if args.tm_server_addr:
        tm_srv = TMControlServer(tm, *args.tm_server_addr, switch_stats=lambda: asdict(sw.stats))
    if program is not None and program[1] is None:
        # p4c's JSON without its P4Info: the data plane runs it, P4Runtime answers FAILED_PRECONDITION
        # ("no forwarding pipeline") until a controller sets one -- simple_switch_grpc's behaviour
        from .runtime import Pipeline
        try:
            sw.install(Pipeline(program[0]))
        except Exception as exc:  # noqa: BLE001 -- a JSON the loader cannot run: say so, exit 2
            print(f"checkmate-switch: error: {args.program}: {exc}", file=sys.stderr)
            server.stop(0)
            sw.stop()
            return 2
        log.info("%s runs without a P4Info: P4Runtime has no pipeline until SetForwardingPipelineConfig "
                 "(give --p4info to serve it from the start)", args.program)
    elif program is not None:
        ir, p4info = program
        cfg = p4runtime_pb2.ForwardingPipelineConfig(p4_device_config=json.dumps(ir).encode())
        cfg.p4info.CopyFrom(p4info)
        try:
            service.load_initial(cfg)
        except P4RTError as exc:
            print(f"checkmate-switch: error: {args.program}: {exc.message}", file=sys.stderr)
            server.stop(0)
            sw.stop()
            return 2
    sw.start()

    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    ready = {"grpc": f"{host}:{bound}",
             "tm": f"{tm_srv.address[0]}:{tm_srv.address[1]}" if tm_srv else None,
             "ports": {str(p.number): p.describe() for p in ports},
             "pid": os.getpid()}
    print(format_ready(ready), flush=True)
    log.info("device %d: %d ports, cpu port %s, P4Runtime on %s:%d, program %s", args.device_id,
             len(ports), args.cpu_port, host, bound, args.program if program else "(none: waiting)")
    done.wait()
    log.info("shutting down")
    server.stop(0.5)
    service.close()
    if tm_srv:
        tm_srv.close()
    sw.stop()
    if trace is not None:
        trace.close()
    return 0


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("checkmate-testbed")
    except PackageNotFoundError:   # run from a source tree that was not installed
        return "(source tree)"


if __name__ == "__main__":
    sys.exit(main())
