"""Name resolution, type checking and lowering of the AST to the JSON IR.

The IR (``device_config``) is plain JSON: types are lists (``["bit", 8]``,
``["int", 8]``, ``["bool"]``, ``["header", name]``, ``["struct", name]``,
``["stack", header, size]``, ``["error"]``, ``["enum", name]``), expressions are
dicts with an ``op`` and a type ``t``, statements are dicts with an ``s``.  Every
expression is fully typed here -- infinite-precision literals are given the width of
the operand they meet, widths must agree (``bit<8> + bit<16>`` is an error, as in
p4c), and a construct the target does not implement is an error at its position --
so :mod:`switch.runtime.codegen` never has to guess.  The IR layout is documented in
docs/P4C.md.
"""
from __future__ import annotations

import keyword

from .ast import Node, annotation
from .errors import Loc, P4CompileError
from .ids import aliases, assign_ids

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
V1_OBJECTS = {"counter", "direct_counter", "meter", "direct_meter", "register"}
UNSUPPORTED_OBJECTS = {"action_profile", "action_selector", "Checksum16"}


# names the generated header/struct classes use for themselves
_RESERVED_ATTRS = {"_v", "copy", "reset", "extract", "pack", "NBYTES"}


def pyname(n: str) -> str:
    """The Python attribute name of a P4 field (keywords and reserved names get a ``_``)."""
    return n + "_" if keyword.iskeyword(n) or n in _RESERVED_ATTRS or n.endswith("_") and \
        pyname(n[:-1]) != n[:-1] else n


def E(loc: Loc, msg: str) -> P4CompileError:
    return P4CompileError(loc, msg)


def tstr(t) -> str:
    k = t[0]
    if k in ("bit", "int"):
        return f"{k}<{t[1]}>"
    if k == "int_lit":
        return "int"
    if k in ("header", "struct", "enum", "extern"):
        return t[1]
    if k == "serenum":
        return t[1]
    if k == "stack":
        return f"{t[1]}[{t[2]}]"
    return k


def is_bits(t) -> bool:
    return t[0] in ("bit", "int")


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

    def lookup(self, n: str):
        s = self
        while s is not None:
            if n in s.names:
                return s.names[n]
            s = s.parent
        return None

    def add(self, n: str, v: tuple):
        self.names[n] = v


class Elaborator:
    def __init__(self, decls: list[Node], program: str):
        self.decls = decls
        self.program = program
        self.typedefs: dict[str, object] = {}
        self.headers: dict[str, dict] = {}   # name -> {"fields": [[n, w, signed]], "bytes": n}
        self.structs: dict[str, dict] = {}   # name -> {"fields": [[n, type]]}
        self.enums: dict[str, dict] = {}
        self.errors: list[str] = []
        self.match_kinds: set[str] = set()
        self.externs: dict[str, Node] = {}
        self.global_scope = Scope()
        self.actions: dict[str, dict] = {}
        self.action_nodes: dict[str, Node] = {}
        self.tables: dict[str, dict] = {}
        self.objects: dict[str, list] = {k: [] for k in ("counters", "registers", "meters",
                                                        "direct_counters", "direct_meters")}
        self.digests: dict[str, dict] = {}
        self.functions: dict[str, dict] = {}
        self.controller_headers: dict[str, dict] = {}
        self.tmp = 0
        self.fl_fields: dict[int, list] = {}

    # ---------------------------------------------------------------- types
    def resolve_type(self, n: Node, allow_generic=False):
        k = n.kind
        if k == "bit":
            return ["bit", self.const_int(n.width, "a bit width", minimum=1)]
        if k == "sint":
            return ["int", self.const_int(n.width, "an int width", minimum=1)]
        if k == "int_inf":
            return INTLIT
        if k == "varbit":
            return ["varbit", self.const_int(n.width, "a varbit width", minimum=1)]
        if k == "bool":
            return BOOL
        if k == "void":
            return VOID
        if k == "error":
            return ERROR
        if k == "string":
            return ["string"]
        if k == "match_kind":
            return ["match_kind"]
        if k == "tuple":
            return ["list", [self.resolve_type(a) for a in n.args]]
        if k == "stack":
            et = self.resolve_type(n.elem)
            if et[0] != "header":
                raise E(n.loc, f"header stack of non-header type {tstr(et)}")
            return ["stack", et[1], self.const_int(n.size, "a stack size", minimum=1)]
        if k == "dontcare":
            return ["any"]
        if k == "typename":
            name = n.name
            if name in self.typedefs:
                return self.typedefs[name]
            if name in self.headers:
                return ["header", name]
            if name in self.structs:
                return ["struct", name]
            if name in self.enums:
                e = self.enums[name]
                return ["serenum", name, e["base"]] if e["base"] else ["enum", name]
            if name in self.externs or name in ("packet_in", "packet_out"):
                return ["extern", name]
            if allow_generic:
                return ["any"]
            raise E(n.loc, f"unknown type {name}")
        raise E(n.loc, f"unsupported type {k}")

    def const_int(self, n: Node, what: str, minimum: int | None = None) -> int:
        ir, t = self.expr(n, self.global_scope)
        v = self.fold(ir)
        if v is None or isinstance(v, bool):
            raise E(n.loc, f"{what} must be a compile-time integer constant")
        if minimum is not None and v < minimum:
            raise E(n.loc, f"{what} must be >= {minimum}, got {v}")
        return v

    def fold(self, ir):
        """Value of a constant IR expression, or None."""
        op = ir["op"]
        if op == "const":
            return ir["v"]
        if op == "cast":
            v = self.fold(ir["a"])
            return None if v is None else _wrap(int(v), ir["t"]) if is_bits(ir["t"]) else v
        if op == "bin":
            a, b = self.fold(ir["a"]), self.fold(ir["b"])
            if a is None or b is None:
                return None
            try:
                return _eval_bin(ir["o"], a, b, ir["a"]["t"], ir["t"])
            except ZeroDivisionError:
                return None
        if op == "un":
            a = self.fold(ir["a"])
            if a is None:
                return None
            o, t = ir["o"], ir["t"]
            if o == "!":
                return not a
            if o == "-":
                return _wrap(-a, t) if is_bits(t) else -a
            if o == "~":
                return _wrap(~a, t) if is_bits(t) else ~a
        if op == "slice":
            a = self.fold(ir["a"])
            return None if a is None else (a >> ir["lo"]) & ((1 << (ir["hi"] - ir["lo"] + 1)) - 1)
        return None

    # ---------------------------------------------------------------- program
    def run(self) -> dict:
        main = None
        for d in self.decls:
            k = d.kind
            if k in ("header", "struct"):
                self.declare_struct(d)
            elif k == "header_union":
                raise E(d.loc, "header_union is not supported by the embedded target")
            elif k == "typedef":
                self.typedefs[d.name] = self.resolve_type(d.type)
            elif k == "const":
                t = self.resolve_type(d.type)
                ir = self.coerce(self.expr(d.value, self.global_scope), t, d.value.loc)
                v = self.fold(ir)
                if v is None:
                    raise E(d.value.loc, f"constant {d.name} is not a compile-time constant")
                self.global_scope.add(d.name, ("const", {"op": "const", "v": v, "t": t}))
            elif k == "enum":
                self.declare_enum(d)
            elif k == "error_decl":
                for m in d.members:
                    if m not in self.errors:
                        self.errors.append(m)
            elif k == "match_kind":
                self.match_kinds.update(d.members)
            elif k in ("extern_obj", "extern_func"):
                self.externs[d.name] = d
            elif k == "action":
                self.global_scope.add(d.name, ("action", d.name))
                self.action_nodes[d.name] = d
                self.declare_action(d, d.name, self.global_scope)
            elif k == "function":
                self.declare_function(d)
            elif k in ("parser", "control"):
                self.global_scope.add(d.name, (k, d))
            elif k == "instance":
                if d.name == "main":
                    main = d
                else:
                    raise E(d.loc, "only the package instance 'main' may be declared at top level")
            # parser_type, control_type, package: declarations only
        if main is None:
            raise E(Loc(self.program, 1, 1), "program has no 'main' package instance")
        return self.build(main)

    def declare_struct(self, d: Node) -> None:
        if d.name in self.headers or d.name in self.structs:
            raise E(d.loc, f"type {d.name} declared twice")
        fields = []
        seen = set()
        for f in d.fields:
            if f.name in seen:
                raise E(f.loc, f"field {f.name} declared twice in {d.name}")
            seen.add(f.name)
            t = self.resolve_type(f.type)
            if d.kind == "header":
                if t[0] == "serenum":
                    t = t[2]
                if t[0] == "bool":
                    t = ["bit", 1]
                if t[0] == "varbit":
                    if any(ft[0] == "varbit" for _, ft, _ in fields):
                        raise E(f.loc, f"header {d.name} has more than one varbit field")
                elif not is_bits(t):
                    raise E(f.loc, f"header field {d.name}.{f.name} must be bit<N>/int<N>/varbit<N>, "
                                   f"not {tstr(t)}")
            elif t[0] == "varbit":
                raise E(f.loc, "varbit fields are only supported in headers")
            fields.append([f.name, t, f.annos])
        if d.kind == "header":
            total = sum(t[1] for _, t, _ in fields if t[0] != "varbit")
            if total % 8:
                raise E(d.loc, f"header {d.name} is {total} bits long, not a multiple of 8")
            vb = next((n for n, t, _ in fields if t[0] == "varbit"), None)
            self.headers[d.name] = {"fields": [[n, t[1], t[0] == "int"] for n, t, _ in fields],
                                    "bytes": total // 8, "varbit": vb}
            ch = annotation(d.annos, "controller_header")
            if ch:
                self.controller_headers[ch[1][0] if ch[1] else d.name] = {
                    "header": d.name, "fields": [[n, t[1]] for n, t, _ in fields],
                    "annos": d.annos, "id_anno": annotation(d.annos, "id")}
        else:
            self.structs[d.name] = {"fields": [[n, t] for n, t, _ in fields]}
            for n, t, annos in fields:
                for a in annos or ():
                    if a[0] == "field_list":
                        for idx in a[1]:
                            self.fl_fields.setdefault(int(idx), []).append([d.name, n])

    def declare_enum(self, d: Node) -> None:
        if d.base is not None:
            base = self.resolve_type(d.base)
            vals = {}
            for m, v in zip(d.members, d.values):
                vals[m] = self.fold(self.coerce(self.expr(v, self.global_scope), base, v.loc))
            self.enums[d.name] = {"base": base, "members": vals}
        else:
            self.enums[d.name] = {"base": None, "members": {m: i for i, m in enumerate(d.members)}}

    # ---------------------------------------------------------------- build
    def build(self, main: Node) -> dict:
        t = main.type
        if t.kind != "typename" or t.name != "V1Switch":
            raise E(main.loc, "the embedded target implements the v1model architecture: "
                              "main must be a V1Switch(...)")
        if len(main.args) != 6:
            raise E(main.loc, f"V1Switch takes 6 arguments, got {len(main.args)}")
        roles = ["parser", "verify_checksum", "ingress", "egress", "compute_checksum", "deparser"]
        blocks = {}
        for role, arg in zip(roles, main.args):
            if arg.kind != "call" or arg.fn.kind != "name":
                raise E(arg.loc, f"V1Switch argument {role} must be an instantiation like Name()")
            if arg.args:
                raise E(arg.loc, "parser/control constructor arguments are not supported")
            ent = self.global_scope.lookup(arg.fn.name)
            want = "parser" if role == "parser" else "control"
            if ent is None or ent[0] != want:
                raise E(arg.loc, f"V1Switch argument {role}: {arg.fn.name} is not a {want}")
            blocks[role] = ent[1]
        ir_blocks = {}
        self.block_names = {}
        ir_blocks["parser"] = self.elab_parser(blocks["parser"])
        for role in roles[1:]:
            ir_blocks[role] = self.elab_control(blocks[role], role)
        return self.finish(ir_blocks, blocks)

    def header_bytes(self, name: str) -> int:
        return self.headers[name]["bytes"]

    # ---------------------------------------------------------------- parser
    def elab_parser(self, p: Node) -> dict:
        scope = Scope(self.global_scope)
        params = self.bind_params(p.params, scope, ["packet_in", None, None, "standard_metadata_t"],
                                  f"parser {p.name}")
        self.ctx = {"kind": "parser", "block": p.name, "scope": scope}
        locals_ = []
        for d in p.locals:
            locals_.extend(self.local_stmt(d, scope))
        states = {}
        names = {s.name for s in p.states}
        if "start" not in names:
            raise E(p.loc, f"parser {p.name} has no start state")
        for s in p.states:
            if s.name in ("accept", "reject"):
                raise E(s.loc, f"state {s.name} is reserved")
            sscope = Scope(scope)
            body = []
            for st in s.stmts:
                body.extend(self.stmt(st, sscope))
            tr = s.transition
            if tr.kind == "direct":
                if tr.to not in names and tr.to not in ("accept", "reject"):
                    raise E(tr.loc, f"unknown parser state {tr.to}")
                trans = {"kind": "direct", "to": tr.to}
            else:
                keys = [self.expr(e, sscope) for e in tr.exprs]
                for (kir, kt), e in zip(keys, tr.exprs):
                    if not (is_bits(kt) or kt[0] in ("bool", "serenum", "error", "enum")):
                        raise E(e.loc, f"select on a value of type {tstr(kt)}")
                cases = []
                for c in tr.cases:
                    if c.to not in names and c.to not in ("accept", "reject"):
                        raise E(c.loc, f"unknown parser state {c.to}")
                    ks = c.keysets
                    if len(ks) == 1 and ks[0].kind == "default":
                        ks = ks * len(keys)
                    if len(ks) != len(keys):
                        raise E(c.loc, f"select case has {len(ks)} keysets for {len(keys)} keys")
                    cases.append({"keysets": [self.keyset(k, kt, sscope) for k, (_, kt) in zip(ks, keys)],
                                  "to": c.to})
                trans = {"kind": "select", "keys": [self.as_int(k, t) for k, t in keys], "cases": cases}
            states[s.name] = {"body": body, "transition": trans}
        return {"name": p.name, "params": params, "locals": locals_, "states": states}

    def as_int(self, ir, t):
        if t[0] == "bool":
            return {"op": "cast", "a": ir, "t": ["bit", 1]}
        return ir

    def keyset(self, k: Node, kt, scope) -> dict:
        kt2 = ["bit", 1] if kt[0] == "bool" else (kt[2] if kt[0] == "serenum" else kt)
        if k.kind == "default" or k.kind == "dontcare":
            return {"k": "default"}
        if k.kind == "mask":
            v = self.fold(self.coerce(self.expr(k.value, scope), kt2, k.loc))
            m = self.fold(self.coerce(self.expr(k.mask, scope), kt2, k.loc))
            if v is None or m is None:
                raise E(k.loc, "keyset mask must be compile-time constants")
            return {"k": "mask", "v": _u(v, kt2) & _u(m, kt2), "m": _u(m, kt2)}
        if k.kind == "range":
            lo = self.fold(self.coerce(self.expr(k.lo, scope), kt2, k.loc))
            hi = self.fold(self.coerce(self.expr(k.hi, scope), kt2, k.loc))
            if lo is None or hi is None:
                raise E(k.loc, "keyset range bounds must be compile-time constants")
            return {"k": "range", "lo": lo, "hi": hi}
        ir, t = self.expr(k, scope)
        if kt[0] in ("serenum", "enum", "error", "bool") and t[0] == kt[0]:
            v = self.fold(ir)
        else:
            v = self.fold(self.coerce((ir, t), kt2, k.loc))
        if v is None:
            raise E(k.loc, "select keyset must be a compile-time constant (value_set is not supported)")
        return {"k": "value", "v": int(v)}

    # ---------------------------------------------------------------- controls
    def bind_params(self, params, scope, expected, what) -> list:
        out = []
        for i, p in enumerate(params):
            t = self.resolve_type(p.type)
            pn = "p_" + p.name
            scope.add(p.name, ("var", {"op": "var", "n": pn, "t": t}, p.direction or "in"))
            out.append({"name": p.name, "py": pn, "t": t})
        return out

    def elab_control(self, c: Node, role: str, prefix: str | None = None) -> dict:
        prefix = prefix or c.name
        sub = prefix != c.name
        scope = Scope(self.global_scope)
        params = []
        for p in c.params:
            t = self.resolve_type(p.type)
            # scalar parameters of a sub-control live in L so that its actions can write them
            pn = ("L.p_" if sub and t[0] not in ("struct", "header", "stack", "extern") else "p_") + p.name
            scope.add(p.name, ("var", {"op": "var", "n": pn, "t": t}, p.direction or "in"))
            params.append({"name": p.name, "py": pn, "t": t, "dir": p.direction or "in"})
        if not sub:
            n_expected = {"verify_checksum": 2, "compute_checksum": 2, "deparser": 2}.get(role, 3)
            if len(params) != n_expected:
                raise E(c.loc, f"control {c.name} used as {role} must have {n_expected} parameters, "
                               f"has {len(params)}")
        saved = getattr(self, "ctx", None)
        self.ctx = {"kind": "control", "block": prefix, "role": role, "scope": scope}
        locals_ = []
        for d in c.locals:
            self.ctx["ctl_local"] = True
            locals_.extend(self.local_decl(d, prefix, scope))
            self.ctx["ctl_local"] = False
        body = self.stmt(c.body, Scope(scope))
        self.ctx = saved
        return {"name": prefix, "params": params, "locals": locals_, "body": body}

    def local_decl(self, d: Node, cname: str, scope: Scope) -> list:
        k = d.kind
        if k == "action":
            q = f"{cname}.{d.name}"
            scope.add(d.name, ("action", q))
            self.declare_action(d, q, scope)
            return []
        if k == "table":
            q = self.declare_table(d, f"{cname}.{d.name}", scope)
            scope.add(d.name, ("table", q))
            return []
        if k == "instance":
            return self.declare_instance(d, cname, scope)
        return self.local_stmt(d, scope)

    def local_stmt(self, d: Node, scope) -> list:
        if d.kind == "instance":
            return self.declare_instance(d, self.ctx["block"], scope)
        return self.stmt(d, scope)

    def declare_instance(self, d: Node, cname: str, scope: Scope) -> list:
        t = d.type
        tname = t.name if t.kind == "typename" else None
        q = f"{cname}.{d.name}"
        name_anno = annotation(d.annos, "name")
        if name_anno:
            q = name_anno[1][0].lstrip(".") if name_anno[1][0].startswith(".") else f"{cname}.{name_anno[1][0]}"
        uid = annotation(d.annos, "id")
        uid = uid[1][0] if uid else None
        if tname in UNSUPPORTED_OBJECTS:
            raise E(d.loc, f"extern {tname} is not supported by the embedded target")
        if tname not in V1_OBJECTS:
            ent = self.global_scope.lookup(tname) if tname else None
            if ent and ent[0] == "control" and self.ctx.get("kind") == "control":
                if d.args or t.args:
                    raise E(d.loc, "sub-control constructor arguments are not supported")
                if not hasattr(self, "subcontrols"):
                    self.subcontrols = []
                if len(self.subcontrols) > 256:
                    raise E(d.loc, "too many sub-control instances (recursive instantiation?)")
                blk = self.elab_control(ent[1], self.ctx["role"], prefix=q)
                blk["fn"] = f"run_sub_{len(self.subcontrols)}"
                self.subcontrols.append(blk)
                scope.add(d.name, ("subcontrol", blk))
                return []
            if ent and ent[0] in ("parser", "control"):
                raise E(d.loc, "instantiating sub-parsers is not supported by the embedded target")
            raise E(d.loc, f"cannot instantiate {tname or t.kind} here")
        args = d.args
        py = "X_" + q.replace(".", "_")
        if tname in ("counter", "meter"):
            if len(args) != 2:
                raise E(d.loc, f"{tname} takes (size, type)")
            size = self.const_int(args[0], f"{tname} size", minimum=1)
            unit = self.enum_member(args[1], "CounterType" if tname == "counter" else "MeterType")
            rec = {"name": q, "py": py, "size": size, "unit": unit, "uid": uid, "annos": d.annos}
            self.objects[tname + "s"].append(rec)
            itype = self.resolve_type(t.args[0]) if t.args else ["bit", 32]
            scope.add(d.name, ("object", tname, rec, itype))
        elif tname in ("direct_counter", "direct_meter"):
            if len(args) != 1:
                raise E(d.loc, f"{tname} takes (type)")
            unit = self.enum_member(args[0], "CounterType" if tname == "direct_counter" else "MeterType")
            rec = {"name": q, "py": py, "unit": unit, "uid": uid, "table": None, "annos": d.annos}
            self.objects[tname + "s"].append(rec)
            scope.add(d.name, ("object", tname, rec, None))
        elif tname == "register":
            if len(args) != 1 or not t.args:
                raise E(d.loc, "register<T>(size) needs a type argument and a size")
            vt = self.resolve_type(t.args[0])
            if not is_bits(vt):
                raise E(t.args[0].loc, "register values must be bit<N>/int<N>")
            size = self.const_int(args[0], "register size", minimum=1)
            rec = {"name": q, "py": py, "size": size, "width": vt[1], "vt": vt, "uid": uid,
                   "annos": d.annos}
            self.objects["registers"].append(rec)
            itype = self.resolve_type(t.args[1]) if len(t.args) > 1 else ["bit", 32]
            scope.add(d.name, ("object", "register", rec, itype))
        return []

    def enum_member(self, n: Node, enum: str) -> str:
        if n.kind == "member" and n.base.kind == "name" and n.base.name == enum:
            if n.name not in self.enums[enum]["members"]:
                raise E(n.loc, f"{enum} has no member {n.name}")
            return n.name
        raise E(n.loc, f"expected a {enum} member")

    # ---------------------------------------------------------------- actions, functions
    def declare_action(self, d: Node, q: str, scope: Scope) -> None:
        name_anno = annotation(d.annos, "name")
        if name_anno:
            nm = name_anno[1][0]
            q = nm[1:] if nm.startswith(".") else (q.rsplit(".", 1)[0] + "." + nm if "." in q else nm)
        if q in self.actions:
            raise E(d.loc, f"action {q} declared twice")
        ascope = Scope(scope)
        params = []
        seen_plain = False
        for i, p in enumerate(d.params):
            t = self.resolve_type(p.type)
            py = f"a{len(self.actions)}_{p.name}"
            if p.direction is None:
                seen_plain = True
                if t[0] == "serenum":
                    t = t[2]
                if t[0] == "bool":
                    t = ["bit", 1]
                if not is_bits(t):
                    raise E(p.loc, f"action parameter {p.name} of type {tstr(t)}: control-plane "
                                   "parameters must be bit<N>")
            elif seen_plain:
                raise E(p.loc, "directional action parameters must come before directionless ones")
            ascope.add(p.name, ("var", {"op": "var", "n": py, "t": t}, p.direction or "in"))
            params.append({"name": p.name, "py": py, "t": t, "dir": p.direction})
        ctl = self.ctx.get("block") if getattr(self, "ctx", None) and self.ctx.get("kind") == "control" else None
        rec = {"name": q, "params": params, "body": None, "annos": d.annos, "control": ctl,
               "uid": (annotation(d.annos, "id") or (None, [None]))[1][0], "used": False}
        self.actions[q] = rec
        # bind the scope name to the qualified (possibly @name'd) action
        if scope is not self.global_scope or q == d.name:
            pass
        scope.add(d.name, ("action", q))
        saved = getattr(self, "ctx", None)
        self.ctx = dict(saved or {}, in_action=q, ctl_local=False)
        rec["body"] = self.stmt(d.body, ascope)
        self.ctx = saved

    def declare_function(self, d: Node) -> None:
        if d.tparams:
            raise E(d.loc, "generic functions are not supported by the embedded target")
        fscope = Scope(self.global_scope)
        params = []
        for p in d.params:
            t = self.resolve_type(p.type)
            py = f"f_{d.name}_{p.name}"
            fscope.add(p.name, ("var", {"op": "var", "n": py, "t": t}, p.direction or "in"))
            params.append({"name": p.name, "py": py, "t": t, "dir": p.direction or "in"})
        ret = self.resolve_type(d.ret)
        rec = {"name": d.name, "py": "F_" + d.name, "params": params, "ret": ret, "body": None}
        self.functions[d.name] = rec
        self.global_scope.add(d.name, ("function", rec))
        saved = getattr(self, "ctx", None)
        self.ctx = {"kind": "function", "block": d.name, "ret": ret, "scope": fscope}
        rec["body"] = self.stmt(d.body, fscope)
        self.ctx = saved

    # ---------------------------------------------------------------- tables
    def declare_table(self, d: Node, q: str, scope: Scope) -> None:
        name_anno = annotation(d.annos, "name")
        if name_anno:
            nm = name_anno[1][0]
            q = nm[1:] if nm.startswith(".") else q.rsplit(".", 1)[0] + "." + nm
        props = d.props
        for pn, pv in props.items():
            if pn not in ("key", "actions", "default_action", "size", "entries", "counters",
                          "meters", "support_timeout", "implementation", "max_group_size"):
                raise E(pv.loc if isinstance(pv, Node) else d.loc, f"table {q}: unknown property {pn}")
        if "implementation" in props:
            raise E(props["implementation"].loc, "action profiles/selectors (implementation) are not "
                                                 "supported by the embedded target")
        keys = []
        for k in props.get("key", []):
            ir, t = self.expr(k.expr, scope)
            if k.match not in ("exact", "lpm", "ternary", "range", "optional"):
                raise E(k.match_loc, f"unsupported match kind {k.match}")
            if t[0] == "bool":
                ir, t = {"op": "cast", "a": ir, "t": ["bit", 1]}, ["bit", 1]
            elif t[0] == "serenum":
                t = t[2]
            elif not is_bits(t):
                raise E(k.expr.loc, f"table key of type {tstr(t)}")
            na = annotation(k.annos, "name")
            kname = na[1][0] if na else expr_text(k.expr)
            keys.append({"name": kname, "match": k.match, "width": t[1], "expr": ir,
                         "id": len(keys) + 1, "annos": k.annos})
        if sum(1 for k in keys if k["match"] == "lpm") > 1:
            raise E(d.loc, f"table {q}: more than one lpm key")
        acts = []
        for a in props.get("actions", []):
            ent = scope.lookup(a.name)
            if ent is None or ent[0] != "action":
                raise E(a.loc, f"table {q}: unknown action {a.name}")
            arec = self.actions[ent[1]]
            arec["used"] = True
            scope_ = "TABLE_AND_DEFAULT"
            if annotation(a.annos, "defaultonly"):
                scope_ = "DEFAULT_ONLY"
            elif annotation(a.annos, "tableonly"):
                scope_ = "TABLE_ONLY"
            dparams = [p for p in arec["params"] if p["dir"]]
            if len(a.args) != len(dparams):
                raise E(a.loc, f"table {q}: action {a.name} needs {len(dparams)} bound argument(s) "
                               f"for its directional parameters, got {len(a.args)}")
            bound = []
            for arg, p in zip(a.args, dparams):
                if p["dir"] in ("out", "inout"):
                    lv, lt = self.lvalue(arg, scope)
                    if lt != p["t"]:
                        raise E(arg.loc, f"bound argument for {p['name']} has type {tstr(lt)}, "
                                         f"expected {tstr(p['t'])}")
                    bound.append({"dir": p["dir"], "e": lv})
                else:
                    bound.append({"dir": "in", "e": self.coerce(self.expr(arg, scope), p["t"], arg.loc)})
            acts.append({"name": ent[1], "scope": scope_, "annos": a.annos, "bound": bound})
        anames = [a["name"] for a in acts]
        da = props.get("default_action")
        if da is not None:
            dname, dparams = self.action_call(da.expr, scope, f"table {q} default_action")
            if dname not in anames:
                raise E(da.loc, f"table {q}: default action {dname} is not in the actions list")
            default = {"action": dname, "params": dparams, "const": bool(da.const)}
        else:
            # p4c: a table without default_action gets NoAction, added to its actions as
            # @defaultonly when it is not listed
            if "NoAction" not in self.actions:
                raise E(d.loc, f"table {q} has no default_action and NoAction is not declared")
            self.actions["NoAction"]["used"] = True
            default = {"action": "NoAction", "params": [], "const": False}
            if "NoAction" not in anames:
                acts.append({"name": "NoAction", "scope": "DEFAULT_ONLY", "annos": [], "bound": []})
                anames.append("NoAction")
        size = 1024
        if "size" in props:
            size = self.const_int(props["size"].value, f"table {q} size", minimum=1)
        entries = []
        ent_node = props.get("entries")
        if ent_node is not None:
            n = len(ent_node.entries)
            for i, en in enumerate(ent_node.entries):
                ks = en.keysets
                if len(ks) != len(keys):
                    raise E(en.loc, f"table {q}: entry has {len(ks)} keys, table has {len(keys)}")
                matches = []
                for kn, kdef in zip(ks, keys):
                    m = self.entry_match(kn, kdef, scope, q)
                    if m is not None:
                        matches.append(m)
                aname, aparams = self.action_call(en.action, scope, f"table {q} entry")
                if aname not in anames:
                    raise E(en.loc, f"table {q}: entry action {aname} is not in the actions list")
                needs_prio = any(k["match"] in ("ternary", "range", "optional") for k in keys)
                prio = 0
                if needs_prio:
                    prio = (self.const_int(en.priority, "entry priority", minimum=1)
                            if en.priority is not None else n - i)
                entries.append({"matches": matches, "action": aname, "params": aparams,
                                "priority": prio})
        dc = props.get("counters")
        dm = props.get("meters")
        rec = {"name": q, "keys": keys, "actions": acts, "default": default, "size": size,
               "control": self.ctx["block"],
               "const_entries": entries, "is_const": ent_node is not None and bool(ent_node.const),
               "direct_counter": None, "direct_meter": None,
               "annos": d.annos, "uid": (annotation(d.annos, "id") or (None, [None]))[1][0],
               "support_timeout": "support_timeout" in props}
        for prop, kind in ((dc, "direct_counter"), (dm, "direct_meter")):
            if prop is None:
                continue
            if prop.value.kind != "name" or not scope.lookup(prop.value.name) or \
                    scope.lookup(prop.value.name)[1] != kind:
                raise E(prop.loc, f"table {q}: {prop.name} must name a {kind}")
            orec = scope.lookup(prop.value.name)[2]
            if orec["table"] is not None:
                raise E(prop.loc, f"{kind} {orec['name']} is already attached to table {orec['table']}")
            orec["table"] = q
            rec[kind] = orec["name"]
        if q in self.tables:
            raise E(d.loc, f"table {q} declared twice")
        self.tables[q] = rec
        return q

    def entry_match(self, kn: Node, kdef: dict, scope, q):
        w = kdef["width"]
        t = ["bit", w]
        kind = kdef["match"]
        if kn.kind in ("default", "dontcare"):
            if kind == "exact":
                raise E(kn.loc, f"table {q}: exact key {kdef['name']} cannot be a wildcard")
            return None
        ks = self.keyset(kn, t, scope)
        if ks["k"] == "value":
            v = ks["v"] & ((1 << w) - 1)
            if kind == "lpm":
                return {"id": kdef["id"], "kind": "lpm", "value": v, "prefix_len": w}
            if kind == "ternary":
                return {"id": kdef["id"], "kind": "ternary", "value": v, "mask": (1 << w) - 1}
            if kind == "range":
                return {"id": kdef["id"], "kind": "range", "value": v, "high": v}
            return {"id": kdef["id"], "kind": kind, "value": v}
        if ks["k"] == "mask":
            if kind == "ternary":
                return {"id": kdef["id"], "kind": "ternary", "value": ks["v"], "mask": ks["m"]}
            if kind == "lpm":
                m = ks["m"]
                plen = bin(m).count("1")
                if m != ((1 << plen) - 1) << (w - plen):
                    raise E(kn.loc, f"table {q}: lpm mask {m:#x} is not a prefix")
                return {"id": kdef["id"], "kind": "lpm", "value": ks["v"], "prefix_len": plen}
            raise E(kn.loc, f"table {q}: a mask on a {kind} key")
        if ks["k"] == "range":
            if kind != "range":
                raise E(kn.loc, f"table {q}: a range on a {kind} key")
            return {"id": kdef["id"], "kind": "range", "value": ks["lo"], "high": ks["hi"]}
        return None

    def action_call(self, e: Node, scope, what: str):
        if e.kind == "name":
            e = Node("call", e.loc, fn=e, targs=[], args=[])
        if e.kind != "call" or e.fn.kind != "name":
            raise E(e.loc, f"{what}: expected an action call")
        ent = scope.lookup(e.fn.name)
        if ent is None or ent[0] != "action":
            raise E(e.fn.loc, f"{what}: unknown action {e.fn.name}")
        a = self.actions[ent[1]]
        a["used"] = True
        if len(e.args) != len(a["params"]):
            raise E(e.loc, f"{what}: action {a['name']} takes {len(a['params'])} argument(s), "
                           f"got {len(e.args)}")
        vals = []
        for arg, p in zip(e.args, a["params"]):
            if p["dir"]:
                continue  # directional: bound in the table's actions list
            v = self.fold(self.coerce(self.expr(arg, scope), p["t"], arg.loc))
            if v is None:
                raise E(arg.loc, f"{what}: action argument must be a compile-time constant")
            vals.append(_u(v, p["t"]))
        return ent[1], vals

    # ---------------------------------------------------------------- statements
    def stmt(self, s: Node, scope: Scope) -> list:
        k = s.kind
        if k == "block":
            inner = Scope(scope)
            out = []
            for x in s.stmts:
                out.extend(self.stmt(x, inner))
            return [{"s": "block", "body": out}] if out else []
        if k == "empty":
            return []
        if k == "var":
            t = self.resolve_type(s.type)
            if t[0] == "varbit":
                raise E(s.loc, "varbit local variables are not supported by the embedded target")
            self.tmp += 1
            py = f"v{self.tmp}_{s.name}"
            if self.ctx.get("ctl_local"):
                py = "L." + py
            init = None
            if s.init is not None:
                init = self.coerce(self.expr(s.init, scope), t, s.init.loc)
            scope.add(s.name, ("var", {"op": "var", "n": py, "t": t}, "inout"))
            return [{"s": "decl", "n": py, "t": t, "init": init}]
        if k == "const":
            t = self.resolve_type(s.type)
            ir = self.coerce(self.expr(s.value, scope), t, s.value.loc)
            v = self.fold(ir)
            if v is None:
                raise E(s.value.loc, f"constant {s.name} is not a compile-time constant")
            scope.add(s.name, ("const", {"op": "const", "v": v, "t": t}))
            return []
        if k == "assign":
            lhs, lt = self.lvalue(s.lhs, scope)
            rhs = self.coerce(self.expr(s.rhs, scope), lt, s.rhs.loc)
            if lt[0] == "varbit" and (rhs["op"] != "field" or lhs["op"] != "field"):
                raise E(s.loc, "varbit values can only be copied from one header field to another")
            return [{"s": "assign", "l": lhs, "r": rhs}]
        if k == "if":
            c = self.coerce(self.expr(s.cond, scope), BOOL, s.cond.loc)
            then = self.stmt(s.then, Scope(scope))
            els = self.stmt(s.els, Scope(scope)) if s.els is not None else []
            return [{"s": "if", "c": c, "then": then, "else": els}]
        if k == "exit":
            if self.ctx.get("kind") == "parser":
                raise E(s.loc, "exit is not allowed in a parser")
            return [{"s": "exit"}]
        if k == "return":
            if self.ctx.get("kind") == "function":
                ret = self.ctx["ret"]
                v = None
                if s.value is not None:
                    v = self.coerce(self.expr(s.value, scope), ret, s.value.loc)
                elif ret != VOID:
                    raise E(s.loc, "function must return a value")
                return [{"s": "return", "v": v}]
            if s.value is not None:
                raise E(s.loc, "return with a value outside a function")
            return [{"s": "return", "v": None, "in_action": bool(self.ctx.get("in_action"))}]
        if k == "switch":
            return [self.switch_stmt(s, scope)]
        if k == "call_stmt":
            return self.call_stmt(s.call, scope)
        if k == "instance":
            raise E(s.loc, "instantiation inside a block is not supported")
        raise E(s.loc, f"unsupported statement {k}")

    def switch_stmt(self, s: Node, scope) -> dict:
        e = s.expr
        if e.kind == "member" and e.name == "action_run" and e.base.kind == "call" and \
                e.base.fn.kind == "member" and e.base.fn.name == "apply":
            tname = self.table_ref(e.base.fn.base, scope)
            tab = self.tables[tname]
            anames = {a["name"] for a in tab["actions"]}
            cases = []
            pending: list = []
            seen = set()
            for c in s.cases:
                if c.label is None:
                    label = "default"
                else:
                    if c.label.kind != "name":
                        raise E(c.label.loc, "switch case must be an action name")
                    ent = scope.lookup(c.label.name)
                    if ent is None or ent[0] != "action" or ent[1] not in anames:
                        raise E(c.label.loc, f"{c.label.name} is not an action of table {tname}")
                    label = ent[1]
                    if label in seen:
                        raise E(c.label.loc, f"duplicate switch case {c.label.name}")
                    seen.add(label)
                pending.append(label)
                if c.body is not None:
                    cases.append({"labels": pending, "body": self.stmt(c.body, Scope(scope))})
                    pending = []
            if pending:
                cases.append({"labels": pending, "body": []})
            return {"s": "switch_action", "table": tname, "cases": cases}
        ir, t = self.expr(e, scope)
        if not (is_bits(t) or t[0] in ("enum", "serenum", "error")):
            raise E(e.loc, f"switch on a value of type {tstr(t)}")
        cases, pending = [], []
        for c in s.cases:
            if c.label is None:
                pending.append("default")
            else:
                v = self.fold(self.coerce(self.expr(c.label, scope), t, c.label.loc))
                if v is None:
                    raise E(c.label.loc, "switch label must be a compile-time constant")
                pending.append(v)
            if c.body is not None:
                cases.append({"labels": pending, "body": self.stmt(c.body, Scope(scope))})
                pending = []
        if pending:
            cases.append({"labels": pending, "body": []})
        return {"s": "switch_value", "e": ir, "cases": cases}

    def table_ref(self, n: Node, scope) -> str:
        if n.kind != "name":
            raise E(n.loc, "expected a table name")
        ent = scope.lookup(n.name)
        if ent is None or ent[0] != "table":
            raise E(n.loc, f"{n.name} is not a table")
        return ent[1]

    # calls as statements -------------------------------------------------------------
    def call_stmt(self, call: Node, scope) -> list:
        fn = call.fn
        if fn.kind == "member":
            base, m = fn.base, fn.name
            # table.apply()
            if m == "apply" and base.kind == "name":
                ent = scope.lookup(base.name)
                if ent and ent[0] == "table":
                    return [{"s": "apply", "table": ent[1]}]
                if ent and ent[0] == "subcontrol":
                    return [self.apply_subcontrol(ent[1], call, scope)]
            bent = scope.lookup(base.name) if base.kind == "name" else None
            if bent and bent[0] == "object":
                return [self.object_call(bent, m, call, scope)]
            # packet_in / packet_out methods
            if bent and bent[0] == "var" and bent[1]["t"][0] == "extern":
                ext = bent[1]["t"][1]
                if ext == "packet_in":
                    return [self.packet_in_call(m, call, scope)]
                if ext == "packet_out":
                    if m != "emit" or len(call.args) != 1:
                        raise E(call.loc, "packet_out supports emit(hdr)")
                    ir, t = self.expr(call.args[0], scope)
                    return self.emit_stmts(ir, t, call.args[0].loc)
                raise E(call.loc, f"unknown method {ext}.{m}")
            ir, t = self.expr(base, scope)
            if t[0] == "header" and m in ("setValid", "setInvalid"):
                if call.args:
                    raise E(call.loc, f"{m}() takes no arguments")
                self.check_lvalue(base, scope)
                return [{"s": "setvalid", "h": ir, "v": m == "setValid",
                         "bytes": self.headers[t[1]]["bytes"]}]
            if t[0] == "stack" and m in ("push_front", "pop_front"):
                if len(call.args) != 1:
                    raise E(call.loc, f"{m}(count) takes one argument")
                n = self.const_int(call.args[0], f"{m} count", minimum=0)
                return [{"s": m, "st": ir, "count": n}]
            if t[0] == "header" and m == "isValid":
                return []
            raise E(fn.loc, f"unknown method {m} on a value of type {tstr(t)}")
        if fn.kind == "name":
            ent = scope.lookup(fn.name)
            if ent is not None and ent[0] == "action":
                return [self.direct_action(ent[1], call, scope)]
            if ent is not None and ent[0] == "function":
                f = ent[1]
                if any(p["dir"] in ("out", "inout") for p in f["params"]):
                    return [self.call_function_stmt(f, call, scope)]
                ir, t = self.call_function(f, call, scope)
                return [{"s": "eval", "e": ir}]
            if fn.name in V1_EXTERN_FUNCS:
                return self.extern_call(fn.name, call, scope)
            if fn.name in self.externs:
                raise E(call.loc, f"extern function {fn.name} is not implemented by the embedded target")
            raise E(fn.loc, f"unknown function or action {fn.name}")
        raise E(call.loc, "unsupported call")

    def apply_subcontrol(self, blk: dict, call: Node, scope) -> dict:
        if len(call.args) != len(blk["params"]):
            raise E(call.loc, f"{blk['name']}.apply takes {len(blk['params'])} argument(s), "
                              f"got {len(call.args)}")
        args = []
        for arg, p in zip(call.args, blk["params"]):
            if p["dir"] in ("out", "inout"):
                lv, lt = self.lvalue(arg, scope)
                if lt != p["t"]:
                    raise E(arg.loc, f"argument for {p['dir']} parameter {p['name']} has type "
                                     f"{tstr(lt)}, expected {tstr(p['t'])}")
                args.append({"dir": p["dir"], "e": lv, "py": p["py"]})
            else:
                args.append({"dir": "in", "e": self.coerce(self.expr(arg, scope), p["t"], arg.loc),
                             "py": p["py"]})
        return {"s": "apply_control", "fn": blk["fn"], "args": args}

    def direct_action(self, q: str, call: Node, scope) -> dict:
        a = self.actions[q]
        a["used"] = True
        if len(call.args) != len(a["params"]):
            raise E(call.loc, f"action {q} takes {len(a['params'])} argument(s), got {len(call.args)}")
        args = []
        for arg, p in zip(call.args, a["params"]):
            if p["dir"] in ("out", "inout"):
                lv, lt = self.lvalue(arg, scope)
                if lt != p["t"]:
                    raise E(arg.loc, f"argument for {p['dir']} parameter {p['name']} has type "
                                     f"{tstr(lt)}, expected {tstr(p['t'])}")
                args.append({"dir": p["dir"], "e": lv})
            else:
                args.append({"dir": "in", "e": self.coerce(self.expr(arg, scope), p["t"], arg.loc)})
        return {"s": "call_action", "action": q, "args": args}

    def call_function_stmt(self, f: dict, call: Node, scope) -> dict:
        if len(call.args) != len(f["params"]):
            raise E(call.loc, f"function {f['name']} takes {len(f['params'])} argument(s)")
        args = []
        for arg, p in zip(call.args, f["params"]):
            if p["dir"] in ("out", "inout"):
                lv, lt = self.lvalue(arg, scope)
                if lt != p["t"]:
                    raise E(arg.loc, f"argument for {p['dir']} parameter {p['name']} has type "
                                     f"{tstr(lt)}, expected {tstr(p['t'])}")
                args.append({"dir": p["dir"], "e": lv, "t": p["t"]})
            else:
                args.append({"dir": "in", "e": self.coerce(self.expr(arg, scope), p["t"], arg.loc),
                             "t": p["t"]})
        return {"s": "call_fn", "fn": f["py"], "args": args}

    def call_function(self, f: dict, call: Node, scope):
        if len(call.args) != len(f["params"]):
            raise E(call.loc, f"function {f['name']} takes {len(f['params'])} argument(s)")
        if any(p["dir"] in ("out", "inout") for p in f["params"]):
            raise E(call.loc, f"function {f['name']} has out/inout parameters: call it as a "
                              "statement")
        args = [self.coerce(self.expr(a, scope), p["t"], a.loc) for a, p in zip(call.args, f["params"])]
        return {"op": "call_fn", "fn": f["py"], "args": args, "t": f["ret"]}, f["ret"]

    def packet_in_call(self, m: str, call: Node, scope) -> dict:
        if m == "extract":
            if len(call.args) not in (1, 2):
                raise E(call.loc, "extract takes a header (and a varbit size in bits)")
            a = call.args[0]
            if len(call.args) == 2:
                ir, t = self.lvalue(a, scope)
                if t[0] != "header" or not self.headers[t[1]].get("varbit"):
                    raise E(a.loc, "two-argument extract needs a header with a varbit field")
                bits = self.coerce(self.expr(call.args[1], scope), ["bit", 32], call.args[1].loc)
                return {"s": "extract_var", "h": ir, "hdr": t[1], "bits": bits}
            if a.kind == "member" and a.name == "next":
                ir, t = self.expr(a.base, scope)
                if t[0] != "stack":
                    raise E(a.loc, ".next on a non-stack")
                return {"s": "extract_next", "st": ir, "hdr": t[1], "size": t[2]}
            ir, t = self.lvalue(a, scope)
            if t[0] != "header":
                raise E(a.loc, f"extract into a value of type {tstr(t)}, expected a header")
            if self.headers[t[1]].get("varbit"):
                raise E(call.loc, f"header {t[1]} has a varbit field: extract it with "
                                  "extract(hdr, size_in_bits)")
            return {"s": "extract", "h": ir, "hdr": t[1]}
        if m == "advance":
            if len(call.args) != 1:
                raise E(call.loc, "advance(bits) takes one argument")
            return {"s": "advance", "bits": self.coerce(self.expr(call.args[0], scope), ["bit", 32],
                                                        call.args[0].loc)}
        raise E(call.loc, f"packet_in.{m} cannot be used as a statement")

    def emit_stmts(self, ir, t, loc) -> list:
        if t[0] == "header":
            return [{"s": "emit", "h": ir, "hdr": t[1]}]
        if t[0] == "stack":
            return [{"s": "emit_stack", "st": ir, "hdr": t[1], "size": t[2]}]
        if t[0] == "struct":
            out = []
            for fname, ft in self.structs[t[1]]["fields"]:
                out.extend(self.emit_stmts({"op": "field", "base": ir, "f": pyname(fname), "t": ft}, ft, loc))
            return out
        raise E(loc, f"emit of a value of type {tstr(t)}")

    def object_call(self, ent, m: str, call: Node, scope) -> dict:
        _, kind, rec, itype = ent
        args = call.args
        if kind == "counter" and m == "count":
            if len(args) != 1:
                raise E(call.loc, "counter.count(index) takes one argument")
            return {"s": "counter", "obj": rec["py"], "i": self.index_expr(args[0], scope)}
        if kind == "direct_counter" and m == "count":
            return {"s": "nop"}
        if kind == "register" and m == "read":
            if len(args) != 2:
                raise E(call.loc, "register.read(result, index) takes two arguments")
            lv, lt = self.lvalue(args[0], scope)
            if lt != rec["vt"]:
                raise E(args[0].loc, f"register {rec['name']} holds {tstr(rec['vt'])}, "
                                     f"result is {tstr(lt)}")
            return {"s": "reg_read", "obj": rec["py"], "l": lv, "i": self.index_expr(args[1], scope),
                    "t": lt}
        if kind == "register" and m == "write":
            if len(args) != 2:
                raise E(call.loc, "register.write(index, value) takes two arguments")
            v = self.coerce(self.expr(args[1], scope), rec["vt"], args[1].loc)
            return {"s": "reg_write", "obj": rec["py"], "i": self.index_expr(args[0], scope), "v": v,
                    "t": rec["vt"]}
        if kind == "meter" and m == "execute_meter":
            if len(args) != 2:
                raise E(call.loc, "meter.execute_meter(index, result) takes two arguments")
            lv, lt = self.lvalue(args[1], scope)
            if not is_bits(lt):
                raise E(args[1].loc, "meter result must be bit<N>")
            return {"s": "meter", "obj": rec["py"], "i": self.index_expr(args[0], scope), "l": lv, "t": lt}
        if kind == "direct_meter" and m == "read":
            if len(args) != 1:
                raise E(call.loc, "direct_meter.read(result) takes one argument")
            lv, lt = self.lvalue(args[0], scope)
            return {"s": "direct_meter_read", "obj": rec["name"], "l": lv, "t": lt}
        raise E(call.loc, f"{kind} has no method {m}")

    def index_expr(self, n: Node, scope):
        ir, t = self.expr(n, scope)
        if t == INTLIT:
            return self.coerce((ir, t), ["bit", 32], n.loc)
        if not is_bits(t):
            raise E(n.loc, f"index of type {tstr(t)}")
        return ir

    def flat_list(self, n: Node, scope, what: str):
        """A field list (list expression, struct or header value) -> [(ir, width)]."""
        if n.kind == "list":
            out = []
            for it in n.items:
                out.extend(self.flat_list(it, scope, what))
            return out
        ir, t = self.expr(n, scope)
        return self.flatten_value(ir, t, n.loc, what)

    def flatten_value(self, ir, t, loc, what):
        if is_bits(t):
            return [(ir, t[1])]
        if t[0] == "bool":
            return [({"op": "cast", "a": ir, "t": ["bit", 1]}, 1)]
        if t[0] == "serenum":
            return [(ir, t[2][1])]
        if t[0] == "header":
            h = self.headers[t[1]]
            return [({"op": "field", "base": ir, "f": pyname(f),
                      "t": ["varbit", w] if f == h.get("varbit") else ["int" if s else "bit", w]},
                     None if f == h.get("varbit") else w)
                    for f, w, s in h["fields"]]
        if t[0] == "varbit":
            return [(ir, None)]
        if t[0] == "struct":
            out = []
            for f, ft in self.structs[t[1]]["fields"]:
                out.extend(self.flatten_value({"op": "field", "base": ir, "f": pyname(f), "t": ft}, ft, loc, what))
            return out
        if t == INTLIT:
            raise E(loc, f"{what}: an untyped integer in a field list needs a width (e.g. 8w1)")
        raise E(loc, f"{what}: a value of type {tstr(t)} cannot be in a field list")

    def extern_call(self, name: str, call: Node, scope) -> list:
        args = call.args
        loc = call.loc

        def nargs(n):
            if len(args) != n:
                raise E(loc, f"{name} takes {n} argument(s), got {len(args)}")
        if name == "mark_to_drop":
            nargs(1)
            lv, t = self.lvalue(args[0], scope)
            if t != ["struct", "standard_metadata_t"]:
                raise E(args[0].loc, "mark_to_drop takes the standard_metadata")
            return [{"s": "mark_to_drop", "sm": lv}]
        if name == "verify":
            nargs(2)
            if self.ctx.get("kind") != "parser":
                raise E(loc, "verify is only allowed in a parser")
            c = self.coerce(self.expr(args[0], scope), BOOL, args[0].loc)
            e = self.coerce(self.expr(args[1], scope), ERROR, args[1].loc)
            return [{"s": "verify", "c": c, "e": e}]
        if name == "random":
            nargs(3)
            lv, t = self.lvalue(args[0], scope)
            if not is_bits(t):
                raise E(args[0].loc, "random result must be bit<N>")
            lo = self.coerce(self.expr(args[1], scope), t, args[1].loc)
            hi = self.coerce(self.expr(args[2], scope), t, args[2].loc)
            return [{"s": "random", "l": lv, "lo": lo, "hi": hi, "t": t}]
        if name == "digest":
            nargs(2)
            if self.ctx.get("role") != "ingress":
                raise E(loc, "digest is only supported in the ingress control")
            recv = self.expr(args[0], scope)
            if call.targs:
                dt = self.resolve_type(call.targs[0])
            else:
                _, dt = self.expr(args[1], scope) if args[1].kind != "list" else (None, None)
            if dt is None or dt[0] != "struct":
                raise E(args[1].loc, "digest data must be a struct (give the type: digest<T>(...))")
            fields = self.structs[dt[1]]["fields"]
            if args[1].kind == "list":
                if len(args[1].items) != len(fields):
                    raise E(args[1].loc, f"digest {dt[1]} has {len(fields)} fields, list has "
                                         f"{len(args[1].items)}")
                items = [self.coerce(self.expr(it, scope), ft, it.loc)
                         for it, (fn, ft) in zip(args[1].items, fields)]
            else:
                ir, t = self.expr(args[1], scope)
                if t != dt:
                    raise E(args[1].loc, f"digest data has type {tstr(t)}, expected {dt[1]}")
                items = [{"op": "field", "base": ir, "f": pyname(fn), "t": ft} for fn, ft in fields]
            for (fn, ft), it in zip(fields, items):
                if not (is_bits(ft) or ft[0] in ("bool", "serenum")):
                    raise E(args[1].loc, f"digest field {fn} of type {tstr(ft)} is not supported")
            self.digests.setdefault(dt[1], {"name": dt[1], "fields": [[fn, ft] for fn, ft in fields]})
            # BMv2 reads the fields of an l-value argument when ingress ends (the digest
            # primitive only records which field list to send); a list expression is
            # copied into temporaries by p4c, i.e. its values are those of the call.
            return [{"s": "digest", "name": dt[1], "items": items, "late": args[1].kind != "list"}]
        if name == "hash":
            nargs(5)
            lv, t = self.lvalue(args[0], scope)
            if not is_bits(t):
                raise E(args[0].loc, "hash result must be bit<N>")
            algo = self.enum_member(args[1], "HashAlgorithm")
            if algo not in ("crc32", "crc16", "csum16", "identity", "xor16"):
                raise E(args[1].loc, f"hash algorithm {algo} is not supported by the embedded target")
            base = self.expr(args[2], scope)
            bt = base[1] if is_bits(base[1]) else ["bit", 32]
            base = self.coerce(base, bt, args[2].loc)
            mx = self.expr(args[4], scope)
            mt = mx[1] if is_bits(mx[1]) else ["bit", 32]
            mx = self.coerce(mx, mt, args[4].loc)
            data = self.flat_list(args[3], scope, "hash data")
            return [{"s": "hash", "l": lv, "t": t, "algo": algo, "base": base, "max": mx,
                     "data": [[d, w] for d, w in data]}]
        if name in ("verify_checksum", "update_checksum", "verify_checksum_with_payload",
                    "update_checksum_with_payload"):
            nargs(4)
            if name.endswith("_with_payload"):
                raise E(loc, f"{name} is not supported by the embedded target")
            role = self.ctx.get("role")
            want = "verify_checksum" if name.startswith("verify") else "compute_checksum"
            if role != want:
                raise E(loc, f"{name} belongs in the {want.replace('_', ' ')} control")
            c = self.coerce(self.expr(args[0], scope), BOOL, args[0].loc)
            data = self.flat_list(args[1], scope, f"{name} data")
            algo = self.enum_member(args[3], "HashAlgorithm")
            if algo not in ("csum16", "crc16", "crc32", "identity", "xor16"):
                raise E(args[3].loc, f"checksum algorithm {algo} is not supported")
            if name.startswith("verify"):
                ck, ct = self.expr(args[2], scope)
                return [{"s": "verify_checksum", "c": c, "data": [[d, w] for d, w in data],
                         "ck": ck, "t": ct, "algo": algo}]
            lv, lt = self.lvalue(args[2], scope)
            if not is_bits(lt):
                raise E(args[2].loc, "checksum field must be bit<N>")
            return [{"s": "update_checksum", "c": c, "data": [[d, w] for d, w in data],
                     "l": lv, "t": lt, "algo": algo}]
        if name in ("clone", "clone3", "clone_preserving_field_list"):
            role = self.ctx.get("role")
            if role not in ("ingress", "egress"):
                raise E(loc, f"{name} is only allowed in ingress or egress")
            ctype = self.enum_member(args[0], "CloneType") if args else None
            if name == "clone":
                nargs(2)
                fl = 0
            elif name == "clone3":
                raise E(loc, "clone3 is deprecated; use clone_preserving_field_list")
            else:
                nargs(3)
                fl = self.const_int(args[2], "field list index", minimum=0)
            sess = self.coerce(self.expr(args[1], scope), ["bit", 32], args[1].loc)
            return [{"s": "clone", "session": sess, "fl": fl, "type": ctype}]
        if name in ("resubmit_preserving_field_list", "recirculate_preserving_field_list"):
            nargs(1)
            fl = self.const_int(args[0], "field list index", minimum=0)
            role = self.ctx.get("role")
            kind = "resubmit" if name.startswith("resubmit") else "recirculate"
            if kind == "resubmit" and role != "ingress":
                raise E(loc, "resubmit is only allowed in ingress")
            if kind == "recirculate" and role != "egress":
                raise E(loc, "recirculate is only allowed in egress")
            return [{"s": kind, "fl": fl}]
        if name in ("resubmit", "recirculate"):
            raise E(loc, f"{name}(data) is deprecated; use {name}_preserving_field_list(index)")
        if name == "truncate":
            nargs(1)
            return [{"s": "truncate", "n": self.coerce(self.expr(args[0], scope), ["bit", 32], args[0].loc)}]
        if name in ("assert", "assume"):
            nargs(1)
            return [{"s": "assert", "c": self.coerce(self.expr(args[0], scope), BOOL, args[0].loc),
                     "where": str(loc)}]
        if name == "log_msg":
            if not args or args[0].kind != "str":
                raise E(loc, "log_msg needs a string literal")
            data = self.flat_list(args[1], scope, "log_msg data") if len(args) > 1 else []
            return [{"s": "log", "msg": args[0].value, "data": [d for d, _ in data]}]
        raise E(loc, f"extern {name} is not supported")

    # ---------------------------------------------------------------- expressions
    def check_lvalue(self, n: Node, scope) -> None:
        self.lvalue(n, scope)

    def lvalue(self, n: Node, scope):
        k = n.kind
        if k == "name":
            ent = scope.lookup(n.name)
            if ent is None:
                raise E(n.loc, f"unknown name {n.name}")
            if ent[0] != "var":
                raise E(n.loc, f"{n.name} cannot be assigned")
            if ent[2] == "in" and ent[1]["t"][0] not in ("struct", "header", "stack"):
                raise E(n.loc, f"cannot assign to 'in' parameter {n.name}")
            return ent[1], ent[1]["t"]
        if k == "member":
            if n.name in ("next", "last"):
                ir, t = self.expr(n, scope)
                return ir, t
            base, bt = self.lvalue(n.base, scope)
            return self.member_of(base, bt, n)
        if k == "index":
            base, bt = self.lvalue(n.base, scope)
            return self.index_of(base, bt, n, scope)
        if k == "slice":
            base, bt = self.lvalue(n.a, scope)
            ir, t = self.slice_of(base, bt, n, scope)
            return ir, t
        raise E(n.loc, "expression cannot be assigned to")

    def member_of(self, base, bt, n: Node):
        if bt[0] == "header":
            h = self.headers[bt[1]]
            for f, w, s in h["fields"]:
                if f == n.name:
                    ft = ["varbit", w] if f == h.get("varbit") else ["int" if s else "bit", w]
                    return {"op": "field", "base": base, "f": pyname(f), "t": ft}, ft
            raise E(n.get("name_loc", n.loc), f"header {bt[1]} has no field {n.name}")
        if bt[0] == "struct":
            for f, ft in self.structs[bt[1]]["fields"]:
                if f == n.name:
                    return {"op": "field", "base": base, "f": pyname(f), "t": ft}, ft
            raise E(n.get("name_loc", n.loc), f"struct {bt[1]} has no field {n.name}")
        if bt[0] == "stack":
            ht = ["header", bt[1]]
            if n.name == "next":
                return {"op": "stack_next", "st": base, "t": ht, "size": bt[2]}, ht
            if n.name == "last":
                return {"op": "stack_last", "st": base, "t": ht, "size": bt[2]}, ht
            if n.name == "lastIndex":
                return {"op": "stack_lastindex", "st": base, "t": ["bit", 32]}, ["bit", 32]
            if n.name == "size":
                return {"op": "const", "v": bt[2], "t": ["bit", 32]}, ["bit", 32]
            raise E(n.loc, f"header stack has no member {n.name}")
        raise E(n.get("name_loc", n.loc), f"a value of type {tstr(bt)} has no member {n.name}")

    def index_of(self, base, bt, n: Node, scope):
        if bt[0] != "stack":
            raise E(n.loc, f"indexing a value of type {tstr(bt)}")
        i_ir, it = self.expr(n.index, scope)
        v = self.fold(i_ir)
        if v is not None and not 0 <= v < bt[2]:
            raise E(n.index.loc, f"index {v} out of bounds for a stack of size {bt[2]}")
        if v is None and not is_bits(it):
            raise E(n.index.loc, "stack index must be an integer")
        return {"op": "stack_idx", "st": base, "i": i_ir if v is None else {"op": "const", "v": v, "t": ["bit", 32]},
                "t": ["header", bt[1]], "size": bt[2]}, ["header", bt[1]]

    def slice_of(self, base, bt, n: Node, scope):
        if not is_bits(bt):
            raise E(n.loc, f"bit slice of a value of type {tstr(bt)}")
        hi = self.const_int(n.hi, "slice bound")
        lo = self.const_int(n.lo, "slice bound")
        if not (0 <= lo <= hi < bt[1]):
            raise E(n.loc, f"slice [{hi}:{lo}] out of range for {tstr(bt)}")
        t = ["bit", hi - lo + 1]
        return {"op": "slice", "a": base, "hi": hi, "lo": lo, "t": t}, t

    def coerce(self, ir_t, t, loc):
        """Implicit conversion of an expression to type ``t`` (int literals, same types)."""
        ir, et = ir_t
        if et == t or t == ["any"]:
            return ir
        if et == INTLIT and is_bits(t):
            v = self.fold(ir)
            if v is None:
                raise E(loc, f"cannot convert an untyped integer expression to {tstr(t)}")
            if t[0] == "bit" and not 0 <= v < (1 << t[1]):
                if v < 0 or True:
                    # p4c warns and wraps negative literals; larger values are an error
                    if v >= (1 << t[1]):
                        raise E(loc, f"value {v} does not fit in {tstr(t)}")
            if t[0] == "int" and not -(1 << (t[1] - 1)) <= v < (1 << t[1]):
                raise E(loc, f"value {v} does not fit in {tstr(t)}")
            return {"op": "const", "v": _wrap(v, t), "t": t}
        if et == INTLIT and t[0] == "serenum":
            return self.coerce(ir_t, t[2], loc)
        if et[0] == "serenum" and t == et[2]:
            return ir
        if et == ["any"]:
            return ir
        if et[0] in ("list", "sinit") and t[0] in ("struct", "header"):
            return self.make_value(ir, et, t, loc)
        raise E(loc, f"type mismatch: expected {tstr(t)}, got {tstr(et)}")

    def make_value(self, ir, et, t, loc):
        """A list expression or struct initializer converted to a struct/header value."""
        if t[0] == "header":
            fields = [[f, ["int" if sg else "bit", w]] for f, w, sg in self.headers[t[1]]["fields"]]
        else:
            fields = self.structs[t[1]]["fields"]
        if et[0] == "list":
            items = ir["items"]
            if len(items) != len(fields):
                raise E(loc, f"{tstr(t)} has {len(fields)} fields, the list has {len(items)} values")
        else:
            given = ir["fields"]
            for fname in given:
                if fname not in [f for f, _ in fields]:
                    raise E(loc, f"{tstr(t)} has no field {fname}")
            missing = [f for f, _ in fields if f not in given]
            if missing:
                raise E(loc, f"struct initializer for {tstr(t)} misses field(s) {', '.join(missing)}")
            items = [given[f] for f, _ in fields]
        vals = [self.coerce((it, it["t"]), ft, loc) for it, (_, ft) in zip(items, fields)]
        return {"op": "mk", "t": t, "fields": [pyname(f) for f, _ in fields], "vals": vals}

    def expr(self, n: Node, scope):
        k = n.kind
        if k == "int":
            if n.width is None:
                return {"op": "const", "v": n.value, "t": INTLIT}, INTLIT
            t = ["int" if n.signed else "bit", n.width]
            return {"op": "const", "v": n.value, "t": t}, t
        if k == "bool_lit":
            return {"op": "const", "v": bool(n.value), "t": BOOL}, BOOL
        if k == "str":
            return {"op": "const", "v": n.value, "t": ["string"]}, ["string"]
        if k == "name":
            if n.name == "error":
                raise E(n.loc, "'error' must be followed by .member")
            ent = scope.lookup(n.name) if not n.top else self.global_scope.lookup(n.name)
            if ent is None:
                if n.name in self.enums or n.name in self.typedefs:
                    raise E(n.loc, f"type {n.name} used as a value")
                raise E(n.loc, f"unknown name {n.name}")
            if ent[0] == "var":
                return ent[1], ent[1]["t"]
            if ent[0] == "const":
                return ent[1], ent[1]["t"]
            raise E(n.loc, f"{n.name} is a {ent[0]}, not a value")
        if k == "member":
            b = n.base
            if b.kind == "name" and b.name == "error":
                if n.name not in self.errors:
                    raise E(n.loc, f"unknown error {n.name}")
                return {"op": "const", "v": self.errors.index(n.name), "t": ERROR}, ERROR
            if b.kind == "name" and b.name in self.enums and scope.lookup(b.name) is None:
                e = self.enums[b.name]
                if n.name not in e["members"]:
                    raise E(n.loc, f"enum {b.name} has no member {n.name}")
                t = ["serenum", b.name, e["base"]] if e["base"] else ["enum", b.name]
                return {"op": "const", "v": e["members"][n.name], "t": t}, t
            if b.kind == "call" and n.name in ("hit", "miss") and b.fn.kind == "member" and \
                    b.fn.name == "apply":
                tname = self.table_ref(b.fn.base, scope)
                return {"op": "table_hit", "table": tname, "neg": n.name == "miss", "t": BOOL}, BOOL
            if b.kind == "call" and n.name == "action_run":
                raise E(n.loc, "action_run may only be used in a switch statement")
            base, bt = self.expr(b, scope)
            return self.member_of(base, bt, n)
        if k == "index":
            base, bt = self.expr(n.base, scope)
            return self.index_of(base, bt, n, scope)
        if k == "slice":
            base, bt = self.expr(n.a, scope)
            if bt == INTLIT:
                raise E(n.loc, "bit slice of an untyped integer")
            return self.slice_of(base, bt, n, scope)
        if k == "cast":
            t = self.resolve_type(n.type)
            ir, et = self.expr(n.a, scope)
            return self.cast(ir, et, t, n.loc), t
        if k == "unary":
            ir, t = self.expr(n.a, scope)
            if n.op == "!":
                ir = self.coerce((ir, t), BOOL, n.a.loc)
                return {"op": "un", "o": "!", "a": ir, "t": BOOL}, BOOL
            if t[0] == "serenum":
                t = t[2]
            if n.op == "+":
                if not (is_bits(t) or t == INTLIT):
                    raise E(n.loc, f"unary + on {tstr(t)}")
                return ir, t
            if n.op == "~" and t == INTLIT:
                raise E(n.loc, "~ on an untyped integer needs a width")
            if t[0] == "bit" and n.op == "-" or is_bits(t) or t == INTLIT:
                return {"op": "un", "o": n.op, "a": ir, "t": t}, t
            raise E(n.loc, f"operator {n.op} on a value of type {tstr(t)}")
        if k == "binary":
            return self.binary(n, scope)
        if k == "cond":
            c = self.coerce(self.expr(n.cond, scope), BOOL, n.cond.loc)
            a, at = self.expr(n.a, scope)
            b, bt = self.expr(n.b, scope)
            if at == INTLIT and bt != INTLIT:
                a, at = self.coerce((a, at), bt, n.a.loc), bt
            elif bt == INTLIT and at != INTLIT:
                b, bt = self.coerce((b, bt), at, n.b.loc), at
            if at != bt:
                raise E(n.loc, f"?: branches have types {tstr(at)} and {tstr(bt)}")
            if at == INTLIT:
                raise E(n.loc, "?: of untyped integers needs a width")
            return {"op": "cond", "c": c, "a": a, "b": b, "t": at}, at
        if k == "call":
            return self.call_expr(n, scope)
        if k == "list":
            items = [self.expr(i, scope) for i in n.items]
            t = ["list", [it[1] for it in items]]
            return {"op": "list", "items": [it[0] for it in items], "t": t}, t
        if k == "struct_init":
            fields = {}
            for fname, fe in n.fields:
                if fname in fields:
                    raise E(fe.loc, f"field {fname} initialized twice")
                fields[fname] = self.expr(fe, scope)[0]
            return {"op": "sinit", "fields": fields, "t": ["sinit"]}, ["sinit"]
        if k == "type_expr":
            raise E(n.loc, "a type cannot be used as a value")
        if k == "dontcare":
            return {"op": "dontcare", "t": ["any"]}, ["any"]
        raise E(n.loc, f"unsupported expression {k}")

    def cast(self, ir, et, t, loc):
        if t[0] == "serenum":
            return self.cast(ir, et, t[2], loc) | {"t": t}
        if et[0] == "serenum":
            et = et[2]
            ir = dict(ir, t=et)
        if et == t:
            return ir
        if t == BOOL:
            if et == ["bit", 1] or et == INTLIT:
                return {"op": "cast", "a": ir, "t": BOOL}
            raise E(loc, f"cannot cast {tstr(et)} to bool")
        if is_bits(t):
            if et == BOOL:
                if t != ["bit", 1]:
                    raise E(loc, f"cannot cast bool to {tstr(t)} (only to bit<1>)")
                return {"op": "cast", "a": ir, "t": t}
            if is_bits(et) or et == INTLIT:
                if is_bits(et) and et[0] != t[0] and et[1] != t[1]:
                    raise E(loc, f"cannot cast {tstr(et)} to {tstr(t)} (change width and sign in "
                                 "two casts)")
                return {"op": "cast", "a": ir, "t": t}
        raise E(loc, f"cannot cast {tstr(et)} to {tstr(t)}")

    def binary(self, n: Node, scope):
        op = n.op
        a, at = self.expr(n.a, scope)
        b, bt = self.expr(n.b, scope)
        if at[0] == "serenum" and op in ("==", "!="):
            at = at[2] if bt[0] != "serenum" else at
        if bt[0] == "serenum" and op in ("==", "!=") and at[0] != "serenum":
            bt = bt[2]
        if op in ("&&", "||"):
            a = self.coerce((a, at), BOOL, n.a.loc)
            b = self.coerce((b, bt), BOOL, n.b.loc)
            return {"op": "bin", "o": op, "a": a, "b": b, "t": BOOL}, BOOL
        if op == "++":
            if at == INTLIT or bt == INTLIT:
                raise E(n.loc, "operands of ++ need a width")
            if not (is_bits(at) and is_bits(bt)):
                raise E(n.loc, f"++ on {tstr(at)} and {tstr(bt)}")
            t = [at[0], at[1] + bt[1]]
            return {"op": "bin", "o": "++", "a": a, "b": b, "t": t}, t
        if op in ("<<", ">>"):
            if bt[0] == "int":
                raise E(n.b.loc, "shift amount must be unsigned")
            if at == INTLIT and bt != INTLIT:
                raise E(n.a.loc, "left operand of a shift by a non-constant needs a width")
            return {"op": "bin", "o": op, "a": a, "b": b, "t": at}, at
        if op in ("==", "!=") and at[0] in ("struct", "header") and bt[0] in ("list", "sinit"):
            b, bt = self.make_value(b, bt, at, n.b.loc), at
        elif op in ("==", "!=") and bt[0] in ("struct", "header") and at[0] in ("list", "sinit"):
            a, at = self.make_value(a, at, bt, n.a.loc), bt
        if op in ("==", "!="):
            if at == INTLIT and bt != INTLIT:
                a, at = self.coerce((a, at), bt, n.a.loc), bt
            elif bt == INTLIT and at != INTLIT:
                b, bt = self.coerce((b, bt), at, n.b.loc), at
            if at != bt:
                raise E(n.loc, f"cannot compare {tstr(at)} and {tstr(bt)}")
            if at[0] in ("stack", "list", "varbit"):
                raise E(n.loc, f"comparison of {tstr(at)} values is not supported")
            return {"op": "bin", "o": op, "a": a, "b": b, "t": BOOL}, BOOL
        # arithmetic / bitwise / ordering
        if at == INTLIT and bt != INTLIT:
            a, at = self.coerce((a, at), bt, n.a.loc), bt
        elif bt == INTLIT and at != INTLIT:
            b, bt = self.coerce((b, bt), at, n.b.loc), at
        if at != bt:
            raise E(n.loc, f"width mismatch: {tstr(at)} {op} {tstr(bt)}")
        if not (is_bits(at) or at == INTLIT):
            raise E(n.loc, f"operator {op} on values of type {tstr(at)}")
        if op in ("/", "%") and at[0] == "int":
            raise E(n.loc, f"operator {op} is not defined on signed int<{at[1]}>")
        if op in ("<", ">", "<=", ">="):
            return {"op": "bin", "o": op, "a": a, "b": b, "t": BOOL}, BOOL
        if op in ("|+|", "|-|") and at == INTLIT:
            raise E(n.loc, f"{op} needs operands with a width")
        res = {"op": "bin", "o": op, "a": a, "b": b, "t": at}
        if at == INTLIT:
            v = self.fold(res)
            if v is None:
                raise E(n.loc, "untyped integer expression is not constant")
            return {"op": "const", "v": v, "t": INTLIT}, INTLIT
        return res, at

    def varbit_max(self, t) -> int:
        if t[0] == "varbit":
            return t[1]
        if t[0] == "header":
            h = self.headers[t[1]]
            return next((w for f, w, _ in h["fields"] if f == h.get("varbit")), 0)
        if t[0] == "struct":
            return sum(self.varbit_max(ft) for _, ft in self.structs[t[1]]["fields"])
        if t[0] == "stack":
            return self.varbit_max(["header", t[1]]) * t[2]
        return 0

    def size_in_bits(self, t, loc) -> int:
        if is_bits(t):
            return t[1]
        if t[0] == "bool":
            return 1
        if t[0] == "serenum":
            return t[2][1]
        if t[0] == "header":
            return self.headers[t[1]]["bytes"] * 8
        if t[0] == "struct":
            return sum(self.size_in_bits(ft, loc) for _, ft in self.structs[t[1]]["fields"])
        if t[0] == "varbit":
            return 0
        if t[0] == "stack":
            return self.headers[t[1]]["bytes"] * 8 * t[2]
        raise E(loc, f"size of a value of type {tstr(t)} is not defined")

    def call_expr(self, n: Node, scope):
        fn = n.fn
        if fn.kind == "member":
            m = fn.name
            if m in ("minSizeInBits", "minSizeInBytes", "maxSizeInBits", "maxSizeInBytes"):
                _, t = self.expr(fn.base, scope) if fn.base.kind != "name" or scope.lookup(fn.base.name) \
                    else (None, self.resolve_type(Node("typename", fn.base.loc, name=fn.base.name, args=[])))
                bits = self.size_in_bits(t, n.loc)
                if m.startswith("max"):
                    bits += self.varbit_max(t)
                v = bits if m.endswith("Bits") else bits // 8
                return {"op": "const", "v": v, "t": INTLIT}, INTLIT
            if m == "isValid":
                ir, t = self.expr(fn.base, scope)
                if t[0] != "header":
                    raise E(fn.loc, f"isValid() on a value of type {tstr(t)}")
                return {"op": "isvalid", "h": ir, "t": BOOL}, BOOL
            if m == "apply" and fn.base.kind == "name":
                ent = scope.lookup(fn.base.name)
                if ent and ent[0] == "table":
                    raise E(n.loc, "table.apply() as a value: use .hit, .miss or switch(.action_run)")
            bent = scope.lookup(fn.base.name) if fn.base.kind == "name" else None
            if bent and bent[0] == "var" and bent[1]["t"] == ["extern", "packet_in"]:
                if m == "lookahead":
                    if not n.targs:
                        raise E(n.loc, "lookahead needs a type argument: lookahead<T>()")
                    t = self.resolve_type(n.targs[0])
                    if is_bits(t):
                        return {"op": "lookahead", "bits": t[1], "t": t}, t
                    if t[0] == "header":
                        return {"op": "lookahead_hdr", "hdr": t[1], "t": t}, t
                    raise E(n.loc, f"lookahead of type {tstr(t)}")
                if m == "length":
                    return {"op": "pkt_length", "t": ["bit", 32]}, ["bit", 32]
            if bent and bent[0] == "object" and bent[1] == "register" and m == "read":
                _, _, rec, _ = bent
                if len(n.args) != 1:
                    raise E(n.loc, "register.read(index) takes one argument")
                return {"op": "reg_read", "obj": rec["py"], "i": self.index_expr(n.args[0], scope),
                        "t": rec["vt"]}, rec["vt"]
            raise E(n.loc, f"method {m} cannot be used in an expression")
        if fn.kind == "name":
            ent = scope.lookup(fn.name)
            if ent is not None and ent[0] == "function":
                return self.call_function(ent[1], n, scope)
            if ent is not None and ent[0] == "action":
                raise E(n.loc, f"action {fn.name} used as a value")
            raise E(fn.loc, f"unknown function {fn.name}")
        raise E(n.loc, "unsupported call")

    # ---------------------------------------------------------------- output
    def finish(self, blocks, decls) -> dict:
        used_actions = {q: a for q, a in self.actions.items() if a["used"] or self._called(q, blocks)}
        syms = {
            "action": {q: a["uid"] for q, a in used_actions.items()},
            "table": {q: t["uid"] for q, t in self.tables.items()},
            "counter": {c["name"]: c["uid"] for c in self.objects["counters"]},
            "register": {r["name"]: r["uid"] for r in self.objects["registers"]},
            "meter": {m["name"]: m["uid"] for m in self.objects["meters"]},
            "direct_counter": {c["name"]: c["uid"] for c in self.objects["direct_counters"]},
            "direct_meter": {m["name"]: m["uid"] for m in self.objects["direct_meters"]},
            "digest": {d: None for d in self.digests},
            # p4c hashes the header *type* name (controlPlaneName of the Type_Header)
            "controller_header": {c["header"]: (c["id_anno"][1][0] if c["id_anno"] else None)
                                  for n, c in self.controller_headers.items()},
        }
        ids = assign_ids(syms)
        al = aliases([n for kind in syms.values() for n in kind])
        actions = []
        for q, a in sorted(used_actions.items(), key=lambda kv: ids["action"][kv[0]]):
            ctl = [p for p in a["params"] if p["dir"] is None]
            actions.append({"name": q, "id": ids["action"][q], "alias": al[q],
                            "params": [{"name": p["name"], "id": i + 1, "width": p["t"][1], "py": p["py"]}
                                       for i, p in enumerate(ctl)],
                            "all_params": [{"name": p["name"], "py": p["py"], "dir": p["dir"], "t": p["t"]}
                                           for p in a["params"]],
                            "body": a["body"], "annos": _annos_json(a["annos"]),
                            "control": a["control"]})
        aid = {a["name"]: a["id"] for a in actions}
        tables = []
        for q, t in sorted(self.tables.items(), key=lambda kv: ids["table"][kv[0]]):
            tables.append({
                "name": q, "id": ids["table"][q], "alias": al[q], "size": t["size"],
                "keys": [{"id": k["id"], "name": k["name"], "match": k["match"], "width": k["width"],
                          "expr": k["expr"], "annos": _annos_json(k["annos"])} for k in t["keys"]],
                "actions": [{"id": aid[a["name"]], "name": a["name"], "scope": a["scope"],
                             "annos": _annos_json(a["annos"]), "bound": a.get("bound", [])}
                            for a in t["actions"]],
                "default": {"action": aid[t["default"]["action"]], "params": t["default"]["params"],
                            "const": t["default"]["const"]},
                "const_entries": [dict(e, action=aid[e["action"]], matches=[
                    {"id": m["id"], "kind": m["kind"], "value": m["value"], "mask": m.get("mask"),
                     "prefix_len": m.get("prefix_len"), "high": m.get("high")} for m in e["matches"]])
                    for e in t["const_entries"]],
                "is_const": t["is_const"],
                "direct_counter": ids["direct_counter"][t["direct_counter"]] if t["direct_counter"] else None,
                "direct_meter": ids["direct_meter"][t["direct_meter"]] if t["direct_meter"] else None,
                "annos": _annos_json(t["annos"]), "support_timeout": t["support_timeout"],
                "control": t["control"],
            })

        def objs(kind, key):
            out = []
            for o in self.objects[key]:
                r = {k: v for k, v in o.items() if k not in ("uid", "annos", "vt")}
                r["id"] = ids[kind][o["name"]]
                r["alias"] = al[o["name"]]
                r["annos"] = _annos_json(o["annos"])
                if "table" in r and r["table"]:
                    r["table_id"] = ids["table"][r["table"]]
                out.append(r)
            return out
        return {
            "format": IR_FORMAT,
            "program": self.program,
            "headers": self.headers,
            "structs": {n: {"fields": [[pyname(f), t] for f, t in s["fields"]],
                            "p4_fields": [f for f, _ in s["fields"]]} for n, s in self.structs.items()},
            "header_fields": {n: [pyname(f) for f, _, _ in h["fields"]] for n, h in self.headers.items()},
            "errors": self.errors,
            "enums": {n: {"base": e["base"], "members": e["members"]} for n, e in self.enums.items()},
            "field_lists": {str(k): v for k, v in self.fl_fields.items()},
            "blocks": blocks,
            "subcontrols": getattr(self, "subcontrols", []),
            "actions": actions,
            "tables": tables,
            "counters": objs("counter", "counters"),
            "registers": objs("register", "registers"),
            "meters": objs("meter", "meters"),
            "direct_counters": objs("direct_counter", "direct_counters"),
            "direct_meters": objs("direct_meter", "direct_meters"),
            "digests": [{"name": d, "id": ids["digest"][d], "alias": al[d], "fields": v["fields"]}
                        for d, v in self.digests.items()],
            "functions": list(self.functions.values()),
            "controller_headers": {
                n: {"name": n, "id": ids["controller_header"][c["header"]], "alias": n, "header": c["header"],
                    "fields": [{"id": i + 1, "name": f, "width": w} for i, (f, w) in enumerate(c["fields"])]}
                for n, c in self.controller_headers.items()},
        }

    def _called(self, q, blocks) -> bool:
        return q in self.called_actions if hasattr(self, "called_actions") else _mentions(blocks, q, self.actions)


def _mentions(blocks, q, actions) -> bool:
    found = False

    def walk(x):
        nonlocal found
        if found:
            return
        if isinstance(x, dict):
            if x.get("s") == "call_action" and x.get("action") == q:
                found = True
                return
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(blocks)
    if not found:
        for other in actions.values():
            if other["name"] != q and other["used"]:
                walk(other["body"])
    return found


def _annos_json(annos) -> list:
    return [[n, [a if isinstance(a, (int, str)) else str(a) for a in args]] for n, args, _ in (annos or ())]


def _wrap(v: int, t) -> int:
    w = t[1]
    v &= (1 << w) - 1
    if t[0] == "int" and v >> (w - 1):
        v -= 1 << w
    return v


def _u(v, t) -> int:
    if isinstance(v, bool):
        return int(v)
    if is_bits(t):
        return v & ((1 << t[1]) - 1)
    return v


def _eval_bin(o, a, b, at, t):
    if o == "&&":
        return a and b
    if o == "||":
        return a or b
    if o in ("==", "!=", "<", ">", "<=", ">="):
        return {"==": a == b, "!=": a != b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[o]
    bitsy = is_bits(t)
    if o == "++":
        return _wrap((_u(a, at) << 0) << 0, t) if False else _wrap((a & ((1 << at[1]) - 1)) << (t[1] - at[1]) | _u(b, ["bit", t[1] - at[1]]), t)
    if o == "|+|" or o == "|-|":
        r = a + b if o == "|+|" else a - b
        if t[0] == "bit":
            return max(0, min(r, (1 << t[1]) - 1))
        return max(-(1 << (t[1] - 1)), min(r, (1 << (t[1] - 1)) - 1))
    r = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a // b,
         "%": lambda: a % b, "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b,
         "<<": lambda: a << b, ">>": lambda: a >> b}[o]()
    return _wrap(r, t) if bitsy else r


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
        return str(n.value)
    if k == "call":
        if n.fn.kind == "member" and n.fn.name == "isValid" and not n.args:
            return f"{expr_text(n.fn.base)}.$valid$"   # p4c's name for a validity key
        return f"{expr_text(n.fn)}()"
    if k == "cast":
        return expr_text(n.a)
    return "<expr>"


def elaborate(decls: list[Node], program: str) -> dict:
    return Elaborator(decls, program).run()
