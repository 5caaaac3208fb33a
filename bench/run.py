"""Run every benchmark (bench/bench_*.py) and print a table of ratios against the peers; writes bench/RESULTS.md.

make bench            all benchmarks
python bench/run.py foundation voorhees2014    only those modules
"""

from __future__ import annotations

import importlib
import os
import platform
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import ROUNDS, Result  # noqa: E402


def _restore_environment(saved: dict, module: str) -> None:
    """Undo what a module left in os.environ, so later modules' subprocesses start as a user's would. (A Dask
    LocalCluster with Dask's defaults puts MALLOC_TRIM_THRESHOLD_=65536 in its parent's environment: every process
    the bench started afterwards inherited it, and the trec_eval command line ran 2.5x slower, most of it in the
    kernel's page faults.)"""
    changed = sorted(k for k in set(os.environ) | set(saved) if os.environ.get(k) != saved.get(k))
    if changed:
        print(f"   ({module} left {', '.join(changed)} in the environment: restored)", flush=True)
        os.environ.clear()
        os.environ.update(saved)


def main(argv: list[str]) -> int:
    modules = sorted(p.stem for p in HERE.glob("bench_*.py"))
    if argv:
        modules = [m for m in modules if m.removeprefix("bench_") in argv or m in argv]
    rows = []
    load_start = __import__("os").getloadavg()
    failed = []
    for name in modules:
        started = time.perf_counter()
        print(f"== {name}", flush=True)
        environment = dict(os.environ)
        try:  # one broken module must not cost the others' rows: it is reported, and the exit code says so
            results = list(importlib.import_module(name).run())
        except Exception as exc:  # noqa: BLE001
            traceback.print_exc()
            failed.append(name)
            results = [Result(f"{name} failed", float("nan"), None, "-", "-", False,
                              f"{type(exc).__name__}: {exc}".replace("|", "/")[:300])]
        _restore_environment(environment, name)
        for result in results:
            rows.append((name.removeprefix("bench_"), result))
            ratio = f"{result.ratio:.1f}x" if result.ratio is not None else "-"
            cpu = "" if result.ours_cpu is None else f" (CPU {result.ours_cpu:.3f}" + (
                ")" if result.peer_cpu is None else f" vs {result.peer_cpu:.3f})")
            print(f"  {result.name}: ours {result.ours:.3f}, peer {result.peer if result.peer is None else round(result.peer, 3)}"
                  f" ({result.peer_name}), ratio {ratio}{cpu}, target {result.target}: "
                  f"{'met' if result.met else 'NOT met' if result.met is not None else '-'} {result.note}", flush=True)
        print(f"   ({time.perf_counter() - started:.0f} s)")
    lines = [
        "# Benchmark results",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()}, {platform.python_version()}, "
        f"{__import__('os').cpu_count()} cores, by `make bench`. Load average (1, 5, 15 min) at the start "
        f"{' / '.join(f'{x:.1f}' for x in load_start)}, at the end "
        f"{' / '.join(f'{x:.1f}' for x in __import__('os').getloadavg())}. Ratio = peer time / evalkit time: the "
        f"median of at least {ROUNDS} paired rounds (the kit and its peer alternately, in the same run), each round's "
        "own ratio; the seconds are each side's medians, wall and CPU (every thread of the process; a subprocess's "
        "own user + system time). 'Inside the timer' says what each row's clock covers; 'load' is the 1-minute "
        "load average while the row ran. Other work on the machine slows every timing; a ratio whose CPU seconds "
        "do not reach its target says it holds only on two idle cores.",
        "",
        "| suite | benchmark | evalkit (s) | evalkit CPU (s) | peer | peer (s) | peer CPU (s) | ratio | rounds | "
        "target | met | inside the timer | load | note |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def cell(value, digits=3):
        return "" if value is None else f"{value:.{digits}f}"

    for suite, r in rows:
        lines.append(
            f"| {suite} | {r.name} | {r.ours:.3f} | {cell(r.ours_cpu)} | {r.peer_name} | {cell(r.peer)} | "
            f"{cell(r.peer_cpu)} | {'' if r.ratio is None else f'{r.ratio:.1f}x'} | {r.rounds or ''} | {r.target} | "
            f"{'yes' if r.met else 'no' if r.met is not None else ''} | {r.timer} | {r.load} | {r.note} |"
        )
    if not argv:  # every module ran: RESULTS.md and the README's summary are written whole, together
        text = "\n".join(lines) + "\n"
        readme = HERE.parent / "README.md"
        _write_whole(readme, with_summary(readme.read_text(), text))
        _write_whole(HERE / "RESULTS.md", text)
    print("\n".join(lines))
    if failed:
        print(f"bench: {len(failed)} module(s) failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


README_START = "<!-- written by make bench from bench/RESULTS.md: do not edit by hand -->"
README_END = "<!-- end of make bench's summary -->"


def results_rows(results_md: str) -> list[dict]:
    """RESULTS.md's table as one dict per row, keyed by its header's column names."""
    lines = results_md.splitlines()
    header = next(line for line in lines if line.startswith("| suite |"))
    columns = [c.strip() for c in header.strip("|").split("|")]
    return [dict(zip(columns, (c.strip() for c in line.strip("|").split("|")))) for line in lines
            if line.startswith("| ") and not line.startswith("| suite |")]


def summary(results_md: str) -> str:
    """The README's summary of RESULTS.md: its first line (date, machine, load) and every row with a target (not
    the context rows), figures copied as RESULTS.md prints them."""
    measured = next(line for line in results_md.splitlines() if line.startswith("Measured "))
    out = [README_START, "", measured.split(". Ratio = ")[0] + ". Every figure, its peer and what is inside its "
           "timer: [bench/RESULTS.md](bench/RESULTS.md).", "",
           "| suite | benchmark | evalkit (s) | peer | peer (s) | ratio | target | met |", "|---|---|---|---|---|---|---|---|"]
    for row in results_rows(results_md):
        if row.get("target", "") in ("", "-", "(context)") or not row.get("met"):
            continue
        out.append(f"| {row['suite']} | {row['benchmark']} | {row['evalkit (s)']} | {row['peer']} | "
                   f"{row['peer (s)']} | {row['ratio']} | {row['target']} | {row['met']} |")
    return "\n".join(out + ["", README_END])


def with_summary(readme: str, results_md: str) -> str:
    """``readme`` with the text between its summary markers replaced by :func:`summary` of ``results_md``."""
    start, end = readme.index(README_START), readme.index(README_END) + len(README_END)
    return readme[:start] + summary(results_md) + readme[end:]


def _write_whole(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
