"""The written grading rules: how a claim's figure, with its interval, becomes a rating.

Every notebook rates its claims through these functions, so the same words mean the same thing in every notebook
(docs/grading.md is the same table in prose; a test keeps the two equal):

* A rating reads the **interval** of the kit's figure (:class:`evalkit.stats.Interval`: a bootstrap over trials,
  or the spread over seeds), never one draw. It is ``yes`` or ``no`` only when the whole interval lies on one side
  of the threshold; an interval that straddles it is ``inconclusive``.
* Words get numbers. "much better", "comparable", "small" and their kin are the margins of :data:`MARGINS`, by the
  scale the figure is on (Kendall's tau, a relative error, percentage points, AP-scale score).
* A direction ("A beats B", "x falls as depth grows") is a sign: ``yes`` when the interval of the difference is
  on the claimed side of 0, ``no`` when it is on the other side (a reversed direction is a ``no``, never hidden),
  ``inconclusive`` when it contains 0.
* A claim of several parts (depths, measures, estimators) combines its parts' ratings (:func:`combine`): a
  universal claim ("at every depth") is ``no`` as soon as one part is; any other is ``partly`` when some parts
  are yes and others not, ``no`` when some are no and none yes.

Each function returns a :class:`Rating` whose three fields go straight into :class:`evalkit.claims.Claim`
(``agrees``, ``interval``, ``rule``), so the table shows what was read and which rule read it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from evalkit.stats.intervals import Interval

__all__ = ["Rating", "MARGINS", "SCALES", "RATINGS", "at_least", "at_most", "direction", "much_larger", "comparable",
           "small", "exact", "combine", "margin"]

#: the ratings a rule can give (``partly`` only by combining parts)
RATINGS = ("yes", "no", "partly", "inconclusive")

#: the scales a figure can be on, in words
SCALES = {
    "tau": "Kendall's tau between two orderings of the same runs",
    "relative": "a ratio of two errors or sizes, as a fraction (0.25 = 25%)",
    "points": "a rate or accuracy in percentage points (0-100)",
    "score": "a difference of AP-scale scores (MAP, infAP, RBP, 0-1)",
}

#: word -> scale -> margin. "much": the difference must exceed it; "comparable": the difference must lie within
#: +-it; "small": the figure's size must stay below it.
MARGINS: dict[str, dict[str, float]] = {
    "much": {"tau": 0.05, "relative": 0.25, "points": 5.0, "score": 0.02},
    "comparable": {"tau": 0.02, "relative": 0.10, "points": 3.0, "score": 0.01},
    "small": {"tau": 0.02, "relative": 0.10, "points": 2.0, "score": 0.01},
}


@dataclass(frozen=True)
class Rating:
    """A claim's rating (``agrees``: yes / no / partly / inconclusive), the interval it read, and the rule."""

    agrees: str
    interval: str = ""
    rule: str = ""

    def __post_init__(self):
        if self.agrees not in RATINGS:
            raise ValueError(f"a rating is one of {', '.join(RATINGS)}, got {self.agrees!r}")

    def fields(self) -> dict:
        """``agrees``, ``interval`` and ``rule`` as keyword arguments of :class:`evalkit.claims.Claim`."""
        return {"agrees": self.agrees, "interval": self.interval, "rule": self.rule}


def margin(word: str, scale: str) -> float:
    """The margin the word stands for on the scale (:data:`MARGINS`); an unknown word or scale is an error."""
    if word not in MARGINS:
        raise ValueError(f"no grading rule for the word {word!r}; known: {', '.join(MARGINS)}")
    if scale not in MARGINS[word]:
        raise ValueError(f"no {word!r} margin on the scale {scale!r}; known: {', '.join(MARGINS[word])}")
    return MARGINS[word][scale]


def _usable(interval: Interval) -> bool:
    return not (math.isnan(interval.low) or math.isnan(interval.high))


def _side(interval: Interval, threshold: float, above_is_yes: bool, strict: bool) -> str:
    if not _usable(interval):
        return "inconclusive"
    low, high = interval.low, interval.high
    if above_is_yes:
        if low > threshold or (not strict and low >= threshold):
            return "yes"
        if high < threshold or (strict and high <= threshold):
            return "no"
    else:
        if high < threshold or (not strict and high <= threshold):
            return "yes"
        if low > threshold or (strict and low >= threshold):
            return "no"
    return "inconclusive"


def _fmt(value: float, fmt: str) -> str:
    return f"{value:{fmt}}"


def at_least(interval: Interval, threshold: float, what: str = "the figure", fmt: str = ".3f") -> Rating:
    """``yes`` when the whole interval is >= ``threshold`` (the paper's), ``no`` when it is all below."""
    return Rating(_side(interval, threshold, True, False), interval.text(fmt),
                  f"{what} >= {_fmt(threshold, fmt)} over its whole interval")


def at_most(interval: Interval, threshold: float, what: str = "the figure", fmt: str = ".3f") -> Rating:
    """``yes`` when the whole interval is <= ``threshold``, ``no`` when it is all above."""
    return Rating(_side(interval, threshold, False, False), interval.text(fmt),
                  f"{what} <= {_fmt(threshold, fmt)} over its whole interval")


def direction(difference: Interval, what: str = "the difference", claimed: str = "positive",
              fmt: str = ".3f") -> Rating:
    """A direction: ``difference`` (claimed side minus the other) is ``claimed`` ("positive" or "negative").
    ``yes`` when its interval excludes 0 on the claimed side, ``no`` when it excludes 0 on the other side (the
    direction reversed), ``inconclusive`` when it contains 0."""
    if claimed not in ("positive", "negative"):
        raise ValueError(f"claimed must be 'positive' or 'negative', got {claimed!r}")
    rating = _side(difference, 0.0, claimed == "positive", True)
    return Rating(rating, difference.text(fmt), f"{what} {'>' if claimed == 'positive' else '<'} 0 over its whole "
                                                 "interval (reversed: no)")


def much_larger(difference: Interval, scale: str, what: str = "the difference", fmt: str = ".3f") -> Rating:
    """"Much better / much more": the difference exceeds the ``much`` margin over its whole interval (``yes``);
    ``no`` when the interval lies entirely below the margin (a reversed or a small difference)."""
    m = margin("much", scale)
    return Rating(_side(difference, m, True, False), difference.text(fmt),
                  f"{what} >= {_fmt(m, fmt)} ('much', {scale}) over its whole interval")


def comparable(difference: Interval, scale: str, what: str = "the difference", fmt: str = ".3f") -> Rating:
    """"Comparable / as good as / close to": the interval of the difference lies within +-the ``comparable``
    margin (``yes``); ``no`` when it lies entirely outside it; else ``inconclusive``."""
    m = margin("comparable", scale)
    if not _usable(difference):
        agrees = "inconclusive"
    elif -m <= difference.low and difference.high <= m:
        agrees = "yes"
    elif difference.low > m or difference.high < -m:
        agrees = "no"
    else:
        agrees = "inconclusive"
    return Rating(agrees, difference.text(fmt), f"|{what}| <= {_fmt(m, fmt)} ('comparable', {scale}) over its "
                                                "whole interval")


def small(size: Interval, scale: str, what: str = "the effect", fmt: str = ".3f") -> Rating:
    """"Small / negligible": the figure's size (an absolute value, or a bias) stays within +-the ``small`` margin
    over its whole interval (``yes``); ``no`` when the interval lies entirely outside it."""
    m = margin("small", scale)
    if not _usable(size):
        agrees = "inconclusive"
    elif -m <= size.low and size.high <= m:
        agrees = "yes"
    elif size.low > m or size.high < -m:
        agrees = "no"
    else:
        agrees = "inconclusive"
    return Rating(agrees, size.text(fmt), f"|{what}| <= {_fmt(m, fmt)} ('small', {scale}) over its whole interval")


def exact(difference: float, tolerance: float, what: str = "the largest difference") -> Rating:
    """An exact check with no randomness (e.g. the kit against trec_eval): ``yes`` when ``|difference|`` <=
    ``tolerance``, else ``no``."""
    ok = math.isfinite(difference) and abs(difference) <= tolerance
    return Rating("yes" if ok else "no", "", f"|{what}| <= {tolerance:g} (exact, no randomness)")


def combine(ratings, every: bool = False, rule: str = "") -> Rating:
    """The rating of a claim of several parts (depths, measures, estimators, bins).

    ``every=True`` for a universal claim ("at every depth", "each bin"): ``no`` if any part is no, ``yes`` if all
    are yes, else ``inconclusive``. Otherwise (a claim that holds more or less): ``yes`` if all parts are yes;
    ``partly`` if some are yes and the others no or inconclusive (supported where the figures are clear);
    ``no`` if some are no and none yes; ``inconclusive`` if all are. The interval text lists the parts'."""
    ratings = list(ratings)
    if not ratings:
        raise ValueError("combine() needs at least one rating")
    values = {r.agrees for r in ratings}
    if values == {"yes"}:
        agrees = "yes"
    elif every:
        agrees = "no" if values & {"no", "partly"} else "inconclusive"
    elif "yes" in values or "partly" in values:
        agrees = "partly"
    elif "no" in values:
        agrees = "no"
    else:
        agrees = "inconclusive"
    parts = "; ".join(r.interval for r in ratings if r.interval)
    rules = rule or " and ".join(dict.fromkeys(r.rule for r in ratings if r.rule))
    return Rating(agrees, parts, ("every part: " if every else "") + rules)
