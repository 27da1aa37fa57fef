"""Copies a single-case switch leaves, carried into the sub-controls p4c inlines.

p4c 1.2.4.8 inlines each sub-control body at its apply before LocalCopyPropagation runs, so the
copies :func:`.switch_copies.propagate_copies` carries past a single-case switch reach into the
body (:func:`specialize_subcontrols`: a body of its own per apply that sees different copies), and
copies a body leaves at its end reach the inliner's copy-back of an ``out``/``inout`` parameter
(:func:`copy_back_copies`, for the parameters passed through temporaries: :func:`through_temporaries`)
and the statements after the apply (:func:`end_copies_after`: put in
the caller's terms through the arguments p4c uses in place, a local of the body kept by the
runtime after the apply).  Split from :mod:`.switch_copies` (which carries the copies inside
one body) when it reached 800 lines.
"""
from __future__ import annotations

import copy

from .copy_paths import ir_path, may_write, overlap, path_reads
from .elab_common import ir_dicts, ir_replace
from .stack_copies import element_of, struct_member
from .subcontrol_args import instance_temp
from .switch_copies import _carry


def specialize_subcontrols(subs: list, roots: list, expand=None, members_of=None) -> None:
    """p4c inlines a sub-control body at each apply before its LocalCopyPropagation, so the copies
    a single-case switch leaves (:func:`propagate_copies`) reach into it: ``switch (hdr.h.a) { 5:
    { meta.m8 = hdr.h.b; } } sc.apply(hdr, meta);`` with ``hdr.h.c = (bit<16>)meta.m8`` in the
    body writes ``hdr.h.b`` whatever ``hdr.h.a`` is (fuzz_exprs seed 8342; measured).  The applies
    marked ``copies_in`` lose the mark and get a body of their own with the copies in it, as they
    stand at that apply: an instance applied at one place only (of those ``roots`` and the ``subs``
    bodies hold) has its body rewritten, one applied at several places gets a copy of its block
    per marked apply (appended to ``subs``, the apply pointed at it; the others keep the block) --
    p4c's copies differ per inlined body (helper fuzz26, measured).  A copy goes in when the body
    sees its path through a struct argument it uses in place (``inout``, a variable); what its
    value reads through such an argument is read in the body, anything else the body cannot
    name -- a local of the caller, a field of a struct not passed -- is handed in as an extra
    ``in`` argument read at the apply (nothing writes it in between: the copy would have ended).
    Applies passing different arguments (p4c copies them through temporaries: ``copy_args``) are
    left as they are.  ``expand`` (:func:`propagate_copies`) carries the copies on into the
    sub-controls such a body applies, which are then specialized the same way (``members_of``: a
    struct type's members, :func:`copy_back_copies`)."""
    copy_back_copies(subs, roots, members_of)
    while True:
        applies: dict = {}
        for n in ir_dicts([roots, [[b.get("locals"), b["body"]] for b in subs]]):
            if n.get("s") == "apply_control":
                applies.setdefault(n.get("fn"), []).append(n)
        call = next((c for calls in applies.values() for c in calls if c.get("copies_in")), None)
        if call is None:
            return
        copies = call.pop("copies_in")
        fn = call.get("fn")
        blk = next((b for b in subs if b.get("fn") == fn), None)
        if blk is None or any(c.get("copy_args") for c in applies[fn]):
            continue
        copies = _translated(call, copies)
        if not copies:
            continue
        if len(applies[fn]) > 1:
            blk = copy.deepcopy(blk)
            blk["fn"] = f"{fn}_at{sum(1 for b in subs if str(b.get('fn')).startswith(fn + '_at'))}"
            subs.append(blk)
            call["fn"] = blk["fn"]
        # (applies in the body get `copies_in` in turn: p4c has inlined them there too)
        blk["body"] = _carry(blk["body"], copies, expand,
                             decls={d["n"] for d in ir_dicts(blk["body"]) if d.get("s") == "decl"})


def copy_back_copies(subs: list, roots: list, members_of=None) -> None:
    """A sub-control body that leaves copies at its end (``end_copies``, the elaborator's
    :func:`propagate_copies` at the body's root: a single-case switch there) for an ``out``/``inout``
    parameter as a whole, where its applies go through temporaries (``copy_args``): p4c's
    LocalCopyPropagation carries the copy into the inliner's copy-back, ``meta.mh = st_0`` reads
    ``hdr.h2`` as if the case always ran (fuzz_headers seed 10375: ``switch (x.a) { 0x31: { st = x;
    } }``) -- the copy is stored at the body's end, for the runtime's copy-back to take (a return
    before it ends the body, not the copy-back: RemoveReturns' flag guards only the rest of the
    body).  Not for a body that may exit, nor for a parameter the body writes after the first
    statement holding a switch whose case returns (the switch itself, or a block or ``if`` around
    it: the rest -- with ``p4info_rest``, live_prefix -- is under ``if (!flag)`` for p4c, its writes
    end the copy at that join; probed, helper fuzz40), nor for a header's field copies (its
    copy-back stores the whole header; a stack's element by element, a struct's by member, nested
    structs' members too: ``members_of``, the elaborator's ``struct_fields``)."""
    temps = through_temporaries([roots, [[b.get("locals"), b["body"]] for b in subs]])
    for blk in subs:
        end = blk.pop("end_copies", None)
        blk.pop("kept_locals", None), blk.pop("kept_applies", None)   # (end_copies_after's, done with)
        if not end or blk.get("fn") not in temps or any(d.get("s") == "exit" for d in ir_dicts(blk["body"])):
            continue
        sts = blk["body"]
        while len(sts) == 1 and sts[0].get("s") == "block":
            sts = sts[0]["body"]
        # (after the first statement holding a case that returns -- the switch, or a block or an
        # `if` around it -- RemoveReturns puts the rest under `if (!flag)`: its writes end the copy)
        ret = next((i for i, st in enumerate(sts) if any(c.get("s") == "switch_value" and any(
            d.get("s") == "return" for d in ir_dicts(c["cases"])) for c in ir_dicts(st))), None)
        rest = [] if ret is None else sts[ret + 1:] + [d["p4info_rest"] for d in ir_dicts(sts[ret]) if d.get("p4info_rest")]
        stores = []
        for p in blk.get("params") or ():
            if p.get("dir") not in ("out", "inout") or p["py"] not in temps[blk["fn"]] or any(
                    may_write(x, p["py"]) for x in rest):
                continue
            var = {"op": "var", "n": p["py"], "t": p["t"]}
            if p["py"] in end:
                v = end[p["py"]]
                stores.append({"s": "assign", "l": var, "r": v["v"] if v.get("op") == "whole" else v})
            elif p["t"][0] == "struct":   # (CopyStructures splits a struct's copy-back by member, nested ones too)
                stores += [{"s": "assign", "l": lv, "r": v["v"] if v.get("op") == "whole" else v}
                           for k, v in end.items() if (lv := struct_member(var, k, members_of)) is not None]
            elif p["t"][0] == "stack":   # (a stack's copy-back goes element by element: CopyStructures)
                stores += [{"s": "assign", "l": element_of(var, i, w["t"], p["t"][2]), "r": w["v"]}
                           for i in range(p["t"][2]) if (w := end.get(f"{p['py']}[{i}]")) and w.get("op") == "whole"]
        sts.extend(stores)


def through_temporaries(ir) -> dict:
    """The parameters (``py`` names) p4c's inliner passes through a temporary, by sub-control
    instance (``fn``), of the ``apply_control`` statements in ``ir``: all of them where the applies
    differ (``copy_args``), else the out/inout ones whose argument overlaps another out/inout
    argument of the apply (p4c's SideEffectOrdering copies those into temporaries of the caller before
    the inliner runs, an `in` one an out/inout one overlaps too -- :func:`end_copies_after`; ``s.apply(hdr,
    hdr.h.b)`` copies both, helper ovl64, measured with ``--top4 FrontEndLast``) -- scalar ones only
    there: with ``S(inout headers_t hh, out h_t y)`` applied as ``s.apply(hdr, hdr.h2)``, ``y = hh.h;``
    in the single case leaves ``hdr.h2`` as it was where the case did not run (measured; open why:
    the struct temporary's copy-back ``hdr.h2 = hh_0.h2`` comes before ``hdr.h2 = y_0``)."""
    out: dict = {}
    for n in ir_dicts(ir):
        if n.get("s") != "apply_control":
            continue
        args = [a for a in n["args"] if "py" in a]
        if n.get("copy_args"):
            out.setdefault(n.get("fn"), set()).update(a["py"] for a in args)
            continue
        # (an expression's location set joins its operands': `hdr.h.a + 1` overlaps `hdr`)
        locs = [[p] if (p := ir_path(a["e"])) is not None else path_reads(a["e"]) for a in args]
        aliased = {a["py"] for i, a in enumerate(args) if (a["e"].get("t") or [None])[0] in ("bit", "int", "bool")
                   and a["dir"] != "in" and any(j != i and args[j]["dir"] != "in" and any(
                       overlap(p, q) for p in ls for q in locs[i]) for j, ls in enumerate(locs))}
        if aliased:
            out.setdefault(n.get("fn"), set()).update(aliased)
    return out


def end_copies_after(blk: dict, call: dict) -> dict | None:
    """The copies sub-control body ``blk`` leaves at its end (``end_copies``: a single-case switch there,
    the elaborator's :func:`.switch_copies.propagate_copies` at the body's root) as the statements after
    its apply ``call`` see them: p4c has inlined the body there before LocalCopyPropagation, so they go
    on in the caller (helper fuzz50, fuzz_headers seed 11387: ``switch (hh.h.b) { 1: { hh.h = {5, 2, 1,
    7}; } }`` in the body, ``hdr.eth.dst[7:0] = hdr.h.b;`` after the apply writes 2 on every packet) --
    paths and values through the struct arguments it uses in place (``inout``, a variable) and its header
    and stack arguments (a fixed path; ``in`` ones only read), put in the caller's terms (a case that exits
    or returns ends none: measured); a whole-header copy too (helper fuzz58: ``switch (hh.h.b) { 1: {
    hh.h2 = hh.h; } }`` there, ``hdr.h = hdr.h2;`` after the apply keeps h; ``y = x;`` with ``s.apply(hdr.h,
    hdr.h2)`` likewise) and one reading a local of the body (``h_t l = hh.h; .. switch (..) { 1: { hh.h2 = l;
    } }``, ``hdr.h = hdr.h2;`` after the apply reads l); a copy reading anything else is left out.  None
    where none is left."""
    end = blk.get("end_copies")
    if not end:
        return None
    # (a header or stack argument is used in place too -- an `out` one made invalid first; an `in` one
    # only read, and copied in where an out/inout argument overlaps it: its value is that copy's,
    # the runtime's temporary kept after the apply -- `keep_temps`, subcontrol_args.instance_temp)
    written = [ir_path(a["e"]) or "" for a in call["args"] if a["dir"] in ("out", "inout")]
    args, copied = {}, {}
    for a in call["args"]:
        t = (a["e"].get("t") or [None])[0]
        if "py" not in a or a.get("siblings"):
            continue
        if a["dir"] != "in" and t not in ("bit", "int", "bool") and any(
                b is not a and b["dir"] != "in" and overlap(ir_path(b["e"]) or "", ir_path(a["e"]) or "") for b in call["args"]):
            continue   # (an out/inout aggregate another out/inout argument overlaps: copied back whole -- SideEffectOrdering)
        if a["dir"] == "inout" and a["e"].get("op") == "var" and t == "struct" or \
                t in ("header", "stack") and "[*]" not in (ir_path(a["e"]) or "[*]"):
            aliased = a["dir"] == "in" and any(overlap(w, ir_path(a["e"])) for w in written)
            (copied if aliased else args)[a["py"]] = instance_temp(call, a) if aliased else a["e"]
        elif t in ("bit", "int", "bool") and a["e"].get("op") != "slice" and "[*]" not in (ir_path(a["e"]) or "[*]") \
                and not any(b is not a and overlap(ir_path(b["e"]) or "", ir_path(a["e"])) for b in call["args"]
                            if b["dir"] != "in"):
            # (a scalar is used in place where no other out/inout argument overlaps it: K_out_meta; an
            # `in` one overlapping it is copied into a temporary by SideEffectOrdering -- lead s58 probes)
            args[a["py"]] = a["e"]
        elif t in ("bit", "int", "bool") and a["dir"] == "in" and a["e"].get("op") == "slice" and \
                not any(overlap(w, p) for w in written for p in path_reads(a["e"])):
            args[a["py"]] = a["e"]   # (an `in` bit slice nothing the apply writes overlaps: read in place)
        elif t in ("bit", "int", "bool") and a["dir"] == "in" and any(overlap(w, p) for w in written for p in (
                [ir_path(a["e"])] if ir_path(a["e"]) is not None else path_reads(a["e"]))):
            # (an `in` scalar an out/inout argument overlaps: p4c's SideEffectOrdering copies it into a
            # temporary of the caller before the apply, read after it -- the runtime keeps its copy-in)
            copied[a["py"]] = instance_temp(call, a)
    dests = {a["py"] for a in call["args"] if a.get("py") in args and a["dir"] in ("out", "inout")}
    args.update(copied)
    # (a local of the body -- p4c's control local after inlining -- is read as the body left it: the
    # runtime keeps it after the apply, `keep_locals`; the body's declaration made one of its Locals)
    kept = blk.setdefault("kept_locals", {})
    locs = {d["n"]: d["t"] for d in ir_dicts(blk["body"]) if d.get("s") == "decl" and not str(d["n"]).startswith("L.")}
    locs.update(kept)
    seq = blk.setdefault("kept_applies", [0])   # (each apply keeps them in variables of its own)
    seq[0] += 1

    def root(path: str) -> str:   # (a kept local by its first name)
        pre = "L." if path.startswith("L.") else ""
        r = pre + path[len(pre):].split(".")[0].split("[")[0]
        return r[2:] if pre and r[2:] in kept else r
    out = {}
    for path, val in end.items():
        if root(path) not in dests or any(
                root(r) not in args and root(r) not in locs for r in path_reads(val)) or any(
                d.get("op") == "var" and root(d["n"]) not in args and root(d["n"]) not in locs for d in ir_dicts(val)):
            continue
        for n in sorted({root(d["n"]) for d in ir_dicts(val) if d.get("op") == "var" and root(d["n"]) in locs}):
            if n not in args:
                args[n] = {"op": "var", "n": f"L._loc{seq[0]}_{call['fn']}_{n}", "t": locs[n]}
                call.setdefault("keep_locals", []).append(["L." + n, args[n]["n"], locs[n]])
                kept[n] = locs[n]
        out[ir_path(args[root(path)]) + path[len(root(path)):]] = ir_replace(
            val, lambda d: copy.deepcopy(args[root(d["n"])]) if d.get("op") == "var" and root(d["n"]) in args else None)
        if any(d.get("op") == "var" and d.get("n") in copied for d in ir_dicts(val)):
            call["keep_temps"] = True
    if out and copied:   # (what each temporary copied in: switch_copies.drop_self_reading_copies)
        call["copy_origins"] = {copied[a["py"]]["n"]: a["e"] for a in call["args"] if a.get("py") in copied
                                and a["dir"] == "in" and (a["e"].get("t") or [None])[0] in ("bit", "int", "bool")}
    for d in ir_dicts(blk["body"]):   # (in place: the body's statements keep their ids)
        if (d.get("op") == "var" or d.get("s") == "decl") and d.get("n") in kept:
            d["n"] = "L." + d["n"]
    return out or None


def _translated(call: dict, copies: dict) -> dict:
    """``copies`` (caller paths -> values) as the body of sub-control apply ``call`` sees them:
    paths through its in-place struct arguments renamed to its parameters; the value's other
    reads become extra ``in`` arguments of ``call`` (``L.cpN``, added here for the copies kept)."""
    ren = {a["e"]["n"]: a["py"] for a in call["args"]
           if "py" in a and a["dir"] == "inout" and a["e"].get("op") == "var"
           and (a["e"].get("t") or [None])[0] == "struct" and not a.get("siblings")}
    written = [ir_path(a["e"]) for a in call["args"] if a["dir"] in ("out", "inout")]
    out: dict = {}
    snaps: list = []
    taken = sum(1 for a in call["args"] if str(a.get("py", "")).startswith("L.cp"))
    # (a header or stack argument p4c's inliner uses in place: a whole copy of it, or of an element,
    # is one of the parameter's -- `st[2] = st[1];` in the body reads `l_0`, helper fuzz32)
    hdrs = [(ir_path(a["e"]), a["py"]) for a in call["args"] if "py" in a and a["dir"] in ("in", "inout")
            and (a["e"].get("t") or [None])[0] in ("header", "stack") and not a.get("siblings")
            and ir_path(a["e"]) is not None and "[*]" not in ir_path(a["e"])]
    for path, val in copies.items():
        root = path.split(".")[0].split("[")[0]
        to = ren[root] + path[len(root):] if root in ren else next(
            (py + path[len(ap):] for ap, py in hdrs if val.get("op") == "whole" and
             (path == ap or path.startswith(ap + "[") and path[len(ap):].count("[") == 1)), None)
        if to is None:
            continue
        extra: list = []
        val = _snapshot(val, ren, extra, taken + len(snaps))
        # (a value reading what the apply passes out/inout, or at a run-time stack index: left out)
        if val is None or any(w is None or overlap(w, ir_path(e) or "") for _, e in extra for w in written):
            continue
        snaps += extra
        out[to] = _rename_vars(val, ren)
    call["args"] = call["args"] + [{"dir": "in", "e": e, "py": py} for py, e in snaps]
    return out


def _snapshot(x, ren: dict, extra: list, base: int):
    """``x`` with each path read outside the structs of ``ren`` replaced by a variable ``L.cpN``
    (its expression appended to ``extra`` as ``(name, expression)``); None when such a read has
    a run-time stack index or no type."""
    if isinstance(x, list):
        out = [_snapshot(v, ren, extra, base) for v in x]
        return None if any(v is None for v, y in zip(out, x) if y is not None) else out
    if not isinstance(x, dict):
        return x
    p = ir_path(x) if x.get("op") in ("var", "field", "stack_idx") else None
    if p is not None:
        if p.split(".")[0].split("[")[0] in ren:
            return x
        if "[*]" in p or not x.get("t"):
            return None
        name = f"L.cp{base + len(extra)}"
        extra.append((name, x))
        return {"op": "var", "n": name, "t": x["t"]}
    out = {}
    for k, v in x.items():
        y = _snapshot(v, ren, extra, base)
        if y is None and v is not None:
            return None
        out[k] = y
    return out


def _rename_vars(x, ren: dict):
    """``x`` with each variable named in ``ren`` renamed."""
    return ir_replace(x, lambda d: dict(d, n=ren[d["n"]]) if d.get("op") == "var" and d.get("n") in ren else None)
