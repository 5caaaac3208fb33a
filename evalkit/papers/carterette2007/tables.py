"""Carterette (2007): pure functions from the trials' results to DataFrames: the paper's Tables 2-4 and Figure 2
reproduced (:func:`table2`, :func:`table2_summary`, :func:`figure2_data`, :func:`table3`, :func:`table4`), the
paired tests, the numbers Sec. 5 quotes (:func:`budget_summary`, :func:`overlap_accuracy`), RTC's summary and
the prior-strength sweep (:func:`prior_strength_table`, the one function here that runs trials: a row a
strength), the diagnostics' summary, and the kit beside the paper (:func:`paper_comparison`,
:func:`grouped_comparison`, :func:`prior_comparison`). The scoring of a prediction (Sec. 4.4): :func:`winnings`,
:func:`confidence_bins`, :func:`binned`."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

from evalkit.confidence import ExpertAggregation
from evalkit.data.collection import Collection
from evalkit.papers.carterette2007.experiment import (
    PAIR_TYPES,
    ExperimentResults,
    TrialData,
    run_experiment,
)
from evalkit.papers.carterette2007.paper import (
    BIN_EDGES,
    BIN_LABELS,
    PAPER_ADHOC99,
    PAPER_TABLE2,
    PAPER_TEXT,
    TABLE2_SUMMARY_ROWS,
)


def confidence_bins(confidence, edges=BIN_EDGES) -> np.ndarray:
    """Bin index of each confidence in [0.5, 1]: left-closed bins, the last one closed on both sides."""
    confidence = np.asarray(confidence, np.float64)
    index = np.searchsorted(np.asarray(edges), confidence, side="right") - 1
    return np.clip(index, 0, len(edges) - 2)


def _predictions(p_negative, true_delta):
    """(confidence, correct, usable) for P(dMAP < 0) against the true dMAP."""
    p = np.asarray(p_negative, np.float64)
    truth = np.asarray(true_delta, np.float64)
    says_negative = p >= 0.5
    confidence = np.where(says_negative, p, 1.0 - p)
    correct = np.where(says_negative, truth < 0, truth > 0)
    usable = truth != 0
    return confidence, correct, usable


def winnings(confidence, correct, cap: float = 100.0) -> np.ndarray:
    """W_i = (y_i - P_i) / (1 - P_i) for the bookmaker of Sec. 4.4, -W capped at ``cap`` (0 when P = 1, y = 1)."""
    p = np.asarray(confidence, np.float64)
    y = np.asarray(correct, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(p < 1.0, (y - p) / (1.0 - p), np.where(y > 0, 0.0, -np.inf))
    return np.maximum(w, -cap)


def binned(p_negative, true_delta, edges=BIN_EDGES):
    """Per confidence bin (``edges``) of the predictions P(dMAP < 0) against the true dMAP (pairs whose true dMAP
    is 0 left out): (share of pairs, accuracy, pairs, mean confidence) as arrays, and W-bar over all the pairs."""
    confidence, correct, usable = _predictions(p_negative, true_delta)
    confidence, correct = confidence[usable], correct[usable]
    index = confidence_bins(confidence, edges)
    n_bins = len(edges) - 1
    counts = np.bincount(index, minlength=n_bins)
    hits = np.bincount(index, weights=correct, minlength=n_bins)
    sums = np.bincount(index, weights=confidence, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = np.where(counts > 0, hits / np.maximum(counts, 1), np.nan)
        mean_confidence = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    share = counts / max(counts.sum(), 1)
    w_bar = float(winnings(confidence, correct).mean()) if len(confidence) else np.nan
    return share, accuracy, counts, mean_confidence, w_bar


def table2(results: ExperimentResults) -> pd.DataFrame:
    """Table 2, the binned part: per confidence bin the share of pairs, the accuracy and the number of pairs, for
    MTC and RTC (fractions, not percentages). The summary rows (W-bar, judgments, tau) are in
    :func:`table2_summary`."""
    pairs = results.pairs
    columns = {}
    for name in ("mtc", "rtc"):
        share, accuracy, counts, _, _ = binned(pairs[f"p_{name}"], pairs["true_delta"])
        columns[(name.upper(), "% in bin")] = list(share)
        columns[(name.upper(), "accuracy")] = list(accuracy)
        columns[(name.upper(), "pairs")] = list(counts.astype(float))
    table = pd.DataFrame(columns, index=list(BIN_LABELS))
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    table.index.name = "confidence"
    return table


def table2_summary(results: ExperimentResults) -> pd.DataFrame:
    """Table 2, the summary rows: W-bar, median and mean judgments to reach alpha on the first pair, and mean
    Kendall tau, one column per algorithm (IP: its tau at MTC's number of judgments)."""
    pairs, trials = results.pairs, results.trials
    columns = {}
    for name in ("mtc", "rtc"):
        *_, w_bar = binned(pairs[f"p_{name}"], pairs["true_delta"])
        judged = trials[f"judged_{name}"].astype(float)
        columns[name.upper()] = [w_bar, float(judged.median()), float(judged.mean()),
                                 float(trials[f"tau_{name}"].mean())]
    columns["IP"] = [np.nan, np.nan, np.nan, float(trials["tau_ip"].mean()) if "tau_ip" in trials else np.nan]
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
        share, accuracy, counts, mean_confidence, _ = binned(results.pairs[f"p_{name}"], results.pairs["true_delta"], edges)
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
        columns[(label, "accuracy")] = list(accuracy) + [w_bar, float(len(subset))]
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


#: the strengths a = b of the aggregation prior compared by :func:`prior_strength_table`
PRIOR_STRENGTHS = (1.0, 10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0)


def prior_strength_table(data: TrialData | Collection, strengths=PRIOR_STRENGTHS, n_trials: int = 100,
                         seed: int = 2007, *, coefficient_uncertainty: bool = False, scheduler: str | None = None,
                         n_jobs: int | None = None, progress: bool = True, **trial_kwargs) -> pd.DataFrame:
    """RTC with the aggregation prior Beta(a, a) for each a in ``strengths`` (the same ``n_trials`` trials, same
    seed, for each; MTC and IP are skipped). One row per a: median and mean judgments to reach alpha on the first
    pair, the share of pairs in the top bin (confidence >= 0.99) and its accuracy, W-bar, and mean tau. The
    paper's own figures for TREC-8 (Table 5, ad hoc 99): W-bar -0.44, median 179 judgments.
    ``coefficient_uncertainty`` turns on :class:`~evalkit.confidence.ExpertAggregation`'s option."""
    if isinstance(data, Collection):
        data = TrialData.from_collection(data)
    base = dict(trial_kwargs.pop("model_kwargs", {}) or {})
    rows = []
    for a in strengths:
        model = ExpertAggregation(prior=(float(a), float(a)), coefficient_uncertainty=coefficient_uncertainty, **base)
        res = run_experiment(data, n_trials, seed, scheduler=scheduler, n_jobs=n_jobs, progress=progress,
                             model=model, run_mtc=False, **trial_kwargs)
        rows.append({"a = b": float(a), **rtc_summary(res)})
    return pd.DataFrame(rows)


def rtc_summary(results: ExperimentResults, algorithm: str = "rtc") -> dict:
    """The few numbers that describe a set of trials: trials, median / mean judgments, share of pairs in the top
    confidence bin and its accuracy, W-bar, mean tau."""
    algorithm = algorithm.lower()
    share, accuracy, _, _, w_bar = binned(results.pairs[f"p_{algorithm}"], results.pairs["true_delta"])
    judged = results.trials[f"judged_{algorithm}"].astype(float)
    return {"trials": len(results.trials), "median judged": float(judged.median()), "mean judged": float(judged.mean()),
            "top-bin share": float(share[-1]), "top-bin accuracy": float(accuracy[-1]), "W_bar": w_bar,
            "mean tau": float(results.trials[f"tau_{algorithm}"].mean())}


def choose_prior(table: pd.DataFrame) -> float:
    """The strength a of :func:`prior_strength_table` with the best (highest) W-bar, the paper's summary of
    calibration (closer to 0 is better, positive counts as good); on ties the weakest."""
    best = table["W_bar"].max()
    return float(table.loc[table["W_bar"] == best, "a = b"].min())


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


def _usable_predictions(pairs: pd.DataFrame, algorithm: str):
    confidence, correct, usable = _predictions(pairs[f"p_{algorithm}"], pairs["true_delta"])
    return confidence, correct.astype(np.float64), usable


def budget_summary(results: ExperimentResults, threshold: int = 100, algorithm: str = "rtc") -> pd.DataFrame:
    """The numbers Sec. 5 quotes about the size of the judgment sets, kit beside paper (pooled ad hoc sets).

    Trials are grouped by the judgments ``algorithm`` made to reach the target confidence on the first pair:
    the share of trials with at most ``threshold`` judgments, W-bar and accuracy at confidence >= 0.9 over those
    trials' pairs; accuracy at confidence >= 0.9 for trials above the median; and ("overfitting") the mean number
    of judgments behind wrong predictions over that behind right ones, for all pairs and for confidence >= 0.95.
    """
    algorithm = algorithm.lower()
    pairs, trials = results.pairs, results.trials
    judged = trials.set_index("trial")[f"judged_{algorithm}"]
    pair_judged = pairs["trial"].map(judged).to_numpy(np.float64)
    confidence, correct, usable = _usable_predictions(pairs, algorithm)
    median = float(judged.median())

    def accuracy(mask):
        mask = mask & usable
        return float(correct[mask].mean()) if mask.any() else np.nan

    def w_bar(mask):
        mask = mask & usable
        return float(winnings(confidence[mask], correct[mask]).mean()) if mask.any() else np.nan

    def ratio(mask):
        mask = mask & usable
        wrong, right = pair_judged[mask & (correct == 0)], pair_judged[mask & (correct == 1)]
        return float(wrong.mean() / right.mean()) if len(wrong) and len(right) and right.mean() > 0 else np.nan

    small = pair_judged <= threshold
    large = pair_judged > median
    everything = np.ones(len(pairs), bool)
    rows = [
        (f"share of trials with ≤ {threshold} judgments", float((judged <= threshold).mean()),
         PAPER_TEXT["share_sets_le_100_judgments"]),
        (f"W_bar, trials with ≤ {threshold} judgments", w_bar(small), PAPER_TEXT["W_bar_sets_le_100_judgments"]),
        (f"accuracy at confidence ≥ 0.9, trials with ≤ {threshold} judgments", accuracy(small & (confidence >= 0.9)),
         PAPER_TEXT["accuracy_conf_ge_0.9_sets_le_100_judgments"]),
        (f"accuracy at confidence ≥ 0.9, trials above the median ({median:g}; paper 235)",
         accuracy(large & (confidence >= 0.9)), PAPER_TEXT["accuracy_conf_ge_0.9_sets_gt_235_judgments"]),
        ("judgments behind wrong / right predictions, all pairs", ratio(everything), "> 1.5 (around 0.97)"),
        ("judgments behind wrong / right predictions, confidence ≥ 0.95", ratio(confidence >= 0.95),
         "> 1.5 (around 0.97)"),
    ]
    return pd.DataFrame(rows, columns=["statistic", f"kit {algorithm.upper()}", "paper (pooled ad hoc)"]).set_index("statistic")


def overlap_accuracy(results: ExperimentResults, low: float = 0.0, high: float = 0.1) -> pd.DataFrame:
    """Accuracy of MTC, IP and RTC on the pairs whose overlap is in [low, high) (Sec. 5, "Worst case").

    MTC and RTC predict the sign with P(dMAP < 0) >= 0.5; IP with the sign of the judged-only dMAP of IP's
    judgments (a tie, e.g. no relevant document judged for either run, counts as half right). Pairs whose true
    dMAP is 0 are left out. The paper gives MTC and IP about 0.60 and RTC 0.876 for overlap 0-0.1.
    """
    pairs = results.pairs
    chosen = ((pairs["overlap"] >= low) & (pairs["overlap"] < high)).to_numpy()
    truth = pairs["true_delta"].to_numpy(np.float64)
    usable = chosen & (truth != 0)
    paper = {"MTC": PAPER_TEXT["mtc_ip_accuracy_overlap_0_0.1"], "IP": PAPER_TEXT["mtc_ip_accuracy_overlap_0_0.1"],
             "RTC": PAPER_TEXT["rtc_accuracy_overlap_0_0.1"]} if (low, high) == (0.0, 0.1) else {}
    rows = []
    for name in ("MTC", "IP", "RTC"):
        if name == "IP":
            if "ip_delta" not in pairs:
                continue
            ip = pairs["ip_delta"].to_numpy(np.float64)
            score = np.where(ip == 0, 0.5, (np.sign(ip) == np.sign(truth)).astype(np.float64))
        else:
            _, score, _ = _usable_predictions(pairs, name.lower())
        value = float(score[usable].mean()) if usable.any() else np.nan
        rows.append({"algorithm": name, "accuracy": value, "pairs": int(usable.sum()), "paper": paper.get(name, np.nan)})
    return pd.DataFrame(rows).set_index("algorithm")


def grouped_comparison(kit_table: pd.DataFrame, paper: dict) -> pd.DataFrame:
    """:func:`table3` / :func:`table4` beside :data:`PAPER_TABLE3` / :data:`PAPER_TABLE4`: for each group the kit's
    accuracy per bin and W-bar, the paper's, and the number of pairs behind the kit's figure."""
    columns = {}
    for group, numbers in paper.items():
        if group not in kit_table.columns.get_level_values(0):
            continue
        kit = kit_table[(group, "accuracy")]
        columns[(group, "kit")] = [kit[label] for label in BIN_LABELS] + [kit["W_bar"]]
        columns[(group, "paper")] = [numbers["accuracy"][label] for label in BIN_LABELS] + [numbers["W_bar"]]
        columns[(group, "pairs")] = [kit_table[(group, "pairs")][label] for label in BIN_LABELS] + [kit["pairs"]]
    table = pd.DataFrame(columns, index=list(BIN_LABELS) + ["W_bar"], dtype=np.float64)
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
