"""Parser constructs (parsing.p4): stacks, lookahead, select masks/ranges/tuples,
verify and parser errors (which do not drop: BMv2 sets parser_error and goes on)."""
import struct

import pytest

from pipeline_helpers import pipeline

ETH = bytes.fromhex("020000000001" "020000000002")
PAY = b"PAYLOAD!"


def mpls(label, bos, ttl=9):
    return struct.pack("!I", (label << 12) | (bos << 8) | ttl)


def out(err, depth, peek, klass):
    return bytes([err, depth, peek, klass])


@pytest.fixture(scope="module")
def pl():
    return pipeline("parsing.p4")


def run(pl, f):
    res = pl.process(0, f)
    assert len(res) == 1 and res[0][0] == 1
    return res[0][1]


def test_stack_lookahead_and_tuple_select(pl):
    body = mpls(5, 0) + mpls(6, 1) + bytes([0x4A, 0xAB]) + PAY
    got = run(pl, ETH + b"\x88\x47" + body)
    assert got == ETH + b"\x88\x47" + out(0, 2, 0x4A, 0) + body


def test_range_keyset_inside_tuple(pl):
    got = run(pl, ETH + b"\x88\x47" + mpls(5, 1) + bytes([0x42, 0x01]) + PAY)
    assert got == ETH + b"\x88\x47" + out(0, 1, 0x42, 1) + mpls(5, 1) + bytes([0x42, 0x01]) + PAY


def test_stack_overflow_sets_stack_out_of_bounds(pl):
    body = mpls(1, 0) + mpls(2, 0) + mpls(3, 0) + mpls(4, 1) + PAY
    got = run(pl, ETH + b"\x88\x47" + body)
    # three elements extracted, the 4th extract fails; the rest stays payload
    assert got == ETH + b"\x88\x47" + out(3, 3, 0, 0) + body


def test_pop_and_push_front(pl):
    got = run(pl, ETH + b"\x88\x47" + mpls(100, 0) + mpls(7, 1) + bytes([0x45, 0x20]) + PAY)
    assert got == ETH + b"\x88\x47" + out(0, 2, 0x45, 0) + mpls(7, 1) + bytes([0x45, 0x20]) + PAY
    got = run(pl, ETH + b"\x88\x47" + mpls(200, 1) + bytes([0x45, 0x20]) + PAY)
    assert got == ETH + b"\x88\x47" + out(0, 1, 0x45, 0) + mpls(999, 0, 64) + mpls(200, 1) + \
        bytes([0x45, 0x20]) + PAY


def test_masked_keyset_and_verify_error(pl):
    got = run(pl, ETH + b"\x91\x23" + bytes([0x47, 0x10]) + PAY)
    assert got == ETH + b"\x91\x23" + out(0, 0, 0, 0) + bytes([0x47, 0x10]) + PAY
    # version 5: verify fails -> BadVersion; v stays valid (extract succeeded)
    got = run(pl, ETH + b"\x9f\xff" + bytes([0x51, 0x10]) + PAY)
    assert got == ETH + b"\x9f\xff" + out(7, 0, 0, 0) + bytes([0x51, 0x10]) + PAY


def test_advance_and_short_packet(pl):
    # the 16 bits skipped by advance() are consumed: they are not in the output
    got = run(pl, ETH + b"\x06\x10" + b"\x01\x02\x03" + PAY)
    assert got == ETH + b"\x06\x10" + out(0, 0, 0x03, 0) + b"\x03" + PAY
    got = run(pl, ETH + b"\x88\x47" + b"\x00\x01")
    assert got == ETH + b"\x88\x47" + out(1, 0, 0, 0) + b"\x00\x01"
    # lookahead past the end is PacketTooShort too
    got = run(pl, ETH + b"\x06\x10" + b"\x01\x02")
    assert got == ETH + b"\x06\x10" + out(1, 0, 0, 0)
