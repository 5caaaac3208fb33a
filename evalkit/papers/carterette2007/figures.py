"""Carterette (2007): the drawing functions (matplotlib/seaborn): Figure 2 (confidence against accuracy), the
judgments each trial needed (:func:`plot_judgments`) and the explorer's figure (a few trials run with the given settings and drawn)."""

from __future__ import annotations

import pandas as pd

from evalkit.confidence import ExpertAggregation
from evalkit.papers.carterette2007.paper import PAPER_ADHOC99
from evalkit.papers.carterette2007.experiment import (
    RTC_SMOOTHED,
    ExperimentResults,
    TrialData,
    run_experiment,
)
from evalkit.papers.carterette2007.tables import binned, figure2_data


def plot_figure2(results: ExperimentResults, ax=None, edges=None, min_pairs: int = 50, title: str | None = None):
    """Figure 2: accuracy against mean confidence per bin (:func:`figure2_data`), MTC and RTC, with the diagonal
    (perfect calibration, W-bar = 0); bins with fewer than ``min_pairs`` pairs are left out (the paper's points
    hold at least 500). Returns the Axes."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    data = figure2_data(results, edges)
    data = data[data["pairs"] >= min_pairs]
    ax = ax or plt.subplots(figsize=(5.5, 5))[1]
    ax.plot([0.5, 1.0], [0.5, 1.0], color="0.2", lw=1.0, label="confidence = accuracy")
    if len(data):
        sns.lineplot(data=data, x="mean_confidence", y="accuracy", hue="algorithm", style="algorithm",
                     hue_order=["MTC", "RTC"], style_order=["MTC", "RTC"], markers=True, dashes=False, ax=ax)
    ax.set_xlim(0.5, 1.0)
    ax.set_ylim(min(0.4, float(data["accuracy"].min()) - 0.02) if len(data) else 0.4, 1.01)
    ax.set_xlabel("confidence, max(P(ΔMAP < 0), P(ΔMAP > 0))")
    ax.set_ylabel("accuracy")
    ax.set_title(title or f"confidence vs accuracy ({len(results.pairs):,} pairs)", fontsize=10)
    ax.legend(loc="lower right", fontsize=9)
    return ax


def plot_judgments(results: ExperimentResults, ax=None, paper_median: float | None = PAPER_ADHOC99["median_judged"]):
    """Carterette 2007 Sec. 5 / Table 2's "judged" column as a distribution: the ECDF, on a log axis, of the
    judgments MTC and RTC needed to reach alpha on each trial's first pair (Algorithm 1's stopping rule), with the
    paper's RTC median on ad hoc 99 dotted (``paper_median``; None: not drawn). Trials that needed no judgment
    cannot sit on a log axis: the title counts them. When no trial needed any judgment (the curve would be empty),
    nothing is plotted and the axes say so. Returns the Axes."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    ax = ax or plt.subplots(figsize=(7, 3.5))[1]
    judged = results.trials.melt(value_vars=["judged_mtc", "judged_rtc"], var_name="algorithm",
                                 value_name="judgments")
    judged["algorithm"] = judged["algorithm"].str.removeprefix("judged_").str.upper()
    some = judged[judged["judgments"] > 0]
    n_trials = len(results.trials)
    zero = int((results.trials["judged_mtc"] == 0).sum())
    if len(some):
        sns.ecdfplot(data=some, x="judgments", hue="algorithm", hue_order=sorted(some["algorithm"].unique()),
                     log_scale=True, ax=ax)
        if paper_median is not None:
            ax.axvline(paper_median, color="0.5", ls=":", lw=1)
        ax.set_title(f"judgments to reach α on the first pair; {zero} of {n_trials} trials needed none\n"
                     "(not on a log axis). Dotted: the paper's RTC median on ad hoc 99", fontsize=9)
    else:
        ax.set_axis_off()
        ax.text(0.5, 0.5, f"nothing to draw: none of the {n_trials} trials needed a judgment to reach α on its first "
                "pair\n(MTC and RTC were sure of it at p = 0.5), so there is no distribution of judgments",
                ha="center", va="center", fontsize=9, wrap=True, transform=ax.transAxes)
        ax.set_title("judgments to reach α on the first pair", fontsize=9)
    return ax


def explorer_figure(data: TrialData, n_trials: int = 4, seed: int = 2007, k: int = 10, c: int = 2,
                    alpha: float = 0.95, prior=RTC_SMOOTHED["prior"], max_judgments: int | None = None,
                    scheduler: str | None = "serial", n_jobs: int | None = None):
    """Run ``n_trials`` trials with these settings and draw confidence against accuracy in the paper's bins
    (left, point size = pairs) and the judgments MTC and RTC needed in each trial (right). Returns the Figure
    (not shown). ``c`` is clipped to [2, k - 1]."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    k = int(min(k, data.docs.shape[0]))
    c = int(max(2, min(c, k - 1)))
    prior = (float(prior[0]), float(prior[1]))
    results = run_experiment(data, n_trials, seed, scheduler=scheduler, n_jobs=n_jobs, progress=False, k=k, c=c,
                             alpha=alpha, model=ExpertAggregation(prior=prior), max_judgments=max_judgments)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.3))
    rows = []
    for name in ("mtc", "rtc"):
        _, accuracy, counts, mean_confidence, w_bar = binned(results.pairs[f"p_{name}"], results.pairs["true_delta"])
        for acc, count, conf in zip(accuracy, counts, mean_confidence):
            if count:
                rows.append({"algorithm": f"{name.upper()} (W̄ = {w_bar:.2f})", "confidence": conf, "accuracy": acc,
                             "pairs": count})
    axes[0].plot([0.5, 1.0], [0.5, 1.0], color="0.2", lw=1.0)
    if rows:
        sns.scatterplot(data=pd.DataFrame(rows), x="confidence", y="accuracy", hue="algorithm", size="pairs",
                        sizes=(20, 200), ax=axes[0])
        axes[0].legend(fontsize=8, loc="lower right")
    axes[0].set_xlim(0.48, 1.01)
    axes[0].set_ylim(-0.02, 1.02)
    axes[0].set_title(f"k = {k}, c = {c}, α = {alpha:.2f}, Beta({prior[0]:g}, {prior[1]:g}): {n_trials} trials",
                      fontsize=10)
    judged = results.trials.melt(id_vars="trial", value_vars=["judged_mtc", "judged_rtc"], var_name="algorithm",
                                 value_name="judgments")
    judged["algorithm"] = judged["algorithm"].str.removeprefix("judged_").str.upper()
    sns.barplot(data=judged, x="trial", y="judgments", hue="algorithm", ax=axes[1])
    taus = results.trials[["tau_mtc", "tau_rtc", "tau_ip"]].mean()
    axes[1].set_title(f"judgments to α on the first pair; mean τ MTC {taus['tau_mtc']:.2f}, "
                      f"RTC {taus['tau_rtc']:.2f}, IP {taus['tau_ip']:.2f}", fontsize=10)
    fig.tight_layout()
    return fig


def plot_reestimation(diagnostics: pd.DataFrame, title: str = "", seed: int = 0):
    """The first pair after RTC's first re-estimation (:func:`reestimation_diagnostics`), one point a trial and
    setting: SD[dMAP] (left) and |E[dMAP]| on a log axis (right). Points are spread vertically by a jitter drawn
    from ``seed`` (the same picture on every run). Returns the Figure."""
    import matplotlib.pyplot as plt
    import numpy as np

    settings = list(dict.fromkeys(diagnostics["setting"]))
    row = diagnostics["setting"].map({name: i for i, name in enumerate(settings)}).to_numpy(float)
    y = row + np.random.default_rng(seed).uniform(-0.25, 0.25, len(row))
    fig, axes = plt.subplots(1, 2, figsize=(12, 3.8), sharey=True)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    magnitude = diagnostics["E[dMAP]"].abs().clip(lower=1e-5)
    for ax, values in ((axes[0], diagnostics["SD[dMAP]"]), (axes[1], magnitude)):
        ax.scatter(values, y, s=12, c=[colours[int(r) % len(colours)] for r in row], alpha=0.8)
        ax.set_yticks(range(len(settings)))
        ax.set_yticklabels(settings)
        ax.invert_yaxis() if ax is axes[0] else None
    axes[0].set_xlim(0, 1.1 * float(diagnostics["SD[dMAP]"].max()))
    axes[1].set_xscale("log")
    axes[0].set_xlabel("SD[ΔMAP]")
    axes[1].set_xlabel("|E[ΔMAP]|")
    axes[0].set_title("the spread of ΔMAP barely moves", fontsize=10)
    axes[1].set_title("its mean does: a tilt of mean p between the two runs", fontsize=10)
    if title:
        fig.suptitle(title, y=1.02)
    return fig
