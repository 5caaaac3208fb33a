"""Confidence in comparative evaluation with incomplete judgments (Carterette 2007; Carterette, Allan &
Sitaraman 2006): AP as a random variable over relevance probabilities, MTC, RTC and incremental pooling.

Modules: :mod:`.ap_variance` (E[AP], Var[AP], dAP, MAP, P(dMAP < 0)), :mod:`.universe` (the documents a set of
runs retrieves, flat-indexed), :mod:`.selection` (MTC = Algorithm 1, estimates for a set of runs, IP), :mod:`.expert_model` (the
expert-aggregation model and RTC).
"""

from evalkit.confidence.ap_variance import (
    ap_coefficients,
    ap_gradient,
    ap_moments,
    ap_moments_reference,
    ap_numerator_terms,
    cross_term,
    delta_ap_moments,
    delta_ap_moments_reference,
    exact_numerator_moments,
    map_moments,
    numerator_moments_reference,
    numerator_variance,
    prob_negative,
)
from evalkit.confidence.expert_model import (
    PLATT_SLOPES,
    ExpertAggregation,
    aggregation_covariance,
    fit_aggregation,
    fit_platt,
    preference_probabilities,
    preference_table,
    rtc,
)
from evalkit.confidence.selection import (
    RunEstimates,
    SelectionResult,
    all_pairs,
    estimate_runs,
    incremental_pooling,
    judged_map,
    mtc,
)
from evalkit.confidence.universe import Universe

__all__ = [
    "ap_coefficients",
    "ap_gradient",
    "ap_moments",
    "ap_moments_reference",
    "ap_numerator_terms",
    "cross_term",
    "delta_ap_moments",
    "delta_ap_moments_reference",
    "exact_numerator_moments",
    "map_moments",
    "numerator_moments_reference",
    "numerator_variance",
    "prob_negative",
    "RunEstimates",
    "SelectionResult",
    "all_pairs",
    "estimate_runs",
    "incremental_pooling",
    "judged_map",
    "mtc",
    "ExpertAggregation",
    "PLATT_SLOPES",
    "aggregation_covariance",
    "fit_aggregation",
    "fit_platt",
    "preference_probabilities",
    "preference_table",
    "rtc",
    "Universe",
]
