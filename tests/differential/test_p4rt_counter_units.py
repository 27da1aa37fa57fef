"""Counter units over P4Runtime, simple_switch_grpc against checkmate-switch (p4c's P4Info and JSON).

BMv2 counts packets *and* bytes in every counter, whatever its ``CounterType``, and its P4Runtime
server reads both back; a write sets only the counts of the counter's unit.  What happens to the
other count depends on the entity: a ``CounterEntry`` or ``DirectCounterEntry`` write keeps it, a
table entry's ``counter_data`` on INSERT or MODIFY starts it from 0.  Every answer must be equal."""
from __future__ import annotations

import pytest
from p4.v1 import p4runtime_pb2 as pb

from test_p4rt_vs_bmv2 import SKIP, run, u, w

pytestmark = pytest.mark.skipif(SKIP is not None, reason=f"P4Runtime differential needs real BMv2: {SKIP}")
U = pb.Update

UNITS = r"""
#include <core.p4>
#include <v1model.p4>
header h_t { bit<48> d; bit<48> s; bit<16> t; bit<8> i; }
struct H { h_t h; }
struct M { }
parser P(packet_in pk, out H h, inout M m, inout standard_metadata_t sm) {
    state start { pk.extract(h.h); transition accept; } }
control I(inout H h, inout M m, inout standard_metadata_t sm) {
    counter(8, CounterType.packets) cp;
    counter(8, CounterType.bytes) cb;
    counter(8, CounterType.packets_and_bytes) cpb;
    direct_counter(CounterType.packets) dp;
    direct_counter(CounterType.bytes) db;
    action a1() { dp.count(); }
    action a2() { db.count(); }
    table t1 { key = { h.h.t: exact; } actions = { a1; NoAction; } counters = dp; }
    table t2 { key = { h.h.t: exact; } actions = { a2; NoAction; } counters = db; }
    apply {
        sm.egress_spec = 1;
        cp.count((bit<32>)h.h.i); cb.count((bit<32>)h.h.i); cpb.count((bit<32>)h.h.i);
        t1.apply(); t2.apply();
    }
}
control E(inout H h, inout M m, inout standard_metadata_t sm) { apply { } }
control V(inout H h, inout M m) { apply { } }
control C(inout H h, inout M m) { apply { } }
control D(packet_out pk, in H h) { apply { pk.emit(h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def _ids(info):
    names = {c.preamble.name.split(".")[-1]: c.preamble.id for c in info.counters}
    names.update({t.preamble.name.split(".")[-1]: t.preamble.id for t in info.tables})
    names.update({a.preamble.name.split(".")[-1]: a.preamble.id for a in info.actions})
    return names


def _entry(ids, table, action=None, packets=None, nbytes=None):
    e = pb.TableEntry(table_id=ids[table])
    e.match.add(field_id=1).exact.value = b"\x12\x34"
    if action:
        e.action.action.action_id = ids[action]
    if packets is not None:
        e.counter_data.packet_count, e.counter_data.byte_count = packets, nbytes
    return e


def test_counter_units_read_both_counts_and_write_the_units_own(targets):
    def make(info):
        ids = _ids(info)
        traffic = ("traffic", [(2, bytes(12) + b"\x12\x34" + bytes([i]) + bytes(n)) for i, n in ((3, 20), (3, 60), (5, 0))])
        reads = [("read", [pb.Entity(counter_entry=pb.CounterEntry(counter_id=ids[c]))]) for c in ("cp", "cb", "cpb")]
        reads += [("read", [pb.Entity(table_entry=pb.TableEntry(table_id=ids[t], counter_data=pb.CounterData()))])
                  for t in ("t1", "t2")]
        reads += [("read", [pb.Entity(direct_counter_entry=pb.DirectCounterEntry(
            table_entry=pb.TableEntry(table_id=ids[t])))]) for t in ("t1", "t2")]

        def cell_write(c, index, packets, nbytes):
            return u(U.MODIFY, counter_entry=pb.CounterEntry(counter_id=ids[c], index=pb.Index(index=index),
                                                             data=pb.CounterData(packet_count=packets, byte_count=nbytes)))

        def direct_write(t, packets, nbytes):
            return u(U.MODIFY, direct_counter_entry=pb.DirectCounterEntry(
                table_entry=_entry(ids, t), data=pb.CounterData(packet_count=packets, byte_count=nbytes)))
        return [
            # table entries inserted with counter data: the unit's count only, the other from 0
            w(u(U.INSERT, table_entry=_entry(ids, "t1", "a1", 7, 700)), u(U.INSERT, table_entry=_entry(ids, "t2", "a2", 7, 700))),
            traffic, *reads,
            # counter and direct counter entries written: the unit's count, the other kept
            w(*(cell_write(c, 3, 9, 900) for c in ("cp", "cb", "cpb")), direct_write("t1", 5, 500), direct_write("t2", 5, 500)),
            *reads, traffic,
            # table entries modified with counter data: the unit's count, the other reset
            w(u(U.MODIFY, table_entry=_entry(ids, "t1", "a1", 3, 300)), u(U.MODIFY, table_entry=_entry(ids, "t2", "a2", 3, 300))),
            *reads]
    assert not run(targets, 11, source=UNITS, make=make)
