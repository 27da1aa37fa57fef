"""Language features: compound assignment, for loops, bool/bit<1> conversions, enums,
typedefs, tuples, functions, constants, switch statements, top-level instantiation,
header unions and their stacks, varbit."""
from .base import Entry, H, H2, case, program

CAT_CA = "compound assignment"
# (name, with the feature, the same program without it for p4c 1.2.4.8, which lacks both
# compound assignment and for loops)
COMPOUND = [
    ("ca_add", "hdr.h.a += hdr.h.b; hdr.h.c += 16w0x8001;", "hdr.h.a = hdr.h.a + hdr.h.b; hdr.h.c = hdr.h.c + 16w0x8001;"),
    ("ca_sub", "hdr.h.a -= hdr.h.b; hdr.h.d -= 1;", "hdr.h.a = hdr.h.a - hdr.h.b; hdr.h.d = hdr.h.d - 1;"),
    ("ca_mul", "hdr.h.a *= 3; hdr.h.c *= hdr.h.c;", "hdr.h.a = hdr.h.a * 3; hdr.h.c = hdr.h.c * hdr.h.c;"),
    ("ca_bitops", "hdr.h.a &= 0x3c; hdr.h.b |= 0x81; hdr.h.c ^= 0xffff;",
     "hdr.h.a = hdr.h.a & 0x3c; hdr.h.b = hdr.h.b | 0x81; hdr.h.c = hdr.h.c ^ 0xffff;"),
    ("ca_shifts", "hdr.h.a <<= 2; hdr.h.b >>= 3; hdr.h.c <<= hdr.h.a[2:0];",
     "hdr.h.a = hdr.h.a << 2; hdr.h.b = hdr.h.b >> 3; hdr.h.c = hdr.h.c << hdr.h.a[2:0];"),
    ("ca_sat", "hdr.h.a |+|= hdr.h.b; hdr.h.b |-|= 0x40;", "hdr.h.a = hdr.h.a |+| hdr.h.b; hdr.h.b = hdr.h.b |-| 0x40;"),
    ("ca_slice", "hdr.h.d[15:0] += hdr.h.c; hdr.h.d[31:24] ^= hdr.h.a;",
     "hdr.h.d[15:0] = hdr.h.d[15:0] + hdr.h.c; hdr.h.d[31:24] = hdr.h.d[31:24] ^ hdr.h.a;"),
    ("ca_meta", "meta.m8 = hdr.h.a; meta.m8 += hdr.h.b; meta.m8 *= 2; hdr.h.a = meta.m8;",
     "meta.m8 = hdr.h.a; meta.m8 = meta.m8 + hdr.h.b; meta.m8 = meta.m8 * 2; hdr.h.a = meta.m8;"),
    ("ca_signed", "int<8> x = (int<8>)hdr.h.a; x >>= 1; x -= 3; hdr.h.a = (bit<8>)x;",
     "int<8> x = (int<8>)hdr.h.a; x = x >> 1; x = x - 3; hdr.h.a = (bit<8>)x;"),
    ("ca_div_mod", "hdr.h.a /= 2; hdr.h.b %= 4;", "hdr.h.a = hdr.h.a / 2; hdr.h.b = hdr.h.b % 4;"),
]

CAT_FOR = "for loops"
FOR = [
    ("for_sum", "bit<8> s = 0; for (bit<8> i = 0; i < 4; i = i + 1) { s = s + hdr.h.a; } hdr.h.b = s;",
     "hdr.h.b = hdr.h.a + hdr.h.a + hdr.h.a + hdr.h.a;"),
    ("for_break", "bit<8> s = 0; for (bit<8> i = 0; i < 10; i = i + 1) { if (i == 3) { break; } s = s + 1; } hdr.h.a = s;",
     "hdr.h.a = 3;"),
    ("for_continue", "bit<8> s = 0; for (bit<8> i = 0; i < 6; i = i + 1) { if (i[0:0] == 1) { continue; } s = s + i; } hdr.h.a = s;",
     "hdr.h.a = 6;"),
    ("for_compound", "bit<16> s = 0; for (bit<8> i = 0; i < 4; i += 1) { s += hdr.h.c >> i[3:0]; } hdr.h.c = s;",
     "hdr.h.c = hdr.h.c + (hdr.h.c >> 1) + (hdr.h.c >> 2) + (hdr.h.c >> 3);"),
    ("for_in_list", "bit<8> s = 0; for (bit<8> x in {1, 2, 4, 8}) { s = s | x; } hdr.h.a = s + hdr.h.a;",
     "hdr.h.a = 15 + hdr.h.a;"),
    ("for_bits", "bit<8> n = 0; bit<8> v = hdr.h.a; for (bit<8> i = 0; i < 8; i = i + 1) { n = n + (v & 1); v = v >> 1; } hdr.h.b = n;",
     "bit<8> v = hdr.h.a; hdr.h.b = (v & 1) + (v >> 1 & 1) + (v >> 2 & 1) + (v >> 3 & 1) + (v >> 4 & 1) + (v >> 5 & 1) + (v >> 6 & 1) + (v >> 7 & 1);"),
]

CAT_BOOL = "bool / bit<1>"
BOOLS = [
    ("bool_from_bit1", "bool b = (bool)hdr.h.a[7:7]; if (b) { hdr.h.b = 1; } else { hdr.h.b = 2; }"),
    ("bit1_from_bool", "hdr.h.a[0:0] = (bit<1>)(hdr.h.c == 3); hdr.h.b[1:1] = (bit<1>)true;"),
    ("bool_local_cast_chain", "bit<1> x = (bit<1>)(hdr.h.a > hdr.h.b); bool y = (bool)x; hdr.h.c = y ? 16w7 : 16w9;"),
    ("bool_meta", "bool eq = hdr.h.a == hdr.h.b; hdr.h.a = (bit<8>)(bit<1>)eq;"),
]

CAT_MISC = "declarations and statements"
MISC_TOP = """
enum bit<8> Color { Red = 1, Green = 2, Blue = 0x10 }
typedef bit<8> byte_t;
type bit<16> Port16;
const bit<8> K = 42;
const bit<16> KK = K ++ K;
"""
MISC = [
    ("enum_serializable", "Color c = (Color)hdr.h.a; if (c == Color.Green) { hdr.h.b = 0x22; } hdr.h.c = (bit<16>)(bit<8>)Color.Blue;"),
    ("typedef_const", "byte_t x = K; hdr.h.a = x + hdr.h.a; hdr.h.c = KK;"),
    ("newtype", "Port16 p = (Port16)hdr.h.c; hdr.h.c = (bit<16>)p + 1;"),
    ("switch_stmt", "switch (hdr.h.a) { 1: { hdr.h.b = 10; } 2: 3: { hdr.h.b = 20; } 0xff: { hdr.h.b = 30; } default: { hdr.h.b = 40; } }"),
    ("switch_fallthrough_none", "switch (hdr.h.b) { 0x80: { hdr.h.a = 1; } 0x81: {} default: { hdr.h.a = 3; } }"),
    ("if_else_chain", "if (hdr.h.a == 1) { hdr.h.b = 1; } else if (hdr.h.a > 0x70) { hdr.h.b = 2; } else { hdr.h.b = 3; }"),
    ("tuple_local", "tuple<bit<8>, bit<16>> t = {hdr.h.a, hdr.h.c}; hdr.h.c = t[1]; hdr.h.a = t[0] + 1;"),
    ("nested_block_scope", "bit<8> x = 1; { bit<8> y = x + hdr.h.a; hdr.h.a = y; } hdr.h.b = x;"),
    ("exit_ingress", "hdr.h.a = 9; if (hdr.h.b == 0x80) { exit; } hdr.h.a = 10;"),
    ("return_ingress", "hdr.h.a = 9; if (hdr.h.b == 2) { return; } hdr.h.a = 10;"),
    ("valid_after_invalidate", "if (hdr.h.isValid()) { hdr.h.setInvalid(); hdr.h.setValid(); hdr.h.a = 5; }"),
    ("struct_eq", "meta.m8 = 1; meta_t m2 = meta; hdr.h.a = (m2 == meta) ? 8w1 : 8w0;"),
    ("header_eq", "hdr.h2 = hdr.h; hdr.h.b = (hdr.h2 == hdr.h) ? 8w1 : 8w0; hdr.h2.setInvalid();"),
]

FUNCS_TOP = """
bit<8> max8(in bit<8> x, in bit<8> y) { if (x > y) { return x; } return y; }
void swap(inout bit<8> x, inout bit<8> y) { bit<8> t = x; x = y; y = t; }
bit<8> twice(inout bit<8> x) { x = x + 1; return x * 2; }
"""
FUNCS = [
    ("fn_return", "hdr.h.a = max8(hdr.h.a, hdr.h.b);"),
    ("fn_inout", "swap(hdr.h.a, hdr.h.b);"),
    ("fn_inout_result", "hdr.h.b = twice(hdr.h.a);"),
    ("fn_same_arg_twice", "swap(hdr.h.a, hdr.h.a); hdr.h.b = twice(hdr.h.b);"),
]


def _all():
    out = [case(n, CAT_CA, program(f"        {s}\n"), ref_source=program(f"        {r}\n")) for n, s, r in COMPOUND]
    out += [case(n, CAT_FOR, program(f"        {s}\n"), ref_source=program(f"        {r}\n")) for n, s, r in FOR]
    out += [case(n, CAT_BOOL, program(f"        {s}\n")) for n, s in BOOLS]
    out += [case(n, CAT_MISC, program(f"        {s}\n", top=MISC_TOP)) for n, s in MISC]
    out += [case(n, CAT_MISC, program(f"        {s}\n", top=FUNCS_TOP)) for n, s in FUNCS]
    # assert/assume that hold (one that fails makes simple_switch exit, so none does here): the
    # device-config check used to refuse the statement's location text, so no program with
    # them loaded on checkmate-switch, from either front end
    # a header assigned from an invalid one (a local never made valid, a function's `out`
    # header): BMv2's assign_header only invalidates the destination, its fields stay
    out.append(case("assign_from_invalid_header_keeps_fields", CAT_MISC, program(
        "        h_t inv;\n"
        "        if (hdr.h.b == 2) { hdr.h = inv; } else if (hdr.h.b == 0x80) { clear(hdr.h); }\n"
        "        hdr.eth.src[7:0] = hdr.h.a; hdr.eth.src[15:8] = hdr.h.c[7:0];\n"
        "        hdr.eth.src[16:16] = (bit<1>)hdr.h.isValid();\n",
        top="void clear(out h_t x) { }\n"), json_path=True))
    out.append(case("assert_assume_hold", CAT_MISC, program(
        "        assert(hdr.eth.isValid()); assume(sm.ingress_port != 511); hdr.eth.src[7:0] = 0xa5;\n"),
        json_path=True))
    return out


CASES = _all()

# ------------------------------------------------------------------ top-level instantiation
CAT_TOP = "top-level instantiation"
SUB = """
control Add(inout h_t x)(bit<8> k) { apply { x.a = x.a + k; } }
control Twice(inout h_t x) { Add(8w1) one; apply { one.apply(x); one.apply(x); } }
"""
CASES += [
    case("top_ctor_arg_control", CAT_TOP, program("        add3.apply(hdr.h);\n", top=SUB, ingress_decls="    Add(8w3) add3;\n")),
    case("top_nested_instances", CAT_TOP, program("        tw.apply(hdr.h); a5.apply(hdr.h);\n", top=SUB,
                                                  ingress_decls="    Twice() tw;\n    Add(5) a5;\n")),
    case("top_control_instantiated_twice", CAT_TOP, program("        x.apply(hdr.h); y.apply(hdr.h2);\n", top=SUB,
                                                            ingress_decls="    Add(8w1) x;\n    Add(8w2) y;\n"),
         frames=[(1, H2(1, 2, 3, 4)), (2, H2(0xff))]),
    case("top_extern_in_subcontrol", CAT_TOP, program("        c.apply(hdr.h);\n", top="""
control Count(inout h_t x) { counter(4, CounterType.packets) cnt; apply { cnt.count((bit<32>)x.b[1:0]); } }
""", ingress_decls="    Count() c;\n")),
    case("top_subparser", CAT_TOP, program("", parser="""
    SubP() sub;
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { sub.apply(pkt, hdr.h); transition accept; }""", top="""
parser SubP(packet_in p, out h_t x) { state start { p.extract(x); transition accept; } }
""")),
]

# top-level instances passed as constructor arguments: to the pipeline blocks (through
# V1Switch), to sub-controls, and instances of the blocks themselves declared at top level
ING = "control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm)"
PRS = "parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm)"
MAIN = "V1Switch(P(), VC(), I(), E(), CC(), D()) main;"
ADD_T = SUB + "control AddT(inout h_t x);\n"
WRAP = "control Wrap(inout h_t x)(AddT inner) { apply { inner.apply(x); x.b = x.b + 1; } }\n"


def ctor(src: str, ing_params: str = "", main: str = MAIN, prs_params: str = "") -> str:
    if ing_params:
        src = src.replace(ING + " {", f"{ING}({ing_params}) {{")
    if prs_params:
        src = src.replace(PRS + " {", f"{PRS}({prs_params}) {{")
    assert MAIN in src
    return src.replace(MAIN, main)


CASES += [
    case("top_inline_ctor_arg", CAT_TOP, ctor(program("        a.apply(hdr.h); a.apply(hdr.h);\n", top=ADD_T),
                                              "AddT a", "V1Switch(P(), VC(), I(Add(8w4)), E(), CC(), D()) main;")),
    case("top_ctor_arg_to_subcontrol", CAT_TOP, program("        w.apply(hdr.h);\n", top=ADD_T + WRAP,
                                                        ingress_decls="    Wrap(Add(8w2)) w;\n")),
    case("top_ctor_arg_with_table", CAT_TOP, program("        w.apply(hdr.h);\n", top="""
control TblT(inout h_t x);
control Tbl(inout h_t x) {
    action set_b(bit<8> v) { x.b = v; }
    table t { key = { x.a: exact; } actions = { set_b; NoAction; } default_action = NoAction(); }
    apply { t.apply(); }
}
control Wrap2(inout h_t x)(TblT inner) { apply { inner.apply(x); } }
""", ingress_decls="    Wrap2(Tbl()) w;\n"), entries=[Entry("I.w.inner.t", {"x.a": 1}, "I.w.inner.set_b", {"v": 0x5a})]),
    case("top_ctor_arg_passed_on", CAT_TOP, ctor(program("        w.apply(hdr.h); a.apply(hdr.h);\n", top=ADD_T + WRAP,
                                                         ingress_decls="    Wrap(a) w;\n"),
                                                 "AddT a", "V1Switch(P(), VC(), I(Add(8w9)), E(), CC(), D()) main;")),
    # (an extern passed to a V1Switch block's constructor is not here: p4c 1.2.4 then names
    # the parameter, not the instance, in its JSON and BMv2 refuses the program)
    case("top_counter_to_subcontrol", CAT_TOP, program("        k.apply(hdr.h);\n", top="""
counter(4, CounterType.packets) top_cnt;
control Cnt(inout h_t x)(counter c) { apply { c.count((bit<32>)x.b[1:0]); } }
""", ingress_decls="    Cnt(top_cnt) k;\n")),
    case("top_register_shared", CAT_TOP, program(
        "        bit<8> v; top_reg.read(v, 0); hdr.h.c = (bit<16>)v; top_reg.write(0, hdr.h.a);\n",
        egress="        bit<8> v; top_reg.read(v, 1); hdr.h.b = v; top_reg.write(1, hdr.h.a + 1);\n",
        top="register<bit<8>>(2) top_reg;\n"), one_by_one=True),
    case("top_counter_shared", CAT_TOP, program("        top_cnt.count((bit<32>)hdr.h.b[1:0]);\n",
                                               egress="        top_cnt.count(3);\n",
                                               top="counter(4, CounterType.packets_and_bytes) top_cnt;\n")),
    case("top_meter_direct_use", CAT_TOP, program(
        "        bit<2> col; top_m.execute_meter((bit<32>)hdr.h.b[1:0], col); hdr.h.a = (bit<8>)col;\n",
        top="meter(4, MeterType.packets) top_m;\n")),
    case("top_register_to_subcontrol", CAT_TOP, program("        k.apply(hdr.h);\n", top="""
register<bit<8>>(4) top_reg;
control Keep(inout h_t x)(register<bit<8>> r) {
    apply { bit<8> v; r.read(v, (bit<32>)x.b[1:0]); x.c = (bit<16>)v; r.write((bit<32>)x.b[1:0], x.a); }
}
""", ingress_decls="    Keep(top_reg) k;\n"), one_by_one=True),
    case("top_parser_ctor_arg", CAT_TOP, ctor(program("", parser="""
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { s.apply(pkt, hdr.h); transition accept; }""", top="""
parser SubT(packet_in p, out h_t x);
parser SubP(packet_in p, out h_t x) { state start { p.extract(x); transition accept; } }
"""), prs_params="SubT s", main="V1Switch(P(SubP()), VC(), I(), E(), CC(), D()) main;")),
]

# found with p4c's STF tests: a control type applied directly (`T.apply(...)`, P4-16 direct
# type invocation) is an instance of its own; with its own counter and sub-controls passed
# as constructor arguments (checkmate-p4c refused "T is a control, not a value")
CASES += [
    case("top_direct_type_invocation", CAT_TOP, program("        Twice.apply(hdr.h.c); Bump.apply(hdr.h.b);\n", top="""
control Bump(inout bit<8> x) { apply { x = x + 3; } }
control Inc_t(inout bit<16> x);
control Inc(inout bit<16> x) {
    counter(8, CounterType.packets) seen;
    apply { x = x + 1; seen.count((bit<32>)x[2:0]); }
}
control Shl(inout bit<16> x)(Inc_t c) { apply { x = x << 1; c.apply(x); } }
control Twice(inout bit<16> x) { Inc() i; Shl(i) s1; Shl(i) s2; apply { s1.apply(x); s2.apply(x); } }
""")),
]
