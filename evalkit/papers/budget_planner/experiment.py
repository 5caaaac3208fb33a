"""The planner notebook's computations: the full judgments' variances per measure, the judging designs of the
chosen measure, and the validation on a simulated population. Pure functions over :mod:`evalkit.planning`."""

from __future__ import annotations

from typing import Sequence

import pandas as pd

from evalkit.data.collection import Collection
from evalkit.papers.needs import Plan

__all__ = ["full_variances", "measure_designs", "run_validation"]


def full_variances(collection: Collection, measures: Sequence[str], judged_depth: int) -> pd.DataFrame:
    """Per measure, the three estimates of sigma^2 from the full judgments' score matrix
    (:func:`evalkit.planning.variance.variance_estimates`): ``paired`` (two-way residual), ``unpaired`` (one-way)
    and ``total``, with the mean score. One row per measure."""
    from evalkit.planning.designs import full_scores
    from evalkit.planning.variance import variance_estimates

    rows = []
    for measure in measures:
        scores = full_scores(collection, measure, judged_depth)
        estimates = variance_estimates(scores)["variance"]
        rows.append({"measure": measure, "mean score": float(scores.mean()), "paired": estimates["paired"],
                     "unpaired": estimates["unpaired"], "total": estimates["total"]})
    return pd.DataFrame(rows).set_index("measure")


def measure_designs(collection: Collection, plan: Plan, measure: str | None = None, replicates: int = 5,
                    seed: int = 0, progress: bool = False) -> pd.DataFrame:
    """Every judging design's cost, variance and bias for ``measure`` (default: the plan's) on ``collection``
    (:func:`evalkit.planning.designs.design_variances` at the plan's judged depth); ``progress``: a bar that moves
    with every judgment set scored."""
    from evalkit.planning.designs import design_variances

    return design_variances(collection, measure or plan.measure, plan.judged_depth, replicates=replicates,
                            seed=seed, progress=progress)


def run_validation(plan: Plan, sizes, measure: str | None = None, seed: int = 0, delta: float | None = None,
                   alpha: float | None = None, power: float | None = None, progress: bool = False):
    """The validation (:func:`evalkit.planning.validation.validate`) on the plan's population
    (:func:`evalkit.planning.validation.simulate_population` at the preset's size): realised power and coverage
    of the t-test plan for the full judgments and the cheapest design; ``progress``: a bar that moves with every
    realised topic set. Returns (population, result)."""
    from evalkit.planning.validation import simulate_population, validate

    population = simulate_population(plan.population, int(sizes.population_topics), seed=seed,
                                     runs_depth=sizes.population_depth, n_runs=sizes.population_runs)
    result = validate(population, measure or plan.measure, alpha=plan.alpha if alpha is None else alpha,
                      power=plan.power if power is None else power, delta=plan.delta if delta is None else delta,
                      plan_draws=int(sizes.plan_draws), draws=int(sizes.validation_draws),
                      replicates=int(sizes.replicates), seed=seed, progress=progress)
    return population, result
