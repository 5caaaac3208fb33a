"""Planning a test collection: how many topics, judged how, for a statistical requirement (issue 29).

Pure functions returning numbers and DataFrames, beside :mod:`evalkit.estimation` and :mod:`evalkit.confidence`:

``variance``        the within-system variance of a score matrix (Sakai 2016: two-way ANOVA residual; one-way for
                    the unpaired variants; the total variance it corrects)
``topic_set_size``  topics for a paired t-test's power, a one-way ANOVA's power, a CI width cap, and the minimum
                    detectable difference for a given n (Sakai 2016, Nagata's three designs)
``designs``         the variance, bias and cost each judging design adds on the loaded collection (pools, uniform
                    samples with infAP, stratified samples with xinfAP / infNDCG, shallow pools with Lu et al.'s
                    estimated deep metric)
``plan``            ``plan(collection, measure, alpha, power, delta | ci_width, budget=None)``
``validation``      does a plan deliver the power it promises: realised power and CI coverage on a simulated
                    population of topics

>>> from evalkit import planning
>>> table = planning.plan(collection, "AP", alpha=0.05, power=0.8, delta=0.05, budget=60_000)
>>> planning.summary_table(table)

(``evalkit.planning.plan`` is the function; its module is ``sys.modules["evalkit.planning.plan"]``.)
"""

from evalkit.planning.designs import FAMILIES, Design, design_grid, design_variances
from evalkit.planning.plan import bias_band, recommendation, replan, requirement_text, summary_table
from evalkit.planning.plan import plan  # noqa: I001  (after the module import: the name is the function)
from evalkit.planning.topic_set_size import (
    anova_power,
    anova_topics,
    ci_topics,
    ci_width,
    detectable_difference,
    topic_set_sizes,
    ttest_power,
    ttest_power_with_bias,
    ttest_topics,
    ttest_topics_with_bias,
)
from evalkit.planning.variance import total_variance, two_way_anova, variance_estimates, within_system_variance

__all__ = [
    "FAMILIES", "Design", "anova_power", "anova_topics", "bias_band", "ci_topics", "ci_width", "design_grid",
    "design_variances", "detectable_difference", "plan", "recommendation", "replan", "requirement_text",
    "summary_table", "topic_set_sizes", "total_variance", "ttest_power", "ttest_power_with_bias", "ttest_topics",
    "ttest_topics_with_bias", "two_way_anova", "variance_estimates", "within_system_variance",
]
