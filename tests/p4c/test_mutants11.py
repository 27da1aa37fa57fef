"""More one-mistake programs and their valid neighbours (helper mutz36 on; the design notes are in
test_mutants.py): each mutant is rejected with ``file:line:col`` on its line and a message naming
the problem, its valid twin compiles, and with p4c on PATH p4c agrees on both and on every VALID
program."""
from __future__ import annotations

from p4c_helpers import program
from test_mutants import mutant_table_tests


def _bound(default: str, entries: str = "") -> str:
    """Table t listing ``s(hdr.h.a)`` (an action with an ``inout`` parameter) with ``default`` as
    its default action and ``entries`` as its const entries."""
    return program(locals="    action s(inout bit<8> x, bit<8> y) { x = x + y; }\n"
                          f"    table t {{ key = {{ hdr.h.c: exact; }} actions = {{ s(hdr.h.a); }} "
                          f"default_action = {default};{entries} }}",
                   body="        t.apply();")


def _hash_after(stmt: str, pre: str = "") -> str:
    """A ``HashAlgorithm`` local (declared in ``pre``, or after ``stmt``) given to ``hash`` after ``stmt``."""
    decl = "HashAlgorithm al = HashAlgorithm.crc16;"
    return program(body=f"        {pre and decl}\n        {stmt}\n        {'' if pre else decl}\n"
                        "        bit<16> r; hash(r, al, 16w0, { hdr.h.a, hdr.h.c }, 16w1024); hdr.h.b = r;")


def _counted(body: str) -> str:
    """Action ``a(v)`` with ``body`` (a counter ``cnt`` declared), listed by an applied table."""
    return program(locals="    counter(4, CounterType.packets) cnt;\n"
                          f"    action a(bit<8> v) {{ {body} }}\n"
                          "    table t { key = { hdr.h.a: exact; } actions = { a; } }",
                   body="        t.apply();")


# name -> (invalid program, needle on the mutated line, message regex, valid twin)
CASES = {
    # p4c_mutate seed 434 (cast_slice on fuzz12_named_arguments_in_order_with_a_directional_parameter):
    # a default action's or const entry's argument for a directional parameter must be a left-value
    # (p4c's type checker, before it compares it with the one the actions list binds); a cast of the
    # bound field is not (checkmate-p4c compared their texts, and the cast's is the field's)
    **{f"{what}_argument_of_an_inout_parameter_cast": (
        _bound(default, entries), "table t", r"must be a left-value", _bound("s(hdr.h.a, 8w1)"))
       for what, default, entries in [
           ("default_action", "s(x = (bit<8>)(int<8>)(hdr.h.a), y = 8w1)", ""),
           ("default_action_positional", "s((bit<8>)hdr.h.a, 8w1)", ""),
           ("const_entry", "s(hdr.h.a, 8w1)", " const entries = { 1: s((bit<8>)hdr.h.a, 8w2); }")]},
    # fuzz_mutants seed 2470 (--kinds cast_slice,exit_stmt,switch_wrap; exit_stmt on open6_hash_algorithm_
    # variable): past a statement that always exits, in a body without a return, p4c's mid end has no
    # state, so a HashAlgorithm local given to hash there is a variable for its back end ("Unimplemented
    # compiler support: <Type_Enum> type not yet handled on this target") -- not past a conditional exit,
    # nor where the body holds a return (RemoveReturns drops the rest) (VALID)
    **{f"hash_algorithm_local_read_after_{name}": (_hash_after(stmt, pre), "hash(r, al", r"HashAlgorithm member", _hash_after(""))
       for name, stmt, pre in [("an_exit", "exit;", ""), ("a_block_exiting", "{ exit; }", ""),
                               ("if_true_exit", "if (true) { exit; }", ""),
                               ("an_if_whose_arms_exit", "if (hdr.h.a == 1) { exit; } else { exit; }", ""),
                               ("an_exit_declared_before", "exit;", "pre")]},
    # fuzz_mutants seed 2448 (--kinds action_if,stack_op,union_op; action_if, a new kind): after a conditional
    # `return` in an action the rest runs under RemoveReturns' `if (!hasReturned)`, so an extern method
    # call there (a counter's count(), also inside an `if` p4c folds to true) is conditional execution
    # (checkmate-p4c judged extern functions and setValid there, not method calls) -- not after a plain
    # `return` (dead) nor before the conditional one (VALID)
    **{f"counter_count_after_a_conditional_return_{name}": (_counted(f"if (v == 2) {{ return; }} {stmt}"), "cnt.count",
                                                         r"conditional execution in actions", _counted(stmt))
       for name, stmt in [("plain", "cnt.count(1);"), ("in_a_folded_if", "if ((hdr.h.a - hdr.h.a) == 0) { cnt.count(1); }"),
                          ("in_an_if_true", "if (true) { cnt.count(1); }")]},
}

VALID = {
    "counter_count_after_a_plain_return": _counted("return; cnt.count(1);"),
    "counter_count_before_a_conditional_return": _counted("cnt.count(1); if (v == 2) { return; } hdr.h.b = 1;"),
    "hash_algorithm_local_read_after_a_conditional_exit": _hash_after("if (hdr.h.a == 1) { exit; }"),
    "hash_algorithm_local_read_after_an_exit_in_a_body_with_a_return": _hash_after("if (hdr.h.c == 9) { return; } { exit; }"),
    "const_entry_argument_of_an_inout_parameter_as_bound": _bound("s(hdr.h.a, 8w1)", " const entries = { 1: s(hdr.h.a, 8w2); }"),
}

test_valid_program_compiles, test_mutant_rejected_on_its_line, test_p4c_agrees = mutant_table_tests(CASES, VALID)
