"""A judgment-budget planner (issue 29): how many topics, judged how, for a statistical requirement.

The five papers of the kit answer one question from different sides: with a fixed budget of relevance
judgments, how do I build a test collection whose conclusions hold? Voorhees 2014 and Yilmaz 2008 vary how
documents are sampled, Soboroff 2007 how the sample is drawn, Lu 2017 how deep to pool, Carterette 2007 which
documents to judge next. Topic set size design (Sakai, Information Retrieval Journal 19, 2016) adds the other
axis, how many topics: from a past collection's topic-by-run score matrix, the number of topics a paired
t-test's power, a one-way ANOVA's power or a CI width cap needs, using the within-system variance (the residual
of a two-way ANOVA without replication). Webber, Moffat and Zobel (CIKM 2008) and Voorhees (2009) are the
other anchors.

The notebook ``06_budget_planner`` runs, on the loaded collection:

1. the within-system variance of each measure and Sakai's three designs (:mod:`evalkit.planning.variance`,
   :mod:`evalkit.planning.topic_set_size`);
2. the variance, bias and cost each judging design adds, by resampling the collection's judgments
   (:mod:`evalkit.planning.designs`): depth-k pools, uniform samples with infAP, stratified samples with
   xinfAP / infNDCG, shallow pools with Lu et al.'s estimated deep RBP;
3. the plan (:mod:`evalkit.planning.plan`): per design and depth or rate, topics, judgments per topic, total
   judgments, the cheapest design meeting the requirement, the most power within a budget; the trade-off figure
   and the table for a proposal;
4. the validation (:mod:`evalkit.planning.validation`): realised power and CI coverage of the plan on a simulated
   population of topics, against the targets.

Module shape as every paper's: ``paper`` (the anchors' statements and collections), ``presets``, ``plan`` (needs),
``experiment``, ``tables``, ``figures``, ``explorer``, ``claims``.
"""

from evalkit.papers.budget_planner.claims import claims, plan_sentence, validation_sentence, variance_sentence
from evalkit.papers.budget_planner.experiment import full_variances, measure_designs, run_validation
from evalkit.papers.budget_planner.explorer import REQUIREMENTS, planner_explorer
from evalkit.papers.budget_planner.figures import LEVEL_NAMES, plot_designs, plot_sizes, plot_tradeoff
from evalkit.papers.budget_planner.paper import NO_VALUES, PAPER_STATEMENTS, REFERENCES
from evalkit.papers.budget_planner.plan import DEEP_POOLS, MIN_TOPICS, plan, population_kind
from evalkit.papers.budget_planner.presets import DEFAULT_SEED, PRESETS, settings
from evalkit.papers.budget_planner.tables import (
    detectable_table,
    proposal_markdown,
    proposal_table,
    sizes_table,
    validation_table,
)

__all__ = [
    "DEEP_POOLS", "DEFAULT_SEED", "LEVEL_NAMES", "MIN_TOPICS", "NO_VALUES", "PAPER_STATEMENTS", "PRESETS",
    "REFERENCES", "REQUIREMENTS", "claims", "detectable_table", "full_variances", "measure_designs", "plan",
    "plan_sentence", "planner_explorer", "plot_designs", "plot_sizes", "plot_tradeoff", "population_kind",
    "proposal_markdown", "proposal_table", "run_validation", "settings", "sizes_table", "validation_sentence",
    "validation_table", "variance_sentence",
]
