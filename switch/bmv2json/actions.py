"""BMv2 action primitives (and parser ``primitive`` ops) as IR statements.

An action's ``primitives`` are a straight list in which p4c encodes ``if`` statements
with ``_jump_if_zero`` / ``_jump``; :func:`structure` turns such a list back into nested
``if``/``else`` (the only shape p4c produces: ``_jump_if_zero(c, ELSE)``, then-part,
``_jump(END)``, else-part).  The other primitives map one to one onto the IR's
statements (docs/JSON_format.md of p4lang/behavioral-model lists them; the v1model ones
are in ``targets/simple_switch/primitives.cpp``).
"""
from __future__ import annotations

from ..log_format import bmv2_placeholders
from .model import BOOL, JSON_NOT_OBJECT, LIT, SM_VAR, Bmv2JsonError, Model, cast, const, hexint


class PrimitiveGen:
    """Statements for primitives; ``ids`` resolves extern/digest names (see program.py)."""

    def __init__(self, model: Model, externs):
        self.m = model
        self.ext = externs

    def body(self, prims: list, params: list | None, where: str) -> list:
        return self._region(prims, 0, len(prims), params, where)

    def _region(self, prims, i, end, params, where) -> list:
        out = []
        while i < end:
            p = prims[i]
            op = p.get("op")
            if op == "_jump_if_zero":
                cond, target = p["parameters"][0], hexint(p["parameters"][1]["value"])
                if not i < target <= end:
                    raise Bmv2JsonError(f"{where}: _jump_if_zero to {target} is not a forward jump in the block")
                then_end, after = target, target
                last = prims[target - 1] if target - 1 > i else None
                if last is not None and last.get("op") == "_jump":
                    after = hexint(last["parameters"][0]["value"])
                    if not target <= after <= end:
                        raise Bmv2JsonError(f"{where}: _jump to {after} is not a forward jump in the block")
                    then_end = target - 1
                c = self.m.boolean(self.m.expr(cond, params))
                out.append({"s": "if", "c": c, "then": self._region(prims, i + 1, then_end, params, where),
                            "else": self._region(prims, target, after, params, where)})
                i = after
                continue
            if op == "_jump":
                raise Bmv2JsonError(f"{where}: unstructured _jump at primitive {i}")
            out.extend(self.prim(p, params, where))
            i += 1
        return out

    def _meta_copy(self, a: list, at: str) -> list | None:
        """``assign_header`` between two metadata instances (p4c copies a struct into a
        temporary one, e.g. ``log_msg("{}", {standard_metadata})``): BMv2 copies the fields
        (metadata has no validity); None when either side is a header."""
        m = self.m
        dst, src = _meta_instance(m, a[0]), _meta_instance(m, a[1]) if len(a) > 1 else None
        if dst is None or src is None:
            return None
        dt, st = m.instances[dst]["header_type"], m.instances[src]["header_type"]
        names = [n for n, _w, _s in m.htypes[dt]]
        if names != [n for n, _w, _s in m.htypes[st]]:
            raise Bmv2JsonError(f"{at}: '{dst}' and '{src}' have different fields")
        out = []
        for n in names:
            if dst == "standard_metadata" and n not in m.sm_names:
                continue
            if src == "standard_metadata" and n not in m.sm_names:
                continue  # p4c's _padding: not a field BMv2 keeps apart
            d = m.field(dst, n)
            out.append({"s": "assign", "l": d, "r": cast(m.num(m.field(src, n)), d["t"])})
        return out

    def prim(self, p: dict, params, where: str) -> list:
        m = self.m
        op = p.get("op")
        a = p.get("parameters", [])

        def X(z):
            return m.expr(z, params)
        at = f"{where}: primitive {op!r}"
        _check_parameter_types(a, at)
        if any(i < len(a) and a[i].get("type") in ("header", "header_stack") for i in _NO_HEADER.get(op, ())):
            # p4c passes a struct (`s16_t c; mt.execute_meter(0, c)`, a hash's base) or a union as
            # a header, a stack as a "header_stack" (a hash's result; fuzz_mutants seed 1907):
            # simple_switch loads it and dies executing it (actions.h: "tag == ActionParam::FIELD",
            # "Default switch case should not be reachable"); the packet is dropped there, as
            # checkmate-p4c's build does (elab_object_calls.bmv2_dies)
            return [{"s": "assert", "c": bool_const(False),
                     "where": f"{at}: a header as a field or value (simple_switch dies executing it)"}]
        if any(i < len(a) and _stack_field(a[i]) for i in _HEADER_AT.get(op, ())):
            # `hs.next.setValid()`, `hs.next = x` in a parser state: p4c writes a "stack_field" ["hs",
            # "next"] where the primitive takes a header; simple_switch loads it and dies executing it
            # (actions.h: "Default switch case should not be reachable") -- dropped there, as
            # checkmate-p4c's build does (elab_object_calls.bmv2_dies; helper errs22's open item, opens5)
            return [{"s": "assert", "c": bool_const(False), "not_extern": True,
                     "where": f"{at}: a stack field as a header (simple_switch dies executing it)"}]
        if op == "assign":
            dst, src = X(a[0]), X(a[1])
            if dst["t"][0] in ("header", "stack"):
                return [{"s": "assign", "l": dst, "r": src}]
            return [{"s": "assign", "l": dst, "r": cast(m.num(src), dst["t"])}]
        if op == "assign_VL":
            if any(z.get("type") == "expression" for z in a[:2]):
                # p4c's predicated varbit assignment (`v = c ? w : v`): simple_switch loads it and dies
                # executing it (actions.h: "tag == ActionParam::FIELD"), as checkmate-p4c's build has it
                # (predication.VARBIT_DIES; helper opens5) -- an expression only: a varbit field of the user
                # metadata, which p4c writes as a "header", simple_switch refuses at load (errs23; X refuses it)
                return [{"s": "assert", "c": bool_const(False), "not_extern": True,
                         "where": f"{at}: a varbit value given by an expression (simple_switch dies executing it)"}]
            return [{"s": "assign", "l": X(a[0]), "r": X(a[1])}]
        if op == "assign_header":
            d0 = a[0].get("value") if a[0].get("type") == "expression" else None
            if isinstance(d0, dict) and d0.get("op") == "dereference_header_stack":
                # a whole header stored into a stack element at a run-time index: simple_switch refuses
                # the JSON (simple_switch_grpc dies with SIGSEGV on the first packet), as checkmate-p4c's
                # build refuses it (elab_load_refusals.note_element_store; helper opens6)
                raise Bmv2JsonError(f"{at}: Invalid 'type' in expression: '' (an assign_header into a "
                                    "dereference_header_stack: simple_switch refuses it)")
            meta = self._meta_copy(a, at)
            if meta is not None:
                return meta
            # BMv2 marks a valid copy valid: a union member's siblings become invalid
            dst = X(a[0])
            sib = m.siblings(a[0]["value"]) if a[0].get("type") == "header" else m.header_siblings(dst)
            return [{"s": "assign", "l": dst, "r": X(a[1]), **({"siblings": sib} if sib else {})}]
        if op in ("assign_header_stack", "assign_union_stack"):
            # BMv2: assign_header element by element (an invalid one keeps the destination's
            # fields), nextIndex copied -- the code generator's stack assignment
            return [{"s": "assign", "l": X(a[0]), "r": X(a[1])}]
        if op == "assign_union":  # BMv2: assign_header member by member
            dst, src = m.union_members(a[0]), m.union_members(a[1])
            if [h["t"] for h in dst] != [h["t"] for h in src]:
                raise Bmv2JsonError(f"{at}: the unions have different members")
            return [{"s": "assign", "l": d, "r": r} for d, r in zip(dst, src)]
        if op in ("add_header", "remove_header"):
            h = X(a[0])
            vb = m.varbit.get(h["t"][1])
            nbytes = sum(w for n, w, _ in m.htypes[h["t"][1]] if n != vb) // 8
            sib = []
            if op == "add_header":
                sib = m.siblings(a[0]["value"]) if a[0].get("type") == "header" else m.header_siblings(h)
            return [{"s": "setvalid", "h": h, "v": op == "add_header", "bytes": nbytes, "siblings": sib}]
        if op == "mark_to_drop":
            inst = a[0]["value"] if a else "standard_metadata"
            if inst == "standard_metadata":
                return [{"s": "mark_to_drop", "sm": SM_VAR}]
            # BMv2 sets the fields of the header it is given (p4c passes a copy of
            # standard_metadata when the action takes it as a parameter)
            spec = m.field(inst, "egress_spec")
            return [{"s": "assign", "l": spec, "r": {"op": "drop_port", "t": spec["t"]}},
                    {"s": "assign", "l": m.field(inst, "mcast_grp"), "r": const(0, m.field(inst, "mcast_grp")["t"])}]
        if op == "exit":
            return [{"s": "exit"}]
        if op == "count":
            return [{"s": "counter", "obj": self.ext.py("counter_arrays", a[0]["value"], at), "i": m.num(X(a[1]))}]
        if op == "register_read":
            dst = X(a[0])
            reg = self.ext.register(a[1]["value"], at)
            if dst["t"][0] in ("bit", "int") and dst["t"][1] == reg["width"]:
                # (as checkmate-p4c's: an index out of range writes nothing, the field keeps its value)
                return [{"s": "reg_read", "obj": reg["py"], "l": dst, "i": m.num(X(a[2])), "t": dst["t"]}]
            val = {"op": "reg_read", "obj": reg["py"], "i": m.num(X(a[2])), "t": ["bit", reg["width"]]}
            return [{"s": "assign", "l": dst, "r": cast(val, dst["t"])}]
        if op == "register_write":
            reg = self.ext.register(a[0]["value"], at)
            t = ["bit", reg["width"]]
            return [{"s": "reg_write", "obj": reg["py"], "i": m.num(X(a[1])), "v": cast(m.num(X(a[2])), t), "t": t}]
        if op == "execute_meter":
            dst = X(a[2])
            return [{"s": "meter", "l": dst, "obj": self.ext.py("meter_arrays", a[0]["value"], at),
                     "i": m.num(X(a[1])), "t": dst["t"]}]
        if op == "modify_field_with_hash_based_offset":
            dst = X(a[0])
            algo, data = self.ext.calculation(a[2]["value"], at)
            return [{"s": "hash", "l": dst, "algo": algo, "data": data, "base": m.num(X(a[1])),
                     "max": m.num(X(a[3])), "t": _value_type(dst["t"])}]
        if op == "modify_field_rng_uniform":
            if any(str(z.get("value", "")).startswith("-") for z in a[1:3]):   # p4c's "-0x01" bound of an
                # int<N> random: simple_switch dies executing it, as checkmate-p4c's build has it (errs17)
                return [{"s": "assert", "c": bool_const(False), "where": f"{at}: random with a negative bound "
                         "(simple_switch dies executing it)"}]
            dst = X(a[0])
            return [{"s": "random", "l": dst, "lo": m.num(X(a[1])), "hi": m.num(X(a[2])), "t": _value_type(dst["t"])}]
        if op in ("clone_ingress_pkt_to_egress", "clone_egress_pkt_to_egress"):
            return [{"s": "clone", "session": m.num(X(a[0])), "fl": hexint(a[1]["value"])}]
        if op in ("resubmit", "recirculate"):
            return [{"s": op, "fl": hexint(a[0]["value"])}]
        if op == "generate_digest":
            name, items = self.ext.learn_list(hexint(a[1]["value"]), at)
            return [{"s": "digest", "name": name, "items": items, "late": True}]
        if op == "truncate":
            return [{"s": "truncate", "n": m.num(X(a[0]))}]
        if op in ("assert", "assume"):
            return [{"s": "assert", "c": m.boolean(X(a[0])), "where": where.split(":")[0]}]
        if op == "log_msg":
            msg = a[0].get("value", "")
            items = a[1].get("value", []) if len(a) > 1 else []
            if len(bmv2_placeholders(str(msg))) != len(items):   # simple_switch dies executing it
                return [{"s": "assert", "c": bool_const(False), "where": f"{at}: log_msg with {len(items)} value(s) "
                         f"for {len(bmv2_placeholders(str(msg)))} placeholder(s) (simple_switch dies executing it)"}]
            return [{"s": "log", "msg": str(msg), "data": [m.num(X(z)) for z in items]}]
        if op in ("push", "pop"):
            st = X(a[0])
            if hexint(a[1]["value"]) < 0:   # `pop_front(-2)`: simple_switch dies executing it (a
                # range_error: negative to unsigned), as checkmate-p4c's build has it
                return [{"s": "assert", "c": bool_const(False), "not_extern": True,
                         "where": f"{at}: a negative count (simple_switch dies executing it)"}]
            return [{"s": "push_front" if op == "push" else "pop_front", "st": st, "count": hexint(a[1]["value"]),
                     **({"union": True} if st["t"][1] in m.ustructs else {})}]
        raise Bmv2JsonError(f"{at} is not supported by the BMv2 JSON loader")


# the primitives' parameters BMv2 takes as a field or a value (a header there: it dies executing it)
_NO_HEADER = {"execute_meter": (2,), "register_read": (0,), "modify_field_with_hash_based_offset": (0, 1, 3),
              "modify_field_rng_uniform": (0, 1, 2)}

# the primitives' parameters BMv2 takes as a header (a stack field there: it dies executing it)
_HEADER_AT = {"add_header": (0,), "remove_header": (0,), "assign_header": (0, 1)}


def _stack_field(z: dict) -> bool:
    """Whether a primitive's parameter is a ``stack_field`` (p4c wraps it in an "expression")."""
    v = z.get("value") if z.get("type") == "expression" else z
    return isinstance(v, dict) and v.get("type") == "stack_field"


# BMv2 expression ops whose value is a bool (bm_sim/expressions.cpp): as a primitive's parameter
_BOOL_OPS = {"d2b", "==", "!=", "<", ">", "<=", ">=", "and", "or", "not", "valid", "valid_union"}


def _value_type(t: list) -> list:
    """The type of the value a hash or random writes into a field of type ``t``: a varbit<N> field
    takes a bit<N> value, as checkmate-p4c's build has it (the JSON of fuzz_mutants seed 3209 --
    ``hash(hdr.vb.v, ...)`` -- failed on the first packet)."""
    return ["bit", t[1]] if t[0] == "varbit" else t


def _check_parameter_types(a: list, at: str) -> None:
    """What simple_switch 1.15.5 refuses in a primitive's parameters (P4Objects, actions.cpp): a
    ``bool`` literal ("Parameter type 'bool' not supported") and a bool-valued expression -- p4c
    writes ``d2b(...)`` for a bool result of hash, random or execute_meter, or a bool hash
    maximum -- on which it dies (assertion "Invalid expression type"; helper errs16)."""
    for z in a:
        if not isinstance(z, dict):   # (p4c's assign_header from a list-initialized stack element: errs17)
            raise Bmv2JsonError(f"{at}: a parameter that is no JSON object: {JSON_NOT_OBJECT}")
        if z.get("type") == "bool":
            raise Bmv2JsonError(f"{at}: Parameter type 'bool' not supported")
        v = z.get("value") if z.get("type") == "expression" else None
        if isinstance(v, dict) and v.get("type") == "expression":
            v = v.get("value")
        if isinstance(v, dict) and v.get("op") in _BOOL_OPS:
            raise Bmv2JsonError(f"{at}: a bool-valued expression parameter (simple_switch dies on it: "
                                "Assertion `0 && \"Invalid expression type\"' failed)")


def _meta_instance(m, arg) -> str | None:
    """The metadata instance an ``assign_header`` operand names (``standard_metadata`` too)."""
    if arg.get("type") != "header":
        return None
    inst = m.instances.get(arg.get("value"))
    return arg["value"] if inst is not None and inst.get("metadata") else None


def bool_const(v: bool) -> dict:
    return const(bool(v), BOOL)


__all__ = ["PrimitiveGen", "bool_const", "LIT"]
