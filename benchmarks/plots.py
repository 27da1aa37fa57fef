"""The figures of a ``checkmate bench`` run (matplotlib, headless), from its analysed result.

Pure functions of ``bench.json``'s content -- ``checkmate bench --reanalyze`` redraws them without
measuring again.  The first figure is the promise (trainer CPU and training-port bytes against no
checkpointing of the same run, the wall time beside it); then the overhead per method, the iteration
times per segment, the sustainable checkpoint frequency and the bytes on training vs shadow ports.
"""
from __future__ import annotations

from pathlib import Path


def plots(res: dict, out: Path, methods: tuple[str, ...]) -> list[str]:
    """Write the run's figures into ``out``; return their file names (the promise figure first).
    ``methods`` orders the configurations (``benchmarks.suite.METHODS``)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    out.mkdir(parents=True, exist_ok=True)
    a = res["analysis"]
    order = sorted(a["configs"], key=lambda k: (methods.index(a["configs"][k]["method"]), a["configs"][k]["every"]))
    files = []

    def save(fig, name: str) -> None:
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        files.append(name)

    # first: the promise -- trainer CPU and training-port bytes against no checkpointing
    keys = [k for k in ("checkmate", "host") if k in a["configs"]]
    b = res.get("bytes", {})
    if keys and any(a["configs"][k].get("trainer_cpu_overhead") is not None for k in keys):
        fig, ax = plt.subplots(figsize=(7, 4.6))
        x = range(len(keys))
        cpu = [100 * (a["configs"][k].get("trainer_cpu_overhead") or 0.0) for k in keys]
        tx = [100 * ((b.get(k) or {}).get("trainer_tx_ratio", 1.0) - 1.0) for k in keys]
        wall = [100 * a["configs"][k]["overhead"] for k in keys]
        def err(field, values):
            """Whiskers: the order-statistics interval of each median (suite.median_interval), if any."""
            cis = [a["configs"][k].get(field) for k in keys]
            if not any(cis):
                return None
            return [[v - 100 * c[0] if c else 0.0 for v, c in zip(values, cis)],
                    [100 * c[1] - v if c else 0.0 for v, c in zip(values, cis)]]

        adj = [a["configs"][k].get("trainer_cpu_adjusted_overhead") for k in keys]
        w = 0.21 if any(v is not None for v in adj) else 0.27  # a fourth bar when the probe was recorded
        ax.bar([i - w for i in x], cpu, w, label="trainer CPU", color="#2a9d8f",
               yerr=err("trainer_cpu_overhead_ci", cpu), capsize=3)
        if w < 0.27:  # benchmarks/interference.py: the forward pass's slowdown taken out (an estimate)
            adj = [100 * (v or 0.0) for v in adj]
            ax.bar([i - 2 * w for i in x], adj, w, label="trainer CPU / forward-pass slowdown (est.)",
                   color="#2a9d8f", alpha=0.45, hatch="//", yerr=err("trainer_cpu_adjusted_ci", adj), capsize=3)
        ax.bar(list(x), tx, w, label="training-port bytes", color="#264653")
        ax.bar([i + w for i in x], wall, w, label="wall time (includes the emulation)", color="#bbb",
               yerr=err("overhead_ci", wall), capsize=3)
        ax.axhline(0, color="k", lw=0.8)
        ax.set_xticks(list(x))
        ax.set_xticklabels(keys)
        ax.set_ylabel("vs no checkpointing, same run (%)")
        ax.set_title("what checkpointing every iteration costs the trainers\n(median over rounds; whiskers: "
                     "interval of the median)", fontsize=10)
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2, frameon=False)
        save(fig, "promise.png")

    fig, ax = plt.subplots(figsize=(9, 4))
    ov = [100 * a["configs"][k]["overhead"] for k in order]
    ax.bar(order, ov, color=["#2a9d8f" if a["configs"][k]["method"] == "checkmate" else "#888" for k in order])
    ax.axhline(100 * a["budget"], color="r", ls="--", label=f"budget {100 * a['budget']:.1f} %")
    ax.set_ylabel("iteration-time overhead vs none (%)")
    ax.set_title("overhead per method (median over rounds)")
    ax.tick_params(axis="x", rotation=30)
    ax.legend()
    save(fig, "overhead.png")

    fig, ax = plt.subplots(figsize=(9, 4))
    ax.boxplot([[1e3 * t for t in a["configs"][k]["iter_s_all"]] for k in order], tick_labels=order)
    ax.set_ylabel("ms per iteration (one point per segment)")
    ax.set_title("iteration time per segment")
    ax.tick_params(axis="x", rotation=30)
    save(fig, "iteration_time.png")

    ms = [m for m in a["methods"] if m != "none"]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.bar(ms, [a["methods"][m]["frequency"] for m in ms], color="#264653")
    ax.set_ylabel(f"checkpoints per iteration within {100 * a['budget']:.1f} %")
    ax.set_title("highest sustainable checkpoint frequency")
    save(fig, "frequency.png")

    b = res.get("bytes", {})
    if b:
        ks = [k for k in order if k in b]
        x = range(len(ks))
        fig, ax = plt.subplots(figsize=(9, 4))
        ax.bar([i - 0.2 for i in x], [b[k]["trainer_tx"] / 1e3 for k in ks], 0.4, label="sent by trainers")
        ax.bar([i + 0.2 for i in x], [b[k]["shadow_rx"] / 1e3 for k in ks], 0.4, label="to shadows")
        ax.set_xticks(list(x))
        ax.set_xticklabels(ks, rotation=30)
        ax.set_ylabel("kB per iteration (switch port counters)")
        ax.set_title("bytes on training ports vs shadow ports")
        ax.legend()
        save(fig, "port_bytes.png")
    return files
