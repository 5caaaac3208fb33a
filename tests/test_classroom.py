"""Classroom features (issue 13 items 2, 3, 5, 6): presets, dataset "auto", computed sentences, checkable
exercises and the solutions notebooks. Lean: the small synthetic collection, no notebook executed here (the
notebooks run in test_notebooks.py)."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import evalkit
from evalkit.batch.pipeline import notebook_paths
from evalkit.classroom import exercises
from evalkit.data.datasets import resolve_auto
from evalkit.display import narrative
from evalkit.papers import (
    carterette2007,
    lu2017,
    soboroff2007,
    tour,
    voorhees2014,
    yilmaz2008,
)
from evalkit.papers.settings import resolve

NOTEBOOKS = notebook_paths()
MODULES = [tour, voorhees2014, soboroff2007, lu2017] + [m for m in (yilmaz2008, carterette2007)
                                                      if hasattr(m, "PRESETS")]


# ------------------------------------------------------------------------------------------ presets


def test_resolve_takes_the_preset_then_explicit_values():
    presets = {"paper": {"trials": 50, "depths": (1, 2, 3)}, "class": {"trials": 10, "depths": (1, 3)},
               "fast": {"trials": 3, "depths": (1,)}}
    assert resolve(presets, "paper", trials=None).trials == 50
    assert resolve(presets, "class", trials=None).trials == 10
    assert resolve(presets, "class", fast=True, trials=None).trials == 3
    given = resolve(presets, "class", trials=20)
    assert given.trials == 20 and given.depths == [1, 3]
    assert str(given) == "preset 'class': trials 20 (given), depths [1, 3] (paper: [1, 2, 3])"
    assert resolve(presets, "class", seed=7).seed == 7  # a parameter no preset sets passes through
    with pytest.raises(ValueError, match="unknown preset 'klass'.*'class', 'paper'"):
        resolve(presets, "klass")


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_every_experiment_has_the_three_presets_class_no_larger_than_paper(module):
    presets = module.PRESETS
    assert set(presets) == {"paper", "class", "fast"}
    assert set(presets["class"]) == set(presets["paper"]) == set(presets["fast"])
    for key, paper in presets["paper"].items():
        small = presets["class"][key]
        if isinstance(paper, (int, float)) and not isinstance(paper, bool) and small is not None:
            smaller = small >= paper if key.endswith("_step") else small <= paper  # a larger step is fewer points
            assert smaller, f"{module.__name__}: class {key} {small} against paper {paper}"
    assert module.settings("class").preset == "class" and module.settings("class", fast=True).preset == "fast"


def test_lu_plan_keeps_figure4_ends_and_the_groups_of_the_preset():
    collection = evalkit.load_dataset("synthetic", fast=True)
    sizes = lu2017.settings("class")
    plan = lu2017.plan(collection, repetitions=sizes.repetitions, figure4_points=sizes.figure4_points,
                       table3_groups=sizes.table3_groups)
    full = lu2017.plan(collection)
    assert plan.figure4_depths == [full.figure4_depths[i] for i in (0, 2, 5)]  # evenly spaced, ends kept
    assert plan.table3_groups == 6 and plan.repetitions == 3
    assert full.table3_groups is None and len(full.figure4_depths) == 6


# ------------------------------------------------------------------------------------------ dataset "auto"


def _fake_trec8(root: Path) -> Path:
    (root / "trec8" / "runs").mkdir(parents=True)
    (root / "trec8" / "qrels.trec8.adhoc.txt").write_text("401 0 FT1 1\n")
    return root


def test_auto_is_trec8_when_its_files_are_found_else_synthetic(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALKIT_DATA", str(tmp_path / "nothing-here"))
    assert resolve_auto("auto") == "synthetic"
    monkeypatch.setenv("EVALKIT_DATA", str(_fake_trec8(tmp_path)))
    assert resolve_auto("auto") == "trec8"
    assert resolve_auto("auto", fast=True) == "synthetic"  # the tests' small collection is synthetic
    assert resolve_auto("synthetic") == "synthetic" and resolve_auto("/some/dir") == "/some/dir"


def test_the_batch_resolves_auto_before_it_names_the_outputs(tmp_path, monkeypatch):
    from evalkit.batch.pipeline import resolve_dataset

    monkeypatch.setenv("EVALKIT_DATA", str(tmp_path / "nothing-here"))
    assert resolve_dataset("auto") == "synthetic"
    monkeypatch.setenv("EVALKIT_DATA", str(_fake_trec8(tmp_path)))
    assert resolve_dataset("auto") == "trec8" and resolve_dataset("auto", fast=True) == "synthetic"


# ------------------------------------------------------------------------------------------ narrative


def test_narrative_fills_values_and_names_a_missing_one():
    assert narrative.text("{n} {noun}", n=1, noun=narrative.plural(1, "topic")) == "1 topic"
    assert narrative.plural(3, "topic") == "topics" and narrative.choose(False, "a", "b") == "b"
    with pytest.raises(KeyError, match="no value given for {capped}"):
        narrative.text("the cap bites {capped} topics")


def test_dataset_line_names_the_collection_and_preset():
    small = evalkit.load_dataset("synthetic", fast=True)
    line = narrative.dataset_description(small, "class")
    assert "small simulated collection" in line and "40 runs" in line and "20 topics" in line and "class" in line
    assert "23 of them contributed" in line  # 23 of the 40 runs are judged (the simulator's first 2 per group)


# ------------------------------------------------------------------------------------------ exercises


@pytest.fixture(scope="module")
def small():
    return evalkit.load_dataset("synthetic", fast=True)


def _context(exercise_id: str, small) -> tuple[dict, dict]:
    """(what the exercise cell passes to check, the notebook's names the solution reads), on the small synthetic
    collection (ids are the notebooks' numbers: 00 tour, 01 Yilmaz, 02 Soboroff, 03 Voorhees, 04 Lu, 05
    Carterette, 06 the budget planner)."""
    if exercise_id.startswith("00"):
        return {"collection": small, "depth": 5}, {"plan": SimpleNamespace(slider_depth=5)}
    if exercise_id.startswith("01"):
        fig2 = yilmaz2008.figure2(yilmaz2008.prepare(small), [10, 1], seed=1)
        return {"fig2": fig2, "k": 10}, {"figure2_depths": [10, 1]}
    if exercise_id.startswith("02"):
        from evalkit.judging.relevance_sampling import relevance_sample
        from evalkit.papers import soboroff2007

        sample = relevance_sample(small, phase1_depth=10, max_depth=40, seed=0)
        return {"sample": sample}, {"draws": soboroff2007.figure1_draws(small, sample, 3, seed=1)}
    if exercise_id.startswith("03"):
        gold = voorhees2014.prepare(small)
        plan = voorhees2014.plan(small)
        result = voorhees2014.run_experiment(gold, plan.strategies[:3], trials=2, seed=1, scheduler="serial")
        return {"result": result}, {}
    if exercise_id.startswith("04"):
        data = lu2017.prepare(small, depth=50, p=0.95)
        return {"t2": lu2017.table2(data, depths=[10], thetas=[0.0, 0.018]), "depth": 10}, {"first": 10}
    if exercise_id.startswith("05"):
        data = carterette2007.TrialData.from_collection(small, depth=100)
        results = carterette2007.run_experiment(data, n_trials=3, seed=5, scheduler="serial", progress=False,
                                                max_judgments=200)
        return {"results": results}, {"t2": carterette2007.table2(results)}
    if exercise_id.startswith("06"):
        from evalkit.papers import budget_planner
        from evalkit.planning.designs import Design, design_variances
        from evalkit.planning.validation import simulate_population, validate

        variances = budget_planner.full_variances(small, ["AP"], 200)
        designs = design_variances(small, "AP", 200, designs=[Design("pool", 5, 5), Design("uniform", 0.2, 100)],
                                   replicates=2, seed=1)
        population = simulate_population("shallow", n_topics=60, seed=3, runs_depth=30, n_runs=20, cache=False)
        validation = validate(population, "AP", designs=[Design("pool", 3, 3)], plan_topics=20, plan_draws=1,
                              draws=10, replicates=1, seed=2)
        return ({"variances": variances, "measure": "AP", "delta": 0.05, "alpha": 0.05, "power": 0.8},
                {"plan": SimpleNamespace(measure="AP", budget=20000.0), "designs": {"AP": designs},
                 "validation": validation})
    raise KeyError(exercise_id)


def _solve(exercise_id: str, passed: dict, names: dict):
    """Run the registered solution the way the solutions notebook does, with the notebook's names."""
    scope = {"evalkit": evalkit, "np": np, "pd": pd, "tour": tour, **passed, **names}
    exec(exercises.EXERCISES[exercise_id].solution, scope)
    return scope["answer"]


@pytest.fixture(scope="module")
def contexts(small):
    groups: dict = {}
    return {e: groups.setdefault(e[:2], _context(e, small)) for e in exercises.EXERCISES}


@pytest.mark.parametrize("exercise_id", list(exercises.EXERCISES))
def test_the_solution_is_right_and_a_wrong_answer_gets_the_hint(exercise_id, contexts):
    passed, names = contexts[exercise_id]
    exercise = exercises.EXERCISES[exercise_id]
    answer = _solve(exercise_id, passed, names)
    verdict = exercises.check(exercise_id, answer, **passed)
    assert verdict.right is True, verdict.message
    wrong = (float(answer) + 10 * exercise.tolerance + 1.0) if exercise.kind == "number" else "no-such-run"
    verdict = exercises.check(exercise_id, wrong, **passed)
    assert verdict.right is False and exercise.hint in verdict.message
    unanswered = exercises.check(exercise_id, None, **passed)
    assert unanswered.right is None and "not answered yet" in unanswered.message


def test_who_gets_hurt_is_a_run_that_did_not_build_the_pool(small):
    """00.2's lesson: at a depth of at least 10 a contributing run's P@10 cannot change (its top 10 is judged), so
    every run that loses P@10 did not build the pool, and the accepted answer is one of them."""
    from evalkit.measures.evaluation import score_matrix

    judged = np.asarray(small.judged_runs, bool)
    full = score_matrix(small, "P@10").mean(axis=1)
    shallow = tour.pooled_scores(small, 10, "P@10")[0].mean(axis=1)
    assert np.allclose(full[judged], shallow[judged]) and (shallow[~judged] < full[~judged] - 1e-12).any()
    expected = exercises.expected_answer("00.2", collection=small, depth=10)
    drop = full - shallow
    assert set(expected) == {small.run_names[i] for i in np.flatnonzero(np.isclose(drop, drop.max()))}
    assert not any(judged[small.run_index(r)] for r in expected)
    assert exercises.check("00.2", expected[-1].upper(), collection=small, depth=10).right
    contributing = small.run_names[int(np.flatnonzero(judged)[0])]
    assert exercises.check("00.2", contributing, collection=small, depth=10).right is False


@pytest.mark.parametrize("exercise_id", list(exercises.EXERCISES))
def test_hints_guide_without_giving_the_code(exercise_id):
    """No call, comparison, indexing or solution line in a hint (the solution is for the solutions notebook)."""
    exercise = exercises.EXERCISES[exercise_id]
    assert not re.search(r"\w\(|==|\*\*|\w\[|\.argmax|\.idxmin|sqrt", exercise.hint), exercise.hint
    for line in exercise.solution.split("\n"):
        assert line.strip() not in exercise.hint


def test_marks_are_drawn_not_emoji_and_survive_the_report_sanitizer():
    from evalkit.display.html_safety import sanitize_html

    emoji = re.compile("[\u2600-\u27bf\U0001f300-\U0001faff\ufe0f]")
    for right, word in ((True, "right"), (False, "not yet"), (None, "to do")):
        verdict = exercises.Verdict("00.1", right, "Exercise 00.1: a <message> & more")
        html, markdown = verdict._repr_html_(), verdict._repr_markdown_()
        assert not emoji.search(html) and not emoji.search(markdown), (html, markdown)
        assert f">{word}</strong>" in html and markdown.startswith(f"**[{word}]**")
        assert 'src="data:image/svg+xml;base64,' in html and "&lt;message&gt; &amp; more" in html
        assert sanitize_html(html) == html  # the offline report keeps the drawn mark as it is


def test_the_solutions_notebook_answers_every_question_and_links_to_solutions(tmp_path):
    from evalkit.classroom.model_answers import answers_for

    tour = next(p for p in NOTEBOOKS if p.stem == "00_tour")
    solved = exercises.solution_notebook(tour)
    cells = solved["cells"]
    tags = [c["metadata"].get("tags", []) for c in cells]
    first = next(i for i, t in enumerate(tags) if "model-answers" in t)
    answers = answers_for(tour.stem)
    assert len(cells) - first - 1 == len(answers) and all("model-answer" in t for t in tags[first + 1:])
    assert "".join(cells[first + 1]["source"]) == f'exercises.model_answer("00.1", {answers[0].context})'
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    assert "](#glossary)" in text  # a link inside the notebook stays
    student = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "see [the tour](00_tour.ipynb#glossary)"}]}
    path = tmp_path / "01_x.ipynb"
    path.write_text(json.dumps(student))
    linked = "".join(exercises.solution_notebook(path)["cells"][1]["source"])
    assert linked == "see [the tour](00_tour_solutions.ipynb#glossary)"


def test_computed_model_answers_state_the_numbers_of_the_run(contexts):
    """Each model answer that states numbers, rendered the way the solutions notebook calls it (its ``context``
    evaluated with the notebook's names)."""
    from evalkit.classroom.model_answers import MODEL_ANSWERS

    computed = [a for a in MODEL_ANSWERS.values() if a.compute is not None]
    assert {a.id[:2] for a in computed} == {"00", "01", "02", "03", "04", "05", "06"}
    for answer in computed:
        passed, names = contexts[next(e for e in exercises.EXERCISES if e[:2] == answer.id[:2])]
        context = eval(f"dict({answer.context})", {**passed, **names})
        text = exercises.model_answer(answer.id, **context)
        assert text.startswith(f"**{answer.id.split('.')[1]}. {answer.title}**") and "{" not in text, text
        assert re.search(r"\d", text), f"{answer.id}: states no number"
    tau = exercises.model_answer("00.1", collection=contexts["00.1"][0]["collection"], depth=5)
    expected = exercises.expected_answer("00.1", collection=contexts["00.1"][0]["collection"], depth=5)
    assert f"{expected:.3f} for P@10" in tau


def test_expected_values_are_computed_from_the_data():
    """03.2 on a hand-made sample table; 00.2 on a collection where one run is built to lose the most."""
    table = pd.DataFrame({"capped": [True, False, True], "depth_uncapped": [150, 80, 120], "depth": [100, 80, 100]})
    sample = type("Sample", (), {"table": table})()
    assert exercises.expected_answer("02.2", sample=sample) == 2
    assert exercises.check("02.2", 2, sample=sample).right and not exercises.check("02.2", 3, sample=sample).right
    t2 = pd.DataFrame({"depth": [10, 10, 10, 10, 20], "estimator": ["LB", "RM", "Lb", "Lb", "Lb"],
                       "theta": [np.nan, np.nan, 0.0, 0.018, 0.018], "rmse": [0.05, 0.09, 0.01, 0.04, 0.001]})
    assert exercises.expected_answer("04.1", t2=t2, depth=10) == "Lb"  # 0.04 at theta 0.018 beats LB's 0.05
    assert exercises.check("04.1", "lb ", t2=t2, depth=10).right  # case and spaces do not matter


def test_a_number_within_tolerance_is_right_and_nan_is_never_right():
    table = pd.DataFrame({"capped": [True]})
    sample = type("Sample", (), {"table": table})()
    assert not exercises.check("02.2", "one", sample=sample).right
    with pytest.raises(KeyError, match="no exercise '9.9'"):
        exercises.check("9.9", 1)


def _exercise_cells(path: Path) -> list[str]:
    cells = json.loads(path.read_text())["cells"]
    return ["".join(c["source"]) for c in cells if exercises.EXERCISE_TAG in c.get("metadata", {}).get("tags", [])]


def test_every_notebook_has_checkable_exercises_all_registered_and_unanswered():
    used = set()
    for path in NOTEBOOKS:
        cells = _exercise_cells(path)
        assert cells, f"{path.name}: no cell tagged 'exercise'"
        for source in cells:
            ids = re.findall(r"exercises\.check\(\"([^\"]+)\"", source)
            assert len(ids) == 1 and ids[0] in exercises.EXERCISES, source
            assert exercises.ANSWER_LINE in source, f"{path.name}: the student version must hold no answer"
            used.add(ids[0])
    assert used == set(exercises.EXERCISES), "registered exercises that no notebook asks"


def test_solutions_are_written_beside_not_into_the_students_notebooks(tmp_path):
    sources = {p: p.read_bytes() for p in NOTEBOOKS}
    result = subprocess.run([sys.executable, "-m", "evalkit.cli", "notebooks", "solutions", "--out",
                             str(tmp_path / "sol")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    written = sorted((tmp_path / "sol").glob("*_solutions.ipynb"))
    assert [p.name for p in written] == [f"{p.stem}_solutions.ipynb" for p in NOTEBOOKS]
    for path in NOTEBOOKS:
        assert path.read_bytes() == sources[path]  # the students' notebooks are untouched
        solved = _exercise_cells(tmp_path / "sol" / f"{path.stem}_solutions.ipynb")
        assert solved and all(exercises.ANSWER_LINE not in s and "# solution" in s for s in solved)
    assert not list((tmp_path / "sol").glob(".*"))  # no temporary file left behind


# ------------------------------------------------------------------------------------------ notebook text


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_top_says_what_a_student_needs(path):
    cells = json.loads(path.read_text())["cells"]
    parameters = next("".join(c["source"]) for c in cells if "parameters" in c["metadata"].get("tags", []))
    assert 'dataset = "auto"' in parameters and 'preset = "paper"' in parameters and "fast = False" in parameters
    first = "".join(cells[0]["source"])
    for heading in ("**You will learn**", "**Prerequisites**", "**Time**"):
        assert heading in first, f"{path.name}: no {heading} at the top"
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    assert "narrative.show_dataset(collection" in code, f"{path.name}: does not say which dataset it ran on"
    student_text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    for word in ("papermill", "record_claims", "make reproduce"):
        assert word not in student_text, f"{path.name}: build word {word!r} in the student text"


def test_the_tour_has_the_glossary():
    cells = json.loads(NOTEBOOKS[0].read_text())["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    assert "## Glossary" in text
    for term in ("judged run", "R̂", "`[1-10]@1`", "RBP", "bpref", "Acc%", "γ", "EMAP", "W̄", "titlestat"):
        assert term in text, f"glossary lacks {term}"


def test_lu_explorer_starts_where_the_estimators_differ(small):
    """Issue 13 item 5: the explorer's first picture showed every estimator at one value (a topic with gamma <=
    theta, where every gated estimator is LB)."""
    data = lu2017.prepare(small, depth=50, p=0.95)
    cache: dict = {}
    run, topic = lu2017.default_selection(data, 10, cache=cache, theta=0.018)
    est = lu2017.explorer_fit(data, 10, data.p, cache)["estimates"]
    row = int(np.flatnonzero(np.flatnonzero(est.runs) == small.run_index(run))[0])
    t = list(small.topics).index(topic)
    values = {name: float(est.score(name, 0.018)[row, t]) for name in ("LB", "Lin", "Wei", "La", "Lb")}
    spreads = np.ptp(np.stack([est.score(n, 0.018)[row] for n in values]), axis=0)
    assert spreads.max() > 0 and np.isclose(max(values.values()) - min(values.values()), spreads.max())


def test_carterette_findings_with_a_confident_wrong_zero_judgment_trial_and_low_overlap_pairs(small, monkeypatch):
    """Notebook 05 failed on TREC-8 (300 trials) with 'Too many indexers': the most confident wrong zero-judgment
    trial overwrote the low-overlap accuracy table the next paragraph reads."""
    data = carterette2007.TrialData.from_collection(small, depth=100)
    results = carterette2007.run_experiment(data, n_trials=3, seed=5, scheduler="serial", progress=False,
                                            max_judgments=200)
    assert (results.pairs.overlap < 0.1).any()
    zero = pd.DataFrame({"trial": [0, 1], "runs": ["a vs b", "c vs d"], "P(dMAP < 0)": [0.97, 0.02],
                         "true dMAP": [0.01, -0.02], "sign right": [0.0, 0.0], "shortest list": [11, 12]})
    # findings_markdown reads zero_judgment_trials where it lives now: the package's findings module
    findings_module = importlib.import_module("evalkit.papers.carterette2007.findings")
    monkeypatch.setattr(findings_module, "zero_judgment_trials", lambda results: zero)
    text = carterette2007.findings_markdown(results, "synthetic")
    assert "The most confident wrong one, c vs d, had P(ΔMAP < 0) = 0.02" in text
    assert "**The worst case.**" in text


def test_the_batch_takes_a_preset_for_every_notebook_and_refuses_an_unknown_one(tmp_path):
    """``evalkit notebooks run -p preset class``: the tour (the quickest notebook) through the front door, on the
    small synthetic collection; a preset that does not exist is refused before the kernel starts, naming the
    presets the notebook declares."""
    from batch_helpers import run_cli

    ok = run_cli("notebooks", "run", "00_tour", "--dataset", "synthetic", "--fast", "-p", "preset", "class",
                 "--out", tmp_path / "ok", cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr[-2000:]
    record = json.loads((tmp_path / "ok" / "batch.json").read_text())
    assert record["parameters"] == {"preset": "class"}
    executed = json.loads((tmp_path / "ok" / "00_tour.ipynb").read_text())
    injected = next("".join(c["source"]) for c in executed["cells"]
                    if "injected-parameters" in c["metadata"].get("tags", []))
    assert 'preset = "class"' in injected
    bad = run_cli("notebooks", "run", "00_tour", "--dataset", "synthetic", "--fast", "-p", "preset", "lecture",
                  "--out", tmp_path / "bad", cwd=tmp_path)
    assert bad.returncode == 2 and not (tmp_path / "bad").exists()  # refused before the kernel starts
    assert bad.stderr.strip().splitlines()[-1] == (
        "evalkit: error: 00_tour: parameter preset = 'lecture' is not one of 'class', 'paper' (declared: one of "
        "\"class\", \"paper\")")


def test_log_axis_ticks_label_plotted_values_only():
    """01 Yilmaz's Figure 3 in a small sweep: matplotlib labelled minor ticks on a log axis spanning under two decades, and
    they overlapped; the axis is labelled at (a spread of) the plotted values instead."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from evalkit.display import plots
    fig, ax = plt.subplots()
    values = [3.4, 6.0, 13.0, 23.0, 44.0, 99.0, 3.4]
    ax.plot(values, values)
    plots.log_axis_ticks(ax, values)
    fig.canvas.draw()
    assert ax.get_xscale() == "log"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["3.4", "6", "13", "23", "44", "99"]
    assert list(ax.xaxis.get_minorticklocs()) == []
    many = np.geomspace(1, 100, 20)
    plots.log_axis_ticks(ax, many, max_ticks=5)
    ticks = ax.get_xticks()
    assert len(ticks) <= 5 and ticks[0] == many[0] and ticks[-1] == many[-1]
    plt.close(fig)
