"""Evaluating more runs than fit in memory: blocks of run files, each read, built and scored on its own.

:func:`evalkit.evaluate` given run files already reads, builds and scores them a block at a time in one process
(``evalkit.measures.evaluation.RUNS_PER_BLOCK``), so its memory is bounded by a block; :func:`evaluate_files` adds a
directory of runs as input and spreads the blocks over workers: ``runs_per_block`` files at a time, each block
parsed, built against the same qrels and scored by :func:`evalkit.evaluate`, and only its (small) score table
kept. The blocks run
through :func:`evalkit.parallel.run_tasks`, serially, on local processes or as Dask tasks (on a cluster, every
worker must be able to read the run files: a shared file system), with a progress bar per block.

Same numbers as in memory: a run's scores depend only on that run and the qrels (its topics are the qrels' topics
in either case, its ranking is put in trec_eval order on its own, the per-topic qrels statistics are the
qrels'), so a block computes exactly what the whole collection would, and the table comes back in the order of
``runs``, row for row what ``evalkit.evaluate(qrels, runs, measures)`` returns.

Memory: each worker holds one block; the qrels are read once and sent to each worker once. A block of 32
TREC-8 runs (1.6 M cells) peaks near 0.4 GB; the parent keeps the score tables only (per-topic rows: about
100 bytes a row).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Sequence

import pandas as pd

from evalkit.data.trec_files import Qrels, read_qrels
from evalkit.measures.evaluation import DEFAULT_MEASURES, evaluate
from evalkit.parallel import run_tasks

__all__ = ["evaluate_files", "DEFAULT_RUNS_PER_BLOCK"]

#: run files read, built and scored together by :func:`evaluate_files` (one block per worker at a time)
DEFAULT_RUNS_PER_BLOCK = 32


def _run_paths(runs) -> list[Path]:
    if isinstance(runs, (str, os.PathLike)):
        runs = Path(runs)
        if runs.is_dir():
            files = sorted(p for p in runs.iterdir() if p.is_file() and not p.name.startswith("."))
            if not files:
                raise ValueError(f"{runs}: no run files in this directory")
            return files
        return [runs]
    return [Path(p) for p in runs]


def _evaluate_block(block_index: int, paths: Sequence[str], qrels: Qrels, measures: Sequence[str],
                    per_topic: bool) -> pd.DataFrame:
    """One task: the score table of the runs in ``paths`` (read, built against ``qrels`` and scored here)."""
    return evaluate(qrels, list(paths), list(measures), per_topic=per_topic)


def evaluate_files(
    qrels: str | os.PathLike | Qrels,
    runs: str | os.PathLike | Iterable[str | os.PathLike],
    measures: Sequence[str] = DEFAULT_MEASURES,
    per_topic: bool = True,
    *,
    runs_per_block: int = DEFAULT_RUNS_PER_BLOCK,
    scheduler: str | None = None,
    n_jobs: int | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Score run files in blocks; the long DataFrame ``run, topic, measure, value`` of :func:`evalkit.evaluate`.

    ``qrels``: a qrels path or :class:`~evalkit.data.trec_files.Qrels` (read once). ``runs``: run file paths (plain or .gz),
    or a directory whose files are all runs. ``measures`` and ``per_topic`` as in :func:`evalkit.evaluate`.
    ``runs_per_block``: files per block (memory per worker grows with it; see the module docstring).
    ``scheduler`` / ``n_jobs``: as :func:`evalkit.parallel.run_trials` ("serial", "local" processes or "dask";
    None = ``$EVALKIT_SCHEDULER`` or "local"). Run names must be unique across all files, as in one collection.
    """
    if isinstance(measures, str):
        measures = [measures]
    if isinstance(runs_per_block, bool) or not isinstance(runs_per_block, int) or runs_per_block < 1:
        raise ValueError(f"runs_per_block must be a positive int; got {runs_per_block!r}")
    paths = _run_paths(runs)
    if not paths:
        raise ValueError("a collection needs at least one run")
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"run files not found: {missing[:5]}" + (" ..." if len(missing) > 5 else ""))
    if isinstance(qrels, (str, os.PathLike)):
        qrels = read_qrels(qrels)
    blocks = [tuple(str(p) for p in paths[i: i + runs_per_block]) for i in range(0, len(paths), runs_per_block)]
    frames = run_tasks(_evaluate_block, list(enumerate(blocks)), args=(qrels, tuple(measures), per_topic),
                       scheduler=scheduler, n_jobs=n_jobs, progress=progress, desc="evaluating run files",
                       what="block of run files")
    frame = pd.concat(frames, ignore_index=True)
    names = pd.Index(pd.unique(frame["run"]))
    per_block = sum(f["run"].nunique() for f in frames)
    if per_block != len(names):
        seen = pd.Index([name for f in frames for name in pd.unique(f["run"])])
        raise ValueError(f"run names must be unique; repeated: {sorted(set(seen[seen.duplicated()]))}")
    return frame
