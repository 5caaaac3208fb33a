"""The two-stage estimation framework of Lu, Moffat and Culpepper (2017), Algorithm 1, Eqs. 6-9.

Setting, for one topic: n contributing runs returning lists of up to k documents (k = 1000 on TREC); the *system
matrix* lists, for every document D of interest (those in the top d of the pool runs, d the metric depth, plus
those of any run to be scored), its rank p_{D,i} in run i (0 here when run i did not retrieve D). J is the
set of judged documents (a shallow pool, or a two-strata sample), r_D their gains; m rank-level models
(:mod:`.gain_models`) give a gain g0^l_j for rank j = 1..k.

Stage one (Eq. 6), per model l, a per-document background gain that no longer depends on the run::

    h1^l(D) = sum_{i=1..n} g0^l_{p_{D,i}} * w1^l_i,      w1^l in [0,1]^n,  sum_i w1^l_i = 1

where a run that did not retrieve D in its list of k contributes the model's gain at depth k, g0^l_k.

Stage two (Eq. 9), a weighted average of the m stage-one gains::

    h2(D) = sum_{l=1..m} h1^l(D) * w2_l,                 w2 in [0,1]^m,   sum_l w2_l = 1

Losses, over the judged documents only (rebuilt from the PDF; the squares sit outside the sums over ranks, as
in the authors' scripts, which minimize the norm of the per-run score errors):

Eq. 7, system level -- the error of every run's weighted-precision score over J::

    La(w) = sum_{i=1..n} ( sum_{j<=k, s_{j,i} in J} W(j) * (h(s_{j,i}; w) - r_{j,i}) )^2

Eq. 8, document level -- the error of every judged document's total weighted gain, each document once::

    Lb(w) = sum_{D in J} ( sum_{i=1..n} W(p_{D,i}) * (h(D; w) - r_D) )^2

with W(p) = 0 when the run did not retrieve D and beyond the metric depth d (the losses measure errors of
M@d, the quantity being estimated), and h = h1^l (stage one, w = w1^l) or h2 (stage two,
w = w2); the same loss is used at both stages (the paper's La and Lb). Both losses are linear least squares in
the weights: with G[D, c] the gain column c gives document D (run c under model l at stage one; model c at stage
two) and Wm[i, D] = W(p_{D,i}),

    La = || Wm_J G_J w - Wm_J r_J ||^2,      Lb = || diag(c_J) G_J w - c_J * r_J ||^2,   c_D = sum_i Wm[i, D]

so each fit is a convex quadratic program on the probability simplex, solved by :func:`simplex_lstsq`
(default ``scipy.optimize.nnls`` on the problem augmented with a heavily weighted sum(w) = 1 row, ~1-4 ms for
n = 72; ``method="slsqp"`` uses ``scipy.optimize.minimize(method="SLSQP")`` with bounds [0, 1] and the equality
constraint, the same minimum but 10-100x slower on these rank-deficient designs). The minimizer need not be
unique (the design matrices are rank-deficient); both solvers are deterministic.

Everything per topic is an array operation over the (documents x runs) system matrix; the only Python loops are
over topics and models.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize
from threadpoolctl import threadpool_limits

from evalkit.data.collection import Collection, JudgedSet
from evalkit.estimation.metrics import gains as _gains
from evalkit.estimation.pools import contributing_runs, run_mask

__all__ = [
    "LOSSES",
    "TopicMatrix",
    "SystemMatrix",
    "system_matrix",
    "SOLVERS",
    "simplex_lstsq",
    "design",
    "TopicFit",
    "FrameworkFit",
    "fit_framework",
    "fit_frameworks",
    "document_gains",
]

LOSSES = ("a", "b")


@dataclass(frozen=True)
class TopicMatrix:
    """One topic's system matrix: ``docs`` (U,) sorted doc ids (the documents in the top d of the pool runs, plus
    those of any extra runs); ``ranks`` (U, n) the 1-based rank of each in each pool run's top K, 0 = not
    retrieved there."""

    docs: np.ndarray
    ranks: np.ndarray


@dataclass(frozen=True)
class SystemMatrix:
    """Per-topic system matrices of the pool runs ``runs`` (S,) bool: documents from the top ``depth`` = d (the
    metric depth), ranks recorded to ``rank_depth`` = K (the paper's k, "the maximum depth of lists returned")."""

    runs: np.ndarray
    depth: int
    rank_depth: int
    topics: tuple

    @property
    def n_runs(self) -> int:
        return int(self.runs.sum())


def system_matrix(collection: Collection, depth: int = 100, runs=None, rank_depth: int | None = None,
                  extra_runs=None) -> SystemMatrix:
    """Build the per-topic system matrices of ``runs`` (default: the contributing runs).

    The documents are those in the top ``depth`` of ``runs`` and of ``extra_runs`` (e.g. runs to be scored that
    did not build the pool); each one's rank in every pool run is looked up to ``rank_depth`` (default: the full
    length of the rankings, as in the paper, where a document a run did not return gets the model gain at the
    maximum depth k).
    """
    mask = run_mask(collection, runs) if runs is not None else contributing_runs(collection)
    rank_depth = collection.depth if rank_depth is None else min(int(rank_depth), collection.depth)
    if rank_depth < depth:
        raise ValueError(f"rank_depth ({rank_depth}) must be >= depth ({depth})")
    extra = None if extra_runs is None else run_mask(collection, extra_runs) & ~mask
    full = collection.docs[mask][:, :, :rank_depth]
    n = full.shape[0]
    topics = []
    for t in range(collection.n_topics):
        d = full[:, t, :]
        top = d[:, :depth]
        candidates = [top[top >= 0]]
        if extra is not None and extra.any():
            e = collection.docs[extra][:, t, :depth]
            candidates.append(e[e >= 0])
        unique = np.unique(np.concatenate(candidates))
        ranks = np.zeros((len(unique), n), np.int16)
        if len(unique):
            run_index, rank_index = np.nonzero(d >= 0)
            doc = d[run_index, rank_index]
            pos = np.minimum(np.searchsorted(unique, doc), len(unique) - 1)
            hit = unique[pos] == doc
            ranks[pos[hit], run_index[hit]] = rank_index[hit] + 1
        topics.append(TopicMatrix(docs=unique.astype(np.int32), ranks=ranks))
    return SystemMatrix(runs=mask, depth=int(depth), rank_depth=int(rank_depth), topics=tuple(topics))


# ------------------------------------------------------------------------------------------------ the solver


SOLVERS = ("nnls", "slsqp")


def simplex_lstsq(A: np.ndarray, b: np.ndarray, method: str = "nnls", tol: float = 1e-12,
                  maxiter: int = 500) -> np.ndarray:
    """``argmin_w ||A w - b||^2`` subject to ``w >= 0, sum(w) = 1``.

    ``method="nnls"`` (default): ``scipy.optimize.nnls`` (Lawson-Hanson active set) on the problem augmented with
    the row ``rho * (sum(w) - 1)``, ``rho = 1e3 ||A||_F``, which enforces the equality to ~1e-6 relative; the
    result is renormalized onto the simplex. Exact active-set solution, ~1-4 ms for n = 72.
    ``method="slsqp"``: ``scipy.optimize.minimize(method="SLSQP")`` on the normal equations with the analytic
    gradient, bounds [0, 1] and the equality constraint; same minimum (checked in the tests) but 10-100x slower on
    the rank-deficient designs of Eqs. 7-8.
    A problem with A = 0 (nothing to fit) returns the uniform weights.
    """
    A = np.asarray(A, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    n = A.shape[1]
    w0 = np.full(n, 1.0 / n)
    if n == 1:
        return np.ones(1)
    norm = float(np.linalg.norm(A))
    if norm == 0.0:
        return w0
    if method == "nnls":
        rho = 1e3 * norm
        augmented = np.vstack([A, np.full((1, n), rho)])
        target = np.concatenate([b, [rho]])
        try:
            w, _ = optimize.nnls(augmented, target, maxiter=max(maxiter, 50 * n))
        except RuntimeError:  # iteration limit: fall back to the general solver
            return simplex_lstsq(A, b, method="slsqp", tol=tol, maxiter=maxiter)
    elif method == "slsqp":
        Q = A.T @ A
        q = A.T @ b
        scale = max(float(np.sum((A @ w0 - b) ** 2)), float(b @ b), 1e-300)
        Q, q, bb = Q / scale, q / scale, float(b @ b) / scale
        ones = np.ones(n)
        res = optimize.minimize(
            lambda w: float(w @ Q @ w - 2.0 * q @ w + bb), w0, jac=lambda w: 2.0 * (Q @ w - q), method="SLSQP",
            bounds=[(0.0, 1.0)] * n, constraints=[{"type": "eq", "fun": lambda w: w.sum() - 1.0, "jac": lambda w: ones}],
            options={"ftol": tol, "maxiter": maxiter},
        )
        w = res.x
    else:
        raise ValueError(f"method must be one of {SOLVERS}; got {method!r}")
    w = np.clip(w, 0.0, None)
    total = w.sum()
    w = w / total if total > 0 else w0
    loss = lambda v: float(np.sum((A @ v - b) ** 2))  # noqa: E731
    return w if loss(w) <= loss(w0) else w0


def design(loss: str, G_judged: np.ndarray, W_judged: np.ndarray, r_judged: np.ndarray):
    """``(A, b)`` of Eq. 7 (``loss="a"``) or Eq. 8 (``loss="b"``) from the judged rows: ``G_judged`` (|J|, c) gain
    of each judged document under each column, ``W_judged`` (|J|, n) metric weight of its rank in each pool run,
    ``r_judged`` (|J|,) its gain."""
    if loss == "a":
        return W_judged.T @ G_judged, W_judged.T @ r_judged
    if loss == "b":
        c = W_judged.sum(axis=1)
        return c[:, None] * G_judged, c * r_judged
    raise ValueError(f"loss must be 'a' (Eq. 7) or 'b' (Eq. 8); got {loss!r}")


@dataclass(frozen=True)
class TopicFit:
    """One topic's fit: ``w1`` (m, n), ``w2`` (m,), stage-one gains ``g1`` (U, m), final gains ``h2`` (U,), and the
    gains of a document no pool run retrieved (``g1_default`` (m,), ``h2_default``)."""

    w1: np.ndarray
    w2: np.ndarray
    g1: np.ndarray
    h2: np.ndarray
    g1_default: np.ndarray
    h2_default: float


@dataclass(frozen=True)
class FrameworkFit:
    """Per-topic fits of Algorithm 1 with one loss, on one system matrix."""

    loss: str
    matrix: SystemMatrix
    topics: tuple

    def document_gains(self, t: int, docs: np.ndarray) -> np.ndarray:
        """h2 of each doc id in ``docs`` (any shape) for topic t; documents outside the system matrix get the
        gain of a document no pool run retrieved."""
        tm, fit = self.matrix.topics[t], self.topics[t]
        return _lookup(tm.docs, fit.h2, fit.h2_default, docs)


def _lookup(keys: np.ndarray, values: np.ndarray, default: float, query: np.ndarray) -> np.ndarray:
    if not len(keys):
        return np.full(np.shape(query), default, dtype=np.float64)
    pos = np.minimum(np.searchsorted(keys, query), len(keys) - 1)
    return np.where(keys[pos] == query, values[pos], default)


def fit_framework(
    matrix: SystemMatrix,
    judgments: JudgedSet,
    curves: np.ndarray,
    weights: np.ndarray,
    loss: str = "b",
    max_grade: int = 1,
    topics=None,
    solver: str = "nnls",
) -> FrameworkFit:
    """Algorithm 1 (steps 4-15) for every topic, with loss ``"a"`` (Eq. 7) or ``"b"`` (Eq. 8) at both stages.

    ``curves`` (T, m, K) are the rank-level model gains g0 at ranks 1..K, K = ``matrix.rank_depth``
    (:func:`.gain_models.fit_gain_models`); ``weights`` (d,) the metric's W(1..d), d = ``matrix.depth``: the losses
    weigh a judged document's occurrence at rank p by W(p), 0 beyond d (they measure errors of M@d).
    ``topics`` restricts the fit (others get zero gains), e.g. to the topics the adjust-or-not rule selects; by
    default every topic is fitted. ``solver``: see :func:`simplex_lstsq`.
    """
    return fit_frameworks(matrix, judgments, curves, weights, (loss,), max_grade, topics, solver)[loss]


def fit_frameworks(
    matrix: SystemMatrix,
    judgments: JudgedSet,
    curves: np.ndarray,
    weights: np.ndarray,
    losses=LOSSES,
    max_grade: int = 1,
    topics=None,
    solver: str = "nnls",
) -> dict:
    """:func:`fit_framework` for several losses at once (the per-document model gains are built once):
    ``{loss: FrameworkFit}``."""
    losses = tuple(losses)
    for loss in losses:
        if loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}; got {loss!r}")
    d, K = matrix.depth, matrix.rank_depth
    weights = np.asarray(weights, dtype=np.float64)
    if len(weights) != d or curves.shape[-1] != K:
        raise ValueError(f"weights must cover the matrix depth {d} and curves its rank depth {K}; got "
                         f"{len(weights)} and {curves.shape[-1]}")
    padded = np.concatenate([[0.0], weights, np.zeros(K - d)])  # padded[p] = W(p), W(0) = W(p > d) = 0
    selected = np.ones(len(matrix.topics), bool) if topics is None else run_mask_like(topics, len(matrix.topics))
    # one BLAS thread: the per-topic products are small (n x |J| by |J| x n), and a multi-threaded BLAS spends more
    # time waking and waiting for its threads than computing, 5-6x slower on a shared machine (bench_lu2017)
    with threadpool_limits(limits=1, user_api="blas"):
        fits = _fit_topics(matrix, judgments, curves, padded, losses, max_grade, selected, solver)
    return {loss: FrameworkFit(loss=loss, matrix=matrix, topics=tuple(fits[loss])) for loss in losses}


def _fit_topics(matrix, judgments, curves, padded, losses, max_grade, selected, solver) -> dict:
    """The per-topic loop of :func:`fit_frameworks`: ``{loss: [TopicFit per topic]}``."""
    K = matrix.rank_depth
    n, m = matrix.n_runs, curves.shape[1]
    fits: dict = {loss: [] for loss in losses}
    for t, tm in enumerate(matrix.topics):
        grade = judgments.lookup(np.full(len(tm.docs), t, np.int32), tm.docs)
        judged = grade >= 0
        if not selected[t] or not judged.any():
            for loss in losses:
                fits[loss].append(_empty_fit(len(tm.docs), n, m))
            continue
        r = _gains(grade[judged], max_grade)
        rank_or_k = np.where(tm.ranks > 0, tm.ranks, K) - 1  # (U, n) index into the curves
        W_judged = padded[tm.ranks[judged]]
        G = [curves[t, l][rank_or_k] for l in range(m)]  # (U, n) each: g0^l at each run's rank of each document
        for loss in losses:
            w1 = np.zeros((m, n))
            g1 = np.zeros((len(tm.docs), m))
            for l in range(m):
                A, b = design(loss, G[l][judged], W_judged, r)
                w1[l] = simplex_lstsq(A, b, solver)
                g1[:, l] = G[l] @ w1[l]
            g1_default = curves[t, :, K - 1].copy()
            A, b = design(loss, g1[judged], W_judged, r)
            w2 = simplex_lstsq(A, b, solver)
            fits[loss].append(TopicFit(w1=w1, w2=w2, g1=g1, h2=g1 @ w2, g1_default=g1_default,
                                       h2_default=float(g1_default @ w2)))
    return fits


def run_mask_like(topics, n_topics: int) -> np.ndarray:
    topics = np.asarray(topics)
    if topics.dtype == bool:
        return topics
    mask = np.zeros(n_topics, bool)
    mask[topics] = True
    return mask


def _empty_fit(n_docs: int, n: int, m: int) -> TopicFit:
    return TopicFit(w1=np.full((m, n), 1.0 / max(n, 1)), w2=np.full(m, 1.0 / max(m, 1)), g1=np.zeros((n_docs, m)),
                    h2=np.zeros(n_docs), g1_default=np.zeros(m), h2_default=0.0)


def document_gains(fit: FrameworkFit, docs: np.ndarray) -> np.ndarray:
    """(S, T, D) framework gain h2 of every document in ``docs`` (S, T, D) doc ids (NaN where doc < 0)."""
    out = np.full(docs.shape, np.nan)
    for t in range(docs.shape[1]):
        d = docs[:, t, :]
        out[:, t, :] = np.where(d >= 0, fit.document_gains(t, d), np.nan)
    return out
