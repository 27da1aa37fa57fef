"""Tables: keys and their p4c names, action lists (scopes, bound arguments), default
actions, const entries (their keysets and priorities: ``elab_entries``).

A mixin of :class:`switch.compiler.elaborate.Elaborator`: ``self`` holds the program-wide
tables (headers, structs, actions, tables, ...) and the current block context ``self.ctx``.
"""
from __future__ import annotations

import json
import re

from .action_twins import cp_params, swap_twin
from .ids import field_ids, user_id
from .ast import Node, annotation, find_name
from .elab_common import E, expr_text, is_bits, newtype_name, Scope, tstr, unsigned_value
from .errors import P4CompileError
from .extern_params import by_position, CONSTRUCTORS
from .elab_entries import EntryRules
from .table_keys import check_key_name, constant_key_text, key_expr, key_text, negative_int_arg, property_instance_name

# BMv2's P4Runtime server reads a priority-needing entry p4c put into the JSON with priority
# JSON_PRIORITY back as CONST_PRIORITY_TOP - JSON_PRIORITY (INT32_MAX; BMv2's smaller number wins)
CONST_PRIORITY_TOP = 2**31 - 1


class TableRules(EntryRules):
    def ignored_property_value(self, pv, scope, listed=None, table=None) -> None:
        """p4c type-checks the value of a table property it then ignores (an unknown one, or
        ``priority_delta`` without entries): ``foo = (true) / 0;`` is its type error (p4c_mutate
        seed 73, kind div: was accepted)."""
        v = pv.get("value") if isinstance(pv, Node) else None
        if not isinstance(v, Node):
            return
        fn = v.fn if v.kind == "call" else v
        ent = scope.lookup(fn.name) if fn.kind == "name" and not fn.get("top") else None
        if ent is not None and ent[0] == "action" and v.kind == "call":
            self.ignored_action_call(v, self.actions[ent[1]], listed or (), scope)
        elif ent is not None and ent[0] == "function" and v.kind == "call":
            raise E(v.loc, f"{fn.name}(): a function call as the value of an unknown table property "
                           "(p4c 1.2.4.8 dies: 'Compiler Bug: ... Null stat')")
        elif ent is not None and ent[0] == "action":
            # a bare name: taken, and the action kept where the table is -- p4c's P4Info lists it
            self.__dict__.setdefault("property_refs", {}).setdefault(table, set()).add(ent[1])
        else:
            self.expr(v, scope)

    @staticmethod
    def listed_actions(props: dict, scope) -> set:
        """The actions (qualified names) a table's ``actions`` property names."""
        ents = [scope.lookup(n.name) for n in props.get("actions") or () if isinstance(getattr(n, "name", None), str)]
        return {e[1] for e in ents if e is not None and e[0] == "action"}

    def ignored_action_call(self, v: Node, a: dict, listed, scope) -> None:
        """An action call as the value of a property p4c ignores (``foo = s(1);``): p4c types it
        as a default action's -- each argument of its parameter's type, a directionless one a
        compile-time constant, a directional one an lvalue, no argument too many -- but takes
        fewer arguments than parameters; an action the table does not list makes it die
        ("Null actionCallInvocation").  Probed on p4c 1.2.4.8 (p4c_mutate seed 141, rename_use)."""
        what = f"property value {expr_text(v)}"
        if a["name"] not in listed:
            raise E(v.loc, f"{what}: action {a['name']} is not in the table's actions list (p4c 1.2.4.8 dies: "
                           "'Compiler Bug: ... Null actionCallInvocation')")
        named = [x for x in v.args if x.kind == "named_arg"]
        args = list(self.args_by_name(v, a, what).args) if named else list(v.args)
        if len(args) > len(a["params"]):
            raise E(v.loc, f"{a['name']}: Too many arguments for action (p4c)")
        for arg, p in zip(args, a["params"]):
            if p["dir"] in ("out", "inout"):
                self.coerce(self.lvalue(arg, scope), p["t"], arg.loc)
                continue
            ir = self.coerce(self.expr(arg, scope), p["t"], arg.loc)
            if p["dir"] is None and self.fold(ir) is None:
                raise E(arg.loc, f"{expr_text(arg)}: action argument must be a compile-time constant")

    def check_json_action_labels(self, q: str, acts: list, nodes: list) -> None:
        """p4c copies a top-level action into each control that uses it, named there like a
        local action (``C.n`` for its name or relative ``@name("n")``): listed beside a local
        action of that name, p4c's BMv2 JSON gets one label twice ("Attempt to add to json
        object a value for a label which already exists"; p4c_mutate seed 64, kind name_clash)."""
        seen = {}
        for a, node in zip(acts, nodes):
            rec = self.actions.get(a["name"]) or {}
            nm = annotation(rec.get("annos") or [], "name")
            # (core.p4's NoAction keeps its name: p4c localizes every top-level action but NoAction --
            # `@name("NoAction") action a()` beside it loads; errs23 d_name_action_same_as_noaction)
            label = a["name"] if rec.get("control") or (nm and str(nm[1][0]).startswith(".")) or "." not in q \
                or a["name"] == "NoAction" else f"{q.rsplit('.', 1)[0]}.{a['name']}"
            if label in seen:
                raise E(node.loc, f"table {q}: actions {seen[label]} and {node.name} are both named {label} in "
                                  "p4c's BMv2 JSON (p4c: a label which already exists)")
            seen[label] = node.name


    # ---------------------------------------------------------------- tables
    @staticmethod
    def actions_listed_first(d: Node, props: dict) -> None:
        """p4c types a table's properties in their order: a default action or an entry before the
        ``actions`` property is "t has no action list, so it cannot invoke 'a'", named at the
        table (errs19 probes b_d_default_before_actions, b_p_entries_then_actions)."""
        order = list(props)
        for pn in ("default_action", "entries"):
            if pn in props and "actions" in props and order.index(pn) < order.index("actions"):
                pv = props[pn]
                calls = [pv.expr] if pn == "default_action" else [e.action for e in pv.entries]
                if not calls:
                    continue
                c = calls[0]
                name = c.fn.get("name") if c.kind == "call" else c.get("name")
                raise E(d.loc, f"{d.name} has no action list, so it cannot invoke '{name}' (p4c: the "
                               f"{pn.replace('_', ' ')} comes before the actions property)")

    def declare_table(self, d: Node, q: str, scope: Scope) -> None:
        name_anno = annotation(d.annos, "name")
        if name_anno:
            nm = name_anno[1][0]
            q = nm[1:] if nm.startswith(".") else q.rsplit(".", 1)[0] + "." + nm
            self.note_empty_name(q, "table", name_anno)
        props = d.props
        for pn, pv in list(props.items()):
            if pn not in ("key", "actions", "default_action", "size", "entries", "counters",
                          "meters", "support_timeout", "implementation", "max_group_size",
                          "largest_priority_wins", "priority_delta"):
                # p4c 1.2.4.8 ignores a property it does not know, with a warning
                self.warn(pv.loc if isinstance(pv, Node) else d.loc, f"Unknown table property: {pn}")
                self.ignored_property_value(pv, scope, self.listed_actions(props, scope), q)
                del props[pn]
        self.actions_listed_first(d, props)
        timeout = False
        if "support_timeout" in props:
            tv = self.fold(self.expr(props["support_timeout"].value, scope)[0])
            if not isinstance(tv, bool):
                raise E(props["support_timeout"].value.loc,
                        f"table {q}: support_timeout must be true or false (p4c: unexpected non-boolean value)")
            timeout = tv
        profile = None
        anon_error = None
        if "implementation" in props:
            pv = props["implementation"].value
            if pv.kind == "name" and scope.lookup(pv.name) and scope.lookup(pv.name)[0] == "object" \
                    and scope.lookup(pv.name)[1] in ("action_profile", "action_selector"):
                profile = scope.lookup(pv.name)[2]
            elif pv.kind == "call" and pv.fn.kind == "name" and \
                    pv.fn.name in ("action_profile", "action_selector"):
                # p4c's P4Runtime serializer names it by the property's @name (keys named before)
                for k in props.get("key", []):
                    check_key_name(k)
                try:
                    pname = property_instance_name(props["implementation"], q)
                except P4CompileError as e:
                    if "anonymous table property" not in e.message:
                        raise
                    # p4c's P4Runtime serializer names only what it keeps: a table never applied
                    # may have one without @name (raised where the table is applied; p4c_mutate seed 182)
                    pname, anon_error = f"{q}$implementation", e
                profile = self.profile_record(pv.fn.name, pv.args, pname,
                                              None, props["implementation"].get("annos") or [], pv.loc)
                profile["inline"] = True   # (p4c lists it only with its table: p4info._visible)
            else:
                raise E(pv.loc, f"table {q}: implementation must be an action_profile or action_selector")
            profile["tables"].append(q)
            self.warn(d.loc, f"Target does not support default_action for {q} (due to action profiles)")
        keys = []
        selector_keys, dropped_selector, nsel, enum_key_error, dropped_at = [], None, 0, None, []
        key_name_error = None
        user_key_ids: set = set()
        kids = field_ids([user_id(annotation(k.annos, "id")) for k in props.get("key", [])])
        for pos, k in enumerate(props.get("key", []), 1):
            own = find_name(k.expr, d.name)
            if own is not None:   # inside a table its own name is the table (issue2267: a parameter `t`)
                raise E(own.loc, f"{d.name}: Cannot refer to the containing table {d.name}")
            ir, t = key_expr(self, k.expr, scope, q)
            if self.fold(ir) is not None:   # p4c keeps it, with two warnings
                self.warn(k.expr.loc, "KeyElement: constant key element")
                self.warn(k.expr.loc, f"{expr_text(k.expr) if k.expr.kind != 'int' else _lit_text(ir)}: Constant key field")
            key_enum = t[1] if t[0] == "serenum" else None
            key_newtype = newtype_name(t)  # e.g. a cast `(P1_t)hdr.h.a` (p4c names the type)
            if ir.get("op") == "field" and ir["base"].get("t", [None])[0] in ("header", "struct"):
                fkey = (ir["base"]["t"][1], k.expr.name if k.expr.kind == "member" else None)
                key_newtype = self.field_newtypes.get(fkey) or key_newtype
                key_enum = key_enum or self.field_enums.get(fkey)
            if t[0] in ("struct", "header", "stack", "list", "sinit", "varbit"):
                # p4c's type checker, for every match kind (selector keys too)
                raise E(k.expr.loc, f"key {expr_text(k.expr)}: a key field must have a scalar type, not {tstr(t)}")
            try:
                na = check_key_name(k)   # (a selector key too: p4c_mutate seed 154)
            except P4CompileError as err:
                if props.get("entries") is None:
                    raise
                # p4c's front end names keys after it type-checks the program: an entry's type
                # error comes first (`false .. true` for a bool key; errs69 ent_range_bool_key)
                key_name_error, na = key_name_error or err, None
            if k.match == "selector":
                if profile is None or profile["algo"] is None:
                    dropped_selector = dropped_selector or k.loc
                    dropped_at.append(pos - 1)   # (its place in the entries' keysets: p4c counts it there)
                    continue  # p4c 1.2.4.8 drops the selector key of a table without an action_selector
                selector_keys.extend([d, w] for d, w in self.flatten_value(ir, t, k.expr.loc, "selector key"))
                self.refuse_bool_selector_key(q, t, k.expr.loc)
                nsel += 1
                continue
            if k.match not in ("exact", "lpm", "ternary", "range", "optional"):
                if k.match not in self.match_kinds:
                    raise E(k.match_loc, f"unsupported match kind {k.match}: no match_kind declaration names it")
                cur, mk = self.current_block(), self.__dict__.get("match_kind_decls", {}).get(k.match)
                if mk is not None and cur is not None and (self.decl_pos(mk) or 0) > (self.decl_pos(cur) or 0):
                    raise E(k.match_loc, f"{k.match}: declaration not found (the match_kind is declared "
                                         f"after {cur.kind} {cur.name}, which uses it)")
                # a user-declared match_kind: p4c accepts it and lists it as other_match_type, and
                # simple_switch refuses its JSON ("Invalid match type: 'fancy'"; probed, errs15)
                self.table_load_refusal(q, k.match_loc, f"Invalid match type: '{k.match}' (BMv2 refuses p4c's JSON)")
            was_bool = t[0] == "bool"
            was_error = t[0] == "error"
            if was_error:
                # p4c accepts an `error` key (with a warning): 32 bits in its JSON, no bitwidth
                # in the P4Info
                ir, t = {"op": "cast", "a": ir, "t": ["bit", 32]}, ["bit", 32]
            if was_bool:
                ir, t = {"op": "cast", "a": ir, "t": ["bit", 1]}, ["bit", 1]
            elif t[0] == "serenum":
                t = t[2]
            was_signed, plain_enum = t[0] == "int", None
            if was_signed:
                # the control plane matches the two's-complement bits of a signed key
                ir, t = {"op": "cast", "a": dict(ir, t=t), "t": ["bit", t[1]]}, ["bit", t[1]]
            elif t[0] == "enum" and self.enums.get(t[1], {}).get("loc"):
                # p4c's P4Runtime serializer names the enum, for a table it keeps (applied); an unapplied
                # one compiles (errs25 probe h_k_plain_enum_key): its key is the member's 32 bits
                enum_key_error = enum_key_error or E(self.enums[t[1]]["loc"], f"{t[1]}: width not well-defined for "
                                                     f"values of type {t[1]} (a table key of a plain enum, {expr_text(k.expr)})")
                ir, t, plain_enum = {"op": "cast", "a": ir, "t": ["bit", 32]}, ["bit", 32], t[1]
            elif not is_bits(t):
                raise E(k.expr.loc, f"table key of type {tstr(t)}")
            kname = na[1][0] if na else (key_text(k.expr, lambda n: self.expr(n, scope)[1], self.field_names)
                                         if self.field_names else expr_text(k.expr))
            ent = scope.lookup(k.expr.name) if not na and k.expr.kind == "name" else None
            if ent and ent[0] == "const" and id(ent[1]) in self.__dict__.get("const_decls", {}):
                kname = constant_key_text(self.const_decls[id(ent[1])][1], ent[1]) or kname
            kid = annotation(k.annos, "id")   # p4c takes a key element's @id(N) as its match field id
            if kid and kid[1] and kid[1][0] in user_key_ids:
                raise E(k.expr.loc, f"table {q}: key @id {kid[1][0]} is used by more than one key element (p4c: "
                                    f"'KeyElement: @id {kid[1][0]} is used multiple times')")
            if kid and kid[1]:
                user_key_ids.add(kid[1][0])
            self.__dict__.setdefault("key_id_annos", {}).setdefault(q, []).append((kname, kid))   # (check_element_ids)
            ir, temp = self.bmv2_key(ir, k.loc, q)   # (p4c computes it into a temporary, or keeps the field)
            keys.append({"name": kname, "match": k.match, "width": t[1], "expr": ir, **({"temp": True} if temp else {}),
                         "id": kids[pos - 1],   # (p4c's FieldIdAllocator, selector keys counted)
                         "annos": k.annos, **({"bool": True} if was_bool else {}),
                         **({"plain_enum": plain_enum} if plain_enum else {}),   # (entry_match)
                         **({"error": True} if was_error else {}), **({"signed": True} if was_signed else {}),
                         "newtype": key_newtype, "enum": key_enum})
        if profile is not None and profile["algo"] is not None:
            # p4c (BMv2): every table sharing an action selector hashes the same inputs
            inputs = json.dumps(selector_keys, sort_keys=True, default=str)
            first = profile.setdefault("selector_inputs", (inputs, q))
            if first[0] != inputs:
                raise E(profile.get("loc") or d.loc,
                        f"action selector {profile['name']} is used by multiple tables with different selector "
                        f"inputs ({first[1]} and {q}; p4c rejects this for BMv2)")
        # p4c's BMv2 back end: raised in ElabOutput.finish for a table that is applied
        table_error = anon_error or E(d.loc, f"table {q}: more than one lpm key (p4c: multiple LPM keys in table {q} not "
                                            "supported)") if anon_error or sum(1 for k in keys if k["match"] == "lpm") > 1 else None
        table_error = enum_key_error or table_error
        if not table_error and profile is not None and profile["algo"] is not None and not props.get("key"):
            # p4c 1.2.4.8 dies (exit 245, no message) on an applied table with an action_selector and no
            # key (p4c_mutate seed 338, kind table_extern; an action_profile, or a key, is fine: probed)
            table_error = E(d.loc, f"table {q}: an action_selector on a table without a key (p4c crashes on it)")
        if "actions" not in props:
            raise E(d.loc, f"table {q}: expected an 'actions' property")
        acts = []
        listed_names = [a.name for a in props.get("actions", [])]
        for a in props.get("actions", []):
            if listed_names.count(a.name) > 1:
                raise E(a.loc, f"table {q}: action {a.name} listed twice in its actions")
            if a.name == d.name:   # `table NoAction { actions = { NoAction; } }`: the name is the table
                raise E(a.loc, f"{a.name}: cannot refer to the containing table {d.name} (p4c)")
            clash = "key" if a.name == "key" and props.get("key") else \
                "default_action" if a.name == "default_action" and "default_action" not in props else None
            if clash:   # p4c 1.2.4.8 takes the `key` property (the `default_action = NoAction()` it adds) for the
                # action: "Compiler Bug: Could not find type of <Property> key" (p4c_mutate seed 52; helper mutz22)
                raise E(props["key"][0].loc if clash == "key" else a.loc, f"table {q}: an action named {clash} in the actions "
                        f"of a table with a{' key' if clash == 'key' else 'n implicit default_action'} (p4c: 'Compiler Bug: "
                        f"Could not find type of <Property> {clash}')")
            ent = (self.global_scope if a.get("top") else scope).lookup(a.name)   # (`.a`: the top-level a)
            if ent is None or ent[0] != "action":
                raise E(a.loc, f"table {q}: unknown action {a.name}")
            arec = self.actions[ent[1]]
            twin_of = arec.get("twin_of")
            if twin_of and not self.actions[twin_of].get("used") and cp_params(self.actions[twin_of]) != cp_params(arec):
                # the first action of the name is used nowhere (yet): this one is the name's (action_twins)
                arec, twin_of = swap_twin(self.actions, scope, twin_of, arec["name"]), None
                ent = ("action", arec["name"])
            if twin_of:
                # an @name'd twin (the control-plane name of another action, another body): p4c
                # lists one P4Info action and gives this table its own body for it
                real = self.actions[twin_of]
                # (other control-plane parameters: the P4Info lists the first declared one's, and
                # BMv2 refuses entries for the other where the counts differ -- action_twins)
                if any(x["name"] == twin_of or x.get("p4info_as") == twin_of for x in acts):
                    raise E(a.loc, f"table {q}: action {a.name} is named {twin_of} like another action with a "
                                   "different body in the same actions list (p4c: duplicate label in its JSON)")
                real["used"] = True
                real.setdefault("twin_annos", arec["annos"])   # (the P4Info's annotations: ElabOutput)
            elif any(x.get("p4info_as") == ent[1] for x in acts):
                raise E(a.loc, f"table {q}: action {a.name} is named {ent[1]} like another action with a "
                               "different body in the same actions list (p4c: duplicate label in its JSON)")
            arec["used"] = True
            if not twin_of:
                arec["self_used"] = True
            for p in arec["params"]:
                if not p["dir"] and (p.get("bool") or p.get("not_cp")) and not table_error:
                    # fine in an action only called directly, or listed by a table p4c removes: BMv2's
                    # back end (a bool) or p4c's P4Runtime serializer, on a table it keeps (ElabOutput.finish)
                    table_error = E(p.get("loc") or a.loc, f"table {q}: parameter {p['name']} of action {a.name} " + (
                        "is a bool; action parameters set by the control plane must be bit<> or int<> on this target"
                        if p.get("bool") else "has a type which is not bit<>, int<>, bool, type or serializable enum: "
                                              "the control plane cannot set it") + " (p4c)")
                if not p["dir"] and p.get("default") is not None:   # (p4c names the parameter)
                    raise E(p.get("loc") or a.loc, f"table {q}: parameter {p['name']} of action {a.name} has a default value, "
                                   "but it is set by the control plane (p4c: it cannot be bound)")
                if not p["dir"] and (err := self.clone_param_error(p, q, a.name)) is not None:
                    raise err
                if not p["dir"] and p.get("algo_dyn"):
                    raise E(a.loc, f"table {q}: parameter {p['name']} of action {a.name} is the HashAlgorithm of "
                                   "a hash(), set by the control plane: a run-time algorithm (p4c 1.2.4.8: "
                                   "Compiler Bug, Null ei)")
            scope_ = "TABLE_AND_DEFAULT"
            if annotation(a.annos, "defaultonly") and annotation(a.annos, "tableonly"):
                raise E(a.loc, f"Table '{q}' has an action reference ('{a.name}') which is annotated with both "
                               "'@tableonly' and '@defaultonly' (p4c)")
            if annotation(a.annos, "defaultonly"):
                scope_ = "DEFAULT_ONLY"
            elif annotation(a.annos, "tableonly"):
                scope_ = "TABLE_ONLY"
            dparams = [p for p in arec["params"] if p["dir"]]
            a = self.bound_by_name(a, dparams, q)
            if len(a.args) != len(dparams):
                raise E(a.loc, f"table {q}: action {a.name} needs {len(dparams)} bound argument(s) "
                               f"for its directional parameters, got {len(a.args)}")
            bound = []
            for arg, p in zip(a.args, dparams):
                if p["dir"] in ("out", "inout") and arg.kind == "dontcare":
                    # `_` for an out (or inout: p4c too, errs62 h_dc_table_bound) parameter: the value
                    # goes to a hidden control local
                    self.tmp += 1
                    py = f"L.v{self.tmp}__dontcare"
                    self.ctx.setdefault("extra_locals", []).append({"s": "decl", "n": py, "t": p["t"], "init": None})
                    bound.append({"dir": p["dir"], "e": {"op": "var", "n": py, "t": p["t"]}})
                    continue
                if p["dir"] in ("out", "inout"):
                    lv, lt = self.lvalue(arg, scope)
                    if lt != p["t"]:
                        raise E(arg.loc, f"bound argument for {p['name']} has type {tstr(lt)}, "
                                         f"expected {tstr(p['t'])}")
                    bound.append({"dir": p["dir"], "e": lv})
                    if lt[0] == "header":   # (copied back: elab_load_refusals.note_element_store)
                        self.note_element_store(lv, arg.loc)
                    if sib := self.union_siblings(lv):   # copied back into a union member
                        bound[-1]["siblings"] = sib
                else:
                    self.check_algo_arg(p, arg, scope, "action")
                    ir_t = self.serenum_arg(self.expr(arg, scope), p, arg, f"table {q}: action {a.name}", a.loc)
                    bound.append({"dir": "in", "e": self.coerce(ir_t, p["t"], arg.loc)})
            # (its parameters come from the control plane: a division over them stays)
            table_error = table_error or self.check_action_divisions(ent[1], None)
            acts.append({"name": ent[1], "scope": scope_, "annos": a.annos, "bound": bound,
                         **({"p4info_as": twin_of} if twin_of else {})})
        anames = [a["name"] for a in acts]
        self.check_json_action_labels(q, acts, props.get("actions", []))
        da = props.get("default_action")
        if da is not None:
            self.property_named_call(da.expr, props, q)
            # (as for an entry: `b(3)` for `b(in x, y)` listed `b(hdr.h.a)`; errs69 dir_default_in_only_data)
            if not any(a.kind == "named_arg" for a in da.expr.get("args") or ()):   # (named: in declaration order below)
                self.bound_args_first(da.expr, props.get("actions", []), scope, q, "default action")
            dname, dparams = self.action_call(da.expr, scope, f"table {q} default_action", anames)
            if dname not in anames:
                raise E(da.loc, f"table {q}: default action {dname} is not in the actions list")
            if any(a["name"] == dname and a["scope"] == "TABLE_ONLY" for a in acts):
                raise E(da.loc, f"table {q}: action {dname} is marked @tableonly and cannot be the default action")
            self.check_bound_args(da.expr, props["actions"], dname, scope, q)
            if neg := negative_int_arg(self.actions.get(dname, {}).get("params", ()), da.expr, dparams):
                self.table_load_refusal(q, neg[0].loc, f"table {q} default_action: {neg[1]}: BMv2 cannot load a "
                                                       "negative action argument (Formatted output in bases 8 or 16 is "
                                                       "only available for positive numbers)")
            default = {"action": dname, "params": dparams, "const": bool(da.const)}
        else:
            # p4c: a table without default_action gets NoAction, added to its actions as
            # @defaultonly when it is not listed
            # (by name where the table is: a control's own action NoAction hides core.p4's)
            if d.name == "NoAction":   # (the table hides the action in its own body: p4c, used or not)
                raise E(d.loc, "NoAction: Cannot refer to the containing table NoAction (a table without "
                               "default_action gets NoAction() as its default)")
            na = scope.lookup("NoAction")
            if na is None or na[0] != "action" or na[1] not in self.actions:
                raise E(d.loc, f"table {q} has no default_action and NoAction is not declared")
            na = na[1]
            if self.actions[na]["params"]:
                p = self.actions[na]["params"][0]
                raise E(d.loc, f"table {q}: the default action NoAction(): {p['name']}: parameter should "
                               f"be assigned in call NoAction (p4c)")
            if any(x.get("p4info_as") == na for x in acts):   # `@name(".NoAction") action a` listed (mutz22)
                raise E(d.loc, f"table {q}: a listed action is @name'd {na}, the default action p4c adds (p4c: duplicate label in its JSON)")
            if any(a["name"] == na and a["scope"] == "TABLE_ONLY" for a in acts):   # (p4c names no line)
                raise E(d.loc, f"table {q}: default_action: Action marked with tableonly used as default action "
                               "(a table without default_action gets NoAction(), listed here @tableonly: p4c)")
            self.actions[na]["used"] = self.actions[na]["self_used"] = True
            default = {"action": na, "params": [], "const": False}
            if na not in anames:
                acts.append({"name": na, "scope": "DEFAULT_ONLY", "annos": [], "bound": []})
                anames.append(na)
        size, p4info_size = 1024, None
        if "size" in props:
            # as p4c 1.2.4.8: 0 is the default (1024); a negative size is listed as given in the
            # P4Info and is the 32-bit wrap of it on the target (BMv2's max_size)
            if self.expr_type_or_none(props["size"].value, scope)[:1] == ["serenum"]:   # (errs69 pr_size_enum)
                raise E(props["size"].loc, f"table {q}: size must be a constant numeric expression (p4c; "
                                           "a serializable enum member is none)")
            size = self.const_int(props["size"].value, f"table {q} size", scope=scope) or 1024
            if not -2**31 <= size < 2**31:
                raise E(props["size"].value.loc, f"table {q} size {size}: value too large for int (p4c)")
            if size < 0:
                p4info_size, size = size, size & 0xFFFFFFFF
                # BMv2 reads max_size as an int: the wrap is past INT_MAX (helper errs31, s_tsize_neg1)
                self.table_load_refusal(q, props["size"].value.loc, f"table {q} size {p4info_size}: p4c's JSON has max_size "
                                        f"{size}, which simple_switch refuses (Json::LogicError: LargestInt out of Int range)")
        entries = []
        ent_node = props.get("entries")
        if ent_node is not None and not props.get("key"):   # (p4c; with `const entries = { }` and no key property it dies)
            # p4c names the table ("Entries cannot be specified for a table with no key t"; errs19)
            raise E(d.loc, f"table {q}: entries cannot be specified for a table with no key (p4c)")
        # largest_priority_wins = false: measured on p4c 1.2.4.8 + BMv2, the entries then match
        # in the order they are listed, whatever their `priority=` (priority_delta only spaces
        # the values p4c assigns)
        largest_wins = True
        if ent_node is None or ent_node.const:
            # p4c reads both only to number `entries` (its EntryPriorities pass); without entries,
            # or with `const entries` (which may give no priority), it merely warns about them,
            # whatever their value (p4c_mutate seed 52: `priority_delta = -2` beside const entries)
            for pn in ("largest_priority_wins", "priority_delta"):
                if pn in props:
                    self.warn(props[pn].loc, f"Unknown table property: {pn}")
                    self.ignored_property_value(props[pn], scope, self.listed_actions(props, scope), q)
                    del props[pn]
        if "largest_priority_wins" in props:
            v = self.fold(self.coerce(self.expr(props["largest_priority_wins"].value, scope), ["bool"],
                                      props["largest_priority_wins"].loc))
            if v is None:
                raise E(props["largest_priority_wins"].loc, f"table {q}: largest_priority_wins must be a constant")
            largest_wins = bool(v)
        if "priority_delta" in props:
            self.const_int(props["priority_delta"].value, f"table {q} priority_delta", minimum=0)
        if ent_node is not None:
            self.check_entry_priorities(ent_node, keys, props, largest_wins, q)
            if dropped_at:
                self.dropped_selector_entries(ent_node.entries, len(keys) + len(dropped_at), dropped_at,
                                              dropped_selector, q)
            for i, en in enumerate(ent_node.entries):
                ks = en.keysets
                if len(ks) == 1 and ks[0].kind == "list" and len(ks[0].items) == len(keys) + nsel:
                    ks = ks[0].items   # `{k1, ...}` as the keyset: a list of the keys (p4c accepts it)
                if nsel:   # p4c counts the selector keys (errs18 probe d_ap_selector_const_entries, t6 sel2)
                    if len(ks) != len(keys) + nsel:
                        raise E(en.loc, f"table {q}: Size of entry keyset must match the table key set size "
                                        f"({len(ks)} keys, the table has {len(keys) + nsel} with its selector keys)")
                    raise E(en.loc, f"table {q}: a const entry of a table with an action selector (p4c: selector: "
                                    "match type not supported by P4Runtime serializer)")
                if len(ks) != len(keys):
                    raise E(en.loc, f"table {q}: entry has {len(ks)} keys, table has {len(keys)}")
                matches = []
                for kn, kdef in zip(ks, keys):
                    m = self.entry_match(kn, kdef, scope, q)
                    if m is not None:
                        matches.append(m)
                self.property_named_call(en.action, props, q)
                self.bound_args_first(en.action, props["actions"], scope, q, "entry")
                aname, aparams = self.action_call(en.action, scope, f"table {q} entry", anames)
                if aname not in anames:
                    raise E(en.loc, f"table {q}: entry action {aname} is not in the actions list")
                self.check_bound_args(en.action, props["actions"], aname, scope, q, "entry")
                if neg := negative_int_arg(self.actions.get(aname, {}).get("params", ()), en.action, aparams):
                    raise E(neg[0].loc, f"table {q}: {neg[1]}: Negative values not supported yet (p4c)")
                if any(a["name"] == aname and a["scope"] == "DEFAULT_ONLY" for a in acts):
                    raise E(en.action.loc, f"table {q}: action {aname} is marked @defaultonly and cannot be "
                                           "used in an entry")
                needs_prio = any(k["match"] in ("ternary", "range", "optional") for k in keys)
                if en.priority is not None and not needs_prio:
                    raise E(en.priority.loc, f"table {q}: its key match kinds do not require priorities, "
                                             "but this entry gives one (p4c)")
                if en.priority is not None and ent_node.const:
                    raise E(en.priority.loc, f"table {q}: entries of a table with 'const' entries cannot "
                                             "have priorities (p4c)")
                prio = 0
                if needs_prio:
                    # the priority BMv2 gives the entry: p4c 1.2.4.8 writes @priority(N) unchanged
                    # into its JSON and numbers every other entry in listing order (1, 2, ...),
                    # `priority=` values included (measured); BMv2's smaller number wins, and its
                    # P4Runtime server reads the entry back with priority INT32_MAX - that number,
                    # which is also the runtime's (larger-wins) order
                    anno = next((a for a in en.annos or () if a[0] == "priority"), None)
                    if en.priority is not None:
                        self.entry_priority_value(en)
                    if anno is not None and en.priority is None:
                        prio = CONST_PRIORITY_TOP - self.entry_priority_annotation(anno, q)
                    else:
                        prio = CONST_PRIORITY_TOP - (i + 1)
                entries.append({"matches": matches, "action": aname, "params": aparams,
                                "priority": prio})
            if key_name_error is not None:
                raise key_name_error
            self.refuse_duplicate_entries(q, keys, entries, [en.loc for en in ent_node.entries])
        if entries:
            # p4c's BMv2 JSON sizes a table with initial entries (const or not) to exactly those
            # entries, whatever `size` says (the P4Info keeps it): on BMv2 every control-plane
            # INSERT then fails as the table is full
            p4info_size, size = size if p4info_size is None else p4info_size, len(entries)
        dc = props.get("counters")
        dm = props.get("meters")
        pending = self.__dict__.pop("entry_serializer_errors", None)   # (elab_casts.entry_arg_serializable)
        table_error = table_error or (pending[0] if pending else None)
        rec = {"name": q, "decl": (d.name, d.loc), "keys": keys, "actions": acts, "default": default, "size": size,
               "p4info_size": p4info_size,
               "control": self.ctx["block"], "profile": profile["name"] if profile else None,
               "selector_keys": selector_keys,
               "const_entries": entries, "is_const": ent_node is not None and bool(ent_node.const),
               "direct_counter": None, "direct_meter": None,
               "annos": d.annos, "uid": ((annotation(d.annos, "id") or (None, [None]))[1] or [None])[0],
               "support_timeout": timeout, "target_error": table_error}
        for prop, kind in ((dc, "direct_counter"), (dm, "direct_meter")):
            if prop is None:
                continue
            pv = prop.value
            if pv.kind == "call" and pv.fn.kind == "name" and pv.fn.name == kind:
                orec = self.anonymous_direct(prop, kind, q)
            elif pv.kind == "call" and pv.fn.kind == "type_expr" and pv.fn.type.get("name") == kind:
                # (`meters = direct_meter<bit<8>>(..)`: p4c removes a table nothing applies first, then
                # refuses it in one it keeps -- ElabOutput.finish; measured, helper mutz43)
                targs = ", ".join(tstr(self.resolve_type(a)) for a in pv.fn.type.get("args") or ())
                rec["target_error"] = rec["target_error"] or E(pv.fn.loc or prop.loc, f"{kind}<{targs}>: "
                                                               "expected a reference to a meter declaration (p4c)")
                continue
            elif pv.kind != "name" or not scope.lookup(pv.name) or scope.lookup(pv.name)[1] != kind:
                err = E(prop.loc, f"table {q}: {prop.name} must name a {kind}")
                if pv.kind == "name" and scope.lookup(pv.name):   # (an instance of another kind: p4c's "Expected a
                    self.note_late_error(err)                     # direct meter: dc" comes after its type checking)
                    continue
                raise err
            else:
                orec = scope.lookup(pv.name)[2]
            if orec["table"] is not None:   # (judged once the applied tables are known: settle_direct_tables)
                orec.setdefault("more_tables", []).append((q, self.__dict__.get("direct_decls", {}).get(orec["name"], prop.loc)))
            else:
                orec["table"] = q
            rec[kind] = orec["name"]
        if q in self.tables:
            raise E(d.loc, f"table {q} declared twice")
        self.tables[q] = rec
        if not hasattr(self, "table_locs"):
            self.table_locs = {}
        self.table_locs[q] = d.loc
        return q

    def anonymous_direct(self, prop, kind: str, q: str) -> dict:
        """``@name("c") counters = direct_counter(CounterType.packets);``: the instance p4c
        names by the property's @name, taken as written (without one it rejects the program)."""
        annos = prop.get("annos") or []
        na = annotation(annos, "name")
        property_instance_name(prop, q)
        args = by_position(prop.value.args, CONSTRUCTORS.get(kind), kind, prop.value.loc)
        if len(args) != 1:
            raise E(prop.value.loc, f"{kind} takes (type)")
        name = na[1][0][1:] if na[1][0].startswith(".") else na[1][0]   # p4c: one dot off
        rec = {"name": name, "py": "X_" + re.sub(r"\W", "_", name), "table": None, "annos": annos,
               "unit": self.enum_member(args[0], "CounterType" if kind == "direct_counter" else "MeterType"),
               "uid": ((annotation(annos, "id") or (None, [None]))[1] or [None])[0],
               "inline": True}   # (it goes with its table: p4info.build_p4info's type_info)
        self.add_object(kind + "s", rec, prop.loc)
        return rec

    def expr_type_or_none(self, n: Node, scope) -> list:
        """The type of ``n`` in ``scope``, or ``[]`` where it has none there (an error left to the
        checks that follow)."""
        try:
            return self.expr(n, scope)[1]
        except P4CompileError:
            return []

    def action_call(self, e: Node, scope, what: str, listed=None):
        if e.kind == "name":
            e = Node("call", e.loc, fn=e, targs=[], args=[])
        if e.kind != "call" or e.fn.kind != "name":
            raise E(e.loc, f"{what}: expected an action call")
        ent = self.global_scope.lookup(e.fn.name) if e.fn.get("top") else scope.lookup(e.fn.name)
        if ent is None or ent[0] != "action":
            raise E(e.fn.loc, f"{what}: unknown action {e.fn.name}")
        a = self.actions[ent[1]]
        a["used"] = True
        e = self.args_by_name(e, a, what)
        if len(e.args) != len(a["params"]):   # (too few: p4c names the parameter left unassigned)
            missing = a["params"][len(e.args)] if len(e.args) < len(a["params"]) else {}
            if missing and listed is not None and a["name"] not in listed:
                # p4c looks for the action in the list first (not for extra arguments: p4c_mutate seed 137)
                raise E(e.loc, f"{what}: action {a['name']} is not in the actions list")
            raise E(missing.get("loc") or e.loc, f"{what}: action {a['name']} takes {len(a['params'])} argument(s), "
                                                 f"got {len(e.args)}")
        vals = []
        for arg, p in zip(e.args, a["params"]):
            if p["dir"]:
                continue  # directional: bound in the table's actions list
            self.entry_arg_serializable(arg, p, what, scope)
            if p.get("plain_enum"):
                if what.endswith("entry"):   # p4c 1.2.4.8's BMv2 back end, for entries only
                    raise E(arg.loc, f"{what}: {p['plain_enum']}: width not well-defined for values of "
                                     f"type {p['plain_enum']} (p4c: a plain enum argument in an entry)")
                v = self.fold(self.coerce(self.expr(arg, scope), ["enum", p["plain_enum"]], arg.loc))
            elif p.get("bool"):   # (a bool argument; the table's error names the parameter: errs20)
                v = self.fold(self.coerce(self.expr(arg, scope), ["bool"], arg.loc))
                v = None if v is None else int(bool(v))
            else:
                v = self.fold(self.coerce(self.serenum_arg(self.expr(arg, scope), p, arg, what, e.fn.loc),
                                                   p["t"], arg.loc))
            if v is None and p.get("not_cp") and _constant_aggregate(self.expr(arg, scope)[0]):
                # `{ 1 }` for a struct/header/tuple parameter is a constant to p4c: the table's own error
                # (the parameter's type, at the action) is raised where the table is kept, and a table
                # nothing applies compiles (helper errs31, y_ap_struct_default)
                vals.append(0)
                continue
            if v is None:
                raise E(arg.loc, f"{what}: action argument must be a compile-time constant")
            vals.append(unsigned_value(v, p["t"]))
        return ent[1], vals

    def args_by_name(self, e: Node, a: dict, what: str) -> Node:
        """A default action's or entry's call with named arguments (``s(y = 4, x = 5)``): the
        arguments in parameter order (:meth:`positional`, as for any call: all named or none,
        each name once, every parameter given).  As p4c, an action with directional parameters
        takes named arguments only when every parameter is named, in declaration order
        (otherwise "No parameter named" / "must be bound")."""
        if not any(x.kind == "named_arg" for x in e.args):
            return e
        bound = next((p for p in a["params"] if p["dir"]), None)
        if bound is not None and [x.name for x in e.args] != [p["name"] for p in a["params"]]:
            raise E(e.loc, f"{what}: action {a['name']}: parameter {bound['name']} must be bound "
                           "(an action with directional parameters takes named arguments only all of "
                           "them, in declaration order)")
        return self.positional(e, a["params"], f"{what}: action {a['name']}", a["name"])

    def bound_by_name(self, a: Node, dparams: list, q: str) -> Node:
        """An actions-list entry whose bound arguments are named (``a(x = hdr.h.b)``): the
        arguments in parameter order (only directional parameters can be bound)."""
        named = [x for x in a.args if x.kind == "named_arg"]
        if not named:
            return a
        if len(named) != len(a.args):
            raise E(a.loc, f"table {q}: action {a.name}: either all arguments are named or none is")
        by = {x.name: x.value for x in named}
        names = [p["name"] for p in dparams]
        extra = [n for n in by if n not in names]
        if extra:
            raise E(a.loc, f"table {q}: action {a.name} has no directional parameter {extra[0]} to bind")
        if len(by) != len(names):
            raise E(a.loc, f"table {q}: action {a.name} needs bound arguments for {', '.join(names)}")
        return Node(a.kind, a.loc, **{**a._attrs, "args": [by[n] for n in names]})

    def property_named_call(self, call: Node, props: dict, q: str) -> None:
        """An action named like a property the table has (``actions``, ``default_action``,
        ``key``) called in its ``default_action`` or an entry: p4c 1.2.4.8 resolves the name to
        the property and dies ("Compiler Bug: Could not find type of <Property> actions";
        p4c_mutate seed 125, kind reserved_name, and probes -- an action named ``size`` or
        ``entries`` is found)."""
        fn = call.fn if call.kind == "call" else call
        if fn.kind == "name" and fn.name in ("actions", "default_action", "key") and fn.name in props:
            raise E(fn.loc, f"table {q}: {fn.name}(...) calls an action named like the table's {fn.name} property "
                            f"(p4c: 'Compiler Bug: Could not find type of <Property> {fn.name}')")

    def bound_args_first(self, call: Node, listed: list, scope, q: str, what: str) -> None:
        """p4c compares an entry's arguments with those the actions list binds before it counts
        them: ``set(2)`` for ``set(in bit<16> y, bit<8> x)`` listed as ``set(m.y)`` is named at
        the ``2`` ("argument does not match declaration in actions list"), not as a missing x."""
        if call.kind == "call" and call.fn.kind == "name":
            ent = self.global_scope.lookup(call.fn.name) if call.fn.get("top") else scope.lookup(call.fn.name)
            if ent is not None and ent[0] == "action" and ent[1] in self.actions:
                self.check_bound_args(call, listed, ent[1], scope, q, what)

    def check_bound_args(self, call: Node, listed: list, aname: str, scope, q: str,
                         what: str = "default action") -> None:
        """A default action's or an entry's arguments for directional parameters must be the
        ones its entry in the actions list binds (p4c: the same expressions)."""
        if call.kind != "call":
            return
        entry = next((a for a in listed if (scope.lookup(a.name) or (None, None))[1] == aname), None)
        params = self.actions[aname]["params"]
        if entry is None:
            return
        bound = iter(entry.args)
        for arg, p in zip(call.args, params):   # (named arguments are in declaration order here)
            if not p["dir"]:
                continue
            if arg.kind == "named_arg":
                arg = arg.value
            want = next(bound, None)
            if p["dir"] in ("out", "inout") and not _lvalue_shape(arg):   # (p4c's type checker first:
                # `s(x = (bit<8>)(int<8>)(hdr.h.a))` for a listed `s(hdr.h.a)`; p4c_mutate seed 434)
                raise E(arg.loc, f"{expr_text(arg)}: must be a left-value (p4c)")
            if want is not None and expr_text(arg) != expr_text(want):
                raise E(arg.loc, f"table {q}: {what} argument {expr_text(arg)} for parameter "
                                 f"{p['name']} does not match {expr_text(want)} bound in the actions list")


def _lit_text(ir) -> str:
    """A typed constant as p4c prints it (``8w1``, ``4s3``)."""
    t = ir["t"]
    return f"{t[1]}{'s' if t[0] == 'int' else 'w'}{ir['v']}" if t[0] in ("bit", "int") else str(ir["v"])


def _lvalue_shape(n: Node) -> bool:
    """Whether AST ``n`` has the shape of a left-value (a name, or a member, index or slice of one)."""
    while n.kind in ("member", "index", "slice"):
        n = n.a if n.kind == "slice" else n.base
    return n.kind == "name"


def _constant_aggregate(ir) -> bool:
    """A list/struct/header expression whose leaves are all constants (p4c's compile-time constant)."""
    if ir.get("op") == "const":
        return True
    if ir.get("op") == "mk":
        return all(_constant_aggregate(v) for v in ir["vals"])
    if ir.get("op") == "list":
        return all(_constant_aggregate(v) for v in ir["items"])
    return False
