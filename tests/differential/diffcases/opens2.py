"""Disagreements closed by helper opens2 (issue #15): the items helpers opens, mutz35, corpus20 and
errs19 left open, each measured on real p4c 1.2.4.8 / BMv2 1.15.5 and kept as cases.
"""
from .base import Entry, H, case, program
from .fuzz18 import _U

CAT = "front end (p4c-compatible)"

CASES = []

# (1) opens' open probe: a store in an action body that every use of the action is followed by an
# overwrite of (`action wc() { hdr.h.c = 44; }` listed by `t`, `t.apply(); ..; hdr.h.c = meta.m16;`).
_SW = "        hdr.h.d = 32w5;\n        switch (hdr.h.a) { 7: { hdr.h.d = 32w1 | (bit<32>)hdr.h.c; } }\n"
_TD = ("    action n() { meta.m8 = 1; }\n"
       "    action wc() { hdr.h.c = 44; }\n"
       "    action wm() { hdr.h.c = 45; meta.m8 = 2; }\n"
       "    action wr() { hdr.h.c = 46; meta.m8 = (bit<8>)hdr.h.c; }\n"
       "    action wp(bit<16> v) { hdr.h.c = v; }\n"
       "    table t { key = { hdr.h.b: exact; } actions = { wc; n; } default_action = wc(); }\n"
       "    table tm { key = { hdr.h.b: exact; } actions = { wm; n; } default_action = wm(); }\n"
       "    table tr { key = { hdr.h.b: exact; } actions = { wr; n; } default_action = wr(); }\n"
       "    table tp { key = { hdr.h.b: exact; } actions = { wp; n; } default_action = n(); }\n"
       "    table t2 { key = { hdr.h.b: exact; } actions = { wc; n; } default_action = n(); }\n"
       "    table t3 { key = { hdr.h.b: exact; } actions = { wc; n; } default_action = wc(); }\n"
       "    table tk { key = { hdr.h.c: exact; } actions = { n; } default_action = n(); }\n")
_RD = "meta.m16 = (bit<16>)hdr.h.d + (bit<16>)meta.m8; "
_DF = [(1, H(a, b, 0x1234, d=0x10)) for a in (7, 8) for b in (0, 1)]
for _name, _rest, _ent in [
        ("a_default_action", "t.apply(); " + _RD + "hdr.h.c = meta.m16;", []),
        ("an_entry_action", "t2.apply(); " + _RD + "hdr.h.c = meta.m16;", [Entry("I.t2", {"hdr.h.b": 1}, "I.wc", {})]),
        ("an_action_with_another_store", "tm.apply(); " + _RD + "hdr.h.c = meta.m16;", []),
        ("an_action_parameter", "tp.apply(); " + _RD + "hdr.h.c = meta.m16;", [Entry("I.tp", {"hdr.h.b": 1}, "I.wp", {"v": 9})]),
        ("a_switch_on_action_run", "switch (t.apply().action_run) { wc: { meta.m8 = 3; } default: { } } " + _RD + "hdr.h.c = meta.m16;", []),
        ("listed_by_two_tables_both_overwritten", "t.apply(); " + _RD + "hdr.h.c = meta.m16; t3.apply(); hdr.h.c = 7;", []),
        ("overwritten_in_both_branches", "t.apply(); " + _RD + "if (hdr.h.b == 1) { hdr.h.c = meta.m16; } else { hdr.h.c = 3; }", []),
        ("also_called_directly_overwritten", "t.apply(); " + _RD + "hdr.h.c = meta.m16; wc(); hdr.h.c = 8;", []),
        # guards: a use that reads it keeps the store (and the apply ends the copy)
        ("read_in_the_action_body", "tr.apply(); " + _RD + "hdr.h.c = meta.m16;", []),
        ("listed_by_a_second_table", "t.apply(); " + _RD + "hdr.h.c = meta.m16; t3.apply(); hdr.h.b = (bit<8>)hdr.h.c;", []),
        ("read_by_a_later_key", "t.apply(); " + _RD + "tk.apply(); hdr.h.c = meta.m16;", []),
        ("read_past_an_exit", "t.apply(); " + _RD + "if (hdr.h.b == 1) { exit; } hdr.h.c = meta.m16;", []),
        ("also_called_directly_and_read", "t.apply(); " + _RD + "hdr.h.c = meta.m16; wc(); hdr.h.b = (bit<8>)hdr.h.c;", []),
        ("not_overwritten", "t.apply(); " + _RD, []),
        ("overwritten_in_one_branch", "t.apply(); " + _RD + "if (hdr.h.b == 1) { hdr.h.c = meta.m16; }", []),]:
    CASES.append(case(f"opens2_dead_action_store_{_name}", CAT, program(
        _SW + "        " + _rest + "\n", ingress_decls=_TD), entries=_ent, frames=_DF))


# (2) mutz35's open item: a header-union member's copy past a sub-control whose body returns.
_UV = ("        hdr.h.c = (bit<16>)((bit<1>)meta.mh.isValid() ++ (bit<1>)hdr.u.x.isValid() ++ "
       "(bit<1>)hdr.u.w.isValid());\n        hdr.h.d = meta.mh.isValid() ? meta.mh.d : 32w7;\n")
_US = ("control S1(inout headers_t h, inout meta_t m) { apply { m.mh = h.u.x; } }\n"
       "control R1(inout headers_t h, inout meta_t m) { apply { if (h.h.b == 2) { return; } m.m8 = 1; } }\n"
       "control R2(inout headers_t h, inout meta_t m) { apply { m.m8 = 1; return; } }\n"
       "control R3(inout headers_t h, inout meta_t m) { apply { if (h.h.b == 2) { return; } m.mh = h.u.x; } }\n"
       "control R4(inout headers_t h, inout meta_t m) { apply { if (h.h.b == 2) { return; } h.u.x.a = 3; } }\n"
       "control R5(inout headers_t h, inout meta_t m) { apply { if (h.h.b == 2) { exit; } m.m8 = 1; } }\n"
       "control R6(inout headers_t h, inout meta_t m) { apply { if (h.h.b == 2) { m.m8 = 5; } else { return; } } }\n"
       "control R7(inout headers_t h, inout meta_t m) { apply { if (h.h.b == 2) { return; } h.h2.setValid(); } }\n")
_UD = dict(_U, meta="    h_t mh;\n", top=_US,
           ingress_decls="    S1() s1;\n    R1() r1;\n    R2() r2;\n    R3() r3;\n    R4() r4;\n    R5() r5;\n    R6() r6;\n    R7() r7;\n")
_UF = [(1, H(a, b, 2, d=0x11223344 + a, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3, 4) for b in (1, 2)]
for _name, _body in [
        ("a_conditional_return", "r1.apply(hdr, meta); s1.apply(hdr, meta);"),
        ("a_return_at_its_end", "r2.apply(hdr, meta); s1.apply(hdr, meta);"),
        ("a_return_in_an_else", "r6.apply(hdr, meta); s1.apply(hdr, meta);"),
        ("two_returning_sub_controls", "r1.apply(hdr, meta); r2.apply(hdr, meta); s1.apply(hdr, meta);"),
        ("a_returning_sub_control_in_a_branch", "if (hdr.h.b == 1) { r1.apply(hdr, meta); } s1.apply(hdr, meta);"),
        ("a_return_then_the_read", "r3.apply(hdr, meta);"),
        ("a_return_then_an_unrelated_header", "r7.apply(hdr, meta); s1.apply(hdr, meta);"),
        # guards: a write of the member after the return ends it; an exit
        ("ended_by_a_write_after_the_return", "r4.apply(hdr, meta); s1.apply(hdr, meta);"),
        ("an_exit", "r5.apply(hdr, meta); s1.apply(hdr, meta);"),]:
    CASES.append(case(f"opens2_union_copy_past_a_sub_control_with_{_name}", CAT, program(
        "        hdr.u.x = hdr.h; hdr.u.w.setValid(); " + _body + "\n" + _UV, **_UD), frames=_UF))


# (4) errs19's open item, update_checksum of a struct expression: p4c 1.2.4.8 compiles one of fields
# and constants; bare and flat, simple_switch runs it (the others: load refusals,
# tests/p4c/test_load_refused2.py).  checkmate-p4c refused it as a computation.
_ST = "struct in_t { bit<8> x; bit<8> y; }\n"
_CKF = [(1, H(a, b, c, d=0x10)) for a, b, c in ((1, 2, 0), (0x7f, 0x80, 0xffff), (0, 0, 0x1234), (0xee, 0x11, 5))]
for _name, _kw in [
        ("update", dict(compute="apply { update_checksum(hdr.h.isValid(), (in_t){ x = hdr.h.a, y = hdr.h.b }, "
                                "hdr.h.c, HashAlgorithm.csum16); }")),
        ("update_crc16_from_metadata", dict(compute="apply { update_checksum(true, (in_t){ x = meta.m8, y = hdr.h.b }, "
                                                    "hdr.h.c, HashAlgorithm.crc16); }", ingress="        meta.m8 = hdr.h.a + 1;\n")),
        ("verify", dict(verify="apply { verify_checksum(hdr.h.isValid(), (in_t){ x = hdr.h.a, y = hdr.h.b }, "
                               "hdr.h.c, HashAlgorithm.csum16); }",
                        ingress="        hdr.h.d = (bit<32>)sm.checksum_error;\n")),]:
    CASES.append(case(f"opens2_checksum_of_a_flat_struct_expression_{_name}", CAT, program(
        _kw.pop("ingress", ""), top=_ST, **_kw), frames=_CKF))

# (5) `int<8> ++ bit<8>` with a run-time operand, measured again on p4c 1.2.4.8 (helper opens2):
# refused wherever the run-time value survives its mid end ("Cannot cast from 'bit<8>' to
# 'int<16>'": a local's initializer, `bit ++ int`, metadata operands, a condition, an action, a
# function -- without a position there -- and tests/conformance/programs/concat_sign.p4 at its
# line 26); checkmate-p4c compiles those on purpose (the spec and later p4c take them:
# docs/conformance/CORPUS.md).  What p4c 1.2.4.8 compiles, on BMv2:
_CF = [(1, H(a, b)) for a in (0x01, 0x90, 0xff) for b in (0x00, 0x81)]
for _name, _body in [
        ("both_signed", "int<16> x = (int<8>)hdr.h.a ++ (int<8>)hdr.h.b; hdr.h.c = (bit<16>)x; hdr.h.d = (bit<32>)(bit<16>)(x >> 4);"),
        ("constant_right_operand", "int<16> x = (int<8>)hdr.h.a ++ 8w0x81; hdr.h.c = (bit<16>)x; hdr.h.d = (bit<32>)(bit<16>)(x >> 4);"),
        ("constant_signed_left_operand", "int<16> x = 8s5 ++ (int<8>)hdr.h.b; hdr.h.c = (bit<16>)(x >> 2);"),
        ("unused_local", "int<16> x = (int<8>)hdr.h.a ++ hdr.h.b; hdr.h.c = 16w1;"),
        ("dead_store", "int<16> x = (int<8>)hdr.h.a ++ hdr.h.b; x = -3; hdr.h.c = (bit<16>)x;"),
        ("removed_branch", "if (false) { hdr.h.c = (bit<16>)((int<8>)hdr.h.a ++ hdr.h.b); } hdr.h.b = 2;"),]:
    CASES.append(case(f"opens2_mixed_sign_concatenation_{_name}", "expressions", program("        " + _body + "\n"),
                      frames=_CF))

# (3) corpus20's open item: which of two deprecated calls (clone3 / resubmit(data) /
# recirculate(data)) p4c converts first -- both errors name only the call ("clone3: unknown extern
# function", at v1model.p4), so the order shows in which name comes first.  p4c 1.2.4.8 (probed,
# /tmp/o2/dep, 26 programs): the controls in declaration order; in each, its actions in the order
# of its locals once sub-controls are inlined (an instance's actions where it is declared, a
# directly applied one's after the control's own), then its body in order, the applied
# sub-controls' bodies in place.  checkmate-p4c named a directly applied sub-control's body last
# and took the body calls in V1Switch's order.  name -> (program, words the message must contain)
_DT = "    table t { key = { hdr.h.a: exact; } actions = { a; NoAction; } default_action = NoAction(); }\n"
_SUB_C3 = "control S(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { clone3(CloneType.I2E, 32w5, meta); } }\n"
_SUB_RS = ("control S(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {\n"
           "    action b() { resubmit(meta); }\n    apply { b(); } }\n")

# ... and found beside it: a clone (or resubmit, recirculate, digest) in a function is judged by
# p4c where the function is inlined, with the caller's control -- clone_preserving_field_list(I2E)
# in a function called from ingress compiles and runs; checkmate-p4c judged a function taking a
# struct `inout` as if it ran in the parser ("only allowed in ingress or egress"), and a function's
# deprecated call was raised at the call ahead of the caller's actions (fn probes, 13 programs).
_FN = ("void fcl(inout meta_t m) { m.m8 = 1; clone_preserving_field_list(CloneType.I2E, 32w5, 8w0); }\n"
       "void fce(inout meta_t m) { m.m8 = 2; clone_preserving_field_list(CloneType.E2E, 32w5, 8w0); }\n")
for _name, _kw in [("in_ingress", dict(ingress="        fcl(meta); hdr.h.b = meta.m8;\n")),
                   ("e2e_in_egress", dict(egress="        if (sm.instance_type == 0) { fce(meta); } hdr.h.b = meta.m8;\n")),]:
    CASES.append(case(f"opens2_clone_in_a_function_called_{_name}", CAT, program(_kw.pop("ingress", ""), top=_FN, **_kw),
                      frames=[(1, H(a, 0, 3, d=0x10)) for a in (1, 2)], clones={5: ([(3, 0)], 0)}, one_by_one=True))

_RT = "struct in_t { bit<8> x; bit<8> y; }\nstruct out_t { in_t i; bit<16> z; }\n"
_RN = "    register<out_t>(32w4) r;\n"


def _egress_first(src: str) -> str:
    """``src`` (the skeleton) with control E declared above control I."""
    i, e, cc = src.index("control I("), src.index("control E("), src.index("control CC(")
    return src[:i] + src[e:cc] + src[i:e] + src[cc:]


INVALID: dict[str, tuple[str, tuple]] = {
    "opens2_deprecated_sub_control_body_before_egress_action": (program(
        "        S.apply(hdr, meta, sm);\n", egress="        t.apply();\n", top=_SUB_C3,
        egress_decls="    action a() { recirculate(meta); }\n" + _DT), ("clone3",)),
    "opens2_deprecated_own_action_before_a_directly_applied_sub_controls_action": (program(
        "        t.apply(); S.apply(hdr, meta, sm);\n", top=_SUB_RS,
        ingress_decls="    action a() { clone3(CloneType.I2E, 32w5, meta); }\n" + _DT), ("clone3",)),
    "opens2_deprecated_sub_control_applied_first_still_after_own_action": (program(
        "        S.apply(hdr, meta, sm); t.apply();\n", top=_SUB_RS,
        ingress_decls="    action a() { clone3(CloneType.I2E, 32w5, meta); }\n" + _DT), ("clone3",)),
    "opens2_deprecated_egress_body_declared_first": (_egress_first(program(
        "        clone3(CloneType.I2E, 32w5, meta);\n", egress="        recirculate(meta);\n")), ("recirculate",)),
    "opens2_deprecated_egress_sub_control_body_declared_first": (_egress_first(program(
        "        clone3(CloneType.I2E, 32w5, meta);\n", egress="        S.apply(hdr, meta, sm);\n",
        top=_SUB_C3.replace("clone3(CloneType.I2E, 32w5, meta)", "recirculate(meta)"))), ("recirculate",)),
    "opens2_deprecated_call_in_a_function_after_the_controls_action": (program(
        "        t.apply(); f3(meta);\n", top="void f3(inout meta_t m) { clone3(CloneType.I2E, 32w5, m); }\n",
        ingress_decls="    action a() { resubmit(meta); }\n" + _DT), ("resubmit",)),
    "opens2_e2e_clone_in_a_function_called_from_ingress": (program(
        "        fce(meta);\n", top=_FN), ("not invoked in egress",)),
    # guards (agreeing before): an instance declared above the action, a sub-control's action
    # before the body's call, the body's own order, actions in declaration order
    "opens2_deprecated_instance_declared_before_the_action": (program(
        "        t.apply(); s.apply(hdr, meta, sm);\n", top=_SUB_RS,
        ingress_decls="    S() s;\n    action a() { clone3(CloneType.I2E, 32w5, meta); }\n" + _DT), ("resubmit",)),
    "opens2_deprecated_sub_control_action_before_the_body": (program(
        "        clone3(CloneType.I2E, 32w5, meta); S.apply(hdr, meta, sm);\n", top=_SUB_RS), ("resubmit",)),
    "opens2_deprecated_body_order": (program(
        "        resubmit(meta); clone3(CloneType.I2E, 32w5, meta);\n"), ("resubmit",)),
    # (4) a struct expression in checksum data: the result field inside it is p4c's "tmp.x = hdr.h.a:
    # Only calls to update_checksum ... allowed" (no position); a computation inside it p4c's
    # "Computations are not supported in update_checksum" at the call's line
    "opens2_checksum_slice_of_the_result_field_inside_a_struct_expression": (program("", top=_ST, compute=(
        "apply { update_checksum(true, (in_t){ x = hdr.h.a, y = hdr.h.c[7:0] }, hdr.h.c, HashAlgorithm.csum16); }")),
        ("computations",)),
    "opens2_checksum_result_field_inside_a_flat_struct_expression": (program("", top=_ST.replace("bit<8> y", "bit<16> y"), compute=(
        "apply { update_checksum(true, (in_t){ x = hdr.h.a, y = hdr.h.c }, hdr.h.c, HashAlgorithm.csum16); }")),
        ("result field",)),
    "opens2_checksum_result_field_inside_a_nested_struct_expression": (program("", top=_ST + "struct o_t { in_t i; bit<16> z; }\n", compute=(
        "apply { update_checksum(true, (o_t){ i = { hdr.h.a, hdr.h.b }, z = hdr.h.c }, hdr.h.c, HashAlgorithm.csum16); }")),
        ("result field",)),
    "opens2_checksum_computation_inside_a_struct_expression": (program("", top=_ST, compute=(
        "apply { update_checksum(true, (in_t){ x = hdr.h.a, y = hdr.h.b + 1 }, hdr.h.c, HashAlgorithm.csum16); }")),
        ("computations",)),
    # (4) errs19's other open item, a register of a struct: p4c's mid end refuses a read it keeps --
    # of a nested struct at the call ("extern functions with 'out' nested struct argument (result)
    # not supported"), of a flat one at the result ("writing to a structure is not supported") --
    # before its back end refuses the instance at its declaration ("Only registers with bit or int
    # types"), which is the error without a kept read (written only, unused, read in an unused
    # action or a branch p4c removes).  checkmate-p4c named the declaration.
    **{f"opens2_register_of_a_struct_{_n}": (program(_b, headers=_RT, meta="    out_t o;\n    in_t i;\n",
                                                     ingress_decls=_d), _w) for _n, _b, _d, _w in [
        ("nested_read", "        out_t v; r.read(v, 0); hdr.h.b = v.i.x;\n", _RN, ("nested struct",)),
        ("nested_read_into_a_member", "        r.read(meta.o, 0); hdr.h.b = meta.o.i.x;\n", _RN, ("nested struct",)),
        ("nested_read_after_a_write", "        r.write(0, meta.o); r.read(meta.o, 1);\n", _RN, ("nested struct",)),
        ("nested_read_in_an_action", "        a();\n", _RN + "    action a() { r.read(meta.o, 0); }\n", ("nested struct",)),
        ("flat_read", "        r.read(meta.i, 0); hdr.h.b = meta.i.x;\n", _RN.replace("out_t", "in_t"), ("writing to a structure",)),
        ("nested_written_only", "        r.write(0, meta.o);\n", _RN, ("Only registers",)),
        ("nested_unused", "", _RN, ("Only registers",)),
        ("nested_read_in_an_unused_action", "", _RN + "    action a() { r.read(meta.o, 0); }\n", ("Only registers",)),
        ("nested_read_in_a_removed_branch", "        if (false) { r.read(meta.o, 0); }\n", _RN, ("Only registers",))]},
    "opens2_deprecated_actions_in_declaration_order": (program(
        "        b(); a();\n", ingress_decls="    action a() { resubmit(meta); }\n"
        "    action b() { clone3(CloneType.I2E, 32w5, meta); }\n"), ("resubmit",)),
}

# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
