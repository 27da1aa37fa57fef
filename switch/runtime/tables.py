"""Match-action tables of the embedded target: validation and lookup.

One :class:`Table` per P4 table.  The control plane installs :class:`TableEntry`
objects (ids and ints, P4Runtime semantics); each is validated against the table's
key (widths, masks, prefix lengths, ranges, priorities, action ids and parameters)
and stored as an :class:`_Installed` record keyed by its canonical match key and
priority.  The data plane calls :meth:`Table.lookup` with a tuple of key values
and gets ``(action_id, params_tuple, installed_or_None)`` back.

Three lookup strategies, picked from the key's match kinds:

* all ``exact``      -> one dict probe;
* one ``lpm`` + exact -> one dict per prefix length, longest first;
* anything else      -> a list sorted by priority (highest first; among equal priorities the
  lowest entry handle wins), scanned linearly.

A table compiled with ``support_timeout`` ages its entries as BMv2 does: an entry keeps its
idle timeout (whole milliseconds of P4Runtime's ``idle_timeout_ns``) and the time it was last
hit, inserted or modified; :meth:`Table.expired` lists the entries idle for at least their
timeout (the P4Runtime server's ageing sweep, :mod:`switch.p4rt_server.ageing`).

An entry's handle is BMv2's: the lowest number no installed entry holds (one freed by a delete
is reused), so an entry inserted after a delete can come before older ones of the same priority
-- in lookups and in reads, which list entries in handle order (fuzz_p4rt seed 3492).  A direct
meter is an array of BMv2 meters indexed by that handle, which neither a delete nor an insert
resets: an entry inserted without a meter config into a handle freed by a delete runs and reads
back the meter the deleted entry had (its config and state: fuzz_p4rt seed 4690, helper mutz31).

A key p4c writes as ``field & constant`` (its JSON key's ``mask``; :func:`key_mask`): BMv2 ANDs
every entry's value with that mask when it adds the entry (``MatchKeyBuilder::apply_big_mask`` in
each match unit's ``add_entry_``), while PI keeps the key as the client sent it.  So the entry is
matched, and duplicates are found (:class:`TargetRefused`), by its masked key (``_Installed.mkey``),
and changed or deleted by the sent one; a read that reaches an entry whose two keys differ fails
(:meth:`Table.read_key`, :class:`OutOfSync`: PI cannot map the target's key back; probed on
simple_switch_grpc 1.15.5, tests/differential/test_p4rt_p4rt38.py).
"""
from __future__ import annotations

import heapq
import time
from dataclasses import dataclass, field

from .entries import CounterData, FieldMatch, TableEntry, unit_write
from .errors import EntryExists, EntryNotFound, InvalidEntry, OutOfSync, TargetRefused


def lpm_mask(width: int, plen: int) -> int:
    """The field bits BMv2 compares for an lpm prefix: it counts the prefix from the top of the
    field's byte container, so a field that is not whole bytes loses its padding from it."""
    cmp = max(0, plen - (-width % 8))
    return ((1 << cmp) - 1) << (width - cmp)

_NEEDS_PRIORITY = {"ternary", "range", "optional"}


@dataclass
class KeySpec:
    """One key field of a table, as in P4Info (id, name, match kind, width)."""

    id: int
    name: str
    match: str
    width: int
    field_width: int | None = None   # the matched field's width where P4Info's differs (p4c's JSON)
    mask: int | None = None          # BMv2's mask of every entry's value (:func:`key_mask`)


def key_mask(k: dict) -> int | None:
    """The constant of a key ``field & constant`` (either order, under a cast of the key's width):
    p4c's JSON keeps it as the field and a ``mask`` (its SimplifyKey lets such a key through), and
    BMv2 ANDs it into every entry's value.  None for any other key, for a mask of every bit, and
    for a key checkmate-p4c marks ``temp`` (p4c computes it into a temporary, with no mask:
    compiler/table_keys.bmv2_key_shape and key_copies: after a copy of a slice)."""
    e = k.get("expr") or {}
    if e.get("op") == "cast":
        e = e["a"]
    if e.get("op") != "bin" or e.get("o") != "&" or k.get("field_width") is not None or k.get("temp"):
        return None
    a, b = e["a"], e["b"]
    if a.get("op") == "const":
        a, b = b, a
    if b.get("op") != "const" or a.get("op") != "field":
        return None
    m = b["v"] & _mask(k["width"])
    return None if m == _mask(k["width"]) else m


@dataclass
class ActionSpec:
    """An action as the control plane sees it: id, name, [(param_id, name, width)]."""

    id: int
    name: str
    params: list
    #: param id -> the control plane's width where it is wider than the pipeline's (a type with a
    #: wider ``@p4runtime_translation``; the P4Runtime server sets it from the P4Info): BMv2 takes a
    #: value that fits it, runs the action with the low bits and reads back the value as written
    cp_widths: dict = field(default_factory=dict)


class _Installed:
    """An installed entry: its canonical key plus what the data plane needs."""

    __slots__ = ("key", "mkey", "priority", "action_id", "params", "counter", "meter", "meter_state",
                 "entry", "order", "tests", "timeout_ms", "hit", "program")

    def __init__(self, key, priority, action_id, params, entry, order):
        self.key = key
        self.mkey = key     # the key under the key masks (BMv2's), what lookups and duplicates see
        self.priority = priority
        self.action_id = action_id
        self.params = params
        self.entry = entry
        self.order = order
        self.counter = [0, 0]
        self.meter = None
        self.meter_state = None
        self.tests = None
        self.timeout_ms = 0
        self.hit = 0    # now_ms() of the last hit, insert or modify (an ageing table's entries)
        self.program = False   # installed by the program (its JSON's entries), not through P4Runtime


def now_ms() -> int:
    """The ageing clock: whole milliseconds of the monotonic clock (BMv2 ages in ms)."""
    return time.monotonic_ns() // 10**6


def _mask(width: int) -> int:
    return (1 << width) - 1


#: the "action" of a miss that runs nothing (P4Runtime ids are never 0)
NO_ACTION = 0


class Table:
    """A P4 table: key layout, allowed actions, default action, installed entries."""

    def __init__(self, spec: dict, actions: dict[int, ActionSpec], profile=None, counter_unit: str | None = None):
        self.name: str = spec["name"]
        self.id: int = spec["id"]
        self.keys = [KeySpec(k["id"], k["name"], k["match"], k["width"], k.get("field_width"), key_mask(k))
                     for k in spec["keys"]]
        self.masked = any(k.mask is not None for k in self.keys)
        self._by_mkey: dict[tuple, _Installed] = {}   # (masked key, priority) -> entry, masked tables only
        self.size: int = spec.get("size", 1024)
        self.actions = actions
        self.action_ids = {a["id"] for a in spec["actions"]}
        self.default_only = {a["id"] for a in spec["actions"] if a.get("scope") == "DEFAULT_ONLY"}
        self.table_only = {a["id"] for a in spec["actions"] if a.get("scope") == "TABLE_ONLY"}
        # an action whose body here takes another number of parameters than the P4Info lists (two
        # table-listed actions sharing a name: compiler/action_twins): BMv2 takes no entry or
        # default for it from the control plane; the program's own run with their arguments
        self.cp_mismatch = {a["id"] for a in spec["actions"] if a.get("cp_mismatch")}
        self.is_const = bool(spec.get("is_const"))
        self.const_default = bool(spec["default"].get("const"))
        self.direct_counter = spec.get("direct_counter")
        self.counter_unit = counter_unit or "packets_and_bytes"  # the direct counter's unit
        self.direct_meter = spec.get("direct_meter")
        self.needs_priority = any(k.match in _NEEDS_PRIORITY for k in self.keys)
        kinds = [k.match for k in self.keys]
        if all(k == "exact" for k in kinds):
            self.strategy = "exact"
        elif kinds.count("lpm") == 1 and all(k in ("exact", "lpm") for k in kinds):
            self.strategy = "lpm"
            self.lpm_index = kinds.index("lpm")
        else:
            self.strategy = "list"
        self._by_id = {k.id: i for i, k in enumerate(self.keys)}
        self._installed: dict[tuple, _Installed] = {}
        self._order = 0           # the highest handle given so far
        self._free: list[int] = []   # handles freed by deletes (a heap: the lowest is reused first)
        self._meter_cells: dict[int, tuple] = {}   # handle -> (meter, meter_state) a delete left
        self._exact: dict[tuple, _Installed] = {}
        self._lpm: dict[int, dict[tuple, _Installed]] = {}
        self._lpm_lens: list[int] = []
        self._list: list[_Installed] = []
        d = spec["default"]
        # ``miss_nop``: a miss runs no action until the control plane sets one (an indirect table
        # compiled by checkmate-p4c: BMv2 ignores its default_action), action id NO_ACTION
        self.default_action_id = NO_ACTION if spec.get("miss_nop") else d["action"]
        self.default_params = () if spec.get("miss_nop") else tuple(d.get("params", ()))
        self.initial_default = (self.default_action_id, self.default_params)
        self.default_written: dict | None = None   # set_default's params where they differ from what runs
        #: the ActionProfile of an indirect table (entries name members/groups), else None
        self.profile = profile
        self.default_result = (self.default_action_id, self.default_params, None)
        #: (prefix mask, {key: entry}) per installed prefix length, longest first
        self._lpm_probe: list[tuple[int, dict]] = []
        # the data-plane lookup, specialised for the match kinds (an instance attribute
        # shadowing the generic method)
        if self.strategy == "exact":
            self.lookup = self._lookup_exact
        elif self.strategy == "lpm" and len(self.keys) == 1:
            self.lookup = self._lookup_lpm1
        #: ``support_timeout``: a hit stamps the entry (BMv2 ages such a table's entries)
        self.ageing = bool(spec.get("support_timeout"))
        if self.ageing:
            self.lookup = self._stamping(self.lookup)

    @staticmethod
    def _stamping(lookup):
        def stamped(values, _lookup=lookup):
            res = _lookup(values)
            if res[2] is not None:
                res[2].hit = now_ms()
            return res
        return stamped

    def _lpm_reindex(self) -> None:
        self._lpm_lens = sorted(self._lpm, reverse=True)
        w = self.keys[self.lpm_index].width
        self._lpm_probe = [(lpm_mask(w, plen), self._lpm[plen]) for plen in self._lpm_lens]

    # -- validation -------------------------------------------------------------------
    def _err(self, msg: str) -> InvalidEntry:
        return InvalidEntry(f"table {self.name}: {msg}")

    def _check_action(self, action_id: int, params: dict[int, int], *, default: bool, const: bool = False) -> tuple:
        if action_id not in self.action_ids:
            name = self.actions[action_id].name if action_id in self.actions else f"id {action_id:#x}"
            raise self._err(f"action {name} is not an action of this table")
        spec = self.actions[action_id]
        if action_id in self.cp_mismatch and const:   # (the control plane's: p4rt_server.writes refuses them)
            return tuple(params[k] for k in sorted(params))   # (a const entry's own arguments, in order)
        if default and action_id in self.table_only:
            raise self._err(f"action {spec.name} is @tableonly and cannot be the default action")
        if not default and action_id in self.default_only:
            raise self._err(f"action {spec.name} is @defaultonly and cannot be used in an entry")
        known = {pid for pid, _, _ in spec.params}
        for pid in params:
            if pid not in known:
                raise self._err(f"action {spec.name} has no parameter with id {pid}")
        values = []
        for pid, pname, width in spec.params:
            if pid not in params:
                raise self._err(f"action {spec.name}: parameter {pname} missing")
            v = params[pid]
            cp = spec.cp_widths.get(pid, width)
            if not isinstance(v, int) or v < 0 or v > _mask(cp):
                raise self._err(f"action {spec.name}: parameter {pname} value {v!r} "
                                f"does not fit in bit<{cp}>")
            values.append(v & _mask(width))
        return tuple(values)

    def _check_target(self, entry: TableEntry, const: bool = False):
        """Validate what an entry runs: an action (direct table) or a profile member/group."""
        if self.profile is None:
            if entry.member_id is not None or entry.group_id is not None:
                raise self._err("entries of a table without an action profile need an action")
            return self._check_action(entry.action_id, entry.params, default=False, const=const)
        if (entry.member_id is None) == (entry.group_id is None) or entry.action_id:
            raise self._err(f"entries of a table with action profile {self.profile.name} need "
                            "exactly one of member_id or group_id (and no action)")
        if entry.member_id is not None:
            if entry.member_id not in self.profile.members:   # an invalid entry, not a missing one (BMv2)
                raise self._err(f"action profile {self.profile.name}: no member {entry.member_id}")
        else:
            if entry.group_id not in self.profile.groups:
                raise self._err(f"group {entry.group_id} is not in action profile {self.profile.name}")
            if self.profile.algo is None:
                raise self._err(f"action profile {self.profile.name} has no selector: no groups")
        return ()

    def _target(self, entry: TableEntry, params):
        """(action_id, params) stored for an entry; indirect entries resolve at lookup."""
        if self.profile is None:
            return entry.action_id, params
        if entry.member_id is not None:
            return None, ("m", entry.member_id)
        return None, ("g", entry.group_id)

    def _canonical(self, entry: TableEntry, const: bool = False) -> tuple:
        """Validate the match and return (canonical key, per-field tests)."""
        given: dict[int, FieldMatch] = {}
        for m in entry.matches:
            if m.field_id not in self._by_id:
                raise self._err(f"no match field with id {m.field_id}")
            if m.field_id in given:
                raise self._err(f"match field {self.keys[self._by_id[m.field_id]].name} given twice")
            given[m.field_id] = m
        key, tests = [], []
        for k in self.keys:
            m = given.get(k.id)
            full = _mask(k.width)
            if m is None:
                if k.match == "exact":
                    raise self._err(f"exact match field {k.name} missing")
                key.append(None)
                tests.append(None)
                continue
            if m.kind != k.match:
                raise self._err(f"match field {k.name} is {k.match}, entry gives {m.kind}")
            v = m.value
            if not isinstance(v, int) or v < 0 or v > full:
                raise self._err(f"match field {k.name}: value {v!r} does not fit in bit<{k.width}>")
            if k.match in ("exact", "optional"):
                key.append(v)
                tests.append(("eq", v))
            elif k.match == "lpm":
                plen = m.prefix_len
                if plen is None or not 0 <= plen <= k.width:
                    raise self._err(f"match field {k.name}: prefix length {plen!r} "
                                    f"not in 0..{k.width}")
                # BMv2 counts a prefix from the top of the field's byte container: of a field
                # that is not whole bytes (bit<9>) only the bits under it are compared (/9: the
                # top 2), and it refuses a value with bits below them ("incorrect number of
                # trailing zeros"); a program's const entry is masked instead
                mask = lpm_mask(k.width, plen)
                if v & ~mask and const:
                    v &= mask
                elif v & ~mask:
                    raise self._err(f"match field {k.name}: value {v:#x} has bits set beyond "
                                    f"the /{m.prefix_len} prefix (BMv2: incorrect number of trailing zeros)")
                if plen == 0:
                    key.append(None)
                    tests.append(None)
                else:
                    key.append((v, plen))
                    tests.append(("mask", v, mask))
            elif k.match == "ternary":
                mask = m.mask
                if mask is None or mask < 0 or mask > full:
                    raise self._err(f"match field {k.name}: mask {mask!r} does not fit in "
                                    f"bit<{k.width}>")
                if v & ~mask:
                    raise self._err(f"match field {k.name}: value {v:#x} has bits outside "
                                    f"mask {mask:#x}")
                if mask == 0:
                    key.append(None)
                    tests.append(None)
                else:
                    key.append((v, mask))
                    tests.append(("mask", v, mask))
            elif k.match == "range":
                hi = m.high
                if hi is None or hi < 0 or hi > full:
                    raise self._err(f"match field {k.name}: high bound {hi!r} does not fit in "
                                    f"bit<{k.width}>")
                if v > hi:
                    raise self._err(f"match field {k.name}: low {v} > high {hi}")
                key.append((v, hi))
                tests.append(("range", v, hi))
        return tuple(key), tests

    def _check_priority(self, entry: TableEntry) -> None:
        if self.needs_priority and entry.priority <= 0:
            raise self._err("entries of a table with ternary/range/optional keys need priority > 0")
        if not self.needs_priority and entry.priority != 0:
            raise self._err(f"priority {entry.priority} given but the table has no "
                            "ternary/range/optional key")

    # -- writes -----------------------------------------------------------------------
    def insert(self, entry: TableEntry, *, const: bool = False) -> None:
        if self.is_const and not const:
            raise self._err("table has const entries and cannot be modified")
        self._check_priority(entry)
        key, tests = self._canonical(entry, const)
        params = self._check_target(entry, const)
        ident = (key, entry.priority)
        if ident in self._installed:
            raise EntryExists(f"table {self.name}: entry already exists")
        mkey = key
        if self.masked:
            mkey, tests = self._masked(key, tests)
            if (mkey, entry.priority) in self._by_mkey:
                raise TargetRefused(f"table {self.name}: Error when adding match entry to target (equal to "
                                    "an installed entry under the key's mask: BMv2's DUPLICATE_ENTRY)")
        if len(self._installed) >= self.size and not const:
            raise self._err(f"table is full ({self.size} entries)")
        if self._free:
            handle = heapq.heappop(self._free)
        else:
            self._order += 1
            handle = self._order
        aid, params = self._target(entry, params)
        inst = _Installed(key, entry.priority, aid, params, entry, handle)
        inst.tests, inst.mkey, inst.program = tests, mkey, const
        if self.masked:
            self._by_mkey[(mkey, entry.priority)] = inst
        if entry.counter is not None:
            inst.counter = unit_write(self.counter_unit, [0, 0], entry.counter)
        inst.meter = entry.meter
        if entry.meter is None and self.direct_meter is not None:   # (BMv2's meter cell, not reset)
            inst.meter, inst.meter_state = self._meter_cells.get(handle, (None, None))
        if self.ageing:
            inst.timeout_ms, inst.hit = entry.idle_timeout_ns // 10**6, now_ms()
        matches = list(entry.matches)
        if const and self.needs_priority:
            # BMv2 keeps such a table's lpm field as a ternary mask: read back masked to the
            # bits it compares (an lpm-only table reads the value as given)
            lpm = {k.id: k.width for k in self.keys if k.match == "lpm"}
            matches = [FieldMatch.lpm(m.field_id, m.value & lpm_mask(lpm[m.field_id], m.prefix_len), m.prefix_len)
                       if m.field_id in lpm and m.prefix_len is not None else m for m in matches]
        stored = TableEntry(matches, entry.action_id, dict(entry.params),
                            entry.priority, None, inst.meter, False, const and self.is_const,
                            entry.member_id, entry.group_id,
                            entry.idle_timeout_ns if self.ageing else 0, from_program=const)
        inst.entry = stored
        self._installed[ident] = inst
        self._index_add(inst)

    def _masked(self, key: tuple, tests: list) -> tuple[tuple, list]:
        """``key`` and ``tests`` with each value ANDed with its key's mask (exact/optional value,
        lpm and ternary value; a range as given)."""
        mkey, mtests = [], []
        for k, kv, t in zip(self.keys, key, tests):
            m = k.mask
            if m is None or kv is None or k.match == "range":
                mkey.append(kv)
                mtests.append(t)
            elif k.match in ("exact", "optional"):
                mkey.append(kv & m)
                mtests.append(("eq", kv & m))
            else:
                mkey.append((kv[0] & m, kv[1]))
                mtests.append(("mask", t[1] & m, t[2]))
        return tuple(mkey), mtests

    def read_key(self, probe: TableEntry | None) -> TableEntry | None:
        """PI's read of a masked table: PI asks BMv2 for the entries (all, or the one ``probe``'s
        key finds under the masks -- an entry sent as ``0xe0`` is found by ``0xe3`` too) and maps
        each key BMv2 gives back to an entry of its own; where the mask changed the sent key there
        is none (:class:`OutOfSync`).  The installed entry found (None: none, or a wildcard read)."""
        if probe is None:
            bad = [i for i in self._installed.values() if i.key != i.mkey and not i.entry.is_const]
            inst = None
        else:
            key, tests = self._canonical(probe)
            inst = self._by_mkey.get((self._masked(key, tests)[0], probe.priority))
            bad = [inst] if inst is not None and inst.key != inst.mkey else []
        if bad:
            raise OutOfSync(f"table {self.name}: Table state out-of-sync with target (BMv2 keeps an entry's "
                            "key under the key's mask, PI the key as sent)")
        return None if inst is None else inst.entry

    def _find(self, entry: TableEntry) -> _Installed:
        # a priority the table cannot have (none where a key needs one, one where no key does) is
        # no key of it: INVALID_ARGUMENT before the lookup (BMv2; fuzz_p4rt seed 3193)
        self._check_priority(entry)
        key, _ = self._canonical(entry)
        inst = self._installed.get((key, entry.priority))
        if inst is None:
            raise EntryNotFound(f"table {self.name}: no such entry")
        return inst

    def modify(self, entry: TableEntry) -> None:
        if self.is_const:
            raise self._err("table has const entries and cannot be modified")
        params = self._check_target(entry)   # an invalid action/member before a missing entry (BMv2)
        inst = self._pi_known(self._find(entry))
        inst.action_id, inst.params = self._target(entry, params)
        inst.entry.action_id, inst.entry.params = entry.action_id, dict(entry.params)
        inst.entry.member_id, inst.entry.group_id = entry.member_id, entry.group_id
        if entry.counter is not None:   # the unit's count written, the other one reset (BMv2)
            inst.counter = unit_write(self.counter_unit, [0, 0], entry.counter)
        if entry.meter is not None:
            inst.meter, inst.meter_state, inst.entry.meter = entry.meter, None, entry.meter
        if self.ageing:   # BMv2: the timeout written (none if left out) and a fresh hit time
            inst.entry.idle_timeout_ns = entry.idle_timeout_ns
            inst.timeout_ms, inst.hit = entry.idle_timeout_ns // 10**6, now_ms()

    def delete(self, entry: TableEntry) -> None:
        if self.is_const:
            raise self._err("table has const entries and cannot be modified")
        inst = self._pi_known(self._find(entry))
        self._release(inst)

    def _pi_known(self, inst: _Installed) -> _Installed:
        """An entry the program installed in a table that is not const (p4c's ``entries = {..}``):
        PI knows only the entries written through it, so a MODIFY or DELETE of it is NOT_FOUND and
        the entry stays (probed on simple_switch_grpc 1.15.5, helper p4rt39; a read reaching it is
        INTERNAL: p4rt_server.reads)."""
        if inst.program:
            raise EntryNotFound(f"table {self.name}: no such entry (the program's initial entry: PI knows only "
                                "the entries written through it)")
        return inst

    def _release(self, inst: _Installed) -> None:
        del self._installed[(inst.key, inst.priority)]
        self._by_mkey.pop((inst.mkey, inst.priority), None)
        self._index_remove(inst)
        heapq.heappush(self._free, inst.order)
        self._meter_cells[inst.order] = (inst.meter, inst.meter_state)

    def clear(self) -> None:
        for inst in list(self._installed.values()):
            if not inst.entry.is_const:
                self._release(inst)

    def set_default(self, action_id: int, params: dict[int, int]) -> None:
        if self.const_default:
            raise self._err("default action is const and cannot be changed")
        values = self._check_action(action_id, params, default=True)
        self.default_action_id, self.default_params = action_id, values
        self.default_result = (action_id, values, None)
        # read back as written (a translated parameter runs with its low bits only)
        self.default_written = dict(params) if any(self.actions[action_id].cp_widths) else None

    def reset_default(self) -> None:
        self.default_action_id, self.default_params = self.initial_default
        self.default_result = (self.default_action_id, self.default_params, None)
        self.default_written = None

    def get_default(self) -> TableEntry:
        if self.default_action_id == NO_ACTION:
            return TableEntry([], NO_ACTION, {}, 0, None, None, True, self.const_default)
        spec = self.actions[self.default_action_id]
        params = dict(self.default_written) if self.default_written is not None else \
            {pid: v for (pid, _, _), v in zip(spec.params, self.default_params)}
        return TableEntry([], self.default_action_id, params, 0, None, None, True, self.const_default)

    def entries(self) -> list[TableEntry]:
        out = []
        now = now_ms()
        for inst in sorted(self._installed.values(), key=lambda i: i.order):
            e = inst.entry
            out.append(TableEntry(list(e.matches), e.action_id, dict(e.params), e.priority,
                                  CounterData(*inst.counter), inst.meter, False, e.is_const,
                                  e.member_id, e.group_id, e.idle_timeout_ns,
                                  now - inst.hit if self.ageing else None, from_program=inst.program))
        return out

    def expired(self) -> list[tuple[int, TableEntry]]:
        """``(handle, entry)`` of each entry idle for at least its timeout, in handle order (BMv2's
        sweep: whole milliseconds, ``now - last hit >= timeout``; an entry without one never ages)."""
        now = now_ms()
        return [(i.order, i.entry) for i in sorted(self._installed.values(), key=lambda i: i.order)
                if i.timeout_ms > 0 and now - i.hit >= i.timeout_ms]

    def installed(self, entry: TableEntry) -> _Installed:
        return self._find(entry)

    # -- indexes ----------------------------------------------------------------------
    def _index_add(self, inst: _Installed) -> None:
        if self.strategy == "exact":
            self._exact[inst.mkey] = inst
        elif self.strategy == "lpm":
            i = self.lpm_index
            lk = inst.mkey[i]
            plen, v = (0, 0) if lk is None else (lk[1], lk[0])
            k = inst.mkey[:i] + (v,) + inst.mkey[i + 1:]
            if plen not in self._lpm:
                self._lpm[plen] = {}
                self._lpm_reindex()
            self._lpm[plen][k] = inst
        else:
            self._list.append(inst)
            self._list.sort(key=lambda e: (-e.priority, e.order))

    def _index_remove(self, inst: _Installed) -> None:
        if self.strategy == "exact":
            del self._exact[inst.mkey]
        elif self.strategy == "lpm":
            i = self.lpm_index
            lk = inst.mkey[i]
            plen, v = (0, 0) if lk is None else (lk[1], lk[0])
            d = self._lpm[plen]
            del d[inst.mkey[:i] + (v,) + inst.mkey[i + 1:]]
            if not d:
                del self._lpm[plen]
                self._lpm_reindex()
        else:
            self._list.remove(inst)

    # -- data plane -------------------------------------------------------------------
    def lookup_indirect(self, values: tuple, selector_hash: int):
        """Lookup in a table with an action profile: members resolve to their action, groups
        pick the member ``selector_hash % n`` of the group's selection list (BMv2's handle order,
        a member once per unit of weight: :mod:`.profiles`)."""
        aid, params, inst = self.lookup(values)
        if inst is None:
            return aid, params, inst
        kind, ref = inst.params
        if kind == "g":
            members = self.profile.selection.get(ref) or ()
            if not members:
                return self.default_result
            ref = members[selector_hash % len(members)]
        m = self.profile.members.get(ref)
        if m is None:
            return self.default_result
        return m[0], m[1], inst

    def _lookup_exact(self, values: tuple):
        inst = self._exact.get(values)
        if inst is None:
            return self.default_result
        return inst.action_id, inst.params, inst

    def _lookup_lpm1(self, values: tuple):
        """A table whose only key is the lpm one: one dict probe per prefix length."""
        v = values[0]
        for m, d in self._lpm_probe:
            inst = d.get((v & m,))
            if inst is not None:
                return inst.action_id, inst.params, inst
        return self.default_result

    def lookup(self, values: tuple):
        """``values`` in key order -> (action_id, params, installed entry or None)."""
        if self.strategy == "exact":
            inst = self._exact.get(values)
        elif self.strategy == "lpm":
            inst = None
            i = self.lpm_index
            w = self.keys[i].width
            v = values[i]
            for plen in self._lpm_lens:
                m = lpm_mask(w, plen)
                inst = self._lpm[plen].get(values[:i] + (v & m,) + values[i + 1:])
                if inst is not None:
                    break
        else:
            inst = None
            for cand in self._list:
                for t, v in zip(cand.tests, values):
                    if t is None:
                        continue
                    kind = t[0]
                    if kind == "eq":
                        if v != t[1]:
                            break
                    elif kind == "mask":
                        if v & t[2] != t[1]:
                            break
                    elif not t[1] <= v <= t[2]:
                        break
                else:
                    inst = cand
                    break
        if inst is None:
            return self.default_result
        return inst.action_id, inst.params, inst
