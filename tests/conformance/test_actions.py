"""Actions and control flow: directional parameters (in/out/inout), actions calling
actions, control-plane action data, local variables, functions with return, return
from an action / the ingress apply block / an applied sub-control, exit (ingress ends, egress still runs), egress_spec default 0.

P4-16 spec: "Actions", "Functions", "Calling convention" (copy-in/copy-out),
"Return statement", "Exit statement" (exit ends the current top-level control;
v1model/BMv2 then continues with the traffic manager and egress: simple_switch.cpp
ingress_thread calls `packet->reset_exit()` after the ingress pipeline).
"""
import struct

import pytest

from p4conf import Switch, eth, u8

PROG = "actions.p4"
PAYLOAD = b"payload"


@pytest.fixture
def sw():
    return Switch(PROG)


def frame(op=0, a=0, b=0, c=0, d=0, e=0, g=0, h=0):
    return eth(0x1234) + u8(op, a, b, c, d, e, g, h) + PAYLOAD


def test_directional_params_locals_function(sw):
    port, out = sw.send1(1, frame(op=0, a=10, b=0x99, c=0x05, d=7, h=1))
    # a += 5; b = a + 1 (out param, sees new a); c = max8(c << 1, 0x10); e from Sub;
    # d += 1; g set in egress
    assert (port, out) == (3, frame(op=0, a=15, b=16, c=0x10, d=8, e=0xE2, g=0x77, h=1))


@pytest.mark.parametrize("c_in,c_out", [(0x40, 0x80), (0x90, 0x20), (0x08, 0x10), (0x00, 0x10)])
def test_local_variable_shift_wraps_then_max(sw, c_in, c_out):
    assert sw.send1(1, frame(c=c_in)) == (3, frame(a=5, b=6, c=c_out, d=1, e=0xE2, g=0x77))


def test_inout_wraparound(sw):
    assert sw.send1(1, frame(a=0xFE)) == (3, frame(a=0x03, b=0x04, c=0x10, d=1, e=0xE2, g=0x77))


def test_return_in_action_only_leaves_the_action(sw):
    assert sw.send1(1, frame(op=2, d=0x20)) == (
        3, frame(op=2, a=5, b=6, c=0x10, d=0x21, e=0xE1, g=0x77))


def test_return_in_ingress_apply_ends_ingress_egress_runs(sw):
    assert sw.send1(1, frame(op=6, d=0x20)) == (
        3, frame(op=6, a=5, b=6, c=0x10, d=0xD6, e=0xE2, g=0x77))


@pytest.mark.parametrize("op,e", [(2, 0xE1), (0, 0xE2)])
def test_return_in_applied_subcontrol_returns_to_caller(op, e):
    sub = Switch("subcontrol.p4")
    f = eth(0x1234) + u8(op, 0, 0x40) + PAYLOAD
    assert sub.send1(1, f) == (3, eth(0x1234) + u8(op, e, 0x41) + PAYLOAD)


def test_exit_in_apply_skips_rest_of_ingress_but_egress_runs(sw):
    assert sw.send1(1, frame(op=1, d=0x20)) == (
        3, frame(op=1, a=5, b=6, c=0x10, d=0xD2, e=0xE2, g=0x77))


def test_exit_in_action(sw):
    sw.add("MyIngress.t_act", "MyIngress.do_exit", {"hdr.t.op": 3})
    assert sw.send1(1, frame(op=3, d=0x20)) == (
        3, frame(op=3, a=5, b=6, c=0x10, d=0xD1, e=0xE2, g=0x77))


def test_action_calls_action_with_control_plane_data(sw):
    sw.add("MyIngress.t_act", "MyIngress.twice", {"hdr.t.op": 4}, {"k": 3})
    assert sw.send1(1, frame(op=4, h=0x10)) == (
        3, frame(op=4, a=5, b=6, c=0x10, d=1, e=0xE2, g=0x77, h=0x16))


def test_exit_before_egress_spec_goes_to_port_0(sw):
    # egress_spec is never written: it keeps its initial value 0 -> port 0, not dropped
    assert sw.send1(4, frame(op=5, a=1)) == (0, frame(op=5, a=1, g=0x77))


@pytest.mark.parametrize("a,b", [(0, 0x5C), (10, 0x10), (200, 0xA0)])
def test_functions_with_directional_parameters(a, b):
    sw = Switch("functions.p4")
    f = eth(0x1234) + u8(a, b, 0, 0) + PAYLOAD
    a2 = (a + 3) & 0xFF
    cls = 1 if a2 < 10 else 2 if a2 < 100 else 3
    assert sw.send1(1, f) == (1, eth(0x1234) + u8(a2, cls << 1, b >> 4, b & 0x0F) + PAYLOAD)


# Semantics also exercised by p4c's gauntlet STF tests on BMv2
# (gauntlet_copy_out-bmv2: control-level `bit<8> c = 8w12;` read through an inout action
# parameter; gauntlet_invalid_hdr_assign-bmv2: a function with an unwritten `out H`
# parameter makes the header invalid, so it is no longer emitted).

def test_control_level_variable_initialized_per_packet():
    sw = Switch("locals.p4")
    f = eth(0x1234) + u8(0, 0, 0x33, 0x44) + PAYLOAD
    for _ in range(3):                      # 12 -> 13 -> 14 every time, never carried over
        assert sw.send1(1, f) == (1, eth(0x1234) + u8(14, 0, 0x33, 0x44) + PAYLOAD)


@pytest.mark.parametrize("how", [1, 2])
def test_unwritten_out_header_parameter_invalidates_header(how):
    sw = Switch("locals.p4")
    f = eth(0x1234) + u8(0, how, 0x33, 0x44) + PAYLOAD
    assert sw.send1(1, f) == (1, eth(0x1234) + u8(14, how) + PAYLOAD)


@pytest.mark.parametrize("x,y,flags", [((7, 9), (7, 9), 1 | 2 | 4 | 8),
                                       ((0, 0), (7, 9), 4 | 8)])
def test_header_equality(x, y, flags):
    sw = Switch("hdr_eq.p4")
    body = struct.pack("!HHHH", *x, *y)
    assert sw.send1(1, eth(0x1234) + body + PAYLOAD) == (
        1, eth(0x1234) + body + u8(flags) + PAYLOAD)
