"""Functions of the program: actions, table applies (with bound-argument wrappers),
P4 functions, the parser state machine, controls, sub-controls, field-list copies.

A mixin of :class:`switch.runtime.codegen.Gen`: ``self.emit(indent, line)`` appends
source, ``self.ir`` is the program IR.
"""
from __future__ import annotations

import re

from .gen_helpers import copied_out, PARSER_STEP_LIMIT, emits_packets


#: which packet-state attribute each parameter of a v1model block binds to
ROLE_ATTRS = {
    "parser": ["pkt", "hdr", "meta", "sm"],
    "verify_checksum": ["hdr", "meta"],
    "ingress": ["hdr", "meta", "sm"],
    "egress": ["hdr", "meta", "sm"],
    "compute_checksum": ["hdr", "meta"],
    "deparser": ["pkt", "hdr"],
}


class BlockGen:
    def prologue(self, ind: int, role: str, params) -> None:
        """Bind a top-level block's parameters to the packet state (and to L for its actions)."""
        for p, attr in zip(params, ROLE_ATTRS[role]):
            if attr == "pkt":
                self.emit(ind, f"{p['py']} = None")
            else:
                self.emit(ind, f"{p['py']} = P.{attr}")
            if role != "parser":
                self.emit(ind, f"L.{p['py']} = {p['py']}")

    def key_expr(self, k) -> str:
        """A table key's value.  BMv2 builds the key from a field of an invalid header (whole, or
        masked by a constant: p4c writes such a key as the field and a mask) as zeros, whatever
        the field holds; a key p4c first computes into a temporary (a slice, a cast, a shift:
        checkmate-p4c marks it ``temp``, compiler/table_keys) keeps what the field holds (an
        earlier packet's value: fuzz_tables seed 1625, measured).  p4c's own JSON has only the
        two forms, a field and a field with a mask (switch/bmv2json writes a slice's mask as
        ``(f >> lo) & m``).  A masked key marked ``held`` (p4c's ``tmp & K`` after a copy of a
        ``?:``: compiler/key_copies) reads the field as it holds it too, its entries masked."""
        e = k["expr"]
        if k.get("temp") or k.get("held"):
            return self.x(e)
        inner = e
        if inner.get("op") == "cast":
            inner = inner["a"]   # (a masked key cast to its width; a signed or bool key's bits)
        if inner.get("op") == "bin":
            if inner.get("o") != "&" or inner["b"].get("op") != "const":
                return self.x(e)
            inner = inner["a"]
            if inner.get("op") == "bin" and inner.get("o") == ">>" and inner["b"].get("op") == "const":
                inner = inner["a"]   # (p4c's JSON: a slice it keeps as the field and a mask)
        if inner.get("op") == "field" and (inner["base"].get("t") or [None])[0] == "header":
            return f"({self.x(e)} if {self.x(inner['base'])}._v else 0)"
        return self.x(e)

    def _control_lvalue(self, target, control) -> bool:
        """Whether ``target`` ({"l": lvalue}) is reachable from a table apply of ``control``: rooted
        in one of the control's parameters or its L. state (not an action's local or parameter)."""
        e = (target or {}).get("l")
        while isinstance(e, dict) and e.get("op") != "var":
            e = e.get("base") if "base" in e else e.get("a")
        if not isinstance(e, dict):
            return False
        blk = self.blocks_by_name.get(control)
        return e["n"].startswith("L.") or (blk is not None and e["n"] in {p["py"] for p in blk["params"]})

    def owner_prologue(self, ind: int, control) -> None:
        """Inside an action/table apply: load the owning control's parameters from L."""
        blk = self.blocks_by_name.get(control)
        if blk is None:
            return
        for p in blk["params"]:
            if not p["py"].startswith("L."):
                self.emit(ind, f"{p['py']} = L.{p['py']}")

    def gen_actions(self) -> None:
        # (an action variant: another body of an action for the uses whose copy-back makes some of
        # its stores dead -- compiler/dead_reads.py; run through its "impl" name only)
        for a in self.ir["actions"] + self.ir.get("action_variants", []):
            params = ", ".join(p["py"] for p in a["all_params"])
            # "impl" names the function when several bodies share one P4Info id (p4c's JSON
            # has one action per table for an action with bound arguments)
            self.emit(0, f"def A_{a.get('impl', a['id'])}(P, L{', ' + params if params else ''}):")
            self.owner_prologue(1, a.get("control"))
            self.emit(1, f"if P.tr: P.tr({'action ' + a['name']!r})")  # any @name text: through repr()
            outs = [p["py"] for p in a["all_params"] if p["dir"] in ("out", "inout")]
            self.action_outs = outs
            if outs:
                # `exit` inside the action still copies out/inout arguments back (BMv2 /
                # p4c inline the action, so its writes are already done): hand the current
                # values to the call site on the signal
                self.emit(1, "try:")
                self.block(2, a["body"])
                self.emit(1, "except ExitSignal as _ex:")
                self.emit(2, f"_ex.outs = ({', '.join(outs)},)")
                self.emit(2, "raise")
            else:
                self.block(1, a["body"])
            if outs:
                self.emit(1, f"return ({', '.join(outs)},)")
            self.action_outs = None
            self.emit(0, "")
        # id 0 (tables.NO_ACTION): the miss of a table that has no default action (an indirect one)
        self.emit(0, "def A_0(P, L):")
        self.emit(1, "return None")
        self.emit(0, "ACTIONS = {0: A_0, " + ", ".join(f"{a['id']}: A_{a.get('impl', a['id'])}"
                                                     for a in self.ir["actions"]) + "}")
        self.emit(0, "ACTION_NAMES = {0: '(no action)', " + ", ".join(f"{a['id']}: {a['name']!r}"
                                                                    for a in self.ir["actions"]) + "}")
        self.emit(0, "")

    def gen_tables(self) -> None:
        for t in self.ir["tables"]:
            tid = t["id"]
            self.emit(0, f"def T_apply_{tid}(P, L):")
            self.owner_prologue(1, t.get("control"))
            keys = ", ".join(self.key_expr(k) for k in t["keys"])
            keytuple = f"({keys}{',' if len(t['keys']) == 1 else ''})"
            if t.get("implementation_id"):
                prof = next(a for a in self.ir["action_profiles"] if a["id"] == t["implementation_id"])
                if t.get("selector_keys") and prof["algo"]:
                    # the whole hash, whatever the selector's declared output width: p4c's JSON has
                    # none, and BMv2 takes the hash modulo the group size (helper p4rt39, measured)
                    cat, bits = self.cat(t["selector_keys"])
                    sel = f"hash_value({prof['algo']!r}, {cat}, {bits})"
                else:
                    sel = "0"
                self.emit(1, f"aid, prm, ent = TBL_{tid}.lookup_indirect({keytuple}, {sel})")
            else:
                self.emit(1, f"aid, prm, ent = TBL_{tid}.lookup({keytuple})")
            if t["direct_counter"] or t["direct_meter"]:
                self.emit(1, "if ent is not None:")
                if t["direct_counter"]:
                    self.emit(2, "c = ent.counter")
                    self.emit(2, "c[0] += 1")
                    self.emit(2, "c[1] += P.ilen")
                if t["direct_meter"]:
                    self.emit(2, "P.dm = _direct_meter(ent, P.ilen, "
                                 f"{self.dmeter_unit(t['direct_meter'])!r})")
                    if self._control_lvalue(t.get("dm_read"), t.get("control")):
                        # BMv2 writes the colour into the read's target on every hit, before
                        # whichever action runs (p4c's result_target)
                        self.stmt(2, {"s": "direct_meter_read", **t["dm_read"]})
                    self.emit(1, "else:")
                    self.emit(2, "P.dm = None")
            label = f"table {t['name']}: "  # a table @name may be any text: only ever through repr()
            self.emit(1, f"if P.tr: P.tr({label!r} + ('hit' if ent is not None else 'miss') "
                         "+ ' -> ' + ACTION_NAMES[aid])")
            self.emit(1, f"TACTS_{tid}[aid](P, L, *prm)")
            self.emit(1, "return ent is not None, aid")
            self.emit(0, "")
            entries = []
            for a in t["actions"]:
                if not a.get("bound"):
                    entries.append(f"{a['id']}: A_{a.get('impl', a['id'])}")
                    continue
                wname = f"B_{tid}_{a['id']}"
                self.emit(0, f"def {wname}(P, L, *prm):")
                self.owner_prologue(1, t.get("control"))
                args = []
                for b in a["bound"]:
                    if b["dir"] == "out" or b.get("unassigned"):   # starts uninitialized: an unwritten one copies
                        # out 0s (BMv2), as for a direct call; "unassigned" (compiler/switch_cases.unvisited_copy):
                        # p4c dropped the copy-in (and the body's stores: the reference's variant)
                        args.append(self.default(b["e"]["t"]))
                        continue
                    v = self.x(b["e"])
                    if b["e"]["t"][0] in ("header", "struct", "stack"):
                        # p4c's RemoveActionParameters: the body works on a control-level
                        # copy (`x = arg;` before it, `arg = x;` after it), inout ones too
                        v = f"{v}.copy()"
                    elif b["e"]["t"][0] == "varbit":
                        v = self.copy_in(b["e"], b["e"]["t"])
                    args.append(v)
                call = f"A_{a.get('impl', a['id'])}(P, L, {', '.join(args)}, *prm)"
                outs = [b for b in a["bound"] if b["dir"] in ("out", "inout")]
                if outs:
                    # RemoveActionParameters copies the arguments back before an `exit` in
                    # the body too, so the exit keeps what the body wrote (slices too; BMv2)
                    self.emit(1, "try:")
                    self.emit(2, f"_r = {call}")
                    self.emit(1, "except ExitSignal as _ex:")
                    for k2, b in enumerate(outs):
                        self.assign(2, b["e"], copied_out(f"_ex.outs[{k2}]", b["e"]["t"]), b["e"]["t"], b.get("siblings", ()),
                                    by_member=True)
                    self.emit(2, "raise")
                else:
                    self.emit(1, f"_r = {call}")
                for k2, b in enumerate(outs):
                    # BMv2's assign_header (member by member in a struct): an argument invalid
                    # at the end keeps the destination's fields; a valid union member
                    # invalidates its siblings
                    self.assign(1, b["e"], copied_out(f"_r[{k2}]", b["e"]["t"]), b["e"]["t"], b.get("siblings", ()),
                                by_member=True)
                self.emit(0, "")
                entries.append(f"{a['id']}: {wname}")
            # the default action may be any action (P4Runtime restricts the choice)
            self.emit(0, f"TACTS_{tid} = {{**ACTIONS, {', '.join(entries)}}}")
            self.emit(0, "")

    def dmeter_unit(self, mid) -> str:
        for m in self.ir["direct_meters"]:
            if m["id"] == mid:
                return m["unit"]
        return "packets"

    def gen_functions(self) -> None:
        for f in self.ir["functions"]:
            params = ", ".join(p["py"] for p in f["params"])
            self.emit(0, f"def {f['py']}(P{', ' + params if params else ''}):")
            self.emit(1, "L = None")
            outs = [p["py"] for p in f["params"] if p.get("dir") in ("out", "inout")]
            self.fn_outs = outs or None
            # a packet_in parameter: the caller's packet and offset, handed over in P.off (a
            # packet_out one is the deparser's output list ``out`` itself; elab_functions, errs27)
            self.fn_packet_in = any(p["t"] == ["extern", "packet_in"] for p in f["params"])
            if self.fn_packet_in:
                self.emit(1, "data = P.data; n = len(data); off = P.off")
            self.block(1, f["body"])
            if self.fn_packet_in:
                self.emit(1, "P.off = off")
            # falling off the end of a function with a value: what p4c dropped after a single-case
            # switch whose case returns (elab_common.live_prefix) -- its retval left as BMv2 starts it, 0
            ret = "None" if f.get("ret") in (None, ["void"]) else self.default(f["ret"])
            if outs:
                self.emit(1, f"return ({ret}, {', '.join(outs)},)")
            elif ret != "None":
                self.emit(1, f"return {ret}")
            self.fn_outs = None
            self.fn_packet_in = False
            self.emit(0, "")

    def gen_parser(self) -> None:
        p = self.ir["blocks"]["parser"]
        self.role = "parser"
        self.emit(0, "def run_parser(P):")
        self.emit(1, "L = None")
        self.prologue(1, "parser", p["params"])
        self.emit(1, "data = P.data")
        self.emit(1, "n = len(data)")
        self.emit(1, "off = 0")
        self.emit(1, "try:")
        for s in p["locals"]:
            self.stmt(2, s)
        self.state_machine(2, p)
        self.emit(1, "except IndexError:  # a run-time stack index past the end")
        self.emit(2, f"P.sm.parser_error = {self.errors['StackOutOfBounds']}")
        self.emit(1, "except ParserError as e:")
        self.emit(2, "if e.off is not None:")
        self.emit(3, "off = e.off")
        self.emit(2, "P.sm.parser_error = e.code if e.code >= 0 else 0")
        self.emit(2, "if P.tr and e.code >= 0: P.tr('parser error ' + ERROR_NAMES[e.code])")
        self.emit(1, "P.off = off")
        self.emit(0, "")

    def state_machine(self, ind: int, p: dict) -> None:
        """The state loop of a parser: ``st`` numbers the states, accept/reject end it."""
        states = list(p["states"])
        num = {name: i for i, name in enumerate(states)}
        num["accept"] = -1
        num["reject"] = -2
        self.emit(ind, f"st = {num['start']}")
        order = _topological(p["states"]) if len(states) < PARSER_STEP_LIMIT else None
        if order is not None:
            # acyclic: every transition goes forward in `order`, so one pass over the
            # states in that order walks any path (no loop, no step limit to reach)
            for name in order:
                self.emit(ind, f"if st == {num[name]}:  # state {name}")
                self.state_body(ind + 1, p["states"][name], num, name)
            return
        self.emit(ind, f"for _ in range({PARSER_STEP_LIMIT}):")
        for i, name in enumerate(states):
            body = p["states"][name]
            self.emit(ind + 1, f"{'if' if i == 0 else 'elif'} st == {i}:  # state {name}")
            self.state_body(ind + 2, body, num, name)
            self.emit(ind + 2, "if st < 0:")
            self.emit(ind + 3, "break")
        self.emit(ind + 1, "else:")
        self.emit(ind + 2, "raise ParserError(-1)")
        self.emit(ind, "else:")
        self.emit(ind + 1, f"raise ParserError({self.errors['ParserTimeout']})")

    def state_body(self, ind: int, body: dict, num: dict, name: str) -> None:
        """One parser state: its statements, then ``st`` = the next state's number."""
        self.emit(ind, f"if P.tr: P.tr('parser state {name}')")
        for s in body["body"]:
            self.stmt(ind, s)
        tr = body["transition"]
        if tr["kind"] == "direct":
            self.emit(ind, f"st = {num[tr['to']]}")
        else:
            keys = [self.fresh("k") for _ in tr["keys"]]
            for kv, ke in zip(keys, tr["keys"]):
                self.emit(ind, f"{kv} = {self.x(ke)}")
            cases = _fallback_last(tr["cases"], tr["keys"])
            if len(cases) > SELECT_CHAIN_MAX:
                self.select_table(ind, keys, cases, num)
                return
            first = True
            has_default = False
            for c in cases:
                conds = []
                for i, (kv, ks) in enumerate(zip(keys, c["keysets"])):
                    if ks["k"] == "vset":
                        conds.append(f"{ks['obj']}.match({_vset_key(keys, i, ks)})")
                    elif ks["k"] == "value":
                        conds.append(f"{kv} == {ks['v']}")
                    elif ks["k"] == "mask":
                        conds.append(f"{kv} & {ks['m']} == {ks['v']}")
                    elif ks["k"] == "range":
                        conds.append(f"{ks['lo']} <= {kv} <= {ks['hi']}")
                if not conds:
                    if first:
                        self.emit(ind, f"st = {num[c['to']]}")
                    else:
                        self.emit(ind, "else:")
                        self.emit(ind + 1, f"st = {num[c['to']]}")
                    has_default = True
                    break
                self.emit(ind, f"{'if' if first else 'elif'} {' and '.join(conds)}:")
                self.emit(ind + 1, f"st = {num[c['to']]}")
                first = False
            if not has_default:
                # BMv2 wins over the spec's error.NoMatch: p4c's BMv2 JSON has no reject
                # transition, so a select with no matching case and no default ends the
                # parse in accept with parser_error unchanged -- the whole parse, in a
                # sub-parser too (p4c inlines it: its null next state is the caller's), as a
                # `transition reject` does (fuzz_mutants seed 3304, helper mutz40)
                if first:
                    self.emit(ind, f"st = {num['reject']}")
                else:
                    self.emit(ind, "else:")
                    self.emit(ind + 1, f"st = {num['reject']}")

    def select_table(self, ind: int, keys: list, cases: list, num: dict) -> None:
        """A select with very many cases (p4c expands a range in a tuple into thousands of
        ternary ones) as a loop over a constant table: an if/elif chain that long is nested
        too deeply for Python to compile.  Each row is the target and one (kind, a, b) per
        key: 0 value a, 1 masked (key & b == a), 2 range a..b, 3 any, 4 value set ``_vs[a]``
        matching ``_vk[b]`` (the key, or for a struct value set the keys it spans concatenated;
        the rows stay a constant the loop does not rebuild)."""
        rows, fallback = [], num["reject"]   # no case matching and no default: the parse ends (BMv2)
        vsets: list = []   # [(obj, key expression)]
        for c in cases:
            row = []
            for i, ks in enumerate(c["keysets"]):
                k = ks["k"]
                if k == "vset":
                    v = (ks["obj"], _vset_key(keys, i, ks))
                    if v not in vsets:
                        vsets.append(v)
                    row.append((4, vsets.index(v), vsets.index(v)))
                    continue
                row.append((0, ks["v"], 0) if k == "value" else (1, ks["v"], ks["m"]) if k == "mask"
                           else (2, ks["lo"], ks["hi"]) if k == "range" else (3, 0, 0))
            row += [(3, 0, 0)] * (len(keys) - len(row))
            if all(r[0] == 3 for r in row):
                fallback = num[c["to"]]
                break
            rows.append((num[c["to"]], tuple(row)))
        if vsets:
            self.emit(ind, f"_vs = ({''.join(o + ', ' for o, _ in vsets)})")
            self.emit(ind, f"_vk = ({''.join(e + ', ' for _, e in vsets)})")
        self.emit(ind, f"for _to, _row in {tuple(rows)!r}:")
        self.emit(ind + 1, "if all(k == a if t == 0 else k & b == a if t == 1 else a <= k <= b if t == 2 else "
                           "t == 3 or _vs[a].match(_vk[b])")
        self.emit(ind + 1, f"       for k, (t, a, b) in zip(({', '.join(keys)},), _row)):")
        self.emit(ind + 2, "st = _to")
        self.emit(ind + 2, "break")
        self.emit(ind, "else:")
        self.emit(ind + 1, f"st = {fallback}")

    def gen_subparser(self, p: dict) -> None:
        args = [q["py"] for q in p["params"] if q["t"] != ["extern", "packet_in"]]
        self.emit(0, f"def {p['fn']}(P, data, n, off{''.join(', ' + a for a in args)}):")
        self.emit(1, "L = None")
        for q in p["params"]:
            if q["t"] == ["extern", "packet_in"]:
                self.emit(1, f"{q['py']} = None")
        self.emit(1, "try:")
        for s in p["locals"]:
            self.stmt(2, s)
        self.state_machine(2, p)
        outs = [q["py"] for q in p["params"] if q.get("copy_out")]  # copied back by the caller
        # `transition reject` in a sub-parser ends the whole parse: p4c inlines the sub-parser
        # (its writes land in place) and its reject is the caller's, which BMv2 ends like
        # accept with no error (p4c: "Explicit transition to reject not supported")
        self.emit(2, "if st == -2:")
        self.emit(3, "e = ParserError(-1)")
        self.emit(3, "e.off = off")
        self.emit(3, "raise e")
        self.emit(1, "except IndexError:")
        self.emit(2, f"e = ParserError({self.errors['StackOutOfBounds']})")
        self.emit(2, "e.off = off")
        if outs:
            self.emit(2, f"e.outs = ({', '.join(outs)},)")
        self.emit(2, "raise e")
        self.emit(1, "except ParserError as e:")
        self.emit(2, "if e.off is None:")
        self.emit(3, "e.off = off")
        if outs:  # p4c inlines sub-parsers: what they wrote before the error stays written
            self.emit(2, f"e.outs = ({', '.join(outs)},)")
        self.emit(2, "raise")
        self.emit(1, "return " + ", ".join(["off", *outs]))
        self.emit(0, "")

    def gen_subcontrol(self, c) -> None:
        self.emit(0, f"def {c['fn']}(P, L):")
        if emits_packets(c):   # applied from the deparser: its emits join the deparser's output
            self.emit(1, "out = L.out")
        for p in c["params"]:
            if not p["py"].startswith("L."):
                self.emit(1, f"{p['py']} = L.{p['py']}")
        for s in c["locals"]:
            self.stmt(1, s)
        self.block(1, c["body"])
        self.emit(0, "")

    def gen_control(self, role: str) -> None:
        c = self.ir["blocks"][role]
        self.role = role
        if not c["locals"] and not c["body"] and role != "deparser":
            self.emit(0, f"run_{role} = None  # empty control: the engine skips it")
            self.emit(0, "")
            return
        self.emit(0, f"def run_{role}(P):")
        self.emit(1, "L = Locals()")
        self.prologue(1, role, c["params"])
        if role == "deparser":
            self.emit(1, "out = []")
        self.emit(1, "try:")
        for s in c["locals"]:
            self.stmt(2, s)
        self.deparser_body = role == "deparser"   # (a `return` there still gives what was emitted)
        try:
            self.block(2, c["body"])
        finally:
            self.deparser_body = False
        self.emit(1, "except ExitSignal:")
        self.emit(2, f"if P.tr: P.tr('exit in {c['name']}')")
        if role == "deparser":
            self.emit(1, "return b''.join(out)")
        self.emit(0, "")

    def gen_field_lists(self) -> None:
        self.emit(0, "def copy_field_list(src, dst, index):")
        lists = self.ir.get("field_lists", {})
        meta_t = None
        ing = self.ir["blocks"]["ingress"]["params"]
        if len(ing) >= 2 and ing[1]["t"][0] == "struct":
            meta_t = ing[1]["t"][1]
        emitted = False
        # p4c flattens the metadata struct: a field of a nested struct (at any depth) is in the
        # lists its own @field_list names, unless a struct field around it has a @field_list of its
        # own, which then decides for the whole struct (copied whole, as a copy)
        annotated = {(st, f) for fields in lists.values() for st, f in fields}
        paths = self.struct_paths(meta_t, annotated) if meta_t is not None else {}
        for idx, fields in lists.items():
            lines = []
            for st, f in fields:
                for path in paths.get(st, ()):
                    pf = path + self.pyfield(st, f)
                    kind = self.ir["structs"][st]["fields"][self.ir["structs"][st]["p4_fields"].index(f)][1][0]
                    lines.append(f"dst.{pf} = src.{pf}" + (".copy()" if kind in ("header", "struct", "stack") else ""))
            if not lines:
                continue
            self.emit(1, f"if index == {idx}:")
            for line in lines:
                self.emit(2, line)
            emitted = True
        if not emitted:
            self.emit(1, "pass")
        self.emit(0, "")

    def gen_meta_headers(self) -> None:
        """``copy_meta_headers(src, dst)``: the headers (header stacks, union members) inside the
        user metadata struct, copied from ``src`` to ``dst``.  p4c makes them header instances
        of BMv2's PHV, which an E2E clone copies whole before it resets the *metadata*
        instances (simple_switch.cpp: ``clone_with_phv_reset_metadata_ptr()``), so the clone
        keeps them (tatry/INT-BMv2 keeps its INT headers in ``meta.int_metadata.original_headers``
        for the egress clone; corpus13)."""
        self.emit(0, "def copy_meta_headers(src, dst):")
        ing = self.ir["blocks"]["ingress"]["params"]
        lines: list = []

        def walk(name, prefix, depth):
            for f, ft in self.ir["structs"][name]["fields"]:
                if ft[0] in ("header", "stack"):
                    lines.append(f"dst.{prefix}{f} = src.{prefix}{f}.copy()")
                elif ft[0] == "struct" and depth < 32:
                    walk(ft[1], f"{prefix}{f}.", depth + 1)
        if len(ing) >= 2 and ing[1]["t"][0] == "struct":
            walk(ing[1]["t"][1], "", 0)
        for line in lines or ["pass"]:
            self.emit(1, line)
        self.emit(0, "")
        # ``reuse_meta_headers(src, dst)``: a new pass's metadata headers are those of the
        # pooled PHV it takes (src: that pass's metadata), marked invalid with their field
        # values kept -- as its other headers (``reuse_headers``); a header assigned from an
        # invalid one keeps them too (BMv2's assign_header only marks it invalid)
        self.emit(0, "def reuse_meta_headers(src, dst):")
        body = []
        for line in lines:
            path = line.split(" = ", 1)[0][len("dst."):]
            body.append(f"dst.{path} = src.{path}")
        for line in body or ["pass"]:
            self.emit(1, line)
        if body:
            self.emit(1, "reuse_meta_validity(dst)")
        self.emit(0, "")
        self.emit(0, "def reuse_meta_validity(h):")
        if body and len(ing) >= 2:
            self._reuse_struct(ing[1]["t"][1], "h", 1, [0], headers_only=True)
        else:
            self.emit(1, "pass")
        self.emit(0, "")
        # ``copy_valid_meta_headers(src, dst)``: an E2E clone's (gen_copy_valid)
        self.gen_copy_valid("copy_valid_meta_headers", ing[1]["t"] if body else ["bit", 1], headers_only=True)
        self.emit(0, "")

    def struct_paths(self, top: str, annotated: set) -> dict:
        """struct name -> the attribute prefixes (``""``, ``"inner."``, ...) where a struct of that
        type lies inside ``top`` (``top`` itself included), not below a field in ``annotated``."""
        out: dict = {}

        def walk(name, prefix, depth):
            out.setdefault(name, []).append(prefix)
            if depth > 32:
                return
            s = self.ir["structs"][name]
            for (py, t), f in zip(s["fields"], s["p4_fields"]):
                if t[0] == "struct" and t[1] in self.ir["structs"] and (name, f) not in annotated:
                    walk(t[1], f"{prefix}{py}.", depth + 1)
        walk(top, "", 0)
        return out

    def pyfield(self, struct, f):
        s = self.ir["structs"][struct]
        return s["fields"][s["p4_fields"].index(f)][0]

    def generate(self) -> str:
        self.emit(0, f"# generated from P4 program {self.ir['program']!r} by switch.runtime.codegen")
        self.emit(0, "ERROR_NAMES = " + repr(self.ir["errors"]))
        self.emit(0, "")
        self.gen_types()
        self.blocks_by_name = {b["name"]: b for r, b in self.ir["blocks"].items() if r != "parser"}
        for b in self.ir.get("subcontrols", []):
            self.blocks_by_name[b["name"]] = b
        self.gen_functions()
        self.gen_actions()
        for b in self.ir.get("subcontrols", []):
            self.gen_subcontrol(b)
        for b in self.ir.get("subparsers", []):
            self.gen_subparser(b)
        self.gen_tables()
        self.gen_parser()
        for role in ("verify_checksum", "ingress", "egress", "compute_checksum", "deparser"):
            self.gen_control(role)
        self.gen_field_lists()
        self.gen_meta_headers()
        blocks = self.ir["blocks"]

        def ctor(role, idx):
            t = blocks["parser"]["params"][idx]["t"]
            return self.default(t)
        self.emit(0, f"def new_headers(): return {ctor('parser', 1)}")
        self.gen_reuse_headers(blocks["parser"]["params"][1]["t"])
        self.gen_copy_valid("copy_valid_headers", blocks["parser"]["params"][1]["t"])
        self.emit(0, f"def new_meta(): return {ctor('parser', 2)}")
        self.emit(0, f"def new_sm(): return {ctor('parser', 3)}")
        return "\n".join(prune_prologues(self.lines)) + "\n"


_READ_PARAM = re.compile(r"^    (\w+) = (?:L\.\1|None|P\.\w+)$")
_STORE_L = re.compile(r"^    L\.\w+ = \w+$")


def prune_prologues(lines: list[str]) -> list[str]:
    """Drop the dead parts of the uniform prologues of top-level functions: a parameter
    read (``p_x = L.p_x`` / ``= P.x`` / ``= None``) whose name the function never uses,
    and the ``L = Locals()`` record (with its stores) when nothing in the function
    passes ``L`` on (no action, table or function call needs it).  Only pure
    assignments go, so what the function does is unchanged; it just does less."""
    out: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        if not lines[i].startswith("def "):
            out.append(lines[i])
            i += 1
            continue
        # conservative extent: up to the next top-level def/class (a use of a name
        # anywhere in it keeps the name's read)
        j = i + 1
        while j < n and not lines[j].startswith(("def ", "class ")):
            j += 1
        block = lines[i:j]
        out.extend(_prune_block(block))
        i = j
    return out


def _prune_block(block: list[str]) -> list[str]:
    keep = list(block)
    changed = True
    while changed:
        changed = False
        for k in range(1, len(keep)):
            line = keep[k]
            if line is None:
                continue
            m = _READ_PARAM.match(line)
            if m is None:
                continue
            name = re.compile(r"\b" + re.escape(m.group(1)) + r"\b")
            if not any(name.search(other) for kk, other in enumerate(keep) if other is not None and kk != k):
                keep[k] = None
                changed = True
    if "    L = Locals()" in keep:
        uses = re.compile(r"\bL\b")
        mine = [k for k, line in enumerate(keep) if line is not None and k > 0 and
                (line == "    L = Locals()" or _STORE_L.match(line))]
        others = [line for k, line in enumerate(keep) if line is not None and k not in mine]
        if not any(uses.search(line) for line in others):
            for k in mine:
                keep[k] = None
            # the stores read their source names: prune reads made dead by that
            return _prune_block([line for line in keep if line is not None]) if mine else \
                [line for line in keep if line is not None]
    return [line for line in keep if line is not None]


def _topological(states: dict) -> list[str] | None:
    """Parser states in an order where every transition goes forward, or None if the
    state graph has a cycle (then the generated parser keeps its state loop)."""
    succ = {}
    for name, body in states.items():
        tr = body["transition"]
        tos = [tr["to"]] if tr["kind"] == "direct" else [c["to"] for c in tr["cases"]]
        succ[name] = {t for t in tos if t in states}
    indeg = {name: 0 for name in states}
    for name, ts in succ.items():
        for t in ts:
            indeg[t] += 1
    ready = [name for name in states if indeg[name] == 0]
    order = []
    while ready:
        name = ready.pop(0)
        order.append(name)
        for t in sorted(succ[name], key=list(states).index):
            indeg[t] -= 1
            if indeg[t] == 0:
                ready.append(t)
    return order if len(order) == len(states) else None


def _vset_key(keys: list, i: int, ks: dict) -> str:
    """The value a select's value set at keyset ``i`` matches: key ``i``, or for a struct value
    set over a tuple of keys their concatenation."""
    ws = ks.get("widths") or ()
    if len(ws) <= 1:
        return keys[i]
    parts = [f"({k} << {sum(ws[j + 1:])})" if j + 1 < len(ws) else k for j, k in enumerate(keys[i:i + len(ws)])]
    return f"({' | '.join(parts)})"


SELECT_CHAIN_MAX = 256   # more select cases than this: a table loop (BlockGen.select_table)


def _matches_all(ks: dict, key: dict) -> bool:
    """Whether a keyset matches every value of its key (``default``, ``_``, a mask of 0, a range
    over the key's whole width)."""
    kind = ks["k"]
    if kind == "mask":
        return ks["m"] == 0
    if kind == "range":
        t = key.get("t") or ()
        return len(t) > 1 and t[0] == "bit" and ks["lo"] <= 0 and ks["hi"] >= (1 << t[1]) - 1
    return kind not in ("value", "vset")


def _fallback_last(cases: list, keys: list) -> list:
    """The select's cases in the order BMv2 tries them: p4c writes a case that matches every
    value as a ``default`` transition, and BMv2 keeps one default per state -- the last one --
    and takes it only when no other case matches, wherever it stood in the list."""
    catch = [c for c in cases if all(_matches_all(ks, k) for ks, k in zip(c["keysets"], keys))]
    if not catch:
        return cases
    return [c for c in cases if not any(c is d for d in catch)] + [{"keysets": [], "to": catch[-1]["to"]}]

