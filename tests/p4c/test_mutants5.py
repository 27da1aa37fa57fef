"""More one-mistake programs and their valid neighbours (helper mutz26 on; the design notes are in
test_mutants.py): each mutant is rejected with ``file:line:col`` on its line and a message naming
the problem, its valid twin compiles, and with p4c on PATH p4c agrees on both and on every VALID
program."""
from __future__ import annotations

from p4c_helpers import program
from test_mutants import mutant_table_tests

_DIV = r"the divisor must be a compile-time power of two"
_S1 = "control S(inout headers hh, inout h_t x) {\n    apply { x.c = x.c / 5; } }\n"
_S2 = "control S(inout h_t x, inout headers hh) {\n    apply { x.c = x.c / 5; } }\n"
_FO = "void f(in bit<8> v, out bit<8> o) { o = v / 3; }\n"
_AT = "    table t {{ key = {{ hdr.h.a: exact; }} actions = {{ a; }} }}\n"


def _late(src: str, top: str) -> str:
    """``src`` with ``top`` declared just before the ingress control (after the structs)."""
    return src.replace("control I(", top + "control I(", 1)


_EN = "enum bit<8> E1 { A = 1, B = 2 }\nenum bit<8> E2 { A = 1, B = 2 }\nenum bit<16> E3 { A = 1, B = 2 }\n"
_RB = ("control B(inout h_t h, register<{0}> reg) {{\n    action go() {{ {1} x; reg.read(x, 1); reg.write(1, x); }}\n"
       "    apply {{ {2} }}\n}}\n")
_RT = r"register \S+ holds {0}, result is {1}"


def _reg(decl: str, local: str, arg: str, apply: str = "go();") -> str:
    """Sub-control B takes a register<decl> parameter (its action reads it into a ``local``), applied
    with a register<arg>."""
    return program(top=_EN + _RB.format(decl, local, apply), locals=f"    register<{arg}>(4) r;\n    B() b;\n",
                   body="        b.apply(hdr.h, r);")


_MK = r"could not convert expression to Json"
_START = "    state start { pkt.extract(hdr.h); transition accept; }"
_FMK = "void f(out bool o) { o = exact == lpm; }\n"
_FDV = "void g(in bit<8> v, out bit<8> o) { o = v / 3; }\n"


def _parser(states: str, top: str = "") -> str:
    """The template program with its parser's states replaced by ``states``."""
    return program(top=top).replace(_START, states)


# name -> (invalid program, needle on the mutated line, message regex, valid twin)
CASES = {
    # in a parser too (mutz25's open item: a function called only from a parser was not judged):
    # a store p4c's def-use keeps along the states -- read by a select, a later state, the end of
    # the parse (a parameter) -- is the error; an overwritten one or an unread local is not
    "match_kind_out_param_of_function_read_in_a_parser": (
        _parser("    state start { pkt.extract(hdr.h); bool b; f(b); transition select(b) { true: accept; default: accept; } }", _FMK),
        "void f(out bool o)", _MK,
        _parser("    state start { pkt.extract(hdr.h); bool b; f(b); b = hdr.h.a == 1; transition select(b) "
                "{ true: accept; default: accept; } }", _FMK)),
    "division_out_param_of_function_read_in_a_parser": (
        _parser("    state start { pkt.extract(hdr.h); g(hdr.h.a, m.x); transition accept; }", _FDV), "void g(in", _DIV,
        _parser("    state start { pkt.extract(hdr.h); bit<8> q; g(hdr.h.a, q); transition accept; }", _FDV)),
    "division_store_read_in_a_later_state": (
        _parser("    state start { pkt.extract(hdr.h); m.x = hdr.h.a / 3; transition s2; }\n"
                "    state s2 { hdr.h.c = m.x; transition accept; }"), "m.x = hdr.h.a / 3", _DIV,
        _parser("    state start { pkt.extract(hdr.h); m.x = hdr.h.a / 3; transition s2; }\n"
                "    state s2 { m.x = 2; hdr.h.c = m.x; transition accept; }")),
    # p4c types a register<SerEnum>'s read and write with the enum: a read into its bits or into
    # another enum over them, a write of bits, a literal or another enum's value is p4c's error
    # (checkmate-p4c took the cells' bits for all of them)
    "register_of_enum_read_into_its_bits": (
        program(top=_EN, locals="    register<E2>(4) r;\n", body="        bit<8> x;\n        r.read(x, 1);\n        hdr.h.a = x;"),
        "r.read(x, 1)", _RT.format("E2", r"bit<8>"),
        program(top=_EN, locals="    register<E2>(4) r;\n", body="        E2 x;\n        r.read(x, 1);\n        hdr.h.a = (bit<8>)x;")),
    "register_of_enum_written_bits": (
        program(top=_EN, locals="    register<E2>(4) r;\n", body="        r.write(1, hdr.h.a);"), "r.write(1", r"cannot be implicitly cast to type E2",
        program(top=_EN, locals="    register<E2>(4) r;\n", body="        r.write(1, (E2)hdr.h.a);")),
    "register_of_enum_written_another_enum": (
        program(top=_EN, locals="    register<E2>(4) r;\n", body="        r.write(1, E1.A);"), "r.write(1", r"values of type E1 cannot",
        program(top=_EN, locals="    register<E2>(4) r;\n", body="        r.write(1, E2.A);")),
    "register_of_bits_read_into_an_enum": (
        program(top=_EN, locals="    register<bit<8>>(4) r;\n", body="        E2 x;\n        r.read(x, 1);"),
        "r.read(x, 1)", _RT.format(r"bit<8>", "E2"),
        program(top=_EN, locals="    register<bit<8>>(4) r;\n", body="        bit<8> x;\n        r.read(x, 1);")),
    # mutz25's open item: a register<T> parameter given a register of another type over the same
    # bits (another enum, the enum's bits, bits for an enum): p4c casts the argument, then types the
    # body again with it -- the body's read is the error, not the apply (a body not using it is fine)
    "register_parameter_given_another_enum": (
        _reg("E1", "E1", "E2"), "reg.read(x, 1)", _RT.format("E2", "E1"), _reg("E1", "E1", "E2", apply="")),
    "register_parameter_of_enum_given_its_bits": (
        _reg("E1", "E1", "bit<8>"), "reg.read(x, 1)", _RT.format(r"bit<8>", "E1"), _reg("E1", "E1", "E1")),
    "register_parameter_of_bits_given_an_enum": (
        _reg("bit<8>", "bit<8>", "E2"), "reg.read(x, 1)", _RT.format("E2", r"bit<8>"), _reg("bit<8>", "bit<8>", "bit<8>")),
    "register_parameter_of_enum_given_wider_enum": (
        _reg("E1", "E1", "E3"), "b.apply(", r"Cannot cast implicitly type register<bit<16>> to type register<E1>",
        _reg("E3", "E3", "E3")),
    # p4c_mutate seed 168 (div): a division by a constant other than a power of two is p4c's BMv2
    # back-end error only in a store its def-use keeps -- read later, copied out last (a
    # sub-control's `inout` argument aliasing another one copied out after it is dead), read by a
    # function's caller, an action a table lists, kept at an `exit` (the twins overwrite it first)
    "division_store_read_later": (
        program(body="        m.x = hdr.h.a / 3;\n        hdr.h.c = m.x;"), "m.x = hdr.h.a / 3", _DIV,
        program(body="        m.x = hdr.h.a / 3;\n        m.x = 1;\n        hdr.h.c = m.x;")),
    "division_in_sub_control_argument_copied_out_last": (
        _late(program(locals="    S() s;\n", body="        s.apply(hdr, hdr.h);"), _S1), "x.c = x.c / 5", _DIV,
        _late(program(locals="    S() s;\n", body="        s.apply(hdr.h, hdr);"), _S2)),
    "division_in_function_out_parameter_read": (
        program(top=_FO, body="        f(hdr.h.a, hdr.h.c);"), "o = v / 3", _DIV,
        program(top=_FO, body="        f(hdr.h.a, hdr.h.c);\n        hdr.h.c = 2;")),
    "division_in_listed_action": (
        program(locals="    action a(bit<8> v) { hdr.h.a = v / 3; }\n" + _AT.format(), body="        t.apply();"),
        "hdr.h.a = v / 3", _DIV,
        program(locals="    action a(bit<8> v) { hdr.h.a = v / 3; hdr.h.a = 1; }\n" + _AT.format(), body="        t.apply();")),
    "division_store_before_exit": (
        program(body="        hdr.h.a = hdr.h.c / 3;\n        exit;"), "hdr.h.a = hdr.h.c / 3", _DIV,
        program(body="        hdr.h.a = hdr.h.c / 3;\n        hdr.h.a = 1;\n        exit;")),
    "division_store_before_a_header_copy_reading_it": (
        program(locals="    h_t g;\n", body="        hdr.h.a = hdr.h.c % 3;\n        g = hdr.h;\n        hdr.h = g;"),
        "hdr.h.a = hdr.h.c % 3", r"operator %: " + _DIV,
        program(locals="    h_t g;\n", body="        hdr.h.a = hdr.h.c % 3;\n        hdr.h = g;")),
}

VALID = {
    "match_kind_store_overwritten_in_a_parser_state": _parser(
        "    state start { pkt.extract(hdr.h); bool b = exact == lpm; b = true; m.x = b ? 8w1 : 8w2; transition accept; }"),
    "division_into_a_parser_local_never_read": _parser("    state start { pkt.extract(hdr.h); bit<8> q = hdr.h.a / 3; transition accept; }"),
    # p4c's def-use drops the store first: no division reaches its back end
    "division_store_overwritten_by_its_header": program(body="        hdr.h.a = hdr.h.c / 3;\n        hdr.h = { 1, 2, 3 };"),
    "division_store_overwritten_by_its_struct": program(body="        m.x = hdr.h.a / 3;\n        m = { 1, 2 };"),
    "division_store_overwritten_on_every_path": program(
        body="        if (hdr.h.a == 1) { hdr.h.c = hdr.h.c / 3; }\n        hdr.h.c = 5;"),
    "division_into_an_unread_local": program(body="        bit<8> q;\n        q = hdr.h.a / 3;"),
    "division_in_action_out_parameter_overwritten": program(
        locals="    action a(out bit<8> o) { o = hdr.h.a / 3; }\n", body="        a(hdr.h.c);\n        hdr.h.c = 1;"),
    "division_in_sub_control_inout_overwritten": program(
        top="control S(inout h_t x) {\n    apply { x.c = x.c / 5; } }\n", locals="    S() s;\n",
        body="        s.apply(hdr.h);\n        hdr.h.c = 1;"),
    "division_folded_by_constant_propagation": program(body="        bit<8> k = 9;\n        hdr.h.a = k / 3;"),
    # ... into a sub-control's inout parameter (judged at the apply, folded in the body); before
    # a directly invoked control type, whose body is elaborated amid the caller's (p4c_mutate seed
    # 501, late_store: the caller's divisions were judged there, before its constants)
    "division_folded_in_a_sub_control_body": program(
        top="control T(inout bit<8> v) { apply { v = 9; v = v / 3; } }\n", locals="    T() t;\n", body="        t.apply(hdr.h.a);"),
    "division_folded_before_a_direct_invocation": program(
        top="control T(inout bit<8> v) { apply { v = v + 1; } }\n",
        body="        sm.egress_spec = 1; sm.egress_spec = (sm.egress_spec) / 3;\n        T.apply(hdr.h.a);"),
    # the same copy-out order for a match_kind comparison (mk_stores)
    "match_kind_store_into_argument_copied_out_before_another": _late(
        program(locals="    S() s;\n", body="        s.apply(hdr.h, hdr);"),
        "control S(inout h_t x, inout headers hh) {\n    apply { x.a = (exact == lpm) ? 8w1 : 8w2; } }\n"),
}


test_valid_program_compiles, test_mutant_rejected_on_its_line, test_p4c_agrees = mutant_table_tests(CASES, VALID)
