"""Found by helper mutz23 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5.

``hash``'s result, base and max and ``execute_meter``'s result take any type for p4c (``out O``,
``in T``, ``in M``): an ``error`` or plain enum is one of its JSON's 32-bit scalars, and BMv2
computes the number into it (its code: ``r == EE.B`` holds for 1); a varbit field keeps the bits
its current length holds (what an emit shows).  A header, struct, union, stack or tuple reaches
BMv2's primitive as a "header" parameter and simple_switch dies executing it (an assertion in
bm_sim/actions.h): P4Info compared only, checkmate-switch drops the packet there.  checkmate-p4c
refused them all (mutz22's open items)."""
from .base import H, case, program

CAT = "front end (p4c-compatible)"

_T = "header r16_t { bit<16> v; }\nstruct s16_t { bit<16> v; }\nheader_union u_t { r16_t r; }\nenum EE { A, B, C }\n"
_F = [(1, H(5, 1, 0x1234, 7)), (1, H(9, 0x20, 0x55, 0x1000)), (1, H(0x31, 0x20, 3, 0)), (1, H(0x77, 3, 0xffff, 9))]

CASES = [
    case("mutz23_hash_meter_error_enum_operands", CAT, program("""
        error r;
        hash(r, HashAlgorithm.crc16, 16w0, { hdr.h.a }, 16w4);
        hdr.h.a = r == error.NoError ? 8w1 : (r == error.PacketTooShort ? 8w2 : 8w3);
        EE e;
        hash(e, HashAlgorithm.crc16, 16w0, { hdr.h.b }, 16w3);
        hdr.h.b = e == EE.A ? 8w1 : (e == EE.B ? 8w2 : 8w3);
        bit<16> x;
        hash(x, HashAlgorithm.crc16, EE.B, { hdr.h.c }, 16w1024);
        hdr.h.c = x;
        bit<16> y;
        hash(y, HashAlgorithm.crc16, error.PacketTooShort, { hdr.h.d }, error.NoMatch);
        hdr.h.d = (bit<32>)y;
        EE col;
        mt.execute_meter(0, col);
        hdr.h2.setValid();
        hdr.h2.a = col == EE.A ? 8w7 : 8w8;
""", ingress_decls="    meter(4, MeterType.packets) mt;\n", top=_T), frames=_F),
]

_DIES = "simple_switch 1.15.5 dies executing it (bm_sim/actions.h: 'Default switch case should not be reachable')"
for _n, _b in [("header_result", "r16_t r; hash(r, HashAlgorithm.crc16, 16w0, { hdr.h.a }, 16w1024); hdr.h.c = r.v;"),
               ("struct_result", "s16_t r; hash(r, HashAlgorithm.crc16, 16w0, { hdr.h.a }, 16w1024); hdr.h.c = r.v;"),
               ("stack_result", "r16_t[2] r; hash(r, HashAlgorithm.crc16, 16w0, { hdr.h.a }, 16w1024); hdr.h.c = r[0].v;"),
               ("union_result", "u_t r; hash(r, HashAlgorithm.crc16, 16w0, { hdr.h.a }, 16w1024); hdr.h.c = r.r.v;"),
               ("tuple_result", "tuple<bit<8>, bit<8>> r; hash(r, HashAlgorithm.crc16, 16w0, { hdr.h.a }, 16w1024); "
                                "hdr.h.a = r[0];"),
               ("struct_base", "s16_t bs = { 7 }; bit<16> r; hash(r, HashAlgorithm.crc16, bs, { hdr.h.a }, 16w1024); hdr.h.c = r;"),
               ("header_max", "r16_t mx = { 100 }; bit<16> r; hash(r, HashAlgorithm.crc16, 16w0, { hdr.h.a }, mx); hdr.h.c = r;"),
               ("meter_struct_result", "s16_t c; mt.execute_meter(0, c); hdr.h.c = c.v;"),
               ("meter_header_result", "r16_t c; mt.execute_meter(0, c); hdr.h.c = c.v;")]:
    CASES.append(case(f"mutz23_hash_{_n}", CAT, program("        " + _b + "\n", top=_T,
                                                       ingress_decls="    meter(4, MeterType.packets) mt;\n"),
                      frames=_F, p4info_only=_DIES))

# `@name(".NoAction")` on an action with NoAction's empty body: p4c keeps it apart from core.p4's
# NoAction (checkmate-p4c merged the two): a table listing it without a default_action gets both
# (p4c's duplicate JSON label: test_mutants2), and the P4Info action NoAction carries the
# annotations of the first declared one p4c keeps -- core.p4's @noWarn("unused") once a table uses
# core's NoAction, the @name'd action's own otherwise (`@foo` here; it was core's)
CASES.append(case("mutz23_named_noaction_twin_annotations", CAT, program("""
        t.apply();
""", ingress_decls="""\
    @foo @name(".NoAction") action my_na() { }
    table t { key = { hdr.h.a: exact; } actions = { my_na; } default_action = my_na(); }
"""), frames=[(1, H(5, 1, 0, 0))]))

# a digest of a plain enum (named after the enum, no warning) or of a header stack (digest_0):
# p4c accepts both (checkmate-p4c refused them); a digest of a header or header union is p4c's
# back-end error at the type's declaration ("header h_t: expected a struct type"; a union was
# accepted, a header named at the call)
CASES.append(case("mutz23_digest_enum_and_stack", CAT, program("""
        digest(1, EE.B);
        h_t[2] s;
        s[0] = hdr.h;
        digest(1, s);
""", top=_T), frames=[(1, H(5, 1, 0, 0))],
    p4info_only="simple_switch_grpc refuses an enum or header stack digest's P4Info (Error when importing p4info)"))

# name -> (program, words the message must contain (any of)) for tests/differential/test_invalid.py
INVALID = {
    "mutz23_digest_of_header_union": (program("        u_t u;\n        u.r.setValid();\n        digest(1, u);\n", top=_T),
                                      ("expected a struct type",)),
    "mutz23_digest_of_header": (program("        digest(1, hdr.h);\n"), ("expected a struct type",)),
}

# const entries of a table keyed by a `type` value: p4c takes `(pt_t)9w1` (also alone, without the
# tuple's parentheses -- checkmate-p4c's parser took `(pt_t)` for a tuple keyset and failed on the
# type name) and refuses `9w1` or an untyped `1` ("Cannot cast implicitly"); checkmate-p4c wanted a
# bit<9> in a tuple entry (hand probes of p4c's newtype samples)
CASES.append(case("mutz23_newtype_key_const_entries", CAT, program("""
        pt_t p = (pt_t)(bit<9>)hdr.h.a;
        t1.apply();
        t2.apply();
""", ingress_decls="""\
    pt_t p2 = (pt_t)9w7;
    action set(bit<8> v) { hdr.h.b = v; }
    action setc(bit<16> v) { hdr.h.c = v; }
    table t1 { key = { meta.pt: exact; } actions = { set; NoAction; } const entries = { (pt_t)5: set(0x55); (pt_t)9w9: set(0x99); } }
    table t2 { key = { meta.pt: exact; hdr.h.a: exact; } actions = { setc; NoAction; }
               const entries = { ((pt_t)9w5, 5): setc(0x505); ((pt_t)1, 1): setc(0x101); } }
""", headers="type bit<9> pt_t;\n", meta="    pt_t pt;\n").replace("pt_t p = (pt_t)(bit<9>)hdr.h.a;", "meta.pt = (pt_t)(bit<9>)hdr.h.a;"),
    frames=[(1, H(5, 1, 0, 0)), (1, H(9, 0x20, 0, 0)), (1, H(1, 2, 3, 4)), (1, H(7, 2, 3, 4))]))

# a generic control's constructor parameter of its type parameter (`control G<T>(inout T x)(T inc)`,
# instantiated `G<bit<8>>(8w3) g8;`): checkmate-p4c resolved the constructor's T before binding it
# ("unknown type T"), and one whose type argument the constructor's gives (`G(8w9) gi;`: "takes 1
# type argument(s), got 0"; hand probes)
CASES.append(case("mutz23_generic_control_constructor_parameter", CAT, program("""
        g8.apply(hdr.h.a);
        g16.apply(hdr.h.c);
        gi.apply(hdr.h.b);
""", ingress_decls="""\
    G<bit<8>>(8w3) g8;
    G<bit<16>>(16w7) g16;
    G(8w9) gi;
""", top="control G<T>(inout T x)(T inc) { apply { x = inc; } }\n"),
    frames=[(1, H(5, 1, 0, 0)), (1, H(9, 0x20, 0, 0))]))

# `@pragma NAME tokens...` (to the end of the line; P4-14 translations and p4c's pragma samples):
# p4c lists it as the annotation @NAME(tokens) -- checkmate-p4c read `@pragma` as an annotation
# named pragma and failed on the name after it
CASES.append(case("mutz23_pragma_annotations", CAT, program("""
        t.apply();
""", ingress_decls="""\
    @pragma stage 1
    @pragma my_opt "s" x+1
    action a(
        @pragma pname 3
        bit<8> v) { hdr.h.b = v; }
    @pragma tbl_prop 1, 2
    table t { key = { hdr.h.a: exact; } actions = { a; NoAction; } }
"""), frames=[(1, H(5, 1, 0, 0))]))

# cpp's predefined macros: p4c preprocesses with `cc -E`, which defines __LINE__, __FILE__,
# __COUNTER__, __STDC__ (checkmate-p4c: "unknown name __LINE__")
CASES.append(case("mutz23_cpp_predefined_macros", CAT, program("""
        hdr.h.b = __LINE__;
        hdr.h.c = __COUNTER__ + 16w256 * __COUNTER__;
#if defined(__FILE__) && __STDC__ == 1
        hdr.h.d = __LINE__;
#endif
        log_msg(__FILE__);
"""), frames=[(1, H(5, 1, 0, 0))]))

# cpp forms p4c's `cc -E` takes: variadic macros (`...`/__VA_ARGS__, `rest...`), `#x`, `a ## b`,
# character constants in #if (checkmate-p4c: "macro VA takes 2 argument(s), got 3", "cannot
# evaluate #if expression")
CASES.append(case("mutz23_cpp_variadic_paste_stringify", CAT, program("""
        hdr.h.CAT(, b) = hdr.h.a + SUM(1, 2, 3);
        log_msg(STRX(hello world));
        VA("a={} b={}", hdr.h.a, hdr.h.b);
        NAMED(hdr.h.c, 7, 9);
#if (1 << 3) == 8 && 'a' == 97 && '\\n' == 10
        hdr.h.d = 32w3;
#endif
""", top="""\
#define CAT(a, b) a##b
#define STRX(x) #x
#define VA(fmt, ...) log_msg(fmt, { __VA_ARGS__ })
#define SUM(x, ...) (x + ADD2(__VA_ARGS__))
#define ADD2(p, q) (p + q)
#define NAMED(dst, rest...) dst = ADD2(rest)
"""), frames=[(1, H(5, 1, 0, 0)), (1, H(0x30, 7, 0, 0))]))

# an action profile or selector shared by several tables: p4c's P4Info lists its table_ids in the
# order of the tables' names (checkmate-p4c: by id), whatever the order of declaration or apply
CASES.append(case("mutz23_shared_profile_table_ids_by_name", CAT, program("""
        mm.apply(); aa.apply(); zz.apply();
        s2.apply(); s1.apply();
""", ingress_decls="""\
    action_profile(4) ap;
    action_selector(HashAlgorithm.crc16, 16, 8) sel;
    action a(bit<8> v) { hdr.h.a = v; }
    table zz { key = { hdr.h.a: exact; } actions = { a; NoAction; } implementation = ap; }
    @name("z9") table aa { key = { hdr.h.c: exact; } actions = { a; NoAction; } implementation = ap; }
    table mm { key = { hdr.h.b: exact; } actions = { a; NoAction; } implementation = ap; }
    table s2 { key = { hdr.h.a: exact; hdr.h.b: selector; } actions = { a; NoAction; } implementation = sel; }
    table s1 { key = { hdr.h.c: exact; hdr.h.b: selector; } actions = { a; NoAction; } implementation = sel; }
"""), frames=[(1, H(5, 1, 0, 0))],
    p4info_only="action profile members need the profile API, which the differential harness does not drive"))

# `digest(1, {})`: p4c's P4Info gives digest_0 an empty tuple type_spec (checkmate-p4c none)
CASES.append(case("mutz23_digest_of_empty_list", CAT, program("""
        if (hdr.h.a == 5) { digest(1, {}); }
"""), frames=[(1, H(5, 1, 0, 0)), (1, H(6, 1, 0, 0))],
    p4info_only="simple_switch_grpc refuses the DigestEntry of an empty digest (INTERNAL: Error when configuring digest "
                "with target)"))

# (a hash into a varbit *local* -- p4c's header of a never-extracted varbit field -- made simple_switch
# die now and then when it took the next pipeline: heap damage, it seems; not compared)
_VBP = """\
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        pkt.extract(hdr.vb, (bit<32>)hdr.h.b << 3);
        transition accept;
    }"""
_VBD = "        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.vb);"
CASES.append(case("mutz23_hash_into_varbit_field", CAT, program("""
        hash(hdr.vb.v, HashAlgorithm.crc16, 16w0, { hdr.h.a }, 16w1024);
""", headers="header vb_t { varbit<32> v; }\n", fields="    vb_t vb;\n", parser=_VBP, deparser=_VBD),
    frames=[(1, H(5, 0, 0, 0)), (1, H(9, 1, 0, 0)), (1, H(9, 2, 0, 0)), (1, H(7, 4, 0, 0))]))
