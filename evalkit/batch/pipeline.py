"""The notebook batch: check the dataset, execute every notebook with papermill, publish an offline report.

``make reproduce`` → ``evalkit notebooks run --dataset synthetic`` → ``outputs/synthetic/``: the executed
notebooks (``.ipynb``), each as an HTML page that opens offline, ``index.html`` (:mod:`evalkit.batch.report_page`),
``claims.csv`` and ``batch.json`` (what ran, with which parameters, how long, with what outcome).

What a batch promises:

* **The dataset is checked first**, loaded once in this process: a bad file stops the batch with the loader's
  one-line message before any notebook starts. A relative dataset path means relative to the caller's folder;
  notebooks receive it absolute.
* **No work is thrown away.** Every notebook runs even after one fails. A notebook that raises
  :class:`evalkit.papers.needs.NeedsNotMet` is *skipped*, with its sentence as the reason; any other error marks it
  *failed*, and the executed notebook is kept with the failing cell. The report is always written, with a status
  per notebook, and the batch exits non-zero at the end if any failed, or if none ran (every one skipped: the
  report's first line then says why and what to write; skipped beside notebooks that ran is not a failure).
* **Nothing is lost.** The report is built in a staging folder and swapped in only when every notebook has run;
  an interrupted batch (Ctrl-C, SIGTERM) stops the kernels, removes the staging folder and leaves the previous
  outputs as they were. The kit replaces only folders it made (:mod:`evalkit.batch.outputs`).
* **Parameters** (``-p NAME VALUE``, ``--params "NAME=VALUE ..."``) go to the notebooks that have them
  (:mod:`evalkit.batch.parameters`), each checked against the type its notebook declares for it
  (:mod:`evalkit.batch.parameter_types`) before any kernel starts: no bad value reaches a cell.
* Every cell has a time limit (:data:`CELL_TIMEOUT_SECONDS`, ``--cell-timeout``), so a kernel that stops
  answering fails that notebook instead of stalling the batch. Kernels talk over IPC, and what a kernel process
  writes outside its notebook goes to ``<notebook>.kernel.log`` beside it, not into the batch's progress output
  (:mod:`evalkit.batch.kernel`).

The notebooks folder is ``--notebooks DIR``, else ``$EVALKIT_NOTEBOOKS``, else the notebooks the kit ships
(:func:`packaged_notebooks`: ``notebooks/`` of the checkout, or the copy inside an installed wheel). Default outputs
go to ``outputs/`` beside that folder, or in the current folder when the notebooks are the installed package's
(:func:`default_base`: never into site-packages).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import signal
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from evalkit.batch.outputs import Staging, check_target, output_label, resolve_target
from evalkit.batch.parameters import check_parameters, notebook_parameters, route_parameters
from evalkit.batch.report_page import BATCH_RECORD, write_report
from evalkit.errors import one_line

__all__ = ["NOTEBOOK_DIR", "NOTEBOOKS_ENV", "packaged_notebooks", "default_base", "CELL_TIMEOUT_SECONDS",
           "notebook_dir", "notebook_paths",
           "run_notebook", "run_notebooks", "write_report", "NotebookResult", "BatchOutcome", "BatchInterrupted",
           "DatasetCheckFailed", "resolve_dataset", "check_dataset"]



def packaged_notebooks() -> Path:
    """The notebooks this installation of the kit ships: ``evalkit/notebooks/`` inside an installed wheel or sdist
    (setup.py maps the repository's ``notebooks/`` onto the package ``evalkit.notebooks``), else ``notebooks/``
    beside the package (a checkout, or an editable install, which maps the package back to it)."""
    from importlib.resources import files

    installed = files("evalkit") / "notebooks"
    if installed.is_dir():
        return Path(str(installed))
    return Path(__file__).resolve().parents[2] / "notebooks"


NOTEBOOK_DIR = packaged_notebooks()
NOTEBOOKS_ENV = "EVALKIT_NOTEBOOKS"
CELL_TIMEOUT_SECONDS = {True: 300, False: 3600}  # per cell, fast mode / full runs
_NAMED_DATASETS = ("synthetic", "trec8")
KERNEL_LOG_SUFFIX = ".kernel.log"  # what a kernel process wrote outside its notebook, kept beside it if anything


class BatchInterrupted(KeyboardInterrupt):
    """The batch was stopped by a signal; its message says what was left as it was."""


class DatasetCheckFailed(ValueError):
    """The dataset could not be loaded for a reason the loader did not put in one line itself."""


def notebook_dir(folder: str | os.PathLike | None = None) -> Path:
    """The notebooks folder: ``folder``, else ``$EVALKIT_NOTEBOOKS``, else ``notebooks/`` beside the package."""
    chosen = folder or os.environ.get(NOTEBOOKS_ENV) or NOTEBOOK_DIR
    path = Path(os.path.realpath(os.path.expanduser(str(chosen))))
    if not path.is_dir():
        raise FileNotFoundError(f"notebooks folder {str(chosen)!r}: no such folder")
    return path


def default_base(directory: Path) -> Path:
    """Where a command's default ``outputs/`` or ``solutions/`` goes for notebooks in ``directory``: beside it
    (a checkout's ``notebooks/``, a student's copy), or the current folder when ``directory`` is the installed
    package's own copy (site-packages is no place for a user's files)."""
    from importlib.resources import files

    installed = Path(str(files("evalkit"))).resolve()
    directory = Path(directory).resolve()
    return Path.cwd() if directory == installed or installed in directory.parents else directory.parent


def notebook_paths(only=None, folder: str | os.PathLike | None = None) -> list[Path]:
    """The notebooks in order (``NN_name.ipynb``), or those named in ``only`` (stem or file name)."""
    directory = notebook_dir(folder)
    paths = sorted(p for p in directory.glob("[0-9][0-9]_*.ipynb"))
    if only:
        wanted = {Path(o).stem for o in only}
        unknown = wanted - {p.stem for p in paths}
        if unknown:
            raise ValueError(f"no such notebook: {', '.join(sorted(unknown))}; known: "
                             f"{', '.join(p.stem for p in paths) or f'none in {directory}'}")
        paths = [p for p in paths if p.stem in wanted]
    if not paths:
        raise FileNotFoundError(f"{directory}: no notebooks (NN_name.ipynb) to run")
    return paths


class _BatchEnvironment:
    """Sets :data:`evalkit.display.widgets.BATCH_ENV` for the kernels started inside (widgets draw statically)."""

    def __enter__(self):
        from evalkit.display.widgets import BATCH_ENV

        self.name, self.previous = BATCH_ENV, os.environ.get(BATCH_ENV)
        os.environ[BATCH_ENV] = "1"

    def __exit__(self, *exc):
        if self.previous is None:
            os.environ.pop(self.name, None)
        else:
            os.environ[self.name] = self.previous


def run_notebook(source: Path, target: Path, dataset: str = "synthetic", fast: bool = False,
                 kernel: str | None = None, extra_parameters: dict | None = None,
                 cell_timeout: int | None = None) -> Path:
    """Execute one notebook with papermill (parameters ``dataset``, ``fast`` and any extra) into ``target``.

    Raises papermill's errors (``PapermillExecutionError`` carries the failing cell's ``ename``/``evalue``).
    Every cell has a time limit (:data:`CELL_TIMEOUT_SECONDS`, or ``cell_timeout``).
    """
    import papermill

    from evalkit.batch.kernel import default_kernel, launch_options

    parameters = {"dataset": dataset, "fast": fast, **(extra_parameters or {})}
    kernel = kernel or default_kernel()
    with _BatchEnvironment():
        papermill.execute_notebook(
            str(source), str(target), parameters=parameters, kernel_name=kernel,
            language="python", cwd=str(Path(source).parent), progress_bar=False, log_output=False,
            execution_timeout=cell_timeout or CELL_TIMEOUT_SECONDS[bool(fast)], **launch_options(kernel),
        )
    return Path(target)


@dataclass
class NotebookResult:
    """What happened to one notebook of a batch."""

    name: str
    status: str  # "ok", "failed" or "skipped"
    reason: str = ""
    seconds: float = 0.0
    applied: dict = field(default_factory=dict)
    not_applicable: list = field(default_factory=list)
    load_before: list = field(default_factory=list)
    plans: list = field(default_factory=list)  # the plan lines the notebook displayed (evalkit.claims.PLAN_MIME)


def _classify(exc: BaseException, cell_limit: int) -> tuple[str, str]:
    from papermill.exceptions import PapermillExecutionError

    if type(exc).__name__ == "CellTimeoutError":
        return "failed", (f"CellTimeoutError: a cell ran longer than the {cell_limit} s limit and was stopped "
                          "(--cell-timeout changes the limit)")
    if isinstance(exc, PapermillExecutionError):
        if exc.ename == "NeedsNotMet":
            return "skipped", one_line(exc.evalue, 1000)
        where = f" (cell {exc.exec_count})" if exc.exec_count else ""
        return "failed", one_line(f"{exc.ename}: {exc.evalue}") + where
    return "failed", one_line(f"{type(exc).__name__}: {exc}")


def _execute(source: Path, target: Path, dataset: str, fast: bool, kernel: str | None, applied: dict,
             not_applicable: list, cell_timeout: int | None, tick=None) -> NotebookResult:
    """Run one notebook in a worker thread; this (main) thread stays free to take a signal, and on one it stops
    the kernel and re-raises. The outcome is a status, never an exception. ``tick()`` is called now and then
    while the notebook runs (the progress bar's clock)."""
    from evalkit.batch.kernel import kernel_log, stop_live_kernels

    outcome: dict = {}
    log = target.with_name(target.stem + KERNEL_LOG_SUFFIX)

    def work():
        try:
            with kernel_log(log):
                run_notebook(source, target, dataset=dataset, fast=fast, kernel=kernel, extra_parameters=applied,
                             cell_timeout=cell_timeout)
        except BaseException as exc:  # reported as the notebook's status
            outcome["error"] = exc

    load = list(os.getloadavg()) if hasattr(os, "getloadavg") else []
    started = time.perf_counter()
    thread = threading.Thread(target=work, name=f"evalkit-{source.stem}", daemon=True)
    thread.start()
    every = 1.0 if sys.stderr.isatty() else 30.0  # a log file gets a line now and then, a terminal a live clock
    last = time.monotonic()
    try:
        while thread.is_alive():
            thread.join(0.25)
            if tick is not None and time.monotonic() - last >= every:
                tick()
                last = time.monotonic()
    except BaseException:
        stop_live_kernels()
        thread.join(10)
        raise
    seconds = time.perf_counter() - started
    limit = cell_timeout or CELL_TIMEOUT_SECONDS[bool(fast)]
    status, reason = ("ok", "") if "error" not in outcome else _classify(outcome["error"], limit)
    if not target.exists():  # papermill stopped before writing anything: keep the notebook for the report
        shutil.copyfile(source, target)
    if log.exists() and not log.stat().st_size:
        log.unlink()
    from evalkit.claims.record import read_plans

    return NotebookResult(source.stem, status, reason, round(seconds, 2), dict(applied), list(not_applicable), load,
                          read_plans(target))


def code_version() -> str:
    """The code that ran: the git commit of the checkout the package is installed from (``-dirty`` with uncommitted
    changes), else the installed distribution's version."""
    import subprocess

    here = Path(__file__).resolve().parents[2]
    if (here / ".git").exists():
        try:
            described = subprocess.run(["git", "-C", str(here), "describe", "--always", "--dirty", "--abbrev=12"],
                                       capture_output=True, text=True, timeout=10)
            if described.returncode == 0 and described.stdout.strip():
                return f"git {described.stdout.strip()}"
        except (OSError, subprocess.SubprocessError):
            pass
    try:
        from importlib.metadata import version

        return f"evalkit {version('evalkit')}"
    except Exception:
        return "unknown"


def resolve_dataset(dataset: str, fast: bool = False) -> str:
    """``synthetic`` and ``trec8`` as they are; ``auto`` → ``trec8`` if its files are found, else ``synthetic``
    (:func:`evalkit.data.datasets.resolve_auto`); anything else a path, made absolute against the current folder."""
    from evalkit.data.datasets import resolve_auto

    dataset = resolve_auto(str(dataset), fast)
    if dataset in _NAMED_DATASETS:
        return dataset
    return os.path.realpath(os.path.expanduser(dataset))


def check_dataset(dataset: str, fast: bool = False) -> dict:
    """Load the dataset once, here, so a bad file stops the batch with one line before any notebook starts.

    Returns facts for the report. The loader's own errors (``TrecFormatError``, ``DatasetNotFound``,
    ``PoolMetadataError``: each names its file) pass through; anything else is re-raised as
    :class:`DatasetCheckFailed` naming the dataset.
    """
    from evalkit.data.datasets import DatasetNotFound, load_dataset
    from evalkit.data.folder import PoolMetadataError
    from evalkit.data.trec_files import TrecFormatError

    try:
        collection = load_dataset(dataset, fast=fast)
    except (TrecFormatError, DatasetNotFound, PoolMetadataError, DatasetCheckFailed):
        raise
    except Exception as exc:
        raise DatasetCheckFailed(f"dataset {dataset!r} could not be loaded: {type(exc).__name__}: "
                                 f"{one_line(exc)}") from None
    facts = {"name": collection.name, "runs": int(collection.n_runs), "topics": int(collection.n_topics),
             "ranking depth": int(collection.depth)}
    try:
        facts["judged runs"] = int(collection.judged_runs.sum())
    except Exception:  # a collection without pool information
        pass
    for key, value in (getattr(collection, "metadata", None) or {}).items():
        if isinstance(value, (str, int, float, bool)) and key not in facts:
            facts[str(key)] = value
    return facts


@dataclass
class BatchOutcome:
    """A finished batch: where the report is and what happened to each notebook."""

    folder: Path
    label: str
    results: list[NotebookResult]

    @property
    def failed(self) -> list[NotebookResult]:
        return [r for r in self.results if r.status == "failed"]

    @property
    def nothing_ran(self) -> bool:
        """Every notebook was skipped: the batch measured nothing, which is not a success."""
        return bool(self.results) and all(r.status == "skipped" for r in self.results)

    def summary(self) -> str:
        counts = {s: sum(r.status == s for r in self.results) for s in ("ok", "skipped", "failed")}
        text = (f"{len(self.results)} notebook{'s' if len(self.results) != 1 else ''} on {self.label}: "
                f"{counts['ok']} ok, {counts['skipped']} skipped, {counts['failed']} failed")
        if self.nothing_ran:
            text += ("\nnothing ran: every notebook was skipped, so nothing was measured; the report's first line says "
                     "why and what to write")
        elif counts["skipped"]:
            text += " (skipped is not a failure: the collection lacks what the notebook needs; reasons in the report)"
        return text + f"\nreport: {self.folder / 'index.html'}"


def _status_line(result: NotebookResult) -> str:
    reason = f": {result.reason}" if result.reason else ""
    return f"{result.name}: {result.status} ({result.seconds:.0f} s){reason}"


def _quiet_signals():
    """Ignore SIGINT/SIGTERM while cleaning up after one (a second Ctrl-C must not leave half a cleanup)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    previous = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        previous[signum] = signal.signal(signum, signal.SIG_IGN)
    return previous


def run_notebooks(dataset: str = "auto", fast: bool = False, out: str | os.PathLike | None = None,
                  only=None, kernel: str | None = None, parameters: dict | None = None,
                  notebooks: str | os.PathLike | None = None, cell_timeout: int | None = None,
                  command: str | None = None) -> BatchOutcome:
    """Execute the notebooks and publish the report in ``out`` (default ``outputs/<label>`` beside the notebooks
    folder, the label from :func:`evalkit.batch.outputs.output_label`). See the module docstring for the rules.

    ``parameters`` (name → value) go to the notebooks whose parameters cell has them; a name no notebook has is
    an error. Returns a :class:`BatchOutcome`; raises :class:`BatchInterrupted` if stopped by a signal.
    """
    from tqdm.auto import tqdm

    paths = notebook_paths(only, notebooks)
    parameters = dict(parameters or {})
    routes = route_parameters(parameters, {p.stem: notebook_parameters(p) for p in paths})
    check_parameters(routes, {p.stem: p for p in paths})  # every value against its declared type, before any kernel
    given_dataset, dataset = dataset, resolve_dataset(dataset, fast) if str(dataset) == "auto" else dataset
    label = output_label(dataset, fast)
    target = resolve_target(out) if out else default_base(paths[0].parent) / "outputs" / label
    check_target(target, str(out) if out else None)
    resolved = resolve_dataset(dataset)
    facts = check_dataset(resolved, fast=fast)

    record = {"dataset": {"given": str(given_dataset), "resolved": resolved, "label": label, "facts": facts},
              "fast": bool(fast), "parameters": parameters, "started": time.strftime("%Y-%m-%d %H:%M:%S"),
              "load": {"start": list(os.getloadavg()) if hasattr(os, "getloadavg") else []},
              "cpus": os.cpu_count(), "python": platform.python_version(), "command": command or ""}
    try:
        from importlib.metadata import version

        record["evalkit"] = version("evalkit")
    except Exception:
        pass
    record["code_version"] = code_version()
    started = time.perf_counter()
    results: list[NotebookResult] = []
    staging = Staging(target)
    try:
        with staging:
            bar = tqdm(paths, desc=f"notebooks ({label})", unit="nb")
            for source in bar:
                bar.set_postfix_str(source.stem, refresh=True)
                applied, not_applicable = routes[source.stem]
                result = _execute(source, staging.path / source.name, resolved, fast, kernel, applied,
                                  not_applicable, cell_timeout, tick=bar.refresh)
                results.append(result)
                tqdm.write(_status_line(result))
            bar.close()
            record.update(notebooks=[asdict(r) for r in results], finished=time.strftime("%Y-%m-%d %H:%M:%S"),
                          seconds=round(time.perf_counter() - started, 1))
            record["load"]["end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else []
            (staging.path / BATCH_RECORD).write_text(json.dumps(record, indent=1, default=str) + "\n")
            write_report(staging.path, dataset=label, progress=True)
            staging.publish()
    except KeyboardInterrupt as exc:
        previous = _quiet_signals()
        try:
            from evalkit.batch.kernel import stop_live_kernels

            stop_live_kernels()
            staging.discard()
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        if staging.published:
            detail = f"the signal came as the report was published: {target / 'index.html'} is complete"
        else:
            shown = f"{target} is as it was" if target.exists() else f"{target} was not created"
            detail = (f"the batch stopped after {len(results)} of {len(paths)} notebooks; nothing was published "
                      f"and {shown}")
        interrupted = BatchInterrupted(detail)
        interrupted.signum = getattr(exc, "signum", signal.SIGINT)
        interrupted.signal_name = getattr(exc, "signal_name", "SIGINT")
        raise interrupted from None
    return BatchOutcome(target, label, results)
