"""Found by helper mutz36 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch must match."""
from .base import H, H2, VALUES, case, program
from .fuzz18 import _U
from .mutz30 import _SUB, _SUB_PARSER

CAT = "front end (p4c-compatible)"

# fuzz_mutants seed 2471 (dead_wrap on mutz30_stack_copies_propagated_past_a_sub_parsers_extract_next):
# a parser state's `if` whose condition p4c's front end folds (`if (true || (1 == 2)) { .. } else
# { .. }`), or a plain block, is a block to its copy propagation: the copy `meta.m8 = hdr.s.last.a`
# made before it still flows past the sub-parser call that extracts `hs.next` (p4c's JSON: `h.a =
# s.last.a` after the inlined extract; BMv2 reads the element the call extracted).  checkmate-p4c
# forgot every copy at a block.  (A run-time `if` splits the state: the copy is read from meta.m8.)
_S33 = "        meta.m16 = (bit<16>)hdr.s[0].b;\n"
_STACK_FR = [(1, H(1, 2, 3, 4) + bytes(range(40))), (1, H(7, 9, 0xffff, 0xdeadbeef) + bytes(range(100, 140)))]
CASES = [
    case(f"mutz36_stack_copy_propagated_past_a_sub_parsers_extract_next_across_{name}", CAT,
         program("", fields="    h_t[3] s;\n", top=_SUB, parser=_SUB_PARSER.replace(_S33, "        " + stmt + "\n"),
                 deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"),
         frames=_STACK_FR, json_path=True)
    for name, stmt in (("a_folded_if", "if (true || (1 == 2)) { meta.m16 = (bit<16>)hdr.s[0].b; } else { meta.m16 = 1; }"),
                       ("a_block", "{ meta.m16 = (bit<16>)hdr.s[0].b; }"),
                       ("a_run_time_if", "if (hdr.h.b == 2) { meta.m16 = (bit<16>)hdr.s[0].b; } else { meta.m16 = 7; }"))
]

# p4c_mutate seed 542 (exit_stmt on fuzz13_folded_condition_makes_return_unconditional): an action's
# branch p4c's strength reduction removes (`if (!(8w1 != (x - x)))` is `if (false)`) takes its back-end
# errors with it -- an `exit`, or an extern call, under a nested run-time `if` there is no "Conditional
# execution in actions" (p4c compiles; so does a front-end folded `if (1 == 2)`); checkmate-p4c kept
# the action's deferred error of the removed branch and refused.
_DEAD = "!(8w1 != (hdr.h.c[7:0] - hdr.h.c[7:0]))"
CASES += [
    case(f"mutz36_action_branch_removed_by_strength_reduction_with_{name}", CAT, program(
        "        a0();\n        hdr.h.d = 5;\n",
        ingress_decls=f"    action a0() {{\n        if ({_DEAD}) {{ if (hdr.h.a == 3) {{ {stmt} }} }} else {{ hdr.h.b = 8; }}\n"
                      "        hdr.h.c = 16w7;\n    }\n"), frames=VALUES[:3])
    for name, stmt in (("a_conditional_exit", "exit;"), ("a_conditional_extern_call", "mark_to_drop(sm);"),
                       ("a_conditional_exit_after_a_store_folding_it", "hdr.h.b = 1; if (hdr.h.b != 1) { exit; }"))
]

# p4c_mutate seed 211 (cast_slice on fuzz30_stack_index_past_the_end_in_a_folded_branch_a_bool_cast):
# p4c's front end removes the branch of an `if` on a literal condition before its type checker, so an
# operator given operands of the wrong type there -- `++` of a stack or a header, `<` of headers, `-` of
# a header, a shift by a header -- is no error (p4c compiles); checkmate-p4c let only some type errors
# pass in such a branch.
CASES += [
    case(f"mutz36_operand_type_error_in_a_front_end_folded_branch_{name}", CAT, program(
        f"        if ((bool)1w1) {{ hdr.h.b = 3; }} else {{ {stmt} }}\n", fields="    h_t[2] s;\n"), frames=VALUES[:2])
    for name, stmt in (("concatenating_a_stack", "hdr.h2.a = (hdr.s ++ 8w0)[15:8];"),
                       ("concatenating_a_header", "hdr.h2.a = (hdr.h ++ 8w0)[15:8];"),
                       ("comparing_headers_by_order", "if (hdr.h < hdr.h2) { hdr.h.a = 1; }"),
                       ("negating_a_header", "hdr.h.a = -hdr.h;"),
                       ("shifting_by_a_header", "hdr.h.a = hdr.h.a << hdr.h;"))
]

# mutz35's open item, measured: a copy into a local union's member (`lu.w = hdr.u.w;`, p4c's
# LocalCopyPropagation blind to the sibling write `lu.x = hdr.h` or `lu.x.setValid()`) goes on past an
# applied sub-control whose body returns (conditionally, or at its end: RemoveReturns' flag) as past
# one that does not -- `hdr.u.w = lu.w` is `hdr.u.w = hdr.u.w`, gone, and BMv2 keeps the parsed u.w
# valid; checkmate-p4c ended the copy at any return in the body and copied the invalidated lu.w.
# (An `exit` there: p4c 1.2.4.8 dies, "Overwriting definitions at <ExitStatement>".)
_UFR = [(1, H(a, b, 2, d=d, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3, 4) for d in range(2) for b in (1, 2)]
CASES += [
    case(f"mutz36_local_union_member_copy_past_a_sub_control_with_{name}", CAT, program("""
        if (hdr.h.d == 0) { lu.w = hdr.u.w; lu.x = hdr.h; s3.apply(hdr, meta); hdr.u.w = lu.w; }
        else { lu.w = hdr.u.w; s3.apply(hdr, meta); lu.x.setValid(); hdr.u.w = lu.w; }
        hdr.h.c = (bit<16>)((bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.x.isValid());
""", top=f"control S3(inout headers_t hdr, inout meta_t meta) {{ apply {{ {body} }} }}\n",
        ingress_decls="    u_t lu;\n    S3() s3;\n", **_U), frames=_UFR)
    for name, body in (("a_conditional_return", "if (hdr.h.b == 2) { return; } hdr.h.a = hdr.h.a + 1; meta.m16 = 2;"),
                       ("a_return_at_its_end", "hdr.h.a = hdr.h.a + 1; meta.m16 = 2; return;"),
                       ("no_return", "hdr.h.a = hdr.h.a + 1; meta.m16 = 2;"))
]

# fuzz_mutants seed 2321 (--kinds action_if,stack_op,union_op, a new kind: stack_op on copyback11_subcontrol_
# different_args_through_temporaries): p4c's inliner gives a sub-control instance's header parameter one
# temporary (`x_0`) for all its applies, copied in and back with assign_header -- which from an invalid
# header only marks the destination invalid.  So the second apply, given an invalid `hdr.s[0]`, reads
# the fields the first apply left in x_0 (`x.a = 0x5a` after its setInvalid: m8 = 1 + 0x5a on BMv2);
# checkmate-switch copied the invalid argument's own fields into a fresh temporary.
_CB_SUB = ("control Sub(inout h_t x, inout bit<8> m) {\n    action ex() { exit; }\n"
           "    apply { m = m + x.a; x.setInvalid(); x.a = 0x5a; x.c = 0x77; if (x.b == 1) { ex(); } }\n}\n")
_CB = dict(headers="header g_t { bit<8> v; bit<8> w; }\nheader_union U { h_t p; g_t q; }\n",
           fields="    U u;\n    h_t[2] s;\n", top=_CB_SUB, ingress_decls="    Sub() sub;\n",
           egress="        hdr.eth.src[39:32] = hdr.s[1].a; hdr.eth.src[47:40] = hdr.s[0].a;\n"
                  "        hdr.eth.dst[23:8] = hdr.s[0].c; hdr.eth.dst[31:24] = meta.m8;\n")
CASES += [
    case(f"mutz36_sub_control_temporary_kept_across_applies_{name}", CAT, program(
        "        hdr.s[1] = hdr.h; hdr.s[1].b = 2;\n        sub.apply(hdr.s[1], meta.m8);\n"
        f"        hdr.s[0] = hdr.h;\n        {inv}sub.apply(hdr.s[0], meta.m8);\n"
        "        hdr.eth.src[7:0] = hdr.s[1].a; hdr.eth.src[15:8] = hdr.s[0].a; hdr.eth.src[31:16] = hdr.s[0].c;\n"
        "        hdr.eth.dst[7:0] = meta.m8;\n", **_CB), frames=[(1, H(1, 2, 3, 4)), (1, H(0x22, 1, 0x3344, 5)),
                                                           (1, H(0x80, 3, 0, 0))])
    for name, inv in (("copying_in_an_invalid_header", "hdr.s[0].setInvalid(); "),
                      ("copying_in_a_valid_header", ""))
]

# fuzz_mutants seed 2631 (--kinds cast_slice,exit_stmt,switch_wrap; exit_stmt on fuzz24_stores_in_branches_
# before_self_init_dropped): an `exit` in a branch before a self-reading header initializer (which p4c's
# def-use takes as writing every field, and on BMv2 writes none) makes every field live on that path
# -- `hdr.h2.b = 7` in another branch before it stays (BMv2 reads 7 into h.d) -- while a store on that
# path before the exit (`hdr.h2.d = 1; exit;`) ends h2.d's liveness: `hdr.h2.d = 8` before it is dead
# all the same (BMv2 reads the parsed h2.d).  checkmate-p4c gave up at the exit and kept the stores of
# the fields the branch names (h2.d = 8), dropping the others (h2.b = 7).
_SI = """        if (hdr.h.b == 1) {{ hdr.h2.c = 5; }} else {{ hdr.h2.b = hdr.h2.a; }}
        switch (hdr.h.c) {{
            1: {{ hdr.h2.d = 6; hdr.h.d = hdr.h2.d; }}
            2: {{ hdr.h2.b = 7; {{ hdr.h2.d = 8; }} }}
        }}
        if (hdr.h.b == 2) {{ hdr.h2.c = 9; if (hdr.h.c == 3) {{ {inner} }} }}
        switch (hdr.h.b) {{ 4: {{ hdr.h2.b = hdr.h2.b + 1; }} }}
        hdr.h2 = {{hdr.h2.a, 1, hdr.h2.c, 3}};
        hdr.h.c = hdr.h2.c;
        hdr.h.d = hdr.h.d ^ hdr.h2.d ^ (hdr.h2.b ++ 24w0);
"""
CASES += [
    case(f"mutz36_stores_in_branches_before_self_init_with_{name}", CAT, program(_SI.format(inner=inner)),
         frames=[(1, H2(3, 0x40, 0x1111, 0x22222222, b=b, c=c, d=0x100)) for b in (1, 2, 4) for c in (1, 2, 3)])
    for name, inner in (("a_store_and_an_exit", "hdr.h2.d = 1; exit;"), ("an_exit", "exit;"),
                        ("an_exit_after_a_partial_store", "hdr.h2.d[7:0] = 1; exit;"))
]

# fuzz_mutants seed 2673 (--kinds cast_slice,exit_stmt,switch_wrap; exit_stmt on mutz22_digest_bool_and_stack_
# member: `exit;` before its digests): past a plain `exit` (bare, in a block, `if (true)`) p4c's JSON
# has none of the rest of the control, so what simple_switch would refuse to load there -- a bool in
# hash data -- is not in it, and BMv2 runs the program; checkmate-p4c noted the load refusal and
# checkmate-switch refused the pipeline.  (After an `if` whose arms both exit p4c keeps the rest, and
# simple_switch dies on it: still refused.)
_HB = "        bit<16> r; hash(r, HashAlgorithm.crc16, 16w0, { hdr.h.a == 1 }, 16w1024); hdr.h.c = r;\n"
CASES += [
    case(f"mutz36_load_refused_hash_data_after_{name}", CAT, program(f"        {pre}\n" + _HB), frames=VALUES[:3])
    for name, pre in (("an_exit", "exit;"), ("an_if_true_exit", "if (true) { exit; }"), ("a_block_exiting", "{ exit; }"),
                      ("an_exit_in_a_body_with_a_return", "if (hdr.h.b == 9) { return; } exit;"))
]

# p4c_mutate seed 342 (table_extern on fuzz14_target_checks_skip_unapplied_subcontrols): a sub-control
# instantiated but never applied goes whole in p4c, with the extern instances declared in it -- a
# direct meter or an action profile of its table is not in p4c's P4Info, nor the type_info a direct
# meter's type needs; checkmate-p4c kept them as for a table a live control does not apply.
_BAD = ("control Bad(inout h_t h) {{\n    action a() {{ h.b = 1; }}\n    {decl}\n"
        "    table t {{ {prop} key = {{ h.a: exact; }} actions = {{ a; NoAction; }} }}\n    apply {{ t.apply(); }}\n}}\n")
CASES += [
    case(f"mutz36_unapplied_sub_control_instance_with_{name}", "front end: P4Info as p4c's", program(
        "        hdr.h.c = 3;\n", top=_BAD.format(decl=decl, prop=prop), ingress_decls="    Bad() c2;\n"), frames=VALUES[:2])
    for name, decl, prop in (("a_direct_meter", "direct_meter<bit<8>>(MeterType.bytes) t_x;", "meters = t_x;"),
                             ("an_action_profile", "action_profile(32w16) t_x;", "implementation = t_x;"))
]

# p4c_mutate seed 541 (dead_store on corpus15_division_under_times_zero_is_removed): p4c's mid end
# reduces a store's value bottom-up -- `(bit<16>)(hdr.h.a * 8w0) + 3` is 3 -- and propagates it, so
# `hdr.h.c = (hdr.h.c + meta.m16) % 5` with meta.m16 = 0 folds to a constant (no run-time modulo for
# its BMv2 back end to refuse); checkmate-p4c reduced only the top of the value and refused.
CASES += [
    case(f"mutz36_modulo_folded_after_a_store_reduced_through_{name}", CAT, program(
        f"        meta.m16 = 0;\n        hdr.h.c = {val} + 3;\n"
        "        hdr.h.c = (hdr.h.c + meta.m16) % 5; hdr.h.c = hdr.h.c + meta.m16;\n"), frames=VALUES[:3])
    for name, val in (("a_cast_of_a_product_by_zero", "(bit<16>)(hdr.h.a * 8w0)"),
                      ("a_cast_of_a_masked_zero", "(bit<16>)(hdr.h.a & 8w0)"))
]
