"""Lu, Moffat and Culpepper (2017): the paper's own numbers as data, each with the collections it comes from.

Tables 1, 2 and 3 transcribed from the paper (TREC-5/9/10, Robust04, TB04/05/06, CW10: none of them is available
here), the estimators of Tables 2 and 3, the collections behind each claim (:data:`CLAIM_COLLECTIONS`) and
:func:`paper_table2`, which only selects and relabels the paper's rows. No computation on a collection.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd


#: the estimators of the paper's Tables 2 and 3, in its column order
TABLE2_ESTIMATORS = ("LB", "RM", "Lin", "La", "Lb")

# ------------------------------------------------------------------------------------------ the paper's numbers

# Table 2, transcribed from the text: per collection and d', the columns LB, RM, Lin (theta 0, 0.018),
# La (theta 0, 0.018), Lb (theta 0, 0.018); each cell "RMSE (Acc%)". Reference depth d: 100, except TB04 (80)
# and TB06 (50) (Table 1).
_TABLE2_TEXT = """
TREC9 10  0.031 45 | 0.056 22 | 0.037 31 0.031 44 | 0.038 26 0.030 44 | 0.031 41 0.031 46
TREC9 20  0.012 59 | 0.025 32 | 0.013 51 0.012 60 | 0.013 42 0.012 58 | 0.010 62 0.012 61
TREC9 30  0.006 67 | 0.012 45 | 0.006 66 0.006 68 | 0.005 63 0.006 68 | 0.005 71 0.006 68
TREC10 10 0.038 39 | 0.064 16 | 0.034 25 0.033 31 | 0.036 13 0.031 27 | 0.027 34 0.028 38
TREC10 20 0.016 53 | 0.030 25 | 0.015 45 0.014 51 | 0.016 36 0.014 50 | 0.012 53 0.012 55
TREC10 30 0.007 64 | 0.015 37 | 0.007 61 0.007 63 | 0.007 55 0.007 62 | 0.006 66 0.006 66
Rob04 10  0.046 21 | 0.088 5  | 0.043 21 0.039 20 | 0.045 9  0.039 17 | 0.039 20 0.035 20
Rob04 20  0.020 34 | 0.040 9  | 0.015 33 0.016 34 | 0.016 26 0.015 32 | 0.013 38 0.016 35
Rob04 30  0.008 49 | 0.020 14 | 0.007 49 0.007 52 | 0.007 47 0.006 53 | 0.005 59 0.006 55
TB04 10   0.117 14 | 0.082 14 | 0.082 15 0.087 14 | 0.072 15 0.077 15 | 0.073 16 0.077 16
TB04 20   0.053 21 | 0.039 23 | 0.039 25 0.041 25 | 0.035 28 0.037 28 | 0.033 32 0.036 31
TB04 30   0.026 26 | 0.020 39 | 0.018 39 0.019 38 | 0.015 45 0.016 44 | 0.015 44 0.016 43
TB05 10   0.125 6  | 0.080 5  | 0.085 7  0.085 7  | 0.070 6  0.070 8  | 0.067 7  0.067 9
TB05 20   0.056 10 | 0.041 10 | 0.039 13 0.039 13 | 0.034 14 0.034 14 | 0.033 18 0.033 19
TB05 30   0.028 16 | 0.022 18 | 0.021 24 0.021 24 | 0.018 24 0.018 24 | 0.017 29 0.017 29
TB06 10   0.089 24 | 0.065 43 | 0.059 43 0.059 43 | 0.047 55 0.047 55 | 0.053 51 0.053 50
TB06 20   0.033 40 | 0.023 68 | 0.021 66 0.021 66 | 0.013 81 0.013 81 | 0.017 73 0.017 73
TB06 30   0.013 58 | 0.007 87 | 0.006 85 0.006 85 | 0.003 94 0.003 94 | 0.005 89 0.005 89
"""

_REFERENCE_DEPTH = {"TREC9": 100, "TREC10": 100, "Rob04": 100, "TB04": 80, "TB05": 100, "TB06": 50}


def _parse_table2(text: str) -> pd.DataFrame:
    rows = []
    for line in text.strip().splitlines():
        head, *cells = line.split("|")
        collection, depth, lb_rmse, lb_acc = head.split()
        groups = [("LB", (np.nan,), [lb_rmse, lb_acc])]
        fields = [c.split() for c in cells]
        groups.append(("RM", (np.nan,), fields[0]))
        for name, values in zip(("Lin", "La", "Lb"), fields[1:]):
            groups.append((name, (0.0, 0.018), values))
        for name, thetas, values in groups:
            for i, theta in enumerate(thetas):
                rows.append({
                    "collection": collection, "reference_depth": _REFERENCE_DEPTH[collection], "depth": int(depth),
                    "estimator": name, "theta": theta, "rmse": float(values[2 * i]), "acc": float(values[2 * i + 1]),
                })
    return pd.DataFrame(rows)


#: The paper's Table 2 (RBP0.95), long form: collection, reference_depth (d), depth (d'), estimator, theta (NaN
#: for LB and RM, which the paper gives once), rmse, acc (%).
PAPER_TABLE2 = _parse_table2(_TABLE2_TEXT)

#: The paper's Table 3 (leave-one-group-out, d' = 10, theta = 0, RBP0.95): RMSE and Acc% averaged over groups.
PAPER_TABLE3 = pd.read_csv(io.StringIO("""collection,estimator,rmse,acc
Rob04,LB,0.060,19
Rob04,RM,0.126,4
Rob04,Lin,0.068,11
Rob04,La,0.060,9
Rob04,Lb,0.050,19
TB04,LB,0.181,11
TB04,RM,0.202,11
TB04,Lin,0.131,9
TB04,La,0.117,11
TB04,Lb,0.119,11
TB05,LB,0.170,6
TB05,RM,0.141,5
TB05,Lin,0.125,4
TB05,La,0.110,4
TB05,Lb,0.110,5
TB06,LB,0.125,22
TB06,RM,0.185,32
TB06,Lin,0.112,35
TB06,La,0.090,48
TB06,Lb,0.086,46
"""))


# Table 1 (judgments per topic and % relevant) transcribed: pool is d'=10, 20, 30, d'=d (the full pool) or the
# two-strata sample (depth 10 + 10% of ranks 11-100, mean of ten draws). CW10 (d = 20): the d'=20 column is d.
PAPER_TABLE1 = pd.read_csv(io.StringIO("""collection,reference_depth,n_runs,pool,judgments,relevant_pct
TREC5,100,76,d'=10,272,13
TREC5,100,76,d'=20,512,10
TREC5,100,76,d'=30,747,8
TREC5,100,76,d'=d,2298,4
TREC9,100,59,d'=10,174,11
TREC9,100,59,d'=20,322,8
TREC9,100,59,d'=30,462,7
TREC9,100,59,d'=d,1382,4
TREC9,100,59,two-strata,294,7
TREC10,100,54,d'=10,182,13
TREC10,100,54,d'=20,335,10
TREC10,100,54,d'=30,480,9
TREC10,100,54,d'=d,1402,5
TREC10,100,54,two-strata,303,9
Rob04,100,42,d'=10,75,25
Rob04,100,42,d'=20,139,18
Rob04,100,42,d'=30,206,15
Rob04,100,42,d'=d,710,7
Rob04,100,42,two-strata,134,15
TB04,80,33,d'=10,164,31
TB04,80,33,d'=20,313,27
TB04,80,33,d'=30,453,25
TB04,80,33,d'=d,1121,19
TB04,80,33,two-strata,270,25
TB05,100,34,d'=10,111,41
TB05,100,34,d'=20,202,36
TB05,100,34,d'=30,291,33
TB05,100,34,d'=d,878,25
TB05,100,34,two-strata,187,33
TB06,50,39,d'=10,141,31
TB06,50,39,d'=20,270,26
TB06,50,39,d'=30,394,23
TB06,50,39,d'=d,633,19
CW10,20,21,d'=10,98,30
CW10,20,21,d'=d,187,28
"""))


def paper_table2(depths, paper_depths: dict | None = None) -> pd.DataFrame:
    """The rows of :data:`PAPER_TABLE2` for the kit's pool depths: each kit d' takes the paper's rows of the d' it
    stands for (``paper_depths``, from :func:`~evalkit.papers.lu2017.plan.plan`; default: the same d'), relabelled
    with the kit's d'."""
    paper_depths = {int(d): int(d) for d in depths} if paper_depths is None else paper_depths
    parts = [PAPER_TABLE2[PAPER_TABLE2["depth"] == paper_depths[d]].assign(depth=int(d))
             for d in depths if int(d) in paper_depths]
    return pd.concat(parts, ignore_index=True) if parts else PAPER_TABLE2.iloc[:0].copy()


#: the paper's collections behind each claim (by the start of its text); others: Table 2's six
CLAIM_COLLECTIONS = {
    "Fig. 3 left": "TREC-5, Rob04, TREC-10, TB06",
    "Fig. 3 middle": "TREC-5",
    "Fig. 3 right": "TREC-5, TREC-7, TREC-8",
    "Table 3": "Rob04, TB04, TB05, TB06",
}
