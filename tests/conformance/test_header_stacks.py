"""Header stacks in controls: push_front / pop_front / indexing / element validity.

P4-16 spec, "Header stacks": push_front(n) shifts elements towards higher indices,
the first n become invalid and the last n are lost; pop_front(n) shifts towards
lower indices and invalidates the last n.  The deparser's emit of a stack emits the
valid elements in index order.  (Parser-side next/last are in test_parser.py.)
"""
import pytest

from p4conf import Switch, eth, u8

PROG = "stack.p4"
PAYLOAD = b"PAYLOAD-after-stack"


@pytest.fixture
def sw():
    return Switch(PROG)


def el(v, bos=0):
    return u8(((v & 0x7F) << 1) | bos)


def frame(op, arg, elems):
    return eth(0x88B6) + u8(op, arg) + b"".join(elems) + PAYLOAD


A, B, C, D = 0x10, 0x21, 0x32, 0x43
THREE = [el(A), el(B), el(C, 1)]
FOUR = [el(A), el(B), el(C), el(D, 1)]


def test_no_op_roundtrip(sw):
    f = frame(0, 0, THREE)
    assert sw.send1(1, f) == (1, f)


def test_push_front_one_then_set_new_front(sw):
    out = sw.send1(1, frame(1, 0x55, THREE))
    assert out == (1, frame(1, 0x55, [el(0x55)] + THREE))


def test_push_front_on_full_stack_drops_last(sw):
    out = sw.send1(1, frame(1, 0x7E, FOUR))
    assert out == (1, frame(1, 0x7E, [el(0x7E), el(A), el(B), el(C)]))


def test_pop_front_one(sw):
    assert sw.send1(1, frame(2, 0, THREE)) == (1, frame(2, 0, [el(B), el(C, 1)]))


def test_pop_front_two(sw):
    assert sw.send1(1, frame(6, 0, THREE)) == (1, frame(6, 0, [el(C, 1)]))


def test_push_front_two_leaves_invalid_slots_unemitted(sw):
    # [a, b, c] -> [-, -, a, b]: c falls off the end, the new slots are invalid
    assert sw.send1(1, frame(5, 0, THREE)) == (1, frame(5, 0, [el(A), el(B)]))


def test_constant_index_read_write_wraps_in_field_width(sw):
    elems = [el(0x50), el(0x40), el(0x01, 1)]
    # s[2].v = s[0].v + s[1].v = 0x90 -> 7-bit field -> 0x10; bos of s[2] untouched
    assert sw.send1(1, frame(3, 0, elems)) == (1, frame(3, 0, [el(0x50), el(0x40), el(0x10, 1)]))


def test_set_invalid_middle_element_not_emitted(sw):
    assert sw.send1(1, frame(4, 0, THREE)) == (1, frame(4, 0, [el(A), el(C, 1)]))


@pytest.mark.parametrize("idx", [0, 1, 2, 3, 9])
def test_runtime_index_and_local_header_copy(idx):
    sw = Switch("stack_rt.p4")
    vals = [0x100, 0x200, 0x300, 0x400]
    f = eth(0x88B6) + u8(idx, 5) + b"".join(v.to_bytes(2, "big") for v in vals) + PAYLOAD
    i = min(idx, 3)
    new = list(vals)
    new[i] += 5
    exp = eth(0x88B6) + u8(idx, 5) + b"".join(v.to_bytes(2, "big") for v in new) + \
        new[i].to_bytes(2, "big") + PAYLOAD
    assert sw.send1(1, f) == (1, exp)
