"""Programs found by helper errs27 (issue #15): a thirteenth sweep of probe programs of our own (kept
in /work/errs27, outside the repository: deparser statements after p4c's mid-end -- register reads,
local copies, local headers --, functions with packet_in/packet_out parameters, one control as
ingress and egress, ...), each decided by real p4c 1.2.4.8 and, for what runs, by simple_switch_grpc.

``CASES``: programs p4c accepts that checkmate-p4c refused.  Positions: tests/p4c/test_errs27.py.
"""
from .base import H, H2, PARSE_H2, VALUES, case, parse_h_state, program

CAT = "front end (p4c-compatible)"

CASES = []

# Functions with a packet_in parameter called in parser states (extract, lookahead, advance) and
# one with a packet_out parameter called in the deparser (/work/errs27 f_fx_parser*, f_fe_dep*):
# p4c inlines them; checkmate-p4c refused the argument ("directionless parameter must be a
# compile-time constant").  The function's extracts and emits go on in the caller's packet.
CASES.append(case("errs27_packet_functions", CAT, program(
    "        hdr.h.b = meta.m8;\n",
    top="void fx(packet_in p, out ethernet_t e) { p.extract(e); }\n"
        "bit<8> fl(packet_in p) { return p.lookahead<bit<8>>(); }\n"
        "void fa(packet_in p) { p.advance(8); }\n"
        "void fe(packet_out p, in h_t x, in h_t y) { p.emit(y); p.emit(x); }\n",
    parser="    state start {\n        fx(pkt, hdr.eth);\n        transition select(hdr.eth.etype) { 0x1234: pre; default: accept; }\n    }\n"
           "    state pre {\n        meta.m8 = fl(pkt);\n        transition select(meta.m8) { 0xaa: skip; default: parse_h; }\n    }\n"
           "    state skip {\n        fa(pkt);\n        transition parse_h;\n    }\n"
           + parse_h_state() + "\n" + PARSE_H2,
    deparser="        pkt.emit(hdr.eth);\n        fe(pkt, hdr.h, hdr.h2);"),
    frames=VALUES + [(1, H(0xaa, 0xee, 3, 4)), (2, H(0xaa, 1, 2, 3)), (1, H2(5, 6, 7, 8, b=9))]))

# A deparser's local copies and register reads p4c's mid-end removes (/work/errs27 b_db_*, d_dd_*,
# a_dr_*): a local assigned (also from a ?: nothing uses), a register read whose value nothing
# that stays reads (overwritten before a log_msg, read into a dead local, an index of a dead
# read, an out argument of an inlined function); checkmate-p4c refused the assignments.
CASES.append(case("errs27_deparser_dead_locals", CAT, program(
    "        hdr.h.b = 1;\n",
    top="void fo(out bit<8> o, in bit<8> i) { o = i; }\n",
    deparser="        pkt.emit(hdr.eth);\n        bit<8> w;\n        w = hdr.h.a;\n        w = w + 1;\n"
             "        log_msg(\"w={}\", {w});\n        bit<8> m = hdr.h.a == 1 ? 8w1 : 8w2;\n"
             "        bit<8> v;\n        r.read(v, 0);\n        v = 3;\n        log_msg(\"v={}\", {v});\n"
             "        bit<32> i;\n        r2.read(i, 1);\n        bit<8> u;\n        r.read(u, i);\n"
             "        bit<8> z;\n        fo(z, u);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.h2);").replace(
    "control D(packet_out pkt, in headers_t hdr) {",
    "control D(packet_out pkt, in headers_t hdr) {\n    register<bit<8>>(4) r;\n    register<bit<32>>(4) r2;")))

# A function with a value whose single-case switch returns, then `return 4;` (/work/errs27
# h_fn_fn_switch_no_default): p4c 1.2.4.8's mid-end drops the return after the switch
# (elab_common.live_prefix), so for another value its retval is left as BMv2 starts it, 0;
# checkmate-switch's function fell off its end and returned None (the deparser then failed).
CASES.append(case("errs27_function_falls_off_after_a_returning_switch", CAT, program(
    "        hdr.h.b = fs(hdr.h.a);\n        hdr.h.c = (bit<16>)fs(hdr.h.b);\n",
    top="bit<8> fs(in bit<8> a) { switch (a) { 1: { return 2; } } return 4; }\n"),
    frames=[(1, H(1, 9)), (1, H(7, 9)), (2, H(1, 3)), (3, H(0, 0))]))
