"""Found by helper mutz29 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch must match."""
from .base import H, case, program

CAT = "front end (p4c-compatible)"

# mutz28's open item: a sub-parser that sets stack element fields, then extracts `hs.next` over them
_SUB = """parser SubP(packet_in pkt, inout headers_t hdr, inout meta_t meta) {
    state start {
        hdr.s[0].setValid();
        hdr.s[0].a = 7;
        hdr.s[0].c = 0x1234;
        pkt.extract(hdr.s.next);
        meta.m8 = hdr.s[0].a / 3;
        meta.m16 = hdr.s[0].c;
        transition accept;
    }
}
"""
_SUB_PARSER = """    SubP() sub;
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        sub.apply(pkt, hdr, meta);
        transition accept;
    }"""

CASES = [
    case("mutz29_stack_constant_kept_past_extract_next_in_a_sub_parser", CAT, program("""
        hdr.h.a = meta.m8;
        hdr.h.c = meta.m16;
""", fields="    h_t[2] s;\n", top=_SUB, parser=_SUB_PARSER,
        deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"),
        frames=[(1, H(1, 2, 3, 4) + bytes(range(40))), (1, H(7, 9, 0xffff, 0xdeadbeef) + bytes(range(100, 140)))],
        json_path=True),
]

_POINT_TABLES = """    action sa(bit<8> v) { hdr.h.b = v; }
    action sc(bit<16> v) { hdr.h.c = v; }
    action sd(bit<32> v) { hdr.h.d = v; }
    table t_ex { key = { hdr.h.a: exact; } actions = { sa; NoAction; }
        const entries = { 0x1ff .. 0xff: sa(1); 0x102 &&& 0x1ff: sa(2); 5 .. 8w5: sa(3); } }
    table t_tern { key = { hdr.h.a: ternary; } actions = { sc; NoAction; }
        const entries = { 2 .. 2: sc(0x11); 0x05 &&& 0x0f: sc(0x22); (bit<8>)7 .. 7: sc(0x33); } }
    table t_lpm { key = { hdr.h.a: lpm; } actions = { sd; NoAction; }
        const entries = { 0xff .. 0xff: sd(0x44); 0 &&& 0xf0: sd(0x55); } }
    table t_opt { key = { hdr.h.a: optional; hdr.h.b: exact; } actions = { sa; NoAction; }
        const entries = { (7 .. 7, 0): sa(0x66); (_, 1): sa(0x77); } }
"""

CASES += [
    # p4c_mutate seed 701 (entry_key): p4c's BMv2 back end takes a const entry's range of one value
    # (after the literals are cut to the key's width: `0x1ff .. 0xff` is 0xff) as that value on a
    # key of any match kind, and a mask covering the key's width as the value on an exact key
    # (checkmate-p4c refused both: "a range on a exact key")
    case("mutz29_point_ranges_and_full_masks_in_const_entries", CAT, program("""
        t_opt.apply();
        t_ex.apply();
        t_tern.apply();
        t_lpm.apply();
""", ingress_decls=_POINT_TABLES),
        frames=[(1, H(0xff)), (1, H(2)), (1, H(5)), (1, H(7)), (1, H(7, 1)), (1, H(0x15)), (1, H(3))], json_path=True),
]

CASES += [
    # p4c_mutate seed 607 (fold_guard): an action only a table applied in a folded-away branch lists
    # is dropped by p4c with its extern calls -- no extern call left, no `type_info` in the P4Info
    # (checkmate-p4c looked at every action's calls and wrote an empty one)
    case("mutz29_extern_call_of_an_action_only_an_unapplied_table_lists", CAT, program("""
        if (!true && (hdr.h.a == 0)) { t.apply(); }
        hdr.h.b = 1;
""", ingress_decls="""    action r() { mark_to_drop(sm); }
    table t { key = { hdr.h.a: exact; } actions = { r; NoAction; } }"""),
        frames=[(1, H(0)), (1, H(5))]),
]

_SUB2 = """parser SubP(packet_in pkt, inout headers_t hdr, inout meta_t meta) {
    state start {
        pkt.extract(hdr.s.next);
        meta.m8 = meta.m8 + hdr.s[0].a;
        transition accept;
    }
}
"""
_SUB2_PARSER = """    SubP() sub;
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        meta.m8 = 0;
        meta.m16 = 0;
        hdr.s[0].setValid();
        hdr.s[0].a = 7;
        sub.apply(pkt, hdr, meta);
        hdr.s[0].a = 9;
        sub.apply(pkt, hdr, meta);
        transition accept;
    }"""

CASES += [
    # the same sub-parser applied twice with other stale constants: p4c inlines each call, so each
    # has its own (`m8 = 7`, then `m8 = 7 + 9` in p4c's JSON) --
    # checkmate-switch's calls share the states: the second call gets a copy of its own
    case("mutz29_stack_constants_of_two_calls_of_a_sub_parser", CAT, program("""
        hdr.h.a = meta.m8;
        hdr.h.c = meta.m16;
""", fields="    h_t[3] s;\n", top=_SUB2, parser=_SUB2_PARSER,
        deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"),
        frames=[(1, H(1, 2, 3, 4) + bytes(range(40))), (1, H(7, 9, 0xffff, 0xdeadbeef) + bytes(range(100, 140)))],
        json_path=True),
]

_COPY_PARSER = """    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        meta.m16 = (bit<16>)hdr.s[1].b;
        meta.m32 = 5;
        hdr.s[0].setValid();
        hdr.s[0].d = hdr.h.d + 1;
        pkt.extract(hdr.s.next);
        meta.m8 = hdr.s.last.b;
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        hdr.h.a = hdr.s[0].d[7:0] + meta.m8;
        hdr.h.c = meta.m16;
        hdr.h.d = meta.m32;
        transition accept;
    }"""

CASES += [
    # p4c's copy propagation in a parser does not take `extract(hs.next)` as writing an element of
    # `hs` either for the expressions it propagates: a local or field stored from `hs[i]` before
    # it is read after it as that expression, evaluated there (p4c's JSON: `h.c = s[1].b & 0xffff`
    # after both extracts), and so are an element's field stored before it (`h.a = (h.d + 1)[7:0]`)
    # and a copy of `hs.last` (`m8 = s.last.b` is the last element's after the next extract;
    # checkmate-switch read the values stored before them, and the extracted field)
    case("mutz29_stack_copies_propagated_past_extract_next", CAT, program("", fields="    h_t[3] s;\n",
        parser=_COPY_PARSER, deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"),
        frames=[(1, H(1, 2, 3, 4) + bytes(range(40))), (1, H(7, 9, 0xffff, 0xdeadbeef) + bytes(range(100, 140)))],
        json_path=True),
]

CASES += [
    # p4c_mutate seed 199 (cp_anno): an action reference of a table's actions list annotated
    # `@hidden` keeps the annotation in p4c's P4Info (checkmate-p4c dropped it, as for an action)
    case("mutz29_hidden_annotation_on_an_action_reference", CAT, program("""
        t.apply();
""", ingress_decls="""    action sa(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.a: exact; } actions = { @hidden @tableonly sa; @hidden NoAction; } }"""),
        frames=[(1, H(1))]),
]
