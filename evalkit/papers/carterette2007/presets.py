"""Carterette (2007): the notebook's run sizes per preset ("paper", "class", "fast") and :func:`settings`."""

from __future__ import annotations

from evalkit.papers.carterette2007.paper import PRIOR_GRID

#: the notebook's sizes per preset (:mod:`evalkit.papers.settings`).
#:
#: "paper": 300 trials of Sec. 4.3 (the paper ran "over 1,000" a bin over five collections), 300 with the paper's
#: prior (plain and with the coefficients' uncertainty), the prior chosen by topic-split cross-validation at six
#: strengths (30 trials a strength and half), the sensitivity of the verdicts at the same strengths (30 trials
#: each, re-using the main experiment's MTC and IP), a second opinion on a simulated collection (30 trials a
#: strength), 30 trials of the re-estimation diagnostics, Monte Carlo moments from 200,000 (toy) and 20,000 (pairs)
#: samples.
#: "class": 30 trials, 10 with the paper's prior, the cross-validation at three strengths (4 trials a strength and
#: half), the sensitivity at the same three (4 trials each; the chosen strength's are the main experiment's), no
#: second opinion, at most 1,500 judgments an algorithm and trial (a few pairs of TREC-8 take several thousand and
#: would take most of the minute; the paper preset has no budget), 50,000 / 5,000 samples: the claims whose rule
#: needs more trials say "not rated at class size"; the tables show the same quantities with wider intervals.
#: "fast": the tests' (a judgment budget of 300 a trial).
# (the strengths are lists: evalkit.papers.settings compares a preset's values with the paper preset's as lists)
PRESETS = {
    "paper": {"trials": 300, "prior_trials": 300, "cv_trials": 30, "strength_trials": 30, "second_opinion_trials": 30,
              "strengths": list(PRIOR_GRID), "widget_trials": 4, "diagnostics_trials": 30, "max_judgments": None,
              "moment_samples": 200_000, "variance_samples": 20_000},
    "class": {"trials": 30, "prior_trials": 10, "cv_trials": 4, "strength_trials": 4, "second_opinion_trials": 0,
              "strengths": [10.0, 100.0, 1000.0], "widget_trials": 2, "diagnostics_trials": 30, "max_judgments": 1500,
              "moment_samples": 50_000, "variance_samples": 5_000},
    "fast": {"trials": 4, "prior_trials": 2, "cv_trials": 1, "strength_trials": 1, "second_opinion_trials": 1,
             "strengths": [10.0, 1000.0], "widget_trials": 1, "diagnostics_trials": 2, "max_judgments": 300,
             "moment_samples": 20_000, "variance_samples": 2_000},
}


def settings(preset: str = "paper", fast: bool = False, **given):
    """The notebook's sizes: :data:`PRESETS` ``[preset]`` (``"fast"`` when ``fast``), explicit values winning
    (:func:`evalkit.papers.settings.resolve`)."""
    from evalkit.papers.settings import resolve

    return resolve(PRESETS, preset, fast, **given)
