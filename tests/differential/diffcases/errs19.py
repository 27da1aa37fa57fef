"""Programs found by helper errs19 (issue #15): a sixth sweep of probe programs of our own (kept in
/work/e19, outside the repository), each decided by real p4c 1.2.4.8 and, for what runs, by
simple_switch_grpc.

``CASES``: programs p4c accepts that checkmate-p4c refused or ran differently.  ``INVALID`` (read by
tests/differential/test_invalid.py): name -> (program, words the message must contain (any of)) --
programs p4c rejects that checkmate-p4c accepted, or refused for another reason than p4c's.
"""
from .base import case, program

CAT = "front end (p4c-compatible)"

SX = "enum bit<8> Sx { A = 1, B = 2, C = 0xff }\nenum int<8> Si { N = -1, Z = 0, M = 2 }\n"

CASES = []

# A serializable enum in a shift takes part as its underlying type (p4c 1.2.4.8: `h.a << Sx.B`,
# `(Sx)h.b << 1`, `Sx.C << h.b`, the result bit<8>); checkmate-p4c refused any enum operand of a
# shift ("<< needs integer operands, not bit<8> and Sx"; /work/e19 pa a_sh_serenum_amount, t1)
CASES.append(case("errs19_serializable_enum_operands_of_a_shift", CAT, program("""
        hdr.h.a = hdr.h.a << Sx.B;
        hdr.h.d = hdr.h.d >> Sx.C;
        hdr.h.b = (Sx)hdr.h.b << 1;
        hdr.h.c = (Sx.A << hdr.h.c[2:0]) ++ (hdr.h.c[7:0] >> (Sx)(5w0 ++ hdr.h.c[10:8]));""", top=SX),
    json_path=True))

# A field list index is a bit<8>: p4c takes -1 as list 255 (`resubmit_preserving_field_list(-1)`
# preserves the @field_list(255) fields); checkmate-p4c refused it ("field list index must be >= 0";
# /work/e19 pd d_f_clone_fl_negative, t8 fl255)
CASES.append(case("errs19_field_list_index_minus_one_is_255", CAT, program("""
        if (sm.instance_type == 0) {
            meta.k1 = hdr.h.a + 1; meta.k2 = 7; meta.k3 = 9;
            resubmit_preserving_field_list(-1);
        } else {
            hdr.h.b = meta.k1; hdr.h.c = meta.k2 ++ meta.k3;
        }""", meta="    @field_list(255) bit<8> k1;\n    bit<8> k2;\n    @field_list(1) bit<8> k3;\n"), json_path=True))

_T = ("    action a(bit<8> v) { hdr.h.b = v; }\n    table t {\n        key = { hdr.h.a: exact; }\n%s"
      "        actions = { a; NoAction; }\n    }\n")

_ERR_SELECT = """\
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype, sm.parser_error) { (0x1234, error.NoError): accept; default: accept; }
    }"""

_U = "header u8_t { bit<8> v; }\nheader u16_t { bit<16> v; }\nheader_union U { u8_t b; u16_t w; }\n"

INVALID = {
    # isValid() of a union in a stack at a run-time index: p4c's def-use pass dies (Compiler Bug,
    # no position; /work/e19 pc c_u_index_runtime_valid, t8)
    "errs19_union_in_a_stack_at_a_run_time_index_is_valid": (
        program("        hdr.h.c = hdr.us[hdr.h.b[0:0]].isValid() ? 16w1 : 16w0;\n", headers=_U, fields="    U[2] us;\n"),
        ("Compiler Bug",)),
    # ... and a member of one in a control (`hdr.us[i].b.v = 5`): p4c's back end dies with a
    # segmentation fault (exit 245, no message; a local stack and a parser compile; t8)
    "errs19_union_in_a_stack_at_a_run_time_index_member": (
        program("        hdr.us[hdr.h.b[0:0]].b.v = 5;\n", headers=_U, fields="    U[2] us;\n"),
        ("segmentation fault",)),
    "errs19_union_in_a_stack_at_a_run_time_index_copied": (
        program("        hdr.us[1] = hdr.us[hdr.h.b[0:0]];\n", headers=_U, fields="    U[2] us;\n"),
        ("segmentation fault",)),
    # a select on a value of type error (p4c: "with a component of type 'error' cannot be used in
    # 'select'"; /work/e19 pc c_t_error_select, t7)
    "errs19_select_on_an_error_value": (program("", parser=_ERR_SELECT), ("type 'error'",)),
    # p4c types a table's properties in order: a default action or entries before `actions`
    # (/work/e19 pb b_d_default_before_actions, b_p_entries_then_actions)
    "errs19_default_action_before_the_actions_property": (
        program("        t.apply();\n", ingress_decls=_T % "        default_action = a(7);\n"), ("no action list",)),
    "errs19_const_entries_before_the_actions_property": (
        program("        t.apply();\n", ingress_decls=_T % "        const entries = { 1: a(1); }\n"), ("no action list",)),
    # p4c's constant folder: a constant enum shifted by a constant ("Sx.B: expected an integer
    # value"), a signed enum amount ("Shifts with negative amounts", a Compiler Bug for a
    # non-negative one, "Shift amount must be an unsigned number" at run time)
    "errs19_constant_serializable_enum_shifted": (program("        hdr.h.a = Sx.B << 1;\n", top=SX),
                                                  ("expected an integer value",)),
    "errs19_shift_by_a_negative_signed_enum": (program("        hdr.h.a = hdr.h.a << Si.N;\n", top=SX),
                                               ("negative",)),
    "errs19_shift_by_a_signed_enum_constant": (program("        hdr.h.a = hdr.h.a << Si.M;\n", top=SX),
                                               ("signed enum",)),
    "errs19_shift_by_a_run_time_signed_enum": (program("        hdr.h.a = hdr.h.a << (Si)(int<8>)hdr.h.b;\n",
                                                       top=SX), ("unsigned",)),
}
