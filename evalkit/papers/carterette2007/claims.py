"""Carterette (2007): the paper's statements beside the kit's numbers (:func:`claims`, :class:`evalkit.claims.Claim`
rows) and the findings in words (the ..._markdown functions), every number computed from the results and every
sentence naming the collection it describes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalkit.papers.carterette2007.experiment import RTC_SMOOTHED, ExperimentResults
from evalkit.papers.carterette2007.paper import (
    ADHOC99,
    BIN_EDGES,
    BIN_LABELS,
    PAPER,
    PAPER_ADHOC99,
    POOLED,
)
from evalkit.papers.carterette2007.tables import (
    budget_summary,
    hypothesis_tests,
    overlap_accuracy,
    rtc_summary,
    table2,
    table2_summary,
    table3,
    table4,
    zero_judgment_trials,
)


def _w_verdict(w_bar: float) -> str:
    """W-bar near the paper's break-even (|W| < 1; the paper's collections give +0.44 to -0.67) or not."""
    if not np.isfinite(w_bar):
        return ""
    return "yes" if abs(w_bar) < 1 else "no"


def _describe(summary: dict) -> str:
    return (f"median {summary['median judged']:g} judgments, W̄ = {summary['W_bar']:.2f}, "
            f"{summary['top-bin share']:.1%} of pairs in the 1.0 bin (accuracy {summary['top-bin accuracy']:.3f}), "
            f"{summary['trials']} trials")


def claims(results: ExperimentResults, dataset: str, *, prior=RTC_SMOOTHED["prior"], prior_source: str = "",
           paper_prior: ExperimentResults | None = None, paper_prior_uncertainty: ExperimentResults | None = None,
           strength: pd.DataFrame | None = None, variance: pd.DataFrame | None = None,
           footnote: pd.DataFrame | None = None, toy: pd.DataFrame | None = None) -> list:
    """The paper's statements beside the kit's numbers (:class:`evalkit.claims.Claim` rows) for what was run.

    ``results``: the main experiment (the kit's prior ``prior``, chosen on ``prior_source``); ``paper_prior`` the
    same trials with the paper's Beta(1, 1); ``paper_prior_uncertainty`` Beta(1, 1) with the kit's
    coefficient-uncertainty option (beyond the paper); ``strength`` :func:`prior_strength_table` on this dataset;
    ``variance`` :func:`variance_monte_carlo`; ``footnote`` :func:`footnote_check`; ``toy``
    :func:`toy_distribution`."""
    from evalkit.claims import THIS_COLLECTION, Claim

    t2, summary, tests = table2(results), table2_summary(results), hypothesis_tests(results)
    acc = t2[("RTC", "accuracy")]
    lower_edges = pd.Series(BIN_EDGES[:-1], index=list(BIN_LABELS))
    robust_bins = int((acc >= lower_edges).sum())
    w_rtc, w_mtc = summary.loc["W_bar", "RTC"], summary.loc["W_bar", "MTC"]
    by_test = tests.set_index(["test", "comparison"])
    wilcoxon_p = by_test.loc[("Wilcoxon signed-rank", "judgments MTC vs RTC"), "p_value"]
    tau_p = by_test.loc[("paired t", "tau MTC vs RTC"), "p_value"]
    ip_p = by_test.loc[("paired t", "tau IP vs MTC"), "p_value"]
    median, tau = summary.loc["median judged"], summary.loc["mean tau"]
    t3 = table3(results)
    t3_w = {group: t3.loc["W_bar", (group, "accuracy")] for group in ("two original", "one original", "no original")}
    low_overlap = table4(results).loc["W_bar", ("0 – 0.1", "accuracy")]
    worst = overlap_accuracy(results, 0.0, 0.1)
    source_name = prior_source.split(" (")[0]
    source = f"kit prior Beta({prior[0]:g}, {prior[1]:g}), chosen on {source_name}" if prior_source else \
        f"kit prior Beta({prior[0]:g}, {prior[1]:g})"
    if prior_source:
        source += " (this dataset: in-sample)" if source_name == dataset else " (held out)"
    out = [
        Claim(PAPER, "RTC's confidence can be trusted on new runs: accuracy in each confidence bin >= its lower edge "
              "(Table 5, ad hoc 99)", " ".join(f"{v:.3f}" for v in PAPER_ADHOC99["accuracy"].values()),
              " ".join(f"{v:.3f}" for v in acc) + f" ({robust_bins}/7 bins robust)", dataset,
              "yes" if robust_bins == 7 else "partly" if robust_bins >= 4 else "no",
              f"{source}; the paper's Beta(1, 1) was trained on TREC-4", paper_dataset=ADHOC99, kind="direction"),
        Claim(PAPER, "RTC's bookmaker winnings are close to 0 (Table 5 ad hoc 99; Table 2 pooled)",
              "W̄ = -0.44 (ad hoc 99), -0.39 (pooled)", f"W̄ = {w_rtc:.2f} ({source})", dataset,
              _w_verdict(w_rtc), f"MTC's W̄ here: {w_mtc:.2f}; few very confident mistakes in the 1.0 bin dominate W̄ "
              "(-W capped at 100)", paper_dataset=ADHOC99),
    ]
    if paper_prior is not None:
        s = rtc_summary(paper_prior)
        best = ""
        if strength is not None and len(strength):
            top = strength.loc[strength["W_bar"].idxmax()]
            best = f"; best of a = {', '.join(f'{a:g}' for a in strength['a = b'])}: a = {top['a = b']:g}, W̄ = {top['W_bar']:.2f}"
        out.append(Claim(PAPER, "RTC at the paper's aggregation prior Beta(1, 1) is calibrated (Table 5 ad hoc 99)",
                         "W̄ = -0.44, median 179 judgments", _describe(s) + best, dataset, _w_verdict(s["W_bar"]),
                         "the fitted model tilts the mean p of one run's documents against the other's, and "
                         "SD[dMAP] over all topics is too small to absorb the tilt: the sign is decided after 10 "
                         "judgments (Section 4)", paper_dataset=ADHOC99))
    if paper_prior_uncertainty is not None:
        s = rtc_summary(paper_prior_uncertainty)
        out.append(Claim(PAPER, "beyond the paper: RTC at Beta(1, 1) with the coefficients' uncertainty added to "
                         "Var[dMAP] (Laplace + delta method)", "W̄ = -0.44, median 179 (ad hoc 99); 4.7% in the 1.0 "
                         "bin (pooled)", _describe(s), dataset, _w_verdict(s["W_bar"]),
                         "an option of the kit, off by default; not the paper's model", paper_dataset=ADHOC99))
    out += [
        Claim(PAPER, "MTC (p = 0.5) overstates confidence on new runs (Table 2)", "W̄ = -5.34; accuracy 0.683 in the 1.0 bin",
              f"W̄ = {w_mtc:.2f}; accuracy {t2.loc['1.0', ('MTC', 'accuracy')]:.3f} in the 1.0 bin", dataset,
              ("yes" if w_mtc < w_rtc else "no") if np.isfinite(w_mtc) else "", "rated on MTC's W̄ below RTC's",
              paper_dataset=POOLED, kind="direction"),
        Claim(PAPER, "RTC needs fewer judgments than MTC to reach 95% on the first pair (paired Wilcoxon)",
              "median 251 vs 235 (pooled; ad hoc 99 RTC 179), p < 0.0001",
              f"median {median['MTC']:g} vs {median['RTC']:g}, p = {wilcoxon_p:.2g}", dataset,
              "yes" if median["RTC"] < median["MTC"] and wilcoxon_p < 0.05 else "partly", paper_dataset=POOLED,
              kind="direction"),
        Claim(PAPER, "RTC ranks the k runs better than MTC (mean Kendall tau, paired t-test)",
              "0.555 vs 0.393 (pooled; ad hoc 99 RTC 0.532), p < 0.0001",
              f"{tau['RTC']:.3f} vs {tau['MTC']:.3f}, p = {tau_p:.2g}", dataset,
              "yes" if tau["RTC"] > tau["MTC"] and tau_p < 0.05 else "partly", paper_dataset=POOLED,
              kind="direction"),
        Claim(PAPER, "IP's tau at MTC's number of judgments is not significantly different from MTC's",
              "0.398 vs 0.393, not significant", f"{tau['IP']:.3f} vs {tau['MTC']:.3f}, p = {ip_p:.2g}", dataset,
              "yes" if ip_p >= 0.05 else "partly", paper_dataset=POOLED, kind="direction"),
        Claim(PAPER, "pairs of two new runs are the best calibrated (Table 3, W̄ by pair type)",
              "two -1.11, one -0.87, no original -0.27", ", ".join(f"{g.split()[0]} {v:.2f}" for g, v in t3_w.items()),
              dataset, "yes" if t3_w["no original"] >= max(t3_w.values()) else "no", paper_dataset=POOLED,
              kind="direction"),
        Claim(PAPER, "RTC stays robust for runs sharing 0-10% of documents (Table 4; text: RTC 0.876 vs MTC, IP 0.60)",
              "W̄ = +0.44; accuracy RTC 0.876, MTC 0.60, IP 0.60",
              f"W̄ = {low_overlap:.2f}; accuracy " + ", ".join(f"{a} {v:.3f}" for a, v in worst["accuracy"].items())
              + f" ({int(worst['pairs'].iloc[0])} pairs)", dataset, _w_verdict(low_overlap) if low_overlap < 0 else
              ("yes" if np.isfinite(low_overlap) else ""), paper_dataset=POOLED),
    ]
    if toy is not None:
        half = toy.loc[toy["AP"] == 0.5, "probability"].sum()
        out.append(Claim(PAPER, "toy example (Sec. 2.1): P(AP = 1/2)", "0.056", f"{half:.3f}", "toy example", "no",
                         "0.056 is P(A, C relevant, B not), whose AP is 7/12; P(AP = 0) = 0.036 agrees",
                         paper_dataset="toy example"))
    if variance is not None or footnote is not None:
        parts = []
        if footnote is not None:
            parts.append("lone ranking of n = " + "/".join(str(n) for n in footnote.index) + ": Var overstated "
                         + "/".join(f"{r:.1f}" for r in footnote["formula / Monte Carlo"]) + "x (does not shrink)")
        if variance is not None:
            parts.append(f"two-run universe {variance['median ratio'].iloc[1]:.1f}x (median over topics); "
                         f"dMAP {variance['median ratio'].iloc[-1]:.2f}x")
        checked_on = dataset if variance is not None else "simulated ranking"
        out.append(Claim(PAPER, "the closed forms for E[AP], Var[AP] have negligible error (footnote 1)",
                         "error O(n 2^-n)", "; ".join(parts), checked_on,
                         "no", "the denominator sum X is treated as the constant |R|; for dMAP, what confidence "
                         "uses, the formula matches Monte Carlo",
                         paper_dataset=THIS_COLLECTION))  # about a formula: its reference (Monte Carlo) is here
    return out


def _fmt_bins(values) -> str:
    return " ".join(f"{v:.3f}" if np.isfinite(v) else "–" for v in values)


def alpha_of(results: ExperimentResults) -> float:
    """The confidence level the trials of ``results`` judged to (0.95 unless set)."""
    return float(results.params.get("alpha", 0.95))


def findings_markdown(results: ExperimentResults, dataset: str, *, prior=RTC_SMOOTHED["prior"], prior_source: str = "",
                      variance: pd.DataFrame | None = None) -> str:
    """"Why the kit's numbers differ from the paper's", in Markdown, every number computed from ``results`` (the
    main experiment on ``dataset``) and naming the collection it describes."""
    t2, summary = table2(results), table2_summary(results)
    tests = hypothesis_tests(results).set_index(["test", "comparison"])
    wilcoxon_p = tests.loc[("Wilcoxon signed-rank", "judgments MTC vs RTC"), "p_value"]
    tau_p = tests.loc[("paired t", "tau MTC vs RTC"), "p_value"]
    ip_p = tests.loc[("paired t", "tau IP vs MTC"), "p_value"]
    budget = budget_summary(results)
    pairs = results.pairs
    usable = pairs["true_delta"] != 0
    low = (pairs["overlap"] < 0.1) & usable
    worst = overlap_accuracy(results, 0.0, 0.1)
    zero = zero_judgment_trials(results)
    trials = len(results.trials)
    n_pairs = len(pairs)
    rtc_acc = t2[("RTC", "accuracy")].to_numpy()
    paper_acc = np.array(list(PAPER_ADHOC99["accuracy"].values()))
    below = rtc_acc[:6] - paper_acc[:6]
    lines = [f"**Why the kit's numbers differ from the paper's** ({dataset}, {trials} trials, {n_pairs:,} pairs; every "
             "number here is computed from this run):", ""]
    lines.append(
        f"* **Direction.** RTC needs a median of {summary.loc['median judged', 'RTC']:g} judgments against MTC's "
        f"{summary.loc['median judged', 'MTC']:g} (Wilcoxon p = {wilcoxon_p:.2g}; the paper: 179 on ad hoc 99, 235 vs "
        f"251 pooled), ranks the {results.params.get('k', 10)} runs with τ = {summary.loc['mean tau', 'RTC']:.3f} "
        f"against MTC's {summary.loc['mean tau', 'MTC']:.3f} (p = {tau_p:.2g}; the paper 0.555 vs 0.393), and has "
        f"W̄ = {summary.loc['W_bar', 'RTC']:.2f} against MTC's {summary.loc['W_bar', 'MTC']:.2f} (the paper: -0.39 vs "
        f"-5.34 pooled, -0.44 for RTC on ad hoc 99). IP's τ is {summary.loc['mean tau', 'IP']:.3f} (p = {ip_p:.2g} "
        "against MTC; the paper: 0.398, not significant).")
    lines.append(
        f"* **The top bin.** {t2.loc['1.0', ('RTC', '% in bin')]:.1%} of RTC's pairs land in the 1.0 bin (the paper: "
        f"4.7% pooled), right {t2.loc['1.0', ('RTC', 'accuracy')]:.1%} of the time (the paper: 98.9–99.6%); each "
        "confident mistake costs up to 100 in W̄. Below 0.99 the accuracies are "
        f"{_fmt_bins(rtc_acc[:6])} against the ad hoc 99 column's {_fmt_bins(paper_acc[:6])} "
        f"({np.nanmin(below):+.3f} to {np.nanmax(below):+.3f}).")
    lines.append(
        f"* **How many judgments.** {budget.iloc[0, 0]:.0%} of the trials reach α on the first pair within 100 "
        f"judgments (the paper: 10%). Wrong predictions come from trials with {budget.iloc[4, 0]:.2f} times the "
        "judgments of right ones (the paper's 'overfitting' paragraph: more than 1.5 times).")
    if len(zero):
        right = zero["sign right"].dropna()
        text = (
            f"* **Zero-judgment trials.** In {len(zero)} of {trials} trials ({len(zero) / trials:.0%}) MTC, and so RTC, "
            "judged nothing: with every document at p = 0.5 the first pair was already at confidence α. A run that "
            "returns few documents for a topic has a small expected AP numerator over the same |R|, so p = 0.5 "
            f"ranks it low whatever it retrieved (shortest list in those trials: median {zero['shortest list'].median():g} "
            f"documents). The first pair's sign was right in {right.mean():.0%} of them, though MTC claimed at least "
            f"{alpha_of(results):.0%}.")
        wrong = zero[zero["sign right"] == 0]
        if len(wrong):
            confident_wrong = wrong.loc[(wrong["P(dMAP < 0)"] - 0.5).abs().idxmax()]  # not `worst`: used below
            prob = confident_wrong["P(dMAP < 0)"]
            said = f"P(ΔMAP < 0) = {prob:.2g}" if prob < 0.5 else f"P(ΔMAP > 0) = {1 - prob:.2g}"
            text += (f" The most confident wrong one, {confident_wrong['runs']}, had {said} on a true ΔMAP of "
                     f"{confident_wrong['true dMAP']:+.3f}.")
        lines.append(text)
    if low.any():
        lines.append(
            f"* **The worst case.** Pairs sharing under 10% of their documents ({int(low.sum())} pairs) have a median "
            f"true |ΔMAP| of {pairs.loc[low, 'true_delta'].abs().median():.3f} against "
            f"{pairs.loc[~low & usable, 'true_delta'].abs().median():.3f} for the others; IP gets "
            f"{worst.loc['IP', 'accuracy']:.0%} of them right and RTC {worst.loc['RTC', 'accuracy']:.0%} (the paper: 60% "
            "and 87.6%).")
    source = f", chosen on {prior_source}" if prior_source else ""
    lines.append(
        f"* **The prior.** Section 4 shows what the paper's Beta(1, 1) aggregation prior does to this RTC; the kit uses "
        f"Beta({prior[0]:g}, {prior[1]:g}){source}. The paper leaves out the MTC document weight (from its 2006 "
        "paper), the calibration prior, the intercept of Eq. 2 and what the experts are while the two original runs "
        "are judged: each is the kit's reading, documented in `evalkit.confidence`.")
    lines.append(
        "* **Different denominators.** Tables 2–4 pool five collections (ad hoc 94, 96–99); only Table 5's ad hoc 99 "
        f"column is TREC-8. The paper ran \"over 1,000 trials\" a bin; here {trials} trials.")
    if variance is not None:
        lines.append(
            f"* **The variance formula** overstates Var[AP] {variance['median ratio'].iloc[0]:.1f} times for a lone "
            f"ranking and {variance['median ratio'].iloc[1]:.1f} times in the two-run universe MTC/RTC compute in, but "
            f"for ΔMAP, what confidence uses, it matches Monte Carlo ({variance['median ratio'].iloc[-1]:.2f}): the "
            "overconfidence does not come from the variance formula.")
    return "\n".join(lines)


def collapse_markdown(summary: pd.DataFrame, dataset: str, n_topics: int = 50) -> str:
    """Why RTC collapses at Beta(1, 1), in words, from :func:`reestimation_summary` (on ``dataset``, with
    ``n_topics`` topics); every number is read from ``summary``."""
    rows = summary.index
    mtc_row = next(r for r in rows if r.startswith("p = 0.5 (MTC)"))
    paper_row = next((r for r in rows if "Beta(1, 1)" in r), None)
    tilt_row = next((r for r in rows if "tilted by ±0.01" in r), None)
    if paper_row is None:
        return ""
    s = summary
    sd_fit, sd_half = s.loc[paper_row, "median SD[dMAP]"], s.loc[mtc_row, "median SD[dMAP]"]
    change = "barely changes" if abs(sd_fit / sd_half - 1) < 0.1 else ("shrinks" if sd_fit < sd_half else "grows")
    text = (
        f"**Why Beta(1, 1) collapses** ({dataset}: the first pair of {int(s.loc[paper_row, 'trials'])} trials after "
        f"their first 10 judgments). The median SD[ΔMAP] is {sd_fit:.4f} with the fitted p against {sd_half:.4f} at "
        f"p = 0.5: the variance {change}; the fitted p average {s.loc[paper_row, 'median mean p']:.2f}, with a mean "
        f"p(1 - p) of {s.loc[paper_row, 'median mean p(1 - p)']:.3f} against 0.25 at p = 0.5. With {n_topics} topics SD[ΔMAP] is only about {sd_half:.3f}, so what decides is the "
        f"*mean*: the model gives one run's unjudged documents a different mean p from the other's (median |tilt| "
        f"{s.loc[paper_row, 'median |tilt|']:.3f}), which moves E[ΔMAP] by {s.loc[paper_row, 'median |E[dMAP]|']:.3f}, "
        f"{s.loc[paper_row, 'median |E| / SD']:.0f} SDs (median). {s.loc[paper_row, 'confidence >= 0.95']:.0%} of "
        "the trials would stop right there.")
    if tilt_row is not None:
        text += (f" A tilt of ±0.01 put on p = 0.5 by hand already gives a median confidence of "
                 f"{s.loc[tilt_row, 'median confidence']:.2f} ({s.loc[tilt_row, 'confidence >= 0.95']:.0%} of the "
                 "trials would stop).")
    return text


def variance_markdown(variance: pd.DataFrame, footnote: pd.DataFrame, dataset: str, pair_names) -> str:
    """What :func:`variance_monte_carlo` (runs ``pair_names`` of ``dataset``) and :func:`footnote_check` show."""
    ratios = "/".join(f"{r:.1f}" for r in footnote["formula / Monte Carlo"])
    sizes = "/".join(str(n) for n in footnote.index)
    return (
        f"**The variance against Monte Carlo** ({dataset}, {pair_names[0]} vs {pair_names[1]}, every document at "
        f"p = 0.5): the formula overstates Var[AP] {variance['median ratio'].iloc[0]:.1f} times for a lone ranking "
        f"(median over topics), {variance['median ratio'].iloc[1]:.1f} times when |R| runs over both runs' documents "
        f"(the universe MTC and RTC work in), and for ΔAP and ΔMAP it is right: {variance['median ratio'].iloc[2]:.2f} "
        f"per topic, {variance['median ratio'].iloc[3]:.2f} for ΔMAP. For a lone ranking of n = {sizes} documents the "
        f"ratio is {ratios}: it does not shrink with n, so footnote 1's O(n 2^-n) bound on the error is wrong. "
        "Confidence rests on ΔMAP, where the approximation is harmless.")


def prior_markdown(selection: pd.DataFrame, source: str, chosen: float, strength: pd.DataFrame | None = None,
                   dataset: str = "") -> str:
    """How the prior was chosen, in words, from the strength table on the held-out ``source`` (``selection``) and,
    optionally, the same table on this ``dataset`` (``strength``)."""
    best = selection.loc[selection["W_bar"].idxmax()]
    row = selection.loc[selection["a = b"] == chosen].iloc[0]
    text = (f"**The prior, chosen on held-out data.** On {source}, the strength with the best W̄ is a = {chosen:g} "
            f"(W̄ = {row['W_bar']:.2f}, median {row['median judged']:g} judgments, {row['top-bin share']:.0%} of pairs "
            f"in the 1.0 bin); W̄ ranges from {selection['W_bar'].min():.2f} to {best['W_bar']:.2f} over "
            f"a = {', '.join(f'{a:g}' for a in selection['a = b'])}, so no strength reaches the paper's -0.44.")
    if strength is not None and len(strength):
        here = strength.loc[strength["W_bar"].idxmax()]
        same = (dataset and source.split()[0] == dataset)
        n = int(strength["trials"].iloc[0])
        text += (f" On {dataset or 'this dataset'} ({n} trial{'s' if n != 1 else ''} a strength"
                 f"{', the same collection: in-sample' if same else ', not used for the choice'}) the best is "
                 f"a = {here['a = b']:g} with W̄ = {here['W_bar']:.2f}.")
    return text
