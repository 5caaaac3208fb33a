"""Claims: the paper's statements beside the kit's figures, rated by written rules (:mod:`.rules`), graded into a
quotable verdict (:mod:`.grading`) and recorded in the notebook's output for the batch report (:mod:`.record`)."""

from evalkit.claims.grading import (
    COLLECTION_ALIASES,
    MIN_RUNS,
    MIN_TOPICS,
    PAPER_COLLECTIONS,
    SCOPES,
    THIS_COLLECTION,
    Claim,
    claims_frame,
    default_paper_dataset,
    grade,
    grade_frame,
    same_collection,
    verdict_category,
    verdict_counts,
)
from evalkit.claims.record import (
    CLAIMS_MIME,
    PLAN_MIME,
    plans_of,
    read_claims,
    read_plans,
    record_claims,
)
from evalkit.claims.rules import Rating

__all__ = ["CLAIMS_MIME", "PLAN_MIME", "COLLECTION_ALIASES", "MIN_RUNS", "MIN_TOPICS", "PAPER_COLLECTIONS", "SCOPES",
           "THIS_COLLECTION", "Claim", "Rating", "claims_frame", "default_paper_dataset", "grade", "grade_frame",
           "plans_of", "read_claims", "read_plans", "record_claims", "same_collection", "verdict_category", "verdict_counts"]
