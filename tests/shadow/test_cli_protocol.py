"""The ``checkmate-shadow`` process end to end, the protocol's framing, and the test's own sensitivity."""
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from shadow import protocol, store
from shadow.client import ShadowClient
from shadow.packets import gradient_packets
from shadow.protocol import Bootstrap, OptimizerSpec, ShardMap


@pytest.mark.timeout(60)
def test_cli_process_replays_and_persists_on_sigterm(reference_run, tmp_path):
    run = reference_run(True)
    exe = Path(sys.executable).parent / "checkmate-shadow"
    cmd = [str(exe) if exe.exists() else sys.executable, *([] if exe.exists() else ["-m", "shadow.cli"]),
           "--job-id", "7", "--shard", "0", "--data", "127.0.0.1:0", "--mgmt", "127.0.0.1:0",
           "--ckpt-dir", str(tmp_path), "--loss-timeout", "5"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()  # bounded by the test timeout
        assert line.startswith("shadow ready"), (line, p.stderr.read() if p.poll() is not None else "")
        f = dict(kv.split("=") for kv in line.split()[2:])
        dh, dp = f["data"].rsplit(":", 1)
        mh, mp = f["mgmt"].rsplit(":", 1)
        owner = {q.param_id: 0 for q in run.params}
        cl = ShadowClient(mh, int(mp), timeout=10)
        cl.bootstrap(Bootstrap(7, 0, 0, run.params, ShardMap(7, 1, owner, [f["mgmt"]]), run.spec, dict(run.init), {}))
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for it in (1, 2):
            for pk in gradient_packets(7, it, run.steps[it - 1].grads):
                s.sendto(pk, (dh, int(dp)))
            cl.manifest(run.steps[it - 1].manifest)
        deadline = time.monotonic() + 10
        while cl.status().latest_iteration != 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        st = cl.fetch()
        params, _ = run.state(2)
        assert st.iteration == 2 and all(torch.equal(st.tensors[k], params[k]) for k in params)
        cl.close()
        s.close()
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=20)
        assert p.returncode == 0, err
        assert "persisted" in out
        assert store.list_iterations(tmp_path, 7, 0) == [2]
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(5)


def test_cli_bad_address_is_a_clear_error(tmp_path, capsys):
    from shadow import cli
    assert cli.main(["--job-id", "1", "--shard", "0", "--data", "127.0.0.1:port", "--ckpt-dir", str(tmp_path)]) == 2
    assert "'127.0.0.1:port'" in capsys.readouterr().err
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert cli.main(["--job-id", "1", "--shard", "0", "--data", "127.0.0.1:0", "--mgmt", f"127.0.0.1:{port}",
                         "--ckpt-dir", str(tmp_path)]) == 2
    assert f"mgmt address 127.0.0.1:{port}" in capsys.readouterr().err


def test_framing_round_trip_and_errors():
    a, b = socket.socketpair()
    a.settimeout(5)
    b.settimeout(5)
    try:
        t = {3: torch.arange(6, dtype=torch.float32).reshape(2, 3), 9: torch.tensor(1.5, dtype=torch.bfloat16)}
        protocol.send_message(a, "x", {"t": t, "f": [0.1, float("inf")], "none": None})
        op, body = protocol.recv_message(b)
        assert op == "x" and body["f"] == [0.1, float("inf")] and body["none"] is None
        assert torch.equal(body["t"][3], t[3]) and body["t"][9].dtype == torch.bfloat16
        a.sendall(b"XXXX" + bytes(12))
        with pytest.raises(protocol.ProtocolError, match="'magic'"):
            protocol.recv_message(b)
        a.sendall(protocol.FRAME.pack(protocol.MAGIC, protocol.MAX_HEADER + 1, 0))
        with pytest.raises(protocol.ProtocolError, match="'header_len'"):
            protocol.recv_message(b)
        hdr = b'{"op":"x","body":{"$c":"Evil","x":1}}'
        a.sendall(protocol.FRAME.pack(protocol.MAGIC, len(hdr), 0) + hdr)
        with pytest.raises(protocol.ProtocolError, match="unknown class"):
            protocol.recv_message(b)
        hdr = b'{"op":"x","body":{"$t":["float32",[100],0,400]}}'
        a.sendall(protocol.FRAME.pack(protocol.MAGIC, len(hdr), 8) + hdr + bytes(8))
        with pytest.raises(protocol.ProtocolError, match="'nbytes'"):
            protocol.recv_message(b)
        hdr = b'{"op":"x","body":' + b"[" * 50000 + b"]" * 50000 + b"}"
        a.sendall(protocol.FRAME.pack(protocol.MAGIC, len(hdr), 0) + hdr)
        with pytest.raises(protocol.ProtocolError, match="nested"):
            protocol.recv_message(b)
        a.close()
        with pytest.raises(ConnectionError):
            protocol.recv_message(b)
    finally:
        b.close()


@pytest.mark.timeout(60)
def test_wrong_variant_is_detected(reference_run, cluster):
    """The bitwise check can fail: replaying foreach's run with the fused kernel gives other bits."""
    run = reference_run(True)
    c = cluster(run, shards=1)
    c.run = type(run)(run.params, OptimizerSpec("adamw", None, True, run.spec.param_groups), run.init, run.steps)
    c.drive(3)
    with pytest.raises(AssertionError, match="differs"):
        c.check(3)


@pytest.mark.timeout(30)
def test_management_server_survives_garbage(reference_run, cluster):
    run = reference_run(True)
    c = cluster(run, shards=1)
    c.bootstrap(0)
    with socket.create_connection(c.nodes[0].mgmt_address, timeout=5) as raw:
        raw.sendall(b"GET / HTTP/1.1\r\n\r\n")
        op, body = protocol.recv_message(raw)
        assert op == "error" and body["kind"] == "ProtocolError" and "'magic'" in body["message"]
    with socket.create_connection(c.nodes[0].mgmt_address, timeout=5) as raw:
        protocol.send_message(raw, "launch_missiles", None)
        op, body = protocol.recv_message(raw)
        assert op == "error" and "'op'" in body["message"]
        protocol.send_message(raw, "manifest", {"not": "a manifest"})
        op, body = protocol.recv_message(raw)
        assert op == "error" and "Manifest" in body["message"]
    c.check(0)
    assert c.clients[0].status().latest_iteration == 0
