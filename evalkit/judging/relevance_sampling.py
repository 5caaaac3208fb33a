"""Relevance-based sampling: the TREC 2006 Terabyte track's second judging phase (Soboroff 2007, EVIA).

Phase 1 judges the depth-``Δ`` pool (Δ = 50) of some runs. Phase 2 uses those judgments to pick, per topic, a
sample depth and a sampling rate "with the goal of finding 20 new relevant documents out of 200 additional
judgments" (the *relevant-percent-target* ``rpt = 20/200``), then draws a uniform random sample of the pool of
the same runs from rank 1 to that depth.

The paper's text lost its two formulas and the slope's value in extraction. The reading used here (every step
is a column of :func:`sampling_design`'s table)::

    P(rel)    = |R| / |J|                        relevant fraction of the phase-1 (depth-Δ) pool, per topic
    y(x)      = P(rel) - slope * (x - Δ) / Δ     linear fall-off: P(rel) is the fraction "at depth Δ", and it
                                                 drops by ``slope`` every Δ ranks ("a fixed slope representing
                                                 ΔP(rel) per 50 ranks"; the value is not in the text)
    x         = Δ + Δ * (P(rel) - rpt) / slope   the rank where the relevant fraction y(x) = rpt
    size_fit  = |J| * x / Δ                      size of the pool to rank x, the pool growing by |J| documents
                                                 every Δ ranks: the pool "that contains 20 additional relevant
                                                 documents per 200 judged" (small, or negative, when P(rel) is
                                                 below rpt, or below rpt - slope)
    pool_size = max(size_fit, |J| + budget)      "at least 200 more documents to judge" (budget = 200)
    depth     = ceil(pool_size * Δ / |J|)        "poolsize × Δ / |J| where Δ is 50", rounded up to a rank
                                                 (= max(ceil(x), ceil(Δ + budget Δ / |J|)))
    depth     = min(depth, max_depth)            the cap: beyond the depth where base judgments exist (TREC-8:
                                                 100) a sample cannot be judged; ``capped`` says where it bites
    U         = |depth-d pool| - |depth-Δ pool|  the documents the depth-d pool adds ("unjudged" in phase 1)
    rate      = min(1, budget / U)               "200 divided by the number of unjudged documents in that pool"
    sample    : every document of the depth-d pool (rank 1 to d, phase-1 documents included) is drawn
                independently with probability ``rate`` (Bernoulli, as NIST's ``make-pools.pl`` draws: one
                uniform number per pooled document), so E[new documents sampled] = budget.

The default ``slope = 0.02`` (the relevant fraction falls by 2 points every 50 ranks) is this kit's choice: with
the TB06 phase-1 averages (640 documents, 118 relevant a topic, P(rel) ≈ 0.18) it gives a depth near
50 + 50 * 0.08 / 0.02 = 250 for the average topic and, with the floor, a mean near the paper's 314; a topic
reaching the paper's maximum depth 1252 would need P(rel) ≈ 0.58. Anchoring the line at rank Δ (rather than
at rank 0 or at the pool's middle rank Δ/2) is also a reading.

The sampled qrels (:attr:`RelevanceSample.qrels`) are in the kit's sampled form: every document of the depth-d
pool, stratum 1 (one uniform rate per topic), grade = the base judgment where sampled, -1 where pooled but not
sampled. A phase-1 document that is not drawn is -1 too (the paper: a relevant document at rank 1 that was not
sampled makes infAP "necessarily less than MAP"). Score them with :func:`evalkit.measures.inferred.trec_infap`
(trec_eval's infAP) and the phase-1 pool (:attr:`RelevanceSample.pool_qrels`) with MAP.

Everything is vectorized over topics and documents: one pool of the deepest depth, per-topic depth masks, one
uniform draw per pooled document.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalkit.data.collection import GRADE_DTYPE, UNSAMPLED, Collection, JudgedSet
from evalkit.data.pools import Pool, judged_depth, pool

__all__ = [
    "DEFAULTS",
    "RelevanceSample",
    "judged_depth",
    "pool_subsamples",
    "redraw",
    "relevance_sample",
    "sampling_design",
    "subsample_qrels",
]

#: The paper's parameters (slope: this kit's reading, see the module docstring).
DEFAULTS = {"phase1_depth": 50, "rpt": 20 / 200, "slope": 0.02, "budget": 200}


def _rng(seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def sampling_design(
    n_judged,
    n_relevant,
    *,
    phase1_depth: int = DEFAULTS["phase1_depth"],
    rpt: float = DEFAULTS["rpt"],
    slope: float = DEFAULTS["slope"],
    budget: int = DEFAULTS["budget"],
    max_depth: int | None = None,
    index=None,
) -> pd.DataFrame:
    """Per topic, the sample depth from the phase-1 counts (the formulas of the module docstring).

    ``n_judged`` |J| and ``n_relevant`` |R| are per-topic counts in the depth-``phase1_depth`` pool. Returns a
    DataFrame (``index`` = topics if given) with ``judged``, ``relevant``, ``p_rel``, ``x`` (rank where the fitted
    relevant fraction reaches ``rpt``), ``size_fit``, ``pool_size`` (after the ``|J| + budget`` floor),
    ``floor`` (whether the floor set the size), ``depth_uncapped``, ``depth`` and ``capped`` (``depth_uncapped >
    max_depth``). A topic with |J| = 0 has no phase-1 information: its depth is ``max_depth`` (or
    ``phase1_depth`` + ``budget`` without a cap).
    """
    if slope <= 0:
        raise ValueError(f"slope must be > 0 (the fall-off of P(rel) per {phase1_depth} ranks), got {slope}")
    if not 0 < rpt < 1:
        raise ValueError(f"rpt must be in (0, 1), got {rpt}")
    if phase1_depth < 1 or budget < 1:
        raise ValueError("phase1_depth and budget must be >= 1")
    J = np.asarray(n_judged, np.float64)
    R = np.asarray(n_relevant, np.float64)
    delta = float(phase1_depth)
    has = J > 0
    p_rel = np.divide(R, J, out=np.zeros_like(J), where=has)
    x = delta + delta * (p_rel - rpt) / slope
    size_fit = J * x / delta
    pool_size = np.maximum(size_fit, J + budget)
    raw = np.divide(pool_size * delta, J, out=np.full_like(J, np.nan), where=has)
    depth_uncapped = np.where(has, np.ceil(raw - 1e-9), np.nan)
    if max_depth is None:
        depth_uncapped = np.where(has, depth_uncapped, phase1_depth + budget)
        depth = depth_uncapped
    else:
        if max_depth < phase1_depth:
            raise ValueError(f"max_depth {max_depth} is shallower than the phase-1 depth {phase1_depth}")
        depth_uncapped = np.where(has, depth_uncapped, max_depth)
        depth = np.minimum(depth_uncapped, max_depth)
    return pd.DataFrame(
        {
            "judged": J.astype(np.int64),
            "relevant": R.astype(np.int64),
            "p_rel": p_rel,
            "x": x,
            "size_fit": size_fit,
            "pool_size": pool_size,
            "floor": size_fit < J + budget,
            "depth_uncapped": depth_uncapped.astype(np.int64),
            "depth": depth.astype(np.int64),
            "capped": depth_uncapped > depth,
        },
        index=index,
    )


@dataclass(frozen=True)
class RelevanceSample:
    """A relevance-based sample (see the module docstring).

    ``qrels``: sampled qrels (the depth-d pool, stratum 1, base grade if sampled else -1). ``pool_qrels``: the
    phase-1 depth-Δ pool with its base grades (MAP's qrels). ``table``: per topic, the design columns of
    :func:`sampling_design` plus ``pool_docs`` (documents in the depth-d pool), ``beyond_pool`` (U, those not in
    the phase-1 pool), ``rate``, ``sampled``, ``sampled_relevant``, ``sampled_in_pool``,
    ``sampled_beyond`` and ``new_relevant`` (sampled relevant documents outside the phase-1 pool),
    ``sampled_unjudged`` (drawn but without a base judgment: 0 when the depth is capped at the judged depth).
    ``pool_rank``: each qrels line's pool rank; ``in_phase1``: it is in the phase-1 pool. ``base_grade``: each
    qrels line's base judgment (< 0: none), what a draw reveals (:func:`redraw` draws again from it).
    """

    qrels: JudgedSet
    pool_qrels: JudgedSet
    table: pd.DataFrame
    pool_rank: np.ndarray
    in_phase1: np.ndarray
    params: dict = field(default_factory=dict)
    base_grade: np.ndarray | None = None

    @property
    def depth(self) -> np.ndarray:
        return self.table["depth"].to_numpy()

    @property
    def rate(self) -> np.ndarray:
        return self.table["rate"].to_numpy()

    @property
    def n_judged(self) -> int:
        """Judgments the sample needs (sampled documents with a base judgment)."""
        return int((self.qrels.grade >= 0).sum())

    def summary(self) -> dict:
        """The paper's statistics of the sample (Soboroff 2007, Sec. 2): depth range and mean, documents and
        relevant per topic, beyond-pool documents and relevant, topics with >= 1 and >= 20 new relevant, cap."""
        t = self.table
        return {
            "topics": len(t),
            "depth_min": int(t.depth.min()),
            "depth_max": int(t.depth.max()),
            "depth_mean": float(t.depth.mean()),
            "depth_uncapped_mean": float(t.depth_uncapped.mean()),
            "topics_capped": int(t.capped.sum()),
            "rate_mean": float(t.rate.mean()),
            "pool_docs_per_topic": float(t.judged.mean()),
            "pool_relevant_per_topic": float(t.relevant.mean()),
            "docs_per_topic": float(t.sampled.mean()),
            "relevant_per_topic": float(t.sampled_relevant.mean()),
            "beyond_pool_docs": float(t.sampled_beyond.mean()),
            "beyond_pool_relevant": float(t.new_relevant.mean()),
            "topics_with_new_relevant": int((t.new_relevant >= 1).sum()),
            "topics_with_20_new_relevant": int((t.new_relevant >= 20).sum()),
        }


def relevance_sample(
    collection: Collection,
    runs=None,
    *,
    phase1_depth: int = DEFAULTS["phase1_depth"],
    rpt: float = DEFAULTS["rpt"],
    slope: float = DEFAULTS["slope"],
    budget: int = DEFAULTS["budget"],
    max_depth: int | str | None = "judged",
    base_qrels: JudgedSet | None = None,
    seed=None,
) -> RelevanceSample:
    """Soboroff's (2007) relevance-based sample of ``runs`` (default: the collection's judged runs).

    ``max_depth``: the cap on the sample depth: ``"judged"`` (default) = :func:`judged_depth` (TREC-8: 100),
    an int, or None (the run depth). ``base_qrels`` (default: the collection's) supply the judgments of the
    phase-1 pool and of the sampled documents. ``seed``: int, SeedSequence or Generator (the same seed gives the
    same sample). See the module docstring for the procedure.
    """
    base = collection.qrels if base_qrels is None else base_qrels
    if max_depth == "judged":
        cap = judged_depth(collection, runs, base_qrels)
        if cap < 1:
            raise ValueError(f"{collection.name}: no judgments reach any depth of the pool of "
                             f"{'the judged runs' if runs is None else 'these runs'} (judged depth 0): is any run "
                             "judged? (see evalkit.data.pool_metadata)")
    elif max_depth is None:
        cap = collection.depth
    else:
        cap = int(max_depth)
    cap = min(cap, collection.depth)
    if phase1_depth > cap:
        raise ValueError(f"phase-1 depth {phase1_depth} is deeper than the depth judgments reach ({cap})")

    # phase 1: the depth-Δ pool and its judgments
    deep: Pool = pool(collection, cap, runs)
    grade = base.lookup(deep.topic, deep.doc)
    in_phase1 = deep.rank <= phase1_depth
    T = collection.n_topics
    J = np.bincount(deep.topic[in_phase1 & (grade >= 0)], minlength=T)
    R = np.bincount(deep.topic[in_phase1 & (grade > 0)], minlength=T)
    table = sampling_design(J, R, phase1_depth=phase1_depth, rpt=rpt, slope=slope, budget=budget, max_depth=cap,
                            index=pd.Index(collection.topics, name="topic"))
    depth = table["depth"].to_numpy()

    # phase 2: the depth-d pool per topic, the rate, one Bernoulli draw per pooled document
    keep = deep.rank <= depth[deep.topic]
    topic, doc, rank, g, p1 = deep.topic[keep], deep.doc[keep], deep.rank[keep], grade[keep], in_phase1[keep]
    pool_docs = np.bincount(topic, minlength=T)
    beyond = np.bincount(topic[~p1], minlength=T)
    rate = np.where(beyond > 0, np.minimum(1.0, budget / np.maximum(beyond, 1)), 1.0)
    pool_grade = np.where(grade[in_phase1] >= 0, grade[in_phase1], UNSAMPLED).astype(GRADE_DTYPE)
    pool_qrels = JudgedSet(deep.topic[in_phase1], deep.doc[in_phase1], pool_grade, None, T, deep.n_docs)
    table["pool_docs"] = pool_docs
    table["beyond_pool"] = beyond
    table["rate"] = rate
    qrels = JudgedSet(topic.astype(np.int32), doc.astype(np.int32), np.full(len(topic), UNSAMPLED, GRADE_DTYPE),
                      np.ones(len(topic), np.int32), T, deep.n_docs)
    params = {"phase1_depth": phase1_depth, "rpt": rpt, "slope": slope, "budget": budget, "max_depth": cap,
              "runs": "judged" if runs is None else runs}
    design = RelevanceSample(qrels=qrels, pool_qrels=pool_qrels, table=table, pool_rank=rank.astype(np.int32),
                             in_phase1=p1, params=params, base_grade=np.asarray(g))
    return redraw(design, seed)


def redraw(sample: RelevanceSample, seed=None) -> RelevanceSample:
    """Another draw of the same design: the same depth-d pools and rates as ``sample``, one Bernoulli draw per
    pooled document with ``seed`` (``redraw(relevance_sample(c, ..., seed=a), b)`` equals ``relevance_sample(c,
    ..., seed=b)``, without pooling again). Used for the spread of a figure over many draws."""
    if sample.base_grade is None:
        raise ValueError("redraw needs a sample made by relevance_sample (its base grades)")
    q, g, p1 = sample.qrels, sample.base_grade, sample.in_phase1
    T = q.n_topics
    rate = sample.table["rate"].to_numpy()
    drawn = _rng(seed).random(len(q.topic)) < rate[q.topic]
    sampled = drawn & (g >= 0)
    new_grade = np.where(sampled, g, UNSAMPLED).astype(GRADE_DTYPE)
    qrels = JudgedSet(q.topic, q.doc, new_grade, q.stratum, T, q.n_docs)
    count = lambda mask: np.bincount(q.topic[mask], minlength=T)  # noqa: E731
    table = sample.table.copy()
    table["sampled"] = count(sampled)
    table["sampled_relevant"] = count(sampled & (g > 0))
    table["sampled_in_pool"] = count(sampled & p1)
    table["sampled_beyond"] = count(sampled & ~p1)
    table["new_relevant"] = count(sampled & ~p1 & (g > 0))
    table["sampled_unjudged"] = count(drawn & (g < 0))
    return RelevanceSample(qrels=qrels, pool_qrels=sample.pool_qrels, table=table, pool_rank=sample.pool_rank,
                           in_phase1=p1, params=sample.params, base_grade=g)


def pool_subsamples(pool_qrels: JudgedSet, rate, n_samples: int, seed=None) -> np.ndarray:
    """(n_samples, len(pool_qrels)) grades of ``n_samples`` random subsamples drawn *inside* a judged pool at the
    per-topic ``rate`` (T,): each pooled document is kept with probability rate[topic] (its base grade) or
    marked -1 (pooled, not sampled). One uniform matrix for all subsamples (Soboroff 2007, Sec. 5: "100 random
    subsamples of the depth-50 pool ... drawn at the same rates ... within the pool only"). Row k with
    ``JudgedSet(pool_qrels.topic, pool_qrels.doc, grades[k], stratum, ...)`` is subsample k's qrels; see
    :func:`subsample_qrels`."""
    rate = np.asarray(rate, np.float64)
    u = _rng(seed).random((int(n_samples), len(pool_qrels)))
    keep = u < rate[pool_qrels.topic][None, :]
    return np.where(keep & (pool_qrels.grade >= 0)[None, :], pool_qrels.grade[None, :], UNSAMPLED).astype(GRADE_DTYPE)


def subsample_qrels(pool_qrels: JudgedSet, grades: np.ndarray) -> JudgedSet:
    """One subsample's qrels in the sampled form (stratum 1) from a row of :func:`pool_subsamples`."""
    return JudgedSet(pool_qrels.topic, pool_qrels.doc, np.asarray(grades, GRADE_DTYPE),
                     np.ones(len(pool_qrels), np.int32), pool_qrels.n_topics, pool_qrels.n_docs)

