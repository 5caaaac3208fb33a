"""The written grading rules (evalkit.claims.rules), the intervals they read (evalkit.stats.intervals), and the
verdicts they turn into (evalkit.claims.grading): hand-computed cases, and the bootstrap against the normal
approximation it must agree with on a large sample."""

import math

import numpy as np
import pandas as pd
import pytest

from evalkit.claims import Claim, grade, rules, verdict_category, verdict_counts
from evalkit.stats import (
    Interval,
    bootstrap_interval,
    paired_difference_interval,
    ratio_interval,
    spread_interval,
)

TREC8 = {"name": "trec8", "n_runs": 129, "n_topics": 50}


def iv(low, high, estimate=None):
    return Interval((low + high) / 2 if estimate is None else estimate, low, high, 0.95, "test", 10)


# ---------------------------------------------------------------------------------------------------- intervals

def test_bootstrap_mean_matches_the_normal_approximation_on_a_large_sample():
    x = np.random.default_rng(3).normal(0.3, 1.0, size=400)
    got = bootstrap_interval(x, seed=1)
    half = 1.959964 * x.std(ddof=1) / math.sqrt(len(x))
    assert got.estimate == pytest.approx(x.mean())
    assert got.low == pytest.approx(x.mean() - half, abs=0.1 * half)
    assert got.high == pytest.approx(x.mean() + half, abs=0.1 * half)
    assert got.method == "bootstrap over 400 trials" and got.n == 400


def test_bootstrap_is_seeded_drops_nan_and_is_degenerate_on_constant_values():
    x = np.array([1.0, 2.0, np.nan, 4.0, 8.0])
    assert bootstrap_interval(x, seed=5) == bootstrap_interval(x, seed=5)
    assert bootstrap_interval(x, seed=5).n == 4
    constant = bootstrap_interval([0.5] * 7, "median")
    assert (constant.estimate, constant.low, constant.high) == (0.5, 0.5, 0.5)
    one = bootstrap_interval([0.2])
    assert one.estimate == 0.2 and math.isnan(one.low)


def test_ratio_interval_pools_over_trials_and_resamples_whole_trials():
    got = ratio_interval([3, 1, 0, 4], [4, 2, 0, 4], seed=0)
    assert got.estimate == pytest.approx(8 / 10)  # the trial with no pairs is left out
    assert got.n == 3 and 0.5 <= got.low <= got.estimate <= got.high <= 1.0
    with pytest.raises(ValueError, match="differ in length"):
        ratio_interval([1, 2], [1])


def test_paired_difference_is_the_bootstrap_of_the_differences():
    a, b = np.array([0.5, 0.6, 0.7, 0.9]), np.array([0.4, 0.4, 0.6, 0.5])
    assert paired_difference_interval(a, b, seed=2) == bootstrap_interval(a - b, seed=2)


def test_spread_over_few_seeds_is_the_whole_range_and_over_many_the_central_range():
    few = spread_interval([0.964, 0.971, 0.981, 0.97, 0.975])
    assert (few.low, few.high, few.estimate) == (0.964, 0.981, 0.971)
    assert few.method == "range over 5 seeds"
    many = spread_interval(np.arange(41.0))
    assert (many.low, many.high, many.estimate) == pytest.approx((1.0, 39.0, 20.0))
    assert many.method == "central range over 41 seeds"


def test_interval_text_and_order():
    assert iv(-7.0, -1.5, -4.03).text(".2f") == "-4.03 [-7.00, -1.50] (95% test)"
    with pytest.raises(ValueError, match="above its high end"):
        Interval(0.0, 1.0, 0.5)


# ---------------------------------------------------------------------------------------------------- rules

@pytest.mark.parametrize("low, high, expected", [(0.91, 0.99, "yes"), (0.90, 0.95, "yes"), (0.70, 0.89, "no"),
                                                 (0.85, 0.95, "inconclusive")])
def test_at_least_reads_the_whole_interval(low, high, expected):
    assert rules.at_least(iv(low, high), 0.90).agrees == expected


def test_at_most_is_the_mirror():
    assert rules.at_most(iv(0.01, 0.08), 0.10).agrees == "yes"
    assert rules.at_most(iv(0.12, 0.30), 0.10).agrees == "no"
    assert rules.at_most(iv(0.05, 0.20), 0.10).agrees == "inconclusive"


def test_a_reversed_direction_is_no_and_zero_inside_is_inconclusive():
    assert rules.direction(iv(0.002, 0.023)).agrees == "yes"
    assert rules.direction(iv(-0.09, -0.02)).agrees == "no"
    assert rules.direction(iv(-0.01, 0.02)).agrees == "inconclusive"
    assert rules.direction(iv(-0.09, -0.02), claimed="negative").agrees == "yes"
    assert rules.direction(iv(0.0, 0.02)).agrees == "inconclusive"  # touching 0 is not a direction


def test_words_have_numbers():
    assert rules.margin("much", "tau") == 0.05 and rules.margin("comparable", "points") == 3.0
    assert rules.much_larger(iv(0.06, 0.09), "tau").agrees == "yes"
    assert rules.much_larger(iv(0.002, 0.023), "tau").agrees == "no"  # real but small: not "much"
    assert rules.much_larger(iv(0.03, 0.07), "tau").agrees == "inconclusive"
    assert rules.comparable(iv(-0.01, 0.015), "tau").agrees == "yes"
    assert rules.comparable(iv(0.03, 0.06), "tau").agrees == "no"
    assert rules.comparable(iv(0.0, 0.03), "tau").agrees == "inconclusive"
    assert rules.small(iv(-0.004, 0.006), "score").agrees == "yes"
    assert rules.small(iv(-0.05, -0.02), "score").agrees == "no"
    with pytest.raises(ValueError, match="no grading rule for the word 'huge'"):
        rules.margin("huge", "tau")
    with pytest.raises(ValueError, match="no 'much' margin on the scale 'furlongs'"):
        rules.much_larger(iv(0, 1), "furlongs")


def test_nan_interval_is_never_a_yes_or_no():
    nan = Interval(0.5, math.nan, math.nan)
    assert rules.at_least(nan, 0.1).agrees == "inconclusive"
    assert rules.comparable(nan, "tau").agrees == "inconclusive"


def test_exact_checks_have_no_interval():
    assert rules.exact(5.6e-16, 1e-9).fields() == {"agrees": "yes", "interval": "",
                                                   "rule": "|the largest difference| <= 1e-09 (exact, no randomness)"}
    assert rules.exact(2e-6, 1e-9).agrees == "no"
    assert rules.exact(math.nan, 1e-9).agrees == "no"


@pytest.mark.parametrize("parts, every, expected", [
    (["yes", "yes"], False, "yes"), (["no", "no"], False, "no"), (["yes", "no"], False, "partly"),
    (["yes", "inconclusive"], False, "partly"), (["no", "inconclusive"], False, "no"),
    (["inconclusive"], False, "inconclusive"), (["yes", "yes", "no"], True, "no"),
    (["yes", "inconclusive"], True, "inconclusive"), (["yes", "yes"], True, "yes"),
])
def test_combine(parts, every, expected):
    assert rules.combine([rules.Rating(p, "i", "r") for p in parts], every=every).agrees == expected


def test_rating_refuses_unknown_words():
    with pytest.raises(ValueError, match="a rating is one of"):
        rules.Rating("maybe")


# ---------------------------------------------------------------------------------------------------- verdicts

def test_not_rated_reasons_come_first():
    degenerate = Claim("Soboroff 2007", "sample matters", "p < .05", "p = 1", "tb06", "yes",
                       not_rated="degenerate (sampling rate 1.0 on 30 of 30 topics)")
    assert grade(degenerate, {"name": "tb06", "n_runs": 60, "n_topics": 50})["verdict"] == \
        "not rated: degenerate (sampling rate 1.0 on 30 of 30 topics)"
    small = Claim("Yilmaz, Kanoulas & Aslam 2008", "the variance fits", "90%", "98%", "trec8", "yes",
                  not_rated="at class size (10 samples per p; the KS test needs 100)")
    assert grade(small, TREC8)["verdict"] == "not rated at class size (10 samples per p; the KS test needs 100)"
    assert verdict_category(grade(small, TREC8)["verdict"]) == "not rated"


def test_inconclusive_carries_its_interval_and_directions_stay_directions():
    c = Claim("Voorhees 2014", "x", "y", "z", "trec8", "inconclusive", interval="0.01 [-0.02, 0.04] (95% t)")
    assert grade(c, TREC8)["verdict"] == "inconclusive (0.01 [-0.02, 0.04] (95% t))"
    assert verdict_category(grade(c, TREC8)["verdict"]) == "inconclusive"
    d = Claim("Carterette 2007", "RTC beats IP at low overlap", "RTC > IP", "IP .898 > RTC .833", "trec8", "no",
              kind="direction")
    assert grade(d, TREC8)["verdict"] == "direction only: no"


def test_claims_refuse_unknown_ratings_and_scopes():
    with pytest.raises(ValueError, match="Claim.agrees must be one of"):
        Claim("p", "c", "1", "1", agrees="sure")
    with pytest.raises(ValueError, match="Claim.scope must be one of"):
        Claim("p", "c", "1", "1", scope="bonus")


def test_beyond_the_paper_is_counted_apart():
    frame = pd.DataFrame({"verdict": ["yes", "no", "yes", "inconclusive (x)", "not rated: degenerate (y)"],
                          "scope": ["paper", "paper", "beyond", "", "paper"]})
    counts = verdict_counts(frame)
    assert counts["paper"].to_dict() == {"yes": 1, "no": 1, "inconclusive": 1, "not rated": 1}
    assert counts["beyond"].to_dict() == {"yes": 1}


def test_docs_grading_page_states_the_codes_margins():
    """docs/grading.md's table of margins equals evalkit.claims.rules.MARGINS (the page is the rules in prose)."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "grading.md").read_text()
    header = "| word | tau | relative | points | score |"
    rows = page[page.index(header):].splitlines()[2:2 + len(rules.MARGINS)]
    table = {}
    for row in rows:
        word, *values = [cell.strip() for cell in row.strip("|").split("|")]
        table[word] = dict(zip(["tau", "relative", "points", "score"], map(float, values)))
    assert table == rules.MARGINS
    assert set(rules.SCALES) == {"tau", "relative", "points", "score"}
