"""Carterette (2007): what the Sec. 4 experiment needs from a collection, and the paper's defaults scaled to it
(:mod:`evalkit.papers.needs`)."""

from __future__ import annotations

from evalkit.data.collection import Collection
from evalkit.papers.carterette2007.paper import PAPER_DEPTH, PAPER_K
from evalkit.papers.needs import (
    Plan,
    require,
    require_judged_depth,
    require_known_judged_depth,
    require_runs,
    scale_k,
)


def plan(collection: Collection, k: int = PAPER_K, c: int = 2, depth: int = PAPER_DEPTH, *, trials: int = 300,
         prior_trials: int = 300, strength_trials: int = 30, widget_trials: int = 4,
         max_judgments: int | None = None, fast: bool = False) -> Plan:
    """What the Sec. 4 experiment needs from ``collection``, and the settings it will use there
    (:mod:`evalkit.papers.needs`).

    Needs: a known judged depth (MTC and RTC ask the qrels about any document of the k runs' lists; past the
    judged depth an unjudged document would count as nonrelevant without having been judged); at least 3 runs
    (two original runs and at least one new run: the paper's question is reuse on new runs); c < k (c >= 2, else a
    ValueError). The paper's lists are cut at 100, TREC-8's judged depth: on a collection judged less deep they are
    cut at the judged depth (and at the runs' depth); a ``depth`` the user set is checked against the judged depth. The
    paper's k = 10 runs a trial becomes min(10, runs) (:func:`evalkit.papers.needs.scale_k`), so a trial has
    k (k - 1) / 2 pairs; a k the user set is checked. ``fast``: at most 4 trials (2 with the paper's prior, 1 a
    prior strength and in the widget) and 300 judgments an algorithm and trial.

    Parameters: ``k``, ``c``, ``depth`` (lists cut there; the truth is MAP at that depth on the full qrels),
    ``pairs`` (per trial), ``trials``, ``prior_trials``, ``strength_trials``, ``widget_trials``, ``max_judgments``.
    """
    judged = require_known_judged_depth(collection, f"(MTC and RTC ask them about any document of a run's top "
                                                    f"{depth}; past the judged depth an unjudged document would "
                                                    "count as nonrelevant)")
    require(collection.n_runs >= 3, "at least 3 runs (two original runs whose judgments are reused on a new one)",
            f"{collection.n_runs}", "No parameter changes this: point dataset at a collection with more runs.")
    notes = []
    runs = scale_k(k, collection, default=PAPER_K)
    if runs != int(k):
        notes.append(f"k = {runs} runs a trial ({runs * (runs - 1) // 2} pairs; the paper's {PAPER_K}: the "
                     f"collection has {collection.n_runs} runs)")
    require_runs(collection, runs, "k")
    if int(c) < 2:
        raise ValueError(f"c must be >= 2 (the judgments are built for the pair of the first two runs), got {c}")
    require(int(c) < runs, f"more runs a trial than original runs (c = {int(c)}, k = {runs}: the judgments built "
            "for the c original runs are reused on the k - c new ones)", f"{collection.n_runs} runs",
            f"Set c to at most {runs - 1}" + (f", or k to at least {int(c) + 1}." if int(c) < collection.n_runs
                                              else "."))
    top = min(judged, collection.depth)
    if int(depth) == PAPER_DEPTH:
        cut = min(PAPER_DEPTH, top)
        if cut < PAPER_DEPTH:
            notes.append(f"lists cut at depth {cut} (the judged depth; the paper's 100 is as deep as ad hoc 99 "
                         "was judged)")
    else:
        cut = int(depth)
        require(cut >= 1, f"lists at least 1 deep (depth = {cut})", f"judged depth {judged}",
                f"Set depth between 1 and {top}.")
        require_judged_depth(collection, cut, "depth")
    if fast:
        trials, prior_trials = min(int(trials), 4), min(int(prior_trials), 2)
        strength_trials, widget_trials = min(int(strength_trials), 1), min(int(widget_trials), 1)
        max_judgments = max_judgments or 300
    return Plan("05_carterette2007", collection.name, {
        "k": runs, "c": int(c), "depth": cut, "pairs": runs * (runs - 1) // 2, "trials": int(trials),
        "prior_trials": int(prior_trials), "strength_trials": int(strength_trials),
        "widget_trials": int(widget_trials), "max_judgments": max_judgments}, notes)
