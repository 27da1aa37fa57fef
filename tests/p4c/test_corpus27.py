"""Programs of helper corpus27 that p4c refuses in its preprocessor: an ``#include`` among a macro
call's arguments -- cpp reads the file's tokens into the call, finds no ``)`` before the file ends
and fails "unterminated argument list invoking macro" at the included file's last line (the end of
that line); a ``#error`` there runs as anywhere else.  Before, checkmate-p4c refused every directive
but a conditional among the arguments at the call's line.  And a control with no apply block
(RARE-bmv2's 00-unit-labs/0008-vlan/p4src/vlan-operation.p4): p4c's grammar fails at the control's
closing ``}`` ("syntax error, unexpected }"); checkmate-p4c named the control's line.
"""
from __future__ import annotations

import re

import pytest

from p4c_helpers import assert_refused_as_p4c, p4c_accepts, program

from switch.compiler import P4CompileError, compile_file

_TABLE = "    table t { key = { hdr.h.a : exact; } actions = { NoAction; } }"


def test_include_among_arguments_is_unterminated_call_at_included_file_end(tmp_path):
    (tmp_path / "inc1.h").write_text("@inc(7)\n")
    src = program(top="#define F2(x) x", locals='    F2(@a(1)\n#include "inc1.h"\n  )\n' + _TABLE,
                  body="        t.apply();")
    main = tmp_path / "prog.p4"
    main.write_text(src)
    with pytest.raises(P4CompileError) as ei:
        compile_file(str(main))
    assert re.match(r'.*inc1\.h:1:8: unterminated argument list invoking macro "F2"', str(ei.value)), str(ei.value)
    assert p4c_accepts(src, tmp_path) in (None, False)


def test_error_among_arguments_runs(tmp_path):
    src = program(top="#define F2(x) x", locals="    F2(@a(1)\n#error stop here\n  )\n" + _TABLE,
                  body="        t.apply();")
    (tmp_path / "prog.p4").write_text(src)
    with pytest.raises(P4CompileError) as ei:
        compile_file(str(tmp_path / "prog.p4"))
    line = src.split("\n").index("#error stop here") + 1
    assert str(ei.value).startswith(f"{tmp_path}/prog.p4:{line}:") and "#error stop here" in str(ei.value)
    assert p4c_accepts(src, tmp_path) in (None, False)


_NO_APPLY = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct headers { h_t h; }
struct metadata { }
parser P(packet_in p, out headers hdr, inout metadata m, inout standard_metadata_t sm) {
    state start { p.extract(hdr.h); transition accept; } }
control V(inout headers hdr, inout metadata m) { apply { } }
control I(inout headers hdr,
    inout metadata m,
    inout standard_metadata_t sm) {
    action a() { }

}  // no apply
control E(inout headers hdr, inout metadata m, inout standard_metadata_t sm) { apply { } }
control C(inout headers hdr, inout metadata m) { apply { } }
control D(packet_out p, in headers hdr) { apply { p.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def test_control_without_apply_block_fails_at_its_closing_brace(tmp_path):
    assert_refused_as_p4c(_NO_APPLY, "}  // no apply", r"apply block", tmp_path)


def test_include_not_found_at_the_file_names_column(tmp_path):
    """RARE-bmv2's vlan-operation.p4: `#include <include/ethertype.p4>` (no -I): cpp names the file's
    name, 10:10 there (checkmate-p4c named the `#`)."""
    src = program(top="#include <include/nothere.p4>")
    main = tmp_path / "prog.p4"
    main.write_text(src)
    with pytest.raises(P4CompileError) as ei:
        compile_file(str(main))
    line = src.split("\n").index("#include <include/nothere.p4>") + 1
    assert str(ei.value).startswith(f"{main}:{line}:10: cannot find include file"), str(ei.value)
    assert p4c_accepts(src, tmp_path) in (None, False)
