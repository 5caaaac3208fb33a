"""Time per notebook per preset as a class meets it (issues 13 item 2, 15 item 6 and 28 item 2): every notebook
executed by papermill (``evalkit.batch.pipeline.run_notebook``: kernel start, imports, data loading, figures and
widgets' first draw included) with ``preset="class"`` and ``preset="paper"`` (the notebooks' default), on the
notebook's default dataset (``"auto"``: TREC-8 when its files are found, else the synthetic collection; the row
names which).

Targets: the **class preset under 60 s** a notebook on 2 cores, every notebook (issue 28: a bench row, not a timed
test); the paper preset has none (context). Every class row says the dataset, the cores this machine has and the
load average at its start and end: a class-preset time measured on a busy machine is not the 2-idle-core figure,
and the row says how busy it was. A notebook without a ``preset`` parameter, or one that fails, gets a row saying
so (a failed notebook misses the target: a class cannot run it). The slowest bench module (the paper runs take
minutes): ``python bench/run.py notebooks`` runs it alone; ``EVALKIT_BENCH_NOTEBOOKS=00,03`` limits it to some
notebooks, ``EVALKIT_BENCH_NOTEBOOK_PRESETS=class`` to some presets, ``EVALKIT_BENCH_NOTEBOOK_DATASETS=auto,synthetic``
measures on more than the default dataset (what a class without TREC-8 runs). The class presets of all notebooks
run first, then the paper presets.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from common import Result, load_note

CLASS_BUDGET_SECONDS = 60.0


def _defaults(path: Path) -> dict:
    """The values the notebook's parameters cell assigns (its defaults)."""
    import nbformat

    nb = nbformat.read(str(path), as_version=4)
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    values: dict = {}
    exec(compile(cell.source, f"{path.name}:parameters", "exec"), {}, values)  # our own notebooks: assignments only
    return {k: v for k, v in values.items() if not k.startswith("_")}


def _listed(variable: str, default: str) -> list[str]:
    return [x.strip() for x in os.environ.get(variable, default).split(",") if x.strip()]


def _time_one(path: Path, folder: Path, dataset: str, preset: str | None) -> tuple[float, list, str]:
    """(seconds, load averages before and after, error line or "") of one papermill run."""
    from evalkit.batch.pipeline import run_notebook

    loads = [os.getloadavg()[0]]
    started = time.perf_counter()
    error = ""
    try:
        run_notebook(path, folder / f"{preset or 'default'}-{Path(dataset).name}-{path.name}", dataset=dataset,
                     fast=False, extra_parameters={"preset": preset} if preset else {})
    except Exception as exc:  # noqa: BLE001 - one failing notebook is a row, not the end of the module
        error = f"{type(exc).__name__}: {getattr(exc, 'evalue', exc)}".replace("|", "/").replace("\n", " ")[:200]
    seconds = time.perf_counter() - started
    loads.append(os.getloadavg()[0])
    return seconds, loads, error


def run(repeat: int = 1) -> list[Result]:
    from evalkit.batch.pipeline import notebook_paths
    from evalkit.data.datasets import resolve_auto

    only = _listed("EVALKIT_BENCH_NOTEBOOKS", "")
    presets = _listed("EVALKIT_BENCH_NOTEBOOK_PRESETS", "class,paper")
    datasets = _listed("EVALKIT_BENCH_NOTEBOOK_DATASETS", "auto")
    paths = [p for p in notebook_paths() if not only or any(p.stem.startswith(o) for o in only)]
    cores = f"{os.cpu_count()} cores"
    results = []
    with tempfile.TemporaryDirectory(prefix="evalkit-bench-nb-") as scratch:
        folder = Path(scratch)
        for preset in presets:
            for path in paths:
                defaults = _defaults(path)
                if "preset" not in defaults:
                    if preset == "class":
                        results.append(Result(f"notebook {path.stem}, class preset", float("nan"), None, "-",
                                              f"< {CLASS_BUDGET_SECONDS:.0f} s", None,
                                              "no 'preset' parameter in this notebook: not measured"))
                    continue
                for given in datasets:
                    dataset = resolve_auto(defaults.get("dataset", "synthetic") if given == "auto" else given)
                    seconds, loads, error = _time_one(path, folder, dataset, preset)
                    note = f"dataset {dataset!r}; {cores}; {load_note(loads)}" + (f"; FAILED: {error}" if error else "")
                    if preset == "class":
                        results.append(Result(f"notebook {path.stem}, class preset", seconds, None, "-",
                                              f"< {CLASS_BUDGET_SECONDS:.0f} s",
                                              not error and seconds < CLASS_BUDGET_SECONDS, note))
                    else:
                        results.append(Result(f"notebook {path.stem}, {preset} preset", seconds, None, "-",
                                              "(context)", False if error else None, note))
    return results
