"""Found by helper mutz24 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles that checkmate-p4c refused (their invalid neighbours are in tests/p4c/test_mutants3.py)."""
from controller.entities import Entry

from .base import H, case, program

CAT = "front end (p4c-compatible)"

_EN = "enum bit<4> En_t { A = 1, B = 5, C = 9 }\n"
_TBL = ("    action s(bit<8> v) { hdr.h.c = hdr.h.c + (bit<16>)v; }\n"
        "    table t { key = { hdr.h.a: exact; } actions = { s; NoAction; } default_action = s(1); }\n"
        "    table t2 { key = { hdr.h.b: exact; } actions = { s; NoAction; } default_action = s(2); }\n"
        "    table t3 { key = { hdr.h.a: exact; } actions = { s; NoAction; } default_action = s(4); }\n")
_F = [(1, H(1, 1, 0x10)), (1, H(2, 3, 0x20)), (1, H(3, 7, 0x30)), (1, H(5, 1, 0x40))]

CASES = [
    # p4c_mutate seed 137: an `if` on an enum-cast comparison is kept by p4c's front end (P4Info:
    # the tables after it stay) and folded by its midend with the flag of a `return` in it, so a
    # table applied twice in the branch it drops or after such a return compiles (checkmate-p4c
    # refused it: "applied more than once on one execution path" / "multiple successors")
    case("mutz24_tables_after_enum_cast_return", CAT, program("""
        if ((En_t)4w5 == En_t.C) { t2.apply(); t2.apply(); }
        t.apply();
        if (hdr.h.b == 3) {
            if (((En_t)4w5 != En_t.C) || (hdr.h.b != hdr.h.b)) { return; }
            t3.apply(); t3.apply();
        }
        hdr.h.d = 7;
""", ingress_decls=_TBL, top=_EN), frames=_F,
         entries=[Entry("I.t", {"hdr.h.a": 2}, "I.s", {"v": 0x11})]),

    # mutz23's open item: a match_kind comparison stored where p4c's def-use pass drops the store
    # (overwritten on every path before a read, or into a local nothing reads after it) never
    # reaches its back end -- checkmate-p4c refused it ("could not convert expression to Json")
    case("mutz24_match_kind_dead_stores", CAT, program("""
        bool b;
        b = exact == lpm;
        b = hdr.h.a == 2;
        meta.m8 = (exact == lpm) ? 8w1 : 8w2;
        meta.m8 = hdr.h.b;
        bool c = exact != ternary;
        bool d = c;
        bool q = exact == lpm;
        t.apply();
        q = hdr.h.a == 3;
        a();
        hdr.h.d = (b ? 32w0x100 : 32w0) + (q ? 32w0x20 : 32w0) + (bit<32>)meta.m8;
""", ingress_decls=_TBL + "    action a() { bool e; e = exact == lpm; e = hdr.h.b == 7; if (e) { hdr.h.c = 9; } }\n"),
         frames=_F, entries=[Entry("I.t", {"hdr.h.a": 2}, "I.s", {"v": 0x11})]),
]

# p4c_mutate seed 141 (rename_use): the value of a table property p4c ignores may be an action call,
# typed as a default action's (fewer arguments allowed), or an action's bare name -- which keeps the
# action in p4c's P4Info even when nothing else uses it (checkmate-p4c refused both: "action s used
# as a value")
CASES.append(case("mutz24_unknown_table_property_naming_actions", CAT, program("""
        t.apply();
""", ingress_decls="""\
    action s(bit<8> v) { hdr.h.b = v; }
    action o(inout bit<8> x, bit<8> v) { x = v; }
    action z(bit<16> w) { hdr.h.c = w; }
    table t {
        key = { hdr.h.a: exact; }
        actions = { s; o(meta.m8); }
        default_action_undeclared = s(1);
        foo = s();
        bar = o(meta.m8, 3);
        baz = z;
        default_action = s(7);
    }
"""), frames=_F, entries=[Entry("I.t", {"hdr.h.a": 2}, "I.s", {"v": 0x11})]))

# p4c_mutate seed 141 (bool_field, `far`): a switch on a header field declared `bool` takes bool
# labels (checkmate-p4c held the field as bit<1> and took `1:`, refused `true:`)
CASES.append(case("mutz24_switch_on_bool_header_field", CAT, program("""
        b_t bb = { hdr.h.a == 1, 0 };
        switch (bb.f) { true: { hdr.h.b = 0x11; } false: { hdr.h.b = 0x22; } }
        bb.f = hdr.h.c == 0x20;
        switch (bb.f) { false: { hdr.h.d = 3; } default: { hdr.h.d = 4; } }
""", top="header b_t { bool f; bit<7> p; }\n"), frames=_F))

# p4c_mutate_p4info (cp_anno): p4c's P4Info keeps @tableonly / @defaultonly of an action's
# declaration on the action (checkmate-p4c dropped them; the table's scopes were already equal)
CASES.append(case("mutz24_action_scope_annotations_in_p4info", CAT, program("""
        t.apply();
        d();
""", ingress_decls="""\
    @tableonly action s(bit<8> v) { hdr.h.b = v; }
    @defaultonly action z() { hdr.h.b = 0x77; }
    @tableonly action d() { hdr.h.c = 0x99; }
    table t { key = { hdr.h.a: exact; } actions = { s; z; } default_action = z(); }
"""), frames=_F, entries=[Entry("I.t", {"hdr.h.a": 2}, "I.s", {"v": 0x11})]))

# p4c_mutate seed 301 (cp_anno): ... and on a table, a key element, an action parameter and extern
# instances (the listed actions' own @tableonly / @defaultonly once, with their scope)
CASES.append(case("mutz24_scope_annotations_on_tables_and_externs", CAT, program("""
        t.apply();
""", ingress_decls="""\
    @tableonly @defaultonly direct_counter(CounterType.packets) dc;
    @tableonly counter(4, CounterType.packets) c;
    @defaultonly register<bit<8>>(4) r;
    action a(@tableonly bit<8> v, @hidden bit<8> w) { hdr.h.b = v + w; c.count(0); r.write(0, v); }
    action b() { hdr.h.b = 2; }
    @tableonly @defaultonly table t {
        key = { hdr.h.a: exact @tableonly; }
        actions = { @tableonly a; @defaultonly b; @foo NoAction; }
        default_action = b();
        counters = dc;
    }
"""), frames=_F, entries=[Entry("I.t", {"hdr.h.a": 2}, "I.a", {"v": 0x11, "w": 1})]))

# p4c_mutate seed 302: an extern instance's @hidden is listed in p4c's P4Info (a table's or an
# action's hides it); a digest of a list holding a header compiles (P4Info only: simple_switch_grpc
# refuses a digest type_spec with a header, as checkmate-switch does)
CASES.append(case("mutz24_hidden_externs_listed", CAT, program("""
        c.count(0);
        r.write(0, hdr.h.a);
        mt.execute_meter(1, meta.m8);
        t.apply();
""", ingress_decls="""\
    @hidden counter(4, CounterType.packets) c;
    @hidden register<bit<8>>(4) r;
    @hidden meter(4, MeterType.packets) mt;
    @hidden direct_counter(CounterType.packets) dc;
    table t { key = { hdr.h.a: exact; } actions = { NoAction; } counters = dc; }
"""), frames=_F))
_NO_TUPLE = "simple_switch_grpc refuses a P4Info whose digest tuple holds a header or a tuple (as checkmate-switch does)"
CASES.append(case("mutz24_digest_list_with_a_header", CAT, program("""
        digest(1, { hdr.h.b, hdr.h2 });
"""), frames=_F, p4info_only=_NO_TUPLE))
CASES.append(case("mutz24_digest_nested_list", CAT, program("""
        digest(1, { hdr.h.a, { hdr.h.b, hdr.h.c } });
"""), frames=_F, p4info_only=_NO_TUPLE))

# (probe) a value set's @hidden is listed in p4c's P4Info as well
CASES.append(case("mutz24_hidden_value_set_listed", CAT, program("""
        hdr.h.b = 1;
""", parser="""
    @hidden value_set<bit<16>>(4) vs;
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) { vs: accept; 0x1234: parse_h; default: accept; }
    }
    state parse_h { pkt.extract(hdr.h); transition accept; }
"""), frames=_F))
