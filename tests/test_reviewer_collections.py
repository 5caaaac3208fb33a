"""Notebooks 00-05 on collections shaped unlike TREC-8, as a reviewer would bring them: each ends ok
(with its defaults scaled and the plan line printed) or stops with NeedsNotMet and one sentence; no claim is rated
on NaN, and no verdict on a paper figure from another collection is given as a plain yes/no.

The collections are simulated and written as TREC files (evalkit.data.simulator.write_collection) into a temporary
folder: a shallow-pool one (depth-7 pools from one run per group, grades 0-2, 30 topics; 40 runs here to keep CI
short, 143 in the preset), a tiny one (3 runs, 5 string-id topics) and the shallow files with nothing said about
the pools (no judged run). Budget: about 4 minutes of CI on 2 cores (18 papermill runs, fast mode)."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from evalkit.batch.pipeline import NOTEBOOK_DIR, run_notebook
from evalkit.claims import THIS_COLLECTION, read_claims, same_collection
from evalkit.data.simulator import write_collection

NOTEBOOKS = ["00_tour", "03_voorhees2014_sampling_strategies", "01_yilmaz2008_inferred_ap_ndcg",
             "02_soboroff2007_pooled_vs_sampled", "04_lu2017_shallow_pools", "05_carterette2007_robust_collections"]
#: how the sentence of a notebook that cannot run on the unmarked collection starts (05 asks the qrels about any
#: run's documents, so it needs the judged depth rather than the judged runs)
UNMARKED_NEED = {"05_carterette2007_robust_collections": "This notebook needs to know how deep the qrels go"}
COLLECTIONS = {
    "shallow": ("shallow", {"n_runs": 40, "depth": 50}, "ok"),
    "tiny": ("tiny", {}, "ok"),
    "unmarked": ("unmarked", {"n_runs": 40, "depth": 50}, "NeedsNotMet"),
}
RATINGS = {"yes", "no", "partly"}
#: a line of output that mentions TREC-8 must say whose statement it is: the paper's (a claims row names its source
#: or the paper's table or figure, a table column says "paper"), or the data README's; on another collection nothing
#: is said of TREC-8 as fact
TREC8 = re.compile(r"TREC[- ]?8(?![0-9])")
ATTRIBUTED = re.compile(r"paper|data README|Voorhees|Yilmaz|Soboroff|Carterette|Lu, Moffat|Webber|Sakai|Buckley|"
                        r"\b(?:Table|Figure|Fig\.|Sec\.) ?[0-9]")
#: facts about TREC-8's data (its runs, topics, judgments, pool depth) that are false on another collection unless
#: the line attributes them
TREC8_FACTS = re.compile(r"\b129 runs|\b50 topics|topics 401|86,?830|4,?728 relevant|\b71 (?:judged )?runs|"
                         r"(?:cut|pooled|judged) (?:at|to) (?:depth )?100\b|Everything is run on TREC-8")


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("reviewer")
    return {name: write_collection(root / name, preset, **options)
            for name, (preset, options, _) in COLLECTIONS.items()}


def _output_texts(path) -> list[str]:
    import nbformat

    notebook = nbformat.read(str(path), as_version=4)
    # printed text, and the text of displayed objects (a plan is displayed, not printed; a computed sentence is
    # displayed Markdown)
    texts = [o.get("text") or o.get("data", {}).get("text/markdown") or o.get("data", {}).get("text/plain", "")
             for c in notebook.cells for o in c.get("outputs", [])]
    return [t for t in texts if t]


def _outputs(path) -> str:
    return "\n".join(_output_texts(path))


def unattributed_trec8(text: str) -> list[str]:
    """The lines of one output that state something about TREC-8 (or its data's numbers) without saying whose
    statement it is: on a collection other than TREC-8 such a line is a TREC-8-only sentence printed as fact (issue
    26.6). A table whose header (its first two lines) names the paper attributes every row under it."""
    lines = text.splitlines()
    if any(ATTRIBUTED.search(line) for line in lines[:2]):
        return []
    return [line.strip() for line in lines
            if (TREC8.search(line) or TREC8_FACTS.search(line)) and not ATTRIBUTED.search(line)]


def test_unattributed_trec8_finds_what_it_should():
    assert unattributed_trec8("Everything is run on TREC-8 and on the synthetic default.\nok") == \
        ["Everything is run on TREC-8 and on the synthetic default."]
    assert unattributed_trec8("Lists are cut at 100 documents.") == ["Lists are cut at 100 documents."]
    assert unattributed_trec8("the 129 runs of the collection") == ["the 129 runs of the collection"]
    assert unattributed_trec8("the paper's 50 of TREC-8's 100, scaled to the judged depth 7") == []
    assert unattributed_trec8("Voorhees 2014  Table 2 (TREC-8): pooling ...  TREC-8") == []
    assert unattributed_trec8("TREC-80 and 8 topics") == []
    # a table whose header names the paper's column attributes its rows; without that header the row is flagged
    table = "                 paper (TREC-8) kit (shallow)\ndepth-7 pool (judgments)  86,830  1,061"
    assert unattributed_trec8(table) == []
    row = "depth-7 pool (judgments)  86,830  1,061"
    assert unattributed_trec8(f"x\ny\n{row}") == [row]


@pytest.mark.notebooks
@pytest.mark.parametrize("collection", list(COLLECTIONS))
@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_notebook_runs_or_says_why_not(folders, collection, notebook, tmp_path):
    from papermill.exceptions import PapermillExecutionError

    source = NOTEBOOK_DIR / f"{notebook}.ipynb"
    target = tmp_path / source.name
    try:
        run_notebook(source, target, dataset=str(folders[collection]), fast=True)
        status = "ok"
    except PapermillExecutionError as error:
        status = error.ename
        assert error.ename == "NeedsNotMet", f"{notebook} on {collection}: {error.ename}: {error.evalue}"
        assert error.evalue.startswith(UNMARKED_NEED.get(notebook, "This notebook needs at least 2 judged runs"))
        assert error.evalue.count(". ") <= 2
    assert status == COLLECTIONS[collection][2]
    text = _outputs(target)
    assert "evalkit: " in text  # the load line: judged runs, judged depth, the rule
    unattributed = [line for output in _output_texts(target) for line in unattributed_trec8(output)]
    assert unattributed == [], f"{notebook} on {collection}: TREC-8 said of another collection"
    if status != "ok":
        return
    assert f"{notebook[:2]}_" in text and " on " in text  # the plan line
    claims = read_claims(target)
    assert len(claims) > 0
    nan = claims.kit_value.str.contains(r"(?i)(?<![a-z])(?:nan|inf)(?![a-z])")
    assert (claims.verdict[nan] == "not rated: NaN").all()
    foreign = ~pd.Series([same_collection(p, d) for p, d in zip(claims.paper_dataset, claims.dataset)], claims.index)
    assert not claims.verdict[foreign].isin(RATINGS).any(), claims[foreign & claims.verdict.isin(RATINGS)]
    assert claims.paper_dataset.str.len().gt(0).all()
    # no paper figure comes from the reviewer's collection: a plain rating compares with a reference computed on it
    # (THIS_COLLECTION) or is about something else the paper and the kit both computed (Carterette's toy example)
    loaded = claims.dataset == f"{COLLECTIONS[collection][0]} (simulated)"  # collection.json's name
    assert loaded.any()
    plain = claims.verdict.isin(RATINGS)
    assert (claims.paper_dataset[plain & loaded] == THIS_COLLECTION).all(), claims[plain & loaded]
    if collection == "tiny":  # 3 runs, 5 topics: nothing computed on it is rated
        rated = claims.verdict.isin(RATINGS) | claims.verdict.str.startswith("direction only")
        assert (claims.paper_dataset[rated & loaded] == THIS_COLLECTION).all()
