"""What a notebook needs from a collection, checked before it computes anything.

A notebook that cannot run on the loaded collection stops with :class:`NeedsNotMet`: one readable sentence saying
what it needs, what the collection has, and which parameter or metadata changes it. In JupyterLab the sentence is
shown instead of a traceback (IPython's ``_render_traceback_`` hook); in a batch (:mod:`evalkit.batch.pipeline`) the
notebook is reported as *skipped* with that sentence as the reason, not as *failed*.

Each paper's experiment module has a ``plan(collection, **parameters)`` that runs these checks and returns a
:class:`Plan`: the parameters the notebook will use and, where the paper's defaults do not fit the collection,
a note of what was scaled (printed as one line). The rules every plan follows:

* the paper's defaults assume TREC-8-like pools judged to depth :data:`REFERENCE_DEPTH` (100). On a collection
  judged less deep, default depths are scaled by ``judged depth / 100`` (:func:`scale_depth`), so the paper's
  ratios (e.g. d' = 10% of d) are kept; a value the user set is checked, never changed;
* a depth the notebook pools or samples from must be <= the judged depth (beyond it the qrels know nothing);
* at least :data:`MIN_JUDGED_RUNS` judged runs; enough runs and topics for the statistics the notebook computes
  (each plan states its numbers); ``k`` runs are ``min(k, runs)`` (:func:`scale_k`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral

import numpy as np

__all__ = [
    "whole_number",
    "NeedsNotMet",
    "require",
    "Plan",
    "REFERENCE_DEPTH",
    "MIN_JUDGED_RUNS",
    "judged_mask",
    "judged_depth_of",
    "judged_depth_rule",
    "require_judged_runs",
    "require_judged_depth",
    "require_known_judged_depth",
    "require_judged_groups",
    "require_topics",
    "require_runs",
    "scale_depth",
    "scale_depths",
    "scale_k",
]

#: the judged depth the papers' default depths are written for (TREC-8's pools)
REFERENCE_DEPTH = 100
#: judged runs every notebook needs (pools of one run say nothing about pooling)
MIN_JUDGED_RUNS = 2

_HOW_JUDGED = ("Say which runs contributed to the pools: a 'judged' column (yes/no) in runs_table.tsv or "
               "\"judged_runs\" in collection.json (docs/reviewers.md).")


class NeedsNotMet(RuntimeError):
    """The collection lacks something the notebook needs: ``need``, what it ``has``, and ``change`` (how to fix)."""

    def __init__(self, need: str, has: str, change: str):
        self.need, self.has, self.change = need, has, change
        super().__init__(f"This notebook needs {need}; the collection has {has}. {change}")

    def _render_traceback_(self) -> list[str]:  # IPython shows this instead of a traceback
        return [f"{type(self).__name__}: {self}"]


def require(condition: bool, need: str, has: str, change: str) -> None:
    """Raise :class:`NeedsNotMet` unless ``condition`` holds."""
    if not condition:
        raise NeedsNotMet(need, has, change)


@dataclass
class Plan:
    """What a notebook will run on a collection: the effective ``parameters``, ``notes`` on what was scaled (from
    what, to what), and what is ``degenerate``: a study whose quantity does not vary on this collection, keyed by a
    short name, each a sentence with the number that shows it and the parameter that restores a meaningful study.
    The claims a degenerate study would grade read ``not rated: degenerate (...)`` (:mod:`evalkit.claims`).

    ``str(plan)`` is the plan line; displayed in a notebook (``display(plan)``, or the cell's last value) it also
    carries itself for the batch report (:data:`evalkit.claims.PLAN_MIME`). ``plan["name"]`` (or ``plan.name``) is a
    parameter.
    """

    notebook: str
    collection: str
    parameters: dict
    notes: list = field(default_factory=list)
    degenerate: dict = field(default_factory=dict)
    restore: dict = field(default_factory=dict)

    def mark_degenerate(self, key: str, shows: str, restore: str = "") -> None:
        """Record that the study ``key`` (e.g. ``"sampling"``) is degenerate here: ``shows`` is the number that shows
        it ("sampling rate 1.0 on 30 of 30 topics"), ``restore`` the parameter that restores a meaningful study
        ("budget=400 samples below the pool")."""
        self.degenerate[key] = shows
        if restore:
            self.restore[key] = restore

    def degenerate_reason(self, key: str) -> str:
        """``"degenerate (<what shows it>)"`` for a claim's ``not_rated`` when ``key`` is degenerate here, else
        ``""``."""
        return f"degenerate ({self.degenerate[key]})" if key in self.degenerate else ""

    def __getitem__(self, key):
        return self.parameters[key]

    def __getattr__(self, key):
        parameters = self.__dict__.get("parameters", {})
        if key in parameters:
            return parameters[key]
        raise AttributeError(key)

    def __str__(self) -> str:
        if not self.notes:
            text = f"{self.notebook} on {self.collection}: the paper's settings fit this collection"
        else:
            text = f"{self.notebook} on {self.collection}: " + "; ".join(self.notes)
        if self.degenerate:
            text += "; degenerate here, so not rated: " + "; ".join(
                f"{k} ({v}{'; ' + self.restore[k] if k in self.restore else ''})" for k, v in self.degenerate.items())
        return text + "."

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(str(self))

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        from evalkit.claims.record import PLAN_MIME

        parameters = {k: v if isinstance(v, (str, int, float, bool, type(None))) else
                      [x if isinstance(x, (str, int, float, bool)) else str(x) for x in v]
                      if isinstance(v, (list, tuple)) else str(v) for k, v in self.parameters.items()}
        return {"text/plain": str(self),
                PLAN_MIME: {"notebook": self.notebook, "collection": self.collection, "line": str(self),
                            "parameters": parameters, "notes": [str(n) for n in self.notes],
                            "degenerate": {str(k): str(v) for k, v in self.degenerate.items()},
                            "restore": {str(k): str(v) for k, v in self.restore.items()}}}


# ------------------------------------------------------------------------------------------------ facts


def judged_mask(collection) -> np.ndarray:
    """(S,) bool: the judged runs (all False when the collection does not say)."""
    if "judged" not in collection.runs_info:
        return np.zeros(collection.n_runs, bool)
    return collection.runs_info["judged"].fillna(False).to_numpy(bool)


def _judged_rule(collection) -> str:
    return collection.metadata.get("judged_runs_rule", "the collection does not say which runs were judged")


def judged_depth_of(collection) -> int | None:
    """The collection's judged depth (its metadata's, else derived from the judged runs' pool); None when no run
    is judged."""
    depth = collection.metadata.get("judged_depth")
    if depth:
        return int(depth)
    if not judged_mask(collection).any():
        return None
    from evalkit.data.pools import judged_depth

    depth = judged_depth(collection, runs=judged_mask(collection))
    return int(depth) if depth > 0 else None


def judged_depth_rule(collection) -> str:
    """Which rule gave the collection's judged depth (its metadata's, else derived from the judged runs' pool)."""
    return collection.metadata.get("judged_depth_rule", "derived from the judged runs' pool")


_depth_rule = judged_depth_rule


# ------------------------------------------------------------------------------------------------ checks


def require_judged_runs(collection, n: int = MIN_JUDGED_RUNS, why: str = "to pool from") -> int:
    """At least ``n`` judged runs; returns how many there are."""
    k = int(judged_mask(collection).sum())
    require(k >= n, f"at least {n} judged runs (runs that contributed to the pools) {why}",
            f"{k} of {collection.n_runs} runs judged (rule: {_judged_rule(collection)})", _HOW_JUDGED)
    return k


def require_judged_depth(collection, depth: int, parameter: str, why: str | None = None) -> int:
    """Judgments at least ``depth`` deep for ``parameter`` (``why``: what reaches that depth, default
    ``"<parameter> = <depth>"``); returns the judged depth."""
    judged = judged_depth_of(collection)
    why = why or f"{parameter} = {depth}"
    if judged is None:
        require(False, f"judged runs to pool to depth {depth} ({why})",
                f"no judged depth (rule: {_judged_rule(collection)})", _HOW_JUDGED)
    require(depth <= judged, f"judgments to depth {depth} ({why})",
            f"judged depth {judged} ({_depth_rule(collection)})",
            f"Keep the parameter {parameter} at or below depth {judged}, or set \"judged_depth\" in collection.json "
            "if the pools were deeper.")
    return judged


def require_known_judged_depth(collection, why: str) -> int:
    """A judged depth, from the metadata or the judged runs' pool (``why``: what relies on it); returns it. For a
    notebook that asks the qrels about documents of any run rather than pooling from the judged runs."""
    judged = judged_depth_of(collection)
    require(judged is not None, f"to know how deep the qrels go {why}",
            f"no judged depth (rule: {_judged_rule(collection)})",
            "Set \"judged_depth\" in collection.json, or say which runs contributed to the pools: a 'judged' column "
            "(yes/no) in runs_table.tsv (docs/reviewers.md).")
    return judged


def require_judged_groups(collection, n: int = 2, why: str = "to leave one group out") -> int:
    """Judged runs from at least ``n`` groups (``runs_info['group']``); returns how many groups."""
    judged = judged_mask(collection)
    groups = collection.runs_info["group"].to_numpy()[judged] if "group" in collection.runs_info else \
        collection.run_names[judged]
    k = len(set(map(str, groups)))
    require(k >= n, f"judged runs from at least {n} groups {why}", f"judged runs from {k} group(s)",
            "Give each run its group in runs_table.tsv (column 'group'), or mark runs of other groups as judged.")
    return k


def require_topics(collection, n: int, why: str) -> int:
    """At least ``n`` topics; returns the number of topics."""
    require(collection.n_topics >= n, f"at least {n} topics {why}", f"{collection.n_topics}",
            "No parameter changes this: point dataset at a collection with more judged topics.")
    return collection.n_topics


def require_runs(collection, n: int, parameter: str, why: str = "") -> int:
    """At least ``n`` runs for ``parameter``; returns the number of runs."""
    require(collection.n_runs >= n, f"at least {n} runs ({parameter} = {n}{', ' + why if why else ''})",
            f"{collection.n_runs}", f"Set {parameter} to at most {collection.n_runs}.")
    return collection.n_runs


# ------------------------------------------------------------------------------------------------ scaling


def scale_depth(depth: int, judged_depth: int, reference: int = REFERENCE_DEPTH, minimum: int = 1) -> int:
    """A paper's default ``depth`` (written for pools judged to ``reference``) on a collection judged to
    ``judged_depth``: unchanged when judged_depth >= reference, else ``max(minimum, round(depth * judged_depth /
    reference))``, so the paper's ratio depth / reference is kept (d' = 30 of 100 becomes 2 of 7)."""
    if judged_depth >= reference:
        return int(depth)
    return max(int(minimum), int(round(depth * judged_depth / reference)))


def scale_depths(depths, judged_depth: int, reference: int = REFERENCE_DEPTH, minimum: int = 1,
                 below: int | None = None) -> list[int]:
    """:func:`scale_depth` of each, duplicates dropped, order kept; with ``below``, only depths < below."""
    out = []
    for d in depths:
        s = scale_depth(d, judged_depth, reference, minimum)
        if s not in out and (below is None or s < below):
            out.append(s)
    return out


def scale_k(k: int, collection, default: int = 10) -> int:
    """``k`` runs: the paper's default is ``min(default, runs)``; a value the user set is kept (check it with
    :func:`require_runs`)."""
    return min(int(k), collection.n_runs) if int(k) == default else int(k)


def whole_number(name: str, value, minimum: int) -> int:
    """A parameter a user set that must be a whole number of at least ``minimum`` (a bool is not one): the value
    as an int, or a ValueError whose one sentence names the parameter and what it got."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ValueError(f"{name} must be a whole number >= {minimum}, got {value!r}")
    if int(value) < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)
