"""What the tour needs from a collection (2 judged runs, a judged depth) and the pool depths it uses there."""

from __future__ import annotations

from evalkit.data.collection import Collection
from evalkit.papers.needs import (
    Plan,
    judged_depth_of,
    require,
    require_judged_depth,
    require_judged_runs,
    scale_depth,
)

__all__ = ["DEFAULT_POOL_DEPTHS", "plan"]

#: the pool depths of the study (TREC-8's pools are 100 deep)
DEFAULT_POOL_DEPTHS = (1, 2, 5, 10, 20, 50, 100)


def plan(collection: Collection, pool_depths=DEFAULT_POOL_DEPTHS, slider_depth: int = 10) -> Plan:
    """The tour's needs and settings on ``collection``.

    Needs at least 2 judged runs (a pool of one run says nothing about pooling; Kendall's tau needs 2 runs) and
    pool depths no deeper than the judged depth. The default depths are cut at the judged depth, which is added
    as the last depth (the full pool); depths the user set are checked. The depth-10 figure and the slider start
    at depth 10 scaled to the judged depth (:func:`evalkit.papers.needs.scale_depth`) and the slider ends at it.
    Parameters: ``pool_depths``, ``slider_depth``, ``max_depth`` (the judged depth, capped at the run depth),
    ``shallow_depth`` (the depth the claim reads: the deepest studied depth <= 10 scaled to the judged depth).
    """
    require_judged_runs(collection, 2, "to pool from")
    judged = judged_depth_of(collection)
    require(judged is not None, "judgments for the first rank of every judged run", "none",
            "Check the qrels file: the judged runs' first documents are not in it.")
    top = min(judged, collection.depth)
    notes = []
    depths = [int(d) for d in pool_depths]
    if tuple(depths) == DEFAULT_POOL_DEPTHS:
        kept = [d for d in depths if d <= top]
        dropped = [d for d in depths if d > top]
        if dropped:
            kept = kept + ([top] if top not in kept else [])
            notes.append(f"pool depths cut at the judged depth {top}: {kept} (dropped {dropped})")
        depths = kept
    else:
        require_judged_depth(collection, max(depths), "pool_depths")
    shallow = max([d for d in depths if d <= scale_depth(10, top)] or [min(depths)])
    if slider_depth == 10:
        slider = min(scale_depth(10, top), top)
        if slider != 10:
            notes.append(f"the depth-10 figure and the slider use depth {slider} (10 of 100, scaled)")
    else:
        require_judged_depth(collection, slider_depth, "slider_depth")
        slider = int(slider_depth)
    return Plan("00_tour", collection.name, {"pool_depths": depths, "slider_depth": slider, "max_depth": top,
                                             "shallow_depth": shallow}, notes)
