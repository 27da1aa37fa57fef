"""Found by helper mutz34 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch must match."""
import copy

from .base import Entry, case, program
from .fuzz22 import CASES as _FUZZ22
from .fuzz28 import CASES as _FUZZ28

CAT = "front end (p4c-compatible)"

# mutz33's open item: two actions sharing a control-plane name (`@name("nop")` on one, or a plain
# `nop`), with other control-plane parameters, each listed by an applied table of its own -- p4c
# lists ONE P4Info action with the parameters of the first DECLARED of them (not of the first
# table, nor of one only called directly), and its BMv2 JSON keeps both bodies; checkmate-p4c
# refused the program ("one P4Info action cannot describe both").  simple_switch_grpc hands BMv2
# the P4Info's parameters: a table whose body takes another number of them takes no entry nor
# default from the control plane (UNKNOWN, test_p4rt_action_twins.py), while the program's own
# default action and const entries run that body with their own arguments, and one with the
# same number runs with the data as given (0x1ff for a bit<8> parameter: not masked).
_FR = [(1, bytes.fromhex(f"0000000000020000000000011234{a:02x}{b:02x}0003000000040a0b"))
       for a, b in ((1, 2), (5, 2), (5, 3), (5, 9))]
_A = ("    @name(\"nop\") action set_port(bit<9> p) { sm.egress_spec = p; }\n"
      "    action nop() { hdr.h.c = hdr.h.c + 0x77; }\n"
      "    table t1 { key = { hdr.h.a: exact; } actions = { set_port; } default_action = set_port(3); }\n"
      "    table t2 { key = { hdr.h.b: exact; } actions = { nop; } default_action = nop(); }\n"
      "    table t3 { key = { hdr.h.b: exact; } actions = { nop; NoAction; } const entries = { 2: nop(); }\n"
      "               default_action = NoAction(); }\n")
_B = ("    @name(\"nop\") action set_port(bit<9> p, bit<8> q) { sm.egress_spec = p; hdr.h.a = q; }\n"
      "    action nop(bit<16> v) { hdr.h.c = hdr.h.c + v; }\n"
      "    table t1 { key = { hdr.h.b: exact; } actions = { nop; NoAction; }\n"
      "               const entries = { 2: nop(0x100); 3: nop(0x200); } default_action = nop(5); }\n"
      "    table t2 { key = { hdr.h.a: exact; } actions = { set_port; } default_action = set_port(4, 0x44); }\n")
_C = ("    @name(\"nop\") action set_port(bit<9> p) { sm.egress_spec = p; }\n"
      "    action nop(bit<8> v) { hdr.h.c = (bit<16>)v; hdr.h.d = (bit<32>)(v + 1); }\n"
      "    table t1 { key = { hdr.h.a: exact; } actions = { set_port; } default_action = set_port(3); }\n"
      "    table t2 { key = { hdr.h.b: exact; } actions = { nop; } default_action = nop(0x33); }\n")
# the same across controls: `@name(".nop")` in ingress (a parameter) and in egress (none)
_DI = ("    @name(\".nop\") action set_port(bit<9> p) { sm.egress_spec = p; }\n"
       "    table t1 { key = { hdr.h.a: exact; } actions = { set_port; } default_action = set_port(3); }\n")
_DE = ("    @name(\".nop\") action mark() { hdr.h.c = hdr.h.c + 0x77; }\n"
       "    table te { key = { hdr.h.b: exact; } actions = { mark; } default_action = mark(); }\n")
CASES = [
    case("mutz34_used_actions_sharing_a_name_twin_runs_its_own_default_and_const_entries", CAT, program(
        "        t1.apply();\n        t2.apply();\n        t3.apply();\n", ingress_decls=_A), frames=_FR,
        entries=[Entry("I.t1", {"hdr.h.a": 5}, "I.nop", {"p": 6})], json_path=True),
    case("mutz34_used_actions_sharing_a_name_first_declared_listed_by_the_later_table", CAT, program(
        "        t1.apply();\n        t2.apply();\n", ingress_decls=_B), frames=_FR,
        entries=[Entry("I.t2", {"hdr.h.a": 5}, "I.nop", {"p": 6, "q": 0x66})], json_path=True),
    case("mutz34_used_actions_sharing_a_name_same_count_data_not_masked", CAT, program(
        "        t1.apply();\n        t2.apply();\n", ingress_decls=_C), frames=_FR,
        entries=[Entry("I.t1", {"hdr.h.a": 5}, "I.nop", {"p": 6}),
                 Entry("I.t2", {"hdr.h.b": 2}, "I.nop", {"p": 0x1ff}),
                 Entry("I.t2", {"hdr.h.b": 3}, "I.nop", {"p": 0xfe})], json_path=True),
    case("mutz34_used_actions_sharing_a_global_name_in_ingress_and_egress", CAT, program(
        "        t1.apply();\n", ingress_decls=_DI, egress="        te.apply();\n", egress_decls=_DE,
        forward=False), frames=_FR, entries=[Entry("I.t1", {"hdr.h.a": 5}, "nop", {"p": 6})], json_path=True),
]


def _sub_wrap(cases, name, stmt, new_name, body=None, keep=False):
    """Case ``name`` of ``cases`` with statement ``stmt`` of its ingress moved into a sub-control
    S applied in its place with the ingress' arguments (``body``: S's statements; ``stmt``;
    ``keep``: ``stmt`` stays after the apply)."""
    c = copy.deepcopy(next(x for x in cases if x.name == name))
    ctl = "control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {"
    assert ctl in c.source and stmt in c.source, name
    sub = ("control S(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { "
           f"{body or stmt} }} }}\n")
    c.source = c.source.replace(stmt, "s_i.apply(hdr, meta, sm);" + (" " + stmt if keep else "")).replace(
        ctl, sub + ctl + " S() s_i;")
    c.name, c.category = new_name, CAT
    return c


# fuzz_mutants seed 1528 (sub_wrap on fuzz22_dead_store_of_a_stack_read_past_the_end): p4c's def-use runs
# after its inliner, so `hdr.s[1] = hdr.s[i]; s.apply(hdr, ..); hdr.s[1] = {9};` with a body that does
# not read hdr.s drops the first store, and BMv2 forwards for i = 3 (past the end); checkmate-p4c kept
# it (the apply ended its search) and dropped the packet (dead_reads walks into the body now).
CASES += [
    _sub_wrap(_FUZZ22, "fuzz22_dead_store_of_a_stack_read_past_the_end", "hdr.h.c = 5;",
              "mutz34_dead_store_of_a_stack_read_past_the_end_across_a_sub_control" + sfx, body)
    for sfx, body in (("", None), ("_folding_a_modulo", "hdr.h.c = (5) % 5;"))
]
# fuzz_mutants seed 1756 (sub_wrap on fuzz28_whole_header_copy_in_a_single_case_switch_read_by_past_a_
# field_read): the whole-header copy `hdr.s[1] = hdr.o` a single-case switch leaves goes into an
# inlined sub-control's body for p4c 1.2.4.8's LocalCopyPropagation -- its `hdr.s[0] = hdr.s[1]`
# copies hdr.o (p4c's JSON: assign_header s[0], o) whatever the switch did; checkmate-p4c ended the
# copy at the apply (switch_copies hands it into the body now).
# Past the apply too, where the body ends it not (probed: p4c's JSON has `s[0] = o` after a body
# writing hdr.h.c only), and not past one writing a field of hdr.o.
_W28 = "fuzz28_whole_header_copy_in_a_single_case_switch_read_by_past_a_field_read"
CASES += [
    _sub_wrap(_FUZZ28, _W28, "hdr.s[0] = hdr.s[1];", "mutz34_whole_header_copy_of_a_single_case_switch_into_a_sub_control"),
    _sub_wrap(_FUZZ28, _W28, "hdr.s[0] = hdr.s[1];",
              "mutz34_whole_header_copy_of_a_single_case_switch_past_a_sub_control", "hdr.h.c = 1;", keep=True),
    _sub_wrap(_FUZZ28, _W28, "hdr.s[0] = hdr.s[1];",
              "mutz34_whole_header_copy_of_a_single_case_switch_ended_by_a_sub_control", "hdr.o.x = 3;", keep=True),
]

# p4c_mutate seed 732 (select_key on parse_value_set_struct): a case after a `default` (`default: ph2;
# default: t2;`) is dropped by p4c's SimplifySelectCases, after its front end removed the states
# unreachable in the source -- so t2 stays until the back end and its value set `tern` is in p4c's
# P4Info (its BMv2 JSON has no such parse_vset); checkmate-p4c left it out of the P4Info.
_VS_PARSER = """
    value_set<vs_tern_t>(2) tern;
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); meta.m8 = 1; transition select(hdr.h.b) { default: ph2; default: t2; } }
    state t2 { meta.m8 = 2; transition select(hdr.h.a, hdr.h.c) { tern: ph2; default: accept; } }
    state ph2 { meta.m8 = meta.m8 + 4; pkt.extract(hdr.h2); transition accept; }
"""
CASES.append(case("mutz34_value_set_of_a_state_only_a_dropped_select_case_reaches", CAT, program(
    "        hdr.h.d = (bit<32>)meta.m8;\n", parser=_VS_PARSER,
    top="struct vs_tern_t { @match(ternary) bit<8> a; bit<16> c; }\n")))
