"""Header-union def-use at call sites: the elaborator's side of :mod:`.union_defuse`.

What a call stands for in p4c's def-use view (:meth:`UnionRules.inlined_control`: a sub-control's
inlined body, an action's body and copy-back, a table's actions), and the verdicts gathered at
each call site once its block is elaborated (:meth:`UnionRules.record_body_stores`): which
union-member stores of a sub-control's body, and of an action's body, the statements after the
site overwrite unread.  p4c inlines a sub-control's body at every apply before its def-use pass,
so what runs inside the body -- an action's copy-back (``a(h.u.x)``), a direct action call's or a
table action's store -- is judged again with each caller's statements after the apply
(:meth:`UnionRules.record_caller_view`; ``sa.apply(hdr); hdr.u.x = hdr.h2;`` drops them, so BMv2
keeps ``u.w`` valid) -- also a body applied in another body, with the outer body's callers.  In
an inlined body the actions and tables it runs see the caller's arguments for its parameters
(``_args``: :func:`.union_defuse.in_place`).  :meth:`UnionRules.settle_unions` settles all of it
once every block is elaborated: a store or copy-back dead at every apply goes; dead at some, it
checks a ``_dead<key>`` flag those applies set on the body's locals (``dead_stores``; an entry
``[K, F]`` passes the caller's flag F on as K: a call's own copy in a body applied several times,
an apply in another body).

A mixin of :class:`switch.compiler.elaborate.Elaborator`.
"""
from __future__ import annotations

from .copy_paths import may_write
from .dead_reads import dead_action_store_paths, drop_dead_action_stores
from .elab_common import E, ir_dicts
from .header_init import body_stores_dead, mentions
from .subcontrol_args import mark_copied_applies
from .union_defuse import action_copy_back_dead, note_call_site
from .union_defuse import touches as union_touches
from .union_defuse import action_store_verdicts, body_store_verdicts, in_place, in_place_structs, inlined_action, \
    inlined_body, mark_action_stores, one_of, out_overwrite, returns_passed, settle_action_stores, settle_body_stores, \
    settle_copy_backs, switch_cases, walk_rest, with_args


class UnionRules:
    def runtime_union_index(self, et, v, loc) -> None:
        """An element of a stack of header unions at an index known at run time only (``us[i].b.v =
        5``, ``us[i].isValid()``, ``us[2] = us[i]``; in a control, an action or a parser, of a
        parameter or a local): p4c 1.2.4.8 dies on it -- its BMv2 back end with a segmentation
        fault (exit 245, no message), its def-use pass on ``isValid()`` with a Compiler Bug; a few
        programs escape depending only on the file's name (errs19 probes t8, run under two names)."""
        if v is None and et[0] == "struct" and self.structs[et[1]].get("union"):
            err = E(loc, "a header union in a stack at a run-time index: p4c dies on it (segmentation fault, "
                         "exit 245, no message; for isValid() a Compiler Bug in frontends/p4/def_use.cpp)")
            err.after_type_checking = True
            raise err

    def subcontrol_of(self, call: dict) -> dict | None:
        """The sub-control instance an ``apply_control`` runs."""
        return next((b for b in getattr(self, "subcontrols", None) or () if b.get("fn") == call["fn"]), None)

    def inlined_control(self, call: dict, lv) -> list | None:
        """What an ``apply_control`` (or a ``call_action``) runs, for the def-use view of
        :mod:`.union_defuse`."""
        if call.get("s") == "call_action":
            act = self.actions.get(call["action"])
            # (in a sub-control body: its parameters in the action's body are the body's arguments)
            return None if act is None else inlined_action(dict(act, body=with_args(call, act.get("body"))), call, lv)
        if call.get("s") == "eval":   # (a function called for its effect, every argument `in`)
            call = {"s": "call_fn", "fn": call["e"]["fn"], "args": [{"dir": "in", "e": x} for x in call["e"]["args"]]}
        if call.get("s") == "call_fn":
            # (an in/inout argument: copied in and out around the body, as an action's -- p4c inlines both)
            fn = next((f for f in (getattr(self, "functions", None) or {}).values() if f.get("py") == call["fn"]), None)
            return out_overwrite(call, lv) or (None if fn is None or fn.get("body") is None
                                               else inlined_action(fn, call, lv))
        if call.get("s") == "apply":
            return self.inlined_table(call, lv)
        if call.get("s") == "switch_action":
            # the table, then its cases; none of them runs unless there is a `default` or a case
            # per action (p4c's ComputeWriteSet counts the cases), or when a label falls through
            # to the next one (p4c visits its missing statement: nothing written)
            view = self.inlined_table(call, lv)
            return None if view is None else view + switch_cases(call, self.switch_may_skip(call))
        blk = self.subcontrol_of(call)
        if blk is None:
            return None
        return out_overwrite(call, lv) or inlined_body(blk, call, lv)

    def inlined_for_copies(self, call: dict, rest: tuple | None = None) -> list | None:
        """A sub-control apply as p4c's inliner pastes it, for ``switch_copies``: the body with
        each struct argument passed ``inout`` in place of its parameter (None: no such body).  An
        action call: its body, then its out/inout arguments' copy-backs (p4c inlines it too).  A
        table apply: an ``if`` reading its keys, then one of its actions' bodies (None where an
        action binds arguments); with ``rest`` (the statement lists after the apply), an action
        this apply is the only use of loses the stores p4c's def-use drops as dead, for good
        (:func:`.dead_reads.drop_dead_action_stores`, :meth:`_sole_use`)."""
        if call.get("s") == "call_action":
            act = self.actions.get(call.get("action"))
            if act is None or act.get("body") is None:
                return None
            body = list(with_args(call, act["body"]))
            # (an inout parameter the body leaves alone comes back as `arg = arg`: p4c drops it)
            return body + [{"s": "assign", "l": a["e"], "r": {"op": "var", "n": None}}
                           for a, p in zip(call["args"], act.get("params") or ())
                           if a.get("dir") == "out" or a.get("dir") == "inout" and any(may_write(x, p["py"]) for x in body)]
        if call.get("s") == "apply":   # (its keys read, as a first statement; then one of its actions)
            tab = self.tables.get(call.get("table"))
            acts = [(ta, self.actions.get(ta.get("name"))) for ta in (tab or {}).get("actions") or ()]
            if tab is None or any(a is None or a.get("body") is None or ta.get("bound") for ta, a in acts):
                return None
            keys = {"s": "if", "c": {"op": "list", "items": [k.get("expr") for k in tab.get("keys") or ()]},
                    "then": [], "else": None}
            bodies = []
            for ta, a in acts:
                if rest is not None and self._sole_use(tab, ta):   # (p4c's JSON has the body without them: so does ours)
                    a["body"] = drop_dead_action_stores(a["body"], rest, self.inlined_for_copies)
                elif rest is not None and self._applied_once(tab):
                    # p4c gives each table its own copy of an action (LocalizeAllActions) and drops the
                    # dead stores of this table's copy only: the table reference runs a variant without
                    # them (dead_reads.specialize_copy_out_bodies) where another table lists the action
                    # or the control calls it (opens2's guard listed_by_a_second_table with an entry
                    # for t3's other action: fuzz_samples seed 114, helper p4rt38)
                    dead = dead_action_store_paths(a["body"], rest, self.inlined_for_copies)
                    if dead:
                        ta["dead_paths"] = dead
                        bodies.append(drop_dead_action_stores(a["body"], rest, self.inlined_for_copies))
                        continue
                bodies.append(list(a["body"]))
            return [keys] + one_of(bodies)
        blk = self.subcontrol_of(call)
        if blk is None:
            return None
        subst = {a["py"]: a["e"] for a in call["args"]
                 if "py" in a and a["dir"] == "inout" and (a["e"].get("t") or [None])[0] == "struct"}
        return in_place(list(blk.get("locals") or []) + list(blk["body"]), subst)

    def _uses(self) -> list | None:
        """What the names of the control's apply block and actions resolve to (an action_run case's
        label names no use); None without a view (a sub-control; once every block is elaborated)."""
        from .elab_ctor import _ast_nodes
        ctx = getattr(self, "ctx", None) or {}
        node, scope = ctx.get("node"), ctx.get("scope")
        if node is None or scope is None or ctx.get("sub"):
            return None
        nodes = list(_ast_nodes([node.body] + [d for d in node.locals if d.kind == "action"]))
        labels = {id(n.label) for n in nodes if n.kind == "swcase"}
        return [scope.lookup(n.name) for n in nodes if n.kind == "name" and id(n) not in labels]

    def _applied_once(self, tab: dict) -> bool:
        """Whether table ``tab`` is named once in the control's apply block."""
        uses = self._uses()
        return uses is not None and uses.count(("table", tab["name"])) == 1

    def _sole_use(self, tab: dict, ref: dict) -> bool:
        """Whether table ``tab``, named once in the control's apply block, is the only use of its
        listed action ``ref`` (no other table named there lists it -- p4c's front end has removed
        the unapplied ones; neither that block nor an action calls it)."""
        uses = self._uses()
        if uses is None:
            return False
        others = [t for q, t in self.tables.items() if t is not tab and ("table", q) in uses]
        return uses.count(("table", tab["name"])) == 1 and ("action", ref["name"]) not in uses and \
            not any(ref["name"] == a.get("name") for t in others for a in t["actions"])

    def switch_may_skip(self, sw: dict) -> bool:
        """Whether p4c's def-use view of a ``switch`` on ``t.apply().action_run`` has a path past
        every case: unless there is a `default` or a case per action of ``t`` (p4c's
        ComputeWriteSet counts the cases), and whenever a label falls through to the next one
        (p4c visits its missing statement: nothing written)."""
        labels = [x for c in sw["cases"] for x in c["labels"]]
        return "default" not in labels and len(labels) != len(self.tables[sw["table"]]["actions"]) or \
            any(len(c["labels"]) > 1 for c in sw["cases"])

    def inlined_table(self, call: dict, lv) -> list | None:
        """A table apply (``call``) in p4c's def-use view: its keys read, then one of its actions --
        an ``if`` chain of their bodies (in a sub-control body: with its arguments, ``_args``).
        None (no view) when a key may read ``lv``, the table has no default action or binds an
        action's arguments."""
        tab = self.tables.get(call["table"])
        if tab is None or tab.get("default") is None or \
                any(union_touches(with_args(call, k.get("expr")), lv) for k in tab.get("keys") or ()):
            return None
        bodies = []
        for ta in tab.get("actions") or ():
            act = self.actions.get(ta.get("name"))
            if act is None or ta.get("bound") or act.get("body") is None:
                return None
            # (a return ends the action only: the switch cases after the apply run -- fuzz_mutants
            # seed 4729, `if (meta.m8 == 0) { return; }` in an action every case overwrites after)
            bodies.append(list(returns_passed(act["body"])))
        return with_args(call, one_of(bodies)) if bodies else None

    def record_body_stores(self, call: dict, rest: list) -> None:
        """Which union-member stores of the body of the sub-control ``call`` applies the
        statements ``rest`` after it make dead (:func:`.union_defuse.settle_body_stores`
        drops those dead at every call site once all blocks are elaborated); for an action
        called, or a table applied, those of the actions' bodies
        (:func:`.union_defuse.settle_action_stores`)."""
        if call.get("s") in ("call_action", "apply", "switch_action") or call.get("op") == "table_hit":
            verdicts = self.__dict__.setdefault("union_action_verdicts", {})
            for sid, dead in self.action_site_verdicts(call, rest):
                verdicts.setdefault(sid, {})[call["asite"]] = dead
            return
        blk = self.subcontrol_of(call)
        if blk is None:
            return
        verdicts = self.__dict__.setdefault("union_body_verdicts", {})
        site = self.call_site(call)
        for sid, dead in body_store_verdicts(blk, call, rest, self.inlined_control):
            verdicts.setdefault(sid, {})[site] = dead
        self.record_caller_view(blk, call, site, rest)

    def call_site(self, call: dict) -> int:
        """The number of sub-control apply ``call`` among the call sites the verdicts name."""
        site = call.setdefault("site", len(self.__dict__.setdefault("union_sites", [])))
        if site == len(self.union_sites):
            self.union_sites.append(site)
        return site

    def self_init_body_stores(self, call: dict, target, reads: set) -> set | None:
        """For :func:`.header_init.drop_stores_before_self_init`: a sub-control apply ``call``
        before a self-reading initializer of header ``target`` whose arguments reach ``target``
        only through struct arguments p4c uses in place -- its inliner pastes the body there, so
        the body's stores to fields the initializer does not read (``reads``) are dead at this
        site (``hdr.opt.e1 = ..`` in the body, ``sc.apply(hdr, ..); hdr.opt = {hdr.opt.e0, ..};``:
        fuzz_exprs seed 18038), settled over all sites with the union verdicts
        (:func:`.union_defuse.settle_body_stores`).  The fields read before the call, or None."""
        blk = self.subcontrol_of(call)
        subst = in_place_structs(call) if blk is not None else {}
        if not subst or any(a.get("py") not in subst for a in call["args"] if mentions(a.get("e"), target)):
            return None
        for k, n in enumerate(n for n in ir_dicts(blk["body"]) if n.get("s") == "assign"):
            n.setdefault("sid", f"{blk['fn']}#i{k}")
        got = body_stores_dead(in_place(list(blk["body"]), subst), target, reads)
        if got is None:
            return None
        verdicts = self.__dict__.setdefault("union_body_verdicts", {})
        for x in got[0]:
            verdicts.setdefault(x["sid"], {})[self.call_site(call)] = True
        return got[1]

    def action_site_verdicts(self, call: dict, rest: list) -> list:
        """``[(sid, dead)]`` for the union stores of the actions an action call or a table apply
        (``call``, given its ``asite`` here) runs, followed by ``rest``
        (:func:`.union_defuse.action_store_verdicts`; a table applied in a switch on its
        action_run: its actions, then the cases)."""
        names = [call["action"]] if call.get("s") == "call_action" else \
            [a["name"] for a in (self.tables.get(call["table"]) or {}).get("actions") or ()]
        if call.get("s") == "switch_action":
            rest = switch_cases(call, self.switch_may_skip(call)) + list(rest)
        sites = self.__dict__.setdefault("union_action_verdicts", {}).setdefault("#sites", [])
        if call.setdefault("asite", len(sites)) == len(sites):
            sites.append(call["asite"])
        out = []
        for q in names:
            act = self.actions.get(q)
            if act is not None and act.get("body") is not None:
                body = with_args(call, mark_action_stores(q, act["body"]))   # (marked where it is)
                out += action_store_verdicts(q, body, rest, self.inlined_control)
        return out

    def record_caller_view(self, blk: dict, call: dict, site: int, rest: list, outer: tuple | None = None) -> None:
        """The body of sub-control ``blk`` as p4c inlines it at ``call`` (caller site ``site``),
        followed by the caller's statements ``rest``: each action copy-back into a union member
        there (an argument marked ``cbid``) and each action call or table apply there (its
        ``asite``) judged again, into ``union_caller_views`` -- ``("cb", cbid)`` or ``("act",
        sid, asite)`` -> ``{"fn": blk's function, "v": {site: verdict}}``; a sub-control applied
        in the body, once more with this caller's statements after the body (``outer``: this
        body's function and site; its verdicts under ``"via"``: ``{its site: {"fn": blk's
        function, "v": {site: verdict}}}``).  Settled by :meth:`settle_caller_views`.  Only stores through struct
        arguments p4c uses in place."""
        subst = in_place_structs(call)
        if not subst:
            return
        views = self.__dict__.setdefault("union_caller_views", {})
        for n in ir_dicts(blk["body"]):
            for x in n.get("args") or () if n.get("s") == "call_action" else ():
                if x.get("siblings") and not x.get("dead") and x["dir"] in ("out", "inout"):
                    x.setdefault("cbid", len(views.setdefault("#cb", [])))
                    if x["cbid"] == len(views["#cb"]):
                        views["#cb"].append(x["cbid"])

        def note(key, verdict):
            entry = views.setdefault(key, {"fn": blk["fn"], "v": {}, "via": {}})
            if outer is None:
                entry["v"][site] = verdict
            else:
                entry["via"].setdefault(site, {"fn": outer[0], "v": {}})["v"][outer[1]] = verdict

        def action_site(n, after):
            if n.get("asite") is not None and n.get("s") != "apply_control":
                for sid, dead in self.action_site_verdicts(n, after):
                    note(("act", sid, n["asite"]), dead)

        def visit(b, after):
            for x in b.get("args") or () if b.get("s") == "call_action" else ():
                if x.get("cbid") is not None:
                    note(("cb", x["cbid"]), action_copy_back_dead(after, x["e"], self.inlined_control, self.subcontrol_of))
            note_call_site(action_site, b, after)
            inner = self.subcontrol_of(b) if b.get("s") == "apply_control" and outer is None else None
            if inner is not None and b.get("site") is not None:   # (two levels deep at most)
                self.record_caller_view(inner, b, b["site"], after, (blk["fn"], site))
        walk_rest(in_place(list(blk.get("locals") or []) + list(blk["body"]), subst), list(rest), visit)

    def settle_unions(self, blocks) -> None:
        """Settle the def-use verdicts once every block is elaborated: copy-backs that hang on
        ``copy_args`` (:func:`.union_defuse.settle_copy_backs`), what sub-control bodies' call
        sites make dead (:meth:`settle_caller_views`, then
        :func:`.union_defuse.settle_body_stores`) and the action bodies' stores
        (:func:`.union_defuse.settle_action_stores`)."""
        bodies = [blocks, getattr(self, "subcontrols", [])]
        actions = [[a.get("body") for a in self.actions.values()]]
        mark_copied_applies(bodies)
        settle_copy_backs(bodies + actions)
        applies = [n for n in ir_dicts(bodies) if n.get("s") == "apply_control"]
        self.refuse_copied_element_args(applies)   # (elab_load_refusals)
        key = self.settle_caller_views(applies)
        by_caller = self.by_caller_units(applies)   # (before settle_body_stores takes the sites)
        key = settle_body_stores(getattr(self, "subcontrols", []), getattr(self, "union_body_verdicts", {}), bodies, key)
        settle_action_stores(self.actions, self.table_action_names(), self.__dict__.get("union_action_verdicts", {}),
                             bodies + actions, key, by_caller)

    def table_action_names(self) -> dict:
        return {q: [a["name"] for a in t["actions"]] for q, t in self.tables.items()}

    def by_caller_units(self, applies: list) -> dict:
        """p4c's copies of the actions called directly in a sub-control body: one per call and per
        apply of the body (its inliner pastes the body at each apply, InlineActions then each
        call), for :func:`.union_defuse.settle_action_stores` -- action -> [(call node, [(apply_control
        node, dead(sid))])]: a store is dead in the copy when it is at the call within the body
        (``union_action_verdicts``) or with that apply's caller's statements after it
        (:meth:`record_caller_view`, :meth:`settle_caller_views`)."""
        dead_at = self.__dict__.get("union_caller_dead", {})
        verdicts = self.__dict__.get("union_action_verdicts", {})
        out: dict = {}
        for blk in getattr(self, "subcontrols", []):
            mine = [c for c in applies if c["fn"] == blk["fn"]]
            for n in ir_dicts(blk["body"]):
                if n.get("s") != "call_action" or n.get("asite") is None or not mine:
                    continue
                out.setdefault(n["action"], []).append((n, [(c, lambda sid, n=n, c=c: bool(
                    verdicts.get(sid, {}).get(n["asite"]) or id(c) in dead_at.get(("act", sid, n["asite"]), ())))
                    for c in mine]))
        return out

    def settle_caller_views(self, applies: list) -> int:
        """Apply :meth:`record_caller_view`'s verdicts (``applies``: every ``apply_control`` node);
        ``union_caller_dead``: view key -> the ids of the applies where it is dead (after every apply
        of the enclosing body, for an apply in another sub-control's body).  A call or table apply
        in a sub-control body whose action stores every apply makes dead counts as dead there
        (``union_action_verdicts``: settled with the others; direct calls also per apply:
        :meth:`by_caller_units`); an action copy-back dead at every apply is not made (``dead``),
        one dead at some gets a ``dead_key`` K (from 0) that those applies list in ``dead_stores``
        (the generated copy-back checks the flag), and an apply in another body, dead after some
        of that body's applies, lists ``[K, F]`` and those applies F (the flag passed down).  An
        apply whose arguments go through temporaries (``copy_args``), or one not judged, keeps
        them.  Returns the next free key."""
        views = self.__dict__.get("union_caller_views", {})
        copied = {n["fn"] for n in applies if n.get("copy_args")}

        def verdict(v) -> bool:
            if isinstance(v, tuple):   # (an action copy-back: verdict, alternative if copied)
                return v[1]["dead"] if v[1] is not None and copied & set(v[1]["fns"]) else v[0]
            return bool(v)

        def outer_dead(view, n) -> list | None:
            """``n`` in another sub-control's body: the applies of that body after which
            ``view``'s store is dead (None: ``n`` is not judged that way)."""
            via = view["via"].get(n.get("site"))
            if via is None:
                return None
            return [a for a in applies if a["fn"] == via["fn"] and not a.get("copy_args") and verdict(via["v"].get(a.get("site")))]

        def dead_here(view, n) -> bool:
            """Whether ``view``'s store is dead at apply ``n``: with the statements after it, or
            after every apply of the body ``n`` is in."""
            if n.get("copy_args"):
                return False
            outer = outer_dead(view, n)
            return verdict(view["v"].get(n.get("site"))) or \
                outer is not None and len(outer) == sum(a["fn"] == view["via"][n["site"]]["fn"] for a in applies)
        dead_at = self.__dict__.setdefault("union_caller_dead", {})
        for k, view in views.items():
            if k != "#cb":
                dead_at[k] = {id(n) for n in applies if n["fn"] == view["fn"] and dead_here(view, n)}
        n_applies = {fn: sum(n["fn"] == fn for n in applies) for fn in {n["fn"] for n in applies}}

        def everywhere(k) -> bool:
            return len(dead_at[k]) == n_applies.get(views[k]["fn"], -1)
        verdicts = self.__dict__.setdefault("union_action_verdicts", {})
        for k in dead_at:
            if k[0] == "act" and everywhere(k):
                verdicts.setdefault(k[1], {})[k[2]] = True
        key = 0
        for n in ir_dicts(getattr(self, "subcontrols", [])):
            for x in n.get("args") or () if n.get("s") == "call_action" else ():
                k = ("cb", x.pop("cbid", None))
                if k not in dead_at or x.get("dead"):
                    continue
                if everywhere(k):
                    x.pop("siblings", None)
                    x.pop("dead_if_copied", None)
                    x["dead"] = True
                    continue
                # dead at some applies; an apply in another body, after some of that body's applies:
                # its flag follows theirs (a [K, F] entry, F set by them)
                some = [(c, outer_dead(views[k], c)) for c in applies if c["fn"] == views[k]["fn"]
                        and id(c) not in dead_at[k] and not c.get("copy_args")]
                some = [(c, outer) for c, outer in some if outer]
                if not dead_at[k] and not some:
                    continue
                x["dead_key"], flag = key, key + 1
                for c in applies:
                    if id(c) in dead_at[k]:
                        c.setdefault("dead_stores", []).append(key)
                for c, outer in some:
                    c.setdefault("dead_stores", []).append([key, flag])
                    for a in outer:
                        a.setdefault("dead_stores", []).append(flag)
                    flag += 1
                key = flag
        return key

