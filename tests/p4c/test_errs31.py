"""Helper errs31's probe sweep (/work/errs31 ``gen_v.py``, ``gen_w.py``, ...; each decided by real
p4c 1.2.4.8): parser value sets, const entries (masks, ranges, priorities), table properties,
default actions, serializable enums, typedef/type conversions, header unions in parsers, extern
method argument types, directions, annotations, generic functions.  What differed:

* an annotation before a control's ``apply`` block (``@foo apply { .. }``, or a ``@pragma`` line that
  swallowed the table after it): p4c's grammar has none there ("syntax error, unexpected APPLY,
  expecting ACTION or CONST or TABLE", at ``apply``); checkmate-p4c took it, and with the table gone
  named its later use ("unknown name t") -- parser ``control_decl``.
"""
from __future__ import annotations

import pytest
from p4c_helpers import assert_refused_as_p4c, program

_T = "table t { key = { hdr.h.a: exact; } actions = { NoAction; } }"


@pytest.mark.parametrize("locals_, culprit", [
    ("    @pragma foo " + _T, "    apply {"),
    ("    " + _T + "\n    @foo", "    apply {"),
])
def test_annotation_before_the_apply_block_is_a_syntax_error(locals_, culprit, tmp_path):
    src = program(locals=locals_, body="        t.apply();")
    assert_refused_as_p4c(src, culprit, r"syntax error, unexpected APPLY", tmp_path)
