"""Voorhees (2014): the strategy explorer, sliders for a custom strategy of up to three strata re-running one
trial live (built on :func:`evalkit.display.widgets.interactive_figure`; drawn by
:func:`evalkit.papers.voorhees2014.figures.draw_explorer`)."""

from __future__ import annotations

from typing import Sequence

import pandas as pd

from evalkit.data.collection import Collection
from evalkit.judging.stratified_sampling import Strategy
from evalkit.papers.voorhees2014.experiment import DEFAULT_SEED, Gold, as_gold, custom_trial
from evalkit.papers.voorhees2014.figures import draw_explorer


def strategy_explorer(data: Collection | Gold, trial: int = 0, seed: int = DEFAULT_SEED,
                      initial: Sequence[tuple[int, float]] = ((10, 1.0), (100, 0.15), (100, 0.0)),
                      reference: Sequence[str | Strategy] = ("pool25", "2strata"), max_depth: int = 200):
    """Sliders for a custom strategy of up to three strata (a depth and a rate each; stratum i covers the ranks
    below stratum i-1's depth down to its own; rate 0 leaves it out), re-running one trial live
    (:func:`custom_trial`) and plotting its accuracy and R̂ correlation beside the ``reference`` strategies on the
    same split. ``max_depth``: the sliders' deepest rank (the judged depth: see
    :func:`~evalkit.papers.voorhees2014.plan.plan`); ``initial`` depths beyond it are cut to it."""
    import ipywidgets as widgets

    from evalkit.display.widgets import interactive_figure

    gold = as_gold(data)
    ref = pd.concat([custom_trial(gold, r, trial=trial, seed=seed) for r in reference], ignore_index=True) \
        if reference else None
    controls = {}
    for i, (depth, rate) in enumerate(initial, start=1):
        controls[f"d{i}"] = widgets.IntSlider(value=min(int(depth), int(max_depth)), min=1, max=int(max_depth),
                                              step=1, description=f"stratum {i} to", continuous_update=False)
        controls[f"r{i}"] = widgets.FloatSlider(value=float(rate), min=0.0, max=1.0, step=0.01,
                                                description=f"rate {i}", continuous_update=False)
    from functools import partial

    draw = partial(draw_explorer, gold, trial, seed, ref)
    # one row of sliders per stratum reads better than one long row
    rows = [[f"d{i}", f"r{i}"] for i in range(1, len(initial) + 1)]
    return interactive_figure(draw, rows=rows, **controls)
