"""Soboroff (2007): titlestat (Sec. 4), from judged documents and a caller's text source to DataFrames, the
paper's values beside.

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

__all__ = ["STOPWORDS", "title_words", "titlestat", "titlestat_example", "titlestat_rel", "titlestat_sets"]

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
