"""Yilmaz, Kanoulas & Aslam 2008: what the notebook needs from a collection, and the paper's depths scaled to it
(:mod:`evalkit.papers.needs`)."""

from __future__ import annotations

from typing import Sequence

from evalkit.data.collection import Collection
from evalkit.papers.needs import (
    MIN_JUDGED_RUNS,
    Plan,
    judged_depth_of,
    judged_depth_rule,
    require,
    require_judged_depth,
    require_judged_runs,
    scale_depth,
    scale_depths,
)
from evalkit.papers.yilmaz2008.paper import FIGURE2_DEPTHS, FIGURE3_DEPTHS, P_VALUES, PAPER_POOL_DEPTH

#: Figure 4's design needs a depth-k pool (k >= 1) and three strata below it, so a pool at least this deep
MIN_POOL_DEPTH = 4


def plan(collection: Collection, pool_depth: int = PAPER_POOL_DEPTH, p_values: Sequence[float] = P_VALUES,
         sweep_depths: Sequence[int] = FIGURE3_DEPTHS, figure2_depths: Sequence[int] = FIGURE2_DEPTHS,
         validation_trials: int = 100, sweep_trials: int = 10, fast: bool = False,
         sweep_points: int | None = None) -> Plan:
    """What the notebook needs from ``collection``, and the depths it will use there (:mod:`evalkit.papers.needs`).

    Needs: at least 2 judged runs (they build the pool every sample is drawn from); a known judged depth of at
    least :data:`MIN_POOL_DEPTH` (Figure 4 judges a depth-k pool and samples three strata below it); sampling
    rates ``p_values`` in (0, 1]. The paper's truth is TREC-8's depth-100 pool (footnote 2), i.e. the pool as deep
    as TREC judged it: on a collection judged less deep the truth is the pool to the judged depth D (deeper, the
    qrels know nothing: a pooled document past D would count as nonrelevant without having been judged), and the
    paper's depths k of Figures 2-4 (written for 100) are scaled by D / 100 (:func:`evalkit.papers.needs.scale_depths`:
    the share of the pool a depth-k stratum covers is kept, duplicates dropped, every k < D); the note says so.
    A ``pool_depth`` the user set is checked against the judged depth, and depths k the user set must lie in
    [1, pool depth) (the rest of the pool is sampled). ``fast``: at most 10 validation samples and 2 sweep trials;
    the sweep keeps k = 1, 5, 20 (unscaled) or the first, middle and last scaled depth. ``sweep_points`` (the
    "class" preset, :data:`~evalkit.papers.yilmaz2008.presets.PRESETS`): keep that many of the sweep's depths, spread
    over its range in log space (:func:`evalkit.papers.settings.spread`), after scaling; None keeps them all.

    Parameters: ``pool_depth`` (the truth's depth), ``p_values``, ``sweep_depths`` (Figures 3 and 4),
    ``figure2_depths``, ``strata_example_depth`` (the k of the 4-strata example: 10, scaled, at most pool depth
    - 3), ``validation_trials``, ``sweep_trials``.
    """
    require_judged_runs(collection, MIN_JUDGED_RUNS, "to build the pool every sample is drawn from")
    judged = judged_depth_of(collection)
    require(judged is not None and judged >= MIN_POOL_DEPTH,
            f"judgments at least {MIN_POOL_DEPTH} ranks deep (Figure 4 judges a depth-1 pool and samples three "
            "strata below it)", f"judged depth {judged or 0} ({judged_depth_rule(collection)})",
            "Give \"judged_depth\" in collection.json if the pools were deeper.")
    rates = [float(p) for p in p_values]
    bad = [p for p in rates if not 0 < p <= 1]
    require(rates and not bad, f"sampling rates in (0, 1] (p_values = {rates})", f"{bad or 'none'} outside it",
            "Set p_values to shares of the pool, e.g. [0.1, 0.2, 0.3].")
    top = min(judged, collection.depth)
    notes = []
    if int(pool_depth) == PAPER_POOL_DEPTH:
        depth = min(PAPER_POOL_DEPTH, top)
        if depth < PAPER_POOL_DEPTH:
            notes.append(f"the truth is the depth-{depth} pool of the judged runs (the judged depth; the paper's "
                         "depth-100 pool is as deep as TREC-8 was judged)")
    else:
        depth = int(pool_depth)
        require(depth >= MIN_POOL_DEPTH, f"a pool at least {MIN_POOL_DEPTH} deep (pool_depth = {depth}: Figure 4 "
                "samples three strata below a depth-1 pool)", f"judged depth {judged}",
                f"Set pool_depth between {MIN_POOL_DEPTH} and {top}.")
        require_judged_depth(collection, depth, "pool_depth")

    def depths_for(values, default, parameter):
        values = [int(v) for v in values]
        if tuple(values) == tuple(default) and depth < PAPER_POOL_DEPTH:
            return scale_depths(values, depth, below=depth), True
        bad = [v for v in values if not 1 <= v < depth]
        require(values and not bad, f"pool depths k from 1 to {depth - 1}, below the pool depth {depth} "
                f"({parameter} = {values}: the rest of the pool is sampled)",
                f"pool depth {depth} (judged depth {judged})",
                f"Drop {bad} from {parameter}." if bad else f"Give {parameter} at least one depth.")
        return values, False

    sweep, sweep_scaled = depths_for(sweep_depths, FIGURE3_DEPTHS, "sweep_depths")
    figure2, figure2_scaled = depths_for(figure2_depths, FIGURE2_DEPTHS, "figure2_depths")
    if sweep_scaled or figure2_scaled:
        notes.append(f"the depths k scaled by {depth}/100: "
                     + (f"Figures 3-4 k = {sweep} (the paper's 1-50)" if sweep_scaled else "")
                     + (", " if sweep_scaled and figure2_scaled else "")
                     + (f"Figure 2 k = {figure2} (the paper's 10, 5, 1)" if figure2_scaled else ""))
    if fast:
        validation_trials, sweep_trials = min(int(validation_trials), 10), min(int(sweep_trials), 2)
        if sweep_scaled:
            sweep = [sweep[i] for i in sorted({0, len(sweep) // 2, len(sweep) - 1})]
        else:
            sweep = [k for k in sweep if k in (1, 5, 20)] or sweep[:2]
    elif sweep_points is not None:
        from evalkit.papers.settings import spread

        sweep = spread(sweep, sweep_points)
    example = max(1, min(scale_depth(10, depth), depth - 3))
    return Plan("01_yilmaz2008", collection.name, {
        "pool_depth": depth, "p_values": rates, "sweep_depths": sweep, "figure2_depths": figure2,
        "strata_example_depth": example,
        "validation_trials": int(validation_trials), "sweep_trials": int(sweep_trials)}, notes)
