"""Tables with an action profile or selector whose program gives a default_action (issue #15,
found by fuzz_samples on tests/pipeline/programs/ecmp.p4 with no entries): BMv2 has no default
action for such a table -- p4c warns "Target does not support default_action ... (due to action
profiles)" and leaves it out of the JSON -- so a miss runs nothing, and the frame goes on with what
the control did before (here egress_spec = 1, then the action after the table).  checkmate-p4c used
to run the default_action (a drop, or writes) on the miss.  A `switch` on such a miss's
`action_run` takes no label, not even `default` (BMv2 goes on after the switch): that too on p4c's
JSON (json_path)."""
from .base import VALUES, case, program

CAT = "tables"

_DECLS = """
    action set_b(bit<8> v) { hdr.h.b = v; }
    action drop() { mark_to_drop(sm); }
    action_selector(HashAlgorithm.crc16, 32w16, 32w14) sel;
    table ws { key = { hdr.h.a: exact; hdr.h.c: selector; } actions = { set_b; drop; } implementation = sel;
               default_action = drop(); }
    table prof { key = { hdr.h.a: lpm; } actions = { set_b; NoAction; }
                 @name("prof_ap") implementation = action_profile(32w8); default_action = set_b(0x77); }
"""

CASES = [
    case("lead8_selector_table_default_action_not_run_on_miss", CAT, program(
        "        ws.apply();\n        hdr.h.c = 0x5151;\n", ingress_decls=_DECLS), frames=VALUES, json_path=True),
    case("lead8_profile_table_default_action_not_run_on_miss", CAT, program(
        "        if (!prof.apply().hit) { hdr.h.d = 0x66; }\n"
        "        switch (ws.apply().action_run) { set_b: { hdr.h.a = 1; } default: { hdr.h.a = 2; } }\n",
        ingress_decls=_DECLS), frames=VALUES, json_path=True),
]
