"""Idle-timeout notifications: simple_switch_grpc's ageing sweep, for checkmate-switch.

A table compiled with ``support_timeout = true`` (P4Info ``NOTIFY_CONTROL``) takes entries with
an ``idle_timeout_ns``; the pipeline stamps an entry when a lookup hits it, when it is inserted
and when it is modified (:mod:`switch.runtime.tables`).  BMv2's ``AgeingMonitor`` sweeps every
ageing table once a second and PI turns each sweep's find into one
``IdleTimeoutNotification`` per table for the primary client; this module does the same:

* an entry is idle when ``now - last stamp >= timeout`` in whole milliseconds (an entry
  written without a timeout never is);
* an idle entry is reported only if the table's previous sweep did not report it: the set
  remembered is what that sweep *reported*, so an entry that stays idle is reported every
  other sweep (BMv2; probed on simple_switch_grpc 1.15.5 by helper corpus10), and a sweep that
  finds nothing idle forgets the table's set;
* the notification lists the entries in handle order with their key, priority and
  ``idle_timeout_ns`` (no action), ``timestamp`` in nanoseconds of the monotonic clock;
* with no primary the notification is lost (the sweep still remembers it), as PI drops it.

Timing is BMv2's only roughly (its sweep runs on its own phase; simple_switch_grpc was seen
reporting a fresh entry one sweep later than its timeout allows), which no test can compare.
"""
from __future__ import annotations

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
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def set_state(self, state) -> None:
        """A new forwarding state is live: forget what was reported (BMv2 ``reset_state``), and
        run the sweep while some table of it can age entries."""
        ageing = state is not None and any(t.supports_idle_timeout for t in state.index.tables.values())
        with self._lock:
            self._state = state if ageing else None
            self._prev = {}
            if ageing and self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="p4rt-ageing", daemon=True)
                self._thread.start()

    def _loop(self) -> None:
        due = time.monotonic()
        while not self._stop.is_set():
            try:
                self.sweep()
            except Exception:   # a sweep racing a pipeline swap: the next one sees the new state
                log.exception("ageing sweep failed")
            due += self._interval
            self._stop.wait(max(0.0, due - time.monotonic()))

    def sweep(self) -> list:
        """One sweep over every ageing table; the notifications it sent (for tests)."""
        sent = []
        with self._lock:
            st = self._state
            if st is None:
                return sent
            for tid in st.pipeline.tables:
                table = st.index.tables.get(tid)
                if table is None or not table.supports_idle_timeout:
                    continue
                idle = st.pipeline.table_expired(tid)
                prev = self._prev.setdefault(tid, set())
                new = [(h, e) for h, e in idle if h not in prev]
                prev.clear()
                prev.update(h for h, _ in new)
                if not new:
                    continue
                resp = p4runtime_pb2.StreamMessageResponse()
                note = resp.idle_timeout_notification
                for _, e in new:
                    te = translate.encode_table_entry(st.index, table, e, with_counter=False, with_meter=False)
                    te.ClearField("action")
                    te.is_const = False
                    note.table_entry.append(te)
                note.timestamp = time.monotonic_ns()
                self._send(resp)
                sent.append(resp)
        return sent

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2 * self._interval)
