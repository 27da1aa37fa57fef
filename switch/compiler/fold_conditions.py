"""p4c's folding of conditions, for dead branches: constant folding plus its strength reduction.

A mixin of :class:`switch.compiler.elaborate.Elaborator` (through ``StatementRules``): ``self.fold``
is the plain constant folder.  An ``if`` whose condition p4c's front and mid end fold is dead code
for p4c -- its actions and tables stay out of the P4Info, a ``return`` in the branch left is
unconditional -- so the elaborator asks :meth:`ConditionFolding.fold_condition` rather than
``fold`` wherever p4c's verdict depends on it (if conditions, ``?:`` arms, ``&&``/``||``).
"""
from __future__ import annotations

from .elab_common import lit_base, has_enum_cast_cmp, is_bits
from .header_init import has_method_call, reduced, same_ir


class ConditionFolding:
    def fold_condition(self, c):
        """``fold``, plus p4c's strength reduction (``header_init._reduced``: ``x * 0``, ``x & 0``,
        ``x - x``, ``x ^ x``, ``x | 0`` ..., on ``bit`` and ``int``, ``x`` without calls --
        ``isValid()`` counts as one, p4c keeps ``(h.isValid() ? x : y) & 0``), so that
        ``if ((x * 0) != 0)`` or ``if (!(8w1 != x - x))`` is dead code as it is for p4c (its
        actions and tables then stay out of the P4Info, and a ``return`` in the branch left is
        unconditional).  Also folded as by p4c (probed in actions and for the P4Info): an
        operator whose operands both fold (``(x - x) ++ 8w1``), ``k ? a : b`` for a constant
        ``k``, and ``c ? a : a`` (or arms that fold to one value) without calls (mutz19)."""
        def simp(ir):
            if not isinstance(ir, dict) or "op" not in ir:
                return ir
            if ir["op"] == "cond":
                c = f(ir["c"])
                if c is not None:
                    return simp(ir["a"] if c else ir["b"])
                a, b = simp(ir["a"]), simp(ir["b"])
                if not has_method_call(ir):
                    if same_ir(a, b):
                        return a
                    va, vb = f(a), f(b)
                    if va is not None and va == vb and lit_base(a) == lit_base(b):
                        return {"op": "const", "v": va, "t": ir["t"]}
                return {**ir, "a": a, "b": b}
            if ir["op"] in ("bin", "un", "cast", "slice"):
                return {**ir, **{k: simp(ir[k]) for k in ("a", "b") if k in ir}}
            return ir

        def f(ir):
            held = isinstance(ir, dict) and has_enum_cast_cmp(ir)   # (not folded by p4c)
            if held and ir.get("op") == "bin" and ir.get("o") in ("==", "!="):
                return None
            v = None if held else self.fold(ir)
            if v is not None or not isinstance(ir, dict):
                return v
            if (r := reduced(ir, has_method_call)) is not ir:
                return f(r)
            op = ir.get("op")
            if op == "slice" and isinstance(ir["a"], dict) and ir["a"].get("op") == "bin" and ir["a"]["o"] == "<<" \
                    and (k := f(ir["a"]["b"])) is not None and k > ir["hi"] and not has_method_call(ir["a"]["a"]):
                return 0   # (`(x << 14)[4:1]`: p4c's strength reduction makes it 0, fuzz_exprs seed 11600)
            if op == "slice" and isinstance(ir["a"], dict) and ir["a"].get("op") == "bin" and ir["a"]["o"] == "++":
                # (`(x ++ 11w0)[2:0]`: p4c's strength reduction slices the side the range is in,
                # dropping the other one -- without calls -- fuzz_exprs seed 12568)
                lo_side = ir["a"]["b"]
                t_lo = lo_side.get("t")
                w = t_lo[1] if isinstance(t_lo, list) and is_bits(t_lo) else None
                if isinstance(w, int) and (ir["hi"] < w or ir["lo"] >= w):
                    side, k = (lo_side, 0) if ir["hi"] < w else (ir["a"]["a"], w)
                    other = ir["a"]["a"] if side is lo_side else lo_side
                    if not has_method_call(other) and isinstance(side.get("t"), list) and is_bits(side["t"]):
                        got = f({"op": "slice", "a": side, "hi": ir["hi"] - k, "lo": ir["lo"] - k, "t": ir["t"]})
                        if got is not None:
                            return got
            if op in ("un", "slice"):   # (a slice of `x - x`: fuzz_exprs seed 3144)
                a = f(ir["a"])
                return None if a is None else self.fold({**ir, "a": {"op": "const", "v": a, "t": ir["a"]["t"]}})
            if op == "bin" and ir["o"] in ("&&", "||"):
                a = f(ir["a"])
                if a is not None and bool(a) == (ir["o"] == "||"):
                    return bool(a)   # false && x, true || x
                b = f(ir["b"])
                return None if a is None or b is None else (a and b if ir["o"] == "&&" else a or b)
            if op == "cast":
                a = f(ir["a"])
                # (to a serializable enum too: `(E)(x - x + 4w5)` is a constant for p4c, fuzz_exprs 6144)
                # (and to bool: `(bool)((bit<1>)x % 1w1)` is false for p4c, fuzz_exprs seed 10236)
                return None if a is None or not (is_bits(ir["t"]) or ir["t"][0] in ("serenum", "bool")) else self.fold({"op": "cast", "a": {
                    "op": "const", "v": a, "t": ir["a"]["t"]}, "t": ir["t"]})
            if op == "bin" and ir["o"] in ("*", "&") and is_bits(ir["t"]):
                for x, y in ((ir["a"], ir["b"]), (ir["b"], ir["a"])):
                    if f(x) == 0 and not has_method_call(y):
                        return 0
            if op == "bin":   # (comparisons, `++`, ...: both operands fold)
                a, b = f(ir["a"]), f(ir["b"])
                if a is not None and b is not None:
                    return self.fold({**ir, "a": {"op": "const", "v": a, "t": ir["a"]["t"]},
                                      "b": {"op": "const", "v": b, "t": ir["b"]["t"]}})
            return None
        return f(simp(c))
