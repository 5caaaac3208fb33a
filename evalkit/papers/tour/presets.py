"""The tour's run sizes: it runs in seconds at every size, so the presets change nothing, but every notebook
accepts them."""

from __future__ import annotations

from evalkit.papers.settings import resolve

__all__ = ["PRESETS", "settings"]

#: the tour runs in seconds at every size: the presets change nothing but are accepted, as in every notebook
PRESETS = {"paper": {}, "class": {}, "fast": {}}


def settings(preset: str = "paper", fast: bool = False, **given):
    """The tour's sizes (:func:`evalkit.papers.settings.resolve`; the same for every preset)."""
    return resolve(PRESETS, preset, fast, **given)
