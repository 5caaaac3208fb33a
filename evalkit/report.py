"""Recording a notebook's results so the batch report can gather them.

A notebook calls :func:`record_claims` with a table of the paper's statements beside the kit's figures; the table
is shown as HTML and also stored in the notebook's output under the MIME type :data:`CLAIMS_MIME`, from which
:func:`evalkit.pipeline.write_report` builds the cross-paper table. Nothing is written to side files, so an
executed notebook carries its own results.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

import pandas as pd

__all__ = ["Claim", "record_claims", "claims_frame", "CLAIMS_MIME", "read_claims"]

CLAIMS_MIME = "application/vnd.evalkit.claims+json"


@dataclass(frozen=True)
class Claim:
    """One line of the paper-versus-kit table."""

    paper: str
    claim: str
    paper_value: str
    kit_value: str
    dataset: str = ""
    agrees: str = ""  # "yes", "no", "partly" or "" (not comparable)
    note: str = ""


def claims_frame(claims: list[Claim]) -> pd.DataFrame:
    return pd.DataFrame([asdict(c) for c in claims])


def record_claims(claims: list[Claim] | pd.DataFrame, display: bool = True) -> pd.DataFrame:
    """Show the claims table and store it in the notebook output for the report."""
    frame = claims if isinstance(claims, pd.DataFrame) else claims_frame(claims)
    frame = frame.fillna("").astype(str)
    if display:
        from IPython.display import display as ipy_display

        ipy_display(
            {"text/html": frame.to_html(index=False), "text/plain": frame.to_string(index=False),
             CLAIMS_MIME: json.loads(frame.to_json(orient="records"))},
            raw=True,
        )
    return frame


def read_claims(notebook_path) -> pd.DataFrame:
    """The claims recorded in an executed notebook (empty frame if none)."""
    import nbformat

    notebook = nbformat.read(str(notebook_path), as_version=4)
    rows = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if CLAIMS_MIME in data:
                payload = data[CLAIMS_MIME]
                rows.extend(json.loads(payload) if isinstance(payload, str) else payload)
    return pd.DataFrame(rows, columns=list(Claim.__dataclass_fields__))
