"""The line of checkmate-p4c's direct meter and direct counter errors is real p4c 1.2.4.8's (run
with a P4Info, as the project runs it), and what p4c compiles compiles -- errs18's two open items,
measured by helper opens:

* ``dm.read`` into two places: p4c names the later read's destination, unless that is a slice,
  which it reads into a temporary (``tmp``, no position), so it names the earlier one's; two
  reads of slices -- even of one slice -- are two temporaries, an error with no position;
* a direct counter or meter on two tables: p4c removes an unapplied table first, so one applied
  table and one not compiles (checkmate-p4c refused it at once), and with no read of the meter
  the error is the applied table's "must have at least one action with a read method call" at
  its line; two applied tables are p4c's P4Info error ("Name 'I.dm' is used for multiple direct
  meter objects"), which names no line.

Each program's error line is checked against p4c's own where p4c is installed."""
from __future__ import annotations

import re

import pytest

from p4c_helpers import line_of, p4c_accepts, program
from switch.bmv2json.p4c import P4cFailed, p4c_path, run_p4c
from switch.compiler import P4CompileError, compile_source

DM = "    direct_meter<bit<8>>(MeterType.packets) dm;\n"
DC = "    direct_counter(CounterType.packets) dc;\n"
A = "    action a() { dm.read(hdr.h.c); }\n"
T = "    table t { key = { hdr.h.a: exact; } actions = { %s } %s }\n"
T2 = "    table t2 { key = { hdr.h.a: exact; } actions = { %s } %s }\n"

# name -> (program, text on the line p4c names)
REFUSED = {
    "read_slice_after_action_read": (program(locals=DM + A + T % ("a;", "meters = dm;"),
                                             body="        t.apply(); dm.read(hdr.h.b[7:0]);"), "action a()"),
    "read_slice_in_second_action": (program(locals=DM + A + "    action a3() { dm.read(hdr.h.b[7:0]); }\n" +
                                            T % ("a; a3;", "meters = dm;"), body="        t.apply();"), "action a()"),
    "read_after_action_slice_read": (program(locals=DM + "    action a() { dm.read(hdr.h.b[7:0]); }\n" + T % ("a;", "meters = dm;"),
                                             body="        t.apply(); dm.read(m.x);"), "dm.read(m.x)"),
    "read_plain_after_action_read": (program(locals=DM + A + T % ("a;", "meters = dm;"),
                                             body="        t.apply(); dm.read(m.x);"), "dm.read(m.x)"),
    "no_read_second_table_unapplied": (program(locals=DM + T % ("NoAction;", "meters = dm;") + T2 % ("NoAction;", "meters = dm;"),
                                               body="        t.apply();"), "table t {"),
}
# p4c refuses these without a position: checkmate-p4c must refuse them (anywhere)
REFUSED_NO_LINE = {
    "read_one_slice_twice": program(locals=DM + "    action a() { dm.read(hdr.h.b[7:0]); }\n" + T % ("a;", "meters = dm;"),
                                    body="        t.apply(); dm.read(hdr.h.b[7:0]);"),
    "meter_on_two_applied_tables": program(locals=DM + A + T % ("a;", "meters = dm;") + T2 % ("a;", "meters = dm;"),
                                           body="        t.apply(); t2.apply();"),
}
COMPILED = {
    "meter_second_table_unapplied": program(locals=DM + A + T % ("a;", "meters = dm;") + T2 % ("a;", "meters = dm;"),
                                            body="        t.apply();"),
    "meter_first_table_unapplied": program(locals=DM + A + T % ("a;", "meters = dm;") + T2 % ("a;", "meters = dm;"),
                                           body="        t2.apply();"),
    "counter_second_table_unapplied": program(locals=DC + T % ("NoAction;", "counters = dc;") + T2 % ("NoAction;", "counters = dc;"),
                                              body="        t.apply();"),
    "read_one_place_twice": program(locals=DM + A + T % ("a;", "meters = dm;"), body="        t.apply(); dm.read(hdr.h.c);"),
}


def _p4c_line(text: str, tmp_path) -> int | None:
    """The line of p4c's first error on ``text`` (None: it names none); skips without p4c."""
    if p4c_path() is None:
        pytest.skip("needs real p4c on PATH")
    (tmp_path / "prog.p4").write_text(text)
    with pytest.raises(P4cFailed) as ei:
        run_p4c(tmp_path / "prog.p4", tmp_path, timeout=120)
    first = next(ln for ln in ei.value.stderr.splitlines() if "error" in ln)
    m = re.search(r"prog\.p4\((\d+)\)", first)
    return int(m.group(1)) if m else None


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_on_p4cs_line(name):
    text, needle = REFUSED[name]
    with pytest.raises(P4CompileError) as ei:
        compile_source(text, "prog.p4")
    assert ei.value.loc.line == line_of(text, needle)[0], str(ei.value)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_p4c_names_that_line(name, tmp_path):
    text, needle = REFUSED[name]
    assert _p4c_line(text, tmp_path) == line_of(text, needle)[0]


@pytest.mark.parametrize("name", sorted(REFUSED_NO_LINE))
def test_refused_where_p4c_names_no_line(name, tmp_path):
    with pytest.raises(P4CompileError):
        compile_source(REFUSED_NO_LINE[name], "prog.p4")
    assert _p4c_line(REFUSED_NO_LINE[name], tmp_path) is None


@pytest.mark.parametrize("name", sorted(COMPILED))
def test_compiled_as_p4c(name, tmp_path):
    compile_source(COMPILED[name], "prog.p4")
    assert p4c_accepts(COMPILED[name], tmp_path) in (True, None)
