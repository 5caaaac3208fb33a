"""Evaluation measures: trec_eval-exact kernels (:mod:`.kernels`) and measures by name (:mod:`.registry`)."""

from evalkit.measures import inferred_families, standard  # noqa: F401  (register the measure families)
from evalkit.measures.kernels import (
    average_precision,
    bpref,
    dcg,
    ndcg,
    precision_at,
    r_precision,
    rbp,
    recall_at,
)
from evalkit.measures.registry import (
    REGISTRY,
    MeasureSpec,
    describe_measures,
    parse_measure,
    register,
)

__all__ = [
    "average_precision",
    "bpref",
    "dcg",
    "ndcg",
    "precision_at",
    "r_precision",
    "rbp",
    "recall_at",
    "REGISTRY",
    "MeasureSpec",
    "describe_measures",
    "parse_measure",
    "register",
]
