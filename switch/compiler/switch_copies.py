"""What p4c 1.2.4.8's LocalCopyPropagation makes of a ``switch`` on a value with a single case.

Its control-flow walk of a ``switch`` visits each case from the state before the switch and merges
the results -- with one case (one label, no ``default``) there is nothing to merge, and the state
after the switch is the case's, as if the case always ran.  So after the switch:

* a variable or header field the case's straight-line part last assigned reads as that value
  (``bit<8> v = 1; switch (x) { 22: { v = 5; } } h.a = v;`` writes 5 on every packet, fuzz_exprs
  seed 5422; ``switch (x) { 22: { hdr.h2.c = 2; } } ... (bit<8>)hdr.h2.c`` reads 2, fuzz_headers
  seed 5648; a non-constant value too -- ``v = hdr.h.a + 4`` -- evaluated where it is read, with
  what the case read through its own locals put in: ``bit<8> t = hdr.h.a + 1; hdr.h.d = (bit<32>)t;``
  makes later reads of ``hdr.h.d`` ``(bit<32>)(hdr.h.a + 1)``), until something writes it or what
  the value reads -- in the statements that follow in the same block and past the end of plain
  blocks around it (not past an ``if`` or ``switch`` around it: a join), into later plain blocks,
  both branches of an ``if`` (past it when neither branch writes them), past a direct action
  call whose body and copy-backs write neither (fuzz_exprs seed 14908; a body or argument reading
  it reads the field itself: p4c leaves the call a call) and a table apply whose actions write
  neither (its keys read the field itself; an action only that apply uses loses the stores p4c's
  def-use finds dead after it: ``dead_reads.drop_dead_action_stores``, helper opens2), into every
  case of a later ``switch`` on a value or
  on ``action_run`` (past it what all cases keep; a later single-case switch's own copies read
  them: :func:`_carry_cases`), and into the body of a sub-control applied there (p4c has inlined it: past it when the body writes neither;
  :func:`.subcontrol_copies.specialize_subcontrols`, a body per apply); a store to a local that nothing reads
  later is no write (p4c's front end removed it before: :func:`_dead_local_store`); a local whose
  constant value is known before the switch is that constant in the case's values
  (:func:`_known_before`);
* a function called there as a statement has been inlined by p4c (``p_1 = arg; ..; arg = p_1;``),
  so its out/inout arguments read what the body leaves in the parameter: the value it was last
  given, in the caller's terms, or -- after a join -- the parameter's own variable, a control local
  here that stays zero where the case did not run (fuzz_exprs seed 11091, :func:`.call_copies.call_copies`);
* a ``return`` there sets RemoveReturns' flag for good (``elab_common.live_prefix``).

Two cases, or ``21: 22:``, are joined properly; a switch on ``action_run`` is not affected.
(Which actions a constant switch's dropped cases leave unused: :mod:`.switch_cases`.)  A tuple
local's elements are values of their own for p4c: ``tuple<..> tp = {a, b}; h.c = tp[1];`` in the
case makes later reads of ``h.c`` ``b`` (fuzz_exprs seed 6209).  A whole-header copy between fixed
paths (``hdr.s[1] = hdr.o;``) goes on too, but only into a later assignment or declaration whose
value is exactly the header (or a function's ``in`` argument, an arm of a ``?:`` value: p4c's own
copies); its fields' reads are left alone, and an ``isValid()`` of either header ends it (fuzz_exprs seed 12177, :func:`.stack_copies.whole_step`); a whole-stack copy is one per element, and a
whole copy out of a local of the case reads that local after the switch, hoisted before it
(:mod:`.stack_copies`, fuzz_headers seed 8764; a whole stack -- or an inout header -- given to a
function after the switch is the inliner's copy of it, element by element: ``split_call_args``).
A store to a field that p4c's front end drops as dead (overwritten on every path before a read:
``dead_reads.drop_dead_field_stores``) ends no copy, and a header initializer ends the copies of
or reading its header before its own value reads them (:func:`_init_kills`; helper opens).  The
values of tuples and lists, values with
calls, and scalar values that still read a variable declared in the case are not propagated by
p4c (or not modelled).
"""
from __future__ import annotations

import copy

from .call_copies import call_copies, call_guard
from .elab_common import has_call, ir_dicts, ir_replace
from .copy_paths import ir_path, may_write, overlap, path_reads, put_path, same_objects
from .dead_reads import drop_dead_field_stores
from .header_init import folded, has_method_call
from .case_entry import end_inlined, expand_apply, mux_of as _mux_of
from .stack_copies import hoist_case_locals, split_call_args, split_stack_read, stack_element_copies, \
    struct_member_assigns, whole_step, whole_uses


def _straight(sts: list, fold, flat: list, parents: dict | None = None) -> list:
    """``flat`` with the statements of ``sts`` appended in order, plain blocks opened and the arm
    an ``if`` p4c's mid end folds taken (after EliminateSerEnums, `(E)16w5 != E.C` too, which
    its front end leaves for the P4Info: fuzz_exprs seed 5422); ``parents``: id -> its list."""
    for st in sts:
        if st.get("s") == "block" and (loop := _unrolled(st["body"], fold)) is not None:
            _straight(loop, fold, flat)   # (copies of the loop's statements: no parents)
        elif st.get("s") == "block":
            _straight(st["body"], fold, flat, parents)
        elif st.get("s") == "if" and fold(st["c"]) is not None:
            _straight((st["then"] if fold(st["c"]) else st["else"]) or [], fold, flat, parents)
        else:
            flat.append(st)
            if parents is not None:
                parents[id(st)] = sts
    return flat


def _inlined(flat: list, fold, expand, copied, depth: int = 0) -> list:
    """``flat`` with each sub-control apply that :func:`.case_entry.expand_apply` inlines replaced by
    its statements (opened as :func:`_straight` does, applies in them inlined in turn)."""
    out: list = []
    for st in flat:
        inl = expand_apply(st, expand, copied) if depth < 4 else None
        out += [st] if inl is None else _inlined(_straight(inl, fold, []), fold, expand, copied, depth + 1)
    return out


_LOOP_STOPS = ("break", "continue", "return", "exit", "call_fn")


def _unrolled(block: list, fold, limit: int = 64) -> list | None:
    """The block of a ``for`` loop (``elab_loops``: declarations, then the loop) as the reference
    spells it out for p4c 1.2.4.8, each iteration's body with the loop variables' values put in
    (fuzz_exprs seed 12527: ``for (bit<8> i = 0; i < 1; i += 1) { x -= x; }``); None where a
    variable or the condition is not constant, or the body breaks, continues, returns, exits,
    calls a function or writes a loop variable, or it runs more than ``limit`` times."""
    if not block or block[-1].get("s") not in ("for", "for_in"):
        return None
    loop, init = block[-1], block[:-1]
    body = loop["body"]
    if any(d.get("s") in _LOOP_STOPS or d.get("op") in ("call_fn", "call_fn_out") for d in ir_dicts(body)):
        return None
    if loop["s"] == "for_in":
        if any(fold(v) is None for v in loop["values"]):
            return None
        names, envs = {loop["n"]}, [{loop["n"]: {"op": "const", "v": fold(v), "t": loop["t"]}} for v in loop["values"]]
    else:
        env = {}
        for d in init:
            k = fold(d["init"]) if d.get("s") == "decl" and d.get("init") is not None else None
            if k is None:
                return None
            env[d["n"]] = {"op": "const", "v": k, "t": d["init"]["t"]}
        names, envs = set(env), []
        while True:
            c = fold(_put_all(loop["c"], env))
            if c is None or len(envs) > limit:
                return None
            if not c:
                break
            envs.append(env)
            env = dict(env)
            for u in loop["update"]:
                if u.get("s") != "assign" or ir_path(u["l"]) not in names or u["l"].get("op") != "var":
                    return None
                k = fold(_put_all(u["r"], env))
                if k is None:
                    return None
                env[u["l"]["n"]] = dict(env[u["l"]["n"]], v=k)
    if any(may_write(st, n) for st in body for n in names):
        return None
    return list(init) + [{"s": "block", "body": _put_all(copy.deepcopy(body), env)} for env in envs]


def single_case_copies(sw: dict, fold, fn_of=None, fresh=None, elem_of=None, members_of=None, entry=None,
                       expand=None, copied=frozenset()) -> None:
    """Marks ``sw`` (a switch of one case, see the module docstring) for the block it is in:
    ``returns`` when the case's straight-line part ends in a ``return``; ``copies`` -- path ->
    the value that part last assigns it, for :func:`propagate_copies`.  A function called there
    as a statement (``fn_of``: its record by generated name) copies its out/inout arguments back
    (:func:`.call_copies.call_copies`); where that value is the inlined parameter's variable, ``fresh(t)``
    gives a control local standing for it, assigned after the call.  ``elem_of``: a stack type's
    element type (whole-stack copies and the case's locals: :mod:`.stack_copies`); ``members_of``: a
    struct type's members (a whole-struct copy is one per member, ``struct_member_assigns``);
    ``entry``: the copies the statements before the switch leave (:func:`.case_entry.entry_copies`), which the
    case's values read up to a write of what they name.  A sub-control applied in the case is its
    body as p4c inlines it (``expand``, ``copied``: :func:`.case_entry.expand_apply`): its copy-backs
    are copies past the switch too (helper fuzz42: ``switch (h.a) { 0x31: { s.apply(hdr.h, meta.m8); }
    }`` with ``y = x.b + 1;`` in the body writes ``hdr.h.b + 1`` into meta.m8 on every packet)."""
    body = sw["cases"][0]["body"]
    declared = {d.get("n") for d in ir_dicts(body) if d.get("s") == "decl"}
    parents: dict = {}
    flat = _inlined(_straight(body, fold, [], parents), fold, expand, copied)
    flat = [m for st in flat for m in struct_member_assigns(st, members_of) or _header_init_stores(st) or [st]]
    declared |= {d["n"] for d in flat if d.get("s") == "decl"}   # (struct_member_assigns' temporaries)
    entry = dict(entry or {})
    avail: dict = {}
    wholes: dict = {}   # path -> {"op": "whole", "v": the header it copies} (whole_step)
    tuples: dict = {}   # a tuple local -> its elements' values (p4c splits tuples into elements)
    for i, st in enumerate(flat):
        if st.get("s") == "inlined_end":   # (an inlined sub-control body's variables)
            for known in (avail, entry, wholes, tuples):
                end_inlined(known, st["names"])
            continue
        if st.get("s") == "return":   # (an exit sets no flag: RemoveReturns leaves it)
            sw["returns"] = True
            break
        later_return = any(d.get("s") == "return" for d in ir_dicts(flat[i + 1:]))
        if any(d.get("s") == "return" or later_return and d.get("s") == "exit" and d is not st for d in ir_dicts(st)):
            # (a return -- or an exit before one, folded by the mid end or not: seed 4112 -- under an `if` the front
            # end does not fold: RemoveReturns puts the rest of the case under `if (!flag)`, whose join ends the copies
            # of what it writes, and the flag after the switch is unknown -- fuzz_mutants seeds 2939, 2942, exit_stmt)
            for p in [p for p in avail if any(may_write(x, p) for x in flat[i:])]:
                del avail[p]
            for p in [p for p in wholes if any(may_write(x, p) for x in flat[i:])]:
                del wholes[p]
            break
        if st.get("s") == "exit":   # (the flow after the switch is unreachable for p4c: drop_unvisited_locals)
            sw["exits"] = True
            break
        if st.get("s") == "assign":
            dest, val = ir_path(st["l"]), st["r"]
        elif st.get("s") == "decl" and st.get("init") is not None:
            dest, val = st["n"], st["init"]
        else:
            dest = val = None
        if val is not None:
            for p, v in avail.items():   # (p4c propagates within the case too)
                val = put_path(val, p, v)
            val = _tuple_elements(val, tuples)
            if _mux_of(val).get("op") == "cond":
                val = folded(val)   # (`c ? x : x` is x, also under a cast or `~`)
            if _mux_of(val).get("op") == "cond" and fresh is not None and st.get("s") == "assign" and id(st) in parents and dest is not None \
                    and st["l"].get("op") != "slice" and not has_call(val):
                val = _mux_temporary(st, val, fresh(_mux_of(val)["t"]), parents[id(st)])
            for p, v in entry.items():   # (after: a `?:` from before the switch is its temporary for p4c)
                val = put_path(val, p, v) if v.get("op") != "whole" else val
        before, entry_before = dict(avail), dict(entry)   # (a call's copy-in `p_1 = arg` reads the values before it)
        for p in [p for p, v in avail.items() if may_write(st, p) or any(may_write(st, r) for r in path_reads(v))]:
            del avail[p]
        for p in [p for p, v in entry.items() if may_write(st, p) or any(may_write(st, r) for r in path_reads(v))
                  or v.get("op") == "whole" and whole_step(st, p, v)[1]]:
            del entry[p]
        for p in [p for p, items in tuples.items() if may_write(st, p) or any(may_write(st, r) for r in path_reads(items))]:
            del tuples[p]
        if st.get("s") == "call_fn" and fn_of is not None and fresh is not None and id(st) in parents:
            rec = fn_of(st["fn"])
            flat_fn = None if rec is None or rec.get("body") is None else _straight(rec["body"], fold, [])
            for path, (t, val) in call_copies(st, rec, flat_fn, before).items():
                if val is None:   # (the parameter's variable: 0 on BMv2 where the case did not run)
                    val = fresh(t)
                    lst = parents[id(st)]
                    lst.insert(next(i for i, x in enumerate(lst) if x is st) + 1,
                               {"s": "assign", "l": val, "r": next(a["e"] for a in st["args"]
                                                                   if ir_path(a["e"]) == path)})
                k = fold(val)
                avail[path] = {"op": "const", "v": k, "t": t} if k is not None else val
        if dest is not None and "." not in dest and "[" not in dest and val is not None and val.get("op") == "list" \
                and not has_method_call(val) and not any(overlap(r, dest) for r in path_reads(val)):
            tuples[dest] = val["items"]   # (`tp = {a, b}; h.c = tp[1];` copies b: fuzz_exprs seed 6209)
        # (`hdr.s[1] = hdr.o;`: a whole-header copy; `hdr.s = l;`: element by element -- the
        # source's own copy put in before the store ends the copies, none where it is the
        # destination: `tmp.ih = m.ih; m.ih = tmp.ih;`, struct_member_assigns' temporary)
        news = [(dest, val)] if _whole_source(st, dest, val) else []
        # (a header copied before the switch too: `meta.mh = hdr.h2; switch (..) { 5: { hdr.h = meta.mh; } }`)
        news = [(p, (wholes.get(ir_path(v)) or entry_before.get(ir_path(v)) or {}).get("v", v), v["t"])
                for p, v in news + stack_element_copies(st, dest, val, elem_of)]
        for p in [p for p, w in wholes.items() if whole_step(st, p, w)[1]]:
            del wholes[p]
        wholes.update({p: {"op": "whole", "v": v, "t": t} for p, v, t in news if not overlap(ir_path(v) or "", p)})
        k = None if val is None else fold(val)   # (`x - x` is 0: no read of x left, fuzz_exprs seed 12527)
        if dest is None or "[*]" in dest or val is None or has_call(val) or \
                val.get("op") in ("list", "mk", "invalid_hdr") or (st.get("l") or {}).get("op") == "slice" or \
                k is None and any(overlap(r, dest) for r in _value_reads(val)) or \
                val.get("t", [None])[0] not in ("bit", "int", "bool"):
            continue
        avail[dest] = {"op": "const", "v": k, "t": val["t"]} if k is not None else val
    avail.update(wholes)
    copies = {p: v for p, v in avail.items() if p.split(".")[0].split("[")[0] not in declared
              and (v.get("op") == "whole" or not any(_root(r) in declared for r in path_reads(v)))}
    hoist_case_locals(sw, {_root(r) for v in copies.values() for r in path_reads(v) if _root(r) in declared})
    if copies:
        sw["copies"] = copies


def _value_reads(val: dict) -> list:
    """The paths value ``val`` reads, a header's ``isValid()`` not a read of its fields (p4c propagates
    ``hdr.h2.d = 1 + (hdr.h2.isValid() ? 3 : 4)`` past a single-case switch: helper fuzz50)."""
    return path_reads(ir_replace(val, lambda d: {"op": "const", "v": False, "t": ["bool"]}
                                 if d.get("op") == "isvalid" else None))


def _header_init_stores(st: dict) -> list | None:
    """Header initializer ``st`` (``hdr.h2 = {5, 2, 1, 7};``) as p4c writes it: ``hdr.h2.setValid();`` then
    one store per field -- copies past the switch like any field store (helper fuzz50, fuzz_headers seed
    11387: ``switch (h.b) { 1: { hh.h = {.., m8 + (s[0].isValid() ? s[0].b : 0)}; } } .. = hh.h.d`` reads
    that value on every packet); None for anything else, a union member, or a value reading the header."""
    if st.get("s") != "assign" or st.get("siblings") or not isinstance(st.get("r"), dict) or \
            st["r"].get("op") != "mk" or (st["l"].get("t") or [None])[0] != "header":
        return None
    dest = ir_path(st["l"])
    if dest is None or "[*]" in dest or any(overlap(r, dest) for r in path_reads(st["r"])):
        return None
    return [{"s": "setvalid", "h": st["l"], "v": True, "siblings": []}] + [
        {"s": "assign", "l": {"op": "field", "base": st["l"], "f": f, "t": v.get("t")}, "r": v}
        for f, v in zip(st["r"]["fields"], st["r"]["vals"])]


def _mux_temporary(st: dict, val: dict, tmp: dict, lst: list) -> dict:
    """p4c's front-end SideEffectOrdering makes the case's ``x = c ? a : b`` an ``if`` assigning a
    temporary, ``x = tmp``: the copy past the switch is ``tmp``, 0 where the case did not run
    (fuzz_mutants ``--kinds mux_expr`` seeds 125, 196, helper mutz38: ``switch (h.a) { 5: { m = h.b;
    m = (m < 8) ? m : m + 3; } } h.d = (bit<32>)m;`` sends 0 where h.a != 5).  ``tmp`` (a control
    local) is assigned the ``?:`` just before ``st`` in its list ``lst``; returns ``val`` with ``tmp`` for
    it, also under casts, unary operations, slices (:func:`_mux_of`; seed 638, helper mutz39: ``h.b =
    ~((m + 5 == h.b) ? m + 5 : h.b)`` copies ``~tmp``, 0xff where the case did not run).  Not where the
    front end's strength reduction removed the ``?:`` before (``c ? x : x`` is x unless c calls
    ``isValid()``: :func:`.header_init.folded`, fuzz_exprs seed 17951), nor with a call in it (not modelled)."""
    lst.insert(next(i for i, x in enumerate(lst) if x is st), {"s": "assign", "l": tmp, "r": _mux_of(st["r"])})
    return (put := lambda e: dict(tmp) if e.get("op") == "cond" else dict(e, a=put(e["a"])))(val)


def _root(path: str) -> str:
    return path.split(".")[0].split("[")[0]


_PATH_OPS = ("var", "field", "stack_idx")


def _whole_source(st: dict, dest, val) -> bool:
    """Whether ``st`` copies a whole header from one fixed path to another (``hdr.s[1] = hdr.o;``,
    ``e_t l = hdr.s[1];``): p4c's LocalCopyPropagation keeps such copies too (fuzz_exprs seed 12177)."""
    if dest is None or val is None or "[*]" in dest or st.get("siblings") or val.get("op") not in _PATH_OPS \
            or (val.get("t") or [None])[0] != "header" or (st.get("l") or {}).get("op") == "slice":
        return False
    src = ir_path(val)
    return src is not None and "[*]" not in src and not overlap(src, dest)


def _tuple_elements(x, tuples: dict):
    """``x`` with each constant-index element of a tuple local in ``tuples`` replaced by its value."""
    def element(d):
        if d.get("op") == "tuple_idx" and d["a"].get("op") == "var" and d["a"]["n"] in tuples \
                and isinstance(d.get("i"), int) and d["i"] < len(tuples[d["a"]["n"]]):
            return _tuple_elements(dict(tuples[d["a"]["n"]][d["i"]]), tuples)
        return None
    return ir_replace(x, element)


def propagate_copies(stmts: list, left: dict | None = None, expand=None) -> list:
    """After a switch marked with ``copies`` (:func:`single_case_copies`), reads of those paths in
    the statements that follow in the same list are the values, until one of them may write the
    path or what the value reads (an assignment's right-hand side still gets the value).  A plain
    block carries them on: one whose statements hold such copies to its end is marked with
    them in turn by its elaborator (``left`` gets those copies), so the statements after the block
    get them too -- p4c's walk has no join at a block's end (``{ switch (x) { 5: { v = 2; } } }
    h.a = v;`` writes 2).  So does a sub-control apply (p4c has inlined its body there: ``expand``
    gives it, :meth:`~.elab_unions.UnionRules.inlined_for_copies`) that writes neither: the copies
    go on after it, and the apply is marked ``copies_in`` for the reads in its body
    (:func:`.subcontrol_copies.specialize_subcontrols`; fuzz_exprs seed 8342)."""
    out = list(stmts)
    decls = {d["n"] for d in ir_dicts(stmts) if d.get("s") == "decl"}
    for i, st in enumerate(out):
        copies = st.get("copies") or {}
        if copies:   # (used up here: not part of the program)
            out[i] = {k: v for k, v in st.items() if k != "copies"}
            known = _known_before(out[:i], decls)
            live = {p: _put_all(v, known) if v.get("op") != "whole" else v for p, v in copies.items()}
            tail = out[i + 1:]   # (stores p4c's front end drops as dead end none: dead_reads)
            drop_dead_field_stores(tail, [r for v in live.values() for r in path_reads(v)], expand)
            out[i + 1:] = _carry(tail, live, expand, decls=decls)
            if gone := {d["n"] for d in ir_dicts(tail) if d.get("op") == "var"} - {   # (locals whose reads the
                    d["n"] for d in ir_dicts(out[i + 1:]) if d.get("op") == "var"}:   # copies took: live, switch_cases)
                out[i]["fe_reads"] = sorted(gone)
            if left is not None:
                left.update(live)
    return out


def _known_before(stmts: list, decls) -> dict:
    """The locals of ``decls`` (declared in the walked list: no action or function reaches them)
    whose constant value the statements ``stmts`` before a single-case switch leave known -- p4c's
    LocalCopyPropagation has put it into the case already, so a copy out of the case reads the
    constant, not the local (fuzz_mutants seed 91: ``bit<8> v = 4; switch (x) { 5: { m = v + 1; } }
    v = 7; h.b = v;`` -- m reads 5 on every packet, the live store to v ends nothing)."""
    known: dict = {}
    for st in stmts:
        k = st.get("s")
        dest, val = (st["n"], st.get("init")) if k == "decl" else \
            (st["l"].get("n"), st["r"]) if k == "assign" and st["l"].get("op") == "var" else (None, None)
        for p in [p for p in known if p == dest or may_write(st, p)]:
            del known[p]
        if dest in decls and isinstance(val, dict) and val.get("op") == "const":
            known[dest] = val
    return known


def passes_subcontrol(call: dict, body: list | None, paths: list, returns_end: bool = True,
                      exits_end: bool = True) -> bool:
    """Whether sub-control apply ``call``, its body inlined as ``body`` (None: not seen), writes
    none of ``paths``: its body neither (nor exits where ``exits_end``, nor returns where
    ``returns_end``; a single-case switch's copy goes on past a return, RemoveReturns' flag:
    fuzz_mutants seed 2285, probed; a header-union member's copy past both, helper opens2), nor a
    copy-back into an argument p4c does not use in place."""
    if body is None or any(exits_end and d.get("s") == "exit" or returns_end and d.get("s") == "return"
                           for d in ir_dicts(body)):
        return False
    for a in call["args"]:
        if a["dir"] in ("out", "inout") and not (a["dir"] == "inout" and (a["e"].get("t") or [None])[0] == "struct"
                                                 and a["e"].get("op") == "var" and not a.get("siblings")):
            ap = ir_path(a["e"])
            if ap is None or any(overlap(ap, p) for p in paths):
                return False
    return not any(may_write(x, p) for x in body for p in paths)


def _carry(stmts: list, copies: dict, expand=None, after: tuple = (), decls=frozenset()) -> list:
    """``stmts`` with each read of a path of ``copies`` replaced by its value up to a statement
    that may write the path or what the value reads (an assignment's right-hand side still gets
    it); plain blocks, the branches of an ``if`` (its condition first; what neither branch writes
    goes on after it: p4c's join keeps a copy both sides hold) and sub-control applies that write
    neither (``expand``, :func:`propagate_copies`) are walked through.  ``copies`` is left holding
    those that reach the end.  A store to a local of ``decls`` (declared in the statement list
    walked from the switch on) that nothing reads later -- in ``stmts`` or the statement lists
    ``after`` them -- is gone: p4c's front-end SimplifyDefUse removed it before the copies
    existed, so it ends none of them (:func:`_dead_local_store`)."""
    out = []
    for i, st in enumerate(stmts):
        if not copies:
            out.append(st)
            continue
        k = st.get("s")
        rest = (stmts[i + 1:],) + after
        if k == "block" and not st.get("copies"):
            body = _carry(st["body"], copies, expand, rest, decls)
            out.append(st if same_objects(body, st["body"]) else dict(st, body=body))
            continue
        if (split := split_stack_read(st, copies)) is not None:   # (`h_t[3] m = hdr.s;`: by element)
            out.extend(_carry(split, copies, expand, rest, decls))
            continue
        if (split := split_call_args(st, copies)) is not None:   # (`f(hdr.s)`: the inliner's copy, by element)
            out.extend(_carry(split, copies, expand, rest, decls))
            continue
        if k in ("switch_value", "switch_action") and not any(may_write(st.get("e"), p) for p in copies) and \
                not any(d.get("s") in ("exit", "return") for d in ir_dicts(st["cases"])) and \
                (k == "switch_value" or expand is not None):
            if k == "switch_action":   # (the table's actions first, as for an apply: below)
                cases = {"s": "switch_value", "e": {"op": "const", "v": 0, "t": ["bit", 8]}, "cases": st["cases"]}
                _past_call(copies, expand({"s": "apply", "table": st["table"]}, ([cases],) + rest))
            out.append(_carry_cases(st, copies, expand, rest, decls))
            continue
        if k == "if" and not any(may_write(st["c"], p) for p in copies):
            for path in [p for p, w in copies.items() if w.get("op") == "whole" and
                         whole_uses(st["c"], (p, ir_path(w["v"])))]:
                del copies[path]   # (a use in the condition ends it; the arms read it: below)
        for path, w in [(p, v) for p, v in copies.items() if v.get("op") == "whole"]:
            if k == "if" and not any(may_write(st["c"], p) for p in copies):
                break
            if k in ("call_action", "apply", "apply_control") and expand is not None:
                break   # (below: what the call may write ends them)
            st, ends = whole_step(st, path, w)
            if ends:
                del copies[path]
        if k == "assign" and _dead_local_store(st, decls, rest) and \
                any(overlap(r, ir_path(st["l"])) for v in copies.values() for r in path_reads(v)):
            continue   # (p4c: `v = 7;` with no later read of v is not there)
        if k == "if" and not any(may_write(st["c"], p) for p in copies):
            c = _put_all(st["c"], copies)
            ends = []
            arms = {}
            for arm in ("then", "else"):
                mine = dict(copies)
                arms[arm] = _carry(st[arm], mine, expand, rest, decls) if st.get(arm) else st.get(arm)
                ends.append(mine)
            for p in list(copies):
                if not all(p in e for e in ends):
                    del copies[p]
            new = dict(st, c=c, **arms)
            out.append(st if c is st["c"] and all(same_objects(arms[a] or [], st.get(a) or []) for a in arms) else new)
            continue
        if k in ("call_action", "apply") and expand is not None:
            # (a copy goes on past it when the body and its copy-backs write neither it nor what
            # its value reads -- fuzz_exprs seed 14908, `b0(hdr.inh.i2, hdr.outh.o7);` between the
            # switch and a read; a body or argument that reads it reads the field itself: p4c
            # leaves a direct call a call; a table's actions likewise, its keys not reading it --
            # measured by helper fuzz32, whole-header copies too; a key reads the field itself)
            # (an action only this apply uses loses the stores p4c's def-use finds dead after it:
            # helper opens2, dead_reads.drop_dead_action_stores)
            _past_call(copies, expand(st, rest) if k == "apply" else expand(st))
            out.append(st)
            continue
        if k == "apply_control" and expand is not None:
            body = expand(st)   # (the body's reads get them up to its own writes; after it, unwritten)
            if body is not None:
                st = dict(st, args=[dict(a, e=_put_all(a["e"], copies)) if a["dir"] == "in" else a
                                    for a in st["args"]],
                          copies_in=dict(st.get("copies_in") or {}, **copies))
            for path, val in list(copies.items()):
                if not passes_subcontrol(st, body, [path, *path_reads(val)], returns_end=False):
                    del copies[path]
            if body is not None:   # (a whole-header copy: ended by a use in the body as inline --
                mine = {p: v for p, v in copies.items() if v.get("op") == "whole"}   # fuzz_mutants seed 2240)
                _carry(body, mine, expand, (), decls)
                for path in [p for p, v in copies.items() if v.get("op") == "whole" and p not in mine]:
                    del copies[path]
            out.append(st)
            continue
        for path, val in list(copies.items()):
            if val.get("op") == "whole":
                continue
            if may_write(st, path) or any(may_write(st, r) for r in path_reads(val)):
                out.extend(_copy_in(st, path, val, copies))
                if st.get("s") == "assign" and _names(st["r"], path) and not _init_kills(st, path, val):
                    st = dict(st, r=put_path(st["r"], path, val))
                del copies[path]
            elif _names(st, path):   # (others stay the same objects: settled marks keep their ids)
                st = put_path(st, path, val)
        out.append(st)
    return out


def _copy_in(st: dict, path: str, val: dict, copies: dict) -> list:
    """A function called by statement ``st`` or inside its value with ``path`` as an ``inout`` argument:
    p4c has inlined it, its copy-in reads the copy, the copy-back writes the path -- here the
    path is given the copy's value first (``[path = val]``; fuzz_exprs seed 18175; a slice of it
    given as the argument gets the copy's bits, seed 20114).  Under a ``?:``
    arm or the right operand of ``&&``/``||`` (SideEffectOrdering's ``if`` around the inlined call)
    only where that operand runs: ``[if (guard) { path = val; }]``, the guard read with ``copies``
    put in (:func:`.call_copies.call_guard`; helper mutz40: ``switch (h.a) { 7: { m = 3; } } h.d =
    (h.b == 0) ? (bit<32>)tk(m) : 9;`` writes 4 where h.b is 0 on BMv2); nothing where the guard
    calls a function or another call may write what it reads."""
    lv, guards = None, []
    for d in ir_dicts(st):
        args = [a["e"] for a in d.get("args") or () if (d.get("op") == "call_fn_out" or d.get("s") == "call_fn")
                and a.get("dir") == "inout" and _sliced_path(a["e"]) == path]
        if args:
            lv = args[0]
            guards.append(call_guard(st, d))
    if lv is None or None in guards:
        return []
    # (a slice of the path, `tick(h.e1[25:24])`: its bits get the copy's, helper fuzz42, fuzz_exprs seed 20114)
    put = (lambda e: dict(e, a=put(e["a"])) if e.get("op") == "slice" else dict(val))  # noqa: E731
    store = {"s": "assign", "l": dict(lv), "r": put(lv)}
    if True in guards:
        return [store]
    guard = guards[0]
    for g in guards[1:]:   # (`c ? tk(m) : tk(m) + 1`: either arm)
        guard = {"op": "bin", "o": "||", "a": guard, "b": g, "t": ["bool"]}
    return [{"s": "if", "c": _put_all(guard, copies), "then": [store], "else": []}]


def _sliced_path(e: dict):
    """The path ``e`` names, or the one a (nested) constant slice ``e`` is part of; None otherwise."""
    while e.get("op") == "slice":
        e = e["a"]
    return ir_path(e) if e.get("op") in _PATH_OPS else None


def _past_call(copies: dict, body: list | None) -> None:
    """Ends the copies that an action call or table apply, p4c's view of it ``body`` (None: not
    seen), may write -- the path or what its value reads -- or that it may exit past."""
    for path, val in list(copies.items()):
        if body is None or any(d.get("s") in ("exit", "return") for d in ir_dicts(body)) or \
                any(may_write(x, q) for x in body for q in [path, *path_reads(val)]):
            del copies[path]


def _carry_cases(st: dict, copies: dict, expand, rest: tuple, decls) -> dict:
    """A later ``switch`` on a value (``st``) as p4c's walk sees it: the key reads the copies, each
    case starts from them (a whole-header copy reaches a case's reads: fuzz_headers seed 8764's
    two single-case switches), and what every case leaves goes on after it -- a single case's
    state is the state after it; a ``switch`` on a table's ``action_run`` likewise, after the
    table's actions.  Its own copies (``copies`` mark) get what reaches its case's end."""
    e = {"e": _put_all(st["e"], copies)} if "e" in st else {}
    ends, cases, entry = [], [], dict(copies)
    for c in st["cases"]:
        mine = dict(copies)
        cases.append(dict(c, body=_carry(c["body"], mine, expand, rest, decls)))
        ends.append(mine)
    for p in [p for p in copies if not all(p in x for x in ends)]:
        del copies[p]
    if st.get("copies"):   # (one that now reads its own path is no copy for p4c: drop_self_reading_copies)
        chained = {p: _chained(p, v, st["cases"][0]["body"], entry) for p, v in st["copies"].items()}
        return dict(st, **e, cases=cases, copies={p: v for p, v in chained.items()
                                                  if not any(overlap(r, p) for r in path_reads(v))})
    if e.get("e") is st.get("e") and all(same_objects(a["body"], b["body"]) for a, b in zip(cases, st["cases"])):
        return st
    return dict(st, **e, cases=cases)


def _chained(path: str, v: dict, body: list, entry: dict) -> dict:
    """Copy value ``v`` of ``path`` that single-case ``body`` leaves, with the copies ``entry``
    held at the body's start put in -- those still held at the statement that last assigns
    ``path`` there (its own right-hand side still gets them)."""
    flat = _straight(body, lambda x: None, [])
    last = [i for i, x in enumerate(flat) if (x.get("s") == "assign" and ir_path(x["l"]) == path)
            or (x.get("s") == "decl" and x.get("n") == path)]
    if not last:
        return v
    copies = dict(entry)
    for x in flat[:last[-1]]:
        for q in [q for q, w in copies.items() if may_write(x, q) or any(may_write(x, r) for r in path_reads(w))]:
            del copies[q]
    if v.get("op") != "whole":
        return _put_all(v, copies)
    src = copies.get(ir_path(v["v"]) or "")
    return dict(v, v=src["v"]) if src is not None and src.get("op") == "whole" else v


def _dead_local_store(st: dict, decls, rest: tuple) -> bool:
    """Whether assignment ``st`` stores into a local of ``decls`` (a whole variable, a value with
    no call; a scalar member of a struct local, helper fuzz40) that no statement of the lists ``rest``
    reads: p4c's front end drops such a store
    as dead (measured: ``switch (x) { 5: { m = v + 1; } } v = 7; h.d = m;`` writes the old
    ``v + 1``; with a read of v after the store, it ends the copy)."""
    lv = root = st["l"]
    while root.get("op") == "field" and (root["base"].get("t") or [None])[0] == "struct":
        root = root["base"]
    if root.get("op") != "var" or root["n"] not in decls or has_method_call(st["r"]):
        return False
    if root is not lv:   # (a scalar member of a struct local: nothing later reads it or the whole local)
        path = ir_path(lv)
        return (lv.get("t") or [None])[0] in ("bit", "int", "bool") and not any(
            overlap(r, path) for x in ir_dicts(list(rest)) if x.get("s") for r in
            (path_reads(x["r"]) + path_reads(x["l"])[1:] if x["s"] == "assign" else
             [] if x["s"] == "setvalid" else path_reads(x)))
    # (a later store of the whole variable is no read: `v = 7 / 3; v = 7;` are both dead, seed 19)
    stores = {id(d["l"]) for d in ir_dicts(list(rest)) if d.get("s") == "assign" and d["l"].get("op") == "var"}
    return not any(d.get("op") == "var" and d.get("n") == lv["n"] and id(d) not in stores for d in ir_dicts(list(rest)))


def _init_kills(st: dict, path: str, val: dict) -> bool:
    """Whether assignment ``st`` is a header initializer (``hdr.h = {1, 2, meta.m16, 4};``) that ends the copy
    ``path`` <- ``val`` before its own value is read: p4c writes it as ``hdr.h.setValid();`` then one store
    per field, and the ``setValid()`` ends every copy of or reading the header (measured by helper opens:
    ``meta.m16`` of a later single-case switch reading ``hdr.h.c`` is read as it is there)."""
    lp = ir_path(st["l"])
    return st["r"].get("op") == "mk" and (st["l"].get("t") or [None])[0] == "header" and lp is not None and \
        any(overlap(p, lp) for p in [path, *path_reads(val)])


def _put_all(x, copies: dict):
    for path, val in ((p, v) for p, v in copies.items() if v.get("op") != "whole"):
        x = put_path(x, path, val) if _names(x, path) else x
    return x


def _names(x, path: str) -> bool:
    return any(d.get("op") in ("var", "field", "stack_idx") and ir_path(d) == path for d in ir_dicts(x))


def drop_self_reading_copies(stmts: list, expand) -> None:
    """p4c propagates within the case the values available before the switch too, and records no
    copy whose value then reads its own destination (``meta.m8 = hdr.h.b + 1; switch (x) { 5: {
    hdr.h.b = meta.m8 + 5; } }`` leaves later reads of ``hdr.h.b`` alone: fuzz_exprs seed 7116,
    where the assignment to ``meta.m8`` was in a sub-control body applied before).  Removes such
    copies from the switches in ``stmts``, finding the value available before each one as the
    last straight-line assignment to what the copy reads in the statements before it (plain
    blocks and sub-control bodies looked into through ``expand``: an ``apply_control`` -> its
    body with the arguments in place, or None), nothing in between writing what that value reads."""
    for i, st in enumerate(stmts):
        copies = st.get("copies") if st.get("s") in ("switch_value", "apply_control") else None
        # (a sub-control apply's copies -- subcontrol_copies.end_copies_after -- read the temporaries
        # p4c's SideEffectOrdering copies an `in` argument into; its copy propagation reads the
        # argument there: `o = i + 1` with `s.apply(.., hdr.h.a, hdr.h.a)` reads `hdr.h.a` itself,
        # with `meta.m8 = hdr.h.a; s.apply(.., meta.m8, meta.m8)` `hdr.h.a` -- lead s58 probes)
        origins = st.pop("copy_origins", None) or {}
        for path in list(copies or ()):
            for r in path_reads(copies[path]):
                for q in path_reads(origins[r]) if r in origins else [r]:
                    v = _last_value(stmts[:i], q, expand, 0)
                    if v is None and r in origins:
                        v = {"op": "var", "n": q} if overlap(q, path) else None
                    if v is not None and any(overlap(x, path) for x in path_reads(v)):
                        del copies[path]
                        break
                else:
                    continue
                break
        if copies is not None and not copies:
            del st["copies"]


def _last_value(stmts: list, r: str, expand, depth: int, chain: int = 0):
    """The value the last assignment in ``stmts`` gives ``r`` when p4c's copy propagation still
    has it at their end (straight-line; see :func:`drop_self_reading_copies`), else None; what
    that value reads is put in as it stood there (``meta.m16 = (bit<16>)hdr.h.a; meta.m8 =
    (bit<8>)meta.m16;`` gives ``meta.m8`` the value ``(bit<8>)(bit<16>)hdr.h.a``: p4c propagates
    the chain, lead59)."""
    for k in range(len(stmts) - 1, -1, -1):
        st = stmts[k]
        inner = st["body"] if st.get("s") == "block" else expand(st) if st.get("s") == "apply_control" else None
        if inner is not None:
            if not any(may_write(x, r) for x in inner):
                continue
            v = _last_value(inner, r, expand, depth + 1) if depth < 3 else None
        elif st.get("s") == "decl" and st.get("n") == r:   # (`bit<8> m = hdr.h.b + 1;`)
            v = st.get("init")
            if v is None or has_method_call(v) or r in path_reads(v):
                return None
        elif not may_write(st, r):
            continue
        elif st.get("s") == "assign" and ir_path(st["l"]) == r and st["l"].get("op") != "slice" \
                and not has_method_call(st["r"]) and r not in path_reads(st["r"]):
            v = st["r"]
        else:
            return None
        if v is None or any(may_write(x, d) for x in stmts[k + 1:] for d in path_reads(v)):
            return None
        for d in path_reads(v) if chain < 4 else ():
            w = _last_value(stmts[:k], d, expand, depth, chain + 1)
            if w is not None and not any(may_write(x, e) for x in stmts[k:] for e in path_reads(w)):
                v = put_path(v, d, w)
        return v
    return None
