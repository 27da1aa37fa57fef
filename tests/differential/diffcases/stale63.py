"""Cases of helper stale63 (issue #15): stale55's copy of a caller's stack element into a sub-parser
past its `extract(.next)` (p4c inlines the sub-parser, so its constant propagation carries the copy
through the body) for the shapes stale55 left open -- the stack passed as a sub-parser argument
(a struct field / a nested struct), nested sub-parser calls, and the same sub-parser called twice.
Each decided by real p4c 1.2.4.8 / BMv2 1.15.5.
"""
from .base import H, case, program

CASES = []

_FRAMES = [(1, H(1, 2, 3, 4) + bytes(range(40))), (1, H(7, 9, 0xffff, 0xdeadbeef) + bytes(range(100, 140)))]
_DEP = "        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"
_OUT = """
        hdr.h.a = meta.m8;
        hdr.h.c = meta.m16;
"""


def _parser(body: str, decl: str = "    SubP() sub;") -> str:
    return f"""{decl}
    state start {{
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        meta.m8 = 0;
        meta.m16 = 0;
        hdr.s[0].setValid();
{body}
        transition accept;
    }}"""


# (a) the stack itself is the sub-parser's argument (a field of hdr): BMv2 m8 = h.b + 1 (3), the caller's
# copy; checkmate-switch read the extracted element (0xa0) -- a stack parameter was not mapped
_SUB_STACK = """parser SubP(packet_in pkt, inout h_t[3] st, inout bit<8> m) {
    state start {
        pkt.extract(st.next);
        m = m + st[0].a;
        transition accept;
    }
}
"""
for _name, _store in [("argument_field", "hdr.s[0].a = hdr.h.b + 1;"),
                      ("mux_temporary", "hdr.s[0].a = (hdr.h.b == 9) ? hdr.h.b : 8w3;")]:
    CASES.append(case(f"stale63_copy_into_a_sub_parser_whose_argument_is_the_stack_{_name}", "parsers",
        program(_OUT, fields="    h_t[3] s;\n", top=_SUB_STACK,
                parser=_parser(f"        {_store}\n        sub.apply(pkt, hdr.s, meta.m8);"), deparser=_DEP),
        frames=_FRAMES, json_path=True))

# (a') the stack is a field of a nested struct passed to the sub-parser (agreed before)
_SUB_NESTED = """parser SubP(packet_in pkt, inout inner_t in1, inout bit<8> m) {
    state start {
        pkt.extract(in1.s.next);
        m = m + in1.s[0].a;
        transition accept;
    }
}
"""
CASES.append(case("stale63_copy_into_a_sub_parser_of_a_nested_struct_holding_the_stack", "parsers",
    program("""
        hdr.h.a = meta.m8;
""", headers="struct inner_t { h_t[3] s; }\n", fields="    inner_t n;\n", top=_SUB_NESTED,
        parser="""    SubP() sub;
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        meta.m8 = 0;
        hdr.n.s[0].setValid();
        hdr.n.s[0].a = hdr.h.b + 1;
        sub.apply(pkt, hdr.n, meta.m8);
        transition accept;
    }""", deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.n.s);"),
    frames=_FRAMES, json_path=True))

# (b) nested calls: the caller's copy reaches the inner sub-parser's read after its extract, and the
# outer one's read after the inner call (BMv2 m8 = 3; checkmate-switch 0xa0: a nested call was not followed)
_SUB_NEST = """parser SubI(packet_in pkt, inout headers_t hdr, inout meta_t meta) {
    state start {
        pkt.extract(hdr.s.next);
        meta.m8 = meta.m8 + hdr.s[0].a;
        transition accept;
    }
}
parser SubP(packet_in pkt, inout headers_t hdr, inout meta_t meta) {
    SubI() inner;
    state start {
        inner.apply(pkt, hdr, meta);
        meta.m16 = meta.m16 + (bit<16>)hdr.s[0].a;
        transition accept;
    }
}
"""
for _name, _store in [("argument_field", "hdr.s[0].a = hdr.h.b + 1;"),
                      ("mux_temporary", "hdr.s[0].a = (hdr.s[0].a == 0) ? (7) : hdr.s[0].a; hdr.s[0].a = hdr.s[0].a + 1;")]:
    CASES.append(case(f"stale63_copy_into_nested_sub_parsers_past_the_inner_extract_next_{_name}", "parsers",
        program(_OUT, fields="    h_t[3] s;\n", top=_SUB_NEST,
                parser=_parser(f"        {_store}\n        sub.apply(pkt, hdr, meta);"), deparser=_DEP),
        frames=_FRAMES, json_path=True))

# (c) the same sub-parser called twice, each call after a copy of its own: the first call's own copy
# `m16 = (bit<16>)s.last.b` (its `m16 + ..` folded with m16 = 0) flows out of it and goes stale at the
# second call's extract: BMv2 m16 = 2 * s[1].b (0x152); checkmate-switch s[0].b + s[1].b (0x14a) -- the
# body's copies did not flow out of a call, and the store into s[0].a forgot a copy reading s.last.b
# (p4c keeps it: another field).  The `?:` variant agreed before (RemoveParserControlFlow splits there)
_SUB2 = """parser SubP(packet_in pkt, inout headers_t hdr, inout meta_t meta) {
    state start {
        pkt.extract(hdr.s.next);
        meta.m8 = meta.m8 + hdr.s[0].a;
        meta.m16 = meta.m16 + (bit<16>)hdr.s.last.b;
        transition accept;
    }
}
"""
for _name, _stores in [
        ("argument_fields", ("hdr.s[0].a = hdr.h.b + 1;", "hdr.s[0].a = hdr.h.a + 2;")),
        ("mux_temporaries", ("hdr.s[0].a = (hdr.h.b == 9) ? hdr.h.b : 8w3;",
                             "hdr.s[0].a = (hdr.h.a == 7) ? hdr.h.b : 8w5;"))]:
    CASES.append(case(f"stale63_copies_into_two_calls_of_a_sub_parser_{_name}", "parsers",
        program(_OUT, fields="    h_t[3] s;\n", top=_SUB2,
                parser=_parser(f"        {_stores[0]}\n        sub.apply(pkt, hdr, meta);\n"
                               f"        {_stores[1]}\n        sub.apply(pkt, hdr, meta);"), deparser=_DEP),
        frames=_FRAMES, json_path=True))

# (a'') two stacks through one sub-parser's stack parameter, and an `in` argument of an expression
# (the call goes through temporaries: agreed before and after)
_SUB_IN = """parser SubP(packet_in pkt, inout h_t[3] st, in bit<8> k, inout bit<8> m) {
    state start {
        pkt.extract(st.next);
        m = m + st[0].a + k;
        transition accept;
    }
}
"""
CASES.append(case("stale63_copies_into_calls_of_a_sub_parser_on_two_stacks_with_an_in_expression", "parsers",
    program(_OUT, fields="    h_t[3] s;\n    h_t[3] t;\n", top=_SUB_IN, parser=_parser("""        hdr.t[0].setValid();
        hdr.s[0].a = hdr.h.b + 1;
        hdr.t[0].a = hdr.h.a + 3;
        sub.apply(pkt, hdr.s, hdr.h.a + 1, meta.m8);
        sub.apply(pkt, hdr.t, hdr.h.b, meta.m8);"""),
        deparser=_DEP + "\n        pkt.emit(hdr.t);"),
    frames=_FRAMES, json_path=True))

# (b') nested calls where the outer sub-parser makes the copy before calling the inner one: BMv2 m8 =
# 2 * (h.a + 4) (0x0a), the copy stale in both inner calls; checkmate-switch 0x40
_SUB_NEST2 = """parser SubI(packet_in pkt, inout headers_t hdr, inout meta_t meta) {
    state start {
        pkt.extract(hdr.s.next);
        meta.m8 = meta.m8 + hdr.s[0].a;
        transition accept;
    }
}
parser SubP(packet_in pkt, inout headers_t hdr, inout meta_t meta) {
    SubI() inner;
    state start {
        hdr.s[0].a = hdr.h.a + 4;
        inner.apply(pkt, hdr, meta);
        meta.m16 = (bit<16>)hdr.s.last.b;
        inner.apply(pkt, hdr, meta);
        meta.m16 = meta.m16 + (bit<16>)hdr.s.last.b;
        transition accept;
    }
}
"""
CASES.append(case("stale63_copy_of_an_outer_sub_parser_into_its_inner_calls", "parsers",
    program(_OUT, fields="    h_t[3] s;\n", top=_SUB_NEST2,
            parser=_parser("        sub.apply(pkt, hdr, meta);"), deparser=_DEP),
    frames=_FRAMES, json_path=True))

# (b'') nested calls where only the inner sub-parser reads the copy of a `?:` temporary: the inner call's
# hidden parameter is passed the outer call's, which is added for it (stale_stack.add_hidden_params)
CASES.append(case("stale63_copy_of_a_mux_temporary_read_only_in_the_inner_sub_parser", "parsers",
    program(_OUT, fields="    h_t[3] s;\n", top=_SUB_NEST.replace(
        "        meta.m16 = meta.m16 + (bit<16>)hdr.s[0].a;\n", ""),
            parser=_parser("        hdr.s[0].a = (hdr.s[0].a == 0) ? (7) : hdr.s[0].a; hdr.s[0].a = hdr.s[0].a + 1;\n"
                           "        sub.apply(pkt, hdr, meta);"), deparser=_DEP),
    frames=_FRAMES, json_path=True))

# (b''') a sub-parser with a nested call, itself called twice with copies of its own: BMv2 m8 = m16 =
# 2 * (h.b + 1) (6); checkmate-switch 0x40 / 0xa3 before the nested calls were followed
CASES.append(case("stale63_copies_into_two_calls_of_a_sub_parser_with_a_nested_call", "parsers",
    program(_OUT, fields="    h_t[3] s;\n", top=_SUB_NEST,
            parser=_parser("        hdr.s[0].a = hdr.h.b + 1;\n        sub.apply(pkt, hdr, meta);\n"
                           "        hdr.s[1].a = hdr.h.a + 5;\n        sub.apply(pkt, hdr, meta);"), deparser=_DEP),
    frames=_FRAMES, json_path=True))

# a sub-parser whose read of the copy is in a state after a `select` (p4c's propagation starts the state afresh)
CASES.append(case("stale63_copy_into_a_sub_parser_read_in_a_later_state", "parsers",
    program(_OUT, fields="    h_t[3] s;\n", top="""parser SubP(packet_in pkt, inout headers_t hdr, inout meta_t meta) {
    state start {
        pkt.extract(hdr.s.next);
        transition select(hdr.h.a) { 7: more; default: accept; }
    }
    state more {
        meta.m8 = meta.m8 + hdr.s[0].a;
        transition accept;
    }
}
""", parser=_parser("        hdr.s[0].a = hdr.h.b + 1;\n        sub.apply(pkt, hdr, meta);"), deparser=_DEP),
    frames=_FRAMES, json_path=True))
