"""Meters (trTCM, RFC 2698 colour semantics as implemented by BMv2 bm_sim/meters.cpp):
GREEN=0, YELLOW=1, RED=2; an unconfigured meter returns GREEN; buckets start full
(tokens = burst size); a packet meter takes 1 token per packet; the peak bucket is
tested first (empty -> RED), then the committed one (empty -> YELLOW), and a GREEN
packet takes a token from both.  Rates are per second (P4Runtime MeterConfig); with
1 packet/s the buckets do not refill during a sub-second test.
"""
import pytest

from p4conf import Switch, eth, u8

PROG = "meters.p4"
GREEN, YELLOW, RED = 0, 1, 2


@pytest.fixture
def sw():
    return Switch(PROG)


def frame(idx, color=0xFF, dcolor=0xEE):
    return eth(0x1234) + u8(idx, color, dcolor) + b"pp"


def colors(sw, idx, n):
    out = []
    for _ in range(n):
        port, f = sw.send1(1, frame(idx))
        assert port == 1
        out.append(f[15])
    return out


def cfg(cir, cburst, pir, pburst):
    from switch.runtime import MeterConfig

    return MeterConfig(cir=cir, cburst=cburst, pir=pir, pburst=pburst)


def test_unconfigured_meter_is_green(sw):
    assert colors(sw, 0, 5) == [GREEN] * 5


def test_green_yellow_red_sequence(sw):
    sw.pipe.meter_set(sw.info.meter("MyIngress.m").preamble.id, 1, cfg(1, 1, 1, 2))
    # pkt1: P 2->1, C 1->0 GREEN; pkt2: P 1->0, C empty YELLOW; then P empty: RED
    assert colors(sw, 1, 5) == [GREEN, YELLOW, RED, RED, RED]
    assert colors(sw, 2, 2) == [GREEN, GREEN]        # other cells unconfigured


def test_large_bursts_stay_green(sw):
    sw.pipe.meter_set(sw.info.meter("MyIngress.m").preamble.id, 3, cfg(1, 10, 1, 20))
    assert colors(sw, 3, 10) == [GREEN] * 10
    assert colors(sw, 3, 10) == [YELLOW] * 10
    assert colors(sw, 3, 1) == [RED]


def test_direct_meter_on_entry(sw):
    e = sw.entry("MyIngress.t_dm", "MyIngress.mark", {"hdr.ctl.idx": 0})
    e.meter = cfg(1, 1, 1, 1)
    sw.pipe.table_insert(sw.info.table("MyIngress.t_dm").preamble.id, e)
    got = [sw.send1(1, frame(0))[1][16] for _ in range(3)]
    # P and C both hold 1 token: GREEN, then the peak bucket is empty -> RED
    assert got == [GREEN, RED, RED]


def test_direct_meter_unconfigured_entry_is_green(sw):
    sw.add("MyIngress.t_dm", "MyIngress.mark", {"hdr.ctl.idx": 2})
    got = [sw.send1(1, frame(2))[1][16] for _ in range(3)]
    assert got == [GREEN] * 3


def test_miss_leaves_direct_color_untouched(sw):
    assert sw.send1(1, frame(3)) == (1, frame(3, GREEN, 0xEE))


def test_bytes_meter_takes_frame_length_tokens(sw):
    # a bytes meter takes the packet's (ingress) length in tokens per packet
    sw.pipe.meter_set(sw.info.meter("MyIngress.mb").preamble.id, 1, cfg(1, 100, 1, 200))
    f = frame(0x81) + b"\0" * (60 - len(frame(0x81)))
    assert len(f) == 60
    got = []
    for _ in range(5):
        port, out = sw.send1(1, f)
        got.append(out[15])
    # P200 C100: G (P140 C40), Y (P80), Y (P20), R, R
    assert got == [GREEN, YELLOW, YELLOW, RED, RED]
