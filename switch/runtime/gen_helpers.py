"""Run-time support of the generated code: P4 arithmetic helpers and small classes.

Everything here is put into the namespace the generated program is ``exec``'d in (see
:func:`switch.runtime.codegen.load`).
"""
from __future__ import annotations

from .engine import ParserError, Stack

# parser state transitions of one packet before ParserTimeout: BMv2 sets no bound (a public key-value
# store loops once per element of a 1025-deep stack; 1000 cut it: helper corpus17); the bound only
# stops a loop that extracts nothing
PARSER_STEP_LIMIT = 1 << 17


def mask(w: int) -> int:
    """All-ones value of ``w`` bits."""
    return (1 << w) - 1


def tuple_with(src: str, i: int, val: str) -> str:
    """Source of the tuple ``src`` with element ``i`` replaced by ``val`` (``t[i] = val``)."""
    return f"({src}[:{i}] + ({val},) + {src}[{i + 1}:])"


class Locals:
    """Per-invocation control-scope variables (attributes set by the generated code)."""


class AssertionFailed(Exception):
    pass


def _cat_valid(items, payload=None) -> tuple[int, int]:
    """A checksum's field list [(valid, value, width)] without the fields of invalid headers
    (BMv2 leaves them out of verify/update_checksum), then the payload bytes if given:
    (concatenated value, bits)."""
    acc = bits = 0
    for ok, v, w in items:
        if ok:
            acc = (acc << w) | v
            bits += w
    if payload is not None:   # the fields padded to a byte boundary, then the payload (BMv2)
        acc <<= -bits % 8
        bits += -bits % 8
        acc = (acc << (8 * len(payload))) | int.from_bytes(payload, "big")
        bits += 8 * len(payload)
    return acc, bits


def _sw(v: int, w: int) -> int:
    h = 1 << (w - 1)
    return ((v + h) & ((1 << w) - 1)) - h


def _shl(a, b, w):
    return a << b if b < w else 0


def _shr(a, b, w):
    return a >> b if b < w else (0 if a >= 0 else -1)


def _div(a, b):
    return a // b if b else 0


def _mod(a, b):
    return a % b if b else 0


def _sat(v, lo, hi):
    return lo if v < lo else hi if v > hi else v


def _mk(cls, names, vals):
    """A header or struct value from its fields' values; a varbit field's value comes as a box
    (:func:`_vb_in`): the header takes its bits and its length (p4c's ``assign_VL``)."""
    o = cls()
    for n, v in zip(names, vals):
        if isinstance(v, _VB) and hasattr(o, "_vb"):
            setattr(o, n, v.v)
            o._vb = v._vb
            continue
        setattr(o, n, v.copy() if hasattr(v, "copy") else v)
    if hasattr(o, "_v"):
        o._v = True
    return o


class _VB:
    """A ``varbit<N>`` local variable: its bits ``v`` and current length ``_vb`` (as a
    header keeps a varbit field's); the compiler reads and writes it as field ``v``."""

    __slots__ = ("v", "_vb")

    def __init__(self):
        self.v, self._vb = 0, 0

    def copy(self):
        """A box of its own (p4c's JSON holds varbit locals in metadata, which a clone or a
        recirculated packet copies)."""
        c = _VB()
        c.v, c._vb = self.v, self._vb
        return c


def _vb_in(v, n):
    """A box of its own holding bits ``v`` of length ``n``: a varbit argument copied into an action's
    parameter (p4c passes it as a varbit local: issue447-style ``cp(s)`` with ``inout varbit<N> q``)."""
    c = _VB()
    c.v, c._vb = v, n
    return c


def _hdr_out(cur, new, *siblings):
    """The header an ``out``/``inout`` copy-out inside an expression leaves behind: ``new``, or,
    when ``new`` is invalid, ``cur`` made invalid with its fields kept (BMv2's assign_header from
    an invalid header changes only the validity; p4c copies such a call's arguments back through
    temporaries -- fuzz_exprs seed 2198).  A valid ``new`` stored into a header-union member
    makes its ``siblings`` invalid (BMv2's mark_valid)."""
    if new._v:
        for sb in siblings:
            sb._v = False
        return new
    cur._v = False
    return cur


def _agg_out(cur, new):
    """The aggregate value ``new`` (a struct, header union or header stack) as an assignment or
    copy-out stores it over ``cur``.  p4c lowers such a copy into one assign_header per header
    (a plain store per scalar field), however deep the header sits -- an inner struct, a union
    member, a stack element -- and BMv2's assign_header from an invalid header only makes the
    destination invalid, its fields kept.  So every header invalid in ``new`` is replaced by
    ``cur``'s, made invalid.  A stack keeps ``new``'s nextIndex (BMv2's assign_header_stack copies
    it; p4c's per-element copy in a control leaves it where nothing can read it).  ``new`` is a
    fresh copy; it is changed and returned."""
    if type(new) is Stack:
        new.a = [_agg_out(c, x) for c, x in zip(cur.a, new.a)]
        return new
    slots = type(new).__slots__
    if "_v" in slots:
        return _hdr_out(cur, new)
    for a in slots:
        nv = getattr(new, a)
        if hasattr(nv, "__slots__"):
            setattr(new, a, _agg_out(getattr(cur, a), nv))
    return new


def dead_flag(entry) -> int:
    """The ``_dead<key>`` flag a ``dead_stores`` entry sets: ``key``, or ``[key, caller_key]``."""
    return entry[0] if isinstance(entry, list) else entry


def dead_value(entry) -> str:
    """The value (Python source) a ``dead_stores`` entry gives its flag while the call runs: True,
    or -- ``[key, caller_key]`` -- the caller's ``_dead<caller_key>`` flag (a store p4c drops in
    this call's copy for some applies of the sub-control body the call is in: those set it;
    ``elab_unions``)."""
    return f"getattr(L, '_dead{entry[1]}', False)" if isinstance(entry, list) else "True"


def _apply_dead(L, flags, apply, P):
    """A table apply (in a condition or a ``switch`` on its ``action_run``) whose actions' union
    stores p4c's def-use drops at this site are skipped while it runs: ``flags`` are their
    ``_dead<key>`` attribute names, spelled out by the generator (``union_defuse.settle_action_stores``)."""
    for f in flags:
        setattr(L, f, True)
    try:
        return apply(P, L)
    finally:
        for f in flags:
            setattr(L, f, False)


def _copy_into(dst, src):
    for a in type(dst).__slots__:
        setattr(dst, a, getattr(src, a))


def _eq(a, b):
    """P4 equality of headers (both invalid, or both valid with equal fields), structs and
    header stacks (element by element; nextIndex is not part of the value).  A varbit field
    compares by value, as on BMv2: its current length (``_vb``) is not part of it."""
    if hasattr(a, "nxt"):
        return len(a.a) == len(b.a) and all(_eq(x, y) for x, y in zip(a.a, b.a))
    if hasattr(a, "_v"):
        if not a._v or not b._v:
            return a._v == b._v
    for f in type(a).__slots__:
        if f in ("_v", "_vb"):
            continue
        x, y = getattr(a, f), getattr(b, f)
        if hasattr(x, "__slots__"):
            if not _eq(x, y):
                return False
        elif x != y:
            return False
    return True


def _peek(cls, data, off, n):
    h = cls()
    h.extract(data, off, n)
    return h


def _lookahead(data, off, n, bits):
    nb = (bits + 7) >> 3
    if off + nb > n:
        raise ParserError(1)
    v = int.from_bytes(data[off:off + nb], "big")
    return v >> (nb * 8 - bits)


def _tracked(h):
    """A copy of header ``h`` that records (``_ever``) whether anything made it valid.

    A header-union member passed to a sub-control as an out/inout argument goes through such a
    copy: p4c inlines the control and writes the member in place, so each time the body makes
    it valid BMv2 invalidates the member's siblings -- also when the body makes it invalid
    again before the end (the copy-back alone cannot see that).  The class is a subclass of
    ``h``'s whose ``_v`` is a property over the parent's slot; ``__slots__`` names the
    parent's, so ``_copy_into`` copies the same attributes both ways."""
    cls = type(h)
    t = cls.__dict__.get("_tracked_cls")   # (kept on the class: it goes with the program)
    if t is None:
        slot = cls._v

        def get(self):
            return slot.__get__(self, cls)

        def put(self, v):
            slot.__set__(self, v)
            if v:
                self._ever = True
        t = type(f"Tracked{cls.__name__}", (cls,), {"__slots__": ("_ever",), "_v": property(get, put)})
        t.__slots__ = cls.__slots__
        cls._tracked_cls = t
    c = t.__new__(t)
    for a in cls.__slots__:
        setattr(c, a, getattr(h, a))
    c._ever = False
    return c

def holds_call(ir) -> bool:
    """Whether the IR ``ir`` holds a call (an lvalue whose index must be evaluated once)."""
    if isinstance(ir, list):
        return any(holds_call(v) for v in ir)
    return isinstance(ir, dict) and (str(ir.get("op", "")).startswith("call") or any(holds_call(v) for v in ir.values()))


def overwritten(lv, later) -> bool:
    """Whether a later copy-out of the same call (``later``: its lvalues) stores over the whole
    of ``lv`` first: p4c's def-use pass drops that first copy-out (``f(hdr.h, hdr.h)`` with
    ``out``/``inout`` parameters: ``hdr.h = p0; hdr.h = p1;``), so when the last one is an
    invalid header BMv2 keeps the fields the argument had before the call (fuzz_exprs seed
    2878), not the dropped copy's.  The later one may also be a header, struct or stack that
    holds ``lv`` -- ``f(hdr.h.a, hdr.h)``, ``f(hdr.h.a[3:0], hdr.h)``, ``f(hdr.h, hdr)``:
    ``hdr.h.a = p0; hdr.h = p1;`` drops the field's store too (diffcase
    ``fuzz16_copy_out_into_a_later_whole``)."""
    if holds_call(lv) or _runtime_index(_base(lv)):
        return False
    for w in later:
        if w is None or w["t"][0] not in ("header", "struct", "stack") or holds_call(w) or _runtime_index(w):
            # (None: a copy-out p4c elides -- a run-time-indexed argument the body never uses)
            continue
        x = lv
        while True:
            if x == w:
                return True
            if x.get("op") == "field":
                x = x["base"]
            elif x.get("op") == "stack_idx":
                x = x["st"]
            elif x.get("op") == "slice":
                x = x["a"]
            else:
                break
    return False


def _base(lv):
    """The lvalue ``lv`` without a bit slice around it."""
    while lv.get("op") == "slice":
        lv = lv["a"]
    return lv


def _runtime_index(lv) -> bool:
    """Whether the lvalue path ``lv`` goes through a run-time stack index (or starts anywhere
    but at a variable)."""
    while lv.get("op") in ("field", "stack_idx"):
        if lv["op"] == "stack_idx" and lv["i"].get("op") != "const":
            return True
        lv = lv["base"] if lv["op"] == "field" else lv["st"]
    return lv.get("op") != "var"


def copied_out(rhs: str, t) -> str:
    """(code generation) A parameter's value copied out (``r[0]``): for a varbit its box's field
    ``v`` (the assignment takes the length from the object before the last dot)."""
    return f"{rhs}.v" if t[0] == "varbit" else rhs


def emits_packets(v) -> bool:
    """Whether an IR sub-control (or any IR value) holds an ``emit``/``emit_stack`` statement:
    p4c inlines a sub-control applied from the deparser (tatry/INT-BMv2's ``int_deparser``), so
    its emits append to the deparser's output list, handed to it as ``L.out``."""
    if isinstance(v, dict):
        return v.get("s") in ("emit", "emit_stack") or any(emits_packets(x) for x in v.values())
    if isinstance(v, list):
        return any(emits_packets(x) for x in v)
    return False
