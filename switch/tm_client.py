"""Python client of the switch's run-time traffic-manager control channel.

    from switch.tm_client import TMClient
    with TMClient("127.0.0.1", 9600) as tm:
        tm.set(4, lossless=True, queue_depth=64)
        tm.set(2, drop_prob=0.01, delay_s=0.002, rate_bps=1e9)
        print(tm.stats()[4]["pauses"])

Protocol: one JSON object per line over TCP (see :mod:`switch.tm`).  Server-side
errors raise :class:`TMError` with the server's message (it names the port and
setting at fault).
"""
from __future__ import annotations

import json
import socket


class TMError(RuntimeError):
    """The switch refused a TM request."""


class TMClient:
    def __init__(self, host: str, port: int, timeout: float = 5.0):
        self._sock = socket.create_connection((host, port), timeout=timeout)
        self._rfile = self._sock.makefile("rb")

    def _call(self, **req) -> dict:
        self._sock.sendall(json.dumps(req).encode() + b"\n")
        line = self._rfile.readline()
        if not line:
            raise TMError("TM control channel closed by the switch")
        resp = json.loads(line)
        if not resp.get("ok"):
            raise TMError(resp.get("error", "unknown error"))
        return resp

    def get(self, port: int) -> dict:
        return self._call(op="get", port=port)["config"]

    def set(self, port: int | None, **settings) -> dict:
        """Change settings of one port (None: every port); returns the new config(s)."""
        resp = self._call(op="set", port=port, **settings)
        return resp.get("config") or resp.get("configs")

    def stats(self) -> dict[int, dict]:
        return {int(p): s for p, s in self._call(op="stats")["stats"].items()}

    def switch_stats(self) -> dict:
        """Data-plane counters of the switch: rx, tx, packet_in, packet_out, pipeline_errors..."""
        return self._call(op="stats").get("switch", {})

    def reset_stats(self, port: int | None = None) -> None:
        self._call(op="reset_stats", port=port)

    def close(self) -> None:
        self._rfile.close()
        self._sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
