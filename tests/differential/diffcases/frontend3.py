"""Front-end constructs p4c 1.2.4.8 accepts that checkmate-p4c refused or listed differently
(front7, issue #15): extern instances declared through a typedef (p4c lists a counter or meter
so declared only once a call uses it, and such a register never), p4c's contextual keywords
as names, string literals over several lines, headers BMv2 cannot hold (two varbit fields, a
length that is no whole number of bytes) that nothing uses (p4c refuses them only once used),
a serializable enum member as a field-list index."""
from .base import Entry, H, VALUES, case, eth, program

CAT = "front end (p4c-compatible)"

CASES = [
    # `typedef register<..> R; R(4) r;` read into a dead local: p4c drops the read and leaves
    # the register out of its P4Info; a typedef'd counter is listed when counted, not when idle;
    # a plain idle counter stays listed
    case("fe_typedef_extern_instances", CAT, program("""\
        bit<8> x;
        tr.read(x, 1);
        used_c.count(1);
        hdr.h.b = 0x5;
""", top="typedef register<bit<8>> Reg8_t;\ntypedef counter Ctr_t;\ntypedef Ctr_t Ctr2_t;\n",
        ingress_decls="""    Reg8_t(4) tr;
    Ctr2_t(4, CounterType.packets) used_c;
    Ctr_t(8, CounterType.bytes) idle_c;
    counter(2, CounterType.packets) plain_idle;""")),
    # the dead read of a typedef'd register is the only extern call: p4c writes no type_info
    case("fe_typedef_register_only_call", CAT, program("        bit<8> x;\n        tr.read(x, 2);\n",
         top="typedef register<bit<8>> Reg8_t;\n", ingress_decls="    Reg8_t(4) tr;")),
    # p4c's contextual keywords as names (its nonTypeName): locals, parameters, fields
    case("fe_contextual_keywords_as_names", CAT, program("""\
        bit<8> entries = hdr.h.a;
        priority = entries + 1;
        bit<8> key;
        key = priority |+| meta.actions;
        t.apply();
        SetB.apply(hdr, key ^ state);
""", top="control SetB(inout headers_t hdr, in bit<8> priority) { apply { hdr.h.b = priority; } }\n",
        meta="    bit<8> actions;\n", ingress_decls="""    bit<8> priority;
    bit<8> state = 3;
    action a(bit<8> priority) { state = priority; }
    table t { key = { hdr.h.a: exact; } actions = { a; NoAction; } }"""),
        entries=[Entry("I.t", {"hdr.h.a": 1}, "I.a", {"priority": 0x40})]),
    # a string literal over several lines, with comment markers and quotes inside, and
    # escapes: p4c keeps all of it as written (no escape is resolved) in the P4Info
    case("fe_multiline_string_annotation", CAT, program("        t.apply();\n", ingress_decls="""\
    @entry_restriction("
    // not a comment: 'quoted' and `ticked`
      a != 0; /* nor this */ b == \\t 1
  ") @other("x\\ty\\"z\\\\w") @brief("one \\n line")
    table t { key = { hdr.h.a: exact @note("k\\x41"); } actions = { NoAction; } }""")),
    # headers BMv2 cannot hold (two varbit fields; 18 bits, also a @controller_header one),
    # unstructured annotation bodies as p4c lists them: the tokens as written, joined by single
    # spaces (commas too); a key element's @hidden is listed
    case("fe_annotation_token_text", CAT, program("        t.apply();\n        a2();\n", ingress_decls="""\
    @x("a", "b") @y(1, 2) @z(a, "b") @w(8w5) @v(-1) @u(a.b) @t(1+2) @s(0x10) @r() @q(k = "v", j = 3) @o(a) @n(true)
    @refers_to(other_table , some_id) @sai(SAI_X / IPV4ANY) @c(@ f ( X ) , @ f ( Y )) @m(,) @p(1,) @q2((1), x[2], {3, 4})
    action a2() { hdr.h.b = 2; }
    table t { key = { hdr.h.a: exact @hidden @format(IPV4_ADDRESS); } actions = { a2; NoAction; } }""")),
    # @id(N) on key elements and action parameters (p4c's P4Info ids), entries from the control
    # plane and `const entries` through them; @pkginfo / @brief / other annotations on main
    case("fe_user_ids_keys_params_pkginfo", CAT, program("        t.apply();\n        c.apply();\n", ingress_decls="""
    action s(@id(7) bit<8> x, @id(3) bit<16> y) { hdr.h.b = x; hdr.h.c = y; }
    table t { key = { hdr.h.a: exact @id(20); hdr.h.b: ternary @id(4); } actions = { s; NoAction; } }
    table c { key = { hdr.h.d: exact @id(9); } actions = { s; NoAction; }
              const entries = { 4: s(0x44, 0x4444); } }""").replace(
        "V1Switch(P(), VC(), I(), E(), CC(), D()) main;",
        '@pkginfo(name = "ids.p4", organization = "Org", version = "2", contact = "c@x", url = "u") '
        '@brief("b") @description("d") @extra(1, two) V1Switch(P(), VC(), I(), E(), CC(), D()) main;'),
        entries=[Entry("I.t", {"hdr.h.a": 1, "hdr.h.b": (2, 0xff)}, "I.s", {"x": 0x21, "y": 0x2222}, priority=5)]),
    # directionless bool parameters of actions called directly (top-level and control-local):
    # the body sees a bool, the call passes one
    case("fe_bool_action_params_direct", CAT, program("""\
        top_a(hdr, true, hdr.h.a == 7);
        loc_a(hdr.h.b == 3);
""", top="action top_a(inout headers_t h, bool c1, bool c2) { h.h.c = 4; if (c1) { h.h.c = 2; if (c2) { h.h.b = 3; } else { h.h.c = 1; } } }\n",
        meta="    bool flag;\n",
        ingress_decls="    action loc_a(bool check) { if (check) { hdr.h.d = 9; } meta.flag = !check; hdr.h.a = meta.flag ? 8w1 : 8w0; }"),
        frames=VALUES + [(1, H(7, 3, 0, 0))]),
    # `select()` with no expression (default cases only) and an unused varbit field in the
    # metadata struct: p4c accepts both
    case("fe_select_empty_and_struct_varbit", CAT, program("        hdr.h.b = 0x66;\n", meta="    varbit<16> unused_vb;\n",
         parser="""    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: h; default: accept; } }
    state h { pkt.extract(hdr.h); transition select() { default: accept; } }""")),
    # the checksum-update control applies other controls (by type and through a local
    # instance) that only call update_checksum: p4c inlines them and accepts
    case("fe_checksum_control_applies_controls", CAT, program("        hdr.h.b = hdr.h.b + 1;\n", top="""
control UpdC(inout h_t x) { apply { update_checksum(x.isValid(), {x.a, x.b}, x.c, HashAlgorithm.csum16); } }
control UpdD(inout h_t x, in bit<8> k) { apply { update_checksum(x.isValid(), {x.a, k}, x.d, HashAlgorithm.crc32); } }
""", compute="""    UpdD() upd_d;
    apply { UpdC.apply(hdr.h); upd_d.apply(hdr.h, hdr.h.b); }""")),
    # lookahead of a struct (bit, int, bool and a nested struct): p4c reads all the bits once
    # and slices them
    case("fe_lookahead_struct", CAT, program("""\
        hdr.h.b = meta.m8;
        hdr.h.c = meta.m16;
        hdr.h.d = meta.m32;
""", top="struct in_t { bit<4> hi; int<4> lo; }\nstruct peek_t { bit<8> a; in_t n; bool f; bit<7> rest; }\n",
        parser="""    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: h; default: accept; } }
    state h {
        peek_t p = pkt.lookahead<peek_t>();
        meta.m8 = pkt.lookahead<in_t>().hi ++ 4w0;
        meta.m16 = p.n.hi ++ (bit<4>)p.n.lo ++ (bit<8>)p.rest;
        meta.m32 = p.f ? 32w1 : 32w2;
        pkt.extract(hdr.h);
        transition select(p.a) { 0x7f: accept; default: accept; }
    }""")),
    # structured annotations whose elements are expressions of literals (p4c folds them)
    case("fe_structured_annotation_expressions", CAT, program("        t.apply();\n", ingress_decls="""
    @Mixed[1, "hello", true, 1 == 2, 5 + 6, -(3 * 4), 7 | 8] @KV[label = "text", flag = !false, n = 2 * 3]
    table t { key = { hdr.h.a: exact; } actions = { NoAction; } }""")),
    # digest data that is one bit<N> value (typed or not): p4c's P4Info has a bitstring
    # digest_N; BMv2's P4Runtime server cannot configure it (learn list "digest" in the JSON)
    case("fe_digest_scalar_value", "digests", program("        digest(1, hdr.h.a);\n        digest<bit<16>>(2, hdr.h.c);\n"),
         p4info_only="simple_switch_grpc cannot configure a digest p4c names digest_N in the P4Info and "
                     "differently in the JSON's learn_lists"),
    # lookahead of a struct holding a header and a header stack: valid headers with the bits
    case("fe_lookahead_struct_headers", CAT, program("""\
        hdr.h.b = meta.m8;
        hdr.h.c = meta.m16;
        hdr.h.d = meta.m32;
""", top="struct la_t { h_t x; h_t[2] s; }\n",
        parser="""    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: h; default: accept; } }
    state h {
        la_t l = pkt.lookahead<la_t>();
        meta.m8 = l.s[1].a ^ l.x.b;
        meta.m16 = l.s[0].c;
        meta.m32 = (l.x.isValid() ? 32w0x100 : 32w0) + (l.s[1].isValid() ? 32w1 : 32w0) + (bit<32>)l.s[0].d[7:0];
        pkt.extract(hdr.h);
        transition select(l.s[0].a) { 0xa0: accept; default: accept; }
    }""")),
    # a control parameter of an extern type, passed at apply time (p4c accepts it): the
    # instance's body uses the one register every apply passes
    case("fe_extern_apply_parameter", CAT, program("""\
        bump.apply(hdr, r1);
        bit<8> v;
        r1.read(v, 1);
        hdr.h.b = v;
""", top="""control Bump(inout headers_t hdr, register<bit<8>> reg) {
    action go() { bit<8> x; reg.read(x, 1); reg.write(1, x + hdr.h.a); }
    table t { key = { hdr.h.a: exact; } actions = { go; NoAction; } default_action = go(); }
    apply { t.apply(); }
}
""", ingress_decls="    register<bit<8>>(4) r1;\n    Bump() bump;"), one_by_one=True),
    # an action profile of size 0 and a selector of output width 0: p4c accepts both (no size
    # in the P4Info for 0)
    case("fe_profile_size_and_selector_width_zero", CAT, program("        t.apply();\n        t2.apply();\n", ingress_decls="""
    action s(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.a: exact; } actions = { s; NoAction; } @name("ap0") implementation = action_profile(32w0); }
    action_selector(HashAlgorithm.crc16, 32w4, 32w0) sel;
    table t2 { key = { hdr.h.c: exact; hdr.h.b: selector; } actions = { s; NoAction; } implementation = sel; }"""),
         p4info_only="action profile members need the profile API, which the differential harness does not drive"),
    # @brief/@description on a key element and an action parameter: their P4Info doc
    case("fe_doc_on_keys_and_params", CAT, program("        t.apply();\n", ingress_decls="""
    action s(@brief("the value") @description("long text") bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.a: exact @brief("k"); } actions = { @brief("ref") s; NoAction; } }"""),
         entries=[Entry("I.t", {"hdr.h.a": 1}, "I.s", {"v": 0x42})]),
    # a sub-parser's whole-struct out/inout arguments and a parser error inside it (a short
    # frame): here BMv2 keeps what the sub-parser wrote (p4c's copy propagation passes them in
    # place); p4c's parser-inline-test13 keeps temporaries instead (not matched, see
    # docs/CONFORMANCE.md)
    case("fe_subparser_struct_args_after_error", CAT, program(
        "        sm.egress_spec = meta.m8 == 7 ? 9w2 : 9w3;\n        hdr.eth.src[7:0] = meta.m8;\n",
        top="""parser Sub(packet_in p, out headers_t hh, inout meta_t mm) {
    state start { mm.m8 = 7; p.extract(hh.eth); p.extract(hh.h); transition accept; }
}
""", parser="    Sub() sub;\n    state start { sub.apply(pkt, hdr, meta); transition accept; }"),
         frames=[(1, H(1, 2, 3, 4)), (2, eth(0x1234) + bytes([1, 2, 3])), (3, eth(0x1234)[:10])]),
    # declared, also inside a struct, a stack and a typedef, none of them used: p4c accepts
    case("fe_unused_two_varbit_header", CAT, program("""\
        hdr.h.b = hdr.h.a + 1;
""", headers="header two_vb_t { varbit<16> x; varbit<16> y; }\n"
             "struct holds_two_t { two_vb_t t; two_vb_t[2] s; }\ntypedef two_vb_t two_t;\n"
             "header odd_t { bit<9> x; bit<9> y; }\nstruct holds_odd_t { odd_t o; }\n"
             "@controller_header(\"packet_in\") header odd_in_t { bit<9> port; bit<9> other; }\n")),
    # a @controller_header header with (nested) struct fields: p4c's P4Info names the leaves
    # by their P4 path (s.n.lo); a field's @id is its id; the header's annotations and doc
    case("fe_controller_header_struct_fields", CAT, program("        hdr.h.b = 1;\n",
         headers="struct inner_t { bit<4> hi; bit<4> lo; }\nstruct outer_t { bit<8> a; inner_t n; }\n"
                 "@my_anno(3) @brief(\"po\") @controller_header(\"packet_out\") header po_t { outer_t s; @id(7) bit<16> port; }\n")),
    # an anonymous direct counter in the table property, named by the property's @name
    case("fe_anonymous_direct_counter", CAT, program("        t.apply();\n", ingress_decls="""
    action s(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.a: exact; } actions = { s; NoAction; }
              @name("t_hits") counters = direct_counter(CounterType.packets_and_bytes); }"""),
         entries=[Entry("I.t", {"hdr.h.a": 1}, "I.s", {"v": 0x21})]),
    # @hidden actions: p4c lists neither the directly called one nor the one a table lists
    # (the table keeps its action_refs id)
    case("fe_hidden_actions", CAT, program("        hd();\n        t.apply();\n", ingress_decls="""
    @hidden action hd() { hdr.h.c = 0x77; }
    @hidden action ht(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.a: exact; } actions = { ht; NoAction; } }""")),
    # a serializable enum member as a field list index, in @field_list and in the call
    case("fe_field_list_enum_member", "clone / resubmit / recirculate", program("""\
        meta.keep = 0x11; meta.lost = 0x33;
        clone_preserving_field_list(CloneType.I2E, 5, Lists.Keep);
""", egress="        hdr.h.b = (bit<8>)sm.instance_type; hdr.h.c = (bit<16>)meta.keep; hdr.h.d[7:0] = meta.lost;\n",
        headers="enum bit<8> Lists { Keep = 8w3, Other = 4 }\n",
        meta="    @field_list(Lists.Keep) bit<8> keep;\n    @field_list(Lists.Other) bit<8> lost;\n"),
         clones={5: ([(3, 0)], 0)}),
]
