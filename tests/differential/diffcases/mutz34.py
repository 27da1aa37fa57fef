"""Found by helper mutz34 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch must match."""
from .base import Entry, case, program

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
