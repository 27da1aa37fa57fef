"""Small constructs common in real programs: a keyless table (P4Info: no match fields;
it always executes its default action and .hit is false — BMv2 looks up an empty key
in an empty table), bool <-> bit<1> casts (P4-16 spec "Casts"), and `emit(hdr)` of the
whole headers struct (P4-16 spec "emit": a struct argument emits its fields in order)."""
import pytest

from p4conf import P4Info, Switch, compiled, eth, u8

PAYLOAD = b"small"


@pytest.fixture(scope="module")
def sw():
    return Switch("small.p4")


@pytest.mark.parametrize("a,b", [(3, 2), (2, 3), (4, 4), (0xFF, 0xEE)])
def test_keyless_casts_emit_struct(sw, a, b):
    f = eth(0x1234) + u8(a, b, 0) + PAYLOAD
    flags = (1 if a > b else 0) | (2 if a & 1 else 0)
    extra = u8(0x99) if b == 0xEE else b""
    assert sw.send1(1, f) == (5, eth(0x1234) + u8(a, b, flags) + extra + PAYLOAD)


def test_keyless_table_p4info():
    info = P4Info(compiled("small.p4").p4info)
    t = info.tables["MyIngress.keyless"]
    assert list(t.match_fields) == []
