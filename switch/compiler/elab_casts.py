"""Casts (p4c's rules for `type`s, bool and enums) and header fields declared ``bool``.

A header field declared ``bool`` is held as a ``bit<1>`` field in the IR, but p4c types it
``bool``: it is no ``bit<1>`` operand (arithmetic, bitwise operators, ``++``, slices, a stack
index, a cast to another width) and no ``bit<1>`` value (a ``bit<1>`` variable, parameter,
return value or struct field) -- "cannot be applied to expression ... with type 'bool'",
"type mismatch" (:meth:`CastRules.bool_field_operand`, the checks in ``coerce``).

A mixin of :class:`switch.compiler.elaborate.Elaborator`.
"""
from __future__ import annotations

from .ast import Node
from .elab_common import wrap, BOOL, E, expr_text, INTLIT, is_bits, newtype_name, tstr, untagged


class CastRules:
    def bool_field_operand(self, ir, loc, op: str, n: Node | None = None) -> None:
        """p4c: a header field declared bool is a ``bool`` operand of ``op``, not a bit<1>."""
        if isinstance(ir, dict) and ir.get("op") == "field" and self.is_bool_header_field(ir):
            what = f"'{expr_text(n)}' " if n is not None else ""
            raise E(loc, f"{op}: cannot be applied to expression {what}with type 'bool' "
                         f"(a header field declared bool)")

    def bool_field_read(self, ir_t):
        """``(ir, t)``, a header field declared bool read as a ``bool`` (an arm of ``?:``)."""
        ir, t = ir_t
        if t == ["bit", 1] and isinstance(ir, dict) and self.is_bool_header_field(ir):
            return {"op": "cast", "a": ir, "t": BOOL}, BOOL
        return ir, t

    def cast_expr(self, n: Node, ir, et, t):
        """``(T)e`` with p4c's rules for `type`s: a `type` is made only from its underlying type
        (or an untyped literal) and converts only to its underlying type (``type foo_t bar_t``:
        bar_t <-> foo_t, foo_t <-> bit<32>)."""
        if untagged(t) not in (BOOL, ["bit", 1]):   # p4c: a bool casts to bool and bit<1> only
            self.bool_field_operand(ir, n.loc, f"cast to {tstr(untagged(t))}", n.a)
        elif t == ["bit", 1] and et == t and ir.get("op") == "field" and self.is_bool_header_field(ir):
            return {"op": "cast", "a": {"op": "cast", "a": ir, "t": BOOL}, "t": t}   # (bit<1>)h.flag
        nt = newtype_name(t) or self.newtype_of(n.type)
        # (a field declared of a `type` read through a cast to its underlying type is no longer of
        # that type: `(bit<32>)((bit<16>)hashes.reg_idx)`, whose inner cast leaves the field's IR
        # as it is -- nds-group/DUNE-bmv2, corpus23)
        src_nt = newtype_name(et) or (self.field_newtypes.get((ir["base"]["t"][1], ir["f"])) if (
            ir.get("op") == "field" and ir["base"].get("t", [None])[0] in ("header", "struct")
            and getattr(n.a, "kind", None) != "cast") else None)
        if et != t and nt is not None and src_nt is not None and nt != src_nt:
            if self.typedefs.get(nt) != et and self.typedefs.get(src_nt) != t:
                raise E(n.loc, f"cannot cast a value of type {src_nt} (underlying {tstr(self.typedefs[src_nt])}) "
                               f"to type {nt}: cast to {tstr(self.typedefs[src_nt])} first")
        elif nt is not None and nt != src_nt and et not in (self.typedefs.get(nt), t) and not (
                et == INTLIT and not newtype_name(self.typedefs.get(nt, t[:2]))):
            # (N16)x of a bit<25> x is not a width-changing cast
            raise E(n.loc, f"cannot cast {tstr(et)} to type {nt} (underlying {tstr(self.typedefs.get(nt, t))}): "
                           f"cast to {tstr(self.typedefs.get(nt, t))} first")
        elif src_nt is not None and nt != src_nt and t != self.typedefs.get(src_nt, et) \
                and (untagged(t) != untagged(et) or newtype_name(self.typedefs.get(src_nt, et))):
            under = self.typedefs.get(src_nt, untagged(et))
            raise E(n.loc, f"cannot cast a value of type {src_nt} (underlying {tstr(under)}) to "
                           f"{tstr(t)}: cast to {tstr(under)} first")
        out = self.cast(ir, untagged(et), untagged(t), n.loc)
        return dict(out, t=t) if out.get("t") != t else out

    def cast(self, ir, et, t, loc):
        if BOOL in (et, t) and "serenum" in (et[0], t[0]):   # (p4c: `(bool)E.A` of an enum bit<1>, `(E)true`)
            raise E(loc, f"cannot cast {tstr(et)} to {tstr(t)} (p4c: type error; an enum converts to and from its "
                         "underlying type only)")
        if t[0] == "serenum":
            if is_bits(et) and et[:2] != t[2][:2]:
                # p4c: an enum is made from its own underlying type only ("Cannot unify type
                # 'bit<8>' with type 'Color'"; p4c_mutate `far`: was accepted, a later use named)
                raise E(loc, f"cannot cast {tstr(et)} to enum {t[1]} (underlying {tstr(t[2])}); "
                             f"cast to {tstr(t[2])} first")
            inner = self.cast(ir, et, t[2], loc)
            # p4c folds no comparison with an enum value cast from anything (has_enum_cast_cmp):
            # its constant folding makes `(E)(8w0x5c)[7:4]` or `(E)(4w2 + 4w4)` a cast of a
            # constant, which stays (fuzz_exprs seed 7804)
            if inner.get("op") in ("bin", "un", "cast"):
                # (E)(E.a + 1): the arithmetic keeps its underlying type (its width), the
                # enum type goes on a cast around it; so does a cast, whose own type is its
                # width (`(E)(bit<4>)8w0x15` is E's 5: its constant folds through both casts)
                out = {"op": "cast", "a": inner, "t": t}
            else:
                out = inner | {"t": t}
            return out | {"enum_cast": True} if self.fold(inner) is not None else out
        if et[0] == "serenum":
            if t == INTLIT:   # (p4c_mutate seed 87: `(int)c` of an enum was accepted)
                raise E(loc, f"illegal cast from {et[1]} to int (p4c); cast to {tstr(et[2])} first")
            if is_bits(t) and t != et[2]:
                # p4c: an enum converts to its own underlying type only
                raise E(loc, f"cannot cast enum {et[1]} (underlying {tstr(et[2])}) to {tstr(t)}; "
                             f"cast to {tstr(et[2])} first")
            et = et[2]
            ir = dict(ir, t=et)
        if t[0] in ("header", "struct") and et[0] in ("header", "struct"):
            # p4c: only a list or structure expression takes a header/struct type by a cast;
            # `(h_t)hdr.h`, `(S)s` -- even to its own type -- are "cast not supported"
            raise E(loc, f"{t[1]}: cast not supported (a {et[0]} value cannot be cast; only a list or "
                         f"structure expression can be given the type {t[1]})")
        if et == t:
            return ir
        if et == ["invalid_hdr"] and t[0] == "header":
            return {"op": "invalid_hdr", "t": t}  # (h_t){#}: p4c 1.2.4.8 needs the cast
        if et == ["invalid_hdr"] and t[0] == "struct" and self.structs[t[1]].get("union"):
            return self.default_value(t, loc)   # (U){#}: the union with no valid member
        if t == INTLIT and is_bits(et):
            # (int)x of a constant: its value, signed as its type reads it (p4c folds it)
            v = self.fold(ir)
            if v is None:
                # a run-time value: p4c 1.2.4.8 accepts it, and its BMv2 back end gives `int` a
                # width of 0 -- the JSON masks the value with 0 (`x & 0x00`), so it reads 0
                # wherever it is used (measured: (int)hdr.h.a + 1 == 1 on BMv2)
                return {"op": "const", "v": 0, "t": INTLIT, "runtime_int": True}
            return {"op": "const", "v": v, "t": INTLIT}
        if et[0] in ("list", "sinit") and t[0] in ("header", "struct"):
            return self.coerce((ir, et), t, loc)  # (s_t){a = 1, ...}, (h_t){1, 2}
        if t == BOOL:
            if et == INTLIT and self.fold(ir) not in (0, 1):
                raise E(loc, f"only 0 and 1 can be cast to bool, not {self.fold(ir)}")
            if et == ["bit", 1] or et == INTLIT:
                return {"op": "cast", "a": ir, "t": BOOL}
            raise E(loc, f"cannot cast {tstr(et)} to bool")
        if is_bits(t):
            if et == BOOL:
                v = self.fold(ir)
                if t != ["bit", 1] and isinstance(v, (bool, int)):
                    # p4c folds a constant bool to 1 or 0 of any width: (int<8>)true
                    return {"op": "const", "v": int(bool(v)), "t": t}
                if t != ["bit", 1]:
                    raise E(loc, f"cannot cast bool to {tstr(t)} (only to bit<1>)")
                return {"op": "cast", "a": ir, "t": t}
            if is_bits(et) or et == INTLIT:
                if is_bits(et) and et[0] != t[0] and et[1] != t[1]:
                    v = self.fold(ir)
                    if isinstance(v, int) and not isinstance(v, bool):
                        # a constant: p4c folds the cast before it checks types (`(bit<16>)8s-5`
                        # is 0xfffb, `(int<4>)8w200` is -8; probed, helper mutz21)
                        return {"op": "const", "v": wrap(v, t), "t": t}
                    raise E(loc, f"cannot cast {tstr(et)} to {tstr(t)} (change width and sign in "
                                 "two casts)")
                return {"op": "cast", "a": ir, "t": t}
        raise E(loc, f"cannot cast {tstr(et)} to {tstr(t)}")

    def untyped_newtype_arg(self, ir_t, t, loc) -> None:
        """An untyped integer for an action's or function's parameter of a ``type`` (``a(3)`` for
        ``action a(P_t v)``, ``type bit<9> P_t``): p4c types the literal as the underlying bits and
        cannot unify them with the new type -- in a direct call, a default action, an entry -- where
        an initializer or assignment (``P_t x = 3;``) takes it (errs23 d_tr_default_arg_untyped)."""
        if ir_t[1] == INTLIT and (nt := newtype_name(t)) is not None:
            raise E(loc, f"Cannot unify type '{tstr(untagged(t))}' with type '{nt}' (p4c: an untyped integer for a "
                         f"parameter of type {nt}; write ({nt})...)")

    def arg_value(self, arg: Node, t, scope):
        """A function's ``in`` argument of parameter type ``t`` (p4c names an untyped integer for a
        ``type`` parameter at the argument)."""
        ir_t = self.expr(arg, scope)
        self.untyped_newtype_arg(ir_t, t, arg.loc)
        return self.coerce(ir_t, t, arg.loc)

    def serenum_arg(self, ir_t, p: dict, arg: Node, what: str, call_loc=None):
        """The argument of an action's directionless parameter of a serializable enum type (held
        as its bits): p4c takes that enum's values only ("Cannot unify type 'bit<2>' with type
        'foo_t'"; p4_16_errors/serEnumImplCast: `default_action = set_x(2w0)`) -- a header
        field declared of that enum (held as its bits too) is one.

        The other way round too: a value of a serializable enum (a member, a field declared of
        the enum, a ``?:`` of members, an enum-typed parameter) for an action's ``bit<W>``
        parameter, directionless or ``in`` -- in a direct call, a default action, an entry or
        an actions list's bound argument -- is p4c's "Cannot unify type 'E' with type 'bit<W>'",
        named at the call (``call_loc``): an action call takes no implicit cast from the enum,
        where a function's or an extern method's ``in`` parameter does (omec-project/up4's
        ``set_source_iface(..., Slice.DEFAULT)`` for a ``slice_id_t`` parameter; corpus22).
        ``(bit<W>)E.X`` and ``E.X + 1`` are bits and pass."""
        t = ir_t[1]
        self.untyped_newtype_arg(ir_t, p["t"], call_loc or arg.loc)
        if p.get("enum") and not p.get("dir") and self.enum_of(*ir_t) != p["enum"]:
            raise E(arg.loc, f"{what}: {expr_text(arg)}: cannot unify type {tstr(t)} with type {p['enum']} "
                             f"(the type of parameter {p['name']}; p4c takes no implicit cast to a serializable enum)")
        if not p.get("enum") and p.get("dir") in (None, "", "in") and p["t"][0] in ("bit", "int") \
                and (enum := self.enum_of(*ir_t)) is not None:
            raise E(call_loc or arg.loc, f"{what}: {expr_text(arg)}: cannot unify type {enum} with type {tstr(p['t'])} "
                                         f"(parameter {p['name']}; p4c takes no implicit cast from a serializable "
                                         "enum to an action's parameter)")
        return ir_t

    def enum_of(self, ir, t):
        """The serializable enum of a value: its type's, or -- a header/struct field declared of
        such an enum, which is held as its bits -- the field's; None for others."""
        if t[0] == "serenum":
            return t[1]
        if isinstance(ir, dict) and ir.get("op") == "field" and ir["base"].get("t", [None])[0] in ("header", "struct"):
            return self.field_enums.get((ir["base"]["t"][1], ir["f"]))
        return None

    def enum_arms(self, a, at, b, bt) -> tuple:
        """The types of a ``?:``'s arms where one is a serializable enum and the other a header or
        struct field declared of it (held as its bits): both that enum, as p4c types them (fuzz_mutants
        ``--kinds mux_expr`` seed 1187: ``h.v = ((E1)h.a == h.v) ? (E1)h.a : h.v``)."""
        if at != bt and at[0] == "serenum" and self.enum_of(b, bt) == at[1] and bt == at[2]:
            return at, at
        if at != bt and bt[0] == "serenum" and self.enum_of(a, at) == bt[1] and at == bt[2]:
            return bt, bt
        return at, bt

    def entry_arg_serializable(self, arg: Node, p: dict, what: str, scope=None) -> None:
        """An argument of a const entry's action that p4c's P4Runtime serializer cannot write (it
        accepts the program without P4Runtime output, and dies or errs writing the P4Info):
        a cast to a ``type`` (``a((T8)3)``: "unsupported argument expression"), a value of a
        ``bit<0>`` parameter ("Compiler Bug: Unexpected width 0"; errs17 probe ap_*_const).  A
        default action takes both."""
        if not what.endswith("entry"):
            return
        if arg.kind == "cast" and newtype_name(self.resolve_type(arg.type)):
            raise E(arg.loc, f"{expr_text(arg)}: unsupported argument expression (p4c: a cast to a type in an "
                             "entry's action argument)")
        cast = arg
        if arg.kind == "name" and scope is not None:   # (a constant holding such a cast: named at its value)
            ent = scope.lookup(arg.name)
            decl = self.__dict__.get("const_decls", {}).get(id(ent[1])) if ent and ent[0] == "const" else None
            cast = decl[1] if decl is not None and isinstance(decl[1], Node) else arg
        if cast.kind == "cast" and self.resolve_type(cast.type)[0] == "serenum":
            # (p4c's P4Runtime serializer writes an enum's members only, not a cast to one,
            # even of a member's value: errs62 probes se2_ent_*)
            # (an error where the table is kept -- an unapplied one compiles: elab_tables' target_error)
            self.__dict__.setdefault("entry_serializer_errors", []).append(E(
                cast.loc, f"({self.resolve_type(cast.type)[1]}) cast: unsupported argument expression (p4c: a "
                          "cast to a serializable enum in an entry's action argument)"))
        if p["t"] == ["bit", 0]:
            raise E(arg.loc, f"{what}: an argument of the bit<0> parameter {p['name']}: p4c's P4Runtime serializer "
                             "dies on it (Compiler Bug: Unexpected width 0)")

    def serenum_shift_operands(self, n: Node, op: str, a, at, b, bt):
        """The operand types of a shift where a serializable enum takes part as its underlying
        type, as p4c 1.2.4.8 types it (``h.a << Sx.B``, ``(Sx)h.b << 1``: the result is
        ``bit<8>``).  Its constant folder refuses what is left: a constant enum shifted by a
        constant ("expected an integer value"), a signed enum amount (negative: "not
        permitted"; non-negative: its type checker's Compiler Bug; run-time: "must be unsigned")."""
        if at[0] != "serenum" and bt[0] != "serenum":
            return at, bt
        if at[0] == "serenum" and self.fold(a) is not None and self.fold(b) is not None:
            raise E(n.a.loc, f"{expr_text(n.a)}: expected an integer value (p4c's constant folding "
                             f"of a shift of a {at[1]} constant)")
        if bt[0] == "serenum" and bt[2][0] == "int":
            v = self.fold(b)
            if v is None:
                raise E(n.b.loc, "shift amount must be unsigned")
            if v < 0:
                raise E(n.loc, f"{expr_text(n.a)} {op} {expr_text(n.b)}: Shifts with negative amounts are not permitted")
            raise E(n.loc, f"{expr_text(n.a)} {op} {expr_text(n.b)}: a shift by a constant of the signed enum {bt[1]} (p4c: Compiler "
                           "Bug: typechecking should not infer new types anymore)")
        return (at[2] if at[0] == "serenum" else at), (bt[2] if bt[0] == "serenum" else bt)
