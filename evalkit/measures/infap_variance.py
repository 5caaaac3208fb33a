"""The variance of infAP and its confidence intervals (Yilmaz, Kanoulas and Aslam, SIGIR 2008, Sec. 2 and Appendix).

infAP here is trec_eval's (= one-stratum xinfAP, :mod:`evalkit.measures.inferred`); its variance has two
components (which relevant documents were sampled, and the estimate of each precision above them), with the
variance of a sampled proportion either in the paper's plug-in form or in the unbiased form
(:func:`_precision_above_variance`), and optionally the Appendix's covariances. The variance forms a notebook
compares are keyword arguments of :func:`infap_variance` (``unbiased``, ``covariance``).
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from evalkit.data.collection import Collection
from evalkit.measures.inferred import TREC_EVAL_SMOOTHING, _trec_prec
from evalkit.measures.judged_positions import JudgedPositions, _as_judged, _entries

__all__ = ["infap_variance", "InfAPVariance"]


def _precision_above_variance(D, n, r, smoothing, unbiased: bool) -> np.ndarray:
    """Estimated variance of the sampled fraction of relevant documents among the D pooled documents above a
    cut-off, from n sampled of which r relevant (simple random sampling without replacement)."""
    D = np.asarray(D, np.float64)
    n = np.asarray(n, np.float64)
    p_hat = (r + smoothing[0]) / (n + smoothing[1]) if smoothing[1] > 0 else np.divide(r, n, out=np.full(n.shape, 0.5), where=n > 0)
    if not unbiased:  # the paper's p(1-p)/n (1 - (n-1)/(D-1)) with p replaced by its estimate; n = 0 -> 1
        n_eff = np.maximum(n, 1.0)
        fpc = np.clip(np.divide(D - n_eff, D - 1.0, out=np.zeros(D.shape), where=D > 1), 0.0, None)
        return p_hat * (1.0 - p_hat) / n_eff * fpc
    # unbiased: s² = p̂(1-p̂) n/(n-1) estimates the population variance D/(D-1) p(1-p), and
    # var[p̂] = s²/n (1 - n/D); with n <= 1 s² is undefined: the Laplace estimate p~(1-p~), p~ = (r+1)/(n+2)
    laplace = (r + 1.0) / (n + 2.0)
    s2 = np.where(n >= 2, p_hat * (1.0 - p_hat) * n / np.maximum(n - 1.0, 1.0), laplace * (1.0 - laplace))
    fpc = np.divide(D - n, D, out=np.zeros(D.shape), where=D > 0)
    return s2 / np.maximum(n, 1.0) * np.clip(fpc, 0.0, None)


@dataclass(frozen=True)
class InfAPVariance:
    """infAP with its variance and normal confidence intervals (Yilmaz et al. 2008, Sec. 2 and Appendix).

    Per (run, topic): ``infap``, ``var_cutoffs`` (component 1, from sampling the cut-off levels),
    ``var_precisions`` (component 2, from estimating the precisions), ``var`` = their sum, ``ci_low`` /
    ``ci_high``. Per run, over the ``scored`` topics: ``mean`` (mean infAP), ``mean_var`` = sum var / T², and the
    interval ``mean_ci_low`` / ``mean_ci_high``.
    """

    infap: np.ndarray
    var_cutoffs: np.ndarray
    var_precisions: np.ndarray
    var: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    scored: np.ndarray
    mean: np.ndarray
    mean_var: np.ndarray
    mean_ci_low: np.ndarray
    mean_ci_high: np.ndarray
    confidence: float
    covariance: bool


def infap_variance(
    collection: Collection,
    qrels=None,
    *,
    covariance: bool = False,
    confidence: float = 0.95,
    smoothing: tuple[float, float] = TREC_EVAL_SMOOTHING,
    unbiased: bool = True,
    ddof: int = 1,
    topics: np.ndarray | None = None,
    within: JudgedPositions | None = None,
) -> InfAPVariance:
    """infAP (trec_eval's, = one-stratum xinfAP) and its variance, per topic and for mean infAP.

    Reconstructed from Yilmaz, Kanoulas and Aslam (2008), Sec. 2 and the Appendix. For one topic, with r the
    number of judged relevant documents (the sampled cut-off levels), p = n / N the fraction of the pool that was
    sampled (from the qrels; strata, if any, are merged into one), and PC_k the estimated precision at the judged
    relevant document at rank k (0 for judged relevant documents the run did not retrieve)::

        var[infAP] = (1 - p) s² / r  +  sum_k var[PC_k] / r²                 (law of total variance)
        s²         = sum_{k in rel} (PC_k - infAP)² / (r - ddof)             (Appendix; ddof = 1; 0 if r <= ddof)
        var[PC_k]  = ((k-1)/k)² var[PC_above k],  0 at k = 1 and for unretrieved documents
        PC_above k = (D / (k-1)) p̂,   so   var[PC_above k] = (D / (k-1))² var[p̂]

    where D is the number of pooled documents above rank k and p̂ = (r' + a)/(n' + b) the smoothed fraction of
    relevant documents among the n' sampled of them. The paper gives ``var[p̂] = p(1-p)/n' (1 - (n'-1)/(D-1))``, the
    hypergeometric variance for the *true* proportion p, and writes it without the (D/(k-1))² factor (the case
    D = k - 1). Readings made here: p is the proportion of relevant documents above k (not the sampling rate);
    the factor (D/(k-1))² is kept; and, by default (``unbiased=True``), p is replaced by its unbiased plug-in
    ``var̂[p̂] = p̂(1-p̂)/(n'-1) (1 - n'/D)`` (for n' >= 2; for n' <= 1, where p̂(1-p̂) is 0 or undefined, the
    Laplace estimate p~ = (r'+1)/(n'+2) is used: ``p~(1-p~)/max(n', 1) (1 - n'/D)``). ``unbiased=False`` plugs p̂
    into the paper's formula literally (n' = 0 read as 1); on TREC-8 that underestimates the empirical variance of
    infAP about twice over, the default by about 1.6 times (independent form) and 1.15 times (covariance form).
    Sec. 2's s² (no square, divided by r) is a typo for the Appendix's. With ``covariance=True`` component 2 adds
    the Appendix's covariances ``cov[PC_k, PC_m] = (k/m) var[PC_k]`` (k < m)::

        sum_k var[PC_k] + 2 sum_{k<m} (k/m) var[PC_k]  over the retrieved judged relevant documents.

    Mean infAP over topics: ``var[mean] = sum_t var_t / T²``; intervals are ``value ± z sqrt(var)`` with z the
    normal quantile for ``confidence`` (1.96 for 0.95). ``topics`` (S, T) bool says which topics enter each run's
    mean (default: topics the run retrieved something for and the qrels judge, trec_eval's rule). ``within``: as
    in :func:`inferred_measures` (the same values, without a pass over the rankings).
    """
    q = _as_judged(qrels, collection)
    S, T, _ = collection.docs.shape
    e = _entries(collection, q, within)
    at, prec, D, j, rr, k = _trec_prec(e, q, smoothing)
    var_above = _precision_above_variance(D, j, rr, smoothing, unbiased)
    var_k = (D / k) ** 2 * var_above
    rows = e.row[at]
    n_rows = e.n_rows
    sum_var = np.bincount(rows, weights=var_k, minlength=n_rows)
    if covariance and len(at):
        # sum_{k<m} (k/m) var_k = sum_m (1/m) * (sum of k var_k over relevant entries above m, same ranking)
        kv = k * var_k
        first = np.ones(len(at), bool)
        first[1:] = rows[1:] != rows[:-1]
        start = np.maximum.accumulate(np.where(first, np.arange(len(at)), 0))
        cs = np.concatenate([[0.0], np.cumsum(kv)])
        above = cs[np.arange(len(at))] - cs[start]
        sum_var = sum_var + 2.0 * np.bincount(rows, weights=above / k, minlength=n_rows)
    sum_prec = e.to_st(np.bincount(rows, weights=prec, minlength=n_rows))
    sum_prec2 = e.to_st(np.bincount(rows, weights=prec * prec, minlength=n_rows))
    r = q.counts(1).astype(np.float64)[None, :]
    infap = np.divide(sum_prec, r, out=np.zeros((S, T)), where=r > 0)
    # sum over all judged relevant (unretrieved ones have PC = 0) of (PC - infAP)^2
    ss = sum_prec2 - 2.0 * infap * sum_prec + r * infap ** 2
    ss = np.maximum(ss, 0.0)
    s2 = np.divide(ss, r - ddof, out=np.zeros((S, T)), where=(r - ddof) > 0)
    pooled = np.bincount(q.topic, minlength=T).astype(np.float64)
    sampled = np.bincount(q.topic[q.grade >= 0], minlength=T).astype(np.float64)
    p = np.divide(sampled, pooled, out=np.ones(T), where=pooled > 0)[None, :]
    comp1 = np.divide((1.0 - p) * s2, r, out=np.zeros((S, T)), where=r > 0)
    comp2 = np.divide(e.to_st(sum_var), r ** 2, out=np.zeros((S, T)), where=r > 0)
    var = comp1 + comp2
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    half = z * np.sqrt(var)
    if topics is None:
        has_qrels = np.bincount(q.topic, minlength=T) > 0
        scored = collection.retrieved & has_qrels[None, :]
    else:
        scored = np.broadcast_to(np.asarray(topics, bool), (S, T))
    n_t = scored.sum(axis=1).astype(np.float64)
    mean = np.divide((infap * scored).sum(axis=1), n_t, out=np.zeros(S), where=n_t > 0)
    mean_var = np.divide((var * scored).sum(axis=1), n_t ** 2, out=np.zeros(S), where=n_t > 0)
    mean_half = z * np.sqrt(mean_var)
    return InfAPVariance(
        infap=infap,
        var_cutoffs=comp1,
        var_precisions=comp2,
        var=var,
        ci_low=infap - half,
        ci_high=infap + half,
        scored=scored,
        mean=mean,
        mean_var=mean_var,
        mean_ci_low=mean - mean_half,
        mean_ci_high=mean + mean_half,
        confidence=confidence,
        covariance=covariance,
    )
