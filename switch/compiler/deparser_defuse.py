"""What of a V1Switch deparser's body is left when p4c's BMv2 back end looks at it.

p4c's deparser converter takes ``emit`` and a few extern functions (``log_msg``, ``assert``,
``digest``, ``truncate`` ...) and refuses any other statement ("x: not supported within a
deparser on this target"), but only after the mid-end has rewritten the body: its local copy
propagation replaces each read of a local scalar (or of a field of a local struct) by the value
assigned to it and removes the assignment, and its def-use passes remove what nothing reads,
including a ``register.read`` (``@noSideEffects`` in v1model.p4) whose result is dead.  Measured by
helper errs27 (/work/errs27 probes a_dr_*, b_db_*, d_dd_*):

* an assignment to a local scalar or struct field (whole or a slice) is never refused; a
  ``?:`` in its value is refused (p4c's IfStatement) only where the value is used;
* ``r.read(v, i)`` into such a local is refused only where ``v``'s value is used by a statement
  that stays (``log_msg(.., {v})``, ``assert(v == 1)``, ``truncate``, the index of another read
  that stays, ...): a later overwrite (``v = 1;``) kills it, a slice store (``v[3:0] = 1``) does not;
* a call of a function whose ``out`` arguments are all such dead locals goes too (p4c inlines it).

:func:`dead_nodes` walks the straight-line body backwards (plain blocks and ``if``s p4c folds
flattened; an ``if`` with empty branches is gone, any other statement reads all it names) and
returns the ids of the AST nodes p4c removes; checks._Checker._deparser skips them.  A local
header is not propagated: one that is written (a field, ``setValid``, an ``out`` argument) is
refused at its declaration, as p4c names the ``t.setInvalid()`` (or ``t = init``) it writes there
(:func:`written_header_locals`).

The same def-use rule decides a ``register.read`` in a parser state, where p4c's back end refuses
every extern method ("r.read: not supported in parser on this target") but a dead read is gone
before it looks (errs62 probes /work/errs62/progs/r): :func:`parser_read_dead`.
"""
from __future__ import annotations

from .ast import Node
from .checks_walk import _nodes   # (its dict case: only tables hold dicts, no body holds one)

__all__ = ["dead_nodes", "empty_stmt", "parser_read_dead", "written_header_locals"]


def _all(v):
    for n in _nodes(v):
        yield n
        for c in n._attrs.values():
            yield from _all(c)


def empty_stmt(n) -> bool:
    """An empty block or statement, or an ``if`` whose branches are such (p4c removes it)."""
    if not isinstance(n, Node):
        return n is None
    if n.kind == "empty":
        return True
    if n.kind == "block":
        return all(empty_stmt(x) for x in n.stmts)
    return n.kind == "if" and empty_stmt(n.then) and empty_stmt(n.get("els"))


def flat(stmts):
    """The statements of a body in order, plain blocks and folded/empty ``if``s flattened."""
    for st in _nodes(stmts):
        kept = st.get("p4c_folded") if st.kind == "if" else None
        if kept is not None:
            yield from flat(st.get(kept))
        elif st.kind == "block":
            yield from flat(st.stmts)
        elif not (st.kind == "if" and empty_stmt(st)):
            yield st


def path(e) -> str | None:
    """``v`` / ``v.f.g`` of a name and member chain (None for anything else)."""
    parts = []
    while isinstance(e, Node) and e.kind == "member":
        parts.append(e.name)
        e = e.base
    if isinstance(e, Node) and e.kind == "name":
        return ".".join([e.name] + parts[::-1])
    return None


def _reads(v, out: set) -> set:
    for n in _nodes(v):
        p = path(n)
        if p is not None:
            out.add(p)
            continue
        for c in n._attrs.values():
            _reads(c, out)
    return out


def _overlaps(p: str, live: set) -> bool:
    return any(q == p or q.startswith(p + ".") or p.startswith(q + ".") for q in live)


def _kill(p: str, live: set) -> None:
    live.difference_update({q for q in live if q == p or q.startswith(p + ".")})


def _root(p: str | None) -> str | None:
    return p.split(".")[0] if p else None


def dead_nodes(body, scalars: set, functions: dict, is_register_read) -> set:
    """Ids of the nodes of ``body`` p4c's mid-end removes: stores into the locals ``scalars``
    (names of local scalars and structs) nothing that stays reads, register reads into them
    (``is_register_read(call)``), and calls of ``functions`` (name -> declaration) whose
    ``out``/``inout`` arguments are all such."""
    live: set = set()
    dead: list = []
    for st in reversed(list(flat(body))):
        if st.kind == "var" and st.name in scalars:
            if st.get("init") is not None and not _overlaps(st.name, live):
                dead.append(st)
                continue
            _kill(st.name, live)
            _reads(st.get("init"), live)
        elif st.kind == "assign":
            whole = st.lhs.kind != "slice"
            p = path(st.lhs if whole else st.lhs.a)
            if _root(p) not in scalars:
                _reads([st.lhs, st.rhs], live)
            elif not _overlaps(p, live):
                dead.append(st)
            else:
                if whole:
                    _kill(p, live)
                _reads(st.rhs, live)
        elif st.kind == "call_stmt" and is_register_read(st.call) and _root(path(st.call.args[0])) in scalars:
            p = path(st.call.args[0])
            if not _overlaps(p, live):
                dead.append(st)
                continue
            _kill(p, live)
            _reads(st.call.args[1:], live)
        elif st.kind == "call_stmt" and _outs(st.call, functions) is not None:
            outs = _outs(st.call, functions)
            if outs and all(_root(p) in scalars for p, _ in outs) and not any(_overlaps(p, live) for p, _ in outs):
                dead.append(st)
                continue
            for p, d in outs:
                if d == "out":
                    _kill(p, live)
            _reads(st.call.args, live)
        else:
            _reads(st, live)
    return {id(n) for n in _all(dead)}


def _outs(call: Node, functions: dict):
    """``[(path, direction)]`` of the out/inout arguments of a call of a function in
    ``functions`` (None: no such function; a non-path argument there makes it stay)."""
    fn = call.get("fn")
    f = functions.get(fn.name) if isinstance(fn, Node) and fn.kind == "name" else None
    if f is None:
        return None
    outs = []
    for prm, arg in zip(f.get("params") or (), call.get("args") or ()):
        if prm.get("direction") in ("out", "inout"):
            p = path(arg)
            if p is None:
                return []
            outs.append((p, prm.direction))
    return outs


def written_header_locals(body, headers: set) -> dict:
    """``{name: declaration}`` of the local headers (``headers``: their names) that ``body``
    writes -- a field store, ``setValid``/``setInvalid``, any call argument naming a field of it
    (an ``out`` argument) -- or reads: at all when declared without a value (p4c's ``setInvalid``),
    a field of it when declared with one (``pkt.emit(t)`` of ``h_t t = hdr.h;`` is propagated)."""
    out = {}
    stmts = list(flat(body))
    for st in stmts:
        if st.kind == "var" and st.name in headers:
            rest = [x for x in stmts if x is not st]
            written = any(_writes(x, st.name) for x in rest)
            reads = {p for x in rest for p in _reads(x, set())}
            used = any(_root(p) == st.name and (st.get("init") is None or p != st.name) for p in reads)
            if written or used:
                out[st.name] = st
    return out


def _writes(st: Node, name: str) -> bool:
    if st.kind == "assign":
        return _root(path(st.lhs if st.lhs.kind != "slice" else st.lhs.a)) == name
    if st.kind == "call_stmt":
        fn = st.call.get("fn")
        if isinstance(fn, Node) and fn.kind == "member" and fn.name in ("setValid", "setInvalid") \
                and path(fn.base) == name:
            return True
        return any(_root(path(a)) == name and path(a) != name for a in st.call.get("args") or ())
    return False


def _chain(stmts, call, out):
    """``out`` filled with the (statements, index) levels from ``stmts`` down to the statement
    that is ``call`` (blocks and ``if`` branches entered); True when found."""
    for i, st in enumerate(stmts):
        if st.kind == "call_stmt" and st.call is call:
            out.append((stmts, i))
            return True
        for sub in ([st.then, st.get("els")] if st.kind == "if" else [st] if st.kind == "block" else []):
            inner = list(flat(sub)) if sub is not None else []
            if inner and _chain(inner, call, out):
                out.append((stmts, i))
                return True
    return False


def parser_read_dead(call: Node, state: Node, states, parser_locals: set) -> bool:
    """Whether p4c's mid-end removes ``call``, a ``register.read`` statement of parser state
    ``state``: its result is ``_``, or is overwritten whole after it (an assignment, or a call
    given it or a header holding it -- ``pkt.extract(hdr.h)``, a function's out argument -- in the
    branch or the state) before anything reads it, or is a local of the state or of the parser
    (``parser_locals``) that nothing after the call in the state, its transition or another state
    reads.  A result in an ``out``/``inout`` parameter (headers, metadata) is read after the
    parser: kept (and refused) unless overwritten."""
    res = call.args[0] if call.get("args") else None
    if isinstance(res, Node) and res.kind == "dontcare":
        return True
    p = path(res.a if isinstance(res, Node) and res.kind == "slice" else res)
    levels: list = []
    if p is None or not _chain(list(flat(state.stmts)), call, levels):
        return False
    for stmts, at in levels:   # (innermost first)
        for st in stmts[at + 1:]:
            whole = st.kind == "assign" and st.lhs.kind != "slice" and path(st.lhs) is not None
            covered = [path(st.lhs)] if whole else [path(a) for a in st.call.get("args") or ()] \
                if st.kind == "call_stmt" else []
            if any(q is not None and (q == p or p.startswith(q + ".")) for q in covered):
                return True   # (a call given it is taken as writing it: p4c's side of the doubt)
            if _overlaps(p, _reads(st.rhs if whole else st, set())):
                return False
    if _overlaps(p, _reads(state.transition, set())):
        return False
    stmts, at = levels[-1]
    root = _root(p)
    if any(st.kind == "var" and st.name == root for lv, i in levels for st in lv[:i]):
        return True
    return root in parser_locals and not any(
        _overlaps(root, _reads(s, set())) for s in states if s is not state)
