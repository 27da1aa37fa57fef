"""Interop: p4runtime-shell 0.0.6 (PyPI, unmodified) drives a running checkmate-switch.

p4runtime-shell pins protobuf<3.21 and p4runtime==1.4.1, which cannot share the
project's venv, so the test creates ``.venv-p4shell`` at the repo root on first use
(``python3 -m venv`` + ``pip install p4runtime-shell==0.0.6``) and runs a script in
it as a subprocess: connect (election id (1, 0)), list tables, insert and read an
LPM entry, create and read a multicast group.  The script prints JSON; the test
checks it *and* reads the switch's state back with its own gRPC client."""
from __future__ import annotations

import fcntl
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from p4.v1 import p4runtime_pb2 as P

REPO = Path(__file__).resolve().parents[2]
VENV = REPO / ".venv-p4shell"
PY = VENV / "bin" / "python"

SCRIPT = textwrap.dedent("""
    import json, sys
    import p4runtime_sh.shell as sh
    from p4runtime_sh.p4runtime import P4RuntimeWriteException
    addr = sys.argv[1]
    sh.setup(device_id=0, grpc_addr=addr, election_id=(1, 0), verbose=False)
    out = {"api": sh.APIVersion(), "tables": [t.name for t in sh.P4Objects(sh.P4Type.table)]}
    te = sh.TableEntry("MyIngress.ipv4_lpm")(action="MyIngress.ipv4_forward")
    te.match["hdr.ipv4.dstAddr"] = "10.0.2.0/24"
    te.action["dstAddr"] = "08:00:00:00:00:02"
    te.action["port"] = "2"
    te.insert()
    out["read"] = [[e.match["hdr.ipv4.dstAddr"].lpm.value.hex(), e.match["hdr.ipv4.dstAddr"].lpm.prefix_len,
                    e.action.action_name, e.action["port"].value.hex()]
                   for e in sh.TableEntry("MyIngress.ipv4_lpm").read()]
    try:
        te.insert()
    except P4RuntimeWriteException as e:
        out["dup_error"] = str(e)
    me = sh.MulticastGroupEntry(1)
    me.add(2, 1).add(3, 2)
    me.insert()
    out["mcast"] = [[(r.egress_port, r.instance) for r in g.replicas] for g in sh.MulticastGroupEntry(1).read()]
    sh.teardown()
    print("RESULT " + json.dumps(out))
""")


def ensure_p4shell_venv() -> None:
    lock = open("/tmp/checkmate-venv-p4shell.lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if PY.exists() and subprocess.run([str(PY), "-c", "import p4runtime_sh.shell"],
                                          capture_output=True, timeout=60).returncode == 0:
            return
        subprocess.run([sys.executable,
                        "-m", "venv", "--clear", str(VENV)], check=True, timeout=120)
        r = subprocess.run([str(PY), "-m", "pip", "install", "-q", "p4runtime-shell==0.0.6"],
                           capture_output=True, text=True, timeout=400)
        assert r.returncode == 0, f"pip install p4runtime-shell==0.0.6 failed:\n{r.stderr[-3000:]}"
        (VENV / ".gitignore").write_text("*\n")  # never committed, whatever the repo's .gitignore says
    finally:
        fcntl.flock(lock, fcntl.LOCK_UN)
        lock.close()


def test_p4runtime_shell_drives_checkmate_switch(start_switch, hosts, connect, l3_config, names):
    ensure_p4shell_venv()
    sp = start_switch(hosts)
    admin = connect(sp.grpc_addr)
    admin.set_pipeline(l3_config)  # no controller connected yet: accepted without election id
    r = subprocess.run([str(PY), "-c", SCRIPT, sp.grpc_addr], capture_output=True, text=True, timeout=120)
    line = next((l for l in r.stdout.splitlines() if l.startswith("RESULT ")), None)
    assert line, f"p4runtime-shell script failed (rc {r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-4000:]}"
    out = json.loads(line[7:])
    assert out["api"].startswith("1.")
    assert {"MyIngress.ipv4_lpm", "MyIngress.smac", "MyIngress.acl"} <= set(out["tables"])
    assert out["read"] == [["0a000200", 24, "MyIngress.ipv4_forward", "02"]], out["read"]
    assert "ALREADY_EXISTS" in out["dup_error"]
    assert out["mcast"] == [[[3, 2], [2, 1]]]   # read back in BMv2's order (instances last-first)
    # and the switch really holds it: read back over our own client
    ents = admin.read(P.Entity(table_entry=P.TableEntry(table_id=names.table_id("ipv4_lpm"))))
    assert len(ents) == 1 and ents[0].table_entry.match[0].lpm.prefix_len == 24
    grp = admin.read(P.Entity(packet_replication_engine_entry=P.PacketReplicationEngineEntry(
        multicast_group_entry=P.MulticastGroupEntry(multicast_group_id=1))))
    assert [(r.egress_port, r.instance) for r in grp[0].packet_replication_engine_entry.multicast_group_entry.replicas] == [(3, 2), (2, 1)]
