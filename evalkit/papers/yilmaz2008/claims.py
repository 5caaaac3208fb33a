"""Yilmaz, Kanoulas & Aslam 2008: the paper's statements beside the kit's numbers (:func:`claims`), each rated by a
written rule of :mod:`evalkit.claims.rules` on the figure's interval (:mod:`evalkit.papers.yilmaz2008.intervals`),
the verdicts under each variance form (:func:`sensitivity`), and the findings in words (:func:`findings_markdown`),
every number and conclusion computed from the results."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalkit.claims import rules
from evalkit.claims.rules import Rating
from evalkit.papers.yilmaz2008.experiment import (
    DEFAULT_SEED,
    FIGURE3_ESTIMATORS,
    FIGURE4_ESTIMATORS,
    CIValidation,
    Figure2Trials,
    Sweep,
)
from evalkit.papers.yilmaz2008.gold import Gold
from evalkit.papers.yilmaz2008.intervals import (
    MIN_BLOCKS,
    MIN_SD_SAMPLES,
    MIN_SEEDS,
    MIN_TRIALS,
    PAPER_BLOCK,
    bias_interval,
    coverage_interval,
    figure2_interval,
    ks_interval,
    sd_ratio_interval,
    smoothing_variance_interval,
    sweep_bias,
    sweep_margins,
    tied_depths,
)
from evalkit.papers.yilmaz2008.paper import (
    DEFAULT_FORM,
    PAPER_FIGURE2_SHARE,
    PAPER_FORM,
    PAPER_KS_NOT_REJECTED,
    PAPER_TREC8_JUDGMENTS,
)
from evalkit.papers.yilmaz2008.tables import (
    BIAS_PARTS,
    bias_breakdown,
    coverage_over_trials,
    ks_table,
)

PAPER = "Yilmaz, Kanoulas & Aslam 2008"
#: "the greatest majority of the confidence intervals" cover MAP: read as at least this share of the runs
GREATEST_MAJORITY = 0.90


def _pct(value: float) -> str:
    return f"{value:.0%}"


def _joined(values, fmt="{:.0%}") -> str:
    return "/".join(fmt.format(v) for v in values)


def _parts(parts: list[tuple[str, Rating, object]], every: bool, fmt: str = ".3f", limit: int = 8) -> Rating:
    """``parts`` (label, rating, interval) combined by :func:`evalkit.claims.rules.combine`; the interval text
    lists each part compactly (with more than ``limit`` parts, the ones not rated yes first, then how many more)
    and says once how the intervals were found."""
    combined = rules.combine([r for _, r, _ in parts], every=every)
    methods = list(dict.fromkeys(f"{i.level:.0%} {i.method}" for _, _, i in parts if i is not None and i.method))
    shown = [p for p in parts if p[2] is not None]
    if len(shown) > limit:
        shown = sorted(shown, key=lambda p: p[1].agrees == "yes")
        rest = len(shown) - limit
        shown = shown[:limit]
    else:
        rest = 0
    text = "; ".join(f"{label}: {i.estimate:{fmt}} {i.bounds(fmt)} {r.agrees}" for label, r, i in shown)
    if rest:
        text += f"; {rest} more parts"
    return Rating(combined.agrees, text + (f" ({', '.join(methods)})" if methods else ""), combined.rule)


def _class_size(count: int, needed: int, what: str, why: str) -> str:
    """``not_rated`` for a figure computed from fewer ``what`` than its rule needs (``""`` when enough)."""
    return f"at class size ({count} {what}; {why} needs {needed})" if count < needed else ""


def _names(forms) -> str:
    return ", ".join(f"'{f}'" for f in forms)


def _degenerate(plan, key: str) -> str:
    return plan.degenerate_reason(key) if plan is not None else ""


# ------------------------------------------------------------------------------------------------- claims


def claims(gold: Gold, fig1: pd.DataFrame | None = None, validation: CIValidation | None = None,
           fig2: Figure2Trials | pd.DataFrame | None = None, fig3: Sweep | None = None, fig4: Sweep | None = None,
           form: str = DEFAULT_FORM, alpha: float = 0.05, plan=None, seed: int = DEFAULT_SEED) -> list:
    """The paper's statements beside the kit's numbers (:class:`evalkit.claims.Claim` rows) for whatever parts
    were run, each rated on its interval by a rule of :mod:`evalkit.claims.rules`.

    ``validation``: :func:`~evalkit.papers.yilmaz2008.experiment.ci_validation` (its blocks give the KS pass rates'
    spread); ``fig2``: :func:`~evalkit.papers.yilmaz2008.experiment.figure2_trials` (Figure 2 over seeds; a one-sample
    frame of :func:`~evalkit.papers.yilmaz2008.experiment.figure2` gives only the share row); ``plan``: the
    notebook's :func:`~evalkit.papers.yilmaz2008.plan.plan` (its degenerate studies are not rated). A figure from
    fewer trials, samples or seeds than its rule needs (:data:`~evalkit.papers.yilmaz2008.intervals.MIN_TRIALS`,
    ...) reads ``not rated at class size``. ``fig1`` (one sample) is only quoted beside the coverage over samples.
    """
    from evalkit.claims import Claim

    data = gold.collection.name
    out = [Claim(PAPER, f"size of the depth-{gold.depth} pool of the contributing runs (TREC-8: depth 100)",
                 f"{PAPER_TREC8_JUDGMENTS:,}", f"{gold.n_pooled:,}", data,
                 note="the truth of every experiment here; exact (no randomness)",
                 **rules.exact(gold.n_pooled - PAPER_TREC8_JUDGMENTS, 0, "pool size - 86,830").fields())]
    if validation is not None and validation.trials > 1:
        out += _validation_claims(validation, fig1, form, alpha, plan, seed, data)
    if isinstance(fig2, Figure2Trials):
        out += _figure2_claims(fig2, gold, plan, data)
    elif isinstance(fig2, pd.DataFrame):
        out += _figure2_share_claim(fig2.groupby("k", sort=False)["share"].first(), gold, data)
    if fig3 is not None:
        out += _figure3_claims(fig3, plan, seed, data)
    if fig4 is not None:
        out += _figure4_claims(fig4, gold, plan, seed, data)
    out.append(Claim(PAPER, "TREC-9 and TREC-10 panels", "same conclusions as TREC-8",
                     "not run: the data are not available here", data, "",
                     "point the notebook's dataset at a TREC-9/10 directory to run them"))
    return out


def _validation_claims(v: CIValidation, fig1, form, alpha, plan, seed, data) -> list:
    from evalkit.claims import Claim

    ps = [p for p in v.p_values if not _degenerate(plan, f"validation at p = {p:g}")]
    degenerate = "; ".join(_degenerate(plan, f"validation at p = {p:g}") for p in v.p_values if p not in ps)
    all_degenerate = degenerate if not ps else ""
    shown = _joined(v.p_values)
    few_samples = _class_size(v.trials, MIN_TRIALS, "samples per p", "an interval over samples")
    if v.block_size < PAPER_BLOCK:
        few_blocks = _class_size(v.block_size, PAPER_BLOCK, "samples per run", "the KS test at the paper's power")
    elif v.blocks < MIN_BLOCKS:
        few_blocks = (f"one repetition of the experiment (validation_blocks = {v.blocks}): a pass rate needs its "
                      f"spread over at least {MIN_BLOCKS} repetitions")
    else:
        few_blocks = ""
    left_out = [p for p in v.p_values if p not in ps]
    skipped = (f"; p = {_joined(left_out)} not rated: {degenerate}" if degenerate and ps else "")
    rows = []

    def per_p(values, fmt="{:.0%}"):  # a degenerate p's figures are undefined (sd 0): named, never printed as nan
        return "/".join(fmt.format(x) if p in ps else "degenerate" for p, x in zip(v.p_values, values))

    # Figure 1: coverage of the 95% intervals, over the samples
    parts = [(f"p={p:.0%}", *_rated(rules.at_least, coverage_interval(v, p, form, seed), GREATEST_MAJORITY,
                                     "coverage"))
             for p in ps]
    cov = coverage_over_trials(v, [form])
    one = ""
    if fig1 is not None:
        g = fig1[fig1.form == form].groupby("p", sort=False)["covers"].mean()
        one = f"; Figure 1's one sample: {per_p(g)}"
    rating = _parts(parts, every=True) if parts else Rating("inconclusive")
    rows.append(Claim(PAPER, f"Fig. 1: 95% CIs of mean infAP cover the actual MAP (p = {shown})",
                      f"the greatest majority (read: >= {GREATEST_MAJORITY:.0%} of runs)",
                      f"mean over {v.trials} samples {per_p(cov['mean'])} of runs ({form}; one sample ranges "
                      f"{per_p([f'{a:.0%}-{b:.0%}' for a, b in zip(cov['min'], cov['max'])], '{}').replace('/', ', ')})"
                      f"{one}", data,
                      note="graded on the mean over samples: every run shares a sample, so one sample's coverage "
                           "swings widely" + skipped,
                      not_rated=all_degenerate or few_samples, **rating.fields()))

    # the KS test, over blocks of the paper's 100 samples
    table = ks_table(v, alpha)
    kit = table[table.form == form]
    parts = [(f"p={p:.0%}", *_rated(rules.at_least, ks_interval(v, p, form, "not rejected", alpha),
                                     PAPER_KS_NOT_REJECTED, "share not rejected"))
             for p in ps]
    rating = _parts(parts, every=True, fmt=".2f") if parts else Rating("inconclusive")
    paper_form = table[table.form == PAPER_FORM]
    rows.append(Claim(PAPER, f"KS test of the deviations (in sds) against N(0,1), {v.block_size} samples, alpha = "
                      f"{alpha}: share of runs not rejected", f"{PAPER_KS_NOT_REJECTED:.0%}",
                      f"{per_p(kit['not rejected'])} at p = {shown} ({form}"
                      + (f"; median over {v.blocks} blocks of {v.block_size}" if v.blocks > 1 else "") + ")"
                      + (f"; {per_p(paper_form['not rejected'])} with the paper's formula"
                         if len(paper_form) and form != PAPER_FORM else ""), data,
                      note="a pass rate of one experiment of 100 samples swings between repetitions: rated on its "
                           "spread over blocks; the bias and the variance are kept apart in the next rows" + skipped,
                      not_rated=all_degenerate or few_blocks, **rating.fields()))

    # infAP's bias
    if v.parts is not None:
        b = bias_breakdown(v)
        parts = [(f"p={p:.0%}", *_rated_size(rules.small, bias_interval(v, p, seed), "score", "the bias"))
                 for p in ps]
        rating = _parts(parts, every=True) if parts else Rating("inconclusive")
        rows.append(Claim(PAPER, "infAP is an unbiased estimator of AP (Sec. 2), so mean infAP - MAP is centred "
                          "on 0", "unbiased, by construction",
                          f"E[mean infAP] - MAP = {per_p(b['bias'], '{:+.3f}')} at p = {shown}; "
                          f"{per_p(b['runs low by > 2 SE'])} of runs low by > 2 SE; parts: empty topics "
                          f"{per_p(b[BIAS_PARTS[0]], '{:+.3f}')}, smoothing to 1/2 "
                          f"{per_p(b[BIAS_PARTS[1]], '{:+.3f}')}, ratio estimator "
                          f"{per_p(b[BIAS_PARTS[2]], '{:+.3f}')}", data,
                          note="topics with no sampled relevant document score 0; with nothing sampled above a "
                               "relevant document the precision above is smoothed to 1/2; the rest is the ratio "
                               "estimator's bias" + skipped,
                          not_rated=all_degenerate or few_samples, **rating.fields()))

    # the paper's variance, with the bias removed
    if PAPER_FORM in v.forms:
        parts = [(f"p={p:.0%}", *_rated(rules.at_least, ks_interval(v, p, PAPER_FORM, "not rejected (bias removed)",
                                                                     alpha), PAPER_KS_NOT_REJECTED,
                                         "share not rejected"))
                 for p in ps]
        rating = _parts(parts, every=True, fmt=".2f") if parts else Rating("inconclusive")
        ratio = paper_form["empirical / estimated sd"]
        rows.append(Claim(PAPER, "the variance of infAP (Sec. 2, Appendix: the estimate plugged into the "
                          "hypergeometric formula) fits: with the bias removed the KS test passes",
                          f"{PAPER_KS_NOT_REJECTED:.0%} not rejected",
                          f"paper's formula: empirical / estimated sd {per_p(ratio, '{:.2f}')}; bias removed "
                          f"{per_p(paper_form['not rejected (bias removed)'])} pass (kit's {form}: "
                          f"{per_p(kit['not rejected (bias removed)'])})", data,
                          note="'bias removed' centres each run on its own mean over the samples (the KS test is "
                               "then conservative); which form's sd is right: the rows beyond the paper" + skipped,
                          not_rated=all_degenerate or few_blocks, **rating.fields()))
        for f in v.forms:
            parts = [(f"p={p:.0%}", *_rated_size(rules.comparable, sd_ratio_interval(v, p, f, seed), "relative",
                                                 "empirical / estimated sd - 1"))
                     for p in ps]
            rating = _parts(parts, every=True) if parts else Rating("inconclusive")
            ratio = table.loc[table.form == f, "empirical / estimated sd"]
            rows.append(Claim(PAPER, f"the variance form '{f}' is right: the empirical sd of mean infAP over the "
                              "samples equals the estimated one", "(the kit's reconstruction)",
                              f"empirical / estimated sd {per_p(ratio, '{:.2f}')} at p = {shown} (median over "
                              "runs)", data, note="the Appendix leaves the population proportion unknown: the kit "
                                                  "tries four forms (VARIANCE_FORMS)" + skipped,
                              not_rated=all_degenerate or _class_size(v.trials, MIN_SD_SAMPLES, "samples per p",
                                                                      "an sd within the 'comparable' margin"),
                              scope="beyond", **rating.fields()))

    # footnote 4: smoothing's effect on the variance
    if v.unsmoothed is not None:
        parts = [(f"p={p:.0%}", *_rated_size(rules.small, smoothing_variance_interval(v, p, seed), "relative",
                                             "sd with / without smoothing - 1"))
                 for p in ps]
        rating = _parts(parts, every=True) if parts else Rating("inconclusive")
        rows.append(Claim(PAPER, "footnote 4: the effect of smoothing on the variance of infAP is negligible",
                          "negligible", "sd of mean infAP over the samples, with trec_eval's smoothing / without "
                          "(precision above 0 where nothing above was sampled) - 1: "
                          + ", ".join(f"{i.estimate:+.3f}" for _, _, i in parts) + f" at p = {_joined(ps)}", data,
                          note="median over runs" + skipped,
                          not_rated=all_degenerate or _class_size(v.trials, MIN_SD_SAMPLES, "samples per p",
                                                                  "a ratio of sds within the 'small' margin"),
                          **rating.fields()))
    return rows


def _rated(rule, interval, threshold, what):
    return rule(interval, threshold, what), interval


def _rated_size(rule, interval, scale, what):
    return rule(interval, scale, what), interval


def _figure2_share_claim(shares: pd.Series, gold: Gold, data: str) -> list:
    from evalkit.claims import Claim

    known = [int(k) for k in shares.index if int(k) in PAPER_FIGURE2_SHARE]
    if not known or gold.depth != 100:
        return []
    worst = max(abs(shares[k] - PAPER_FIGURE2_SHARE[k]) for k in known)
    return [Claim(PAPER, f"Fig. 2: share of the depth-{gold.depth} pool judged by depth-"
                  + "/".join(map(str, known)) + " + equal random",
                  "/".join(f"{PAPER_FIGURE2_SHARE[k]:.1%}" for k in known),
                  "/".join(f"{shares[k]:.1%}" for k in known), data,
                  note="the paper's shares are TREC-8's; the design's size is fixed by the pool (no randomness)",
                  **rules.exact(worst, 0.005, "largest difference of the shares").fields())]


def _figure2_claims(f2: Figure2Trials, gold: Gold, plan, data: str) -> list:
    from evalkit.claims import Claim

    stats = f2.stats()
    shares = stats.groupby("k", sort=False)["share"].first()
    rows = _figure2_share_claim(shares, gold, data)
    depths = [k for k in f2.depths if not _degenerate(plan, f"figure 2 at k = {k}")]
    skipped = [k for k in f2.depths if k not in depths]
    not_rated = ("; ".join(_degenerate(plan, f"figure 2 at k = {k}") for k in skipped) if not depths else
                 _class_size(f2.trials, MIN_SEEDS, "seeds", "a spread over seeds"))
    note = f"; k = {', '.join(map(str, skipped))} not rated (the whole pool judged)" if skipped and depths else ""
    kit = stats[stats.smoothing == f2.smoothings[0]].groupby("k", sort=False)
    parts = [(f"k={k}", *_rated_size(rules.small, figure2_interval(f2, k, "mean error"), "score",
                                     "mean error of mean xinfAP"))
             for k in depths]
    rating = _parts(parts, every=True) if parts else Rating("inconclusive")
    rows.append(Claim(PAPER, "Fig. 2: xinfAP is an unbiased estimator of AP (mean xinfAP - MAP near 0) at depth-"
                      + "/".join(map(str, f2.depths)) + " + random", "unbiased",
                      "mean error " + ", ".join(f"k={k}: {m:+.4f}" for k, m in kit["mean error"].median().items())
                      + f" (median over {f2.trials} seeds)", data,
                      note="sample_eval's smoothing lifts xinfAP where the random stratum is thinly sampled "
                           "(the smoothing table)" + note, not_rated=not_rated, **rating.fields()))
    if (~f2.judged).sum() > 2 and f2.judged.sum() > 2:
        parts = [(f"k={k}", *_rated_size(rules.comparable, figure2_interval(f2, k, "RMS (unjudged) - RMS (judged)"),
                                         "score", "RMS (unjudged runs) - RMS (judged runs)"))
                 for k in depths]
        rating = _parts(parts, every=True, fmt=".4f") if parts else Rating("inconclusive")
        rows.append(Claim(PAPER, "Fig. 2: xinfAP evaluates runs that did not build the pool (pluses) as well as "
                          "those that did", "reliably (values only in the figure)",
                          "; ".join(f"k={k}: RMS {u:.4f} unjudged vs {j:.4f} judged, tau {t:.3f} unjudged"
                                    for k, u, j, t in kit[["RMS (unjudged)", "RMS (judged)",
                                                           "tau (unjudged)"]].median().itertuples())
                          + f" (medians over {f2.trials} seeds)", data, note=note.lstrip("; "),
                          not_rated=not_rated, **rating.fields()))
    return rows


def _sweep_state(sweep: Sweep, plan, figure: str) -> tuple[list[int], list[int], str, str]:
    """The depths to rate, the degenerate ones, the reason (all degenerate) and the class-size reason."""
    tied = set(tied_depths(sweep))
    marked = {k for k in sweep.depths if _degenerate(plan, f"{figure} at k = {k}")}
    bad = sorted(tied | marked)
    good = [k for k in sweep.depths if k not in bad]
    reasons = [_degenerate(plan, f"{figure} at k = {k}") or f"degenerate (every estimator ties at k = {k})"
               for k in bad]
    few = _class_size(sweep.trials, MIN_TRIALS, "trials per depth", "an interval over trials")
    every = list(plan["sweep_all"]) if plan is not None and "sweep_all" in plan.parameters else list(sweep.depths)
    if not few and len(sweep.depths) < len(every):
        few = (f"at class size ({len(sweep.depths)} of the sweep's {len(every)} depths; a claim about every depth "
               "needs them all)")
    return good, bad, ("; ".join(reasons) if not good else ""), few


def _degenerate_rows(figure: str, bad: list[int], good: list[int], plan, data: str) -> list:
    from evalkit.claims import Claim

    if not bad or not good:
        return []
    return [Claim(PAPER, f"{figure.capitalize()} at k = {k}: the design judges the whole pool", "",
                  "every estimator equals the truth (tau 1, RMS 0)", data,
                  note="not counted for or against any estimator",
                  not_rated=_degenerate(plan, f"{figure} at k = {k}") or
                  f"degenerate (every estimator ties at k = {k})")
            for k in bad]


def _figure3_claims(sweep: Sweep, plan, seed, data) -> list:
    from evalkit.claims import Claim

    good, bad, all_bad, few = _sweep_state(sweep, plan, "figure 3")
    winner, rivals = FIGURE3_ESTIMATORS[0], FIGURE3_ESTIMATORS[1:]
    m = sweep_margins(sweep, winner, rivals, seed=seed)
    m = m[m.k.isin(good)]
    not_rated = all_bad or few
    skipped = f"; k = {', '.join(map(str, bad))} not rated (the whole pool judged)" if bad and good else ""
    direction = [(f"k={r.k} {r.statistic} vs {_short(r.rival)}",
                  rules.direction(r.interval, "xinfAP's margin over each rival (tau, rho; RMS: rival's - xinfAP's)"),
                  r.interval)
                 for r in m[m.statistic.isin(["tau", "rho", "RMS"])].itertuples()]
    rating = _parts(direction, every=True, fmt=".4f") if direction else Rating("inconclusive")
    s = sweep.summary()
    shown = s[s.k == (10 if 10 in good else (good[-1] if good else s.k.max()))]
    rows = [Claim(PAPER, "Fig. 3: xinfAP (depth + random) beats infAP (random) and infAP (depth + random) in tau, "
                  "rho and RMS at every k", "at all levels of incompleteness, all three statistics",
                  _wins(m, ("tau", "rho", "RMS")) + f"; at k={int(shown.k.iloc[0])}: tau "
                  + ", ".join(f"{t:.3f}" for t in shown.tau) + " (xinfAP, infAP random, infAP depth+random)",
                  data, note="each margin over the trials (paired), positive = xinfAP better" + skipped,
                  kind="direction", not_rated=not_rated, **rating.fields())]
    much = []
    for k in good:
        here = m[m.k == k]
        parts = [rules.much_larger(r.interval, "tau", "tau margin") for r in here[here.statistic == "tau"].itertuples()]
        parts += [rules.much_larger(r.interval, "relative", "relative RMS margin")
                  for r in here[here.statistic == "RMS relative"].itertuples()]
        closest = here[here.statistic == "tau"].sort_values("estimate").iloc[0]
        much.append((f"k={k} tau margin over {_short(closest.rival)}", rules.combine(parts, every=True),
                     closest.interval))
    rating = _parts(much, every=False, fmt=".3f") if much else Rating("inconclusive")
    margins = m[m.statistic == "tau"].groupby("k")["estimate"].min()
    rows.append(Claim(PAPER, "Fig. 3: xinfAP is *much* more accurate than both (tau, RMS) at every level of "
                      "incompleteness", "much more accurate, all levels",
                      "smallest tau margin over the rivals " + ", ".join(f"k={k}: {v:+.3f}" for k, v in
                                                                        margins.items()), data,
                      note=f"'much': tau margin >= {rules.margin('much', 'tau')} and RMS "
                           f">= {rules.margin('much', 'relative'):.0%} smaller than each rival's, per depth; partly = "
                           "much at some depths only" + skipped, kind="direction", not_rated=not_rated,
                      **rating.fields()))
    return rows + _degenerate_rows("figure 3", bad, good, plan, data)


def _short(name: str) -> str:
    return name.replace("infAP ", "").strip("()")


def _wins(margins: pd.DataFrame, statistics) -> str:
    m = margins[margins.statistic.isin(statistics)]
    ahead = m.groupby("k")["estimate"].apply(lambda e: bool((e > 0).all()))
    return f"xinfAP ahead on every statistic and rival (trial means) at {int(ahead.sum())} of {len(ahead)} depths"


def _figure4_claims(sweep: Sweep, gold: Gold, plan, seed, data) -> list:
    from evalkit.claims import Claim

    good, bad, all_bad, few = _sweep_state(sweep, plan, "figure 4")
    not_rated = all_bad or few
    skipped = f"; k = {', '.join(map(str, bad))} not rated (the whole pool judged)" if bad and good else ""
    ap = sweep_margins(sweep, FIGURE4_ESTIMATORS[0], [FIGURE4_ESTIMATORS[1]], ("tau", "RMS"), seed)
    nd = sweep_margins(sweep, FIGURE4_ESTIMATORS[2], [FIGURE4_ESTIMATORS[3]], ("tau", "RMS"), seed)
    ap, nd = ap[ap.k.isin(good)], nd[nd.k.isin(good)]
    parts = [(f"k={r.k} {name} {r.statistic}",
              rules.direction(r.interval, "the margin over the random-sample measure (tau; RMS: its - ours)"),
              r.interval)
             for name, frame in (("xinfAP", ap), ("infNDCG", nd))
             for r in frame[frame.statistic.isin(["tau", "RMS"])].itertuples()]
    rating = _parts(parts, every=True, fmt=".4f") if parts else Rating("inconclusive")
    rows = [Claim(PAPER, "Fig. 4 (4 strata): xinfAP beats infAP and infNDCG beats nDCG on random judgments of "
                  "the same size (tau and RMS)", "consistently, TREC 8, 9 and 10",
                  f"xinfAP: {_wins(ap, ('tau', 'RMS'))}; infNDCG: {_wins(nd, ('tau', 'RMS'))} (TREC-9/10 not run)"
                  .replace("xinfAP ahead", "ahead"), data, note="each margin over the trials (paired)" + skipped,
                  kind="direction", not_rated=not_rated, **rating.fields())]
    rms = nd[nd.statistic == "RMS"]
    parts = [(f"k={r.k}", rules.direction(r.interval, "RMS of nDCG (random) - RMS of infNDCG"), r.interval)
             for r in rms.itertuples()]
    rating = _parts(parts, every=True, fmt=".4f") if parts else Rating("inconclusive")
    s = sweep.summary()
    s = s[s.k.isin(good)].pivot(index="k", columns="estimator", values="RMS")
    kit = (f"RMS nDCG (random) {s[FIGURE4_ESTIMATORS[3]].min():.3f}-{s[FIGURE4_ESTIMATORS[3]].max():.3f} vs "
           f"infNDCG {s[FIGURE4_ESTIMATORS[2]].min():.3f}-{s[FIGURE4_ESTIMATORS[2]].max():.3f}") if len(s) else "-"
    rows.append(Claim(PAPER, "Fig. 4: nDCG on random judgments has a high RMS error (it does not estimate)",
                      "high RMS", kit, data, note=skipped.lstrip("; "), kind="direction", not_rated=not_rated,
                      **rating.fields()))
    bias = sweep_bias(sweep, FIGURE4_ESTIMATORS[2], seed)
    bias = bias[bias.k.isin(good)]
    parts = [(f"k={r.k}", *_rated_size(rules.small, r.interval, "score", "mean infNDCG - mean nDCG"))
             for r in bias.itertuples()]
    rating = _parts(parts, every=True, fmt=".4f") if parts else Rating("inconclusive")
    rows.append(Claim(PAPER, "footnote 3: assuming E[nDCG] = E[DCG] / E[DCG_I] gives infNDCG only a small bias",
                      "a small bias", "mean over runs of infNDCG - " + gold.ndcg_name + ": "
                      + ", ".join(f"k={r.k}: {r.estimate:+.4f}" for r in bias.itertuples()), data,
                      note="4-strata samples of Figure 4; the bias includes the smoothing of each stratum" + skipped,
                      not_rated=not_rated, **rating.fields()))
    return rows + _degenerate_rows("figure 4", bad, good, plan, data)


# ------------------------------------------------------------------------------------------ sensitivity


#: the claims the variance form decides, by a short name
SENSITIVE_CLAIMS = {
    "Fig. 1: 95% CIs": "Fig. 1 coverage",
    "KS test of the deviations": "KS test (90% not rejected)",
    "the variance form": "this form's sd is right",
}


def sensitivity(gold: Gold, validation: CIValidation, alpha: float = 0.05, plan=None,
                seed: int = DEFAULT_SEED, progress: bool = True) -> pd.DataFrame:
    """Does each verdict that depends on the variance form survive the other forms? The form is the parameter the
    kit had to reconstruct (the Appendix leaves the population proportion unknown, :data:`VARIANCE_FORMS`). For
    every form of ``validation``, the ratings of Figure 1's coverage, the KS test and that form's own sd ratio;
    no new samples (the validation computed every form on the same ones). One row per form; ``progress``: a bar
    over the forms (each form's intervals are bootstraps over every sample)."""
    from tqdm.auto import tqdm

    from evalkit.claims import grade

    c = gold.collection
    context = {"name": c.name, "n_runs": c.n_runs, "n_topics": c.n_topics}
    rows = []
    for form in tqdm(validation.forms, desc="Yilmaz 2008: verdicts per variance form", disable=not progress):
        rated = {}
        for claim in claims(gold, validation=validation, form=form, alpha=alpha, plan=plan, seed=seed):
            for start, name in SENSITIVE_CLAIMS.items():
                if claim.claim.startswith(start) and (start != "the variance form" or f"'{form}'" in claim.claim):
                    verdict = grade(claim, context)["verdict"]
                    # the table shows the verdict's word; the claims table below gives each interval
                    rated[name] = verdict.split(" (")[0] if verdict.startswith(("inconclusive", "not rated")) \
                        else verdict
        rows.append({"variance form": form, **rated})
    return pd.DataFrame(rows).set_index("variance form")


# ------------------------------------------------------------------------------------------- findings


def findings_markdown(validation: CIValidation, alpha: float = 0.05, form: str = DEFAULT_FORM,
                      seed: int = DEFAULT_SEED, plan=None) -> str:
    """The validation's findings in words, every number (and every conclusion) computed from ``validation``:
    (a) the bias of infAP and its parts, (b) which variance form fits, (c) the KS test with and without the bias,
    (d) the coverage (Markdown). A sampling rate ``plan`` marks degenerate (``validation at p = ...``) is left out
    of every conclusion and its figures read "degenerate"."""
    t = ks_table(validation, alpha)
    left_out = {p: _degenerate(plan, f"validation at p = {p:g}") for p in validation.p_values}
    kept = [p for p in validation.p_values if not left_out[p]]
    mask = np.array([p in kept for p in validation.p_values])

    def per_p(values, fmt="{:.0%}"):
        return "/".join(fmt.format(x) if p in kept else "degenerate" for p, x in zip(validation.p_values, values))

    b = bias_breakdown(validation) if validation.parts is not None else None
    ps = _joined(validation.p_values)
    blocks = (f" ({validation.blocks} blocks of {validation.block_size}: each figure of the KS test is the median "
              "over the blocks)" if validation.blocks > 1 else "")
    lines = [f"**What {validation.trials} samples at p = {ps} show**{blocks} (every number below is computed from "
             "this run):", ""]
    lines += [f"*p = {p:.0%} is left out: {why}.*" for p, why in left_out.items() if why] + ([""] if len(kept) <
                                                                                           len(left_out) else [])
    if not kept:
        return "\n".join(lines)
    if validation.block_size < PAPER_BLOCK:
        lines += [f"*Only {validation.block_size} samples per KS test (the paper's {PAPER_BLOCK}): the test has little "
                  "power to reject, so its pass rates are not rated here; the bias and the sd ratios still "
                  "show.*", ""]
    if b is not None:
        low = b["runs low by > 2 SE"]
        intervals = [bias_interval(validation, p, seed) for p in kept]
        if (b["bias"][mask] < 0).all():
            size = "falls short of MAP by " + "/".join(f"{-i.estimate:.3f} [{-i.high:.3f}, {-i.low:.3f}]"
                                                      for i in intervals)
        else:
            size = "differs from MAP by " + "/".join(f"{i.estimate:+.3f} {i.bounds()}" for i in intervals)
        small = [rules.small(i, "score").agrees for i in intervals]
        verdict = ("no bias beyond the 'small' margin" if set(small) == {"yes"} else
                   "a bias beyond the 'small' margin" if "no" in small else "a bias near the 'small' margin")
        size += "".join(f" (p = {p:.0%} degenerate)" for p in validation.p_values if p not in kept)
        lines.append(
            f"* **(a) The bias: {verdict}** ({rules.margin('small', 'score')} on the AP scale). Mean infAP {size} "
            f"(mean over runs; 95% bootstrap over the samples); {per_p(low)} of the runs are low by more than 2 "
            f"standard errors (high: {per_p(b['runs high by > 2 SE'])}); correlation of the bias with MAP "
            f"{per_p(b['corr(bias, MAP)'], '{:+.2f}')}. It splits into {per_p(b[BIAS_PARTS[0]], '{:+.3f}')} from "
            f"topics with no sampled relevant document (they score 0; {per_p(b['empty topics a trial'], '{:.1f}')} "
            f"topics a sample), {per_p(b[BIAS_PARTS[1]], '{:+.3f}')} from the smoothing to 1/2 where nothing above "
            f"a relevant document was sampled, and {per_p(b[BIAS_PARTS[2]], '{:+.3f}')} from the ratio estimator "
            "itself. The variance formula cannot see a bias.")
    fits = {f: rules.combine([rules.comparable(sd_ratio_interval(validation, p, f, seed), "relative")
                              for p in kept], every=True).agrees for f in validation.forms}
    ratios = {f: t.loc[t.form == f, "empirical / estimated sd"] for f in validation.forms}
    right = [f for f, a in fits.items() if a == "yes"]
    small_sd = [f for f in validation.forms if fits[f] == "no" and (ratios[f][mask] > 1).all()]
    large_sd = [f for f in validation.forms if fits[f] == "no" and (ratios[f][mask] < 1).all()]
    unsettled = [f for f in validation.forms if f not in right + small_sd + large_sd]
    margin = rules.margin("comparable", "relative")
    lines.append(
        "* **(b) Which variance is right.** The empirical sd of mean infAP over the samples, divided by the "
        "estimated one (median over runs; 1 = right): " + "; ".join(f"'{f}' {per_p(ratios[f], '{:.2f}')}"
                                                                   for f in validation.forms)
        + f". Within {margin:.0%} of 1 over its whole interval ('comparable'): "
        + (_names(right) if right else "no form")
        + (f"; too small (the true spread is wider): {_names(small_sd)}" if small_sd else "")
        + (f"; too large: {_names(large_sd)}" if large_sd else "")
        + (f"; not settled by these samples (the interval straddles the margin): {_names(unsettled)}"
           if unsettled else "") + ".")
    passed = {f: t.loc[t.form == f, "not rejected (bias removed)"] for f in validation.forms}
    shown = [f for f in dict.fromkeys([PAPER_FORM, form] + right + unsettled) if f in validation.forms]
    text = (f"* **(c) The KS test, kept apart.** It does not reject {per_p(t.loc[t.form == form, 'not rejected'])} "
            f"of the runs ('{form}'; the paper: {PAPER_KS_NOT_REJECTED:.0%}). With each run's bias removed: "
            + "; ".join(f"'{f}' {per_p(passed[f])}" for f in shown) + ". ")
    pass_all = [f for f in shown if (passed[f][mask] >= PAPER_KS_NOT_REJECTED).all()]
    if pass_all:
        reading = (f"with the bias removed {_names(pass_all)} pass{'es' if len(pass_all) == 1 else ''} for at least "
                   f"{PAPER_KS_NOT_REJECTED:.0%} of the runs, so what fails the test is the bias; but the test centred "
                   "on each run's own mean is weak, and whether the variance is right is read on the sd ratio above: "
                   + "; ".join(f"'{f}' " + ("right" if f in right else "too small" if f in small_sd else
                                            "too large" if f in large_sd else "not settled") for f in pass_all))
    else:
        reading = ("even without the bias the test rejects many runs: "
                   + (f"only {_names(right)} has the right variance" if right else
                      "no form's variance is shown right" + (f" (closest: {_names(unsettled)}, not settled)"
                                                               if unsettled else "")))
    lines.append(text + reading[0].upper() + reading[1:] + ".")
    cov = coverage_over_trials(validation, [form])
    if len(cov):
        intervals = [coverage_interval(validation, p, form, seed) for p in kept]
        lines.append(
            f"* **(d) Coverage.** Over the {validation.trials} samples the 95% intervals ('{form}') cover MAP for "
            + "/".join(f"{i.estimate:.0%} [{i.low:.0%}, {i.high:.0%}]" for i in intervals)
            + f" of the runs on average (95% bootstrap over the samples), one sample ranging from "
            f"{per_p(cov['min'])} to {per_p(cov['max'])}: one sample (Figure 1) says little.")
    return "\n".join(lines)


__all__ = ["claims", "findings_markdown", "sensitivity", "SENSITIVE_CLAIMS", "GREATEST_MAJORITY", "PAPER"]
