"""Helper errs28's compile-time verdicts (/work/errs28 probes e_*), each decided by real p4c 1.2.4.8
and failing before: an enum over a type other than bit<>/int<> (``enum bool E``) parses, as in
p4c's grammar -- checkmate-p4c's parser refused it ("expected an enum name") before p4c's name
checks, so a re-declaration of its name (``control E`` further down) was reported at the enum and
not at p4c's line (errs27's open item) -- and the type is then p4c's "Illegal type for enum"."""
from __future__ import annotations

import pytest

from p4c_helpers import assert_refused_as_p4c, program

# name -> (program, text at p4c's error line, pattern of the message)
LINES = {
    "bool_enum_beside_a_control_of_its_name": (program(top="enum bool E { A = true }"), "control E(",
                                               "Re-declaration of E with different type: control E"),
    "bool_enum_beside_a_struct_of_its_name": (program(top="enum bool meta_t { A = true }"), "struct meta_t",
                                              "Re-declaration of meta_t with different type: struct meta_t"),
    "bit_enum_beside_a_control_of_its_name": (program(top="enum bit<8> E { A = 1 }"), "control E(",
                                              "Re-declaration of E with different type"),
    "bool_enum": (program(top="enum bool EB { A = true }"), "enum bool EB", "bool: Illegal type for enum"),
    "varbit_enum": (program(top="enum varbit<8> EB { A = 1 }"), "enum varbit", "varbit.*: Illegal type for enum"),
    "string_enum": (program(top='enum string EB { A = "x" }'), "enum string", "string: Illegal type for enum"),
    "error_enum": (program(top="enum error EB { A = error.NoError }"), "enum error", "error: Illegal type for enum"),
}


@pytest.mark.parametrize("name", sorted(LINES))
def test_refused_at_p4c_line(name, tmp_path):
    assert_refused_as_p4c(*LINES[name], tmp_path)
