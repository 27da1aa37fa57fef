"""Found by helper p4rt38 (issue #15), decided by real p4c 1.2.4.8 / BMv2 1.15.5.

fuzz_samples (diffcase program fe_masked_keys, seed 114): a key p4c writes as ``field & constant``
(the JSON key's ``mask``) -- BMv2 ANDs every entry's value with the mask when it adds the entry
(``MatchKeyBuilder::apply_big_mask``), so an entry ``0xee`` of ``hdr.h.a & 0xf0`` matches every
``h.a`` of ``0xe_``; checkmate-switch compared the value as sent and never matched
(:func:`switch.runtime.tables.key_mask`).  Exact, ternary (the entry's own mask kept) and lpm keys;
the entries' values have bits outside the masks.  Guard: a metadata key ``meta.m8 & 0x0f`` after
``meta.m8 = hdr.h.c[7:0]`` -- p4c's copy propagation makes it ``hdr.h.c[7:0] & 0xf``, computed into a
temporary with no mask, so BMv2 compares the entry as sent (``0x35``: never a hit).  The P4Runtime
side (duplicates under the mask, reads) is in tests/differential/test_p4rt_p4rt38.py.

fuzz_samples (diffcase program mutz39_action_local_stores_dropped_past_a_single_case_switch_whose_case_
returns_conditional_expression, seed 114): a table applied after ``if (..) { return; } switch (..) { 5:
{ return; } }`` -- the single-case switch behind a statement that may return does not drop what
follows it (the join of RemoveReturns' ``if (!flag)`` loses the mid end's flag), and p4c's JSON has
the table; checkmate-p4c marked it removed by the mid end, so checkmate-switch refused the control
plane's default action for it (``table_successors.midend_kept_tables``).

fuzz_samples (diffcase program open6_plain_enum_action_parameter, seed 115): a table's action with a
plain-enum parameter (P4Info: ``type_name`` only, no width; p4c's JSON: 32 bits) that the program also
calls directly with constant arguments (p4c's JSON: a second ``I.a1`` without parameters) -- on p4c's
JSON checkmate-switch took the table's body for the direct call's copy and refused the control
plane's entries (``bmv2json.program.action``).

fuzz_samples (diffcase program opens2_dead_action_store_listed_by_a_second_table, seed 114, with an
entry running t3's other action): p4c gives each table its own copy of an action (LocalizeAllActions)
and drops the dead stores of one table's copy only -- ``wc``'s ``hdr.h.c = 44`` in ``t``, whose apply
``hdr.h.c = ..`` follows, while ``t3`` keeps it -- so a single-case switch's copy reading ``hdr.h.c``
goes on past ``t.apply()``; checkmate-p4c kept the store wherever another table listed the action
(``elab_unions.inlined_for_copies``: the table reference runs a variant without it,
``dead_reads.dead_action_store_paths``).
"""
from .opens2 import _RD, _SW, _TD
from .base import H, Entry, case, program

CAT = "tables (control plane)"

_SET = "    action set_b(bit<8> v) { hdr.h.b = v; }\n    action set_c(bit<16> v) { hdr.h.c = v; }\n"
_FR = [(1, H(a, b, c, d)) for a, b, c, d in (
    (0xe5, 0x06, 0x0135, 0x12345600), (0xee, 0x02, 0x0005, 0x1234ff00), (0xd5, 0x03, 0x00f5, 0x12340000),
    (0x31, 0x06, 0x0105, 0x12ff5678), (0x30, 0x01, 0x0035, 0x22345678))]

CASES = [
    case("p4rt38_masked_exact_and_ternary_keys_mask_the_entries", CAT, program("        t.apply();\n", ingress_decls=_SET + """
    table t {
        key = { hdr.h.a & 0xf0: exact; 0b11 & hdr.h.b: ternary; }
        actions = { set_c; NoAction; }
    }"""), frames=_FR, entries=[
        Entry("I.t", {"hdr.h.a & 0xf0": 0xee, "0b11 & hdr.h.b": (0x2a, 0xff)}, "I.set_c", {"v": 0x7777}, 4),
        Entry("I.t", {"hdr.h.a & 0xf0": 0x3f}, "I.set_c", {"v": 0x3333}, 2)]),
    case("p4rt38_masked_lpm_key_masks_the_entries", CAT, program("        t.apply();\n", ingress_decls=_SET + """
    table t {
        key = { hdr.h.d & 0xff00ffff: lpm; }
        actions = { set_b; NoAction; }
    }"""), frames=_FR, entries=[Entry("I.t", {"hdr.h.d & 0xff00ffff": (0x12345600, 24)}, "I.set_b", {"v": 0x24}),
                                Entry("I.t", {"hdr.h.d & 0xff00ffff": (0x22340000, 16)}, "I.set_b", {"v": 0x16})]),
    case("p4rt38_masked_metadata_key_masks_the_entries", CAT, program(
        "        meta.m8 = hdr.h.c[7:0];\n        t.apply();\n", ingress_decls=_SET + """
    table t {
        key = { meta.m8 & 0x0f: exact; }
        actions = { set_b; NoAction; }
    }"""), frames=_FR, entries=[Entry("I.t", {"meta.m8 & 0xf": 0x35}, "I.set_b", {"v": 0x55})]),
    case("p4rt38_table_after_a_returning_single_case_switch_behind_a_return_is_kept", CAT, program(
        "        if (hdr.h.a == 3) { return; }\n        switch (hdr.h.b) { 5: { return; } }\n        t2.apply();\n",
        ingress_decls=_SET + "    table t2 { actions = { set_b; NoAction; } default_action = NoAction(); }"),
        frames=_FR + [(1, H(3, 1, 2, 3)), (1, H(4, 5, 2, 3))], defaults=[Entry("I.t2", {}, "I.set_b", {"v": 0x44}, is_default=True)]),
    case("p4rt38_plain_enum_action_parameter_entries", CAT, program(
        "        t.apply();\n        a1(En.A, 8w0x40);\n", top="enum En { A, B, C }\n",
        ingress_decls="    action a1(En v, bit<8> w) { if (v == En.C) { hdr.h.b = w; } else if (v == En.A) { hdr.h.c = 16w0x77 + (bit<16>)w; } }\n"
                      "    table t { key = { hdr.h.a: exact; } actions = { a1; NoAction; } default_action = a1(En.C, 8w0x21); }\n"),
        frames=_FR, json_path=True, entries=[Entry("I.t", {"hdr.h.a": 0xe5}, "I.a1", {"v": 0, "w": 0x5a}),
                                             Entry("I.t", {"hdr.h.a": 0x31}, "I.a1", {"v": 0, "w": 3})]),
    case("p4rt38_dead_action_store_dropped_from_one_tables_copy", "front end (p4c-compatible)", program(
        _SW + "        t.apply(); " + _RD + "hdr.h.c = meta.m16; t3.apply(); hdr.h.b = (bit<8>)hdr.h.c;\n", ingress_decls=_TD),
        entries=[Entry("I.t3", {"hdr.h.b": 0x48}, "I.n", {})],
        frames=[(1, H(a, b, 0xa2e5, 9)) for a in (1, 7) for b in (0x48, 0x47)]),
]
