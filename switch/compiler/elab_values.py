"""Values built from types: default values (``...``, p4c's DefaultValues), ``lookahead<S>()`` of a
struct as slices of one lookahead, list expressions and struct initializers turned into struct or
header values (with p4c's implicit-conversion rules), and a header's or struct's fields as the
program declares them.

A mixin of :class:`switch.compiler.elaborate.Elaborator`, beside
:class:`~switch.compiler.elab_expressions.ExpressionRules`, which types the expressions these values
are made of (``self.coerce``, ``self.enum_of``, ``self.header_field_type``); ``early_constant``: what p4c's
first constant folding, before types, takes for a constant (a slice of one past its width folds).
"""
from __future__ import annotations

from .ast import Node
from .elab_common import BOOL, E, INTLIT, is_bits, pyname, tstr
from .elab_load_refusals import BMV2_JSON_ARRAY


class ValueRules:
    def early_constant(self, a, scope) -> bool:
        """AST ``a`` is a constant to p4c's constant folding before type checking: a literal, a
        declared constant (not a constructor parameter: ``ctor_names``), a cast, unary or binary
        operator or slice of such."""
        if not isinstance(a, Node):
            return False
        if a.kind == "int":
            return True
        if a.kind == "name":
            ent = scope.lookup(a.name)
            return bool(ent) and ent[0] == "const" and a.name not in (getattr(self, "ctx", None) or {}).get("ctor_names", ())
        if a.kind in ("cast", "unary", "slice"):
            return self.early_constant(a.a, scope)
        return a.kind == "binary" and self.early_constant(a.a, scope) and self.early_constant(a.b, scope)

    def default_value(self, t, loc):
        """The default value of type ``t`` (P4-16 "default values", what `...` stands for, as
        p4c's DefaultValues pass writes it): 0, false, the first member of an enum,
        error.NoError, an invalid header; structs and tuples field by field."""
        k = t[0]
        if k in ("bit", "int") and len(t) > 1:
            return {"op": "const", "v": 0, "t": t}
        if k == "bool":
            return {"op": "const", "v": False, "t": t}
        if k == "serenum":
            return {"op": "const", "v": 0, "t": t}
        if k == "enum":
            return {"op": "const", "v": next(iter(self.enums[t[1]]["members"].values())), "t": t}
        if k == "error":
            return {"op": "const", "v": self.errors.index("NoError"), "t": t}
        if k == "header":
            return {"op": "invalid_hdr", "t": t}
        if k == "list":
            return {"op": "list", "items": [self.default_value(x, loc) for x in t[1]], "t": t}
        if k == "struct":   # a header union: every member invalid
            fields = self.structs[t[1]]["fields"]
            return {"op": "mk", "t": t, "fields": [pyname(f) for f, _ in fields],
                    "vals": [self.default_value(ft, loc) for _, ft in fields]}
        raise E(loc, f"`...`: no default value for {tstr(t)} on this target")

    def lookahead_struct(self, t, loc) -> dict:
        """``lookahead<S>()`` of a struct of bit<N>/int<N>/bool/serializable-enum fields
        (nested structs too): one lookahead of all the bits, each field a slice of it (as
        p4c expands it).  Headers or stacks inside the struct are not supported here."""
        def width(ft):
            if ft[0] == "struct" and not self.structs[ft[1]].get("union"):
                return sum(width(x) for _, x in self.structs[ft[1]]["fields"])
            if ft[0] == "header" and not self.headers[ft[1]].get("varbit"):
                return self.headers[ft[1]]["bytes"] * 8
            if ft[0] == "stack" and ft[1] in self.headers and not self.headers[ft[1]].get("varbit"):
                return ft[2] * self.headers[ft[1]]["bytes"] * 8
            if ft[0] == "serenum":
                return ft[2][1]
            if ft[0] == "bool":
                return 1
            if is_bits(ft):
                return ft[1]
            raise E(loc, f"lookahead<{t[1]}>: a field of type {tstr(ft)} in the struct is not supported "
                         "by the embedded target (only bit<N>/int<N>/bool/enum fields, fixed-size headers, "
                         "stacks of them and structs of these)")
        total = width(t)
        la = {"op": "lookahead", "bits": total, "t": ["bit", total]}
        pos = 0

        def build(ft):
            nonlocal pos
            if ft[0] == "struct":
                fields = self.structs[ft[1]]["fields"]
                return {"op": "mk", "t": ft, "fields": [pyname(f) for f, _ in fields],
                        "vals": [build(x) for _, x in fields]}
            if ft[0] == "header":   # a valid header holding the bits (as p4c's expansion sets it)
                hf = self.headers[ft[1]]["fields"]
                return {"op": "mk", "t": ft, "fields": [pyname(f) for f, _, _ in hf],
                        "vals": [build(self.header_field_type(ft[1], f, w, sg)) for f, w, sg in hf]}
            if ft[0] == "stack":    # its elements in order (nextIndex stays 0)
                return {"op": "mk_stack", "t": ft, "vals": [build(["header", ft[1]]) for _ in range(ft[2])]}
            w = width(ft)
            lo = total - pos - w
            pos += w
            bits = {"op": "slice", "a": la, "hi": lo + w - 1, "lo": lo, "t": ["bit", w]}
            return bits if ft == ["bit", w] else {"op": "cast", "a": bits, "t": ft}
        return build(t)

    def stack_from_list(self, ir, t, loc):
        """A list expression as a header stack's value (``h_t[2] s = { hdr.a, hdr.b };``,
        ``hdr.s = { ... };``): one element per list item, each converted to the element type
        (a header or a list of its fields; p4c compiles it, helper errs17)."""
        items = list(ir["items"])
        if ir.get("dots") and len(items) <= t[2]:   # `{ hdr.h, ... }`: the other elements invalid (p4c)
            items += [self.default_value(["struct" if t[1] in self.structs else "header", t[1]], loc)
                      for _ in range(t[2] - len(items))]
        if len(items) != t[2]:
            raise E(loc, f"type mismatch: a list of {len(items)} values cannot become {tstr(t)} (p4c)")
        et = ["struct" if t[1] in self.structs else "header", t[1]]
        vals = []
        for it in items:
            if it.get("op") in ("list", "sinit"):
                # p4c writes the element's assign_header with a bare JSON list as its source, and
                # simple_switch dies loading it (errs17 probe stk_init_records, stk_named_only)
                self.load_refusal(loc, f"an element of {tstr(t)} given as a list or struct initializer: "
                                       f"{BMV2_JSON_ARRAY}")
            vals.append(self.coerce((it, it["t"]), et, loc))
        return {"op": "mk_stack", "t": t, "vals": vals}

    def make_value(self, ir, et, t, loc):
        """A list expression or struct initializer converted to a struct/header value."""
        if t[0] == "header":
            fields = self.header_p4_fields(t[1])
        else:
            fields = self.struct_p4_fields(t[1])
        dots = ir.get("dots")   # `...`: the fields not given take their default values
        if ir.get("op") == "cond" and _list_arms(ir):
            # `c ? { 8w1 } : { 8w2 }` where a struct is wanted: p4c converts each arm (errs54; with
            # struct initializers `{ a = 1 }` for arms p4c 1.2.4.8 dies: "Compiler Bug", refused here)
            return {"op": "cond", "c": ir["c"], "a": self.make_value(ir["a"], ir["a"]["t"], t, loc),
                    "b": self.make_value(ir["b"], ir["b"]["t"], t, loc), "t": t}
        if ir.get("op") == "cond":
            raise E(loc, f"a ?: of struct initializers as a {tstr(t)}: p4c 1.2.4.8 dies on it (a Compiler Bug "
                         "in its type checker)")
        if et[0] == "list" and "items" not in ir:   # a tuple-typed value, not a list expression
            raise E(loc, f"a tuple value cannot become {tstr(t)}: only a list expression can "
                         f"(p4c: type error)")
        if et[0] == "list":
            items = list(ir["items"])
            if len(items) > len(fields) or len(items) < len(fields) and not dots:
                raise E(loc, f"{tstr(t)} has {len(fields)} fields, the list has {len(items)} values")
            items += [self.default_value(ft, loc) for _, ft in fields[len(items):]]
        else:
            given = ir["fields"]
            for fname in given:
                if fname not in [f for f, _ in fields]:
                    raise E(loc, f"{tstr(t)} has no field {fname}")
            missing = [f for f, _ in fields if f not in given]
            if missing and not dots:
                raise E(loc, f"struct initializer for {tstr(t)} misses field(s) {', '.join(missing)}")
            items = [given[f] if f in given else self.default_value(ft, loc) for f, ft in fields]
        varbits = self.headers[t[1]].get("varbits") or () if t[0] == "header" else \
            [f for f, ft in fields if ft[0] == "varbit"]
        for it, (f, ft) in zip(items, fields):
            enum = self.field_enums.get((t[1], f)) if t[0] == "header" else None
            if enum and self.enum_of(it, it["t"]) != enum:
                # a header field of a serializable enum type is held as its bits; p4c takes that
                # enum's values only ("'{ 8w1 }': values of type 'bit<8>' cannot be implicitly cast")
                raise E(loc, f"field {f}: values of type {tstr(it['t'])} cannot be implicitly cast to type {enum} (p4c)")
            if enum is None and ft[0] in ("bit", "int") and (ienum := self.enum_of(it, it["t"])) is not None:
                # the other way round: a serializable enum's value for a bit<W> field -- p4c unifies
                # the list's or initializer's values with the fields' types without the enum's
                # implicit cast ("Type of initializer 'E' does not match type 'bit<8>' of field";
                # corpus22 probes, after up4's action arguments)
                raise E(loc, f"field {f}: cannot unify type {ienum} with type {tstr(ft)} (p4c: the type of "
                             f"initializer {ienum} does not match the field's)")
            if it["t"] == INTLIT and (nt := self.field_newtypes.get((t[1], f))) is not None:
                # a list or struct initializer for a struct or header with a field declared of a
                # `type`: p4c types the literal as the underlying bit<W> and converts no bit<W> to
                # the `type` implicitly, in an initializer or an assignment (`v.c = 0;` and
                # `const C_t K = 0;` take it; nds-group/DUNE-bmv2's `VotingClasses_t voting_classes
                # = {0,0,0};`, corpus23)
                raise E(loc, f"field {f}: Cannot cast implicitly type '{tstr(ft[:2])}' to type '{nt}' (p4c: an "
                             "untyped literal in a list or struct initializer for a field of a `type`)")
            if f in varbits and it["t"] == INTLIT:   # (a varbit field is held as its bit<N> maximum)
                raise E(loc, f"field {f}: 'int' type can only be unified with 'int', 'bit<>', or 'signed<>' "
                             f"types, not with 'varbit<{ft[1]}>' (p4c)")
        vals = [self.coerce((it, it["t"]), ft, loc) for it, (_, ft) in zip(items, fields)]
        if t[0] == "header":
            vals = [{"op": "cast", "a": v, "t": ["bit", 1]} if ft == BOOL else v for v, (_, ft) in zip(vals, fields)]
        if t[0] == "header" and any(ft[0] == "struct" for _, ft in fields):
            # a struct field of a header is stored as its leaves (data__b ...): spread its value
            names, flat = [], []
            for (f, ft), v in zip(fields, vals):
                if ft[0] == "struct":
                    for (sub, st), leaf in zip(self.flat_struct(ft[1], loc), self.struct_leaves(v, ft[1])):
                        names.append(f"{f}__{sub}")
                        flat.append(leaf if leaf["t"] == st else {"op": "cast", "a": leaf, "t": st})
                else:
                    names.append(f)
                    flat.append(v)
            return {"op": "mk", "t": t, "fields": [pyname(f) for f in names], "vals": flat}
        return {"op": "mk", "t": t, "fields": [pyname(f) for f, _ in fields], "vals": vals}

    def struct_p4_fields(self, sname: str) -> list:
        """Struct ``sname``'s fields in declaration order, its varbit fields too (the struct leaves
        them out: a local's value holds each as a box of its own, elab_types.dropped_varbit_use), for
        a list or struct initializer: p4c compiles ``vs_t s = { 1, hdr.v.v }`` (a metadata header
        instance of the struct, assign_VL into it; helper opens6), and the box takes the bits and the
        length (runtime ``_mk``)."""
        out = [list(x) for x in self.structs[sname]["fields"]]
        for i, (pos, name, vt) in enumerate(self.__dict__.get("dropped_varbit_at", {}).get(sname, ())):
            out.insert(pos + i, [name, vt])
        return out

    def header_p4_fields(self, hname: str) -> list:
        """A header's fields as the program declares them: a struct field (stored as its leaves
        ``f__sub``) is one ``[f, ["struct", S]]``, a varbit field ``[f, ["varbit", N]]`` (held as
        its bit<N> maximum, typed as the field access types it: ``{ 1, hdr.v.v }``, errs24)."""
        out = []
        varbits = self.headers[hname].get("varbits") or ()
        for f, w, sg in self.headers[hname]["fields"]:
            view = next(((v, s) for (h, v), s in self.header_views.items()
                         if h == hname and f.startswith(v + "__")), None)
            if f in varbits:
                out.append([f, ["varbit", w]])
            elif view is None and (hname, f) in getattr(self, "bool_header_fields", ()):
                out.append([f, BOOL])   # stored in one bit: the value is cast (make_value)
            elif view is None:
                out.append([f, self.header_field_type(hname, f, w, sg)])
            elif not out or out[-1][0] != view[0]:
                out.append([view[0], ["struct", view[1]]])
        return out

    def struct_leaves(self, ir, sname: str) -> list:
        """The leaf values of a struct value, nested structs in place (flat_struct's order)."""
        out = []
        for i, (f, ft) in enumerate(self.structs[sname]["fields"]):
            sub = ir["vals"][i] if ir["op"] == "mk" else {"op": "field", "base": ir, "f": pyname(f), "t": ft}
            if ft[0] == "struct" and not self.structs[ft[1]].get("union"):
                out += self.struct_leaves(sub, ft[1])
            else:
                out.append(sub)
        return out


def _list_arms(ir) -> bool:
    """Both arms of the ``?:`` IR ``ir`` are list expressions (or again such ``?:``)."""
    return all("items" in ir[x] or ir[x].get("op") == "cond" and _list_arms(ir[x]) for x in ("a", "b"))
