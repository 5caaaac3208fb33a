"""seaborn figures shared by the notebooks: one function a figure shape, returning the matplotlib Axes."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["estimate_vs_truth", "lines_by", "log_axis_ticks", "setup"]


def setup():
    """The kit's display defaults: seaborn's whitegrid theme at readable sizes, and pandas Styler tables that
    escape their cells for HTML (topic ids and run names come from input files; in JupyterLab they are rendered
    live, so a hostile id must show as text there too, not only in the batch's exported pages)."""
    import seaborn as sns

    from evalkit.display.html_safety import escape_pandas_html

    sns.set_theme(style="whitegrid", context="notebook")
    escape_pandas_html()


def estimate_vs_truth(truth, estimate, judged=None, *, xlabel="actual", ylabel="estimate", title=None, ax=None,
                      stats: bool = True, errors=None):
    """Scatter of each run's estimated score against its true score, with the diagonal.

    ``judged`` (bool per run) marks runs that contributed to the pools as dots and the others as pluses, as in
    Yilmaz et al. 2008's figures. ``errors`` (half-widths) draws confidence intervals. With ``stats`` the title
    carries Kendall's tau, Pearson's rho and the RMS error.
    """
    import matplotlib.pyplot as plt
    import seaborn as sns

    from evalkit.stats import kendall_tau, pearson, rms_error

    truth, estimate = np.asarray(truth, float), np.asarray(estimate, float)
    ax = ax or plt.subplots(figsize=(5, 5))[1]
    kind = np.where(np.asarray(judged, bool), "judged run", "unjudged run") if judged is not None else None
    if errors is not None:
        ax.errorbar(truth, estimate, yerr=errors, fmt="none", ecolor="0.7", lw=0.8, zorder=1)
    sns.scatterplot(x=truth, y=estimate, hue=kind, style=kind, markers={"judged run": "o", "unjudged run": "P"}
                    if kind is not None else True, ax=ax, s=30, zorder=2)
    low, high = min(truth.min(), estimate.min()), max(truth.max(), estimate.max())
    ax.plot([low, high], [low, high], color="0.4", lw=0.8, ls="--", zorder=0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    text = title or ""
    if stats and len(truth) > 2:
        text += ("\n" if text else "") + (f"tau={kendall_tau(truth, estimate):.3f}  rho={pearson(truth, estimate):.3f}  "
                                          f"RMS={rms_error(truth, estimate):.4f}")
    ax.set_title(text, fontsize=10)
    return ax


def lines_by(frame: pd.DataFrame, x: str, y: str, hue: str | None = None, *, ax=None, title=None, marker="o",
             errorbar=("pi", 100)):
    """A line per ``hue`` of ``y`` against ``x`` (mean over repeated rows, band = min to max)."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    ax = ax or plt.subplots(figsize=(6, 4))[1]
    sns.lineplot(data=frame, x=x, y=y, hue=hue, marker=marker, errorbar=errorbar, ax=ax)
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def log_axis_ticks(ax, values, axis: str = "x", max_ticks: int = 6, fmt: str = "{:g}"):
    """A log axis labelled at (at most ``max_ticks`` of) the ``values`` plotted, in plain numbers, with no minor
    labels: matplotlib's default labels minor ticks (2x10^0, 3x10^0, ...) when the range spans less than a decade
    or two, and they overlap (Yilmaz et al. 2008's Figure 3 in a small sweep). Ticks are spread evenly in log
    space, so the smallest and largest values are always labelled."""
    from matplotlib.ticker import (
        FixedFormatter,
        FixedLocator,
        NullFormatter,
        NullLocator,
    )

    values = np.unique(np.asarray([v for v in np.ravel(values) if np.isfinite(v) and v > 0], float))
    target = ax.xaxis if axis == "x" else ax.yaxis
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
    if len(values) == 0:
        return ax
    if len(values) > max_ticks:
        wanted = np.exp(np.linspace(np.log(values[0]), np.log(values[-1]), max_ticks))
        values = np.unique([values[np.argmin(np.abs(np.log(values) - np.log(w)))] for w in wanted])
    target.set_major_locator(FixedLocator(values))
    target.set_major_formatter(FixedFormatter([fmt.format(float(f"{v:.2g}")) for v in values]))
    target.set_minor_locator(NullLocator())
    target.set_minor_formatter(NullFormatter())
    return ax

