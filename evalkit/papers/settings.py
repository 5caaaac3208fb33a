"""Run-size presets of the notebooks: ``"class"``, ``"paper"`` and the tests' ``fast`` (issue 13 item 2).

Every paper notebook has a ``preset`` parameter:

* ``"paper"``: the full study, the paper's sizes (trials, subsamples, depth grids); minutes on TREC-8;
* ``"class"``: the same analyses at a smaller size, chosen so that each notebook runs in under a minute on a
  2-core laptop (``bench/bench_notebooks.py`` checks it) and draws the same conclusions (fewer trials, fewer
  points on a sweep: the orderings and signs the notebook discusses hold, the spreads are wider);
* ``fast=True`` (a separate parameter, for CI and the test suite) overrides the preset with the smallest sizes
  that still exercise every cell, on the small synthetic collection.

The values live in the experiment modules (a ``PRESETS`` dict per paper, e.g.
:data:`evalkit.papers.voorhees2014.presets.PRESETS`), not in the notebooks. A notebook's size parameters default to
``None`` ("the preset's value"); a value given explicitly (in the cell, or ``-p trials 20`` in a batch) wins over
the preset. The module's ``plan()`` then scales what it scales (depths) to the collection, as before.

>>> run = resolve({"paper": {"trials": 50}, "class": {"trials": 10}, "fast": {"trials": 3}}, "class", trials=None)
>>> run.trials, str(run)
(10, "preset 'class': trials 10 (paper: 50)")
"""

from __future__ import annotations

from typing import Mapping

__all__ = ["PRESET_NAMES", "DEFAULT_PRESET", "Settings", "resolve", "spread"]

#: the presets a notebook's ``preset`` parameter takes ("fast" is the separate ``fast`` parameter)
PRESET_NAMES = ("class", "paper")
DEFAULT_PRESET = "paper"


class Settings(Mapping):
    """The sizes a notebook runs with: ``settings.trials`` or ``settings["trials"]``; ``str()`` says which preset
    chose them and where they differ from the paper's."""

    def __init__(self, preset: str, values: dict, paper: dict, given: set):
        self.preset, self._values, self._paper, self._given = preset, dict(values), dict(paper), set(given)

    def __getitem__(self, key):
        return self._values[key]

    def __iter__(self):
        return iter(self._values)

    def __len__(self):
        return len(self._values)

    def __getattr__(self, key):
        values = self.__dict__.get("_values", {})
        if key in values:
            return values[key]
        raise AttributeError(key)

    def __str__(self) -> str:
        parts = []
        for key, value in self._values.items():
            if key in self._given:
                parts.append(f"{key} {_short(value)} (given)")
            elif key in self._paper and self._paper[key] != value:
                parts.append(f"{key} {_short(value)} (paper: {_short(self._paper[key])})")
        what = "the paper's sizes" if not parts else ", ".join(parts)
        return f"preset {self.preset!r}: {what}"

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(str(self))

    __repr__ = __str__


def _short(value) -> str:
    if isinstance(value, (list, tuple)) and len(value) > 6:
        return f"[{', '.join(map(str, value[:3]))}, ..., {value[-1]}] ({len(value)} values)"
    return str(list(value)) if isinstance(value, tuple) else str(value)


def resolve(presets: Mapping[str, Mapping], preset: str = DEFAULT_PRESET, fast: bool = False, **given) -> Settings:
    """The sizes to run with: ``presets[preset]`` (``presets["fast"]`` when ``fast``), overridden by every
    ``given`` value that is not ``None``.

    ``presets`` must have ``"paper"``, ``"class"`` and ``"fast"`` entries; a name given that no preset sets is
    passed through (a parameter that does not depend on the size). Raises ``ValueError`` for an unknown preset,
    naming the known ones.
    """
    if preset not in PRESET_NAMES:
        raise ValueError(f"unknown preset {preset!r}: use one of {', '.join(map(repr, PRESET_NAMES))} "
                         "(and fast=True for the tests' smallest sizes)")
    chosen = "fast" if fast else preset
    values = {key: (list(v) if isinstance(v, tuple) else v) for key, v in presets[chosen].items()}
    explicit = {key: value for key, value in given.items() if value is not None}
    values.update(explicit)
    for key in given:
        values.setdefault(key, None)
    return Settings(chosen, values, presets["paper"], set(explicit))


def spread(values, n: int | None, log: bool = True) -> list:
    """At most ``n`` of the sorted ``values``, spread evenly (in log space when ``log``), the smallest and largest
    kept: a "class" sweep at fewer points over the same range (None or ``n >= len(values)``: all of them).

    >>> spread([1, 2, 3, 4, 5, 10, 20, 30, 40, 50], 6)
    [1, 2, 5, 10, 20, 50]
    """
    values = sorted(values)
    if n is None or int(n) >= len(values) or len(values) < 2:
        return list(values)
    import numpy as np

    n = max(int(n), 2)
    points = np.asarray(values, float)
    scale = np.log(points) if log and points.min() > 0 else points
    targets = np.linspace(scale[0], scale[-1], n)
    chosen = sorted({int(np.argmin(np.abs(scale - t))) for t in targets})
    return [values[i] for i in chosen]
