"""The final IR dict: P4Runtime ids and aliases for every object, and the JSON layout
read by switch.runtime.

A mixin of :class:`switch.compiler.elaborate.Elaborator`: ``self`` holds the program-wide
tables (headers, structs, actions, tables, ...) and the current block context ``self.ctx``.
"""
from __future__ import annotations

from .action_copies import localize_named_toplevel_actions
from .action_twins import p4info_record
from .ast import annotation
from .dead_reads import drop_stores_before_extern_outs, specialize_copy_out_bodies
from .out_arg_stores import drop_all as drop_stores_before_out_args
from .elab_calls import live_cond_init_ops
from .elab_common import E, IR_FORMAT, ir_dicts, pyname
from .elab_parsers import reachable_states
from .exit_blind_stores import drop_stores_before_exiting_applies
from .ids import aliases, assign_ids, field_ids, PREFIX
from .p4info import _applied_tables, _called_actions
from .predication import predicate_actions
from .subcontrol_copies import specialize_subcontrols


class OutputRules:
    # ---------------------------------------------------------------- output
    def used_value_sets(self) -> list:
        """The value sets some ``select`` uses: p4c drops the others (P4Info and JSON)."""
        return [v for v in getattr(self, "value_sets", []) if v.get("used")]

    def drop_unapplied_subcontrols(self, blocks) -> None:
        """p4c removes a sub-control instance that no reachable body applies (declared only, or
        applied in a branch it folds away), and with it the instance's tables, actions and extern
        instances: none is in its P4Info.  Such instances (and those declared inside them) leave
        ``self.subcontrols``; their counters, meters and registers stay for the switch but are
        marked ``p4info_hidden`` (an action of theirs may still be elaborated), and their
        names are kept in ``self.gone_subcontrols``: p4c's BMv2 target checks do not see
        their actions."""
        subs = getattr(self, "subcontrols", None) or []
        by_fn = {b.get("fn"): b for b in subs}
        reached, todo = set(), [blocks]
        while todo:
            for n in ir_dicts(todo.pop()):
                if n.get("s") == "apply_control" and n.get("fn") in by_fn and n["fn"] not in reached:
                    reached.add(n["fn"])
                    todo.append([by_fn[n["fn"]]["locals"], by_fn[n["fn"]]["body"]])
        gone = {b["name"] for b in subs if b.get("fn") not in reached}
        self.gone_subcontrols = gone
        if not gone:
            return
        self.subcontrols = [b for b in subs if b.get("fn") in reached]
        owner = self.__dict__.get("object_blocks", {})
        for k in ("counters", "meters", "registers"):
            for o in self.objects[k]:
                if owner.get(o["name"]) in gone:
                    o["p4info_hidden"] = True

    def drop_unapplied_subparsers(self, blocks) -> None:
        """The same for sub-parser instances: one that no reachable state of a reached parser
        applies is removed by p4c, and its value sets are not in the P4Info (marked unused)."""
        subs = getattr(self, "subparsers", None) or []
        by_fn = {b.get("fn"): b for b in subs}
        reached, todo = set(), [blocks["parser"]]
        while todo:
            blk = todo.pop()
            live = [blk["states"][n]["body"] for n in reachable_states(blk["states"])]
            for n in ir_dicts([blk["locals"], live]):
                if n.get("s") == "apply_parser" and n.get("fn") in by_fn and n["fn"] not in reached:
                    reached.add(n["fn"])
                    todo.append(by_fn[n["fn"]])
        gone = {b["name"] for b in subs if b.get("fn") not in reached}
        owner = self.__dict__.get("object_blocks", {})
        for v in getattr(self, "value_sets", []):
            if owner.get(v["name"]) in gone:
                v["used"] = False

    def check_direct_names(self) -> None:
        """p4c drops a direct counter or meter no table attaches ("Direct counter not used;
        ignoring") before its P4Runtime serializer checks names, so an unattached one may share
        its name with an attached one (P4B's ts_switching: an instance and the table's
        ``@name(".my_direct_counter") counters = direct_counter(...)``); two attached ones may
        not ("Name 'x' is used for multiple direct_counter objects")."""
        locs = self.__dict__.get("direct_locs", {})
        for key in ("direct_counters", "direct_meters"):
            objs, seen = self.objects[key], set()
            for o in objs:
                if o["table"] is not None:
                    if o["name"] in seen:
                        raise E(locs.get(id(o)), f"name '{o['name']}' is used for more than one "
                                                 f"{key[:-1].replace('_', ' ')} object in the P4Info")
                    seen.add(o["name"])
            # an unattached one that shares a name goes (its ids and runtime object with it)
            self.objects[key] = [o for o in objs if o["table"] is not None or sum(
                p["name"] == o["name"] for p in objs) == 1]

    def settle_direct_tables(self, applied: set) -> None:
        """A direct counter or meter several tables attach: p4c removes the tables nothing applies
        first, so it is refused only when two applied tables attach it (with the P4Info, p4c's
        first error is "Name 'I.dm' is used for multiple direct meter objects in the P4Info message",
        no position; its back end's "cannot be attached to multiple tables" comes after), and is
        the applied one's where one is applied (measured by helper opens: an unapplied second
        table compiles, and with no read its applied table's "must have at least one action with
        a read method call" is the error).  checkmate-p4c refused any second table at once."""
        for key in ("direct_counters", "direct_meters"):
            for o in self.objects[key]:
                more = o.pop("more_tables", None)
                if not more:
                    continue
                tables = [o["table"], *(q for q, _ in more)]
                on = [q for q in tables if q in applied]
                if len(on) > 1:
                    raise E(more[0][1], f"{o['name']}: Direct {key.split('_')[1][:-1]}s cannot be attached to multiple "
                                        f"tables {on[0]} and {on[1]} (p4c: Name '{o['name']}' is used for multiple "
                                        f"direct {key.split('_')[1][:-1]} objects in the P4Info message)")
                o["table"] = on[0] if on else o["table"]
                for q in tables:
                    if q != o["table"]:
                        self.tables[q][key[:-1]] = None

    def note_empty_name(self, q: str, kind: str | None, name_anno) -> None:
        """``@name(".")``: the object's control-plane name is empty (judged in :meth:`finish`,
        once it is known whether p4c keeps the object)."""
        if not q and kind:
            self.__dict__.setdefault("empty_names", {}).setdefault(kind, name_anno[2])

    def finish(self, blocks, decls) -> dict:
        body_extern = self.__dict__.get("body_extern_errors", [])   # (elab_externs.user_extern_call:
        # they come first, as does a target error in a control's body: elab_externs.target_error)
        late = self.__dict__.get("late_errors", [])
        # a program's own extern instance whose methods actions call: p4c's JSON conversion refuses
        # those calls ("Unknown extern method m from type Ex", at the method) as it converts the
        # actions, and never gets to the instance (klagrassa/prog_tm_bmv2's TrafficManagerInterface,
        # corpus22): its error waits for the surviving actions' below
        method_first = late and getattr(late[0], "extern_instance", False) and any(
            getattr(a.get("deferred_error"), "extern_method", False) for a in self.actions.values())
        for err in late[:0 if body_extern or self.__dict__.get("body_target_errors") or method_first else 1]:
            raise err   # (elab_types.note_late_error)
        self.drop_unapplied_subcontrols(blocks)
        self.drop_unapplied_subparsers(blocks)
        self.check_direct_names()
        localize_named_toplevel_actions(self, blocks)
        self.settle_unions(blocks)   # p4c's def-use after inlining (elab_unions)
        specialize_subcontrols(getattr(self, "subcontrols", None) or [], blocks, self.inlined_for_copies,
                               self.struct_fields)   # (switch_copies)
        drop_stores_before_exiting_applies(getattr(self, "subcontrols", None) or [], blocks)
        live = self.live_actions()
        used_actions = {q: a for q, a in self.actions.items() if q in live or self._called(q, blocks, live)}
        applied = _applied_tables([blocks, getattr(self, "subcontrols", []), getattr(self, "subparsers", []),
                                   [f["body"] for f in self.functions.values()]], set(),
                                  {q: t["keys"] for q, t in self.tables.items()})
        self.settle_direct_tables(applied)
        for tq, refs in self.__dict__.get("property_refs", {}).items():   # (elab_tables.ignored_property_value)
            for aq in refs if tq in applied else ():
                used_actions.setdefault(aq, self.actions[aq])["property_ref"] = True
        # p4c removes a table nothing applies, then the actions only it listed: it reads their
        # @id / @priority no more than those of an action nothing uses, nor runs its target checks
        in_applied = {a["name"] for q, t in self.tables.items() if q in applied for a in t["actions"]}
        only_unapplied = {a["name"] for q, t in self.tables.items() if q not in applied
                          for a in t["actions"]} - in_applied
        for q in sorted(in_applied):   # (a table's action: no copy-out makes its header initializer dead)
            if live_cond_init_ops(self.actions.get(q, {})) and self.actions[q].get("control") not in self.gone_subcontrols:
                loc, what, _ = live_cond_init_ops(self.actions[q])[0]
                raise E(loc, f"{what}: conditional execution in actions is not supported on this target "
                             "(p4c: Conditional execution in actions unsupported on this target)")
        kept = {q: a for q, a in used_actions.items()   # (an action of a removed sub-control instance goes
                if a.get("control") not in self.gone_subcontrols   # with it, before the target checks)
                and (q not in only_unapplied or self._called(q, blocks, live))}
        conds = [a["cond_call_error"] for a in kept.values() if a.get("cond_call_error")]
        if conds:   # (p4c: its midend's, before the JSON conversion's; the first in the source)
            raise min(conds, key=lambda e: (e.loc.file, e.loc.line, e.loc.col))
        for err in body_extern[:1]:   # (as before: ahead of the actions' own)
            raise err
        # the surviving actions' back-end errors (and a deprecated call's in a control body,
        # elab_externs.deprecated_call_error, or another target error there) in the order p4c's
        # JSON conversion meets them: the controls in declaration order (not V1Switch's:
        # DINGDAMU/P4DDoS declares egress first and p4c names its _drop), each one's actions in
        # source order, then its body's
        order = {d.name: i for i, d in enumerate(self.decls) if d.kind == "control"}
        act_index = {id(a.get("deferred_error")): i for i, a in enumerate(self.actions.values())}

        def conversion_order(ctl, err):   # (a deprecated call's, which p4c prints without a position
            # of the program, after the ones it locates: the first line p4c names is theirs; among
            # them, p4c's conversion order -- per control, its actions in the order of its locals
            # once sub-controls are inlined (an instance's at its declaration, a directly applied
            # one's after the control's own: self.actions' order), then its body's calls, those of
            # the sub-control bodies it applies in place: probed by helper opens2; a located one in
            # a control's body after its actions': helper corpus21)
            top = order.get(str(ctl or "").split(".")[0], len(order))
            if getattr(err, "positionless", False):
                return (True, top, *((0, act_index[id(err)]) if id(err) in act_index else (1, getattr(err, "seq", 0))))
            return (False, top, getattr(err, "in_body", False), err.loc.file, err.loc.line, err.loc.col)
        pending = [(a.get("control"), a["deferred_error"]) for a in kept.values() if a.get("deferred_error")]
        pending += [ce for a in kept.values() for ce in a.get("copy_errors", ())]   # (elab_actions)
        pending += [(e.block, e) for e in self.__dict__.get("body_deprecated_errors", [])]
        pending += [(e.block, e) for e in self.__dict__.get("body_target_errors", [])]   # (elab_externs.target_error)
        pending += [(blk, e) for blk, e in self.__dict__.get("block_errors", {}).items()   # (a sub-control body's)
                    if getattr(e, "positionless", False) and blk not in self.gone_subcontrols]
        for _, err in sorted(pending, key=lambda ce: conversion_order(*ce)):
            err.converted_first = True   # (elab_order.action_error_first)
            self.raise_deferred(err)
        for err in late[:1] if method_first else ():   # (no surviving action calls its methods)
            raise err
        for err in self.__dict__.get("metadata_enum_errors", [])[:1]:   # (elab_load_refusals.refuse_union_in_metadata)
            raise err
        for err in self.__dict__.get("struct_register_errors", [])[:1]:   # (elab_blocks: no read refused)
            raise err
        for _, err in sorted(self.__dict__.get("checksum_control_errors", []), key=lambda ve: ve[0])[:1]:
            raise err   # (elab_externs.user_extern_call: ComputeChecksum's before VerifyChecksum's)
        for blk, err in self.__dict__.get("block_errors", {}).items():
            if blk not in self.gone_subcontrols:
                self.raise_deferred(err)
        for q, t in self.tables.items():
            if q in applied and t.get("target_error"):
                raise t["target_error"]
            if q in applied and q in self.__dict__.get("table_load_refusals", {}):   # (elab_load_refusals)
                self.raise_deferred(self.table_load_refusals[q])
        called = _called_actions([blocks, getattr(self, "subcontrols", [])], set())
        for rec, loc, action in self.direct_meter_reads:
            # p4c names the declaration: "direct meter is not associated with any table" -- also where
            # the only table attaching it is not applied, p4c removes it first, with the actions only it
            # lists (errs25 probe e2_x_dmeter_read_outside; such an action's read is gone too)
            gone = rec["table"] is not None and rec["table"] not in applied
            if (rec["table"] is None or gone) and (action is None or action in used_actions and not (
                    gone and action in only_unapplied and action not in called)):
                raise E(self.__dict__.get("direct_meter_decls", {}).get(rec["name"], loc),
                        f"{rec['name']}: direct meter is read but no table attaches it with its "
                        "'meters' property (p4c rejects it)")
        kept_tables = getattr(self, "midend_kept", None)
        for t in self.tables.values():
            dmn = t.get("direct_meter")
            # p4c (bmv2) wants a read of the meter; one in the control's body counts too -- its back
            # end checks the tables its mid end keeps (not one applied only in a branch it folds, or
            # after a return under a condition it folds to true: p4c_mutate seed 337)
            readers = [action for r, _, action in self.direct_meter_reads if r["name"] == dmn]
            if dmn and not readers and t["name"] in applied and (kept_tables is None or t["name"] in kept_tables):
                raise E(t["decl"][1], f"{t['name']}: table with direct meter {dmn} must have at least one "
                                      "action with a read method call (p4c, bmv2)")
        self.renumber_auto_digests([blocks, getattr(self, "subcontrols", []), getattr(self, "subparsers", []),
                                    [f["body"] for f in self.functions.values()]], kept)
        # the actions of p4c's P4Info: listed by an applied table (or an unknown table property),
        # or called from a control body -- not one only other actions call (p4c_mutate seed 325):
        # the @id of another is not read
        listed = in_applied | {q for q, a in used_actions.items() if a.get("property_ref")} | \
            _called_actions([blocks, getattr(self, "subcontrols", [])], set())
        syms = {
            "action": {q: a["uid"] if q in listed else None for q, a in used_actions.items()},
            # an unapplied table's @id is not read (p4c removes the table): a bad one is ignored
            "table": {q: t["uid"] if isinstance(t["uid"], int) else None for q, t in self.tables.items()},
            "counter": {c["name"]: c["uid"] for c in self.objects["counters"]},
            "register": {r["name"]: r["uid"] for r in self.objects["registers"]},
            "meter": {m["name"]: m["uid"] for m in self.objects["meters"]},
            "direct_counter": {c["name"]: c["uid"] for c in self.objects["direct_counters"]},
            "direct_meter": {m["name"]: m["uid"] for m in self.objects["direct_meters"]},
            "digest": {d: None for d in self.digests},
            "value_set": {v["name"]: v["uid"] for v in self.used_value_sets()},
            "action_profile": {a["name"]: a["uid"] for a in self.objects["action_profiles"]},
            # p4c hashes the header *type* name (controlPlaneName of the Type_Header)
            "controller_header": {c["header"]: (c["id_anno"][1][0] if c["id_anno"] else None)
                                  for n, c in self.controller_headers.items()},
        }
        kept = {"table": applied,
                "action": {q for q in used_actions if q not in only_unapplied or self._called(q, blocks, live)}}
        for kind, loc in self.__dict__.get("empty_names", {}).items():
            if "" in (kept[kind] if kind in kept else syms.get(kind) or ()):
                # p4c's P4Runtime serializer dies on it ("Compiler Bug: Null or empty symbol name?")
                raise E(loc, f'@name(".") gives the {kind.replace("_", " ")} an empty control-plane name '
                             "(p4c: Compiler Bug: Null or empty symbol name)")
        self.check_user_ids({q: a for q, a in used_actions.items()
                             if q not in only_unapplied or self._called(q, blocks, live)}, applied, listed)
        for q, t in self.tables.items():
            if q not in applied and t.get("decl"):
                self.warn(t["decl"][1], f"Table {t['decl'][0]} is not used; removing")
        ids = assign_ids(syms)
        al = aliases([n for kind in syms.values() for n in kind])
        actions = []
        order = {q: i for i, q in enumerate(self.actions)}   # declaration order (p4info.py lists by it)
        for q, a in sorted(used_actions.items(), key=lambda kv: ids["action"][kv[0]]):
            ctl = [p for p in p4info_record(self.actions, q, in_applied)["params"]
                   if p["dir"] is None and not p.get("not_cp")]   # (not_cp: only called directly)
            pids = field_ids([_param_id(p) for p in ctl])
            actions.append({"name": q, "id": ids["action"][q], "alias": al[q],
                            "params": [{"name": p.get("cp_name", p["name"]), "id": pids[i], "width": p["t"][1], "py": p["py"],
                                        "annos": _annos_json(p.get("annos")), "newtype": p.get("newtype"),
                                        "enum": p.get("enum"), **({"plain_enum": p["plain_enum"]}
                                                                  if p.get("plain_enum") else {})}
                                       for i, p in enumerate(ctl)],
                            "all_params": [{"name": p["name"], "py": p["py"], "dir": p["dir"], "t": p["t"]}
                                           for p in a["params"]],
                            "body": a["body"], "annos": _annos_json(_p4info_annos(a)),
                            "control": a["control"], "p4order": order.get(q, len(order)),
                            **({"property_ref": True} if a.get("property_ref") else {})})
        # p4c's BMv2 mid end predicates the ifs of every action (in declaration order)
        predicate_actions(sorted(actions, key=lambda a: order.get(a["name"], len(order))), list(self.functions.values()),
                          self.structs)
        aid = {a["name"]: a["id"] for a in actions}
        npar = {a["id"]: a["params"] for a in actions}   # (the P4Info's parameters of an id)

        def ncp(name):   # the control-plane parameters a table action's own body takes
            return sum(1 for p in self.actions[name]["params"] if p["dir"] is None and not p.get("not_cp"))
        tables = []
        torder = {q: i for i, q in enumerate(self.tables)}
        for q, t in sorted(self.tables.items(), key=lambda kv: ids["table"][kv[0]]):
            # a listed @name twin: the P4Info action's id, run with the twin's body ("impl")
            tw = {a["name"]: a["p4info_as"] for a in t["actions"] if a.get("p4info_as")}

            def tid_of(name, tw=tw):
                return aid[tw.get(name, name)]
            tables.append({
                "name": q, "id": ids["table"][q], "alias": al[q], "size": t["size"], "p4order": torder[q],
                **({"where": str(t["decl"][1])} if t.get("decl") else {}),   # (named where BMv2 cannot allocate it: bmv2_memory)
                # (in p4c's P4Info, not in its BMv2 JSON: table_successors.midend_kept_tables)
                **({"midend_removed": True} if q in applied and getattr(self, "midend_kept", None) is not None
                   and q not in self.midend_kept else {}),
                **({"p4info_size": t["p4info_size"]} if t.get("p4info_size") is not None else {}),
                "keys": [{"id": k["id"], "name": k["name"], "match": k["match"], "width": k["width"],
                          "expr": k["expr"], "annos": _annos_json(k["annos"]), "newtype": k.get("newtype"),
                          "enum": k.get("enum"), **({"error": True} if k.get("error") else {}),
                          **({"temp": True} if k.get("temp") else {}), **({"held": True} if k.get("held") else {})}
                         for k in t["keys"]],
                "actions": [{"id": tid_of(a["name"]), "name": tw.get(a["name"], a["name"]), "scope": a["scope"],
                             "annos": _annos_json(a["annos"]), "bound": a.get("bound", []),
                             **({"impl": aid[a["name"]]} if a["name"] in tw else {}),
                             **({"dead_paths": a["dead_paths"]} if a.get("dead_paths") else {}),
                             **({"unvisited_body": a["unvisited_body"]} if a.get("unvisited_body") is not None else {}),
                             **({"cp_mismatch": True} if ncp(a["name"]) != len(npar[tid_of(a["name"])]) else {})}
                            for a in t["actions"]],
                "default": {"action": tid_of(t["default"]["action"]), "params": t["default"]["params"],
                            "const": t["default"]["const"]},
                # BMv2 has no default_action for a table with an action profile or selector (p4c
                # warns and leaves it out of the JSON): a miss runs nothing.  "default" stays for
                # the P4Info (its const_default_action_id)
                **({"miss_nop": True} if t["profile"] else {}),
                "const_entries": [dict(e, action=tid_of(e["action"]), matches=[
                    {"id": m["id"], "kind": m["kind"], "value": m["value"], "mask": m.get("mask"),
                     "prefix_len": m.get("prefix_len"), "high": m.get("high")} for m in e["matches"]])
                    for e in t["const_entries"] if not t["profile"] and q in applied],   # (p4c's JSON drops the
                # entries of a table with an action profile or selector: BMv2 loads the table empty; its
                # P4Info still says has_initial_entries; and a table nothing applies: two entries with
                # one key are no load error there, errs16)
                **({"entries_dropped": True} if t["profile"] and t["const_entries"] else {}),
                "is_const": t["is_const"],
                "direct_counter": ids["direct_counter"][t["direct_counter"]] if t["direct_counter"] else None,
                "direct_meter": ids["direct_meter"][t["direct_meter"]] if t["direct_meter"] else None,
                **({"dm_read": dmr} if t["direct_meter"] and (dmr := next(
                    (m.get("read_target") for m in self.objects["direct_meters"] if m["name"] == t["direct_meter"]),
                    None)) else {}),
                "annos": _annos_json(t["annos"]), "support_timeout": t["support_timeout"],
                "control": t["control"],
                "implementation_id": ids["action_profile"][t["profile"]] if t["profile"] else None,
                "selector_keys": t["selector_keys"],
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
        ir = {
            "format": IR_FORMAT,
            "annos": _annos_json(getattr(self, "main_annos", [])),   # the V1Switch instance's
            "program": self.program,
            "headers": self.headers,
            "structs": {n: {"fields": [[pyname(f), t] for f, t in s["fields"]],
                            "p4_fields": [f for f, _ in s["fields"]],
                            # a varbit field (left out of "fields": elab_types) of a local: a box (errs24)
                            **({"varbit_boxes": vb} if (vb := [[pyname(f), t] for (sn, f), t in self.__dict__.get(
                                "dropped_varbit_fields", {}).items() if sn == n]) else {})}
                        for n, s in self.structs.items()},
            "header_fields": {n: [pyname(f) for f, _, _ in h["fields"]] for n, h in self.headers.items()},
            "errors": self.errors,
            "enums": {n: {"base": e["base"], "members": e["members"], **({"typedef_base": e["typedef_base"]} if e.get("typedef_base") else {})}
                      for n, e in self.enums.items()},
            "field_lists": {str(k): v for k, v in self.fl_fields.items()},
            "blocks": blocks,
            "subcontrols": getattr(self, "subcontrols", []),
            "subparsers": getattr(self, "subparsers", []),
            "action_profiles": [{"name": a["name"], "id": ids["action_profile"][a["name"]],
                                 "alias": al[a["name"]], "size": a["size"],
                                 "with_selector": a["algo"] is not None, "algo": a["algo"],
                                 "width": a["width"], "annos": _annos_json(a["annos"]),
                                 **({"inline": True} if a.get("inline") else {}),
                                 # p4c lists them by table name (probed: aa, mm, zz whatever the order of
                                 # declaration, application or id)
                                 "table_ids": [ids["table"][t] for t in sorted(set(a["tables"]))]}
                                for a in self.objects["action_profiles"]],
            "value_sets": [{"name": v["name"], "id": ids["value_set"][v["name"]], "alias": al[v["name"]],
                            "py": v["py"], "width": v["width"], "size": v["size"],
                            "fields": [dict(f, id=i) for i, f in zip(field_ids([f.get("uid") for f in v["fields"]]), v["fields"])],
                            "annos": _annos_json(v["annos"])} for v in self.used_value_sets()],
            "actions": actions,
            "tables": tables,
            "counters": objs("counter", "counters"),
            "registers": objs("register", "registers"),
            "meters": objs("meter", "meters"),
            "direct_counters": objs("direct_counter", "direct_counters"),
            "direct_meters": objs("direct_meter", "direct_meters"),
            "digests": [{"name": d, "id": ids["digest"][d], "alias": al[d], "fields": v["fields"],
                         "struct": v.get("struct", d),
                         "newtypes": [self.field_newtypes.get((v.get("struct", d), f)) for f, _ in v["fields"]],
                         "tuple": bool(v.get("tuple")), **({"scalar": True} if v.get("scalar") else {})}
                        for d, v in self.digests.items()],
            "newtypes": {n: {"t": nt["t"], "annos": _annos_json(nt["annos"])} for n, nt in self.newtypes.items()},
            # the P4Info's type_info names a field by its control-plane name: its @name, one dot off
            # (p4info.cp_field; helper corpus15)
            "field_cp_names": {t: {f: (n[1:] if n.startswith(".") else n) for (t2, f), n in self.field_names.items()
                                   if t2 == t} for t, _ in self.field_names},
            "functions": [dict({k: v for k, v in f.items() if k not in ("deferred_error", "action_call", "action_switch")},   # elaboration only
                               params=[{k: v for k, v in p.items() if k != "default"} for p in f["params"]])
                          for f in self.functions.values()],
            "controller_headers": {
                n: {"name": n, "id": ids["controller_header"][c["header"]], "alias": n, "header": c["header"],
                    "annos": _annos_json(c["annos"]),
                    "fields": [{"id": fid, "name": cp or f, "width": w,   # p4c: a field's @id, else FieldIdAllocator's
                                "newtype": self.field_newtypes.get((c["header"], f)),
                                "enum": self.field_enums.get((c["header"], f)), **({"hidden": True} if hidden else {}),
                                **({"annos": _annos_json(fa)} if fa else {})}   # listed on the metadata (p4c)
                               for fid, (f, w, uid, hidden, cp, fa) in zip(field_ids([x[2] for x in c["fields"]]), c["fields"])]}
                for n, c in self.controller_headers.items()},
        }
        if self.__dict__.get("load_refusals"):   # (ExternRules.load_refusal: BMv2 refuses p4c's JSON)
            ir["load_error"] = str(self.load_refusals[0])
            grpc = [e for e in self.load_refusals if not getattr(e, "grpc_loads", False)]
            if len(grpc) < len(self.load_refusals):   # (what simple_switch_grpc refuses of them: "" none)
                ir["grpc_load_error"] = str(grpc[0]) if grpc else ""
        specialize_copy_out_bodies(ir)   # (dead_reads: bodies without stores a copy-back kills)
        drop_stores_before_extern_outs([ir["blocks"], ir.get("actions"), ir.get("functions"), ir.get("subcontrols"),
                                        ir.get("subparsers")])
        # (a store a sub-control's `out` argument kills: p4c's front-end def-use drops it)
        drop_stores_before_out_args(list(ir["blocks"].values()) + list(ir.get("subcontrols") or ()))
        return ir

    def renumber_auto_digests(self, bodies: list, kept: dict) -> None:
        """p4c names the tuple digests digest_0, digest_1, ... among the calls that survive its
        front end: a digest call in an action p4c removes (nothing lists or calls it) takes no
        number (errs17 probe d_dig_*: an unused action's digest before the used one).  The tuple
        digests were numbered as elaborated; the surviving ones are renumbered densely (in that
        order) and the others renamed out of the way (p4info.py leaves them out)."""
        auto = [n for n, d in self.digests.items() if d.get("tuple") and n.startswith("digest_") and n[7:].isdigit()]
        if not auto:
            return
        def uses(x):
            return [d for d in ir_dicts(x) if d.get("s") == "digest" or (d.get("s") == "nop" and "digest" in d)]
        sent = {d["name"] if d["s"] == "digest" else d["digest"] for d in uses(bodies + [a["body"] for a in kept.values()])}
        keep = [n for n in auto if n in sent]
        ren = {n: f"digest_{i}" for i, n in enumerate(keep)}
        ren.update({n: f"unreached_{n}" for n in auto if n not in sent})
        if all(k == v for k, v in ren.items() if k in sent):
            return
        for d in uses(bodies + [a["body"] for a in self.actions.values()]):
            key = "name" if d["s"] == "digest" else "digest"
            d[key] = ren.get(d[key], d[key])
        self.digests = {ren.get(n, n): dict(d, name=ren.get(n, n)) for n, d in self.digests.items()}

    def check_user_ids(self, used_actions, applied=None, listed=None) -> None:
        """``@id(N)``: an integer, and one declaration per id within a kind (p4c: "@id N is
        assigned to multiple declarations").  p4c's P4Runtime serializer reads it: of an action
        not in the P4Info (``listed``: one only other actions call) only its syntax is checked
        (one integer literal; helper mutz31, p4c_mutate seed 325)."""
        kinds = {"counters": "counter", "registers": "register", "meters": "meter",
                 "direct_counters": "direct_counter", "direct_meters": "direct_meter",
                 "action_profiles": "action_profile"}
        for v in self.used_value_sets():   # (p4c drops an unused one first: helper mutz29, seed 701)
            if v["size"] < 0:
                raise E(v["size_loc"], f"@size should be a positive integer for declaration {v['name']} "
                                       f"(value_set size {v['size']})")
        groups = [("action", used_actions.values()), ("table", self.tables.values()),
                  ("value_set", self.used_value_sets())] + [(kinds.get(k), self.objects[k]) for k in self.objects]
        for kind, recs in groups:
            seen: dict = {}
            for r in recs:
                if kind == "table" and applied is not None and r["name"] not in applied:
                    continue   # p4c removes a table nothing applies before it reads its @id
                for a in r.get("annos") or ():
                    # p4c parses these only on objects it keeps: one integer literal each
                    # (@max_group_size of a selector: errs62 probes mg_*; was a Python ValueError)
                    if a[0] in ("id", "priority", "max_group_size") and not isinstance(a[1], dict) and not (
                            len(a[1]) == 1 and isinstance(a[1][0], int) and not isinstance(a[1][0], bool)):
                        raise E(a[2] if len(a) > 2 else None, f"{r['name']}: @{a[0]} takes one integer literal, "
                                                               f"e.g. @{a[0]}(10)")
                uid = r.get("uid")
                if uid is None or kind == "action" and listed is not None and r["name"] not in listed:
                    continue
                loc = next((a[2] for a in r.get("annos") or () if a[0] == "id" and len(a) > 2), None)
                if isinstance(uid, bool) or not isinstance(uid, int):
                    raise E(loc, f"{r['name']}: @id needs an integer, not {uid!r}")
                if uid >= 1 << 32:
                    raise E(loc, f"{r['name']}: @id should be an unsigned integer (p4c: it does not fit 32 bits)")
                if kind in PREFIX and uid >> 24 and uid >> 24 != PREFIX[kind]:
                    # p4c adds the P4Runtime type prefix to a 24-bit @id; a full id must carry it
                    raise E(loc, f"{r['name']}: @id has the wrong 8-bit prefix (0x{uid >> 24:02x}; a {kind} id "
                                 f"starts with 0x{PREFIX[kind]:02x}, as p4c requires)")
                if uid in seen:
                    raise E(loc, f"@id {uid} is assigned to both {seen[uid]} and {r['name']}")
                seen[uid] = r["name"]
        for q in sorted(applied if applied is not None else self.tables):
            self.check_element_ids(self.tables[q])

    def check_element_ids(self, t: dict) -> None:
        """The ``@id`` of a kept table's key elements and of its actions' parameters (p4c's
        P4Runtime serializer): a positive integer literal ("KeyElement: 0 is not a valid @id value",
        a negative one its syntax error), one element per explicit id ("@id 1 is used multiple
        times"; a position an explicit id repeats is fine).  Helper mutz22's probes."""
        groups = [("KeyElement", self.__dict__.get("key_id_annos", {}).get(t["name"], []))]
        for a in t.get("actions") or ():
            act = self.actions.get(a["name"]) or {}
            if annotation(act.get("annos") or [], "hidden"):
                # not in the P4Info: its parameters' ids are only parsed, one integer literal each
                # (`@id(0)` compiles, `@id(-1)` is p4c's syntax error; helper mutz29, seed 321)
                for p in act.get("params") or ():
                    anno = annotation(p.get("annos") or [], "id")
                    if anno and not (len(anno[1]) == 1 and isinstance(anno[1][0], int) and not isinstance(anno[1][0], bool)):
                        raise E(anno[2], f"{p['name']}: @id takes one integer literal (p4c: syntax error)")
                continue
            params = act.get("params") or ()
            groups.append(("", [(p["name"], annotation(p.get("annos") or [], "id")) for p in params]))
        for what, elems in groups:
            self.check_id_annotations(elems, what)

    def check_id_annotations(self, elems: list, what: str) -> None:
        """``elems``: (name, its @id annotation or None) of one P4Info element list (a table's keys,
        an action's parameters, a controller header's metadata)."""
        seen = set()
        for name, anno in elems:
            if not anno:
                continue
            v = anno[1][0] if len(anno[1]) == 1 else None
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise E(anno[2], f"{what or name}: {' '.join(map(str, anno[1])) or 'nothing'} is not a valid @id value "
                                 "(a positive integer literal)")
            if v >= 1 << 32:   # (p4c_mutate seed 304, kind id_anno: a crash of ours building the P4Info)
                raise E(anno[2], f"{name}: @id should be an unsigned integer (p4c: it does not fit 32 bits)")
            if v in seen:
                raise E(anno[2], f"{what or name}: @id {v} is used multiple times")
            seen.add(v)

    def live_actions(self) -> set:
        """The actions p4c keeps: used by a table, a control body or a parser (``used`` is
        True), or called from the body of an action it keeps (``used`` is the set of the
        calling actions) -- an action only an unused action calls is removed with it, before
        p4c's target checks."""
        live = {q for q, a in self.actions.items() if a["used"] is True}
        grew = True
        while grew:
            grew = False
            for q, a in self.actions.items():
                u = a["used"]
                if q not in live and isinstance(u, frozenset) and u & live:
                    live.add(q)
                    grew = True
        return live

    def _called(self, q, blocks, live) -> bool:
        return _mentions(blocks, q, self.actions, live)


def _p4info_annos(a: dict) -> list:
    """The annotations p4c's P4Info gives an action that @name'd twins share the name of: those of
    the first declared one p4c keeps -- the action itself once anything but a twin uses it
    (core.p4's ``@noWarn("unused")`` NoAction), else the first twin a table lists (probed, mutz23)."""
    return a["annos"] if a.get("self_used") or a.get("twin_annos") is None else a["twin_annos"]


def _mentions(blocks, q, actions, live) -> bool:
    """Whether action ``q`` is called in ``blocks`` or in the body of another live action."""
    def calls(x) -> bool:
        return any(n.get("s") == "call_action" and n.get("action") == q for n in ir_dicts(x))
    return calls(blocks) or any(other["name"] != q and k in live and calls(other["body"])
                                for k, other in actions.items())


def _param_id(p: dict) -> int | None:
    """A control-plane parameter's @id(N) (as p4c), else None (ids.field_ids numbers it)."""
    uid = annotation(p.get("annos") or [], "id")
    return uid[1][0] if uid and uid[1] and isinstance(uid[1][0], int) and not isinstance(uid[1][0], bool) else None


def _annos_json(annos) -> list:
    """IR annotations: [name, args, text as p4c lists it (None: rendered from args)]."""
    return [[n, args if isinstance(args, dict) else [a if isinstance(a, (int, str)) else str(a) for a in args],
             getattr(a3, "raw", None)] for a3 in (annos or ()) for n, args, _ in [a3]]
