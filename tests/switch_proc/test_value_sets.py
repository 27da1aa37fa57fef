"""Parser value sets over real gRPC: ValueSetEntry MODIFY / Read on a ``value_set<S>`` of a
struct (one match field per member of ``S``) and the frames it steers, on a
``checkmate-switch`` process.  (simple_switch_grpc 1.15.5 answers these writes with
UNIMPLEMENTED, so they have no BMv2 differential case; see docs/CONFORMANCE.md.)"""
from __future__ import annotations

import json
import struct
from pathlib import Path

import grpc
import pytest
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2

PROGRAMS = Path(__file__).resolve().parent / "programs"

P = p4runtime_pb2
ETH = bytes.fromhex("000000000002" "000000000001")


def frame(etype: int, v: int, w: int) -> bytes:
    return ETH + struct.pack("!HBH", etype, v, w) + b"payload"


def member(vse, *fields):
    """fields: an int (exact), a (value, mask) pair (ternary) or a range("lo", "hi") dict, by field id 1.."""
    m = vse.members.add()
    for fid, (val, width) in enumerate(fields, 1):
        fm = m.match.add(field_id=fid)
        if isinstance(val, dict):
            fm.range.low, fm.range.high = (val[k].to_bytes(width, "big") for k in ("lo", "hi"))
        elif isinstance(val, tuple):
            fm.ternary.value, fm.ternary.mask = (x.to_bytes(width, "big") for x in val)
        else:
            fm.exact.value = val.to_bytes(width, "big")


@pytest.fixture
def vset_sw(start_switch, hosts, connect):
    from switch.compiler import compile_file
    prog = compile_file(PROGRAMS / "struct_vset.p4")
    cfg = P.ForwardingPipelineConfig(p4_device_config=json.dumps(prog.device_config).encode())
    cfg.p4info.CopyFrom(prog.p4info)
    sp = start_switch(hosts)
    ctl = connect(sp.grpc_addr)
    assert ctl.arbitrate(10).status.code == 0
    ctl.set_pipeline(cfg)
    ids = {v.preamble.name: v.preamble.id for v in prog.p4info.value_sets}
    return ctl, ids, prog.p4info


def test_struct_value_set_write_read_and_steer(vset_sw, hosts, decode_write_errors):
    ctl, ids, p4info = vset_sw
    pair = next(v for v in p4info.value_sets if v.preamble.name == "P.pair")
    assert [(m.id, m.name, m.bitwidth) for m in pair.match] == [(1, "type", 16), (2, "v", 8)]

    def through(f):
        hosts[1].send(f)
        out = hosts[2].recv()
        assert out is not None
        return out
    f = frame(0x1234, 5, 0x0102)
    assert through(f) == f                                  # empty sets: the default transitions
    pe = P.ValueSetEntry(value_set_id=ids["P.pair"])
    member(pe, (0x1234, 2), (0x05, 1))
    member(pe, (0x88b5, 2), (0x07, 1))
    te = P.ValueSetEntry(value_set_id=ids["P.tern"])
    member(te, ((0x00, 0xf0), 1), (0x0102, 2))
    for e in (pe, te):
        ctl.write(P.Update(type=P.Update.MODIFY, entity=P.Entity(value_set_entry=e)))
    assert through(f) == frame(0x1234, 6, 0xffff)            # pair matched, tern matched
    assert through(frame(0x88b5, 7, 0x0102)) == frame(0x88b5, 8, 0xffff)
    assert through(frame(0x1234, 0x15, 0x0102)) == frame(0x1234, 0x15, 0x0102)  # (0x1234, 0x15) not in pair
    assert through(frame(0x88b5, 5, 0x0102)) == frame(0x88b5, 5, 0x0102)        # fields do not mix
    assert through(frame(0x1234, 5, 0x0103)) == frame(0x1234, 6, 0x0103)        # pair yes, tern no
    got = ctl.read(P.Entity(value_set_entry=P.ValueSetEntry(value_set_id=ids["P.pair"])))
    assert got[0].value_set_entry == pe
    assert len(ctl.read(P.Entity(value_set_entry=P.ValueSetEntry()))) == 3   # every value set, rng empty

    def refused(e, op=P.Update.MODIFY):
        with pytest.raises(grpc.RpcError) as ei:
            ctl.write(P.Update(type=op, entity=P.Entity(value_set_entry=e)))
        return decode_write_errors(ei.value)[0]
    assert refused(pe, P.Update.INSERT)[0] == "INVALID_ARGUMENT"
    half = P.ValueSetEntry(value_set_id=ids["P.pair"])
    member(half, (0x1234, 2))
    c, msg = refused(half)
    assert c == "INVALID_ARGUMENT" and "lacks match field" in msg and "v" in msg
    wrong = P.ValueSetEntry(value_set_id=ids["P.pair"])
    member(wrong, ((0x1234, 0xffff), 2), (1, 1))            # ternary on an exact field
    c, msg = refused(wrong)
    assert c == "INVALID_ARGUMENT" and "'type'" in msg
    member(pe, (0x0800, 2), (0, 1))                         # 3 members, size 2
    assert refused(pe)[0] == "RESOURCE_EXHAUSTED"
    assert through(f) == frame(0x1234, 6, 0xffff)            # the refused writes changed nothing
    empty = P.ValueSetEntry(value_set_id=ids["P.pair"])
    ctl.write(P.Update(type=P.Update.MODIFY, entity=P.Entity(value_set_entry=empty)))
    assert through(f) == f                                  # an empty member list clears the set


def test_value_set_range_members(vset_sw, hosts, decode_write_errors):
    """A field p4c lists as @match(range) takes range members (low <= bits <= high)."""
    ctl, ids, p4info = vset_sw
    rng = next(v for v in p4info.value_sets if v.preamble.name == "P.rng")
    assert [(m.name, m.match_type) for m in rng.match] == [("w", p4info_pb2.MatchField.RANGE)]

    def through(f):
        hosts[1].send(f)
        out = hosts[2].recv()
        assert out is not None
        return out
    pe = P.ValueSetEntry(value_set_id=ids["P.pair"])
    member(pe, (0x1234, 2), (0x05, 1))
    re_ = P.ValueSetEntry(value_set_id=ids["P.rng"])
    member(re_, ({"lo": 0x0200, "hi": 0x02ff}, 2))
    member(re_, ({"lo": 0x1000, "hi": 0x1000}, 2))
    for e in (pe, re_):
        ctl.write(P.Update(type=P.Update.MODIFY, entity=P.Entity(value_set_entry=e)))
    for w in (0x0200, 0x0250, 0x02ff, 0x1000):
        assert through(frame(0x1234, 5, w)) == frame(0x1234, 6, 0xffff), hex(w)
    for w in (0x01ff, 0x0300, 0x0fff, 0x1001):
        assert through(frame(0x1234, 5, w)) == frame(0x1234, 6, w), hex(w)
    got = ctl.read(P.Entity(value_set_entry=P.ValueSetEntry(value_set_id=ids["P.rng"])))
    assert got[0].value_set_entry == re_
    empty_range = P.ValueSetEntry(value_set_id=ids["P.rng"])
    member(empty_range, ({"lo": 0x0300, "hi": 0x0200}, 2))
    with pytest.raises(grpc.RpcError) as ei:
        ctl.write(P.Update(type=P.Update.MODIFY, entity=P.Entity(value_set_entry=empty_range)))
    c, msg = decode_write_errors(ei.value)[0]
    assert c == "INVALID_ARGUMENT" and "range" in msg
    assert through(frame(0x1234, 5, 0x0250)) == frame(0x1234, 6, 0xffff)   # the refused write changed nothing
