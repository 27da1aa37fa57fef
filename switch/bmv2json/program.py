"""A whole BMv2 JSON -> the embedded IR: parser, deparser, checksums, actions, tables,
the ingress/egress control graphs, externs, field lists and digests.

P4Runtime ids come from the P4Info that travels with the JSON (p4c's
``--p4runtime-files``, or the controller's ForwardingPipelineConfig), matched by name as
PI does for BMv2.  Objects p4c keeps out of the P4Info (the hidden ``tbl_*`` tables and
their actions) get ids from a private range (prefix 0x7f) that no P4Info id uses (:mod:`.externs`,
with the JSON's counters, registers, meters, calculations and learn lists).

The control graph: BMv2 pipelines are graphs of tables and conditionals (``next_tables``,
``true_next``/``false_next``); p4c builds them from structured code, so every branch
rejoins at the nearest node reachable from all its arms.  :func:`ControlGraph.region`
walks the graph back into nested ``if`` / ``switch (action_run)`` / hit-miss statements,
stopping each arm at that join node.
"""
from __future__ import annotations

import json

from .actions import PrimitiveGen, bool_const
from .externs import BMV2_ALGORITHMS, Externs, Ids
from .model import (BOOL, HDR_STRUCT, META_STRUCT, SM_STRUCT, Bmv2JsonError, Model, cast, const,
                    hexint, pyname)

# a const entry's priority as BMv2's P4Runtime server reads it back: INT32_MAX minus the JSON's
# (smaller JSON priority wins; the same numbering as switch/compiler/elab_tables.py)
CONST_PRIORITY_TOP = 2**31 - 1


def as_int(v, what: str) -> int:
    """A size BMv2 reads with Json::Value::asInt(): one past INT_MAX (p4c writes 4294967295 for a
    table `size = -1`) is a Json::LogicError, and simple_switch dies loading it (helper errs31)."""
    v = int(v)
    if v > CONST_PRIORITY_TOP:
        raise Bmv2JsonError(f"{what}: max_size {v}: Json::LogicError: LargestInt out of Int range")
    return v


MATCH_KINDS = {"exact", "lpm", "ternary", "range", "optional"}
P4INFO_MATCH = {2: "exact", 3: "lpm", 4: "ternary", 5: "range", 6: "optional"}
IR_FORMAT = "checkmate-v1model-ir/1"


class ControlGraph:
    """One BMv2 pipeline (ingress or egress) as IR statements and IR tables."""

    def __init__(self, prog: "Translator", pipe: dict, block_name: str):
        self.p, self.pipe, self.block = prog, pipe, block_name
        self.tables = {t["name"]: t for t in pipe.get("tables", [])}
        self.conds = {c["name"]: c for c in pipe.get("conditionals", [])}
        seen = prog.__dict__.setdefault("control_nodes", set())
        for n in [x["name"] for x in pipe.get("tables", []) + pipe.get("conditionals", [])]:
            if n in seen:   # (p4c writes one for each direct application of a control: direct_apply)
                raise Bmv2JsonError(f"Duplicate objects of type 'control node' with name '{n}'")
            seen.add(n)
        if pipe.get("action_calls"):
            raise Bmv2JsonError(f"pipeline '{pipe['name']}': action_calls nodes are not supported")
        self.order: dict = {}
        self.reach: dict = {}
        self._topo(pipe.get("init_table"))

    def succ(self, n) -> list:
        if n in self.tables:
            t = self.tables[n]
            return list(dict.fromkeys(list(t.get("next_tables", {}).values()) + [t.get("base_default_next")]))
        if n in self.conds:
            c = self.conds[n]
            return [c.get("true_next"), c.get("false_next")]
        if n is None:
            return []
        raise Bmv2JsonError(f"pipeline '{self.pipe['name']}': unknown node '{n}'")

    def _topo(self, root) -> None:
        post: list = []
        seen = set()
        stack = [(root, iter(self.succ(root)))]
        seen.add(root)
        while stack:
            n, it = stack[-1]
            nxt = next(it, _END)
            if nxt is _END:
                stack.pop()
                post.append(n)
                continue
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, iter(self.succ(nxt))))
        for k, n in enumerate(reversed(post)):
            self.order[n] = k
        self.pdom: dict = {None: {None}}
        for n in post:  # successors first
            r = {n}
            for s in self.succ(n):
                r |= self.reach[s]
            self.reach[n] = r
            # the nodes every path from n to the end passes through (its post-dominators)
            succ = self.succ(n)
            self.pdom[n] = {n} | (set.intersection(*(self.pdom[s] for s in succ)) if succ else {None})
        self.order.setdefault(None, len(post) + 1)
        self.reach.setdefault(None, {None})

    def join(self, arms: list):
        """Where the arms of a branch meet again: the first node (in topological order) on
        every path from each arm -- their nearest common post-dominator.  A node merely
        reachable from every arm is no join when some path avoids it: p4c applies a table in
        both arms of two nested ifs (``if (a) { if (b) t1 else t2 } else { if (c) t1 else
        t2 }`` then ``t3``: t1 and t2 are reachable from either arm, only t3 is on every
        path; sonic-pins p4_symbolic's conditional_nonlattice, corpus13)."""
        common = set.intersection(*(self.pdom[a] for a in arms))
        return min(common, key=lambda n: self.order.get(n, 1 << 30))

    def region(self, n, stop) -> list:
        out: list = []
        guard = 0
        while n is not None and n != stop:
            guard += 1
            if guard > 100000:
                raise Bmv2JsonError(f"pipeline '{self.pipe['name']}': control graph does not terminate")
            if n in self.conds:
                c = self.conds[n]
                arms = [c.get("true_next"), c.get("false_next")]
                j = self.join(arms)
                cond = self.p.m.boolean(self.p.m.expr(c["expression"]))
                out.append({"s": "if", "c": cond, "then": self.region(arms[0], j), "else": self.region(arms[1], j)})
                n = j
                continue
            t = self.tables[n]
            tname = self.p.table(t, self.block)
            nxt = t.get("next_tables", {})
            if "__HIT__" in nxt or "__MISS__" in nxt:
                arms = [nxt.get("__HIT__"), nxt.get("__MISS__")]
                j = self.join(arms)
                hit = {"op": "table_hit", "table": tname, "neg": False, "t": BOOL}
                out.append({"s": "if", "c": hit, "then": self.region(arms[0], j), "else": self.region(arms[1], j)})
                n = j
                continue
            base = t.get("base_default_next")
            targets = {a: nxt.get(a, base) for a in t.get("actions", [])}
            if all(v == base for v in targets.values()):
                out.append({"s": "apply", "table": tname})
                n = base
                continue
            j = self.join(list(dict.fromkeys(list(targets.values()) + [base])))
            cases = []
            for a, to in targets.items():
                if to != j:
                    cases.append({"labels": [a], "body": self.region(to, j)})
            cases.append({"labels": ["default"], "body": self.region(base, j) if base != j else []})
            out.append({"s": "switch_action", "table": tname, "cases": cases})
            n = j
        return out


_END = object()


class Translator:
    def __init__(self, j: dict, p4info):
        if not isinstance(j, dict) or "pipelines" not in j or "header_types" not in j:
            raise Bmv2JsonError("incomplete BMv2 JSON: no 'header_types' or 'pipelines'")
        self.j = j
        self.m = Model(j)
        self.ids = Ids(p4info)
        self.p4info = p4info
        self.ext = Externs(self.m, self.ids)
        self.prims = PrimitiveGen(self.m, self.ext)
        self.actions_json = {a["id"]: a for a in j.get("actions", [])}
        self.actions: dict[int, dict] = {}   # json id -> IR action
        self.tables: dict[str, dict] = {}
        self.block_names = {"ingress": "ingress", "egress": "egress"}
        self.profiles: list[dict] = []       # IR action profiles
        self.pipe_profiles = [p for pipe in j.get("pipelines", []) for p in pipe.get("action_profiles", [])]
        self.vsets: dict[str, dict] = {}     # IR value sets by BMv2 name
        for vs in j.get("parse_vsets", []):
            vid, alias = self.ids.id("value_sets", vs["name"])
            info = self.ids.get("value_sets", vs["name"])  # P4Info: one match field per struct member
            fields = [{"name": m.name, "width": m.bitwidth, "match": "exact"} for m in info.match] if info else []
            if sum(f["width"] for f in fields) != int(vs["compressed_bitwidth"]) or not all(f["name"] for f in fields):
                fields = []
            self.vsets[vs["name"]] = {"name": vs["name"], "id": vid, "alias": alias, "py": pyname(vs["name"], "VS_"),
                                      "width": int(vs["compressed_bitwidth"]), "size": int(vs["max_size"]),
                                      "annos": [], "fields": fields}

    # ---------------------------------------------------------------- actions
    def action(self, jid: int) -> dict:
        if jid in self.actions:
            return self.actions[jid]
        a = self.actions_json.get(jid)
        if a is None:
            raise Bmv2JsonError(f"unknown action id {jid}")
        aid, alias = self.ids.id("actions", a["name"])
        info = self.ids.get("actions", a["name"])
        pids = {p.name: p.id for p in info.params} if info is not None else {}
        params, all_params, refs = [], [], []
        ips = list(info.params) if info is not None else []
        for k, rd in enumerate(a.get("runtime_data", [])):
            py = pyname(f"a{jid}_{rd['name']}")
            if any(x["py"] == py for x in params):   # two parameters @name'd alike (simple_switch loads it; errs20)
                py = pyname(f"a{jid}_{k}_{rd['name']}")
            w = int(rd["bitwidth"])
            pid = ips[k].id if k < len(ips) and ips[k].name == rd["name"] else pids.get(rd["name"], k + 1)
            params.append({"name": rd["name"], "id": pid, "width": w, "py": py})
            all_params.append({"name": rd["name"], "py": py, "dir": None, "t": ["bit", w]})
            refs.append({"op": "var", "n": py, "t": ["bit", w]})
        spec = {"name": a["name"], "id": aid, "alias": alias, "params": params, "all_params": all_params,
                "body": None, "annos": [], "control": "ingress"}
        if info is not None and not (len(info.params) == len(params) and all(
                p.name == q["name"] and p.bitwidth in (0, q["width"]) for p, q in zip(info.params, params))):
            # a copy p4c made for a direct call with constant arguments (`forward(1);` in an apply:
            # its table tbl_forward runs a copy without those parameters): not the action the
            # control plane writes (runtime.Pipeline takes the P4Info's; helper corpus16).  A P4Info
            # parameter of no width (a plain enum's, `type_name` only: 32 bits in the JSON) matches
            # any (diffcase open6_plain_enum_action_parameter under fuzz_samples seed 115: the
            # table's body was taken for a copy and the control plane's entries were refused)
            spec["cp"] = False
        if any(x["id"] == aid for x in self.actions.values()):
            # p4c writes one JSON action per table for an action with bound (directional)
            # arguments, all under the one P4Info action: each table runs its own body
            spec["impl"] = f"j{jid}_{aid}"
        self.actions[jid] = spec
        spec["body"] = self.prims.body(a.get("primitives", []), refs, f"action '{a['name']}'")
        return spec

    def empty_action(self) -> dict:
        """An action that does nothing (``NoAction`` when the JSON has it)."""
        for jid, a in self.actions_json.items():
            if a["name"] == "NoAction" and not a.get("primitives") and not a.get("runtime_data"):
                return self.action(jid)
        if -1 not in self.actions:
            aid, _alias = self.ids.id("actions", "$miss")
            self.actions[-1] = {"name": "miss_nop", "id": aid, "alias": "miss_nop", "params": [], "all_params": [],
                                "body": [], "annos": [], "control": "ingress"}
        return self.actions[-1]

    # ----------------------------------------------------------------- tables
    def table(self, t: dict, block: str) -> str:
        name = t["name"]
        if name in self.tables:
            return name
        ttype = t.get("type", "simple")
        if ttype not in ("simple", "indirect", "indirect_ws"):
            raise Bmv2JsonError(f"table '{name}': table type {ttype!r} is not supported")
        tid, alias = self.ids.id("tables", name)
        impl, sel_keys = None, []
        if ttype != "simple":
            impl, sel_keys = self.action_profile(t, tid)
        info = self.ids.get("tables", name)
        mf = {f.name: f for f in info.match_fields} if info is not None else {}
        keys = []
        for k, key in enumerate(t.get("key", [])):
            kind = key["match_type"]
            if kind == "valid":
                kind = "exact"
            if kind not in MATCH_KINDS:
                raise Bmv2JsonError(f"table '{name}': match kind {kind!r} is not supported")
            kname = key.get("name") or ".".join(key["target"])
            f = mf.get(kname)
            if f is not None:  # p4c writes optional keys as ternary in the JSON
                kind = P4INFO_MATCH.get(f.match_type, kind)
            e = self.m.field(*key["target"])
            w = e["t"][1]
            if key.get("mask") is not None:
                msk = hexint(key["mask"])
                lo = (msk & -msk).bit_length() - 1
                span = msk.bit_length() - lo
                if f is not None and f.bitwidth == w:
                    # `field & MASK` as a key (the mask need not be contiguous): the key keeps
                    # the field's width and BMv2 compares the masked field
                    e = {"op": "bin", "o": "&", "a": e, "b": const(msk), "t": ["int_lit"]}
                else:  # a slice field[hi:lo]: the key is the slice's bits
                    w = span
                    e = {"op": "bin", "o": "&", "a": {"op": "bin", "o": ">>", "a": e, "b": const(lo),
                                                      "t": ["int_lit"]},
                         "b": const((1 << w) - 1), "t": ["int_lit"]}
            e = cast(e, ["bit", w]) if e["t"][0] != "bit" or e["t"][1] != w else e
            # the P4Info width is the control plane's (a translated type's, 0 for an `error`); the
            # field's own width decides whether BMv2 can take an entry (p4rt_server.writes)
            keys.append({"id": f.id if f is not None else k + 1, "name": kname, "match": kind,
                         "width": f.bitwidth if f is not None else w, "expr": e, "annos": [],
                         **({"field_width": w} if f is not None and f.bitwidth != w else {})})
        acts = []
        scopes = {r.id: r.scope for r in info.action_refs} if info is not None else {}
        scope_name = {0: "TABLE_AND_DEFAULT", 1: "TABLE_ONLY", 2: "DEFAULT_ONLY"}
        for jid in t.get("action_ids", []):
            a = self.action(jid)
            info_a = self.ids.get("actions", a["name"])   # (another parameter count: compiler/action_twins)
            acts.append({"id": a["id"], "name": a["name"], "scope": scope_name.get(scopes.get(a["id"], 0)),
                         "annos": [], "bound": [], **({"impl": a["impl"]} if "impl" in a else {}),
                         **({"cp_mismatch": True} if info_a is not None and len(info_a.params) != len(a["params"]) else {})})
        de = t.get("default_entry")
        default = None
        miss_nop = de is None
        if de is None:
            # indirect tables have no default entry in the JSON: a miss runs nothing, not even
            # the `default` label of a switch on its action_run (runtime.tables.NO_ACTION)
            default = {"action": self.empty_action()["id"], "params": [], "const": False}
        else:
            a = self.action(de["action_id"])
            const_default = bool(de.get("action_const")) if info is None else bool(info.const_default_action_id)
            if any(str(v).startswith("-") for v in de.get("action_data", [])):   # (simple_switch dies: errs15)
                raise Bmv2JsonError(f"table '{t['name']}': default action data {de['action_data']}: Formatted output "
                                    "in bases 8 or 16 is only available for positive numbers")
            default = {"action": a["id"], "params": [hexint(v) for v in de.get("action_data", [])],
                       "const": const_default}
        needs_prio = any(k["match"] in ("ternary", "range", "optional") for k in keys)
        entries = t.get("entries") or []
        const_entries = []
        for e in entries:
            matches = []
            for key, mk in zip(keys, e["match_key"]):
                m = self._const_match(key, mk, name)
                if m is not None:
                    matches.append(m)
            a = self.action(e["action_entry"]["action_id"])
            const_entries.append({"matches": matches, "action": a["id"],
                                  "params": [hexint(v) for v in e["action_entry"].get("action_data", [])],
                                  "priority": (CONST_PRIORITY_TOP - int(e.get("priority", 0))) if needs_prio else 0})
        dc = next((c for c in self.ext.ir["direct_counters"] if c["table"] == name), None)
        dm = next((c for c in self.ext.ir["direct_meters"] if c["table"] == name), None)
        dm_read = None
        if dm is not None and dm.get("result_target"):
            # BMv2 writes the colour into result_target when the entry is hit, before the
            # action runs: the generated table apply does (not the actions, which other
            # tables may share)
            tgt = self.m.field(*dm["result_target"])
            dm_read = {"l": tgt, "t": tgt["t"]}
        for d in (dc, dm):
            if d is not None:
                d["table_id"] = tid
        is_const = bool(info.is_const_table) if info is not None else bool(entries)
        self.tables[name] = {
            "name": name, "id": tid, "alias": alias, "size": as_int(t.get("max_size", 1024), f"table '{name}'"), "keys": keys,
            "actions": acts, "default": default, **({"miss_nop": True} if miss_nop else {}),
            "const_entries": const_entries, "is_const": is_const,
            "direct_counter": dc["id"] if dc else None, "direct_meter": dm["id"] if dm else None, "annos": [],
            "support_timeout": bool(t.get("support_timeout")), "control": block, "implementation_id": impl,
            "selector_keys": sel_keys, **({"dm_read": dm_read} if dm_read else {})}
        return name

    def action_profile(self, t: dict, tid: int):
        """(IR action profile id, selector keys) of an indirect table.  p4c's JSON has no
        selector output width, so the whole hash picks the member (width 64: no mask)."""
        pname = t.get("action_profile")
        prof = next((p for p in self.pipe_profiles if p["name"] == pname), None)
        if prof is None:
            raise Bmv2JsonError(f"table '{t['name']}': unknown action profile '{pname}'")
        spec = next((p for p in self.profiles if p["name"] == pname), None)
        if spec is None:
            pid, alias = self.ids.id("action_profiles", pname)
            sel = prof.get("selector")
            if sel is not None and sel.get("algo") not in BMV2_ALGORITHMS:   # (as for a calculation's)
                raise Bmv2JsonError(f"action profile '{pname}': Unknown hash algorithm: {sel.get('algo')}")
            spec = {"name": pname, "id": pid, "alias": alias, "size": as_int(prof.get("max_size", 0), f"action profile '{pname}'"),
                    "with_selector": sel is not None, "algo": sel["algo"] if sel else None,
                    "width": 64 if sel else 0, "annos": [], "table_ids": []}
            self.profiles.append(spec)
        spec["table_ids"].append(tid)
        keys = []
        if prof.get("selector"):
            keys = self.ext.field_list(prof["selector"]["input"], f"action selector '{pname}'")
            if "payload" in keys or any(w is None for _e, w in keys):
                raise Bmv2JsonError(f"action selector '{pname}': payload/varbit inputs are not supported")
        return spec["id"], keys

    @staticmethod
    def _const_match(key: dict, mk: dict, table: str):
        kind, w = mk["match_type"], key["width"]
        full = (1 << w) - 1
        if kind in ("exact", "valid"):
            return {"id": key["id"], "kind": "exact", "value": hexint(mk["key"]), "mask": None,
                    "prefix_len": None, "high": None}
        if kind == "lpm":
            plen = int(mk["prefix_length"])
            if plen == 0:
                return None
            # p4c keeps the bits past the prefix (`0x11 &&& 0xf0` -> key 0x11, /4): BMv2's LPM trie
            # only looks at the prefix (so does the runtime's lookup: tables._canonical), and a
            # read gives them back (helper p4rt39)
            return {"id": key["id"], "kind": "lpm", "value": hexint(mk["key"]) & full, "mask": None,
                    "prefix_len": plen, "high": None}
        if kind == "ternary":
            msk = hexint(mk["mask"]) & full
            if msk == 0:
                return None
            if key["match"] == "optional":
                return {"id": key["id"], "kind": "optional", "value": hexint(mk["key"]), "mask": None,
                        "prefix_len": None, "high": None}
            return {"id": key["id"], "kind": "ternary", "value": hexint(mk["key"]) & msk, "mask": msk,
                    "prefix_len": None, "high": None}
        if kind == "range":
            lo, hi = hexint(mk["start"]), hexint(mk["end"])
            if lo == 0 and hi == full:
                return None
            return {"id": key["id"], "kind": "range", "value": lo, "mask": None, "prefix_len": None, "high": hi}
        raise Bmv2JsonError(f"table '{table}': const entry match kind {kind!r} is not supported")

    # ----------------------------------------------------------------- parser
    def parser(self) -> dict:
        ps = self.j.get("parsers", [])
        if len(ps) != 1:
            raise Bmv2JsonError(f"expected one parser, found {len(ps)}")
        p = ps[0]
        names = {s["name"]: pyname(s["name"], "s_") for s in p["parse_states"]}
        names[p["init_state"]] = "start"
        states = {}
        for s in p["parse_states"]:
            where = f"parser state '{s['name']}'"
            body = []
            for op in s.get("parser_ops", []):
                body += self.parser_op(op, where)
            states[names[s["name"]]] = {"body": body, "transition": self.transition(s, names, where)}
        return {"name": "parser", "params": [
            {"name": "packet", "py": "p_packet", "t": ["extern", "packet_in"]},
            {"name": "hdr", "py": "p_hdr", "t": ["struct", HDR_STRUCT]},
            {"name": "meta", "py": "p_meta", "t": ["struct", META_STRUCT]},
            {"name": "standard_metadata", "py": "p_standard_metadata", "t": ["struct", SM_STRUCT]}],
            "locals": [], "states": states}

    def _extract_target(self, v, where: str) -> dict:
        """The header an ``extract`` writes: an instance name, or -- for ``pkt.extract(hs[i])``
        with a run-time ``i`` -- p4c's ``dereference_header_stack`` expression (an element of
        a stack of headers; simple_switch 1.15.5 itself cannot load that JSON)."""
        if not isinstance(v, dict):
            return self.m.header(v)
        h = self.m.expr(v)
        if h["t"][0] != "header":
            raise Bmv2JsonError(f"{where}: extract into a {h['t'][0]} expression is not supported")
        return h

    def _union_next_member(self, v, where: str) -> tuple[dict, str, str]:
        """(stack IR, member's Python name, member header type) of a ``union_stack`` operand
        ``[stack, member]``."""
        m = self.m
        st = m.ustack(v[0])
        mem = m.member_py(v[0], v[1])
        if mem is None:
            raise Bmv2JsonError(f"{where}: header union stack '{v[0]}' has no member '{v[1]}'")
        return st, mem, next(ht for _m, py, ht in m.ustructs[st["t"][1]]["members"] if py == mem)

    def parser_op(self, op: dict, where: str) -> list:
        kind, a = op.get("op"), op.get("parameters", [])
        m = self.m
        if kind == "extract":
            t, v = a[0]["type"], a[0]["value"]
            if t == "regular":
                if isinstance(v, dict) and isinstance(v.get("value"), dict) and \
                        v["value"].get("op") == "dereference_header_stack":
                    # `pkt.extract(hdr.s[i])` at a run-time index: simple_switch 1.15.5 dies loading it
                    # (tests/p4c/test_errs62_loads.py)
                    raise Bmv2JsonError(f"{where}: Json::LogicError: Type is not convertible to string (an "
                                        "extract into a header stack element at a run-time index)")
                h = self._extract_target(v, where)
                return [{"s": "extract", "h": h, "hdr": h["t"][1],
                         "siblings": m.siblings(v) if isinstance(v, str) else []}]
            if t == "stack":
                st = m.stack(v)
                return [{"s": "extract_next", "st": st, "hdr": st["t"][1], "size": st["t"][2]}]
            if t == "union_stack":  # extract(us.next.member): the member of the next union
                st, mem, hdr = self._union_next_member(v, where)
                members = m.ustructs[st["t"][1]]["members"]
                return [{"s": "extract_unext", "st": st, "mem": mem, "hdr": hdr, "size": st["t"][2],
                         "others": [py for _m, py, _ht in members if py != mem]}]
            raise Bmv2JsonError(f"{where}: extract of a {t} is not supported")
        if kind == "extract_VL":
            if a[0]["type"] == "union_stack":  # extract(us.next.member, bits)
                st, mem, hdr = self._union_next_member(a[0]["value"], where)
                h = {"op": "field", "base": {"op": "stack_next", "st": st, "t": ["struct", st["t"][1]],
                                             "size": st["t"][2]}, "f": mem, "t": ["header", hdr]}
            elif a[0]["type"] == "stack":  # extract(stack.next, bits)
                st = m.stack(a[0]["value"])
                h = {"op": "stack_next", "st": st, "t": ["header", st["t"][1]], "size": st["t"][2]}
            else:
                h = self._extract_target(a[0]["value"], where)
            if h["t"][1] not in m.varbit:
                raise Bmv2JsonError(f"{where}: extract_VL of '{a[0]['value']}', which has no varbit field")
            v = a[0]["value"]
            sib = m.siblings(v) if a[0]["type"] == "regular" and isinstance(v, str) else []
            return [{"s": "extract_var", "h": h, "hdr": h["t"][1], "bits": m.num(m.expr(a[1])),
                     **({"siblings": sib} if sib else {})}]
        if kind == "set":
            dst = m.expr(a[0])
            src = a[1]
            if src.get("type") == "lookahead":
                off, w = src["value"]
                val = {"op": "slice", "a": {"op": "lookahead", "bits": off + w, "t": ["bit", off + w]},
                       "lo": 0, "hi": w - 1, "t": ["bit", w]}
            else:
                val = m.num(m.expr(src))
            return [{"s": "assign", "l": dst, "r": cast(val, dst["t"])}]
        if kind == "verify":
            err = m.num(m.expr(a[1]))
            if err["op"] == "const":
                err = const(err["v"], ["error"])
            return [{"s": "verify", "c": m.boolean(m.expr(a[0])), "e": err}]
        if kind == "advance":
            return [{"s": "advance", "bits": m.num(m.expr(a[0]))}]
        if kind == "primitive":
            out = []
            for p in a:
                out += self.prims.prim(p, None, where)
            return out
        raise Bmv2JsonError(f"{where}: parser op {kind!r} is not supported")

    def transition(self, s: dict, names: dict, where: str) -> dict:
        trans = s.get("transitions", [])
        keys, widths = [], []
        for k in s.get("transition_key", []):
            if k["type"] == "lookahead":
                off, w = k["value"]
                e = {"op": "slice", "a": {"op": "lookahead", "bits": off + w, "t": ["bit", off + w]},
                     "lo": 0, "hi": w - 1, "t": ["bit", w]}
            else:
                e = self.m.expr(k)
                if e["t"] == BOOL:
                    e = cast(e, ["bit", 1])
            keys.append(e)
            widths.append(e["t"][1] if e["t"][0] in ("bit", "int") else 32)

        def to(tr):
            n = tr.get("next_state")
            return "accept" if n is None else names[n]
        if not keys:
            if len(trans) != 1 or trans[0].get("type") != "default":
                raise Bmv2JsonError(f"{where}: transitions without a key must be one default")
            return {"kind": "direct", "to": to(trans[0])}
        cases = []
        for tr in trans:
            t = tr.get("type")
            if t == "default":
                cases.append({"keysets": [{"k": "default"}], "to": to(tr)})
                continue
            if t == "parse_vset":
                vs = self.vsets.get(tr.get("value"))
                if vs is None:
                    raise Bmv2JsonError(f"{where}: unknown parser value set {tr.get('value')!r}")
                if tr.get("mask") is not None or sum(widths) != vs["width"]:
                    raise Bmv2JsonError(f"{where}: value set {vs['name']} on a masked key or a key of "
                                        f"{sum(widths)} bits (its bitwidth is {vs['width']})")
                if len(keys) == 1:
                    cases.append({"keysets": [{"k": "vset", "obj": vs["py"]}], "to": to(tr)})
                else:  # the keys' concatenation (a struct value set)
                    cases.append({"keysets": [{"k": "vset", "obj": vs["py"], "widths": widths}] +
                                  [{"k": "default"}] * (len(keys) - 1), "to": to(tr)})
                continue
            if t != "hexstr":
                raise Bmv2JsonError(f"{where}: transition of type {t!r} is not supported")
            if any(str(tr.get(x) or "").startswith("-") for x in ("value", "mask")):   # (p4c's "-0x03"; errs19)
                raise Bmv2JsonError(f"{where}: transition value {tr['value']}: simple_switch dies loading it "
                                    "(Assertion `hexstring[idx] != '-'' failed)")
            want, got = sum((w + 7) // 8 for w in widths), (len(str(tr["value"]).lower().removeprefix("0x")) + 1) // 2
            if want != got:   # (p4c's "0x0" for a bit<0> key alone; helper errs31)
                raise Bmv2JsonError(f"{where}: Parser transition value has incorrect width, expected width is {want} "
                                    f"bytes but actual width is {got} bytes")
            vals = self._split(hexint(tr["value"]), widths)
            masks = self._split(hexint(tr["mask"]), widths) if tr.get("mask") is not None else None
            ks = []
            for i, (v, w) in enumerate(zip(vals, widths)):
                full = (1 << w) - 1
                if masks is None or masks[i] & full == full:
                    ks.append({"k": "value", "v": v & full})
                elif masks[i] & full == 0:
                    ks.append({"k": "mask", "v": 0, "m": 0})
                else:
                    ks.append({"k": "mask", "v": v & masks[i] & full, "m": masks[i] & full})
            cases.append({"keysets": ks, "to": to(tr)})
        return {"kind": "select", "keys": keys, "cases": cases}

    @staticmethod
    def _split(v: int, widths: list) -> list:
        """BMv2 concatenates select keys, each padded to whole bytes, first key first."""
        out = []
        for w in reversed(widths):
            nb = (w + 7) // 8
            out.append(v & ((1 << (8 * nb)) - 1))
            v >>= 8 * nb
        return out[::-1]

    # ------------------------------------------------------- deparser, checksums
    def deparser(self) -> dict:
        ds = self.j.get("deparsers", [])
        if len(ds) != 1:
            raise Bmv2JsonError(f"expected one deparser, found {len(ds)}")
        # p4c puts the deparser's extern calls (`digest(..)`) in `primitives`, which simple_switch
        # runs; they cannot write the headers the deparser emits, so their place among the emits
        # does not matter (a digest there sends nothing: BMv2 learns at the end of ingress only)
        prims = ds[0].get("primitives") or []
        if any(p.get("op") == "modify_field_with_hash_based_offset" for p in prims):
            # simple_switch loads the deparsers before the calculations (elab_load_refusals)
            raise Bmv2JsonError("deparser: a hash there: Invalid reference to object of type 'calculation' "
                                "(simple_switch refuses the JSON)")
        body = self.prims.body(prims, None, "deparser")
        if '"p_meta"' in json.dumps(body):
            # a primitive writing p4c's scalars there (`random(v, 0, 3)`: the deparser's local):
            # the deparser has no meta parameter, a struct of its own holds them (errs27)
            body.insert(0, {"s": "decl", "n": "p_meta", "t": ["struct", META_STRUCT], "init": None})
        for inst in ds[0]["order"]:
            if not isinstance(inst, str):   # (an element at a run-time index: p4c writes an expression)
                raise Bmv2JsonError("deparser: an expression in its order: Json::LogicError: Type is not convertible "
                                    "to string (simple_switch dies loading the JSON)")
            h = self.m.header(inst)
            body.append({"s": "emit", "h": h, "hdr": h["t"][1]})
        return {"name": "deparser", "params": [
            {"name": "packet", "py": "p_packet", "t": ["extern", "packet_out"], "dir": "in"},
            {"name": "hdr", "py": "p_hdr", "t": ["struct", HDR_STRUCT], "dir": "in"}], "locals": [], "body": body}

    def checksums(self, verify: bool) -> list:
        out = []
        for c in self.j.get("checksums", []):
            if not c.get("verify" if verify else "update", False):
                continue
            at = f"checksum '{c['name']}'"
            calc = self.ext.calcs.get(c["calculation"])
            if calc is None:
                raise Bmv2JsonError(f"{at}: unknown calculation '{c['calculation']}'")
            data = self.ext.field_list(calc["input"], at)
            payload = "payload" in data
            data = [d for d in data if d != "payload"]
            if not (isinstance(c["target"], list) and len(c["target"]) == 2):   # (p4c's "0x0000" for a constant;
                # BMv2 indexes it as the field's [header, name]; helper errs31)
                raise Bmv2JsonError(f"{at}: target {c['target']!r} is not a field: Json::LogicError: in "
                                    "Json::Value::operator[](ArrayIndex)const: requires arrayValue")
            tgt = self.m.field(*c["target"])
            cond = self.m.boolean(self.m.expr(c["if_cond"])) if c.get("if_cond") else bool_const(True)
            s = {"c": cond, "data": data, "algo": calc["algo"], "t": tgt["t"], "payload": payload}
            if verify:
                out.append({"s": "verify_checksum", "ck": tgt, **s})
            else:
                out.append({"s": "update_checksum", "l": tgt, **s})
        return out

    # --------------------------------------------------------------- assembly
    def control(self, role: str, body: list, with_sm: bool = True) -> dict:
        params = [{"name": "hdr", "py": "p_hdr", "t": ["struct", HDR_STRUCT], "dir": "inout"},
                  {"name": "meta", "py": "p_meta", "t": ["struct", META_STRUCT], "dir": "inout"}]
        if with_sm:
            params.append({"name": "standard_metadata", "py": "p_standard_metadata",
                           "t": ["struct", SM_STRUCT], "dir": "inout"})
        return {"name": role, "params": params, "locals": [], "body": body}

    def translate(self) -> dict:
        j = self.j
        blocks = {"parser": self.parser(),
                  "verify_checksum": self.control("verify_checksum", self.checksums(True), with_sm=False)}
        pipes = {p["name"]: p for p in j.get("pipelines", [])}
        for role in ("ingress", "egress"):
            if role not in pipes:
                raise Bmv2JsonError(f"no '{role}' pipeline")
            g = ControlGraph(self, pipes[role], role)
            blocks[role] = self.control(role, g.region(pipes[role].get("init_table"), None))
        blocks["compute_checksum"] = self.control("compute_checksum", self.checksums(False), with_sm=False)
        blocks["deparser"] = self.deparser()
        errors = sorted(j.get("errors", []), key=lambda e: e[1])
        if [c for _n, c in errors] != list(range(len(errors))):
            raise Bmv2JsonError("error codes are not 0..n-1")
        field_lists = {}
        for fl in j.get("field_lists", []):
            members = []
            for el in fl.get("elements", []):
                if el.get("type") == "field" and tuple(el["value"]) in self.m.mpy:
                    members.append([META_STRUCT, self.m.mpy[tuple(el["value"])]])
                elif el.get("type") == "field" and el["value"][0] in self.m.instances and \
                        (self.m.instances[el["value"][0]]["header_type"], el["value"][1]) not in self.m.fpy:
                    # (p4c's ["scalars", "<null>"] for a @field_list on a header member of the user
                    # metadata: simple_switch refuses the JSON; helper errs31)
                    raise Bmv2JsonError(f"field list '{fl.get('name')}': No field '{el['value'][1]}' can be found in "
                                        f"header type '{self.m.instances[el['value'][0]]['header_type']}'")
            field_lists[str(fl["id"])] = members
        # every action of the JSON, also those only reachable from the control plane
        for jid in self.actions_json:
            self.action(jid)
        return {
            "format": IR_FORMAT, "program": str(j.get("program", "bmv2")).rsplit("/", 1)[-1] or "bmv2",
            "headers": self.m.ir_headers(), "structs": self.m.ir_structs(),
            "header_fields": {t: [f[0] for f in h["fields"]] for t, h in self.m.ir_headers().items()},
            "errors": [n for n, _c in errors], "enums": {}, "field_lists": field_lists, "blocks": blocks,
            "subcontrols": [], "subparsers": [], "action_profiles": self.profiles,
            "value_sets": list(self.vsets.values()),
            "actions": list(self.actions.values()), "tables": list(self.tables.values()),
            "counters": self.ext.ir["counters"], "registers": self.ext.ir["registers"],
            "meters": self.ext.ir["meters"],
            "direct_counters": [c for c in self.ext.ir["direct_counters"] if c["table_id"] is not None],
            "direct_meters": [{k: v for k, v in d.items() if k != "result_target"}
                              for d in self.ext.ir["direct_meters"] if d["table_id"] is not None],
            "digests": list(self.ext.digests.values()), "functions": [], "controller_headers": {},
        }
