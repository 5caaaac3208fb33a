"""Voorhees (2014): what the experiment needs from a collection, and the paper's strategies scaled to it
(:mod:`evalkit.papers.needs`)."""

from __future__ import annotations

from typing import Sequence

from evalkit.data.collection import Collection
from evalkit.judging.stratified_sampling import STRATEGIES, Strategy, get_strategy, scale_strategy
from evalkit.papers.needs import (
    REFERENCE_DEPTH,
    Plan,
    judged_depth_of,
    require,
    require_judged_depth,
    require_judged_runs,
    require_topics,
    scale_depth,
)
from evalkit.papers.voorhees2014.paper import DEFAULT_STRATEGIES


def plan(collection: Collection, strategies: Sequence[str | Strategy] = DEFAULT_STRATEGIES) -> Plan:
    """What the experiment needs from ``collection``, and the strategies it will run there.

    Needs: at least 2 judged runs (each trial pools from half of them, at least one run); at least 3 topics (the
    paired t-tests pair topics, and R̂ is correlated with R across topics); judgments as deep as the deepest
    stratum. The presets (:data:`evalkit.judging.stratified_sampling.STRATEGIES`) are written for TREC-8's
    depth-100 pools: on a collection judged less deep each is scaled to its judged depth
    (:func:`evalkit.judging.stratified_sampling.scale_strategy`; e.g. at depth 7, 2strata becomes [1-1]@1 +
    [2-7]@0.15), a preset with more strata than judged ranks is dropped, and the note says so. A strategy the user
    wrote (a Strategy or strategy text) is checked, not changed. Parameters: ``strategies`` (Strategy objects),
    ``judged_depth``, ``example`` (bottoms and rates of the notebook's custom-strategy example, [5, 60] @ [1, 0.2]
    scaled), and the explorer's ``slider_depth`` (deepest rank), ``explorer_initial`` (2strata-like sliders,
    scaled) and ``explorer_reference`` (pool25 and 2strata as run here).
    """
    k = require_judged_runs(collection, 2, "to split in half (each trial pools from half of them)")
    require_topics(collection, 3, "(the paired t-tests pair topics; R̂ is correlated with R across topics)")
    judged = judged_depth_of(collection)
    require(judged is not None, "judgments for the first rank of every judged run", "none",
            "Check the qrels file: the judged runs' first documents are not in it.")
    notes = []
    presets = [s for s in strategies if isinstance(s, str) and s in STRATEGIES]
    custom = [get_strategy(s) for s in strategies if not (isinstance(s, str) and s in STRATEGIES)]
    for strategy in custom:
        require_judged_depth(collection, strategy.depth, "strategies",
                             f"strategy {strategy.name!r} samples down to rank {strategy.depth}")
    scaled, dropped = [], []
    for name in presets:
        strategy = scale_strategy(STRATEGIES[name], judged)
        (scaled if strategy is not None else dropped).append(strategy or name)
    if judged < REFERENCE_DEPTH and presets:
        notes.append(f"the presets scaled to the judged depth {judged} (x{judged / REFERENCE_DEPTH:.2g}): "
                     + ", ".join(str(s) for s in scaled))
    if dropped:
        notes.append(f"dropped {', '.join(dropped)} (more strata than the {judged} judged ranks)")
    chosen = scaled + custom
    require(len(chosen) > 0, f"a sampling strategy that fits in the {judged} judged rank(s)",
            f"judged depth {judged}, too shallow for {', '.join(dropped)}",
            "Pass strategies with fewer strata (e.g. \"[1-1]@1\"), or set \"judged_depth\" in collection.json if "
            "the pools were deeper.")
    if k < 4:
        notes.append(f"each trial pools from {k // 2} of the {k} judged runs")
    example = [scale_depth(5, judged), max(scale_depth(60, judged), scale_depth(5, judged) + 1)]
    deep = min(REFERENCE_DEPTH, judged)
    return Plan("03_voorhees2014", collection.name, {
        "strategies": chosen, "judged_depth": judged, "example": (example, [1.0, 0.2]),
        "slider_depth": min(judged, 200),
        "explorer_initial": ((scale_depth(10, judged), 1.0), (deep, 0.15), (deep, 0.0)),
        "explorer_reference": [s for s in chosen if s.name in ("pool25", "2strata")]}, notes)
