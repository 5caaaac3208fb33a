"""How the ``trec_eval`` command shares several run files between the CPUs it may use
(:func:`evalkit.trec_eval.cli.evaluate_files`): forked worker processes on Linux, each scoring its share of the runs
after the qrels are read (no lock shared between them), or threads elsewhere; one run, or one CPU, is read in the
command's own thread. The text is the same either way (tests compare it with one after another and with NIST
trec_eval), and the first bad run in order is the one reported. The command's own process also tunes glibc's
allocator for several runs (:func:`keep_freed_memory`)."""

from __future__ import annotations

import os
import sys


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity: ``taskset -c 0`` makes 1), not the machine's count."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def count(run_paths) -> int:
    """How many workers share the runs: one per usable CPU, at most 4 and at most one per run."""
    return min(4, usable_cpus(), len(run_paths))


def how_to_share(run_paths) -> str | None:
    """How several runs share the CPUs this process may use: ``"fork"`` (Linux, this process running one thread,
    no run read from standard input): worker processes forked after the qrels are read, each reading and scoring
    its share of the runs, so no lock is shared (on the 129 TREC-8 runs, two threads cost about a fifth more
    CPU time than one: the GIL's hand-offs between numpy's calls); ``"threads"`` elsewhere; None for one run or
    one CPU (one after another)."""
    if count(run_paths) < 2:
        return None
    import threading

    if (sys.platform.startswith("linux") and hasattr(os, "fork") and threading.active_count() == 1
            and all(str(path) != "-" for path in run_paths)):
        return "fork"
    return "threads"


def forked_blocks(block, run_paths, workers: int) -> list:
    """``[block(path) for path in run_paths]`` over ``workers`` processes: runs ``k, k + workers, ...`` go to
    process k (this one is process 0; the others are forked from it and inherit the qrels read already). A
    process stops at its first failing run; the results come back pickled through a pipe, and the first failing
    run in order raises, as one after another would. A worker that dies or cannot send its results has its runs
    scored here instead (so the text never depends on a worker); a worker dies with the command, however the command
    ends (:func:`_die_with`)."""
    import pickle
    import signal

    shares = [list(range(k, len(run_paths), workers)) for k in range(workers)]

    def scored(indices) -> dict:
        out = {}
        for i in indices:
            try:
                out[i] = (True, block(run_paths[i]))
            except Exception as exc:  # noqa: BLE001  (raised in order below, in the parent)
                out[i] = (False, exc)
                break
        return out

    sys.stdout.flush()
    sys.stderr.flush()
    parent = os.getpid()
    children = []  # (pid, read end or None once handed to a file object, share) of the workers not waited for
    try:
        for share in shares[1:]:
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker: score, send, leave without running the parent's exit handlers
                status = 1
                try:
                    _die_with(parent)
                    os.close(read_end)
                    for _, other_end, _ in children:
                        os.close(other_end)
                    payload = pickle.dumps(scored(share), pickle.HIGHEST_PROTOCOL)
                    with os.fdopen(write_end, "wb") as pipe:
                        pipe.write(payload)
                    status = 0
                finally:
                    os._exit(status)
            os.close(write_end)
            children.append((pid, read_end, share))
        results = scored(shares[0])
        while children:
            pid, read_end, share = children[0]
            pipe = os.fdopen(read_end, "rb")
            children[0] = (pid, None, share)  # the file object owns the read end now: it closes it
            with pipe:
                payload = pipe.read()
            _, status = os.waitpid(pid, 0)
            children.pop(0)
            try:
                theirs = pickle.loads(payload) if status == 0 else None
            except Exception:  # noqa: BLE001  (a result that does not unpickle: scored here instead)
                theirs = None
            results.update(theirs if isinstance(theirs, dict) else scored(share))
    finally:
        for pid, read_end, _ in children:  # interrupted: no worker outlives the command
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                if read_end is not None:
                    os.close(read_end)
            except OSError:
                pass
    blocks = []
    for i in range(len(run_paths)):
        if i not in results:  # past a failing run of the same process: that failure comes first
            continue
        ok, value = results[i]
        if not ok:
            raise value
        blocks.append(value)
    return blocks


def _c_function(name: str):
    """The C library's function ``name`` for this process (ctypes), or None where there is no such function or no
    C library to load (Windows)."""
    try:
        import ctypes

        return getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError, TypeError):
        return None


def _die_with(parent: int) -> None:
    """In a worker: be killed when the command ends, however it ends. Python's ``finally`` kills the workers on an
    exception or Ctrl-C, but a SIGTERM or SIGKILL ends the command at once, and its orphaned worker would score the
    rest of its share before noticing: Linux's ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` has the kernel kill it then."""
    import signal

    prctl = _c_function("prctl")
    if prctl is not None:  # (None: not Linux's C library)
        prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1: PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the command ended before the request took effect
        os._exit(1)


#: glibc's mallopt parameters (malloc.h) and the values the command sets for several runs
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
KEPT_FREE_BYTES = 256 << 20  # freed memory at the heap's top kept for the next run, up to this much
HEAP_ARRAY_BYTES = 32 << 20  # arrays up to this size come from the heap (glibc's largest mmap threshold)


def keep_freed_memory() -> bool:
    """For a command scoring several runs: have glibc's malloc serve every array of a run (up to
    ``HEAP_ARRAY_BYTES``) from the heap and keep freed memory (up to ``KEPT_FREE_BYTES``) for the next run, instead
    of mapping fresh zeroed pages for each large array and handing them back when it is freed (glibc's defaults:
    arrays past 128 KB are mapped one by one until its threshold adapts). On TREC-8's 129 runs this cut the kernel's
    share of the command's CPU time from 0.3-0.4 s to about 0.1 s, and the wall time by a tenth. Set once, for the
    command's own process only (the ``trec_eval`` console script), never in a caller's Python process; a C library
    without ``mallopt`` (musl, macOS, Windows) changes nothing. Returns whether both settings took."""
    import ctypes

    mallopt = _c_function("mallopt")
    if mallopt is None:
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, HEAP_ARRAY_BYTES)) & bool(mallopt(_M_TRIM_THRESHOLD, KEPT_FREE_BYTES))

