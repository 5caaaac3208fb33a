"""The dataset cache: a loaded :class:`~evalkit.data.collection.Collection` kept on disk, checked before it is used.

A collection read from TREC files is saved under ``$EVALKIT_CACHE`` (default ``~/.cache/evalkit``) in a folder
named ``<dataset>-<key>``:

* the **key** is a SHA-256 over the *content* of every source file (runs, qrels, runs table), their names
  relative to the dataset folder, the cache format version and the load options. An edit that keeps a file's size
  and modification time (``touch -d``, ``os.utime``) changes the key, so a stale cache is never served.
* the folder holds the arrays as ``.npy`` files, the vocabulary as UTF-8 (any docno, not only ASCII), the run
  table as an Arrow IPC file (strings such as ``NA``, ``null`` or ``N/A`` stay strings), ``meta.json`` (name,
  topics, run names, ``Collection.metadata``) and, written last, ``manifest.json``: the size and CRC-32 of every
  other file. A load verifies every file against the manifest before using any of it; a missing, truncated,
  flipped or unreadable file makes the load return nothing, with **one warning line**, and the caller rebuilds
  the cache from the sources.
* a save writes into a temporary folder (``.tmp-<host>-<pid>-...``) and renames it into place, so a reader sees a
  complete cache or none; two processes loading at once both succeed (the second rename loses and is dropped).
  A save stopped by SIGTERM, SIGHUP or Ctrl-C removes its temporary folder before the process ends; folders left
  by processes that died otherwise (SIGKILL) are removed by the next load or save on the same host.

Only folders holding the kit's marker file (``.evalkit-cache``) are ever removed or replaced.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import signal
import socket
import threading
import time
import uuid
import warnings
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from evalkit.errors import one_line

__all__ = ["CACHE_VERSION", "CacheWarning", "cache_dir", "cache_path", "content_key", "load_cached", "save_cached"]

CACHE_VERSION = 4
MARKER = ".evalkit-cache"
MANIFEST = "manifest.json"
_TMP_PREFIX = ".tmp-"
_LEGACY_TMP = re.compile(r"^.+-[0-9a-f]{24}\.tmp(\d+)$")  # what cache version 3 left behind when killed mid-save
_LEGACY_FILES = {"docs.npy", "scores.npy", "q_topic.npy", "q_doc.npy", "q_grade.npy", "q_stratum.npy",
                 "vocabulary.npy", "topics.npy", "run_names.npy", "runs_info.csv", "meta.json"}
_STALE_AFTER = 24 * 3600  # a temporary folder this old is abandoned whatever its process id says

try:  # ISA-L's CRC-32 is several times faster than zlib's; the same checksum
    from isal.isal_zlib import crc32 as _crc32
except ImportError:  # pragma: no cover
    _crc32 = zlib.crc32


class CacheWarning(UserWarning):
    """A cache entry could not be used (damaged, unreadable) or written; the kit carried on without it."""


def cache_dir() -> Path:
    """``$EVALKIT_CACHE``, default ``~/.cache/evalkit``."""
    return Path(os.environ.get("EVALKIT_CACHE", Path.home() / ".cache" / "evalkit")).expanduser()


def _file_digest(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def content_key(files: list[Path], base: Path, options: dict) -> str:
    """SHA-256 (24 hex digits) over each file's name relative to ``base`` and its content, the cache version and
    ``options`` (anything that changes what loading produces). Files are hashed in parallel threads."""
    files = [Path(f) for f in files]
    with ThreadPoolExecutor(min(4, len(files)) or 1) as pool:
        digests = list(pool.map(_file_digest, files))
    digest = hashlib.sha256(json.dumps({"version": CACHE_VERSION, **options}, sort_keys=True).encode())
    for f, d in zip(files, digests):
        try:
            name = f.relative_to(base).as_posix()
        except ValueError:
            name = f.name
        digest.update(f"{name}\0{d}\n".encode())
    return digest.hexdigest()[:24]


def _safe_label(name: str) -> str:
    label = re.sub(r"[^A-Za-z0-9._-]+", "_", str(name)).lstrip(".") or "dataset"
    return label[:80]


def cache_path(name: str, files: list[Path], base: Path, options: dict | None = None) -> Path:
    """The cache folder of dataset ``name`` built from ``files`` (see :func:`content_key`)."""
    return cache_dir() / f"{_safe_label(name)}-{content_key(files, base, {'name': name, **(options or {})})}"


# ------------------------------------------------------------------------------------------------ save


def _utf8_columns(strings) -> dict[str, np.ndarray]:
    """Strings as one UTF-8 byte array and offsets (what an Arrow string array holds): any docno round-trips."""
    import pyarrow as pa

    array = pa.array(np.asarray(strings, dtype=object), pa.large_string())
    _, offsets, data = array.buffers()
    offsets = np.frombuffer(offsets, np.int64)[array.offset: array.offset + len(array) + 1]
    data = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
    return {"data": data[offsets[0]: offsets[-1]], "offsets": offsets - offsets[0]}


def _utf8_strings(data: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    import pyarrow as pa

    array = pa.LargeStringArray.from_buffers(len(offsets) - 1, pa.py_buffer(offsets), pa.py_buffer(data))
    array.validate(full=True)
    return np.asarray(array.to_numpy(zero_copy_only=False), dtype=object)


def _npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(array), allow_pickle=False)
    return buffer.getvalue()


def _frame_bytes(frame) -> bytes:
    import pyarrow as pa

    table = pa.Table.from_pandas(frame)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def _collection_files(collection) -> dict[str, bytes]:
    q = collection.qrels
    vocabulary = _utf8_columns(collection.vocabulary)
    arrays = {"docs": collection.docs, "scores": collection.scores, "q_topic": q.topic, "q_doc": q.doc,
              "q_grade": q.grade, "vocabulary_data": vocabulary["data"], "vocabulary_offsets": vocabulary["offsets"]}
    if q.stratum is not None:
        arrays["q_stratum"] = q.stratum
    files = {f"{key}.npy": _npy_bytes(value) for key, value in arrays.items()}
    files["runs_info.arrow"] = _frame_bytes(collection.runs_info)
    meta = {"version": CACHE_VERSION, "name": collection.name, "n_topics": q.n_topics, "n_docs": q.n_docs,
            "topics": [str(t) for t in collection.topics], "run_names": [str(r) for r in collection.run_names],
            "metadata": collection.metadata}
    files["meta.json"] = json.dumps(meta).encode("utf-8")
    return files


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9]+", "", socket.gethostname())[:40] or "host"


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _is_kit_folder(folder: Path) -> bool:
    return (folder / MARKER).is_file()


def clean_stale_temporaries(root: Path | None = None) -> list[Path]:
    """Remove temporary cache folders whose process is gone (this host) or that are older than a day; only folders
    the kit made (its marker inside, or a version-3 leftover holding nothing but cache files). Returns them."""
    root = cache_dir() if root is None else root
    removed = []
    try:
        entries = list(root.iterdir())
    except OSError:
        return removed
    host = _host()
    for entry in entries:
        if not entry.is_dir() or entry.is_symlink():
            continue
        pid = None
        if entry.name.startswith(_TMP_PREFIX):
            parts = entry.name[len(_TMP_PREFIX):].split("-")
            if not _is_kit_folder(entry) or len(parts) < 3:
                continue
            if parts[0] == host and parts[1].isdigit():
                pid = int(parts[1])
        elif (legacy := _LEGACY_TMP.match(entry.name)) is not None:
            try:
                names = {p.name for p in entry.iterdir()}
            except OSError:
                continue
            if not names <= _LEGACY_FILES:
                continue
            pid = int(legacy.group(1))
        else:
            continue
        try:
            age = time.time() - entry.stat().st_mtime
        except OSError:
            continue
        if (pid is not None and pid != os.getpid() and not _process_alive(pid)) or age > _STALE_AFTER:
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed


class _Stopped(BaseException):
    """SIGTERM or SIGHUP during a save, raised so that the save removes its temporary folder first."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class _cleanup_on_signal:
    """While a save runs in the main thread, SIGTERM and SIGHUP (when nothing else handles them) raise
    :class:`_Stopped` instead of ending the process at once; once the save has removed its temporary folder the
    process ends by the same signal, as it would have. (A handler someone installed, such as the ``evalkit``
    command's, is left alone: it raises, and the save cleans up the same way.)"""

    _SIGNALS = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n))

    def __enter__(self):
        self.previous = {}
        if threading.current_thread() is threading.main_thread():
            for signum in self._SIGNALS:
                if signal.getsignal(signum) == signal.SIG_DFL:
                    self.previous[signum] = signal.signal(signum, self._raise)
        return self

    @staticmethod
    def _raise(signum, frame):
        raise _Stopped(signum)

    def __exit__(self, kind, exc, traceback):
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
        if isinstance(exc, _Stopped):
            os.kill(os.getpid(), exc.signum)  # the default action, now that nothing is left behind
        return False


def save_cached(collection, where: Path) -> bool:
    """Save ``collection`` as the cache folder ``where``, whole or not at all; False (with one warning line) if it
    could not be written. An existing folder at ``where`` is replaced only if it is the kit's (a damaged cache).
    A signal that stops the process meanwhile (SIGTERM, SIGHUP, Ctrl-C) leaves no temporary folder behind."""
    with _cleanup_on_signal():
        return _save(collection, Path(where))


def _save(collection, where: Path) -> bool:
    tmp = None
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        clean_stale_temporaries(where.parent)
        files = _collection_files(collection)
        tmp = where.parent / f"{_TMP_PREFIX}{_host()}-{os.getpid()}-{uuid.uuid4().hex[:8]}-{where.name}"
        tmp.mkdir()
        (tmp / MARKER).write_bytes(b"")
        manifest = {"version": CACHE_VERSION, "files": {}}
        for name, payload in files.items():
            (tmp / name).write_bytes(payload)
            manifest["files"][name] = {"size": len(payload), "crc32": _crc32(payload)}
        (tmp / MANIFEST).write_text(json.dumps(manifest))
        if where.exists() and _is_kit_folder(where):  # a damaged cache: move it aside, then drop it
            if _healthy(where):  # unless another process has just replaced it with a good one
                shutil.rmtree(tmp, ignore_errors=True)
                return True
            trash = where.parent / f"{_TMP_PREFIX}{_host()}-{os.getpid()}-{uuid.uuid4().hex[:8]}-old"
            try:
                where.rename(trash)
                shutil.rmtree(trash, ignore_errors=True)
            except OSError:
                pass  # another process replaced it first
        try:
            tmp.rename(where)
        except OSError:  # another process cached it first: theirs is as good
            shutil.rmtree(tmp, ignore_errors=True)
            return where.exists()
        return True
    except Exception as exc:  # the cache is an optimization: never fail a load because it cannot be written
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        warnings.warn(f"evalkit: could not write the dataset cache {where} ({type(exc).__name__}: "
                      f"{one_line(exc, 200)}); the data is loaded but not cached", CacheWarning, stacklevel=4)
        return False
    except BaseException:  # a signal or Ctrl-C: the temporary folder goes, then the process stops as asked
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        raise


# ------------------------------------------------------------------------------------------------ load


class _Damaged(Exception):
    pass


def _npy_array(raw: bytes) -> np.ndarray:
    """A read-only array over the bytes of a ``.npy`` file (no copy; no pickled objects)."""
    stream = io.BytesIO(raw)
    version = np.lib.format.read_magic(stream)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
    else:
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
    if dtype.hasobject:
        raise _Damaged("an array holds Python objects")
    count = int(np.prod(shape, dtype=np.int64))
    array = np.frombuffer(raw, dtype, count=count, offset=stream.tell())
    return array.reshape(shape, order="F" if fortran else "C")


def _verified(where: Path) -> dict[str, bytes]:
    """Every file of the cache folder, checked against the manifest."""
    try:
        manifest = json.loads((where / MANIFEST).read_bytes())
        expected = manifest["files"]
        if manifest.get("version") != CACHE_VERSION or not isinstance(expected, dict):
            raise _Damaged(f"cache format {manifest.get('version')!r}, expected {CACHE_VERSION}")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _Damaged(f"{MANIFEST} unreadable ({type(exc).__name__})") from None
    files = {}
    for name, entry in expected.items():
        try:
            payload = (where / name).read_bytes()
        except OSError as exc:
            raise _Damaged(f"{name} unreadable ({exc.strerror or exc})") from None
        if len(payload) != entry.get("size") or _crc32(payload) != entry.get("crc32"):
            raise _Damaged(f"{name} does not match its checksum (size {len(payload)}, expected {entry.get('size')})")
        files[name] = payload
    return files


def _collection_from(files: dict[str, bytes]):
    import pyarrow as pa

    from evalkit.data.collection import Collection, JudgedSet

    meta = json.loads(files["meta.json"])
    array = lambda key: _npy_array(files[f"{key}.npy"])  # noqa: E731
    stratum = array("q_stratum") if "q_stratum.npy" in files else None
    qrels = JudgedSet(array("q_topic"), array("q_doc"), array("q_grade"), stratum, meta["n_topics"], meta["n_docs"])
    with pa.ipc.open_file(pa.py_buffer(files["runs_info.arrow"])) as reader:
        runs_info = reader.read_all().to_pandas().copy()  # writable columns, as a freshly built table has
    vocabulary = _utf8_strings(array("vocabulary_data"), array("vocabulary_offsets"))
    collection = Collection(
        name=meta["name"],
        topics=np.asarray(meta["topics"], dtype=object),
        run_names=np.asarray(meta["run_names"], dtype=object),
        vocabulary=vocabulary,
        docs=array("docs"),
        scores=array("scores"),
        qrels=qrels,
        runs_info=runs_info,
        metadata=meta.get("metadata", {}),
    )
    shape_ok = (collection.docs.shape == collection.scores.shape
                and collection.docs.shape[:2] == (len(collection.run_names), len(collection.topics))
                and len(vocabulary) == meta["n_docs"] and len(runs_info) == len(collection.run_names))
    if not shape_ok:
        raise _Damaged("arrays do not fit together")
    return collection


def _healthy(where: Path) -> bool:
    try:
        _verified(where)
    except _Damaged:
        return False
    return True


def load_cached(where: Path):
    """The collection cached at ``where``, or None: when there is none, or (with one warning line) when it is
    damaged in any way; the caller then rebuilds it from the source files."""
    where = Path(where)
    clean_stale_temporaries(where.parent)  # what a process killed mid-save (SIGKILL, power loss) left
    if not where.is_dir():
        return None
    try:
        return _collection_from(_verified(where))
    except Exception as exc:  # whatever is wrong with a cache, the sources are the truth
        reason = str(exc) if isinstance(exc, _Damaged) else f"{type(exc).__name__}: {exc}"
        warnings.warn(f"evalkit: the dataset cache {where} is damaged ({reason}); rebuilding it from the sources",
                      CacheWarning, stacklevel=3)
        return None
