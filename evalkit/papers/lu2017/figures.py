"""Lu, Moffat and Culpepper (2017): drawing functions. The explorer's picture (:func:`draw_explorer`); the
notebook draws Figures 3, 4 and 6 and Table 2's heat maps itself, with seaborn, from the frames of
:mod:`evalkit.papers.lu2017.experiment` and :mod:`evalkit.papers.lu2017.tables`.
"""

from __future__ import annotations

import numpy as np

from evalkit.estimation import DEFAULT_THETA, score_range_error
from evalkit.papers.lu2017.experiment import default_selection, explorer_fit, prepared
from evalkit.papers.lu2017.tables import run_gain_profile


def draw_explorer(data, fit_depth: int = 10, theta: float = DEFAULT_THETA, p: float | None = None,
                  estimator: str = "Lb", run=None, topic=None, cache: dict | None = None):
    """The widget's picture: left, the topic's observed gain vector (ranks <= d'), its three fitted rank-level
    curves, and the chosen run's gains (relevant documents under the full qrels; the chosen estimator's gains
    for its unjudged documents); right, the run's cumulative RBP under the full qrels, under LB and under the
    estimator, with the reference range [M, M + eps] of Eq. 3. Below: the error table (RMSE, Acc% over all
    runs and topics at this theta) and this run's and topic's estimate and error per estimator. ``run`` and
    ``topic`` default to :func:`~evalkit.papers.lu2017.experiment.default_selection`; ``cache`` (a dict) keeps the
    fits across calls."""
    import matplotlib.pyplot as plt
    import seaborn as sns
    from IPython.display import display

    from evalkit.estimation import ESTIMATORS, GAIN_MODELS, MODEL_LABELS, error_table

    data = prepared(data)
    c = data.collection
    fit = explorer_fit(data, fit_depth, p, cache)
    est, ref = fit["estimates"], fit["reference"]
    scored = np.flatnonzero(est.runs)
    run, topic = default_selection(data, fit_depth, run, topic, cache, theta)
    r = c.run_index(run) if isinstance(run, str) else int(run)
    row = int(np.flatnonzero(scored == r)[0])
    t = list(c.topics).index(topic) if not isinstance(topic, (int, np.integer)) else int(topic)
    profile = run_gain_profile(data, fit, r, t, estimator, theta)
    d = data.depth
    ranks = profile["rank"].to_numpy()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    ax = axes[0]
    for m, model in enumerate(GAIN_MODELS):
        ax.plot(ranks, est.curves[t, m, :d], lw=1.2, label=f"{MODEL_LABELS[model]} curve")
    observed = fit["observed"][t]
    ax.plot(np.arange(1, len(observed) + 1), observed, "ko", ms=4, label="observed gain vector")
    relevant = profile[profile["reference_gain"] > 0]
    ax.scatter(relevant["rank"], np.full(len(relevant), 1.03), marker="|", s=80,
               c=np.where(relevant["judged"], "C3", "0.5"), label="relevant (red: judged at d')")
    unjudged = profile[~profile["judged"] & ~profile["absent"]]
    sns.scatterplot(x=unjudged["rank"], y=unjudged["gain"], ax=ax, color="C4", s=18, zorder=3,
                    label=f"{estimator}: gain of the run's unjudged documents")
    ax.axvline(fit["fit_depth"] + 0.5, color="0.3", ls=":", lw=1)
    ax.set_xlabel("rank")
    ax.set_ylabel("gain")
    ax.set_ylim(-0.03, 1.08)
    gamma = est.gamma[t]
    ax.set_title(f"topic {c.topics[t]}: gamma = {gamma * 1e3:.1f}e-3 "
                 f"({'adjusted' if gamma > theta else 'not adjusted'} at theta = {theta:.3f})", fontsize=10)
    ax.legend(fontsize=7, loc="center right")
    ax = axes[1]
    w = profile["weight"].to_numpy()
    reference_gain = np.nan_to_num(profile["reference_gain"].to_numpy())
    lb_gain = np.where(profile["judged"], profile["gain"], 0.0)
    ax.step(ranks, np.cumsum(w * reference_gain), where="post", label="full qrels", color="k")
    ax.step(ranks, np.cumsum(w * profile["gain"].to_numpy()), where="post", label=estimator, color="C4", lw=2)
    ax.step(ranks, np.cumsum(w * lb_gain), where="post", label=f"LB (depth-{fit['fit_depth']} pool)", color="0.5",
            ls="--")
    low, high = ref.score[row, t], ref.upper[row, t]
    ax.axhspan(low, high, color="C2", alpha=0.15, label="[M, M + eps] at d (Eq. 3)")
    value = est.score(estimator, theta)[row, t]
    error = score_range_error(value, low, high - low)
    ax.set_xlabel("rank")
    ax.set_ylabel(f"cumulative RBP({fit['p']:.3g})")
    ax.set_title(f"{c.run_names[r]}: estimate {value:.3f}, reference {low:.3f}-{high:.3f}, error {error:.3f}",
                 fontsize=10)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    plt.show()
    table = error_table(est, ref, thetas=(float(theta),)).drop(columns="theta")
    table["this run and topic: estimate"] = [est.score(e, theta)[row, t] for e in table["estimator"]]
    table["error"] = score_range_error(table["this run and topic: estimate"].to_numpy(), low, high - low)
    table = table.set_index("estimator").loc[[e for e in ESTIMATORS if e in table["estimator"].to_numpy()]]
    print(f"d' = {fit['fit_depth']}, theta = {theta:.3f}: {int(est.adjusted(theta).sum())} of {c.n_topics} topics "
          f"adjusted; RBP({fit['p']:.3g}) at d = {d}, {len(scored)} runs")
    display(table.style.format({"rmse": "{:.4f}", "acc": "{:.1f}", "this run and topic: estimate": "{:.4f}",
                                "error": "{:.4f}"}).apply(
        lambda col: ["font-weight: bold; background-color: #e8e0f0" if i == estimator else "" for i in col.index]))
