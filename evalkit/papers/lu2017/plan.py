"""Lu, Moffat and Culpepper (2017): what the notebook needs from a collection, its parameters checked, the paper's
depths and RBP persistence scaled to the collection, and the studies that would be degenerate there
(:mod:`evalkit.papers.needs`).
"""

from __future__ import annotations

import math
import numbers

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


# ------------------------------------------------------------------------------------------ the paper's values

#: the paper's pool depths d' (Table 2), Figure 3's depths, Figure 4's depths; all for the reference depth d = 100
DEFAULT_DEPTHS = (10, 20, 30)
DEFAULT_GAMMA_DEPTHS = tuple(range(10, 101, 10))
DEFAULT_FIGURE4_DEPTHS = (10, 20, 30, 40, 50, 60)
DEFAULT_TABLE3_DEPTH = 10
DEFAULT_TWO_STRATA_DEPTH = 10
#: the paper's RBP persistence (RBP0.95) and adjust-or-not threshold (set by the authors on TREC-5/7/8)
PAPER_P = 0.95
PAPER_THETA = 0.018
DEFAULT_THETAS = (0.0, PAPER_THETA)
DEFAULT_THETA_GRID = tuple(round(0.001 * i, 3) for i in range(25))

#: the largest share of RBP's weight that may lie beyond the reference depth d (p^d) for Eq. 3's errors to mean
#: what the paper's do: an estimate above the reference score M is an error only beyond M + eps, and eps includes
#: p^d, so a large tail lets every over-estimate pass. The paper's validated collections have p^d <= 0.077 (TB06,
#: 0.95^50); 0.10 is the bound.
RBP_TAIL_BOUND = 0.10
#: the fewest fully judged ranks the rank-level gain models can be fitted to: the Weibull curve has 3 parameters
#: (lambda, alpha, beta), Linear and Zipf 2; with fewer observed ranks the fit is underdetermined and the curve (and
#: every estimator built on it: Lin, Wei, La, Lb) is whatever the optimizer starts from
MIN_MODEL_RANKS = 3


# ------------------------------------------------------------------------------------------ parameter checks


def _integer(value, parameter: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) and not (
            isinstance(value, numbers.Real) and float(value).is_integer()):
        raise ValueError(f"{parameter} must be a whole number, got {value!r}")
    return int(value)


def _depth_list(values, parameter: str) -> list[int]:
    """A list of whole depths >= 1, sorted, each depth once (a single number is a list of one)."""
    if isinstance(values, (str, bytes)) or values is None:
        raise ValueError(f"{parameter} must be a list of whole depths >= 1, got {values!r}")
    items = list(values) if np.ndim(values) else [values]
    if not items:
        raise ValueError(f"{parameter} must list at least one depth, got an empty list")
    depths = [_integer(v, parameter) for v in items]
    bad = [d for d in depths if d < 1]
    if bad:
        raise ValueError(f"{parameter} must hold depths >= 1, got {bad}")
    if len(set(depths)) != len(depths):
        raise ValueError(f"{parameter} lists a depth twice: {depths}")
    return sorted(depths)


def _fraction(value, parameter: str, low: float = 0.0, high: float = 1.0, open_low: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise ValueError(f"{parameter} must be a number, got {value!r}")
    value = float(value)
    if value < low or value >= high or (open_low and value == low):
        raise ValueError(f"{parameter} must be {'>' if open_low else '>='} {low:g} and < {high:g}, got {value:g}")
    return value


def _fraction_list(values, parameter: str) -> list[float]:
    if isinstance(values, (str, bytes)) or values is None or not np.ndim(values):
        raise ValueError(f"{parameter} must be a list of thresholds in [0, 1), got {values!r}")
    items = [_fraction(v, parameter) for v in values]
    if not items:
        raise ValueError(f"{parameter} must list at least one threshold, got an empty list")
    return sorted(set(round(v, 6) for v in items))


def scaled_persistence(depth: int, p: float = PAPER_P, reference: int = REFERENCE_DEPTH) -> float:
    """The RBP persistence that leaves, beyond ``depth``, the weight the paper's ``p`` leaves beyond
    ``reference``: ``p ** (reference / depth)`` (0.95 at d = 100 leaves 0.0059; at d = 7 that is p = 0.48).
    Unchanged when ``depth >= reference``."""
    return float(p) if depth >= reference else float(p ** (reference / depth))


# ------------------------------------------------------------------------------------------ the plan


def plan(collection: Collection, reference_depth: int = REFERENCE_DEPTH, depths=DEFAULT_DEPTHS,
         gamma_depths=DEFAULT_GAMMA_DEPTHS, figure4_depths=DEFAULT_FIGURE4_DEPTHS,
         table3_depth: int = DEFAULT_TABLE3_DEPTH, two_strata_depth: int = DEFAULT_TWO_STRATA_DEPTH,
         repetitions: int = 10, fast: bool = False, figure4_points: int | None = None,
         table3_groups: int | None = None, *, p: float | None = None, thetas=DEFAULT_THETAS,
         theta: float = PAPER_THETA, theta_grid=DEFAULT_THETA_GRID, seed: int = 2017,
         preset: str | None = None) -> Plan:
    """What the notebook needs from ``collection``, its parameters checked, and the depths and p it will use.

    Needs: at least 2 contributing (judged) runs (the gain models and the framework learn from them, and Figures 4
    and 6 order them); judged runs from at least 2 groups (Table 3 leaves one group out); at least 2 topics
    (dist's paired t-tests); the reference depth d within the judged depth (the reference scores are RBP@d on
    the complete judgments).

    Scaling: the paper's depths are written for d = 100. When d is the default and the collection is judged less
    deep, d becomes the judged depth; default pool depths d' are then scaled by d / 100 (the paper's ratios d'/d
    kept; a depth that two scale to is kept once, every d' < d). ``p=None`` is the paper's RBP persistence 0.95,
    scaled when d < 100 to :func:`scaled_persistence` (the weight beyond d stays the paper's 0.0059). Values the
    user set are checked, never changed: each d' < d, Figure 3's <= d; a p whose weight beyond d, p^d, exceeds
    :data:`RBP_TAIL_BOUND`
    makes the error studies (Figure 3 right, Tables 2 and 3) degenerate (``plan.degenerate["rbp_tail"]``), and a
    pool depth below :data:`MIN_MODEL_RANKS` those of the model-based estimators at that depth
    (``plan.degenerate["gain_models"]``). Every bad value is a ``ValueError`` naming its parameter.

    ``fast``: the smaller grids of quick runs (the first two d', three of Figure 3's depths, two of Figure 4's,
    at most 3 repetitions, Table 3 over 6 groups), taken after scaling. ``figure4_points``: keep that many of
    Figure 4's depths, evenly spaced, first and last kept (None: all); ``table3_groups``: leave out only that many
    groups in Table 3 (None: all); the "class" preset sets both (:data:`~evalkit.papers.lu2017.presets.PRESETS`).

    Parameters of the returned plan: ``reference_depth``, ``depths``, ``table1_depths``, ``gamma_depths``,
    ``figure4_depths``, ``table3_depth``, ``two_strata_depth``, ``first_depth`` (the d' of Figure 3's middle and
    right panels and the explorer), ``paper_depths`` (each d' -> the paper's d' it stands for), ``p``, ``tail``
    (p^d), ``thetas``, ``theta``, ``theta_grid``, ``seed``, ``repetitions``, ``table3_groups``, ``figure4_points``,
    ``model_depths`` (the d' at which the gain models are determined).
    """
    # the parameters themselves, before anything about the collection
    reference_depth = _integer(reference_depth, "reference_depth")
    if reference_depth < 2:
        raise ValueError(f"reference_depth must be at least 2 (a depth d and a shallower pool d'), got "
                         f"{reference_depth}")
    depth_lists = {name: _depth_list(values, name) for name, values in (
        ("depths", depths), ("gamma_depths", gamma_depths), ("figure4_depths", figure4_depths),
        ("table3_depth", [table3_depth]), ("two_strata_depth", [two_strata_depth]))}
    repetitions = _integer(repetitions, "repetitions")
    if repetitions < 1:
        raise ValueError(f"repetitions must be at least 1, got {repetitions}")
    if table3_groups is not None and _integer(table3_groups, "table3_groups") < 1:
        raise ValueError(f"table3_groups must be at least 1 (or None: every group), got {table3_groups}")
    if figure4_points is not None and _integer(figure4_points, "figure4_points") < 1:
        raise ValueError(f"figure4_points must be at least 1 (or None: every depth), got {figure4_points}")
    given_p = None if p is None else _fraction(p, "p", open_low=True)
    thetas_used = _fraction_list(thetas, "thetas")
    theta = _fraction(theta, "theta")
    grid = _fraction_list(theta_grid, "theta_grid")
    seed = _integer(seed, "seed")

    require_judged_runs(collection, 2, "for the estimators to learn from")
    require_judged_groups(collection, 2, "(Table 3 leaves one group out)")
    require_topics(collection, 2, "(dist's paired t-tests pair topics)")
    judged = judged_depth_of(collection)
    require(judged is not None and judged >= 2, "judgments at least 2 ranks deep (a reference depth d and a "
            "shallower pool d')", f"judged depth {judged or 0}",
            "Give \"judged_depth\" in collection.json if the pools were deeper.")
    top = min(judged, collection.depth)
    notes = []
    if reference_depth == REFERENCE_DEPTH and top < REFERENCE_DEPTH:
        d = top
        notes.append(f"reference depth d = {d} (the judged depth; the paper's 100)")
    else:
        d = reference_depth
        require_judged_depth(collection, d, "reference_depth")
        if d != REFERENCE_DEPTH:
            notes.append(f"reference depth d = {d} (set by you; the paper's 100)")

    def depths_for(parameter, default, inclusive=False):
        values = depth_lists[parameter]
        if tuple(values) == tuple(default) and d < REFERENCE_DEPTH:
            return scale_depths(values, d, below=d + 1 if inclusive else d), True
        bad = [v for v in values if v > d or (v == d and not inclusive)]
        # the collection's judged depth is what bounds d: NeedsNotMet (a batch reports the notebook as skipped)
        require(not bad, f"pool depths d' {'<=' if inclusive else '<'} the reference depth d = {d} "
                f"({parameter} = {values if len(values) > 1 else values[0]})", f"d = {d} (judged depth {judged})",
                f"Drop {bad} from {parameter}" + (f", or raise reference_depth (at most {top})." if d < top else "."))
        if tuple(values) != tuple(default):
            notes.append(f"{parameter} {values if len(values) > 1 else values[0]} (set by you)")
        return values, False

    depths_used, scaled = depths_for("depths", DEFAULT_DEPTHS)
    table1_used = scale_depths(DEFAULT_DEPTHS, d, below=d) if d < REFERENCE_DEPTH else list(DEFAULT_DEPTHS)
    table1_used = [v for v in table1_used if v < d]
    gamma_used, _ = depths_for("gamma_depths", DEFAULT_GAMMA_DEPTHS, inclusive=True)
    figure4_used, _ = depths_for("figure4_depths", DEFAULT_FIGURE4_DEPTHS)
    table3_used, _ = depths_for("table3_depth", [DEFAULT_TABLE3_DEPTH])
    two_strata_used, _ = depths_for("two_strata_depth", [DEFAULT_TWO_STRATA_DEPTH])
    require(len(depths_used) > 0, f"a pool depth d' below d = {d}", "none", "Raise reference_depth.")
    paper_depths: dict = {}
    if scaled:
        for paper_d in DEFAULT_DEPTHS:  # each scaled d' stands for the first paper d' that maps to it
            if scale_depth(paper_d, d) < d:
                paper_depths.setdefault(scale_depth(paper_d, d), paper_d)
        lost = [x for x in DEFAULT_DEPTHS if x not in paper_depths.values()]
        notes.append(f"pool depths d' = {depths_used} (the paper's {list(DEFAULT_DEPTHS)} of 100, scaled"
                     + (f"; the paper's d' = {', '.join(map(str, lost))} has no depth of its own here" if lost else "")
                     + f"), Figure 3 {gamma_used}, Figure 4 {figure4_used}, Table 3 {table3_used[0]}, two strata "
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
        notes.append(f"fast mode: pool depths d' = {depths_used}, Figure 3 {gamma_used}, Figure 4 {figure4_used}, "
                     f"{repetitions} two-strata samples, Table 3 over 6 groups")

    # RBP's persistence: the paper's 0.95 leaves 0.0059 of the weight beyond d = 100
    if given_p is None:
        p_used = scaled_persistence(d)
        if p_used != PAPER_P:
            notes.append(f"RBP persistence p = {p_used:.3f} (the paper's 0.95 at d = 100, scaled so that the weight "
                         f"beyond d = {d} stays {PAPER_P ** REFERENCE_DEPTH:.4f})")
    else:
        p_used = given_p
        if p_used != PAPER_P:
            notes.append(f"RBP persistence p = {p_used:g} (set by you; the paper's 0.95)")
        elif d < REFERENCE_DEPTH:
            notes.append(f"RBP persistence p = {p_used:g} (set by you: the paper's value at d = 100, not scaled to "
                         f"d = {d})")
    tail = p_used ** d
    if thetas_used != sorted(DEFAULT_THETAS):
        notes.append(f"thetas {thetas_used} (set by you; the paper's [0, 0.018])")
    if theta != PAPER_THETA:
        notes.append(f"theta {theta:g} for Figures 4 and 6 (set by you; the paper's 0.018)")
    if fast:
        pass
    elif preset and preset != "paper":
        notes.append(f"preset {preset!r}: Figure 6 and Table 1 over {repetitions} two-strata samples"
                     + (f", Table 3 over {table3_groups} groups" if table3_groups else "")
                     + f", Figure 4 at {len(figure4_used)} depths")
    elif repetitions != 10:
        notes.append(f"{repetitions} two-strata samples (the paper's 10)")

    out = Plan("04_lu2017", collection.name, {
        "reference_depth": d, "depths": depths_used, "table1_depths": table1_used, "gamma_depths": gamma_used,
        "figure4_depths": figure4_used, "table3_depth": table3_used[0], "two_strata_depth": two_strata_used[0],
        "first_depth": depths_used[0], "paper_depths": paper_depths, "repetitions": int(repetitions),
        "table3_groups": table3_groups, "figure4_points": figure4_points, "p": p_used, "tail": tail,
        "thetas": thetas_used, "theta": theta, "theta_grid": grid, "seed": seed,
        "model_depths": [x for x in sorted(set(depths_used) | set(figure4_used) | set(table3_used)
                                           | set(two_strata_used)) if x >= MIN_MODEL_RANKS]}, notes)
    if tail > RBP_TAIL_BOUND:
        out.mark_degenerate(
            "rbp_tail", f"RBP({p_used:g}) keeps {tail:.0%} of its weight beyond d = {d}, above the bound "
            f"{RBP_TAIL_BOUND:.0%}, so Eq. 3 lets every over-estimate pass",
            f"set p <= {RBP_TAIL_BOUND ** (1 / d):.2f}, or leave p = None (the kit then scales it to d)")
    shallow = sorted({x for x in set(depths_used) | set(figure4_used) | set(table3_used) | set(two_strata_used)
                      if x < MIN_MODEL_RANKS})
    if shallow:
        out.mark_degenerate(
            "gain_models", f"gain curves fitted to {', '.join(map(str, shallow))} judged "
            f"{'rank' if shallow == [1] else 'ranks'} at d' = {', '.join(map(str, shallow))}; the Weibull curve has "
            f"{MIN_MODEL_RANKS} parameters, so Lin, La and Lb are not rated there",
            f"pool depths of at least {MIN_MODEL_RANKS} (depths, figure4_depths, table3_depth, two_strata_depth), "
            f"which need a collection judged {int(np.ceil(MIN_MODEL_RANKS * REFERENCE_DEPTH / DEFAULT_DEPTHS[0]))} "
            "deep to keep the paper's d'/d")
    return out
