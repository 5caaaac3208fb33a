"""Tests for evalkit.parallel.run_trials: same seed -> same results on every scheduler, results
in trial order, shared arguments sent once per worker, clear errors."""

import importlib.util
import os

import numpy as np
import pytest

from evalkit import parallel
from evalkit.parallel import bootstrap_mean_demo, run_trials, trial_seeds

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


@pytest.mark.skipif(not HAS_DISTRIBUTED, reason="dask.distributed is not installed")
def test_dask_identical_to_serial_with_existing_client_and_own_cluster():
    import distributed

    serial = run_trials(bootstrap_mean_demo, N_TRIALS, SEED, args=(VALUES,), scheduler="serial", progress=False)
    shared = VALUES.copy().view(PickleCountingArray)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        PickleCountingArray.pickle_count = 0
        on_client = run_trials(
            bootstrap_mean_demo, N_TRIALS, SEED, args=(shared,), scheduler="dask", progress=False
        )
        assert PickleCountingArray.pickle_count < 4  # scattered once, not pickled per trial (12)
        worker_pids = set(run_trials(trial_pid, 6, SEED, scheduler="dask", progress=False))
        assert os.getpid() not in worker_pids  # the trials ran on the cluster's workers
        assert len(client.scheduler_info()["workers"]) == 2
    assert on_client == serial == expected_results()
    # no active client: run_trials creates (and closes) its own LocalCluster
    own_cluster = run_trials(
        bootstrap_mean_demo, N_TRIALS, SEED, args=(VALUES,), scheduler="dask", n_jobs=2, progress=False
    )
    assert own_cluster == serial
