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
and at an ``exit``, a store read only by stores dropped first dropped too (rounds, as p4c's pass
repeats).  Tables, actions and sub-controls are seen through as ``inlined_control`` lays them out,
and for a local of the body itself (no action or key can name it) as nothing when their arguments
do not name it; whatever else the view does not see through counts as a read: the error stays
(an action's or sub-control's ``out`` parameter written with one and overwritten by the caller is
still refused, p4c accepts it).  A tagged statement p4c's earlier passes remove (a dead branch,
code after a ``return``) is not in the body any more: no error.
"""
from __future__ import annotations

from .elab_common import ir_dicts
from .union_defuse import _has_call, _overwritten, _touches, switch_cases, walk_rest

_ROUNDS = 4


def _view(x, ends: list, dead: set):
    """IR ``x`` as the def-use view sees it: each local's initializer an assignment (``bool c =
    b;`` reads ``b`` as ``c = b;`` does), an ``exit`` preceded by the ends of the locals (``ends``:
    they are dead there, what the control's parameters hold is not), and the assignments in
    ``dead`` (ids) gone."""
    if isinstance(x, list):
        out = []
        for v in x:
            if isinstance(v, dict) and v.get("s") == "exit":
                out.extend(ends)
            if not (isinstance(v, dict) and id(v) in dead):
                out.append(_view(v, ends, dead))
        return out
    if not isinstance(x, dict):
        return x
    if x.get("s") == "decl" and x.get("init") is not None:
        y = {"s": "assign", "l": {"op": "var", "n": x["n"], "t": x["t"]}, "r": x["init"], "orig": x}
        return dict(y, mk_store=x["mk_store"]) if "mk_store" in x else y
    y = {k: _view(v, ends, dead) for k, v in x.items()}
    return dict(y, orig=x) if x.get("s") == "assign" else y


def _body_key(ctx: dict) -> tuple:
    return ("action", ctx["in_action"]) if ctx.get("in_action") else (ctx.get("kind"), ctx.get("block"))


class MatchKindStores:
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

    def match_kind_store_begin(self, rhs) -> object:
        """Before elaborating ``rhs``, the value of a store: start collecting the match_kind
        operand errors in it when the store can be judged later (a control, action or function
        body; no call in ``rhs``, which could elaborate other statements).  Returns what
        :meth:`match_kind_store_end` restores."""
        from .elab_ctor import _ast_nodes
        ctx = getattr(self, "ctx", None)
        if ctx is None or not (ctx.get("in_action") or ctx.get("kind") in ("control", "function")):
            return None
        if not self.mentions_match_kind(rhs) or any(n.kind == "call" for n in _ast_nodes(rhs)):
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
            pending = self.__dict__.setdefault("pending_mk", {})
            key = len(pending) + 1
            while key in pending:
                key += 1
            pending[key] = (errs, dict(self.ctx), _body_key(self.ctx))
            stmts[0]["mk_store"] = key
        elif errs:   # (not one plain store: as before, at once)
            for loc, message in errs:
                self.back_end_error(loc, message)
        return stmts

    def settle_match_kind_stores(self, stmts: list) -> None:
        """The body ``stmts`` is done: raise (``target_error``, in the context it was found in) the
        first error of each tagged store p4c keeps; forget those of stores it drops."""
        pending = self.__dict__.get("pending_mk")
        key = _body_key(self.ctx) if getattr(self, "ctx", None) else None
        mine = {k for k, (_, _, bk) in (pending or {}).items() if bk == key}
        if not mine:
            return
        locals_ = {d["n"]: d["t"] for d in ir_dicts(stmts) if d.get("s") == "decl"}
        # each local of the body is dead past its end: overwritten there, for _overwritten
        ends = [{"s": "assign", "l": {"op": "var", "n": n, "t": t}, "r": {"op": "const", "v": 0, "t": t}}
                for n, t in locals_.items()]
        own = {n for n in locals_ if not n.startswith("L.")}   # (no action or table names these)

        def inline(call, lv):
            view = self.inlined_control(call, lv)
            if view is not None or lv.get("op") != "var" or lv["n"] not in own or _touches(call, lv):
                return view
            tab = self.tables.get(call.get("table")) if call.get("s") in ("apply", "switch_action") else None
            if tab is not None and any(_touches(k.get("expr"), lv) for k in tab.get("keys") or ()):
                return None
            return switch_cases(call, True) if call.get("s") == "switch_action" else []
        # p4c's def-use repeats: a store read only by stores dropped first is dropped next
        dead: set = set()
        for _ in range(_ROUNDS):
            found = []

            def visit(b, rest):
                if b.get("s") == "assign" and not _has_call(b["r"]) and _overwritten(rest, b["l"], inline):
                    found.append(id(b.get("orig", b)))
            view = _view(list(stmts), ends, dead)
            walk_rest(view, ends, visit)
            if set(found) <= dead:
                break
            dead |= set(found)
        live = []

        def judge(b, rest):
            k = b.get("mk_store")
            if k in mine and not _overwritten(rest, b["l"], inline):
                live.append(k)
        walk_rest(_view(list(stmts), ends, dead), ends, judge)
        for d in ir_dicts(stmts):
            if d.get("mk_store") in mine:
                del d["mk_store"]
        todo = [pending.pop(k) for k in sorted(mine)]
        live = set(live)
        for k, (errs, ctx, _) in zip(sorted(mine), todo):
            if k in live:
                saved, self.ctx = self.ctx, ctx
                try:
                    self.back_end_error(*errs[0])
                finally:
                    self.ctx = saved
