"""What the planner notebook needs from a collection, and how its defaults fit it (:mod:`evalkit.papers.needs`)."""

from __future__ import annotations

import math
import numbers
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

__all__ = ["MIN_TOPICS", "DEEP_POOLS", "MAX_MEASURES", "plan", "population_kind", "check_parameters"]

#: a within-system variance from fewer topics is too rough to plan a collection with
MIN_TOPICS = 10
#: judged depths from here on stand for TREC-8-like deep pools in the validation (else the shallow preset)
DEEP_POOLS = 50
#: the most measures the topic set size table compares and the widget offers
MAX_MEASURES = 8


def _fail(parameter: str, message: str):
    raise ValueError(f"Parameter {parameter}: {message}.")


def _real(value) -> bool:
    return not isinstance(value, bool) and isinstance(value, numbers.Real) and math.isfinite(float(value))


def check_parameters(measure="AP", measures=("AP",), alpha=0.05, power=0.8, delta=0.05, ci_width=0.1,
                     budget=None, seed=None) -> list[str]:
    """The notebook's requirement parameters, each checked before anything is computed; a bad value is a
    one-sentence ``ValueError`` naming the parameter: ``alpha`` in (0, 0.5), ``power`` in (alpha, 1), ``delta`` and
    ``ci_width`` in (0, 1) (the measures lie in [0, 1]), ``budget`` None or a positive finite number of judgments,
    ``seed`` None or a whole number in [0, 2^32), ``measure`` a measure the kit can plan, ``measures`` None or a
    list of 1 to :data:`MAX_MEASURES` distinct measure names. Returns ``measures`` as a list of names."""
    from evalkit.planning.designs import measure_names

    if not _real(alpha) or not 0 < alpha < 0.5:
        _fail("alpha", f"the significance level must be a number in (0, 0.5), got {alpha!r}")
    if not _real(power) or not alpha < power < 1:
        _fail("power", f"the power wanted must be a number above alpha ({alpha:g}) and below 1, got {power!r}")
    for name, value, what in (("delta", delta, "the difference to detect"), ("ci_width", ci_width,
                                                                             "the cap on the CI width")):
        if not _real(value) or not 0 < value < 1:
            _fail(name, f"{what} must be a number in (0, 1) (the measures lie in [0, 1]), got {value!r}")
    if budget is not None and (not _real(budget) or not budget > 0):
        _fail("budget", f"the judgments available must be None or a positive finite number, got {budget!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)
                             or not 0 <= seed < 2 ** 32):
        _fail("seed", f"expected a whole number in [0, 4294967295], got {seed!r}")
    if not isinstance(measure, str):
        _fail("measure", f"expected a measure name such as \"AP\" or \"nDCG@100\", got {measure!r}")
    try:
        measure_names(measure)
    except ValueError as error:
        _fail("measure", str(error).rstrip("."))
    if isinstance(measures, str) or not isinstance(measures, (list, tuple)) or not measures:
        _fail("measures", f"expected None or a non-empty list of measure names such as [\"AP\", \"P@10\"], got "
              f"{measures!r}")
    if len(measures) > MAX_MEASURES:
        _fail("measures", f"at most {MAX_MEASURES} measures, got {len(measures)}")
    if not all(isinstance(m, str) for m in measures):
        _fail("measures", f"every item must be a measure name, got {measures!r}")
    repeated = sorted({m for m in measures if list(measures).count(m) > 1})
    if repeated:
        _fail("measures", f"names must be distinct, {', '.join(repeated)} given twice")
    return list(measures)


def population_kind(judged_depth: int) -> str:
    """The validation's simulated population for a collection judged to ``judged_depth``: ``"trec8"`` (deep pools,
    the simulator's TREC-8 fit) from :data:`DEEP_POOLS` on, else ``"shallow"`` (the shallow reviewer preset)."""
    return "trec8" if int(judged_depth) >= DEEP_POOLS else "shallow"


def plan(collection: Collection, measure: str = "AP", measures: Sequence[str] = ("AP",), alpha: float = 0.05,
         power: float = 0.8, delta: float = 0.05, ci_width: float = 0.1, budget: float | None = None,
         seed: int | None = None) -> Plan:
    """The planner's needs and settings on ``collection``.

    Needs: at least 2 judged runs (every design draws its judgments from the judged runs' pool), judgments for
    their first ranks (a judged depth), and at least :data:`MIN_TOPICS` topics (the within-system variance is
    estimated over topics; from fewer it is too rough to plan with). The parameters are checked first
    (:func:`check_parameters`, ``seed`` too when given): a bad value is a one-sentence ``ValueError`` naming it.

    Scaled to the collection: samples are drawn from the depth-D pool, D = the judged depth (at most 100); the
    stratified design's fully judged top is 10 of 100, scaled by D / 100; the pool depths are the grid's up to D;
    the estimated design (Lu et al.) only for RBP. Default ``budget``: half of what the collection's own
    judgments cost (its qrels' judged documents): "what would half the assessors buy?". The validation's
    population: :func:`population_kind`. Parameters: ``judged_depth``, ``sample_depth``, ``budget``,
    ``measure``, ``measures`` (those the kit can plan), ``population``.
    """
    from evalkit.planning.designs import measure_names, sample_depth, stratified_top
    from evalkit.planning.topic_set_size import check_requirement

    measures = check_parameters(measure, measures, alpha, power, delta, ci_width, budget, seed)
    check_requirement(alpha=alpha, power=power, delta=delta, width=ci_width)
    names = measure_names(measure)
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
