"""Disagreements found by helper fuzz30 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import H, H2, case, program
from .fuzz18 import _U

CAT = "front end (p4c-compatible)"

CASES = []

# fuzz_headers seed 8205: p4c's LocalCopyPropagation tracks whole-header copies by name, so after
# `hdr.u.x = hdr.h;` a `setValid()` of the sibling `hdr.u.w` does not end the copy (union_copies) --
# and p4c has inlined a sub-control's body before the pass, so the body's `m.mh = h.u.x;` (its
# parameters used in place) reads `hdr.h`: BMv2 copies the valid `hdr.h` where running the
# statements copies the invalidated `hdr.u.x`.  checkmate's walk stopped at the apply, and at a
# block or an `if` that writes neither (the seed had one between the copy and the apply).
_UVALID = ("        hdr.h.c = (bit<16>)((bit<1>)meta.mh.isValid() ++ (bit<1>)hdr.u.x.isValid() ++ "
           "(bit<1>)hdr.u.w.isValid());\n        hdr.h.d = meta.mh.d;\n")
_USUB = dict(_U, meta="    h_t mh;\n", ingress_decls="    S1() s1;\n",
             top="control S1(inout headers_t h, inout meta_t m) { apply { m.mh = h.u.x; } }\n")
_UFRAMES = [(1, H(a, b, 2, d=0x11223344 + a, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3, 4) for b in (1, 2)]
for _name, _body in [
        ("", "hdr.u.x = hdr.h; hdr.u.w.setValid(); s1.apply(hdr, meta);"),
        ("_past_an_if", "hdr.u.x = hdr.h; { h_t e = hdr.h2; if (e.isValid()) { hdr.h2.b = 7; } else { hdr.h2.a = 9; } }\n"
                        "        hdr.u.w.setValid(); hdr.u.w.a = 5; s1.apply(hdr, meta);"),
        ("_past_a_sibling_store_in_a_branch", "hdr.u.x = hdr.h; if (hdr.h.b == 1) { hdr.u.w.setValid(); } s1.apply(hdr, meta);"),]:
    CASES.append(case(f"fuzz30_union_copy_reaches_a_sub_control_body{_name}", CAT,
                      program("        " + _body + "\n" + _UVALID, **_USUB), frames=_UFRAMES))

# a guard: a branch that writes the copied header ends the copy (p4c's join), so the body reads
# the invalidated `hdr.u.x` where b == 1.
CASES.append(case("fuzz30_union_copy_ended_by_a_branch_writing_it", CAT, program(
    "        hdr.u.x = hdr.h; if (hdr.h.b == 1) { hdr.h.a = 7; } hdr.u.w.setValid(); s1.apply(hdr, meta);\n" + _UVALID,
    **_USUB), frames=_UFRAMES))

# Measured on p4c's JSON while fixing 8205: a statement that uses the copied header or its value as
# a whole -- `isValid()` (p4c 1.2.4.8's LocalCopyPropagation takes it as a write), `==` -- ends the
# copy, so `hdr.h2 = hdr.u.x;` stays a copy of the invalidated member (d 0, 2, 3); a sibling's
# `isValid()` (d 1) or a field read (d 4) does not, and `hdr.h2` copies the valid `hdr.h`.
# checkmate's walk went on past all of them.
CASES.append(case("fuzz30_union_copy_ended_by_a_whole_header_use", CAT, program("""
        if (hdr.h.d[2:0] == 0) { hdr.u.x = hdr.h; meta.m8 = hdr.u.x.isValid() ? 8w1 : 8w2; hdr.u.w.setValid(); hdr.h2 = hdr.u.x; }
        else if (hdr.h.d[2:0] == 1) { hdr.u.x = hdr.h; meta.m8 = hdr.u.w.isValid() ? 8w1 : 8w2; hdr.u.w.setValid(); hdr.h2 = hdr.u.x; }
        else if (hdr.h.d[2:0] == 2) { hdr.u.x = hdr.h; meta.m8 = hdr.u.x == hdr.h2 ? 8w1 : 8w2; hdr.u.w.setValid(); hdr.h2 = hdr.u.x; }
        else if (hdr.h.d[2:0] == 3) { hdr.u.x = hdr.h; meta.m8 = hdr.h.isValid() ? 8w1 : 8w2; hdr.u.w.setValid(); hdr.h2 = hdr.u.x; }
        else { hdr.u.x = hdr.h; meta.m8 = hdr.u.x.a; hdr.u.w.setValid(); hdr.h2 = hdr.u.x; }
        hdr.h.b = meta.m8;
        hdr.h.c = (bit<16>)((bit<1>)hdr.h2.isValid() ++ (bit<1>)hdr.u.x.isValid() ++ (bit<1>)hdr.u.w.isValid());
""", **dict(_U, deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.u);\n        pkt.emit(hdr.h2);")),
    frames=[(1, H(a, 2, 2, d=d, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3) for d in range(5)]))

# fuzz_exprs seed 13536 (REJECT): p4c 1.2.4.8's first constant folding, before type checking,
# removes the branch an `if` on literals never takes (`if (true || false) .. else ..`), so a
# constant stack index past the end there (`hdr.s[(bit<2>)(bit<12>)(-12s1)]`, TypeInference's
# "Array index 2w3 larger or equal to array size 2") is no error; checkmate-p4c refused it.  That
# folding also takes casts to bit/int/bool and slices of literals (`(bit<8>)(-8s1) == 1`,
# `8w3[1:0] == 0`, `(bool)1w0`), where checkmate type-checked the dead branch.
_S = dict(fields="    h_t[2] s;\n")
for _name, _cond in [("a_literal_or", "true || false"), ("a_cast_literal", "(bit<8>)(-8s1) != 1"),
                     ("a_slice_of_a_literal", "8w3[1:0] != 0"), ("a_bool_cast", "(bool)1w1")]:
    CASES.append(case(f"fuzz30_stack_index_past_the_end_in_a_folded_branch_{_name}", CAT, program(f"""
        if ({_cond}) {{ hdr.h.b = 3; }} else {{ hdr.h2 = hdr.s[(bit<2>)(bit<12>)(-12s1)]; hdr.h.c = hdr.h; }}
""", **_S), frames=[(1, H(a, 2)) for a in (1, 0xee)]))

# fuzz_exprs seed 13424 (frames): p4c's def-use drops a store to a field of a header before an
# initializer of that header that reads the header (lead10, fuzz29: on BMv2 the initializer writes
# no field, so the field keeps its value from before the store), walking back also over (1) a
# sub-control apply whose arguments do not name the header (p4c has inlined its body, which cannot
# reach it), and (2) a store to a local's field that nothing reads later (`l.c = hdr.h2.c;`: p4c's
# front end removed it first, so it reads nothing); checkmate's walk stopped at both.  Guard: a
# local store read later keeps the field's store.
_SELF = "        hdr.h2 = {a = ~hdr.h2.a, b = 1, c = 2, d = 3};\n        hdr.h.c = hdr.h2.c;\n"
_FR_H2 = [(1, H2(0x31, 0x32, 0x3334, 0x35363738, b=1)), (1, H2(0x41, 0x42, 0x4344, 0x45464748, b=2))]
for _name, _before, _after in [
        ("across_a_sub_control_apply", "hdr.h2.c = hdr.h2.c + 5; s0.apply(meta);", ""),
        ("across_a_dead_local_store", "hdr.h2.c = hdr.h2.c + 5; h_t l = {1, 2, 3, 4}; l.c = hdr.h2.c;", ""),
        ("kept_by_a_local_store_read_later", "hdr.h2.c = hdr.h2.c + 5; h_t l = {1, 2, 3, 4}; l.c = hdr.h2.c;",
         "        hdr.h.d = (bit<32>)l.c;\n"),]:
    CASES.append(case(f"fuzz30_store_before_self_init_{_name}", CAT, program(
        "        " + _before + "\n" + _SELF + _after,
        top="control S0(inout meta_t m) { apply { m.m8 = m.m8 + 1; if (m.m8 == 3) { m.m16 = 2; } } }\n",
        ingress_decls="    S0() s0;\n"), frames=_FR_H2))

# fuzz_exprs seed 14214 (frames): in an action, a call with an out argument in the condition of an
# `if` nested in another (`if (c) { } else if (f1(hdr.h.c[7:0])) { .. }`): p4c inlines the function
# into the enclosing branch before its Predication pass, which predicates the copy-back like any
# assignment there, so BMv2 writes `c` only where `c` is false; checkmate's replay of the pass
# hoisted the call into a condition temporary assigned on every path.  Such an action now runs as
# written (`predication._writing_call`).
_F = "bool f1(out bit<8> p, in bit<8> x) { p = x + 2; return x == 1; }\n"
for _name, _if in [("an_empty_then", "if (hdr.h.b == 1) { } else if (f1(hdr.h.c[7:0], hdr.h.a)) { hdr.h.d = 9; }"),
                   ("a_then", "if (hdr.h.b == 1) { hdr.h.d = 1; } else { if (f1(hdr.h.c[7:0], hdr.h.a)) { hdr.h.d = 9; } }")]:
    CASES.append(case(f"fuzz30_action_nested_if_condition_call_out_argument_{_name}", CAT, program(
        "        a0();\n", top=_F, ingress_decls=f"    action a0() {{ {_if} }}\n"),
        frames=[(1, H(a, b, 0x1234, 5)) for a in (1, 3) for b in (1, 2)]))
