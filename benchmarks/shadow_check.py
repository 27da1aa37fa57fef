"""Did the shadows keep up?  The bench's check per segment, for the methods that feed shadows.

A bench figure for Checkmate only means something if the shadows really did checkpoint every
iteration of the segment -- in particular under ``--shadow-priority idle``, where they get a CPU
only when the trainers and the switch leave one.  Rank 0 of ``benchmarks.train_bench`` measures,
per segment with shadows (``checkmate``, ``host``):

* ``lag_at_end``: per shard, how many iterations behind the trainers' last timed iteration its
  newest published state was when the trainers finished (late, not yet wrong: the shadows finish
  while the next segment starts);
* ``latest``: per shard, the newest published iteration after waiting (``--shadow-wait``) for the
  last one -- every shard must reach ``target``, the segment's last iteration;
* ``losses`` / ``resyncs`` / ``unreplayable`` during the segment: iterations a shard gave up on,
  the bootstraps rank 0 sent to repair them, iterations that could not be replayed.  Each must be 0:
  a resync hides a loss from ``latest`` but not from a checkpoint-every-iteration claim.

:func:`verdict` turns that record into ``(ok, text)``; ``checkmate bench`` prints it per segment,
fails the run (exit status 1, ``error`` in ``bench.json``) when a segment fails it, and states the
summary under the table (:func:`summary_lines`).  This module imports nothing heavy: the trainer
processes import it.
"""
from __future__ import annotations

SHADOW_METHODS = ("checkmate", "host")


def counts(link) -> dict:
    """Rank 0's link counters and each shard's loss count, before a segment's timed iterations."""
    st = link.stats
    return {"resyncs": st.resyncs + st.group_resyncs, "unreplayable": st.unreplayable,
            "losses": [_status_losses(c) for c in link.clients]}


def _status_losses(client) -> int | None:
    try:
        return client.status().losses
    except (OSError, RuntimeError, ValueError):
        return None


def latest(link) -> list:
    """Each shard's newest published iteration (None: not reachable)."""
    out = []
    for c in link.clients:
        try:
            out.append(c.status().latest_iteration)
        except (OSError, RuntimeError, ValueError):
            out.append(None)
    return out


def record(link, target: int, caught_up: bool, before: dict, latest_at_end: list) -> dict:
    """The segment's ``shadows`` record (see the module docstring)."""
    after = counts(link)
    now = latest(link)
    losses = [None if a is None or b is None else a - b for a, b in zip(after["losses"], before["losses"])]
    return {"target": target, "caught_up": bool(caught_up), "latest": now,
            "lag_at_end": [None if x is None else target - x for x in latest_at_end],
            "losses": losses, "resyncs": after["resyncs"] - before["resyncs"],
            "unreplayable": after["unreplayable"] - before["unreplayable"]}


def verdict(seg: dict) -> tuple[bool, str]:
    """``(ok, text)`` for one segment's ``end`` record; ok without a ``shadows`` record when the
    method feeds no shadows."""
    name = f"round {seg.get('round')} {seg.get('method')}"
    if "shadows" not in seg and seg.get("method") in SHADOW_METHODS:
        return True, f"{name}: shadows not checked (a record from before this check: --reanalyze of an old run)"
    s = seg.get("shadows")
    if s is None:
        if seg.get("method") in SHADOW_METHODS:
            return False, f"{name}: no shadow record (the segment did not check its shadows)"
        return True, f"{name}: no shadows"
    problems = []
    if not s["caught_up"] or any(x is None or x < s["target"] for x in s["latest"]):
        problems.append(f"not at the last iteration {s['target']} (published: {s['latest']})")
    if any(x is None or x > 0 for x in s["losses"]):
        problems.append(f"losses {s['losses']}")
    if s["resyncs"]:
        problems.append(f"{s['resyncs']} resync(s)")
    if s["unreplayable"]:
        problems.append(f"{s['unreplayable']} unreplayable iteration(s)")
    lag = ", ".join("?" if x is None else str(x) for x in s["lag_at_end"])
    if problems:
        return False, f"{name}: SHADOWS FAILED: " + "; ".join(problems) + f" (lag at the last timed iteration: {lag})"
    return True, (f"{name}: shadows at iteration {s['target']}, no loss, no resync "
                  f"(lag at the last timed iteration: {lag})")


def summary_lines(segments: list[dict]) -> list[str]:
    """Under the table: whether every shadow segment passed, with the lag figures, else each failure."""
    checked = [s for s in segments if s.get("method") in SHADOW_METHODS and "shadows" in s]
    if not checked:
        return ["shadows not checked (segments recorded before the check)"] if any(
            s.get("method") in SHADOW_METHODS for s in segments) else []
    results = [verdict(s) for s in checked]
    bad = [t for ok, t in results if not ok]
    lags = [x for s in checked for x in (s.get("shadows") or {}).get("lag_at_end", []) if x is not None]
    lag = f"lag at the trainers' last timed iteration: median {sorted(lags)[len(lags) // 2]}, max {max(lags)} iterations" \
        if lags else "lag not measured"
    if not bad:
        return [f"shadows kept up: all {len(checked)} segment(s) with shadows ended with every shard at the "
                f"segment's last iteration, no loss, no resync ({lag})"]
    return [f"SHADOWS FAILED in {len(bad)} of {len(checked)} segment(s) ({lag}):"] + [f"  {t}" for t in bad]
