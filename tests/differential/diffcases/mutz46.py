"""Found by helper mutz46 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5."""
from .base import H, H2, case, program

CAT = "front end (p4c-compatible)"
_FR = [(1, H(1, 2, 0x0102, 0x03040506)), (1, H2(0x31, 0x32, 0x3334, 0x35363738, b=1)),
       (1, H2(0x31, 0x32, 0x3334, 0x35363738, b=0x32))]

# fuzz_mutants seed 4903 (action_if on fuzz29's copy-back case): a store in an action body to the header
# an inout argument copies back whole is dead also where a `return` inside an `if` follows it -- p4c's
# RemoveReturns makes the rest `if (!hasReturned) {..}` and the copy-back runs on both paths, so its
# def-use drops `hdr.h2.c = 3` and BMv2 reads the invalid h2's old c (0 on a fresh PHV).  checkmate-p4c
# looked for the copy-back only after a `return` at the body's top level (dead_reads._following).
_BODIES = {
    "an_if_s_return": "if (hdr.h2.b == hdr.h.b) { hdr.h.b = hdr.h2.b; return; } hdr.h.b = hdr.h.b + 5;",
    "an_else_s_return": "if (hdr.h.a == 0x31) { hdr.h.b = 9; } else { return; } hdr.h.b = hdr.h.b + 5;",
    "a_nested_if_s_return": "if (hdr.h.a == 0x31) { if (hdr.h.b == 2) { return; } hdr.h.d = 1; } hdr.h.b = 7;",
}
CASES = [
    case(f"mutz46_action_copy_back_kills_a_store_before_{name}", CAT, program(
        "        a0(hdr.h2);\n        hdr.h.c = hdr.h2.c;\n        hdr.h.a = (bit<8>)hdr.h2.d;\n",
        ingress_decls=f"    action a0(inout h_t q) {{ hdr.h2.setValid(); hdr.h2.c = 3; {body} }}\n"), frames=_FR)
    for name, body in _BODIES.items()
]

# fuzz_mutants seed 5422 (union_op on copyback11_union_in_struct_member_by_member): a whole-union store
# (`hdr.u = tmp_u;`) or a store of a struct of headers (`hdr.pr = lp;`) that an assignment of the struct
# holding it overwrites (`hdr = b;`) before a read is dead for p4c's front-end def-use: it drops it, and
# where b's member is invalid BMv2's assign_header only marks the destination invalid -- its fields keep
# what they held before the dropped store (`hdr.u.p = hdr.h` here; `u.q.v` is written first, read by
# `b = hdr`, so no read sees a pooled PHV's value).  checkmate-p4c dropped such header
# and scalar stores only (dead_reads.drop_stores_before_whole_copies).
_WHOLE_HDRS = ("header g_t { bit<8> v; bit<8> w; }\nheader_union U { h_t p; g_t q; }\n"
               "struct pair_t { h_t x; h_t y; }\n")
_WHOLE_FR = [(0, H(1, 2, 3, 4)), (1, H(0x22, 1, 0x3344, 0x55667788)), (2, H2(5, 6))]
_WHOLE = {
    "union_in_a_block": ("hdr.u.q.v = 0x77; hdr.u.p = hdr.h; headers_t b = hdr; b.u.p.setInvalid(); b.u.p.a = 0x44;\n"
                         "        { U tmp_u; tmp_u.p.setValid(); hdr.u = tmp_u; } hdr = b;"),
    "union_from_a_local": ("hdr.u.q.v = 0x77; hdr.u.p = hdr.h; headers_t b = hdr; b.u.p.setInvalid();\n"
                           "        U tmp_u; tmp_u.q.setValid(); tmp_u.q.v = 9; hdr.u = tmp_u; hdr = b;"),
    "union_overwritten_by_the_union": ("hdr.u.q.v = 0x77; hdr.u.p = hdr.h; hdr.eth.src[7:0] = hdr.u.p.b;\n"
                                       "        U c; c.q.setValid(); c.q.v = hdr.h.b;\n"
                                       "        U tmp_u; tmp_u.p.setValid(); hdr.u = tmp_u; hdr.u = c;"),
    "struct_of_headers": ("hdr.pr.x = hdr.h; headers_t b = hdr; b.pr.x.setInvalid();\n"
                          "        pair_t lp; lp.x.setValid(); lp.x.a = 0x55; hdr.pr = lp; hdr = b;"),
}
_WHOLE_READ = {"struct_of_headers": "hdr.h.a = hdr.pr.x.a; hdr.h.b = hdr.pr.x.b; hdr.h.c = hdr.pr.x.isValid() ? 16w1 : 16w2;"}
CASES += [
    case(f"mutz46_whole_{name}_store_dead_before_a_struct_copy_keeps_fields", CAT, program(
        f"        {body}\n        "
        + _WHOLE_READ.get(name, "hdr.h.a = hdr.u.p.a; hdr.h.b = hdr.u.q.v;\n        hdr.h.c = (hdr.u.p.isValid() ? "
                                "16w1 : 16w2) + (hdr.u.q.isValid() ? 16w16 : 16w32);") + "\n",
        headers=_WHOLE_HDRS, fields="    U u;\n    pair_t pr;\n"), frames=_WHOLE_FR)
    for name, body in _WHOLE.items()
]

# (probed after seed 5422) a union-member store read by a whole-union copy, `lu.p = hdr.h; U c = lu;`, stays
# for p4c: its front-end def-use sees the read before the mid end's copy propagation turns it into
# `c.p = hdr.h` -- so BMv2 runs the store, whose setValid of lu.p invalidates lu.q (read on by `c.q = lu.q`).
# checkmate-p4c judged the union stores after its own copy propagation (union_copies), found no read left
# and dropped the store (union_defuse.touches now counts the reads union_copies replaced: fe_whole_reads).
_READ_BY_COPY = {
    "local_union": "U lu; lu.q.setValid(); lu.q.v = hdr.h.b; lu.p = hdr.h; U c = lu; c.p.setInvalid(); lu = c; hdr.u = lu;",
    "header_union": ("hdr.u.q.v = 0x77; hdr.u.p = hdr.h; U c = hdr.u; c.p.setInvalid();\n"
                     "        U tmp_u; tmp_u.p.setValid(); hdr.u = tmp_u; hdr.u = c;"),
}
CASES += [
    case(f"mutz46_{name}_member_store_read_by_a_whole_union_copy_stays", CAT, program(
        f"        {body}\n" + ("        hdr.h.a = hdr.u.p.a; hdr.h.b = hdr.u.q.v;\n" if name == "header_union" else "")
        # (the local case's hdr.u fields are never written: a pooled PHV's, so only its validity is read)
        + "        hdr.h.c = (hdr.u.p.isValid() ? 16w1 : 16w2) + (hdr.u.q.isValid() ? 16w16 : 16w32);\n",
        headers=_WHOLE_HDRS, fields="    U u;\n    pair_t pr;\n"), frames=_WHOLE_FR)
    for name, body in _READ_BY_COPY.items()
]

# fuzz_mutants seed 5639 (exit_stmt on fuzz27_store_before_self_init_dropped_through_an_action_call_*): the
# action's store that a later self-reading header initializer makes dead (fuzz27's rule, p4c has inlined
# the call) is dead also where the body ends in a `return` (dead code after it): RemoveReturns ends the body
# there; checkmate-p4c gave up on a body holding a `return` (header_init.body_stores_dead), so BMv2's parsed
# h2.c read as 342.  A `return` in an `if` still stops it (guard).
_A342_RET = {
    "a_final_return": "action a1(in bit<8> q) { hdr.h.setValid(); hdr.h2.c = 342; return; hdr.h.d = 7; }",
    "a_return_in_a_block": "action a1(in bit<8> q) { hdr.h.setValid(); { hdr.h2.c = 342; return; } }",
    "a_conditional_return": "action a1(in bit<8> q) { hdr.h.setValid(); hdr.h2.c = 342; if (hdr.h.a == 1) { return; } hdr.h.d = 7; }",
}
CASES += [
    case(f"mutz46_store_before_self_init_dropped_through_an_action_with_{name}", CAT, program(
        "        switch (hdr.h.b) { 1: { tick(meta.m8); } default: { a1(1); } }\n"
        "        hdr.h2 = {a = ~hdr.h2.a, b = 1, c = 2, d = 3};\n        hdr.h.c = hdr.h2.c;\n",
        ingress_decls=f"    {act}\n", top="bit<8> tick(inout bit<8> c) { c = c + 1; return c; }\n"),
        frames=[(1, H2(0x31, 0x32, 0x3334, 0x35363738, b=1)), (1, H2(0x41, 0x42, 0x4344, 0x45464748, b=2))])
    for name, act in _A342_RET.items()
]
