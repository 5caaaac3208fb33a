"""Tests for the tour's figures (evalkit.papers.tour.figures) on hand-made pool-depth studies."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalkit.papers import tour


def _study(tau, measure: str = "AP") -> pd.DataFrame:
    return pd.DataFrame({"depth": [1, 2, 5], "judgments": [3, 6, 9], "share of qrels": [1 / 3, 2 / 3, 1.0],
                         "kendall tau": tau, f"mean {measure} (full qrels)": 0.25})


def test_the_pool_depth_figure_draws_what_is_defined_and_says_what_is_not():
    """D8: every run with the same AP makes Kendall's tau NaN at every depth; the old figure drew an all-NaN line on
    a log axis and matplotlib raised 'Data cannot be log-scaled because all values are <= 0' when drawing. Now the
    tau panel is left empty with the reason, the effort panel is drawn, and a partly NaN line is drawn where
    defined, with the count of the depths left out."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    axes = tour.plot_pool_depth_study(_study([np.nan] * 3))
    axes[0].figure.canvas.draw()
    assert len(axes[0].get_lines()) == 0
    assert "Kendall's tau is undefined (NaN) at every depth: the runs' mean AP all tie" in axes[0].texts[0].get_text()
    effort = axes[1].get_lines()[0]
    assert list(effort.get_xdata()) == [1, 2, 5] and axes[1].get_xscale() == "log"
    plt.close(axes[0].figure)
    axes = tour.plot_pool_depth_study(_study([np.nan] * 3, "P@10"))  # the study's own measure, not always AP
    assert "the runs' mean P@10 all tie" in axes[0].texts[0].get_text()
    plt.close(axes[0].figure)

    axes = tour.plot_pool_depth_study(_study([np.nan, 0.5, 1.0]))
    axes[0].figure.canvas.draw()
    line = axes[0].get_lines()[0]
    assert list(line.get_xdata()) == [2, 5] and list(line.get_ydata()) == [0.5, 1.0]
    assert axes[0].texts[0].get_text() == "1 of 3 depths undefined (NaN), not drawn"
    plt.close(axes[0].figure)
