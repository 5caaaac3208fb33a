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
    assert summary.shape == (6, 3) and list(summary.columns) == ["kit RTC", "95% interval", "paper (pooled ad hoc)"]
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
    assert table.shape == (8, 12)  # per group: kit, its 95% interval, paper, pairs
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


def test_plot_judgments_draws_the_trials_and_says_why_when_none_needed_a_judgment(results):
    """D2: when every trial reaches alpha with 0 judgments the ECDF over judgments > 0 is empty (seaborn's hue legend
    raised TypeError in the notebook); plot_judgments then draws nothing and says why in the axes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    _, res = results
    trials = res.trials.assign(judged_mtc=[0, 3, 0, 12], judged_rtc=[0, 5, 0, 20])
    ax = exp.plot_judgments(exp.ExperimentResults(trials, res.pairs))
    assert len(ax.get_lines()) == 3  # an ECDF a algorithm over the 2 trials with judgments, and the paper's median
    assert ax.get_xscale() == "log" and "2 of 4 trials needed none" in ax.get_title()
    ax.figure.canvas.draw()
    plt.close(ax.figure)
    none = exp.plot_judgments(exp.ExperimentResults(trials.assign(judged_mtc=0, judged_rtc=0), res.pairs))
    assert len(none.get_lines()) == 0 and not none.axison
    assert "none of the 4 trials needed a judgment" in none.texts[0].get_text()
    none.figure.canvas.draw()
    plt.close(none.figure)


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


# ------------------------------------------------------------------ issues 26-28: intervals, rules, degenerate, plan


def test_intervals_resample_whole_trials(results):
    """W-bar and the per-bin accuracies are ratios pooled over trials: their estimate is the table's, their interval
    comes from resampling trials (never pairs), and the same results give the same interval."""
    _, res = results
    w = exp.w_bar_interval(res, "rtc")
    assert w.estimate == pytest.approx(exp.table2_summary(res).loc["W_bar", "RTC"])
    assert w.n == res.trials["trial"].nunique() and "trials" in w.method and w.low <= w.estimate <= w.high
    assert exp.w_bar_interval(res, "rtc") == w
    accuracy = exp.bin_intervals(res, "rtc")
    table = exp.table2(res)
    for label, interval in zip(exp.BIN_LABELS, accuracy):
        if table.loc[label, ("RTC", "pairs")] > 0:
            assert interval.estimate == pytest.approx(table.loc[label, ("RTC", "accuracy")])
            assert table.loc[label, ("RTC", "95% interval")] == (interval.bounds() if interval.finite else "")
    tally = exp.trial_tallies(res.pairs, "rtc")
    assert tally["counts"].sum() == table[("RTC", "pairs")].sum() and tally["w"].sum() / tally["pairs"].sum() == \
        pytest.approx(w.estimate)
    # a difference of medians over the same trials (paired): the estimate is the difference of the medians
    gap = exp.paired_interval(res, "judged_mtc", "judged_rtc", "median")
    assert gap.estimate == pytest.approx(res.trials["judged_mtc"].median() - res.trials["judged_rtc"].median())


def _one_pair_trials(p_rtc, truth, p_mtc=None, overlap=0.5, ip=None, judged=None):
    """ExperimentResults with one pair a trial, from per-trial arrays (enough for the rules' checks)."""
    n = len(p_rtc)
    judged = np.full(n, 50) if judged is None else np.asarray(judged)
    trials = pd.DataFrame({"trial": np.arange(n), "runs": [f"a{t} b{t} c{t}" for t in range(n)],
                           "judged_mtc": judged + 5, "judged_rtc": judged, "first_pair_p_mtc": p_rtc,
                           "first_pair_p_rtc": p_rtc, "first_pair_true_delta": truth, "shortest_list": 100,
                           "tau_mtc": 0.3, "tau_rtc": 0.5, "tau_ip": 0.4})
    pairs = pd.DataFrame({"trial": np.arange(n), "i": 0, "j": 1, "n_original": 1, "overlap": overlap,
                          "true_delta": truth, "p_mtc": p_rtc if p_mtc is None else p_mtc, "p_rtc": p_rtc,
                          "ip_delta": -np.asarray(truth) if ip is None else ip})
    return exp.ExperimentResults(trials=trials, pairs=pairs, params={"k": 3})


def _by_claim(rows):
    return {row.claim.split(":")[0].split(" (")[0]: row for row in rows}


def test_regraded_claims_follow_the_rules():
    """The verdicts issue 27 re-grades, on fixtures where the answer is known: the universal per-bin claim is 'no'
    when one bin fails; a reversed direction at low overlap is 'direction only: no'; the coefficient-uncertainty row
    is beyond the paper and outside its counts."""
    from evalkit.claims import grade, verdict_counts
    from evalkit.claims.record import record_claims

    rng = np.random.default_rng(0)
    n = 400
    # RTC confident (top bin) and right 70% of the time: the 1.0 bin fails its 0.99 edge
    truth = np.where(rng.random(n) < 0.7, -0.05, 0.05)
    res = _one_pair_trials(np.full(n, 0.999), truth, overlap=0.05, ip=-truth)  # IP always right at low overlap
    rows = exp.claims(res, "toy", paper_prior_uncertainty=res)
    by = _by_claim(rows)
    bins = by["RTC's confidence can be trusted on new runs"]
    assert bins.agrees == "no" and "every part" in bins.rule and "below the edge: 1.0" in bins.kit_value
    context = {"name": "toy", "n_runs": 129, "n_topics": 50}
    assert grade(bins, context)["verdict"] == "direction only: no"
    low = by["RTC predicts pairs sharing 0-10% of their documents better than MTC and IP"]
    assert low.kind == "direction" and low.agrees == "no"
    assert grade(low, context)["verdict"] == "direction only: no"  # reversed: never hidden under 'not comparable'
    beyond = [row for row in rows if row.claim.startswith("beyond the paper: RTC at Beta(1, 1)")]
    assert len(beyond) == 1 and beyond[0].scope == "beyond"
    frame = record_claims(rows, display=False, collection=type("C", (), {"name": "toy", "n_runs": 129,
                                                                        "n_topics": 50})())
    counts = verdict_counts(frame)
    assert counts["beyond"].sum() == 1 and counts["paper"].sum() == len(rows) - 1
    # every rated row carries the interval and rule that rated it
    rated = [row for row in rows if row.agrees in ("yes", "no", "partly") and row.paper_dataset != "toy example"]
    assert rated and all(row.rule for row in rated)


def test_class_size_claims_are_not_rated(results):
    _, res = results  # 4 trials
    rows = exp.claims(res, "toy")
    heavy = _by_claim(rows)["RTC's bookmaker winnings are close to 0"]
    assert heavy.not_rated == f"at class size (4 trials; this rule needs {exp.MIN_TRIALS['heavy']})"
    from evalkit.claims import grade

    assert grade(heavy, {"name": "toy", "n_runs": 129, "n_topics": 50})["verdict"].startswith(
        "not rated at class size (4 trials")


def _disjoint_data(n_runs=12, n_topics=20, depth=10):
    """Runs that share no document (overlap 0 for every pair): Table 4 in one bin."""
    from evalkit.data.collection import JudgedSet

    rng = np.random.default_rng(1)
    docs = np.arange(n_runs * n_topics * depth, dtype=np.int32).reshape(n_runs, n_topics, depth)
    topic = np.broadcast_to(np.arange(n_topics)[None, :, None], docs.shape).ravel()
    grade = (rng.random(docs.size) < 0.3).astype(np.int16)
    qrels = JudgedSet.from_arrays(topic.astype(np.int32), docs.ravel(), grade, n_topics, docs.size)
    grades = qrels.lookup(np.broadcast_to(np.arange(n_topics)[None, :, None], docs.shape), docs)
    return exp.TrialData(docs=docs, qrels=qrels, true_ap=average_precision(grades, qrels.counts()),
                         run_names=np.array([f"r{i}" for i in range(n_runs)], object), name="disjoint")


def test_one_bin_tables_are_degenerate_and_not_rated():
    """Issue 26: a table whose pairs sit in one bin is degenerate; its claims read 'not rated: degenerate (...)' and
    the plan line says so and what restores it."""
    from evalkit.claims import grade
    from evalkit.papers.needs import Plan

    data = _disjoint_data()
    spread = exp.overlap_spread(data)
    assert spread.loc["0 – 0.1", "share"] == 1.0 and spread["pairs"].sum() == 12 * 11 // 2
    plan = Plan("05_carterette2007", "disjoint", {"trials": 2})
    exp.mark_degenerate(plan, data=data)
    assert "overlap" in plan.degenerate and "100% of the 66 pairs of runs share 0 – 0.1" in plan.degenerate["overlap"]
    assert "degenerate here, so not rated: overlap" in str(plan)
    # Table 2 in one bin: every pair's confidence in the top bin
    res = _one_pair_trials(np.full(200, 1e-9), np.full(200, 0.05))
    exp.mark_degenerate(plan, results=res)
    assert plan.degenerate["confidence"].startswith("100% of RTC's 200 pairs are in the confidence bin 1.0")
    rows = exp.claims(res, "disjoint", plan=plan)
    context = {"name": "disjoint", "n_runs": 129, "n_topics": 50}
    verdicts = {row.claim: grade(row, context)["verdict"] for row in rows}
    for start, key in (("RTC predicts pairs sharing 0-10%", "overlap"), ("RTC's W̄ is positive", "overlap"),
                       ("RTC's confidence can be trusted", "confidence"), ("RTC is on or above the diagonal",
                                                                            "confidence")):
        verdict = next(v for claim, v in verdicts.items() if claim.startswith(start))
        assert verdict == f"not rated: degenerate ({plan.degenerate[key]})", (start, verdict)
    # a spread table is not degenerate
    docs, qrels = toy_collection(10, n_runs=6, n_topics=5, depth=15)
    assert exp.overlap_spread(exp.TrialData(docs=docs, qrels=qrels, true_ap=np.zeros((6, 5)),
                                            run_names=np.arange(6))).share.max() < exp.ONE_BIN_SHARE


def test_run_overlaps_equal_the_trials_overlaps(results):
    data, res = results
    overlaps = exp.run_overlaps(data)
    trial = res.trials.iloc[0]
    runs = [list(data.run_names).index(name) for name in trial["runs"].split()]
    rows = res.pairs[res.pairs["trial"] == trial["trial"]]
    expected = overlaps[np.asarray(runs)[rows["i"]], np.asarray(runs)[rows["j"]]]
    np.testing.assert_allclose(rows["overlap"], expected)


@pytest.fixture(scope="module")
def shallow(tmp_path_factory):
    from evalkit.data.datasets import load_dataset
    from evalkit.data.simulator import write_collection

    return load_dataset(str(write_collection(tmp_path_factory.mktemp("shallow") / "shallow", "shallow",
                                             n_runs=30, depth=30)))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from evalkit.data.datasets import load_dataset
    from evalkit.data.simulator import write_collection

    return load_dataset(str(write_collection(tmp_path_factory.mktemp("tiny") / "tiny", "tiny")))


def test_plan_on_shallow_and_tiny_says_what_was_scaled(shallow, tiny):
    sizes = exp.settings("class")
    plan = exp.plan(shallow, sizes=sizes)
    assert plan.depth == 7 and "lists cut at depth 7 instead of the paper's 100" in str(plan)
    assert "chosen at run time by topic-split cross-validation" in str(plan) and "preset 'class'" in str(plan)
    assert "the paper's settings" not in str(plan)
    assert "On shallow (simulated) the lists are cut at 7 documents (the judged depth" in \
        exp.lists_markdown(plan.depth, shallow.name, 7)
    small = exp.plan(tiny, sizes=sizes)
    assert small.k == 3 and small.pairs == 3 and "k = 3 runs a trial (3 pairs; the paper's 10" in str(small)


@pytest.mark.parametrize("name, value, expected", [
    ("k", 5, "k = 5 runs a trial (set; the paper's 10)"), ("c", 3, "c = 3 original runs (set; the paper's 2)"),
    ("depth", 5, "lists cut at depth 5 (set; the paper's 100)"), ("alpha", 0.9, "alpha = 0.9 (set; the paper's 0.95)"),
    ("prior", (30, 30), "the aggregation prior Beta(30, 30) (set"), ("prior", 30, "Beta(30, 30) (set"),
    ("max_judgments", 50, "at most 50 judgments an algorithm and trial (set"),
    ("trials", 7, "trials 7 (given)"), ("cv_trials", 2, "cv_trials 2 (given)"), ("prior_trials", 0, "prior_trials 0"),
    ("strength_trials", 0, "strength_trials 0"), ("second_opinion_trials", 3, "second_opinion_trials 3"),
    ("strengths", [3, 30], "strengths [3, 30] (given)"), ("widget_trials", 3, "widget_trials 3 (given)"),
    ("diagnostics_trials", 5, "diagnostics_trials 5 (given)"), ("seed", 7, None), ("scheduler", "serial", None),
    ("n_jobs", 1, None),
])
@pytest.mark.parametrize("where", ["shallow", "tiny"])
def test_every_parameter_is_honoured(where, name, value, expected, shallow, tiny):
    """Issue 26.3 / convention 7: an off-default value of each parameter on the shallow and tiny collections gives a
    plan (or a one-sentence NeedsNotMet) and the plan line says the value used."""
    from evalkit.papers.needs import NeedsNotMet

    collection = {"shallow": shallow, "tiny": tiny}[where]
    size_names = ("trials", "cv_trials", "prior_trials", "strength_trials", "second_opinion_trials", "strengths",
                  "widget_trials", "diagnostics_trials", "max_judgments")
    given = {name: value} if name in size_names else {}
    sizes = exp.settings("class", **given)
    kwargs = {} if name in size_names else {name: value}
    try:
        plan = exp.plan(collection, sizes=sizes, **kwargs)
    except NeedsNotMet as error:
        assert where == "tiny" and name in ("k", "c", "depth") and str(error).count(". ") <= 3
        return
    if expected:
        assert expected in str(plan), str(plan)
    key = {"prior": "prior"}.get(name, name)
    if name not in ("prior",) and key in plan.parameters and name != "k":
        assert plan[key] == (tuple(sorted(float(v) for v in value)) if name == "strengths" else value)


@pytest.mark.parametrize("kwargs, sizes, message", [
    ({"alpha": 0.5}, {}, "alpha must be a number in (0.5, 1)"), ({"alpha": "high"}, {}, "alpha must be"),
    ({"c": 1}, {}, "c must be >= 2"), ({"k": 2.5}, {}, "k must be a whole number"),
    ({"depth": 0}, {}, "depth must be >= 1"), ({"prior": (0, 1)}, {}, "prior's a must be a positive number"),
    ({"prior": "flat"}, {}, "prior must be None or two positive numbers"), ({"seed": -1}, {}, "seed must be >= 0"),
    ({"scheduler": "threads"}, {}, "scheduler must be None or one of local, serial, dask"),
    ({"n_jobs": 0}, {}, "n_jobs must be None, -1"), ({}, {"trials": 0}, "trials must be >= 1"),
    ({}, {"cv_trials": -1}, "cv_trials must be >= 0"), ({}, {"max_judgments": 0}, "max_judgments must be >= 1"),
    ({}, {"strengths": []}, "strengths must hold at least one"), ({}, {"strengths": [1, -3]}, "each of strengths"),
    ({}, {"cv_trials": 0}, "prior must be set (e.g. prior=(100, 100)) when cv_trials = 0"),
    ({}, {"widget_trials": 0}, "widget_trials must be >= 1"),
])
def test_bad_parameters_give_one_sentence(kwargs, sizes, message, shallow):
    with pytest.raises(ValueError) as error:
        exp.plan(shallow, sizes=exp.settings("class", **sizes), **kwargs)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_topic_split_choice_and_held_out_scores(results):
    data, _ = results
    first, second = exp.topic_halves(5, seed=3)
    assert sorted(np.r_[first, second].tolist()) == list(range(5)) and len(first) == 3
    np.testing.assert_array_equal(first, exp.topic_halves(5, seed=3)[0])
    split = exp.topic_split_sweeps(data, (1.0, 100.0), 2, seed=3, topic_ids=[f"t{i}" for i in range(5)],
                                   scheduler="serial", progress=False, k=4, max_judgments=30)
    assert set(split.sweeps) == {("A", 1.0), ("A", 100.0), ("B", 1.0), ("B", 100.0)}
    assert split.topic_ids["A"] == [f"t{i}" for i in first]
    # the same runs for every strength and half
    runs = {key: tuple(res.trials["runs"]) for key, res in split.sweeps.items()}
    assert len(set(runs.values())) == 1
    choice = exp.prior_cross_validation(split)
    for part in ("A", "B"):
        rows = choice.table[choice.table["half"] == part].set_index("a = b")
        assert choice.chosen[part] == rows["W_bar"].idxmax()
        other = "B" if part == "A" else "A"
        assert choice.held_out[part].estimate == pytest.approx(rows.loc[choice.chosen[other], "W_bar"])
    pooled = {a: sum(exp.binned_sums(split.sweeps[(p, a)].pairs, "rtc")[0] for p in "AB")
              / sum(exp.binned_sums(split.sweeps[(p, a)].pairs, "rtc")[1] for p in "AB") for a in (1.0, 100.0)}
    assert choice.prior == max(pooled, key=pooled.get) and choice.pooled.estimate == pytest.approx(max(pooled.values()))
    text = exp.prior_markdown(choice, "toy")
    assert f"half A's best W̄ is at a = {choice.chosen['A']:g}" in text and f"The kit uses a = {choice.prior:g}" in text
    assert ", ".join(f"t{i}" for i in first) in text


def test_with_rtc_from_replaces_rtc_only(results):
    data, res = results
    sweeps = exp.rtc_sweep({"all": data}, (100.0,), 2, seed=3, scheduler="serial", progress=False, k=5, c=2,
                           max_judgments=40)
    merged = exp.with_rtc_from(res, sweeps[("all", 100.0)])
    assert len(merged.trials) == 2
    np.testing.assert_array_equal(merged.trials["judged_mtc"], res.trials["judged_mtc"][:2])
    np.testing.assert_array_equal(merged.trials["judged_rtc"], sweeps[("all", 100.0)].trials["judged_rtc"])
    other = exp.rtc_sweep({"all": data}, (100.0,), 2, seed=99, scheduler="serial", progress=False, k=5,
                          max_judgments=40)
    with pytest.raises(ValueError, match="drew other runs"):
        exp.with_rtc_from(res, other[("all", 100.0)])
    table = exp.sensitivity({100.0: merged}, "toy")
    assert list(table.columns) == ["a = 100"] and table.loc["trials", "a = 100"] == "2"
    assert set(table.drop("trials")["a = 100"]) <= {"yes", "no", "partly", "inconclusive", "degenerate"}


def test_constant_p_evidence_and_sentence(results):
    _, res = results
    evidence = exp.constant_p_evidence(res)
    assert evidence["range"] == pytest.approx(res.trials["p_range_rtc"].median())
    assert evidence["tau_constant"].estimate == pytest.approx(res.trials["tau_constant_p"].mean())
    text = exp.prior_markdown(None, "toy", prior=(100.0, 100.0), constant=evidence)
    assert f"span {evidence['range']:.3f}" in text and f"τ = {evidence['tau_constant'].estimate:.3f}" in text
    assert "set by the user" in text


def test_most_confident_wrong_is_not_picked_through_a_float_tie():
    zero = pd.DataFrame({"trial": [0, 1], "runs": ["Dm8TFidf vs READWARE2", "fub99td vs READWARE"],
                         "P(dMAP < 0)": [1e-22, 9e-67], "true dMAP": [-0.1, -0.2], "sign right": [0.0, 0.0],
                         "shortest list": [10, 5]})
    assert abs(1e-22 - 0.5) == abs(9e-67 - 0.5)  # the tie the old choice went through
    assert exp.most_confident_wrong(zero)["runs"] == "fub99td vs READWARE"


def test_sentences_match_their_tables(results):
    """Issue 27.6: the numbers of the computed sentences are those of the tables they describe."""
    _, res = results
    text = exp.findings_markdown(res, "toy", prior=(100.0, 100.0), prior_source="set")
    summary = exp.table2_summary(res)
    median = summary.loc["median judged"]
    assert f"median of {median['RTC']:g} judgments {median['RTC 95% interval']}" in text
    w = exp.w_bar_interval(res, "rtc")
    assert f"W̄ = {w.estimate:.2f} {w.bounds('.2f')}" in text
    budget = exp.budget_summary(res)
    ratio = budget.iloc[4]
    assert f"{ratio.iloc[0]:.2f} {exp.budget_evidence(res)['wrong/right'].bounds('.2f')} times" in text
    footnote = pd.DataFrame({"formula / Monte Carlo": [3.3, 2.9, 2.6, 2.5]},
                            index=pd.Index([10, 30, 100, 300], name="n"))
    variance = pd.DataFrame({"median ratio": [2.6, 1.5, 1.0, 1.0]})
    sentence = exp.variance_markdown(variance, footnote, "toy", ["a", "b"])
    assert "3.3 → 2.9 → 2.6 → 2.5: it shrinks with n (from 3.3 to 2.5 over a 30-fold longer ranking) and is still 2.50" in sentence
    assert "does not shrink" not in sentence
    flat = exp.variance_markdown(variance, footnote.assign(**{"formula / Monte Carlo": [2.5, 2.6, 2.6, 2.7]}), "t",
                                 ["a", "b"])
    assert "it does not shrink with n" in flat
    assert exp.lists_markdown(100, "TREC-8").endswith("as in the paper.")
    assert "as in the paper" not in exp.lists_markdown(7, "shallow", 7)


def test_variance_markdown_verdict_words_follow_the_ratios():
    """The tester's case (D3): ΔAP 1.41 and ΔMAP 1.38 are 41% and 38% overstatements, beyond the kit's 0.10
    "small" relative margin, so the sentence may not call the formula "right" or the approximation "harmless";
    ratios within 0.10 of 1 are called so, and a footnote ratio that falls to 1.05 is not "far above 1"."""
    footnote = pd.DataFrame({"formula / Monte Carlo": [3.3, 2.9, 2.6, 2.5]},
                            index=pd.Index([10, 30, 100, 300], name="n"))
    off = exp.variance_markdown(pd.DataFrame({"median ratio": [2.6, 1.5, 1.41, 1.38]}), footnote, "t", ["a", "b"])
    assert "it is right" not in off and "harmless" not in off
    assert "for ΔAP per topic it overstates the variance 1.41 times, and for ΔMAP it overstates the variance 1.38 times" in off
    assert "whose variance the formula overstates by 38%" in off
    near = exp.variance_markdown(pd.DataFrame({"median ratio": [2.6, 1.5, 1.04, 0.93]}), footnote, "t", ["a", "b"])
    assert "for ΔAP per topic it is within 10% of Monte Carlo (ratio 1.04)" in near
    assert "for ΔMAP it is within 10% of Monte Carlo (ratio 0.93)" in near
    assert "within the kit's 10% margin of Monte Carlo." in near
    under = exp.variance_markdown(pd.DataFrame({"median ratio": [2.6, 1.5, 0.8, 0.7]}), footnote, "t", ["a", "b"])
    assert "understates by 30%" in under and "overconfident" in under
    vanishing = footnote.assign(**{"formula / Monte Carlo": [1.8, 1.3, 1.1, 1.05]})
    falls = exp.variance_markdown(pd.DataFrame({"median ratio": [2.6, 1.5, 1.0, 1.0]}), vanishing, "t", ["a", "b"])
    assert "far above" not in falls and "comes within 10% of 1 by n = 300" in falls
    assert "not the vanishing" not in falls


def test_the_findings_variance_bullet_follows_the_ratios(results):
    """The findings' variance bullet said 'for ΔMAP it matches Monte Carlo' and 'the overconfidence does not come
    from the variance formula' whatever ΔMAP's ratio; it now words each ratio as variance_markdown does."""
    _, res = results
    over = exp.findings_markdown(res, "toy", prior=(100.0, 100.0),
                                 variance=pd.DataFrame({"median ratio": [2.6, 1.5, 1.41, 1.38]}))
    assert "matches Monte Carlo" not in over and "does not come from the variance formula" not in over
    assert ("for a lone ranking overstates the variance 2.60 times, in the two-run universe MTC/RTC compute in it "
            "overstates the variance 1.50 times, and for ΔMAP it overstates the variance 1.38 times. Confidence "
            "rests on ΔMAP, whose variance the formula overstates by 38%") in over
    near = exp.findings_markdown(res, "toy", prior=(100.0, 100.0),
                                 variance=pd.DataFrame({"median ratio": [2.6, 1.5, 1.04, 0.97]}))
    assert "for ΔMAP it is within 10% of Monte Carlo (ratio 0.97)" in near


def test_deviations_table(results):
    from evalkit.papers.needs import Plan

    _, res = results
    plan = Plan("05_carterette2007", "toy", {"trials": 4, "prior": (100.0, 100.0), "depth": 15, "k": 5})
    table = exp.deviations(plan, dataset="toy", results=res, paper_prior=res)
    assert list(table.columns) == ["what differs from the paper", "why", "effect"]
    assert table["what differs from the paper"].str.contains("set by the user").any()
    assert table["effect"].str.contains(exp.w_bar_interval(res).bounds(".2f"), regex=False).any()
    assert table["what differs from the paper"].str.contains("lists cut at 15 instead of 100").any()


def test_reestimation_figure_is_seeded(results):
    import matplotlib

    matplotlib.use("Agg")
    data, _ = results
    diagnostics = exp.reestimation_diagnostics(data, n_trials=2, seed=3, k=4, tilts=(0.01,))
    first = exp.plot_reestimation(diagnostics, seed=5).axes[0].collections[0].get_offsets()
    again = exp.plot_reestimation(diagnostics, seed=5).axes[0].collections[0].get_offsets()
    np.testing.assert_array_equal(first, again)


@pytest.mark.notebooks
def test_notebook_on_shallow_with_a_reviewers_parameters(tmp_path):
    """Notebook 05 through papermill on the shallow collection (depth-7 pools) with values a reviewer sets: the plan
    line says what was scaled and what was set, the lists sentence is computed (never "as in the paper" here), every
    claim has a verdict, none is rated from a figure of another collection, and the prior the user set is used."""
    from evalkit.batch.pipeline import NOTEBOOK_DIR, run_notebook
    from evalkit.claims import read_claims, read_plans
    from evalkit.data.simulator import write_collection

    folder = write_collection(tmp_path / "shallow", "shallow", n_runs=30, depth=30)
    target = tmp_path / "05.ipynb"
    run_notebook(NOTEBOOK_DIR / "05_carterette2007_robust_collections.ipynb", target, dataset=str(folder), fast=True,
                 extra_parameters={"k": 6, "alpha": 0.9, "prior": [30, 30], "strengths": [10, 300]})
    plans = read_plans(target)
    assert plans and all(p["notebook"] == "05_carterette2007" for p in plans)
    line = plans[0]["line"]
    for part in ("lists cut at depth 7 instead of the paper's 100", "k = 6 runs a trial (set; the paper's 10)",
                 "alpha = 0.9 (set", "Beta(30, 30) (set", "strengths [10, 300] (given)"):
        assert part in line, line
    import nbformat

    text = "\n".join("".join(o.get("data", {}).get("text/markdown", "")) for c in nbformat.read(str(target), 4).cells
                     for o in c.get("outputs", []))
    assert "the lists are cut at 7 documents (the judged depth" in text and "as in the paper" not in text
    assert "The prior, set by the user" in text
    claims = read_claims(target)
    assert len(claims) >= 20 and (claims["verdict"].str.len() > 0).all()
    bookmaker = claims.loc[claims["claim"].str.startswith("RTC's bookmaker"), "kit_value"]
    assert len(bookmaker) == 1 and bookmaker.str.contains("Beta(30, 30)", regex=False).all()


def test_the_choice_of_the_prior_says_its_margin_over_the_runner_up(results):
    data, _ = results
    split = exp.topic_split_sweeps(data, (1.0, 30.0, 1000.0), 2, seed=4, scheduler="serial", progress=False, k=4,
                                   max_judgments=30)
    choice = exp.prior_cross_validation(split)
    scores = {a: sum(exp.binned_sums(split.sweeps[(p, a)].pairs, "rtc")[0] for p in "AB")
              / sum(exp.binned_sums(split.sweeps[(p, a)].pairs, "rtc")[1] for p in "AB") for a in (1.0, 30.0, 1000.0)}
    ranked = sorted(scores, key=lambda a: (-scores[a], a))
    assert (choice.prior, choice.runner_up) == (ranked[0], ranked[1])
    assert choice.margin.estimate == pytest.approx(scores[ranked[0]] - scores[ranked[1]])
    assert f"beats the runner-up a = {ranked[1]:g} by {choice.margin.estimate:+.2f}" in exp.prior_markdown(choice, "t")


def test_a_shallow_collection_whose_runs_share_little_is_degenerate():
    """Issue 26's case: depth-7 lists of runs that share little (the simulator's shallow shape, 30 topics judged to
    7, with runs drawn apart: low conformity, noisy re-ranking): over 90% of the pairs share under 10% of their top 7,
    so Table 4 sits in one bin; the low-overlap claims read 'not rated: degenerate (...)' and the plan says what
    restores them."""
    from evalkit.claims import grade
    from evalkit.data.simulator import simulate_collection
    from evalkit.papers.needs import Plan

    apart = {"retrieval": {"shared": 0.02, "shared_spread": 0.0, "manual_shared": 0.02, "run_noise": 3.0},
             "quality": {"mean": 1.0}}
    collection = simulate_collection(n_topics=30, n_runs=40, depth=7, seed=0, params=apart, name="apart")
    data = exp.TrialData.from_collection(collection, 7)
    spread = exp.overlap_spread(data)
    assert spread.loc["0 – 0.1", "share"] >= exp.ONE_BIN_SHARE
    plan = exp.mark_degenerate(Plan("05_carterette2007", "apart", {"trials": 3}), data=data)
    share = f"{spread.loc['0 – 0.1', 'share']:.0%}"
    assert plan.degenerate["overlap"].startswith(f"{share} of the 780 pairs of runs share 0 – 0.1 of their top 7")
    assert "lists cut deeper" in plan.restore["overlap"]
    res = exp.run_experiment(data, 3, seed=1, scheduler="serial", progress=False, k=6, max_judgments=40)
    rows = exp.claims(res, "apart", plan=plan)
    low = [row for row in rows if "0-10%" in row.claim]
    assert len(low) == 2
    for row in low:
        assert grade(row, {"name": "apart", "n_runs": 40, "n_topics": 30})["verdict"] == \
            f"not rated: degenerate ({plan.degenerate['overlap']})"


def test_a_certainty_beyond_double_precision_is_not_ranked():
    """Issue 27: a P(dMAP < 0) that rounds to 1 has lost its complement (the spacing of doubles near 1 is 1.1e-16),
    so it ties with every other such P and cannot be ranked against a resolved 9e-67: the sentence counts those
    instead of naming one as 'the most confident', then names the most confident resolved one."""
    zero = pd.DataFrame({"trial": [0, 1, 2, 3], "runs": ["READWARE2 vs pir9At0", "x vs y", "fub99td vs READWARE",
                                                          "u vs v"],
                         "P(dMAP < 0)": [1.0, 1 - 1e-17, 9e-67, 0.98], "true dMAP": [0.18, 0.05, -0.2, 0.01],
                         "sign right": [0.0, 0.0, 0.0, 0.0], "shortest list": [2, 3, 5, 9]})
    assert 1 - zero["P(dMAP < 0)"][1] == 0.0  # the complement is lost
    text = exp.confident_wrong_sentence(zero)
    assert text.startswith(" 2 wrong predictions claimed a certainty beyond double precision (P(ΔMAP > 0) below 1e-15")
    assert "e.g. READWARE2 vs pir9At0 on a true ΔMAP of +0.180" in text
    assert text.endswith("Of the others, the most confident, fub99td vs READWARE, had P(ΔMAP < 0) = 9e-67 on a true "
                         "ΔMAP of -0.200.")
    resolved = zero.iloc[2:]
    assert exp.confident_wrong_sentence(resolved) == (" The most confident wrong one, fub99td vs READWARE, had "
                                                      "P(ΔMAP < 0) = 9e-67 on a true ΔMAP of -0.200.")
    assert exp.confident_wrong_sentence(zero.assign(**{"sign right": 1.0})) == ""
