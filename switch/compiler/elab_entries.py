"""Table entries: ``entries``/``const entries`` keysets matched against the keys (values, masks,
ranges, ``_``/``default``), p4c's priority numbering and ``@priority``, and the entries of a table
whose selector keys p4c drops.

A mixin of :class:`switch.compiler.elaborate.Elaborator` (through ``TableRules``): ``self`` holds
the program-wide tables and the current block context ``self.ctx``.
"""
from __future__ import annotations

from .ast import Node
from .elab_common import E, expr_text, INTLIT, tstr


class EntryRules:
    def entry_match(self, kn: Node, kdef: dict, scope, q):
        w = kdef["width"]
        # a signed key takes int<W> values (p4c: `8w1` for an int<8> key is a type error)
        signed = bool(kdef.get("signed"))
        t = ["int" if signed else "bit", w]
        if kdef.get("newtype") and not signed and kdef["newtype"] in self.newtypes:
            t = ["bit", w, kdef["newtype"]]   # a `type` key: entries give that type's values ((pt_t)9w1)
            if kn.kind not in ("default", "dontcare", "mask", "range") and self.expr(kn, scope)[1] == INTLIT:
                raise E(kn.loc, f"table {q}: entry value {expr_text(kn)} for key {kdef['name']} of type "
                                f"{kdef['newtype']}: cannot cast implicitly to {kdef['newtype']} (p4c; write "
                                f"({kdef['newtype']})...)")
        kind = kdef["match"]
        if kind not in ("exact", "lpm", "ternary", "range", "optional"):
            raise E(kn.loc, f"table {q}: an entry cannot match key {kdef['name']} of match kind {kind} "
                            "(not supported by the embedded target)")
        if kn.kind in ("default", "dontcare"):
            if kind == "exact":
                raise E(kn.loc, f"table {q}: exact key {kdef['name']} cannot be a wildcard")
            if kind == "range" and w >= 32:
                # p4c 1.2.4.8 writes a wildcard range as 0 .. (1 << (w % 32)) - 1 (its mask is
                # shifted as a 32-bit int, measured): for 32 bits and wider the entry matches only
                # that range on BMv2 (bit<32>: only 0)
                return {"id": kdef["id"], "kind": "range", "value": 0, "high": (1 << (w % 32)) - 1}
            return None
        if kdef.get("error") and kn.kind not in ("mask", "range"):
            et = self.expr(kn, scope)[1]
            if et != ["error"]:   # an `error` key (p4c keeps it, as a 32-bit field): error values only
                raise E(kn.loc, f"table {q}: entry value of type {tstr(et)} for key {kdef['name']} of type error")
        if kdef.get("bool"):  # a bool key matches bool constants (as bit<1> underneath)
            if kind != "exact":
                # p4c 1.2.4.8's BMv2 backend takes only `_` for a bool key that is not exact
                raise E(kn.loc, f"table {q}: {expr_text(kn)}: unsupported {kind} key expression "
                                f"(key {kdef['name']} is a bool; p4c accepts only _ here)")
            ks = self.keyset(kn, ["bool"], scope)
            if ks["k"] == "value":
                ks = dict(ks, v=int(bool(ks["v"])))
        elif kdef.get("plain_enum"):
            # a plain enum key takes its members only (the table's error, the enum's width at its
            # declaration, comes where the table is kept: elab_tables; errs62 b_en_enum_key, en_*)
            ir, et = self.expr(kn, scope) if kn.kind not in ("mask", "range") else (None, None)
            if et != ["enum", kdef["plain_enum"]]:
                raise E(kn.loc, f"table {q}: entry value {expr_text(kn)} for key {kdef['name']} of type "
                                f"{kdef['plain_enum']} (p4c: type error 'Entry')")
            ks = {"k": "value", "v": self.fold(ir)}
        else:
            ks = self.keyset(kn, t, scope)
        neg = [v if v < 0 else v - (1 << w) for k, v in ks.items() if signed and k in ("v", "m", "lo", "hi")
               and isinstance(v, int) and (v < 0 or v >= 1 << (w - 1))]   # (0xf0 is -16 as an int<8>)
        if neg:   # p4c's P4Runtime serializer (a const entry's value, mask or bound of a signed key)
            raise E(kn.loc, f"table {q}: {neg[0]}: negative values are not supported in a const entry "
                            "(p4c: Negative values not supported yet)")
        if signed:   # (two's complement in the key's width)
            ks = {k: v & ((1 << w) - 1) if k in ("v", "m", "lo", "hi") and isinstance(v, int) else v for k, v in ks.items()}
        full = (1 << w) - 1
        if ks["k"] == "mask" and kind in ("range", "optional", "exact") and ks["m"] & full == full:
            # p4c's BMv2 back end takes `v &&& m` whose mask covers the key's width as the value v
            # on a range, optional or exact key (range v..v; any other mask: "unsupported range key
            # expression"; mutz18, p4c_mutate seed 37; exact: helper mutz29, seed 701)
            ks = {"k": "value", "v": ks["v"]}
        if ks["k"] == "range" and kind != "range" and ks["lo"] & full == ks["hi"] & full:
            # and a range of one value (`2 .. 2`, `0x1ff .. 0xff` on a bit<8>) as that value on a key
            # of any kind (any other range: "invalid key expression"; helper mutz29, seed 701)
            ks = {"k": "value", "v": ks["lo"]}
        if ks["k"] == "value":
            v = ks["v"] & ((1 << w) - 1)
            if kind == "lpm":
                return {"id": kdef["id"], "kind": "lpm", "value": v, "prefix_len": w}
            if kind == "ternary":
                return {"id": kdef["id"], "kind": "ternary", "value": v, "mask": (1 << w) - 1}
            if kind == "range":
                return {"id": kdef["id"], "kind": "range", "value": v, "high": v}
            return {"id": kdef["id"], "kind": kind, "value": v}
        if ks["k"] == "mask":
            if kind == "ternary":
                return {"id": kdef["id"], "kind": "ternary", "value": ks["v"], "mask": ks["m"]}
            if kind == "lpm":
                m = ks["m"]
                plen = bin(m).count("1")
                if m != ((1 << plen) - 1) << (w - plen):
                    raise E(kn.loc, f"table {q}: lpm mask {m:#x} is not a prefix")
                # p4c's JSON keeps the bits past the prefix (`0x11 &&& 0xf0`: key 0x11, /4) and BMv2
                # reads them back so; its trie, and the runtime's lookup (tables._canonical), compare
                # the prefix only (helper p4rt39)
                raw = self.fold(self.coerce(self.expr(kn.value, scope), t[2] if t[0] == "serenum" else t, kn.loc))
                v = ks["v"] | (raw & full & ~m) if isinstance(raw, int) else ks["v"]
                return {"id": kdef["id"], "kind": "lpm", "value": v, "prefix_len": plen}
            raise E(kn.loc, f"table {q}: a mask on a {kind} key (p4c: {expr_text(kn)}: unsupported {kind} key "
                            "expression)")
        if ks["k"] == "range":
            if kind != "range":
                raise E(kn.loc, f"table {q}: a range on a {kind} key")
            if ks["lo"] > ks["hi"]:
                raise E(kn.loc, f"table {q}: invalid range {ks['lo']} .. {ks['hi']} for table entry "
                                "(low bound above high bound)")
            return {"id": kdef["id"], "kind": "range", "value": ks["lo"], "high": ks["hi"]}
        return None

    def dropped_selector_entries(self, entries, total: int, dropped_at: list, key_loc, q: str) -> None:
        """Entries of a table whose selector keys p4c drops (no action_selector): its type checker
        counts those keys in every keyset (a size error at the entry, p4c's first); then its P4Runtime
        serializer refuses a value given for one (no position: named at the key), and with only
        `_`/`default` there the BMv2 back end refuses the first of them (probes /work/corpus25/probe_sel)."""
        sets = []
        for en in entries:
            ks = en.keysets
            if len(ks) == 1 and ks[0].kind == "list" and len(ks[0].items) == total:
                ks = ks[0].items
            if len(ks) != total:
                raise E(en.loc, f"table {q}: Size of entry keyset must match the table key set size "
                                f"({len(ks)} keys, the table has {total} with its selector keys)")
            sets.append([ks[i] for i in dropped_at])
        if any(k.kind not in ("default", "dontcare") for ks in sets for k in ks):
            raise E(key_loc, f"table {q}: an entry of a table with a selector key but no action_selector "
                             "(p4c: selector: match type not supported by P4Runtime serializer)")
        raise E(sets[0][0].loc, f"table {q}: unknown key match type 'selector' for key DefaultExpression (p4c)")

    def check_entry_priorities(self, ent_node, keys, props, largest_wins: bool, q: str) -> None:
        """p4c's numbering of ``entries`` once some entry gives ``priority=``: the first entry
        must give one too, and each later entry without one gets the previous priority minus
        ``priority_delta`` (plus, with ``largest_priority_wins = false``); p4c 1.2.4.8 refuses
        the table when that value drops below the delta or passes 2**32-1 (measured)."""
        ents = ent_node.entries
        if not any(en.priority is not None for en in ents) or \
                not any(k["match"] in ("ternary", "range", "optional") for k in keys):
            return
        if ents[0].priority is None:
            raise E(ents[0].loc, f"table {q}: this entry must have a priority (p4c: once an entry gives "
                                 "`priority=`, the first entry must give one too)")
        delta = 1
        if "priority_delta" in props:
            delta = self.const_int(props["priority_delta"].value, f"table {q} priority_delta", minimum=0)
        cur = 0
        for en in ents:
            if en.priority is not None:
                cur = self.entry_priority_value(en)
                continue
            cur = cur - delta if largest_wins else cur + delta
            if cur < delta if largest_wins else cur > 0xFFFFFFFF:
                raise E(en.loc, f"table {q}: overflow in priority computation: this entry's priority "
                                f"would be {cur} (the previous one {'minus' if largest_wins else 'plus'} "
                                f"priority_delta {delta}; p4c)")

    def entry_priority_value(self, en) -> int:
        """An entry's ``priority=N``: at least 1, and at most INT_MAX (p4c 1.2.4.8: "0x80000000: this
        implementation does not support bitstrings this large", also in a table nothing applies;
        helper errs31)."""
        v = self.const_int(en.priority, "entry priority", minimum=1)
        if v > 0x7FFFFFFF:
            raise E(en.priority.loc, f"{v:#x}: this implementation does not support bitstrings this large "
                                     "(p4c: an entry priority past INT_MAX)")
        return v

    def entry_priority_annotation(self, anno, table: str) -> int:
        """``@priority(N)`` on a const entry (p4c: after the action)."""
        _, vals, loc = anno
        try:
            (v,) = vals
            v = int(str(v), 0) if not isinstance(v, int) else v
        except (TypeError, ValueError):
            raise E(loc, f"table {table}: @priority needs one integer argument, got {vals!r}") from None
        if v < 0:   # (@priority(0) compiles, and BMv2 loads it: the highest priority)
            raise E(loc, f"table {table}: @priority({v}): an entry priority cannot be negative")
        return v
