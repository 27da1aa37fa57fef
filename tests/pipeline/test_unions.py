"""header_union (unions.p4)."""
from pipeline_helpers import pipeline

MAC = bytes(12)


def test_union_members():
    pl = pipeline("unions.p4")
    assert pl.process(0, MAC + b"\xaa\xaa\x07pl") == [(1, MAC + b"\xaa\xaa\x03\x07pl")]
    assert pl.process(0, MAC + b"\xbb\xbb\x01\x02pl") == [(1, MAC + b"\xbb\xbb\x05\x01\x02pl")]
    assert pl.process(0, MAC + b"\x08\x00pl") == [(1, MAC + b"\x08\x00\x00pl")]
    # a.x == 0xFF: b.setValid() invalidates a; only b is emitted
    assert pl.process(0, MAC + b"\xaa\xaa\xffpl") == [(1, MAC + b"\xbb\xbb\x03\x12\x34pl")]
