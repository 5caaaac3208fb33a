"""Soboroff (2007): the paper's own numbers, as data (no computation on a collection).

Every figure here is from the paper's collection: TREC 2006 Terabyte (GOV2, 50 topics 801-850, TB06 runs). The kit's
numbers on a collection here are set beside them in :mod:`evalkit.papers.soboroff2007.experiment` (the sample's
statistics, Figure 1), :mod:`evalkit.papers.soboroff2007.tables` (titlestat) and
:mod:`evalkit.papers.soboroff2007.claims`. The paper has no tables to rebuild as frames (its leave-one-group-out
table did not survive extraction: :data:`PAPER_LOGO` keeps only its conclusion).
"""

from __future__ import annotations

__all__ = ["PAPER_ANOVA", "PAPER_FIGURE1", "PAPER_LOGO", "PAPER_POOL", "PAPER_SAMPLE", "PAPER_TITLESTAT"]

# the paper's numbers (TREC 2006 Terabyte, GOV2, 50 topics 801-850)

#: Sec. 2: the phase-1 (depth-50) pool.
PAPER_POOL = {"depth": 50, "docs_per_topic": 640, "relevant_per_topic": 118, "topics": 50}

#: Sec. 2: the relevance-based sample (rpt = 20/200).
PAPER_SAMPLE = {
    "rpt": 20 / 200,
    "depth_min": 57,
    "depth_max": 1252,
    "depth_mean": 314,
    "docs_per_topic": 492,
    "relevant_per_topic": 36,
    "beyond_pool_docs": 211,
    "beyond_pool_relevant": 14,
    "topics_with_new_relevant": 46,
    "topics_with_20_new_relevant": 10,
    "topics": 50,
}

#: Sec. 3, Figure 1: MAP (depth-50 pool) against infAP (sample), per run.
PAPER_FIGURE1 = {"kendall_tau": 0.8, "runs_infap_not_lower": 4}

#: Sec. 5: the leave-one-group-out table's values are not in the text; only its conclusion.
PAPER_LOGO = {"conclusion": "MAP and infAP scores change by a similar amount, but the infAP ranking changes less"}

#: Sec. 6: ANOVA over 100 subsamples of the depth-50 pool.
PAPER_ANOVA = {
    "n_subsamples": 100,
    "alpha": 0.05,
    "sample_significant": False,
    "topics_significant": 45,
    "topics": 50,
    "runs_sample_significant": 2,
    "run_p_values": (0.016, 0.014),
    "run_max_mean_infap": (0.1002, 0.0866),
}

#: Sec. 4: titlestat_rel of the judged relevant documents.
PAPER_TITLESTAT = {"pool": 0.93, "sample": 0.899, "sample_below_50": 0.851}
