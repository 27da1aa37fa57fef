"""One shard map for the switch and the trainers, and a loud error when they disagree.

The switch copies each FINAL chunk to the shadow its ``shard_map`` table names for the chunk's
``param_id``; the trainers bootstrap every shard with the parameters *they* think it owns.  The
two must be the same map.  Its single source is :func:`trainer_hooks.shard_plan` (greedy by size),
unless the user hands one over explicitly -- ``attach(..., shard_map=...)`` /
``ddp_train.py --shard-map`` / a topology file's ``shard_map`` in the testbed, which then gives it
to the trainers -- in either form:

* owner form ``{param_id: shard}`` (what ``ddp_train.py --print-shard-plan`` prints as ``owner``);
* range form ``{shard: [[lo, hi], ...]}`` (a topology file's ``shard_map``, inclusive ranges).

:func:`resolve_shard_map` turns either into ``{param_id: shard}`` for the model and refuses a map
that leaves a parameter without a shard, names a shard that does not exist or gives a parameter
to two shards.

If the switch was programmed with another map anyway, each shadow receives copies of parameters
it does not own.  Two checks catch it:

* **at bootstrap** (switch mode, :func:`verify_switch_map`): right after bootstrapping the shadows,
  rank 0 sends one *probe* per parameter -- a FINAL chunk of iteration 0 (no gradient has it), one
  element, with the ``rank`` field set to :data:`PROBE_RANK` -- towards rank 1 through the switch.
  The switch copies it like any FINAL chunk, to the shadow *its* map names; the shadow records the
  probes of params it owns (``ShadowStatus.probed_params``) and counts the others as ``misrouted``;
  the next rank drops the original (a rank that is not its ring predecessor) and no heartbeat is
  raised (no ``heartbeat_slot`` for that rank).  A misrouted probe, or an owned param whose probe
  never arrived (resent every 0.25 s for ``timeout`` s), raises :class:`ShardMapMismatch` on every
  rank before the first gradient;
* **during training** (every mode): a shadow counts copies of params it does not own
  (``ManifestAck.misrouted``) and rank 0 raises :class:`ShardMapMismatch` from its next optimizer step.
"""
from __future__ import annotations

import socket
import time
from typing import Mapping

from checkmate import wire

#: the ``rank`` header field of a probe: no trainer has it (no heartbeat slot, the ring drops it)
PROBE_RANK = wire.FIELD_MAX["rank"]


class ShardMapMismatch(RuntimeError):
    """The switch sends shadows copies of parameters the trainers' shard map gives to other shards."""


def resolve_shard_map(spec: Mapping, num_params: int, num_shards: int, *, what: str = "shard_map") -> dict[int, int]:
    """``{param_id: shard}`` for ``num_params`` parameters from the owner or range form (see above)."""
    if not isinstance(spec, Mapping) or not spec:
        raise ValueError(f"{what}: expected {{param_id: shard}} or {{shard: [[lo, hi], ...]}}, got {spec!r}")
    ranged = all(isinstance(v, (list, tuple)) for v in spec.values())
    owner: dict[int, int] = {}
    try:
        if ranged:
            for s, rs in spec.items():
                s = int(s)
                for lo, hi in rs:
                    for pid in range(int(lo), min(int(hi), num_params - 1) + 1):
                        if pid in owner and owner[pid] != s:
                            raise ValueError(f"{what}: param_id {pid} is in the ranges of shard {owner[pid]} and shard {s}")
                        owner[pid] = s
        else:
            owner = {int(k): int(v) for k, v in spec.items()}
    except (TypeError, ValueError) as e:
        if str(e).startswith(what):
            raise
        raise ValueError(f"{what}: expected {{param_id: shard}} or {{shard: [[lo, hi], ...]}} ({e})") from None
    missing = [p for p in range(num_params) if p not in owner]
    if missing:
        raise ValueError(f"{what}: param_ids {missing[:10]} of the model ({num_params} parameters) have no shard")
    extra = sorted(p for p in owner if not 0 <= p < num_params)
    if extra:
        raise ValueError(f"{what}: param_ids {extra[:10]} do not exist (the model has {num_params} parameters)")
    bad = sorted({s for s in owner.values() if not 0 <= s < num_shards})
    if bad:
        raise ValueError(f"{what}: shard(s) {bad} do not exist (there are {num_shards} shadows, shards 0..{num_shards - 1})")
    return dict(sorted(owner.items()))


def mismatch_message(shard: int, addr, params: list[int], count: int, owner: Mapping[int, int]) -> str:
    theirs = ", ".join(f"param {p} (shard {owner.get(p, '?')} in the trainers' map)" for p in params[:8])
    return (f"shard map mismatch: shadow {addr} (shard {shard}) received {count} cop(ies) of parameters it does "
            f"not own: {theirs}. The switch's shard_map table differs from the trainers' map; program the switch "
            f"with the plan (`ddp_train.py --print-shard-plan K`, `checkmate-ctl ... program`) or give the trainers "
            f"the switch's map (attach(shard_map=...) / ddp_train.py --shard-map)")


def probe_datagrams(job_id: int, param_ids) -> list[bytes]:
    """One probe per parameter: a one-element FINAL chunk of iteration 0 (see the module docstring)."""
    return [wire.encode(wire.ChunkHeader(job_id=job_id, iteration=0, rank=PROBE_RANK, param_id=pid, count=1,
                                         flags=wire.FLAG_FINAL), b"\0\0\0\0") for pid in param_ids]


def verify_switch_map(job_id: int, owner: Mapping[int, int], clients, shadows, bind_ip: str, next_rank,
                      *, timeout: float = 5.0, interval: float = 0.25) -> None:
    """Probe the switch's map (see the module docstring); :class:`ShardMapMismatch` if it is not ``owner``."""
    dgrams = probe_datagrams(job_id, sorted(owner))
    want = {k: {p for p, s in owner.items() if s == k} for k in range(len(clients))}
    deadline = time.monotonic() + timeout
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind((bind_ip, 0))
        while True:
            for d in dgrams:
                sock.sendto(d, next_rank)
            time.sleep(interval)
            statuses = [c.status() for c in clients]
            for k, st in enumerate(statuses):
                if getattr(st, "misrouted", 0):
                    raise ShardMapMismatch(mismatch_message(k, shadows[k], list(st.misrouted_params), st.misrouted,
                                                            owner) + " (probed at bootstrap)")
            missing = {k: sorted(want[k] - set(getattr(st, "probed_params", None) or ())) for k, st in enumerate(statuses)}
            if not any(missing.values()):
                return
            if time.monotonic() > deadline:
                raise ShardMapMismatch(
                    "shard map mismatch: the switch copied no probe of " + "; ".join(
                        f"param(s) {m[:8]} to shard {k} ({shadows[k]})" for k, m in missing.items() if m) +
                    f" within {timeout}s: its shard_map table does not send them to the shard that owns them in "
                    "the trainers' plan (or the shadow link drops everything). Program the switch with the plan "
                    "(`ddp_train.py --print-shard-plan K`) or give the trainers the switch's map (--shard-map)")
