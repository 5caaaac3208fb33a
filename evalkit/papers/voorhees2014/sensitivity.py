"""Voorhees (2014): does each verdict survive the sampling rates the kit had to reconstruct?

The paper's strategy definitions are cut off in our text, so the rates of 1stratum ([1-100]@0.3), 2strata
([11-100]@0.15) and 3strata ([11-30]@0.25, [31-100]@0.05) are the kit's reconstruction (the pools' rate 1 and their
depths 15 and 25 are the paper's, as are medical2012's rates). :func:`rate_sensitivity` re-runs the experiment
with every reconstructed rate multiplied by a factor (capped at 1), the same trials and seed (so the same halves
of the judged runs, and the pools' samples unchanged), and rates every claim again
(:func:`evalkit.papers.voorhees2014.claims.claims`): one column per factor, one row per claim.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import pandas as pd

from evalkit.judging.stratified_sampling import Strategy, Stratum
from evalkit.papers.voorhees2014.claims import claims
from evalkit.papers.voorhees2014.experiment import Gold, Voorhees2014Result, run_experiment
from evalkit.papers.voorhees2014.paper import PAPER_STRATEGIES
from evalkit.papers.voorhees2014.plan import RECONSTRUCTED_RATES

#: the strategies whose rates the kit reconstructed (the others' rates are the paper's)
RECONSTRUCTED = RECONSTRUCTED_RATES


def scale_rates(strategy: Strategy, factor: float) -> Strategy:
    """``strategy`` with every stratum rate below 1 multiplied by ``factor`` (capped at 1); fully judged strata
    and the name unchanged."""
    if factor <= 0:
        raise ValueError(f"a rate factor must be positive, got {factor}")
    return Strategy(strategy.name, tuple(Stratum(s.from_rank, s.to_rank, s.rate if s.rate >= 1.0 else
                                                 min(1.0, s.rate * factor)) for s in strategy.strata))


def _merged(base: Voorhees2014Result, extra: Voorhees2014Result) -> Voorhees2014Result:
    """``base`` with the strategies of ``extra`` (run on the same trials and seed) in place of its own."""
    if not base.splits[["trial", "seed", "runs"]].equals(extra.splits[["trial", "seed", "runs"]]):
        raise ValueError("the two results were not run on the same trials and seed")
    new = {s.name: s for s in extra.strategies}
    strategies = tuple(new.get(s.name, s) for s in base.strategies)
    order = pd.CategoricalDtype([s.name for s in strategies], ordered=True)
    frames = {}
    for key in ("sizes", "pairs", "r_hat", "correlation"):
        a, b = getattr(base, key), getattr(extra, key)
        a = a[~a["strategy"].astype(str).isin(list(new))]
        both = pd.concat([a.assign(strategy=a["strategy"].astype(str)), b.assign(strategy=b["strategy"].astype(str))],
                         ignore_index=True)
        both["strategy"] = both["strategy"].astype(order)
        frames[key] = both.sort_values(["trial", "strategy"], kind="stable").reset_index(drop=True)
    return replace(base, strategies=strategies, **frames)


def rate_sensitivity(gold: Gold, result: Voorhees2014Result, factors: Sequence[float] = (0.67, 1.5), plan=None, *,
                     scheduler: str | None = None, n_jobs: int | None = None, progress: bool = False
                     ) -> pd.DataFrame:
    """Each claim's verdict with the reconstructed rates (:data:`RECONSTRUCTED`) multiplied by each of ``factors``
    (the factor 1 is ``result`` itself), on the trials and seed of ``result``: rows are the claims, then one row
    per reconstructed strategy with its judgments per topic; columns ``"rates x<factor>"``; the last column,
    ``survives``, says whether the verdict is the same at every factor ("yes where decided": the same wherever
    the interval decided it). Verdicts are shortened (:func:`short_verdict`). Only the reconstructed strategies are
    re-run (the pools' samples do not depend on the rates); the paper's five strategies are rated (medical2012 is
    left out, as in the claims). ``plan``: the plan the result was run with (its degenerate scalings carry over).
    Verdicts are graded as the claims table grades them (:func:`evalkit.claims.grade_frame`, on the collection
    :func:`evalkit.load_dataset` loaded last)."""
    from evalkit.claims import claims_frame, grade_frame

    factors = sorted({float(f) for f in factors} | {1.0})
    base = _subset(result, [s.name for s in result.strategies if s.name in PAPER_STRATEGIES])
    rerun = [s for s in base.strategies if s.name in RECONSTRUCTED]
    swept = [f for f in factors if f != 1.0] if rerun else []
    # one experiment for every factor: the scaled strategies under names of their own (a strategy's sample
    # depends only on the trial and its strata, so the names change no number), split by factor afterwards
    tagged = {(s.name, f): Strategy(f"{s.name} x{f:g}", scale_rates(s, f).strata) for f in swept for s in rerun}
    extra = run_experiment(gold, list(tagged.values()), trials=result.trials, seed=result.seed,
                           scheduler=scheduler, n_jobs=n_jobs, progress=progress,
                           desc="rates " + ", ".join(f"x{f:g}" for f in swept)) if tagged else None
    verdicts, sizes = {}, {}
    for factor in factors:
        run = base
        if factor in swept:
            names = {tagged[(s.name, factor)].name: s.name for s in rerun}
            run = _merged(base, _renamed(_subset(extra, list(names)), names))
        label = f"rates x{factor:g}"
        graded = grade_frame(claims_frame(claims(run, plan)))
        verdicts[label] = graded.set_index("claim")["verdict"]
        judged = run.sizes.groupby("strategy", observed=True)["judged"].sum()
        per_topic = judged / (run.trials * run.sizes["topic"].nunique())
        sizes[label] = {f"{s.name}: judgments/topic": f"{per_topic[s.name]:.0f}" for s in rerun}
    frame = pd.DataFrame(verdicts).map(short_verdict)
    frame["survives"] = [_survives(row) for _, row in frame.iterrows()]
    size_rows = pd.DataFrame(sizes).assign(survives="")
    out = pd.concat([frame, size_rows])
    out.index.name = "claim"
    return out


def short_verdict(verdict: str) -> str:
    """A verdict without its detail: "not rated at class size (10 trials: ...)" -> "not rated at class size",
    "inconclusive (0.1 [...])" -> "inconclusive"; the others as they are."""
    verdict = str(verdict)
    for head in ("not rated at class size", "not rated: degenerate", "inconclusive", "withheld"):
        if verdict.startswith(head):
            return head
    return verdict


def _survives(row: pd.Series) -> str:
    """"yes" when the verdict is the same at every factor, "no" when two decided verdicts (yes, no, partly, or
    their "direction only" forms) differ, else "yes where decided" (the others are inconclusive or not rated)."""
    if row.nunique() == 1:
        return "yes"
    decided = row[~row.str.startswith(("not rated", "withheld", "inconclusive", "direction only: inconclusive"))]
    return "no" if decided.nunique() > 1 else "yes where decided"


def _renamed(result: Voorhees2014Result, names: dict) -> Voorhees2014Result:
    """``result`` with its strategies renamed (``names``: old -> new)."""
    strategies = tuple(Strategy(names.get(s.name, s.name), s.strata) for s in result.strategies)
    order = pd.CategoricalDtype([s.name for s in strategies], ordered=True)
    frames = {}
    for key in ("sizes", "pairs", "r_hat", "correlation"):
        frame = getattr(result, key).copy()
        frame["strategy"] = frame["strategy"].astype(str).map(lambda n: names.get(n, n)).astype(order)
        frames[key] = frame
    return replace(result, strategies=strategies, **frames)


def _subset(result: Voorhees2014Result, names: Sequence[str]) -> Voorhees2014Result:
    """``result`` restricted to the strategies ``names``."""
    strategies = tuple(s for s in result.strategies if s.name in names)
    order = pd.CategoricalDtype([s.name for s in strategies], ordered=True)
    frames = {}
    for key in ("sizes", "pairs", "r_hat", "correlation"):
        frame = getattr(result, key)
        frame = frame[frame["strategy"].astype(str).isin(list(names))].copy()
        frame["strategy"] = frame["strategy"].astype(str).astype(order)
        frames[key] = frame.reset_index(drop=True)
    return replace(result, strategies=strategies, **frames)
