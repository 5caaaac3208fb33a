"""A dataset folder's files, found and read: the first step of a load (files -> arrays -> Collection -> pool
metadata -> cache; :func:`evalkit.data.datasets.load_directory` runs them in that order, each once).

A dataset folder holds ``runs/`` (TREC run files, plain or .gz), exactly one qrels file (``qrels*``), and
optionally ``runs_table.tsv`` (a row a run: ``run group track type pool_priority judged``) and ``collection.json``
or ``collection.toml`` (what the folder *declares* about its pools: ``name``, ``judged_depth``, ``judged_runs``,
``judged_pool_priority``, ``description``). :func:`read_folder` finds the files and reads the small ones, so a bad
file fails at once, naming the file, the line or key and the value, before anything heavy runs. What the
declarations mean, and what is derived where the folder says nothing, is :mod:`evalkit.data.pool_metadata`'s job.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from evalkit.data.trec_files import read_runs_table

__all__ = [
    "COLLECTION_FILES",
    "CollectionFile",
    "DatasetFolder",
    "DatasetNotFound",
    "PoolMetadataError",
    "parse_judged_column",
    "read_collection_file",
    "read_folder",
]


class DatasetNotFound(FileNotFoundError):
    """A dataset's files are not where the kit looked; the message says how to point the kit at them."""


#: the file names a dataset folder may carry (one of them)
COLLECTION_FILES = ("collection.json", "collection.toml")

_KEYS = {"name", "judged_depth", "judged_runs", "judged_pool_priority", "description"}
_REFUSED = {
    "gains": "the kit does not use a gain map: the trec_eval measures (nDCG, infNDCG) take the grades themselves as "
             "gains, as trec_eval does, and notebook 04's RBP counts a grade >= 1 as gain 1; write the gains you "
             "want as the grades of the qrels file and remove 'gains'",
}
_TRUE = {"true", "1", "yes"}
_FALSE = {"false", "0", "no"}


class PoolMetadataError(ValueError):
    """The pool metadata a dataset folder gives is wrong; the message names the file, the line or key, the value."""


@dataclass(frozen=True)
class CollectionFile:
    """What ``collection.json`` / ``collection.toml`` says (None where it says nothing)."""

    path: Path | None = None
    name: str | None = None
    judged_depth: int | None = None
    judged_runs: tuple[str, ...] | None = None
    judged_pool_priority: int | None = None
    description: str | None = None
    raw: dict = field(default_factory=dict, repr=False)

    @property
    def file_name(self) -> str:
        return self.path.name if self.path is not None else "collection.json"


def _positive_int(value, path: Path, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise PoolMetadataError(f"{path}: {key!r} must be a positive integer, got {value!r}")
    return int(value)


def read_collection_file(directory: os.PathLike | str) -> CollectionFile:
    """Read the dataset folder's ``collection.json`` or ``collection.toml`` (an empty :class:`CollectionFile` if
    there is neither). Unknown keys, a refused key (``gains``), wrong types and both files at once are errors."""
    directory = Path(directory)
    present = [directory / f for f in COLLECTION_FILES if (directory / f).is_file()]
    if not present:
        return CollectionFile()
    if len(present) > 1:
        raise PoolMetadataError(f"{directory}: both collection.json and collection.toml are present; keep one")
    path = present[0]
    text = path.read_text(encoding="utf-8")
    try:
        if path.suffix == ".json":
            data = json.loads(text)
        else:
            import tomllib

            data = tomllib.loads(text)
    except json.JSONDecodeError as error:
        raise PoolMetadataError(f"{path}, line {error.lineno}: not valid JSON ({error.msg})") from None
    except Exception as error:  # tomllib.TOMLDecodeError carries the line in its message
        raise PoolMetadataError(f"{path}: not valid TOML ({error})") from None
    if not isinstance(data, dict):
        raise PoolMetadataError(f"{path}: expected an object of keys ({', '.join(sorted(_KEYS))}), got "
                                f"{type(data).__name__}")
    for key, why in _REFUSED.items():
        if key in data:
            raise PoolMetadataError(f"{path}: {key!r} is not supported: {why}")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise PoolMetadataError(f"{path}: unknown key(s) {', '.join(map(repr, unknown))}; known: "
                                f"{', '.join(sorted(_KEYS))}")
    name = data.get("name")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise PoolMetadataError(f"{path}: 'name' must be a non-empty string, got {name!r}")
    depth = _positive_int(data["judged_depth"], path, "judged_depth") if "judged_depth" in data else None
    priority = (_positive_int(data["judged_pool_priority"], path, "judged_pool_priority")
                if "judged_pool_priority" in data else None)
    runs = data.get("judged_runs")
    if runs is not None:
        if not isinstance(runs, list) or not all(isinstance(r, str) and r for r in runs):
            raise PoolMetadataError(f"{path}: 'judged_runs' must be a list of run names, got {runs!r}")
        repeated = sorted({r for r in runs if runs.count(r) > 1})
        if repeated:
            raise PoolMetadataError(f"{path}: 'judged_runs' lists {', '.join(repeated)} more than once")
        runs = tuple(runs)
    if runs is not None and priority is not None:
        raise PoolMetadataError(f"{path}: give 'judged_runs' or 'judged_pool_priority', not both")
    description = data.get("description")
    if description is not None and not isinstance(description, str):
        raise PoolMetadataError(f"{path}: 'description' must be text, got {description!r}")
    return CollectionFile(path, name.strip() if name else None, depth, runs, priority, description, dict(data))


def parse_judged_column(values, runs, path: os.PathLike | str, lines=None) -> pd.Series:
    """The ``judged`` column of ``runs_table.tsv`` as bools indexed by run: ``true/false``, ``1/0``, ``yes/no`` in
    any case; anything else (an empty cell too) is an error naming the file, the line and the value. ``values``
    and ``runs`` are the column and the run names in file order, ``lines`` their line numbers (default 2, 3, ...)."""
    lines = list(range(2, 2 + len(values))) if lines is None else list(lines)
    out, first_line = {}, {}
    for line, run, value in zip(lines, runs, values):
        if run in first_line:
            raise PoolMetadataError(f"{path}, line {line}: run {run!r} has a second row (first on line "
                                    f"{first_line[run]})")
        first_line[run] = line
        text = "" if value is None else str(value).strip()
        low = text.lower()
        if low in _TRUE:
            out[run] = True
        elif low in _FALSE:
            out[run] = False
        else:
            raise PoolMetadataError(
                f"{path}, line {line}: column 'judged' of run {run!r} is {text!r}; expected true/false, 1/0 or yes/no")
    return pd.Series(out, dtype=bool, name="judged")


def _run_files(runs_dir: Path) -> list[Path]:
    """Every file directly in ``runs/`` is a run (hidden files such as ``.DS_Store`` excepted). A folder inside
    ``runs/`` is refused by name rather than skipped: its runs would silently be missing from every result."""
    folders = sorted(p.name for p in runs_dir.iterdir() if p.is_dir() and not p.name.startswith("."))
    if folders:
        raise DatasetNotFound(f"{runs_dir}: holds folder(s) {', '.join(folders)}; run files must sit directly in "
                              "runs/ (move their runs up, or the folders out, so no run is silently left out)")
    files = sorted(p for p in runs_dir.iterdir() if p.is_file() and not p.name.startswith("."))
    if not files:
        raise DatasetNotFound(f"{runs_dir}: no run files in this directory")
    return files


def _find_qrels(directory: Path) -> Path:
    candidates = sorted(p for p in directory.iterdir() if p.is_file() and p.name.lower().startswith("qrels"))
    if len(candidates) != 1:
        found = ", ".join(p.name for p in candidates) or "none"
        raise DatasetNotFound(f"{directory}: expected exactly one qrels file (qrels*), found {found}")
    return candidates[0]


@dataclass(frozen=True)
class DatasetFolder:
    """A dataset folder's files and what its small files say (``runs_info`` without the ``judged`` column, which
    is parsed strictly into ``table_judged``)."""

    directory: Path
    run_files: list[Path]
    qrels_file: Path
    table_file: Path | None
    metadata_file: Path | None
    declared: CollectionFile
    runs_info: pd.DataFrame | None
    table_judged: pd.Series | None

    @property
    def files(self) -> list[Path]:
        """Every file the collection is made of (the cache key hashes their content)."""
        return ([*self.run_files, self.qrels_file] + ([self.table_file] if self.table_file else [])
                + ([self.metadata_file] if self.metadata_file else []))


def read_folder(directory: os.PathLike | str) -> DatasetFolder:
    """Find ``directory``'s run files and qrels file and read its ``runs_table.tsv`` and collection file (module
    docstring). Raises :class:`DatasetNotFound` for a folder that is not a dataset, :class:`PoolMetadataError` or
    :class:`evalkit.errors.TrecFormatError` for a bad small file."""
    directory = Path(directory).expanduser()
    if not directory.is_dir():
        raise DatasetNotFound(f"{directory}: no such directory")
    runs_dir = directory / "runs"
    if not runs_dir.is_dir():
        raise DatasetNotFound(f"{directory}: expected a runs/ directory of TREC run files beside the qrels")
    run_files = _run_files(runs_dir)
    qrels_file = _find_qrels(directory)
    declared = read_collection_file(directory)
    table_file = directory / "runs_table.tsv"
    runs_info = table_judged = None
    if table_file.is_file():
        runs_info, lines = read_runs_table(table_file, with_lines=True)
        if "judged" in runs_info:
            table_judged = parse_judged_column(runs_info["judged"].tolist(), runs_info.index.tolist(), table_file,
                                               [lines[run] for run in runs_info.index])
            runs_info = runs_info.drop(columns="judged")
    else:
        table_file = None
    return DatasetFolder(directory, run_files, qrels_file, table_file, declared.path, declared, runs_info,
                         table_judged)
