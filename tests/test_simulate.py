"""The simulator: shape and invariants of the arrays, trec_eval order, complete judgments, determinism, parameters,
and the fit to TREC-8 (the targets stored in evalkit/data/synthetic_trec8_params.json; re-checked against the real data when
it is present)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from evalkit.data.collection import Collection
from evalkit.data.simulator import DEFAULT_PARAMS_PATH, load_params, simulate_collection
from evalkit.data.simulator_fit import (
    average_precision,
    calibrate,
    collection_statistics,
    compare,
    direct_params,
    pooled_qrels,
)

TARGETS = json.loads(DEFAULT_PARAMS_PATH.read_text())["targets"]


@pytest.fixture(scope="module")
def small() -> Collection:
    return simulate_collection(n_topics=5, n_runs=8, depth=50, seed=1)


@pytest.fixture(scope="module")
def default_collection():
    """The default simulated collection (50 topics x 129 runs x 1000). Its generation time is a bench row
    (bench/bench_simulate.py), not a timed assertion."""
    return simulate_collection()


@pytest.fixture(scope="module")
def default_stats(default_collection):
    return collection_statistics(default_collection)


def _arrays(c: Collection):
    return {
        "docs": c.docs,
        "scores": c.scores,
        "vocabulary": c.vocabulary.astype(str),
        "qrels_topic": c.qrels.topic,
        "qrels_doc": c.qrels.doc,
        "qrels_grade": c.qrels.grade,
        "run_names": c.run_names.astype(str),
        "group": c.runs_info["group"].to_numpy(str),
        "type": c.runs_info["type"].to_numpy(str),
        "judged": c.runs_info["judged"].to_numpy(),
    }


# ------------------------------------------------------------------------------------------------ structure


def test_small_collection_shapes_and_metadata(small):
    c = small
    assert c.docs.shape == c.scores.shape == (8, 5, 50)
    assert c.docs.dtype == np.int32 and c.scores.dtype == np.float64
    assert list(c.topics) == ["1", "2", "3", "4", "5"]
    assert set(c.runs_info.columns) >= {"group", "type", "judged", "pool_priority"}
    assert set(c.runs_info["type"]) <= {"automatic", "manual"}
    # judged = the first runs of each group by pool priority
    info = c.runs_info
    assert (info["judged"] == (info["pool_priority"] <= load_params()["groups"]["judged_per_group"])).all()
    assert info.groupby("group")["pool_priority"].apply(lambda p: sorted(p) == list(range(1, len(p) + 1))).all()


def test_padding_and_lengths_agree():
    c = simulate_collection(n_topics=10, n_runs=30, depth=200, seed=3, params={"short_runs": {"run_share": 0.5}})
    present = c.docs >= 0
    assert (present == ~np.isnan(c.scores)).all()
    # padding only at the end of a ranking
    assert (np.diff(present.astype(int), axis=2) <= 0).all()
    lengths = c.lengths
    assert (lengths >= 1).all() and (lengths <= 200).all()
    assert (lengths < 200).any()  # some short runs


def test_trec_eval_order_and_unique_documents(default_collection):
    c = default_collection
    s = np.where(c.docs >= 0, c.scores, -1e300)
    both = (c.docs[:, :, 1:] >= 0)
    step = np.diff(s, axis=2)
    assert (step[both] <= 0).all()  # score descending
    tied = both & (step == 0)
    assert tied.any()
    assert (c.docs[:, :, 1:][tied] < c.docs[:, :, :-1][tied]).all()  # ties: docno descending
    sorted_docs = np.sort(np.where(c.docs >= 0, c.docs, -np.arange(1, c.depth + 1)), axis=2)
    assert (np.diff(sorted_docs, axis=2) != 0).all()  # no document twice in a ranking


def test_vocabulary_and_docnos(small):
    v = small.vocabulary.astype(str)
    assert (v[:-1] < v[1:]).all()  # sorted, unique
    assert all(re.fullmatch(r"SYN-\d-\d{5}", d) for d in v)
    topic_of = np.array([int(d.split("-")[1]) - 1 for d in v])
    # every retrieved document belongs to its topic
    t_idx = np.broadcast_to(np.arange(small.n_topics)[None, :, None], small.docs.shape)
    present = small.docs >= 0
    assert (topic_of[small.docs[present]] == t_idx[present]).all()


def test_complete_judgments(small, default_collection):
    for c in (small, default_collection):
        grades = c.grades()
        assert (grades[c.docs >= 0] >= 0).all()  # every retrieved document judged
        assert set(np.unique(c.qrels.grade)) <= {0, 1}
        assert (c.qrels.counts(1) >= load_params()["relevant"]["min"]).all()
        # the qrels hold exactly the retrieved documents plus unretrieved relevant ones
        retrieved = np.zeros(len(c.vocabulary), bool)
        retrieved[c.docs[c.docs >= 0]] = True
        assert len(c.qrels) == len(c.vocabulary)
        assert (retrieved[c.qrels.doc] | (c.qrels.grade >= 1)).all()


def test_graded():
    c = simulate_collection(n_topics=6, n_runs=10, depth=100, seed=2, graded=True)
    grades = np.unique(c.qrels.grade)
    assert list(grades) == [0, 1, 2]
    share = (c.qrels.grade == 2).sum() / (c.qrels.grade >= 1).sum()
    assert share == pytest.approx(load_params()["graded"]["high_share"], abs=0.05)
    # highly relevant documents are easier to find: higher mean rank position among retrieved relevant
    g = c.grades()
    rank = np.broadcast_to(np.arange(c.depth), g.shape)
    assert rank[g == 2].mean() < rank[g == 1].mean()


def test_runs_round_trip_through_trec_files(small, tmp_path):
    from evalkit.data.trec_files import read_run, write_run

    runs = []
    for s in range(small.n_runs):
        path = write_run(small.to_run(s), tmp_path / f"input.{small.run_names[s]}")
        runs.append(read_run(path))
    rebuilt = Collection.from_runs(runs, small.to_qrels(), name="rebuilt")
    assert np.array_equal(rebuilt.vocabulary.astype(str), small.vocabulary.astype(str))
    assert np.array_equal(rebuilt.docs, small.docs)
    assert np.array_equal(rebuilt.scores, small.scores, equal_nan=True)


# ------------------------------------------------------------------------------------------------ determinism


def test_same_seed_same_arrays_different_seed_different():
    a = _arrays(simulate_collection(n_topics=7, n_runs=12, depth=80, seed=11))
    b = _arrays(simulate_collection(n_topics=7, n_runs=12, depth=80, seed=11))
    c = _arrays(simulate_collection(n_topics=7, n_runs=12, depth=80, seed=12))
    for key in a:
        assert np.array_equal(a[key], b[key], equal_nan=a[key].dtype.kind == "f"), key
    assert not np.array_equal(a["docs"], c["docs"])
    assert not np.array_equal(a["qrels_grade"], c["qrels_grade"]) or not np.array_equal(a["vocabulary"], c["vocabulary"])


def test_seed_as_generator_and_seedsequence():
    x = _arrays(simulate_collection(3, 5, 30, seed=np.random.SeedSequence(5)))
    y = _arrays(simulate_collection(3, 5, 30, seed=np.random.SeedSequence(5)))
    assert np.array_equal(x["docs"], y["docs"])
    g1 = _arrays(simulate_collection(3, 5, 30, seed=np.random.default_rng(9)))
    g2 = _arrays(simulate_collection(3, 5, 30, seed=np.random.default_rng(9)))
    assert np.array_equal(g1["docs"], g2["docs"])


#: Fixed parameters (not the committed fit) so that the fingerprint below pins the generator, not the fit.
PINNED = {
    "relevant": {"shape": 1.5, "scale": 60.0, "min": 3},
    "candidates": {"n_nonrelevant": 3000},
    "quality": {"mean": 1.5, "sd_group": 0.4, "sd_run": 0.1, "manual_bonus": 0.3, "sd_topic": 0.7, "sd_run_topic": 0.2},
    "retrieval": {"shared": 0.9, "shared_spread": 2.0, "shared_quality": 0.6, "manual_shared": 0.5,
                  "visibility_spread": 0.3, "run_noise": 0.3, "first_stage": 2.0},
    "groups": {"size_pmf": [0.2, 0.1, 0.2, 0.2, 0.3], "judged_per_group": 2},
    "runs": {"manual_share": 0.1},
    "short_runs": {"run_share": 0.2, "topic_share": 0.3, "length_levels": [0, 1], "length_quantiles": [0.01, 1.0]},
    "ties": {"rate_levels": [0, 0.5, 1], "rate_quantiles": [0, 0.02, 0.9]},
    "graded": {"high_share": 0.3, "high_boost": 0.5},
}


def test_known_values_pin_the_stream():
    """A fingerprint of one small collection: it changes only if the model's code or numpy's streams change (then
    every seeded experiment in the kit changes too, which deserves a deliberate update of this number)."""
    c = simulate_collection(n_topics=3, n_runs=6, depth=20, seed=0, params=PINNED)
    fingerprint = (int(c.docs.astype(np.int64).sum()), round(float(np.nansum(c.scores)), 6), len(c.vocabulary),
                   int(c.qrels.counts(1).sum()))
    assert fingerprint == FINGERPRINT


FINGERPRINT = (54060, 1451.230496, 314, 252)


# ------------------------------------------------------------------------------------------------ parameters


def test_params_dict_json_and_errors(tmp_path):
    base = load_params()
    partial = load_params({"quality": {"mean": 0.0}})
    assert partial["quality"]["mean"] == 0.0
    assert partial["quality"]["sd_group"] == base["quality"]["sd_group"]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(partial))
    assert load_params(path)["quality"]["mean"] == 0.0
    with pytest.raises(KeyError):
        load_params({"quality": {"meen": 1.0}})
    with pytest.raises(KeyError):
        load_params({"qualty": {}})
    with pytest.raises(ValueError):
        load_params({"retrieval": {"shared": 1.5}})
    with pytest.raises(ValueError):
        simulate_collection(n_topics=0)


def test_quality_parameter_moves_map():
    weak = simulate_collection(8, 12, 200, seed=4, params={"quality": {"mean": 0.5}})
    strong = simulate_collection(8, 12, 200, seed=4, params={"quality": {"mean": 3.0}})
    assert np.nanmean(average_precision(strong)) > np.nanmean(average_precision(weak)) + 0.1


def test_depth_other_than_1000_and_tiny_sizes():
    c = simulate_collection(n_topics=1, n_runs=1, depth=5, seed=0)
    assert c.docs.shape == (1, 1, 5)
    c = simulate_collection(n_topics=4, n_runs=6, depth=2500, seed=0)
    assert c.depth == 2500 and (c.lengths <= 2500).all()


# ------------------------------------------------------------------------------------------------ measures


def test_average_precision_matches_trec_eval(small):
    from oracle import trec_eval_scores

    ours = average_precision(small)
    theirs = trec_eval_scores(small, {"map"})["map"]
    assert np.allclose(ours, theirs, rtol=0, atol=1e-12, equal_nan=True)


# ------------------------------------------------------------------------------------------------ the fit


#: statistic: (relative tolerance, absolute tolerance). The statistics are computed as on TREC-8: under the
#: judgments of the depth-100 pool of the judged runs (see evalkit.data.simulator_fit.collection_statistics).
FIT_TOLERANCES = {
    "relevant_mean": (0.10, 0),
    "relevant_q25": (0.30, 0),
    "relevant_median": (0.30, 0),
    "relevant_q75": (0.20, 0),
    "map_mean": (0.10, 0),
    "map_sd": (0.25, 0),
    "map_q25": (0.30, 0),
    "map_median": (0.20, 0),
    "map_q75": (0.15, 0),
    "p10_mean": (0.30, 0),
    "recall1000_mean": (0.15, 0),
    "overlap100_within_group": (0.10, 0),
    "overlap100_between_groups": (0.15, 0),
    "pool100_judged_per_topic": (0.20, 0),
    "unique_relevant_share": (0.35, 0),
    "judged_share": (0, 0.05),
    "manual_share": (0, 0.03),
    "short_run_share": (0, 0.08),
}


@pytest.mark.parametrize("statistic", sorted(FIT_TOLERANCES))
def test_default_collection_matches_trec8(default_stats, statistic):
    rel, abs_ = FIT_TOLERANCES[statistic]
    assert default_stats[statistic] == pytest.approx(TARGETS[statistic], rel=rel, abs=abs_)


def test_groups_are_correlated(default_stats):
    assert default_stats["overlap100_within_group"] > default_stats["overlap100_between_groups"] + 0.15


def test_pool_finds_part_of_the_relevant_documents(default_stats):
    # complete judgments know relevant documents that the depth-100 pool of the judged runs never saw
    assert 0.2 < default_stats["pool_found_share"] < 1
    assert default_stats["complete_relevant_mean"] > default_stats["relevant_mean"]


def test_compare_table(default_collection):
    table = compare(TARGETS, default_collection, ["map_mean", "relevant_mean"])
    assert list(table.columns) == ["target", "synthetic"]
    assert table.loc["relevant_mean", "target"] == TARGETS["relevant_mean"]


def test_direct_params_recover_the_simulated_ones(default_collection):
    c = default_collection
    fitted = direct_params(c, c.judged_runs)
    committed = load_params()
    assert fitted["groups"]["judged_per_group"] == committed["groups"]["judged_per_group"]
    mean = fitted["relevant"]["shape"] * fitted["relevant"]["scale"]  # complete qrels: the simulated R
    assert mean == pytest.approx(committed["relevant"]["shape"] * committed["relevant"]["scale"], rel=0.1)
    assert fitted["runs"]["manual_share"] == pytest.approx(committed["runs"]["manual_share"], abs=0.03)
    assert fitted["short_runs"]["run_share"] == pytest.approx(committed["short_runs"]["run_share"], abs=0.08)


def test_pooled_qrels_is_the_pool(small):
    judged = small.judged_runs
    pooled = pooled_qrels(small, judged, 10)
    docs = small.docs[judged, :, :10]
    expected = {(t, int(d)) for t in range(small.n_topics) for d in np.unique(docs[:, t]) if d >= 0}
    assert set(zip(pooled.topic.tolist(), pooled.doc.tolist())) == expected
    assert (pooled.grade == small.qrels.lookup(pooled.topic, pooled.doc)).all()


def test_calibrate_runs_on_a_tiny_collection():
    params = load_params()
    targets = collection_statistics(simulate_collection(5, 8, 50, seed=0))
    fitted, log = calibrate(params, targets, n_topics=5, n_runs=8, depth=50, seeds=(0,), iterations=1, verbose=False)
    assert set(fitted) >= set(params) - {"targets", "fit", "source", "about"}
    assert len(log) >= 1 and np.isfinite(log["loss"]).all()


@pytest.mark.trec8
def test_committed_targets_are_trec8_statistics(trec8):
    """The targets in the params file are what collection_statistics measures on TREC-8 (re-fit if not), and on
    TREC-8 the depth-100 pool of the judged runs is the official qrels."""
    stats = collection_statistics(trec8)
    for key in ("relevant_total", "relevant_median", "map_mean", "map_sd", "overlap100_within_group",
                "overlap100_between_groups", "pool100_judged_per_topic", "unique_relevant_share", "judged_share"):
        # rel 1e-4, not exact: the loader's fast float parsing may order a few near-tied documents differently
        assert stats[key] == pytest.approx(TARGETS[key], rel=1e-4), key
    assert stats["pool_found_share"] == 1.0
