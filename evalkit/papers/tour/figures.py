"""The tour's figures: MAP of every run, and the pool-depth study's agreement and effort against depth."""

from __future__ import annotations

import pandas as pd

__all__ = ["plot_run_means", "plot_pool_depth_study"]


def plot_run_means(means: pd.DataFrame, collection_name: str, ax=None):
    """Bars of every run's MAP (``means``: one row a run, best first, with ``AP`` and ``judged`` columns),
    coloured by whether the run contributed to the pools."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    if ax is None:
        _, ax = plt.subplots(figsize=(9, 3.5))
    order = means.index
    sns.barplot(data=means.reset_index(), x="run", y="AP", hue="judged", order=order, dodge=False, ax=ax)
    ax.set_xticks([]); ax.set_xlabel(f"{len(order)} runs, best first"); ax.set_ylabel("MAP")
    ax.set_title(f"MAP of every run on {collection_name}")
    return ax


def plot_pool_depth_study(study: pd.DataFrame, axes=None):
    """Kendall's tau with the full qrels (left) and the share of the qrels judged (right) against pool depth (the
    pool-depth study of :func:`~evalkit.papers.tour.experiment.pool_depth_study`, after Zobel 1998 / Buckley &
    Voorhees 2004). Only the depths where a value is defined are drawn; a panel with none (Kendall's tau is NaN
    when the runs' mean scores of the study's measure all tie, on the full qrels or in the pool, or with fewer than 2 runs) is left empty and says
    so, and a depth axis that cannot be logarithmic (a depth of 0 or less) stays linear."""
    import matplotlib.pyplot as plt
    import numpy as np
    import seaborn as sns

    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(10, 3.5))
    measure = next((c[len("mean "):-len(" (full qrels)")] for c in study.columns
                    if c.startswith("mean ") and c.endswith(" (full qrels)")), "score")  # the study's measure
    why = {"kendall tau": f"Kendall's tau is undefined (NaN) at every depth: the runs' mean {measure} all tie (on "
                          "the full qrels or in the pool)\nor there are fewer than 2 runs, so there is no order to "
                          "compare",
           "share of qrels": "no depth has a share of the qrels to draw"}
    for ax, column in zip(axes, ("kendall tau", "share of qrels")):
        defined = study[np.isfinite(study[column].astype(float)) & np.isfinite(study["depth"].astype(float))]
        if len(defined):
            sns.lineplot(data=defined, x="depth", y=column, marker="o", ax=ax)
            if (defined["depth"] > 0).all():
                ax.set_xscale("log")
            missing = len(study) - len(defined)
            if missing:
                ax.text(0.02, 0.02, f"{missing} of {len(study)} depths undefined (NaN), not drawn", fontsize=8,
                        transform=ax.transAxes)
        else:
            ax.set_xticks([]); ax.set_yticks([])
            ax.set_xlabel("depth"); ax.set_ylabel(column)
            ax.text(0.5, 0.5, why[column], ha="center", va="center", fontsize=8, wrap=True, transform=ax.transAxes)
    axes[0].set_title("ranking agreement with the full qrels"); axes[1].set_title("judging effort")
    return axes
