"""Actions: declarations (parameters and their control-plane names, directions, types the control
plane cannot set, default arguments), ``@name``'d twins that p4c merges, and errors kept until
p4c would raise them (an unused action is removed first).

A mixin of :class:`switch.compiler.elaborate.Elaborator` (moved out of ``elab_blocks``): ``self``
holds the program-wide tables and the current block context ``self.ctx``.
"""
from __future__ import annotations

import json

from .ast import Node, annotation
from .elab_common import E, is_bits, Scope, tstr


class ActionRules:
    def declare_action(self, d: Node, q: str, scope: Scope, hides: tuple | None = None) -> None:
        """``hides``: what the action's name stood for in ``scope`` before it (a control's
        parameter): its body still sees that (p4c: the action's own name is not visible in its
        body; after it the action shadows the parameter, a warning)."""
        with self.translation_errors_kept([]) as bad:
            self._declare_action(d, q, scope, hides)
        if bad:   # raised where the action is kept (elab_output), as p4c removes an unused one first
            rec = self.actions.get(scope.lookup(d.name)[1]) if scope.lookup(d.name) else None
            if rec is None:
                raise bad[0]
            rec.setdefault("deferred_error", bad[0])

    def _declare_action(self, d: Node, q: str, scope: Scope, hides: tuple | None) -> None:
        name_anno = annotation(d.annos, "name")
        if name_anno:
            nm = name_anno[1][0]
            q = nm[1:] if nm.startswith(".") else (q.rsplit(".", 1)[0] + "." + nm if "." in q else nm)
            self.note_empty_name(q, "action", name_anno)
        dup = self.actions.get(q)
        real_q = q
        if dup is not None:
            if not name_anno and not annotation(dup["annos"], "name"):
                # (a plain action after one @name'd like it is a twin as below: p4c keeps both
                # while no table lists the two; p4c_mutate seed 85, kind name_clash)
                raise E(d.loc, f"action {q} declared twice")
            # an @name declared again (P4-14 translations put @name(".x") on a copy in every
            # control): p4c lists one action; accepted here when both are the same action
            q = f"{q}#{len(self.actions)}"
        ascope = Scope(scope)
        params = []
        seen_plain = False
        for i, p in enumerate(d.params):
            t = body_t = self.resolve_type(p.type)
            py = f"a{len(self.actions)}_{p.name}"
            not_cp = False   # a directionless parameter no control plane can set
            if p.direction is None:
                seen_plain = True
                if t[0] == "serenum":
                    t = t[2]
                if t[0] == "bool":
                    t = ["bit", 1]
                if t[0] == "enum":
                    # a plain enum: p4c's JSON gives it 32 bits (the member's position), its
                    # P4Info a type_name and no width
                    t = ["bit", 32]
                if not is_bits(t):
                    t, not_cp = self.non_bits_action_param(p, t), True
            elif seen_plain:
                raise E(p.loc, "directional action parameters must come before directionless ones")
            # the body sees a serializable enum as the enum and a bool as a bool (p4c), the
            # control plane its bits
            vt = body_t if body_t[0] in ("serenum", "bool", "enum") else t
            var_ir = {"op": "var", "n": py, "t": vt}
            if vt[0] == "varbit" and p.direction:   # a box, as a varbit local (bits `v`, length)
                var_ir = {"op": "field", "base": var_ir, "f": "v", "t": vt}
            ascope.add(p.name, ("var", var_ir, p.direction or "in"))
            self.check_default_arg(p, scope)
            if p.direction is None and not _mentions_name(d.body, p.name):
                self.warn(p.get("name_loc") or p.loc, f"'{p.name}' is unused")
                self.warn(p.get("name_loc") or p.loc, f"Unused action parameter {p.name}")
            cp = annotation(getattr(p, "annos", None) or [], "name")
            params.append({"name": p.name, "py": py, "t": t, "dir": p.direction,
                           "cp_name": _param_cp_name(cp, p.name), "annos": getattr(p, "annos", None),
                           "newtype": self.newtype_of(p.type), "enum": _serenum_name(self.resolve_type(p.type)),
                           "default": getattr(p, "default", None),
                           **({"bool": True} if p.direction is None and body_t[0] == "bool" else {}),
                           **({"not_cp": True} if not_cp else {}), **({"loc": p.loc} if p.direction is None else {}),
                           **({"plain_enum": body_t[1]} if p.direction is None and body_t[0] == "enum" else {})})
            if p.direction in (None, "in"):
                self.note_algo_param(var_ir, params[-1])
        ctl = self.ctx.get("block") if getattr(self, "ctx", None) and self.ctx.get("kind") == "control" else None
        rec = {"name": q, "params": params, "body": None, "annos": d.annos, "control": ctl,
               "uid": ((annotation(d.annos, "id") or (None, [None]))[1] or [None])[0], "used": False,
               "decl": len(self.actions)}   # (declaration order, kept across twin swaps: action_twins)
        self.actions[q] = rec
        if d.params:   # (where p4c names an unknown argument name of a call: elab_calls.positional)
            self.__dict__.setdefault("action_params_loc", {})[q] = getattr(d.params[0].type, "loc", None) or d.params[0].loc
        saved = getattr(self, "ctx", None)
        from .elab_ctor import _ast_nodes
        self.ctx = dict(saved or {}, in_action=q, ctl_local=False, cond_return=False, dead=False, after_return=False,
                        apply_body=True, action_returns=any(n.kind == "return" for n in _ast_nodes(d.body)))
        # the action's own name is not visible in its body (p4c: "declaration not found")
        shadow = scope.names.pop(d.name, None)
        if hides is not None:
            scope.names[d.name] = hides
        try:
            rec["body"] = self.param_union_copies(self.stmt(d.body, ascope), params)
            self.settle_match_kind_stores(rec["body"])
            self.refuse_metadata_local_copies(rec["body"])
            self.flush_divisions(parser=False)   # (after the stores p4c drops: apply_body above)
            self.settle_unbound_calls(rec["body"])
        finally:
            scope.names.pop(d.name, None)
            if shadow is not None:
                scope.names[d.name] = shadow
        self.ctx = saved
        if dup is not None:
            del self.actions[q]
            if not _same_action(dup, rec) or not annotation(dup["annos"], "name"):
                # (also an action of another declaration @name'd like one without @name --
                # `@name(".NoAction") action a() {}` beside core.p4's NoAction: p4c keeps two
                # actions of one name, a JSON label clash where one table gets both, mutz23)
                # p4c accepts it while no table lists both (direct calls are inlined): kept as
                # a twin that only direct calls reach, left out of the P4Info
                q = f"{real_q}__twin{len(self.actions)}"
                rec["name"], rec["twin_of"] = q, real_q
                self.actions[q] = rec
            else:
                q = real_q
                if rec.get("deferred_error") is not None:   # (each copy's back-end error counts, in
                    # p4c's conversion order -- ElabOutput.finish; DINGDAMU/P4DDoS's two _drop)
                    dup.setdefault("copy_errors", []).append((ctl, rec["deferred_error"]))
        scope.add(d.name, ("action", q))  # the source name resolves to the (@name'd) action

    def non_bits_action_param(self, p: Node, t: list) -> list:
        """A directionless action parameter of a type the control plane cannot set (a header,
        struct, union, stack, tuple, ``error``, ``match_kind``, ``string``).  p4c refuses an
        ``int`` or an extern type at the declaration; the others only where the control plane
        would set them -- a table that p4c keeps lists the action (its P4Runtime serializer:
        "Action parameter v has a type which is not bit<>, ...", at the parameter; see
        elab_tables) -- or, for a ``string``, where a call declares it.  An action nothing
        uses, or one only called directly (p4c inlines the call), compiles: the body sees the
        parameter as an ``in`` one of its own type (p4_mutate probes, helper mutz21)."""
        kind = t[0] if isinstance(t, list) else t
        if kind in ("int", "int_lit"):
            raise E(p.loc, f"{p.name}: actions cannot have parameters with type int (p4c)")
        if kind in ("extern", "packet_in", "packet_out") or (kind == "named" and len(t) > 1 and t[1] in self.__dict__.get("extern_types", ())):
            raise E(p.loc, f"{tstr(t)}: action parameters cannot have extern types (p4c)")
        return t

    def check_default_arg(self, p: Node, scope) -> None:
        """A parameter's default value must be a compile-time constant (p4c)."""
        dv = getattr(p, "default", None)
        if dv is not None and dv.kind != "dontcare" and self.constant_ir(*self.expr(dv, scope)) is None:
            raise E(dv.loc, f"default value of parameter {p.name} must be a compile-time constant")


def _serenum_name(t) -> str | None:
    return t[1] if t[0] == "serenum" else None


def _mentions_name(n, name: str) -> bool:
    """Whether the AST ``n`` uses the plain name ``name`` anywhere."""
    todo = [n]
    while todo:
        x = todo.pop()
        if isinstance(x, Node):
            if x.kind == "name" and x.get("name") == name:
                return True
            todo.extend(v for v in x._attrs.values() if isinstance(v, (Node, list, tuple)))
        elif isinstance(x, (list, tuple)):
            todo.extend(v for v in x if isinstance(v, (Node, list, tuple)))
    return False


def _same_action(a: dict, b: dict) -> bool:
    """Whether two action records are the same action up to their parameters' Python names."""
    if [(p["name"], p["t"], p["dir"], p["cp_name"]) for p in a["params"]] != \
            [(p["name"], p["t"], p["dir"], p["cp_name"]) for p in b["params"]]:
        return False
    body = json.dumps(b["body"], sort_keys=True, default=str)
    for pa, pb in zip(a["params"], b["params"]):
        body = body.replace(json.dumps(pb["py"]), json.dumps(pa["py"]))
    return body == json.dumps(a["body"], sort_keys=True, default=str)


def _param_cp_name(anno, name: str) -> str:
    """An action parameter's P4Info name: its ``@name``, less one leading dot (p4c's
    controlPlaneName of a parameter: ``@name(".zz.top")`` is ``zz.top``; p4c_mutate seed 309)."""
    if not anno or not anno[1]:
        return name
    text = str(anno[1][0])
    return text[1:] if text.startswith(".") else text
