"""Found by helper mutz18 (issue #15): a header field declared ``bool``, each decided by real
p4c 1.2.4.8 / BMv2 1.15.5.

checkmate-p4c keeps such a field as a ``bit<1>`` field, and its type checks let it through as
one: passed for a ``bit<1>`` parameter (``in``, directionless, ``inout``; of a function, an
action, a sub-control, an extern method), assigned to a ``bit<1>`` variable or struct field,
returned as a ``bit<1>``, an operand of ``+``, ``&``, ``~``, ``++``, ``<<``, a slice, a stack
index, cast to a width other than 1 -- p4c types it ``bool`` and rejects all of these (the item
docs/conformance/MUTATION.md left open).  The other way round checkmate-p4c refused what p4c accepts: the
field as an ``out``/``inout`` argument of a ``bool`` parameter, and as an arm of ``?:`` with a
``bool`` (or with itself) assigned back to the field."""
from .base import H, case, program

CAT = "front end (p4c-compatible)"
_HB = "header b_t { bool f; bit<1> g; bit<6> pad; }\n"


def _b(ingress: str, **kw) -> str:
    return program(ingress, headers=_HB, fields="    b_t b;\n" + kw.pop("fields", ""), **kw)


INVALID = {
    "bool_field_to_bit1_function_in": (_b("        hdr.h.b = f(hdr.b.f);\n", top="bit<8> f(in bit<1> x) { return (bit<8>)x; }\n"),
                                       ("expected bit<1>, got bool",)),
    "bool_field_to_bit1_function_inout": (_b("        hdr.h.b = f(hdr.b.f);\n", top="bit<8> f(inout bit<1> x) { x = 1; return 0; }\n"),
                                          ("has type bool, expected bit<1>",)),
    "bool_field_to_bit1_action_in": (_b("        a(hdr.b.f);\n", ingress_decls="    action a(in bit<1> x) { hdr.h.b = (bit<8>)x; }\n"),
                                     ("expected bit<1>, got bool",)),
    "bool_field_to_bit1_action_directionless": (_b("        a(hdr.b.f);\n", ingress_decls="    action a(bit<1> x) { hdr.h.b = (bit<8>)x; }\n"),
                                                ("expected bit<1>, got bool",)),
    "bool_field_to_bit1_control_in": (_b("        c.apply(hdr.b.f);\n", ingress_decls="    C() c;\n", top="control C(in bit<1> x) { apply { } }\n"),
                                      ("expected bit<1>, got bool",)),
    "bool_field_to_bit1_register_write": (_b("        r.write(0, hdr.b.f);\n", ingress_decls="    register<bit<1>>(4) r;\n"),
                                          ("expected bit<1>, got bool",)),
    "bool_field_to_bit1_variable": (_b("        bit<1> y = hdr.b.f;\n        hdr.h.b = (bit<8>)y;\n"), ("expected bit<1>, got bool",)),
    "bool_field_to_bit1_struct_field": (_b("        S s = {hdr.b.f};\n        hdr.b.g = s.x;\n", top="struct S { bit<1> x; }\n"),
                                        ("expected bit<1>, got bool",)),
    "bool_field_to_bit1_digest_member": (_b("        digest<S>(1, {hdr.b.f});\n", top="struct S { bit<1> x; }\n"),
                                         ("expected bit<1>, got bool",)),
    "bool_field_into_bit1_field_of_initializer": (_b("        hdr.b = {true, hdr.b.f, 0};\n"), ("expected bit<1>, got bool",)),
    "bool_field_returned_as_bit1": (_b("        hdr.b.g = f(hdr.b);\n", top="bit<1> f(in b_t x) { return x.f; }\n"),
                                    ("expected bit<1>, got bool",)),
    "bool_field_mux_into_bit1": (_b("        hdr.b.g = hdr.h.a == 1 ? hdr.b.f : hdr.b.f;\n"), ("expected bit<1>, got bool",)),
    "bool_field_plus": (_b("        hdr.b.g = hdr.b.f + 1w1;\n"), ("+: cannot be applied", "type 'bool'")),
    "bool_field_bitwise_and": (_b("        hdr.b.g = hdr.b.f & hdr.b.g;\n"), ("&: cannot be applied", "type 'bool'")),
    "bool_field_concat": (_b("        hdr.h.c = hdr.b.f ++ 15w0;\n"), ("++: cannot be applied", "type 'bool'")),
    "bool_field_slice": (_b("        hdr.b.g = hdr.b.f[0:0];\n"), ("bit extraction", "type 'bool'")),
    "bool_field_stack_index": (_b("        hdr.h.a = hdr.s[hdr.b.f].a;\n", fields="    h_t[2] s;\n"), ("stack index", "type 'bool'")),
    "bool_field_cast_to_bit8": (_b("        hdr.h.b = (bit<8>)hdr.b.f;\n"), ("cast to bit<8>", "type 'bool'")),
    # p4c 1.2.4.8 dies in its BMv2 back end ("Compiler Bug: bool: expected a bit<> type"), naming
    # the field's declaration (so does checkmate-p4c since mutz20)
    "bool_field_shift_amount": (_b("        hdr.h.a = hdr.h.a << hdr.b.f;\n"), ("<< by 'hdr.b.f'", "declared bool")),
}

_TOP = "void set_true(out bool x) { x = true; }\nvoid flip(inout bool x) { x = !x; }\n"

CASES = [
    # what p4c accepts: the field as a bool l-value and a bool ?: arm; (bit<1>) of it
    case("mutz18_bool_field_as_bool_argument_and_mux_arm", CAT, _b("""
        hdr.b.setValid();
        hdr.b.f = hdr.h.a == 1;
        hdr.b.g = 0;
        hdr.b.pad = 0;
        if (hdr.h.b == 1) { set_true(hdr.b.f); }
        else if (hdr.h.b == 2) { flip(hdr.b.f); }
        else if (hdr.h.b == 3) { a_flip(hdr.b.f); }
        else if (hdr.h.b == 4) { hdr.b.f = hdr.h.c == 7 ? hdr.b.f : true; }
        else if (hdr.h.b == 5) { hdr.b.f = hdr.h.c == 7 ? false : hdr.b.f; }
        else if (hdr.h.b == 6) { hdr.b.f = hdr.h.c == 7 ? hdr.b.f : hdr.b.f; }
        hdr.b.g = (bit<1>)hdr.b.f;
        hdr.h.d = (bit<32>)hdr.b.g;
        hdr.h.c = hdr.b.f ? 16w0x55 : 16w0xaa;
""", top=_TOP, ingress_decls="    action a_flip(inout bool x) { x = !x; }\n"),
         frames=[(1, H(a, b, c)) for a in (1, 2) for b in range(7) for c in (7, 8)]),
]

# p4c_mutate seed 37 (match kind ternary -> range): p4c's BMv2 back end takes `v &&& m` on a
# range or optional key when the mask covers the key's width -- the value v alone (range v..v;
# ternary v/0xff for optional); checkmate-p4c refused every mask there ("a mask on a range key")
CASES.append(case("mutz18_full_mask_on_range_and_optional_keys", CAT, program("        t.apply();\n", ingress_decls="""
    action d(bit<32> v) { hdr.h.d = v; }
    table t { key = { hdr.h.a: range; hdr.h.b: optional; } actions = { d; NoAction; }
        const entries = { (5 &&& 0xff, 7 &&& 0x1ff): d(1); (5 &&& 8w255, _): d(2); (0x10 .. 0x20, 3 &&& 0xff): d(3);
                          (300 &&& 0xff, _): d(4); } }"""),
    frames=[(1, H(a, b)) for a, b in ((5, 7), (5, 8), (0x15, 3), (0x15, 4), (6, 7), (44, 1), (4, 7))]))

# p4c removes a sub-control instance nothing applies, an unapplied table (then the actions only
# it lists), an unused action and an uncalled function before its BMv2 back end, so that back
# end's checks do not see them: a division by a run-time value or a constant that is not a power
# of two, two lpm keys in one table, a direct meter no action reads, verify_checksum outside the
# verify checksum control.  checkmate-p4c refused them (the item docs/conformance/MUTATION.md left open:
# only target errors and the shift check waited for `finish`).
_SUB = """control C(inout h_t h) {
    direct_meter<bit<8>>(MeterType.packets) dm;
    action n() { }
    action m() { h.c = h.c / 3; }
    table t { key = { h.a: lpm; h.b: lpm; } actions = { n; m; } }
    table t2 { key = { h.a: exact; } actions = { n; } meters = dm; }
    apply { h.c = h.c % h.c; t.apply(); t2.apply(); verify_checksum(true, {h.a}, h.c, HashAlgorithm.csum16); }
}
bit<16> f(in bit<16> x) { return x / 3; }
"""
CASES.append(case("mutz18_back_end_checks_skip_removed_code", CAT, program("""
        c2.apply(hdr.h);
        hdr.h.c = hdr.h.c + 1;
""", top=_SUB + "control C2(inout h_t h) { apply { h.b = h.b + 1; } }\n", ingress_decls="""
    C() c;
    C2() c2;
    direct_meter<bit<8>>(MeterType.packets) dm;
    action n() { }
    action m() { hdr.h.c = hdr.h.c / 5; }
    action u() { hdr.h.c = hdr.h.c % 7; verify_checksum(true, {hdr.h.a}, hdr.h.c, HashAlgorithm.csum16); }
    table t { key = { hdr.h.a: lpm; hdr.h.b: lpm; } actions = { n; m; } }
    table t2 { key = { hdr.h.a: exact; } actions = { n; } meters = dm; }""")))

INVALID.update({
    # ... and still refuses them where the code is kept (the sub-control applied)
    "subcontrol_applied_division_by_three": (program("        c.apply(hdr.h);\n", ingress_decls="    C() c;\n", top=(
        "control C(inout h_t h) { apply { h.c = h.c / 3; } }\n")), ("divisor",)),
    "subcontrol_applied_two_lpm_keys": (program("        c.apply(hdr.h);\n", ingress_decls="    C() c;\n", top=(
        "control C(inout h_t h) { action n() { } table t { key = { h.a: lpm; h.b: lpm; } actions = { n; } }\n"
        "    apply { t.apply(); } }\n")), ("lpm",)),
    "subcontrol_applied_verify_checksum": (program("        c.apply(hdr.h);\n", ingress_decls="    C() c;\n", top=(
        "control C(inout h_t h) { apply { verify_checksum(true, {h.a}, h.c, HashAlgorithm.csum16); } }\n")),
        ("verify_checksum",)),
    "action_in_applied_table_division_by_three": (program("        t.apply();\n", ingress_decls=(
        "    action m() { hdr.h.c = hdr.h.c / 3; }\n    table t { key = { hdr.h.a: exact; } actions = { m; } }\n")),
        ("divisor",)),
})

# p4c_mutate seed 41 (a key field bit<8> -> int<8>): checkmate-p4c typed every const entry value
# as bit<W>, so a signed key took a bit<8> value (p4c: "Cannot cast implicitly type 'bit<8>' to
# type 'int<8>'") and refused an int<8> one
_SK = """
    action s(bit<8> v) { hdr.h.b = v; }
    table t { key = { meta.sa: exact; } actions = { s; NoAction; }
              const entries = { 8s1: s(0x21); {(int<8>)8w2}: s(0x22); 3: s(0x23); } }"""
CASES.append(case("mutz18_signed_key_const_entries", CAT, program(
    "        meta.sa = (int<8>)hdr.h.a;\n        t.apply();\n", meta="    int<8> sa;\n", ingress_decls=_SK),
    frames=[(1, H(a)) for a in (1, 2, 3, 4, 0x81)]))
INVALID["signed_key_unsigned_entry_value"] = (program(
    "        meta.sa = (int<8>)hdr.h.a;\n        t.apply();\n", meta="    int<8> sa;\n",
    ingress_decls=_SK.replace("8s1:", "8w1:")), ("expected int<8>, got bit<8>",))
# p4c's P4Runtime serializer refuses a negative value, mask or bound in a signed key's const
# entry ("Negative values not supported yet", no position); checkmate-p4c took its two's complement
for _n, _kind, _e in (("exact", "exact", "-1"), ("ternary_mask", "ternary", "1 &&& 0xf0"),
                      ("range", "range", "-5 .. -1"), ("optional", "optional", "-1")):
    INVALID[f"signed_key_negative_entry_{_n}"] = (program(
        "        meta.sa = (int<8>)hdr.h.a;\n        t.apply();\n", meta="    int<8> sa;\n", ingress_decls=f"""
    action s(bit<8> v) {{ hdr.h.b = v; }}
    table t {{ key = {{ meta.sa: {_kind}; }} actions = {{ s; NoAction; }}
              const entries = {{ {_e}: s(0x21); }} }}"""), ("negative values",))
