"""p4c's ``Predication`` pass (midend/predication.cpp, p4c 1.2.4.8) on the bodies of actions.

BMv2 actions are lists of primitives, so p4c's BMv2 back end turns every ``if`` in an action
into unconditional assignments whose right-hand sides are ``?:`` (Mux) expressions.  The
pass is not a faithful rewrite: with nested ``if``/``else`` branches and assignments that read
a value written earlier in the same ``if`` it builds Muxes that pick the wrong value, and
BMv2 runs what p4c wrote.  Two probes of our own, checked on BMv2::

    if (c1) { x = 1; y = x; } else if (c2) { y = 2; x = y; }
        -> p4c:  y = c1 ? 2 : (c2 ? 2 : y)      (c1 true: y becomes 2, not 1)
    if (c1) { y = 0xf0; } else if (c2) { if (c3) { x = y; } else if (c4) { x = y; } }
        -> p4c:  x = c1 ? y : ...               (c1 true: x becomes 0xf0)

(found with p4c's ``nested_ifs_in_action-bmv2`` sample; cases ``corpus7_predication_*``).
A right-hand side that is a ``?:`` of the program is wrapped like any other (``c ? right :
left``; later p4c sources take it for the pass's own Mux, 1.2.4.8 does not: fuzz_exprs seed 9286).

:class:`Predication` replays the pass on checkmate-p4c's IR: the same traversal, the same
bookkeeping (``liveAssignments``, ``liveAssigns``, the dependent names and the dependency
nesting level, which p4c keeps for the whole program, across actions), the same
ExpressionReplacer walk over the Mux trees, and the same aliasing of a condition that is not
a plain variable into a ``cond`` temporary assigned when the ``if`` is reached.  Names are
the lvalue paths (``p_hdr.h.a``, ``L.v1_x``, a slice ``.7:0``, a constant index ``[1]``).
An empty branch stays (p4c 1.2.4.8's SimplifyControlFlow leaves ``if (c) { ; } else {S}``, and the
pass predicates ``S`` on the else path: replaying it as ``if (!c) {S}`` read a ``!c`` temporary where
p4c reads ``c``, case ``opens4_predicated_local_in_the_else_of_an_if_with_an_empty_branch``); an ``if``
with both branches empty is gone.  An action with a ``return`` is first rewritten as p4c's
RemoveReturns does (:mod:`.remove_returns`; helper opens4).

A header copy in an ``if`` is predicated whole (``q = c ? x : q``, BMv2's ``assign_header`` of a
Mux), a struct copy field by field (the mid end's CopyStructures splits it first); a varbit
assignment in an ``if`` is an ``assign_VL`` of a Mux, on which simple_switch 1.15.5 dies, so such
an action drops the packet first (:data:`VARBIT_DIES`; helper opens5).
An action is left as it is (run with its ``if`` statements, the P4 semantics) when one of its
``if``s holds anything but assignments of bit/int/bool values, headers and structs of those, and
blocks -- a call left unpasted, a union or stack copy, an lvalue whose run-time index is no variable, a nested ``if`` whose
condition calls a function with out/inout arguments (helper fuzz30) -- since what p4c's
earlier passes make of those (inlining temporaries, copies of structures) is not replayed.
A declaration inside a branch is moved to the action's top first, its initializer left as an
assignment (p4c's MoveDeclarations; ``remove_returns.move_nested_declarations``), and a ``?:`` in a
declaration's initializer is dismantled as an assignment's (:func:`dismantle_muxes`; helper opens6).
"""
from __future__ import annotations

import copy

from .action_inline import copyable, inline_calls, struct_copy
from .elab_common import ir_any, is_call
from .remove_returns import move_nested_declarations, remove_returns

_SCALARS = ("bit", "int", "bool")


class _Unsupported(Exception):
    pass


class _Dies(Exception):
    """A varbit assignment under an ``if``: p4c predicates it into an ``assign_VL`` of a ``?:``, and
    simple_switch 1.15.5 dies executing it (actions.h: "tag == ActionParam::FIELD"; helper opens5)."""


#: what a predicated action that holds :class:`_Dies` runs first: the packet is dropped with a trace
#: line, as checkmate-p4c's build does where simple_switch dies (elab_object_calls.bmv2_dies)
VARBIT_DIES = {"s": "assert", "c": {"op": "const", "v": False, "t": ["bool"]}, "not_extern": True,
               "where": "a varbit assignment under an if in an action (p4c predicates it into assign_VL of a ?:; "
                        "simple_switch dies executing it)"}


def lvalue_name(e: dict) -> str | None:
    """p4c's ``Pred::lvalueName``: the path of an lvalue, or None."""
    op = e.get("op")
    if op == "var":
        return e["n"]
    if op == "field":
        base = lvalue_name(e["base"])
        return f"{base}.{e['f']}" if base else None
    if op == "stack_idx":
        base, i = lvalue_name(e["st"]), e["i"]
        if not base:
            return None
        if i.get("op") == "const":
            return f"{base}[{i['v']}]"
        iname = lvalue_name(i)
        return f"{base}[{iname}]" if iname else None
    if op == "slice":
        base = lvalue_name(e["a"])
        return f"{base}.{e['hi']}:{e['lo']}" if base else None
    return None


def _is_mux(e) -> bool:
    return isinstance(e, dict) and e.get("op") == "cond"


def _mux(c: dict, a: dict, b: dict, t) -> dict:
    return {"op": "cond", "c": c, "a": a, "b": b, "t": t}


def _reads(e, out: list) -> list:
    """The names p4c's dependency hooks collect from an expression (PathExpression, Member and
    ArrayIndex push their lvalue names; a Member's base is visited first)."""
    if isinstance(e, list):
        for x in e:
            _reads(x, out)
        return out
    if not isinstance(e, dict):
        return out
    for k, v in e.items():
        if k != "t" and isinstance(v, (dict, list)):
            _reads(v, out)
    if e.get("op") in ("var", "field", "stack_idx"):
        out.append(lvalue_name(e))
    return out


def _locations(e, out: list) -> list:
    """The locations an expression reads (whole lvalue paths, plus what their indexes read)."""
    if isinstance(e, list):
        for x in e:
            _locations(x, out)
        return out
    if not isinstance(e, dict):
        return out
    name = lvalue_name(e) if e.get("op") in ("var", "field", "stack_idx") else None
    if name is not None:
        out.append(name)
        while e.get("op") in ("field", "stack_idx"):   # what the indexes along the path read
            if e["op"] == "stack_idx":
                _locations(e["i"], out)
                e = e["st"]
            else:
                e = e["base"]
        return out
    for k, v in e.items():
        if k != "t" and isinstance(v, (dict, list)):
            _locations(v, out)
    return out


def related(a: str, b: str) -> bool:
    return a == b or a.startswith(b + ".") or a.startswith(b + "[") or b.startswith(a + ".") or b.startswith(a + "[")


def _has_call(e) -> bool:
    """Whether ``e`` holds a call or a read whose value may change between two evaluations."""
    return ir_any(e, lambda n: is_call(n) or n.get("op") in ("reg_read", "lookahead", "lookahead_hdr"))


def _writing_call(e) -> bool:
    """Whether ``e`` holds a call with an out/inout argument."""
    return ir_any(e, lambda n: is_call(n) and any(isinstance(a, dict) and a.get("dir") in ("out", "inout")
                                                  for a in n.get("args") or ()))


class _Live:
    """What is live after a point: everything but ``killed`` (``all``), or only ``names``."""

    def __init__(self, all_: bool, names: frozenset):
        self.all, self.names = all_, names

    def live(self, n: str) -> bool:
        if self.all:
            return not any(n == k or n.startswith(k + ".") or n.startswith(k + "[") for k in self.names)
        return any(related(n, x) for x in self.names)

    def kill(self, n: str) -> "_Live":
        if self.all:
            return _Live(True, self.names | {n})
        return _Live(False, frozenset(x for x in self.names if not (x == n or x.startswith(n + ".") or x.startswith(n + "["))))

    def gen(self, reads: list) -> "_Live":
        if self.all:
            return _Live(True, frozenset(k for k in self.names if not any(related(k, r) for r in reads)))
        return _Live(False, self.names | frozenset(reads))

    def join(self, o: "_Live") -> "_Live":
        if self.all and o.all:
            return _Live(True, self.names & o.names)
        if self.all or o.all:
            a, b = (self, o) if self.all else (o, self)
            return _Live(True, frozenset(k for k in a.names if not any(related(k, x) for x in b.names)))
        return _Live(False, self.names | o.names)


def drop_dead_stores(stmts: list, live: "_Live | None" = None) -> tuple[list, "_Live"]:
    """p4c's front end (SimplifyDefUse) removes an assignment whose value every path overwrites
    before reading it; Predication then never sees it.  Replayed inside one action, everything
    counted live at its end but the action's own locals (the action's callers are not looked
    at: p4c also drops a store that every caller overwrites after the call)."""
    live = live or _Live(True, frozenset())
    out = []
    for s in reversed(stmts):
        k = s.get("s")
        if k == "block":
            body, live = drop_dead_stores(s["body"], live)
            out.append(dict(s, body=body))
        elif k == "if":
            then, lt = drop_dead_stores(s["then"], live)
            els, le = drop_dead_stores(s["else"], live)
            live = lt.join(le).gen(_locations(s["c"], []))
            out.append(dict(s, then=then, **{"else": els}))
        elif k == "assign":
            lv = s["l"]
            name = lvalue_name(lv) if lv.get("op") in ("var", "field", "stack_idx") else None
            if name is not None and not live.live(name) and not _has_call(s["r"]) and not _has_call(lv) \
                    and not s.get("siblings"):
                continue   # dead
            if name is not None:
                live = live.kill(name)
            live = live.gen(_locations(s["r"], []) + (_locations(lv["i"], []) if lv.get("op") == "stack_idx" else []))
            out.append(s)
        else:
            live = _Live(True, frozenset())
            out.append(s)
    return list(reversed(out)), live


def _empty(stmts: list) -> bool:
    return all(s.get("s") == "block" and _empty(s["body"]) for s in stmts)


class _Replacer:
    """p4c's ExpressionReplacer for one assignment (``left = right`` under ``path``)."""

    def __init__(self, left: dict, right: dict, path: list, conditions: list):
        self.left, self.right, self.path, self.conds = left, right, list(path), conditions
        self.level = 0
        self.seen: set = set()

    def visit(self, e) -> None:
        if not isinstance(e, dict) or id(e) in self.seen:
            return
        self.seen.add(id(e))
        if _is_mux(e):
            self.mux(e)
            self.visit(e["c"])
            return
        for k, v in e.items():
            if k == "t":
                continue
            for x in (v if isinstance(v, list) else [v]):
                self.visit(x)

    def mux(self, m: dict) -> None:
        self.level += 1
        then = self.path[self.level - 1] if self.level - 1 < len(self.path) else True
        if self.level == len(self.path):
            m["c"] = self.conds[len(self.conds) - self.level]
            m["a" if then else "b"] = self.right
        elif self.level < len(self.path):
            self.branch(m, then)
        self.visit(m["a"])
        self.visit(m["b"])
        self.level -= 1

    def branch(self, m: dict, then: bool) -> None:
        cond = self.conds[len(self.conds) - self.level - 1]
        left = lvalue_name(self.left)
        tname, ename = lvalue_name(m["a"]), lvalue_name(m["b"])
        if left is None:
            raise _Unsupported
        if then and ename == left:
            m["b"] = copy.deepcopy(self.left)
        elif not then and tname == left:
            m["a"] = copy.deepcopy(self.left)
        side, name = ("a", tname) if then else ("b", ename)
        if _is_mux(m[side]) or name is None or name == left:
            if not _is_mux(m[side]):
                m[side] = _mux(cond, copy.deepcopy(self.left), copy.deepcopy(self.left), self.left["t"])
            self.visit(m[side])


class Predication:
    """One instance for the whole program, like p4c's pass (its dependency state carries over
    from one action to the next)."""

    def __init__(self, callees: tuple = ({}, {}, {})):
        self.dependent: list = []
        self.is_dep: dict = {}
        self.dep_level = 0
        self.fresh = 0
        # (the actions -- unpredicated -- and functions a body may call: p4c pastes them in first;
        # and the struct types, whose arguments it copies field by field)
        self.callees = callees

    # ------------------------------------------------------------------ entry
    def action(self, body: list) -> list:
        """``body`` with every ``if`` predicated as p4c does, or ``body`` itself when the action
        holds something the replay does not cover (module doc)."""
        saved = (list(self.dependent), dict(self.is_dep), self.dep_level, self.fresh)
        # (p4c's front end: SideEffectOrdering dismantles the ?:s, then RemoveReturns and the
        # inliners run -- dismantle_muxes, remove_returns, action_inline)
        flat = dismantle_muxes(body, self)
        src = inline_calls(flat, *self.callees, dismantle=lambda b: dismantle_muxes(b, self)) or flat
        work = move_nested_declarations(remove_returns(src) or src)
        if not any(s.get("s") == "if" for s in _flat(work)):
            self.fresh = saved[3]
            return body
        try:
            # the action's own locals are dead at its end
            own = frozenset(s["n"] for s in _flat(work) if s.get("s") == "decl")
            return [self.top(s) for s in drop_dead_stores(copy.deepcopy(work), _Live(True, own))[0]]
        except _Unsupported:
            self.dependent, self.is_dep, self.dep_level, self.fresh = saved
            return body
        except _Dies:
            self.dependent, self.is_dep, self.dep_level, self.fresh = saved
            return [copy.deepcopy(VARBIT_DIES)] + body

    def top(self, s: dict) -> dict:
        if s.get("s") == "block":
            return dict(s, body=[self.top(x) for x in s["body"]])
        if s.get("s") == "if":
            return self.visit_if(s)
        return s

    # ------------------------------------------------------------------ the pass
    def visit_if(self, s: dict) -> dict:
        then, els = s["then"], s["else"]
        cond = s["c"]
        if cond.get("op") == "const":   # (p4c folds it away before; not replayed)
            raise _Unsupported
        if self.level and _writing_call(cond):
            # a call with out/inout arguments in a nested `if`'s condition: p4c has inlined it into
            # the enclosing branch, where the pass predicates its copy-back; the replay would run it
            # on every path (fuzz_exprs seed 14214): left to run as written
            raise _Unsupported
        if _empty(then) and _empty(els):
            return {"s": "block", "body": []}
        self.level += 1
        rv = []
        if cond.get("op") != "var":
            name = f"_pred_cond{self.fresh}"
            self.fresh += 1
            rv.append({"s": "decl", "n": name, "t": ["bool"], "init": None})
            var = {"op": "var", "n": name, "t": ["bool"]}
            self.live_assigns.append({"s": "assign", "l": var, "r": cond})
            cond = var
        self.conds.append(cond)
        self.path.append(True)
        rv.append({"s": "block", "body": [x for x in (self.inner(y) for y in then) if x is not None]})
        if els:
            self.path[-1] = False
            rv.append({"s": "block", "body": [x for x in (self.inner(y) for y in els) if x is not None]})
        rv.extend(self.live_assigns)
        self.live_assigns, self.live = [], {}
        self.path.pop()
        self.conds.pop()
        self.level -= 1
        return {"s": "block", "body": rv}

    def inner(self, s: dict):
        k = s.get("s")
        if k == "block":
            return {"s": "block", "body": [x for x in (self.inner(y) for y in s["body"]) if x is not None]}
        if k == "if":
            return self.visit_if(s)
        if k == "assign" and (s["l"].get("t") or [None])[0] == "struct":
            # (p4c's mid-end CopyStructures has split a struct copy field by field: helper opens5,
            # `opens5_struct_copy_*`)
            structs = self.callees[2] if len(self.callees) > 2 else {}
            if not copyable(s["l"]["t"], structs, False) or s.get("siblings") or s["r"].get("op") not in ("var", "field"):
                raise _Unsupported
            for x in struct_copy(s["l"], s["r"], structs):
                self.assign(x)
            return None
        if k == "assign":
            self.assign(s)
            return None
        raise _Unsupported

    def assign(self, s: dict) -> None:
        left, right = s["l"], s["r"]
        # (a header too: p4c predicates a header copy whole -- `q = c ? hdr.h : q`, BMv2's assign_header
        # of a Mux; an inlined call's copy-in and copy-back, helper opens5)
        if left.get("t", [None])[0] == "varbit":
            raise _Dies
        if left.get("t", [None])[0] not in _SCALARS + ("header",) or s.get("siblings") or s.get("dead_key") is not None:
            raise _Unsupported
        lname = lvalue_name(left)
        if lname is None:
            raise _Unsupported
        conditions = list(reversed(self.conds))   # p4c: innermost first
        replacer = _Replacer(left, copy.deepcopy(right), self.path, conditions)
        for dep in _reads(right, []):
            if dep in self.live:
                self.dependent.append(lname)
                del self.live[dep]
                self.dep_level = self.level
        name = lname
        self.is_dep[name] = name in self.dependent
        outer = conditions[-1]
        if self.dep_level < self.level and self.is_dep[name]:
            new_right = _mux(outer, right, copy.deepcopy(left), left["t"])
            if not self.path[self.level - 1]:
                name = f"elseStatement{self.fresh}"
                self.fresh += 1
        else:
            if name in self.live:
                new_right = self.live[name]["r"]
            else:   # (p4c 1.2.4.8 wraps a right-hand side that is a Mux too: fuzz_exprs seed 9286)
                new_right = _mux(outer, copy.deepcopy(left), copy.deepcopy(left), left["t"])
            if self.live_assigns and not self.is_dep[name] and \
                    lvalue_name(self.live_assigns[-1]["l"]) == lname:
                self.live_assigns.pop()
        new_right = copy.deepcopy(new_right)
        replacer.visit(new_right)
        st = {"s": "assign", "l": left, "r": new_right}
        self.live[name] = st
        self.live_assigns.append(st)

    # per-if state (p4c's members of the same names)
    level = 0
    path: list
    conds: list
    live: dict
    live_assigns: list

    def reset_if_state(self) -> None:
        self.level, self.path, self.conds, self.live, self.live_assigns = 0, [], [], {}, []


#: what p4c's DismantleExpression walks into looking for a Mux: unary operations (a cast too) and
#: slices; it stops at binary operations, members and indexes without calls
MUX_WRAPPERS = ("cast", "un", "slice")


def dismantle_muxes(body: list, pred: "Predication") -> list:
    """``body`` with each ``?:`` p4c's front-end SideEffectOrdering dismantles made an ``if``
    assigning a temporary (``x = c ? a : b`` -> ``if (c) { tmp = a; } else { tmp = b; } x = tmp``,
    the temporaries declared first): the right-hand side of an assignment and an ``if``
    condition, through :data:`MUX_WRAPPERS` and nested ``?:`` arms.  Predication then sees those ifs --
    with a read of ``x`` in a later ``if`` of the same branch p4c loses that ``if`` (fuzz_mutants
    seed 2955: ``e1 = c5 ? 4 : o5; if (e1 == 2) { e1 = 7; }`` in an else branch is ``e1 = c4 ? e1 :
    tmp`` twice on BMv2).  ``body`` itself when there is none."""
    decls: list = []

    def expr(e, out: list):
        if not isinstance(e, dict):
            return e
        if e.get("op") == "cond":
            c = expr(e["c"], out)
            name = f"_mux_tmp{pred.fresh}"
            pred.fresh += 1
            decls.append({"s": "decl", "n": name, "t": e.get("t"), "init": None})
            var = {"op": "var", "n": name, "t": e.get("t")}
            arms = []
            for side in ("a", "b"):
                pre: list = []
                v = expr(e[side], pre)
                arms.append(pre + [{"s": "assign", "l": dict(var), "r": v}])
            out.append({"s": "if", "c": c, "then": arms[0], "else": arms[1]})
            return dict(var)
        if e.get("op") in MUX_WRAPPERS:
            a = expr(e["a"], out)
            return e if a is e["a"] else dict(e, a=a)
        return e

    def stmts(body: list) -> list:
        out = []
        for s in body:
            k, pre = s.get("s"), []
            if k == "assign":
                r = expr(s["r"], pre)
                s = dict(s, r=r) if pre else s
            elif k == "decl" and s.get("init") is not None:   # (as an assignment: MoveDeclarations; opens6)
                r = expr(s["init"], pre)
                s = dict(s, init=r) if pre else s
            elif k == "if":
                c = expr(s["c"], pre)
                s = dict(s, c=c, then=stmts(s["then"] or []), **{"else": stmts(s["else"]) if s.get("else") else s.get("else")})
            elif k == "block":
                s = dict(s, body=stmts(s["body"]))
            out.append({"s": "block", "body": pre + [s]} if pre else s)
        return out
    out = stmts(body)
    return decls + out if decls else body


def _flat(body: list):
    for s in body:
        yield s
        if s.get("s") == "block":
            yield from _flat(s["body"])


def predicate_actions(actions: list, functions: list = (), structs: dict | None = None) -> None:
    """Replace the ``body`` of each action record (in p4c's order) by its predicated form; each
    record keeps the pass's program-wide state as it was before it (``pred_state``, popped by
    dead_reads.specialize_copy_out_bodies).  ``functions``: the program's, which an action may call;
    ``structs``: the struct types (the elaborator's)."""
    callees = ({a["name"]: {"body": a["body"], "all_params": a["all_params"]} for a in actions},
               {f["py"]: f for f in functions}, structs or {})
    pred = Predication(callees)
    for a in actions:
        pred.reset_if_state()
        a["pred_state"] = (list(pred.dependent), dict(pred.is_dep), pred.dep_level, callees)
        body = pred.action(a["body"])
        if body is not a["body"]:
            # (kept for dead_reads.specialize_copy_out_bodies, which pops it: p4c's def-use drops
            # the stores a call's copy-back overwrites before the pass predicates the rest)
            a["unpredicated"] = a["body"]
        a["body"] = body


def predicate_alone(body: list, state: tuple | None = None) -> list:
    """``body`` predicated by another instance of the pass (an action variant that
    dead_reads.specialize_copy_out_bodies makes from an unpredicated body), which starts from
    ``state``, the program-wide state the pass had before the variant's action (its
    ``pred_state``): p4c predicates the action's copy at that place, after the actions before it,
    whose dependent names change what it writes (helper opens4:
    ``opens4_predicated_variant_after_an_action_with_a_dependent_store``; a fresh instance ran its
    nested ``if``'s double update as if no action came before)."""
    return predicate_from(body, state)[0]


def predicate_from(body: list, state: tuple | None = None) -> tuple[list, tuple]:
    """:func:`predicate_alone`'s body, and the pass's program-wide state after it (a ``pred_state``
    for the action p4c predicates next: dead_reads.specialize_copy_out_bodies carries it on when the
    variant is the action's only copy -- helper opens5)."""
    callees = state[3] if state is not None else ({}, {}, {})
    pred = Predication(callees)
    pred.reset_if_state()
    if state is not None:
        pred.dependent, pred.is_dep, pred.dep_level = list(state[0]), dict(state[1]), state[2]
    out = pred.action(body)
    return out, (list(pred.dependent), dict(pred.is_dep), pred.dep_level, callees)
