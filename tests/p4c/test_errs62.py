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
  integer accepted (elab_entries ``entry_match``).
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
])
def test_a_dead_register_read_in_a_parser_compiles(start, tmp_path):
    src = _parser(program(), _R + " bit<8> t;", start)
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
