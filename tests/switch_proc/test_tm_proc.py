"""Traffic manager of a running checkmate-switch: set by flags at start, changed at run
time through the control channel (switch.tm_client), counters reported."""
from __future__ import annotations

import time

import pytest
from p4.v1 import p4runtime_pb2 as P

from switch.tm_client import TMClient, TMError

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

MAC_H2 = "08:00:00:00:00:02"


def frame(dst="10.0.2.2", size=64, seq=0):
    return bytes(Ether(src="08:00:00:00:00:01", dst="08:00:00:00:00:aa") /
                 IP(src="10.0.1.1", dst=dst, id=seq) / UDP(sport=1, dport=2) / (b"x" * size))


def lpm_route(names, port):
    te = P.TableEntry(table_id=names.table_id("ipv4_lpm"))
    fm = te.match.add(field_id=names.field_id("ipv4_lpm", "hdr.ipv4.dstAddr"))
    fm.lpm.value, fm.lpm.prefix_len = bytes([10, 0, port, 0]), 24
    te.action.action.action_id = names.action_id("ipv4_forward")
    te.action.action.params.add(param_id=1, value=bytes.fromhex(MAC_H2.replace(":", "")))
    te.action.action.params.add(param_id=2, value=bytes([port]))
    return te


def test_tm_flags_and_runtime_changes(start_switch, hosts, connect, l3_config, names):
    sp = start_switch(hosts, extra=["--tm", "2:drop_prob=1", "--tm", "3:lossless=1,depth=4",
                                    "--tm-server-addr", "127.0.0.1:0"])
    ctl = connect(sp.grpc_addr)
    ctl.set_pipeline(l3_config)
    ctl.write(P.Update(type=P.Update.INSERT, entity=P.Entity(
        table_entry=lpm_route(names, 2))))
    host, port = sp.info["tm"].rsplit(":", 1)
    with TMClient(host, int(port)) as tm:
        assert tm.get(3)["lossless"] is True and tm.get(3)["queue_depth"] == 4
        for _ in range(5):
            hosts[1].send(frame())
        assert hosts[2].recv(0.5) is None  # every packet dropped by fault injection
        deadline = time.monotonic() + 3
        while tm.stats()[2]["fault_drops"] < 5 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert tm.stats()[2]["fault_drops"] == 5
        tm.set(2, drop_prob=0.0, delay_s=0.05)
        t0 = time.monotonic()
        hosts[1].send(frame())
        assert hosts[2].recv(2) is not None and time.monotonic() - t0 >= 0.045
        with pytest.raises(TMError, match="port 7: no such port"):
            tm.set(7, drop_prob=0.5)
        sws = tm.switch_stats()
        assert sws["rx"] == 6 and sws["pipeline_errors"] == 0 and sws["tx"] == 6


def test_bad_tm_flag_is_refused_at_start(start_switch, hosts):
    with pytest.raises(AssertionError, match="unknown TM setting 'speed'"):
        start_switch(hosts, extra=["--tm", "2:speed=3"])
    with pytest.raises(AssertionError, match="port 9 is not attached"):
        start_switch(hosts, extra=["--tm", "9:drop=0.1"])


def test_lossless_port_pauses_and_loses_nothing(start_switch, hosts, connect, l3_config, names):
    """A slow lossless port (1 Mbit/s, queue of 4) under a burst: every frame arrives, in
    order; the TM counts pauses, no drops.  The same burst on a lossy port tail-drops."""
    sp = start_switch(hosts, extra=["--tm", "3:lossless=1,depth=4,rate=1M", "--tm", "2:depth=4,rate=1M",
                                    "--tm-server-addr", "127.0.0.1:0"])
    ctl = connect(sp.grpc_addr)
    ctl.set_pipeline(l3_config)
    ctl.write(P.Update(type=P.Update.INSERT, entity=P.Entity(table_entry=lpm_route(names, 3))),
              P.Update(type=P.Update.INSERT, entity=P.Entity(table_entry=lpm_route(names, 2))))
    n = 30  # 30 x ~540 B at 1 Mbit/s: ~130 ms of queue; the burst arrives in < 10 ms
    burst3 = [frame(dst="10.0.3.3", size=500, seq=i) for i in range(n)]
    burst2 = [frame(dst="10.0.2.2", size=500, seq=i) for i in range(n)]  # built before sending: a real burst
    for f in burst3:
        hosts[1].send(f)
    got3 = [Ether(f)[IP].id for f in hosts[3].drain(wait=2.0)]
    assert got3 == list(range(n))
    for f in burst2:
        hosts[1].send(f)
    got2 = hosts[2].drain(wait=2.0)
    host, port = sp.info["tm"].rsplit(":", 1)
    with TMClient(host, int(port)) as tm:
        st = tm.stats()
    assert st[3]["pauses"] > 0 and st[3]["tail_drops"] == 0 and st[3]["pause_drops"] == 0, st[3]
    assert st[2]["tail_drops"] > 0 and len(got2) == n - st[2]["tail_drops"], (st[2], len(got2))
