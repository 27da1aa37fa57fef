"""v1model stateful externs: counter (packets / bytes / packets_and_bytes), direct_counter,
register read/write (data plane and control plane), digest.

BMv2: counters count standard packet length at ingress in bytes (the received frame
length; simple_switch.cpp sets PACKET_LENGTH_REG from the frame length; bm_sim
Counter::increment_counter adds the packet's ingress length); a direct_counter counts
every hit of an entry (simple_switch.md "BMv2 direct_counter implementation notes");
the after-ingress pseudocode sends a digest before the drop decision.
"""
import pytest

from p4conf import Switch, counter_tuple, eth, mac, u8, u32

PROG = "stateful.p4"


@pytest.fixture
def sw():
    return Switch(PROG)


def frame(idx, val=0, res=0, etype=0x1234, pad=0, src=None):
    return eth(etype, **({"src": src} if src else {})) + u8(idx) + u32(val) + u32(res) + \
        b"\x00" * pad


def test_indirect_counters_packets_bytes_both(sw):
    lens = []
    for pad in (0, 10, 100):
        f = frame(2, pad=pad)
        lens.append(len(f))
        sw.send1(1, f)
    sw.send1(1, frame(5, pad=3))
    assert sw.counter("MyIngress.c_both", 2) == (3, sum(lens))
    # BMv2 counts packets and bytes in every counter; simple_switch_grpc reads both back
    # whatever the unit (the unit says which count P4Runtime writes)
    assert sw.counter("MyIngress.c_pkts", 2) == (3, sum(lens))
    assert sw.counter("MyIngress.c_bytes", 2) == (3, sum(lens))
    assert sw.counter("MyIngress.c_both", 5) == (1, len(frame(5, pad=3)))
    for i in (0, 1, 3, 4, 6, 7):
        assert sw.counter("MyIngress.c_both", i) == (0, 0)


def test_direct_counter_counts_hits_of_its_entry(sw):
    sw.add("MyIngress.t_dc", "MyIngress.fwd", {"hdr.ctl.idx": 3},
           {"port": 4})
    sw.add("MyIngress.t_dc", "MyIngress.fwd", {"hdr.ctl.idx": 6}, {"port": 2})
    f1, f2 = frame(3, pad=1), frame(3, pad=20)
    assert sw.send1(0, f1)[0] == 4
    assert sw.send1(0, f2)[0] == 4
    assert sw.send1(0, frame(4))[0] == 1          # miss: no entry counted
    tid = sw.info.table("MyIngress.t_dc").preamble.id
    cells = {}
    for e in sw.pipe.table_entries(tid):
        key = e.matches[0].value
        cells[key] = counter_tuple(e.counter)
    assert cells[3] == (2, len(f1) + len(f2))
    assert cells[6] == (0, 0)


def test_register_accumulates_across_packets(sw):
    out = [sw.send1(1, frame(1, val=v))[1] for v in (5, 7, 0x100)]
    assert out[0] == frame(1, 5, 5)
    assert out[1] == frame(1, 7, 12)
    assert out[2] == frame(1, 0x100, 0x10C)
    assert sw.register_read("MyIngress.acc", 1) == 0x10C
    assert sw.register_read("MyIngress.acc", 0) == 0


def test_register_control_plane_write_and_wraparound(sw):
    sw.register_write("MyIngress.acc", 7, 0xFFFFFFFF)
    assert sw.send1(1, frame(7, val=2)) == (1, frame(7, 2, 1))
    assert sw.register_read("MyIngress.acc", 7) == 1
    sw.register_write("MyIngress.acc", 0, 100)
    assert sw.send1(1, frame(0, val=1)) == (1, frame(0, 1, 101))


def test_digest_contents(sw):
    src = mac("02:11:22:33:44:55")
    out = sw.send(9, frame(0, etype=0x9999, src=src))
    assert len(out) == 1
    did = sw.info.digest("learn_t").preamble.id
    assert sw.digests == [(did, (0x021122334455, 9, 0x5A))]


def test_no_digest_without_call(sw):
    sw.send(9, frame(0))
    assert sw.digests == []


def test_digest_sent_even_when_packet_dropped(sw):
    src = mac("02:00:00:00:00:07")
    assert sw.send(3, frame(0, etype=0x9998, src=src)) == []
    did = sw.info.digest("learn_t").preamble.id
    assert sw.digests == [(did, (0x020000000007, 3, 0xA5))]


def test_out_of_range_index_counts_nothing_and_packet_continues(sw):
    # BMv2 primitives.cpp count / register_write: index >= size -> error log, no update
    sw.register_write("MyIngress.acc", 0, 5)
    port, out = sw.send1(1, frame(8, val=3))
    assert port == 1 and out[:19] == frame(8, val=3)[:19]   # res is unspecified here
    for name in ("MyIngress.c_both", "MyIngress.c_pkts", "MyIngress.c_bytes"):
        assert all(sw.counter(name, i) == (0, 0) for i in range(8)), name
    assert [sw.register_read("MyIngress.acc", i) for i in range(8)] == [5, 0, 0, 0, 0, 0, 0, 0]


def test_counter_write_and_read_back(sw):
    from switch.runtime import CounterData

    cid = sw.info.counter("MyIngress.c_both").preamble.id
    sw.pipe.counter_write(cid, 4, CounterData(packets=10, bytes=1000))
    f = frame(4)
    sw.send1(1, f)
    assert sw.counter("MyIngress.c_both", 4) == (11, 1000 + len(f))


def test_only_last_digest_call_of_a_packet_is_sent(sw):
    # simple_switch.cpp: generate_digest stores one learn id per packet
    # (intrinsic lf_field_list); after ingress a single digest is generated
    sw.send(3, frame(0, etype=0x9997))
    assert sw.digests == [(sw.info.digest("other_t").preamble.id, (0x9997,))]
