"""Table keys whose P4Info width is not the width of the field the pipeline matches (helper corpus8).

p4c writes a key's P4Info ``bitwidth`` from the control-plane type: a ``type`` with
``@p4runtime_translation(uri, N)`` is N bits wide there, an ``error`` key has no bitwidth
(0).  BMv2's JSON matches the field itself (``bit<8>`` under the translation, 32 bits for an
error).  PI pads a match value to the P4Info width (``ceil(N/8)`` bytes) and hands it to the
target, which refuses a key of another byte length: an INSERT is UNKNOWN, "Error when adding
match entry to target" -- found with p4c's ``issue1062-1-bmv2`` (an ``error`` key) and a
probe of translated keys (``/work/corpus/p4c/probe8``).  Where the byte lengths agree
(``bit<9>`` translated to 16 bits) the entry goes in.  A P4Info width of 0 takes only a zero
value: PI refuses any bit set (INVALID_ARGUMENT, "does not fit within 0 bits").

Each sequence runs on BMv2 and checkmate-switch (p4c's P4Info and JSON, the helpers of
test_p4rt_vs_bmv2.py) and every answer must be equal."""
from __future__ import annotations

import pytest
from p4.v1 import p4runtime_pb2 as pb

from diff_targets import bmv2_available
from test_p4rt_vs_bmv2 import U, action, run, u, w

SKIP = bmv2_available()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=f"P4Runtime differential needs real BMv2: {SKIP}")

PROGRAM = """#include <core.p4>
#include <v1model.p4>

@p4runtime_translation("example.org/B12", 12)
type bit<8> B12_t;
@p4runtime_translation("example.org/B16", 16)
type bit<9> B16_t;

header h_t { bit<8> a; bit<16> p; bit<8> o; }
struct H { h_t h; }
struct M { error e; }

parser P(packet_in pk, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
    action set_out(bit<8> v) { hdr.h.o = v; }
    action set_x(B12_t v) { hdr.h.p = (bit<16>)(bit<8>)v; hdr.h.o = (bit<8>)v + 1; }
    table tx12 {
        key = { (B12_t)hdr.h.a : exact @name("xa"); }
        actions = { set_out; NoAction; }
        default_action = NoAction();
    }
    table tx12t {
        key = { (B12_t)hdr.h.a : ternary @name("xa"); }
        actions = { set_out; NoAction; }
        default_action = NoAction();
    }
    table tx16 {
        key = { (B16_t)hdr.h.p[8:0] : exact @name("xp"); }
        actions = { set_out; NoAction; }
        default_action = NoAction();
    }
    table tp {
        key = { hdr.h.p : exact; }
        actions = { set_x; NoAction; }
        default_action = NoAction();
    }
    table terr {
        key = { m.e : exact; }
        actions = { set_out; NoAction; }
        default_action = NoAction();
    }
    apply {
        if (hdr.h.a == 1) { tx12.apply(); }
        else if (hdr.h.a == 2) { tx16.apply(); }
        else if (hdr.h.a == 3) { terr.apply(); }
        else if (hdr.h.a == 4) { tp.apply(); }
        else { tx12t.apply(); }
        sm.egress_spec = 1;
    }
}
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply { } }
control V(inout H hdr, inout M m) { apply { } }
control C(inout H hdr, inout M m) { apply { } }
control D(packet_out pk, in H hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def _table(info, name):
    return next(t for t in info.tables if t.preamble.name.endswith(name))


def _entry(info, tname, value, *, mask=None, with_action=True):
    t = _table(info, tname)
    e = pb.TableEntry(table_id=t.preamble.id)
    fm = e.match.add(field_id=t.match_fields[0].id)
    if mask is None:
        fm.exact.value = value
    else:
        fm.ternary.value, fm.ternary.mask = value, mask
        e.priority = 1
    if with_action:
        e.action.action.CopyFrom(action(info, "set_out", b"\x77"))
    return e


def test_keys_wider_in_p4info_than_in_the_pipeline(targets):
    """An INSERT into a table keyed on a translated type whose P4Info width takes more bytes than the
    field (12 bits over bit<8>, exact or ternary) is UNKNOWN on BMv2 and changes nothing; 16 bits over
    bit<9> (both two bytes) is taken.  An ``error`` key (P4Info width 0, 32 bits in the pipeline): a
    zero value is UNKNOWN, a value with a bit set INVALID_ARGUMENT; MODIFY and DELETE find nothing."""
    assert not run(targets, 11, key_width_ops, source=PROGRAM)


def key_width_ops(info):
    """test_keys_wider_in_p4info_than_in_the_pipeline's sequence (also run on checkmate-p4c's build:
    test_p4rt_p4rt39)."""
    out = []
    for tname, value, mask in (("tx12", b"\x01", None), ("tx12", b"\x01\x00", None),
                               ("tx12t", b"\x05", b"\x0f"), ("tx16", b"\x02", None),
                               ("terr", b"\x00", None), ("terr", b"", None), ("terr", b"\x02", None)):
        read = ("read", [pb.Entity(table_entry=pb.TableEntry(table_id=_table(info, tname).preamble.id))])
        out += [w(u(U.INSERT, table_entry=_entry(info, tname, value, mask=mask))), read,
                w(u(U.MODIFY, table_entry=_entry(info, tname, value, mask=mask)))]
        if tname != "tx16":   # kept: the traffic below hits it
            out += [w(u(U.DELETE, table_entry=_entry(info, tname, value, mask=mask, with_action=False))), read]
    out.append(("traffic", [(0, bytes([a, 0, 2, 0])) for a in (1, 2, 3, 5)]))
    return out


def test_action_parameters_wider_in_p4info_than_in_the_pipeline(targets):
    """An action parameter of a type translated to 12 bits over ``bit<8>``: BMv2 takes any value
    that fits the 12 bits, runs the action with its low 8 (0x123 -> 0x23) and reads the entry back
    with the value as written, in an entry, a MODIFY and a default action; 13 bits are
    INVALID_ARGUMENT.  (checkmate-switch refused every value past 8 bits: the runtime now checks
    against the P4Info width, ``ActionSpec.cp_widths``, and runs the value masked to the pipeline's.)"""
    def ops(info):
        t = _table(info, "tp")
        read = ("read", [pb.Entity(table_entry=pb.TableEntry(table_id=t.preamble.id))])

        def te(key, val, default=False):
            e = pb.TableEntry(table_id=t.preamble.id, is_default_action=default)
            if not default:
                e.match.add(field_id=t.match_fields[0].id).exact.value = key
            e.action.action.CopyFrom(action(info, "set_x", val))
            return e
        frames = ("traffic", [(0, bytes([4, 0, k, 0])) for k in (3, 4, 9)])
        return [w(u(U.INSERT, table_entry=te(b"\x03", b"\x01\x23"))), read, frames,
                w(u(U.MODIFY, table_entry=te(b"\x03", b"\x0f\xfe"))), read, frames,
                w(u(U.INSERT, table_entry=te(b"\x04", b"\x1f\xff"))), read,
                w(u(U.MODIFY, table_entry=te(b"", b"\x0a\xbc", default=True))),
                ("read", [pb.Entity(table_entry=pb.TableEntry(table_id=t.preamble.id, is_default_action=True))]),
                frames]
    assert not run(targets, 12, ops, source=PROGRAM)
