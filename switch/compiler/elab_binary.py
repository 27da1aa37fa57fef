"""Binary operators: p4c's width and type rules for arithmetic, comparison, shifts, concatenation
and logic, constant folding, and p4c's strength reduction that settles divisions by zero inside
an operand it reduces away (``x / 10 * 0``).

A mixin of :class:`switch.compiler.elaborate.Elaborator` (through ``ExpressionRules``): ``self``
holds the program-wide tables and the current block context ``self.ctx``.
"""
from __future__ import annotations

from .ast import Node
from .elab_common import (eval_bin, BOOL, E, has_enum_cast_cmp, expr_text, has_call, has_runtime_int, INTLIT, ir_dicts,
                          is_bits, newtype_name, tstr, unify_lists, untagged, wrap)
from .elab_types import P4C_MAX_WIDTH
from .header_init import reduced_value


class BinaryRules:
    def binary(self, n: Node, scope):
        op = n.op
        if op in ("*", "&") and not _calls(n.a) and not _calls(n.b):
            # `x / 10 * 0`, `(x / 3) * (y - y)`: p4c's strength reduction makes it 0 before its BMv2
            # back end judges the division in it (corpus14's open item): the divisions of an
            # operand wait for the other one, and go if it is 0
            (a, at), held = self.reduced_away(n.a, scope)
            if (is_bits(at) or at == INTLIT) and _is_zero(self.fold(a), a):
                (b, bt), held_b = self.reduced_away(n.b, scope)   # `0 * (x / 10)`
                self.settle_divisions(held_b, True)
                self.settle_divisions(held, False)
                return self.binary_tail(n, scope, op, a, at, b, bt)
            (b, bt), held_b = self.reduced_away(n.b, scope)   # (its divisions judged after a's)
            self.settle_divisions(held, _is_zero(self.fold(b), b))
            self.settle_divisions(held_b, False)
            return self.binary_tail(n, scope, op, a, at, b, bt)
        a, at = self.expr(n.a, scope)
        return self.binary_tail(n, scope, op, a, at, None, None)

    def reduced_away(self, n: Node, scope):
        """An operand p4c's strength reduction may remove (``e * 0``, ``e & 0``): elaborated as
        ever, its divisions' target errors held (mk_stores.division_error) for
        :meth:`settle_divisions`.  Returns ``(ir, type), held``."""
        ctx = getattr(self, "ctx", None)
        if ctx is None:
            return self.expr(n, scope), []
        saved, held = ctx.get("reduced_away"), []
        ctx["reduced_away"] = held
        try:
            return self.expr(n, scope), held
        finally:
            ctx["reduced_away"] = saved

    def settle_divisions(self, held: list, removed: bool) -> None:
        """The divisions :meth:`reduced_away` held: gone with their operand (``removed``), else
        judged as any other (in the enclosing context)."""
        for loc, message, deferred in held:
            if removed:
                if deferred is not None:
                    (self.__dict__.get("pending_divs") or {}).pop(id(deferred), None)
            else:
                self.division_error(loc, message, deferred)

    def binary_tail(self, n: Node, scope, op, a, at, b, bt):
        fa = self.fold(a) if op in ("&&", "||") and at == BOOL and not has_enum_cast_cmp(a) else None
        if fa is not None and bool(fa) == (op == "||"):   # `false && X`, `true || X`: X folded away
            return self.dead_operand(n.b, scope, bool(fa))
        cond = op in ("&&", "||") and at == BOOL and self.fold_condition(a) is None
        if b is None:
            b, bt = self.conditional_operand(n.b, scope) if cond else self.expr(n.b, scope)
        for side, ir, st in ((n.a, a, at), (n.b, b, bt)):
            if st == ["match_kind"]:
                self.match_kind_operand(side, ir, op)
        if at[0] == "serenum" and op in ("==", "!="):
            at = at[2] if bt[0] != "serenum" else at
        if bt[0] == "serenum" and op in ("==", "!=") and at[0] != "serenum":
            bt = bt[2]
        if at[0] == bt[0] == "serenum" and at != bt and at[2] == bt[2] and op in ("==", "!="):
            if self.fold(a) is not None and self.fold(b) is not None:
                # p4c's constant folder dies on two constants of different enums
                raise E(n.loc, f"{op}: different enum types in comparison ({at[1]} and {bt[1]}; p4c: Compiler Bug)")
            at, bt = at[2], bt[2]   # two enums over one type: p4c compares their values
        for side, st in ((n.a, at), (n.b, bt)):
            nt = newtype_name(st)
            if nt and (op not in ("==", "!=") or INTLIT in (at, bt)):
                # p4c: a `type` value is only compared (with ==/!=) to a value of the same type
                raise E(side.loc, f"{op}: cannot be applied to a value of type {nt} "
                                  f"(cast it to {tstr(untagged(st))} first)")
        if op in ("<<", ">>") and b.get("op") == "field" and self.is_bool_header_field(b):
            # p4c's type checker takes a bool shift amount; its BMv2 back end dies on it naming the
            # field's declaration ("Compiler Bug: bool: expected a bit<> type"; mutz19's `far`)
            floc = self.__dict__.get("bool_field_locs", {}).get((b["base"]["t"][1], b["f"]), n.b.loc)
            self.target_error(floc, f"{op} by '{expr_text(n.b)}', a header field declared bool (p4c: Compiler "
                                    "Bug: bool: expected a bit<> type)")
            self.bool_field_operand(a, n.loc, op, n.a)
        elif op not in ("&&", "||", "==", "!="):
            self.bool_field_operand(a, n.loc, op, n.a)
            self.bool_field_operand(b, n.loc, op, n.b)
        if op in ("&&", "||"):
            a = self.coerce((a, at), BOOL, n.a.loc)
            b = self.coerce((b, bt), BOOL, n.b.loc)
            return {"op": "bin", "o": op, "a": a, "b": b, "t": BOOL}, BOOL
        if op == "++":
            at, bt = (at[2] if at[0] == "serenum" else at), (bt[2] if bt[0] == "serenum" else bt)
            if at == INTLIT or bt == INTLIT:
                raise E(n.loc, "operands of ++ need a width")
            if not (is_bits(at) and is_bits(bt)):
                raise E(n.loc, f"++ on {tstr(at)} and {tstr(bt)}")
            t = [at[0], at[1] + bt[1]]
            va, vb = self.fold(a), self.fold(b)
            if va is not None and vb is not None:   # folded as p4c does (_eval_bin: a negative b)
                return {"op": "const", "v": eval_bin("++", va, vb, at, t), "t": t}, t
            if bt[0] == "int" and self.ctx.get("loop_consts") and self.loop_constant(a) and self.loop_constant(b):
                # constant for p4c's midend, which folds it the same way: the runtime does that
                # where the (signed) right operand is negative (fuzz_exprs seed 10852)
                return {"op": "bin", "o": "++", "a": a, "b": b, "t": t, "p4c_fold": True}, t
            return {"op": "bin", "o": "++", "a": a, "b": b, "t": t}, t
        if op in ("<<", ">>"):
            at, bt = self.serenum_shift_operands(n, op, a, at, b, bt)
            if not (is_bits(at) or at == INTLIT) or not (is_bits(bt) or bt == INTLIT):
                raise E(n.loc, f"{op} needs integer operands, not {tstr(at)} and {tstr(bt)}")
            if bt[0] == "int":
                v = self.fold(b)
                if v is None or v < 0:   # p4c takes a signed compile-time constant >= 0 (e.g. 8s1)
                    raise E(n.b.loc, "shift amount must be unsigned")
                b, bt = {"op": "const", "v": v, "t": ["bit", bt[1]]}, ["bit", bt[1]]
            if bt == INTLIT and (self.fold(b) or 0) < 0:
                raise E(n.b.loc, f"shift by a negative amount ({self.fold(b)}) is not permitted")
            if at == INTLIT and bt != INTLIT:
                raise E(n.a.loc, "left operand of a shift by a non-constant needs a width")
            amount = self.fold(b)
            if at == INTLIT and amount is not None and amount > P4C_MAX_WIDTH:
                # p4c's constant folder shifts an untyped integer by at most 2048 (issue2496)
                raise E(n.loc, f"{expr_text(n.a)} {op} {expr_text(n.b)}: Compiler only supports widths up to {P4C_MAX_WIDTH} "
                               "(shift of an untyped integer)")
            if amount is not None and amount > 256 and self.fold(a) is None:
                # p4c's BMv2 back end: "shift amount limited to 256 on this target"
                self.target_error(n.b.loc, f"{op} {amount}: shift amount limited to 256 on this target")
            res = {"op": "bin", "o": op, "a": a, "b": b, "t": at}
            if is_bits(bt) and bt[1] > 8 and self.fold(a) != 0 and (self.fold(a) is None or self.fold(b) is None):
                # p4c's BMv2 back end, for code that survives: an unused action is dropped first,
                # a constant shifted (`16w0 >> f(x)`) is folded first -- also by its mid end's
                # constant propagation (a single-case switch's copies: fuzz_mutants seed 6376, helper
                # mutz59), decided when the body is done as a division's (const_index.defer_division)
                msg = f"shift amount limited to 8 bits on this target (p4c/BMv2), this one is {tstr(bt)}"
                deferred = not self.ctx.get("in_action") and self.ctx.get("kind") in ("control", "parser") and \
                    not has_runtime_int(res) and not has_call(res) and self.defer_division(res, n.b.loc, msg)
                self.division_error(n.b.loc, msg, res if deferred else None)
            return res, at
        if op in ("==", "!=") and at[0] in ("struct", "header") and bt[0] in ("list", "sinit"):
            b, bt = self.make_value(b, bt, at, n.b.loc), at
        elif op in ("==", "!=") and bt[0] in ("struct", "header") and at[0] in ("list", "sinit"):
            a, at = self.make_value(a, at, bt, n.a.loc), bt
        if op in ("==", "!=") and at in (["bit", 1], INTLIT) and bt in (["bit", 1], INTLIT) and \
                self.is_bool_header_field(a) != self.is_bool_header_field(b):
            # a field declared bool (held in one bit) compares with a bool only (p4c)
            raise E(n.loc, "a bool header field cannot be compared with a bit<1> value")
        if op in ("==", "!=") and at == ["bit", 1] and bt == BOOL and self.is_bool_header_field(a):
            a, at = {"op": "cast", "a": a, "t": BOOL}, BOOL   # `h.flag == true`: the field read as a bool
        elif op in ("==", "!=") and bt == ["bit", 1] and at == BOOL and self.is_bool_header_field(b):
            b, bt = {"op": "cast", "a": b, "t": BOOL}, BOOL
        if op in ("==", "!="):
            if at == INTLIT and bt != INTLIT:
                a, at = self.coerce((a, at), bt, n.a.loc), bt
            elif bt == INTLIT and at != INTLIT:
                b, bt = self.coerce((b, bt), at, n.b.loc), at
            if at != bt and at[0] == bt[0] == "list" and len(at[1]) == len(bt[1]):
                # { hdr.h.a, 1 } == { 8w1, 8w2 }: an untyped literal takes the type of the
                # element it is compared with (p4c unifies the two tuple types)
                u = unify_lists(at, bt)
                a, at = self.coerce((a, at), u, n.a.loc), u
                b, bt = self.coerce((b, bt), u, n.b.loc), u
            if at != bt:
                raise E(n.loc, f"cannot compare {tstr(at)} and {tstr(bt)}")
            if at == ["string"]:   # (a string constructor parameter; /work/e21 pe e_str_ctor_compare)
                self.load_refusal(n.loc, "a comparison of strings: p4c writes it into the JSON, "
                                         "which simple_switch cannot load (Invalid 'type' in expression: 'string')")
            if at[0] == "varbit":
                # equal = the same value, whatever the two current lengths (BMv2 compares values)
                if a["op"] != "field" or b["op"] != "field":
                    raise E(n.loc, "varbit values can only be compared as header fields")
                return {"op": "varbit_eq", "a": a, "b": b, "neg": op == "!=", "t": BOOL}, BOOL
            if at[0] == "list" and not all(is_bits(x) or x == INTLIT or x[0] in ("bool", "serenum", "enum", "error", "list")
                                           for x in _leaves(at)):
                raise E(n.loc, f"comparison of {tstr(at)} values is not supported")
            return {"op": "bin", "o": op, "a": a, "b": b, "t": BOOL}, BOOL
        # arithmetic / bitwise / ordering (a serializable enum takes part as its underlying type)
        if at[0] == "serenum":
            at = at[2]
        if bt[0] == "serenum":
            bt = bt[2]
        if at == INTLIT and bt != INTLIT:
            a, at = self.coerce((a, at), bt, n.a.loc), bt
        elif bt == INTLIT and at != INTLIT:
            b, bt = self.coerce((b, bt), at, n.b.loc), at
        if at != bt:
            raise E(n.loc, f"width mismatch: {tstr(at)} {op} {tstr(bt)}")
        if not (is_bits(at) or at == INTLIT):
            raise E(n.loc, f"operator {op} on values of type {tstr(at)}")
        if op in ("/", "%") and at[0] == "int":
            va, vb = self.fold(a), self.fold(b)
            if va is None or vb is None:
                raise E(n.loc, f"operator {op} is not defined on signed int<{at[1]}>")
            # two constants: p4c folds them before it checks types (`8s7 / 8s2` is 3)
            if va < 0 or vb < 0:
                raise E(n.loc, f"operator {op} is not defined for negative numbers (p4c)")
            if vb == 0:
                raise E(n.b.loc, f"operator {op}: division by zero")
            return {"op": "const", "v": va // vb if op == "/" else va % vb, "t": at}, at
        if op in ("/", "%") and at == INTLIT and any((self.fold(v) or 0) < 0 for v in (a, b)):
            raise E(n.loc, f"operator {op} is not defined for negative numbers (p4c)")
        if op in ("<", ">", "<=", ">="):
            return {"op": "bin", "o": op, "a": a, "b": b, "t": BOOL}, BOOL
        if op in ("|+|", "|-|") and at == INTLIT:
            raise E(n.loc, f"{op} needs operands with a width")
        ctx = getattr(self, "ctx", None) or {}
        if op in ("/", "%") and self.fold(b) == 0 and not (
                (ctx.get("folded_branch") or ctx.get("dead_expr")) and self.fold(a) is None):
            # p4c: "Division by zero" -- in a branch or operand it folds away, only between two
            # constants (its constant folding; `x / 0` there is no error: helper mutz29)
            raise E(n.b.loc, f"operator {op}: division by zero")
        res = {"op": "bin", "o": op, "a": a, "b": b, "t": at}
        if op in ("/", "%") and at != INTLIT and not has_runtime_int(res) and self.fold(res) is None:
            # p4c's strength reduction and constant folding make it a constant before its BMv2
            # back end judges the division (seclabBupt's `count * (W/THETA + 1/EPSILON_INVERSE) /
            # K`: `x * 0 / 10`; `0 / x`; `(x * 0 - 1) / 10`) -- with a divisor they make 0, a
            # division by zero (`0 / (x * 0)`)
            if reduced_value(b) == 0 and not (ctx.get("folded_branch") or ctx.get("dead_expr")):
                raise E(n.b.loc, f"operator {op}: division by zero")
            if (v := reduced_value(res)) is not None and not isinstance(v, bool):
                return {"op": "const", "v": v, "t": at}, at
        if op in ("/", "%") and at != INTLIT and (self.fold(res) is None or has_runtime_int(b)):
            d = None if has_runtime_int(b) else self.fold(b)
            inner = b["a"] if b.get("op") == "cast" else b
            if d is None and inner.get("op") in ("call_fn", "call_fn_out"):
                d = self.constant_result(inner["fn"])   # p4c inlines the function first
                if d is not None and inner is not b:
                    d = wrap(d, b["t"])
            if d is None or d <= 0 or d & (d - 1):
                # p4c's bmv2 backend turns / and % by a power of two into shifts and masks
                # and rejects every other division it cannot evaluate at compile time (in code it
                # keeps: not in an unused action or function, nor an unapplied sub-control) --
                # after its midend's constant propagation, which may make the dividend constant
                # (const_index.defer_division: decided when the body is done)
                msg = (f"operator {op}: the divisor must be a compile-time power of two "
                       "(p4c for BMv2 cannot evaluate any other division at run time)")
                # (a divisor that is a local's read: p4c's constant propagation may make it a
                # power of two -- `bit<8> d = 4; x = y / d;` -- decided the same way)
                local_div = d is None and not self.ctx.get("in_action") and self.ctx.get("kind") in ("control", "parser") \
                    and {x.get("op") for x in ir_dicts(b)} <= {"var", "cast", "const", "bin", "un"}
                deferred = not ((d is None and not local_div) or (d is not None and d <= 0) or has_runtime_int(b)) \
                    and self.defer_division(res, n.loc, msg)
                self.division_error(n.loc, msg, res if deferred else None)   # (in a store p4c may drop: mk_stores)
        if at == INTLIT:
            v = self.fold(res)
            if v is None:
                raise E(n.loc, "untyped integer expression is not constant")
            return {"op": "const", "v": v, "t": INTLIT, **({"runtime_int": True} if has_runtime_int(res) else {})}, INTLIT
        return res, at

    def constant_result(self, py: str):
        """The value every ``return`` of function ``py`` gives when it is one compile-time
        constant (p4c inlines the call and folds it), else None."""
        f = next((r for r in self.functions.values() if r.get("py") == py), None)
        vals = set()

        def walk(x):
            if isinstance(x, dict):
                if x.get("s") == "return":
                    vals.add(self.fold(x["v"]) if x.get("v") is not None else None)
                for v in x.values():
                    walk(v)
            elif isinstance(x, list):
                for v in x:
                    walk(v)
        if f is None or not f.get("body"):
            return None
        walk(f["body"])
        return vals.pop() if len(vals) == 1 else None


def _leaves(t):
    """The element types of a tuple type, nested tuples flattened."""
    for x in t[1]:
        if x[0] == "list":
            yield from _leaves(x)
        else:
            yield x


def _is_zero(folded, ir) -> bool:
    """An operand that is 0 once p4c folds it and reduces its strength (``0``, ``8w2 - 2``,
    ``y - y``, ``x * 0``): it makes ``e * 0`` and ``e & 0`` 0."""
    if folded is not None:
        return folded == 0 and not isinstance(folded, bool)
    v = reduced_value(ir)
    return v is not None and not isinstance(v, bool) and v == 0


def _calls(n) -> bool:
    """Whether expression ``n`` calls anything (p4c's strength reduction keeps such an operand)."""
    if isinstance(n, Node):
        return n.kind == "call" or any(_calls(v) for v in n._attrs.values())
    if isinstance(n, (list, tuple)):
        return any(_calls(v) for v in n)
    return False
