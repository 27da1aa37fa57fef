"""More one-mistake programs and their valid neighbours (helper mutz24 on; the design notes are in
test_mutants.py): each mutant is rejected with ``file:line:col`` on its line and a message naming
the problem, its valid twin compiles, and with p4c on PATH p4c agrees on both and on every VALID
program."""
from __future__ import annotations

import shutil


from p4c_helpers import program
from switch.compiler import compile_source
from test_mutants import _p4c_accepts, mutant_table_tests

_MK = r"could not convert expression to Json"
_A2 = "    action a1(bit<8> v) { hdr.h.a = v; }\n    action a0() { hdr.h.a = 0; }\n"
_T1 = "    table t {{ key = {{ hdr.h.a: exact; }} actions = {{ a1; }} {0} }}\n"
_BH = "header b_t { bool f; bit<7> p; }\n"
_SL = "control S(inout bit<16> r, in bit<8> x) {{ apply {{ hash(r, HashAlgorithm.crc16, 16w0, {0}, 32w65536); }} }}\n"
_FL = "bit<16> f(in bit<8> x) {{ bit<16> r; hash(r, HashAlgorithm.crc16, 16w0, {0}, 32w65536); return r; }}\n"
_EN = "enum bit<4> En_t { A = 1, B = 5, C = 9 }\n"
_TBL = "    action s(bit<8> v) { hdr.h.c = v; }\n    table t { key = { hdr.h.a: exact; } actions = { s; NoAction; } }\n"

# name -> (invalid program, needle on the mutated line, message regex, valid twin)
CASES = {
    # a match_kind comparison whose store p4c keeps reaches its BMv2 back end (mutz23's open item:
    # the dead ones are VALID below)
    "match_kind_store_read_on_one_path": (
        program(body="        bool b = false;\n        if (hdr.h.c == 3) { b = exact == lpm; }\n        if (b) { hdr.h.a = 1; }"),
        "b = exact == lpm", _MK,
        program(body="        bool b = false;\n        if (hdr.h.c == 3) { b = true; }\n        if (b) { hdr.h.a = 1; }")),
    "match_kind_store_overwritten_on_one_path": (
        program(body="        bool b;\n        b = exact == lpm;\n        if (hdr.h.c == 2) { b = true; }\n        if (b) { hdr.h.a = 1; }"),
        "b = exact == lpm", _MK,
        program(body="        bool b;\n        b = hdr.h.b == 1;\n        if (hdr.h.c == 2) { b = true; }\n        if (b) { hdr.h.a = 1; }")),
    "match_kind_store_into_a_field_kept": (
        program(body="        m.x = (exact == lpm) ? 8w1 : 8w2;"), "m.x = (exact", _MK,
        program(body="        m.x = (hdr.h.b == 1) ? 8w1 : 8w2;")),
    "match_kind_store_read_by_a_table_key": (
        program(locals="    bool b;\n    table t { key = { b: exact; } actions = { NoAction; } }\n",
                body="        b = exact == lpm;\n        t.apply();"), "b = exact == lpm", _MK,
        program(locals="    bool b;\n    table t { key = { b: exact; } actions = { NoAction; } }\n",
                body="        b = hdr.h.a == 2;\n        t.apply();")),
    "match_kind_store_read_by_itself": (
        program(body="        bool b = exact == lpm;\n        b = !b;\n        if (b) { hdr.h.a = 1; }"), "bool b = exact", _MK,
        program(body="        bool b = hdr.h.a == 1;\n        b = !b;\n        if (b) { hdr.h.a = 1; }")),
    "match_kind_store_in_a_function_returned": (
        program(top="bit<8> f(in bit<8> x) { bool b = exact == lpm; return b ? 8w1 : 8w2; }\n",
                body="        hdr.h.a = f(hdr.h.a);"), "bool b = exact", _MK,
        program(top="bit<8> f(in bit<8> x) { bool b = x == 1; return b ? 8w1 : 8w2; }\n",
                body="        hdr.h.a = f(hdr.h.a);")),
    "match_kind_store_in_a_table_action_kept": (
        program(locals="    action a() { hdr.h.a = (exact == lpm) ? 8w1 : 8w2; }\n"
                       "    table t { actions = { a; } default_action = a(); }\n", body="        t.apply();"),
        "action a()", _MK,
        program(locals="    action a() { hdr.h.a = (hdr.h.b == 1) ? 8w1 : 8w2; }\n"
                       "    table t { actions = { a; } default_action = a(); }\n", body="        t.apply();")),
    # a table applied twice after an `if` on an enum-cast comparison: p4c's midend folds it before
    # RemoveReturns, but an `exit` there, or a return under a local's constant, ends nothing
    "table_twice_after_enum_cast_exit": (
        program(top=_EN, locals=_TBL, body="        if ((En_t)4w5 != En_t.C) { exit; }\n        t.apply(); t.apply();"),
        "table t", r"applied more than once",
        program(top=_EN, locals=_TBL, body="        if ((En_t)4w5 != En_t.C) { return; }\n        t.apply(); t.apply();")),
    "table_twice_after_enum_local_return": (
        program(top=_EN, locals=_TBL, body="        En_t e = (En_t)4w5;\n        if (e != En_t.C) { return; }\n        t.apply(); t.apply();"),
        "table t", r"applied more than once",
        program(top=_EN, locals=_TBL, body="        En_t e = (En_t)4w5;\n        if (e != En_t.C) { return; }\n        t.apply();")),
    "table_twice_in_enum_cast_branch_kept": (
        program(top=_EN, locals=_TBL, body="        if ((En_t)4w5 != En_t.C) { t.apply(); t.apply(); }"),
        "table t", r"applied more than once",
        program(top=_EN, locals=_TBL, body="        if ((En_t)4w5 == En_t.C) { t.apply(); t.apply(); }")),
    # ... while a `return` followed by an `if` that the same folding removes keeps its flag (a step
    # of its own after the table: p4c's "multiple successors")
    "table_successors_return_before_enum_cast_if": (
        program(top=_EN, locals=_TBL, body="        if (hdr.h.b == 1) { t.apply(); return; } else { t.apply(); }\n"
                                            "        if ((En_t)4w5 == En_t.C) { hdr.h.c = 3; }"),
        "table t", r"multiple successors",
        program(top=_EN, locals=_TBL, body="        if (hdr.h.b == 1) { t.apply(); return; } else { t.apply(); }\n"
                                            "        if (hdr.h.b == 3) { }")),
    # (an earlier return whose flag a later statement reads keeps the flag of one the midend makes
    # unconditional: a step after the table)
    "table_successors_enum_cast_return_after_a_return": (
        program(top=_EN, locals=_TBL, body="        if (hdr.h.b == 3) { return; }\n        if (hdr.h.b == 1) { t.apply(); "
                                            "if ((En_t)4w5 != En_t.C) { return; } hdr.h.c = 1; } else { t.apply(); }"),
        "table t", r"multiple successors",
        program(top=_EN, locals=_TBL, body="        if (hdr.h.b == 3) { }\n        if (hdr.h.b == 1) { t.apply(); "
                                            "if ((En_t)4w5 != En_t.C) { return; } hdr.h.c = 1; } else { t.apply(); }")),
    # an unlisted action called with too few arguments as a default action or in an entry: p4c looks
    # for it in the actions list first (p4c_mutate seed 137, `far`: named at the parameter)
    "default_action_unlisted_and_missing_argument": (
        program(locals=_A2 + "    table t {\n        key = { hdr.h.a: exact; }\n        actions = { a0; }\n"
                             "        default_action = a1();\n    }\n", body="        t.apply();"),
        "default_action = a1()", r"not in the actions list",
        program(locals=_A2 + "    table t {\n        key = { hdr.h.a: exact; }\n        actions = { a0; }\n"
                             "        default_action = a0();\n    }\n", body="        t.apply();")),
    "entry_action_unlisted_and_missing_argument": (
        program(locals=_A2 + "    table t {\n        key = { hdr.h.a: exact; }\n        actions = { a0; }\n"
                             "        const entries = {\n            1 : a1();\n        }\n    }\n", body="        t.apply();"),
        "1 : a1()", r"not in the actions list",
        program(locals=_A2 + "    table t {\n        key = { hdr.h.a: exact; }\n        actions = { a0; }\n"
                             "        const entries = {\n            1 : a0();\n        }\n    }\n", body="        t.apply();")),
    # p4c 1.2.4.8 takes widths up to 2048: a wider bit/int type anywhere (unused too; p4c names no
    # position) or sized literal ("size too large"; p4c_mutate seed 141, kind literal: `2049w0`)
    "literal_wider_than_2048": (program(body="        if (false) { hdr.h.a = (bit<8>)2049w0; }"), "2049w0",
                                r"size too large", program(body="        if (false) { hdr.h.a = (bit<8>)2048w0; }")),
    "type_wider_than_2048": (program(top="typedef bit<2049> T;\n"), "typedef", r"widths up to 2048",
                             program(top="typedef bit<2048> T;\n")),
    "int_type_wider_than_2048": (program(top="header g_t { int<3000> x; }\n"), "header g_t", r"widths up to 2048",
                                 program(top="header g_t { int<2048> x; }\n")),
    # an action call as the value of a table property p4c ignores (p4c_mutate seed 141, rename_use:
    # `default_action_undeclared = s(1);` compiles): typed as a default action's, fewer arguments
    # allowed, an unlisted action or a function call a p4c crash
    "unknown_property_action_call_bad_argument": (
        program(locals=_A2 + _T1.format("foo = a1(true);"), body="        t.apply();"), "foo = a1", r"bool|type",
        program(locals=_A2 + _T1.format("foo = a1(1);"), body="        t.apply();")),
    "unknown_property_action_call_run_time_argument": (
        program(locals=_A2 + _T1.format("foo = a1(hdr.h.a);"), body="        t.apply();"), "foo = a1",
        r"compile-time constant", program(locals=_A2 + _T1.format("foo = a1(2);"), body="        t.apply();")),
    "unknown_property_action_call_too_many": (
        program(locals=_A2 + _T1.format("foo = a1(1, 2);"), body="        t.apply();"), "foo = a1",
        r"Too many arguments", program(locals=_A2 + _T1.format("foo = a1();"), body="        t.apply();")),
    "unknown_property_unlisted_action_call": (
        program(locals=_A2 + _T1.format("foo = a0();"), body="        t.apply();"), "foo = a0",
        r"not in the table's actions", program(locals=_A2 + _T1.format("foo = a0;"), body="        t.apply();")),
    "unknown_property_function_call": (
        program(top="bit<8> f() { return 1; }\n", locals=_A2 + _T1.format("foo = f();"), body="        t.apply();"),
        "foo = f", r"function call", program(top="bit<8> f() { return 1; }\n", locals=_A2 + _T1.format("foo = a1(1);"),
                                            body="        t.apply();")),
    # a switch on a header field declared bool takes bool labels (p4c_mutate seed 141, `far`)
    "switch_on_bool_header_field_int_label": (
        program(top=_BH, body="        b_t bb = { true, 0 };\n        switch (bb.f) { 1: { hdr.h.a = 1; } default: { } }"),
        "switch (bb.f)", r"cannot be compared",
        program(top=_BH, body="        b_t bb = { true, 0 };\n        switch (bb.f) { true: { hdr.h.a = 1; } default: { } }")),
    # p4c_mutate seed 134 (mutz23's open item): a list of constants in a body p4c's front end inlines
    # at two places in one top-level block makes its def-use pass die ("write set already set")
    "constant_list_in_sub_control_applied_twice": (
        program(top=_SL.format("{ }"), locals="    S() s1;\n    S() s2;\n",
                body="        s1.apply(hdr.h.b, hdr.h.a);\n        s2.apply(hdr.h.b, hdr.h.a);"), "control S(", r"write set already set",
        program(top=_SL.format("{ x }"), locals="    S() s1;\n    S() s2;\n",
                body="        s1.apply(hdr.h.b, hdr.h.a);\n        s2.apply(hdr.h.b, hdr.h.a);")),
    "constant_list_in_function_called_twice": (
        program(top=_FL.format("{ 8w1 }"), body="        hdr.h.b = f(hdr.h.a);\n        hdr.h.b = hdr.h.b + f(hdr.h.c);"),
        "bit<16> f(", r"write set already set",
        program(top=_FL.format("{ 8w1 }"), body="        hdr.h.b = f(hdr.h.a);")),
    # annotation forms p4c's parser refuses (p4c_mutate_p4info's kinds cp_anno, pkg_info): @pkginfo's
    # body is key = value pairs; a known key in two @pkginfo makes p4c's serializer die; a structured
    # annotation's name is the only one of that name on its declaration
    "pkginfo_empty": (program(locals="    @pkginfo() action q() { hdr.h.a = 1; }\n", body="        q();"),
                      "@pkginfo()", r"key = value", program(locals="    @pkginfo(zz=\"1\") action q() { hdr.h.a = 1; }\n",
                                                             body="        q();")),
    "pkginfo_positional": (program().replace("V1Switch(", '@pkginfo("p") V1Switch('), "@pkginfo", r"key = value",
                           program().replace("V1Switch(", '@pkginfo(name="p") V1Switch(')),
    "pkginfo_known_key_in_two": (program().replace("V1Switch(", '@pkginfo(version="1") @pkginfo(version="2") V1Switch('),
                                 "@pkginfo", r"two @pkginfo",
                                 program().replace("V1Switch(", '@pkginfo(zz="1") @pkginfo(zz="2") V1Switch(')),
    "structured_annotation_name_twice": (
        program(locals="    @foo @foo[x=\"y\"] action q() { hdr.h.a = 1; }\n", body="        q();"), "@foo @foo[",
        r"duplicate name for structured annotation",
        program(locals="    @foo(1) @foo(2) action q() { hdr.h.a = 1; }\n", body="        q();")),
    # an @id that does not fit 32 bits (p4c_mutate seed 304, id_anno: checkmate-p4c crashed building
    # the P4Info for a parameter's): "@id should be an unsigned integer"; not on a parameter of an
    # action only called directly (no P4Info parameter)
    "param_id_over_32_bits": (
        program(locals="    action s(@id(4294967296) bit<8> v) { hdr.h.a = v; }\n" + _T1.format("").replace("a1", "s"),
                body="        t.apply();"), "action s(", r"unsigned integer",
        program(locals="    action s(@id(4294967295) bit<8> v) { hdr.h.a = v; }\n" + _T1.format("").replace("a1", "s"),
                body="        t.apply();")),
    "table_id_over_32_bits": (
        program(locals="    @id(0x1ffffffff) table t { key = { hdr.h.a: exact; } actions = { NoAction; } }\n",
                body="        t.apply();"), "@id(0x1ff", r"unsigned integer",
        program(locals="    @id(0x2000001) table t { key = { hdr.h.a: exact; } actions = { NoAction; } }\n",
                body="        t.apply();")),
}

_TBL2 = _TBL + "    table t2 { key = { hdr.h.b: exact; } actions = { s; NoAction; } }\n"

VALID = {
    # a store of a match_kind comparison that p4c's def-use pass drops before its back end: overwritten
    # on every path before a read, or into a local nothing reads after it (mutz23's open item)
    "match_kind_stores_overwritten": program(
        body="        bool b;\n        b = exact == lpm;\n        b = true;\n        if (b) { hdr.h.a = 1; }\n"
             "        m.x = (exact == lpm) ? 8w1 : 8w2;\n        m.x = 3;\n"
             "        hdr.h.b[7:0] = (exact == lpm) ? 8w1 : 8w2;\n        hdr.h.b = 3;\n"
             "        bool e;\n        if (hdr.h.c == 3) { e = exact == lpm; } else { e = false; }\n        e = true;\n"
             "        bool g = exact == lpm;\n        g = g && (exact != ternary);\n        g = true;\n"
             "        hdr.h.a = e && g ? 8w1 : 8w0;"),
    "match_kind_stores_unread_locals": program(
        locals="    bool cl;\n",
        body="        bool c = exact != ternary;\n        bool d = c;\n        cl = exact == lpm;\n"
             "        bool x = exact == lpm;\n        if (hdr.h.c == 0) { exit; }\n        x = true;\n        if (x) { hdr.h.a = 1; }"),
    "match_kind_stores_past_tables": program(
        locals=_TBL2,
        body="        bool q = exact == lpm;\n        t.apply();\n        q = true;\n"
             "        bool w = exact == lpm;\n        switch (t2.apply().action_run) { s: { w = true; } default: { w = false; } }\n"
             "        hdr.h.a = q && w ? 8w1 : 8w0;"),
    "match_kind_stores_in_actions_and_functions": program(
        top="bit<8> f(in bit<8> x) { bool b = exact == lpm; b = x == 1; return b ? 8w1 : 8w2; }\n",
        locals="    action a() { bool b; b = exact == lpm; b = true; if (b) { hdr.h.a = 1; } }\n"
               "    action k(match_kind mk) { bool b = mk == exact; b = true; if (b) { hdr.h.a = 2; } }\n",
        body="        a();\n        k(exact);\n        hdr.h.a = f(hdr.h.a);"),
    # p4c_mutate seed 137: an `if` on an enum-cast comparison is folded by p4c's midend with the flag
    # of a `return` in it -- the branch it drops and what follows the return are gone before its back
    # end looks for a table applied twice or with two successors
    "tables_after_enum_cast_returns": program(
        top=_EN + "control S(inout h_t hh) {\n    action s(bit<8> v) { hh.c = v; }\n"
                  "    table t { key = { hh.a: exact; } actions = { s; NoAction; } }\n"
                  "    apply { if ((En_t)4w5 != En_t.C) { return; } t.apply(); t.apply(); }\n}\n",
        locals=_TBL2 + "    table t3 { key = { hdr.h.a: exact; } actions = { s; NoAction; } }\n    S() s1;\n",
        body="        s1.apply(hdr.h);\n        sm.egress_spec = 1;\n"
             "        if ((En_t)4w5 == En_t.C) { t2.apply(); t2.apply(); }\n"
             "        if (hdr.h.b == 3) {\n            if (((En_t)4w5 != En_t.C) || (hdr.h.b != hdr.h.b)) { return; }\n"
             "            t3.apply(); t3.apply();\n        }\n"
             "        if (hdr.h.b == 7) { if ((En_t)4w5 != En_t.C) { return; } }"),
    "table_successors_past_enum_cast_return": program(
        top=_EN, locals=_TBL,
        body="        if (hdr.h.b == 1) { t.apply(); if ((En_t)4w5 != En_t.C) { return; } hdr.h.c = 1; } else { t.apply(); }\n"
             "        if (hdr.h.b == 7) { if ((En_t)4w5 != En_t.C) { return; } }"),
    # ... not once in each of two top-level blocks, not in an action called twice, not a list
    # holding a run-time value
    "constant_lists_inlined_once_per_block": program(
        top=_FL.format("{ }") + _SL.format("{ 8w1 }") +
            "control S2(inout bit<16> r, in bit<8> x) { action a() { hash(r, HashAlgorithm.crc16, 16w0, { }, 32w8); }\n"
            "    apply { a(); hash(r, HashAlgorithm.crc16, 16w0, { x, 8w1 }, 32w8); } }\n",
        locals="    S() s1;\n    S2() s2;\n    S2() s3;\n",
        body="        hdr.h.b = f(hdr.h.a);\n        s1.apply(hdr.h.b, hdr.h.a);\n        s2.apply(hdr.h.b, hdr.h.a);\n"
             "        s3.apply(hdr.h.b, hdr.h.a);").replace(
        "control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }",
        "control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {\n    S() s4;\n"
        "    apply { hdr.h.b = f(hdr.h.a); s4.apply(hdr.h.b, hdr.h.a); } }"),
    # a multi-character constant in #if: gcc's value, the bytes packed into an int (p4c_mutate seed 145,
    # rename_use: `'\\n_undeclared' == 10` could not be evaluated)
    "cpp_multi_character_constants": "#if 'ab' == 24930 && 'abcde' == 1650680933 && !('\\n_x' == 10)\n#else\n#error no\n#endif\n"
                                     + program(),
}


test_valid_program_compiles, test_mutant_rejected_on_its_line, test_p4c_agrees = mutant_table_tests(CASES, VALID)


def test_p4info_kinds_agree_with_p4c(tmp_path):
    """tools/p4c_mutate_p4info.py's kinds (ids, annotations, match fields, resources, pkg_info,
    digests) over a few seeds: checkmate-p4c compiles a mutant or refuses it with file:line:col;
    with p4c on PATH, both give the same verdict and, where both compile it, the same P4Info
    (these kinds found the P4Info fixes above)."""
    import random
    import re

    from p4c_helpers import assert_p4info_as_p4c
    from switch.compiler import P4CompileError
    from tools.p4c_mutate import MUTATORS
    base = program(top="struct dg_t { bit<8> a; bit<16> b; }\n",
                   locals="    counter(4, CounterType.packets) c;\n    direct_counter(CounterType.bytes) dc;\n"
                          "    register<bit<8>>(4) r;\n    action a(bit<8> v) { hdr.h.a = v; c.count(1); }\n"
                          "    table t { key = { hdr.h.a: exact; hdr.h.b: ternary; } actions = { a; NoAction; } counters = dc; }\n",
                   body="        t.apply();\n        r.write(0, hdr.h.c);\n        digest<dg_t>(1, { hdr.h.a, hdr.h.b });")
    compile_source(base, "base.p4")
    seen, disagree = set(), []
    for kind in ("id_anno", "cp_anno", "match_field", "resource", "pkg_info", "digest_data"):
        for seed in range(5):
            m = MUTATORS[kind](random.Random(seed), base)
            if m is None or m.text in seen:
                continue
            seen.add(m.text)
            try:
                prog = compile_source(m.text, "mut.p4")
            except P4CompileError as e:
                assert re.match(r"mut\.p4:\d+:\d+: ", str(e)), (kind, m.desc, str(e))
                prog = None
            if shutil.which("p4c"):
                if _p4c_accepts(m.text) != (prog is not None):
                    disagree.append((kind, m.desc, prog is not None))
                elif prog is not None:
                    assert_p4info_as_p4c(m.text, prog.p4info, tmp_path)
    assert len(seen) >= 15, len(seen)
    assert not disagree, disagree


def test_tables_p4c_midend_removes_are_not_writable_on_our_config():
    """A table p4c's P4Info lists but its midend removes from the BMv2 JSON (applied only in a branch
    its constant propagation folds, or after a return an enum-cast condition makes unconditional):
    checkmate-p4c marks it, and checkmate-switch answers writes to it as BMv2 does with p4c's JSON
    (INSERT UNKNOWN, MODIFY/DELETE NOT_FOUND; test_p4rt_vs_bmv2_writes::test_writes_to_a_table_p4c_removed)
    -- with its own config it took them.  A table still applied stays writable."""
    import json

    from grpc import StatusCode
    from p4.v1 import p4runtime_pb2 as P

    from switch.p4rt_server.digests import DigestEngine
    from switch.p4rt_server.errors import P4RTError
    from switch.p4rt_server.state import build_state
    from switch.p4rt_server.writes import EntityWriter
    src = program(top="enum bit<4> En_t { A = 1, B = 5, C = 9 }\n",
                  locals="    action s(bit<8> v) { hdr.h.c = v; }\n"
                         + "".join(f"    table {n} {{ key = {{ hdr.h.a: exact; }} actions = {{ s; NoAction; }} }}\n"
                                   for n in ("t_dead", "t_live", "t_after")),
                  body="        bit<8> k = 3;\n        if (k == 4) { t_dead.apply(); }\n"
                       "        if ((En_t)4w5 != En_t.C) { t_live.apply(); return; }\n        t_after.apply();")
    prog = compile_source(src, "r.p4")
    cfg = P.ForwardingPipelineConfig(p4info=prog.p4info, p4_device_config=json.dumps(prog.device_config).encode())
    st = build_state(cfg)
    s_id = next(a.preamble.id for a in prog.p4info.actions if a.preamble.name == "I.s")
    eng = DigestEngine(lambda r: None)
    try:
        w = EntityWriter(eng)
        for t in prog.p4info.tables:
            e = P.TableEntry(table_id=t.preamble.id)
            e.match.add(field_id=1).exact.value = b"\x02"
            e.action.action.action_id = s_id
            e.action.action.params.add(param_id=1, value=b"\x05")
            codes = []
            for kind in (P.Update.INSERT, P.Update.MODIFY, P.Update.DELETE):
                try:
                    w.apply(st, P.Update(type=kind, entity=P.Entity(table_entry=e)))
                    codes.append("OK")
                except P4RTError as err:
                    codes.append(err.code)
            want = ["OK"] * 3 if t.preamble.name == "I.t_live" else \
                [StatusCode.UNKNOWN, StatusCode.NOT_FOUND, StatusCode.NOT_FOUND]
            assert codes == want, (t.preamble.name, codes)
    finally:
        eng.close()
