"""The standard (fully judged) measure families, registered by name; trec_eval semantics, relevance level 1."""

from __future__ import annotations

from evalkit.data.grade_codes import ABSENT
from evalkit.measures import kernels
from evalkit.measures.registry import MeasureFamily, register


def _grades(context, spec):
    return context.grades if spec.cutoff is None else context.grades[..., : spec.cutoff]


register(MeasureFamily(
    "AP", "Average precision (trec_eval map; AP@k = map_cut_k). Buckley & Voorhees 2000.",
    lambda c, s: kernels.average_precision(_grades(c, s), c.n_relevant),
    aliases=("MAP",),
))
register(MeasureFamily(
    "P", "Precision at rank k (trec_eval P_k).",
    lambda c, s: kernels.precision_at(c.grades, s.cutoff), cutoff="required",
))
register(MeasureFamily(
    "R", "Recall at rank k (trec_eval recall_k).",
    lambda c, s: kernels.recall_at(c.grades, c.n_relevant, s.cutoff), cutoff="required", aliases=("Recall",),
))
register(MeasureFamily(
    "Rprec", "Precision at rank R, R the number of relevant documents (trec_eval Rprec).",
    lambda c, s: kernels.r_precision(c.grades, c.n_relevant), cutoff="none",
))
register(MeasureFamily(
    "nDCG", "Normalized DCG, grade as gain, 1/log2(rank+1) discount (trec_eval ndcg; nDCG@k = ndcg_cut_k). "
    "Jarvelin & Kekalainen 2002.",
    lambda c, s: kernels.ndcg(c.grades, c.ideal_gains, s.cutoff), aliases=("NDCG",),
))
register(MeasureFamily(
    "Bpref", "bpref, judged documents only (trec_eval bpref). Buckley & Voorhees 2004.",
    lambda c, s: kernels.bpref(c.grades, c.n_relevant, c.n_judged_nonrelevant), cutoff="none",
))
def _rbp(context, spec):
    rel = spec.param.get("rel")
    if rel is not None:  # binary: grade >= rel has gain 1
        return kernels.rbp(context.grades, spec.param["p"], spec.cutoff, relevance_level=int(rel))[0]
    return kernels.graded_rbp(context.grades, spec.param["p"], context.top_grade, spec.cutoff)


register(MeasureFamily(
    "RBP", "Rank-biased precision, persistence p (Moffat & Zobel 2008). RBP(p=x): graded, a document's grade as its "
    "gain, rescaled to [0, 1] on topics whose grades fall outside it: equals trec_eval 10.0's rbp (-m rbp.p=x; "
    "trec_eval's default p is 0.9, the kit's 0.8 as ir_measures'). RBP(p=x,rel=r): binary, gain 1 for grade >= r, "
    "the original definition and the one notebook 04 (Lu et al. 2017) uses. Identical on binary qrels.",
    _rbp, params={"p": 0.8, "rel": None},
))
register(MeasureFamily(
    "RBPres", "The residual of RBP: the most the score could still grow from unjudged documents and the tail "
    "beyond the ranking (Moffat & Zobel 2008, Sec. 5). Not trec_eval's rbp_resid, which is 0 on a topic without "
    "an unjudged document and leaves the tail out then.",
    lambda c, s: kernels.rbp(c.grades, s.param["p"], s.cutoff)[1], params={"p": 0.8},
))
register(MeasureFamily(
    "NumRel", "Number of judged relevant documents for the topic (trec_eval num_rel).",
    lambda c, s: c.n_relevant[None, :].repeat(c.grades.shape[0], 0).astype(float), cutoff="none",
))
register(MeasureFamily(
    "NumRet", "Number of documents retrieved (trec_eval num_ret; @k counts the top k).",
    lambda c, s: (_grades(c, s) != ABSENT).sum(axis=-1).astype(float),
))
