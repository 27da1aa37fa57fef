"""IR ``apply_control`` -> Python: a sub-control applied from a control, its arguments passed
as p4c's inliner passes them.

p4c inlines every sub-control.  Its out/inout arguments go in place -- the body writes the
caller's own headers and fields -- only when every apply of that control instance passes the
same arguments (the compiler marks the others ``copy_args``: see
``switch.compiler.subcontrol_args``) and the argument overlaps no other out/inout one.
Otherwise p4c copies it into a temporary (an ``out`` one starts invalid) and back after the
body with assign_header semantics (``StatementGen.assign`` with ``by_member``: a header left
invalid keeps the caller's fields); an ``exit`` in the body skips that copy-back, as on BMv2.
Either way a run-time stack index of an out/inout argument is read once, before its copy-in: p4c's
SideEffectOrdering puts it in a temporary (``ExpressionGen.pinned_indices``; helper mutz42:
``c.apply(hdr.h, hdr.s[hdr.h.b[1:0]].x)`` whose body increments ``h.b`` writes the element it read).
The temporary is the instance's, one per parameter for all its applies (kept in the caller's
``L`` between them): assign_header from an invalid argument leaves it the fields an earlier
apply left there (helper mutz36).
A header-union member goes through a tracked copy either way, so its siblings go invalid
whenever the body made it valid; in place, its copy-back is made also when the body exits.  Scalars are Python values: in place (not a bit slice,
which p4c passes through a temporary) they are copied back also when the body exits, and an ``out``
one starts from the caller's value, which it keeps where the body writes nothing (p4c initialises
nothing there; the stores before the apply it made dead are gone: ``compiler/out_arg_stores.py``).

A mixin of :class:`switch.runtime.codegen.Gen` (``self.emit``, ``self.x``, ``self.assign``).
"""
from __future__ import annotations

from .gen_helpers import copied_out, overwritten, dead_flag, dead_value, emits_packets

_AGG = ("struct", "header", "stack")


def _overlap(a: str, b: str) -> bool:
    """Whether the Python paths ``a`` and ``b`` name the same object or one holds the other."""
    return a == b or a.startswith((b + ".", b + "[")) or b.startswith((a + ".", a + "["))


def _sliced(e: dict) -> dict:
    """The lvalue a bit slice ``e`` (or ``e`` itself) is part of."""
    while e.get("op") == "slice":
        e = e["a"]
    return e


class SubControlGen:
    def _emitting_sub(self, fn: str) -> bool:
        return any(b["fn"] == fn and emits_packets(b) for b in self.ir.get("subcontrols", []))

    def apply_control(self, ind: int, s: dict) -> None:
        sl = self.fresh("l")
        self.emit(ind, f"{sl} = Locals()")
        if self.role == "deparser" or self._emitting_sub(s["fn"]):
            self.emit(ind, f"{sl}.out = out")   # (gen_helpers.emits_packets)
        for key in s.get("dead_stores", ()):   # (see union_defuse.settle_body_stores)
            self.emit(ind, f"{sl}._dead{dead_flag(key)} = {dead_value(key)}")
        args, pinned = [], []
        for a in s["args"]:   # (ExpressionGen.pinned_indices: set before the argument's copy-in)
            lv, pins = self.pinned_indices(a["e"]) if a["dir"] in ("out", "inout") else (a["e"], [])
            args.append(dict(a, e=lv) if pins else a)
            pinned.append(pins)
        texts = [None if a["dir"] == "out" and a["e"]["t"][0] not in _AGG else self.x(a["e"]) for a in args]
        # what each out/inout argument writes (a bit slice: its field), an `out` scalar too
        paths = [None if a["dir"] == "in" else self.x(_sliced(a["e"])) for a in args]

        def aliased(i):
            return paths[i] is not None and any(j != i and o is not None and _overlap(o, paths[i])
                                                for j, o in enumerate(paths))
        copied = bool(s.get("copy_args"))
        back, fresh, attrs, kept = [], [], [], []
        for i, arg in enumerate(args):
            for ix, code in pinned[i]:
                self.emit(ind, f"{ix} = {code}")
            attr = arg["py"][2:] if arg["py"].startswith("L.") else arg["py"]
            attrs.append(attr)
            t = arg["e"]["t"]
            if arg["dir"] == "out" and t[0] not in _AGG:
                # in place (p4c's inliner substitutes the argument, no initialisation): the body starts
                # from the caller's value and leaves it where it writes nothing; through a temporary
                # (a bit slice, copy_args, an overlapping out/inout argument) from a fresh one
                v = self.default(t) if arg["e"]["op"] == "slice" or copied or aliased(i) else self.x(arg["e"])
            else:
                v = texts[i] if t[0] != "varbit" else self.copy_in(arg["e"], t)
                if arg["dir"] == "in" and t[0] in _AGG:
                    v = f"{v}.copy()"
                    if copied and not arg.get("siblings"):
                        # the instance's temporary too (assign_header into it), which the caller may
                        # read after the apply: a single-case switch's copy of its field (case_entry)
                        tk = self.fresh("k")
                        self.emit(ind, f"{tk} = getattr(L, '_tmp_{s['fn']}_{attr}', None)")
                        v = f"{v} if {tk} is None else _agg_out({tk}, {v})"
                        kept.append(i)
                elif t[0] in _AGG and (copied or aliased(i) or arg.get("siblings") or arg.get("dead")):
                    # (a union member: a tracked copy tells whether the body made it valid)
                    v = f"_tracked({v})" if arg.get("siblings") and t[0] == "header" else f"{v}.copy()"
                    back.append(i)
                    if copied and not arg.get("siblings"):
                        # the instance's one temporary for the parameter (p4c's inliner: `x_0`), kept
                        # across its applies in this pass: assign_header from an invalid argument only
                        # marks it invalid, so it keeps what an earlier apply left (fuzz_mutants 2321)
                        tk = self.fresh("k")
                        self.emit(ind, f"{tk} = getattr(L, '_tmp_{s['fn']}_{attr}', None)")
                        v = (f"{v} if {tk} is None else {tk}" if arg["dir"] == "out"
                             else f"{v} if {tk} is None else _agg_out({tk}, {v})")
                        kept.append(i)
                if arg["dir"] == "out":
                    fresh.append((f"{sl}.{attr}", t))
            self.emit(ind, f"{sl}.{attr} = {v}")
        if s.get("keep_temps") and not copied:   # (case_entry.expand_apply: read by a copy after the apply)
            kept += [i for i, a in enumerate(args) if (a["e"]["t"][0] in _AGG or a["dir"] == "in")
                     and not a.get("siblings") and i not in kept]   # (an `in` scalar: its copy-in)
        for v, t in fresh:   # an `out` one starts invalid (after every copy-in)
            self.invalidate(ind, v, t)
        outs = [i for i, a in enumerate(args) if a["dir"] in ("out", "inout")]
        # scalars passed in place keep what the body wrote before an exit (a bit slice goes
        # through a temporary, as for an action)
        in_place = [i for i in outs if args[i]["e"]["t"][0] not in _AGG and args[i]["e"]["op"] != "slice"
                    and not copied and not aliased(i)]
        # a union member in place (its tracked copy): the body's writes stand also on an exit
        union_in_place = [i for i in back if args[i].get("siblings") and args[i]["e"]["t"][0] == "header"
                          and not copied and not aliased(i)]

        def copy_back(ind2: int, i: int) -> None:
            arg, t = args[i], args[i]["e"]["t"]
            if i in union_in_place:
                # in place (p4c): made valid in the body, then maybe invalid again -- the
                # siblings went invalid then; through a temporary only the copy-back counts
                self.emit(ind2, f"if {sl}.{attrs[i]}._ever:")
                for sib in arg["siblings"]:
                    self.emit(ind2 + 1, f"{self.x(sib)}._v = False")
            self.assign(ind2, arg["e"], copied_out(f"{sl}.{attrs[i]}", t), t, arg.get("siblings", ()), by_member=True)
        if in_place or union_in_place:
            self.emit(ind, "try:")
            self.emit(ind + 1, f"{s['fn']}(P, {sl})")
            self.emit(ind, "except ExitSignal:")
            for i in in_place:
                self.assign(ind + 1, args[i]["e"], copied_out(f"{sl}.{attrs[i]}", args[i]["e"]["t"]), args[i]["e"]["t"])
            for i in union_in_place:
                copy_back(ind + 1, i)
            self.emit(ind + 1, "raise")
        else:
            self.emit(ind, f"{s['fn']}(P, {sl})")
        for i in kept:
            self.emit(ind, f"L._tmp_{s['fn']}_{attrs[i]} = {sl}.{attrs[i]}"   # (not the caller's after the copy-back)
                      + (".copy()" if args[i]["e"]["t"][0] in _AGG else ""))
        for attr, name, t in s.get("keep_locals", ()):   # (a body local a copy after the apply reads:
            self.emit(ind, f"{name} = {sl}.{attr[2:]}{'.copy()' if t[0] in _AGG else ''}")   # compiler/subcontrol_copies)
        for i in outs:
            if args[i].get("dead"):
                continue   # (a copy-back p4c's def-use drops: union_defuse.drop_dead_union_stores)
            if args[i]["e"]["t"][0] in _AGG and i not in back or \
                    overwritten(args[i]["e"], [args[j]["e"] for j in outs if j > i]):
                continue   # (p4c's def-use drops a copy-back a later one overwrites)
            copy_back(ind, i)
