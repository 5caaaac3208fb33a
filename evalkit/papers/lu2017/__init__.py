"""Lu, Moffat and Culpepper (2017), "Can deep effectiveness metrics be evaluated using shallow judgment pools?"

Pure functions returning DataFrames, one per figure or table the kit can rebuild; the computations live in
:mod:`evalkit.estimation` (equations and reconstruction choices are documented there).

Modules (the same in every paper's package; each imports only from those above it):

* :mod:`~evalkit.papers.lu2017.paper`: the paper's Tables 1-3 as frames, the estimators of Tables 2 and 3, the
  collections behind each claim; :mod:`~evalkit.papers.lu2017.presets`: :data:`PRESETS` and :func:`settings`
* :mod:`~evalkit.papers.lu2017.plan`: :func:`plan` (the needs checks, the paper's depths scaled to the collection)
* :mod:`~evalkit.papers.lu2017.experiment`: :func:`prepare`, Figures 3, 4, 6, Tables 1, 2, 3, the explorer's fits
* :mod:`~evalkit.papers.lu2017.tables`: Table 2's layout, RMSE orderings and ranks kit beside paper, a run's gains
* :mod:`~evalkit.papers.lu2017.figures`: the explorer's picture; :mod:`~evalkit.papers.lu2017.explorer`: the widget
* :mod:`~evalkit.papers.lu2017.uncertainty`: the figures' intervals (bootstrap over topics; the discrimination ratio)
* :mod:`~evalkit.papers.lu2017.claims`: the paper's statements beside the kit's results, each rated by a written
  rule (:mod:`evalkit.claims.rules`) on an interval; degenerate studies and class-size limits not rated
* :mod:`~evalkit.papers.lu2017.sensitivity`: the claims graded again under the parameters the kit reconstructed;
  :func:`deviations` lists where the replication differs from the paper

Setting (Sec. 6): the contributing ("judged") runs build depth-d' pools, d' < d; the judgments of a depth-d' pool
are the full qrels restricted to it. The metric is RBP(0.95) with binary gains (grade >= 1 counts 1, as in the
paper; not trec_eval's graded rbp) at the reference depth d = 100; the gold standard is
RBP@d with the full qrels (score and residual). Five estimators: LB, RM, Lin (the best rank-level model), La, Lb;
the adjust-or-not threshold theta = 0.018 (set by the authors on TREC-5/7/8).

* :func:`figure3_gamma_by_depth`: mean gamma (Eq. 10, normalized by the number of runs) vs pool depth (Fig. 3 left)
* :func:`figure3_gamma_per_topic`: gamma of every topic at d' = 10 (Fig. 3 middle)
* :func:`figure3_rmse_vs_theta`: RMSE (and Acc%) vs theta for LB, Lin, Wei at d' = 10 (Fig. 3 right)
* :func:`table2`: RMSE and Acc% of LB, RM, Lin, La, Lb at d' = 10, 20, 30, theta = 0 and 0.018;
  :func:`table2_layout` prints any long Table-2 frame (the kit's or :data:`PAPER_TABLE2`) in the paper's layout,
  :func:`rmse_ordering` orders the estimators by RMSE per (collection, d', theta)
* :func:`table3`: leave-one-group-out at d' = 10, theta = 0 (the group's runs scored)
* :func:`figure4`: tau distance and dist (Eq. 11) vs pool depth, reference = LB at d
* :func:`figure6`: two-strata judgments (depth 10 + 10% of ranks 11-100), 10 repetitions: InfAP, InfRBP, La, Lb
* for the notebook: :func:`table1` (judgments per topic and % relevant beside :data:`PAPER_TABLE1`),
  :func:`rmse_ranks` and :func:`compare_orderings` (the estimators' RMSE orderings, kit beside paper),
  :func:`claims` (paper-versus-kit rows), :func:`explorer` / :func:`draw_explorer` (the widget: a run's gain
  curve and the error table for d', theta, p and the estimator)

:func:`prepare` builds what they share (reference scores, system matrix) once; each function also takes a
Collection.

The paper's collections (TREC-9/10, Robust04, TB04/05/06, CW10) are not available here; TREC-8 is, but the
authors used TREC-8 (with TREC-5/7) only to set theta and did not report it. :data:`PAPER_TABLE2` and
:data:`PAPER_TABLE3` hold the published numbers for comparison of *orderings*, not of values.

Choices the paper leaves open (see also :mod:`evalkit.estimation`):

* Scored runs: the contributing runs (Table 2, Figs. 3, 4, 6); in Table 3 the left-out group's contributing runs,
  their RMSE and Acc% averaged over groups (the paper: "averages across groups").
* Figs. 4 and 6 use theta = 0.018 unless told otherwise (the paper does not say); the reference of InfAP is Sakai's
  AP@d on the full qrels (the paper: "the truncated metric AP@d is computed as described by Sakai"), InfAP itself
  is trec_eval's infAP (:func:`evalkit.measures.inferred.trec_infap`) on the whole ranking, as the paper ran trec_eval.
* The system matrix records each document's rank in every contributing run down to the runs' full length
  (k = 1000 on TREC, "the maximum depth of lists returned"); a run that did not return the document contributes
  the model gain at 1000, and the gain models are extrapolated that far. (Cutting the matrix at d = 100 instead
  gives g0(100) to every document a run ranks below 100 and makes La / Lb worse on TREC-8: RMSE 0.078 / 0.073
  instead of about 0.070 at d' = 10, theta = 0.)
* Two-strata samples draw ``round(0.1 * size)`` documents per topic from ranks 11-100 of the contributing runs
  (:func:`evalkit.estimation.two_strata_qrels`); the framework is fitted on the 10-deep first stratum and trained on
  every judged document (first stratum and sample).
"""

from __future__ import annotations

from evalkit.papers.lu2017.paper import (
    CLAIM_COLLECTIONS,
    PAPER_TABLE1,
    PAPER_TABLE2,
    PAPER_TABLE3,
    TABLE2_ESTIMATORS,
    paper_table2,
)
from evalkit.papers.lu2017.presets import PRESETS, settings
from evalkit.papers.lu2017.plan import (
    MIN_MODEL_RANKS,
    RBP_TAIL_BOUND,
    scaled_persistence,
    DEFAULT_DEPTHS,
    DEFAULT_FIGURE4_DEPTHS,
    DEFAULT_GAMMA_DEPTHS,
    DEFAULT_TABLE3_DEPTH,
    DEFAULT_TWO_STRATA_DEPTH,
    plan,
)
from evalkit.papers.lu2017.experiment import (
    Lu2017Data,
    check_studies,
    default_selection,
    explorer_fit,
    figure3_gamma_by_depth,
    figure3_gamma_per_topic,
    figure3_rmse_vs_theta,
    figure4,
    figure6,
    prepare,
    summarize_groups,
    table1,
    table2,
    table3,
)
from evalkit.papers.lu2017.tables import (
    compare_orderings,
    rmse_ordering,
    rmse_ranks,
    deviations,
    rank_grid,
    run_gain_profile,
    survives,
    summarize_errors,
    summarize_gamma,
    table1_layout,
    table2_layout,
)
from evalkit.papers.lu2017.figures import draw_explorer
from evalkit.papers.lu2017.explorer import explorer
from evalkit.papers.lu2017.claims import claims
from evalkit.papers.lu2017.sensitivity import sensitivity, sensitivity_note

__all__ = [
    "PAPER_TABLE2",
    "PAPER_TABLE3",
    "TABLE2_ESTIMATORS",
    "Lu2017Data",
    "DEFAULT_DEPTHS",
    "DEFAULT_GAMMA_DEPTHS",
    "DEFAULT_FIGURE4_DEPTHS",
    "DEFAULT_TABLE3_DEPTH",
    "DEFAULT_TWO_STRATA_DEPTH",
    "plan",
    "paper_table2",
    "prepare",
    "figure3_gamma_by_depth",
    "figure3_gamma_per_topic",
    "figure3_rmse_vs_theta",
    "table2",
    "table2_layout",
    "table3",
    "figure4",
    "figure6",
    "rmse_ordering",
    "PAPER_TABLE1",
    "table1",
    "rmse_ranks",
    "compare_orderings",
    "claims",
    "CLAIM_COLLECTIONS",
    "explorer_fit",
    "run_gain_profile",
    "default_selection",
    "draw_explorer",
    "explorer",
    "PRESETS",
    "settings",
    "MIN_MODEL_RANKS",
    "RBP_TAIL_BOUND",
    "scaled_persistence",
    "check_studies",
    "summarize_groups",
    "summarize_errors",
    "summarize_gamma",
    "rank_grid",
    "table1_layout",
    "sensitivity", "sensitivity_note",
    "survives",
    "deviations",
]
