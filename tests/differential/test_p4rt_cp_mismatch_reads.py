"""Reads of the default action and const entries of a table whose body of an action takes another
number of parameters than the P4Info's action of that name (two table actions sharing a name:
compiler/action_twins, ``diffcases.mutz34``).  simple_switch_grpc 1.15.5 dies on such a read (PI's
``dump_action_data`` asserts ``num_params == action_data.size()``; measured by helper opens4), so it
cannot be compared; checkmate-switch answers it with UNIMPLEMENTED naming the table and the action
(it returned the entry with the body's own parameters, which the P4Info does not describe), and
still reads the table's other entries and the other tables.  checkmate-p4c's build; p4c's JSON too
where p4c is installed."""
from __future__ import annotations

import pytest
from p4.v1 import p4runtime_pb2 as pb

from controller.errors import ReadFailed
from diff_harness import compile_checkmate, compile_p4c, program_target
from diff_targets import CheckmateTarget
from diffcases.mutz34 import CASES


def _builds(case):
    yield "checkmate-p4c", compile_checkmate(case)
    ref = compile_p4c(case)
    if not isinstance(ref, str):
        yield "p4c", ref


@pytest.fixture(scope="module")
def cm():
    t = CheckmateTarget()
    yield t
    t.stop()


def _read(t, comp, table: str, default: bool):
    tid = next(x.preamble.id for x in comp.p4info.tables if x.preamble.name == table)
    return list(t.conn.read([pb.Entity(table_entry=pb.TableEntry(table_id=tid, is_default_action=default))]))


# (case index, table, its default action's is a mismatching body, its const entries hold one)
_READS = [(0, "I.t2", True, False), (0, "I.t3", False, True), (1, "I.t1", True, True)]


@pytest.mark.parametrize("idx, table, bad_default, bad_const", _READS)
def test_read_of_a_mismatching_body_fails_with_a_status(cm, idx, table, bad_default, bad_const):
    for label, comp in _builds(CASES[idx]):
        program_target(cm, CASES[idx], comp)
        for default, bad in ((True, bad_default), (False, bad_const)):
            if bad:
                with pytest.raises(ReadFailed, match=f"UNIMPLEMENTED: table '{table}': its "
                                   f"{'default action' if default else 'const entry'} runs action id"):
                    _read(cm, comp, table, default)
            else:
                _read(cm, comp, table, default)
        assert cm.p.proc.poll() is None, label
        # a table without such an entry still reads
        assert _read(cm, comp, "I.t1" if idx == 0 else "I.t2", True)
