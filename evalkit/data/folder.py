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
import re
import stat
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from evalkit.data.trec_files import read_runs_table
from evalkit.errors import listed, one_line, shown

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


INT_MAX = 2**31 - 1
"""The largest ``judged_depth`` or ``judged_pool_priority`` read (ranks and priorities are int32 in the kit)."""
MAX_BYTES = 1 << 20
"""The largest collection file read (1 MB: tens of thousands of run names)."""
MAX_NESTING = 20
"""How deep a collection file may nest lists and objects (the kit's keys need 2 levels)."""
NAME_LIMIT = 200
"""The longest ``name`` (it is shown as the collection's name on every page)."""


def _positive_int(value, path: Path, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= INT_MAX:
        raise PoolMetadataError(f"{path}: {key!r} must be a whole number in 1..{INT_MAX}, got {shown(value)}")
    return int(value)


def _no_repeated_keys(path: Path):
    """json.loads' object hook: a key given twice in one object is an error (JSON would silently keep the last)."""

    def hook(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise PoolMetadataError(f"{path}: key {shown(key)} is given twice in one object; keep one")
            seen.add(key)
        return dict(pairs)

    return hook


def _nesting(text: str) -> int:
    """How deep brackets nest in ``text`` (an upper bound: brackets inside strings count too), without a parser's
    recursion."""
    if text.count("[") + text.count("{") <= MAX_NESTING:
        return 0
    depth = deepest = 0
    for char in re.findall(r"[\[\]{}]", text):
        depth += 1 if char in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _read_text(path: Path) -> str:
    """The collection file's text: a regular file (a symbolic link to one is fine) of at most :data:`MAX_BYTES`,
    in UTF-8. A folder, a device, a pipe or anything larger is refused by name, never read or skipped."""
    try:
        info = path.stat()
    except OSError as exc:
        raise PoolMetadataError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file (a device, a pipe or a socket)"
        target = f" (a symbolic link to {shown(os.readlink(path))})" if path.is_symlink() else ""
        raise PoolMetadataError(f"{path}: is {kind}{target}; the collection file must be a text file")
    if info.st_size > MAX_BYTES:
        raise PoolMetadataError(f"{path}: {info.st_size} bytes; a collection file holds at most {MAX_BYTES} bytes")
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise PoolMetadataError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_BYTES:
        raise PoolMetadataError(f"{path}: more than {MAX_BYTES} bytes; a collection file holds at most that")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise PoolMetadataError(f"{path}, line {line}: not UTF-8 (byte {data[exc.start:exc.start + 1]!r}); save "
                                "the file as UTF-8") from None
    return text.removeprefix("\ufeff")


def _parse(path: Path, text: str):
    """The file's JSON or TOML, refused by name when it cannot be read, nests too deep or repeats a key."""
    kind = "JSON" if path.suffix == ".json" else "TOML"
    if _nesting(text) > MAX_NESTING:
        raise PoolMetadataError(f"{path}: nested more than {MAX_NESTING} levels deep; the collection file is an "
                                "object of a few keys")
    try:
        if kind == "JSON":
            return json.loads(text, object_pairs_hook=_no_repeated_keys(path))
        import tomllib

        return tomllib.loads(text)  # TOML itself refuses a key given twice
    except json.JSONDecodeError as error:
        raise PoolMetadataError(f"{path}, line {error.lineno}: not valid JSON ({error.msg})") from None
    except PoolMetadataError:
        raise
    except (ValueError, RecursionError) as error:  # tomllib.TOMLDecodeError carries the line in its message
        raise PoolMetadataError(f"{path}: not valid {kind} ({one_line(error, 200)})") from None


def read_collection_file(directory: os.PathLike | str) -> CollectionFile:
    """Read the dataset folder's ``collection.json`` or ``collection.toml`` (an empty :class:`CollectionFile` if
    there is neither). Unknown keys, a refused key (``gains``), wrong types, a key given twice, both files at once,
    and a collection file that is not a regular text file are errors."""
    directory = Path(directory)
    present = [directory / f for f in COLLECTION_FILES if os.path.lexists(directory / f)]
    if not present:
        return CollectionFile()
    if len(present) > 1:
        raise PoolMetadataError(f"{directory}: both collection.json and collection.toml are present; keep one")
    path = present[0]
    data = _parse(path, _read_text(path))
    if not isinstance(data, dict):
        raise PoolMetadataError(f"{path}: expected an object of keys ({', '.join(sorted(_KEYS))}), got "
                                f"{type(data).__name__}")
    for key, why in _REFUSED.items():
        if key in data:
            raise PoolMetadataError(f"{path}: {key!r} is not supported: {why}")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise PoolMetadataError(f"{path}: unknown key(s) {listed(unknown, quote=True)}; known: "
                                f"{', '.join(sorted(_KEYS))}")
    name = data.get("name")
    if name is not None and (not isinstance(name, str) or not name.strip() or len(name) > NAME_LIMIT
                             or not name.isprintable()):
        raise PoolMetadataError(f"{path}: 'name' must be one line of text of at most {NAME_LIMIT} characters, got "
                                f"{shown(name)}")
    depth = _positive_int(data["judged_depth"], path, "judged_depth") if "judged_depth" in data else None
    priority = (_positive_int(data["judged_pool_priority"], path, "judged_pool_priority")
                if "judged_pool_priority" in data else None)
    runs = data.get("judged_runs")
    if runs is not None:
        if not isinstance(runs, list) or not all(isinstance(r, str) and r for r in runs):
            raise PoolMetadataError(f"{path}: 'judged_runs' must be a list of run names, got {shown(runs)}")
        repeated = sorted(r for r, n in Counter(runs).items() if n > 1)  # linear: a million names take a second
        if repeated:
            raise PoolMetadataError(f"{path}: 'judged_runs' repeats {listed(repeated, quote=True)}; list each run once")
        runs = tuple(runs)
    if runs is not None and priority is not None:
        raise PoolMetadataError(f"{path}: give 'judged_runs' or 'judged_pool_priority', not both")
    description = data.get("description")
    if description is not None and not isinstance(description, str):
        raise PoolMetadataError(f"{path}: 'description' must be text, got {shown(description)}")
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


def _run_files(runs_dir: Path) -> tuple[list[Path], list[str]]:
    """The run files of ``runs/`` and the names of its hidden entries. Every file directly in ``runs/`` is a run,
    except hidden ones (a name starting with ``.``: ``.DS_Store``, an editor's swap file ``.r1.txt.swp``, a copy
    hidden on purpose), which are never read and are returned by name for the load line to say so. A folder inside
    ``runs/`` is refused by name rather than skipped: its runs would silently be missing from every result."""
    everything = list(runs_dir.iterdir())
    hidden = sorted(p.name for p in everything if p.name.startswith("."))
    entries = [p for p in everything if not p.name.startswith(".")]
    folders = sorted(p.name for p in entries if p.is_dir())
    if folders:
        raise DatasetNotFound(f"{runs_dir}: holds folder(s) {listed(folders)}; run files must sit directly in "
                              "runs/ (move their runs up, or the folders out, so no run is silently left out)")
    for entry in sorted(entries):
        _refuse_special(entry, "a run file")
    files = sorted(p for p in entries if p.is_file())
    if not files:
        hint = f" (hidden, so not read: {listed(hidden)})" if hidden else ""
        raise DatasetNotFound(f"{runs_dir}: no run files in this directory{hint}")
    return files, hidden


def _refuse_special(path: Path, what: str) -> None:
    """A device, a pipe, a socket or a dangling link where a file is expected: refused by name, never read (a pipe
    or /dev/urandom would never end) nor skipped."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise DatasetNotFound(f"{path}: cannot be read as {what} ({exc.strerror or exc})") from None
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        target = f" (a symbolic link to {shown(os.readlink(path))})" if path.is_symlink() else ""
        raise DatasetNotFound(f"{path}: is not a regular file{target}; {what} must be a text file")


def _find_qrels(directory: Path) -> Path:
    named = sorted(p for p in directory.iterdir() if p.name.lower().startswith("qrels"))
    for path in named:
        _refuse_special(path, "a qrels file")
    candidates = [p for p in named if p.is_file()]
    if len(candidates) != 1:
        found = listed(p.name for p in candidates) or "none"
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
    hidden_in_runs: list[str] = field(default_factory=list)  # hidden entries of runs/, not read (named at load)

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
    run_files, hidden = _run_files(runs_dir)
    qrels_file = _find_qrels(directory)
    declared = read_collection_file(directory)
    table_file = directory / "runs_table.tsv"
    runs_info = table_judged = None
    if os.path.lexists(table_file):
        _refuse_special(table_file, "runs_table.tsv")
        if table_file.is_dir():
            raise DatasetNotFound(f"{table_file}: is a folder; runs_table.tsv must be a tab-separated text file")
        runs_info, lines = read_runs_table(table_file, with_lines=True)
        if "judged" in runs_info:
            table_judged = parse_judged_column(runs_info["judged"].tolist(), runs_info.index.tolist(), table_file,
                                               [lines[run] for run in runs_info.index])
            runs_info = runs_info.drop(columns="judged")
    else:
        table_file = None
    return DatasetFolder(directory, run_files, qrels_file, table_file, declared.path, declared, runs_info,
                         table_judged, hidden)
