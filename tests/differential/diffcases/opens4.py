"""Found by helper opens4 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch must match."""
from .base import H, H2, case, program
from .stacks import U_DEP, U_FR, U_HEADERS, U_PARSER, U_REPORT

CAT = "p4c Predication"

# opens3's open question: an action that holds a `return` is predicated too.  p4c's front-end
# RemoveReturns gives it a `hasReturned` flag (the rest of a block after an `if` that may return under
# `if (!hasReturned)`, which SimplifyControlFlow writes `if (hasReturned) { ; } else {..}`), its
# def-use drops the flag's stores nothing reads, and the mid end's Predication predicates everything,
# with its known double update: `if (a != 1) { a = a + 1; } else if (a != 3) { a = 3; }` takes a from
# 0 to 2 and from 3 to 5 on BMv2 whatever follows (--top4 RemoveReturns,Predication dumps).
# checkmate-p4c left every action with a `return` unpredicated (0 -> 1, 3 -> 4).
_DU = "if (hdr.h.a != 1) { hdr.h.a = hdr.h.a + 1; } else if (hdr.h.a != 3) { hdr.h.a = 3; }"
_RET = "if (hdr.h.b == 0) { return; }"
_FR = [(1, H(a, b, c)) for a in range(4) for b in (0, 7) for c in (0, 1)]
_TBL = "    table t { actions = { a1; } default_action = a1(); }\n"


def _case(name: str, decls: str, call: str = "        a1();\n", frames=_FR):
    return case(f"opens4_predicated_{name}", CAT, program(call, ingress_decls=decls), frames=frames, json_path=True)


CASES = [
    _case(f"double_update_{name}", decls, call) for name, decls, call in (
        ("before_a_conditional_return", f"    action a1() {{ {_DU} {_RET} }}\n", "        a1();\n"),
        ("before_a_conditional_return_in_a_table_action", f"    action a1() {{ {_DU} {_RET} }}\n" + _TBL,
         "        t.apply();\n"),
        ("of_an_inout_argument_before_a_conditional_return",
         f"    action a1(inout bit<8> x) {{ {_DU.replace('hdr.h.a', 'x')} {_RET} }}\n", "        a1(hdr.h.a);\n"),
        ("of_an_inout_header_before_a_conditional_return",
         f"    action a1(inout h_t q) {{ {_DU.replace('hdr.h.a', 'q.a')} {_RET} }}\n", "        a1(hdr.h);\n"),
        ("before_a_conditional_return_and_a_store", f"    action a1() {{ {_DU} {_RET} hdr.h.d = 5; }}\n", "        a1();\n"),
        ("before_returns_in_an_if_else_if",
         f"    action a1() {{ {_DU} if (hdr.h.b == 0) {{ return; }} else if (hdr.h.c == 0) {{ return; }} }}\n",
         "        a1();\n"),
        ("in_an_if_before_a_conditional_return", f"    action a1() {{ if (hdr.h.c == 0) {{ {_DU} }} {_RET} }}\n",
         "        a1();\n"),
        ("before_a_store_and_a_return_in_a_branch",
         f"    action a1() {{ {_DU} if (hdr.h.b == 0) {{ hdr.h.d = 5; return; }} }}\n", "        a1();\n"),
        ("with_a_return_in_its_else_if",
         "    action a1() { if (hdr.h.a != 1) { hdr.h.a = hdr.h.a + 1; } else if (hdr.h.a != 3) { hdr.h.a = 3; return; } }\n",
         "        a1();\n"),
        ("after_a_conditional_return", f"    action a1() {{ {_RET} {_DU} }}\n", "        a1();\n"),
        ("before_two_conditional_returns", f"    action a1() {{ {_DU} {_RET} if (hdr.h.c == 0) {{ return; }} }}\n",
         "        a1();\n"))
]

# The guards RemoveReturns writes, predicated as p4c does: `if (hasReturned) { ; } else { S }`, the
# empty branch kept (p4c 1.2.4.8's SimplifyControlFlow writes it so and leaves it; the replay turned
# `if (c) {} else {S}` into `if (!c) {S}`, whose `!c` temporary Predication then reads where p4c reads
# the flag), and assignments that read what an earlier one in the same `if` wrote (Predication's
# "dependent" names) under a guard.  Each differed from BMv2 before.
_FR2 = [(1, H(a, b, c)) for a in (0, 1, 2) for b in (0, 2) for c in (0, 1, 2)]
_LOCAL = "t = hdr.h.a; if (t == 2) { hdr.h.a = t + 1; } else if (t != 1) { hdr.h.a = 9; }"
CASES += [
    _case(name, f"    action a1() {{ {body} }}\n", frames=_FR2) for name, body in (
        ("dependent_stores_after_a_conditional_return_in_an_else_if",
         "if (hdr.h.c == 0) { hdr.h.a = 1; hdr.h.b = hdr.h.a; } else if (hdr.h.c == 1) { hdr.h.d = 1; "
         "if (hdr.h.b == 0) { return; } hdr.h.b = 2; hdr.h.a = hdr.h.b; }"),
        ("dependent_stores_after_a_conditional_return_in_an_else",
         "if (hdr.h.c == 0) { hdr.h.a = 1; hdr.h.b = hdr.h.a; } else { if (hdr.h.a == 0) { return; } "
         "hdr.h.b = 2; hdr.h.a = hdr.h.b; }"),
        ("dependent_stores_before_a_return_in_a_branch",
         "if (hdr.h.a == 1) { hdr.h.d = 1; hdr.h.b = (bit<8>)hdr.h.d; return; } else if (hdr.h.c == 1) { "
         "hdr.h.b = 2; hdr.h.d = (bit<32>)hdr.h.b; }"),
        ("local_declared_after_a_conditional_return",
         "if (hdr.h.b == 0) { return; } bit<8> " + _LOCAL),
        ("local_in_the_else_of_an_if_with_an_empty_branch",
         "bit<8> t = 0; if (hdr.h.b == 0) { } else { " + _LOCAL + " }"))
]

# opens3's second question: an action variant (dead_reads.specialize_copy_out_bodies: a body without the
# stores its call's copy-back overwrites) was predicated by a fresh instance of the pass, but p4c's
# Predication keeps its "dependent" names from one action to the next, and predicates the action's
# copy after the actions declared before it: a0's `hdr.h.a = (bit<8>)hdr.h.d` (reading a value written
# in the same `if`) makes hdr.h.a dependent, which changes a1's nested double update (BMv2: a 0 -> 1,
# 3 -> 4 for b != 9; the fresh instance gave 2 and 5).  The variant starts from the pass's state
# before its action now (predication.predicate_alone).
_A0 = ("    action a0() { if (hdr.h.c == 7) { hdr.h.d = 1; hdr.h.a = (bit<8>)hdr.h.d; } }\n"
       "    table t0 { key = { hdr.h.d: exact; } actions = { a0; NoAction; } default_action = NoAction(); }\n")
_NESTED = "if (hdr.h.b != 9) { if (hdr.h.a != 1) { hdr.h.a = hdr.h.a + 1; } else if (hdr.h.a != 3) { hdr.h.a = 3; } }"
CASES += [
    _case(f"variant_after_an_action_with_a_dependent_store{how}", _A0 + "    action a1(inout h_t q) { "
          f"{_NESTED} hdr.h2.setValid(); hdr.h2.c = 3; }}\n" + extra, call,
          frames=[(1, H(a, b, c)) for a in range(4) for b in (0, 9) for c in (0, 1)])
    for how, extra, call in (
        ("", "", "        t0.apply();\n        a1(hdr.h2);\n"),
        ("_in_a_table", "    table t1 { actions = { a1(hdr.h2); } default_action = a1(hdr.h2); }\n",
         "        t0.apply();\n        t1.apply();\n"))
]

# Calls in an action (helper opens4): p4c's front end pastes a function, and an action called from an
# action, into the caller (copy-in locals, the body, copy-back: InlineFunctions, InlineActions) before
# its Predication, so a function's `if`s get the double update in an action (BMv2: 0 -> 2), and an
# action called under an `if` is predicated nested in it.  checkmate-switch called them (the
# function's body as written, the callee's predicated alone).
_DUX = "if (x != 1) { x = x + 1; } else if (x != 3) { x = 3; }"
CASES += [
    case(f"opens4_predicated_{name}", CAT, program(call, ingress_decls=decls, top=top), frames=_FR, json_path=True)
    for name, top, decls, call in (
        ("function_called_in_an_action", f"void f(inout bit<8> x) {{ {_DUX} }}\n",
         "    action a1() { f(hdr.h.a); }\n", "        a1();\n"),
        ("function_with_a_return_called_in_an_action", f"void f(inout bit<8> x) {{ {_DUX} if (x == 4) {{ return; }} }}\n",
         "    action a1() { f(hdr.h.a); }\n", "        a1();\n"),
        ("function_called_under_an_if_in_an_action", f"void f(inout bit<8> x) {{ {_DUX} }}\n",
         "    action a1() { if (hdr.h.c == 0) { f(hdr.h.a); } }\n", "        a1();\n"),
        ("function_with_in_and_out_parameters_called_in_an_action",
         "void f(in bit<8> v, out bit<8> x) { x = v; if (x != 1) { x = x + 1; } else if (x != 3) { x = 3; } }\n",
         "    action a1() { f(hdr.h.a, hdr.h.b); }\n", "        a1();\n"),
        ("action_called_under_an_if", "", f"    action a2(inout bit<8> x) {{ {_DUX} }}\n"
         "    action a1() { if (hdr.h.c == 0) { a2(hdr.h.a); } }\n", "        a1();\n"),
        ("action_with_a_directionless_parameter_called_under_an_if", "",
         "    action a2(bit<8> v) { if (hdr.h.a != v) { hdr.h.a = hdr.h.a + 1; } else if (hdr.h.a != 3) { hdr.h.a = 3; } }\n"
         "    action a1() { if (hdr.h.c == 0) { a2(1); } }\n", "        a1();\n"),
        ("action_with_a_return_called_from_a_table_action", "",
         f"    action a2(inout bit<8> x) {{ {_DUX} if (hdr.h.b == 0) {{ return; }} x = x + 16; }}\n"
         "    action a1() { if (hdr.h.c == 0) { a2(hdr.h.a); } }\n" + _TBL, "        t.apply();\n"))
]

# fuzz_mutants seeds 3445 and 3488 (--kinds action_if,stack_op,union_op, action_if on fuzz29_action_
# header_copy_back_drops_the_body_s_*): `a0(hdr.h2)` with `action a0(inout h_t q)` copies q back over
# hdr.h2 whole, and p4c's def-use drops the body's stores to hdr.h2 it overwrites (BMv2 reads hdr.h2.c
# 0 after the invalid copy-back) -- also a store read only by another dead store (`hdr.h2.c = 3;
# hdr.h2.c = hdr.h2.c + 2;`: its def-use is repeated until nothing changes) and one with an `if` that
# reads none of it between it and the copy-back.  checkmate-p4c kept both (3).
_FR_OPT = [(1, H(1, 2, 0x0102, 0x03040506)), (1, H2(0x31, 0x32, 0x3334, 0x35363738, b=1))]
CASES += [
    case(f"opens4_body_store_{name}_overwritten_by_a_header_copy_back", "front end (p4c-compatible)", program(
        "        a0(hdr.h2);\n        hdr.h.c = hdr.h2.c;\n        hdr.h.a = (bit<8>)hdr.h2.d;\n",
        ingress_decls=f"    action a0(inout h_t q) {{ hdr.h2.setValid(); {body} }}\n"), frames=_FR_OPT, json_path=True)
    for name, body in (
        ("read_only_by_a_dead_store_in_an_arm",
         "if (hdr.h2.c == 0) { hdr.h2.c = 3; hdr.h2.c = hdr.h2.c + 2; } else { hdr.h2.c = 3; }"),
        ("read_only_by_a_dead_store", "hdr.h2.c = 3; hdr.h2.c = hdr.h2.c + 2;"),
        ("before_an_if", "hdr.h2.c = 3; if (hdr.h.b < 8) { hdr.h.b = hdr.h2.b; }"),
        ("before_an_if_else", "hdr.h2.c = 3; if (hdr.h.b < 8) { hdr.h.b = hdr.h2.b; } else { hdr.h.d = 1; }"))
]

# `lastIndex` of a stack of header unions (helper opens4): in a `select`, simple_switch_grpc 1.15.5
# dies (SIGSEGV) at the first packet that reaches it (checkmate-switch runs it as on a stack of headers,
# both builds alike: P4Info only); read into a field in a parser state, it runs on BMv2.
_U_SELECT = U_PARSER.replace("state p16s { pkt.extract(hdr.us.next.w); transition accept; }",
                             "state p16s { pkt.extract(hdr.us.next.w); transition select(hdr.us.lastIndex) { "
                             "1: p_last1; default: accept; } }\n    state p_last1 { meta.m8 = 1; transition accept; }")
_U_ASSIGN = U_PARSER.replace("state p16s { pkt.extract(hdr.us.next.w); transition accept; }",
                             "state p16s { pkt.extract(hdr.us.next.w); meta.m8 = (bit<8>)hdr.us.lastIndex; "
                             "transition accept; }")


def _union_prog(parser: str) -> str:
    return program(U_REPORT + "        hdr.eth.dst[7:0] = meta.m8;\n", headers=U_HEADERS,
                   fields="    u_t u;\n    u_t[3] us;\n", parser=parser, deparser=U_DEP)


CASES += [
    case("opens4_union_stack_last_index_in_a_select", "header unions", _union_prog(_U_SELECT), frames=U_FR,
         p4info_only="simple_switch_grpc 1.15.5 dies (SIGSEGV) on select(us.lastIndex) of a stack of header unions"),
    case("opens4_union_stack_last_index_in_a_parser_state", "header unions", _union_prog(_U_ASSIGN), frames=U_FR,
         json_path=True),
]

# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
