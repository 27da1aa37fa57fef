"""Found by helper mutz44 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5."""
from .base import H, case, program
from .fuzz18 import _U

CAT = "front end (p4c-compatible)"

# fuzz_mutants seed 4332 (exit_stmt on open6_hash_algorithm_variable): a HashAlgorithm local given to
# hash() past an `exit` is known to p4c where it was read before the exit -- the front end's def-use
# drops the stores read only past it (`al = csum16; { exit; }`), the mid end's copy propagation goes
# on past the exit with the rest, so the dead hash gets `crc16` and p4c compiles; with no read before
# the exit p4c refuses ("Type_Enum ... not yet handled": test_mutants11 hash_algorithm_local_read_after_*,
# checkmate-p4c refused all of these.  elab_blocks.enum_member, note_enum_read.)
_HASH = "bit<16> r; hash(r, al, 16w0, { hdr.h.a, hdr.h.b }, 16w1024); hdr.h.c = r;"
_AFTER = "bit<32> q; hash(q, al, 32w0, { hdr.h.c, hdr.h.b }, 32w65536); hdr.h.d = q;"
_READ = {
    "hashed_then_stored": f"{_HASH} al = HashAlgorithm.csum16; {{ exit; }}",
    "hashed_in_an_if": f"if (hdr.h.a == 1) {{ {_HASH} }} al = HashAlgorithm.csum16; exit;",
    "compared": "hdr.h.a = (al == HashAlgorithm.crc16) ? 8w1 : 8w2; exit;",
    "stored_past_the_exit": f"{_HASH} exit; al = HashAlgorithm.csum16;",
    "stored_in_an_if_unread": f"{_HASH} if (hdr.h.a == 1) {{ al = HashAlgorithm.csum16; }} exit;",
    "arms_both_exit": f"{_HASH} al = HashAlgorithm.csum16; if (hdr.h.a == 1) {{ exit; }} else {{ exit; }}",
}
CASES = [
    case(f"mutz44_hash_algorithm_local_past_an_exit_read_before_{name}", CAT, program(
        f"        HashAlgorithm al = HashAlgorithm.crc16;\n        {body}\n        {_AFTER}\n"),
        frames=[(1, H(1, 2, 3, 4)), (1, H(5, 6, 7, 8))])
    for name, body in _READ.items()
]

# fuzz_mutants seeds 4566 and 4581 (stack_op on corpus13's E2E-clone cases): simple_switch makes an E2E
# clone's PHV with PHV::copy_headers, which copies the fields of the valid headers only -- a header
# invalid at the end of the original's egress keeps the values of the PHV the clone takes from the pool
# (a fresh one, all zeros, for the first frame after a load: which pooled PHV a later frame's clone gets
# depends on BMv2's threads, so the seeds' later frames are no test).  checkmate-switch copied every
# header whole, so the clone read what the original had written into an invalid header, or a stack
# element's values a push_front had rotated (Engine._clone's e2e, gen_types.gen_copy_valid).
_E2E_READS = {
    "header": ("hdr.h2.a = 7; hdr.h2.d = hdr.h.d;", "hdr.h.b = hdr.h2.a; hdr.h.d = hdr.h2.d;"),
    "metadata_header": ("meta.mh.a = 7; meta.mh.d = hdr.h.d;", "hdr.h.b = meta.mh.a; hdr.h.d = meta.mh.d;"),
    "stack_element_a_push_front_rotated": ("meta.ms[1] = hdr.h; meta.ms.push_front(1);",
                                           "hdr.h.b = meta.ms[0].a; hdr.h.d = meta.ms[0].d;"),
    "header_set_invalid": ("hdr.h2.setValid(); hdr.h2.a = 7; hdr.h2.setInvalid();", "hdr.h.b = hdr.h2.a;"),
}
CASES += [
    case(f"mutz44_e2e_clone_reads_an_invalid_{name}_of_a_fresh_phv", "replication", program(
        meta="    h_t mh;\n    h_t[2] ms;\n",
        egress=f"""
        if (sm.instance_type == 0) {{
            {orig}
            clone(CloneType.E2E, 5);
        }} else {{
            {copy}
        }}"""), frames=[(1, H(1, 2, 3, 4))], clones={5: ([(3, 0)], 0)}, json_path=True)
    for name, (orig, copy) in _E2E_READS.items()
]

# ... and a multicast replica's PHV too (clone_with_phv: copy_headers; the original's PHV goes back to the
# pool after ingress): checkmate-switch copied the original whole, and its last replica was the original
_REPL_READS = {
    "header": ("hdr.h2.a = 7; hdr.h2.d = hdr.h.d;", "hdr.h.b = hdr.h2.a; hdr.h.d = hdr.h2.d;"),
    "metadata_header": ("meta.mh.a = 7; meta.mh.d = hdr.h.d;", "hdr.h.b = meta.mh.a; hdr.h.d = meta.mh.d;"),
    "stack_element": ("meta.ms[0] = hdr.h; meta.ms[0].a = 7; meta.ms[0].setInvalid();",
                      "hdr.h.b = meta.ms[0].a; hdr.h.d = meta.ms[0].d;"),
}
CASES += [
    case(f"mutz44_replica_reads_an_invalid_{name}_of_a_fresh_phv", "replication", program(
        f"        sm.mcast_grp = 1;\n        {orig}\n", meta="    h_t mh;\n    h_t[2] ms;\n",
        egress=f"        {copy}\n        hdr.h.c = (bit<16>)sm.egress_rid;"),
        frames=[(1, H(1, 2, 3, 4))], mcast={1: [(2, 5), (3, 6)]}, json_path=True)
    for name, (orig, copy) in _REPL_READS.items()
]

# fuzz_mutants seed 4506 (dead_wrap on fe_name_twin_actions_in_tables): `@name(".set")` actions in two
# controls, the first one's table applied only in a dead `if` (or never): p4c drops that table and with it
# the first control's `set`, which nothing else there uses, so P4Info lists `set` where the second control's
# own actions go, after the top-level actions its tables list (LocalizeAllActions); checkmate-p4c listed it
# first, at the first control (p4info._control_actions takes a control's own actions only where it uses them)
_TWIN = {
    "dead_if": ("if (!true && (1 == 1)) { t.apply(); }", "set; NoAction;"),
    "never_applied": ("", "set; NoAction;"),
    "before_a_top_level_action": ("", "set; b2; NoAction;"),
}
CASES += [
    case(f"mutz44_twin_action_of_an_unapplied_table_listed_at_the_other_control_{name}", CAT, program(
        f"        {apply}\n", egress="        t.apply();\n", top="action b2() { }\n",
        ingress_decls="""    @name(".set") action set(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.a: exact; } actions = { set; NoAction; } }""",
        egress_decls=f"""    @name(".set") action set(bit<8> v) {{ hdr.h.c = (bit<16>)v + 1; }}
    table t {{ key = {{ hdr.h.a: exact; }} actions = {{ {acts} }} }}"""),
        frames=[(1, H(1, 2, 3, 4))])
    for name, (apply, acts) in _TWIN.items()
]

# fuzz_mutants seed 4654 (exit_stmt on fuzz20_subcontrol_copy_back_caller_paths): a sub-control's store to a
# union member (`a(h.u.x)` in Sa), then a statement that may return -- a switch case or an `if` arm that
# overwrites the member and returns -- and the overwrite after it.  RemoveReturns puts what follows under
# `if (!hasReturned)`, whose flag is unknown there, so p4c's def-use keeps the store (BMv2: u.w invalid, as
# Sa left it); checkmate-p4c took the later overwrite as running on every path and dropped it
# (union_defuse.overwritten with _past_return).  `no_return` agreed before (guard).
_RET = {
    "switch_case": "switch (hdr.h.b) { 1: { hdr.u.x = hdr.h2; return; } default: { meta.m8 = 1; } }",
    "if_arm": "if (hdr.h.b == 1) { hdr.u.x = hdr.h2; return; }",
    "no_return": "if (hdr.h.b == 1) { hdr.u.x = hdr.h2; }",
}
CASES += [
    case(f"mutz44_union_store_before_a_statement_that_may_return_{name}", CAT, program(f"""
        sa.apply(hdr); {stmt} hdr.u.x = hdr.h2;
        hdr.h.c = (bit<16>)((bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.x.isValid());
""", top="control Sa(inout headers_t h) { action a(out h_t p) { p = {9, 9, 9, 9}; } apply { a(h.u.x); } }\n",
        ingress_decls="    Sa() sa;\n", **_U),
        frames=[(1, H(a, b, 2, d=2, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3, 4) for b in (1, 2)])
    for name, stmt in _RET.items()
]

# fuzz_mutants seed 4729 (action_if on fuzz19_union_store_dead_through_switch): a union-member store before
# `switch (t.apply().action_run)` whose every case (a default among them) overwrites it is dead also where
# an action of t returns early -- the return ends the action only, the case runs after it (BMv2 keeps
# u.w valid); checkmate-p4c's table view took the return as the end of the path and kept the store
# (elab_unions.inlined_table with union_defuse.returns_passed).  `no_return` agreed before (guard).
_ACT_RET = {"conditional_return": "if (meta.m8 == 0) { return; } meta.m8 = 1;", "no_return": "meta.m8 = 1;"}
CASES += [
    case(f"mutz44_union_store_dead_through_an_action_run_switch_with_an_action_that_{name}", CAT, program("""
        hdr.u.x = hdr.h;
        switch (t.apply().action_run) { s1: { hdr.u.x = hdr.h2; } default: { hdr.u.x = hdr.h2; } }
        hdr.h.c = (bit<16>)((bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.x.isValid());
""", ingress_decls=f"""    action s1() {{ {body} }}
    action s2(bit<8> v) {{ meta.m8 = v; }}
    table t {{ key = {{ hdr.h.b: exact; }} actions = {{ s1; s2; }} default_action = s1(); }}
""", **_U),
        frames=[(1, H(a, b, 2, d=9, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3, 4) for b in (1, 2)])
    for name, body in _ACT_RET.items()
]

# (mutz44's open item, probed) an action body `if (..) { return; } hdr.u.x = hdr.h2;` called directly or by
# a table after `hdr.u.x = hdr.h;`: RemoveReturns puts the overwrite under `if (!hasReturned)`, so p4c's
# def-use keeps the caller's store (BMv2: u.w invalid, u.x as stored where the action returned);
# checkmate-p4c passed the return as a `nop` and took the overwrite as unconditional, dropping the store
# (union_defuse.returns_passed now as RemoveReturns has it)
_ACT_RET_OVERWRITE = [
    case(f"mutz44_union_store_overwritten_after_a_conditional_return_of_an_action_{name}", CAT, program(f"""
        hdr.u.x = hdr.h;
        {call}
        hdr.h.c = (bit<16>)((bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.x.isValid());
""", ingress_decls="""    action a() { if (hdr.h.b == 1) { return; } hdr.u.x = hdr.h2; }
    table t { key = { hdr.h.b: exact; } actions = { a; } default_action = a(); }
""", **_U),
        frames=[(1, H(a, b, 2, d=9, payload=bytes([9, 8, 7, 6, 5, 4, 3, 2, 1]))) for a in (1, 3, 4) for b in (1, 2)])
    for name, call in {"direct": "a();", "table": "t.apply();"}.items()
]
CASES += _ACT_RET_OVERWRITE

# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
