"""The inferred measures by name (sample_eval.pl's, and trec_eval's infAP), computed by :mod:`evalkit.measures.inferred`.

With sampled qrels (5 columns, a stratum per document, -1 for pooled-but-not-sampled) ``evalkit eval`` and
``evalkit.evaluate`` replace NIST's sample_eval.pl; with plain qrels the whole qrels is one stratum.
"""

from __future__ import annotations

from evalkit.measures.registry import MeasureFamily, register


def _inferred(name: str):
    def compute(context, spec):
        from evalkit.measures.inferred import inferred_measures

        label = name if spec.cutoff is None else f"{name}@{spec.cutoff}"
        return inferred_measures(context.collection, context.qrels, [label])[label]

    return compute


register(MeasureFamily(
    "infAP", "Extended inferred AP, xinfAP (Yilmaz, Kanoulas & Aslam 2008, Sec. 3; sample_eval.pl's infAP); "
    "infAP (Yilmaz & Aslam 2006) is its one-stratum case.",
    _inferred("infAP"), cutoff="none", aliases=("xinfAP",),
))
register(MeasureFamily(
    "trec_infAP", "trec_eval's infAP: strata ignored, pooled-but-unjudged (grade -1) estimated, unpooled "
    "nonrelevant (Yilmaz & Aslam 2006; trec_eval m_infAP.c).",
    _inferred("trec_infAP"), cutoff="none",
))
register(MeasureFamily(
    "infNDCG", "Inferred NDCG from stratified samples, ideal DCG from rounded estimated counts per grade "
    "(Yilmaz, Kanoulas & Aslam 2008, Sec. 4; sample_eval.pl).",
    _inferred("infNDCG"),
))
register(MeasureFamily(
    "infP", "Inferred precision at k from stratified samples (sample_eval.pl's iP@k).",
    _inferred("infP"), cutoff="required",
))
register(MeasureFamily(
    "infR", "Estimated number of relevant documents for the topic, R-hat = sum_s r_s N_s / n_s (sample_eval.pl).",
    _inferred("infR"), cutoff="none",
))
