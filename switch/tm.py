"""Traffic manager of the embedded switch: per-egress-port queues, shaping, faults.

Every egress port has a :class:`PortConfig`:

``queue_depth``   packets the port's queue holds (tail drop beyond, unless lossless)
``rate_bps``      line rate in bits/s; 0 = as fast as the port takes them
``drop_prob``     probability that a packet is dropped on enqueue (fault injection;
                  the kernel here has no netem)
``delay_s``       extra one-way latency added to every packet
``lossless``      when the queue is full, *pause* the sender (back-pressure, like
                  PFC on Checkmate's dedicated shadow ports) instead of dropping

Ports with none of rate/delay/drop configured take the **fast path**: the data-plane
thread writes the frame straight to the port (the kernel socket buffer is the
queue; nothing is allocated per packet).  A lossless port without rate or delay
does the same while its queue is empty and the socket buffer takes the frame;
only when the buffer is full does the frame go to the queue and its thread.  A shaped port gets a bounded deque and
its own transmit thread that releases packets at their due time (enqueue time +
delay) and paces them with a token bucket at ``rate_bps``.  In lossless mode a full
queue blocks the *enqueuing* thread -- the ingress data plane -- until the transmit
thread frees a slot; each such wait counts as one pause.  A pause is bounded by
``pause_timeout_s`` (a switch must never wedge), after which the packet is dropped
and counted in ``pause_drops``.

Configuration can change at run time (flags at start-up, then
:class:`TMControlServer` -- JSON lines over TCP on loopback, driven by
:mod:`switch.tm_client`).  Counters per port: enqueued, sent, tail_drops,
fault_drops, pauses, pause_s, pause_drops, queue_len, and tx_errors (the port
refused the frame, e.g. its socket buffer was full on a lossy port).
"""
from __future__ import annotations

import collections
import json
import logging
import random
import socketserver
import threading
import time
from dataclasses import asdict, dataclass, fields

log = logging.getLogger("checkmate.switch.tm")


@dataclass
class PortConfig:
    """Shaping and fault-injection settings of one egress port."""

    queue_depth: int = 1024
    rate_bps: float = 0.0
    drop_prob: float = 0.0
    delay_s: float = 0.0
    lossless: bool = False
    pause_timeout_s: float = 5.0

    def validate(self, port: int) -> "PortConfig":
        if self.queue_depth < 1:
            raise ValueError(f"port {port}: queue_depth must be >= 1, got {self.queue_depth}")
        if self.rate_bps < 0:
            raise ValueError(f"port {port}: rate_bps must be >= 0, got {self.rate_bps}")
        if not 0.0 <= self.drop_prob <= 1.0:
            raise ValueError(f"port {port}: drop_prob must be in [0, 1], got {self.drop_prob}")
        if self.delay_s < 0:
            raise ValueError(f"port {port}: delay_s must be >= 0, got {self.delay_s}")
        if self.pause_timeout_s <= 0:
            raise ValueError(f"port {port}: pause_timeout_s must be > 0, got {self.pause_timeout_s}")
        return self

    @property
    def shaped(self) -> bool:
        return bool(self.rate_bps or self.delay_s or self.drop_prob)

    def updated(self, port: int, changes: dict) -> "PortConfig":
        known = {f.name: f.type for f in fields(self)}
        new = asdict(self)
        for key, value in changes.items():
            key = _ALIASES.get(key, key)
            if key not in known:
                raise ValueError(f"port {port}: unknown TM setting '{key}' "
                                 f"(known: {', '.join(sorted(set(known) | set(_ALIASES)))})")
            try:
                new[key] = _coerce(key, value)
            except (TypeError, ValueError):
                raise ValueError(f"port {port}: TM setting '{key}' has bad value {value!r}") from None
        return PortConfig(**new).validate(port)


_ALIASES = {"depth": "queue_depth", "rate": "rate_bps", "drop": "drop_prob", "delay": "delay_s"}


def _coerce(key: str, value):
    if key == "lossless":
        if isinstance(value, str):
            if value.lower() in ("1", "true", "yes", "on"):
                return True
            if value.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(value)
        return bool(value)
    if key == "queue_depth":
        return int(value)
    if key == "rate_bps" and isinstance(value, str):
        return parse_rate(value)
    return float(value)


def parse_rate(text: str) -> float:
    """'10G', '250M', '64k', '1e6' -> bits per second."""
    text = text.strip()
    mult = {"k": 1e3, "m": 1e6, "g": 1e9}.get(text[-1:].lower())
    return float(text[:-1]) * mult if mult else float(text)


def parse_tm_flag(text: str) -> tuple[int | None, dict]:
    """``PORT:key=value,...`` (or ``*:...`` for every port) -> (port or None, changes)."""
    head, sep, body = text.partition(":")
    if not sep or not body:
        raise ValueError(f"--tm {text!r}: expected PORT:key=value[,key=value...]")
    port = None if head == "*" else int(head)
    changes = {}
    for item in body.split(","):
        k, eq, v = item.partition("=")
        if not eq:
            raise ValueError(f"--tm {text!r}: '{item}' is not key=value")
        changes[k.strip()] = v.strip()
    PortConfig().updated(port if port is not None else -1, changes)  # validate names and values now
    return port, changes


@dataclass
class PortStats:
    enqueued: int = 0
    sent: int = 0
    tail_drops: int = 0
    fault_drops: int = 0
    pauses: int = 0
    pause_s: float = 0.0
    pause_drops: int = 0
    tx_errors: int = 0
    queue_len: int = 0


class EgressPort:
    """One egress port: its config, counters, and (when shaped or lossless) its queue."""

    def __init__(self, number: int, transmit, config: PortConfig | None = None, rng=None,
                 transmit_wait=None, transmit_deferred=None):
        self.number = number
        self._transmit = transmit  # callable(frame): never blocks; OSError (e.g. buffer full) = drop
        # callable(frame) of the data plane's own sends (fast and direct paths): a port with a transmit
        # ring puts the frame there and the data plane flushes the port after its batch
        # (switch.ports.TxRing); the port's thread always uses ``transmit``, which sends at once
        self._transmit_dp = transmit_deferred or transmit
        # callable(frame, timeout): waits for room; lossless ports use it so that a full
        # socket buffer back-pressures instead of dropping
        self._transmit_wait = transmit_wait or (lambda frame, timeout: transmit(frame))
        self.config = config or PortConfig()
        self.stats = PortStats()
        self._rng = rng or random.Random()
        self._q: collections.deque = collections.deque()
        self._cv = threading.Condition()
        self._stop = False
        self._thread: threading.Thread | None = None
        self._fast = not self.config.shaped and not self.config.lossless
        self._direct = self._direct_ok(self.config)
        if not self._fast:
            self._start()

    @staticmethod
    def _direct_ok(cfg: PortConfig) -> bool:
        """Lossless and unshaped: frames may go straight to the port while nothing is queued."""
        return cfg.lossless and not cfg.shaped

    # -- configuration ---------------------------------------------------------------
    def configure(self, config: PortConfig) -> None:
        with self._cv:
            self.config = config
            self._fast = not config.shaped and not config.lossless
            self._direct = self._direct_ok(config)
            self._cv.notify_all()
        if not self._fast:
            self._start()

    def _start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name=f"tm-port{self.number}", daemon=True)
            self._thread.start()

    # -- data plane ------------------------------------------------------------------
    def _send_now(self, frame: bytes) -> bool | None:
        """Transmit at once: True when sent, False on a transmit error (counted), None when the
        socket buffer is full (the caller queues the frame instead)."""
        st = self.stats
        try:
            self._transmit_dp(frame)
        except BlockingIOError:
            return None
        except OSError:
            st.enqueued += 1
            st.tx_errors += 1
            return False
        st.enqueued += 1
        st.sent += 1
        return True

    def enqueue(self, frame: bytes) -> bool:
        """Hand a frame to the port; False if it was dropped."""
        st = self.stats
        if self._fast and not self._q:
            st.enqueued += 1
            try:
                self._transmit_dp(frame)
                st.sent += 1
                return True
            except OSError:
                st.tx_errors += 1
                return False
        if self._direct and not self._q:
            # lossless, unshaped, nothing queued (a Checkmate shadow port): straight to the port
            # without the lock.  The queue only fills on this side, and the port's thread pops a
            # frame after sending it, so an empty queue means nothing is ahead of this frame.
            # A full socket buffer queues it under the lock below (back-pressure).
            sent = self._send_now(frame)
            if sent is not None:
                return sent
        cfg = self.config
        if cfg.drop_prob and self._rng.random() < cfg.drop_prob:
            st.fault_drops += 1
            return False
        with self._cv:
            if cfg.lossless and not self._q and not cfg.rate_bps and not cfg.delay_s:
                # lossless, unshaped, nothing queued: straight to the port while its socket buffer
                # has room (no hand-off to the port's thread per frame); a full buffer queues the
                # frame and the port's thread waits for room, back-pressuring as before
                sent = self._send_now(frame)
                if sent is not None:
                    return sent
            if len(self._q) >= cfg.queue_depth:
                if not cfg.lossless:
                    st.tail_drops += 1
                    return False
                st.pauses += 1
                t0 = time.monotonic()
                deadline = t0 + cfg.pause_timeout_s
                while len(self._q) >= self.config.queue_depth and not self._stop:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    self._cv.wait(left)
                st.pause_s += time.monotonic() - t0
                if len(self._q) >= self.config.queue_depth:
                    st.pause_drops += 1
                    return False
            self._q.append((time.monotonic() + cfg.delay_s, frame))
            st.enqueued += 1
            st.queue_len = len(self._q)
            self._cv.notify_all()
        return True

    def _run(self) -> None:
        tokens, last = 0.0, time.monotonic()
        while True:
            with self._cv:
                while not self._q and not self._stop:
                    if self._fast:
                        return  # reconfigured to the fast path and drained
                    self._cv.wait(0.5)
                if self._stop:
                    return
                due, frame = self._q[0]
                cfg = self.config
            now = time.monotonic()
            if due > now:
                time.sleep(min(due - now, 0.05))
                continue
            if cfg.rate_bps:
                bucket = max(cfg.rate_bps / 8 * 0.002, 1600)  # ~2 ms of burst, >= one frame
                tokens = min(bucket, tokens + (now - last) * cfg.rate_bps / 8)
                last = now
                if tokens < len(frame):
                    time.sleep(min((len(frame) - tokens) * 8 / cfg.rate_bps, 0.05))
                    continue
                tokens -= len(frame)
            try:  # send before freeing the slot: a lossless queue stays full while the wire is
                if cfg.lossless:
                    self._transmit_wait(frame, cfg.pause_timeout_s)
                else:
                    self._transmit(frame)
                self.stats.sent += 1
            except OSError:
                self.stats.tx_errors += 1
            with self._cv:
                self._q.popleft()
                self.stats.queue_len = len(self._q)
                self._cv.notify_all()

    def close(self) -> None:
        with self._cv:
            self._stop = True
            self._cv.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=2)


class TrafficManager:
    """All egress ports of a switch.  ``transmit(port, frame)`` is the data-plane call."""

    def __init__(self, seed: int | None = None):
        self.ports: dict[int, EgressPort] = {}
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self.unknown_port_drops = 0

    def add_port(self, number: int, transmit, config: PortConfig | None = None, transmit_wait=None,
                 transmit_deferred=None) -> None:
        self.ports[number] = EgressPort(number, transmit, (config or PortConfig()).validate(number), self._rng,
                                        transmit_wait, transmit_deferred)

    def transmit(self, port: int, frame: bytes) -> bool:
        ep = self.ports.get(port)
        if ep is None:
            self.unknown_port_drops += 1
            return False
        return ep.enqueue(frame)

    def configure(self, port: int | None, changes: dict) -> dict[int, PortConfig]:
        """Apply ``changes`` to one port (or all with None); return the new configs."""
        with self._lock:
            targets = list(self.ports) if port is None else [port]
            for p in targets:
                if p not in self.ports:
                    raise ValueError(f"port {p}: no such port (ports: {sorted(self.ports)})")
            new = {p: self.ports[p].config.updated(p, changes) for p in targets}
            for p, cfg in new.items():
                self.ports[p].configure(cfg)
            return new

    def config(self, port: int) -> PortConfig:
        if port not in self.ports:
            raise ValueError(f"port {port}: no such port (ports: {sorted(self.ports)})")
        return self.ports[port].config

    def stats(self) -> dict[int, PortStats]:
        return {p: ep.stats for p, ep in self.ports.items()}

    def reset_stats(self, port: int | None = None) -> None:
        for p, ep in self.ports.items():
            if port is None or p == port:
                ep.stats = PortStats(queue_len=len(ep._q))

    def close(self) -> None:
        for ep in self.ports.values():
            ep.close()


# ----------------------------------------------------------------------------------
# Run-time control channel: one JSON object per line over TCP (loopback).
#   {"op": "get", "port": 4}                      -> {"ok": true, "config": {...}}
#   {"op": "set", "port": 4, "rate_bps": 1e8}     -> {"ok": true, "config": {...}}
#   {"op": "set", "port": null, "drop_prob": 0.1} -> every port
#   {"op": "stats"}                               -> {"ok": true, "stats": {"4": {...}},
#                                                     "switch": {"rx": ..., "pipeline_errors": ...}}
#   {"op": "reset_stats", "port": 4}
# Errors: {"ok": false, "error": "port 9: no such port (ports: [1, 2])"}
# ----------------------------------------------------------------------------------
class TMControlServer:
    """Serves the TM control protocol for one :class:`TrafficManager`."""

    def __init__(self, tm: TrafficManager, host: str = "127.0.0.1", port: int = 0, switch_stats=None):
        self.tm = tm
        handler = _make_handler(tm, switch_stats)
        self._srv = socketserver.ThreadingTCPServer((host, port), handler, bind_and_activate=False)
        self._srv.daemon_threads = True
        self._srv.allow_reuse_address = True
        self._srv.server_bind()
        self._srv.server_activate()
        self.address = self._srv.server_address[:2]
        self._thread = threading.Thread(target=self._srv.serve_forever, kwargs={"poll_interval": 0.2},
                                        name="tm-control", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._srv.shutdown()
        self._srv.server_close()


def handle_request(tm: TrafficManager, req: dict, switch_stats=None) -> dict:
    op = req.get("op")
    try:
        if op == "get":
            return {"ok": True, "config": asdict(tm.config(int(req["port"])))}
        if op == "set":
            changes = {k: v for k, v in req.items() if k not in ("op", "port")}
            port = req.get("port")
            new = tm.configure(None if port is None else int(port), changes)
            if port is None:
                return {"ok": True, "configs": {str(p): asdict(c) for p, c in new.items()}}
            return {"ok": True, "config": asdict(new[int(port)])}
        if op == "stats":
            out = {"ok": True, "stats": {str(p): asdict(s) for p, s in tm.stats().items()},
                   "unknown_port_drops": tm.unknown_port_drops}
            if switch_stats is not None:
                out["switch"] = switch_stats()
            return out
        if op == "reset_stats":
            port = req.get("port")
            tm.reset_stats(None if port is None else int(port))
            return {"ok": True}
        return {"ok": False, "error": f"unknown op {op!r} (ops: get, set, stats, reset_stats)"}
    except (KeyError, ValueError, TypeError) as exc:
        return {"ok": False, "error": str(exc) if not isinstance(exc, KeyError) else f"missing field {exc}"}


def _make_handler(tm: TrafficManager, switch_stats=None):
    class Handler(socketserver.StreamRequestHandler):
        timeout = 300

        def handle(self):
            for line in self.rfile:
                if not line.strip():
                    continue
                try:
                    req = json.loads(line)
                    if not isinstance(req, dict):
                        raise ValueError("request must be a JSON object")
                    resp = handle_request(tm, req, switch_stats)
                except ValueError as exc:
                    resp = {"ok": False, "error": f"bad request: {exc}"}
                self.wfile.write(json.dumps(resp).encode() + b"\n")
                self.wfile.flush()

    return Handler
