"""Checkable exercises and the solutions notebooks (issue 13 item 6).

In a notebook, an exercise with a checkable answer ends with a cell tagged ``exercise``::

    answer = None   # your answer: the name of a run
    exercises.check("00.2", answer, collection=collection, depth=plan.slider_depth)

:func:`check` says whether the answer is right, within the exercise's tolerance, or a hint. The expected value
is **computed from the collection the notebook ran on** (the exercise's ``expected`` function, called with the
same objects the notebook passes), never hard-coded, so the check holds on TREC-8, the synthetic collection and
any directory of runs. An unanswered exercise (``answer = None``) prints a reminder and does not fail, so the
batch and the tests run the student notebooks as they are.

The solutions live here (each :class:`Exercise`'s ``solution``: the code that replaces ``answer = None``), not
in the student notebooks. :func:`write_solutions` writes, for each notebook, a copy whose ``exercise`` cells
carry the solution (``evalkit notebooks solutions``, ``make solutions``): an instructor hands out
``notebooks/`` and keeps ``solutions/``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

__all__ = ["Exercise", "Verdict", "EXERCISES", "check", "expected_answer", "write_solutions", "EXERCISE_TAG",
           "ANSWER_LINE"]

EXERCISE_TAG = "exercise"
ANSWER_LINE = "answer = None"


@dataclass(frozen=True)
class Exercise:
    """One checkable exercise: ``expected(**context)`` computes the right answer from the notebook's objects;
    ``kind`` says how an answer is compared (``"number"`` within ``tolerance``, absolute or relative to the
    expected value when ``relative``; ``"text"`` case-insensitively; ``"set"`` of texts, order ignored)."""

    id: str
    question: str
    expected: Callable[..., Any]
    kind: str = "number"
    tolerance: float = 0.0
    relative: bool = False
    hint: str = ""
    solution: str = ""
    needs: tuple = field(default_factory=tuple)


@dataclass(frozen=True)
class Verdict:
    """What :func:`check` found: ``right`` is None for an unanswered exercise."""

    id: str
    right: bool | None
    message: str

    def __str__(self) -> str:
        return self.message

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(self.message)

    def _repr_markdown_(self) -> str:
        mark = {True: "✅", False: "❌", None: "✏️"}[self.right]
        return f"{mark} {self.message}"


# ------------------------------------------------------------------------------------------ the exercises


def _tour_tau(collection, depth, measure="P@10"):
    from evalkit.papers import tour

    study = tour.pool_depth_study(collection, [int(depth)], measure=measure)
    return float(study["kendall tau"].iloc[0])


def _tour_biggest_loser(collection, depth, measure="AP"):
    from evalkit.measures.evaluation import score_matrix
    from evalkit.papers import tour

    full = score_matrix(collection, measure).mean(axis=1)
    shallow, _ = tour.pooled_scores(collection, int(depth), measure)
    return collection.run_names[int(np.argmax(full - shallow.mean(axis=1)))]


def _voorhees_relative_bias(result, strategy="pool25"):
    r = result.r_hat
    part = r[(r.strategy == strategy) & (r.gold_R > 0)]
    return float(((part.r_hat - part.gold_R) / part.gold_R).groupby(part.topic, observed=True).mean().mean())


def _voorhees_most_biased(result):
    r = result.r_hat[result.r_hat.gold_R > 0]
    bias = ((r.r_hat - r.gold_R) / r.gold_R).groupby(r.strategy, observed=True).mean()
    return str(bias.idxmin())


def _soboroff_capped(sample):
    return int(sample.table.capped.sum())


def _lu_best_estimator(t2, depth, theta=0.018):
    rows = t2[(t2.depth == depth) & (np.isclose(t2.theta.astype(float), theta) | t2.theta.isna())]
    return str(rows.loc[rows.rmse.idxmin(), "estimator"])


def _yilmaz_rms_unjudged(fig2, k):
    part = fig2[(fig2.k == k) & ~fig2.judged.astype(bool)]
    return float(np.sqrt(np.mean((part.mean_xinfAP - part.MAP) ** 2))) if len(part) else float("nan")


def _carterette_top_accuracy(results, algorithm="rtc", level=0.95):
    """Accuracy of the pairs whose confidence max(P, 1 - P) is at least ``level`` (Sec. 4.4: the sign predicted
    is negative when P(dMAP < 0) >= 0.5; pairs with a true dMAP of 0 are left out, as in Table 2)."""
    p = results.pairs[f"p_{algorithm}"].to_numpy(float)
    truth = results.pairs["true_delta"].to_numpy(float)
    negative = p >= 0.5
    confidence = np.where(negative, p, 1 - p)
    correct = np.where(negative, truth < 0, truth > 0)
    chosen = (truth != 0) & (confidence >= level)
    return float(correct[chosen].mean()) if chosen.any() else float("nan")


EXERCISES: dict[str, Exercise] = {e.id: e for e in [
    Exercise("00.1", "Kendall's tau between the run ranking by P@10 on the depth-d pool (d = the slider's start) "
             "and the ranking on the full qrels", _tour_tau, "number", 0.005,
             hint="tour.pool_depth_study(collection, [depth], measure='P@10') has a 'kendall tau' column.",
             solution="answer = tour.pool_depth_study(collection, [plan.slider_depth], measure=\"P@10\")"
                      "[\"kendall tau\"].iloc[0]"),
    Exercise("00.2", "the run whose MAP drops the most when only the depth-d pool is judged (d = the slider's "
             "start)", _tour_biggest_loser, "text",
             hint="Subtract tour.pooled_scores(collection, depth, 'AP')[0].mean(axis=1) from the full MAP per run "
                  "(means[measure], reindexed to collection.run_names) and take the largest drop.",
             solution="full = evalkit.score_matrix(collection, \"AP\").mean(axis=1)\n"
                      "shallow = tour.pooled_scores(collection, plan.slider_depth, \"AP\")[0].mean(axis=1)\n"
                      "answer = collection.run_names[(full - shallow).argmax()]"),
    Exercise("03.4", "pool25's mean relative error of R̂, mean over topics of (R̂ − R)/R (topics with R > 0; "
             "each topic's mean over the trials)", _voorhees_relative_bias, "number", 0.005,
             hint="result.r_hat has columns strategy, topic, r_hat, gold_R; average per topic first, then over "
                  "topics. A pool only counts what it contains: expect a negative number.",
             solution="r = result.r_hat[(result.r_hat.strategy == \"pool25\") & (result.r_hat.gold_R > 0)]\n"
                      "answer = ((r.r_hat - r.gold_R) / r.gold_R).groupby(r.topic, observed=True).mean().mean()"),
    Exercise("03.4b", "the strategy that underestimates R the most (lowest mean (R̂ − R)/R over every trial and "
             "topic with R > 0)", _voorhees_most_biased, "text",
             hint="Group (r_hat - gold_R) / gold_R by strategy and take the minimum.",
             solution="r = result.r_hat[result.r_hat.gold_R > 0]\n"
                      "answer = ((r.r_hat - r.gold_R) / r.gold_R).groupby(r.strategy, observed=True).mean().idxmin()"),
    Exercise("01.5", "the RMS error of mean xinfAP against MAP over the runs that did not build the pool "
             "(the pluses) in Figure 2's first panel (k = figure2_depths[0])", _yilmaz_rms_unjudged, "number", 1e-4,
             hint="fig2 has columns k, judged, MAP, mean_xinfAP: keep k == figure2_depths[0] and judged == False, "
                  "then sqrt(mean((mean_xinfAP - MAP)**2)).",
             solution="part = fig2[(fig2.k == figure2_depths[0]) & ~fig2.judged]\n"
                      "answer = np.sqrt(((part.mean_xinfAP - part.MAP) ** 2).mean())"),
    Exercise("02.2", "the number of topics whose sample depth the judged-depth cap cuts", _soboroff_capped,
             "number", 0,
             hint="The sample's per-topic table keeps, for every topic, the depth the design asked for before the "
                  "judged depth cut it and the depth it sampled: a topic counts when the first is the larger. "
                  "Count such topics.",
             solution="answer = int((sample.table.depth_uncapped > sample.table.depth).sum())"),
    Exercise("05.1", "RTC's accuracy over the pairs it is at least 95% confident about (Table 2's two top bins "
             "together)", _carterette_top_accuracy, "number", 1e-6,
             hint="In Table 2 (t2), weight the RTC accuracy of the rows '0.95 – 0.99' and '1.0' by their pairs.",
             solution="top = t2.index[-2:]\n"
                      "answer = (t2.loc[top, (\"RTC\", \"accuracy\")] * t2.loc[top, (\"RTC\", \"pairs\")]).sum() "
                      "/ t2.loc[top, (\"RTC\", \"pairs\")].sum()"),
    Exercise("04.1", "the estimator with the lowest RMSE at the first pool depth d' and θ = 0.018 (LB and RM, "
             "which are not gated, count at every θ)", _lu_best_estimator, "text",
             hint="Filter t2 on depth == first and theta 0.018 (or NaN for LB and RM) and take the row with the "
                  "smallest rmse.",
             solution="rows = t2[(t2.depth == first) & (np.isclose(t2.theta.astype(float), 0.018) | t2.theta.isna())]\n"
                      "answer = rows.loc[rows.rmse.idxmin(), \"estimator\"]"),
]}


# ------------------------------------------------------------------------------------------ checking


def expected_answer(exercise_id: str, **context):
    """The right answer to ``exercise_id`` on the objects of this notebook (``context``)."""
    return _exercise(exercise_id).expected(**context)


def _exercise(exercise_id: str) -> Exercise:
    if exercise_id not in EXERCISES:
        raise KeyError(f"no exercise {exercise_id!r}; known: {', '.join(EXERCISES)}")
    return EXERCISES[exercise_id]


def _as_number(value):
    try:
        number = float(np.asarray(value).item())
    except (TypeError, ValueError):
        return None
    return number


def _compare(exercise: Exercise, answer, expected) -> tuple[bool, str]:
    if exercise.kind == "number":
        got, want = _as_number(answer), _as_number(expected)
        if got is None:
            return False, f"expected a number, got {answer!r}"
        if want is None or math.isnan(want):
            return False, "the expected value is not a number on this collection (too small?): nothing to check"
        allowed = exercise.tolerance * (abs(want) if exercise.relative else 1.0)
        close = abs(got - want) <= allowed + 1e-12
        shown = f"{want:.4g}" if exercise.tolerance else f"{want:g}"
        return close, (f"{got:.4g} is within {allowed:.2g} of {shown}" if close else
                       f"{got:.4g} is {'above' if got > want else 'below'} the expected value"
                       + (f" by more than {allowed:.2g}" if allowed else ""))
    if exercise.kind == "text":
        right = str(answer).strip().lower() == str(expected).strip().lower()
        return right, f"{answer!r}" + (" is right" if right else " is not the answer")
    if exercise.kind == "set":
        got = {str(a).strip().lower() for a in answer}
        want = {str(e).strip().lower() for e in expected}
        missing, extra = len(want - got), len(got - want)
        right = not missing and not extra
        return right, "the set is right" if right else f"{missing} missing, {extra} not in the answer"
    raise ValueError(f"exercise {exercise.id}: unknown kind {exercise.kind!r}")


def check(exercise_id: str, answer, **context) -> Verdict:
    """Check ``answer`` to exercise ``exercise_id``; ``context``: the notebook objects the exercise reads (the
    exercise cell passes them). Returns a :class:`Verdict` (shown as the cell's result when it is the last line;
    ``print()`` it elsewhere): right, wrong with a hint, or not answered yet (``answer`` is None; nothing fails)."""
    exercise = _exercise(exercise_id)
    if answer is None:
        verdict = Verdict(exercise_id, None, f"Exercise {exercise_id}: not answered yet. Set `answer` to "
                                             f"{exercise.question} and run the cell again.")
    else:
        right, detail = _compare(exercise, answer, exercise.expected(**context))
        if right:
            verdict = Verdict(exercise_id, True, f"Exercise {exercise_id}: right ({detail}).")
        else:
            verdict = Verdict(exercise_id, False, f"Exercise {exercise_id}: not yet ({detail}). Hint: {exercise.hint}")
    return verdict


# ------------------------------------------------------------------------------------------ solutions


def _solution_cell_source(source: str) -> str:
    """The exercise cell's source with ``answer = None`` replaced by the registered solution."""
    import re

    match = re.search(r"exercises\.check\(\s*[\"']([^\"']+)[\"']", source)
    if not match or ANSWER_LINE not in source:
        return source
    solution = _exercise(match.group(1)).solution
    return source.replace(ANSWER_LINE, f"# solution\n{solution}", 1)


def write_solutions(notebooks, out: str | Path) -> list[Path]:
    """For each notebook path, write ``<out>/<stem>_solutions.ipynb``: the same notebook, every ``exercise`` cell
    answered with its solution, a note at the top. Outputs are cleared. Returns the paths written.

    Each file is written whole (a temporary file renamed into place). ``out`` is created if missing.
    """
    import json
    import os
    import tempfile

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in map(Path, notebooks):
        with open(path, encoding="utf-8") as handle:
            nb = json.load(handle)
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                cell["outputs"], cell["execution_count"] = [], None
            if EXERCISE_TAG in (cell.get("metadata") or {}).get("tags", []):
                source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
                cell["source"] = _solution_cell_source(source)
        note = {"cell_type": "markdown", "metadata": {"tags": ["solutions-note"]},
                "source": f"**Solutions** to the checkable exercises of `{path.name}` (for instructors: generated "
                          "by `evalkit notebooks solutions` from `evalkit.classroom.exercises`; students get the notebook "
                          "without them)."}
        nb["cells"].insert(0, note)
        target = out / f"{path.stem}_solutions.ipynb"
        fd, tmp = tempfile.mkstemp(dir=out, prefix=".", suffix=".ipynb")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(nb, handle, indent=1, ensure_ascii=False)
            handle.write("\n")
        os.replace(tmp, target)
        written.append(target)
    return written
