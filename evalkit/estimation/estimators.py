"""Estimators of a run's depth-d score from shallow (depth d' < d) or sampled judgments (Lu et al. 2017, Sec. 3-4).

Every estimator fills the unknown gains of a ranking and scores it with the metric's weights to depth k = d::

    M_hat_i = sum_{j<=k, s_{j,i} in J} r_{j,i} W(j)  +  sum_{j<=k, s_{j,i} not in J} g_hat(s_{j,i}, j) W(j)

``LB``    lower bound: g_hat = 0 (unjudged = not relevant).
``RM``    Ravana and Moffat's interpolative estimator, Eq. 4::

              M_hat_i = M_i / (1 - eps_i)

          (eps_i the residual of Eq. 2 at depth k, tail included): the unjudged documents and the tail are
          relevant at the rate of the judged ones. Computed as M_i + eps_i * rho_i with rho_i = M_i / (judged
          weight) = M_i / (1 - eps_i). Where nothing is judged (eps_i = 1) rho_i is a collection background
          rate: the mean gain of all judged documents (all topics) of the judgment set.
``Lin`` / ``Zipf`` / ``Wei``
          rank-level models (:mod:`.gain_models`): g_hat = G(j), the topic's fitted gain at the rank j where the
          document sits in this run.
``La`` / ``Lb``
          Algorithm 1 with loss Eq. 7 / Eq. 8 at both stages (:mod:`.framework`): g_hat = h2(D), one gain per
          document whatever its rank.

The adjust-or-not rule (Sec. 4, :mod:`.coverage`): the model-based estimators (Lin, Zipf, Wei, La, Lb) are
applied to a topic only where gamma > theta; elsewhere the topic keeps its LB score. LB and RM are not gated
(the paper's Table 2 gives them one column). :class:`ShallowEstimates` stores the ungated scores and gates on
demand, so one fit serves every theta.

Also here: InfRBP (Eq. 5) for two-strata judgments, and the score-range error of Eq. 3 with RMSE / Acc%.

Eq. 5, rebuilt: with J the first stratum (fully judged) and J_s the judged sample of the second stratum::

    M_hat_i = sum_{j<=k, s_{j,i} in J} r_{j,i} W(j)  +  alpha * sum_{j<=k, s_{j,i} in J_s} r_{j,i} W(j),
    alpha   = ( sum_{j<=k, s_{j,i} not in J} W(j) ) * ( sum_{j<=k, s_{j,i} in J_s} W(j) )^(-1)

(the sampled gain rate scaled up to all ranks outside the first stratum; alpha * 0 = 0 when no sampled document is
retrieved; ABSENT ranks are not counted).

Eq. 3, the error of an estimate against the reference score M_i (full judgments, depth d) and its residual
eps_i::

    e_i = M_i - M_hat_i                if M_hat_i < M_i
        = 0                            if M_i <= M_hat_i <= M_i + eps_i
        = M_hat_i - (M_i + eps_i)      if M_hat_i > M_i + eps_i

reported as the RMS of e over runs x topics and, as Acc%, the percentage of e that are 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from evalkit.data.collection import ABSENT, Collection, JudgedSet
from evalkit.estimation.coverage import DEFAULT_THETA, pool_gamma
from evalkit.estimation.framework import (
    SystemMatrix,
    document_gains,
    fit_frameworks,
    system_matrix,
)
from evalkit.estimation.gain_models import (
    GAIN_MODELS,
    MODEL_LABELS,
    fit_gain_models,
    observed_gain_vector,
)
from evalkit.estimation.metrics import (
    WeightedPrecision,
    gains,
    metric_weights,
    weighted_precision,
)
from evalkit.estimation.pools import contributing_runs, run_mask

__all__ = [
    "ESTIMATORS",
    "GATED_ESTIMATORS",
    "ShallowEstimates",
    "estimate_scores",
    "reference_scores",
    "score_range_error",
    "rmse_accuracy",
    "error_table",
    "inf_weighted_precision",
    "inf_rbp",
]

ESTIMATORS = ("LB", "RM", "Lin", "Zipf", "Wei", "La", "Lb")
GATED_ESTIMATORS = ("Lin", "Zipf", "Wei", "La", "Lb")
_MODEL_OF_LABEL = {label: name for name, label in MODEL_LABELS.items()}
_FRAMEWORK_LOSS = {"La": "a", "Lb": "b"}


def _grades(collection: Collection, judgments: JudgedSet, runs: np.ndarray, depth: int) -> np.ndarray:
    docs = collection.docs[runs][:, :, :depth]
    topic = np.broadcast_to(np.arange(collection.n_topics, dtype=np.int32)[None, :, None], docs.shape)
    return judgments.lookup(topic, docs)


@dataclass(frozen=True)
class ShallowEstimates:
    """Ungated estimated scores of the scored runs and what the gating needs.

    ``scores[name]`` (S', T) for the scored runs ``runs`` (S,) bool; ``gamma`` (T,); ``lower_bound`` the LB
    :class:`WeightedPrecision` (score and shallow residuals); ``curves`` (T, m, k) the rank-level gains;
    ``fits`` the :class:`FrameworkFit` per framework label.
    """

    scores: dict
    gamma: np.ndarray
    lower_bound: WeightedPrecision
    runs: np.ndarray
    pool_runs: np.ndarray
    fit_depth: int
    depth: int
    curves: np.ndarray | None = None
    fits: dict = field(default_factory=dict)

    @property
    def estimators(self) -> tuple:
        return tuple(self.scores)

    def adjusted(self, theta: float = DEFAULT_THETA) -> np.ndarray:
        """(T,) bool: the topics the adjust-or-not rule adjusts (gamma > theta)."""
        return self.gamma > theta

    def score(self, estimator: str, theta: float | None = DEFAULT_THETA) -> np.ndarray:
        """(S', T) scores of ``estimator``; model-based estimators fall back to LB on topics with gamma <= theta.

        Default theta = 0.018 (the paper's). ``theta=0`` adjusts every topic with gamma > 0 (gamma = 0 means no
        relevant document was found more than once, or none at all: the rule leaves the topic alone);
        ``theta=None`` adjusts every topic."""
        if estimator not in self.scores:
            raise KeyError(f"estimator {estimator!r} was not computed; have {self.estimators}")
        values = self.scores[estimator]
        if estimator not in GATED_ESTIMATORS or theta is None:
            return values
        return np.where(self.adjusted(theta)[None, :], values, self.scores["LB"])


def estimate_scores(
    collection: Collection,
    judgments: JudgedSet,
    fit_depth: int,
    *,
    pool_runs=None,
    score_runs=None,
    depth: int = 100,
    metric: str = "rbp",
    p: float = 0.95,
    estimators=ESTIMATORS,
    max_grade: int = 1,
    background_rate: float | None = None,
    matrix: SystemMatrix | None = None,
    rank_depth: int | None = None,
    solver: str = "nnls",
) -> ShallowEstimates:
    """Estimate the depth-``depth`` weighted-precision scores of ``score_runs`` from ``judgments``.

    Parameters
    ----------
    judgments : the shallow judgments (e.g. :func:`.pools.pool_qrels` at depth d') or a two-strata sample.
    fit_depth : d', the depth to which every pool run's ranking is fully judged: the gain vector the rank-level
        models are fitted to, and the system matrix gamma is computed from.
    pool_runs : the runs that built the pool (default: the contributing runs): the system matrix of Eqs. 6-8.
    score_runs : the runs to score (default: ``pool_runs``).
    depth : the metric depth k = d (default 100).
    metric, p : "rbp" (RBP(p), default p = 0.95) or "sdcg" (SDCG@depth).
    estimators : any of :data:`ESTIMATORS`.
    background_rate : RM's rate where the residual is 1 (default: mean gain of the judged documents).
    matrix : a prebuilt :func:`.framework.system_matrix` of ``pool_runs`` (reuse it across d'); it must list the
        documents of ``score_runs`` (``extra_runs``) or those get the gain of a document no pool run returned.
    rank_depth : K, the depth to which ranks are looked up in the pool runs and the models extrapolated (default:
        the full run length, or the matrix's); a document a pool run did not return in its top K gets g0(K).
    solver : the simplex least-squares solver of the framework (:func:`.framework.simplex_lstsq`).
    """
    unknown_names = set(estimators) - set(ESTIMATORS)
    if unknown_names:
        raise ValueError(f"unknown estimators {sorted(unknown_names)}; choose from {ESTIMATORS}")
    pool = run_mask(collection, pool_runs) if pool_runs is not None else contributing_runs(collection)
    scored = run_mask(collection, score_runs) if score_runs is not None else pool
    weights, tail = metric_weights(metric, depth, p)

    grades = _grades(collection, judgments, scored, depth)
    if grades.shape[-1] < depth:
        pad = np.full(grades.shape[:-1] + (depth - grades.shape[-1],), ABSENT, grades.dtype)
        grades = np.concatenate([grades, pad], axis=-1)
    lb = weighted_precision(grades, weights, tail, max_grade)
    unknown = ((grades < 0) & (grades != ABSENT)).astype(np.float64)  # documents whose gain is estimated
    scores: dict = {"LB": lb.score}

    if "RM" in estimators:
        judged_weight = (grades >= 0).astype(np.float64) @ weights
        if background_rate is None:
            judged = judgments.grade >= 0
            background_rate = float(gains(judgments.grade[judged], max_grade).mean()) if judged.any() else 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = np.where(judged_weight > 0, lb.score / np.where(judged_weight > 0, judged_weight, 1.0),
                            background_rate)
        scores["RM"] = lb.score + lb.residual * rate

    framework_labels = [e for e in ("La", "Lb") if e in estimators]
    if framework_labels:
        if matrix is None:
            matrix = system_matrix(collection, depth, pool, rank_depth=rank_depth, extra_runs=scored)
        elif matrix.depth != depth or not np.array_equal(matrix.runs, pool):
            raise ValueError("matrix was built for other pool runs or another depth")
        rank_depth = matrix.rank_depth
    else:
        rank_depth = depth if rank_depth is None else max(int(rank_depth), depth)

    curves = None
    needs_models = [e for e in estimators if e in GATED_ESTIMATORS]
    if needs_models:
        pool_grades = _grades(collection, judgments, pool, fit_depth)
        observed = observed_gain_vector(gains(pool_grades, max_grade), pool_grades >= 0)
        curves, _ = fit_gain_models(observed, rank_depth, GAIN_MODELS)
    for label in ("Lin", "Zipf", "Wei"):
        if label in estimators:
            curve = curves[:, GAIN_MODELS.index(_MODEL_OF_LABEL[label]), :depth]  # (T, d)
            scores[label] = lb.score + (unknown * curve[None, :, :]) @ weights

    fits = {}
    if framework_labels:
        docs = collection.docs[scored][:, :, :depth]
        fitted = fit_frameworks(matrix, judgments, curves, weights, [_FRAMEWORK_LOSS[x] for x in framework_labels],
                                max_grade, solver=solver)
        for label in framework_labels:
            fit = fits[label] = fitted[_FRAMEWORK_LOSS[label]]
            h = np.nan_to_num(document_gains(fit, docs), nan=0.0)
            if h.shape[-1] < depth:
                h = np.concatenate([h, np.zeros(h.shape[:-1] + (depth - h.shape[-1],))], axis=-1)
            scores[label] = lb.score + (unknown * h) @ weights

    gamma = pool_gamma(collection, judgments, fit_depth, pool)
    ordered = {name: scores[name] for name in ESTIMATORS if name in scores and (name in estimators or name == "LB")}
    return ShallowEstimates(scores=ordered, gamma=gamma, lower_bound=lb, runs=scored, pool_runs=pool,
                            fit_depth=int(fit_depth), depth=int(depth), curves=curves, fits=fits)


def reference_scores(collection: Collection, depth: int = 100, runs=None, metric: str = "rbp", p: float = 0.95,
                     qrels: JudgedSet | None = None, max_grade: int = 1) -> WeightedPrecision:
    """The gold standard: the metric at depth ``depth`` under the full judgments (score and residual)."""
    mask = run_mask(collection, runs) if runs is not None else contributing_runs(collection)
    weights, tail = metric_weights(metric, depth, p)
    grades = _grades(collection, collection.qrels if qrels is None else qrels, mask, depth)
    return weighted_precision(grades, weights, tail, max_grade)


# ------------------------------------------------------------------------------------------------ Eq. 3


def score_range_error(estimate, score, residual) -> np.ndarray:
    """Eq. 3: 0 inside ``[score, score + residual]``, else the distance to that range (element-wise)."""
    estimate = np.asarray(estimate, dtype=np.float64)
    score = np.asarray(score, dtype=np.float64)
    upper = score + np.asarray(residual, dtype=np.float64)
    return np.where(estimate < score, score - estimate, np.where(estimate > upper, estimate - upper, 0.0))


def rmse_accuracy(errors) -> tuple[float, float]:
    """``(RMS of the errors, percentage of errors that are exactly 0)``."""
    e = np.asarray(errors, dtype=np.float64).ravel()
    if not e.size:
        raise ValueError("no errors to aggregate")
    return float(np.sqrt(np.mean(e * e))), float(100.0 * np.mean(e == 0.0))


def error_table(estimates: ShallowEstimates, reference: WeightedPrecision, thetas=(0.0, DEFAULT_THETA)):
    """Long DataFrame: estimator, theta (NaN for LB / RM), rmse, acc for ``estimates`` against ``reference``
    (same runs, same order)."""
    import pandas as pd

    rows = []
    for name in estimates.estimators:
        for theta in (thetas if name in GATED_ESTIMATORS else (np.nan,)):
            e = score_range_error(estimates.score(name, 0.0 if np.isnan(theta) else theta), reference.score,
                                  reference.residual)
            rmse, acc = rmse_accuracy(e)
            rows.append({"estimator": name, "theta": theta, "rmse": rmse, "acc": acc})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------------ Eq. 5


def inf_weighted_precision(grades: np.ndarray, strata: np.ndarray, weights: np.ndarray, max_grade: int = 1,
                           first_stratum: int = 1) -> np.ndarray:
    """Eq. 5 on (S, T, k) grades and strata (``JudgedSet.lookup_stratum``): the fully judged first stratum
    scored exactly, the rest scaled up from the judged sample of the later strata."""
    w = np.asarray(weights, dtype=np.float64)
    g = np.asarray(grades)[..., : len(w)]
    s = np.asarray(strata)[..., : len(w)]
    gain = gains(g, max_grade)
    in_first = (s == first_stratum) & (g >= 0)
    sampled = (s != first_stratum) & (s >= 0) & (g >= 0)
    outside_first = ~in_first & (g != ABSENT)
    exact = (gain * in_first) @ w
    sampled_gain = (gain * sampled) @ w
    sampled_weight = sampled.astype(np.float64) @ w
    outside_weight = outside_first.astype(np.float64) @ w
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = np.where(sampled_weight > 0, outside_weight / np.where(sampled_weight > 0, sampled_weight, 1.0), 0.0)
    return exact + alpha * sampled_gain


def inf_rbp(collection: Collection, judgments: JudgedSet, depth: int = 100, p: float = 0.95, runs=None,
            max_grade: int = 1) -> np.ndarray:
    """(S', T) InfRBP(p)@depth (Eq. 5) of ``runs`` (default: the contributing runs) from two-strata judgments."""
    if judgments.stratum is None:
        raise ValueError("InfRBP needs stratified judgments (a JudgedSet with a stratum column)")
    mask = run_mask(collection, runs) if runs is not None else contributing_runs(collection)
    docs = collection.docs[mask][:, :, :depth]
    topic = np.broadcast_to(np.arange(collection.n_topics, dtype=np.int32)[None, :, None], docs.shape)
    weights, _ = metric_weights("rbp", depth, p)
    grades = judgments.lookup(topic, docs)
    strata = judgments.lookup_stratum(topic, docs)
    if grades.shape[-1] < depth:
        pad = depth - grades.shape[-1]
        grades = np.concatenate([grades, np.full(grades.shape[:-1] + (pad,), ABSENT, grades.dtype)], axis=-1)
        strata = np.concatenate([strata, np.full(strata.shape[:-1] + (pad,), -1, strata.dtype)], axis=-1)
    return inf_weighted_precision(grades, strata, weights, max_grade)
