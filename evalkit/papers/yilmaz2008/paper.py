"""Yilmaz, Kanoulas & Aslam 2008: the paper's own settings, figures and sentences, as data.

Every number here is the paper's (TREC-8, its main collection, unless a comment says otherwise); nothing is
computed on a collection. The variance forms are the readings of the paper's own formula the kit tries (the Appendix
leaves one quantity open). The kit's values beside them come from :mod:`evalkit.papers.yilmaz2008.tables` and
:mod:`evalkit.papers.yilmaz2008.claims`.
"""

from __future__ import annotations

#: Sec. 2, Figure 1 and the CI validation: the sampling rates p (shares of the depth-100 pool)
P_VALUES = (0.10, 0.20, 0.30)
#: Figure 2's depths k (depth-k pool + as many random documents again)
FIGURE2_DEPTHS = (10, 5, 1)
#: Figures 3 and 4: the sweep's depths k
FIGURE3_DEPTHS = (1, 2, 3, 4, 5, 10, 20, 30, 40, 50)

#: the variance of infAP (Sec. 2, Appendix) in the four forms the kit reads it in (the Appendix leaves the
#: population proportion unknown): name -> keyword arguments of :func:`evalkit.measures.infap_variance.infap_variance`
VARIANCE_FORMS: dict[str, dict] = {
    "paper plug-in, independent": {"unbiased": False, "covariance": False},
    "paper plug-in, covariance": {"unbiased": False, "covariance": True},
    "unbiased, independent": {"unbiased": True, "covariance": False},
    "unbiased, covariance": {"unbiased": True, "covariance": True},
}
DEFAULT_FORM = "unbiased, independent"

#: the paper's formula (Sec. 2 / Appendix, the estimate plugged in) and the kit's default, the two forms the
#: findings are stated for
PAPER_FORM = "paper plug-in, independent"

#: Sec. 5: Figure 4's three strata below the depth-k pool are sampled "with a ratio of 3:1.5:1"
STRATA_RATIO = (3.0, 1.5, 1.0)

#: the paper's complete judgment set: TREC-8's depth-100 pool (footnote 2)
PAPER_POOL_DEPTH = 100

#: "e.g. 86,830 judgments for TREC 8" (Sec. 1): the depth-100 pool
PAPER_TREC8_JUDGMENTS = 86830
#: Sec. 3.1: depth-10, -5, -1 pools plus as many random documents judge "23.1%, 12.7% and 3.5% of the entire pool"
PAPER_FIGURE2_SHARE = {10: 0.231, 5: 0.127, 1: 0.035}
#: Sec. 2: "for 90% of the systems the hypothesis that the two CDF's match could not be rejected (alpha = 0.05)"
PAPER_KS_NOT_REJECTED = 0.90

#: what the paper's text says about each figure (its plotted numbers, e.g. the tau / rho / RMS in Fig. 2's panel
#: titles, are not in our copy of the text)
PAPER_STATEMENTS = {
    "figure1": "the greatest majority of the 95% confidence intervals intersect the 45-degree line, i.e. cover "
               "the actual MAP (p = 10, 20, 30%)",
    "validation": "KS test of the per-run deviations (in estimated standard deviations) against N(0, 1) over 100 "
                  "samples: not rejected for 90% of the systems (alpha = 0.05)",
    "figure2": "xinfAP is an unbiased estimator of AP; it reliably evaluates runs that did not contribute to the "
               "pool (pluses)",
    "figure3": "for all levels of incompleteness, in terms of all three statistics (tau, rho, RMS), xinfAP is much "
               "more accurate than infAP on random judgments and infAP on the depth + random judgments",
    "figure4": "with the same number of judgments, xinfAP and infNDCG on the 4-strata samples consistently "
               "outperform infAP and nDCG on random judgments (tau and RMS), on TREC 8, 9 and 10",
    "figure4_ndcg_rms": "the high RMS error of nDCG on random judgments is because nDCG is computed on them as it "
                        "is, without aiming at estimating the measure",
}

PAPER_UNAVAILABLE = (
    "The paper's TREC-9 and TREC-10 panels (Fig. 4, and the TREC-9/10 runs behind Sec. 2's 'identical "
    "conclusions') need the TREC-9 and TREC-10 ad hoc / web runs and qrels, which the kit does not ship; a "
    "reviewer with those collections can set `dataset` to their directory (runs/ + qrels)."
)

#: Sec. 2, footnote 4: "it was observed that the effect of smoothing in variance is negligible"
PAPER_SMOOTHING_VARIANCE = "negligible"
#: Sec. 4, footnote 3: assuming E[nDCG] = E[DCG] / E[DCG_I] "may result in a small bias"
PAPER_INFNDCG_BIAS = "small"
