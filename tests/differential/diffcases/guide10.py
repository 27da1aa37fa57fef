"""Constructs seen in a public v1model program collection (jafingerhut/p4-guide, measured by
helper guide10 for issue #15), each written here as a small program of our own and decided by
real p4c 1.2.4.8 / BMv2 1.15.5.

Table applies inside expressions whose actions ``exit`` (short-circuit ``&&``, a sum switched
on, a function call with side effects before the apply in the same expression), saturating
arithmetic under ``?:`` in an action, control-typed constructor parameters shared by several
instances, and ``if`` statements in parser states and in functions called from actions."""
import struct

from .base import PAYLOAD, VALUES, Entry, H, case, csum16, eth, program

CAT = "front end (p4c-compatible)"


def E(table, match, action, params=None):
    return Entry(f"I.{table}", match, f"I.{action}", params or {})


_EXIT_TABLES = """
    action t1_a1() { hdr.h.c[7:0] = 1; }
    action t1_a2() { hdr.h.c[7:0] = 2; exit; }
    table t1 { key = { hdr.h.a: exact; } actions = { t1_a1; t1_a2; NoAction; } const default_action = NoAction; }
    action t2_a1() { hdr.h.c[15:8] = 3; }
    action t2_a2() { hdr.h.c[15:8] = 4; exit; }
    table t2 { key = { hdr.h.b: exact; } actions = { t2_a1; t2_a2; NoAction; } const default_action = NoAction; }
    action t3_a1() { hdr.h.d[7:0] = 5; }
    action t3_a2() { hdr.h.d[7:0] = 6; exit; }
    table t3 { key = { hdr.h.d[31:24]: exact; } actions = { t3_a1; t3_a2; NoAction; } const default_action = NoAction; }"""
_EXIT_ENTRIES = [E("t1", {"hdr.h.a": 1}, "t1_a1"), E("t1", {"hdr.h.a": 2}, "t1_a2"),
                 E("t2", {"hdr.h.b": 1}, "t2_a1"), E("t2", {"hdr.h.b": 2}, "t2_a2"),
                 E("t3", {"hdr.h.d[31:24]": 1}, "t3_a1"), E("t3", {"hdr.h.d[31:24]": 2}, "t3_a2")]
_EXIT_FRAMES = [(1, H(a, b, 0, d << 24)) for a in (1, 2, 3) for b in (1, 2, 3) for d in (1, 2)]

_IP4_HDR = """header ip4_t {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags; bit<13> frag;
    bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst; varbit<320> opts;
}
header ihl_only_t { bit<4> version; bit<4> ihl; }
error { IpVersion, IpTooShort }
"""
_IP4_PARSER = """    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) { 0x0800: parse_ip; default: accept; }
    }
    state parse_ip {
        pkt.extract(hdr.ip, (bit<32>)(8 * (4 * (bit<9>)(pkt.lookahead<ihl_only_t>().ihl) - 20)));
        verify(hdr.ip.version == 4, error.IpVersion);
        verify(hdr.ip.ihl >= 5, error.IpTooShort);
        transition accept;
    }"""
_IP4_LIST = ("{ hdr.ip.version, hdr.ip.ihl, hdr.ip.tos, hdr.ip.len, hdr.ip.id, hdr.ip.flags, hdr.ip.frag, "
             "hdr.ip.ttl, hdr.ip.proto, hdr.ip.csum_SKIP, hdr.ip.src, hdr.ip.dst, hdr.ip.opts }")


def _ip4(ihl: int, ok: bool = True, version: int = 4, ttl: int = 64) -> bytes:
    opts = bytes(range(1, 1 + max(0, 4 * ihl - 20)))
    h = struct.pack("!BBHHHBBH4s4s", (version << 4) | ihl, 0, 20 + len(opts) + len(PAYLOAD), 7, 0, ttl, 17, 0,
                    bytes([10, 0, 0, 1]), bytes([10, 0, 1, 2])) + opts
    c = csum16(h) ^ (0 if ok else 0x5555)
    return eth(0x0800) + h[:10] + struct.pack("!H", c) + h[12:] + PAYLOAD


CASES = [
    # two resubmits in one ingress pass, from two tables' actions with different field lists:
    # the last one chooses the list; values are taken when ingress ends (written after the
    # call), the other list's field starts at zero; egress_spec set after the call
    case("guide10_two_resubmits_last_list_wins", CAT, program(
        "        if (meta.reason == 0) { t1.apply(); t2.apply(); meta.f1 = meta.f1 + 1; sm.egress_spec = 5; }\n"
        "        else { hdr.h.b = meta.reason; hdr.h.c = meta.f1; hdr.h.d = meta.f2; }\n",
        meta="    @field_list(1, 2) bit<8> reason;\n    @field_list(1) bit<16> f1;\n    @field_list(2) bit<32> f2;\n",
        ingress_decls="""
    action r1() { meta.reason = 1; meta.f1 = 0x100; resubmit_preserving_field_list(1); }
    action r2(bit<32> v) { meta.reason = 2; meta.f2 = v; resubmit_preserving_field_list(2); }
    table t1 { key = { hdr.h.a: exact; } actions = { r1; NoAction; } default_action = NoAction(); }
    table t2 { key = { hdr.h.b: exact; } actions = { r2; NoAction; } default_action = NoAction(); }"""),
        frames=[(1, H(1, 0)), (2, H(0, 1)), (3, H(1, 1)), (1, H(0, 0))],
        entries=[E("t1", {"hdr.h.a": 1}, "r1"), E("t2", {"hdr.h.b": 1}, "r2", {"v": 0xabcdef})]),
    # IPv4 with options: a varbit sized from a lookahead of the IHL, in both the checksum that
    # is verified (a wrong one sets checksum_error) and the one computed after the TTL changes;
    # verify() errors for a short IHL and a wrong version (parser_error read in ingress)
    case("guide10_ipv4_options_varbit_checksums", CAT, program(
        "        hdr.ip.ttl = hdr.ip.ttl - 1;\n"
        "        hdr.eth.src[7:0] = (bit<8>)sm.checksum_error;\n"
        "        if (sm.parser_error == error.IpTooShort) { hdr.eth.src[15:8] = 1; }\n"
        "        else if (sm.parser_error == error.IpVersion) { hdr.eth.src[15:8] = 2; }\n"
        "        else if (sm.parser_error != error.NoError) { hdr.eth.src[15:8] = 3; }\n",
        headers=_IP4_HDR, fields="    ip4_t ip;\n", parser=_IP4_PARSER,
        verify="apply { verify_checksum(hdr.ip.isValid(), " + _IP4_LIST.replace(" hdr.ip.csum_SKIP,", "")
               + ", hdr.ip.csum, HashAlgorithm.csum16); }",
        compute="apply { update_checksum(hdr.ip.isValid(), " + _IP4_LIST.replace(" hdr.ip.csum_SKIP,", "")
                + ", hdr.ip.csum, HashAlgorithm.csum16); }",
        deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.ip);"),
        frames=[(1, _ip4(5)), (1, _ip4(6)), (2, _ip4(7)), (1, _ip4(15)), (2, _ip4(6, ok=False)),
                (1, _ip4(5, ok=False)), (3, _ip4(4)), (1, _ip4(6, version=6)), (2, _ip4(8, ttl=0))],
        json_path=True),
    # a && of two applies: the second is not applied when the first misses; an exit in
    # either action ends ingress before the branch
    case("guide10_exit_in_short_circuit_hit", CAT, program(
        "        if (hdr.h.isValid()) {\n"
        "            if (t1.apply().hit && t2.apply().hit) { meta.m8 = 1; } else { meta.m8 = 2; }\n"
        "            hdr.h.d[15:8] = meta.m8;\n"
        "        }\n", ingress_decls=_EXIT_TABLES),
        frames=_EXIT_FRAMES, entries=_EXIT_ENTRIES[:4]),
    # a switch on a sum of three hits (each apply's exit ends ingress before the switch)
    case("guide10_exit_in_switch_on_hit_sum", CAT, program(
        "        if (hdr.h.isValid()) {\n"
        "            switch (((bit<2>)((bit<1>)t1.apply().hit)) + ((bit<2>)((bit<1>)t2.apply().hit)) +\n"
        "                    ((bit<2>)((bit<1>)t3.apply().hit))) {\n"
        "                0: { hdr.h.d[15:8] = 0x10; }\n"
        "                1: { hdr.h.d[15:8] = 0x11; }\n"
        "                2: { hdr.h.d[15:8] = 0x12; }\n"
        "                3: { hdr.h.d[15:8] = 0x13; }\n"
        "            }\n"
        "        }\n", ingress_decls=_EXIT_TABLES),
        frames=_EXIT_FRAMES, entries=_EXIT_ENTRIES),
    # a function with side effects (an inout argument, mark_to_drop) called before an apply in
    # one expression: its effects stay when the table's action exits, the assignment does not
    case("guide10_exit_after_function_side_effects", CAT, program(
        "        if (hdr.h.isValid()) {\n"
        "            hdr.h.d[23:16] = g(hdr.h.b, hdr.eth.src[7:0], sm) + (bit<8>)((bit<1>)t1.apply().hit);\n"
        "        }\n", ingress_decls=_EXIT_TABLES,
        top="bit<8> g(in bit<8> x, inout bit<8> y, inout standard_metadata_t s) {\n"
            "    if (x < 2) { y = y + 0x70; return x; }\n"
            "    y = y - 1; mark_to_drop(s); return x + 10;\n}\n"),
        frames=_EXIT_FRAMES, entries=_EXIT_ENTRIES[:2]),
    # saturating subtraction under ?: in an action, and a slice of a field assigned a parameter
    case("guide10_saturating_under_conditional_in_action", CAT, program(
        "        t.apply();\n", ingress_decls="""
    action act(bit<1> dec, bit<6> v) {
        hdr.h.a = (dec == 1) ? (hdr.h.a |-| 3) : hdr.h.a;
        hdr.h.b[7:2] = v;
    }
    table t { key = { hdr.h.c: exact; } actions = { act; NoAction; } default_action = act(1, 5); }"""),
        frames=VALUES + [(1, H(2, 0xff, 7)), (2, H(0x80, 0, 7))],
        entries=[E("t", {"hdr.h.c": 7}, "act", {"dec": 0, "v": 0x2a})]),
    # one control instance handed to two others as a constructor argument of a control type,
    # applied from both (once and twice): a single counter behind all three calls
    case("guide10_control_typed_constructor_argument", CAT, program(
        "        c3.apply((bit<32>)hdr.h.a);\n", top="""
control Upd(in bit<32> idx);
control C3(in bit<32> idx)(Upd u1, Upd u2) { apply { u1.apply(idx + 10); u2.apply(idx + 20); } }
control C1(in bit<32> idx)(Upd u) { apply { u.apply(idx); } }
control C2(in bit<32> idx)(Upd u) { apply { u.apply(idx + 1); u.apply(idx + 2); } }
control Leaf(in bit<32> idx) {
    counter(64, CounterType.packets) cnt;
    apply { cnt.count(idx); }
}
""", ingress_decls="    Leaf() leaf;\n    C1(leaf) c1;\n    C2(leaf) c2;\n    C3(c1, c2) c3;\n"),
        frames=[(1, H(1)), (1, H(3)), (2, H(3))]),
    # an if statement in a parser state and a function with if/return called in an action
    case("guide10_if_in_parser_state_and_action_function", CAT, program(
        "        t.apply();\n", ingress_decls="""
    action setb() { hdr.h.b = f1(hdr.h.b); if (hdr.h.c[7:0] == 0xde) { meta.m8 = 1; } hdr.h.d[7:0] = meta.m8; }
    table t { key = { hdr.h.a: exact; } actions = { setb; NoAction; } default_action = setb(); }""",
        top="bit<8> f1(in bit<8> x) { if (x > 127) { return x - 1; } return x + 1; }\n",
        parser="""\
    state start {
        pkt.extract(hdr.eth);
        if (hdr.eth.dst[40:40] == 1) { meta.m16 = 1; } else { meta.m16 = 2; }
        transition select(hdr.eth.etype) {
            0x1234: parse_h;
            default: accept;
        }
    }
    state parse_h {
        pkt.extract(hdr.h);
        hdr.h.c[15:8] = (bit<8>)meta.m16;
        transition accept;
    }"""),
        frames=VALUES + [(1, H(5, 0x90, 0x00de)), (1, H(5, 0x10, 0x00de))]),
    # a sub-control given a header both whole (inside the headers struct) and as a field of
    # it, inout twice: copy-out runs in parameter order, so the later parameter's copy wins
    case("guide10_subcontrol_aliased_inout_arguments", CAT, program(
        "        if (hdr.h.b[0:0] == 0) { m1.apply(hdr, hdr.h); } else { m2.apply(hdr.h, hdr); }\n",
        top="control M1(inout headers_t hh, inout h_t x) {\n"
            "    apply { hh.h.a = hh.h.a - 1; hh.h.c = hh.h.c + 1; x.a = x.a - 2; x.d = x.d + 4; } }\n"
            "control M2(inout h_t x, inout headers_t hh) {\n"
            "    apply { hh.h.a = hh.h.a - 1; hh.h.c = hh.h.c + 1; x.a = x.a - 2; x.d = x.d + 4; } }\n",
        ingress_decls="    M1() m1;\n    M2() m2;\n")),
    # a function with a counter's count() under an if, called from the apply block (fine there;
    # from an action it is refused -- INVALID below) and an action calling it unconditionally
    # through a function without a condition
    case("guide10_function_method_call_under_if_in_apply", CAT, program(
        "        hdr.h.c[7:0] = g(hdr.h.a);\n        t.apply();\n", version=20200408,
        top="counter<bit<8>>(256, CounterType.packets) mc;\n"
            "bit<8> g(in bit<8> x) { if (x > 127) { mc.count(x); return x - 1; } return x + 1; }\n"
            "void g0(in bit<8> i) { mc.count(i); }\n",
        ingress_decls="    action a() { g0(hdr.h.b); hdr.h.d[7:0] = 9; }\n"
                      "    table t { key = { hdr.h.a: exact; } actions = { a; NoAction; } default_action = a(); }\n"),
        frames=VALUES + [(1, H(0x90, 3)), (2, H(0x90, 0x90))]),
]

# p4c 1.2.4.8 refuses these (test_invalid.py takes them in): name -> (source, words of the message).
# A function's body is inlined into an action that calls it, and p4c's BMv2 backend predicates
# the action's ifs: an extern instance's method call under an if inside the function (or the
# function's call under an if in the action, or after a conditional return in the function)
# cannot be predicated.  Called from a control's apply block the same function is fine.
_FTOP = "counter<bit<8>>(256, CounterType.packets) mc;\nregister<bit<8>, bit<32>>(4) rg;\n"
_FT = "    table t { key = { hdr.h.a: exact; } actions = { a; NoAction; } default_action = a(); }\n"
INVALID = {
    "function_method_call_under_if_inlined_in_action": (program(
        "        t.apply();\n", version=20200408,
        top=_FTOP + "bit<8> g(in bit<8> x) { if (x > 127) { mc.count(x); return x - 1; } return x + 1; }\n",
        ingress_decls="    action a() { hdr.h.b = g(hdr.h.b); }\n" + _FT),
        ("mc.count (in function g", "conditional execution")),
    "function_register_read_under_if_inlined_in_action": (program(
        "        t.apply();\n", version=20200408,
        top=_FTOP + "bit<8> g(in bit<8> i) { bit<8> v = 0; if (i == 1) { rg.read(v, 0); } return v; }\n",
        ingress_decls="    action a() { hdr.h.b = g(hdr.h.b); }\n" + _FT),
        ("rg.read (in function g", "conditional execution")),
    "function_method_call_called_under_if_in_action": (program(
        "        t.apply();\n", version=20200408,
        top=_FTOP + "void g(in bit<8> i) { mc.count(i); }\nvoid g2(in bit<8> i) { g(i); }\n",
        ingress_decls="    action a() { if (hdr.h.b == 1) { g2(hdr.h.c[7:0]); } }\n" + _FT),
        ("mc.count (in function g", "conditional execution")),
    "function_method_call_after_conditional_return_in_action": (program(
        "        t.apply();\n", version=20200408,
        top=_FTOP + "bit<8> g(in bit<8> i) { if (i == 1) { return 3; } mc.count(i); return 4; }\n",
        ingress_decls="    action a() { hdr.h.b = g(hdr.h.b); }\n" + _FT),
        ("mc.count (in function g", "conditional execution")),
    # a header stack's push_front in the function; a register write in a function called from
    # an action of a sub-control
    "function_push_front_under_if_inlined_in_action": (program(
        "        t.apply();\n", fields="    h_t[2] s;\n",
        top="void g(inout headers_t hh) { if (hh.h.b == 1) { hh.s.push_front(1); } }\n",
        ingress_decls="    action a() { g(hdr); }\n" + _FT),
        ("hh.s.push_front (in function g", "conditional execution")),
    "function_register_write_under_if_in_subcontrol_action": (program(
        "        s.apply(hdr);\n", version=20200408,
        top=_FTOP + "void g(in bit<8> i) { if (i == 1) { rg.write(0, i); } }\n"
            "control S(inout headers_t hh) {\n    action a() { g(hh.h.b); }\n"
            "    table t { key = { hh.h.a: exact; } actions = { a; NoAction; } default_action = a(); }\n"
            "    apply { t.apply(); }\n}\n",
        ingress_decls="    S() s;\n"),
        ("rg.write (in function g", "conditional execution")),
}
