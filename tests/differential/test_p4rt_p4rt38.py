"""P4Runtime behaviour helper p4rt38 (issue #15) measured on simple_switch_grpc 1.15.5 and copied.

A table key p4c writes with a mask (``hdr.h.a & 0xf0: exact``, ``0b11 & hdr.h.b: ternary``: the
JSON key's ``mask``): BMv2 ANDs every entry's key value with that mask when it adds the entry
(``MatchKeyBuilder::apply_big_mask`` in each match unit's ``add_entry_``; a ternary entry's own
mask is kept), so an entry ``0xee`` of the exact key matches a packet whose ``h.a & 0xf0`` is
``0xe0`` (fuzz_samples, diffcase program fe_masked_keys seed 114: checkmate-switch compared the
unmasked value and missed).  PI keeps the key as sent: MODIFY and DELETE find the entry by it, an
entry equal to an installed one under the mask is BMv2's DUPLICATE_ENTRY (UNKNOWN), and a read
that reaches an entry whose key the mask changed -- a wildcard read of its table or of all tables,
a keyed read whose key finds it under the mask -- fails INTERNAL (PI cannot map the key BMv2 gives
back); a keyed read finds an entry sent unchanged by any key equal under the mask.  Both switches
must answer alike (status codes, per-update codes, read
entities as text, frames).  Also: a plain enum's action parameter (no P4Info width) takes only zero."""
from __future__ import annotations

import pytest
from p4.v1 import p4runtime_pb2 as pb

from diff_targets import bmv2_available
from diffcases.base import program
from p4rt_vs import action, run, u, w

SKIP = bmv2_available()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=f"P4Runtime differential needs real BMv2: {SKIP}")
U = pb.Update

MASKED = program("        t.apply();\n", ingress_decls="""
    action set_b(bit<8> v) { hdr.h.b = v; }
    table t {
        key = { hdr.h.a & 0xf0: exact; 0b11 & hdr.h.b: ternary; }
        actions = { set_b; NoAction; }
    }""")


def _frames(*ab):
    return ("traffic", [(1, bytes(12) + b"\x12\x34" + bytes([a, b]) + bytes(6) + bytes(40)) for a, b in ab])


def _e(info, a, b=None, bmask=0xff, prio=5, v=0x66):
    t = info.tables[0]
    e = pb.TableEntry(table_id=t.preamble.id, priority=prio)
    e.match.add(field_id=t.match_fields[0].id).exact.value = bytes([a])
    if b is not None:
        m = e.match.add(field_id=t.match_fields[1].id)
        m.ternary.value, m.ternary.mask = bytes([b]), bytes([bmask])
    e.action.action.CopyFrom(action(info, "set_b", bytes([v])))
    return e


def _rd(info):
    return ("read", [pb.Entity(table_entry=pb.TableEntry(table_id=info.tables[0].preamble.id))])


def test_an_entry_of_a_masked_key_is_masked(targets):
    """Exact ``0xee`` of ``h.a & 0xf0`` matches h.a 0xe5 and 0xee; ternary ``0x2a/0xff`` of
    ``0b11 & h.b`` matches h.b 0x02, 0x06; two entries equal under the mask are one key
    (ALREADY_EXISTS); reads, MODIFY and DELETE by the value sent and by the masked value."""
    def ops(info):
        return [w(u(U.INSERT, table_entry=_e(info, 0xee))), _frames((0xe5, 0), (0xee, 1), (0xd5, 0)), _rd(info),
                w(u(U.INSERT, table_entry=_e(info, 0xe1))), w(u(U.INSERT, table_entry=_e(info, 0xe0))),
                w(u(U.MODIFY, table_entry=_e(info, 0xe0, v=0x77))), _frames((0xe5, 0)),
                w(u(U.MODIFY, table_entry=_e(info, 0xee, v=0x78))), _frames((0xe5, 0)), _rd(info),
                w(u(U.DELETE, table_entry=_e(info, 0xe3))), w(u(U.DELETE, table_entry=_e(info, 0xee))),
                _rd(info), _frames((0xe5, 0)),
                w(u(U.INSERT, table_entry=_e(info, 0x31, 0x2a, prio=3))), _frames((0x35, 2), (0x35, 6), (0x35, 3)),
                _rd(info), w(u(U.INSERT, table_entry=_e(info, 0x31, 0x02, prio=3))),
                w(u(U.INSERT, table_entry=_e(info, 0x30, 0x2a, prio=3))),
                w(u(U.DELETE, table_entry=_e(info, 0x30, 0x02, prio=3))),
                w(u(U.DELETE, table_entry=_e(info, 0x31, 0x2a, prio=3))), _rd(info)]
    out = run(targets, 0, ops, source=MASKED)
    assert not out, "\n".join(out)


def test_reads_of_a_masked_table(targets):
    """Keyed reads find an entry by its key under the mask (``0xe3`` finds ``0xe0``; a ternary key's
    mask and the priority must be equal); an entry whose key the mask changed fails every read that
    reaches it, also a read of all tables, and no read of another table or of the default entry."""
    src = MASKED.replace("    apply {", """    table t2 { key = { hdr.h.a: exact; } actions = { set_b; NoAction; } }
    apply {
        t2.apply();""", 1)

    def ops(info):
        t, t2 = info.tables[0], info.tables[1]
        e2 = pb.TableEntry(table_id=t2.preamble.id)
        e2.match.add(field_id=1).exact.value = b"\x05"
        e2.action.action.CopyFrom(action(info, "set_b", b"\x01"))
        rd = lambda *es: ("read", [pb.Entity(table_entry=e) for e in es])  # noqa: E731
        k = lambda a, b=None, p=5, m=0xff: rd(_e(info, a, b, m, p))  # noqa: E731
        return [w(u(U.INSERT, table_entry=e2)), w(u(U.INSERT, table_entry=_e(info, 0xe0))), k(0xe3), k(0xe0), _rd(info),
                w(u(U.INSERT, table_entry=_e(info, 0x30, 0x02, prio=3))), k(0x30, 0x02, 3), k(0x30, 0x06, 3),
                k(0x30, 0x02, 4), k(0x31, 0x02, 3), k(0x30, 0x02, 3, 0xfe),
                w(u(U.DELETE, table_entry=_e(info, 0x30, 0x02, prio=3))),
                w(u(U.INSERT, table_entry=_e(info, 0x30, 0x06, prio=3))), k(0x30, 0x02, 3), k(0x30, 0x06, 3), k(0xe0),
                k(0x70), _rd(info), rd(pb.TableEntry()), rd(pb.TableEntry(table_id=t2.preamble.id)),
                rd(pb.TableEntry(table_id=t2.preamble.id), pb.TableEntry(table_id=t.preamble.id)),
                rd(pb.TableEntry(table_id=t.preamble.id, is_default_action=True)),
                rd(pb.TableEntry(table_id=t.preamble.id, priority=5)),
                w(u(U.DELETE, table_entry=_e(info, 0x30, 0x06, prio=3))),
                w(u(U.INSERT, table_entry=_e(info, 0x30, 0x06, 0xfe, prio=3))), k(0x30, 0x02, 3), k(0x30, 0x06, 3),
                k(0x30, 0x02, 3, 0xfe), _rd(info)]
    out = run(targets, 0, ops, source=src)
    assert not out, "\n".join(out)


def test_a_plain_enum_action_parameter_takes_only_zero(targets):
    """A plain enum's action parameter has no P4Info width (``type_name`` only): PI refuses a value
    that is not zero ("Bytestring provided does not fit within 0 bits", INVALID_ARGUMENT) and takes
    zero in any length; checkmate-switch took any value.  (A Read of such an entry kills BMv2 --
    ``dump_action_data``: ``nbytes >= s.size()`` -- so none is read here.)"""
    from diffcases.p4rt38 import CASES
    src = next(c for c in CASES if c.name == "p4rt38_plain_enum_action_parameter_entries").source

    def ops(info):
        t = info.tables[0]
        out = []
        for a, v in ((1, b"\x02"), (2, b"\x00"), (3, b"\x00\x00\x00\x01"), (4, b""), (5, b"\x00\x00"), (6, b"\x01")):
            e = pb.TableEntry(table_id=t.preamble.id)
            e.match.add(field_id=1).exact.value = bytes([a])
            e.action.action.CopyFrom(action(info, "a1", v, b"\x05"))
            out.append(w(u(U.INSERT, table_entry=e)))
        return out
    out = run(targets, 0, ops, source=src)
    assert not out, "\n".join(out)
