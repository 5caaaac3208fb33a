"""``evaluate``: measures by name over runs and qrels, as a long DataFrame (what ``evalkit eval`` prints).

The kit's replacement for trec_eval (and, for sampled qrels, NIST's sample_eval.pl) in a script:

>>> evalkit.evaluate("qrels.txt", ["input.run1.gz", "input.run2.gz"], ["AP", "P@10", "nDCG@100"])

Topics follow trec_eval's default: a run is scored on the topics that have judgments and for which it retrieved
something; the ``all`` row is the mean over those topics.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from .collection import Collection, JudgedSet
from .io import Qrels, Run, read_qrels
from .measures import REGISTRY, parse_measure

__all__ = ["EvaluationContext", "evaluate", "score_matrix", "DEFAULT_MEASURES"]

DEFAULT_MEASURES = ("AP", "P@10", "Rprec", "nDCG", "nDCG@100", "Bpref", "RBP(p=0.95)")


@dataclass
class EvaluationContext:
    """What measure families read: the grade array and per-topic qrels statistics, each computed once."""

    collection: Collection
    qrels: JudgedSet

    @cached_property
    def grades(self) -> np.ndarray:
        if self.qrels is self.collection.qrels:
            return self.collection.default_grades
        return self.collection.grades(self.qrels)

    @cached_property
    def n_relevant(self) -> np.ndarray:
        return self.qrels.counts(1)

    @cached_property
    def n_judged_nonrelevant(self) -> np.ndarray:
        return self.qrels.judged_nonrelevant(1)

    @cached_property
    def ideal_gains(self) -> np.ndarray:
        return self.qrels.ideal_gains()


def score_matrix(collection: Collection, measure: str, qrels: JudgedSet | Qrels | None = None) -> np.ndarray:
    """(runs, topics) scores of one measure by name (e.g. ``"nDCG@100"``) under ``qrels`` (default: the
    collection's own)."""
    return _scores(_context(collection, qrels), [measure])[0]


def _context(collection: Collection, qrels) -> EvaluationContext:
    if qrels is None:
        judged = collection.qrels
    elif isinstance(qrels, Qrels):
        judged = collection.align_qrels(qrels)
    else:
        judged = qrels
    return EvaluationContext(collection, judged)


def _scores(context: EvaluationContext, measures: Sequence[str]) -> list[np.ndarray]:
    out = []
    for name in measures:
        spec = parse_measure(name)
        family = REGISTRY[spec.family.lower()]
        if family.needs_strata and not context.qrels.sampled:
            raise ValueError(
                f"{spec} needs sampled qrels (5 columns: topic iter docno stratum rel); these qrels have no strata"
            )
        out.append(np.asarray(family.compute(context, spec), np.float64))
    return out


def _as_collection(qrels, runs) -> tuple[Collection, JudgedSet]:
    if isinstance(runs, Collection):
        collection = runs
        if qrels is None:
            return collection, collection.qrels
        if isinstance(qrels, (str, os.PathLike)):
            qrels = read_qrels(qrels)
        return collection, _context(collection, qrels).qrels
    if qrels is None:
        raise ValueError("evaluate needs qrels unless runs is a Collection")
    if isinstance(qrels, (str, os.PathLike)):
        qrels = read_qrels(qrels)
    if isinstance(runs, (str, os.PathLike, Run)):
        runs = [runs]
    from .datasets import read_runs  # the fast bulk reader

    paths = [r for r in runs if not isinstance(r, Run)]
    loaded = {id(r): r for r in runs if isinstance(r, Run)}
    parsed = iter(read_runs(paths)) if paths else iter(())
    run_list = [loaded[id(r)] if id(r) in loaded else next(parsed) for r in runs]
    collection = Collection.from_runs(run_list, qrels, name="evaluation")
    return collection, collection.qrels


def evaluate(
    qrels: str | os.PathLike | Qrels | JudgedSet | None,
    runs: Collection | str | os.PathLike | Run | Iterable,
    measures: Sequence[str] = DEFAULT_MEASURES,
    per_topic: bool = True,
) -> pd.DataFrame:
    """Score runs with measures named in ir_measures' notation; a long DataFrame ``run, topic, measure, value``.

    ``qrels``: a qrels path, a :class:`~evalkit.io.Qrels`, aligned :class:`~evalkit.collection.JudgedSet`, or None
    to use the collection's own. ``runs``: run file paths, :class:`~evalkit.io.Run` objects, or a
    :class:`~evalkit.collection.Collection`. Per-topic rows come first for each run (topics in the collection's
    order), then an ``all`` row with the mean over the topics the run was scored on (trec_eval's default).
    Sampled qrels (5 columns) enable the inferred measures ``infAP``, ``infNDCG@k``, ``infP@k`` and ``infR``.
    """
    if isinstance(measures, str):
        measures = [measures]
    collection, judged = _as_collection(qrels, runs)
    context = EvaluationContext(collection, judged)
    values = np.stack(_scores(context, measures))  # (M, S, T)
    has_judgments = np.bincount(judged.topic, minlength=collection.n_topics) > 0
    scored = collection.retrieved & has_judgments[None, :]  # (S, T)
    names = [str(parse_measure(m)) for m in measures]
    frames = []
    if per_topic:
        m_idx, s_idx, t_idx = np.nonzero(np.broadcast_to(scored[None], values.shape))
        order = np.lexsort((m_idx, t_idx, s_idx))
        m_idx, s_idx, t_idx = m_idx[order], s_idx[order], t_idx[order]
        frames.append(pd.DataFrame({
            "run": collection.run_names[s_idx],
            "topic": collection.topics[t_idx],
            "measure": np.asarray(names, object)[m_idx],
            "value": values[m_idx, s_idx, t_idx],
        }))
    counts = scored.sum(axis=1)
    means = np.divide((values * scored[None]).sum(axis=2), counts[None, :], out=np.zeros(values.shape[:2]),
                      where=counts[None, :] > 0)
    m_idx, s_idx = np.meshgrid(np.arange(len(names)), np.arange(collection.n_runs), indexing="ij")
    frames.append(pd.DataFrame({
        "run": collection.run_names[s_idx.ravel()],
        "topic": "all",
        "measure": np.asarray(names, object)[m_idx.ravel()],
        "value": means.ravel(),
    }))
    frame = pd.concat(frames, ignore_index=True)
    run_order = {name: i for i, name in enumerate(collection.run_names)}
    frame["_run"] = frame["run"].map(run_order)
    frame["_all"] = frame["topic"].eq("all")
    frame = frame.sort_values(["_run", "_all"], kind="stable").drop(columns=["_run", "_all"])
    return frame.reset_index(drop=True)
