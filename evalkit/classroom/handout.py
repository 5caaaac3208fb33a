"""``evalkit notebooks copy DIR``: the notebooks (and the solutions) into a folder of the user's (issue 28.1).

A student who installed the kit with pip (Colab, Binder, a laptop without a clone) has the notebooks only inside the
installed package. This copies them out, laid out like a checkout so that every other command works on the copy::

    DIR/notebooks/00_tour.ipynb ...                 the students' notebooks
    DIR/solutions/00_tour_solutions.ipynb ...       with --solutions: exercises answered, model answers at the end
    DIR/.evalkit-copy.json                          what this command wrote (name -> sha256)

``jupyter lab DIR`` opens both folders; ``evalkit notebooks run --notebooks DIR/notebooks`` writes DIR/outputs/.

**It never deletes anything and never overwrites a file it did not write.** A file already at a target path is
replaced only if the record says this command wrote it and it is unchanged since (so a newer kit refreshes its own
copies); a file the user wrote or edited is left alone, and then nothing at all is written: the command stops with
one line naming the files (copy into another folder, or move them away). Each file is written whole (a temporary
file renamed into place).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

__all__ = ["RECORD", "CopyRefused", "copy_notebooks"]

RECORD = ".evalkit-copy.json"


class CopyRefused(ValueError):
    """A target file exists and this command did not write it (or it was edited since): nothing was written."""


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _planned(sources, solutions: bool) -> dict[str, bytes]:
    """relative path -> the bytes to write there."""
    from evalkit.classroom.exercises import notebook_text, solution_notebook

    planned = {}
    for source in sources:
        planned[f"notebooks/{source.name}"] = source.read_bytes()
        if solutions:
            planned[f"solutions/{source.stem}_solutions.ipynb"] = notebook_text(solution_notebook(source)).encode()
    return planned


def _read_record(folder: Path) -> dict[str, str]:
    path = folder / RECORD
    if not path.is_file():
        return {}
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        return {str(k): str(v) for k, v in record.get("files", {}).items()}
    except (OSError, ValueError, AttributeError) as exc:
        raise CopyRefused(f"{path}: not a record this command wrote ({exc}); copy into another folder") from None


def _write_whole(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def copy_notebooks(folder: str | os.PathLike, only=None, solutions: bool = False,
                   notebooks: str | os.PathLike | None = None) -> list[tuple[Path, str]]:
    """Copy the kit's notebooks (``only``: some of them, by name) into ``folder``/notebooks, and with ``solutions``
    their solutions into ``folder``/solutions. Returns (path, what happened) for each file: ``written``,
    ``updated`` (this command's earlier copy, unchanged since, replaced by a newer one) or ``unchanged``.
    Raises :class:`CopyRefused` before writing anything if a target exists that this command did not write."""
    from evalkit.batch.pipeline import notebook_paths

    folder = Path(os.path.expanduser(str(folder)))
    if folder.exists() and not folder.is_dir():
        raise CopyRefused(f"{folder}: exists and is not a folder")
    sources = notebook_paths(only, notebooks)
    if folder.is_dir() and folder.resolve() == sources[0].parent.parent.resolve():
        raise CopyRefused(f"{folder}: this is where the notebooks come from; copy them into another folder")
    planned = _planned(sources, solutions)
    record = _read_record(folder)
    refused, actions = [], {}
    for name, data in planned.items():
        target = folder / name
        if target.is_symlink() or (target.exists() and not target.is_file()):
            refused.append(f"{name} (not a regular file)")
            continue
        if not target.exists():
            actions[name] = "written"
            continue
        current = _digest(target.read_bytes())
        if current == _digest(data):
            actions[name] = "unchanged"
        elif record.get(name) == current:
            actions[name] = "updated"
        else:
            refused.append(name)
    if refused:
        shown = ", ".join(refused[:5]) + (f" and {len(refused) - 5} more" if len(refused) > 5 else "")
        raise CopyRefused(f"{folder}: {shown} already there and not written by `evalkit notebooks copy` (or edited "
                          "since): nothing was copied; copy into another folder, or move those files away")
    for name, action in actions.items():
        if action != "unchanged":
            _write_whole(folder / name, planned[name])
    record.update({name: _digest(data) for name, data in planned.items()})
    _write_whole(folder / RECORD, (json.dumps({"files": record}, indent=1, sort_keys=True) + "\n").encode())
    return [(folder / name, action) for name, action in actions.items()]
