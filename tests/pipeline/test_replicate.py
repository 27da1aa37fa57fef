"""Multicast + egress_rid rewrites, digest, counters, registers (replicate.p4)."""
import pytest
from scapy.all import IP, UDP, Ether, Raw

from pipeline_helpers import pipeline
from switch.runtime import CounterData, InvalidEntry, EntryNotFound

PAYLOAD = bytes(range(40))


def tagged(flags=1, job=7, it=5, dst="10.0.0.2"):
    return Ether(dst="00:00:00:00:00:02", src="00:00:00:00:00:01") / \
        IP(src="10.0.0.1", dst=dst, ttl=9) / UDP(sport=5000, dport=48879) / \
        Raw(bytes([flags]) + job.to_bytes(4, "big") + it.to_bytes(4, "big") + PAYLOAD)


@pytest.fixture()
def pl():
    p = pipeline("replicate.p4")
    p.insert("Ing.fwd", {"h.ip.dst": "10.0.0.2"}, "Ing.route", {"port": 2})
    p.insert("Ing.rep", {"h.tag.job": 7}, "Ing.replicate", {"grp": 1})
    p.insert("Eg.shadow", {"sm.egress_rid": 1}, "Eg.to_shadow",
             {"mac": "08:00:00:00:01:01", "ip": "10.0.0.101", "port": 48880})
    p.mcast_group_set(1, [(2, 0), (4, 1)])
    return p


def expect_original(f):
    e = Ether(bytes(f))
    e[IP].ttl -= 1
    del e[IP].chksum
    return bytes(Ether(bytes(e)))


def expect_copy(f):
    e = Ether(bytes(f))
    e[Ether].dst = "08:00:00:00:01:01"
    e[IP].dst = "10.0.0.101"
    e[IP].ttl -= 1
    del e[IP].chksum
    e[UDP].dport = 48880
    e[UDP].chksum = 0
    return bytes(Ether(bytes(e)))


def test_final_chunk_is_replicated_and_rewritten(pl):
    f = tagged()
    out = pl.process(1, bytes(f))
    assert out == [(2, expect_original(f)), (4, expect_copy(f))]


def test_untagged_is_forwarded_only(pl):
    f = tagged(flags=0)
    assert pl.process(1, bytes(f)) == [(2, expect_original(f))]


def test_replica_without_shadow_entry_is_dropped_in_egress(pl):
    pl.mcast_group_set(1, [(2, 0), (4, 1), (5, 9)])
    f = tagged()
    assert [p for p, _ in pl.process(1, bytes(f))] == [2, 4]


def test_empty_or_missing_group_sends_nothing(pl):
    pl.mcast_group_delete(1)
    assert pl.process(1, bytes(tagged())) == []
    with pytest.raises(EntryNotFound):
        pl.mcast_group_delete(1)
    with pytest.raises(InvalidEntry, match="port 511"):
        pl.mcast_group_set(2, [(511, 0)])


def test_digest_on_newer_iteration_and_register(pl):
    got = []
    pl.on_digest = lambda did, vals: got.append((did, vals))
    pl.process(1, bytes(tagged(it=5)))
    pl.process(1, bytes(tagged(it=5)))
    pl.process(3, bytes(tagged(it=6)))
    did = pl.names.id("digest", "hb_digest_t")
    assert got == [(did, (7, 5, 1)), (did, (7, 6, 3))]
    assert pl.register("Ing.last_iter", 7) == 6
    pl.set_register("Ing.last_iter", 7, 100)
    pl.process(1, bytes(tagged(it=50)))
    assert len(got) == 2


def test_counters(pl):
    f = tagged()
    for _ in range(3):
        pl.process(1, bytes(f))
    pl.process(2, bytes(tagged(flags=0)))
    n = len(bytes(f))
    assert pl.counter("Ing.seen", 1) == CounterData(3, 3 * n)
    assert pl.counter("Ing.seen", 2) == CounterData(1, n)
    m = len(pl.process(1, bytes(f))[0][1])  # (one more of each; the copy's length as it leaves)
    assert pl.counter("Eg.copies", 1) == CounterData(4, 4 * m)  # packets-only: bytes counted too (BMv2)
    cid = pl.names.id("counter", "Ing.seen")
    pl.counter_write(cid, 1, CounterData(0, 0))
    assert pl.counter_read(cid)[1] == CounterData(0, 0)
    eid = pl.names.id("counter", "Eg.copies")
    pl.counter_write(eid, 1, CounterData(7, 0))  # a packets-only counter: the write keeps the bytes
    assert pl.counter_read(eid, 1) == CounterData(7, 4 * m)
    with pytest.raises(InvalidEntry, match="Ing.seen.*index 4"):
        pl.counter_read(cid, 4)


def test_non_ip_is_dropped_by_direct_action_call(pl):
    assert pl.process(1, bytes(Ether() / Raw(b"x" * 50))) == []


def test_pre_reads(pl):
    assert pl.mcast_group_get(1) == [(2, 0), (4, 1)]
    pl.clone_session_set(9, [(3, 1)], class_of_service=2, packet_length_bytes=64)
    assert pl.clone_session_get(9) == ([(3, 1)], 2, 64)
    pl.clone_session_delete(9)
    with pytest.raises(EntryNotFound):
        pl.clone_session_get(9)
    with pytest.raises(InvalidEntry, match="session id 40000"):
        pl.clone_session_set(40000, [])
