"""Voorhees (2014): the notebook's parameters checked, what the experiment needs from a collection, and the paper's
strategies scaled to it, with a check that the scaling keeps the paper's ratios (:mod:`evalkit.papers.needs`)."""

from __future__ import annotations

import math
import numbers
from typing import Sequence

import numpy as np
import pandas as pd

from evalkit.claims.rules import MARGINS
from evalkit.data.collection import Collection
from evalkit.judging.stratified_sampling import STRATEGIES, Strategy, get_strategy, scale_strategy
from evalkit.papers.needs import (
    REFERENCE_DEPTH,
    Plan,
    judged_depth_of,
    require,
    require_judged_depth,
    require_judged_runs,
    require_topics,
    scale_depth,
)
from evalkit.papers.voorhees2014.paper import DEFAULT_STRATEGIES, PAPER_STRATEGIES
from evalkit.papers.voorhees2014.presets import DEFAULT_RATE_FACTORS, PRESETS

#: a scaled stratum keeps the paper's ratio when its bottom rank's share of the judged depth is within this
#: relative distance of the paper's share of depth 100 (the rules' "much" on the relative scale: a boundary moved
#: by more than 25% of its share is much moved)
RATIO_TOLERANCE = MARGINS["much"]["relative"]
#: the presets whose sampling rates the kit reconstructed (the pools' rate 1 and medical2012's rates are the paper's)
RECONSTRUCTED_RATES = ("1stratum", "2strata", "3strata")
#: the largest factor of :func:`~evalkit.papers.voorhees2014.sensitivity.rate_sensitivity` (beyond it the
#: reconstructed rates all reach 1 and the strategies become pools)
MAX_RATE_FACTOR = 10.0


# ------------------------------------------------------------------------------------------- parameters


def _fail(parameter: str, message: str):
    raise ValueError(f"Parameter {parameter}: {message}.")


def check_strategies(strategies) -> list:
    """``strategies`` as a list of preset names and :class:`Strategy` objects (strategy text parsed), or a
    one-sentence ``ValueError`` naming the parameter: a list of preset names (:data:`STRATEGIES`), strategy text
    (``"[1-10]@1 + [11-100]@0.15"``, optionally named ``"mine: [1-5]@1"``) or Strategy objects, distinct names."""
    if isinstance(strategies, (str, Strategy)):
        strategies = [strategies]
    if not isinstance(strategies, (list, tuple)) or not strategies:
        _fail("strategies", f"expected a non-empty list of preset names or strategy text, got {strategies!r}")
    out = []
    for spec in strategies:
        if isinstance(spec, str) and spec in STRATEGIES:
            out.append(spec)
            continue
        if not isinstance(spec, (str, Strategy)):
            _fail("strategies", f"{spec!r} is neither a preset name nor strategy text")
        try:
            out.append(get_strategy(spec))
        except KeyError:
            _fail("strategies", f"unknown strategy {spec!r}; presets: {', '.join(STRATEGIES)}, or strategy text such "
                                "as \"[1-10]@1 + [11-100]@0.15\"")
        except ValueError as error:
            _fail("strategies", f"cannot read {spec!r} ({error})")
    names = [s if isinstance(s, str) else s.name for s in out]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        _fail("strategies", f"names must be distinct, {', '.join(repeated)} given twice")
    return out


def check_trials(trials) -> int:
    """``trials`` as an int >= 2 (intervals are taken over trials), else a ``ValueError`` naming it."""
    if isinstance(trials, bool) or not isinstance(trials, numbers.Integral) or trials < 2:
        _fail("trials", f"expected a whole number of trials >= 2 (the intervals are taken over trials), got "
              f"{trials!r}")
    return int(trials)


def check_rate_factors(factors) -> list[float]:
    """``rate_factors`` as a list of distinct positive numbers <= :data:`MAX_RATE_FACTOR` (1 is added: the run
    itself), else a ``ValueError`` naming the parameter."""
    if isinstance(factors, numbers.Number):
        factors = [factors]
    if not isinstance(factors, (list, tuple)):
        _fail("rate_factors", f"expected a list of numbers such as [0.67, 1.5], got {factors!r}")
    out = []
    for f in factors:
        if isinstance(f, bool) or not isinstance(f, numbers.Real) or not math.isfinite(f) \
                or not 0 < f <= MAX_RATE_FACTOR:
            _fail("rate_factors", f"each factor must be a number in (0, {MAX_RATE_FACTOR:g}], got {f!r}")
        out.append(float(f))
    return sorted(set(out) | {1.0})


def check_parameters(alpha=0.05, seed=0, scheduler=None) -> None:
    """The notebook's other parameters: ``alpha`` in (0, 1), ``seed`` a whole number >= 0, ``scheduler`` None or
    one of :data:`evalkit.parallel.SCHEDULERS`; a ``ValueError`` naming the parameter otherwise."""
    from evalkit.parallel import SCHEDULERS

    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 < alpha < 1:
        _fail("alpha", f"the significance level must be a number in (0, 1), got {alpha!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        _fail("seed", f"expected a whole number >= 0, got {seed!r}")
    if scheduler is not None and scheduler not in SCHEDULERS:
        _fail("scheduler", f"expected None or one of {', '.join(SCHEDULERS)}, got {scheduler!r}")


# ------------------------------------------------------------------------------------------- scaling check


def _bottoms(strategy: Strategy) -> list[int]:
    return [s.to_rank for s in strategy.strata]


def scaling_check(judged_depth: int, names: Sequence[str] = DEFAULT_STRATEGIES,
                  reference: int = REFERENCE_DEPTH) -> pd.DataFrame:
    """Does the presets' scaling to ``judged_depth`` keep the paper's ratios after rounding? One row per stratum
    bottom of each preset in ``names``: the paper's rank and its share of depth ``reference``, the scaled rank and
    its share of the judged depth, the relative change, and ``kept``: the share within :data:`RATIO_TOLERANCE`
    of the paper's, and no two of the paper's distinct bottoms (e.g. 2strata's 10 and pool15's 15) ending at the
    same scaled rank (``same as`` names the bottom it merged with). A preset that does not fit is left out."""
    rows = []
    scaled = {n: scale_strategy(STRATEGIES[n], judged_depth, reference) for n in names if n in STRATEGIES}
    ladder: dict[int, set] = {}
    for name, strategy in scaled.items():
        if strategy is None:
            continue
        for paper, mine in zip(_bottoms(STRATEGIES[name]), _bottoms(strategy)):
            ladder.setdefault(mine, set()).add(paper)
    for name, strategy in scaled.items():
        if strategy is None:
            continue
        for i, (paper, mine) in enumerate(zip(_bottoms(STRATEGIES[name]), _bottoms(strategy))):
            share, paper_share = mine / judged_depth, paper / reference
            change = share / paper_share - 1.0
            merged = sorted(ladder[mine] - {paper})
            rows.append({"strategy": name, "stratum": i + 1, "paper bottom": paper, "paper share": paper_share,
                         "scaled bottom": mine, "share": share, "change": change,
                         "same as": ", ".join(f"rank {p}" for p in merged),
                         "kept": abs(change) <= RATIO_TOLERANCE + 1e-12 and not merged})
    columns = ["strategy", "stratum", "paper bottom", "paper share", "scaled bottom", "share", "change", "same as",
               "kept"]
    return pd.DataFrame(rows, columns=columns)


def smallest_faithful_depth(names: Sequence[str] = DEFAULT_STRATEGIES, reference: int = REFERENCE_DEPTH) -> int:
    """The smallest judged depth from which on every preset of ``names`` keeps the paper's ratios
    (:func:`scaling_check`) at every deeper judged depth (17 for the six presets: at 12 and 13 they do too, at 14-16
    they do not)."""
    depth = reference
    for judged in range(reference - 1, 0, -1):
        check = scaling_check(judged, names, reference)
        if len(check) == 0 or not check["kept"].all():
            break
        depth = judged
    return depth


def _mark_scaling(plan: Plan, check: pd.DataFrame, judged: int, names: Sequence[str]) -> None:
    """Record on ``plan`` what the scaling could not keep for the strategies ``names`` (the paper's): per strategy
    (key = its name) a stratum whose share moved beyond the tolerance; per pair of otherwise kept strategies (key
    ``"a & b"``) two of the paper's distinct bottoms merged. The restoring advice goes with the first entry."""
    rows = check[check["strategy"].isin(list(names))]
    if rows.empty or rows["kept"].all():
        return
    restore = [f"no parameter restores it at judged depth {judged}: every preset keeps the paper's ratios from "
               f"judged depth {smallest_faithful_depth(names)} on; strategies written for this depth in "
               "\"strategies\" run as given (checked, not scaled)"]

    def mark(key, shows):
        plan.mark_degenerate(key, shows, restore.pop() if restore else "")

    for name, part in rows.groupby("strategy", sort=False):
        moved = part[part["change"].abs() > RATIO_TOLERANCE + 1e-12]
        if len(moved):
            row = moved.iloc[0]
            mark(name, f"{name}'s rank {row['paper bottom']} became rank {row['scaled bottom']} of {judged}: "
                       f"{row['share']:.0%} of the judged depth, the paper's {row['paper share']:.0%}")
    for scaled, part in rows.groupby("scaled bottom", sort=True):
        owners = [(r["strategy"], r["paper bottom"]) for r in part.to_dict("records")]
        for i, (a, pa) in enumerate(owners):
            for b, pb in owners[i + 1:]:
                if pa != pb and a != b and a not in plan.degenerate and b not in plan.degenerate:
                    key = " & ".join(sorted((a, b)))
                    if key not in plan.degenerate:
                        mark(key, f"{a}'s rank {pa} and {b}'s rank {pb} both became rank {scaled} of {judged}")


#: a sampled design is degenerate when more than this share of its sampled strata's pooled documents lie in
#: (topic, stratum) cells drawn at rate 1 (the base qrels judge too few of them for the target rate)
WHOLE_SHARE = 0.5


def sampling_check(collection: Collection, strategies: Sequence[Strategy], seed: int) -> pd.DataFrame:
    """Do the sampled strategies sample? Per strategy with a stratum rate below 1: its sample from the half of the
    judged runs of the experiment's first trial (:func:`evalkit.judging.stratified_sampling.sample`), and of the
    pooled documents of its sampled strata, the share the base qrels judge and the share lying in (topic,
    stratum) cells drawn at rate 1 (Voorhees' rule raises the rate to ``target * N / J``, capped at 1: where the
    base judges fewer documents than the target asks for, every judged one is taken and nothing is sampled)."""
    from evalkit.judging.stratified_sampling import sample
    from evalkit.parallel import trial_seeds
    from evalkit.papers.needs import judged_mask
    from evalkit.papers.voorhees2014.experiment import split_judged_runs, strategy_seed

    first = trial_seeds(seed, 1)[0]
    half = split_judged_runs(np.flatnonzero(judged_mask(collection)), first)
    rows = []
    for strategy in strategies:
        if all(s.rate >= 1.0 for s in strategy.strata):
            continue
        table = sample(collection, strategy, runs=half, seed=strategy_seed(first, strategy)).table
        part = table[table["target_rate"] < 1.0]
        pooled = float(part["pooled"].sum())
        whole = float(part.loc[part["rate_used"] >= 1.0 - 1e-12, "pooled"].sum())
        rows.append({"strategy": strategy.name, "pooled": int(pooled),
                     "judged in base": float(part["judged_in_base"].sum()) / pooled if pooled else float("nan"),
                     "at rate 1": whole / pooled if pooled else float("nan")})
    return pd.DataFrame(rows, columns=["strategy", "pooled", "judged in base", "at rate 1"])


def _mark_sampling(plan: Plan, collection: Collection, seed: int) -> None:
    """Mark the sampled strategies that do not sample on this collection (:func:`sampling_check`). Skipped when
    the qrels judge the whole pool of the judged runs to the judged depth (the load's ``pool_coverage``): then the
    rate used is the target rate."""
    coverage = collection.metadata.get("pool_coverage")
    if coverage is not None and math.isfinite(coverage) and coverage >= 1.0 - 1e-9:
        return
    check = sampling_check(collection, plan["strategies"], seed)
    restore = ["set \"judged_depth\" in collection.json to the depth the qrels were judged to"]
    for row in check[check["at rate 1"] > WHOLE_SHARE].to_dict("records"):
        if row["strategy"] not in plan.degenerate:
            plan.mark_degenerate(row["strategy"], f"{row['strategy']}'s sampled strata are drawn at rate 1 for "
                                                  f"{row['at rate 1']:.0%} of their pooled documents: the qrels "
                                                  f"judge {row['judged in base']:.0%} of them",
                                 restore.pop() if restore else "")


def degenerate_reason(plan: Plan | None, names: Sequence[str]) -> str:
    """``"degenerate (...)"`` for a claim about the strategies ``names`` when the scaling did not keep the paper's
    ratios for one of them or merged two of them (:func:`scaling_check`), else ``""``."""
    if plan is None or not plan.degenerate:
        return ""
    names = set(names)
    shows = [text for key, text in plan.degenerate.items() if set(key.split(" & ")) <= names and
             (" & " in key or key in names)]
    return f"degenerate ({'; '.join(shows)})" if shows else ""


# ------------------------------------------------------------------------------------------------ plan


def plan(collection: Collection, strategies: Sequence[str | Strategy] = DEFAULT_STRATEGIES, *, settings=None,
         alpha: float = 0.05, seed: int = 2014, rate_factors: Sequence[float] = DEFAULT_RATE_FACTORS,
         scheduler: str | None = None) -> Plan:
    """What the experiment needs from ``collection``, the parameters checked, and the strategies it will run there.

    Parameters are checked first (:func:`check_strategies`, :func:`check_rate_factors`, :func:`check_parameters`;
    ``settings.trials`` by :func:`check_trials`): a bad value is a one-sentence ``ValueError`` naming it.
    Needs: at least 2 judged runs (each trial pools from half of them, at least one run); at least 3 topics (the
    paired t-tests pair topics, and R̂ is correlated with R across topics); judgments as deep as the deepest
    stratum. The presets (:data:`evalkit.judging.stratified_sampling.STRATEGIES`) are written for TREC-8's
    depth-100 pools: on a collection judged less deep each is scaled to its judged depth
    (:func:`evalkit.judging.stratified_sampling.scale_strategy`; e.g. at depth 7, 2strata becomes [1-1]@1 +
    [2-7]@0.15), a preset with more strata than judged ranks is dropped, and the note says so. Where the rounding
    does not keep the paper's ratios (:func:`scaling_check`), the plan marks the strategies (or pairs) degenerate:
    the claims about them read ``not rated: degenerate (...)``; so are the sampled strategies that do not sample
    here (:func:`sampling_check`: the qrels judge too little of their pool, so the rate used is 1). A strategy the
    user wrote (a Strategy or strategy text) is checked, not changed. The plan line says what was scaled (from what, to what) and which values the
    user set.

    Parameters of the plan: ``strategies`` (Strategy objects), ``judged_depth``, ``trials``, ``rate_factors``
    (the sensitivity sweep's factors, 1 included), ``scaled`` (the presets scaled to the judged depth, for
    :func:`scaling_check`; empty at depth 100), ``example`` (bottoms and
    rates of the notebook's custom-strategy example, [5, 60] @ [1, 0.2] scaled), and the explorer's
    ``slider_depth`` (deepest rank), ``explorer_initial`` (2strata-like sliders, scaled) and
    ``explorer_reference`` (pool25 and 2strata as run here).
    """
    checked = check_strategies(strategies)
    factors = check_rate_factors(rate_factors)
    check_parameters(alpha, seed, scheduler)
    trials = check_trials(settings.trials) if settings is not None else None
    k = require_judged_runs(collection, 2, "to split in half (each trial pools from half of them)")
    require_topics(collection, 3, "(the paired t-tests pair topics; R̂ is correlated with R across topics)")
    judged = judged_depth_of(collection)
    require(judged is not None, "judgments for the first rank of every judged run", "none",
            "Check the qrels file: the judged runs' first documents are not in it.")
    notes = []
    presets = [s for s in checked if isinstance(s, str)]
    custom = [s for s in checked if not isinstance(s, str)]
    for strategy in custom:
        require_judged_depth(collection, strategy.depth, "strategies",
                             f"strategy {strategy.name!r} samples down to rank {strategy.depth}")
    scaled, dropped = [], []
    for name in presets:
        strategy = scale_strategy(STRATEGIES[name], judged)
        (scaled if strategy is not None else dropped).append(strategy or name)
    if list(strategies) != list(DEFAULT_STRATEGIES):
        notes.append("strategies set by you: " + ", ".join(s if isinstance(s, str) else str(s) for s in checked))
    if settings is not None:
        paper_trials = PRESETS["paper"]["trials"]
        given = "trials" in getattr(settings, "_given", set())
        if given:
            notes.append(f"trials {trials} set by you (the paper: {paper_trials})")
        elif trials != paper_trials:
            notes.append(f"trials {paper_trials} -> {trials} (preset {settings.preset!r})")
    if alpha != 0.05:
        notes.append(f"alpha {alpha:g} set by you (the paper: 0.05)")
    if judged < REFERENCE_DEPTH and presets:
        notes.append(f"the presets scaled from pool depth {REFERENCE_DEPTH} to the judged depth {judged} "
                     f"(x{judged / REFERENCE_DEPTH:.2g}): "
                     + ", ".join(f"{s.name} {' + '.join(map(str, STRATEGIES[s.name].strata))} -> "
                                 f"{' + '.join(map(str, s.strata))}" for s in scaled))
    if dropped:
        notes.append(f"dropped {', '.join(dropped)} (more strata than the {judged} judged ranks)")
    chosen = scaled + custom
    require(len(chosen) > 0, f"a sampling strategy that fits in the {judged} judged rank(s)",
            f"judged depth {judged}, too shallow for {', '.join(dropped)}",
            "Pass strategies with fewer strata (e.g. \"[1-1]@1\"), or set \"judged_depth\" in collection.json if "
            "the pools were deeper.")
    rebuilt = [n for n in presets if n in RECONSTRUCTED_RATES]
    if rebuilt:
        notes.append(f"the sampling rates of {', '.join(rebuilt)} are the kit's reconstruction (the paper's are cut "
                     "off in our copy; the sensitivity sweep multiplies them by "
                     + ", ".join(f"{f:g}" for f in factors if f != 1.0) + ")")
    if k < 4:
        notes.append(f"each trial pools from {k // 2} of the {k} judged runs")
    if [f for f in factors if f != 1.0] != list(DEFAULT_RATE_FACTORS):
        notes.append("rate factors of the sensitivity sweep set by you: " + ", ".join(f"{f:g}" for f in factors))
    example = [scale_depth(5, judged), max(scale_depth(60, judged), scale_depth(5, judged) + 1)]
    example[1] = min(example[1], judged)
    if example[0] >= example[1]:
        example = [max(judged - 1, 1), judged] if judged > 1 else [1, 1]
    deep = min(REFERENCE_DEPTH, judged)
    scaled_names = [s.name for s in scaled]
    result = Plan("03_voorhees2014", collection.name, {
        "strategies": chosen, "judged_depth": judged, "trials": trials, "rate_factors": factors,
        "scaled": scaled_names if judged < REFERENCE_DEPTH else [], "example": (example, [1.0, 0.2]),
        "slider_depth": min(judged, 200),
        "explorer_initial": ((scale_depth(10, judged), 1.0), (deep, 0.15), (deep, 0.0)),
        "explorer_reference": [s for s in chosen if s.name in ("pool25", "2strata")]}, notes)
    if judged < REFERENCE_DEPTH:
        _mark_scaling(result, scaling_check(judged, scaled_names), judged,
                      [n for n in scaled_names if n in PAPER_STRATEGIES] or scaled_names)
    _mark_sampling(result, collection, seed)
    return result
