"""Voorhees (2014): the notebook's run sizes per preset ("paper", "class", "fast")."""

from __future__ import annotations

#: the notebook's sizes per preset (:mod:`evalkit.papers.settings`): "paper" is Sec. 2's 50 trials; "class" draws the
#: same tables from 10 trials (the strategies' order on Tables 2-3 is stable from a few trials on TREC-8; the
#: min-max spreads are narrower); "fast" is the tests'
PRESETS = {
    "paper": {"trials": 50},
    "class": {"trials": 10},
    "fast": {"trials": 3},
}


#: the sensitivity sweep's factors on the reconstructed sampling rates (1stratum's, 2strata's and 3strata's rates
#: below 1, each multiplied by the factor and capped at 1; the run itself is the factor 1): a third less and half
#: more, so that the judgment-set sizes bracket the reconstruction's on either side
DEFAULT_RATE_FACTORS = (0.67, 1.5)


def settings(preset: str = "paper", fast: bool = False, **given):
    """The notebook's sizes: :data:`PRESETS` ``[preset]`` (``"fast"`` when ``fast``), explicit values winning
    (:func:`evalkit.papers.settings.resolve`). The strategies are then scaled to the collection by
    :func:`~evalkit.papers.voorhees2014.plan.plan`."""
    from evalkit.papers.settings import resolve

    return resolve(PRESETS, preset, fast, **given)
