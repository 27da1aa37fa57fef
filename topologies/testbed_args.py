"""Argument checks of ``checkmate testbed``, all before anything starts.

A wrong command line is a usage error (exit 2 with the usage line, like any argparse error), never a
failed run: no results folder, no log folder, no switch, namespace or process.  :func:`check` runs
right after parsing and

* resolves ``--topo``: a built-in name (``star``, ``leafspine``; a near miss such as ``starr`` is
  answered with the list) or a topology file, validated as a whole by ``controller.topology`` (the
  error names the file, the key path and the allowed values);
* refuses ``--trainers``/``--shadows`` that contradict a topology file (the file decides the hosts),
  and fills in the built-ins' defaults otherwise;
* checks ranges: ``--iters`` >= 1, ``--fail-at`` in 1..iters-1 (0 = no failure), ``--fail-rank`` a
  rank of the topology, loss a probability, counts and timeouts positive.

The checked numbers are written back into ``args`` (``trainers``, ``shadows``), so the runner does
not decide them a second time.
"""
from __future__ import annotations

import argparse
import difflib
from pathlib import Path

from . import generate

DEFAULT_TRAINERS = {"star": 3, "leafspine": 4}
DEFAULT_SHADOWS = 2


def _file_topology(p: argparse.ArgumentParser, path: Path):
    from controller.topology import Topology, TopologyError
    try:
        topo = Topology.load(path)
    except TopologyError as e:
        p.error(str(e))
    n_tr, n_sh = len(topo.trainers()), len(topo.shadows())
    if n_tr < 2 or n_sh < 1:
        p.error(f"--topo {path}: the testbed needs at least 2 trainers and 1 shadow; the file has {n_tr} "
                f"trainer(s) and {n_sh} shadow(s) (hosts with \"role\": \"trainer\" / \"shadow\")")
    return topo


def check(p: argparse.ArgumentParser, a: argparse.Namespace) -> argparse.Namespace:
    """Validate ``a`` (parsed by ``p``); a problem ends in ``p.error`` (usage, exit status 2)."""
    if a.stop:
        return a
    if a.topo in generate.GENERATORS:
        a.trainers = DEFAULT_TRAINERS[a.topo] if a.trainers is None else a.trainers
        a.shadows = DEFAULT_SHADOWS if a.shadows is None else a.shadows
        try:
            generate._check(a.trainers, a.shadows)
        except ValueError as e:
            p.error(f"--topo {a.topo} --trainers {a.trainers} --shadows {a.shadows}: {e}")
    else:
        path = Path(a.topo)
        if not path.is_file():
            builtins = ", ".join(generate.GENERATORS)
            near = difflib.get_close_matches(a.topo, list(generate.GENERATORS), n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            p.error(f"--topo {a.topo!r} is neither a built-in topology ({builtins}) nor a topology file{hint}")
        topo = _file_topology(p, path)
        n_tr, n_sh = len(topo.trainers()), len(topo.shadows())
        for flag, given, has, names in (("--trainers", a.trainers, n_tr, topo.trainers()),
                                        ("--shadows", a.shadows, n_sh, topo.shadows())):
            if given is not None and given != has:
                p.error(f"{flag} {given} does not apply to a topology file: {path} has {has} "
                        f"({', '.join(h.name for h in names)}); drop {flag} or edit the file")
        a.trainers, a.shadows = n_tr, n_sh
    if a.iters < 1:
        p.error(f"--iters {a.iters}: must be at least 1")
    if a.fail_at is not None and a.fail_at != 0 and not 0 < a.fail_at < a.iters:
        p.error(f"--fail-at {a.fail_at} must be within 1..{a.iters - 1} (below --iters {a.iters}; "
                "0 = no failure)")
    if a.fail_at is None and a.iters < 2:
        p.error(f"--iters {a.iters} leaves no iteration to fail at; use --iters 2 or more, or --fail-at 0")
    if a.fail_rank is not None and not 0 <= a.fail_rank < a.trainers:
        p.error(f"--fail-rank {a.fail_rank} is not a rank of this topology (0..{a.trainers - 1})")
    if not 0.0 <= a.shadow_loss <= 1.0:
        p.error(f"--shadow-loss {a.shadow_loss}: must be a drop probability 0..1")
    for flag, v, lo in (("--shadow-delay-ms", a.shadow_delay_ms, 0), ("--persist-every", a.persist_every, 0),
                        ("--shadow-history", a.shadow_history, 1), ("--shadow-keep", a.shadow_keep, 1)):
        if v < lo:
            p.error(f"{flag} {v}: must be at least {lo}")
    for flag, v in (("--phase-timeout", a.phase_timeout), ("--watchdog-timeout", a.watchdog_timeout)):
        if not v > 0:
            p.error(f"{flag} {v}: must be more than 0 seconds")
    if a.job_id is not None and not 0 <= a.job_id <= 0xFFFFFFFF:
        p.error(f"--job-id {a.job_id}: must be 0..4294967295")
    return a
