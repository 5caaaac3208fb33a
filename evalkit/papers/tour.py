"""The tour notebook's study: how scores and system rankings change as the pool gets shallower.

Pooling (Sparck Jones & van Rijsbergen 1975; TREC's practice): judge the union of the top ``depth`` documents of
the contributing runs, treat everything else as nonrelevant. Zobel (1998) and Buckley & Voorhees (2004) showed
that shallower pools lower every run's score but keep the ranking of systems largely intact; this module measures
both on any collection.

* :func:`plan`: what the tour needs (2 judged runs, pool depths within the judged depth) and the depths it uses;
* :func:`pool_depth_study`, :func:`pooled_scores`: the study;
* :func:`trec_eval_agreement`: the kit's standard measures against trec_eval itself (pytrec_eval) on the loaded
  collection, the evidence behind the tour's "evalkit equals trec_eval" claim;
* :func:`claims`: the tour's paper-versus-kit rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalkit.data.collection import Collection
from evalkit.data.pools import pool
from evalkit.measures.evaluation import score_matrix
from evalkit.papers.needs import (
    Plan,
    judged_depth_of,
    require,
    require_judged_depth,
    require_judged_runs,
    scale_depth,
)
from evalkit.stats import kendall_tau, rms_error

__all__ = ["DEFAULT_POOL_DEPTHS", "TREC_EVAL_MEASURES", "plan", "pooled_scores", "pool_depth_study",
           "trec_eval_agreement", "claims"]

#: the pool depths of the study (TREC-8's pools are 100 deep)
DEFAULT_POOL_DEPTHS = (1, 2, 5, 10, 20, 50, 100)
#: the kit's measure name -> trec_eval's (pytrec_eval) name, as the test suite compares them
TREC_EVAL_MEASURES = {"AP": "map", "P@10": "P_10", "Rprec": "Rprec", "nDCG": "ndcg", "nDCG@100": "ndcg_cut_100",
                      "Bpref": "bpref"}


def plan(collection: Collection, pool_depths=DEFAULT_POOL_DEPTHS, slider_depth: int = 10) -> Plan:
    """The tour's needs and settings on ``collection``.

    Needs at least 2 judged runs (a pool of one run says nothing about pooling; Kendall's tau needs 2 runs) and
    pool depths no deeper than the judged depth. The default depths are cut at the judged depth, which is added
    as the last depth (the full pool); depths the user set are checked. The depth-10 figure and the slider start
    at depth 10 scaled to the judged depth (:func:`evalkit.papers.needs.scale_depth`) and the slider ends at it.
    Parameters: ``pool_depths``, ``slider_depth``, ``max_depth`` (the judged depth, capped at the run depth),
    ``shallow_depth`` (the depth the claim reads: the deepest studied depth <= 10 scaled to the judged depth).
    """
    require_judged_runs(collection, 2, "to pool from")
    judged = judged_depth_of(collection)
    require(judged is not None, "judgments for the first rank of every judged run", "none",
            "Check the qrels file: the judged runs' first documents are not in it.")
    top = min(judged, collection.depth)
    notes = []
    depths = [int(d) for d in pool_depths]
    if tuple(depths) == DEFAULT_POOL_DEPTHS:
        kept = [d for d in depths if d <= top]
        dropped = [d for d in depths if d > top]
        if dropped:
            kept = kept + ([top] if top not in kept else [])
            notes.append(f"pool depths cut at the judged depth {top}: {kept} (dropped {dropped})")
        depths = kept
    else:
        require_judged_depth(collection, max(depths), "pool_depths")
    shallow = max([d for d in depths if d <= scale_depth(10, top)] or [min(depths)])
    if slider_depth == 10:
        slider = min(scale_depth(10, top), top)
        if slider != 10:
            notes.append(f"the depth-10 figure and the slider use depth {slider} (10 of 100, scaled)")
    else:
        require_judged_depth(collection, slider_depth, "slider_depth")
        slider = int(slider_depth)
    return Plan("00_tour", collection.name, {"pool_depths": depths, "slider_depth": slider, "max_depth": top,
                                             "shallow_depth": shallow}, notes)


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
    ``reason``, when pytrec_eval is not importable), ``runs`` (checked), ``n_runs``, ``topics``, ``pairs`` (scores
    compared), ``measures``, ``max_abs_diff`` and ``worst`` (the measure with the largest difference), and the
    pytrec_eval ``version``.
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
    return {"checked": True, "runs": len(picked), "n_runs": collection.n_runs, "topics": collection.n_topics,
            "pairs": pairs, "measures": measures, "max_abs_diff": diffs[worst], "worst": worst,
            "version": pytrec_version}


def pool_depth_explorer(collection, measure: str = "AP", max_depth: int = 100, initial: int = 10):
    """Slider over the pool depth: re-pools the judged runs, re-scores every run, plots pooled against full."""
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from evalkit.display.plots import estimate_vs_truth
    from evalkit.display.widgets import interactive_figure

    truth = score_matrix(collection, measure).mean(axis=1)
    judged = collection.judged_runs

    def draw(depth):
        scores, n_judged = pooled_scores(collection, depth, measure)
        fig, ax = plt.subplots(figsize=(5.5, 5))
        estimate_vs_truth(truth, scores.mean(axis=1), judged, xlabel=f"{measure}, full qrels",
                          ylabel=f"{measure}, depth-{depth} pool", ax=ax,
                          title=f"depth {depth}: {n_judged:,} judgments")
        plt.show()

    depth = widgets.IntSlider(value=initial, min=1, max=min(max_depth, collection.depth), description="pool depth",
                              continuous_update=False)
    return interactive_figure(draw, depth=depth)


def claims(collection: Collection, study: pd.DataFrame, settings: Plan, agreement: dict, measure: str = "AP"
           ) -> list:
    """The tour's paper-versus-kit rows (:class:`evalkit.claims.Claim`): TREC-8's qrels size (a TREC-8 value),
    shallow pools keep the ranking (a direction, Voorhees 2014 on TREC-8), and the trec_eval check run now."""
    from evalkit.claims import THIS_COLLECTION, Claim

    by_depth = study.set_index("depth")
    deepest = int(by_depth.index.max())
    shallow = settings["shallow_depth"]
    n_judged = int(collection.judged_runs.sum())
    tau = by_depth.loc[shallow, "kendall tau"]
    rows = [
        Claim("TREC-8 (data README)", "the qrels are the depth-100 pool of the runs that contributed to the pools",
              "86,830 judgments", f"{by_depth.loc[deepest, 'judgments']:,} judgments in the depth-{deepest} pool of "
              f"the {n_judged} judged runs", collection.name,
              "yes" if by_depth.loc[deepest, "judgments"] == 86830 else "no", paper_dataset="TREC-8"),
        Claim("Voorhees 2014, Sec. 1", "shallow pools still rank systems much as the full judgments do",
              "pool15 / pool25 are competitive sampling strategies",
              f"Kendall tau {tau:.3f} for {measure} at pool depth {shallow} of {settings['max_depth']} "
              f"({by_depth.loc[shallow, 'share of qrels']:.0%} of the judgments)", collection.name,
              "yes" if tau > 0.9 else "partly", paper_dataset="TREC-8", kind="direction"),
    ]
    if agreement.get("checked"):
        text = (f"max |difference| {agreement['max_abs_diff']:.1e} ({agreement['worst']}) over "
                f"{agreement['pairs']:,} scores: {agreement['runs']} of {agreement['n_runs']} runs x "
                f"{agreement['topics']} topics x {len(agreement['measures'])} measures, pytrec_eval "
                f"{agreement['version']} run now")
        rating = "yes" if agreement["max_abs_diff"] <= 1e-9 else "no"
    else:
        text, rating = f"could not check: {agreement.get('reason', '?')}", ""
    rows.append(Claim("trec_eval 9 (via pytrec_eval)",
                      "evalkit's " + ", ".join(agreement.get("measures", TREC_EVAL_MEASURES)) + " equal trec_eval",
                      "identical to 1e-9", text, collection.name, rating, paper_dataset=THIS_COLLECTION,
                      min_runs=1, min_topics=1))
    return rows


# ------------------------------------------------------------------------------------------ run-size presets

#: the tour runs in seconds at every size: the presets change nothing but are accepted, as in every notebook
PRESETS = {"paper": {}, "class": {}, "fast": {}}


def settings(preset: str = "paper", fast: bool = False, **given):
    """The tour's sizes (:func:`evalkit.papers.settings.resolve`; the same for every preset)."""
    from evalkit.papers.settings import resolve

    return resolve(PRESETS, preset, fast, **given)


__all__ += ["PRESETS", "settings"]
