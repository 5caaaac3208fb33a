"""Model answers to the notebooks' exercises, for the solutions notebooks (issue 28.6).

Every numbered exercise of a notebook's "Exercises" cell has an entry here, keyed ``"NN.q"`` (notebook ``NN``,
question ``q``) and carrying the question's bold title, so a test can tell when a notebook's questions and these
answers drift apart. ``evalkit notebooks solutions`` appends them to each solutions notebook
(:func:`evalkit.classroom.exercises.solution_notebook`):

* an answer that states no number is Markdown, written as it is;
* an answer that states numbers has a ``compute`` function, called with the notebook's objects (``context``: the
  arguments exactly as the solutions cell writes them); its numbers come from the run the solutions notebook
  made, never typed in, so they hold on TREC-8, the synthetic collection or a collection of the user's.

An answer's text explains the mechanism the notebook teaches; where the outcome depends on the collection, it
says what to look for rather than asserting a result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from evalkit.classroom import answer_values

__all__ = ["ModelAnswer", "Answer", "MODEL_ANSWERS", "answers_for"]


class Answer(str):
    """A rendered model answer: Markdown text that shows as Markdown in a notebook."""

    def _repr_markdown_(self) -> str:
        return str(self)


@dataclass(frozen=True)
class ModelAnswer:
    """The model answer to question ``id`` (whose bold title in the notebook is ``title``): ``text`` is Markdown,
    with ``{name}`` fields filled from ``compute(**context)`` when the answer states numbers."""

    id: str
    title: str
    text: str
    compute: Callable[..., dict[str, Any]] | None = None
    context: str = ""

    def render(self, **context) -> Answer:
        values = self.compute(**context) if self.compute is not None else {}
        body = self.text.format(**values) if values else self.text
        return Answer(f"**{self.id.split('.', 1)[1]}. {self.title}** {body}")


def _fmt_runs(names) -> str:
    names = list(names)
    return ", ".join(f"`{n}`" for n in names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


# ------------------------------------------------------------------------------------------ 00 the tour


def _tour_taus(collection, depth):
    from evalkit.papers import tour

    taus = {m: float(tour.pool_depth_study(collection, [int(depth)], measure=m)["kendall tau"].iloc[0])
            for m in ("P@10", "AP")}
    return {"depth": int(depth), "tau_p10": taus["P@10"], "tau_ap": taus["AP"],
            "better": "P@10" if taus["P@10"] >= taus["AP"] else "MAP"}


def _tour_losers(collection, depth):

    judged = np.asarray(collection.judged_runs, bool)
    losers = answer_values.tour_biggest_losers(collection, depth, "P@10")
    full, shallow = answer_values.tour_score_changes(collection, depth, "P@10")
    lost = shallow < full - 1e-12
    full_ap, shallow_ap = answer_values.tour_score_changes(collection, depth, "AP")
    index = [collection.run_index(r) for r in losers]
    built = [bool(judged[i]) for i in index]
    who = ("did not build the pool" if not any(built) else "built the pool" if all(built)
           else "are a mix of runs that built the pool and runs that did not")
    return {"depth": int(depth), "losers": _fmt_runs(losers), "drop": float((full - shallow)[index[0]]),
            "who": who, "lost_judged": int((lost & judged).sum()), "judged": int(judged.sum()),
            "lost_unjudged": int((lost & ~judged).sum()), "unjudged": int((~judged).sum()),
            "gain_ap": int((shallow_ap > full_ap + 1e-12).sum()), "runs": int(len(full_ap))}


_TOUR = [
    ModelAnswer("00.1", "Deep or wide?",
                "At depth {depth}, Kendall's τ against the full qrels is {tau_p10:.3f} for P@10 and {tau_ap:.3f} "
                "for MAP on this collection ({better} keeps the ranking better). P@10 reads only ranks 1-10: a pool "
                "at least 10 deep holds every document a contributing run puts there, so those runs' P@10 is exact "
                "and only the other runs' unpooled top-10 documents are miscounted. AP reads the whole ranking, down "
                "to rank 1000, and divides by R, the number of relevant documents the qrels know: a shallow pool "
                "misses relevant documents far down every ranking and changes R for every topic, so MAP needs a "
                "deep pool to rank systems as the full qrels do.",
                _tour_taus, "collection=collection, depth=plan.slider_depth"),
    ModelAnswer("00.2", "Who gets hurt?",
                "The largest P@10 drop at depth {depth} is {drop:.4f}, for {losers}, which {who}. "
                "{lost_unjudged} of the {unjudged} runs that did not build the pool lose P@10, against "
                "{lost_judged} of the {judged} that did: a contributing run's top 10 lies inside a pool at least "
                "10 deep, so its P@10 cannot change, while a run that did not build the pool has top-10 documents "
                "nobody judged, counted as nonrelevant. That is the pool's bias: judgments built by some runs "
                "undercount the others. MAP looks different: {gain_ap} of {runs} runs *gain* MAP, because AP divides "
                "by the relevant documents the pool contains, and a shallow pool contains far fewer; so compare "
                "runs by their place in the ranking, not by the raw score.",
                _tour_losers, "collection=collection, depth=plan.slider_depth"),
]


# ------------------------------------------------------------------------------------------ 01 Yilmaz et al.


def _yilmaz_unseen(fig2, k):

    part = fig2[fig2.k == k]
    unjudged = answer_values.yilmaz_rms_unjudged(fig2, k)
    everyone = float(np.sqrt(np.mean((part.mean_xinfAP - part.MAP) ** 2)))
    ratio = unjudged / everyone if everyone > 0 else float("nan")
    verdict = ("so here xinfAP does worse on the runs that did not build the pool" if ratio > 1.1 else
               "so here xinfAP does about as well on them as on all runs" if ratio >= 0.9 else
               "so here xinfAP does better on them than on all runs")
    return {"k": k, "rms_unjudged": unjudged, "rms_all": everyone, "verdict": verdict,
            "n_unjudged": int((~part.judged.astype(bool)).sum()), "n_all": int(len(part))}


_YILMAZ = [
    ModelAnswer("01.1", "Bias or variance?",
                "Down. A Kolmogorov-Smirnov test compares the whole distribution of a run's z's with N(0, 1); its "
                "critical distance shrinks like 1/√(samples), so with 300 samples it detects a shift of the z's "
                "that 100 (or the class preset's 10) could not. A biased estimator shifts every z by the same "
                "bias/sd, however right its variance, so the more samples, the surer the rejection. The columns "
                "that isolate the variance are *not rejected (bias removed)* (the same test on z's centred per run) "
                "and *empirical / estimated sd* (1 when the variance formula is right)."),
    ModelAnswer("01.2", "Which form?",
                "The covariance term cov[PĈ_k, PĈ_m] = (k/m)·var[PĈ_k] (k < m) assumes the precisions move "
                "together: the documents sampled above the earlier cut-off are also above the later one, so an "
                "unlucky sample near the top lowers every later precision at once. Independence ignores this and "
                "gives a smaller variance. The plug-in form puts the estimated proportion p̂ into p(1 − p)/n′: with "
                "few documents sampled above a cut-off, p̂ is often exactly 0 or 1 (variance 0), and p̂(1 − p̂) is "
                "biased low by the factor (n′ − 1)/n′; the unbiased form corrects both, so it is larger there."),
    ModelAnswer("01.3", "Two strata or four?",
                "What to see: at k = 10 the top of every contributing run is judged, and the weights move little; "
                "at k = 2 the sampled strata carry most of the estimate, and the weights matter. Weighting the "
                "upper band (3 : 1.5 : 1) spends judgments where relevant documents are denser, which usually helps "
                "MAP and more so nDCG, whose gains are top-heavy. 10 : 1 : 0.1 leaves the bottom band a handful of "
                "sampled documents, often none relevant: its R̂_s = r_s N_s / n_s jumps between 0 and a large "
                "number with one lucky document, and the precision above a relevant document there falls back to "
                "the smoothed (r + ε)/(n + 2ε), a constant that knows nothing of the band. Both add error that "
                "does not average out over runs, and τ drops."),
    ModelAnswer("01.4", "Smoothing.",
                "Unbiased is a statement about the average over samples; a single sample's estimate can be far off, "
                "and a ranking is made from one sample. At the first relevant document of a run at rank k, with "
                "nothing sampled above it in some stratum, the unsmoothed precision above is 0/0: an implementation "
                "must pick a value (0 gives PĈ_k = 1/k, which for a relevant document at rank 5 of a good run "
                "is 0.2 where the truth may be near 1). Smoothing replaces 0/0 with a/b (½ or ⅓) and pulls every "
                "thinly sampled stratum towards it: a small bias for a large cut in variance, which is what RMS "
                "and τ reward."),
    ModelAnswer("01.5", "Unseen runs.",
                "In Figure 2's first panel (k = {k}) the RMS error of mean xinfAP against MAP is {rms_unjudged:.4f} "
                "over the {n_unjudged} runs that did not build the pool and {rms_all:.4f} over all {n_all} runs, "
                "{verdict}. In principle nothing guarantees it: the design judges completely the top k of the runs "
                "that built the pool, while a run that did not build it has more of its top ranks, where AP's "
                "weight is largest, in the thinly sampled random stratum; and xinfAP estimates AP *with respect "
                "to the pool*, whose documents those runs did not choose. How much this costs depends on how "
                "much such a run's top ranks overlap the contributing runs' (large on TREC-8, with 72 of them).",
                _yilmaz_unseen, "fig2=fig2, k=figure2_depths[0]"),
    ModelAnswer("01.6", "Deeper truth.",
                "With `ndcg_cutoff = 100` the truth and every estimate read only the top 100 ranks, which the "
                "depth-100 pool covers for the contributing runs, instead of the whole ranking, where documents "
                "below the pool count as nonrelevant. Expect infNDCG to keep its advantage over nDCG on random "
                "judgments (it estimates what was not judged; the other counts it nonrelevant) and the RMS "
                "errors to change scale with the measure. Compare the dominance table's True/False entries "
                "between the two runs: a conclusion that flips at the smallest depths is one that rests on "
                "how the unjudged tail is treated."),
]


# ------------------------------------------------------------------------------------------ 02 Soboroff


def _soboroff_cap(sample):

    table = sample.table
    return {"capped": answer_values.soboroff_capped(sample), "topics": int(len(table)),
            "before": float(table.depth_uncapped.mean()), "after": float(table.depth.mean())}


def _soboroff_draws(draws):
    from evalkit.papers.soboroff2007.presets import MIN_DRAWS
    from evalkit.papers.soboroff2007.ratings import NOT_LOWER_SHARE
    from evalkit.stats import spread_interval

    per = draws.per_draw
    runs = int(per.runs.iloc[0])
    low, high = int(per.not_lower.min()), int(per.not_lower.max())
    share = spread_interval(per.not_lower / runs, unit="draws")
    n = int(draws.n)
    one = (": every draw gave the same count here, which only the draws show" if low == high else
           f": a single sample could have reported any count from {low} to {high}, and nothing in it says which")
    verdict = (f"this run has {n}, so the claim is rated" if n >= MIN_DRAWS else
               f"this run has {n}, so the claim says 'not rated at class size'; the paper preset draws enough")
    return {"n": n, "low": low, "high": high, "runs": runs, "median": float(per.not_lower.median()), "one": one,
            "share": NOT_LOWER_SHARE, "cap": NOT_LOWER_SHARE * runs, "share_low": share.low,
            "share_high": share.high, "min_draws": MIN_DRAWS, "verdict": verdict}


_SOBOROFF = [
    ModelAnswer("02.1", "Shallow or deep?",
                "The target rank is x = Δ + Δ (P(rel) − rpt) / slope: a smaller slope (0.005) pushes x, and with it "
                "the depth, much deeper for every topic whose phase-1 relevance P(rel) exceeds rpt; a larger slope "
                "(0.08) pulls it in. A topic with P(rel) ≤ rpt gets a pool size at or below its phase-1 pool, so the "
                "floor (|J| + 200) decides its depth whatever the slope: those are the topics that never move. "
                "Deeper pools hold more unjudged documents U, so the rate 200 / U falls; a sparser sample misses "
                "more of the top-ranked relevant documents and τ between MAP on the pool and infAP on the sample "
                "falls. Where the judged-depth cap stops the depth, a smaller slope changes nothing more."),
    ModelAnswer("02.2", "The cap.",
                "Here the cap cuts {capped} of {topics} topics (mean depth {before:.0f} before the cap, {after:.0f} "
                "after). The cap is the judged depth: 100 on TREC-8, the runs' whole length on the simulated "
                "collection (every document judged), so expect the paper's design, which sampled far deeper on "
                "TB06, to be cut more often on TREC-8. New relevant documents a topic approach TB06's 14 only "
                "where the sample can go deep and the topic has many relevant documents beyond the phase-1 pool: "
                "compare the two runs' counts.",
                _soboroff_cap, "sample=sample"),
    ModelAnswer("02.3", "Always judge the top.",
                "Most of the gap closes. A relevant document at rank 1 or 2 that the sample did not draw is "
                "counted by infAP only through the estimated precision of the later relevant documents, and a "
                "missed early relevant document lowers every later precision; MAP on the pool sees it. Restoring "
                "the top two ranks' judgments costs few judgments (at most two a run, shared between runs) and "
                "removes the largest single source of infAP's shortfall; what remains is the sampling error "
                "deeper down."),
    ModelAnswer("02.4", "Which ANOVA?",
                "With runs as replicates, every (topic, sample) cell is estimated from the runs' scores; the test "
                "for *sample* compares the variation between subsamples with the residual. Fewer runs mean fewer "
                "replicates per cell: larger standard errors of the cell means and fewer residual degrees of "
                "freedom, so the same subsample-to-subsample movement is less often significant. The mixed model, "
                "which treats runs as a random effect, does not count the runs' shared movement as independent "
                "evidence in the first place."),
    ModelAnswer("02.5", "One draw or many?",
                "Over this run's {n} draws, the runs whose infAP is not below MAP range from {low} to {high} of "
                "{runs} (median {median:.0f}; TB06's one sample: 4). One sample is one point of that range{one}. "
                "The claims table reads \"all but four runs\" as at most {share:.0%} of the runs not lower "
                "({cap:.1f} of {runs} here) and rates it with the rule `at_most` on the share's central 95% range "
                "over the draws: `yes` only when the whole range lies at or below the line, `no` when it lies "
                "entirely above, else inconclusive; here the range is {share_low:.3f}-{share_high:.3f}. It grades "
                "a spread over draws only from {min_draws} draws ({verdict}): with fewer than 20 draws the "
                "central 95% range is the whole range of a handful of values, and from a few dozen its 2.5% ends "
                "still move with every extra draw, so a rating read from them would itself depend on the draws.",
                _soboroff_draws, "draws=draws"),
    ModelAnswer("02.6", "titlestat by hand.",
                "For each topic, titlestat averages, over the title words, the share of the set's documents that "
                "contain the word; the table's values are those means. A stemmer that strips a final *s* makes a "
                "plural in a document match a singular title word (or the reverse): the value changes for the set "
                "whose documents use the other form, and only there; a set whose documents already matched "
                "word for word keeps its value."),
]


# ------------------------------------------------------------------------------------------ 03 Voorhees


def _voorhees_bias(result):

    r = result.r_hat[result.r_hat.gold_R > 0]
    per = ((r.r_hat - r.gold_R) / r.gold_R).groupby([r.strategy, r.topic], observed=True).mean()
    by_strategy = per.groupby(level=0, observed=True).mean()
    shown = ", ".join(f"{name} {value:+.1%}" for name, value in by_strategy.sort_values().items())
    return {"pool25": answer_values.voorhees_relative_bias(result), "worst": answer_values.voorhees_most_biased(result), "all": shown}


_VOORHEES = [
    ModelAnswer("03.1", "Budget matching.",
                "With the top 10 judged and one sampled stratum whose rate brings the judgments to pool25's, the "
                "comparison is fair: whichever wins now wins by design, not by judgments. The 2strata variant "
                "trades pool25's complete ranks 11-25 for a sample that reaches deeper: that can help MAP, which "
                "reads deep and gets estimates of relevant documents pool25 never sees, and costs little on P(10), "
                "since both judge the contributing runs' top 10 completely. The paper compared the strategies at "
                "unequal budgets (and found pooling generally more accurate on TREC-8): a strategy that wins with "
                "more judgments may win because of the judgments, so compare at the same budget, or report "
                "accuracy per judgment."),
    ModelAnswer("03.2", "Why P(10) punishes 1stratum.",
                "`[1-100]@0.3` judges about 3 of the top 10 documents of a topic's pool, so P(10) is estimated from "
                "three documents; `[1-10]@1 + [11-100]@0.23` judges all ten, and P(10) is exact for the contributing "
                "runs. P(10) gains the most, then nDCG (top-heavy), then MAP. A top-heavy measure puts its weight on "
                "the first ranks, so an unjudged document there costs it most."),
    ModelAnswer("03.3", "The sparse deep stratum.",
                "Sparser (`@0.02`): each sampled relevant document in the deep stratum stands for 1/0.02 = 50 "
                "documents, so a run's estimate jumps with whether it retrieved one of the few sampled ones: more "
                "misses and more false alarms, as the estimates get noisier. Denser (`@0.15`): fewer of both, at "
                "more judgments. That is the paper's 0.99998 example: a run that retrieves one judged relevant "
                "document of the sparse stratum is credited with almost everything it retrieved there."),
    ModelAnswer("03.4", "Estimating R.",
                "pool25's mean relative error of R̂ is {pool25:+.1%}; per strategy: {all}. The strategy that "
                "underestimates the most is {worst}. A sampled strategy estimates the relevant documents *of the "
                "pool it samples*, R̂ = Σ r_s N_s / n_s, without bias over samples (either side in one trial); it "
                "falls short of R only by the relevant documents outside that pool: none on TREC-8, whose qrels "
                "are the depth-100 pool, many on a collection judged deeper, such as the simulated one. A pool "
                "counts only the relevant documents it contains, a subset of them all, so it can never "
                "overestimate R, and the shallower it is, the more it underestimates.",
                _voorhees_bias, "result=result"),
    ModelAnswer("03.5", "Which topics?",
                "On TREC-8 `v.compare_low_r` lists the kit's topics with their gold R and mean pool25 R̂; no topic "
                "with gold R near 65 has a mean estimate near 16, so the ninth pair matches none. Look for the "
                "topic with the closest gold R and ask how its estimate could fall that low: a different trial "
                "design in the paper, a transcription error in its table, or a topic whose relevant documents "
                "were found mostly below the pool depth."),
]


# ------------------------------------------------------------------------------------------ 04 Lu et al.


def _lu_best(t2, depth):

    return {"best": answer_values.lu_best_estimator(t2, depth), "depth": int(depth)}


_LU = [
    ModelAnswer("04.1", "Hypothesis 2 on this collection.",
                "At d′ = {depth} and θ = 0.018, the lowest RMSE in Table 2 is {best}'s. Read Lin's best θ off "
                "`rmse_theta` (the row with its smallest RMSE): the paper's 0.018 is a choice for its collections, "
                "and the best θ moves with d′ because γ does: deeper pools leave fewer relevant documents unfound, "
                "γ falls, and fewer topics pass the gate, so a smaller θ is needed to adjust the same topics.",
                _lu_best, "t2=t2, depth=first"),
    ModelAnswer("04.2", "Why does LB do so well on TREC-8",
                "LB counts every unjudged document as nonrelevant: its error is the residual the deeper judgments "
                "would add. Where the depth-10 pool already found most of a topic's relevant documents (low γ: "
                "little sign of many unfound), that residual is small and every estimator that adds an "
                "extrapolated residual can only add error; Lb's fitted residual overshoots on such topics. TREC-8 "
                "was built by many runs to depth 100, so its shallow pools are comparatively complete, like the "
                "older, well-pooled collections of the paper's Table 1 rather than the sparsely judged web "
                "collections."),
    ModelAnswer("04.3", "Acc% versus RMSE.",
                "Eq. 3 scores an estimate 0 anywhere in [M, M + ε]: M is the score with the complete (depth-d) "
                "judgments, ε the weight of the ranks those leave unjudged. LB is the score with the depth-d′ "
                "judgments: never above M, and equal to M for every (run, topic) whose ranking holds no relevant "
                "document between the shallow and the complete pool, which is common for topics with few relevant "
                "documents. Those pairs count as exact however large ε is, so LB's Acc% stays high, while its "
                "misses all lie below M and its RMSE grows with what the deeper judgments found. An estimator that "
                "adds a residual lands inside the interval more easily when ε is large (a wide target) and "
                "overshoots it when ε is small. Compare LB and Lb at d′ = 10 and d′ = 30: as the pool deepens, LB "
                "equals M more often and the gap between the two in both measures shrinks."),
    ModelAnswer("04.4", "An upper bound (the paper's UB).",
                "UB = LB + the residual weight of the unjudged documents: every unjudged document relevant. At "
                "d′ = 20 the residuals are large and differ between runs, so UB's ranking differs from the "
                "estimators' (a τ distance well above 0); at d′ = 60 the residuals shrink, every estimator moves "
                "towards LB and UB, and their rankings agree more."),
    ModelAnswer("04.5", "A different metric.",
                "SDCG@100 weights ranks by a logarithmic discount instead of RBP's geometric one, so more of its "
                "weight lies deep in the ranking, where a shallow pool judged nothing: every estimator's residual "
                "matters more and the RMSEs grow. Whether the ordering of the estimators is the same is the "
                "question to answer from the computed Table 2; an ordering that survives the change of metric is "
                "a property of the estimators, one that does not is a property of RBP0.95."),
]


# ------------------------------------------------------------------------------------------ 05 Carterette


def _carterette_top(results):

    return {"accuracy": answer_values.carterette_top_accuracy(results)}


_CARTERETTE = [
    ModelAnswer("05.1", "Calibration against effort.",
                "At this run's α, RTC is right on {accuracy:.1%} of the pairs it is at least 95% sure of. Raising α "
                "to 0.99 makes the algorithms judge until more pairs reach 99%: mostly more judgments, with the "
                "top bins' accuracy changing little where the model's confidence was already honest. That is the "
                "paper's overfitting remark: past a point, more judgments make the model surer of its own "
                "estimates rather than more right, and `budget_summary`'s last rows show what the extra "
                "confidence cost.",
                _carterette_top, "results=results"),
    ModelAnswer("05.2", "Choosing on the test set.",
                "The strength chosen on all the topics may differ from the halves' choices: a prior picked on "
                "the data it is then scored on fits that data's noise and looks better than it is, which is why "
                "Section 3 chooses on one half and scores on the other. Each half is less confident than all 50 "
                "topics because ΔMAP over 25 topics has about twice the variance of ΔMAP over 50, so fewer pairs "
                "reach any confidence level."),
    ModelAnswer("05.3", "Generalizing further.",
                "With k = 20 runs the judgments, chosen to separate the original c = 2 runs, must serve 190 pairs, "
                "most of them between runs that did not guide the choice: the 'no original' accuracies fall, "
                "since those runs' differences rest on documents nobody judged. RTC's model predicts a document's "
                "relevance from the runs that retrieved it; more runs (experts) give it more evidence per "
                "document, so its probabilities for unjudged documents improve."),
    ModelAnswer("05.4", "The variance.",
                "AP = Σ_i X_i·(…) / N, with N the number of relevant documents, itself the sum of the X_i: "
                "numerator and denominator rise and fall together, so the formula, which treats their variances "
                "as if independent, overstates Var[AP]. The correlation fades only slowly with n (both grow with "
                "the same X_i), so the ratio shrinks only slowly too, staying far above 1. ΔMAP's two runs share "
                "one N per topic: ΔAP = (S₁ − S₂)/N, "
                "whose sign does not depend on N at all, so the shared denominator does not inflate the "
                "uncertainty about which run is better."),
    ModelAnswer("05.5", "A malicious adversary.",
                "A document no original run retrieved has none of the features RTC's `ExpertAggregation` learns "
                "from: its probability of relevance is the model's intercept alone, a base rate that knows "
                "nothing about that document. Two runs that share almost nothing with the originals are then "
                "compared on documents whose relevance is guessed, not estimated: confidence in such pairs should "
                "be low, and a high one says more about the model than about the runs."),
]


# ------------------------------------------------------------------------------------------ 06 the budget planner


def _planner_power(variances, measure, delta, alpha, power):
    from evalkit.planning.topic_set_size import ttest_topics

    v = float(variances.loc[measure, "paired"])
    n90, n = float(ttest_topics(delta, v, alpha, 0.9)), float(ttest_topics(delta, v, alpha, power))
    return {"measure": measure, "v": v, "n90": n90, "n": n, "power": power, "delta": delta, "alpha": alpha,
            "change": (f"{abs(n90 / n - 1):.0%} {'more' if n90 >= n else 'fewer'} topics"
                       if np.isfinite(n90) and np.isfinite(n) and n > 0 else "no finite number of topics")}


def _planner_inverse(variances, measure, delta, alpha, power):
    from evalkit.planning.topic_set_size import detectable_difference, ttest_topics

    v = float(variances.loc[measure, "paired"])
    d50 = float(detectable_difference(50, v, alpha, power))
    n = float(ttest_topics(delta, v, alpha, power))
    verdict = ("so 50 topics already meet the requirement" if d50 <= delta else
               f"so 50 topics do not meet the requirement (it needs {n:.0f})")
    return {"measure": measure, "v": v, "d50": d50, "d200": float(detectable_difference(200, v, alpha, power)),
            "delta": delta, "alpha": alpha, "power": power, "verdict": verdict}


def _planner_total(variances, measure, delta, alpha, power, designs):
    from evalkit.planning.topic_set_size import ttest_topics

    row = variances.loc[measure]
    within = float(ttest_topics(delta, float(row["paired"]), alpha, power))
    total = float(ttest_topics(delta, float(row["total"]), alpha, power))
    per = float(designs.iloc[0]["judgments per topic"])
    return {"measure": measure, "paired": float(row["paired"]), "total": float(row["total"]), "within": within,
            "topics_total": total, "factor": total / within if within > 0 else float("nan"),
            "extra": total - within, "per": per, "extra_judgments": (total - within) * per}


def _planner_bias(designs, delta, alpha, power):
    from scipy import stats

    from evalkit.planning.topic_set_size import ttest_power_with_bias

    cheap = designs.iloc[1:]
    cheap = cheap[np.isfinite(cheap["bias sd"]) & np.isfinite(cheap["effective variance"])]
    row = cheap.loc[cheap["bias sd"].idxmax()]
    bias, v = float(row["bias sd"]), float(row["effective variance"])
    at = {n: float(ttest_power_with_bias(n, delta, v, bias, alpha)) for n in (100, 1000, 10000)}
    ceiling = float(stats.norm.cdf(delta / (np.sqrt(2) * bias))) if bias > 0 else 1.0
    return {"design": row["design"], "bias": bias, "v": v, "delta": delta, "p100": at[100], "p1000": at[1000],
            "p10000": at[10000], "ceiling": ceiling, "power": power,
            "versus": "below" if ceiling < power else "above"}


def _planner_half(designs, budget, delta, alpha, power):
    from evalkit.planning.plan import best_within_budget, replan

    found = {}
    for key, amount in (("full", float(budget)), ("half", float(budget) / 2)):
        row = best_within_budget(replan(designs, alpha=alpha, power=power, delta=delta, budget=amount))
        found[key] = row
    if found["half"] is None or found["full"] is None:
        return {"half": float(budget) / 2, "text": "no design affords two topics within it, so the widget shows no "
                                                   "best design; the trade-off cannot be read at this budget."}
    h, f = found["half"], found["full"]
    shallower = h["judgments per topic"] <= f["judgments per topic"]
    text = (f"the most power is {h['power within budget']:.2f}, with {h['design']} on {h['affordable topics']:.0f} "
            f"topics ({h['judgments per topic']:,.0f} judgments a topic); with the whole budget ({float(budget):,.0f}) "
            f"it was {f['power within budget']:.2f}, with {f['design']} on {f['affordable topics']:.0f} topics "
            f"({f['judgments per topic']:,.0f} a topic). ")
    text += ("The best design judges no more per topic than before: the trade-off is still \"more topics, fewer "
             "judgments each\", because a topic added cuts the variance of a mean difference by a share of it, while "
             "judgments added to a topic only remove the design's added variance, small once the design is deep "
             "enough." if shallower else
             "Here the best design judges more per topic than before: with few topics affordable, the bias of the "
             "cheapest designs, which more topics do not remove, costs more power than the topics they buy.")
    return {"half": float(budget) / 2, "text": text}


def _planner_conservative(validation):
    summary = validation.summary.set_index("design")
    checks = validation.assumptions.set_index("design")
    parts = []
    for design, row in summary.iterrows():
        ratio = checks.loc[design, "variance ratio median"] if design in checks.index and \
            "variance ratio median" in checks.columns else float("nan")
        parts.append(f"{design}: realised power {row['realised power at delta']:.3f}, predicted from each pair's own "
                     f"variance {row['predicted power (own variance)']:.3f}, promised "
                     f"{row['target power at these pairs']:.3f}; the pairs' difference variances are {ratio:.2f} "
                     "times 2σ² (median)")
    return {"population": validation.settings.get("population", "the population"), "parts": "; ".join(parts)}


_PLANNER = [
    ModelAnswer("06.1", "More power.",
                "With V_E = {v:.4f} for {measure}, the paired t-test needs {n90:.0f} topics at power 0.9 against "
                "{n:.0f} at the notebook's power {power:g} (δ = {delta:g}, α = {alpha:g}): {change}. The power "
                "grows with the noncentrality √n δ / σ_d, and near the top of the power curve each extra point of "
                "power takes more topics than the last.",
                _planner_power, "variances=variances, measure=plan.measure, delta=delta, alpha=alpha, power=power"),
    ModelAnswer("06.2", "The inverse.",
                "On 50 fully judged topics the paired t-test detects a difference of {d50:.4f} in {measure} with "
                "power {power:g} at α = {alpha:g} (V_E = {v:.4f}); the requirement asks for δ = {delta:g}, "
                "{verdict}. The detectable difference falls as 1/√n: on 200 topics it is {d200:.4f}, about half.",
                _planner_inverse, "variances=variances, measure=plan.measure, delta=delta, alpha=alpha, power=power"),
    ModelAnswer("06.3", "Total versus within.",
                "With the total variance ({total:.4f}) in place of V_E ({paired:.4f}) the paired t-test asks for "
                "{topics_total:.0f} topics instead of {within:.0f} for {measure}: {factor:.1f} times as many, "
                "{extra:,.0f} topics too many, and at the full judgments' {per:,.0f} judgments a topic "
                "{extra_judgments:,.0f} judgments too many. The total variance keeps the topic effect (hard and easy "
                "topics), which a paired comparison of two systems on the same topics cancels; the topic set size "
                "grows with the variance, so planning with it oversizes the collection by about the ratio of the "
                "two.",
                _planner_total, "variances=variances, measure=plan.measure, delta=delta, alpha=alpha, power=power, "
                                "designs=designs[plan.measure]"),
    ModelAnswer("06.4", "The bias cap.",
                "The largest bias sd here is {design}'s, {bias:.4f} (effective variance {v:.5f}). Its power at "
                "δ = {delta:g} is {p100:.3f} on 100 topics, {p1000:.3f} on 1,000 and {p10000:.3f} on 10,000: it "
                "levels off at the ceiling Φ(δ / (√2 · {bias:.4f})) = {ceiling:.3f}, {versus} the target {power:g}. "
                "The bias is a run's error on every topic alike (a run that did not build a shallow pool misses its "
                "unjudged relevant documents everywhere): two systems δ apart differ by δ + η on the design's scale, "
                "η ~ N(0, 2 bias sd²) whatever the number of topics, so more topics remove the judging noise but "
                "not η.",
                _planner_bias, "designs=designs[plan.measure], delta=delta, alpha=alpha, power=power"),
    ModelAnswer("06.5", "The committee asks for half the budget.",
                "With half the budget ({half:,.0f} judgments) {text}",
                _planner_half, "designs=designs[plan.measure], budget=plan.budget, delta=delta, alpha=alpha, "
                               "power=power"),
    ModelAnswer("06.6", "Where the plan is conservative.",
                "On {population}: {parts}. A realised power close to the own-variance prediction and above the "
                "promise says the pooled 2σ² is what made the plan conservative; a median ratio below 1 says most "
                "pairs at δ vary less than that pooled 2σ², so they are tested more sharply than the plan assumed "
                "and reach more than the promised power. Systems of similar "
                "quality are often variants of one another (one group's runs, one model with another parameter): "
                "they retrieve much the same documents, their per-topic scores rise and fall together, and the "
                "covariance in Var(x_i − x_j) = σ_i² + σ_j² − 2 cov_ij makes their difference vary less than two "
                "unrelated systems' would. The pairs at δ, close in quality, are where such variants sit.",
                _planner_conservative, "validation=validation"),
]


MODEL_ANSWERS: dict[str, ModelAnswer] = {a.id: a for a in [*_TOUR, *_YILMAZ, *_SOBOROFF, *_VOORHEES, *_LU,
                                                            *_CARTERETTE, *_PLANNER]}


def answers_for(notebook_stem: str) -> list[ModelAnswer]:
    """The model answers of the notebook ``NN_name``, in question order."""
    number = notebook_stem[:2]
    return sorted((a for a in MODEL_ANSWERS.values() if a.id.split(".")[0] == number),
                  key=lambda a: int(a.id.split(".")[1]))
