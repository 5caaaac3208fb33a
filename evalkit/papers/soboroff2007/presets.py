"""Soboroff (2007): the notebook's run sizes per preset (paper / class / fast)."""

from __future__ import annotations

__all__ = ["PRESETS", "settings"]

#: the notebook's sizes per preset (:mod:`evalkit.papers.settings`): "paper" is the paper's 100 subsamples for the
#: ANOVA; "class" uses 30 (the ANOVA's answer, no significant sample effect under the mixed model, is the same;
#: p-values are coarser); "fast" is the tests'
PRESETS = {
    "paper": {"n_subsamples": 100},
    "class": {"n_subsamples": 30},
    "fast": {"n_subsamples": 5},
}


def settings(preset: str = "paper", fast: bool = False, **given):
    """The notebook's sizes: :data:`PRESETS` ``[preset]`` (``"fast"`` when ``fast``), explicit values winning
    (:func:`evalkit.papers.settings.resolve`). Δ is then scaled to the collection by :func:`plan`."""
    from evalkit.papers.settings import resolve

    return resolve(PRESETS, preset, fast, **given)
