"""Deparser: emit order is the deparser's, not the parser's; invalid headers are not
emitted; validity changes made in ingress are honoured; payload follows.
(P4-16 spec "Deparsing"/"emit": emit of an invalid header is a no-op.)
"""
import pytest

from p4conf import Switch, eth, u8, u16, u32

PROG = "deparse.p4"
PAYLOAD = b"0123456789"


@pytest.fixture
def sw():
    return Switch(PROG)


def inp(op, x=0x1234):
    return eth(0x88B8) + u16(x) + u8(op) + PAYLOAD


def test_reordered_emit(sw):
    assert sw.send1(1, inp(0)) == (6, eth(0x88B8) + u8(0) + u16(0x1234) + PAYLOAD)


def test_set_invalid_not_emitted(sw):
    assert sw.send1(1, inp(1)) == (6, eth(0x88B8) + u8(1) + PAYLOAD)


def test_set_valid_new_header_emitted_first(sw):
    assert sw.send1(1, inp(2)) == (
        6, eth(0x88B8) + u32(0xCAFEBABE) + u8(2) + u16(0x1235) + PAYLOAD)


def test_write_to_invalid_header_not_emitted(sw):
    assert sw.send1(1, inp(3)) == (6, eth(0x88B8) + u8(3) + u16(0x1234) + PAYLOAD)


def test_set_valid_on_valid_header_keeps_contents(sw):
    assert sw.send1(1, inp(5, x=0xBEEF)) == (6, eth(0x88B8) + u8(5) + u16(0xBEEF) + PAYLOAD)


def test_set_valid_then_invalid_not_emitted(sw):
    assert sw.send1(1, inp(6)) == (6, eth(0x88B8) + u8(6) + u16(0x1234) + PAYLOAD)


def test_unparsed_headers_stay_payload(sw):
    f = eth(0x0800) + b"\x45" + b"\x00" * 19 + PAYLOAD
    assert sw.send1(1, f) == (6, eth(0xFFFF) + f[14:])


# BMv2-specific (P4-16 leaves these unspecified): setValid() compiles to BMv2's
# add_header primitive, which zeroes every field of a header that was invalid
# (primitives.cpp add_header -> Header::reset(), headers.cpp sets each field to 0);
# setInvalid() only clears the valid bit, so the old field values can still be read.

def test_bmv2_set_valid_zeroes_new_header(sw):
    assert sw.send1(1, inp(7)) == (6, eth(0x88B8) + u32(0) + u8(7) + u16(0x1235) + PAYLOAD)


def test_bmv2_set_valid_after_set_invalid_zeroes(sw):
    assert sw.send1(1, inp(8, x=0xBEEF)) == (6, eth(0x88B8) + u8(8) + u16(0) + PAYLOAD)


def test_bmv2_read_of_invalidated_header_keeps_old_value(sw):
    assert sw.send1(1, inp(9, x=0xBE42)) == (6, eth(0x88B8) + u8(0x42) + PAYLOAD)
