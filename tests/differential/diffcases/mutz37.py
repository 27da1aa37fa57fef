"""Found by helper mutz37 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch must match."""
from .base import H, H2, case, program
from .fuzz14 import _UDEPARSER, _UNION, _UPARSER, _UVALID
from .fuzz25 import _W, _w
from .mutz23 import _VBD, _VBP

CAT = "front end (p4c-compatible)"

# fuzz_mutants seed 2815 (action_if on fuzz14_union_store_overwritten_by_action_out_copy): the store
# `hdr.u.x = {1, 2, 3, 4}` that the copy-out of `a1(out h_t y)` overwrites is dropped by p4c's def-use
# also when a1's body returns early (`if (hdr.h.b == 0) { return; }`): RemoveReturns puts the rest under
# `if (!hasReturned)` and the copy-out `hdr.u.x = y` runs after it on every path, so BMv2 keeps the parsed
# sibling hdr.u.w valid (h.d = 1, u.w emitted).  checkmate-p4c took the `return` for the end of the path
# and kept the store, which invalidated u.w.  A body that reads hdr.u.x past the return keeps it.
_A1 = {
    "a_conditional_return": "if (hdr.h.b == 0) { return; } hdr.h.b = 5;",
    "a_return_at_its_end": "hdr.h.b = 5; return;",
    "a_return_in_an_else_if": "if (hdr.h.a == 9) { hdr.h.b = 1; } else if (hdr.h.b == 0) { return; } hdr.h.b = 5;",
    "a_read_of_the_member_past_a_return_keeping_it": "if (hdr.h.a == 9) { return; } hdr.h.b = hdr.u.x.b;",
}
CASES = [
    case(f"mutz37_union_store_overwritten_by_an_out_copy_of_an_action_with_{name}", CAT, program("""
        if (hdr.h.b == 0) { hdr.u.x = {1, 2, 3, 4}; hdr.h.c = 7; a1(hdr.u.x); }
        else { hdr.u.v = {9, 8, 7, 6}; a2(hdr.u.v); }
""" + _UVALID, headers=_UNION, fields="    u_t u;\n", parser=_UPARSER, deparser=_UDEPARSER, ingress_decls=f"""
    action a1(out h_t y) {{ {body} }}
    action a2(out h_t y) {{ hdr.h.b = hdr.u.v.b; }}"""),
        frames=[(1, H(3, b, payload=bytes([1, 0x6c, 0xf3]))) for b in (0, 1)] + [(1, H(2))], json_path=True)
    for name, body in _A1.items()
]

# fuzz_mutants seed 2955 (action_if on fuzz25_action_if_assigning_a_conditional_expression): p4c's
# front-end SideEffectOrdering dismantles every `?:` on an assignment's right-hand side (and an `if`
# condition, through casts, unary operations and slices) into `if (c) { tmp = a; } else { tmp = b; }
# x = tmp;`, so Predication sees one more `if`: `e1 = (o5[0:0] == 1) ? 4 : o5; if (e1 == 2) { e1 = 7; }`
# in an else branch comes out as `e1 = c4 ? e1 : tmp` twice, the `7` lost (BMv2: e1 = o5 = 2 stays 2).
# checkmate-p4c's replay took the `?:` as an expression and predicated something else (e1 = 1 for
# o5 = 1).
_W3 = {
    "in_an_else_branch": "if (hdr.w.o5[62:62] == 1) { hdr.w.e1 = 3; } else { hdr.w.e1 = (hdr.w.o5[0:0] == 1) ? 64w4 : "
                         "hdr.w.o5; if (hdr.w.e1 == 2) { hdr.w.e1 = 7; } }",
    "at_the_top": "hdr.w.e1 = (hdr.w.o5[0:0] == 1) ? 64w4 : hdr.w.o5; if (hdr.w.e1 == 2) { hdr.w.e1 = 7; }",
    "cast_in_a_then_branch": "if (hdr.w.o5[62:62] == 0) { hdr.w.o3 = (bit<64>)((hdr.w.o5[0:0] == 1) ? 32w4 : "
                             "hdr.w.o5[31:0]); if (hdr.w.o3 == 2) { hdr.w.o3 = 7; } hdr.w.e1 = hdr.w.o3 + 1; }",
    "nested_in_an_arm": "if (hdr.w.o5[62:62] == 0) { hdr.w.e1 = (hdr.w.o5[0:0] == 1) ? 64w4 : ((hdr.w.o5[1:1] == 1) "
                        "? 64w5 : hdr.w.o5); if (hdr.w.e1 == 2) { hdr.w.e1 = 7; } }",
}
CASES += [
    case(f"mutz37_action_conditional_expression_dismantled_before_predication_{name}", CAT, program(
        "        a3();\n", headers=_W, fields="    w_t w;\n",
        parser="    state start { pkt.extract(hdr.eth); pkt.extract(hdr.w); transition accept; }",
        deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.w);",
        ingress_decls=f"    action a3() {{ {body} }}\n"),
        frames=[(1, _w(o5, e1)) for o5 in (1, 2, 0x4000000000000002, 0x4000000000000001, 6) for e1 in (5, 2)])
    for name, body in _W3.items()
]

# fuzz_mutants seeds 2945 and 2981 (action_if on fuzz29_action_header_copy_back_drops_the_body_s_*):
# the body's store `hdr.h2.c = 3`, which the copy-back of `a0(inout h_t q)` called with hdr.h2
# overwrites, is dead to p4c's def-use also past an `if` on other fields (2945), and also when an
# `if` reads it whose only store, `hdr.h2.c = 7`, the copy-back overwrites too (2981): p4c's first
# def-use drops the 7, SimplifyControlFlow the emptied `if` and its read, the second def-use the 3.
# p4c's JSON has neither store; BMv2 reads h2.c 0 after the copy-back of the invalid h2 (where h2
# was not parsed).  checkmate-p4c stopped at the `if`, and kept the store its read had kept.  A store
# the `if` reads, with a live store in it, stays.
_FR_OPT = [(1, H(1, 2, 0x0102, 0x03040506)), (1, H(1, 0, 0x0102, 0x03040506)),
           (1, H2(0x31, 0x32, 0x3334, 0x35363738, b=1))]
_A0 = {
    "past_an_if_on_other_fields": "hdr.h2.setValid(); hdr.h2.c = 3; if (hdr.h.b == 0) { hdr.h.b = hdr.h2.b; "
                                  "hdr.h.b = hdr.h.b + 2; } else { hdr.h.b = hdr.h2.b; }",
    "read_by_an_if_emptied_by_the_def_use": "hdr.h2.setValid(); hdr.h2.c = 3; if (hdr.h2.c == 2) { hdr.h2.c = 7; }",
    "read_by_an_if_with_an_else_emptied": "hdr.h2.setValid(); hdr.h2.c = 3; if (hdr.h2.c == 2) { hdr.h2.c = 7; } "
                                          "else { hdr.h2.a = 1; }",
    "read_by_an_if_kept_by_a_live_store": "hdr.h2.setValid(); hdr.h2.c = 3; if (hdr.h2.c == 3) { hdr.h.b = 7; }",
}
CASES += [
    case(f"mutz37_action_body_store_overwritten_by_a_header_copy_back_{name}", CAT, program(
        "        a0(hdr.h2);\n        hdr.h.c = hdr.h2.c;\n        hdr.h.a = (bit<8>)hdr.h2.d;\n",
        ingress_decls=f"    action a0(inout h_t q) {{ {body} }}\n"), frames=_FR_OPT)
    for name, body in _A0.items()
]

# fuzz_mutants seed 3046 (union_op on copyback11_union_in_struct_member_by_member): a field store that a
# later assignment of its whole header, union or struct overwrites before any read is dropped by p4c's
# front-end def-use -- `hdr.u.q.v = 0x77;` before `{ U tmp_u; tmp_u.p.setValid(); hdr.u = tmp_u; }`, or
# `hdr.h2.a = 0x77;` before `{ h_t t; hdr.h2 = t; }` -- and where that assignment's source is invalid
# BMv2's assign_header only marks the destination invalid: the field reads what it held before (0
# here: nothing else writes it), not 0x77.  checkmate-p4c ran the store.  (The seed's frame after one
# that wrote u.q.v reads BMv2's stale PHV: left to the pool.)
_UG = "header g_t { bit<8> v; bit<8> w; }\nheader_union U { h_t p; g_t q; }\n"
_WHOLE = {
    "a_union_from_a_local_in_a_block": "        hdr.u.q.v = 0x77;\n        { U tmp_u; tmp_u.p.setValid(); hdr.u = tmp_u; }\n"
                                       "        hdr.u.p = hdr.h;\n",
    "a_union_from_a_local": "        hdr.u.q.v = 0x77;\n        U tmp_u; tmp_u.p.setValid(); hdr.u = tmp_u;\n        hdr.u.p = hdr.h;\n",
    "a_union_member_from_a_local": "        hdr.u.q.v = 0x77;\n        { g_t t; hdr.u.q = t; }\n",
    "a_header_from_a_local": "        hdr.h2.a = 0x77;\n        { h_t t; hdr.h2 = t; }\n        hdr.u.q.v = hdr.h2.a;\n",
    "a_header_past_an_if_kept_by_a_read": "        hdr.h2.a = 0x77;\n        if (hdr.h.b == 1) { hdr.h.d = (bit<32>)hdr.h2.a; }\n"
                                          "        { h_t t; hdr.h2 = t; }\n        hdr.u.q.v = hdr.h2.a;\n",
}
CASES += [
    case(f"mutz37_field_store_dropped_before_an_assignment_of_{name}", CAT, program(
        body + "        hdr.h.b = hdr.u.q.v;\n        hdr.h.c = (hdr.u.p.isValid() ? 16w1 : 16w2) + (hdr.u.q.isValid() ? 16w16 : 16w32);\n",
        headers=_UG, fields="    U u;\n"), frames=[(1, H(1, 2, 3, 4)), (1, H(0x22, 1, 3, 4))])
    for name, body in _WHOLE.items()
]

# fuzz_mutants seed 3209 (sub_wrap on mutz23_hash_into_varbit_field): p4c's JSON for a hash into a varbit
# field (`modify_field_with_hash_based_offset` on vb.v) failed in checkmate-switch at the first packet
# (the BMv2-JSON loader typed the hash's value as the varbit itself); BMv2 writes the hash as the
# field's value.  The base case too, which ran on checkmate-p4c's build only.
CASES += [
    case(f"mutz37_hash_into_a_varbit_field_on_p4c_json{name}", CAT, program(
        body, headers="header vb_t { varbit<32> v; }\n", fields="    vb_t vb;\n", parser=_VBP, deparser=_VBD, top=top,
        forward=not top, ingress_decls="    S() s;\n" if top else ""),
        frames=[(1, H(5, 0, 0, 0)), (1, H(9, 1, 0, 0)), (1, H(9, 2, 0, 0)), (1, H(7, 4, 0, 0))], json_path=True)
    for name, body, top in (
        ("", "        hash(hdr.vb.v, HashAlgorithm.crc16, 16w0, { hdr.h.a }, 16w1024);\n", ""),
        ("_after_a_sub_control", "        s.apply(hdr, meta, sm);\n        hash(hdr.vb.v, HashAlgorithm.crc16, 16w0, { hdr.h.a }, 16w1024);\n",
         "control S(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { sm.egress_spec = 1; } }\n"))
]

# p4c_mutate seed 346 (table_extern on mutz36_unapplied_sub_control_instance_with_an_action_profile, its
# `implementation` dropped): an action profile or selector that no table uses, declared in a sub-control
# instance nothing applies, goes with the instance in p4c -- not in its P4Info; checkmate-p4c listed it
# (it kept every unattached profile; one in an applied instance stays, as in p4c).
_BAD = ("control Bad(inout h_t h) {{\n    action a() {{ h.b = 1; }}\n    {decl}\n"
        "    table t {{ key = {{ h.a: exact; }} actions = {{ a; NoAction; }} }}\n    apply {{ t.apply(); }}\n}}\n")
CASES += [
    case(f"mutz37_unused_{name}_of_{'an_applied' if applied else 'an_unapplied'}_sub_control_instance",
         "front end: P4Info as p4c's", program("        hdr.h.c = 3;\n" + ("        c2.apply(hdr.h);\n" if applied else ""),
                                               top=_BAD.format(decl=decl), ingress_decls="    Bad() c2;\n"), frames=[(1, H(1, 2, 3, 4))])
    for name, decl in (("action_profile", "action_profile(32w16) t_x;"),
                       ("action_selector", "action_selector(HashAlgorithm.crc16, 32w16, 32w8) t_x;"))
    for applied in (False, True)
]

# fuzz_mutants seeds 2939 and 2942 (exit_stmt on fuzz21_single_case_switch_enum_cast_return and
# fuzz23_single_case_switch_copies_past_enclosing_blocks): a `return` under an `if` the mid end does not
# fold, in the case of a single-case switch, is no "case that returns" (helper fuzz22's p4c mid-end
# flag): RemoveReturns puts the rest of the case under `if (!flag)`, the flag after the switch is
# unknown, and what that rest writes is no copy after the switch -- BMv2 runs `hdr.h.d = hdr.h.d + 1`
# after the switch where no case matched, and reads v's own value.  checkmate-p4c went on past the
# conditional return to a later folded one and dropped the rest of the block, or copied `v = v + 3`.
_SW_RET = {
    "a_later_folded_return": "switch (hdr.h.b) { 22: { hdr.h.a = 7; if (hdr.h.a == 2) { return; } hdr.h.a = hdr.h.a + 3; "
                             "if ((En_t)4w5 != En_t.C) { return; } } }\n        hdr.h.d = hdr.h.d + 1;\n",
    "a_later_plain_return": "switch (hdr.h.b) { 22: { hdr.h.a = 7; if (hdr.h.a == 2) { return; } hdr.h.a = hdr.h.a + 3; "
                            "return; } }\n        hdr.h.d = hdr.h.d + 1;\n",
    "a_local_written_after_it": "bit<8> v = 1;\n        { switch (hdr.h.b) { 22: { v = 2; if (v == 2) { return; } v = v + 3; "
                                "hdr.h.c = 7; } } hdr.h.a = v; }\n        hdr.h.d = (bit<32>)v + (bit<32>)hdr.h.c;\n",
}
CASES += [
    case(f"mutz37_single_case_switch_with_a_conditional_return_before_{name}", CAT, program(
        "        " + body, top="enum bit<4> En_t { A = 1, B = 5, C = 9 }\n"),
        frames=[(1, H(a, b, 3, 4)) for a in (0, 1) for b in (0x15, 22)])
    for name, body in _SW_RET.items()
]
