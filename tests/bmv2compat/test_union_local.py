"""programs/union_local.p4 from p4c's JSON (frozen in p4c_out/, so no p4c is needed): a local header
union emptied with ``(U){#}`` and its own ``isValid()``, which p4c 1.2.4.8 writes as ``valid_union``
of an operand of type "header" naming the union.  simple_switch 1.15.5 refuses that JSON ("Invalid
reference to object of type 'header' with name 'u_0'"; helper errs54 measured it, the programs of
tests/p4c/test_errs54_loads.py), so the embedded pipeline refuses p4c's JSON and checkmate-p4c's
build alike (it ran both before)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from switch.bmv2json import Bmv2JsonError
from switch.bmv2json.p4c import load_p4c_output
from switch.compiler import compile_file
from switch.runtime import Pipeline
from switch.runtime.errors import InvalidEntry

HERE = Path(__file__).resolve().parent
OUT = HERE / "p4c_out" / "bmv2compat"
_WORDS = "Invalid reference to object of type 'header'"


def test_local_union_isvalid_refused_from_p4c_json():
    with pytest.raises(Bmv2JsonError) as ei:
        load_p4c_output(OUT / "union_local.json", OUT / "union_local.p4info.txtpb")
    assert _WORDS in str(ei.value) and "'u_0'" in str(ei.value)


def test_local_union_isvalid_refused_from_checkmate_build():
    cfg = compile_file(str(HERE / "programs" / "union_local.p4")).device_config
    with pytest.raises(InvalidEntry) as ei:
        Pipeline(json.loads(json.dumps(cfg)))
    assert _WORDS in str(ei.value)
