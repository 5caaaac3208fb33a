"""Soboroff (2007): the notebook's run sizes per preset (paper / class / fast)."""

from __future__ import annotations

__all__ = ["PRESETS", "MIN_DRAWS", "settings"]

#: a figure read as a spread over draws (Figure 1's tau and runs not lower, the documents beyond the pool) is
#: graded only from at least this many draws: the rule reads the spread's central 95% range, whose ends 20 draws
#: do not pin down (on TREC-8, 9% of the draws put more than 10% of the runs' infAP at or above MAP: one block of 20
#: draws shows it, the next may not)
MIN_DRAWS = 100

#: the notebook's sizes per preset (:mod:`evalkit.papers.settings`).
#:
#: * ``n_subsamples``: subsamples of the phase-1 pool for the ANOVAs (the paper's 100; each is scored in about
#:   0.04 s on TREC-8, so the class preset keeps them);
#: * ``n_draws``: draws of the sample for Figure 1's spread and the sample's statistics (the paper reports its one
#:   sample; the kit grades a spread from :data:`MIN_DRAWS` draws);
#: * ``logo_draws``: draws for leave one group out's infAP side (its interval is a bootstrap over the held-out
#:   groups of the runs' changes averaged over these draws);
#: * ``sensitivity_slopes`` / ``sensitivity_draws`` / ``sensitivity_logo_draws`` / ``sensitivity_subsamples``:
#:   the sweep over the reconstructed slope (the notebook's own slope is the study above).
#:
#: "class" draws the sample 20 times instead of 100 (the claims read from a spread then say "not rated at class
#: size"), leave one group out 10 times instead of 20, and sweeps two other slopes with 5 draws, to run in under a
#: minute; it keeps the paper's 100 subsamples (the ANOVAs' tests are compared with the paper's only at its size).
#: "fast" is the tests'.
PRESETS = {
    "paper": {"n_subsamples": 100, "n_draws": 100, "logo_draws": 20,
              "sensitivity_slopes": [0.005, 0.01, 0.02, 0.04, 0.08], "sensitivity_draws": 100,
              "sensitivity_logo_draws": 5, "sensitivity_subsamples": 100},
    "class": {"n_subsamples": 100, "n_draws": 20, "logo_draws": 10,
              "sensitivity_slopes": [0.01, 0.02, 0.04], "sensitivity_draws": 5,
              "sensitivity_logo_draws": 2, "sensitivity_subsamples": 100},
    "fast": {"n_subsamples": 5, "n_draws": 3, "logo_draws": 2,
             "sensitivity_slopes": [0.01, 0.04], "sensitivity_draws": 2,
             "sensitivity_logo_draws": 1, "sensitivity_subsamples": 3},
}


def settings(preset: str = "paper", fast: bool = False, **given):
    """The notebook's sizes: :data:`PRESETS` ``[preset]`` (``"fast"`` when ``fast``), explicit values winning
    (:func:`evalkit.papers.settings.resolve`). Δ is then scaled to the collection by :func:`plan`, which also
    checks every size."""
    from evalkit.papers.settings import resolve

    return resolve(PRESETS, preset, fast, **given)
