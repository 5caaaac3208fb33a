"""RBP's two names (issue 26 item 5): ``RBP(p=x)`` is trec_eval 10.0's graded ``rbp`` (checked against the real
trec_eval, built from ../shared/tools, at full precision, on a graded collection), ``RBP(p=x,rel=1)`` the binary
original; the two agree on binary qrels and differ on graded ones; a hand-computed case for each."""

from __future__ import annotations

import numpy as np
import pytest
from trec_eval_builds import build, run

import evalkit
from evalkit.data.simulator import write_collection
from evalkit.measures import describe_measures, kernels


def test_hand_computed_graded_and_binary():
    grades = np.array([[[2, 0, 1, -2147483647]]])  # grade 2, 0, 1, unjudged
    p = 0.5
    assert kernels.graded_rbp(grades, p, np.array([2.0]))[0, 0] == pytest.approx(0.5 * (1 + 0.5 * 0.25))
    assert kernels.rbp(grades, p)[0][0, 0] == pytest.approx(0.5 * (1 + 0.25))
    # a topic whose top grade is 1 is not rescaled: graded = binary
    binary = np.array([[[1, 0, 1]]])
    assert kernels.graded_rbp(binary, p, np.array([1.0]))[0, 0] == kernels.rbp(binary, p)[0][0, 0]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    return write_collection(tmp_path_factory.mktemp("rbp") / "shallow", "shallow")


def test_graded_rbp_equals_trec_eval_10_rbp_at_full_precision(graded, tmp_path):
    binary = build("10.0", tmp_path, full_precision=True)
    qrels = next(graded.glob("qrels*"))
    runs = sorted((graded / "runs").iterdir())[:6]
    worst, compared = 0.0, 0
    for p in ("0.5", "0.8", "0.95"):
        ours = evalkit.evaluate(str(qrels), [str(r) for r in runs], [f"RBP(p={p})"])
        ours = ours[ours.topic != "all"].set_index(["run", "topic"]).value
        for r in runs:
            out = run(binary, "-q", "-m", f"rbp.p={p}", "-m", "runid", qrels, r).stdout.decode()
            lines = [line.split("\t") for line in out.splitlines()]
            name = next(v.strip() for m, t, v in lines if m.strip() == "runid")
            for m, t, v in lines:
                if m.strip().startswith("rbp") and t.strip() != "all":
                    worst = max(worst, abs(ours[(name, t.strip())] - float(v)))
                    compared += 1
    assert compared > 100 and worst <= 1e-12


def test_the_two_names_agree_on_binary_qrels_and_differ_on_graded(graded):
    both = ["RBP(p=0.8)", "RBP(p=0.8,rel=1)"]
    on_graded = evalkit.evaluate(None, evalkit.load_dataset(str(graded)), both)
    means = on_graded[on_graded.topic == "all"].groupby("measure").value.mean()
    assert means["RBP(p=0.8,rel=1)"] > means["RBP(p=0.8)"]  # grade 1 is gain 1 against 0.5
    synthetic = evalkit.load_dataset("synthetic", fast=True)
    on_binary = evalkit.evaluate(None, synthetic, both).pivot_table(index=["run", "topic"], columns="measure",
                                                                      values="value")
    np.testing.assert_array_equal(on_binary[both[0]], on_binary[both[1]])


def test_evalkit_measures_says_which_equals_what():
    text = describe_measures().loc["RBP", "description"]
    assert "trec_eval 10.0's rbp" in text and "binary" in text and "rel=r" in text
    assert describe_measures().loc["RBP", "parameters"] == "p=0.8, rel (optional)"
