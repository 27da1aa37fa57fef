"""What p4c 1.2.4.8 accepts although it looks wrong, and how checkmate-p4c compiles it (the
P4Info side against real p4c is in tests/differential/diffcases/frontend.py)."""
from p4c_helpers import program
from switch.compiler import compile_source
from switch.runtime import Pipeline


def test_header_stack_of_size_zero():
    prog = compile_source(program(top="header e_t { bit<8> v; }\nstruct s0 { e_t[0] st; }\n", locals="    s0 z;",
                                  body="        hdr.h.a = (bit<8>)z.st.size; sm.egress_spec = 1;"), "s0.p4")
    assert Pipeline(prog.device_config).process(1, bytes([5, 0, 0, 0])) == [(1, bytes(4))]


def test_table_sizes_zero_and_negative():
    prog = compile_source(program(locals="""    table t0 { key = { hdr.h.a: exact; } actions = { NoAction; } size = 0; }
    table tn { key = { hdr.h.b: exact; } actions = { NoAction; } size = -1; }""",
                                  body="        t0.apply(); tn.apply();"), "sz.p4")
    sizes = {t.preamble.name: t.size for t in prog.p4info.tables}
    assert sizes == {"I.t0": 1024, "I.tn": -1}          # as p4c writes them
    ir = {t["name"]: t["size"] for t in prog.device_config["tables"]}
    assert ir == {"I.t0": 1024, "I.tn": 0xFFFFFFFF}     # BMv2's max_size


def test_counter_of_size_zero_and_unused_direct_counter():
    prog = compile_source(program(locals="""    counter(0, CounterType.packets) c;
    direct_counter(CounterType.packets) dc;""", body="        c.count(0); sm.egress_spec = 1;"), "c0.p4")
    assert [(c.preamble.name, c.size) for c in prog.p4info.counters] == [("I.c", 0)]
    assert not prog.p4info.direct_counters
    assert Pipeline(prog.device_config).process(1, bytes(4)) == [(1, bytes(4))]


def test_target_errors_in_an_unused_action_do_not_count():
    compile_source(program(locals="    action never() { if (hdr.h.a == 1) { exit; } recirculate_preserving_field_list(0); }",
                           body="        sm.egress_spec = 1;"), "unused.p4")


def test_unknown_table_property_is_a_warning_and_support_timeout_false_is_false():
    prog = compile_source(program(locals="""    table t { key = { hdr.h.a: exact; } actions = { NoAction; } foo = 4; support_timeout = false; }""",
                                  body="        t.apply();"), "tp.p4")
    assert [w.message for w in prog.warnings] == ["Unknown table property: foo"]
    assert prog.p4info.tables[0].idle_timeout_behavior == 0   # NO_TIMEOUT, as p4c


def test_serializable_enum_in_arithmetic_is_its_underlying_type():
    prog = compile_source(program(top="enum bit<8> Ee { A = 7 }\n",
                                  body="        hdr.h.a = Ee.A + 1; sm.egress_spec = 1;"), "se.p4")
    assert Pipeline(prog.device_config).process(1, bytes(4)) == [(1, bytes([8, 0, 0, 0]))]


def test_checksum_data_cast_to_the_fields_own_type():
    """p4c drops a cast of a field to its own type (also through a typedef) before bmv2's
    "Computations are not supported" check; a constant expression is folded too."""
    src = program(top="typedef bit<16> w16_t;").replace(
        "control CC(inout headers hdr, inout meta_t m) { apply { } }",
        "control CC(inout headers hdr, inout meta_t m) { apply { update_checksum(true, "
        "{ (bit<8>)hdr.h.a, (w16_t)m.y, (bit<16>)16w5, 8w1 + 8w2 }, hdr.h.b, HashAlgorithm.csum16); } }")
    assert "update_checksum(true, { (bit<8>)hdr.h.a" in src
    compile_source(src, "ckcast.p4")   # p4c 1.2.4.8 compiles it (checked by hand); a widening
    # cast, a slice or `++` there is refused -- tests/differential/test_invalid.py checksum_data_*


def test_one_table_applied_in_both_branches_with_one_successor():
    """p4c (BMv2) accepts a table applied in both branches of an if when both applies are
    followed by the same statement (here: what follows the if); different next statements are
    refused (tests/differential/test_invalid.py table_two_successors)."""
    prog = compile_source(program(locals="    table t { key = { hdr.h.a: exact; } actions = { NoAction; } }",
                                  body="        if (hdr.h.a == 1) { hdr.h.c = 1; t.apply(); } else { t.apply(); }\n"
                                       "        sm.egress_spec = 1;"), "succ.p4")
    assert Pipeline(prog.device_config).process(1, bytes([1, 0, 0, 0])) == [(1, bytes([1, 0, 0, 1]))]


def test_one_table_applied_in_both_branches_that_both_return():
    """A `return` with nothing after it is the end of the control: both applies are followed
    by it, one successor (p4c accepts; an `exit` there would be a step of its own)."""
    compile_source(program(locals="    table t { key = { hdr.h.a: exact; } actions = { NoAction; } }",
                           body="        sm.egress_spec = 1;\n"
                                "        if (hdr.h.a == 1) { t.apply(); return; } else { t.apply(); return; }"), "ret.p4")


def test_random_into_a_bool():
    """p4c accepts ``random(b, lo, hi)`` with a bool ``b``; simple_switch cannot load p4c's JSON for
    it (an assertion on the d2b expression as destination): checkmate-p4c compiles it and
    checkmate-switch refuses the build the same way (helper errs16; it ran the build before)."""
    import pytest
    from switch.runtime import InvalidEntry
    for body, locals_ in (("        bool b; random(b, lo, hi);\n        if (b) { hdr.h.a = 7; } else { hdr.h.a = 9; }\n",
                           "    bool lo = true;\n    bool hi = true;"),
                          ("        bool b; random(b, false, false);\n        hdr.h.a = b ? 8w7 : 8w9;\n", "")):
        prog = compile_source(program(body=body + "        sm.egress_spec = 1;", locals=locals_), "rb.p4")
        with pytest.raises(InvalidEntry, match="random result of type bool: .*Invalid expression type"):
            Pipeline(prog.device_config)


def test_plain_enum_action_parameter():
    """A plain enum as a control-plane action parameter (p4c accepts it): 32 bits in the
    pipeline (the member's position, as p4c's JSON has it), and in the P4Info a type_name
    with no bitwidth plus a type_info enum -- compared with real p4c's P4Info by the
    differential case open6_plain_enum_action_parameter."""
    prog = compile_source(program(top="enum En { A, B, C }\n", locals="""    action a1(En v) { hdr.h.a = v == En.C ? 8w3 : 8w4; }
    table t { key = { hdr.h.a: exact; } actions = { a1; } default_action = a1(En.C); }""",
                                  body="        t.apply(); sm.egress_spec = 1;"), "en.p4")
    (p,) = [a for a in prog.p4info.actions if a.preamble.name == "I.a1"][0].params
    assert (p.name, p.bitwidth, p.type_name.name) == ("v", 0, "En")
    assert [m.name for m in prog.p4info.type_info.enums["En"].members] == ["A", "B", "C"]
    assert Pipeline(prog.device_config).process(1, bytes(4)) == [(1, bytes([3, 0, 0, 0]))]
