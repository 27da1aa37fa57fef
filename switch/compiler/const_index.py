"""p4c's constant propagation seen through run-time stack indices.

p4c 1.2.4.8's midend propagates a constant stored in a local variable, a metadata field or a
header field to a later read of it (``meta.ix = 3; ... hdr.stk[meta.ix]``) and then type-checks
the index it got: "Array index 8w3 larger or equal to array size 3" -- the program is refused
although its index is a run-time expression.  :func:`ConstIndexRules.check_const_indexes` does
that proof on one elaborated statement list, as far as p4c's was measured to reach (probes
against p4c, ``tests/differential/test_invalid.py``):

* constants assigned (or declared) to a variable or a field path -- through structs, headers
  and stack elements of a constant index (``hdr.s[1].a``; helper mutz27), not through header
  unions -- flow forward; a store into an element of a run-time index forgets the whole stack
  before its own index is read (``hdr.s[1].a = 7; hdr.s[hdr.s[1].a].b = 1;`` compiles);
* a statement forgets exactly what it may write: an assignment its left-hand side,
  ``setValid``/``setInvalid`` the header (p4c forgets its fields either way), an action call what
  the action's body (and the actions it calls) writes and its arguments, a table apply -- as a
  statement, in an ``if`` condition (``.hit``/``.miss``) or a ``switch`` -- what any of its actions
  writes (p4c does not follow ``action_run`` into the case that ran), an extern that only reads
  (a counter, a register write, a digest, a clone, a log, an emit) nothing, any other statement
  (an extern that writes, a function, a sub-control) every path it mentions -- a sub-control
  apply then gives its ``out``/``inout`` arguments the constants its body, walked with those of
  its ``in``/``inout`` arguments, leaves at its end (p4c inlines it first; helper mutz27);
* past a ``switch`` each of whose cases ends, p4c's propagation has no path: nothing is known
  there (``prop_reach``, helper mutz30);
* an ``if`` is checked branch by branch and then forgets what either branch writes; in an action
  a branch (and what follows a conditional ``return``) makes no constant: p4c's BMv2 back end
  predicates it (``x = c ? v : x``) before the propagation that folds divisions (helper mutz27).

Everything here may only forget more than p4c, never less: a constant kept where p4c dropped it
would refuse a program p4c compiles.  Where p4c's proof reaches further (a constant written in both
branches of an ``if``), checkmate-p4c still accepts (a division there is still refused).  Where it
is wrong -- it does not take ``extract(hs.next)`` as writing an element of ``hs`` -- a parser's
reads of such a stale constant (or of a copy of an element's field) are pinned to it, as p4c's
JSON has them (``stale_stack``, helpers mutz28 and mutz29).

The same propagation decides p4c's BMv2 back-end check on a division by a constant that is not a
power of two (:meth:`ConstIndexRules.defer_division`): p4c refuses it only when the dividend is
still not constant after its midend ("could not evaluate expression at compilation time"), so
``meta.m8 = 0x10; meta.m8 = (meta.m8 + 1) / 5;`` compiles.  The division is noted where it is
elaborated and refused when its body is done (the outermost block of a control, action or
function; a whole parser) unless a constant made it constant.  In a parser the propagation
follows p4c's state merging (:meth:`ConstIndexRules.check_parser_constants`): SimplifyParsers
merges a state into its only predecessor when that one goes to it unconditionally (not through
a ``select``), and the inliner makes a sub-parser call such a chain -- constants flow through
its arguments into the sub-parser's ``start`` and, when it reaches ``accept`` from one state
unconditionally, back through its ``out``/``inout`` arguments (p4c_mutate seed 54:
``meta.m8 = 0x10; sub.apply(..., meta.m8)``, then ``cnt = (cnt + 1) / 5`` in the sub-parser).
"""
from __future__ import annotations

import collections
import copy

from .elab_common import E, ir_dicts
from .header_init import reduced, reduced_value
from .prop_reach import prop_ends, unfolded_action_divisions
from .stale_stack import COPIES, add_hidden_params, copies_into_call, copies_out_of_call, copies_past_call, \
    mark_stale, pin_votes, stale_reads, track_copies
from .stale_stack import path_key as _key
from .stale_stack import subst_paths as _subst
from .sub_divisions import SubDivisionRules

_PATH_OPS = ("field", "slice", "stack_idx", "stack_next", "stack_last")
# statements that only read their arguments (an index, a value, a field list)
_READ_ONLY = ("counter", "reg_write", "digest", "log", "clone", "emit", "emit_stack", "assert", "truncate")


def _trackable(lv) -> bool:
    """A path of scalars through structs, headers and stack elements of a constant index (not
    through union members, whose siblings' setValid invalidates)."""
    node = lv
    while node.get("op") in ("field", "stack_idx"):
        node = node["base"] if node["op"] == "field" else node["st"]
        if (node.get("t") or [None])[0] == "union" or node.get("op") == "stack_idx" and node["i"].get("op") != "const":
            return False
    return _key(lv) is not None and (lv.get("t") or [None])[0] in ("bit", "int")


def _written_stacks(lv) -> list:
    """The keys of the stacks that the left-hand side ``lv`` indexes at run time."""
    return [k for n in ir_dicts(lv) if n.get("op") == "stack_idx" and n["i"].get("op") != "const"
            and (k := _key(n["st"])) is not None]


def _through_union(lv) -> bool:
    """Whether path ``lv`` goes through a header union (its members are not tracked)."""
    node = lv
    while isinstance(node, dict) and node.get("op") in ("field", "stack_idx"):
        node = node["base"] if node["op"] == "field" else node["st"]
        if (node.get("t") or [None])[0] == "union":
            return True
    return False


def _calls_folded(e, constant_result):
    """``e`` with each call of a function whose every ``return`` gives one constant put as that
    constant: p4c inlines the function before its propagation (``hdr.h.b = g(...) + 1;`` with
    ``g`` returning 0 makes ``hdr.h.b / 7`` constant; p4c_mutate seed 515)."""
    if isinstance(e, list):
        return [_calls_folded(x, constant_result) for x in e]
    if not isinstance(e, dict):
        return e
    if e.get("op") in ("call_fn", "call_fn_out") and (v := constant_result(e)) is not None:
        return {"op": "const", "v": v, "t": e.get("t")}
    return {a: _calls_folded(v, constant_result) for a, v in e.items()}


def _forget(env: dict, lv) -> None:
    """Drop every tracked path ``lv`` may write (it, a part of it, what it is a part of)."""
    node = lv
    while isinstance(node, dict) and node.get("op") in _PATH_OPS:
        if _key(node) is not None:
            break
        node = node.get("base") or node.get("a") or node.get("st")
    k = _key(node)
    if k is None:
        env.clear()
        return
    for x in [x for x in env if x[:len(k)] == k or k[:len(x)] == x]:
        del env[x]


def _forget_mentioned(env: dict, node) -> None:
    """Drop every tracked path that ``node`` (an IR value) names, read or written."""
    if not env:
        return
    if isinstance(node, list):
        for x in node:
            _forget_mentioned(env, x)
    elif isinstance(node, dict):
        if node.get("op") in ("var", "field") and _key(node) is not None:
            _forget(env, node)   # the whole path, not the struct it is a field of
            return
        for v in node.values():
            _forget_mentioned(env, v)


class ConstIndexRules(SubDivisionRules):
    """A mixin of the elaborator: needs ``fold``, ``tables``, ``actions`` and ``dyn_index_locs``
    (id of a run-time ``stack_idx`` IR dict -> (the dict, its index's source location))."""

    def check_const_indexes(self, stmts: list, env: dict | None = None, predicated: bool | None = None) -> None:
        env = {} if env is None else env
        ctx = getattr(self, "ctx", None) or {}
        # (an action a sub-control's walk calls directly: its branches predicated, sub_divisions)
        in_action = bool(ctx.get("in_action")) and not self.__dict__.get("const_dry_depth") \
            or bool(self.__dict__.get("sub_action_walk"))
        if predicated is None:   # (a block of an action's branch, or after its conditional return)
            predicated = in_action and bool(ctx.get("if_depth") or ctx.get("cond_return") and getattr(self, "block_depth", 0) > 1)
        unreached = False
        for st in stmts:
            if unreached:   # (past a switch whose every case ends: no path for p4c's propagation)
                env.clear()
                predicated = True
            unreached = unreached or prop_ends(st, getattr(self, "tables", None))
            s = st.get("s")
            if self.__dict__.get("parser_stale") and s in ("assign", "decl", "verify"):
                stale_reads(st.get("r") if s == "assign" else st.get("init") if s == "decl" else st.get("c"), env,
                            self.__dict__.get("stale_votes"))   # (a verify's condition too: helper mutz30)
            if s == "if":
                self._check_indexes(st["c"], env)
                if not self.__dict__.get("divisions_only"):
                    self._note_folded_if(st, env)
                self._forget_writes(st["c"], env)  # (a table applied in the condition)
                # p4c's BMv2 back end predicates an action's `if` (`x = c ? v : x`) before the
                # propagation that folds divisions: a constant stored in a branch, or after a
                # conditional return, is no constant (a read there still sees those from before)
                self.check_const_indexes(st["then"] or [], dict(env), predicated or in_action)
                self.check_const_indexes(st["else"] or [], dict(env), predicated or in_action)
                self._forget_writes([st["then"], st["else"]], env)
                if in_action and any(d.get("s") == "return" for d in ir_dicts([st["then"], st["else"]])):
                    predicated = True
                continue
            if s == "block":
                self.check_const_indexes(st["body"], env, predicated)
                continue
            if s in ("switch_action", "switch_value"):
                if s == "switch_value":
                    self._check_indexes(st["e"], env)
                self._forget_writes(st.get("e") if s == "switch_value" else {"s": "apply", "table": st["table"]}, env)
                cases = st["cases"]
                if s == "switch_value" and len(cases) == 1 and len(cases[0]["labels"]) == 1 and not any(
                            d.get("s") in ("return", "exit") for d in ir_dicts(cases[0]["body"] or [])):
                    # one case (or a `default` alone): p4c's LocalCopyPropagation has nothing to merge
                    # it with, and goes on with its state as if it always ran (switch_copies; seed 181)
                    self.check_const_indexes(cases[0]["body"] or [], env, predicated)
                    continue
                for c in cases:
                    self.check_const_indexes(c["body"] or [], dict(env), predicated)
                self._forget_writes([c["body"] for c in cases], env)
                continue
            if s == "assign" and (stacks := _written_stacks(st["l"])):
                # a store into an element of a run-time index: p4c's propagation takes the whole
                # stack as written before it reads the left-hand side's own index (`hdr.s[1].a = 7;
                # hdr.s[hdr.s[1].a].b = 1;` compiles; the value still sees the constant)
                self._check_indexes(st["r"], env)
                self._check_indexes(st["l"], {k: v for k, v in env.items() if not any(k[:len(x)] == x for x in stacks)})
            elif s in ("assign", "decl", "setvalid", "nop") or not any("s" in d for d in ir_dicts(st) if d is not st):
                self._check_indexes(st, env)   # (not into statements nested in others)
            if s == "call_action" and self.__dict__.get("const_dry_depth") and self.__dict__.get("sub_divs"):
                self._walk_called_action(st, env)   # (sub_divisions: an action of a sub-control inlined)
            if s == "apply_control" and (out := self._subcontrol_constants(st, env)) is not None:
                self._forget_writes(st, env)
                env.update(out)   # (its out/inout arguments, copied out)
                continue
            if s in ("assign", "decl"):
                lv = st["l"] if s == "assign" else {"op": "var", "n": st["n"], "t": st["t"]}
                r = st.get("r") if s == "assign" else st.get("init")
                v = self.fold(_subst(r, env)) if r is not None and _trackable(lv) else None
                if v is None and r is not None and _trackable(lv):
                    # p4c's front-end strength reduction first: `x = x - x` (`x ^ x`, `x & 0` ..)
                    # stores 0 (fuzz_mutants seed 1229: `h.b = h.b - h.b; h.b = h.b % 5;`)
                    v = self.fold(reduced(_subst(r, env)))
                    if v is None and isinstance(rv := reduced_value(_subst(r, env)), int) and not isinstance(rv, bool):
                        v = rv   # (bottom-up: `(bit<16>)(h.a * 0) + 3` is 3; p4c_mutate seed 541)
                if v is None and r is not None and _trackable(lv) and hasattr(self, "constant_result") and \
                        any(d.get("op") in ("call_fn", "call_fn_out") for d in ir_dicts(r)):
                    v = self.fold(_subst(_calls_folded(r, lambda c: self._one_return_constant(c, env)), env))
                self._forget_writes(st, env)   # (the value is read before the write)
                if predicated:
                    continue
                if v is not None:
                    env[_key(lv)] = v
                elif r is not None and _key(lv) is not None and not _through_union(lv):
                    self._struct_constants(_key(lv), _subst(r, env), env)
            else:
                self._forget_writes(st, env)

    def _one_return_constant(self, call: dict, env: dict):
        """The constant function call ``call`` gives when the function's body has one ``return``
        (of a constant; or the body is that ``return`` alone, of an expression its arguments'
        constants fold: ``widen(7)``, ``widen()`` of a default argument -- p4c inlines it, helper
        mutz29); with more (``if (p == 1) { return 2; } return 2;``) p4c's RemoveReturns leaves a
        flag its propagation does not fold."""
        py = call.get("fn")
        f = next((r for r in getattr(self, "functions", {}).values() if r.get("py") == py), None)
        body = (f or {}).get("body") or []
        if f is None or sum(d.get("s") == "return" for d in ir_dicts(body)) != 1:
            return None
        v = self.constant_result(py)
        while len(body) == 1 and body[0].get("s") == "block":
            body = body[0]["body"]
        if v is None and call.get("op") == "call_fn" and body and body[-1].get("s") == "return" \
                and body[-1].get("v") is not None and self.__dict__.get("const_dry_depth", 0) <= 8:
            args = {}
            for p, a in zip(f.get("params") or (), call.get("args") or ()):
                if (c := self.fold(_subst(a, env))) is not None:
                    args[(p["py"],)] = c
            # (the statements before the return walked with them, checking nothing: `bit<16> t =
            # (bit<16>)v; return t;`)
            self.__dict__["const_dry_depth"] = self.__dict__.get("const_dry_depth", 0) + 1
            saved_chain, self.__dict__["sub_chain"] = self.__dict__.get("sub_chain"), None
            try:
                self.check_const_indexes(body[:-1], args, False)
            finally:
                self.__dict__["const_dry_depth"] -= 1
                self.__dict__["sub_chain"] = saved_chain
            v = self.fold(_subst(body[-1]["v"], args))
        return v

    def _subcontrol_constants(self, st: dict, env: dict) -> dict | None:
        """The constants a sub-control apply ``st`` leaves in its ``out``/``inout`` arguments: p4c
        inlines the body before its propagation, so a constant flows in through an ``in``/``inout``
        argument and out of the body's end (``s.apply(o); hdr.h.b = o / 7;`` with the body ending
        ``o = 4``; p4c_mutate seed 503, helper mutz27).  The body is walked with those constants,
        checking nothing (``const_dry_depth``).  None (forget every argument) when there is no
        body here, a written argument is not a plain path or the body holds a ``return`` (its
        path would leave other values)."""
        blk = self.subcontrol_of(st) if hasattr(self, "subcontrol_of") else None
        chain = self._note_sub_site(st, blk)
        if blk is None or blk.get("body") is None or self.__dict__.get("const_dry_depth", 0) > 8 or \
                any(d.get("s") == "return" for d in ir_dicts(blk["body"])):
            self._opaque_sub_site(chain, blk)
            return None
        entry, outs, opaque_out = {}, [], False
        for a in st["args"]:
            ak = _key(a["e"]) if "py" in a else None
            if ak is None or _through_union(a["e"]):
                if a.get("dir") in ("out", "inout"):
                    # (walked all the same for the body's divisions: sub_divisions; no constant comes out)
                    opaque_out = True
                    continue
                v = self.fold(_subst(a["e"], env)) if "py" in a and (a["e"].get("t") or [None])[0] in ("bit", "int") else None
                if v is not None:   # (a constant value for an `in` parameter)
                    entry[(a["py"],)] = v
                continue
            if a["dir"] in ("in", "inout"):
                entry.update({(a["py"],) + k[len(ak):]: v for k, v in env.items() if k[:len(ak)] == ak})
            if a["dir"] in ("out", "inout"):
                outs.append((ak, a["py"]))
        self.__dict__["const_dry_depth"] = self.__dict__.get("const_dry_depth", 0) + 1
        saved_chain, self.__dict__["sub_chain"] = self.__dict__.get("sub_chain"), chain
        try:
            self.check_const_indexes(list(blk.get("locals") or []) + list(blk["body"]), entry)
        finally:
            self.__dict__["const_dry_depth"] -= 1
            self.__dict__["sub_chain"] = saved_chain
        if opaque_out:
            return None
        out: dict = {}
        for ak, py in outs:   # (copied out in order: a later argument overwrites an earlier one)
            for k in [k for k in out if k[:len(ak)] == ak]:
                del out[k]
            out.update({ak + k[1:]: v for k, v in entry.items() if k[0] == py})
        return out

    def _struct_constants(self, key: tuple, r: dict, env: dict) -> None:
        """A struct given a struct initializer (``Pair16 p = { v, 3 };``): p4c's propagation
        follows each constant field (``p.b % 5`` folds; p4c_mutate seed 106) -- a header's too
        (``hdr.s[1] = { 1, 2, 3 };``, lowered to setValid and the fields; one that reads its own
        header is built in a temporary and is no assignment here: header_init)."""
        kind = (r.get("t") or [None])[0]
        if r.get("op") == "list" and kind == "list":
            # a tuple given a list of constants: p4c follows each element (`tuple<bit<8>, bit<16>> t =
            # { 7, 0x1234 }; hdr.h.c = t[1];` makes `hdr.h.c / 7` constant; p4c_mutate seed 522)
            for i, val in enumerate(r.get("items") or ()):
                if isinstance(val, dict) and (val.get("t") or [None])[0] in ("bit", "int") and \
                        (v := self.fold(val)) is not None:
                    env[key + (i,)] = v
            return
        if r.get("op") != "mk" or kind not in ("struct", "header") or \
                kind == "struct" and self.structs.get(r["t"][1], {}).get("union"):
            return
        for f, val in zip(r["fields"], r["vals"]):
            if isinstance(val, dict) and (val.get("t") or [None])[0] in ("bit", "int"):
                v = self.fold(val)
                if v is not None:
                    env[key + (f,)] = v
            elif isinstance(val, dict):
                self._struct_constants(key + (f,), val, env)

    def _note_folded_if(self, st: dict, env: dict) -> None:
        """An ``if`` whose condition the constants known here make constant: p4c's midend folds
        it and removes the dead branch before its BMv2 back end checks the tables applied on one
        path (``midend_folded_ifs``: id of the IR dict -> the branch kept; elab_tables)."""
        if env and not self.__dict__.get("const_dry_depth") and \
                not any(n.get("op") == "table_hit" or str(n.get("op", "")).startswith("call")
                           for n in ir_dicts(st["c"])):
            v = self.fold(_subst(st["c"], env))
            if v is not None:
                self.__dict__.setdefault("midend_folded_ifs", {})[id(st)] = bool(v)

    def _forget_writes(self, node, env: dict, seen: frozenset = frozenset()) -> None:
        """Forget what the statements or expressions of ``node`` (any depth) may write."""
        if not env:
            return
        if isinstance(node, list):
            for x in node:
                self._forget_writes(x, env, seen)
            return
        if not isinstance(node, dict):
            return
        s = node.get("s")
        if s in ("assign", "decl"):
            if s == "assign":
                _forget(env, node["l"])
            else:
                env.pop((node["n"],), None)
            self._forget_writes(node.get("r", node.get("init")), env, seen)  # calls in the value
            return
        if s == "setvalid":
            _forget(env, node["h"])
            for sib in node.get("siblings") or ():
                _forget(env, sib)
            return
        if s in ("nop", "exit", "return") and len(node) == 1:
            return
        if s == "extract_next" and (k := _key(node["st"])) is not None:
            # p4c's propagation does not take `next` as writing an element of the stack: what it
            # knew of the elements stays, stale (helper mutz28, mutz27's open item)
            mark_stale(env, k)
            return
        if s in _READ_ONLY and not any(str(n.get("op", "")).startswith("call") for n in ir_dicts(node)):
            return
        if s in ("if", "block"):
            self._forget_writes([node.get("c"), node.get("then"), node.get("else"), node.get("body")], env, seen)
            return
        if s in ("for", "for_in"):   # (p4c sees it unrolled: what it writes, not what it reads -- fuzz_exprs seed 18770)
            if s == "for_in":
                env.pop((node["n"],), None)
            self._forget_writes([node.get("c"), node.get("update"), node.get("values"), node.get("body")], env, seen)
            return
        if s == "call_action":
            _forget_mentioned(env, node.get("args"))
            self._forget_action(node["action"], env, seen)
            return
        if s in ("apply", "switch_action"):
            self._forget_table(node["table"], env, seen)
            self._forget_writes([c for c in node.get("cases") or ()], env, seen)
            return
        if node.get("op") == "table_hit":
            self._forget_table(node["table"], env, seen)
            return
        if s is None and "op" not in node:
            self._forget_writes(list(node.values()), env, seen)
            return
        if s is None:  # an expression: what its calls and tables write
            for n in ir_dicts(node):
                if n is not node and isinstance(n, dict) and (n.get("s") or n.get("op") == "table_hit"):
                    self._forget_writes(n, env, seen)
                elif str(n.get("op", "")).startswith("call"):
                    _forget_mentioned(env, n)
            return
        # an extern, a function, a sub-control, a statement of another kind: every path it names,
        # and what the tables and actions inside it write
        _forget_mentioned(env, node)
        for n in ir_dicts(node):
            if n is not node and (n.get("s") in ("call_action", "apply", "switch_action") or n.get("op") == "table_hit"):
                self._forget_writes(n, env, seen)

    def _forget_action(self, name: str, env: dict, seen: frozenset) -> None:
        a = getattr(self, "actions", {}).get(name)
        if a is None or a.get("body") is None or name in seen:
            if a is None or a.get("body") is None:
                env.clear()  # (not elaborated yet: assume the worst)
            return
        self._forget_writes(a["body"], env, seen | {name})

    def _forget_table(self, name: str, env: dict, seen: frozenset) -> None:
        t = getattr(self, "tables", {}).get(name)
        if t is None:
            env.clear()
            return
        for a in t.get("actions") or ():
            _forget_mentioned(env, a.get("bound"))
            self._forget_action(a["name"], env, seen)
        d = t.get("default") or {}
        if d.get("action"):
            self._forget_action(d["action"], env, seen)

    def _check_indexes(self, node, env: dict) -> None:
        for key in ("element_stores", "copied_element_args"):   # (elab_load_refusals.note_element_store,
            stores = self.__dict__.get(key) if env else None      # note_aliased_element_args)
            for n in ir_dicts(node) if stores else ():
                if id(n) in stores and stores[id(n)][3] is n and self.fold(_subst(stores[id(n)][0]["i"], env)) is not None:
                    del stores[id(n)]   # (p4c propagates a constant into the index: a plain assign_header)
        if env and self.__dict__.get("const_dry_depth"):
            self._fold_sub_divisions(node, env)
        if not env or self.__dict__.get("const_dry_depth"):
            return   # (nothing checked while a sub-control body is walked for its constants)
        locs = {} if self.__dict__.get("divisions_only") else getattr(self, "dyn_index_locs", {})
        if any(str(n.get("op", "")).startswith("call") or n.get("op") == "table_hit" for n in ir_dicts(node)):
            return   # (a call or a table may write what the index reads first)
        pending = self.__dict__.get("pending_divs") or {}
        for n in ir_dicts(node):
            if id(n) in pending and pending[id(n)][0] is n and (self.fold(_subst(n, env)) is not None or n.get("o") in (
                    "/", "%") and _power_of_two(self.fold(_subst(n["b"], env)))):   # (a shift: folded only)
                if pending[id(n)][3].get("in_action"):   # (unless no live statement runs the action)
                    self.__dict__.setdefault("action_folded_divs", []).append(pending[id(n)])
                del pending[id(n)]   # (p4c folds it, or its divisor to a power of two: no back-end error)
            if n.get("o") == "++" and n.get("op") == "bin" and n["b"]["t"][0] == "int" and \
                    self.fold(_pick_arms(_subst(n, env), self.fold)) is not None:
                # constant for p4c's midend, which folds it as (a << |b|) + b: the runtime does so
                # where the right operand is negative (fuzz_exprs seed 10995: a sub-control's `out`;
                # seed 18770: a `?:` whose condition the constants decide, `10s511 ++ (e1 == 3 ? 7s5 : -7s32)`)
                n["p4c_fold"] = True
            if n.get("op") == "stack_idx" and id(n) in locs and locs[id(n)][0] is n:
                v = self.fold(_subst(n["i"], env))
                if v is not None and v >= n["size"]:
                    t = n["i"].get("t") or ["bit", 32]
                    w = f"{t[1]}{'s' if t[0] == 'int' else 'w'}" if t[0] in ("bit", "int") else ""
                    raise E(locs[id(n)][1], f"Array index {w}{v} larger or equal to array size {n['size']} "
                                            "(p4c's constant propagation proves the run-time index out of range)")

    # ---- divisions by a constant other than a power of two (see the module docstring)

    def defer_division(self, res: dict, loc, message: str) -> bool:
        """Note a division whose dividend is not constant here; refused by :meth:`flush_divisions`
        unless :meth:`_check_indexes` finds it constant under the constants known before it."""
        if getattr(self, "ctx", None) is None:
            return False
        self.__dict__.setdefault("pending_divs", {})[id(res)] = (res, loc, message, dict(self.ctx))
        return True

    def pending_snapshot(self, keep: set | None = None) -> set | None:
        """The divisions noted so far; given them, forget those noted since (a branch p4c
        removes: its back end never sees them)."""
        pending = self.__dict__.get("pending_divs")
        if keep is None:
            return set(pending or ())
        for k in [k for k in pending or () if k not in keep]:
            del pending[k]
        return None

    def follow_rebuilt_divisions(self, old, new) -> None:
        """``new`` is ``old`` with reads put in place (switch_copies.propagate_copies rebuilds the
        dicts on the way): a pending division of ``old`` is the same division of ``new`` (also for
        the stores that note it, mk_stores), decided by the propagation as before."""
        pending = self.__dict__.get("pending_divs")
        if not pending or old is new:
            return
        moved: dict = {}

        def walk(a, b):
            if a is b:
                return
            if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
                for x, y in zip(a, b):
                    walk(x, y)
            elif isinstance(a, dict) and isinstance(b, dict) and a.get("op") == b.get("op") and a.get("s") == b.get("s"):
                if id(a) in pending and pending[id(a)][0] is a:
                    moved[id(a)] = b
                for k in a.keys() & b.keys():
                    walk(a[k], b[k])
        walk(old, new)
        held = self.__dict__.get("held_divs") or {}
        for k, b in moved.items():
            pending[id(b)] = (b,) + tuple(pending.pop(k)[1:])
            if k in held:
                held[id(b)] = held.pop(k)
        for errs, _, _ in (self.__dict__.get("pending_mk") or {}).values():
            for e in errs:
                if getattr(e, "deferred", None) is not None and id(e.deferred) in moved:
                    e.deferred = moved[id(e.deferred)]

    def flush_divisions(self, parser: bool) -> None:
        """Refuse (``target_error``, in the context where each was elaborated) the divisions of
        controls, actions and functions (``parser`` False) or of parsers left unfolded."""
        pending = self.__dict__.get("pending_divs") or {}
        here = _body_of(getattr(self, "ctx", None) or {})
        held = self.__dict__.get("held_divs") or {}
        for k, e in list(held.items()):   # (mk_stores: judged at the call sites, folded or not)
            if k in pending and _body_of(pending[k][3]) == here:
                if self._hold_sub_division(k, pending[k] + ("store",)):
                    e.sub_div = (k, pending[k][3]["block"])   # (folded or not at the call sites: _raise_first)
                del pending[k], held[k]
            elif k not in pending:
                e.folded = True
                del held[k]
        for k, (n, loc, message, ctx) in list(pending.items()):
            # (only this body's: a sub-control's body elaborated amid it -- a directly invoked
            # control type, `T.apply(...)` -- must not judge its divisions before its constants)
            if (ctx.get("kind") == "parser") == parser and (parser or _body_of(ctx) == here):
                del pending[k]
                if self._param_division(n, loc, message, ctx) or self._hold_sub_division(k, (n, loc, message, ctx)):
                    continue
                if ctx.get("state") is not None:   # a parser state's (elab_parser is done with it)
                    if ctx["state"] not in ctx["live_states"]:
                        continue   # (unreachable: p4c removes the state first)
                    ctx = {k: v for k, v in ctx.items() if k != "state"}
                saved, self.ctx = self.ctx, ctx
                try:
                    self.target_error(loc, message)
                finally:
                    self.ctx = saved

    def check_control_constants(self, locals_: list, body: list) -> None:
        """A control's local variables are initialized where its body starts (p4c's
        MoveInitializers): their constants reach the divisions of the body."""
        if self.__dict__.get("pending_divs") and locals_:
            self.divisions_only = True
            try:
                self.check_const_indexes(locals_ + body)
            finally:
                self.divisions_only = False
        self.flush_divisions(parser=False)
        self.flush_element_stores()   # (elab_load_refusals.note_element_store)
        self.judge_sub_divisions(locals_ + body)
        folded = self.__dict__.pop("action_folded_divs", None)   # (prop_reach: unless p4c has no path there)
        for n, loc, message, ctx in unfolded_action_divisions(body, folded or [], self.tables, self.actions):
            self.target_error(loc, message)

    def _param_division(self, n: dict, loc, message: str, ctx: dict) -> bool:
        """A division in an action or function over its directionless (or ``in``) parameters and
        constants only: p4c inlines each direct call with its arguments, so it folds where every
        call passes constants; judged at the calls (:meth:`check_action_divisions`,
        :meth:`check_function_divisions`) and refused where a table lists the action (its
        parameters come from the control plane)."""
        rec = self.actions.get(ctx.get("in_action")) if ctx.get("in_action") else \
            self.functions.get(ctx.get("block")) if ctx.get("kind") == "function" else None
        names = {p["py"] for p in (rec or {}).get("params", ()) if p["dir"] in (None, "in")}
        ops = [d.get("op") for d in ir_dicts(n)]
        if rec is None or not set(ops) <= {"const", "var", "bin", "un", "cast"} or \
                not {d["n"] for d in ir_dicts(n) if d.get("op") == "var"} <= names:
            return False
        # (kept beside the record, which goes into the device config)
        self.__dict__.setdefault("param_divs", {}).setdefault(id(rec), []).append((n, loc, message, ctx))
        return True

    def check_action_divisions(self, q: str, args: list | None):
        """A direct call of action ``q`` with ``args`` (call_action's): refuse (in the action:
        raised if it is kept) each of its parameter divisions that the arguments do not make
        constant (p4c: "could not evaluate expression").  With ``args`` None (a table lists
        the action: its parameters come from the control plane): the error, for the table to
        raise if it is applied, or None."""
        rec = self.actions.get(q) or {}
        for n, loc, message, ctx in self.__dict__.get("param_divs", {}).get(id(rec), ()):
            if args is None:
                err = E(loc, message)
                err.after_type_checking = True
                return err
            env = {(p["py"],): v for p, a in zip(rec["params"], args)
                   if p["dir"] in (None, "in") and (v := self.fold(a["e"])) is not None}
            if self.fold(_subst(n, env)) is None:
                saved, self.ctx = self.ctx, ctx
                try:
                    self.target_error(loc, message)
                finally:
                    self.ctx = saved
        return None

    def check_function_divisions(self, f: dict, args: list) -> None:
        """A call of function ``f`` with argument expressions ``args``: p4c inlines it, so a
        division over its parameters folds where the arguments are constants (a constant the
        caller's propagation knows is not followed here: refused, more than p4c)."""
        for n, loc, message, _ctx in self.__dict__.get("param_divs", {}).get(id(f), ()):
            env = {(p["py"],): v for p, a in zip(f["params"], args)
                   if p["dir"] in (None, "in") and (v := self.fold(a)) is not None}
            if self.fold(_subst(n, env)) is None and not self.ctx.get("dead_expr"):
                if self.ctx.get("mk_store") is not None:   # (the call's result only reaches a store p4c
                    self.division_error(loc, message, None)   # may drop: judged with it, mk_stores)
                    continue
                err = E(loc, message)
                err.after_type_checking = True
                raise err

    def check_parser_constants(self, blk: dict) -> None:
        """Propagate constants through an elaborated top-level parser along p4c's merged states,
        for the divisions only (a stack index in a parser is not checked here)."""
        stale = any(d.get("s") == "extract_next"
                    for d in ir_dicts([blk["states"]] + [b["states"] for b in getattr(self, "subparsers", [])]))
        stores = any(v[2].get("kind") == "parser" for v in (self.__dict__.get("element_stores") or {}).values())
        if not self.__dict__.get("pending_divs") and not stale and not stores:
            return
        self.divisions_only = True
        self.parser_stale = stale   # (reads of stale stack elements pinned: stale_stack)
        self.stale_pending, self.stale_walked, self.stale_hidden = [], set(), []
        try:
            self._walk_states(blk["states"], blk.get("locals") or [], {})
            merged = {}
            for votes in self.stale_pending:
                for k, (e, vs) in votes.items():
                    merged.setdefault(k, (e, set()))[1].update(vs)
            calls = [d for d in ir_dicts([blk["states"]] + [b["states"] for b in getattr(self, "subparsers", [])])
                     if d.get("s") == "apply_parser"]
            add_hidden_params(self.stale_hidden, merged, calls)   # (copies into a sub-parser: stale_stack)
            pin_votes(merged)
        finally:
            self.divisions_only = self.parser_stale = False
            self.stale_pending = []

    def _walk_states(self, states: dict, prefix: list, entry: dict, depth: int = 0) -> dict | None:
        """Walk every chain of merged states (``entry`` flows into ``start``, after ``prefix``);
        the constants known where the parser reaches ``accept`` when one state goes there
        unconditionally (a sub-parser's caller continues with them), else None."""
        preds, direct = collections.Counter(), {}
        for name, st in states.items():
            tr = st["transition"]
            tos = {tr["to"]} if tr["kind"] == "direct" else {c["to"] for c in tr["cases"]}
            for to in tos:
                preds[to] += 1
                if tr["kind"] == "direct":
                    direct[to] = name
        preds["start"] += 1   # (entered from the caller)
        done, end = set(), None
        for head in ["start"] + [n for n in states if n != "start"]:
            if head in done or (head != "start" and preds[head] == 1 and head in direct):
                continue   # (walked from its predecessor)
            env = dict(entry) if head == "start" and preds["start"] == 1 else {}   # (a loop to start: no merge)
            cur = head
            for st in (prefix if head == "start" else []):
                self._walk_stmt(st, env, depth)
            while cur not in done:
                done.add(cur)
                for st in states[cur]["body"]:
                    self._walk_stmt(st, env, depth)
                tr = states[cur]["transition"]
                if tr["kind"] != "direct":
                    if self.__dict__.get("parser_stale"):   # (p4c folds a select on a stale constant too)
                        stale_reads(tr.get("keys"), env, self.__dict__.get("stale_votes"))
                    break
                if tr["to"] == "accept" and preds["accept"] == 1:
                    end = env
                if tr["to"] not in states or preds[tr["to"]] != 1:
                    break
                cur = tr["to"]
        return end

    def _walk_stmt(self, st: dict, env: dict, depth: int) -> None:
        if st.get("s") == "block":   # (a block, or an `if` the front end folded: one to p4c's
            for x in st["body"]:     # propagation -- its copies flow through; mutz36, seed 2471)
                self._walk_stmt(x, env, depth)
            return
        if st.get("s") == "if":   # (p4c makes it a `select` and states of their own -- its propagation
            self._check_indexes(st["c"], env)   # starts each afresh: `s[0].a = 7; if (..) {..} m = s[0].a / 3;`
            if self.__dict__.get("parser_stale"):   # is p4c's error, fuzz_mutants --kinds mux_expr seed 656)
                stale_reads(st["c"], env, self.__dict__.get("stale_votes"))
            for branch in (st["then"] or [], st.get("else") or []):
                inner: dict = {}
                for x in branch:
                    self._walk_stmt(x, inner, depth)
            env.clear()
            return
        blk = next((b for b in getattr(self, "subparsers", []) if b.get("fn") == st.get("fn")), None) \
            if st.get("s") == "apply_parser" and depth <= 16 else None
        if blk is None:
            consts = {k: v for k, v in env.items() if type(v) is int} if self.__dict__.get("parser_stale") else None
            self.check_const_indexes([st], env)
            if self.__dict__.get("parser_stale"):
                track_copies(env, st, _trackable, consts)   # (stale_stack: copies of stack elements)
            return
        copies = env.pop(COPIES, None)
        params = [p for p in blk["params"] if p["t"] != ["extern", "packet_in"]]
        sub, outs = {}, iter(st["outs"])
        back, maps, nodes, hidden = [], [], [], []   # (the sub-parser's path, the caller's) for what it writes; inout ones in place
        for p, a in zip(params, st["args"]):
            lv = next(outs) if p.get("copy_out") else a
            k, pk = _key(lv), (p["py"],)
            if p.get("pdir") != "out" and p["t"][0] in ("struct", "header", "stack"):
                sub.update({pk + x[len(k):]: v for x, v in env.items() if k is not None and x[:len(k)] == k})
            elif p.get("pdir") != "out":
                v = self.fold(_subst(a, env))
                if v is not None:
                    sub[pk] = v
            if p.get("pdir") in ("out", "inout") and k is not None and (p["t"][0] in ("struct", "header", "stack")
                                                                        or _trackable(lv)):
                back.append((pk, k))
                if p.get("pdir") == "inout" and p["t"][0] in ("struct", "header", "stack") and not st.get("temps"):
                    maps.append((k, pk))
                    nodes.append((pk[0], a))
        # (its states are shared by every call: their stale reads are voted on, pinned where every
        # call agrees, at the end of the top-level parser's walk; a second call of the top-level
        # parser gets a copy of its own, so each call's constants are pinned in its own states --
        # p4c inlines each call)
        outer = self.__dict__.get("stale_votes")
        if self.__dict__.get("parser_stale") and outer is None:
            walked = self.__dict__.setdefault("stale_walked", set())
            if blk["fn"] in walked:
                blk = copy.deepcopy(blk)
                blk["fn"] = st["fn"] = f"{st['fn']}_c{len(self.subparsers)}"
                self.subparsers.append(blk)
            walked.add(blk["fn"])
        if self.__dict__.get("parser_stale") and outer is None:
            self.stale_votes = {}
        if self.__dict__.get("parser_stale") and copies and maps:   # (the caller's copies go on into the
            sub[COPIES], hidden = copies_into_call(copies, maps, f"_stale_{blk['fn']}_")   # inlined body, a
            self.__dict__.setdefault("stale_hidden", []).append((blk, st, hidden))   # nested call's too)
        try:
            end = self._walk_states(blk["states"], blk.get("locals") or [], sub, depth + 1)
        finally:
            if outer is None and self.__dict__.get("stale_votes") is not None:
                votes, self.stale_votes = self.stale_votes, None
                self.__dict__.setdefault("stale_pending", []).append(votes)
        self._forget_writes(st, env)
        if end is None:   # (the rest of the calling state is a state of its own: nothing flows on)
            env.clear()
        for pk, k in back if end is not None else ():
            env.update({k + x[len(pk):]: v for x, v in end.items() if x[:len(pk)] == pk})
        if end is not None and self.__dict__.get("parser_stale"):   # (the caller's copies past the call,
            out = copies_past_call(copies, blk, back) if copies else {}   # then the body's own: stale_stack)
            out.update(copies_out_of_call(end.get(COPIES) or {}, nodes, hidden))
            if out:
                env[COPIES] = out


def _body_of(ctx: dict) -> tuple:
    """The body a division was noted in: an action's, else the block's (control, function)."""
    return (ctx.get("in_action"), ctx.get("block"))


def _power_of_two(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v > 0 and not v & (v - 1)


def _pick_arms(x, fold):
    """``x`` with each ``?:`` whose condition ``fold`` decides replaced by that arm, bottom up
    (p4c's mid end folds it so once its constant propagation has put the values in)."""
    if isinstance(x, list):
        return [_pick_arms(v, fold) for v in x]
    if not isinstance(x, dict):
        return x
    x = {k: (v if k == "t" else _pick_arms(v, fold)) for k, v in x.items()}
    if x.get("op") == "cond" and (c := fold(x["c"])) is not None:
        return x["a"] if c else x["b"]
    return x
