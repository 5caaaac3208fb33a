"""Does the class preset change a conclusion? The claims of one collection run at the class preset beside the same
claims run at the paper preset (issue 28: "the class preset never changes a conclusion").

A claim passes when its class verdict equals its paper verdict (compared as :func:`~evalkit.claims.grading.
verdict_category`: the rating word, without the interval or the count that follows it, so "inconclusive ([0.10,
0.31])" equals "inconclusive ([0.12, 0.33])"), or when the class run says it cannot rate the claim at its size
(``not rated at class size (...)``, with the reason). Any other difference is a changed conclusion. A claim that one
run has and the other lacks is listed too: the two runs did not study the same things. A claim's words may state
the sizes run ("10 samples", "100 samples"): claims are paired with their numbers set aside, in their order.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd

from evalkit.claims.grading import verdict_category

#: how a class verdict that declines to rate at its size starts (evalkit.claims.grading writes it)
AT_CLASS_SIZE = "not rated at class size"
#: the columns that identify a claim across two runs of the same notebooks
KEY = ("notebook", "claim")


def read_claims_table(path: os.PathLike | str) -> pd.DataFrame:
    """The claims of a batch run: its output folder (``claims.csv`` inside) or the ``claims.csv`` file itself."""
    path = Path(path)
    table = path / "claims.csv" if path.is_dir() else path
    if not table.is_file():
        raise ValueError(f"{path}: no claims.csv (give a batch output folder of 'evalkit notebooks run', or its "
                         f"claims.csv)")
    frame = pd.read_csv(table, dtype=str, keep_default_na=False)
    missing = [c for c in (*KEY, "verdict") if c not in frame.columns]
    if missing:
        raise ValueError(f"{table}: not a claims table: no column {', '.join(repr(c) for c in missing)}")
    return frame


_NUMBER = re.compile(r"[0-9]+(?:[.,][0-9]+)*")


def _keyed(frame: pd.DataFrame, which: str) -> pd.DataFrame:
    rows = frame.loc[:, [*KEY, "verdict"]].rename(columns={"verdict": which, "claim": f"{which} claim"})
    rows["words"] = rows[f"{which} claim"].str.replace(_NUMBER, "#", regex=True)
    # a claim a notebook states twice (per measure, per size) is told apart by its order
    rows["occurrence"] = rows.groupby(["notebook", "words"]).cumcount()
    return rows


def compare_presets(class_claims: pd.DataFrame, paper_claims: pd.DataFrame) -> pd.DataFrame:
    """One row per claim of either run: ``notebook``, ``claim``, ``class verdict``, ``paper verdict`` and
    ``outcome``: "same verdict", "not rated at class size" (the class run declines, saying why: allowed), "changed"
    (a changed conclusion), or "only at class" / "only at paper" (the runs did not study the same claims)."""
    merged = _keyed(class_claims, "class verdict").merge(_keyed(paper_claims, "paper verdict"), how="outer",
                                                         on=["notebook", "words", "occurrence"], sort=False)
    merged.insert(1, "claim", merged["paper verdict claim"].fillna(merged["class verdict claim"]))
    class_verdict, paper_verdict = merged["class verdict"], merged["paper verdict"]
    outcome = pd.Series("changed", index=merged.index, dtype=object)
    same = class_verdict.notna() & paper_verdict.notna() & \
        (class_verdict.fillna("").map(verdict_category) == paper_verdict.fillna("").map(verdict_category))
    outcome[same] = "same verdict"
    outcome[class_verdict.fillna("").str.startswith(AT_CLASS_SIZE) & paper_verdict.notna()] = AT_CLASS_SIZE
    outcome[class_verdict.isna()] = "only at paper"
    outcome[paper_verdict.isna()] = "only at class"
    merged["outcome"] = outcome
    return merged.loc[:, ["notebook", "claim", "class verdict", "paper verdict", "outcome"]].fillna("")


def changed_conclusions(comparison: pd.DataFrame) -> pd.DataFrame:
    """The rows of :func:`compare_presets` that break the rule: a changed verdict, or a claim only one run has."""
    return comparison[~comparison["outcome"].isin(("same verdict", AT_CLASS_SIZE))]


def summary(comparison: pd.DataFrame) -> str:
    """One sentence: how many claims keep their verdict, how many the class run declines, how many change."""
    counts = comparison["outcome"].value_counts()
    broken = len(changed_conclusions(comparison))
    parts = [f"{counts.get('same verdict', 0)} of {len(comparison)} claims keep their verdict at the class preset",
             f"{counts.get(AT_CLASS_SIZE, 0)} are not rated at class size (each says why)"]
    differing = ", ".join(f"{n} {o}" for o, n in counts.items() if o not in ("same verdict", AT_CLASS_SIZE))
    tail = "none changes" if broken == 0 else f"{broken} differ ({differing})"
    return "; ".join(parts) + f"; {tail}."
