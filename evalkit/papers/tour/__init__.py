"""The tour notebook's study: how scores and system rankings change as the pool gets shallower.

Pooling (Sparck Jones & van Rijsbergen 1975; TREC's practice): judge the union of the top ``depth`` documents of
the contributing runs, treat everything else as nonrelevant. Zobel (1998) and Buckley & Voorhees (2004) showed
that shallower pools lower every run's score but keep the ranking of systems largely intact; this module measures
both on any collection.

The package has the shape of every paper's (:mod:`evalkit.papers`):

* ``plan``: what the tour needs (2 judged runs, pool depths within the judged depth) and the depths it uses;
* ``experiment``: :func:`pool_depth_study`, :func:`pooled_scores`; :func:`trec_eval_agreement`, the kit's standard
  measures against trec_eval itself (pytrec_eval) on the loaded collection, the evidence behind the tour's
  "evalkit equals trec_eval" claim;
* ``figures``, ``explorer``: the figures and the pool-depth slider; ``claims``: the tour's paper-versus-kit rows;
* ``paper``: the figures the rows compare with; ``presets``: run sizes; ``tables``: nothing to reshape.
"""

from evalkit.papers.tour.claims import claims
from evalkit.papers.tour.experiment import TREC_EVAL_MEASURES, pool_depth_study, pooled_scores, trec_eval_agreement
from evalkit.papers.tour.explorer import pool_depth_explorer
from evalkit.papers.tour.figures import plot_pool_depth_study, plot_run_means
from evalkit.papers.tour.paper import TREC8_JUDGMENTS
from evalkit.papers.tour.plan import DEFAULT_POOL_DEPTHS, plan
from evalkit.papers.tour.presets import PRESETS, settings

__all__ = ["DEFAULT_POOL_DEPTHS", "PRESETS", "TREC8_JUDGMENTS", "TREC_EVAL_MEASURES", "claims", "plan",
           "plot_pool_depth_study", "plot_run_means", "pool_depth_explorer", "pool_depth_study", "pooled_scores",
           "settings", "trec_eval_agreement"]
