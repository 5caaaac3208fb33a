"""Soboroff (2007): what the study needs from a collection (:mod:`evalkit.papers.needs`), the paper's defaults
scaled to it (the phase-1 depth, the sample's depth cap), every parameter checked, and whether the design is
degenerate there (:func:`degenerate_checks`)."""

from __future__ import annotations

import math
from numbers import Real

import numpy as np

from evalkit.data.collection import Collection
from evalkit.data.pools import pool
from evalkit.judging.relevance_sampling import DEFAULTS, sampling_design
from evalkit.papers.needs import (
    REFERENCE_DEPTH,
    Plan,
    judged_depth_of,
    require,
    require_judged_groups,
    require_judged_runs,
    require_topics,
    scale_depth,
    whole_number,
)
from evalkit.papers.soboroff2007.presets import PRESETS

__all__ = ["plan", "degenerate_checks", "design_table", "MAX_DEGENERATE_SHARE", "MIN_TOPICS_A_SIDE"]

#: the design is degenerate when more than this share of the topics is sampled at rate 1.0 (nothing is left out:
#: the "sample" is the whole pool) or has its depth set by the judged-depth cap (the design's depth is not used)
MAX_DEGENERATE_SHARE = 0.8
#: "differences come from the deeply sampled topics" compares two sets of topics: each needs this many
MIN_TOPICS_A_SIDE = 3
#: the rate at or above which a topic is "represented by a nearly 100% sample" (the paper's words)
NEAR_FULL_RATE = 0.9


def _real(name: str, value, low: float, high: float | None, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(float(value)):
        raise ValueError(f"{name} must be a number {what}, got {value!r}")
    value = float(value)
    if value <= low or (high is not None and value >= high):
        raise ValueError(f"{name} must be {what}, got {value}")
    return value


def design_table(collection: Collection, phase1_depth: int, cap: int, *, rpt: float, slope: float, budget: int,
                 runs=None):
    """Per topic, the design the sample would use (no draw): :func:`evalkit.judging.relevance_sampling.
    sampling_design`'s columns plus ``beyond_pool`` (U: documents of the depth-d pool outside the phase-1 pool) and
    ``rate`` = min(1, budget / U), as :func:`~evalkit.judging.relevance_sampling.relevance_sample` computes them."""
    deep = pool(collection, cap, runs)
    grade = collection.qrels.lookup(deep.topic, deep.doc)
    T = collection.n_topics
    p1 = deep.rank <= phase1_depth
    J = np.bincount(deep.topic[p1 & (grade >= 0)], minlength=T)
    R = np.bincount(deep.topic[p1 & (grade > 0)], minlength=T)
    table = sampling_design(J, R, phase1_depth=phase1_depth, rpt=rpt, slope=slope, budget=budget, max_depth=cap,
                            index=collection.topics)
    depth = table["depth"].to_numpy()
    beyond = np.bincount(deep.topic[~p1 & (deep.rank <= depth[deep.topic])], minlength=T)
    table["beyond_pool"] = beyond
    table["rate"] = np.where(beyond > 0, np.minimum(1.0, budget / np.maximum(beyond, 1)), 1.0)
    return table


def degenerate_checks(table) -> dict:
    """The degenerate parts of a design (a per-topic table with ``rate`` and ``capped``), key -> the number that
    shows it: ``"sampling"`` when more than :data:`MAX_DEGENERATE_SHARE` of the topics are sampled at rate 1.0
    (every subsample is then the whole pool, and the sampled judgments are the pool's); ``"depth"`` when the cap
    sets the depth of more than that share (the design's depth estimate is not what is sampled); ``"near_full"``
    when fewer than :data:`MIN_TOPICS_A_SIDE` topics are sampled at >= :data:`NEAR_FULL_RATE`, or fewer below it."""
    T = len(table)
    full = int((table["rate"] >= 1.0).sum())
    capped = int(table["capped"].sum())
    near = int((table["rate"] >= NEAR_FULL_RATE).sum())
    out = {}
    if full > MAX_DEGENERATE_SHARE * T:
        out["sampling"] = f"sampling rate 1.0 on {full} of {T} topics"
    if capped > MAX_DEGENERATE_SHARE * T:
        out["depth"] = f"the judged-depth cap sets the sample depth on {capped} of {T} topics"
    if min(near, T - near) < MIN_TOPICS_A_SIDE:
        out["near_full"] = f"{near} of {T} topics sampled at a rate >= {NEAR_FULL_RATE:.0%}"
    return out


def _restore(collection, phase1, cap, rpt, slope, budget, keys, table) -> str:
    """The smallest change of budget and slope (halving the budget, doubling the slope at most three times) after
    which none of ``keys`` is degenerate, as words; or what the collection would need."""
    T = collection.n_topics
    if "near_full" in keys and T < 2 * MIN_TOPICS_A_SIDE:
        return f"needs a collection of at least {2 * MIN_TOPICS_A_SIDE} topics"
    budgets = list(dict.fromkeys([budget] + [b for b in (budget // 2 ** i for i in range(1, 12)) if b >= 1]))
    slopes = [slope * 2 ** i for i in range(0, 4)]
    candidates = sorted(((i + j, b, s) for i, b in enumerate(budgets) for j, s in enumerate(slopes)),
                        key=lambda c: c[0])
    for _, b, s in candidates[1:]:
        found = design_table(collection, phase1, cap, rpt=rpt, slope=s, budget=b)
        if not set(degenerate_checks(found)) & set(keys):
            parts = ([f"budget={b}"] if b != budget else []) + ([f"slope={s:g}"] if s != slope else [])
            verb = "restores" if len(parts) == 1 else "restore"
            return (f"{' and '.join(parts)} {verb} it (rate < 1 on {int((found.rate < 1).sum())} of {T} topics; "
                    f"the cap sets {int(found.capped.sum())} of {T} depths)")
    if "depth" in keys:
        return (f"needs judgments deeper than the depths the design asks for (median "
                f"{float(np.median(table.depth_uncapped)):.0f} ranks; judged to {cap})")
    if "near_full" in keys:
        return (f"no budget or slope nearby gives {MIN_TOPICS_A_SIDE} topics sampled at >= {NEAR_FULL_RATE:.0%} and "
                f"{MIN_TOPICS_A_SIDE} below")
    return f"needs judgments deeper than the phase-1 depth {phase1} by more documents than the budget"


def plan(collection: Collection, phase1_depth: int = DEFAULTS["phase1_depth"], n_subsamples: int = 100, *,
         rpt: float = DEFAULTS["rpt"], slope: float = DEFAULTS["slope"], budget: int = DEFAULTS["budget"],
         n_draws: int = PRESETS["paper"]["n_draws"], logo_draws: int = PRESETS["paper"]["logo_draws"],
         seed: int = 0, sizes=None) -> Plan:
    """What the study needs from ``collection``, the depths it will use there, and what is degenerate.

    Needs: at least 2 judged runs from at least 2 groups (the pool, Figure 1's tau, leaving one group out); at least
    2 topics (the ANOVAs' topic effect); judgments deeper than the phase-1 depth (the sample reaches below the
    phase-1 pool). The paper's phase-1 depth (50) is half of TREC-8's judged depth; on a collection judged less than
    100 deep it becomes ``round(50 * judged depth / 100)`` (at most judged depth - 1), and the note says so; a
    phase-1 depth the user set is checked, never changed. The sample's depth is capped at the judged depth.

    Every parameter is checked (a ValueError naming it): ``phase1_depth``, ``budget``, ``n_subsamples`` (>= 2, the
    ANOVA's sample effect), ``n_draws``, ``logo_draws`` and ``seed`` whole numbers, ``rpt`` in (0, 1), ``slope``
    > 0. ``sizes``: the notebook's :func:`~evalkit.papers.soboroff2007.settings` (its sizes then replace
    ``n_subsamples``, ``n_draws``, ``logo_draws``; the note says where they differ from the paper's). A value of
    rpt, slope, budget or phase1_depth other than the default is noted as set by the user.

    The design (depths and rates, no draw) is computed and checked (:func:`degenerate_checks`); each degenerate
    part is recorded with :meth:`Plan.mark_degenerate` and the change of budget or slope that restores it.
    """
    if sizes is not None:
        n_subsamples, n_draws, logo_draws = sizes["n_subsamples"], sizes["n_draws"], sizes["logo_draws"]
        for key in ("sensitivity_draws", "sensitivity_logo_draws"):
            whole_number(key, sizes[key], 1)
        whole_number("sensitivity_subsamples", sizes["sensitivity_subsamples"], 2)
        slopes = sizes["sensitivity_slopes"]
        if isinstance(slopes, (str, bytes)) or not hasattr(slopes, "__iter__") or not len(list(slopes)):
            raise ValueError(f"sensitivity_slopes must be a non-empty list of slopes > 0, got {slopes!r}")
        for s in slopes:
            _real("sensitivity_slopes", s, 0.0, None, "> 0 (each slope of the sweep)")
    phase1_depth = whole_number("phase1_depth", phase1_depth, 1)
    n_subsamples = whole_number("n_subsamples", n_subsamples, 2)
    n_draws = whole_number("n_draws", n_draws, 1)
    logo_draws = whole_number("logo_draws", logo_draws, 1)
    budget = whole_number("budget", budget, 1)
    whole_number("seed", seed, 0)
    rpt = _real("rpt", rpt, 0.0, 1.0, "in (0, 1) (new relevant documents wanted per judgment)")
    slope = _real("slope", slope, 0.0, None, f"> 0 (the fall of P(rel) per {phase1_depth} ranks)")

    require_judged_runs(collection, 2, "to pool from (Figure 1's tau needs two pooling runs)")
    require_judged_groups(collection, 2, "to leave one group out")
    require_topics(collection, 2, "(the ANOVAs test a topic effect)")
    judged = judged_depth_of(collection)
    require(judged is not None and judged >= 2, "judgments at least 2 ranks deep (a phase-1 pool and a sample "
            "below it)", f"judged depth {judged or 0}", "Give \"judged_depth\" in collection.json if the pools "
            "were deeper.")
    cap = min(judged, collection.depth)
    notes = []
    if phase1_depth == DEFAULTS["phase1_depth"] and cap < REFERENCE_DEPTH:
        phase1 = min(scale_depth(phase1_depth, cap), cap - 1)
        notes.append(f"phase-1 depth {phase1} (the paper's 50 of TREC-8's 100, scaled to the judged depth {cap}); "
                     f"samples capped at depth {cap}")
    else:
        phase1 = phase1_depth
        require(phase1 < cap, f"judgments deeper than the phase-1 depth (phase1_depth = {phase1}) to sample below "
                "it", f"judged depth {cap} ({collection.metadata.get('judged_depth_rule', 'derived')})",
                f"Set phase1_depth to at most {cap - 1}.")
        if phase1 != DEFAULTS["phase1_depth"]:
            notes.append(f"phase-1 depth {phase1} set by the user (the paper's 50)")
    user = [f"{name} {value:g} set by the user ({paper})" for name, value, default, paper in (
        ("rpt", rpt, DEFAULTS["rpt"], "the paper's 20/200"),
        ("slope", slope, DEFAULTS["slope"], "the kit's reading 0.02; the paper's value is lost"),
        ("budget", budget, DEFAULTS["budget"], "the paper's 200"),
    ) if not math.isclose(value, default)]
    notes += user
    if sizes is not None and any(PRESETS["paper"].get(k) != v for k, v in sizes.items()):
        notes.append(str(sizes))
    result = Plan("02_soboroff2007", collection.name,
                  {"phase1_depth": phase1, "max_depth": cap, "n_subsamples": n_subsamples, "n_draws": n_draws,
                   "logo_draws": logo_draws, "rpt": rpt, "slope": slope, "budget": budget}, notes)
    table = design_table(collection, phase1, cap, rpt=rpt, slope=slope, budget=budget)
    found = degenerate_checks(table)
    if found:  # one change that restores them all (said once), else one per part
        together = _restore(collection, phase1, cap, rpt, slope, budget, list(found), table)
        joint = " it (rate" in together
        for i, (key, shows) in enumerate(found.items()):
            restore = (together if i == 0 else "the same change restores it") if joint else \
                _restore(collection, phase1, cap, rpt, slope, budget, [key], table)
            result.mark_degenerate(key, shows, restore)
    return result
