"""Locals of the user metadata type that survive p4c's mid end (simple_switch refuses the JSON).

p4c 1.2.4.8 writes a local variable of the user metadata struct's type that its mid end keeps
with field names ``userMetadata.x`` in a header type whose fields are ``x``, and simple_switch
1.15.5 refuses the JSON ("No field 'userMetadata.x' can be found in header type 'meta_t'").  The
local is kept where, after LocalCopyPropagation, anything still names it.  Measured by helpers
errs28 and errs29 (/work/errs29 probes a_*, b_*, simple_switch on p4c's JSON), the pass is modelled
as a forward walk over the IR of a body, one value per leaf field of each such local:

* a field's value is known after an assignment (its right-hand side, whatever it computes: p4c
  has moved calls into temporaries and inlined functions, so a function's ``out`` argument is an
  assignment too) or a declaration with an initializer (a copy ``= m``, ``{1, 2}``) and stays
  known until something writes a path the value reads (``s.x = hdr.h.a; hdr.h.a = 5;``: a table
  apply or an action call kills what its actions write);
* unknown before any write, after an extern's write (``r.read(s.x, 0)``, ``hash``, ``random``),
  after a slice store, and after an ``if``/``switch`` whose arm wrote it -- LocalCopyPropagation
  merges no values, not even equal ones (``if (c) { s.x = 1; } else { s.x = 1; }``); in an action
  p4c's Predication makes an arm's store ``s.x = c ? 1 : s.x``, which reads the old value;
* a read of an unknown field keeps the local (a condition, a table key -- p4c never propagates
  into a key --, ``log_msg``, a copy ``m = s`` reading every field), and so does an extern's write
  other than ``register.read`` (which p4c removes when nothing reads it: @noSideEffects);
* a called function's body is walked as p4c inlines it (its locals fresh at each call, a ``return``'s
  value read: ``return r;`` with ``r.y`` unset keeps ``r``; helper errs30);
* not a read p4c removes: after an ``exit``/``return`` (dead), in the value of a store nothing reads
  (``meta_t t2 = s;``: the read counts once the stored value is read), ``s.x = s.x;``; a ``switch``
  with a ``default`` alone, or on a table whose one action is also its default, runs that case;
* a whole local given to an extern (``log_msg("{}", {s})``: p4c keeps the struct) keeps it;
* an action reads a control-level local as unknown (p4c does not propagate into actions), and its
  refusal is kept like any in an action: only where the action is used.  Parser states are walked
  as p4c's SimplifyParsers collapses them: a state with one predecessor, which goes to it
  unconditionally, continues that predecessor's walk.

BMv2 names the first field of the local its loader meets: the deparser's and the actions' statements
come before conditions and keys (:func:`surviving_reference` names the first statement's field,
else the first condition's)."""
from __future__ import annotations

from .copy_paths import ir_path, may_write, overlap, path_reads
from .elab_common import ir_dicts

_REMOVABLE = ("reg_read",)   # extern writes p4c removes when nothing reads them (@noSideEffects)


class _Val:
    """A known value of a leaf field: the paths its expression reads, and the references its
    expression made (unknown fields it read), which count only once something reads the value
    (p4c removes a dead store: ``meta_t t2 = s;`` nothing reads)."""
    __slots__ = ("deps", "pending")

    def __init__(self, deps, pending=()):
        self.deps = frozenset(deps)
        self.pending = tuple(pending)


class _Walk:
    def __init__(self, leaves: dict, effects, in_action: bool):
        self.leaves = leaves            # local py -> its leaf paths (``v1_s.x``)
        self.effects = effects          # statement -> (paths it writes, paths it reads) or None
        self.in_action = in_action
        self.refs: list = []            # (class, py, field, how, keeps): class 0 statements, 1 conditions and keys

    def owner(self, p):
        if p is None:
            return None
        return next((py for py in self.leaves if p == py or p.startswith((py + ".", py + "["))), None)

    def under(self, py, p):
        return [lf for lf in self.leaves[py] if lf == p or lf.startswith((p + ".", p + "[")) or p.startswith(lf + ".")]

    def _ref(self, cls, py, leaf, how, survive):
        self.refs.append((cls, py, leaf[len(py) + 1:].split(".")[0] if leaf != py else "", how, survive))

    def captured(self, n: int) -> list:
        """The references made since ``len(self.refs)`` was ``n``, taken back."""
        out = self.refs[n:]
        del self.refs[n:]
        return out

    def reads(self, e, known, cls) -> set:
        """The paths ``e`` depends on (a known field's own dependencies in its place); an unknown
        field read keeps its local."""
        deps = set()
        for q in path_reads(e):
            py = self.owner(q)
            if py is None:
                deps.add(q)
                continue
            lfs = self.under(py, q)
            if any(known.get(lf) is None for lf in lfs):   # (a struct's copy stays whole: its first field named)
                for lf in lfs:
                    self._ref(cls, py, lf, "read where p4c's copy propagation does not know its value", True)
            for lf in lfs:
                if known.get(lf) is not None:
                    deps |= known[lf].deps
                    self.refs.extend(known[lf].pending)
        return deps

    def kill(self, known, p) -> None:
        for lf in [lf for lf, v in known.items() if any(overlap(p, d) for d in v.deps)]:
            del known[lf]

    def store(self, known, lv, rhs, deps, pending=(), cls=0) -> None:
        """``lv = rhs`` (``rhs`` None: an extern's or a slice's write, the value unknown)."""
        p = ir_path(lv)
        if p is None:
            return
        py = self.owner(p)
        self.kill(known, p)
        if py is None:
            return
        rp = ir_path(rhs) if rhs is not None else None
        for lf in self.under(py, p):
            known.pop(lf, None)
            if rhs is None:   # (an extern's write: :meth:`stmt` keeps the reference where p4c keeps the call)
                self._ref(cls, py, lf, "written", False)
            if rhs is None or lv.get("op") == "slice":
                continue
            n = len(self.refs)
            if lf != p and rp is not None:
                d = self.reads({"op": "var", "n": rp + lf[len(p):]}, known, cls) | {rp + lf[len(p):]}
            elif lf != p and rhs.get("op") == "mk" and lf[len(p) + 1:].split(".")[0] in rhs.get("fields", ()):
                f = lf[len(p) + 1:].split(".")[0]
                d = self.reads(rhs["vals"][rhs["fields"].index(f)], known, cls)
            else:
                d = deps
            known[lf] = _Val(d, list(pending) + self.captured(n))

    def block(self, stmts, known) -> dict | None:
        """``known`` after ``stmts``; None where they end in an exit or return (what follows is dead)."""
        for st in stmts:
            if isinstance(st, dict):
                known = self.stmt(st, known)
                if known is None:
                    return None
        return known

    def stmt(self, st, known) -> dict | None:
        k = st.get("s")
        if k == "block":
            return self.block(st.get("body") or [], known)
        if k in ("exit", "return"):
            if st.get("v") is not None:   # (a function's value: the caller's copy reads it)
                self.reads(st["v"], known, 0)
            return None
        if k == "decl":
            n = st.get("n")
            init = st.get("init")
            m = len(self.refs)
            deps = self.reads(init, known, 0) if init is not None else set()
            if n in self.leaves:
                pending = self.captured(m)
                for lf in self.leaves[n]:
                    known.pop(lf, None)
                if init is not None:
                    self.store(known, {"op": "var", "n": n}, init, deps, pending)
            return known
        if k == "assign":
            lv = st.get("l")
            if ir_path(lv) is not None and ir_path(lv) == ir_path(st.get("r")):
                return known   # (``s.x = s.x;``: p4c removes it)
            slice_ = isinstance(lv, dict) and lv.get("op") == "slice"
            m = len(self.refs)
            deps = self.reads(st.get("r"), known, 0)
            mine = self.owner(ir_path(lv)) is not None and not slice_
            pending = self.captured(m) if mine else ()   # (counted once the stored value is read)
            if isinstance(lv, dict):
                self.reads([v for x, v in lv.items() if x not in ("base", "a")], known, 0)   # (indexes)
            self.store(known, lv, None if slice_ else st.get("r"), deps, pending)
            return known
        arms = _arms(st)
        if arms is not None:
            tbl = st.get("table") or next((d["table"] for d in ir_dicts(st.get("c")) if d.get("op") == "table_hit"), None)
            self.reads({x: v for x, v in st.items() if x not in ("then", "else", "cases")}, known, 1)
            if tbl is not None:
                self.applied({"s": "apply", "table": tbl}, known)
            eff = self.effects({"s": "apply", "table": tbl}) if k == "switch_action" and tbl else None
            one = eff[2][0] if eff and len(eff[2]) == 1 else "default" if len(st.get("cases") or ()) == 1 else None
            only = [c.get("body") or [] for c in st.get("cases") or () if one in c.get("labels", ())]
            if only:   # (the table's one action, its default too; a default alone: p4c runs that case)
                return self.block(only[0], known)
            outs = [o for o in (self.block(a, dict(known)) for a in arms) if o is not None]
            return self.merge(known, outs) if outs else None
        if k in ("apply", "call_action"):
            self.applied(st, known)
            return known
        lv = st.get("l")
        outs = [a["e"] for a in st.get("args") or () if isinstance(a, dict) and a.get("dir") in ("out", "inout")] \
            if k == "call_fn" else []
        rd = [v for x, v in st.items() if x not in ("l", "args")] + \
            [a for a in st.get("args") or () if not (isinstance(a, dict) and a.get("dir") == "out")]
        self.reads(rd, known, 0)
        whole = set(path_reads(rd)) & set(self.leaves)
        if k == "log":   # (log_msg's struct value, its fields listed in order: p4c keeps the struct)
            data = [ir_path(d) for d in st.get("data") or ()]
            whole |= {py for py, lfs in self.leaves.items()
                      if any(data[i:i + len(lfs)] == lfs for i in range(len(data) - len(lfs) + 1))}
        for py in whole:   # (a whole local as an extern's argument: kept)
            self._ref(0, py, self.leaves[py][0], f"passed whole to {k}", True)
        for e in outs:   # (p4c inlines the function: an assignment of what it computes)
            self.store(known, e, {"op": "const"}, set())
        if isinstance(lv, dict):
            py = self.owner(ir_path(lv))
            n = len(self.refs)
            self.store(known, lv, None, set())
            if py is not None and k in _REMOVABLE:
                del self.refs[n:]   # (named only where a read keeps it)
            elif py is not None and len(self.refs) > n:
                self.refs[n] = (0, py, self.refs[n][2], f"written by {k}", True)
        for x in ("h", "st"):   # (what an extern statement writes besides its result: a header's validity)
            if isinstance(st.get(x), dict) and ir_path(st[x]) is not None:
                self.kill(known, ir_path(st[x]))
        return known

    def applied(self, st, known) -> None:
        """A table apply or an action call: its keys (conditions) and arguments read, its actions'
        writes make fields unknown (all of the control's own locals where they are not known)."""
        eff = self.effects(st)
        if eff is None:
            self.reads([v for x, v in st.items() if x != "l"], known, 0)
            for lf in [lf for lf, v in known.items() if any(may_write(st, d) for d in v.deps)]:
                del known[lf]
            for py, lfs in self.leaves.items():
                if py.startswith("L."):
                    for lf in lfs:
                        known.pop(lf, None)
            return
        # (a key: p4c never propagates into one -- read as unknown)
        self.reads(eff[1], {} if st.get("s") == "apply" else known, 1 if st.get("s") == "apply" else 0)
        n = len(self.refs)
        for p in eff[0]:
            self.store(known, _path_ir(p), None, set())
        del self.refs[n:]   # (the actions' own walks name their writes)

    def merge(self, before, outs) -> dict:
        """After an ``if``/``switch``: a field an arm wrote is unknown (in an action, p4c's Predication
        reads its old value: unknown before, the local stays)."""
        after = {}
        for lf, v in before.items():
            if all(o.get(lf) is v for o in outs):
                after[lf] = v
            elif self.in_action and all(o.get(lf) is not None for o in outs):
                after[lf] = _Val(set().union(*(o[lf].deps for o in outs)), [r for o in outs for r in o[lf].pending])
        if self.in_action:
            for py, lfs in self.leaves.items():
                for lf in lfs:
                    if lf not in before and any(o.get(lf) is not None for o in outs):
                        self._ref(0, py, lf, "stored under a condition in an action (p4c's Predication reads "
                                             "its value before)", True)
        return after


def _arms(st):
    if st.get("s") == "if":
        return [st.get("then") or [], st.get("else") or []]
    if isinstance(st.get("cases"), list) and st.get("s") != "transition":
        return [c.get("body") or [] for c in st["cases"] if isinstance(c, dict)] + [[]]
    return None


def _path_ir(p: str) -> dict:
    """A path text as an IR path expression (only what :func:`ir_path` reads back)."""
    head, *rest = p.split(".")
    e = {"op": "var", "n": head}
    if head == "L" and rest:
        e, rest = {"op": "var", "n": "L." + rest[0]}, rest[1:]
    for f in rest:
        e = {"op": "field", "base": e, "f": f}
    return e


def surviving_reference(stmts: list, leaves: dict, effects, in_action: bool = False, known: dict | None = None):
    """(py, field, how) of the local of ``leaves`` (py -> leaf paths) that p4c keeps in ``stmts``,
    named by BMv2's first reference (module docstring); None when p4c removes them all.
    ``effects(st)``: (written paths, read expressions) of a table apply or action call."""
    w = _Walk(leaves, effects, in_action)
    w.block(stmts, dict(known or {}))
    return _verdict(w)


def _verdict(w: _Walk):
    if not any(r[4] for r in w.refs):
        return None
    first = min(w.refs, key=lambda r: r[0])
    why = next((r for r in w.refs if r[1] == first[1] and r[3] != "written"), first)
    return first[1], first[2], why[3]


def parser_surviving_reference(states: dict, live, leaves: dict, effects):
    """:func:`surviving_reference` over parser ``states`` (name -> {"body", "transition"}): a state
    whose only predecessor goes to it unconditionally continues that walk (SimplifyParsers), any
    other starts with every field unknown; a select's keys are conditions."""
    preds: dict = {}
    for n in live:
        tr = states[n]["transition"]
        tos = [tr.get("to")] if tr.get("kind") == "direct" else [c.get("to") for c in tr.get("cases") or ()]
        for t in set(tos) - {None, "accept", "reject"}:
            preds.setdefault(t, []).append((n, tr.get("kind") == "direct"))
    w = _Walk(leaves, effects, False)

    def chain(n, known, seen):
        known = w.block(states[n]["body"], known) or {}
        tr = states[n]["transition"]
        if tr.get("kind") == "select":
            w.reads(tr.get("keys"), known, 1)
        nxt = tr.get("to") if tr.get("kind") == "direct" else None
        if nxt in live and nxt not in seen and len(preds.get(nxt, ())) == 1:
            chain(nxt, known, seen | {nxt})
    for n in live:
        p = preds.get(n, ())
        if n == "start" or not (len(p) == 1 and p[0][1]):
            chain(n, {}, {n})
    return _verdict(w)


def action_writes(body) -> list:
    """The paths an action body may write (assignments, extern results, functions' out arguments)."""
    out = []
    for d in ir_dicts(body or []):
        if isinstance(d.get("l"), dict) and d.get("s"):
            out.append(ir_path(d["l"]))
        if d.get("s") == "call_fn" or d.get("op") in ("call_fn", "call_fn_out"):
            out += [ir_path(a["e"]) for a in d.get("args") or () if isinstance(a, dict) and a.get("dir") in ("out", "inout")]
    return [p for p in out if p is not None]
