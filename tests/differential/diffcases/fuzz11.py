"""Disagreements found by helper fuzz11 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.

An action bound in a table's ``actions`` list with a header or struct ``inout``/``out``
argument (``a(hdr.h2)``) runs on p4c's RemoveActionParameters form: a control-level copy
``x = hdr.h2`` before the body, ``hdr.h2 = x`` after it (and before each ``exit``).  The body
works on the copy, so a read of ``hdr.h2`` there sees the value before the call, and the
copy-back is BMv2's assign_header: an argument invalid at the end keeps the destination's
fields (a write to a field of an invalid argument is lost)."""
from .base import H, H2, Entry, case, program

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
