"""The program skeleton and frames shared by the differential cases.

Most cases only write an ingress (and maybe egress) body against one skeleton: Ethernet,
then -- for EtherType 0x1234 -- a test header ``h`` (``a``, ``b``: bit<8>, ``c``: bit<16>,
``d``: bit<32>), then an optional second ``h2`` of the same type for EtherType 0x1235 /
when ``h.a`` is 0xee.  Results are written into header fields, so the output frame
shows every value the program computed.  Cases that need their own headers or parser
pass them in.
"""
from __future__ import annotations

import struct

from controller.entities import Entry  # noqa: F401  (re-exported for the case modules)

from diff_harness import Case  # noqa: F401

SKELETON = """\
{version}#include <core.p4>
#include <v1model.p4>

header ethernet_t {{ bit<48> dst; bit<48> src; bit<16> etype; }}
header h_t {{ bit<8> a; bit<8> b; bit<16> c; bit<32> d; }}
{headers}
struct headers_t {{
    ethernet_t eth;
    h_t h;
    h_t h2;
{fields}}}
struct meta_t {{
    bit<8> m8;
    bit<16> m16;
    bit<32> m32;
{meta}}}
{top}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
{parser}
}}
control VC(inout headers_t hdr, inout meta_t meta) {{
{verify}
}}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
{ingress_decls}
    apply {{
{ingress}
    }}
}}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
{egress_decls}
    apply {{
{egress}
    }}
}}
control CC(inout headers_t hdr, inout meta_t meta) {{
{compute}
}}
control D(packet_out pkt, in headers_t hdr) {{
    apply {{
{deparser}
    }}
}}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""

def start_state(first: str = "parse_h") -> str:
    """The skeleton's start state: Ethernet, then state ``first`` for EtherType 0x1234."""
    return f"""\
    state start {{
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) {{
            0x1234: {first};
            default: accept;
        }}
    }}"""


def parse_h_state(h2_label: str = "0xee") -> str:
    """The skeleton's ``parse_h``: ``h``, then ``parse_h2`` when ``h.a`` matches ``h2_label``."""
    return f"""\
    state parse_h {{
        pkt.extract(hdr.h);
        transition select(hdr.h.a) {{
            {h2_label}: parse_h2;
            default: accept;
        }}
    }}"""


PARSE_H2 = """\
    state parse_h2 {
        pkt.extract(hdr.h2);
        transition accept;
    }"""

DEFAULT_PARSER = "\n".join((start_state(), parse_h_state(), PARSE_H2))

DEFAULT_DEPARSER = "        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.h2);"


def program(ingress: str = "", *, egress: str = "", ingress_decls: str = "", egress_decls: str = "",
            headers: str = "", fields: str = "", meta: str = "", top: str = "", parser: str | None = None,
            verify: str = "apply { }", compute: str = "apply { }", deparser: str | None = None,
            version: int | str | None = None, forward: bool = True) -> str:
    """The skeleton with the given parts; ``forward`` prepends ``egress_spec = 1``."""
    body = ("        sm.egress_spec = 1;\n" if forward else "") + ingress
    return SKELETON.format(
        version=f"#define V1MODEL_VERSION {version}\n" if version else "",
        headers=headers, fields=fields, meta=meta, top=top,
        parser=DEFAULT_PARSER if parser is None else parser,
        verify=verify, compute=compute, ingress_decls=ingress_decls, ingress=body,
        egress_decls=egress_decls, egress=egress,
        deparser=DEFAULT_DEPARSER if deparser is None else deparser)


VARBIT_PROGRAM = """\
#include <core.p4>
#include <v1model.p4>

header ethernet_t {{ bit<48> dst; bit<48> src; bit<16> etype; }}
header len_t {{ {len_fields} }}
header vb_t {{ varbit<32> v; }}
header tail_t {{ bit<8> t; }}
struct headers_t {{ ethernet_t eth; len_t len; vb_t x; vb_t y; tail_t tail; }}
struct meta_t {{ bit<8> m; }}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    state start {{
        pkt.extract(hdr.eth);
        pkt.extract(hdr.len);
        pkt.extract(hdr.x, (bit<32>)hdr.len.n);
        pkt.extract(hdr.y, 16);
        pkt.extract(hdr.tail);
        transition accept;
    }}
}}
control VC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
{top}control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
{ingress}
}}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ }} }}
control CC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control D(packet_out pkt, in headers_t hdr) {{
    apply {{ pkt.emit(hdr.eth); pkt.emit(hdr.len); pkt.emit(hdr.x); pkt.emit(hdr.y); pkt.emit(hdr.tail); }}
}}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def varbit_program(ingress: str, *, len_fields: str = "bit<8> n;", top: str = "") -> str:
    """A second skeleton, for varbit cases: Ethernet, ``len`` (``n``: the bits of ``x``), ``x``
    (varbit<32>, ``n`` bits), ``y`` (varbit<32>, 16 bits), ``tail``, all emitted; ``ingress`` is
    the whole body of control ``I`` (declarations and apply), ``top`` goes just before it."""
    return VARBIT_PROGRAM.format(len_fields=len_fields, top=top, ingress=ingress)


# ------------------------------------------------------------------------- frames
DST = bytes.fromhex("000000000002")
SRC = bytes.fromhex("000000000001")
PAYLOAD = bytes(range(0xa0, 0xb0))


def eth(etype: int) -> bytes:
    return DST + SRC + struct.pack("!H", etype)


def hdr(a: int, b: int = 0, c: int = 0, d: int = 0) -> bytes:
    return struct.pack("!BBHI", a & 0xFF, b & 0xFF, c & 0xFFFF, d & 0xFFFFFFFF)


def H(a: int, b: int = 0, c: int = 0, d: int = 0, payload: bytes = PAYLOAD) -> bytes:
    """Ethernet + h + payload."""
    return eth(0x1234) + hdr(a, b, c, d) + payload


def H2(a2: int, b2: int = 0, c2: int = 0, d2: int = 0, *, b: int = 0, c: int = 0, d: int = 0) -> bytes:
    """Ethernet + h (a = 0xee) + h2 + payload."""
    return eth(0x1234) + hdr(0xee, b, c, d) + hdr(a2, b2, c2, d2) + PAYLOAD


def ipv4(src: str = "10.0.0.1", dst: str = "10.0.1.2", ttl: int = 64, proto: int = 17,
         payload: bytes = PAYLOAD, csum: int | None = None, tos: int = 0) -> bytes:
    def a(x):
        return bytes(int(p) for p in x.split("."))
    total = 20 + len(payload)
    h = struct.pack("!BBHHHBBH4s4s", 0x45, tos, total, 1, 0, ttl, proto, 0, a(src), a(dst))
    if csum is None:
        csum = csum16(h)
    h = h[:10] + struct.pack("!H", csum) + h[12:]
    return eth(0x0800) + h + payload


def csum16(data: bytes) -> int:
    s = 0
    for i in range(0, len(data), 2):
        s += (data[i] << 8) | (data[i + 1] if i + 1 < len(data) else 0)
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


# A spread of inputs for value-computing cases: port, frame.
VALUES = [(1, H(1, 2, 3, 4)), (2, H(0xff, 0x80, 0xffff, 0xdeadbeef)), (3, H(0, 0, 0, 0)),
          (1, H(0x7f, 0x81, 0x8000, 0x80000001)), (4, H(0x10, 0x03, 0x0102, 0x00ff00ff))]
OTHER = [(1, eth(0x0800) + PAYLOAD)]


def case(name: str, category: str, source: str, frames=None, **kw) -> Case:
    return Case(name=name, category=category, source=source,
                frames=list(VALUES if frames is None else frames), **kw)
