"""Disagreements found by helper fuzz24 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import H, case, program

CAT = "front end (p4c-compatible)"

CASES = []

_EN = "enum bit<4> En_t { A = 1, B = 5, C = 9 }\n"

# fuzz21's `fuzz21_enum_cast_comparison_not_folded` with the enum cast from a constant expression
# rather than a literal (fuzz_exprs seed 7804: `(En_t)(9w29)[8:1] == En_t.C`): p4c's constant
# folding makes the operand a constant first, the cast stays, and the comparison is not folded,
# so the tables after `return` stay in the P4Info.  checkmate-p4c marked only a cast of a literal
# and folded the rest (t1, t2 missing from its P4Info).
CASES.append(case("fuzz24_enum_cast_of_a_constant_expression_not_folded", CAT, program("""
        if (hdr.h.a == 1) {
            if ((En_t)(8w0x5c)[7:4] != En_t.C) { return; }
            t1.apply();
        } else if (hdr.h.a == 2) {
            if ((En_t)(4w2 + 4w4) != En_t.C) { return; }
            t2.apply();
        } else if (hdr.h.a == 3) {
            if ((En_t)(bit<4>)8w0x15 == En_t.B) { return; }
            t3.apply();
        } else if (hdr.h.a == 4) {
            if (En_t.C != (En_t)(4w4 |+| 4w7) && hdr.h.b != 0) { return; }
            t4.apply();
        }
""", top=_EN, ingress_decls="""
    action s(bit<8> v) { hdr.h.b = v; }
    table t1 { key = { hdr.h.c: exact; } actions = { s; } default_action = s(1); }
    table t2 { key = { hdr.h.c: exact; } actions = { s; } default_action = s(2); }
    table t3 { key = { hdr.h.c: exact; } actions = { s; } default_action = s(3); }
    table t4 { key = { hdr.h.c: exact; } actions = { s; } default_action = s(4); }
"""), frames=[(1, H(a, b, 3)) for a in (1, 2, 3, 4, 5) for b in (0, 1)]))
