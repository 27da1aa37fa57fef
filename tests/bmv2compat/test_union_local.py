"""programs/union_local.p4 from p4c's JSON (frozen in p4c_out/, so no p4c is needed) on the
embedded pipeline gives what checkmate-p4c's build gives: a local header union emptied with
``(U){#}`` and its own ``isValid()``, which p4c writes as ``valid_union`` of an operand of type
"header" naming the union (simple_switch cannot load that JSON, so BMv2 has no say here)."""
from __future__ import annotations

import json
from pathlib import Path

from switch.bmv2json.p4c import load_p4c_output
from switch.compiler import compile_file
from switch.runtime import Pipeline

HERE = Path(__file__).resolve().parent
OUT = HERE / "p4c_out" / "bmv2compat"
ETH = bytes.fromhex("000000000002000000000001" "1234")


def _outputs(device_config):
    pl = Pipeline(json.loads(json.dumps(device_config)))
    return [pl.process(1, ETH + bytes([a, b]) + b"\xee") for a, b in ((1, 0), (2, 0), (1, 5))]


def test_local_union_from_p4c_json():
    theirs = load_p4c_output(OUT / "union_local.json", OUT / "union_local.p4info.txtpb")
    conds = json.dumps(theirs.bmv2_json["pipelines"][0]["conditionals"])
    assert '"op": "valid_union"' in conds and '{"type": "header", "value": "u_0"}' in conds
    got = _outputs(theirs.device_config)
    assert got == _outputs(compile_file(str(HERE / "programs" / "union_local.p4")).device_config)
    # a == 1: u.one valid (a = 4 + 0x20), b = 1 + 0x10; otherwise u stays empty: b = 1
    assert got == [[(2, ETH + bytes([0x24, 0x11]) + b"\xee")], [(2, ETH + bytes([2, 1]) + b"\xee")],
                   [(2, ETH + bytes([0x24, 0x11]) + b"\xee")]]
