"""trec_eval's printed lines for one run, exactly: per-topic lines (``-q``) then the summary (``all``) lines.

Layout (``meas_print_single.c``, ``meas_print_final.c``): ``%-22s\\t%s\\t%6.4f`` for values, ``%ld`` for the
counts (``num_ret``, ``num_rel``, ``num_rel_ret``, ``num_nonrel_judged_ret``, ``num_q``), ``'%s'`` for
``relstring``, and a ``runid`` line. Measures appear in trec_eval's internal order, topics in ``strcmp`` order.

Summary values are what trec_eval computes: per-topic values summed in topic order (a sequential running sum:
bpref 0.19125 prints 0.1913 as trec_eval prints it, where numpy's pairwise sum would give 0.19124999999999998),
divided by the number of topics; counts are summed, not averaged; ``gm_map``/``gm_bpref`` are exp(mean log).
With ``-c`` the divisor is the number of qrels topics, and ``num_rel`` sums the grades > 0 of every qrels topic.
"""

from __future__ import annotations

import math

import numpy as np

from evalkit.trec_eval import measures as tm
from evalkit.trec_eval.names import (
    CUT_DOUBLE,
    CUT_LONG,
    GEOMETRIC,
    LONG,
    NUM_Q,
    P_DOUBLE,
    P_PAIR,
    RELSTRING,
    RUNID,
    Selection,
    cutoff_label,
    cutoff_values,
    double_params,
    pair_params,
)
from evalkit.trec_eval.rankings import Judged


class OutputOptions:
    """What is printed: ``per_topic`` (-q), ``summary`` (not -n), ``complete`` (-c), ``num_docs_in_coll`` (-N),
    the qrels' topic count and positive total (for -c), ``full_precision`` (%.17g instead of %6.4f: a trec_eval
    built as tools/README says, for tests)."""

    def __init__(self, per_topic: bool = False, summary: bool = True, complete: bool = False,
                 num_docs_in_coll: int = 0, n_qrels_topics: int = 0, qrels_positive_total: int = 0,
                 full_precision: bool = False):
        self.per_topic, self.summary, self.complete = per_topic, summary, complete
        self.num_docs_in_coll, self.n_qrels_topics = num_docs_in_coll, n_qrels_topics
        self.qrels_positive_total, self.full_precision = qrels_positive_total, full_precision


def _values(measure, params, a: tm.TopicArrays, version: str, options: OutputOptions):
    """[(printed name, per-topic values)] for one measure; relstring gives strings."""
    name = measure.name
    if measure.kind in (CUT_LONG, CUT_DOUBLE):
        cutoffs = cutoff_values(measure, params)
        fn = {
            "P": tm.precision_at, "recall": tm.recall_at, "relative_P": tm.relative_precision_at,
            "success": tm.success_at, "map_cut": tm.average_precision_at, "ndcg_cut": tm.ndcg_at,
            "unj": tm.unjudged_at, "Rprec_mult": tm.r_precision_multiples,
        }.get(name)
        values = tm.iprec_at_recall(a, cutoffs, version) if name == "iprec_at_recall" else fn(a, cutoffs)
        return [(cutoff_label(measure, c), values[:, i]) for i, c in enumerate(cutoffs)]
    printed = name if params is None else f"{name}_{params}"
    if measure.kind == P_DOUBLE:
        p = double_params(measure, params)
        if name == "utility":
            return [(printed, tm.utility(a, p, options.num_docs_in_coll))]
        if name == "11pt_avg":
            return [(printed, tm.eleven_point_average(a, p, version))]
        if name == "set_F":
            return [(printed, tm.set_f(a, p))]
    if measure.kind == RELSTRING:
        p = double_params(measure, params)
        return [(printed, tm.relevance_strings(a, p[0]))]
    if measure.kind == P_PAIR:
        p = pair_params(measure, params)
        fn = {"ndcg": lambda: tm.dcg_values(a, p, "ndcg"), "dcg": lambda: tm.dcg_values(a, p, "dcg"),
              "ideal_dcg": lambda: tm.dcg_values(a, p, "ideal_dcg"), "ndcg_rel": lambda: tm.ndcg_rel(a, p),
              "Rndcg": lambda: tm.r_ndcg(a, p), "G": lambda: tm.normalized_gain(a, p),
              "rbp": lambda: tm.rank_biased_precision(a, p), "rbp_resid": lambda: tm.rank_biased_residual(a, p)}
        return [(printed, fn[name]())]
    single = {
        "num_ret": tm.num_ret, "num_rel": tm.num_rel, "num_rel_ret": tm.num_rel_ret,
        "num_nonrel_judged_ret": tm.num_nonrel_judged_ret, "map": tm.average_precision, "Rprec": tm.r_precision,
        "bpref": tm.bpref, "recip_rank": tm.reciprocal_rank, "infAP": tm.inferred_ap, "binG": tm.binary_g,
        "set_P": tm.set_precision, "set_recall": tm.set_recall, "set_relative_P": tm.set_relative_precision,
        "set_map": tm.set_map, "yaap": tm.yaap,
    }
    if name == "gm_map":
        return [(name, tm.gm_log(tm.average_precision(a)))]
    if name == "gm_bpref":
        return [(name, tm.gm_log(tm.bpref(a)))]
    return [(name, single[name](a))]


# values trec_eval resets on its placeholder ranking for a missing topic (10.0, -c): trec_eval.c's main loop compares
# the printed names, strcmp "num_ret", "utility", "relstring", "rbp_resid" and strncmp "unj" (3 bytes): a measure
# given parameters (utility_2,-1,0,0, relstring_15, rbp_resid_p=0.5) is printed under another name and kept
def _zero_for_bogus(label: str) -> bool:
    return label in ("num_ret", "utility", "relstring", "rbp_resid") or label.startswith("unj")


def c_fixed(value: float, full_precision: bool = False) -> str:
    """C's ``%6.4f`` (or ``%.17g``): Python's rounding is the same (exact, half-even on the binary value); NaN
    keeps its sign as glibc prints it (0/0 on x86 is ``-nan``)."""
    if value != value:
        text = "-nan" if math.copysign(1.0, value) < 0 else "nan"
        return text if full_precision else f"{text:>6}"
    return f"{value:.17g}" if full_precision else f"{value:6.4f}"


def _sequential_sum(values: np.ndarray) -> float:
    """``accum += value`` in topic order, as trec_eval's acc_meas functions do."""
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def format_run(judged: Judged, selection: Selection, runid: str, options: OutputOptions) -> list[str]:
    """The lines trec_eval prints for one run (without trailing newlines)."""
    a = tm.TopicArrays(judged)
    version = selection.version
    n_topics = len(judged.topics)
    computed = []  # (measure, [(label, values)])
    for measure in selection.measures():
        if measure.kind in (RUNID, NUM_Q):
            computed.append((measure, []))
            continue
        series = _values(measure, selection.params.get(measure.name), a, version, options)
        if judged.bogus.any():
            fixed = []
            for label, values in series:
                if _zero_for_bogus(label):  # relstring's reset value is the empty string
                    values = (["" if b else v for v, b in zip(values, judged.bogus.tolist())]
                              if measure.kind == RELSTRING else np.where(judged.bogus, 0.0, values))
                fixed.append((label, values))
            series = fixed
        computed.append((measure, series))
    lines = []
    if options.per_topic:
        for t, topic in enumerate(judged.topics):
            for measure, series in computed:
                if measure.kind in (RUNID, NUM_Q, GEOMETRIC):
                    continue
                for label, values in series:
                    if measure.kind == RELSTRING:
                        lines.append(f"{label:<22}\t{topic}\t'{values[t]}'")
                    elif measure.kind == LONG:
                        lines.append(f"{label:<22}\t{topic}\t{int(values[t])}")
                    else:
                        lines.append(f"{label:<22}\t{topic}\t{c_fixed(values[t], options.full_precision)}")
    if not options.summary:
        return lines
    divisor = options.n_qrels_topics if options.complete else n_topics
    for measure, series in computed:
        if measure.kind == RUNID:
            lines.append(f"{'runid':<22}\tall\t{runid}")
        elif measure.kind == NUM_Q:
            lines.append(f"{'num_q':<22}\tall\t{divisor}")
        elif measure.kind == RELSTRING:
            continue
        elif measure.kind == LONG:
            for label, values in series:
                total = int(_sequential_sum(values))
                if label == "num_rel" and options.complete:
                    total = options.qrels_positive_total
                lines.append(f"{label:<22}\tall\t{total}")
        elif measure.kind == GEOMETRIC:
            for label, values in series:
                total = _sequential_sum(values)
                if options.complete:
                    total += (divisor - n_topics) * math.log(tm.MIN_GEO_MEAN)
                value = math.exp(total / divisor) if divisor > 0 else total
                lines.append(f"{label:<22}\tall\t{c_fixed(value, options.full_precision)}")
        else:
            for label, values in series:
                total = _sequential_sum(values)
                value = total / divisor if divisor else total
                lines.append(f"{label:<22}\tall\t{c_fixed(value, options.full_precision)}")
    return lines

