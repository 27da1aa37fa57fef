"""``switch`` statements: on a table's ``action_run`` and on a value.

A mixin of :class:`switch.compiler.elaborate.Elaborator` (through
:class:`~switch.compiler.elab_statements.StatementRules`).  A switch on a value follows what p4c
does with it before BMv2 sees it: a constant key keeps only the case p4c's front end folds to; a
run-time one becomes p4c's table of const entries (EliminateSwitch), so what BMv2 refuses to load
there -- equal labels, negative ``int`` labels, ``error`` keys -- is refused or noted as BMv2 would
(``load_refusal``, ``target_error``), and a single-case switch carries the copies p4c propagates
into its case (``switch_copies.single_case_copies``).
"""
from __future__ import annotations

from .ast import Node
from .switch_cases import unused_by_dead_cases
from .case_entry import entry_copies
from .switch_copies import single_case_copies
from .subcontrol_args import differing_instances
from .elab_common import BOOL, E, expr_text, INTLIT, is_bits, newtype_name, pyname, Scope, tstr
from .errors import P4CompileError


class SwitchRules:
    def is_bool_header_field(self, lv) -> bool:
        """``lv`` is a header field declared ``bool`` (kept as bit<1>)."""
        bt = lv.get("base", {}).get("t") if lv.get("op") == "field" else None
        fields = self.__dict__.get("bool_header_fields", ())
        return bool(bt) and bt[0] == "header" and any(h == bt[1] and pyname(f) == lv["f"] for h, f in fields)

    def switch_stmt(self, s: Node, scope) -> dict:
        e = s.expr
        if self.ctx.get("in_action"):   # p4c's bmv2 mid end (EliminateSwitch), every release
            self.target_error(s.loc, "switch statements are not supported in actions on this target "
                                     "(p4c: SwitchStatement: switch statements not supported in actions)")
        elif self.ctx.get("kind") == "function" and self.ctx.get("block") in self.functions and \
                not self.ctx.get("dead"):   # judged where an action calls it (function_in_action)
            self.functions[self.ctx["block"]].setdefault("action_switch", s.loc)
        if e.kind == "member" and e.name == "action_run" and e.base.kind == "call" and \
                e.base.fn.kind == "member" and e.base.fn.name == "apply":
            tname = self.table_ref(e.base.fn.base, scope, e.base)
            tab = self.tables[tname]
            anames = {a["name"] for a in tab["actions"]}
            cases = []
            pending: list = []
            seen = set()
            for c in s.cases:
                if c.label is None:
                    label = "default"
                    if label in seen:
                        raise E(s.loc, "switch statement has more than one 'default' label (p4c names the switch)")
                    seen.add(label)
                else:
                    if c.label.kind != "name":
                        raise E(c.label.loc, "switch case must be an action name")
                    # `.a:` names a top-level action only (p4c: "a: declaration not found" for a control's)
                    ent = (self.global_scope if c.label.get("top") else scope).lookup(c.label.name)
                    if ent is None and c.label.get("top"):
                        raise E(c.label.loc, f"{c.label.name}: declaration not found (.{c.label.name} names a "
                                             "top-level declaration)")
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
        if not s.cases and t[0] in ("varbit", "header", "struct", "stack", "match_kind"):
            return {"s": "block", "body": []}   # p4c drops a switch without cases before it checks the key's type
        if t == ["match_kind"] and ir.get("op") == "const" and all(c.label is None for c in s.cases):
            # `switch (exact) { default: {...} }`: p4c folds a constant switch before its back end
            # looks at the key (a variable key, or a case label, is refused: below)
            if len(s.cases) > 1:
                raise E(s.loc, "switch statement has more than one 'default' label (p4c names the switch)")
            return {"s": "block", "body": self.stmt(s.cases[0].body, Scope(scope)) if s.cases[0].body is not None else []}
        if not (is_bits(t) or t[0] in ("enum", "serenum", "error", "bool")):
            raise E(e.loc, f"switch on a value of type {tstr(t)}")
        cases, pending = [], []
        bool_field = t == ["bit", 1] and self.is_bool_header_field(ir)
        for c in s.cases:
            if c.label is None:
                if "default" in pending or any("default" in c2["labels"] for c2 in cases):
                    raise E(s.loc, "switch statement has more than one 'default' label (p4c names the switch)")
                pending.append("default")
            else:
                if bool_field:   # (a header field declared bool, held as bit<1>: bool labels, p4c)
                    lab = self.expr(c.label, scope)
                    if lab[1] != BOOL:
                        raise E(e.loc, f"{expr_text(e)} with type bool cannot be compared to {expr_text(c.label)} "
                                       f"with type {tstr(lab[1])}")
                    v = self.fold(lab[0])
                    v = None if v is None else int(v)
                else:
                    lab = self.expr(c.label, scope)
                    if lab[1] == INTLIT and newtype_name(t):   # (p4c: "'x' with type 'T9' cannot be compared to '1'"; errs23)
                        raise E(c.label.loc, f"{expr_text(e)} with type {tstr(t)} cannot be compared to "
                                             f"{expr_text(c.label)} with type int (p4c)")
                    try:
                        v = self.fold(self.coerce(lab, t, c.label.loc))
                    except P4CompileError as err:   # (p4c names the switch's expression; errs74)
                        if not (err.message.startswith("type mismatch") or "cannot be implicitly cast" in err.message):
                            raise
                        raise E(e.loc, f"{expr_text(e)} with type {tstr(t)} cannot be compared to the label at line "
                                       f"{c.label.loc.line} with type {tstr(lab[1])} (p4c)") from None
                if v is None:
                    raise E(c.label.loc, "switch label must be a compile-time constant")
                pending.append(v)
            if c.body is not None:
                before = {q: a.get("used") for q, a in self.actions.items()}
                case = {"labels": pending, "used_before": before}
                try:
                    case["body"] = self.stmt(c.body, Scope(scope))
                except P4CompileError as err:
                    # a direct action call missing a directionless argument of a type with no zero
                    # stand-in (a header): p4c checks it after folding a constant switch, so only
                    # the case it keeps raises it (p4c_mutate seed 174)
                    if not getattr(err, "unbound_directionless", False) or self.fold_condition(ir) is None:
                        raise
                    case["body"], case["unbound"] = [], err
                cases.append(case)
                pending = []
        if pending:
            cases.append({"labels": pending, "body": []})
        v = self.fold_condition(ir)   # (after p4c's strength reduction: `x % 1` is 0, fuzz_exprs seed 3825)
        self._restore_used(unused_by_dead_cases(self.actions, cases, v if v is None or not (
            t[0] == "serenum" and e.kind == "cast") else "default"))
        if v is not None:   # (the case p4c's front end keeps, before it inlines: inlined_lists)
            kept = "default" if t[0] == "serenum" and e.kind == "cast" else v
            hit = next((i for i, c in enumerate(cases) if kept in c["labels"]), None)
            hit = next((i for i, c in enumerate(cases) if "default" in c["labels"]), None) if hit is None else hit
            bodies = [i for i, c in enumerate(s.cases) if c.body is not None]
            s._attrs["p4c_kept_case"] = bodies[hit] if hit is not None and hit < len(bodies) else -1
        labels = [x for c in cases for x in c["labels"] if x != "default"]
        dup = next((x for i, x in enumerate(labels) if x in labels[:i]), None)
        if v is None and dup is not None:
            # p4c accepts it, but its table for the switch then holds two const entries with one
            # key, and BMv2 refuses to load the program ("Duplicate entries in table initializer")
            # (the spec makes equal labels a compile-time error; p4c 1.2.4.8 misses it)
            lab = [c.label for c in s.cases if c.label is not None and
                   self.fold(self.coerce(self.expr(c.label, scope), BOOL if bool_field else t, c.label.loc)) == dup][1]
            self.load_refusal(lab.loc, f"switch label {dup} appears more than once: Duplicate entries in table "
                                       "initializer (BMv2 refuses the table p4c makes of such a switch)")
        neg = next((x for x in labels if isinstance(x, int) and not isinstance(x, bool) and x < 0), None)
        if v is None and neg is not None and t[0] == "int":
            # p4c's table for the switch keys an entry "-0x01"; simple_switch dies loading it
            # (bytecontainer.h: Assertion `hexstring[idx] != '-'`; probed, helper errs15)
            lab = next(c.label for c in s.cases if c.label is not None and
                       self.fold(self.coerce(self.expr(c.label, scope), t, c.label.loc)) == neg)
            self.load_refusal(lab.loc, f"switch label {neg}: p4c writes a negative table key, which BMv2 cannot "
                                       "load (Assertion `hexstring[idx] != '-'' failed)")
        if v is None and t[0] == "error" and labels:
            # p4c's EliminateSwitch makes the switch a table keyed on the value, and its BMv2
            # back end takes no error constant as an exact key (a `default` alone is no entry)
            lab = next(c.label for c in s.cases if c.label is not None)
            self.target_error(lab.loc, "a switch on an error value is not supported on this target "
                                       "(p4c: unsupported exact key expression)")
        if v is not None and t[0] == "serenum" and e.kind == "cast":
            # p4c folds a constant switch on a serializable enum whose value is a cast (`(E)4w5`,
            # `(E)(bit<4>)E.B`) by comparing it with the labels as expressions: no enum member
            # equals a cast, so it keeps the `default` case, or nothing (fuzz_exprs seed 5462)
            hit = next((c for c in cases if "default" in c["labels"]), {"body": []})
        elif v is not None:   # a constant switch: only the case it selects (as p4c folds it)
            hit = next((c for c in cases if v in c["labels"]), None) or next(
                (c for c in cases if "default" in c["labels"]), {"body": []})
        if v is not None:
            if "unbound" in hit:
                raise hit["unbound"]
            return {"s": "block", "body": hit["body"]}
        out = {"s": "switch_value", "e": ir, "cases": cases}
        if len(cases) == 1 and len(cases[0]["labels"]) == 1 and cases[0]["labels"] != ["default"]:
            # (also with p4c's strength reduction, which its front end runs before: `x = x - x`
            # stores 0, fuzz_exprs seed 12527)
            sb = self.ctx.get("stmts_before")   # (the statements before it in its list: their copies)
            control = self.ctx.get("kind") == "control" and not self.ctx.get("in_action")
            copied = differing_instances(self.ctx["node"], self.ctx["scope"]) if control else frozenset()
            entry = entry_copies(sb[2] + sb[1], self.inlined_for_copies, copied) if sb and sb[0] is s and control else None
            single_case_copies(out, lambda x: k if (k := self.fold(x)) is not None else self.fold_condition(x),
                               *self.call_copy_locals(out), elem_of=self.stack_elem,
                               members_of=self.struct_fields, entry=entry,
                               expand=self.inlined_for_copies if control else None, copied=copied)
        return out

    def call_copy_locals(self, sw: dict) -> tuple:
        """``single_case_copies``' ``fn_of`` and ``fresh`` for switch ``sw`` in a control's body:
        a function's parameter variable read after the switch is a control local of p4c's
        (declared before the switch, ``sw["ghosts"]``; zero where the case does not run)."""
        if self.ctx.get("kind") != "control" or self.ctx.get("in_action"):
            return None, None

        def fresh(t):
            self.tmp += 1
            py = f"L.v{self.tmp}__fncopy"
            sw.setdefault("ghosts", []).append({"s": "decl", "n": py, "t": t, "init": None})
            return {"op": "var", "n": py, "t": t}
        return (lambda py: self.functions.get(str(py)[2:])), fresh
