"""Every needs-check of notebooks 00-05 (their experiment modules' plan()), with the sentence it prints, and the
scaled defaults, on simulated collections written as TREC files and loaded through the front door."""

from __future__ import annotations

import pytest

from evalkit.data.datasets import load_dataset
from evalkit.data.simulator import write_collection
from evalkit.papers import (
    carterette2007,
    lu2017,
    soboroff2007,
    tour,
    voorhees2014,
    yilmaz2008,
)
from evalkit.papers.needs import (
    NeedsNotMet,
    require_runs,
    scale_depth,
    scale_depths,
    scale_k,
)

SMALL = {"n_runs": 20, "n_topics": 8, "depth": 30, "topic_ids": [str(401 + t) for t in range(8)]}
HOW = ("Say which runs contributed to the pools: a 'judged' column (yes/no) in runs_table.tsv or \"judged_runs\" "
       "in collection.json (docs/reviewers.md).")
UNMARKED_HAS = ("the collection has 0 of 20 runs judged (rule: derived: every document of the run's top 100 is in "
                "the qrels, on every topic). ")


@pytest.fixture(scope="module")
def collections(tmp_path_factory):
    root = tmp_path_factory.mktemp("needs")
    specs = {
        "shallow": ("shallow", SMALL),                                    # judged depth 7, one run per group
        "unmarked": ("unmarked", SMALL),                                  # no judged run
        "depth1": ("shallow", {**SMALL, "judged_depth": 1}),              # pools one rank deep
        "one_group": ("tiny", {"size_pmf": [0, 0, 1], "judged_per_group": 3}),  # 3 judged runs, one group
        "two_topics": ("tiny", {"n_topics": 2, "topic_ids": ["a", "b"]}),
        "tiny": ("tiny", {}),                                             # 3 runs, 5 topics, judged depth 20
        "two_runs": ("tiny", {"n_runs": 2}),
    }
    return {name: load_dataset(str(write_collection(root / name, preset, **options)))
            for name, (preset, options) in specs.items()}


def sentence(call) -> str:
    with pytest.raises(NeedsNotMet) as error:
        call()
    return str(error.value)


# ------------------------------------------------------------------------------------------------ 00 tour


def test_tour_needs_judged_runs(collections):
    assert sentence(lambda: tour.plan(collections["unmarked"])) == (
        "This notebook needs at least 2 judged runs (runs that contributed to the pools) to pool from; "
        + UNMARKED_HAS + HOW)


def test_tour_checks_depths_the_user_set(collections):
    assert sentence(lambda: tour.plan(collections["shallow"], pool_depths=[1, 10])) == (
        "This notebook needs judgments to depth 10 (pool_depths = 10); the collection has judged depth 7 "
        "(collection.json 'judged_depth'). Keep the parameter pool_depths at or below depth 7, or set \"judged_depth\" in collection.json "
        "if the pools were deeper.")
    assert sentence(lambda: tour.plan(collections["shallow"], slider_depth=8)).startswith(
        "This notebook needs judgments to depth 8 (slider_depth = 8)")


def test_tour_scales_its_defaults(collections):
    plan = tour.plan(collections["shallow"])
    assert str(plan) == ("00_tour on shallow (simulated): pool depths cut at the judged depth 7: [1, 2, 5, 7] "
                         "(dropped [10, 20, 50, 100]); the depth-10 figure and the slider use depth 1 (10 of 100, "
                         "scaled).")
    assert (plan.pool_depths, plan.slider_depth, plan.max_depth, plan.shallow_depth) == ([1, 2, 5, 7], 1, 7, 1)
    assert tour.plan(collections["shallow"], pool_depths=[2, 3]).pool_depths == [2, 3]


# ------------------------------------------------------------------------------------------------ 03 Voorhees


def test_voorhees_needs_judged_runs_and_topics(collections):
    assert sentence(lambda: voorhees2014.plan(collections["unmarked"])) == (
        "This notebook needs at least 2 judged runs (runs that contributed to the pools) to split in half (each "
        "trial pools from half of them); " + UNMARKED_HAS + HOW)
    assert sentence(lambda: voorhees2014.plan(collections["two_topics"])) == (
        "This notebook needs at least 3 topics (the paired t-tests pair topics; R̂ is correlated with R across "
        "topics); the collection has 2. No parameter changes this: point dataset at a collection with more judged "
        "topics.")


def test_voorhees_checks_strategies_the_user_wrote(collections):
    assert sentence(lambda: voorhees2014.plan(collections["shallow"], ["pool15", "[1-5]@1+[6-20]@0.5"])) == (
        "This notebook needs judgments to depth 20 (strategy '[1-5]@1+[6-20]@0.5' samples down to rank 20); the "
        "collection has judged depth 7 (collection.json 'judged_depth'). Keep the parameter strategies at or below depth 7, or "
        "set \"judged_depth\" in collection.json if the pools were deeper.")
    assert sentence(lambda: voorhees2014.plan(collections["depth1"], ["3strata", "2strata"])) == (
        "This notebook needs a sampling strategy that fits in the 1 judged rank(s); the collection has judged "
        "depth 1, too shallow for 3strata, 2strata. Pass strategies with fewer strata (e.g. \"[1-1]@1\"), or set "
        "\"judged_depth\" in collection.json if the pools were deeper.")


def test_voorhees_scales_the_presets(collections):
    plan = voorhees2014.plan(collections["shallow"])
    assert [str(s) for s in plan.strategies] == [
        "pool15: [1-1]@1", "pool25: [1-2]@1", "1stratum: [1-7]@0.3", "2strata: [1-1]@1 + [2-7]@0.15",
        "3strata: [1-1]@1 + [2-2]@0.25 + [3-7]@0.05", "medical2012: [1-1]@1 + [2-7]@0.25"]
    assert str(plan).startswith("03_voorhees2014 on shallow (simulated): the presets scaled from pool depth 100 to "
                                "the judged depth 7 (x0.07): pool15 [1-15]@1 -> [1-1]@1, pool25 [1-25]@1 -> [1-2]@1")
    dropped = voorhees2014.plan(collections["depth1"])
    assert [s.name for s in dropped.strategies] == ["pool15", "pool25", "1stratum"]
    assert "dropped 2strata, 3strata, medical2012 (more strata than the 1 judged ranks)" in str(dropped)
    assert voorhees2014.plan(collections["one_group"]).notes[-1] == "each trial pools from 1 of the 3 judged runs"


# ------------------------------------------------------------------------------------------------ 01 Yilmaz


def test_yilmaz_needs(collections):
    assert sentence(lambda: yilmaz2008.plan(collections["unmarked"])) == (
        "This notebook needs at least 2 judged runs (runs that contributed to the pools) to build the pool every "
        "sample is drawn from; " + UNMARKED_HAS + HOW)
    assert sentence(lambda: yilmaz2008.plan(collections["depth1"])) == (
        "This notebook needs judgments at least 4 ranks deep (Figure 4 judges a depth-1 pool and samples three "
        "strata below it); the collection has judged depth 1 (collection.json 'judged_depth'). Give "
        "\"judged_depth\" in collection.json if the pools were deeper.")
    with pytest.raises(ValueError) as error:  # a bad value, not the collection: one sentence naming the parameter
        yilmaz2008.plan(collections["shallow"], p_values=[0.5, 1.5])
    assert str(error.value) == ("p_values = [0.5, 1.5]: [1.5] lie outside (0, 1]: give shares of the pool, e.g. "
                                "[0.1, 0.2, 0.3].")


def test_yilmaz_checks_depths_the_user_set(collections):
    shallow = collections["shallow"]
    assert sentence(lambda: yilmaz2008.plan(shallow, pool_depth=50)) == (
        "This notebook needs judgments to depth 50 (pool_depth = 50); the collection has judged depth 7 "
        "(collection.json 'judged_depth'). Keep the parameter pool_depth at or below depth 7, or set \"judged_depth\" in collection.json if "
        "the pools were deeper.")
    assert sentence(lambda: yilmaz2008.plan(shallow, pool_depth=3)) == (
        "This notebook needs a pool at least 4 deep (pool_depth = 3: Figure 4 samples three strata below a depth-1 "
        "pool); the collection has judged depth 7. Set pool_depth between 4 and 7.")
    assert sentence(lambda: yilmaz2008.plan(shallow, sweep_depths=[2, 7])) == (
        "This notebook needs pool depths k from 1 to 6, below the pool depth 7 (sweep_depths = [2, 7]: the rest of "
        "the pool is sampled); the collection has pool depth 7 (judged depth 7). Drop [7] from sweep_depths.")
    with pytest.raises(ValueError, match=r"^figure2_depths = \[\]: give a non-empty list"):
        yilmaz2008.plan(shallow, figure2_depths=[])
    user = yilmaz2008.plan(shallow, pool_depth=6, sweep_depths=[1, 5], figure2_depths=[3])
    assert (user.pool_depth, user.sweep_depths, user.figure2_depths, user.strata_example_depth) == (6, [1, 5], [3], 1)
    # values the user set are named as such, never as the paper's settings; k = 5 judges the whole depth-6 pool
    assert str(user).startswith(
        "01_yilmaz2008 on shallow (simulated): the truth is the depth-6 pool of the judged runs (pool_depth set: the "
        "paper's 100); set here: sweep_depths [1, 5] (the paper's 1-50), figure2_depths [3] (the paper's 10, 5, 1); ")
    assert "degenerate here, so not rated: figure 3 at k = 5 (k = 5 judges 100% of the depth-6 pool" in str(user)


def test_yilmaz_scales_the_pool_to_the_judged_depth(collections):
    plan = yilmaz2008.plan(collections["shallow"])
    assert str(plan) == (
        "01_yilmaz2008 on shallow (simulated): the truth is the depth-7 pool of the judged runs (the judged depth; "
        "the paper's depth-100 pool is as deep as TREC-8 was judged); the depths k scaled by 7/100: Figures 3-4 "
        "k = [1, 2, 3, 4] (the paper's 1-50), Figure 2 k = [1] (the paper's 10, 5, 1); the designs cannot keep the "
        "paper's shares of the pool: its shallowest (depth 1 + as many random documents) judged 3.5% of TREC-8's "
        "depth-100 pool, here the shallowest, k = 1, judges 28% of the depth-7 pool (the depth-1 pool alone is 14% of "
        "it); degenerate here, so not rated: figure 3 at k = 4 (k = 4 judges 100% of the depth-7 pool, the whole pool "
        "on 8 of 8 topics: every estimator is the truth; drop k = 4 from sweep_depths); figure 4 at k = 4 (k = 4 "
        "judges 100% of the depth-7 pool, the whole pool on 8 of 8 topics: every estimator is the truth; drop k = 4 "
        "from sweep_depths).")  # the reviewer's case of issue 26: the scaled k = 4 judges the whole pool
    assert (plan.pool_depth, plan.sweep_depths, plan.figure2_depths, plan.strata_example_depth) == (7, [1, 2, 3, 4],
                                                                                                    [1], 1)
    assert (plan.validation_trials, plan.sweep_trials) == (100, 10)
    fast = yilmaz2008.plan(collections["tiny"], fast=True)
    assert (fast.pool_depth, fast.sweep_depths, fast.figure2_depths, fast.validation_trials, fast.sweep_trials) == (
        20, [1, 6, 10], [2, 1], 10, 2)
    gold = yilmaz2008.prepare(collections["shallow"], depth=plan.pool_depth)
    assert gold.depth == 7 and gold.n_pooled == len(collections["shallow"].qrels)  # the pool is what was judged


# ------------------------------------------------------------------------------------------------ 05 Carterette


def test_carterette_needs(collections):
    assert sentence(lambda: carterette2007.plan(collections["unmarked"])) == (
        "This notebook needs to know how deep the qrels go (MTC and RTC ask them about any document of a run's top "
        "100; past the judged depth an unjudged document would count as nonrelevant); the collection has no judged "
        "depth (rule: derived: every document of the run's top 100 is in the qrels, on every topic). Set "
        "\"judged_depth\" in collection.json, or say which runs contributed to the pools: a 'judged' column (yes/no) "
        "in runs_table.tsv (docs/reviewers.md).")
    assert sentence(lambda: carterette2007.plan(collections["two_runs"])) == (
        "This notebook needs at least 3 runs (two original runs whose judgments are reused on a new one); the "
        "collection has 2. No parameter changes this: point dataset at a collection with more runs.")
    tiny = collections["tiny"]
    assert sentence(lambda: carterette2007.plan(tiny, k=5)) == (
        "This notebook needs at least 5 runs (k = 5); the collection has 3. Set k to at most 3.")
    assert sentence(lambda: carterette2007.plan(tiny, c=3)) == (
        "This notebook needs more runs a trial than original runs (c = 3, k = 3: the judgments built for the c "
        "original runs are reused on the k - c new ones); the collection has 3 runs. Set c to at most 2.")
    assert sentence(lambda: carterette2007.plan(collections["shallow"], k=3, c=3)).endswith(
        "the collection has 20 runs. Set c to at most 2, or k to at least 4.")
    assert sentence(lambda: carterette2007.plan(collections["shallow"], depth=50)) == (
        "This notebook needs judgments to depth 50 (depth = 50); the collection has judged depth 7 (collection.json "
        "'judged_depth'). Keep the parameter depth at or below depth 7, or set \"judged_depth\" in collection.json if the pools were deeper.")
    with pytest.raises(ValueError, match="c must be >= 2"):
        carterette2007.plan(tiny, c=1)


def test_carterette_scales_runs_and_depth(collections):
    tiny = carterette2007.plan(collections["tiny"])
    assert str(tiny) == (
        "05_carterette2007 on tiny (simulated): k = 3 runs a trial (3 pairs; the paper's 10: the collection has 3 "
        "runs); lists cut at depth 20 instead of the paper's 100 (the judged depth; the paper's 100 is as deep as ad "
        "hoc 99 was judged); the aggregation prior Beta(a, a) chosen at run time by topic-split cross-validation on "
        "this collection (the paper's Beta(1, 1) was trained on TREC-4, which the kit does not have).")
    assert (tiny.k, tiny.c, tiny.depth, tiny.pairs, tiny.trials, tiny.max_judgments) == (3, 2, 20, 3, 300, None)
    shallow = carterette2007.plan(collections["shallow"], fast=True)
    assert (shallow.k, shallow.depth, shallow.pairs) == (10, 7, 45)
    assert (shallow.trials, shallow.prior_trials, shallow.strength_trials, shallow.widget_trials,
            shallow.max_judgments) == (4, 2, 1, 1, 300)
    user = carterette2007.plan(collections["shallow"], k=4, c=3, depth=5)
    assert (user.k, user.c, user.depth, user.pairs) == (4, 3, 5, 6)  # set, so not scaled, and said as set
    assert user.notes[:3] == ["k = 4 runs a trial (set; the paper's 10)", "c = 3 original runs (set; the paper's 2)",
                              "lists cut at depth 5 (set; the paper's 100)"]
    data = carterette2007.TrialData.from_collection(collections["tiny"], depth=tiny.depth)
    results = carterette2007.run_experiment(data, n_trials=2, seed=1, scheduler="serial", progress=False, k=tiny.k,
                                            c=tiny.c, max_judgments=20)  # 3 runs: no draw of 10 out of 3
    assert len(results.pairs) == 2 * tiny.pairs and data.docs.shape[2] == 20


# ------------------------------------------------------------------------------------------------ 02 Soboroff


def test_soboroff_needs_groups_depth_and_a_deeper_sample(collections):
    assert sentence(lambda: soboroff2007.plan(collections["unmarked"])).startswith(
        "This notebook needs at least 2 judged runs (runs that contributed to the pools) to pool from (Figure 1's "
        "tau needs two pooling runs); " + UNMARKED_HAS)
    assert sentence(lambda: soboroff2007.plan(collections["one_group"])) == (
        "This notebook needs judged runs from at least 2 groups to leave one group out; the collection has judged "
        "runs from 1 group(s). Give each run its group in runs_table.tsv (column 'group'), or mark runs of other "
        "groups as judged.")
    assert sentence(lambda: soboroff2007.plan(collections["depth1"])) == (
        "This notebook needs judgments at least 2 ranks deep (a phase-1 pool and a sample below it); the collection "
        "has judged depth 1. Give \"judged_depth\" in collection.json if the pools were deeper.")
    assert sentence(lambda: soboroff2007.plan(collections["shallow"], phase1_depth=10)) == (
        "This notebook needs judgments deeper than the phase-1 depth (phase1_depth = 10) to sample below it; the "
        "collection has judged depth 7 (collection.json 'judged_depth'). Set phase1_depth to at most 6.")
    with pytest.raises(ValueError, match="n_subsamples must be >= 2"):
        soboroff2007.plan(collections["shallow"], n_subsamples=1)


def test_soboroff_scales_the_phase1_depth(collections):
    plan = soboroff2007.plan(collections["shallow"])
    assert (plan.phase1_depth, plan.max_depth) == (4, 7)
    assert str(plan).startswith("02_soboroff2007 on shallow (simulated): phase-1 depth 4 (the paper's 50 of "
                                "TREC-8's 100, scaled to the judged depth 7); samples capped at depth 7; degenerate "
                                "here, so not rated: sampling (sampling rate 1.0 on 8 of 8 topics; budget=12 "
                                "restores it")
    assert soboroff2007.plan(collections["shallow"], phase1_depth=3).phase1_depth == 3


# ------------------------------------------------------------------------------------------------ 04 Lu


def test_lu_needs(collections):
    assert sentence(lambda: lu2017.plan(collections["unmarked"])).startswith(
        "This notebook needs at least 2 judged runs (runs that contributed to the pools) for the estimators to "
        "learn from; " + UNMARKED_HAS)
    assert sentence(lambda: lu2017.plan(collections["one_group"])) == (
        "This notebook needs judged runs from at least 2 groups (Table 3 leaves one group out); the collection has "
        "judged runs from 1 group(s). Give each run its group in runs_table.tsv (column 'group'), or mark runs of "
        "other groups as judged.")
    assert sentence(lambda: lu2017.plan(collections["depth1"])) == (
        "This notebook needs judgments at least 2 ranks deep (a reference depth d and a shallower pool d'); the "
        "collection has judged depth 1. Give \"judged_depth\" in collection.json if the pools were deeper.")
    assert sentence(lambda: lu2017.plan(collections["shallow"], reference_depth=50)) == (
        "This notebook needs judgments to depth 50 (reference_depth = 50); the collection has judged depth 7 "
        "(collection.json 'judged_depth'). Keep the parameter reference_depth at or below depth 7, or set \"judged_depth\" in "
        "collection.json if the pools were deeper.")
    assert sentence(lambda: lu2017.plan(collections["shallow"], depths=[3, 7])) == (
        "This notebook needs pool depths d' < the reference depth d = 7 (depths = [3, 7]); the collection has d = 7 "
        "(judged depth 7). Drop [7] from depths.")


def test_lu_scales_to_the_judged_depth(collections):
    plan = lu2017.plan(collections["shallow"])
    assert (plan.reference_depth, plan.depths, plan.gamma_depths, plan.figure4_depths, plan.table3_depth,
            plan.two_strata_depth) == (7, [1, 2], [1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4], 1, 1)
    assert plan.paper_depths == {1: 10, 2: 30}
    fast = lu2017.plan(collections["shallow"], fast=True, repetitions=10)
    assert (fast.depths, fast.gamma_depths, fast.figure4_depths, fast.repetitions) == ([1, 2], [1, 3, 7], [1, 3], 3)
    user = lu2017.plan(collections["shallow"], depths=[2, 5])
    assert user.depths == [2, 5] and user.paper_depths == {}
    rows = lu2017.paper_table2(plan.depths, plan.paper_depths)
    assert sorted(rows.depth.unique()) == [1, 2] and len(rows) == 2 * 6 * 8  # 6 collections x 8 cells a d'


def test_trec8_fits_every_paper_default(trec8):
    for module in (tour, yilmaz2008, soboroff2007, lu2017):
        plan = module.plan(trec8)
        assert plan.notes == [], str(plan)
        assert str(plan).endswith("on trec8: the paper's settings fit this collection.")
    # 05's aggregation prior is the kit's reconstruction (the paper's was trained on TREC-4): its plan says so
    assert [n.split(" chosen ")[0] for n in carterette2007.plan(trec8).notes] == ["the aggregation prior Beta(a, a)"]
    # 03's rates are the kit's reconstruction (the paper's are cut off): its plan says so instead of "the paper's"
    assert [n.split(" are ")[0] for n in voorhees2014.plan(trec8).notes] == [
        "the sampling rates of 1stratum, 2strata, 3strata"]
    assert [s.name for s in voorhees2014.plan(trec8).strategies] == list(voorhees2014.DEFAULT_STRATEGIES)
    yilmaz = yilmaz2008.plan(trec8)
    assert (yilmaz.pool_depth, yilmaz.sweep_depths, yilmaz.figure2_depths, yilmaz.strata_example_depth) == (
        100, list(yilmaz2008.FIGURE3_DEPTHS), list(yilmaz2008.FIGURE2_DEPTHS), 10)
    carterette = carterette2007.plan(trec8)
    assert (carterette.k, carterette.c, carterette.depth, carterette.pairs) == (10, 2, 100, 45)


# ------------------------------------------------------------------------------------------------ helpers


def test_scaling_helpers(collections):
    assert scale_depth(50, 100) == 50 and scale_depth(50, 1000) == 50
    assert scale_depth(50, 7) == 4 and scale_depth(10, 7) == 1 and scale_depth(10, 7, minimum=2) == 2
    assert scale_depths([10, 20, 30], 7) == [1, 2] and scale_depths([10, 20, 30], 7, below=2) == [1]
    tiny = collections["two_topics"]
    assert scale_k(10, tiny) == 3 and scale_k(5, tiny) == 5
    assert sentence(lambda: require_runs(tiny, 5, "k")) == (
        "This notebook needs at least 5 runs (k = 5); the collection has 3. Set k to at most 3.")
