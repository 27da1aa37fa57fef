"""simple_switch_grpc's command line, as ``checkmate-switch`` takes it.

A drop-in has to start where ``simple_switch_grpc`` starts.  The p4lang tutorials' Mininet
runner (``utils/p4runtime_switch.py``), for one, always passes ``--nanolog
ipc:///tmp/bm-N-log.ipc`` and ``--device-id N``, puts ``--grpc-server-addr`` after ``--`` and
may add ``--cpu-port`` and ``--priority-queues``.  Every option of simple_switch_grpc 1.15.5
is taken -- the general ones before ``--``, the target ones after it (the separator itself is
dropped, so either place works) -- in one of three ways:

* **implemented** (:mod:`switch.cli` and below): ``-i``, ``--pcap``, ``--device-id``, ``--no-p4``,
  ``--log-console``, ``--log-file NAME`` (writes ``NAME.txt``, rotated as BMv2 rotates it:
  ``--log-file-max-size``, ``--log-file-max-files``; :mod:`switch.tracelog`), ``--log-flush``
  (always on), ``-L``, ``--dump-packet-data N`` (the first N bytes of every packet received
  from a port and sent to one, in the trace), ``-v``/``--version``, ``--json-version`` (and
  a program's JSON version checked as BMv2 checks it at start),
  ``--grpc-server-addr``, TLS (``--grpc-server-ssl``, ``--grpc-server-cacert``,
  ``--grpc-server-cert``, ``--grpc-server-key``, ``--grpc-server-with-client-auth``),
  ``--cpu-port``, ``--drop-port`` (what ``mark_to_drop`` writes, what drops a packet at the end
  of ingress or egress, and egress starts with ``egress_spec`` = drop port + 1, as measured on
  BMv2) and ``--priority-queues`` (a packet whose ``standard_metadata.priority`` is not below it
  is dropped when it is enqueued);
* **accepted with no effect here**, said once in the log at start (:data:`NO_EFFECT`):
  options that configure parts checkmate-switch does not have -- a Thrift server, nanomsg
  event and notification sockets, JSON swapping, limits simple_switch does not enforce either
  (``--max-port-count``) or that this switch does not keep (the multicast engine's table
  sizes);
* **refused** (exit status 2, named, :data:`REFUSED`): options whose effect a run would depend
  on and that are not implemented -- packet I/O through pcap files or a nanomsg socket, restoring
  a saved BMv2 state, loading extern modules (.so), a gRPC data plane.  Silently ignoring them
  would lose packets or state without a word.
"""
from __future__ import annotations

import argparse

#: the most recent BMv2 JSON version taken, as BMv2 1.15.5 prints it for ``--json-version`` (a JSON
#: given on the command line tagged past it, or with another major version, is refused as BMv2
#: refuses it: switch.cli._check_json_version); p4c 1.2.4.8 writes 2.23, which the loader of p4c's
#: JSON (switch/bmv2json) is tested on
JSON_VERSION = "2.24"

# BMv2 refuses a multicast write past these (UNKNOWN "Error when creating/modifying multicast group
# in target"), and a failed write can leave nodes behind in its engine that later writes trip over
# while P4Runtime reads show the group as before (measured): not modelled
_PRE_LIMIT = ("not enforced: the multicast engine keeps every group P4Runtime writes (BMv2 refuses writes "
              "past its limit)")

#: option -> why it changes nothing here (logged at start when given)
NO_EFFECT = {
    "thrift_port": "no Thrift server: tables, counters and multicast groups are reached through P4Runtime",
    "nanolog": "no nanomsg event log: --log-console / --log-file carry the per-packet trace",
    "notifications_addr": "no nanomsg notifications: digests and idle timeouts reach the controller "
                          "through the P4Runtime stream",
    "disable_swap": "a new pipeline is swapped in atomically between two receive batches either way",
    "max_port_count": "not enforced (simple_switch does not enforce it either)",
    "max_mc_groups": _PRE_LIMIT,
    "max_l1_entries": _PRE_LIMIT,
    "max_l2_entries": _PRE_LIMIT,
}

#: option -> why it is refused
REFUSED = {
    "use_files": "packet I/O through pcap files is not implemented: attach ports with -i "
                 "(N@IFACE, or N@udp:LHOST:LPORT:RHOST:RPORT without root); --pcap records them",
    "packet_in": "packet I/O through a nanomsg socket is not implemented: use -i N@udp:... ports",
    "restore_state": "restoring a BMv2 state file is not implemented: replay the entries through P4Runtime",
    "load_modules": "extern modules (.so) cannot be loaded into the embedded target",
    "dp_grpc_server_addr": "the gRPC data-plane interface is not implemented: use -i N@udp:... ports",
}


def add_options(ap: argparse.ArgumentParser) -> None:
    """simple_switch_grpc's options that :func:`switch.cli.build_parser` does not add itself."""
    g = ap.add_argument_group("simple_switch_grpc options")
    g.add_argument("-v", "--version", action="store_true", help="print the version and exit")
    g.add_argument("--json-version", action="store_true",
                   help=f"print the most recent BMv2 JSON version taken ({JSON_VERSION}) and exit")
    g.add_argument("--log-flush", action="store_true", help="accepted: the trace is flushed line by line always")
    g.add_argument("--log-file-max-size", type=int, default=None, metavar="BYTES",
                   help="rotate the --log-file trace past this size (default 5242880, as BMv2)")
    g.add_argument("--log-file-max-files", type=int, default=None, metavar="N",
                   help="rotated trace files kept: NAME.1.txt .. NAME.N.txt (default 3, as BMv2)")
    g.add_argument("--dump-packet-data", type=int, default=0, metavar="N",
                   help="trace the first N bytes of each packet received from and sent to a port")
    g.add_argument("--drop-port", type=int, default=None, metavar="N",
                   help="the drop port (default 511): mark_to_drop writes it, egress_spec equal to it drops")
    g.add_argument("--priority-queues", type=int, default=None, metavar="N",
                   help="queues per egress port (default 1): standard_metadata.priority must be below N")
    g.add_argument("--grpc-server-ssl", action="store_true", help="serve P4Runtime over TLS")
    g.add_argument("--grpc-server-cacert", metavar="PEM", help="CA certificate that client certificates must chain to")
    g.add_argument("--grpc-server-cert", metavar="PEM", help="the server's certificate (with --grpc-server-ssl)")
    g.add_argument("--grpc-server-key", metavar="PEM", help="the server's private key (with --grpc-server-ssl)")
    g.add_argument("--grpc-server-with-client-auth", action="store_true",
                   help="require a client certificate signed by --grpc-server-cacert")
    for name in ("nanolog", "notifications-addr", "max-port-count", "max-mc-groups", "max-l1-entries",
                 "max-l2-entries"):
        dest = name.replace("-", "_")
        g.add_argument(f"--{name}", default=None, metavar="ARG", help=f"accepted, no effect: {NO_EFFECT[dest]}")
    g.add_argument("--disable-swap", action="store_true", help=f"accepted, no effect: {NO_EFFECT['disable_swap']}")
    for name in ("use-files", "packet-in", "restore-state", "load-modules", "dp-grpc-server-addr"):
        g.add_argument(f"--{name}", default=None, metavar="ARG",
                       help=f"refused: {REFUSED[name.replace('-', '_')]}")


def check(args) -> list[str]:
    """Raise ``ValueError`` naming the first refused or inconsistent option; return the notes
    to log for options accepted with no effect here."""
    for dest, why in REFUSED.items():
        if getattr(args, dest) is not None:
            raise ValueError(f"--{dest.replace('_', '-')}: {why}")
    for dest in ("dump_packet_data",):
        if getattr(args, dest) < 0:
            raise ValueError(f"--{dest.replace('_', '-')} {getattr(args, dest)}: must not be negative")
    if args.grpc_server_ssl:
        if not (args.grpc_server_cert and args.grpc_server_key):
            raise ValueError("--grpc-server-ssl needs --grpc-server-cert and --grpc-server-key")
        if args.grpc_server_with_client_auth and not args.grpc_server_cacert:
            raise ValueError("--grpc-server-with-client-auth needs --grpc-server-cacert (the CA of the "
                             "client certificates)")
    notes = []
    if not args.grpc_server_ssl and (args.grpc_server_cacert or args.grpc_server_cert or args.grpc_server_key
                                     or args.grpc_server_with_client_auth):
        notes.append("--grpc-server-cacert/-cert/-key/-with-client-auth without --grpc-server-ssl: "
                     "P4Runtime is served in plaintext")
    for dest, why in NO_EFFECT.items():
        v = getattr(args, dest)
        if v not in (None, False):
            notes.append(f"--{dest.replace('_', '-')} {'' if v is True else v}".rstrip() + f": {why}")
    return notes


def server_credentials(args):
    """``grpc.ssl_server_credentials`` for ``--grpc-server-ssl``; None for plaintext."""
    if not args.grpc_server_ssl:
        return None
    import grpc

    def read(path: str, what: str) -> bytes:
        try:
            with open(path, "rb") as f:
                return f.read()
        except OSError as exc:
            raise ValueError(f"{what} {path}: {exc.strerror}") from None

    key = read(args.grpc_server_key, "--grpc-server-key")
    cert = read(args.grpc_server_cert, "--grpc-server-cert")
    ca = read(args.grpc_server_cacert, "--grpc-server-cacert") if args.grpc_server_cacert else None
    return grpc.ssl_server_credentials([(key, cert)], root_certificates=ca,
                                       require_client_auth=bool(args.grpc_server_with_client_auth))
