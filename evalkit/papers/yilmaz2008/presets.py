"""Yilmaz, Kanoulas & Aslam 2008: the notebook's run sizes per preset (paper / class / fast)."""

from __future__ import annotations

#: the notebook's sizes per preset (:mod:`evalkit.papers.settings`).
#:
#: "paper": the paper's 100 samples per p for each KS test, repeated in 10 blocks (1,000 samples: a pass rate of
#: one experiment gets its spread over repetitions), Figures 3-4 at every depth of the sweep with the paper's 10
#: trials, Figure 2 and the smoothing example over 20 seeds.
#:
#: "class": 10 samples per p in one block (the KS test cannot reject with 10, so its claims read "not rated at
#: class size"; the bias, the coverage and the sd ratios still show), 4 of the sweep's depths spread over the same
#: range (:func:`evalkit.papers.settings.spread`; 1, 4, 10, 50 on TREC-8) with 3 trials each (the figures, not a
#: claim about every depth: those read "not rated at class size"), Figure 2 over 5 seeds.
#:
#: "fast": the tests' (``plan(fast=True)`` picks its depths).
PRESETS = {
    "paper": {"validation_trials": 100, "validation_blocks": 10, "sweep_trials": 10, "sweep_points": None,
              "figure2_trials": 20},
    "class": {"validation_trials": 10, "validation_blocks": 1, "sweep_trials": 3, "sweep_points": 4,
              "figure2_trials": 5},
    "fast": {"validation_trials": 10, "validation_blocks": 1, "sweep_trials": 2, "sweep_points": None,
             "figure2_trials": 3},
}


def settings(preset: str = "paper", fast: bool = False, **given):
    """The notebook's sizes: :data:`PRESETS` ``[preset]`` (``"fast"`` when ``fast``), explicit values winning
    (:func:`evalkit.papers.settings.resolve`)."""
    from evalkit.papers.settings import resolve

    return resolve(PRESETS, preset, fast, **given)
