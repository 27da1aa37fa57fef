"""Disagreements found by helper fuzz20 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.

p4c inlines a sub-control's body at every apply before its def-use pass, and inlines each direct
action call in it after that (InlineActions): an action's copy-back into a header-union member
in the body, and a store in the body of an action called there, are judged with the caller's
statements after the apply -- per apply (``sa.apply(hdr); hdr.u.x = hdr.h2;`` drops them, so BMv2
keeps the parsed ``u.w`` valid; another apply of the same instance without the overwrite keeps
them).  A table in the body is one per instance (applied once): its action's store is dropped
when what follows the apply overwrites it.  checkmate-p4c judged them within the body only
(fuzz18's strict xfail ``fuzz18_subcontrol_body_copy_back_dead_after_apply``, now passing).  A
body two sub-controls deep is judged with the outer body's callers too; the actions and tables a
body runs reach its parameters, which are the caller's arguments there (``union_defuse.in_place``).
"""
from .base import H, case, program
from .fuzz18 import _U

CAT = "front end (p4c-compatible)"

CASES = []

# d 0: Sa's copy-back, overwritten after this apply: dead; d 1: the same instance applied again
# without the overwrite: kept.  d 2: a table in Sd's body reads the member after the copy-back:
# kept.  d 3 / d 4: Se's direct call of e, whose store is dead after d 3's apply only.
CASES.append(case("fuzz20_subcontrol_body_stores_dead_per_apply", CAT, program("""
        if (hdr.h.d == 0) { sa.apply(hdr); hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 1) { sa.apply(hdr); }
        else if (hdr.h.d == 2) { sd.apply(hdr); hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 3) { se.apply(hdr); hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 4) { se.apply(hdr); }
        hdr.h.c = (bit<16>)((bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.x.isValid());
""", top="""
control Sa(inout headers_t h) { action a(out h_t p) { p = {9, 9, 9, 9}; } apply { a(h.u.x); } }
control Sd(inout headers_t h) {
    action a(out h_t p) { p = {9, 9, 9, 9}; }
    action r() { h.h.d = (bit<32>)h.u.x.b; }
    table t2 { key = { h.h.b: exact; } actions = { r; } default_action = r(); }
    apply { a(h.u.x); t2.apply(); }
}
control Se(inout headers_t h) { action e() { h.u.x = h.h; } apply { e(); } }
""", ingress_decls="    Sa() sa; Sd() sd; Se() se;\n", **_U),
    frames=[(1, H(a, b, 2, d=d, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3, 4) for d in range(5) for b in (1, 2)]))


# Per apply and per call: d 0 / d 1: Sn applies Sa in its body, Sn itself is applied twice --
# Sa's copy-back is dead in the copy inlined at d 0's apply only (p4c inlines Sa into Sn, Sn
# into I: one copy each); d 2: Sn2, a second instance applied once.  d 3 / d 4: Sf calls g twice,
# its first store read in the body, the second dead after d 3's apply only.
CASES.append(case("fuzz20_subcontrol_body_stores_dead_per_apply_nested", CAT, program("""
        if (hdr.h.d == 0) { sn.apply(hdr); hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 1) { sn.apply(hdr); }
        else if (hdr.h.d == 2) { sn2.apply(hdr); hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 3) { sf.apply(hdr); hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 4) { sf.apply(hdr); }
        hdr.h.c = (bit<16>)((bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.x.isValid());
""", top="""
control Sa(inout headers_t h) { action a(out h_t p) { p = {9, 9, 9, 9}; } apply { a(h.u.x); } }
control Sn(inout headers_t h) { Sa() sa; apply { sa.apply(h); } }
control Sf(inout headers_t h) {
    action g(in h_t s) { h.u.x = s; }
    apply { g(h.h2); h.h.d = (bit<32>)(bit<1>)h.u.x.isValid(); g(h.h); }
}
""", ingress_decls="    Sn() sn; Sn() sn2; Sf() sf;\n", **_U),
    frames=[(1, H(a, b, 2, d=d, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3, 4) for d in range(5) for b in (1, 2)]))

# The same after other bodies: d 0: a table's store in a body applying it in a switch on its
# action_run (dead); d 1: a copy-back before a conditional exit in the body (kept: the exit path
# never reaches the overwrite); d 2: a copy-back in a branch of the body (dead); d 3: a table
# after the apply whose key reads the member (kept).
CASES.append(case("fuzz20_subcontrol_body_stores_dead_after_apply_paths", CAT, program("""
        if (hdr.h.d == 0) { sb.apply(hdr); hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 1) { sx.apply(hdr); hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 2) { sc.apply(hdr); hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 3) { sa.apply(hdr); tk.apply(); hdr.u.x = hdr.h2; }
        hdr.h.c = (bit<16>)((bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.x.isValid());
""", top="""
control Sa(inout headers_t h) { action a(out h_t p) { p = {9, 9, 9, 9}; } apply { a(h.u.x); } }
control Sb(inout headers_t h) {
    action e() { h.u.x = h.h; }
    table t { key = { h.h.b: exact; } actions = { e; } default_action = e(); }
    apply { switch (t.apply().action_run) { e: { h.h.d = 7; } } }
}
control Sx(inout headers_t h) { action a(out h_t p) { p = {9, 9, 9, 9}; } apply { a(h.u.x); if (h.h.b == 2) { exit; } } }
control Sc(inout headers_t h) { action a(out h_t p) { p = {9, 9, 9, 9}; } apply { if (h.h.b == 1) { a(h.u.x); } } }
""", ingress_decls="""    Sa() sa; Sb() sb; Sx() sx; Sc() sc;
    action nk() { }
    table tk { key = { hdr.u.x.b: exact; } actions = { nk; } default_action = nk(); }
""", **_U), frames=[(1, H(a, b, 2, d=d, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3, 4) for d in range(4) for b in (1, 2)]))

# The caller's paths after the apply: d 0: the apply in a branch, the overwrite after it (dead);
# d 1: a function reads the member first (kept); d 2: a switch whose cases do not read it, then
# the overwrite (dead); d 3: a setValid of the member before the overwrite (p4c drops the
# copy-back whole: the setValid finds the member as the body left it).
CASES.append(case("fuzz20_subcontrol_copy_back_caller_paths", CAT, program("""
        if (hdr.h.d == 0) { if (hdr.h.b == 1) { sa.apply(hdr); } hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 1) { sa.apply(hdr); hdr.h.d = rd(hdr.u.x); hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 2) { sa.apply(hdr); switch (hdr.h.b) { 1: { hdr.u.x = hdr.h2; } default: { meta.m8 = 1; } } hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 3) { sa.apply(hdr); hdr.u.x.setValid(); hdr.u.x = hdr.h2; }
        hdr.h.c = (bit<16>)((bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.x.isValid());
""", top="""
control Sa(inout headers_t h) { action a(out h_t p) { p = {9, 9, 9, 9}; } apply { a(h.u.x); } }
bit<32> rd(in h_t x) { return (bit<32>)x.b; }
""", ingress_decls="    Sa() sa;\n", **_U),
    frames=[(1, H(a, b, 2, d=d, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3, 4) for d in range(4) for b in (1, 2)]))

# A table in a sub-control body reads the member through the body's parameter: its action (d 0,
# d 1: Sr applied in Sq's body after Sq's copy-back) or its key (d 2) -- the store before the
# apply stays (checkmate-p4c took the parameter in the table's actions and keys for another
# variable than the caller's argument and dropped it).
CASES.append(case("fuzz20_subcontrol_table_reads_member_through_parameter", CAT, program("""
        if (hdr.h.d == 0) { hdr.u.x = hdr.h; sr.apply(hdr); hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 1) { sq.apply(hdr); hdr.u.x = hdr.h2; }
        else if (hdr.h.d == 2) { hdr.u.x = hdr.h; sk.apply(hdr); hdr.u.x = hdr.h2; }
        hdr.h.c = (bit<16>)((bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.x.isValid());
""", top="""
control Sr(inout headers_t h) {
    action r() { h.h.d = (bit<32>)h.u.x.b; }
    table t { key = { h.h.b: exact; } actions = { r; } default_action = r(); }
    apply { t.apply(); }
}
control Sq(inout headers_t h) { action a(out h_t p) { p = {9, 9, 9, 9}; } Sr() sr2; apply { a(h.u.x); sr2.apply(h); } }
control Sk(inout headers_t h) {
    action nk() { h.h.d = 5; }
    table t { key = { h.u.x.b: exact; } actions = { nk; } default_action = nk(); }
    apply { t.apply(); }
}
""", ingress_decls="    Sr() sr; Sq() sq; Sk() sk;\n", **_U),
    frames=[(1, H(a, b, 2, d=d, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3, 4) for d in range(3) for b in (1, 2)]))

# Still open (diffcases.KNOWN): p4c's mid end (LocalCopyPropagation) replaces a read of a local
# union's member by the value last copied into it, not seeing that a write or setValid of a sibling
# invalidated it meanwhile (d 0: an assignment, d 1: in an action, d 2: an action's copy-back,
# d 3: setValid) -- `hdr.u.w = lu.w` becomes `hdr.u.w = hdr.u.w` and goes, so BMv2 keeps the parsed
# u.w valid; checkmate-switch copies the invalid lu.w.  (Found probing a sub-control applied with
# different arguments: p4c's temporaries for them are such locals.)
CASES.append(case("fuzz20_union_local_copy_propagated_past_sibling_write", CAT, program("""
        if (hdr.h.d == 0) { lu.w = hdr.u.w; lu.x = hdr.h; hdr.u.w = lu.w; }
        else if (hdr.h.d == 1) { lu.w = hdr.u.w; sx(); hdr.u.w = lu.w; }
        else if (hdr.h.d == 2) { lu.w = hdr.u.w; a(lu.x); hdr.u.w = lu.w; }
        else if (hdr.h.d == 3) { lu.w = hdr.u.w; lu.x.setValid(); hdr.u.w = lu.w; }
        hdr.h.c = (bit<16>)((bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.x.isValid());
""", ingress_decls="""    u_t lu;
    action sx() { lu.x = hdr.h; }
    action a(out h_t p) { p = {9, 9, 9, 9}; }
""", **_U), frames=[(1, H(a, b, 2, d=d, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3, 4) for d in range(4) for b in (1, 2)]))
