"""Helper errs28's load verdicts on a local of the user metadata type an extern writes (the method and
the checks are test_load_refused.py's; /work/errs28 probes d_*, i_*, a_*, simple_switch on p4c's JSON).

``meta_t s; r.read(s.x, 0);``: p4c's mid end removes a ``register.read`` nothing reads
(@noSideEffects), and with it the local; simple_switch loads the JSON -- in a deparser (errs27's open
item), a control's body or an action's -- and when a later store (not a slice) overwrites the value
before a read.  The local survives where the value is read, or where the read is dead but another
field of the local is read unset: p4c names that field ``userMetadata.y`` in header type ``meta_t``
and simple_switch refuses the JSON (elab_load_refusals._live_copy_write).
"""
from __future__ import annotations

import test_load_refused as base
from p4c_helpers import program

_D = "control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }"
_R = "register<bit<8>>(4) r;"


def _dep(body: str) -> str:
    return program().replace(_D, "control D(packet_out pkt, in headers hdr) {\n    " + _R + "\n    apply {\n"
                                 "        pkt.emit(hdr.h);\n        " + body + "\n    }\n}")


def _ing(body: str, locals: str = "") -> str:
    return program(locals="    " + _R + locals, body="        " + body)


_NO_Y = "No field 'userMetadata.y' can be found in header type 'meta_t'"
_NO_X = "No field 'userMetadata.x' can be found in header type 'meta_t'"

REFUSED = {
    "deparser_dead_read_other_field_unset": (_dep('meta_t s; r.read(s.x, 0); log_msg("v {}", {s.y});'), "meta_t s;", _NO_Y),
    "control_dead_read_other_field_unset": (_ing("meta_t s; r.read(s.x, 0); hdr.h.c = (bit<8>)s.y;"), "meta_t s;", _NO_Y),
    "control_read_then_slice_store": (_ing("meta_t s; r.read(s.x, 0); s.x[3:0] = 3; hdr.h.a = s.x;"), "meta_t s;", _NO_X),
    # (a control's local: its tables' actions read it -- judged as written, not by the body's def-use)
    "control_local_read_by_a_table_action": (
        _ing("r.read(s.x, 0); t.apply();", "\n    meta_t s;\n    action a() { hdr.h.a = s.x; }\n"
             "    table t { actions = { a; } default_action = a(); }"), "meta_t s;", _NO_X),
    "action_read_used": (_ing("a();", "\n    action a() { meta_t s; r.read(s.x, 0); hdr.h.a = s.x; }"), "meta_t s;", _NO_X),
}

LOADED = {
    "deparser_dead_read": _dep("meta_t s; r.read(s.x, 0);"),
    "deparser_read_overwritten": _dep('meta_t s; r.read(s.x, 0); s.x = 2; log_msg("v {}", {s.x});'),
    "control_dead_read": _ing("meta_t s; r.read(s.x, 0);"),
    "control_dead_read_into_a_copy": _ing("meta_t s = m; r.read(s.x, 0);"),
    "control_read_overwritten": _ing("meta_t s; r.read(s.x, 0); s.x = 3; hdr.h.a = s.x;"),
    "action_dead_read": _ing("a();", "\n    action a() { meta_t s; r.read(s.x, 0); }"),
}

globals().update(base.load_refusal_tests(REFUSED, LOADED, {}))
