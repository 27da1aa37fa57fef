"""Programs p4c compiles whose BMv2 JSON simple_switch refuses to load.

p4c 1.2.4.8 compiles each construct below without a word, and simple_switch(_grpc) 1.15.5 refuses
the JSON it writes (an error message, or an assertion / uncaught exception that kills it while
it loads).  checkmate-p4c compiles these programs too -- the held-back measure counts what p4c
accepts -- and notes a :meth:`load_refusal`: the build's ``load_error`` makes checkmate-switch
refuse it as BMv2 refuses p4c's JSON, naming the construct at ``file:line:col``.  A refusal is
kept like a back-end error (elab_externs.target_error): only where the code survives p4c's front
end (not in an unused action, an unreachable parser state, a function nobody calls).

Each was probed on simple_switch_grpc with p4c's JSON (helpers errs15, errs16; the programs are
tests/p4c/test_load_refused.py's, which start simple_switch on p4c's JSON for each):

* ``bool`` as the result of ``hash``, ``random`` or ``execute_meter``, or as ``hash``'s maximum:
  p4c passes a ``d2b``/``b2d`` expression as the primitive's field argument, and simple_switch
  dies on an assertion (actions.cpp: "Invalid expression type");
* ``bool`` as ``hash``'s base: "Parameter type 'bool' not supported";
* a ``bool`` anywhere in ``hash``'s data (a header's bool field, ``isValid()``, a comparison, a
  struct with a bool member): "Unsupported input type 'expression' for calculation";
* a ``direct_meter<bool>`` read: the meter's ``result_target`` is an expression, and
  simple_switch dies on a ``Json::LogicError`` ("requires arrayValue");
* a table key on a field (or ``isValid()``) of a header stack element with a run-time index
  (``hdr.s[hdr.h.a].a``): p4c keeps the expression as the key's target, same death -- a
  slice of it is computed into a temporary first and loads;
* a list inside the data list of ``hash`` or a checksum (``{ a, { b } }``), and a
  ``verify_checksum`` whose checksum argument is no field (a constant, a local, a slice): the same
  ``Json::LogicError``;
* ``packet.lookahead<bool>()``: "Invalid 'type' in expression: 'lookahead'";
* ``hash`` in the deparser (p4c puts it in the deparser's primitives): "Invalid reference to object
  of type 'calculation' with name 'calc'" -- simple_switch loads the deparsers before the
  calculations (a digest, ``log_msg`` or ``truncate`` there loads: helper mutz33);
* a header union in the user metadata struct (or a struct in it): "Invalid reference to object
  of type 'header type' with name 'u_t'" (a stack of unions loads).
* a whole header stored into a stack element at a run-time index p4c's constant propagation does
  not fold (an assignment in a control, an action or a parser state, an action's or function's
  ``out``/``inout`` argument): "Invalid 'type' in expression: ''" (:meth:`note_element_store`,
  helper opens6).

Helper errs17's probes: the user metadata struct, a copy of it, or another struct reached through
a parameter in hash/checksum/digest data (:meth:`refuse_struct_data`); a stack element given as a list
or struct initializer (elab_values.stack_from_list); duplicate initial entries of an applied table,
now named at the later entry (:meth:`refuse_duplicate_entries`; checkmate-switch refused them before
too, without a position).

The ones of earlier rounds (an unknown hash algorithm, a user match_kind, duplicate switch
labels, negative action data) call :meth:`load_refusal` where they are elaborated."""
from __future__ import annotations

from .ast import Node
from .copy_paths import ir_path, overlap, path_reads
from .elab_common import BOOL, E, expr_text, ir_dicts, ir_replace, tstr
from .meta_locals import action_writes, parser_surviving_reference, surviving_reference
from .table_keys import bmv2_key_shape, runtime_index_key

BMV2_ASSERT = "simple_switch dies loading p4c's JSON: Assertion `0 && \"Invalid expression type\"' failed"
LOOKAHEAD_BOOL = "Invalid 'type' in expression: 'lookahead' (simple_switch refuses p4c's JSON)"
DEPARSER_HASH = ("a hash in the deparser: Invalid reference to object of type 'calculation' (simple_switch loads "
                 "the deparsers before the calculations and refuses p4c's JSON)")
BMV2_JSON_ARRAY = ("simple_switch dies loading p4c's JSON: Json::LogicError: in Json::Value::operator[](ArrayIndex)"
                   "const: requires arrayValue")


class LoadRefusalRules:
    """Mixin of the Elaborator: BMv2's load refusals of p4c-compiled programs (module docstring)."""

    def isvalid_ir(self, base, ir) -> dict:
        """``base.isValid()``.  ``hs.last.isValid()`` (in a parser: ``last`` is refused elsewhere):
        p4c writes the field ``[["hs", "last"], "$valid$"]``, a list where simple_switch 1.15.5 wants
        the header's name, and it refuses the JSON ("Json::LogicError: Type is not convertible to
        string"; errs22 probe a_stk_last_isvalid).  ``hs[i].isValid()`` with a run-time index anywhere
        (a condition, a value, a key): p4c writes the field ``[{dereference_header_stack ..}, "$valid$"]``
        and simple_switch refuses the JSON (helper errs25)."""
        if base.kind == "member" and base.name == "last":
            first = base
            while first.kind == "member":
                first = first.base
            self.load_refusal(first.loc, f"{expr_text(base)}.isValid(): p4c writes a field of the stack's last "
                                   "element that simple_switch cannot load (Json::LogicError: Type is not "
                                   "convertible to string)")
        out = {"op": "isvalid", "h": ir, "t": BOOL}
        if runtime_index_key(out):   # (errs25 probes ss_*: a condition, a bool, in an action or a parser;
            # setValid()/setInvalid() of such an element load)
            first = base
            while first.kind in ("member", "index"):
                first = first.base
            self.load_refusal(first.loc, f"{expr_text(base)}.isValid(): p4c writes the validity field of a header "
                                        "stack element at a run-time index, which simple_switch refuses to load "
                                        "(Json::LogicError: Type is not convertible to string)")
        return out

    def refuse_local_union_isvalid(self, ir: dict, base) -> None:
        """``u.isValid()`` of a whole header union that is not reached through a control's or
        parser's parameter (a local, a struct local's member, a function's parameter -- p4c's
        inlining copies it into one): p4c writes the union instance's name as a ``header``
        operand and simple_switch refuses the JSON ("Invalid reference to object of type 'header'
        with name 'u_0'"; errs54 probes j_ul_*).  ``hdr.u.isValid()`` and ``u.a.isValid()`` load."""
        root = ir
        while root.get("op") == "field":
            root = root["base"]
        if root.get("op") == "var" and str(root.get("n", "")).startswith("p_") and self.ctx is not None \
                and self.ctx.get("kind") != "function":
            return
        if self.ctx is not None and (self.ctx.get("folded_branch") or self.ctx.get("dead")):
            return   # (a branch p4c removes: `if (false) { .. }` loads)
        self.load_refusal(base.loc, f"{expr_text(base)}.isValid() of a header union that is not a field of the "
                                    "headers (a local, a copy, a stack element): "
                                    f"Invalid reference to object of type 'header' with name '{expr_text(base)}' "
                                    "(simple_switch refuses p4c's JSON)")

    def refuse_local_union_stack(self, base: dict, et, loc) -> None:
        """An element of a stack of header unions that is a local variable (``u_t[2] l; l[0].a =
        ..``): p4c keeps the local (one it removes, unused, loads) and simple_switch refuses its JSON
        -- "Invalid reference to object of type 'header type' with name 'h2_t'", or dies with
        std::out_of_range (unordered_map::at) where the member types are used elsewhere (errs54
        probes p_ls_*).  A union stack in the headers loads."""
        if not (et[0] == "struct" and self.structs.get(et[1], {}).get("union")):
            return
        root = base
        while root.get("op") == "field":
            root = root["base"]
        if root.get("op") != "var" or str(root.get("n", "")).startswith("p_"):
            return
        if self.ctx is not None and (self.ctx.get("folded_branch") or self.ctx.get("dead")):
            return
        if et[1] in self._header_union_types(self.__dict__.get("user_headers_type")) or \
                et[1] in self._plain_union_locals():
            return   # (the headers or a plain local hold a union of that type: p4c writes the type,
            # simple_switch loads it -- errs17_union_stack_from_list_and_dots)
        self.load_refusal(loc, f"an element of a local stack of header unions ({tstr(et)}): simple_switch refuses "
                               "p4c's JSON (Invalid reference to object of type 'header type', or std::out_of_range)")

    def _plain_union_locals(self) -> set:
        """The types of the program's variables declared as a plain named type (not a stack):
        where one is a header union, p4c writes its header_union_types entry."""
        if "_plain_var_types" not in self.__dict__:
            out, todo = set(), list(self.decls)
            while todo:
                x = todo.pop()
                if isinstance(x, Node):
                    if x.kind == "var" and isinstance(x.get("type"), Node) and x.type.kind == "typename":
                        out.add(x.type.name)
                    todo.extend(v for v in x._attrs.values() if isinstance(v, (Node, list, tuple)))
                elif isinstance(x, (list, tuple)):
                    todo.extend(x)
            self._plain_var_types = out
        return self._plain_var_types

    def _header_union_types(self, t, depth: int = 0) -> set:
        """The header union types held by struct type ``t`` (V1Switch's headers): fields, stacks
        and nested structs."""
        out: set = set()
        if not t or t[0] != "struct" or depth > 20 or t[1] not in self.structs:
            return out
        for _f, ft in self.structs[t[1]]["fields"]:
            ft = self.stack_elem(ft) if ft[0] == "stack" else ft
            if ft[0] == "struct" and self.structs.get(ft[1], {}).get("union"):
                out.add(ft[1])
            elif ft[0] == "struct":
                out |= self._header_union_types(ft, depth + 1)
        return out

    def load_refusal(self, loc, message: str) -> None:
        """A construct p4c compiles whose BMv2 JSON simple_switch refuses to load: checkmate-p4c
        compiles it too, as p4c does, and the build's ``load_error`` makes checkmate-switch refuse
        it as BMv2 refuses p4c's JSON.  Kept like a :meth:`target_error` (only where the code
        survives p4c's front end)."""
        if self.ctx is not None and self.ctx.get("after_plain_exit"):
            return   # (past a plain exit p4c's JSON has nothing of it: simple_switch loads it; fuzz_mutants 2673)
        err = E(loc, message)
        err.after_type_checking = True
        err.load_refusal = True
        if self.ctx is None or not self.defer_error(err):   # (ctx None: a declaration's, e.g. V1Switch's types)
            self.raise_deferred(err)

    def raise_deferred(self, err) -> None:
        """Raise a (deferred) back-end error; a :meth:`load_refusal` is noted for the build instead."""
        if getattr(err, "load_refusal", False):
            self.__dict__.setdefault("load_refusals", []).append(err)
            return
        raise err

    def refuse_bool_operand(self, t, loc, what: str, words: str = BMV2_ASSERT) -> None:
        """``what`` (e.g. "hash result") of type ``bool``: BMv2 refuses p4c's JSON."""
        if t == BOOL:
            self.load_refusal(loc, f"{what} of type bool: {words}")

    def refuse_bool_data(self, data: list, loc, what: str = "hash data") -> None:
        """``data`` (flat_list's [(ir, width)]) holds a ``bool`` (flatten_value marks its cast,
        a header's bool field is one of ``bool_header_fields``): BMv2 refuses p4c's JSON."""
        if any(d.get("from_bool") or self.is_bool_header_field(d) for d, _ in data):
            self.load_refusal(loc, f"{what} with a bool: Unsupported input type 'expression' for calculation "
                                   "(simple_switch refuses p4c's JSON)")

    def refuse_nested_list(self, data, what: str) -> None:
        """A list expression inside the data list of ``hash`` or a checksum (``{ a, { b } }``):
        p4c flattens nothing there, and simple_switch dies loading its JSON."""
        inner = next((it for it in data.items if it.kind == "list"), None) if data.kind == "list" else None
        if inner is not None:
            self.load_refusal(inner.loc, f"{what}: a list inside the data list: {BMV2_JSON_ARRAY}")

    def refuse_struct_data(self, data, scope, what: str) -> None:
        """Structs in the data of ``hash``, a checksum or ``digest`` (``what``) that p4c writes as
        references BMv2 cannot resolve (helper errs17's probes hd_*, m_*):

        * the user metadata parameter itself as an element of a data list (``{ meta }``), or as a
          digest's data however given: "Invalid reference to object of type 'header' with name 'meta'";
        * a local variable or action parameter of the user metadata's type as hash or digest data
          (``meta_t m2 = meta; hash(..., m2, ...)``): "No field 'userMetadata.m8' can be found in
          header type 'meta_t'";
        * another struct reached through a parameter (``{ hdr }``, ``{ meta.s }``) as an element of
          a hash or checksum data list: the Json::LogicError of :func:`refuse_nested_list`.

        A bare ``meta``/``hdr`` as hash or checksum data, a struct local of another type, a header
        and a standard_metadata_t element all load."""
        mt = self.__dict__.get("user_meta_type")
        bare = data.kind != "list"
        digest = what == "digest"
        for it in [data] if bare else data.items:
            if it.kind not in ("name", "member"):
                continue
            ir, t = self.expr(it, scope)
            if t[0] == "struct" and self.structs.get(t[1], {}).get("union") and not bare and not digest:
                # p4c copies it into a temporary it then names as a header (errs17 probe y_hash_union_data)
                self.load_refusal(it.loc, f"{what}: the header union {expr_text(it)} inside the data list: Invalid "
                                          "reference to object of type 'header' with name 'tmp' (simple_switch "
                                          "refuses p4c's JSON)")
                continue
            if t[0] != "struct" or self.structs.get(t[1], {}).get("union"):
                continue
            param = ir.get("op") == "var" and ir["n"].startswith("p_")
            if t == mt and param and (digest or not bare):
                self.load_refusal(it.loc, f"{what} data holding the user metadata {expr_text(it)}: Invalid reference to "
                                          f"object of type 'header' with name '{expr_text(it)}' (simple_switch refuses "
                                          "p4c's JSON)")
            elif t == mt and ir.get("op") == "var" and not param and what in ("hash", "digest"):
                first = self.structs[t[1]]["fields"][0][0] if self.structs[t[1]]["fields"] else ""
                self.load_refusal(it.loc, f"{what} data: {expr_text(it)}, a copy of the user metadata: No field "
                                          f"'userMetadata.{first}' can be found in header type '{t[1]}' (simple_switch "
                                          "refuses p4c's JSON)")
            elif t != mt and t[1] != "standard_metadata_t" and not bare and not digest and (
                    param or ir.get("op") != "var"):
                self.load_refusal(it.loc, f"{what}: the struct {expr_text(it)} inside the data list: {BMV2_JSON_ARRAY}")

    def refuse_metadata_param_copy(self, rec: dict, kind: str, loc) -> None:
        """A call of function or action ``rec`` (``kind``) with an ``out``/``inout`` parameter of the
        user metadata's type whose body writes that parameter where p4c's copy propagation loses
        its value -- a field as an extern call's result (``r.read(mm.x, i)``, ``hash``,
        ``random``) or an assignment under an ``if``/``switch``: p4c's inliner copies the argument
        into a local of that type, the local survives its mid end, and p4c names its fields
        ``userMetadata.x`` in a header of type ``M`` whose fields are ``x`` -- simple_switch
        refuses the JSON ("No field 'userMetadata.x' can be found in header type 'M'";
        netx-ulx/dataplaneChangeDetection's ``UpdateRow(0, meta)``, corpus23).  Straight-line
        assignments and reads load (p4c propagates the copy away).

        In an action p4c's BMv2 back end predicates the ``if``s (helper opens6, simple_switch's verdicts
        on p4c's JSON): an assignment under an ``if`` of the callee is a Mux the copy propagation
        follows, so an action with such a parameter (called anywhere), or a function called
        unconditionally in an action, loads -- only an extern's write keeps the copy; a call under an
        ``if`` of the action (or past a conditional ``return``) predicates the copy-in itself (``m.x =
        c ? meta.x : m.x`` reads the local), and any parameter of the type -- ``in`` too -- keeps it.
        (simple_switch_grpc takes such a JSON over P4Runtime and dies with SIGSEGV on the first packet
        that runs the action: the program is refused as simple_switch refuses it.)"""
        mt = self.__dict__.get("user_meta_type")
        if mt is None:
            return
        in_action = bool(self.ctx and self.ctx.get("in_action"))
        if in_action and (self.ctx.get("if_depth") or self.ctx.get("cond_return")) and not self.ctx.get("dead"):
            for p in rec["params"]:
                if p.get("dir") in ("in", "out", "inout") and p["t"] == mt:
                    self.load_refusal(loc, f"{kind} {rec['name']} called under a condition in an action: p4c predicates "
                                           f"the copy of its parameter {p['name']} (the user metadata type {mt[1]}), which "
                                           f"survives: No field 'userMetadata.x' can be found in header type '{mt[1]}' "
                                           "(simple_switch refuses p4c's JSON)")
                    return
            return
        names = {p["py"]: p["name"] for p in rec["params"] if p.get("dir") in ("out", "inout") and p["t"] == mt}
        hit = _copy_write(rec.get("body") or [], names, False, assigns=not (in_action or kind == "action")) \
            if names else None
        if hit:
            self.load_refusal(loc, f"{kind} {rec['name']}: p4c's copy of its parameter {names[hit[0]]} (the user "
                                   f"metadata type {mt[1]}) survives ({hit[1]}): No field 'userMetadata.{hit[2]}' "
                                   f"can be found in header type '{mt[1]}' (simple_switch refuses p4c's JSON)")

    def note_element_store(self, lv: dict, loc, anchor: dict | None = None) -> None:
        """A whole header stored into a stack element at a run-time index (``hs[i] = x``, or the
        copy-back of an ``out``/``inout`` argument ``hs[i]`` of an action or function): p4c writes an
        ``assign_header`` whose destination is a ``dereference_header_stack`` expression, which
        simple_switch refuses to load ("Invalid 'type' in expression: ''"; simple_switch_grpc takes it
        over P4Runtime and dies with SIGSEGV on the first packet that runs it) -- unless p4c's constant
        propagation makes the index a constant (``m.i = 1; hs[m.i] = x`` loads): noted here, dropped
        when const_index's walk folds the index, refused by :meth:`flush_element_stores` (helper
        opens6).  A header initializer (``hs[i] = {..}``), a read (``x = hs[i]``, an ``in``
        argument) and a sub-control's argument in place load (one p4c copies: :meth:`note_aliased_element_args`)."""
        if self.ctx is None or lv.get("op") != "stack_idx" or lv["i"].get("op") == "const" or self.fold(lv["i"]) is not None:
            return
        if self.ctx.get("kind") == "function":   # (each call notes it: note_call_element_stores)
            self.ctx.setdefault("element_stores", []).append((lv, loc))
        elif self.ctx.get("kind") in ("control", "parser"):   # (``anchor``: the IR const_index's walk finds)
            self.__dict__.setdefault("element_stores", {})[id(anchor or lv)] = (lv, loc, dict(self.ctx), anchor or lv)

    def note_aliased_element_args(self, outs: list, apply: dict) -> None:
        """The ``out``/``inout`` arguments of sub-control ``apply`` (``outs``: (IR, location)) that are
        a whole header element at a run-time index: where it may alias another of them or its index
        reads one (``c.apply(hdr.h, hdr.s[hdr.h.b[1:0]])``, ``c.apply(hdr.s[0], hdr.s[i])``) p4c's
        SideEffectOrdering copies it through a temporary, whose copy-back is an assign_header into a
        dereference_header_stack (:meth:`note_element_store`); the others go the same way where the
        instance is applied more than once, its inliner's temporaries (:meth:`refuse_copied_element_args`).
        Measured, helper mutz43: alone, or beside an ``in`` argument or an ``inout`` one its index
        does not read, with one apply, it is passed in place and loads."""
        for i, (lv, loc) in enumerate(outs):
            if lv.get("op") != "stack_idx" or lv["t"][0] != "header" or self.fold(lv["i"]) is not None:
                continue
            reads = [ir_path(lv), *path_reads(lv["i"])]
            if any(j != i and (q := ir_path(o)) is not None and any(overlap(q, r) for r in reads)
                   for j, (o, _) in enumerate(outs)):
                self.note_element_store(lv, loc)
            elif self.ctx is not None and not self.ctx.get("after_plain_exit"):
                self.__dict__.setdefault("copied_element_args", {})[id(lv)] = (lv, loc, apply, lv)   # (const_index)

    def refuse_copied_element_args(self, applies: list) -> None:
        """Refuse the arguments :meth:`note_aliased_element_args` kept for an instance applied more than once
        (``applies``: those p4c keeps), alike or not: its inliner's temporaries (measured, helper mutz43) --
        unless const_index's walk folds the index (``m.x = 1; c.apply(hdr.s[m.x]);`` loads)."""
        fns = [a["fn"] for a in applies]
        kept = {id(a) for a in applies if fns.count(a["fn"]) > 1}
        for lv, loc, apply, _ in self.__dict__.pop("copied_element_args", {}).values():
            if id(apply) in kept:
                err = E(loc, f"{expr_text_ir(lv)}: a whole header element at a run-time index passed to a sub-control "
                             "applied more than once -- p4c's copy-back is an assign_header into a "
                             "dereference_header_stack: Invalid 'type' in expression: '' (simple_switch refuses p4c's JSON)")
                err.after_type_checking = err.load_refusal = True
                self.raise_deferred(err)

    def note_call_element_stores(self, f: dict, args: list, anchor: dict | None = None) -> None:
        """The element stores at a run-time index in the body of function ``f`` (a record; its
        ``element_stores``, :meth:`note_element_store` in its body), noted for this call of it (``args``:
        the argument values of its ``in`` and directionless parameters, None for the others): p4c
        inlines the function, its parameters become variables holding the arguments, and the store is
        the caller's ``assign_header`` into a ``dereference_header_stack`` -- simple_switch refuses it
        (helper mutz41: ``void f(inout headers q) { q.hs[q.h.a & 1] = q.h; }`` called; ``s[i] = v`` with
        ``i`` an ``in`` parameter) -- unless a constant argument makes the index constant (``f(hdr,
        1)`` loads, and ``m.x = 1; f(hdr, m.x);``: const_index's walk folds it at ``anchor``, a dict of
        the call's IR).  Within another function's body the store goes to that function's."""
        given = {p["py"]: a for p, a in zip(f.get("params") or (), args) if a is not None}
        for lv, loc in self.__dict__.get("fn_element_stores", {}).get(f["py"]) or ():
            i = ir_replace(lv["i"], lambda d: given.get(d.get("n")) if d.get("op") == "var" else None)
            self.note_element_store(dict(lv, i=i), loc, anchor)

    def flush_element_stores(self, parser: bool = False) -> None:
        """Refuse the noted element stores of the control just elaborated (``parser``: of the parsers)
        whose index stayed unknown."""
        stores = self.__dict__.get("element_stores") or {}
        block = (self.ctx or {}).get("block")
        for k, (lv, loc, ctx, _) in list(stores.items()):
            if (ctx.get("kind") == "parser") != parser or not parser and ctx.get("block") != block:
                continue
            del stores[k]
            if ctx.get("state") is not None:   # a parser state's (as const_index.flush_divisions has it)
                if ctx["state"] not in ctx.get("live_states", (ctx["state"],)):
                    continue   # (unreachable: p4c removes the state first)
                ctx = {x: v for x, v in ctx.items() if x != "state"}
            saved, self.ctx = self.ctx, ctx
            try:
                self.load_refusal(loc, f"{expr_text_ir(lv)} = ...: a whole header stored into a stack element at a "
                                       "run-time index -- p4c's assign_header into a dereference_header_stack: Invalid "
                                       "'type' in expression: '' (simple_switch refuses p4c's JSON)")
            finally:
                self.ctx = saved

    def refuse_metadata_local_copies(self, stmts: list) -> None:
        """A local variable of the user metadata's type that p4c's mid end keeps in body ``stmts`` (a
        control's, its locals first, or an action's): its fields are written ``userMetadata.x`` as for
        a copied parameter (:meth:`refuse_metadata_param_copy`) and simple_switch refuses the JSON
        (:mod:`.meta_locals` decides).  Named at the local's declaration."""
        leaves = self._meta_leaves(self.__dict__.get("meta_local_decls") or {})
        if leaves:
            self._refuse_meta_local(surviving_reference(stmts, leaves, self._meta_effects,
                                                        bool(self.ctx and self.ctx.get("in_action"))))

    def refuse_parser_metadata_locals(self, states: dict, live) -> None:
        """:meth:`refuse_metadata_local_copies` of a parser's reachable ``states``."""
        leaves = self._meta_leaves(self.__dict__.get("meta_local_decls") or {})
        if leaves:
            self._refuse_meta_local(parser_surviving_reference(states, live, leaves, self._meta_effects))

    def refuse_function_metadata_locals(self, f: dict) -> None:
        """:meth:`refuse_metadata_local_copies` of a call of function ``f`` from a control, action or
        parser (p4c inlines it, its locals fresh at each call): functions are elaborated before V1Switch
        gives the metadata type, so their locals (``fn_local_decls``, any struct type) are looked at
        here, in ``f`` and in the functions it calls (helper errs30; a function nobody calls loads)."""
        mt = self.__dict__.get("user_meta_type")
        if mt is None or (self.ctx or {}).get("kind") == "function":
            return
        by_py = {r["py"]: r for r in self.functions.values()}
        decls, todo, seen = self.__dict__.get("fn_local_decls") or {}, [f], set()
        in_action = bool(self.ctx and self.ctx.get("in_action"))
        while todo:
            rec = todo.pop()
            if rec["py"] in seen:
                continue
            seen.add(rec["py"])
            body = rec.get("body") or []
            ds = list(ir_dicts(body))
            mine = {d["n"]: decls[d["n"]] for d in ds if d.get("s") == "decl" and d.get("t") == mt and d.get("n") in decls}
            leaves = self._meta_leaves(mine)
            if leaves:
                self._refuse_meta_local(surviving_reference(body, leaves, self._meta_effects, in_action), mine)
            todo += [by_py[d["fn"]] for d in ds if (d.get("s") == "call_fn" or d.get("op") in ("call_fn", "call_fn_out"))
                     and d.get("fn") in by_py]

    def _refuse_meta_local(self, hit, decls: dict | None = None) -> None:
        if hit:
            py, field, how = hit
            name, loc = (decls or self.__dict__["meta_local_decls"])[py]
            mt = self.__dict__.get("user_meta_type")
            self.load_refusal(loc, f"{name}, a local of the user metadata type {mt[1]}, is kept by p4c ({how}): No field "
                                   f"'userMetadata.{field}' can be found in header type '{mt[1]}' (simple_switch "
                                   "refuses p4c's JSON)")

    def _meta_leaves(self, decls: dict) -> dict:
        """py -> the field paths of each local of the user metadata type; none where that type has a
        struct, header or stack field: p4c's NestedStructs then splits such a local into one local per
        field, which loads (/work/errs29 e_m_nested_*, e_m_hdr_in_meta_*)."""
        mt = self.__dict__.get("user_meta_type")
        fields = self.structs.get(mt[1], {}).get("fields") or [] if mt else []
        if not fields or any(ft[0] in ("struct", "header", "stack") for _, ft in fields):
            return {}
        return {py: [f"{py}.{f}" for f, _ in fields] for py in decls}

    def _meta_effects(self, st: dict):
        """(paths written, expressions read, actions) of a table apply (its keys; its actions' bodies,
        the default's too) or an action call (its arguments), for :mod:`.meta_locals`; None where unknown."""
        if st.get("s") == "call_action":
            names, reads = [st.get("action")], [a.get("e") for a in st.get("args") or () if isinstance(a, dict)]
            outs = [ir_path(a.get("e")) for a in st.get("args") or () if isinstance(a, dict) and a.get("dir") in ("out", "inout")]
        else:
            t = self.tables.get(st.get("table"))
            if t is None:
                return None
            names, reads, outs = [a.get("name") for a in t.get("actions") or ()], [k.get("expr") for k in t.get("keys") or ()], []
            names += [d] if (d := (t.get("default") or {}).get("action")) and d not in names else []
        writes = [p for p in outs if p is not None]
        for n in names:
            a = self.actions.get(n)
            if a is None:
                return None
            writes += action_writes(a.get("body"))
        return writes, reads, names

    def refuse_nested_struct_data(self, data, scope, what: str) -> None:
        """Hash or checksum data p4c writes as a JSON list inside the field list, which simple_switch
        dies loading (:data:`BMV2_JSON_ARRAY`; helper errs19's probes t3, t4): p4c writes a struct
        expression and a struct reached through a parameter as the list of their fields, so

        * given bare: a struct expression, or a struct member of a parameter (``meta.o``), with
          a struct field (``meta.o.i``) -- flat ones load, as do ``meta``/``hdr`` themselves and
          struct locals of any type;
        * inside a data list: any struct expression, and a struct local with a struct field
          (members of parameters: :meth:`refuse_struct_data`)."""
        def nested(t):
            return t[0] == "struct" and any(ft[0] == "struct" and not self.structs.get(ft[1], {}).get("union")
                                            for _, ft in self.structs.get(t[1], {}).get("fields", []))
        bare = data.kind != "list"
        for it in [data] if bare else data.items:
            sexpr = it.kind == "cast" and it.a.kind in ("struct_init", "list")
            if not sexpr and it.kind not in ("name", "member"):
                continue
            ir, t = self.expr(it, scope)
            if t[0] != "struct" or self.structs.get(t[1], {}).get("union"):
                continue
            local = ir.get("op") == "var" and not ir["n"].startswith("p_")
            member = it.kind == "member" and not local
            if (sexpr and (not bare or nested(t))) or (bare and member and nested(t)) or \
                    (not bare and local and nested(t)):
                name = f"({t[1]}){{...}}" if sexpr else expr_text(it)
                self.load_refusal(it.loc, f"{what}: the struct {name} is a list inside p4c's field list: {BMV2_JSON_ARRAY}")

    def refuse_digest_stack(self, members: list, loc) -> None:
        """A header stack in a digest's data (the data itself, a member, a struct's field at any
        depth): p4c writes it as a header_stack element of the learn list and simple_switch dies
        loading it (Assertion `type == "field"' failed; errs17 probe d_dig_stack_struct)."""
        def has_stack(t):
            if t[0] == "stack":
                return True
            if t[0] == "struct":
                return any(has_stack(ft) for _, ft in self.structs[t[1]]["fields"])
            return t[0] == "list" and any(has_stack(x) for x in t[1])
        if any(has_stack(ft) for _, ft in members):
            self.load_refusal(loc, "a header stack in the digest's data: simple_switch dies loading p4c's JSON "
                                   "(init_learn_lists: Assertion `type == \"field\"' failed)")

    def refuse_bool_selector_key(self, q: str, t, loc) -> None:
        """A ``bool`` selector key of table ``q`` (``hdr.h.b == 1: selector``): p4c lists a d2b
        expression in the selector's input and simple_switch dies loading it (process_cfg_selector:
        Assertion `type == "field"' failed; errs17 probe x_as_selector_bool)."""
        if t == BOOL:
            self.table_load_refusal(q, loc, "a bool selector key: simple_switch dies loading p4c's JSON "
                                            "(process_cfg_selector: Assertion `type == \"field\"' failed)")

    def refuse_checksum_target(self, ck: dict, loc, what: str) -> None:
        """``verify_checksum``'s checksum argument that is no field (a constant, a local
        variable, a slice, a cast or another computation): simple_switch dies loading p4c's JSON."""
        while ck.get("op") == "slice" and ck.get("lo") == 0 and ck.get("t") == (ck["a"].get("t") or [None]):
            ck = ck["a"]   # (a full-width slice: p4c's strength reduction leaves the field)
        if ck.get("op") != "field":
            self.load_refusal(loc, f"{what}: the checksum argument is not a field: {BMV2_JSON_ARRAY}")

    def table_load_refusal(self, q: str, loc, message: str, grpc_loads: bool = False) -> None:
        """A :meth:`load_refusal` in table ``q``'s declaration: kept for the table, noted only if
        something applies it (p4c removes a table nothing applies; ElabOutput.finish).
        ``grpc_loads``: simple_switch_grpc takes the pushed config all the same (the build's
        ``grpc_load_error`` leaves it out)."""
        if self.ctx is not None and self.ctx.get("after_plain_exit"):
            return   # (past a plain exit p4c's JSON has nothing of it: simple_switch loads it; fuzz_mutants 2673)
        err = E(loc, message)
        err.after_type_checking = True
        err.load_refusal = True
        err.grpc_loads = grpc_loads
        self.__dict__.setdefault("table_load_refusals", {}).setdefault(q, err)

    def refuse_duplicate_entries(self, q: str, keys: list, entries: list, locs: list) -> None:
        """Two initial entries of table ``q`` with the same match (and priority): p4c compiles them
        (no warning either), simple_switch refuses its JSON ("Duplicate entries in table
        initializer"); the refusal names the later entry (helper errs17's probes dup_*: exact,
        lpm, two keys, equal @priority on a ternary key; distinct priorities, a range or an
        optional key load).  simple_switch_grpc answers the push OK, its loader stopped at the
        duplicate (``grpc_loads``: checkmate-switch's P4Runtime load then stops there too,
        runtime/pipeline; test_p4rt_const_entries, helper p4rt53)."""
        seen = set()
        for e, loc in zip(entries, locs):
            ident = (_match_ident(e["matches"], keys), e["priority"])
            if ident in seen:
                self.table_load_refusal(q, loc, f"table {q}: this entry repeats an earlier entry's match: Duplicate "
                                                "entries in table initializer (simple_switch refuses p4c's JSON)",
                                        grpc_loads=True)
                return
            seen.add(ident)

    def bmv2_key(self, ir, loc, q: str) -> tuple[dict, bool]:
        """:func:`~.table_keys.bmv2_key_shape` of a key of table ``q``, refused where p4c keeps it as
        a field or validity of a stack element with a run-time index
        (:func:`~.table_keys.runtime_index_key`): BMv2 dies loading p4c's JSON."""
        if runtime_index_key(ir):
            self.table_load_refusal(q, loc, f"a table key on a header stack element with a run-time index: "
                                            f"{BMV2_JSON_ARRAY}")
        return bmv2_key_shape(ir)

    def refuse_union_in_metadata(self, mt) -> None:
        """A header union in the user metadata struct ``mt`` (or in a struct inside it).  Also a
        ``@field_list`` on a field of it that holds a header (a header, a stack, a struct with a header
        inside): p4c writes the element ``["scalars", "<null>"]`` into every such field list, used or not,
        and simple_switch refuses the JSON ("No field '<null>' can be found in header type 'scalars_0'";
        helper errs31, /work/errs31 progs/f)."""
        seen = set()

        def holds_header(ft, depth=0):
            if ft[0] in ("header", "stack"):
                return True
            return ft[0] == "struct" and depth < 32 and any(
                holds_header(t, depth + 1) for _, t in self.structs.get(ft[1], {}).get("fields", ()))

        def walk(name):
            if name in seen:
                return
            seen.add(name)
            for f, ft in self.structs[name]["fields"]:
                annos = self.structs[name].get("field_annos", {}).get(f) or ()
                if any(a[0] == "field_list" for a in annos) and holds_header(ft) \
                        and not (ft[0] == "struct" and self.structs.get(ft[1], {}).get("union")):
                    loc = self.__dict__.get("struct_field_locs", {}).get((name, f))
                    self.load_refusal(loc, f"@field_list on {name}.{f}, which holds a header: p4c writes the element "
                                           "<null>: No field '<null>' can be found in header type 'scalars_0' "
                                           "(simple_switch refuses p4c's JSON)")
                if ft[0] == "struct" and self.structs.get(ft[1], {}).get("union"):
                    loc = self.__dict__.get("struct_field_locs", {}).get((name, f))
                    self.load_refusal(loc, f"header union {ft[1]} in the user metadata ({name}.{f}): Invalid "
                                           f"reference to object of type 'header type' with name '{ft[1]}' "
                                           "(simple_switch refuses p4c's JSON)")
                elif ft[0] == "enum" and str(self.enums.get(ft[1], {}).get("file", "")).endswith("v1model.p4"):
                    # p4c's BMv2 back end keeps v1model.p4's enums as such and dies on one in the metadata
                    # ("Compiler Bug: ... Unhandled type for userMetadata.f"; a program's own enum compiles:
                    # helper errs25, /work/errs25 progs/me)
                    # (a back-end error: raised once elaboration is done, ElabOutput.finish -- p4c's type
                    # errors further down come first)
                    loc = self.__dict__.get("struct_field_locs", {}).get((name, f))
                    self.__dict__.setdefault("metadata_enum_errors", []).append(
                        E(loc, f"{name}.{f}: a field of v1model's enum type {ft[1]} in the user metadata (p4c 1.2.4.8: "
                               f"Compiler Bug: Unhandled type for userMetadata.{f})"))
                elif ft[0] == "struct":
                    walk(ft[1])

        walk(mt[1])


def _match_ident(matches: list, keys: list) -> tuple:
    """An entry's match as the table compares entries (runtime.tables' canonical key): exact and
    optional values, lpm prefixes, ternary value/mask pairs, range bounds; a wildcard is None."""
    by_id = {m["id"]: m for m in matches}
    out = []
    for k in keys:
        m, w = by_id.get(k["id"]), k["width"]
        if m is None:
            out.append(None)
        elif m["kind"] == "lpm":
            plen = m["prefix_len"]
            mask = ((1 << w) - 1) ^ ((1 << (w - plen)) - 1) if 0 <= plen <= w else 0
            out.append((m["value"] & mask, plen) if plen else None)
        elif m["kind"] == "ternary":
            out.append((m["value"] & m["mask"], m["mask"]) if m["mask"] else None)
        elif m["kind"] == "range":
            out.append((m["value"], m["high"]))
        else:
            out.append(m["value"])
    return tuple(out)


def expr_text_ir(e: dict) -> str:
    """A stack element lvalue of the IR as P4 writes it (for messages)."""
    if e.get("op") == "stack_idx":
        i = e["i"]
        return f"{expr_text_ir(e['st'])}[{i.get('v') if i.get('op') == 'const' else expr_text_ir(i)}]"
    if e.get("op") == "field":
        return f"{expr_text_ir(e['base'])}.{e['f']}"
    if e.get("op") == "var":
        return str(e["n"]).split("_", 1)[-1] if str(e["n"]).startswith("p_") else str(e["n"])
    return "..."


def _copy_write(stmts, names: dict, cond: bool, assigns: bool = True):
    """(variable, how, field) of the first write into a variable of ``names`` that p4c's copy
    propagation cannot follow (:meth:`LoadRefusalRules.refuse_metadata_param_copy`): an extern's
    result, or (``assigns``) an assignment under a condition; else None."""
    for st in stmts:
        if not isinstance(st, dict):
            continue
        k = st.get("s")
        lv = st.get("l")
        base = lv
        while isinstance(base, dict) and base.get("op") in ("field", "slice", "stack_idx"):
            base = base.get("base") or base.get("a") or base.get("st")
        if isinstance(base, dict) and base.get("op") == "var" and base["n"] in names and \
                (k not in ("assign", "decl") or (cond and assigns and k == "assign")):
            f = lv.get("f", "") if lv.get("op") == "field" else ""
            return base["n"], "a conditional assignment" if k == "assign" else f"written by {k}", f
        for key, v in st.items():
            if isinstance(v, list) and key not in ("args", "data"):
                hit = _copy_write(v, names, cond or k in ("if", "switch", "switch_value"), assigns)
                if hit:
                    return hit
            elif isinstance(v, dict) and v.get("s") is None and key in ("cases",):
                for body in v.values():
                    hit = _copy_write(body if isinstance(body, list) else [body], names, True, assigns)
                    if hit:
                        return hit
    return None
