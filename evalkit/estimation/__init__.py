"""Score estimation for deep metrics from shallow judgment pools (Lu, Moffat and Culpepper, SIGIR 2017).

Modules
-------
metrics       RBP(p), SDCG@k with unjudged and tail residuals (Eqs. 1-2); Sakai's truncated AP@k.
pools         contributing runs, depth-d' pool judgments, two-strata samples (Voorhees 2014).
coverage      Chao and Lee's gamma (Eq. 10) and the adjust-or-not threshold theta.
gain_models   rank-level gain models Linear, Zipf, discrete Weibull (Lu et al., AIRS 2016).
framework     the two-stage framework, Algorithm 1, Eqs. 6-9, losses La (Eq. 7) and Lb (Eq. 8).
estimators    LB, RM (Eq. 4), Lin/Zipf/Wei, La/Lb; InfRBP (Eq. 5); score-range error (Eq. 3), RMSE, Acc%.

Typical use::

    from evalkit.estimation import pool_qrels, estimate_scores, reference_scores, error_table
    shallow = pool_qrels(collection, depth=10)                 # judgments of a depth-10 pool
    est = estimate_scores(collection, shallow, fit_depth=10)   # LB, RM, Lin, Zipf, Wei, La, Lb at depth 100
    error_table(est, reference_scores(collection))             # RMSE and Acc% per estimator and theta
"""

from evalkit.estimation.coverage import (
    DEFAULT_THETA,
    chao_lee_gamma,
    pool_gamma,
    relevant_multiplicities,
)
from evalkit.estimation.estimators import (
    ESTIMATORS,
    GATED_ESTIMATORS,
    ShallowEstimates,
    error_table,
    estimate_scores,
    inf_rbp,
    inf_weighted_precision,
    reference_scores,
    rmse_accuracy,
    score_range_error,
)
from evalkit.estimation.framework import (
    FrameworkFit,
    SystemMatrix,
    TopicFit,
    TopicMatrix,
    design,
    document_gains,
    fit_framework,
    fit_frameworks,
    simplex_lstsq,
    system_matrix,
)
from evalkit.estimation.gain_models import (
    GAIN_MODELS,
    MODEL_LABELS,
    fit_gain_model,
    fit_gain_models,
    gain_curve,
    observed_gain_vector,
)
from evalkit.estimation.metrics import (
    WeightedPrecision,
    ap_at_k,
    gains,
    metric_weights,
    rbp,
    rbp_weights,
    sdcg,
    sdcg_weights,
    weighted_precision,
)
from evalkit.estimation.pools import (
    contributing_runs,
    pool_qrels,
    pooled_keys,
    run_mask,
    two_strata_qrels,
)

__all__ = [
    "DEFAULT_THETA", "chao_lee_gamma", "pool_gamma", "relevant_multiplicities",
    "ESTIMATORS", "GATED_ESTIMATORS", "ShallowEstimates", "error_table", "estimate_scores", "inf_rbp",
    "inf_weighted_precision", "reference_scores", "rmse_accuracy", "score_range_error",
    "FrameworkFit", "SystemMatrix", "TopicFit", "TopicMatrix", "design", "document_gains", "fit_framework", "fit_frameworks",
    "simplex_lstsq", "system_matrix",
    "GAIN_MODELS", "MODEL_LABELS", "fit_gain_model", "fit_gain_models", "gain_curve", "observed_gain_vector",
    "WeightedPrecision", "ap_at_k", "gains", "metric_weights", "rbp", "rbp_weights", "sdcg", "sdcg_weights",
    "weighted_precision",
    "contributing_runs", "pool_qrels", "pooled_keys", "run_mask", "two_strata_qrels",
]
