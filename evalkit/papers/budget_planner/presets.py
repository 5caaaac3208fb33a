"""The planner notebook's run sizes (:mod:`evalkit.papers.settings`): ``paper`` (the full study), ``class`` (the
same tables in under a minute of planning and a validation under two minutes on two idle cores) and ``fast``
(the tests').

* ``replicates``: draws of each sampled design on the loaded collection (the spread of a design's variance);
* ``measures``: the measures compared in the topic set size table and offered by the widget;
* ``population_topics`` / ``population_depth`` / ``population_runs``: the simulated population of the validation
  (topics, run depth, runs; None: the population's own: 129 TREC-8-like or 143 shallow-preset runs);
* ``plan_draws``: 50-topic draws the validation plans from; ``validation_draws``: topic sets realised per plan.
"""

from __future__ import annotations

__all__ = ["PRESETS", "settings", "DEFAULT_SEED"]

DEFAULT_SEED = 29

PRESETS = {
    "paper": {"replicates": 10, "measures": ["AP", "nDCG@100", "P@10", "RBP(p=0.95,rel=1)"], "population_topics": 600,
              "population_depth": 1000, "population_runs": None, "plan_draws": 5, "validation_draws": 1000},
    "class": {"replicates": 5, "measures": ["AP", "nDCG@100", "P@10"], "population_topics": 400,
              "population_depth": 100, "population_runs": None, "plan_draws": 3, "validation_draws": 200},
    "fast": {"replicates": 2, "measures": ["AP", "P@10"], "population_topics": 80, "population_depth": 50,
             "population_runs": 24, "plan_draws": 1, "validation_draws": 20},
}


def settings(preset: str = "paper", fast: bool = False, **given):
    """The notebook's sizes: :data:`PRESETS` ``[preset]`` (``"fast"`` when ``fast``), explicit values winning
    (:func:`evalkit.papers.settings.resolve`)."""
    from evalkit.papers.settings import resolve

    return resolve(PRESETS, preset, fast, **given)
