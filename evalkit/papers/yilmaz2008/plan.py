"""Yilmaz, Kanoulas & Aslam 2008: what the notebook needs from a collection, the paper's depths scaled to it, every
parameter checked, and the studies that would be degenerate there (:mod:`evalkit.papers.needs`)."""

from __future__ import annotations

import numbers
from typing import Sequence

import numpy as np

from evalkit.data.collection import Collection
from evalkit.papers.needs import (
    MIN_JUDGED_RUNS,
    Plan,
    judged_depth_of,
    judged_depth_rule,
    judged_mask,
    require,
    require_judged_depth,
    require_judged_runs,
    scale_depth,
    scale_depths,
)
from evalkit.papers.yilmaz2008.paper import (
    DEFAULT_FORM,
    FIGURE2_DEPTHS,
    FIGURE3_DEPTHS,
    P_VALUES,
    PAPER_FIGURE2_SHARE,
    PAPER_POOL_DEPTH,
    STRATA_RATIO,
    VARIANCE_FORMS,
)

#: Figure 4's design needs a depth-k pool (k >= 1) and three strata below it, so a pool at least this deep
MIN_POOL_DEPTH = 4
#: the KS test of each run needs at least this many samples (with fewer its p-value is not defined usefully)
MIN_VALIDATION_TRIALS = 2
#: the schedulers :func:`evalkit.parallel.run_trials` knows (None: $EVALKIT_SCHEDULER, else local processes)
SCHEDULERS = (None, "serial", "local", "dask")
#: the paper's shallowest design judged this share of TREC-8's pool (depth-1 pool + as many random again, Sec. 3.1)
PAPER_SMALLEST_SHARE = min(PAPER_FIGURE2_SHARE.values())


def _fail(parameter: str, value, what: str) -> None:
    raise ValueError(f"{parameter} = {value!r}: {what}.")


def _int(parameter: str, value, minimum: int) -> int:
    """``value`` as an int >= ``minimum`` (bools and fractions refused), else a ValueError naming ``parameter``."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, float)) or float(value) != int(value):
        _fail(parameter, value, f"give a whole number >= {minimum}")
    if int(value) < minimum:
        _fail(parameter, value, f"give a whole number >= {minimum}")
    return int(value)


def _ints(parameter: str, values) -> list[int]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not len(values):
        _fail(parameter, values, "give a non-empty list of whole numbers, e.g. [1, 5, 10]")
    return [_int(parameter, v, 1) for v in values]


def check_parameters(*, seed=0, ratio=STRATA_RATIO, variance_form=None, ndcg_cutoff=None, scheduler=None,
                     validation_trials=100, validation_blocks=1, sweep_trials=10, figure2_trials=20,
                     sweep_points=None) -> dict:
    """The notebook's parameters that do not depend on the collection, checked: a bad value raises a ValueError of
    one sentence naming the parameter. Returns them normalized (ints, a tuple of floats)."""
    out = {"seed": _int("seed", seed, 0)}
    if isinstance(ratio, (str, bytes)) or not isinstance(ratio, Sequence) or len(ratio) != 3:
        _fail("ratio", ratio, "give Figure 4's three stratum weights, e.g. [3.0, 1.5, 1.0]")
    try:
        weights = tuple(float(w) for w in ratio)
    except (TypeError, ValueError):
        _fail("ratio", ratio, "give three positive numbers, e.g. [3.0, 1.5, 1.0]")
    if not all(np.isfinite(w) and w > 0 for w in weights):
        _fail("ratio", ratio, "every stratum weight must be a positive number")
    out["ratio"] = weights
    if variance_form is not None and variance_form not in VARIANCE_FORMS:
        _fail("variance_form", variance_form, "choose one of " + ", ".join(map(repr, VARIANCE_FORMS)))
    out["variance_form"] = variance_form
    out["ndcg_cutoff"] = None if ndcg_cutoff is None else _int("ndcg_cutoff", ndcg_cutoff, 1)
    if scheduler not in SCHEDULERS:
        _fail("scheduler", scheduler, "choose None, 'serial', 'local' or 'dask'")
    out["scheduler"] = scheduler
    out["validation_trials"] = _int("validation_trials", validation_trials, MIN_VALIDATION_TRIALS)
    out["validation_blocks"] = _int("validation_blocks", validation_blocks, 1)
    out["sweep_trials"] = _int("sweep_trials", sweep_trials, 1)
    out["figure2_trials"] = _int("figure2_trials", figure2_trials, 1)
    out["sweep_points"] = None if sweep_points is None else _int("sweep_points", sweep_points, 2)
    return out


def design_shares(collection: Collection, pool_depth: int, depths: Sequence[int]) -> dict[int, dict]:
    """Per depth k: the share of the depth-``pool_depth`` pool of the judged runs that the depth-k + random design
    (Figures 2-3; Figure 4 has the same budget) judges, and on how many topics it judges the whole pool.

    The design judges the depth-k pool and as many documents again from the rest: min(2 |pool_k|, N_t) of the N_t
    pooled documents of topic t (:func:`evalkit.judging.stratified_sampling.depth_plus_random`)."""
    from evalkit.data.pools import pool

    p = pool(collection, int(pool_depth), judged_mask(collection))
    T = collection.n_topics
    total = np.bincount(p.topic, minlength=T)
    out = {}
    for k in depths:
        top = np.bincount(p.topic[p.rank <= int(k)], minlength=T)
        judged = np.minimum(2 * top, total)
        topics = total > 0
        out[int(k)] = {"share": float(judged.sum() / max(total.sum(), 1)),
                       "whole pool": int((judged[topics] >= total[topics]).sum()), "topics": int(topics.sum()),
                       "depth-k pool share": float(top.sum() / max(total.sum(), 1))}
    return out


def plan(collection: Collection, pool_depth: int = PAPER_POOL_DEPTH, p_values: Sequence[float] = P_VALUES,
         sweep_depths: Sequence[int] = FIGURE3_DEPTHS, figure2_depths: Sequence[int] = FIGURE2_DEPTHS,
         validation_trials: int = 100, sweep_trials: int = 10, fast: bool = False,
         sweep_points: int | None = None, *, validation_blocks: int = 1, figure2_trials: int = 20,
         seed: int = 0, ratio: Sequence[float] = STRATA_RATIO, variance_form: str | None = None,
         ndcg_cutoff: int | None = None, scheduler: str | None = None) -> Plan:
    """What the notebook needs from ``collection``, the depths it will use there, and what is degenerate there
    (:mod:`evalkit.papers.needs`).

    Needs: at least 2 judged runs (they build the pool every sample is drawn from); a known judged depth of at
    least :data:`MIN_POOL_DEPTH` (Figure 4 judges a depth-k pool and samples three strata below it); sampling
    rates ``p_values`` in (0, 1]. The paper's truth is TREC-8's depth-100 pool (footnote 2), i.e. the pool as deep
    as TREC judged it: on a collection judged less deep the truth is the pool to the judged depth D (deeper, the
    qrels know nothing: a pooled document past D would count as nonrelevant without having been judged), and the
    paper's depths k of Figures 2-4 (written for 100) are scaled by D / 100 (:func:`evalkit.papers.needs.scale_depths`:
    the share of the pool a depth-k stratum covers is kept, duplicates dropped, every k < D); the note says so.
    A ``pool_depth`` the user set is checked against the judged depth, and depths k the user set must lie in
    [1, pool depth) (the rest of the pool is sampled). ``fast``: at most 10 validation samples in at most 2
    blocks, 2 sweep trials and 3 seeds; the paper's sweep keeps k = 1, 5, 20 (unscaled) or the first, middle and
    last scaled depth (depths the user set are kept). ``sweep_points`` (the
    "class" preset, :data:`~evalkit.papers.yilmaz2008.presets.PRESETS`): keep that many of the sweep's depths, spread
    over its range in log space (:func:`evalkit.papers.settings.spread`), after scaling; None keeps them all.

    The other parameters (``seed``, ``ratio``, ``variance_form``, ``ndcg_cutoff``, ``scheduler``, the trial counts)
    are checked by :func:`check_parameters`; a bad value is a ValueError naming it. A value that differs from the
    paper's (p, depths k, the stratum weights, the pool depth, nDCG's cut-off, fewer samples or trials than the
    paper's 100 and 10) is named in the plan line as set, with the paper's beside it, so the line never calls it
    the paper's settings.

    Degenerate studies (:meth:`evalkit.papers.needs.Plan.mark_degenerate`; their claims read ``not rated:
    degenerate (...)``): a sweep depth whose design judges the whole pool on every topic (every estimator equals
    the truth: tau 1, RMS 0, and a tie would count against xinfAP); Figure 2 at such a depth; a sampling rate that
    samples the whole pool (or nothing) on every topic (the variance is 0: no KS test). When the shallowest design
    judges far more of the pool than the paper's (3.5% at depth 1 on TREC-8) the plan says the scaling cannot
    keep the paper's shares.

    Returns the :class:`~evalkit.papers.needs.Plan`; besides the parameters it holds ``shares`` (k -> share of the
    pool the design judges) for the report.
    """
    checked = check_parameters(seed=seed, ratio=ratio, variance_form=variance_form, ndcg_cutoff=ndcg_cutoff,
                               scheduler=scheduler, validation_trials=validation_trials,
                               validation_blocks=validation_blocks, sweep_trials=sweep_trials,
                               figure2_trials=figure2_trials, sweep_points=sweep_points)
    rates = _rates(p_values)
    require_judged_runs(collection, MIN_JUDGED_RUNS, "to build the pool every sample is drawn from")
    judged = judged_depth_of(collection)
    require(judged is not None and judged >= MIN_POOL_DEPTH,
            f"judgments at least {MIN_POOL_DEPTH} ranks deep (Figure 4 judges a depth-1 pool and samples three "
            "strata below it)", f"judged depth {judged or 0} ({judged_depth_rule(collection)})",
            "Give \"judged_depth\" in collection.json if the pools were deeper.")
    top = min(judged, collection.depth)
    notes = []
    depth = _int("pool_depth", pool_depth, 1)
    if depth == PAPER_POOL_DEPTH:
        depth = min(PAPER_POOL_DEPTH, top)
        if depth < PAPER_POOL_DEPTH:
            notes.append(f"the truth is the depth-{depth} pool of the judged runs (the judged depth; the paper's "
                         "depth-100 pool is as deep as TREC-8 was judged)")
    else:
        require(depth >= MIN_POOL_DEPTH, f"a pool at least {MIN_POOL_DEPTH} deep (pool_depth = {depth}: Figure 4 "
                "samples three strata below a depth-1 pool)", f"judged depth {judged}",
                f"Set pool_depth between {MIN_POOL_DEPTH} and {top}.")
        require_judged_depth(collection, depth, "pool_depth")
        if depth != PAPER_POOL_DEPTH:
            notes.append(f"the truth is the depth-{depth} pool of the judged runs (pool_depth set: the paper's 100)")

    def depths_for(values, default, parameter):
        values = _ints(parameter, values)
        if tuple(values) == tuple(default) and depth < PAPER_POOL_DEPTH:
            return scale_depths(values, depth, below=depth), True
        bad = [v for v in values if not 1 <= v < depth]
        require(not bad, f"pool depths k from 1 to {depth - 1}, below the pool depth {depth} "
                f"({parameter} = {values}: the rest of the pool is sampled)",
                f"pool depth {depth} (judged depth {judged})", f"Drop {bad} from {parameter}.")
        return list(dict.fromkeys(values)), False

    sweep, sweep_scaled = depths_for(sweep_depths, FIGURE3_DEPTHS, "sweep_depths")
    figure2, figure2_scaled = depths_for(figure2_depths, FIGURE2_DEPTHS, "figure2_depths")
    if sweep_scaled or figure2_scaled:
        notes.append(f"the depths k scaled by {depth}/100: "
                     + (f"Figures 3-4 k = {sweep} (the paper's 1-50)" if sweep_scaled else "")
                     + (", " if sweep_scaled and figure2_scaled else "")
                     + (f"Figure 2 k = {figure2} (the paper's 10, 5, 1)" if figure2_scaled else ""))
    sweep_all = list(sweep)
    validation_trials, sweep_trials = checked["validation_trials"], checked["sweep_trials"]
    validation_blocks, figure2_trials = checked["validation_blocks"], checked["figure2_trials"]
    if fast:
        validation_trials, sweep_trials = min(validation_trials, 10), min(sweep_trials, 2)
        validation_blocks, figure2_trials = min(validation_blocks, 2), min(figure2_trials, 3)
        if sweep_scaled:
            sweep = [sweep[i] for i in sorted({0, len(sweep) // 2, len(sweep) - 1})]
        elif list(sweep) == list(FIGURE3_DEPTHS):  # depths the user set are kept
            sweep = [k for k in sweep if k in (1, 5, 20)]
    elif checked["sweep_points"] is not None:
        from evalkit.papers.settings import spread

        sweep = spread(sweep, checked["sweep_points"])
    set_values = []
    if rates != list(P_VALUES):
        set_values.append(f"p_values {_shown(rates)} (the paper's {_shown(P_VALUES)})")
    if not sweep_scaled and list(sweep_depths) != list(FIGURE3_DEPTHS):
        set_values.append(f"sweep_depths {_shown(list(sweep_depths))} (the paper's 1-50)")
    if not figure2_scaled and list(figure2_depths) != list(FIGURE2_DEPTHS):
        set_values.append(f"figure2_depths {_shown(list(figure2_depths))} (the paper's 10, 5, 1)")
    if checked["ratio"] != tuple(STRATA_RATIO):
        set_values.append(f"ratio {_shown(checked['ratio'])} (the paper's 3 : 1.5 : 1)")
    if checked["variance_form"] not in (None, DEFAULT_FORM):
        set_values.append(f"variance_form '{checked['variance_form']}' (the kit's default '{DEFAULT_FORM}'; the "
                          "Appendix leaves the form open)")
    if checked["ndcg_cutoff"] is not None:
        set_values.append(f"ndcg_cutoff {checked['ndcg_cutoff']} (the paper's trec_eval nDCG, no cut-off)")
    if set_values:
        notes.append("set here: " + ", ".join(set_values))
    fewer = []
    if validation_trials < 100:
        fewer.append(f"{validation_trials} samples per p (the paper's 100)")
    if sweep_trials < 10:
        fewer.append(f"{sweep_trials} trials per depth (the paper's 10)")
    if len(sweep) < len(sweep_depths) and not sweep_scaled:
        fewer.append(f"{len(sweep)} of the {len(sweep_depths)} sweep depths (k = {_shown(sweep)})")
    elif sweep_scaled and (fast or checked["sweep_points"] is not None):
        fewer.append(f"{len(sweep)} of the scaled sweep depths (k = {_shown(sweep)})")
    if fewer:
        notes.append("smaller than the paper: " + ", ".join(fewer))
    example = max(1, min(scale_depth(10, depth), depth - 3))
    parameters = {
        "pool_depth": depth, "p_values": rates, "sweep_depths": sweep, "sweep_all": sweep_all,
        "figure2_depths": figure2,
        "strata_example_depth": example, "validation_trials": validation_trials,
        "validation_blocks": validation_blocks, "sweep_trials": sweep_trials, "figure2_trials": figure2_trials,
        "seed": checked["seed"], "ratio": list(checked["ratio"]), "variance_form": checked["variance_form"],
        "ndcg_cutoff": checked["ndcg_cutoff"], "scheduler": checked["scheduler"]}
    result = Plan("01_yilmaz2008", collection.name, parameters, notes)
    _mark_degenerate(result, collection, depth, rates, sweep, figure2)
    return result


def _shown(value) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value) + "]"
    return repr(value) if isinstance(value, str) else str(value)


def _rates(p_values) -> list[float]:
    if isinstance(p_values, (str, bytes)) or not isinstance(p_values, Sequence) or not len(p_values):
        _fail("p_values", p_values, "give a non-empty list of sampling rates in (0, 1], e.g. [0.1, 0.2, 0.3]")
    try:
        rates = [float(p) for p in p_values]
    except (TypeError, ValueError):
        _fail("p_values", p_values, "give sampling rates in (0, 1], e.g. [0.1, 0.2, 0.3]")
    bad = [p for p in rates if not 0 < p <= 1]
    if bad:
        _fail("p_values", list(p_values), f"{bad} lie outside (0, 1]: give shares of the pool, e.g. [0.1, 0.2, 0.3]")
    return list(dict.fromkeys(rates))


def _mark_degenerate(result: Plan, collection: Collection, depth: int, rates, sweep, figure2) -> None:
    """Record on ``result`` the studies whose quantity does not vary on this collection (module docstring)."""
    from evalkit.data.pools import pool

    shares = design_shares(collection, depth, sorted(set(sweep) | set(figure2)))
    result.parameters["shares"] = {k: round(v["share"], 4) for k, v in shares.items()}
    for figure, depths in (("figure 3", sweep), ("figure 4", sweep), ("figure 2", figure2)):
        whole = [k for k in depths if shares[k]["whole pool"] == shares[k]["topics"]
                 or (figure == "figure 4" and k >= depth - 2)]
        for k in whole:
            rest = [d for d in depths if d not in whole]
            result.mark_degenerate(
                f"{figure} at k = {k}",
                f"k = {k} judges {shares[k]['share']:.0%} of the depth-{depth} pool, the whole pool on "
                f"{shares[k]['whole pool']} of {shares[k]['topics']} topics: every estimator is the truth",
                f"drop k = {k} from {'figure2_depths' if figure == 'figure 2' else 'sweep_depths'}"
                + ("" if rest else " and give depths whose design judges part of the pool"))
    smallest = min(sweep + figure2)
    if shares[smallest]["share"] > 2 * PAPER_SMALLEST_SHARE:
        result.notes.append(
            f"the designs cannot keep the paper's shares of the pool: its shallowest (depth 1 + as many random "
            f"documents) judged {PAPER_SMALLEST_SHARE:.1%} of TREC-8's depth-100 pool, here the shallowest, k = "
            f"{smallest}, judges {shares[smallest]['share']:.0%} of the depth-{depth} pool (the depth-{smallest} "
            f"pool alone is {shares[smallest]['depth-k pool share']:.0%} of it)")
    p = pool(collection, depth, judged_mask(collection))
    sizes = np.bincount(p.topic, minlength=collection.n_topics)
    sizes = sizes[sizes > 0]
    for rate in rates:
        sampled = np.floor(rate * sizes + 0.5)
        if (sampled >= sizes).all():
            result.mark_degenerate(f"validation at p = {rate:g}",
                                   f"sampling rate {rate:g} samples the whole pool on {len(sizes)} of {len(sizes)} "
                                   "topics: the variance is 0, nothing to test",
                                   "give p_values below 1")
        elif (sampled == 0).all():
            result.mark_degenerate(f"validation at p = {rate:g}",
                                   f"sampling rate {rate:g} samples no document on any of {len(sizes)} topics",
                                   "give larger p_values")
