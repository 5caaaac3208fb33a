"""Throwaway notebooks and collections for the batch tests (evalkit notebooks run as a subprocess)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

EVALKIT = [sys.executable, "-m", "evalkit.cli"]
HOSTILE_TOPIC = "<svg/onload=alert(13)>"
HOSTILE_RUN = "<script>alert(1)</script>"


def write_notebook(path: Path, *cells, parameters: str = "dataset = 'synthetic'\nfast = False") -> Path:
    """A notebook with a ``parameters`` cell and the given cells (strings are code, ``("md", text)`` Markdown)."""
    notebook = new_notebook()
    notebook.cells = [new_code_cell(parameters, metadata={"tags": ["parameters"]})]
    for cell in cells:
        if isinstance(cell, tuple):
            notebook.cells.append(new_markdown_cell(cell[1]))
        else:
            notebook.cells.append(new_code_cell(cell))
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, str(path))
    return path


def write_collection(folder: Path, topics=("401", "402"), runs=("runA", "runB", "runC"), depth: int = 5) -> Path:
    """A tiny TREC collection on disk: ``runs/input.<i>`` (6 columns) and ``qrels.txt``, every document judged."""
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    for r, name in enumerate(runs):
        lines = [f"{t} Q0 DOC-{(rank + r) % (depth + 2)} {rank + 1} {10 - rank - r * 0.1:.2f} {name}\n"
                 for t in topics for rank in range(depth)]
        (folder / "runs" / f"input.run{r}").write_text("".join(lines))
    qrels = [f"{t} 0 DOC-{d} {1 if d % 2 == 0 else 0}\n" for t in topics for d in range(depth + 2)]
    (folder / "qrels.txt").write_text("".join(qrels))
    return folder


def run_cli(*args, cwd=None, env=None, timeout=300) -> subprocess.CompletedProcess:
    """``evalkit ARGS`` as a subprocess with this test session's cache; stdout/stderr as text."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([*EVALKIT, *map(str, args)], cwd=cwd, env=full_env, capture_output=True, text=True,
                          timeout=timeout)


def visible_lines(text: str) -> list[str]:
    """Output lines without tqdm's redraws (carriage returns) and blank lines."""
    lines = []
    for line in text.splitlines():
        last = line.split("\r")[-1].strip()
        if last and not last.startswith(("notebooks (", "report pages")):
            lines.append(last)
    return lines
