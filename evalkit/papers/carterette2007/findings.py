"""Carterette (2007), the findings in words (the ``..._markdown`` functions and the sentence on the most confident
wrong prediction): every number computed from the results it states (the experiment's trials, their intervals from
:mod:`~evalkit.papers.carterette2007.scoring`), every sentence naming the collection it describes. The claims rows
they summarise are :mod:`~evalkit.papers.carterette2007.claims`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalkit.display.narrative import choose, plural
from evalkit.papers.carterette2007.claims import interval_ends
from evalkit.papers.carterette2007.experiment import ExperimentResults
from evalkit.papers.carterette2007.paper import (
    PAPER_ADHOC99,
    PAPER_DEPTH,
)
from evalkit.papers.carterette2007.scoring import (
    bin_intervals,
    paired_interval,
    trial_interval,
    w_bar_interval,
)
from evalkit.papers.carterette2007.tables import (
    budget_evidence,
    hypothesis_tests,
    overlap_accuracy,
    table2,
    table2_summary,
    zero_judgment_trials,
)
from evalkit.stats import Interval

__all__ = ["findings_markdown", "collapse_markdown", "variance_markdown", "prior_markdown", "lists_markdown",
           "alpha_of", "most_confident_wrong", "confident_wrong_sentence", "UNRESOLVED"]


def _percent(interval: Interval, fmt: str = ".0%") -> str:
    """``50% [30%, 70%]`` (the interval's ends only when it has them)."""
    ends = f" [{interval.low:{fmt}}, {interval.high:{fmt}}]" if interval.finite else ""
    return f"{interval.estimate:{fmt}}{ends}"


def _fmt_bins(values) -> str:
    return " ".join(f"{v:.3f}" if np.isfinite(v) else "–" for v in values)


def alpha_of(results: ExperimentResults) -> float:
    """The confidence level the trials of ``results`` judged to (0.95 unless set)."""
    return float(results.params.get("alpha", 0.95))


def most_confident_wrong(zero: pd.DataFrame):
    """The wrong prediction of :func:`zero_judgment_trials` claimed with the most confidence (the least
    min(P, 1 - P): P = 1e-22 and P = 1 - 1e-22 tie once 0.5 is subtracted in floating point, so the distance from
    certainty is compared, not the distance from 0.5); None when none is wrong. Only a P near 0 resolves that
    distance: near 1, 1 - P is lost below :data:`UNRESOLVED` (a P that rounds to 1 ties with every other), so
    :func:`confident_wrong_sentence` says so rather than naming one of the tied as the most confident."""
    wrong = zero[zero["sign right"] == 0]
    if not len(wrong):
        return None
    p = wrong["P(dMAP < 0)"].to_numpy(np.float64)
    return wrong.iloc[int(np.argmin(np.minimum(p, 1.0 - p)))]


#: below this, 1 - P for a P near 1 is not resolved in double precision (its spacing near 1 is 1.1e-16)
UNRESOLVED = 1e-15


def confident_wrong_sentence(zero: pd.DataFrame) -> str:
    """The sentence on the most confident wrong prediction among the zero-judgment trials (empty when none is
    wrong). A P(dMAP < 0) near 0 is exact to its last digit; near 1 its complement is lost below
    :data:`UNRESOLVED`, and such predictions cannot be ranked against each other or against a tiny resolved P: the
    sentence then counts them instead of naming one as the most confident."""
    wrong = zero[zero["sign right"] == 0]
    if not len(wrong):
        return ""
    p = wrong["P(dMAP < 0)"].to_numpy(np.float64)
    unresolved = (p >= 0.5) & (1.0 - p < UNRESOLVED)
    if unresolved.any():
        example = wrong[unresolved].iloc[0]
        count = int(unresolved.sum())
        text = (f" {count} {plural(count, 'wrong prediction')} claimed a certainty beyond double precision "
                f"(P(ΔMAP > 0) below {UNRESOLVED:.0e}, so they cannot be ranked against each other), e.g. "
                f"{example['runs']} on a true ΔMAP of {example['true dMAP']:+.3f}.")
        resolved = wrong[~unresolved]
        if not len(resolved):
            return text
        best = most_confident_wrong(resolved)
        prefix = " Of the others, the most confident"
    else:
        text, best, prefix = "", most_confident_wrong(wrong), " The most confident wrong one"
    prob = best["P(dMAP < 0)"]
    said = f"P(ΔMAP < 0) = {prob:.2g}" if prob < 0.5 else f"P(ΔMAP > 0) = {1 - prob:.2g}"
    return text + f"{prefix}, {best['runs']}, had {said} on a true ΔMAP of {best['true dMAP']:+.3f}."


def lists_markdown(depth: int, dataset: str, judged_depth: int | None = None) -> str:
    """The sentence on how deep the lists are cut, from the plan's ``depth`` (never "as in the paper" unless it is
    the paper's 100)."""
    if depth == PAPER_DEPTH:
        return f"On {dataset} the lists are cut at {depth} documents, as in the paper."
    why = (f"the judged depth of {dataset}" if judged_depth is not None and depth >= judged_depth else "as set")
    return (f"On {dataset} the lists are cut at {depth} documents ({why}; the paper's {PAPER_DEPTH}, as deep as "
            "ad hoc 99 was judged), and the truth is MAP on those lists.")


def findings_markdown(results: ExperimentResults, dataset: str, *, prior=(1000.0, 1000.0), prior_source: str = "",
                      variance: pd.DataFrame | None = None) -> str:
    """"Why the kit's numbers differ from the paper's", in Markdown, every number computed from ``results`` (the
    main experiment on ``dataset``), trial figures with their 95% interval over trials."""
    t2, summary = table2(results), table2_summary(results)
    tests = hypothesis_tests(results).set_index(["test", "comparison"])
    wilcoxon_p = tests.loc[("Wilcoxon signed-rank", "judgments MTC vs RTC"), "p_value"]
    budget = budget_evidence(results)
    pairs = results.pairs
    usable = pairs["true_delta"] != 0
    low = (pairs["overlap"] < 0.1) & usable
    worst = overlap_accuracy(results, 0.0, 0.1)
    zero = zero_judgment_trials(results)
    trials, n_pairs = len(results.trials), len(pairs)
    rtc_acc = t2[("RTC", "accuracy")].to_numpy()
    paper_acc = np.array(list(PAPER_ADHOC99["accuracy"].values()))
    below = rtc_acc[:6] - paper_acc[:6]
    w_rtc, w_mtc = w_bar_interval(results, "rtc"), w_bar_interval(results, "mtc")
    tau = {name: trial_interval(results, f"tau_{name}") for name in ("rtc", "mtc", "ip")}
    tau_gap = paired_interval(results, "tau_rtc", "tau_mtc")
    lines = [f"**Why the kit's numbers differ from the paper's** ({dataset}, {trials} {plural(trials, 'trial')}, "
             f"{n_pairs:,} pairs; every number here is computed from this run, [brackets] are 95% intervals over "
             "trials):", ""]
    lines.append(
        f"* **Direction.** RTC needs a median of {summary.loc['median judged', 'RTC']:g} judgments "
        f"{summary.loc['median judged', 'RTC 95% interval']} against MTC's {summary.loc['median judged', 'MTC']:g} "
        f"(Wilcoxon p = {wilcoxon_p:.2g}; the paper: 179 on ad hoc 99, 235 vs 251 pooled), ranks the "
        f"{results.params.get('k', 10)} runs with τ = {tau['rtc'].estimate:.3f} {interval_ends(tau['rtc'])} against "
        f"MTC's {tau['mtc'].estimate:.3f} (difference {tau_gap.estimate:+.3f} {interval_ends(tau_gap)}; the paper 0.555 "
        f"vs 0.393), and has W̄ = {w_rtc.estimate:.2f} {interval_ends(w_rtc, '.2f')} against MTC's {w_mtc.estimate:.2f} "
        f"{interval_ends(w_mtc, '.2f')} (the paper: -0.39 vs -5.34 pooled, -0.44 for RTC on ad hoc 99). IP's τ is "
        f"{tau['ip'].estimate:.3f} {interval_ends(tau['ip'])} (the paper: 0.398, as MTC's).")
    lines.append(
        f"* **The top bin.** {t2.loc['1.0', ('RTC', '% in bin')]:.1%} of RTC's pairs land in the 1.0 bin (the paper: "
        f"4.7% pooled), right {_percent(bin_intervals(results, 'rtc')[-1], '.1%')} of "
        "the time (the paper: 98.9–99.6%); each confident mistake costs up to 100 in W̄. Below 0.99 the accuracies "
        f"are {_fmt_bins(rtc_acc[:6])} against the ad hoc 99 column's {_fmt_bins(paper_acc[:6])} "
        f"({np.nanmin(below):+.3f} to {np.nanmax(below):+.3f}).")
    ratio = budget["wrong/right"]
    direction = choose(ratio.finite and ratio.high < 1, "fewer", choose(ratio.finite and ratio.low > 1, "more",
                                                                        "about as many"))
    lines.append(
        f"* **How many judgments.** {_percent(budget['share small'])} of the "
        "trials reach α on the first pair within 100 judgments (the paper: 10%). Wrong predictions come from trials "
        f"with {ratio.estimate:.2f} {interval_ends(ratio, '.2f')} times the judgments of right ones: {direction} (the paper's "
        "'overfitting' paragraph: more than 1.5 times).")
    if len(zero):
        right = zero["sign right"].dropna()
        text = (
            f"* **Zero-judgment trials.** In {len(zero)} of {trials} trials ({len(zero) / trials:.0%}) MTC, and "
            "so RTC, "
            "judged nothing: with every document at p = 0.5 the first pair was already at confidence α. A run that "
            "returns few documents for a topic has a small expected AP numerator over the same |R|, so p = 0.5 "
            "ranks it low whatever it retrieved (shortest list in those trials: median "
            f"{zero['shortest list'].median():g} "
            f"documents). The first pair's sign was right in {right.mean():.0%} of them, though MTC claimed at least "
            f"{alpha_of(results):.0%}.")
        text += confident_wrong_sentence(zero)
        lines.append(text)
    if low.any():
        lines.append(
            f"* **The worst case.** Pairs sharing under 10% of their documents ({int(low.sum())} pairs) have a median "
            f"true |ΔMAP| of {pairs.loc[low, 'true_delta'].abs().median():.3f} against "
            f"{pairs.loc[~low & usable, 'true_delta'].abs().median():.3f} for the others; IP gets "
            f"{worst.loc['IP', 'accuracy']:.0%} {worst.loc['IP', '95% interval']} of them right and RTC "
            f"{worst.loc['RTC', 'accuracy']:.0%} {worst.loc['RTC', '95% interval']} (as fractions; the paper: 60% "
            "and 87.6%).")
    source = f", {prior_source}" if prior_source else ""
    lines.append(
        f"* **The prior.** Section 4 shows what the paper's Beta(1, 1) aggregation prior does to this RTC; this run "
        f"uses Beta({prior[0]:g}, {prior[1]:g}){source}. The paper leaves out the MTC document weight (from its 2006 "
        "paper), the calibration prior, the intercept of Eq. 2 and what the experts are while the two original runs "
        "are judged: each is the kit's reading, documented in `evalkit.confidence`.")
    lines.append(
        "* **Different denominators.** Tables 2–4 pool five collections (ad hoc 94, 96–99); only Table 5's ad hoc 99 "
        f"column is TREC-8. The paper ran \"over 1,000 trials\" a bin; here {trials} {plural(trials, 'trial')}.")
    if variance is not None:
        from evalkit.claims.rules import margin as rule_margin

        m = rule_margin("small", "relative")
        lone, both, delta_map = (float(variance["median ratio"].iloc[i]) for i in (0, 1, -1))
        lines.append(
            f"* **The variance formula** (Var[AP], median over topics) for a lone ranking {_ratio_words(lone, m)}, "
            f"in the two-run universe MTC/RTC compute in it {_ratio_words(both, m)}, and for ΔMAP it "
            f"{_ratio_words(delta_map, m)}. {_confidence_words(delta_map, m)}")
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
        f"p(1 - p) of {s.loc[paper_row, 'median mean p(1 - p)']:.3f} against 0.25 at p = 0.5. With {n_topics} topics "
        f"SD[ΔMAP] is only about {sd_half:.3f}, so what decides is the "
        f"*mean*: the model gives one run's unjudged documents a different mean p from the other's (median |tilt| "
        f"{s.loc[paper_row, 'median |tilt|']:.3f}), which moves E[ΔMAP] by {s.loc[paper_row, 'median |E[dMAP]|']:.3f}, "
        f"{s.loc[paper_row, 'median |E| / SD']:.0f} SDs (median). {s.loc[paper_row, 'confidence >= 0.95']:.0%} of "
        "the trials would stop right there.")
    if tilt_row is not None:
        text += (f" A tilt of ±0.01 put on p = 0.5 by hand already gives a median confidence of "
                 f"{s.loc[tilt_row, 'median confidence']:.2f} ({s.loc[tilt_row, 'confidence >= 0.95']:.0%} of the "
                 "trials would stop).")
    return text


def _ratio_words(ratio: float, margin: float) -> str:
    """A formula-over-Monte-Carlo variance ratio (Carterette 2007 Sec. 2.1's Var[AP]) in words: "is within 10% of
    Monte Carlo", "overstates the variance 1.38 times" or "understates the variance (ratio 0.80)", by the kit's
    ``small`` relative margin (``margin``); NaN: "cannot be measured here"."""
    if not np.isfinite(ratio):
        return "cannot be measured here (no topic whose draws vary)"
    if abs(ratio - 1.0) <= margin:
        return f"is within {margin:.0%} of Monte Carlo (ratio {ratio:.2f})"
    return choose(ratio > 1.0, f"overstates the variance {ratio:.2f} times",
                  f"understates the variance (ratio {ratio:.2f})")


def _confidence_words(delta_map: float, margin: float) -> str:
    """What ΔMAP's formula-over-Monte-Carlo variance ratio means for the confidence MTC and RTC report (Carterette
    2007 Eq. 1 rests on Var[ΔMAP]), by the kit's ``small`` relative margin: one sentence."""
    if not np.isfinite(delta_map):
        return "Confidence rests on ΔMAP, whose ratio cannot be measured here."
    if abs(delta_map - 1.0) <= margin:
        return f"Confidence rests on ΔMAP, where the formula is within the kit's {margin:.0%} margin of Monte Carlo."
    if delta_map > 1.0:
        return (f"Confidence rests on ΔMAP, whose variance the formula overstates by {delta_map - 1:.0%}: "
                "P(ΔMAP < 0) is then less extreme than it should be (confidence on the cautious side).")
    return (f"Confidence rests on ΔMAP, whose variance the formula understates by {1 - delta_map:.0%}: "
            "P(ΔMAP < 0) is then more extreme than it should be (overconfident).")


def variance_markdown(variance: pd.DataFrame, footnote: pd.DataFrame, dataset: str, pair_names) -> str:
    """What :func:`variance_monte_carlo` (runs ``pair_names`` of ``dataset``) and :func:`footnote_check` show for
    Carterette 2007 Sec. 2.1's Var[AP] (and footnote 1's O(n 2^-n) error bound); how the lone-ranking ratio moves
    with n is read from ``footnote``. Every verdict word follows the ratios: a ratio within the kit's ``small``
    relative margin of 1 (:func:`evalkit.claims.rules.margin`, 0.10) is "within 10%", beyond it "overstates" or
    "understates", and ΔMAP's verdict (what the confidence rests on) says which way the confidence moves."""
    from evalkit.claims.rules import margin as rule_margin

    m = rule_margin("small", "relative")
    values = footnote["formula / Monte Carlo"].to_numpy(np.float64)
    ratios = " → ".join(f"{r:.1f}" for r in values)
    sizes = "/".join(str(n) for n in footnote.index)
    finite = values[np.isfinite(values)]
    last_n = footnote.index[-1]
    if len(finite) and (np.abs(finite - 1.0) <= m).all():
        trend = (f"it stays within {m:.0%} of 1 at every n, as footnote 1's vanishing O(n 2^-n) error would have "
                 "it")
    elif len(values) > 1 and values[-1] < values[0]:
        still = choose(abs(values[-1] - 1.0) > m,
                       f"is still {values[-1]:.2f} at n = {last_n}, more than {m:.0%} from 1: not the vanishing "
                       "O(n 2^-n) error footnote 1 states",
                       f"comes within {m:.0%} of 1 by n = {last_n}")
        trend = (f"it shrinks with n (from {values[0]:.1f} to {values[-1]:.1f} over a "
                 f"{footnote.index[-1] / footnote.index[0]:g}-fold longer ranking) and {still}")
    else:
        trend = "it does not shrink with n, so footnote 1's O(n 2^-n) bound on the error is wrong"
    median = variance["median ratio"]
    lone, both, delta_ap, delta_map = (float(median.iloc[i]) for i in range(4))
    rests = _confidence_words(delta_map, m)
    return (
        f"**The variance against Monte Carlo** ({dataset}, {pair_names[0]} vs {pair_names[1]}, every document at "
        f"p = 0.5, median over topics): for a lone ranking the formula {_ratio_words(lone, m)}; when |R| runs over "
        f"both runs' documents (the universe MTC and RTC work in) it {_ratio_words(both, m)}; for ΔAP per topic it "
        f"{_ratio_words(delta_ap, m)}, and for ΔMAP it {_ratio_words(delta_map, m)}. For a lone ranking of "
        f"n = {sizes} documents the ratio is {ratios}: {trend}. {rests}")


def prior_markdown(choice, dataset: str, *, prior=None, second: pd.DataFrame | None = None,
                   second_name: str = "", constant: dict | None = None) -> str:
    """How the aggregation prior was chosen, in words: ``choice`` the topic-split cross-validation
    (:func:`~evalkit.papers.carterette2007.prior.prior_cross_validation`, or None when the user set ``prior``), the
    second opinion's strength table on ``second_name`` (``second``), and what a constant p keeps of RTC
    (``constant``, :func:`~evalkit.papers.carterette2007.prior.constant_p_evidence` of the main experiment)."""
    parts = []
    if choice is not None:
        split = choice.split
        a, b = choice.chosen.get("A"), choice.chosen.get("B")
        grid = ", ".join(f"{s:g}" for s in split.strengths)
        pairs = zip(choice.held_out.items(), reversed(list(choice.held_out)))
        held = "; ".join(f"a = {choice.chosen[o]:g} (chosen on half {o}) gives W̄ = {i.estimate:.2f} "
                         f"{interval_ends(i, '.2f')} on half {part}" for (part, i), o in pairs)
        parts.append(
            f"**The prior, chosen on {dataset} by topic-split cross-validation.** The "
            f"{sum(len(h) for h in split.halves.values())} "
            f"topics were split at random (seed {split.seed}) into half A ({len(split.halves['A'])} topics: "
            f"{', '.join(split.topic_ids['A'])}) and half B ({len(split.halves['B'])} topics: the others). On "
            "each half "
            f"RTC alone ran {split.n_trials} {plural(split.n_trials, 'trial')} at every a = {grid} (the same runs at "
            f"every a); half A's best W̄ is at a = {a:g}, half B's at a = {b:g}"
            + choose(choice.agree, ": the halves agree.", ": the halves disagree.")
            + f" Held out, each half's choice scored on the other half's topics: {held}. The kit uses "
            f"a = {choice.prior:g}, the best W̄ over both halves' trials together ({choice.pooled.estimate:.2f} "
            f"{interval_ends(choice.pooled, '.2f')})"
            + (f"; it beats the runner-up a = {choice.runner_up:g} by {choice.margin.estimate:+.2f} "
               f"{interval_ends(choice.margin, '.2f')} on the same trials"
               + choose(choice.margin.finite and choice.margin.low > 0, "", " (an interval that holds 0: the choice "
                        "is within the noise)") if choice.margin is not None else "")
            + ". Every topic took part in that choice, so the W̄ of the main experiment at that strength is not a "
            "held-out figure; the held-out figures are the two just given."
            + choose(choice.prior == max(split.strengths) or choice.prior == min(split.strengths),
                     f" The choice lies at the edge of the grid (a = {choice.prior:g}): a strength beyond it might do "
                     "better.", ""))
    elif prior is not None:
        parts.append(f"**The prior, set by the user**: Beta({prior[0]:g}, {prior[1]:g}); nothing was run to choose it.")
    if second is not None and len(second):
        best = second.loc[second["W_bar"].idxmax()]
        at_choice = second.loc[second["a = b"] == (choice.prior if choice is not None else -1)]
        parts.append(
            f"**A second opinion** on {second_name} ({int(second['trials'].iloc[0])} "
            f"{plural(int(second['trials'].iloc[0]), 'trial')} a strength), which played no part in the choice: "
            "its best "
            f"W̄ is at a = {best['a = b']:g} ({best['W_bar']:.2f} {best['W_bar 95% interval']})"
            + (f"; at the chosen a = {choice.prior:g} it is {at_choice['W_bar'].iloc[0]:.2f} "
               f"{at_choice['W_bar 95% interval'].iloc[0]}" if choice is not None and len(at_choice) else "") + ".")
    if constant:
        near = constant["range"] < 0.02
        d = constant["difference"]
        verdict = choose(d.finite and d.low > 0, "the fitted p still rank the runs better than a constant p",
                         choose(d.finite and d.high < 0, "a constant p ranks the runs better than the fitted p",
                                "the fitted p rank the runs no differently from a constant p (the interval holds 0)"))
        parts.append(
            f"**What is left of the expert model.** In this run the fitted p of the unjudged documents span "
            f"{constant['range']:.3f} (median over trials of max - min; standard deviation "
            f"{constant['sd']:.4f}) around "
            f"{constant['mean']:.3f}"
            + choose(near, ": RTC reduces to a near-constant p.", ".")
            + f" A constant p equal to their mean gives τ = {constant['tau_constant'].estimate:.3f} "
            f"{interval_ends(constant['tau_constant'])} against RTC's {constant['tau_rtc'].estimate:.3f} "
            f"{interval_ends(constant['tau_rtc'])} (difference {d.estimate:+.3f} {interval_ends(d)}): {verdict}.")
    return "\n\n".join(parts)
