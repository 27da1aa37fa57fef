"""Actions of one control-plane name: an ``@name``'d action declared like another (a *twin*).

p4c accepts two actions with one control-plane name (``@name("nop") action set_port(..)`` beside
``action nop()``) and lists one P4Info action; checkmate-p4c keeps the first declared as the
name's action and the second as a twin (``elab_blocks``: ``twin_of``) that a table lists under the
name's P4Info action with its own body.  p4c removes an action nothing uses before it names the
control-plane objects, so where the first one is used nowhere when a table lists the twin with
other control-plane parameters, the twin is the name's action (:func:`swap_twin`; p4c_mutate seed
208, case ``mutz33_unused_action_named_like_a_listed_one``): p4c's P4Info lists the twin's
parameters and BMv2 runs it.

Where the table-listed actions of one name have other control-plane parameters, p4c's P4Info lists
those of the first *declared* one that an applied table lists (not of the first table, nor of one
only called directly; :func:`p4info_record`), and its BMv2 JSON keeps one action per body, each
with its own ``runtime_data``.  simple_switch_grpc checks a write against the P4Info, then hands
BMv2 the P4Info's parameters: BMv2 refuses an entry or default action whose data count is not its
table's action's ("Error when adding match entry to target", UNKNOWN), and runs one of the same
count with the data as given (not masked to the body's own widths).  A table action whose body
takes another number of parameters than the P4Info lists is marked ``cp_mismatch`` (elab_output):
the P4Runtime server refuses its writes (entries, default, action profile members) as BMv2 does,
and the program's own default action and const entries for it run with their own arguments
(``runtime.tables``; cases ``mutz34_used_actions_sharing_a_*``, test_p4rt_action_twins.py).
"""
from __future__ import annotations


def cp_params(a: dict) -> list:
    """An action's control-plane parameters (the directionless ones) as P4Info lists them."""
    return [(p["name"], p["t"], p["dir"]) for p in a["params"] if not p["dir"]]


def swap_twin(actions: dict, scope, real_q: str, twin_q: str) -> dict:
    """Make the twin ``twin_q`` the action of the name ``real_q`` and that one the twin (its
    records, and the source names that resolve to them); the record now under ``real_q``."""
    real, twin = actions[real_q], actions[twin_q]
    real["name"], real["twin_of"] = twin_q, real_q
    twin["name"] = real_q
    twin.pop("twin_of", None)
    actions[real_q], actions[twin_q] = twin, real
    s = scope
    while s is not None:
        for n, v in list(s.names.items()):
            if v == ("action", real_q):
                s.names[n] = ("action", twin_q)
            elif v == ("action", twin_q):
                s.names[n] = ("action", real_q)
        s = s.parent
    return twin


def p4info_record(actions: dict, q: str, listed: set) -> dict:
    """The record whose control-plane parameters p4c's P4Info lists for the action ``q``: the
    first declared of ``q`` and its twins that an applied table lists (``listed``: names), where
    its parameters differ from ``q``'s own; else ``q``'s record."""
    a = actions[q]
    members = [r for r in actions.values() if (r is a or r.get("twin_of") == q) and r["name"] in listed]
    if not members:
        return a
    first = min(members, key=lambda r: r.get("decl", 0))
    return first if cp_params(first) != cp_params(a) else a
