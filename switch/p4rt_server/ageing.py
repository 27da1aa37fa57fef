"""Idle-timeout notifications: simple_switch_grpc's ageing sweep, for checkmate-switch.

A table compiled with ``support_timeout = true`` (P4Info ``NOTIFY_CONTROL``) takes entries with
an ``idle_timeout_ns``; the pipeline stamps an entry when a lookup hits it, when it is inserted
and when it is modified (:mod:`switch.runtime.tables`).  BMv2's ``AgeingMonitor`` sweeps every
ageing table once a second and PI turns each sweep's find into one
``IdleTimeoutNotification`` for the primary client; this module does the same:

* an entry is idle when ``now - last stamp >= timeout`` in whole milliseconds (an entry
  written without a timeout never is);
* an idle entry is reported only if the table's previous sweep did not report it: the set
  remembered is what that sweep *reported*, so an entry that stays idle is reported every
  other sweep (BMv2; probed on simple_switch_grpc 1.15.5 by helper corpus10), and a sweep that
  finds nothing idle forgets the table's set;
* BMv2 hands PI one message per table, PI's buffer sends what one sweep found as ONE
  notification: the tables in the program's order, each table's entries in handle order, with
  their key, priority and ``idle_timeout_ns`` (no action); ``timestamp`` in nanoseconds of the
  monotonic clock;
* with no primary the notification is lost (the sweep still remembers it), as PI drops it.

Timing is BMv2's only roughly (its sweep runs on its own phase; simple_switch_grpc was seen
reporting a fresh entry one sweep later than its timeout allows), which no test can compare.
"""
from __future__ import annotations

import json
import logging
import threading
import time

from p4.v1 import p4runtime_pb2

from . import translate

log = logging.getLogger("checkmate.switch.p4rt")

SWEEP_INTERVAL_S = 1.0   # BMv2's AgeingMonitor default (sweep_interval_ms = 1000)


class AgeingMonitor:
    """The sweep thread of one P4Runtime service; ``send(resp)`` hands a message to the primary."""

    def __init__(self, send, interval: float = SWEEP_INTERVAL_S):
        self._send = send
        self._interval = interval
        self._state = None
        self._prev: dict[int, set[int]] = {}
        self._order: list[int] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def set_state(self, state) -> None:
        """A new forwarding state is live: forget what was reported (BMv2 ``reset_state``), and
        run the sweep while some table of it can age entries."""
        ageing = state is not None and any(t.supports_idle_timeout for t in state.index.tables.values())
        with self._lock:
            self._state = state if ageing else None
            self._order = _bmv2_table_order(state) if ageing else []
            self._prev = {}
            if ageing and self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="p4rt-ageing", daemon=True)
                self._thread.start()

    def _loop(self) -> None:
        due = time.monotonic()
        while True:
            due += self._interval
            if self._stop.wait(max(0.0, due - time.monotonic())):
                return
            try:
                self.sweep()
            except Exception:   # a sweep racing a pipeline swap: the next one sees the new state
                log.exception("ageing sweep failed")

    def sweep(self) -> list:
        """One sweep over every ageing table; the notification it sent, if any (for tests)."""
        with self._lock:
            st = self._state
            if st is None:
                return []
            resp = p4runtime_pb2.StreamMessageResponse()
            note = resp.idle_timeout_notification
            for tid in self._order:
                table = st.index.tables.get(tid)
                if table is None or not table.supports_idle_timeout:
                    continue
                idle = st.pipeline.table_expired(tid)
                prev = self._prev.setdefault(tid, set())
                new = [(h, e) for h, e in idle if h not in prev]
                prev.clear()
                prev.update(h for h, _ in new)
                for _, e in new:
                    te = translate.encode_table_entry(st.index, table, e, with_counter=False, with_meter=False)
                    te.ClearField("action")
                    te.is_const = False
                    note.table_entry.append(te)
            if not note.table_entry:
                return []
            note.timestamp = time.monotonic_ns()
            self._send(resp)
            return [resp]

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2 * self._interval)


def _bmv2_table_order(state) -> list[int]:
    """The ageing tables in BMv2's order (its JSON's table ids: p4c lists a control's tables as its
    code applies them, ingress before egress).  p4c's JSON loads in that order already; checkmate-p4c's
    IR lists tables by P4Info id, so they are ordered by their first apply in the blocks."""
    tids = [t for t in state.pipeline.tables if (i := state.index.tables.get(t)) is not None and i.supports_idle_timeout]
    try:
        ir = json.loads(state.device_config)
    except (TypeError, ValueError):
        return tids
    if not str(ir.get("format", "")).startswith("checkmate") or not isinstance(ir.get("tables"), list):
        return tids
    ids = {t["name"]: t["id"] for t in ir["tables"]}
    first: list[int] = []

    def walk(x) -> None:
        if isinstance(x, dict):
            if isinstance(x.get("table"), str) and x.get("s", x.get("op")) in ("apply", "switch_action", "table_hit"):
                tid = ids.get(x["table"])
                if tid is not None and tid not in first:
                    first.append(tid)
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    blocks = ir.get("blocks", {})
    walk([blocks.get("ingress"), blocks.get("egress"), ir.get("subcontrols")])
    rank = {t: i for i, t in enumerate(first)}
    return sorted(tids, key=lambda t: (rank.get(t, len(rank)), tids.index(t)))
