"""Found by helper p4rt39 (issue #15), decided by real p4c 1.2.4.8 / BMv2 1.15.5.

A header field key masked by a constant after a copy of a ``?:`` (keys39's open item):
``hdr.h2.b = hdr.h.a == 0x31 ? hdr.h.b : hdr.h.c[7:0]; t.apply();`` with ``hdr.h2.b & 0xf0:
exact`` -- p4c's front end makes the ``?:`` an ``if`` writing a temporary, its copy propagation puts
the temporary into the key, and its JSON keys the table on ``tmp`` with a ``mask``: BMv2 reads the
value as held where ``h2`` is invalid (a masked header field reads as zeros there) and masks the
entries.  checkmate-p4c kept ``hdr.h2.b & 0xf0`` (zeros on an invalid ``h2``); now the key is marked
``held`` (``compiler/key_copies.propagate_key_copies``; the P4Runtime side:
test_p4rt_p4rt39.py).  A copy through a local that propagates to a header field (``bit<8> v =
hdr.h.b; hdr.h2.b = v;``) is the source's key already (guard).
"""
from .base import H, H2, Entry, case, program

CAT = "tables (control plane)"

_ACT = "    action set_c(bit<16> v) { hdr.h.c = v; }\n"
_T = "    table t {{ key = {{ {k}: exact; }} actions = {{ set_c; NoAction; }} }}\n"
_FR = [(1, H(a, b, c, d)) for a, b, c, d in (
    (0x31, 0xe6, 0x01e5, 0x12345600), (0x30, 0x02, 0x00e5, 0x1234ff00), (0x31, 0x03, 0x00f5, 0x12340000),
    (0x30, 0x36, 0x0135, 0x12ff5678))] + [(1, H2(0x77, 0xe6, 0x12, b=0xe1, c=0x35))]
_K = "hdr.h2.b & 0xf0"
_ENT = [Entry("I.t", {_K: 0xe0}, "I.set_c", {"v": 0x7777}), Entry("I.t", {_K: 0x3f}, "I.set_c", {"v": 0x3333}),
        Entry("I.t", {_K: 0x00}, "I.set_c", {"v": 0x1111})]
_MUX = "        hdr.h2.b = hdr.h.a == 0x31 ? hdr.h.b : hdr.h.c[7:0];\n"
_SUB = ("control S(inout headers_t hdr) {\n" + _ACT + _T.format(k=_K) + "    apply { t.apply(); }\n}\n")

CASES = [
    case("p4rt39_masked_header_key_after_a_mux_copy_reads_the_value_held", CAT, program(
        _MUX + "        t.apply();\n", ingress_decls=_ACT + _T.format(k=_K)),
        frames=_FR, entries=_ENT, json_path=True),
    case("p4rt39_masked_header_key_after_a_mux_copy_of_a_metadata_copy", CAT, program(
        "        meta.m8 = hdr.h.b;\n        hdr.h2.b = hdr.h.a == 0x31 ? meta.m8 : hdr.h.c[7:0];\n        t.apply();\n",
        ingress_decls=_ACT + _T.format(k=_K)),
        frames=_FR, entries=_ENT),
    case("p4rt39_masked_header_key_after_a_mux_copy_egress", CAT, program(
        "", egress=_MUX + "        t.apply();\n", egress_decls=_ACT + _T.format(k=_K)),
        frames=_FR, entries=[Entry("E" + e.table[1:], e.match, "E" + e.action[1:], e.params) for e in _ENT]),
    case("p4rt39_masked_header_key_of_a_subcontrol_after_a_mux_copy", CAT, program(
        _MUX + "        s.apply(hdr);\n", top=_SUB, ingress_decls="    S() s;\n"),
        frames=_FR, entries=[Entry("I.s.t", e.match, "I.s.set_c", e.params) for e in _ENT]),
    case("p4rt39_masked_header_key_after_a_local_copy_is_the_sources", CAT, program(
        "        bit<8> v = hdr.h.b;\n        hdr.h2.b = v;\n        t.apply();\n",
        ingress_decls=_ACT + _T.format(k=_K)),
        frames=_FR, entries=_ENT),
]
