"""What a collection build gives :meth:`evalkit.data.collection.Collection.from_runs`, whichever reader made it (the
pure-Python build, :mod:`evalkit.data.build`, or the compiled one, :mod:`evalkit.data.native_build`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class BuiltArrays:
    """The parsed runs (for names and error messages), the topics (the qrels', sorted), the sorted vocabulary, the
    dense ``docs`` and ``scores``, the qrels' topic positions, doc ids, grades and strata (row for row, in an order
    of the build's choosing), per run the lines whose topic has no qrels, and (S, T) the rankings that hold a
    document twice; ``reader`` says which build made them (``"python"`` or ``"native"``: the same arrays either way,
    tests/test_native_build.py)."""

    runs: list
    topics: np.ndarray
    vocabulary: np.ndarray
    docs: np.ndarray
    scores: np.ndarray
    qrels_topic_ids: np.ndarray
    qrels_doc_ids: np.ndarray
    qrels_grade: np.ndarray
    qrels_stratum: np.ndarray | None
    lines_without_qrels: np.ndarray
    repeated: np.ndarray
    reader: str = "python"
