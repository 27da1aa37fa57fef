"""Table keys as p4c names them and as its BMv2 back end builds them.

Naming: a key element p4c can name by itself (a path, a member, an index or a slice of one, a
literal, ``isValid()``, a field masked by a constant) needs no ``@name``; any other is p4c's
error without one (:func:`check_key_name`).  A table property that declares an instance
(``@name("p") implementation = action_profile(4);``) must be named too
(:func:`property_instance_name`).

Shape (:func:`bmv2_key_shape`): p4c's BMv2 back end keeps a key as a header field, or as a
field and a mask (``f & K``, ``K & f``), only when its midend leaves it in that form -- after
constant folding and strength reduction (``f + 0``, ``f | 0``, ``f ^ 0``, ``f >> 0``, ``f << 0``,
``f * 1``, ``~~f``, ``f & ~0``, a full-width slice ``f[w-1:0]``, ``(f & K1) & K2``) -- and
computes every other key (a slice, a cast, a shift, ``(f >> 8) & 0xf``, a concatenation) into a
temporary first (``SimplifyKey``), and so is any field of a header stack's element.  A field of a
struct (user metadata, standard_metadata) masked by a constant is kept as the field and a mask
too (its entries are masked: runtime/tables.key_mask); any other non-header key is marked
``temp`` (whole, it reads the same either way).  The difference shows on an invalid header: BMv2 reads a
field of an invalid header as zeros, while a temporary keeps what the field holds (the previous
packet's value in BMv2's PHV: mutz25's seed 1625, mutz26's masked keys).  The key's IR is
returned in the canonical form (``f`` / ``f & K``, under the cast a signed or ``bool`` key
gets), or marked ``temp`` so that the runtime evaluates it as written (runtime/gen_blocks).

Action data (:func:`negative_int_arg`): a negative ``int<N>`` argument of an entry is refused by
p4c's P4Runtime serializer ("Negative values not supported yet"); a default action's compiles, and
simple_switch dies loading the JSON p4c writes for it ("-0x4": "Formatted output in bases 8 or 16
is only available for positive numbers"; probed, helper errs15).
"""
from __future__ import annotations

from .ast import Node, annotation
from .elab_common import E, expr_text


def _simple_key(n: Node) -> bool:
    """A key p4c can name by itself: a path, member, index or slice of one, a literal, or isValid()."""
    k = n.kind
    if k in ("name", "int"):
        return True
    if k == "member":
        return _simple_key(n.base)
    if k == "index":
        return _simple_key(n.base)
    if k == "slice":
        return _simple_key(n.a)
    if k == "call":
        return n.fn.kind == "member" and n.fn.name == "isValid" and not n.args and _simple_key(n.fn.base)
    if k == "binary" and n.op == "&":  # a field masked by a constant (p4c: "hdr.f & 0xf0")
        return (n.a.kind == "int" and _simple_key(n.b)) or (n.b.kind == "int" and _simple_key(n.a))
    return False


def check_key_name(k: Node):
    """A key element's @name annotation; a complex key expression without one is p4c's error."""
    na = annotation(k.annos, "name")
    if not na and not _simple_key(k.expr):
        raise E(k.expr.loc, f"key {expr_text(k.expr)}: a complex key expression requires a @name annotation (as in p4c)")
    return na


def key_expr(elab, n: Node, scope, q: str):
    """A key element of table ``q``, elaborated with ``ctx["in_key"]`` set: a header field renamed by
    its ``@name`` (elab_expressions.member_of; simple_switch refuses p4c's JSON, which names the key's
    target by the annotation) is a load refusal of the table -- only if something applies it."""
    ctx = getattr(elab, "ctx", None)
    saved = None if ctx is None else ctx.get("in_key")
    if ctx is not None:
        ctx["in_key"] = []
    try:
        out = elab.expr(n, scope)
        for loc, msg in (ctx or {}).get("in_key") or ():
            elab.table_load_refusal(q, loc, msg)
        return out
    finally:
        if ctx is not None:
            ctx["in_key"] = saved


def key_text(n: Node, type_of, field_names: dict) -> str:
    """The name p4c gives a key element (its KeyNameGenerator): :func:`expr_text`, except that a
    member of a struct or header is named by the field's ``@name`` -- appended to its base's name,
    or, when it starts with a dot, alone (less the dot): with ``@name(".paxos") paxos_t paxos;``
    the key ``hdr.paxos.msgtype`` is ``paxos.msgtype`` and ``hdr.paxos.isValid()`` is
    ``paxos.$valid$`` (p4c-translated P4_14 programs; probed, helper corpus15).  ``type_of`` gives
    the type of a subexpression; called only when some field has a ``@name``."""
    k = n.kind
    if k == "member":
        t = type_of(n.base)
        fname = field_names.get((t[1], n.name), n.name) if t[0] in ("header", "struct", "union") else n.name
        if fname.startswith("."):
            return fname[1:]
        return f"{key_text(n.base, type_of, field_names)}.{fname}"
    if k == "index":
        return f"{key_text(n.base, type_of, field_names)}[{expr_text(n.index)}]"
    if k == "slice":
        return f"{key_text(n.a, type_of, field_names)}[{expr_text(n.hi)}:{expr_text(n.lo)}]"
    if k == "binary" and n.op == "&":
        return f"{key_text(n.a, type_of, field_names)} & {key_text(n.b, type_of, field_names)}"
    if k == "call" and n.fn.kind == "member" and n.fn.name == "isValid" and not n.args:
        return f"{key_text(n.fn.base, type_of, field_names)}.$valid$"
    if k == "cast":
        return key_text(n.a, type_of, field_names)
    return expr_text(n)


def constant_key_text(value: Node, ir: dict) -> str | None:
    """The name p4c gives a key that is a declared constant of a bit or int type (``const bit<8> KC =
    0x10;`` ... ``key = { KC: exact; }``): its front end has put the value there, printed in the base the
    literal was written in, without a width (``0x10``, ``0b101``, ``4`` for ``8w4``; a folded expression
    in decimal; probed, helper errs25 /work/errs25 progs/kc).  A constructor parameter keeps its name."""
    t, v = ir.get("t") or [None], ir.get("v")
    if t[0] not in ("bit", "int") or len(t) > 2 or not isinstance(v, int) or isinstance(v, bool):
        return None
    base = value.get("base") if value.kind == "int" else 10
    if base == 16 and v >= 0:
        return f"0x{v:x}"
    if base == 2 and v >= 0:
        return f"0b{v:b}"
    if base == 8 and v >= 0:
        return f"0o{v:o}"
    return str(v)


def property_instance_name(prop: Node, q: str) -> str:
    """The name of an instance a table property declares (``@name("p") implementation =
    action_profile(4);``): the property's @name, less one leading dot.  p4c's P4Runtime serializer
    needs one -- without it p4c rejects the program, and an empty one makes it die (a compiler
    bug in its P4Runtime symbol table); both are refused here."""
    na = annotation(prop.get("annos") or [], "name")
    if not na or not na[1] or not isinstance(na[1][0], str):
        raise E(prop.loc, f"table {q} has an anonymous table property '{prop.name}' with no @name "
                          "annotation, which P4Runtime does not support (p4c rejects it)")
    if not na[1][0].lstrip("."):
        raise E(prop.loc, f"table {q}: the instance of its table property '{prop.name}' has an empty @name "
                          "(p4c cannot name it in the P4Runtime symbol table and fails with a compiler bug)")
    return na[1][0][1:] if na[1][0].startswith(".") else na[1][0]   # p4c: one dot off (".p" is "p")


# ---- the BMv2 shape of a key ------------------------------------------------------------------

def _width(e) -> int | None:
    t = e.get("t") or [None]
    return t[1] if t[0] == "bit" and isinstance(t[1], int) else None


def _const(e, w: int | None) -> int | None:
    """The value of a constant subexpression of width ``w`` (None: not constant or not bits)."""
    op = e.get("op")
    if op == "const" and isinstance(e.get("v"), int) and w:
        return e["v"] & ((1 << w) - 1)
    if not w:
        return None
    if op == "un" and e.get("o") in ("~", "-"):
        a = _const(e["a"], w)
        return None if a is None else (~a if e["o"] == "~" else -a) & ((1 << w) - 1)
    if op == "bin" and e.get("o") in ("&", "|", "^", "+", "-", "*"):
        a, b = _const(e["a"], w), _const(e["b"], w)
        if a is None or b is None:
            return None
        v = {"&": a & b, "|": a | b, "^": a ^ b, "+": a + b, "-": a - b, "*": a * b}[e["o"]]
        return v & ((1 << w) - 1)
    return None


def _reduce(e):
    """``e`` less the identities p4c's strength reduction removes (see the module docstring)."""
    w = _width(e)
    op = e.get("op")
    if op == "un" and e.get("o") == "~" and e["a"].get("op") == "un" and e["a"].get("o") == "~":
        return _reduce(e["a"]["a"])
    if op == "slice" and e.get("lo") == 0 and w is not None and _width(e["a"]) == w:
        return _reduce(e["a"])
    if op != "bin" or w is None:
        return e
    a, b = _reduce(e["a"]), _reduce(e["b"])
    ka, kb = _const(a, w), _const(b, w)
    o, ones = e["o"], (1 << w) - 1
    if kb is not None and ka is None:
        if (o in ("+", "-", "|", "^", "<<", ">>") and kb == 0) or (o == "*" and kb == 1) or (o == "&" and kb == ones):
            return a
    if ka is not None and kb is None:
        if (o in ("+", "|", "^") and ka == 0) or (o == "*" and ka == 1) or (o == "&" and ka == ones):
            return b
        if o == "&":
            a, b, ka, kb = b, a, None, ka   # K & f: f & K
    if o == "&" and kb is not None and a.get("op") == "bin" and a.get("o") == "&":
        inner = _const(a["b"], w)
        if inner is not None:   # (f & K1) & K2: f & (K1 & K2)
            return _reduce({**e, "a": a["a"], "b": {"op": "const", "v": inner & kb, "t": ["bit", w]}})
    if o == "&" and kb is not None:
        return {**e, "a": a, "b": {"op": "const", "v": kb, "t": ["bit", w]}}
    return {**e, "a": a, "b": b}


def _field_of(e, base_type: str) -> bool:
    """A field of a ``base_type`` ("header" / "struct") value reached through no header stack's
    element.  A header's: p4c's BMv2 back end computes a key on a stack element's field
    (``h.v[0].f``, ``h.us[1].b.f``; not ``h.v[0].isValid()``) into a temporary like any other
    computed key (corpus11: stratum's main.p4 keys its punt table on ``hdr.vlan_tag[0].vid``), a
    union member's or a nested struct's header it keys on.  A struct's (user metadata,
    standard_metadata): masked by a constant, p4c keeps it as the field and a mask too
    (``meta.m8 & 0xf0``, ``sm.ingress_port & 0x1f0``: BMv2 masks the entries), unless its copy
    propagation puts a copy into the key (compiler/key_copies; probed, helper keys39)."""
    if e.get("op") != "field" or (e["base"].get("t") or [None])[0] != base_type:
        return False
    b = e["base"]
    while isinstance(b, dict) and b.get("op") in ("field", "stack_idx"):
        if b["op"] == "stack_idx":
            return False
        b = b["base"] if b["op"] == "field" else b["st"]
    return True


def bmv2_key_shape(ir) -> tuple[dict, bool]:
    """(the key's IR, whether p4c computes it into a temporary) -- see the module docstring.
    Other keys that are not of a header field are returned as they are, ``temp``."""
    outer = None
    e = ir
    if e.get("op") == "cast" and _width(e) is not None and e["a"].get("t", [None])[0] in ("int", "bool"):
        outer, e = e, e["a"]   # (a signed or bool key: the cast to its bits is no computation)
    r = _reduce(e)
    if _field_of(r, "header") or (r.get("op") == "bin" and r.get("o") == "&" and r["b"].get("op") == "const"
                                  and (_field_of(r["a"], "header") or _field_of(r["a"], "struct"))):
        return ({**outer, "a": r} if outer is not None else r), False
    return ir, True


def runtime_index_key(ir) -> bool:
    """A key p4c's BMv2 back end keeps as a field (masked or not) or the validity of a header
    stack's element with a run-time index (``hdr.s[hdr.h.a].a``, ``hdr.s[m.i].isValid()``): its
    JSON gives the key an expression target, and simple_switch dies loading it (probed, helper
    errs16; a slice or another computed key goes through a temporary and loads)."""
    e = ir["a"] if ir.get("op") == "cast" and ir["a"].get("t", [None])[0] in ("int", "bool") else ir
    e = _reduce(e)
    if e.get("op") == "bin" and e.get("o") == "&" and e["b"].get("op") == "const":
        e = e["a"]
    if e.get("op") not in ("field", "isvalid"):
        return False
    b = e.get("base") if e["op"] == "field" else e.get("h")
    while isinstance(b, dict) and b.get("op") in ("field", "stack_idx"):
        if b["op"] == "stack_idx" and (b.get("i") or {}).get("op") != "const":
            return True
        b = b["base"] if b["op"] == "field" else b["st"]
    return False


def negative_int_arg(params: list, call, aparams: list):
    """``(argument node, value)`` of the first negative ``int<N>`` action-data argument of ``call``
    (``params``: the action's parameters, ``aparams``: the folded data, unsigned), else None."""
    data = [p for p in params if p.get("dir") is None]
    args = [a.value if a.kind == "named_arg" else a for a in call.get("args") or ()]
    for p, v, a in zip(data, aparams, args[len(args) - len(data):]):
        if p.get("t", [""])[0] == "int" and isinstance(v, int) and v >= 1 << (p["t"][1] - 1):
            return a, v - (1 << p["t"][1])
    return None
