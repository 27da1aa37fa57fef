"""Helper errs54's probe sweep (/work/errs54 ``gen_a.py``-..., each decided by real p4c 1.2.4.8):
generic structs/headers/functions/controls and their specialization, extern overloads and abstract
methods, constructor parameters, enums and casts, compile-time arithmetic, ``match_kind``, ``error``,
``emit`` of every type, control-plane names and ids (``@name``/``@id``/``@hidden``), declaration
order and shadowing, struct-valued expressions.  What differed:

* a field of V1Switch's headers struct (at any depth) that is not a header, stack or union: p4c's
  "headers: the type should be a struct of headers, stacks, or unions" is at the parser's headers
  parameter type (``out headers hdr``); checkmate-p4c named the field's line (checks
  ``_struct_of_headers``);
* a width given by a local constant (``const int W = 8; bit<(W)> z;`` in a control body, action or
  parser state): p4c compiles it, checkmate-p4c said "a bit width must be a compile-time integer
  constant"; under a top-level constant of the same name it took the top-level one; and a
  constructor parameter as a width (``control C(..)(bit<32> n) { apply { bit<(n)> y; } }``) is p4c's
  "n: expected a constant" (elab_types ``const_int``: the statement's scope first when a name
  means something else there; a method call such as ``hdr.h.minSizeInBits()`` stays refused);
* ``_`` as the result of ``random`` (typed bounds) or ``register.read``: p4c gives it a temporary,
  checkmate-p4c said "expression cannot be assigned to" (elab_externs ``out_lvalue``);
* a ``?:`` whose arms are list expressions where a struct is wanted (``p_t r = c ? { 8w1, 8w2 } :
  { 8w3, 8w4 };``, nested, in a return): p4c converts each arm, checkmate-p4c said "a tuple value
  cannot become p_t"; with struct initializers ``{ a = 1, .. }`` for arms p4c 1.2.4.8 dies in its
  type checker (ours crashed with a KeyError, now an error) (elab_values ``make_value``);
* a bool leaf of a struct inside a header (``header sh_t { in_t f; }``, ``struct in_t { bool a; .. }``):
  p4c takes ``x.f.a = true``, checkmate-p4c said "expected bit<1>, got bool" (elab_types
  ``declare_struct``).
"""
from __future__ import annotations

import pytest
from p4c_helpers import assert_refused_as_p4c, p4c_accepts, program

from switch.compiler import compile_source


@pytest.mark.parametrize("top, field", [
    ("", "bit<8> b;"),
    ("struct w_t { h_t h; bit<8> b; }\n", "w_t w;"),
    ("struct w_t { h_t h; bit<8> b; }\nstruct v_t { w_t w; }\n", "v_t v;"),
])
def test_headers_struct_error_is_at_the_parsers_headers_parameter(top, field, tmp_path):
    src = program(top=top).replace("struct headers { h_t h; }", "struct headers { h_t h; " + field + " }")
    assert_refused_as_p4c(src, "out headers hdr", r"headers: the type should be a struct of headers", tmp_path)


@pytest.mark.parametrize("top, locals_, body", [
    ("", "", "        const int W = 8; bit<(W)> z = hdr.h.a; hdr.h.c = z;"),
    ("", "    action a1() { const int W = 8; bit<(W)> z = hdr.h.a; hdr.h.c = z; }", "        a1();"),
    ("const int W = 16;", "", "        const int W = 8; bit<(W)> z = hdr.h.a; hdr.h.c = z;"),
    ("", "", "        const int W = 8; int<(W)> z = (int<8>)hdr.h.a; hdr.h.c = (bit<8>)z;"),
    ("", "", "        const int N = 4; hdr.h.a = (bit<8>)(bit<(N)>)hdr.h.c;"),
])
def test_local_constant_as_a_width(top, locals_, body, tmp_path):
    src = program(top=top, locals=locals_, body=body)
    compile_source(src, "prog.p4")
    assert p4c_accepts(src, tmp_path) in (None, True)


def test_local_constant_as_a_width_in_a_parser_state(tmp_path):
    src = program().replace("pkt.extract(hdr.h);", "pkt.extract(hdr.h); const int W = 8; bit<(W)> z = hdr.h.a; hdr.h.c = z;")
    compile_source(src, "prog.p4")
    assert p4c_accepts(src, tmp_path) in (None, True)


def test_constructor_parameter_as_a_width_is_not_a_constant(tmp_path):
    top = "control Sub(inout bit<8> x)(bit<32> n) { apply { bit<(n)> y = 0; } }"
    src = program(top=top, locals="    Sub(8) s;", body="        s.apply(hdr.h.a);")
    assert_refused_as_p4c(src, "bit<(n)>", r"n: expected a constant", tmp_path)
    # (a table's size may be one: p4c takes it)
    ok = program(top="control Sub(inout bit<8> x)(bit<32> n) { table t { key = { x: exact; } actions = { NoAction; } "
                     "size = n; } apply { t.apply(); } }", locals="    Sub(64) s;", body="        s.apply(hdr.h.a);")
    compile_source(ok, "prog.p4")


def test_a_method_call_as_a_width_is_not_a_constant(tmp_path):
    src = program(body="        bit<(hdr.h.minSizeInBits())> x = 0; hdr.h.a = x[7:0];")
    assert_refused_as_p4c(src, "bit<(hdr", r"must be a compile-time integer constant", tmp_path)


@pytest.mark.parametrize("locals_, body", [
    ("", "        random(_, 8w0, 8w7);"),
    ("    register<bit<8>>(4) r;", "        r.read(_, 0);"),
])
def test_dontcare_result_of_an_extern_call(locals_, body, tmp_path):
    src = program(locals=locals_, body=body)
    compile_source(src, "prog.p4")
    assert p4c_accepts(src, tmp_path) in (None, True)


@pytest.mark.parametrize("locals_, body, words", [
    # (ours: "could not infer a type" since errs69, was "cannot be assigned"; p4c: "0: could not
    # infer a width" for random, "hash: could not infer a type for variable O")
    ("", "        random(_, 0, 7);", r"could not infer a type"),
    ("", "        hash(_, HashAlgorithm.crc16, 8w0, { hdr.h.c }, 8w255);", r"could not infer a type"),
])
def test_dontcare_result_whose_type_is_unknown(locals_, body, words, tmp_path):
    assert_refused_as_p4c(program(locals=locals_, body=body), body.strip()[:6], words, tmp_path)


_PT = "struct p_t { bit<8> a; bit<8> b; }"


@pytest.mark.parametrize("body", [
    "        p_t r = hdr.h.a == 1 ? { 8w1, 8w2 } : { 8w3, 8w4 }; hdr.h.c = r.a + r.b;",
    "        p_t r; r = hdr.h.a == 1 ? { 1, 2 } : { 3, 4 }; hdr.h.c = r.a + r.b;",
    "        p_t r = hdr.h.a == 1 ? { 8w1, 8w2 } : (hdr.h.a == 2 ? { 8w5, 8w6 } : { 8w3, 8w4 }); hdr.h.c = r.b;",
])
def test_conditional_of_list_expressions_as_a_struct(body, tmp_path):
    src = program(top=_PT, body=body)
    compile_source(src, "prog.p4")
    assert p4c_accepts(src, tmp_path) in (None, True)


def test_conditional_of_struct_initializers_as_a_struct(tmp_path):
    # (p4c 1.2.4.8 dies in its type checker: a Compiler Bug without a line)
    src = program(top=_PT, body="        p_t r = hdr.h.a == 1 ? { a = 8w1, b = 8w2 } : { a = 8w3, b = 8w4 }; hdr.h.c = r.a;")
    assert_refused_as_p4c(src, "p_t r =", r"struct initializers", tmp_path)


@pytest.mark.parametrize("body", [
    "        sh_t x; x.setValid(); x.f.a = true; if (x.f.a) { hdr.h.c = 1; }",
    "        sh_t x; x.setValid(); x.f.a = hdr.h.a == 1; x.f.b = 3; hdr.h.c = x.f.a ? 8w1 : 8w2;",
])
def test_bool_inside_a_struct_inside_a_header(body, tmp_path):
    src = program(top="struct in_t { bool a; bit<7> b; }\nheader sh_t { in_t f; }", body=body)
    compile_source(src, "prog.p4")
    assert p4c_accepts(src, tmp_path) in (None, True)
