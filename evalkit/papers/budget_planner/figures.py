"""The planner notebook's figures (seaborn): topics against the difference to detect, the variance each judging
design adds against what it costs, and the trade-off figure (topics x depth or rate, coloured by total judgments,
the budget's feasible frontier marked)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

__all__ = ["plot_sizes", "plot_designs", "plot_tradeoff", "LEVEL_NAMES"]

#: the x axis of each design family in the trade-off figure
LEVEL_NAMES = {"pool": "pool depth", "estimated": "pool depth (deep score estimated)",
               "uniform": "sampling rate", "stratified": "sampling rate below the judged top"}


def plot_sizes(variances: pd.DataFrame, alpha: float, power: float, deltas: Sequence[float] | None = None,
               delta: float | None = None, ax=None):
    """Topics the paired t-test needs (full judgments) against the difference to detect, one line per measure;
    ``delta`` marked."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    from evalkit.display.plots import log_axis_ticks
    from evalkit.planning.topic_set_size import ttest_topics

    deltas = np.asarray(deltas if deltas is not None else np.round(np.linspace(0.02, 0.15, 14), 3), float)
    rows = [{"difference to detect": d, "topics": ttest_topics(d, v, alpha, power), "measure": m}
            for m, v in variances["paired"].items() for d in deltas]
    frame = pd.DataFrame(rows)
    ax = ax or plt.subplots(figsize=(6.5, 3.8))[1]
    sns.lineplot(data=frame, x="difference to detect", y="topics", hue="measure", marker="o", ax=ax)
    log_axis_ticks(ax, frame["topics"], axis="y")
    if delta is not None:
        ax.axvline(delta, color="0.4", lw=0.8, ls="--")
    ax.axhline(50, color="0.6", lw=0.8, ls=":")
    ax.set_title(f"paired t-test, power {power:g}, alpha {alpha:g} (dotted: 50 topics)", fontsize=10)
    return ax


def plot_designs(designs: pd.DataFrame, ax=None):
    """Each design's effective within-system variance (full-judgment units) against the judgments per topic it
    costs; the full judgments as a line. A design's marker size grows with its bias sd."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    ax = ax or plt.subplots(figsize=(7, 4))[1]
    part = designs[designs["family"] != "full"].copy()
    part["bias sd"] = part["bias sd"].fillna(0.0)
    sns.lineplot(data=part, x="judgments per topic", y="effective variance", hue="family", marker="o",
                 ax=ax, sort=True)
    sns.scatterplot(data=part, x="judgments per topic", y="effective variance", hue="family", size="bias sd",
                    sizes=(20, 250), legend=False, ax=ax, alpha=0.5)
    from evalkit.display.plots import log_axis_ticks

    full = designs.iloc[0]
    ax.axhline(full["effective variance"], color="0.3", lw=0.8, ls="--")
    ax.scatter([full["judgments per topic"]], [full["effective variance"]], marker="s", color="k", zorder=4,
               label="full judgments")
    ax.legend(fontsize=8)
    log_axis_ticks(ax, designs["judgments per topic"], axis="x")
    ax.set_title(f"{designs.attrs.get('measure', '')}: what each design adds (marker size: bias sd)", fontsize=10)
    return ax


def plot_tradeoff(frame: pd.DataFrame, axes=None):
    """The trade-off figure: one panel per design family, x = its depth or rate, y = the topics the requirement
    needs (log), each point coloured by the total judgments it costs. With a budget, the dashed line is the
    feasible frontier (the most topics the budget buys at each depth or rate; feasible below it, shaded); the
    cheapest design meeting the requirement is starred, the best within the budget ringed; a design that cannot
    meet it at any number of topics is an x at the top."""
    import matplotlib.pyplot as plt
    import seaborn as sns
    from matplotlib.colors import LogNorm

    from evalkit.display.plots import log_axis_ticks

    families = [f for f in ("pool", "uniform", "stratified", "estimated") if (frame["family"] == f).any()]
    if axes is None:
        fig, axes = plt.subplots(1, len(families), figsize=(4.2 * len(families), 3.8), squeeze=False, sharey=True)
        axes = axes[0]
    else:
        fig = np.ravel(axes)[0].figure
    finite = frame["total judgments"].replace(np.inf, np.nan)
    norm = LogNorm(vmin=max(float(finite.min()), 1.0), vmax=max(float(finite.max()), 2.0)) if finite.notna().any() \
        else LogNorm(1, 10)
    top = float(frame["topics"].replace(np.inf, np.nan).max() or 100) * 2
    budget = frame.attrs.get("budget")
    for ax, family in zip(axes, families):
        part = frame[frame["family"] == family].sort_values("level")
        ok = np.isfinite(part["topics"])
        sns.lineplot(x=part["level"][ok], y=part["topics"][ok], color="0.7", lw=1, ax=ax, zorder=1)
        sns.scatterplot(x=part["level"][ok], y=part["topics"][ok], hue=part["total judgments"][ok], hue_norm=norm,
                        palette="viridis", s=70, legend=False, ax=ax, zorder=3)
        if (~ok).any():
            ax.scatter(part["level"][~ok], np.full((~ok).sum(), top), marker="x", color="C3", zorder=3,
                       label="cannot meet it")
        if budget is not None:
            frontier = np.floor(budget / part["judgments per topic"])
            ax.plot(part["level"], frontier, ls="--", color="0.2", lw=1, label="budget frontier")
            ax.fill_between(part["level"], 1, frontier, color="C2", alpha=0.08, zorder=0)
        for flag, marker, label in (("cheapest", "*", "cheapest"), ("best", "o", "best within budget")):
            if flag in part and part[flag].any():
                row = part[part[flag]].iloc[0]
                y = row["topics"] if flag == "cheapest" else row["affordable topics"]
                ax.scatter([row["level"]], [y], marker=marker, s=260 if marker == "*" else 200,
                           facecolor="none" if marker == "o" else "gold", edgecolor="k", zorder=4, label=label)
        ax.set_yscale("log")
        ax.set_xlabel(LEVEL_NAMES.get(family, family))
        if family in ("pool", "estimated"):
            log_axis_ticks(ax, part["level"], axis="x")
        ax.set_title(family, fontsize=10)
        ax.legend(fontsize=7, loc="upper right")
    axes[0].set_ylabel("topics needed")
    mappable = plt.cm.ScalarMappable(norm=norm, cmap="viridis")
    fig.colorbar(mappable, ax=list(axes), label="total judgments", shrink=0.85)
    fig.suptitle(frame.attrs.get("requirement", ""), fontsize=9)
    return axes
