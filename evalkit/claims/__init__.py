"""Claims: the paper's statements beside the kit's figures, graded by written rules (:mod:`.grading`) and recorded in
the notebook's output for the batch report (:mod:`.record`)."""

from evalkit.claims.grading import (  # noqa: F401
    COLLECTION_ALIASES,
    MIN_RUNS,
    MIN_TOPICS,
    PAPER_COLLECTIONS,
    THIS_COLLECTION,
    Claim,
    claims_frame,
    default_paper_dataset,
    grade,
    grade_frame,
    same_collection,
)
from evalkit.claims.record import CLAIMS_MIME, read_claims, record_claims  # noqa: F401
