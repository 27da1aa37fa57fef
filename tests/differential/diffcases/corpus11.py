"""Constructs seen in public v1model programs of other authors (stratum/stratum's pipelines and
p4c-backend test programs, opennetworkinglab/onos's basic pipeline; measured by helper corpus11
for issue #15), each written here as a small program of our own and decided by real p4c 1.2.4.8
/ BMv2 1.15.5.

Stratum's ``main.p4`` annotates the fields of its ``@controller_header`` headers
(``@switchstack("field_type: ...")``): p4c lists a field's annotations on its P4Info
``controller_packet_metadata.metadata`` (all but @name/@id, which give its name and id, and
@brief/@description; structured ones as structured annotations).  p4c prints the annotations it
parses into expressions (@field_list, @pkginfo, @p4runtime_translation, @synchronous) with
", " between the arguments (@pkginfo's ``k=v``, the ``bit<W>`` form of a translation as W),
other ones as their tokens ("@foo(1 , 2)").

The same program keys a ternary table on ``hdr.vlan_tag[0].vid``: p4c's BMv2 back end computes
a key on a field of a header stack's element into a temporary (as it does a computed key), so a
frame without the tag matches on the previous frame's value still in BMv2's PHV, while a key on a
plain header's field (a union member's, a nested struct's) is built as zeros when the header is
invalid (checkmate-p4c built the stack element's key as zeros too).

SAI P4's forked v1model pins port names with ``@p4runtime_translation_mappings`` on its ``type``
port_id_t (listed by p4c on the type's ``type_info`` entry), and ONOS's INT headers declare a
``varbit<8032>`` (p4c sets no limit on a varbit's width).  Probing around the stack keys: BMv2
shifts a stack by swapping elements, so vacated elements keep the rotated values."""
from .base import Entry, H, PAYLOAD, case, eth, program

CAT = "P4Info names"

CASES = []

_PIN = """@controller_header("packet_in")
header packet_in_t {
    @switchstack("field_type: P4_FIELD_TYPE_INGRESS_PORT") bit<9> ingress_port;
    @foo("x") @bar bit<7> pad;
    @brief("doc") @description("d") bit<8> b;
    @name("renamed") @baz(1, 2) bit<8> c;
    @my_struct[k = 1, s = "t"] bit<8> d;
    @id(7) @qux bit<8> e;
    @hidden bit<8> f;
    @field_list(1,  2) @noWarn("unused") bit<8> g;
    @p4runtime_translation("x",16) bit<8> tr;
    @p4runtime_translation("y", bit<16>) @pkginfo(name="z",version = "2") bit<8> tr2;
}
@controller_header("packet_out")
header packet_out_t { @switchstack("field_type: P4_FIELD_TYPE_EGRESS_PORT") bit<9> egress_port; bit<7> pad; }
"""

# p4c 1.2.4.8 lists each field's annotations on its packet metadata (checkmate-p4c listed none)
CASES.append(case("corpus11_controller_header_field_annotations", CAT, program("""
        if (hdr.h.isValid()) {
            hdr.pin.setValid();
            hdr.pin.ingress_port = sm.ingress_port;
            hdr.pin.e = hdr.h.a;
        }""", headers=_PIN, fields="    packet_in_t pin;\n    packet_out_t pout;\n",
    deparser="        pkt.emit(hdr.pin);\n        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);"),
    frames=[(1, H(0x11, 0x22, 0x3344, 0x55667788)), (2, H(0xee, 1, 2, 3))]))

# a table's @field_list / @pkginfo are listed as p4c prints them ("@field_list(1, 2)",
# '@pkginfo(name="x", version="2")'; checkmate-p4c listed their tokens: "@field_list(1 , 2)")
CASES.append(case("corpus11_table_expression_annotations_printed_as_p4c", CAT, program("""
        t.apply();""", ingress_decls="""
    action a(bit<8> v) { hdr.h.b = v; }
    @field_list(1,2) @pkginfo(name="x",version = "2") @foo(1,2) @synchronous()
    table t { key = { hdr.h.a: exact; } actions = { a; NoAction; } default_action = a(9); }"""),
    frames=[(1, H(0x11, 0x22, 0x3344, 0x55667788))]))

# stratum main.p4's punt table on hdr.vlan_tag[0].vid: after a frame tagged 7, an untagged
# frame still matches vid 7 on BMv2 (p4c's temporary reads the stale stack element), while the
# union member's and the nested struct's keys (direct fields) and isValid() read as zeros/false
_VLAN = """header vlan_t { bit<3> pcp; bit<1> cfi; bit<12> vid; bit<16> etype; }
header a_t { bit<8> x; }
header b_t { bit<16> y; }
header_union u_t { a_t a; b_t b; }
struct inner_t { vlan_t w; }
"""
_VLAN_PARSER = """    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) { 0x8100: pv; 0x1234: parse_h; default: accept; }
    }
    state pv {
        pkt.extract(hdr.v.next);
        pkt.extract(hdr.n.w);
        pkt.extract(hdr.u.a);
        pkt.extract(hdr.us[1].b);
        transition select(hdr.v.last.etype) { 0x8100: pv; default: parse_h; }
    }
    state parse_h {
        pkt.extract(hdr.h);
        transition accept;
    }"""
CASES.append(case("corpus11_stack_element_key_reads_stale_value", "tables", program("""
        t1.apply(); t2.apply(); t3.apply(); t4.apply(); t5.apply(); t6.apply();
""", headers=_VLAN, fields="    vlan_t[2] v;\n    inner_t n;\n    u_t u;\n    u_t[2] us;\n", parser=_VLAN_PARSER,
    ingress_decls="""\
    action m(bit<8> v) { hdr.h.a = hdr.h.a + v; }
    action sb(bit<8> v) { hdr.h.b = hdr.h.b + v; }
    table t1 { key = { hdr.v[0].vid: ternary; } actions = { m; NoAction; } default_action = NoAction(); }
    table t2 { key = { hdr.v[1].vid & 0xff: exact @name("v1lo"); hdr.v[0].pcp: exact; } actions = { m; NoAction; }
               default_action = NoAction(); }
    table t3 { key = { hdr.u.a.x: exact; } actions = { sb; NoAction; } default_action = NoAction(); }
    table t4 { key = { hdr.n.w.vid: exact; } actions = { sb; NoAction; } default_action = NoAction(); }
    table t5 { key = { hdr.v[0].isValid(): exact; } actions = { sb; NoAction; } default_action = NoAction(); }
    table t6 { key = { hdr.us[1].b.y: exact; } actions = { m; NoAction; } default_action = NoAction(); }
"""), frames=[(1, eth(0x8100) + bytes([0x20, 0x07, 0x12, 0x34]) + bytes([0x20, 0x07, 0, 0]) + bytes([0x33])
               + bytes([0x44, 0x55]) + H(0x10, 0x20, 0x3040, 0x50607080)[14:]),
              (1, H(0x11, 0x21, 0x3141, 0x51617181)), (1, H(0x12, 0x22, 0x3242, 0x52627282))],
    one_by_one=True, json_path=True,
    entries=[Entry("I.t1", {"hdr.v[0].vid": (7, 0xfff)}, "I.m", {"v": 1}, 1),
             Entry("I.t2", {"v1lo": 0, "hdr.v[0].pcp": 1}, "I.m", {"v": 2}),
             Entry("I.t3", {"hdr.u.a.x": 0x33}, "I.sb", {"v": 4}),
             Entry("I.t3", {"hdr.u.a.x": 0}, "I.sb", {"v": 8}),
             Entry("I.t4", {"hdr.n.w.vid": 7}, "I.sb", {"v": 0x10}),
             Entry("I.t4", {"hdr.n.w.vid": 0}, "I.sb", {"v": 0x20}),
             Entry("I.t5", {"hdr.v[0].$valid$": 0}, "I.sb", {"v": 0x40}),
             Entry("I.t6", {"hdr.us[1].b.y": 0x4455}, "I.m", {"v": 4})]))

# SAI P4 (sonic-net/sonic-pins) pins its port names with @p4runtime_translation_mappings on its
# `type` port_id_t: p4c lists it on the type's type_info.new_types entry as written (tokens),
# with or without a @p4runtime_translation beside it (checkmate-p4c left it out)
_NT = """@p4runtime_translation_mappings({ {"", 0}, {"x", 5}, })
type bit<8> vrf_t;
@p4runtime_translation_mappings({ {"a", 1} })
@p4runtime_translation("u", string)
type bit<12> nh_t;
@p4runtime_translation_mappings({{"CPU", 510}})
@p4runtime_translation("p", 16)
type bit<9> pt_t;
"""
CASES.append(case("corpus11_newtype_translation_mappings_listed", CAT, program("""
        t.apply();""", headers=_NT, meta="    vrf_t v;\n", ingress_decls="""
    action a(vrf_t v, nh_t n, pt_t p) { meta.v = v; hdr.h.c = (bit<16>)(bit<12>)n; sm.egress_spec = (bit<9>)p; }
    table t { key = { hdr.h.a: exact; } actions = { a; NoAction; } default_action = NoAction(); }"""),
    frames=[(1, H(0x11, 0x22, 0x3344, 0x55667788))]))

# ONOS's INT headers declare `varbit<8032>` (the INT metadata stack, (0xff - 4) * 32 bits): p4c
# 1.2.4.8 sets no limit on a varbit's width; checkmate-p4c refused any over 4096
_VB = "header vb_t { bit<8> len; varbit<8032> data; }\n"
_VB_PARSER = """    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) { 0x1236: parse_vb; default: accept; }
    }
    state parse_vb {
        pkt.extract(hdr.vb, (bit<32>)pkt.lookahead<bit<8>>() << 3);
        transition accept;
    }"""
CASES.append(case("corpus11_varbit_wider_than_4096", "parsers", program("""
        if (hdr.vb.isValid()) { hdr.vb.len = hdr.vb.len + 1; }""", headers=_VB, fields="    vb_t vb;\n",
    parser=_VB_PARSER, deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.vb);"),
    frames=[(1, eth(0x1236) + bytes([3]) + bytes(range(3)) + PAYLOAD), (1, eth(0x1236) + bytes([200]) + bytes(200)),
            (1, eth(0x1236) + bytes([255]) + bytes(10)), (1, eth(0x1234) + PAYLOAD)]))

# BMv2 1.15 shifts a header stack by swapping elements (StackP4_16) and marks the vacated ones
# invalid: they keep the values rotated into them.  After pop_front(1) the last element holds the
# popped one's fields, after push_front(1) the first holds the old last one's; a key on it (a
# temporary), a read, or setValid() then emit show them.  checkmate-switch made the vacated
# elements fresh (zeros).
_VS_PARSER = """    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) { 0x8100: pv; default: parse_h; }
    }
    state pv {
        pkt.extract(hdr.v.next);
        transition select(hdr.v.last.etype) { 0x8100: pv; default: parse_h; }
    }
    state parse_h {
        pkt.extract(hdr.h);
        transition accept;
    }"""
CASES.append(case("corpus11_stack_shift_keeps_rotated_values", "stacks", program("""
        if (hdr.h.a == 1) { hdr.v.pop_front(1); }
        if (hdr.h.a == 2) { hdr.v.push_front(1); }
        if (hdr.h.a == 3) { hdr.v.pop_front(2); }
        if (hdr.h.a == 4) { hdr.v.push_front(2); hdr.v[1].setValid(); }
        if (hdr.h.a == 5) { hdr.v.push_front(1); hdr.v[0].setValid(); }
        t1.apply();
        t2.apply();
        hdr.h.d = hdr.v[2].vid ++ (bit<12>)0 ++ hdr.v[0].pcp ++ hdr.v[1].pcp ++ 2w0;
""", headers=_VLAN, fields="    vlan_t[3] v;\n", parser=_VS_PARSER,
    ingress_decls="""\
    action s(bit<16> x) { hdr.h.c = hdr.h.c + x; }
    table t1 { key = { hdr.v[0].vid: exact; } actions = { s; NoAction; } default_action = NoAction(); }
    table t2 { key = { hdr.v[2].vid: exact; hdr.h.a: exact; } actions = { s; NoAction; } default_action = NoAction(); }
""", deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.v);\n        pkt.emit(hdr.h);"),
    frames=[(1, eth(0x8100) + bytes([0x20, 0x07, 0x81, 0x00]) + bytes([0x40, 0x08, 0x81, 0x00])
             + bytes([0x60, 0x09, 0x12, 0x34]) + H(a, 0, 0, 0)[14:]) for a in (1, 2, 3, 4, 5, 0)]
    + [(1, H(a, 0, 0, 0)) for a in (1, 2, 5)],
    one_by_one=True, json_path=True,
    entries=[Entry("I.t1", {"hdr.v[0].vid": v}, "I.s", {"x": x}) for v, x in ((7, 1), (8, 2), (9, 4), (0, 8))]
    + [Entry("I.t2", {"hdr.v[2].vid": v, "hdr.h.a": a}, "I.s", {"x": 0x100 * v + a}) for v in (7, 8, 9, 0) for a in (1, 2, 3, 4, 5)]))
