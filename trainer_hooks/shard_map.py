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
it does not own; it counts them (``ShadowStatus.misrouted`` / ``ManifestAck.misrouted``) and rank
0 raises :class:`ShardMapMismatch` at its next optimizer step (the first manifest's ack), naming
shard and parameters -- instead of losing every iteration and resyncing forever.
"""
from __future__ import annotations

from typing import Mapping


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
    theirs = ", ".join(f"param {p} (shard {owner.get(p, '?')} in the plan)" for p in params[:8])
    return (f"shard map mismatch: shadow {addr} (shard {shard}) received {count} cop(ies) of parameters it does "
            f"not own: {theirs}. The switch's shard_map table differs from the trainers' plan; program the switch "
            f"with the plan (`ddp_train.py --print-shard-plan K`, `checkmate-ctl ... program`) or give the trainers "
            f"the switch's map (attach(shard_map=...) / ddp_train.py --shard-map)")
