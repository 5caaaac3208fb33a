""":func:`evalkit.evaluate` on a few plain run files, without pandas or pyarrow: the files are read and each run
put in trec_eval's order by the ``trec_eval`` command's numpy reader (:mod:`evalkit.trec_eval.reader`,
:func:`evalkit.trec_eval.rankings.rank`), and scored by the kit's own measure families (the registry's kernels,
the very code the collection's path runs) over a context of the same arrays: the grades at each rank in the kit's
codes, and each topic's counts from the qrels. A fresh process's first result then costs Python's start-up, numpy's
import and the work, not the import of pandas and pyarrow that the collection's reader and the DataFrame need.

It is a shortcut, never a second set of rules: :func:`score_files` returns None, and the caller takes the
collection's path (:meth:`evalkit.data.collection.Collection.from_runs`), whenever that path could answer
differently: a measure outside the per-ranking families (:data:`evalkit.measures.registry.PER_RANKING_FAMILIES`:
the inferred ones need the collection), a file the span reader does not take (comments, blank lines, runs of
blanks, extra fields, a document twice, a bad number: the collection's reader then names the line), a byte outside
ASCII (the kit refuses text that is not UTF-8 and drops a byte-order mark), a score that is not finite (refused by
the kit), a run whose tag changes between lines (the kit then names the run after its file), two runs with one name
(refused), or more than :data:`MOST_RUNS` runs (the collection's threads and blocks are faster there). Tests
compare both paths' tables value for value on collections unlike TREC-8 (string topics, ties, missing topics,
graded qrels, negative grades).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from evalkit.data.grade_codes import ABSENT, GRADE_DTYPE, UNJUDGED, UNSAMPLED
from evalkit.data.ordering import sort_topics
from evalkit.errors import TrecFormatError
from evalkit.measures.registry import PER_RANKING_FAMILIES, REGISTRY, parse_measure
from evalkit.measures.score_table import ScoreTable
from evalkit.trec_eval import reader
from evalkit.trec_eval.rankings import PAD, RELVALUE_NONPOOL, RELVALUE_UNJUDGED, rank, read_input

MOST_RUNS = 8
"""Runs beyond this many go the collection's way (built and scored in threads, in blocks of runs)."""


class PlainContext:
    """What the per-ranking measure families read (as :class:`evalkit.measures.evaluation.EvaluationContext`
    gives it): ``grades`` (runs, topics, ranks) in the kit's codes, and per topic the relevant and judged
    non-relevant counts, the ideal gains and the top grade, all from the qrels' counts per grade."""

    def __init__(self, grades: np.ndarray, levels: np.ndarray):
        self.grades = grades
        self.n_relevant = levels[:, 1:].sum(axis=1)
        self.n_judged_nonrelevant = levels[:, 0].copy()
        present = levels > 0
        top = np.where(present.any(axis=1), levels.shape[1] - 1 - np.argmax(present[:, ::-1], axis=1), 0)
        self.top_grade = top.astype(np.float64)
        width = max(int(self.n_relevant.max(initial=0)), 1)
        self.ideal_gains = np.zeros((len(levels), width))
        grades_down = np.arange(levels.shape[1] - 1, 0, -1)
        for t in range(len(levels)):  # each topic's positive grades, highest first (one row a topic)
            gains = np.repeat(grades_down, levels[t, :0:-1]).astype(np.float64)
            self.ideal_gains[t, : len(gains)] = gains


def kit_codes(rel: np.ndarray) -> np.ndarray:
    """trec_eval's ranking codes as the kit's grades: past the end ``ABSENT``, not in the qrels ``UNJUDGED``, a
    negative qrels grade ``UNSAMPLED``; judged grades as they are."""
    out = rel.astype(GRADE_DTYPE)
    out[rel == PAD] = ABSENT
    out[rel == RELVALUE_NONPOOL] = UNJUDGED
    out[rel == RELVALUE_UNJUDGED] = UNSAMPLED
    return out


def _plain_bytes(path) -> bytes | None:
    """The file's bytes as the trec_eval command reads them (:func:`evalkit.trec_eval.rankings.read_input`: gzip
    by its magic number), or None for anything this path leaves to the collection's reader: a file it cannot read,
    bad gzip, a file named ``.gz`` that is not gzip (the kit refuses it), text with a byte outside ASCII."""
    try:
        if Path(path).suffix == ".gz":
            with open(path, "rb") as handle:
                if handle.read(2) != b"\x1f\x8b":
                    return None
        _, data = read_input(path)
    except (OSError, TrecFormatError):
        return None
    return data if data.isascii() else None


def score_files(qrels_path, run_paths: list, measures, ties: str = "float64", per_topic: bool = True
                ) -> ScoreTable | None:
    """The :class:`ScoreTable` of ``run_paths`` against ``qrels_path``, or None where the collection's path must
    answer (module notes). ``ties``: ``"float64"`` (trec_eval 10.0) or ``"float32"`` (9.0.8, pytrec_eval)."""
    if not 0 < len(run_paths) <= MOST_RUNS or ties not in ("float64", "float32"):
        return None
    if any(str(p) == "-" for p in [qrels_path, *run_paths]):
        return None
    specs = [parse_measure(m) for m in measures]
    if any(spec.family not in PER_RANKING_FAMILIES for spec in specs):
        return None
    data = _plain_bytes(qrels_path)
    qrels = None if data is None else reader.read_qrels(qrels_path, source=[str(qrels_path), data])
    del data
    if qrels is None:
        return None
    labels = [t.decode() for t in qrels.topics]
    topics = sort_topics(labels)
    column = {topic: i for i, topic in enumerate(topics.tolist())}
    levels = np.zeros_like(qrels.levels)
    levels[[column[t] for t in labels]] = qrels.levels  # rows in the collection's topic order
    names, rankings = [], []
    for path in run_paths:
        data = _plain_bytes(path)
        run = None if data is None else reader.read_run(path, qrels, source=[str(path), data], uniform_tag=True)
        del data
        if run is None or not np.isfinite(run.scores).all() or run.runid in names:
            return None
        judged = rank(run, qrels, ties=ties)
        names.append(run.runid)
        rankings.append((np.array([column[t] for t in judged.topics], np.int64), kit_codes(judged.rel)))
    depth = max(rel.shape[1] for _, rel in rankings)
    grades = np.full((len(rankings), len(topics), depth), ABSENT, GRADE_DTYPE)
    scored = np.zeros((len(rankings), len(topics)), bool)
    for s, (where, rel) in enumerate(rankings):
        grades[s, where, : rel.shape[1]] = rel
        scored[s, where] = True
    context = PlainContext(grades, levels)
    values = np.stack([np.asarray(REGISTRY[spec.family.lower()].compute(context, spec), np.float64)
                       for spec in specs])
    return ScoreTable(runs=np.asarray(names, object), topics=topics, measures=[str(s) for s in specs],
                      values=values, scored=scored, per_topic=per_topic)
