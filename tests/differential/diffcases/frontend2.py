"""Front-end constructs found by front5's probes (p4c 1.2.4.8 accepts them, checkmate-p4c
refused them): ``...`` default values in struct/header/list expressions and alone, ``switch``
on a ``bool``, named arguments of v1model externs (constructors, methods, functions) and of
bound action arguments in a table's actions list, bit slices of an ``int`` constant, and ``largest_priority_wins``/``priority_delta`` of any type on a table
without ``entries`` (p4c only reads them to number entries)."""
from controller.entities import Entry

from .base import H, VALUES, case, program

CAT = "front end (p4c-compatible)"

DOTS_TOP = """struct pair_t { bit<8> a; bit<8> b; }
enum Kind { First, Second }
enum bit<8> Code { One = 1, Two = 2 }
struct all_t { pair_t p; bit<16> w; bool f; Kind k; Code c; error e; h_t hh; }
"""

CASES = [
    # the fields not listed get 0 / false / the first enum member / error.NoError / an
    # invalid header; a header given with `...` is valid (p4c: a struct expression)
    case("fe_dots_struct_and_header", CAT, program("""\
        pair_t s = { a = hdr.h.a, ... };
        hdr.h.b = s.a + s.b;
        all_t z = { w = 7, ... };
        hdr.h.c = z.w + (bit<16>)z.p.b + (z.f ? 16w0x100 : 16w0) + (z.k == Kind.First ? 16w0x200 : 16w0)
                  + (z.e == error.NoError ? 16w0x400 : 16w0) + (z.hh.isValid() ? 16w0x800 : 16w0)
                  + (bit<16>)(bit<8>)z.c;
        h_t x = { a = 9, ... };
        if (x.isValid()) { hdr.h.d = (bit<32>)x.a + (bit<32>)x.c; }
        if (hdr.h.a == 2) { hdr.h2 = { b = 5, ... }; }
""", headers=DOTS_TOP), frames=VALUES + [(1, H(2, 3, 4, 5))]),
    case("fe_dots_list_and_alone", CAT, program("""\
        pair_t s = { hdr.h.a, ... };
        pair_t u = ...;
        h_t gone = ...;
        tuple<bit<8>, bit<16>> t = { 3, ... };
        hdr.h.b = s.a + s.b + u.a + t[0] + (gone.isValid() ? 8w0x40 : 8w0);
        hdr.h.c = t[1];
        meta = { m8 = 1, ... };
        hdr.h.d = (bit<32>)meta.m8 + (bit<32>)meta.m16;
""", headers=DOTS_TOP)),
    case("fe_switch_on_bool", CAT, program("""\
        switch (hdr.h.a == 1) { true: { hdr.h.b = 0x11; } false: { hdr.h.b = 0x22; } }
        switch (hdr.h.c > 2) { true: { hdr.h.d = 5; } default: { hdr.h.d = 6; } }
""")),
    case("fe_priority_properties_without_entries", CAT, program("        t.apply();\n", ingress_decls="""
    action set_b(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.a: ternary; } actions = { set_b; NoAction; } largest_priority_wins = 1; priority_delta = true; }""")),
    case("fe_named_extern_arguments", CAT, program("""\
        r.write(value = hdr.h.a, index = 1);
        bit<8> old; r.read(index = 1, result = old);
        hdr.h.b = old;
        c.count(index = 2);
        hash(result = hdr.h.c, algo = HashAlgorithm.crc16, base = 16w0, data = {hdr.h.a}, max = 32w100);
        t.apply();
""", ingress_decls="""
    register<bit<8>>(size = 4) r;
    counter(type = CounterType.packets, size = 4) c;
    action pick(inout bit<8> x, bit<8> y) { x = y; }
    table t { key = { hdr.h.a: exact; } actions = { pick(x = hdr.h.d[7:0]); NoAction; } }"""),
         entries=[Entry("I.t", {"hdr.h.a": 1}, "I.pick", {"y": 0x3c})], one_by_one=True),
    case("fe_slice_of_int_constant", CAT, program(
        "        hdr.h.a = K[7:0];\n        hdr.h.b = (bit<8>)N[11:4];\n        hdr.h.c = K[15:0] + hdr.h.c;\n",
        top="const int K = 0x12345;\nconst int N = -3;\n")),
    # V1Switch with its arguments named in another order; named core/v1model arguments in the
    # parser, checksum control and deparser; a `{k}` keyset in const entries
    case("fe_named_package_and_keyset_list", CAT, program("        t.apply();\n", ingress_decls="""
    action s(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.a: exact; } actions = { s; NoAction; }
              const entries = { {8w1}: s(0x21); {(8w2 ++ 8w0)[15:8]}: s(0x22); } }""",
        parser="""    state start { pkt.extract(hdr = hdr.eth); transition select(hdr.eth.etype) { 0x1234: h; default: accept; } }
    state h { pkt.extract(hdr = hdr.h); transition accept; }""",
        compute="""apply { update_checksum(data = {hdr.h.a, hdr.h.b}, checksum = hdr.h.c, condition = hdr.h.a == 1,
                             algo = HashAlgorithm.csum16); }""",
        deparser="        pkt.emit(hdr = hdr.eth);\n        pkt.emit(hdr = hdr.h);").replace(
            "V1Switch(P(), VC(), I(), E(), CC(), D()) main;",
            "V1Switch(ig = I(), p = P(), vr = VC(), eg = E(), ck = CC(), dep = D()) main;")),
    case("fe_inline_selector_max_group_size", CAT, program("        t.apply();\n", ingress_decls="""
    action s(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.a: exact; hdr.h.c: selector; } actions = { s; NoAction; }
              @name("sel_ws") @max_group_size(64) implementation = action_selector(HashAlgorithm.identity, 32w128, 32w8); }""")),
    # the divisor is a call of a function that always returns 4: p4c inlines it and divides by
    # a constant (shift); the call's side effect on its inout argument stays
    case("fe_divisor_function_constant", CAT, program(
        "        hdr.h.a = hdr.h.a / four(hdr.h.b);\n        hdr.h.d = (bit<32>)(hdr.h.c % (bit<16>)four(meta.m8)) + (bit<32>)meta.m8;\n",
        top="bit<8> four(inout bit<8> v) { v = v + 1; return 8w4; }\n")),
    # a serializable enum as a run-time stack index; a plain enum and an error in log_msg data
    case("fe_serenum_stack_index_and_log_enum", CAT, program("""\
        Idx_t i = (Idx_t)hdr.h.a[0:0];
        hdr.s[0].a = 0x10;  // both written first: an unwritten field of an invalid header holds
        hdr.s[1].a = 0x20;  // whatever the previous packet left there (BMv2's PHV reuse, timing-dependent)
        hdr.s[i].a = 0x77;
        hdr.h.c = hdr.s[0].a ++ hdr.s[1].a;
        log_msg("k={} e={}", {Kind.Second, error.NoMatch});
""", headers="enum bit<1> Idx_t { ZERO = 0, ONE = 1 }\nenum Kind { First, Second }\n", fields="    h_t[2] s;\n")),
    # a sub-control's and a sub-parser's parameter with a default value, left out in apply()
    case("fe_block_default_params", CAT, program("        Bump.apply(hdr.h.c);\n        Bump.apply(hdr.h.c, 16w0x100);\n", top="""
control Bump(inout bit<16> x, in bit<16> by = 3) { apply { x = x + by; } }
parser Skip(packet_in p, out bit<8> got, in bit<8> add = 0x10) { state start { got = add; transition accept; } }
""", parser="""    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: h; default: accept; } }
    state h { pkt.extract(hdr.h); Skip.apply(pkt, meta.m8); hdr.h.b = meta.m8; transition accept; }""")),
    # a struct inside a header assigned a list / struct initializer (field by field), a bool
    # header field assigned a comparison and read as a bool, `extract<H>(_)` skipping a header
    case("fe_header_struct_fields_and_skip", CAT, program("""\
        if (hdr.v.isValid()) {
            hdr.v.s = {hdr.h.a, 8w7};
            if (hdr.h.b == 2) { hdr.v.s = {y = 1, x = 2}; }
            hdr.v.e = {};
            hdr.v.flag = hdr.h.a == 1;
            hdr.h.d = hdr.v.s.x ++ hdr.v.s.y ++ 15w0 ++ (hdr.v.flag ? 1w1 : 1w0);
        }
""", headers="struct xy_t { bit<8> x; bit<8> y; }\nstruct empty_t { }\n"
             "header v_t { xy_t s; empty_t e; bool flag; bit<7> pad; }\n",
        fields="    v_t v;\n",
        parser="""    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: h; default: accept; } }
    state h { pkt.extract<h_t>(_); pkt.extract(hdr.h); hdr.v.setValid(); transition accept; }"""),
         frames=[(1, H(1, 2, 3, 4) + bytes(8)), (2, H(0xff, 0x80, 0xffff, 0xdeadbeef) + bytes(8))], one_by_one=True),
    # a table key of type `error` (p4c: 32 bits, no bitwidth in the P4Info) and `const` entries
    # inside a non-const `entries` list
    case("fe_error_key_and_const_entry", CAT, program("        e.apply();\n        t.apply();\n", ingress_decls="""
    action s(bit<8> v) { hdr.h.b = v; }
    table e { key = { sm.parser_error: exact; } actions = { s; NoAction; } default_action = s(0x5e); }
    table t { key = { hdr.h.a: ternary; } actions = { s; NoAction; }
              entries = { const priority=10: 0x01 &&& 0xff: s(0x31); priority=5: 0x00 &&& 0x00: s(0x32); } }""")),
    # `exit` under an `if` whose condition is a constant (p4c folds it: no conditional
    # execution in the action) and a value set of size 0 (never matches)
    case("fe_exit_under_constant_if_and_empty_value_set", CAT, program("        a();\n        hdr.h.c = 0x99;\n", ingress_decls="""
    action a() { hdr.h.b = 0x44; if (true) { exit; } }""",
        parser="""    value_set<bit<16>>(0) none;
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { none: accept; 0x1234: h; default: accept; } }
    state h { pkt.extract(hdr.h); transition accept; }""")),
    # one control-plane name, two bodies: `@name(".set")` actions in two controls, each listed
    # by its own table (p4c: one P4Info action, each table runs its own body)
    case("fe_name_twin_actions_in_tables", CAT, program("        t.apply();\n", egress="        t.apply();\n",
         ingress_decls="""    @name(".set") action set(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.a: exact; } actions = { set; NoAction; } }""",
         egress_decls="""    @name(".set") action set(bit<8> v) { hdr.h.c = (bit<16>)v + 1; }
    table t { key = { hdr.h.a: exact; } actions = { set; NoAction; } }"""),
         entries=[Entry("I.t", {"hdr.h.a": 1}, "set", {"v": 9}), Entry("E.t", {"hdr.h.a": 1}, "set", {"v": 7}),
                  Entry("E.t", {"hdr.h.a": 0xff}, "set", {"v": 3})]),
    # V1MODEL_VERSION written in binary: cpp (p4c's preprocessor) reads 0b101 as 5
    case("fe_v1model_version_binary", CAT, program("        hdr.h.a = V1MODEL_VERSION == 5 ? 8w1 : 8w2;\n", version="0b101")),
]
