"""Every needs-check of notebooks 00, 01, 03 and 04 (their experiment modules' plan()), with the sentence it
prints, and the scaled defaults, on simulated collections written as TREC files and loaded through the front door."""

from __future__ import annotations

import pytest

from evalkit.datasets import load_dataset
from evalkit.experiments import lu2017, soboroff2007, tour, voorhees2014
from evalkit.needs import NeedsNotMet, require_runs, scale_depth, scale_depths, scale_k
from evalkit.simulate import write_collection

SMALL = {"n_runs": 20, "n_topics": 8, "depth": 30, "topic_ids": [str(401 + t) for t in range(8)]}
HOW = ("Say which runs contributed to the pools: a 'judged' column (yes/no) in runs_table.tsv or \"judged_runs\" "
       "in collection.json (README, For reviewers).")
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
        "(collection.json 'judged_depth'). Set pool_depths within depth 7, or \"judged_depth\" in collection.json "
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


# ------------------------------------------------------------------------------------------------ 01 Voorhees


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
        "collection has judged depth 7 (collection.json 'judged_depth'). Set strategies within depth 7, or "
        "\"judged_depth\" in collection.json if the pools were deeper.")
    assert sentence(lambda: voorhees2014.plan(collections["depth1"], ["3strata", "2strata"])) == (
        "This notebook needs a sampling strategy that fits in the 1 judged rank(s); the collection has judged "
        "depth 1, too shallow for 3strata, 2strata. Pass strategies with fewer strata (e.g. \"[1-1]@1\"), or set "
        "\"judged_depth\" in collection.json if the pools were deeper.")


def test_voorhees_scales_the_presets(collections):
    plan = voorhees2014.plan(collections["shallow"])
    assert [str(s) for s in plan.strategies] == [
        "pool15: [1-1]@1", "pool25: [1-2]@1", "1stratum: [1-7]@0.3", "2strata: [1-1]@1 + [2-7]@0.15",
        "3strata: [1-1]@1 + [2-2]@0.25 + [3-7]@0.05", "medical2012: [1-1]@1 + [2-7]@0.25"]
    assert str(plan).startswith("01_voorhees2014 on shallow (simulated): the presets scaled to the judged depth 7 "
                                "(x0.07): pool15: [1-1]@1, pool25: [1-2]@1")
    dropped = voorhees2014.plan(collections["depth1"])
    assert [s.name for s in dropped.strategies] == ["pool15", "pool25", "1stratum"]
    assert "dropped 2strata, 3strata, medical2012 (more strata than the 1 judged ranks)" in str(dropped)
    assert voorhees2014.plan(collections["one_group"]).notes[-1] == "each trial pools from 1 of the 3 judged runs"


# ------------------------------------------------------------------------------------------------ 03 Soboroff


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
    assert str(plan) == ("03_soboroff2007 on shallow (simulated): phase-1 depth 4 (the paper's 50 of TREC-8's 100, "
                         "scaled to the judged depth 7); samples capped at depth 7.")
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
        "(collection.json 'judged_depth'). Set reference_depth within depth 7, or \"judged_depth\" in "
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
    for module in (tour, voorhees2014, soboroff2007, lu2017):
        plan = module.plan(trec8)
        assert plan.notes == [], str(plan)
        assert str(plan).endswith("on trec8: the paper's settings fit this collection.")
    assert [s.name for s in voorhees2014.plan(trec8).strategies] == list(voorhees2014.DEFAULT_STRATEGIES)


# ------------------------------------------------------------------------------------------------ helpers


def test_scaling_helpers(collections):
    assert scale_depth(50, 100) == 50 and scale_depth(50, 1000) == 50
    assert scale_depth(50, 7) == 4 and scale_depth(10, 7) == 1 and scale_depth(10, 7, minimum=2) == 2
    assert scale_depths([10, 20, 30], 7) == [1, 2] and scale_depths([10, 20, 30], 7, below=2) == [1]
    tiny = collections["two_topics"]
    assert scale_k(10, tiny) == 3 and scale_k(5, tiny) == 5
    assert sentence(lambda: require_runs(tiny, 5, "k")) == (
        "This notebook needs at least 5 runs (k = 5); the collection has 3. Set k to at most 3.")
