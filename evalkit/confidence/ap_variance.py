r"""Average precision as a random variable over relevance probabilities (Carterette 2007, Sec. 2.1).

Notation
--------
Each document ``i`` of a topic has relevance :math:`X_i \sim \mathrm{Bernoulli}(p_i)`, independent;
judged documents have :math:`p_i \in \{0, 1\}`. For one ranking, with :math:`r(i)` the rank of document i,

.. math::

    AP = \frac{1}{\sum_i X_i} \sum_i \sum_{j \ge i} a_{ij} X_i X_j, \qquad
    a_{ij} = \frac{1}{\max\{r(i), r(j)\}}

(:math:`a_{ij} = 0` when i or j is not ranked; the sum over i in the denominator runs over every document of the
topic's *universe*, ranked or not, so unranked relevant documents lower AP exactly as in trec_eval). Write
:math:`N = \sum_i a_{ii} X_i + \sum_{i<j} a_{ij} X_i X_j` for the numerator and :math:`|R| = \sum_i p_i` for the
expected number of relevant documents.

Expectation (the paper's ratio of expectations)::

    E[AP]  ~=  E[N] / |R|,      E[N] = sum_i a_ii p_i + sum_{i<j} a_ij p_i p_j

Variance (the paper's four sums, divided by |R|^2; q_i = 1 - p_i)::

    Var[AP] ~= 1/|R|^2 * (  sum_i a_ii^2 p_i q_i
                          + sum_{i<j} a_ij^2 p_i p_j (1 - p_i p_j)
                          + sum_{i != j} 2 a_ii a_ij p_i p_j (1 - p_i)
                          + sum_i sum_{j<k; j,k != i} 2 a_ij a_ik p_i p_j p_k (1 - p_i) )

The four sums are exactly Var[N] for independent Bernoulli X (the covariances of the monomials X_i and X_i X_j);
the approximation is only in treating the denominator as the constant |R| (the paper's footnote 1). That is
harmless for E[AP] (within a few percent in our Monte Carlo checks) but not for Var[AP]: N and sum_i X_i rise
together, so the true AP varies less than N / |R| -- about 2.5 to 3.3 times less in the tests' examples. The
variance is therefore conservative for a single AP. For dAP the denominator is shared and positive, so the sign
of dAP is the sign of its numerator, whose distribution the formulas do describe exactly.

Fast form used here (derivation in the docstring of :func:`numerator_variance`). With centred variables
:math:`Z_i = X_i - p_i`, N is a multilinear polynomial, so it decomposes orthogonally::

    N = E[N] + sum_i g_i Z_i + sum_{i<j} a_ij Z_i Z_j,      g_i = dE[N]/dp_i = a_ii + sum_{j != i} a_ij p_j

    Var[N] = sum_i p_i q_i g_i^2  +  sum_{i<j} a_ij^2 p_i q_i p_j q_j

which equals the four sums term by term (first-order part = sums 1, 3, 4 and the p_i p_j - p_i^2 p_j^2 - ... part
of sum 2). For a ranking, with documents indexed by rank r = 1..n, prefix sums make every piece O(n)::

    E[N]  = sum_r (p_r / r) (1 + P_{<r}),                 P_{<r} = sum_{s<r} p_s
    g_r   = (1 + P_{<r}) / r + sum_{s>r} p_s / s
    SO    = sum_{r<s} w_r w_s / s^2 = sum_s (w_s / s^2) W_{<s},   w_r = p_r q_r

Delta AP (two rankings of the same topic, same universe, same |R|)::

    dAP = 1/|R| sum_i sum_{j>=i} c_ij X_i X_j,    c_ij = a_ij - b_ij
    E[dAP] = (E[N_a] - E[N_b]) / |R|
    Var[dAP] = 1/|R|^2 ( sum_i p_i q_i (g^a_i - g^b_i)^2 + SO_a + SO_b - 2 sum_{i<j} a_ij b_ij w_i w_j )

The last ("cross") sum runs over pairs of documents ranked by both runs: O(m^2) for m common documents.

MAP over independent topics (Eq. 1)::

    EMAP = 1/T sum_t E[AP_t],   VMAP = 1/T^2 sum_t Var[AP_t],   P(dMAP < 0) = Phi(-E[dMAP] / sqrt(Var[dMAP]))

Everything here is vectorized over leading axes (runs, topics, pairs).
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy import special

__all__ = [
    "ap_moments",
    "ap_numerator_terms",
    "ap_gradient",
    "ap_coefficients",
    "ap_moments_reference",
    "numerator_moments_reference",
    "numerator_variance",
    "delta_ap_moments",
    "delta_ap_moments_reference",
    "cross_term",
    "map_moments",
    "prob_negative",
    "exact_numerator_moments",
]


def _safe_divide(numerator, denominator):
    numerator = np.asarray(numerator, np.float64)
    denominator = np.asarray(denominator, np.float64)
    shape = np.broadcast(numerator, denominator).shape
    return np.divide(numerator, denominator, out=np.zeros(shape), where=denominator > 0)[()]  # scalar for 0-d


# ----------------------------------------------------------------------------------------------------------------
# one ranking: O(n) with prefix sums
# ----------------------------------------------------------------------------------------------------------------


def ap_numerator_terms(p: np.ndarray):
    """Per-ranking pieces of the AP numerator for probabilities by rank ``p[..., r]`` (r = 0..n-1 is rank r+1).

    Returns ``(expected, gradient, second_order)``:

    * ``expected[...]``      E[N] = sum_r (p_r / r) (1 + sum_{s<r} p_s)
    * ``gradient[..., r]``   g_r = dE[N]/dp_r = (1 + sum_{s<r} p_s) / r + sum_{s>r} p_s / s
    * ``second_order[...]``  sum_{r<s} w_r w_s / s^2 with w = p (1 - p)

    so that Var[N] = sum_r w_r g_r^2 + second_order. Positions past the end of a ranking must have p = 0.
    """
    p = np.asarray(p, np.float64)
    n = p.shape[-1]
    inv_rank = 1.0 / np.arange(1, n + 1, dtype=np.float64)
    before = np.cumsum(p, axis=-1) - p  # P_{<r}
    p_over_r = p * inv_rank
    expected = (p_over_r * (1.0 + before)).sum(axis=-1)
    after = np.cumsum(p_over_r[..., ::-1], axis=-1)[..., ::-1] - p_over_r  # sum_{s>r} p_s / s
    gradient = (1.0 + before) * inv_rank + after
    w = p * (1.0 - p)
    w_before = np.cumsum(w, axis=-1) - w
    second_order = (w * inv_rank * inv_rank * w_before).sum(axis=-1)
    return expected, gradient, second_order


def ap_gradient(p: np.ndarray) -> np.ndarray:
    """g_r = dE[N]/dp_r for probabilities by rank (see :func:`ap_numerator_terms`)."""
    return ap_numerator_terms(p)[1]


def ap_moments(p: np.ndarray, n_relevant=None):
    """E[AP] and Var[AP] of rankings given relevance probabilities by rank, O(n) per ranking.

    Parameters
    ----------
    p : (..., n) probability that the document at rank r+1 is relevant; 0 past the end of a ranking. Judged
        documents carry 0 or 1. Any leading shape, e.g. (runs, topics, depth).
    n_relevant : (...) expected number of relevant documents |R| = sum_i p_i over the topic's whole universe
        (broadcast against the leading axes). Default: ``p.sum(-1)`` (the ranking is the universe).

    Returns
    -------
    (expected, variance): E[AP] ~= E[N]/|R| and Var[AP] ~= Var[N]/|R|^2 (module docstring), 0 where |R| = 0.
    """
    p = np.asarray(p, np.float64)
    expected, gradient, second_order = ap_numerator_terms(p)
    variance = (p * (1.0 - p) * gradient * gradient).sum(axis=-1) + second_order
    denominator = p.sum(axis=-1) if n_relevant is None else np.asarray(n_relevant, np.float64)
    return _safe_divide(expected, denominator), _safe_divide(variance, denominator * denominator)


def numerator_variance(coefficients: np.ndarray, p: np.ndarray) -> np.ndarray:
    r"""Var[N] for N = sum_i c_ii X_i + sum_{i<j} c_ij X_i X_j with a general symmetric coefficient matrix.

    Derivation: with Z_i = X_i - p_i, X_i X_j = p_i p_j + p_j Z_i + p_i Z_j + Z_i Z_j, so

        N = E[N] + sum_i (c_ii + sum_{j != i} c_ij p_j) Z_i + sum_{i<j} c_ij Z_i Z_j.

    The Z_i and Z_i Z_j (i<j) are uncorrelated with Var[Z_i] = p_i q_i and Var[Z_i Z_j] = p_i q_i p_j q_j, hence

        Var[N] = sum_i p_i q_i (c_ii + sum_{j != i} c_ij p_j)^2 + sum_{i<j} c_ij^2 p_i q_i p_j q_j.

    O(n^2); ``coefficients`` (..., n, n) symmetric, ``p`` (..., n).
    """
    c = np.asarray(coefficients, np.float64)
    p = np.asarray(p, np.float64)
    w = p * (1.0 - p)
    diagonal = np.diagonal(c, axis1=-2, axis2=-1)
    gradient = diagonal + np.einsum("...ij,...j->...i", c, p) - diagonal * p
    off = c - np.eye(c.shape[-1]) * diagonal[..., None, :]
    second = 0.5 * np.einsum("...i,...ij,...j->...", w, off * off, w)
    return (w * gradient * gradient).sum(axis=-1) + second


# ----------------------------------------------------------------------------------------------------------------
# direct transcriptions (teaching, tests)
# ----------------------------------------------------------------------------------------------------------------


def ap_coefficients(ranks) -> np.ndarray:
    """The coefficient matrix a_ij = 1 / max(r(i), r(j)) for documents with 1-based ``ranks`` (0 = unranked,
    giving a zero row and column). Symmetric (the paper uses the upper triangle j >= i)."""
    r = np.asarray(ranks, np.float64)
    m = np.maximum(r[..., :, None], r[..., None, :])
    ranked = (r[..., :, None] > 0) & (r[..., None, :] > 0)
    return np.where(ranked, 1.0 / np.where(m > 0, m, 1.0), 0.0)


def numerator_moments_reference(coefficients, p):
    """E[N] and Var[N] by the paper's formulas written out as plain loops (O(n^3)): the reference the fast code is
    tested against. ``coefficients`` (n, n) symmetric (a_ij or c_ij = a_ij - b_ij), ``p`` (n,)."""
    c = np.asarray(coefficients, np.float64)
    p = np.asarray(p, np.float64)
    n = len(p)
    q = 1.0 - p
    expected = 0.0
    for i in range(n):
        expected += c[i, i] * p[i]
        for j in range(i + 1, n):
            expected += c[i, j] * p[i] * p[j]
    variance = 0.0
    for i in range(n):  # sum_i a_ii^2 p_i q_i
        variance += c[i, i] ** 2 * p[i] * q[i]
    for i in range(n):  # sum_{j>i} a_ij^2 p_i p_j (1 - p_i p_j)
        for j in range(i + 1, n):
            variance += c[i, j] ** 2 * p[i] * p[j] * (1.0 - p[i] * p[j])
    for i in range(n):  # sum_{i != j} 2 a_ii a_ij p_i p_j (1 - p_i)
        for j in range(n):
            if j != i:
                variance += 2.0 * c[i, i] * c[i, j] * p[i] * p[j] * (1.0 - p[i])
    for i in range(n):  # sum_{k > j != i} 2 a_ij a_ik p_i p_j p_k (1 - p_i)
        for j in range(n):
            if j == i:
                continue
            for k in range(j + 1, n):
                if k == i:
                    continue
                variance += 2.0 * c[i, j] * c[i, k] * p[i] * p[j] * p[k] * (1.0 - p[i])
    return expected, variance


def ap_moments_reference(coefficients, p, n_relevant=None):
    """E[AP], Var[AP] from the paper's formulas as plain loops (O(n^3)); see :func:`numerator_moments_reference`."""
    expected, variance = numerator_moments_reference(coefficients, p)
    denominator = float(np.sum(p)) if n_relevant is None else float(n_relevant)
    if denominator <= 0:
        return 0.0, 0.0
    return expected / denominator, variance / denominator**2


def delta_ap_moments_reference(ranks_a, ranks_b, p, n_relevant=None):
    """E[dAP], Var[dAP] through the explicit c_ij = a_ij - b_ij matrix and the paper's four sums (O(n^3))."""
    c = ap_coefficients(ranks_a) - ap_coefficients(ranks_b)
    return ap_moments_reference(c, p, n_relevant)


def exact_numerator_moments(coefficients, p):
    """E[N], Var[N] by enumerating all 2^n relevance assignments (n <= ~16); the ground truth for tests."""
    c = np.asarray(coefficients, np.float64)
    p = np.asarray(p, np.float64)
    n = len(p)
    upper = np.triu(c)
    mean = second = 0.0
    for bits in itertools.product((0.0, 1.0), repeat=n):
        x = np.asarray(bits)
        weight = np.prod(np.where(x > 0, p, 1.0 - p))
        value = x @ upper @ x
        mean += weight * value
        second += weight * value * value
    return mean, second - mean * mean


# ----------------------------------------------------------------------------------------------------------------
# delta AP between two rankings over a shared universe
# ----------------------------------------------------------------------------------------------------------------


def cross_term(w_by_rank_a: np.ndarray, rank_in_b: np.ndarray, max_elements: int = 1 << 21) -> np.ndarray:
    """sum_{i<j} a_ij b_ij w_i w_j over documents ranked by both runs (the cross sum of Var[dAP]), vectorized.

    ``w_by_rank_a[..., r]`` is w = p q of the document at rank r+1 of ranking a; ``rank_in_b[..., r]`` its 1-based
    rank in ranking b (0 if b does not rank it). Only the m documents ranked by both with w > 0 enter, so the cost
    is O(m^2) per ranking pair: they are compacted to the front (in a's rank order), rows are grouped by m, and
    each group is processed in chunks of at most ``max_elements`` matrix entries. In a's rank order
    max(ra_i, ra_j) = ra_j for i < j, so the sum is sum_j (w_j / ra_j) sum_{i<j} w_i / max(rb_i, rb_j).
    """
    w = np.asarray(w_by_rank_a, np.float64)
    rb = np.asarray(rank_in_b, np.float64)
    lead = np.broadcast_shapes(w.shape[:-1], rb.shape[:-1])
    n = w.shape[-1]
    w = np.broadcast_to(w, lead + (n,)).reshape(-1, n)
    rb = np.broadcast_to(rb, lead + (n,)).reshape(-1, n)
    keep = (rb > 0) & (w > 0)
    counts = keep.sum(axis=1)
    out = np.zeros(len(w))
    rows_all = np.flatnonzero(counts >= 2)
    if not len(rows_all):
        return out.reshape(lead)
    # compact every row's kept entries to the front, in rank order
    kept_w = w[rows_all]
    kept_rb = rb[rows_all]
    kept = keep[rows_all]
    order = np.argsort(~kept, axis=1, kind="stable")
    m_all = counts[rows_all]
    wc_all = np.take_along_axis(np.where(kept, kept_w, 0.0), order, axis=1)
    rbc_all = np.take_along_axis(np.where(kept, kept_rb, np.inf), order, axis=1)
    ra_all = (order + 1).astype(np.float64)
    for m in np.unique(m_all):
        group = np.flatnonzero(m_all == m)
        m = int(m)
        upper = np.triu(np.ones((m, m)), k=1)
        size = max(1, max_elements // (m * m))
        for chunk in range(0, len(group), size):
            sel = group[chunk:chunk + size]
            wc = wc_all[sel, :m]
            rbc = rbc_all[sel, :m]
            inner = wc[:, :, None] / np.maximum(rbc[:, :, None], rbc[:, None, :])  # [k, i, j] = w_i / max(rb_i, rb_j)
            inner = (inner * upper).sum(axis=1)  # sum over i < j
            out[rows_all[sel]] = (inner * wc / ra_all[sel, :m]).sum(axis=1)
    return out.reshape(lead)


def delta_ap_moments(index_a, index_b, p, n_relevant=None):
    """E[dAP] and Var[dAP] for pairs of rankings over a shared universe of documents.

    Parameters
    ----------
    index_a, index_b : (..., n) int, position in the universe (last axis of ``p``) of the document at each rank
        of rankings a and b; -1 past the end. No document may repeat within a ranking.
    p : (..., U) relevance probabilities of the universe's documents (broadcast against the leading axes).
    n_relevant : (...) |R|; default ``p.sum(-1)``.

    Returns
    -------
    (expected, variance) of dAP = AP_a - AP_b (module docstring), 0 where |R| = 0.
    """
    index_a = np.asarray(index_a)
    index_b = np.asarray(index_b)
    p = np.asarray(p, np.float64)
    lead = np.broadcast_shapes(index_a.shape[:-1], index_b.shape[:-1], p.shape[:-1])
    n_universe = p.shape[-1]
    p = np.broadcast_to(p, lead + (n_universe,))
    p_ext = np.concatenate([p, np.zeros(lead + (1,))], axis=-1)  # position U: "absent", p = 0
    ia = np.where(np.broadcast_to(index_a, lead + index_a.shape[-1:]) < 0, n_universe, np.broadcast_to(index_a, lead + index_a.shape[-1:]))
    ib = np.where(np.broadcast_to(index_b, lead + index_b.shape[-1:]) < 0, n_universe, np.broadcast_to(index_b, lead + index_b.shape[-1:]))
    pa = np.take_along_axis(p_ext, ia, axis=-1)
    pb = np.take_along_axis(p_ext, ib, axis=-1)
    ea, ga, soa = ap_numerator_terms(pa)
    eb, gb, sob = ap_numerator_terms(pb)
    grad = np.zeros(lead + (n_universe + 1,))
    np.put_along_axis(grad, ia, np.where(ia < n_universe, ga, 0.0), axis=-1)
    grad_b = np.zeros(lead + (n_universe + 1,))
    np.put_along_axis(grad_b, ib, np.where(ib < n_universe, gb, 0.0), axis=-1)
    diff = (grad - grad_b)[..., :n_universe]
    w = p * (1.0 - p)
    rank_b = np.zeros(lead + (n_universe + 1,))
    np.put_along_axis(rank_b, ib, np.broadcast_to(np.arange(1, ib.shape[-1] + 1, dtype=np.float64), ib.shape), axis=-1)
    rank_b[..., n_universe] = 0.0
    rb_of_a = np.take_along_axis(rank_b, ia, axis=-1)
    variance = (w * diff * diff).sum(axis=-1) + soa + sob - 2.0 * cross_term(pa * (1.0 - pa), rb_of_a)
    variance = np.maximum(variance, 0.0)
    denominator = p.sum(axis=-1) if n_relevant is None else np.asarray(n_relevant, np.float64)
    return _safe_divide(ea - eb, denominator), _safe_divide(variance, denominator * denominator)


# ----------------------------------------------------------------------------------------------------------------
# MAP and confidence
# ----------------------------------------------------------------------------------------------------------------


def map_moments(expected_ap, variance_ap, axis: int = -1):
    """Eq. (1): EMAP = mean over topics of E[AP_t], VMAP = sum over topics of Var[AP_t] / T^2 (topics independent).
    Works equally for dAP -> dMAP."""
    expected_ap = np.asarray(expected_ap, np.float64)
    variance_ap = np.asarray(variance_ap, np.float64)
    n_topics = expected_ap.shape[axis]
    return expected_ap.mean(axis=axis), variance_ap.sum(axis=axis) / float(n_topics) ** 2


def prob_negative(mean, variance):
    """P(X < 0) for X ~ Normal(mean, variance): Phi(-mean / sqrt(variance)). With zero variance the
    distribution is a point mass: 1 if mean < 0, 0 if mean > 0, 0.5 if mean == 0."""
    mean = np.asarray(mean, np.float64)
    variance = np.asarray(variance, np.float64)
    sd = np.sqrt(np.maximum(variance, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(sd > 0, -mean / np.where(sd > 0, sd, 1.0), np.where(mean < 0, np.inf, np.where(mean > 0, -np.inf, 0.0)))
    out = special.ndtr(z)
    return out if out.ndim else float(out)
