"""Soboroff (2007): the figures (matplotlib / seaborn): the sample's depth per topic, Figure 1, and both side by
side for a design (what the explorer redraws)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalkit.data.collection import Collection
from evalkit.judging.relevance_sampling import DEFAULTS, RelevanceSample, relevance_sample
from evalkit.papers.soboroff2007.experiment import figure1, pooled_map

__all__ = ["draw_design", "plot_depths", "plot_figure1"]


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
