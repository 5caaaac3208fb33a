"""One trial executor for every experiment: serial, local processes, or Dask.

Every experiment in evalkit repeats a randomized trial (a random split of runs, a random sample
of documents, ...) many times. :func:`run_trials` runs ``fn(trial_index, trial_seed, *args,
**kwargs)`` for ``trial_index = 0 .. n_trials - 1`` and returns the results in trial order.

Seeds
-----
Per-trial seeds come from ``numpy.random.SeedSequence(seed).spawn(n_trials)``; trial k receives
the Python int ``children[k].generate_state(1, dtype=numpy.uint64)[0]`` (a 64-bit integer).
An int, rather than the SeedSequence object, is passed because it can be printed, stored in a
results DataFrame and typed back in to re-run one trial on its own: ``fn(k, trial_seeds(seed,
n_trials)[k], ...)``. Inside ``fn`` use ``numpy.random.default_rng(trial_seed)``. The seeds are
computed in the calling process before any work is handed out, so the results are identical for
every scheduler and every ``n_jobs``.

Schedulers
----------
``"serial"``  in-process loop.
``"local"``   ``concurrent.futures.ProcessPoolExecutor`` with ``n_jobs`` workers (default
              ``os.cpu_count()``; negative values count back from it, -1 = all CPUs). With
              ``n_jobs == 1`` or a single trial it runs serially in-process (no pool).
``"dask"``    ``dask.distributed``: the active client (``distributed.get_client()``) if there is
              one, otherwise a ``LocalCluster`` with ``n_jobs`` single-threaded worker processes
              created for this call and closed afterwards (:func:`local_dask_cluster`).

``scheduler=None`` means the environment variable ``EVALKIT_SCHEDULER`` if set, else "local".

Progress
--------
The tqdm bar advances once per completed trial, in the order trials complete, on every scheduler
(the pools are waited on with ``FIRST_COMPLETED`` / ``distributed.as_completed``); the returned
list is still in trial order.

Dask workers, and the ``if __name__ == "__main__":`` guard
----------------------------------------------------------
Dask starts its worker processes with multiprocessing's "spawn" (evalkit's clusters: "forkserver",
which prepares each worker the same way), which normally re-runs the calling script in every worker:
a script that calls ``run_trials(..., scheduler="dask")`` at top level, without an
``if __name__ == "__main__":`` guard, would start clusters from its workers. The clusters
evalkit starts itself (:func:`local_dask_cluster`, and the one ``run_trials`` creates when no
client is active) hide the script from multiprocessing while the workers start,
so workers never re-run it: no guard is needed, and workers start faster. Trial functions defined
in the script still reach the workers (Dask pickles them by value). A cluster you start yourself
with ``distributed.LocalCluster`` in a script needs the guard as usual (Dask's rule); if the guard
is missing, run_trials says so in its error.

evalkit's clusters fork their workers from a forkserver started for the cluster, which imports Dask's
worker, numpy, pandas, scipy and evalkit's trial modules once (:data:`WORKER_PRELOAD`, and the trial
function's module when it is evalkit's); spawned workers would each import them (0.5-0.9 s of CPU each,
both cores busy at once on two), and then import the payload's modules again when it arrives. In a process
that has not imported Dask yet, the forkserver starts first, so its imports and the caller's import of Dask run
on two cores at once (0.15-0.2 s of a first call). The forkserver is stopped with the cluster, so no process
outlives it and a later cluster never runs modules imported before an edit. A forkserver started by other code
is not used (nor stopped): the workers are then spawned. Forking the workers from the calling process instead
(Dask's "fork" method) is not safe: a second Dask call in the same process hangs, the forked worker inheriting a
thread pool whose thread does not exist in it (``distributed.utils._offload_executor``, used to deserialize large
messages).

Dask's nanny sets ``MALLOC_TRIM_THRESHOLD_=65536`` in its workers' environment, which makes glibc
return every large numpy temporary to the kernel at once (mmap/munmap on each allocation: many
times the page faults, trials 1.5-3x slower). evalkit's clusters start their workers (and their
forkserver) without it (``distributed.nanny.pre-spawn-environ``), with :data:`WORKER_MALLOC` instead (freed
memory kept for the next trial), without Dask's statistical profiler (a
stack sample every 10 ms, which slowed trials by more than half again), and with the event-loop
watchdog ticking every second instead of every 20 ms (:data:`_QUIET_LOOPS`; an idle 2-worker cluster's
processes used 0.04-0.06 s of CPU a second with Dask's intervals, 0.02 s with these), so a Dask worker
runs trials about as fast as a local process.

Shared arguments
----------------
``fn``, ``args`` and ``kwargs`` (typically large numpy arrays: run matrices, qrels) are sent to
each worker once, not once per trial: the process pool stores them in a module global through
its initializer; Dask scatters them once with ``client.scatter(..., broadcast=True)``. Only
``(trial_index, trial_seed)`` travels per trial. Send only what trials read:
:func:`trial_collection` gives the part of a :class:`~evalkit.data.collection.Collection` trials
usually need (document ids, qrels, run metadata), without the scores, the docno strings and any
cached grades (a third of TREC-8's size).

Requirements on ``fn``: for "local" and "dask" it must be picklable by reference, i.e. defined
at module level in an importable module (not a lambda and not a function defined in a notebook
cell when processes are spawned), and its results must be picklable.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, Callable, Sequence

import numpy as np

__all__ = [
    "SCHEDULERS",
    "SCHEDULER_ENV_VAR",
    "run_trials",
    "run_tasks",
    "trial_seeds",
    "resolve_scheduler",
    "trial_collection",
    "local_dask_cluster",
    "bootstrap_mean_demo",
]

SCHEDULERS = ("local", "serial", "dask")
SCHEDULER_ENV_VAR = "EVALKIT_SCHEDULER"


# --------------------------------------------------------------------------------------------
# seeds and options
# --------------------------------------------------------------------------------------------


def trial_seeds(seed, n_trials: int) -> list[int]:
    """The per-trial seeds :func:`run_trials` passes to ``fn``: for each child of
    ``SeedSequence(seed).spawn(n_trials)``, ``int(child.generate_state(1, dtype=np.uint64)[0])``.

    ``seed`` is an int (>= 0) or a ``numpy.random.SeedSequence``; None is refused because
    every random choice in evalkit must be reproducible.
    """
    if seed is None:
        raise ValueError("seed must be an int or a numpy.random.SeedSequence, not None (results must be reproducible)")
    if isinstance(seed, (bool, np.bool_)):
        raise TypeError("seed must be an int or a numpy.random.SeedSequence, not a bool")
    n_trials = _check_n_trials(n_trials)
    sequence = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return [int(child.generate_state(1, dtype=np.uint64)[0]) for child in sequence.spawn(n_trials)]


def _check_n_trials(n_trials) -> int:
    if isinstance(n_trials, (bool, np.bool_)) or not isinstance(n_trials, (int, np.integer)):
        raise TypeError(f"n_trials must be an int; got {type(n_trials).__name__}")
    if n_trials < 0:
        raise ValueError(f"n_trials must be >= 0; got {n_trials}")
    return int(n_trials)


def resolve_scheduler(scheduler: str | None = None) -> str:
    """The scheduler name to use: ``scheduler`` if given, else ``$EVALKIT_SCHEDULER``, else
    "local". Raises ValueError naming the valid choices for an unknown name."""
    source = "scheduler argument"
    if scheduler is None:
        scheduler = os.environ.get(SCHEDULER_ENV_VAR) or "local"
        source = f"environment variable {SCHEDULER_ENV_VAR}" if os.environ.get(SCHEDULER_ENV_VAR) else "default"
    if not isinstance(scheduler, str):
        raise TypeError(f"scheduler must be a string, one of {SCHEDULERS}; got {type(scheduler).__name__}")
    name = scheduler.strip().lower()
    if name not in SCHEDULERS:
        raise ValueError(f"unknown scheduler {scheduler!r} (from {source}); choose one of {', '.join(SCHEDULERS)}")
    return name


def _resolve_n_jobs(n_jobs: int | None) -> int:
    cpus = os.cpu_count() or 1
    if n_jobs is None:
        return cpus
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a non-zero int or None; got {n_jobs!r}")
    if n_jobs < 0:  # scikit-learn convention: -1 = all CPUs, -2 = all but one, ...
        return max(1, cpus + 1 + int(n_jobs))
    return int(n_jobs)


def _progress_bar(progress: bool, total: int, desc: str | None):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, disable=not progress)


def _add_trial_note(error: BaseException, trial_index: int, trial_seed: int) -> None:
    if hasattr(error, "add_note"):
        error.add_note(f"evalkit.parallel.run_trials: raised by trial {trial_index} (trial_seed={trial_seed})")


# --------------------------------------------------------------------------------------------
# the executor
# --------------------------------------------------------------------------------------------


def run_trials(
    fn: Callable[..., Any],
    n_trials: int,
    seed,
    *,
    args: Sequence[Any] = (),
    kwargs: dict[str, Any] | None = None,
    scheduler: str | None = None,
    n_jobs: int | None = None,
    progress: bool = True,
    desc: str | None = None,
) -> list:
    """Run ``fn(trial_index, trial_seed, *args, **kwargs)`` for every trial; results in trial order.

    Parameters
    ----------
    fn : the trial function (module-level, see the module docstring).
    n_trials : number of trials (0 returns []).
    seed : int or numpy.random.SeedSequence; the per-trial seeds are :func:`trial_seeds`.
    args, kwargs : shared arguments, sent to each worker once.
    scheduler : "local", "serial" or "dask"; None = ``$EVALKIT_SCHEDULER`` or "local".
    n_jobs : worker processes for "local" (and for a Dask LocalCluster created by this call);
        None = ``os.cpu_count()``, -1 = all CPUs. Ignored for "serial" and for an existing Dask
        client.
    progress : show a tqdm progress bar over completed trials.
    desc : label of the progress bar.

    Returns
    -------
    list of the ``n_trials`` return values, ``result[k]`` from trial k, the same for every
    scheduler and n_jobs.

    A trial that raises stops the run: pending trials are cancelled and the exception is
    re-raised with a note naming the trial index and its seed.
    """
    seeds = trial_seeds(seed, n_trials)
    return run_tasks(fn, list(enumerate(seeds)), args=args, kwargs=kwargs, scheduler=scheduler, n_jobs=n_jobs,
                     progress=progress, desc=desc, what="trial")


def run_tasks(
    fn: Callable[..., Any],
    tasks: Sequence[tuple],
    *,
    args: Sequence[Any] = (),
    kwargs: dict[str, Any] | None = None,
    scheduler: str | None = None,
    n_jobs: int | None = None,
    progress: bool = True,
    desc: str | None = None,
    what: str = "task",
) -> list:
    """Run ``fn(*task, *args, **kwargs)`` for every tuple in ``tasks``; results in task order.

    The executor behind :func:`run_trials` (whose tasks are ``(trial_index, trial_seed)``), for work that is
    not a seeded trial, e.g. evaluating blocks of run files (:mod:`evalkit.measures.streaming`). Each task tuple travels to
    its worker on its own (keep it small: file names, indices); ``args`` and ``kwargs`` are sent to each worker
    once. Schedulers, ``n_jobs``, the progress bar and errors as in :func:`run_trials`; a failing task's error gets
    a note naming ``what`` and its position.
    """
    scheduler_name = resolve_scheduler(scheduler)
    tasks = [tuple(task) for task in tasks]
    args = tuple(args)
    kwargs = dict(kwargs or {})
    if not callable(fn):
        raise TypeError(f"fn must be callable; got {type(fn).__name__}")
    if not tasks:
        return []
    run = _Run(fn, tasks, args, kwargs, progress, desc, what)
    if scheduler_name == "serial":
        return _run_serial(run)
    if scheduler_name == "local":
        workers = min(_resolve_n_jobs(n_jobs), len(tasks))
        if workers == 1:
            return _run_serial(run)
        return _run_process_pool(run, workers)
    return _run_dask(run, n_jobs)


class _Run:
    """One call of :func:`run_tasks`: what to run and how to report it."""

    def __init__(self, fn, tasks, args, kwargs, progress, desc, what):
        self.fn, self.tasks, self.args, self.kwargs = fn, tasks, args, kwargs
        self.progress, self.desc, self.what = progress, desc, what

    def bar(self):
        return _progress_bar(self.progress, len(self.tasks), self.desc)

    def add_note(self, error: BaseException, index: int) -> None:
        if not hasattr(error, "add_note"):
            return
        if self.what == "trial":
            _add_trial_note(error, *self.tasks[index][:2])
        else:
            error.add_note(f"evalkit.parallel.run_tasks: raised by {self.what} {index} {self.tasks[index]!r}")


def _run_serial(run: _Run) -> list:
    results = []
    with run.bar() as bar:
        for index, task in enumerate(run.tasks):
            try:
                results.append(run.fn(*task, *run.args, **run.kwargs))
            except Exception as error:
                run.add_note(error, index)
                raise
            bar.update(1)
    return results


# ---- process pool: the shared payload lives in a module global of each worker process ----

_WORKER_PAYLOAD: tuple | None = None


def _init_worker(fn, args, kwargs) -> None:
    global _WORKER_PAYLOAD
    _WORKER_PAYLOAD = (fn, args, kwargs)


def _run_one_in_worker(*task):
    fn, args, kwargs = _WORKER_PAYLOAD
    return fn(*task, *args, **kwargs)


def _run_process_pool(run: _Run, workers: int) -> list:
    results: list = [None] * len(run.tasks)
    with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker,
                             initargs=(run.fn, run.args, run.kwargs)) as pool:
        future_to_index = {pool.submit(_run_one_in_worker, *task): index for index, task in enumerate(run.tasks)}
        pending = set(future_to_index)
        with run.bar() as bar:
            try:
                while pending:
                    # FIRST_COMPLETED: the bar moves as each task ends, and a failed task stops the run at once
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in sorted(done, key=future_to_index.__getitem__):
                        index = future_to_index[future]
                        error = future.exception()
                        if error is not None:
                            run.add_note(error, index)
                            raise error
                        results[index] = future.result()
                        bar.update(1)
            except BaseException:
                for future in pending:
                    future.cancel()
                raise
    return results


# ---- dask: the shared payload is scattered once to every worker ----


def _run_one_with_payload(payload, *task):
    fn, args, kwargs = payload
    return fn(*task, *args, **kwargs)


#: the glibc setting Dask's nanny puts in its workers' environment (``distributed.nanny.pre-spawn-environ``)
_MALLOC_TRIM = "MALLOC_TRIM_THRESHOLD_"
#: its value there in Dask's own configuration (distributed.yaml)
_DASK_MALLOC_TRIM = "65536"

#: glibc's allocator in evalkit's worker processes (read when the forkserver, or a spawned worker, starts): arrays up
#: to 64 MiB come from the heap rather than fresh mmaps, and freed memory up to 256 MiB is kept for the next trial
#: instead of going back to the kernel. A fresh worker otherwise pays page faults on every trial's temporaries that a
#: long-running process no longer pays (Voorhees 2014, 50 trials on 2 workers: 9.7 s with glibc's defaults, 9.2-9.4 s
#: with these). Only evalkit's own workers get them; the calling process is left as it is.
WORKER_MALLOC = {"MALLOC_MMAP_THRESHOLD_": str(1 << 26), _MALLOC_TRIM: str(1 << 28)}

#: what the forkserver of evalkit's clusters imports once, so its forked workers need not: Dask's worker, numpy, and
#: evalkit's modules trials use (pandas and scipy with them). A trial function's own evalkit module is added.
WORKER_PRELOAD = ("distributed", "numpy", "evalkit.data.collection", "evalkit.measures.evaluation", "evalkit.measures.inferred",
                  "evalkit.judging.stratified_sampling", "evalkit.stats", "evalkit.parallel")

#: Dask settings of evalkit's clusters that leave the trials more CPU and change no result: the event-loop watchdog
#: ticks every second instead of every 20 ms and the system monitor samples every 2 s instead of 0.5 s (both only
#: feed warnings and the dashboard; they woke the scheduler, nannies and workers 50 times a second)
_QUIET_LOOPS = {"distributed.admin.tick.interval": "1s", "distributed.admin.system-monitor.interval": "2s"}


def _run_dask(run: _Run, n_jobs) -> list:
    import importlib.util

    if importlib.util.find_spec("distributed") is None:  # pragma: no cover - depends on the environment
        raise ImportError("scheduler='dask' needs dask.distributed: pip install 'dask[distributed]'")
    # an active client (the user's cluster) exists only if this process has imported distributed; if it has not,
    # the cluster's forkserver starts before distributed is imported here, so the two imports overlap (0.2 s)
    if "distributed" in sys.modules:
        import distributed

        try:
            client = distributed.get_client()
        except ValueError:
            client = None
        if client is not None:
            return _run_on_client(client, run)

    _refuse_while_importing_main()
    workers = min(_resolve_n_jobs(n_jobs), len(run.tasks))
    with local_dask_cluster(workers, preload=_modules_of(run.fn)) as cluster:
        import distributed

        with distributed.Client(cluster, set_as_default=False) as own_client:
            return _run_on_client(own_client, run)


def _modules_of(fn) -> tuple[str, ...]:
    """``fn``'s module if it is part of evalkit (its workers then import nothing on the first trial). Other modules
    are left to the workers: one that fails to import in a fresh interpreter would stop the forkserver."""
    module = getattr(fn, "__module__", None) or ""
    return (module,) if module.startswith("evalkit.") else ()


def _refuse_while_importing_main() -> None:
    """A clear error instead of a cluster started from a worker that is re-running the user's script."""
    main = sys.modules.get("__main__")
    if getattr(main, "__name__", None) == "__mp_main__":
        raise RuntimeError(
            "evalkit.parallel.run_trials was called while a worker process was importing your script "
            f"({getattr(main, '__file__', '?')}): a Dask cluster started by the script itself re-runs it in each "
            "worker. Put the script's work under `if __name__ == \"__main__\":`, or let evalkit start the cluster "
            "(run_trials(..., scheduler='dask') with no active client, or evalkit.parallel.local_dask_cluster()), "
            "which needs no guard."
        )


@contextmanager
def _script_hidden_from_spawn():
    """While worker processes start, hide ``__main__``'s file and module name from multiprocessing, so spawned
    workers do not re-run the calling script (no ``if __name__ == "__main__":`` guard needed; faster start).
    Restored afterwards. Nothing changes in Jupyter, whose ``__main__`` has no file."""
    main = sys.modules.get("__main__")
    saved = {key: main.__dict__[key] for key in ("__file__", "__spec__") if main is not None and key in main.__dict__}
    if main is not None and "__file__" in saved:
        del main.__dict__["__file__"]
        main.__dict__["__spec__"] = None
    try:
        yield
    finally:
        if main is not None:
            main.__dict__.update(saved)


def _dask_malloc_trim() -> str:
    """The ``MALLOC_TRIM_THRESHOLD_`` Dask's nannies set: Dask's configured value once Dask is imported. Before that
    no nanny has run in this process, and Dask is not imported just to ask (it would delay the forkserver's start):
    Dask's built-in value, which a parent process's nanny may have passed down."""
    dask = sys.modules.get("dask")
    config = getattr(dask, "config", None)
    if config is None:
        return _DASK_MALLOC_TRIM
    return str(config.get(f"distributed.nanny.pre-spawn-environ.{_MALLOC_TRIM}", default=None))


@contextmanager
def _worker_malloc_environment():
    """While worker processes (and their forkserver) start, ``os.environ`` holds :data:`WORKER_MALLOC` in place of
    Dask's ``MALLOC_TRIM_THRESHOLD_=65536`` (left there by a nanny started earlier in this process with Dask's
    defaults, and inherited by new processes). A value of the user's own is kept. Restored afterwards."""
    dask_default = _dask_malloc_trim()
    saved = {name: os.environ.get(name) for name in WORKER_MALLOC}
    for name, value in WORKER_MALLOC.items():
        if saved[name] is None or (name == _MALLOC_TRIM and saved[name] == dask_default):
            os.environ[name] = value
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextmanager
def _worker_start_method(preload: Sequence[str]):
    """Yield how the cluster starts its workers: ``"forkserver"`` with a forkserver started here, which imports
    ``preload`` once for every worker forked from it (a spawned worker imports them itself, each worker on its own
    core at once), stopped on exit so no process outlives the cluster and no later cluster gets modules imported
    before an edit; or ``"spawn"`` when the platform has no forkserver or one started elsewhere is running (its
    imports and environment are not evalkit's to vouch for)."""
    import multiprocessing
    import multiprocessing.forkserver as forkserver

    server = getattr(forkserver, "_forkserver", None)
    usable = ("forkserver" in multiprocessing.get_all_start_methods() and hasattr(server, "_stop")
              and getattr(server, "_forkserver_pid", 0) is None)
    if not usable:
        yield "spawn"
        return
    previous_preload = list(getattr(server, "_preload_modules", ["__main__"]))
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(dict.fromkeys(preload)))
    try:
        with _worker_malloc_environment():
            forkserver.ensure_running()  # returns at once: the server's imports overlap the scheduler's start-up
        yield "forkserver"
    finally:
        _stop_forkserver(server)
        context.set_forkserver_preload(previous_preload)


def _stop_forkserver(server) -> None:
    """Stop the forkserver evalkit started, once its workers are gone. Left to exit by itself, it would spend ~0.2 s
    unloading pandas and scipy while the call waits; it holds nothing to release, so it is terminated (it has no
    handler for SIGTERM) and reaped by ``ForkServer._stop``, the method CPython's own tests use (nothing public
    stops a forkserver)."""
    import signal

    pid = getattr(server, "_forkserver_pid", None)
    if pid is not None:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:  # pragma: no cover - it ended already; _stop reaps it
            pass
    server._stop()


@contextmanager
def local_dask_cluster(n_workers: int | None = None, *, profile: bool = False, preload: Sequence[str] = (),
                       **cluster_options):
    """A ``distributed.LocalCluster`` of ``n_workers`` single-threaded worker processes (default: all CPUs) set
    up for trials, closed on exit::

        with evalkit.parallel.local_dask_cluster(2) as cluster, distributed.Client(cluster):
            result = voorhees2014.run_experiment(gold, scheduler="dask")   # uses the active client

    Its workers are forked from a forkserver that imported Dask's worker and evalkit's trial modules once
    (:data:`WORKER_PRELOAD` and the modules in ``preload``; stopped with the cluster), start with
    :data:`WORKER_MALLOC` instead of Dask's ``MALLOC_TRIM_THRESHOLD_=65536`` (see the module docstring), without
    Dask's statistical profiler (a stack sample
    of the running task every 10 ms: 12 Voorhees 2014 trials took 28 s with it and 16 s without; ``profile=True``
    keeps it, for the dashboard's profile page), with the event-loop watchdog and system monitor waking their
    event loops less often (:data:`_QUIET_LOOPS`), and without re-running the calling script, so a script needs no
    ``if __name__ == "__main__":`` guard. ``cluster_options`` go to ``LocalCluster`` (defaults:
    ``threads_per_worker=1``, ``processes=True``, its HTTP server on a free port).
    """
    options = {"threads_per_worker": 1, "processes": True, "dashboard_address": ":0", **cluster_options}
    _refuse_while_importing_main()
    # the forkserver starts first: its imports run on one core while this process imports Dask on the other
    with _worker_start_method(WORKER_PRELOAD + tuple(preload)) as start_method:
        import dask
        import distributed

        settings = {f"distributed.nanny.pre-spawn-environ.{_MALLOC_TRIM}": None,
                    "distributed.worker.profile.enabled": bool(profile),
                    "distributed.worker.multiprocessing-method": start_method, **_QUIET_LOOPS}
        with _worker_malloc_environment(), dask.config.set(settings), _script_hidden_from_spawn():
            cluster = distributed.LocalCluster(n_workers=_resolve_n_jobs(n_workers), **options)
        with cluster:
            yield cluster


def _run_on_client(client, run: _Run) -> list:
    import distributed

    # scatter a one-element list so the (fn, args, kwargs) tuple travels as ONE object (a bare
    # tuple would be scattered element by element); hash=False skips tokenizing the data.
    # broadcast=True replicates it to every worker once; tasks only receive its key.
    [payload] = client.scatter([(run.fn, run.args, run.kwargs)], broadcast=True, hash=False)
    futures = [client.submit(_run_one_with_payload, payload, *task, pure=False) for task in run.tasks]
    future_to_index = {future.key: index for index, future in enumerate(futures)}
    results: list = [None] * len(run.tasks)
    try:
        with run.bar() as bar:
            for future in distributed.as_completed(futures, loop=client.loop):  # one update per completed task
                index = future_to_index[future.key]
                try:
                    results[index] = future.result()
                except Exception as error:
                    run.add_note(error, index)
                    raise
                bar.update(1)
    except BaseException:
        client.cancel(futures)
        raise
    finally:
        client.cancel([payload])  # release the scattered shared arguments
    return results


# --------------------------------------------------------------------------------------------
# what trials read
# --------------------------------------------------------------------------------------------


class _NotSent:
    """Stands in for a collection attribute that :func:`trial_collection` leaves out: any use says so."""

    def __init__(self, what: str, length: int | None = None):
        self._what, self._length = what, length

    def __len__(self) -> int:
        if self._length is None:
            self._fail()
        return self._length

    def _fail(self, *_, **__):
        raise AttributeError(
            f"Collection.{self._what} was left out by evalkit.parallel.trial_collection (trials get the document "
            "ids, qrels and run metadata only); pass the full collection to run_trials if a trial reads it"
        )

    __getattr__ = __getitem__ = __iter__ = __array__ = _fail

    def __reduce__(self):
        return (_NotSent, (self._what, self._length))


def trial_collection(collection):
    """The part of a :class:`~evalkit.data.collection.Collection` that trials usually read, to send to workers: the
    document ids (``docs``), the qrels, topic and run names, ``runs_info`` and ``metadata``. Left out: ``scores``
    (8 bytes a cell), the docno strings (``vocabulary`` keeps only its length, which lookups need) and cached
    values such as ``default_grades``. Reading a left-out attribute raises an AttributeError that says so.
    On TREC-8: 27 MB to pickle instead of 93 MB. Already trimmed collections are returned as they are."""
    if isinstance(collection.scores, _NotSent):
        return collection
    return replace(collection, scores=_NotSent("scores"), vocabulary=_NotSent("vocabulary", len(collection.vocabulary)))


# --------------------------------------------------------------------------------------------
# demo trial function (module level so every executor can pickle it; used by the tests)
# --------------------------------------------------------------------------------------------


def bootstrap_mean_demo(trial_index: int, trial_seed: int, values, n_draws: int | None = None) -> float:
    """Demo trial: the mean of one bootstrap resample of ``values`` drawn with
    ``numpy.random.default_rng(trial_seed)``. Shows the shape every trial function has
    (``trial_index, trial_seed`` first, shared data after) and serves as the executor tests'
    fixture: the same seed gives the same number on every scheduler.
    """
    data = np.asarray(values, dtype=np.float64)
    rng = np.random.default_rng(trial_seed)
    size = data.size if n_draws is None else int(n_draws)
    return float(data[rng.integers(0, data.size, size=size)].mean())
