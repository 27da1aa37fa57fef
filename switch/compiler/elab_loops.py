"""``for`` loops (P4-16 1.2.5): a three-part loop, or one over the values of a list expression.

The IR keeps the loop (the generated Python loops too): nothing is unrolled.  p4c 1.2.4.8 has no
loops -- the reference program spells each one out, a constant declaration of its variable per
iteration -- so p4c's midend sees a loop variable as a constant in each iteration and folds what
it reads; :meth:`LoopRules.loop_constant` tells the expressions whose folding the runtime must
then copy (a ``++`` with a negative signed right operand: ``elab_expressions``).

A mixin of :class:`switch.compiler.elaborate.Elaborator` (through ``StatementRules``).
"""
from __future__ import annotations

from .ast import Node
from .elab_common import ir_dicts, BOOL, E, is_bits, Scope
from .copy_paths import ir_path


class LoopRules:
    def loop_stmt(self, s: Node, scope: Scope) -> list:
        """``for`` (P4-16 1.2.5): a three-part loop, or one over the values of a list
        expression; ``break``/``continue`` inside.  The IR keeps the loop (the generated
        Python loops too), so nothing is unrolled."""
        k = s.kind
        if k in ("break", "continue"):
            if not self.ctx.get("loops"):
                raise E(s.loc, f"{k} outside a for loop")
            return [{"s": k}]
        sc = Scope(scope)
        depth = self.ctx.get("loops", 0)
        if k == "for":
            init = []
            for x in s.init:
                init.extend(self.stmt(x, sc))
            cond = (self.coerce(self.expr(s.cond, sc), BOOL, s.cond.loc) if s.cond is not None
                    else {"op": "const", "v": True, "t": BOOL})
            update = []
            for x in s.update:
                update.extend(self.stmt(x, sc))
            # loop variables p4c sees as constants in each iteration (p4c 1.2.4.8 has no loops: the
            # reference spells them out, a constant declaration per iteration): a constant start,
            # updates of themselves by constants, a constant condition, and no write in the body
            cands = {d["n"] for d in init if d.get("s") == "decl" and d.get("init") is not None
                     and self.loop_constant(d["init"])}
            consts = cands if cands and all(
                u.get("s") == "assign" and u["l"].get("op") == "var" and u["l"]["n"] in cands
                and self.loop_constant(u["r"], cands) for u in update) and self.loop_constant(cond, cands) else set()
            body = self._loop_body(s.body, sc, depth, consts)
            return [{"s": "block", "body": init + [{"s": "for", "c": cond, "update": update, "body": body}]}]
        t = self.resolve_type(s.type)
        if s.range.kind == "range":   # `lo .. hi` with constant bounds: lo, lo + 1, ..., hi (none if lo > hi)
            lo, hi = (self.fold(self.coerce(self.expr(v, scope), t, v.loc)) for v in (s.range.lo, s.range.hi))
            if lo is None or hi is None or not is_bits(t):
                raise E(s.range.loc, "for (T x in lo .. hi): the embedded target iterates a range of "
                                     "compile-time constant bit<N>/int<N> bounds only")
            values = [{"op": "const", "v": v, "t": t} for v in range(lo, hi + 1)]
        elif s.range.kind != "list":
            raise E(s.range.loc, "for (T x in ...) over a list expression or a constant range { ... } only: "
                                 "the embedded target does not iterate header stacks")
        else:
            values = [self.coerce(self.expr(v, scope), t, v.loc) for v in s.range.items]
        decl = self.stmt(Node("var", s.loc, type=s.type, name=s.name, init=None, annos=[]), sc)
        var = decl[0]["n"]
        consts = {var} if all(self.loop_constant(v) for v in values) else set()
        body = self._loop_body(s.body, sc, depth, consts)
        return [{"s": "block", "body": decl + [{"s": "for_in", "n": var, "t": t, "values": values, "body": body}]}]

    def _loop_body(self, body_node: Node, sc: Scope, depth: int, consts: set) -> list:
        """A loop's body, ``consts`` (its loop variables that p4c sees as constants) known to
        :meth:`loop_constant` inside it -- unless the body writes one of them."""
        outer = self.ctx.get("loop_consts") or frozenset()
        self.ctx["loops"] = depth + 1
        self.ctx["loop_consts"] = outer | consts
        try:
            body = self.stmt(body_node, Scope(sc))
        finally:
            self.ctx["loops"] = depth
            self.ctx["loop_consts"] = outer
        def base(lv):
            p = ir_path(lv)
            return None if p is None else p.split(".")[0].split("[")[0]
        written = {n for n in consts if any(
            d.get("s") == "assign" and base(d["l"]) == n or d.get("s") == "decl" and d.get("n") == n
            or d.get("dir") in ("out", "inout") and isinstance(d.get("e"), dict) and base(d["e"]) == n
            for d in ir_dicts(body))}
        if written:   # (not constant after all: the folding p4c would do is not made)
            for d in ir_dicts(body):
                if d.get("p4c_fold") and any(x.get("op") == "var" and x["n"] in written for x in ir_dicts(d)):
                    del d["p4c_fold"]
        return body

    def dead_loop_rest(self, rest: list, loc, scope: Scope) -> None:
        """The statements ``rest`` of a loop body's block after one that always leaves the iteration
        (:func:`leaves_loop`; ``if (4w8 - 4w1 != 0) { continue; }`` folded): the reference spells
        the loop out with the rest under ``if (!(c)) {..}``, which p4c folds away -- checked as such
        a dead branch (an action only called there stays out of the P4Info: fuzz_exprs seed
        15607), and not kept (nothing runs there)."""
        if not rest:
            return
        used, pending = {q: a.get("used") for q, a in self.actions.items()}, self.pending_snapshot()
        self.dead_branch(Node("block", loc, stmts=list(rest)), scope, False)
        self._restore_used(used)
        self.pending_snapshot(pending)

    def loop_constant(self, e, extra=frozenset()) -> bool:
        """Whether expression ``e`` is made of constants and loop variables p4c sees as constants
        (its midend then propagates and folds it: see the ``++`` of :mod:`elab_expressions`)."""
        known = (self.ctx.get("loop_consts") or frozenset()) | extra
        for d in ir_dicts(e):
            op = d.get("op")
            if op == "var" and d["n"] not in known or op is not None and op not in ("const", "var", "cast", "slice", "bin", "un"):
                return False
        return True


def leaves_loop(st: dict) -> bool:
    """Statement ``st`` always ends its loop's iteration: a ``break`` or ``continue``, a block
    holding one at its top, an ``if`` whose both branches do (a folded ``if`` is a block)."""
    k = st.get("s")
    if k in ("break", "continue"):
        return True
    if k == "block":
        return any(leaves_loop(x) for x in st["body"])
    if k == "if":
        return any(leaves_loop(x) for x in st["then"] or []) and any(leaves_loop(x) for x in st["else"] or [])
    return False
