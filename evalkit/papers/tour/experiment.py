"""The tour's study: how scores and the ranking of systems change as the pool gets shallower, and the kit's
standard measures checked against trec_eval (pytrec_eval) on the loaded collection."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalkit.data.collection import Collection
from evalkit.data.pools import pool
from evalkit.measures.evaluation import score_matrix
from evalkit.stats import kendall_tau, rms_error

__all__ = ["TREC_EVAL_MEASURES", "pooled_scores", "pool_depth_study", "trec_eval_agreement"]

#: the kit's measure name -> trec_eval's (pytrec_eval) name, as the test suite compares them
TREC_EVAL_MEASURES = {"AP": "map", "P@10": "P_10", "Rprec": "Rprec", "nDCG": "ndcg", "nDCG@100": "ndcg_cut_100",
                      "Bpref": "bpref"}


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


def trec_eval_agreement(collection: Collection, measures=tuple(TREC_EVAL_MEASURES), max_runs: int = 20) -> dict:
    """The kit's ``measures`` against trec_eval (pytrec_eval-terrier) on this collection, now.

    Up to ``max_runs`` runs (evenly spaced over the collection's runs, no randomness) x every topic; trec_eval
    scores the (run, topic) pairs where the run retrieved something. pytrec_eval embeds trec_eval 9.x, which
    compares scores in single precision; where a ranking has scores equal only in single precision (six TREC-8
    runs), the kit's order (trec_eval 10.0's, the default) is given to it as rank scores, so the measures are
    compared on the same ranking. Returns ``checked`` (False, with a
    ``reason``, when pytrec_eval is not importable), ``runs`` (checked), ``n_runs``, ``topics`` (those with a score
    compared: not a topic no checked run retrieved a document for), ``n_topics``, ``run_topics`` (the (run, topic)
    pairs compared, the same for every measure), ``pairs`` (scores compared), ``measures``, ``max_abs_diff`` and
    ``worst`` (the measure with the largest difference), and the pytrec_eval ``version``.
    """
    try:
        from importlib.metadata import version

        import pytrec_eval

        pytrec_version = version("pytrec_eval-terrier")
    except ImportError as error:  # pragma: no cover - pytrec_eval-terrier is a dependency
        return {"checked": False, "reason": f"pytrec_eval is not importable ({error})"}
    measures = list(measures)
    names = {m: TREC_EVAL_MEASURES[m] for m in measures}
    picked = np.unique(np.linspace(0, collection.n_runs - 1, min(max_runs, collection.n_runs)).round().astype(int))
    q = collection.qrels
    qrels: dict[str, dict[str, int]] = {}
    for topic, doc, grade in zip(collection.topics[q.topic], collection.vocabulary[q.doc], q.grade.tolist()):
        qrels.setdefault(str(topic), {})[str(doc)] = int(grade)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(names.values()))
    theirs = {m: np.full((len(picked), collection.n_topics), np.nan) for m in measures}
    topic_of = {str(t): i for i, t in enumerate(collection.topics)}
    for row, s in enumerate(picked):
        run = {}
        for t in range(collection.n_topics):
            docs = collection.docs[s, t]
            n = int((docs >= 0).sum())
            if n:
                scores = collection.scores[s, t, :n]
                single = scores.astype(np.float32)
                if ((single[1:] == single[:-1]) & (scores[1:] != scores[:-1])).any():
                    # scores tied in single precision only: pytrec_eval (trec_eval 9.x) would order them by docno,
                    # the kit (trec_eval 10.0, ties="float64") by score; give it the kit's order to score
                    scores = -np.arange(n, dtype=np.float64)
                run[str(collection.topics[t])] = dict(zip(collection.vocabulary[docs[:n]].tolist(),
                                                          scores.tolist()))
        for topic, values in evaluator.evaluate(run).items():
            for m in measures:
                theirs[m][row, topic_of[topic]] = values[names[m]]
    diffs = {}
    pairs = 0
    for m in measures:
        ours = score_matrix(collection, m)[picked]
        scored = ~np.isnan(theirs[m])
        pairs += int(scored.sum())
        diffs[m] = float(np.abs(ours[scored] - theirs[m][scored]).max(initial=0.0))
    worst = max(diffs, key=diffs.get)
    compared = ~np.isnan(theirs[measures[0]])
    return {"checked": True, "runs": len(picked), "n_runs": collection.n_runs,
            "topics": int(compared.any(axis=0).sum()), "n_topics": collection.n_topics,
            "run_topics": int(compared.sum()), "pairs": pairs, "measures": measures, "max_abs_diff": diffs[worst],
            "worst": worst, "version": pytrec_version}
