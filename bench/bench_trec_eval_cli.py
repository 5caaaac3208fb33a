"""The trec_eval drop-in (issues 12 and 30): the kit's ``trec_eval`` command against NIST trec_eval 10.0 built from
``../shared/tools/trec_eval-10.0`` into a scratch folder, on the TREC-8 runs, as a user runs both: fresh processes
on plain files, timed from outside (start-up, imports and reading the qrels included), the printed text compared
byte for byte.

Rows (each the median of paired, interleaved rounds; wall and CPU seconds of each side; peak RSS from the kernel):

* one run, default measures: ``trec_eval QRELS input.1`` (target: the kit under 0.15 s and 40 MB at idle; moonshot
  within 2x of trec_eval);
* one run, ``-q -m all_trec`` (context);
* 129 runs: ONE kit process given the 129 run files against 129 trec_eval processes one after another (target: at
  least 6x); and the same with both sides on one CPU (``os.sched_setaffinity``, as ``taskset -c 0``): the kit shares
  the runs between worker processes, so the two-core ratio leans on the second core; the one-CPU row shows the rest.

The kit's modules are compiled to bytecode before the rounds (``compileall``, as ``pip install`` leaves an installed
package; an editable install writes it on its first run unless ``PYTHONDONTWRITEBYTECODE`` is set, and then compiles
every module of the kit at each start, about 0.02 s more for one run).
Runs are decompressed once into the scratch folder (trec_eval reads plain text). Skipped with a note when the
TREC-8 data, the sources or a C compiler are missing. ``python bench/run.py trec_eval_cli`` runs this module alone.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from common import Result, compile_kit, paired_processes, run_process, trec8_dir

TOOLS = Path(os.environ.get("EVALKIT_TOOLS", Path(__file__).resolve().parents[2] / "shared" / "tools"))


def _build(scratch: Path) -> Path | None:
    source = TOOLS / "trec_eval-10.0"
    if not (source / "trec_eval.c").is_file() or shutil.which("make") is None:
        return None
    where = scratch / "trec_eval-10.0"
    shutil.copytree(source, where)
    done = subprocess.run(["make", "-C", str(where)], capture_output=True)
    binary = where / "trec_eval"
    return binary if done.returncode == 0 and binary.is_file() else None


def _peak_rss(command: list) -> float:
    """Peak RSS (MB) of one run of ``command``: its own VmHWM, read by GNU time from the kernel (ru_maxrss of a
    child started by this big process would carry the parent's pages over)."""
    time_binary = shutil.which("time") or "/usr/bin/time"
    if not os.path.exists(time_binary):
        return float("nan")
    with tempfile.NamedTemporaryFile() as out:
        subprocess.run([time_binary, "-f", "%M", "-o", out.name, *map(str, command)], capture_output=True,
                       check=True)
        return int(Path(out.name).read_text().split()[-1]) / 1024


def run(rounds: int = 7) -> list[Result]:
    data = trec8_dir()
    if data is None:
        return [Result("trec_eval CLI", float("nan"), None, "trec_eval 10.0", "-", None, "skipped: no TREC-8 data")]
    ours_cli = Path(sys.executable).parent / "trec_eval"
    if not ours_cli.exists():
        return [Result("trec_eval CLI", float("nan"), None, "trec_eval 10.0", "-", None,
                       "skipped: the kit's trec_eval script is not installed (pip install -e .)")]
    results = []
    with tempfile.TemporaryDirectory(prefix="evalkit-bench-trec_eval-") as tmp:
        scratch = Path(tmp)
        binary = _build(scratch)
        if binary is None:
            return [Result("trec_eval CLI", float("nan"), None, "trec_eval 10.0", "-", None,
                           "skipped: cannot build trec_eval 10.0 (sources or C compiler missing)")]
        runs = []
        for path in sorted((data / "runs").glob("input.*.gz")):
            target = scratch / path.name.removesuffix(".gz")
            target.write_bytes(gzip.decompress(path.read_bytes()))
            runs.append(target)
        qrels = data / "qrels.trec8.adhoc.txt"
        one = [qrels, runs[0]]
        timer = "the whole process, started and waited for from outside: start-up, imports, reading the files"
        compiled = compile_kit()

        # ---- one run, default measures
        pair, mine, theirs = paired_processes(lambda: run_process([ours_cli, *one]),
                                              lambda: run_process([binary, *one]), rounds)
        ours_rss, peer_rss = _peak_rss([ours_cli, *one]), _peak_rss([binary, *one])
        row = pair.result(f"one TREC-8 run ({runs[0].name}), default measures", "trec_eval 10.0",
                          "ours < 0.15 s, < 40 MB", None, timer,
                          f"same text: {mine == theirs}; {compiled}; peak RSS ours {ours_rss:.0f} MB, trec_eval "
                          f"{peer_rss:.0f} MB; "
                          "moonshot: within 2x of trec_eval")
        row.met = row.ours < 0.15 and ours_rss < 40 and mine == theirs
        results.append(row)

        # ---- one run, -q -m all_trec
        options = ["-q", "-m", "all_trec"]
        pair, mine, theirs = paired_processes(lambda: run_process([ours_cli, *options, *one]),
                                              lambda: run_process([binary, *options, *one]), rounds)
        results.append(pair.result("the same, -q -m all_trec", "trec_eval 10.0", "(context)", None, timer,
                                   f"same text: {mine == theirs}"))

        # ---- 129 runs: one kit process against 129 trec_eval processes, then both on one CPU
        def peer_all(cpus=None):
            walls, cpus_used, texts = 0.0, 0.0, []
            for path in runs:
                wall, cpu, text = run_process([binary, qrels, path], cpus=cpus)
                walls, cpus_used = walls + wall, cpus_used + cpu
                texts.append(text)
            return walls, cpus_used, b"".join(texts)

        many_rounds = max(5, rounds - 2)
        pair, mine, theirs = paired_processes(lambda: run_process([ours_cli, qrels, *runs]), peer_all, many_rounds)
        results.append(pair.result(
            "129 TREC-8 runs: one kit process vs 129 trec_eval processes", "trec_eval 10.0 (129 processes)", ">= 6x",
            6, timer + "; the peer's 129 processes one after another, summed", f"same text: {mine == theirs}"))
        cpu0 = {min(os.sched_getaffinity(0))}
        pair, mine, theirs = paired_processes(lambda: run_process([ours_cli, qrels, *runs], cpus=cpu0),
                                              lambda: peer_all(cpu0), many_rounds)
        results.append(pair.result(
            "the same, both sides on one CPU", "trec_eval 10.0 (129 processes)", "(context)", None,
            timer + "; every process on CPU " + str(min(cpu0)) + " (sched_setaffinity, as taskset -c)",
            f"same text: {mine == theirs}; the kit's worker processes share the one CPU"))
    return results
