"""Soboroff (2007): the paper-versus-kit claims the notebook records, each rated by a written rule on its interval
(:mod:`evalkit.papers.soboroff2007.ratings`). This paper has no computed findings text (no ``..._markdown``
function): the notebook's sentences are written from the study's tables by :mod:`evalkit.display.narrative`."""

from __future__ import annotations

from evalkit.papers.soboroff2007.paper import PAPER_ANOVA
from evalkit.papers.soboroff2007.ratings import NOT_LOWER_SHARE, PAPER_YIELD, grade_study
from evalkit.papers.soboroff2007.study import Study

__all__ = ["claims", "CLAIM_ROWS", "BEYOND"]

_DESIGN = "different collection (TB06/GOV2 vs this one); the depth is capped where judgments end"

#: key -> (the claim, the paper's value, kind, note): one row each, in the notebook's order
CLAIM_ROWS = {
    "depths": ("sample depth per topic (min-max, mean)", "57-1252, mean 314", "value", _DESIGN),
    "documents": ("sample documents (relevant) a topic", "492 (36)", "value", _DESIGN),
    "beyond": ("sampled beyond the phase-1 pool: documents (relevant) a topic", "211 (14)", "value",
               "documents follow from the rate (budget / new documents); relevant ones depend on the collection"),
    "new_topics": ("topics with >= 1 (>= 20) new relevant", "46 (10) of 50", "value", ""),
    "accuracy": ("\"our estimation procedure was in fact quite accurate\": new relevant documents per new judgment "
                 "against the target rpt", f"14 per 211 against 20 per 200 ({PAPER_YIELD:.2f} of the target)",
                 "direction", "a claim about the design, checkable on any collection; graded against TB06's own "
                 "yield, which the paper calls accurate"),
    "tau": ("Kendall's tau, MAP (pool) vs infAP (sample)", "0.8", "value", ""),
    "not_lower": ("runs whose infAP is not lower than MAP", f"4 (graded: at most {NOT_LOWER_SHARE:.0%} of the runs)",
                  "direction", ""),
    "deep_topics": ("\"any difference must come from those topics where we sampled deeply\": topics sampled at "
                    "nearly 100% show no difference", "no difference on the nearly 100% topics", "direction",
                    "per topic, the mean over runs of |infAP on the sample - AP on the phase-1 pool|, averaged over "
                    "the draws"),
    "logo": ("leave one group out: infAP ranks move less than MAP ranks, scores change similarly",
             "qualitative (table not in the text)", "direction", ""),
    "anova_replicates": ("ANOVA over the subsamples: sample effect (infAP ~ topic + sample, runs as replicates)",
                         "not significant at 0.05", "direction",
                         "runs share each subsample's qrels, so they are not independent replicates"),
    "anova_mixed": ("ANOVA: sample effect tested against the topic x sample interaction", "not significant at 0.05",
                    "direction", "the kit's second reading (topics as a random effect)"),
    "topics_significant": ("ANOVA: topics with a significant effect", "45 of 50", "value", ""),
    "runs_significant": ("per-run ANOVA: runs with a significant sample effect (no more than chance)",
                         "2 (p = 0.016, 0.014)", "direction", "graded: the share of runs at most alpha = 0.05"),
    "variance": ("\"the variance across samples such as those we are drawing should not be a worry\"",
                 "conclusion of the ANOVAs", "direction", "a run's mean infAP over the subsamples"),
    "titlestat": ("titlestat_rel: pool, sample, sample below rank 50", "0.93, 0.899, 0.851", "value",
                  "titlestat() is provided over a caller-supplied text source"),
    "uniform": ("\"uniform random sampling is not usable because it will not select enough relevant documents\"",
                "qualitative", "direction",
                "uniform: one rate for every topic and rank of the pool to the sample's cap, as many judgments in "
                "all; expected counts"),
    "map_adequacy": ("\"judgments from this [phase-1] pool are adequate to compute MAP to a reasonable precision\"",
                     "qualitative", "direction",
                     "truth: MAP with the collection's full qrels, for the runs that built the pool"),
}


#: rows beyond the paper (graded the same way, never counted among the paper's verdicts): the ANOVA read with
#: topics as a random effect is the kit's reading, not the paper's model
BEYOND = frozenset({"anova_mixed"})


def claims(study: Study, dataset: str, plan=None) -> list:
    """The paper-versus-kit lines the notebook records (:func:`evalkit.claims.record_claims`), one per
    :data:`CLAIM_ROWS` entry, rated by :func:`~evalkit.papers.soboroff2007.ratings.grade_study`. ``plan``: the
    notebook's :class:`~evalkit.papers.needs.Plan` (its degenerate parts make the claims that rest on them
    ``not rated: degenerate (...)``; default: the study's own design checked)."""
    from evalkit.claims import Claim

    degenerate = None if plan is None else dict(plan.degenerate)
    graded = grade_study(study, degenerate, alpha=PAPER_ANOVA["alpha"])
    rows = []
    for key, (claim, paper_value, kind, note) in CLAIM_ROWS.items():
        g = graded[key]
        if key == "beyond":
            claim = (f"sampled beyond the phase-1 pool (depth {study.sample.params['phase1_depth']}; paper: 50): "
                     "documents (relevant) a topic")
        rows.append(Claim("Soboroff 2007", claim, paper_value, g.kit_value, dataset, note=note, kind=kind,
                          scope="beyond" if key in BEYOND else "paper", **g.fields()))
    return rows
