"""pytrec_eval (trec_eval compiled) as the oracle: scores of a Collection's runs, per run and topic."""

from __future__ import annotations

import numpy as np

from evalkit.data.collection import Collection


def trec_eval_scores(collection: Collection, measures: set[str], qrels=None) -> dict[str, np.ndarray]:
    """{trec_eval measure: (S, T) array}, NaN where trec_eval did not score the (run, topic)."""
    import pytrec_eval

    judged = collection.qrels if qrels is None else qrels
    qrels_dict: dict[str, dict[str, int]] = {}
    for t, d, g in zip(judged.topic, judged.doc, judged.grade):
        qrels_dict.setdefault(str(collection.topics[t]), {})[str(collection.vocabulary[d])] = int(g)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, measures)
    out = {m: np.full((collection.n_runs, collection.n_topics), np.nan) for m in measures}
    for s in range(collection.n_runs):
        run = {}
        for t in range(collection.n_topics):
            row = collection.docs[s, t]
            row = row[row >= 0]
            if len(row):
                run[str(collection.topics[t])] = {
                    str(collection.vocabulary[d]): float(x) for d, x in zip(row, collection.scores[s, t, : len(row)])
                }
        for topic, values in evaluator.evaluate(run).items():
            t = collection.topic_index(topic)
            for m, v in values.items():
                out[m][s, t] = v
    return out
