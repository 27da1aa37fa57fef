"""Found by helper uvact49 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5."""
from .base import case, program
from .fuzz28 import _HC, _HC_FR, CAT

CASES = []
_SW = "        switch (hdr.h.a) { 6: { exit; } }\n"
_DECLS = """\
    action a(inout e_t q) { q.x = q.x + 1; }
    action b(inout bit<8> v) { v = v + 1; }
    action c(out bit<8> v) { v = 9; }
    table t { actions = { a(hdr.s[2]); } default_action = a(hdr.s[2]); }
"""

# fuzz_exprs seed 19768 (reduced by helper copy48): in the flow p4c's front-end SimplifyDefUse does not visit
# (after a single-case switch whose case exits) the parameter temporaries RemoveActionParameters made of an
# action only that flow calls (`q_0`) are control locals read only there: their stores go (the copy-in
# `q_0 = hdr.s[2]` and the body's) and the copy-out writes the never-assigned temporary -- on BMv2 s[2] is
# invalid (header) or x is 0 (scalar); an action also called in the visited flow keeps them (the guard).
for _name, _body in [
        ("a_header_inout_parameter", "        a(hdr.s[2]);\n"),
        ("a_scalar_inout_parameter", "        b(hdr.s[2].x);\n"),
        ("an_out_parameter", "        c(hdr.s[2].x);\n"),
        ("a_table_default_action", "        t.apply();\n"),
        ("an_action_also_called_before_the_switch", None)]:
    # (p4c gives each call site its own copy of the action: the one before the switch keeps its stores)
    _src = _SW + _body if _body is not None else "        b(hdr.s[1].x);\n" + _SW + "        b(hdr.s[2].x);\n"
    CASES.append(case(f"uvact49_unvisited_action_copy_out_of_{_name}", CAT,
                      program(_src, ingress_decls=_DECLS, **_HC), frames=_HC_FR))

# guards: the flow joins again after an `if` around the switch, so a call there is visited and keeps its stores
for _name, _body in [("a_call", "        a(hdr.s[2]);\n"), ("a_table", "        t.apply();\n")]:
    CASES.append(case(f"uvact49_visited_action_copy_out_after_a_join_guard_{_name}", CAT,
                      program("        if (hdr.h.b == 1) {\n    " + _SW + "        }\n" + _body, ingress_decls=_DECLS, **_HC),
                      frames=_HC_FR))


# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
