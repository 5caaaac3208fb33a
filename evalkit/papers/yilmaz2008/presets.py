"""Yilmaz, Kanoulas & Aslam 2008: the notebook's run sizes per preset (paper / class / fast)."""

from __future__ import annotations

#: the notebook's sizes per preset (:mod:`evalkit.papers.settings`). "paper": 100 samples per p to validate the
#: intervals, Figures 3-4 at every depth of the sweep with 10 trials each, 5 trials of the smoothing study.
#: "class": 10 samples per p (the KS test is weaker, so more runs pass it; the bias columns still show the
#: shift), 6 of the sweep's depths spread over the same range (:func:`evalkit.papers.settings.spread`; 1, 2, 5, 10, 20,
#: 50 on TREC-8) with 2 trials each (xinfAP's lead over infAP holds at every depth on TREC-8; the min-max bands
#: are narrower), 2 smoothing trials. "fast": the tests' (``plan(fast=True)`` picks its depths).
PRESETS = {
    "paper": {"validation_trials": 100, "sweep_trials": 10, "sweep_points": None, "smoothing_trials": 5},
    "class": {"validation_trials": 10, "sweep_trials": 2, "sweep_points": 6, "smoothing_trials": 2},
    "fast": {"validation_trials": 10, "sweep_trials": 2, "sweep_points": None, "smoothing_trials": 2},
}


def settings(preset: str = "paper", fast: bool = False, **given):
    """The notebook's sizes: :data:`PRESETS` ``[preset]`` (``"fast"`` when ``fast``), explicit values winning
    (:func:`evalkit.papers.settings.resolve`)."""
    from evalkit.papers.settings import resolve

    return resolve(PRESETS, preset, fast, **given)
