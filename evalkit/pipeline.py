"""The notebook batch: execute every notebook with papermill and write an HTML report.

``make reproduce`` → ``evalkit notebooks run --dataset synthetic`` → ``outputs/synthetic/``:
the executed notebooks (``.ipynb``), each rendered to HTML, and ``index.html`` linking them, with one table of
each paper's claims beside the kit's figures gathered from what the notebooks recorded
(:func:`evalkit.report.record_claims`). Outputs are built in a temporary folder and moved into place when every
notebook has run, so a failed batch leaves the previous outputs untouched.
"""

from __future__ import annotations

import html
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from .report import read_claims

__all__ = ["NOTEBOOK_DIR", "notebook_paths", "run_notebook", "run_notebooks", "write_report"]

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"


def notebook_paths(only=None) -> list[Path]:
    """The kit's notebooks in order (``NN_name.ipynb``), or those named in ``only`` (stem or file name)."""
    paths = sorted(p for p in NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb"))
    if only:
        wanted = {Path(o).stem for o in only}
        unknown = wanted - {p.stem for p in paths}
        if unknown:
            raise ValueError(f"no such notebook: {sorted(unknown)}; known: {[p.stem for p in paths]}")
        paths = [p for p in paths if p.stem in wanted]
    return paths


CELL_TIMEOUT_SECONDS = {True: 300, False: 3600}  # per cell, fast mode / full runs


def run_notebook(source: Path, target: Path, dataset: str = "synthetic", fast: bool = False,
                 kernel: str | None = None, extra_parameters: dict | None = None,
                 cell_timeout: int | None = None) -> Path:
    """Execute one notebook with papermill (parameters ``dataset`` and ``fast`` and any extra).

    Every cell has a time limit (:data:`CELL_TIMEOUT_SECONDS`, or ``cell_timeout``), so a kernel that stops
    answering fails the run with a timeout instead of stalling a batch for ever.
    """
    import papermill

    from .widgets import BATCH_ENV

    parameters = {"dataset": dataset, "fast": fast, **(extra_parameters or {})}
    previous = os.environ.get(BATCH_ENV)
    os.environ[BATCH_ENV] = "1"  # the kernel inherits it: widgets draw statically (evalkit.widgets.batch_mode)
    try:
        papermill.execute_notebook(
            str(source), str(target), parameters=parameters, kernel_name=kernel or _default_kernel(),
            cwd=str(source.parent), progress_bar=False, log_output=False,
            execution_timeout=cell_timeout or CELL_TIMEOUT_SECONDS[bool(fast)],
        )
    finally:
        if previous is None:
            os.environ.pop(BATCH_ENV, None)
        else:
            os.environ[BATCH_ENV] = previous
    return target


def _default_kernel() -> str:
    """A kernel spec for this very Python, written into its prefix (the venv) on first use."""
    name = "evalkit"
    spec_dir = Path(sys.prefix) / "share" / "jupyter" / "kernels" / name
    spec_file = spec_dir / "kernel.json"
    import json

    wanted = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
              "display_name": "Python (evalkit)", "language": "python"}
    if not spec_file.is_file() or json.loads(spec_file.read_text()).get("argv") != wanted["argv"]:
        spec_dir.mkdir(parents=True, exist_ok=True)
        spec_file.write_text(json.dumps(wanted, indent=1))
    return name


def run_notebooks(dataset: str = "synthetic", fast: bool = False, out: str | os.PathLike | None = None,
                  only=None, kernel: str | None = None) -> Path:
    """Execute the notebooks and write the report under ``out`` (default ``outputs/<dataset>[-fast]``)."""
    from tqdm.auto import tqdm

    label = Path(dataset).name if os.sep in str(dataset) else str(dataset)
    out = Path(out) if out else NOTEBOOK_DIR.parent / "outputs" / (label + ("-fast" if fast else ""))
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    timings = {}
    try:
        paths = notebook_paths(only)
        for source in tqdm(paths, desc=f"notebooks ({label})", unit="nb"):
            started = time.perf_counter()
            run_notebook(source, staging / source.name, dataset=dataset, fast=fast, kernel=kernel)
            timings[source.name] = time.perf_counter() - started
        write_report(staging, dataset=label, timings=timings)
        if out.exists():
            shutil.rmtree(out)
        staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    print(f"report: {out / 'index.html'}")
    return out


def _to_html(notebook_path: Path) -> Path:
    import nbformat
    from nbconvert import HTMLExporter

    exporter = HTMLExporter()
    body, _ = exporter.from_notebook_node(nbformat.read(str(notebook_path), as_version=4))
    target = notebook_path.with_suffix(".html")
    target.write_text(body, encoding="utf-8")
    return target


def write_report(folder: str | os.PathLike, dataset: str = "", timings: dict | None = None) -> Path:
    """Render every executed notebook in ``folder`` to HTML and write ``index.html`` with the claims table."""
    folder = Path(folder)
    notebooks = sorted(folder.glob("[0-9][0-9]_*.ipynb"))
    if not notebooks:
        raise FileNotFoundError(f"{folder}: no executed notebooks to report on")
    items, claims = [], []
    for nb in notebooks:
        page = _to_html(nb)
        seconds = (timings or {}).get(nb.name)
        took = f" ({seconds:.0f} s)" if seconds is not None else ""
        items.append(f'<li><a href="{html.escape(page.name)}">{html.escape(nb.stem)}</a>{took} '
                     f'&middot; <a href="{html.escape(nb.name)}">.ipynb</a></li>')
        frame = read_claims(nb)
        if len(frame):
            frame.insert(0, "notebook", nb.stem)
            claims.append(frame)
    table = pd.concat(claims, ignore_index=True) if claims else pd.DataFrame()
    table.to_csv(folder / "claims.csv", index=False)
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>evalkit report {html.escape(dataset)}</title>
<style>body{{font-family:sans-serif;max-width:80em;margin:2em auto}} table{{border-collapse:collapse;font-size:90%}}
td,th{{border:1px solid #ccc;padding:3px 6px;vertical-align:top}} th{{background:#eee}}</style></head>
<body><h1>evalkit: executed notebooks{(' on ' + html.escape(dataset)) if dataset else ''}</h1>
<p>Generated {time.strftime('%Y-%m-%d %H:%M:%S')}.</p>
<h2>Notebooks</h2><ul>{''.join(items)}</ul>
<h2>The papers' claims beside the kit's figures</h2>
{table.to_html(index=False, escape=True) if len(table) else '<p>No claims were recorded.</p>'}
</body></html>"""
    index = folder / "index.html"
    index.write_text(page, encoding="utf-8")
    return index
