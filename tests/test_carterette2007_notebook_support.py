"""Tests for the notebook helpers of evalkit.experiments.carterette2007 (toy example, text summaries, figure,
widget)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalkit.experiments import carterette2007 as exp
from evalkit.measures import average_precision

from test_confidence import toy_collection


def test_toy_distribution_matches_the_paper_where_the_paper_is_right():
    table = exp.toy_distribution()
    assert len(table) == 8 and table["probability"].sum() == pytest.approx(1.0)
    by_set = table.set_index("relevant")
    assert by_set.loc["none", "probability"] == pytest.approx(exp.PAPER_TOY["P(AP = 0)"])  # 0.036, as printed
    assert by_set.loc["B, C", "AP"] == pytest.approx(0.5 * (1 + 2 / 3))  # the paper's worked AP
    # P(AP = 1/2) is 0.024 (A alone); the paper's 0.056 is A and C relevant, B not, whose AP is 7/12
    assert table.loc[table["AP"] == 0.5, "probability"].sum() == pytest.approx(0.024)
    assert by_set.loc["A, C", "probability"] == pytest.approx(exp.PAPER_TOY["P(AP = 1/2)"])
    assert by_set.loc["A, C", "AP as a fraction"] == "7/12"


def test_ap_moments_table_routes_agree_and_overstate_variance():
    table = exp.ap_moments_table(n_samples=100_000, seed=1)
    exact = table.loc["exact AP (enumeration)"]
    assert table.iloc[1]["E[AP]"] == pytest.approx(exact["E[AP]"], abs=0.01)  # Monte Carlo
    formulas = table.loc[["N / |R| exactly (what the formulas compute)", "paper's formulas, O(n^3) loops",
                          "paper's formulas, O(n) prefix sums"]]
    assert np.allclose(formulas["E[AP]"], formulas["E[AP]"].iloc[0])
    assert np.allclose(formulas["Var[AP]"], formulas["Var[AP]"].iloc[0])
    assert (formulas["Var / true Var"] > 2).all()
    # a longer ranking with an unranked document: no enumeration rows, Monte Carlo is the reference
    rng = np.random.default_rng(0)
    ranks = np.r_[np.arange(1, 20), 0]
    long = exp.ap_moments_table(rng.uniform(0.1, 0.6, 20), ranks, n_samples=20_000)
    assert list(long.index) == ["Monte Carlo AP (20,000 draws)", "paper's formulas, O(n^3) loops",
                                "paper's formulas, O(n) prefix sums"]
    assert long["Var[AP]"].iloc[1] == pytest.approx(long["Var[AP]"].iloc[2])


@pytest.fixture(scope="module")
def results():
    docs, qrels = toy_collection(10, n_runs=6, n_topics=5, depth=15)
    grades = qrels.lookup(np.broadcast_to(np.arange(5)[None, :, None], docs.shape), docs)
    data = exp.TrialData(docs=docs, qrels=qrels, true_ap=average_precision(grades, qrels.counts()),
                         run_names=np.array([f"r{i}" for i in range(6)], object), name="toy")
    return data, exp.run_experiment(data, 4, seed=3, scheduler="serial", progress=False, k=5, c=2, max_judgments=40)


def test_pairs_carry_ip_delta(results):
    _, res = results
    assert "ip_delta" in res.pairs and np.isfinite(res.pairs["ip_delta"]).all()


def test_budget_summary_and_overlap_accuracy(results):
    _, res = results
    summary = exp.budget_summary(res, threshold=30)
    assert summary.shape == (6, 2)
    share = summary.iloc[0, 0]
    assert share == pytest.approx((res.trials["judged_rtc"] <= 30).mean())
    everything = exp.overlap_accuracy(res, 0.0, 1.01)
    assert list(everything.index) == ["MTC", "IP", "RTC"]
    usable = res.pairs["true_delta"] != 0
    assert everything.loc["MTC", "pairs"] == usable.sum()
    says_negative = res.pairs["p_mtc"] >= 0.5
    expected = np.where(says_negative, res.pairs["true_delta"] < 0, res.pairs["true_delta"] > 0)[usable].mean()
    assert everything.loc["MTC", "accuracy"] == pytest.approx(expected)
    assert np.isnan(everything["paper"]).all()
    assert exp.overlap_accuracy(res).loc["RTC", "paper"] == 0.876


def test_grouped_comparison(results):
    _, res = results
    table = exp.grouped_comparison(exp.table3(res), exp.PAPER_TABLE3)
    assert table.shape == (8, 9)
    assert table.loc["W_bar", ("no original", "paper")] == -0.27
    assert table.loc["1.0", ("one original", "paper")] == 0.980
    four = exp.grouped_comparison(exp.table4(res), exp.PAPER_TABLE4)
    assert four.loc["W_bar", ("0 – 0.1", "paper")] == 0.44


def test_figure_and_explorer(results):
    pytest.importorskip("ipywidgets")
    import matplotlib

    matplotlib.use("Agg")
    data, res = results
    ax = exp.plot_figure2(res, min_pairs=1)
    assert ax.get_xlim() == (0.5, 1.0)
    box = exp.explorer(data, n_trials=1, k=4, max_judgments=20)
    assert len(box.children) == 3 and len(box.children[0].children) + len(box.children[1].children) == 6
    output = box.children[2]
    assert len(output.outputs) == 1 and "image/png" in output.outputs[0]["data"]
    box.children[0].children[0].value = 5  # moving a slider redraws
    assert len(output.outputs) == 1
    fig = exp.explorer_figure(data, n_trials=1, k=4, c=7, max_judgments=20)  # c clipped to k - 1
    assert "c = 3" in fig.axes[0].get_title()


def test_carterette_trial_ip_delta_matches_judged_map(results):
    from evalkit.confidence import incremental_pooling, judged_map, mtc

    data, res = results
    trial = res.trials.iloc[0]
    runs = [list(data.run_names).index(name) for name in trial["runs"].split()]
    docs = data.docs[runs]
    by_mtc = mtc(docs[:2], data.qrels, 0.95, max_judgments=40)
    ip = judged_map(docs, incremental_pooling(docs[:2], data.qrels, by_mtc.n_judgments))
    rows = res.pairs[res.pairs["trial"] == trial["trial"]]
    assert np.allclose(rows["ip_delta"], ip[rows["i"]] - ip[rows["j"]])
    assert isinstance(rows, pd.DataFrame)
