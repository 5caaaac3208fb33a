"""Lu, Moffat and Culpepper (2017): the ipywidgets explorer (built on
:func:`evalkit.display.widgets.interactive_figure`)."""

from __future__ import annotations

import numpy as np

from evalkit.estimation import DEFAULT_THETA
from evalkit.papers.lu2017.experiment import default_selection, prepared
from evalkit.papers.lu2017.figures import draw_explorer


def explorer(data, fit_depth: int = 10, theta: float = DEFAULT_THETA, estimator: str = "Lb", run=None, topic=None,
             p_values=(0.8, 0.9, 0.95, 0.98)):
    """Sliders for the pool depth d', the threshold theta, RBP's p and the estimator, plus a run and a topic,
    redrawing :func:`~evalkit.papers.lu2017.figures.draw_explorer` (a run's gain curve and the error table). A new
    (d', p) refits every estimator (under a second of CPU on TREC-8; the figures' fits of ``data`` are reused, and
    every (d', p) is kept, so returning to it redraws at once: bench/bench_lu2017.py); theta, the estimator, the
    run and the topic redraw at once.
    Default run and topic: :func:`~evalkit.papers.lu2017.experiment.default_selection`."""
    import ipywidgets as widgets

    from evalkit.display.widgets import interactive_figure
    from evalkit.estimation import ESTIMATORS

    data = prepared(data)
    c = data.collection
    cache: dict = {}
    scored = np.flatnonzero(data.pool_runs)
    run, topic = default_selection(data, fit_depth, run, topic, cache, theta)
    p_options = sorted({float(x) for x in p_values} | {data.p})
    # d' in steps of 5 up to 50 on TREC-8-deep pools; single ranks below d on shallow ones
    step, low, high = (5, 5, min(50, data.depth - 5)) if data.depth >= 20 else (1, 1, data.depth - 1)
    controls = {
        "fit_depth": widgets.IntSlider(value=min(max(int(fit_depth), low), high), min=low, max=high, step=step,
                                       description="d'", continuous_update=False),
        "theta": widgets.FloatSlider(value=theta, min=0.0, max=0.04, step=0.001, readout_format=".3f",
                                     description="theta", continuous_update=False),
        "p": widgets.SelectionSlider(options=p_options, value=data.p, description="RBP p", continuous_update=False),
        "estimator": widgets.Dropdown(options=list(ESTIMATORS), value=estimator, description="estimator"),
        "run": widgets.Dropdown(options=list(c.run_names[scored]), value=run, description="run"),
        "topic": widgets.Dropdown(options=list(c.topics), value=topic, description="topic"),
    }
    return interactive_figure(
        lambda **v: draw_explorer(data, v["fit_depth"], v["theta"], v["p"], v["estimator"], v["run"], v["topic"],
                                  cache),
        rows=[["fit_depth", "theta", "p"], ["estimator", "run", "topic"]], **controls)
