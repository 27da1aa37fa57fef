"""p4c's front-end SideEffectOrdering (frontends/p4/sideEffects.cpp, p4c 1.2.4.8) on the calls of one
statement, as :mod:`.action_inline` replays it before it pastes the calls of an action.

p4c evaluates every function call that is not a whole statement (``f(a);``) or the whole right-hand
side of an assignment (``l = f(a);``) into a temporary before the statement, and with it what the
order of evaluation needs; InlineFunctions then pastes each ``tmp = f(a)`` as it pastes ``l =
f(a)``.  Measured on ``--top4 FrontEndLast`` dumps (helper opens6):

* a call inside an expression: ``tmp = f(a)``, the call replaced by ``tmp``;
* a binary operation holding a call: its value goes into a temporary of its own (``x = f(a) + 1``
  is ``tmp = f(a); tmp_0 = tmp + 1; x = tmp_0``), and where its right operand holds the call, the
  left operand is evaluated into a temporary first (``x = h.a + f(b)`` is ``tmp = h.a; tmp_0 =
  f(b); tmp_1 = tmp + tmp_0``; a constant too); a unary operation, a cast or a slice takes the
  temporary as it is (``x = ~tmp``);
* ``a && b`` / ``a || b`` holding a call is an ``if`` on ``a`` that assigns a temporary ``b`` or the
  constant (``if (a) { tmp = b; } else { tmp = false; }``), ``b``'s temporaries inside the branch;
* a call's ``in`` argument holding a call is evaluated into a temporary (``f(x, g(b) + 1)``: ``tmp_1
  = tmp_0 + 1; tmp_2 = tmp_1`` before the call; ``f(g(a))``: ``tmp = g(a)``), and an argument with
  a run-time stack index gets its index in a temporary (``f(hs[m.i].a)``: ``tmp = m.i; ..
  hs[tmp].a``), whatever the parameter's direction;
* an ``if`` condition or a declaration's initializer holding a call is evaluated as above (the
  declaration then assigns the result, as MoveDeclarations leaves it).

Only what the action's Predication replay can tell apart is followed: a ``?:`` has been made an
``if`` before (:func:`.predication.dismantle_muxes`); any other expression holding a call (a call
in an ``out``/``inout`` argument's index, a member of a call's value) raises :class:`Unordered`, and
the action then runs as written.
"""
from __future__ import annotations

from .elab_common import ir_dicts

_CALLS = ("call_fn", "call_fn_out")
_BOOL = ["bool"]
#: the names of the temporaries :func:`order_statement` makes (the inliner lets their run-time indices pass)
TEMP = "_se_tmp"


class Unordered(Exception):
    """A statement whose calls the replay does not order."""


def has_fn_call(x) -> bool:
    return any(d.get("op") in _CALLS for d in ir_dicts(x, "t"))


def runtime_index(e: dict) -> dict | None:
    """The outermost stack index of lvalue path ``e`` that is neither a constant nor a temporary."""
    while isinstance(e, dict) and e.get("op") in ("field", "stack_idx", "slice"):
        if e["op"] == "stack_idx":
            i = e["i"]
            if i.get("op") != "const" and not (i.get("op") == "var" and str(i.get("n", "")).startswith(TEMP)):
                return e
            e = e["st"]
        else:
            e = e.get("base") or e.get("a")
    return None


class _Order:
    def __init__(self, temp):
        self.temp = temp   # type -> a fresh temporary variable (declared by the caller)

    def assign(self, l: dict, r: dict) -> dict:
        return {"s": "assign", "l": dict(l), "r": r}

    def visit(self, e, pre: list):
        if not isinstance(e, dict) or not has_fn_call(e):
            return e
        op = e.get("op")
        if op in _CALLS:
            v = self.temp(e["t"])
            pre.append(self.assign(v, self.call(e, pre)))
            return dict(v)
        if op in ("un", "cast", "slice"):
            return dict(e, a=self.visit(e["a"], pre))
        if op == "bin" and e["o"] in ("&&", "||"):
            a = self.visit(e["a"], pre)
            v = self.temp(_BOOL)
            inner: list = []
            inner.append(self.assign(v, self.visit(e["b"], inner)))
            other = [self.assign(v, {"op": "const", "v": e["o"] == "||", "t": _BOOL})]
            then, els = (inner, other) if e["o"] == "&&" else (other, inner)
            pre.append({"s": "if", "c": a, "then": then, "else": els})
            return dict(v)
        if op == "bin":
            if has_fn_call(e["b"]):
                left = self.temp(e["a"]["t"])
                pre.append(self.assign(left, self.visit(e["a"], pre)))
                a, b = dict(left), self.visit(e["b"], pre)
            else:
                a, b = self.visit(e["a"], pre), e["b"]
            v = self.temp(e["t"])
            pre.append(self.assign(v, dict(e, a=a, b=b)))
            return dict(v)
        raise Unordered

    def call(self, c: dict, pre: list) -> dict:
        """Call ``c`` (an expression, or a ``call_fn``/``call_action`` statement) with its arguments
        evaluated as p4c does before it: temporaries for those holding calls, and for run-time
        stack indices."""
        args = []
        for a in c["args"]:
            wrapped = "e" in a and "op" not in a   # ({"e", "dir"} of a statement or call_fn_out; else the value)
            e, d = (a.get("e"), a.get("dir")) if wrapped else (a, "in")
            if e is None:
                args.append(a)
                continue
            if has_fn_call(e):
                if d != "in":
                    raise Unordered   # (a call in an out/inout argument's index, or a directionless one)
                v = self.temp(e["t"])
                pre.append(self.assign(v, self.call(e, pre) if e.get("op") in _CALLS else self.visit(e, pre)))
                e = dict(v)
            elif d is not None and (ix := runtime_index(e)) is not None:
                v = self.temp(ix["i"]["t"])
                pre.append(self.assign(v, ix["i"]))
                e = _replace(e, ix, dict(ix, i=dict(v)))
            args.append(dict(a, e=e) if wrapped else e)
        return dict(c, args=args)


def _replace(e: dict, old: dict, new: dict) -> dict:
    if e is old:
        return new
    for k in ("base", "st", "a"):
        if isinstance(e.get(k), dict):
            return dict(e, **{k: _replace(e[k], old, new)})
    return e


def needs_order(s: dict) -> bool:
    """Whether statement ``s`` holds a call SideEffectOrdering evaluates before it (module doc)."""
    k = s.get("s")
    if k in ("call_fn", "call_action"):
        return any(has_fn_call(a.get("e")) or (a.get("dir") is not None and a.get("e") is not None
                                               and runtime_index(a["e"]) is not None) for a in s["args"])
    if k == "assign":
        r = s["r"]
        if r.get("op") in _CALLS:
            return needs_order({"s": "call_fn", "args": [a if "e" in a and "op" not in a else {"e": a, "dir": "in"}
                                                        for a in r["args"]]})
        return has_fn_call(r) or has_fn_call(s["l"])
    if k == "decl":
        return has_fn_call(s.get("init"))
    if k == "if":
        return has_fn_call(s["c"])
    return False


def order_statement(s: dict, temp) -> list:
    """Statement ``s`` (one :func:`needs_order` takes) as SideEffectOrdering leaves it: the
    statements that evaluate its calls into temporaries, then ``s`` reading them.  ``temp``: type
    -> a fresh variable ``{"op": "var", ...}`` named with :data:`TEMP` (the caller declares it).
    Raises :class:`Unordered` for what the replay does not follow."""
    o, pre = _Order(temp), []
    k = s.get("s")
    if k in ("call_fn", "call_action"):
        call = o.call(s, pre)
        return pre + [call]
    if k == "decl":
        return [dict(s, init=None)] + order_statement({"s": "assign", "l": {"op": "var", "n": s["n"], "t": s["t"]},
                                                       "r": s["init"]}, temp)
    if k == "assign":
        if has_fn_call(s["l"]):
            raise Unordered
        r = s["r"]
        r = o.call(r, pre) if r.get("op") in _CALLS else o.visit(r, pre)
        return pre + [dict(s, r=r)]
    if k == "if":
        c = o.visit(s["c"], pre)
        return pre + [dict(s, c=c)]
    raise Unordered
