"""Constructs seen in public v1model programs not measured before (ONOS's test pipelines,
GEANT's DDoS monitoring sketches, egoareguer/p4tests' count-min/HyperLogLog/HashPipe sketches,
multip4/P4-SFC, DINGDAMU/P4Entropy, distrue/p4ids-bmv2, omec-project/up4 ... fetched by helper
corpus22 for issue #15), each written here as a small program of our own and decided by real p4c
1.2.4.8 / BMv2 1.15.5.

Found (``INVALID``, each accepted by checkmate-p4c before): p4c types an action call's arguments
without the implicit cast from a serializable enum to its underlying type that a function's or an
extern method's ``in`` parameter takes -- ``a(E.X)`` for ``action a(bit<4> x)`` (also an ``in``
parameter, a ``typedef`` of ``bit<4>``, a local or a field declared of the enum, a ``?:`` of members, the
enum-typed parameter of another action) is "Cannot unify type 'E' with type 'bit<4>'", named at the
call, in a direct call, a default action, a const entry and an actions list's bound argument
(omec-project/up4: ``const default_action = set_source_iface(InterfaceType.UNKNOWN,
Direction.UNKNOWN, Slice.DEFAULT)`` with a ``slice_id_t`` third parameter); likewise an enum value
in a list expression or struct initializer that becomes a struct or header with a ``bit<W>`` field
there (an assignment, a local's initializer, digest data: "Type of initializer 'E' does not match
type 'bit<8>' of field", with no position of the program's).  And a digest of a struct
initializer, ``digest<S>(1, { b = .., a = .. })``, which p4c compiles, was refused.

Programs p4c compiles, run on BMv2 (kept as regression cases of the same rule's edges): the enum
for a function's ``in`` parameter, an extern method's argument, an assignment, and cast or
computed (``(bit<4>)E.X``, ``E.X + 1``) for an action's; GEANT's sketches hand a register and a
``HashAlgorithm`` to sub-control instances at ``apply()`` (every instance its own register, the
algorithm an ``in`` argument the hash call uses)."""
from .base import H, case, eth, PAYLOAD, program

CASES = []

_ENUM = "enum bit<8> Sl { DEF = 0x1, B = 0x2 }\nbit<8> inc(in bit<8> v) { return v + 8w1; }\n"
_ACT = "    action a(bit<8> x) { hdr.h.b = x; }\n    register<bit<8>>(4) r;\n"

# the enum's edges p4c takes: a function's in parameter, an extern method, an assignment, a cast
# or computed value for an action's parameter
CASES.append(case("corpus22_serenum_where_p4c_casts_it", "front end (p4c-compatible)", program(
    "        hdr.h.c = (bit<16>)inc(Sl.B);\n        r.write(1, Sl.DEF);\n        bit<8> v;\n"
    "        r.read(v, 1);\n        hdr.h.d = (bit<32>)v;\n        if (hdr.h.a == 8w1) { a((bit<8>)Sl.B); }\n"
    "        else if (hdr.h.a == 8w2) { a(Sl.B + 8w4); }\n        else { bit<8> w = Sl.DEF; a(w); }\n",
    top=_ENUM, ingress_decls=_ACT), frames=[(1, H(1)), (1, H(2)), (1, H(3)), (1, eth(0x0800) + PAYLOAD)]))

# sub-control instances each handed its own register and a HashAlgorithm member at apply()
CASES.append(case("corpus22_register_and_algorithm_as_apply_arguments", "externs", program(
    "        u1.apply(r1, HashAlgorithm.crc16, hdr.h, m1);\n        u2.apply(r2, HashAlgorithm.crc32, hdr.h, m2);\n"
    "        hdr.h.c = m1;\n        hdr.h.d = (bit<32>)m2;\n",
    top="""register<bit<16>>(8) r1;
register<bit<16>>(8) r2;
control Upd(register<bit<16>> t, in HashAlgorithm algo, in h_t h, inout bit<16> last) {
    action up() {
        bit<32> i;
        hash(i, algo, 32w0, { h.a, h.b }, 32w8);
        t.read(last, i);
        t.write(i, last + 16w1);
    }
    apply { if (h.isValid()) { up(); } }
}
""", ingress_decls="    Upd() u1;\n    Upd() u2;\n    bit<16> m1 = 0;\n    bit<16> m2 = 0;\n"),
    frames=[(1, H(1, 2)), (1, H(1, 2)), (1, H(3, 4)), (1, H(1, 2)), (1, eth(0x0800) + PAYLOAD)]))

# a digest of a struct initializer (fields out of declaration order): p4c compiles it as the list
# in the struct's order; checkmate-p4c refused the initializer's type ("digest data has type sinit")
CASES.append(case("corpus22_digest_of_struct_initializer", "externs", program(
    "        if (hdr.h.isValid()) { digest<dg_t>(1, { b = hdr.h.c, a = hdr.h.a }); }\n",
    top="struct dg_t { bit<8> a; bit<16> b; }\n"), frames=[(1, H(1, 2, 3)), (1, eth(0x0800) + PAYLOAD)], json_path=True))


def _enum_prog(ingress: str, decls: str) -> str:
    return program(ingress, top=_ENUM, ingress_decls=_ACT + decls)


_T = "    table t {{ key = {{ hdr.h.a: exact; }} actions = {{ a; NoAction; }} {p} }}\n"
_UNIFY = ("cannot unify type Sl", "Cannot unify type")

# name -> (program, words the message must contain (any of)); tests/differential/test_invalid.py
INVALID: dict[str, tuple[str, list[str]]] = {
    "corpus22_serenum_member_for_action_bit_parameter_direct_call": (
        _enum_prog("        a(Sl.B);\n", ""), _UNIFY),
    "corpus22_serenum_member_for_action_bit_parameter_default_action": (
        _enum_prog("        t.apply();\n", _T.format(p="const default_action = a(Sl.DEF);")), _UNIFY),
    "corpus22_serenum_member_for_action_bit_parameter_const_entry": (
        _enum_prog("        t.apply();\n", _T.format(p="const entries = { 1 : a(Sl.B); }")), _UNIFY),
    "corpus22_serenum_member_for_action_in_parameter_bound_in_actions_list": (
        _enum_prog("        t2.apply();\n", "    action b(in bit<8> y) { hdr.h.a = y; }\n"
                   "    table t2 { key = { hdr.h.a: exact; } actions = { b(Sl.B); NoAction; } }\n"), _UNIFY),
    "corpus22_serenum_member_for_action_typedef_parameter": (
        program("        a2(Sl.DEF);\n", top=_ENUM + "typedef bit<8> sl_t;\n",
                ingress_decls="    action a2(sl_t x) { hdr.h.b = x; }\n"), _UNIFY),
    "corpus22_serenum_local_for_action_bit_parameter": (
        _enum_prog("        Sl e = Sl.B;\n        if (hdr.h.a == 8w1) { e = Sl.DEF; }\n        a(e);\n", ""), _UNIFY),
    "corpus22_serenum_parameter_forwarded_to_action_bit_parameter": (
        _enum_prog("        c(Sl.B);\n", "    action c(Sl y) { a(y); }\n"), _UNIFY),
    # the same rule where a list or struct initializer becomes a struct or header (digest data too)
    "corpus22_serenum_member_in_list_for_struct_bit_field": (
        program("        dg_t d = { Sl.B, 16w1 };\n        hdr.h.c = d.b + (bit<16>)d.a;\n",
                top=_ENUM + "struct dg_t { bit<8> a; bit<16> b; }\n"), _UNIFY),
    "corpus22_serenum_member_in_initializer_for_header_bit_field": (
        program("        hdr.h = { a = Sl.B, b = 8w1, c = 16w2, d = 32w3 };\n", top=_ENUM), _UNIFY),
    "corpus22_serenum_member_in_digest_list": (
        program("        digest<dg_t>(1, { Sl.B, hdr.h.c });\n",
                top=_ENUM + "struct dg_t { bit<8> a; bit<16> b; }\n"), _UNIFY),
}

# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
