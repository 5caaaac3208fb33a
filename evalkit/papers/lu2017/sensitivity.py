"""Lu, Moffat and Culpepper (2017): does each verdict survive the parameters the kit had to reconstruct?
(:func:`sensitivity`; :func:`~evalkit.papers.lu2017.tables.survives` and
:func:`~evalkit.papers.lu2017.tables.deviations` read it).

The parameters the paper leaves open and the kit had to choose (see :mod:`evalkit.papers.lu2017`):

* the depth K to which the system matrix records ranks ("the maximum depth of lists returned": the runs' full
  length, 1000 on TREC, or the reference depth d): Table 2's claims at the first pool depth at which the gain
  models are determined;
* the threshold theta of Figures 4 and 6 (the paper does not say; the kit uses 0.018): Figure 4's claims and the
  discrimination-ratio claim at Figure 4's depths;
* RBP's persistence p, where the kit scaled it to a reference depth below 100: Table 2's claims at the first pool
  depth with the paper's 0.95.

Each alternative is rated by the same rules on the same kind of interval as the notebook's claims
(:func:`~evalkit.papers.lu2017.claims.claims`).
"""

from __future__ import annotations

import pandas as pd

from evalkit.papers.lu2017.claims import claims
from evalkit.papers.lu2017.experiment import figure4, prepare, table2
from evalkit.papers.lu2017.plan import MIN_MODEL_RANKS, PAPER_P


def _rows(parameter: str, value: str, used: bool, rows: list) -> list:
    from evalkit.claims import grade

    out = []
    for c in rows:
        verdict = grade(c)["verdict"]
        out.append({"parameter": parameter, "value": value, "the notebook's": "yes" if used else "",
                    "claim": c.claim, "verdict": verdict, "interval": c.interval, "kit_value": c.kit_value})
    return out


def sensitivity(data, plan, seed: int = 0, n_resamples: int = 200, progress: bool = False,
                figure4_frame: pd.DataFrame | None = None) -> pd.DataFrame:
    """Each reconstructed parameter (module docstring) at the notebook's value and its alternative, with the
    verdict of every claim it affects (graded as in the claims table). Costs one extra fit (K = d) and, on a
    collection where p was scaled, one at p = 0.95; Figure 4's alternative theta reuses the notebook's fits, and
    ``figure4_frame`` (the notebook's :func:`figure4` with its resamples, same ``seed``) its figure at the notebook's
    theta. ``progress``: a bar over the alternatives.

    A parameter that cannot be varied on this collection (no Table 2 depth d' of at least ``MIN_MODEL_RANKS`` for
    K and p; no Figure 4 depth left for theta, e.g. a collection judged to depth 2 where the gain models are
    degenerate) has no rows; ``frame.attrs["not run"]`` says why, one sentence a parameter
    (:func:`sensitivity_note`)."""
    from evalkit.estimation.framework import system_matrix
    from evalkit.papers.lu2017.experiment import _steps

    c = data.collection
    name = c.name
    depth = next((d for d in plan.depths if d >= MIN_MODEL_RANKS), None)
    degenerate = plan.degenerate.get("gain_models")
    rows: list = []
    not_run: list[str] = []
    if depth is None:
        not_run.append(f"the rank depth K and RBP's p were not varied: no pool depth d' of Table 2 reaches "
                       f"{MIN_MODEL_RANKS} ranks ({', '.join(map(str, plan.depths))})")
    steps = ["matrix", "theta"] + (["p"] if plan.p != PAPER_P else [])
    for step in _steps(steps, progress, "sensitivity"):
        if step == "matrix" and depth is not None:
            for label, rank_depth in ((f"K = {c.depth} (the runs' full length)", None),
                                      (f"K = {data.depth} (the reference depth d)", data.depth)):
                variant = data if rank_depth is None else type(data)(
                    c, data.pool_runs, data.depth, data.p, data.reference,
                    system_matrix(c, data.depth, data.pool_runs, rank_depth=rank_depth))
                frame = table2(variant, [depth], plan.thetas, per_topic=True)
                rows += _rows("system matrix rank depth K (Table 2)", f"{label}, d'={depth}", rank_depth is None,
                              claims(name, plan=plan, table2_frame=frame, theta=plan.theta, seed=seed))
        if step == "theta":
            depths = [d for d in plan.figure4_depths if d >= MIN_MODEL_RANKS or not degenerate]
            if not depths:
                not_run.append(f"theta was not varied: no Figure 4 depth d' reaches {MIN_MODEL_RANKS} ranks "
                               f"({', '.join(map(str, plan.figure4_depths))}) and the gain models are degenerate "
                               "below it")
                continue
            alternative = 0.0 if plan.theta != 0.0 else 0.018
            ours = figure4_frame is not None and set(figure4_frame["depth"]) == set(depths) and \
                (figure4_frame["resample"] >= 0).any()
            both = figure4(data, depths, plan.theta, n_resamples=n_resamples, seed=seed,
                           thetas=[alternative] if ours else [plan.theta, alternative])
            if ours:
                both = pd.concat([figure4_frame, both], ignore_index=True)
            for th in (plan.theta, alternative):
                rows += _rows("theta of Figures 4 and 6", f"theta = {th:g}", th == plan.theta,
                              claims(name, plan=plan, figure4_frame=both[both["theta"] == th], seed=seed))
        if step == "p" and depth is not None:
            for p in (plan.p, PAPER_P):
                variant = data if p == plan.p else prepare(c, data.depth, p, data.pool_runs)
                frame = table2(variant, [depth], plan.thetas, per_topic=True)
                rows += _rows("RBP persistence p (Table 2)", f"p = {p:.3g}, d'={depth}", p == plan.p,
                              claims(name, plan=None, table2_frame=frame, theta=plan.theta, seed=seed))
    frame = pd.DataFrame(rows, columns=["parameter", "value", "the notebook's", "claim", "verdict", "interval",
                                        "kit_value"])
    frame.attrs["not run"] = not_run
    return frame


def sensitivity_note(frame: pd.DataFrame) -> str:
    """What :func:`sensitivity` could not vary on this collection, and why, in one sentence (``""`` when it varied
    every parameter)."""
    reasons = list(frame.attrs.get("not run", []))
    if not reasons:
        return ""
    return "On this collection " + "; ".join(reasons) + "."
