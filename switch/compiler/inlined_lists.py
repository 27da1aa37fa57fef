"""A list of constants in a body p4c's front end inlines at two places: p4c 1.2.4.8 dies.

p4c's front end inlines every function call and every applied sub-control or sub-parser before its
def-use pass; a list expression whose elements are all compile-time constants (``{ }``, ``{ 8w1 }``,
``{ K }``) -- an extern call's argument (``hash``'s base, data or max, ``digest``'s and
``log_msg``'s data) or a tuple's initializer -- is then one node at each place, and the pass stops
with "Compiler Bug: ... Expression {}; write set already set" (p4c_mutate seed 134, mutz23's open
item; probed, helper mutz24).  A list holding a run-time value (``{ x }``, ``{ x, 8w1 }``), one that
becomes a struct or header (an assignment to one, a comparison with one) and one in an action's
body (actions are inlined later, in the midend) are fine, as is a body inlined once, and a tuple
local that nothing names after its declaration (p4c removes the unused declaration before it
inlines; fuzz_exprs 6918, 6919: ``tuple<bit<6>> tp = {6w0};`` in a function called twice; also one
only a store to a local nothing reads names, fuzz_exprs 12502: :func:`_read_names`), nor one in
the branch of an ``if`` whose literal condition p4c's front end folds away first (fuzz_exprs 8298:
``if (true) { .. } else { tuple<bit<2>> tp = {2w3}; l[4:3] = tp[0]; }``), nor in a case a constant
``switch`` does not select (its front end drops those first too; a switch on a serializable enum
cast from a constant selects its ``default`` only: fuzz_exprs 8697).

:func:`check_inlined_constant_lists` counts, on the parsed program and for each top-level block of
``main`` on its own (p4c's pass looks at one at a time: a function called once in ingress and once
in egress is fine), how many copies p4c makes there of each control, parser and function body --
the block itself is one; a sub-block, the sum over the blocks that declare an instance of it of
their copies times the applies of the instance there; a function, the sum over its call sites of
the copies of the body that calls it -- and refuses such a list in a body of two or more copies,
named at the list as p4c names it.  The pass takes the block's copied bodies (actions left out) as
one unit and each action as one, an action it calls (further down too) copied into it once per
call; a function's or an action's copies are the most of any unit (probed, helper fuzz33: a
function called once in the apply body and once in an action compiles, fuzz_exprs seed 16465;
twice in one action, in an action and in one it calls, or a list in an action another calls
twice, dies).  It runs after elaboration (p4c's
type errors come first).
"""
from __future__ import annotations

from .ast import Node, walk
from .elab_common import E

#: v1model extern functions and methods whose arguments may be lists (p4c keeps those as lists)
_LIST_CALLS = {"hash", "digest", "log_msg", "verify_checksum", "update_checksum",
               "verify_checksum_with_payload", "update_checksum_with_payload"}


def _nodes(v, skip_actions: bool = False):
    if isinstance(v, Node):
        if skip_actions and v.kind == "action":
            return
        yield v
        if v.kind == "switch" and v.get("p4c_kept_case") is not None:   # (a constant switch: elab_statements)
            k = v.get("p4c_kept_case")
            yield from _nodes([v.expr] + ([v.cases[k]] if k >= 0 else []), skip_actions)
            return
        kept = v.get("p4c_folded") if v.kind == "if" else None   # (elab_common.mark_folded)
        for k, x in v._attrs.items():
            if kept is None or k not in ("then", "els") or k == kept:
                yield from _nodes(x, skip_actions)
    elif isinstance(v, (list, tuple)):
        for x in v:
            yield from _nodes(x, skip_actions)


def _callee(n: Node) -> str | None:
    fn = n.get("fn")
    if isinstance(fn, Node) and fn.kind == "name":
        return fn.name
    if isinstance(fn, Node) and fn.kind == "member":
        return fn.name
    return None


def _constant(n, consts: set) -> bool:
    """An element p4c folds to a constant: literals, top-level constants, casts and operators of those."""
    if not isinstance(n, Node):
        return False
    if n.kind in ("int", "bool_lit"):
        return True
    if n.kind == "name":
        return n.name in consts
    if n.kind == "cast":
        return _constant(n.a, consts)
    if n.kind == "unary":
        return _constant(n.a, consts)
    if n.kind == "binary":
        return _constant(n.a, consts) and _constant(n.b, consts)
    if n.kind == "list":
        return all(_constant(x, consts) for x in n.items)
    return False


def _bodies(d: Node) -> list:
    """The parts of block or function ``d`` that p4c copies when it inlines it (not its actions)."""
    if d.kind == "control":
        return [x for x in d.locals if x.kind != "action"] + [d.body]
    if d.kind == "parser":
        return list(d.locals) + list(d.states)
    return [d.body]


def check_inlined_constant_lists(decls: list) -> None:
    blocks = {d.name: d for d in decls if isinstance(d, Node) and d.kind in ("control", "parser") and not d.get("tparams")}
    funcs: dict = {}
    for d in decls:
        if isinstance(d, Node) and d.kind == "function" and not d.get("tparams"):
            funcs.setdefault(d.name, []).append(d)
    consts = {d.name for d in decls if isinstance(d, Node) and d.kind == "const"}
    top_actions = [d for d in decls if isinstance(d, Node) and d.kind == "action"]
    main = next((d for d in decls if isinstance(d, Node) and d.kind == "instance" and d.name == "main"), None)
    if main is None:
        return
    roots = []
    for a in main.args:
        a = a.value if a.kind == "named_arg" else a
        name = _callee(a) if a.kind == "call" else None
        if name in blocks:
            roots.append(name)
    for root in dict.fromkeys(roots):   # (p4c's def-use pass looks at one top-level block at a time)
        _check_root(root, blocks, funcs, consts, top_actions)


def _read_names(owner: Node) -> set:
    """The names ``owner`` uses, less those only stores to locals nothing reads use (and such a
    local's own name): p4c's front-end def-use removes those stores, and then the declarations
    nothing names, before it inlines (fuzz_exprs seed 12502: ``tuple<..> tp = {..}; l1 = tp[0];``
    with ``l1`` never read, in a function inlined seven times, is no crash), and less those only
    stores a later assignment overwrites before a read use (:func:`_overwritten_stores`)."""
    nodes = list(_nodes(owner))
    mine = {x.name for x in nodes if x.kind == "var"}
    dead: set = set()
    overwritten = _overwritten_stores(nodes)
    while True:
        skip = {id(y) for x in overwritten for y in _nodes(x.rhs)}
        for x in nodes:
            if x.kind == "assign" and isinstance(x.lhs, Node) and x.lhs.kind == "name" and x.lhs.name in mine:
                skip.add(id(x.lhs))
                if x.lhs.name in dead:
                    skip |= {id(y) for y in _nodes(x.rhs)}
            elif x.kind == "var" and x.name in dead and x.init is not None:
                skip |= {id(y) for y in _nodes(x.init)}
        used = {x.name for x in nodes if x.kind == "name" and id(x) not in skip}
        now = mine - used
        if now == dead:
            return used
        dead = now


def _overwritten_stores(nodes: list) -> list:
    """The assignments among ``nodes`` that a later assignment of the same statement list overwrites
    (all of it: the same path, one holding it, a slice holding its bits) before anything there names
    the path's root; only assignments and declarations without a call in between -- p4c's
    front-end def-use drops them before it inlines (fuzz_exprs seed 19998, helper fuzz42:
    ``tuple<bit<9>> tp1 = {..}; p1.e0[9:1] = tp1[0]; p1.e0 = ..;`` in a function inlined twice is
    no crash)."""
    out = []
    for blk in nodes:
        stmts = blk.stmts if blk.kind == "block" else []
        for i, st in enumerate(stmts):
            target = _store_path(st.lhs) if st.kind == "assign" else None
            if target is None or any(x.kind == "call" for x in _nodes(st.rhs)):
                continue
            for later in stmts[i + 1:]:
                if later.kind not in ("assign", "var") or any(x.kind == "call" for x in _nodes(later)):
                    break
                names = {x.name for x in _nodes(later.rhs if later.kind == "assign" else later.init) if x.kind == "name"}
                cover = _store_path(later.lhs) if later.kind == "assign" else None
                if target[0] not in names and cover is not None and _covers(cover, target):
                    out.append(st)
                    break
                if target[0] in names or later.kind == "assign" and target[0] in {
                        x.name for x in _nodes(later.lhs) if x.kind == "name"} or later.kind == "var" and later.name == target[0]:
                    break
    return out


def _store_path(e):
    """An assignment target as (root name, path text, bits (hi, lo) or None); None where it is not
    a path of names, members and constant indexes or a constant slice of one."""
    bits = None
    if e.kind == "slice":
        if e.hi.kind != "int" or e.lo.kind != "int":
            return None
        bits, e = (e.hi.value, e.lo.value), e.a
    parts = []
    while e.kind in ("member", "index"):
        if e.kind == "index" and e.index.kind != "int":
            return None
        parts.append(f".{e.name}" if e.kind == "member" else f"[{e.index.value}]")
        e = e.base
    return (e.name, e.name + "".join(reversed(parts)), bits) if e.kind == "name" else None


def _covers(cover: tuple, target: tuple) -> bool:
    if cover[2] is not None:   # (a slice: of the same field, holding every bit the target stores)
        return cover[1] == target[1] and target[2] is not None and cover[2][0] >= target[2][0] and cover[2][1] <= target[2][1]
    return target[1] == cover[1] or target[1].startswith((cover[1] + ".", cover[1] + "["))


def _function_copies(callers: list, funcs: dict) -> dict:
    """How many copies of each function p4c's front end makes in one unit, given its bodies as
    ``[(copies, parts)]``: each call in a copied part is one copy, each call in a copied function
    body as many as that function has (rounds until the counts settle)."""
    fcopies: dict = {}
    for _ in range(8):
        counted: dict = {}
        for n, parts in callers + [(fcopies.get(f, 0), [d.body for d in ds]) for f, ds in funcs.items()]:
            for x in _nodes(parts):
                if n and x.kind == "call" and isinstance(x.fn, Node) and x.fn.kind == "name" and x.fn.name in funcs:
                    counted[x.fn.name] = counted.get(x.fn.name, 0) + n
        if counted == fcopies:
            break
        fcopies = counted
    return fcopies


def _refs(v):
    """The names ``v`` refers to (names, calls, a table's action list and default action)."""
    return (n.name for n in walk(v) if n.kind in ("name", "action_ref"))


def _used_actions(parts: list, acts: dict) -> list:
    """The actions the blocks' copied parts name (a call, a table's list) and those these call: p4c
    removes the others before its def-use pass (an unused action calling one twice compiles)."""
    used = [a for a in dict.fromkeys(_refs(parts)) if a in acts]
    for a in used:
        used += [b for b in dict.fromkeys(_refs(acts[a].body)) if b in acts and b not in used]
    return used


def _action_copies(name: str, acts: dict) -> dict:
    """The action bodies in action ``name``'s unit and how many times each: its own once, and each
    action it calls (directly or further down) once per call."""
    out: dict = {}
    todo = [(name, 1, 0)]
    while todo:
        a, n, depth = todo.pop()
        out[a] = out.get(a, 0) + n
        if depth < 8:
            todo += [(x.fn.name, n, depth + 1) for x in _nodes(acts[a].body)
                     if x.kind == "call" and isinstance(x.fn, Node) and x.fn.kind == "name" and x.fn.name in acts]
    return out


def _check_root(root: str, blocks: dict, funcs: dict, consts: set, top_actions: list = ()) -> None:
    # sub-blocks: rounds until the counts settle (one per level of nesting)
    copies = {root: 1}
    for _ in range(8):
        new = {root: 1}
        for bname, n in copies.items():
            blk = blocks[bname]
            insts = {x.name: x.type.get("name") for x in blk.locals if x.kind == "instance"}
            for x in _nodes(_bodies(blk), skip_actions=True):
                if x.kind == "call" and isinstance(x.fn, Node) and x.fn.kind == "member" and x.fn.name == "apply" \
                        and x.fn.base.kind == "name" and insts.get(x.fn.base.name) in blocks:
                    sub = insts[x.fn.base.name]
                    new[sub] = new.get(sub, 0) + n
        if new == copies:
            break
        copies = new
    # functions: p4c's def-use pass looks at the copied bodies of the block as one unit and at each
    # action as one (an action it calls inlined there), so a function's copies are counted per unit
    # and the most of any unit counts (fuzz_exprs seed 16465: `f0` called once in the apply body and
    # once in an action -- called or not -- compiles; twice in one action, or in an action and in an
    # action it calls, dies; probed, helper fuzz33)
    acts = {x.name: x for b in copies for x in blocks[b].locals if x.kind == "action"}
    acts.update({d.name: d for d in top_actions if d.name not in acts})
    units = [[(n, _bodies(blocks[b])) for b, n in copies.items()]]
    acopies: dict = {}
    for name in _used_actions([_bodies(blocks[b]) for b in copies], acts):
        inl = _action_copies(name, acts)
        units.append([(k, [acts[a].body]) for a, k in inl.items()])
        for a, k in inl.items():
            acopies[a] = max(acopies.get(a, 0), k)
    fcopies: dict = {}
    for callers in units:
        for f, c in _function_copies(callers, funcs).items():
            fcopies[f] = max(fcopies.get(f, 0), c)
    for owners, n in [([blocks[b]], c) for b, c in copies.items()] + [(ds, c) for f, ds in funcs.items()
                                                                      if (c := fcopies.get(f, 0))] + \
            [([acts[a]], c) for a, c in acopies.items()]:
        if n < 2:
            continue
        for owner in owners:
            used = _read_names(owner)
            for x in _nodes(_bodies(owner), skip_actions=True):
                lists = []
                if x.kind == "call" and _callee(x) in _LIST_CALLS:
                    lists = [a.value if a.kind == "named_arg" else a for a in x.args]
                elif x.kind == "var" and isinstance(x.type, Node) and x.type.kind == "tuple" and x.init is not None \
                        and x.name in used:   # (p4c's front end removes a local nothing names first)
                    lists = [x.init]
                for lst in lists:
                    if isinstance(lst, Node) and lst.kind == "list" and _constant(lst, consts):
                        raise E(lst.loc, f"a list of constants in {owner.kind} {owner.name}, which p4c inlines at {n} "
                                         "places: p4c 1.2.4.8 dies on it ('Compiler Bug: ... write set already set')")
