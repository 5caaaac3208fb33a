"""The tour notebook's study: how scores and system rankings change as the pool gets shallower.

Pooling (Sparck Jones & van Rijsbergen 1975; TREC's practice): judge the union of the top ``depth`` documents of
the contributing runs, treat everything else as nonrelevant. Zobel (1998) and Buckley & Voorhees (2004) showed
that shallower pools lower every run's score but keep the ranking of systems largely intact; this module measures
both on any collection.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..collection import Collection
from ..evaluation import score_matrix
from ..sampling import pool
from ..stats import kendall_tau, rms_error

__all__ = ["pooled_scores", "pool_depth_study"]


def pooled_scores(collection: Collection, depth: int, measure: str = "AP", runs=None) -> tuple[np.ndarray, int]:
    """(runs, topics) scores of ``measure`` when only the depth-``depth`` pool of ``runs`` (default: judged runs)
    is judged, and the number of judgments that pool needs."""
    judged = pool(collection, depth, runs).judged_set(collection.qrels)
    return score_matrix(collection, measure, judged), int((judged.grade >= 0).sum())


def pool_depth_study(collection: Collection, depths=(1, 2, 5, 10, 20, 50, 100), measure: str = "AP",
                     runs=None) -> pd.DataFrame:
    """Per pool depth: judgments needed, mean score drop, Kendall's tau and RMS error of the run means against the
    full qrels."""
    truth = score_matrix(collection, measure).mean(axis=1)
    rows = []
    for depth in depths:
        scores, n_judged = pooled_scores(collection, depth, measure, runs)
        mean = scores.mean(axis=1)
        rows.append({
            "depth": depth,
            "judgments": n_judged,
            "share of qrels": n_judged / max(int((collection.qrels.grade >= 0).sum()), 1),
            f"mean {measure} (full qrels)": truth.mean(),
            f"mean {measure} (pool)": mean.mean(),
            "kendall tau": kendall_tau(truth, mean),
            "RMS error": rms_error(truth, mean),
        })
    return pd.DataFrame(rows)
