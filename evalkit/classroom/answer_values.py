"""The numbers the exercises and the model answers are computed from: each a pure function of the objects a
notebook passes (its collection, its experiment's result), so an expected answer and a model answer's numbers are
those of the run the student made, on TREC-8, the synthetic collection or any folder of runs.

:mod:`evalkit.classroom.exercises` (the checks) and :mod:`evalkit.classroom.model_answers` (the instructors'
answers) both read these; neither imports the other's internals.
"""

from __future__ import annotations

import numpy as np


def tour_tau(collection, depth, measure="P@10"):
    from evalkit.papers import tour

    study = tour.pool_depth_study(collection, [int(depth)], measure=measure)
    return float(study["kendall tau"].iloc[0])


def tour_score_changes(collection, depth, measure):
    """Each run's mean ``measure`` on the full qrels and on the depth-``depth`` pool of the judged runs."""
    from evalkit.measures.evaluation import score_matrix
    from evalkit.papers import tour

    full = score_matrix(collection, measure).mean(axis=1)
    shallow, _ = tour.pooled_scores(collection, int(depth), measure)
    return full, shallow.mean(axis=1)


def tour_biggest_losers(collection, depth, measure="P@10"):
    """The runs whose mean ``measure`` drops the most on the depth-``depth`` pool (all of them if tied)."""
    full, shallow = tour_score_changes(collection, depth, measure)
    drop = full - shallow
    return tuple(collection.run_names[i] for i in np.flatnonzero(drop >= drop.max() - 1e-12))


def voorhees_relative_bias(result, strategy="pool25"):
    r = result.r_hat
    part = r[(r.strategy == strategy) & (r.gold_R > 0)]
    return float(((part.r_hat - part.gold_R) / part.gold_R).groupby(part.topic, observed=True).mean().mean())


def voorhees_most_biased(result):
    r = result.r_hat[result.r_hat.gold_R > 0]
    bias = ((r.r_hat - r.gold_R) / r.gold_R).groupby(r.strategy, observed=True).mean()
    return str(bias.idxmin())


def soboroff_capped(sample):
    return int(sample.table.capped.sum())


def lu_best_estimator(t2, depth, theta=0.018):
    rows = t2[(t2.depth == depth) & (np.isclose(t2.theta.astype(float), theta) | t2.theta.isna())]
    return str(rows.loc[rows.rmse.idxmin(), "estimator"])


def yilmaz_rms_unjudged(fig2, k):
    part = fig2[(fig2.k == k) & ~fig2.judged.astype(bool)]
    return float(np.sqrt(np.mean((part.mean_xinfAP - part.MAP) ** 2))) if len(part) else float("nan")


def carterette_top_accuracy(results, algorithm="rtc", level=0.95):
    """Accuracy of the pairs whose confidence max(P, 1 - P) is at least ``level`` (Sec. 4.4: the sign predicted
    is negative when P(dMAP < 0) >= 0.5; pairs with a true dMAP of 0 are left out, as in Table 2)."""
    p = results.pairs[f"p_{algorithm}"].to_numpy(float)
    truth = results.pairs["true_delta"].to_numpy(float)
    negative = p >= 0.5
    confidence = np.where(negative, p, 1 - p)
    correct = np.where(negative, truth < 0, truth > 0)
    chosen = (truth != 0) & (confidence >= level)
    return float(correct[chosen].mean()) if chosen.any() else float("nan")


def planner_topics_at_power(variances, measure, delta, alpha, power):
    """Topics at power 0.9 (the notebook's ``power`` is not the exercise's)."""
    from evalkit.planning.topic_set_size import ttest_topics

    return float(ttest_topics(delta, variances.loc[measure, "paired"], alpha, 0.9))


def planner_detectable(variances, measure, delta, alpha, power, topics=50):
    from evalkit.planning.topic_set_size import detectable_difference

    return float(detectable_difference(topics, variances.loc[measure, "paired"], alpha, power))
