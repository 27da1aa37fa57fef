"""checkmate-switch's command line: programs given as .p4 or compiled JSON, --no-p4,
--log-console traces, and clear errors for bad input (exit status 2)."""
from __future__ import annotations

import json
import subprocess
import sys

import grpc
import pytest
from p4.v1 import p4runtime_pb2 as P
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from pathlib import Path

PROGRAMS = Path(__file__).parent / "programs"
REPO = Path(__file__).resolve().parents[2]


def run_cli(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "switch.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, cwd=REPO)


def test_bad_program_reports_file_line_col(tmp_path):
    bad = tmp_path / "bad.p4"
    bad.write_text((PROGRAMS / "l3_cpu.p4").read_text().replace("hdr.ipv4.ttl - 1", "hdr.ipv4.nosuchfield - 1"))
    r = run_cli("--grpc-server-addr", "127.0.0.1:0", bad)
    assert r.returncode == 2
    assert f"{bad}:" in r.stderr and "nosuchfield" in r.stderr


@pytest.mark.parametrize("args, culprit", [
    (["-i", "1@nosuchif0"], "'nosuchif0' does not exist"),
    (["-i", "1x@veth0"], "'1x' is not an integer"),
    (["-i", "1@udp:127.0.0.1:0:127.0.0.1:9", "-i", "1@udp:127.0.0.1:0:127.0.0.1:9"], "given twice"),
    (["--cpu-port", "1", "-i", "1@udp:127.0.0.1:0:127.0.0.1:9"], "also a data port"),
    (["--grpc-server-addr", "nohostport"], "expected HOST:PORT"),
])
def test_bad_flags_name_the_culprit(args, culprit):
    r = run_cli("--grpc-server-addr", "127.0.0.1:0", *args, timeout=30)
    assert r.returncode == 2 and culprit in r.stderr, r.stderr


def test_json_program_and_no_p4(start_switch, connect, l3_program, tmp_path):
    ir, p4info = l3_program
    prog = tmp_path / "l3_cpu.json"
    prog.write_text(json.dumps(ir))
    sp = start_switch(extra=[prog])
    ctl = connect(sp.grpc_addr)
    cfg = ctl.stub.GetForwardingPipelineConfig(P.GetForwardingPipelineConfigRequest()).config
    assert cfg.p4info == p4info and json.loads(cfg.p4_device_config) == ir
    sp2 = start_switch(extra=["--no-p4", prog])
    ctl2 = connect(sp2.grpc_addr)
    with pytest.raises(grpc.RpcError) as ei:
        ctl2.stub.GetForwardingPipelineConfig(P.GetForwardingPipelineConfigRequest())
    assert ei.value.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_log_console_traces_packets(start_switch, hosts):
    sp = start_switch(hosts, extra=["--log-console", PROGRAMS / "l3_cpu.p4"])
    hosts[1].send(bytes(Ether(dst="08:00:00:00:00:aa") / IP(dst="10.9.9.9") / UDP() / b"x"))
    import time
    deadline = time.monotonic() + 5
    while "MyIngress.ipv4_lpm" not in sp.stderr() and time.monotonic() < deadline:
        time.sleep(0.05)
    log = sp.stderr()
    assert "ingress port 1" in log and "ipv4_lpm" in log, log[-2000:]


def test_simple_switch_grpc_style_command_line(start_switch, connect, l3_program, tmp_path):
    """BMv2's form: options, program, then ``--`` and target options; --thrift-port ignored."""
    ir, _ = l3_program
    prog = tmp_path / "l3.json"
    prog.write_text(json.dumps(ir))
    sp = start_switch(cpu_port=None, extra=["--thrift-port", "9090", prog, "--", "--cpu-port", "255"])
    ctl = connect(sp.grpc_addr)
    assert ctl.stub.GetForwardingPipelineConfig(P.GetForwardingPipelineConfigRequest()).config.HasField("p4info")


@pytest.mark.parametrize("level", ["trace", "debug", "info", "warn", "error", "off", "warning", "WARN"])
def test_log_level_accepts_simple_switch_grpc_values(level):
    import logging

    from switch.cli import LOG_LEVELS, build_parser
    for flag in ("--log-level", "-L"):
        args = build_parser().parse_args([flag, level, "--no-p4"])
        assert args.log_level == level.lower()
    assert LOG_LEVELS["warn"] == logging.WARNING and LOG_LEVELS["off"] > logging.CRITICAL


def test_log_level_bad_value_lists_the_choices():
    r = run_cli("--log-level", "loud", "--no-p4", timeout=30)
    assert r.returncode == 2 and "'loud'" in r.stderr and "'trace', 'debug', 'info', 'warn'" in r.stderr, r.stderr


def test_log_level_warn_and_off_start_a_switch(start_switch, connect):
    """BMv2 command lines pass ``--log-level warn`` or ``-L off``: the switch starts and serves P4Runtime."""
    for extra in (["--log-level", "warn"], ["-L", "off"]):
        sp = start_switch(extra=[*extra, "--no-p4"])
        ctl = connect(sp.grpc_addr)
        with pytest.raises(grpc.RpcError) as ei:
            ctl.stub.GetForwardingPipelineConfig(P.GetForwardingPipelineConfigRequest())
        assert ei.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert " INFO " not in sp.stderr()
