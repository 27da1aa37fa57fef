"""Programs of helper corpus25 (/work/corpus25/probe_sel, from binhfdv/srv6-dmm's tables whose selector
keys have no action_selector): p4c 1.2.4.8 drops such keys from the table, but its type checker
counts them in every const entry's keyset first ("Size of entry keyset must match the table key set
size", at the entry), and with only `_` there its BMv2 back end refuses the entry at that element.
Before, checkmate-p4c compiled an entry that gave the kept keys only, and named the table's selector
key for the others (``elab_entries.dropped_selector_entries``).
"""
from __future__ import annotations

import pytest

from p4c_helpers import assert_refused_as_p4c, program


def _table(entry: str) -> str:
    return program(locals="    action a(bit<9> p) { sm.egress_spec = p; }\n"
                          "    table t {\n        key = { hdr.h.a: lpm; hdr.h.b: selector; hdr.h.c: selector; }\n"
                          "        actions = { a; NoAction; }\n        const entries = {\n"
                          f"            {entry}\n        }}\n    }}", body="        t.apply();")


# name -> (program, text at p4c's error line, pattern of the message)
LINES = {
    "entry_giving_only_the_kept_keys": (
        _table("0x0a &&& 0xf0 : a(5);"), "0x0a &&& 0xf0", r"Size of entry keyset must match the table key set size"),
    "entry_with_one_selector_key_missing": (
        _table("(0x0a &&& 0xf0, _) : a(5);"), "0x0a &&& 0xf0", r"Size of entry keyset must match the table key set size"),
    "entry_with_dont_care_selector_keys": (
        _table("(0x0a &&& 0xf0, _, _) : a(5);"), "0x0a &&& 0xf0", r"unknown key match type 'selector'"),
}


@pytest.mark.parametrize("name", sorted(LINES))
def test_refused_at_p4c_line(name, tmp_path):
    assert_refused_as_p4c(*LINES[name], tmp_path)
