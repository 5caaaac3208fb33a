"""The trec_eval drop-in (issue 12 item 5): the kit's ``trec_eval`` command against NIST trec_eval 10.0 built from
``../shared/tools/trec_eval-10.0`` into a scratch folder, on the 129 TREC-8 runs, default (official) measures.

Two ratios, each measured in the same run, processes timed wall-clock from outside (start-up included):

* one run: ``trec_eval QRELS input.1`` — the kit's console script vs the C binary (target: the kit under 0.3 s;
  the ratio is reported for context);
* 129 runs: ONE kit process given all 129 run files vs 129 trec_eval processes one after another (target: the kit
  at least 5x faster). Both print the same text (checked here, byte for byte).

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
import time
from pathlib import Path

from common import Result, load_note, trec8_dir

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


def _wall(command: list, repeat: int = 3) -> tuple[float, bytes]:
    times, out = [], b""
    for _ in range(repeat):
        started = time.perf_counter()
        out = subprocess.run(command, capture_output=True, check=True).stdout
        times.append(time.perf_counter() - started)
    return sorted(times)[len(times) // 2], out


def run() -> list[Result]:
    data = trec8_dir()
    if data is None:
        return [Result("trec_eval CLI", 0.0, None, "trec_eval 10.0", "-", None, "skipped: no TREC-8 data")]
    ours_cli = Path(sys.executable).parent / "trec_eval"
    if not ours_cli.exists():
        return [Result("trec_eval CLI", 0.0, None, "trec_eval 10.0", "-", None,
                       "skipped: the kit's trec_eval script is not installed (pip install -e .)")]
    with tempfile.TemporaryDirectory(prefix="evalkit-bench-trec_eval-") as tmp:
        scratch = Path(tmp)
        binary = _build(scratch)
        if binary is None:
            return [Result("trec_eval CLI", 0.0, None, "trec_eval 10.0", "-", None,
                           "skipped: cannot build trec_eval 10.0 (sources or C compiler missing)")]
        runs = []
        for path in sorted((data / "runs").glob("input.*.gz")):
            target = scratch / path.name.removesuffix(".gz")
            target.write_bytes(gzip.decompress(path.read_bytes()))
            runs.append(target)
        qrels = data / "qrels.trec8.adhoc.txt"
        loads = [os.getloadavg()[0]]

        peer_one, text_peer = _wall([binary, qrels, runs[0]], repeat=5)
        ours_one, text_ours = _wall([ours_cli, qrels, runs[0]], repeat=5)
        loads.append(os.getloadavg()[0])
        same_one = text_peer == text_ours

        def peer_all() -> bytes:
            return b"".join(subprocess.run([binary, qrels, r], capture_output=True, check=True).stdout
                            for r in runs)

        started = time.perf_counter()
        all_peer = peer_all()
        peer_many = time.perf_counter() - started
        ours_many, all_ours = _wall([ours_cli, qrels, *runs], repeat=1)
        started = time.perf_counter()
        peer_all()
        peer_many = min(peer_many, time.perf_counter() - started)
        ours_many = min(ours_many, _wall([ours_cli, qrels, *runs], repeat=1)[0])
        loads.append(os.getloadavg()[0])
        same_many = all_peer == all_ours
    note = load_note(loads)
    return [
        Result("one TREC-8 run, process wall time (start-up included)", ours_one, peer_one, "trec_eval 10.0",
               "ours < 0.3 s", ours_one < 0.3, f"{note}; same text: {same_one}"),
        Result("129 TREC-8 runs: one kit process vs 129 trec_eval processes", ours_many, peer_many,
               "trec_eval 10.0", ">= 5x", peer_many / ours_many >= 5, f"{note}; same text: {same_many}"),
    ]
