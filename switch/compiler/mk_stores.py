"""A ``match_kind`` comparison stored where p4c's def-use pass drops the store.

p4c 1.2.4.8's BMv2 back end has no representation of a ``match_kind`` value: a comparison that
reaches it is "could not convert expression to Json" / "match_kind: type not yet handled on this
target" (:meth:`~switch.compiler.elab_expressions.ExpressionRules.match_kind_operand`).  p4c's
front- and mid-end remove a store whose value nothing reads first -- an assignment a later one
overwrites on every path before a read (``b = exact == lpm; b = true;``, also into a header or
metadata field), or into a local no one reads after it (``b = exact == lpm;`` at the end of the
body, ``bool c = b;`` with ``c`` unread) -- and then the comparison never reaches the back end
(probed on p4c 1.2.4.8, helper mutz24; mutz23's open item).

So the operand's error, in a plain assignment or a local's initializer without calls, is not
raised at once: the statement is tagged (``mk_store``) and its body -- a control's apply block
with the control's locals, an action's or a function's body -- is judged when it is done
(:meth:`settle_match_kind_stores`) with :func:`~switch.compiler.union_defuse._overwritten`, the
def-use view the union-member stores use, each local of the body taken as overwritten at its end
and at an ``exit`` or ``return``, a store read only by stores dropped first dropped too (rounds,
as p4c's pass repeats).  Tables, actions and sub-controls are seen through as ``inlined_control``
lays them out, else as p4c's inliner does (:func:`_call_view`: arguments read, body, copy-out),
and for a local of the body itself (no action or key can name it) as nothing when their arguments
do not name it; whatever else the view does not see through counts as a read: the error stays.
A tagged statement p4c's earlier passes remove (a dead branch, code after a ``return``) is not in
the body any more: no error.

A store that reaches only the body's ``out``/``inout`` parameters (an action's, a function's, a
sub-control's: dead once they are taken as overwritten at the end, ``_param_ends``) is p4c's
concern after inlining, at each call site (helper mutz25, mutz24's open item): it is held
(``mk_param_stores``) and judged in each caller's settle (:meth:`_settle_param_stores`) -- kept,
so the error raised in the caller's context, when the caller's statements after the call read
the argument it reaches (a direct call, a table's bound argument, a switch on the table, an
``if`` on its hit, a function called in an assignment's value); a caller's own ``out``
parameter passes it on to that caller's callers.  A call seen otherwise keeps the store; a body
never called (an unused action, an unapplied sub-control) raises nothing.  An action's stores into
its control's variables (parameters, locals: ``_mk_globals``) are held the same way (helper mutz72,
mutz67's open item): p4c inlines a direct call, and its def-use sees a table's apply as the table's
actions, so ``action b() { meta.m8 = (exact == lpm) ? 1 : 2; } .. b(); meta.m8 = hdr.h.b;`` compiles;
they reach those variables as they are at each call site (``glob`` of an entry), not at an ``exit``
in the action (the control's variables are read there), and a store dead only at the end carries on
what it reads (``_read_through``); one with a division stays the constant propagation's.  A parser's stores and
the stores its function calls hold are judged along its states (:meth:`settle_parser_stores`,
helper mutz26: a function called only from a parser was not judged at all).

A division by a constant other than a power of two (p4c's BMv2 back end: "could not evaluate
expression at compilation time") is judged the same way (helper mutz26, p4c_mutate seed 168):
its error is noted for the store (``division_error``); a dropped store forgets it, with the
division const_index held pending for the constant propagation (the bodies' divisions are
flushed after their settle), a kept one leaves it to that propagation.  A callee's argument that
a later parameter's copy-out overwrites (``s.apply(hdr.h, hdr)``: ``hdr`` is copied out after
``hdr.h``) is dead at the call, as p4c's inliner orders the copy-outs.
"""
from __future__ import annotations

from .ast import Node
from .elab_common import E, expr_text, has_call, ir_dicts, ir_replace
from .exit_blind_stores import stores_dead_across_exits
from .union_defuse import path_chain, no_hits, overwritten, substitute, touches, switch_cases, walk_rest

_ROUNDS = 4
_CALLS = ("call_action", "call_fn", "apply_control", "apply", "switch_action")


def _view(x, ends: list, dead: set, inits: dict | None = None, exit_ends: list | None = None):
    """IR ``x`` as the def-use view sees it: each local's initializer an assignment (``bool c =
    b;`` reads ``b`` as ``c = b;`` does), an ``exit`` or a ``return`` (after its value is read)
    preceded by the ends of the locals (``ends``: they are dead there, what the control's
    parameters hold is not; with the ``out`` parameters' ends too where those are in question),
    and the assignments in ``dead`` (ids) gone (``exit_ends``: the ends at an ``exit``, else ``ends``:
    an action's stores into its control's variables are not dead there).  A header initializer that reads its own header,
    lowered to setValid + setInvalid (``inits``: the elaborator's ``self_inits``), is the assignment
    of the initializer it was, as p4c's def-use sees it: a definition of every field that reads the
    fields it names (header_init; a sub-control's store of ``h.b = h.a / 6`` the caller's ``h = {h.a
    + 1, 7, 8, h.d}`` overwrites is dead: fuzz_mutants seed 5718, helper mutz51)."""
    if isinstance(x, list):
        out = []
        for v in x:
            if isinstance(v, dict) and v.get("s") == "exit":
                out.extend(ends if exit_ends is None else exit_ends)
            elif isinstance(v, dict) and v.get("s") == "return":   # (its value read, then the end)
                if v.get("v") is not None:
                    out.append({"s": "nop", "reads": _view(v["v"], ends, dead, inits, exit_ends)})
                out.extend(ends)
            if not (isinstance(v, dict) and id(v) in dead):
                out.append(_view(v, ends, dead, inits, exit_ends))
        return out
    if not isinstance(x, dict):
        return x
    if x.get("s") == "decl" and x.get("init") is not None:
        y = {"s": "assign", "l": {"op": "var", "n": x["n"], "t": x["t"]}, "r": x["init"], "orig": x}
        return dict(y, mk_store=x["mk_store"]) if "mk_store" in x else y
    if x.get("s") == "setvalid" and inits and (got := inits.get(id(x))) is not None and got[0] is x \
            and got[1] is not None:
        return {"s": "assign", "l": x["h"], "r": got[3]}
    y = {k: _view(v, ends, dead, inits, exit_ends) for k, v in x.items()}
    return dict(y, orig=x) if x.get("s") in ("assign",) + _CALLS else y


def _body_key(ctx: dict) -> tuple:
    return ("action", ctx["in_action"]) if ctx.get("in_action") else (ctx.get("kind"), ctx.get("block"))


_CURRENT = object()   # _raise_live: in the current block context


class _DivErr(tuple):
    """(loc, message) of a division in a store, with its IR while const_index holds it pending."""

    def __new__(cls, err, deferred):
        self = super().__new__(cls, err)
        self.deferred = deferred
        return self


class MatchKindStores:
    def match_kind_value(self, n: Node):
        """A ``match_kind`` member as a value (``a(exact)``, ``match_kind k = lpm;``): p4c types it,
        and accepts it where its midend removes it before the BMv2 back end -- an argument of a
        parameter the callee never reads, an unused local or constant (probed, helper mutz22).  What
        would reach the back end, an operand of an operator, is refused (match_kind_operand)."""
        t = ["match_kind"]
        ir = {"op": "const", "v": sorted(self.match_kinds).index(n.name), "t": t}
        self.__dict__.setdefault("match_kind_locs", {})[id(ir)] = (n.name, n.loc, ir)   # (a constant's value)
        return ir, t

    def match_kind_operand(self, n: Node, ir: dict, op: str) -> None:
        """p4c 1.2.4.8's BMv2 back end has no representation of a match_kind value: a constant
        operand is "could not convert expression to Json", a variable or parameter one "match_kind:
        type not yet handled on this target" (``k == exact``; also after inlining a constant argument).
        A ``const`` is named at its value, as p4c substitutes it.  Not in an action nothing uses, an
        uncalled function or an unapplied sub-control (target_error), nor in a dead store (mk_stores)."""
        if getattr(self, "ctx", None) and self.ctx.get("unread_local_init"):
            return None   # an initializer p4c removes with its unread local (local_never_read)
        name, loc, _ = self.__dict__.get("match_kind_locs", {}).get(id(ir), (None, None, None))
        err = (loc, f"{name}: could not convert expression to Json (a match_kind value as an operand of {op}: the BMv2 "
                    "back end has no representation for it, p4c)") if name is not None else \
            (n.loc, f"{expr_text(n)}: match_kind: type not yet handled on this target (an operand of {op}, p4c's BMv2 back end)")
        # (a store p4c may drop: mk_stores; not in the operand of `false && X`, whose errors dead_operand drops)
        pend = self.ctx.get("mk_store") if getattr(self, "ctx", None) and not self.ctx.get("dead_expr") else None
        return self.back_end_error(*err) if pend is None else pend.append(err)

    def division_error(self, loc, message: str, deferred) -> None:
        """A division by a constant other than a power of two (elab_binary.binary): noted for
        the store being judged, if any; else raised now, or (``deferred``: its IR, pending in
        const_index) left to the constant propagation."""
        ctx = getattr(self, "ctx", None) or {}
        if ctx.get("reduced_away") is not None and not (ctx.get("dead") or ctx.get("after_exit")):
            ctx["reduced_away"].append((loc, message, deferred))   # (an operand of `e * 0`: elab_expressions)
            return
        if ctx.get("dead") or ctx.get("after_exit"):
            # after an exit (or a return) p4c removes the rest unchecked (helper mutz29, seed 521)
            if deferred is not None:
                (self.__dict__.get("pending_divs") or {}).pop(id(deferred), None)
            return
        pend = None if ctx.get("dead_expr") else ctx.get("mk_store")   # (dead_operand drops what it raises)
        if pend is not None:
            pend.append(_DivErr((loc, message), deferred))
        elif deferred is None:
            self.target_error(loc, message)

    def _drop_divisions(self, errs) -> None:
        """A store p4c drops (or one judged at the call sites): its divisions are not the constant
        propagation's to refuse."""
        pending = self.__dict__.get("pending_divs") or {}
        for e in errs:
            if isinstance(e, _DivErr) and e.deferred is not None:
                pending.pop(id(e.deferred), None)
                e.deferred = None

    def _hold_divisions(self, errs) -> None:
        """A store judged at the call sites: its divisions stay pending for the body's constant
        propagation, which only notes whether it folds them (const_index.flush_divisions)."""
        held = self.__dict__.setdefault("held_divs", {})
        for e in errs:
            if isinstance(e, _DivErr) and e.deferred is not None:
                held[id(e.deferred)] = e

    def _raise_first(self, errs) -> None:
        """A held store kept at a call site: its first error but a division the callee's constants fold."""
        first = next((e for e in errs if not getattr(e, "folded", False) and not self.sub_division_folded(e)), None)
        if first is not None:
            self.back_end_error(*first)

    def _raise_live(self, errs, ctx=_CURRENT) -> None:
        """A store p4c keeps: its first error that is not a division left to the constant propagation
        (in the block context ``ctx`` the store was made in, when given)."""
        first = next((e for e in errs if not (isinstance(e, _DivErr) and e.deferred is not None)), None)
        if first is None:
            return
        if ctx is _CURRENT:
            self.back_end_error(*first)
            return
        saved, self.ctx = self.ctx, ctx
        try:
            self.back_end_error(*first)
        finally:
            self.ctx = saved

    def back_end_error(self, loc, message: str) -> None:
        if getattr(self, "ctx", None):
            self.target_error(loc, message)
        else:
            raise E(loc, message)

    def mentions_match_kind(self, n) -> bool:
        """Whether expression ``n`` names a match_kind member (the only initializer whose removal
        with its unread local matters: local_never_read)."""
        from .elab_ctor import _ast_nodes
        mk = getattr(self, "match_kinds", ())
        return any(x.kind == "name" and x.get("name") in mk for x in _ast_nodes(n))

    def local_never_read(self, name: str) -> bool:
        """No name ``name`` appears in the body of the block being elaborated but its declaration:
        p4c removes such a local with its initializer before its back end (a match_kind
        comparison there is no error: ``bool b = exact == exact;``, helper mutz23).  A name
        used anywhere in the block (another variable of that name too) counts as read."""
        from .elab_ctor import _ast_nodes
        node = self.ctx.get("node") if getattr(self, "ctx", None) else None
        if node is None:
            return False
        return not any(n.kind == "name" and n.get("name") == name for n in _ast_nodes(node))

    def match_kind_store_begin(self, rhs, cond: bool = False) -> object:
        """Before elaborating ``rhs``, the value of a store: start collecting the match_kind
        operand errors in it when the store can be judged later (a control, action or function
        body; no call in ``rhs`` that could elaborate other statements: _plain_call).  Returns what
        :meth:`match_kind_store_end` restores.  ``cond``: ``rhs`` is an ``if`` condition (not in a
        parser; calling nothing but ``isValid()``), whose errors go with the ``if``
        (:meth:`match_kind_if_end`)."""
        from .elab_ctor import _ast_nodes
        ctx = getattr(self, "ctx", None)
        if ctx is None or not (ctx.get("in_action") or ctx.get("kind") in ("control", "function")
                               or ctx.get("kind") == "parser" and ctx.get("state") is not None and not cond):
            return None
        nodes = list(_ast_nodes(rhs))
        if not (self.mentions_match_kind(rhs) or any(n.kind == "binary" and n.op in ("/", "%") or n.kind == "call"
                                                     for n in nodes)) \
                or not all(_plain_call(n) and (not cond or n.fn.kind == "member") for n in nodes if n.kind == "call"):
            return None
        saved = ctx.get("mk_store")
        ctx["mk_store"] = []
        return (saved,)

    def match_kind_store_end(self, token, stmts: list) -> list:
        """After the store: tag its statement in ``stmts`` with the errors collected (kept in
        ``pending_mk`` until the body is settled)."""
        if token is None:
            return stmts
        errs = self.ctx.get("mk_store") or []
        self.ctx["mk_store"] = token[0]
        if errs and len(stmts) == 1 and stmts[0].get("s") in ("assign", "decl"):
            self._tag_pending(stmts[0], errs)
        elif errs:   # (not one plain store: as before, at once)
            for e in errs:
                self._raise_live([e])
        return stmts

    def _tag_pending(self, stmt: dict, errs: list) -> None:
        pending = self.__dict__.setdefault("pending_mk", {})
        key = len(pending) + 1
        while key in pending:
            key += 1
        pending[key] = (errs, dict(self.ctx), _body_key(self.ctx))
        stmt["mk_store"] = key

    def match_kind_cond_end(self, token) -> list | None:
        """After an ``if`` condition begun with ``cond``: the errors collected in it (None: none)."""
        if token is None:
            return None
        errs = self.ctx.get("mk_store") or []
        self.ctx["mk_store"] = token[0]
        return errs or None

    def match_kind_if_end(self, errs, stmt: dict | None) -> list:
        """The ``if`` statement ``stmt`` whose condition had the errors ``errs``: tagged like a store.
        p4c's def-use drops the stores of its arms that are overwritten before a read, and
        SimplifyControlFlow then removes an ``if`` left with empty arms whose condition calls nothing,
        its condition with it -- ``if (exact == lpm) { m = 1; } m = h.b;`` compiles (fuzz_mutants
        ``--kinds mux_expr`` seed 5256, helper mutz67).  Settled with the body's stores
        (:meth:`settle_match_kind_stores`: live unless its arms hold nothing once the dead stores are
        gone).  ``stmt`` None (a condition folded to a constant: only divisions were collected, see
        :meth:`match_kind_in`): each one as :meth:`division_error` takes it outside a store -- raised at
        once, or left to the constant propagation (``false && h.a % 0 == 1`` folds it away)."""
        if errs and stmt is not None:
            self._tag_pending(stmt, errs)
        for e in errs or () if stmt is None else ():
            if not isinstance(e, _DivErr):
                self.back_end_error(*e)
            elif e.deferred is None:
                self.target_error(*e)
        return [] if stmt is None else [stmt]

    @staticmethod
    def match_kind_in(errs) -> bool:
        """Whether the errors collected in a condition hold a match_kind operand's (not only divisions):
        p4c does not fold such a condition, so neither does checkmate-p4c."""
        return any(not isinstance(e, _DivErr) for e in errs or ())

    def settle_match_kind_stores(self, stmts: list) -> None:
        """The body ``stmts`` is done: raise (``target_error``, in the context it was found in) the
        first error of each tagged store p4c keeps; forget those of stores it drops.  A store that
        is dead once the body's ``out``/``inout`` parameters are taken as overwritten at its end is
        judged at each call site instead (:meth:`_settle_param_stores`)."""
        pending = self.__dict__.get("pending_mk")
        key = _body_key(self.ctx) if getattr(self, "ctx", None) else None
        mine = {k for k, (_, _, bk) in (pending or {}).items() if bk == key}
        callees = self.__dict__.get("mk_param_stores") or {}
        if not mine and not (callees and any(self._mk_callee(n) for n in ir_dicts(stmts))):
            return
        locals_ = {d["n"]: d["t"] for d in ir_dicts(stmts) if d.get("s") == "decl"}
        # each local of the body is dead past its end: overwritten there, for _overwritten
        ends = [{"s": "assign", "l": {"op": "var", "n": n, "t": t}, "r": {"op": "const", "v": 0, "t": t}}
                for n, t in locals_.items()]
        own = {n for n in locals_ if not n.startswith("L.")}   # (no action or table names these)
        subs = getattr(self, "subcontrols", None) or []

        def inline(call, lv):
            view = self.inlined_control(call, lv)
            view = _call_view(self, call, lv) if view is None else view
            if view is not None or lv.get("op") != "var" or lv["n"] not in own or touches(call, lv):
                return view
            tab = self.tables.get(call.get("table")) if call.get("s") in ("apply", "switch_action") else None
            if tab is not None and any(touches(k.get("expr"), lv) for k in tab.get("keys") or ()):
                return None
            return switch_cases(call, True) if call.get("s") == "switch_action" else []

        stores: dict = {}   # (id of a store: its view, what live_stores' dead sets name)

        def live_stores(ends_: list, exit_ends=None) -> tuple:
            # p4c's def-use repeats: a store read only by stores dropped first is dropped next
            dead: set = set()
            for _ in range(_ROUNDS):
                found = []

                def visit(b, rest):
                    stores.setdefault(id(b.get("orig", b)), b) if b.get("s") == "assign" else None
                    if b.get("s") == "assign" and (id(b) in blind or not has_call(b["r"]) and overwritten(
                            rest, b["l"], inline)):
                        found.append(id(b.get("orig", b)))
                view = _view(list(stmts), ends_, dead, self.__dict__.get("self_inits"), exit_ends)
                blind = stores_dead_across_exits(subs, view)   # (p4c's def-use blind to a sub-control's exit)
                walk_rest(view, ends_, visit)
                if set(found) <= dead:
                    break
                dead |= set(found)
            live, lvs, ifs = set(), {}, {}

            def judge(b, rest):
                k = b.get("mk_store")
                if k in mine and b.get("s") == "if":
                    if not _arms_empty(b):
                        live.add(k)
                        ifs[k] = b
                elif k in mine and not overwritten(rest, b["l"], inline):
                    live.add(k)
                    lvs[k] = b["l"]
            view = _view(list(stmts), ends_, dead, self.__dict__.get("self_inits"), exit_ends)
            walk_rest(view, ends_, judge)
            return live, lvs, view, ifs, dead
        live, lvs, view, ifs, dead = live_stores(ends)
        outs = self._mk_out_params()
        reach = [g for n in ir_dicts(view) for entries, _ in self._mk_callee(n) for _, _, glob in entries for g in glob]
        globs = self._mk_globals(view, stmts, reach)
        # the parameters' copy-out is the caller's: each path into one taken as overwritten at the end
        # (an action's: also the control's variables it writes, or its callees' held stores reach)
        pends = _param_ends(view, outs | globs, reach)
        # (an `if` tagged for its condition: held with the stores of its arms; at an `exit` only the
        # parameters' ends: the control's variables are read there)
        live2, _, _, _, dead2 = live_stores(ends + pends, ends + [p for p in pends if _root_var(p["l"]) in outs]) \
            if live and pends else (live, None, None, None, dead)
        via_params = {k for k in live - live2 if k in lvs or k in ifs}
        via_dead = [stores[i] for i in dead2 - dead if i in stores]
        self._settle_param_stores(view, ends, stmts, inline, pends, key, outs, globs)
        for d in ir_dicts(stmts):
            if d.get("mk_store") in mine:
                del d["mk_store"]
        for k in sorted(mine):
            errs, ctx, _ = pending.pop(k)
            # (an if's arms' stores; and what reads them through stores dead only at the end, in turn)
            reached = [] if k not in via_params else _read_through(
                [lvs[k]] if k in lvs else [d["l"] for d in ir_dicts(ifs[k]["then"] + ifs[k]["else"])
                                           if d.get("s") == "assign"], via_dead)
            if k in via_params and any(_root_var(x) in globs for x in reached) and \
                    any(isinstance(e, _DivErr) and e.deferred is not None for e in errs):
                self._raise_live(errs, ctx)   # (a division: left to the constant propagation as before)
            elif k in via_params:
                self._hold_divisions(errs)   # (raised where a caller reads it, unless folded)
                self._hold_param_store(key, errs, reached, outs, globs)
            elif k in live:
                self._raise_live(errs, ctx)
            else:
                self._drop_divisions(errs)

    def settle_parser_stores(self, states: dict, params: list) -> None:
        """A parser's states are done (before its state errors are raised): the tagged stores of
        its states and the stores its function calls hold for their callers (``out`` parameters)
        are judged along the states as p4c's def-use sees them (parser_defuse.store_live: a local
        is dead at ``accept``, a parameter read there); a kept one's error is its state's.  A
        store or call not at a state's top level counts as read."""
        from .parser_defuse import store_live
        pending = self.__dict__.get("pending_mk") or {}
        key = _body_key(self.ctx)
        mine = {k for k, (_, _, bk) in pending.items() if bk == key}
        if not mine and not self.__dict__.get("mk_param_stores"):
            return
        roots = {p["py"] for p in params if p["t"][0] != "extern"}
        for name, st in states.items():
            for i, s in enumerate(st["body"]):
                t = s
                if s.get("s") == "block" and s["body"] and s["body"][-1].get("mk_store") in mine and \
                        not has_call(s["body"][:-1]):
                    # (a `?:` predication.dismantle_muxes made ifs assigning temporaries, the store
                    # last: a dead store leaves them read by nothing, emptied with their conditions --
                    # fuzz_mutants --kinds mux_expr seed 4648, helper mutz59)
                    t = s["body"][-1]
                k = t.get("mk_store")
                if k in mine:
                    mine.discard(k)
                    errs, ctx, _ = pending.pop(k)
                    del t["mk_store"]
                    lv = t["l"] if t.get("s") == "assign" else {"op": "var", "n": t["n"], "t": t["t"]}
                    if store_live(states, name, i + 1, lv, roots):
                        self._raise_live(errs, ctx)
                    else:
                        self._drop_divisions(errs)
                for n in ir_dicts(s):
                    for entries, args in self._mk_callee(n):
                        self.ctx["state"] = name
                        for errs, lv, glob in entries:
                            lvs = _reached(lv, glob, args)
                            if n is not s or any(store_live(states, name, i + 1, x, roots) for x in lvs):
                                self._raise_first(errs)
        self.ctx.pop("state", None)
        for k in mine:   # (in an if, or dropped with an unreachable state: kept to be safe)
            errs, ctx, _ = pending.pop(k)
            self._raise_live(errs, ctx)

    def _mk_out_params(self) -> set:
        """The ``out``/``inout`` parameters (their variables) of the body being settled: an
        action's, a function's or a sub-control's (p4c inlines each call of those, the copy-out
        into the caller's argument following the body)."""
        ctx = self.ctx
        if ctx.get("in_action"):
            params = self.actions[ctx["in_action"]]["params"]
        elif ctx.get("kind") == "function":
            params = (self.functions.get(ctx.get("block")) or {}).get("params") or ()
        elif ctx.get("kind") == "control" and ctx.get("sub"):
            params = ctx.get("mk_params") or ()
        else:
            return set()
        return {p["py"] for p in params if p.get("dir") in ("out", "inout") and p.get("py")}

    def _mk_callee(self, n: dict) -> list:
        """The stores held for the call sites (``mk_param_stores``) of what ``n`` calls, each with
        ``{parameter variable: argument}`` of ``n``: ``[(entries, args)]`` -- a direct action call,
        a function call, a sub-control apply, a table apply (its actions' bound arguments)."""
        held = self.__dict__.get("mk_param_stores") or {}
        s = n.get("s") or n.get("op")

        def by_index(params, args):
            return {p["py"]: a["e"] for p, a in zip(params, args) if a.get("dir") in ("out", "inout")}
        if s == "call_action" and ("action", n["action"]) in held:
            return [(held["action", n["action"]], by_index(self.actions[n["action"]]["params"], n["args"]))]
        if s in ("call_fn", "call_fn_out") and ("function", str(n["fn"])[2:]) in held:
            f = self.functions[str(n["fn"])[2:]]
            return [(held["function", f["py"][2:]], by_index(f["params"], n["args"]))]
        if s == "apply_control":
            blk = self.subcontrol_of(n)
            if blk is not None and ("control", blk["name"]) in held:
                return [(held["control", blk["name"]],
                         {a["py"]: a["e"] for a in n["args"] if a.get("dir") in ("out", "inout") and "py" in a})]
        if s in ("apply", "switch_action", "table_hit"):
            tab = self.tables.get(n.get("table")) or {}
            return [(held["action", ta["name"]], by_index(self.actions[ta["name"]]["params"], ta.get("bound") or ()))
                    for ta in tab.get("actions") or () if ("action", ta["name"]) in held]
        return []

    def _mk_globals(self, view: list, stmts: list, reach: list) -> set:
        """An action's body: the variables it assigns that are neither its parameters nor its
        locals -- its control's parameters and locals (a sub-control's too), which p4c's inliner
        reaches from each call (``b(); meta.m8 = hdr.h.b;`` makes ``b``'s store into ``meta.m8``
        dead, also through a table that lists ``b``: p4c's def-use sees an apply as its actions)."""
        act = self.actions.get(self.ctx.get("in_action")) if self.ctx.get("in_action") else None
        if act is None:
            return set()
        own = {p["py"] for p in act["params"]} | {d["n"] for d in ir_dicts(stmts) if d.get("s") == "decl"}
        lvs = [d["l"] for d in ir_dicts(view) if d.get("s") == "assign"] + list(reach)
        return {r for x in lvs if (r := _root_var(x)) and r not in own}

    def _hold_param_store(self, key: tuple, errs: list, lvs: list, outs: set, globs: set) -> None:
        """Hold ``errs`` for the call sites of this body (``key``), reaching the paths ``lvs``: an
        entry ``(errs, lv, glob)`` -- ``lv`` the one path into an ``out``/``inout`` parameter (None: any
        argument of one, False: none), ``glob`` the paths into the control's variables (an action's)."""
        own = [x for x in lvs if _root_var(x) in outs]
        glob = [x for x in lvs if _root_var(x) in globs]
        lv = own[0] if len(own) == 1 else None if own or len(own) + len(glob) < len(lvs) else False
        self.__dict__.setdefault("mk_param_stores", {}).setdefault(key, []).append((errs, lv, glob))

    def _covered(self, node: dict, writes: list) -> bool:
        """Whether the paths ``writes`` write all of ``node``: it or what it is part of, or every
        member of a struct it is (`hdr.h` is all of a `headers` holding only `h`)."""
        p = _path(node)
        if p is None:
            return False
        if any((w := _path(x)) is not None and p[:len(w)] == w for x in writes):
            return True
        t = node.get("t") or [None]
        fields = (self.structs.get(t[1]) or {}).get("fields") if t[0] == "struct" else None
        if not fields or (self.structs.get(t[1]) or {}).get("union"):
            return False
        return all(self._covered({"op": "field", "base": node, "f": f, "t": ft}, writes) for f, ft in fields)

    def _settle_param_stores(self, view: list, ends: list, stmts: list, inline, pends: list, key: tuple,
                             outs: set, globs: set) -> None:
        """Judge at each call site in this body (``view``) the callees' stores that reach their
        ``out``/``inout`` parameters only: kept when the caller's statements after the call read
        the argument it goes to (a store into a part of a parameter: that part of the argument;
        through a local: any of the arguments) -- then the error is raised here, in the caller's
        context, unless what reads it is this body's own copy-out (``pends``: the store is held
        for this body's call sites in turn).  A call in an assignment's value is followed by the
        rest of the assignment; a table applied in an ``if`` condition by the ``if``; a call this
        view does not see so (in a condition, one of several) keeps the stores."""
        if not self.__dict__.get("mk_param_stores"):
            return
        seen: set = set()

        def judge(found, rest, skip=None):
            for entries, args in found:
                for errs, lv, glob in list(entries):
                    root = _root_var(lv) if lv else None
                    lvs = _reached(lv, glob, args)
                    after = rest
                    if root in args:   # the copy-outs of the later parameters follow (an argument aliasing it)
                        later = list(args)[list(args).index(root) + 1:]
                        after = [{"s": "assign", "l": args[k], "r": {"op": "var", "n": None}} for k in later] + rest
                        if any(touches(args[k], args[root]) for k in later):
                            # arguments that alias: p4c's inliner copies each one whole, and that
                            # copy-out reads the whole temporary -- the store is dead only where the later
                            # copy-outs write all of the argument (`s.apply(hdr, hdr.h)` keeps a store
                            # into `hh.h.a` unless `h` is all `hdr` holds, `s.apply(hdr.h, hdr.h)` drops
                            # one; p4c_mutate seed 515)
                            lvs = list(glob) if self._covered(args[root], [args[k] for k in later]) \
                                else [args[root]] + list(glob)
                    if skip is not None and any(touches(skip, x) for x in lvs):
                        self._raise_first(errs)
                    elif any(not overwritten(after, x, inline) for x in lvs):
                        if pends and all(overwritten(after + pends, x, inline) for x in lvs):
                            self._hold_param_store(key, errs, [x for x in lvs if not overwritten(after, x, inline)],
                                                   outs, globs)
                        else:
                            self._raise_first(errs)

        def visit(b, rest):
            if b.get("s") in _CALLS and (found := self._mk_callee(b)):
                seen.add(id(b))
                if b.get("s") == "switch_action":
                    rest = switch_cases(b, self.switch_may_skip(b)) + list(rest)
                judge(found, list(rest))
            elif b.get("s") == "assign":   # a function called in the value: the assignment, then the rest
                for n in ir_dicts(b["r"]):
                    if n.get("op") in ("call_fn", "call_fn_out") and (found := self._mk_callee(n)):
                        seen.add(id(n))
                        judge(found, list(rest), {"l": b["l"], "r": _without(b["r"], n)})
            elif b.get("s") == "if":
                hits = [n for n in ir_dicts(b["c"]) if n.get("op") == "table_hit"]
                if len(hits) == 1 and (found := self._mk_callee(hits[0])):
                    seen.add(id(hits[0]))
                    judge(found, [dict(b, c=no_hits(b["c"]))] + list(rest))
        walk_rest(view, ends, visit)
        for n in ir_dicts(view, "orig"):
            if id(n) not in seen:
                for entries, _ in self._mk_callee(n):
                    self._raise_first(entries[0][0])


def _read_through(lvs: list, stores: list) -> list:
    """``lvs`` and the targets of the ``stores`` that read any of them, in turn (a store dead only
    at the body's end that reads a held one carries it on: ``v = exact == lpm; meta.m8 = (bit<8>)v;``
    reaches ``meta.m8``)."""
    out = list(lvs)
    more = True
    while more:
        more = False
        for b in stores:
            if b["l"] not in out and any(touches(b["r"], x) for x in out):
                out.append(b["l"])
                more = True
    return out


def _reached(lv, glob: list, args: dict) -> list:
    """The paths a held store ``(errs, lv, glob)`` reaches at a call site whose ``out``/``inout``
    arguments are ``args`` (``{parameter variable: argument}``): ``lv``'s argument (None: each one;
    False: none), then the control's variables ``glob`` as they are."""
    if lv is False:
        base = []
    else:
        root = _root_var(lv) if lv is not None else None
        base = [substitute(lv, {root: args[root]})] if root in args else list(args.values())
    return base + list(glob)


def _path(lv) -> tuple | None:
    """A variable / field path (constant stack indices too) as a tuple, else None."""
    if not isinstance(lv, dict):
        return None
    if lv.get("op") == "var":
        return (lv.get("n"),)
    if lv.get("op") == "field":
        b = _path(lv.get("base"))
        return None if b is None else b + (lv.get("f"),)
    if lv.get("op") == "stack_idx" and (lv.get("i") or {}).get("op") == "const":
        b = _path(lv.get("st"))
        return None if b is None else b + (lv["i"].get("v"),)
    return None


def _plain_call(n: Node) -> bool:
    """A call in a store's value that elaborates no statement of its own: a function or extern
    function called by name (p4c inlines a function into statements before the store, whose
    value is then the function's result: the store stays droppable -- p4c_mutate seed 506,
    `hdr.h.b = f(hdr.h.a) / 6; hdr.h.b = f(hdr.h.a);`) or ``isValid()``.  A table's or a
    control's ``apply`` (``t.apply().hit``) is not one; a function with ``out`` parameters makes
    more than one statement, which match_kind_store_end raises at once as before."""
    fn = n.get("fn")
    return fn is not None and (fn.kind == "name" or fn.kind == "member" and fn.get("name") == "isValid")


def _call_view(el, call: dict, lv) -> list | None:
    """What a call stands for as p4c's inliner lays it out, where the union view has none: its
    arguments read, the body (an action's, a sub-control's; a function's reaches nothing but its
    parameters), then the copy-out into each ``out``/``inout`` argument -- for a value, not the
    validity of a union's siblings that view is about."""
    s = call.get("s")
    if s == "call_action":
        body = (el.actions.get(call["action"]) or {}).get("body")
    elif s == "apply_control":
        blk = el.subcontrol_of(call)
        body = None if blk is None else list(blk.get("locals") or []) + list(blk["body"])
    else:
        body = [] if s == "call_fn" else None
    if body is None or any(a["dir"] in ("out", "inout") and "py" in a and a["e"].get("t", [None])[0] == "struct"
                           for a in call["args"]):
        return None   # (a struct argument p4c uses in place: not a copy)
    reads = [a["e"] for a in call["args"] if a["dir"] in ("in", "inout")]
    return [{"s": "nop", "reads": reads}] + list(body) + \
        [{"s": "assign", "l": a["e"], "r": {"op": "var", "n": None}} for a in call["args"] if a["dir"] in ("out", "inout")]


def _arms_empty(b: dict) -> bool:
    """Whether the arms of ``if`` statement ``b`` (a def-use view: the dead stores gone) hold nothing
    p4c keeps: blocks, declarations without a value and ``if`` statements calling nothing whose arms
    are empty in turn (SimplifyControlFlow removes those)."""
    for x in list(b["then"] or []) + list(b["else"] or []):
        s = x.get("s")
        if s == "block" and _arms_empty({"then": x["body"], "else": []}):
            continue
        if s == "decl" and x.get("init") is None:
            continue
        if s == "if" and not has_call(x["c"]) and not any(n.get("op") == "table_hit" for n in ir_dicts(x["c"])) \
                and _arms_empty(x):
            continue
        return False
    return True


def _without(x, node):
    """IR ``x`` with ``node`` (by identity) made a constant: what else an expression reads."""
    return ir_replace(x, lambda d: {"op": "const", "v": 0} if d is node else None)


def _param_ends(view: list, outs: set, more: list = ()) -> list:
    """Assignments overwriting every path into the parameters ``outs`` that ``view`` names, or
    ``more`` (the parts first: a whole variable written first would read its parts)."""
    paths = [d["l"] for d in ir_dicts(view) if d.get("s") == "assign" and _root_var(d["l"]) in outs]
    paths += [x for x in more if _root_var(x) in outs]
    paths += [d for d in ir_dicts(view) if d.get("op") == "var" and d.get("n") in outs]
    pends: list = []
    for lv in sorted(paths, key=lambda x: x.get("op") == "var"):
        end = {"s": "assign", "l": lv, "r": {"op": "const", "v": 0, "t": lv.get("t")}}
        if end not in pends:
            pends.append(end)
    return pends


def _root_var(lv):
    """The variable an lvalue path starts from (its ``n``), or None."""
    root = path_chain(lv)[-1] if isinstance(lv, dict) else None
    return root.get("n") if isinstance(root, dict) and root.get("op") == "var" else None
