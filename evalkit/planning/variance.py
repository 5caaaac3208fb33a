"""Within-system variance of a topic-by-run score matrix: what topic set size design needs from a past collection.

Sakai, "Topic set size design", Information Retrieval Journal 19 (2016) 256-283, plans the number of topics of a
new collection from the *within-system* population variance sigma^2 of a measure, estimated from a past
collection's scores ``x[i, j]`` (system i = 1..m, topic j = 1..n). Its point (its abstract: an earlier estimate
"incorrectly used estimates of the total variances") is that the spread of a system's scores that matters is what
is left after the topic effect and the system effect are taken out, not the total spread of all scores.

Two-way ANOVA without replication (systems x topics, one score a cell), the model
``x_ij = mu + a_i + b_j + e_ij`` with ``e_ij ~ N(0, sigma^2)``::

    SS_T = sum_ij (x_ij - x..)^2                          df_T = mn - 1
    SS_A = n sum_i (x_i. - x..)^2                         df_A = m - 1          (systems)
    SS_B = m sum_j (x_.j - x..)^2                         df_B = n - 1          (topics)
    SS_E = SS_T - SS_A - SS_B
         = sum_ij (x_ij - x_i. - x_.j + x..)^2            df_E = (m - 1)(n - 1)
    V_E  = SS_E / df_E                                    the paired (two-way residual) estimate of sigma^2

(x_i. the system means, x_.j the topic means, x.. the grand mean). For paired designs (every system run on the
same topics: the paired t-test, the CI of a paired difference) the per-topic difference of two systems is
``a_1 - a_2 + e_1j - e_2j`` and has variance ``2 sigma^2``: the topic effect cancels.

One-way ANOVA (systems only; the *unpaired* variants, where each system would be run on its own topic set, and
Sakai's one-way ANOVA-based design)::

    SS_W = sum_ij (x_ij - x_i.)^2                         df_W = m (n - 1)
    V_W  = SS_W / df_W                                    the pooled within-system variance (topic effect kept)

and the *total* variance ``SS_T / df_T`` (what the earlier estimate used) for comparison. Everything is
vectorized over the matrix; a NaN anywhere is refused by name (a topic no design could score has no variance).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["two_way_anova", "within_system_variance", "total_variance", "variance_estimates",
           "as_score_matrix"]


def as_score_matrix(scores, name: str = "scores") -> np.ndarray:
    """``scores`` as a float64 (systems, topics) matrix with at least 2 systems and 2 topics, all finite; a
    ValueError names what is wrong (the first non-finite cell by system and topic index)."""
    matrix = np.asarray(scores, dtype=np.float64)
    if matrix.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix scores[system, topic]; got shape {matrix.shape}")
    if matrix.shape[0] < 2 or matrix.shape[1] < 2:
        raise ValueError(f"{name} needs at least 2 systems and 2 topics for a variance; got shape {matrix.shape}")
    bad = ~np.isfinite(matrix)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(f"{name}: {int(bad.sum())} non-finite value(s), the first at system {i}, topic {j} "
                         f"({matrix[i, j]}); a topic no run can be scored on has no variance: leave it out")
    return matrix



def two_way_anova(scores) -> pd.DataFrame:
    """The two-way ANOVA without replication of ``scores[system, topic]`` (module docstring): one row per source
    (``system``, ``topic``, ``residual``, ``total``) with ``SS``, ``df``, ``MS`` (= SS / df) and, for the system
    and topic rows, ``F`` (= MS / MS_residual). ``MS`` of the residual row is V_E, the paired within-system
    variance estimate of Sakai (2016)."""
    x = as_score_matrix(scores)
    m, n = x.shape
    grand = x.mean()
    system_means = x.mean(axis=1)
    topic_means = x.mean(axis=0)
    ss_total = float(((x - grand) ** 2).sum())
    ss_system = float(n * ((system_means - grand) ** 2).sum())
    ss_topic = float(m * ((topic_means - grand) ** 2).sum())
    residual = x - system_means[:, None] - topic_means[None, :] + grand
    ss_residual = float((residual ** 2).sum())  # computed directly, not by subtraction (no cancellation)
    df = {"system": m - 1, "topic": n - 1, "residual": (m - 1) * (n - 1), "total": m * n - 1}
    ss = {"system": ss_system, "topic": ss_topic, "residual": ss_residual, "total": ss_total}
    frame = pd.DataFrame({"SS": ss, "df": df}).rename_axis("source")
    frame["MS"] = frame["SS"] / frame["df"]
    ms_e = frame.loc["residual", "MS"]
    frame["F"] = np.nan
    if ms_e > 0:
        frame.loc[["system", "topic"], "F"] = frame.loc[["system", "topic"], "MS"] / ms_e
    return frame


def within_system_variance(scores, paired: bool = True) -> float:
    """Sakai (2016)'s estimate of the within-system variance sigma^2: with ``paired`` the residual mean square V_E
    of the two-way ANOVA without replication, ``sum (x_ij - x_i. - x_.j + x..)^2 / ((m - 1)(n - 1))``; without,
    the pooled within-system variance of the one-way ANOVA, ``sum (x_ij - x_i.)^2 / (m (n - 1))`` (the unpaired
    variants: the topic effect is part of the noise)."""
    x = as_score_matrix(scores)
    m, n = x.shape
    if paired:
        residual = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
        return float((residual ** 2).sum() / ((m - 1) * (n - 1)))
    return float(((x - x.mean(axis=1, keepdims=True)) ** 2).sum() / (m * (n - 1)))


def total_variance(scores) -> float:
    """The total variance of all scores, ``sum (x_ij - x..)^2 / (mn - 1)``: the estimate Sakai (2016) corrects
    (kept to show how much larger it is)."""
    x = as_score_matrix(scores)
    return float(((x - x.mean()) ** 2).sum() / (x.size - 1))


def variance_estimates(scores) -> pd.DataFrame:
    """One row per estimate of sigma^2 of ``scores``: ``paired`` (two-way residual V_E), ``unpaired`` (one-way
    V_W) and ``total``, with the degrees of freedom behind each and the share of the total sum of squares each
    leaves (the topic and system effects removed)."""
    x = as_score_matrix(scores)
    m, n = x.shape
    table = two_way_anova(x)
    ss_total = table.loc["total", "SS"]
    ss_within = table.loc["residual", "SS"] + table.loc["topic", "SS"]
    rows = [
        {"estimate": "paired", "variance": within_system_variance(x, True), "df": (m - 1) * (n - 1),
         "share of SS_T": table.loc["residual", "SS"] / ss_total if ss_total else np.nan,
         "what": "two-way ANOVA residual V_E (topic and system effects removed)"},
        {"estimate": "unpaired", "variance": within_system_variance(x, False), "df": m * (n - 1),
         "share of SS_T": ss_within / ss_total if ss_total else np.nan,
         "what": "one-way ANOVA within-system V_W (system effect removed)"},
        {"estimate": "total", "variance": total_variance(x), "df": m * n - 1, "share of SS_T": 1.0,
         "what": "all scores around the grand mean (the estimate Sakai 2016 corrects)"},
    ]
    return pd.DataFrame(rows).set_index("estimate")
