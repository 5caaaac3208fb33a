"""Yilmaz, Kanoulas & Aslam 2008: the notebook's explorers (ipywidgets on
:func:`evalkit.display.widgets.interactive_figure`): a uniform sample of p% of the pool, and the 4-strata design."""

from __future__ import annotations

from typing import Sequence

from evalkit.measures.inferred import inferred_measures
from evalkit.papers.yilmaz2008.experiment import DEFAULT_SEED, figure1, sample_seed
from evalkit.papers.yilmaz2008.gold import (
    as_gold,
    depth_strata_judgments,
    n_judged,
    plain_ndcg,
    positions,
    random_judgments,
    run_means,
)
from evalkit.papers.yilmaz2008.paper import DEFAULT_FORM, VARIANCE_FORMS


def random_sample_explorer(data, p: float = 0.2, seed: int = DEFAULT_SEED, form: str = DEFAULT_FORM):
    """Slider over p: draws a uniform sample of p% of the pool, redraws mean infAP with its intervals against MAP
    (dots: judged runs, pluses: the others) with tau / rho / RMS and the share of intervals covering MAP."""
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from evalkit.display.plots import estimate_vs_truth
    from evalkit.display.widgets import interactive_figure

    gold = as_gold(data)

    def draw(p, form, seed):
        frame = figure1(gold, [p], seed=seed, forms=[form])
        covered = frame["covers"].mean()
        _, ax = plt.subplots(figsize=(5.5, 5))
        estimate_vs_truth(frame["MAP"], frame["mean_infAP"], frame["judged"], errors=(frame["ci_high"] -
                          frame["ci_low"]) / 2, xlabel="actual MAP", ylabel="mean infAP", ax=ax,
                          title=f"p = {p:.0%}: {frame['judgments'].iloc[0]:,} judgments, "
                                f"{covered:.0%} of intervals cover MAP")
        plt.show()

    return interactive_figure(
        draw,
        rows=[["p", "seed"], ["form"]],
        p=widgets.FloatSlider(value=p, min=0.05, max=1.0, step=0.05, description="p", readout_format=".0%",
                              continuous_update=False),
        form=widgets.Dropdown(options=list(VARIANCE_FORMS), value=form, description="variance"),
        seed=widgets.IntText(value=seed, description="seed"),
    )


def stratified_explorer(data, k: int = 10, ratio: Sequence[float] = (3.0, 1.5, 1.0), seed: int = DEFAULT_SEED):
    """Sliders over k and the three stratum weights: draws the 4-strata sample and a uniform sample of the same
    size, and redraws xinfAP / infNDCG (left) and infAP / nDCG on the random judgments (right) against the truth.
    Setting the weights (1, 1, 1) gives the two-strata depth + random design of Figures 2 and 3. The controls sit
    in two rows (k and the measure; the three weights), so they fit a 1280-px screen beside JupyterLab's sidebar."""
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from evalkit.display.plots import estimate_vs_truth
    from evalkit.display.widgets import interactive_figure

    gold = as_gold(data)
    c = gold.collection
    within = positions(gold)

    def draw(k, top, middle, bottom, measure):
        weights = (top, middle, bottom)
        if min(weights) <= 0:
            weights = tuple(max(w, 1e-6) for w in weights)
        strat = depth_strata_judgments(gold, k, sample_seed(seed, "explorer", k), weights)
        n = n_judged(strat)
        rnd = random_judgments(gold, n / gold.n_pooled, sample_seed(seed, "explorer", k, 1))
        if measure == "AP":
            est = run_means(inferred_measures(c, strat, ["infAP"], within=within)["infAP"], gold.scored)
            base = run_means(inferred_measures(c, rnd, ["trec_infAP"], within=within)["trec_infAP"], gold.scored)
            truth, names = gold.map, ("xinfAP (4 strata)", "infAP (random)")
        else:
            est = run_means(inferred_measures(c, strat, [gold.infndcg_name], within=within)[gold.infndcg_name],
                            gold.scored)
            base = run_means(plain_ndcg(gold, rnd), gold.scored)
            truth, names = gold.mean_ndcg, ("infNDCG (4 strata)", f"{gold.ndcg_name} (random)")
        _, axes = plt.subplots(1, 2, figsize=(10, 4.8), sharex=True, sharey=True)
        for ax, values, name in zip(axes, (est, base), names):
            estimate_vs_truth(truth, values, gold.judged, ax=ax, xlabel=f"actual {measure}", ylabel=name,
                              title=f"{name}, k = {k}: {n / gold.n_pooled:.1%} of the pool judged")
        plt.show()

    max_k = max(1, min(50, gold.depth - 3))
    slider = (lambda v, d: widgets.FloatSlider(value=v, min=0.1, max=5.0, step=0.1, description=d,
                                               continuous_update=False, layout=widgets.Layout(width="300px")))
    return interactive_figure(
        draw,
        rows=[["k", "measure"], ["top", "middle", "bottom"]],  # three 300-px weights a row: fits 1280 px with a sidebar
        k=widgets.IntSlider(value=min(k, max_k), min=1, max=max_k, description="depth k", continuous_update=False),
        top=slider(ratio[0], "top"), middle=slider(ratio[1], "middle"), bottom=slider(ratio[2], "bottom"),
        measure=widgets.Dropdown(options=["AP", "nDCG"], value="AP", description="measure"),
    )
