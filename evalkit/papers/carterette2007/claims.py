"""Carterette (2007): the paper's statements beside the kit's numbers (:func:`claims`, :class:`evalkit.claims.Claim`
rows), each rated by a written rule of :mod:`evalkit.claims.rules` on its 95% interval over trials (whole trials
resampled: :mod:`~evalkit.papers.carterette2007.scoring`), the sensitivity of those ratings to the aggregation
prior (:func:`sensitivity`); the findings in words are :mod:`~evalkit.papers.carterette2007.findings`.

What makes a claim unrated here, in the grading's words (:mod:`evalkit.claims.grading`):

* ``not rated: degenerate (...)``: a study the plan marked degenerate on this collection (the overlap table or the
  confidence table in one bin: :func:`~evalkit.papers.carterette2007.tables.mark_degenerate`);
* ``not rated at class size (...)``: fewer trials than the claim's rule needs (:data:`MIN_TRIALS`: W-bar, the
  per-bin accuracies, the overlap and the budget figures are dominated by a few confident mistakes and need 100
  trials; the paired tau and median-judgment differences 20, and so does the held-out W-bar of the topic-split
  choice, whose trials a half the paper preset keeps to 30).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from evalkit.claims import THIS_COLLECTION, Claim, rules
from evalkit.display.narrative import plural
from evalkit.papers.carterette2007.experiment import ExperimentResults
from evalkit.papers.carterette2007.paper import (
    ADHOC99,
    BIN_EDGES,
    BIN_LABELS,
    PAPER,
    PAPER_ADHOC99,
    PAPER_TABLE3,
    PAPER_TABLE4,
    PAPER_TEXT,
    POOLED,
)
from evalkit.papers.carterette2007.scoring import (
    INTERVAL_SEED,
    bin_intervals,
    paired_interval,
    statistic_interval,
    trial_tallies,
    w_bar_interval,
)
from evalkit.papers.carterette2007.tables import (
    budget_evidence,
    figure2_data,
    overlap_differences,
)
from evalkit.stats import Interval, ratio_interval

__all__ = ["claims", "sensitivity", "MIN_TRIALS", "W_NEAR_ZERO", "FIGURE2_MIN_PAIRS", "FIGURE2_UP_TO"]

#: the trials a claim's rule needs (below: ``not rated at class size``): "heavy" figures (W-bar, per-bin accuracy,
#: low-overlap and budget figures, the comparable tau of IP and MTC) are moved by a few confident mistakes; "strong"
#: ones (the paired tau and median-judgment differences the paper reports at p < 0.0001) are not
MIN_TRIALS = {"heavy": 100, "strong": 20}
_NONFINITE = re.compile(r"(?i)(?<![a-z])(nan|[-+]?inf(inity)?)(?![a-z])")  # as evalkit.claims.grading reads it
#: "W-bar close to 0": at least this over its whole interval (the paper's eight collections give +0.44 to -0.67)
W_NEAR_ZERO = -1.0
#: Figure 2's fine bins rated: at least this many pairs (the paper's points hold 500), mean confidence below this
FIGURE2_MIN_PAIRS = 50
FIGURE2_UP_TO = 0.97


def _difference(interval: Interval, minus: float) -> Interval:
    """``interval`` shifted by ``-minus`` (a figure against a constant)."""
    return Interval(interval.estimate - minus, interval.low - minus, interval.high - minus, interval.level,
                    interval.method, interval.n)


def _scaled(interval: Interval, factor: float) -> Interval:
    return Interval(interval.estimate * factor, interval.low * factor, interval.high * factor, interval.level,
                    interval.method, interval.n)


class _Rows:
    """Collects the rows, each with its not_rated reason (degenerate, then class size) filled in."""

    def __init__(self, dataset: str, plan=None):
        self.dataset, self.plan, self.rows = dataset, plan, []

    def add(self, claim: str, paper_value: str, kit_value: str, rating: rules.Rating, *, paper_dataset: str = POOLED,
            kind: str = "direction", note: str = "", trials: int | None = None, need: str | None = None,
            degenerate: tuple = (), scope: str = "paper", dataset: str | None = None) -> None:
        reason = ""
        for key in degenerate:
            if self.plan is not None and self.plan.degenerate_reason(key):
                reason = self.plan.degenerate_reason(key)
                break
        if not reason and need is not None and trials is not None and trials < MIN_TRIALS[need] \
                and not _NONFINITE.search(kit_value):  # a figure that could not be computed is 'not rated: NaN'
            reason = f"at class size ({trials} trials; this rule needs {MIN_TRIALS[need]})"
        self.rows.append(Claim(PAPER, claim, paper_value, kit_value, self.dataset if dataset is None else dataset,
                               note=note, paper_dataset=paper_dataset, kind=kind, not_rated=reason, scope=scope,
                               **rating.fields()))


def interval_ends(interval: Interval, fmt: str = ".3f") -> str:
    """``[low, high]``, or what stands for it when the interval could not be computed (one trial)."""
    if interval.finite:
        return interval.bounds(fmt)
    return f"(no interval: {interval.n} {plural(interval.n, 'trial')})"


def _w_text(interval: Interval) -> str:
    return f"W̄ = {interval.estimate:.2f} {interval_ends(interval, '.2f')}"


def _main_rows(out: _Rows, results: ExperimentResults, source: str) -> None:
    """The claims about the main experiment (Tables 2-4, Figure 2, Sec. 5's text)."""
    n = len(results.trials)
    pairs = results.pairs
    acc = bin_intervals(results, "rtc")
    parts = [rules.at_least(i, edge, f"accuracy {label}") for i, edge, label in zip(acc, BIN_EDGES, BIN_LABELS)]
    below = [label for label, p in zip(BIN_LABELS, parts) if p.agrees == "no"]
    out.add("RTC's confidence can be trusted on new runs: accuracy in each confidence bin >= its lower edge "
            "(Table 5, ad hoc 99)", " ".join(f"{v:.3f}" for v in PAPER_ADHOC99["accuracy"].values()),
            " ".join(f"{i.estimate:.3f}" if i.finite or np.isfinite(i.estimate) else "–" for i in acc)
            + (f" (below the edge: {', '.join(below)})" if below else ""),
            rules.combine(parts, every=True), paper_dataset=ADHOC99, note=f"{source}; a universal claim: every bin "
            "must hold", trials=n, need="heavy", degenerate=("confidence",))
    w_rtc, w_mtc = w_bar_interval(results, "rtc"), w_bar_interval(results, "mtc")
    out.add("RTC's bookmaker winnings are close to 0 (Table 5 ad hoc 99; Table 2 pooled)",
            "W̄ = -0.44 (ad hoc 99), -0.39 (pooled)", f"{_w_text(w_rtc)} ({source})",
            rules.at_least(w_rtc, W_NEAR_ZERO, "W̄", ".2f"), paper_dataset=ADHOC99, kind="value",
            note=f"'close to 0' read as W̄ >= {W_NEAR_ZERO:g} (the paper's collections: +0.44 to -0.67); few very "
                 "confident mistakes in the 1.0 bin dominate W̄ (-W capped at 100)", trials=n, need="heavy")
    mt, rt = trial_tallies(pairs, "mtc"), trial_tallies(pairs, "rtc")
    gap = ratio_interval(rt["w"] - mt["w"], rt["pairs"], seed=INTERVAL_SEED)
    out.add("MTC (p = 0.5) overstates confidence on new runs: its W̄ is below RTC's (Table 2)",
            "W̄ = -5.34 vs -0.39; accuracy 0.683 in the 1.0 bin",
            f"MTC {_w_text(w_mtc)}, RTC {w_rtc.estimate:.2f}; RTC - MTC {gap.estimate:+.2f} {interval_ends(gap, '.2f')}",
            rules.direction(gap, "W̄ of RTC - W̄ of MTC", fmt=".2f"), trials=n, need="heavy")
    median_gap = paired_interval(results, "judged_mtc", "judged_rtc", "median")
    out.add("RTC needs fewer judgments than MTC to reach 95% on the first pair (median; paired Wilcoxon)",
            "median 251 vs 235 (pooled; ad hoc 99 RTC 179), p < 0.0001",
            f"median {results.trials['judged_mtc'].median():g} vs {results.trials['judged_rtc'].median():g}; "
            f"MTC - RTC {median_gap.estimate:+g} {interval_ends(median_gap, '.1f')}",
            rules.direction(median_gap, "median judgments of MTC - RTC", fmt=".1f"), trials=n, need="strong")
    mean_gap = paired_interval(results, "judged_mtc", "judged_rtc")
    out.add("RTC needs fewer judgments than MTC on average (mean; paired t-test)", "mean 823 vs 502 (pooled), "
            "p < 0.0001", f"mean {results.trials['judged_mtc'].mean():.0f} vs "
            f"{results.trials['judged_rtc'].mean():.0f}; "
            f"MTC - RTC {mean_gap.estimate:+.0f} {interval_ends(mean_gap, '.0f')}",
            rules.direction(mean_gap, "mean judgments of MTC - RTC", fmt=".0f"), trials=n, need="heavy",
            note="means are moved by the few trials that need thousands of judgments")
    tau = paired_interval(results, "tau_rtc", "tau_mtc")
    out.add("RTC ranks the k runs better than MTC (mean Kendall tau, paired t-test)",
            "0.555 vs 0.393 (pooled; ad hoc 99 RTC 0.532), p < 0.0001",
            f"{results.trials['tau_rtc'].mean():.3f} vs {results.trials['tau_mtc'].mean():.3f}; difference "
            f"{tau.estimate:+.3f} {interval_ends(tau)}", rules.direction(tau, "tau of RTC - MTC"), trials=n, need="strong")
    ip = paired_interval(results, "tau_ip", "tau_mtc")
    out.add("IP's tau at MTC's number of judgments is not different from MTC's (paired t-test)",
            "0.398 vs 0.393, not significant", f"{results.trials['tau_ip'].mean():.3f} vs "
            f"{results.trials['tau_mtc'].mean():.3f}; difference {ip.estimate:+.3f} {interval_ends(ip)}",
            rules.comparable(ip, "tau", "tau of IP - MTC"), trials=n, need="heavy")
    ip_rtc = paired_interval(results, "tau_rtc", "tau_ip")
    out.add("IP's tau is lower than RTC's (paired t-test)", "0.398 vs 0.555, significantly lower",
            f"{results.trials['tau_ip'].mean():.3f} vs {results.trials['tau_rtc'].mean():.3f}; RTC - IP "
            f"{ip_rtc.estimate:+.3f} {interval_ends(ip_rtc)}", rules.direction(ip_rtc, "tau of RTC - IP"), trials=n,
            need="strong")
    by_type = {n_orig: trial_tallies(pairs, "rtc", mask=(pairs["n_original"] == n_orig).to_numpy())
               for n_orig in (0, 1, 2)}

    def type_gap(other):
        a, b = by_type[0], by_type[other]
        return statistic_interval(lambda idx: a["w"][idx].sum(1) / a["pairs"][idx].sum(1)
                                  - b["w"][idx].sum(1) / b["pairs"][idx].sum(1), len(a["trials"]))

    with np.errstate(invalid="ignore", divide="ignore"):
        gaps = {other: type_gap(other) for other in (1, 2)}
    w_type = {name: ratio_interval(by_type[n_orig]["w"], by_type[n_orig]["pairs"], seed=INTERVAL_SEED)
              for n_orig, name in ((2, "two"), (1, "one"), (0, "no"))}
    out.add("pairs of two new runs are the best calibrated: their W̄ is above both other types' (Table 3)",
            ", ".join(f"{g.split()[0]} {v['W_bar']:+.2f}" for g, v in PAPER_TABLE3.items()),
            ", ".join(f"{name} {i.estimate:+.2f} {interval_ends(i, '.2f')}" for name, i in w_type.items()),
            rules.combine([rules.direction(gaps[1], "W̄ no original - one original", fmt=".2f"),
                           rules.direction(gaps[2], "W̄ no original - two original", fmt=".2f")], every=True),
            trials=n, need="heavy")
    low = (pairs["overlap"] < 0.1).to_numpy()
    differences = overlap_differences(results, 0.0, 0.1)
    accuracy = {name: ratio_interval(trial_tallies(pairs, name.lower(), mask=low)["right"],
                                     trial_tallies(pairs, name.lower(), mask=low)["pairs"], seed=INTERVAL_SEED)
                for name in ("MTC", "RTC")}
    out.add("RTC predicts pairs sharing 0-10% of their documents better than MTC and IP (Sec. 5, worst case)",
            "RTC 0.876, MTC and IP 0.60", f"RTC {accuracy['RTC'].estimate:.3f}, MTC {accuracy['MTC'].estimate:.3f}; "
            + "; ".join(f"{k} {i.estimate:+.3f} {interval_ends(i)}" for k, i in differences.items())
            + f" ({int(low.sum())} pairs)",
            rules.combine([rules.direction(i, k) for k, i in differences.items()], every=True), trials=n,
            need="heavy", degenerate=("overlap",), note="IP's ties count half right")
    w_low = w_bar_interval(results, "rtc", mask=low)
    out.add("RTC's W̄ is positive for pairs sharing 0-10% of their documents (Table 4)",
            f"W̄ = {PAPER_TABLE4['0 – 0.1']['W_bar']:+.2f}", _w_text(w_low), rules.at_least(w_low, 0.0, "W̄", ".2f"),
            kind="value", trials=n, need="heavy", degenerate=("overlap",))
    fig2 = figure2_data(results)
    fig2 = fig2[(fig2["algorithm"] == "RTC") & (fig2["pairs"] >= FIGURE2_MIN_PAIRS)
                & (fig2["mean_confidence"] < FIGURE2_UP_TO)]
    fine = np.round(np.arange(0.5, 1.0001, 0.025), 6)
    fine_acc = bin_intervals(results, "rtc", fine)
    line = [rules.at_least(fine_acc[int(round((low_edge - 0.5) / 0.025))], conf, f"accuracy {low_edge:.3f}+")
            for low_edge, conf in zip(fig2["bin_low"], fig2["mean_confidence"])]
    under = [f"{b:.3f}" for b, r in zip(fig2["bin_low"], line) if r.agrees == "no"]
    out.add(f"RTC is on or above the diagonal of Figure 2 until confidence about {FIGURE2_UP_TO}",
            "on or above at all points below about 0.97",
            f"{len(line)} bins of width 0.025 with >= {FIGURE2_MIN_PAIRS} pairs below {FIGURE2_UP_TO}"
            + (f"; below the diagonal: {', '.join(under)}" if under else ""),
            rules.combine(line, every=True) if line else rules.Rating("inconclusive", "", "no bin to rate"),
            trials=n, need="heavy", degenerate=("confidence",),
            note="each bin's accuracy >= its mean confidence over its whole interval")
    budget = budget_evidence(results)
    out.add("small judgment sets (<= 100 judgments) are more accurate at confidence >= 0.9 than sets above the "
            "median (Sec. 5)", "99.7% vs 93% (sets above the median, 235)",
            f"{budget['accuracy small'].estimate:.3f} vs {budget['accuracy large'].estimate:.3f} (median "
            f"{budget['median']:g}); difference {budget['accuracy gap'].estimate:+.3f} {interval_ends(budget['accuracy gap'])}",
            rules.direction(budget["accuracy gap"], "accuracy of small - large sets"), trials=n, need="heavy")
    share = budget["share small"]
    out.add("ten percent of the judgment sets have 100 or fewer judgments (Sec. 5)", "10%",
            f"{share.estimate:.1%} {interval_ends(_scaled(share, 100), '.1f')}%",
            rules.comparable(_difference(_scaled(share, 100), 100 * PAPER_TEXT["share_sets_le_100_judgments"]),
                             "points", "share - 10%", ".1f"), kind="value", trials=n, need="heavy")
    out.add("the small judgment sets are very reliable: W̄ >= 0 and accuracy >= 0.95 at confidence >= 0.9 (Sec. 5)",
            "W̄ = +0.41, accuracy 99.7%", f"{_w_text(budget['W small'])}; accuracy "
            f"{budget['accuracy small'].estimate:.3f} {interval_ends(budget['accuracy small'])}",
            rules.combine([rules.at_least(budget["W small"], 0.0, "W̄", ".2f"),
                           rules.at_least(budget["accuracy small"], 0.95, "accuracy")]), kind="value", trials=n,
            need="heavy")
    ratio = budget["wrong/right"]
    out.add("wrong predictions come from judgment sets with more judgments than right ones (Sec. 5, overfitting)",
            "over 50% more (ratio > 1.5)", f"ratio {ratio.estimate:.2f} {interval_ends(ratio, '.2f')}",
            rules.direction(_difference(ratio, 1.0), "ratio - 1", fmt=".2f"), trials=n, need="heavy",
            note="mean judgments of the trial behind each wrong prediction over those behind right ones")
    capped = w_bar_interval(results, "rtc", capped=True)
    lift = ratio_interval(rt["w_capped"] - rt["w"], rt["pairs"], seed=INTERVAL_SEED)
    out.add("capping confidence at 95% solves RTC's overconfidence (Sec. 6): W̄ rises to near 0",
            "a 'hack' that solves the problem (no figure)", f"capped {_w_text(capped)}; rise {lift.estimate:+.2f} "
            f"{interval_ends(lift, '.2f')}", rules.combine([rules.direction(lift, "W̄ capped - W̄", fmt=".2f"),
                                                     rules.at_least(capped, W_NEAR_ZERO, "capped W̄", ".2f")],
                                                    every=True), trials=n, need="heavy")


def claims(results: ExperimentResults, dataset: str, *, prior=(1000.0, 1000.0), prior_source: str = "",
           paper_prior: ExperimentResults | None = None, paper_prior_uncertainty: ExperimentResults | None = None,
           choice=None, constant: dict | None = None, variance: pd.DataFrame | None = None,
           footnote: pd.DataFrame | None = None, toy: pd.DataFrame | None = None, plan=None) -> list:
    """The paper's statements beside the kit's numbers (:class:`evalkit.claims.Claim` rows) for what was run, each
    rated by a rule of :mod:`evalkit.claims.rules` on its 95% interval over trials.

    ``results``: the main experiment (RTC at Beta(``prior``), chosen as ``prior_source`` says); ``paper_prior`` the
    same trials with the paper's Beta(1, 1); ``paper_prior_uncertainty`` Beta(1, 1) with the kit's
    coefficient-uncertainty option (beyond the paper); ``choice`` the topic-split choice of the prior
    (:func:`~evalkit.papers.carterette2007.prior.prior_cross_validation`, beyond the paper); ``constant``
    :func:`~evalkit.papers.carterette2007.prior.constant_p_evidence` (beyond); ``variance``
    :func:`variance_monte_carlo`; ``footnote`` :func:`footnote_check`; ``toy`` :func:`toy_distribution`; ``plan``
    the notebook's plan (its degenerate studies leave their claims unrated)."""
    out = _Rows(dataset, plan)
    source = f"kit prior Beta({prior[0]:g}, {prior[1]:g})" + (f", {prior_source}" if prior_source else "")
    _main_rows(out, results, source)
    if paper_prior is not None and len(paper_prior.trials):
        w = w_bar_interval(paper_prior)
        out.add("RTC at the paper's aggregation prior Beta(1, 1) is calibrated: W̄ close to 0 (Table 5 ad hoc 99)",
                "W̄ = -0.44, median 179 judgments", f"{_w_text(w)}, median "
                f"{paper_prior.trials['judged_rtc'].median():g} judgments, {len(paper_prior.trials)} trials",
                rules.at_least(w, W_NEAR_ZERO, "W̄", ".2f"), paper_dataset=ADHOC99, kind="value",
                note="the kit's reconstruction of RTC with the paper's stated prior (its other smoothing was trained "
                     "on TREC-4)", trials=len(paper_prior.trials), need="heavy")
    if paper_prior_uncertainty is not None and len(paper_prior_uncertainty.trials):
        w = w_bar_interval(paper_prior_uncertainty)
        out.add("beyond the paper: RTC at Beta(1, 1) with the coefficients' uncertainty added to Var[dMAP] "
                "(Laplace + delta method) has W̄ close to 0", "W̄ = -0.44, median 179 (ad hoc 99)",
                f"{_w_text(w)}, median {paper_prior_uncertainty.trials['judged_rtc'].median():g} judgments, "
                f"{len(paper_prior_uncertainty.trials)} trials", rules.at_least(w, W_NEAR_ZERO, "W̄", ".2f"),
                paper_dataset=ADHOC99, kind="value", scope="beyond",
                note="an option of the kit, off by default, not the paper's model; its figure depends on how the "
                     "coefficients' covariance enters Var[dMAP] (see evalkit.confidence.expert_model)",
                trials=len(paper_prior_uncertainty.trials), need="heavy")
    if choice is not None and choice.held_out:
        parts = [rules.at_least(i, W_NEAR_ZERO, f"W̄ on half {part}", ".2f") for part, i in choice.held_out.items()]
        out.add("beyond the paper: the prior chosen on one half of the topics is calibrated on the other half "
                "(W̄ close to 0), as the paper's TREC-4 prior was on its other collections (Table 5)",
                "W̄ -0.07 to -0.67 on the collections not trained on",
                "; ".join(f"half {part}: a = {choice.chosen[o]:g} from half {o}, {_w_text(i)}"
                          for (part, i), o in zip(choice.held_out.items(), reversed(list(choice.held_out)))),
                rules.combine(parts, every=True), paper_dataset=THIS_COLLECTION, kind="value", scope="beyond",
                trials=choice.split.n_trials, need="strong",
                note=f"{len(choice.split.halves['A'])} and {len(choice.split.halves['B'])} topics a half")
    if constant:
        d = constant["difference"]
        out.add("beyond the paper: RTC's fitted p rank the runs better than a constant p with their mean (tau)",
                "RTC's expert aggregation 'boosts performance a great deal' over uniform p (Sec. 5)",
                f"tau {constant['tau_rtc'].estimate:.3f} vs {constant['tau_constant'].estimate:.3f}; difference "
                f"{d.estimate:+.3f} {interval_ends(d)}; fitted p span {constant['range']:.3f} (median over trials)",
                rules.direction(d, "tau of RTC - constant p"), paper_dataset=THIS_COLLECTION, kind="value",
                scope="beyond", trials=len(results.trials), need="strong")
    if toy is not None:
        half = toy.loc[toy["AP"] == 0.5, "probability"].sum()
        out.add("toy example (Sec. 2.1): P(AP = 1/2)", "0.056", f"{half:.3f}",
                rules.exact(half - 0.056, 5e-4, "P(AP = 1/2) - 0.056"), paper_dataset="toy example", kind="value",
                note="0.056 is P(A, C relevant, B not), whose AP is 7/12; P(AP = 0) = 0.036 agrees",
                dataset="toy example")
    if footnote is not None:
        ratios = footnote["formula / Monte Carlo"].to_numpy(np.float64)
        errors = [_footnote_interval(row) for _, row in footnote.iterrows()]
        parts = [rules.small(e, "relative", f"relative error at n = {n}") for n, e in zip(footnote.index, errors)]
        kit = ("lone ranking of n = " + "/".join(str(n) for n in footnote.index) + ": Var overstated "
               + "/".join(f"{r:.1f}" for r in ratios) + "x")
        if variance is not None:
            kit += (f"; two-run universe {variance['median ratio'].iloc[1]:.1f}x (median over topics); "
                    f"dMAP {variance['median ratio'].iloc[-1]:.2f}x")
        out.add("the closed forms for E[AP], Var[AP] have negligible error (footnote 1)", "error O(n 2^-n)", kit,
                rules.combine(parts, every=True), paper_dataset=THIS_COLLECTION, kind="value",
                note="the denominator sum X is treated as the constant |R|; dMAP's ratio, what confidence uses, "
                     "is in the kit's value", dataset="simulated ranking")
    return out.rows


def _footnote_interval(row) -> Interval:
    """The formula's relative error (formula / Monte Carlo - 1) with a normal-approximation interval from the Monte
    Carlo variance's sampling error (``mc_relative_se``: sqrt((kurtosis - 1) / draws))."""
    ratio = float(row["formula / Monte Carlo"])
    se = float(row.get("mc_relative_se", 0.0))
    low, high = ratio / (1 + 1.96 * se) - 1, ratio / max(1 - 1.96 * se, 1e-9) - 1
    return Interval(ratio - 1, min(low, high), max(low, high), 0.95, "Monte Carlo sampling error", 0)


#: the claims :func:`sensitivity` follows across prior strengths (those RTC decides), by a short name
SENSITIVE = {
    "RTC's confidence can be trusted on new runs": "accuracy >= each bin's edge",
    "RTC's bookmaker winnings are close to 0": "W̄ close to 0",
    "MTC (p = 0.5) overstates confidence": "MTC's W̄ below RTC's",
    "RTC needs fewer judgments than MTC to reach 95%": "fewer judgments (median)",
    "RTC needs fewer judgments than MTC on average": "fewer judgments (mean)",
    "RTC ranks the k runs better than MTC": "RTC's tau above MTC's",
    "IP's tau is lower than RTC's": "RTC's tau above IP's",
    "pairs of two new runs are the best calibrated": "two new runs best calibrated",
    "RTC predicts pairs sharing 0-10%": "low overlap: RTC beats MTC and IP",
    "RTC is on or above the diagonal": "Figure 2 on or above the diagonal",
    "capping confidence at 95%": "capping at 95% solves it",
}


def sensitivity(by_strength: dict, dataset: str, plan=None) -> pd.DataFrame:
    """Does each verdict survive the reconstructed prior? For each strength a (``{a: ExperimentResults}``, the main
    experiment's trials with RTC re-run at Beta(a, a): :func:`~evalkit.papers.carterette2007.prior.with_rtc_from`),
    the rating of every claim RTC decides (:data:`SENSITIVE`), read on its interval over those trials as the claims
    table reads it (yes / no / partly / inconclusive; "degenerate" where the plan says so). Rows: the claims;
    columns: ``a = <a>``; the last row, the trials each column rests on."""
    columns = {}
    for a, res in by_strength.items():
        rows = claims(res, dataset, plan=plan)
        ratings = {}
        for row in rows:
            name = next((short for start, short in SENSITIVE.items() if row.claim.startswith(start)), None)
            if name is not None:
                ratings[name] = "degenerate" if row.not_rated.startswith("degenerate") else row.agrees
        ratings["trials"] = str(len(res.trials))
        columns[f"a = {float(a):g}"] = ratings
    table = pd.DataFrame(columns)
    order = [name for name in SENSITIVE.values() if name in table.index] + ["trials"]
    table = table.reindex(order)
    table.index.name = "claim"
    return table
