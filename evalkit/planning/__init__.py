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

>>> from evalkit.planning import plan
>>> table = plan(collection, "AP", alpha=0.05, power=0.8, delta=0.05, budget=60_000)
"""

from evalkit._lazy import lazy_attributes

_WHERE = {
    "two_way_anova": "variance", "within_system_variance": "variance", "total_variance": "variance",
    "variance_estimates": "variance",
    "ttest_power": "topic_set_size", "ttest_topics": "topic_set_size", "anova_power": "topic_set_size",
    "anova_topics": "topic_set_size", "ci_width": "topic_set_size", "ci_topics": "topic_set_size",
    "detectable_difference": "topic_set_size", "topic_set_sizes": "topic_set_size",
    "ttest_power_with_bias": "topic_set_size", "ttest_topics_with_bias": "topic_set_size",
    "Design": "designs", "design_grid": "designs", "design_variances": "designs",
    "plan": "plan", "replan": "plan", "requirement_text": "plan",
    "validate": "validation", "simulate_population": "validation",
}
__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)

__all__ = sorted(_WHERE)
