"""Tests for the notebook helpers of the evalkit.papers.carterette2007 package (toy example, text summaries, figure,
widget)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_confidence import toy_collection

from evalkit.confidence import ExpertAggregation
from evalkit.measures import average_precision
from evalkit.papers import carterette2007 as exp


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


# ------------------------------------------------------------------ issue 14: the prior, the collapse, the variance


def _hand_results(rows):
    """ExperimentResults from per-trial dicts with the columns the analysis reads."""
    trials = pd.DataFrame(rows)
    pairs = pd.DataFrame({"trial": trials["trial"], "i": 0, "j": 1, "n_original": 2, "overlap": 0.5,
                          "true_delta": trials["first_pair_true_delta"], "p_mtc": trials["first_pair_p_mtc"],
                          "p_rtc": trials["first_pair_p_rtc"]})
    return exp.ExperimentResults(trials=trials, pairs=pairs)


def test_zero_judgment_trials_by_hand():
    res = _hand_results([
        {"trial": 0, "runs": "a b c", "judged_mtc": 0, "judged_rtc": 0, "first_pair_p_mtc": 1e-22,
         "first_pair_p_rtc": 1e-22, "first_pair_true_delta": -0.28, "shortest_list": 11, "tau_mtc": 0.1, "tau_rtc": 0.2, "tau_ip": 0.1},
        {"trial": 1, "runs": "d e f", "judged_mtc": 12, "judged_rtc": 10, "first_pair_p_mtc": 0.97,
         "first_pair_p_rtc": 0.96, "first_pair_true_delta": -0.1, "shortest_list": 100, "tau_mtc": 0.3, "tau_rtc": 0.5, "tau_ip": 0.2},
        {"trial": 2, "runs": "g h i", "judged_mtc": 0, "judged_rtc": 0, "first_pair_p_mtc": 0.99,
         "first_pair_p_rtc": 0.99, "first_pair_true_delta": -0.05, "shortest_list": 40, "tau_mtc": 0.2, "tau_rtc": 0.1, "tau_ip": 0.4},
    ])
    zero = exp.zero_judgment_trials(res)
    assert list(zero["trial"]) == [0, 2] and list(zero["runs"]) == ["a vs b", "g vs h"]
    assert list(zero["sign right"]) == [False, True]  # P(dMAP < 0) ~ 0 says dMAP > 0, but it is -0.28
    assert list(zero["shortest list"]) == [11, 40]
    text = exp.findings_markdown(res, "hand")
    assert "In 2 of 3 trials" in text and "right in 50% of them" in text
    assert "most confident wrong one, a vs b, had P(ΔMAP < 0) = 1e-22 on a true ΔMAP of -0.280" in text
    summary = exp.rtc_summary(res)
    assert summary["median judged"] == 0 and summary["trials"] == 3
    # one pair a trial: confidences 1 - 1e-22, 0.96, 0.99 -> the top bin holds two, one of them wrong
    assert summary["top-bin share"] == pytest.approx(2 / 3) and summary["top-bin accuracy"] == pytest.approx(0.5)


def test_choose_prior_takes_the_best_w_bar_weakest_on_ties():
    table = pd.DataFrame({"a = b": [1.0, 10.0, 100.0, 1000.0], "W_bar": [-17.0, -4.0, -2.5, -2.5]})
    assert exp.choose_prior(table) == 100.0
    text = exp.prior_markdown(table.assign(**{"median judged": [10, 30, 80, 100], "top-bin share": [0.7, 0.4, 0.2, 0.1]}),
                              "synthetic (held out)", 100.0)
    assert "a = 100" in text and "-2.50" in text and "-17.00" in text


def test_prior_strength_table_rows_and_reproducible(results):
    data, _ = results
    kw = dict(strengths=(1.0, 100.0), n_trials=2, seed=5, scheduler="serial", progress=False, k=4, max_judgments=30)
    table = exp.prior_strength_table(data, **kw)
    assert list(table["a = b"]) == [1.0, 100.0] and (table["trials"] == 2).all()
    pd.testing.assert_frame_equal(table, exp.prior_strength_table(data, **kw))
    one = exp.run_experiment(data, 2, seed=5, scheduler="serial", progress=False, k=4, max_judgments=30,
                             model=ExpertAggregation(prior=(100.0, 100.0)))
    assert table.loc[1, "median judged"] == one.trials["judged_rtc"].median()  # RTC is the same with MTC skipped
    assert table.loc[1, "W_bar"] == pytest.approx(exp.rtc_summary(one)["W_bar"])


def test_trial_data_topic_subset(results):
    data, _ = results
    half = data.topics([1, 3], name="half")
    assert half.docs.shape == (6, 2, data.docs.shape[2]) and half.qrels.n_topics == 2
    np.testing.assert_array_equal(half.true_ap, data.true_ap[:, [1, 3]])
    grades = half.qrels.lookup(np.broadcast_to(np.arange(2)[None, :, None], half.docs.shape), half.docs)
    np.testing.assert_allclose(average_precision(grades, half.qrels.counts()), half.true_ap)


def test_tilt_and_reestimation_diagnostics(results):
    from evalkit.confidence import Universe
    from evalkit.papers.carterette2007.experiment import _tilted

    data, _ = results
    u = Universe.from_docs(data.docs[:2])
    p = _tilted(u, np.zeros(u.n, bool), 0.01)
    a_only = (u.rank[0, :u.n] > 0) & (u.rank[1, :u.n] == 0)
    b_only = (u.rank[1, :u.n] > 0) & (u.rank[0, :u.n] == 0)
    assert np.allclose(p[a_only], 0.51) and np.allclose(p[b_only], 0.49) and np.allclose(p[~a_only & ~b_only], 0.5)
    diag = exp.reestimation_diagnostics(data, n_trials=2, seed=3, k=4, tilts=(0.01,))
    assert len(diag) == 2 * 4  # p = 0.5, two priors, one tilt
    mtc_rows = diag[diag.setting == "p = 0.5 (MTC)"]
    assert np.allclose(mtc_rows["mean p"], 0.5) and np.allclose(mtc_rows["tilt"], 0.0)
    # the tilt favours the first run: E[dMAP] moves up from MTC's
    tilted = diag[diag.setting.str.contains("tilted")]
    assert (tilted["E[dMAP]"].to_numpy() > mtc_rows["E[dMAP]"].to_numpy()).all()
    summary = exp.reestimation_summary(diag)
    assert set(summary.index) == set(diag.setting) and (summary["confidence >= 0.95"] <= 1).all()
    assert "SD[ΔMAP]" in exp.collapse_markdown(summary, "toy")


def test_variance_monte_carlo_and_footnote(results):
    data, _ = results
    table = exp.variance_monte_carlo(data, [0, 1], p=0.5, n_samples=40_000, seed=2)
    assert list(table.index) == ["Var[AP], lone ranking", "Var[AP], two-run universe", "Var[dAP], per topic",
                                 "Var[dMAP] (sum of the topics' Var[dAP] / T^2)"]
    assert table.loc["Var[AP], lone ranking", "min ratio"] > 1.5  # the lone-ranking overstatement
    assert table["median ratio"].iloc[3] == pytest.approx(1.0, abs=0.05)  # dMAP: the formula is right
    assert table["median ratio"].iloc[2] == pytest.approx(1.0, abs=0.1)
    note = exp.footnote_check(sizes=(10, 40), p=0.5, n_samples=40_000, seed=1)
    assert (note["formula / Monte Carlo"] > 2).all()  # does not vanish as n grows
    # the n = 10 row against exact enumeration of all 2^10 assignments
    exact = exp.ap_moments_table(np.full(10, 0.5), np.arange(1, 11), n_samples=10, seed=0)
    assert note.loc[10, "Monte Carlo Var[AP]"] == pytest.approx(exact.loc["exact AP (enumeration)", "Var[AP]"], rel=0.03)
    assert note.loc[10, "formula Var[AP]"] == pytest.approx(exact.loc["paper's formulas, O(n) prefix sums", "Var[AP]"])
    assert "footnote" in exp.variance_markdown(table, note, "toy", ["r0", "r1"])


def test_pick_pair_needs_judgments(results):
    from evalkit.confidence import estimate_runs

    data, _ = results
    pair = exp.pick_pair(data, seed=1, alpha=0.95)
    prob = estimate_runs(data.docs[pair], None, 0.5).prob_negative[0, 1]
    assert max(prob, 1 - prob) < 0.95
    np.testing.assert_array_equal(pair, exp.pick_pair(data, seed=1, alpha=0.95))


def test_claims_and_findings_from_results(results):
    _, res = results
    rows = exp.claims(res, "toy", prior=(100.0, 100.0), prior_source="synthetic (held out)", paper_prior=res,
                      paper_prior_uncertainty=res, toy=exp.toy_distribution())
    by_claim = {row.claim: row for row in rows}
    assert all(row.dataset in ("toy", "toy example") for row in rows)
    w = exp.table2_summary(res).loc["W_bar", "RTC"]
    assert f"W̄ = {w:.2f}" in by_claim["RTC's bookmaker winnings are close to 0 (Table 5 ad hoc 99; Table 2 pooled)"].kit_value
    assert any("Beta(1, 1)" in row.claim for row in rows)
    assert by_claim["toy example (Sec. 2.1): P(AP = 1/2)"].agrees == "no"
    text = exp.findings_markdown(res, "toy", prior=(100.0, 100.0), prior_source="synthetic")
    assert "toy" in text and f"{len(res.trials)} trials" in text
    table = exp.prior_comparison({"kit": res})
    assert table.loc["paper, ad hoc 99 (Table 5, TREC-8)", "W_bar"] == -0.44 and "kit" in table.index


def test_default_prior_is_the_held_out_choice():
    selection = exp.prior_selection()
    assert exp.choose_prior(selection) == exp.RTC_SMOOTHED["prior"][0] == exp.RTC_SMOOTHED["prior"][1]
    assert list(selection["a = b"]) == list(exp.PRIOR_STRENGTHS)
    assert exp.PRIOR_SOURCE.startswith("synthetic")  # never the collection it is reported for (TREC-8)
