"""Fixed seeds of fuzz_mutants.py (p4c_mutate's mutants of the differential cases) on real p4c ->
BMv2 and checkmate-p4c -> checkmate-switch: the seeds that found a difference (helper mutz32) and a
few that agreed.  Longer runs: the module's CLI.  The seeds stand for mutants of today's cases:
when the cases change, a seed may make another mutant (its finding stays a diffcases case)."""
from __future__ import annotations

from fuzz_mutants import generate
from seed_tests import fuzz_seed_tests

# 91: a single-case switch's copy; 86, 97: select cases after a default; 310: varbit<0> on p4c's
# JSON; 1-5: agreeing ones.  (19 is diffcases' mutz32_single_case_switch_copy_past_two_dead_*: on a
# loaded machine BMv2 once sent its frames twice, so it is not a CI seed); mutz33: 711 a digest in
# the deparser on p4c's JSON, 804 code after a call of an exiting action, 1229 a strength-reduced store;
# mutz34: 1528 a dead stack-read store across a sub-control, 1756 a whole-header copy into one;
# mutz35: 2240 a whole-header copy ended by an isValid() in a sub-control, and with mutz35's kinds
# (`fuzz_mutants --kinds cast_slice,exit_stmt,switch_wrap`) 1845 a function called only after a
# return (type_info); its seed 2049, which p4c refuses, is test_mutants10's after-an-exit cases;
# mutz36: 2471 a stack-element copy past a sub-parser's extract across a folded parser `if`, and with
# mutz36's kinds (`--kinds action_if,stack_op,union_op`) 2321 a sub-control's temporary kept across applies;
# mutz37, with those kinds: 2955 an action's ?: dismantled before Predication, 2981 a body store kept only by
# an if its def-use emptied; mutz39, with `--kinds mux_expr`: 159 a ?: temporary copied into a table key,
# 251 a parser store under an `if` (a ?: condition) dropped by the def-use; mutz40: 3304 a sub-parser's select
# without a match ending the parse, with `--kinds action_if` 3550 a field store past a returning switch case
# in an action, with mutz35's kinds 3374 a function's parameter copied back past an exiting switch case,
# with mutz36's kinds 3793 a dead store across a pop_front of another stack, with `mux_expr` 1528 an emptied `if`
# reading a stack past the end, 1588 a store read only by an emptied `if` before a self-reading initializer;
# mutz42: 3955 verify_checksum of a field in an invalid header, with `mux_expr` 1761 a ?: temporary past a
# returning switch case behind an earlier return, with mutz35's kinds 3999 a table property's direct counter
# of a dropped table (type_info), 4015 a local kept live by a read a case copy replaced, with mutz36's kinds
# 4243 and 4381 an action body's store before a `return` dead at the copy-back / the call site, with `mux_expr`
# 1878 a union copy-back read only by a store dead past an emptied `if`; mutz43, with mutz35's kinds 4112 an exit
# under an `if` before a returning case's `return` (RemoveReturns' flag unknown past the switch); mutz44, with
# mutz35's kinds 4332 a HashAlgorithm local hashed past an exit, known from its read before it, and 4506 an
# @name twin action of a dropped table listed at the other control (P4Info order), with mutz35's kinds 4654 a
# union store before a switch case that returns (RemoveReturns' flag), with mutz36's kinds 4729 one before an
# action_run switch whose action returns early; mutz46, with mutz36's kinds 4903 an action body's store before an
# `if` whose arm returns, dead at the copy-back, and 5422 a whole-union store dead before a struct copy; with
# mutz35's kinds 5639 an action's store dead before a self-reading initializer where the body ends in `return`;
# mutz51, with mutz35's kinds 5831 an action's store past the stack's end dead at the copy-back before its `exit`,
# 5718 a sub-control's division store dead before the caller's self-reading header initializer; stale55, with
# `mux_expr`, 3766 a ?: temporary's copy carried into a sub-parser past its extract(s.next); mutz59, with `mux_expr`,
# 3793 a ?: temporary past two single-case switches that return, with mutz35's kinds 6298 an action's store after an
# `if` that returns, dead before a self-reading initializer, with `mux_expr` 4577 a union member assigned a ?: of
# its sibling, 4648 a dead parser store with a division under a ?:, with the default kinds 6376 a bit<32> shift
# the mid end folds through a single-case switch's copies, with mutz35's kinds 6505 a hash into a bool past a plain
# `return` (no load refusal), with `mux_expr` 5106 a sub-control's union store kept by a ?: condition emptied only
# after inlining; mutz67, with `mux_expr`, 5256 a match_kind comparison in the condition of an `if` its dead
# stores empty (p4c removes the `if`); mutz72, with the paired kind `compound_assign` (checkmate-p4c's `op=` against
# p4c's spelling), 31 an agreeing `hdr.h.a |+|= hdr.h.d[7:0]`.  A seed that is a CI seed under two kind lists is
# written "SEED:KINDS" for the second (1528 with `mux_expr`: the plain 1528 runs the default kinds again)
SEEDS = [1, 2, 3, 4, 5, 86, 91, 97, 310, 711, 804, 1229, 1528, 1756, 2240, 1845, 2471, 2321, 2955, 2981, 159, 251,
         3304, 3550, 3374, 3793, "1528:mux_expr", 1588, 3955, 1761, 3999, 4015, 4243, 4381, 1878, 4112, 4332, 4506, 4654, 4729, 4903,
         5422, 5639, 5831, 5718, 3766, "3793:mux_expr", 6298, 4577, 4648, 6376, 6505, 5106, 5256, 31]
_KIND_SEEDS = {1845: "cast_slice,exit_stmt,switch_wrap", 2321: "action_if,stack_op,union_op",
               2955: "action_if,stack_op,union_op", 2981: "action_if,stack_op,union_op",
               159: "mux_expr", 251: "mux_expr", 3550: "action_if", 3374: "cast_slice,exit_stmt,switch_wrap",
               3793: "action_if,stack_op,union_op", 1588: "mux_expr", 1761: "mux_expr",
               3999: "cast_slice,exit_stmt,switch_wrap", 4015: "cast_slice,exit_stmt,switch_wrap",
               4243: "action_if,stack_op,union_op", 4381: "action_if,stack_op,union_op", 1878: "mux_expr",
               4112: "cast_slice,exit_stmt,switch_wrap", 4332: "cast_slice,exit_stmt,switch_wrap",
               4654: "cast_slice,exit_stmt,switch_wrap", 4729: "action_if,stack_op,union_op",
               4903: "action_if,stack_op,union_op", 5422: "action_if,stack_op,union_op",
               5639: "cast_slice,exit_stmt,switch_wrap", 5831: "cast_slice,exit_stmt,switch_wrap",
               3766: "mux_expr", 6298: "cast_slice,exit_stmt,switch_wrap",
               4577: "mux_expr", 4648: "mux_expr", 6505: "cast_slice,exit_stmt,switch_wrap",
               5106: "mux_expr", 5256: "mux_expr", 31: "compound_assign"}


def _mutant(seed: int | str):
    if isinstance(seed, str):   # "SEED:KINDS"
        s, _, kinds = seed.partition(":")
        return generate(int(s), kinds)
    return generate(seed, _KIND_SEEDS.get(seed))


targets, pytestmark, test_generator_is_deterministic, test_mutant = fuzz_seed_tests(
    _mutant, SEEDS, "fuzz_mutants", same=("source", "frames", "entries"),
    reason="mutant differential needs real p4c + BMv2")


def test_a_build_simple_switch_refuses_is_no_finding(targets):
    """Seed 1061 (a bool hash base): checkmate-p4c's build carries the load_error, simple_switch
    refuses p4c's JSON and so does the BMv2-JSON loader -- LOAD-REFUSED, not ours (it was CRASH:
    simple_switch_grpc answers the push OK and dies at the first packet)."""
    from fuzz_run import check_case
    o = check_case(targets, generate(1061), 1061)
    assert [k for k, _ in o.findings] == ["LOAD-REFUSED"] and not o.ours, o.findings
