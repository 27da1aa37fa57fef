"""Helper errs69's probe sweep (/work/errs69 ``gen_a.py``-``gen_e.py``, ``gen_dc.py``, each decided by
real p4c 1.2.4.8): generic structs/externs, `type`/`typedef` chains, `int` folding, ranges and
masks in select and entries, serializable enums, match kinds and annotations, table properties,
action parameter directions, scopes and duplicates, value sets, `verify`, errors, v1model extern
arguments and `_` in every argument position.  What differed:

* an untyped integer converts to a `type` declared over ``bit<N>`` written out (``type bit<8> N;
  N x = 5;``) but not to one declared over a typedef's name (``typedef bit<8> B; type B N;``):
  p4c's "'int' type can only be unified with 'int', 'bit<>', or 'signed<>' types, not with 'N'";
  ours converted it (elab_expressions ``intlit_to_newtype``);
* a named don't-care argument (``r.read(index = 1, result = _)``, ``a(x = _)``, ``sp.apply(p =
  pkt, x = _)``) was read as a name ``_`` ("unknown name _"; parser_exprs ``args``);
* a member of an enum or of ``error`` through a typedef's name (``typedef EN E2; E2.A``,
  ``typedef error ER; ER.NoError``) was "type E2 used as a value" (elab_expressions).

And the mend of review: ``_`` for a parameter that is not ``out`` is one error (extern_params
``dontcare_error``) for the v1model/core externs, user externs and ``pkt.advance``, and which
parameters are ``out`` comes from the directions of v1model.p4's and core.p4's declarations as we
parse them (``declared_params``), not from a list of names.
"""
from __future__ import annotations

import pytest
from p4c_helpers import assert_refused_as_p4c, p4c_accepts, program

from switch.compiler import compile_source

_TD = "typedef bit<8> B;\ntype B N;"


@pytest.mark.parametrize("body, culprit", [
    ("        N x = 5; hdr.h.c = (bit<8>)x;", "N x = 5;"),
    ("        N x; x = 5; hdr.h.c = (bit<8>)x;", "x = 5;"),
])
def test_an_int_literal_does_not_convert_to_a_type_over_a_typedef(body, culprit, tmp_path):
    src = program(top=_TD, body=body)
    assert_refused_as_p4c(src, culprit, r"'int' type can only be unified with .* not with 'N'", tmp_path)
    ok = program(top="type bit<8> N;", body=body)   # (over bit<8> written out: p4c converts it)
    compile_source(ok, "prog.p4")
    assert p4c_accepts(ok, tmp_path) in (None, True)


def test_an_int_literal_constant_of_a_type_over_a_typedef(tmp_path):
    src = program(top=_TD + "\nconst N K = 7;", body="        hdr.h.c = (bit<8>)K;")
    assert_refused_as_p4c(src, "const N K", r"not with 'N'", tmp_path)


@pytest.mark.parametrize("locals_, body", [
    ("    register<bit<8>>(4) r;", "        r.read(index = 1, result = _);"),
    ("", "        random(lo = 8w0, hi = 8w5, result = _);"),
    ("    direct_meter<bit<8>>(MeterType.packets) dm;\n    action a() { dm.read(result = _); }\n"
     "    table t { key = { hdr.h.a: exact; } actions = { a; } meters = dm; }", "        t.apply();"),
    ("    action a(out bit<8> x) { x = 1; }", "        a(x = _);"),
])
def test_a_named_dont_care_argument(locals_, body, tmp_path):
    src = program(locals=locals_, body=body)
    compile_source(src, "prog.p4")
    assert p4c_accepts(src, tmp_path) in (None, True)


@pytest.mark.parametrize("locals_, body, culprit", [
    ("    register<bit<8>>(4) r;", "        r.write(value = _, index = 1);", "r.write("),
    ("", "        mark_to_drop(_);", "mark_to_drop"),   # (inout: not out)
    ("", "        update_checksum(true, { hdr.h.a }, _, HashAlgorithm.csum16);", "update_checksum"),
    ("", "        clone_preserving_field_list(CloneType.I2E, 5, _);", "clone_pres"),   # (no direction)
])
def test_a_dont_care_for_a_parameter_not_declared_out(locals_, body, culprit, tmp_path):
    src = program(locals=locals_, body=body)
    assert_refused_as_p4c(src, culprit, r"don't care argument for its parameter \w+, which is not out", tmp_path)


def test_which_parameters_are_out_comes_from_the_declarations():
    """extern_params' named-argument tables agree with v1model.p4/core.p4 as we parse them, whose
    directions decide where ``_`` may stand."""
    from switch.compiler.extern_params import FUNCTIONS, METHODS, declared_params
    from switch.compiler.lexer import tokenize
    from switch.compiler.parser import parse
    from switch.compiler.preprocessor import Preprocessor

    decls = parse(tokenize(Preprocessor().run_text(program(), "p.p4"), []))
    for name, overloads in FUNCTIONS.items():
        assert sorted(overloads) == sorted([p.name for p in o] for o in declared_params(decls, name)), name
    for (kind, m), overloads in METHODS.items():
        assert sorted(overloads) == sorted([p.name for p in o] for o in declared_params(decls, kind, m)), (kind, m)
    dirs = {p.name: p.direction for o in declared_params(decls, "register", "read") for p in o}
    assert dirs == {"result": "out", "index": "in"}


@pytest.mark.parametrize("top, body", [
    ("enum bit<8> EN { A = 1, B = 2 }\ntypedef EN E2;", "        hdr.h.c = (bit<8>)E2.B;"),
    ("enum PE { X, Y }\ntypedef PE P2;", "        PE p = P2.X; if (p == P2.Y) { hdr.h.b = 1; }"),
    ("typedef error ER;", "        error e = ER.NoError; if (e == ER.NoMatch) { hdr.h.b = 1; }"),
])
def test_a_member_through_a_typedef_of_an_enum_or_error(top, body, tmp_path):
    src = program(top=top, body=body)
    compile_source(src, "prog.p4")
    assert p4c_accepts(src, tmp_path) in (None, True)


def test_no_such_member_through_a_typedef_of_an_enum(tmp_path):
    src = program(top="enum bit<8> EN { A = 1 }\ntypedef EN E2;", body="        hdr.h.c = (bit<8>)E2.Q;")
    assert_refused_as_p4c(src, "E2.Q", r"no member Q", tmp_path)


def test_a_default_actions_argument_for_a_bound_parameter(tmp_path):
    """``b(3)`` for ``b(in bit<8> x, bit<8> y)`` listed as ``b(hdr.h.a)``: p4c compares the bound
    argument first (its type error names the table's line), as for a const entry; ours counted the
    arguments and named the action's parameter y (elab_tables ``bound_args_first``)."""
    src = program(locals="    action b(in bit<8> x, bit<8> y) { hdr.h.c = x + y; }\n"
                         "    table t { key = { hdr.h.a: exact; } actions = { b(hdr.h.a); }\n"
                         "              default_action = b(3); }", body="        t.apply();")
    assert_refused_as_p4c(src, "default_action = b(3)", r"argument 3 for parameter x", tmp_path)


def test_an_accept_state_is_refused_before_the_transitions_are_resolved(tmp_path):
    """p4c's first pass refuses a declared ``accept``/``reject`` state ("should not be implemented,
    it is built-in") before it resolves a transition to an unknown state in an earlier state."""
    src = program().replace("    state start { pkt.extract(hdr.h); transition accept; }",
                            "    state start { pkt.extract(hdr.h); transition nowhere; }\n"
                            "    state accept { transition reject; }")
    assert_refused_as_p4c(src, "state accept", r"accept should not be implemented, it is built-in", tmp_path)


@pytest.mark.parametrize("locals_, body, culprit", [
    ("", "        hash(_, HashAlgorithm.crc16, 8w0, { hdr.h.a }, 8w255);", "hash("),
    ("    meter(4, MeterType.packets) mt;", "        mt.execute_meter(0, _);", "mt.execute_meter"),
])
def test_a_dont_care_for_a_generic_out_parameter(locals_, body, culprit, tmp_path):
    """p4c cannot infer the type variable of an out parameter given ``_`` ("hash: could not infer a
    type for variable O"); ours said "expression cannot be assigned to" (elab_externs ``out_lvalue``)."""
    src = program(locals=locals_, body=body)
    assert_refused_as_p4c(src, culprit, r"could not infer a type", tmp_path)


@pytest.mark.parametrize("top", [
    "extern void DD();\nvoid DD() { }",
    "extern void DD();\nvoid DD(bit<8> x) { }",
    "void DD(in bit<8> y) { }\nextern void DD(in bit<8> x);",
])
def test_an_extern_function_and_a_function_of_one_name(top, tmp_path):
    """p4c: "DD duplicates DD." at the later one, whatever their parameters (two functions or two
    extern functions of one name it takes); ours took both (elab_blocks ``check_top_level_names``)."""
    src = program(top=top)
    assert_refused_as_p4c(src, top.split("\n")[1], r"DD duplicates DD", tmp_path)


@pytest.mark.parametrize("top, locals_, body", [
    ("", "", "        .h_t x; x.setValid(); x.a = 1; hdr.h.c = x.a;"),
    ("", "    .h_t v;", "        v.a = 1; hdr.h.c = v.a;"),
    ("bit<8> f(in .h_t x) { return x.a; }", "", "        hdr.h.c = f(hdr.h);"),
    ("typedef bit<8> B8;", "", "        hdr.h.c = (.B8)hdr.h.a;"),
])
def test_a_prefixed_type(top, locals_, body, tmp_path):
    """``.h_t x;``, ``(.B8)e``: p4c's prefixedType names the top-level type; ours read a
    statement starting with ``.`` as an expression, and ``(.B8)`` as a parenthesized one (parser
    ``is_type_start``, parser_exprs ``_is_cast``)."""
    src = program(top=top, locals=locals_, body=body)
    compile_source(src, "prog.p4")
    assert p4c_accepts(src, tmp_path) in (None, True)


def test_a_tables_size_of_a_serializable_enum_member(tmp_path):
    """``size = EN.A``: p4c's "size must be a constant numeric expression" at the property; ours
    took the member's value (elab_tables)."""
    src = program(top="enum bit<8> EN { A = 4 }",
                  locals="    table t { key = { hdr.h.a: exact; } actions = { NoAction; }\n      size = EN.A;\n    }",
                  body="        t.apply();")
    assert_refused_as_p4c(src, "size = EN.A", r"size must be a constant numeric expression", tmp_path)
    ok = src.replace("size = EN.A", "size = (bit<8>)EN.A")
    compile_source(ok, "prog.p4")


@pytest.mark.parametrize("kind, entry", [("range", "false .. true"), ("ternary", "true &&& true")])
def test_an_entrys_type_error_before_a_complex_keys_missing_name(kind, entry, tmp_path):
    """A key ``hdr.h.a == 1`` without ``@name`` and a const entry ``false .. true`` for it: p4c's
    front end type-checks the entry before it names the keys ("..: cannot be applied to expression
    'false' with type 'bool'"); ours named the key first (elab_tables)."""
    src = program(locals=f"    table t {{ key = {{ hdr.h.a == 1: {kind}; }} actions = {{ NoAction; }}\n"
                         f"      const entries = {{ {entry}: NoAction(); }} }}", body="        t.apply();")
    assert_refused_as_p4c(src, entry, r"bool", tmp_path)
    nameless = program(locals=f"    table t {{ key = {{ hdr.h.a == 1: {kind}; }} actions = {{ NoAction; }} }}",
                       body="        t.apply();")
    assert_refused_as_p4c(nameless, "hdr.h.a == 1:", r"requires a @name", tmp_path)
