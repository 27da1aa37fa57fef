"""Declarations and wide values: typedef, const, serializable enum in a header and in
select, struct-valued locals, header-to-header assignment, and
arithmetic on bit<128> / bit<72> (modulo 2^W like any bit<W>, P4-16 spec)."""
import pytest

from p4conf import Switch, eth, u8

PROG = "misc.p4"
M128, M72 = (1 << 128) - 1, (1 << 72) - 1
PAYLOAD = b"wide"


@pytest.fixture(scope="module")
def sw():
    return Switch(PROG)


def w(op, x, y):
    return u8(op) + x.to_bytes(16, "big") + y.to_bytes(9, "big")


@pytest.mark.parametrize("x,y", [(0, 0), (M128, 5), ((1 << 64) - 1, 1 << 71), (12345, M72)])
def test_add_wraps_at_128_and_72_bits(sw, x, y):
    f = eth(0x1234) + w(1, x, y) + PAYLOAD
    # x += (u128)(hi + OFFSET) = x + 5 ; y -= 1
    assert sw.send1(1, f) == (1, eth(0x1234) + w(1, (x + 5) & M128, (y - 1) & M72) + PAYLOAD)


def test_wide_shifts(sw):
    x = 0x0123456789ABCDEF_FEDCBA9876543210
    y = 0xAB_CDEF0123_456789AB
    f = eth(0x1234) + w(2, x, y) + PAYLOAD
    assert sw.send1(1, f) == (1, eth(0x1234) + w(2, (x << 68) & M128, y >> 4) + PAYLOAD)


def test_header_assignment_and_enum_select(sw):
    x = 0x11112222333344445555666677778888
    f = eth(0x1234) + w(3, x, 7) + w(9, 0, 0) + PAYLOAD
    # cp (parsed because op == COPY) = w, halves of x swapped, y replaced; w invalid
    swapped = ((x & ((1 << 64) - 1)) << 64) | (x >> 64)
    assert sw.send1(1, f) == (1, eth(0x1234) + w(3, swapped, 0x0102030405060708) + PAYLOAD)


def test_unknown_enum_value_takes_default(sw):
    f = eth(0x1234) + w(0x55, 9, 9) + PAYLOAD
    assert sw.send1(1, f) == (1, f)


def test_struct_initializer_and_list_to_header():
    sw2 = Switch("initializers.p4")
    f = eth(0x1234) + u8(0x10) + b"\x00\x05" + PAYLOAD
    assert sw2.send1(1, f) == (1, eth(0x1234) + u8(0x01) + b"\x00\x05" + u8(0x12) + b"\xbe\xef"
                               + PAYLOAD)
