"""Disagreements found by helper fuzz19 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.

p4c's def-use pass (SimplifyDefUse, its write sets from ComputeWriteSet) sees through a
``switch``: the paths are the case bodies and -- for a switch on a value always (p4c's
"conservative" join, a ``default`` notwithstanding), for one on ``t.apply().action_run`` unless
it has a ``default`` or as many cases as ``t`` has actions, or when a label falls through -- the
path past every case.  So a union-member store before a switch that does not read the member is
dead when every path overwrites it (BMv2 then keeps the member's parsed sibling valid), and so is
one in a case body overwritten after the switch.  checkmate-p4c took every switch as a read.
"""
from .base import Entry, H, case, program
from .fuzz18 import _U

CAT = "front end (p4c-compatible)"

_VALID = "        hdr.h.c = (bit<16>)((bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.x.isValid());\n"
_TABLES = "".join(f"    table {t} {{ key = {{ hdr.h.b: exact; }} actions = {{ s1; s2; }}{d} }}\n" for t, d in (
    ("t", " default_action = s1();"), ("t2", " default_action = s1();"), ("t3", " default_action = s1();"),
    ("t4", ""), ("t5", " default_action = s1();")))

CASES = []

# d 0: every case of a value switch overwrites, a default among them: kept (p4c joins the path
# past the cases anyway).  d 1: no default: kept.  d 2: the switch does not touch the member,
# the store after it overwrites: dead.  d 3: a case reads it: kept.  d 4: a case per action of
# t's switch, each overwriting: dead.  d 5: one action has no case: kept.  d 6: a store in a case,
# overwritten after the switch: dead.  d 7: a label falling through: kept.  d 8: t4 has no
# default_action (NoAction joins its actions): kept.  d 9: a default among the cases: dead.
CASES.append(case("fuzz19_union_store_dead_through_switch", CAT, program("""
        if (hdr.h.d == 0) { hdr.u.x = hdr.h; switch (hdr.h.b) { 1: { hdr.u.x = hdr.h2; } default: { hdr.u.x = hdr.h2; } } }
        else if (hdr.h.d == 1) { hdr.u.x = hdr.h; switch (hdr.h.b) { 1: { hdr.u.x = hdr.h2; } 2: { hdr.u.x = hdr.h2; } } }
        else if (hdr.h.d == 2) { hdr.u.x = hdr.h; switch (hdr.h.b) { 1: { meta.m8 = 5; } 2: { meta.m8 = 6; } } hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 3) { hdr.u.x = hdr.h; switch (hdr.h.b) { 1: { meta.m8 = hdr.u.x.b; } } hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 4) { hdr.u.x = hdr.h; switch (t.apply().action_run) { s1: { hdr.u.x = hdr.h2; } s2: { hdr.u.x = hdr.h2; } } }
        else if (hdr.h.d == 5) { hdr.u.x = hdr.h; switch (t2.apply().action_run) { s1: { hdr.u.x = hdr.h2; } } }
        else if (hdr.h.d == 6) { switch (hdr.h.b) { 1: { hdr.u.x = hdr.h; } default: { meta.m8 = 1; } } hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 7) { hdr.u.x = hdr.h; switch (t3.apply().action_run) { s1: s2: { hdr.u.x = hdr.h2; } } }
        else if (hdr.h.d == 8) { hdr.u.x = hdr.h; switch (t4.apply().action_run) { s1: { hdr.u.x = hdr.h2; } s2: { hdr.u.x = hdr.h2; } } }
        else if (hdr.h.d == 9) { hdr.u.x = hdr.h; switch (t5.apply().action_run) { s1: { hdr.u.x = hdr.h2; } default: { hdr.u.x = hdr.h2; } } }
""" + _VALID, ingress_decls="    action s1() { meta.m8 = 1; }\n    action s2(bit<8> v) { meta.m8 = v; }\n" + _TABLES,
    **_U), frames=[(1, H(a, b, 2, d=d, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3, 4)
                   for d in range(10) for b in (1, 2)],
    entries=[Entry(t, {"hdr.h.b": 2}, "s2", {"v": 7}) for t in ("t", "t2", "t3", "t4", "t5")]))


# A table action's union-member store where the table is applied in a switch (d 0, 2) or in a
# condition (d 1), overwritten after it: p4c drops the store from that table's copy of the
# action (d 0, 1), unless a case reads the member (d 2).
CASES.append(case("fuzz19_table_action_store_dead_after_switch_or_condition", CAT, program("""
        if (hdr.h.d == 0) { switch (ta.apply().action_run) { default: { meta.m8 = 3; } } hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 1) { if (tb.apply().hit) { meta.m8 = 3; } hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 2) { switch (tc.apply().action_run) { e: { meta.m8 = hdr.u.x.a; } } hdr.u.x = hdr.h2; }
""" + _VALID, ingress_decls="    action e() { hdr.u.x = hdr.h; }\n    action s2(bit<8> v) { meta.m8 = v; }\n" + "".join(
        f"    table {t} {{ key = {{ hdr.h.b: exact; }} actions = {{ e; s2; }} default_action = e(); }}\n" for t in ("ta", "tb", "tc")),
    **_U), frames=[(1, H(a, b, 2, d=d, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3, 4)
                   for d in range(3) for b in (1, 2)],
    entries=[Entry(t, {"hdr.h.b": 2}, "s2", {"v": 7}) for t in ("ta", "tb", "tc")]))


# Inside a switch's case: an action's copy-back (d 0) and a sub-control body's store (d 1, the
# caller overwrites after the apply) are dead when what follows the switch overwrites the member;
# not when a later case of the same path reads it (d 2: the table's action reads it).
CASES.append(case("fuzz19_union_copy_back_in_switch_case_dead", CAT, program("""
        if (hdr.h.d == 0) { switch (hdr.h.b) { 1: { a(hdr.u.x); } default: { } } hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 1) { sd.apply(hdr); hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 2) { switch (hdr.h.b) { 1: { a(hdr.u.x); } } tr.apply(); hdr.u.x = hdr.h2; }
""" + _VALID, top="""
control Sd(inout headers_t h) { apply { switch (h.h.b) { 1: { h.u.x = h.h; } default: { } } } }
""", ingress_decls="""    Sd() sd;
    action a(out h_t p) { p = {9, 9, 9, 9}; }
    action r() { meta.m8 = hdr.u.x.a; }
    table tr { key = { hdr.h.b: exact; } actions = { r; } default_action = r(); }
""", **_U), frames=[(1, H(a, b, 2, d=d, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3, 4)
                    for d in range(3) for b in (1, 2)]))
