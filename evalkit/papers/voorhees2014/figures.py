"""Voorhees (2014): matplotlib/seaborn drawing. The notebook draws the paper's figures (Table 1 as box plots, Table
2's accuracies, Figure 1's R̂ per topic) in its own cells from :mod:`evalkit.papers.voorhees2014.tables`' frames;
here is the drawing of the strategy explorer (:mod:`evalkit.papers.voorhees2014.explorer`): one trial of a custom
strategy beside the reference strategies."""

from __future__ import annotations

import time

import pandas as pd

from evalkit.papers.voorhees2014.experiment import custom_strategy, custom_trial
from evalkit.stats import CATEGORY_NAMES


def draw_explorer(gold, trial, seed, reference, **values):
    """What :func:`~evalkit.papers.voorhees2014.explorer.strategy_explorer` draws for one position of its
    sliders: the custom strategy of the slider ``values`` (depths ``d1``, ``d2``, ... and rates ``r1``, ``r2``,
    ...; :func:`~evalkit.papers.voorhees2014.experiment.custom_strategy`) run for one trial of ``gold``
    (:func:`~evalkit.papers.voorhees2014.experiment.custom_trial`), its accuracy per measure and R̂ correlation
    as bars beside the ``reference`` rows (custom_trial frames, or None), and its row as a table."""
    import matplotlib.pyplot as plt
    import seaborn as sns
    from IPython.display import display

    n = len(values) // 2
    try:
        strat = custom_strategy([values[f"d{i}"] for i in range(1, n + 1)], [values[f"r{i}"] for i in range(1, n + 1)])
    except ValueError as error:
        print(error)
        return
    started = time.perf_counter()
    row = custom_trial(gold, strat, trial=trial, seed=seed)
    seconds = time.perf_counter() - started
    frames = [row.assign(which="custom")]
    if reference is not None:
        frames.append(reference.assign(which=reference["strategy"]))
    both = pd.concat(frames, ignore_index=True)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.2), gridspec_kw={"width_ratios": [3, 1]})
    sns.barplot(data=both, x="measure", y="accuracy", hue="which", ax=axes[0])
    low = max(0.0, float(both["accuracy"].min()) - 0.05)
    axes[0].set_ylim(low, 1.0)
    axes[0].set_title(f"{row['strata'].iloc[0]}: {row['judged per topic'].iloc[0]:.0f} judgments a topic "
                      f"({seconds:.1f} s)", fontsize=10)
    axes[0].legend(fontsize=8, loc="lower right")
    per = both.drop_duplicates("which")
    sns.barplot(data=per, x="which", y="R̂ vs R pearson", ax=axes[1])
    axes[1].set_ylim(max(0.0, float(per["R̂ vs R pearson"].min()) - 0.05), 1.0)
    axes[1].tick_params(axis="x", rotation=45)
    axes[1].set_xlabel("")
    plt.tight_layout()
    plt.show()
    display(row[["measure", "judged per topic", "accuracy", "R̂ vs R pearson"] + list(CATEGORY_NAMES)]
            .style.format({"judged per topic": "{:.1f}", "accuracy": "{:.3f}", "R̂ vs R pearson": "{:.3f}"}))
