"""The judgment-budget planner (issue 29): ``plan`` on TREC-8 for all designs (target: under 10 s), the topic set
size solver against statsmodels' power solvers, and the validation at the class preset (target: under 2 minutes).

``plan`` and the validation have no peer (no other library plans a collection): their rows report absolute
seconds against the issue's absolute targets, with the CPU seconds and the load average beside them (on a
busy machine the wall time overstates what an idle one takes; the CPU seconds do not). The solver row is a
ratio: the kit's exact topic set sizes against ``statsmodels.stats.power.TTestPower().solve_power`` (then
rounded up) on the same 36 requirements, timed alternately in the same process, the sizes checked equal.
"""

from __future__ import annotations

import math
import os
import resource
import statistics
import tempfile
import time

from common import Result, load_note, paired, trec8_dir

PLAN_TARGET = 10.0
VALIDATION_TARGET = 120.0


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _timed(fn):
    cpu, started = _cpu(), time.perf_counter()
    value = fn()
    return value, time.perf_counter() - started, _cpu() - cpu


def _solver_rows(rounds: int = 5) -> list[Result]:
    from statsmodels.stats.power import TTestPower

    from evalkit.planning.topic_set_size import ttest_topics

    grid = [(d, v, a, p) for d in (0.02, 0.05, 0.1) for v in (0.005, 0.02, 0.06) for a, p in
            ((0.05, 0.8), (0.01, 0.9), (0.05, 0.9), (0.1, 0.8))]

    def ours():
        return [ttest_topics(d, v, a, p) for d, v, a, p in grid]

    def peer():
        return [math.ceil(TTestPower().solve_power(effect_size=d / math.sqrt(2 * v), nobs=None, alpha=a, power=p))
                for d, v, a, p in grid]

    same = ours() == peer()
    pair = paired(ours, peer, rounds)
    return [pair.result(f"paired t-test topic set sizes, {len(grid)} requirements (exact noncentral t, smallest n)",
                        "statsmodels TTestPower.solve_power + ceil", ">= 1x", 1.0,
                        "solving every requirement of the grid, in this process", f"same sizes: {same}")]


def _plan_rows(collection, repeat: int = 3) -> list[Result]:
    from evalkit.planning import plan

    rows = []
    for measure in ("AP", "RBP(p=0.95)"):
        walls, cpus, loads = [], [], [os.getloadavg()[0]]
        for _ in range(repeat):
            frame, wall, cpu = _timed(lambda: plan(collection, measure, delta=0.05, budget=40000))
            walls.append(wall)
            cpus.append(cpu)
            loads.append(os.getloadavg()[0])
        wall, cpu = statistics.median(walls), statistics.median(cpus)
        families = ", ".join(sorted(set(frame["family"]) - {"full"}))
        rows.append(Result(f"plan on TREC-8, {measure}: {len(frame) - 1} designs ({families}), 5 draws of each "
                           "sampled design", wall, None, "- (no peer: absolute target)", f"< {PLAN_TARGET:.0f} s",
                           wall < PLAN_TARGET, f"CPU {cpu:.1f} s; median of {repeat}; {load_note(loads)}"))
    return rows


def _validation_rows() -> list[Result]:
    from evalkit.papers import budget_planner as bp

    sizes = bp.settings("class")
    rows = []
    with tempfile.TemporaryDirectory(prefix="evalkit-bench-planner-") as cache:
        saved = os.environ.get("EVALKIT_CACHE")
        os.environ["EVALKIT_CACHE"] = cache  # the first call simulates the population: nothing cached before
        try:
            for label in ("first call (the population simulated)", "second call (the population from the cache)"):
                loads = [os.getloadavg()[0]]
                (_, result), wall, cpu = _timed(lambda: _validate(bp, sizes))
                loads.append(os.getloadavg()[0])
                summary = result.summary.set_index("design")
                rows.append(Result(
                    f"validation at the class preset, TREC-8-like population ({sizes.population_topics} topics), "
                    f"{label}", wall, None, "- (no peer: absolute target)", f"< {VALIDATION_TARGET:.0f} s",
                    wall < VALIDATION_TARGET,
                    f"CPU {cpu:.1f} s; realised power at delta: " + ", ".join(
                        f"{d} {r:.3f}" for d, r in summary["realised power at delta"].items()) +
                    f"; {load_note(loads)}"))
        finally:
            if saved is None:
                os.environ.pop("EVALKIT_CACHE", None)
            else:
                os.environ["EVALKIT_CACHE"] = saved
    return rows


def _validate(bp, sizes):
    from evalkit.papers.needs import Plan

    plan = Plan("06_budget_planner", "trec8", {"population": "trec8", "measure": "AP", "alpha": 0.05,
                                                 "power": 0.8, "delta": 0.05})
    return bp.run_validation(plan, sizes, seed=bp.DEFAULT_SEED)


def run() -> list[Result]:
    rows = _solver_rows()
    if trec8_dir() is None:
        return rows + [Result("plan on TREC-8", float("nan"), None, "-", "-", None, "TREC-8 data not found: skipped")]
    import evalkit

    collection = evalkit.load_dataset("trec8")
    return rows + _plan_rows(collection) + _validation_rows()
