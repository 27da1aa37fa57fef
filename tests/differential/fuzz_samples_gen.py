"""Random table entries and frames for an EXISTING v1model program (p4c's sample programs, the
tutorials, the project's own conformance programs): the generator half of :mod:`fuzz_samples`.

The other generators write their own small programs; this one keeps the program and varies
what a controller and the wire would: :func:`generate` turns (program, seed) into a
:class:`diff_harness.Case` from what real p4c made of the program (its BMv2 JSON and P4Info,
both cached by :func:`diff_harness.compile_p4c`):

* frames -- :class:`ParserModel` reads the JSON's parser graph (header types and field widths,
  states, extracts of headers and stack elements, ``advance``, select keys: header fields,
  stack ``last`` fields, lookaheads) and :meth:`ParserModel.frame` walks one random path from
  the start state: every extracted header gets random field values, and before the next state
  is picked the select key's bits in the frame are set to a chosen transition's value (masked
  values honoured; sometimes a value no case lists).  A key it cannot place (metadata, an
  expression) is left random, so the path simply goes where the bits lead.  Frames end with
  random payload, and some are cut mid-header.  A program with an ``.stf`` also gets its STF
  frames, mutated (bit flips in the first 64 bytes, cut, extended).
* entries -- for every table the control plane may write (no const entries, no action
  profile or selector), a few entries from the P4Info: exact/lpm/ternary/range/optional keys
  whose values are often taken from the frames' own field values (the JSON's table keys say
  which header field a key reads), priorities, actions and parameters (a parameter that names
  a port gets 0-7, a group or session 1-3); sometimes a new default action.  Multicast groups
  and clone sessions (1-3 and the constants the program uses) when it multicasts or clones.
* skips -- a program that reads queue state (``enq_qdepth``, ``deq_qdepth``,
  ``deq_timedelta``) differs from run to run on BMv2 itself, and one that reads a timestamp
  differs between any two switches: :func:`skip_reason` names it.  One that calls ``random()``
  over a range (:func:`draws_random`) runs, but each switch draws from its own generator, so
  :func:`fuzz_samples.judge` calls its differences RANDOM, not ours.
"""
from __future__ import annotations

import copy
import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

from p4.config.v1.p4info_pb2 import MatchField

from controller.entities import Entry
from diff_harness import Case, compile_p4c
from switch.runtime.tables import lpm_mask

EXACT, LPM, TERNARY, RANGE, OPTIONAL = (MatchField.EXACT, MatchField.LPM, MatchField.TERNARY, MatchField.RANGE,
                                        MatchField.OPTIONAL)

NONDETERMINISTIC = ("enq_qdepth", "deq_qdepth", "deq_timedelta")
CLOCK = ("enq_timestamp", "ingress_global_timestamp", "egress_global_timestamp")
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
_CLONE_OPS = {"clone_ingress_pkt_to_egress", "clone_egress_pkt_to_egress"}


# ------------------------------------------------------------------------------ the program
def inline_includes(path: Path, seen: frozenset = frozenset()) -> str:
    """The program's text with its ``#include "local.p4"`` files pasted in (a Case is one file)."""
    text = path.read_text(encoding="utf-8", errors="replace")

    def sub(m):
        inc = (path.parent / m.group(1)).resolve()
        if not inc.is_file() or inc in seen:
            return m.group(0)
        return inline_includes(inc, seen | {inc})
    return _INCLUDE.sub(sub, text)


def case_name(path: Path) -> str:
    return "fzs_" + re.sub(r"[^A-Za-z0-9_]", "_", f"{path.parent.name}_{path.stem}")[:80]


def base_case(path: Path) -> Case:
    return Case(case_name(path), "fuzz-samples", inline_includes(path), note=str(path))


def skip_reason(bmv2_json: dict) -> str | None:
    text = "".join(json.dumps(bmv2_json.get(k, [])) for k in ("pipelines", "parsers", "actions", "deparsers"))
    used = [f for f in NONDETERMINISTIC if f'"standard_metadata", "{f}"' in text]
    if used:
        return f"reads queue state ({', '.join(used)}): BMv2's own runs differ"
    # a timestamp lands in a register or a header (tutorials/link_monitor.p4): two switches'
    # clocks never agree on it
    used = [f for f in CLOCK if f'"standard_metadata", "{f}"' in text]
    return f"reads the clock ({', '.join(used)})" if used else None


def draws_random(bmv2_json: dict) -> bool:
    """Whether an action calls ``random(x, lo, hi)`` with ``lo != hi`` (BMv2's
    ``modify_field_rng_uniform``; ``random(x, 7, 7)`` is a constant)."""
    return any(p.get("op") == "modify_field_rng_uniform" and p["parameters"][1] != p["parameters"][2]
               for a in bmv2_json.get("actions", []) for p in a.get("primitives", []))


# ------------------------------------------------------------------------------- the parser
@dataclass
class Frame:
    bits: list = field(default_factory=list)        # 0/1 per bit
    pos: int = 0                                    # parse cursor (bits)
    at: dict = field(default_factory=dict)          # header instance -> start bit (latest)
    emitted: list = field(default_factory=list)     # (header, start bit, [(field, width)])
    loc: dict = field(default_factory=dict)         # (header, field) set from packet bits -> (start, width)

    def need(self, upto: int, rng) -> None:
        while len(self.bits) < upto:
            self.bits.append(rng.getrandbits(1))

    def put(self, start: int, width: int, value: int, rng) -> None:
        self.need(start + width, rng)
        for i in range(width):
            self.bits[start + i] = (value >> (width - 1 - i)) & 1

    def get(self, start: int, width: int) -> int:
        v = 0
        for b in self.bits[start:start + width]:
            v = (v << 1) | b
        return v

    def values(self) -> dict:
        """(header, field) -> [values] as the frame finally carries them (the entry pool)."""
        out: dict = {}
        for h, start, fields in self.emitted:
            for n, w in fields:
                if start + w <= len(self.bits):
                    out.setdefault((h, n), []).append(self.get(start, w))
                start += w
        return out

    def data(self) -> bytes:
        bits = self.bits + [0] * (-len(self.bits) % 8)
        return bytes(int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8))


class ParserModel:
    """The parser graph of p4c's BMv2 JSON, enough to build frames that walk it."""

    def __init__(self, j: dict):
        self.types = {t["name"]: t for t in j.get("header_types", [])}
        self.headers = {h["name"]: h for h in j.get("headers", [])}
        by_id = {h["id"]: h["name"] for h in j.get("headers", [])}
        self.stacks = {s["name"]: [by_id[i] for i in s.get("header_ids", [])] for s in j.get("header_stacks", [])}
        p = (j.get("parsers") or [{}])[0]
        self.states = {s["name"]: s for s in p.get("parse_states", [])}
        self.init = p.get("init_state")
        # values the program's own table entries match on: frames carry them now and then
        self.known: dict = {}
        for pipe in j.get("pipelines", []):
            for t in pipe.get("tables", []):
                keys = t.get("key", [])
                for e in t.get("entries", []):
                    for k, m in zip(keys, e.get("match_key", [])):
                        v = m.get("key", m.get("start"))
                        if isinstance(k.get("target"), list) and len(k["target"]) == 2 and isinstance(v, str):
                            self.known.setdefault(tuple(k["target"]), set()).add(int(v, 16))

    def fields(self, header: str) -> list[tuple[str, object]]:
        return [(f[0], f[1]) for f in self.types[self.headers[header]["header_type"]]["fields"]]

    def offset(self, header: str, fname: str) -> tuple[int, int] | None:
        off = 0
        for n, w in self.fields(header):
            if not isinstance(w, int):
                return None
            if n == fname:
                return off, w
            off += w
        return None

    def emit(self, fr: Frame, header: str, rng, varbit_bytes: int = 0) -> None:
        fr.at[header] = start = fr.pos
        fields = []
        for n, w in self.fields(header):
            if not isinstance(w, int):   # varbit: some whole bytes, up to its maximum
                mx = self.types[self.headers[header]["header_type"]].get("max_length", 0)
                w = 8 * min(varbit_bytes, mx)
            fields.append((n, w))
            fr.pos += w
        fr.need(fr.pos, rng)
        fr.emitted.append((header, start, fields))
        for n, w in fields:
            if (header, n) in self.known and w and rng.random() < 0.6:
                fr.put(start, w, rng.choice(sorted(self.known[header, n])) & ((1 << w) - 1), rng)
            start += w

    def frame(self, rng: random.Random, stacks_done: dict | None = None) -> Frame:
        fr, state, steps, nxt = Frame(), self.init, 0, {}
        last: dict = {}                                  # stack -> element extracted last
        while state is not None and state in self.states and steps < 40:
            steps += 1
            st = self.states[state]
            for op in st.get("parser_ops", []):
                if not self._op(fr, op, rng, nxt, last):
                    return fr
            state = self._choose(fr, st, rng, last)
        return fr

    def _op(self, fr, op, rng, nxt, last) -> bool:
        kind, params = op.get("op"), op.get("parameters", [])
        if kind in ("extract", "extract_VL") and params:
            p = params[0]
            if not isinstance(p.get("value"), str):
                return False                            # a run-time stack index ...: stop here
            if p["type"] == "regular" and p["value"] in self.headers:
                h = p["value"]
            elif p["type"] == "stack" and p["value"] in self.stacks:
                elems, i = self.stacks[p["value"]], nxt.get(p["value"], 0)
                if i >= len(elems):
                    return False                        # overflow: BMv2 ends in an error
                nxt[p["value"]] = i + 1
                h = last[p["value"]] = elems[i]
            else:
                return False                            # union stacks ...: stop the walk here
            self.emit(fr, h, rng, rng.choice([0, 0, 1, 2, 4, 8, 20]))
        elif kind == "set" and len(params) == 2 and params[0].get("type") == "field":
            self._track(fr, tuple(params[0]["value"]), params[1])
        elif kind == "advance" and params and params[0].get("type") == "hexstr":
            n = int(params[0]["value"], 16)
            fr.need(fr.pos + n, rng)
            fr.pos += n
        return True

    def field_width(self, ref) -> int | None:
        h = self.headers.get(ref[0])
        if h is None:
            return None
        w = next((f[1] for f in self.types[h["header_type"]]["fields"] if f[0] == ref[1]), None)
        return w if isinstance(w, int) else None

    def _track(self, fr, dst, src) -> None:
        """Where the bits of a field set in the parser came from: a lookahead, another such field,
        or ``(field >> k) & mask`` of one (how p4c writes ``lookahead<T>().f`` and slices)."""
        fr.loc.pop(dst, None)
        wd = self.field_width(dst)
        t, v = src.get("type"), src.get("value")
        shift, mask = 0, None
        while t == "expression":
            if not isinstance(v, dict):
                return
            if v.get("type") == "expression":          # one more wrapper
                t, v = "expression", v.get("value")
                continue
            op, left, right = v.get("op"), v.get("left") or {}, v.get("right") or {}
            if op == ">>" and right.get("type") == "hexstr":
                shift += int(right["value"], 16)
            elif op == "&" and right.get("type") == "hexstr":
                m = int(right["value"], 16)
                mask = m if mask is None else mask & m
            else:
                return
            t, v = left.get("type"), left.get("value")
        if t == "lookahead":
            base = (fr.pos + v[0], v[1])
        elif t == "field":
            ref = tuple(v)
            if ref in fr.loc:
                base = fr.loc[ref]
            elif ref[0] in fr.at and (o := self.offset(ref[0], ref[1])):
                base = (fr.at[ref[0]] + o[0], o[1])
            else:
                return
        else:
            return
        w = wd or base[1]
        if mask is not None:
            w = min(w, mask.bit_length())
        if shift + w > base[1] or w <= 0:
            return
        fr.loc[dst] = (base[0] + base[1] - shift - w, w)

    def _key(self, fr, k, last) -> tuple[int, int] | None:
        """(start bit, width) of one select-key component in the frame, or None."""
        t, v = k.get("type"), k.get("value")
        if t == "lookahead":
            return fr.pos + v[0], v[1]
        if t == "stack_field" and v[0] in last:
            t, v = "field", [last[v[0]], v[1]]
        if t == "field" and tuple(v) in fr.loc:
            return fr.loc[tuple(v)]
        if t == "field" and v[0] in fr.at:
            o = self.offset(v[0], v[1])
            return (fr.at[v[0]] + o[0], o[1]) if o else None
        return None

    def _width(self, k, last) -> int | None:
        t, v = k.get("type"), k.get("value")
        if t == "lookahead":
            return v[1]
        if t == "stack_field" and v[0] in self.stacks:
            v = [self.stacks[v[0]][0], v[1]]
            t = "field"
        if t == "field" and v[0] in self.headers:
            return self.field_width(v)
        return None

    def _choose(self, fr, st, rng, last):
        trans = st.get("transitions", [])
        if not trans:
            return None
        keys = st.get("transition_key", [])
        cases = [t for t in trans if t["type"] == "hexstr"]
        dflt = next((t for t in trans if t["type"] == "default"), None)
        pick = rng.choice(cases) if cases and rng.random() < 0.85 else None
        if pick is None:     # default, or a value that is probably in no case
            target = dflt["next_state"] if dflt else None
            if rng.random() < 0.5 or not keys:
                return target
        widths = [self._width(k, last) for k in keys]
        if pick is not None and all(w is not None for w in widths):
            raw = bytes.fromhex(pick["value"][2:].rjust(2 * sum((w + 7) // 8 for w in widths), "0"))
            mask = bytes.fromhex(pick["mask"][2:].rjust(len(raw) * 2, "0")) if pick.get("mask") else None
            o = 0
            for k, w in zip(keys, widths):
                n = (w + 7) // 8
                val = int.from_bytes(raw[o:o + n], "big")
                if mask is not None:
                    m = int.from_bytes(mask[o:o + n], "big")
                    val = (val & m) | (rng.getrandbits(8 * n) & ~m)
                o += n
                loc = self._key(fr, k, last)
                if loc is not None:
                    fr.put(loc[0], loc[1], val & ((1 << loc[1]) - 1), rng)
            return pick["next_state"]
        for k in keys:         # no case picked: random key bits
            loc = self._key(fr, k, last)
            if loc is not None:
                fr.put(loc[0], loc[1], rng.getrandbits(loc[1]), rng)
        return pick["next_state"] if pick is not None else (dflt["next_state"] if dflt else None)


def finish(fr: Frame, rng: random.Random) -> tuple[bytes, bool]:
    """The walked bits as a frame: random payload after, or cut mid-header (never empty);
    whether it was cut."""
    data = fr.data()
    r = rng.random()
    if r < 0.15 and len(data) > 1:
        return data[:rng.randint(1, len(data) - 1)], True
    n = rng.choice([0, 0, 4, 16, 46, rng.randint(0, 120)]) if r < 0.95 else rng.randint(200, 600)
    data += bytes(rng.getrandbits(8) for _ in range(n))
    return data or b"\x00", not data


def mutate(frame: bytes, rng: random.Random) -> tuple[bytes, bool]:
    """One STF frame, changed: bit flips in the first 64 bytes, cut or extended; whether cut."""
    b = bytearray(frame)
    for _ in range(rng.randint(1, 3)):
        if b:
            i = rng.randrange(min(64, len(b)))
            b[i] ^= 1 << rng.randrange(8)
    r = rng.random()
    if r < 0.25 and len(b) > 1:
        del b[rng.randint(1, len(b) - 1):]
        return bytes(b), True
    if r < 0.5:
        b += bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 40)))
    return bytes(b), False


# ------------------------------------------------------------------------------ the entries
def _table_keys(j: dict) -> dict:
    """table name -> {key name: (header, field)} from the JSON (which field a key reads)."""
    out = {}
    for pipe in j.get("pipelines", []):
        for t in pipe.get("tables", []):
            out[t["name"]] = {k.get("name", ""): tuple(k["target"]) for k in t.get("key", [])
                              if isinstance(k.get("target"), list) and len(k["target"]) == 2}
    return out


def _key_masks(j: dict) -> dict:
    """table name -> {key name: the JSON key's ``mask``} (p4c's ``field & constant`` keys): BMv2
    ANDs every entry's value with it, so two entries equal under it are one key (DUPLICATE_ENTRY,
    which ends the case: diffcase program keys39_masked_standard_metadata_keys_..., seed 134)."""
    out = {}
    for pipe in j.get("pipelines", []):
        for t in pipe.get("tables", []):
            ms = {k.get("name", ""): int(k["mask"], 16) for k in t.get("key", []) if k.get("mask")}
            if ms:
                out[t["name"]] = ms
    return out


def _constants(j: dict) -> tuple[set, set]:
    """(multicast groups, clone sessions) the program writes as constants."""
    groups, sessions = set(), set()

    def walk(prims):
        for p in prims:
            params = p.get("parameters", [])
            if p.get("op") in _CLONE_OPS and params and params[0].get("type") == "hexstr":
                sessions.add(int(params[0]["value"], 16))
            if (p.get("op") == "assign" and len(params) == 2 and params[0].get("value") == ["standard_metadata", "mcast_grp"]
                    and params[1].get("type") == "hexstr"):
                groups.add(int(params[1]["value"], 16))
    for a in j.get("actions", []):
        walk(a.get("primitives", []))
    return {g for g in groups if 0 < g < 4096}, {s for s in sessions if 0 < s < 512}


class EntryMaker:
    """Random writes for the tables of one program (see the module docstring)."""

    def __init__(self, p4info, j: dict, pool: dict, rng: random.Random):
        self.info, self.rng, self.pool = p4info, rng, pool
        self.actions = {a.preamble.id: a for a in p4info.actions}
        self.keys = _table_keys(j)
        self.masks = _key_masks(j)
        # a table with initial entries is full on BMv2 (p4c sizes it to them): no INSERTs
        self.full = {t["name"] for pipe in j.get("pipelines", []) for t in pipe.get("tables", []) if t.get("entries")}
        # a P4Info table p4c's mid end removed from the JSON (applied only in a folded branch): BMv2
        # refuses every INSERT (UNKNOWN, which ends the case), checkmate-switch too (p4rt_server.writes)
        self.in_json = {t["name"] for pipe in j.get("pipelines", []) for t in pipe.get("tables", [])}
        self.by_width: dict = {}
        for (h, f), vals in pool.items():
            for v in vals:
                self.by_width.setdefault(v.bit_length(), []).append(v)

    def value(self, width: int, target) -> int:
        r, mask = self.rng, (1 << width) - 1
        vals = self.pool.get(target) if target else None
        x = r.random()
        if vals and x < 0.7:
            return r.choice(vals) & mask
        if x < 0.85:
            return r.choice([0, 1, 2, mask, r.randint(0, 7)]) & mask
        return r.getrandbits(width)

    def param(self, name: str, width: int) -> int:
        r, low = self.rng, name.lower()
        if "port" in low or width == 9:
            return r.choice([0, 1, 2, 3, 4, 5, 6, 7, r.randint(0, 7)])
        if any(s in low for s in ("grp", "group", "mcast", "session", "clone", "mirror")):
            return r.randint(1, 3) & ((1 << width) - 1)
        return self.value(width, None)

    def match(self, t, f) -> object:
        """One key value in Entry's form, or None (a ternary/optional/range don't-care)."""
        r, w = self.rng, f.bitwidth
        target = self.keys.get(t.preamble.name, {}).get(f.name)
        v = self.value(w, target)
        kind = f.match_type
        if kind == EXACT:
            return v
        if kind == LPM:   # (BMv2 counts the prefix from the top of the byte container: lpm_mask)
            plen = r.choice([w, w, r.randint(0, w), max(w - 8, 0)])
            return (v & lpm_mask(w, plen), plen)
        if kind == TERNARY:
            m = r.choice([(1 << w) - 1, (1 << w) - 1, r.getrandbits(w), ((1 << w) - 1) ^ ((1 << (w // 2)) - 1), 0])
            return (v & m, m) if m else None
        if kind == RANGE:
            lo, hi = sorted((v, self.value(w, target)))
            if r.random() < 0.5:
                lo, hi = max(0, v - r.randint(0, 3)), min((1 << w) - 1, v + r.randint(0, 3))
            return None if (lo, hi) == (0, (1 << w) - 1) else (lo, hi)
        if kind == OPTIONAL:
            return v if r.random() < 0.7 else None
        raise ValueError(kind)

    def action(self, ref_ids) -> tuple[str, dict] | None:
        if not ref_ids:
            return None
        a = self.actions[self.rng.choice(ref_ids)]
        return a.preamble.name, {p.name: self.param(p.name, p.bitwidth) for p in a.params}

    def table(self, t) -> tuple[list, list]:
        """(entries, default changes) for one table; none for what the control plane cannot write."""
        from p4.config.v1 import p4info_pb2 as pb
        r = self.rng
        if t.preamble.name not in self.in_json or t.implementation_id or any(f.match_type not in (EXACT, LPM, TERNARY, RANGE, OPTIONAL) or f.bitwidth == 0 for f in t.match_fields):
            return [], []
        # a @hidden action a table lists is in its action_refs but not in P4Info's actions
        # (diffcase fe_hidden_actions): a controller cannot name it
        refs = [a for a in t.action_refs if a.id in self.actions]
        in_table = [a.id for a in refs if a.scope != pb.ActionRef.DEFAULT_ONLY]
        as_default = [a.id for a in refs if a.scope != pb.ActionRef.TABLE_ONLY]
        prio = any(f.match_type in (TERNARY, RANGE, OPTIONAL) for f in t.match_fields)
        entries, seen = [], set()
        if not t.is_const_table and t.match_fields and t.preamble.name not in self.full:
            for _ in range(r.choice([0, 1, 2, 3, 4, 6])):
                if len(entries) >= max(1, min(t.size or 1024, 64)):
                    break
                act = self.action(in_table)
                if act is None:
                    break
                match = {}
                for f in t.match_fields:
                    m = self.match(t, f)
                    if m is not None:
                        match[f.name] = m
                p = r.randint(1, 12) if prio else 0
                key = (_canonical_key(match, t, self.masks.get(t.preamble.name)), p)
                if key in seen:
                    continue
                seen.add(key)
                entries.append(Entry(t.preamble.name, match, act[0], act[1], p))
        defaults = []
        if not t.const_default_action_id and as_default and r.random() < 0.3:
            act = self.action(as_default)
            defaults.append(Entry(t.preamble.name, {}, act[0], act[1], is_default=True))
        return entries, defaults


def _canonical_key(match: dict, t, masks: dict | None = None) -> tuple:
    """The match as the switch will store it (lpm/ternary values masked; an exact, ternary or
    optional value also by its key's JSON ``mask``: :func:`_key_masks`), to avoid duplicates."""
    out = []
    widths = {f.name: f.bitwidth for f in t.match_fields}
    for name, v in sorted(match.items()):
        w = widths[name]
        km = (masks or {}).get(name)
        if km is not None and isinstance(v, int):
            v = v & km
        elif km is not None and isinstance(v, tuple) and any(
                f.name == name and f.match_type == TERNARY for f in t.match_fields):
            v = (v[0] & km & v[1], v[1])
        if isinstance(v, tuple) and len(v) == 2 and name and any(
                f.name == name and f.match_type == LPM for f in t.match_fields):
            pl = v[1]
            m = lpm_mask(w, pl)
            if pl == 0:
                continue
            v = (v[0] & m, pl)
        out.append((name, v))
    return tuple(out)


# ------------------------------------------------------------------------------- one case
@dataclass
class Program:
    """One program file, read once: its base case, p4c's outputs, why it is skipped (if so)."""

    path: Path
    case: Case
    p4info: object = None
    json: dict | None = None
    stf: list = field(default_factory=list)          # STF frames [(port, bytes)]
    skip: str = ""
    random: bool = False                             # draws_random: differences are RANDOM


def load(path: Path) -> Program:
    path = Path(path)
    prog = Program(path, base_case(path))
    ref = compile_p4c(prog.case)
    if isinstance(ref, str):
        prog.skip = "p4c rejects"
        return prog
    prog.p4info, prog.json = ref.p4info, json.loads(ref.device_config)
    prog.skip = skip_reason(prog.json) or ""
    prog.random = draws_random(prog.json)
    stf = path.with_suffix(".stf")
    if stf.is_file():
        from stf import StfError, parse_stf
        try:
            prog.stf = [(c.port, c.data) for c in parse_stf(stf.read_text(errors="replace"), str(stf))
                        if c.kind == "packet"]
        except StfError:
            pass
    return prog


def generate(prog: Program, seed: int) -> Case:
    """The case of one (program, seed): same program, random frames and writes (deterministic)."""
    rng = random.Random(f"{prog.path.name}/{seed}")
    base = prog.case
    case = Case(base.name, base.category, base.source, note=f"{prog.path} seed {seed}")
    model = ParserModel(prog.json)
    pool: dict = {}
    frames = []          # (port, data, cut)
    for _ in range(rng.randint(5, 10)):
        fr = model.frame(rng)
        for k, v in fr.values().items():
            pool.setdefault(k, []).extend(v)
        frames.append((rng.choice([0, 0, 1, 2, 3, 4, 5, 6, 7]), *finish(fr, rng)))
    for port, data in rng.sample(prog.stf, min(len(prog.stf), 4)):
        frames.append((port, data, False))
        frames.append((port, *mutate(data, rng)))
    rng.shuffle(frames)
    case.frames = [(p, d) for p, d, _ in frames]
    case.cut = {i for i, f in enumerate(frames) if f[2]}   # see without_cut_frames
    # registers carry state from frame to frame, and BMv2 runs one frame's egress alongside the
    # next one's ingress: one at a time, or BMv2 disagrees with itself
    case.one_by_one = bool(prog.json.get("register_arrays"))
    em = EntryMaker(prog.p4info, prog.json, pool, rng)
    for t in prog.p4info.tables:
        e, d = em.table(t)
        case.entries += e
        case.defaults += d
    groups, sessions = _constants(prog.json)
    src = base.source
    ports = list(range(8))
    if "mcast_grp" in src or groups:
        for g in sorted(groups | {1, 2, 3}):
            case.mcast[g] = [(p, rng.randint(0, 3)) for p in sorted(rng.sample(ports, rng.randint(1, 3)))]
    if "clone" in src or sessions:
        for s in sorted(sessions | {1, 2, 3}):
            case.clones[s] = ([(rng.choice(ports), rng.randint(0, 2))], 0)
    return case


def without_cut_frames(case: Case) -> Case | None:
    """The case without its frames cut mid-header (None when it has none).  A cut frame leaves
    headers invalid, and a program that then reads or writes their fields gets whatever the
    packet buffer BMv2 reuses held (the packet before's values, timing-dependent): a
    difference that goes away without the cut frames is that, not a finding."""
    cut = getattr(case, "cut", set())
    if not cut:
        return None
    c = copy.copy(case)
    c.frames = [f for i, f in enumerate(case.frames) if i not in cut]
    c.cut = set()
    return c
