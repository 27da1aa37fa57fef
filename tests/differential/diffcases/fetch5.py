"""Front-end gaps found on p4c's public sample programs by fetch5 (issue #15): characters no
P4 token starts with inside a free-form annotation body (p4c's grammar takes its lexer's
UNEXPECTED_TOKEN there), and a `type`'s own annotations, which p4c lists on the type's
``type_info.new_types`` entry in the P4Info; and, from probes of our own after p4c's core-only
samples: ``==`` between two serializable enums over one type, arithmetic cast to a serializable
enum, a list expression among a ``select``'s keys (p4c flattens it), ``tuple<>``, generic structs and headers,
values of a header's struct field built from lists and initializers, ``(U){#}`` of a header
union, and ``(int)`` casts of constants."""
from .base import Entry, H, case, program

CAT = "front end (p4c-compatible)"

CASES = [
    # stray characters (' ` $ \\) in free-form annotation bodies, over several lines, on a
    # header type, an action and a table (the last two are listed in the P4Info as written); a
    # body that starts on the line after the annotation's name
    case("f5_annotation_stray_chars", CAT, program("        t.apply();\n", top="""\
@note(don't care: `x` costs $5 \\ 2)
header unused_t { bit<8> f; }
""", ingress_decls="""\
    @memo(it's
          a ` multi-line $ body)
    @split
        (its body on the next line)
    action seta(bit<8> v) { hdr.h.b = v; }
    @why(can't (nest 'it) here)
    table t { key = { hdr.h.a: exact; } actions = { seta; NoAction; } }"""),
        entries=[Entry("I.t", {"hdr.h.a": 1}, "I.seta", {"v": 0x5a})],
        frames=[(0, H(1)), (0, H(2))]),
    # a `type`'s annotations (plain, with arguments, structured) on its new_types entry, with
    # and without @p4runtime_translation, met by a key field, an action parameter and twice
    case("f5_newtype_annotations", CAT, program("        t.apply();\n", top="""\
@p4runtime_translation("example.org/Tag_t", 16)
@tag_note
@tag_why("a reason", 3)
type bit<8> Tag_t;
@plain_only(x)
@shaped[kind = "opaque", n = 2]
type bit<8> Plain_t;
""", ingress_decls="""\
    action set2(Tag_t t1, Plain_t p1) { hdr.h.b = (bit<8>)t1; hdr.h.c = (bit<16>)(bit<8>)p1; }
    table t { key = { hdr.h.a: exact; } actions = { set2; NoAction; } }"""),
        frames=[(0, H(1))]),
    # two serializable enums over bit<8> compared (p4c compares the values); enum arithmetic
    # cast back to an enum; an enum from a header field
    case("f5_serenum_cross_compare_and_arith", CAT, program("""\
        E1 x = (E1)hdr.h.a;
        E2 y = (E2)hdr.h.b;
        if (x == y) { hdr.h.c = 16w1; } else if (x != E2.f2) { hdr.h.c = 16w2; } else { hdr.h.c = 16w3; }
        E1 z = (E1)(x + 1);
        E1 w = (E1)(~(bit<8>)y);
        hdr.h.d = (bit<8>)z ++ (bit<8>)w ++ (bit<8>)(E1)(E1.e2 - 8w2) ++ 8w0;
""", top="enum bit<8> E1 { e1 = 1, e2 = 2 }\nenum bit<8> E2 { f1 = 1, f2 = 0x80 }\n"),
        frames=[(0, H(1, 1)), (0, H(0x80, 0x80)), (0, H(0x7f, 0x80)), (0, H(0xff, 0x2)), (0, H(0, 0))]),
    # a list expression among select's keys: its members are the keys; a case gives a list
    # of values or default for all of them
    case("f5_select_nested_list_key", CAT, program("        hdr.h.c = hdr.h.c + 1;\n", parser="""\
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        transition select(hdr.h.a, {hdr.h.b, hdr.h.c[7:0]}, hdr.eth.etype) {
            (1, {2, 3}, 0x1234): one;
            (2, default, _): two;
            (3, {4, 0x15}, default): one;
            (_, {0xff, 0xff}, 0x1234): two;
            default: accept;
        }
    }
    state one { hdr.h.d = 1; transition accept; }
    state two { hdr.h.d = 2; transition accept; }"""),
        frames=[(0, H(1, 2, 3)), (0, H(1, 2, 4)), (0, H(2, 9, 9)), (0, H(3, 4, 0x15)), (0, H(3, 4, 0x16)),
                (0, H(7, 0xff, 0xff)), (0, H(9, 9, 9))]),
    # the empty tuple type: a typedef, a local, a struct field, a function parameter, compared
    case("f5_empty_tuple", CAT, program("""\
        Empty e = {};
        Empty f = e;
        WithEmpty w = { {}, hdr.h.a };
        if (e == f && w.e == {}) { hdr.h.b = bump({}, w.v); }
        if (e != {}) { hdr.h.b = 0; }
""", top="""typedef tuple<> Empty;
struct WithEmpty { tuple<> e; bit<8> v; }
bit<8> bump(in Empty t, in bit<8> v) { return v + 1; }
"""), frames=[(0, H(1)), (0, H(0xff))]),
    # generic structs and headers (p4c specializes them per type argument list: Pair_0, Pair_1,
    # skipping a name the program declares itself): a header field, a stack of a generic header
    # parsed in a loop, nested generics, a typedef of one, a const, an action local, a digest
    case("f5_generic_structs_headers", CAT, program("""\
        Pair_0 mine = { 7 };
        Box<Pair<bit<8>, bit<16>>> bx = { inner = { hdr.h.a, hdr.h.c } };
        hdr.h.b = bx.inner.a + mine.taken + KB.inner.a;
        if (hdr.g.isValid()) { hdr.g.tag = hdr.g.tag + 1; t.apply(); }
        if (hdr.gs[1].isValid()) { hdr.h.d = (bit<32>)hdr.gs[1].data; }
        digest<Pair<bit<8>, bit<16>>>(1, bx.inner);
        digest<Pair<bit<16>, bit<8>>>(2, { hdr.h.c, hdr.h.b });
""", headers="header GH<T> { T data; bit<8> tag; }\n", top="""struct Pair<A, B> { A a; B b; }
struct Pair_0 { bit<8> taken; }
struct Box<T> { T inner; }
typedef Pair<bit<16>, bit<8>> Pair16;
const Box<Pair<bit<8>, bit<16>>> KB = { inner = { 2, 3 } };
""", fields="    GH<bit<16>> g;\n    GH<bit<8>>[3] gs;\n", parser="""\
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        transition select(hdr.h.a) { 0x10: g; default: accept; }
    }
    state g { pkt.extract(hdr.g); transition select(hdr.g.tag) { 1: more; default: accept; } }
    state more { pkt.extract(hdr.gs.next); transition select(hdr.gs.last.tag) { 1: more; default: accept; } }""",
        deparser="        pkt.emit(hdr);\n", ingress_decls="""\
    action setp(bit<16> v) { Pair16 p = { v, 3 }; hdr.g.data = p.a; hdr.g.tag = p.b; }
    table t { key = { hdr.g.data: exact; } actions = { setp; NoAction; } }"""),
        entries=[Entry("I.t", {"hdr.g.data": 0x0102}, "I.setp", {"v": 0xbeef})],
        frames=[(0, H(0x10, 2, 0x0102, 0x01050104) + bytes([5, 1, 6, 1, 7, 0, 8])),
                (0, H(0x10, 2, 0x0102, 0x01020100) + bytes([0xaa, 9])), (0, H(3, 4, 5, 6))]),
    # a header with a struct field (nested struct, bool and enum leaves) built from a list, a
    # struct initializer holding a struct variable, and a cast; then emitted
    case("f5_header_struct_field_values", CAT, program("""\
        Inner i = { hdr.h.a, true, Col.blue, 5 };
        Mid m = { i, 7 };
        if (hdr.h.b == 1) {
            hdr.w = { { { 1, false, Col.red, 2 }, hdr.h.b[7:0] }, 0x55 };
        } else if (hdr.h.b == 2) {
            hdr.w = { m = m, tail = hdr.h.a };
        } else {
            hdr.w = (wrap_t){ m = { { 3, hdr.h.c == 0, Col.blue, 7 }, 4 }, tail = 9 };
        }
        hdr.h.c = (bit<16>)hdr.w.m.i.x + (bit<16>)hdr.w.tail;
""", headers="""enum bit<4> Col { red = 1, blue = 2 }
struct Inner { bit<8> x; bool flag; Col c; bit<3> pad; }
struct Mid { Inner i; bit<8> y; }
header wrap_t { Mid m; bit<8> tail; }
""", fields="    wrap_t w;\n", deparser="        pkt.emit(hdr);\n"),
        frames=[(0, H(1, 1, 0)), (0, H(0x22, 2, 5)), (0, H(0x33, 3, 0)), (0, H(0x44, 3, 1))]),
    # (U){#}: a header union with no valid member, then one member made valid (a local union's
    # own isValid() is left out: p4c's JSON names it in a "header" operand of valid_union, which
    # simple_switch cannot load; checkmate-switch's loader takes it)
    case("f5_union_invalid_value", CAT, program("""\
        U2 u;
        u = (U2){#};
        if (!u.one.isValid() && !u.none.isValid()) { hdr.h.b = 1; }
        if (hdr.h.a == 1) { h_t x = (h_t){#}; x.setValid(); x.a = 4; u.one = x; }
        if (u.one.isValid() || u.none.isValid()) { hdr.h.c = hdr.h.c + 1; }
        if (u.one.isValid()) { hdr.h.d = (bit<32>)u.one.a; }
""", top="header e_t { }\nheader_union U2 { e_t none; h_t one; }\n"),
        frames=[(0, H(1)), (0, H(2))], json_path=True),
    # casts of constants to int (the arbitrary-precision integer type) and back
    case("f5_const_int_casts", CAT, program("        hdr.h.c = (bit<8>)C7 ++ (bit<8>)F7;\n        hdr.h.d = (bit<32>)W16;\n",
         top="""const bit<4> A4 = 0b0101;
const int IB = (int)A4;
const bit<7> C7 = (bit<7>)IB;
const int<4> D4 = -1;
const int IE = (int)D4;
const bit<7> F7 = (bit<7>)IE;
const bit<16> W16 = (bit<16>)((int)(-8s2) + (int)8w200 * 2);
"""), frames=[(0, H(1))]),
    # a header with bool fields given values in a list and a struct initializer, then emitted
    case("f5_header_bool_fields_values", CAT, program("""\
        hdr.f = { hdr.h.a == 1, 5, hdr.h.c != 0 };
        if (hdr.h.a == 2) { hdr.f = { lo = false, mid = 7, hi = true }; }
        if (hdr.f.lo) { hdr.h.b = 0x11; }
""", headers="header flags_t { bool lo; bit<6> mid; bool hi; }\n", fields="    flags_t f;\n",
         deparser="        pkt.emit(hdr);\n"),
        frames=[(0, H(1, 0, 1)), (0, H(2, 0, 0)), (0, H(3, 0, 0))]),
]
