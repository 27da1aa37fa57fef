"""Constructs seen in public v1model programs not measured before (SwitchML/ATP aggregation labs,
sketches and heavy-hitter detectors, a DDoS defence, a Zigbee gateway, telemetry-driven throttling
... fetched by helper corpus18 for issue #15), each written here as a small program of our own and
decided by real p4c 1.2.4.8 / BMv2 1.15.5.

A backslash followed by blanks before the end of a line (hotephen/p4-dev's fastest-k.p4 continues
a 25-line ``#define ACCUMULATE_SIGN()`` through a ``\\ `` line): cpp splices the lines anyway (gcc
warns "backslash and newline separated by space") and p4c compiles the program; checkmate-p4c's
preprocessor ended the macro there and refused the next line ("unexpected character '\\'")."""
from .base import H, H2, case, program

CAT = "front end (p4c-compatible)"
CASES = []

# a #define continued through a line that ends in `\` + blanks (a space, a tab), and a plain code
# line ending so (cpp splices it with the next one)
CASES.append(case("corpus18_line_continuation_before_blanks", CAT, program(
    top="#define SETBC(v) hdr.h.b = v; \\ \t\n    hdr.h.c = (bit<16>)v + 16w1; \\  \n    hdr.h.d = 32w9\n",
    ingress="""        if (hdr.h.isValid()) {
            SETBC(8w7);
            hdr.h2.a = hdr.h.a; \\ 
            hdr.h2.b = 8w3;
        }
"""), frames=[(1, H(1, 2, 3, 4)), (1, H2(9, 8, 7, 6))], json_path=True))

# a `//` comment ending in `\` (and in `\` + blanks): cpp splices before it removes comments, so
# the next line is part of the comment and gone
CASES.append(case("corpus18_line_comment_continued_by_backslash", CAT, program(
    ingress="""        if (hdr.h.isValid()) {
            // a comment ending in a backslash \\
            hdr.h.a = 8w1;
            hdr.h.b = 8w2; // another one \\ \t
            hdr.h.b = 8w3;
            hdr.h.c = 16w4; /* a block comment */ \\
            hdr.h.d = 32w5;
        }
"""), frames=[(1, H(1, 2, 3, 4)), (1, H2(9, 8, 7, 6))], json_path=True))

# a backslash-newline inside a token: cpp joins the two parts with nothing between them (a width
# prefix and its value, a name, a macro body's number)
CASES.append(case("corpus18_line_continuation_inside_a_token", CAT, program(
    top="#define TWELVE 1\\\n2\n",
    ingress="""        if (hdr.h.isValid()) {
            hdr.h.b = 8w\\
7;
            hd\\
r.h.c = TWELVE;
            hdr.h.d = 32w1\\
0;
        }
"""), frames=[(1, H(1, 2, 3, 4)), (1, H2(9, 8, 7, 6))], json_path=True))

# resubmit(data), recirculate(data) and clone3(...) in actions nothing uses (hotephen/p4-dev's
# basic_monitor_p416.p4 keeps `action loopback() { resubmit(meta); }` in no table): p4c only warns
# (deprecated) and its BMv2 back end refuses the call only where it survives, so the program
# compiles; checkmate-p4c refused it at the call
CASES.append(case("corpus18_unused_actions_call_deprecated_resubmit_recirculate_clone3", "externs", program(
    ingress_decls="""    action loopback() { resubmit(meta); }
    action again() { recirculate(hdr.h); }
    action copy() { clone3(CloneType.I2E, 32w5, meta); }
    action fwd(bit<9> p) { sm.egress_spec = p; hdr.h.b = 8w0x42; }
    table t { key = { hdr.h.a: exact; } actions = { fwd; NoAction; } const entries = { 1: fwd(2); } default_action = NoAction(); }
""",
    ingress="""        if (hdr.h.isValid()) {
            t.apply();
        }
"""), frames=[(1, H(1, 2, 3, 4)), (1, H(5, 6, 7, 8))], json_path=True))

_DIRECT = """control C(inout headers_t hdr) {
%s    apply { %s }
}
"""

# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}

INVALID: dict[str, tuple[str, list[str]]] = {
    # the same calls where they survive: an action a table lists (p4c's back end: "resubmit: unknown
    # extern function"), a control body, a reachable parser state is no place for them anyway
    "corpus18_deprecated_resubmit_in_a_used_action": (program("        t.apply();\n", ingress_decls="""\
    action loopback() { resubmit(meta); }
    table t { key = { hdr.h.a: exact; } actions = { loopback; NoAction; } default_action = NoAction(); }
"""), ("resubmit",)),
    "corpus18_deprecated_recirculate_in_egress_body": (program("", egress="        recirculate(hdr.h);\n"), ("recirculate",)),
    "corpus18_deprecated_clone3_in_a_default_action": (program("        t.apply();\n", ingress_decls="""\
    action copy() { clone3(CloneType.I2E, 32w5, meta); }
    table t { actions = { copy; } default_action = copy(); }
"""), ("clone3",)),
    # ... and a type error elsewhere comes first (p4c reports the back end's refusal after type
    # checking): the undeclared name, not the resubmit before it
    # a control type applied directly (`C.apply(...)`) twice in one block (pgm-n117/p4-int applies
    # its port-counter controls by type name, once each): p4c makes an instance per application, all
    # named I.C, so a register (even an unused one), a counter or an applied table in C is listed
    # twice ("Name 'I.C.r' is used for multiple register objects in the P4Info message");
    # checkmate-p4c ran one instance for both and compiled the program
    "corpus18_direct_application_twice_unused_register": (program("        C.apply(hdr);\n        C.apply(hdr);\n", top=_DIRECT % (
        "    register<bit<8>>(4) r;\n", "hdr.h.b = hdr.h.b + 1;")), ("I.C.r",)),
    "corpus18_direct_application_in_both_branches_table": (program(
        "        if (hdr.h.a == 1) { C.apply(hdr); } else { C.apply(hdr); }\n", top=_DIRECT % (
            "    action bump() { hdr.h.b = hdr.h.b + 1; }\n"
            "    table t { key = { hdr.h.a: exact; } actions = { bump; NoAction; } default_action = bump(); }\n", "t.apply();")),
        ("I.C.t",)),
    "corpus18_direct_application_in_both_branches_counter": (program(
        "        if (hdr.h.a == 1) { C.apply(hdr); } else { C.apply(hdr); }\n", top=_DIRECT % (
            "    counter(4, CounterType.packets) c;\n", "c.count(0);")), ("I.C.c",)),
    # ... and a sub-parser applied directly twice whose select uses a value set ("Name 'P.Sub.vs' is used
    # for multiple value set objects")
    "corpus18_direct_application_twice_subparser_value_set": (program("", top="""parser Sub(packet_in pkt, out h_t x) {
    value_set<bit<8>>(4) vs;
    state start { pkt.extract(x); transition select(x.a) { vs: accept; default: accept; } }
}
""", parser="""    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) { 0x1234: two; default: accept; }
    }
    state two { Sub.apply(pkt, hdr.h); Sub.apply(pkt, hdr.h2); transition accept; }"""), ("P.Sub.vs",)),
    "corpus18_type_error_reported_before_deprecated_resubmit": (program("        t.apply();\n        hdr.h.b = nope;\n", ingress_decls="""\
    action loopback() { resubmit(meta); }
    table t { key = { hdr.h.a: exact; } actions = { loopback; NoAction; } default_action = NoAction(); }
"""), ("nope",)),
}
