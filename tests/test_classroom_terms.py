"""Across notebooks (issue 28.2, 28.5, 28.6): the core path tags, the glossary and its terms' first use, and a model
answer for every exercise.

Every notebook must pass: a check fails naming the notebook, the cell and the term or tag that is missing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evalkit.batch.pipeline import notebook_paths
from evalkit.classroom import glossary
from evalkit.classroom.model_answers import MODEL_ANSWERS, answers_for

NOTEBOOKS = notebook_paths()
CORE_TAGS = ("core", "optional")


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _judge(path: Path, problems: list[str], what: str) -> None:
    if not problems:
        return
    shown = "; ".join(problems[:8]) + (f"; and {len(problems) - 8} more" if len(problems) > 8 else "")
    pytest.fail(f"{path.name}: {what}: {shown}")


# ------------------------------------------------------------------------------------------ core path


def core_tag_problems(path: Path) -> list[str]:
    """Cells after the first that do not carry exactly one of ``core`` / ``optional``."""
    problems = []
    for index, cell in enumerate(_cells(path)[1:], start=1):
        marks = [t for t in cell.get("metadata", {}).get("tags", []) if t in CORE_TAGS]
        if len(marks) != 1:
            first = _source(cell).strip().split("\n", 1)[0][:50]
            problems.append(f"cell {index} ({first!r}): {marks or 'no core/optional tag'}")
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_cell_after_the_first_is_core_or_optional(path):
    _judge(path, core_tag_problems(path), "cells without exactly one of the tags core/optional")
    cells = _cells(path)
    assert any("core" in c["metadata"].get("tags", []) and c["cell_type"] == "code" for c in cells)


def test_the_core_tag_check_finds_a_missing_and_a_double_tag(tmp_path):
    notebook = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "# title"},
                          {"cell_type": "code", "metadata": {"tags": ["core"]}, "source": "x = 1"},
                          {"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": "y = 2"},
                          {"cell_type": "markdown", "metadata": {"tags": ["core", "optional"]}, "source": "z"}]}
    path = tmp_path / "99_x.ipynb"
    path.write_text(json.dumps(notebook))
    problems = core_tag_problems(path)
    assert len(problems) == 2 and problems[0].startswith("cell 2 ('y = 2')") and "cell 3" in problems[1]


# ------------------------------------------------------------------------------------------ glossary


def test_the_tour_glossary_cell_is_the_module_rendered():
    tour = next(p for p in NOTEBOOKS if p.stem == "00_tour")
    cells = [_source(c) for c in _cells(tour) if c["cell_type"] == "markdown"]
    cell = next(c for c in cells if c.startswith("## Glossary"))
    assert cell.startswith(glossary.markdown()), \
        "the tour's glossary differs from evalkit.classroom.glossary: run glossary.write_into_tour"
    assert f'<a id="{glossary.ANCHOR}"></a>' in cell
    assert set(glossary.GLOSSARY) == set(glossary.WHERE) == set(glossary.USES)
    for term, sentence in glossary.GLOSSARY.items():
        assert sentence.endswith(".") and sentence.count(". ") <= 1, f"{term}: one sentence"
        assert glossary.use_pattern(term).search(f"| **{term}** |"), f"{term}: its pattern misses the term itself"


def term_problems(path: Path) -> list[str]:
    return [f"{term!r} first used in Markdown cell {index} ({first!r}) without **{term}** or a glossary link"
            for term, (index, ok, first) in glossary.first_uses(path).items() if not ok]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_each_glossary_term_is_defined_or_linked_where_it_is_first_used(path):
    _judge(path, term_problems(path), "terms used before they are defined or linked to the glossary")


def test_the_term_check_finds_a_use_before_the_definition(tmp_path):
    def notebook(*texts):
        path = tmp_path / "99_terms.ipynb"
        path.write_text(json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source": t}
                                              for t in texts]}))
        return path

    assert term_problems(notebook("We score with EMAP.", "**EMAP** is expected MAP.")) == \
        ["'EMAP' first used in Markdown cell 0 ('We score with EMAP.') without **EMAP** or a glossary link"]
    assert term_problems(notebook("**EMAP** (expected MAP) first.", "EMAP again.")) == []
    assert term_problems(notebook("[EMAP](00_tour.ipynb#glossary) is used here.")) == []
    # a bold span elsewhere in the cell does not define the term
    assert len(term_problems(notebook("**You will learn** about EMAP and **things**."))) == 1
    found = term_problems(notebook("The $\\gamma$ of a topic, and R̂."))
    assert [p.split(" ")[0] for p in found] == ["'R̂'", "'γ'"]


# ------------------------------------------------------------------------------------------ model answers


def exercise_titles(path: Path) -> dict[int, str]:
    """Question number -> its bold title, from the notebook's "## Exercises" Markdown cell."""
    cell = next((_source(c) for c in _cells(path) if c["cell_type"] == "markdown" and "## Exercises" in _source(c)),
                "")
    text = cell[cell.index("## Exercises"):] if cell else ""
    return {int(n): title.strip() for n, title in re.findall(r"^(\d+)\. \*\*(.+?)\*\*", text, re.M)}


def model_answer_problems(path: Path) -> list[str]:
    """Exercises without a model answer, answers to a question the notebook no longer asks, names the solutions
    cell would pass that the notebook does not have."""
    titles = exercise_titles(path)
    if not titles:
        return ["no numbered exercises under '## Exercises'"]
    answers = {int(a.id.split(".")[1]): a for a in answers_for(path.stem)}
    problems = [f"exercise {n} ({titles[n]!r}) has no model answer" for n in sorted(set(titles) - set(answers))]
    problems += [f"model answer {answers[n].id} answers no exercise" for n in sorted(set(answers) - set(titles))]
    problems += [f"exercise {n} is now {titles[n]!r}: model answer {answers[n].id} answers {answers[n].title!r}"
                 for n in sorted(set(titles) & set(answers)) if answers[n].title != titles[n]]
    code = "\n".join(_source(c) for c in _cells(path) if c["cell_type"] == "code")
    for answer in answers.values():
        problems += [f"{answer.id} passes {name!r}, which the notebook does not define"
                     for name in re.findall(r"=\s*([A-Za-z_]\w*)", answer.context) if not re.search(rf"\b{name}\b", code)]
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_exercise_has_a_model_answer_to_the_question_asked(path):
    _judge(path, model_answer_problems(path), "model answers (evalkit/classroom/model_answers.py)")


def test_the_model_answer_check_finds_a_changed_question(tmp_path):
    tour = json.loads(next(p for p in NOTEBOOKS if p.stem == "00_tour").read_text())
    for cell in tour["cells"]:
        if "## Exercises" in _source(cell):
            cell["source"] = _source(cell).replace("**Who gets hurt?**", "**Who wins?**") + "\n3. **New.** Why?"
    path = tmp_path / "00_tour.ipynb"
    path.write_text(json.dumps(tour))
    assert model_answer_problems(path) == [
        "exercise 3 ('New.') has no model answer",
        "exercise 2 is now 'Who wins?': model answer 00.2 answers 'Who gets hurt?'"]


def test_every_model_answer_belongs_to_a_notebook():
    stems = {p.stem[:2] for p in NOTEBOOKS} | {"06"}
    assert {a.id.split(".")[0] for a in MODEL_ANSWERS.values()} <= stems


def test_the_lesson_plans_name_exercises_and_notebooks_that_exist():
    """docs/classroom.md's lab and course tracks: every exercise id they assign has a checkable exercise or a model
    answer, and the 60-minute lab adds up to 60 minutes."""
    from evalkit.classroom.exercises import EXERCISES

    doc = (Path(__file__).resolve().parents[1] / "docs" / "classroom.md").read_text()
    plans = doc[doc.index("## A 60-minute lab"):doc.index("## Exercises and solutions")]
    named = set(re.findall(r"\b(0\d\.\d+b?)\b", plans))
    assert named and named <= set(EXERCISES) | set(MODEL_ANSWERS), sorted(named - set(EXERCISES) - set(MODEL_ANSWERS))
    lab = plans[:plans.index("## A course")]
    spans = [(int(a), int(b)) for a, b in re.findall(r"^\| (\d+)-(\d+) \|", lab, re.M)]
    assert spans[0][0] == 0 and spans[-1][1] == 60 and all(b == c for (_, b), (c, _) in zip(spans, spans[1:]))
    for number in set(re.findall(r"\b(0\d) ", plans)):
        assert any(p.stem.startswith(number) for p in NOTEBOOKS) or number == "06", number
