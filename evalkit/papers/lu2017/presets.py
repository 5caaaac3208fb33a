"""Lu, Moffat and Culpepper (2017): the notebook's run sizes per preset (paper / class / fast)."""

from __future__ import annotations


#: the notebook's sizes per preset (:mod:`evalkit.papers.settings`). "paper": 10 two-strata samples (Figure 6), every
#: group left out in Table 3, Figure 4 at six depths, Figure 3's θ grid in steps of 0.001. "class": 3 samples, 6
#: groups, 3 depths, θ in steps of 0.001 (scoring a θ costs nothing once fitted, and the cross-over's position is a
#: claim): the estimators' orderings the notebook discusses come from Table 2, which is computed in full; the class
#: preset shortens the slow leave-one-group-out table (most of the paper preset's time), Figure 6 and Figure 4;
#: the claims those sizes cannot support read "not rated at class size". "fast": the tests' (with
#: ``plan(fast=True)``'s smaller grids).
PRESETS = {
    "paper": {"repetitions": 10, "table3_groups": None, "figure4_points": None, "theta_step": 1},
    "class": {"repetitions": 3, "table3_groups": 6, "figure4_points": 3, "theta_step": 1},
    "fast": {"repetitions": 3, "table3_groups": 6, "figure4_points": 2, "theta_step": 4},
}


def settings(preset: str = "paper", fast: bool = False, **given):
    """The notebook's sizes: :data:`PRESETS` ``[preset]`` (``"fast"`` when ``fast``), explicit values winning
    (:func:`evalkit.papers.settings.resolve`); pass them on to
    :func:`~evalkit.papers.lu2017.plan.plan`, which scales the depths to the collection."""
    from evalkit.papers.settings import resolve

    return resolve(PRESETS, preset, fast, **given)
