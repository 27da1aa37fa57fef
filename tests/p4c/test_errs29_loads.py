"""Helper errs29's load verdicts on locals of the user metadata type (the method and the checks are
test_load_refused.py's; /work/errs29 probes a_*, b_*, simple_switch on p4c's JSON).

p4c keeps such a local where, after its LocalCopyPropagation, something still names it, and
simple_switch then refuses the JSON ("No field 'userMetadata.x' can be found in header type
'meta_t'", naming the first field its loader meets): a field read before any write (errs28's open
item: no extern write needed), after an ``if`` or ``switch`` whose arm wrote it (no values merged,
equal ones neither), after a store to what its value read, in a table key (never propagated into),
in an action as a control-level local or under a condition (Predication reads the old value), in a
parser state not merged with the one that wrote it, a whole local given to ``log_msg``; an extern's
write other than ``register.read`` (``hash`` nothing reads).  Not after an ``exit``, in a store nothing
reads (``meta_t t2 = s;``), in ``s.x = s.x;``, nor where the metadata type has a struct or header
field (p4c's NestedStructs splits the local).  p4c removes the local -- and simple_switch loads -- where every read has a
known value; a control-level local's register reads nothing reads (errs28's open item: checkmate
refused them, the control's tables not followed) load too (switch/compiler/meta_locals.py).
"""
from __future__ import annotations

import test_load_refused as base
from p4c_helpers import program

_R = "    register<bit<8>>(4) r;\n"
_T = "    table t {{ key = {{ {k}: exact; }} actions = {{ {a}; }} default_action = {a}(); }}\n"
_C = "hdr.h.a == 1"


def _ing(body: str, locals: str = "") -> str:
    return program(locals=locals, body="        " + body)


def _ctl(action: str, body: str, key: str = "hdr.h.a") -> str:
    """A control-level ``meta_t s;``, an action ``a`` (or NoAction) in a table ``t``."""
    a = "a" if action else "NoAction"
    return _ing(body, _R + "    meta_t s;\n" + (f"    {action}\n" if action else "") + _T.format(k=key, a=a))


def _x(f: str = "x") -> str:
    return f"No field 'userMetadata.{f}' can be found in header type 'meta_t'"


_W = "    action w() { hdr.h.a = 7; }\n"
_SW = "meta_t s; switch (t.apply().action_run) { w: { s.x = 1; } } hdr.h.c = s.x;"
_D = "control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }"

REFUSED = {
    "read_unset": (_ing("meta_t s; hdr.h.c = s.x;"), "meta_t s;", _x()),
    "read_unset_in_a_condition": (_ing("meta_t s; if (s.x == 1) { hdr.h.c = 1; }"), "meta_t s;", _x()),
    "copy_of_an_unset_local": (_ing("meta_t s; m = s;"), "meta_t s;", _x()),
    "one_field_set_other_read": (_ing("meta_t s; s.x = 1; hdr.h.c = (bit<8>)s.y;"), "meta_t s;", _x("y")),
    "whole_copy_one_field_set": (_ing("meta_t s; s.x = 1; m = s;"), "meta_t s;", _x()),
    "equal_values_in_both_arms": (_ing(f"meta_t s; if ({_C}) {{ s.x = 1; }} else {{ s.x = 1; }} hdr.h.c = s.x;"),
                                  "meta_t s;", _x()),
    "copy_then_conditional_store": (_ing(f"meta_t s = m; if ({_C}) {{ s.x = 1; }} hdr.h.c = s.x;"), "meta_t s = m;", _x()),
    "value_read_a_field_stored_after": (_ing("meta_t s; s.x = hdr.h.a; hdr.h.a = 5; hdr.h.c = s.x;"), "meta_t s;", _x()),
    "store_in_a_switch_case": (_ing(_SW, _W + "    table t { key = { hdr.h.b: exact; } actions = { w; NoAction; } }\n"),
                               "meta_t s;", _x()),
    "table_action_writes_what_the_value_read": (
        _ing("meta_t s; s.x = hdr.h.a; t.apply(); hdr.h.c = s.x;",
             "    action w() { hdr.h.a = 7; }\n" + _T.format(k="hdr.h.b", a="w")), "meta_t s;", _x()),
    "hash_nothing_reads": (_ing("meta_t s; hash(s.y, HashAlgorithm.crc16, 16w0, { hdr.h.a }, 16w100);"),
                           "meta_t s;", _x("y")),
    "slice_store_then_read": (_ing("meta_t s; s.x = 1; s.x[3:0] = 3; hdr.h.c = s.x;"), "meta_t s;", _x()),
    "action_conditional_store": (_ing("a();", f"    action a() {{ meta_t s; if ({_C}) {{ s.x = 1; }} hdr.h.c = s.x; }}"),
                                 "meta_t s;", _x()),
    "control_local_read_by_an_action": (_ctl("action a() { hdr.h.c = s.x; }", "s.x = 1; t.apply();"), "meta_t s;", _x()),
    "control_local_written_by_an_action_read_after": (_ctl("action a() { s.x = 1; }", "t.apply(); hdr.h.c = s.x;"),
                                                      "meta_t s;", _x()),
    "control_local_key_set_before": (_ctl("", "s.x = 1; t.apply();", key="s.x"), "meta_t s;", _x()),
    "parser_state_read_unset": (program().replace("state start { pkt.extract(hdr.h);",
                                                  "meta_t s;\n    state start { pkt.extract(hdr.h); hdr.h.c = s.x;"),
                                "meta_t s;", _x()),
    "log_msg_of_the_whole_local": (_ing('meta_t s; s.x = 1; s.y = 2; log_msg("{}", {s});'), "meta_t s;", _x()),
    "deparser_log_msg_unset": (program().replace(_D, "control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); "
                                                      'meta_t s; log_msg("v {}", {s.x}); } }'), "meta_t s;", _x()),
}

LOADED = {
    # (the table's only action, its default too: p4c runs the case unconditionally)
    "switch_case_of_the_tables_only_action": _ing(_SW, _W + _T.format(k="hdr.h.b", a="w")),
    "read_after_an_exit_is_dead": _ing("meta_t s; exit; hdr.h.c = s.x;"),
    "self_assignment": _ing("meta_t s; s.x = s.x;"),
    "copy_nothing_reads": _ing("meta_t s; meta_t t2 = s;"),
    "switch_with_a_default_alone": _ing("meta_t s; switch (hdr.h.a) { default: { s.x = 1; } } hdr.h.c = s.x;"),
    # (a struct or header field in the metadata type: p4c's NestedStructs splits the local)
    "metadata_type_with_a_struct_field": _ing("meta_t s; hdr.h.c = s.n.i;").replace(
        "struct meta_t { bit<8> x; bit<16> y; }", "struct in_t { bit<8> i; }\nstruct meta_t { bit<8> x; bit<16> y; in_t n; }"),
    "metadata_type_with_a_header_field": _ing("meta_t s; if (s.hh.isValid()) { hdr.h.c = s.x; }").replace(
        "struct meta_t { bit<8> x; bit<16> y; }", "struct meta_t { bit<8> x; bit<16> y; h_t hh; }"),
    "set_then_read": _ing("meta_t s; s.x = 1; s.y = 2; m = s;"),
    "value_known_across_an_if": _ing(f"meta_t s; s.x = 1; if ({_C}) {{ hdr.h.c = 2; }} hdr.h.a = s.x;"),
    "store_and_read_in_each_arm": _ing(f"meta_t s; if ({_C}) {{ s.x = 1; hdr.h.c = s.x; }} else {{ s.x = 2; hdr.h.c = s.x; }}"),
    "table_with_no_writes_between": _ing("meta_t s; s.x = hdr.h.a; t.apply(); hdr.h.c = s.x;", _T.format(k="hdr.h.b", a="NoAction")),
    "function_out_argument": program(top="void fo(out bit<8> o) { o = 3; }", body="        meta_t s; fo(s.x); hdr.h.c = s.x;"),
    "action_predicated_store_of_a_known_field": _ing(
        "a();", f"    action a() {{ meta_t s = m; if ({_C}) {{ s.x = 1; }} hdr.h.c = s.x; }}"),
    "control_local_dead_register_read_in_an_action": _ctl("action a() { r.read(s.x, 0); }", "t.apply();"),
    "control_local_register_read_overwritten": _ctl("", "r.read(s.x, 0); s.x = 1; hdr.h.c = s.x; t.apply();"),
    "control_local_read_by_an_unused_action": _ctl("action a() { hdr.h.c = 1; }\n    action u() { hdr.h.c = s.x; }",
                                                   "r.read(s.x, 0); t.apply();"),
    "control_local_action_stores_then_reads": _ctl("action a() { s.x = 1; hdr.h.c = s.x; }", "t.apply();"),
    "parser_states_merged": program().replace(
        "state start { pkt.extract(hdr.h); transition accept; }",
        "meta_t s;\n    state start { pkt.extract(hdr.h); s.x = 1; transition n; }\n"
        "    state n { hdr.h.c = s.x; transition accept; }"),
}

globals().update(base.load_refusal_tests(REFUSED, LOADED, {}))
