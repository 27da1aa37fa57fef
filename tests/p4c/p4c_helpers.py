"""Helpers of the compiler tests: a minimal v1model program with holes to fill."""
from __future__ import annotations

TEMPLATE = """#include <core.p4>
#include <v1model.p4>
header h_t {{ bit<8> a; bit<16> b; bit<8> c; }}
{top}
struct meta_t {{ bit<8> x; bit<16> y; }}
struct headers {{ h_t h; }}
parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {{
    state start {{ pkt.extract(hdr.h); transition accept; }}
}}
control VC(inout headers hdr, inout meta_t m) {{ apply {{ }} }}
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {{
{locals}
    apply {{
{body}
    }}
}}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {{ apply {{ }} }}
control CC(inout headers hdr, inout meta_t m) {{ apply {{ }} }}
control D(packet_out pkt, in headers hdr) {{ apply {{ pkt.emit(hdr.h); }} }}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def program(top: str = "", locals: str = "", body: str = "") -> str:
    return TEMPLATE.format(top=top, locals=locals, body=body)


def line_of(text: str, needle: str) -> tuple[int, int]:
    """1-based (line, column) of the first occurrence of ``needle``."""
    for i, ln in enumerate(text.split("\n"), 1):
        j = ln.find(needle)
        if j >= 0:
            return i, j + 1
    raise AssertionError(f"{needle!r} not in program")
