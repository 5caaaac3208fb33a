"""Carterette (2007): the notebook's run sizes per preset ("paper", "class", "fast") and :func:`settings`."""

from __future__ import annotations

#: the notebook's sizes per preset (:mod:`evalkit.papers.settings`). "paper": 300 trials of Sec. 4.3 (the paper ran "over
#: 1,000" a bin over five collections), 300 with the paper's prior (plain and with the coefficients'
#: uncertainty), 30 per prior strength, Monte Carlo moments from 200,000 (toy) and 20,000 (pairs) samples.
#: "class": 30 trials, 10 with the paper's prior, no strength sweep on this collection (the held-out table that
#: chose the default is still shown), 50,000 / 5,000 samples: RTC still needs fewer judgments than MTC and
#: ranks the runs better, the top bins hold fewer pairs (noisier accuracies). "fast": the tests' (a judgment
#: budget of 300 a trial).
PRESETS = {
    "paper": {"trials": 300, "prior_trials": 300, "strength_trials": 30, "widget_trials": 4, "max_judgments": None,
              "moment_samples": 200_000, "variance_samples": 20_000},
    "class": {"trials": 30, "prior_trials": 10, "strength_trials": 0, "widget_trials": 2, "max_judgments": None,
              "moment_samples": 50_000, "variance_samples": 5_000},
    "fast": {"trials": 4, "prior_trials": 2, "strength_trials": 1, "widget_trials": 1, "max_judgments": 300,
             "moment_samples": 20_000, "variance_samples": 2_000},
}


def settings(preset: str = "paper", fast: bool = False, **given):
    """The notebook's sizes: :data:`PRESETS` ``[preset]`` (``"fast"`` when ``fast``), explicit values winning
    (:func:`evalkit.papers.settings.resolve`)."""
    from evalkit.papers.settings import resolve

    return resolve(PRESETS, preset, fast, **given)
