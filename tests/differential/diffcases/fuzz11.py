"""Disagreements found by helper fuzz11 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.

An action bound in a table's ``actions`` list with a header or struct ``inout``/``out``
argument (``a(hdr.h2)``) runs on p4c's RemoveActionParameters form: a control-level copy
``x = hdr.h2`` before the body, ``hdr.h2 = x`` after it (and before each ``exit``).  The body
works on the copy, so a read of ``hdr.h2`` there sees the value before the call, and the
copy-back is BMv2's assign_header: an argument invalid at the end keeps the destination's
fields (a write to a field of an invalid argument is lost).

p4c's front-end def-use drops a parser store that every path overwrites before reading it,
seeing neither a sub-parser's reject nor a parser error in between (fuzz_parsers seed 2321,
minimised): on BMv2 the field then keeps its earlier value when the parse ends there."""
from .base import PAYLOAD, H, H2, Entry, case, eth, hdr, program

CAT = "front end (p4c-compatible)"

# h2 invalid with known fields first (BMv2 keeps a never-extracted header's old bytes)
_STALE = "        if (!hdr.h2.isValid()) { hdr.h2.setValid(); hdr.h2 = {1, 2, 3, 4}; hdr.h2.setInvalid(); }\n"
_BOUND_COPY = """
    action wh(inout h_t x, bit<8> v) { x.b = v; hdr.h.c = (bit<16>)hdr.h2.b; x.c = hdr.h.c + 1; }
    action ws(inout headers_t s, bit<8> v) { s.h2.b = v; hdr.h.c = (bit<16>)hdr.h2.b; s.h.d = 0x99; hdr.h.d = 5; }
    action we(inout h_t x, bit<8> v) { x.b = v; hdr.h.c = (bit<16>)hdr.h2.b; exit; }
    action wo(out h_t x, bit<8> v) { hdr.h.c = (bit<16>)hdr.h2.b; x.setValid(); x = {v, v, 1, 2}; hdr.h.d = (bit<32>)hdr.h2.a; }
    table t { key = { hdr.h.b: exact; } actions = { wh(hdr.h2); ws(hdr); we(hdr.h2); wo(hdr.h2); NoAction; } }"""
_BOUND_ENTRIES = [Entry("I.t", {"hdr.h.b": 1}, "I.wh", {"v": 0x41}), Entry("I.t", {"hdr.h.b": 2}, "I.ws", {"v": 0x42}),
                  Entry("I.t", {"hdr.h.b": 3}, "I.we", {"v": 0x43}), Entry("I.t", {"hdr.h.b": 4}, "I.wo", {"v": 0x44})]

CASES = [
    # the body reads the bound header (or a header of the bound struct) after writing the
    # argument: it sees the old value (ours: the argument was the field itself); with h2
    # invalid the write is lost at the copy-back
    case("fuzz11_table_bound_header_argument_is_a_copy", CAT, program(
        _STALE + "        t.apply();\n        hdr.h.a = hdr.h2.b;\n",
        ingress_decls=_BOUND_COPY),
        frames=[(1, H(1, b, 9, 9)) for b in range(1, 5)] + [(2, H2(5, 6, 0x77, 8, b=b)) for b in range(1, 5)],
        entries=_BOUND_ENTRIES, json_path=True),
]

# the same for a header-union member: the copy-back of a valid argument invalidates the
# member's siblings (an argument made valid and invalid again in the body leaves them valid)
_UNION_BOUND = """
    action ua(inout h_t x, bit<8> v) { x.setValid(); x.b = v; }
    action ub(inout h_t x, bit<8> v) { x.setValid(); x.b = v; x.setInvalid(); }
    action uc(inout h_t x, bit<8> v) { x.b = v; hdr.h.d = (bit<32>)(bit<1>)hdr.u.a.isValid(); }
    table t { key = { hdr.h.b: exact; } actions = { ua(hdr.u.a); ub(hdr.u.a); uc(hdr.u.b); NoAction; } }"""

CASES.append(
    # ours: the bound member's siblings stayed valid (no siblings in the table's bound argument)
    case("fuzz11_table_bound_union_member_invalidates_siblings", CAT, program(
        "        if (hdr.h.c == 1) { hdr.u.b.setValid(); hdr.u.b = {7, 7, 7, 7}; }\n"
        "        else if (hdr.h.c == 2) { hdr.u.a.setValid(); hdr.u.a = {6, 6, 6, 6}; }\n"
        "        t.apply();\n",
        headers="header_union u_t { h_t a; h_t b; }\n", fields="    u_t u;\n",
        deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.u);",
        ingress_decls=_UNION_BOUND),
        frames=[(1, H(1, b, c, 9)) for b in range(1, 4) for c in range(3)],
        entries=[Entry("I.t", {"hdr.h.b": 1}, "I.ua", {"v": 0x41}), Entry("I.t", {"hdr.h.b": 2}, "I.ub", {"v": 0x42}),
                 Entry("I.t", {"hdr.h.b": 3}, "I.uc", {"v": 0x43})], json_path=True))

# p4c's front-end def-use (SimplifyDefUse) sees a parser as its states and transitions only: a
# sub-parser's apply, an extract and a verify do not end the parse there, so a store whose value
# every path overwrites before reading it is dropped -- observable when the parse ends between
# the two, by a sub-parser's `reject` or a parser error (BMv2 keeps the field's earlier value).
# An explicit `transition reject` is seen (it reads everything): the store before it stays.
# checkmate-p4c kept every such store; it now drops them as p4c does (compiler/parser_defuse.py).
_REJ_BODY = ("        hdr.h.d = meta.m32; hdr.h.c = meta.m16;\n"
             "        if (sm.parser_error != error.NoError) { hdr.h.b = 0xee; }\n")
_SUB_REJ = ("parser Sub(packet_in p, out h_t x) {\n"
            "    state start { p.extract(x); transition select(x.a) { 1: reject; default: accept; } } }\n")

CASES += [
    case("fuzz11_store_before_rejecting_sub_parser_dropped", CAT, program(_REJ_BODY, top=_SUB_REJ, parser="""
    Sub() sub;
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: a; 0x1235: e; default: b; } }
    state a { meta.m32 = 5; sub.apply(pkt, hdr.h); meta.m32 = 7; transition accept; }
    state e { meta.m16 = 5; transition f; }
    state f { sub.apply(pkt, hdr.h); transition g; }
    state g { meta.m16 = 7; transition accept; }
    state b { meta.m32 = 6; transition c; }
    state c { pkt.extract(hdr.h); transition select(hdr.h.a) { 1: reject; default: d; } }
    state d { meta.m32 = 7; transition accept; }"""),
        frames=[(1, eth(t) + hdr(a, 2, 3, 4) + PAYLOAD) for t in (0x1234, 0x1235, 0x1236) for a in (1, 2)]),
    case("fuzz11_store_before_failing_extract_or_verify_dropped", CAT, program(_REJ_BODY, parser="""
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.h); meta.m32 = 5; verify(hdr.h.a != 1, error.NoMatch);
                  meta.m16 = 9; pkt.extract(hdr.h2); meta.m32 = 7; meta.m16 = 4; transition accept; }"""),
        frames=[(1, H(1)), (1, H(2, payload=b"\x01\x02")), (1, H(2))]),
]
