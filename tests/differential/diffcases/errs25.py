"""Programs found by helper errs25 (issue #15): an eleventh sweep of probe programs of our own (kept
in /work/errs25, outside the repository: keyword-like names, key ``@name`` forms, V1MODEL_VERSION,
initializer entries, annotations and table properties, const entries, generic structs and
functions, ``type``/``typedef``, serializable enums, unions and stacks, ``switch``, compile-time
evaluation, abstract methods, shadowing, v1model externs, value sets, ``verify``, return/exit),
each decided by real p4c 1.2.4.8 and, for what runs, by simple_switch_grpc.

``CASES``: programs p4c accepts that checkmate-p4c refused.  Positions: tests/p4c/test_errs25.py;
load refusals: tests/p4c/test_errs25_loads.py.
"""
from .base import case, program

CAT = "front end (p4c-compatible)"

CASES = []

# An action named like a control parameter: its body still writes the parameter, called directly
# (checkmate-p4c lost the parameter: "unknown name hdr"; /work/errs25 a_actcall_hdr)
CASES.append(case("errs25_action_named_like_a_control_parameter", CAT, program(
    "        hdr();\n",
    ingress_decls="    action hdr() { hdr.h.b = hdr.h.a + 8w7; }\n")))

# `for` is no keyword of p4c 1.2.4.8: a variable, an action in a table and a function so named
# (checkmate-p4c: "expected a variable name, found 'for'"; n_*_for); `list` names a local (n_localdecl_list)
CASES.append(case("errs25_names_for_and_list", CAT, program(
    "        bit<8> for = hdr.h.a;\n        bit<8> list = 8w3;\n        hdr.h.b = for + f();\n        t.apply();\n",
    top="bit<8> f() { return 8w1; }\n",
    ingress_decls="    action for() { hdr.h.c = 16w0xabcd; }\n"
                  "    table t { key = { hdr.h.a: exact; } actions = { for; NoAction; } default_action = for(); }\n")))

