"""Disagreements found by helper fuzz12 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.

A mask, range, ``default`` or ``_`` alone in parentheses is a keyset in p4c's grammar
(``reducedSimpleKeysetExpression``): ``(8w2 &&& 0x0f): s(1);`` in ``const entries`` and
``(1 .. 5): next;`` in a ``select``.  checkmate-p4c took the parentheses for an expression's
and refused the ``&&&``.

Named arguments in a table's default action or entry (``s(y = 4, x = 5)``) are in parameter
order once named, as in any call (p4c's rules: all or none named, each once, every parameter
given; none for an action with directional parameters)."""
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
]
