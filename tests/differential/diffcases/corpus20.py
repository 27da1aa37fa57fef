"""Constructs seen in public v1model programs not measured before (usi-systems/p4xos-public's P4_16
Paxos roles, NUS-SNL/p4-traffictool's samples, nsg-ethz/SP-PIFO, the Planter in-network ML models
... fetched by helper corpus20 for issue #15), each written here as a small program of our own and
decided by real p4c 1.2.4.8.

Both are about which error p4c names first when a program has several:

* ``Checksum16`` is still declared (deprecated, a warning) in p4c 1.2.4.8's v1model.p4; only its BMv2
  back end refuses an instance ("unknown extern instance", "Only calls to update_checksum ...
  allowed"), so a type error anywhere comes first.  p4xos-public's acceptor.p4 assigns a ``bit<4>``
  port to ``egress_spec`` below a ``Checksum16`` in its checksum controls: p4c names the assignment,
  checkmate-p4c named the instance.
* ``clone3`` / ``resubmit(data)`` / ``recirculate(data)`` in a control's apply block: p4c's JSON
  conversion reports its errors in source order, a control's actions before its body, and the
  deprecated call's error carries no position of the program's (v1model.p4's declaration); p4c names
  ``mark_to_drop()`` in an action above it (p4-traffictool's basic_postcards), checkmate-p4c named the
  ``clone3``.

And one refusal checkmate-p4c missed: a parameter of an extern type with a direction (nsg-ethz/Blink's
flowselector control takes its 14 registers as ``in register<bit<32>> flowselector_key`` ...): p4c
refuses it at the parameter ("a parameter with type register cannot have a direction"), in a block
nothing instantiates too; checkmate-p4c compiled such a control (and, where it was applied, refused
a register method call further down)."""
from .base import program

CASES = []

# name -> (program, words the message must contain (any of)); tests/differential/test_invalid.py
INVALID: dict[str, tuple[str, list[str]]] = {
    "corpus20_type_error_reported_before_checksum16": (program(
        "        hdr.h.b = nope;\n", ingress_decls="    Checksum16() ck;\n"), ("nope",)),
    "corpus20_mark_to_drop_in_action_before_clone3_in_body": (program(
        "        t.apply();\n        clone3(CloneType.I2E, 32w5, meta);\n", ingress_decls="""\
    action d() { mark_to_drop(); }
    table t { key = { hdr.h.a: exact; } actions = { d; NoAction; } default_action = NoAction(); }
"""), ("mark_to_drop() without arguments",)),
    "corpus20_mark_to_drop_in_action_before_resubmit_in_body": (program(
        "        t.apply();\n        resubmit(meta);\n", ingress_decls="""\
    action d() { mark_to_drop(); }
    table t { key = { hdr.h.a: exact; } actions = { d; NoAction; } default_action = NoAction(); }
"""), ("mark_to_drop() without arguments",)),
    "corpus20_register_parameter_with_direction_in_unused_control": (program("", top="""\
control C(inout h_t x, in register<bit<8>> r) { apply { r.write(0, x.a); } }
"""), ("cannot have a direction",)),
    "corpus20_counter_parameter_inout": (program("        C.apply(hdr.h, c);\n", ingress_decls="    counter(4, CounterType.packets) c;\n",
                                                 top="control C(inout h_t x, inout counter cc) { apply { cc.count(1); } }\n"),
                                         ("cannot have a direction",)),
    "corpus20_own_extern_parameter_with_direction": (program("", top="""\
extern MyEx { MyEx(); void f(); }
control C(inout h_t x, out MyEx e) { apply { } }
"""), ("cannot have a direction",)),
}
