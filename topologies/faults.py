"""``checkmate faults``: every fault scenario of issue #11 on the Mininet testbed, one table.

    checkmate faults [--quick] [--seed S] [--out DIR] [--no-doc] [--trials N] [--only NAME,...]
                     [--switch embedded|bmv2]

One network (star, 3 trainers, 2 shadows, the embedded switch or, with ``--switch bmv2``, BMv2
``simple_switch_grpc``) and one failure-free **reference** run
(its shadows persist every iteration: the per-iteration ground truth).  Then *chains*: fresh shadows,
a fresh job, and a sequence of *segments* -- one trainer incarnation each.  A segment carries one
scenario's fault (switch-injected loss on the shadow ports; a shadow killed and restarted; the switch
process restarted and reprogrammed; a slow shadow port, lossless or lossy; or nothing but the trainer
kill), then a trainer is SIGKILLed; the next segment resumes (``--resume``: ``trainer_hooks.restore``)
and is itself the next scenario's segment; the last one runs to the end.  Per scenario:

* **lost**: what the fault cost (packets dropped by the switch, shadow iterations lost and resynced,
  the killed trainer's iteration),
* **recovery**: seconds from the fault to the state being safe again (trainer kill: to the first
  iteration of the resumed job; shadow/switch: until every shard published past the fault again),
* **resumed / repeated**: the iteration the job resumed from, iterations run twice,
* **bit-identical**: the resumed segment's per-iteration losses are bitwise the reference's, the
  chain's final model + optimizer equal the reference's tensor by tensor, and every checkpoint the
  shadows hold (in memory and on disk) right after the kill equals the reference shadows' checkpoint
  of the same iteration bit for bit; no file is torn (``store.load_state`` verifies it).

On BMv2 the scenarios it can express run (trainer kills, a shadow killed and restarted, the switch
restarted and reprogrammed -- the quick suite adds the switch restart there); loss and slow-port
scenarios need the embedded switch's traffic manager (run-time per-port loss, rate and lossless
queues, which BMv2 does not have), so they are listed as SKIP with that reason, never run half-way.

Writes ``results/faults/<timestamp>/faults.json`` (+ the testbed's metrics there) and the table into
``docs/RELIABILITY.md`` between ``<!-- faults:begin -->`` and ``<!-- faults:end -->`` (``--no-doc``:
not).  Exit status 0 only when every scenario passed.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sys
import time
from pathlib import Path

from checkmate import paths

from . import generate
from . import runner as R
from .lifecycle import Terminated, cannot_start, teardown_on_exit

DOC = paths.ROOT / "docs" / "RELIABILITY.md"
BEGIN, END = "<!-- faults:begin -->", "<!-- faults:end -->"
#: the BMv2 table has its own section, so neither run overwrites the other's
MARKERS = {"embedded": (BEGIN, END), "bmv2": ("<!-- faults-bmv2:begin -->", "<!-- faults-bmv2:end -->")}
#: scenarios that change the switch's per-port traffic manager at run time (embedded switch only)
NEEDS_TM = ("loss", "slow")
TM_REASON = ("needs the embedded switch's traffic manager (run-time per-port loss, rate, lossless queues); "
             "BMv2 has none -- run it with --switch embedded")
NEVER = 10 ** 9  # injector.fail_at until a scenario decides when to kill


# ------------------------------------------------------------------------------------------------
# the plan
# ------------------------------------------------------------------------------------------------

def row(name, kind, **kw) -> dict:
    return {"name": name, "kind": kind, **kw}


def plan(quick: bool, seed: int, trials: int | None, n_trainers: int, switch: str = "embedded") -> tuple[list, int]:
    """``([(chain, [rows])], iters)``; on BMv2 the quick chain also restarts the switch."""
    rng = random.Random(seed)
    slow = dict(rate_bps=2e6, queue_depth=8, delay_s=0.002)

    def kills(n):
        return [row(f"trainer killed at a random iteration (trial {i + 1}/{n})", "trainer",
                    gap=rng.randint(2, 9), rank=rng.randrange(n_trainers)) for i in range(n)]
    if quick:
        chains = [("q", [row("loss 1 % on shadow ports", "loss", tm=dict(drop_prob=0.01), gap=25),
                         row("shadow sh1 killed and restarted mid-run", "shadow", victim="sh1", gap=6),
                         *([row("switch s1 restarted, controller reprograms", "switch", switch="s1", gap=6)]
                           if switch == "bmv2" else []),
                         *kills(trials or 1)])]
        # the chain's last kill lands near iteration 150 on BMv2 and 300 on the embedded switch (a
        # shadow restart is timed in seconds, so a faster machine gets further): 800 keeps 2.5x
        # headroom; the reference and the last segment run to the end, so this sets most of the time
        return chains, 800
    chains = [
        ("loss", [row("loss 0.1 % on shadow ports", "loss", tm=dict(drop_prob=0.001), gap=30),
                  row("loss 1 % on shadow ports", "loss", tm=dict(drop_prob=0.01), gap=25),
                  row("loss 5 % on shadow ports", "loss", tm=dict(drop_prob=0.05), gap=25)]),
        ("infra", [row("shadow sh1 killed and restarted mid-run", "shadow", victim="sh1", gap=6),
                   row("switch s1 restarted, controller reprograms", "switch", switch="s1", gap=6)]),
        ("slow", [row("slow shadow ports (2 Mbit/s, 2 ms), lossless: back-pressure", "slow",
                      tm=dict(slow, lossless=True), gap=15),
                  row("slow shadow ports (2 Mbit/s, 2 ms), lossy: tail drops", "slow",
                      tm=dict(slow, lossless=False), gap=15)]),
        ("kill", kills(trials or 10)),
    ]
    return chains, 1200


def for_target(chains: list, switch: str) -> tuple[list, list]:
    """``(chains that run, rows skipped)``: on BMv2 the traffic-manager scenarios are taken out."""
    if switch == "embedded":
        return chains, []
    kept, skipped = [], []
    for name, rows in chains:
        skipped += [r for r in rows if r["kind"] in NEEDS_TM]
        rs = [r for r in rows if r["kind"] not in NEEDS_TM]
        if rs:
            kept.append((name, rs))
    return kept, skipped


def skipped_row(r: dict) -> dict:
    return {"scenario": r["name"], "kind": r["kind"], "identical": "-", "verdict": "SKIP", "failed_checks": [],
            "lost": "", "recovery_s": None, "resumed_iteration": None, "repeated": None, "skip_reason": TM_REASON}


# ------------------------------------------------------------------------------------------------
# the suite
# ------------------------------------------------------------------------------------------------

def _bits(t):
    import torch
    return t.detach().contiguous().reshape(-1).view(torch.uint8)


def same_state(a, b) -> str:
    """'' when two ShardStates hold bit-identical tensors and optimizer state, else the first difference."""
    import torch
    if set(a.tensors) != set(b.tensors):
        return f"params {sorted(a.tensors)} vs {sorted(b.tensors)}"
    for pid in a.tensors:
        if not torch.equal(_bits(a.tensors[pid]), _bits(b.tensors[pid])):
            return f"param {pid} differs"
        sa, sb = a.opt_state.get(pid, {}), b.opt_state.get(pid, {})
        if set(sa) != set(sb):
            return f"param {pid} optimizer keys {sorted(sa)} vs {sorted(sb)}"
        for k in sa:
            if not torch.equal(_bits(sa[k]), _bits(sb[k])):
                return f"param {pid} optimizer {k} differs"
    return ""


class FaultSuite(R.Testbed):
    def __init__(self, args, chains, seed: int):
        super().__init__(args)
        self.chains, self.seed = chains, seed
        self.rows: list[dict] = []
        self._port = R.MASTER_PORT
        self._ref_cache: dict = {}
        self.shadow_ports = self._shadow_ports()
        self.n_trainers = len(generate.trainers_of(self.topo))

    def _shadow_ports(self) -> list[tuple[str, int]]:
        shadows = {n for n, _ in generate.shadows_of(self.topo)}
        out = []
        for na, pa, nb, pb, _ in generate.links(self.topo):
            if na in shadows and pb is not None:
                out.append((nb, pb))
            elif nb in shadows and pa is not None:
                out.append((na, pa))
        return out

    def next_port(self) -> int:
        self._port += 1
        return self._port

    # -- TM -------------------------------------------------------------------------------------
    def tm_get(self) -> dict:
        from switch.tm_client import TMClient
        out = {}
        for sw, port in self.shadow_ports:
            with TMClient("127.0.0.1", self.net.get(sw).tm_port) as tm:
                out[(sw, port)] = tm.get(port)
        return out

    def tm_port_stats(self) -> dict:
        from switch.tm_client import TMClient
        out = {}
        for sw, port in self.shadow_ports:
            if self.net.get(sw).tm_addr is None:  # BMv2: no traffic-manager channel
                out[(sw, port)] = {}
                continue
            try:
                with TMClient("127.0.0.1", self.net.get(sw).tm_port) as tm:
                    out[(sw, port)] = tm.stats().get(port, {})
            except Exception:  # noqa: BLE001 -- a restarting switch
                out[(sw, port)] = {}
        return out

    def tm_apply(self, settings: dict) -> None:
        for sw, port in self.shadow_ports:
            self.set_tm(sw, port, **settings)

    def tm_restore(self, base: dict) -> None:
        keys = ("drop_prob", "delay_s", "rate_bps", "queue_depth", "lossless")
        for (sw, port), cfg in base.items():
            self.set_tm(sw, port, **{k: cfg[k] for k in keys if k in cfg})

    # -- shadows --------------------------------------------------------------------------------
    def ref_state(self, shard: int, name: str, it: int):
        from shadow import store
        key = (shard, it)
        if key not in self._ref_cache:
            path = store.shard_path(self.out / "ckpt" / "reference" / name, self.job_id, shard, it)
            self._ref_cache[key] = store.load_state(path) if path.exists() else None
        return self._ref_cache[key]

    def audit(self, chain: str) -> dict:
        """Every checkpoint the shadows hold right now (memory: fetched over the management API; disk:
        every file) compared bit for bit with the reference's of the same iteration; torn files."""
        from shadow import store
        from shadow.client import ShadowClient
        from trainer_hooks.restore import plan_restore
        from .netns import in_netns
        out = {"compared": 0, "unchecked": 0, "wrong": [], "torn": [], "shards": {}, "errors": []}
        statuses = []
        for name, h in generate.shadows_of(self.topo):
            k, ip = h["shard"], h["ip"].split("/")[0]

            def check(it, st, where):
                ref = self.ref_state(k, name, it)
                if it == 0 or ref is None:
                    out["unchecked"] += 1
                    return
                diff = same_state(st, ref)
                out["compared"] += 1
                if diff or st.iteration != it:
                    out["wrong"].append(f"shard {k} iteration {it} ({where}): {diff or 'wrong iteration'}")
            try:
                with in_netns(self.net.get(name).pid):
                    c = ShadowClient(ip, h["mgmt_port"], timeout=15.0)
                    try:
                        st = c.status()
                        statuses.append(st)
                        for it in st.held_iterations:
                            check(it, c.fetch(it), "memory")
                    finally:
                        c.close()
            except Exception as e:  # noqa: BLE001 -- a dead shadow holds nothing
                out["errors"].append(f"{name}: {type(e).__name__}: {e}")
                continue
            files = store.list_iterations(self.out / "ckpt" / chain / name, self.job_id, k)
            for it in files:
                try:
                    s = store.load_state(store.shard_path(self.out / "ckpt" / chain / name, self.job_id, k, it))
                except store.CheckpointCorrupt as e:
                    out["torn"].append(str(e))
                    continue
                except FileNotFoundError:  # pruned (or reused for a newer file) since the listing
                    files = [x for x in files if x != it]
                    continue
                check(it, s, "disk")
            out["shards"][k] = {"memory": list(st.held_iterations), "disk": files, "losses": st.losses,
                                "latest": st.latest_iteration}
        if len(statuses) == len(generate.shadows_of(self.topo)):
            out["plan"] = list(plan_restore(statuses))
        return out

    def shard_recovered(self, after_t: float, past_it: int) -> bool:
        """Every shard published an iteration > ``past_it`` and needs no resync (poller samples newer than
        ``after_t``, seconds since t0)."""
        for p in self.pollers.values():
            s = p.latest
            if not s or s["t"] < after_t or s.get("needs_resync") or (s.get("latest_iteration") or -1) <= past_it:
                return False
        return True

    # -- one segment ----------------------------------------------------------------------------
    def make_hook(self, r: dict, phase: str, chain: str, st: dict):
        rng = random.Random(f"{self.seed}-{phase}")
        st.update(step=0, t_start=time.monotonic())

        def rel():
            return round(time.monotonic() - self.t0, 3)

        def kill_in(cur, gap):
            if self.injector is not None and self.injector.fail_at == NEVER:
                self.injector.fail_at = cur + gap
                st["kill_planned_at"] = cur + gap

        def hook(ph, last):
            if ph != phase:
                return
            its = [v for v in last.values() if v is not None]
            if not its:
                return
            cur = int(max(its))
            kind = r["kind"]
            if kind in ("trainer", "loss", "slow"):
                kill_in(cur, r["gap"])
            elif kind == "shadow":
                if st["step"] == 0 and cur >= st.setdefault("first", cur) + 3:
                    self.kill_shadow(r["victim"])
                    st.update(step=1, t_fault=rel(), it_fault=cur, t_killed=time.monotonic())
                elif st["step"] == 1 and time.monotonic() - st["t_killed"] > 1.0 + rng.random():
                    self.restart_shadow(r["victim"], chain)
                    st.update(step=2, t_restarted=rel(), it_restarted=cur)
                elif st["step"] == 2:
                    if self.shard_recovered(st["t_restarted"], st["it_restarted"]):
                        st.update(step=3, t_recovered=rel(), it_recovered=cur)
                        kill_in(cur, r["gap"])
                    elif rel() - st["t_restarted"] > 60:
                        st.update(step=3, note="shadow not resynced within 60 s")
                        kill_in(cur, 1)
            elif kind == "switch":
                if st["step"] == 0 and cur >= st.setdefault("first", cur) + 3:
                    st.update(step=1, t_fault=rel(), it_fault=cur)
                    self.restart_switch(r["switch"])
                    st.update(step=2, t_reprogrammed=rel())
                elif st["step"] == 2:
                    if cur > st["it_fault"] and self.shard_recovered(st["t_reprogrammed"], st["it_fault"]):
                        st.update(step=3, t_recovered=rel(), it_recovered=cur)
                        kill_in(cur, r["gap"])
                    elif rel() - st["t_reprogrammed"] > 90:
                        st.update(step=3, note="training/shadows not back within 90 s")
                        kill_in(cur, 1)
        return hook

    def segment(self, chain: str, idx: int, r: dict, resume: bool) -> dict:
        phase = f"{chain}{idx}"
        st: dict = {"phase": phase}
        base = self.tm_get() if r.get("tm") else None
        tm0 = self.tm_port_stats()
        hook = self.make_hook(r, phase, chain, st)
        self.tick_hooks.append(hook)
        try:
            if r.get("tm"):
                self.tm_apply(r["tm"])
                st["t_fault"] = round(time.monotonic() - self.t0, 3)
            info = self.train_phase(phase, resume, self.next_port(), fail_at=NEVER, fail_rank=r.get("rank", self.n_trainers - 1))
        finally:
            self.tick_hooks.remove(hook)
            if base is not None:
                self.tm_restore(base)
        tm1 = self.tm_port_stats()
        st["tm"] = {f"{sw}:{p}": {k: tm1[(sw, p)].get(k, 0) - tm0.get((sw, p), {}).get(k, 0)
                                  for k in ("fault_drops", "tail_drops", "pauses", "pause_drops", "sent")
                                  if isinstance(tm1[(sw, p)].get(k, 0), (int, float))}
                    for sw, p in self.shadow_ports}
        st["info"] = info
        st["audit"] = self.audit(chain)
        return st

    # -- verdicts -------------------------------------------------------------------------------
    def losses_identical(self, phase: str) -> tuple[bool, str, int]:
        ref = {(x["rank"], R.iteration_of(x)): x.get("loss") for x in self.iterations if x["phase"] == "reference"}
        rows = sorted((x for x in self.iterations if x["phase"] == phase), key=lambda x: (R.iteration_of(x), x["rank"]))
        for x in rows:
            key = (x["rank"], R.iteration_of(x))
            if ref.get(key) != x.get("loss"):
                return False, f"iteration {key[1]} rank {key[0]}: {x.get('loss')!r} vs {ref.get(key)!r}", len(rows)
        return bool(rows), "" if rows else "no iterations", len(rows)

    def restore_line(self, phase: str) -> dict:
        name = generate.trainers_of(self.topo)[0][0]
        try:
            text = (self.logs / f"{phase}-{name}.log").read_text(errors="replace")
        except OSError:
            return {}
        m = re.search(r"checkmate restore: iteration (\d+) from (\w+) \(newest published (\d+)", text)
        return {"iteration": int(m.group(1)), "source": m.group(2), "newest": int(m.group(3))} if m else {}

    def first_record_t(self, phase: str):
        ts = [x["t"] for x in self.iterations if x["phase"] == phase]
        return min(ts) if ts else None

    def describe(self, r: dict, seg: dict, nxt_phase: str | None, final_ok) -> dict:
        info, audit = seg.get("info", {}), seg.get("audit", {})
        killed_own = info.get("killed_after_iteration")
        ends = [v for v in (info.get("last_iteration") or {}).values() if v is not None]
        # the job's progress at the kill: the victim's own last record can trail its peers' by one
        # (SIGKILL lands while its next iteration's all-reduce completes)
        killed = max(ends + ([killed_own] if killed_own is not None else [])) if (ends or killed_own is not None) else None
        rs = self.restore_line(nxt_phase) if nxt_phase else {}
        first = min((R.iteration_of(x) for x in self.iterations if x["phase"] == nxt_phase), default=None)
        resumed = rs.get("iteration", first - 1 if first is not None else None)
        t_first = self.first_record_t(nxt_phase) if nxt_phase else None
        drops = sum(v.get("fault_drops", 0) + v.get("tail_drops", 0) + v.get("pause_drops", 0) for v in seg.get("tm", {}).values())
        pauses = sum(v.get("pauses", 0) for v in seg.get("tm", {}).values())
        shard_losses = {k: v.get("losses") for k, v in audit.get("shards", {}).items()}
        lost = []
        if r["kind"] in ("loss", "slow"):
            lost.append(f"{drops} copies dropped by the switch")
            if pauses:
                lost.append(f"{pauses} back-pressure pauses")
            lost.append(f"shadow iterations lost (cumulative per shard) {shard_losses}")
        if r["kind"] == "shadow":
            lost.append(f"{r['victim']}'s process and in-memory state (killed after iteration {seg.get('it_fault')}, "
                        f"restarted at {seg.get('it_restarted')}, resynced by iteration {seg.get('it_recovered')})")
        if r["kind"] == "switch":
            lost.append(f"{r['switch']}'s tables and in-flight frames at iteration {seg.get('it_fault')} "
                        f"(training back and shards resynced by iteration {seg.get('it_recovered')})")
        if killed is not None:
            lost.append(f"trainer rank {info.get('killed_rank')} after its iteration {killed_own} (job at {killed})")
        if "t_recovered" in seg:
            recovery = round(seg["t_recovered"] - seg["t_fault"], 2)
            rec_note = "fault -> every shard resynced"
        elif t_first is not None and info.get("t_kill") is not None:
            recovery = round(t_first - info["t_kill"], 2)
            rec_note = "kill -> first resumed iteration"
        else:
            recovery, rec_note = None, ""
        if "t_recovered" in seg and t_first is not None and info.get("t_kill") is not None:
            rec_note += f"; kill -> resumed {t_first - info['t_kill']:.1f} s"
        ok_losses, why, n = self.losses_identical(nxt_phase) if nxt_phase else (False, "not resumed", 0)
        checks = {
            "resumed_losses_bitwise": ok_losses,
            "final_state_identical": final_ok,
            "published_checkpoints_correct": not audit.get("wrong") and not audit.get("errors"),
            "no_torn_file": not audit.get("torn"),
            "restore_found_checkpoint": bool(rs) or resumed is not None,
            "at_most_one_iteration_lost": None if killed is None or resumed is None else killed - resumed <= 1,
        }
        hard = [k for k in ("resumed_losses_bitwise", "final_state_identical", "published_checkpoints_correct",
                            "no_torn_file", "restore_found_checkpoint") if not checks[k]]
        if seg.get("note"):
            hard.append(seg["note"])
        if seg.get("error"):
            hard.append(seg["error"])
        return {
            "scenario": r["name"], "kind": r["kind"], "chain_phase": seg.get("phase"),
            "lost": "; ".join(lost), "recovery_s": recovery, "recovery_note": rec_note,
            "killed_after": killed, "resumed_iteration": resumed, "restore_source": rs.get("source"),
            "repeated": None if killed is None or resumed is None else killed - resumed,
            "identical": "yes" if not hard else "no", "verdict": "PASS" if not hard else "FAIL",
            "failed_checks": hard, "checks": checks, "loss_diff": why, "resumed_iterations": n,
            "audit": {k: audit.get(k) for k in ("compared", "unchecked", "wrong", "torn", "errors", "plan", "shards")},
            "detect_s": {"process_exit": info.get("exit_detect_s"), "watchdog": info.get("watchdog_detect_s")},
            "tm": seg.get("tm"),
        }

    # -- the whole suite ------------------------------------------------------------------------
    def run_chain(self, chain: str, rows: list) -> None:
        self.start_shadows(chain)
        segs, error = [], None
        resume = False
        for i, r in enumerate(rows):
            try:
                segs.append(self.segment(chain, i, r, resume))
            except Exception as e:  # noqa: BLE001 -- the rest of the chain cannot run; report FAIL
                error = f"{type(e).__name__}: {str(e)[:500]}"
                self.say(f"chain {chain}: segment {i} ({r['name']}) failed: {error}")
                segs.append({"phase": f"{chain}{i}", "error": error})
                break
            resume = True
        final_phase, final_ok = f"{chain}{len(segs)}", False
        if error is None:
            try:
                self.phases[final_phase] = self.train_phase(final_phase, True, self.next_port())
                final_ok = bool(self.verify(final_phase).get("identical"))
            except Exception as e:  # noqa: BLE001
                error = f"{type(e).__name__}: {str(e)[:500]}"
                self.say(f"chain {chain}: final segment failed: {error}")
        for i, r in enumerate(rows):
            if i < len(segs):
                seg = segs[i]
                if seg.get("info"):
                    self.phases[seg["phase"]] = seg["info"]
                nxt = f"{chain}{i + 1}" if i + 1 <= len(segs) else None
                d = self.describe(r, seg, nxt if not seg.get("error") else None, final_ok)
                if error and not seg.get("error"):
                    d["failed_checks"].append(f"chain error later: {error}")
            else:
                d = {"scenario": r["name"], "kind": r["kind"], "identical": "no", "verdict": "FAIL",
                     "failed_checks": ["not run: an earlier segment of its chain failed"], "lost": "",
                     "recovery_s": None, "resumed_iteration": None, "repeated": None}
            self.rows.append(d)
            self.say(f"{d['verdict']}: {d['scenario']} -- resumed {d.get('resumed_iteration')} "
                     f"repeated {d.get('repeated')} recovery {d.get('recovery_s')} s {d.get('failed_checks') or ''}")

    def scenario(self) -> dict:
        missing = R.missing_components()
        if missing:
            raise R.TestbedError("not landed yet: " + ", ".join(missing))
        self.up()
        saved = (self.args.persist_every, self.args.shadow_keep)
        self.args.persist_every, self.args.shadow_keep = 1, 100000  # the reference's every iteration on disk
        self.start_shadows("reference")
        self.phases["reference"] = self.train_phase("reference", False, self.next_port())
        self.args.persist_every, self.args.shadow_keep = saved
        for chain, rows in self.chains:
            self.run_chain(chain, rows)
        return {"identical": all(r["verdict"] == "PASS" for r in self.rows)}


# ------------------------------------------------------------------------------------------------
# the table
# ------------------------------------------------------------------------------------------------

PROSE = """\
`checkmate faults` (full suite, <= 20 min) / `checkmate faults --quick` (`tests/reliability/test_faults.py`,
~2 min) regenerate this section (`--switch bmv2`: the BMv2 section): one Mininet network (star, 3 trainers,
2 shadows, embedded switch or BMv2), one
failure-free reference run whose shadows persist every iteration, then chains of trainer incarnations
(`topologies/faults.py`). Each scenario's fault is injected while the job trains, then a trainer is
SIGKILLed and the job resumes from the shadows (`trainer_hooks.restore`); the resumed incarnation is the
next scenario's. **bit-identical = yes** needs all of: the resumed run's per-iteration losses bitwise equal
the reference's; the chain's final model + optimizer equal the reference's tensor by tensor; every
checkpoint the shadows hold right after the kill (every in-memory state, fetched, and every file) equals
the reference shadows' checkpoint of that iteration bit for bit (no wrong checkpoint published); no file
fails its checksum (no torn checkpoint); restore found a checkpoint. *Repeated* = iterations the killed
job had finished beyond the restored one.

**Restore and its vulnerable window.** Each shadow keeps its last `--history` (default 8) published
states in memory and persists every `--persist-every` iterations (testbed default 10; the suite: 1).
`restore` loads the newest iteration all shards hold in memory, else the newest all shards can load from
memory or disk, else starts from the initial state (iteration 0: the example is deterministic, so even a
full restart is bit-identical, just slower) -- it no longer fails with "shards hold no common
iteration". A shard that lost a copy stays at its last good iteration *s* until it is resynced: loss is
declared when the head iteration is overdue and stale for `--loss-timeout` (2 s) or, at the latest, when
iteration *s*+`ring` (4) arrives; the trainer resyncs at its next step, and now bootstraps **every**
shard at that iteration together (group resync), so right after a resync all shards share it. The
window in which a failure costs more than one iteration is therefore the stuck interval: a trainer dying
while a shard is stuck at *s* repeats the iterations after *s* (up to ~`ring`+2 under switch-injected
loss, more if the loss timeout, not the ring, detects it with slow iterations); the healthy shards'
history (8 >= ring + 3) still holds *s*, so the restore finds it in memory. If a history is too short
(`--history 2`) or a shard is dead, restore falls back to the files, then to iteration 0. The
"at most one iteration" promise holds for a failure while shadows keep up; under shadow-port loss the
*Repeated* column shows the real cost. A **slow shadow port** shows the two TM modes: lossless
(back-pressure) delivers every copy, but the trainers run ahead of the shadows by what the queues hold
(a few iterations repeated); lossy drops copies at the tail, and because in the testbed the shadow's
management traffic (manifests, resync bootstraps) shares that port, resyncs crawl and the shadows stay
behind until the port recovers -- many iterations repeated, still never a wrong or torn checkpoint and
still bit-identical. A production shadow needs a dedicated lossless port (or a separate management
network). *Recovery*: for trainer kills, from the SIGKILL to the resumed job's first iteration (detection
~0.1 s by process exit, ~2 s by the controller's heartbeat watchdog, then restarting the trainers --
mostly Python/torch start-up on 2 shared cores); for shadow/switch faults, from the fault until every
shard published past it again.
"""


def markdown(table: dict) -> str:
    lines = [PROSE, f"Generated by `checkmate faults{' --quick' if table['quick'] else ''}` on {table['date']} "
             f"(seed {table['seed']}, {table['iters']} iterations, star: {table['trainers']} trainers, "
             f"2 shadows, {'BMv2 simple_switch_grpc' if table.get('switch') == 'bmv2' else 'embedded switch'}; "
             f"{table['duration_s']:.0f} s; results in `{table['out']}`).",
             "",
             "| scenario | what was lost | recovery | resumed at / repeated | bit-identical |",
             "|---|---|---|---|---|"]
    for r in table["rows"]:
        if r["verdict"] == "SKIP":
            lines.append(f"| {r['scenario']} | - | - | - | not run: {r['skip_reason']} |")
            continue
        rec = "-" if r.get("recovery_s") is None else f"{r['recovery_s']:.1f} s"
        if r.get("recovery_note"):
            rec += f" ({r['recovery_note']})"
        res = "-" if r.get("resumed_iteration") is None else (
            f"{r['resumed_iteration']} / {r['repeated']}" + (f" ({r['restore_source']})" if r.get("restore_source") else ""))
        ident = r["identical"] + ("" if r["verdict"] == "PASS" else f" -- FAIL: {'; '.join(map(str, r['failed_checks']))}")
        lines.append(f"| {r['scenario']} | {r.get('lost') or '-'} | {rec} | {res} | {ident} |")
    return "\n".join(lines) + "\n"


def write_doc(md: str, doc: Path = DOC, switch: str = "embedded") -> None:
    """Replace only the marked section (re-read right before writing; another part of the file has
    another author)."""
    begin, end = MARKERS[switch]
    text = doc.read_text() if doc.exists() else "# Reliability and security (issue #11)\n"
    block = f"{begin}\n{md}{end}"
    if begin in text and end in text and text.index(begin) < text.index(end):
        new = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    else:
        title = "Fault scenarios on BMv2" if switch == "bmv2" else "Fault scenarios"
        new = text.rstrip("\n") + f"\n\n## {title}\n\n" + block + "\n"
    tmp = doc.with_suffix(".md.tmp-faults")
    tmp.write_text(new)
    os.replace(tmp, doc)


# ------------------------------------------------------------------------------------------------
# entry point
# ------------------------------------------------------------------------------------------------

def parse_args(argv):
    p = argparse.ArgumentParser(prog="checkmate faults", description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="the short version (make test: loss 1 %%, shadow "
                   "kill/restart, one random trainer kill)")
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--trials", type=int, default=None, help="random trainer kills (default 10; quick 1)")
    p.add_argument("--only", default="", help="comma-separated chains to run (full suite: loss,infra,slow,kill)")
    p.add_argument("--iters", type=int, default=None)
    p.add_argument("--out", default=None, help="results folder (default results/faults/<timestamp>)")
    p.add_argument("--no-doc", action="store_true", help="do not write docs/RELIABILITY.md")
    p.add_argument("--keep-ckpt", action="store_true", help="keep the shadows' checkpoint files in the results")
    p.add_argument("--verbose", action="store_true", help="progress bars")
    p.add_argument("--switch", default="embedded", choices=("embedded", "bmv2"),
                   help="the switch (bmv2: simple_switch_grpc on PATH; traffic-manager scenarios are skipped)")
    p.add_argument("--doc-from", metavar="FAULTS.json", help="only (re)write the docs/RELIABILITY.md section "
                   "from an earlier run's table, run nothing")
    return p.parse_args(argv)


def main(argv=None) -> int:
    a = parse_args(sys.argv[1:] if argv is None else argv)
    if a.doc_from:
        table = json.loads(Path(a.doc_from).read_text())
        write_doc(markdown(table), switch=table.get("switch", "embedded"))
        print(f"checkmate faults: wrote the table of {a.doc_from} into {DOC}")
        return 0
    why = cannot_start("checkmate faults")
    if why:
        print(why, file=sys.stderr)
        return 2
    if a.switch == "bmv2" and shutil.which("simple_switch_grpc") is None:
        print("checkmate faults: --switch bmv2 needs simple_switch_grpc on PATH", file=sys.stderr)
        return 2
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = Path(a.out) if a.out else paths.RESULTS / "faults" / stamp
    trainers = 3
    chains, iters = plan(a.quick, a.seed, a.trials, trainers, a.switch)
    if a.only:
        keep = set(a.only.split(","))
        chains = [c for c in chains if c[0] in keep]
    chains, skipped = for_target(chains, a.switch)
    iters = a.iters or iters
    targs = R.parse_args(["--topo", "star", "--trainers", str(trainers), "--iters", str(iters), "--out", str(out),
                          "--run", f"faults-{stamp}", "--watchdog-timeout", "2", "--persist-every", "1",
                          "--shadow-keep", "20", "--phase-timeout", "300", "--switch", a.switch] + ([] if a.verbose else ["--quiet"]))
    t_start = time.monotonic()
    try:
        suite = FaultSuite(targs, chains, a.seed)
    except (ValueError, R.TestbedError, OSError) as e:
        print(f"checkmate faults: {e}", file=sys.stderr)
        return 2
    error = None
    with teardown_on_exit(lambda: (suite.say("tearing down"), suite.down())):
        try:
            suite.scenario()
        except (KeyboardInterrupt, Terminated) as e:
            error = f"interrupted ({type(e).__name__})"
        except Exception as e:  # noqa: BLE001
            error = f"{type(e).__name__}: {e}"
            suite.say(f"error: {error}")
    done = {r["scenario"] for r in suite.rows}
    for chain, rows in chains:  # anything not reached (a set-up error) is reported, as FAIL
        for r in rows:
            if r["name"] not in done:
                suite.rows.append({"scenario": r["name"], "kind": r["kind"], "identical": "no", "verdict": "FAIL",
                                   "failed_checks": [f"not run: {error}"], "lost": "", "recovery_s": None,
                                   "resumed_iteration": None, "repeated": None})
    suite.rows += [skipped_row(r) for r in skipped]
    ran = [r for r in suite.rows if r["verdict"] != "SKIP"]
    table = {"switch": a.switch, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "quick": a.quick, "seed": a.seed,
             "iters": iters, "trainers": trainers, "duration_s": round(time.monotonic() - t_start, 1),
             "out": os.path.relpath(out, paths.ROOT) if str(out).startswith(str(paths.ROOT)) else str(out),
             "error": error, "rows": suite.rows,
             "passed": not error and bool(ran) and all(r["verdict"] == "PASS" for r in ran)}
    try:
        suite.results({"identical": table["passed"]}, error)
    except Exception as e:  # noqa: BLE001 -- the table matters more than the plots
        print(f"checkmate faults: metrics/report failed: {e}", file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    (out / "faults.json").write_text(json.dumps(table, indent=1, default=str))
    md = markdown(table)
    (out / "faults.md").write_text(md)
    if not a.keep_ckpt:
        shutil.rmtree(out / "ckpt", ignore_errors=True)
    if not a.no_doc:
        write_doc(md, switch=a.switch)
    print(md, end="")
    print(f"checkmate faults: {'PASS' if table['passed'] else 'FAIL'} ({table['duration_s']:.0f} s); "
          f"table: {out / 'faults.json'}")
    return 0 if table["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
