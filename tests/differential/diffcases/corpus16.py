"""Constructs seen in public v1model programs not measured before (a VXLAN SD-WAN edge, a SwitchML
prototype, HULA/ECMP, DNS responders, VXLAN-GPE INT with source routing: fetched by helper corpus16
for issue #15), each written here as a small program of our own and decided by real p4c 1.2.4.8 /
BMv2 1.15.5.

An action with parameters that a table lists and the apply block also calls directly with constant
arguments (``forward(1);``): p4c's BMv2 JSON holds one copy of the action per use -- the table's
with its parameters, and one without them for each direct call (run by a hidden ``tbl_forward``) --
all under the one P4Info action.  The JSON loader took the last copy's (empty) parameter list as
the control plane's, so checkmate-switch refused every entry of the table on p4c's JSON (a
VXLAN SD-WAN edge's ``traffic_forward``)."""
from .base import H, Entry, case, program

CASES = []

# the direct calls before and after the table's apply, one of them in a branch
CASES.append(case("corpus16_action_called_directly_and_listed_by_a_table", "actions", program(
    ingress_decls="""    action forward(bit<9> port, bit<8> tag) { sm.egress_spec = port; hdr.h.b = tag; }
    table t {
        key = { hdr.h.a: exact; }
        actions = { forward; NoAction; }
        default_action = NoAction();
    }""",
    ingress="""        forward(3, 0x33);
        if (hdr.h.c == 7) { forward(5, 0x55); }
        t.apply();
        if (hdr.h.c == 9) { forward(6, 0x66); }
"""),
    frames=[(1, H(1, 2, 3, 4)), (1, H(2, 2, 3, 4)), (1, H(1, 2, 7, 4)), (1, H(2, 0, 9, 4)), (1, H(1, 0, 9, 4))],
    entries=[Entry("I.t", {"hdr.h.a": 1}, "I.forward", {"port": 2, "tag": 0x22})], json_path=True))
