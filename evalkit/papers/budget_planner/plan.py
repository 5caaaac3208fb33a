"""What the planner notebook needs from a collection, and how its defaults fit it (:mod:`evalkit.papers.needs`)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from evalkit.data.collection import Collection
from evalkit.papers.needs import (
    REFERENCE_DEPTH,
    Plan,
    judged_depth_of,
    require,
    require_judged_runs,
    require_topics,
)

__all__ = ["MIN_TOPICS", "DEEP_POOLS", "plan", "population_kind"]

#: a within-system variance from fewer topics is too rough to plan a collection with
MIN_TOPICS = 10
#: judged depths from here on stand for TREC-8-like deep pools in the validation (else the shallow preset)
DEEP_POOLS = 50


def population_kind(judged_depth: int) -> str:
    """The validation's simulated population for a collection judged to ``judged_depth``: ``"trec8"`` (deep pools,
    the simulator's TREC-8 fit) from :data:`DEEP_POOLS` on, else ``"shallow"`` (the shallow reviewer preset)."""
    return "trec8" if int(judged_depth) >= DEEP_POOLS else "shallow"


def plan(collection: Collection, measure: str = "AP", measures: Sequence[str] = ("AP",), alpha: float = 0.05,
         power: float = 0.8, delta: float = 0.05, ci_width: float = 0.1, budget: float | None = None) -> Plan:
    """The planner's needs and settings on ``collection``.

    Needs: at least 2 judged runs (every design draws its judgments from the judged runs' pool), judgments for
    their first ranks (a judged depth), and at least :data:`MIN_TOPICS` topics (the within-system variance is
    estimated over topics; from fewer it is too rough to plan with). The requirement is checked (alpha in (0, 1),
    power in (alpha, 1), delta and ci_width positive, a measure the kit knows and can plan).

    Scaled to the collection: samples are drawn from the depth-D pool, D = the judged depth (at most 100); the
    stratified design's fully judged top is 10 of 100, scaled by D / 100; the pool depths are the grid's up to D;
    the estimated design (Lu et al.) only for RBP. Default ``budget``: half of what the collection's own
    judgments cost (its qrels' judged documents): "what would half the assessors buy?". The validation's
    population: :func:`population_kind`. Parameters: ``judged_depth``, ``sample_depth``, ``budget``,
    ``measure``, ``measures`` (those the kit can plan), ``population``.
    """
    from evalkit.planning.designs import measure_names, sample_depth, stratified_top
    from evalkit.planning.topic_set_size import check_requirement

    check_requirement(alpha=alpha, power=power, delta=delta, width=ci_width)
    names = measure_names(measure)  # ValueError names an unknown measure
    require_judged_runs(collection, 2, "to pool from (every judging design draws from the judged runs' pool)")
    judged = judged_depth_of(collection)
    require(judged is not None and judged >= 1, "judgments for the first rank of every judged run", "none",
            "Check the qrels file: the judged runs' first documents are not in it.")
    require_topics(collection, MIN_TOPICS, "(the within-system variance is estimated over topics; from fewer it "
                                           "is too rough to plan with)")
    D = sample_depth(collection, judged)
    notes = []
    if D < REFERENCE_DEPTH:
        notes.append(f"samples drawn from the depth-{D} pool (the judged depth), the stratified design's judged "
                     f"top [1-{stratified_top(D) if D > 1 else 1}] (10 of 100, scaled)")
    if names.rbp_p is None:
        notes.append("the estimated-deep-score design (Lu et al. 2017) is for RBP only: not planned for "
                     f"{names.measure}")
    total = int((collection.qrels.grade >= 0).sum())
    if budget is None:
        budget = float(np.round(total / 2, -2)) if total >= 200 else float(total)
        notes.append(f"budget: half the {total:,} judgments of the collection's qrels, {budget:,.0f}")
    elif not budget > 0:
        raise ValueError(f"budget must be a positive number of judgments, got {budget}")
    usable = []
    for m in measures:
        try:
            usable.append(measure_names(m).measure)
        except ValueError:
            notes.append(f"measure {m} left out (the kit cannot plan it)")
    if names.measure not in usable:
        usable.insert(0, names.measure)
    kind = population_kind(judged)
    notes.append(f"validation on the simulator's {kind!r} population (judged depth {judged})")
    return Plan("06_budget_planner", collection.name, {
        "judged_depth": int(judged), "sample_depth": D, "budget": float(budget), "measure": names.measure,
        "measures": usable, "population": kind, "alpha": alpha, "power": power, "delta": delta,
        "ci_width": ci_width}, notes)
