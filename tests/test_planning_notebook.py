"""Notebook 06 (the budget planner) on collections shaped unlike TREC-8, as a reviewer brings them (the same
collections as tests/test_reviewer_collections.py): it ends ok on the shallow one with its plan line, and stops
with NeedsNotMet and one sentence on the tiny one (5 topics: too few to estimate a variance from) and the one
that says nothing about its pools (no judged run). Claims: no plain rating of a paper figure from another
collection, none on NaN. (test_notebooks.py runs it on the synthetic default.)"""

from __future__ import annotations

import pandas as pd
import pytest

from evalkit.batch.pipeline import NOTEBOOK_DIR, run_notebook
from evalkit.claims import THIS_COLLECTION, read_claims, same_collection
from evalkit.data.simulator import write_collection

NOTEBOOK = NOTEBOOK_DIR / "06_budget_planner.ipynb"
COLLECTIONS = {
    "shallow": ("shallow", {"n_runs": 40, "depth": 50}, "ok", ""),
    "tiny": ("tiny", {}, "NeedsNotMet", "This notebook needs at least 10 topics"),
    "unmarked": ("unmarked", {"n_runs": 40, "depth": 50}, "NeedsNotMet", "This notebook needs at least 2 judged runs"),
}
RATINGS = {"yes", "no", "partly"}


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("reviewer-06")
    return {name: write_collection(root / name, preset, **options)
            for name, (preset, options, _, _) in COLLECTIONS.items()}


@pytest.mark.notebooks
@pytest.mark.parametrize("collection", list(COLLECTIONS))
def test_planner_runs_or_says_why_not(folders, collection, tmp_path):
    from papermill.exceptions import PapermillExecutionError

    target = tmp_path / NOTEBOOK.name
    expected, sentence = COLLECTIONS[collection][2], COLLECTIONS[collection][3]
    try:
        run_notebook(NOTEBOOK, target, dataset=str(folders[collection]), fast=True)
        status = "ok"
    except PapermillExecutionError as error:
        status = error.ename
        assert error.ename == "NeedsNotMet", f"{collection}: {error.ename}: {error.evalue}"
        assert error.evalue.startswith(sentence), error.evalue
        assert error.evalue.count(". ") <= 2
    assert status == expected
    if status != "ok":
        return
    import nbformat

    notebook = nbformat.read(str(target), as_version=4)
    # the plan line is displayed (display(plan)), so it is a display output's text/plain, not printed text
    text = "\n".join(o.get("text") or o.get("data", {}).get("text/plain", "") for c in notebook.cells
                     for o in c.get("outputs", []))
    assert "06_budget_planner on shallow (simulated): samples drawn from the depth-7 pool" in text
    assert "validation on the simulator's 'shallow' population" in text
    claims = read_claims(target)
    assert len(claims) > 0
    nan = claims.kit_value.str.contains(r"(?i)(?<![a-z])(?:nan|inf)(?![a-z])")
    assert (claims.verdict[nan] == "not rated: NaN").all()
    foreign = ~pd.Series([same_collection(p, d) for p, d in zip(claims.paper_dataset, claims.dataset)], claims.index)
    assert not claims.verdict[foreign].isin(RATINGS).any()
    plain = claims.verdict.isin(RATINGS)
    assert (claims.paper_dataset[plain] == THIS_COLLECTION).all()
    other = claims.verdict[~plain & ~nan]
    assert other.str.startswith(("direction only", "withheld", "not rated", "inconclusive")).all(), other.tolist()
    # every row read by a written rule; the validation's rows (the kit's own check) are beyond the papers
    assert (claims.rule.fillna("").str.len() > 0).all()
    validation = claims.claim.str.startswith(("a plan delivers", "the CIs cover"))
    assert validation.any() and (claims.scope[validation] == "beyond").all() and \
        (claims.scope[~validation] == "paper").all()
    assert claims.interval[validation].str.contains("bootstrap over").all()
