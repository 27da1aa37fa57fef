"""More one-mistake programs and their valid neighbours (helper mutz25 on; the design notes are in
test_mutants.py): each mutant is rejected with ``file:line:col`` on its line and a message naming
the problem, its valid twin compiles, and with p4c on PATH p4c agrees on both and on every VALID
program."""
from __future__ import annotations

from p4c_helpers import program
from switch.compiler import compile_source
from test_mutants import mutant_table_tests

_MK = r"could not convert expression to Json"
_OA = "    action a(out bool o) { o = exact == lpm; }\n"
_OS = "control S(out bool o) { apply { o = exact == lpm; } }\n"
_OF = "void f(out bool o) { o = exact == lpm; }\n"
_RD = "        if (b) { hdr.h.c = 1; }"
_OW = "        b = hdr.h.a == 1;\n" + _RD
_ST = "struct s_t { bit<8> x; bit<8> y; }\ncontrol S(inout s_t q) { apply { q.x = (exact == lpm) ? 8w1 : 8w2; } }\n"
_TB = "    bool b;\n" + _OA + "    table t { key = { hdr.h.a: exact; } actions = { a(b); NoAction; } default_action = a(b); }\n"

_SA = "control S(inout h_t h) {\n    action a(bit<8> z) { h.a = z; }\n    apply { a(); }\n}\n"
_AZ = "    action a(bit<8> z) { hdr.h.a = z; }\n"

_SEL = ("    action s(bit<8> v) {{ hdr.h.a = v; }}\n    table t {{ key = {{ hdr.h.a: exact; {0} }} actions = {{ s; NoAction; }}\n"
        "        @name(\"sel\") implementation = action_selector(HashAlgorithm.identity, 32w128, 32w8); }}\n")
_RB = ("control B(inout h_t h, register<{0}> reg) {{\n    action go() {{ bit<8> x; reg.read(x, 1); reg.write(1, x + h.a); }}\n"
       "    apply {{ go(); }}\n}}\n")

def _bsel(label: str) -> str:
    """A select on a header field declared bool, with one label."""
    return program(top="header b_t { bool f; bit<7> p; }\n").replace("struct headers { h_t h; }", "struct headers { h_t h; b_t b; }").replace(
        "state start { pkt.extract(hdr.h); transition accept; }",
        "state start { pkt.extract(hdr.h); pkt.extract(hdr.b);\n        transition select(hdr.b.f) { " + label + ": accept; default: accept; } }")


_NR = "bool f(in bit<8> x) { if (x == 1) { return true; } }\n"

# name -> (invalid program, needle on the mutated line, message regex, valid twin)
CASES = {
    # mutz24's open item: a match_kind comparison stored into an action's, a function's or a
    # sub-control's out parameter reaches p4c's back end when the caller reads the argument after
    # the call (p4c inlines the body and its copy-out; the twin overwrites the argument first)
    "match_kind_out_param_of_action_read": (
        program(locals=_OA, body="        bool b;\n        a(b);\n" + _RD), "action a(out", _MK,
        program(locals=_OA, body="        bool b;\n        a(b);\n" + _OW)),
    "match_kind_out_param_of_function_read": (
        program(top=_OF, body="        bool b;\n        f(b);\n" + _RD), "void f(", _MK,
        program(top=_OF, body="        bool b;\n        f(b);\n" + _OW)),
    "match_kind_out_param_of_sub_control_read": (
        program(top=_OS, locals="    S() s;\n", body="        bool b;\n        s.apply(b);\n" + _RD), "control S(", _MK,
        program(top=_OS, locals="    S() s;\n", body="        bool b;\n        s.apply(b);\n" + _OW)),
    "match_kind_out_param_read_at_one_of_two_calls": (
        program(locals=_OA, body="        bool b; bool c;\n        a(b);\n        a(c);\n        b = hdr.h.a == 1;\n"
                                 "        if (b && c) { hdr.h.c = 1; }"), "action a(out", _MK,
        program(locals=_OA, body="        bool b; bool c;\n        a(b);\n        a(c);\n        b = hdr.h.a == 1; c = b;\n"
                                 "        if (b && c) { hdr.h.c = 1; }")),
    "match_kind_out_param_through_a_local": (
        program(locals="    action a(out bool o) { bool t = exact == lpm; o = t; }\n", body="        bool b;\n        a(b);\n" + _RD),
        "action a(out", _MK,
        program(locals="    action a(out bool o) { bool t = exact == lpm; o = t; }\n", body="        bool b;\n        a(b);\n" + _OW)),
    "match_kind_struct_param_field_read": (
        program(top=_ST, locals="    S() s;\n", body="        s_t v = { 1, 2 };\n        s.apply(v);\n        v.y = 3;\n"
                                                   "        hdr.h.a = v.x + v.y;"), "control S(", _MK,
        program(top=_ST, locals="    S() s;\n", body="        s_t v = { 1, 2 };\n        s.apply(v);\n        v.x = 3;\n"
                                                   "        hdr.h.a = v.x + v.y;")),
    "match_kind_bound_out_param_read_after_if_hit": (
        program(locals=_TB, body="        if (t.apply().hit) { hdr.h.c = 2; }\n" + _RD), "action a(out", _MK,
        program(locals=_TB, body="        if (t.apply().hit) { hdr.h.c = 2; }\n" + _OW)),
    "match_kind_function_out_param_read_in_the_same_assignment": (
        program(top="bit<8> g(out bool o) { o = exact == lpm; return 8w1; }\n",
                body="        bool b = false;\n        hdr.h.a = g(b) + (b ? 8w1 : 8w0);\n        b = true;\n" + _RD),
        "bit<8> g(", _MK,
        program(top="bit<8> g(out bool o) { o = exact == lpm; return 8w1; }\n",
                body="        bool b = false;\n        hdr.h.a = g(b) + 8w1;\n        b = true;\n" + _RD)),
    "match_kind_bound_out_param_read_in_a_switch_case": (
        program(locals=_TB, body="        switch (t.apply().action_run) { a: { if (b) { hdr.h.c = 2; } } default: { } }\n" + _OW),
        "action a(out", _MK,
        program(locals=_TB, body="        switch (t.apply().action_run) { a: { hdr.h.c = 2; } default: { } }\n" + _OW)),
    # a directionless action argument left out of a direct call is p4c's "parameter must be bound",
    # raised after it removes unused code (p4c_mutate seed 152: the VALID programs below)
    "unbound_action_argument_in_applied_sub_control": (
        program(top=_SA, locals="    S() s;\n", body="        s.apply(hdr.h);"), "apply { a(); }", r"no argument for parameter z",
        program(top=_SA.replace("a();", "a(1);"), locals="    S() s;\n", body="        s.apply(hdr.h);")),
    "unbound_action_argument_in_used_action": (
        program(locals=_AZ + "    action b() { a(); }\n", body="        b();"), "action b()", r"no argument for parameter z",
        program(locals=_AZ + "    action b() { a(3); }\n", body="        b();")),
    "unbound_action_argument_after_exit": (
        program(locals=_AZ, body="        exit;\n        a();"), "        a();", r"no argument for parameter z",
        program(locals=_AZ, body="        return;\n        a();")),
    # p4c_mutate seed 154 (match_field): a complex selector key needs a @name as any key does (p4c's
    # front end names the key elements; also before the anonymous-implementation error)
    "complex_selector_key_without_name": (
        program(locals=_SEL.format("(bit<4>)hdr.h.c: selector;"), body="        t.apply();"), "(bit<4>)hdr.h.c: selector",
        r"requires a @name", program(locals=_SEL.format("(bit<4>)hdr.h.c: selector @name(\"k\");"), body="        t.apply();")),
    "complex_selector_key_without_name_anonymous_selector": (
        program(locals=_SEL.format("(bit<4>)hdr.h.c: selector;").replace('@name("sel") ', ""), body="        t.apply();"),
        "(bit<4>)hdr.h.c: selector", r"requires a @name",
        program(locals=_SEL.format("hdr.h.c: selector;"), body="        t.apply();")),
    # p4c_mutate seed 156 (type): a `register<T>` control parameter types the body by T (a read into
    # another type is the body's error) and the apply's argument must be a register<T>
    "register_parameter_body_uses_declared_type": (
        program(top=_RB.format("error"), locals="    register<bit<8>>(4) r;\n    B() b;\n", body="        b.apply(hdr.h, r);"),
        "reg.read(x, 1)", r"holds error, result is bit<8>",
        program(top=_RB.format("bit<8>"), locals="    register<bit<8>>(4) r;\n    B() b;\n", body="        b.apply(hdr.h, r);")),
    "register_parameter_argument_of_another_type": (
        program(top=_RB.format("bit<8>"), locals="    register<bit<16>>(4) r;\n    B() b;\n", body="        b.apply(hdr.h, r);"),
        "b.apply(", r"Cannot cast implicitly type register<bit<16>> to type register<bit<8>>",
        program(top=_RB.format("bit<16>").replace("bit<8> x", "bit<16> x").replace("x + h.a", "x + 1"),
                locals="    register<bit<16>>(4) r;\n    B() b;\n", body="        b.apply(hdr.h, r);")),
    # p4c_mutate seed 153 (bool_field, `far`): a mask or range keyset for a bool select key
    "select_mask_on_bool_key": (
        _bsel("0x1234 &&& 0xfffe"), "transition select(hdr.b.f)", r"&&& of a bit type for a bool key",
        _bsel("true")),
    "select_range_on_bool_key": (
        _bsel("0 .. 1"), "transition select(hdr.b.f)", r"\.\. of a bit type for a bool key", _bsel("false")),
    "select_mask_of_bools": (
        _bsel("true &&& true"), "transition select(hdr.b.f)", r"&&&: cannot be applied to a bool", _bsel("true")),
    # p4c_mutate seed 403 (op_swap, `far`): a function missing a `return`, called in an expression
    # with a type error, is p4c's error only after type checking
    "type_error_around_a_call_of_a_function_missing_return": (
        program(top=_NR, body="        bool c = false ^ f(hdr.h.a);\n        if (c) { hdr.h.c = 1; }"), "bool c = false ^",
        r"operator \^ on values of type bool",
        program(top=_NR, body="        bool c = false && f(hdr.h.a);\n        if (c) { hdr.h.c = 1; }")),
}

_E = "control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }"

VALID = {
    # the out-parameter stores p4c's def-use drops after inlining: each argument overwritten after
    # the call before a read (also an inout one, a part of a struct used in place, through a local,
    # through an outer action's out parameter, a function called in an expression, a sub-control
    # applied in between), or a local nothing reads
    "match_kind_out_param_stores_overwritten": program(
        top=_OF + "bit<8> g(out bool o) { o = exact == lpm; return 8w1; }\n" + _ST.replace("S(", "S2(") + _OS,
        locals=_OA + "    action ai(inout bool o) { o = exact == lpm; }\n"
                     "    action al(out bool o) { bool t = exact == lpm; o = t; }\n"
                     "    action a2(out bool p) { a(p); }\n"
                     "    action af(out bit<8> o) { o = (exact == lpm) ? 8w1 : 8w2; }\n"
                     "    S() s;\n    S2() s2;\n",
        body="        bool b; bool c; bool d = true;\n        a(c);\n        ai(d);\n        f(c);\n        s.apply(d);\n"
             "        al(c);\n        a2(d);\n        af(m.x);\n        bool w;\n        hdr.h.a = g(w);\n        w = true;\n"
             "        s_t v = { 1, 2 };\n        s2.apply(v);\n        v.x = 3;\n        hdr.h.a = v.x + v.y;\n"
             "        bool u;\n        a(u);\n"
             "        b = hdr.h.a == 1; c = b; d = c; m.x = hdr.h.a;\n"
             "        if (b && c && d && w) { hdr.h.c = m.x; }").replace(
        _E, "control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {\n" + _OA +
        "    apply { bool b; a(b); b = true; if (b) { hdr.h.a = 1; } } }"),
    # a table's bound out argument: overwritten after the apply, a switch on its action_run, or
    # an `if` on its hit
    "match_kind_bound_out_param_overwritten_after_apply": program(locals=_TB, body="        t.apply();\n" + _OW),
    "match_kind_bound_out_param_overwritten_after_switch": program(
        locals=_TB, body="        switch (t.apply().action_run) { a: { hdr.h.c = 2; } default: { } }\n" + _OW),
    "match_kind_bound_out_param_overwritten_after_if_hit": program(
        locals=_TB, body="        if (t.apply().hit) { hdr.h.c = 3; }\n" + _OW),
    # a local's store before a `return` (its value read first) is dead at the return
    "match_kind_local_store_before_return": program(
        top="bit<8> f2(in bit<8> x) { bool b = exact == lpm; return x; }\n",
        locals="    action r() { bool b = exact == lpm; if (hdr.h.a == 1) { return; } hdr.h.c = 3; }\n",
        body="        hdr.h.a = f2(hdr.h.a);\n        r();"),
    # ... in code p4c removes first: an unapplied sub-control, an unused action (also with a bound
    # argument given), after a return, a bool or bit<0> parameter too
    "unbound_action_arguments_in_removed_code": program(
        top=_SA + "control S2(inout h_t h) {\n    action a(bit<8> z, bit<8> y) { h.a = z; }\n    apply { a(y = 1); }\n}\n",
        locals=_AZ + "    action b() { a(); }\n    action ai(inout bit<8> q, bool z, bit<0> w) { q = z ? 8w1 : 8w2; }\n"
                     "    action c() { ai(hdr.h.a); }\n    S() s;\n    S2() s2;\n",
        body="        hdr.h.a = 3;\n        return;\n        a();\n        ai(hdr.h.c);"),
}


test_valid_program_compiles, test_mutant_rejected_on_its_line, test_p4c_agrees = mutant_table_tests(CASES, VALID)


def test_field_ids_as_p4cs_allocator(tmp_path):
    """p4c's FieldIdAllocator (p4c_mutate seed 160: a selector key before the others): match fields
    (selector keys counted, P4Info leaves them out), action parameters and controller header
    fields (@hidden ones counted) -- an element's @id is its id, the others are numbered from 1
    skipping the ids @ids take, the counter stepping once for each @id element too.  With p4c on
    PATH the whole P4Info is compared as well."""
    from p4c_helpers import assert_p4info_as_p4c
    from switch.compiler.ids import field_ids
    assert field_ids([None, None]) == [1, 2]
    assert field_ids([7, None, None]) == [7, 2, 3]
    assert field_ids([None, 1, None]) == [2, 1, 3]
    assert field_ids([None, 3, None]) == [1, 3, 2]
    assert field_ids([2, None]) == [2, 3]
    src = program(
        top='@controller_header("packet_in") header pin_t { @hidden bit<7> pad; @id(1) bit<9> port; bit<8> q; }\n',
        locals="    action s(bit<8> v, @id(1) bit<8> w) { hdr.h.a = v + w; }\n"
               "    table t1 { key = { hdr.h.c: selector; hdr.h.a: exact; hdr.h.b: ternary; } actions = { s; }\n"
               '        @name("sel") implementation = action_selector(HashAlgorithm.identity, 32w128, 32w8); }\n'
               "    table t2 { key = { hdr.h.c: selector; hdr.h.a: exact @id(3); hdr.h.b: ternary; } actions = { s; } }\n"
               "    table t3 { key = { hdr.h.a: exact; hdr.h.b: ternary @id(1); hdr.h.c: exact; } actions = { s; } }\n",
        body="        t1.apply(); t2.apply(); t3.apply();")
    info = compile_source(src, "ids.p4").p4info
    got = {t.preamble.name: [(m.name, m.id) for m in t.match_fields] for t in info.tables}
    assert got == {"I.t1": [("hdr.h.a", 2), ("hdr.h.b", 3)], "I.t2": [("hdr.h.a", 3), ("hdr.h.b", 2)],
                   "I.t3": [("hdr.h.a", 2), ("hdr.h.b", 1), ("hdr.h.c", 3)]}
    assert [(p.name, p.id) for a in info.actions if a.preamble.name == "I.s" for p in a.params] == [("v", 2), ("w", 1)]
    assert [(m.name, m.id) for c in info.controller_packet_metadata for m in c.metadata] == [("port", 1), ("q", 3)]
    assert_p4info_as_p4c(src, info, tmp_path)
    # a value set's struct fields too
    vs = program(top="struct vs_t { bit<8> x; @id(1) bit<16> y; }\n").replace(
        "    state start { pkt.extract(hdr.h); transition accept; }",
        "    value_set<vs_t>(4) pvs;\n    state start { pkt.extract(hdr.h); transition select(hdr.h.a, hdr.h.b) "
        "{ pvs: accept; default: accept; } }")
    info = compile_source(vs, "vs.p4").p4info
    assert [(m.name, m.id) for v in info.value_sets for m in v.match] == [("x", 2), ("y", 1)]
    assert_p4info_as_p4c(vs, info, tmp_path)


def test_action_parameter_name_loses_one_leading_dot(tmp_path):
    """p4c_mutate seed 309 (cp_anno): an action parameter's @name(".zz.top") is "zz.top" in p4c's
    P4Info (one dot off, "..w" is ".w"); a key element's @name is kept as written."""
    from p4c_helpers import assert_p4info_as_p4c
    src = program(locals='    action s(@name(".zz.top") bit<8> v, @name("..w") bit<8> w) { hdr.h.a = v + w; }\n'
                         '    table t { key = { hdr.h.a: exact @name(".kk"); } actions = { s; } }\n', body="        t.apply();")
    info = compile_source(src, "dn.p4").p4info
    assert [p.name for a in info.actions if a.preamble.name == "I.s" for p in a.params] == ["zz.top", ".w"]
    assert [m.name for t in info.tables for m in t.match_fields] == [".kk"]
    assert_p4info_as_p4c(src, info, tmp_path)


def test_hidden_controller_header_fields_left_out(tmp_path):
    """mutz24's open item: p4c leaves a @hidden field out of controller_packet_metadata (the others
    keep their ids; a hidden bool field is no error) -- PacketIn/PacketOut then follow the P4Info
    as on BMv2 (tests/differential/test_packet_io.py)."""
    from p4c_helpers import assert_p4info_as_p4c
    src = program(top='@controller_header("packet_in") header pin_t { bit<9> port; @hidden bool pad; bit<6> q; bit<8> tag; }\n'
                      '@controller_header("packet_out") header pout_t { @hidden bit<7> pad; bit<9> port; }\n')
    info = compile_source(src, "hid.p4").p4info
    got = {c.preamble.name: [(m.name, m.id) for m in c.metadata] for c in info.controller_packet_metadata}
    assert got == {"packet_in": [("port", 1), ("q", 3), ("tag", 4)], "packet_out": [("port", 2)]}
    assert_p4info_as_p4c(src, info, tmp_path)


def test_value_set_member_fields_by_their_p4info_ids():
    """A value set's struct field @id (p4c's FieldIdAllocator: `struct { bit<8> x; @id(1) bit<16> y; }`
    gives x id 2, y id 1): checkmate-switch reads a member's field matches by those ids (it took
    them by position)."""
    from types import SimpleNamespace as NS

    from switch.runtime import Pipeline
    vs = program(top="struct vs_t { bit<8> x; @id(1) bit<16> y; }\n").replace(
        "    state start { pkt.extract(hdr.h); transition accept; }",
        "    value_set<vs_t>(4) pvs;\n    state start { pkt.extract(hdr.h); transition select(hdr.h.a, hdr.h.b) "
        "{ pvs: accept; default: accept; } }")
    prog = compile_source(vs, "vs.p4")
    p = Pipeline(prog.device_config)
    (vset,) = p.value_sets.values()
    vset.write([[NS(field_id=1, kind="exact", value=0x1234, mask=None, prefix_len=None, high=None),
                 NS(field_id=2, kind="exact", value=0x56, mask=None, prefix_len=None, high=None)]])
    assert vset.match((0x56 << 16) | 0x1234) and not vset.match((0x34 << 16) | 0x0056)


def test_field_at_names_in_the_p4info(tmp_path):
    """A controller header field's and a value set struct field's @name(".p") name them in p4c's
    P4Info ("p", one dot off; probe beside p4c_mutate seed 309)."""
    from p4c_helpers import assert_p4info_as_p4c
    src = program(top='struct vs_t { @name(".xx") bit<8> x; }\n'
                      '@controller_header("packet_in") header pin_t { @name(".pp") bit<9> port; bit<7> pad; }\n').replace(
        "    state start { pkt.extract(hdr.h); transition accept; }",
        "    value_set<vs_t>(4) pvs;\n    state start { pkt.extract(hdr.h); transition select(hdr.h.a) { pvs: accept; default: accept; } }")
    info = compile_source(src, "fn.p4").p4info
    assert [m.name for c in info.controller_packet_metadata for m in c.metadata] == ["pp", "pad"]
    assert [m.name for v in info.value_sets for m in v.match] == ["xx"]
    assert_p4info_as_p4c(src, info, tmp_path)
