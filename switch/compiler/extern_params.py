"""Parameter names of core.p4's and v1model.p4's externs, for calls with named arguments
(``r.write(value = x, index = 1)``, ``counter(type = CounterType.packets, size = 4)``,
``hash(result = h, algo = ..., ...)``).  The elaborator handles these externs by position
(:mod:`.elab_externs`, :mod:`.elab_statements`); :func:`by_position` puts named arguments
into that order first, as p4c matches them against the extern's declaration.
"""
from __future__ import annotations

from .ast import Node
from .elab_common import E

#: extern function -> its overloads' parameter names
FUNCTIONS: dict[str, list[list[str]]] = {
    "random": [["result", "lo", "hi"]],
    "digest": [["receiver", "data"]],
    "mark_to_drop": [[], ["standard_metadata"]],
    "hash": [["result", "algo", "base", "data", "max"]],
    "verify_checksum": [["condition", "data", "checksum", "algo"]],
    "update_checksum": [["condition", "data", "checksum", "algo"]],
    "verify_checksum_with_payload": [["condition", "data", "checksum", "algo"]],
    "update_checksum_with_payload": [["condition", "data", "checksum", "algo"]],
    "clone": [["type", "session"]],
    "clone_preserving_field_list": [["type", "session", "index"]],
    "resubmit_preserving_field_list": [["index"]],
    "recirculate_preserving_field_list": [["index"]],
    "truncate": [["length"]],
    "assert": [["check"]],
    "assume": [["check"]],
    "log_msg": [["msg"], ["msg", "data"]],
    "verify": [["check", "toSignal"]],
}

#: (extern object kind, method) -> overloads
METHODS: dict[tuple[str, str], list[list[str]]] = {
    ("counter", "count"): [["index"]],
    ("meter", "execute_meter"): [["index", "result"]],
    ("direct_meter", "read"): [["result"]],
    ("register", "read"): [["result", "index"]],
    ("register", "write"): [["index", "value"]],
    ("packet_in", "extract"): [["hdr"], ["variableSizeHeader", "variableFieldSizeInBits"]],
    ("packet_in", "advance"): [["sizeInBits"]],
    ("packet_out", "emit"): [["hdr"]],
}

#: package -> its parameters (``V1Switch(p = P(), ig = I(), ...) main;``)
PACKAGES: dict[str, list[list[str]]] = {
    "V1Switch": [["p", "vr", "ig", "eg", "ck", "dep"]],
}

#: extern object kind -> constructor overloads
CONSTRUCTORS: dict[str, list[list[str]]] = {
    "counter": [["size", "type"]],
    "direct_counter": [["type"]],
    "meter": [["size", "type"]],
    "direct_meter": [["type"]],
    "register": [["size"]],
    "action_profile": [["size"]],
    "action_selector": [["algorithm", "size", "outputWidth"]],
}


def by_position(args: list, overloads: list[list[str]] | None, what: str, loc) -> list:
    """``args`` in declaration order when they are named (all or none, as P4-16 requires);
    unchanged when none is named or the callee is not in the tables above."""
    named = [a for a in args if isinstance(a, Node) and a.kind == "named_arg"]
    if not named or overloads is None:
        return args
    if len(named) != len(args):
        raise E(loc, f"{what}: either all arguments are named or none is")
    given = [a.name for a in named]
    if len(set(given)) != len(given):
        dup = next(n for n in given if given.count(n) > 1)
        raise E(loc, f"{what}: argument {dup} given twice")
    for names in overloads:
        if len(names) == len(given) and set(names) == set(given):
            by_name = {a.name: a.value for a in named}
            return [by_name[n] for n in names]
    raise E(loc, f"{what}: no overload takes the arguments {', '.join(given)} "
                 f"(parameters: {' or '.join('(' + ', '.join(o) + ')' for o in overloads)})")


def dontcare_error(loc, what: str, param: str) -> E:
    """The error of ``_`` given for a parameter ``param`` of ``what`` that is not ``out`` (p4c's type
    checker refuses the call, "'r.write'"; errs62 dc_*): the one wording of every call site (the
    v1model/core externs below, user externs in elab_externs, ``pkt.advance`` in elab_packets)."""
    return E(loc, f"'{what}': don't care argument for its parameter {param}, which is not out (p4c: type error)")


def declared_params(decls: list, name: str, method: str | None = None) -> list[list[Node]]:
    """The parameter lists (as parsed: ``.name``, ``.direction``) of every overload of the extern
    function ``name``, or of the method ``method`` of the extern object type ``name``, as the
    program's declarations give them (core.p4's and v1model.p4's among them, as we parse those)."""
    if method is None:
        return [d.params for d in decls if d.kind == "extern_func" and d.name == name]
    return [m.params for d in decls if d.kind == "extern_obj" and d.name == name
            for m in d.methods if m.kind == "method" and m.name == method]


def dontcare_inputs(args: list, overloads: list[list[Node]], what: str) -> None:
    """``_`` given for a parameter that is not ``out`` (``r.write(0, _)``, ``clone(CloneType.I2E,
    _)``, ``random(r, _, 8w5)``, ``pkt.advance(_)``): p4c's type checker refuses the call.
    ``overloads`` are the declared parameter lists (:func:`declared_params`); the one with as many
    parameters as ``args`` (in declaration order: :func:`by_position`) decides, by its directions."""
    params = next((o for o in overloads if len(o) == len(args)), None)
    for p, a in zip(params or (), args):
        if isinstance(a, Node) and a.kind == "dontcare" and p.direction != "out":
            raise dontcare_error(a.loc, what, p.name)
