"""Recording a notebook's claims in its own output, so an executed notebook carries its results and the batch
report (:mod:`evalkit.batch.report_page`) can gather them from it.

:func:`record_claims` grades a table of the paper's statements beside the kit's figures
(:func:`evalkit.claims.grading.grade`), shows it as HTML and stores it under the MIME type :data:`CLAIMS_MIME`;
:func:`read_claims` reads it back from an executed notebook. Nothing is written to side files.
"""

from __future__ import annotations

import json

import pandas as pd

from evalkit.claims.grading import COLUMNS, Claim, claims_frame, grade_frame

__all__ = ["CLAIMS_MIME", "record_claims", "read_claims"]

CLAIMS_MIME = "application/vnd.evalkit.claims+json"


def record_claims(claims: list[Claim] | pd.DataFrame, display: bool = True, collection=None) -> pd.DataFrame:
    """Grade the claims (:func:`grade`), show the table and store it in the notebook output for the report.

    ``collection``: the loaded collection to grade against (default: the one :func:`evalkit.load_dataset` loaded
    last)."""
    context = None
    if collection is not None:
        context = {"name": str(collection.name), "n_runs": int(collection.n_runs),
                   "n_topics": int(collection.n_topics)}
    frame = claims if isinstance(claims, pd.DataFrame) else claims_frame(claims)
    frame = grade_frame(frame, context).fillna("").astype(str)
    if display:
        from IPython.display import display as ipy_display

        shown = frame.drop(columns=["kind", "min_runs", "min_topics"])
        ipy_display(
            {"text/html": shown.to_html(index=False), "text/plain": shown.to_string(index=False),
             CLAIMS_MIME: json.loads(frame.to_json(orient="records"))},
            raw=True,
        )
    return frame


def read_claims(notebook_path) -> pd.DataFrame:
    """The claims recorded in an executed notebook (empty frame if none), with their verdicts."""
    import nbformat

    notebook = nbformat.read(str(notebook_path), as_version=4)
    rows = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if CLAIMS_MIME in data:
                payload = data[CLAIMS_MIME]
                rows.extend(json.loads(payload) if isinstance(payload, str) else payload)
    frame = pd.DataFrame(rows)
    columns = COLUMNS + [c for c in frame.columns if c not in COLUMNS]
    return frame.reindex(columns=columns)
