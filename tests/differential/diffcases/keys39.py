"""Found by helper keys39 (issue #15), decided by real p4c 1.2.4.8 / BMv2 1.15.5.

A key of user metadata or standard_metadata masked by a constant (``meta.m8 & 0xf0``,
``sm.ingress_port & 0x1f1``) -- p4c's JSON keeps it as the field and a mask (SimplifyKey's
IsMask), in ingress and in egress, and BMv2 ANDs every entry's value with the mask (an entry
``0xee`` matches ``m8 = 0xe5``); checkmate-p4c marked every non-header key ``temp`` and compared
the entries as sent (``compiler/table_keys.bmv2_key_shape``).  p4c's copy propagation goes on
into such a key: after ``meta.m8 = hdr.h.a;`` it is ``hdr.h.a & 0xf0`` (masked), after a slice
``meta.m8 = hdr.h.c[7:0];`` -- a header field's masked key likewise -- a temporary with no mask
(the entries compared as sent), unless the slice's source is written before the apply
(``compiler/key_copies``).  p4rt38's guard (``p4rt38_masked_metadata_key_masks_the_entries``)
keeps the slice case of a metadata key.
"""
from .base import H, Entry, case, program

CAT = "tables (control plane)"

_SET = ("    action set_b(bit<8> v) { hdr.h.b = v; }\n    action set_c(bit<16> v) { hdr.h.c = v; }\n"
        "    action copy_a() { meta.m8 = hdr.h.a; }\n"
        "    table s { actions = { copy_a; } default_action = copy_a(); }\n")
_FR = [(1, H(a, b, c, d)) for a, b, c, d in (
    (0xe5, 0x06, 0x0135, 0x12345600), (0xee, 0x02, 0x0005, 0x1234ff00), (0xd5, 0x03, 0x00f5, 0x12340000),
    (0x31, 0x06, 0x0105, 0x12ff5678), (0x30, 0x01, 0x0035, 0x22345678))]
_T = "    table t {{ key = {{ {k}: exact; }} actions = {{ {a}; NoAction; }} }}\n"

CASES = [
    case("keys39_masked_metadata_key_set_by_an_action_masks_the_entries", CAT, program(
        "        s.apply();\n        t.apply();\n", ingress_decls=_SET + _T.format(k="meta.m8 & 0xf0", a="set_c")),
        frames=_FR, entries=[Entry("I.t", {"meta.m8 & 0xf0": 0xee}, "I.set_c", {"v": 0x7777}),
                             Entry("I.t", {"meta.m8 & 0xf0": 0x3f}, "I.set_c", {"v": 0x3333})]),
    case("keys39_masked_standard_metadata_keys_mask_the_entries_ingress_and_egress", CAT, program(
        "        t.apply();\n", ingress_decls=_SET + _T.format(k="sm.ingress_port & 0x1f1", a="set_c"),
        egress="        t.apply();\n",
        egress_decls="    action set_b(bit<8> v) { hdr.h.b = v; }\n" + _T.format(k="sm.egress_port & 0x1f1", a="set_b")),
        frames=_FR, entries=[Entry("I.t", {"sm.ingress_port & 0x1f1": 0x0f}, "I.set_c", {"v": 0x7777}),
                             Entry("E.t", {"sm.egress_port & 0x1f1": 0x0f}, "E.set_b", {"v": 0x55})]),
    case("keys39_masked_metadata_key_after_a_copy_is_the_sources_masked", CAT, program(
        "        meta.m8 = hdr.h.a;\n        t.apply();\n", ingress_decls=_SET + _T.format(k="meta.m8 & 0xf0", a="set_c")),
        frames=_FR, entries=[Entry("I.t", {"meta.m8 & 0xf0": 0xee}, "I.set_c", {"v": 0x7777})]),
    case("keys39_masked_metadata_key_after_a_slice_whose_source_is_written_masks", CAT, program(
        "        meta.m8 = hdr.h.c[7:0];\n        hdr.h.c = 16w0x1234;\n        t.apply();\n",
        ingress_decls=_SET + _T.format(k="meta.m8 & 0xf0", a="set_b")),
        frames=_FR, entries=[Entry("I.t", {"meta.m8 & 0xf0": 0x3f}, "I.set_b", {"v": 0x33})]),
    case("keys39_masked_header_key_after_a_slice_copy_is_a_temporary", CAT, program(
        "        hdr.h.b = hdr.h.c[7:0];\n        t.apply();\n", ingress_decls=_SET + _T.format(k="hdr.h.b & 0xf0", a="set_c")),
        frames=_FR, entries=[Entry("I.t", {"hdr.h.b & 0xf0": 0x3f}, "I.set_c", {"v": 0x3333}),
                             Entry("I.t", {"hdr.h.b & 0xf0": 0x00}, "I.set_c", {"v": 0x0}),
                             Entry("I.t", {"hdr.h.b & 0xf0": 0xf0}, "I.set_c", {"v": 0xf0f0})]),
]
