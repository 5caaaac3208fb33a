"""Voorhees (2014): the paper's own figures and sentences, as data.

The strategies the paper runs (on TREC-8), the measures it reports with the gold measure each is compared with,
and what survives in our copy of the text of its Tables 1-3 and Figure 1 (TREC-8). No computation on a
collection here: :mod:`evalkit.papers.voorhees2014.tables` sets these beside the kit's numbers and
:mod:`evalkit.papers.voorhees2014.claims` grades the kit's against them.
"""

from __future__ import annotations

import pandas as pd

#: the five strategies the paper runs on TREC-8, then the TREC 2012 Medical Records preset
PAPER_STRATEGIES = ("pool15", "pool25", "1stratum", "2strata", "3strata")
DEFAULT_STRATEGIES = PAPER_STRATEGIES + ("medical2012",)

#: the paper's measure name -> (inferred measure on the sample, gold measure on the full qrels)
MEASURES: dict[str, tuple[str, str]] = {
    "MAP": ("infAP", "AP"),
    "NDCG": ("infNDCG@100", "nDCG@100"),
    "P(10)": ("infP@10", "P@10"),
}

_MISSING = "not legible in the paper text available here (only the caption survives)"

#: Table 1 (mean judgment-set size over 50 trials): the numbers are missing from our text; what the text says
PAPER_TABLE1 = {
    "caption": "mean judgment set size over the 50 trials for each sampling strategy",
    "values": None,
    "missing": _MISSING,
    "statements": [
        "the 1stratum strategy is the strategy with the largest judgment set size",
        "depth 25 is a better match for the other methods' judgment set sizes on TREC-8 (hence pool25 besides "
        "pool15, the depth TREC 2012 Medical can support)",
        "there is a wider spread in the range of judgment set sizes across the strategies than is ideal",
    ],
}

#: Table 2 (accuracy of the significant pairs, mean / min / max over 50 trials): numbers missing; statements
PAPER_TABLE2 = {
    "caption": "Accuracy of reproducing the set of significantly different run pairs",
    "values": None,
    "missing": _MISSING,
    "statements": [
        "1stratum is consistently the worst strategy for NDCG and P(10), only somewhat more competitive for MAP",
        "3strata is a poor choice (its behaviour on TREC-8 confirms it)",
        "on TREC-8 the pooling strategy is generally more accurate than 2strata, with a clear dependency on the "
        "pool depth",
        "on TREC 2012 Medical 2strata is more accurate than pooling",
    ],
}

#: Table 3 (mean Pearson correlation of estimated vs gold R): numbers missing; statements
PAPER_TABLE3 = {
    "caption": "Mean correlation between estimated and gold-standard R",
    "values": None,
    "missing": _MISSING,
    "statements": [
        "the estimated R values are highly correlated with the true R on TREC-8",
        "the pooling strategies exhibit the weakest correlations, weaker as the pool depth gets smaller",
        "correlations are weaker on TREC-8 than on TREC 2012 Medical",
    ],
}

#: Figure 1: the nine TREC-8 topics whose mean estimated R under pool25 is below 20 (topic ids not given). On
#: TREC-8 the kit finds eight of the pairs within 0.5 (topics 406, 409, 419, 430, 432, 433, 441, 444); the last
#: (gold 65, R̂ 16.0) fits no topic (410 has R = 65 but pool25 finds ~50 of them), while topic 447 (R 16, R̂ 16.0)
#: would fit if the 65 were a misprint; the printed r = 0.42 is computed with the 65, so the text is consistent.
PAPER_LOW_R = pd.DataFrame({
    "gold_R": [13, 22, 16, 6, 28, 13, 17, 17, 65],
    "mean_R_hat": [12.7, 17.8, 15.0, 6.0, 13.7, 9.8, 17.0, 17.0, 16.0],
})
#: "which has a correlation of just 0.42" (Pearson of the nine pairs above; it checks: 0.4200)
PAPER_LOW_R_CORRELATION = 0.42

#: the paper's conclusions, as the notebook sets them beside the kit's findings
PAPER_CONCLUSIONS = {
    "1stratum_worst": "1stratum is consistently the worst strategy for NDCG and P(10)",
    "3strata_poor": "3strata (a large, very sparsely sampled stratum) is a poor choice",
    "pool_weak_R": "pooling estimates R worst, and worse as the pool gets shallower",
    "pool_underestimates": "pool25 underestimates R for all but the smallest relevant sets (9 topics mean R̂ < 20)",
    "2strata_practical": "2strata (a fully judged top 10 plus a moderate-depth, moderate-rate stratum) is a "
                         "practical and effective strategy",
}
