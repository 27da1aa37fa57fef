"""p4c's constant propagation seen through run-time stack indices.

p4c 1.2.4.8's midend propagates a constant stored in a local variable or a metadata field to
a later read of it (``meta.ix = 3; ... hdr.stk[meta.ix]``) and then type-checks the index it
got: "Array index 8w3 larger or equal to array size 3" -- the program is refused although its
index is a run-time expression.  :func:`check_const_indexes` does the simple, local part of
that proof on one elaborated statement list: constants assigned (or declared) to a variable or
a struct field path (not a header field) flow forward through assignments, declarations and
setValid/setInvalid; an ``if`` is checked branch by branch and then forgets every path written
in it; any other statement (a table, an action or a function call, an extern) forgets all.
Where p4c's proof reaches further (across a table apply, say) checkmate-p4c still accepts.
"""
from __future__ import annotations

from .elab_common import E, ir_dicts

_KEEP = ("assign", "decl", "setvalid", "nop")


def _key(lv):
    """A hashable name of a variable / field path, or None (an index, a slice, ...)."""
    if not isinstance(lv, dict):
        return None
    if lv.get("op") == "var":
        return (lv["n"],)
    if lv.get("op") == "field":
        b = _key(lv["base"])
        return None if b is None else b + (lv["f"],)
    return None


def _trackable(lv) -> bool:
    """A path of scalars through structs only (p4c does not propagate header fields)."""
    node = lv
    while node.get("op") == "field":
        node = node["base"]
        if (node.get("t") or [None])[0] in ("header", "stack", "union"):
            return False
    return _key(lv) is not None and (lv.get("t") or [None])[0] in ("bit", "int")


def _subst(e, env: dict):
    """``e`` with every tracked path replaced by its constant."""
    if isinstance(e, list):
        return [_subst(x, env) for x in e]
    if not isinstance(e, dict):
        return e
    k = _key(e) if e.get("op") in ("var", "field") else None
    if k is not None and k in env:
        return {"op": "const", "v": env[k], "t": e.get("t")}
    return {a: _subst(v, env) for a, v in e.items()}


def _forget(env: dict, lv) -> None:
    """Drop every tracked path ``lv`` may write (it, a part of it, what it is a part of)."""
    node = lv
    while isinstance(node, dict) and node.get("op") in ("field", "slice", "stack_idx", "stack_next", "stack_last"):
        if _key(node) is not None:
            break
        node = node.get("base") or node.get("a") or node.get("st")
    k = _key(node)
    if k is None:
        env.clear()
        return
    for x in [x for x in env if x[:len(k)] == k or k[:len(x)] == x]:
        del env[x]


def _writes(stmts, env: dict) -> None:
    """Forget what the statements (any depth) write; all of it on a call-like statement."""
    for n in ir_dicts(stmts):
        s = n.get("s")
        if s is None:
            continue
        if s == "assign":
            _forget(env, n["l"])
        elif s == "decl":
            env.pop((n["n"],), None)
        elif s not in _KEEP + ("if", "block"):
            env.clear()
            return


class ConstIndexRules:
    """A mixin of the elaborator: needs ``fold`` and ``dyn_index_locs`` (id of a run-time
    ``stack_idx`` IR dict -> (the dict, its index's source location))."""

    def check_const_indexes(self, stmts: list, env: dict | None = None) -> None:
        env = {} if env is None else env
        for st in stmts:
            s = st.get("s")
            if s == "if":
                self._check_indexes(st["c"], env)
                self.check_const_indexes(st["then"] or [], dict(env))
                self.check_const_indexes(st["else"] or [], dict(env))
                _writes([st["then"], st["else"]], env)
                continue
            if s == "block":
                self.check_const_indexes(st["body"], env)
                continue
            if s in _KEEP or not any("s" in d for d in ir_dicts(st) if d is not st):
                self._check_indexes(st, env)   # (not into statements nested in others)
            if s == "assign":
                _forget(env, st["l"])
                if _trackable(st["l"]):
                    v = self.fold(_subst(st["r"], env))
                    if v is not None:
                        env[_key(st["l"])] = v
            elif s == "decl":
                env.pop((st["n"],), None)
                lv = {"op": "var", "n": st["n"], "t": st["t"]}
                if st.get("init") is not None and _trackable(lv):
                    v = self.fold(_subst(st["init"], env))
                    if v is not None:
                        env[(st["n"],)] = v
            elif s not in _KEEP:
                env.clear()

    def _check_indexes(self, node, env: dict) -> None:
        if not env:
            return
        locs = getattr(self, "dyn_index_locs", {})
        if any(str(n.get("op", "")).startswith("call") for n in ir_dicts(node)):
            return   # (a call may write what the index reads first)
        for n in ir_dicts(node):
            if n.get("op") == "stack_idx" and id(n) in locs and locs[id(n)][0] is n:
                v = self.fold(_subst(n["i"], env))
                if v is not None and v >= n["size"]:
                    t = n["i"].get("t") or ["bit", 32]
                    w = f"{t[1]}{'s' if t[0] == 'int' else 'w'}" if t[0] in ("bit", "int") else ""
                    raise E(locs[id(n)][1], f"Array index {w}{v} larger or equal to array size {n['size']} "
                                            "(p4c's constant propagation proves the run-time index out of range)")
