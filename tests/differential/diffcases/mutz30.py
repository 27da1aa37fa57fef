"""Found by helper mutz30 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch must match."""
from .base import H, case, program

CAT = "front end (p4c-compatible)"

# mutz29's open item: a copy of a stack element made before a sub-parser call that extracts
# `hs.next` (p4c inlines the call; its copy propagation does not take `next` as a write)
_SUB = """parser SubP(packet_in pkt, inout headers_t hdr, inout meta_t meta) {
    state start {
        pkt.extract(hdr.s.next);
        meta.m32 = 5;
        transition accept;
    }
}
"""
_SUB_PARSER = """    SubP() sub;
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        pkt.extract(hdr.s.next);
        meta.m8 = hdr.s.last.a;
        meta.m16 = (bit<16>)hdr.s[0].b;
        meta.m32 = hdr.s.last.d;
        sub.apply(pkt, hdr, meta);
        hdr.h.a = meta.m8;
        hdr.h.c = meta.m16;
        hdr.h.d = meta.m32;
        transition accept;
    }"""

CASES = [
    # a copy of `hs.last` made before the call is read after it as `hs.last` evaluated there -- the
    # element the sub-parser extracted (p4c's JSON: `h.a = s.last.a` after the inlined extract);
    # one of `hs[0]` stays right, one the sub-parser overwrites (`meta.m32 = 5`) is not a copy
    # any more (checkmate-switch read the values stored before the call)
    case("mutz30_stack_copies_propagated_past_a_sub_parsers_extract_next", CAT, program("", fields="    h_t[3] s;\n",
        top=_SUB, parser=_SUB_PARSER, deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"),
        frames=[(1, H(1, 2, 3, 4) + bytes(range(40))), (1, H(7, 9, 0xffff, 0xdeadbeef) + bytes(range(100, 140)))],
        json_path=True),
]

_VERIFY_PARSER = """    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        hdr.s[0].setValid();
        hdr.s[0].a = 7;
        meta.m16 = (bit<16>)hdr.h.a;
        hdr.s[0].c = meta.m16 + 1;
        pkt.extract(hdr.s.next);
        verify(hdr.s[0].a == 7, error.NoMatch);
        verify(hdr.s[0].c == (bit<16>)hdr.h.a + 1, error.StackOutOfBounds);
        transition accept;
    }"""

CASES += [
    # mutz29's open item: a `verify` reads a stale stack constant or copy too -- p4c's JSON has
    # `verify(7 == 7)` and `verify((bit<16>)h.a + 1 == (bit<16>)h.a + 1)` after the extract,
    # whatever the frame held (checkmate-switch read the extracted element: a parser error)
    case("mutz30_stale_stack_reads_in_a_verify", CAT, program("""
        if (sm.parser_error == error.NoMatch) { hdr.h.b = 0xee; }
        if (sm.parser_error == error.StackOutOfBounds) { hdr.h.b = 0xdd; }
""", fields="    h_t[3] s;\n", parser=_VERIFY_PARSER,
        deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"),
        frames=[(1, H(1, 2, 3, 4) + bytes(range(40))), (1, H(7, 9, 0xffff, 0xdeadbeef) + bytes([7, 0, 0, 8]) + bytes(range(100, 140)))],
        json_path=True),
]

_VARBIT_PARSER = """    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        hdr.s[0].setValid();
        hdr.s[0].a = 2;
        hdr.s[1].setValid();
        hdr.s[1].a = hdr.h.b;
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.v, (bit<32>)(hdr.s[0].a + hdr.s[1].a) * 8);
        transition accept;
    }"""

CASES += [
    # (a guard, it agreed already: mutz29 listed it open) a varbit extract's length reads a stale
    # stack constant and copy -- p4c computes `(2 + h.b) * 8` into a temporary before the extract,
    # whatever the extracted elements' `a` hold
    case("mutz30_stale_stack_reads_in_a_varbit_length", CAT, program("", fields="    h_t[2] s;\n    v_t v;\n",
        headers="header v_t { varbit<64> x; }\n", parser=_VARBIT_PARSER,
        deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);\n        pkt.emit(hdr.v);"),
        frames=[(1, H(1, 2, 3, 4, payload=bytes([1, 0, 0, 8, 1, 1, 0, 0, 0, 0, 0, 0]) + bytes(range(100, 140)))),
                (1, H(7, 3, 0xffff, 0xdeadbeef, payload=bytes([4, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0]) + bytes(range(40))))],
        json_path=True),
]
