"""Lead, session 41: annotations on the fields of a ``@controller_header`` header -- p4c lists
each field's annotations (``@padding`` of the padding bits before a PacketOut's payload, any
other one, unstructured or structured) on the field's ControllerPacketMetadata.Metadata, as it
does on match fields and action parameters; ``@id`` gives the field's id (a field's ``@name`` renames it in the P4Info, and simple_switch_grpc
then dies with SIGSEGV: PI looks the P4Info name up in p4c's JSON -- not in a case),
``@brief``/``@description`` are not listed, a ``@hidden`` field is left out.  checkmate-p4c
listed none of them.  And the order of extern instances when one handed to a sub-control is
declared after the sub-control's instance (see its case).  Decided by p4c 1.2.4.8 (the P4Info
comparison of every case).
"""
from .base import H, case, program

CAT = "P4Info (p4c-compatible)"

CASES = []

_HEADERS = """\
@controller_header("packet_in")
header packet_in_t { @foo("bar") @id(7) bit<9> port; @padding @baz(1, 2) bit<7> pad;
                     @brief("b") @description("d") bit<16> x; @hidden bit<8> h;
                     @my_anno @s[k = 1, j = "v"] bit<8> z; }
@controller_header("packet_out")
header packet_out_t { bit<9> egress_port; @padding bit<7> pad0; }
"""

# the packet_in header is filled and emitted in front of the frame (a frame on port 1 shows it)
CASES.append(case("lead41_controller_header_field_annotations", CAT, program("""
        hdr.pin.setValid();
        hdr.pin.port = sm.ingress_port;
        hdr.pin.pad = 0;
        hdr.pin.x = hdr.h.c;
        hdr.pin.h = 0x5a;
        hdr.pin.z = hdr.h.a;
        hdr.pout.setInvalid();
""", headers=_HEADERS, fields="    packet_in_t pin;\n    packet_out_t pout;\n",
    deparser="        pkt.emit(hdr.pin);\n        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.h2);"),
    frames=[(1, H(0x11, 2, 0x3344, 5)), (2, H(0xee, 1, 0x0102, 3))]))

# the order of extern instances: a register handed to a sub-control's apply but declared after the
# instance is listed after the sub-control's own (p4c lists objects in declaration order, the
# sub-control's inlined in place of its instance; checkmate-p4c declares such a register early and
# listed it first)
CASES.append(case("lead41_register_declared_after_the_sub_control_listed_in_place", "P4Info (p4c-compatible)",
                  program("""
        first.write(0, hdr.h.a);
        s.apply(hdr, late);
        late.read(hdr.h.b, 0);
""", top="""control S(inout headers_t hdr, register<bit<8>> r) {
    register<bit<8>>(4) inner;
    apply { r.write(0, hdr.h.c[7:0]); inner.write(1, hdr.h.b); inner.read(hdr.h.d[7:0], 1); } }
""", ingress_decls="""    register<bit<8>>(2) first;
    S() s;
    register<bit<8>>(8) late;""")))

# the order of digests: p4c meets them per control in its actions first (a sub-control's inlined in
# place of its instance), then in its body (a sub-control's body where it is applied); checkmate-p4c
# listed them in elaboration order (the sub-control's body at its declaration)
CASES.append(case("lead41_digests_listed_in_p4c_order", "P4Info (p4c-compatible)", program("""
        digest<d3_t>(1, {hdr.h.a, hdr.h.b});
        s.apply(hdr);
        t.apply();
""", headers="struct d1_t { bit<8> a; }\nstruct d2_t { bit<8> b; }\nstruct d3_t { bit<8> a; bit<8> b; }\n"
             "struct d4_t { bit<16> x; }\n",
        top="""control S(inout headers_t hdr) {
    action sa() { digest<d4_t>(1, {hdr.h.a ++ hdr.h.b}); }
    apply { digest<d1_t>(1, {hdr.h.a}); sa(); } }
""", ingress_decls="""    S() s;
    action late() { digest<d2_t>(1, {hdr.h.b}); }
    table t { key = { hdr.h.a: exact; } actions = { late; NoAction; } }""")))
