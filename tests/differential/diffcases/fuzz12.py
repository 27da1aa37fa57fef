"""Disagreements found by helper fuzz12 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.

A mask, range, ``default`` or ``_`` alone in parentheses is a keyset in p4c's grammar
(``reducedSimpleKeysetExpression``): ``(8w2 &&& 0x0f): s(1);`` in ``const entries`` and
``(1 .. 5): next;`` in a ``select``.  checkmate-p4c took the parentheses for an expression's
and refused the ``&&&``.

Named arguments in a table's default action or entry (``s(y = 4, x = 5)``) are in parameter
order once named, as in any call (p4c's rules: all or none named, each once, every parameter
given; none for an action with directional parameters).

p4c's JSON of a tuple ``select`` with ranges holds thousands of ternary transitions; past 256
cases checkmate-switch matches them from a constant table, but not when one case is a value set
(fuzz_parsers seed 2357): the if/elif chain it built instead was too deep for Python to compile,
and the pipeline was refused.  The table now takes value sets too."""
from .base import PAYLOAD, H, Entry, case, eth, hdr, program  # noqa: F401

CAT = "front end (p4c-compatible)"

CASES = [
    case("fuzz12_parenthesized_lone_keyset", CAT, program(
        "        t.apply();\n        hdr.h.d = (bit<32>)meta.m8;\n",
        ingress_decls="""
    action s(bit<8> x, bit<16> y) { hdr.h.a = x; hdr.h.c = y; }
    table t { key = { hdr.h.b: ternary; } actions = { s; } const default_action = s(3, 9);
        const entries = { (8w0x80 &&& 8w0x80): s(1, 2); (8w0x02 &&& 0x0f): s(5, 4); (_): s(8, 9); } }""",
        parser="""
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.h);
        transition select(hdr.h.a) { (8w1 .. 8w5): one; (8w0x10 &&& 0xf0): two; (default): accept; } }
    state one { meta.m8 = 1; transition accept; }
    state two { meta.m8 = 2; transition accept; }"""),
        frames=[(1, H(a, b)) for a, b in ((1, 0x80), (5, 0x12), (0x17, 0x45), (0x20, 0x02), (0, 0x33))],
        json_path=True),
    # named arguments in a table's default action and in its entries, in any order
    # (checkmate-p4c: "unsupported expression named_arg")
    case("fuzz12_named_arguments_in_default_action_and_entries", CAT, program(
        "        t.apply();\n",
        ingress_decls="""
    action s(bit<8> x, bit<16> y) { hdr.h.a = x; hdr.h.c = y; }
    table t { key = { hdr.h.b: exact; } actions = { s; } const default_action = s(y = 16w9, x = 8w3);
        const entries = { 8w1: s(y = 4, x = 5); 8w2: s(x = 6, y = 7); } }"""),
        frames=[(1, H(0, b)) for b in range(4)], json_path=True),
    # an action with a directional parameter: p4c takes named arguments only all of them, in order
    case("fuzz12_named_arguments_in_order_with_a_directional_parameter", CAT, program(
        "        t.apply();\n",
        ingress_decls="""
    action s(inout bit<8> x, bit<16> y) { x = x + 1; hdr.h.c = y; }
    table t { key = { hdr.h.b: exact; } actions = { s(hdr.h.a); } default_action = s(x = hdr.h.a, y = 16w9); }"""),
        frames=[(1, H(5, b)) for b in range(2)], json_path=True),
]

# an empty value set: nothing matches it, the frames show the expanded ranges' choices
CASES.append(case("fuzz12_json_select_ranges_with_value_set", CAT, program(
    "        hdr.h.b = meta.m8;\n",
    top="struct vs_t { bit<8> a; bit<16> c; @match(range) bit<32> d; }\n",
    parser="""
    value_set<vs_t>(4) vs;
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.h);
        transition select(hdr.h.a, hdr.h.c, hdr.h.d) {
            (8w3 .. 8w200, 16w0x11 .. 16w0xfeef, 32w0x1001 .. 32w0xfff00ff): one; vs: two;
            (8w1, _, 32w5 .. 32w0x7ffffffe): two; default: accept; } }
    state one { meta.m8 = 1; transition accept; }
    state two { meta.m8 = 2; transition accept; }"""),
    frames=[(1, H(a, 0, c, d)) for a, c in ((1, 0x11), (3, 0xfef0), (200, 0x11), (201, 0x11)) for d in (5, 0x1001, 0xfff0100)],
    json_path=True))
