"""Found by helper mutz21 (issue #15, probes of new tools/p4c_mutate.py kinds), each decided by
real p4c 1.2.4.8 / BMv2 1.15.5.

A directionless action parameter of a type the control plane cannot set (a header, struct,
header union, ``error``; a stack, tuple, ``match_kind`` or ``string`` in an action nothing
calls): p4c refuses it only where its P4Runtime serializer meets it -- an action listed by a
table p4c keeps ("Action parameter v has a type which is not bit<>, int<>, bool, type or
serializable enum", at the parameter) -- or, for a ``string``, in a call.  An action only called
directly is inlined with its arguments (its P4Info action has no parameters), and a table
nothing applies is removed first, with the actions only it lists; a ``bool`` parameter of such
an action is no error either (the BMv2 back end's "must be bit<> or int<>" runs on kept
tables).  checkmate-p4c refused every such declaration.

Integer literals of width 0 (``0w0``, and ``0w1``, which p4c truncates with a warning) are
bit<0> zeros, and a ``varbit<0>`` field is a varbit that holds nothing (extracted with a size
of 0): p4c accepts both, checkmate-p4c refused them."""
from .base import H, H2, case, program

CAT = "front end (p4c-compatible)"

_ACTIONS = """\
    u_t uu;
    action ah(h_t v, bit<8> k) { hdr.h.a = v.b + k; hdr.h.c = v.c; }
    action am(meta_t v) { hdr.h.b = v.m8; hdr.h.d = v.m32; }
    action ae(error e) { if (e == error.NoError) { hdr.h.c = hdr.h.c + 1; } }
    action au(u_t v) { hdr.eth.src[7:0] = v.x.isValid() ? v.x.a : 8w0x55; }
    action ab(bool f) { hdr.eth.src[15:8] = f ? 8w1 : 8w2; }
    action unused_s(string s) { }
    action unused_k(h_t[2] s, tuple<bit<8>, bool> p, match_kind mk) { }
    action outer() { ah(hdr.h, 1); }
    table removed { key = { hdr.h.a: exact; } actions = { ah; ab; } }
    table kept { key = { hdr.h.b: exact; } actions = { outer; NoAction; } default_action = outer(); }
"""

CASES = [
    case("mutz21_action_params_of_non_control_plane_types", CAT, program("""
        meta.m8 = hdr.h.a + 3;
        meta.m32 = 0x01020304;
        ah(hdr.h, 7);
        am(meta);
        ae(sm.parser_error);
        uu.x = hdr.h2;
        au(uu);
        ab(hdr.h.a == 2);
        kept.apply();
""", ingress_decls=_ACTIONS,
        top="header_union u_t { h_t x; }\n"),
         frames=[(1, H(1, 2, 3, 4)), (1, H(2, 9, 0xfffe, 5)), (1, H2(5, 6, 7, 8, b=1, c=2))]),
]

_VB_PARSER = """\
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype ++ 0w0) {
            0x1234: parse_h;
            default: accept;
        }
    }
    state parse_h {
        pkt.extract(hdr.h);
        pkt.extract(hdr.z, 0);
        transition accept;
    }"""

CASES.append(case("mutz21_zero_width_literals_and_varbit", CAT, program("""
        bit<0> z = 0w1;
        hdr.h.a = hdr.h.a ++ 0w0;
        hdr.h.b = (bit<8>)0w1 + (bit<8>)z + (bit<8>)(int)0w0;
        if (0w1 == 0) { hdr.h.c = hdr.h.c + 1; }
        hdr.h.d = (bit<32>)hdr.z.w + (hdr.z.isValid() ? 32w0x100 : 32w0);
""", headers="header z_t { bit<8> w; varbit<0> v; }\n",
        fields="    z_t z;\n", parser=_VB_PARSER,
        deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.z);"),
        frames=[(1, H(1, 2, 3, 4)), (1, H(0xff, 0xfe, 0xfffe, 5))]))

# a plain action declared after another one @name'd like it (p4c_mutate seed 85, kind
# name_clash: `@name("d") action b(...)`, then `action d(...)`): p4c keeps both, the first
# declared one under the name in its P4Info, as for two @name'd twins; checkmate-p4c called the
# plain one "declared twice"
CASES.append(case("mutz21_plain_action_after_one_named_like_it", CAT, program("""
        b(hdr.h.a);
        d(7);
        t.apply();
""", ingress_decls="""\
    @name("d") action b(bit<8> v) { hdr.h.b = v + 1; }
    action d(bit<16> w) { hdr.h.c = hdr.h.c + w; }
    table t { key = { hdr.h.a: exact; } actions = { b; NoAction; } const entries = { 2: b(0x40); } }
"""), frames=[(1, H(1, 2, 3, 4)), (1, H(2, 9, 0xfffe, 5))]))

# a cast that changes both width and sign is refused on a run-time value, but p4c folds one of a
# compile-time constant (a literal, a constant expression, a global or local `const`) before it
# checks types: `(bit<16>)8s-5` is 0xfffb, `(int<4>)8w200` -8; likewise a division or modulo of two
# non-negative signed constants (`8s7 / 8s2` is 3; probes of the literal kind; both were refused)
CASES.append(case("mutz21_constant_casts_change_width_and_sign", CAT, program("""
        const int<8> L = -3;
        hdr.h.c = (bit<16>)(-8s5) + (bit<16>)L;
        hdr.h.a = (bit<8>)(int<8>)(int<4>)8w200;
        hdr.h.d = (bit<32>)(8s5 + 8s1) + (bit<32>)K;
        hdr.eth.src[15:0] = (bit<16>)8s0x80;
        hdr.h.b = (bit<8>)(8s7 / 8s2) + (bit<8>)(Q7 % 8s4);
""", top="const int<8> K = -1;\nconst int<8> Q7 = 7;\n"), frames=[(1, H(1, 2, 3, 4))]))

# a control's constructor parameter of type `int` (given an untyped or a sized constant: p4c
# casts it), and a constructor parameter as a table's `size` (probes of sub-controls: both were
# refused -- "type int is not supported", "unknown name k")
CASES.append(case("mutz21_control_int_constructor_params", CAT, program("""
        s1.apply(hdr.h);
        s2.apply(hdr.h);
""", top="""control S(inout h_t h)(int k, bit<32> n) {
    action set(bit<8> v) { h.b = v; }
    table t { key = { h.a: exact; } actions = { set; NoAction; } size = n; }
    apply { h.a = h.a + (bit<8>)k; h.c = h.c + k; t.apply(); }
}
""", ingress_decls="    S(300, 64) s1;\n    S(8w3, 100) s2;\n"), frames=[(1, H(1, 2, 3, 4)), (1, H(0xf0, 9, 0xfffe, 5))]))
