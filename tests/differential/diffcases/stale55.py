"""Disagreements found by helper stale55 (issue #15, fuzz_mutants), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import H, case, program
from .mutz29 import _SUB2

CASES = []

# fuzz_mutants --kinds mux_expr seed 3766 (`mux_expr` on mutz29_stack_constants_of_two_calls_of_a_sub_parser):
# p4c inlines the sub-parser into the calling state, so its propagation carries the caller's copy
# `hdr.s[0].a = tmp + 1` (tmp: the `?:` temporary) past the body's `extract(hdr.s.next)`: p4c's
# MidEndLast has `meta.m8 = meta.m8 + (tmp + 8w1)` there, and BMv2 adds the old value (m8 = 8 + 9
# = 0x11), not the element the call extracted; checkmate-switch read the new element (0xa9).
# The copy's read of a caller's local (tmp) reaches the body as a hidden `in` parameter
# (stale_stack.copies_into_call), a read through an argument (hdr.h.b) as the parameter's path.
for _name, _store in [
        ("mux_temporary", "hdr.s[0].a = (hdr.s[0].a == 0) ? (7) : hdr.s[0].a; hdr.s[0].a = hdr.s[0].a + 1;"),
        ("argument_field", "hdr.s[0].a = hdr.h.b + 1;"),
        ("mux_of_a_field", "hdr.s[0].a = (hdr.h.b == 9) ? hdr.h.b : 8w3;")]:
    CASES.append(case(f"stale55_copy_into_a_sub_parser_past_its_extract_next_{_name}", "parsers", program("""
        hdr.h.a = meta.m8;
        hdr.h.c = meta.m16;
""", fields="    h_t[3] s;\n", top=_SUB2, parser=f"""    SubP() sub;
    state start {{
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        meta.m8 = 0;
        meta.m16 = 0;
        hdr.s[0].setValid();
        {_store}
        sub.apply(pkt, hdr, meta);
        hdr.s[0].a = 9;
        sub.apply(pkt, hdr, meta);
        transition accept;
    }}""", deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"),
        frames=[(1, H(1, 2, 3, 4) + bytes(range(40))), (1, H(7, 9, 0xffff, 0xdeadbeef) + bytes(range(100, 140)))],
        json_path=True))

# ... also where the copy reads a scalar `inout` argument the body writes before its extract (`x = 5`
# on meta.m8): p4c's propagation had composed `meta.m8 = hdr.h.a` into the copy (MidEndLast: `hdr.h.b
# = hdr.h.a + 8w1` after the extract), the caller's value at the call (the hidden parameter) is that
CASES.append(case("stale55_copy_into_a_sub_parser_reading_a_scalar_inout_argument_the_body_writes", "parsers", program("""
        hdr.h.c = meta.m16;
""", fields="    h_t[3] s;\n", top="""parser SubQ(packet_in pkt, inout headers_t hdr, inout bit<8> x) {
    state start {
        x = 5;
        pkt.extract(hdr.s.next);
        hdr.h.b = hdr.s[0].a;
        transition accept;
    }
}
""", parser="""    SubQ() sub;
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        meta.m8 = hdr.h.a;
        meta.m16 = 0;
        hdr.s[0].setValid();
        hdr.s[0].a = meta.m8 + 1;
        sub.apply(pkt, hdr, meta.m8);
        transition accept;
    }""", deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"),
    frames=[(1, H(1, 2, 3, 4) + bytes(range(40))), (1, H(7, 9, 0xffff, 0xdeadbeef) + bytes(range(100, 140)))],
    json_path=True))
