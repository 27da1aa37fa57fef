"""p4c -> checkmate-switch works as p4c -> simple_switch_grpc: p4c's BMv2 JSON and P4Info
run on the embedded target (switch/bmv2json).

* The conformance suite (tests/conformance, hand-derived expected outputs) runs again with
  every program compiled by real p4c and loaded from its JSON (``CHECKMATE_FRONTEND=bmv2json``):
  from p4c's output kept in p4c_out/ (so CI without p4c covers the loader), which another
  test keeps equal to what the installed p4c writes; the data-plane tests of
  p4src/checkmate.p4 (tests/dataplane/test_pipeline.py) run on p4c's JSON too.
* A running checkmate-switch takes p4c's JSON + P4Info through P4Runtime
  SetForwardingPipelineConfig, as a BMv2 controller sends them, and routes a frame with
  an entry written by ids from p4c's P4Info; GetForwardingPipelineConfig returns the JSON.

The suite also runs on p4c's output kept in p4c_out/ (freeze.py), so CI covers the loader
without p4c; the rest is skipped without p4c (install ../shared/p4ref).  No root needed.
"""
from __future__ import annotations

import os
import re
import select
import socket
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from switch.bmv2json.p4c import compile_with_p4c, p4c_path

REPO = Path(__file__).resolve().parents[2]
needs_p4c = pytest.mark.skipif(p4c_path() is None, reason="p4c not installed (install ../shared/p4ref)")



@contextmanager
def _empty_switch(nports: int):
    """checkmate-switch started with no program (``--no-p4``, as simple_switch_grpc without a JSON)
    and ports 1..nports on UDP sockets that all send to one host socket: yields ``(ready info,
    host socket, send(port, frame))``; the switch is stopped on the way out."""
    from switch.ready import wait_ready

    host = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    host.bind(("127.0.0.1", 0))
    hport = host.getsockname()[1]
    ports = [a for n in range(1, nports + 1) for a in ("-i", f"{n}@udp:127.0.0.1:0:127.0.0.1:{hport}")]
    proc = subprocess.Popen([sys.executable, "-m", "switch.cli", "--no-p4", "--grpc-server-addr", "127.0.0.1:0", *ports],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=dict(os.environ, PYTHONPATH=str(REPO)))
    try:
        info = wait_ready(proc, 60)

        def send(port: int, frame: bytes) -> None:
            addr = info["ports"][str(port)].split(":")
            host.sendto(frame, (addr[1], int(addr[2].split("-")[0])))
        yield info, host, send
    finally:
        proc.terminate()
        proc.wait(10)
        host.close()


def _run_suite(extra_env, paths, timeout):
    env = dict(os.environ, CHECKMATE_FRONTEND="bmv2json", PYTHONPATH=str(REPO), **extra_env)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *paths],
                       cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)
    tail = r.stdout[-6000:]
    assert r.returncode == 0, f"suite failed on p4c's JSON:\n{tail}\n{r.stderr[-2000:]}"
    passed = int(re.search(r"(\d+) passed", tail).group(1))
    return passed, re.findall(r"SKIPPED \[\d+\] .*", tail), tail


def test_conformance_and_pipeline_suites_on_frozen_p4c_json():
    """Runs without p4c: tests/conformance and tests/pipeline on p4c's output kept in
    p4c_out/ (freeze.py); the only skips are programs p4c rejects."""
    passed, skips, tail = _run_suite({"CHECKMATE_P4C_FROZEN": "1"}, ["tests/conformance", "tests/pipeline"], 600)
    assert passed >= 360, tail
    for line in skips:
        assert "no frozen p4c output" in line, f"unexpected skip: {line}"


@needs_p4c
def test_frozen_p4c_output_is_current():
    """p4c_out/ equals what the installed p4c writes for the current programs (else rerun freeze.py)."""
    from concurrent.futures import ThreadPoolExecutor

    from freeze import SETS, frozen_pair

    frozen = {}
    for programs, out in SETS:
        for js in out.glob("*.json"):
            frozen[programs / f"{js.stem}.p4"] = js
    missing = [str(src) for src in frozen if not src.exists()]
    with ThreadPoolExecutor(2) as ex:  # p4c runs as a subprocess: two at a time on 2 cores
        fresh = dict(zip(frozen, ex.map(frozen_pair, frozen)))
    stale = missing + [src.name for src, (jtext, ptext) in fresh.items()
                       if frozen[src].read_text() != jtext
                       or frozen[src].with_suffix("").with_suffix(".p4info.txtpb").read_text() != ptext]
    assert not stale, f"p4c_out/ is stale for {stale}: run `PYTHONPATH=. python tests/bmv2compat/freeze.py`"


@needs_p4c
def test_dataplane_suite_on_p4c_json():
    """tests/dataplane/test_pipeline.py with p4src/checkmate.p4 compiled by real p4c."""
    passed, skips, tail = _run_suite({"PATH": f"{Path(p4c_path()).parent}:{os.environ.get('PATH', '')}"},
                                     ["tests/dataplane/test_pipeline.py"], 600)
    assert passed >= 10 and not skips, tail


def _p4rt(addr):
    import grpc
    from p4.v1 import p4runtime_pb2_grpc
    ch = grpc.insecure_channel(addr)
    grpc.channel_ready_future(ch).result(timeout=10)
    return ch, p4runtime_pb2_grpc.P4RuntimeStub(ch)


@needs_p4c
def test_set_pipeline_with_p4c_json_over_p4runtime(tmp_path):
    from p4.v1 import p4runtime_pb2 as P

    prog = compile_with_p4c(REPO / "tests" / "conformance" / "programs" / "basic.p4", tmp_path)
    with _empty_switch(2) as (info, host, send):
        ch, stub = _p4rt(info["grpc"])
        raw = prog.json_path.read_bytes()
        req = P.SetForwardingPipelineConfigRequest(device_id=0, action=P.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT)
        req.config.p4info.CopyFrom(prog.p4info)
        req.config.p4_device_config = raw
        stub.SetForwardingPipelineConfig(req, timeout=30)
        got = stub.GetForwardingPipelineConfig(P.GetForwardingPipelineConfigRequest(device_id=0), timeout=10)
        assert got.config.p4_device_config == raw

        t = next(t for t in prog.p4info.tables if t.preamble.name == "MyIngress.ipv4_lpm")
        a = next(a for a in prog.p4info.actions if a.preamble.name == "MyIngress.ipv4_forward")
        te = P.TableEntry(table_id=t.preamble.id)
        fm = te.match.add(field_id=t.match_fields[0].id)
        fm.lpm.value, fm.lpm.prefix_len = bytes([10, 0, 2, 0]), 24
        te.action.action.action_id = a.preamble.id
        pid = {p.name: p.id for p in a.params}
        te.action.action.params.add(param_id=pid["dstAddr"], value=bytes.fromhex("080000000222"))
        te.action.action.params.add(param_id=pid["port"], value=b"\x02")
        wr = P.WriteRequest(device_id=0, updates=[P.Update(type=P.Update.INSERT, entity=P.Entity(table_entry=te))])
        stub.Write(wr, timeout=10)

        ip = bytes([0x45, 0, 0, 20, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 1, 1, 10, 0, 2, 2])
        frame = bytes.fromhex("000000000001" "000000000002" "0800") + ip
        send(1, frame)
        r, _, _ = select.select([host], [], [], 10)
        assert r, "no frame came out"
        out = host.recv(65535)
        assert out[:12] == bytes.fromhex("080000000222") + bytes.fromhex("000000000001")
        assert out[22] == 63  # ttl decremented
        ch.close()


def test_action_profiles_over_p4runtime_without_p4c(tmp_path):
    """checkmate-switch takes action-profile members, groups and indirect entries over
    P4Runtime (p4c's JSON kept in p4c_out/): the traffic follows them, a duplicate member
    is ALREADY_EXISTS, a member still in a group cannot go, and they read back."""
    import grpc
    from p4.v1 import p4runtime_pb2 as P

    from refrig import _p4rt_errors, p4runtime_program
    from switch.bmv2json.p4c import load_p4c_output
    from test_vs_bmv2 import _check_profile_reads, _profile_updates

    out = REPO / "tests" / "bmv2compat" / "p4c_out" / "bmv2compat"
    prog = load_p4c_output(out / "profiles_vsets.json", out / "profiles_vsets.p4info.txtpb")
    with _empty_switch(3) as (info, host, send):
        ups = _profile_updates(prog.p4info)
        p4runtime_program(info["grpc"], prog.p4info, prog.json_path.read_bytes(), ups)
        _check_profile_reads(info["grpc"], ups)
        ch, stub = _p4rt(info["grpc"])
        for upd, code in ((ups[0], grpc.StatusCode.ALREADY_EXISTS), (P.Update(type=P.Update.DELETE, entity=ups[0].entity), None)):
            with pytest.raises(grpc.RpcError) as ei:
                stub.Write(P.WriteRequest(device_id=0, updates=[upd]), timeout=10)
            errs = _p4rt_errors(ei.value)
            assert (str(code.value[0]) + ":" in errs) if code else "group" in errs, errs
        dst = bytes.fromhex("0000000000aa")
        send(1, dst + bytes(6) + b"\x08\x01")
        r, _, _ = select.select([host], [], [], 10)
        assert r and host.recv(65535) == dst + bytes(6) + b"\x08\x01\x00\x55"
        ch.close()
