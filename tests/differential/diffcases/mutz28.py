"""Found by helper mutz28 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch must match (their invalid neighbours, and the programs
only the compile side decides, are in tests/p4c/test_mutants7.py)."""
from .base import H, case, program

CAT = "front end (p4c-compatible)"

_S = """control S(inout bit<8> o) { apply { o = o / 3; } }
control SV(in bit<8> v, out bit<8> o) { bit<8> t = 0; apply { t = v % 7; o = t; } }
control T(inout bit<8> p) { S() s; apply { s.apply(p); } }
"""

CASES = [
    # mutz27's open item: a division in a sub-control's body folds at each apply whose arguments
    # carry constants (p4c inlines the body first; checkmate-p4c refused the program) -- the
    # instance applied twice in a row, from a branch, through a local of the body, two levels down;
    # an apply whose result the caller overwrites unread (the store dropped by p4c's def-use)
    case("mutz28_sub_control_division_folded_per_apply", CAT, program("""
        bit<8> v = 200;
        s.apply(v);
        s.apply(v);
        hdr.h.a = v;
        bit<8> w = 100;
        if (hdr.h.b == 2) { s2.apply(w); }
        hdr.h.b = w;
        sv.apply(8w100, hdr.h.c[7:0]);
        bit<8> x = 9;
        t.apply(x);
        hdr.h.d[7:0] = x;
        bit<8> y = hdr.h.d[15:8];
        s3.apply(y);
        y = 5;
        hdr.h.d[15:8] = y;
""", top=_S, ingress_decls="    S() s; S() s2; S() s3; SV() sv; T() t;"),
        frames=[(1, H(1, 2, 3, 0x1234)), (1, H(7, 9, 0xffff, 0xdeadbeef))], json_path=True),
]

# a parser that sets stack element fields, then extracts `hdr.s.next` over them
_STK_PARSER = """    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        hdr.s[0].setValid();
        hdr.s[0].a = 7;
        hdr.s[0].c = 0x1234;
        hdr.s[1].setValid();
        hdr.s[1].b = 9;
        pkt.extract(hdr.s.next);
        meta.m8 = hdr.s[0].a / 3;
        meta.m16 = hdr.s[0].c;
        hdr.h.b = hdr.s[1].b;
        transition accept;
    }"""

CASES += [
    # mutz27's open item: p4c's constant propagation does not take `extract(hdr.s.next)` as writing
    # `hdr.s[0]` -- a constant stored there before is read after it, on BMv2 too (p4c's JSON sets
    # the constant: `m8 = 7 / 3`, `m16 = 0x1234`), whatever the frame held; checkmate-p4c refused
    # the division and read the extracted field
    case("mutz28_stack_constant_kept_past_extract_next", CAT, program("""
        hdr.h.a = meta.m8;
        hdr.h.c = meta.m16;
""", fields="    h_t[2] s;\n", parser=_STK_PARSER,
        deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"),
        frames=[(1, H(1, 2, 3, 4) + bytes(range(40))), (1, H(7, 9, 0xffff, 0xdeadbeef) + bytes(range(100, 140)))],
        json_path=True),
]

_STK_SELECT_PARSER = """    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        hdr.s[0].setValid();
        hdr.s[0].a = 7;
        pkt.extract(hdr.s.next);
        transition select(hdr.s[0].a) {
            7: seven;
            default: accept;
        }
    }
    state seven {
        meta.m8 = 0x77;
        transition accept;
    }"""

CASES += [
    # ... and a select on it is folded the same (p4c warns "unreachable case", its JSON has the
    # one transition): the frames' s[0].a are not 7
    case("mutz28_stack_constant_past_extract_next_in_a_select", CAT, program("""
        hdr.h.b = meta.m8;
""", fields="    h_t[2] s;\n", parser=_STK_SELECT_PARSER,
        deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"),
        frames=[(1, H(1, 2, 3, 4) + bytes(range(40))), (1, H(7, 9, 0xffff, 0xdeadbeef) + bytes(range(100, 140)))],
        json_path=True),
]

CASES += [
    # p4c_mutate seed 601 (dead_wrap): an `if` p4c folds in a deparser is its kept branch (checkmate-p4c
    # refused the program): the emits in order, an `else` kept, a nested one, strength reduction
    case("mutz28_folded_ifs_in_a_deparser", CAT, program("", top="const bool K = false;\n", deparser="""
        pkt.emit(hdr.eth);
        if (!true) { pkt.emit(hdr.h); }
        if (K) { pkt.emit(hdr.h2); } else { pkt.emit(hdr.h); }
        if (hdr.h.a * 0 == 1) { pkt.emit(hdr.h); }
        if (true) { if (false) { pkt.emit(hdr.h); } pkt.emit(hdr.h2); }"""),
        frames=[(1, H(1, 2, 3, 4)), (1, H(0xee, 9, 0xffff, 0xdeadbeef) + bytes(range(12)))], json_path=True),
]

_SA = """control SA(in bit<8> v, inout bit<8> o) {
    action a() { o = v / 3; }
    action b() { a(); }
    action c() { o = o + v % 7; }
    table t { key = { o: exact; } actions = { c; NoAction; } default_action = c(); }
    apply { b(); t.apply(); }
}
"""

CASES += [
    # ... an action of the sub-control called directly (through another action too) folds with the
    # apply's constants; a table's action where the apply gives the `in` parameter a constant
    # (p4c's inliner puts it in place of the parameter)
    case("mutz28_sub_control_action_divisions_folded", CAT, program("""
        sa.apply(8w100, hdr.h.b);
""", top=_SA, ingress_decls="    SA() sa;"), frames=[(1, H(1, 2, 3, 4)), (1, H(7, 33, 0xffff, 0xdeadbeef))], json_path=True),
]

CASES += [
    # p4c_mutate seed 182 (dead_wrap): an action profile or selector declared in a control whose
    # tables are never applied (or only in a branch p4c folds away) is still in p4c's P4Info, with
    # no table_ids (checkmate-p4c dropped it with its tables); one a table property declares goes
    # with its table, and then needs no type_info
    case("mutz28_profiles_of_unapplied_tables_listed", CAT, program("""
        if (!true) { t2.apply(); }
        t3.apply();
""", ingress_decls="""    action s(bit<8> v) { hdr.h.b = v; }
    action_selector(HashAlgorithm.crc16, 32w4, 32w16) sel;
    action_profile(32w8) ap;
    table t1 { key = { hdr.h.c: exact; hdr.h.b: selector; } actions = { s; NoAction; } implementation = sel; }
    table t2 { key = { hdr.h.c: exact; } actions = { s; NoAction; } implementation = ap; }
    table t3 { key = { hdr.h.a: exact; } actions = { s; NoAction; } implementation = ap; }"""),
        frames=[(1, H(1, 2, 3, 4))], json_path=True),
    case("mutz28_property_profile_of_an_unapplied_table_not_listed", CAT, program("""
        if (false) { t2.apply(); }
""", ingress_decls="""    action s(bit<8> v) { hdr.h.b = v; }
    table t2 { key = { hdr.h.c: exact; } actions = { s; NoAction; } @name("ipx") implementation = action_profile(32w4); }"""),
        frames=[(1, H(1, 2, 3, 4))], json_path=True),
]
