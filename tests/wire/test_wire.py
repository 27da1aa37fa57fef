import struct

import pytest

from checkmate import wire
from checkmate.wire import ChunkHeader


def _limits():
    for name, bits in wire.FIELDS:
        if name == "version":
            continue
        for v in (0, 1, (1 << bits) - 1):
            if name == "flags" and v & ~wire.FLAGS_KNOWN:
                v = wire.FLAGS_KNOWN
            if name == "dtype" and v not in wire.DTYPE_SIZE:
                v = wire.DTYPE_BF16
            yield name, v


@pytest.mark.parametrize("name,value", list(_limits()))
def test_roundtrip_every_field_at_its_limits(name, value):
    h = ChunkHeader(**{name: value})
    raw = h.pack()
    assert len(raw) == wire.HEADER_LEN == 32
    payload = bytes(h.payload_bytes)
    assert ChunkHeader.unpack(raw + payload) == h
    assert wire.unpack_fields(raw + payload) == tuple(getattr(h, n) for n, _ in wire.FIELDS)


def test_layout_is_big_endian_and_matches_doc_offsets():
    h = ChunkHeader(flags=wire.FLAG_FINAL, step=3, job_id=0x01020304, iteration=0x0A0B0C0D,
                    rank=0x1112, bucket=0x2122, param_id=0x31323334, offset=0x41424344,
                    count=0, aux=0x5152, seq=0x61626364)
    raw = h.pack()
    assert raw[0] == 1 and raw[1] == 1 and raw[2] == 0 and raw[3] == 3
    assert raw[4:8] == bytes([1, 2, 3, 4])
    assert raw[8:12] == bytes([0xA, 0xB, 0xC, 0xD])
    assert raw[12:14] == b"\x11\x12" and raw[14:16] == b"\x21\x22"
    assert raw[16:20] == b"\x31\x32\x33\x34" and raw[20:24] == b"\x41\x42\x43\x44"
    assert raw[24:26] == b"\x00\x00" and raw[26:28] == b"\x51\x52"
    assert raw[28:32] == b"\x61\x62\x63\x64"


@pytest.mark.parametrize("name", [n for n, _ in wire.FIELDS])
def test_out_of_range_values_name_the_field(name):
    with pytest.raises(wire.FieldError) as e:
        ChunkHeader(**{name: wire.FIELD_MAX[name] + 1}).pack()
    assert e.value.field == name and name in str(e.value)
    with pytest.raises(wire.FieldError):
        ChunkHeader(**{name: -1}).pack()


def test_short_buffer():
    raw = ChunkHeader().pack()
    for n in range(wire.HEADER_LEN):
        with pytest.raises(wire.TruncatedError):
            ChunkHeader.unpack(raw[:n])


def test_bad_version():
    raw = bytearray(ChunkHeader().pack())
    for v in (0, 2, 255):
        raw[0] = v
        with pytest.raises(wire.VersionError) as e:
            wire.unpack_fields(raw)
        assert e.value.field == "version"


def test_unknown_flags_and_dtype():
    raw = bytearray(ChunkHeader().pack())
    raw[1] = 0x80
    with pytest.raises(wire.FieldError, match="flags"):
        ChunkHeader.unpack(raw)
    raw[1] = 0
    raw[2] = 7
    with pytest.raises(wire.FieldError, match="dtype"):
        ChunkHeader.unpack(raw)


def test_length_beyond_payload():
    h = ChunkHeader(count=10)
    raw = h.pack() + bytes(39)  # one byte short of 10 x fp32
    with pytest.raises(wire.LengthError) as e:
        wire.decode(raw)
    assert e.value.field == "count"
    with pytest.raises(wire.LengthError):
        wire.unpack_fields(h.pack() + bytes(40), payload_len=8)
    with pytest.raises(wire.LengthError):
        wire.encode(h, bytes(8))


def test_decode_is_zero_copy_and_trims_trailing_bytes():
    h = ChunkHeader(count=2, flags=wire.FLAG_FINAL)
    buf = bytearray(wire.encode(h, struct.pack("!2f", 1.5, -2.0)) + b"pad")
    h2, payload = wire.decode(buf)
    assert h2 == h and h2.is_final and not h2.is_ack
    assert bytes(payload) == struct.pack("!2f", 1.5, -2.0)
    buf[wire.HEADER_LEN] ^= 0xFF
    assert payload[0] == buf[wire.HEADER_LEN]


def test_max_elements():
    assert wire.max_elements(1500) == (1500 - 28 - 32) // 4 == 360
    assert wire.max_elements(9000) == (9000 - 28 - 32) // 4
    assert wire.max_elements(1500, wire.DTYPE_FP16) == 720
    with pytest.raises(wire.FieldError):
        wire.max_elements(40)


def test_scapy_layer_dissects_packed_header_identically():
    import scapy.all  # noqa: F401  (loads every layer, VXLAN's claim on 48879 included)
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    from checkmate.wire_scapy import Checkmate

    h = ChunkHeader(flags=wire.FLAG_FINAL | wire.FLAG_RETX, job_id=7, iteration=123456,
                    rank=2, bucket=5, param_id=17, offset=4096, count=3, aux=9, seq=0xFFFFFFFF, step=4)
    payload = struct.pack("!3f", 1.0, 2.0, 3.0)
    frame = bytes(Ether() / IP(src="10.77.0.1", dst="10.77.0.2") /
                  UDP(sport=1234, dport=wire.CHECKMATE_UDP_PORT) / (h.pack() + payload))
    pkt = Ether(frame)
    cm = pkt[Checkmate]
    for name, _ in wire.FIELDS:
        assert int(getattr(cm, name)) == getattr(h, name), name
    assert bytes(cm.payload) == payload
    # and scapy-built headers pack to the same bytes
    assert bytes(Checkmate(**{n: getattr(h, n) for n, _ in wire.FIELDS})) == h.pack()
    # the shadow port is dissected too
    pkt2 = Ether(bytes(Ether() / IP() / UDP(sport=wire.CHECKMATE_UDP_PORT, dport=wire.SHADOW_UDP_PORT) / (h.pack() + payload)))
    assert pkt2[Checkmate].param_id == 17
