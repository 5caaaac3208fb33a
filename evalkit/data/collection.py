"""The collection: runs and qrels as dense numpy arrays over one document vocabulary.

``docs[run, topic, rank]``   int32 document id into ``vocabulary`` (sorted docnos, so id order is docno order),
                             -1 past the end of a run; each (run, topic) row in trec_eval order (score descending,
                             docno descending).
``scores[run, topic, rank]`` float64 retrieval score, NaN past the end.
``qrels``                    :class:`JudgedSet`, judgments aligned with the vocabulary: (topic index, doc id,
                             grade, stratum) sorted by (topic, doc).
``runs_info``                DataFrame indexed by run name: ``group``, ``type``, ``judged`` (whether the run
                             contributed to the pools; see :mod:`evalkit.data.datasets` for the rule).
``metadata``                 a JSON-serializable dict about the collection as a whole (e.g. its pools: judged
                             depth and which rule decided the judged runs); persisted by the dataset cache.

Grades are ``int32`` (``GRADE_DTYPE``). Judged grades are >= 0, as read from the qrels (up to 2**31 - 1); a
negative qrels grade means "in the pool, not judged", whatever its value, as in trec_eval (``form_res_rels.c``
maps every rel < 0 to RELVALUE_UNJUDGED) and sample_eval.pl (-1: pooled, not sampled). Grades looked up for a
ranking (:meth:`JudgedSet.lookup`, :meth:`Collection.grades`) use three codes besides the judged grades (named in
:mod:`evalkit.data.grade_codes`):

``UNSAMPLED``  -1            in the qrels with a negative grade (any negative grade of the file reads as this)
``UNJUDGED``   -2**31 + 1    not in the qrels at all
``ABSENT``     -2**31        past the end of the run

``UNJUDGED`` and ``ABSENT`` lie below anything a qrels file can hold: :func:`evalkit.data.trec_files.read_qrels` reads grades
in ``GRADE_MIN..GRADE_MAX`` (-2147483646..2147483647) and refuses others by file, line and value, and
:class:`JudgedSet` refuses grade arrays outside that range. Use the names, never the numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
import pandas as pd

from evalkit.data.build import build_arrays
from evalkit.data.text_fields import STDIN_NAME
from evalkit.data.grade_codes import ABSENT, GRADE_DTYPE, GRADE_MAX, GRADE_MIN, UNJUDGED, UNSAMPLED
from evalkit.data.ordering import sort_topics
from evalkit.data.trec_files import Qrels, Run

__all__ = ["Collection", "JudgedSet", "UNSAMPLED", "UNJUDGED", "ABSENT", "GRADE_DTYPE", "GRADE_MIN", "GRADE_MAX",
           "as_grades", "sort_topics"]


def as_grades(grade, what: str = "grades") -> np.ndarray:
    """``grade`` as a ``GRADE_DTYPE`` array, refusing values outside ``GRADE_MIN..GRADE_MAX`` (which would wrap or
    collide with the codes ``UNJUDGED``/``ABSENT``) with a ValueError naming the first such value."""
    grade = np.asarray(grade)
    if grade.dtype == GRADE_DTYPE and not (grade < GRADE_MIN).any():
        return grade
    if grade.dtype.kind not in "iub" and len(grade):
        if not np.array_equal(grade, np.round(grade)):
            raise ValueError(f"{what} must be integers; found {grade[grade != np.round(grade)][0]!r}")
    outside = (grade < GRADE_MIN) | (grade > GRADE_MAX)
    if outside.any():
        raise ValueError(f"{what}: {grade[outside][0]!r} is outside the supported range {GRADE_MIN}..{GRADE_MAX}")
    return grade.astype(GRADE_DTYPE)


@dataclass(frozen=True)
class JudgedSet:
    """Judgments aligned with a collection: parallel arrays sorted by (topic, doc).

    ``grade`` (``GRADE_DTYPE``, in ``GRADE_MIN..GRADE_MAX``) < 0 means pooled but not judged (``UNSAMPLED`` in
    the sampled form); ``stratum`` is None for plain qrels. ``n_topics`` and ``n_docs`` fix the key space
    ``topic * n_docs + doc``. Grades of another integer dtype are converted (and range-checked) on construction.
    """

    topic: np.ndarray  # int32
    doc: np.ndarray  # int32
    grade: np.ndarray  # GRADE_DTYPE (int32)
    stratum: np.ndarray | None
    n_topics: int
    n_docs: int

    def __post_init__(self):
        grade = np.asarray(self.grade)
        if grade.dtype != GRADE_DTYPE or (len(grade) and grade.min() < GRADE_MIN):  # a code is no grade
            object.__setattr__(self, "grade", as_grades(grade, "JudgedSet grades"))

    def __len__(self) -> int:
        return len(self.doc)

    @property
    def sampled(self) -> bool:
        return self.stratum is not None

    @cached_property
    def keys(self) -> np.ndarray:
        return self.topic.astype(np.int64) * self.n_docs + self.doc

    @cached_property
    def coded_grade(self) -> np.ndarray:
        """``grade`` with every negative grade as ``UNSAMPLED``: what :meth:`lookup` reports for a document in the
        qrels (trec_eval reads every rel < 0 alike)."""
        return np.maximum(self.grade, GRADE_DTYPE(UNSAMPLED))

    @cached_property
    def topic_bounds(self) -> np.ndarray:
        """(n_topics + 1,) int64: topic t's judgments are lines ``topic_bounds[t]:topic_bounds[t + 1]``."""
        return np.searchsorted(self.topic, np.arange(self.n_topics + 1), side="left").astype(np.int64)

    def lookup(self, topic_index: np.ndarray, doc: np.ndarray, *, scratch: np.ndarray | None = None) -> np.ndarray:
        """``GRADE_DTYPE`` grade of each (topic, doc) pair: the judged grade (>= 0), ``UNSAMPLED`` for a negative
        qrels grade (:attr:`coded_grade`), ``UNJUDGED`` where not in the qrels, ``ABSENT`` where doc < 0.

        Computed one topic at a time through a dense scratch row over the vocabulary
        (``row[qrels docs of t] = grades; out = row[docs]``): linear in the number of pairs, no search over the
        qrels keys. ``scratch``: a row from :meth:`scratch_row`, reused by a caller that looks up many blocks (the
        row is handed back as it came); without it each call allocates its own.
        """
        return _lookup_by_topic(self, self.coded_grade, UNJUDGED, ABSENT, topic_index, doc, scratch)

    def scratch_row(self) -> np.ndarray:
        """A row for :meth:`lookup`'s ``scratch``: ``UNJUDGED`` over the vocabulary, then one ``ABSENT`` slot."""
        row = np.full(self.n_docs + 1, UNJUDGED, GRADE_DTYPE)
        row[-1] = ABSENT
        return row

    def lookup_stratum(self, topic_index: np.ndarray, doc: np.ndarray) -> np.ndarray:
        """Stratum of each (topic, doc) pair; -1 where the document is not in the qrels (or no strata)."""
        if self.stratum is None or not len(self.doc):
            return np.full(np.broadcast_shapes(np.shape(topic_index), np.shape(doc)), -1, np.int32)
        return _lookup_by_topic(self, self.stratum, -1, -1, topic_index, doc).astype(np.int32, copy=False)

    def counts(self, min_grade: int = 1) -> np.ndarray:
        """Per topic, the number of judged documents with grade >= ``min_grade``."""
        return self._count_per_topic(self.grade >= min_grade)

    def judged_nonrelevant(self, relevance_level: int = 1) -> np.ndarray:
        """Per topic, the number of judged documents with 0 <= grade < ``relevance_level``."""
        return self._count_per_topic((self.grade >= 0) & (self.grade < relevance_level))

    def _count_per_topic(self, mask: np.ndarray) -> np.ndarray:
        """(n_topics,) int64: True cells of ``mask`` (one per judgment) in each topic's lines, counted over the
        topic's contiguous range (the judgments are sorted by topic): no masked copy, no bincount."""
        bounds = self.topic_bounds
        if self.n_topics <= 4096:
            return np.fromiter((np.count_nonzero(mask[a:b]) for a, b in zip(bounds[:-1].tolist(),
                                                                              bounds[1:].tolist())),
                               np.int64, self.n_topics)
        starts = np.minimum(bounds[:-1], max(len(mask) - 1, 0))
        counts = np.add.reduceat(mask, starts, dtype=np.int64) if len(mask) else np.zeros(self.n_topics, np.int64)
        counts[bounds[:-1] == bounds[1:]] = 0
        return counts

    def top_grade(self) -> np.ndarray:
        """(n_topics,) float64: the highest grade >= 0 among each topic's judgments (0 for a topic without one):
        what trec_eval 10.0's rbp rescales a topic's gains by (its gain levels run from 0 to that grade)."""
        bounds = self.topic_bounds
        starts, counts = bounds[:-1], np.diff(bounds)
        top = np.zeros(self.n_topics)
        present = counts > 0
        if present.any():
            top[present] = np.maximum.reduceat(np.maximum(self.grade, 0).astype(np.float64), starts[present])
        return top

    def ideal_gains(self, depth: int | None = None) -> np.ndarray:
        """(T, depth) gains of the ideal ranking: each topic's positive grades sorted descending, 0-padded."""
        positive = self.grade > 0
        topic, gain = self.topic[positive], self.grade[positive].astype(np.float64)
        counts = np.bincount(topic, minlength=self.n_topics)
        width = int(counts.max(initial=0)) if depth is None else depth
        out = np.zeros((self.n_topics, max(width, 1)), np.float64)
        if len(gain):  # one sort of (topic, gain descending) as a combined int64 key (< 2**62: int32 parts)
            grade = self.grade[positive].astype(np.int64)
            top = int(grade.max())
            order = np.argsort(topic.astype(np.int64) * (top + 1) + (top - grade))
            topic, gain = topic[order], gain[order]
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        rank = np.arange(len(topic)) - starts[topic]
        keep = rank < out.shape[1]
        out[topic[keep], rank[keep]] = gain[keep]
        return out

    def subset_topics(self, topic_indices: np.ndarray) -> "JudgedSet":
        """Judgments of the chosen topics, renumbered 0..len(topic_indices)-1 in the given order."""
        remap = np.full(self.n_topics, -1, np.int64)
        remap[topic_indices] = np.arange(len(topic_indices))
        keep = remap[self.topic] >= 0
        new_topic = remap[self.topic[keep]].astype(np.int32)
        doc = self.doc[keep]
        order = np.lexsort((doc, new_topic))
        return JudgedSet(
            topic=new_topic[order],
            doc=doc[order],
            grade=self.grade[keep][order],
            stratum=None if self.stratum is None else self.stratum[keep][order],
            n_topics=len(topic_indices),
            n_docs=self.n_docs,
        )

    @classmethod
    def from_arrays(cls, topic, doc, grade, n_topics, n_docs, stratum=None) -> "JudgedSet":
        """Build from unsorted parallel arrays (sorted here; a repeated (topic, doc) pair is an error)."""
        topic = np.asarray(topic, np.int32)
        doc = np.asarray(doc, np.int32)
        if len(doc) and 0 <= topic.min() and topic.max() < n_topics and 0 <= doc.min() and doc.max() < n_docs:
            # the ids in range: one int64 key orders them as lexsort((doc, topic)) does, stably (TREC-8's 86 k
            # judgments: 0.15 ms against 4.6)
            order = np.argsort(topic.astype(np.int64) * max(int(n_docs), 1) + doc, kind="stable")
        else:
            order = np.lexsort((doc, topic))
        topic, doc = topic[order], doc[order]
        if len(doc) > 1 and ((np.diff(topic) == 0) & (np.diff(doc) == 0)).any():
            raise ValueError("a (topic, document) pair is judged twice")
        return cls(
            topic=topic,
            doc=doc,
            grade=as_grades(grade)[order],
            stratum=None if stratum is None else np.asarray(stratum, np.int32)[order],
            n_topics=int(n_topics),
            n_docs=int(n_docs),
        )


@dataclass(frozen=True)
class Collection:
    """Runs, qrels and run metadata as dense arrays (see the module docstring)."""

    name: str
    topics: np.ndarray  # (T,) str
    run_names: np.ndarray  # (S,) str
    vocabulary: np.ndarray  # (V,) str, sorted
    docs: np.ndarray  # (S, T, D) int32, -1 padded
    scores: np.ndarray  # (S, T, D) float64, NaN padded
    qrels: JudgedSet
    runs_info: pd.DataFrame = field(repr=False)
    metadata: dict = field(default_factory=dict, repr=False, compare=False)  # JSON-serializable; cached

    def __post_init__(self):
        # Collections are shared by every computation of a notebook: their arrays are read-only, so a function
        # that writes into a view by mistake fails loudly instead of corrupting everyone else's data.
        for array in (self.docs, self.scores, self.qrels.topic, self.qrels.doc, self.qrels.grade, self.qrels.stratum):
            if isinstance(array, np.ndarray):
                array.flags.writeable = False

    # ------------------------------------------------------------------ shape
    @property
    def n_runs(self) -> int:
        return self.docs.shape[0]

    @property
    def n_topics(self) -> int:
        return self.docs.shape[1]

    @property
    def depth(self) -> int:
        return self.docs.shape[2]

    def __repr__(self) -> str:
        judged = int(self.runs_info["judged"].sum()) if "judged" in self.runs_info else "?"
        return (
            f"Collection({self.name!r}: {self.n_runs} runs ({judged} judged), {self.n_topics} topics, "
            f"depth {self.depth}, {len(self.vocabulary)} documents, {len(self.qrels)} judgments)"
        )

    @property
    def retrieved(self) -> np.ndarray:
        """(S, T) bool: the run returned at least one document for the topic (trec_eval evaluates only these)."""
        return self.docs[:, :, 0] >= 0

    @property
    def lengths(self) -> np.ndarray:
        """(S, T) number of documents each run returned for each topic."""
        return (self.docs >= 0).sum(axis=2)

    @property
    def judged_runs(self) -> np.ndarray:
        """(S,) bool: runs that contributed to the pools."""
        return self.runs_info["judged"].to_numpy(bool)

    # ---------------------------------------------------------- lookups
    def grades(self, qrels: JudgedSet | None = None, depth: int | None = None) -> np.ndarray:
        """(S, T, D) ``GRADE_DTYPE`` grade of each retrieved document under ``qrels`` (default: the collection's).

        Judged grades are >= 0; ``UNSAMPLED`` pooled but unjudged (any negative qrels grade), ``UNJUDGED`` not in
        the qrels, ``ABSENT`` past the end of the run. ``depth`` truncates the rankings first.
        """
        qrels = self.qrels if qrels is None else qrels
        docs = self.docs if depth is None else self.docs[:, :, :depth]
        topic_index = np.arange(self.n_topics, dtype=np.int32)[None, :, None]
        return qrels.lookup(np.broadcast_to(topic_index, docs.shape), docs)

    @cached_property
    def vocabulary_index(self) -> pd.Index:
        """A hash index over the vocabulary (docno -> id), built once: aligning each sampled qrels reuses it."""
        return pd.Index(self.vocabulary)

    @cached_property
    def default_grades(self) -> np.ndarray:
        """:meth:`grades` under the collection's own qrels, computed once."""
        return self.grades()

    def topic_index(self, topic: str) -> int:
        hits = np.flatnonzero(self.topics == str(topic))
        if not len(hits):
            raise KeyError(f"topic {topic!r} is not in collection {self.name!r}")
        return int(hits[0])

    def run_index(self, run: str) -> int:
        hits = np.flatnonzero(self.run_names == str(run))
        if not len(hits):
            raise KeyError(f"run {run!r} is not in collection {self.name!r}")
        return int(hits[0])

    # ---------------------------------------------------------- views
    def _indices(self, selection, names: np.ndarray, what: str) -> np.ndarray:
        if selection is None:
            return np.arange(len(names))
        selection = np.asarray(selection)
        if selection.dtype == bool:
            if selection.shape != names.shape:
                raise ValueError(f"{what} mask has shape {selection.shape}, expected {names.shape}")
            return np.flatnonzero(selection)
        if selection.dtype.kind in "iu":
            return selection.astype(np.int64)
        lookup = {name: i for i, name in enumerate(names)}
        missing = [s for s in map(str, selection) if s not in lookup]
        if missing:
            raise KeyError(f"{what} not in collection {self.name!r}: {missing[:5]}")
        return np.asarray([lookup[s] for s in map(str, selection)], np.int64)

    def subset(self, runs=None, topics=None) -> "Collection":
        """A collection of some runs and/or topics (names, indices or boolean masks).

        The vocabulary is shared; the run arrays are sliced (a view when the selection is a contiguous range),
        and the qrels are restricted to the chosen topics.
        """
        run_idx = self._indices(runs, self.run_names, "runs")
        topic_idx = self._indices(topics, self.topics, "topics")
        docs, scores = self.docs, self.scores
        if runs is not None:
            docs, scores = _take(docs, run_idx, 0), _take(scores, run_idx, 0)
        qrels = self.qrels
        if topics is not None:
            docs, scores = _take(docs, topic_idx, 1), _take(scores, topic_idx, 1)
            qrels = qrels.subset_topics(topic_idx)
        return replace(
            self,
            topics=self.topics[topic_idx],
            run_names=self.run_names[run_idx],
            docs=docs,
            scores=scores,
            qrels=qrels,
            runs_info=self.runs_info.iloc[run_idx],
        )

    def truncate(self, depth: int) -> "Collection":
        """Every ranking cut at ``depth`` (a view)."""
        return replace(self, docs=self.docs[:, :, :depth], scores=self.scores[:, :, :depth])

    def with_qrels(self, qrels: JudgedSet | Qrels, name: str | None = None) -> "Collection":
        """The same runs judged by other qrels (e.g. a sample); plain :class:`Qrels` are aligned first."""
        if isinstance(qrels, Qrels):
            qrels = self.align_qrels(qrels)
        if qrels.n_topics != self.n_topics or qrels.n_docs != len(self.vocabulary):
            raise ValueError("qrels are not aligned with this collection (topics or vocabulary differ)")
        return replace(self, qrels=qrels, name=name or self.name)

    # ---------------------------------------------------------- conversions
    def align_qrels(self, qrels: Qrels) -> JudgedSet:
        """Align file qrels to this collection's topics and vocabulary.

        Judgments of topics outside the collection are left out (trec_eval evaluates only topics present in both);
        judged documents no run retrieved must already be in the vocabulary (they are when the collection was
        built with these qrels), else a ValueError names them.
        """
        t = pd.Index(self.topics).get_indexer(qrels.topic)
        keep = t >= 0
        d = self.vocabulary_index.get_indexer(qrels.docno[keep])
        if (d < 0).any():
            missing = qrels.docno[keep][d < 0][:5]
            raise ValueError(
                f"{qrels.name}: {int((d < 0).sum())} judged documents are not in the vocabulary of "
                f"{self.name!r} (e.g. {list(missing)}); build the collection with these qrels"
            )
        return JudgedSet.from_arrays(
            t[keep], d, qrels.grade[keep], self.n_topics, len(self.vocabulary),
            None if qrels.stratum is None else qrels.stratum[keep],
        )

    def to_qrels(self, judged: JudgedSet | None = None) -> Qrels:
        """Aligned judgments back to file qrels (strings)."""
        judged = self.qrels if judged is None else judged
        return Qrels(
            topic=self.topics[judged.topic],
            docno=self.vocabulary[judged.doc],
            grade=judged.grade.astype(np.int64),
            stratum=None if judged.stratum is None else judged.stratum.astype(np.int64),
        )

    def to_run(self, run: str | int) -> Run:
        """One run back as a :class:`Run` (strings, trec_eval order)."""
        s = run if isinstance(run, (int, np.integer)) else self.run_index(run)
        mask = self.docs[s] >= 0
        t_idx = np.broadcast_to(np.arange(self.n_topics)[:, None], mask.shape)[mask]
        return Run(
            name=str(self.run_names[s]),
            topic=self.topics[t_idx],
            docno=self.vocabulary[self.docs[s][mask]],
            score=self.scores[s][mask],
        )

    @classmethod
    def from_runs(
        cls,
        runs: list,
        qrels,
        name: str = "collection",
        runs_info: pd.DataFrame | None = None,
        depth: int | None = None,
        ties: str = "float64",
        *,
        names_seen: dict[str, str] | None = None,
        first_run: int = 0,
        one_tag: bool = False,
    ) -> "Collection":
        """Build the dense arrays from runs and qrels.

        ``runs``: :class:`Run` objects or run file paths (parsed here), in the collection's run order; ``qrels``: a
        :class:`Qrels` or a qrels file path. Topics are the qrels' topics (trec_eval evaluates a run only on topics
        with judgments); run lines for other topics are counted and reported in ``runs_info['lines_without_qrels']``,
        not silently lost. ``depth`` (default: the longest ranking) truncates every ranking. ``ties``: how equal
        scores are told apart, as trec_eval 10.0 does (``"float64"``, the default) or as trec_eval 9.x and
        pytrec_eval-terrier do (``"float32"``); see :func:`evalkit.data.trec_files.trec_eval_order`.

        Built in threads, one per core (:mod:`evalkit.data.build`): files parsed, the docnos of each group of consecutive
        runs dictionary-encoded as soon as the group is parsed (band by band of topics, the bands shared out among
        the threads), the groups' dictionaries (and the qrels' docnos) merged into one sorted vocabulary, then each
        run put in trec_eval order and written into its rows of the dense arrays. Every step is per run, per group or
        an exact merge, so the arrays do not depend on the thread count. A file that cannot be read raises its
        :class:`evalkit.errors.TrecFormatError` (the first such run file in order, else the qrels file); two runs with
        one name, or a document twice in a ranking, raise a ValueError naming the files (and the line).

        ``names_seen`` and ``first_run`` serve a caller that builds runs block by block (:func:`evalkit.evaluate`
        from files): the names of the runs of earlier blocks (name -> the run's description; it gains this block's
        runs) and the position of ``runs[0]`` among all the runs. A name among them is refused as a name repeated
        within ``runs`` is. ``one_tag=True`` (a dataset folder: :func:`evalkit.data.datasets.load_directory`) refuses a
        run file whose tag column holds two values, naming the line, where by default such a run is named after its
        file.
        """
        if not runs:
            raise ValueError("a collection needs at least one run")
        built = build_arrays(list(runs), qrels, sort_topics, depth, ties, one_tag)
        runs, topics = built.runs, built.topics
        names = [r.name for r in runs]
        _check_unique_names(runs, names_seen, first_run)
        _check_duplicates(runs, built.repeated, topics)

        judged = JudgedSet.from_arrays(
            built.qrels_topic_ids, built.qrels_doc_ids, built.qrels_grade, len(topics),
            len(built.vocabulary), built.qrels_stratum,
        )
        info = pd.DataFrame(index=pd.Index(names, name="run"))
        if runs_info is not None:
            info = info.join(runs_info, how="left")
        for column, default in (("group", None), ("type", "unknown")):
            if column not in info or info[column].isna().any():
                fill = info.index.to_series() if default is None else default
                info[column] = info[column].fillna(fill) if column in info else fill
        info["lines_without_qrels"] = built.lines_without_qrels
        return cls(
            name=name,
            topics=topics,
            run_names=np.asarray(names, dtype=object),
            vocabulary=built.vocabulary,
            docs=built.docs,
            scores=built.scores,
            qrels=judged,
            runs_info=info,
            metadata={"ties": ties},
        )


def _describe(run: Run, index: int) -> str:
    return run.source if run.source is not None else f"run #{index + 1} (not read from a file)"


def _check_unique_names(runs: list[Run], seen: dict[str, str] | None = None, offset: int = 0) -> None:
    """Two runs with one name cannot be told apart: name both files and the name, and say how to fix it.

    ``seen`` (name -> description of the run that has it) carries the names of runs checked before, for a caller
    that builds runs block by block (:func:`evalkit.evaluate` from files); ``offset`` is the position of ``runs[0]``
    among all runs (for runs not read from a file, which are described by position). ``seen`` gains these runs."""
    first_of: dict[str, str] = {} if seen is None else seen
    for i, run in enumerate(runs):
        described = _describe(run, offset + i)
        if run.name in first_of:
            raise ValueError(
                f"{first_of[run.name]} and {described} both name their run {run.name!r} (the tag column): "
                "run names must be unique; change one tag, or give names explicitly (read_run(path, name=...))"
            )
        first_of[run.name] = described


def _topic_axis(topic_index: np.ndarray) -> int | None:
    """The one axis along which a broadcast topic array varies (stride 0 on every other axis), else None."""
    varying = [axis for axis, (n, stride) in enumerate(zip(topic_index.shape, topic_index.strides))
               if n > 1 and stride != 0]
    if len(varying) == 1:
        return varying[0]
    return None if varying else -1


def _lookup_by_topic(judged: JudgedSet, values: np.ndarray, missing, absent, topic_index, doc,
                     scratch: np.ndarray | None = None) -> np.ndarray:
    """``values`` (a per-judgment column of ``judged``) at each (topic, doc) pair: ``missing`` where the pair is
    not in the qrels, ``absent`` where doc < 0. One topic at a time: a dense scratch row over the vocabulary holds
    the topic's values (``row[docs of t] = values``), the pairs of that topic gather from it (``row[doc]``), and
    only the written entries are reset (also on an error, so a caller's ``scratch`` row stays clean). The row's
    last slot holds ``absent``, so doc -1 gathers it directly."""
    topic_index, doc = np.broadcast_arrays(np.asarray(topic_index), np.asarray(doc))
    out = np.empty(doc.shape, values.dtype)
    if doc.size == 0:
        return out
    low, high = int(doc.min()), int(doc.max())
    if low < -1:  # only -1 pads rankings; any other negative id is absent too
        doc = np.maximum(doc, -1)
    width = max(judged.n_docs, high + 1)  # ids beyond the vocabulary are simply not judged
    if (scratch is not None and len(scratch) == width + 1 and scratch.dtype == values.dtype
            and scratch[-1] == absent):
        row = scratch
    else:
        row = np.full(width + 1, missing, values.dtype)
        row[width] = absent
    bounds = judged.topic_bounds
    n_topics = judged.n_topics

    def gather(t: int, doc_part: np.ndarray, out_part: np.ndarray) -> None:
        if 0 <= t < n_topics:
            lines = slice(bounds[t], bounds[t + 1])
            row[judged.doc[lines]] = values[lines]
            try:
                np.take(row, doc_part, out=out_part, mode="wrap")  # -1 wraps to the absent slot
            finally:
                row[judged.doc[lines]] = missing
        else:  # a topic outside the qrels: nothing judged
            np.take(row, doc_part, out=out_part, mode="wrap")

    axis = _topic_axis(topic_index)
    if axis is not None and axis >= 0 and topic_index.size // topic_index.shape[axis] < 256:
        axis = None  # too few pairs per position along the axis for a loop over it: group by topic instead
    if axis == -1:  # one topic for every pair
        gather(int(topic_index.flat[0]), doc, out)
        return out
    if axis is not None:  # e.g. (runs, topics, ranks) with the topic constant along runs and ranks
        first = [0] * topic_index.ndim
        for i in range(topic_index.shape[axis]):
            first[axis] = i
            index = (slice(None),) * axis + (i,)
            gather(int(topic_index[tuple(first)]), doc[index], out[index])
        return out
    # any other layout: group the pairs by topic (a stable counting sort for small topic counts)
    flat_topic = topic_index.reshape(-1)
    flat_doc = doc.reshape(-1)
    flat_out = out.reshape(-1)
    sorted_already = bool((flat_topic[1:] >= flat_topic[:-1]).all())
    if sorted_already:
        order = None
        topic_sorted = flat_topic
    else:
        key = flat_topic.astype(np.int16) if -(1 << 15) <= flat_topic.min() and flat_topic.max() < (1 << 15) else flat_topic
        order = np.argsort(key, kind="stable")
        topic_sorted = flat_topic[order]
    cuts = np.flatnonzero(topic_sorted[1:] != topic_sorted[:-1]) + 1
    starts = np.concatenate([[0], cuts])
    stops = np.concatenate([cuts, [len(topic_sorted)]])
    for start, stop in zip(starts.tolist(), stops.tolist()):
        t = int(topic_sorted[start])
        if order is None:
            gather(t, flat_doc[start:stop], flat_out[start:stop])
        else:
            part = order[start:stop]
            gathered = np.empty(stop - start, values.dtype)
            gather(t, flat_doc[part], gathered)
            flat_out[part] = gathered
    return out



def _check_duplicates(runs: list[Run], repeated: np.ndarray, topics: np.ndarray) -> None:
    """A document twice in one ranking is an error: found on the dense arrays (``repeated``: (S, T), see
    :func:`_place_run`), then the file is re-read line by line so the error names the line."""
    if not repeated.any():
        return
    s, t = np.argwhere(repeated)[0]
    run = runs[s]
    if run.source is not None and run.source != STDIN_NAME:
        from evalkit.data.trec_files import explain_run_error

        explain_run_error(run.source)  # raises with the line
    where = run.source if run.source is not None else f"run {run.name!r}"
    raise ValueError(f"{where}: a document appears twice in topic {topics[t]} (run {run.name!r})")


def _take(array: np.ndarray, indices: np.ndarray, axis: int) -> np.ndarray:
    """``np.take`` that returns a view when the indices form a contiguous ascending range."""
    if len(indices) and np.array_equal(indices, np.arange(indices[0], indices[0] + len(indices))):
        index = [slice(None)] * array.ndim
        index[axis] = slice(int(indices[0]), int(indices[0]) + len(indices))
        return array[tuple(index)]
    return np.take(array, indices, axis=axis)
