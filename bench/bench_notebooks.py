"""Time per notebook per preset as a class meets it (issues 13 item 2 and 15 item 6): every notebook executed by
papermill (``evalkit.batch.pipeline.run_notebook``: kernel start, imports, data loading, figures and widgets' first draw
included) with ``preset="class"`` and ``preset="paper"`` (the notebooks' default), on the notebook's default
dataset (``"auto"``: TREC-8 when its files are found, else the synthetic collection; the row names which).

Targets: the class preset under 60 s a notebook on 2 cores (issue 13: a bench check, not a timed test); the
paper preset has none (context). A notebook without a ``preset`` parameter gets a row saying so. The slowest
bench module (the paper runs take minutes): ``python bench/run.py notebooks`` runs it alone;
``EVALKIT_BENCH_NOTEBOOKS=00,03`` limits it to some notebooks, ``EVALKIT_BENCH_NOTEBOOK_PRESETS=class`` to some
presets. Every row gives the load average at its start and end.
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


def run(repeat: int = 1) -> list[Result]:
    from evalkit.batch.pipeline import notebook_paths, run_notebook
    from evalkit.data.datasets import resolve_auto

    only = [x.strip() for x in os.environ.get("EVALKIT_BENCH_NOTEBOOKS", "").split(",") if x.strip()]
    presets = [x.strip() for x in os.environ.get("EVALKIT_BENCH_NOTEBOOK_PRESETS", "class,paper").split(",")
               if x.strip()]
    paths = [p for p in notebook_paths() if not only or any(p.stem.startswith(o) for o in only)]
    results = []
    with tempfile.TemporaryDirectory(prefix="evalkit-bench-nb-") as folder:
        for path in paths:
            defaults = _defaults(path)
            dataset = resolve_auto(defaults.get("dataset", "synthetic"))
            runs = [(f"{p} preset", {"preset": p}) for p in presets] if "preset" in defaults else [("default", {})]
            for label, extra in runs:
                load = os.getloadavg()[0]
                started = time.perf_counter()
                run_notebook(path, Path(folder) / f"{label.split()[0]}-{path.name}", dataset=dataset,
                             fast=False, extra_parameters=extra)
                seconds = time.perf_counter() - started
                loads = [load, os.getloadavg()[0]]
                if extra.get("preset") == "class":
                    results.append(Result(f"notebook {path.stem}, {label}", seconds, None, "-",
                                          f"< {CLASS_BUDGET_SECONDS:.0f} s", seconds < CLASS_BUDGET_SECONDS,
                                          f"dataset {dataset!r}; {load_note(loads)}"))
                elif extra:
                    results.append(Result(f"notebook {path.stem}, {label}", seconds, None, "-", "(context)", None,
                                          f"dataset {dataset!r}; {load_note(loads)}"))
                else:
                    results.append(Result(f"notebook {path.stem}, default parameters", seconds, None, "-",
                                          "(context)", None, f"dataset {dataset!r}; {load_note(loads)}"))
            if "preset" not in defaults:
                results.append(Result(f"notebook {path.stem}, class preset", float("nan"), None, "-",
                                      f"< {CLASS_BUDGET_SECONDS:.0f} s", None,
                                      "no 'preset' parameter in this notebook yet (issue 13 item 2): not measured"))
    return results
