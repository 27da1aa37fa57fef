"""Programs found by helper errs17 (issue #15): errs16's open items and a fourth sweep of probe
programs of our own (kept in /work/e17, outside the repository), each decided by real p4c 1.2.4.8
and, for what runs, by simple_switch_grpc.

``CASES``: programs p4c accepts that checkmate-p4c refused, listed differently in the P4Info, or
ran differently.  ``INVALID`` (read by tests/differential/test_invalid.py): name -> (program,
words the message must contain (any of)) -- programs p4c rejects that checkmate-p4c accepted.
Programs p4c compiles and BMv2 refuses to load are tests/p4c/test_load_refused*.py.
"""
from .base import case, program

CAT = "front end (p4c-compatible)"

CASES = []

# A header stack given a list expression (`h_t[2] st = { hdr.h, hdr.h2 };`, `hdr.s = { ... };`, an
# element given as a list of its fields): p4c compiles it element by element; checkmate-p4c refused it
# ("type mismatch: expected h_t[2], got list"; errs16's open item, /work/e17 stk_*).
_STK = "    h_t[2] s;\n"
_STK_DEP = "        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.h2);\n        pkt.emit(hdr.s);"
CASES.append(case("errs17_stack_from_list", CAT, program("""
        h_t[2] st = { hdr.h, hdr.h2 };
        hdr.h.a = st[1].a; hdr.h.b = st[0].isValid() ? 8w1 : 8w0;
        hdr.h.c = st[1].isValid() ? 16w1 : 16w0;
        h_t[3] st3; st3 = { hdr.h2, hdr.h2, hdr.h };
        st3[1].a = 7; st3[1].d = 10;
        st3.push_front(1);
        hdr.h.d = st3[2].d[7:0] ++ (st3[0].isValid() ? 8w1 : 8w0) ++ (st3[1].isValid() ? 8w1 : 8w0) ++ st3[3 - 1].a;""")))
CASES.append(case("errs17_stack_field_from_list", CAT, program("""
        hdr.s = { hdr.h2, hdr.h };
        hdr.s[1].b = 5;
        a();
        s_t v = { { hdr.h, hdr.h }, 3 }; hdr.h.a = v.st[1].a + v.x;""", fields=_STK, deparser=_STK_DEP,
    top="struct s_t { h_t[2] st; bit<8> x; }\n",
    ingress_decls="    action a() { h_t[2] l = { hdr.s[1], hdr.s[0] }; hdr.h.b = l[0].b; hdr.h.c = l[1].c; }\n")))
# ... a stack of header unions from a list (the runtime built it with the element header's class:
# NameError), and `...` for the elements not given (invalid; checkmate-p4c refused it; /work/e17 y_*)
CASES.append(case("errs17_union_stack_from_list_and_dots", CAT, program("""
        u_t u; u.x = hdr.h; u_t[2] us = { u, u }; us[1].x.a = 5; hdr.h2 = us[1].x;
        h_t[3] a = { hdr.h, ... }; hdr.h.b = a[1].isValid() ? 8w1 : 8w2; hdr.h.c = (bit<16>)a[0].a;""",
    top="header_union u_t { h_t x; ethernet_t y; }\n")))
CASES.append(case("errs17_stack_from_list_in_parser", CAT, program("", parser="""\
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        h_t[2] st = { hdr.h, hdr.h };
        st[1].a = 9;
        hdr.h2 = st[1];
        transition accept;
    }""")))

# A struct local inside hash data (`{ hdr.h.c, l }`, /work/e17 hd_local_struct_list): p4c copies it into
# a metadata instance (tmp_0) and lists that instance as a "header" element of the calculation; the
# bmv2json loader refused p4c's JSON ("'tmp_0' is not a header instance"), BMv2 loads and hashes its
# fields in order.
CASES.append(case("errs17_hash_of_a_struct_local_in_a_list", CAT, program("""
        s_t l = { hdr.h.a, hdr.h.b + 1 };
        hash(hdr.h.c, HashAlgorithm.crc16, 16w0, { hdr.h.c, l }, 16w1024);
        hash(hdr.h.d, HashAlgorithm.crc32, 32w5, { l, hdr.eth.etype }, 32w0xffffff);""",
    top="struct s_t { bit<8> x; bit<8> y; }\n"), json_path=True))

# `this` in an abstract method's body (the instance: its methods, abstract or not, may be called):
# p4c type-checks the call and compiles the program where its back end never sees the instance;
# checkmate-p4c did not parse `this` ("expected an expression"; errs16's open item).
_THIS = ("extern Ex { Ex(); abstract bit<8> f(in bit<8> x); abstract bit<8> g(in bit<8> x); void run(); }\n"
         "control U(inout bit<8> v) {\n    Ex() e = { bit<8> f(in bit<8> x) { return this.g(x) + 1; }\n"
         "        bit<8> g(in bit<8> x) { this.run(); return x; } };\n    apply { v = v + 1; }\n}\n")
CASES.append(case("errs17_this_in_abstract_methods", CAT, program("""
        hdr.h.a = hdr.h.a + 2;""", top=_THIS)))

# A plain enum in hash data: p4c hashes its 32-bit code (the member's position); checkmate-p4c refused
# it ("a value of type En cannot be in a field list"; /work/e17 g_hash_data_enum).
CASES.append(case("errs17_plain_enum_in_hash_data", CAT, program("""
        En e = hdr.h.a == 1 ? En.Z : En.Y;
        hash(hdr.h.c, HashAlgorithm.crc16, 16w0, { En.X, hdr.h.a }, 16w0xffff);
        hash(hdr.h.d, HashAlgorithm.crc32, 32w0, { e, hdr.h.b }, 32w0xffffffff);""", top="enum En { X, Y, Z }\n")))

# A tuple digest in an action p4c removes (nothing lists or calls it) takes no number: the digest of the
# apply body is digest_0 in p4c's P4Info; checkmate-p4c listed it as digest_1 (/work/e17 d_dig_*).
CASES.append(case("errs17_digest_numbering_skips_removed_actions", CAT, program("""
        digest(1, { hdr.h.a, hdr.h.c });
        if (hdr.h.a == 1) { a_used(); }""", ingress_decls="    action a_dig() { digest(1, { hdr.h.b }); }\n"
                                                         "    action a_used() { digest(2, { hdr.h.d }); }\n"),
    p4info_only="simple_switch_grpc cannot configure a tuple digest: p4c's JSON names its learn list tuple_0, "
                "its P4Info digest_0 (INTERNAL: Error when configuring digest with target)"))

# @priority(0) on a const entry: p4c compiles it and BMv2 loads it -- the highest priority (checkmate-p4c
# refused it: "an entry priority must be at least 1"; /work/e17 an_priority_anno_zero)
CASES.append(case("errs17_entry_priority_zero", CAT, program("""
        t.apply();""", ingress_decls="""    action s(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.a: ternary; } actions = { s; }
        const entries = { 0 &&& 0: s(1) @priority(1); 0 &&& 0xf0: s(2) @priority(0); 1 &&& 0xff: s(3) @priority(2); }
    }
""")))

# value_set<Sx> of a serializable enum selected on a value of it: p4c compiles it and lists one exact
# match field per member of the enum in its P4Info; checkmate-p4c refused it (/work/e17 vs_serenum)
CASES.append(case("errs17_value_set_of_a_serializable_enum", CAT, program("", top="enum bit<8> Sx { A = 1, B = 2 }\n", parser="""\
    value_set<Sx>(4) vs;
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) {
            0x1234: parse_h;
            default: accept;
        }
    }
    state parse_h {
        pkt.extract(hdr.h);
        transition select((Sx)hdr.h.a) {
            vs: parse_h2;
            default: accept;
        }
    }
    state parse_h2 {
        pkt.extract(hdr.h2);
        transition accept;
    }""")))

# register.read with an index out of range: BMv2's register_read writes nothing -- the destination keeps
# its value (a fresh local: 0; a slice goes through p4c's temporary, 0); checkmate-switch read 0.  A
# store right before the read (or an execute_meter) into the same place is dead to p4c and BMv2 never
# runs it (/work/e17 r_reg_idx_oob_*, r_meter_oob_preset; h.a of the frames: 1, 0xff, 0, 0x7f, 0x10).
_REG = ("    register<bit<8>, bit<32>>(4) r;\n    register<int<8>, bit<32>>(4) ri;\n"
        "    meter<bit<32>>(4, MeterType.packets) m;\n")
CASES.append(case("errs17_register_read_out_of_range", CAT, program("""
        r.write(32w1, 8w5); ri.write(32w1, -3);
        r.read(hdr.h.b, (bit<32>)hdr.h.a);
        bit<8> v; r.read(v, (bit<32>)hdr.h.a + 1); hdr.h.c = hdr.h.c + (bit<16>)v;
        r.read(hdr.h.d[7:0], (bit<32>)hdr.h.a);
        int<8> sv = 4; ri.read(sv, (bit<32>)hdr.h.a); hdr.h.d[31:24] = (bit<8>)sv;""", ingress_decls=_REG, version=20200408), json_path=True))
CASES.append(case("errs17_store_before_an_extern_out_argument", CAT, program("""
        hdr.h.b = 77; r.read(hdr.h.b, (bit<32>)hdr.h.a + 100);
        bit<2> col = 3; m.execute_meter((bit<32>)hdr.h.a, col); hdr.h.c[1:0] = col;
        hdr.h.d = 9; r.read(hdr.h.d[7:0], (bit<32>)hdr.h.a);""", ingress_decls=_REG, version=20200408), json_path=True))

# random with lo > hi: BMv2 writes nothing (the destination keeps its value); checkmate-switch wrote lo
# (/work/e17 g_random_lo_gt_hi).  Bounds from the frame too (lo > hi for h.b > 0x7f, else lo == hi).
CASES.append(case("errs17_random_low_above_high", CAT, program("""
        random(hdr.h.a, 8w9, 8w7);
        random(hdr.h.c, (bit<16>)hdr.h.b, hdr.h.b > 0x7f ? 16w0 : (bit<16>)hdr.h.b);"""), json_path=True))

# A direct meter read into a slice (`dm.read(hdr.h.b[1:0])`): p4c compiles it and BMv2 loads it;
# checkmate-p4c's build did not load (its record kept the read's text, "not a (dotted) identifier";
# /work/e17 x_dm_read_in_action).  Every frame misses: the default action reads the meter (green, 0).
CASES.append(case("errs17_direct_meter_read_into_a_slice", CAT, program("""
        t.apply();""", ingress_decls="""    direct_meter<bit<2>>(MeterType.packets) dm;
    action s() { dm.read(hdr.h.b[1:0]); hdr.h.c = 7; }
    table t { key = { hdr.h.a: exact; } actions = { s; } meters = dm; default_action = s(); }
"""), json_path=True))

_GEN = "T id<T>(in T x) { return x; }\nbit<8> f8(in bit<8> x) { return x + 1; }\nvoid gset<T>(out T o, in T v) { o = v; }\n"
_TAB = ("    action a(%s v) { hdr.h.a = (bit<8>)v; }\n    table t { key = { hdr.h.a: exact; } actions = { a; } "
        "const entries = { 1: a(%s); } }\n")
INVALID = {
    # a const entry's action argument p4c's P4Runtime serializer cannot write: a cast to a `type`
    # ("unsupported argument expression"), a bit<0> parameter's ("Compiler Bug: Unexpected width 0")
    "errs17_entry_argument_cast_to_a_type": (program("        t.apply();\n", top="type bit<8> T8;\n",
                                                     ingress_decls=_TAB % ("T8", "(T8)3")), ("unsupported argument expression",)),
    "errs17_entry_argument_of_a_bit0_parameter": (program("        t.apply();\n", ingress_decls=_TAB % ("bit<0>", "0")),
                                                  ("Unexpected width 0",)),
    # @priority takes an integer (p4c's grammar: "unexpected STRING_LITERAL, expecting INTEGER")
    "errs17_priority_annotation_string": (program("        t.apply();\n", ingress_decls="""\
    table t { key = { hdr.h.a: ternary; } actions = { NoAction; } const entries = { 1 &&& 0xff: NoAction() @priority("5"); } }
"""), ("expecting INTEGER",)),
    # a struct local with an initializer used in a checksum control: p4c's field copies stay ("m2.m8 =
    # meta.m8: Only calls to update_checksum ... allowed"); unused, or without an initializer, it compiles
    "errs17_checksum_control_struct_local": (program("", compute="apply { meta_t m2 = meta; update_checksum(true, m2, "
                                                                 "hdr.h.c, HashAlgorithm.csum16); }"),
                                             ("only calls to update_checksum",)),
    # `.a1:` as an action_run label names a top-level action (a1 is the control's)
    "errs17_action_run_label_dotted": (program("        switch (t.apply().action_run) { .a1: { hdr.h.b = 1; } }\n",
                                               ingress_decls="    action a1() { }\n    table t { key = { hdr.h.a: exact; } "
                                                             "actions = { a1; } }\n"), ("a1: declaration not found",)),
    # a generic function called inside another call's argument: p4c 1.2.4.8 loses its type
    # parameters ("T: declaration not found"); beside it in an expression, or in a cast, compiles
    "errs17_generic_call_in_a_call_argument": (program("        hdr.h.a = f8(id(hdr.h.b));\n", top=_GEN),
                                               ("T: declaration not found",)),
    "errs17_generic_call_in_hash_data": (program("        hash(hdr.h.c, HashAlgorithm.crc16, 16w0, { id(hdr.h.a) }, "
                                                 "16w0xffff);\n", top=_GEN), ("T: declaration not found",)),
    "errs17_generic_call_in_a_generic_call": (program("        hdr.h.a = id(id(hdr.h.b) + 1);\n", top=_GEN),
                                              ("T: declaration not found",)),
    # T inferred from a struct argument and from a list expression argument (p4c: Cannot unify)
    "errs17_generic_struct_and_list_arguments": (program("        s_t s = { 1, 2 }; gset(s, { 3, 4 }); hdr.h.a = s.x;\n",
                                                         top=_GEN + "struct s_t { bit<8> x; bit<8> y; }\n"),
                                                 ("Cannot unify",)),
    # `this` outside an abstract method; a method the extern does not have
    "errs17_this_outside_an_abstract_method": (program("        hdr.h.a = this.x;\n"),
                                               ("'this' can only be used in the definition of an abstract method",)),
    "errs17_this_unknown_method": (program("", top=_THIS.replace("this.g(x) + 1", "this.nope(x)")),
                                   ("does not have method matching this call",)),
    # a stack from a list of the wrong length, or holding `{#}` (no type there) or a struct initializer
    "errs17_stack_from_short_list": (program("        h_t[2] st = { hdr.h }; hdr.h.a = st[0].a;\n"),
                                     ("cannot become h_t[2]",)),
}
