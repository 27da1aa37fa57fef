"""Found by helper opens3 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch must match."""
from .base import H, H2, case, program

CAT = "front end (p4c-compatible)"

# fuzz_mutants seed 2636 (--kinds action_if,stack_op,union_op: action_if on fuzz29_action_header_copy_
# back_drops_the_body_s_a_set_valid_and_a_field): `a0(hdr.h2)` with `action a0(inout h_t q)` copies q
# back over hdr.h2 whole (assign_header, which from an invalid q only marks hdr.h2 invalid), so p4c's
# def-use drops the body's stores to hdr.h2 -- also under an `if`, before its Predication sees them
# (p4c's JSON: copy-in, add_header, copy-back; BMv2 reads hdr.h2.c 0 when h2 was not parsed).
# checkmate-p4c dropped the plain store, not the one in a branch (nor its predicated form): 3.
_FR = [(1, H(1, 2, 0x0102, 4)), (1, H2(1, 0x33, 0x3334, 0x31323334, b=1)), (1, H2(1, 0, 1, 0))]
CASES = [
    case(f"opens3_body_store_in_{name}_overwritten_by_a_header_copy_back", CAT, program(
        "        a0(hdr.h2);\n        hdr.h.c = hdr.h2.c;\n        hdr.h.a = (bit<8>)hdr.h2.d;\n",
        ingress_decls=f"    action a0(inout h_t q) {{ hdr.h2.setValid(); {body} }}\n"), frames=_FR, json_path=True)
    for name, body in (("an_if_else_if", "if (hdr.h2.c != 1) { hdr.h2.c = 3; } else if (hdr.h2.c == 1) { hdr.h2.c = 3; }"),
                       ("an_if", "if (hdr.h2.c != 1) { hdr.h2.c = 3; }"),
                       ("an_if_else", "if (hdr.h2.c != 1) { hdr.h2.c = 3; } else { hdr.h2.d = 9; }"),
                       ("a_nested_if", "if (hdr.h2.c != 1) { if (hdr.h.b == 1) { hdr.h2.c = 3; } }"))
]

# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}

# fuzz_mutants seed 2482 (action_if on fuzz24_conditional_header_initializer_overwritten_by_copy_back):
# `action a1(inout h_t q) { if (q.a != 1) { q.a = q.a + 1; } else if (q.a != 3) { q.a = 3; }
# if (hdr.h.b == 0) { return; } hdr.h2 = {..}; }` called as `a1(hdr.h2)`: the copy-back overwrites the
# store to hdr.h2, p4c's def-use drops it and then RemoveReturns' flag, and its Predication predicates
# the ifs left with its known double update (p4c's JSON: q.a 0 -> 2 on BMv2).  checkmate-p4c dropped
# the store but left the `if (..) { return; }`, so it did not replay the pass and ran the ifs (0 -> 1).
_A1 = ("    action a1(inout h_t q) {{ if (q.a != 1) {{ q.a = q.a + 1; }} else if (q.a != 3) {{ q.a = 3; }}"
       " {ret} hdr.h2 = {{a = 1, b = hdr.h.a, c = 2, d = 3}}; }}\n    action a2() {{ a1(hdr.h2); }}\n")
_FR1 = [(1, H2(a, b=b)) for a in range(4) for b in (0, 7)]
CASES += [
    case(f"opens3_predicated_double_update_past_{name}_before_a_store_the_copy_back_overwrites_{how}", CAT, program(
        call + "        hdr.h.d = (bit<32>)hdr.h2.a;\n", ingress_decls=_A1.format(ret=ret)), frames=_FR1, json_path=True)
    for name, ret in (("a_conditional_return", "if (hdr.h.b == 0) { return; }"),
                      ("a_conditional_return_in_a_block", "{ if (hdr.h.b == 0) { return; } }"))
    for how, call in (("called_directly", "        a1(hdr.h2);\n"), ("called_from_an_action", "        a2();\n"))
]
