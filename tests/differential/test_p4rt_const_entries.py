"""Const entries that share one key, on both switches (p4c's P4Info and JSON): p4c compiles
``const entries`` with two entries of one key (an lpm ``0x11 &&& 0`` and ``_``, both /0; or one
exact value twice) and simple_switch_grpc accepts the config, but its JSON loader stops adding the
table's entries at the duplicate: a P4Runtime read shows the entries before it (fuzz_mutants seed
697; checkmate-switch refused the config, "entry already exists"), and of the tables its JSON lists
after it none.  BMv2 is left half-loaded -- any packet then kills it -- so only the config and the
reads are compared here.  Each on p4c's JSON and on checkmate-p4c's build (whose ``load_error``
simple_switch's refusal is; ``grpc_load_error`` leaves it out: helper p4rt53)."""
from __future__ import annotations

import pytest
from p4.v1 import p4runtime_pb2 as pb

from diff_targets import bmv2_available
from p4rt_vs import run

SKIP = bmv2_available()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=f"P4Runtime differential needs real BMv2: {SKIP}")

_SRC = """\
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header h_t { bit<8> a; bit<8> b; bit<16> c; bit<32> d; }
struct headers_t { ethernet_t eth; h_t h; }
struct meta_t { bit<8> m8; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set_b(bit<8> v) { hdr.h.b = v; }
    action nop() { }
    table t { key = { hdr.h.a: KIND; } actions = { set_b; nop; }
        const entries = { ENTRIES } default_action = set_b(7); }
    apply { sm.egress_spec = 1; t.apply(); }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.eth); pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def _reads(info):
    t = info.tables[0].preamble.id
    return [("read", [pb.Entity(table_entry=pb.TableEntry())]),
            ("read", [pb.Entity(table_entry=pb.TableEntry(table_id=t, is_default_action=True))])]


@pytest.mark.parametrize("kind,entries", [
    ("lpm", "0x11 &&& 0: set_b(4); 0x2f &&& 0xff: set_b(8); _: set_b(9); 0x40 &&& 0xf0: set_b(5);"),
    ("lpm", "0x2f &&& 0xff: set_b(4); 0x2f &&& 0xff: set_b(8); 0x11 &&& 0xf0: set_b(9);"),
    ("exact", "0x2f: set_b(4); 0x2f: set_b(8); 0x11: set_b(9);"),
    ("ternary", "0x2f &&& 0xff: set_b(4); 0x2f &&& 0xff: set_b(8); 0x11 &&& 0xf0: set_b(9);"),   # guard
], ids=["lpm_two_prefix_0", "lpm_same_prefix", "exact", "guard_ternary_priorities_differ"])
@pytest.mark.parametrize("cm_build", [False, True], ids=["p4c_json", "checkmate_build"])
def test_const_entries_stop_at_a_duplicate_key(targets, kind, entries, cm_build):
    src = _SRC.replace("KIND", kind).replace("ENTRIES", entries)
    assert not run(targets, 697, _reads, source=src, cm_build=cm_build)


_T2 = ("    action set_c(bit<16> v) { hdr.h.c = v; }\n"
       "    table t2 { key = { hdr.h.b: exact; } actions = { set_c; }\n"
       "        const entries = { 4: set_c(0x44); 9: set_c(0x99); } }\n")


@pytest.mark.parametrize("apply", ["t.apply(); t2.apply();", "t2.apply(); t.apply();"], ids=["after", "before"])
@pytest.mark.parametrize("cm_build", [False, True], ids=["p4c_json", "checkmate_build"])
def test_a_duplicate_stops_the_entries_of_the_tables_loaded_after_it(targets, apply, cm_build):
    """simple_switch_grpc's loader stops at the duplicate for good: a table p4c's JSON lists after
    the one with the duplicate -- applied after it, whatever the declarations' order -- has none of
    its const entries, one applied before has them all (helper p4rt53: checkmate-switch loaded every
    other table's; checkmate-p4c's build was refused, a load refusal of simple_switch's)."""
    src = _SRC.replace("KIND", "exact").replace("ENTRIES", "0x2f: set_b(4); 0x2f: set_b(8); 0x11: set_b(9);")
    src = src.replace("    apply { sm.egress_spec = 1; t.apply(); }",
                      _T2 + f"    apply {{ sm.egress_spec = 1; {apply} }}")
    assert not run(targets, 697, lambda info: [("read", [pb.Entity(table_entry=pb.TableEntry())])],
                   source=src, cm_build=cm_build)
