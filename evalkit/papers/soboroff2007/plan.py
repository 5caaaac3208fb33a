"""Soboroff (2007): what the study needs from a collection (:mod:`evalkit.papers.needs`) and the paper's
defaults scaled to it (the phase-1 depth, the sample's depth cap)."""

from __future__ import annotations

from evalkit.data.collection import Collection
from evalkit.judging.relevance_sampling import DEFAULTS
from evalkit.papers.needs import (
    REFERENCE_DEPTH,
    Plan,
    judged_depth_of,
    require,
    require_judged_groups,
    require_judged_runs,
    require_topics,
    scale_depth,
)

__all__ = ["plan"]


def plan(collection: Collection, phase1_depth: int = DEFAULTS["phase1_depth"], n_subsamples: int = 100) -> Plan:
    """What the study needs from ``collection``, and the depths it will use there.

    Needs: at least 2 judged runs from at least 2 groups (the pool, Figure 1's tau, leaving one group out); at least
    2 topics (the ANOVAs' topic effect); judgments deeper than the phase-1 depth (the sample reaches below the
    phase-1 pool). The paper's phase-1 depth (50) is half of TREC-8's judged depth; on a collection judged less than
    100 deep it becomes ``round(50 * judged depth / 100)`` (at most judged depth - 1), and the note says so; a
    phase-1 depth the user set is checked. The sample's depth is capped at the judged depth. ``n_subsamples`` < 2 is
    a ValueError (the ANOVA's sample effect needs two). Parameters: ``phase1_depth``, ``max_depth`` (the cap),
    ``n_subsamples``.
    """
    require_judged_runs(collection, 2, "to pool from (Figure 1's tau needs two pooling runs)")
    require_judged_groups(collection, 2, "to leave one group out")
    require_topics(collection, 2, "(the ANOVAs test a topic effect)")
    if int(n_subsamples) < 2:
        raise ValueError(f"n_subsamples must be >= 2 (the ANOVA's sample effect), got {n_subsamples}")
    judged = judged_depth_of(collection)
    require(judged is not None and judged >= 2, "judgments at least 2 ranks deep (a phase-1 pool and a sample "
            "below it)", f"judged depth {judged or 0}", "Give \"judged_depth\" in collection.json if the pools "
            "were deeper.")
    cap = min(judged, collection.depth)
    notes = []
    if int(phase1_depth) == DEFAULTS["phase1_depth"] and cap < REFERENCE_DEPTH:
        phase1 = min(scale_depth(phase1_depth, cap), cap - 1)
        notes.append(f"phase-1 depth {phase1} (the paper's 50 of TREC-8's 100, scaled to the judged depth {cap}); "
                     f"samples capped at depth {cap}")
    else:
        phase1 = int(phase1_depth)
        require(phase1 < cap, f"judgments deeper than the phase-1 depth (phase1_depth = {phase1}) to sample below "
                "it", f"judged depth {cap} ({collection.metadata.get('judged_depth_rule', 'derived')})",
                f"Set phase1_depth to at most {cap - 1}.")
    return Plan("02_soboroff2007", collection.name, {"phase1_depth": phase1, "max_depth": cap,
                                                     "n_subsamples": int(n_subsamples)}, notes)
