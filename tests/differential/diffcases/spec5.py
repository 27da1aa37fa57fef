"""Cases from spec5's probes of the P4-16 language specification, chapter by chapter (issue #15):
small v1model programs of our own for the type rules (which type may nest in which), enums and
errors, typedef vs type, constant folding, implicit casts, statements and direction rules,
compared against real p4c 1.2.4.8 / BMv2.  ``CASES`` are valid programs run frame by frame;
``INVALID`` (merged into tests/differential/test_invalid.py) are programs p4c rejects, each with
words checkmate-p4c's message must contain."""
from .base import H, case, program  # noqa: F401

CAT = "language spec (spec5)"

CASES = [
    # a v1model constructor's bit<32> size given by a member of a bit<32> serializable enum
    # (p4c converts it to the underlying type; p4testA/issue2844-enum-like)
    case("spec5_counter_size_serializable_enum", CAT, program("        c.count((bit<32>)hdr.h.a);\n        hdr.h.b = 1;\n",
                                                               top="enum bit<32> Sizes { N = 4 }\n",
                                                               ingress_decls="    counter(Sizes.N, CounterType.packets) c;\n"),
         frames=[(0, H(1)), (0, H(3))]),
    # `.name` resolves at the top level even where a local declaration shadows the name: a
    # top-level action and function called with `.` beside local ones of the same name, and a
    # shadowed constant read both ways
    case("spec5_dot_prefix_shadowed", CAT, program("""\
        .ga(hdr.h);
        hdr.h.a = hdr.h.b;
        ga(hdr.h);
        hdr.h.c = K ++ .K;
        hdr.h.d[7:0] = .gf(hdr.h.a);
""", top="""\
const bit<8> K = 5;
action ga(inout h_t h) { h.b = 0x42; }
bit<8> gf(in bit<8> v) { return v + 1; }
""", ingress_decls="""\
    const bit<8> K = 7;
    action ga(inout h_t h) { h.b = 0x43; }"""),
        frames=[(0, H(1)), (0, H(0xff, 9))]),
    # a control's constructor parameter with a default value, given and omitted
    case("spec5_control_ctor_default", CAT, program("""\
        s.apply(hdr.h);
        s2.apply(hdr.h);
""", top="control Sub(inout h_t h)(bit<8> k = 9, bit<16> j = 16w0x100) { apply { h.b = h.b + k; h.c = h.c + j; } }\n",
        ingress_decls="    Sub() s;\n    Sub(3) s2;"),
        frames=[(0, H(1, 2, 3))]),
    # a valid header assigned to one union member, then that member assigned to the other:
    # which members are valid afterwards
    case("spec5_union_member_assign", CAT, program("""\
        u.x = hdr.h;
        if (u.x.isValid() && !u.y.isValid()) {
            u.y = u.x;
            hdr.h.a = u.x.isValid() ? 8w1 : 8w2;
            hdr.h.b = u.y.isValid() ? 8w1 : 8w2;
        }
""", top="header_union u_t { h_t x; h_t y; }\n", ingress_decls="    u_t u;"),
        frames=[(0, H(7, 7))], json_path=True),
    # exit inside a sub-control and inside an action with inout/out arguments: what the
    # caller's variables and headers hold afterwards (copy-out on exit)
    case("spec5_exit_copy_out", CAT, program("""\
        bit<8> o = 9;
        s.apply(hdr.h, o);
        hdr.h.b = o;
        if (hdr.h.a == 2) { a1(hdr.h.d[7:0]); }
        bit<8> q = 1;
        if (hdr.h.a == 3) { a2(q); }
        hdr.h.d[15:8] = q;
""", top="control Sub(inout h_t h, out bit<8> o) { apply { o = 3; h.c = 0x11; if (h.a == 1) { exit; } h.c = 0x22; o = 4; } }\n",
        ingress_decls="""\
    Sub() s;
    action a1(inout bit<8> v) { v = 0x55; exit; }
    action a2(out bit<8> v) { v = 0x65; exit; }"""),
        frames=[(0, H(1)), (0, H(2)), (0, H(3)), (0, H(4))], json_path=True),
    # aliasing arguments and the order arguments are evaluated in
    case("spec5_alias_and_arg_order", CAT, program("""\
        f(hdr.h.a, hdr.h.a);
        hdr.h.b = f2(g(hdr.h.b), g(hdr.h.b));
        io(hdr.h.c[7:0], hdr.h.c[7:0]);
        o(hdr.h.d[7:0]);
""", top="""\
void f(inout bit<8> x, inout bit<8> y) { x = x + 1; y = y + 10; }
bit<8> g(inout bit<8> x) { x = x * 2; return x; }
bit<8> f2(in bit<8> a, in bit<8> b) { return a - b; }
void io(in bit<8> x, out bit<8> y) { y = x + 1; y = y + x; }
void o(out bit<8> a) { }
"""),
        frames=[(0, H(1, 3, 5, 0x77)), (0, H(0x80, 0x81, 0xff, 0xffffffff))]),
    # more argument forms of an action that exits: a metadata field, a local struct's field,
    # one field passed twice, a whole header, a local variable later copied to the frame
    case("spec5_exit_arg_forms", CAT, program("""\
        if (hdr.h.a == 1) { a1(meta.m8); }
        if (hdr.h.a == 2) { a2(hdr.h.b, hdr.h.b); }
        if (hdr.h.a == 3) { a3(hdr.h); }
        if (hdr.h.a == 4) { a1(st.x); }
        if (hdr.h.a == 5) { a1(hdr.h.d[31:24]); }
""", egress="        hdr.h.d[15:8] = meta.m8;\n", meta="",
        ingress_decls="""\
    S st = { 0x10 };
    action a1(inout bit<8> v) { v = 0x55; exit; }
    action a2(inout bit<8> v, inout bit<8> w) { v = 0x56; w = 0x57; exit; }
    action a3(inout h_t h) { h.c = 0x58; exit; }""", top="struct S { bit<8> x; }\n"),
        frames=[(0, H(1)), (0, H(2)), (0, H(3)), (0, H(4)), (0, H(5))], json_path=True),
    # exit inside a sub-control: a slice argument, a whole header (one field passed twice, or a
    # third apply of an exiting control, is left out: p4c 1.2.4.8 stops with "Compiler Bug:
    # Overwriting definitions")
    case("spec5_exit_subcontrol_arg_forms", CAT, program("""\
        if (hdr.h.a == 1) { s1.apply(hdr.h.d[7:0]); }
        if (hdr.h.a == 3) { s3.apply(hdr.h); }
""", egress="        hdr.h.d[15:8] = meta.m8;\n", top="""\
control C1(inout bit<8> v) { apply { v = 0x61; exit; } }
control C3(inout h_t h) { apply { h.c = 0x64; exit; } }
""", ingress_decls="    C1() s1;\n    C3() s3;"),
        frames=[(0, H(1)), (0, H(2)), (0, H(3))]),
    # an @optional `in` parameter of a control, left out of one apply and given in another
    case("spec5_control_optional_param", CAT, program("""\
        s.apply(hdr.h);
        s2.apply(hdr.h, 8w5);
""", top="control Sub(inout h_t h, @optional in bit<8> k) { apply { h.b = h.b + 1 + k; } }\n",
        ingress_decls="    Sub() s;\n    Sub() s2;"),
        frames=[(0, H(1, 2))]),
    # @max_group_size on a table (not an action profile): p4c lists it among the table's
    # annotations
    case("spec5_table_max_group_size_anno", CAT, program("        t.apply();\n", ingress_decls="""\
    action a1() { hdr.h.b = 1; }
    @max_group_size(4) table t { key = { hdr.h.a: exact; } actions = { a1; } }"""),
        frames=[(0, H(1))]),
    # == and != of headers, structs holding headers and header unions when members are
    # invalid (two invalid headers are equal whatever their fields hold)
    case("spec5_equality_with_invalid_headers", CAT, program("""\
        x = hdr.h;
        y = hdr.h;
        y.b = 0x99;
        y.setInvalid();
        z.setInvalid();
        hdr.h.b = (y == z ? 8w1 : 8w0) | (x != y ? 8w2 : 8w0) | (x == hdr.h ? 8w4 : 8w0);
        S sa = { y, hdr.h.a };
        S sb = { z, hdr.h.a };
        hdr.h.c[7:0] = sa == sb ? 8w1 : 8w0;
        u1.x = hdr.h;
        u2.y = hdr.h;
        hdr.h.c[15:8] = (u1 == u2 ? 8w1 : 8w0) | (u1.x == u2.y ? 8w2 : 8w0);
        u1.x.setInvalid();
        u2.y.setInvalid();
        hdr.h.d[7:0] = u1 == u2 ? 8w1 : 8w0;
""", top="struct S { h_t hh; bit<8> k; }\nheader_union U { h_t x; h_t y; }\n",
        ingress_decls="    h_t x;\n    h_t y;\n    h_t z;\n    U u1;\n    U u2;"),
        frames=[(0, H(1, 2, 3, 4)), (0, H(0, 0, 0, 0))]),
    # a struct assigned a list that reads the struct itself (a swap), a header's fields swapped
    # through a list, and an inout call inside an expression that also reads its argument
    case("spec5_self_reading_assignments", CAT, program("""\
        S s = { hdr.h.a, hdr.h.b };
        s = { s.y, s.x };
        hdr.h.a = s.x;
        hdr.h.b = s.y;
        hdr.h.c = hdr.h.c + (bit<16>)bump(hdr.h.d[7:0]) + (bit<16>)hdr.h.d[7:0];
        hdr.h2.setValid();
        hdr.h2 = { hdr.h.b, hdr.h.a, hdr.h.c, hdr.h.d };
""", top="struct S { bit<8> x; bit<8> y; }\nbit<8> bump(inout bit<8> v) { v = v + 1; return v; }\n"),
        frames=[(0, H(1, 2, 3, 4)), (0, H(0xff, 0x80, 0xffff, 0xff))]),
    # switch on run-time values: fall-through labels, default in the middle of a label group,
    # no default, a serializable enum, and an expression with a side effect evaluated once
    case("spec5_switch_values", CAT, program("""\
        switch (hdr.h.a) {
            1: 2: { hdr.h.b = 0x12; }
            3: { hdr.h.b = 0x3; }
            4: default: { hdr.h.b = 0x44; }
        }
        switch (hdr.h.a ++ hdr.h.b) { 16w0x0112: { hdr.h.c = 1; } 16w0x0303: { hdr.h.c = 3; } }
        switch ((En)hdr.h.a) { En.A: { hdr.h.d[7:0] = 0xa; } En.B: { hdr.h.d[7:0] = 0xb; } }
        switch (bump(hdr.h.d[31:24])) { 1: { hdr.h.d[23:16] = 1; } 2: { hdr.h.d[23:16] = 2; } default: { hdr.h.d[23:16] = 9; } }
""", top="enum bit<8> En { A = 1, B = 3 }\nbit<8> bump(inout bit<8> v) { v = v + 1; return v; }\n"),
        frames=[(0, H(1)), (0, H(2)), (0, H(3, 0, 0, 0x01000000)), (0, H(4)), (0, H(9, 0, 0, 0xff000000))],
        json_path=True),
    # shadowing: a block-local over a control-local of the same name, written in the inner
    # block and read after it; a function's local named like a top-level constant; an
    # action's local named like a control-local
    case("spec5_shadowing_writes", CAT, program("""\
        v = hdr.h.a;
        {
            bit<8> v = 0x40;
            v = v + 1;
            hdr.h.b = v;
        }
        hdr.h.c = (v + K) ++ f(hdr.h.a);
        a();
""", top="const bit<8> K = 2;\nbit<8> f(in bit<8> x) { bit<8> K = 0x10; return x + K + .K; }\n",
        ingress_decls="    bit<8> v;\n    action a() { bit<8> v = 0x77; hdr.h.d[7:0] = v; hdr.h.d[15:8] = K; }"),
        frames=[(0, H(1)), (0, H(0xf0))]),
]

# name -> (program, words the message must contain (any of))
INVALID = {
    # the spec: int has no run-time representation; p4c: "Cannot declare variables with type int"
    "spec5_local_var_of_type_int": (program("        int x = 3;\n        hdr.h.a = (bit<8>)x;\n"),
                                    ("variables of type int",)),
    # p4c's BMv2 back end: a constant shift amount over 256 ("shift amount limited to 256")
    "spec5_shift_amount_over_256": (program("        hdr.h.c = hdr.h.c >> 257;\n        hdr.h.a = hdr.h.a << 16w300;\n"),
                                    ("limited to 256",)),
    # a serializable enum's underlying type is bit<N> or int<N>, never int
    "spec5_serenum_over_int": (program("        hdr.h.a = 1;\n", top="enum int En { A = 1 }\n"),
                               ("underlying type int",)),
    # constant division by zero, untyped and typed (p4c: "Division by zero")
    "spec5_const_division_by_zero": (program("        hdr.h.a = (bit<8>)Q;\n", top="const int Q = 17 / 0;\n"),
                                     ("division by zero",)),
    "spec5_typed_modulo_by_zero": (program("        hdr.h.a = 8w17 % 8w0;\n"), ("division by zero",)),
    # a list of the wrong arity for a tuple: the message says so
    "spec5_tuple_wrong_arity": (program("        tuple<bit<8>, bit<16>> t = { hdr.h.a };\n        hdr.h.a = t[0];\n"),
                                ("tuple of 2 elements",)),
    # p4c 1.2.4.8's grammar: annotations precede block statements and declarations only
    "spec5_annotated_assignment": (program("        @note hdr.h.a = 1;\n"), ("annotation",)),
    "spec5_annotated_exit": (program("        if (hdr.h.a == 1) { @note exit; }\n"), ("annotation",)),
    "spec5_annotated_parser_call": (program("", parser="""
    state start { @note pkt.extract(hdr.eth); transition accept; }"""), ("annotation",)),
    "spec5_annotated_enum_member": (program("        hdr.h.a = 1;\n", top="enum En { @m A, B }\n"),
                                    ("member cannot be annotated",)),
    # a named argument given twice (p4c: "same argument name")
    "spec5_named_argument_twice": (program("        a(v = 3, v = 4, w = 1);\n",
                                           ingress_decls="    action a(in bit<8> v, in bit<8> w) { hdr.h.a = v + w; }\n"),
                                   ("given twice",)),
    # v1model's constructors take bit<32> sizes: no other width is cast implicitly
    "spec5_counter_size_bit8": (program("        c.count(0);\n", ingress_decls="    counter(8w4, CounterType.packets) c;\n"),
                                ("bit<8>",)),
    "spec5_register_size_bit16": (program("        r.write(0, 1);\n", ingress_decls="    register<bit<8>>(16w4) r;\n"),
                                  ("bit<16>",)),
    # `type` makes a new type from bit<N>, int<N>, bool or another such name only
    "spec5_type_of_varbit": (program("        hdr.h.a = 1;\n", top="type varbit<8> NV;\n"), ("base types",)),
    "spec5_type_of_int": (program("        hdr.h.a = 1;\n", top="type int NI;\n"), ("base types",)),
    "spec5_type_of_error": (program("        hdr.h.a = 1;\n", top="type error NE;\n"), ("base types",)),
    # a control that instantiates itself (was a RecursionError)
    "spec5_control_instantiates_itself": (program("        me.apply(hdr, meta, sm);\n", ingress_decls="    I() me;\n"),
                                          ("instantiates itself",)),
    "spec5_packet_in_with_direction": (program("        hdr.h.a = 1;\n", top="control Sub(out packet_in p) { apply { } }\n"),
                                       ("cannot have a direction",)),
    "spec5_union_from_list": (program("        u = { hdr.h };\n", top="header_union u_t { h_t x; }\n", ingress_decls="    u_t u;\n"),
                              ("header union",)),
    "spec5_union_from_initializer": (program("        u = { x = hdr.h };\n", top="header_union u_t { h_t x; }\n",
                                             ingress_decls="    u_t u;\n"), ("header union",)),
    # p4c 1.2.4.8's grammar has no annotations on function, error and match_kind declarations
    "spec5_annotated_function": (program("        hdr.h.a = f(hdr.h.a);\n", top="@fn bit<8> f(in bit<8> x) { return x; }\n"),
                                 ("cannot be annotated",)),
    "spec5_annotated_error_decl": (program("        hdr.h.a = 1;\n", top="@er error { MyE }\n"), ("cannot be annotated",)),
    "spec5_annotated_match_kind": (program("        hdr.h.a = 1;\n", top="@mk match_kind { my_kind }\n"),
                                   ("cannot be annotated",)),
    # a structured annotation's key given twice (p4c: "Duplicates declaration k")
    "spec5_structured_annotation_dup_key": (program("        hdr.h.a = 1;\n", top="@b[k = 1, k = 2]\nconst bit<8> X = 1;\n"),
                                            ("given twice",)),
}
