"""Yilmaz, Kanoulas and Aslam (2008), "A simple and efficient sampling method for estimating AP and NDCG".

The paper's three contributions, each run on any collection with judged (pool-contributing) runs:

1. **Confidence intervals for infAP** (Sec. 2, Appendix): :func:`figure1` (mean infAP of every run with its 95%
   interval, one uniform sample of p% of the depth-100 pool per p) and :func:`ci_validation` (100 samples per p;
   per run the deviation of mean infAP from MAP in units of its estimated standard deviation, a
   Kolmogorov-Smirnov test of those deviations against N(0, 1); :func:`ks_table` gives the share of runs not
   rejected, the paper's 90%).
2. **xinfAP on stratified samples** (Sec. 3): :func:`figure2` (depth-k pool + as many documents again drawn at
   random from the rest of the depth-100 pool, k = 10, 5, 1) and :func:`figure3` (the sweep over k, 10 trials
   each: xinfAP on depth + random, infAP on a uniform sample of the same size, infAP on the depth + random
   judgments, which violates its assumption).
3. **infNDCG** (Sec. 4-5): :func:`figure4` (depth-k pool + three strata sampled at rates in the ratio 3 : 1.5 : 1;
   xinfAP and infNDCG against infAP and plain nDCG on uniform samples of the same size).

The measures live in :mod:`evalkit.measures.inferred` (infAP = trec_eval's ``infAP``, Yilmaz & Aslam 2006, the
estimator the paper's variance is for, :mod:`evalkit.measures.infap_variance`; xinfAP and infNDCG with NIST
``sample_eval.pl`` semantics), the sampling
designs in :mod:`evalkit.judging.stratified_sampling` (:func:`~evalkit.judging.stratified_sampling.uniform_sample`,
:func:`~evalkit.judging.stratified_sampling.depth_plus_random`,
:func:`~evalkit.judging.stratified_sampling.depth_plus_strata`), trials go through :func:`evalkit.parallel.run_trials`.

Reconstruction choices (the paper leaves them open; the notebook states them):

* **Truth** ("actual AP"): the paper takes the depth-100 pool as the complete judgment set (its footnote 2). Here
  the truth is AP (and trec_eval's nDCG) under the depth-100 pool of the judged runs, graded by the collection's
  qrels (:func:`prepare`). On TREC-8 that pool *is* the official qrels (86,830 judgments, the number the paper
  quotes); on a simulated collection with complete judgments it drops the relevant documents outside the pool,
  which no sample of the pool can see. On a collection judged less than 100 deep, :func:`plan` takes the pool to
  the judged depth instead (deeper, the qrels know nothing) and scales the depths k of Figures 2-4 with it.
* **Pools** are built from the judged runs only; every run is scored (the paper's dots and pluses). Sec. 2 says
  "the entire depth-100 pool over all submitted runs", but the 86,830 judgments it cites are the official pool
  of the contributing runs; a deeper pool over all 129 runs would need judgments TREC never made.
* **p% sampling** (Fig. 1, validation): exactly round(p N_t) documents of each topic's pool, without replacement
  (:func:`~evalkit.judging.stratified_sampling.uniform_sample`'s default).
* **Variance forms**: the paper's formula with p̂ plugged in (``unbiased=False``) and the unbiased plug-in
  (``unbiased=True``, the kit's default), each with independent precisions or the Appendix's covariances
  (:data:`VARIANCE_FORMS`). Mean infAP's interval: ``mean ± 1.96 sqrt(sum_t var_t / T²)``.
* **KS test**: per run, the trials' deviations ``z = (mean infAP - MAP) / sd`` against N(0, 1), two-sided, exact
  p-value (``scipy.stats.kstwo``); runs whose estimated sd is 0 in some trial are left out and counted.
* **"A random sample of the same size"** (Fig. 3, 4): a uniform sample of the depth-100 pool at the rate
  judged / pooled of the stratified sample it is compared with (same total size; per topic round(rate N_t)).
* **The 4-strata design** (Fig. 4): see :func:`evalkit.judging.stratified_sampling.depth_plus_strata` (equal-width
  bands of the pool ranks k+1..100, rates in the ratio 3 : 1.5 : 1 scaled so that the budget equals the depth-k pool
  size).
* **nDCG** is trec_eval's ``ndcg`` (gain = grade, whole ranking; the paper "adopt[s] the version of nDCG in
  trec_eval"); ``ndcg_cutoff=100`` in :func:`prepare` switches every nDCG to @100. infNDCG is
  ``sample_eval``'s (rankings and ideal list cut at 1000).
* **"Bias removed"** (:func:`ks_table`): a diagnostic the paper does not run, the KS test of each run's deviations
  centred on their own mean over the trials (does the variance alone fit?); conservative, the centre being
  estimated from the same samples.
* **What the validation finds, kept apart** (issue 14): :func:`bias_breakdown` splits E[mean infAP] - MAP into the
  topics with no sampled relevant document (scored 0), trec_eval's smoothing of the precision above a relevant
  document to 1/2 where nothing above was sampled (:func:`evalkit.measures.inferred.trec_infap_oracle_above`), and the
  ratio estimator (the rest); the variance forms' fit is read from ``empirical / estimated sd`` and the KS test with
  the bias removed; :func:`coverage_over_trials` grades Figure 1's coverage on the mean over samples, not one
  sample; :func:`ks_variants` reruns the test under every variant tried (Bernoulli samples, judged runs only,
  empty topics dropped, 10 samples). :func:`findings_markdown` says it all in words computed from the numbers.
* **Smoothing** (:func:`smoothing_study`): xinfAP with ``sample_eval``'s constants, the paper's, and none, on the
  same samples: the paper's Sec. 5 remark that smoothing matters more as strata multiply, measured.
* **Statistics** over all runs: Kendall's tau-b, Pearson's rho and the RMS error of the per-run means against the
  truth; Fig. 3 and 4 average them over the trials, as the paper does.
* Depths at or beyond the pool depth mean "judge the whole pool" (the designs degenerate to it).

Seeds: :func:`figure1` and :func:`figure2` draw each sample from ``SeedSequence([seed, tag, p or k])``; the trials of
:func:`ci_validation`, :func:`figure2_trials`, :func:`figure3` and :func:`figure4` get
:func:`evalkit.parallel.run_trials`' seeds and draw each sample from ``SeedSequence([trial_seed, tag, p or k])``, so
one sample does not depend on which other p or k are run; the bootstrap intervals take the notebook's seed. Same
seed, same numbers, on any executor.

Uncertainty and grading (issues 26-28): every figure that comes from random samples carries its interval
(:mod:`~evalkit.papers.yilmaz2008.intervals`) and every claim is rated on it by :mod:`evalkit.claims.rules`; a
study that is degenerate on the collection (a design that judges the whole pool, a rate that samples all of it)
is not rated, nor a figure from fewer samples than its rule needs (the class preset).

The paper's TREC-9 and TREC-10 panels (Fig. 4) and its "identical conclusions" for TREC-9/10 in Sec. 2 need
collections we do not have (:data:`PAPER_UNAVAILABLE`): point :func:`prepare` at a directory holding them.

The package, one job a module (imports flow one way: paper, presets <- plan; paper <- experiment <- tables <-
intervals <- claims; experiment <- explorer):

* :mod:`~evalkit.papers.yilmaz2008.paper`: the paper's settings, figures and sentences as data (and the variance
  forms, the kit's readings of its formula);
* :mod:`~evalkit.papers.yilmaz2008.presets`: the run sizes per preset (:data:`PRESETS`, :func:`settings`);
* :mod:`~evalkit.papers.yilmaz2008.plan`: every parameter checked, what a collection must offer, the depths scaled
  to it, what is degenerate there (:func:`plan`);
* :mod:`~evalkit.papers.yilmaz2008.experiment`: the truth, the sampling designs and the trials;
* :mod:`~evalkit.papers.yilmaz2008.tables`: the results summarized as tables (KS test, bias, coverage, dominance,
  the truth's coverage, the deviations from the paper);
* :mod:`~evalkit.papers.yilmaz2008.intervals`: every graded figure with its interval (over samples, blocks, seeds
  or trials);
* :mod:`~evalkit.papers.yilmaz2008.figures`: empty (the notebook draws the figures with :mod:`evalkit.display.plots`);
* :mod:`~evalkit.papers.yilmaz2008.explorer`: the notebook's two widgets;
* :mod:`~evalkit.papers.yilmaz2008.claims`: the paper beside the kit, rated by the written rules (:func:`claims`),
  the verdicts under each variance form (:func:`sensitivity`) and the findings in words.
"""

from __future__ import annotations

from evalkit.papers.yilmaz2008.claims import (
    SENSITIVE_CLAIMS,
    claims,
    findings_markdown,
    sensitivity,
)
from evalkit.papers.yilmaz2008.experiment import (
    DEFAULT_SEED,
    FIGURE3_ESTIMATORS,
    FIGURE4_ESTIMATORS,
    SMOOTHINGS,
    CIValidation,
    Figure2Trials,
    Sweep,
    ci_validation,
    figure1,
    figure2,
    figure2_trials,
    figure3,
    figure4,
    sample_seed,
    smoothing_study,
)
from evalkit.papers.yilmaz2008.explorer import (
    random_sample_explorer,
    stratified_explorer,
)
from evalkit.papers.yilmaz2008.gold import (
    Gold,
    agreement,
    depth_random_judgments,
    depth_strata_judgments,
    plain_ndcg,
    prepare,
    random_judgments,
    run_means,
    truth_counts,
)
from evalkit.papers.yilmaz2008.intervals import (
    MIN_BLOCKS,
    MIN_SEEDS,
    MIN_TRIALS,
    PAPER_BLOCK,
    bias_interval,
    coverage_interval,
    figure2_interval,
    figure2_spread,
    ks_interval,
    sd_ratio_interval,
    smoothing_variance_interval,
    sweep_bias,
    sweep_margins,
    tied_depths,
    validation_intervals,
)
from evalkit.papers.yilmaz2008.paper import (
    DEFAULT_FORM,
    FIGURE2_DEPTHS,
    FIGURE3_DEPTHS,
    P_VALUES,
    PAPER_FIGURE2_SHARE,
    PAPER_FORM,
    PAPER_INFNDCG_BIAS,
    PAPER_KS_NOT_REJECTED,
    PAPER_POOL_DEPTH,
    PAPER_SMOOTHING_VARIANCE,
    PAPER_STATEMENTS,
    PAPER_TREC8_JUDGMENTS,
    PAPER_UNAVAILABLE,
    STRATA_RATIO,
    VARIANCE_FORMS,
)
from evalkit.papers.yilmaz2008.plan import (
    MIN_POOL_DEPTH,
    check_parameters,
    design_shares,
    plan,
)
from evalkit.papers.yilmaz2008.presets import PRESETS, settings
from evalkit.papers.yilmaz2008.tables import (
    BIAS_PARTS,
    bias_breakdown,
    bias_per_run,
    coverage_over_trials,
    coverage_per_trial,
    deviations,
    dominance,
    figure1_summary,
    figure2_summary,
    ks_blocks,
    ks_per_run,
    ks_table,
    ks_test_normal,
    ks_variants,
    truth_table,
)

__all__ = [
    "DEFAULT_SEED",
    "P_VALUES",
    "FIGURE2_DEPTHS",
    "FIGURE3_DEPTHS",
    "STRATA_RATIO",
    "VARIANCE_FORMS",
    "DEFAULT_FORM",
    "FIGURE3_ESTIMATORS",
    "FIGURE4_ESTIMATORS",
    "PAPER_TREC8_JUDGMENTS",
    "PAPER_FIGURE2_SHARE",
    "PAPER_KS_NOT_REJECTED",
    "PAPER_SMOOTHING_VARIANCE",
    "PAPER_INFNDCG_BIAS",
    "PAPER_STATEMENTS",
    "PAPER_UNAVAILABLE",
    "PAPER_POOL_DEPTH",
    "MIN_POOL_DEPTH",
    "MIN_TRIALS",
    "MIN_SEEDS",
    "MIN_BLOCKS",
    "PAPER_BLOCK",
    "plan",
    "check_parameters",
    "design_shares",
    "Gold",
    "prepare",
    "truth_counts",
    "truth_table",
    "random_judgments",
    "depth_random_judgments",
    "depth_strata_judgments",
    "plain_ndcg",
    "run_means",
    "agreement",
    "figure1",
    "figure1_summary",
    "CIValidation",
    "ci_validation",
    "ks_per_run",
    "ks_table",
    "ks_blocks",
    "ks_test_normal",
    "PAPER_FORM",
    "BIAS_PARTS",
    "bias_per_run",
    "bias_breakdown",
    "coverage_per_trial",
    "coverage_over_trials",
    "ks_variants",
    "findings_markdown",
    "figure2",
    "figure2_summary",
    "Figure2Trials",
    "figure2_trials",
    "figure2_spread",
    "figure2_interval",
    "SMOOTHINGS",
    "smoothing_study",
    "Sweep",
    "figure3",
    "figure4",
    "dominance",
    "tied_depths",
    "sweep_margins",
    "sweep_bias",
    "coverage_interval",
    "bias_interval",
    "sd_ratio_interval",
    "smoothing_variance_interval",
    "ks_interval",
    "validation_intervals",
    "claims",
    "sensitivity",
    "SENSITIVE_CLAIMS",
    "deviations",
    "random_sample_explorer",
    "stratified_explorer",
    "PRESETS",
    "settings",
    "sample_seed",
]
