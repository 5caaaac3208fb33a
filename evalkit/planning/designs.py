"""The variance each judging design adds, measured on the loaded collection by resampling its judgments.

Topic set size design (Sakai 2016, :mod:`evalkit.planning.topic_set_size`) needs the within-system variance of
the scores *as the new collection will compute them*. A collection judged more cheaply than the past one scores
every run with extra error, and the cheaper the judging, the more topics the same requirement needs: the
trade-off between topic set size and pool depth that Sakai (2016) discusses, and the "many topics, few judgments
each" argument of Webber, Moffat and Zobel (CIKM 2008, statistical power in retrieval experimentation). Here each
design is *simulated on the loaded collection*: its judgments are drawn from the collection's own qrels (as
Voorhees 2014 builds her samples), every run is scored on them, and the score matrix's variance is measured.

Designs (``family``, and the level that varies):

``pool``        depth-k pools of the judged runs (:func:`evalkit.data.pools.pool`), scored with the measure itself,
                unjudged documents nonrelevant (trec_eval); level k. Deterministic: one replicate.
``uniform``     a uniform sample at rate p of the depth-D pool (D = the judged depth, at most 100), scored with
                the inferred measure (infAP = xinfAP with one stratum, infNDCG@k, infP@k; Yilmaz, Kanoulas and
                Aslam 2008 Sec. 2 and 4); level p.
``stratified``  the top ranks [1-top] judged completely plus a sample at rate p of [top+1 - D] (Voorhees 2014's
                2strata; top = 10 at D >= 100, scaled by D / 100 below), scored with xinfAP / infNDCG / infP
                (for RBP: Lu et al. 2017's InfRBP, Eq. 5); level p.
``estimated``   a depth-k pool with Lu, Moffat and Culpepper (2017)'s estimate of the depth-D score (Eq. 4 RM by
                default; the framework's La / Lb on request), for the weighted-precision measure RBP only; level k.

Samples are drawn ``replicates`` times, each with its own seed ``SeedSequence([seed, crc32(design label),
replicate])`` (the same design gets the same draws whatever else is run).

What is measured per design (mean over the replicates):

* ``judgments per topic``: documents that must be judged (a pool's size; a sample's judged documents);
* ``variance``: V_E of the design's score matrix (two-way ANOVA residual, :mod:`evalkit.planning.variance`),
  and ``unpaired variance`` (one-way V_W);
* ``attenuation`` beta: the least-squares slope of the design's run means on the full-judgment run means
  (centred). A shallow pool shrinks differences (beta < 1), so a difference delta on the full-judgment scale is
  beta * delta on the design's scale;
* ``effective variance`` = variance / beta^2: the design as if it were full judgments with this much within-system
  variance. Planning with it in full-judgment units accounts for both the added noise and the shrinkage;
  ``added variance`` = effective variance - the full judgments' variance.
* ``bias sd``: the standard deviation of each run's *systematic* error (:func:`bias_variance`, full-judgment
  units; for a random design, of the mean of its replicates, in which the judging noise averages out): the part
  of a design's error that does not shrink with more topics. A design with a bias sd near the
  difference to detect cannot deliver the power whatever the number of topics (:mod:`evalkit.planning.plan`);
* ``kendall tau`` of the design's run ordering (by mean) with the full one.

The full judgments (the collection's qrels) are the reference row (``family = "full"``). Every run of the
collection is scored (runs that did not contribute to the pools too: the pool bias a new collection's late runs
would meet is part of the variance).
"""

from __future__ import annotations

import time
import zlib
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from evalkit.data.collection import Collection
from evalkit.data.pools import pool
from evalkit.judging.stratified_sampling import Strategy, Stratum, sample
from evalkit.measures import parse_measure
from evalkit.planning.variance import within_system_variance

__all__ = ["FAMILIES", "DEFAULT_DEPTHS", "DEFAULT_RATES", "DEFAULT_REPLICATES", "Design", "MeasureNames",
           "measure_names", "sample_depth", "stratified_top", "design_grid", "design_scores", "full_scores",
           "design_variances", "attenuation", "bias_variance"]

FAMILIES = ("pool", "uniform", "stratified", "estimated")
DEFAULT_DEPTHS = (1, 2, 3, 5, 10, 15, 20, 30, 50, 70, 100)
DEFAULT_RATES = (0.05, 0.1, 0.2, 0.3, 0.5)
DEFAULT_REPLICATES = 5
#: the deepest pool a sample is drawn from (TREC-8's pool depth; a deeper judged depth is capped here)
MAX_SAMPLE_DEPTH = 100


@dataclass(frozen=True)
class MeasureNames:
    """How each design scores a measure: ``full`` / ``pool`` (the measure), ``sampled`` (its inferred version, or
    None), ``rbp_p`` (RBP's persistence when the measure is RBP: scored at depth D by Lu et al.'s weighted
    precision, which the ``estimated`` design needs)."""

    measure: str
    sampled: str | None
    rbp_p: float | None


def measure_names(measure: str, collection: Collection | None = None) -> MeasureNames:
    """The per-design measures of ``measure`` (``AP``, ``nDCG@k``, ``P@k``, ``RBP(p=x,rel=1)``; any other measure
    the kit knows is planned with pools only). RBP is scored binary (grade >= 1 has gain 1), as Lu et al. (2017)
    score it: ``RBP(p=x)`` (graded) is taken as that only where the two are the same, on binary qrels; the plan says
    ``rel=1``; given ``collection``, a graded ``RBP(p=x)`` on graded qrels is refused. A ValueError names an
    unknown measure."""
    spec = parse_measure(str(measure))
    if spec.family in ("infAP", "infNDCG", "infP", "infR", "trec_infAP", "RBPres", "NumRel", "NumRet"):
        raise ValueError(f"measure {measure!r}: plan with the measure of the full judgments (AP, nDCG@k, P@k, "
                         "RBP(p=x), ...); each design picks its own estimator of it")
    sampled = {"AP": "infAP", "nDCG": f"infNDCG@{spec.cutoff}" if spec.cutoff else None,
               "P": f"infP@{spec.cutoff}" if spec.cutoff else None}.get(spec.family)
    if spec.family == "AP" and spec.cutoff is not None:
        sampled = None  # infAP has no cut-off
    rbp = spec.param.get("p") if spec.family == "RBP" else None
    graded = collection is not None and bool((collection.qrels.grade > 1).any())
    if rbp is not None and (spec.param.get("rel") not in (None, 1.0) or (spec.param.get("rel") is None and graded)):
        raise ValueError(f"measure {measure!r}: the designs score RBP as Lu et al. (2017) do, binary with gain 1 for "
                         "grade >= 1; on graded qrels RBP(p=x) is graded (trec_eval's rbp): write RBP(p=x,rel=1)")
    return MeasureNames(str(spec), sampled, None if rbp is None else float(rbp))


def sample_depth(collection: Collection, judged_depth: int) -> int:
    """D: the pool depth samples are drawn from and the estimated deep metric's depth: the judged depth, at most
    :data:`MAX_SAMPLE_DEPTH` and the runs' depth."""
    return int(max(1, min(int(judged_depth), MAX_SAMPLE_DEPTH, collection.depth)))


def stratified_top(depth: int) -> int:
    """The fully judged top of the stratified design over a depth-``depth`` pool: 10 at depth >= 100 (2strata),
    else 10 * depth / 100 rounded (at least 1), always above the depth's first rank and below it."""
    top = 10 if depth >= 100 else max(1, int(round(10 * depth / 100)))
    return min(top, depth - 1)


@dataclass(frozen=True)
class Design:
    """One judging design: ``family`` (:data:`FAMILIES`), ``level`` (a depth k or a rate p), ``depth`` (the pool
    it draws from: k for pools, D for samples and estimates), ``top`` (the stratified design's fully judged
    ranks) and ``estimator`` (the estimated design's)."""

    family: str
    level: float
    depth: int
    top: int = 0
    estimator: str = "RM"

    def __post_init__(self):
        if self.family not in FAMILIES + ("full",):
            raise ValueError(f"design family must be one of {', '.join(FAMILIES)}, got {self.family!r}")

    @property
    def label(self) -> str:
        if self.family == "full":
            return "full judgments"
        if self.family == "pool":
            return f"pool depth {int(self.level)}"
        if self.family == "uniform":
            return f"uniform {self.level:.0%} of depth {self.depth}"
        if self.family == "stratified":
            return f"[1-{self.top}] + {self.level:.0%} of [{self.top + 1}-{self.depth}]"
        return f"pool depth {int(self.level)} + {self.estimator}@{self.depth}"

    @property
    def strategy(self) -> Strategy | None:
        """The sampling strategy of a uniform or stratified design (None otherwise)."""
        if self.family == "uniform":
            return Strategy(self.label, (Stratum(1, self.depth, float(self.level)),))
        if self.family == "stratified":
            return Strategy(self.label, (Stratum(1, self.top, 1.0), Stratum(self.top + 1, self.depth,
                                                                              float(self.level))))
        return None

    @property
    def random(self) -> bool:
        return self.family in ("uniform", "stratified")


def design_grid(collection: Collection, judged_depth: int, measure: str = "AP", depths: Sequence[int] | None = None,
                rates: Sequence[float] | None = None, families: Sequence[str] = FAMILIES,
                estimator: str = "RM") -> list[Design]:
    """The designs a plan compares on ``collection`` judged to ``judged_depth``: pools at each depth <= D (D
    itself included), samples of the depth-D pool at each rate, the estimated design at each depth < D (RBP
    only), the stratified design where D > 1. Families the measure cannot use are left out (no inferred version:
    no samples; not RBP: no estimated)."""
    names = measure_names(measure, collection)
    D = sample_depth(collection, judged_depth)
    depths = sorted({int(d) for d in (DEFAULT_DEPTHS if depths is None else depths) if 1 <= int(d) <= D} |
                    ({D} if depths is None else set()))
    rates = sorted({float(r) for r in (DEFAULT_RATES if rates is None else rates)})
    bad = [r for r in rates if not 0 < r <= 1]
    if bad:
        raise ValueError(f"rates must be in (0, 1], got {bad[0]}")
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        raise ValueError(f"unknown design family {unknown[0]!r}; families: {', '.join(FAMILIES)}")
    out = []
    for family in families:
        if family == "pool":
            out += [Design("pool", d, d) for d in depths]
        elif family == "uniform" and names.sampled:
            out += [Design("uniform", r, D) for r in rates if r < 1]
        elif family == "stratified" and (names.sampled or names.rbp_p) and D > 1:
            out += [Design("stratified", r, D, stratified_top(D)) for r in rates if r < 1]
        elif family == "estimated" and names.rbp_p is not None:
            out += [Design("estimated", d, D, estimator=estimator) for d in depths if d < D]
    return out


# ------------------------------------------------------------------------------------------------ scoring


def _seed(seed: int, design: Design, replicate: int) -> np.random.SeedSequence:
    return np.random.SeedSequence([int(seed), zlib.crc32(design.label.encode()), int(replicate)])


def _rbp(collection: Collection, qrels, depth: int, p: float) -> np.ndarray:
    from evalkit.estimation import reference_scores

    return reference_scores(collection, depth, runs=np.ones(collection.n_runs, bool), p=p, qrels=qrels).score


def full_scores(collection: Collection, measure: str, judged_depth: int) -> np.ndarray:
    """(S, T) the measure on the collection's own qrels (RBP: at depth D, Lu et al.'s weighted precision)."""
    from evalkit.measures.evaluation import score_matrix

    names = measure_names(measure, collection)
    if names.rbp_p is not None:
        return _rbp(collection, collection.qrels, sample_depth(collection, judged_depth), names.rbp_p)
    return score_matrix(collection, names.measure)


def design_scores(collection: Collection, design: Design, measure: str, seed=0, within=None, pooled=None,
                  metric_depth: int | None = None):
    """One draw of ``design`` on ``collection``: ((S, T) scores of every run, (T,) judgments per topic).

    ``seed``: an int or a SeedSequence (a random design's draw); ``within``: :func:`judged_positions` of the
    depth-D pool and ``pooled``: that pool, shared by the samples drawn from it (faster, same values).
    ``metric_depth``: D, the depth RBP is scored to (required for RBP on a pool: the pool is k deep, the metric
    D deep, unjudged documents below k counting as nonrelevant)."""
    from evalkit.measures.evaluation import score_matrix
    from evalkit.measures.inferred import inferred_measures

    names = measure_names(measure, collection)
    T = collection.n_topics
    if design.family in ("pool", "full"):
        qrels = collection.qrels if design.family == "full" else \
            pool(collection, int(design.level)).judged_set(collection.qrels)
        judged = np.bincount(qrels.topic, minlength=T) if design.family == "pool" else \
            np.bincount(qrels.topic[qrels.grade >= 0], minlength=T)
        if names.rbp_p is not None:
            if design.family == "pool" and metric_depth is None:
                raise ValueError("design_scores: RBP on a pool needs metric_depth (D, the depth RBP is scored to)")
            depth = design.depth if design.family == "full" else int(metric_depth)
            return _rbp(collection, qrels, depth, names.rbp_p), judged
        return score_matrix(collection, names.measure, qrels), judged
    if design.family == "estimated":
        from evalkit.estimation import estimate_scores, pool_qrels

        qrels = pool_qrels(collection, int(design.level))
        estimates = estimate_scores(collection, qrels, int(design.level), score_runs=np.ones(collection.n_runs, bool),
                                    depth=design.depth, p=names.rbp_p, estimators=("LB", design.estimator))
        judged = np.bincount(pool(collection, int(design.level)).topic, minlength=T)
        return estimates.score(design.estimator), judged
    drawn = sample(collection, design.strategy, seed=seed, pooled=pooled)
    judged = np.bincount(drawn.qrels.topic[drawn.qrels.grade >= 0], minlength=T)
    if names.rbp_p is not None:
        from evalkit.estimation import inf_rbp

        return inf_rbp(collection, drawn.qrels, design.depth, names.rbp_p,
                       runs=np.ones(collection.n_runs, bool)), judged
    return inferred_measures(collection, drawn.qrels, [names.sampled], within=within)[names.sampled], judged


def attenuation(design_scores_, reference_scores) -> float:
    """beta: the least-squares slope (through the centred means) of the design's run means on the reference run
    means; 1 for the reference itself, NaN when the reference means do not vary."""
    y = np.asarray(design_scores_, float).mean(axis=1)
    x = np.asarray(reference_scores, float).mean(axis=1)
    x, y = x - x.mean(), y - y.mean()
    sxx = float(x @ x)
    return float(x @ y / sxx) if sxx > 0 else float("nan")


def bias_variance(design_scores_, reference_scores, beta: float | None = None) -> float:
    """sigma_b^2: the variance of the per-run *systematic* error of a design, which more topics do not average
    away (pool bias: runs that did not build a shallow pool lose their unjudged relevant documents on every
    topic). With ``d = y - beta x`` (design minus attenuated reference, per run and topic), the system component
    of d's two-way ANOVA: ``max(0, (MS_system(d) - MS_residual(d)) / T)`` (the ANOVA estimator of a random
    system effect; its expectation is sigma_b^2 whatever the per-topic noise). In the design's units: divide
    by beta^2 for full-judgment units (``bias sd`` in :func:`design_variances`)."""
    from evalkit.planning.variance import two_way_anova

    y, x = np.asarray(design_scores_, float), np.asarray(reference_scores, float)
    beta = attenuation(y, x) if beta is None else beta
    if not np.isfinite(beta):
        return float("nan")
    table = two_way_anova(y - beta * x)
    return float(max(0.0, (table.loc["system", "MS"] - table.loc["residual", "MS"]) / y.shape[1]))


def design_variances(collection: Collection, measure: str = "AP", judged_depth: int | None = None,
                     designs: Sequence[Design] | None = None, replicates: int = DEFAULT_REPLICATES, seed: int = 0,
                     depths: Sequence[int] | None = None, rates: Sequence[float] | None = None,
                     families: Sequence[str] = FAMILIES, estimator: str = "RM",
                     progress: bool = False) -> pd.DataFrame:
    """Each judging design's cost and variance on ``collection`` (module docstring): one row per design, the
    full judgments first. ``judged_depth``: how deep the qrels go (default: the collection's metadata, else its
    judged runs' pool: :func:`evalkit.data.pools.judged_depth`); ``designs`` (default :func:`design_grid`),
    ``replicates`` draws of each random design, seeded by ``seed``; ``progress``: a tqdm bar that moves with every
    scored judgment set (one a pool, ``replicates`` a sampled design). ``frame.attrs`` keeps the measure, the
    judged depth D, the collection's name and the full judgments' scores' shape."""
    from tqdm.auto import tqdm

    from evalkit.measures.judged_positions import judged_positions
    from evalkit.stats import kendall_tau

    if int(replicates) < 1:
        raise ValueError(f"replicates must be at least 1, got {replicates}")
    if judged_depth is None:
        from evalkit.data.pools import judged_depth as derived_depth

        judged_depth = derived_depth(collection)
    if int(judged_depth) < 1:
        raise ValueError(f"{collection.name}: no judged depth (no judged run, or the first rank is not judged): "
                         "the designs draw from the judged runs' pool")
    names = measure_names(measure, collection)
    D = sample_depth(collection, judged_depth)
    if designs is None:
        designs = design_grid(collection, judged_depth, measure, depths, rates, families, estimator)
    reference = full_scores(collection, measure, judged_depth)
    full = Design("full", D, D)
    within = pooled = None
    if any(d.random for d in designs):
        pooled = pool(collection, D)
        if names.sampled:
            within = judged_positions(collection, pooled.judged_set(collection.qrels))
    rows = []
    everything = [full] + list(designs)
    bar = tqdm(total=sum(int(replicates) if d.random else 1 for d in everything), desc="judgment sets scored",
               unit="set", disable=not progress)
    for design in everything:
        started = time.perf_counter()
        reps = int(replicates) if design.random else 1
        v_paired, v_unpaired, betas, taus, judged = [], [], [], [], []
        for b in range(reps):
            scores, per_topic = (reference, np.bincount(collection.qrels.topic[collection.qrels.grade >= 0],
                                                        minlength=collection.n_topics)) \
                if design.family == "full" else design_scores(collection, design, measure, _seed(seed, design, b),
                                                              within, pooled, D)
            v_paired.append(within_system_variance(scores, True))
            v_unpaired.append(within_system_variance(scores, False))
            betas.append(attenuation(scores, reference))
            total = scores if b == 0 else total + scores
            taus.append(kendall_tau(reference.mean(axis=1), scores.mean(axis=1)))
            judged.append(per_topic.mean())
            bar.update(1)
        beta = float(np.mean(betas))
        bias = bias_variance(total / reps, reference, beta)  # the replicates' mean: the judging noise averages out
        rows.append({"family": design.family, "level": design.level, "design": design.label,
                     "scored with": _scored_with(design, names), "depth": design.depth, "replicates": reps,
                     "judgments per topic": float(np.mean(judged)), "variance": float(np.mean(v_paired)),
                     "unpaired variance": float(np.mean(v_unpaired)), "attenuation": beta,
                     "kendall tau": float(np.mean(taus)), "bias variance": bias,
                     "seconds": time.perf_counter() - started})
    bar.close()
    frame = pd.DataFrame(rows)
    beta2 = frame["attenuation"].where(frame["attenuation"] > 0) ** 2
    frame["effective variance"] = frame["variance"] / beta2
    frame["effective unpaired variance"] = frame["unpaired variance"] / beta2
    frame["added variance"] = frame["effective variance"] - frame["effective variance"].iloc[0]
    frame["bias sd"] = np.sqrt(frame["bias variance"] / beta2)
    frame.attrs.update(measure=names.measure, judged_depth=int(judged_depth), sample_depth=D,
                       collection=str(collection.name), runs=int(collection.n_runs), topics=int(collection.n_topics),
                       replicates=int(replicates), seed=int(seed))
    return frame


def _scored_with(design: Design, names: MeasureNames) -> str:
    if names.rbp_p is not None:
        if design.family == "estimated":
            return f"{design.estimator} estimate of RBP(p={names.rbp_p:g},rel=1)@{design.depth}"
        if design.family == "stratified":
            return f"InfRBP(p={names.rbp_p:g},rel=1)@{design.depth}"
        return f"RBP(p={names.rbp_p:g},rel=1)@{design.depth}"
    return names.sampled if design.random else names.measure
