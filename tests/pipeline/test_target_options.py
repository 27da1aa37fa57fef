"""The pipeline under simple_switch_grpc's --drop-port / --priority-queues (TargetOptions), in
process: the outputs BMv2 1.15.5 gave for programs/target_options.p4 (measured with the frames
below; tests/differential/test_target_options.py compares the two switches frame by frame where
BMv2 is installed)."""
from __future__ import annotations

import struct

import pytest

from pipeline_helpers import pipeline
from switch.runtime import TargetOptions

HDR = bytes.fromhex("000102030405000a0b0c0d0e88b5")


def run(pl, spec: int, op: int, prio: int = 0):
    """[(port, (spec, op, prio, egress_spec after mark_to_drop, egress_port, egress_spec in egress))]"""
    out = pl.process(1, HDR + struct.pack("!HBBHHH", spec, op, prio, 0, 0, 0))
    return [(p, struct.unpack("!HBBHHH", f[14:24])) for p, f in out]


def test_defaults_drop_port_511_one_queue():
    pl = pipeline("target_options.p4")
    assert run(pl, 2, 0) == [(2, (2, 0, 0, 2, 2, 0))]           # egress starts with egress_spec 512 & 0x1ff
    assert run(pl, 2, 1) == []                                   # mark_to_drop in ingress
    assert run(pl, 2, 3) == [(3, (2, 3, 0, 511, 3, 0))]          # mark_to_drop wrote 511, then port 3
    assert run(pl, 511, 0) == [] and run(pl, 2, 4) == [] and run(pl, 2, 16) == []
    assert run(pl, 5, 0) == [(5, (5, 0, 0, 5, 5, 0))] and run(pl, 2, 8) == [(2, (2, 8, 0, 2, 2, 0))]
    assert run(pl, 2, 0, 1) == []                                # priority 1 with one queue


def test_drop_port_5_four_queues():
    pl = pipeline("target_options.p4")
    pl.set_target_options(TargetOptions(drop_port=5, priority_queues=4))
    assert run(pl, 2, 0) == [(2, (2, 0, 0, 2, 2, 6))]           # egress starts with egress_spec 6
    assert run(pl, 2, 3) == [(3, (2, 3, 0, 5, 3, 6))]           # mark_to_drop writes the drop port
    assert run(pl, 5, 0) == [] and run(pl, 2, 8) == []           # egress_spec 5 drops, in ingress and egress
    assert run(pl, 2, 16) == [(2, (2, 16, 0, 2, 2, 6))]          # egress_spec 511 in egress: not a drop now
    assert run(pl, 2, 4) == []                                   # mark_to_drop in egress
    assert run(pl, 2, 0, 3) == [(2, (2, 0, 3, 2, 2, 6))] and run(pl, 2, 0, 4) == []


def test_target_options_are_checked():
    for bad in (dict(drop_port=512), dict(drop_port=-1), dict(priority_queues=0), dict(dump_packet_data=-1)):
        with pytest.raises(ValueError):
            TargetOptions(**bad)


def test_dump_packet_data_in_the_trace():
    pl = pipeline("target_options.p4")
    lines = []
    pl.trace = lines.append
    pl.set_target_options(TargetOptions(dump_packet_data=4))
    run(pl, 2, 0)
    assert lines.count("packet data: 00 01 02 03") == 2, lines     # received and sent
    assert any(line.startswith("out port 2") for line in lines), lines
