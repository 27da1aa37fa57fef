"""Programs found by helper errs13 (issue #15) in a sweep of p4lang/p4c's
testdata/p4_16_errors and testdata/p4_16_bmv_errors, each decided by real p4c 1.2.4.8.

``INVALID`` (read by tests/differential/test_invalid.py): name -> (program, words the
message must contain (any of)).
"""
from .base import case, program

CAT = "front end (p4c-compatible)"

CASES = []

# `_` as an argument (p4c 1.2.4.8 takes it for an out/inout parameter of a function, action or
# control, and for any parameter of an action: a temporary, never read back / never written):
# checkmate-p4c refused the out/inout ones ("expression cannot be assigned to") and built an
# unloadable pipeline for an action's in/directionless one (an IR value of type "any").  Found
# while checking the rule of p4_16_errors/issue774-1 (`_` for an in parameter of a function).
CASES.append(case("errs13_dontcare_out_and_inout_arguments", CAT, program("""
        f(_);
        a_out(_);
        a_inout(_);
        s.apply(_);
        hdr.h.a = hdr.h.a + 7;""", top="""void f(out bit<32> x) { x = 1; }
control Sub(out bit<8> t) { apply { t = 1; } }
""", ingress_decls="""    Sub() s;
    action a_out(out bit<8> x) { x = 1; hdr.h.b = hdr.h.b + 3; }
    action a_inout(inout bit<8> x) { x = x + 1; hdr.h.d = hdr.h.d + 5; }
""")))
# A header field declared of a serializable enum is a value of that enum (p4c): read into an enum
# local, an enum struct field, and given to an action's enum parameter -- checkmate-p4c held
# the field as its bits only and refused the first two ("type mismatch: expected E1, got
# bit<8>"); found while checking the no-implicit-cast rule above against p4-guide's packetinout.
_E1H = "enum bit<8> E1 { e1 = 0, e2 = 1, e3 = 2 }\nheader eh_t { E1 v; }\nstruct S1 { E1 v; }\n"
CASES.append(case("errs13_enum_header_field_read_as_enum", CAT, program("""
        hdr.eh.setValid();
        hdr.eh.v = (E1)hdr.h.a;
        E1 x = hdr.eh.v;
        S1 s = { v = hdr.eh.v };
        if (x == E1.e2) { hdr.h.b = 1; }
        hdr.h.c = (bit<16>)(bit<8>)s.v;
        set(hdr.eh.v);""", headers=_E1H, fields="    eh_t eh;\n",
    ingress_decls="    action set(E1 e) { hdr.h.d = (bit<32>)(bit<8>)e; }\n",
    deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.eh);")))
# A divisor read from a local whose value p4c's constant propagation knows is a power of two
# (`bit<8> d = 4; x = y / d;`, a control-level local, `%`, a cast of it, in a parser state):
# p4c turns the division into a shift; checkmate-p4c refused it as a run-time division.
# Found by a v1model probe of p4_16_errors/div3 (whose divisor, 3, p4c refuses).
CASES.append(case("errs13_division_by_local_constant_power_of_two", CAT, program("""
        bit<8> d = 4;
        hdr.h.a = hdr.h.a / d;
        hdr.h.b = hdr.h.b % m8;
        bit<8> e = 3;
        e = 16;
        hdr.h.c = hdr.h.c / (bit<16>)e;""", ingress_decls="    bit<8> m8 = 8;\n", parser="""    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        bit<32> q = 2;
        hdr.h.d = hdr.h.d / q;
        transition accept;
    }""")))
CASES.append(case("errs13_dontcare_action_in_argument_reads_zero", CAT, program("""
        a_in(_);
        a_dl(_);""", ingress_decls="""    action a_in(in bit<8> x) { hdr.h.a = x; }
    action a_dl(bit<16> x) { hdr.h.c = x + 1; }
""")))

# testdata/p4_16_bmv_errors/issue5464-hash-bmv2 (reduced): a program that declares its own
# architecture (no v1model.p4) with a HashAlgorithm enum.  p4c's BMv2 back end keeps only the
# enums of a file named v1model.p4 as names and turns this one into a bit<32> number, so hash()
# has no algorithm: p4c 1.2.4.8 dies ("Null ei"), later p4c says "expected a HashAlgorithm
# member".  checkmate-p4c compiled it as v1model's hash.
_OWN_ARCH_HASH = """extern packet_in { }
extern packet_out { }
struct standard_metadata_t { }
enum HashAlgorithm { csum16 }
extern void hash<O, T, D, M>(out O result, in HashAlgorithm algo, in T base, in D data, in M max);
parser Parser<H, M>(packet_in b, out H parsedHdr, inout M meta, inout standard_metadata_t standard_metadata);
control VerifyChecksum<H, M>(inout H hdr, inout M meta);
control Ingress<H, M>(inout H hdr, inout M meta, inout standard_metadata_t standard_metadata);
control Egress<H, M>(inout H hdr, inout M meta, inout standard_metadata_t standard_metadata);
control ComputeChecksum<H, M>(inout H hdr, inout M meta);
control Deparser<H>(packet_out b, in H hdr);
package V1Switch<H, M>(Parser<H, M> p, VerifyChecksum<H, M> vr, Ingress<H, M> ig, Egress<H, M> eg,
                       ComputeChecksum<H, M> ck, Deparser<H> dep);
struct headers_t { }
struct metadata_t { bit<16> result; bit<16> b; }
parser P(packet_in b, out headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    state start { transition accept; }
}
control V(inout headers_t hdr, inout metadata_t meta) { apply { } }
control I(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply { hash(meta.result, HashAlgorithm.csum16, 16w0, { meta.b }, 16w1); }
}
control G(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout metadata_t meta) { apply { } }
control D(packet_out b, in headers_t hdr) { apply { } }
V1Switch(P(), V(), I(), G(), C(), D()) main;
"""

_E1 = "enum bit<8> E1 { e1 = 0, e2 = 1, e3 = 2 }\n"

INVALID = {
    "own_arch_hash_algorithm_enum": (_OWN_ARCH_HASH, ("HashAlgorithm member", "v1model.p4")),
    # The rules below are those of core-only programs of p4_16_errors, written into the v1model
    # skeleton (errs13-probe in the corpus); checkmate-p4c accepted each (or died).
    # issue3233 / a cast of a struct or header *value* (even to its own type): "cast not supported"
    "struct_value_cast": (program("        S2 s = {hdr.h.a, hdr.h.b};\n        S2 s2 = (S2)s;\n        hdr.h.a = s2.x;\n",
                                  top="struct S2 { bit<8> x; bit<8> y; }\n"), ("cast not supported",)),
    "header_value_cast": (program("        h_t v = (h_t)hdr.h;\n        hdr.h2 = v;\n"), ("cast not supported",)),
    # issue774-1: `_` is an argument for an out parameter only
    "dontcare_for_in_parameter": (program("        f(_);\n", top="void f(in bit<32> x) { }\n"),
                                  ("don't care argument is only allowed for out parameters",)),
    "dontcare_for_in_control_parameter": (program("        s.apply(_);\n", top="control Sub(in bit<8> t) { apply { } }\n",
                                                  ingress_decls="    Sub() s;\n"),
                                          ("don't care argument is only allowed for out parameters",)),
    # issue2496: an untyped integer shifted by more than 2048 (checkmate-p4c folded a 900-million-bit
    # number and died formatting it)
    "untyped_shift_too_wide": (program("        hdr.h.c = 1985245330 << 903012108;\n"), ("widths up to 2048",)),
    "untyped_shift_2049": (program("        hdr.h.c = (bit<16>)(1 << 2049);\n"), ("widths up to 2048",)),
    # tuple-to-header: a tuple-typed value is no list expression -- it becomes no header or struct
    # (checkmate-p4c died: KeyError 'items')
    "tuple_value_to_header": (program("        tuple<bit<8>, bit<8>, bit<16>, bit<32>> t = { 1, 2, 3, 4 };\n        hdr.h = t;\n"),
                              ("tuple value cannot become",)),
    "tuple_value_compared_with_struct": (program("        tuple<bit<8>, bit<8>> t = { 1, 2 };\n        S s = {1, 2};\n"
                                                 "        if (s == t) { hdr.h.a = 1; }\n", top="struct S { bit<8> x; bit<8> y; }\n"),
                                         ("tuple value cannot become",)),
    # serEnumImplCast / enumCast: no implicit conversion to a serializable enum (p4c); an action's
    # directionless enum parameter (held as its bits) takes that enum's values only
    "serenum_default_action_bits_arg": (program("        t.apply();\n", top="enum bit<2> foo_t { A = 0, B = 1, C = 2, D = 3 }\n",
                                                ingress_decls="    action set_x(foo_t v) { hdr.h.a = (bit<8>)(bit<2>)v; }\n"
                                                "    table t { key = { hdr.h.b: exact; } actions = { set_x; } default_action = set_x(2w0); }\n"),
                                        ("cannot unify type bit<2> with type foo_t",)),
    "serenum_entry_int_arg": (program("        t.apply();\n", top=_E1, ingress_decls="    action set_x(E1 v) { hdr.h.a = (bit<8>)v; }\n"
                                      "    table t { key = { hdr.h.b: exact; } actions = { set_x; } const entries = { 1: set_x(1); } }\n"),
                              ("cannot unify type int with type E1",)),
    "serenum_direct_call_int_arg": (program("        set_x(1);\n", top=_E1, ingress_decls="    action set_x(E1 v) { hdr.h.a = (bit<8>)v; }\n"),
                                    ("cannot unify type int with type E1",)),
    "serenum_local_from_int": (program("        E1 y = 1;\n        hdr.h.a = (bit<8>)y;\n", top=_E1), ("cannot be implicitly cast to type E1",)),
    "serenum_const_from_int": (program("        hdr.h.a = (bit<8>)K;\n", top=_E1 + "const E1 K = 1;\n"), ("cannot be implicitly cast to type E1",)),
    "serenum_return_int": (program("        hdr.h.a = (bit<8>)f();\n", top=_E1 + "E1 f() { return 1; }\n"), ("cannot be implicitly cast to type E1",)),
    "serenum_struct_field_int": (program("        S s = { v = 1 };\n        hdr.h.a = (bit<8>)s.v;\n", top=_E1 + "struct S { E1 v; }\n"),
                                 ("cannot be implicitly cast to type E1",)),
    "serenum_header_field_list": (program("        hdr.eh = { 1 };\n", headers=_E1 + "header eh_t { E1 v; }\n", fields="    eh_t eh;\n"),
                                  ("cannot be implicitly cast to type E1",)),
    "serenum_mux_int_arm": (program("        E1 a = hdr.h.a == 1 ? E1.e1 : 2;\n        hdr.h.b = (bit<8>)a;\n", top=_E1),
                            ("cannot be implicitly cast to type E1",)),
    # two constants of different enums compared: p4c's constant folder dies ("different enum types")
    "serenum_constants_of_two_enums_compared": (program("        if (E1.e2 != E2.e1) { hdr.h.b = 1; }\n",
                                                        top=_E1 + "enum bit<8> E2 { e1 = 10, e2 = 11 }\n"),
                                                ("different enum types",)),
    # div3: a divisor the constant propagation does not make constant (assigned under an if)
    "division_by_local_assigned_under_if": (program("        bit<8> d = 4;\n        if (hdr.h.b == 1) { d = 2; }\n"
                                                    "        hdr.h.a = hdr.h.a / d;\n"), ("divisor must be a compile-time power of two",)),
    # const_e: a constant of an extern type (checkmate-p4c said only "unsupported call")
    "const_of_extern_type": (program("", top="const register<bit<8>> R = register<bit<8>>(4);\n"),
                             ("Cannot evaluate initializer for constant",)),
    # issue2267: inside a table its own name is the table, not the control parameter it shadows
    "table_key_names_its_table": (program("        s.apply(hdr.h.a);\n", top="""control Sub(in bit<8> t) {
    table t { key = { t : exact; } actions = { NoAction; } }
    apply { t.apply(); }
}
""", ingress_decls="    Sub() s;\n"), ("Cannot refer to the containing table",)),
}
