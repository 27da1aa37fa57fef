"""hash() extern: algorithms as BMv2 implements them (bm_sim/calculations.cpp):
crc16 = CRC-16/ARC (poly 0x8005 reflected, init 0, xorout 0; check "123456789" ->
0xBB3D), crc32 = CRC-32/ISO-HDLC (check 0xCBF43926), csum16 = RFC 1071 ones'
complement sum, identity = the input bytes as a big-endian integer.  The field list
is the concatenation of the fields' bytes.  v1model/BMv2 result: base + (H % max)
(simple_switch.md "BMv2 hash implementation notes"), truncated to the result width.
"""
import struct
import zlib

import pytest

from p4conf import Switch, eth, ipv4_csum, u32
from tests.oracles import crc16_arc

PROG = "hash.p4"
RES = "!HIHIHBH"


@pytest.fixture(scope="module")
def sw():
    return Switch(PROG)


def test_reference_models_match_published_check_values():
    assert crc16_arc(b"123456789") == 0xBB3D
    assert zlib.crc32(b"123456789") == 0xCBF43926
    wiki = bytes.fromhex("450000730000400040110000c0a80001c0a800c7")
    assert ipv4_csum(wiki) == 0xB861


IPHDR = bytes.fromhex("450000730000400040110000c0a80001c0a800c7")


@pytest.mark.parametrize("d,id4,ip", [
    (b"123456789", 0xDEADBEEF, IPHDR),
    (bytes(range(0xF0, 0xF9)), 0x00000001, bytes.fromhex("4500003c1c4640004006ffffac100a63ac100a0c")),
    (b"\x00" * 9, 0xFFFFFFFF, b"\x00" * 20),
])
def test_hash_algorithms(sw, d, id4, ip):
    f = eth(0x1234) + d + u32(id4) + ip + b"tail"
    port, out = sw.send1(1, f)
    assert port == 1
    # inserted res_t comes after ip_t; "tail" is unparsed payload and stays last
    assert out[: len(f) - 4] == f[:-4] and out.endswith(b"tail")
    res = out[len(f) - 4: -4]
    got = struct.unpack(RES, res)
    c16, c32 = crc16_arc(d), zlib.crc32(d)
    exp = (c16, c32, ipv4_csum(ip), id4, 100 + c16 % 1000, (3 + c32 % 7) & 0xFF, 55)
    names = ("crc16", "crc32", "csum16", "identity", "crc16 base100 max1000",
             "crc32 base3 max7", "crc16 base55 max1")
    mism = {n: (hex(g), hex(e)) for n, g, e in zip(names, got, exp) if g != e}
    assert not mism, mism


def test_known_vector_bytes(sw):
    f = eth(0x1234) + b"123456789" + u32(0xDEADBEEF) + IPHDR
    out = sw.send1(1, f)[1]
    assert out[len(f):len(f) + 12] == bytes.fromhex("bb3d" "cbf43926" "b861" "deadbeef")


def pack_bits(fields):
    """Concatenate (value, width) MSB-first and pad with zero bits to whole bytes."""
    v, n = 0, 0
    for val, w in fields:
        v = (v << w) | (val & ((1 << w) - 1))
        n += w
    pad = (-n) % 8
    return (v << pad).to_bytes((n + pad) // 8, "big")


@pytest.mark.parametrize("a,b,vid,port", [(0xA, 0x5, 0xABC, 0x1FE), (1, 2, 3, 4), (0, 0, 0, 0)])
def test_hash_over_unaligned_fields(a, b, vid, port):
    sw = Switch("hash_bits.p4")
    f = eth(0x1234) + bytes([(a << 4) | b]) + ((vid << 4) & 0xFFFF).to_bytes(2, "big") + b"pl"
    out_port, out = sw.send1(port, f)
    h1 = crc16_arc(pack_bits([(a, 4), (port, 9), (vid & 7, 3)]))
    h2 = crc16_arc(pack_bits([(vid, 12)]))
    h3 = zlib.crc32(pack_bits([(b, 4), (vid, 12), (a, 4)]))
    assert out_port == 1
    assert out == f[:-2] + struct.pack("!HHI", h1, h2, h3) + b"pl"
