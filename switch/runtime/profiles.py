"""Action profiles and action selectors (v1model ``action_profile`` / ``action_selector``).

A profile holds *members* (an action with its parameters) and, for a selector, *groups*
(members with a weight).  Entries of a table whose ``implementation`` is the profile name a
member or a group instead of an action.  For a group, the data plane hashes the table's
``selector`` keys with the selector's algorithm and picks entry ``hash % n`` of the group's
selection list -- the whole hash: the selector's declared output width (``width``) is not in p4c's
JSON, and BMv2 does not cut the hash to it (runtime/gen_blocks; measured, helper p4rt39).

The selection list is BMv2's, so the same flow picks the same member on both switches: BMv2
numbers members with handles (the lowest free number, reused after a delete) and a group
lists its members' handles in ascending order.  A weight ``w`` is how P4Runtime's server for
BMv2 (PI) programs it: the member gets ``w - 1`` extra copies (handles allocated when a group
first needs them, in member-id order, and released once no group needs that many), and the
group holds ``w`` of its handles.
"""
from __future__ import annotations

from .errors import EntryExists, EntryNotFound, InvalidEntry


class ActionProfile:
    def __init__(self, spec: dict, check_action):
        self.name, self.id, self.size = spec["name"], spec["id"], spec["size"]
        self.algo = spec.get("algo")
        self.width = spec.get("width", 0)
        self.table_ids = list(spec.get("table_ids", ()))
        self._check_action = check_action      # (action_id, {param_id: v}) -> params tuple
        #: member id -> (action_id, params tuple, params dict, handles: the member's, then its copies)
        self.members: dict[int, tuple] = {}
        #: group id -> member ids (each once), in the order of their first handle
        self.groups: dict[int, list[int]] = {}
        #: group id -> {member id: weight}
        self.weights: dict[int, dict[int, int]] = {}
        #: group id -> member id per selection slot (a member ``weight`` times), by handle
        self.selection: dict[int, list[int]] = {}
        self._used: set[int] = set()

    def member(self, member_id: int) -> tuple:
        m = self.members.get(member_id)
        if m is None:
            raise EntryNotFound(f"action profile {self.name}: no member {member_id}")
        return m

    def _alloc(self) -> int:
        h = 0
        while h in self._used:
            h += 1
        self._used.add(h)
        return h

    def member_set(self, member_id: int, action_id: int, params: dict, *, modify: bool) -> None:
        if not isinstance(member_id, int) or member_id < 0:
            raise InvalidEntry(f"action profile {self.name}: member id {member_id!r}")
        values = self._check_action(action_id, params)   # a bad action before a missing member (BMv2)
        if modify and member_id not in self.members:
            raise EntryNotFound(f"action profile {self.name}: no member {member_id}")
        if not modify and member_id in self.members:
            raise EntryExists(f"action profile {self.name}: member {member_id} exists")
        if not modify and len(self.members) >= self.size:
            raise InvalidEntry(f"action profile {self.name} is full ({self.size} members)")
        handles = self.members[member_id][3] if modify else [self._alloc()]
        self.members[member_id] = (action_id, values, dict(params), handles)

    def member_delete(self, member_id: int) -> None:
        m = self.member(member_id)
        if any(member_id in g for g in self.groups.values()):
            raise InvalidEntry(f"action profile {self.name}: member {member_id} is in a group")
        self._used.difference_update(m[3])
        del self.members[member_id]

    def group_set(self, group_id: int, member_ids, *, modify: bool, weights=None) -> None:
        """Insert or replace group ``group_id``: ``member_ids`` (a member given twice counts
        once), each with its weight from ``weights`` (same order; 1 when omitted)."""
        if self.algo is None:
            raise InvalidEntry(f"action profile {self.name} has no selector: no groups")
        if modify and group_id not in self.groups:
            raise EntryNotFound(f"action profile {self.name}: no group {group_id}")
        if not modify and group_id in self.groups:
            raise EntryExists(f"action profile {self.name}: group {group_id} exists")
        member_ids = list(member_ids)
        weights = [1] * len(member_ids) if weights is None else list(weights)
        new: dict[int, int] = {}
        for m, w in zip(member_ids, weights):
            self.member(m)
            if not isinstance(w, int) or w < 1:
                raise InvalidEntry(f"action profile {self.name}: member {m} weight {w!r}")
            new.setdefault(m, w)
        old = self.weights.get(group_id, {})
        changed = sorted(set(old) | set(new))
        for m in changed:   # the copies a new weight needs, in member-id order (as PI creates them)
            handles = self.members[m][3]
            while len(handles) < new.get(m, 0):
                handles.append(self._alloc())
        self.weights[group_id] = dict(sorted(new.items()))
        self._select(group_id)
        self._release_copies(changed)

    def group_delete(self, group_id: int) -> None:
        if self.groups.pop(group_id, None) is None:
            raise EntryNotFound(f"action profile {self.name}: no group {group_id}")
        self.selection.pop(group_id, None)
        self._release_copies(sorted(self.weights.pop(group_id, {})))

    def _select(self, group_id: int) -> None:
        slots = sorted((h, m) for m, w in self.weights[group_id].items() for h in self.members[m][3][:w])
        self.selection[group_id] = [m for _, m in slots]
        self.groups[group_id] = list(dict.fromkeys(self.selection[group_id]))

    def _release_copies(self, member_ids) -> None:
        """Each member keeps as many handles as its largest weight in any group (at least its own)."""
        for m in member_ids:
            handles = self.members[m][3]
            need = max([1] + [ws[m] for ws in self.weights.values() if m in ws])
            while len(handles) > need:
                self._used.discard(handles.pop())
