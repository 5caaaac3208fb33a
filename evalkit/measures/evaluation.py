"""``evaluate``: measures by name over runs and qrels, as a long DataFrame (what ``evalkit eval`` prints) or a
:class:`~evalkit.measures.score_table.ScoreTable` of numpy arrays (``as_frame=False``).

The kit's replacement for trec_eval (and, for sampled qrels, NIST's sample_eval.pl) in a script:

>>> evalkit.evaluate("qrels.txt", ["input.run1.gz", "input.run2.gz"], ["AP", "P@10", "nDCG@100"])

Topics follow trec_eval's default: a run is scored on the topics that have judgments and for which it retrieved
something; the ``all`` row is the mean over those topics.

Importing this module imports neither pandas nor pyarrow (the collection's modules are imported where a call needs
them): a few plain run files are scored by :mod:`evalkit.measures.plain_files`, and pandas comes in with the
DataFrame.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

from evalkit.measures import REGISTRY, parse_measure
from evalkit.measures.registry import PER_RANKING_FAMILIES
from evalkit.measures.score_table import ScoreTable

if TYPE_CHECKING:
    import pandas as pd

    from evalkit.data.collection import Collection, JudgedSet
    from evalkit.data.trec_files import Qrels, Run

__all__ = ["EvaluationContext", "PER_RANKING_FAMILIES", "ScoreTable", "evaluate", "score_matrix", "DEFAULT_MEASURES"]

DEFAULT_MEASURES = ("AP", "P@10", "Rprec", "nDCG", "nDCG@100", "Bpref", "RBP(p=0.95)")


#: cells (runs x topics x ranks) scored at a time by the standard measures: bounds what an evaluation holds besides
#: the collection (about 10 bytes a cell of one block, some 2 MB: grades, masks, bpref's running count, hit
#: positions), so a block's temporaries stay in a core's L2 cache and are not fresh pages on every call. Measured
#: (5 measures, ns a cell, 2-core AMD EPYC, 1 MB L2 a core): 1 Mi cells: TREC-8 7.3, simulated 129 x 50 7.9,
#: 2064 x 50 6.1, 129 x 800 7.1 (largest over smallest 1.31); 192 Ki: 6.2, 6.9, 6.3, 7.0 (1.12); 128 Ki: 6.3, 6.6,
#: 6.6, 6.8 (1.08)
BLOCK_CELLS = 3 << 16

#: of the per-ranking families (:data:`evalkit.measures.registry.PER_RANKING_FAMILIES`), the families that read no
#: rank beyond their cut-off (``grades[..., :k]``) when they have one
CUT_FAMILIES = frozenset({"AP", "P", "R", "nDCG", "RBP", "RBPres", "NumRet"})


@dataclass
class EvaluationContext:
    """What measure families read: the grades of the rankings and per-topic qrels statistics.

    A context covers the runs ``runs`` and topics ``topics`` (slices; default all) of ``collection``, ranks up to
    ``depth`` (default all). Its ``grades`` are looked up from ``qrels`` when first read, never taken from or left in
    a cache on the collection, so every evaluation pays (and bounds) its own lookup. :meth:`blocks` splits a context
    into contexts of at most ``BLOCK_CELLS`` cells that share the per-topic statistics and one lookup scratch row.
    """

    collection: Collection
    qrels: JudgedSet
    runs: slice = field(default_factory=lambda: slice(None))
    topics: slice = field(default_factory=lambda: slice(None))
    depth: int | None = None
    shared: dict = field(default_factory=dict, repr=False, compare=False)  # per-topic statistics over all topics

    @property
    def docs(self) -> np.ndarray:
        """(runs, topics, ranks) document ids of this context (a view of the collection's)."""
        return self.collection.docs[self.runs, self.topics, : self.depth]

    @cached_property
    def grades(self) -> np.ndarray:
        docs = self.docs
        topic_ids = np.arange(self.collection.n_topics, dtype=np.int32)[self.topics]
        return self.qrels.lookup(np.broadcast_to(topic_ids[None, :, None], docs.shape), docs,
                                 scratch=self.shared.get("scratch"))

    def _per_topic(self, name: str, compute) -> np.ndarray:
        if name not in self.shared:
            self.shared[name] = compute()
        return self.shared[name][self.topics]

    @property
    def n_relevant(self) -> np.ndarray:
        return self._per_topic("n_relevant", lambda: self.qrels.counts(1))

    @property
    def n_judged_nonrelevant(self) -> np.ndarray:
        return self._per_topic("n_judged_nonrelevant", lambda: self.qrels.judged_nonrelevant(1))

    @property
    def ideal_gains(self) -> np.ndarray:
        return self._per_topic("ideal_gains", self.qrels.ideal_gains)

    @property
    def top_grade(self) -> np.ndarray:
        """The highest grade among each topic's judgments: what trec_eval's rbp rescales gains by."""
        return self._per_topic("top_grade", self.qrels.top_grade)

    def blocks(self, cells: int = BLOCK_CELLS):
        """Contexts covering this one in blocks of at most ``cells`` cells (one topic of one run at the least):
        ranges of topics with all runs while a topic's rankings fit, else ranges of runs one topic at a time. Blocks
        follow the topics, so the lookup writes each topic's qrels into the scratch row once per block."""
        n_runs = len(range(*self.runs.indices(self.collection.n_runs)))
        topic_ids = range(*self.topics.indices(self.collection.n_topics))
        run_ids = range(*self.runs.indices(self.collection.n_runs))
        depth = len(range(*slice(None, self.depth).indices(self.collection.depth)))
        per_topic = max(n_runs * depth, 1)
        self.shared.setdefault("scratch", self.qrels.scratch_row())
        if per_topic <= cells:
            step = max(1, cells // per_topic)
            for start in range(0, len(topic_ids), step):
                stop = min(start + step, len(topic_ids))
                yield replace(self, runs=_sub(self.runs, run_ids, 0, n_runs),
                              topics=_sub(self.topics, topic_ids, start, stop))
        else:
            step = max(1, cells // max(depth, 1))
            for t in range(len(topic_ids)):
                for start in range(0, n_runs, step):
                    stop = min(start + step, n_runs)
                    yield replace(self, runs=_sub(self.runs, run_ids, start, stop),
                                  topics=_sub(self.topics, topic_ids, t, t + 1))

    def index(self) -> tuple[slice, slice]:
        """Where this context's (runs, topics) sit in the whole collection's score matrices."""
        return self.runs, self.topics


def _sub(whole: slice, ids: range, start: int, stop: int) -> slice:
    """The slice of collection indices for positions start..stop of ``ids`` (a range with step 1)."""
    return slice(ids.start + start, ids.start + stop)


def score_matrix(collection: Collection, measure: str, qrels: JudgedSet | Qrels | None = None) -> np.ndarray:
    """(runs, topics) scores of one measure by name (e.g. ``"nDCG@100"``) under ``qrels`` (default: the
    collection's own)."""
    return _scores(_context(collection, qrels), [measure])[0]


def _context(collection: Collection, qrels) -> EvaluationContext:
    from evalkit.data.trec_files import Qrels

    if qrels is None:
        judged = collection.qrels
    elif isinstance(qrels, Qrels):
        judged = collection.align_qrels(qrels)
    else:
        judged = qrels
    return EvaluationContext(collection, judged)


def _depth_needed(specs) -> int | None:
    """The ranks the per-ranking measures read: the largest cut-off when every one has a cut-off that bounds it,
    else all (None)."""
    cuts = []
    for spec in specs:
        if spec.family not in CUT_FAMILIES or spec.cutoff is None:
            return None
        cuts.append(spec.cutoff)
    return max(cuts) if cuts else None


def _scores(context: EvaluationContext, measures: Sequence[str], block_cells: int = BLOCK_CELLS) -> list[np.ndarray]:
    """(runs, topics) float64 scores of each measure over ``context``. The per-ranking families (see
    :data:`PER_RANKING_FAMILIES`) are scored block by block (:meth:`EvaluationContext.blocks`), so the grades and the
    kernels' temporaries never exceed one block; the ranks past the largest cut-off are not even looked up when
    every measure has one. Each (run, topic) score is computed by the same arithmetic whatever the blocks."""
    specs = []
    for name in measures:
        spec = parse_measure(name)
        family = REGISTRY[spec.family.lower()]
        if family.needs_strata and not context.qrels.sampled:
            raise ValueError(
                f"{spec} needs sampled qrels (5 columns: topic iter docno stratum rel); these qrels have no strata"
            )
        specs.append((spec, family))
    out: list[np.ndarray | None] = [None] * len(specs)
    blocked = [i for i, (spec, _) in enumerate(specs) if spec.family in PER_RANKING_FAMILIES]
    if blocked:
        shape = (len(range(*context.runs.indices(context.collection.n_runs))),
                 len(range(*context.topics.indices(context.collection.n_topics))))
        depth = _depth_needed(specs[i][0] for i in blocked)
        if depth is not None and context.depth is not None:
            depth = min(depth, context.depth)
        whole = replace(context, depth=depth if depth is not None else context.depth, shared=context.shared)
        run0 = context.runs.indices(context.collection.n_runs)[0]
        topic0 = context.topics.indices(context.collection.n_topics)[0]
        for i in blocked:
            out[i] = np.empty(shape, np.float64)
        for block in whole.blocks(block_cells):
            runs, topics = block.index()
            where = (slice(runs.start - run0, runs.stop - run0), slice(topics.start - topic0, topics.stop - topic0))
            for i in blocked:
                spec, family = specs[i]
                out[i][where] = family.compute(block, spec)
    for i, (spec, family) in enumerate(specs):
        if out[i] is None:
            out[i] = np.asarray(family.compute(context, spec), np.float64)
    return out


def _aligned(collection: Collection, qrels) -> JudgedSet:
    """``qrels`` (None: the collection's own; a path, :class:`Qrels` or :class:`JudgedSet`) aligned with it."""
    if qrels is None:
        return collection.qrels
    if isinstance(qrels, (str, os.PathLike)):
        from evalkit.data.trec_files import read_qrels

        qrels = read_qrels(qrels)
    return _context(collection, qrels).qrels


def _run_blocks(runs: list, runs_per_block: int) -> list[list]:
    """``runs`` in consecutive blocks of about equal size, none larger than ``runs_per_block``."""
    n_blocks = max(1, -(-len(runs) // runs_per_block))
    edges = np.linspace(0, len(runs), n_blocks + 1).round().astype(int)
    return [runs[a:b] for a, b in zip(edges[:-1], edges[1:]) if b > a]


def _scored(collection: Collection, judged: JudgedSet, measures: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(M, S, T) values of ``measures`` and (S, T) bool: the (run, topic) cells trec_eval scores (the run retrieved
    something for a topic with judgments)."""
    values = np.stack(_scores(EvaluationContext(collection, judged), measures))
    has_judgments = np.bincount(judged.topic, minlength=collection.n_topics) > 0
    return values, collection.retrieved & has_judgments[None, :]


#: run files read, built and scored together by :func:`evaluate` from files: what it holds at once is one block's
#: runs and arrays, never every run's (TREC-8's 129 runs in blocks of 32: a peak RSS of 0.36-0.43 GB, imports and
#: qrels included, against 0.69-0.74 GB in one block; the time is the same)
RUNS_PER_BLOCK = 32


def evaluate(
    qrels: str | os.PathLike | Qrels | JudgedSet | None,
    runs: Collection | str | os.PathLike | Run | Iterable,
    measures: Sequence[str] = DEFAULT_MEASURES,
    per_topic: bool = True,
    ties: str | None = None,
    as_frame: bool = True,
) -> pd.DataFrame | ScoreTable:
    """Score runs with measures named in ir_measures' notation; a long DataFrame ``run, topic, measure, value``.

    ``qrels``: a qrels path, a :class:`~evalkit.data.trec_files.Qrels`, aligned
    :class:`~evalkit.data.collection.JudgedSet`, or None to use the collection's own. ``runs``: run file paths,
    :class:`~evalkit.data.trec_files.Run` objects, or a :class:`~evalkit.data.collection.Collection`. Per-topic rows
    come first for each run (topics in the collection's order), then an ``all`` row with the mean over the topics
    the run was scored on (trec_eval's default). Sampled qrels (5 columns) enable the inferred measures ``infAP``,
    ``infNDCG@k``, ``infP@k`` and ``infR``.

    Runs given as files (or :class:`~evalkit.data.trec_files.Run` objects) are read, built and scored
    ``RUNS_PER_BLOCK`` at a time against the same qrels, so memory stays bounded by a block: the numbers are those
    of one collection of every run (a run's scores depend only on it and the qrels; its topics are the qrels' topics
    either way). A few plain run files (at most :data:`evalkit.measures.plain_files.MOST_RUNS`) scored by the
    per-ranking families are read without pandas or pyarrow (:mod:`evalkit.measures.plain_files`): the same
    kernels on the same grades, so the same numbers bit for bit (tested against this path).

    ``ties``: how runs read here order equal scores. ``"float64"`` (the default) equals trec_eval 10.0 (scores
    compared as C doubles); ``"float32"`` equals trec_eval 9.0.8 and pytrec_eval-terrier (C floats: scores
    equal in single precision tie and are ordered by docno). A :class:`Collection` keeps the order it was built
    with (``collection.metadata["ties"]``); asking for another is an error, not a silent no-op.

    ``as_frame=False``: the :class:`~evalkit.measures.score_table.ScoreTable` (numpy arrays: values, which cells
    are scored, means; ``.to_frame()`` gives the DataFrame), without importing pandas when the files take the
    plain path: a fresh process's first result comes sooner.
    """
    if isinstance(measures, str):
        measures = [measures]
    table = None
    paths = _plain_paths(qrels, runs)
    if paths is not None:
        from evalkit.measures import plain_files

        table = plain_files.score_files(qrels, paths, measures, ties or "float64", per_topic)
    if table is None:
        table = _collection_table(qrels, runs, measures, per_topic, ties)
    return table.to_frame() if as_frame else table


def _plain_paths(qrels, runs) -> list | None:
    """``runs`` as a list of paths when ``qrels`` is a path and every run is one, else None."""
    if not isinstance(qrels, (str, os.PathLike)):
        return None
    runs = [runs] if isinstance(runs, (str, os.PathLike)) else runs
    if not isinstance(runs, (list, tuple)) or not all(isinstance(r, (str, os.PathLike)) for r in runs):
        return None
    return list(runs)


def _collection_table(qrels, runs, measures, per_topic: bool, ties: str | None) -> ScoreTable:
    """The :class:`ScoreTable` through collections: the given one, or runs built ``RUNS_PER_BLOCK`` at a time."""
    from evalkit.data.collection import Collection
    from evalkit.data.trec_files import Run, read_qrels

    if isinstance(runs, Collection):
        built = runs.metadata.get("ties", "float64")
        if ties is not None and ties != built:
            raise ValueError(f"this collection was built with ties={built!r}; rebuild it with ties={ties!r} "
                             "(load_dataset(..., ties=...) or Collection.from_runs(..., ties=...))")
    names = [str(parse_measure(m)) for m in measures]
    if isinstance(runs, Collection):
        judged = _aligned(runs, qrels)
        values, scored = _scored(runs, judged, measures)
        return ScoreTable(runs.run_names, runs.topics, names, values, scored, per_topic)
    if qrels is None:
        raise ValueError("evaluate needs qrels unless runs is a Collection")
    if isinstance(qrels, (str, os.PathLike)):
        qrels = read_qrels(qrels)
    if isinstance(runs, (str, os.PathLike, Run)):
        runs = [runs]
    runs = list(runs)
    if not runs:
        raise ValueError("a collection needs at least one run")
    run_names, values, scored, seen, topics, offset = [], [], [], {}, None, 0
    for block in _run_blocks(runs, RUNS_PER_BLOCK):  # files parsed in the build's threads
        collection = Collection.from_runs(block, qrels, name="evaluation", ties=ties or "float64", names_seen=seen,
                                          first_run=offset)
        block_values, block_scored = _scored(collection, collection.qrels, measures)
        run_names.append(collection.run_names)
        values.append(block_values)
        scored.append(block_scored)
        topics, offset = collection.topics, offset + len(block)
        del collection
    return ScoreTable(np.concatenate(run_names), topics, names, np.concatenate(values, axis=1),
                      np.concatenate(scored), per_topic)
