"""What a notebook records in its own output for the batch report: its claims and its plan.

An executed notebook carries its own results, so the batch report (:mod:`evalkit.batch.report_page`) gathers
them from it and nothing is written to side files. :func:`record_claims` grades a table of the paper's statements
beside the kit's figures (:func:`evalkit.claims.grading.grade`), shows it as HTML and stores it under the MIME type
:data:`CLAIMS_MIME`; :func:`read_claims` reads it back. A notebook's plan (:class:`evalkit.papers.needs.Plan`: what
was scaled, from what, to what, and what is degenerate) is displayed with :data:`PLAN_MIME` beside its text;
:func:`read_plans` reads it back.
"""

from __future__ import annotations

import json

import pandas as pd

from evalkit.claims.grading import COLUMNS, Claim, claims_frame, grade_frame

__all__ = ["CLAIMS_MIME", "PLAN_MIME", "record_claims", "read_claims", "read_plans", "plans_of"]

CLAIMS_MIME = "application/vnd.evalkit.claims+json"
PLAN_MIME = "application/vnd.evalkit.plan+json"


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

        html, text = _shown(frame)
        ipy_display({"text/html": html, "text/plain": text,
                     CLAIMS_MIME: json.loads(frame.to_json(orient="records"))}, raw=True)
    return frame


_HIDDEN = ["kind", "min_runs", "min_topics", "not_rated", "scope"]  # carried in the MIME payload, shown by the verdict


def _shown(frame: pd.DataFrame) -> tuple[str, str]:
    """The paper's claims as one table and, apart, those beyond the paper (HTML and plain text); the interval and
    rule columns only where some row has one."""
    shown = frame.drop(columns=[c for c in _HIDDEN if c in frame])
    shown = shown.drop(columns=[c for c in ("interval", "rule") if c in shown and not shown[c].astype(bool).any()])
    beyond = frame["scope"].eq("beyond") if "scope" in frame else pd.Series(False, index=frame.index)
    html, text = shown[~beyond].to_html(index=False), shown[~beyond].to_string(index=False)
    if beyond.any():
        title = "Beyond the paper (graded the same way, never counted among the paper's verdicts)"
        html += f"<h4>{title}</h4>" + shown[beyond].to_html(index=False)
        text += f"\n\n{title}\n" + shown[beyond].to_string(index=False)
    return html, text


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


def plans_of(notebook) -> list[dict]:
    """The plans an executed notebook (an ``nbformat`` node or its JSON as a dict) displayed, in order: each
    ``{"notebook", "collection", "line", "parameters", "notes", "degenerate"}``."""
    cells = notebook["cells"] if isinstance(notebook, dict) else notebook.cells
    plans = []
    for cell in cells:
        for output in cell.get("outputs", []):
            payload = output.get("data", {}).get(PLAN_MIME)
            if payload is not None:
                payload = json.loads(payload) if isinstance(payload, str) else payload
                if isinstance(payload, dict):
                    plans.append(payload)
    return plans


def read_plans(notebook_path) -> list[dict]:
    """:func:`plans_of` an executed notebook file (empty if it displayed none, or cannot be read as JSON)."""
    try:
        with open(notebook_path, encoding="utf-8") as handle:
            return plans_of(json.load(handle))
    except (OSError, ValueError):
        return []
