"""Datasets: the synthetic default, TREC-8, and any directory of TREC runs plus a qrels file.

>>> collection = evalkit.load_dataset("auto")               # TREC-8 when its files are found, else synthetic
>>> collection = evalkit.load_dataset("synthetic")          # embedded, no data needed
>>> collection = evalkit.load_dataset("trec8")              # $EVALKIT_DATA/trec8 or ../shared/data/trec8
>>> collection = evalkit.load_dataset("/path/to/my/collection")

A directory dataset holds ``runs/`` (run files, plain or .gz), one qrels file (``qrels*``), and optionally
``runs_table.tsv`` (tab-separated, a header line with a ``run`` column; ``group track type pool_priority`` are
read when present; see :func:`evalkit.data.trec_files.read_runs_table`). Loaded collections are cached under
``$EVALKIT_CACHE`` (default ``~/.cache/evalkit``) by :mod:`evalkit.data.cache`: keyed by the files' *content*, and
checked against a checksum on every load, so a second load is near instant, an edited file is re-read and a
damaged cache is rebuilt.

Which runs contributed to the pools, and how deep the pools were judged, is not in TREC's files. A reviewer can
say so in the dataset folder (a ``judged`` column in ``runs_table.tsv``; ``collection.json`` or
``collection.toml`` with ``judged_runs``, ``judged_depth``, ``name``): see :mod:`evalkit.data.pool_metadata`. What they
do not say is derived from the data: **a run is judged if, for every topic, every document in its top
``judged_depth`` (default :data:`evalkit.data.pools.JUDGED_DEPTH` = 100) is in the qrels** (TREC-8's pools were built to depth 100 from
the contributing runs). On TREC-8 this marks 72 of the 129 runs; the next-closest run has only 95% of its top-100
documents judged on its worst topic, so the rule is not sensitive to the exact threshold. The decision goes into
``Collection.metadata`` and is printed once at load (:func:`evalkit.data.pool_metadata.describe`).
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Iterable

from evalkit.data.cache import cache_path, load_cached, save_cached
from evalkit.data.collection import Collection
from evalkit.data.folder import DatasetNotFound, read_folder
from evalkit.data.pool_metadata import describe, resolve_pool_metadata
from evalkit.data.trec_files import Run, check_ties, parse_run

__all__ = [
    "load_dataset",
    "load_directory",
    "load_trec8",
    "resolve_auto",
    "trec8_available",
    "read_runs",
    "data_root",
    "DatasetNotFound",
    "last_loaded",
]

_POOL_METADATA_VERSION = 4  # in the cache key: collections cached by an older rule (3: the derived judged depth stops
# where the judged runs end; 4: the qrels topics no run retrieved are named) are rebuilt
_HERE = Path(__file__).resolve().parent
_LAST_LOADED: dict = {}


def data_root() -> Path | None:
    """Where real TREC data lives: ``$EVALKIT_DATA`` if set, else ``../shared/data`` beside the checkout."""
    env = os.environ.get("EVALKIT_DATA")
    if env:
        return Path(env).expanduser()
    for candidate in (_HERE.parents[2] / "shared" / "data", Path.cwd().parent / "shared" / "data"):
        if candidate.is_dir():
            return candidate
    return None


def read_runs(paths: Iterable[os.PathLike | str], n_threads: int | None = None) -> list[Run]:
    """Parse many run files in parallel threads (decompression and parsing release the GIL).

    Runs come back unordered (``Run.ordered`` False) and not yet checked for duplicate docnos within a topic:
    :meth:`Collection.from_runs` orders them (in threads, a run at a time) and checks duplicates on the dense
    arrays.
    """
    paths = [Path(p) for p in paths]
    n_threads = n_threads or min(len(paths), os.cpu_count() or 1) or 1
    parse = partial(parse_run, check_duplicates=False)
    if n_threads == 1:
        return [parse(p) for p in paths]
    with ThreadPoolExecutor(n_threads) as pool:
        return list(pool.map(parse, paths))


def load_directory(directory: os.PathLike | str, name: str | None = None, cache: bool = True,
                   progress: bool = False, ties: str = "float64") -> Collection:
    """Load ``directory`` (``runs/``, one ``qrels*`` file, optional ``runs_table.tsv`` and ``collection.json`` or
    ``collection.toml``) as a Collection, in one pass down: the folder's files found and its small files read
    (:func:`evalkit.data.folder.read_folder`: a bad file fails before anything heavy), the cache asked, the dense
    arrays built (:meth:`Collection.from_runs`), the judged runs and depth decided
    (:func:`evalkit.data.pool_metadata.resolve_pool_metadata`), the cache written.
    ``ties``: score ties as trec_eval 10.0 (``"float64"``, default) or 9.x / pytrec_eval (``"float32"``) see
    them (:func:`evalkit.data.trec_files.trec_eval_order`); part of the cache key."""
    check_ties(ties)
    folder = read_folder(directory)
    shown = name or folder.declared.name or folder.directory.name  # explicit, else collection.json's, else folder's
    name = name or folder.directory.name
    if cache:
        where = cache_path(name, folder.files, folder.directory,
                           {"shown": shown, "pool_metadata": _POOL_METADATA_VERSION, "ties": ties})
        cached = load_cached(where)
        if cached is not None:
            return _note_hidden(cached, folder.hidden_in_runs)
    # the run files and the qrels file parsed in the build's threads (evalkit.data.build), overlapped with encoding
    collection = Collection.from_runs(folder.run_files, folder.qrels_file, name=shown, runs_info=folder.runs_info,
                                      ties=ties, one_tag=True)
    judged, metadata = resolve_pool_metadata(collection, folder.declared, folder.table_judged,
                                             folder.table_file or "runs_table.tsv")
    collection.runs_info["judged"] = judged
    collection.metadata.update(metadata)
    if cache:
        save_cached(collection, where)  # warns (one line) if it cannot
    return _note_hidden(collection, folder.hidden_in_runs)


def _note_hidden(collection: Collection, hidden: list[str]) -> Collection:
    """``metadata['hidden_in_runs']``: the hidden entries of ``runs/`` this load left out (the load line names them).
    Set on every load, cached or not: the cache key hashes the files read, and hidden files are not read."""
    if hidden:  # (never in a cached collection's metadata: it is set after the save)
        collection.metadata["hidden_in_runs"] = hidden
    return collection


def load_trec8(cache: bool = True, ties: str = "float64") -> Collection:
    """TREC-8 ad hoc: 129 runs and the official qrels, from ``$EVALKIT_DATA/trec8`` or ``../shared/data/trec8``."""
    root = data_root()
    directory = root / "trec8" if root is not None else None
    if directory is None or not directory.is_dir():
        raise DatasetNotFound(
            "TREC-8 data not found. Put the 129 runs (runs/input.*.gz), the qrels (qrels.trec8.adhoc.txt) and "
            "runs_table.tsv in a folder named trec8 and set EVALKIT_DATA to the folder that holds it "
            "(export EVALKIT_DATA=/path/to/data), or place it at ../shared/data/trec8 beside this checkout. "
            f"Looked in: {directory or '$EVALKIT_DATA (unset) and ../shared/data'}"
        )
    return load_directory(directory, name="trec8", cache=cache, ties=ties)


def trec8_available() -> bool:
    """Whether TREC-8's files are where :func:`load_trec8` looks (a ``runs/`` folder and a qrels file)."""
    root = data_root()
    directory = root / "trec8" if root is not None else None
    return bool(directory and (directory / "runs").is_dir()
                and any(p.name.lower().startswith("qrels") for p in directory.iterdir()))


def resolve_auto(name: str = "auto", fast: bool = False) -> str:
    """``"auto"`` → ``"trec8"`` when its files are found (``$EVALKIT_DATA`` or ``../shared/data``), else
    ``"synthetic"``; with ``fast`` (the tests' small sizes) always ``"synthetic"``. Other names pass through."""
    if str(name) != "auto":
        return str(name)
    return "synthetic" if fast or not trec8_available() else "trec8"


def load_dataset(name: str = "auto", **options) -> Collection:
    """Load a dataset by name: ``auto`` (TREC-8 if found, else synthetic: :func:`resolve_auto`), ``synthetic``
    (options: n_topics, n_runs, depth, seed, graded), ``trec8``, or a directory path. ``fast=True`` (synthetic
    only) gives a small collection for tests and quick runs. ``ties="float64"`` (default: trec_eval 10.0, which
    compares scores as doubles) or ``"float32"`` (trec_eval 9.x and pytrec_eval-terrier, which compare them as
    floats) for collections read from run files."""
    collection = _load(resolve_auto(name, options.get("fast", False)), options)
    print(f"evalkit: {describe(collection.metadata, collection.name)}", file=sys.stderr)
    _LAST_LOADED.clear()  # the claims a notebook records are graded against this collection's size
    _LAST_LOADED.update(name=str(collection.name), n_runs=int(collection.n_runs), n_topics=int(collection.n_topics))
    return collection


def last_loaded() -> dict:
    """Name, runs and topics of the collection :func:`load_dataset` loaded last in this process ({} if none): what
    :mod:`evalkit.claims.grading` grades a notebook's claims against."""
    return dict(_LAST_LOADED)


def _load(key: str, options: dict) -> Collection:
    if key == "synthetic":
        from evalkit.data.simulator import simulate_collection

        if options.pop("ties", "float64") != "float64":
            raise ValueError("ties applies to collections read from run files (trec8 or a directory); the "
                             "synthetic collection is generated already ranked")
        if options.pop("fast", False):
            options = {"n_topics": 20, "n_runs": 40, "depth": 200, **options}
        return simulate_collection(**options)
    if options.pop("fast", False):
        pass  # real data has one size
    if key == "trec8":
        return load_trec8(**options)
    path = Path(key).expanduser()
    if path.is_dir():
        return load_directory(path, **options)
    if path.exists():
        raise DatasetNotFound(f"{path}: is a file, not a dataset folder (a folder holding runs/ and a qrels file)")
    if "/" in key or "\\" in key or key.startswith((".", "~")):
        raise DatasetNotFound(f"{path.resolve() if not key.startswith('~') else path}: no such directory (a dataset "
                              "is 'synthetic', 'trec8', or a folder holding runs/ and a qrels file)")
    root = data_root()
    beside = (f"; {root} holds a folder of that name, but only trec8 is looked up there by name: pass its path, "
              f"{root / key}" if root is not None and (root / key).is_dir() else "")
    raise DatasetNotFound(
        f"unknown dataset {key!r}: use 'auto', 'synthetic', 'trec8', or a directory holding runs/ and a qrels "
        f"file{beside}"
    )
