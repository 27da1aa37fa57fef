"""p4src/checkmate.p4 on the embedded pipeline: a FINAL chunk from a trainer port is
forwarded and replicated once to its shadow with a fresh IPv4 checksum; a heartbeat
digest is raised for a newer iteration."""
import os

from scapy.all import IP, UDP, Ether, Raw

from checkmate.wire import CHECKMATE_UDP_PORT, FLAG_FINAL, SHADOW_UDP_PORT, ChunkHeader, encode
from switch.compiler import compile_file
from switch.runtime import Pipeline

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGRAM = os.path.join(ROOT, "p4src", "checkmate.p4")


def setup():
    pl = Pipeline(compile_file(PROGRAM).device_config)
    pl.insert("ipv4_route", {"hdr.ipv4.dstAddr": ("10.77.0.2", 32)}, "forward",
              {"port": 2, "smac": "00:00:00:00:aa:01", "dmac": "08:00:00:00:00:02"})
    pl.insert("trainer_port", {"standard_metadata.ingress_port": 1}, "mark_trainer")
    pl.insert("heartbeat_slot", {"hdr.checkmate.job_id": 1, "hdr.checkmate.rank": 0},
              "set_heartbeat_slot", {"slot": 0})
    pl.insert("shard_map", {"hdr.checkmate.job_id": 1, "hdr.checkmate.param_id": (0, 99)},
              "set_shard", {"rid": 1}, priority=1)
    pl.insert("replication", {"meta.out_port": 2, "meta.shard_rid": 1}, "replicate", {"group": 1})
    pl.insert("shadow_rewrite", {"standard_metadata.egress_rid": 1}, "to_shadow",
              {"mac": "08:00:00:00:01:01", "ip": "10.77.0.101", "udp_port": SHADOW_UDP_PORT})
    pl.mcast_group_set(1, [(2, 0), (4, 1)])
    return pl


def chunk(iteration=3, param_id=5, flags=FLAG_FINAL):
    payload = encode(ChunkHeader(flags=flags, job_id=1, iteration=iteration, rank=0,
                                 param_id=param_id, count=4), bytes(range(16)))
    return Ether(dst="00:00:00:00:aa:01", src="08:00:00:00:00:01") / \
        IP(src="10.77.0.1", dst="10.77.0.2", ttl=64) / \
        UDP(sport=40000, dport=CHECKMATE_UDP_PORT, chksum=0x1234) / Raw(payload)


def routed(f):
    e = Ether(bytes(f))
    e[Ether].src, e[Ether].dst = "00:00:00:00:aa:01", "08:00:00:00:00:02"
    e[IP].ttl -= 1
    del e[IP].chksum
    return e


def test_final_chunk_is_copied_once_to_its_shadow():
    pl = setup()
    digests = []
    pl.on_digest = lambda did, vals: digests.append(vals)
    f = chunk()
    out = pl.process(1, bytes(f))
    orig = routed(f)
    copy = routed(f)
    copy[Ether].dst, copy[IP].dst = "08:00:00:00:01:01", "10.77.0.101"
    copy[UDP].dport, copy[UDP].chksum = SHADOW_UDP_PORT, 0
    assert out == [(2, bytes(Ether(bytes(orig)))), (4, bytes(Ether(bytes(copy))))]
    assert len(digests) == 1 and 3 in digests[0]
    # same iteration again: no new heartbeat; param outside the shard map: no copy
    assert [p for p, _ in pl.process(1, bytes(chunk(param_id=500)))] == [2]
    assert len(digests) == 1


def test_non_final_and_non_trainer_port_are_not_copied():
    pl = setup()
    assert [p for p, _ in pl.process(1, bytes(chunk(flags=0)))] == [2]
    assert [p for p, _ in pl.process(3, bytes(chunk()))] == [2]
