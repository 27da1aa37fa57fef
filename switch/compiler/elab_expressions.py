"""Expressions and l-values: typing with p4c's width rules (literals adapt, widths must
agree), casts, implicit conversions, list and struct initializers (binary operators: ``elab_binary``).

A mixin of :class:`switch.compiler.elaborate.Elaborator`: ``self`` holds the program-wide
tables (headers, structs, actions, tables, ...) and the current block context ``self.ctx``.
"""
from __future__ import annotations

from .ast import Node
from .elab_common import (BOOL, E, ERROR, expr_text, has_runtime_int, INTLIT, is_bits,
                          newtype_name, pyname, tstr, untagged, wrap)
from .elab_load_refusals import LOOKAHEAD_BOOL as _LOOKAHEAD_WORDS
from .elab_binary import BinaryRules


# p4c 1.2.4.8 ("[--Werror=uninitialized] ... next field read"): `next` is only extracted into
# or made valid, never read (nor is one of its fields written)
NEXT_READ = ("{} is read: the 'next' element of a header stack can only be extracted into or made "
             "valid (p4c: uninitialized, next field read)")


class ExpressionRules(BinaryRules):
    # ---------------------------------------------------------------- expressions
    def check_lvalue(self, n: Node, scope) -> None:
        self.lvalue(n, scope)

    def lvalue(self, n: Node, scope):
        k = n.kind
        if k == "name":
            ent = scope.lookup(n.name)
            if ent is None:
                raise E(n.loc, f"unknown name {n.name}")
            if ent[0] != "var":
                raise E(n.loc, f"{n.name} cannot be assigned")
            if ent[2] == "in" and ent[1]["t"][0] not in ("extern",):
                raise E(n.loc, f"cannot assign to 'in' parameter {n.name} (or any part of it)")
            if ent[1].get("op") == "var":
                self.__dict__.get("enum_var_values", {}).pop(ent[1]["n"], None)   # written: no longer known
            return ent[1], ent[1]["t"]
        if k == "member":
            if n.name == "next":  # written, not read: member_of directly (expr() refuses a read)
                base, bt = self.expr(n.base, scope)
                return self.member_of(base, bt, n)
            if n.name == "last":
                if self.expr(n.base, scope)[1][0] == "stack":
                    # p4c: "Expression hs.last... cannot be the target of an assignment" (also
                    # hs.last.setValid() and an `out` argument): last is read-only
                    raise E(n.loc, f"{expr_text(n)} cannot be the target of an assignment")
                ir, t = self.expr(n, scope)
                return ir, t
            base, bt = self.lvalue(n.base, scope)
            if bt[0] == "stack" and n.name in ("size", "lastIndex"):
                raise E(n.loc, f"{expr_text(n)} cannot be the target of an assignment")
            if bt[0] == "header" and base.get("op") == "stack_next":
                raise E(n.loc, NEXT_READ.format(expr_text(n.base)))
            return self.member_of(base, bt, n)
        if k == "index":
            base, bt = self.lvalue(n.base, scope)
            return self.index_of(base, bt, n, scope)   # a tuple element too (p4c allows t[0] = v)
        if k == "slice":
            base, bt = self.lvalue(n.a, scope)
            ir, t = self.slice_of(base, bt, n, scope)
            return ir, t
        raise E(n.loc, "expression cannot be assigned to")

    def member_of(self, base, bt, n: Node):
        if bt[0] == "header" and (bt[1], n.name) in self.header_views:
            # a struct laid out inside the header: a view whose leaves are the header's fields
            return base, ["hview", bt[1], f"{n.name}__", self.header_views[(bt[1], n.name)]]
        if bt[0] == "hview":
            _, hname, prefix, sname = bt
            for f, ft in self.structs[sname]["fields"]:
                if f == n.name:
                    if ft[0] == "struct" and not self.structs[ft[1]].get("union"):
                        return base, ["hview", hname, f"{prefix}{f}__", ft[1]]
                    return self.member_of(base, ["header", hname],
                                          Node("member", n.loc, base=n.base, name=f"{prefix}{f}"))
            raise E(n.get("name_loc", n.loc), f"struct {sname} has no field {n.name}")
        if bt[0] == "header":
            h = self.headers[bt[1]]
            for f, w, s in h["fields"]:
                if f == n.name:
                    ft = ["varbit", w] if f in h.get("varbits", ()) else self.header_field_type(bt[1], f, w, s)
                    cp = self.field_names.get((bt[1], f))
                    if cp is not None and cp.removeprefix(".") != f:
                        # p4c's JSON names the field by its @name, which its header type does not
                        # have: simple_switch refuses to load it -- as a table key too (helper
                        # corpus16), noted there for the table (table_keys.key_expr)
                        msg = (f"No field '{cp.removeprefix('.')}' can be found in header type '{bt[1]}' (p4c's "
                               f"JSON names {bt[1]}.{f} by its @name; simple_switch refuses the program)")
                        in_key = (getattr(self, "ctx", None) or {}).get("in_key")
                        if in_key is not None:
                            in_key.append((n.loc, msg))
                        else:
                            self.load_refusal(n.loc, msg)
                    return {"op": "field", "base": base, "f": pyname(f), "t": ft}, ft
            raise E(n.get("name_loc", n.loc), f"header {bt[1]} has no field {n.name}")
        if bt[0] == "struct":
            for f, ft in self.structs[bt[1]]["fields"]:
                if f == n.name:
                    return {"op": "field", "base": base, "f": pyname(f), "t": ft}, ft
            if (dropped := self.dropped_varbit_use(bt[1], n, base)) is not None:
                return dropped
            raise E(n.get("name_loc", n.loc), f"struct {bt[1]} has no field {n.name}")
        if bt[0] == "stack":
            ht = self.stack_elem(bt)
            if n.name in ("next", "last") and self.ctx.get("kind") != "parser":
                raise E(n.loc, f"{n.name} of a header stack can only be used in a parser (p4c: "
                               "'last', and 'next' for stacks can only be used in a parser)")
            if n.name == "next":
                return {"op": "stack_next", "st": base, "t": ht, "size": bt[2]}, ht
            if n.name == "last":
                if bt[1] in self.structs:   # (a stack of header unions: p4c's JSON refers to the stack
                    # as a header, which simple_switch refuses; /work/e21 pc c_u_union_stack_last)
                    self.load_refusal(n.loc, f"{expr_text(n)}: 'last' of a stack of header unions (simple_switch: "
                                             "Invalid reference to object of type 'header')")
                return {"op": "stack_last", "st": base, "t": ht, "size": bt[2]}, ht
            if n.name == "lastIndex":
                if self.ctx.get("kind") != "parser":
                    raise E(n.loc, "lastIndex of a header stack can only be used in a parser (p4c rejects it elsewhere)")
                return {"op": "stack_lastindex", "st": base, "t": ["bit", 32]}, ["bit", 32]
            if n.name == "size":
                return {"op": "const", "v": bt[2], "t": ["bit", 32]}, ["bit", 32]
            raise E(n.loc, f"header stack has no member {n.name}")
        raise E(n.get("name_loc", n.loc), f"a value of type {tstr(bt)} has no member {n.name}")

    def header_field_type(self, hname: str, f: str, w: int, signed: bool):
        """The type of a bit<N>/int<N> header field, with its `type` name when it was declared
        with one (``macAddr_t dst;``: ``["bit", 48, "macAddr_t"]``)."""
        t = ["int" if signed else "bit", w]
        nt = self.field_newtypes.get((hname, f))
        return t + [nt] if nt and self.typedefs.get(nt, [None])[0] in ("bit", "int") else t

    def index_of(self, base, bt, n: Node, scope):
        if bt[0] == "list":  # tuple<...> element: a compile-time index
            v = self.fold(self.expr(n.index, scope)[0])
            if v is None or not 0 <= v < len(bt[1]):
                raise E(n.index.loc, f"a tuple index must be a constant in 0..{len(bt[1]) - 1}")
            return {"op": "tuple_idx", "a": base, "i": v, "t": bt[1][v]}, bt[1][v]
        if bt[0] != "stack":
            raise E(n.loc, f"indexing a value of type {tstr(bt)}")
        i_ir, it = self.expr(n.index, scope)
        self.bool_field_operand(i_ir, n.index.loc, "stack index", n.index)
        if not (is_bits(it) or it in (INTLIT,) or it[0] == "serenum"):
            raise E(n.index.loc, f"stack index must be an integer, not {tstr(it)}")
        v = self.fold(i_ir)
        if v is not None and not 0 <= v < bt[2]:
            raise E(n.index.loc, f"index {v} out of bounds for a stack of size {bt[2]}")
        if v is None and it[0] == "serenum":   # p4c: a serializable enum indexes by its value
            i_ir, it = {"op": "cast", "a": i_ir, "t": it[2]}, it[2]
        if v is None and not is_bits(it):
            raise E(n.index.loc, "stack index must be an integer")
        et = self.stack_elem(bt)
        self.runtime_union_index(et, v, n.loc)
        self.refuse_local_union_stack(base, et, n.loc)
        ir = {"op": "stack_idx", "st": base, "i": i_ir if v is None else {"op": "const", "v": v, "t": ["bit", 32]},
              "t": et, "size": bt[2]}
        if v is None:   # (const_index: p4c's constant propagation may prove it out of range)
            self.__dict__.setdefault("dyn_index_locs", {})[id(ir)] = (ir, n.index.loc)
        return ir, et

    def slice_of(self, base, bt, n: Node, scope):
        self.bool_field_operand(base, n.loc, "bit extraction", n.get("a") or n.get("base"))
        if not is_bits(bt) or newtype_name(bt):   # p4c: bit extraction is for bit<>/int<> only
            raise E(n.loc, f"bit slice of a value of type {tstr(bt)}")
        hi = self.const_int(n.hi, "slice bound")
        lo = self.const_int(n.lo, "slice bound")
        t = ["bit", hi - lo + 1]
        if 0 <= lo <= hi and hi >= bt[1] and self.early_constant(n.get("a"), scope) \
                and (v := self.fold(base)) is not None:
            # p4c's first constant folding (before types) folds a slice of a constant -- a
            # literal, a `const`, casts and operators of those -- before the type checker checks
            # its bounds: `K[16:9]` of a `const bit<16> K`, `16w0x1234[20:9]` compile (the
            # constant's bits, zero or sign above its width); a run-time value's, a constructor
            # parameter's or an enum member's is "Bit index 16 greater than width 16" (helper
            # errs21, /work/e21 a_c_const_slice_out_of_range, pe e_sl_*)
            return {"op": "const", "v": (v >> lo) & ((1 << t[1]) - 1), "t": t}, t
        if not (0 <= lo <= hi < bt[1]):
            raise E(n.loc, f"slice [{hi}:{lo}] out of range for {tstr(bt)}")
        return {"op": "slice", "a": base, "hi": hi, "lo": lo, "t": t}, t

    def intlit_to_newtype(self, t, loc) -> None:
        """An untyped integer converts to a `type` declared over ``bit<N>``/``int<N>`` written out
        (``type bit<8> N; N x = 5;``), not to one declared over a typedef's name (``typedef bit<8>
        B; type B N;``): p4c 1.2.4.8 unifies ``int`` with the `type`'s base as written, a type name
        (errs69 probes a/td_type_int_lit, x/t_td_*)."""
        name = newtype_name(t)
        node = self.typedef_nodes.get(name) if name else None
        if node is not None and node.type.kind == "typename":
            raise E(loc, f"'int' type can only be unified with 'int', 'bit<>', or 'signed<>' types, not with "
                         f"'{name}' (p4c: the `type` {name} is declared over the type name {node.type.name})")

    def coerce(self, ir_t, t, loc):
        """Implicit conversion of an expression to type ``t`` (int literals, same types)."""
        ir, et = ir_t
        if et == t == ["bit", 1] and self.is_bool_header_field(ir):
            # p4c types a header field declared bool as bool: no bit<1> value (held in one bit)
            raise E(loc, "type mismatch: expected bit<1>, got bool (a header field declared bool)")
        if et == t or t == ["any"]:
            return ir
        if t == BOOL and et == ["bit", 1] and self.is_bool_header_field(ir):
            return {"op": "cast", "a": ir, "t": BOOL}   # a header field declared bool, read as one
        if et == INTLIT and is_bits(t):
            self.intlit_to_newtype(t, loc)
            v = self.fold(ir)
            if v is None:
                raise E(loc, f"cannot convert an untyped integer expression to {tstr(t)}")
            # p4c 1.2.4.8 wraps a literal that does not fit into bit<N>/int<N> (negative or too
            # large) and only warns ("value does not fit in N bits")
            w = wrap(v, t)
            if w != v:
                sig = "s" if t[0] == "int" else "w"
                if v < 0 and t[0] == "bit":
                    lit = self.neg_literals.get(id(ir))
                    self.warn(lit[1] if lit and lit[0] is ir else loc,
                              f"-{t[1]}{sig}{-v}: negative value with unsigned type")
                else:
                    self.warn(loc, f"{t[1]}{sig}{v}: value does not fit in {t[1]} bits")
            return {"op": "const", "v": w, "t": t, **({"runtime_int": True} if has_runtime_int(ir) else {})}
        if et == INTLIT and t[0] == "serenum":
            # p4c: no implicit conversion to a serializable enum -- an initializer, assignment,
            # argument (an action's too), return value, list or struct field, `?:` arm, `const`
            # (entries and select labels take the underlying type: they do not come here)
            v = self.fold(ir)
            raise E(loc, f"{v if v is not None else 'the value'}: values of type int cannot be implicitly cast "
                         f"to type {t[1]} (p4c; write {t[1]}.<member> or ({t[1]})...)")
        if et[0] == "serenum" and t == et[2]:
            return ir
        if t[0] == "serenum" and et == t[2] and self.enum_of(ir, et) == t[1]:
            return ir   # a header field declared of this enum (held as its bits)
        if et == ["any"]:
            return ir
        if et[0] in ("list", "sinit") and t[0] == "struct" and self.structs[t[1]].get("union"):
            # p4c: a header union takes no list or struct initializer (assign a member instead)
            raise E(loc, f"type mismatch: a {'list' if et[0] == 'list' else 'struct initializer'} "
                         f"cannot become the header union {tstr(t)}")
        if et[0] in ("list", "sinit") and t[0] in ("struct", "header"):
            return self.make_value(ir, et, t, loc)
        if et[0] == "list" and t[0] == "stack" and ir.get("op") == "list":
            return self.stack_from_list(ir, t, loc)
        if et == ["dots"]:
            return self.default_value(t, loc)
        if et == ["invalid_hdr"] and t[0] == "header":
            # p4c 1.2.4.8 infers no type for `{#}` (an initializer, an assignment, an argument,
            # a return value): "Cannot cast implicitly type 'Unknown type'"; only `(h_t){#}` (elab_casts)
            raise E(loc, f"the invalid header {{#}} has no type here: p4c 1.2.4.8 cannot cast implicitly type "
                         f"'Unknown type' to {tstr(t)}; write ({tstr(t)}){{#}}")
        if et[0] == "list" and t[0] == "list" and ir.get("op") == "list" and (
                len(ir["items"]) == len(t[1]) or ir.get("dots") and len(ir["items"]) <= len(t[1])):
            # a list expression as a tuple value: each element converted to its element type
            # (with `...`, the elements not given take their default values)
            items = [self.coerce((it, it["t"]), tt, loc) for it, tt in zip(ir["items"], t[1])]
            items += [self.default_value(tt, loc) for tt in t[1][len(items):]]
            return {"op": "list", "items": items, "t": t}
        if et == ["invalid_hdr"]:
            raise E(loc, f"the invalid header {{#}} cannot become a {tstr(t)} (only a header)")
        if et[0] == "list" and t[0] == "list" and len(et[1]) != len(t[1]):
            raise E(loc, f"type mismatch: expected a tuple of {len(t[1])} elements, got a list of {len(et[1])}")
        got = "bool" if et == ["bit", 1] and self.is_bool_header_field(ir) else tstr(et)   # kept as bit<1>
        raise E(loc, f"type mismatch: expected {tstr(t)}, got {got}")

    def expr(self, n: Node, scope):
        k = n.kind
        if k == "int":
            if n.width is None:
                return {"op": "const", "v": n.value, "t": INTLIT}, INTLIT
            t = ["int" if n.signed else "bit", n.width]
            # (p4c's IR compares a literal's base too: `c ? 4w0x0 : 4w0` is no `c ? x : x`)
            return {"op": "const", "v": n.value, "t": t, **({"base": n.base} if n.get("base") not in (None, 10) else {})}, t
        if k == "bool_lit":
            return {"op": "const", "v": bool(n.value), "t": BOOL}, BOOL
        if k == "str":
            return {"op": "const", "v": n.value, "t": ["string"]}, ["string"]
        if k == "invalid_hdr":  # {#}: an invalid header of whatever header type the context needs
            return {"op": "invalid_hdr", "t": ["invalid_hdr"]}, ["invalid_hdr"]
        if k == "name":
            if n.name == "error":
                raise E(n.loc, "'error' must be followed by .member")
            ent = scope.lookup(n.name) if not n.top else self.global_scope.lookup(n.name)
            if ent is None:
                if n.name in self.enums or n.name in self.typedefs:
                    raise E(n.loc, f"type {n.name} used as a value")
                if n.name in self.match_kinds:   # `a(exact)`: a value of type match_kind (match_kind_value)
                    return self.match_kind_value(n)
                if n.name == "this":
                    raise E(n.loc, "'this' can only be used in the definition of an abstract method (p4c)")
                raise E(n.loc, f"unknown name {n.name}")
            if ent[0] == "var":
                self.note_enum_read(ent[1])   # (past an exit: elab_blocks.enum_member)
                return ent[1], ent[1]["t"]
            if ent[0] == "const":
                if ent[1].get("translation_error"):   # (its type's bad @p4runtime_translation)
                    raise ent[1]["translation_error"]
                return ent[1], ent[1]["t"]
            raise E(n.loc, f"{n.name} is a {ent[0]}, not a value")
        if k == "member":
            b = n.base
            if b.kind == "name" and (b.name == "error" or self.typedefs.get(b.name) == ERROR and scope.lookup(b.name) is None):
                if n.name not in self.errors:   # (`typedef error ER; ER.NoError` too: errs69 en_td_errtd)
                    raise E(n.loc, f"unknown error {n.name}")
                return {"op": "const", "v": self.errors.index(n.name), "t": ERROR}, ERROR
            ename = b.name if b.kind == "name" else None
            if ename in self.typedefs and ename not in self.enums and self.typedefs[ename][0] in ("enum", "serenum"):
                ename = self.typedefs[ename][1]   # (`typedef EN E2; E2.A`: p4c's member of EN; errs69 en_member_typedef)
            if ename in self.enums and scope.lookup(b.name) is None:
                e = self.enums[ename]
                if n.name not in e["members"]:
                    raise E(n.loc, f"enum {b.name} has no member {n.name}")
                if n.name in e.get("unusable", ()):   # (elab_types.declare_enum)
                    raise E(e["unusable"][n.name], f"Could not find type of {b.name}.{n.name}: its value names another "
                                                   "member of the enum (p4c 1.2.4.8: Compiler Bug)")
                t = ["serenum", ename, e["base"]] if e["base"] else ["enum", ename]
                return {"op": "const", "v": e["members"][n.name], "t": t}, t
            if b.kind == "call" and n.name in ("hit", "miss") and b.fn.kind == "member" and \
                    b.fn.name == "apply":
                tname = self.table_ref(b.fn.base, scope, b)
                if self.ctx.get("action_arg"):
                    raise E(b.loc, f"{expr_text(b.fn)}: apply cannot be called from actions (an argument of an "
                                   "action call is evaluated inside the action, p4c)")
                return {"op": "table_hit", "table": tname, "neg": n.name == "miss", "t": BOOL}, BOOL
            if b.kind == "call" and n.name == "action_run":
                raise E(n.loc, "action_run may only be used in a switch statement")
            base, bt = self.expr(b, scope)
            if n.name == "next" and bt[0] == "stack" and bt[1] in self.headers and self.ctx.get("kind") == "parser":
                raise E(n.loc, NEXT_READ.format(expr_text(n)))
            return self.member_of(base, bt, n)
        if k == "index":
            base, bt = self.expr(n.base, scope)
            return self.index_of(base, bt, n, scope)
        if k == "slice":
            base, bt = self.expr(n.a, scope)
            if bt == INTLIT:   # a constant `int`: p4c folds K[7:0] into a bit<8> (two's complement)
                v = self.fold(base)
                if v is None:
                    raise E(n.loc, "bit slice of an untyped integer that is not a compile-time constant")
                hi = self.const_int(n.hi, "slice bound")
                lo = self.const_int(n.lo, "slice bound")
                if not 0 <= lo <= hi:
                    raise E(n.loc, f"slice [{hi}:{lo}] of an integer: bounds must satisfy 0 <= low <= high")
                t = ["bit", hi - lo + 1]
                return {"op": "const", "v": (v >> lo) & ((1 << (hi - lo + 1)) - 1), "t": t}, t
            return self.slice_of(base, bt, n, scope)
        if k == "cast":
            t = self.resolve_type(n.type)
            ir, et = self.expr(n.a, scope)
            return self.cast_expr(n, ir, et, t), t
        if k == "unary":
            ir, t = self.expr(n.a, scope)
            if newtype_name(t):
                raise E(n.loc, f"{n.op}: cannot be applied to a value of type {newtype_name(t)} "
                               f"(cast it to {tstr(untagged(t))} first)")
            if n.op == "!":
                ir = self.coerce((ir, t), BOOL, n.a.loc)
                return {"op": "un", "o": "!", "a": ir, "t": BOOL}, BOOL
            self.bool_field_operand(ir, n.loc, n.op, n.a)
            if t[0] == "serenum":
                if self.fold(ir) is not None:   # p4c's constant folding of -Se.A, ~Se.A, +Se.A (helper errs16)
                    raise E(n.a.loc, f"{expr_text(n.a)}: expected an integer value (p4c: a unary {n.op} on a "
                                     "serializable enum member)")
                t = t[2]
            if n.op == "+":
                if not (is_bits(t) or t == INTLIT):
                    raise E(n.loc, f"unary + on {tstr(t)}")
                return ir, t
            if n.op == "~" and t == INTLIT:
                raise E(n.loc, "~ on an untyped integer needs a width")
            if t[0] == "bit" and n.op == "-" or is_bits(t) or t == INTLIT:
                out = {"op": "un", "o": n.op, "a": ir, "t": t}
                if n.op == "-" and n.a.kind == "int":   # p4c warns about -1 as bit<N> at the literal
                    self.neg_literals[id(out)] = (out, n.a.loc)
                return out, t
            raise E(n.loc, f"operator {n.op} on a value of type {tstr(t)}")
        if k == "binary":
            return self.binary(n, scope)
        if k == "cond":
            c = self.coerce(self.expr(n.cond, scope), BOOL, n.cond.loc)
            arm = self.expr if self.fold_condition(c) is not None else self.conditional_operand
            (a, at), (b, bt) = (self.bool_field_read(x) for x in (arm(n.a, scope), arm(n.b, scope)))
            if at == INTLIT and bt != INTLIT:
                a, at = self.coerce((a, at), bt, n.a.loc), bt
            elif bt == INTLIT and at != INTLIT:
                b, bt = self.coerce((b, bt), at, n.b.loc), at
            elif bt[0] == "list" and at[0] in ("struct", "header"):   # (p4c types a list in the else arm as
                b, bt = self.coerce((b, bt), at, n.b.loc), at   # the then arm; not a named initializer)
            at, bt = self.enum_arms(a, at, b, bt)
            if at != bt:
                raise E(n.loc, f"?: branches have types {tstr(at)} and {tstr(bt)}")
            if at == INTLIT:
                raise E(n.loc, "?: of untyped integers needs a width")
            v = self.fold(c)
            if v is not None:   # folded as p4c does (a table applied in the dead arm is not listed)
                return (a if v else b), at
            return {"op": "cond", "c": c, "a": a, "b": b, "t": at}, at
        if k == "call":
            return self.call_expr(n, scope)
        if k == "list":
            items = [self.expr(i, scope) for i in n.items]
            t = ["list", [it[1] for it in items]]
            ir = {"op": "list", "items": [it[0] for it in items], "t": t}
            if n.get("dots"):
                ir["dots"] = True
            return ir, t
        if k == "struct_init":
            fields = {}
            for fname, fe in n.fields:
                if fname in fields:
                    raise E(fe.loc, f"field {fname} initialized twice")
                fields[fname] = self.expr(fe, scope)[0]
            ir = {"op": "sinit", "fields": fields, "t": ["sinit"]}
            if n.get("dots"):
                ir["dots"] = True
            return ir, ["sinit"]
        if k == "dots":
            return {"op": "dots", "t": ["dots"]}, ["dots"]
        if k == "type_expr":
            raise E(n.loc, "a type cannot be used as a value")
        if k == "dontcare":
            return {"op": "dontcare", "t": ["any"]}, ["any"]
        raise E(n.loc, f"unsupported expression {k}")

    def static_assert(self, n: Node, scope):
        """core.p4's ``static_assert(check[, message])``: evaluated at compile time, an error
        when ``check`` is false (as in p4c), ``true`` otherwise."""
        if len(n.args) not in (1, 2):
            raise E(n.loc, f"static_assert takes 1 or 2 arguments, got {len(n.args)}")
        ir, t = self.expr(n.args[0], scope)
        if t != BOOL:
            raise E(n.args[0].loc, f"static_assert: expected bool, got {tstr(t)}")
        if len(n.args) == 2 and self.expr(n.args[1], scope)[1] != ["string"]:   # (core.p4: `string message`)
            raise E(n.loc, f"static_assert: the message must be a string, got {tstr(self.expr(n.args[1], scope)[1])} "
                           "(p4c: type error)")
        v = self.fold(ir)
        if v is None:
            raise E(n.args[0].loc, "static_assert: the condition is not a compile-time constant")
        if not v:
            msg = n.args[1] if len(n.args) == 2 else None
            text = msg.value if msg is not None and msg.kind == "str" else "static assertion failed"
            raise E(n.loc, f"static_assert failed: {text}")
        return {"op": "const", "v": True, "t": BOOL}, BOOL

    def call_expr(self, n: Node, scope):
        fn = n.fn
        if fn.kind == "member":
            m = fn.name
            if m in ("minSizeInBits", "minSizeInBytes", "maxSizeInBits", "maxSizeInBytes"):
                _, t = self.expr(fn.base, scope) if fn.base.kind != "name" or scope.lookup(fn.base.name) \
                    else (None, self.resolve_type(Node("typename", fn.base.loc, name=fn.base.name, args=[])))
                bits = self.size_in_bits(t, n.loc)
                if m.startswith("max") and t[0] == "struct" and self.structs[t[1]].get("union"):
                    bits = max((self.size_in_bits(ft, n.loc) + self.varbit_max(ft)
                                for _, ft in self.structs[t[1]]["fields"]), default=0)
                elif m.startswith("max"):
                    bits += self.varbit_max(t)
                v = bits if m.endswith("Bits") else bits // 8
                return {"op": "const", "v": v, "t": INTLIT}, INTLIT
            if m == "isValid":
                if n.args:
                    raise E(n.loc, "isValid() takes no arguments")
                ir, t = self.expr(fn.base, scope)
                if t[0] == "struct" and self.structs[t[1]].get("union"):
                    self.refuse_local_union_isvalid(ir, fn.base)
                    return {"op": "uvalid", "u": ir, "t": BOOL,
                            "members": [pyname(f) for f, _ in self.structs[t[1]]["fields"]]}, BOOL
                if t[0] != "header":
                    raise E(fn.loc, f"isValid() on a value of type {tstr(t)}")
                if fn.base.kind == "name" and (scope.lookup(fn.base.name) or ("",))[0] == "const":
                    # (p4c 1.2.4.8 dies: "Compiler Bug: ... typechecking should not infer new types
                    # anymore, but it did"; /work/e21 pa a_c_const_header_isvalid)
                    raise E(n.loc, f"{fn.base.name}.isValid(): Compiler Bug: typechecking should not infer new types "
                                   "anymore, but it did (p4c 1.2.4.8: isValid() of a constant header)")
                return self.isvalid_ir(fn.base, ir), BOOL
            if m == "apply" and fn.base.kind == "name":
                ent = scope.lookup(fn.base.name)
                if ent and ent[0] == "table":
                    raise E(n.loc, "table.apply() as a value: use .hit, .miss or switch(.action_run)")
            bent = scope.lookup(fn.base.name) if fn.base.kind == "name" else None
            if bent and bent[0] == "var" and bent[1]["t"] == ["extern", "packet_in"]:
                if m == "lookahead":
                    if not n.targs:
                        raise E(n.loc, "lookahead needs a type argument: lookahead<T>()")
                    t = self.resolve_type(n.targs[0])
                    if is_bits(t):
                        self.zero_width_lookahead(t, n.loc)
                        return {"op": "lookahead", "bits": t[1], "t": t}, t
                    if t == BOOL:   # p4c: one bit, true when it is 1
                        self.refuse_bool_operand(t, n.loc, "lookahead", _LOOKAHEAD_WORDS)
                        return {"op": "cast", "a": {"op": "lookahead", "bits": 1, "t": ["bit", 1]}, "t": BOOL}, BOOL
                    if t[0] == "enum" and self.enums.get(t[1], {}).get("file") == n.loc.file:
                        # a plain enum of the program: p4c's BMv2 back end makes it bit<32> (its
                        # members 0, 1, ..; /work/e21 pf f_se_lookahead_plain_enum)
                        return {"op": "lookahead", "bits": 32, "t": t}, t
                    if t[0] == "serenum":   # its underlying type's bits (p4c; /work/e21 pc c_v_lookahead_serenum)
                        return {"op": "cast", "a": {"op": "lookahead", "bits": t[2][1], "t": ["bit", t[2][1]]},
                                "t": t}, t
                    if t[0] == "header" and self.headers[t[1]].get("varbit"):
                        raise E(n.loc, f"lookahead<{t[1]}>: the type argument must be a fixed-width type "
                                       "(it has a varbit field)")
                    if t[0] == "header":
                        return {"op": "lookahead_hdr", "hdr": t[1], "t": t}, t
                    if t[0] == "struct" and not self.structs[t[1]].get("union"):
                        return self.lookahead_struct(t, n.loc), t
                    if t[0] == "list":
                        self.tuple_lookahead_error(t, n.loc)
                    raise E(n.loc, f"lookahead of type {tstr(t)}")
                if m == "length":
                    # core.p4 declares it, but p4c's BMv2 back end has no way to compute it
                    raise E(n.loc, f"{expr_text(n.fn)}: not supported on this target "
                                   "(p4c refuses packet_in.length() for BMv2)")
            if bent and bent[0] == "object" and bent[1] == "register" and m == "read":
                # v1model.p4 (as p4c ships it) declares only void read(out T, in I).
                raise E(n.loc, "register.read returns no value in v1model.p4: "
                               "use read(result, index) as a statement")
            if bent and bent[0] == "user_extern":   # (elab_externs.user_extern_call)
                meth = next((x for x in bent[1]["decl"].methods if x.kind == "method" and x.name == m), None)
                return self.user_extern_value(meth.ret if meth is not None else None, bent[1], n, scope, m)
            raise E(n.loc, f"method {m} cannot be used in an expression")
        if fn.kind == "name":
            ent = (self.global_scope if fn.get("top") else scope).lookup(fn.name)   # `.f()`: the top-level f
            if ent is not None and ent[0] in ("function", "generic_fn"):
                return self.call_function(self.resolve_function(ent, n, scope), n, scope)
            if ent is not None and ent[0] == "action":
                raise E(n.loc, f"action {fn.name} used as a value")
            if ent is None and fn.name == "static_assert" and fn.name in self.externs:
                return self.static_assert(n, scope)
            if fn.name in self.externs:   # a user's extern function (p4c_corpus: p4_16_errors/issue532)
                ret = self.externs[fn.name].get("ret")
                rt = self.resolve_type(ret) if isinstance(ret, Node) and ret.kind not in ("void",) and not (
                    ret.kind == "typename" and ret.name in (self.externs[fn.name].get("tparams") or ())) else None
                if rt is not None and rt[0] in ("struct", "header"):
                    raise E(fn.loc, f"{fn.name}: functions or methods returning structures are not supported on this "
                                   "target (p4c)")
                return self.user_extern_value(ret, self.externs[fn.name], n, scope)
            raise E(fn.loc, f"unknown function {fn.name}")
        raise E(n.loc, "unsupported call")
