"""Helper mutz46's programs, each decided by real p4c 1.2.4.8:

* a structured annotation's elements are folded by p4c's constant folding, which types the operands
  (fuzz_mutants seed 5178, ``op_swap`` on fe_structured_annotation_expressions: ``-(3 != 4)``):
  unary ``-``/``~`` and the arithmetic, bitwise and ordering operators take integers ("expected an
  integer value", "cannot be applied to expression 'true' with type 'bool'"), ``!`` and the left side
  of ``&&``/``||`` a bool ("Expected a boolean value"), ``==``/``!=`` two of one kind; the right side
  of ``&&``/``||`` is taken as it is where the left one does not decide (``false || 1`` is 1).
  checkmate-p4c folded them as Python does (``-True`` is -1): parser_annos._fold_literal, _typed.
"""
from __future__ import annotations

import pytest

from p4c_helpers import assert_p4info_as_p4c, assert_refused_as_p4c, program
from switch.compiler import compile_source


def _annotated(elements: str) -> str:
    return program(locals=f"    @Mixed[{elements}]\n    table t {{ key = {{ hdr.h.a: exact; }} actions = {{ NoAction; }} }}",
                   body="        t.apply();")


_REFUSED = {
    "minus_of_a_bool": ("-(3 != 4)", "expected an integer value"),
    "complement_of_a_bool": ("~true", "expected an integer value"),
    "not_of_an_integer": ("!1", "expected a boolean value"),
    "sum_with_a_bool": ("1 + true", "expected an integer value"),
    "bitwise_or_of_bools": ("true | false", "expected an integer value"),
    "bools_ordered": ("true < false", "expected an integer value"),
    "bool_equal_to_an_integer": ("true == 1", "bool and an integer"),
    "integer_compared_with_a_bool": ("(1 == 1) != 2", "bool and an integer"),
    "integer_left_of_or": ("1 || true", "expected a boolean value"),
}


@pytest.mark.parametrize("name", sorted(_REFUSED))
def test_structured_annotation_operand_of_the_wrong_type_refused_as_p4c(name, tmp_path):
    elements, words = _REFUSED[name]
    assert_refused_as_p4c(_annotated(elements), "@Mixed[", words, tmp_path)


@pytest.mark.parametrize("elements", ["false || 1", "true && 1", "true || 1", "(3 != 4) == true", "!(1 == 2)",
                                      "-(3 * 4), 1 == 1 == true"])
def test_structured_annotation_folded_as_p4c(elements, tmp_path):
    text = _annotated(elements)
    assert_p4info_as_p4c(text, compile_source(text, "prog.p4").p4info, tmp_path)
