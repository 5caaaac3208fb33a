"""Grading a notebook's claims honestly: the rules that turn the notebook's reading into a quotable verdict.

A notebook records its claims (:func:`evalkit.claims.record_claims`): the paper's statements beside the kit's
figures, each rated by a written rule of :mod:`evalkit.claims.rules` (``agrees``: yes / no / partly /
inconclusive, with the ``interval`` it read and the ``rule`` that read it).

Grading (:func:`grade`): each :class:`Claim` keeps the notebook's rating and gets a **verdict**, the rating a reader
may quote. In this order:

1. ``"not rated: <reason>"``: the notebook says why the claim cannot be rated here (``not_rated``): a degenerate
   design, e.g. ``"degenerate (sampling rate 1.0 on 30 of 30 topics)"``, in which the quantity the claim is about
   does not vary; or ``"not rated at class size (<why>)"`` when the class preset's sizes cannot support it;
2. ``"not rated: NaN"``: the kit's value contains NaN or inf (a statistic that could not be computed);
3. ``"not rated"``: the notebook gave no rating;
4. ``"withheld: ..."``: the loaded collection has fewer than :data:`MIN_RUNS` (10) runs or :data:`MIN_TOPICS`
   (20) topics (a claim may set its own ``min_runs`` / ``min_topics``; e.g. an exact check needs 1). Rankings of a
   handful of systems, or statistics over a handful of topics, say nothing about a paper's claim. The minimums
   apply when the claim's kit value was computed on the loaded collection;
5. ``"not comparable"``: the paper's figure comes from another collection (``paper_dataset``) than the kit's
   (``dataset``), and the claim is about a value; ``"direction only: yes"`` (``no``, ``partly``,
   ``inconclusive``) when the claim (``kind="direction"``) is about a direction or an ordering, which can be
   checked on any collection (a reversed direction is ``direction only: no``);
6. otherwise the notebook's rating: ``yes`` / ``no`` / ``partly``, or ``inconclusive (<interval>)``.

``scope="beyond"`` marks a row that goes beyond the paper (the kit's own extension or check): it is graded the same
way but reported apart, never counted among the paper's verdicts (:func:`verdict_counts`).

The collection a paper's figure comes from is ``Claim.paper_dataset``. **Default for rows that do not name one**:
the paper's main collection from :data:`PAPER_COLLECTIONS`, looked up by the start of ``Claim.paper`` (e.g. every
"Voorhees 2014 ..." row is TREC-8's, every "Soboroff 2007" row TB06's); if the claim's text names one of the
paper's other collections (e.g. "(Table 5, ad hoc 99)" in a Carterette 2007 row), that one. A paper not in the
table gets "" (unknown), which is never comparable. :data:`THIS_COLLECTION` marks a reference computed on the
loaded collection itself (e.g. trec_eval's own scores): always comparable. ``kind`` defaults to ``"value"``: a row
that says nothing is not graded on another collection.

Collections match by name, ignoring case, spaces and punctuation, with the aliases of :data:`COLLECTION_ALIASES`
(TREC-8 = "trec8" = "ad hoc 99"); a reviewer's collection takes its name from ``collection.json`` (``name``),
else from its folder. The size of the loaded collection comes from :func:`evalkit.data.datasets.last_loaded` (the
collection :func:`evalkit.load_dataset` loaded last), or from ``record_claims(..., collection=...)``.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, fields

import pandas as pd

from evalkit.claims.rules import RATINGS
from evalkit.data.datasets import last_loaded

__all__ = [
    "Claim",
    "claims_frame",
    "grade",
    "grade_frame",
    "same_collection",
    "default_paper_dataset",
    "MIN_RUNS",
    "MIN_TOPICS",
    "THIS_COLLECTION",
    "PAPER_COLLECTIONS",
    "COLLECTION_ALIASES",
    "COLUMNS",
    "SCOPES",
    "verdict_category",
    "verdict_counts",
]

#: below these sizes of the loaded collection no claim computed on it is rated (a claim may set its own)
MIN_RUNS = 10
MIN_TOPICS = 20

#: ``paper_dataset`` of a reference computed on the loaded collection itself (always comparable)
THIS_COLLECTION = "this collection"

#: paper (start of ``Claim.paper``) -> (the collection its figures come from, the paper's other collections)
PAPER_COLLECTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "Voorhees 2014": ("TREC-8", ("TREC 2012 Medical",)),
    "Yilmaz, Kanoulas & Aslam 2008": ("TREC-8", ("TREC-9", "TREC-10")),
    "Soboroff 2007": ("TB06", ()),
    "Lu, Moffat & Culpepper 2017": ("TREC-9, TREC-10, Rob04, TB04, TB05, TB06", ("TREC-5",)),
    "Carterette 2007": ("pooled ad hoc 94+96-99", ("ad hoc 99",)),
    "TREC-8": ("TREC-8", ()),
}

#: names that denote the same collection (after lower-casing and dropping everything but letters and digits)
COLLECTION_ALIASES: tuple[frozenset, ...] = (
    frozenset({"trec8", "adhoc99", "trec8adhoc", "trec1999"}),
    frozenset({"tb06", "terabyte06", "terabyte2006", "trec2006terabyte"}),
    frozenset({"rob04", "robust04", "robust2004"}),
)

#: a claim's scope: the paper's own statement, or beyond the paper (reported apart, never in the paper's counts)
SCOPES = ("paper", "beyond")

_NONFINITE = re.compile(r"(?i)(?<![a-z])(nan|[-+]?inf(inity)?)(?![a-z])")


@dataclass(frozen=True)
class Claim:
    """One line of the paper-versus-kit table (see the module docstring for how it is graded).

    ``paper_dataset``: the collection the paper's figure comes from ("" = the paper's default, see
    :data:`PAPER_COLLECTIONS`); ``dataset``: the collection of the kit's value ("" = the loaded one). ``kind``:
    ``"value"`` or ``"direction"``. ``min_runs`` / ``min_topics``: the sizes below which the verdict is withheld
    (None = :data:`MIN_RUNS` / :data:`MIN_TOPICS`). ``interval``: the kit value's uncertainty as text (e.g.
    ``"-4.03 [-7.00, -1.50] (95% bootstrap over 300 trials)"``); ``rule``: the written rule that rated it
    (:mod:`evalkit.claims.rules`); ``not_rated``: why it cannot be rated here (module docstring); ``scope``:
    ``"paper"`` or ``"beyond"``.
    """

    paper: str
    claim: str
    paper_value: str
    kit_value: str
    dataset: str = ""
    agrees: str = ""  # the notebook's rating: "yes", "no", "partly" or "" (not rated)
    note: str = ""
    paper_dataset: str = ""
    kind: str = "value"
    min_runs: int | None = None
    min_topics: int | None = None
    interval: str = ""
    rule: str = ""
    not_rated: str = ""
    scope: str = "paper"

    def __post_init__(self):
        if self.kind not in ("value", "direction"):
            raise ValueError(f"Claim.kind must be 'value' or 'direction', got {self.kind!r}")
        if self.scope not in SCOPES:
            raise ValueError(f"Claim.scope must be one of {', '.join(SCOPES)}, got {self.scope!r}")
        if self.agrees and self.agrees not in RATINGS:
            raise ValueError(f"Claim.agrees must be one of {', '.join(RATINGS)} or empty, got {self.agrees!r}")


COLUMNS = ["paper", "claim", "paper_value", "paper_dataset", "kit_value", "interval", "dataset", "verdict", "agrees",
           "rule", "note", "scope", "kind", "min_runs", "min_topics", "not_rated"]

def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


def _canonical(name: str) -> str:
    key = _key(name)
    for group in COLLECTION_ALIASES:
        if key in group:
            return min(group)
    return key


def same_collection(paper_dataset: str, dataset: str) -> bool:
    """Whether the kit's ``dataset`` is (one of) the collection(s) ``paper_dataset`` names (comma-separated)."""
    if paper_dataset == THIS_COLLECTION:
        return True
    mine = _canonical(dataset)
    return bool(mine) and any(_canonical(part) == mine for part in str(paper_dataset).split(",") if _key(part))


def default_paper_dataset(paper: str, claim: str = "") -> str:
    """The collection a paper's figure comes from when the claim does not say (module docstring)."""
    for name, (main, others) in PAPER_COLLECTIONS.items():
        if str(paper).startswith(name):
            named = [o for o in others if _key(o) in _key(claim)]
            return named[0] if len(named) == 1 else main
    return ""


def _int_or(value, default: int) -> int:
    try:
        if value is None or (isinstance(value, float) and math.isnan(value)) or value == "":
            return default
        return int(float(value))
    except (TypeError, ValueError):
        return default


def grade(claim, context: dict | None = None) -> dict:
    """``paper_dataset``, ``dataset`` and ``verdict`` of one claim (a :class:`Claim` or a mapping with its fields),
    graded against ``context`` (name, n_runs, n_topics of the loaded collection; default: the collection :func:`evalkit.load_dataset` loaded last).
    """
    row = asdict(claim) if isinstance(claim, Claim) else dict(claim)
    context = last_loaded() if context is None else context
    text = lambda key: "" if row.get(key) is None or (isinstance(row.get(key), float) and  # noqa: E731
                                                      math.isnan(row[key])) else str(row[key])
    dataset = text("dataset") or context.get("name", "")
    paper_dataset = text("paper_dataset") or default_paper_dataset(text("paper"), text("claim"))
    agrees = text("agrees").strip().lower()
    kind = text("kind") or "value"
    on_loaded = not text("dataset") or _key(dataset) == _key(context.get("name", ""))
    min_runs, min_topics = _int_or(row.get("min_runs"), MIN_RUNS), _int_or(row.get("min_topics"), MIN_TOPICS)
    not_rated = text("not_rated").strip()
    if not_rated:
        verdict = ("not rated " + not_rated) if not_rated.startswith("at class size") else f"not rated: {not_rated}"
    elif _NONFINITE.search(text("kit_value")):
        verdict = "not rated: NaN"
    elif agrees not in RATINGS:
        verdict = "not rated"
    elif on_loaded and "n_runs" in context and context["n_runs"] < min_runs:
        verdict = f"withheld: {context['n_runs']} runs (< {min_runs})"
    elif on_loaded and "n_topics" in context and context["n_topics"] < min_topics:
        verdict = f"withheld: {context['n_topics']} topics (< {min_topics})"
    elif same_collection(paper_dataset, dataset):
        verdict = (f"inconclusive ({text('interval')})" if text("interval") else "inconclusive") \
            if agrees == "inconclusive" else agrees
    elif kind == "direction":
        verdict = f"direction only: {agrees}"
    else:
        verdict = "not comparable"
    return {"paper_dataset": paper_dataset or "unknown", "dataset": dataset, "verdict": verdict,
            "scope": text("scope") or "paper"}


def claims_frame(claims: list[Claim]) -> pd.DataFrame:
    return pd.DataFrame([asdict(c) for c in claims], columns=[f.name for f in fields(Claim)])


def grade_frame(frame: pd.DataFrame, context: dict | None = None) -> pd.DataFrame:
    """Every row of a claims frame graded (:func:`grade`), columns in the report's order."""
    frame = frame.copy()
    for column in COLUMNS:
        if column not in frame:
            frame[column] = ""
    graded = [grade(row, context) for row in frame.to_dict("records")]
    for column in ("paper_dataset", "dataset", "verdict", "scope"):
        frame[column] = [g[column] for g in graded]
    return frame[COLUMNS + [c for c in frame.columns if c not in COLUMNS]]


def verdict_category(verdict: str) -> str:
    """The verdict without its detail: "withheld: 3 runs (< 10)" -> "withheld", "not rated: degenerate (...)" ->
    "not rated", "inconclusive ([0.1, 0.3] ...)" -> "inconclusive"; "direction only: yes" stays whole (its rating
    is the point)."""
    verdict = str(verdict).strip()
    if verdict.startswith("not rated"):
        return "not rated"
    if verdict.startswith("inconclusive"):
        return "inconclusive"
    head = verdict.split(":", 1)[0].strip()
    return head if head.lower() == "withheld" else verdict


def verdict_counts(frame: pd.DataFrame) -> dict[str, pd.Series]:
    """Verdict categories counted per scope (``{"paper": counts, "beyond": counts}``, a scope only if it has rows):
    the paper's verdicts never include what goes beyond the paper."""
    if "verdict" not in frame or frame.empty:
        return {}
    scope = frame["scope"].replace("", "paper") if "scope" in frame else pd.Series("paper", index=frame.index)
    out = {}
    for name in SCOPES:
        rows = frame[scope == name]
        if len(rows):
            out[name] = rows["verdict"].map(verdict_category).value_counts()
    return out
