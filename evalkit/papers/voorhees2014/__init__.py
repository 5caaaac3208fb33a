"""Voorhees (2014), "The effect of sampling strategy on inferred measures" (SIGIR 2014 short paper).

Which sampling strategy builds the best inferred-measure test collection from a fixed budget of judgments?
Pure functions returning DataFrames; the sampling lives in :mod:`evalkit.judging.stratified_sampling`, the measures in
:mod:`evalkit.measures.inferred`, the significance tests and pair categories in :mod:`evalkit.stats`.

The experiment (Sec. 2), as :func:`run_experiment` runs it:

1. **Gold standard** (:func:`prepare`, once): MAP, NDCG@100 and P@10 of every run on the full qrels, the sign
   matrix of significantly different run pairs for each (two-tailed paired t-test over topics, alpha = 0.05), and
   the number of relevant documents R per topic.
2. **Trials** (50, through :func:`evalkit.parallel.run_trials`): in each, the judged runs (the runs that
   contributed to the base pools) are split at random in half; *the same half* feeds every strategy of the
   trial. Each strategy samples a judgment set from the base qrels using only that half's pool
   (:func:`evalkit.judging.stratified_sampling.sample`); every run of the collection (all 129 on TREC-8) is
   scored with infAP (xinfAP), infNDCG@100 and infP@10; each measure's significant pairs are classified against
   the gold ones (true positive, true negative, miss, false alarm, inversion; accuracy counts an inversion as a
   miss and a false alarm) and the estimated R̂ per topic is correlated with the gold R (Pearson).
3. **Tables**: :func:`table1` (mean judgment-set size), :func:`table2` (accuracy of the significant pairs: mean
   with its 95% bootstrap interval over the trials, min and max, and the mean category counts), :func:`table3`
   (mean Pearson correlation of R̂ with R, with its interval), :func:`figure1_data` (per topic R̂ over trials:
   min, max, mean, gold), :func:`low_estimate_topics` (the topics whose mean R̂ under pool25 is below 20; the
   paper lists nine) and :func:`r_hat_impact` (what R̂'s error does to infAP and infNDCG: each sample scored
   again with the gold R, :func:`with_gold_r`).
4. **Claims** (:func:`claims`): the paper's statements rated by the written rules (:mod:`evalkit.claims.rules`)
   on intervals over the trials; :func:`rate_sensitivity` re-rates them with the reconstructed rates scaled, and
   :func:`deviations` lists where the replication differs from the paper.

Seeds. Trial k gets ``run_trials``' k-th seed; the half-split is ``default_rng(trial_seed).permutation`` of the
judged runs, and each strategy's sample uses ``SeedSequence([trial_seed, crc32(strata)])`` so it depends only on
the trial and the strata (not on which other strategies are run, nor on their order): :func:`custom_trial` with
the strata of ``2strata`` reproduces the experiment's ``2strata`` sample of that trial. Same seed, same tables, on
any executor.

Reconstruction choices (the paper leaves them open; the notebook states them):

* Strategies: the paper's rates are not in our text (its strategy definitions are cut off). Presets of
  :data:`evalkit.judging.stratified_sampling.STRATEGIES`: pool15 [1-15]@100%; pool25 [1-25]@100%; 1stratum
  [1-100]@30%; 2strata [1-10]@100% + [11-100]@15%; 3strata [1-10]@100% + [11-30]@25% + [31-100]@5%; and the
  TREC 2012 Medical Records strategy [1-15]@100% + [16-100]@25% (the paper describes it for the 2012 collection
  and does not run it on TREC-8; here it is the sixth strategy). On TREC-8 these give judgment sets comparable to
  pool25 with 1stratum the largest of the paper's five, as the paper says (see :func:`check_judgment_sizes`).
* Judged runs: ``collection.runs_info["judged"]`` (72 of the 129 TREC-8 runs, see :mod:`evalkit.data.datasets`);
  the half is ``floor(n / 2)`` of them.
* Scores: per topic, as sample_eval.pl and trec_eval give them; a topic without any sampled-qrels line (it cannot
  happen with a non-empty pool) would score 0 for every run.
* R̂ is sample_eval's ``inum_rel`` (:func:`evalkit.measures.inferred.estimated_relevant`); for a pool it is the
  number of relevant documents in the pool. The gold R is the count in the full qrels.

The paper's Tables 1-3 are not legible in our copy of the text (only their captions survive):
:data:`PAPER_TABLE1`, :data:`PAPER_TABLE2` and :data:`PAPER_TABLE3` record the statements the text makes about
them, and :data:`PAPER_LOW_R` the nine (gold, estimated) R pairs it prints for Figure 1.

The package's modules, one job each (the same in every paper's package): ``paper`` (the paper's figures and
sentences as data), ``presets`` (run sizes), ``plan`` (parameters checked, needs, scaling to the collection and
whether it keeps the paper's ratios), ``experiment`` (gold, trials, results), ``tables`` (results to DataFrames,
kit beside paper, the deviations), ``findings`` (the sentences that state results), ``figures`` (drawing),
``explorer`` (widgets), ``claims`` (claims rows) and ``sensitivity`` (the reconstructed rates swept). The names
below are re-exported from them.
"""

from evalkit.papers.voorhees2014.paper import (
    DEFAULT_STRATEGIES,
    MEASURES,
    PAPER_CONCLUSIONS,
    PAPER_LOW_R,
    PAPER_LOW_R_CORRELATION,
    PAPER_STRATEGIES,
    PAPER_TABLE1,
    PAPER_TABLE2,
    PAPER_TABLE3,
)
from evalkit.papers.voorhees2014.presets import DEFAULT_RATE_FACTORS, PRESETS, settings
from evalkit.papers.voorhees2014.plan import plan, scaling_check
from evalkit.papers.voorhees2014.experiment import (
    DEFAULT_SEED,
    Gold,
    Voorhees2014Result,
    custom_strategy,
    custom_trial,
    evaluate_strategy,
    prepare,
    run_experiment,
    run_trial,
    split_judged_runs,
    strategy_seed,
    with_gold_r,
)
from evalkit.papers.voorhees2014.tables import (
    check_judgment_sizes,
    compare_low_r,
    deviations,
    figure1_data,
    low_estimate_topics,
    r_hat_impact,
    table1,
    table2,
    table2_text,
    table2_wide,
    table3,
)
from evalkit.papers.voorhees2014.figures import draw_explorer
from evalkit.papers.voorhees2014.explorer import strategy_explorer
from evalkit.papers.voorhees2014.claims import claims
from evalkit.papers.voorhees2014.sensitivity import rate_sensitivity, scale_rates
from evalkit.papers.voorhees2014 import findings

__all__ = [
    "DEFAULT_STRATEGIES",
    "PAPER_STRATEGIES",
    "MEASURES",
    "DEFAULT_SEED",
    "PAPER_TABLE1",
    "PAPER_TABLE2",
    "PAPER_TABLE3",
    "PAPER_LOW_R",
    "PAPER_LOW_R_CORRELATION",
    "PAPER_CONCLUSIONS",
    "Gold",
    "Voorhees2014Result",
    "plan",
    "scaling_check",
    "prepare",
    "split_judged_runs",
    "strategy_seed",
    "evaluate_strategy",
    "run_trial",
    "run_experiment",
    "table1",
    "table2",
    "table2_wide",
    "table2_text",
    "table3",
    "r_hat_impact",
    "deviations",
    "with_gold_r",
    "figure1_data",
    "low_estimate_topics",
    "check_judgment_sizes",
    "compare_low_r",
    "claims",
    "rate_sensitivity",
    "scale_rates",
    "findings",
    "DEFAULT_RATE_FACTORS",
    "custom_strategy",
    "custom_trial",
    "strategy_explorer",
    "draw_explorer",
    "PRESETS",
    "settings",
]
