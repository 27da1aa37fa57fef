"""Action profiles and action selectors (v1model ``action_profile`` / ``action_selector``).

A profile holds *members* (an action with its parameters) and, for a selector, *groups*
(sets of members).  Entries of a table whose ``implementation`` is the profile name a
member or a group instead of an action.  For a group, the data plane hashes the table's
``selector`` keys with the selector's algorithm, keeps the low ``width`` bits and picks
member ``hash % group size``, members ordered by creation (BMv2 orders them by handle).
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
        #: member id -> (action_id, params tuple, params dict, creation order)
        self.members: dict[int, tuple] = {}
        #: group id -> member ids in creation order of the members
        self.groups: dict[int, list[int]] = {}
        self._order = 0

    def member(self, member_id: int) -> tuple:
        m = self.members.get(member_id)
        if m is None:
            raise EntryNotFound(f"action profile {self.name}: no member {member_id}")
        return m

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
        order = self.members[member_id][3] if modify else self._next()
        self.members[member_id] = (action_id, values, dict(params), order)
        for g in self.groups.values():
            g.sort(key=lambda m: self.members[m][3])

    def _next(self) -> int:
        self._order += 1
        return self._order

    def member_delete(self, member_id: int) -> None:
        self.member(member_id)
        if any(member_id in g for g in self.groups.values()):
            raise InvalidEntry(f"action profile {self.name}: member {member_id} is in a group")
        del self.members[member_id]

    def group_set(self, group_id: int, member_ids, *, modify: bool) -> None:
        if self.algo is None:
            raise InvalidEntry(f"action profile {self.name} has no selector: no groups")
        if modify and group_id not in self.groups:
            raise EntryNotFound(f"action profile {self.name}: no group {group_id}")
        if not modify and group_id in self.groups:
            raise EntryExists(f"action profile {self.name}: group {group_id} exists")
        ids = list(dict.fromkeys(member_ids))
        for m in ids:
            self.member(m)
        self.groups[group_id] = sorted(ids, key=lambda m: self.members[m][3])

    def group_delete(self, group_id: int) -> None:
        if self.groups.pop(group_id, None) is None:
            raise EntryNotFound(f"action profile {self.name}: no group {group_id}")
