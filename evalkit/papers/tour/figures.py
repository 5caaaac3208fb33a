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
    """Kendall's tau with the full qrels (left) and the share of the qrels judged (right) against pool depth."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(10, 3.5))
    sns.lineplot(data=study, x="depth", y="kendall tau", marker="o", ax=axes[0]); axes[0].set_xscale("log")
    sns.lineplot(data=study, x="depth", y="share of qrels", marker="o", ax=axes[1]); axes[1].set_xscale("log")
    axes[0].set_title("ranking agreement with the full qrels"); axes[1].set_title("judging effort")
    return axes
