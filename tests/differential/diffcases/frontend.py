"""Front end as p4c 1.2.4.8 reads a program: constructs it accepts (in-place extern constructor
arguments, ``_`` for an out argument, ``{#}``, casts of initializers, bool keys in const
entries, ``static_assert``, literals wider than their type) and what it puts into the P4Info
(tables never applied and ``@hidden`` ones left out, actions called directly listed without
parameters, ``@brief``/``@description``, key and parameter annotations, ``@name`` on a
parameter, structured annotations, ``@max_group_size``, ``type`` declarations with and without
``@p4runtime_translation``, enums and ``error`` in digests, ``register<SerEnum>``), and direct
invocation of a control type (``C.apply()``) whose instance shares a sub-control."""
from controller.entities import Entry

from .base import H, H2, VALUES, case, program

CAT = "front end (p4c-compatible)"
CAT_INFO = "front end: P4Info as p4c's"

SET_B = "    action set_b(bit<8> v) { hdr.h.b = v; }\n"
NEWTYPES = """type bit<8> Port_t;
typedef Port_t PortAlias_t;
@p4runtime_translation("example.org/checkmate/Tag_t", 32) type bit<16> Tag_t;
enum bit<8> Color { Red = 1, Blue = 0x20 }
"""

CTOR_TOP = """
control CountIt(inout h_t x)(counter c, register<bit<8>> r) {
    apply {
        c.count((bit<32>)x.a[1:0]);
        bit<8> old;
        r.read(old, 0);
        r.write(0, x.a);
        x.b = old;
    }
}
"""

GLOBAL_ACTIONS = """    @name(".nop") action nop() { }
    @name(".set") action set(bit<8> v) { hdr.h.b = hdr.h.b + v; }
    table t { key = { hdr.h.a: exact; } actions = { nop; set; } }
"""

CASES = [
    case("fe_ctor_extern_in_place", CAT, program("        w.apply(hdr.h);\n", top=CTOR_TOP,
         ingress_decls="    CountIt(counter(4, CounterType.packets), register<bit<8>>(1)) w;\n"),
         one_by_one=True),
    case("fe_dontcare_out_arg", CAT, program("        t.apply();\n", ingress_decls="""
    action pick(out bit<8> x, bit<8> v) { x = v; hdr.h.b = v; }
    table t { key = { hdr.h.a: exact; } actions = { pick(_); NoAction; } }"""),
         entries=[Entry("I.t", {"hdr.h.a": 1}, "I.pick", {"v": 0x31}),
                  Entry("I.t", {"hdr.h.a": 0xff}, "I.pick", {"v": 0x32})]),
    case("fe_invalid_header_literal", CAT, program(
        "        if (hdr.h2.isValid() && hdr.h2.a == 1) { hdr.h2 = (h_t){#}; }\n"
        "        if (hdr.h.b == 0x80) { h_t gone = (h_t){#}; hdr.h = gone; }\n"),
         frames=VALUES + [(1, H2(1, 2, 3, 4)), (2, H2(5, 6, 7, 8))]),
    case("fe_initializer_casts", CAT, program(
        "        meta = (meta_t){ m8 = hdr.h.a, m16 = hdr.h.c, m32 = 7 };\n"
        "        hdr.h2 = (h_t){ meta.m8 + 1, 8w2, meta.m16, meta.m32 };\n"
        "        hdr.h.d = meta.m8 ++ meta.m16 ++ 8w0;\n")),
    case("fe_bool_key_entries", CAT, program("        t.apply();\n", ingress_decls=SET_B + """
    table t {
        key = { hdr.h.a == 1: exact @name("a_is_1"); hdr.h.b: exact; }
        actions = { set_b; NoAction; }
        const entries = { (true, 2): set_b(0x11); (false, 0x80): set_b(0x22); }
    }""")),
    case("fe_static_assert", CAT, program(
        "        static_assert(V1MODEL_VERSION >= 20180101);\n        hdr.h.a = OK ? 8w1 : 8w2;\n",
        top='const bool OK = static_assert(V1MODEL_VERSION >= 20180101, "v1model too old");\n')),
    case("fe_wide_literals", CAT, program(
        "        hdr.h.a = 300;\n        hdr.h.b = 8w0x1ff;\n        if (hdr.h.c == 0x10a0b) { hdr.h.d = 1; }\n",
        ingress_decls=""), frames=VALUES + [(1, H(0x10, 0x20, 0x0a0b, 0))]),
    case("fe_unapplied_and_direct", CAT_INFO, program("        seta(0x44);\n        u.apply();\n", ingress_decls=SET_B + """
    action seta(bit<8> v) { hdr.h.a = v; }
    table never { key = { hdr.h.a: exact; } actions = { set_b; } }
    table u { key = { hdr.h.c: exact; } actions = { NoAction; } }""",
        egress_decls="    table e_never { actions = { NoAction; } }\n")),
    case("fe_hidden_table", CAT_INFO, program("        t.apply();\n", ingress_decls=SET_B + """
    @hidden table t { actions = { set_b; } default_action = set_b(0x5a); }""")),
    case("fe_doc_and_annotations", CAT_INFO, program("        t.apply();\n", ingress_decls="""
    @brief("sets b") @description("copies the action data into h.b")
    action set_b(@name("value") @unit("bytes") bit<8> v) { hdr.h.b = v; }
    @Owner["front", 3, true] @Tags[team="front", level=2]
    table t {
        key = { hdr.h.a: exact @format("hex"); hdr.h.c: ternary @name("c_field") @Pos[1]; }
        actions = { @Ref["x"] set_b; @defaultonly NoAction; }
        default_action = NoAction();
    }"""),
         entries=[Entry("I.t", {"hdr.h.a": 1, "c_field": (3, 0xffff)}, "I.set_b", {"value": 0x61}, 1),
                  Entry("I.t", {"hdr.h.a": 0x10, "c_field": (0, 0)}, "I.set_b", {"value": 0x62}, 2)]),
    case("fe_max_group_size", CAT_INFO, program("        t.apply();\n", ingress_decls=SET_B + """
    @max_group_size(8) action_selector(HashAlgorithm.crc16, 32w16, 32w14) sel;
    table t { key = { hdr.h.a: exact; hdr.h.c: selector; } actions = { set_b; NoAction; } implementation = sel; }""")),
    case("fe_direct_invocation_shared", CAT, program("        Outer.apply(hdr.h.c);\n", top="""
control Step(inout bit<16> x);
control Bump(inout bit<16> x) {
    counter(32w4, CounterType.packets) seen;
    apply { x = x + 1; seen.count((bit<32>)x[1:0]); }
}
control Shl(inout bit<16> x)(Step s) { apply { x = x << 1; s.apply(x); } }
control Shl3(inout bit<16> x)(Step s) { apply { x = x << 3; s.apply(x); } }
control Outer(inout bit<16> x) {
    Bump() b;
    Shl(b) s1;
    Shl3(b) s3;
    apply { s1.apply(x); s3.apply(x); }
}
""")),
    case("fe_newtypes", CAT_INFO, program("        t.apply();\n", headers=NEWTYPES + "header n_t { Port_t p; Tag_t g; }\n",
                                          fields="    n_t n;\n", ingress_decls="""
    action s(Port_t p, Tag_t g, PortAlias_t q, Color c) { hdr.h.b = (bit<8>)p; hdr.h.c = (bit<16>)g; hdr.h.a = (bit<8>)q; }
    table t { key = { hdr.h.a: exact; hdr.h.c: ternary; } actions = { s; NoAction; } }"""),
         entries=[Entry("I.t", {"hdr.h.a": 1, "hdr.h.c": (3, 0xffff)}, "I.s", {"p": 7, "g": 9, "q": 1, "c": 2}, 1)]),
    # `type` values in locals, parameters, action parameters and struct fields: made and
    # unmade only by casts through the underlying type (type Port2_t Port_t: via Port_t)
    case("fe_newtype_locals_and_params", CAT, program("""\
        Port_t p = (Port_t)hdr.h.a;
        Port2_t p2 = (Port2_t)p;
        meta.np = (Port_t)p2;
        if (p == meta.np && p != (Port_t)0) { hdr.h.b = (bit<8>)twice(p) + 1; }
        hdr.h.c = (bit<16>)(Tag_t)16w7;
        t.apply();
""", headers=NEWTYPES + "type Port_t Port2_t;\n", meta="    Port_t np;\n",
        top="Port_t twice(in Port_t x) { return (Port_t)((bit<8>)x << 1); }\n", ingress_decls="""
    action s(in Port_t q, Port_t p) { hdr.h.d = (bit<8>)p ++ (bit<24>)(bit<8>)q; }
    table t { key = { hdr.h.a: exact; } actions = { s(meta.np); NoAction; } }"""),
         entries=[Entry("I.t", {"hdr.h.a": 1}, "I.s", {"p": 7})]),
    case("fe_digest_enum_error", CAT_INFO, program(
        "        meta.d.x = (Port_t)hdr.h.a; meta.d.c = Color.Blue; meta.d.k = Kind.Two; meta.d.err = error.NoMatch;\n"
        "        meta.d.ok = hdr.h.b == 2;\n        digest(1, meta.d);\n",
        headers=NEWTYPES + "enum Kind { One, Two }\nstruct d_t { Port_t x; Color c; Kind k; error err; bool ok; }\n",
        meta="    d_t d;\n"),
         p4info_only="simple_switch_grpc refuses a P4Info whose digest has enum or error members "
                     "('Error when importing p4info')"),
    case("fe_register_serenum", CAT, program(
        "        Color old; r.read(old, 0); r.write(0, (Color)hdr.h.a);\n        hdr.h.b = (bit<8>)old;\n",
        headers=NEWTYPES, ingress_decls="    register<Color>(1) r;\n"), one_by_one=True),
    case("fe_named_and_default_args", CAT, program(
        "        hdr.h.a = pick(y = hdr.h.b, x = hdr.h.a);\n        hdr.h.c = widen();\n        setd(v = 0x77);\n",
        top="bit<8> pick(in bit<8> x, in bit<8> y) { return x - y; }\n"
            "bit<16> widen(in bit<8> x = 8w5) { return (bit<16>)x << 4; }\n",
        ingress_decls="    action setd(bit<8> v, bit<8> w = 3) { hdr.h.d = (bit<32>)v + (bit<32>)w; }\n")),
    case("fe_tuple_from_list", CAT, program(
        "        tuple<bit<8>, bit<16>> t = { 7, 0x1234 };\n        hdr.h.a = t[0] + hdr.h.a;\n        hdr.h.c = t[1];\n")),
    case("fe_priority_properties", CAT, program("        t.apply();\n", ingress_decls=SET_B + """
    table t {
        key = { hdr.h.a: ternary; }
        actions = { set_b; NoAction; }
        largest_priority_wins = false;
        priority_delta = 5;
        entries = { priority=20: 0x10 &&& 0xf0: set_b(1); priority=10: 0x11 &&& 0xff: set_b(2); priority=30: 0 &&& 0: set_b(3); }
    }"""), frames=VALUES + [(1, H(0x11)), (2, H(0x1f))]),
    case("fe_generic_function", CAT, program(
        "        hdr.h.a = pick<bit<8>>(hdr.h.b == 2, hdr.h.a, 0x5a);\n        hdr.h.c = pick(hdr.h.a == 0, hdr.h.c, 16w0x1234);\n"
        "        swap(hdr.h.a, hdr.h.b);\n",
        top="T pick<T>(in bool c, in T a, in T b) { return c ? b : a; }\n"
            "void swap<T>(inout T a, inout T b) { T t = a; a = b; b = t; }\n")),
    case("fe_generic_control", CAT, program("        w8.apply(hdr.h.a, hdr.h.b, 8w0x44);\n        w16.apply(hdr.h.c, hdr.h.c, 16w0x4321);\n", top="""
control Keep<T>(inout T x, in T y, in T z) { apply { if (x == y) { x = z; } else { x = y; } } }
""", ingress_decls="    Keep<bit<8>>() w8;\n    Keep<bit<16>>() w16;\n")),
    case("fe_subparser_scalar_out", CAT, program("", top="""
parser GetH(packet_in p, out h_t x, out bit<8> kind, inout bit<16> seen) {
    state start { p.extract(x); kind = x.a; seen = seen + 1; transition accept; }
}
""", meta="    bit<8> kind;\n", parser="""    GetH() sub;
    state start {
        pkt.extract(hdr.eth);
        meta.m16 = 0x100;
        transition select(hdr.eth.etype) { 0x1234: ph; default: accept; }
    }
    state ph {
        sub.apply(pkt, hdr.h, meta.kind, meta.m16);
        transition select(meta.kind) { 0xee: ph2; default: accept; }
    }
    state ph2 { pkt.extract(hdr.h2); hdr.h2.c = meta.m16; transition accept; }""",
    ), frames=VALUES + [(1, H2(1, 2, 3, 4))]),
    case("fe_lookahead_statement", CAT, program(
        "        if (sm.parser_error != error.NoError) { hdr.h.a = 0xe0; }\n", top="struct eight_t { bit<64> bits; }\n", parser="""
    state start { pkt.extract(hdr.eth); pkt.lookahead<eight_t>(); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition accept; }"""),
         frames=VALUES + [(1, H(1, 2, 3, 4)[:18]), (2, H(5, 6, 7, 8)[:14])]),
    case("fe_stack_equality", CAT, program(
        "        h_t[2] tmp = hdr.s;\n        if (tmp == hdr.s) { hdr.h.a = 1; }\n"
        "        tmp[1].setValid(); tmp[1].b = hdr.h.b;\n        if (tmp != hdr.s) { hdr.h.b = 2; }\n"
        "        hdr.s[0].setValid(); hdr.s[0] = hdr.h; tmp[0] = hdr.h;\n        if (tmp == hdr.s) { hdr.h.c = 3; }\n",
        fields="    h_t[2] s;\n")),
    case("fe_masked_keys", CAT_INFO, program("        t.apply();\n", ingress_decls=SET_B + """
    table t {
        key = { hdr.h.a & 0xf0: exact; 0b11 & hdr.h.b: ternary; hdr.h.c[7:0] & 15: ternary; }
        actions = { set_b; NoAction; }
    }"""), entries=[Entry("I.t", {"hdr.h.a & 0xf0": 0x10, "0b11 & hdr.h.b": (2, 3), "hdr.h.c[7:0] & 15": (0, 0)},
                          "I.set_b", {"v": 0x66}, 1)],
         frames=VALUES + [(1, H(0x10, 0x20, 0x0a0b, 0)), (2, H(0x1f, 0x22, 0, 0))]),
    case("fe_selector_key_without_selector", CAT_INFO, program("        t.apply();\n", ingress_decls=SET_B + """
    table t { key = { hdr.h.a: selector; } actions = { set_b; NoAction; } default_action = set_b(0x31); }""")),
    case("fe_struct_in_header", CAT, program(
        "        if (hdr.sh.isValid()) {\n            hdr.sh.row.lo.v = hdr.sh.row.hi.v;\n"
        "            hdr.sh.row.hi.port = hdr.sh.row.hi.port + 1;\n            hdr.h.b = hdr.sh.row.lo.port ++ hdr.sh.tag[0:0];\n        }\n",
        headers="struct alt_t { bit<1> v; bit<7> port; }\nstruct row_t { alt_t lo; alt_t hi; }\n"
                "header sh_t { bit<8> tag; row_t row; }\n",
        fields="    sh_t sh;\n",
        parser="""    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.sh); pkt.extract(hdr.h); transition accept; }""",
        deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.sh);\n        pkt.emit(hdr.h);")),
    case("fe_bit0", CAT, program(
        "        bit<0> z = 0;\n        hdr.z.a = z;\n        hdr.z.c = hdr.z.c + (bit<7>)hdr.z.a;\n"
        "        hdr.h.a = (bit<8>)hdr.z.b ++ hdr.z.a;\n        meta.zero = hdr.z.a;\n",
        headers="header z_t { bit<0> a; bit<1> b; bit<7> c; bit<0> d; }\n", fields="    z_t z;\n", meta="    bit<0> zero;\n",
        parser="    state start { pkt.extract(hdr.eth); pkt.extract(hdr.z); pkt.extract(hdr.h); transition accept; }",
        deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.z);\n        pkt.emit(hdr.h);")),
    # what p4c 1.2.4.8 accepts although it looks wrong: a table size of 0 (the default, 1024)
    # or below 0 (listed as given, BMv2's max_size is the 32-bit wrap), a counter of size 0, a
    # direct counter no table uses (left out of the P4Info), target errors in an unused action
    case("fe_sizes_p4c_accepts", CAT, program("        t0.apply();\n        c.count((bit<32>)hdr.h.a);\n",
                                              ingress_decls="""
    counter(0, CounterType.packets) c;
    direct_counter(CounterType.packets) unused_dc;
    action s(bit<8> v) { hdr.h.b = v; }
    action never() { if (hdr.h.a == 1) { exit; } recirculate_preserving_field_list(0); }
    table t0 { key = { hdr.h.a: exact; } actions = { s; NoAction; } size = 0; }"""),
         entries=[Entry("I.t0", {"hdr.h.a": 1}, "I.s", {"v": 9})]),
    case("fe_table_size_negative", CAT, program("        tn.apply();\n", ingress_decls="""
    action s(bit<8> v) { hdr.h.b = v; }
    table tn { key = { hdr.h.c: exact; } actions = { s; NoAction; } size = -1; }"""),
         entries=[Entry("I.tn", {"hdr.h.c": 2}, "I.s", {"v": 7})],
         p4info_only="simple_switch_grpc refuses a P4Info with a negative table size (UNKNOWN: Unexpected "
                     "error in RPC handling), although p4c writes one"),
    # two actions @name'd alike with different bodies, only called directly: p4c inlines the
    # calls and lists the name once
    case("fe_name_twin_actions_direct", CAT, program(
        "        if (hdr.h.a == 1) { a1(); } else { a2(8w3); }\n        a1();\n", ingress_decls="""
    @name("same") action a1() { hdr.h.b = hdr.h.b + 1; }
    @name("same") action a2(bit<8> v) { hdr.h.c = (bit<16>)v; }""")),
    # a user-declared match_kind in a key: p4c lists it as other_match_type (simple_switch_grpc
    # refuses that P4Info); no entry can match it, so the table misses
    # (tests/pipeline/test_features.py runs it)
    case("fe_user_match_kind", CAT, program(
        "        if (tu.apply().hit) { hdr.h.d = 1; } else { hdr.h.d = 2; }\n", top="match_kind { fancy_match }\n",
        ingress_decls="""
    action s(bit<8> v) { hdr.h.b = v; }
    table tu { key = { hdr.h.c: fancy_match; hdr.h.a: exact; } actions = { s; NoAction; } default_action = s(0x44); }"""),
         p4info_only="simple_switch_grpc refuses a P4Info with an other_match_type key (UNKNOWN: Error when "
                     "importing p4info), although p4c writes one"),
    case("fe_inline_profile_named", CAT, program("        t.apply();\n", ingress_decls="""
    action s(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.a: exact; } actions = { s; NoAction; } @name("prof") implementation = action_profile(4); }"""),
         p4info_only="action profile members need the profile API, which the differential harness does not drive"),
    # p4c folds constant conditions before it builds the P4Info: a table applied or an action
    # called only in a dead branch is not listed (both are still type-checked)
    case("fe_dead_branches_fold", CAT_INFO, program("""\
        if (true) { hdr.h.b = 1; } else { t1.apply(); b1(); }
        hdr.h.c = false ? (t2.apply().hit ? 16w1 : 16w2) : 16w3;
        if (K && hdr.h.a == 1) { b2(); }
        switch (8w2) { 1: { b3(); } 2: { hdr.h.d = 4; } }
        t3.apply();
""", top="const bool K = false;\n", ingress_decls="""
    action b1() { hdr.h.b = 5; }
    action b2() { hdr.h.b = 6; }
    action b3() { hdr.h.b = 7; }
    action s(bit<8> v) { hdr.h.a = v; }
    table t1 { key = { hdr.h.a: exact; } actions = { s; NoAction; } }
    table t2 { key = { hdr.h.a: exact; } actions = { s; NoAction; } }
    table t3 { key = { hdr.h.a: exact; } actions = { s; NoAction; } }"""),
         entries=[Entry("I.t3", {"hdr.h.a": 1}, "I.s", {"v": 2})]),
    # tuples and constants p4c accepts: nested element assignment, ==, constant structs/headers
    case("fe_tuples_and_constants", CAT, program("""\
        tuple<bit<8>, tuple<bit<8>, bit<8>>> t = {hdr.h.a, {hdr.h.b, 3}};
        t[1][0] = t[1][0] + K.y;
        tuple<bit<8>, bit<8>> u = {hdr.h.a, hdr.h.a};
        if (u == {hdr.h.a, hdr.h.a} && t != {8w0, {8w0, 8w0}}) { hdr.h.a = t[1][0]; }
        hdr.h2 = KH;
        hdr.h2.setValid();
""", top="struct kk_t { bit<8> x; bit<8> y; }\nconst kk_t K = { x = 3, y = 4 };\nconst h_t KH = { 1, 2, 3, 4 };\n",
        deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.h2);")),
    case("fe_newtype_register_and_serenum_ops", CAT, program("""\
        P_t v; r.read(v, 0); r.write(0, (P_t)hdr.h.a);
        hdr.h.b = (bit<8>)v;
        hdr.h.c = Ee.A ++ hdr.h.a;
        hdr.h.d = (bit<32>)(Ee.A + hdr.h.b);
""", top="type bit<8> P_t;\nenum bit<8> Ee { A = 1 }\n", ingress_decls="    register<P_t>(1) r;\n"), one_by_one=True),
    # the same global @name(".x") action declared in two controls (as P4-14 translations do):
    # one P4Info action, run by the tables of both controls
    case("fe_global_action_in_two_controls", CAT, program("        t.apply();\n", egress="        t.apply();\n",
                                                          ingress_decls=GLOBAL_ACTIONS, egress_decls=GLOBAL_ACTIONS),
         entries=[Entry("I.t", {"hdr.h.a": 1}, "set", {"v": 9}), Entry("E.t", {"hdr.h.a": 1}, "set", {"v": 7}),
                  Entry("E.t", {"hdr.h.a": 2}, "nop")]),
    # a @controller_header header with `type` fields (translated or not, also through a typedef) and
    # serializable enums (one through a typedef, also a table key): p4c names each field's type,
    # gives the translated width and lists every enum once in type_info
    case("fe_controller_header_types", CAT, program("        if (hdr.pout.isValid()) { t.apply(); }\n", headers="""
type bit<48> Eth1_t;
typedef Eth1_t Eth1a_t;
@p4runtime_translation("example.org/Eth2", 49) type bit<48> Eth2_t;
enum int<8> Ser_t { A = 1, B = 2 }
typedef Ser_t Ser0_t;
@controller_header("packet_out") header pout_t { Eth1_t e1; Eth2_t e2; Eth1a_t e3; Ser_t s; Ser0_t s0; bit<8> pad; }
""", fields="    pout_t pout;\n", ingress_decls="""
    action s(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.pout.s: exact; hdr.pout.s0: exact; } actions = { s; NoAction; } }"""),
         p4info_only="simple_switch_grpc's P4Runtime server does not translate @p4runtime_translation types"),
]
