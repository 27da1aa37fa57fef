"""What p4c 1.2.4.8's LocalCopyPropagation holds as it enters the case of a single-case ``switch``
(:mod:`.switch_copies`): the copies the statements before the switch in its list leave.

Its walk goes into the case with the state before the switch, so the case's assignments are
values with those copies put in -- ``meta.m8 = hdr.h.b; switch (x) { 5: { meta.m8 = meta.m8 + 2;
} }`` makes the case's value ``hdr.h.b + 2``, which no longer reads its destination and goes on
after the switch as if the case always ran (BMv2 writes it on every packet; measured on p4c's
``--top4 LocalCopyPropagation`` dump and on BMv2, helper fuzz40).  metadata fields take part: p4c's
mid end has flattened ``meta`` into locals by then (``meta._m80``).  A ``?:`` value before the switch
is a temporary's for p4c (its front end writes ``if (c) { tmp = a; } else { tmp = b; } meta.m8 =
tmp;``), assigned on every packet: the ``?:`` itself stands for it (put into the case's values after
``switch_copies._mux_temporary`` looked at them, which is for a ``?:`` of the case's own).  :func:`switch_copies.drop_self_reading_copies` is the
other half: it looks further back (into plain blocks, sub-control bodies) for a copy that then
reads its own destination, and only drops it.
"""
from __future__ import annotations

from .copy_paths import ir_path, may_write, overlap, path_reads, put_path
from .elab_common import has_call, ir_dicts
from .header_init import has_method_call
from .predication import MUX_WRAPPERS
from .stack_copies import whole_step
from .subcontrol_args import instance_temp
from .union_defuse import in_place_structs, substitute


def entry_copies(stmts: list, expand=None, copied=frozenset()) -> dict:
    """The copies p4c's LocalCopyPropagation holds as it enters a single-case switch that follows
    ``stmts`` in its list: path -> value of each assignment or declaration there of a scalar value
    (no call), with the earlier ones put in, up to a
    statement that may write the path or what the value reads; a variable only where ``stmts``
    declare it (an action may write a control local it does not name).  The case's values read
    them, so one that reads its own destination may no longer (helper fuzz40: ``meta.m8 = hdr.h.b;
    switch (x) { 5: { meta.m8 = meta.m8 + 2; } }`` leaves ``hdr.h.b + 2`` in meta.m8 on every packet).
    A sub-control applied there is its body as p4c inlines it (``expand``: the elaborator's
    ``inlined_for_copies``; not one that returns: RemoveReturns' flag joins; an ``exit`` there is as
    in the caller, an ``if (c) { exit; }`` ends nothing) between the inliner's copies of the
    arguments it does not use in place (:func:`_inlined_apply`).  A whole-header copy between fixed
    paths is kept too (``{"op": "whole", ..}``, as ``switch_copies`` has them): a case's ``hdr.h =
    meta.mh;`` after ``meta.mh = hdr.h2;`` copies ``hdr.h2`` for p4c (helper fuzz41), ended as
    :func:`.stack_copies.whole_step` says (not by an exact copy of either, helper fuzz42).  ``copied``: the
    instances (``fn``) applied with different arguments (:func:`.subcontrol_args.differing_instances`),
    whose header, stack and struct arguments go through p4c's temporaries (helper fuzz42)."""
    decls = {d["n"] for d in stmts if d.get("s") == "decl"}
    known: dict = {}
    work = list(stmts)
    while work:
        st = work.pop(0)
        k = st.get("s")
        if k == "block":   # (no join at a plain block's end)
            work[:0] = st["body"]
            continue
        if k == "inlined_end":   # (the parameters' variables are the inlined body's own)
            end_inlined(known, st["names"])
            continue
        if (inlined := expand_apply(st, expand, copied)) is not None:
            work[:0] = inlined
            # (the body's locals are the inlined body's own: ``bit<8> q = x; y = q + 1;`` gives
            # the out argument ``x + 1``, lead59)
            decls |= {d["n"] for d in ir_dicts(inlined) if d.get("s") == "decl"}
            continue
        dest, val = (st["n"], st.get("init")) if k == "decl" else \
            (ir_path(st["l"]), st["r"]) if k == "assign" and st["l"].get("op") != "slice" else (None, None)
        src = ir_path(val) if isinstance(val, dict) and val.get("op") in ("var", "field", "stack_idx") else None
        whole = None if src is None or dest is None or "[*]" in src + dest or overlap(src, dest) or \
            (val.get("t") or [None])[0] != "header" or st.get("siblings") else \
            {"op": "whole", "v": known[src]["v"] if (known.get(src) or {}).get("op") == "whole" else val, "t": val["t"]}
        if isinstance(val, dict) and k in ("assign", "decl"):   # (the value first: `x = x + 5;` reads x's copy)
            for p, v in known.items():
                val = put_path(val, p, v) if v.get("op") != "whole" else val
        for p in [p for p, v in known.items() if may_write(st, p) or any(may_write(st, r) for r in path_reads(v))
                  or v.get("op") == "whole" and whole_step(st, p, v)[1]]:
            del known[p]
        if whole is not None and not overlap(ir_path(whole["v"]), dest):   # (`meta.mh = hdr.h2;`: a whole-header copy)
            known[dest] = whole
        if dest is None or "[*]" in dest or not isinstance(val, dict) or st.get("siblings") or \
                ("." not in dest and "[" not in dest and dest not in decls) or has_call(val) or \
                has_method_call(val) or \
                (val.get("t") or [None])[0] not in ("bit", "int", "bool"):
            continue
        if not any(overlap(r, dest) for r in path_reads(val)):
            known[dest] = val
    return known


def expand_apply(st: dict, expand, copied=frozenset()) -> list | None:
    """Statement ``st``, where it is a sub-control apply whose body ``expand`` gives (not one that
    returns: RemoveReturns' flag joins), as p4c's inliner pastes it (:func:`_inlined_apply`), then
    an ``inlined_end`` mark for the body's locals; otherwise None.  ``copied``: the instances applied
    with different arguments (their header, stack and struct arguments, an ``inout`` struct too,
    are the instance's temporaries, not in place)."""
    if st.get("s") != "apply_control" or expand is None:
        return None
    temps = bool(st.get("copy_args") or st.get("fn") in copied)
    body = expand(dict(st, args=[a for a in st["args"] if not temps or not _temporary(a)]))
    if body is None or any(d.get("s") == "return" for d in ir_dicts(body)):
        return None
    local = [d["n"] for d in ir_dicts(body) if d.get("s") == "decl"]
    if temps and not st.get("copy_args"):
        # (told by the source before every apply is elaborated: the code generator keeps the
        # temporaries the copies read, however subcontrol_args.mark_copied_applies marks it)
        st["keep_temps"] = True
    return _inlined_apply(st, body, temps) + ([{"s": "inlined_end", "names": local}] if local else [])


def end_inlined(known: dict, names: list) -> None:
    """In place: drop the copies in ``known`` of or reading ``names`` (an ``inlined_end`` mark's; a
    None: everything)."""
    for p in [p for p, v in known.items() if any(n is None or overlap(r, n) for r in [p, *path_reads(v)] for n in names)]:
        del known[p]


def _inlined_apply(call: dict, body: list, copied: bool = False) -> list:
    """Sub-control apply ``call`` as p4c's inliner pastes it, ``body`` being its body with the
    arguments it uses in place (``in_place_structs``) put in: each other parameter's variable given
    its ``in``/``inout`` argument first (a header's or struct's used in place), the ``out``/``inout``
    arguments given the variable back
    after (``meta.m8 = hdr.h.b; s.apply(meta.m8);`` with ``x = x + 5;`` in the body leaves
    ``hdr.h.b + 5`` in meta.m8 for LocalCopyPropagation, helper fuzz41), then an ``inlined_end``
    mark ending the copies of and reading those variables.  An ``out``/``inout`` argument without
    a variable ends, before the body, every copy it may write or that reads it.  Where the instance
    is applied with different arguments (``copied``) a header, stack or struct argument (not a union
    member; ``body`` without an ``inout`` struct put in place) is the instance's temporary
    (``x_0``, :func:`.subcontrol_args.instance_temp`), which nothing else writes: a copy reading it
    (``meta.m8 = x_0.b + 1``) goes on past a later write of ``hdr.h.b``, up to the next apply of the
    instance (helper fuzz42; BMv2 reads the value of the apply's time after the switch)."""
    temps = {a["py"]: instance_temp(call, a) for a in call["args"] if copied and _temporary(a)}
    if temps:
        body = substitute(body, temps)
        args = [a for a in call["args"] if a.get("py") in temps]
        unknown = {"op": "var", "n": None}   # (an `out` one: written, nothing known of it)
        return [{"s": "assign", "l": temps[a["py"]], "r": a["e"] if a["dir"] != "out" else unknown} for a in args] + \
            _inlined_apply(dict(call, args=[a for a in call["args"] if a.get("py") not in temps]), body) + \
            [{"s": "assign", "l": a["e"], "r": temps[a["py"]]} for a in args if a["dir"] != "in"]
    inplace = in_place_structs(call)
    # (an `in`/`inout` header, stack or struct at a fixed path is used in place too where every apply
    # passes the same arguments, as most do: `x.b` in the body reads `hdr.h.b`, helper fuzz41)
    more = {a["py"]: a["e"] for a in call["args"] if "py" in a and a["py"] not in inplace and a["dir"] in ("in", "inout")
            and (a["e"].get("t") or [None])[0] in ("header", "stack", "struct") and not a.get("siblings")
            and "[*]" not in (ir_path(a["e"]) or "[*]")}
    body = substitute(body, more)
    own = [a for a in call["args"] if "py" in a and a["py"] not in inplace and a["py"] not in more]

    def var(a):
        return {"op": "var", "n": a["py"], "t": a["e"].get("t")}
    ends = [ir_path(a["e"]) for a in call["args"] if a["dir"] in ("out", "inout") and "py" not in a]
    head = [{"s": "inlined_end", "names": ends}] if ends else []
    return head + [{"s": "assign", "l": var(a), "r": a["e"]} for a in own if a["dir"] in ("in", "inout")] + \
        list(body) + [{"s": "assign", "l": a["e"], "r": var(a)} for a in own if a["dir"] in ("out", "inout")] + \
        [{"s": "inlined_end", "names": [a["py"] for a in own]}]


def _temporary(a: dict) -> bool:
    """Whether sub-control argument ``a`` is p4c's temporary's where its instance is applied with
    different arguments: a header, stack or struct (not a union member)."""
    return "py" in a and (a["e"].get("t") or [None])[0] in ("header", "stack", "struct") and not a.get("siblings")


def mux_of(e: dict) -> dict:
    """The ``?:`` at the top of ``e`` or under the casts, unary operations, slices p4c dismantles through."""
    while e.get("op") in MUX_WRAPPERS:
        e = e["a"]
    return e
