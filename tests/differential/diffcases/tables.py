"""Tables: every match kind, priorities, defaults, const entries (and their @priority),
hit/miss, switch on action_run, keyless tables, table applied twice in a control, action
parameters of many widths, direct counters are in externs.py."""
from controller.entities import Entry

from .base import H, VALUES, case, program

CAT = "tables"

ACTIONS = """
    action set_b(bit<8> v) { hdr.h.b = v; }
    action set_port(bit<9> p) { sm.egress_spec = p; }
    action set_cd(bit<16> c, bit<32> d) { hdr.h.c = c; hdr.h.d = d; }
    action drop() { mark_to_drop(sm); }
    action nop() { }
"""


def T(name, key, actions="set_b; set_port; set_cd; drop; nop;", default="nop()", extra=""):
    return f"""
    table {name} {{
        key = {{ {key} }}
        actions = {{ {actions} }}
        default_action = {default};
        {extra}
    }}"""


def E(table, match, action, params=None, prio=0):
    return Entry(f"I.{table}", match, f"I.{action}", params or {}, prio)


FR = VALUES + [(2, H(0x10, 0x20, 0x0a0b, 0x0a000001)), (3, H(0x11, 0x21, 0x0a0c, 0x0a000102))]

CASES = [
    case("tbl_exact", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + T("t", "hdr.h.a: exact;")),
         frames=FR, entries=[E("t", {"hdr.h.a": 1}, "set_b", {"v": 0x55}), E("t", {"hdr.h.a": 0xff}, "set_port", {"p": 3}),
                             E("t", {"hdr.h.a": 0x10}, "drop")]),
    case("tbl_exact_two_keys", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + T("t", "hdr.h.a: exact; hdr.h.c: exact;")),
         frames=FR, entries=[E("t", {"hdr.h.a": 1, "hdr.h.c": 3}, "set_b", {"v": 7}), E("t", {"hdr.h.a": 1, "hdr.h.c": 4}, "set_b", {"v": 8})]),
    case("tbl_lpm", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + T("t", "hdr.h.d: lpm;")),
         frames=FR, entries=[E("t", {"hdr.h.d": (0x0a000000, 8)}, "set_b", {"v": 8}), E("t", {"hdr.h.d": (0x0a000100, 24)}, "set_b", {"v": 24}),
                             E("t", {"hdr.h.d": (0xdeadbeef, 32)}, "set_port", {"p": 2})]),
    case("tbl_lpm_default_route", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + T("t", "hdr.h.d: lpm;")),
         frames=FR, entries=[E("t", {"hdr.h.d": (0x80000000, 1)}, "set_b", {"v": 1})],
         defaults=[Entry("I.t", {}, "I.set_b", {"v": 0x99}, is_default=True)]),
    case("tbl_ternary_prio", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + T("t", "hdr.h.a: ternary; hdr.h.b: ternary;")),
         frames=FR, entries=[E("t", {"hdr.h.a": (0x10, 0xf0)}, "set_b", {"v": 1}, 10),
                             E("t", {"hdr.h.a": (0x11, 0xff)}, "set_b", {"v": 2}, 20),
                             E("t", {"hdr.h.b": (0x80, 0x80)}, "set_b", {"v": 3}, 5)]),
    case("tbl_range", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + T("t", "hdr.h.c: range;")),
         frames=FR, entries=[E("t", {"hdr.h.c": (0, 0x0a0b)}, "set_b", {"v": 1}, 1),
                             E("t", {"hdr.h.c": (0x0a0b, 0x8000)}, "set_b", {"v": 2}, 2)]),
    case("tbl_optional", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + T("t", "hdr.h.a: optional; hdr.h.b: optional;")),
         frames=FR, entries=[E("t", {"hdr.h.a": 0x10}, "set_b", {"v": 1}, 1), E("t", {"hdr.h.b": 0x80}, "set_b", {"v": 2}, 2),
                             E("t", {"hdr.h.a": 1, "hdr.h.b": 2}, "set_b", {"v": 3}, 3)]),
    case("tbl_mixed_kinds", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + T("t", "hdr.h.a: exact; hdr.h.d: lpm; hdr.h.c: ternary;")),
         frames=FR, entries=[E("t", {"hdr.h.a": 0x10, "hdr.h.d": (0x0a000000, 8)}, "set_b", {"v": 1}, 1),
                             E("t", {"hdr.h.a": 0x10, "hdr.h.c": (0x0a0b, 0xffff)}, "set_b", {"v": 2}, 2)]),
    case("tbl_hit_miss", CAT, program("        if (t.apply().hit) { hdr.h.a = 0xaa; } else { hdr.h.a = 0xbb; }\n"
                                      "        if (t2.apply().miss) { hdr.h.c = 1; }\n",
                                      ingress_decls=ACTIONS + T("t", "hdr.h.b: exact;") + T("t2", "hdr.h.b: exact;")),
         frames=FR, entries=[E("t", {"hdr.h.b": 2}, "nop"), E("t", {"hdr.h.b": 0x80}, "set_b", {"v": 0x80})]),
    case("tbl_action_run", CAT, program("        switch (t.apply().action_run) { set_b: { hdr.h.a = 1; } nop: { hdr.h.a = 2; } default: { hdr.h.a = 3; } }\n",
                                        ingress_decls=ACTIONS + T("t", "hdr.h.b: exact;")),
         frames=FR, entries=[E("t", {"hdr.h.b": 2}, "set_b", {"v": 9}), E("t", {"hdr.h.b": 0x80}, "set_port", {"p": 4})]),
    case("tbl_keyless", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + """
    table t { actions = { set_b; nop; } default_action = set_b(0x42); }"""), frames=FR),
    case("tbl_keyless_default_written", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + """
    table t { actions = { set_b; nop; } default_action = nop(); }"""), frames=FR,
         defaults=[Entry("I.t", {}, "I.set_b", {"v": 0x43}, is_default=True)]),
    case("tbl_const_default_args", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + T(
        "t", "hdr.h.a: exact;", default="set_cd(0x1111, 0x22222222)", extra="")), frames=FR,
         entries=[E("t", {"hdr.h.a": 1}, "nop")]),
    case("tbl_const_entries_exact", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + """
    table t { key = { hdr.h.a: exact; } actions = { set_b; nop; }
        const entries = { 1: set_b(0x11); 0xff: set_b(0x22); 0x10: nop(); } }"""), frames=FR),
    case("tbl_const_entries_ternary_order", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + """
    table t { key = { hdr.h.a: ternary; } actions = { set_b; nop; }
        const entries = { 0x10 &&& 0xf0: set_b(1); 0x11 &&& 0xff: set_b(2); _: set_b(3); } }"""), frames=FR),
    case("tbl_const_entries_priority", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + """
    table t { key = { hdr.h.a: ternary; } actions = { set_b; nop; }
        const entries = { 0x10 &&& 0xf0: set_b(1) @priority(30); 0x11 &&& 0xff: set_b(2) @priority(10); _: set_b(3) @priority(20); } }"""), frames=FR),
    case("tbl_const_entries_range_tuple", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + """
    table t { key = { hdr.h.a: range; hdr.h.b: exact; } actions = { set_b; nop; }
        const entries = { (0 .. 0x10, 2): set_b(1); (0x11 .. 0xff, 0x80): set_b(2); (0x10 .. 0x11, 0x21): set_b(3); } }"""), frames=FR),
    case("tbl_const_entries_lpm", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + """
    table t { key = { hdr.h.d: lpm; } actions = { set_b; nop; }
        const entries = { 0x0a000000 &&& 0xff000000: set_b(8); 0x0a000100 &&& 0xffffff00: set_b(24); } }"""), frames=FR),
    # a prefix whose value has bits past the mask: p4c's JSON keeps them, BMv2 ignores them
    case("tbl_const_entries_lpm_bits_past_prefix", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + """
    table t { key = { hdr.h.a: lpm; } actions = { set_b; nop; }
        const entries = { 0x11 &&& 0xf0: set_b(4); 0x2f &&& 0xff: set_b(8); _: set_b(9); } }"""),
         frames=FR + [(1, H(0x2f)), (1, H(0x1f))],
         json_path=True),
    # table/action @names with non-ASCII and non-identifier characters: P4Info names (and the ids hashed from
    # them) are the UTF-8 text; checkmate-switch loads and runs them
    case("tbl_name_non_ascii", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + """
    @name("s\u00e9t|c") action set_c2(bit<16> v) { hdr.h.c = v; }
    @name("t\u00e9-\u25d5\u203f\u25d5-\U0001F600") table t { key = { hdr.h.a: exact @name("cl\u00e9"); } actions = { set_b; set_c2; nop; } }"""),
         frames=FR, entries=[E("t\u00e9-\u25d5\u203f\u25d5-\U0001F600", {"cl\u00e9": 1}, "set_b", {"v": 7}),
                             E("t\u00e9-\u25d5\u203f\u25d5-\U0001F600", {"cl\u00e9": 0x10}, "s\u00e9t|c", {"v": 0x1234})]),
    # @p4runtime_translation's newer form names a type (bit<W> or string) instead of a width
    case("tbl_key_translated_type_forms", CAT, program("        t.apply();\n", headers="""
typedef bit<8> PortUint_t;
@p4runtime_translation("example.org/P1", 32) type PortUint_t P1_t;
@p4runtime_translation("example.org/P2", bit<24>) type PortUint_t P2_t;
@p4runtime_translation("example.org/P3", string) type PortUint_t P3_t;
header ports_t { P1_t p1; P2_t p2; P3_t p3; }
""", fields="    ports_t ports;\n",
        ingress_decls=ACTIONS + """
    table t { key = { hdr.ports.p1: exact; hdr.ports.p2: exact; hdr.ports.p3: exact; } actions = { set_b; nop; } }"""),
         p4info_only="simple_switch_grpc's P4Runtime server does not translate @p4runtime_translation types"),
    # the translated width written as any integer literal (hex, with a width prefix, inside bit<>)
    case("tbl_key_translated_literal_forms", CAT, program("        t.apply();\n", headers="""
@p4runtime_translation("example.org/L1", 0x20) type bit<8> L1_t;
@p4runtime_translation("example.org/L2", bit<0x18>) type bit<8> L2_t;
@p4runtime_translation("example.org/L3", 8w16) type bit<8> L3_t;
header lports_t { L1_t p1; L2_t p2; L3_t p3; }
""", fields="    lports_t lports;\n",
        ingress_decls=ACTIONS + """
    table t { key = { hdr.lports.p1: exact; hdr.lports.p2: exact; hdr.lports.p3: exact; } actions = { set_b; nop; } }"""),
         p4info_only="simple_switch_grpc's P4Runtime server does not translate @p4runtime_translation types"),
    # a key that is a cast to a `type` (also one without a translation, and a serializable enum):
    # p4c names the type and gives the translated width
    case("tbl_key_cast_to_type", CAT, program("        t.apply();\n", headers="""
@p4runtime_translation("example.org/P1", 32) type bit<8> P1_t;
type bit<16> P4_t;
enum bit<8> Kind_t { A = 1, B = 2 }
""", ingress_decls=ACTIONS + """
    table t { key = { (P1_t)hdr.h.a: exact @name("k1"); (P4_t)hdr.h.c: exact @name("k2");
                      (Kind_t)hdr.h.b: exact @name("k3"); } actions = { set_b; nop; } }"""),
         p4info_only="simple_switch_grpc's P4Runtime server does not translate @p4runtime_translation types"),
    # a table applied inside another table's key: applied (and listed in the P4Info) whenever the outer one is
    case("tbl_apply_in_key", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + """
    table sub { key = { hdr.h.a: exact; } actions = { set_b; nop; } default_action = nop(); }
    table t { key = { sub.apply().hit: exact @name("sub_hit"); } actions = { set_cd; nop; } default_action = nop(); }"""),
         frames=FR, entries=[E("sub", {"hdr.h.a": 1}, "set_b", {"v": 0x77}),
                             E("t", {"sub_hit": 1}, "set_cd", {"c": 0x1111, "d": 1}),
                             E("t", {"sub_hit": 0}, "set_cd", {"c": 0x2222, "d": 2})]),
    case("tbl_apply_twice_different", CAT, program("        t1.apply(); hdr.h.a = hdr.h.b; t2.apply();\n",
                                                   ingress_decls=ACTIONS + T("t1", "hdr.h.a: exact;") + T("t2", "hdr.h.a: exact;")),
         frames=FR, entries=[E("t1", {"hdr.h.a": 1}, "set_b", {"v": 5}), E("t2", {"hdr.h.a": 5}, "set_cd", {"c": 0x5555, "d": 5})]),
    case("tbl_key_slice_expr", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + T("t", "hdr.h.d[31:24]: exact @name(\"top\"); hdr.h.c[3:0]: exact;")),
         frames=FR, entries=[E("t", {"top": 0xde, "hdr.h.c[3:0]": 0xf}, "set_b", {"v": 1}),
                             E("t", {"top": 0x0a, "hdr.h.c[3:0]": 0xb}, "set_b", {"v": 2})]),
    case("tbl_key_valid", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + T("t", "hdr.h2.isValid(): exact; hdr.h.a: exact;")),
         frames=FR + [(1, H(0xee) + H(1)[14:])], entries=[E("t", {"hdr.h2.$valid$": 1, "hdr.h.a": 0xee}, "set_b", {"v": 1}),
                                                          E("t", {"hdr.h2.$valid$": 0, "hdr.h.a": 1}, "set_b", {"v": 2})]),
    case("tbl_metadata_key", CAT, program("        meta.m16 = hdr.h.c + 1; t.apply();\n", ingress_decls=ACTIONS + T("t", "meta.m16: exact; sm.ingress_port: exact;")),
         frames=FR, entries=[E("t", {"meta.m16": 4, "sm.ingress_port": 1}, "set_b", {"v": 1}),
                             E("t", {"meta.m16": 0, "sm.ingress_port": 2}, "set_b", {"v": 2})]),
    case("tbl_drop_action", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + T("t", "hdr.h.a: exact;", default="drop()")),
         frames=FR, entries=[E("t", {"hdr.h.a": 1}, "set_port", {"p": 2})]),
    case("tbl_action_param_widths", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + """
    action wide(bit<48> m, bit<1> f, bit<3> g, bit<12> v) { hdr.eth.dst = m; hdr.h.a = (bit<8>)(f ++ g); hdr.h.c = (bit<16>)v; }
    table t { key = { hdr.h.a: exact; } actions = { wide; } }"""), frames=FR,
         entries=[E("t", {"hdr.h.a": 1}, "wide", {"m": 0x112233445566, "f": 1, "g": 5, "v": 0xabc})]),
    case("tbl_in_egress", CAT, program("", egress="        t.apply();\n", egress_decls="""
    action set_b(bit<8> v) { hdr.h.b = v; }
    table t { key = { sm.egress_port: exact; hdr.h.a: exact; } actions = { set_b; NoAction; } default_action = NoAction(); }"""),
         frames=FR, entries=[Entry("E.t", {"sm.egress_port": 1, "hdr.h.a": 1}, "E.set_b", {"v": 0xe9})]),
    case("tbl_noaction_default", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + """
    table t { key = { hdr.h.a: exact; } actions = { set_b; NoAction; } }"""), frames=FR,
         entries=[E("t", {"hdr.h.a": 1}, "set_b", {"v": 3})]),
    # found with p4c's STF tests: p4c's JSON has one action per table for an action with a
    # bound directional argument (same P4Info id), and writes `field & MASK` keys with a
    # mask that need not be contiguous; both run on the JSON loader too (json_path)
    case("tbl_bound_out_arg_per_table", CAT, program("        t1.apply(); t2.apply();\n", ingress_decls="""
    action setbyte(out bit<8> r, bit<8> v) { r = v; }
    table t1 { key = { hdr.h.a: exact; } actions = { setbyte(hdr.h.b); NoAction; } default_action = NoAction(); }
    table t2 { key = { hdr.h.a: exact; } actions = { setbyte(hdr.eth.dst[7:0]); NoAction; } default_action = NoAction(); }"""),
         frames=FR, entries=[E("t1", {"hdr.h.a": 1}, "setbyte", {"v": 0x11}), E("t2", {"hdr.h.a": 1}, "setbyte", {"v": 0x22}),
                             E("t2", {"hdr.h.a": 0x10}, "setbyte", {"v": 0x33})], json_path=True),
    case("tbl_key_noncontiguous_mask", CAT, program("        t.apply();\n", ingress_decls=ACTIONS + T(
        "t", "hdr.h.d & 0x0f0f00ff: exact @name(\"dmask\"); hdr.h.c[11:4]: exact @name(\"cmid\");")),
         frames=FR, entries=[E("t", {"dmask": 0x000f00ff, "cmid": 0x10}, "set_b", {"v": 1}),
                             E("t", {"dmask": 0x0a000001, "cmid": 0xa0}, "set_b", {"v": 2}),
                             E("t", {"dmask": 0x0e0d00ef, "cmid": 0xff}, "set_port", {"p": 4})], json_path=True),
]
