"""The Lu 2017 notebook's helpers: orderings against the paper, claims, and the widget's per-rank gain profile."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalkit.papers import lu2017


def _table(rmse_by_estimator, collection="kit", depth=10, theta=0.0):
    return pd.DataFrame([{"collection": collection, "depth": depth, "theta": theta, "estimator": e, "rmse": r,
                          "acc": 50.0} for e, r in rmse_by_estimator.items()])


def test_rmse_ranks_hand_computed():
    ranks = lu2017.rmse_ranks(_table({"LB": 0.3, "RM": 0.5, "Lin": 0.1, "La": 0.2, "Lb": 0.2}))
    got = dict(zip(ranks["estimator"], ranks["rank"]))
    assert got == {"Lin": 1, "La": 2, "Lb": 2, "LB": 4, "RM": 5}  # ties share the lower rank


def test_compare_orderings_tau_against_itself_and_reversed():
    kit = _table({"LB": 0.1, "RM": 0.5, "Lin": 0.2, "La": 0.3, "Lb": 0.4})
    same = _table({"LB": 1, "RM": 5, "Lin": 2, "La": 3, "Lb": 4}, collection="A")
    reversed_ = _table({"LB": 5, "RM": 1, "Lin": 4, "La": 3, "Lb": 2}, collection="B")
    out = lu2017.compare_orderings(kit, pd.concat([same, reversed_], ignore_index=True)).set_index("collection")
    assert out.loc["A", "tau"] == pytest.approx(1.0)
    assert out.loc["B", "tau"] == pytest.approx(-1.0)


@pytest.fixture(scope="module")
def data():
    from evalkit.data.datasets import load_dataset

    return lu2017.prepare(load_dataset("synthetic", n_topics=6, n_runs=12, depth=120, seed=4))


def test_gain_profile_uses_judged_gains_where_known(data):
    fit = lu2017.explorer_fit(data, fit_depth=10)
    run, topic = lu2017.default_selection(data, 10, cache={})
    profile = lu2017.run_gain_profile(data, fit, run, topic, estimator="LB")
    assert list(profile["rank"]) == list(range(1, data.depth + 1))
    judged = profile["judged"].to_numpy(bool)
    assert judged[:10].all() or profile["absent"].to_numpy(bool)[:10].any()  # d' = 10: the top 10 is pooled
    # LB gives judged documents their judged gain and everything else 0
    np.testing.assert_allclose(profile["gain"][judged], profile["reference_gain"][judged])
    assert (profile["gain"][~judged] == 0).all()
    rb = lu2017.run_gain_profile(data, fit, run, topic, estimator="Lb", theta=0.0)
    np.testing.assert_allclose(rb["gain"][judged], profile["reference_gain"][judged])
    assert ((rb["gain"] >= 0) & (rb["gain"] <= 1)).all()
