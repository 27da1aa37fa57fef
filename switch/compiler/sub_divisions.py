"""A division in a sub-control's body, judged at each apply of the instance (helper mutz28).

p4c 1.2.4.8 inlines every applied sub-control instance into its caller before the midend's
constant propagation, so a division by a constant other than a power of two in the body
(``control S(inout bit<8> o) { apply { o = o / 3; } }``) folds wherever the apply's arguments carry
constants (``bit<8> m = 9; s.apply(m);``, a constant ``in`` argument, a local of the body
initialized from one) and is the back end's "could not evaluate expression at compilation time"
at an apply that does not (``s.apply(hdr.h.b)``, also when another apply of the same instance
folds it).  mutz27's open item; probed on p4c 1.2.4.8.

:mod:`.const_index` walks the body at every apply (``_subcontrol_constants``) with the constants
the caller knows there; this mixin keeps what those walks find:

* the divisions of a sub-control body, or of one of its actions, left unfolded when the body is
  done are held (``sub_divs``) instead of refused (an action's is refused where a table lists it);
* each apply walked from a top-level control's body (the walk of its whole apply block, or of its
  locals and body) is a *chain* -- the top-level control's name and the ids of the apply
  statements down to the instance -- and a held division that folds in the walk under a chain is
  noted folded there (``sub_folds``); a direct action call is walked into with its arguments'
  constants (:meth:`_walk_called_action`);
* when the top-level control is done (:meth:`judge_sub_divisions`) a held division is refused (in
  its instance's context: raised only if the instance is applied, ``defer_error``) unless it folded
  under every chain that reaches its instance; a division in a store the def-use view judges at
  the call sites (mk_stores' ``held_divs``) is judged by :meth:`sub_division_folded` there.

An apply the walk does not follow (a body with a ``return``, an ``out`` argument that is no plain
path) makes its instance's divisions, and those of the instances it applies, unfolded.  A chain
whose first apply is not in the control's final body any more (its statement rebuilt) is not
counted; a sub-control applied from a sub-control is judged only by the top-level control's
chains.  Everything here can only refuse more than p4c: a division is accepted only where the
walk proves it constant.
"""
from __future__ import annotations

from .elab_common import ir_dicts
from .stale_stack import subst_paths as _subst


class SubDivisionRules:
    """A mixin of the elaborator, beside const_index.ConstIndexRules (``fold``, ``ctx``,
    ``subcontrol_of``, ``target_error``)."""

    def _note_sub_site(self, st: dict, blk: dict | None) -> tuple | None:
        """The chain of apply ``st`` (registered with its instance), or None when the walk is
        not one from a top-level control's apply block."""
        d = self.__dict__
        if d.get("const_dry_depth"):
            outer = d.get("sub_chain")
            if outer is None:
                return None
            chain = outer + (id(st),)
        else:
            ctx = getattr(self, "ctx", None) or {}
            if ctx.get("kind") != "control" or ctx.get("sub") or ctx.get("in_action") or \
                    getattr(self, "block_depth", 0) > 1:
                return None
            chain = (ctx.get("block"), id(st))
        d.setdefault("sub_sites", {})[chain] = blk["name"] if blk is not None else None
        d.setdefault("sub_site_stmts", {})[id(st)] = st
        return chain

    def _opaque_sub_site(self, chain: tuple | None, blk: dict | None) -> None:
        """An apply the walk does not follow: its instance and those it applies fold nothing."""
        if chain is None or blk is None:
            return
        opaque = self.__dict__.setdefault("sub_opaque", set())
        todo, seen = [blk], set()
        while todo:
            b = todo.pop()
            if b.get("name") in seen:
                continue
            seen.add(b.get("name"))
            opaque.add((chain[0], b.get("name")))
            for n in ir_dicts([b.get("locals") or [], b.get("body") or []]):
                if n.get("s") == "apply_control" and (inner := self.subcontrol_of(n)) is not None:
                    todo.append(inner)

    def _fold_sub_divisions(self, node, env: dict) -> None:
        """In a walk under a chain: the held divisions of ``node`` that ``env`` makes constant."""
        held, chain = self.__dict__.get("sub_divs"), self.__dict__.get("sub_chain")
        if not held or chain is None or any(str(n.get("op", "")).startswith("call") or n.get("op") == "table_hit"
                                            for n in ir_dicts(node)):
            return
        for n in ir_dicts(node):
            if id(n) in held and held[id(n)][0] is n and self.fold(_subst(n, env)) is not None:
                self.__dict__.setdefault("sub_folds", {}).setdefault(id(n), set()).add(chain)

    def _walk_called_action(self, st: dict, env: dict) -> None:
        """In a walk under a chain, a direct call of an action: its body walked with the constants
        known here and those of its directionless arguments (p4c inlines it), for the held
        divisions it holds; a constant stored in it flows on in it (``o = v / 3; o = o / 7;`` folds:
        p4c_mutate seed 520, helper mutz29), not one stored in a branch of it (predicated, as
        const_index does in an action)."""
        a = getattr(self, "actions", {}).get(st.get("action"))
        walking = self.__dict__.setdefault("sub_action_walk", set())
        if a is None or not a.get("body") or st["action"] in walking:
            return
        inner = dict(env)
        for p, arg in zip(a.get("params") or (), st.get("args") or ()):
            inner.pop((p["py"],), None)
            v = self.fold(_subst(arg.get("e"), env)) if p.get("dir") in (None, "in") and isinstance(arg, dict) else None
            if v is not None:
                inner[(p["py"],)] = v
        walking.add(st["action"])
        try:
            self.check_const_indexes(a["body"], inner, False)
        finally:
            walking.discard(st["action"])

    def _listed_action(self, q: str) -> bool:
        return any(a.get("name") == q for t in (getattr(self, "tables", None) or {}).values()
                   for a in t.get("actions") or ())

    def _hold_sub_division(self, k: int, entry: tuple) -> bool:
        """Hold (instead of refusing) a division left unfolded in a sub-control's body or in one of
        its actions (a direct call inlines it; one a table lists is refused: judge_sub_divisions)."""
        ctx = entry[3]
        if ctx.get("kind") != "control" or not ctx.get("sub"):
            return False
        self.__dict__.setdefault("sub_divs", {})[k] = entry
        return True

    def _sub_verdict(self, k: int, name: str, root: str, ids: set | None) -> bool | None:
        """Whether held division ``k`` of instance ``name`` folds at every apply reached from
        top-level control ``root`` (None: no apply of it from there)."""
        d = self.__dict__
        chains = [c for c, inst in (d.get("sub_sites") or {}).items()
                  if c[0] == root and inst == name and (ids is None or c[1] in ids)]
        if (root, name) in (d.get("sub_opaque") or ()):
            return False
        if not chains:
            return None
        folds = (d.get("sub_folds") or {}).get(k, ())
        return all(c in folds for c in chains)

    def _folded_by_literal_in_args(self, n: dict, name: str, root: str, ids: set) -> bool:
        """A held division of an action a table of instance ``name`` lists: p4c's inliner puts a
        compile-time constant argument of an ``in`` parameter in place of the parameter in the whole
        body, that action's too (``s.apply(8w7, ...)``), where its propagation would not reach
        (``bit<8> m = 7; s.apply(m, ...)`` stays refused) -- folded when every apply does so."""
        d = self.__dict__
        blk = next((b for b in getattr(self, "subcontrols", None) or () if b.get("name") == name), None)
        chains = [c for c, inst in (d.get("sub_sites") or {}).items() if c[0] == root and inst == name and c[1] in ids]
        if blk is None or not chains or (root, name) in (d.get("sub_opaque") or ()):
            return False
        ins = {p["py"] for p in blk.get("params") or () if p.get("dir") in (None, "in")}
        if not {x["n"] for x in ir_dicts(n) if x.get("op") == "var"} <= ins:
            return False
        for c in chains:
            st = (d.get("sub_site_stmts") or {}).get(c[-1])
            env = {(a["py"],): v for a in (st or {}).get("args") or ()
                   if "py" in a and a["py"] in ins and (v := self.fold(a["e"])) is not None}
            if st is None or self.fold(_subst(n, env)) is None:
                return False
        return True

    def sub_division_folded(self, e) -> bool:
        """mk_stores' held store error ``e`` kept at a call site: its division of a sub-control's
        body folds at every apply from the top-level control being settled."""
        sd = getattr(e, "sub_div", None)
        ctx = getattr(self, "ctx", None) or {}
        if sd is None or ctx.get("kind") != "control" or ctx.get("sub"):
            return False
        return bool(self._sub_verdict(sd[0], sd[1], ctx.get("block"), None))

    def judge_sub_divisions(self, stmts: list) -> None:
        """A top-level control is done (``stmts``: its locals and body): refuse each held division
        of the instances it applies that some apply does not fold."""
        ctx = getattr(self, "ctx", None) or {}
        held = self.__dict__.get("sub_divs")
        if not held or ctx.get("kind") != "control" or ctx.get("sub"):
            return
        ids = {id(n) for n in ir_dicts(stmts)}
        for k, (n, loc, message, dctx, *store) in list(held.items()):
            if store:   # (mk_stores judges it where the store is kept: sub_division_folded)
                continue
            v = self._sub_verdict(k, dctx["block"], ctx.get("block"), ids)
            if v is None:
                continue
            if dctx.get("in_action") and self._listed_action(dctx["in_action"]):
                v = self._folded_by_literal_in_args(n, dctx["block"], ctx.get("block"), ids)
            del held[k]
            if not v:
                saved, self.ctx = self.ctx, dctx
                try:
                    self.target_error(loc, message)
                finally:
                    self.ctx = saved
