"""Notebook 01 (Yilmaz, Kanoulas & Aslam 2008) held up as evidence (issues 26-28): the degenerate designs of the
shallow-pool collection read ``not rated: degenerate``, every parameter is checked and named in the plan line, every
graded figure carries its interval and is rated by the written rules, and the computed sentences say what their
tables say.

Small sizes throughout (the simulator's shallow collection with 40 runs, 2-3 trials): a few seconds each, plus two
papermill runs (marked ``notebooks``)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from evalkit.claims import claims_frame, grade_frame, rules
from evalkit.papers import yilmaz2008 as y
from evalkit.papers.needs import NeedsNotMet
from evalkit.stats import Interval


def _context(collection) -> dict:
    return {"name": collection.name, "n_runs": collection.n_runs, "n_topics": collection.n_topics}


def _graded(claims, collection) -> pd.DataFrame:
    return grade_frame(claims_frame(claims), _context(collection))


# the shallow and tiny collections (and their folders, simulated_folders): tests/conftest.py


# ------------------------------------------------------------------------------- degenerate designs


def test_default_plan_on_shallow_scales_and_says_the_shares_cannot_be_kept(shallow):
    plan = y.plan(shallow)
    assert plan.pool_depth == 7 and plan.sweep_depths == [1, 2, 3, 4] and plan.figure2_depths == [1]
    line = str(plan)
    assert "the depths k scaled by 7/100" in line and "cannot keep the paper's shares" in line
    shares = y.design_shares(shallow, 7, [1])
    assert f"judges {shares[1]['share']:.0%} of the depth-7 pool" in line and "3.5%" in line
    assert "the paper's settings fit" not in line


def test_whole_pool_designs_are_degenerate_and_not_rated(shallow):
    """k = 6 of a depth-7 pool judges the whole pool on every topic (depth-6 pool + as many again): every estimator
    is the truth, so the comparison is not rated (the issue's k = 4 on the reviewer's collection); p = 1 samples the
    whole pool, so there is no variance to test."""
    plan = y.plan(shallow, p_values=[0.3, 1.0], sweep_depths=[1, 2, 6], figure2_depths=[1, 6],
                  validation_trials=3, sweep_trials=2, figure2_trials=2)
    assert set(plan.degenerate) == {"figure 3 at k = 6", "figure 4 at k = 6", "figure 2 at k = 6",
                                    "validation at p = 1"}
    assert "judges 100% of the depth-7 pool, the whole pool on 30 of 30 topics" in plan.degenerate["figure 3 at k = 6"]
    assert "drop k = 6 from sweep_depths" in str(plan) and "degenerate here, so not rated" in str(plan)
    gold = y.prepare(shallow, plan.pool_depth)
    kw = {"seed": 3, "scheduler": "serial", "progress": False}
    validation = y.ci_validation(gold, plan.p_values, trials=3, **kw)
    fig2 = y.figure2_trials(gold, plan.figure2_depths, trials=2, **kw)
    fig3 = y.figure3(gold, plan.sweep_depths, trials=2, **kw)
    fig4 = y.figure4(gold, plan.sweep_depths, trials=2, **kw)
    assert y.tied_depths(fig3) == [6] and y.tied_depths(fig4) == [6]  # the estimators do tie there
    table = _graded(y.claims(gold, None, validation, fig2, fig3, fig4, plan=plan), shallow)
    for figure in ("Figure 3", "Figure 4"):
        row = table[table.claim.str.startswith(f"{figure} at k = 6")]
        assert len(row) == 1
        assert row.verdict.item() == f"not rated: {plan.degenerate_reason(figure.lower() + ' at k = 6')}"
        assert row.verdict.item().startswith("not rated: degenerate (k = 6 judges 100% of the depth-7 pool")
    # the rated rows read only the other depths and say so
    fig3_rows = table[table.claim.str.startswith("Fig. 3")]
    assert fig3_rows.note.str.contains("k = 6 not rated").all()
    assert not fig3_rows.interval.str.contains("k=6").any()
    # the validation's p = 1 is left out of the parts
    coverage = table[table.claim.str.startswith("Fig. 1")].iloc[0]
    assert "p=100%" not in coverage.interval and "p = 100% not rated: degenerate (sampling rate 1" in coverage.note
    # its undefined coverage (sd 0) is named, not printed as nan (which would read 'not rated: NaN' for the row)
    assert "nan" not in coverage.kit_value and "/degenerate of runs" in coverage.kit_value
    assert coverage.verdict != "not rated: NaN"
    # the findings in words leave p = 1 out of every conclusion the same way
    text = y.findings_markdown(validation, plan=plan)
    assert "nan" not in text.lower() and "*p = 100% is left out: degenerate (sampling rate 1" in text
    assert "(p = 100% degenerate)" in text and "/degenerate" in text
    assert "is left out" not in y.findings_markdown(validation)  # without a plan every rate is read


def test_a_study_degenerate_at_every_depth_is_not_rated(shallow):
    plan = y.plan(shallow, sweep_depths=[6], figure2_depths=[6], p_values=[1.0])
    gold = y.prepare(shallow, plan.pool_depth)
    kw = {"seed": 1, "scheduler": "serial", "progress": False}
    claims = y.claims(gold, None, y.ci_validation(gold, [1.0], trials=2, **kw),
                      y.figure2_trials(gold, [6], trials=2, **kw), y.figure3(gold, [6], trials=2, **kw),
                      y.figure4(gold, [6], trials=2, **kw), plan=plan)
    table = _graded(claims, shallow)
    studied = table[table.claim.str.match(r"(Fig\. [1-4]|KS|infAP|the variance|footnote)")
                    & ~table.claim.str.contains("share of the depth")]
    assert len(studied) >= 8
    assert studied.verdict.str.startswith("not rated: degenerate (").all(), studied[["claim", "verdict"]]


def test_ties_found_in_the_results_are_not_rated_without_a_plan(shallow):
    gold = y.prepare(shallow, 7)
    fig3 = y.figure3(gold, [1, 6], trials=2, seed=2, scheduler="serial", progress=False)
    table = _graded(y.claims(gold, fig3=fig3), shallow)
    row = table[table.claim.str.startswith("Figure 3 at k = 6")]
    assert row.verdict.item() == "not rated: degenerate (every estimator ties at k = 6)"


# ----------------------------------------------------------------------------------------- parameters


BAD = [
    ({"seed": -1}, "seed"), ({"seed": 1.5}, "seed"), ({"ratio": [1, 2]}, "ratio"), ({"ratio": [1, -1, 1]}, "ratio"),
    ({"ratio": "3:1.5:1"}, "ratio"), ({"variance_form": "exact"}, "variance_form"), ({"ndcg_cutoff": 0}, "ndcg_cutoff"),
    ({"scheduler": "gpu"}, "scheduler"), ({"validation_trials": 1}, "validation_trials"),
    ({"validation_blocks": 0}, "validation_blocks"), ({"sweep_trials": 0}, "sweep_trials"),
    ({"figure2_trials": 0}, "figure2_trials"), ({"sweep_points": 1}, "sweep_points"), ({"p_values": []}, "p_values"),
    ({"p_values": [0.1, 2]}, "p_values"), ({"p_values": "0.1"}, "p_values"), ({"p_values": [0]}, "p_values"),
    ({"sweep_depths": [0, 2]}, "sweep_depths"), ({"sweep_depths": [1.5]}, "sweep_depths"),
    ({"figure2_depths": []}, "figure2_depths"), ({"pool_depth": "deep"}, "pool_depth"),
]


@pytest.mark.parametrize("given, name", BAD, ids=[f"{n}={v[n]!r}" for v, n in BAD])
def test_a_bad_parameter_is_one_sentence_naming_it(shallow, given, name):
    with pytest.raises(ValueError) as error:
        y.plan(shallow, **given)
    message = str(error.value)
    assert message.startswith(f"{name} = ") and message.replace("e.g. ", "").count(". ") == 0 and "\n" not in message


def test_a_parameter_the_collection_cannot_honour_is_needs_not_met(shallow, tiny):
    for given in ({"sweep_depths": [1, 7]}, {"figure2_depths": [9]}, {"pool_depth": 20}, {"pool_depth": 3}):
        with pytest.raises(NeedsNotMet) as error:
            y.plan(shallow, **given)
        assert str(error.value).startswith("This notebook needs ")
    with pytest.raises(NeedsNotMet):
        y.plan(tiny, sweep_depths=[25])


def test_the_plan_line_names_every_value_set_and_the_sizes(shallow, tiny):
    plan = y.plan(shallow, p_values=[0.25, 0.5], sweep_depths=[1, 3], figure2_depths=[2], ratio=[2, 1, 1],
                  ndcg_cutoff=5, validation_trials=20, sweep_trials=4)
    line = str(plan)
    for text in ("set here: p_values [0.25, 0.5] (the paper's [0.1, 0.2, 0.3])", "sweep_depths [1, 3]",
                 "figure2_depths [2]", "ratio [2, 1, 1] (the paper's 3 : 1.5 : 1)", "ndcg_cutoff 5",
                 "smaller than the paper: 20 samples per p (the paper's 100), 4 trials per depth (the paper's 10)"):
        assert text in line, line
    assert "the paper's settings fit" not in line
    assert plan.ratio == [2.0, 1.0, 1.0] and plan.ndcg_cutoff == 5 and plan.sweep_depths == [1, 3]
    tiny_plan = y.plan(tiny, p_values=[0.5], sweep_depths=[2, 4], figure2_depths=[3], variance_form=y.PAPER_FORM,
                       validation_blocks=2, figure2_trials=4, seed=7, scheduler="serial")
    assert tiny_plan.variance_form == y.PAPER_FORM and tiny_plan.validation_blocks == 2
    assert tiny_plan.figure2_trials == 4 and tiny_plan.seed == 7 and tiny_plan.scheduler == "serial"
    assert "p_values [0.5]" in str(tiny_plan) and "sweep_depths [2, 4]" in str(tiny_plan)


# ---------------------------------------------------------------------------------- intervals, rules


def _validation(mean, sd, map_, block=0, unsmoothed=None):
    mean = np.asarray(mean, float)
    n, P, S = mean.shape
    forms = (y.PAPER_FORM, y.DEFAULT_FORM)[:sd.shape[2]]
    return y.CIValidation(p_values=tuple(round(0.1 * (i + 1), 1) for i in range(P)), forms=forms,
                          runs=np.array([f"r{i}" for i in range(S)], object), judged=np.array([True] * S),
                          map=np.asarray(map_, float), mean=mean, sd=np.asarray(sd, float),
                          judgments=np.ones((n, P), np.int64), n_pooled=10, trials=n, seed=0, confidence=0.95,
                          parts=np.zeros((n, P, 2, S)), empty_topics=np.zeros((n, P), np.int64), block=block,
                          unsmoothed=unsmoothed)


def test_the_intervals_equal_their_figures_computed_directly():
    rng = np.random.default_rng(1)
    n, S = 60, 25
    map_ = rng.uniform(0.1, 0.4, S)
    mean = map_[None, None, :] - 0.01 + 0.02 * rng.standard_normal((n, 1, S))
    sd = np.stack([np.full((n, 1, S), 0.01), np.abs(0.02 + 0.002 * rng.standard_normal((n, 1, S)))], axis=2)
    plain = mean + 0.001 * rng.standard_normal((n, 1, S))
    v = _validation(mean, sd, map_, block=20, unsmoothed=plain)
    assert v.blocks == 3 and v.block_of(2).trials == 20
    np.testing.assert_array_equal(v.block_of(1).mean, mean[20:40])
    # the bias: the mean over samples of the mean over runs
    assert y.bias_interval(v, 0.1).estimate == pytest.approx((mean[:, 0] - map_).mean())
    # the sd ratio: the median over runs of empirical / root mean estimated sd, minus 1
    for j, form in enumerate(v.forms):
        direct = np.median(mean[:, 0].std(axis=0, ddof=1) / np.sqrt((sd[:, 0, j] ** 2).mean(axis=0))) - 1
        interval = y.sd_ratio_interval(v, 0.1, form)
        assert interval.estimate == pytest.approx(direct, rel=1e-9) and interval.low <= direct <= interval.high
    direct = np.median(mean[:, 0].std(axis=0, ddof=1) / plain[:, 0].std(axis=0, ddof=1)) - 1
    assert y.smoothing_variance_interval(v, 0.1).estimate == pytest.approx(direct, rel=1e-9)
    # the KS pass rate: its spread over the three blocks, each block tested as the paper tested its samples
    per_block = [(y.ks_per_run(v.block_of(b)).query("form == @y.DEFAULT_FORM")["p_value"] >= 0.05).mean()
                 for b in range(3)]
    ks = y.ks_interval(v, 0.1, y.DEFAULT_FORM)
    assert (ks.low, ks.estimate, ks.high) == (min(per_block), np.median(per_block), max(per_block))
    blocks = y.ks_blocks(v)
    np.testing.assert_allclose(blocks[blocks.form == y.DEFAULT_FORM]["not rejected"], per_block)
    assert y.ks_table(v).loc[lambda t: t.form == y.DEFAULT_FORM, "not rejected"].item() == np.median(per_block)
    # coverage: the mean over samples of the share of runs covered
    per_trial = y.coverage_per_trial(v).query("form == @y.DEFAULT_FORM")["covered"]
    assert y.coverage_interval(v, 0.1, y.DEFAULT_FORM).estimate == pytest.approx(per_trial.mean())


def test_a_pass_rate_is_rated_on_its_spread_over_blocks(shallow):
    """Two blocks that pass and one that does not: inconclusive, never the median's yes."""
    gold = y.prepare(shallow, 7)
    rng = np.random.default_rng(4)
    n, S = 300, gold.collection.n_runs
    map_ = gold.map
    scale = np.ones((n, 1, S))
    scale[200:] = 3.0  # the last block's deviations are 3 sds wide: the KS test rejects most runs there
    mean = map_[None, None, :] + 0.01 * scale * rng.standard_normal((n, 1, S))
    v = _validation(mean, np.full((n, 1, 2, S), 0.01), map_, block=100)
    row = next(c for c in y.claims(gold, validation=v) if c.claim.startswith("KS test"))
    blocks = y.ks_blocks(v).query("form == @y.DEFAULT_FORM")["not rejected"].to_numpy()
    assert blocks[0] >= 0.9 and blocks[2] < 0.5
    assert row.agrees == "inconclusive" and not row.not_rated
    assert "range over 3 blocks of 100 samples" in row.interval
    one = _validation(mean[:100], np.full((100, 1, 2, S), 0.01), map_, block=100)
    row = next(c for c in y.claims(gold, validation=one) if c.claim.startswith("KS test"))
    assert row.not_rated.startswith("one repetition of the experiment")  # one block: no spread, no rating
    few = _validation(mean[:10], np.full((10, 1, 2, S), 0.01), map_)
    row = next(c for c in y.claims(gold, validation=few) if c.claim.startswith("KS test"))
    assert row.not_rated == ("at class size (10 samples per run; the KS test at the paper's power needs 100)")


def _sweep(margins: dict, trials: int = 10, noise: float = 0.002, seed: int = 0) -> y.Sweep:
    """A hand-made Figure 3 sweep: at each k, xinfAP's tau and rho lead each rival by ``margins[k]`` (plus noise)
    and its RMS is ``1 - 3 margins[k]`` of the rival's (a relative RMS margin of 3 margins[k])."""
    rng = np.random.default_rng(seed)
    rows = []
    for k, margin in margins.items():
        for t in range(trials):
            base = 0.8 + 0.01 * rng.standard_normal()
            for e, name in enumerate(y.FIGURE3_ESTIMATORS):
                lead = margin + noise * rng.standard_normal() if e == 0 else 0.0
                rows.append({"trial": t, "k": k, "estimator": name, "measure": "AP", "judgments": 10, "share": 0.1,
                             "tau": base + lead, "rho": base + lead,
                             "RMS": 0.02 * (1 - 3 * margin) if e == 0 else 0.02, "mean error": 0.0})
    stats = pd.DataFrame(rows)
    means = np.random.default_rng(seed).random((trials, len(margins), 3, 5))
    return y.Sweep(tuple(margins), y.FIGURE3_ESTIMATORS, ("AP",) * 3, means, np.ones((trials, len(margins), 3)),
                   stats, trials, seed)


def test_much_more_accurate_is_rated_on_the_margin_over_trials(shallow):
    gold = y.prepare(shallow, 7)

    def rows(margins):
        table = _graded(y.claims(gold, fig3=_sweep(margins)), shallow)
        return table.set_index(table.claim.str.extract(r"^(Fig\. 3: xinfAP \S+ \S+)")[0])

    # the TREC-8 case: a small lead at the shallow depths, a large one at the deep ones
    table = rows({1: 0.01, 5: 0.02, 20: 0.10, 50: 0.12})
    assert table.loc["Fig. 3: xinfAP is *much*", "agrees"] == "partly"
    assert table.loc["Fig. 3: xinfAP (depth +", "agrees"] == "yes"  # it does lead everywhere
    assert "k=1 tau margin" in table.loc["Fig. 3: xinfAP is *much*", "interval"]
    table = rows({1: 0.10, 5: 0.10})
    assert table.loc["Fig. 3: xinfAP is *much*", "agrees"] == "yes"
    table = rows({1: -0.03, 5: 0.10})  # xinfAP behind at k = 1: the direction reversed there
    assert table.loc["Fig. 3: xinfAP (depth +", "agrees"] == "no"
    assert table.loc["Fig. 3: xinfAP (depth +", "verdict"] == "direction only: no"


def test_the_rules_read_the_interval_not_the_estimate():
    """The rows' ratings come from evalkit.claims.rules on the interval (no typed verdict): one straddling the
    paper's threshold is inconclusive whatever its middle."""
    straddling = Interval(0.92, 0.85, 0.97)
    assert rules.at_least(straddling, 0.9).agrees == "inconclusive"
    assert rules.at_least(Interval(0.5, 0.4, 0.6), 0.9).agrees == "no"
    assert rules.small(Interval(-0.04, -0.045, -0.035), "score").agrees == "no"


# ---------------------------------------------------------------------------------- computed sentences


def test_findings_state_the_numbers_of_their_tables(shallow):
    gold = y.prepare(shallow, 7)
    v = y.ci_validation(gold, [0.2, 0.4], trials=8, blocks=2, seed=5, scheduler="serial", progress=False)
    text = y.findings_markdown(v, form=y.DEFAULT_FORM)
    bias = [y.bias_interval(v, p) for p in v.p_values]
    if all(i.estimate < 0 for i in bias):
        assert "falls short of MAP by " + "/".join(f"{-i.estimate:.3f} [{-i.high:.3f}, {-i.low:.3f}]"
                                                   for i in bias) in text
    else:
        assert "differs from MAP by " + "/".join(f"{i.estimate:+.3f}" for i in bias).split("/")[0] in text
    assert "-0." not in re.findall(r"falls short of MAP by ([^(]*)", text + "falls short of MAP by ")[0]
    table = y.ks_table(v)
    for form in v.forms:
        ratio = "/".join(f"{r:.2f}" for r in table.loc[table.form == form, "empirical / estimated sd"])
        assert f"'{form}' {ratio}" in text
    kit = "/".join(f"{r:.0%}" for r in table.loc[table.form == y.DEFAULT_FORM, "not rejected"])
    assert f"It does not reject {kit} of the runs" in text
    assert f"({v.blocks} blocks of {v.block_size}" in text
    coverage = [y.coverage_interval(v, p, y.DEFAULT_FORM) for p in v.p_values]
    assert "/".join(f"{i.estimate:.0%} [{i.low:.0%}, {i.high:.0%}]" for i in coverage) in text
    # a conclusion follows the numbers: "only ... has the right variance" names exactly the forms that fit
    fits = [f for f in v.forms if rules.combine([rules.comparable(y.sd_ratio_interval(v, p, f), "relative")
                                                 for p in v.p_values], every=True).agrees == "yes"]
    stated = re.search(r"Within 10% of 1 over its whole interval \('comparable'\): ([^;.]*)", text).group(1)
    assert stated == (", ".join(f"'{f}'" for f in fits) if fits else "no form")


def test_the_deviations_and_the_truth_state_their_counts(shallow):
    plan = y.plan(shallow)
    gold = y.prepare(shallow, plan.pool_depth)
    counts = y.truth_counts(gold)
    assert counts["judgments in the truth pool"] + counts["judgments outside it"] == counts["qrels judgments"]
    assert counts["pooled documents"] == gold.n_pooled
    full = shallow.qrels
    assert counts["qrels relevant"] == int((full.grade >= 1).sum())
    table = y.deviations(gold, plan)
    assert list(table.columns) == ["what differs from the paper", "why", "effect"]
    truth = table.iloc[0]
    assert f"{counts['judgments outside it']:,} qrels judgments ({counts['relevant outside it']:,} relevant)" \
        in truth["effect"]
    scaled = table[table["what differs from the paper"].str.startswith("pool depth 7 instead of 100")]
    assert len(scaled) == 1 and f"{plan.shares[1]:.0%} (k = 1)" in scaled.effect.item()
    assert y.truth_table(gold)["count"].tolist() == list(counts.values())


def test_sensitivity_grades_the_form_dependent_claims_under_every_form(shallow):
    gold = y.prepare(shallow, 7)
    v = y.ci_validation(gold, [0.3], trials=4, seed=2, scheduler="serial", progress=False)
    table = y.sensitivity(gold, v)
    assert list(table.index) == list(y.VARIANCE_FORMS)
    assert list(table.columns) == list(y.SENSITIVE_CLAIMS.values())
    # 4 samples: the KS and sd rows cannot be rated at that size, the coverage row can be graded
    assert table["KS test (90% not rejected)"].str.startswith("not rated at class size").all()
    assert table["this form's sd is right"].str.startswith("not rated at class size").all()


# ------------------------------------------------------------------------------------- the notebook


def _outputs(path) -> str:
    import nbformat

    notebook = nbformat.read(str(path), as_version=4)
    out = []
    for cell in notebook.cells:
        for o in cell.get("outputs", []):
            out.append(o.get("text", "") or "".join(o.get("data", {}).get("text/markdown", "")))
            out.append("".join(o.get("data", {}).get("text/plain", "")))
    return "\n".join(out)


@pytest.mark.notebooks
@pytest.mark.parametrize("name", ["shallow", "tiny"])
def test_notebook_runs_with_every_parameter_off_its_default(name, simulated_folders, shallow, tiny, tmp_path):
    """Every parameter of the notebook set away from its default on the shallow and tiny collections: the notebook
    runs (fast sizes), its plan line names the values used, and its sentences state their tables' numbers."""
    from evalkit.batch.pipeline import NOTEBOOK_DIR, run_notebook
    from evalkit.claims import read_claims

    collection = shallow if name == "shallow" else tiny
    parameters = {"seed": 11, "p_values": [0.25, 1.0] if name == "shallow" else [0.5], "validation_trials": 3,
                  "validation_blocks": 2, "sweep_depths": [1, 2, 6] if name == "shallow" else [1, 3],
                  "sweep_trials": 2, "figure2_depths": [2, 1], "figure2_trials": 2, "ratio": [2.0, 1.0, 1.0],
                  "variance_form": y.PAPER_FORM, "ndcg_cutoff": 5, "scheduler": "serial", "preset": "class"}
    target = tmp_path / "01.ipynb"
    run_notebook(NOTEBOOK_DIR / "01_yilmaz2008_inferred_ap_ndcg.ipynb", target, dataset=str(simulated_folders[name]),
                 fast=True, extra_parameters=parameters)
    text = _outputs(target)
    assert "Traceback" not in text
    plan = y.plan(collection, p_values=parameters["p_values"], sweep_depths=parameters["sweep_depths"],
                  figure2_depths=parameters["figure2_depths"], ratio=parameters["ratio"], ndcg_cutoff=5, fast=True,
                  validation_trials=3, validation_blocks=2, sweep_trials=2, figure2_trials=2, seed=11,
                  variance_form=y.PAPER_FORM, scheduler="serial")
    assert str(plan) in text
    assert "ratio [2, 1, 1] (the paper's 3 : 1.5 : 1)" in text and "ndcg_cutoff 5" in text
    gold = y.prepare(collection, plan.pool_depth, ndcg_cutoff=5)
    counts = y.truth_counts(gold)
    assert (f"**Truth used here: the depth-{gold.depth} pool of the {int(gold.judged.sum())} judged runs on "
            f"{collection.name}**, {gold.n_pooled:,} documents. {counts['judgments outside it']:,} of the "
            f"collection's {counts['qrels judgments']:,} judgments") in text
    seeds = y.figure2_trials(gold, plan.figure2_depths, trials=2, seed=11, scheduler="serial", progress=False)
    error = y.figure2_interval(seeds, min(plan.figure2_depths), "mean error")
    assert f"the mean error of mean xinfAP against MAP is **{error.estimate:+.4f}** (median over 2 seeds" in text
    claims = read_claims(target)
    assert len(claims) > 5
    if name == "shallow":
        degenerate = claims[claims.claim.str.startswith(("Figure 3 at k = 6", "Figure 4 at k = 6"))]
        assert len(degenerate) == 2 and degenerate.verdict.str.startswith("not rated: degenerate (k = 6").all()
    else:  # 3 runs: nothing computed on it is rated
        assert not claims.verdict.isin(["yes", "no", "partly"]).any()


def test_the_notebook_marks_its_core_path_and_shows_progress():
    import nbformat

    from evalkit.batch.pipeline import NOTEBOOK_DIR

    notebook = nbformat.read(str(NOTEBOOK_DIR / "01_yilmaz2008_inferred_ap_ndcg.ipynb"), as_version=4)
    first, rest = notebook.cells[0], notebook.cells[1:]
    assert "core path" in first.source and '"class"' in first.source  # how long the core path takes in class
    for index, cell in enumerate(rest, start=1):
        tags = set(cell.metadata.get("tags", []))
        assert len(tags & {"core", "optional"}) == 1, f"cell {index}: {sorted(tags)}"
    code = "\n".join(c.source for c in notebook.cells if c.cell_type == "code")
    assert "progress=False" not in code and "print(plan)" not in code and "display(plan)" in code
    # headings state no sample size: the sizes run are printed under the cells that ran them
    headings = [line for c in notebook.cells if c.cell_type == "markdown" for line in c.source.splitlines()
                if line.startswith("#")]
    assert not [h for h in headings if re.search(r"\d+ (samples|trials|seeds)", h)], headings
