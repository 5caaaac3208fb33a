"""Stratified sampling of judgment sets (the pools themselves: :mod:`evalkit.data.pools`).

A *pool* is the set of documents the pooling runs retrieved in their top ``depth`` ranks, per topic. Each pooled
document has a *pool rank*: the smallest rank (1-based) at which any pooling run retrieved it. A sampling
*strategy* cuts the pool-rank axis into disjoint contiguous *strata* and gives each a sampling rate; a document's
stratum is the stratum containing its pool rank (Voorhees 2014, Sec. 1; Yilmaz, Kanoulas and Aslam 2008, Sec. 3).

``sample`` draws a judgment set from existing (base) judgments, the way Voorhees (2014, Sec. 2) built her sampled
collections, and returns it in the form NIST's ``sample_eval.pl`` reads: every pooled document with its stratum,
grade = the base grade for sampled documents and -1 for pooled-but-not-sampled ones.

Presets (``STRATEGIES``; Voorhees 2014 Table 1 as reconstructed in the issue)::

    pool15       [1-15]@1.0
    pool25       [1-25]@1.0
    1stratum     [1-100]@0.30
    2strata      [1-10]@1.0  + [11-100]@0.15
    3strata      [1-10]@1.0  + [11-30]@0.25 + [31-100]@0.05
    medical2012  [1-15]@1.0  + [16-100]@0.25

Yilmaz et al. (2008) designs: :func:`uniform_sample` (Sec. 2: p% of the depth-100 pool), :func:`depth_plus_random`
(Sec. 3.1: depth-k pool + as many documents again drawn from the rest of the depth-100 pool) and
:func:`depth_plus_strata` (Sec. 5: depth-k pool + three strata of the rest, rates in ratio 3 : 1.5 : 1).

Every random choice takes ``seed`` (an int, a :class:`numpy.random.SeedSequence`, a :class:`numpy.random.Generator`
or None); the same seed gives the same sample on any machine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from evalkit.data.collection import GRADE_DTYPE, UNSAMPLED, Collection, JudgedSet
from evalkit.data.pools import Pool, pool

__all__ = [
    "Stratum",
    "Strategy",
    "STRATEGIES",
    "get_strategy",
    "scale_strategy",
    "SampleResult",
    "sample",
    "uniform_sample",
    "depth_plus_random",
    "depth_plus_strata",
    "yilmaz_strata",
]


# ---------------------------------------------------------------------------------------------- strategies


@dataclass(frozen=True)
class Stratum:
    """Pool ranks ``from_rank`` .. ``to_rank`` (1-based, inclusive), sampled at ``rate`` (0 < rate <= 1)."""

    from_rank: int
    to_rank: int
    rate: float

    def __post_init__(self):
        if not (1 <= self.from_rank <= self.to_rank):
            raise ValueError(f"a stratum needs 1 <= from_rank <= to_rank, got [{self.from_rank}-{self.to_rank}]")
        if not (0.0 < self.rate <= 1.0):
            raise ValueError(f"a sampling rate must be in (0, 1], got {self.rate}")

    def __str__(self) -> str:
        return f"[{self.from_rank}-{self.to_rank}]@{self.rate:g}"


_STRATUM_TEXT = re.compile(r"^\[(\d+)-(\d+)\]@([0-9.eE+-]+)$")


@dataclass(frozen=True)
class Strategy:
    """A sampling strategy: a name and disjoint strata in increasing rank order (gaps allowed, unpooled)."""

    name: str
    strata: tuple[Stratum, ...]

    def __post_init__(self):
        strata = tuple(self.strata)
        object.__setattr__(self, "strata", strata)
        if not strata:
            raise ValueError("a strategy needs at least one stratum")
        for a, b in zip(strata, strata[1:]):
            if b.from_rank <= a.to_rank:
                raise ValueError(f"strata must be disjoint and in increasing rank order: {a} then {b}")

    @property
    def depth(self) -> int:
        """The pool depth the strategy needs: the last stratum's ``to_rank``."""
        return self.strata[-1].to_rank

    @property
    def rates(self) -> np.ndarray:
        return np.array([s.rate for s in self.strata])

    def stratum_of(self, pool_rank: np.ndarray) -> np.ndarray:
        """0-based stratum index of each pool rank; -1 for ranks in no stratum."""
        pool_rank = np.asarray(pool_rank)
        starts = np.array([s.from_rank for s in self.strata])
        ends = np.array([s.to_rank for s in self.strata])
        idx = np.searchsorted(starts, pool_rank, side="right") - 1
        inside = (idx >= 0) & (pool_rank <= ends[np.maximum(idx, 0)])
        return np.where(inside, idx, -1)

    def __str__(self) -> str:
        return f"{self.name}: " + " + ".join(map(str, self.strata))

    @classmethod
    def parse(cls, text: str, name: str | None = None) -> "Strategy":
        """``"[1-10]@1.0 + [11-100]@0.15"`` -> Strategy (the notation of ``str(strategy)``)."""
        body = text.split(":", 1)[1] if ":" in text else text
        strata = []
        for part in body.replace(" ", "").split("+"):
            match = _STRATUM_TEXT.match(part)
            if not match:
                raise ValueError(f"cannot parse stratum {part!r}; expected e.g. [11-100]@0.15")
            strata.append(Stratum(int(match[1]), int(match[2]), float(match[3])))
        if name is None:
            name = text.split(":", 1)[0].strip() if ":" in text else body
        return cls(name, tuple(strata))


STRATEGIES: dict[str, Strategy] = {
    s.name: s
    for s in (
        Strategy("pool15", (Stratum(1, 15, 1.0),)),
        Strategy("pool25", (Stratum(1, 25, 1.0),)),
        Strategy("1stratum", (Stratum(1, 100, 0.30),)),
        Strategy("2strata", (Stratum(1, 10, 1.0), Stratum(11, 100, 0.15))),
        Strategy("3strata", (Stratum(1, 10, 1.0), Stratum(11, 30, 0.25), Stratum(31, 100, 0.05))),
        Strategy("medical2012", (Stratum(1, 15, 1.0), Stratum(16, 100, 0.25))),
    )
}


def scale_strategy(strategy: Strategy, judged_depth: int, reference: int = 100) -> Strategy | None:
    """A strategy written for pools judged to ``reference`` (the presets: TREC-8's 100) on a collection judged only
    to ``judged_depth``: every stratum's bottom rank scaled by ``judged_depth / reference`` (rounded, at least one
    rank a stratum, strata kept contiguous), rates unchanged, same name. Unchanged when ``judged_depth >=
    reference``; None when the strategy has more strata than the collection has judged ranks.
    E.g. at judged depth 7, 2strata [1-10]@1 + [11-100]@0.15 becomes [1-1]@1 + [2-7]@0.15."""
    if judged_depth >= reference:
        return strategy
    strata, previous = [], 0
    for stratum in strategy.strata:
        top = max(previous + 1, int(round((stratum.from_rank - 1) * judged_depth / reference)) + 1)
        bottom = max(top, int(round(stratum.to_rank * judged_depth / reference)))
        if bottom > judged_depth:
            return None
        strata.append(Stratum(top, bottom, stratum.rate))
        previous = bottom
    return Strategy(strategy.name, tuple(strata))


def get_strategy(spec: str | Strategy) -> Strategy:
    """A preset by name (``"2strata"``), a Strategy, or a strategy in text (``"[1-10]@1+[11-100]@0.15"``)."""
    if isinstance(spec, Strategy):
        return spec
    if spec in STRATEGIES:
        return STRATEGIES[spec]
    if "[" in spec:
        return Strategy.parse(spec)
    raise KeyError(f"unknown strategy {spec!r}; presets: {', '.join(STRATEGIES)}")


# ---------------------------------------------------------------------------------------------- sampling


@dataclass(frozen=True)
class SampleResult:
    """A sampled judgment set and how it was drawn.

    ``qrels``: JudgedSet with a stratum column (1-based stratum numbers, as in a 5-column sampled qrels file);
    grade = base grade for sampled documents, -1 for pooled-but-not-sampled ones.
    ``table``: one row per (topic, stratum): ``from_rank``, ``to_rank``, ``target_rate``, ``pooled`` (stratum
    size N), ``judged_in_base`` (J, pooled documents the base qrels judge), ``rate_used`` (the per-document
    selection probability actually applied), ``target`` (expected number of judged documents the target rate
    asks for, ``target_rate * N``), ``sampled`` (n, judged documents drawn), ``relevant`` (sampled with grade > 0),
    ``effective_rate`` (n / N).
    """

    qrels: JudgedSet
    table: pd.DataFrame
    strategy: Strategy
    method: str

    @property
    def n_judged(self) -> int:
        """Judgments the sample needs: documents with grade >= 0."""
        return int((self.qrels.grade >= 0).sum())

    def per_topic(self) -> pd.DataFrame:
        """Per topic, stratum sizes and sample counts side by side (columns ``pooled_1``, ``sampled_1``, ...)."""
        wide = self.table[["pooled", "sampled"]].unstack("stratum")
        wide.columns = [f"{what}_{s}" for what, s in wide.columns]
        wide["pooled"] = self.table["pooled"].groupby(level="topic", sort=False).sum()
        wide["sampled"] = self.table["sampled"].groupby(level="topic", sort=False).sum()
        return wide

    def to_qrels(self, collection: Collection):
        """The sample as file qrels (:class:`evalkit.data.trec_files.Qrels` with the stratum column), for ``write_qrels``."""
        return collection.to_qrels(self.qrels)


def _generator(seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


def _stratified_pool(collection: Collection, strata: Sequence[Stratum], runs, base_qrels: JudgedSet | None,
                     pooled: Pool | None = None):
    """Pool for the strata's depth with 0-based stratum index and base grade per pooled document (``pooled``: a
    pool of the same runs at least that deep, computed once by a caller drawing many samples from it)."""
    strat = Strategy("_", tuple(strata))
    if pooled is None:
        p = pool(collection, strat.depth, runs)
    elif pooled.depth < strat.depth or pooled.n_topics != collection.n_topics:
        raise ValueError(f"pooled: a depth-{pooled.depth} pool cannot give the depth-{strat.depth} pool the strategy "
                         "samples from (or it is another collection's)")
    else:
        p = pooled.restrict(strat.depth)
    c = strat.stratum_of(p.rank)
    keep = c >= 0
    topic, doc, c = p.topic[keep], p.doc[keep], c[keep]
    base = collection.qrels if base_qrels is None else base_qrels
    if base.n_docs != p.n_docs or base.n_topics != p.n_topics:
        raise ValueError("base_qrels are not aligned with the collection (topics or vocabulary differ)")
    grade = base.lookup(topic, doc)
    return topic, doc, c, grade


def _draw(topic, c, judged, n_topics, n_strata, rates, counts, method, rng):
    """Select pooled documents. ``rates`` (T, C) target rates or ``counts`` (T, C) target numbers of judged docs.

    Returns (selected mask, N, J, rate_used, target) with (T, C) arrays.
    """
    group = topic.astype(np.int64) * n_strata + c
    size = n_topics * n_strata
    N = np.bincount(group, minlength=size).reshape(n_topics, n_strata)
    J = np.bincount(group[judged], minlength=size).reshape(n_topics, n_strata)
    if counts is None:
        target = rates * N  # expected number of judged documents the target rate gives in the stratum
    else:
        target = np.asarray(counts, np.float64)
    selected = np.zeros(len(topic), bool)
    if method == "bernoulli":
        # Voorhees (2014): draw every pooled document with probability rate_used; a drawn document the base qrels
        # do not judge is marked not selected. rate_used = target / J so that E[judged drawn] = target.
        rate_used = np.minimum(1.0, np.divide(target, J, out=np.zeros_like(target), where=J > 0))
        for s in range(n_strata):  # each stratum independently, in (topic, doc) order
            members = np.flatnonzero(c == s)
            u = rng.random(len(members))
            take = u < rate_used[topic[members], s]
            selected[members[take]] = True
        selected &= judged
    elif method == "fixed":
        # exactly round(target) judged documents per (topic, stratum), uniformly without replacement
        want = np.minimum(np.floor(target + 0.5), J).astype(np.int64)
        rate_used = np.divide(want, J, out=np.zeros(want.shape), where=J > 0)
        for s in range(n_strata):
            members = np.flatnonzero((c == s) & judged)
            u = rng.random(len(members))
            t = topic[members]
            order = np.lexsort((u, t))  # by topic, then random key
            sorted_t = t[order]
            starts = np.searchsorted(sorted_t, np.arange(n_topics))
            within = np.arange(len(order)) - starts[sorted_t]
            take = within < want[sorted_t, s]
            selected[members[order[take]]] = True
    else:
        raise ValueError(f"method must be 'bernoulli' or 'fixed', got {method!r}")
    return selected, N, J, rate_used, target


def _result(collection, topic, doc, c, grade, selected, rates, N, J, rate_used, target, strat, method):
    strata = strat.strata
    n_topics, n_strata = N.shape
    new_grade = np.where(selected, grade, UNSAMPLED).astype(GRADE_DTYPE)
    qrels = JudgedSet(topic.astype(np.int32), doc.astype(np.int32), new_grade, (c + 1).astype(np.int32),
                      n_topics, len(collection.vocabulary))
    group = topic.astype(np.int64) * n_strata + c
    size = n_topics * n_strata
    n = np.bincount(group[selected], minlength=size).reshape(n_topics, n_strata)
    rel = np.bincount(group[selected & (grade > 0)], minlength=size).reshape(n_topics, n_strata)
    index = pd.MultiIndex.from_product([collection.topics, np.arange(1, n_strata + 1)], names=["topic", "stratum"])
    lo = np.array([s.from_rank for s in strata])
    hi = np.array([s.to_rank for s in strata])
    target_rate = np.broadcast_to(rates, N.shape)
    table = pd.DataFrame(
        {
            "from_rank": np.tile(lo, n_topics),
            "to_rank": np.tile(hi, n_topics),
            "target_rate": target_rate.ravel(),
            "pooled": N.ravel(),
            "judged_in_base": J.ravel(),
            "rate_used": rate_used.ravel(),
            "target": target.ravel(),
            "sampled": n.ravel(),
            "relevant": rel.ravel(),
            "effective_rate": np.divide(n, N, out=np.zeros(N.shape), where=N > 0).ravel(),
        },
        index=index,
    )
    return SampleResult(qrels=qrels, table=table, strategy=strat, method=method)


def sample(
    collection: Collection,
    strategy: Strategy | str,
    runs=None,
    seed=None,
    base_qrels: JudgedSet | None = None,
    method: str = "bernoulli",
    pooled: Pool | None = None,
) -> SampleResult:
    """Draw a stratified sample of judgments from existing ones (Voorhees 2014, Sec. 2).

    1. Pool: the depth-``strategy.depth`` pool of ``runs`` (default: the collection's judged runs); each pooled
       document's stratum is the stratum containing its pool rank (documents in a gap between strata are left
       out of the qrels, i.e. unpooled).
    2. For each topic t and stratum s, with N = the stratum's size, J = how many of its documents the base qrels
       (default: the collection's) judge, and r = the stratum's target rate, Voorhees' rule (Sec. 2: "a document
       selected to be judged might not actually have a judgment in the base collection's qrels. When this
       happens, we ignore the selection (i.e., we mark it as not selected). To account for this effect, the
       sampling rate actually used ... was greater than the target rate such that the number of judgments
       obtained approximated the number the target rate would produce (while always sampling from the
       appropriate stratum)") reconstructs as::

           rate_used = min(1, r * N / J)          (0 when J = 0)

       Every pooled document of the stratum is drawn independently with probability ``rate_used``; a drawn
       document the base qrels do not judge is marked not selected. The expected number of judged documents
       drawn is then ``rate_used * J = r * N``, exactly what the target rate gives over the whole stratum, so
       the effective rate n / N (what ``sample_eval`` reads from the qrels) has expectation r; when J < r N the
       rate is capped at 1 and the stratum is judged as far as the base allows (the paper: some strategies the
       base "cannot support"). With complete base judgments (J = N) this is plain Bernoulli sampling at r.
    3. The sampled qrels hold every pooled document with its stratum (1-based): grade = base grade if selected,
       else -1 (pooled, not sampled).

    ``method="fixed"`` draws exactly ``round(r * N)`` (at most J) judged documents per (topic, stratum),
    uniformly without replacement, instead (the "p% of the pool" sampling of Yilmaz et al. 2008).

    Strata are sampled one after another from the generator, each over its documents in (topic, doc id) order,
    all topics at once; the same ``seed`` gives the same sample. ``pooled``: the pool of ``runs`` at least
    ``strategy.depth`` deep (:func:`evalkit.data.pools.pool`), when the caller draws many samples from one pool
    (the same sample as without it, without pooling again).
    """
    strat = get_strategy(strategy)
    rng = _generator(seed)
    topic, doc, c, grade = _stratified_pool(collection, strat.strata, runs, base_qrels, pooled)
    judged = grade >= 0
    n_strata = len(strat.strata)
    rates = np.broadcast_to(strat.rates, (collection.n_topics, n_strata))
    selected, N, J, rate_used, target = _draw(topic, c, judged, collection.n_topics, n_strata, rates, None,
                                              method, rng)
    return _result(collection, topic, doc, c, grade, selected, rates, N, J, rate_used, target, strat, method)


# ---------------------------------------------------------------------------------------- Yilmaz et al. 2008


def uniform_sample(collection: Collection, rate: float, runs=None, seed=None, base_qrels=None, depth: int = 100,
                   method: str = "fixed") -> SampleResult:
    """Yilmaz et al. (2008), Sec. 2: "selecting p% of the complete judgment set uniformly at random" where the
    complete judgment set is the depth-100 pool. One stratum [1-depth] at ``rate``; by default exactly
    round(rate * N) judged documents per topic (without replacement), the setting infAP's variance assumes."""
    strat = Strategy(f"uniform{rate:g}", (Stratum(1, depth, rate),))
    return sample(collection, strat, runs, seed, base_qrels, method)


def depth_plus_random(collection: Collection, k: int, runs=None, seed=None, base_qrels=None, depth: int = 100,
                      method: str = "fixed") -> SampleResult:
    """Yilmaz et al. (2008), Sec. 3.1 (the TREC Terabyte 2006 setup simulated on TREC-8): the depth-k pool,
    fully judged, plus "equal number of documents" drawn uniformly at random "from the complete judgment set
    excluding the depth-k pool" (the rest of the depth-100 pool). Per topic: stratum 1 = pool ranks [1-k] at
    rate 1; stratum 2 = [k+1 - depth] with target count = the topic's depth-k pool size (capped at the
    stratum's judged documents)."""
    if not 1 <= k < depth:
        raise ValueError(f"need 1 <= k < depth, got k={k}, depth={depth}")
    strata = (Stratum(1, k, 1.0), Stratum(k + 1, depth, 1.0))
    strat = Strategy(f"depth{k}+random", strata)
    return _budgeted(collection, strat, runs, seed, base_qrels, method, weights=np.array([1.0]))


def yilmaz_strata(k: int, depth: int = 100) -> tuple[tuple[int, int], ...]:
    """The three strata below the depth-k pool in :func:`depth_plus_strata`: the pool ranks k+1..depth cut into
    three contiguous ranges of (near) equal width, e.g. k=10 -> (11-40, 41-70, 71-100)."""
    edges = np.floor(np.linspace(k, depth, 4) + 0.5).astype(int)
    return tuple((int(edges[i] + 1), int(edges[i + 1])) for i in range(3))


def depth_plus_strata(collection: Collection, k: int, runs=None, seed=None, base_qrels=None, depth: int = 100,
                      ratio: Sequence[float] = (3.0, 1.5, 1.0), boundaries=None,
                      method: str = "fixed") -> SampleResult:
    """Yilmaz et al. (2008), Sec. 5: the depth-k pool fully judged, and the rest of the depth-100 pool cut into
    three strata that share the same budget as :func:`depth_plus_random` (as many judgments as the depth-k pool
    has documents) "with a ratio of 3:1.5:1 (judge 55% of the documents in the top depth stratum, 27% ... in
    the middle depth stratum and 18% in the lowest depth stratum)".

    Reconstruction (the paper gives neither the boundaries nor whether 55/27/18 are rates or shares): the
    strata are the pool ranks k+1..depth in three equal-width ranges (:func:`yilmaz_strata`; override with
    ``boundaries=((a, b), (c, d), (e, f))``); per topic, the sampling rates are in the ratio 3 : 1.5 : 1
    (55/27/18 are that ratio normalised) and scaled so that the expected number of judgments equals the budget::

        rate_i = alpha * w_i,   alpha = B / sum_i w_i N_i,   B = |depth-k pool|

    (each rate capped at 1; the shortfall is not redistributed). Exactly round(rate_i * N_i) judged documents
    are drawn per stratum by default.
    """
    if not 1 <= k < depth - 2:
        raise ValueError(f"need 1 <= k < depth - 2, got k={k}, depth={depth}")
    ranges = yilmaz_strata(k, depth) if boundaries is None else tuple(tuple(b) for b in boundaries)
    strata = (Stratum(1, k, 1.0),) + tuple(Stratum(a, b, 1.0) for a, b in ranges)
    strat = Strategy(f"depth{k}+3strata", strata)
    return _budgeted(collection, strat, runs, seed, base_qrels, method, weights=np.asarray(ratio, np.float64))


def _budgeted(collection, strat, runs, seed, base_qrels, method, weights):
    """Stratum 0 judged fully; the remaining strata share a budget B = |stratum 0| per topic, rates ∝ weights."""
    rng = _generator(seed)
    topic, doc, c, grade = _stratified_pool(collection, strat.strata, runs, base_qrels)
    judged = grade >= 0
    n_topics, n_strata = collection.n_topics, len(strat.strata)
    N = np.bincount(topic.astype(np.int64) * n_strata + c, minlength=n_topics * n_strata).reshape(n_topics, n_strata)
    budget = N[:, 0].astype(np.float64)
    rest = N[:, 1:].astype(np.float64)
    denom = (rest * weights[None, :]).sum(axis=1)
    alpha = np.divide(budget, denom, out=np.zeros(n_topics), where=denom > 0)
    rates = np.ones((n_topics, n_strata))
    rates[:, 1:] = np.minimum(1.0, alpha[:, None] * weights[None, :])
    selected, N, J, rate_used, target = _draw(topic, c, judged, n_topics, n_strata, rates, None, method, rng)
    return _result(collection, topic, doc, c, grade, selected, rates, N, J, rate_used, target, strat, method)
