"""p4c's InlineActions and InlineFunctions on an action body, as :mod:`.predication` replays them
before the Predication pass.

p4c's front end pastes an action called from an action, and a function called anywhere, into the
caller before its mid end predicates the caller's ``if`` statements (frontends/p4/inlining.cpp,
``ActionsInliner``; functionsInlining.cpp): for each parameter in order an ``in``/``inout`` one
becomes a fresh local initialized with the argument, an ``out`` one an uninitialized local, a
directionless one is replaced by the argument; then the callee's body (its ``return``s already a
flag of its own: RemoveReturns runs first), then the ``out``/``inout`` locals copied back in order.
Predication then predicates the pasted code with the caller's: a function's ``if``s called in an
action get the pass's double update (``void f(inout bit<8> x) { if (x != 1) { x = x + 1; } else if
(x != 3) { x = 3; } }`` called as ``f(hdr.h.a)``: BMv2 takes 0 to 2), and an action called under an
``if`` is predicated nested in it (helper opens4, --top4 Predication dumps; checkmate-switch ran the
callee as a call, its body as written or predicated alone).

The callee's ``?:``s are made ``if``s first (p4c's SideEffectOrdering runs before InlineFunctions
and InlineActions: ``--top4`` dumps; helper opens5).  A header argument is copied whole (``q =
hdr.h``, which Predication writes ``q = c ? hdr.h : q``: BMv2's ``assign_header`` of a Mux), a struct
one field by field (the mid end's CopyStructures has split it before Predication), a varbit one as
a varbit copy (predicated, it is an ``assign_VL`` of a Mux, on which simple_switch dies:
``predication.VARBIT_DIES``); ``out`` ones are not initialized (p4c 1.2.4.8 neither: an ``out``
header stays as invalid as the local is).

A function's value assigned whole (``l = f(args)``, which SideEffectOrdering leaves in place) is
pasted too, its ``return e`` RemoveReturns' ``hasReturned = true; retval = e``, then ``l = retval``
after the copy-backs (``--top4 FrontEndLast``).  A call inside a larger expression, a condition, a
declaration's initializer or another call's argument is first evaluated into SideEffectOrdering's
temporaries (:mod:`.side_effects`: ``x = f(a) + 1`` is ``tmp = f(a); tmp_0 = tmp + 1; x = tmp_0``),
and an argument's run-time stack index into one of its own (``f(hs[m.i].a)``: ``tmp = m.i`` first,
then the copies of ``hs[tmp].a``; helper opens6).  A header union member is copied whole as another
header; its copy-back marks the union's other members invalid (the ``siblings`` of the argument).

Only calls the replay can follow are pasted: statements (and ``l = f(args)``) whose arguments
are bit/int/bool/varbit values, headers or structs of bit/int/bool values and headers, at a place
without a call, carrying no mark of the copy-back passes (a dropped copy-back), of a callee with a
body of blocks, ``if``s, scalar assignments, declarations and ``return``s (no ``exit``: its
copy-back order is the runtime's); not a whole stack element at a run-time index as an ``out`` or
``inout`` argument (p4c's copy-back is an ``assign_header`` into a ``dereference_header_stack``:
simple_switch refuses that JSON, "Invalid 'type' in expression", and simple_switch_grpc dies on it
with SIGSEGV).  Otherwise :func:`inline_calls` returns None and the action is predicated as written.
"""
from __future__ import annotations

import copy

from .elab_common import ir_dicts, is_call, pyname
from .remove_returns import hoist_init, remove_returns
from .side_effects import TEMP, Unordered, has_fn_call, needs_order, order_statement

_SCALARS = ("bit", "int", "bool")
_MAX_DEPTH = 8


class _NotInlined(Exception):
    pass


def inline_calls(body: list, actions: dict, functions: dict, structs: dict | None = None,
                 dismantle=None) -> list | None:
    """``body`` with its action and function calls pasted (module docstring), every declaration of
    the pasted code moved to the top (MoveDeclarations), or None when it calls nothing or one call
    cannot be pasted.  ``actions``: name -> unpredicated body and ``all_params``; ``functions``:
    ``py`` name -> the IR's function; ``structs``: the IR's struct types (name -> ``fields``, for
    the field-by-field copies of a struct argument); ``dismantle``: body -> body with its ``?:``s
    made ``if``s (SideEffectOrdering, which p4c's front end runs on the callee before pasting it)."""
    if not any(d.get("s") in ("call_action", "call_fn") for d in ir_dicts(body, "t")) and not has_fn_call(body):
        return None
    inl = _Inliner(actions, functions, structs or {}, dismantle or (lambda b: b))
    try:
        out = inl.stmts(body, 0)
    except _NotInlined:
        return None
    return inl.hoisted + out


class _Inliner:
    def __init__(self, actions: dict, functions: dict, structs: dict, dismantle):
        self.actions, self.functions, self.structs, self.dismantle = actions, functions, structs, dismantle
        self.hoisted: list = []
        self.copies = 0

    def stmts(self, stmts: list, depth: int) -> list:
        out = []
        for s in stmts:
            k = s.get("s")
            if needs_order(s):   # (SideEffectOrdering's temporaries first: side_effects)
                try:
                    ordered = order_statement(s, self.temp)
                except Unordered:
                    raise _NotInlined from None
                out += self.stmts(ordered, depth)
                continue
            if k == "block":
                out.append(dict(s, body=self.stmts(s["body"], depth)))
            elif k == "if":
                out.append(dict(s, then=self.stmts(s["then"] or [], depth), **{"else": self.stmts(s.get("else") or [], depth)}))
            elif k in ("call_action", "call_fn") and any(m in s for m in ("dead_fields", "dead_stores", "impl")):
                raise _NotInlined   # (a call the def-use replays mark: its runtime form is kept)
            elif k == "call_action":
                a = self.actions.get(s["action"])
                if a is None:
                    raise _NotInlined
                out.append(self.paste(s["args"], a["all_params"], a["body"], depth))
            elif k == "call_fn":
                f = self.functions.get(s["fn"])
                if f is None or (f.get("ret") or ["void"])[0] != "void":
                    raise _NotInlined
                out.append(self.paste(s["args"], f["params"], f["body"], depth))
            elif _value_call(s) and not _unsafe(s["l"]):
                out.append(self.paste_value(s, depth))
            else:
                out.append(s)
        return out

    def temp(self, t: list) -> dict:
        """A fresh temporary of SideEffectOrdering (side_effects.order_statement), declared first."""
        self.copies += 1
        n = f"{TEMP}{self.copies}"
        self.hoisted.append({"s": "decl", "n": n, "t": t, "init": None})
        return {"op": "var", "n": n, "t": t}

    def paste_value(self, s: dict, depth: int) -> dict:
        """``l = f(args)`` of a function with a bit/int/bool result (SideEffectOrdering leaves such a
        call in place; InlineFunctions pastes copy-ins, the body -- its ``return e`` RemoveReturns'
        ``hasReturned = true; retval = e`` --, copy-backs, then ``l = retval``: helper opens5), or
        ``s`` itself where the call cannot be pasted (a call in a larger expression stays too)."""
        f, r = self.functions.get(s["r"]["fn"]), s["r"]
        if f is None or (f.get("ret") or ["void"])[0] not in _SCALARS or len(r["args"]) != len(f["params"]):
            return s
        saved = (len(self.hoisted), self.copies)
        try:
            args = r["args"] if r["op"] == "call_fn_out" else \
                [{"e": a, "dir": p["dir"]} for a, p in zip(r["args"], f["params"])]
            retval = {"op": "var", "n": f"_pred_retval__inl{self.copies + 1}", "t": f["ret"]}
            block = self.paste(args, f["params"], f["body"], depth, retval)
        except _NotInlined:
            del self.hoisted[saved[0]:]
            self.copies = saved[1]
            return s
        self.hoisted.append({"s": "decl", "n": retval["n"], "t": f["ret"], "init": None})
        return dict(block, body=block["body"] + [{"s": "assign", "l": s["l"], "r": retval}])

    def paste(self, args: list, params: list, body: list, depth: int, retval: dict | None = None) -> dict:
        if depth >= _MAX_DEPTH or len(args) != len(params) or set(s.get("s") for s in ir_dicts(body, "t")
                                                                  if "s" in s) - {"block", "if", "assign", "decl",
                                                                                  "return", "call_action", "call_fn"}:
            raise _NotInlined
        self.copies += 1
        suffix = f"__inl{self.copies}"
        body = self.dismantle(body)
        flag = remove_returns(body, f"_pred_returned{suffix}", retval)
        if retval is not None and flag is None:
            raise _NotInlined
        body = self.stmts(flag if flag is not None else body, depth + 1)
        names, subst, pre, post = {}, {}, [], []
        for arg, p in zip(args, params):
            e, d = arg.get("e"), arg.get("dir")
            if e is None or arg.get("dead") or arg.get("dead_key") is not None or _unsafe(e) \
                    or not self.copyable(p["t"] or [None]) or (arg.get("siblings") and d not in ("out", "inout")) \
                    or (d in ("out", "inout") and (p["t"] or [None])[0] == "header" and _indexed(e)):
                # (a whole stack element at a run-time index copied back: BMv2 cannot run p4c's
                # assign_header into a dereference_header_stack)
                raise _NotInlined
            if d is None:
                if (p["t"] or [None])[0] not in _SCALARS:
                    raise _NotInlined
                subst[p["py"]] = e
                continue
            names[p["py"]] = p["py"] + suffix
            var = {"op": "var", "n": names[p["py"]], "t": p["t"]}
            self.hoisted.append({"s": "decl", "n": var["n"], "t": p["t"], "init": None})
            if p["t"][0] == "varbit":   # (a varbit variable's value is its field "v" in the IR)
                var = {"op": "field", "base": var, "f": "v", "t": p["t"]}
            if d in ("in", "inout"):
                pre += self.copy(var, e)
            if d in ("out", "inout"):
                back = self.copy(e, var)
                if arg.get("siblings"):   # (a union member's copy-back makes its siblings invalid)
                    back = [dict(x, siblings=arg["siblings"]) for x in back]
                post += back
        for d in ir_dicts(body, "t"):
            if d.get("s") == "decl":
                names[d["n"]] = d["n"] + suffix
        body = _rename(copy.deepcopy(body), names, subst)
        return {"s": "block", "body": pre + self.hoist(body) + post}

    def copyable(self, t: list) -> bool:
        return copyable(t, self.structs)

    def copy(self, dst: dict, src: dict) -> list:
        return struct_copy(dst, src, self.structs)

    def hoist(self, stmts: list) -> list:
        out = []
        for s in stmts:
            k = s.get("s")
            if k == "decl":
                self.hoisted.append(dict(s, init=None))
                out += hoist_init(s)
            elif k == "block":
                out.append(dict(s, body=self.hoist(s["body"])))
            elif k == "if":
                out.append(dict(s, then=self.hoist(s["then"] or []), **{"else": self.hoist(s.get("else") or [])}))
            else:
                out.append(s)
        return out


def copyable(t: list, structs: dict, top: bool = True) -> bool:
    """Whether a value of type ``t`` is copied as the replay can: a bit/int/bool value, a header
    (p4c keeps ``q = hdr.h`` whole: Predication writes ``q = c ? hdr.h : q``, BMv2's
    ``assign_header`` of a Mux), a varbit value (predicated, an ``assign_VL`` of a Mux, on which
    simple_switch dies: predication.VARBIT_DIES), a struct of bit/int/bool values and headers
    (CopyStructures copies it field by field; not one with a varbit field, as a varbit inside a
    struct is not: its box, ``varbit_boxes``, is outside the struct's ``fields``)."""
    if t[0] in _SCALARS or t[0] == "header" or (t[0] == "varbit" and top):
        return True
    st = structs.get(t[1]) if t[0] == "struct" else None
    return st is not None and not st.get("union") and not st.get("varbit_boxes") and all(copyable(ft, structs, False) for _f, ft in st["fields"])


def struct_copy(dst: dict, src: dict, structs: dict) -> list:
    """``dst = src`` as p4c's mid end has it before Predication: a struct field by field, nested
    structs too (CopyStructures), a header whole."""
    t = dst["t"]
    if t[0] != "struct":
        return [{"s": "assign", "l": dst, "r": src}]
    out = []
    for f, ft in structs[t[1]]["fields"]:
        f = pyname(f)
        out += struct_copy({"op": "field", "base": dst, "f": f, "t": ft}, {"op": "field", "base": src, "f": f, "t": ft}, structs)
    return out


def _value_call(s: dict) -> bool:
    """Whether statement ``s`` assigns a function call's value (``l = f(args)``)."""
    return s.get("s") == "assign" and s["r"].get("op") in ("call_fn", "call_fn_out")   # (_out: with out/inout arguments)


def _unsafe(e: dict) -> bool:
    """A place the replay does not paste: a call in it, or a run-time stack index not evaluated
    into a temporary (side_effects: SideEffectOrdering's index temporaries)."""
    return any(is_call(d) or (d.get("op") == "stack_idx" and d["i"].get("op") != "const" and not _temp(d["i"]))
               for d in ir_dicts(e, "t"))


def _indexed(e: dict) -> bool:
    """Whether lvalue ``e`` is a stack element at a run-time index."""
    return e.get("op") == "stack_idx" and e["i"].get("op") != "const"


def _temp(e: dict) -> bool:
    return e.get("op") == "var" and str(e.get("n", "")).startswith(TEMP)


def _rename(x, names: dict, subst: dict):
    """``x`` (in place, and returned) with the variables ``names`` renamed and ``subst``'s replaced."""
    if isinstance(x, list):
        for i, v in enumerate(x):
            x[i] = _rename(v, names, subst)
        return x
    if not isinstance(x, dict):
        return x
    if x.get("op") == "var" and x.get("n") in subst:
        return copy.deepcopy(subst[x["n"]])
    if x.get("op") == "var" and x.get("n") in names:
        x["n"] = names[x["n"]]
    if x.get("s") == "decl" and x.get("n") in names:
        x["n"] = names[x["n"]]
    for k, v in x.items():
        if k != "t" and isinstance(v, (dict, list)):
            x[k] = _rename(v, names, subst)
    return x
