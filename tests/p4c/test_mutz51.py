"""Guards of helper mutz51's fix for fuzz_mutants seed 5718 (diffcases/mutz51.py): a division p4c's
BMv2 back end cannot evaluate at run time stays refused where the store holding it is live -- the
caller's self-reading header initializer reads the stored field, or a read of it follows a
setValid() of its header (which reads no field itself, but does not overwrite one either).  With p4c
on PATH its verdict is checked too."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from switch.compiler import P4CompileError, compile_source

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "differential"))
from diffcases.base import program  # noqa: E402

_SUB = "control S(inout headers_t hdr) {{ apply {{ hdr.h2.{f} = hdr.h.a / 8w6; }} }}\n"
_INIT = "        hdr.h2 = {hdr.h2.a + 1, 7, 8, hdr.h2.d};\n"
_READ = "        hdr.h.c = (bit<16>)hdr.h2.b;\n"

LIVE = {
    "initializer_reads_the_stored_field": program("        s.apply(hdr);\n" + _INIT + _READ,
                                                  top=_SUB.format(f="a"), ingress_decls="    S() s;\n"),
    "read_after_a_set_valid_of_its_header": program("        s.apply(hdr);\n        hdr.h2.setValid();\n" + _READ + _INIT,
                                                    top=_SUB.format(f="b"), ingress_decls="    S() s;\n"),
    "direct_read_after_a_set_valid": program("        hdr.h2.b = hdr.h.a / 8w6;\n        hdr.h2.setValid();\n" + _READ),
}
DEAD = {
    "direct_overwritten_after_a_set_valid": program("        hdr.h2.b = hdr.h.a / 8w6;\n        hdr.h2.setValid();\n"
                                                    "        hdr.h2.b = 3;\n" + _READ),
    "direct_overwritten_after_a_set_invalid": program("        hdr.h2.b = hdr.h.a / 8w6;\n        hdr.h2.setInvalid();\n"
                                                      "        hdr.h2.b = 3;\n" + _READ),
}


@pytest.mark.parametrize("name", sorted(LIVE))
def test_live_division_store_refused(name):
    with pytest.raises(P4CompileError, match="divisor must be a compile-time power of two"):
        compile_source(LIVE[name], f"{name}.p4")


@pytest.mark.parametrize("name", sorted(DEAD))
def test_dead_division_store_compiles(name):
    compile_source(DEAD[name], f"{name}.p4")


@pytest.mark.skipif(shutil.which("p4c") is None, reason="needs real p4c")
def test_p4c_agrees():
    from test_mutants import p4c_wrong_verdicts
    assert p4c_wrong_verdicts({n: (s,) for n, s in LIVE.items()}, DEAD) == []
