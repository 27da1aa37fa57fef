"""Helper errs62's probe sweep (/work/errs62 ``gen_a.py``-..., each decided by real p4c 1.2.4.8):
parser states and transitions, select keysets (masks, ranges, tuples, defaults), value sets,
``verify``, ``lookahead``/``advance``/``extract`` forms, table properties (default actions,
``const default_action``, keys, sizes, unknown properties), const entries of every match kind,
direct counters/meters, action profiles/selectors, ``switch`` on ``action_run``.  What differed:

* ``r.read(x, i)`` in a parser state whose result stays live (a header or metadata field, a local
  read later in the state, its select or another state) is p4c's "r.read: not supported in parser
  on this target"; a dead one (``_``, overwritten, an unused local) is removed by p4c's mid-end
  first and compiles.  checkmate-p4c let every parser read through (deparser_defuse
  ``parser_read_dead``, elab_object_calls);
* a table's action listed with a leading dot (``actions = { a1; .NoAction; }``: p4c's actionRef
  takes a prefixed name, the top-level action) was our syntax error (parser_tables, elab_tables);
* const entries of a table keyed by a plain enum: p4c takes the enum's members (its error, when
  the table is applied, is the enum's width at its declaration) and refuses other values ("'Entry'"
  type error); ours took the key as bit<32>: "expected bit<32>, got EE" at the entry, and an
  integer accepted (elab_entries ``entry_match``);
* an annotation or ``const`` before a table's ``key`` or ``actions`` is p4c's syntax error
  ("unexpected KEY"); ours took it (parser_tables);
* a cast to a serializable enum as a const entry's action argument (``a1((EN)8w7)``, a member's
  value too, or a constant holding one) is p4c's "unsupported argument expression" where the table
  is kept; a cast between ``bool`` and a serializable enum (``(bool)EB.A`` of an ``enum bit<1>``,
  ``(EB)true``) is p4c's type error (elab_casts);
* a struct/header/union field of an extern type (a typedef of one too; not one with type arguments,
  which p4c takes while unused) is "Field 'e' of 'struct es_t' cannot have type 'Ex'" (checks_decls);
* an abstract method's body does not see the control's local variables ("q: declaration not
  found") and cannot call its actions; a user extern's constructor argument must be a compile-time
  constant (elab_externs; ours named the call later, "could not convert expression to Json");
* ``_`` for an extern parameter that is not ``out`` (``r.write(0, _)``, ``clone(.., _)``,
  ``random(r, _, 8w5)``, ``hash``'s base, ``truncate(_)``) is p4c's type error (extern_params
  ``dontcare_inputs``);
* ``@max_group_size`` takes one integer literal (p4c's syntax error; ours died with a ValueError).

Also fixed (diffcases/errs62.py): ``r.read(_, 0)`` in a parser state dropped every packet on
checkmate-switch (its hidden local written as a control local).
"""
from __future__ import annotations

import pytest
from p4c_helpers import assert_refused_as_p4c, line_of, p4c_accepts, program

from switch.compiler import compile_source

_R = "    register<bit<8>>(4) r;"


def _parser(src: str, plocals: str, start: str, trans: str = "transition accept;", states: str = "") -> str:
    return src.replace("    state start { pkt.extract(hdr.h); transition accept; }",
                       f"{plocals}\n    state start {{ pkt.extract(hdr.h); {start} {trans} }}\n{states}")


@pytest.mark.parametrize("start, trans, states", [
    ("r.read(hdr.h.c, 0);", "transition accept;", ""),
    ("r.read(m.x, 0);", "transition accept;", ""),
    ("bit<8> t; r.read(t, 0); hdr.h.c = t;", "transition accept;", ""),
    ("bit<8> t; r.read(t, 0); verify(t == 0, error.NoMatch);", "transition accept;", ""),
    ("r.read(t, 0);", "transition select(t) { 1: reject; default: accept; }", ""),
    ("r.read(t, 0);", "transition s1;", "    state s1 { hdr.h.a = t; transition accept; }"),
    ("if (hdr.h.a == 1) { r.read(hdr.h.c, 0); }", "transition accept;", ""),   # (in a branch)
    ("meta_t l; r.read(l.x, 0); hdr.h.c = l.x;", "transition accept;", ""),
])
def test_a_live_register_read_in_a_parser_is_refused(start, trans, states, tmp_path):
    src = _parser(program(), _R + " bit<8> t;", start, trans, states)
    assert_refused_as_p4c(src, "r.read(", r"r\.read: .*not supported in parser on this target", tmp_path)


@pytest.mark.parametrize("start", [
    "r.read(_, 0);",
    "bit<8> t; r.read(t, 0);",
    "bit<8> t; r.read(t, 0); t = 1; hdr.h.c = t;",
    "r.read(hdr.h.c, 0); hdr.h.c = 3;",
    "r.read(m.x, 0); m.x = 3;",
    "r.read(t, 0);",   # (a parser-level local nothing reads)
    "r.read(hdr.h.a, 0); pkt.extract(hdr.h);",   # (overwritten by an extract, a function's out argument)
    "r.read(m.x, 0); f(m.x);",
    "if (hdr.h.a == 1) { bit<8> u; r.read(u, 0); }",
    "if (hdr.h.a == 1) { r.read(m.x, 0); m.x = 1; }",
])
def test_a_dead_register_read_in_a_parser_compiles(start, tmp_path):
    src = _parser(program(top="void f(inout bit<8> x) { x = 1; }"), _R + " bit<8> t;", start)
    compile_source(src, "prog.p4")
    assert p4c_accepts(src, tmp_path) in (None, True)


@pytest.mark.parametrize("top, locals_, body", [
    ("", "    table t { key = { hdr.h.a: exact; } actions = { .NoAction; } }", "        t.apply();"),
    ("", "    table t { key = { hdr.h.a: exact; } actions = { .NoAction; } default_action = .NoAction(); }",
     "        switch (t.apply().action_run) { NoAction: { hdr.h.a = 1; } }"),
    ("action ga() { }", "    table t { key = { hdr.h.a: exact; } actions = { .ga; } "
     "const entries = { 1: ga(); } }", "        t.apply();"),
])
def test_a_table_action_with_a_leading_dot(top, locals_, body, tmp_path):
    src = program(top=top, locals=locals_, body=body)
    compile_source(src, "prog.p4")
    assert p4c_accepts(src, tmp_path) in (None, True)


def test_a_table_action_with_a_leading_dot_names_a_top_level_one(tmp_path):
    src = program(locals="    action a2() { }\n    table t { key = { hdr.h.a: exact; } actions = { .a2; } }",
                  body="        t.apply();")
    assert_refused_as_p4c(src, "actions = { .a2", r"unknown action a2", tmp_path)


_ENUM = "    EE m2 = EE.X;\n    action a1(bit<8> v) { hdr.h.c = v; }\n    table t { key = { m2: exact; } " \
        "actions = { a1; } const entries = { %s } }"


def test_const_entries_of_a_plain_enum_key(tmp_path):
    src = program(top="enum EE { X, Y }", locals=_ENUM % "EE.X: a1(1); EE.Y: a1(2);", body="        t.apply();")
    # applied: the enum's width, at its declaration (the P4Runtime serializer), not the entries
    assert_refused_as_p4c(src, "enum EE", r"EE: width not well-defined", tmp_path)
    unapplied = program(top="enum EE { X, Y }", locals=_ENUM % "EE.X: a1(1); EE.Y: a1(2);")
    compile_source(unapplied, "prog.p4")
    assert p4c_accepts(unapplied, tmp_path) in (None, True)


@pytest.mark.parametrize("top, entry", [("enum EE { X, Y }", "1: a1(1);"),
                                        ("enum EE { X, Y } enum FF { Z }", "FF.Z: a1(1);")])
def test_a_plain_enum_keys_entries_take_its_members_only(top, entry, tmp_path):
    src = program(top=top, locals=_ENUM % entry)
    assert_refused_as_p4c(src, entry, r"entry value .* of type EE", tmp_path)
    assert line_of(src, entry)[0] > 4


@pytest.mark.parametrize("prop, word", [
    ("@foo key = { hdr.h.a: exact; }\n        actions = { NoAction; }", "KEY"),
    ("const key = { hdr.h.a: exact; }\n        actions = { NoAction; }", "KEY"),
    ("key = { hdr.h.a: exact; }\n        @foo actions = { NoAction; }", "ACTIONS"),
    ("key = { hdr.h.a: exact; }\n        const actions = { NoAction; }", "ACTIONS"),
])
def test_no_annotation_or_const_before_a_tables_key_or_actions(prop, word, tmp_path):
    src = program(locals="    table t {\n        " + prop + "\n    }", body="        t.apply();")
    culprit = next(ln.strip() for ln in prop.split("\n") if ln.strip().startswith(("@", "const")))
    assert_refused_as_p4c(src, culprit, rf"syntax error, unexpected {word}", tmp_path)
    # (before entries and the other properties both are taken)
    ok = program(locals="    table t {\n        key = { hdr.h.a: exact; }\n        actions = { NoAction; }\n"
                        "        @foo const size = 16;\n    }", body="        t.apply();")
    compile_source(ok, "prog.p4")


_SE = "enum bit<8> EN { A = 1, B = 2 }"
_SE_T = "    action a1(EN e) { hdr.h.a = (bit<8>)e; }\n    table t { key = { hdr.h.a: exact; } actions = { a1; } %s }"


@pytest.mark.parametrize("top, props", [
    (_SE, "const entries = { 1: a1((EN)8w7); }"),
    (_SE, "const entries = { 1: a1((EN)8w1); }"),   # (a member's value too)
    (_SE + " const EN K = (EN)8w7;", "const entries = { 1: a1(K); }"),   # (named at the constant's value)
])
def test_a_cast_to_a_serializable_enum_as_an_entrys_action_argument(top, props, tmp_path):
    src = program(top=top, locals=_SE_T % props, body="        t.apply();")
    assert_refused_as_p4c(src, "(EN)8w", r"unsupported argument expression", tmp_path)
    # an unapplied table, and a default action, take it
    for ok in (program(top=top, locals=_SE_T % props),
               program(top=_SE, locals=_SE_T % "default_action = a1((EN)8w7);", body="        t.apply();")):
        compile_source(ok, "prog.p4")
        assert p4c_accepts(ok, tmp_path) in (None, True)


@pytest.mark.parametrize("body, culprit", [
    ("bool b = (bool)EB.A; if (b) { hdr.h.a = 1; }", "(bool)EB.A"),
    ("EB e = EB.A; bool b = (bool)e; if (b) { hdr.h.a = 1; }", "(bool)e"),
    ("EB e = (EB)true; hdr.h.a = (bit<8>)(bit<1>)e;", "(EB)true"),
])
def test_no_cast_between_bool_and_a_serializable_enum(body, culprit, tmp_path):
    src = program(top="enum bit<1> EB { A = 1 }", body="        " + body)
    assert_refused_as_p4c(src, culprit, r"cannot cast (EB to bool|bool to EB)", tmp_path)
    ok = program(top="enum bit<1> EB { A = 1 }", body="        bool b = (bool)(bit<1>)EB.A; if (b) { hdr.h.a = 1; }")
    compile_source(ok, "prog.p4")


@pytest.mark.parametrize("top", [
    "extern Ex { Ex(); void f(); } struct es_t { Ex e; }",
    "extern Ex { Ex(); void f(); } typedef Ex ExT; struct es_t { ExT e; }",
])
def test_a_field_of_an_extern_type(top, tmp_path):
    src = program(top=top)
    assert_refused_as_p4c(src, "struct es_t", r"Field 'e' of 'struct es_t' cannot have type 'Ex'", tmp_path)
    ok = program(top="struct es_t { register<bit<8>> r; }")   # (with type arguments, unused: p4c takes it)
    compile_source(ok, "prog.p4")
    assert p4c_accepts(ok, tmp_path) in (None, True)


_AB = "extern Ab { Ab(); abstract bit<8> f(in bit<8> x); bit<8> g(); }"


@pytest.mark.parametrize("locals_, body, culprit, words", [
    ("    bit<8> q = 3;", "return q;", "Ab() ab", r"q: declaration not found"),
    ("    action aq() { }", "aq(); return x;", "Ab() ab", r"aq: Functions cannot call actions"),
])
def test_what_an_abstract_method_body_does_not_see(locals_, body, culprit, words, tmp_path):
    src = program(top=_AB, locals=locals_ + "\n    Ab() ab = { bit<8> f(in bit<8> x) { %s } };" % body,
                  body="        hdr.h.a = ab.g();")
    assert_refused_as_p4c(src, culprit, words, tmp_path)


@pytest.mark.parametrize("locals_, culprit", [
    ("    Ex(hdr.h.a) ex;", "Ex(hdr"),
    ("    bit<8> q = 3;\n    Ex(q) ex;", "Ex(q)"),
    ("    Ex((bit<8>)sm.ingress_port) ex;", "Ex((bit"),
])
def test_a_user_extern_constructor_argument_must_be_constant(locals_, culprit, tmp_path):
    src = program(top="extern Ex { Ex(bit<8> a); bit<8> f(); }", locals=locals_)
    assert_refused_as_p4c(src, culprit, r"cannot evaluate to a compile-time constant", tmp_path)


@pytest.mark.parametrize("locals_, body, culprit", [
    ("    register<bit<8>>(4) r;", "r.write(0, _);", "r.write"),
    ("", "clone(CloneType.I2E, _);", "clone("),
    ("", "random(hdr.h.a, _, 8w5);", "random("),
    ("", "hash(hdr.h.b, HashAlgorithm.crc16, _, { hdr.h.a }, 32w100);", "hash("),
    ("", "truncate(_);", "truncate("),
])
def test_dont_care_for_an_extern_parameter_that_is_not_out(locals_, body, culprit, tmp_path):
    src = program(locals=locals_, body="        " + body)
    assert_refused_as_p4c(src, culprit, r"don't care argument for its parameter", tmp_path)
    ok = program(locals="    register<bit<8>>(4) r;\n    action a(in bit<8> x) { hdr.h.a = x; }",
                 body="        r.read(_, 0); random(_, 8w0, 8w5); a(_);")   # (out parameters, and an action's in)
    compile_source(ok, "prog.p4")
    assert p4c_accepts(ok, tmp_path) in (None, True)


@pytest.mark.parametrize("anno", ['@max_group_size("4")', "@max_group_size(2 + 2)", "@max_group_size(N)",
                                  "@max_group_size(4, 5)", "@max_group_size()"])
def test_max_group_size_takes_one_integer_literal(anno, tmp_path):
    src = program(top="const bit<32> N = 4;", locals=f"    {anno} action_selector(HashAlgorithm.crc16, 32w16, 32w8) as;\n"
                  "    table t { key = { hdr.h.a: exact; hdr.h.b: selector; } actions = { NoAction; } implementation = as; }",
                  body="        t.apply();")
    assert_refused_as_p4c(src, anno, r"@max_group_size takes one integer literal", tmp_path)   # (was a ValueError)


@pytest.mark.parametrize("top, locals_, body, culprit", [
    ("extern void efi(in bit<8> x);", "", "efi(_);", "efi(_)"),
    ("extern Ex { Ex(); void fi(in bit<8> x); }", "    Ex() ex;", "ex.fi(_);", "ex.fi(_)"),
    ("", "", "", "pkt.advance(_)"),
])
def test_dont_care_for_a_user_externs_in_parameter_or_advance(top, locals_, body, culprit, tmp_path):
    src = program(top=top, locals=locals_, body="        " + body)
    if not body:
        src = src.replace("pkt.extract(hdr.h);", "pkt.extract(hdr.h); pkt.advance(_);")
    assert_refused_as_p4c(src, culprit, r"don't care argument for its parameter", tmp_path)


def test_an_abstract_method_reading_a_control_local_in_a_sub_control(tmp_path):
    sub = ("extern Ab { Ab(); abstract bit<8> f(in bit<8> x); bit<8> g(); }\ncontrol U(inout bit<8> v) {\n"
           "    bit<8> q = 3;\n    Ab() ab = { bit<8> f(in bit<8> x) { return q; } };\n    apply { v = v + q; }\n}")
    src = program(top=sub, locals="    U() u;", body="        u.apply(hdr.h.a);")
    assert_refused_as_p4c(src, "return q;", r"q: declaration not found", tmp_path)
    unapplied = program(top=sub)   # (p4c removes the sub-control first: errs16_abstract_methods_initializer)
    compile_source(unapplied, "prog.p4")
    assert p4c_accepts(unapplied, tmp_path) in (None, True)


@pytest.mark.parametrize("top, body, words", [
    ("extern Ex { Ex(); void f(); }", "Ex e;", r"e: cannot declare variables of type 'Ex'"),
    ("typedef counter CT;", "CT c;", r"c: cannot declare variables of type 'counter'"),
    ("extern Ex { Ex(); void f(); }", "tuple<Ex> t;", r"Ex: not supported as a tuple field"),
])
def test_a_local_variable_of_an_extern_type(top, body, words, tmp_path):
    src = program(top=top, body="        " + body)
    assert_refused_as_p4c(src, body, words, tmp_path)
