"""P4Runtime behaviour helper p4rt36 (issue #15) measured on simple_switch_grpc 1.15.5 and copied:
what a read of one counter / meter cell answers (PI copies the request, so an id of 0 with an index
reads every array's cell and names none), and arbitration on another device id (PI keeps a primary
per device id; that device has no pipeline).  Both switches must answer alike (status codes,
per-update codes, arbitration status and election id, read entities as text)."""
from __future__ import annotations

import pytest
from p4.v1 import p4runtime_pb2 as pb

import fuzz_p4rt as F
from diff_targets import bmv2_available
from p4rt_vs import action, entry, run, traffic, u, w

SKIP = bmv2_available()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=f"P4Runtime differential needs real BMv2: {SKIP}")
U = pb.Update

# fuzz_p4rt seed 0's program with three counter arrays of different units and sizes and two meter arrays
SRC = F.generate(0).replace(
    "    meter(4, MeterType.bytes) mt1;\n",
    "    meter(4, MeterType.bytes) mt1;\n    counter(2, CounterType.bytes) c2;\n"
    "    counter(6, CounterType.packets_and_bytes) c3;\n    meter(2, MeterType.packets) mt2;\n").replace(
    "            hdr.h.b = m.m8;\n",
    "            hdr.h.b = m.m8;\n            c2.count((bit<32>)(hdr.h.a & 1)); c3.count((bit<32>)(hdr.h.a & 7));\n"
    "            mt2.execute_meter((bit<32>)(hdr.h.a & 1), m.m16);\n")


def _rd(**kw):
    return ("read", [pb.Entity(**kw)])


def test_a_cell_read_answers_the_request_with_the_cells_data(targets):
    """A CounterEntry / MeterEntry read that names an index answers a copy of the request with the
    cell's data (both counts) or config (cir..pburst, where the cell has one): with counter_id /
    meter_id 0 one entry per array, each without an id; a meter's config (where the cell has none),
    eburst and counter_data come back as sent.  A read of every cell answers fresh entries.  (Direct
    entries: both already agreed.)  checkmate-switch named the array and dropped the rest."""
    def ops(info):
        c, m = info.counters[0], info.meters[0]
        cell = pb.CounterEntry(counter_id=c.preamble.id, index=pb.Index(index=1),
                               data=pb.CounterData(packet_count=5, byte_count=7))
        mc = pb.MeterEntry(meter_id=m.preamble.id, index=pb.Index(index=1))
        mc.config.cir, mc.config.cburst, mc.config.pir, mc.config.pburst = 1000, 100, 2000, 200
        t = next(t for t in info.tables if t.preamble.id == info.direct_meters[0].direct_table_id)
        metered = action(info, "metered_" + t.preamble.name.split(".")[-1], b"\x01")
        dm = pb.DirectMeterEntry(table_entry=entry(t, b"\x01"), config=mc.config)
        out = [w(u(U.MODIFY, counter_entry=cell)), w(u(U.MODIFY, meter_entry=mc)), traffic(1, 2, 3),
               w(u(U.INSERT, table_entry=entry(t, b"\x01", act=metered)),
                 u(U.INSERT, table_entry=entry(t, b"\x02", act=metered))), w(u(U.MODIFY, direct_meter_entry=dm))]
        dd = pb.CounterData(packet_count=99, byte_count=98)
        cfg = pb.MeterConfig(cir=1, cburst=2, pir=3, pburst=4, eburst=9)
        green = pb.MeterCounterData(green=pb.CounterData(packet_count=7, byte_count=8))
        for i in (0, 1, 2, 5, 1000):   # (2 and up: past c2's / mt2's end -- refused alike)
            out += [_rd(counter_entry=pb.CounterEntry(index=pb.Index(index=i))),
                    _rd(meter_entry=pb.MeterEntry(index=pb.Index(index=i)))]
        for i in (0, 1):
            for mid in (0, m.preamble.id):
                out += [_rd(meter_entry=pb.MeterEntry(meter_id=mid, index=pb.Index(index=i), config=cfg)),
                        _rd(meter_entry=pb.MeterEntry(meter_id=mid, index=pb.Index(index=i), counter_data=green))]
        for x in info.counters:
            out += [_rd(counter_entry=pb.CounterEntry(counter_id=x.preamble.id, index=pb.Index(index=1), data=dd)),
                    _rd(counter_entry=pb.CounterEntry(counter_id=x.preamble.id, data=dd))]
        for x in info.meters:
            out.append(_rd(meter_entry=pb.MeterEntry(meter_id=x.preamble.id, config=cfg)))
        for k in (b"\x01", b"\x02"):
            out += [_rd(direct_meter_entry=pb.DirectMeterEntry(table_entry=entry(t, k), config=cfg)),
                    _rd(direct_meter_entry=pb.DirectMeterEntry(table_entry=entry(t, k), counter_data=green))]
        return out + [_rd(counter_entry=pb.CounterEntry()), _rd(meter_entry=pb.MeterEntry()),
                      _rd(counter_entry=pb.CounterEntry(data=dd)), _rd(meter_entry=pb.MeterEntry(config=cfg)),
                      ("read", [pb.Entity(counter_entry=pb.CounterEntry(index=pb.Index(index=1))),
                                pb.Entity(counter_entry=pb.CounterEntry(counter_id=c.preamble.id,
                                                                        index=pb.Index(index=1)))])]
    out = run(targets, 0, ops, source=SRC)
    assert not out, "\n".join(out)


def test_arbitration_for_another_device_id(targets):
    """PI keeps an election per device id: a client naming another device id (9) becomes that absent
    device's primary or backup (OK / ALREADY_EXISTS with device id 9; the switch's clients are not
    told, a failover there tells its clients), its primary's Writes to device 9 are FAILED_PRECONDITION
    (no pipeline) where a backup's or an id-less one's are PERMISSION_DENIED, an id-less Write to device
    9 without clients passes to FAILED_PRECONDITION, a VERIFY there is OK, and a stream may not move to
    device 0 (FAILED_PRECONDITION).  checkmate-switch ended such streams NOT_FOUND.  Not compared:
    what follows a Set on device 9 (BMv2: OK for a VERIFY from its primary, UNKNOWN for the other
    actions, each leaving a half-made device whose Get and empty Write are then OK and whose next
    Write with an update segfaults simple_switch_grpc)."""
    from test_p4rt_p4rt35 import RawClient, arb, both, closing, getcfg, mc, pending, read, setcfg, write
    ref = F.compile_p4c(F.Case(name="p4rt36", category="p4rt", source=F.generate(3)))
    assert not isinstance(ref, str), ref
    cfg = F.pipeline_config(ref.p4info, ref.device_config)
    for t in (targets.bmv2, targets.cm):
        assert setcfg(RawClient(t.conn.addr), cfg, eid=1) == ("OK", None)
    table = pb.Entity(table_entry=pb.TableEntry())

    def probe(addr):
        p, c, d = RawClient(addr), RawClient(addr, device_id=9), RawClient(addr, device_id=9)
        r = [write(p, device_id=9), write(p, mc(U.INSERT, 6), device_id=9),
             arb(p, 100), arb(c, 50), pending(p), arb(d, 40), pending(c), arb(d, 60), pending(c), pending(d),
             pending(p), write(d, eid=60, device_id=9), write(d, mc(U.INSERT, 3), eid=60, device_id=9),
             write(c, eid=50, device_id=9), write(p, device_id=9), write(d, eid=60), write(d, mc(U.INSERT, 3), eid=60),
             write(p, mc(U.INSERT, 4), eid=100), read(d, table, device_id=9), getcfg(d, device_id=9), getcfg(d),
             read(d, table), setcfg(c, cfg, "VERIFY", eid=50, device_id=9), arb(d, 60, device_id=0), pending(d),
             pending(p)]
        closing(d)
        r += [pending(c), pending(p), write(c, eid=50, device_id=9), write(p, mc(U.DELETE, 4), eid=100),
              setcfg(c, cfg, "VERIFY", eid=50, device_id=9)]   # (last: it leaves BMv2's device 9 half-made)
        closing(c, p)
        return r
    a, b = both(targets, probe)
    assert a == b, "\n".join(f"{i}: {x} | {y}" for i, (x, y) in enumerate(zip(a, b)) if x != y)


def test_a_digest_entry_delete_forgets_sent_unacked_data(targets):
    """fuzz_p4rt seed 5554: under a 5 s ack timeout, data sent and not acked is suppressed while the
    DigestEntry lives, but a DELETE drops PI's cache with the config -- after a new INSERT the same
    data goes out again.  checkmate-switch kept the sent data filtered across the DELETE."""
    from p4rt_vs import _digest_cfg

    def ops(info):
        cfg = _digest_cfg(info.digests[0].preamble.id)   # (ack timeout 5 s)
        return [cfg(U.INSERT, 0, 1), traffic(2), ("digests", False), cfg(U.DELETE), cfg(U.INSERT, 0, 1),
                traffic(2), ("digests", False), cfg(U.MODIFY, 0, 1), traffic(2), ("digests", False), traffic(3),
                ("digests", False), cfg(U.DELETE), cfg(U.INSERT, 0, 1), traffic(3), ("digests", False)]
    out = run(targets, 0, ops)
    assert not out, "\n".join(out)
