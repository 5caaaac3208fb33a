"""Soboroff (2007): titlestat (Sec. 4), from judged documents and a caller's text source to DataFrames, the
paper's values beside; and the table of where this replication deviates from the paper (:func:`deviations`).

TREC run files carry no document text, so titlestat is computed over a caller-supplied text source
(:func:`titlestat_example` is a tiny made-up collection of texts). The study's other tables (the sample's
statistics, Figure 1's summary, leave one group out's table, the ANOVAs) are filled in by
:func:`evalkit.papers.soboroff2007.experiment.run_study` and so live in
:mod:`evalkit.papers.soboroff2007.experiment`, so that imports flow one way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

import numpy as np
import pandas as pd

from evalkit.data.collection import Collection, JudgedSet
from evalkit.judging.relevance_sampling import RelevanceSample
from evalkit.papers.soboroff2007.paper import PAPER_TITLESTAT

__all__ = ["STOPWORDS", "deviations", "title_words", "titlestat", "titlestat_example", "titlestat_rel",
           "titlestat_sets"]

#: A short English stop list (articles, prepositions, auxiliaries) for title words.
STOPWORDS = frozenset(
    [
        "a", "an", "and", "are", "as", "at", "be", "been", "by", "for", "from", "has", "have", "in", "into", "is",
        "it", "its", "of", "on", "or", "that", "the", "their", "this", "to", "was", "were", "which", "with", "what",
        "how", "why", "when", "where", "who", "about",
    ]
)
_TOKEN = re.compile(r"[a-z0-9]+")


def _tokens(text: str, stem: Callable[[str], str] | None) -> set[str]:
    words = _TOKEN.findall(text.lower())
    return set(map(stem, words)) if stem else set(words)


def title_words(title: str, stopwords=STOPWORDS, stem: Callable[[str], str] | None = None) -> list[str]:
    """The distinct words of a title that titlestat counts: lower-cased alphanumeric tokens, stop words
    dropped, stemmed by ``stem`` if given, in order of first occurrence."""
    out = []
    for w in _TOKEN.findall(title.lower()):
        if w in stopwords:
            continue
        w = stem(w) if stem else w
        if w not in out:
            out.append(w)
    return out


def titlestat(titles: Mapping[str, str], documents: Mapping[str, Iterable[str]],
              text: Mapping[str, str] | Callable[[str], str], *, stopwords=STOPWORDS,
              stem: Callable[[str], str] | None = None) -> pd.DataFrame:
    """Buckley et al.'s titlestat per topic: the mean over the topic's title words of the fraction of
    ``documents[topic]`` (docnos) whose text contains the word.

    ``titles``: topic -> title; ``documents``: topic -> docnos (e.g. the judged relevant ones); ``text``: docno ->
    text, a mapping or a callable (the caller's text source: a dict, a database, a function reading a corpus).
    Returns per topic ``documents``, ``title_words``, ``titlestat`` (NaN for a topic without documents or
    title words). The collection's value is the mean over topics: ``frame.titlestat.mean()``.
    """
    get = text if callable(text) else text.__getitem__
    rows = []
    for topic, title in titles.items():
        words = title_words(title, stopwords, stem)
        docs = list(dict.fromkeys(documents.get(topic, ())))
        if words and docs:
            present = np.zeros(len(words))
            for docno in docs:
                tokens = _tokens(get(docno), stem)
                present += [w in tokens for w in words]
            value = float((present / len(docs)).mean())
        else:
            value = np.nan
        rows.append({"topic": topic, "documents": len(docs), "title_words": " ".join(words), "titlestat": value})
    return pd.DataFrame(rows).set_index("topic")


def titlestat_rel(collection: Collection, qrels: JudgedSet, titles: Mapping[str, str], text, mask=None,
                  **options) -> pd.DataFrame:
    """titlestat of the judged relevant documents (grade > 0) of ``qrels`` (aligned with ``collection``),
    optionally only the qrels lines where ``mask`` is True. ``titles`` keyed by the collection's topic ids."""
    chosen = qrels.grade > 0
    if mask is not None:
        chosen &= np.asarray(mask, bool)
    topics = collection.topics[qrels.topic[chosen]]
    docnos = collection.vocabulary[qrels.doc[chosen]]
    documents: dict[str, list[str]] = {}
    for t, d in zip(topics, docnos):
        documents.setdefault(str(t), []).append(str(d))
    return titlestat({str(k): v for k, v in titles.items()}, documents, text, **options)


def titlestat_sets(collection: Collection, sample: RelevanceSample, titles: Mapping[str, str], text,
                   **options) -> pd.DataFrame:
    """The paper's three titlestat_rel values: relevant documents of the phase-1 pool, of the sample, and of the
    sample outside the phase-1 pool ("sampled documents below rank 50"); mean over topics, paper beside."""
    sets = {
        "pool": titlestat_rel(collection, sample.pool_qrels, titles, text, **options),
        "sample": titlestat_rel(collection, sample.qrels, titles, text, **options),
        "sample_below_50": titlestat_rel(collection, sample.qrels, titles, text, mask=~sample.in_phase1, **options),
    }
    return pd.DataFrame({"paper": pd.Series(PAPER_TITLESTAT),
                         "kit": pd.Series({k: v.titlestat.mean() for k, v in sets.items()})})


def titlestat_example() -> dict:
    """A tiny made-up example: two topics' titles, the texts of nine documents, and two judged relevant sets
    (``pool``: what a shallow pool found; ``sample_below``: what deep sampling added). Hand-computed titlestat:
    pool 0.9167 (topic 1 "solar eclipse": solar in 2 of 3 documents, eclipse in 3 of 3, (2/3 + 3/3) / 2 =
    0.8333; topic 2 "honey bee decline": every word in both documents, 1.0); sample_below 0.2083 (topic 1: solar
    in 0 of 2, eclipse in 1 of 2, 0.25; topic 2: honey in 1 of 2, bee and decline in none ("bumblebees" is another
    word), 1/6)."""
    titles = {"1": "Solar eclipse", "2": "Honey bee decline"}
    texts = {
        "d1": "A total solar eclipse crossed the Pacific on Tuesday.",
        "d2": "Astronomers gathered to watch the eclipse from a ship.",
        "d3": "The solar eclipse of 1919 confirmed general relativity.",
        "d4": "The Moon blocked the Sun over the Andes for four minutes.",
        "d5": "Eclipse chasers travel the world for totality.",
        "e1": "Honey bee colonies show a steep decline in Europe.",
        "e2": "Beekeepers report honey bee decline after a wet spring.",
        "e3": "Pesticides are blamed for collapsing honey production.",
        "e4": "Wild pollinators such as bumblebees are vanishing too.",
    }
    return {
        "titles": titles,
        "texts": texts,
        "pool": {"1": ["d1", "d2", "d3"], "2": ["e1", "e2"]},
        "sample_below": {"1": ["d4", "d5"], "2": ["e3", "e4"]},
    }


# ----------------------------------------------------------------------------------------------------------------
# where this replication deviates from the paper
# ----------------------------------------------------------------------------------------------------------------


def deviations(collection: Collection, plan, study, sweep: pd.DataFrame | None = None) -> pd.DataFrame:
    """What differs from the paper, why, and its effect (computed where it can be), one row a deviation: the
    collection, the depth cap, the reconstructed slope (its effect from the ``sweep`` of
    :func:`evalkit.papers.soboroff2007.sensitivity.sensitivity` when given), the phase-1 depth, the pooling runs,
    the draws, the lost leave-one-group-out table, the ANOVA's model, titlestat, the truth of "adequate to compute
    MAP", and the sizes when they are not the paper's. ``study``: a :class:`~evalkit.papers.soboroff2007.study.Study`
    with its draws."""
    from evalkit.papers.soboroff2007.paper import PAPER_POOL
    from evalkit.papers.soboroff2007.presets import PRESETS

    sample, t = study.sample, study.sample.table
    s = sample.summary()
    T, cap = len(t), plan.max_depth
    per = study.draws.per_draw
    rows = [
        ("the collection: " + str(collection.name) + " instead of TREC 2006 Terabyte (GOV2, 50 topics)",
         "the paper's runs and judgments are not available here",
         "values (depths, counts, tau) are not comparable and are not graded; claims about the method are graded "
         "as directions"),
        (f"sample depths capped at the judged depth {cap} (TB06: up to 1252)",
         "below the judged depth the qrels know nothing",
         f"the cap sets the depth of {s['topics_capped']} of {T} topics (mean depth {s['depth_uncapped_mean']:.0f} "
         f"before the cap, {s['depth_mean']:.0f} after)"),
    ]
    slope_why = "the paper's value and formulas were lost when its text was extracted"
    if sweep is not None:
        from evalkit.papers.soboroff2007.sensitivity import survives

        kept = survives(sweep, plan.slope).dropna().astype(bool)
        effect = (f"{int(kept.sum())} of {len(kept)} rated claims keep their rating at every slope of "
                  f"{', '.join(f'{v:g}' for v in sweep.index)} where they are rated" +
                  (f"; changed: {', '.join(kept.index[~kept])}" if (~kept).any() else ""))
    else:
        effect = "re-graded at other slopes by the sweep over the slope (the notebook's last section)"
    rows.append((f"slope {plan.slope:g} per {plan.phase1_depth} ranks (the kit's reading)", slope_why, effect))
    if plan.phase1_depth != 50:
        rows.append((f"phase-1 depth {plan.phase1_depth} instead of 50",
                     "scaled to the judged depth (the paper's 50 of TREC-8's 100)" if plan.notes and
                     "scaled" in plan.notes[0] else "set by the user",
                     f"{s['pool_docs_per_topic']:.0f} documents a topic in the phase-1 pool (TB06: 640)"))
    judged = int(collection.judged_runs.sum()) if "judged" in collection.runs_info else 0
    rows.append((f"the phase-1 pool: the {judged} runs that built this collection's pools (TB06: a subset of the "
                 "runs)", "the kit pools the runs the collection marks as judged",
                 f"{s['pool_docs_per_topic']:.0f} documents, {s['pool_relevant_per_topic']:.1f} relevant a topic "
                 f"(TB06: {PAPER_POOL['docs_per_topic']}, {PAPER_POOL['relevant_per_topic']})"))
    rows.append((f"the sample drawn {study.draws.n} times (the paper: once)",
                 "one draw is one outcome of a random design; a claim is graded on the spread",
                 f"Kendall's tau {per.tau.min():.3f}-{per.tau.max():.3f}, runs not lower {int(per.not_lower.min())}-"
                 f"{int(per.not_lower.max())} over the draws"))
    rows.append(("leave one group out: the paper's table is lost", "the text kept only its conclusion",
                 "only the conclusion is graded (infAP ranks move less, scores change similarly)"))
    a = study.anova
    rows.append(("the ANOVA's model: two readings (runs as replicates; topic x sample as the error)",
                 "the paper does not give its model", f"p of the sample effect {a.sample_p:.3g} and "
                 f"{a.sample_p_mixed:.3g}; only the first is the paper's literal reading"))
    rows.append(("titlestat not computed", "run files carry no document text", "its three values are not graded"))
    if study.adequacy is not None:
        rows.append(("\"adequate to compute MAP\": MAP on the phase-1 pool against the collection's full qrels",
                     "TB06 had no complete judgments to compare with; this collection's qrels are the truth here",
                     f"mean relative error {study.adequacy.relative_error.mean():.3f} over "
                     f"{len(study.adequacy)} pooling runs"))
    sizes = {k: plan[k] for k in ("n_subsamples", "n_draws", "logo_draws")}
    paper = {k: PRESETS["paper"][k] for k in sizes}
    if sizes != paper:
        rows.append((", ".join(f"{k} {v}" for k, v in sizes.items() if v != paper[k]) + " (paper preset: " +
                     ", ".join(f"{paper[k]}" for k in sizes if sizes[k] != paper[k]) + ")",
                     "a smaller run (preset or value set)", "claims a size cannot support say 'not rated at class "
                     "size'"))
    return pd.DataFrame(rows, columns=["what differs from the paper", "why", "effect"])
