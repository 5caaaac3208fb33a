r"""Minimal test collections (MTC; Carterette, Allan & Sitaraman 2006, as Algorithm 1 of Carterette 2007),
confidence for sets of runs, and incremental pooling (IP).

Algorithm 1 (MTC), as implemented by :func:`mtc`::

    p_i <- p0 (0.5) for every unjudged document i
    while some pair (a, b) has 1 - alpha < P(dMAP_ab < 0) < alpha:
        w_i <- weight of every unjudged document i (below)
        j   <- argmax_i w_i
        x_j <- oracle judgment of j (qrels grade >= 1; a document missing from the qrels is nonrelevant)
        p_j <- x_j
        [RTC: every ``every``-th judgment, re-estimate p_i of all unjudged i with a relevance model]

Document weight (reconstructed; the 2006 paper is not among our sources). The sign of dAP_t is the sign of its
numerator N_a - N_b, and how much judging document i can move the expected difference is the derivative of its
expectation in p_i::

    dE[N_a - N_b]/dp_i = (a_ii - b_ii) + sum_{j != i} (a_ij - b_ij) p_j = c_ii + sum_{j != i} c_ij p_j = g^a_i - g^b_i

(judging i relevant moves E[dAP_t] by (1 - p_i) times that over |R_t|, judging it nonrelevant by -p_i times it). So

    w_i = sum over unresolved pairs (a, b) of |c_ii + sum_{j != i} c_ij p_j| / |R_t|       (weighting="expected")

the magnitude of the document's effect on E[dMAP] (up to the constant 1/T); |R_t| = sum_j p_j over the topic's
universe puts topics on the MAP scale. Documents both runs rank identically (c_i. = 0) get no weight. The same
g^a_i - g^b_i is the first-order coefficient of Var[dAP] (see :mod:`.ap_variance`): p_i q_i (g^a_i - g^b_i)^2 is
document i's share of the variance, available as ``weighting="variance"`` (w_i = sum_pairs p_i q_i (g^a_i -
g^b_i)^2 / |R_t|^2); with every p_i = 0.5 and one pair both weightings order the documents identically.

Efficiency: judging a document changes only its topic, so after each judgment only that topic's numerator
moments, gradients, variances and weights are recomputed (O(depth^2) numpy work for one topic); the MAP-level
mean and variance are sums of the stored per-topic terms.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from evalkit.confidence.ap_variance import ap_numerator_terms, cross_term, prob_negative
from evalkit.confidence.universe import Universe
from evalkit.data.collection import JudgedSet

__all__ = [
    "SelectionResult",
    "RunEstimates",
    "all_pairs",
    "mtc",
    "estimate_runs",
    "incremental_pooling",
    "judged_map",
    "WEIGHTINGS",
]

WEIGHTINGS = ("expected", "variance")


def all_pairs(n_runs: int) -> np.ndarray:
    """(n (n - 1) / 2, 2) index pairs i < j."""
    first, second = np.triu_indices(n_runs, k=1)
    return np.stack([first, second], axis=1)


def _safe_divide(numerator, denominator):
    numerator = np.asarray(numerator, np.float64)
    denominator = np.asarray(denominator, np.float64)
    shape = np.broadcast(numerator, denominator).shape
    return np.divide(numerator, denominator, out=np.zeros(shape), where=denominator > 0)


class PairEngine:
    """Per-topic numerator moments for a set of runs and pairs of runs over one :class:`Universe`, with in-place
    per-topic updates (the state MTC/RTC iterate on).

    Arrays (K runs, P pairs, T topics, W = universe width):
    ``en[K, T]`` E[N], ``run_var[K, T]`` Var[N], ``var[P, T]`` Var[N_a - N_b], ``dt[T]`` |R_t|,
    ``diff[P, T, W]`` g^a - g^b of each universe document (column of :attr:`Universe.padded`).
    ``p`` is the (n + 1,) probability array (sentinel last, 0) and is shared, not copied.
    """

    def __init__(self, universe: Universe, pairs: np.ndarray, p: np.ndarray, extra_relevant=None):
        self.u = universe
        self.pairs = np.asarray(pairs, np.int64).reshape(-1, 2)
        self.a, self.b = self.pairs[:, 0], self.pairs[:, 1]
        self.p = p
        n_runs, n_topics = universe.n_runs, universe.n_topics
        width = max(universe.width, 1)
        self.extra = np.zeros(n_topics) if extra_relevant is None else np.asarray(extra_relevant, np.float64)
        self.en = np.zeros((n_runs, n_topics))
        self.run_var = np.zeros((n_runs, n_topics))
        self.var = np.zeros((len(self.pairs), n_topics))
        self.dt = np.zeros(n_topics)
        self.diff = np.zeros((len(self.pairs), n_topics, width))
        self.cross = np.zeros((len(self.pairs), n_topics))
        self.jacobian = None  # (n + 1, F) dp/dlambda of a fitted relevance model (coefficient uncertainty)
        self.covariance = None  # (F, F) covariance of lambda
        self.recompute(np.arange(n_topics))

    def set_coefficient_uncertainty(self, jacobian: np.ndarray | None, covariance: np.ndarray | None) -> None:
        """Add the uncertainty of a fitted relevance model's coefficients to Var[dMAP] (:meth:`delta_map`):
        ``jacobian`` (n, F) dp_i/dlambda (0 for judged documents), ``covariance`` (F, F); None removes it."""
        if jacobian is None or covariance is None:
            self.jacobian = self.covariance = None
            return
        jacobian = np.asarray(jacobian, np.float64)
        self.jacobian = np.concatenate([jacobian[: self.u.n], np.zeros((1, jacobian.shape[1]))])
        self.covariance = np.asarray(covariance, np.float64)

    def judge(self, position: int, label: float) -> None:
        """Set p[position] = label (a judgment) and update its topic. The O(m^2) cross sum of Var[dAP] is updated
        in O(m): only its terms containing the judged document change, and they vanish (w = p q becomes 0)."""
        u, p = self.u, self.p
        t = int(u.topic[position])
        w_old = p[position] * (1.0 - p[position])
        if w_old > 0 and len(self.pairs):
            rank_a = u.rank[self.a, position]
            rank_b = u.rank[self.b, position]
            both = (rank_a > 0) & (rank_b > 0)
            if both.any():
                index_a = u.index[self.a[both], t]  # (Pb, D) a's documents in topic t
                w = p[index_a] * (1.0 - p[index_a])
                rb_j = u.rank[self.b[both][:, None], index_a].astype(np.float64)
                ra_j = np.arange(1, index_a.shape[1] + 1, dtype=np.float64)
                keep = (rb_j > 0) & (index_a != position)
                denominator = np.maximum(rank_a[both][:, None], ra_j) * np.maximum(rank_b[both][:, None], np.where(keep, rb_j, 1.0))
                self.cross[both, t] -= w_old * np.where(keep, w / denominator, 0.0).sum(axis=1)
        p[position] = label
        if self.jacobian is not None:
            self.jacobian[position] = 0.0  # a judged document no longer depends on the model
        self.recompute([t], cross=False)

    def recompute(self, topics, cross: bool = True) -> None:
        """Recompute every per-topic quantity of ``topics`` from ``p`` (``cross=False`` keeps the stored cross
        sums, valid when only judgments went through :meth:`judge`)."""
        u, p = self.u, self.p
        topics = np.atleast_1d(np.asarray(topics, np.int64))
        width = self.diff.shape[2]
        index = u.index[:, topics]  # (K, Ts, D)
        p_rank = p[index]
        en, gradient, second_order = ap_numerator_terms(p_rank)
        w_rank = p_rank * (1.0 - p_rank)
        self.en[:, topics] = en
        self.run_var[:, topics] = (w_rank * gradient * gradient).sum(axis=-1) + second_order
        padded = u.padded[topics]
        p_universe = p[padded]
        self.dt[topics] = p_universe.sum(axis=-1) + self.extra[topics]
        if not len(self.pairs):
            return
        scattered = np.zeros(index.shape[:2] + (width + 1,))
        np.put_along_axis(scattered, u.local[:, topics], gradient, axis=2)
        diff = scattered[self.a, :, :width] - scattered[self.b, :, :width]  # (P, Ts, W)
        w_universe = p_universe * (1.0 - p_universe)
        first = (w_universe * diff * diff).sum(axis=-1)
        if cross:
            rank_b = u.rank[self.b[:, None, None], index[self.a]]  # rank in b of a's documents
            self.cross[:, topics] = cross_term(w_rank[self.a], rank_b)
        cross = self.cross[:, topics]
        self.var[:, topics] = np.maximum(first + second_order[self.a] + second_order[self.b] - 2.0 * cross, 0.0)
        self.diff[:, topics] = diff

    # ---------------------------------------------------------------- MAP level
    def delta_map(self):
        """(mean, variance) of dMAP for every pair: sums over topics of the per-topic terms (Eq. 1).

        With a model's coefficient uncertainty set (:meth:`set_coefficient_uncertainty`; beyond the paper), the
        variance also gets the delta-method term ``J Sigma J'`` with J = dE[dMAP]/dlambda =
        sum_i dE[dMAP]/dp_i * dp_i/dlambda and, per topic t, dE[dAP_t]/dp_i = (g^a_i - g^b_i)/|R_t| -
        (E[N_a] - E[N_b])/|R_t|^2 (|R_t| = sum_i p_i): the law of total variance over the coefficients, the
        Bernoulli variance taken at the fitted coefficients."""
        n_topics = self.u.n_topics
        delta_en = self.en[self.a] - self.en[self.b]
        mean = _safe_divide(delta_en, self.dt).sum(axis=1) / n_topics
        variance = _safe_divide(self.var, self.dt * self.dt).sum(axis=1) / n_topics**2
        if self.jacobian is not None and len(self.pairs):
            variance = variance + self.coefficient_variance(delta_en)
        return mean, variance

    def coefficient_variance(self, delta_en=None) -> np.ndarray:
        """(P,) the delta-method variance of E[dMAP] from the coefficients' covariance (0 without one)."""
        if self.jacobian is None or not len(self.pairs):
            return np.zeros(len(self.pairs))
        delta_en = self.en[self.a] - self.en[self.b] if delta_en is None else delta_en
        jac = self.jacobian[self.u.padded]  # (T, W, F), padding rows 0
        inv_dt = _safe_divide(1.0, self.dt)
        first = np.einsum("ptw,twf->pf", self.diff * inv_dt[None, :, None], jac)
        second = np.einsum("pt,tf->pf", delta_en * inv_dt[None, :] ** 2, jac.sum(axis=1))
        gradient = (first - second) / self.u.n_topics
        return np.maximum(np.einsum("pf,fg,pg->p", gradient, self.covariance, gradient), 0.0)

    def prob_negative(self) -> np.ndarray:
        """(P,) P(dMAP < 0) by the normal approximation."""
        return np.atleast_1d(prob_negative(*self.delta_map()))

    def run_moments(self):
        """(E[AP], Var[AP]) per run and topic, (K, T) each."""
        return _safe_divide(self.en, self.dt), _safe_divide(self.run_var, self.dt * self.dt)

    def weights(self, topics, active: np.ndarray, candidates: np.ndarray, weighting: str) -> np.ndarray:
        """(Ts, W) document weights (module docstring); -inf where not a candidate."""
        topics = np.atleast_1d(np.asarray(topics, np.int64))
        diff = self.diff[active][:, topics]
        dt = self.dt[topics][:, None]
        if weighting == "expected":
            weight = _safe_divide(np.abs(diff).sum(axis=0), dt)
        elif weighting == "variance":
            p_universe = self.p[self.u.padded[topics]]
            weight = _safe_divide((p_universe * (1.0 - p_universe) * (diff * diff)).sum(axis=0), dt * dt)
        else:
            raise ValueError(f"weighting must be one of {WEIGHTINGS}; got {weighting!r}")
        return np.where(candidates[self.u.padded[topics]], weight, -np.inf)


@dataclass
class SelectionResult:
    """What an MTC / RTC / IP run judged and concluded.

    ``order_topic``, ``order_doc``, ``order_label`` are the judgments in the order made (topic index, doc id,
    1 relevant / 0 not); ``judged`` the same as a :class:`JudgedSet` (grades 0/1) aligned with the collection;
    ``prob_negative[k]`` is the final P(dMAP < 0) of ``pairs[k]`` (dMAP = MAP of the first minus the second run);
    ``history`` (n_judgments + 1, P) the confidence after 0, 1, ... judgments (when recorded); ``p`` the final
    relevance probabilities over ``universe`` (n + 1, sentinel last); ``status`` "confident", "exhausted" (no
    unjudged document with positive weight left) or "budget" (max_judgments reached).
    """

    order_topic: np.ndarray
    order_doc: np.ndarray
    order_label: np.ndarray
    judged: JudgedSet
    pairs: np.ndarray
    prob_negative: np.ndarray
    status: str
    universe: Universe = field(repr=False)
    p: np.ndarray = field(repr=False)
    history: np.ndarray | None = field(default=None, repr=False)
    n_reestimates: int = 0

    @property
    def n_judgments(self) -> int:
        return len(self.order_doc)

    @property
    def confidence(self) -> np.ndarray:
        """max(P, 1 - P) per pair."""
        return np.maximum(self.prob_negative, 1.0 - self.prob_negative)


def _oracle(universe: Universe, qrels: JudgedSet | None, relevant: np.ndarray | None) -> np.ndarray:
    if relevant is not None:
        relevant = np.asarray(relevant, bool)
        if relevant.shape != (universe.n,):
            raise ValueError(f"relevant must have one entry per universe position ({universe.n}); got {relevant.shape}")
        return relevant
    if qrels is None:
        raise ValueError("give qrels (the oracle assessor) or relevant")
    return universe.relevance(qrels)


def mtc(
    docs: np.ndarray,
    qrels: JudgedSet | None = None,
    alpha: float = 0.95,
    pairs=None,
    *,
    p_unjudged: float = 0.5,
    weighting: str = "expected",
    max_judgments: int | None = None,
    reestimate: Callable | None = None,
    every: int = 10,
    record_history: bool = False,
    relevant: np.ndarray | None = None,
    n_docs: int | None = None,
) -> SelectionResult:
    """Algorithm 1 (MTC): judge the unjudged document of greatest weight until every pair is confidently ordered.

    Parameters
    ----------
    docs : (K, T, D) rankings of the runs to compare (``Collection.docs`` rows, -1 past the end); the
        universe of documents, and |R_t| = sum of p over it, is their union per topic.
    qrels : the oracle: aligned :class:`JudgedSet`; grade >= 1 is relevant, absent documents are nonrelevant.
    alpha : stop when every pair has P(dMAP < 0) >= alpha or <= 1 - alpha.
    pairs : (P, 2) run index pairs (default: all pairs of the K runs); weights sum over unresolved pairs.
    p_unjudged : the probability of relevance of unjudged documents (MTC: 0.5).
    weighting : "expected" or "variance" (module docstring).
    max_judgments : optional budget.
    reestimate, every : RTC hook: ``reestimate(universe, judged_mask, labels) -> p`` ((n,) probabilities,
        judged entries ignored) called after every ``every``-th judgment (see :func:`evalkit.confidence.rtc`).
    record_history : keep P(dMAP < 0) after every judgment.
    relevant : alternatively to qrels, (n,) oracle labels over the universe (``Universe.from_docs(docs)``).
    n_docs : vocabulary size for the returned JudgedSet (default: qrels.n_docs).
    """
    if not 0.5 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0.5, 1); got {alpha}")
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting must be one of {WEIGHTINGS}; got {weighting!r}")
    universe = Universe.from_docs(docs)
    oracle = _oracle(universe, qrels, relevant)
    pairs = all_pairs(universe.n_runs) if pairs is None else np.asarray(pairs, np.int64).reshape(-1, 2)
    if not len(pairs):
        raise ValueError("mtc needs at least one pair of runs")
    n = universe.n
    p = np.full(n + 1, float(p_unjudged))
    p[n] = 0.0
    judged = np.zeros(n + 1, bool)
    judged[n] = True  # the sentinel is never a candidate
    labels = np.zeros(n, np.int8)
    engine = PairEngine(universe, pairs, p)
    n_topics = universe.n_topics
    order: list[int] = []
    history = [engine.prob_negative()] if record_history else None

    def resolved_of(prob):
        return (prob >= alpha) | (prob <= 1.0 - alpha)

    prob = engine.prob_negative()
    active = ~resolved_of(prob)
    candidates = ~judged
    weights = engine.weights(np.arange(n_topics), active, candidates, weighting)
    top_column = weights.argmax(axis=1)
    top_weight = weights[np.arange(n_topics), top_column]
    n_reestimates = 0
    status = "confident"
    while active.any():
        if max_judgments is not None and len(order) >= max_judgments:
            status = "budget"
            break
        t = int(top_weight.argmax())
        if not np.isfinite(top_weight[t]) or top_weight[t] <= 0.0:
            status = "exhausted"
            break
        position = int(universe.padded[t, top_column[t]])
        label = int(oracle[position])
        engine.judge(position, label)
        judged[position] = True
        candidates[position] = False
        labels[position] = label
        order.append(position)
        touched = np.array([t])
        if reestimate is not None and len(order) % every == 0:
            unjudged = ~judged[:n]
            estimate = np.asarray(reestimate(universe, judged[:n].copy(), labels.copy()), np.float64)
            p[:n][unjudged] = estimate[unjudged]
            if getattr(reestimate, "coefficient_uncertainty", False):
                engine.set_coefficient_uncertainty(reestimate.last_jacobian_, reestimate.last_covariance_)
            n_reestimates += 1
            touched = np.arange(n_topics)
            engine.recompute(touched)
        prob = engine.prob_negative()
        if record_history:
            history.append(prob)
        new_active = ~resolved_of(prob)
        if not np.array_equal(new_active, active):
            active = new_active
            touched = np.arange(n_topics)
        if active.any():
            w = engine.weights(touched, active, candidates, weighting)
            top_column[touched] = w.argmax(axis=1)
            top_weight[touched] = w[np.arange(len(touched)), top_column[touched]]
    order_arr = np.asarray(order, np.int64)
    topic = universe.topic[order_arr]
    doc = universe.doc[order_arr]
    label_arr = labels[order_arr].astype(np.int16)
    vocabulary_size = n_docs if n_docs is not None else (qrels.n_docs if qrels is not None else int(universe.doc.max(initial=0)) + 1)
    judged_set = JudgedSet.from_arrays(topic, doc, label_arr, n_topics, vocabulary_size)
    return SelectionResult(
        order_topic=topic,
        order_doc=doc,
        order_label=label_arr,
        judged=judged_set,
        pairs=pairs,
        prob_negative=prob,
        status=status,
        universe=universe,
        p=p,
        history=None if history is None else np.asarray(history),
        n_reestimates=n_reestimates,
    )


# --------------------------------------------------------------------------------------------------------------
# evaluating a set of runs from a fixed set of judgments
# --------------------------------------------------------------------------------------------------------------


@dataclass
class RunEstimates:
    """Estimated MAPs and pairwise confidence for K runs from a set of judgments and relevance probabilities.

    ``expected_map[k]`` EMAP (Eq. 1), ``variance_map[k]`` VMAP; ``expected_ap``/``variance_ap`` (K, T);
    ``delta_mean[i, j]``, ``delta_variance[i, j]`` moments of dMAP = MAP_i - MAP_j; ``prob_negative[i, j]`` =
    P(MAP_i - MAP_j < 0) (0.5 on the diagonal); ``p`` the probabilities over ``universe`` (n + 1).
    """

    expected_map: np.ndarray
    variance_map: np.ndarray
    expected_ap: np.ndarray
    variance_ap: np.ndarray
    delta_mean: np.ndarray
    delta_variance: np.ndarray
    prob_negative: np.ndarray
    universe: Universe = field(repr=False)
    p: np.ndarray = field(repr=False)


def estimate_runs(
    docs: np.ndarray,
    judged: JudgedSet | None,
    probabilities: float | Callable | np.ndarray = 0.5,
    *,
    pairs=None,
) -> RunEstimates:
    """EMAP, VMAP and P(dMAP < 0) for every pair of K runs, making no further judgments.

    ``docs`` (K, T, D) rankings; ``judged`` the judgments made so far (grade >= 1 relevant, others 0; judged
    relevant documents no run retrieves still count in |R_t|); ``probabilities`` for the unjudged documents: a
    constant (MTC: 0.5), a model ``f(universe, judged_mask, labels) -> p`` (RTC: :class:`ExpertAggregation`), or
    an (n,) array over ``Universe.from_docs(docs)``.
    """
    universe = Universe.from_docs(docs)
    n = universe.n
    judged_mask = np.zeros(n, bool)
    labels = np.zeros(n, np.int8)
    extra = np.zeros(universe.n_topics)
    if judged is not None and len(judged):
        judged_topic = np.asarray(judged.topic)
        position = universe.positions(judged_topic, judged.doc)
        relevant = np.asarray(judged.grade) >= 1
        known = (position >= 0) & (np.asarray(judged.grade) >= 0)
        judged_mask[position[known]] = True
        labels[position[known]] = relevant[known]
        outside = (position < 0) & relevant
        extra = np.bincount(judged_topic[outside], minlength=universe.n_topics).astype(np.float64)
    p = np.zeros(n + 1)
    if callable(probabilities):
        p[:n] = np.asarray(probabilities(universe, judged_mask.copy(), labels.copy()), np.float64)
    else:
        p[:n] = np.broadcast_to(np.asarray(probabilities, np.float64), (n,))
    p[:n][judged_mask] = labels[judged_mask]
    pairs = all_pairs(universe.n_runs) if pairs is None else np.asarray(pairs, np.int64).reshape(-1, 2)
    engine = PairEngine(universe, pairs, p, extra_relevant=extra)
    if callable(probabilities) and getattr(probabilities, "coefficient_uncertainty", False):
        engine.set_coefficient_uncertainty(probabilities.last_jacobian_, probabilities.last_covariance_)
    expected_ap, variance_ap = engine.run_moments()
    n_topics = universe.n_topics
    expected_map = expected_ap.mean(axis=1)
    variance_map = variance_ap.sum(axis=1) / n_topics**2
    k = universe.n_runs
    delta_mean = np.zeros((k, k))
    delta_variance = np.zeros((k, k))
    if len(pairs):
        mean, variance = engine.delta_map()
        delta_mean[pairs[:, 0], pairs[:, 1]] = mean
        delta_mean[pairs[:, 1], pairs[:, 0]] = -mean
        delta_variance[pairs[:, 0], pairs[:, 1]] = variance
        delta_variance[pairs[:, 1], pairs[:, 0]] = variance
    prob = np.full((k, k), 0.5)
    if len(pairs):
        pn = np.atleast_1d(prob_negative(mean, variance))
        prob[pairs[:, 0], pairs[:, 1]] = pn
        prob[pairs[:, 1], pairs[:, 0]] = 1.0 - pn
    return RunEstimates(
        expected_map=expected_map,
        variance_map=variance_map,
        expected_ap=expected_ap,
        variance_ap=variance_ap,
        delta_mean=delta_mean,
        delta_variance=delta_variance,
        prob_negative=prob,
        universe=universe,
        p=p,
    )


# --------------------------------------------------------------------------------------------------------------
# incremental pooling
# --------------------------------------------------------------------------------------------------------------


def incremental_pooling(docs: np.ndarray, qrels: JudgedSet, n_judgments: int) -> JudgedSet:
    """IP (Sec. 4.2): judge the first ``n_judgments`` distinct documents in rank order without regard to topic.

    Order: rank 1 of every topic (topics in index order, runs in index order within a topic), then rank 2, and
    so on; a document already judged for the topic is skipped. Grades come from ``qrels`` (absent = 0).
    Returns the judgments as a :class:`JudgedSet` (grades 0/1) for scoring with unjudged = nonrelevant
    (:func:`judged_map`).
    """
    docs = np.asarray(docs)
    n_runs, n_topics, depth = docs.shape
    rank_major = docs.transpose(2, 1, 0).reshape(-1)  # rank, topic, run
    topic = np.broadcast_to(np.arange(n_topics)[None, :, None], (depth, n_topics, n_runs)).reshape(-1)
    valid = rank_major >= 0
    keys = (topic.astype(np.int64) << 32) | np.where(valid, rank_major, 0).astype(np.int64)
    keys = keys[valid]
    _, first = np.unique(keys, return_index=True)
    first = np.sort(first)[: max(int(n_judgments), 0)]
    chosen_topic = topic[valid][first]
    chosen_doc = rank_major[valid][first]
    grade = (qrels.lookup(chosen_topic, chosen_doc) >= 1).astype(np.int16)
    return JudgedSet.from_arrays(chosen_topic, chosen_doc, grade, n_topics, qrels.n_docs)


def judged_map(docs: np.ndarray, judged: JudgedSet) -> np.ndarray:
    """(K,) MAP of each ranking scoring only the given judgments: unjudged documents are nonrelevant and R_t is
    the number of judged relevant documents (AP = 0 for a topic with none)."""
    docs = np.asarray(docs)
    topic_index = np.broadcast_to(np.arange(docs.shape[1], dtype=np.int32)[None, :, None], docs.shape)
    relevant = judged.lookup(topic_index, docs) >= 1
    ranks = np.arange(1, docs.shape[2] + 1, dtype=np.float64)
    precision = np.cumsum(relevant, axis=-1) / ranks
    n_relevant = judged.counts(1).astype(np.float64)
    ap = _safe_divide((precision * relevant).sum(axis=-1), n_relevant[None, :])
    return ap.mean(axis=1)
