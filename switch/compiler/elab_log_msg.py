"""``log_msg(msg)`` / ``log_msg(msg, data)``: p4c's checks and the statement BMv2 runs.

A mixin of :class:`switch.compiler.elaborate.Elaborator` (the call comes from
``ExternRules.extern_call``).  The format BMv2 gets is p4c's (its ``FlattenLogMsg`` rewrite of a
list with a struct, header or union element, switch/log_format.py); when simple_switch would find
another number of ``{}`` in it than there are values, it dies on the first packet that runs the
call, and the build drops that packet with a trace line instead (``bmv2_dies``, as for
``push_front(-1)``).  p4c's BMv2 back end refuses a value that is no bit, bool or error once the
data is flattened: a header stack or varbit element, a union or nested struct given bare.
"""
from __future__ import annotations

from .ast import Node
from .elab_common import E
from ..log_format import bmv2_placeholders, p4c_rewrite

_NOT_INTEGRAL = "log_msg: only integral values supported for logged values (p4c's BMv2 back end)"


class LogMsgRules:
    def log_msg_call(self, call: Node, scope) -> list:
        args, loc = call.args, call.loc
        if len(args) > 2:   # (p4c: no overload matches, "log_msg: declaration not found")
            raise E(loc, f"log_msg takes 1 or 2 argument(s), got {len(args)} (p4c: declaration not found)")
        ent = scope.lookup(args[0].name) if args and args[0].kind == "name" else None
        if ent and ent[0] == "const" and ent[1].get("t") == ["string"]:   # a string constructor parameter
            args = [Node("str", args[0].loc, value=ent[1]["v"])] + list(args[1:])
        if not args or args[0].kind != "str":
            raise E(loc, "log_msg needs a string literal")
        if len(args) > 1 and args[1].kind != "list" and self.expr(args[1], scope)[1][0] not in (
                "struct", "header", "header_union", "list"):   # (a tuple's type is ["list", ..])
            raise E(args[1].loc, "log_msg: the second argument must be a list expression ({...}) or a struct")
        if len(args) > 1 and call.get("targs"):   # log_msg<T>(msg, data)
            self.check_typed_data(self.targ(call, 1, "log_msg")[0], args[1], scope, "log_msg data")
        elif call.get("targs"):
            raise E(loc, "log_msg(msg) takes no type arguments (p4c)")
        fmt = args[0].value
        if len(args) < 2:
            data = []
        elif args[1].kind == "list":
            types = [self.expr(it, scope)[1] for it in args[1].items]
            shapes = [self.log_shape(t) for t in types]
            flat = [t[0] == "header" or t[0] == "struct" and not self.structs[t[1]].get("union") and
                    all(f is None for _, f in sh) for t, sh in zip(types, shapes)]
            if any(s is not None for s in shapes) and not all(flat):
                # p4c 1.2.4.8's FlattenLogMsg gives a scalar element next to a struct, or a nested
                # struct's, no type ("Field 'f1' of 'struct tuple_0' cannot have type 'Unknown type'"),
                # and dies on a union element (Compiler Bug: Could not find type; errs18 probe t3)
                self.target_error(loc, "log_msg: a list with a header or struct element may hold only headers and "
                                       "structs of bit fields (p4c 1.2.4.8: \"Field of 'struct tuple_0' cannot have "
                                       "type 'Unknown type'\")")
            mt = self.__dict__.get("user_meta_type")
            for it, t in zip(args[1].items, types):
                if t == mt and it.kind == "name" and self.expr(it, scope)[0].get("n", "").startswith("p_"):
                    self.load_refusal(it.loc, f"log_msg data holding the user metadata {it.name}: Invalid reference "
                                              f"to object of type 'header' with name '{it.name}' (simple_switch "
                                              "refuses p4c's JSON)")
            data = self.flat_list(args[1], scope, "log_msg data")
            fmt = p4c_rewrite(fmt, shapes)
        else:
            # a struct, header or tuple value (a tuple local, a generic function's T = tuple parameter:
            # it runs on BMv2 -- errs15/16 took "{} {}", one placeholder for BMv2, for a tuple value
            # simple_switch dies on; helper errs18)
            t = self.expr(args[1], scope)[1]
            if any(s is not None for _, s in self.log_shape(t) or ()):
                self.target_error(loc, _NOT_INTEGRAL + ": a struct, header or union member of a value given bare")
            data = self.flat_list(args[1], scope, "log_msg data")
        if any(w is None or isinstance(w, int) and w < 0 for _, w in data) or any(
                (d.get("t") or ["bit"])[0] in ("varbit", "stack") for d, _ in data):
            self.target_error(loc, _NOT_INTEGRAL + ": a varbit or header stack value")
        n = len(bmv2_placeholders(fmt))
        if n != len(data):
            self.warn(loc, f"log_msg: simple_switch reads {n} placeholder(s) in {fmt!r} for {len(data)} value(s) "
                           "and dies executing it (a '{}' that opens the string, and the second of '{}{}', is text)")
            return self.bmv2_dies(loc, f"log_msg with {len(data)} value(s) for {n} placeholder(s)")
        return [{"s": "log", "msg": fmt, "data": [d for d, _ in data]}]

    def log_shape(self, t):
        """p4c's view of one element of a logged list: None for a scalar, else
        ``[(field name, shape), ...]`` (see switch/log_format.py)."""
        if t[0] == "header":
            return [(f, None) for f, _, _ in self.headers[t[1]]["fields"]]
        if t[0] in ("struct", "header_union"):
            return [(f, self.log_shape(ft)) for f, ft in self.structs[t[1]]["fields"]]
        if t[0] == "list":   # (a tuple: a struct of fields f0, f1, ... in p4c's mid end)
            return [(f"f{i}", self.log_shape(et)) for i, et in enumerate(t[1])]
        return None
