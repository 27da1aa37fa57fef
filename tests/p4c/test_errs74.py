"""Helper errs74's probe sweep (/work/errs74 ``gen_a.py``-``gen_c.py``, each decided by real p4c
1.2.4.8): generic functions and their type inference, default and ``@optional`` parameters,
``this`` and abstract methods, ``switch`` on values with fall-through labels, ``static_assert``,
tuples and list/structure expressions, select on tuples/structures/serializable enums, value sets,
serializable enums in keys and entries, ``int`` folding limits, ``@name``/``@match`` and other
annotations, shadowing and duplicate names.  What differed:

* an instance initializer ``= { ... }`` of a v1model extern (``register<bit<8>>(4) r = { };``) is p4c's
  "instance initializers for extern without abstract methods"; ours took the plain instance
  (elab_blocks ``declare_instance``);
* a control's or parser's instance with an initializer (``Z() z = { };``) is p4c's "initializers only
  allowed for extern instances" (ours: taken);
* a generic function beside another function of its name (``T f<T>(in T x)`` and ``bit<8> f(in
  bit<8> x, in bit<8> y)``) is an overload chosen by the call's arguments, as two plain functions are
  (ours: the later declaration hid the earlier; elab_functions ``resolve_function``); one of the same
  arity is p4c's "multiple matching declarations";
* a string for a generic parameter with a direction (``void f<T>(in T x)``, ``f("x")``) is p4c's "x:
  a parameter with type string cannot have a direction" at the parameter (ours: taken);
* a select label of another type than its key (``16w1``, ``true``, ``8s1``, a mask or range of
  ``bit<16>``, a wider or plain enum's member, a tuple label with one) and a label of the wrong arity
  are p4c's "'SelectExpression' ..." at the select's line (ours: at the label's); a switch label of
  another type (an integer for a serializable enum too) is p4c's "'x' with type 'bit<8>' cannot be
  compared to '16w1'" at the switch, and so are two ``default`` labels ("SwitchStatement has multiple
  'default' labels"; ours: at the second);
* ``select({ a, b }) { (1, 2): .. }``: the list is one key of a tuple type for p4c ("Tuples with different
  sizes 1 vs 2"); ours flattened it into two keys and took the case;
* ``static_assert(true, 5)``: the message must be a string (p4c's type error; ours: taken);
* two controls (or two parsers) of one name compile in p4c while nothing names them; the first use
  (an instantiation, a V1Switch argument) is p4c's "Z: multiple matching declarations" -- ours
  refused the second declaration at once (elab_blocks ``_ambiguous_block_use``; errs69's open item).
"""
from __future__ import annotations

import pytest
from p4c_helpers import assert_refused_as_p4c, p4c_accepts, program

from switch.compiler import compile_source

_Z = "control Z(inout bit<8> h) { apply { } }\n"


@pytest.mark.parametrize("top", [
    _Z + _Z,
    _Z + "control Z(inout bit<8> h, in bit<8> x) { apply { } }\n",
    "parser Z(packet_in p) { state start { transition accept; } }\n" * 2,
])
def test_two_blocks_of_one_name_that_nothing_uses(top, tmp_path):
    src = program(top=top, body="        hdr.h.c = 1;")
    compile_source(src, "prog.p4")
    assert p4c_accepts(src, tmp_path) in (None, True)


@pytest.mark.parametrize("top, locals_, culprit", [
    (_Z + _Z, "    Z() z;", "Z() z;"),
    (_Z + "control Z(inout bit<8> h, in bit<8> x) { apply { } }\n", "    Z() z;", "Z() z;"),
    ("control E(inout bit<8> x) { apply { } }\n", "", "V1Switch("),
])
def test_two_blocks_of_one_name_used(top, locals_, culprit, tmp_path):
    src = program(top=top, locals=locals_, body="        hdr.h.c = 1;")
    assert_refused_as_p4c(src, culprit, r"multiple matching declarations", tmp_path)


@pytest.mark.parametrize("second, words", [
    ("parser Z(packet_in p) { state start { transition accept; } }", r"Re-declaration of Z with different type"),
    ("control Z(inout bit<8> h);", r"Re-declaration of Z"),
])
def test_a_control_and_another_kind_of_one_name(second, words, tmp_path):
    src = program(top=_Z + second + "\n", body="        hdr.h.c = 1;")
    assert_refused_as_p4c(src, second, words, tmp_path)


@pytest.mark.parametrize("locals_, body", [
    ("    register<bit<8>>(4) r = { };", "        r.write(0, 1);"),
    ("    counter(4, CounterType.packets) c = { };", "        hdr.h.c = 1;"),
    ("    register<bit<8>>(4) r = { bit<8> get() { return 1; } };", "        hdr.h.c = 1;"),
])
def test_an_initializer_of_a_v1model_extern_instance(locals_, body, tmp_path):
    """v1model's externs have no abstract methods: p4c's "instance initializers for extern without
    abstract methods" (ours took `register<bit<8>>(4) r = { };` as the plain instance)."""
    src = program(locals=locals_, body=body)
    assert_refused_as_p4c(src, locals_.strip(), r"instance initializers for extern without abstract methods", tmp_path)


def test_a_local_named_as_two_blocks_is_no_use_of_them(tmp_path):
    src = program(top=_Z + _Z, body="        bit<8> Z = 1; hdr.h.c = Z;")
    compile_source(src, "prog.p4")
    assert p4c_accepts(src, tmp_path) in (None, True)


def test_an_initializer_of_a_control_instance(tmp_path):
    src = program(top=_Z, locals="    Z() z = { };", body="        z.apply(hdr.h.c);")
    assert_refused_as_p4c(src, "Z() z", r"initializers only allowed for extern instances", tmp_path)


_G = "T f<T>(in T x) { return x; }\n"
_F2 = "bit<8> f(in bit<8> x, in bit<8> y) { return x + y; }\n"


@pytest.mark.parametrize("top, body", [
    (_G + _F2, "        hdr.h.c = f(hdr.h.a);"),
    (_G + _F2, "        hdr.h.c = f(hdr.h.a, 3);"),
    (_F2 + _G, "        hdr.h.c = f(hdr.h.a);"),
    (_F2 + _G, "        hdr.h.c = f(y = 1, x = hdr.h.a);"),
    (_G + "T f<T>(in T x, in T y) { return y; }\n", "        hdr.h.c = f(hdr.h.a); hdr.h.b = f(hdr.h.b, hdr.h.b);"),
    ("void g<T>(inout T x) { x = x; }\nvoid g(inout bit<8> x, in bit<8> y) { x = y; }\n", "        g(hdr.h.c, 4); g(hdr.h.a);"),
])
def test_a_generic_function_beside_another_of_its_name(top, body, tmp_path):
    """Overloads by the number of arguments, generic or not (ours: the later declaration hid the
    earlier one -- "function f: no argument for parameter y")."""
    src = program(top=top, body=body)
    compile_source(src, "prog.p4")
    assert p4c_accepts(src, tmp_path) in (None, True)


@pytest.mark.parametrize("top", [_G + "bit<8> f(in bit<8> x) { return x; }\n",
                                 _G + "U f<U>(in U z) { return z; }\n"])
def test_a_generic_function_beside_another_of_its_arity(top, tmp_path):
    src = program(top=top, body="        hdr.h.c = f(hdr.h.a);")
    assert_refused_as_p4c(src, "= f(hdr.h.a)", r"multiple matching declarations", tmp_path)


@pytest.mark.parametrize("body", ['        f("x");', '        f<string>("x");'])
def test_a_string_for_a_directed_generic_parameter(body, tmp_path):
    src = program(top="void f<T>(in T x) { }", body=body)
    assert_refused_as_p4c(src, "void f<T>", r"x: a parameter with type string cannot have a direction", tmp_path)


def _select(labels: str, keys: str = "hdr.h.a", top: str = "") -> str:
    parser = ("    state start {\n        pkt.extract(hdr.h);\n        transition select(" + keys + ") {\n"
              + labels + "\n            default: accept;\n        }\n    }\n    state s2 { transition accept; }")
    return program(top=top, body="        hdr.h.c = 1;").replace(
        "    state start { pkt.extract(hdr.h); transition accept; }", parser)


@pytest.mark.parametrize("labels, keys, top", [
    ("            16w1: s2;", "hdr.h.a", ""),
    ("            true: s2;", "hdr.h.a", ""),
    ("            8s1: s2;", "hdr.h.a", ""),
    ("            16w1 &&& 0xff: s2;", "hdr.h.a", ""),
    ("            16w1 .. 16w5: s2;", "hdr.h.a", ""),
    ("            EN.A: s2;", "hdr.h.a", "enum bit<16> EN { A = 1 }"),
    ("            EN.A: s2;", "hdr.h.a", "enum EN { A }"),
    ("            (1, 16w1): s2;", "hdr.h.a, hdr.h.c", ""),
    ("            (1, 2, 3): s2;", "hdr.h.a, hdr.h.c", ""),
    ("            1: s2;", "hdr.h.a, hdr.h.c", ""),
])
def test_a_select_label_of_another_type_is_named_at_the_select(labels, keys, top, tmp_path):
    """p4c's "'SelectExpression' ... 'match' case label '16w1' has type 'bit<16>' which does not match
    the expected type 'bit<8>'" (or "Tuples with different sizes") names the select's line; ours named
    the label's (elab_parsers ``label_coerce``)."""
    src = _select(labels, keys, top)
    assert_refused_as_p4c(src, "transition select(", r"select case|p4c names the select", tmp_path)


@pytest.mark.parametrize("label, top", [
    ("16w1", ""), ("true", ""), ("EN.A", "enum bit<16> EN { A = 1 }"),
])
def test_a_switch_label_of_another_type_is_named_at_the_switch(label, top, tmp_path):
    """p4c: "'hdr.h.a' with type 'bit<8>' cannot be compared to '16w1' with type 'bit<16>'" at the
    switch's expression (ours: at the label)."""
    body = "        switch (hdr.h.a) {\n            " + label + ": { hdr.h.c = 1; }\n            default: { }\n        }"
    src = program(top=top, body=body)
    assert_refused_as_p4c(src, "switch (hdr.h.a)", r"cannot be compared to the label", tmp_path)


def test_a_static_assert_message_that_is_not_a_string(tmp_path):
    src = program(top="const bool ok = static_assert(true, 5);", body="        hdr.h.c = 1;")
    assert_refused_as_p4c(src, "static_assert(true, 5)", r"static_assert: the message must be a string", tmp_path)


@pytest.mark.parametrize("label, top, culprit", [
    ("            (S){ x = 1, y = 2 }: s2;", "struct S { bit<8> x; bit<16> y; }", "(S){"),
])
def test_a_structure_valued_select_label(label, top, culprit, tmp_path):
    """p4c's "must be a compile-time constant" names the label before the select is typed (the arity
    mismatch, named at the select above, comes after)."""
    src = _select(label, "hdr.h.a, hdr.h.c", top)
    assert_refused_as_p4c(src, culprit, r"must be a compile-time constant", tmp_path)


@pytest.mark.parametrize("body", [
    "        switch (hdr.h.a) {\n            default: { }\n            default: { hdr.h.c = 1; }\n        }",
    "        switch (hdr.h.a) {\n            1: { }\n            default:\n            default: { hdr.h.c = 1; }\n        }",
])
def test_two_default_labels_are_named_at_the_switch(body, tmp_path):
    src = program(body=body)
    assert_refused_as_p4c(src, "switch (hdr.h.a)", r"more than one 'default' label", tmp_path)


def test_an_int_label_of_a_switch_on_a_serializable_enum(tmp_path):
    src = program(top="enum bit<8> EN { A = 1, B = 2 }",
                  body="        switch ((EN)hdr.h.a) {\n            1: { hdr.h.c = 1; }\n            default: { }\n        }")
    assert_refused_as_p4c(src, "switch ((EN)", r"cannot be compared to the label", tmp_path)


def test_a_tuple_label_of_a_select_on_one_list_expression(tmp_path):
    """``select({ a, b }) { (1, 2): .. }``: the list is one key, of a tuple type, for p4c ("Tuples with
    different sizes 1 vs 2" at the select); ours flattened it into two keys and took the case."""
    src = _select("            (1, 2): s2;", "{ hdr.h.a, hdr.h.c }")
    assert_refused_as_p4c(src, "transition select(", r"Tuples with different sizes 1 vs 2", tmp_path)
