"""The program, its V1Switch blocks, controls, sub-controls, extern instances and functions
(parsers: ``elab_parsers``; action declarations: ``elab_actions``).

A mixin of :class:`switch.compiler.elaborate.Elaborator`: ``self`` holds the program-wide
tables (headers, structs, actions, tables, ...) and the current block context ``self.ctx``.
"""
from __future__ import annotations

import re

from .ast import Node, annotation, walk
from .elab_common import custom_crc, E, INTLIT, is_bits, Scope, tstr, UNSUPPORTED_OBJECTS, V1_OBJECTS, newtype_name
from .elab_types import INT32_MAX, MAX_ARRAY
from .extern_params import by_position, CONSTRUCTORS, PACKAGES
from .errors import Loc, P4CompileError
from .checks_generic import check_generic_operands
from .checks_decls import check_pkginfo
from .lexer import NON_TYPE_KEYWORDS, tokenize
from .parser import Parser
from .preprocessor import Line
from .table_successors import check_single_apply, check_table_successors, midend_kept_tables
from .key_copies import propagate_key_copies
from .switch_cases import drop_unvisited_locals


def _direction_fits(p: Node, want_dir: str) -> bool:
    """A block parameter's direction against v1model's (``inout|in``: either)."""
    return (p.direction or "") in want_dir.split("|")


class BlockRules:
    # ---------------------------------------------------------------- program
    # top-level declarations that each introduce one name (functions and extern functions may
    # be overloaded by their parameters; error and match_kind declarations merge)
    _UNIQUE_KINDS = {"header", "struct", "header_union", "typedef", "const", "enum", "parser", "control",
                     "parser_type", "control_type", "package", "instance", "action", "extern_obj"}

    @staticmethod
    def annotation_expr(text: str, loc: Loc) -> Node | None:
        """An annotation argument's text (tokens joined by spaces) parsed as one expression, as
        p4c parses the bodies of the annotations it knows (``@field_list(1 + 1)``); None where it
        is not one (elab_types.field_list_index; here, not there: the lexer imports elab_types)."""
        ps = Parser(tokenize([Line(loc.file, loc.line, text)]))
        n = ps.expr()
        return n if ps.t.kind == "eof" else None

    def check_v1model_version(self, v: Node) -> None:
        """``V1MODEL_VERSION`` (v1model.p4: ``const bit<32> __v1model_version = V1MODEL_VERSION;``)
        must be one non-negative integer literal: p4c's BMv2 backend fails on anything else."""
        if v.kind != "int" or v.value < 0 or v.width is not None:
            # (at the program's #define, where cpp puts the macro's tokens; p4c itself dies silently)
            raise E(self.macro_locs.get("V1MODEL_VERSION") or v.loc,
                    "V1MODEL_VERSION must be a non-negative integer literal such as 20200408")

    def check_top_level_names(self) -> None:
        seen: dict[str, Node] = {}
        for d in self.decls:
            name = getattr(d, "name", None)
            if not isinstance(name, str) or d.kind not in self._UNIQUE_KINDS | {"function", "extern_func"}:
                continue
            prev = seen.get(name)
            if prev is not None and prev.kind == d.kind in ("control", "parser"):
                # (two controls or two parsers of one name: p4c takes both while nothing names them,
                # and says "Z: multiple matching declarations" at the first use; errs69 dup_control_control)
                _ambiguous_block_use(self.decls, name)
                continue
            if prev is not None and (prev.kind in self._UNIQUE_KINDS or d.kind in self._UNIQUE_KINDS):
                # (p4c: "Re-declaration of E with different type: control E" at the later one, before
                # it type-checks either: `enum bool E` beside `control E`, helper errs28)
                other = f" with different type: {d.kind} {name}" if d.kind != prev.kind else ""
                raise E(d.loc, f"Re-declaration of {name}{other} (previous declaration: {prev.kind} {name} at {prev.loc})")
            if prev is not None and {prev.kind, d.kind} == {"function", "extern_func"}:
                # (an extern function and a function, whatever their parameters: p4c's "DD duplicates
                # DD." at the later one; two functions or two extern functions it takes; errs69 dup_extern_fn)
                raise E(d.loc, f"{name} duplicates {name} (previous declaration: {prev.kind} {name} at {prev.loc})")
            seen.setdefault(name, d)
            if d.kind in ("control", "parser"):
                ref = _self_reference(d, d.name)
                if ref is not None:   # p4c checks every block, applied or not
                    raise E(ref.loc, f"{d.kind} {d.name} refers to itself ({d.name}.apply): "
                                     "self-referencing types are not supported")

    def run(self) -> dict:
        main = self.declare_all()
        if main is None:   # (p4c type-checks every block first: p4_16_errors/issue2230)
            err = self.first_block_error({}, None)
            if err is not None:
                raise err
            raise E(Loc(self.source, 1, 1), "program has no 'main' package instance "
                                            "(expected e.g. 'V1Switch(...) main;')")
        return self.build_in_declaration_order(main)

    def declare_all(self) -> Node:
        """Declare every top-level declaration in program order (types, constants, actions,
        functions, externs, instances); parsers and controls are only named here.  Returns
        the ``main`` instance."""
        main = None
        self.check_top_level_names()
        for d in self.decls:
            k = d.kind
            if k in ("header", "struct", "header_union") and d.get("tparams"):
                self.generic_structs[d.name] = d   # declared per use (elab_types.specialize)
            elif k in ("header", "struct", "header_union"):
                self.declare_struct(d)
            elif k == "typedef":
                ty = d.type
                if ty.kind == "typename" and ty.name in self.generic_structs and not ty.get("args"):
                    # (p4c names the typedef: a variable `G v;` is named at the struct, elab_types.specialize)
                    raise E(d.loc, f"{d.name}: `type' can only be applied to base types" if d.get("newtype") else
                            f"{ty.name}: no type parameters supplied for generic type")
                with self.translation_errors_kept([]) as bad:
                    self.typedefs[d.name] = self.resolve_type(d.type, in_decl=True)
                if bad:   # raised where the typedef is used (elab_types._resolve_type)
                    self.__dict__.setdefault("typedef_translation_errors", {})[d.name] = bad[0]
                self.typedef_nodes[d.name] = d
                if getattr(d, "newtype", False):
                    self.newtypes[d.name] = {"t": self.typedefs[d.name], "annos": d.annos}
            elif k == "const":
                if d.name == "__v1model_version":
                    self.check_v1model_version(d.value)
                with self.translation_errors_kept([]) as bad:
                    t = self.resolve_type(d.type)
                    if t[0] == "extern":   # (p4_16_errors/const_e: `const I x = I();`)
                        raise E(d.value.loc, f"{d.name}: Cannot evaluate initializer for constant (a constant "
                                             f"cannot be of the extern type {t[1]})")
                    ir = self.declared_constant(t, d.value, self.global_scope)
                if ir is None:
                    raise E(d.value.loc, f"constant {d.name} is not a compile-time constant")
                if bad:   # raised where the constant is used (elab_expressions)
                    ir = dict(ir, translation_error=bad[0])
                self.global_scope.add(d.name, ("const", ir))
                self.__dict__.setdefault("const_decls", {})[id(ir)] = (ir, d.value)   # (a key's name: elab_tables)
            elif k == "enum":
                self.declare_enum(d)
            elif k == "error_decl":
                if len(set(d.members)) != len(d.members):
                    dup = next(m for m in d.members if d.members.count(m) > 1)
                    raise E(d.loc, f"error {dup} declared twice in one error declaration")
                for m in d.members:
                    if m in self.errors:   # p4c: "Duplicates declaration", also of core.p4's errors
                        raise E(d.loc, f"error {m} is already declared")
                    self.errors.append(m)
            elif k == "match_kind":
                if len(set(d.members)) != len(d.members):
                    dup = next(m for m in d.members if d.members.count(m) > 1)
                    raise E(d.loc, f"match_kind {dup} declared twice")
                self.match_kinds.update(d.members)
                self.__dict__.setdefault("match_kind_decls", {}).update((m, d) for m in d.members)
            elif k in ("extern_obj", "extern_func"):
                self.externs[d.name] = d
                for m in ([d] if k == "extern_func" else d.methods):
                    for p in m.params:   # (p4c: "parameter cannot have type control I", as a package's)
                        self.block_kind_of(p.type)
            elif k == "action":
                self.global_scope.add(d.name, ("action", d.name))
                self.action_nodes[d.name] = d
                self.declare_action(d, d.name, self.global_scope)
            elif k == "function":
                check_generic_operands(d, self.decls)
                with self.translation_errors_kept([]) as bad:
                    self.declare_function(d)
                if bad:   # raised where the function is called
                    rec = self.functions.get(d.name)
                    if rec is not None:
                        rec.setdefault("deferred_error", bad[0])
                    else:
                        raise bad[0]
            elif k in ("parser", "control"):
                self.global_scope.add(d.name, (k, d))
                self.check_block_param_types(d)
            elif k in ("parser_type", "control_type"):
                self.block_types[d.name] = k[:-5]
            elif k == "package":
                for p in d.params:   # (p4c: "parameter cannot have type control I" at the declaration; errs26)
                    self.block_kind_of(p.type)
            elif k == "instance":
                if d.name == "main":
                    main = d
                else:
                    self.top_instance(d)
            # parser_type, control_type, package: declarations only
        for err in self.__dict__.pop("untyped_top", ()):   # (check_type_arity)
            raise err
        return main   # (None: no main, see run)

    # ---------------------------------------------------------------- build
    def build(self, main: Node) -> dict:
        t = main.type
        self.main_annos = main.get("annos") or []   # @pkginfo, @brief ...: the P4Info's pkg_info
        check_pkginfo(self.main_annos)
        if t.kind != "typename" or t.name != "V1Switch":
            raise E(main.loc, "the embedded target implements the v1model architecture: "
                              "main must be a V1Switch(...)")
        roles = ["parser", "verify_checksum", "ingress", "egress", "compute_checksum", "deparser"]
        blocks, ctor_args, names, args = {}, {}, {}, {}
        for role, arg, ent in self.package_blocks(main):
            args[role] = arg
            want = ent[0]
            if arg.fn.name in NON_TYPE_KEYWORDS:   # `control key`: p4c parses `key()` as a call (p4c_mutate seed 99)
                raise E(arg.loc, f"{arg.fn.name} is not a method (p4c reads '{arg.fn.name}' as a keyword, not a "
                                 f"type: '{arg.fn.name}()' cannot instantiate {want} {arg.fn.name}; rename it)")
            bp, mp = self.decl_pos(ent[1]), self.decl_pos(main)
            if bp is not None and mp is not None and bp > mp:   # p4c resolves names where they are used
                raise E(arg.loc, f"V1Switch argument {role}: {arg.fn.name}: declaration not found "
                                 f"({want} {arg.fn.name} is declared after main)")
            # p4c's SpecializeAll: a block with constructor parameters, given arguments that
            # are all constants or instantiations (or defaults; no instance declared elsewhere),
            # becomes a new type named <Name>_<n>, which names its tables, actions, value sets and
            # externs (an extern instantiated in an argument: <Name>_<n>.<parameter>_<m>)
            qname = ent[1].name
            gen = bool(getattr(ent[1], "ctor_params", None)) and \
                not any(self.names_instance(a) for a in arg.args)
            if gen:
                qname = self.generated_name(qname)
            ctor_args[role] = self.ctor_constants(ent[1], arg.args, self.global_scope, arg.loc, qname, gen)
            names[role] = qname
            blocks[role] = ent[1]
        self.check_signatures(blocks, main)
        self.check_field_list_indexes(self.resolve_type(blocks["parser"].params[2].type))
        ir_blocks = {}
        self.block_names = {}
        self._top_block = blocks["parser"]   # a block instantiating itself: see declare_instance
        ir_blocks["parser"] = self.elab_parser(blocks["parser"], prefix=names["parser"], consts=ctor_args["parser"],
                                               top=True)
        for role in roles[1:]:
            self._top_block = blocks[role]
            ir_blocks[role] = self.elab_control(blocks[role], role, prefix=names[role], consts=ctor_args[role], top=True)
        if names["ingress"] == names["egress"] and _makes_nodes(ir_blocks["ingress"]["body"]):
            # one control as ingress and egress: p4c's JSON names each of its tables/conditionals
            # twice, and simple_switch_grpc answers the pipeline config, then dies on it (errs27)
            self.load_refusal(args["egress"].fn.loc, f"{names['egress']} is V1Switch's ingress and egress: Duplicate "
                                                  "objects of type 'control node' (simple_switch dies loading p4c's JSON)")
        subs, locs = getattr(self, "subcontrols", []), getattr(self, "table_locs", {})
        folded = self.__dict__.get("midend_folded_ifs") or {}
        for role in roles[1:]:
            check_single_apply(ir_blocks[role]["body"], subs, locs, self.source, folded, self.fold)
            check_table_successors(ir_blocks[role]["body"], subs, locs, self.source, getattr(self, "exit_locs", {}),
                                   folded, self.fold)
        self.midend_kept = midend_kept_tables([ir_blocks[r]["body"] for r in roles[1:]], subs, self.fold, folded,
                                              {q: [k.get("expr") for k in t.get("keys") or ()] for q, t in self.tables.items()})
        return self.finish(ir_blocks, blocks)

    # v1model.p4's block types: (direction, type) per parameter; "H"/"M" are the package's
    # type variables, the same type in every block
    SIGNATURES = {
        "parser": [("", "packet_in"), ("out", "H"), ("inout", "M"), ("inout", "standard_metadata_t")],
        "verify_checksum": [("inout|in", "H"), ("inout", "M")],
        "ingress": [("inout", "H"), ("inout", "M"), ("inout", "standard_metadata_t")],
        "egress": [("inout", "H"), ("inout", "M"), ("inout", "standard_metadata_t")],
        "compute_checksum": [("inout", "H"), ("inout", "M")],
        "deparser": [("", "packet_out"), ("in", "H")],
    }

    def package_blocks(self, main: Node) -> list:
        """``[(role, argument, scope entry)]`` of a V1Switch instance: six instantiations
        ``Name()`` of a parser, then five controls (named arguments put in place on the AST,
        which checks.py reads too)."""
        main._attrs["args"] = by_position(main.args, PACKAGES["V1Switch"], "V1Switch", main.loc)
        if len(main.args) != 6:
            raise E(main.loc, f"V1Switch takes 6 arguments, got {len(main.args)}")
        roles = ["parser", "verify_checksum", "ingress", "egress", "compute_checksum", "deparser"]
        out = []
        for role, arg in zip(roles, main.args):
            if arg.kind != "call" or arg.fn.kind != "name":
                raise E(arg.loc, f"V1Switch argument {role} must be an instantiation like Name()")
            ent = self.global_scope.lookup(arg.fn.name)
            want = "parser" if role == "parser" else "control"
            if ent is None or ent[0] != want:
                raise E(arg.loc, f"V1Switch argument {role}: {arg.fn.name} is not a {want}")
            if ent[1].get("tparams"):   # (p4c: no V1Switch block is generic, named type arguments or not)
                raise E(arg.loc, f"{arg.fn.name}: could not infer a type for variable {ent[1].tparams[0]} "
                                 f"(a generic {want} cannot be an argument of V1Switch; p4c)")
            out.append((role, arg, ent))
        return out

    def check_other_package(self, d: Node) -> None:
        """A V1Switch instance besides ``main``: p4c type-checks it (its BMv2 back end builds
        ``main`` only), so its arguments are checked as main's, and nothing is built of it."""
        self.check_signatures({role: ent[1] for role, _, ent in self.package_blocks(d)}, d)

    def check_signatures(self, blocks: dict, main: Node) -> None:
        """Each V1Switch argument's parameters against v1model's block type (as p4c's type
        checker unifies them): count, directions, fixed types, one H and one M throughout."""
        bound: dict[str, tuple] = {}
        for (role, sig), arg in zip(self.SIGNATURES.items(), main.args):
            blk = blocks[role]
            if len(blk.params) != len(sig):
                raise E(arg.loc, f"V1Switch argument {role}: {blk.kind} {blk.name} has {len(blk.params)} "
                                 f"parameter(s), v1model's {role} type has {len(sig)}")
            for p, (want_dir, want_t) in zip(blk.params, sig):
                # verify_checksum's headers: p4c's own newer samples declare them `in`
                if not _direction_fits(p, want_dir):
                    msg = (f"parameter {p.name} of {blk.kind} {blk.name} is '{p.direction or 'directionless'}', "
                           f"v1model's {role} type declares it '{want_dir or 'directionless'}'")
                    # the block fits a V1Switch parameter of other types (a deparser given as
                    # verify_checksum): the arguments are swapped, so name the argument; where the
                    # types are the same (compute_checksum / verify_checksum) a direction is wrong
                    other = next((r for r, s in self.SIGNATURES.items() if len(s) == len(blk.params)
                                  and [t for _, t in s] != [t for _, t in sig]
                                  and all(map(_direction_fits, blk.params, (d for d, _ in s)))), None)
                    if other:
                        raise E(arg.loc, f"V1Switch argument {role}: {blk.kind} {blk.name} has the parameters of "
                                         f"v1model's {other} type ({msg}): are V1Switch's arguments swapped?")
                    raise E(p.loc, f"{msg}: {blk.name} does not match package V1Switch")
                t = self.resolve_type(p.type)
                if want_t in ("H", "M"):
                    if want_t in bound and bound[want_t][0] != t:
                        raise E(p.loc, f"parameter {p.name} of {blk.kind} {blk.name} has type {tstr(t)}, but "
                                       f"{bound[want_t][1]} binds V1Switch's type {want_t} to {tstr(bound[want_t][0])}")
                    bound.setdefault(want_t, (t, f"{blk.kind} {blk.name}"))
                elif t[-1] != want_t and tstr(t) != want_t:
                    raise E(p.loc, f"parameter {p.name} of {blk.kind} {blk.name} has type {tstr(t)}, "
                                   f"v1model's {role} type expects {want_t}")
        mt = bound.get("M", (None,))[0]
        if mt is not None and (mt[0] != "struct" or self.structs.get(mt[1], {}).get("union")):
            # (p4c's BMv2 back end: "bit<8>: expected the user metadata type to be a struct")
            raise E(blocks["parser"].params[2].type.loc or main.loc,
                    f"{tstr(mt)}: expected the user metadata type to be a struct")
        self.user_headers_type = bound.get("H", (None,))[0]   # (elab_load_refusals.refuse_local_union_stack)
        if mt is not None:
            self.user_meta_type = mt   # (elab_load_refusals.refuse_struct_data)
            self.refuse_union_in_metadata(mt)
        targs = main.type.get("args") or []   # `V1Switch<H, M>(...) main;`: explicit type arguments
        if targs and len(targs) != 2:
            raise E(main.loc, f"V1Switch takes 2 type arguments, got {len(targs)}")
        for ta, var in zip(targs, ("H", "M")):
            if ta.kind == "dontcare":
                continue
            t = self.resolve_type(ta)
            if var in bound and bound[var][0] != t:
                raise E(ta.loc, f"V1Switch type argument {var} is {tstr(t)}, but {bound[var][1]} uses "
                                f"{tstr(bound[var][0])}")

    def header_bytes(self, name: str) -> int:
        return self.headers[name]["bytes"]

    # ---------------------------------------------------------------- controls
    def bind_params(self, params, scope, expected, what) -> list:
        out = []
        for i, p in enumerate(params):
            t = self.resolve_type(p.type)
            pn = "p_" + p.name
            scope.add(p.name, ("var", {"op": "var", "n": pn, "t": t}, p.direction or "in"))
            out.append({"name": p.name, "py": pn, "t": t})
            self.param_default(out[-1], p)
        return out

    def names_instance(self, a: Node) -> bool:
        """Whether constructor argument ``a`` names an instance declared elsewhere (top level)."""
        if a.kind == "named_arg":
            a = a.value
        ent = self.global_scope.lookup(a.name) if a.kind == "name" else None
        return ent is not None and ent[0] == "object"

    def generated_name(self, base: str) -> str:
        """p4c's fresh name for ``base``: ``base_0``, then ``base_1`` ..."""
        n = self.__dict__.setdefault("_generated_names", {}).get(base, 0)
        self._generated_names[base] = n + 1
        return f"{base}_{n}"

    def elab_control(self, c: Node, role: str, prefix: str | None = None, consts=(), top: bool = False) -> dict:
        self.__dict__.setdefault("elaborated_blocks", set()).add(id(c))   # (elab_order)
        prefix = prefix or c.name
        sub = prefix != c.name and not top
        scope = Scope(self.global_scope)
        params = []
        bound = self.__dict__.get("apply_bound_objects", {})
        for p in c.params:
            if sub and (prefix, p.name) in bound:
                # an extern instance passed at apply time (`control C(..., register<T> r)`): the
                # one object every apply of this instance passes (see bind_apply_objects)
                scope.add(p.name, bound[(prefix, p.name)])
                params.append({"name": p.name, "py": "p_" + p.name, "t": ["extern", p.name], "dir": "in",
                               "bound_object": bound[(prefix, p.name)][2]["name"]})
                continue
            t = self.resolve_type(p.type)
            # scalar parameters of a sub-control live in L so that its actions can write them
            pn = ("L.p_" if sub and t[0] not in ("struct", "header", "stack", "extern") else "p_") + p.name
            var_ir = {"op": "var", "n": pn, "t": t}
            if sub and t[0] == "varbit":   # a box, as a varbit local (bits `v`, length)
                var_ir = {"op": "field", "base": var_ir, "f": "v", "t": t}
            scope.add(p.name, ("var", var_ir, p.direction or "in"))
            params.append({"name": p.name, "py": pn, "t": t, "dir": p.direction or "in",
                           **({"const_arg": True} if p.direction is None and t[0] != "extern" else {})})
            self.param_default(params[-1], p)
            if sub and p.direction in (None, "in"):
                self.note_algo_param(var_ir, params[-1])
        if not sub:
            n_expected = {"verify_checksum": 2, "compute_checksum": 2, "deparser": 2}.get(role, 3)
            if len(params) != n_expected:
                raise E(c.loc, f"control {c.name} used as {role} must have {n_expected} parameters, "
                               f"has {len(params)}")
        saved = getattr(self, "ctx", None)
        self.ctx = {"kind": "control", "block": prefix, "role": role, "scope": scope, "node": c, "sub": sub,
                    "mk_params": params}
        self.bind_ctor_args(consts, scope)
        locals_ = []
        early = self.__dict__.setdefault("early_locals", {})
        for d in c.locals:
            self.ctx["ctl_local"] = True
            # (an extern instance declared already, for a sub-control instance: _declare_later_object)
            if id(d) in early:
                self.place_early_objects(d)
                locals_.extend(early.pop(id(d)))
            else:
                locals_.extend(self.local_decl(d, prefix, scope))
            self.ctx["ctl_local"] = False
        self.ctx["apply_body"] = True   # (its divisions are decided with the locals' constants)
        # p4c's RemoveReturns runs on a control whose body holds a return, and then takes an exit
        # as one too (elab_common.always_returns)
        from .elab_ctor import _ast_nodes
        self.ctx["exits_return"] = any(n.kind == "return" for n in _ast_nodes(c.body))
        body = drop_unvisited_locals(self.stmt(c.body, Scope(scope)), hdr_bytes=lambda t: self.headers[t[1]]["bytes"])
        self.settle_match_kind_stores(locals_ + body)   # (first: the divisions of stores p4c drops go)
        self.refuse_metadata_local_copies(locals_ + body)
        self.check_control_constants(locals_, body)
        self.settle_unbound_calls(body)
        roots = {p["py"] for p in params}
        propagate_key_copies(body, self.tables, self.actions, lambda p: p.startswith("L.") or p.split(".")[0] in roots,
                             self.subcontrol_of)
        end = self.ctx.get("end_copies") if sub else None
        self.ctx = saved
        return {"name": prefix, "params": params, "locals": locals_, "body": body, **({"end_copies": end} if end else {})}

    def local_decl(self, d: Node, cname: str, scope: Scope) -> list:
        k = d.kind
        if k == "action":
            q = f"{cname}.{d.name}"
            hides = scope.names.get(d.name)   # (a control parameter the action's name shadows after it)
            scope.add(d.name, ("action", q))
            self.declare_action(d, q, scope, hides)
            return []
        if k == "table":
            q = self.declare_table(d, f"{cname}.{d.name}", scope)
            scope.add(d.name, ("table", q))
            return self.ctx.pop("extra_locals", [])
        if k == "instance":
            return self.declare_instance(d, cname, scope)
        return self.local_stmt(d, scope)

    def local_stmt(self, d: Node, scope) -> list:
        if d.kind == "value_set":
            if self.ctx.get("kind") != "parser":
                raise E(d.loc, "value_set is only allowed in a parser")
            t = self.resolve_type(d.type)
            if t[0] in ("header", "varbit", "error", "string") or t == INTLIT or \
                    t[0] == "struct" and self.structs[t[1]].get("union"):
                # (p4c's type checker, used or not: bits, int<N>, bool, enums, `type`, structs and tuples only)
                what = "int" if t == INTLIT else tstr(t) if t[0] in ("varbit", "error", "string") else t[1]
                raise E(d.type.loc, f"{what}: Illegal type for value_set element type")
            try:
                fields, bad = self.value_set_fields(t, d.type.loc), None
            except P4CompileError as err:  # p4c drops an unused value set before it checks its type
                fields, bad = [], err
            q = f"{self.ctx['block']}.{d.name}"
            na = annotation(d.annos, "name")
            if na:
                q = na[1][0][1:] if na[1][0].startswith(".") else f"{self.ctx['block']}.{na[1][0]}"   # one dot off
            uid = annotation(d.annos, "id")
            rec = {"name": q, "py": "VS_" + q.replace(".", "_"), "width": sum(f["width"] for f in fields) if fields else t[1] if is_bits(t) else 1,
                   "t": t, "fields": fields, "bad": bad,
                   # (p4c: 0 is fine; a negative size only where the value set is used: check_user_ids)
                   "size": self.const_int(d.size, "value_set size", maximum=MAX_ARRAY, scope=scope), "size_loc": d.size.loc,
                   "uid": (uid[1] or [None])[0] if uid else None, "annos": d.annos}
            self.__dict__.setdefault("object_blocks", {})[q] = self.ctx["block"]   # (drop_unapplied_subparsers)
            if not hasattr(self, "value_sets"):
                self.value_sets = []
            self.value_sets.append(rec)
            scope.add(d.name, ("value_set", rec))
            return []
        if d.kind == "instance":
            return self.declare_instance(d, self.ctx["block"], scope)
        return self.stmt(d, scope)

    def declare_instance(self, d: Node, cname: str, scope: Scope) -> list:
        t = d.type
        tname = t.name if t.kind == "typename" else None
        seen = 0
        while tname in self.typedef_nodes and not t.get("args") and seen < 20:
            # `typedef register<bit<8>> R; R(4) r;`: the instance of the named extern type
            seen += 1
            t = self.typedef_nodes[tname].type
            tname = t.name if t.kind == "typename" else None
        # p4c 1.2.4.8 lists an instance declared through a typedef (`typedef counter C; C(4,
        # CounterType.packets) c;`) only once a method call uses it, and a register so declared
        # never (`typedef register<bit<8>> R;`: dropped when dead, "Compiler Bug: expected
        # Type_Specialized" when live); object_call clears the mark of a used counter or meter
        hidden = bool(seen)
        q = f"{cname}.{d.name}" if cname else d.name  # cname "": a top-level extern instance
        name_anno = annotation(d.annos, "name")
        if name_anno:
            nm = name_anno[1][0]   # p4c takes one leading dot off (`@name("..x")` is ".x")
            q = nm[1:] if nm.startswith(".") else nm if not cname else f"{cname}.{nm}"   # a top-level one's is global
            self.note_empty_name(q, tname, name_anno)
        uid = annotation(d.annos, "id")
        uid = (uid[1] or [None])[0] if uid else None
        if tname in UNSUPPORTED_OBJECTS:
            # p4c 1.2.4.8 declares Checksum16 (deprecated, a warning) and only its BMv2 back end
            # refuses it, as it refuses a program's own extern: a call of its methods where the
            # call survives ("could not convert expression to Json", "Only calls to
            # update_checksum ... allowed"), else the instance ("unknown extern instance", at
            # v1model.p4's declaration); a type error anywhere comes first (p4xos-public's acceptor.p4)
            udecl = self.externs.get(tname)
            if udecl is None:
                self.target_error(d.loc, f"extern {tname} is not supported by the embedded target")
            self.user_extern_instance(udecl, d, scope)
            return []
        self.check_type_arity(t, tname, d.name)
        if d.get("init") is not None and tname in V1_OBJECTS:   # (`register<bit<8>>(4) r = { };`: errs74)
            raise E(d.loc, f"{d.name}: instance initializers for extern without abstract methods (p4c: {tname} "
                           "has none)")
        if d.get("init") is not None and tname not in self.externs:   # (`C() c = { };`)
            raise E(d.loc, f"{d.name}: initializers only allowed for extern instances (p4c)")
        if tname not in V1_OBJECTS:
            ent = self.global_scope.lookup(tname) if tname else None
            if ent and ent[0] in ("control", "parser") and ent[0] == self.ctx.get("kind"):
                tps = getattr(ent[1], "tparams", None) or []
                if not t.args and tps:   # `G(8w3) g;`: p4c infers T from the constructor arguments
                    bindings = self.infer_ctor_type_args(ent[1], tps, d.args, scope)
                    if len(bindings) != len(tps):
                        # (p4c: the instance's first apply cannot unify T -- "'s.apply' ... Cannot unify
                        # type 'header h_t' with type 'T'"; an unapplied one is named itself; errs20)
                        from .elab_ctor import _ast_nodes
                        use = next((n for n in _ast_nodes(self.ctx.get("node")) if n.kind == "call"
                                    and n.fn.kind == "member" and n.fn.name == "apply" and n.fn.base.kind == "name"
                                    and n.fn.base.name == d.name), None)
                        raise E(use.loc if use is not None else d.loc,
                                f"{ent[0]} {tname} takes {len(tps)} type argument(s), got 0 (and its "
                                "constructor arguments do not give them: p4c cannot unify T at the apply)")
                elif len(t.args or ()) != len(tps):
                    raise E(d.loc, f"{ent[0]} {tname} takes {len(tps)} type argument(s), got {len(t.args or ())}")
                else:
                    bindings = {tp: self.resolve_type(a) for tp, a in zip(tps, t.args or ())}
                saved_bindings = getattr(self, "type_bindings", None)
                if bindings:   # `control G<T>(inout T x)(T inc)`: the constructor's T is the type argument
                    self.type_bindings = {**(saved_bindings or {}), **bindings}
                try:
                    consts = self.ctor_constants(ent[1], d.args, scope, d.loc, q)
                finally:
                    self.type_bindings = saved_bindings
                cur = self.current_block()
                bp, cp = self.decl_pos(ent[1]), self.decl_pos(cur)
                if bp is not None and cp is not None and bp > cp:
                    raise E(d.loc, f"{tname}: declaration not found ({ent[0]} {tname} is declared after "
                                   f"{cur.kind} {cur.name}, which instantiates it)")
                if ent[1] is getattr(self, "_top_block", None):
                    # `control C(...) { C() c; ... }`: p4c refuses it (through another block:
                    # sub_block's guard over the blocks being elaborated)
                    raise E(d.loc, f"{ent[0]} {tname} instantiates itself (p4c: self-referencing types not supported)")
                if ent[0] == "control":
                    self.bind_apply_objects(ent[1], d.name, q, scope)
                self.sub_block(ent[0], ent[1], d.name, q, consts, scope, d.loc, bindings)
                return []
            if ent and ent[0] in ("parser", "control"):
                # a control in a parser, a parser in a control: p4c refuses it only where the
                # instance is applied (an unused one is removed first; probed, helper mutz21);
                # its constructor arguments are type-checked all the same
                self.ctor_constants(ent[1], d.args, scope, d.loc, q)
                scope.add(d.name, ("misplaced_block", E(d.loc, f"{d.name}: instantiation of {ent[0]} in "
                                                                f"{self.ctx.get('kind')}: {ent[0]} {tname} cannot "
                                                                "be instantiated here (p4c)")))
                return []
            udecl = self.externs.get(tname) if tname else None
            if udecl is not None and udecl.kind == "extern_obj":
                # a program's own extern object: p4c type-checks its uses; its BMv2 back end refuses
                # a method call, not the instance (elab_externs.user_extern_call)
                self.user_extern_instance(udecl, d, scope)
                return []
            raise E(d.loc, f"cannot instantiate {tname or t.kind} here")
        args = by_position(d.args, CONSTRUCTORS.get(tname), tname, d.loc)
        self.__dict__.setdefault("object_blocks", {})[q] = cname   # (drop_unapplied_subcontrols)
        py = "X_" + re.sub(r"\W", "_", q)   # (`@name("c c")`: p4c and BMv2 take any name; elab_tables alike)
        if tname in ("counter", "meter"):
            if len(args) != 2:
                raise E(d.loc, f"{tname} takes (size, type)")
            # p4c 1.2.4.8 accepts a size of 0 (a counter no index reaches) and a negative one:
            # the size is a bit<32> (-1 is 2**32-1 in its JSON) and the P4Info's int32 takes
            # at most 2**31-1. Such a program compiles; the switch refuses to allocate more
            # than its limit of cells when it loads (as BMv2 cannot either)
            size = self.const_int(args[0], f"{tname} size", bit32=True, scope=scope) % (1 << 32)
            unit = self.enum_member(args[1], "CounterType" if tname == "counter" else "MeterType")
            rec = {"name": q, "py": py, "size": size, "unit": unit, "uid": uid, "annos": d.annos,
                   "where": str(d.loc)}   # (named where BMv2 cannot allocate it: runtime/bmv2_memory)
            if hidden:
                rec["p4info_hidden"] = True
            if size > INT32_MAX:
                rec["p4info_size"] = INT32_MAX
            self.add_object(tname + "s", rec, d.loc)
            itype = self.resolve_type(t.args[0]) if t.args else ["bit", 32]
            scope.add(d.name, ("object", tname, rec, itype))
        elif tname in ("direct_counter", "direct_meter"):
            if len(args) != 1:
                raise E(d.loc, f"{tname} takes (type)")
            unit = self.enum_member(args[0], "CounterType" if tname == "direct_counter" else "MeterType")
            rec = {"name": q, "py": py, "unit": unit, "uid": uid, "table": None, "annos": d.annos}
            if tname == "direct_meter" and t.args:   # direct_meter<T>: read(out T result)
                self.__dict__.setdefault("direct_meter_types", {})[q] = self.resolve_type(t.args[0])
            if tname == "direct_meter":   # where p4c names an unattached one
                self.__dict__.setdefault("direct_meter_decls", {})[q] = d.loc
            self.__dict__.setdefault("direct_decls", {})[q] = d.loc   # (and one attached twice: elab_tables)
            self.add_object(tname + "s", rec, d.loc)
            scope.add(d.name, ("object", tname, rec, None))
        elif tname in ("action_profile", "action_selector"):
            rec = self.profile_record(tname, args, q, uid, d.annos, d.loc, scope)
            scope.add(d.name, ("object", tname, rec, None))
        elif tname == "register":
            if len(args) != 1 or not t.args:
                raise E(d.loc, "register<T>(size) needs a type argument and a size")
            if t.args[0].kind == "dontcare" or t.args[0].get("name") == "_":   # (`register<_>(4) r;`: errs23)
                self.untyped_register_use(d.name, "Could not infer a type for parameter (register<_>)")
            vt = self.resolve_type(t.args[0])
            enum = vt[1] if vt[0] == "serenum" else None
            if enum:  # register<SerEnum>: cells hold the underlying bits (P4Info names the enum)
                vt = vt[2]
            plain_enum = vt[1] if vt[0] == "enum" else None
            if plain_enum:   # register<PlainEnum>: p4c's 32-bit cells hold the member's number
                vt = ["bit", 32]
            struct_cells = vt[0] == "struct" and not self.structs.get(vt[1], {}).get("union")
            if not is_bits(vt) and not struct_cells:
                raise E(t.args[0].loc, "register values must be bit<N>/int<N> or a serializable enum")
            if struct_cells:   # (p4c's back end refuses the instance, unless a read is refused first:
                # elab_object_calls.object_call, ElabOutput.finish; measured by helper opens2)
                err = E(d.loc, f"{q}: Only registers with bit or int types are currently supported (p4c)")
                err.after_type_checking = True
                self.__dict__.setdefault("struct_register_errors", []).append(err)
            if vt[1] == 0:   # (p4c's BMv2 back end, for an instance it keeps; helper errs16)
                self.target_error(t.args[0].loc, "register<bit<0>>: bit<0>: unknown width (p4c)")
            # any bit<32> size compiles (the switch allocates cells lazily, runtime/externs.py); p4c's
            # P4Info generator refuses one past its int32 size, used or not (p4c 1.2.4.8, helper regs)
            size = self.const_int(args[0], "register size", minimum=1, bit32=True, scope=scope)
            if size > INT32_MAX:
                raise E(args[0].loc, f"Register '{q}' has a size that doesn't fit in an integer: 32w{size:#x}")
            rec = {"name": q, "py": py, "size": size, "width": 0 if struct_cells else vt[1], "vt": vt, "uid": uid,
                   "annos": d.annos, "enum": enum, "signed": vt[0] == "int", "newtype": newtype_name(vt), "where": str(d.loc),
                   **({"plain_enum": plain_enum} if plain_enum else {})}
            if hidden:
                rec["p4info_hidden"] = True
            self.add_object("registers", rec, d.loc)
            itype = self.resolve_type(t.args[1]) if len(t.args) > 1 else ["bit", 32]
            scope.add(d.name, ("object", "register", rec, itype))
        return []

    def infer_ctor_type_args(self, blk: Node, tps, args, scope) -> dict:
        """The type parameters of a generic parser/control that its constructor arguments give:
        a parameter declared of type ``T`` takes the type of its (typed) argument."""
        out = {}
        for p, a in zip(getattr(blk, "ctor_params", None) or [], args or []):
            a = a.value if a.kind == "named_arg" else a
            if p.type.kind == "typename" and p.type.name in tps and p.type.name not in out:
                at = self.expr(a, scope)[1]
                if at != INTLIT:
                    out[p.type.name] = at
        return out

    def profile_record(self, tname: str, args, q: str, uid, annos, loc, scope=None) -> dict:
        """An action_profile(size) / action_selector(algo, size, width) instance."""
        want = 1 if tname == "action_profile" else 3
        if len(args) != want:
            raise E(loc, f"{tname} takes {want} argument(s), got {len(args)}")
        rec = {"name": q, "uid": uid, "annos": annos, "tables": [], "algo": None, "width": 0, "loc": loc}
        if tname == "action_selector":
            rec["algo"] = custom_crc(self.enum_member(args[0], "HashAlgorithm"))
            if rec["algo"] == "random":   # (p4c compiles it; errs17 probe x_as_random_algo)
                self.load_refusal(args[0].loc, "Unknown hash algorithm: random (BMv2 refuses p4c's JSON)")
                rec["algo"] = "crc16"
            if rec["algo"] not in ("crc32", "crc16", "csum16", "identity", "xor16"):
                raise E(args[0].loc, f"hash algorithm {rec['algo']} is not supported")
            # p4c 1.2.4.8 accepts a size or an output width of 0 (the P4Info then has no size),
            # and any bit<32> width: its JSON carries none (BMv2 picks the member by the whole
            # hash), so one above 64 is kept as 64
            rec["size"] = self.profile_size(args[1], "action_selector", scope)
            rec["width"] = min(64, self.const_int(args[2], "action_selector output width", bit32=True, scope=scope) % (1 << 32))
        else:
            rec["size"] = self.profile_size(args[0], "action_profile", scope)
        self.add_object("action_profiles", rec, loc)
        return rec

    def profile_size(self, n, tname: str, scope) -> int:
        """An action profile's/selector's size: any bit<32> value up to INT_MAX (p4c 1.2.4.8 writes it
        as the JSON's max_size and BMv2 allocates nothing for it; helper errs31's s_ap_*/s_as_*); past
        INT_MAX (-1 included) p4c's "Value too large for int"."""
        v = self.const_int(n, f"{tname} size", bit32=True, scope=scope) % (1 << 32)
        if v > INT32_MAX:
            raise E(n.loc, f"{tname} size 32w{v}: Value too large for int (p4c)")
        return v

    def add_object(self, key: str, rec: dict, loc) -> None:
        """A counter/meter/register/profile instance; two of one kind with the same
        control-plane name are an error, as in p4c ("Name 'x' is used for multiple counter
        objects in the P4Info message")."""
        if key in ("direct_counters", "direct_meters"):
            # checked once the tables are known (check_direct_names): p4c drops an unattached one
            self.__dict__.setdefault("direct_locs", {})[id(rec)] = loc
        elif any(o["name"] == rec["name"] for o in self.objects[key]):
            kind = key[:-1].replace("_", " ")
            raise E(loc, f"name '{rec['name']}' is used for more than one {kind} object in the P4Info")
        self.objects[key].append(rec)

    def enum_member(self, n: Node, enum: str, scope=None) -> str:
        if n.kind == "member" and n.base.kind == "name" and n.base.name == enum:
            if n.name not in self.enums[enum]["members"]:
                raise E(n.loc, f"{enum} has no member {n.name}")
            return n.name
        ent = (scope or self.global_scope).lookup(n.name) if n.kind == "name" else None
        if ent and ent[0] == "const" and ent[1].get("t") == ["enum", enum]:
            # `const HashAlgorithm AL = HashAlgorithm.crc32;` (p4c substitutes the constant)
            return next(m for m, i in self.enums[enum]["members"].items() if i == ent[1]["v"])
        past = (getattr(self, "ctx", None) or {}).get("no_midend_state")   # (elab_statements: past an exit)
        if ent and ent[0] == "var" and ent[1].get("t") == ["enum", enum]:
            # a local initialized with a member and not written since (p4c propagates it); past an
            # exit, the value it had where it was last read before (note_enum_read)
            v = self.__dict__.get("enum_var_reads" if past else "enum_var_values", {}).get(ent[1].get("n"))
            if v is not None:
                self.note_enum_read(ent[1])
                return next(m for m, i in self.enums[enum]["members"].items() if i == v)
        past_exit = " (past an exit its mid end has none: 'Type_Enum ... not yet handled')" if past else ""
        raise E(n.loc, f"expected a {enum} member (or a constant of type {enum}: p4c takes a "
                       f"variable only where its constant propagation finds one value{past_exit})")

    def note_enum_read(self, var: dict) -> None:
        """A read of enum local ``var`` (its IR) before any statement that always exits: p4c's
        front-end def-use keeps the stores read there and drops those read only past the exit, and
        its mid end's copy propagation goes on past the exit with what is left, so there the local
        has the value of its last read before the exit (unknown -- None -- where that read found
        none; fuzz_mutants seed 4332 with --kinds cast_slice,exit_stmt,switch_wrap)."""
        if var.get("t", [None])[0] == "enum" and not (getattr(self, "ctx", None) or {}).get("no_midend_state"):
            self.__dict__.setdefault("enum_var_reads", {})[var.get("n")] = \
                self.__dict__.get("enum_var_values", {}).get(var.get("n"))

    def decl_pos(self, d) -> int | None:
        """Index of top-level declaration ``d`` in the program (None for one made here)."""
        if not hasattr(self, "_decl_index"):
            self._decl_index = {id(x): i for i, x in enumerate(self.decls)}
        return self._decl_index.get(id(d))

    def current_block(self):
        """The control or parser declaration being elaborated: the innermost sub-block instance
        (``_active_subs``, pushed by ``sub_block``) or else the top-level block of this role."""
        active = getattr(self, "_active_subs", None)
        return active[-1] if active else getattr(self, "_top_block", None)



def _self_reference(n, name: str):
    """The first ``name.apply`` inside the AST ``n`` (a control/parser applying itself), or None."""
    todo = [n]
    while todo:
        x = todo.pop()
        if isinstance(x, Node):
            if x.kind == "member" and x.get("name") == "apply" and isinstance(x.get("base"), Node) \
                    and x.base.kind == "name" and x.base.get("name") == name:
                return x
            todo.extend(v for v in x._attrs.values() if isinstance(v, (Node, list, tuple)))
        elif isinstance(x, (list, tuple)):
            todo.extend(v for v in x if isinstance(v, (Node, list, tuple)))
    return None


def _ambiguous_block_use(decls, name: str) -> None:
    """Raise p4c's error at the first use (an instantiation `Z()`, a type `Z`) of ``name``, the
    name of two controls or of two parsers; nothing when nothing uses it."""
    for n in walk(decls):
        if n.kind == "call" and n.fn.kind == "name":
            n = n.fn   # (an instantiation `Z()`; a plain name `Z` may be a local's)
        elif n.kind != "typename":
            continue
        if n.get("name") == name:
            raise E(n.loc, f"{name}: multiple matching declarations (two {name} blocks are declared)")


def _makes_nodes(stmts) -> bool:
    """Statements p4c's JSON has a table or conditional for: anything but (nested) blocks,
    local declarations and an ``if`` with empty branches (p4c removes those)."""
    for st in stmts or ():
        if st.get("s") == "block":
            if _makes_nodes(st.get("body")):
                return True
        elif st.get("s") == "if":
            if _makes_nodes(st.get("then")) or _makes_nodes(st.get("else")) or st.get("then") is None:
                return True
        elif st.get("s") != "decl":
            return True
    return False
