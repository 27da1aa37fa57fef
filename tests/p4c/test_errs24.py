"""Programs of helper errs24 (/work/errs24: errs23's open items), each refused by p4c 1.2.4.8 at
the line named here: a clone() whose CloneType is an action's or a function's parameter is judged
at each call (p4c inlines it): a member for the other pipe, or a table that lets the control plane
set the parameter, is p4c's error at the clone.  Before, checkmate-p4c refused every such clone
("expected a CloneType member"), the calls p4c compiles too (diffcases/errs24.py).
"""
from __future__ import annotations

import pytest

from p4c_helpers import assert_refused_as_p4c, program

_A = "    action a(CloneType ct) { clone(ct, 5); }"

# name -> (program, text at p4c's error line, pattern of the message)
LINES = {
    "clone_e2e_in_ingress_through_an_action_parameter": (
        program(locals=_A, body="        a(CloneType.E2E);"), "action a(", r"clone\(E2E, \.\.\.\) not invoked in egress"),
    "clone_e2e_in_ingress_through_two_actions": (
        program(locals=_A + "\n    action b(CloneType c) { a(c); }", body="        b(CloneType.E2E);"),
        "action a(", r"clone\(E2E, \.\.\.\) not invoked in egress"),
    "clone_e2e_in_ingress_through_a_function": (
        program(top="void f(in CloneType t) { clone(t, 32w5); }", body="        f(CloneType.E2E);"),
        "void f(", r"clone\(E2E, \.\.\.\) not invoked in egress"),
    "clone_type_parameter_of_a_table_action": (
        program(locals=_A + "\n    table t { key = { hdr.h.a: exact; } actions = { a; NoAction; } }", body="        t.apply();"),
        "action a(", "ct: must be a constant on this target"),
    "clone_type_parameter_of_a_default_action": (
        program(locals=_A + "\n    table t { key = { hdr.h.a: exact; } actions = { a; NoAction; } "
                            "default_action = a(CloneType.I2E); }", body="        t.apply();"),
        "action a(", "ct: must be a constant on this target"),
}


@pytest.mark.parametrize("name", sorted(LINES))
def test_refused_at_p4c_line(name, tmp_path):
    assert_refused_as_p4c(*LINES[name], tmp_path)
