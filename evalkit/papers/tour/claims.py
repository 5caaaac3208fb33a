"""The tour's paper-versus-kit rows."""

from __future__ import annotations

import pandas as pd

from evalkit.claims import THIS_COLLECTION, Claim
from evalkit.data.collection import Collection
from evalkit.papers.needs import Plan
from evalkit.papers.tour.experiment import TREC_EVAL_MEASURES
from evalkit.papers.tour.paper import PAPER_DATASET, TREC8_JUDGMENTS

__all__ = ["claims"]


def claims(collection: Collection, study: pd.DataFrame, settings: Plan, agreement: dict, measure: str = "AP"
           ) -> list:
    """The tour's paper-versus-kit rows (:class:`evalkit.claims.Claim`): TREC-8's qrels size (a TREC-8 value),
    shallow pools keep the ranking (a direction, Voorhees 2014 on TREC-8), and the trec_eval check run now."""
    by_depth = study.set_index("depth")
    deepest = int(by_depth.index.max())
    shallow = settings["shallow_depth"]
    n_judged = int(collection.judged_runs.sum())
    tau = by_depth.loc[shallow, "kendall tau"]
    rows = [
        Claim("TREC-8 (data README)", "the qrels are the depth-100 pool of the runs that contributed to the pools",
              "86,830 judgments", f"{by_depth.loc[deepest, 'judgments']:,} judgments in the depth-{deepest} pool of "
              f"the {n_judged} judged runs", collection.name,
              "yes" if by_depth.loc[deepest, "judgments"] == TREC8_JUDGMENTS else "no", paper_dataset=PAPER_DATASET),
        Claim("Voorhees 2014, Sec. 1", "shallow pools still rank systems much as the full judgments do",
              "pool15 / pool25 are competitive sampling strategies",
              f"Kendall tau {tau:.3f} for {measure} at pool depth {shallow} of {settings['max_depth']} "
              f"({by_depth.loc[shallow, 'share of qrels']:.0%} of the judgments)", collection.name,
              "yes" if tau > 0.9 else "partly", paper_dataset=PAPER_DATASET, kind="direction"),
    ]
    if agreement.get("checked"):
        text = (f"max |difference| {agreement['max_abs_diff']:.1e} ({agreement['worst']}) over "
                f"{agreement['pairs']:,} scores: {agreement['run_topics']:,} (run, topic) pairs x "
                f"{len(agreement['measures'])} measures, from {agreement['runs']} of {agreement['n_runs']} runs and "
                f"{agreement['topics']} of {agreement['n_topics']} topics (trec_eval scores a run on the topics it "
                f"retrieved documents for), pytrec_eval {agreement['version']} run now")
        rating = "yes" if agreement["max_abs_diff"] <= 1e-9 else "no"
    else:
        text, rating = f"could not check: {agreement.get('reason', '?')}", ""
    rows.append(Claim("trec_eval 9 (via pytrec_eval)",
                      "evalkit's " + ", ".join(agreement.get("measures", TREC_EVAL_MEASURES)) + " equal trec_eval",
                      "identical to 1e-9", text, collection.name, rating, paper_dataset=THIS_COLLECTION,
                      min_runs=1, min_topics=1))
    return rows
