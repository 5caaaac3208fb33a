"""A qrels topic no run retrieved a document for (the tester's 'ghost', D4): the collection keeps every qrels topic
and every run scores 0 on it, as trec_eval -c does; the load line names it and says so, and the tour's trec_eval
check counts only the topics it compares. Built as files on disk and loaded through load_dataset."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evalkit


@pytest.fixture()
def ghost_folder(tmp_path, monkeypatch):
    """runs r1-r3 rank 3 documents on topics a and b; the qrels judge each run's rank 1 relevant and rank 2 not, and
    add topic 'ghost' (one relevant document) that no run has a line for."""
    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "coll"
    (folder / "runs").mkdir(parents=True)
    for run in ("r1", "r2", "r3"):
        (folder / "runs" / f"{run}.txt").write_text("".join(f"{t} Q0 {t}-{run}-{r} {r} {10 - r} {run}\n"
                                                            for t in "ab" for r in (1, 2, 3)))
    (folder / "qrels.txt").write_text("".join(f"{t} 0 {t}-{run}-1 1\n{t} 0 {t}-{run}-2 0\n"
                                              for t in "ab" for run in ("r1", "r2", "r3")) + "ghost 0 g-1 1\n")
    (folder / "collection.json").write_text('{"judged_depth": 2}')
    return folder


def test_a_qrels_topic_no_run_retrieved_is_named_and_scored_0(ghost_folder, capsys):
    """By hand: on a and b each run finds 1 of the 3 relevant documents at rank 1, AP 1/3; on ghost AP 0; the
    collection's MAP is (1/3 + 1/3 + 0) / 3 = 2/9, trec_eval's (without -c) 1/3. The load line names 'ghost'."""
    collection = evalkit.load_dataset(str(ghost_folder))
    assert list(collection.topics) == ["a", "b", "ghost"]
    assert collection.metadata["topics_without_runs"] == ["ghost"]
    ap = evalkit.score_matrix(collection, "AP")
    np.testing.assert_allclose(ap, [[1 / 3, 1 / 3, 0]] * 3)
    assert ap[0].mean() == pytest.approx(2 / 9)
    assert (" 1 qrels topic no run retrieved a document for ('ghost'): kept, every run scores 0 on it (as trec_eval "
            "-c does), so means over the collection's topics count it; trec_eval and evalkit eval without -c leave "
            "it out.") in capsys.readouterr().err
    (ghost_folder / "qrels.txt").write_text((ghost_folder / "qrels.txt").read_text().replace("ghost 0 g-1 1\n", ""))
    assert "topics_without_runs" not in evalkit.load_dataset(str(ghost_folder)).metadata
    assert "no run retrieved" not in capsys.readouterr().err


def test_the_tour_trec_eval_check_counts_the_topics_it_compares(ghost_folder):
    """trec_eval scores a run only on topics it retrieved documents for: 3 runs x 2 topics = 6 (run, topic) pairs
    x 6 measures = 36 scores, and the tour's sentence says 2 of 3 topics, where it said '3 runs x 3 topics'."""
    from evalkit.papers import tour

    collection = evalkit.load_dataset(str(ghost_folder))
    agreement = tour.trec_eval_agreement(collection)
    assert agreement["checked"], agreement.get("reason")
    assert (agreement["topics"], agreement["n_topics"], agreement["run_topics"], agreement["pairs"]) == (2, 3, 6, 36)
    study = pd.DataFrame({"depth": [1, 2], "judgments": [6, 12], "kendall tau": [1.0, 1.0],
                          "share of qrels": [0.5, 1.0]})
    rows = tour.claims(collection, study, {"shallow_depth": 1, "max_depth": 2}, agreement)
    text = next(row.kit_value for row in rows if row.claim.endswith("equal trec_eval"))
    assert "over 36 scores: 6 (run, topic) pairs x 6 measures, from 3 of 3 runs and 2 of 3 topics (trec_eval " \
           "scores a run on the topics it retrieved documents for)" in text
