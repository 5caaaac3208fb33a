"""Soboroff (2007): the figures (matplotlib / seaborn): the sample's depth per topic, Figure 1, Figure 1's figures
over many draws (:func:`plot_draws`), and the depths and Figure 1 side by side for a design (what the explorer
redraws)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalkit.data.collection import Collection
from evalkit.judging.relevance_sampling import DEFAULTS, RelevanceSample, relevance_sample
from evalkit.papers.soboroff2007.experiment import figure1, pooled_map

__all__ = ["draw_design", "plot_depths", "plot_draws", "plot_figure1"]


def plot_depths(sample: RelevanceSample, ax=None, title: str | None = None):
    """Sample depth per topic (topics sorted by P(rel)): bars = the depth used, coloured by what set it (the
    linear fit, the "200 more documents" floor, the cap); dots = the depth before the cap; dashed lines = the
    phase-1 depth and the cap."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    t = sample.table.sort_values("p_rel").reset_index()
    t["topic"] = t["topic"].astype(str)
    t["set by"] = np.where(t.capped, "cap", np.where(t.floor, "floor (+budget)", "linear fit"))
    ax = ax or plt.subplots(figsize=(10, 3.5))[1]
    sns.barplot(data=t, x="topic", y="depth", hue="set by", dodge=False, ax=ax,
                hue_order=["linear fit", "floor (+budget)", "cap"], palette=["C0", "C2", "C3"])
    ax.scatter(np.arange(len(t)), t.depth_uncapped, color="k", s=10, zorder=3, label="before the cap")
    ax.axhline(sample.params["phase1_depth"], color="0.4", ls="--", lw=0.8)
    ax.axhline(sample.params["max_depth"], color="C3", ls=":", lw=0.8)
    if t.depth_uncapped.max() > 4 * t.depth.max():
        ax.set_yscale("log")
    ax.set_xticks(ax.get_xticks())
    ax.set_xticklabels(t.topic, rotation=90, fontsize=6)
    ax.set_xlabel("topic (sorted by P(rel) in the phase-1 pool)")
    ax.set_ylabel("sample depth")
    ax.legend(fontsize=8, loc="upper left")
    p = sample.params
    ax.set_title(title or (f"rpt = {p['rpt']:.3g}, slope = {p['slope']:.3g} per {p['phase1_depth']} ranks: depth "
                           f"{int(t.depth.min())}-{int(t.depth.max())}, mean {t.depth.mean():.0f}, "
                           f"{int(t.capped.sum())} topics capped at {p['max_depth']}"), fontsize=10)
    return ax


def plot_figure1(frame: pd.DataFrame, ax=None, title: str | None = None, phase1_depth: int = 50):
    """The paper's Figure 1: each run's MAP on the phase-1 pool (x) against its infAP on the sample (y); dots =
    pooling runs, pluses = the others; tau, rho, RMS in the title."""
    from evalkit.display.plots import estimate_vs_truth

    lower = int(frame.lower.sum())
    text = title or f"infAP < MAP for {lower} of {len(frame)} runs"
    return estimate_vs_truth(frame.MAP_pool, frame.infAP_sample, frame.judged, ax=ax, title=text,
                             xlabel=f"MAP, depth-{phase1_depth} pool", ylabel="infAP, relevance-based sample")


def plot_draws(draws, share: float = 0.10, near_full: float = 0.9):
    """Figure 1's figures over the draws of one design (:class:`~evalkit.papers.soboroff2007.draws.Draws`): Kendall's
    tau a draw (the paper's 0.8 dashed), the runs whose infAP is not below MAP a draw (``share`` of the runs dotted:
    the grading threshold), and per topic the mean over runs and draws of |infAP - MAP| against the design's rate
    (``near_full`` dotted: the "nearly 100%" topics right of it)."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    per = draws.per_draw
    fig, axes = plt.subplots(1, 3, figsize=(14, 3.6))
    sns.histplot(per.tau, ax=axes[0], bins=min(15, max(3, draws.n)))
    axes[0].axvline(0.8, color="C3", ls="--", lw=1, label="TB06: 0.8")
    axes[0].set_xlabel("Kendall's tau, MAP (pool) vs infAP (sample)")
    axes[0].legend(fontsize=8)
    runs = int(per.runs.iloc[0])
    sns.histplot(per.not_lower, ax=axes[1], discrete=True)
    axes[1].axvline(share * runs, color="C3", ls=":", lw=1, label=f"{share:.0%} of {runs} runs")
    axes[1].set_xlabel("runs whose infAP is not below MAP")
    axes[1].legend(fontsize=8)
    topics = draws.topic_table()
    sns.scatterplot(data=topics, x="rate", y="mean |infAP - MAP|", hue="near_full", ax=axes[2], legend=False)
    axes[2].axvline(near_full, color="0.4", ls=":", lw=1)
    axes[2].set_xlabel("the topic's sampling rate")
    axes[2].set_title(f"a dot a topic; orange: sampled at >= {near_full:.0%}", fontsize=9)
    for ax in axes[:2]:
        ax.set_ylabel("draws")
    fig.suptitle(f"over {draws.n} draws of the same design", fontsize=10)
    fig.tight_layout()
    return fig


def draw_design(collection: Collection, rpt: float = DEFAULTS["rpt"], phase1_depth: int = DEFAULTS["phase1_depth"],
                slope: float = DEFAULTS["slope"], budget: int = DEFAULTS["budget"], max_depth="judged", seed=0,
                map_cache: dict | None = None):
    """Draw a sample with these parameters and show its depths per topic beside the MAP / infAP scatter.
    ``map_cache`` (phase-1 depth -> (S, T) AP matrix) saves re-scoring the pool when only rpt or the slope move.
    Returns the sample."""
    import matplotlib.pyplot as plt

    sample = relevance_sample(collection, phase1_depth=phase1_depth, rpt=rpt, slope=slope, budget=budget,
                              max_depth=max_depth, seed=seed)
    if map_cache is not None and phase1_depth in map_cache:
        map_matrix = map_cache[phase1_depth]
    else:
        map_matrix = pooled_map(collection, sample)
        if map_cache is not None:
            map_cache[phase1_depth] = map_matrix
    frame = figure1(collection, sample, map_matrix)
    fig, axes = plt.subplots(1, 2, figsize=(14, 4.5), gridspec_kw={"width_ratios": [2.2, 1]})
    plot_depths(sample, ax=axes[0])
    plot_figure1(frame, ax=axes[1], phase1_depth=phase1_depth)
    fig.tight_layout()
    plt.show()
    return sample
