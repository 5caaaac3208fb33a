"""Claim grading (evalkit.claims.grading): the paper's collection beside the kit's, direction-only verdicts, NaN never
rated, verdicts withheld on small collections, defaults for rows that name no paper collection."""

from __future__ import annotations

import pandas as pd
import pytest

from evalkit.claims import (
    THIS_COLLECTION,
    Claim,
    default_paper_dataset,
    grade,
    record_claims,
    same_collection,
)

TREC8 = {"name": "trec8", "n_runs": 129, "n_topics": 50}
SHALLOW = {"name": "shallow (simulated)", "n_runs": 143, "n_topics": 30}
TINY = {"name": "tiny (simulated)", "n_runs": 3, "n_topics": 5}


def verdict(claim, context):
    return grade(claim, context)["verdict"]


def test_same_collection_keeps_the_notebooks_rating():
    c = Claim("Voorhees 2014", "1stratum is the worst", "worst", "worst: 1stratum", "trec8", "yes")
    assert grade(c, TREC8) == {"paper_dataset": "TREC-8", "dataset": "trec8", "verdict": "yes",
                               "scope": "paper"}
    assert verdict(Claim("Voorhees 2014", "x", "y", "z", "", "partly"), TREC8) == "partly"  # dataset: the loaded


def test_other_collection_is_not_comparable_or_direction_only():
    value = Claim("Voorhees 2014", "x", "0.8", "0.9", "shallow (simulated)", "yes")
    direction = Claim("Voorhees 2014", "x", "a > b", "a > b", "shallow (simulated)", "no", kind="direction")
    assert verdict(value, SHALLOW) == "not comparable"
    assert verdict(direction, SHALLOW) == "direction only: no"
    assert verdict(Claim("Soboroff 2007", "tau", "0.8", "0.97", "trec8", "partly"), TREC8) == "not comparable"


def test_nan_is_never_rated():
    for text in ("tau nan", "r = NaN over 1 topic", "RMSE inf", "-inf", "mean -Infinity"):
        assert verdict(Claim("Voorhees 2014", "x", "1", text, "trec8", "yes"), TREC8) == "not rated: NaN", text
    for text in ("infAP 0.31", "infNDCG@100 0.5", "information: 3"):
        assert verdict(Claim("Voorhees 2014", "x", "1", text, "trec8", "yes"), TREC8) == "yes", text


def test_small_collections_are_withheld_with_the_numbers():
    c = Claim("Voorhees 2014", "x", "1", "1", "tiny (simulated)", "yes", kind="direction")
    assert verdict(c, TINY) == "withheld: 3 runs (< 10)"
    assert verdict(c, {**TINY, "n_runs": 12}) == "withheld: 5 topics (< 20)"
    exact = Claim("trec_eval", "equal", "1e-9", "0", "tiny (simulated)", "yes", paper_dataset=THIS_COLLECTION,
                  min_runs=1, min_topics=1)
    assert verdict(exact, TINY) == "yes"
    # a value computed on another collection (a toy example) is not judged by the loaded collection's size
    toy = Claim("Carterette 2007", "toy", "0.056", "0.056", "toy example", "yes", paper_dataset="toy example")
    assert verdict(toy, TINY) == "yes"


def test_unrated_rows_stay_unrated():
    assert verdict(Claim("Soboroff 2007", "titlestat", "0.93", "not computable", "trec8", ""), TREC8) == "not rated"


@pytest.mark.parametrize("paper, text, expected", [
    ("Voorhees 2014", "Table 2", "TREC-8"),
    ("Yilmaz, Kanoulas & Aslam 2008", "Fig. 2", "TREC-8"),
    ("Soboroff 2007", "tau", "TB06"),
    ("Carterette 2007", "RTC ranks better", "pooled ad hoc 94+96-99"),
    ("Carterette 2007", "accuracy in each bin (Table 5, ad hoc 99)", "ad hoc 99"),
    ("Lu, Moffat & Culpepper 2017", "Table 2", "TREC-9, TREC-10, Rob04, TB04, TB05, TB06"),
    ("Someone 2020", "x", ""),
])
def test_default_paper_collection(paper, text, expected):
    assert default_paper_dataset(paper, text) == expected


def test_collection_names_and_aliases():
    assert same_collection("TREC-8", "trec8") and same_collection("ad hoc 99", "trec8")
    assert same_collection("TREC-9, TREC-10, Rob04", "robust04")
    assert not same_collection("TREC-8", "synthetic") and not same_collection("", "trec8")
    assert same_collection(THIS_COLLECTION, "anything")
    unknown = Claim("Someone 2020", "x", "1", "1", "trec8", "yes")
    assert grade(unknown, TREC8) == {"paper_dataset": "unknown", "dataset": "trec8", "verdict": "not comparable",
                                     "scope": "paper"}


def test_rows_built_like_notebooks_02_and_05_are_graded_without_edits():
    # positional construction, no paper collection, no kind: the paper's default collection, graded as a value
    yilmaz = Claim("Yilmaz, Kanoulas & Aslam 2008", "Fig. 2: share judged", "23.1%", "23.3%", "synthetic", "yes")
    carterette = Claim("Carterette 2007", "RTC's confidence can be trusted (Table 5, ad hoc 99)", "0.9", "0.91",
                       dataset="trec8", agrees="yes", note="kit prior")
    assert verdict(yilmaz, {"name": "synthetic", "n_runs": 40, "n_topics": 20}) == "not comparable"
    assert verdict(yilmaz, TREC8 | {"name": "trec8"}) == "not comparable"  # the row's own dataset is synthetic
    assert verdict(carterette, TREC8) == "yes"


def test_record_claims_grades_lists_and_frames():
    rows = [Claim("Voorhees 2014", "a", "1", "nan", "trec8", "yes"),
            Claim("Soboroff 2007", "b", "1", "2", "trec8", "no", kind="direction")]

    class Loaded:
        name, n_runs, n_topics = "trec8", 129, 50

    frame = record_claims(rows, display=False, collection=Loaded())
    assert list(frame.verdict) == ["not rated: NaN", "direction only: no"]
    assert list(frame.paper_dataset) == ["TREC-8", "TB06"]
    again = record_claims(pd.DataFrame([{"paper": "Voorhees 2014", "claim": "c", "paper_value": "1",
                                         "kit_value": "2", "dataset": "trec8", "agrees": "partly"}]),
                          display=False, collection=Loaded())
    assert again.verdict.tolist() == ["partly"]


def test_kind_is_checked():
    with pytest.raises(ValueError, match="Claim.kind must be 'value' or 'direction'"):
        Claim("p", "c", "1", "1", kind="trend")
