"""calc.p4: lookahead<header>() in select, const entries, nested action calls."""
import struct

import pytest

from pipeline_helpers import pipeline

A, B = "0a0000000001", "0a0000000002"


def calc(op, a, b, magic=b"P4\x01"):
    return bytes.fromhex(A + B) + b"\x12\x34" + magic + op.encode() + struct.pack("!III", a, b, 0)


@pytest.fixture(scope="module")
def pl():
    return pipeline("calc.p4")


@pytest.mark.parametrize("op,a,b,res", [
    ("+", 7, 5, 12), ("-", 5, 7, (5 - 7) & 0xFFFFFFFF), ("&", 0xF0F0, 0xFF00, 0xF000),
    ("|", 1, 2, 3), ("^", 0xFF, 0x0F, 0xF0), ("+", 0xFFFFFFFF, 1, 0),
])
def test_operations_reply_on_ingress_port(pl, op, a, b, res):
    out = pl.process(6, calc(op, a, b) + b"tail")
    assert out == [(6, bytes.fromhex(B + A) + b"\x12\x34P4\x01" + op.encode() +
                    struct.pack("!III", a, b, res) + b"tail")]


def test_unknown_op_and_bad_magic_are_dropped(pl):
    assert pl.process(1, calc("*", 1, 2)) == []
    assert pl.process(1, calc("+", 1, 2, magic=b"P5\x01")) == []
    assert pl.process(1, bytes.fromhex(A + B) + b"\x12\x34P4") == []   # lookahead too short
