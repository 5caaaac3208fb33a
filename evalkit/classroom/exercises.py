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
in the student notebooks; so do the model answers to every question of a notebook's Exercises cell
(:mod:`evalkit.classroom.model_answers`, rendered by :func:`model_answer` with the run's numbers).
:func:`write_solutions` writes, for each notebook, a copy whose ``exercise`` cells carry the solution and whose
last section holds the model answers (``evalkit notebooks solutions``, ``make solutions``): an instructor hands
out ``notebooks/`` and keeps ``solutions/``. A :class:`Verdict` shows its mark as a drawn image and a word
(right, not yet, to do), never an emoji a machine may lack the font for.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from evalkit.classroom import answer_values as values
from evalkit.errors import listed, one_line, shown

__all__ = ["Exercise", "Verdict", "EXERCISES", "check", "expected_answer", "model_answer", "solution_notebook",
           "notebook_text", "write_solutions", "EXERCISE_TAG", "ANSWER_LINE", "ExerciseError", "UnknownExercise"]

EXERCISE_TAG = "exercise"
ANSWER_LINE = "answer = None"


@dataclass(frozen=True)
class Exercise:
    """One checkable exercise: ``expected(**context)`` computes the right answer from the notebook's objects;
    ``kind`` says how an answer is compared (``"number"`` within ``tolerance``, absolute or relative to the
    expected value when ``relative``; ``"text"`` case-insensitively; ``"one of"``: a text equal to any of the
    expected texts (runs tied for first place); ``"set"`` of texts, order ignored)."""

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

    @property
    def label(self) -> str:
        """The mark in words: right, not yet, to do."""
        return {True: "right", False: "not yet", None: "to do"}[self.right]

    def _repr_markdown_(self) -> str:
        return f"**[{self.label}]** {self.message}"

    def _repr_html_(self) -> str:
        """The mark as an inline SVG image (drawn, not a character: no emoji font needed; an ``img`` with a data
        URI passes the report's sanitizer) and in words beside it."""
        import html

        return (f'<div class="evalkit-verdict evalkit-verdict-{self.label.replace(" ", "-")}">'
                f'<img src="{_MARK_URIS[self.right]}" alt="{self.label}" width="18" height="18" '
                f'style="vertical-align: middle;"> <strong style="color: {_MARK_COLOURS[self.right]};">'
                f'{self.label}</strong> {html.escape(self.message)}</div>')


_MARK_COLOURS = {True: "#1a7f37", False: "#b35900", None: "#555555"}
_MARK_PATHS = {True: "M5 10.5l3.5 3.5L15 6.5",  # a tick
               False: "M6.5 6.5l7 7M13.5 6.5l-7 7",  # a cross
               None: "M6 14l1-3.5 6-6 2.5 2.5-6 6z"}  # a pencil


def _mark_uri(right) -> str:
    import base64

    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20" viewBox="0 0 20 20">'
           f'<circle cx="10" cy="10" r="9" fill="{_MARK_COLOURS[right]}"/>'
           f'<path d="{_MARK_PATHS[right]}" fill="none" stroke="#ffffff" stroke-width="2.2" '
           f'stroke-linecap="round" stroke-linejoin="round"/></svg>')
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


_MARK_URIS = {right: _mark_uri(right) for right in (True, False, None)}


# ------------------------------------------------------------------------------------------ the exercises


EXERCISES: dict[str, Exercise] = {e.id: e for e in [
    Exercise("00.1", "Kendall's tau between the run ranking by P@10 on the depth-d pool (d = the slider's start) "
             "and the ranking on the full qrels", values.tour_tau, "number", 0.005,
             hint="The pool-depth study above compares the two rankings for the measure it is given: run it for "
                  "P@10 at the slider's starting depth only and read its tau.",
             solution="answer = tour.pool_depth_study(collection, [plan.slider_depth], measure=\"P@10\")"
                      "[\"kendall tau\"].iloc[0]"),
    Exercise("00.2", "the run whose mean P@10 drops the most when only the depth-d pool is judged (d = the "
             "slider's start)", values.tour_biggest_losers, "one of",
             hint="Each run needs two mean P@10 scores: one on the full qrels (the table of means above has it "
                  "for every run) and one on the shallow pool (what the slider cell computes, per topic). The "
                  "answer is the run with the largest difference; then look it up in collection.runs_info.",
             solution="full = evalkit.score_matrix(collection, \"P@10\").mean(axis=1)\n"
                      "shallow = tour.pooled_scores(collection, plan.slider_depth, \"P@10\")[0].mean(axis=1)\n"
                      "answer = collection.run_names[(full - shallow).argmax()]"),
    Exercise("03.4", "pool25's mean relative error of R̂, mean over topics of (R̂ − R)/R (topics with R > 0; "
             "each topic's mean over the trials)", values.voorhees_relative_bias, "number", 0.005,
             hint="result.r_hat has columns strategy, topic, r_hat, gold_R; average per topic first, then over "
                  "topics. A pool only counts what it contains: expect a negative number.",
             solution="r = result.r_hat[(result.r_hat.strategy == \"pool25\") & (result.r_hat.gold_R > 0)]\n"
                      "answer = ((r.r_hat - r.gold_R) / r.gold_R).groupby(r.topic, observed=True).mean().mean()"),
    Exercise("03.4b", "the strategy that underestimates R the most (lowest mean (R̂ − R)/R over every trial and "
             "topic with R > 0)", values.voorhees_most_biased, "text",
             hint="The relative error of the previous exercise, computed for every strategy: which one is the "
                  "most negative?",
             solution="r = result.r_hat[result.r_hat.gold_R > 0]\n"
                      "answer = ((r.r_hat - r.gold_R) / r.gold_R).groupby(r.strategy, observed=True).mean().idxmin()"),
    Exercise("01.5", "the RMS error of mean xinfAP against MAP over the runs that did not build the pool "
             "(the pluses) in Figure 2's first panel (k = figure2_depths[0])", values.yilmaz_rms_unjudged, "number", 1e-4,
             hint="Figure 2's points (fig2) say, per panel, which runs built the pool: keep the first panel's "
                  "runs that did not, and compare their mean xinfAP with their MAP as an RMS error.",
             solution="part = fig2[(fig2.k == figure2_depths[0]) & ~fig2.judged]\n"
                      "answer = np.sqrt(((part.mean_xinfAP - part.MAP) ** 2).mean())"),
    Exercise("02.2", "the number of topics whose sample depth the judged-depth cap cuts", values.soboroff_capped,
             "number", 0,
             hint="The sample's per-topic table keeps, for every topic, the depth the design asked for before the "
                  "judged depth cut it and the depth it sampled: a topic counts when the first is the larger. "
                  "Count such topics.",
             solution="answer = int((sample.table.depth_uncapped > sample.table.depth).sum())"),
    Exercise("05.1", "RTC's accuracy over the pairs it is at least 95% confident about (Table 2's two top bins "
             "together)", values.carterette_top_accuracy, "number", 1e-6,
             hint="In Table 2 (t2), weight the RTC accuracy of the rows '0.95 – 0.99' and '1.0' by their pairs.",
             solution="top = t2.index[-2:]\n"
                      "answer = (t2.loc[top, (\"RTC\", \"accuracy\")] * t2.loc[top, (\"RTC\", \"pairs\")]).sum() "
                      "/ t2.loc[top, (\"RTC\", \"pairs\")].sum()"),
    Exercise("06.1", "the topics the paired t-test needs under full judgments at power 0.9 (the notebook's delta, "
             "alpha and measure)", values.planner_topics_at_power, "number", 0,
             hint="The paired t-test's topic set size needs the within-system variance (the residual of the two-way "
                  "ANOVA: the 'paired' column of the variances table), not the total; evalkit.planning.topic_set_size "
                  "solves it for a power, here 0.9.",
             solution="from evalkit.planning.topic_set_size import ttest_topics\n"
                      "answer = ttest_topics(delta, variances.loc[plan.measure, \"paired\"], alpha, 0.9)"),
    Exercise("06.2", "the smallest difference the paired t-test detects on 50 fully judged topics (the notebook's "
             "power and alpha)", values.planner_detectable, "number", 1e-4,
             hint="Turn the question around: fix 50 topics and the paired variance, and ask the smallest difference "
                  "the t-test finds at the notebook's power and alpha (evalkit.planning.topic_set_size has the "
                  "inverse of the topic set size).",
             solution="from evalkit.planning.topic_set_size import detectable_difference\n"
                      "answer = detectable_difference(50, variances.loc[plan.measure, \"paired\"], alpha, power)"),
    Exercise("04.1", "the estimator with the lowest RMSE at the first pool depth d' and θ = 0.018 (LB and RM, "
             "which are not gated, count at every θ)", values.lu_best_estimator, "text",
             hint="In Table 2 look only at the first depth d' and θ = 0.018 (LB and RM have no θ: they count "
                  "too), and find the smallest RMSE.",
             solution="rows = t2[(t2.depth == first) & (np.isclose(t2.theta.astype(float), 0.018) | t2.theta.isna())]\n"
                      "answer = rows.loc[rows.rmse.idxmin(), \"estimator\"]"),
]}


# ------------------------------------------------------------------------------------------ checking


class ExerciseError(ValueError):
    """An exercise cell that cannot be checked as written: an unknown exercise, or objects missing or not what the
    exercise reads. The cell fails (so a batch notices), and a notebook shows the one-line message, no traceback."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""

    def _render_traceback_(self) -> list[str]:  # IPython shows these lines instead of a traceback
        return [f"{type(self).__name__}: {self}"]


class UnknownExercise(ExerciseError, KeyError):
    """No exercise has this id."""


# what each object an exercise reads must be: (test, what it should be)
_CONTEXT = {
    "collection": (lambda v: _is_collection(v), "the loaded collection (evalkit.load_dataset(...))"),
    "depth": (lambda v: _whole(v), "a whole number of ranks, 1 or more"),
    "k": (lambda v: _whole(v), "a whole number of ranks, 1 or more"),
    "result": (lambda v: hasattr(v, "r_hat"), "the experiment's result (with its r_hat table)"),
    "results": (lambda v: hasattr(v, "pairs"), "the experiment's results (with their pairs table)"),
    "sample": (lambda v: hasattr(v, "table"), "the relevance sample (with its table)"),
    "t2": (lambda v: _is_frame(v), "Table 2 as a DataFrame"),
    "fig2": (lambda v: _is_frame(v), "Figure 2's DataFrame"),
}


def _is_collection(value) -> bool:
    from evalkit.data.collection import Collection

    return isinstance(value, Collection)


def _is_frame(value) -> bool:
    import pandas as pd

    return isinstance(value, pd.DataFrame)


def _whole(value) -> bool:
    return (isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
            and 1 <= int(value) <= 10**9)


def _checked_context(exercise: Exercise, context: dict) -> None:
    """Every object the exercise's ``expected`` needs is there and is what it should be (ExerciseError if not)."""
    import inspect

    parameters = inspect.signature(exercise.expected).parameters
    needed = [n for n, p in parameters.items() if p.default is inspect.Parameter.empty]
    missing = [n for n in needed if n not in context]
    unexpected = [n for n in context if n not in parameters]
    if missing or unexpected:
        problem = f"needs {', '.join(f'{n}=...' for n in needed)}" + (
            f"; missing {listed(missing)}" if missing else "") + (
            f"; does not take {listed(unexpected)}" if unexpected else "")
        raise ExerciseError(f"exercise {exercise.id} {problem} (pass the notebook's objects, as its exercise cell "
                            "does)")
    for name, value in context.items():
        test, what = _CONTEXT.get(name, (lambda v: True, ""))
        if not test(value):
            raise ExerciseError(f"exercise {exercise.id}: {name} must be {what}, got {_described(value)}")


def _described(value) -> str:
    return f"{shown(value)} (type {type(value).__name__})"


def expected_answer(exercise_id: str, **context):
    """The right answer to ``exercise_id`` on the objects of this notebook (``context``)."""
    exercise = _exercise(exercise_id)
    _checked_context(exercise, context)
    try:
        return exercise.expected(**context)
    except Exception as exc:
        raise ExerciseError(f"exercise {exercise.id}: the expected answer could not be computed from the objects "
                            f"given ({type(exc).__name__}: {one_line(exc, 200)})") from None


def _exercise(exercise_id: str) -> Exercise:
    if not isinstance(exercise_id, str):
        raise ExerciseError(f"the exercise id must be text such as '00.1', got {_described(exercise_id)}")
    if exercise_id not in EXERCISES:
        raise UnknownExercise(f"no exercise {shown(exercise_id)}; known: {listed(EXERCISES)}")
    return EXERCISES[exercise_id]


def _as_number(value):
    """``(number, None)``, or ``(None, why)`` when ``value`` is not one finite real number."""
    if isinstance(value, (bool, np.bool_)):
        return None, f"expected a number, got {bool(value)!r} (True and False are not numbers here)"
    if isinstance(value, (int, np.integer)) and abs(int(value)) > 10**300:
        return None, f"expected a number of a sensible size, got {shown(value)}"
    try:
        array = np.asarray(value)
        if array.dtype == object or array.dtype.kind not in "iufU" or array.size != 1:
            raise TypeError
        number = float(array.item())  # "0.5" as text is read as the number it spells
    except (TypeError, ValueError, OverflowError):
        return None, f"expected a number, got {_described(value)}"
    if not math.isfinite(number):
        return None, f"expected a finite number, got {number!r}"
    return number, None


def _compare(exercise: Exercise, answer, expected) -> tuple[bool, str]:
    if exercise.kind == "number":
        got, why = _as_number(answer)
        if got is None:
            return False, why
        want, _ = _as_number(expected)
        if want is None:
            return False, "the expected value is not a number on this collection (too small?): nothing to check"
        allowed = exercise.tolerance * (abs(want) if exercise.relative else 1.0)
        close = abs(got - want) <= allowed + 1e-12
        shown_want = f"{want:.4g}" if exercise.tolerance else f"{want:g}"
        return close, (f"{got:.4g} is within {allowed:.2g} of {shown_want}" if close else
                       f"{got:.4g} is {'above' if got > want else 'below'} the expected value"
                       + (f" by more than {allowed:.2g}" if allowed else ""))
    if exercise.kind == "text":
        if not isinstance(answer, (str, np.str_)):
            return False, f"expected a name (text), got {_described(answer)}"
        right = str(answer).strip().lower() == str(expected).strip().lower()
        return right, f"{shown(answer)}" + (" is right" if right else " is not the answer")
    if exercise.kind == "one of":
        if not isinstance(answer, (str, np.str_)):
            return False, f"expected a name (text), got {_described(answer)}"
        right = str(answer).strip().lower() in {str(e).strip().lower() for e in expected}
        tied = f" (one of {len(expected)} tied)" if right and len(expected) > 1 else ""
        return right, f"{shown(answer)}" + (" is right" + tied if right else " is not the answer")
    if exercise.kind == "set":
        if isinstance(answer, (str, bytes)) or not hasattr(answer, "__iter__"):
            return False, f"expected a list of names, got {_described(answer)}"
        got = {str(a).strip().lower() for a in answer}
        want = {str(e).strip().lower() for e in expected}
        missing, extra = len(want - got), len(got - want)
        right = not missing and not extra
        return right, "the set is right" if right else f"{missing} missing, {extra} not in the answer"
    raise ValueError(f"exercise {exercise.id}: unknown kind {exercise.kind!r}")


def check(exercise_id: str, answer, **context) -> Verdict:
    """Check ``answer`` to exercise ``exercise_id``; ``context``: the notebook objects the exercise reads (the
    exercise cell passes them). Returns a :class:`Verdict` (shown as the cell's result when it is the last line;
    ``print()`` it elsewhere): right, wrong with a hint, or not answered yet (``answer`` is None; nothing fails).
    An answer of the wrong kind (text for a number, True, nan, 10**400, a list) is a wrong answer saying so. An
    unknown exercise, or objects missing or not what the exercise reads, raise :class:`ExerciseError` (one line,
    no traceback in a notebook)."""
    exercise = _exercise(exercise_id)
    _checked_context(exercise, context)
    if answer is None:
        verdict = Verdict(exercise_id, None, f"Exercise {exercise_id}: not answered yet. Set `answer` to "
                                             f"{exercise.question} and run the cell again.")
    else:
        right, detail = _compare(exercise, answer, expected_answer(exercise_id, **context))
        if right:
            verdict = Verdict(exercise_id, True, f"Exercise {exercise_id}: right ({detail}).")
        else:
            verdict = Verdict(exercise_id, False, f"Exercise {exercise_id}: not yet ({detail}). Hint: {exercise.hint}")
    return verdict


# ------------------------------------------------------------------------------------------ model answers


def model_answer(answer_id: str, **context):
    """The model answer to discussion question ``answer_id`` (``"01.3"``: notebook 01, question 3) as Markdown,
    its numbers computed from ``context`` (the notebook's objects, as the solutions notebook passes them)."""
    from evalkit.classroom.model_answers import MODEL_ANSWERS

    if answer_id not in MODEL_ANSWERS:
        raise KeyError(f"no model answer {answer_id!r}; known: {', '.join(MODEL_ANSWERS)}")
    return MODEL_ANSWERS[answer_id].render(**context)


# ------------------------------------------------------------------------------------------ solutions


_NOTEBOOK_LINK = re.compile(r"\]\((\d\d_[A-Za-z0-9_]+?)\.ipynb")


def _solution_cell_source(source: str) -> str:
    """The exercise cell's source with ``answer = None`` replaced by the registered solution."""
    match = re.search(r"exercises\.check\(\s*[\"']([^\"']+)[\"']", source)
    if not match or ANSWER_LINE not in source:
        return source
    solution = _exercise(match.group(1)).solution
    return source.replace(ANSWER_LINE, f"# solution\n{solution}", 1)


def _source(cell) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _model_answer_cells(stem: str) -> list[dict]:
    """The solutions notebook's last section: each of the notebook's discussion questions answered (Markdown as
    written, or a code cell that computes the answer's numbers from the notebook's objects)."""
    from evalkit.classroom.model_answers import answers_for

    answers = answers_for(stem)
    if not answers:
        return []
    cells = [{"cell_type": "markdown", "id": "model-answers", "metadata": {"tags": ["model-answers", "optional"]},
              "source": "## Model answers\n\nFor the instructor: an answer to each exercise above (from "
                        "`evalkit.classroom.model_answers`). Numbers in them are computed from this run."}]
    for answer in answers:
        cell_id = f"model-answer-{answer.id.replace('.', '-')}"
        if answer.compute is None:
            cells.append({"cell_type": "markdown", "id": cell_id,
                          "metadata": {"tags": ["model-answer", "optional"]}, "source": answer.render()})
        else:
            cells.append({"cell_type": "code", "id": cell_id, "execution_count": None, "outputs": [],
                          "metadata": {"tags": ["model-answer", "optional"]},
                          "source": f"exercises.model_answer(\"{answer.id}\", {answer.context})"})
    return cells


def solution_notebook(path: str | Path) -> dict:
    """The solutions version of the notebook at ``path`` (a notebook dict): outputs cleared, every ``exercise``
    cell answered with its solution, the model answers at the end, links to other notebooks pointing at their
    solutions, a note at the top."""
    import json

    path = Path(path)
    with open(path, encoding="utf-8") as handle:
        nb = json.load(handle)
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
        if EXERCISE_TAG in (cell.get("metadata") or {}).get("tags", []):
            cell["source"] = _solution_cell_source(_source(cell))
        elif cell["cell_type"] == "markdown":
            cell["source"] = _NOTEBOOK_LINK.sub(r"](\1_solutions.ipynb", _source(cell))
    note = {"cell_type": "markdown", "id": "solutions-note", "metadata": {"tags": ["solutions-note"]},
            "source": f"**Solutions** to the exercises of `{path.name}` (for instructors: generated by `evalkit "
                      "notebooks solutions` from `evalkit.classroom.exercises`; students get the notebook without "
                      "them). The checkable exercises are answered in place; the model answers to every question "
                      "are at the end."}
    nb["cells"].insert(0, note)
    nb["cells"].extend(_model_answer_cells(path.stem))
    return nb


def notebook_text(nb: dict) -> str:
    """A notebook dict as nbformat writes it."""
    import json

    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def write_solutions(notebooks, out: str | Path) -> list[Path]:
    """For each notebook path, write ``<out>/<stem>_solutions.ipynb`` (:func:`solution_notebook`). Returns the
    paths written. Each file is written whole (a temporary file renamed into place). ``out`` is created if
    missing."""
    import os
    import tempfile

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in map(Path, notebooks):
        target = out / f"{path.stem}_solutions.ipynb"
        fd, tmp = tempfile.mkstemp(dir=out, prefix=".", suffix=".ipynb")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(notebook_text(solution_notebook(path)))
        os.replace(tmp, target)
        written.append(target)
    return written
