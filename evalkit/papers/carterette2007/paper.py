"""Carterette (2007), the paper's own figures and sentences as data: Tables 2-5 (the ad hoc 99 column of Table 5 is
TREC-8; Tables 2-4 pool ad hoc 94 and 96-99), the numbers Sec. 5 quotes in its text, the toy example of Sec. 2.1,
the paper's settings (lists of 100, k = 10 runs a trial, the aggregation prior it states), the confidence bins of
its tables, and the paper's Table 2 in the layout of :func:`evalkit.papers.carterette2007.tables.table2`. No
computation on a collection."""

from __future__ import annotations

import numpy as np
import pandas as pd

PAPER = "Carterette 2007"
#: the collections the paper's figures come from (:attr:`evalkit.claims.Claim.paper_dataset`): Table 5's ad hoc 99
#: column (TREC-8) and the pooled ad hoc 94 + 96-99 of Tables 2-4
ADHOC99, POOLED = "ad hoc 99", "pooled ad hoc 94+96-99"

#: the aggregation prior the paper states (alpha = beta = 1), with this kit's readings of the other steps
RTC_PAPER_PRIORS = {"prior": (1.0, 1.0)}
#: the strengths a = b of the aggregation prior Beta(a, a) the kit chooses among when it reconstructs the paper's
#: TREC-4-trained prior: a log grid from the paper's a = 1, about three-fold a step, up to 1000
PRIOR_GRID = (1.0, 10.0, 30.0, 100.0, 300.0, 1000.0)

#: the paper's lists: TREC's top 100 of each run, as deep as ad hoc 99 (TREC-8) was judged
PAPER_DEPTH = 100
#: the paper's runs a trial, original runs among them, and the confidence MTC and RTC judge to (Sec. 4.3)
PAPER_K = 10
PAPER_C = 2
PAPER_ALPHA = 0.95
#: the share of the pairs in one bin above which a table of the paper (by confidence, Table 2; by overlap, Table 4)
#: sits in one bin: its rows then say nothing about how accuracy varies with the row (a degenerate study)
ONE_BIN_SHARE = 0.9

#: the confidence bins of the paper's tables (left-closed, the last one closed on both sides; the package docstring)
BIN_EDGES = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0)
BIN_LABELS = ("0.5 – 0.6", "0.6 – 0.7", "0.7 – 0.8", "0.8 – 0.9", "0.9 – 0.95", "0.95 – 0.99", "1.0")

#: Table 5, column "ad hoc 99" (TREC-8, our collection): RTC only; accuracy by confidence bin, W-bar, median
#: judgments to reach 95% on the first pair, mean tau over the 10 runs.
PAPER_ADHOC99 = {
    "accuracy": dict(zip(BIN_LABELS, (0.594, 0.743, 0.786, 0.868, 0.926, 0.928, 0.996))),
    "W_bar": -0.44,
    "median_judged": 179,
    "mean_tau": 0.532,
    "collection": {"topics": 50, "runs": 129, "judged": 86830, "relevant": 4728},  # Table 1
}

#: Table 2 (pooled over ad hoc 94, 96, 97, 98, 99 -- not TREC-8 alone): share of pairs and accuracy per bin.
PAPER_TABLE2 = {
    "MTC": {
        "share": dict(zip(BIN_LABELS, (0.337, 0.181, 0.104, 0.094, 0.073, 0.179, 0.033))),
        "accuracy": dict(zip(BIN_LABELS, (0.617, 0.731, 0.701, 0.690, 0.780, 0.704, 0.683))),
        "W_bar": -5.34, "median_judged": 251, "mean_judged": 823, "mean_tau": 0.393,
    },
    "RTC": {
        "share": dict(zip(BIN_LABELS, (0.286, 0.201, 0.155, 0.121, 0.066, 0.124, 0.047))),
        "accuracy": dict(zip(BIN_LABELS, (0.619, 0.763, 0.780, 0.849, 0.931, 0.934, 0.989))),
        "W_bar": -0.39, "median_judged": 235, "mean_judged": 502, "mean_tau": 0.555,
    },
    "IP": {"mean_tau": 0.398},
}

#: Table 3 (RTC, pooled ad hoc sets): accuracy by pair type; None where the paper prints "–".
PAPER_TABLE3 = {
    "two original": {"accuracy": dict(zip(BIN_LABELS, (None, None, None, None, 0.959, 0.962, 1.0))), "W_bar": -1.11},
    "one original": {"accuracy": dict(zip(BIN_LABELS, (0.481, 0.571, 0.679, 0.822, 0.937, 0.925, 0.980))), "W_bar": -0.87},
    "no original": {"accuracy": dict(zip(BIN_LABELS, (0.628, 0.792, 0.817, 0.863, 0.926, 0.931, 0.991))), "W_bar": -0.27},
}

#: Table 4 (RTC, pooled ad hoc sets): accuracy by overlap of the pair.
PAPER_TABLE4 = {
    "0 – 0.1": {"accuracy": dict(zip(BIN_LABELS, (0.684, 0.842, 0.820, 0.936, 0.993, 0.987, 0.999))), "W_bar": 0.44},
    "0.1 – 0.2": {"accuracy": dict(zip(BIN_LABELS, (0.631, 0.786, 0.798, 0.833, 0.927, 0.934, 0.979))), "W_bar": -0.45},
    "0.2 – 0.3": {"accuracy": dict(zip(BIN_LABELS, (0.614, 0.766, 0.789, 0.821, 0.924, 0.933, 0.981))), "W_bar": -0.49},
}

#: Numbers quoted in the text of Sec. 5 (pooled ad hoc sets).
PAPER_TEXT = {
    "wilcoxon_judgments_p": "< 0.0001 (RTC median lower)",
    "ttest_judgments_p": "< 0.0001 (RTC mean lower)",
    "ttest_tau_p": "< 0.0001 (RTC tau higher)",
    "ip_vs_mtc_tau": "not significant",
    "share_sets_le_100_judgments": 0.10,
    "W_bar_sets_le_100_judgments": 0.41,
    "accuracy_conf_ge_0.9_sets_le_100_judgments": 0.997,
    "accuracy_conf_ge_0.9_sets_gt_235_judgments": 0.93,
    "mtc_ip_accuracy_overlap_0_0.1": 0.60,
    "rtc_accuracy_overlap_0_0.1": 0.876,
}

#: Sec. 2.1's toy example: documents A, B, C ranked B, A, C (ranks 2, 1, 3), believed relevant with
#: p_A = 0.4, p_B = 0.8, p_C = 0.7, and the two probabilities the paper computes from them.
PAPER_TOY = {
    "documents": ("A", "B", "C"),
    "ranks": (2, 1, 3),
    "p": (0.4, 0.8, 0.7),
    "P(AP = 0)": 0.036,
    "P(AP = 1/2)": 0.056,
}

TABLE2_SUMMARY_ROWS = ("W_bar", "median judged", "mean judged", "mean tau")


def paper_table2() -> pd.DataFrame:
    """The paper's Table 2 (pooled over ad hoc 94, 96-99) in :func:`table2`'s layout (no pair counts)."""
    columns = {}
    for name in ("MTC", "RTC"):
        columns[(name, "% in bin")] = [PAPER_TABLE2[name]["share"][label] for label in BIN_LABELS]
        columns[(name, "accuracy")] = [PAPER_TABLE2[name]["accuracy"][label] for label in BIN_LABELS]
    table = pd.DataFrame(columns, index=list(BIN_LABELS))
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    table.index.name = "confidence"
    return table


def paper_table2_summary() -> pd.DataFrame:
    """The paper's Table 2 summary rows (and the text's mean judgments and IP tau) in :func:`table2_summary`'s
    layout."""
    keys = ("W_bar", "median_judged", "mean_judged", "mean_tau")
    columns = {name: [PAPER_TABLE2[name][key] for key in keys] for name in ("MTC", "RTC")}
    columns["IP"] = [np.nan, np.nan, np.nan, PAPER_TABLE2["IP"]["mean_tau"]]
    table = pd.DataFrame(columns, index=list(TABLE2_SUMMARY_ROWS))
    table.index.name = "statistic"
    return table
