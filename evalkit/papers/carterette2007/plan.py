"""Carterette (2007): what the Sec. 4 experiment needs from a collection, the paper's defaults scaled to it, and every
parameter of the notebook checked (:mod:`evalkit.papers.needs`)."""

from __future__ import annotations

import math
from numbers import Integral, Real

from evalkit.data.collection import Collection
from evalkit.papers.carterette2007.paper import PAPER_ALPHA, PAPER_C, PAPER_DEPTH, PAPER_K
from evalkit.papers.carterette2007.presets import PRESETS
from evalkit.papers.needs import (
    Plan,
    require,
    require_judged_depth,
    require_known_judged_depth,
    require_runs,
    scale_k,
    whole_number,
)

__all__ = ["plan", "SCHEDULERS"]

#: the schedulers the notebook's ``scheduler`` parameter takes (None: ``$EVALKIT_SCHEDULER``, else "local")
SCHEDULERS = ("local", "serial", "dask")

#: the sizes of :data:`~evalkit.papers.carterette2007.presets.PRESETS` and their least value (0: skip that part)
_SIZES = {"trials": 1, "prior_trials": 0, "cv_trials": 0, "strength_trials": 0, "second_opinion_trials": 0,
          "widget_trials": 1, "diagnostics_trials": 1, "moment_samples": 100, "variance_samples": 100}


def _positive(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(float(value)) or value <= 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return float(value)


def check_prior(prior) -> tuple[float, float] | None:
    """``prior``: None (chosen at run time) or the Beta(a, b) of the aggregation coefficients, two positive numbers
    (one number a means Beta(a, a)); anything else is a ValueError naming ``prior``."""
    if prior is None:
        return None
    if isinstance(prior, Real) and not isinstance(prior, bool):
        prior = (prior, prior)
    if isinstance(prior, (str, bytes)) or not hasattr(prior, "__len__") or len(prior) != 2:
        raise ValueError(f"prior must be None or two positive numbers (a, b) of the Beta prior, got {prior!r}")
    return _positive("prior's a", prior[0]), _positive("prior's b", prior[1])


def check_strengths(strengths) -> tuple:
    """The prior strengths a sweep runs: a non-empty list of distinct positive numbers, sorted."""
    if isinstance(strengths, (str, bytes)) or not hasattr(strengths, "__iter__"):
        raise ValueError(f"strengths must be a list of positive numbers (the a of Beta(a, a)), got {strengths!r}")
    values = [_positive("each of strengths", a) for a in strengths]
    if not values:
        raise ValueError("strengths must hold at least one positive number")
    return tuple(sorted(set(values)))


def plan(collection: Collection, k: int = PAPER_K, c: int = PAPER_C, depth: int = PAPER_DEPTH, *,
         alpha: float = PAPER_ALPHA, prior=None, seed: int = 2007, sizes=None, scheduler: str | None = None,
         n_jobs: int | None = None, trials: int = 300, prior_trials: int = 300, strength_trials: int = 30,
         widget_trials: int = 4, max_judgments: int | None = None, fast: bool = False) -> Plan:
    """What the Sec. 4 experiment needs from ``collection``, and the settings it will use there
    (:mod:`evalkit.papers.needs`).

    Needs: a known judged depth (MTC and RTC ask the qrels about any document of the k runs' lists; past the
    judged depth an unjudged document would count as nonrelevant without having been judged); at least 3 runs
    (two original runs and at least one new run: the paper's question is reuse on new runs); 2 <= c < k. The
    paper's lists are cut at 100, TREC-8's judged depth: on a collection judged less deep they are cut at the judged
    depth (and at the runs' depth); a ``depth`` the user set is checked against the judged depth. The paper's k =
    10 runs a trial becomes min(10, runs) (:func:`evalkit.papers.needs.scale_k`), so a trial has k (k - 1) / 2
    pairs; a k the user set is checked.

    Every parameter is checked, a ValueError naming it: ``k``, ``c``, ``depth``, ``seed`` whole numbers; ``alpha``
    in (0.5, 1); ``prior`` None (the strength is chosen at run time by topic-split cross-validation, which then
    needs ``cv_trials`` >= 1) or two positive numbers; ``scheduler`` one of :data:`SCHEDULERS` or None; ``n_jobs``
    None, -1 or >= 1; and the sizes (``sizes``, the notebook's :func:`~evalkit.papers.carterette2007.settings`,
    else the "fast" preset's when ``fast``, else the keyword arguments): trials and the widget's >= 1, the other trial counts >= 0 (0 skips that part),
    ``max_judgments`` None or >= 1, ``strengths`` positive numbers. A value other than the paper's is noted as set
    by the user (or by the preset, for sizes); the aggregation prior is always noted (the kit's reconstruction).
    """
    if sizes is not None:
        values = dict(sizes)
    elif fast:
        values = dict(PRESETS["fast"])
    else:
        values = {"trials": trials, "prior_trials": prior_trials, "strength_trials": strength_trials,
                  "widget_trials": widget_trials, "max_judgments": max_judgments}
    checked = {name: whole_number(name, values[name], least) for name, least in _SIZES.items() if name in values}
    if values.get("max_judgments") is not None:
        checked["max_judgments"] = whole_number("max_judgments", values["max_judgments"], 1)
    else:
        checked["max_judgments"] = None
    if "strengths" in values:
        checked["strengths"] = check_strengths(values["strengths"])
    k, c, depth, seed = (whole_number("k", k, 2), whole_number("c", c, 1), whole_number("depth", depth, 1),
                         whole_number("seed", seed, 0))
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not 0.5 < float(alpha) < 1.0:
        raise ValueError(f"alpha must be a number in (0.5, 1) (MTC and RTC stop at confidence alpha), got {alpha!r}")
    prior = check_prior(prior)
    if prior is None and checked.get("cv_trials", 1) == 0:
        raise ValueError("prior must be set (e.g. prior=(100, 100)) when cv_trials = 0: nothing is run to choose it")
    if scheduler is not None and scheduler not in SCHEDULERS:
        raise ValueError(f"scheduler must be None or one of {', '.join(SCHEDULERS)}, got {scheduler!r}")
    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, Integral)
                               or not (n_jobs == -1 or n_jobs >= 1)):
        raise ValueError(f"n_jobs must be None, -1 (all cores) or a whole number >= 1, got {n_jobs!r}")
    if c < 2:
        raise ValueError(f"c must be >= 2 (the judgments are built for the pair of the first two runs), got {c}")

    judged = require_known_judged_depth(collection, f"(MTC and RTC ask them about any document of a run's top "
                                                    f"{depth}; past the judged depth an unjudged document would "
                                                    "count as nonrelevant)")
    require(collection.n_runs >= 3, "at least 3 runs (two original runs whose judgments are reused on a new one)",
            f"{collection.n_runs}", "No parameter changes this: point dataset at a collection with more runs.")
    notes = []
    runs = scale_k(k, collection, default=PAPER_K)
    if runs != k:
        notes.append(f"k = {runs} runs a trial ({runs * (runs - 1) // 2} pairs; the paper's {PAPER_K}: the "
                     f"collection has {collection.n_runs} runs)")
    elif k != PAPER_K:
        notes.append(f"k = {k} runs a trial (set; the paper's {PAPER_K})")
    require_runs(collection, runs, "k")
    require(c < runs, f"more runs a trial than original runs (c = {c}, k = {runs}: the judgments built "
            "for the c original runs are reused on the k - c new ones)", f"{collection.n_runs} runs",
            f"Set c to at most {runs - 1}" + (f", or k to at least {c + 1}." if c < collection.n_runs else "."))
    if c != PAPER_C:
        notes.append(f"c = {c} original runs (set; the paper's {PAPER_C})")
    top = min(judged, collection.depth)
    if depth == PAPER_DEPTH:
        cut = min(PAPER_DEPTH, top)
        if cut < PAPER_DEPTH:
            notes.append(f"lists cut at depth {cut} instead of the paper's {PAPER_DEPTH} (the judged depth; the "
                         "paper's 100 is as deep as ad hoc 99 was judged)")
    else:
        cut = depth
        require_judged_depth(collection, cut, "depth")
        require(cut <= collection.depth, f"lists at most as deep as the runs (depth = {cut})",
                f"runs {collection.depth} deep", f"Set depth between 1 and {top}.")
        notes.append(f"lists cut at depth {cut} (set; the paper's {PAPER_DEPTH})")
    if float(alpha) != PAPER_ALPHA:
        notes.append(f"alpha = {float(alpha):g} (set; the paper's {PAPER_ALPHA:g})")
    if prior is None:
        grid = ", ".join(f"{a:g}" for a in checked.get("strengths", ()))
        notes.append("the aggregation prior Beta(a, a) chosen at run time by topic-split cross-validation on this "
                     f"collection{f' among a = {grid}' if grid else ''} (the paper's Beta(1, 1) was trained on "
                     "TREC-4, which the kit does not have)")
    else:
        notes.append(f"the aggregation prior Beta({prior[0]:g}, {prior[1]:g}) (set; the paper's Beta(1, 1), trained "
                     "on TREC-4)")
    if checked["max_judgments"] is not None:
        preset = getattr(sizes, "preset", None)
        by = ("fast mode" if fast else f"the {preset} preset's" if preset in PRESETS and
              PRESETS[preset].get("max_judgments") == checked["max_judgments"] else "set")
        notes.append(f"at most {checked['max_judgments']} judgments an algorithm and trial ({by}; the paper has no "
                     "budget)")
    if sizes is not None and not str(sizes).endswith("the paper's sizes"):  # what the preset or the user changed
        notes.append(str(sizes))
    parameters = {"k": runs, "c": c, "depth": cut, "pairs": runs * (runs - 1) // 2, "alpha": float(alpha),
                  "prior": prior, "seed": seed, "scheduler": scheduler, "n_jobs": n_jobs, **checked}
    return Plan("05_carterette2007", collection.name, parameters, notes)
