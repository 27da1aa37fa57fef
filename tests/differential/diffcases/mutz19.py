"""Found by helper mutz19 (issue #15, tools/p4c_mutate.py seeds 44-51), each decided by real
p4c 1.2.4.8 / BMv2 1.15.5.

p4c's midend propagates a constant held in a local variable or a field into a later ``if`` and
removes the branch it makes dead before its BMv2 back end checks the tables: a table applied
twice on one path, or at two places followed by different statements, there is no error.
checkmate-p4c counted every branch (seed 46, ``dup_apply`` of ``fuzzm_table_only_in_folded_branch``:
"applied more than once on one execution path"); the branches its constant propagation
(const_index.py) proves dead are now left out of both checks.

p4c's strength reduction also folds a branch condition where an operator's two operands fold
(``(x - x) ++ 8w1 == 1``), where a ``?:`` has a constant condition or two equal arms and no
call (``(c ? x : x) - x == 0``, ``(c ? 8w0 : 8w0) == 1``): the ``if`` is then no conditional
execution in an action (an extern call inside it is fine) and a table applied only in its dead
branch is not in the P4Info.  checkmate-p4c folded none of these (the open item of branch
conditions p4c reduces; ``a == a``, ``a != a`` and a local constant ``x == 3`` p4c does not fold
there, probed)."""
from .base import H, Entry, case, program

CAT = "front end (p4c-compatible)"

_T = """    action a(bit<8> v) { hdr.h.b = hdr.h.b + v; }
    table t { key = { hdr.h.a: exact; } actions = { a; } }
    table t2 { key = { hdr.h.a: exact; } actions = { a; } }
    table t3 { key = { hdr.h.a: exact; } actions = { a; } }"""

CASES = [
    case("mutz19_tables_applied_twice_in_midend_folded_branches", CAT, program("""
        bit<16> v = 2;
        if (v <= 5) { hdr.h.c = 0x11; } else { t.apply(); t.apply(); }
        meta.m8 = 3;
        if (meta.m8 == 3) { t2.apply(); } else { t2.apply(); t2.apply(); }
        if (v > 5) { t3.apply(); hdr.h.d = 1; } else { t3.apply(); hdr.h.d = 2; }
""", ingress_decls=_T),
         # (t is applied only in a branch p4c removes: in its P4Info, not in its BMv2 JSON)
         entries=[Entry(f"I.{t}", {"hdr.h.a": 1}, "I.a", {"v": k}) for t, k in (("t2", 5), ("t3", 9))],
         frames=[(1, H(1, 1)), (1, H(2, 1))]),
]

CASES.append(case("mutz19_branch_conditions_p4c_folds", CAT, program("""
        t.apply();
        if ((hdr.h.a - hdr.h.a) ++ 8w1 == 2) { t2.apply(); }
        if ((hdr.h.b == 1 ? 8w0 : 8w0) == 1) { t3.apply(); } else { hdr.h.d = 5; }
        if (((hdr.h.a - hdr.h.a) == 0 ? 8w1 : 8w2) == 1) { hdr.h.c = 9; }
""", ingress_decls="""    counter(4, CounterType.packets) cnt;
    action a(bit<8> v) {
        hdr.h.b = v;
        if ((hdr.h.b == 1 ? hdr.h.a : hdr.h.a) - hdr.h.a == 0) { cnt.count(1); }
        if ((hdr.h.a - hdr.h.a) ++ (hdr.h.a - hdr.h.a) != 0) { cnt.count(2); }
    }
    table t { key = { hdr.h.a: exact; } actions = { a; } }
    table t2 { key = { hdr.h.a: exact; } actions = { NoAction; } }
    table t3 { key = { hdr.h.a: exact; } actions = { NoAction; } }"""),
    # (t2 and t3 are applied only in branches p4c removes: not in its P4Info or BMv2 JSON)
    entries=[Entry("I.t", {"hdr.h.a": 1}, "I.a", {"v": 4})],
    frames=[(1, H(1, 1)), (1, H(2, 1)), (1, H(1, 3))]))
