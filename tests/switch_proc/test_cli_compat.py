"""checkmate-switch started the way simple_switch_grpc is started (switch/cli_compat.py): the p4lang
tutorials' command line (p4c's JSON alone, --nanolog, target options after ``--``), the options it
refuses or takes with no effect, ``--log-file`` as BMv2 names and rotates it, ``--dump-packet-data``,
``--version``/``--json-version`` and P4Runtime over TLS.  (What ``--drop-port`` and
``--priority-queues`` do to packets is compared with real BMv2 in
tests/differential/test_target_options.py.)"""
from __future__ import annotations

import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2 as P
from p4.v1 import p4runtime_pb2_grpc

from switch.cli_compat import JSON_VERSION, NO_EFFECT, REFUSED
from switch.tracelog import RotatingFile
from tests.p4rt_raw import pipeline_config

REPO = Path(__file__).resolve().parents[2]
FROZEN = REPO / "tests" / "bmv2compat" / "p4c_out"   # real p4c's output, kept in the repo (freeze.py)


def run_cli(*args, timeout=30):
    return subprocess.run([sys.executable, "-m", "switch.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, cwd=REPO)


def fwd_frame(port: int) -> bytes:
    """tests/conformance/programs/fwd.p4, op 0: egress_spec = port (plen and iport written back)."""
    return bytes.fromhex("0000000000020000000000010800") + struct.pack("!BHHIH", 0, port, 0, 0, 0) + bytes(20)


def test_p4lang_tutorials_command_line(start_switch, connect, hosts, tmp_path):
    """utils/p4runtime_switch.py of p4lang/tutorials: ports, --pcap, --nanolog, --device-id, p4c's JSON
    with no P4Info, --log-console, --thrift-port, then ``--`` --grpc-server-addr --cpu-port
    --priority-queues.  The switch starts, its data plane runs the JSON, P4Runtime has no pipeline
    until the controller pushes JSON + P4Info (as on simple_switch_grpc), then serves it."""
    pcaps = tmp_path / "pcaps"
    sp = start_switch(hosts, cpu_port=None, extra=[
        "-L", "info", "--pcap", pcaps, "--nanolog", "ipc:///tmp/bm-0-log.ipc", "--device-id", "0", FROZEN / "fwd.json",
        "--log-console", "--thrift-port", "9090", "--", "--grpc-server-addr", "127.0.0.1:0",
        "--cpu-port", "255", "--priority-queues", "2"])
    hosts[1].send(fwd_frame(2))
    out = hosts[2].recv()
    assert out is not None and out[14] == 0 and struct.unpack("!H", out[15:17]) == (2,), out
    assert struct.unpack("!H", out[23:25]) == (1,), "fwd.p4 writes the ingress port back"
    assert sorted(p.name for p in pcaps.iterdir()) == ["1_in.pcap", "1_out.pcap", "2_in.pcap", "2_out.pcap",
                                                       "3_in.pcap", "3_out.pcap"]
    assert "--nanolog ipc:///tmp/bm-0-log.ipc: no nanomsg" in sp.stderr()
    ctl = connect(sp.grpc_addr)
    with pytest.raises(grpc.RpcError) as ei:
        ctl.stub.GetForwardingPipelineConfig(P.GetForwardingPipelineConfigRequest())
    assert ei.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    p4info = text_format.Parse((FROZEN / "fwd.p4info.txtpb").read_text(), p4info_pb2.P4Info())
    ctl.arbitrate(election_id=1)
    ctl.set_pipeline(pipeline_config(p4info, (FROZEN / "fwd.json").read_bytes()))
    got = ctl.stub.GetForwardingPipelineConfig(P.GetForwardingPipelineConfigRequest()).config
    assert got.p4info == p4info
    hosts[1].send(fwd_frame(3))
    assert hosts[3].recv() is not None


@pytest.mark.parametrize("dest", sorted(REFUSED))
def test_refused_options_exit_2_and_say_why(dest):
    r = run_cli("--no-p4", "--grpc-server-addr", "127.0.0.1:0", f"--{dest.replace('_', '-')}", "x")
    assert r.returncode == 2 and f"--{dest.replace('_', '-')}: {REFUSED[dest]}" in r.stderr, r.stderr


def test_options_without_effect_start_and_are_logged(start_switch, connect):
    extra = []
    for dest in NO_EFFECT:
        flag = f"--{dest.replace('_', '-')}"
        extra += [flag] if dest == "disable_swap" else [flag, "7"]
    sp = start_switch(extra=[*extra, "-L", "info", "--no-p4"])
    ctl = connect(sp.grpc_addr)
    assert ctl.stub.Capabilities(P.CapabilitiesRequest()).p4runtime_api_version
    log = sp.stderr()
    for dest, why in NO_EFFECT.items():
        assert why in log, (dest, log[-3000:])


def test_version_and_json_version():
    r = run_cli("--version")
    assert r.returncode == 0 and r.stdout.startswith("checkmate-switch ") and "1.15.5" in r.stdout
    assert run_cli("-v").stdout == r.stdout
    r = run_cli("--json-version")
    assert r.returncode == 0 and r.stdout.strip() == JSON_VERSION


def test_log_file_is_name_txt_rotated_with_packet_data(start_switch, hosts, tmp_path):
    """``--log-file NAME`` writes NAME.txt; past --log-file-max-size the files shift to NAME.1.txt ..
    NAME.<max-files>.txt (the oldest dropped), as measured on BMv2 1.15.5; --dump-packet-data puts
    the packets' first bytes in the trace."""
    name = tmp_path / "s1"
    start_switch(hosts, extra=["--log-file", name, "--log-file-max-size", "600", "--log-file-max-files", "2",
                               "--dump-packet-data", "6", "--log-flush", FROZEN / "fwd.json"])
    for _ in range(12):
        hosts[1].send(fwd_frame(2))
        assert hosts[2].recv() is not None
    deadline = time.monotonic() + 5
    while not (tmp_path / "s1.2.txt").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["s1.1.txt", "s1.2.txt", "s1.txt"], files
    text = "".join((tmp_path / f).read_text() for f in files)
    assert all((tmp_path / f).stat().st_size <= 600 for f in files)
    assert "packet data: 00 00 00 00 00 02" in text and "out port 2" in text, text


def test_rotating_file_keeps_max_files_backups(tmp_path):
    f = RotatingFile(str(tmp_path / "t"), max_size=10, max_files=2)
    for i in range(6):
        f.write_line(f"line {i}")     # 7 bytes each: one line per file
    f.close()
    assert [(tmp_path / n).read_text() for n in ("t.txt", "t.1.txt", "t.2.txt")] == \
        ["line 5\n", "line 4\n", "line 3\n"]
    assert not (tmp_path / "t.3.txt").exists()
    g = RotatingFile(str(tmp_path / "u"), max_size=10, max_files=0)
    g.write_line("first 1")
    g.write_line("second")
    g.close()
    assert sorted(p.name for p in tmp_path.glob("u*")) == ["u.txt"] and (tmp_path / "u.txt").read_text() == "second\n"


@pytest.mark.parametrize("args, culprit", [
    (["--grpc-server-ssl"], "needs --grpc-server-cert and --grpc-server-key"),
    (["--grpc-server-ssl", "--grpc-server-cert", "c", "--grpc-server-key", "k", "--grpc-server-with-client-auth"],
     "needs --grpc-server-cacert"),
    (["--grpc-server-ssl", "--grpc-server-cert", "/nonexistent.pem", "--grpc-server-key", "/nonexistent.key"],
     "--grpc-server-key /nonexistent.key"),
    (["--drop-port", "512"], "drop port 512"),
    (["--cpu-port", "0"], "--cpu-port 0: 0 is not a valid CPU port"),
    (["--priority-queues", "0"], "priority queues 0"),
    (["--dump-packet-data", "-1"], "--dump-packet-data -1"),
    (["--log-file", "/tmp/x", "--log-file-max-size", "0"], "--log-file-max-size 0"),
])
def test_bad_option_values_name_the_option(args, culprit):
    r = run_cli("--no-p4", "--grpc-server-addr", "127.0.0.1:0", *args)
    assert r.returncode == 2 and culprit in r.stderr, r.stderr


@pytest.mark.parametrize("version, culprit", [([3, 0], "major version 2 is required; this one is tagged 3.0"),
                                               ([2, 25], "2.24; this one is tagged 2.25")])
def test_json_version_checked_at_start_as_bmv2(tmp_path, version, culprit):
    """simple_switch_grpc refuses such a JSON given on its command line (measured: exit status 1)."""
    import json
    j = json.loads((FROZEN / "fwd.json").read_text())
    j["__meta__"]["version"] = version
    (tmp_path / "v.json").write_text(json.dumps(j))
    r = run_cli("--grpc-server-addr", "127.0.0.1:0", tmp_path / "v.json")
    assert r.returncode == 2 and culprit in r.stderr, r.stderr


# ------------------------------------------------------------------ TLS
def _openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """A CA, a server certificate for 127.0.0.1 and a client certificate, made with openssl."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl not installed (needed to make test certificates)")
    d = tmp_path_factory.mktemp("pki")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
             "-subj", "/CN=checkmate test CA", cwd=d)
    for who, ext in (("server", "subjectAltName=IP:127.0.0.1"), ("client", "extendedKeyUsage=clientAuth")):
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{who}.key", "-out", f"{who}.csr",
                 "-subj", f"/CN={who}", cwd=d)
        (d / f"{who}.ext").write_text(ext + "\n")
        _openssl("x509", "-req", "-in", f"{who}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                 "-out", f"{who}.pem", "-days", "2", "-extfile", f"{who}.ext", cwd=d)
    return d


def _capabilities(addr, creds=None):
    ch = grpc.secure_channel(addr, creds) if creds else grpc.insecure_channel(addr)
    try:
        return p4runtime_pb2_grpc.P4RuntimeStub(ch).Capabilities(P.CapabilitiesRequest(), timeout=5)
    finally:
        ch.close()


def test_p4runtime_over_tls(start_switch, pki):
    ca = (pki / "ca.pem").read_bytes()
    sp = start_switch(extra=["--no-p4", "--", "--grpc-server-ssl", "--grpc-server-cert", pki / "server.pem",
                             "--grpc-server-key", pki / "server.key"])
    assert _capabilities(sp.grpc_addr, grpc.ssl_channel_credentials(root_certificates=ca)).p4runtime_api_version
    with pytest.raises(grpc.RpcError):
        _capabilities(sp.grpc_addr)        # plaintext is refused


def test_p4runtime_over_tls_with_client_auth(start_switch, pki):
    ca = (pki / "ca.pem").read_bytes()
    sp = start_switch(extra=["--no-p4", "--", "--grpc-server-ssl", "--grpc-server-cert", pki / "server.pem",
                             "--grpc-server-key", pki / "server.key", "--grpc-server-cacert", pki / "ca.pem",
                             "--grpc-server-with-client-auth"])
    client = grpc.ssl_channel_credentials(root_certificates=ca, private_key=(pki / "client.key").read_bytes(),
                                          certificate_chain=(pki / "client.pem").read_bytes())
    assert _capabilities(sp.grpc_addr, client).p4runtime_api_version
    with pytest.raises(grpc.RpcError):
        _capabilities(sp.grpc_addr, grpc.ssl_channel_credentials(root_certificates=ca))   # no client certificate


def test_checkmate_ctl_over_tls(start_switch, pki):
    """checkmate-ctl --ssl-ca [--ssl-cert --ssl-key] reaches a switch serving P4Runtime over TLS."""
    sp = start_switch(extra=[REPO / "tests" / "switch_proc" / "programs" / "l3_cpu.p4", "--grpc-server-ssl",
                             "--grpc-server-cert", pki / "server.pem", "--grpc-server-key", pki / "server.key",
                             "--grpc-server-cacert", pki / "ca.pem", "--grpc-server-with-client-auth"])

    def ctl(*extra):
        return subprocess.run([sys.executable, "-m", "controller.cli", "--switch", sp.grpc_addr, "--json", *extra,
                               "tables"], capture_output=True, text=True, timeout=60, cwd=REPO)

    r = ctl("--ssl-ca", pki / "ca.pem", "--ssl-cert", pki / "client.pem", "--ssl-key", pki / "client.key")
    assert r.returncode == 0 and "MyIngress.ipv4_lpm" in r.stdout, r.stderr
    r = ctl("--ssl-ca", pki / "ca.pem")            # no client certificate: the switch refuses
    assert r.returncode == 1 and r.stderr, r.stderr
    r = ctl("--ssl-cert", pki / "client.pem", "--ssl-key", pki / "client.key")
    assert r.returncode == 1 and "need --ssl-ca" in r.stderr, r.stderr
