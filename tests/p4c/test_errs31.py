"""Helper errs31's probe sweep (/work/errs31 ``gen_v.py``, ``gen_w.py``, ...; each decided by real
p4c 1.2.4.8): parser value sets, const entries (masks, ranges, priorities), table properties,
default actions, serializable enums, typedef/type conversions, header unions in parsers, extern
method argument types, directions, annotations, generic functions.  What differed:

* an annotation before a control's ``apply`` block (``@foo apply { .. }``, or a ``@pragma`` line that
  swallowed the table after it): p4c's grammar has none there ("syntax error, unexpected APPLY,
  expecting ACTION or CONST or TABLE", at ``apply``); checkmate-p4c took it, and with the table gone
  named its later use ("unknown name t") -- parser ``control_decl``;
* a table's default action given a constant list for a struct, header or tuple parameter
  (``default_action = a1({ 1 })``): p4c takes ``{ 1 }`` as a constant, so its error is the parameter's
  type (at the action: the control plane cannot set it) where the table is kept, and a table nothing
  applies compiles; checkmate-p4c said "action argument must be a compile-time constant" at the
  default action, also for the unused table (elab_tables ``_constant_aggregate``);
* an entry's ``priority=`` past INT_MAX (``0x80000000``, ``0xffffffff``): p4c's "this implementation does
  not support bitstrings this large", also in a table nothing applies; checkmate-p4c compiled it
  (elab_entries ``entry_priority_value``);
* a stack of a type that is not a name (``bit<8>[2]``, ``bool[2]``, ``int[2]``, ``error[2]``,
  ``tuple<..>[2]``): p4c 1.2.4.8's grammar has none, its "syntax error, unexpected [" at the ``[`` comes
  before any later error of the program; checkmate-p4c refused it while elaborating ("header stack of
  non-header type"), after errors of later lines found while parsing (parser ``_stack_suffix``).
"""
from __future__ import annotations

import pytest
from p4c_helpers import assert_refused_as_p4c, p4c_accepts, program

from switch.compiler import compile_source

_T = "table t { key = { hdr.h.a: exact; } actions = { NoAction; } }"


@pytest.mark.parametrize("locals_, culprit", [
    ("    @pragma foo " + _T, "    apply {"),
    ("    " + _T + "\n    @foo", "    apply {"),
])
def test_annotation_before_the_apply_block_is_a_syntax_error(locals_, culprit, tmp_path):
    src = program(locals=locals_, body="        t.apply();")
    assert_refused_as_p4c(src, culprit, r"syntax error, unexpected APPLY", tmp_path)


_PT = "struct ps_t { bit<8> a; }\nheader ph_t { bit<8> a; }"
_A = ("    action a1({par} v) {{ hdr.h.c = {read}; }}\n"
      "    table t {{ key = {{ hdr.h.a: exact; }} actions = {{ a1; NoAction; }} default_action = a1({{ 1 }}); }}")


@pytest.mark.parametrize("par, read", [("ps_t", "v.a"), ("ph_t", "v.a"), ("tuple<bit<8>>", "v[0]")])
def test_constant_list_default_argument_for_a_non_control_plane_parameter(par, read, tmp_path):
    locals_ = _A.format(par=par, read=read)
    assert_refused_as_p4c(program(top=_PT, locals=locals_, body="        t.apply();"), "action a1(",
                          "has a type which is not bit<>", tmp_path)
    unused = program(top=_PT, locals=locals_, body="")
    compile_source(unused, "prog.p4")
    assert p4c_accepts(unused, tmp_path) in (None, True)


@pytest.mark.parametrize("prio", ["0x80000000", "0xffffffff"])
@pytest.mark.parametrize("body", ["        t.apply();", ""])
def test_entry_priority_past_int_max(prio, body, tmp_path):
    locals_ = ("    action a1(bit<8> v) { hdr.h.c = v; }\n    table t { key = { hdr.h.a: ternary; } actions = { a1; } "
               f"entries = {{ priority={prio}: 0x1 &&& 0xf: a1(1); }} }}")
    assert_refused_as_p4c(program(locals=locals_, body=body), f"priority={prio}", "does not support bitstrings this large",
                          tmp_path)


@pytest.mark.parametrize("decl", ["bit<8>[2] q;", "bool[2] q;", "int[2] q;", "error[2] q;", "tuple<bit<8>>[2] q;"])
def test_stack_of_an_unnamed_type_is_a_syntax_error_at_the_bracket(decl, tmp_path):
    # (a later syntax-level error -- a parameter declared twice -- must not come first)
    src = program(top=f"struct arr_t {{ bit<8> a; {decl} }}",
                  locals="    action a1(bit<8> v, bit<8> v) { }\n    table t { key = { hdr.h.a: exact; } actions = { a1; } }",
                  body="        t.apply();")
    assert_refused_as_p4c(src, decl, r"syntax error, unexpected \[", tmp_path)
