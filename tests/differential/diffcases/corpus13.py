"""Constructs seen in public v1model programs not measured before (research prototypes and
course repositories fetched by helper corpus13 for issue #15), each written here as a small
program of our own and decided by real p4c 1.2.4.8 / BMv2 1.15.5.

A deparser may apply a sub-control (tatry/INT-BMv2 keeps its INT headers' emits in a
control ``int_deparser(packet_out, in int_headers_t)`` applied from the main deparser):
p4c inlines it, and its BMv2 back end then judges the statements the sub-control holds --
emits are fine, an ``if``, an assignment or a table there is "not supported within a
deparser" as in the deparser itself.  checkmate-p4c refused every ``X.apply(...)`` in a
deparser, taking it for a table.

``INVALID`` (read by tests/differential/test_invalid.py): name -> (program, words the error
must contain)."""
from .base import H, H2, case, eth, program, PAYLOAD

CASES = []

_SUB = """
control Sub(packet_out p, in h_t x, in h_t y) {
    apply { p.emit(x); p.emit(y); }
}
"""
_DEP_FRAMES = [(1, H(1, 2, 3, 4)), (1, H2(5, 6, 7, 8, b=9)), (2, eth(0x0800) + PAYLOAD)]

# a control type applied directly in the deparser (emits h2 before h)
CASES.append(case("corpus13_deparser_applies_subcontrol_directly", "language", program(
    top=_SUB, deparser="        pkt.emit(hdr.eth);\n        Sub.apply(pkt, hdr.h2, hdr.h);"),
    frames=_DEP_FRAMES))
# an instance declared in the deparser, applied twice with other arguments
CASES.append(case("corpus13_deparser_applies_subcontrol_instance", "language", program(
    top=_SUB, deparser="        pkt.emit(hdr.eth);\n        s.apply(pkt, hdr.h2, hdr.h2);\n        s.apply(pkt, hdr.h, hdr.h2);").replace(
    "control D(packet_out pkt, in headers_t hdr) {\n", "control D(packet_out pkt, in headers_t hdr) {\n    Sub() s;\n"),
    frames=_DEP_FRAMES))

INVALID = {
    # the sub-control's body is judged as the deparser's own (p4c: "IfStatement: not supported
    # within a deparser on this target")
    "corpus13_deparser_subcontrol_with_if": (program(
        top=_SUB.replace("apply { p.emit(x);", "apply { if (x.isValid()) { p.emit(x); }"),
        deparser="        pkt.emit(hdr.eth);\n        Sub.apply(pkt, hdr.h2, hdr.h);"), ("not supported within a deparser",)),
    "corpus13_deparser_subcontrol_with_assignment": (program(
        top="control Sub(packet_out p, inout h_t x) {\n    apply { x.a = 1; p.emit(x); }\n}\n",
        deparser="        pkt.emit(hdr.eth);\n        h_t t = hdr.h;\n        Sub.apply(pkt, t);"), ("not supported within a deparser",)),
}
