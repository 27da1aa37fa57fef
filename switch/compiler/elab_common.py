"""Shared ground of the elaboration rules: IR type constants, naming, errors, scopes.

IR types are JSON lists (``["bit", 8]``, ``["int", 8]``, ``["bool"]``, ``["header", n]``,
``["struct", n]``, ``["stack", header_or_union, size]``, ``["varbit", max]``, ``["error"]``,
``["enum", n]``, ``["serenum", n, base]``, ``["int_lit"]`` for untyped integer literals).
"""
from __future__ import annotations

import keyword

from .ast import Node
from .errors import P4CompileError

IR_FORMAT = "checkmate-v1model-ir/1"
BOOL = ["bool"]
INTLIT = ["int_lit"]
VOID = ["void"]
ERROR = ["error"]

V1_EXTERN_FUNCS = {
    "mark_to_drop", "verify", "random", "digest", "hash", "verify_checksum", "update_checksum",
    "verify_checksum_with_payload", "update_checksum_with_payload", "clone", "clone3",
    "clone_preserving_field_list", "resubmit", "resubmit_preserving_field_list", "recirculate",
    "recirculate_preserving_field_list", "truncate", "assert", "assume", "log_msg",
}
V1_OBJECTS = {"counter", "direct_counter", "meter", "direct_meter", "register", "action_profile",
              "action_selector"}
UNSUPPORTED_OBJECTS = {"Checksum16"}


# names the generated header/struct classes use for themselves
_RESERVED_ATTRS = {"_v", "copy", "reset", "extract", "pack", "NBYTES"}


def pyname(n: str) -> str:
    """The Python attribute name of a P4 field (keywords and reserved names get a ``_``)."""
    return n + "_" if keyword.iskeyword(n) or n in _RESERVED_ATTRS or n.endswith("_") and \
        pyname(n[:-1]) != n[:-1] else n


def E(loc, msg: str) -> P4CompileError:
    return P4CompileError(loc, msg)


def tstr(t) -> str:
    k = t[0]
    if k in ("bit", "int"):
        return t[2] if len(t) > 2 else f"{k}<{t[1]}>"
    if k == "int_lit":
        return "int"
    if k in ("header", "struct", "enum", "extern"):
        return t[1]
    if k == "serenum":
        return t[1]
    if k == "stack":
        return f"{t[1]}[{t[2]}]"
    if k == "tvar":   # a generic block's type parameter, checked on its own (elab_order)
        return t[1]
    return k


def is_bits(t) -> bool:
    return t[0] in ("bit", "int")


def newtype_name(t) -> str | None:
    """The `type` a value of IR type ``t`` has (``["bit", 9, "P_t"]``: ``P_t``), or None."""
    return t[2] if t[0] in ("bit", "int") and len(t) > 2 else None


def untagged(t):
    """``t`` without its `type` name: the underlying ``bit<N>``/``int<N>``."""
    return t[:2] if newtype_name(t) else t


def width(t) -> int:
    if t[0] in ("bit", "int"):
        return t[1]
    if t[0] == "serenum":
        return t[2][1]
    if t[0] == "bool":
        return 1
    raise ValueError(t)


class Scope:
    def __init__(self, parent=None):
        self.parent = parent
        self.names: dict[str, tuple] = {}
        self.declared: dict[str, object] = {}  # local var/const declarations: name -> Loc

    def declare(self, n: str, v: tuple, loc) -> None:
        """A local variable/constant declaration: a second one of ``n`` in the same scope is
        an error, as in p4c ("Duplicates declaration"); shadowing an outer scope is allowed."""
        prev = self.declared.get(n)
        if prev is not None:
            raise E(loc, f"duplicate declaration of {n!r} in the same scope (previous declaration at {prev})")
        self.declared[n] = loc
        self.add(n, v)

    def lookup(self, n: str):
        s = self
        while s is not None:
            if n in s.names:
                return s.names[n]
            s = s.parent
        return None

    def add(self, n: str, v: tuple):
        self.names[n] = v


def wrap(v: int, t) -> int:
    w = t[1]
    v &= (1 << w) - 1
    if t[0] == "int" and v >> (w - 1):
        v -= 1 << w
    return v


def unsigned_value(v, t) -> int:
    if isinstance(v, bool):
        return int(v)
    if is_bits(t):
        return v & ((1 << t[1]) - 1)
    return v


def eval_bin(o, a, b, at, t):
    if o == "&&":
        return a and b
    if o == "||":
        return a or b
    if o in ("==", "!=", "<", ">", "<=", ">="):
        return {"==": a == b, "!=": a != b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[o]
    bitsy = is_bits(t)
    if o == "++":
        wb = t[1] - at[1]
        if isinstance(b, int) and not isinstance(b, bool) and b < 0:
            # p4c folds `a ++ b` of constants as (a << |b|) + b, so a negative (signed) right
            # operand borrows from the left one: 8s1 ++ -8s16 is 0x00f0 on BMv2 (fuzz_exprs 5660)
            return wrap((a << wb) + b, t)
        return wrap(((a & ((1 << at[1]) - 1)) << wb) | unsigned_value(b, ["bit", wb]), t)
    if o == "|+|" or o == "|-|":
        r = a + b if o == "|+|" else a - b
        if t[0] == "bit":
            return max(0, min(r, (1 << t[1]) - 1))
        return max(-(1 << (t[1] - 1)), min(r, (1 << (t[1] - 1)) - 1))
    r = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a // b,
         "%": lambda: a % b, "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b,
         "<<": lambda: a << b, ">>": lambda: a >> b}[o]()
    return wrap(r, t) if bitsy else r


def expr_text(n: Node) -> str:
    """The source text p4c uses to name a key field (``hdr.ipv4.dstAddr``)."""
    k = n.kind
    if k == "name":
        return n.name
    if k == "member":
        return f"{expr_text(n.base)}.{n.name}"
    if k == "index":
        return f"{expr_text(n.base)}[{expr_text(n.index)}]"
    if k == "slice":
        return f"{expr_text(n.a)}[{expr_text(n.hi)}:{expr_text(n.lo)}]"
    if k == "int":
        v, base = n.value, n.get("base") or 10
        if base == 16:
            return hex(v)
        if base == 2:
            return bin(v)
        if base == 8:
            return oct(v)
        return str(v)
    if k == "binary" and n.op == "&":   # a masked key: p4c writes "<field> & <mask>"
        return f"{expr_text(n.a)} & {expr_text(n.b)}"
    if k == "call":
        if n.fn.kind == "member" and n.fn.name == "isValid" and not n.args:
            return f"{expr_text(n.fn.base)}.$valid$"   # p4c's name for a validity key
        return f"{expr_text(n.fn)}()"
    if k == "cast":
        return expr_text(n.a)
    return "<expr>"


def custom_crc(algo: str) -> str:
    """``crc16_custom``/``crc32_custom``: BMv2 starts them with the parameters of crc16/crc32
    (a controller may change them over Thrift, which the embedded target does not offer)."""
    return {"crc16_custom": "crc16", "crc32_custom": "crc32"}.get(algo, algo)


def flatten_select(exprs: list, cases: list) -> tuple[list, list]:
    """A list expression among a ``select``'s keys (``select(a, {b, c})``) stands for its
    members, as p4c flattens it: the keys become ``a, b, c`` and each case's keyset in that
    place -- a list of values (``{1, 2}``) or ``default``/``_`` for all of them -- is spread
    the same way.  Selects without a list key come back unchanged."""
    if not any(e.kind == "list" for e in exprs):
        return exprs, cases

    def shape(e):
        return [shape(x) for x in e.items] if e.kind == "list" and not e.get("dots") else None

    def leaves(s):
        return 1 if s is None else sum(leaves(x) for x in s)

    def spread(e):
        return [x for i in e.items for x in spread(i)] if shape(e) is not None else [e]

    def fit(k, s, out):
        if s is None:
            out.append(k)
        elif k.kind == "default":
            out.extend([k] * leaves(s))
        elif k.kind == "list" and len(k.items) == len(s):
            for ki, si in zip(k.items, s):
                fit(ki, si, out)
        else:
            raise E(k.loc, f"this keyset must be a list of {len(s)} values, or default, "
                           "to match the select's list expression")

    shapes = [shape(e) for e in exprs]
    flat_cases = []
    for c in cases:
        ks = c.keysets
        if not (len(ks) == 1 and ks[0].kind == "default") and len(ks) == len(exprs):
            out: list = []
            for k, s in zip(ks, shapes):
                fit(k, s, out)
            c = Node("case", c.loc, **{**c._attrs, "keysets": out})
        flat_cases.append(c)
    return [x for e in exprs for x in spread(e)], flat_cases


def has_runtime_int(ir) -> bool:
    """Whether IR ``ir`` holds ``(int)`` of a run-time value: compiled to the 0 p4c's BMv2 JSON
    computes, yet no compile-time constant where p4c needs one (a const, a divisor)."""
    if isinstance(ir, dict):
        return bool(ir.get("runtime_int")) or any(has_runtime_int(v) for v in ir.values() if isinstance(v, (dict, list)))
    if isinstance(ir, list):
        return any(has_runtime_int(v) for v in ir)
    return False

def unify_lists(at, bt):
    """The common type of two list types compared element by element: an untyped literal
    takes the other side's element type, nested lists alike (``at`` wins elsewhere)."""
    if at == INTLIT:
        return bt
    if at[0] == bt[0] == "list" and len(at[1]) == len(bt[1]):
        return ["list", [unify_lists(x, y) for x, y in zip(at[1], bt[1])]]
    return at


def ir_dicts(x, skip: str | None = None):
    """Every dict of an IR value -- statements, expressions, their parts -- at any depth, through
    lists and dict values, each before what it holds; not below a dict's ``skip`` key (a view's
    ``orig``, a statement's ``p4info_rest``)."""
    if isinstance(x, dict):
        yield x
        for k, v in x.items():
            if k != skip:
                yield from ir_dicts(v, skip)
    elif isinstance(x, list):
        for v in x:
            yield from ir_dicts(v, skip)


def ir_replace(x, fn):
    """A copy of IR value ``x`` with each dict that ``fn`` gives a replacement for (not None)
    replaced by it, outermost first (a replacement is not looked into); the rest rebuilt around
    it, through lists and dict values.  ``x`` itself is not changed."""
    if isinstance(x, list):
        return [ir_replace(v, fn) for v in x]
    if not isinstance(x, dict):
        return x
    r = fn(x)
    if r is not None:
        return r
    return {k: ir_replace(v, fn) for k, v in x.items()}


def ir_any(x, pred) -> bool:
    """Whether some dict of an IR value (see :func:`ir_dicts`; types under ``t`` are not
    looked into) satisfies ``pred``."""
    return any(pred(n) for n in ir_dicts(x, "t"))


def is_call(n: dict) -> bool:
    """Whether IR dict ``n`` is a call (of an action, function or extern method)."""
    return str(n.get("op", "")).startswith("call")


def has_call(x) -> bool:
    """Whether an IR value holds a call anywhere (one that may have side effects)."""
    return ir_any(x, is_call)


def always_returns(st: dict, exits: bool = False, front: bool = False) -> bool:
    """Statement ``st`` always ends in a ``return``.  p4c turns a control's returns into a flag,
    folds the flag where it is always set and drops what follows as dead code before its BMv2
    back end looks at the tables (not after a ``switch`` whose every case returns -- that flag is
    not folded).  With ``exits`` an ``exit`` counts as a ``return``: p4c's RemoveReturns does so in
    a body that holds a ``return`` anywhere (it leaves one without alone: fuzz_exprs seed 5563 --
    ``{ exit; } if (c) { return; } t.apply();`` drops ``t`` from the P4Info, ``exit; t.apply();``
    keeps it).  Unless ``front``, a block that ends in a single-case switch marked ``returns``
    (:func:`single_case_copies`, p4c's mid end: :func:`live_prefix`) counts too; an ``if`` is a
    join where the mid end's wrong flag value is lost, so only its front-end returns count."""
    k = st.get("s")
    if k == "return" or (st.get("returns") and not front) or (exits and k == "exit"):
        return True
    if k == "block":
        return any(always_returns(x, exits, front) for x in st["body"])
    if k == "if":
        return any(always_returns(x, exits, True) for x in st["then"] or []) and \
            any(always_returns(x, exits, True) for x in st["else"] or [])
    return False


def mark_folded(s, v, literal: bool) -> bool:
    """Mark the AST ``if`` node ``s`` whose condition p4c's front end folds to ``v`` (constant
    folding, strength reduction: ``p0.a * 0 == 1``; not None) with the branch it keeps
    (``p4c_folded``: the other is gone before p4c's def-use and its inlining -- what
    ``inlined_lists`` counts, fuzz_exprs seed 8298); returns ``literal``."""
    if v is not None:
        s._attrs["p4c_folded"] = "then" if v else "els"
    return literal


def may_return(st: dict) -> bool:
    """Whether ``st`` holds a ``return`` or an ``exit`` (p4c's RemoveReturns: it may return)."""
    return any(d.get("s") in ("return", "exit") for d in ir_dicts(st))


def _sets_flag(st: dict) -> bool:
    """Whether ``st`` holds a ``return`` (RemoveReturns' flag is set there; an exit leaves it)."""
    return any(d.get("s") == "return" for d in ir_dicts(st))


def live_prefix(stmts: list, exits: bool = False) -> list:
    """``stmts`` up to and including the first that always returns (the rest is dead for p4c).

    A single-case switch whose case returns (marked ``returns`` by :func:`single_case_copies`) is
    p4c 1.2.4.8's mid end: RemoveReturns sets a flag in the case and puts what follows the first
    statement that may return into ``if (!flag) {...}`` -- the statements up to and including the
    next one that may return; what follows that goes in a second ``if (!flag)`` after the first,
    and so on -- and LocalCopyPropagation, taking the single case as always run, gives the flag
    its ``true`` right after the switch, which the joins at the ends of those ``if``s keep until
    one of them sets the flag.  So when the switch is the first statement of its block that may
    return, BMv2 runs nothing of the statements after it up to and including the next that holds a
    ``return`` (an ``exit`` sets no flag; the rest of the block when none does: then the block
    itself counts as such a switch for the block around it); after a join that sets the flag (an
    ``if`` around the switch, or the switch behind an earlier statement that may return) the flag
    is unknown and works.  Measured, helper fuzz22.  The
    dropped statements are kept under the switch's ``p4info_rest``, which code generation ignores
    and the P4Info's table scan sees (p4c's front end writes the P4Info: ``switch (x) { 1: {
    return; } } t.apply();`` lists ``t``, BMv2 never applies it)."""
    out: list = []
    i, seen = 0, False
    while i < len(stmts):
        st = stmts[i]
        if always_returns(st, exits, front=True):
            return out + [st]
        if not seen and always_returns(st, exits):   # (a marked switch, or a block ending in one)
            j = next((k for k in range(i + 1, len(stmts)) if _sets_flag(stmts[k])), len(stmts))
            rest = stmts[i + 1:j + 1]
            st = dict(st, p4info_rest=rest) if rest else st
            if j < len(stmts):     # it does not end the block: the statements after the next run
                st = _unmark(st)
                out.append(st)
                if always_returns(stmts[j], exits, front=True):
                    return out   # (what follows a plain `return` is dead: fuzz_mutants seed 3793, exit_stmt)
                i, seen = j + 1, True
                continue
            return out + [st]
        if seen and st.get("copies") and (st.get("returns") or exits and st.get("exits")):
            # behind an earlier statement that may return the switch ends RemoveReturns' group
            # `if (!flag) { .. }`, whose join ends its case's copies (helper mutz42: `if (h.d == 2) {
            # return; } switch (h.a) { 5: { h.c = 7; return; } } h.d = (bit<32>)h.c;` reads h.c)
            st = {k: v for k, v in st.items() if k != "copies"}
        seen = seen or may_return(st)
        out.append(st)
        i += 1
    return out


def _unmark(st: dict) -> dict:
    """``st`` (the switch, or a block ending in it) without the single-case switch mark that made it
    count as returning for the mid end; ``fe_returns`` keeps it for the front end, which still sees
    the flow after it as unreachable (``switch_cases.drop_unvisited_locals``)."""
    if st.get("returns"):
        return dict(st, returns=False, fe_returns=True)
    body = st.get("body")
    if not body or st.get("s") != "block":
        return st
    return dict(st, body=body[:-1] + [_unmark(body[-1])])


def lit_base(ir) -> int:
    """The base p4c's constant folding gives the value of ``ir``: a literal's own (``0x8``: 16),
    an operation's that of its (left) operand; p4c takes ``c ? a : b`` for ``a`` only when both
    arms fold to equal constants of one base (``c ? (4w0x8 << 5) : (x % 1)`` stays: fuzz_exprs
    seed 6262 -- a switch on it keeps every case's tables in the P4Info)."""
    while isinstance(ir, dict) and ir.get("op") in ("bin", "un", "cast", "slice"):
        ir = ir["a"]
    return ir.get("base", 10) if isinstance(ir, dict) and ir.get("op") == "const" else 10


def has_enum_cast_cmp(ir) -> bool:
    """Whether ``ir`` holds a comparison with an enum value cast from a constant (``(E)16w5 !=
    E.C``, the const marked ``enum_cast`` by elab_casts): p4c folds no such comparison (it compares
    the operands as expressions), so neither it nor what holds it is a constant for p4c
    (fuzz_exprs seed 5870)."""
    return any(d.get("op") == "bin" and d.get("o") in ("==", "!=") and any(
        isinstance(y, dict) and y.get("enum_cast") for y in (d["a"], d["b"])) for d in ir_dicts(ir))
