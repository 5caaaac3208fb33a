"""Agreement between system orderings and between estimates: Kendall's tau (and Lu, Moffat and Culpepper
(2017)'s tau distance and t-test-weighted distance), Pearson's r and the RMS error."""

from __future__ import annotations

import numpy as np

from evalkit.stats.inputs import as_matching_vectors, as_score_matrix
from evalkit.stats.significance import paired_ttests

# --------------------------------------------------------------------------------------------
# Kendall's tau and tau distance
# --------------------------------------------------------------------------------------------


def _pair_signs(values: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """sign(values[..., second] - values[..., first]) as int8, computed by comparison."""
    a = values[..., first]
    b = values[..., second]
    return (b > a).astype(np.int8) - (b < a).astype(np.int8)


def _rows_in_chunks(n_rows: int, n_pairs: int, max_elements: int = 2**22):
    chunk = max(1, max_elements // max(n_pairs, 1))
    for start in range(0, n_rows, chunk):
        yield slice(start, min(start + chunk, n_rows))


def kendall_tau_rows(x_rows, y_rows) -> np.ndarray:
    """Kendall's tau-b between ``x_rows[k]`` and ``y_rows[k]`` for every row k.

    ``x_rows`` and ``y_rows`` are (K, n) arrays (one may be 1-D, then it is compared with every
    row of the other). Tau-b, as ``scipy.stats.kendalltau(variant='b')``::

        tau_b = (C - D) / sqrt((n0 - n_x) (n0 - n_y))

    with C / D the concordant / discordant pairs, n0 = n(n-1)/2, n_x / n_y the pairs tied in x /
    in y. Computed exactly from integer pair counts (O(n^2) per row, vectorized); nan where a row
    is constant or contains nan (scipy's behaviour).
    """
    x_arr = np.asarray(x_rows, dtype=np.float64)
    y_arr = np.asarray(y_rows, dtype=np.float64)
    if x_arr.ndim == 1 and y_arr.ndim == 1:
        x_arr = x_arr[None, :]
    x_arr, y_arr = np.broadcast_arrays(np.atleast_2d(x_arr), np.atleast_2d(y_arr))
    if x_arr.ndim != 2:
        raise ValueError(f"kendall_tau_rows expects (K, n) arrays; got {x_arr.shape}")
    n_rows, n_items = x_arr.shape
    first, second = np.triu_indices(n_items, k=1)
    tau = np.empty(n_rows, dtype=np.float64)
    for rows in _rows_in_chunks(n_rows, first.size):
        sign_x = _pair_signs(x_arr[rows], first, second)
        sign_y = _pair_signs(y_arr[rows], first, second)
        concordant_minus_discordant = np.einsum("kp,kp->k", sign_x, sign_y, dtype=np.int64)
        untied_x = np.abs(sign_x).sum(axis=1, dtype=np.int64)  # n0 - n_x
        untied_y = np.abs(sign_y).sum(axis=1, dtype=np.int64)  # n0 - n_y
        with np.errstate(divide="ignore", invalid="ignore"):
            chunk_tau = concordant_minus_discordant / np.sqrt(untied_x) / np.sqrt(untied_y)
        chunk_tau = np.clip(chunk_tau, -1.0, 1.0)
        chunk_tau[(untied_x == 0) | (untied_y == 0)] = np.nan
        has_nan = np.isnan(x_arr[rows]).any(axis=1) | np.isnan(y_arr[rows]).any(axis=1)
        chunk_tau[has_nan] = np.nan
        tau[rows] = chunk_tau
    return tau


def kendall_tau(x, y) -> float:
    """Kendall's tau-b between two vectors; equals ``scipy.stats.kendalltau(x, y).statistic``.

    See :func:`kendall_tau_rows` for the formula and tie handling. Returns nan for a constant
    vector, for nan input, or for fewer than two items.
    """
    x_vec, y_vec = as_matching_vectors(x, y)
    if x_vec.size < 2:
        return float("nan")
    return float(kendall_tau_rows(x_vec, y_vec)[0])


def tau_distance(x, y) -> float:
    """Normalized Kendall tau distance (Lu, Moffat and Culpepper 2017, Sec. 5).

    With ``sigma_ij = sign(x_i - x_j)`` and ``sigma'_ij = sign(y_i - y_j)`` in {-1, 0, 1} (x and y
    are, e.g., the per-system mean scores under two measurement regimes)::

        tau_distance = |{ i < j : sigma_ij * sigma'_ij < 0 }| / (n (n - 1) / 2)

    the fraction of discordant pairs; 0 means identical orderings, 1 fully reversed.
    Ties: a pair tied in x or in y (product 0) is *not* discordant and counts only in the
    denominator, as in the paper's definition. Without ties this equals ``(1 - tau) / 2``.
    """
    x_vec, y_vec = as_matching_vectors(x, y)
    n_items = x_vec.size
    if n_items < 2:
        raise ValueError("tau_distance needs at least two items")
    if np.isnan(x_vec).any() or np.isnan(y_vec).any():
        return float("nan")
    first, second = np.triu_indices(n_items, k=1)
    products = _pair_signs(x_vec, first, second) * _pair_signs(y_vec, first, second)
    return float(np.count_nonzero(products < 0) / first.size)


# --------------------------------------------------------------------------------------------
# Lu, Moffat and Culpepper (2017), Eq. 11
# --------------------------------------------------------------------------------------------


def pairwise_relationship_strength(scores) -> np.ndarray:
    """delta_{i,j} of Lu, Moffat and Culpepper (2017, Sec. 5), for all pairs; S x S, antisymmetric.

    With S̄_i the mean score of system i over topics and p_{i,j} the p-value of a paired
    one-tailed t-test across topics for H1: S_i > S_j::

                     | 0.5 - p_{i,j}   if S̄_i > S̄_j
        delta_{i,j} = | 0               if S̄_i = S̄_j
                     | p_{j,i} - 0.5   if S̄_i < S̄_j

    so -0.5 <= delta_{i,j} <= 0.5 carries direction and strength. Because
    ``p_{j,i} = 1 - p_{i,j}`` for the t-test, both branches equal ``0.5 - p_{i,j}``, which is
    also 0 when the means are equal (t = 0); the case split is still applied on the sign of
    ``mean(S_i - S_j)`` (the numerator of the t statistic) so that identical systems get 0.
    A constant non-zero difference gives +-0.5.
    """
    tests = paired_ttests(scores)
    strength = np.where(
        tests.mean_diff > 0,
        0.5 - tests.p_greater,
        np.where(tests.mean_diff < 0, tests.p_greater.T - 0.5, 0.0),  # p_{j,i} = p_greater[j, i]
    )
    return strength


def dist(reference_scores, estimated_scores, omega=1.0) -> float:
    """Weighted ordering distance ``dist`` of Lu, Moffat and Culpepper (2017), Eq. 11.

    Eq. 11, reconstructed from the paper::

        dist = sum_{1 <= i < j <= n} omega * | delta_{i,j} - delta'_{i,j} |

    where delta_{i,j} is computed from the reference scores and delta'_{i,j} from the estimated
    scores (:func:`pairwise_relationship_strength`, one-tailed paired t-tests across topics),
    and omega >= 0 is a scaling factor. The paper uses omega = 1 in its experiments and
    suggests omega = |delta_{i,j}| (the reference strength) as an alternative. The sum is not
    normalized (the paper does not divide by the number of pairs). dist = 0 when both regimes
    agree on direction and strength for every pair.

    Parameters
    ----------
    reference_scores, estimated_scores : (S, T) score matrices of the same S systems (same
        order); the topic sets may differ.
    omega : float >= 0, an (S, S) array of per-pair weights (read at i < j), or the string
        "reference" for omega_{i,j} = |delta_{i,j}| of the reference.
    """
    reference = as_score_matrix(reference_scores, "reference_scores")
    estimated = as_score_matrix(estimated_scores, "estimated_scores")
    if reference.shape[0] != estimated.shape[0]:
        raise ValueError(
            f"reference_scores and estimated_scores must have the same systems; got {reference.shape[0]} and {estimated.shape[0]}"
        )
    delta_reference = pairwise_relationship_strength(reference)
    delta_estimated = pairwise_relationship_strength(estimated)
    n_systems = reference.shape[0]
    first, second = np.triu_indices(n_systems, k=1)
    if isinstance(omega, str):
        if omega != "reference":
            raise ValueError(f"omega must be a number, an (S, S) array or 'reference'; got {omega!r}")
        weights = np.abs(delta_reference[first, second])
    else:
        omega_arr = np.asarray(omega, dtype=np.float64)
        if omega_arr.ndim == 0:
            weights = np.full(first.size, float(omega_arr))
        elif omega_arr.shape == (n_systems, n_systems):
            weights = omega_arr[first, second]
        else:
            raise ValueError(f"omega must be a scalar or an ({n_systems}, {n_systems}) array; got shape {omega_arr.shape}")
        if np.any(weights < 0):
            raise ValueError("omega must be >= 0")
    absolute_change = np.abs(delta_reference[first, second] - delta_estimated[first, second])
    return float(np.sum(weights * absolute_change))


# --------------------------------------------------------------------------------------------
# correlation and error
# --------------------------------------------------------------------------------------------


def pearson(x, y) -> float:
    """Pearson's product-moment correlation r; equals ``scipy.stats.pearsonr(x, y).statistic``.

    ``r = <x - x̄, y - ȳ> / (||x - x̄|| ||y - ȳ||)``, clipped to [-1, 1]; nan if x or y is constant
    (scipy also returns nan, with a warning). Raises ValueError for fewer than two points.
    """
    x_vec, y_vec = as_matching_vectors(x, y)
    if x_vec.size < 2:
        raise ValueError("pearson needs at least two points")
    x_centered = x_vec - x_vec.mean()
    y_centered = y_vec - y_vec.mean()
    x_max = np.max(np.abs(x_centered))
    y_max = np.max(np.abs(y_centered))
    if x_max == 0 or y_max == 0 or np.all(x_vec == x_vec[0]) or np.all(y_vec == y_vec[0]):
        return float("nan")
    x_norm = x_max * np.linalg.norm(x_centered / x_max)
    y_norm = y_max * np.linalg.norm(y_centered / y_max)
    r = np.dot(x_centered / x_norm, y_centered / y_norm)
    return float(np.clip(r, -1.0, 1.0))


def rms_error(x, y) -> float:
    """Root mean squared error ``sqrt(mean((x - y)^2))`` between two equally shaped arrays
    (e.g. estimated vs. gold per-run mean scores, Lu et al. 2017 Sec. 6 "RMSE")."""
    x_arr = np.asarray(x, dtype=np.float64)
    y_arr = np.asarray(y, dtype=np.float64)
    if x_arr.shape != y_arr.shape:
        raise ValueError(f"x and y must have the same shape; got {x_arr.shape} and {y_arr.shape}")
    if x_arr.size == 0:
        raise ValueError("rms_error needs at least one value")
    difference = x_arr - y_arr
    return float(np.sqrt(np.mean(difference * difference)))
