"""Lu, Moffat and Culpepper (2017): what the notebook needs from a collection, and the paper's depths scaled to it
(:mod:`evalkit.papers.needs`)."""

from __future__ import annotations

import numpy as np

from evalkit.data.collection import Collection
from evalkit.papers.needs import (
    REFERENCE_DEPTH,
    Plan,
    judged_depth_of,
    require,
    require_judged_depth,
    require_judged_groups,
    require_judged_runs,
    require_topics,
    scale_depth,
    scale_depths,
)


# ------------------------------------------------------------------------------------------ needs

#: the paper's pool depths d' (Table 2), Figure 3's depths, Figure 4's depths; all for the reference depth d = 100
DEFAULT_DEPTHS = (10, 20, 30)
DEFAULT_GAMMA_DEPTHS = tuple(range(10, 101, 10))
DEFAULT_FIGURE4_DEPTHS = (10, 20, 30, 40, 50, 60)
DEFAULT_TABLE3_DEPTH = 10
DEFAULT_TWO_STRATA_DEPTH = 10


def plan(collection: Collection, reference_depth: int = REFERENCE_DEPTH, depths=DEFAULT_DEPTHS,
         gamma_depths=DEFAULT_GAMMA_DEPTHS, figure4_depths=DEFAULT_FIGURE4_DEPTHS,
         table3_depth: int = DEFAULT_TABLE3_DEPTH, two_strata_depth: int = DEFAULT_TWO_STRATA_DEPTH,
         repetitions: int = 10, fast: bool = False, figure4_points: int | None = None,
         table3_groups: int | None = None) -> Plan:
    """What the notebook needs from ``collection``, and the depths it will use there.

    Needs: at least 2 contributing (judged) runs (the gain models and the framework learn from them, and Figures 4
    and 6 order them); judged runs from at least 2 groups (Table 3 leaves one group out); at least 2 topics
    (dist's paired t-tests); the reference depth d within the judged depth (the reference scores are RBP@d on
    the complete judgments). The paper's depths are written for d = 100: when d is the default and the collection
    is judged less deep, d becomes the judged depth; default pool depths d' are then scaled by d / 100 (the
    paper's ratios d'/d kept; duplicates dropped, every d' < d) and the note says so. Depths the user set are
    checked (each d' < d, Figure 3's <= d). ``fast``: the smaller grids of quick runs (the first two d', three of
    Figure 3's depths, two of Figure 4's, at most 3 repetitions, Table 3 over 6 groups), taken after scaling.
    ``figure4_points``: keep that many of Figure 4's depths, evenly spaced, first and last kept (None: all);
    ``table3_groups``: leave out only that many groups in Table 3 (None: all); the "class" preset sets both
    (:data:`~evalkit.papers.lu2017.presets.PRESETS`).
    Parameters:
    ``reference_depth``, ``depths``, ``table1_depths``, ``gamma_depths``, ``figure4_depths``, ``table3_depth``,
    ``two_strata_depth``, ``first_depth`` (the d' of Figure 3's middle and right panels and the explorer),
    ``paper_depths`` (each d' -> the paper's d' it stands for), ``repetitions``, ``table3_groups`` (None: all).
    """
    require_judged_runs(collection, 2, "for the estimators to learn from")
    require_judged_groups(collection, 2, "(Table 3 leaves one group out)")
    require_topics(collection, 2, "(dist's paired t-tests pair topics)")
    judged = judged_depth_of(collection)
    require(judged is not None and judged >= 2, "judgments at least 2 ranks deep (a reference depth d and a "
            "shallower pool d')", f"judged depth {judged or 0}",
            "Give \"judged_depth\" in collection.json if the pools were deeper.")
    top = min(judged, collection.depth)
    notes = []
    if int(reference_depth) == REFERENCE_DEPTH and top < REFERENCE_DEPTH:
        d = top
        notes.append(f"reference depth d = {d} (the judged depth; the paper's 100)")
    else:
        d = int(reference_depth)
        require_judged_depth(collection, d, "reference_depth")

    def depths_for(values, default, parameter, inclusive=False):
        values = [int(v) for v in (values if np.ndim(values) else [values])]
        if tuple(values) == tuple(default) and d < REFERENCE_DEPTH:
            return scale_depths(values, d, below=d + 1 if inclusive else d), True
        bad = [v for v in values if v > d or (v == d and not inclusive) or v < 1]
        require(not bad, f"pool depths d' {'<=' if inclusive else '<'} the reference depth d = {d} "
                f"({parameter} = {values})", f"d = {d} (judged depth {judged})",
                f"Drop {bad} from {parameter}" + (f", or raise reference_depth (at most {top})." if d < top else "."))
        return values, False

    depths_used, scaled = depths_for(depths, DEFAULT_DEPTHS, "depths")
    table1_used, _ = depths_for(DEFAULT_DEPTHS, DEFAULT_DEPTHS, "depths")
    gamma_used, _ = depths_for(gamma_depths, DEFAULT_GAMMA_DEPTHS, "gamma_depths", inclusive=True)
    figure4_used, _ = depths_for(figure4_depths, DEFAULT_FIGURE4_DEPTHS, "figure4_depths")
    table3_used, _ = depths_for([table3_depth], [DEFAULT_TABLE3_DEPTH], "table3_depth")
    two_strata_used, _ = depths_for([two_strata_depth], [DEFAULT_TWO_STRATA_DEPTH], "two_strata_depth")
    require(len(depths_used) > 0, f"a pool depth d' below d = {d}", "none", "Raise reference_depth.")
    paper_depths: dict = {}
    if scaled:
        for paper_d in DEFAULT_DEPTHS:  # each scaled d' stands for the first paper d' that maps to it
            if scale_depth(paper_d, d) < d:
                paper_depths.setdefault(scale_depth(paper_d, d), paper_d)
        notes.append(f"pool depths d' = {depths_used} (the paper's {list(DEFAULT_DEPTHS)} of 100, scaled), "
                     f"Figure 3 {gamma_used}, Figure 4 {figure4_used}, Table 3 {table3_used[0]}, two strata "
                     f"{two_strata_used[0]} + a sample to {d}")
    else:
        paper_depths = {v: v for v in depths_used if v in DEFAULT_DEPTHS}
    if figure4_points is not None and 0 < int(figure4_points) < len(figure4_used):
        keep = np.unique(np.round(np.linspace(0, len(figure4_used) - 1, int(figure4_points))).astype(int))
        figure4_used = [figure4_used[i] for i in keep]
    if fast:
        table3_groups = 6
        depths_used = depths_used[:2]
        gamma_used = [gamma_used[i] for i in sorted({0, min(2, len(gamma_used) - 1), len(gamma_used) - 1})]
        figure4_used = [figure4_used[i] for i in sorted({0, min(2, len(figure4_used) - 1)})]
        repetitions = min(int(repetitions), 3)
    return Plan("04_lu2017", collection.name, {
        "reference_depth": d, "depths": depths_used, "table1_depths": table1_used, "gamma_depths": gamma_used,
        "figure4_depths": figure4_used, "table3_depth": table3_used[0], "two_strata_depth": two_strata_used[0],
        "first_depth": depths_used[0], "paper_depths": paper_depths, "repetitions": int(repetitions),
        "table3_groups": table3_groups}, notes)
