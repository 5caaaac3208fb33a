"""Carterette (2007): pure functions from the trials' results to DataFrames: the paper's Tables 2-4 and Figure 2
reproduced with their intervals (:func:`table2`, :func:`table2_summary`, :func:`figure2_data`, :func:`table3`,
:func:`table4`), the paired tests, the numbers Sec. 5 quotes (:func:`budget_summary`, :func:`overlap_accuracy`),
RTC's summary, the prior chosen by topic-split cross-validation (:func:`prior_cross_validation`) and the
prior-strength table (:func:`prior_strength_table`), the diagnostics' summary, the kit beside the paper
(:func:`paper_comparison`, :func:`grouped_comparison`, :func:`prior_comparison`) and where the replication deviates
(:func:`deviations`). The scoring of a prediction (Sec. 4.4): :func:`winnings`, :func:`confidence_bins`,
:func:`binned`; its uncertainty over trials (:func:`trial_tallies` and the ``..._interval`` functions: a bootstrap
that resamples whole trials, :mod:`evalkit.stats.intervals`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

from evalkit.papers.carterette2007.experiment import PAIR_TYPES, ExperimentResults, TrialData
from evalkit.papers.carterette2007.paper import (
    BIN_LABELS,
    ONE_BIN_SHARE,
    PAPER_ADHOC99,
    PAPER_DEPTH,
    PAPER_TABLE2,
    PAPER_TEXT,
    TABLE2_SUMMARY_ROWS,
)
from evalkit.papers.carterette2007.scoring import (
    INTERVAL_SEED,
    bin_intervals,
    binned,
    bounds,
    predictions,
    statistic_interval,
    trial_interval,
    trial_tallies,
    w_bar_interval,
)
from evalkit.stats import bootstrap_interval, ratio_interval


def table2(results: ExperimentResults) -> pd.DataFrame:
    """Table 2, the binned part: per confidence bin the share of pairs, the accuracy with its 95% interval over
    trials (whole trials resampled), and the number of pairs, for MTC and RTC (fractions, not percentages). The
    summary rows (W-bar, judgments, tau) are in :func:`table2_summary`."""
    pairs = results.pairs
    columns = {}
    for name in ("mtc", "rtc"):
        share, accuracy, counts, _, _ = binned(pairs[f"p_{name}"], pairs["true_delta"])
        columns[(name.upper(), "% in bin")] = list(share)
        columns[(name.upper(), "accuracy")] = list(accuracy)
        columns[(name.upper(), "95% interval")] = bounds(bin_intervals(results, name))
        columns[(name.upper(), "pairs")] = list(counts.astype(float))
    table = pd.DataFrame(columns, index=list(BIN_LABELS))
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    table.index.name = "confidence"
    return table


def table2_summary(results: ExperimentResults) -> pd.DataFrame:
    """Table 2, the summary rows: W-bar, median and mean judgments to reach alpha on the first pair, and mean
    Kendall tau, one column per algorithm (IP: its tau at MTC's number of judgments), each with its 95% interval
    over trials in the column "<algorithm> 95% interval"."""
    pairs, trials = results.pairs, results.trials
    columns, intervals = {}, {}
    for name in ("mtc", "rtc"):
        *_, w_bar = binned(pairs[f"p_{name}"], pairs["true_delta"])
        judged = trials[f"judged_{name}"].astype(float)
        columns[name.upper()] = [w_bar, float(judged.median()), float(judged.mean()),
                                 float(trials[f"tau_{name}"].mean())]
        intervals[name.upper()] = [w_bar_interval(results, name).bounds(".2f"),
                                   trial_interval(results, f"judged_{name}", "median").bounds(".0f"),
                                   trial_interval(results, f"judged_{name}").bounds(".0f"),
                                   trial_interval(results, f"tau_{name}").bounds(".3f")]
    has_ip = "tau_ip" in trials
    columns["IP"] = [np.nan, np.nan, np.nan, float(trials["tau_ip"].mean()) if has_ip else np.nan]
    intervals["IP"] = ["", "", "", trial_interval(results, "tau_ip").bounds(".3f") if has_ip else ""]
    for name, values in intervals.items():
        columns[f"{name} 95% interval"] = values
    table = pd.DataFrame(columns, index=list(TABLE2_SUMMARY_ROWS))
    table.index.name = "statistic"
    return table


def hypothesis_tests(results: ExperimentResults) -> pd.DataFrame:
    """The paper's paired tests over trials: Wilcoxon signed-rank and t-test on the judgments MTC vs RTC, t-tests
    on tau (MTC vs RTC, IP vs MTC, IP vs RTC)."""
    trials = results.trials
    rows = []

    def add(test, what, x, y, fn):
        x = np.asarray(x, np.float64)
        y = np.asarray(y, np.float64)
        keep = ~(np.isnan(x) | np.isnan(y))
        x, y = x[keep], y[keep]
        if len(x) < 2 or np.all(x == y):
            stat, p = np.nan, np.nan
        else:
            outcome = fn(x, y)
            stat, p = float(outcome.statistic), float(outcome.pvalue)
        rows.append({"test": test, "comparison": what, "n": len(x), "mean_first": x.mean() if len(x) else np.nan,
                     "mean_second": y.mean() if len(y) else np.nan, "median_first": np.median(x) if len(x) else np.nan,
                     "median_second": np.median(y) if len(y) else np.nan, "statistic": stat, "p_value": p})

    add("Wilcoxon signed-rank", "judgments MTC vs RTC", trials["judged_mtc"], trials["judged_rtc"], sps.wilcoxon)
    add("paired t", "judgments MTC vs RTC", trials["judged_mtc"], trials["judged_rtc"], sps.ttest_rel)
    add("paired t", "tau MTC vs RTC", trials["tau_mtc"], trials["tau_rtc"], sps.ttest_rel)
    add("paired t", "tau IP vs MTC", trials["tau_ip"], trials["tau_mtc"], sps.ttest_rel)
    add("paired t", "tau IP vs RTC", trials["tau_ip"], trials["tau_rtc"], sps.ttest_rel)
    return pd.DataFrame(rows)


def figure2_data(results: ExperimentResults, edges=None) -> pd.DataFrame:
    """Figure 2: confidence vs accuracy per algorithm in fine bins (default width 0.025 from 0.5 to 1)."""
    edges = np.round(np.arange(0.5, 1.0001, 0.025), 6) if edges is None else np.asarray(edges, np.float64)
    frames = []
    for name in ("mtc", "rtc"):
        share, accuracy, counts, mean_confidence, _ = binned(results.pairs[f"p_{name}"], results.pairs["true_delta"],
                                                             edges)
        frames.append(pd.DataFrame({
            "algorithm": name.upper(), "bin_low": edges[:-1], "bin_high": edges[1:], "mean_confidence": mean_confidence,
            "accuracy": accuracy, "pairs": counts, "share": share,
        }))
    return pd.concat(frames, ignore_index=True)


def _grouped_table(pairs: pd.DataFrame, groups: dict, algorithm: str) -> pd.DataFrame:
    columns = {}
    for label, mask in groups.items():
        subset = pairs[mask]
        _, accuracy, counts, _, w_bar = binned(subset[f"p_{algorithm}"], subset["true_delta"])
        tally = trial_tallies(pairs, algorithm, mask=mask)
        intervals = [ratio_interval(tally["hits"][:, b], tally["counts"][:, b], seed=INTERVAL_SEED)
                     for b in range(len(BIN_LABELS))] + [ratio_interval(tally["w"], tally["pairs"], seed=INTERVAL_SEED)]
        columns[(label, "accuracy")] = list(accuracy) + [w_bar, float(len(subset))]
        columns[(label, "95% interval")] = bounds(intervals[:-1]) + bounds(intervals[-1:], ".2f") + [""]
        columns[(label, "pairs")] = list(counts.astype(float)) + [np.nan, np.nan]
    table = pd.DataFrame(columns, index=list(BIN_LABELS) + ["W_bar", "pairs"])
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    table.index.name = "confidence"
    return table


def table3(results: ExperimentResults, algorithm: str = "rtc") -> pd.DataFrame:
    """Table 3: accuracy per confidence bin and W-bar by pair type (two, one or no original runs)."""
    pairs = results.pairs
    groups = {label: pairs["n_original"] == n for n, label in PAIR_TYPES.items()}
    return _grouped_table(pairs, groups, algorithm.lower())


def table4(results: ExperimentResults, algorithm: str = "rtc", edges=(0.0, 0.1, 0.2, 0.3)) -> pd.DataFrame:
    """Table 4: accuracy per confidence bin and W-bar for pairs whose overlap falls in [0, 0.1), [0.1, 0.2),
    [0.2, 0.3)."""
    pairs = results.pairs
    groups = {
        f"{lo:g} – {hi:g}": (pairs["overlap"] >= lo) & (pairs["overlap"] < hi) for lo, hi in zip(edges[:-1], edges[1:])
    }
    return _grouped_table(pairs, groups, algorithm.lower())


def paper_comparison(results: ExperimentResults) -> pd.DataFrame:
    """The kit's RTC (and MTC) numbers beside the paper's "ad hoc 99" column (Table 5, RTC) and Table 2 (pooled
    over five ad hoc collections): accuracy per confidence bin, W-bar, median judgments, mean tau."""
    t2 = table2(results)
    summary = table2_summary(results)
    rows = []
    for label in BIN_LABELS:
        rows.append({
            "row": f"accuracy {label}",
            "kit RTC": t2.loc[label, ("RTC", "accuracy")],
            "paper ad hoc 99 (RTC)": PAPER_ADHOC99["accuracy"][label],
            "kit MTC": t2.loc[label, ("MTC", "accuracy")],
            "paper Table 2 MTC": PAPER_TABLE2["MTC"]["accuracy"][label],
        })
    for label in BIN_LABELS:
        rows.append({
            "row": f"share {label}",
            "kit RTC": t2.loc[label, ("RTC", "% in bin")],
            "paper ad hoc 99 (RTC)": np.nan,
            "kit MTC": t2.loc[label, ("MTC", "% in bin")],
            "paper Table 2 MTC": PAPER_TABLE2["MTC"]["share"][label],
        })
    for key, row in (("W_bar", "W_bar"), ("median judged", "median_judged"), ("mean tau", "mean_tau")):
        rows.append({
            "row": key,
            "kit RTC": summary.loc[key, "RTC"],
            "paper ad hoc 99 (RTC)": PAPER_ADHOC99[row],
            "kit MTC": summary.loc[key, "MTC"],
            "paper Table 2 MTC": PAPER_TABLE2["MTC"][row],
        })
    rows.append({"row": "mean judged", "kit RTC": summary.loc["mean judged", "RTC"],
                 "paper ad hoc 99 (RTC)": np.nan, "kit MTC": summary.loc["mean judged", "MTC"],
                 "paper Table 2 MTC": PAPER_TABLE2["MTC"]["mean_judged"]})
    rows.append({"row": "IP mean tau", "kit RTC": np.nan, "paper ad hoc 99 (RTC)": np.nan,
                 "kit MTC": summary.loc["mean tau", "IP"], "paper Table 2 MTC": PAPER_TABLE2["IP"]["mean_tau"]})
    return pd.DataFrame(rows).set_index("row")


def rtc_summary(results: ExperimentResults, algorithm: str = "rtc") -> dict:
    """The few numbers that describe a set of trials: trials, median / mean judgments, share of pairs in the top
    confidence bin and its accuracy, W-bar, mean tau."""
    algorithm = algorithm.lower()
    share, accuracy, _, _, w_bar = binned(results.pairs[f"p_{algorithm}"], results.pairs["true_delta"])
    judged = results.trials[f"judged_{algorithm}"].astype(float)
    return {"trials": len(results.trials), "median judged": float(judged.median()), "mean judged": float(judged.mean()),
            "top-bin share": float(share[-1]), "top-bin accuracy": float(accuracy[-1]), "W_bar": w_bar,
            "mean tau": float(results.trials[f"tau_{algorithm}"].mean())}


def reestimation_summary(diagnostics: pd.DataFrame) -> pd.DataFrame:
    """Per setting of :func:`reestimation_diagnostics` (trials where MTC made all its first judgments): median
    mean p, median |tilt|, median SD[dMAP], median |E[dMAP]|, median confidence, the share of trials that would
    stop at once (confidence >= 0.95) and the share whose sign is right."""
    full = diagnostics[diagnostics["judgments"] == diagnostics["judgments"].max()]
    g = full.groupby("setting", sort=False)
    out = pd.DataFrame({
        "trials": g.size(),
        "median mean p": g["mean p"].median(),
        "median mean p(1 - p)": g["mean p(1 - p)"].median(),
        "median |tilt|": g["tilt"].apply(lambda v: v.abs().median()),
        "median SD[dMAP]": g["SD[dMAP]"].median(),
        "median |E[dMAP]|": g["E[dMAP]"].apply(lambda v: v.abs().median()),
        "median |E| / SD": (full["E[dMAP]"].abs() / full["SD[dMAP]"]).groupby(full["setting"], sort=False).median(),
        "median confidence": g["confidence"].median(),
        "confidence >= 0.95": g["confidence"].apply(lambda v: float((v >= 0.95).mean())),
        "sign right": g["correct"].mean(),
    })
    return out


def zero_judgment_trials(results: ExperimentResults, alpha: float = 0.95) -> pd.DataFrame:
    """The trials in which MTC needed no judgment at all (RTC, identical to MTC until its 10th judgment, then
    needed none either): the first pair was already at confidence alpha with every document at p = 0.5. Columns:
    trial, runs, P(dMAP < 0) at zero judgments, the true dMAP, whether the predicted sign is right, and the
    fewest documents either original run returns for a topic."""
    t = results.trials
    zero = t[t["judged_mtc"] == 0]
    prob = zero["first_pair_p_mtc"].to_numpy(np.float64)
    truth = zero["first_pair_true_delta"].to_numpy(np.float64)
    return pd.DataFrame({"trial": zero["trial"].to_numpy(), "runs": zero["runs"].str.split().str[:2].str.join(" vs "),
                         "P(dMAP < 0)": prob, "true dMAP": truth,
                         "sign right": np.where(truth == 0, np.nan, (prob >= 0.5) == (truth < 0)),
                         "shortest list": zero["shortest_list"].to_numpy()})


def budget_evidence(results: ExperimentResults, threshold: int = 100, algorithm: str = "rtc") -> dict:
    """The figures Sec. 5 quotes about the size of the judgment sets, each an :class:`~evalkit.stats.Interval` over
    trials (``algorithm``'s judgments to reach alpha on the first pair group the trials): ``share small`` the share
    of trials with at most ``threshold`` judgments; ``W small`` and ``accuracy small`` (confidence >= 0.9) over
    those trials' pairs; ``accuracy large`` (confidence >= 0.9) over the trials above the median; ``accuracy gap``
    the second minus the third; ``wrong/right`` and ``wrong/right >= 0.95`` the mean judgments behind wrong
    predictions over those behind right ones (all pairs; confidence >= 0.95); ``median`` the median judgments."""
    algorithm = algorithm.lower()
    pairs, trials = results.pairs, results.trials
    judged = trials.set_index("trial")[f"judged_{algorithm}"].astype(float)
    pair_judged = pairs["trial"].map(judged).to_numpy(np.float64)
    confidence, correct, usable = predictions(pairs[f"p_{algorithm}"], pairs["true_delta"])
    median = float(judged.median())
    small, large = pair_judged <= threshold, pair_judged > median
    sure = confidence >= 0.9
    a_small = trial_tallies(pairs, algorithm, mask=small & sure)
    a_large = trial_tallies(pairs, algorithm, mask=large & sure)
    w_small = trial_tallies(pairs, algorithm, mask=small)
    trial_ids = a_small["trials"]
    row = np.searchsorted(trial_ids, pairs["trial"].to_numpy())

    def behind(mask):
        """Per trial: judgments summed over wrong pairs, wrong pairs, the same for right pairs."""
        mask = mask & usable
        out = []
        for keep in (mask & ~correct, mask & correct):
            out += [np.bincount(row[keep], weights=pair_judged[keep], minlength=len(trial_ids)),
                    np.bincount(row[keep], minlength=len(trial_ids)).astype(np.float64)]
        return out

    def ratio_of_means(parts):
        jw, nw, jr, nr = parts
        return lambda idx: (jw[idx].sum(1) / nw[idx].sum(1)) / (jr[idx].sum(1) / nr[idx].sum(1))

    everything = np.ones(len(pairs), bool)
    n = len(trial_ids)
    with np.errstate(invalid="ignore", divide="ignore"):
        return {
            "median": median,
            "share small": bootstrap_interval((judged <= threshold).astype(float).to_numpy(), seed=INTERVAL_SEED),
            "W small": ratio_interval(w_small["w"], w_small["pairs"], seed=INTERVAL_SEED),
            "accuracy small": ratio_interval(a_small["right"], a_small["pairs"], seed=INTERVAL_SEED),
            "accuracy large": ratio_interval(a_large["right"], a_large["pairs"], seed=INTERVAL_SEED),
            "accuracy gap": statistic_interval(
                lambda idx: a_small["right"][idx].sum(1) / a_small["pairs"][idx].sum(1)
                - a_large["right"][idx].sum(1) / a_large["pairs"][idx].sum(1), n),
            "wrong/right": statistic_interval(ratio_of_means(behind(everything)), n),
            "wrong/right >= 0.95": statistic_interval(ratio_of_means(behind(confidence >= 0.95)), n),
        }


def budget_summary(results: ExperimentResults, threshold: int = 100, algorithm: str = "rtc") -> pd.DataFrame:
    """The numbers Sec. 5 quotes about the size of the judgment sets, kit (with its 95% interval over trials)
    beside paper (pooled ad hoc sets), from :func:`budget_evidence`.

    Trials are grouped by the judgments ``algorithm`` made to reach the target confidence on the first pair:
    the share of trials with at most ``threshold`` judgments, W-bar and accuracy at confidence >= 0.9 over those
    trials' pairs; accuracy at confidence >= 0.9 for trials above the median; and ("overfitting") the mean number
    of judgments behind wrong predictions over that behind right ones, for all pairs and for confidence >= 0.95.
    """
    e = budget_evidence(results, threshold, algorithm)
    rows = [
        (f"share of trials with ≤ {threshold} judgments", e["share small"],
         PAPER_TEXT["share_sets_le_100_judgments"]),
        (f"W_bar, trials with ≤ {threshold} judgments", e["W small"], PAPER_TEXT["W_bar_sets_le_100_judgments"]),
        (f"accuracy at confidence ≥ 0.9, trials with ≤ {threshold} judgments", e["accuracy small"],
         PAPER_TEXT["accuracy_conf_ge_0.9_sets_le_100_judgments"]),
        (f"accuracy at confidence ≥ 0.9, trials above the median ({e['median']:g}; paper 235)", e["accuracy large"],
         PAPER_TEXT["accuracy_conf_ge_0.9_sets_gt_235_judgments"]),
        ("judgments behind wrong / right predictions, all pairs", e["wrong/right"], "> 1.5 (around 0.97)"),
        ("judgments behind wrong / right predictions, confidence ≥ 0.95", e["wrong/right >= 0.95"],
         "> 1.5 (around 0.97)"),
    ]
    return pd.DataFrame([(name, i.estimate, i.bounds() if i.finite else "", paper) for name, i, paper in rows],
                        columns=["statistic", f"kit {algorithm.upper()}", "95% interval", "paper (pooled ad hoc)"]
                        ).set_index("statistic")


def _overlap_hits(results: ExperimentResults, low: float, high: float) -> dict:
    """Per trial, the right predictions of MTC, IP and RTC on the pairs whose overlap is in [low, high) (true dMAP
    0 left out; an IP tie counts half), and the pairs: ``{"MTC": hits, "IP": hits, "RTC": hits, "pairs": n}``."""
    pairs = results.pairs
    chosen = ((pairs["overlap"] >= low) & (pairs["overlap"] < high)).to_numpy()
    out = {}
    for name in ("MTC", "RTC"):
        tally = trial_tallies(pairs, name.lower(), mask=chosen)
        out[name], out["pairs"], trials = tally["right"], tally["pairs"], tally["trials"]
    if "ip_delta" in pairs:
        truth = pairs["true_delta"].to_numpy(np.float64)
        ip = pairs["ip_delta"].to_numpy(np.float64)
        score = np.where(ip == 0, 0.5, (np.sign(ip) == np.sign(truth)).astype(np.float64))
        usable = chosen & (truth != 0) & ~np.isnan(ip)
        row = np.searchsorted(trials, pairs["trial"].to_numpy())
        out["IP"] = np.bincount(row[usable], weights=score[usable], minlength=len(trials))
    return out


def overlap_accuracy(results: ExperimentResults, low: float = 0.0, high: float = 0.1) -> pd.DataFrame:
    """Accuracy of MTC, IP and RTC on the pairs whose overlap is in [low, high) (Sec. 5, "Worst case"), with its
    95% interval over trials.

    MTC and RTC predict the sign with P(dMAP < 0) >= 0.5; IP with the sign of the judged-only dMAP of IP's
    judgments (a tie, e.g. no relevant document judged for either run, counts as half right). Pairs whose true
    dMAP is 0 are left out. The paper gives MTC and IP about 0.60 and RTC 0.876 for overlap 0-0.1.
    """
    hits = _overlap_hits(results, low, high)
    paper = {"MTC": PAPER_TEXT["mtc_ip_accuracy_overlap_0_0.1"], "IP": PAPER_TEXT["mtc_ip_accuracy_overlap_0_0.1"],
             "RTC": PAPER_TEXT["rtc_accuracy_overlap_0_0.1"]} if (low, high) == (0.0, 0.1) else {}
    rows = []
    for name in ("MTC", "IP", "RTC"):
        if name not in hits:
            continue
        n = hits["pairs"]
        value = float(hits[name].sum() / n.sum()) if n.sum() else np.nan
        interval = ratio_interval(hits[name], n, seed=INTERVAL_SEED)
        rows.append({"algorithm": name, "accuracy": value, "95% interval": interval.bounds() if interval.finite else "",
                     "pairs": int(n.sum()), "paper": paper.get(name, np.nan)})
    return pd.DataFrame(rows).set_index("algorithm")


def overlap_differences(results: ExperimentResults, low: float = 0.0, high: float = 0.1) -> dict:
    """RTC's accuracy minus MTC's and minus IP's on the pairs of overlap [low, high), each an
    :class:`~evalkit.stats.Interval` over trials (the same pairs, so the difference is paired within trials)."""
    hits = _overlap_hits(results, low, high)
    return {f"RTC - {name}": ratio_interval(hits["RTC"] - hits[name], hits["pairs"], seed=INTERVAL_SEED)
            for name in ("MTC", "IP") if name in hits}


def grouped_comparison(kit_table: pd.DataFrame, paper: dict) -> pd.DataFrame:
    """:func:`table3` / :func:`table4` beside :data:`PAPER_TABLE3` / :data:`PAPER_TABLE4`: for each group the kit's
    accuracy per bin and W-bar with its 95% interval over trials, the paper's, and the number of pairs behind the
    kit's figure."""
    columns = {}
    for group, numbers in paper.items():
        if group not in kit_table.columns.get_level_values(0):
            continue
        kit = kit_table[(group, "accuracy")]
        columns[(group, "kit")] = [kit[label] for label in BIN_LABELS] + [kit["W_bar"]]
        columns[(group, "95% interval")] = [kit_table[(group, "95% interval")][label] for label in BIN_LABELS] + \
            [kit_table[(group, "95% interval")]["W_bar"]]
        columns[(group, "paper")] = [numbers["accuracy"][label] for label in BIN_LABELS] + [numbers["W_bar"]]
        columns[(group, "pairs")] = [kit_table[(group, "pairs")][label] for label in BIN_LABELS] + [kit["pairs"]]
    table = pd.DataFrame(columns, index=list(BIN_LABELS) + ["W_bar"])
    for column in table.columns:
        if column[1] != "95% interval":
            table[column] = table[column].astype(np.float64)
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    table.index.name = "confidence"
    return table


def prior_comparison(runs: dict) -> pd.DataFrame:
    """RTC under several settings (``{label: ExperimentResults}``) beside the paper's figures: one row each with
    :func:`rtc_summary`'s numbers, then the paper's ad hoc 99 column (Table 5: TREC-8) and its pooled Table 2."""
    rows = [{"setting": label, **rtc_summary(res)} for label, res in runs.items()]
    rows.append({"setting": "paper, ad hoc 99 (Table 5, TREC-8)", "trials": np.nan,
                 "median judged": PAPER_ADHOC99["median_judged"], "mean judged": np.nan, "top-bin share": np.nan,
                 "top-bin accuracy": PAPER_ADHOC99["accuracy"]["1.0"], "W_bar": PAPER_ADHOC99["W_bar"],
                 "mean tau": PAPER_ADHOC99["mean_tau"]})
    rows.append({"setting": "paper, Table 2 (pooled ad hoc)", "trials": np.nan,
                 "median judged": PAPER_TABLE2["RTC"]["median_judged"], "mean judged": PAPER_TABLE2["RTC"]["mean_judged"],
                 "top-bin share": PAPER_TABLE2["RTC"]["share"]["1.0"],
                 "top-bin accuracy": PAPER_TABLE2["RTC"]["accuracy"]["1.0"], "W_bar": PAPER_TABLE2["RTC"]["W_bar"],
                 "mean tau": PAPER_TABLE2["RTC"]["mean_tau"]})
    return pd.DataFrame(rows).set_index("setting")


#: Table 4's overlap bins, and the rest
OVERLAP_EDGES = (0.0, 0.1, 0.2, 0.3, 1.0)
OVERLAP_LABELS = ("0 – 0.1", "0.1 – 0.2", "0.2 – 0.3", "0.3 – 1")


def run_overlaps(data: TrialData) -> np.ndarray:
    """(S, S) the overlap of every two runs of ``data`` as the trials compute it (:func:`carterette_trial`'s
    "jaccard": mean over topics of |A n B| / |A u B| of the lists as cut, 0 for a topic neither returns), from one
    sparse run x document product a topic."""
    from scipy import sparse

    n_runs, n_topics, _ = data.docs.shape
    total = np.zeros((n_runs, n_runs))
    for t in range(n_topics):
        docs = data.docs[:, t, :]
        run, rank = np.nonzero(docs >= 0)
        _, column = np.unique(docs[run, rank], return_inverse=True)
        incidence = sparse.csr_matrix((np.ones(len(run)), (run, column)),
                                      shape=(n_runs, int(column.max(initial=-1)) + 1))
        both = (incidence @ incidence.T).toarray()
        size = np.diag(both)
        either = size[:, None] + size[None, :] - both
        total += np.divide(both, either, out=np.zeros_like(both), where=either > 0)
    return total / n_topics


def overlap_spread(data: TrialData) -> pd.DataFrame:
    """How the pairs of runs of ``data`` spread over Table 4's overlap bins (:data:`OVERLAP_LABELS`): pairs and
    share per bin. The trials draw their runs at random, so this is the spread their pairs will have."""
    overlaps = run_overlaps(data)
    upper = overlaps[np.triu_indices(len(overlaps), k=1)]
    index = np.clip(np.searchsorted(np.asarray(OVERLAP_EDGES), upper, side="right") - 1, 0, len(OVERLAP_LABELS) - 1)
    counts = np.bincount(index, minlength=len(OVERLAP_LABELS))
    return pd.DataFrame({"pairs": counts, "share": counts / max(counts.sum(), 1)},
                        index=pd.Index(list(OVERLAP_LABELS), name="overlap"))


def mark_degenerate(plan, *, data: TrialData | None = None, results: ExperimentResults | None = None,
                    share: float = ONE_BIN_SHARE):
    """Record on ``plan`` (:meth:`evalkit.papers.needs.Plan.mark_degenerate`) the studies that sit in one bin here:
    ``"overlap"`` when at least ``share`` of the pairs of runs of ``data`` fall in one of Table 4's overlap bins
    (the rows by overlap then say nothing about overlap), ``"confidence"`` when at least ``share`` of RTC's pairs
    in ``results`` fall in one confidence bin (Table 2's and Figure 2's rows say nothing about confidence). Returns
    the plan."""
    if data is not None:
        spread = overlap_spread(data)
        top = spread["share"].idxmax()
        if len(spread) and spread.loc[top, "share"] >= share:
            plan.mark_degenerate(
                "overlap", f"{spread.loc[top, 'share']:.0%} of the {int(spread['pairs'].sum()):,} pairs of runs share "
                f"{top} of their top {data.docs.shape[2]} documents: Table 4 sits in one bin",
                "lists cut deeper (depth, where the qrels reach) or runs that share more documents would spread it")
    if results is not None and len(results.pairs):
        shares, *_ = binned(results.pairs["p_rtc"], results.pairs["true_delta"])
        top = int(np.argmax(shares))
        if shares[top] >= share:
            restore = ("a stronger aggregation prior (a larger a in prior=(a, a)) or a lower alpha"
                       if top == len(shares) - 1 else "a higher alpha (more judgments)")
            plan.mark_degenerate("confidence", f"{shares[top]:.0%} of RTC's {len(results.pairs):,} pairs are in the "
                                 f"confidence bin {BIN_LABELS[top]}: Table 2 sits in one bin", restore)
    return plan


def deviations(plan, *, dataset: str = "", choice=None, results: ExperimentResults | None = None,
               paper_prior: ExperimentResults | None = None) -> pd.DataFrame:
    """Where this replication deviates from the paper: one row a difference, with why and its effect (computed
    where the run measures it: the prior from ``results`` beside ``paper_prior``, the same trials at the paper's
    Beta(1, 1); the trials from W-bar's interval; the scaling from ``plan``)."""
    n = len(results.trials) if results is not None else plan["trials"]
    rows = [("Tables 2–4 pool five collections (ad hoc 94, 96–99); only Table 5's ad hoc 99 column is TREC-8",
             "only TREC-8 is at hand",
             "values are compared with ad hoc 99 only; pooled figures read 'not comparable', orderings "
             "'direction only'" + ("" if "trec" in dataset.lower().replace("-", "") else
                                    f" ({dataset} is not TREC-8: every value claim reads 'not comparable')"))]
    prior = plan["prior"]
    if prior is None and choice is not None:
        what = (f"the aggregation prior Beta({choice.prior:g}, {choice.prior:g}), chosen by topic-split "
                f"cross-validation on {dataset} (the paper: Beta(1, 1), after smoothing trained on TREC-4)")
    else:
        what = (f"the aggregation prior Beta({prior[0]:g}, {prior[1]:g}), set by the user (the paper: Beta(1, 1), "
                "after smoothing trained on TREC-4)") if prior is not None else "the aggregation prior"
    effect = "not measured here (set prior_trials to run the paper's prior)"
    if results is not None and paper_prior is not None and len(paper_prior.trials):
        same = results.trials["trial"] < len(paper_prior.trials)
        kept = ExperimentResults(results.trials[same], results.pairs[results.pairs["trial"] < len(paper_prior.trials)])
        w, w1 = w_bar_interval(kept), w_bar_interval(paper_prior)
        effect = (f"W̄ {w.estimate:.2f} {w.bounds('.2f')} against {w1.estimate:.2f} {w1.bounds('.2f')} at "
                  "Beta(1, 1) on "
                  f"the same {len(paper_prior.trials)} trials; median judgments {kept.trials['judged_rtc'].median():g} "
                  f"against {paper_prior.trials['judged_rtc'].median():g}")
    rows.append((what, "TREC-4 is not at hand, and with Beta(1, 1) the kit's RTC stops after 10 judgments, far too "
                 "sure (Section 4)", effect))
    if results is not None:
        w = w_bar_interval(results)
        rows.append((f"{n} trials ({len(results.pairs):,} pairs), not \"over 1,000 trials\" a bin",
                     "time: a trial of MTC, RTC and IP takes about a second on TREC-8",
                     f"RTC's W̄ is known to {w.bounds('.2f')} (95% over trials)"))
    if plan["depth"] != PAPER_DEPTH:
        rows.append((f"lists cut at {plan['depth']} instead of {PAPER_DEPTH}", "the collection is judged to that depth "
                     "(or the user set it)", "the truth is MAP on those lists; overlaps are of those lists"))
    if plan["k"] != 10:
        rows.append((f"k = {plan['k']} runs a trial instead of 10", "the collection's runs (or the user's k)",
                     f"{plan['k'] * (plan['k'] - 1) // 2} pairs a trial instead of 45"))
    rows += [
        ("MTC's document weight reconstructed from ΔAP's form (evalkit.confidence.selection)",
         "the 2006 paper that defines it is not among the sources", "not measured: no other reading is implemented"),
        ("Platt calibration with a Beta(1, 1) prior on its coefficients and its slope kept >= 0",
         "the paper names no prior; without one the fit diverges on the few top-ranked judgments",
         "not measured (platt_slope='free' is available)"),
        ("an intercept in the aggregation (Eq. 2)", "without it a document no expert ranks gets p = 0.5",
         "not measured (intercept=False is available)"),
        ("while the two original runs are judged, RTC's experts are those two runs",
         "the paper does not say; the researcher has nothing else yet",
         "not measured (rtc_experts='all' is available)"),
        ("overlap: mean over topics of |A ∩ B| / |A ∪ B| of the lists as cut",
         "the paper cites Aslam & Savell's 'average percentage of documents retrieved in common' without a formula",
         "not measured (overlap='fraction', |A ∩ B| / depth, is available)"),
        ("the bin '1.0' read as confidence in [0.99, 1]", "the paper's bins name only 1.0", "—"),
    ]
    return pd.DataFrame(rows, columns=["what differs from the paper", "why", "effect"])
