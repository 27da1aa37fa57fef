"""Constructs seen in public v1model programs not measured before (Open Markets Initiative's
generated market-data parsers, a DNS responder, the regression programs of the Gauntlet P4 compiler
fuzzer ... fetched by helper corpus19 for issue #15), each written here as a small program of our
own and decided by real p4c 1.2.4.8 / BMv2 1.15.5.

A table applied inside an argument of a direct action call (nyu-systems/gauntlet's 2288b regression,
``dummy_action(h.eth_hdr.eth_type, (simple_table.apply().hit ? 16w1 : 16w2))`` with ``action
dummy_action(inout bit<16> val1, in bit<16> val2)``): p4c copies the arguments into temporaries
before the call when the action has a parameter with a direction, so the table is applied in the
control and the program compiles; only when every parameter is directionless does p4c inline the
call as it is and refuse it ("apply cannot be called from actions").  checkmate-p4c refused both."""
from .base import H, H2, case, program

CASES = []

# table applies in arguments of actions with an in / inout parameter (accepted by p4c; with an inout
# parameter followed by a directionless one bound to `t.apply().hit`, p4c 1.2.4.8 never finishes)
CASES.append(case("corpus19_table_apply_in_argument_of_action_with_directional_params", "tables", program(
    ingress_decls="""    action a1() { hdr.h.d = hdr.h.d + 32w1; }
    action a2() { hdr.h.d = hdr.h.d + 32w16; }
    table t1 { key = { hdr.h.a: exact; } actions = { a1; NoAction; } const entries = { 1: a1(); } default_action = NoAction(); }
    table t2 { key = { hdr.h.a: exact; } actions = { a2; NoAction; } const entries = { 2: a2(); } default_action = NoAction(); }
    action b(inout bit<8> y, in bit<8> x) { y = y + x; }
    action c(in bool x) { hdr.h.c = x ? 16w5 : 16w6; }
""",
    ingress="""        if (hdr.h.isValid()) {
            b(hdr.h.b, (t1.apply().hit ? 8w1 : 8w2));
            c(t2.apply().miss);
        }
"""), frames=[(1, H(1, 2, 3, 4)), (1, H(2, 3, 4, 5)), (1, H(7, 3, 0, 0)), (1, H(7, 8, 9, 10)), (1, H2(1, 2, 3, 4))],
    json_path=True))
