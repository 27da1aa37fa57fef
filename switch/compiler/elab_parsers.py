"""Parsers: states, `select` keysets and value sets.

A mixin of :class:`switch.compiler.elaborate.Elaborator` (split from ``elab_blocks``):
``elab_parser`` turns a parser declaration (or a sub-parser, under a prefix) into its IR --
parameters, locals, states with their statements and transitions; ``keyset`` checks one
`select` case against the key types; a ``value_set<T>`` lists its P4Runtime match fields.
Unreachable states' value sets are marked unused (p4c drops them), stores p4c's def-use
drops are dropped (:mod:`.parser_defuse`; each ``?:`` first made the ``if`` on a temporary p4c's
SideEffectOrdering makes of it, ``predication.dismantle_muxes``), header-union copies are p4c's (:mod:`.union_copies`,
over the states p4c merges), and a parser that can reach neither accept nor
reject is refused.
"""
from __future__ import annotations

import json
from types import SimpleNamespace

from .ast import Node, annotation
from .elab_common import BOOL, E, expr_text, flatten_select, ir_dicts, is_bits, newtype_name, Scope, tstr, unsigned_value, untagged
from .errors import P4CompileError
from .header_init import header_path, related
from .parser_defuse import drop_dead_parser_stores, may_reject
from .predication import dismantle_muxes
from .union_copies import propagate_union_copies

# p4c's BMv2 backend on `transition reject` (BMv2 ends parsing there like accept, with the error set)
REJECT_WARNING = "Explicit transition to reject not supported on this target"


class ParserRules:
    # ---------------------------------------------------------------- parser
    def elab_parser(self, p: Node, prefix: str | None = None, consts=(), top: bool = False) -> dict:
        depth = self.__dict__.get("parser_depth", 0)
        self.parser_depth = depth + 1
        try:
            out = self._elab_parser(p, prefix, consts, top)
        finally:
            self.parser_depth = depth
        if not depth:   # (its sub-parsers are inlined into it: const_index.check_parser_constants)
            self.check_parser_constants(out)
            self.flush_divisions(parser=True)
            self.flush_element_stores(parser=True)   # (elab_load_refusals.note_element_store)
        return out

    def _elab_parser(self, p: Node, prefix: str | None, consts, top: bool) -> dict:
        self.__dict__.setdefault("elaborated_blocks", set()).add(id(p))   # (elab_order)
        scope = Scope(self.global_scope)
        params = self.bind_params(p.params, scope, ["packet_in", None, None, "standard_metadata_t"],
                                  f"parser {p.name}")
        if prefix is not None and not top:
            # out/inout scalars of a sub-parser are copied back by its caller (apply_subparser);
            # the runtime returns them after the offset
            for prm, node in zip(params, p.params):
                prm["pdir"] = node.direction or "in"   # (apply_subparser: temporaries)
                if node.direction is None and prm["t"][0] != "extern":
                    prm["const_arg"] = True   # (a compile-time constant argument: const_arg)
                if prm["t"][0] not in ("struct", "header", "stack", "extern") and \
                        node.direction in ("out", "inout"):
                    prm["copy_out"] = node.direction
                elif prm["t"][0] in ("header", "struct") and node.direction == "out":
                    prm["out_header"] = True   # invalid when the sub-parser starts (apply_subparser)
        saved = getattr(self, "ctx", None)
        self.ctx = {"kind": "parser", "block": prefix or p.name, "scope": scope, "parser_node": p,
                    "parser_locals": {d.name for d in p.locals if d.kind == "var"}}   # (parser_read_dead)
        self.bind_ctor_args(consts, scope)
        locals_ = []
        for d in p.locals:
            locals_.extend(self.local_stmt(d, scope))
        states = {}
        for s in p.states:   # (p4c's first pass, before the states are resolved; errs69 dup_parser_state_accept)
            if s.name in ("accept", "reject"):
                raise E(s.loc, f"state {s.name} is reserved (p4c: Invalid parser state: {s.name} should not be "
                               "implemented, it is built-in)")
        names = {s.name for s in p.states}
        if len(names) != len(p.states):
            seen_states: set = set()
            for s in p.states:
                if s.name in seen_states:
                    raise E(s.loc, f"parser {p.name}: state {s.name} declared twice")
                seen_states.add(s.name)
        if "start" not in names:
            raise E(p.loc, f"parser {p.name} has no start state")
        _live_state_locals_alike(p.states)
        self.ctx["state_errors"] = state_errors = {}   # state -> its first back-end error (target_error)
        self.ctx["live_states"] = live = set()   # filled below (const_index.flush_divisions reads it)
        for s in p.states:
            self.ctx["state"] = s.name
            self.ctx["state_node"] = s   # (lookahead_tuple_local)
            sscope = Scope(scope)
            body = []
            self.ctx["in_block"] = True   # (header-union copies: walked over the merged states below)
            for st in s.stmts:
                body.extend(self.stmt(st, sscope))
            self.ctx["in_block"] = False
            # p4c's SideEffectOrdering: each `?:` an `if` assigning a temporary, which the models
            # below (def-use, stack copies) and the runtime then see as p4c's front end leaves it
            body = dismantle_muxes(body, self.__dict__.setdefault("parser_muxes", SimpleNamespace(fresh=0)))
            tr = s.transition
            if tr.kind == "direct":
                if tr.to in names and tr.to in sscope.declared:
                    # a local of the state named like the state it goes to: p4c resolves the name to
                    # the local and dies (/work/e21 pf f_sl_same_name_as_state)
                    raise E(tr.loc, f"transition {tr.to}: Compiler Bug: unexpected select expression (p4c 1.2.4.8: "
                                    f"the state's local {tr.to} shadows the state)")
                if tr.to not in names and tr.to not in ("accept", "reject"):
                    raise E(tr.loc, f"unknown parser state {tr.to}")
                if tr.to == "reject" and not tr.get("implicit"):
                    self.warn(tr.loc, REJECT_WARNING)
                trans = {"kind": "direct", "to": tr.to}
            else:
                if len(tr.exprs) == 1 and tr.exprs[0].kind == "list":   # `select({ a, b }) { (1, 2): ..`: one
                    bad = next((c for c in tr.cases if len(c.keysets) > 1), None)   # key, a tuple (p4c; errs74)
                    if bad is not None:
                        raise E(tr.loc, f"select on one list expression: 'Tuples with different sizes 1 vs "
                                        f"{len(bad.keysets)}' (the case at line {bad.loc.line}; p4c)")
                sel_exprs, sel_cases = flatten_select(tr.exprs, tr.cases)
                keys = [self.expr(e, sscope) for e in sel_exprs]
                for (kir, kt), e in zip(keys, sel_exprs):
                    if newtype_name(kt):
                        raise E(e.loc, f"a value of type {newtype_name(kt)} cannot be used in select "
                                       f"(cast it to {tstr(untagged(kt))})")
                    if kt[0] == "error":   # (p4c's type checker; errs19 probe c_t_error_select)
                        raise E(e.loc, f"Expression '{{ {', '.join(expr_text(x) for x in sel_exprs)} }}' with a "
                                       "component of type 'error' cannot be used in 'select'")
                    if not (is_bits(kt) or kt[0] in ("bool", "serenum", "enum")):
                        raise E(e.loc, f"select on a value of type {tstr(kt)}")
                self.zero_width_keys(sel_exprs, keys, sel_cases)
                cases = []
                after_default, dropped_to = False, []
                for c in sel_cases:
                    if c.to not in names and c.to not in ("accept", "reject"):
                        raise E(c.loc, f"unknown parser state {c.to}")
                    if c.to == "reject":
                        self.warn(c.get("to_loc") or c.loc, REJECT_WARNING)
                    ks = c.keysets
                    if len(ks) == 1 and ks[0].kind == "default":
                        ks = ks * len(keys)
                    if len(ks) == 1 and len(keys) > 1:
                        vs = self.tuple_value_set(ks[0], keys, sscope, tr.loc)
                        if vs is not None:
                            cases.append({"keysets": [vs] + [{"k": "default"}] * (len(keys) - 1), "to": c.to})
                            continue
                    lst = ks[0] if len(ks) == 1 and ks[0].kind == "list" else None
                    pad = 0
                    if lst is not None and (len(lst.items) == len(keys) or lst.get("dots") and len(lst.items) < len(keys)):
                        # `{1, 2}`: the keyset (1, 2) for p4c (errs22 e_kt_list_literal); `{1, ...}`: the
                        # keys past the list match their default value, 0 (p4c's JSON: 0x0100; g_l_dots)
                        pad, ks = len(keys) - len(lst.items), lst.items
                    else:
                        lst = None
                    const_ks = self.tuple_const_keysets(ks[0], keys, sscope, tr.loc) if len(ks) == 1 and not pad else None
                    if const_ks is None and len(ks) + pad != len(keys):
                        if len(ks) == 1 and ks[0].kind == "cast" and ks[0].a.kind == "struct_init":
                            # (`(S){ x = 1, y = 2 }`: p4c's "must be a compile-time constant" at the label,
                            # before it types the select)
                            raise E(ks[0].loc, "a structure-valued select label: must be a compile-time constant (p4c)")
                        # (p4c's "'SelectExpression' ... Tuples with different sizes" at the select; errs74)
                        raise E(tr.loc, f"select case has {len(ks)} keysets for {len(keys)} keys")
                    for k in ks if len(ks) > 1 or lst is not None else ():   # (a value set is a whole keyset, p4c)
                        if k.kind == "name" and (sscope.lookup(k.name) or ("",))[0] == "value_set":
                            raise E(k.loc, f"{k.name}: must evaluate to a compile-time constant (a value_set "
                                           "cannot be one component of a tuple keyset)")
                    # a header field declared bool (kept as bit<1>) is a bool key: its labels are bools
                    case = {"keysets": const_ks or [self.keyset(k, BOOL if self.is_bool_header_field(kir) else kt, sscope, tr.loc)
                                                    for k, (kir, kt) in zip(ks, keys)] + [{"k": "value", "v": 0}] * pad,
                            "to": c.to}
                    if len(keys) == 1 and (keys[0][1][0] == "int" or keys[0][1][0] == "serenum" and keys[0][1][2][0] == "int"):
                        self.negative_select_label(ks[0], keys[0][1], sscope)
                    if len(c.keysets) > 1 and all(k["k"] == "default" for k in case["keysets"]):
                        # `(_, _)`: matches every packet, but p4c's front end sees no default
                        # case there (a list, not a DefaultExpression): see parser_defuse
                        case["dc_tuple"] = True
                    if not after_default:
                        cases.append(case)
                    else:   # (an edge still when p4c removed the unreachable states: value sets)
                        dropped_to.append(c.to)
                    # p4c's SimplifySelectCases drops every case after a `default` / `_` keyset
                    # ("SelectCase: unreachable"; checked first) -- not after `(_)` or a mask of 0,
                    # which p4c writes as default transitions and BMv2 takes the last of
                    after_default = after_default or (len(c.keysets) == 1 and c.keysets[0].kind == "default"
                                                      and not c.keysets[0].get("paren"))
                trans = {"kind": "select", "keys": [self.as_int(k, t) for k, t in keys], "cases": cases,
                         **({"dropped_to": dropped_to} if dropped_to else {})}
            states[s.name] = {"body": body, "transition": trans}
        _state_union_copies(states, lambda b: propagate_union_copies(
            b, self.actions, lambda e: bool(self.union_siblings(e)), None, self.struct_fields))
        self.settle_parser_stores(states, params)   # (mk_stores: match_kind and division stores p4c drops)
        self.ctx = saved
        live.update(reachable_states(states))   # p4c removes unreachable states before its back end
        self.refuse_parser_metadata_locals(states, live)
        err = next((state_errors[s.name] for s in p.states if s.name in state_errors and s.name in live), None)
        if err is not None:
            self.raise_deferred(err)
        _mark_temporaries(states)
        drop_dead_parser_stores(states, params, self.sub_parser_rejects)   # as p4c's def-use (seen on a parser error)
        _drop_unreachable_value_sets(states, getattr(self, "value_sets", []))
        if not _reaches_an_end(states):
            raise E(p.loc, f"parser {p.name} never reaches the accept or reject state")
        out = {"name": prefix or p.name, "params": params, "locals": locals_, "states": states}
        return out

    def sub_parser_rejects(self, fn: str, depth: int = 0) -> bool:
        """Whether the sub-parser called as ``fn`` may reject (parser_defuse.may_reject; unknown: yes)."""
        blk = next((b for b in getattr(self, "subparsers", []) if b.get("fn") == fn), None)
        return blk is None or depth > 16 or may_reject(blk["states"], lambda f: self.sub_parser_rejects(f, depth + 1))

    def zero_width_keys(self, exprs: list, keys: list, cases=()) -> None:
        """A bit<0> component of a ``select`` p4c does not fold (``select(x, 0w0)``): p4c's BMv2
        back end dies on it ("Compiler Bug: 0: unknown width", at the key), only in a state it
        keeps (target_error); ``select(0w0)`` alone is folded away.  A bit<0> field as the only key
        (``select(hdr.w.z)``) compiles, and simple_switch refuses p4c's JSON where a case has a value
        (its 1-byte "0x0" for a 0-byte key; helper errs31, q_sk_bit0): a load refusal."""
        if all(self.fold(kir) is not None for kir, _ in keys):
            return
        if len(keys) == 1 and is_bits(keys[0][1]) and keys[0][1][1] == 0:
            if any(not (len(c.keysets) == 1 and c.keysets[0].kind == "default") for c in cases):
                self.load_refusal(exprs[0].loc, f"select({expr_text(exprs[0])}) on a bit<0> key: Parser transition value "
                                                "has incorrect width, expected width is 0 bytes but actual width is 1 "
                                                "bytes (simple_switch refuses p4c's JSON)")
            return
        for e, (_, kt) in zip(exprs, keys):
            if is_bits(kt) and kt[1] == 0:
                self.target_error(e.loc, f"{expr_text(e)}: a bit<0> select key (p4c: Compiler Bug: unknown width)")

    def as_int(self, ir, t):
        if t[0] == "bool":
            return {"op": "cast", "a": ir, "t": ["bit", 1]}
        return ir

    def tuple_value_set(self, k: Node, keys, scope, sel_loc=None) -> dict | None:
        """A ``value_set<S>`` of a struct as the keyset of a tuple of keys: the keys match
        ``S``'s fields in order (same widths); the case matches the keys' concatenation.  A
        mismatch is p4c's error on the 'SelectExpression' (at ``sel_loc``)."""
        if k.kind != "name" or k.top or not scope.lookup(k.name) or scope.lookup(k.name)[0] != "value_set":
            return None
        rec = scope.lookup(k.name)[1]
        self.bad_value_set(rec, sel_loc or k.loc)
        kts = [["bit", 1] if kt[0] == "bool" else (kt[2] if kt[0] == "serenum" else kt) for _, kt in keys]
        widths = [f["width"] for f in rec["fields"]]
        if rec["t"][0] != "struct" or len(widths) != len(kts) or \
                any(not is_bits(kt) or kt[1] != w for kt, w in zip(kts, widths)):
            raise E(sel_loc or k.loc, f"value_set {rec['name']} holds {tstr(rec['t'])}, the select key is "
                                      f"({', '.join(tstr(kt) for kt in kts)})")
        rec["used"] = True
        return {"k": "vset", "obj": rec["py"], "widths": widths}

    def tuple_const_keysets(self, k: Node, keys, scope, sel_loc=None) -> list | None:
        """A constant of a tuple type as the whole keyset of a tuple of keys (``const tuple<bit<8>,
        bit<8>> KT = {1, 2};`` ... ``select(a, b) { KT: ... }``): p4c accepts it as the keyset
        ``(1, 2)`` (errs22 probe a_label_tuple_const); None for any other keyset."""
        if k.kind != "name" or (scope.lookup(k.name) or ("",))[0] != "const":
            return None
        ir, t = self.expr(k, scope)
        if ir.get("op") != "list" or t[0] != "list":
            return None
        kts = [kt for _, kt in keys]
        if [it["t"] for it in ir["items"]] != kts:   # (p4c: a type error on the 'SelectExpression')
            its = ", ".join(tstr(it["t"]) for it in ir["items"])
            raise E(sel_loc or k.loc, f"{k.name} of type tuple<{its}> cannot be the keyset of select keys "
                                      f"({', '.join(tstr(kt) for kt in kts)})")
        return [{"k": "value", "v": int(self.fold(it))} for it in ir["items"]]

    def negative_select_label(self, k: Node, kt, scope) -> None:
        """A negative label of a select on one signed key (``-3:``, ``-1 &&& 0x0f``): p4c writes the
        value "-0x03" into the JSON and simple_switch dies loading it (bytecontainer.h: Assertion
        `hexstring[idx] != '-'`; errs19 probes c_t_mask_signed, t8 mneg).  A mask of all ones is
        dropped (`5 &&& -1` is 0x05); a tuple's keys are concatenated as bits and load."""
        if k.kind not in ("mask", "int", "unary", "cast", "name", "member", "binary"):
            return
        if k.kind == "name" and not k.top and (scope.lookup(k.name) or ("",))[0] == "value_set":
            return   # (a value_set<int<8>>: its members come from the control plane; errs19 c_t_pvs_int)
        v = self.fold(self.coerce(self.expr(k.value if k.kind == "mask" else k, scope), kt, k.loc))
        m = self.fold(self.coerce(self.expr(k.mask, scope), kt, k.loc)) if k.kind == "mask" else -1
        if isinstance(v, int) and isinstance(m, int) and (v < 0 or m < -1):
            self.load_refusal(k.loc, f"select label {v if m == -1 else f'{v} &&& {m}'}: p4c writes a negative value into the JSON, "
                                     "which simple_switch cannot load (Assertion `hexstring[idx] != '-'' failed)")

    @staticmethod
    def bad_value_set(rec: dict, sel_loc, key_t=None) -> None:
        """A value set whose type p4c refuses, used: ``value_set<bool>`` for a key of a bit type at the
        select (p4c's type error on the 'SelectExpression': "Cannot cast implicitly type 'bool' to type
        'bit<1>'"; errs19 probe c_t_pvs_bool); for a bool key, and any other, at its declaration (its
        back end's "invalid type parameter for Value Set"; errs25 probe e3_vs_bool)."""
        if rec.get("bad") and rec["t"][0] == "bool" and (key_t is None or key_t[0] != "bool"):
            raise E(sel_loc, f"value_set {rec['name']} of bool in a select: Cannot cast implicitly type 'bool' "
                             "to type 'bit<1>' (p4c)")
        if rec.get("bad"):
            raise rec["bad"]

    def keyset(self, k: Node, kt, scope, sel_loc=None) -> dict:
        kt2 = ["bit", 1] if kt[0] == "bool" else (kt[2] if kt[0] == "serenum" else kt)
        if k.kind == "default" or k.kind == "dontcare":
            return {"k": "default"}
        if k.kind == "name" and not k.top and scope.lookup(k.name) and scope.lookup(k.name)[0] == "value_set":
            rec = scope.lookup(k.name)[1]
            self.bad_value_set(rec, sel_loc or k.loc, kt)
            if rec["t"][0] == "struct":
                if len(rec["fields"]) != 1 or not is_bits(kt2) or rec["fields"][0]["width"] != kt2[1]:
                    raise E(sel_loc or k.loc, f"value_set {rec['name']} holds {tstr(rec['t'])}, the select key is "
                                              f"{tstr(kt2)}")
            elif rec["t"] != (kt if rec["t"][0] == "serenum" else kt2):
                raise E(sel_loc or k.loc, f"value_set {rec['name']} holds {tstr(rec['t'])}, the select key is "
                                          f"{tstr(kt2)}")
            rec["used"] = True
            return {"k": "vset", "obj": rec["py"]}
        if kt[0] == "bool" and k.kind in ("mask", "range"):
            # p4c: a mask or range has a bit type, which a bool key cannot unify with (a bool
            # operand: `&&&`/`..` cannot be applied to it, named there; p4c_mutate seed 153)
            ops = (k.value, k.mask) if k.kind == "mask" else (k.lo, k.hi)
            sym = "&&&" if k.kind == "mask" else ".."
            if any(self.expr(o, scope)[1][0] == "bool" for o in ops):
                raise E(k.loc, f"{sym}: cannot be applied to a bool value (p4c: type error)")
            raise E(sel_loc or k.loc, f"select label {sym} of a bit type for a bool key (p4c: type error)")
        if k.kind in ("mask", "range"):
            # p4c's type checker: `&&&` and `..` take bit / int operands, not a `type`'s values
            # (`(pt_t)9w9 .. (pt_t)9w9` is a type error; helper mutz29, p4c_mutate seed 703)
            for o in (k.value, k.mask) if k.kind == "mask" else (k.lo, k.hi):
                nt = newtype_name(self.expr(o, scope)[1])
                if nt:
                    raise E(o.loc, f"{'&&&' if k.kind == 'mask' else '..'}: cannot be applied to expression "
                                   f"{expr_text(o)} with type {nt} (p4c: type error)")
        if k.kind == "mask":
            v = self.fold(self.label_coerce(self.expr(k.value, scope), kt2, k.loc, sel_loc))
            m = self.fold(self.label_coerce(self.expr(k.mask, scope), kt2, k.loc, sel_loc))
            if v is None or m is None:
                raise E(k.loc, "keyset mask must be compile-time constants")
            return {"k": "mask", "v": unsigned_value(v, kt2) & unsigned_value(m, kt2), "m": unsigned_value(m, kt2)}
        if k.kind == "range":
            lo = self.fold(self.label_coerce(self.expr(k.lo, scope), kt2, k.loc, sel_loc))
            hi = self.fold(self.label_coerce(self.expr(k.hi, scope), kt2, k.loc, sel_loc))
            if lo is None or hi is None:
                raise E(k.loc, "keyset range bounds must be compile-time constants")
            return {"k": "range", "lo": lo, "hi": hi}
        ir, t = self.expr(k, scope)
        if kt[0] == "bool" and t[0] != "bool":
            # (at the `transition select`, p4c's line: its "Originating from" names the label)
            raise E(sel_loc or k.loc, f"select label of type {tstr(t)} for a bool key (p4c: type error)")
        if kt[0] in ("serenum", "enum", "error", "bool") and t[0] == kt[0]:
            v = self.fold(ir)
        else:
            v = self.fold(self.label_coerce((ir, t), kt2, k.loc, sel_loc))
        if v is None:
            raise E(k.loc, "select keyset must be a compile-time constant (value_set is not supported)")
        return {"k": "value", "v": int(v)}

    def label_coerce(self, x, t, loc, sel_loc):
        """A select label's value converted to its key's type ``t``; a type mismatch is p4c's error at
        the select (``sel_loc``): "'SelectExpression' ... 'match' case label '16w1' has type 'bit<16>'
        which does not match the expected type 'bit<8>'" (the label named only after; errs74)."""
        try:
            return self.coerce(x, t, loc)
        except P4CompileError as e:
            if sel_loc is None or not e.message.startswith("type mismatch"):
                raise
            raise E(sel_loc, f"the select case label at line {loc.line}: {e.message} (p4c names the select)") from None

    def value_set_fields(self, t, loc) -> list:
        """The P4Runtime match fields of a ``value_set<T>``: none listed for bit<N> (one
        unnamed exact field of ``T``'s width); for a struct, one per member in order -- each
        bit<W>, or a nested struct whose leaves are listed as ``outer.inner`` (p4c compiles
        that but its P4Info serializer refuses it) -- with its ``@match`` kind (p4c lists it in
        the P4Info although BMv2 matches every field exactly; see docs/CONFORMANCE.md)."""
        if is_bits(t):
            return []
        if t[0] == "serenum":
            # p4c compiles it (errs17 probe vs_serenum) and its P4Info lists one exact match field per
            # member of the enum, each of the enum's width (simple_switch_grpc writes no value set)
            return [{"name": m, "width": t[2][1], "match": "exact"} for m in self.enums[t[1]]["members"]]
        if t[0] != "struct" or self.structs[t[1]].get("union"):
            raise E(loc, f"value_set<{tstr(t)}>: the type must be bit<N> or a struct of bit<W> fields")
        out = []
        annos = self.structs[t[1]].get("field_annos", {})
        for fname, ft in self.structs[t[1]]["fields"]:
            if ft[0] == "struct" and not self.structs[ft[1]].get("union"):
                # p4c compiles a nested struct (its P4Runtime serializer refuses it): leaves in order
                out += [dict(f, name=f"{fname}.{f['name']}") for f in self.value_set_fields(ft, loc)]
                continue
            if not is_bits(ft) or ft[0] != "bit":
                raise E(loc, f"value_set<{tstr(t)}>: when the type of a value set is a struct, all its "
                             f"fields must be of type bit<W>, but {fname} is {tstr(ft)} (p4c: unsupported)")
            m = annotation(annos.get(fname), "match")
            kind = str(m[1][0]).strip() if m and m[1] else "exact"
            if kind not in ("exact", "ternary", "lpm", "range", "optional"):
                raise E(m[2] if m and len(m) > 2 and m[2] else loc,
                        f"value_set<{tstr(t)}>: @match({kind}) on {fname} is not a match kind")
            uid = annotation(annos.get(fname), "id")   # (p4c's FieldIdAllocator: ids.field_ids)
            uid = uid[1][0] if uid and uid[1] and isinstance(uid[1][0], int) and not isinstance(uid[1][0], bool) else None
            na = annotation(annos.get(fname), "name")   # (p4c's controlPlaneName: one leading dot off)
            cp = na[1][0] if na and na[1] and isinstance(na[1][0], str) else fname
            out.append({"name": cp[1:] if cp.startswith(".") else cp, "width": ft[1], "match": kind,
                        **({"uid": uid} if uid is not None else {})})
        if not out:
            raise E(loc, f"value_set<{tstr(t)}>: the struct has no fields")
        return out


def reachable_states(states: dict, with_dropped: bool = False) -> set:
    """The names of the states some path from ``start`` reaches (``with_dropped``: through the
    select cases after a ``default`` too)."""
    seen, todo = set(), ["start"]
    while todo:
        n = todo.pop()
        if n in seen or n not in states:
            continue
        seen.add(n)
        tr = states[n]["transition"]
        todo += [tr["to"]] if tr["kind"] == "direct" else [c["to"] for c in tr["cases"]]
        todo += tr.get("dropped_to", []) if with_dropped else []
    return seen


def _state_union_copies(states: dict, propagate) -> None:
    """p4c's LocalCopyPropagation on the parser's header-union copies (``propagate``:
    :func:`.union_copies.propagate_union_copies`), after SimplifyParsers has merged each state
    into the one that goes to it directly when that is its only predecessor (fuzz31's probes:
    ``pu.w = hdr.u.w; pu.x = hdr.h; transition pz2; } state pz2 { hdr.u.w = pu.w; ..`` is
    ``hdr.u.w = hdr.u.w`` for p4c, dropped: u.w stays valid on BMv2)."""
    live = reachable_states(states)
    preds: dict = {}
    for n in live:
        tr = states[n]["transition"]
        for to in [tr["to"]] if tr["kind"] == "direct" else [c["to"] for c in tr["cases"]]:
            preds[to] = preds.get(to, 0) + 1

    def merged_next(n):
        tr = states[n]["transition"]
        to = tr["to"] if tr["kind"] == "direct" else None
        return to if to in live and to not in ("start", n) and preds.get(to) == 1 else None
    inner = {merged_next(n) for n in live} - {None}
    for head in [n for n in states if n not in inner]:
        chain, n = [head], merged_next(head) if head in live else None
        while n is not None and n not in chain:
            chain.append(n)
            n = merged_next(n)
        cuts = [{"s": "nop", "state_cut": c} for c in chain]
        got = propagate([st for c, cut in zip(chain, cuts) for st in [cut] + states[c]["body"]])
        at = [i for i, st in enumerate(got) if any(st is c for c in cuts)] + [len(got)]
        for c, a, b in zip(chain, at, at[1:]):
            states[c]["body"] = got[a + 1:b]


def _drop_unreachable_value_sets(states: dict, value_sets: list) -> None:
    """A value set that only states unreachable from ``start`` use is unused: p4c removes those
    states first, and the value set with them (no P4Info entry, nothing in the JSON).  A state
    only the cases SimplifySelectCases drops later (after a ``default``) go to is still reached
    then: its value sets stay in the P4Info (p4c_mutate seed 732; its JSON has none)."""
    def vsets(names):
        return {ks["obj"] for n in names for c in states[n]["transition"].get("cases") or ()
                for ks in c["keysets"] if ks.get("k") == "vset"}
    dead = vsets(states) - vsets(reachable_states(states, with_dropped=True))
    for rec in value_sets:
        if rec["py"] in dead:
            rec["used"] = False


def _reaches_an_end(states: dict) -> bool:
    """Whether some path from ``start`` gets to accept or reject (p4c: "Parser never reaches
    accept or reject state"); a select can always end the parser (no case matches)."""
    seen, todo = set(), ["start"]
    while todo:
        n = todo.pop()
        if n in ("accept", "reject"):
            return True
        if n in seen:
            continue
        seen.add(n)
        tr = states[n]["transition"]
        if tr["kind"] != "direct":
            return True
        todo.append(tr["to"])
    return False


def _mark_temporaries(states: dict) -> None:
    """p4c inlines a sub-parser instance with its arguments substituted in place only when every
    call of that instance (in this parser) passes the same arguments; otherwise each call goes
    through temporaries (``temps``: True): copied in, reset for ``out``, copied back only when
    the sub-parser accepts -- an error inside it leaves the caller's arguments as they were
    (BMv2).  With the same arguments everywhere, those that overlap another argument still go
    through temporaries (``temps``: their indices; ``sp.apply(pkt, hdr.h.a, hdr.h)``)."""
    calls: dict = {}
    for x in ir_dicts(states):
        if x.get("s") == "apply_parser":
            calls.setdefault(x["fn"], []).append(x)
    for group in calls.values():
        if len({json.dumps([c["args"], c.get("outs")], sort_keys=True) for c in group}) > 1:
            for c in group:
                c["temps"] = True
        else:
            for c in group:
                if (alias := _aliased_args(c)):
                    c["temps"] = alias


def _aliased_args(call: dict) -> list:
    """The indices of a sub-parser call's arguments whose storage overlaps another argument's
    (p4c's inliner compares their location sets: a part of a header, the header, the struct
    holding it; a run-time stack index is every element)."""
    agg = ("struct", "header", "stack")
    locs, k = [], 0
    for a, d in zip(call["args"], call.get("dirs") or ["in"] * len(call["args"])):
        t = a.get("t") or []
        if d in ("out", "inout") and not (t and t[0] in agg):
            a = call["outs"][k]   # (a scalar out argument is passed as a constant)
            k += 1
        locs.append(_locations(a))
    return [i for i, li in enumerate(locs)
            if any(j != i and any(related(p, q) or related(q, p) for p in li for q in lj)
                   for j, lj in enumerate(locs))]


def _locations(ir) -> list:
    """The storage paths an argument expression names (``header_init._header_path``); a
    method call (``isValid()``), a function call or a struct expression names none."""
    op = ir.get("op") if isinstance(ir, dict) else None
    if op in ("var", "field", "stack_idx", "stack_next"):
        base = ir.get("st") if op == "stack_next" else ir
        p = header_path(base)
        return [p] if p is not None and p[0] != "other" else []
    if op == "slice":
        return _locations(ir["a"])
    if op in ("cast", "un"):
        return _locations(ir["a"])
    if op == "bin":
        return _locations(ir["a"]) + _locations(ir["b"])
    if op == "cond":
        return _locations(ir["c"]) + _locations(ir["a"]) + _locations(ir["b"])
    return []


def _live_state_locals_alike(states) -> None:
    """Locals of two states of one parser with one name, each read (or initialized by a call, a
    lookahead): p4c 1.2.4.8 moves the parser's locals to the parser and finds the second one a
    duplicate ("x: Duplicates declaration x") -- one that nothing reads is removed before that, and
    locals in nested blocks are renamed (measured, /work/e21 pe2 e_la_tuple_shadowed_name_read_elsewhere,
    b1-b3 variants of pf f_sl_two_states_same_local)."""
    from .elab_ctor import _ast_nodes
    seen: set = set()
    for st in states:
        nodes = list(_ast_nodes([st.get("stmts"), st.get("transition")]))
        stores = {id(n.lhs) for n in nodes if n.kind == "assign"}
        for d in st.get("stmts") or ():
            if d.kind != "var":
                continue
            live = any(n.kind == "call" for n in _ast_nodes(d.get("init"))) or any(
                n.kind == "name" and n.get("name") == d.name and id(n) not in stores for n in nodes)
            if live and d.name in seen:
                raise E(d.loc, f"{d.name}: Duplicates declaration {d.name} (p4c 1.2.4.8: a local of another "
                               "state of the parser has that name)")
            if live:
                seen.add(d.name)
