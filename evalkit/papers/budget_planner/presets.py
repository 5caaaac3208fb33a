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


#: the range each size given explicitly must lie in (the notebook's declarations say the same); the population
#: must hold more topics than the validation's 50-topic planning draws
LIMITS = {"replicates": (1, 1000), "population_topics": (100, 100000), "validation_draws": (10, 1000000),
          "plan_draws": (1, 1000)}


def settings(preset: str = "paper", fast: bool = False, **given):
    """The notebook's sizes: :data:`PRESETS` ``[preset]`` (``"fast"`` when ``fast``), explicit values winning
    (:func:`evalkit.papers.settings.resolve`). Each value given must be None or a whole number within
    :data:`LIMITS`, ``fast`` a bool; a bad one is a one-sentence ``ValueError`` naming the parameter."""
    import numbers

    from evalkit.papers.settings import resolve

    if not isinstance(fast, bool):
        raise ValueError(f"Parameter fast: expected True or False, got {fast!r}.")
    for name, value in given.items():
        if value is None:
            continue
        low, high = LIMITS.get(name, (None, None))
        if low is None:
            raise ValueError(f"Parameter {name}: not a size of this notebook; its sizes are {', '.join(LIMITS)}.")
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= value <= high:
            raise ValueError(f"Parameter {name}: expected None or a whole number in [{low}, {high}], got {value!r}.")
    return resolve(PRESETS, preset, fast, **{k: None if v is None else int(v) for k, v in given.items()})
