"""Where a batch writes, and the rule that keeps it from deleting anything it did not make.

* A batch writes ``outputs/<label>/`` beside the notebooks folder, the label a sanitized name made from the
  dataset (:func:`output_label`: ``some/dir/..`` labels the folder it resolves to, ``..`` or ``/`` can never
  become a path), or the folder ``--out`` names.
* Every folder the batch publishes holds a marker file (:data:`MARKER`) listing what the batch wrote into it
  (every file and folder, with each file's size and modification time). An existing target is replaced only if
  it is a real folder (not a symbolic link) holding that marker and nothing else than what it lists, as it was
  written: a file the user added (notes beside the report) or changed since is never deleted with it. Anything
  else is refused with :class:`OutputFolderRefused` before a notebook runs, and checked again just before the swap.
* The report is built in a staging folder beside the target (``.<name>.evalkit-staging-<pid>-XXXX``) and swapped
  in when every notebook has run (:class:`Staging`). An interrupted batch removes its staging folder (the batch's
  signal handlers raise, and the ``finally`` here runs); a staging folder left by a killed process is removed by
  the next batch writing beside it, once its process is gone. The previous outputs are untouched until the swap.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import stat
import tempfile
import threading
import time
from pathlib import Path

from evalkit.errors import listed

__all__ = ["MARKER", "OutputFolderRefused", "output_label", "resolve_target", "check_target", "Staging",
           "clean_stale"]

MARKER = ".evalkit-output"
_STAGING_MARKER = ".evalkit-staging"
_LEFTOVER = re.compile(r"^\.(?P<name>.+)\.evalkit-(?P<kind>staging|old)-(?P<pid>[0-9]+)-[^/]*$")


class OutputFolderRefused(ValueError):
    """The output folder exists and is not one the kit made: it is never replaced."""


def output_label(dataset: str, fast: bool = False) -> str:
    """A folder name for ``dataset``'s outputs: the dataset name (or the name of the folder a path resolves to),
    reduced to letters, digits, ``.``, ``_`` and ``-``, never starting with a dot; ``-fast`` for fast runs."""
    name = str(dataset)
    if name not in ("synthetic", "trec8"):
        name = Path(os.path.realpath(os.path.expanduser(name))).name
    label = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._-") or "dataset"
    return label + ("-fast" if fast else "")


def resolve_target(out: str | os.PathLike) -> Path:
    """The absolute output folder for ``out`` (relative to the current directory). A symbolic link is refused:
    replacing it would act on whatever it points to."""
    given = Path(os.path.expanduser(str(out)))
    if given.is_symlink():
        raise OutputFolderRefused(f"output folder {str(out)!r} is a symbolic link (to {os.readlink(given)!r}); "
                                  "the kit writes only into real folders: name the folder itself")
    return Path(os.path.realpath(given))


def check_target(target: Path, shown: str | None = None) -> None:
    """Refuse ``target`` unless it is absent or a real folder holding :data:`MARKER` (made by the kit)."""
    shown = shown or str(target)
    if target.is_symlink():
        raise OutputFolderRefused(f"output folder {shown!r} is a symbolic link; the kit writes only into real folders")
    if not target.exists():
        return
    if not target.is_dir():
        raise OutputFolderRefused(f"output folder {shown!r} exists and is not a folder; choose another --out")
    marker = target / MARKER
    if not (marker.is_file() and not marker.is_symlink()):
        raise OutputFolderRefused(
            f"output folder {shown!r} exists and was not made by evalkit (no {MARKER} file in it), so the kit will "
            "not replace it: choose another --out, or move that folder away yourself")
    try:
        written = json.loads(marker.read_text()).get("files")
    except (OSError, ValueError, AttributeError):
        written = None
    if written is None:  # a marker from before the kit listed its files: the folder is the kit's, as it was
        return
    found = _contents(target)
    added = set(found) - set(written)
    added = sorted(name for name in added if name.rpartition("/")[0] not in added)  # an added folder, not its files
    changed = sorted(name for name in set(found) & set(written) if found[name] != written[name])
    if added or changed:
        what = "; ".join(part for part in (f"not written by evalkit: {listed(added, limit=5)}" if added else "",
                                           f"changed since evalkit wrote them: {listed(changed, limit=5)}"
                                           if changed else "") if part)
        raise OutputFolderRefused(
            f"output folder {shown!r} was made by evalkit but holds files the kit would delete with it ({what}), so "
            "the kit will not replace it: move those files elsewhere, or choose another --out")


#: what viewing a report makes beside its files, never the user's own work: JupyterLab's checkpoints of a notebook
#: opened (an edit shows in the notebook itself), the file managers' folder settings
_MADE_BY_VIEWERS = {".ipynb_checkpoints", ".DS_Store", "Thumbs.db", "desktop.ini"}


def _contents(folder: Path) -> dict:
    """Every entry under ``folder`` but the marker and :data:`_MADE_BY_VIEWERS`, by path relative to it: ``"dir"``
    for a folder (not followed if a symbolic link), ``[size, mtime_ns]`` for anything else (:func:`os.lstat`)."""
    out = {}
    for root, dirs, files in os.walk(folder):
        dirs[:] = [name for name in dirs if name not in _MADE_BY_VIEWERS]
        files = [name for name in files if name not in _MADE_BY_VIEWERS]
        base = Path(root).relative_to(folder)
        for name in dirs:
            path = Path(root) / name
            out[(base / name).as_posix()] = "dir" if not path.is_symlink() else _stamp(path)
        for name in files:
            relative = (base / name).as_posix()
            if relative != MARKER:
                out[relative] = _stamp(Path(root) / name)
    return out


def _stamp(path: Path) -> list:
    info = os.lstat(path)
    return [info.st_size, info.st_mtime_ns]


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale(parent: Path) -> list[Path]:
    """Remove staging folders (and half-swapped old outputs) that dead batch processes left in ``parent``.

    Only folders named like the kit's and holding its staging or output marker are touched; an old output whose
    replacement never arrived is put back. Returns what was removed or restored.
    """
    handled = []
    if not parent.is_dir():
        return handled
    host = socket.gethostname()
    for entry in parent.iterdir():
        match = _LEFTOVER.match(entry.name)
        if not match or entry.is_symlink() or not entry.is_dir():
            continue
        marker = entry / (_STAGING_MARKER if match["kind"] == "staging" else MARKER)
        if not marker.is_file():
            continue
        if match["kind"] == "staging":
            try:
                info = json.loads(marker.read_text())
            except (OSError, ValueError):
                info = {}
            if info.get("host", host) != host:
                continue  # another machine's batch (a shared disk): not ours to judge
        if _process_alive(int(match["pid"])):
            continue
        original = parent / match["name"]
        if match["kind"] == "old" and not original.exists():
            entry.rename(original)
        else:
            shutil.rmtree(entry, ignore_errors=True)
        handled.append(entry)
    return handled


class _signals_held:
    """Hold SIGINT, SIGTERM and SIGHUP until the block ends, then deliver the first that came to the handler that
    was in place. (Python runs signal handlers in the main thread, so swapping handlers is enough; a signal mask
    would not be, other threads being there to take the signal.)"""

    _SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))

    def __enter__(self):
        self.arrived, self.previous = [], {}
        if threading.current_thread() is threading.main_thread():
            for signum in self._SIGNALS:
                self.previous[signum] = signal.signal(signum, lambda number, frame: self.arrived.append(number))

    def __exit__(self, *exc):
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
        if not self.arrived:
            return
        signum = self.arrived[0]
        handler = self.previous[signum]
        if callable(handler):
            handler(signum, None)
        elif handler == signal.SIG_DFL:
            if signum == signal.SIGINT:
                raise KeyboardInterrupt
            os.kill(os.getpid(), signum)


class Staging:
    """A staging folder beside ``target``: fill it, then :meth:`publish` swaps it in; :meth:`discard` removes it.

    Use as a context manager: leaving the block without publishing (an error, an interrupt) discards it.
    """

    def __init__(self, target: Path):
        self.target = target
        self.path: Path | None = None
        self.published = False

    def __enter__(self) -> "Staging":
        parent = self.target.parent
        parent.mkdir(parents=True, exist_ok=True)
        clean_stale(parent)
        self.path = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.evalkit-staging-{os.getpid()}-", dir=parent))
        try:
            (self.path / _STAGING_MARKER).write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                                                 "started": time.strftime("%Y-%m-%d %H:%M:%S")}))
        except BaseException:  # a full disk, a signal: __exit__ will not run, so nothing may be left here
            self.discard()
            raise
        return self

    def __exit__(self, *exc) -> None:
        if not self.published:
            self.discard()

    def discard(self) -> None:
        if self.path is not None and self.path.exists():
            shutil.rmtree(self.path, ignore_errors=True)

    def publish(self) -> Path:
        """Swap the staging folder in as ``target`` (checked again first); the old outputs are removed after."""
        assert self.path is not None
        check_target(self.target)
        (self.path / _STAGING_MARKER).unlink(missing_ok=True)
        (self.path / MARKER).write_text(json.dumps({"made_by": "evalkit notebooks run",
                                                    "published": time.strftime("%Y-%m-%d %H:%M:%S"),
                                                    "files": _contents(self.path)}) + "\n")
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(self.path, (stat.S_IRWXU | stat.S_IRWXG | stat.S_IRWXO) & ~umask)  # mkdtemp made it 0700
        old = None
        with _signals_held():  # the two renames happen both or neither, whatever signal arrives meanwhile
            if self.target.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.evalkit-old-{os.getpid()}-",
                                            dir=self.target.parent))
                os.rmdir(old)
                self.target.rename(old)
            try:
                self.path.rename(self.target)
            except OSError:
                if old is not None:
                    old.rename(self.target)
                raise
            self.published = True
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return self.target
