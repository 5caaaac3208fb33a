"""Tests for evalkit.parallel.run_trials: same seed -> same results on every scheduler, results
in trial order, shared arguments sent once per worker, clear errors."""

import importlib.util
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from evalkit import parallel
from evalkit.parallel import (
    bootstrap_mean_demo,
    run_trials,
    trial_collection,
    trial_seeds,
)

HAS_DISTRIBUTED = importlib.util.find_spec("distributed") is not None
VALUES = np.arange(1.0, 31.0) ** 1.5
SEED = 20140706
N_TRIALS = 12


class PickleCountingArray(np.ndarray):
    """An ndarray that counts how often it is pickled in this (the parent) process; it unpickles
    as a plain ndarray, so workers need not import this test module."""

    pickle_count = 0

    def __reduce__(self):
        type(self).pickle_count += 1
        return (np.array, (self.view(np.ndarray).copy(),))


def trial_pid(trial_index, trial_seed):
    return os.getpid()


def fail_on_trial_three(trial_index, trial_seed):
    if trial_index == 3:
        raise RuntimeError("trial three fails")
    return trial_index


def last_trial_waits_for_release(trial_index, trial_seed, release_file, n_trials, timeout=30.0):
    """Trials end at once except the last, which waits until ``release_file`` exists (created by the progress bar
    when it has counted every other trial) or ``timeout`` seconds pass."""
    if trial_index < n_trials - 1:
        return "done"
    deadline = time.monotonic() + timeout
    while not os.path.exists(release_file):
        if time.monotonic() > deadline:
            return "timed out: the progress bar had not moved"
        time.sleep(0.005)
    return "released"


#: a trial function giving the worker's glibc malloc settings as its process image started with them (a forked
#: worker: its forkserver's), which is what glibc's allocator read; ``os.environ`` may have been changed since (the
#: nanny sets it in the worker). Its source is also pasted into the scripts the tests below run.
WORKER_ENVIRONMENT_SOURCE = '''
def worker_environment(trial_index, trial_seed):
    with open("/proc/self/environ", "rb") as file:
        started = dict(item.split(b"=", 1) for item in file.read().split(b"\\0") if b"=" in item)
    names = (b"MALLOC_TRIM_THRESHOLD_", b"MALLOC_MMAP_THRESHOLD_")
    return tuple(started.get(name, b"unset").decode() for name in names)
'''
exec(WORKER_ENVIRONMENT_SOURCE)  # worker_environment, a module-level function of this module (pickled by reference)


#: what evalkit's workers are started with (evalkit.parallel.WORKER_MALLOC): 256 MiB, 64 MiB
KIT_MALLOC = (str(2**28), str(2**26))


def worker_profiling(trial_index, trial_seed):
    import dask

    return dask.config.get("distributed.worker.profile.enabled")


def worker_tick_interval(trial_index, trial_seed):
    import dask

    return dask.config.get("distributed.admin.tick.interval")


def worker_origin(trial_index, trial_seed):
    """The worker's pid, its parent's pid, and whether scipy (imported by evalkit.stats, which no trial here uses)
    was imported before this trial ran."""
    return os.getpid(), os.getppid(), "scipy" in sys.modules


def _forkserver():
    import multiprocessing.forkserver

    return multiprocessing.forkserver._forkserver


def _ended(pid: int) -> bool:
    """The process is gone (or a zombie waiting for a parent that is not ours to reap it)."""
    import psutil

    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


class ReleasingBar:
    """A stand-in for the tqdm bar: counts updates and creates ``release_file`` once ``n`` trials are counted."""

    def __init__(self, release_file, n):
        self.release_file, self.n, self.count, self.counts = release_file, n, 0, []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, k=1):
        self.count += k
        self.counts.append(self.count)
        if self.count == self.n:
            open(self.release_file, "w").close()


def expected_results(n_trials=N_TRIALS, seed=SEED):
    """The oracle: each trial's bootstrap mean computed directly from its documented seed."""
    sequence = np.random.SeedSequence(seed)
    results = []
    for child in sequence.spawn(n_trials):
        rng = np.random.default_rng(int(child.generate_state(1, dtype=np.uint64)[0]))
        results.append(float(VALUES[rng.integers(0, VALUES.size, size=VALUES.size)].mean()))
    return results


def test_trial_seeds_are_spawned_seed_sequence_states():
    seeds = trial_seeds(SEED, 5)
    children = np.random.SeedSequence(SEED).spawn(5)
    assert seeds == [int(child.generate_state(1, dtype=np.uint64)[0]) for child in children]
    assert len(set(seeds)) == 5
    assert trial_seeds(np.random.SeedSequence(SEED), 5) == seeds
    with pytest.raises(ValueError):
        trial_seeds(None, 5)


def test_serial_matches_direct_computation():
    results = run_trials(bootstrap_mean_demo, N_TRIALS, SEED, args=(VALUES,), scheduler="serial", progress=False)
    assert results == expected_results()
    assert len(set(results)) > 1  # trials really draw different samples


def test_local_two_jobs_identical_to_serial():
    serial = run_trials(bootstrap_mean_demo, N_TRIALS, SEED, args=(VALUES,), scheduler="serial", progress=False)
    local = run_trials(
        bootstrap_mean_demo, N_TRIALS, SEED, args=(VALUES,), scheduler="local", n_jobs=2, progress=False
    )
    assert local == serial == expected_results()


def test_kwargs_are_passed():
    results = run_trials(
        bootstrap_mean_demo, 4, SEED, args=(VALUES,), kwargs={"n_draws": 1}, scheduler="local", n_jobs=2, progress=False
    )
    assert all(value in VALUES for value in results)  # a one-draw bootstrap mean is a data value


def test_local_uses_worker_processes_and_single_trial_runs_in_process():
    pids = run_trials(trial_pid, 6, SEED, scheduler="local", n_jobs=2, progress=False)
    assert os.getpid() not in pids
    assert run_trials(trial_pid, 1, SEED, scheduler="local", n_jobs=2, progress=False) == [os.getpid()]
    assert run_trials(trial_pid, 3, SEED, scheduler="local", n_jobs=1, progress=False) == [os.getpid()] * 3


def test_local_sends_shared_arguments_once_per_worker_not_per_trial():
    shared = VALUES.copy().view(PickleCountingArray)
    PickleCountingArray.pickle_count = 0
    results = run_trials(bootstrap_mean_demo, 20, SEED, args=(shared,), scheduler="local", n_jobs=2, progress=False)
    assert results == expected_results(20)
    assert PickleCountingArray.pickle_count <= 2  # 0 with fork, one per worker with spawn/forkserver


def test_environment_variable_selects_scheduler(monkeypatch):
    monkeypatch.setenv("EVALKIT_SCHEDULER", "serial")
    assert parallel.resolve_scheduler() == "serial"
    assert run_trials(trial_pid, 4, SEED, n_jobs=2, progress=False) == [os.getpid()] * 4
    monkeypatch.setenv("EVALKIT_SCHEDULER", "threads")
    with pytest.raises(ValueError, match="EVALKIT_SCHEDULER"):
        run_trials(trial_pid, 4, SEED, progress=False)
    monkeypatch.delenv("EVALKIT_SCHEDULER")
    assert parallel.resolve_scheduler() == "local"


def test_unknown_scheduler_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown scheduler 'multiprocessing'.*local, serial, dask"):
        run_trials(trial_pid, 2, SEED, scheduler="multiprocessing", progress=False)


@pytest.mark.parametrize("scheduler", ["serial", "local"])
def test_failing_trial_is_reported(scheduler):
    with pytest.raises(RuntimeError, match="trial three fails") as info:
        run_trials(fail_on_trial_three, 6, SEED, scheduler=scheduler, n_jobs=2, progress=False)
    assert any("trial 3" in note for note in getattr(info.value, "__notes__", []))


def test_zero_trials_and_progress_bar(capsys):
    assert run_trials(trial_pid, 0, SEED, progress=False) == []
    results = run_trials(
        bootstrap_mean_demo, 3, SEED, args=(VALUES,), scheduler="serial", progress=True, desc="demo trials"
    )
    assert results == expected_results(3)
    assert "demo trials" in capsys.readouterr().err


def _check_progress_moves_before_last_trial_ends(monkeypatch, tmp_path, scheduler, n_trials=6):
    release = str(tmp_path / f"release-{scheduler}")
    bar = ReleasingBar(release, n_trials - 1)
    monkeypatch.setattr(parallel, "_progress_bar", lambda progress, total, desc: bar)
    results = run_trials(last_trial_waits_for_release, n_trials, SEED, args=(release, n_trials),
                         scheduler=scheduler, n_jobs=2)
    assert results == ["done"] * (n_trials - 1) + ["released"]  # in trial order; the last ended after the release
    assert bar.counts == list(range(1, n_trials + 1))  # one update per completed trial


@pytest.mark.parametrize("scheduler", ["serial", "local"])
def test_progress_moves_before_the_last_trial_ends(monkeypatch, tmp_path, scheduler):
    _check_progress_moves_before_last_trial_ends(monkeypatch, tmp_path, scheduler)


def test_trial_collection_keeps_what_trials_read():
    import pickle

    from conftest import random_collection

    from evalkit.judging.stratified_sampling import sample
    from evalkit.measures.inferred import inferred_measures

    collection = random_collection(1)
    collection.runs_info["judged"] = [True, False] * (collection.n_runs // 2)
    collection.default_grades  # a cache that must not travel
    slim = trial_collection(collection)
    assert trial_collection(slim) is slim
    assert len(pickle.dumps(slim)) < len(pickle.dumps(collection)) / 2
    slim = pickle.loads(pickle.dumps(slim))
    assert len(slim.vocabulary) == len(collection.vocabulary) and "default_grades" not in slim.__dict__
    np.testing.assert_array_equal(slim.grades(), collection.grades())
    drawn = sample(slim, "2strata", seed=3)
    full = sample(collection, "2strata", seed=3)
    for column in ("topic", "doc", "grade", "stratum"):
        np.testing.assert_array_equal(getattr(drawn.qrels, column), getattr(full.qrels, column))
    expected = inferred_measures(collection, drawn.qrels, ["infAP"])["infAP"]
    np.testing.assert_array_equal(inferred_measures(slim, drawn.qrels, ["infAP"])["infAP"], expected)
    with pytest.raises(AttributeError, match="scores was left out by evalkit.parallel.trial_collection"):
        slim.scores[0]
    with pytest.raises(AttributeError, match="vocabulary was left out"):
        slim.vocabulary[0]


@pytest.mark.skipif(not HAS_DISTRIBUTED, reason="dask.distributed is not installed")
def test_dask_identical_to_serial_with_existing_client_and_own_cluster(monkeypatch, tmp_path):
    import distributed

    serial = run_trials(bootstrap_mean_demo, N_TRIALS, SEED, args=(VALUES,), scheduler="serial", progress=False)
    shared = VALUES.copy().view(PickleCountingArray)
    with parallel.local_dask_cluster(2) as cluster, distributed.Client(cluster) as client:
        PickleCountingArray.pickle_count = 0
        on_client = run_trials(
            bootstrap_mean_demo, N_TRIALS, SEED, args=(shared,), scheduler="dask", progress=False
        )
        assert PickleCountingArray.pickle_count < 4  # scattered once, not pickled per trial (12)
        worker_pids = set(run_trials(trial_pid, 6, SEED, scheduler="dask", progress=False))
        assert os.getpid() not in worker_pids  # the trials ran on the cluster's workers
        assert len(client.scheduler_info()["workers"]) == 2
        # Dask's MALLOC_TRIM_THRESHOLD_=65536 is not in the workers' environment: evalkit's settings are
        assert set(run_trials(worker_environment, 4, SEED, scheduler="dask", progress=False)) == {KIT_MALLOC}
        # nor Dask's statistical profiler (a stack sample every 10 ms slowed trials by half again)
        assert set(run_trials(worker_profiling, 4, SEED, scheduler="dask", progress=False)) == {False}
        # the event-loop watchdog ticks every second, not every 20 ms
        assert set(run_trials(worker_tick_interval, 4, SEED, scheduler="dask", progress=False)) == {"1s"}
        with monkeypatch.context() as patch:
            _check_progress_moves_before_last_trial_ends(patch, tmp_path, "dask")
    assert on_client == serial == expected_results()
    # no active client: run_trials creates (and closes) its own LocalCluster
    own_cluster = run_trials(
        bootstrap_mean_demo, N_TRIALS, SEED, args=(VALUES,), scheduler="dask", n_jobs=2, progress=False
    )
    assert own_cluster == serial


@pytest.mark.skipif(not HAS_DISTRIBUTED, reason="dask.distributed is not installed")
def test_a_script_without_main_guard_runs_on_dask(tmp_path):
    """A script calling run_trials(scheduler="dask") at top level (no `if __name__ == "__main__":`) runs its top
    level once, gets the serial numbers, and its workers have evalkit's MALLOC_TRIM_THRESHOLD_, not Dask's."""
    script = tmp_path / "no_guard.py"
    script.write_text(WORKER_ENVIRONMENT_SOURCE + textwrap.dedent('''
        import os
        import numpy as np
        from evalkit.parallel import bootstrap_mean_demo, run_trials

        def environment(trial_index, trial_seed):  # defined in the script: reaches the workers by value
            return worker_environment(trial_index, trial_seed)[0], os.getpid()

        print("TOP LEVEL", flush=True)
        values = np.arange(1.0, 31.0) ** 1.5
        dask = run_trials(bootstrap_mean_demo, 6, 7, args=(values,), scheduler="dask", n_jobs=2, progress=False)
        serial = run_trials(bootstrap_mean_demo, 6, 7, args=(values,), scheduler="serial", progress=False)
        print("EQUAL", dask == serial)
        seen = run_trials(environment, 4, 7, scheduler="dask", n_jobs=2, progress=False)
        print("ENV", sorted({value for value, pid in seen}), "PARENT", os.getpid() not in {pid for _, pid in seen})
    '''))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("TOP LEVEL") == 1
    assert "EQUAL True" in done.stdout
    assert f"ENV ['{KIT_MALLOC[0]}'] PARENT True" in done.stdout


@pytest.mark.skipif(not HAS_DISTRIBUTED, reason="dask.distributed is not installed")
@pytest.mark.skipif(not os.path.exists("/proc/self/environ"), reason="reads /proc/self/environ")
def test_a_first_dask_call_starts_its_forkserver_before_importing_dask(tmp_path):
    """In a process that has not imported Dask, run_trials(scheduler="dask") starts the forkserver before it imports
    Dask, so the forkserver's imports and the caller's overlap; Dask's MALLOC_TRIM_THRESHOLD_=65536 passed down by a
    parent process is still replaced in the environment the workers' allocator read (their forkserver's: Dask's value
    is known without importing Dask), a value of the user's own still kept; the numbers are the serial run's."""
    script = tmp_path / "first_call.py"
    script.write_text(WORKER_ENVIRONMENT_SOURCE + textwrap.dedent('''
        import os, sys
        import multiprocessing.forkserver as forkserver
        import numpy as np
        from evalkit.parallel import bootstrap_mean_demo, run_trials

        imported_at_start = []
        ensure_running = forkserver.ensure_running
        def recording_ensure_running():
            imported_at_start.append(sorted({"dask", "distributed"} & set(sys.modules)))
            return ensure_running()
        forkserver.ensure_running = recording_ensure_running

        print("ENV", sorted(set(run_trials(worker_environment, 4, 7, scheduler="dask", n_jobs=2, progress=False))))
        print("AT START", imported_at_start)
        values = np.arange(1.0, 31.0) ** 1.5
        dask = run_trials(bootstrap_mean_demo, 6, 7, args=(values,), scheduler="dask", n_jobs=2, progress=False)
        print("EQUAL", dask == run_trials(bootstrap_mean_demo, 6, 7, args=(values,), scheduler="serial",
                                     progress=False))
    '''))
    for inherited, expected in (("65536", KIT_MALLOC), ("123456", ("123456", KIT_MALLOC[1]))):
        env = {**os.environ, "MALLOC_TRIM_THRESHOLD_": inherited}
        env.pop("MALLOC_MMAP_THRESHOLD_", None)
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                              cwd=tmp_path, env=env)
        assert done.returncode == 0, done.stderr[-3000:]
        assert "AT START [[]]" in done.stdout
        assert "EQUAL True" in done.stdout
        assert f"ENV [{expected!r}]" in done.stdout, done.stdout


@pytest.mark.skipif(not HAS_DISTRIBUTED, reason="dask.distributed is not installed")
def test_dask_from_a_worker_re_running_the_script_is_a_clear_error(monkeypatch):
    """A worker process that re-runs an unguarded script (its __main__ is '__mp_main__') must not start a cluster:
    run_trials says what to do instead."""
    import types

    fake_main = types.ModuleType("__mp_main__")
    fake_main.__file__ = "/somewhere/my_script.py"
    monkeypatch.setitem(sys.modules, "__main__", fake_main)
    import distributed

    monkeypatch.setattr(distributed, "get_client", lambda: (_ for _ in ()).throw(ValueError("no client")))
    with pytest.raises(RuntimeError, match=r"my_script.py.*if __name__ == \"__main__\":"):
        run_trials(trial_pid, 2, SEED, scheduler="dask", n_jobs=2, progress=False)


@pytest.mark.skipif(not HAS_DISTRIBUTED, reason="dask.distributed is not installed")
def test_dask_workers_fork_from_a_preloaded_forkserver_and_leave_no_process():
    """evalkit's cluster forks its workers from a forkserver it starts, which imported evalkit's trial modules (so
    the workers did not import them), and stops it with the cluster: no worker, no forkserver outlives the call."""
    import distributed

    if _forkserver()._forkserver_pid is not None:
        pytest.skip("a forkserver started by other code is running in this process")
    with parallel.local_dask_cluster(2) as cluster, distributed.Client(cluster) as client:
        server_pid = _forkserver()._forkserver_pid
        assert server_pid is not None
        origins = set(run_trials(worker_origin, 6, SEED, scheduler="dask", progress=False))
        workers = {pid for pid, _, _ in origins}
        assert len(workers) == 2 and {parent for _, parent, _ in origins} == {server_pid}
        assert all(preloaded for _, _, preloaded in origins)
        assert set(client.run(os.getpid).values()) == workers
    assert _forkserver()._forkserver_pid is None
    assert all(_ended(pid) for pid in workers | {server_pid})
    # run_trials' own cluster: the same, and the numbers of the serial run
    assert run_trials(bootstrap_mean_demo, 4, SEED, args=(VALUES,), scheduler="dask", n_jobs=2,
                      progress=False) == expected_results(4)
    assert _forkserver()._forkserver_pid is None


@pytest.mark.skipif(not HAS_DISTRIBUTED, reason="dask.distributed is not installed")
def test_dask_workers_are_spawned_beside_a_forkserver_started_elsewhere():
    """A forkserver evalkit did not start (another library's, its imports and environment unknown) is neither used
    nor stopped: the workers are spawned by the cluster, with the serial numbers."""
    import multiprocessing.forkserver

    if _forkserver()._forkserver_pid is not None:
        pytest.skip("a forkserver started by other code is running in this process")
    multiprocessing.forkserver.ensure_running()
    foreign = _forkserver()._forkserver_pid
    try:
        origins = set(run_trials(worker_origin, 4, SEED, scheduler="dask", n_jobs=2, progress=False))
        assert {parent for _, parent, _ in origins} == {os.getpid()}
        assert _forkserver()._forkserver_pid == foreign and not _ended(foreign)
    finally:
        _forkserver()._stop()


@pytest.mark.skipif(not HAS_DISTRIBUTED, reason="dask.distributed is not installed")
def test_dask_workers_lack_malloc_trim_left_in_the_environment_by_an_earlier_nanny(monkeypatch):
    """A nanny started earlier with Dask's defaults leaves MALLOC_TRIM_THRESHOLD_=65536 in os.environ; neither the
    forkserver nor the workers forked from it inherit it (they get evalkit's settings), a value of the user's own is
    kept, and the caller's environment is given back as it was."""
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    seen = run_trials(worker_environment, 4, SEED, scheduler="dask", n_jobs=2, progress=False)
    assert set(seen) == {KIT_MALLOC}
    assert os.environ["MALLOC_TRIM_THRESHOLD_"] == "65536" and "MALLOC_MMAP_THRESHOLD_" not in os.environ
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "1000000")  # the user's own
    seen = run_trials(worker_environment, 4, SEED, scheduler="dask", n_jobs=2, progress=False)
    assert set(seen) == {(KIT_MALLOC[0], "1000000")}
