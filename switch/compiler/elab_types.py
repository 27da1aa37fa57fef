"""Types: resolving type syntax, constant folding, header/struct/enum declarations.

A mixin of :class:`switch.compiler.elaborate.Elaborator`: ``self`` holds the program-wide
tables (headers, structs, actions, tables, ...) and the current block context ``self.ctx``.
"""
from __future__ import annotations

from .ast import Node, annotation
from .elab_common import BOOL, E, ERROR, Scope, eval_bin, has_runtime_int, INTLIT, is_bits, newtype_name, pyname, tstr, VOID, wrap
from .errors import P4CompileError


#: widest bit<N>/int<N>/varbit<N> accepted (BMv2 fields are far narrower in practice)
MAX_WIDTH = 4096
#: widest bit<N>/int<N> type or sized literal p4c 1.2.4.8 takes ("Compiler only supports widths up
#: to 2048", "size too large"; varbit<N> is not limited so)
P4C_MAX_WIDTH = 2048
#: widest varbit<N> accepted: p4c 1.2.4.8 sets no limit (ONOS's INT headers declare
#: varbit<8032>; p4c takes varbit<1048576>), this bound only keeps a device config sane
MAX_VARBIT_WIDTH = 1 << 20
#: largest value_set / action profile / action selector size accepted (counters, meters and registers
#: take any bit<32> size, as p4c: the switch allocates their cells lazily, runtime/externs.py)
MAX_ARRAY = 1 << 24
#: the P4Info's sizes are int32: p4c lists a larger counter/meter as 2**31-1 and refuses such a register
INT32_MAX = (1 << 31) - 1
#: deepest header stack accepted, by checkmate-p4c and in a device config (ir_check): p4c 1.2.4.8 sets
#: no limit (a public key-value store declares a 1025-deep result stack; p4c compiles 4096 in half a
#: minute) and simple_switch 1.15.5 loads a JSON stack of 70000 (117 MB, 1.3 s; helper regs); this
#: bound only keeps a device config sane (2**20 compiles and loads here in 1.3 s, 81 MB).
#: checkmate-p4c refused more than 1024 before helper corpus17, more than 2**16 before helper regs
MAX_STACK_SIZE = 1 << 20


# the type variables of core.p4's and v1model.p4's generic declarations (extract<T>, hash<O, T, D, M>,
# V1Switch<H, M>, register<T, I>): see TypeRules.specialize
_INCLUDE_TYPE_VARS = frozenset("TODMHI")


class TypeRules:
    # ---------------------------------------------------------------- types
    def resolve_type(self, n: Node, allow_generic=False, in_decl=False):
        """The type ``n`` names; ``in_decl``: inside a type declaration (a struct/header field,
        a typedef), where a header p4c refuses only once used may still appear."""
        t = self._resolve_type(n, allow_generic, in_decl)
        if not in_decl and t[0] in ("header", "struct", "stack"):
            self.used_type(t)
        return t

    def translation_errors_kept(self, into: list):
        """While declaring what p4c's front end removes when nothing uses it (an action's or
        function's signature and body, a typedef, a top-level constant), a bad
        ``@p4runtime_translation`` of a ``type`` it names goes into ``into`` instead of being
        raised: p4c parses the annotation only for a type that survives (p4c_mutate seed 100,
        helper mutz22); the caller raises it where the declaration is used."""
        return _KeepTranslationErrors(self, into)

    def note_late_error(self, err: P4CompileError) -> None:
        """An error p4c reports only in a pass after type checking (a target restriction): kept
        and raised when elaboration ends (elab_output.finish), so that a type error anywhere in
        the program -- the one p4c names first -- is raised instead when there is one."""
        err.after_type_checking = True   # (elab_order)
        self.__dict__.setdefault("late_errors", []).append(err)

    def used_type(self, t) -> None:
        """Note the deferred error of a header the use of ``t`` reaches (a header with two
        varbit fields, or not a whole number of bytes long: see declare_struct) as a late
        error (:meth:`note_late_error`)."""
        name = t[1]
        done = self.__dict__.setdefault("_used_types", set())
        if name in done:
            return
        done.add(name)
        if name in self.headers:
            bad = self.__dict__.get("unused_only_headers", {}).get(name)
            if bad:
                self.note_late_error(E(*bad))
        elif name in self.structs:
            for _, ft in self.structs[name]["fields"]:
                if ft[0] in ("header", "struct", "stack"):
                    self.used_type(ft)

    def _resolve_type(self, n: Node, allow_generic, in_decl):
        k = n.kind
        if k in ("bit", "sint"):
            w = self.const_int(n.width, "an int width" if k == "sint" else "a bit width", minimum=0 if k == "bit" else 1)
            if w > P4C_MAX_WIDTH:   # (p4c names no position)
                raise E(n.loc, f"{'int' if k == 'sint' else 'bit'}<{w}>: Compiler only supports widths up to "
                               f"{P4C_MAX_WIDTH} (p4c)")
            return ["int" if k == "sint" else "bit", w]
        if k == "int_inf":
            return INTLIT
        if k == "varbit":
            return ["varbit", self.const_int(n.width, "a varbit width", minimum=0, maximum=MAX_VARBIT_WIDTH)]
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
            return ["list", [self.resolve_type(a, in_decl=in_decl) for a in n.args]]
        if k == "stack":
            et = self.resolve_type(n.elem, in_decl=in_decl)
            if et[0] != "header" and not (et[0] == "struct" and self.structs[et[1]].get("union")):
                raise E(n.loc, f"header stack of non-header type {tstr(et)}")
            return ["stack", et[1], self.const_int(n.size, "a stack size", minimum=0, maximum=MAX_STACK_SIZE)]  # p4c: 0 is fine
        if k == "dontcare":
            return ["any"]
        if k == "typename":
            name = n.name
            bound = getattr(self, "type_bindings", None)
            if bound and name in bound:  # a type parameter of the generic block being elaborated
                return bound[name]
            if name in self.typedefs:
                t = self.typedefs[name]
                if n.get("args") and t[0] != "extern":   # (`B<bit<8>>` of `typedef bit<8> B;`: p4c's type error)
                    raise E(n.loc, f"{name}: type arguments for a type that takes none ({name} is {tstr(t)}; p4c: "
                                   f"contains self as type argument)")
                bad = next((a.error for a in self.newtypes.get(name, {}).get("annos") or () if getattr(a, "error", None)),
                           None) or self.__dict__.get("typedef_translation_errors", {}).get(name)
                if bad is not None:   # (parser.annotations: p4c parses it where the type is used)
                    keep = self.__dict__.get("_kept_translation_errors")
                    if keep is None:
                        raise bad
                    keep.append(bad)
                if name in self.newtypes and t[0] in ("bit", "int"):
                    # a `type` over bit<N>/int<N> is its own type: ["bit", N, name] (the IR and
                    # the runtime read t[0], t[1]; the name keeps it apart from bit<N> in checks)
                    return [t[0], t[1], name]
                return t
            if name in self.generic_structs:
                return self.specialize(n, in_decl)
            if n.get("args"):   # `S<bit<8>>` of a struct declared without type parameters (p4c, at the use)
                self.not_generic(n)
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

    def specialize(self, n: Node, in_decl: bool):
        """``Pair<bit<8>>`` of a generic ``struct Pair<T>`` (or header, header union): the struct
        declared once per list of type arguments, named as p4c names it (``Pair_0``, ``Pair_1``
        ... in the order first met, skipping names the program declares)."""
        d = self.generic_structs[n.name]
        if not n.args:   # (`G g;` of `struct G<T>`: p4c names the declaration; errs23)
            raise E(d.loc, f"Unspecified type parameters for {d.kind} {n.name} (it takes {len(d.tparams)} type "
                           "argument(s), a use gives none)")
        if len(n.args) != len(d.tparams):
            raise E(n.loc, f"{d.kind} {n.name} takes {len(d.tparams)} type argument(s), "
                           f"got {len(n.args)}")
        if n.name in _INCLUDE_TYPE_VARS:
            # p4c 1.2.4.8 dies without a message (exit status 245) on any use of a generic struct or
            # header named like a type variable of core.p4 / v1model.p4 -- a local, a field, a stack,
            # in a function nobody calls (`header H<T> { T f; }`; probed, helper errs16: errs15's
            # open item); the same type named G compiles
            raise E(n.loc, f"{n.name}<...>: p4c cannot compile a use of a generic type named like a type variable of "
                           "core.p4/v1model.p4 (T, O, D, M, H, I): it dies (exit status 245)")
        for a in n.args:   # G<G<bit<8>>> (p4c: "G: contains self 'struct G' as type argument")
            if isinstance(a, Node) and a.kind == "typename" and a.name == n.name:
                raise E(n.loc, f"{n.name}: contains self '{d.kind} {n.name}' as type argument")
        args = [self.resolve_type(a, in_decl=True) for a in n.args]
        for a, t in zip(n.args, args):
            if t[0] == "any":
                raise E(a.loc, f"{tstr(t)} cannot be a field type of {n.name}")
        bound = dict(zip(d.tparams, zip(n.args, args)))
        for f in d.fields:   # (p4c checks the specialized declaration: it names the field, G<string> of
            # a struct whose fields do not use T compiles)
            ft = f.get("type")
            a, t = bound.get(ft.name, (None, None)) if isinstance(ft, Node) and ft.kind == "typename" else (None, None)
            if t is not None and (t[0] in ("extern", "string", "match_kind", "void") or t == INTLIT):
                what = "int" if t == INTLIT else a.name if t[0] == "extern" and a.kind == "typename" else tstr(t)
                raise E(f.loc, f"Field '{f.name}' of '{d.kind} {n.name}' cannot have type '{what}' "
                               f"({n.name}<{', '.join(tstr(x) for x in args)}>)")
        key = (n.name, repr(args))
        spec = self.specialized.get(key)
        if spec is None:
            taken = {x.name for x in self.decls if x.get("name")} | set(self.headers) | set(self.structs)
            i = 0
            while f"{n.name}_{i}" in taken:
                i += 1
            spec = self.specialized[key] = f"{n.name}_{i}"
            self.__dict__.setdefault("specialized_args", {})[spec] = (n.name, args)   # (elab_calls: inference)
            saved = getattr(self, "type_bindings", None)
            self.type_bindings = {**(saved or {}), **dict(zip(d.tparams, args))}
            try:
                self.declare_struct(Node(d.kind, d.loc, name=spec, fields=d.fields, annos=d.annos))
            finally:
                self.type_bindings = saved
        t = ["header" if d.kind == "header" else "struct", spec]
        if not in_decl:
            self.used_type(t)
        return t

    def not_generic(self, n: Node) -> None:
        """Type arguments given to a type declared without type parameters: p4c's error at the use."""
        k = len(n.args)
        args = ", ".join(tstr(self.resolve_type(a, in_decl=True)) for a in n.args)
        for kind, table in (("header", self.headers), ("struct", self.structs)):
            if n.name in table:
                kind = "header_union" if table[n.name].get("union") else kind
                raise E(n.loc, f"{n.name}<{args}>: Type {kind} {n.name} has 0 type parameter(s), but it is "
                               f"specialized with {k}")
        if n.name in self.enums or n.name in self.typedefs:
            raise E(n.loc, f"{n.name}<{args}>: Type {n.name} is not generic and thus it cannot be specialized "
                           "using type arguments")

    def const_int(self, n: Node, what: str, minimum: int | None = None,
                  maximum: int | None = None, bit32: bool = False, scope=None) -> int:
        local = getattr(self, "stmt_scope", None)
        if scope is None and local is not None and local is not self.global_scope and self._local_names(n, local):
            # a local constant shadowing a global one (`const int W = 8; bit<(W)> z;` under a
            # top-level W: p4c takes the local), or a constructor parameter (p4c: "expected a constant")
            ir, t = self.expr(n, local)
            if not self.early_constant(n, local):   # (`bit<(hdr.h.minSizeInBits())>`: p4c's "expected a constant")
                raise E(n.loc, f"{what} must be a compile-time integer constant")
            return self.const_int_value(n, ir, t, what, minimum, maximum, bit32)
        try:
            ir, t = self.expr(n, self.global_scope)
        except P4CompileError as e:
            if scope is not None and e.message.startswith("unknown name"):
                # (``scope``: where a block's constructor parameters are constants too -- a
                # table's size in a control given it, `size = k`; p4c accepts it, was unknown)
                ir, t = self.expr(n, scope)
                if self.fold(ir) is not None:
                    return self.const_int_value(n, ir, t, what, minimum, maximum, bit32)
                raise E(n.loc, f"{what} must be a compile-time integer constant") from None
            # a run-time value (a local, a parameter's field) is not in the global scope:
            # name the real problem rather than "unknown name"
            local = getattr(self, "stmt_scope", None)
            if not e.message.startswith("unknown name") or local is None or local is self.global_scope:
                raise
            try:
                ir, t = self.expr(n, local)
            except P4CompileError as e2:
                if e2.message.startswith("unknown name"):
                    raise e from None
                raise E(n.loc, f"{what} must be a compile-time integer constant") from None
            if self.fold(ir) is not None and self.early_constant(n, local):   # a local constant (`const int W = 8; bit<(W)> x;`: p4c)
                return self.const_int_value(n, ir, t, what, minimum, maximum, bit32)
            raise E(n.loc, f"{what} must be a compile-time integer constant") from None
        return self.const_int_value(n, ir, t, what, minimum, maximum, bit32)

    def _local_names(self, n, local) -> bool:
        """Some name of ``n`` means another thing in the statement's scope ``local`` than at top
        level; a constructor parameter among them is p4c's "expected a constant" (a width or size
        is fixed before instantiation)."""
        found = False
        for x in sorted(_names_in(n)):
            ent = local.lookup(x)
            if ent is None or ent is self.global_scope.lookup(x):
                continue
            if x in (getattr(self, "ctx", None) or {}).get("ctor_names", ()) and not _declared(local, x):
                raise E(n.loc, f"{x}: expected a constant (a constructor parameter)")
            found = True
        return found

    def const_int_value(self, n: Node, ir, t, what: str, minimum, maximum, bit32: bool) -> int:
        v = self.fold(ir)
        if v is None or isinstance(v, bool) or not isinstance(v, int):
            raise E(n.loc, f"{what} must be a compile-time integer constant")
        if t[0] == "serenum":   # a serializable enum converts to its underlying type
            t = t[2]
        if bit32 and t != INTLIT and t[:2] != ["bit", 32]:
            # a v1model constructor's bit<32> parameter: p4c casts no other width implicitly
            raise E(n.loc, f"{what}: the argument has type {tstr(t)}, the parameter bit<32>")
        if minimum is not None and v < minimum:
            raise E(n.loc, f"{what} must be >= {minimum}, got {v}")
        if maximum is not None and v > maximum:
            raise E(n.loc, f"{what} must be <= {maximum}, got {v}")
        return v

    def fold(self, ir):
        """Value of a constant IR expression, or None."""
        op = ir["op"]
        if op == "const":
            return ir["v"]
        if op == "cast":
            v = self.fold(ir["a"])
            return None if v is None else wrap(int(v), ir["t"]) if is_bits(ir["t"]) else v
        if op == "bin":
            if ir["o"] in ("&&", "||"):   # false && x, true || x: constant whatever x is
                a = self.fold(ir["a"])
                if a is not None and bool(a) == (ir["o"] == "||"):
                    return bool(a)
            a, b = self.fold(ir["a"]), self.fold(ir["b"])
            if a is None or b is None:
                return None
            try:
                return eval_bin(ir["o"], a, b, ir["a"]["t"], ir["t"])
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
                return wrap(-a, t) if is_bits(t) else -a
            if o == "~":
                return wrap(~a, t) if is_bits(t) else ~a
        if op == "slice":
            a = self.fold(ir["a"])
            return None if a is None else (a >> ir["lo"]) & ((1 << (ir["hi"] - ir["lo"] + 1)) - 1)
        if op == "tuple_idx" and ir["a"]["op"] == "list":   # an element of a constant tuple
            return self.fold(ir["a"]["items"][ir["i"]])
        if op == "field" and ir["base"]["op"] == "mk" and ir["f"] in ir["base"].get("fields", ()):
            # a field of a constant struct or header (`const bit<8> K2 = K.a;`: p4c folds it; errs26)
            return self.fold(ir["base"]["vals"][ir["base"]["fields"].index(ir["f"])])
        return None

    def declared_constant(self, t, value: Node, scope):
        """The IR of ``const T n = value;`` (None when not a compile-time constant).  p4c unifies
        ``int`` with the type of a ``bit<N>``/``int<N>`` value: ``const int F = (bit<7>)x;`` is
        accepted and F is that bit<7> value (``F + 1`` wraps at 7 bits)."""
        ir, vt = self.expr(value, scope)
        if t == INTLIT and is_bits(vt):
            t = vt
        out = self.constant_ir(self.coerce((ir, vt), t, value.loc), t)
        mk = self.__dict__.get("match_kind_locs", {})
        if out is not None and id(ir) in mk:   # (match_kind_operand names a constant at its value)
            mk[id(out)] = mk[id(ir)]
        return out

    def constant_ir(self, ir, t):
        """The IR of a declared constant's value (``const T n = v;``), or None when ``v`` is not
        a compile-time constant: a folded scalar, or a tuple/struct/header value whose elements
        all fold (p4c accepts ``const tuple<bit<8>, bit<16>> T = {1, 2};``)."""
        v = None if has_runtime_int(ir) else self.fold(ir)   # (int)hdr.h.a is not one (p4c)
        if v is not None:
            return {"op": "const", "v": v, "t": t}
        if ir["op"] == "list" and t[0] == "list":
            items = [self.constant_ir(it, it["t"]) for it in ir["items"]]
            return None if any(it is None for it in items) else {**ir, "items": items}
        if ir["op"] == "mk":
            vals = [self.constant_ir(it, it["t"]) for it in ir["vals"]]
            return None if any(it is None for it in vals) else {**ir, "vals": vals}
        return None

    def newtype_of(self, tnode) -> str | None:
        """The `type` a type reference names, through typedefs (``typedef T1 T1d``: T1), or None
        -- what p4c writes as ``type_name`` / ``new_type`` in the P4Info."""
        seen = 0
        while tnode is not None and tnode.kind == "typename" and seen < 64:
            if tnode.name in self.newtypes:
                return tnode.name
            d = self.typedef_nodes.get(tnode.name)
            tnode = d.type if d is not None else None
            seen += 1
        return None

    def flat_struct(self, name: str, loc, dotted: bool = False) -> list:
        """(name, bit type) of every leaf of a struct, nested structs joined with ``__`` (with
        ``.`` when ``dotted``: the P4 path, as p4c names such a field in the P4Info)."""
        out = []
        for f, ft in self.structs[name]["fields"]:
            if ft[0] == "serenum":
                ft = ft[2]
            if ft[0] == "bool":
                ft = ["bit", 1]
            if ft[0] == "struct" and not self.structs[ft[1]].get("union"):
                out += [(f"{f}{'.' if dotted else '__'}{sub}", st) for sub, st in self.flat_struct(ft[1], loc, dotted)]
            elif is_bits(ft):
                out.append((f, ft))
            else:
                raise E(loc, f"struct {name} field {f} of type {tstr(ft)} cannot be part of a header")
        return out

    def _struct_leaf_type(self, sname: str, dotted: str):
        """The declared type of struct ``sname``'s leaf ``a.b`` (flat_struct's dotted name)."""
        t = ["struct", sname]
        for part in dotted.split("."):
            t = dict((f, ft) for f, ft in self.structs[t[1]]["fields"]).get(part) if t[0] == "struct" else None
            if t is None:
                return None
        return t

    def declare_struct(self, d: Node) -> None:
        if d.name in self.headers or d.name in self.structs:
            raise E(d.loc, f"type {d.name} declared twice")
        self.__dict__.setdefault("type_decl_locs", {})[d.name] = d.loc   # (named by p4c's back end: digest_call)
        fields = []
        seen = set()
        deferred = None   # (loc, message): the header is refused once used (used_type)
        p4_names = {}     # a struct-in-header leaf's P4 path (s.b) by its flat name (s__b)
        for f in d.fields:
            if f.name in seen:
                raise E(f.loc, f"field {f.name} declared twice in {d.name}")
            seen.add(f.name)
            t = self.resolve_type(f.type, in_decl=True)
            if d.kind == "header":
                if t[0] == "serenum":
                    t = t[2]
                if t[0] == "bool":
                    t = ["bit", 1]   # stored in one bit; assignments of a bool to it are cast
                    self.__dict__.setdefault("bool_header_fields", set()).add((d.name, f.name))
                    self.__dict__.setdefault("bool_field_locs", {})[(d.name, pyname(f.name))] = f.type.loc
                if t[0] == "struct" and not self.structs[t[1]].get("union"):
                    # a struct inside a header: its fields are laid out in place (as p4c flattens
                    # them), named <field>__<sub>; member_of gives h.f.sub through a view
                    for (sub, st), (dsub, _) in zip(self.flat_struct(t[1], f.loc), self.flat_struct(t[1], f.loc, True)):
                        fields.append([f"{f.name}__{sub}", st, None])
                        p4_names[f"{f.name}__{sub}"] = f"{f.name}.{dsub}"
                        if self._struct_leaf_type(t[1], dsub) == BOOL:   # (a bool leaf: as a bool field; errs54)
                            self.__dict__.setdefault("bool_header_fields", set()).add((d.name, f"{f.name}__{sub}"))
                    self.header_views[(d.name, f.name)] = t[1]
                    continue
                if t[0] == "varbit":
                    if any(ft[0] == "varbit" for _, ft, _ in fields) and not deferred:
                        # p4c accepts the declaration and rejects the header once the program
                        # uses it ("headers with multiple varbit fields not supported"):
                        # used_type raises this when a use reaches the header
                        deferred = (f.loc, f"header {d.name} has more than one varbit field "
                                               "(p4c: not supported once the header is used)")
                elif not is_bits(t):
                    raise E(f.loc, f"header field {d.name}.{f.name} must be bit<N>/int<N>/varbit<N>, "
                                   f"not {tstr(t)}")
            elif t[0] == "varbit":
                # p4c accepts it (in a metadata struct, say); the embedded target refuses a use
                # of the field (member_of) and leaves it out of the struct
                self.__dict__.setdefault("dropped_varbit_fields", {})[(d.name, f.name)] = t
                # (its place among the kept fields: elab_values.struct_p4_fields, for a list initializer)
                self.__dict__.setdefault("dropped_varbit_at", {}).setdefault(d.name, []).append((len(fields), f.name, t))
                continue
            elif d.kind == "header_union" and t[0] != "header":
                raise E(f.loc, f"header_union {d.name}: member {f.name} must be a header, not {tstr(t)}")
            fields.append([f.name, t, f.annos])
            self.__dict__.setdefault("struct_field_locs", {})[(d.name, f.name)] = f.loc
            nt = self.newtype_of(f.type)
            if nt:
                self.field_newtypes[(d.name, f.name)] = nt
            fna = annotation(f.annos, "name")
            if fna and fna[1] and isinstance(fna[1][0], str):   # p4c names a key on it by this (table_keys)
                self.field_names[(d.name, f.name)] = fna[1][0]
            declared = self.resolve_type(f.type, in_decl=True)
            if declared[0] == "serenum":  # a header keeps the bits; the P4Info names the enum
                self.field_enums[(d.name, f.name)] = declared[1]
        if d.kind == "header":
            total = sum(t[1] for _, t, _ in fields if t[0] != "varbit")
            if total % 8 and not deferred:   # BMv2's rule: p4c checks it for used headers only
                deferred = (d.loc, f"header {d.name} is {total} bits long, not a multiple of 8")
            vb = next((n for n, t, _ in fields if t[0] == "varbit"), None)
            # "varbits": every varbit field (a second one makes the header an error once used,
            # but a use of that field is typed varbit first, as by p4c's type checker)
            self.headers[d.name] = {"fields": [[n, t[1], t[0] == "int"] for n, t, _ in fields],
                                    "bytes": total // 8, "varbit": vb,
                                    "varbits": [n for n, t, _ in fields if t[0] == "varbit"]}
            if deferred:
                self.__dict__.setdefault("unused_only_headers", {})[d.name] = deferred
            ch = annotation(d.annos, "controller_header")
            if ch:   # its metadata @ids as an action's parameters' (elab_output.check_element_ids)
                self.check_id_annotations([(n, annotation(annos or [], "id")) for n, _, annos in fields], "")
                self.controller_headers[ch[1][0] if ch[1] else d.name] = {
                    "header": d.name, "fields": [[p4_names.get(n, n), t[1], _user_id(annos),
                                                     any(a[0] == "hidden" for a in annos or ()), _field_cp_name(annos), annos]
                                                    for n, t, annos in fields],
                    "annos": d.annos, "id_anno": annotation(d.annos, "id")}
        else:
            # a header_union is a struct of headers of which at most one is valid
            self.structs[d.name] = {"fields": [[n, t] for n, t, _ in fields],
                                    "union": d.kind == "header_union",
                                    "field_annos": {n: annos for n, _, annos in fields},
                                    # (its varbit fields, left out above: a local's are boxes, errs24)
                                    **({"varbit_boxes": True} if any(k[0] == d.name for k in self.__dict__.get(
                                        "dropped_varbit_fields", {})) else {})}
            for n, t, annos in fields:
                for a in annos or ():
                    if a[0] == "field_list":
                        for idx in a[1]:
                            try:
                                fl = self.field_list_index(idx, a[2], d.name, n)
                            except P4CompileError as e:
                                # p4c checks the annotation in the metadata struct (at any
                                # depth) only: check_field_list_indexes raises it there
                                self.__dict__.setdefault("field_list_errors", {}).setdefault(
                                    d.name, (e.loc, e.message))
                                continue
                            self.fl_fields.setdefault(fl, []).append([d.name, n])


    def dropped_varbit_use(self, struct: str, n, base):
        """A use of a struct's varbit field (left out of the struct: elab_types): p4c compiles it,
        simple_switch refuses its JSON ("Invalid reference to object of type 'header' with name
        'userMetadata.mv'"; errs23 c_vb_meta_field) -- a load refusal; None for another field."""
        vt = self.__dict__.get("dropped_varbit_fields", {}).get((struct, n.name))
        if vt is None:
            return None
        if self.__dict__.get("user_meta_type") != ["struct", struct]:
            # a local struct's (p4c: a metadata header instance of the struct, which simple_switch
            # runs; errs24): the struct value holds a box of its own (bits and length), read and
            # written as a varbit local is, through its field `v` (runtime.gen_types: varbit_boxes)
            box = {"op": "field", "base": base, "f": pyname(n.name), "t": vt}
            return {"op": "field", "base": box, "f": "v", "t": vt}, vt
        self.load_refusal(n.get("name_loc", n.loc), f"struct {struct} field {n.name}: a varbit field outside a header: "
                          "Invalid reference to object of type 'header' (simple_switch refuses p4c's JSON)")
        return {"op": "field", "base": base, "f": pyname(n.name), "t": vt}, vt
    def check_field_list_indexes(self, t) -> None:
        """Raise a bad ``@field_list`` index of metadata struct ``t`` or a struct inside it
        (p4c 1.2.4.8: '"a": Annotation must be a constant integer'; elsewhere it is ignored)."""
        bad = self.__dict__.get("field_list_errors")
        if not bad or t[0] != "struct":
            return
        if t[1] in bad:
            raise E(*bad[t[1]])
        for _, ft in self.structs.get(t[1], {}).get("fields", ()):
            self.check_field_list_indexes(ft)

    def field_list_index(self, idx, loc, struct: str, field: str) -> int:
        """``@field_list(3)`` or ``@field_list(NAME)`` with NAME a constant declared above."""
        text = str(idx).strip()
        try:
            return int(text, 0)
        except ValueError:
            pass
        ent = self.global_scope.lookup(text) if text.isidentifier() else None
        if ent is not None and ent[0] == "const" and isinstance(ent[1].get("v"), int):
            return int(ent[1]["v"])
        enum, _, member = (p.strip() for p in text.partition("."))
        if self.enums.get(enum, {}).get("base") and isinstance(self.enums[enum]["members"].get(member), int):
            return self.enums[enum]["members"][member]   # a serializable enum member (E.Field)
        try:
            # any other constant expression (`@field_list(1 + 1)`: p4c parses the body as an
            # expression and folds it; probed, helper errs26)
            n = self.annotation_expr(text, loc)   # (elab_blocks)
            v = None if n is None else self.const_int(n, "@field_list index")
        except P4CompileError:
            v = None
        if v is not None and v >= 0:
            return v
        if v is not None:   # (p4c: "-1: Value too large for ...")
            raise E(loc, f"@field_list({text}) on {struct}.{field}: {v}: Value too large (a negative index)")
        raise E(loc, f"@field_list({text}) on {struct}.{field}: the index must be an integer literal, "
                     "a constant or a serializable enum member declared before the struct")

    def declare_enum(self, d: Node) -> None:
        if d.base is not None:
            base = self.resolve_type(d.base)
            if newtype_name(base):   # (a typedef of bit<N> is fine)
                raise E(d.base.loc or d.loc, f"{newtype_name(base)}: "
                                             "Illegal type for enum; only bit<> and int<> are allowed; note that "
                                             "type-declared types are not allowed even if they are fixed-size (p4c)")
            if not is_bits(base) or base[0] not in ("bit", "int"):
                # p4c: "Illegal type for enum; only bit<> and int<> are allowed"
                raise E(d.base.loc or d.loc, f"{tstr(base)}: Illegal type for enum; only bit<> and int<> are "
                                             f"allowed (the underlying type {tstr(base)} of enum {d.name})")
            vals = {}
            own = Scope(self.global_scope)   # earlier members by their bare names (p4c resolves them)
            unusable = {}
            for m, v in zip(d.members, d.values):
                if _names_in(v) & set(d.members):
                    # `B = A + 1`: p4c 1.2.4.8 compiles the enum but cannot type B ("Compiler Bug:
                    # Could not find type of <SerEnumMember> B") -- an error where B is used
                    unusable[m] = v.loc
                ir, vt = self.expr(v, own)
                lit = self.fold(ir) if vt == INTLIT else None
                if lit is not None and is_bits(base) and not (
                        -(1 << (base[1] - 1)) <= lit < (1 << (base[1] - 1)) if base[0] == "int" else 0 <= lit < (1 << base[1])):
                    # p4c: an error here, not the wrap-and-warn of other literals
                    raise E(v.loc, f"{m}: serializable enum constant value {lit} is out of bounds of the "
                                   f"underlying type {tstr(base)}")
                vals[m] = self.fold(self.coerce((ir, vt), base, v.loc))
                own.add(m, ("const", {"op": "const", "v": vals[m], "t": base}))
            self.enums[d.name] = {"base": base, "members": vals, "unusable": unusable}
            if d.base.kind == "typename":   # (over a typedef: p4info.TypeInfo.serenum refuses it there)
                self.enums[d.name]["typedef_base"] = [d.loc.file, d.loc.line, d.loc.col]
        else:
            # the declaring file: p4c's BMv2 back end keeps only v1model.p4's own enums as names
            self.enums[d.name] = {"base": None, "members": {m: i for i, m in enumerate(d.members)},
                                  "file": d.loc.file if d.loc else "", "loc": d.loc}

    def stack_elem(self, t) -> list:
        """Element type of a stack type: a header, or (a stack of header unions) a union."""
        return ["header", t[1]] if t[1] in self.headers else ["struct", t[1]]

    def varbit_max(self, t) -> int:
        if t[0] == "varbit":
            return t[1]
        if t[0] == "header":
            h = self.headers[t[1]]
            return next((w for f, w, _ in h["fields"] if f == h.get("varbit")), 0)
        if t[0] == "struct":
            return sum(self.varbit_max(ft) for _, ft in self.structs[t[1]]["fields"])
        if t[0] == "stack":
            return self.varbit_max(self.stack_elem(t)) * t[2]
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
        if t[0] == "struct" and self.structs[t[1]].get("union"):   # one member at a time: the largest (p4c)
            return max((self.size_in_bits(ft, loc) for _, ft in self.structs[t[1]]["fields"]), default=0)
        if t[0] == "struct":
            return sum(self.size_in_bits(ft, loc) for _, ft in self.structs[t[1]]["fields"])
        if t[0] == "varbit":
            return 0
        if t[0] == "stack":
            return self.size_in_bits(self.stack_elem(t), loc) * t[2]
        raise E(loc, f"size of a value of type {tstr(t)} is not defined")


def _user_id(annos):
    """A field's ``@id(N)`` (p4c: its controller-packet-metadata id), or None."""
    a = annotation(annos or [], "id")
    return a[1][0] if a and a[1] and isinstance(a[1][0], int) and not isinstance(a[1][0], bool) else None


class _KeepTranslationErrors:
    """The context of :meth:`TypeRules.translation_errors_kept` (nests: the outer list is restored)."""

    def __init__(self, elab, into: list):
        self.elab, self.into = elab, into

    def __enter__(self):
        self.saved = self.elab.__dict__.get("_kept_translation_errors")
        self.elab._kept_translation_errors = self.into
        return self.into

    def __exit__(self, *exc):
        self.elab._kept_translation_errors = self.saved
        return False


def _field_cp_name(annos):
    """A header field's ``@name`` as p4c's controlPlaneName gives it (one leading dot off), or None."""
    na = annotation(annos or [], "name")
    if not na or not na[1] or not isinstance(na[1][0], str):
        return None
    return na[1][0][1:] if na[1][0].startswith(".") else na[1][0]


def _names_in(n) -> set:
    """The bare names an expression (AST) mentions."""
    out, todo = set(), [n]
    while todo:
        x = todo.pop()
        if isinstance(x, Node):
            if x.kind == "name":
                out.add(x.name)
            todo.extend(x._attrs.values())
        elif isinstance(x, (list, tuple)):
            todo.extend(x)
    return out


def _declared(scope, name: str) -> bool:
    """``name`` resolves in ``scope`` to a local declaration (not a bound constructor parameter)."""
    while scope is not None:
        if name in scope.names:
            return name in scope.declared
        scope = scope.parent
    return False
