"""Header stacks, header unions (and stacks of them), varbit fields."""
from .base import H, PAYLOAD, case, eth, hdr, program

CAT_S = "header stacks"
CAT_U = "header unions"
CAT_V = "varbit"

FIELDS = "    h_t[3] s;\n"
PARSER = """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.s.next); transition select(hdr.s.last.a) { 0xee: ph; default: accept; } }"""
DEP = "        pkt.emit(hdr.eth);\n        pkt.emit(hdr.s);"
FR = [(1, H(1, 2, 3, 4)), (2, eth(0x1234) + hdr(0xee, 1, 1, 1) + hdr(0xee, 2, 2, 2) + hdr(7, 3, 3, 3) + PAYLOAD),
      (3, eth(0x1234) + hdr(0xee, 5, 5, 5) + hdr(9, 6, 6, 6) + PAYLOAD),
      (4, eth(0x1234) + hdr(0xee, 1, 1, 1) + hdr(0xee, 2, 2, 2) + hdr(0xee, 3, 3, 3) + hdr(4, 4, 4, 4)),
      (1, eth(0x0800) + PAYLOAD)]
REPORT = ("        if (sm.parser_error == error.StackOutOfBounds) { hdr.eth.etype = 0xe003; }\n"
          "        hdr.eth.src[7:0] = (bit<1>)hdr.s[0].isValid() ++ (bit<1>)hdr.s[1].isValid() ++ (bit<1>)hdr.s[2].isValid() ++ 5w0;\n")


def sp(ingress):
    return program(REPORT + ingress, fields=FIELDS, parser=PARSER, deparser=DEP)


STACK = [
    ("push_front", "hdr.s.push_front(1); hdr.s[0].setValid(); hdr.s[0].a = 0x99;"),
    ("push_front_2", "hdr.s.push_front(2);"),
    ("pop_front", "hdr.s.pop_front(1);"),
    ("pop_front_all", "hdr.s.pop_front(3);"),
    ("index_const", "hdr.s[1].b = 0x42; hdr.s[2].setInvalid();"),
    ("index_runtime_read", "meta.m8 = hdr.s[0].b[0:0] ++ 7w0; hdr.s[0].c = (bit<16>)hdr.s[hdr.s[0].b[0:0]].a;"),
    ("index_runtime_write", "hdr.s[hdr.s[0].b[0:0]].d = 0xabcdef01;"),
    ("size", "hdr.s[0].b = (bit<8>)hdr.s.size;"),
    ("set_valid_middle", "hdr.s[2].setValid(); hdr.s[2].a = 0x33;"),
    ("copy_element", "hdr.s[2] = hdr.s[0]; hdr.s[2].a = 0x44;"),
    ("stack_assign", "h_t[3] t = hdr.s; t[0].a = 0x55; hdr.s = t;"),
]

CASES = [case(f"stack_{n}", CAT_S, sp(f"        {s}\n"), frames=FR) for n, s in STACK]
# a negative push_front/pop_front count: p4c accepts it, simple_switch_grpc dies on its JSON
CASES += [case(f"stack_{n}", CAT_S, sp(f"        {s}\n"), frames=FR,
               p4info_only="simple_switch_grpc 1.15.5 dies on p4c's JSON for a negative push_front/pop_front count")
          for n, s in [("push_front_minus_1", "hdr.s.push_front(-1);"), ("pop_front_minus_2", "hdr.s.pop_front(-2);")]]

# ------------------------------------------------------------------ unions
U_HEADERS = """header u8_t { bit<8> v; }
header u16_t { bit<16> v; }
header_union u_t { u8_t b; u16_t w; }
"""
U_PARSER = """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1238: p8; 0x1239: p16; 0x123a: many; default: accept; } }
    state p8 { pkt.extract(hdr.u.b); transition accept; }
    state p16 { pkt.extract(hdr.u.w); transition accept; }
    state many { bit<8> v = pkt.lookahead<bit<8>>(); pkt.extract(hdr.us.next.b);
                 transition select(v) { 0: p16s; 0xff: accept; default: many; } }
    state p16s { pkt.extract(hdr.us.next.w); transition accept; }"""
U_DEP = "        pkt.emit(hdr.eth);\n        pkt.emit(hdr.u);\n        pkt.emit(hdr.us);"
# p4c 1.2.4 writes two things on a stack of unions that BMv2 refuses to load (``select(hdr.us.last.b.v)``
# as the field ["us", "b.v"]; ``hdr.us[0].isValid()`` as valid_union of a "header"), so these
# programs look ahead in the parser and test the members' validity instead)
U_FR = [(1, eth(0x1238) + b"\x07" + PAYLOAD), (2, eth(0x1239) + b"\x01\x02" + PAYLOAD),
        (3, eth(0x123a) + b"\x05\x00\x12\x34" + PAYLOAD), (4, eth(0x123a) + b"\x05\x06\xff" + PAYLOAD),
        (2, eth(0x123a) + b"\x05\x06\x07\x08" + PAYLOAD), (3, eth(0x123a) + b"\x05\x00"),
        (1, eth(0x0800) + PAYLOAD)]
U_REPORT = ("        if (sm.parser_error == error.StackOutOfBounds) { hdr.eth.etype = 0xe003; }\n"
            "        else if (sm.parser_error == error.PacketTooShort) { hdr.eth.etype = 0xe001; }\n"
            "        hdr.eth.src[7:0] = (bit<1>)hdr.u.b.isValid() ++ (bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.isValid() ++ "
            "(bit<1>)(hdr.us[0].b.isValid() || hdr.us[0].w.isValid()) ++ (bit<1>)hdr.us[1].w.isValid() ++ 3w0;\n")


def up(ingress):
    return program(U_REPORT + ingress, headers=U_HEADERS, fields="    u_t u;\n    u_t[3] us;\n",
                   parser=U_PARSER, deparser=U_DEP)


UNION = [
    ("read", "if (hdr.u.b.isValid()) { hdr.u.b.v = hdr.u.b.v + 1; } else if (hdr.u.w.isValid()) { hdr.u.w.v = hdr.u.w.v + 1; }"),
    ("switch_member", "if (hdr.u.b.isValid()) { hdr.u.w.setValid(); hdr.u.w.v = 0xbeef; }"),
    ("set_invalid", "hdr.u.w.setInvalid(); hdr.u.b.setInvalid();"),
    ("stack_of_unions", "if (hdr.us[1].w.isValid()) { hdr.us[1].w.v = 0x4321; } if (hdr.us[0].b.isValid()) { hdr.us[0].b.v = 0x11; }"),
    ("stack_of_unions_push", "hdr.us.push_front(1); hdr.us[0].b.setValid(); hdr.us[0].b.v = 0x66;"),
    ("assign_member_header", "u8_t x = {0x12}; if (hdr.u.w.isValid()) { hdr.u.b = x; }"),
    ("stack_of_unions_pop", "hdr.us.pop_front(1);"),
    ("stack_of_unions_pop_2", "hdr.us.pop_front(2); hdr.us[0].b.setValid(); hdr.us[0].b.v = 0x31;"),
    ("stack_of_unions_push_3", "hdr.us.push_front(3);"),
    ("stack_of_unions_push_2", "hdr.us.push_front(2); hdr.us[1].w.setValid(); hdr.us[1].w.v = 0x7788;"),
    ("stack_of_unions_member_swap", "if (hdr.us[0].b.isValid()) { hdr.us[0].w.setValid(); hdr.us[0].w.v = 0xabcd; }"),
    ("stack_of_unions_set_invalid", "hdr.us[1].w.setInvalid(); hdr.us[0].b.setInvalid();"),
    ("stack_of_unions_assign_member", "u16_t y = {0x0909}; hdr.us[2].w = y; if (hdr.us[0].b.isValid()) { hdr.us[0].w = y; }"),
    ("stack_of_unions_copy_element", "hdr.us[2] = hdr.us[0]; if (hdr.us[2].b.isValid()) { hdr.us[2].b.v = 0x3c; }"),
    ("stack_of_unions_from_union", "hdr.us[1] = hdr.u;"),
    ("stack_of_unions_local", "u_t[3] t = hdr.us; t[0].b.setValid(); t[0].b.v = 0x42; hdr.us = t;"),
]
CASES += [case(f"union_{n}", CAT_U, up(f"        {s}\n"), frames=U_FR, json_path=True) for n, s in UNION]

# a varbit member of a union in a stack, extracted with a length: p4c writes extract_VL of a
# union_stack (the JSON loader refused it); next advances and the sibling member is invalidated
UV_HEADERS = """header fix_t { bit<8> kind; bit<8> v; }
header var_t { bit<8> kind; bit<8> len; varbit<32> data; }
header_union opt_u { fix_t f; var_t x; }
"""
UV_PARSER = """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x123a: opt; default: accept; } }
    state opt { bit<16> la = pkt.lookahead<bit<16>>(); transition select(la[15:8]) { 0: accept; 1: fixed; default: var; } }
    state fixed { pkt.extract(hdr.us.next.f); transition opt; }
    state var { bit<8> l = pkt.lookahead<bit<16>>()[7:0]; pkt.extract(hdr.us.next.x, (bit<32>)l * 8); transition opt; }"""
UV_REPORT = ("        if (sm.parser_error != error.NoError) { hdr.eth.etype = 0xe000; }\n"
             "        hdr.eth.src[7:0] = (bit<1>)hdr.us[0].f.isValid() ++ (bit<1>)hdr.us[0].x.isValid() ++ "
             "(bit<1>)hdr.us[1].f.isValid() ++ (bit<1>)hdr.us[1].x.isValid() ++ (bit<1>)hdr.us[2].f.isValid() ++ "
             "(bit<1>)hdr.us[2].x.isValid() ++ 2w0;\n")
UV_FR = [(1, eth(0x123a) + bytes.fromhex("01aa0202bbcc00") + PAYLOAD),
         (2, eth(0x123a) + bytes.fromhex("02041122334401550000") + PAYLOAD),
         (3, eth(0x123a) + bytes.fromhex("0200020177016600") + PAYLOAD),
         (1, eth(0x123a) + bytes.fromhex("0101010201030104") + PAYLOAD),
         (2, eth(0x123a) + bytes.fromhex("020811223344556677880000") + PAYLOAD),
         (3, eth(0x123a) + bytes.fromhex("0203aabb")),
         (1, eth(0x0800) + PAYLOAD)]
CASES.append(case("union_stack_varbit_member", CAT_U, program(
    UV_REPORT, headers=UV_HEADERS, fields="    opt_u[3] us;\n", parser=UV_PARSER,
    deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.us);"), frames=UV_FR, json_path=True))

# the same varbit member in a plain union, extracted after its sibling: the sibling goes invalid
UV1_PARSER = """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x123a: both; 0x123b: one; default: accept; } }
    state both { pkt.extract(hdr.u.f); transition one; }
    state one { bit<8> l = pkt.lookahead<bit<16>>()[7:0]; pkt.extract(hdr.u.x, (bit<32>)l * 8); transition accept; }"""
CASES.append(case("union_varbit_member_after_sibling", CAT_U, program(
    "        hdr.eth.src[7:0] = (bit<1>)hdr.u.f.isValid() ++ (bit<1>)hdr.u.x.isValid() ++ 6w0;\n",
    headers=UV_HEADERS, fields="    opt_u u;\n", parser=UV1_PARSER,
    deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.u);"),
    frames=[(1, eth(0x123a) + bytes.fromhex("01aa0202bbcc") + PAYLOAD), (2, eth(0x123b) + bytes.fromhex("0201dd") + PAYLOAD)],
    json_path=True))

# ------------------------------------------------------------------ varbit
V_HEADERS = """header opt_t { bit<8> len; varbit<64> data; }
header tail_t { bit<16> t; }
"""
V_PARSER = """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1240: pv; default: accept; } }
    state pv { bit<8> n = pkt.lookahead<bit<8>>(); pkt.extract(hdr.o, (bit<32>)n * 8); pkt.extract(hdr.t); transition accept; }"""
V_DEP = "        pkt.emit(hdr.eth);\n        pkt.emit(hdr.o);\n        pkt.emit(hdr.t);"
V_FR = [(1, eth(0x1240) + b"\x02\xaa" + b"\x12\x34" + PAYLOAD), (2, eth(0x1240) + b"\x04\x01\x02\x03" + b"\xab\xcd" + PAYLOAD),
        (3, eth(0x1240) + b"\x01" + b"\x55\x66" + PAYLOAD), (4, eth(0x1240) + b"\x0a" + b"\x00" * 3),
        (1, eth(0x1240) + b"\x02\xaa" + b"\x12\x34")]
V_REPORT = ("        if (sm.parser_error == error.PacketTooShort) { hdr.eth.etype = 0xe001; }\n"
            "        else if (sm.parser_error == error.HeaderTooShort) { hdr.eth.etype = 0xe004; }\n"
            "        else if (sm.parser_error != error.NoError) { hdr.eth.etype = 0xe0ff; }\n")


def vp(ingress, parser=V_PARSER, top=""):
    return program(V_REPORT + ingress, headers=V_HEADERS, fields="    opt_t o;\n    tail_t t;\n", parser=parser,
                   deparser=V_DEP, top=top)


VARBIT = [
    ("extract_emit", ""),
    ("invalidate", "if (hdr.o.len == 4) { hdr.o.setInvalid(); }"),
    ("tail_edit", "hdr.t.t = hdr.t.t + 1; hdr.o.len = hdr.o.len | 0x80;"),
]
CASES += [case(f"varbit_{n}", CAT_V, vp(f"        {s}\n"), frames=V_FR) for n, s in VARBIT]
CASES.append(case("varbit_compare", CAT_V, program(V_REPORT + """        opt_t o2 = hdr.o;
        if (hdr.o.isValid() && hdr.o2.isValid() && hdr.o.data == hdr.o2.data) { hdr.t.t = 0x5a5a; }
        else if (o2.data == hdr.o.data) { hdr.t.t = 0x1111; }
""", headers=V_HEADERS, fields="    opt_t o;\n    opt_t o2;\n    tail_t t;\n", parser="""
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1240: pv; default: accept; } }
    state pv { bit<8> n = pkt.lookahead<bit<8>>(); pkt.extract(hdr.o, (bit<32>)n * 8);
               bit<8> m = pkt.lookahead<bit<8>>(); pkt.extract(hdr.o2, (bit<32>)m * 8); pkt.extract(hdr.t); transition accept; }""",
    deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.o);\n        pkt.emit(hdr.o2);\n        pkt.emit(hdr.t);"),
    frames=[(1, eth(0x1240) + b"\x02\xaa\x02\xaa\x12\x34"), (2, eth(0x1240) + b"\x02\xaa\x02\xab\x12\x34"),
            (3, eth(0x1240) + b"\x03\xaa\xbb\x02\xaa\x12\x34"), (4, eth(0x1240) + b"\x01\x01\x00\x00")]))

# a varbit length that is not a whole number of bytes: BMv2 reports ParserInvalidArgument
# before it looks at the packet's remaining length or the field's maximum size
VB_BITS_PARSER = """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1240: pv; default: accept; } }
    state pv { bit<8> n = pkt.lookahead<bit<8>>(); pkt.extract(hdr.o, (bit<32>)n); pkt.extract(hdr.t); transition accept; }"""
CASES.append(case("varbit_length_in_bits_checks_order", CAT_V, vp("", parser=VB_BITS_PARSER),
                  frames=[(1, eth(0x1240) + b"\x10\xaa\xbb\x12\x34" + PAYLOAD),          # 16 bits: fine
                          (2, eth(0x1240) + b"\x0c\xaa\xbb\x12\x34" + PAYLOAD),          # 12 bits
                          (3, eth(0x1240) + b"\x4d" + bytes(20)),                          # 77 > 64, not bytes
                          (1, eth(0x1240) + b"\x45\x01"),                                   # 69, too short too
                          (2, eth(0x1240) + b"\x48" + bytes(20)),                          # 72 > 64, bytes
                          (3, eth(0x1240) + b"\x40\x01")]))                                # 64, too short

# varbit local variables: copied from and to header fields (length travels with the bits),
# compared with fields
VB2_PARSER = """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1240: pv; default: accept; } }
    state pv { bit<8> n = pkt.lookahead<bit<8>>(); pkt.extract(hdr.o, (bit<32>)n * 8);
               bit<8> m = pkt.lookahead<bit<8>>(); pkt.extract(hdr.o2, (bit<32>)m * 8); pkt.extract(hdr.t); transition accept; }"""
VB2_DEP = "        pkt.emit(hdr.eth);\n        pkt.emit(hdr.o);\n        pkt.emit(hdr.o2);\n        pkt.emit(hdr.t);"
VB2_FR = [(1, eth(0x1240) + b"\x02\xaa\x02\xaa\x12\x34"), (2, eth(0x1240) + b"\x02\xaa\x04\xab\xcd\xef\x12\x34"),
          (3, eth(0x1240) + b"\x03\xaa\xbb\x02\xaa\x12\x34" + PAYLOAD), (4, eth(0x1240) + b"\x01\x01\x00\x00")]
CASES.append(case("varbit_local_swap", CAT_V, program(V_REPORT + """        varbit<64> tmp = hdr.o.data;
        varbit<64> tmp2;
        tmp2 = hdr.o2.data;
        if (tmp == tmp2) { hdr.t.t = 0x2222; }
        if (hdr.o.isValid() && hdr.o2.isValid()) { hdr.o.data = tmp2; hdr.o2.data = tmp; }
        if (tmp == hdr.o2.data) { hdr.t.t = hdr.t.t + 1; }
""", headers=V_HEADERS, fields="    opt_t o;\n    opt_t o2;\n    tail_t t;\n", parser=VB2_PARSER, deparser=VB2_DEP),
    frames=VB2_FR))

# found with p4c's STF tests (tests/differential/stf.py): extract(stack.next, bits) of a
# header with a varbit field advances nextIndex (the second extract overwrote the first),
# and header stacks compare with == / != element by element (nextIndex is not compared);
# both also on p4c's JSON (extract_VL of a stack)
VS_PARSER = """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1240: pv; default: accept; } }
    state pv { bit<8> n = pkt.lookahead<bit<8>>(); pkt.extract(hdr.vs.next, (bit<32>)n * 8);
               bit<8> m = pkt.lookahead<bit<8>>(); pkt.extract(hdr.vs.next, (bit<32>)m * 8);
               pkt.extract(hdr.t); transition accept; }"""
VS_DEP = "        pkt.emit(hdr.eth);\n        pkt.emit(hdr.vs);\n        pkt.emit(hdr.t);"
VS_FR = [(1, eth(0x1240) + b"\x02\xaa\x02\xaa\x12\x34"), (2, eth(0x1240) + b"\x02\xaa\x02\xab\x12\x34"),
         (3, eth(0x1240) + b"\x03\xaa\xbb\x01\x12\x34" + PAYLOAD), (4, eth(0x1240) + b"\x01\x01\x00\x00")]


def vsp(ingress):
    return program(V_REPORT + ingress, headers=V_HEADERS, fields="    opt_t[2] vs;\n    tail_t t;\n",
                   parser=VS_PARSER, deparser=VS_DEP)


CASES += [
    case("varbit_stack_next_extract", CAT_V, vsp(
        "        hdr.t.t[15:8] = (bit<8>)((bit<1>)hdr.vs[0].isValid() ++ (bit<1>)hdr.vs[1].isValid());\n"),
        frames=VS_FR, json_path=True),
    case("stack_equality", CAT_S, vsp("""        opt_t[2] c;
        c[0] = hdr.vs[1];
        c[1] = hdr.vs[0];
        if (c == hdr.vs) { hdr.t.t = 0x1111; }
        if (c != hdr.vs) { hdr.eth.src[7:0] = 0x22; }
        opt_t[2] d = hdr.vs;
        d[1].len = d[1].len + 1;
        if (d == hdr.vs) { hdr.eth.dst[7:0] = 0x33; }
"""), frames=VS_FR, json_path=True),
]

# a stack of header unions on p4c's JSON (header_union_stacks): a table keyed on a member's
# field and validity, actions that validate a member (its sibling goes invalid) and pop the
# stack, a union copied out of the stack (assign_union).  p4c 1.2.4 crashes on a run-time
# index into a stack of unions, so none is used here.
U_TABLE = """    action set_w(bit<16> v) { hdr.us[1].w.setValid(); hdr.us[1].w.v = v; }
    action pop1() { hdr.us.pop_front(1); }
    action push1() { hdr.us.push_front(1); hdr.us[0].w.setValid(); hdr.us[0].w.v = 0x0102; }
    table t {
        key = { hdr.us[0].b.v : exact; hdr.us[0].b.isValid() : exact; hdr.us[1].w.isValid() : exact; }
        actions = { set_w; pop1; push1; NoAction; }
        const entries = { (5, true, false) : set_w(0x7777); (5, true, true) : pop1(); (0, false, false) : push1(); }
        default_action = NoAction();
    }
"""
# The key reads us[0].b.v also where us[0].b is invalid (frames without the stack): it is
# written first -- unwritten it holds a stale PHV value that BMv2 hands out by timing, which
# decided whether (0, false, false) matched (repeat_cases.py: 1 of 6 runs differed)
CASES.append(case("union_stack_of_unions_table", CAT_U, program(
    U_REPORT + "        if (!hdr.us[0].b.isValid()) { hdr.us[0].b.v = 0; }\n        t.apply();\n        if (hdr.us[2].b.isValid() || hdr.us[2].w.isValid()) { hdr.u = hdr.us[2]; }\n",
    ingress_decls=U_TABLE, headers=U_HEADERS, fields="    u_t u;\n    u_t[3] us;\n", parser=U_PARSER, deparser=U_DEP),
    frames=U_FR + [(4, eth(0x123a) + b"\x05\x05\x05\x06\x07\x08" + PAYLOAD)], json_path=True))
