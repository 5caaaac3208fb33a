"""Soboroff (2007): each claim's figure, its interval and its rating by the written rules
(:mod:`evalkit.claims.rules`), computed from a study; shared by the claims table
(:mod:`evalkit.papers.soboroff2007.claims`) and the sweep over the slope
(:mod:`evalkit.papers.soboroff2007.sensitivity`).

How each figure's uncertainty is read (the claims' ``interval`` column says it again):

* Figure 1 (Kendall's tau, runs whose infAP is not below MAP) and the sample's statistics are one number a draw of
  the sample: their **spread over the draws** (:func:`evalkit.stats.spread_interval`; graded only from
  :data:`~evalkit.papers.soboroff2007.presets.MIN_DRAWS` draws or more);
* figures that are sums or means over topics, runs or groups (the new relevant documents a judgment, the per-topic
  differences, leave one group out, the uniform sample, MAP on the pool) are first averaged over the draws, then
  read with a **bootstrap over the topics, runs or held-out groups** (:func:`evalkit.stats.ratio_interval`,
  :func:`evalkit.stats.bootstrap_interval`; leave one group out resamples whole groups, whose runs share their
  documents);
* the ANOVAs' sample effects are **tests over all the subsamples**: the rating is the test's decision at the
  paper's alpha (its p against 0.05), the interval column gives the p and the number of subsamples; a test's power
  grows with the subsamples, so its decision is compared with the paper's only from the paper's 100;
* the claim that "the variance across samples should not be a worry" reads how far a run's mean infAP moves from
  subsample to subsample (1.96 standard deviations over the subsamples), averaged over the runs, with a bootstrap
  over the runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from evalkit.claims import rules
from evalkit.claims.rules import Rating
from evalkit.papers.soboroff2007.paper import PAPER_ANOVA, PAPER_FIGURE1, PAPER_SAMPLE
from evalkit.papers.soboroff2007.presets import MIN_DRAWS
from evalkit.stats import Interval, bootstrap_interval, ratio_interval, spread_interval

__all__ = ["Graded", "grade_study", "DEGENERATE_KEYS", "PAPER_YIELD", "NOT_LOWER_SHARE", "SWEEP_KEYS"]

#: TB06's new relevant documents a new judgment, as a fraction of the target rpt: 14 of 211 against 20 of 200
#: (0.66), what the paper calls "quite accurate"; the kit's figure is graded against it
PAPER_YIELD = (PAPER_SAMPLE["beyond_pool_relevant"] / PAPER_SAMPLE["beyond_pool_docs"]) / PAPER_SAMPLE["rpt"]
#: "for all but four runs, the infAP score is lower": graded as at most this share of the runs not lower
NOT_LOWER_SHARE = 0.10

#: claim -> the degenerate parts of the design (:func:`evalkit.papers.soboroff2007.plan.degenerate_checks`) that
#: leave it nothing to measure
DEGENERATE_KEYS = {
    "beyond": ("sampling",), "accuracy": ("depth", "sampling"), "tau": ("sampling",), "not_lower": ("sampling",),
    "deep_topics": ("sampling", "near_full"), "logo": ("sampling",), "anova_replicates": ("sampling",),
    "anova_mixed": ("sampling",), "runs_significant": ("sampling",), "variance": ("sampling",),
    "uniform": ("sampling",),
}

#: the claims whose figure depends on the slope (what the sensitivity sweep re-grades)
SWEEP_KEYS = ("accuracy", "not_lower", "deep_topics", "logo", "anova_replicates", "anova_mixed", "runs_significant",
              "variance", "uniform")


@dataclass(frozen=True)
class Graded:
    """One claim's kit figure (``kit_value``), its ``rating`` (None when not rated), the ``interval`` text when
    there is no rating, and ``not_rated`` (why, as :class:`evalkit.claims.Claim` takes it)."""

    key: str
    kit_value: str
    rating: Rating | None = None
    interval: str = ""
    not_rated: str = ""

    @property
    def agrees(self) -> str:
        """The rating's word, or what stopped it (for the sweep's table)."""
        if self.not_rated:
            return "not rated at class size" if self.not_rated.startswith("at class size") else \
                "degenerate" if self.not_rated.startswith("degenerate") else "not rated"
        return self.rating.agrees if self.rating else "not rated"

    def fields(self) -> dict:
        """``agrees``, ``interval``, ``rule`` and ``not_rated`` for :class:`evalkit.claims.Claim`."""
        out = self.rating.fields() if self.rating else {"agrees": "", "interval": self.interval, "rule": ""}
        return {**out, "not_rated": self.not_rated}


def _degenerate(key: str, degenerate: dict) -> str:
    for part in DEGENERATE_KEYS.get(key, ()):
        if part in degenerate:
            return f"degenerate ({degenerate[part]})"
    return ""


def _few_draws(n: int, min_draws: int) -> str:
    return f"at class size ({n} draws; a spread over draws is graded from {min_draws})" if n < min_draws else ""


def _test(p: float, n: int, alpha: float) -> Rating:
    """A test's decision at the paper's alpha, as a rating: ``yes`` (not significant) when p >= alpha. The p is
    already a statement over all ``n`` subsamples: its "interval" is the p itself."""
    rating = rules.at_least(Interval(p, p, p, method=f"F test over {n} subsamples", n=n), alpha,
                            "p of the sample effect", ".3g")
    return replace(rating, interval=f"p = {p:.3g} (F test over {n} subsamples)")


def _p(p: float) -> str:
    """A test's p in words; a test that cannot be computed (its error term does not vary) says so, not "nan"."""
    return f"p = {p:.3g}" if math.isfinite(p) else "no p: the subsamples do not vary (nothing to test)"


def _mean(values, n: int) -> str:
    return f"{float(np.mean(values)):.4f}" if n else "none"


def _few_subsamples(n: int) -> str:
    paper = PAPER_ANOVA["n_subsamples"]
    return f"at class size ({n} subsamples; the paper's tests used {paper})" if n < paper else ""


def _group_interval(logo, column_a: str, column_b: str) -> Interval:
    """Mean over held-out runs of column_a - column_b, resampling whole groups (a cluster bootstrap)."""
    groups = logo.by_group()
    return ratio_interval((groups[column_a] - groups[column_b]).to_numpy(), groups["runs"].to_numpy(),
                          unit="held-out groups")


def grade_study(study, degenerate: dict | None = None, min_draws: int = MIN_DRAWS, alpha: float = 0.05) -> dict:
    """Every claim of the study graded: key -> :class:`Graded`. ``degenerate``: the plan's degenerate parts (key ->
    the number that shows it; default: :func:`~evalkit.papers.soboroff2007.plan.degenerate_checks` of the study's
    design). ``min_draws``: below it a spread over draws is not rated (:data:`MIN_DRAWS`; the sweep passes 1 and
    says its size)."""
    from evalkit.papers.soboroff2007.plan import NEAR_FULL_RATE, degenerate_checks

    degenerate = degenerate_checks(study.sample.table) if degenerate is None else degenerate
    out: dict[str, Graded] = {}
    d, sample = study.draws, study.sample
    s = sample.summary()
    n = d.n
    per = d.per_draw

    def add(key, kit, rating=None, interval="", not_rated=""):
        reason = _degenerate(key, degenerate) or not_rated
        if reason and rating is not None:  # not rated: the interval is shown, no rating word
            interval, rating = rating.interval, None
        out[key] = Graded(key, kit, rating, interval, reason)

    cap = sample.params["max_depth"]
    add("depths", f"{s['depth_min']}-{s['depth_max']}, mean {s['depth_mean']:.0f} ({s['topics_capped']} of "
                  f"{s['topics']} topics capped at {cap})",
        not_rated="a property of the collection: the depths follow from its phase-1 relevant documents and its "
                  "judged depth")
    docs = spread_interval(per.docs_per_topic, unit="draws")
    add("documents", f"{docs.estimate:.0f} ({spread_interval(per.relevant_per_topic).estimate:.1f})",
        interval=docs.text(".0f"), not_rated="a property of the collection (its pool's size and relevant documents)")
    beyond = spread_interval(per.beyond_docs, unit="draws")
    relative = spread_interval((per.beyond_docs - PAPER_SAMPLE["beyond_pool_docs"]) / PAPER_SAMPLE["beyond_pool_docs"],
                               unit="draws")
    add("beyond", f"{beyond.estimate:.0f} ({spread_interval(per.beyond_relevant).estimate:.1f})",
        rules.comparable(relative, "relative", "documents beyond the pool, relative to TB06's 211", ".3f"),
        not_rated=_few_draws(n, min_draws))
    new = spread_interval(per.topics_new_relevant, unit="draws")
    add("new_topics", f"{new.estimate:.0f} ({spread_interval(per.topics_20_new_relevant).estimate:.0f}) of "
                      f"{s['topics']}", interval=new.text(".0f"),
        not_rated="a property of the collection (how many relevant documents lie below the phase-1 pool)")

    rpt = sample.params["rpt"]
    yield_ = ratio_interval(d.new_relevant.mean(axis=0), d.sampled_beyond.mean(axis=0) * rpt, unit="topics")
    new_a_topic, judged_a_topic = d.new_relevant.mean(axis=0).mean(), d.sampled_beyond.mean(axis=0).mean()
    add("accuracy", f"{new_a_topic:.1f} new relevant per {judged_a_topic:.0f} new judgments a topic: "
                    f"{yield_.estimate:.2f} of the target rpt = {rpt:.3g}",
        rules.at_least(yield_, round(PAPER_YIELD, 2), "new relevant per new judgment / rpt", ".2f"))

    tau = spread_interval(per.tau, unit="draws")
    tau_diff = spread_interval(per.tau - PAPER_FIGURE1["kendall_tau"], unit="draws")
    add("tau", f"{tau.estimate:.3f} (median over {n} draws; range {per.tau.min():.3f}-{per.tau.max():.3f})",
        rules.comparable(tau_diff, "tau", "tau - TB06's 0.8"), not_rated=_few_draws(n, min_draws))
    runs = int(per.runs.iloc[0])
    share = spread_interval(per.not_lower / runs, unit="draws")
    add("not_lower", f"{np.median(per.not_lower):.0f} of {runs} (median over {n} draws; range "
                     f"{int(per.not_lower.min())}-{int(per.not_lower.max())})",
        rules.at_most(share, NOT_LOWER_SHARE, "share of runs whose infAP is not below MAP", ".3f"),
        not_rated=_few_draws(n, min_draws))

    topics = d.topic_table()
    near = topics[topics.near_full]["mean |infAP - MAP|"]
    deep = topics[~topics.near_full]["mean |infAP - MAP|"]
    near_interval = bootstrap_interval(near.to_numpy(), unit="near-full topics")
    add("deep_topics", f"mean |infAP - MAP| {_mean(near, len(near))} on the {len(near)} topics sampled at >= "
                       f"{NEAR_FULL_RATE:.0%}, {_mean(deep, len(deep))} on the {len(deep)} sampled deeply",
        rules.small(near_interval, "score", "mean |infAP - MAP| on the nearly 100% topics", ".4f"))

    logo = study.logo_draws
    rank = _group_interval(logo, "|MAP rank change|", "|infAP rank change|")
    score = _group_interval(logo, "|infAP change|", "|MAP change|")
    r = logo.runs
    add("logo", f"mean |rank change| MAP {r['|MAP rank change|'].mean():.2f}, infAP "
                f"{r['|infAP rank change|'].mean():.2f}; mean |score change| MAP {r['|MAP change|'].mean():.4f}, "
                f"infAP {r['|infAP change|'].mean():.4f} ({len(r)} held-out runs, infAP over {logo.n} draws)",
        rules.combine([rules.direction(rank, "mean |rank change|, MAP minus infAP", "positive", ".2f"),
                       rules.comparable(score, "score", "mean |score change|, infAP minus MAP", ".4f")], every=True))

    a, K = study.anova, study.subsample_scores.shape[0]
    add("anova_replicates", f"{_p(a.sample_p)} ({K} subsamples)", _test(a.sample_p, K, alpha),
        not_rated=_few_subsamples(K))
    add("anova_mixed", f"{_p(a.sample_p_mixed)} ({K} subsamples)", _test(a.sample_p_mixed, K, alpha),
        not_rated=_few_subsamples(K))
    add("topics_significant", f"{a.topics_significant} of {len(a.topics)}",
        not_rated="a count of tests on TB06's topics: how many topics differ is a property of the collection")
    per_run = study.anova_runs
    flags = np.where(per_run.p_sample.notna(), per_run.sample_significant.astype(float), np.nan)
    tested = int(np.isfinite(flags).sum())
    significant = int(np.nansum(flags))
    runs_text = (f"nothing sampled ({degenerate['sampling']}): every subsample is the whole pool, no run can show a "
                 "sample effect" if "sampling" in degenerate else
                 f"{significant} of {tested} runs ({alpha * tested:.1f} expected by chance at {alpha:g}; {K} subsamples)")
    add("runs_significant", runs_text,
        rules.at_most(bootstrap_interval(flags, unit="runs"), alpha, "share of runs with a significant sample effect",
                      ".3f"), not_rated=_few_subsamples(K))
    means = np.nanmean(study.subsample_scores, axis=2)  # (K, S) a run's mean infAP in each subsample
    half = 1.96 * np.nanstd(means, axis=0, ddof=1) if len(means) > 1 else np.full(means.shape[1], np.nan)
    swing = bootstrap_interval(half, unit="runs")
    largest = f"{np.nanmax(half):.4f}" if np.isfinite(half).any() else "none"
    add("variance", f"a run's mean infAP moves by +-{swing.estimate:.4f} from subsample to subsample (1.96 sd, mean over "
                    f"runs; largest +-{largest}; {K} subsamples)",
        rules.small(swing, "score", "a run's mean infAP, 1.96 sd over the subsamples", ".4f"))
    add("titlestat", "not computable: run files carry no document text",
        not_rated="not computable: run files carry no document text (titlestat() takes a caller's text source)")

    u = study.uniform
    with np.errstate(divide="ignore", invalid="ignore"):
        log_ratio = np.where((u.relevant > 0) & (u.uniform_relevant > 0), np.log(u.relevant / u.uniform_relevant),
                             np.nan)
    ratio = bootstrap_interval(log_ratio, unit="topics")
    add("uniform", f"relevant judged a topic: relevance-based {u.relevant.mean():.1f}, uniform "
                   f"{u.uniform_relevant.mean():.1f} (rate {u.uniform_rate.iloc[0]:.2f} to depth {cap}); per topic "
                   f"x{math.exp(ratio.estimate):.2f} (geometric mean)",
        rules.direction(ratio, "mean log(relevance-based / uniform relevant judged)", "positive", ".3f"))
    m = study.adequacy
    error = bootstrap_interval(m.relative_error.to_numpy(), unit="pooling runs")
    add("map_adequacy", f"mean |MAP pool - MAP full qrels| / MAP {error.estimate:.3f} over {len(m)} pooling runs "
                        f"(largest {m.relative_error.max():.3f})",
        rules.small(error, "relative", "relative error of MAP on the phase-1 pool", ".3f"))
    return out
