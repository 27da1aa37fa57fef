"""IR statements -> Python statements: assignments (slices, in-place aggregate copies),
control flow, table apply (a sub-control apply: :mod:`.gen_subcontrol`), extern calls, parser
operations.

A mixin of :class:`switch.runtime.codegen.Gen`: ``self.emit(indent, line)`` appends
source, ``self.ir`` is the program IR.
"""
from __future__ import annotations

from .errors import Unsupported
from .gen_helpers import holds_call, copied_out, overwritten, dead_flag, dead_value, mask, tuple_with


class StatementGen:
    def store_unless_none(self, ind: int, res: str, lv, val: str, t, via_temp: bool) -> None:
        """Store ``val`` (built from the extern's result ``res``) into ``lv``, where a None result is
        BMv2's "nothing written" (a register index or meter index out of range, ``random`` with
        lo > hi): the destination keeps its value -- unless p4c passed the result through a fresh
        temporary (a slice, a bool), which is then 0 and stored."""
        if via_temp:
            self.emit(ind, f"{res} = 0 if {res} is None else {res}")
        else:
            self.emit(ind, f"if {res} is not None:")
        self.assign(ind + (0 if via_temp else 1), lv, val, t)

    def assign(self, ind: int, lv, rhs: str, t, siblings=(), by_member=False) -> None:
        """``lv = rhs``; ``by_member``: a struct or stack goes header by header as p4c assigns it
        (an assignment, a function's, action's or sub-control's copy-out): see ``_agg_out``."""
        if by_member and t[0] in ("struct", "stack") and lv["op"] in ("var", "field", "stack_idx") and not holds_call(lv):
            if lv["op"] == "var":   # in place: the object may also be P.hdr/P.meta or a caller's
                self.emit(ind, f"_copy_into({lv['n']}, _agg_out({lv['n']}, {rhs}.copy()))")
            else:
                self.assign_plain(ind, lv, f"_agg_out({self.x(lv)}, {rhs}.copy())")
            return
        if t[0] == "varbit":   # (a parameter's box copied out is passed as its field `.v`: _out)
            self.emit(ind, f"{self.x(lv)} = {rhs}")
            self.emit(ind, f"{self.x(lv['base'])}._vb = {rhs.rsplit('.', 1)[0]}._vb")
            return
        if t[0] == "header" and not rhs.startswith("_mk("):
            # BMv2's assign_header: from an invalid header only the destination's validity
            # changes (its fields keep their values); from a valid one, fields and validity
            # A union member's siblings go invalid first (BMv2's mark_valid), then the copy
            # takes the source's validity as it is now: a sibling copied into its union's
            # other member leaves both invalid, as on BMv2.
            src = self.fresh("src")
            self.emit(ind, f"{src} = {rhs}")
            self.emit(ind, f"if not {src}._v:")
            self.emit(ind + 1, f"{self.x(lv)}._v = False")
            self.emit(ind, "else:")
            for sib in siblings:
                self.emit(ind + 1, f"{self.x(sib)}._v = False")
            self.assign_copy(ind + 1, lv, src)
            return
        if t[0] in ("header", "struct", "stack"):
            self.assign_copy(ind, lv, rhs)
            return
        self.assign_plain(ind, lv, rhs)

    def invalidate(self, ind: int, v: str, t) -> None:
        """Every header in the aggregate ``v`` (of type ``t``) made invalid, fields kept."""
        if t[0] == "header":
            self.emit(ind, f"{v}._v = False")
        elif t[0] == "struct":
            for f, ft in self.ir["structs"][t[1]]["fields"]:
                if ft[0] in ("header", "struct", "stack"):
                    self.invalidate(ind, f"{v}.{f}", ft)
        elif t[0] == "stack":
            e = self.fresh("e")
            self.emit(ind, f"for {e} in {v}.a:")
            self.invalidate(ind + 1, e, ["struct", t[1]] if t[1] in self.ir["structs"] else ["header", t[1]])

    def assign_copy(self, ind: int, lv, rhs: str) -> None:
        """Store a copy of the header/struct/stack value ``rhs`` into ``lv``."""
        if lv["op"] == "var":
            # mutate in place: the object may also be P.hdr/P.meta/P.sm or a caller's
            self.emit(ind, f"_copy_into({lv['n']}, {rhs}.copy())")
            return
        self.assign_plain(ind, lv, f"{rhs}.copy()")

    def assign_plain(self, ind: int, lv, rhs: str) -> None:
        """``lv = rhs`` for a value that needs no copy (or is one already)."""
        op = lv["op"]
        if op == "slice":
            base = lv["a"]
            if not rhs.isidentifier():   # BMv2: the right-hand side's effects (an inout argument
                r = self.fresh("r")      # changing the sliced field) come before the base is read
                self.emit(ind, f"{r} = {rhs}")
                rhs = r
            b = self.x(base)
            lo, w = lv["lo"], lv["hi"] - lv["lo"] + 1
            bt = base["t"]
            full = mask(bt[1])
            keep = full ^ (mask(w) << lo)
            val = f"(({b} & {keep}) | (({rhs}) & {mask(w)}) << {lo})"
            if bt[0] == "int":
                val = f"_sw({val}, {bt[1]})"
            self.assign(ind, base, val, bt)
            return
        if op == "stack_next":
            raise Unsupported("assignment to stack.next")
        if op == "tuple_idx":   # tuples are immutable Python tuples: store a rebuilt one
            self.assign(ind, lv["a"], tuple_with(self.x(lv["a"]), lv["i"], rhs), lv["a"]["t"])
            return
        self.emit(ind, f"{self.x(lv)} = {rhs}")

    def csum_skip_invalid(self, s, fn: str, algo: str | None = None, whole_only: bool = False) -> str:
        """``fn`` (the checksum of the whole field list) guarded by the validity of the headers
        whose fields are in the list: BMv2's verify/update_checksum leave out the fields of an
        invalid header, so when one is invalid the list is rebuilt at run time without them.
        ``whole_only`` (hash(), ``algo`` its Python expression): only the headers given whole
        (fields marked ``whole``) are left out while invalid -- BMv2 reads a field of an invalid
        header named alone as it is (helper hashinv, diffcases/hashinv.py)."""
        def hdr_of(d):
            b = d.get("base")
            if whole_only and not d.get("whole"):
                return None
            return self.x(b) if d.get("op") == "field" and b is not None and b["t"][0] == "header" else None
        hdrs = list(dict.fromkeys(h for h in (hdr_of(d) for d, _ in s["data"]) if h))
        if not hdrs:
            return fn
        items = []
        for d, w in s["data"]:
            h = hdr_of(d)
            v = self.x(d)
            if w is None:
                wx = f"{self.x(d['base'])}._vb"
            else:
                wx = str(w)
                if d["t"][0] == "int":
                    v = f"({v} & {mask(w)})"
            items.append(f"({h + '._v' if h else 'True'}, {v}, {wx})")
        pay = ", P.data[P.off:]" if s.get("payload") else ""
        lst = f"_cat_valid(({', '.join(items)},){pay})"
        slow = f"csum16(*{lst})" if s["algo"] == "csum16" else f"hash_value({algo or repr(s['algo'])}, *{lst})"
        return f"({fn} if ({' and '.join(h + '._v' for h in hdrs)}) else {slow})"

    def hoist_indexes(self, ind: int, lv):
        """``lv`` with every stack index that calls a function evaluated now into a local."""
        op = lv["op"]
        if op == "field":
            return {**lv, "base": self.hoist_indexes(ind, lv["base"])}
        if op == "slice":
            return {**lv, "a": self.hoist_indexes(ind, lv["a"])}
        if op == "stack_idx":
            st = self.hoist_indexes(ind, lv["st"])
            i = lv["i"]
            if holds_call(i):
                tmp = self.fresh("i")
                self.emit(ind, f"{tmp} = {self.x(i)}")
                i = {"op": "var", "n": tmp, "t": i.get("t")}
            return {**lv, "st": st, "i": i}
        return lv

    def block(self, ind: int, stmts) -> None:
        start = len(self.lines)
        for s in stmts:
            self.stmt(ind, s)
        if len(self.lines) == start:
            self.emit(ind, "pass")

    def _switch_cases(self, ind: int, v: str, cases, label, default_cond: str | None) -> None:
        """A switch statement's cases on the value in ``v``: one ``if``/``elif`` per case with labels
        (``label`` spells one as Python), the ``default`` body last -- under ``default_cond`` when the
        default does not take every other value (``None``: a plain ``else``)."""
        first, default_body = True, None
        for c in cases:
            labels = [lb for lb in c["labels"] if lb != "default"]
            if "default" in c["labels"]:
                default_body = c["body"]
                if not labels:
                    continue
            self.emit(ind, f"{'if' if first else 'elif'} {v} in ({', '.join(map(label, labels))},):")
            first = False
            self.block(ind + 1, c["body"])
        if default_body is None:
            return
        if default_cond is not None:
            self.emit(ind, f"{'if' if first else 'elif'} {default_cond}:")
            self.block(ind + 1, default_body)
        elif first:
            self.block(ind, default_body)
        else:
            self.emit(ind, "else:")
            self.block(ind + 1, default_body)

    def stmt(self, ind: int, s) -> None:
        if s.get("dead_stores") and s["s"] in ("call_action", "apply"):
            # union stores in the actions' bodies that p4c's def-use drops for this call site
            # (its own copy of the action: union_defuse.settle_action_stores) are skipped
            for key in s["dead_stores"]:
                self.emit(ind, f"L._dead{dead_flag(key)} = {dead_value(key)}")
            self.stmt(ind, {k: v for k, v in s.items() if k != "dead_stores"})
            for key in s["dead_stores"]:
                self.emit(ind, f"L._dead{dead_flag(key)} = False")
            return
        k = s["s"]
        if k == "block":
            self.block(ind, s["body"])
        elif k == "decl":
            init = self.x(s["init"]) if s["init"] is not None else None
            if init is not None:
                if s["t"][0] in ("header", "struct", "stack"):
                    init = f"{init}.copy()"
                self.emit(ind, f"{s['n']} = {init}")
            else:
                self.emit(ind, f"{s['n']} = {self.default(s['t'])}")
        elif k == "assign":
            lv = s["l"]
            if holds_call(s["r"]):
                # p4c/BMv2: a function call in a left-hand-side stack index runs before the
                # right-hand side (p4c hoists it into a temporary); plain reads in the index
                # see the right-hand side's side effects.  Python's `a[i].f = rhs` would run
                # the index's call after the right-hand side.
                lv = self.hoist_indexes(ind, lv)
            if s.get("dead_key") is not None:
                # a store in a sub-control body that p4c's def-use drops where this call's caller
                # overwrites it (union_defuse.settle_body_stores: a union member's, or one a
                # self-reading header initializer makes dead, header_init.drop_stores_before_self_init):
                # not made there (a call in the right-hand side still runs), no sibling goes invalid
                self.emit(ind, f"if getattr(L, '_dead{s['dead_key']}', False):")
                self.emit(ind + 1, self.x(s["r"]) if holds_call(s["r"]) else "pass")
                self.emit(ind, "else:")
                ind += 1
            rhs = self.x(s["r"])
            if s.get("siblings") and s["r"].get("op") == "cond":
                rhs = f"({rhs}).copy()"   # (p4c's SideEffectOrdering copies a `?:` into a temporary first: a
                #                           sibling it chooses is copied while valid -- fuzz_mutants seed 4577)
            self.assign(ind, lv, rhs, lv["t"], s.get("siblings") or (), by_member=True)
            if s.get("siblings"):  # a header union member: a valid one invalidates the others
                self.emit(ind, f"if {self.x(s['l'])}._v:")
                for sib in s["siblings"]:
                    self.emit(ind + 1, f"{self.x(sib)}._v = False")
        elif k == "if":
            self.emit(ind, f"if {self.x(s['c'])}:")
            self.block(ind + 1, s["then"])
            if s["else"]:
                self.emit(ind, "else:")
                self.block(ind + 1, s["else"])
        elif k == "for":
            # `continue` jumps to the loop head, which runs the update first (not on entry)
            first = self.fresh("first")
            self.emit(ind, f"{first} = True")
            self.emit(ind, "while True:")
            if s["update"]:
                self.emit(ind + 1, f"if not {first}:")
                self.block(ind + 2, s["update"])
            self.emit(ind + 1, f"{first} = False")
            self.emit(ind + 1, f"if not ({self.x(s['c'])}):")
            self.emit(ind + 2, "break")
            self.block(ind + 1, s["body"])
        elif k == "for_in":
            vals = ", ".join(self.x(v) for v in s["values"])
            self.emit(ind, f"for {s['n']} in ({vals}{',' if len(s['values']) == 1 else ''}):")
            self.block(ind + 1, s["body"])
        elif k in ("break", "continue"):
            self.emit(ind, k)
        elif k == "exit":
            self.emit(ind, "raise ExitSignal()")
        elif k == "return":
            if getattr(self, "fn_packet_in", False):
                self.emit(ind, "P.off = off")   # (gen_blocks.gen_functions)
            if self.fn_outs is not None:
                v = self.x(s["v"]) if s["v"] is not None else "None"
                self.emit(ind, f"return ({v}, {', '.join(self.fn_outs)},)")
            elif s["v"] is not None:
                self.emit(ind, f"return {self.x(s['v'])}")
            elif self.action_outs:
                self.emit(ind, f"return ({', '.join(self.action_outs)},)")
            elif getattr(self, "deparser_body", False):
                self.emit(ind, "return b''.join(out)")   # (the deparser's headers emitted so far)
            else:
                self.emit(ind, "return")
        elif k == "apply":
            tid = self.table_by_name[s["table"]]["id"]
            self.emit(ind, f"T_apply_{tid}(P, L)")
        elif k == "switch_action":
            v = self.fresh("aid")
            self.emit(ind, f"{v} = {self.table_apply(s)}[1]")
            # a miss that ran no action (tables.NO_ACTION, 0: an indirect table without a default)
            # takes no label, not even `default` -- BMv2 goes on after the switch
            self._switch_cases(ind, v, s["cases"], lambda lb: str(self.action_by_name[lb]["id"]), f"{v}")
        elif k == "switch_value":
            v = self.fresh("sw")
            self.emit(ind, f"{v} = {self.x(s['e'])}")
            self._switch_cases(ind, v, s["cases"], str, None)
        elif k == "call_action":
            a = self.action_by_name[s["action"]]
            args = []
            outs, sibs, dead, keys = [], [], [], []
            for arg, p in zip(s["args"], a["all_params"]):
                # p4c drops the copy-in/copy-out of a parameter the body never uses: an
                # argument with a run-time stack index is then never read or written, so an
                # out-of-range index there does not drop the packet (BMv2 runs it on)
                # -- unless an earlier copy-back of the same call may write what it names: then
                # p4c's mid end keeps both (`a(hdr.s[1], hdr.s[i].x)`: fuzz_exprs seed 12281)
                elide = (_dyn_index(arg["e"]) and not holds_call(arg["e"])
                         and not _mentions(a["body"], p["py"])
                         and not any(o is not None and _may_overlap(o, arg["e"]) for o, _ in outs))
                pins = []
                if arg["dir"] in ("out", "inout") and not elide:   # (ExpressionGen.pinned_indices)
                    lv, pins = self.pinned_indices(arg["e"])
                    arg = dict(arg, e=lv)
                if arg["dir"] == "out" or elide or arg.get("unassigned"):
                    # ("unassigned": p4c dropped the copy-in -- compiler/switch_cases.unvisited_copy)
                    args.append(self.after_pins(pins, self.default(p["t"])))
                else:
                    v = self.x(arg["e"])
                    if p["t"][0] in ("header", "struct", "stack"):   # copy-in (inout too: the
                        v = f"{v}.copy()"   # body's direct writes to the argument are lost at copy-out)
                    elif p["t"][0] == "varbit":   # a box of the parameter's own: bits and length
                        v = self.copy_in(arg["e"], p["t"])
                    args.append(self.after_pins(pins, v))
                if arg["dir"] in ("out", "inout"):
                    outs.append((None if elide else arg["e"], p["t"]))
                    sibs.append(arg.get("siblings", ()))   # a union member: the others go invalid
                    dead.append(bool(arg.get("dead")))   # a copy-back p4c's def-use drops (union_defuse)
                    # ... or drops where the caller of the sub-control body this call is in says
                    # so (elab_unions.settle_caller_views: its apply sets the flag)
                    keys.append(arg.get("dead_key"))
            call = f"A_{s.get('impl', a['id'])}(P, L{''.join(', ' + x for x in args)})"
            if outs:
                r = self.fresh("r")
                if self.action_outs is not None:
                    # called from an action's body: p4c's InlineActions pastes the callee in
                    # first, its copy-out after the body, which an `exit` in the callee skips
                    # (only the outermost action's arguments are copied back before the exit)
                    self.emit(ind, f"{r} = {call}")
                else:
                    self.call_action_keeping_outs_on_exit(ind, r, call, outs, sibs)
                for i, (lv, t) in enumerate(outs):
                    if lv is not None and not dead[i] and not overwritten(lv, [o for o, _ in outs[i + 1:]]):
                        if keys[i] is not None:
                            self.emit(ind, f"if not getattr(L, '_dead{keys[i]}', False):")
                        self.assign(ind + (keys[i] is not None), lv, copied_out(f"{r}[{i}]", t), t, sibs[i], by_member=True)
            else:
                self.emit(ind, call)
        elif k == "apply_parser":
            self.apply_parser(ind, s)
        elif k == "apply_control":
            self.apply_control(ind, s)
        elif k == "call_fn":
            args = []
            pinned = []
            for a in s["args"]:   # (ExpressionGen.pinned_indices, after_pins)
                lv, pins = self.pinned_indices(a["e"]) if a["dir"] in ("out", "inout") else (a["e"], [])
                pinned.append(dict(a, e=lv))
                args.append(self.after_pins(pins, self.default(a["t"]) if a["dir"] == "out" else self.copy_in(lv, a["t"])))
            s = dict(s, args=pinned)
            r = self.fresh("r")
            pin = any(a.get("t") == ["extern", "packet_in"] for a in s["args"])
            if pin:   # (a packet_in argument: the offset goes through P.off, gen_blocks.gen_functions)
                self.emit(ind, "P.off = off")
            self.emit(ind, f"{r} = {s['fn']}(P, {', '.join(args)})")
            if pin:
                self.emit(ind, "off = P.off")
            outs = [arg for arg in s["args"] if arg["dir"] in ("out", "inout")]
            for k2, arg in enumerate(outs, 1):
                # (a copy-back p4c's def-use drops is not made: union_defuse.drop_dead_union_stores)
                if not arg.get("dead") and not overwritten(arg["e"], [b["e"] for b in outs[k2:]]):
                    self.assign(ind, arg["e"], copied_out(f"{r}[{k2}]", arg["t"]), arg["t"], arg.get("siblings", ()), by_member=True)
        elif k == "eval":
            self.emit(ind, self.x(s["e"]))
        elif k == "nop":
            pass
        elif k == "extract":
            self.emit(ind, f"off = {self.x(s['h'])}.extract(data, off, n)")
            for sib in s.get("siblings", ()):
                self.emit(ind, f"{self.x(sib)}._v = False")
        elif k == "extract_var":
            h = s["h"]
            if h["op"] == "stack_next":  # extract(stack.next, bits) advances nextIndex too
                st = self.fresh("st")
                self.emit(ind, f"{st} = {self.x(h['st'])}")
                self.emit(ind, f"off = {st}.nxt().extract_var(data, off, n, {self.x(s['bits'])})")
                self.emit(ind, f"{st}.n += 1")
            elif h["op"] == "field" and h["base"]["op"] == "stack_next":
                # extract(us.next.member, bits) on a stack of header unions: as extract_unext --
                # the member of element nextIndex, its siblings invalid, nextIndex advanced
                st, u = self.fresh("st"), self.fresh("u")
                self.emit(ind, f"{st} = {self.x(h['base']['st'])}")
                self.emit(ind, f"{u} = {st}.nxt()")
                self.emit(ind, f"off = {u}.{h['f']}.extract_var(data, off, n, {self.x(s['bits'])})")
                for sib, _t in self.ir["structs"][h["base"]["t"][1]]["fields"]:
                    if sib != h["f"]:
                        self.emit(ind, f"{u}.{sib}._v = False")
                self.emit(ind, f"{st}.n += 1")
            else:
                self.emit(ind, f"off = {self.x(s['h'])}.extract_var(data, off, n, {self.x(s['bits'])})")
                for sib in s.get("siblings", ()):  # a header union's member: the others go invalid
                    self.emit(ind, f"{self.x(sib)}._v = False")
        elif k == "extract_next":
            st = self.fresh("st")
            self.emit(ind, f"{st} = {self.x(s['st'])}")
            self.emit(ind, f"off = {st}.nxt().extract(data, off, n)")
            self.emit(ind, f"{st}.n += 1")
        elif k == "extract_unext":  # stack-of-unions .next.member
            st, u = self.fresh("st"), self.fresh("u")
            self.emit(ind, f"{st} = {self.x(s['st'])}")
            self.emit(ind, f"{u} = {st}.nxt()")
            self.emit(ind, f"off = {u}.{s['mem']}.extract(data, off, n)")
            for sib in s["others"]:
                self.emit(ind, f"{u}.{sib}._v = False")
            self.emit(ind, f"{st}.n += 1")
        elif k == "advance":
            b = self.fresh("b")
            self.emit(ind, f"{b} = {self.x(s['bits'])}")
            self.emit(ind, f"if {b} % 8:")
            self.emit(ind + 1, f"raise ParserError({self.errors['ParserInvalidArgument']})")
            self.emit(ind, f"if off + ({b} >> 3) > n:")
            self.emit(ind + 1, f"raise ParserError({self.errors['PacketTooShort']})")
            self.emit(ind, f"off += {b} >> 3")
        elif k == "verify":
            self.emit(ind, f"if not {self.x(s['c'])}:")
            self.emit(ind + 1, f"raise ParserError({self.x(s['e'])})")
        elif k == "emit":
            h = self.fresh("h")
            self.emit(ind, f"{h} = {self.x(s['h'])}")
            self.emit(ind, f"if {h}._v:")
            self.emit(ind + 1, f"out.append({h}.pack())")
        elif k == "emit_stack":
            h = self.fresh("h")
            self.emit(ind, f"for {h} in {self.x(s['st'])}.a:")
            if s.get("members"):  # a stack of header unions
                for m in s["members"]:
                    self.emit(ind + 1, f"if {h}.{m}._v:")
                    self.emit(ind + 2, f"out.append({h}.{m}.pack())")
            else:
                self.emit(ind + 1, f"if {h}._v:")
                self.emit(ind + 2, f"out.append({h}.pack())")
        elif k == "setvalid":
            h = self.fresh("h")
            self.emit(ind, f"{h} = {self.x(s['h'])}")
            if s["v"]:
                self.emit(ind, f"if not {h}._v:")
                self.emit(ind + 1, f"{h}.reset()")
                self.emit(ind + 1, f"{h}._v = True")
                self.emit(ind + 1, f"P.plen += {s['bytes']}")
                for sib in s.get("siblings", ()):
                    sv = self.x(sib)
                    self.emit(ind + 1, f"if {sv}._v:")
                    self.emit(ind + 2, f"{sv}._v = False")
                    self.emit(ind + 2, f"P.plen -= {sv}.NBYTES")
            else:
                self.emit(ind, f"if {h}._v:")
                self.emit(ind + 1, f"{h}._v = False")
                self.emit(ind + 1, f"P.plen -= {s['bytes']}")
        elif k in ("push_front", "pop_front"):
            self.emit(ind, f"{self.x(s['st'])}.{k}{'_u' if s.get('union') else ''}({s['count']})")
        elif k == "mark_to_drop":
            sm = self.x(s["sm"])
            self.emit(ind, f"{sm}.egress_spec = _DROP")   # the drop port (Engine.set_target_options)
            self.emit(ind, f"{sm}.mcast_grp = 0")
            self.emit(ind, "if P.tr: P.tr('mark_to_drop')")
        elif k == "counter":
            self.emit(ind, f"{s['obj']}.count({self.x(s['i'])}, P.ilen)")
        elif k == "reg_read":
            # BMv2: an index out of range reads nothing and leaves the destination as it was (a
            # slice's goes through p4c's fresh temporary, 0, as for a meter; errs17 probe r_reg_idx_oob_*)
            res = self.fresh("cell")
            self.emit(ind, f"{res} = {s['obj']}.get_or_none({self.x(s['i'])})")
            val = f"_sw({res}, {s['t'][1]})" if s["t"][0] == "int" else res
            self.store_unless_none(ind, res, s["l"], val, s["t"], via_temp=s["l"].get("op") == "slice")
        elif k == "reg_write":
            v = self.x(s["v"])
            if s["t"][0] == "int":
                v = f"({v}) & {mask(s['t'][1])}"
            self.emit(ind, f"{s['obj']}.put({self.x(s['i'])}, {v})")
        elif k == "meter":
            # BMv2: an index out of range updates no meter and leaves the destination as it was;
            # p4c passes a slice or a bool through a fresh temporary (0), which it then stores
            res = self.fresh("colour")
            self.emit(ind, f"{res} = {s['obj']}.execute({self.x(s['i'])}, P.ilen, CLOCK())")
            val = f"({res} & {mask(s['t'][1])})"
            self.store_unless_none(ind, res, s["l"], f"({val} != 0)" if s.get("to_bool") else val,
                                   ["bool"] if s.get("to_bool") else s["t"],
                                   via_temp=s.get("to_bool") or s["l"].get("op") == "slice")
        elif k == "direct_meter_read":
            if s["l"].get("op") == "slice":   # p4c's result_target is a fresh temporary (0 on a miss), stored
                dm = "(0 if P.dm is None else P.dm)"   # into the slice (errs17 probe x_dm_read_in_action)
                self.assign(ind, s["l"], f"({dm} & {mask(s['t'][1])})", s["t"])
            else:
                self.emit(ind, "if P.dm is not None:")
                self.assign(ind + 1, s["l"], f"(P.dm & {mask(s['t'][1])})" if s["t"][0] == "bit" else "P.dm", s["t"])
        elif k == "random":
            # BMv2: with lo > hi nothing is written, the destination keeps its value (errs17 probe
            # g_random_lo_gt_hi); a slice's goes through p4c's temporary (0), as for a meter
            res = self.fresh("rnd")
            self.emit(ind, f"{res} = _random({self.x(s['lo'])}, {self.x(s['hi'])})")
            self.store_unless_none(ind, res, s["l"], f"({res} != 0)" if s["t"] == ["bool"] else res, s["t"],
                                   via_temp=s["t"] == ["bool"] or s["l"].get("op") == "slice")
        elif k == "digest":
            vals = []
            for it in s["items"]:
                v = self.x(it)
                t = it["t"]
                if t[0] == "int":
                    v = f"({v} & {mask(t[1])})"
                elif t[0] == "bool":
                    v = f"int({v})"
                vals.append(v)
            tup = f"({', '.join(vals)}{',' if len(vals) == 1 else ''})"
            if s.get("late"):
                tup = f"lambda: {tup}"
            self.emit(ind, f"P.digest = ({self.digest_ids[s['name']]}, {tup})")
        elif k == "hash":
            cat, bits = self.cat(s["data"])
            mx = self.x(s["max"])
            algo = s["algo"]
            if isinstance(algo, dict):   # a HashAlgorithm parameter: its member's name, when it runs
                algo = f"{tuple(algo['names'])!r}[{self.x(algo['dyn'])}]"
            else:
                algo = repr(algo)
            hv = f"hash_value({algo}, {cat}, {bits})"
            if any(d.get("whole") for d, _ in s["data"]):
                hv = self.csum_skip_invalid({**s, "payload": False, "algo": None}, hv, algo, whole_only=True)
            self.emit(ind, f"_hv = {hv}")
            # BMv2 (modify_field_with_hash_based_offset) reads base and max as uint64_t, takes max 0
            # as 1 (the result is then base) and computes base + hash % max in 64 bits
            self.emit(ind, f"_hm = {mx} & {mask(64)}")
            w = s["t"][1]
            val = f"((({self.x(s['base'])} & {mask(64)}) + (_hv % _hm if _hm else 0)) & {mask(min(w, 64))})"
            self.assign(ind, s["l"], f"({val} != 0)" if s.get("to_bool") else val, ["bool"] if s.get("to_bool") else s["t"])
        elif k == "update_checksum":
            cat, bits = self.csum_arg(s) if s["algo"] == "csum16" else self.with_payload(s)
            self.emit(ind, f"if {self.x(s['c'])}:")
            fn = f"csum16({cat}, {bits})" if s["algo"] == "csum16" else f"hash_value({s['algo']!r}, {cat}, {bits})"
            fn = self.csum_skip_invalid(s, fn)
            self.assign(ind + 1, s["l"], f"({fn} & {mask(s['t'][1])})", s["t"])
        elif k == "verify_checksum":
            cat, bits = self.csum_arg(s) if s["algo"] == "csum16" else self.with_payload(s)
            fn = f"csum16({cat}, {bits})" if s["algo"] == "csum16" else f"hash_value({s['algo']!r}, {cat}, {bits})"
            fn = self.csum_skip_invalid(s, fn)
            ck = self.x(s["ck"])
            # BMv2 verifies nothing while the checksum field's header is invalid (fuzz_mutants seed 3955)
            b = s["ck"].get("base") if s["ck"].get("op") == "field" else None
            valid = f" and {self.x(b)}._v" if b is not None and (b.get("t") or [None])[0] == "header" else ""
            self.emit(ind, f"if {self.x(s['c'])}{valid} and ({fn} & {mask(s['t'][1])}) != {ck}:")
            self.emit(ind + 1, "P.sm.checksum_error = 1")
        elif k == "clone":
            self.emit(ind, f"P.clone = ({self.x(s['session'])}, {s['fl']})")
        elif k == "resubmit":
            self.emit(ind, f"P.resub = {s['fl']}")
        elif k == "recirculate":
            self.emit(ind, f"P.recirc = {s['fl']}")
        elif k == "truncate":
            # BMv2 keeps the smallest length of every truncate() on the packet (ingress and egress)
            n = self.x(s['n'])
            self.emit(ind, f"P.trunc = {n} if P.trunc is None or {n} < P.trunc else P.trunc")
        elif k == "assert":
            self.emit(ind, f"if not {self.x(s['c'])}:")
            self.emit(ind + 1, f"raise AssertionFailed({s['where']!r})")
        elif k == "log":
            data = ", ".join(self.x(d) for d in s["data"])
            # (BMv2's own placeholders, switch/log_format.py: str.format read "{{}}" and failed on "{}{}")
            self.emit(ind, f"if P.tr: P.tr('log_msg: ' + _logfmt({s['msg']!r}, ({data}{',' if data else ''})))")
        else:
            raise Unsupported(f"statement {k}")

    def copy_in(self, e, t) -> str:
        """An argument's value as a callee's parameter starts with it: a copy of an aggregate, a box of
        its own for a varbit (the bits and the length of the field or local ``e``)."""
        if t[0] in ("header", "struct", "stack"):
            return f"{self.x(e)}.copy()"
        if t[0] == "varbit":
            return f"_vb_in({self.x(e)}, {self.x(e['base'])}._vb)"
        return self.x(e)

    def call_action_keeping_outs_on_exit(self, ind: int, r: str, call: str, outs: list, sibs: list) -> None:
        """A control's call of an action with out/inout arguments: p4c's RemoveActionParameters
        copies them back before an ``exit`` in the body too (the action raises ExitSignal with
        its parameters' values in ``outs``)."""
        self.emit(ind, "try:")
        self.emit(ind + 1, f"{r} = {call}")
        self.emit(ind, "except ExitSignal as _ex:")
        texts = [self.x(lv) if lv is not None else None for lv, _ in outs]

        def aliased(i):
            return any(j != i and o is not None and (o == texts[i] or o.startswith(texts[i] + ".")
                                                     or texts[i].startswith(o + "."))
                       for j, o in enumerate(texts))
        for i, (lv, t) in enumerate(outs):
            # p4c passes a bit slice, and arguments that alias one another, through
            # temporaries copied back after the call, which an exit in the action
            # skips (BMv2 keeps those arguments unchanged)
            if lv is not None and lv.get("op") != "slice" and not aliased(i):
                self.assign(ind + 1, lv, copied_out(f"_ex.outs[{i}]", t), t, sibs[i], by_member=True)
        self.emit(ind + 1, "raise")

    def apply_parser(self, ind: int, s: dict) -> None:
        """A sub-parser call, as p4c inlines it.  An argument is substituted in place (an
        ``out`` header made invalid where the call starts, a scalar ``out``/``inout`` copied back
        also when the sub-parser fails: it was written in place), or -- where ``s["temps"]`` is
        True or lists its index (elab_parsers._mark_temporaries) -- goes through a temporary:
        an aggregate copied in (``out`` ones reset), every ``out``/``inout`` one copied back in
        parameter order only after the sub-parser accepted (a ParserError leaves it untouched),
        and a copy-back a later one overwrites dropped, as p4c's def-use pass drops it
        (``sp.apply(pkt, hdr.h.a, hdr.h)``: BMv2 keeps ``hdr.h.a`` when ``hdr.h`` comes back
        invalid; diffcase ``fuzz16_subparser_aliased_arguments``)."""
        agg = ("struct", "header", "stack")
        temps = s.get("temps")
        args, outs = s["args"], s.get("outs") or []
        dirs = s.get("dirs") or ["in"] * len(args)
        r = self.fresh("r")
        texts, in_place, backs = [], [], []   # backs: (lvalue, value, type) in parameter order
        k = 0
        for i, (a, d) in enumerate(zip(args, dirs)):
            t = a.get("t") or []
            temp = temps is True or isinstance(temps, list) and i in temps
            if d in ("out", "inout") and not (t and t[0] in agg):   # a scalar: returned after the offset
                if temp:
                    backs.append((outs[k], f"{r}[{k + 1}]", outs[k]["t"]))
                else:
                    in_place.append((outs[k], k))
                texts.append(self.x(a))
                k += 1
            elif t and t[0] in agg and a.get("op") != "stack_next" and temp:
                tmp = self.fresh("t")
                self.emit(ind, f"{tmp} = {self.x(a)}.copy()")
                if d == "out":
                    self.invalidate(ind, tmp, t)
                if d in ("out", "inout"):
                    backs.append((a, tmp, t))
                texts.append(tmp)
            else:
                if d == "out" and t and t[0] in ("header", "struct") and a.get("op") != "stack_next":
                    self.invalidate(ind, self.x(a), t)   # (in place: invalid where the call starts)
                texts.append(self.x(a))
        call = f"{s['fn']}(P, data, n, off{''.join(', ' + x for x in texts)})"
        if not outs:
            self.emit(ind, f"off = {call}")
        elif in_place:
            e = self.fresh("e")
            self.emit(ind, "try:")
            self.emit(ind + 1, f"{r} = {call}")
            self.emit(ind, f"except ParserError as {e}:")
            # an error in the sub-parser: its in-place scalar out/inout values so far are
            # copied back, then the error goes on
            for lv, j in in_place:
                self.assign(ind + 1, lv, f"{e}.outs[{j}]", lv["t"])
            self.emit(ind + 1, "raise")
        else:
            self.emit(ind, f"{r} = {call}")
        if outs:
            self.emit(ind, f"off = {r}[0]")
        for lv, j in in_place:
            self.assign(ind, lv, f"{r}[{j + 1}]", lv["t"])
        for j, (lv, val, t) in enumerate(backs):
            if not overwritten(lv, [b[0] for b in backs[j + 1:]]):
                self.assign(ind, lv, val, t, by_member=True)


def _dyn_index(e) -> bool:
    """Whether an IR expression indexes a header stack with a run-time value."""
    if isinstance(e, dict):
        if e.get("op") == "stack_idx" and e["i"].get("op") != "const":
            return True
        return any(_dyn_index(v) for v in e.values())
    if isinstance(e, list):
        return any(_dyn_index(v) for v in e)
    return False


def _mentions(body, name: str) -> bool:
    """Whether IR statements refer to the variable ``name``."""
    if isinstance(body, dict):
        return body.get("n") == name or any(_mentions(v, name) for v in body.values())
    if isinstance(body, list):
        return any(_mentions(v, name) for v in body)
    return False



def _shape(lv) -> tuple:
    """An lvalue path as (root, field or "[]" ...), every stack index alike, a slice its base's."""
    out = []
    while isinstance(lv, dict):
        op = lv.get("op")
        if op == "field":
            out.append(lv["f"])
            lv = lv["base"]
        elif op == "stack_idx":
            out.append("[]")
            lv = lv["st"]
        elif op == "slice":
            lv = lv["a"]
        else:
            out.append(("root", lv.get("n")) if op == "var" else ("other", id(lv)))
            break
    return tuple(reversed(out))


def _may_overlap(a, b) -> bool:
    """Whether lvalues ``a`` and ``b`` may name overlapping storage (any two indexes of a stack may
    be equal): one's path is a prefix of the other's."""
    x, y = _shape(a), _shape(b)
    n = min(len(x), len(y))
    return x[:n] == y[:n]
