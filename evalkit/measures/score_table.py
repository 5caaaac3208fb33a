"""What :func:`evalkit.evaluate` computes, as numpy arrays: :class:`ScoreTable`, and its long DataFrame
``run, topic, measure, value`` (:meth:`ScoreTable.to_frame`, the only place pandas is imported: ``evaluate(...,
as_frame=False)`` gives the table without it, so a script's first result does not wait for pandas and pyarrow).

Topics follow trec_eval's default: a run is scored on the topics that have judgments and for which it retrieved
something (:attr:`ScoreTable.scored`); a run's mean is over those topics (trec_eval's ``all`` line).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True)
class ScoreTable:
    """Scores of runs x topics x measures.

    ``runs`` (S,) and ``topics`` (T,) are the names (topics in the collection's natural order), ``measures`` the
    measure names as parsed (``"nDCG@100"``); ``values`` (M, S, T) float64 holds each measure's per-topic scores,
    meaningful where ``scored`` (S, T) is True (elsewhere set to 0 here: trec_eval prints nothing for such a cell);
    ``per_topic`` whether :meth:`to_frame` lists the per-topic rows or only the means."""

    runs: np.ndarray
    topics: np.ndarray
    measures: list
    values: np.ndarray
    scored: np.ndarray
    per_topic: bool = True

    def __post_init__(self):
        object.__setattr__(self, "values", np.where(self.scored[None], self.values, 0.0))

    @cached_property
    def means(self) -> np.ndarray:
        """(M, S): each run's mean over its scored topics (0 for a run scored on none), as trec_eval's ``all``."""
        counts = self.scored.sum(axis=1)
        return np.divide((self.values * self.scored[None]).sum(axis=2), counts[None, :],
                         out=np.zeros(self.values.shape[:2]), where=counts[None, :] > 0)

    def mean(self, measure: str) -> dict:
        """``{run: mean}`` of one measure (named as in :attr:`measures`)."""
        row = self.means[self._measure(measure)]
        return dict(zip(self.runs.tolist(), row.tolist()))

    def per_topic_values(self, measure: str) -> dict:
        """``{run: {topic: value}}`` of one measure over each run's scored topics."""
        m = self._measure(measure)
        topics = self.topics.tolist()
        return {run: {topics[t]: float(self.values[m, s, t]) for t in np.flatnonzero(self.scored[s]).tolist()}
                for s, run in enumerate(self.runs.tolist())}

    def _measure(self, measure: str) -> int:
        try:
            return list(self.measures).index(measure)
        except ValueError:
            raise KeyError(f"no measure {measure!r} in this table; it has {', '.join(self.measures)}") from None

    def __repr__(self) -> str:
        return (f"ScoreTable({len(self.runs)} runs x {len(self.topics)} topics x {len(self.measures)} measures: "
                f"{', '.join(self.measures)}; to_frame() for the long DataFrame)")

    def to_frame(self):
        """The long table ``run, topic, measure, value``: for each run its per-topic rows (topics in the collection's
        order, measures in the order asked; only with ``per_topic``), then one ``all`` row per measure, the mean over
        the run's scored topics. Built from index arrays in that order directly (no sort of the table)."""
        import pandas as pd

        values, scored = self.values, self.scored
        n_measures, n_runs, _ = values.shape
        per_run_topics = scored.sum(axis=1) if self.per_topic else np.zeros(n_runs, np.int64)
        rows_of_run = per_run_topics * n_measures + n_measures
        run_index = np.repeat(np.arange(n_runs), rows_of_run)
        is_mean = np.zeros(len(run_index), bool)
        ends = np.cumsum(rows_of_run)
        for m in range(n_measures):  # the last n_measures rows of each run: its means
            is_mean[ends - n_measures + m] = True
        topic_index = np.zeros(len(run_index), np.int64)
        measure_index = np.zeros(len(run_index), np.int64)
        value = np.empty(len(run_index), np.float64)
        if self.per_topic:
            s_idx, t_idx = np.nonzero(scored)  # run-major, topics ascending: the table's order
            detail = ~is_mean
            topic_index[detail] = np.repeat(t_idx, n_measures)
            measure_index[detail] = np.tile(np.arange(n_measures), len(s_idx))
            value[detail] = values[:, s_idx, t_idx].T.reshape(-1)
        measure_index[is_mean] = np.tile(np.arange(n_measures), n_runs)
        value[is_mean] = self.means.T.reshape(-1)
        topic_labels = np.concatenate([np.asarray(self.topics, object), np.asarray(["all"], object)])
        topic_index[is_mean] = len(self.topics)
        return pd.DataFrame({
            "run": np.asarray(self.runs, object)[run_index],
            "topic": topic_labels[topic_index],
            "measure": np.asarray(self.measures, object)[measure_index],
            "value": value,
        })
