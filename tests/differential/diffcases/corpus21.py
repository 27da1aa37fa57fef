"""Constructs seen in public v1model programs not measured before (in-network aggregation, ML
inference and telemetry prototypes: ageapps/in-network-aggregation, keemeew's MALOI, TAPINA-MG and
Approximated-Fair-Queuing, moataz-10/SwitchML, mosaico-anr/p4-int-l4s, fengkeyleaf/inswitch_anomaly,
resulknad/eth-advanced-communication-networks ... fetched by helper corpus21 for issue #15), each
written here as a small program of our own and decided by real p4c 1.2.4.8 / BMv2 1.15.5.

Which error p4c names first (tests/p4c/test_backend_error_order.py checks the lines): p4c's BMv2
JSON conversion converts each control's actions before its apply block, so a target error in the
apply block (``mark_to_drop()`` without arguments) comes after an action's of the same control --
also one a sub-control brings in by inlining (ageapps' IPForward, declared in its own file above
ingress, drops with ``mark_to_drop()``; ingress's body does too, below: p4c names the action's line).
checkmate-p4c raised the body's error at once.

Programs p4c compiles, run on BMv2 (no difference found; kept as regression cases):
mosaico-anr/p4-int-l4s applies a parser *type* from a parser state (``int_parser.apply(packet,
hdr.ipv4.dscp, ..., false)``, no instance) with an ``if`` in the sub-parser's state, and control types
from control bodies, one of them leaving with ``return``; keemeew/TAPINA-MG emits the whole headers
struct (``pkt.emit(hdr)``) and sets a metadata header valid in the parser."""
from .base import H, H2, case, eth, PAYLOAD, program, start_state

CASES = []

# a sub-parser type applied without an instance, with `in` arguments and an `if` in its state
CASES.append(case("corpus21_parser_type_applied_directly", "parsers", program(
    "        hdr.h.d = (bit<32>)meta.m8;\n",
    top="""parser Sub(packet_in p, in bit<8> k, in bool flag, out h_t o, inout meta_t m) {
    state start {
        if (flag) { m.m8 = k + 8w1; } else { m.m8 = k; }
        transition select(k) {
            0xee: more;
            default: accept;
        }
    }
    state more { p.extract(o); transition accept; }
}
""",
    parser=start_state() + """
    state parse_h {
        pkt.extract(hdr.h);
        Sub.apply(pkt, hdr.h.a, hdr.h.b == 8w3, hdr.h2, meta);
        transition accept;
    }""",
    deparser="        pkt.emit(hdr);"), frames=[(1, H(1, 3, 4, 5)), (1, H(7, 2, 0, 0)), (1, H2(1, 2, 3, 4, b=3)),
                                              (1, H2(9, 9, 9, 9)), (1, H(0xee)[:16]), (1, eth(0x0800) + PAYLOAD)]))

# a control type applied without an instance, leaving its apply block with `return`
CASES.append(case("corpus21_control_type_applied_directly_with_return", "language", program(
    "        C.apply(hdr.h, sm);\n        hdr.h.c = hdr.h.c + 16w1;\n",
    top="""control C(inout h_t x, inout standard_metadata_t s) {
    apply {
        if (!x.isValid()) { return; }
        x.b = x.a;
        if (x.a == 8w7) { return; }
        s.egress_spec = 9w3;
    }
}
"""), frames=[(1, H(1, 2, 3, 4)), (2, H(7, 2, 3, 4)), (1, eth(0x0800) + PAYLOAD)]))

# name -> (program, words the message must contain (any of)); tests/differential/test_invalid.py
INVALID: dict[str, tuple[str, list[str]]] = {
    # (p4c names the sub-control's action first: tests/p4c/test_backend_error_order.py)
    "corpus21_mark_to_drop_in_sub_control_action_and_in_body": (program(
        "        if (hdr.h.a == 8w1) { mark_to_drop(); }\n        f.apply(hdr, sm);\n",
        top="""control F(inout headers_t hdr, inout standard_metadata_t sm) {
    action x() { mark_to_drop(); }
    table u { key = { hdr.h.a: exact; } actions = { x; NoAction; } }
    apply { u.apply(); }
}
""", ingress_decls="    F() f;\n"), ("mark_to_drop() without arguments",)),
    # keemeew/TAPINA-MG's generated-rule includes at an absolute path of the authors' machine
    "corpus21_missing_include_in_const_entries": (program(
        "        t.apply();\n", ingress_decls="""    action s(bit<9> p) { sm.egress_spec = p; }
    table t {
        key = { hdr.h.a: exact; }
        actions = { s; NoAction; }
        const entries = {
            #include "/home/nobody/rules/s1_entries.p4"
        }
    }
"""), ("cannot find include file", "No such file")),
}

# a value set of a signed type in a select on a signed key (errs19's sweep program c_t_pvs_int:
# p4c compiles it; checkmate-p4c's check for negative select labels, since errs19, evaluated the
# value set's name as a value and refused the program: "vs is a value_set, not a value")
CASES.append(case("corpus21_signed_value_set_in_select", "parsers", program(
    "        hdr.h.d = 32w7;\n",
    parser="""    value_set<int<8>>(4) vs;
""" + start_state() + """
    state parse_h {
        pkt.extract(hdr.h);
        transition select((int<8>)hdr.h.a) {
            vs: s2;
            8s5: s2;
            default: accept;
        }
    }
    state s2 { hdr.h.c = 16w0x22; transition accept; }"""), frames=[(1, H(1, 2, 3, 4)), (1, H(0xfe, 2, 3, 4)), (1, H(0x80))]))
