"""Beyond one collection in memory (issue 15 item 5): 1,290 runs (10x TREC-8's) of 50 topics x 1,000 documents,
simulated into run files, evaluated by ``evalkit.measures.streaming.evaluate_files`` in blocks of 32 files.

Built as one collection, 64.5 M cells from files would take about 10x the 1.1 GB TREC-8's build peaks at; streamed,
each worker holds one block. Rows: the streamed evaluation on local processes (2 workers) and serially, each in a
fresh subprocess so its peak memory (the process and its workers, ``ru_maxrss``) is its own; the peer is
``evalkit.evaluate`` of the first 129 files in memory, times 10 (what evaluating the runs ten collections at a time
would cost), measured in the same run. Same numbers: the streamed rows of those 129 runs equal the in-memory table.

The run files (plain text, 2.9 GB, with the qrels) are simulated once and kept under ``$EVALKIT_CACHE/bench``;
``python bench/run.py streaming`` runs this module alone (about 2 minutes the first time to write the files).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from common import Result, load_note

N_RUNS, N_TOPICS, DEPTH, SEED = 1290, 50, 1000, 1999
RUNS_PER_BLOCK = 32
MEASURES = ["AP", "P@10", "nDCG@100", "Rprec", "Bpref"]

_WRITE = """
import sys
from pathlib import Path
import numpy as np, pyarrow as pa, pyarrow.csv as csv
from evalkit.data.trec_files import write_qrels
from evalkit.data.simulator import simulate_collection

where = Path(sys.argv[1]); n_runs, n_topics, depth, seed = map(int, sys.argv[2:6])
c = simulate_collection(n_topics=n_topics, n_runs=n_runs, depth=depth, seed=seed)
(where / "runs").mkdir(parents=True, exist_ok=True)
write_qrels(c.to_qrels(), where / "qrels.txt")
options = csv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
for s, name in enumerate(c.run_names):
    mask = c.docs[s] >= 0
    topic = np.broadcast_to(np.arange(c.n_topics)[:, None], mask.shape)[mask]
    rank = np.broadcast_to(np.arange(1, c.depth + 1)[None, :], mask.shape)[mask]
    table = pa.table({"topic": pa.array(c.topics[topic].astype(str)), "q0": pa.array(np.full(mask.sum(), "Q0")),
                      "docno": pa.array(c.vocabulary[c.docs[s][mask]].astype(str)), "rank": pa.array(rank),
                      "score": pa.array(c.scores[s][mask]), "tag": pa.array(np.full(mask.sum(), str(name)))})
    csv.write_csv(table, where / "runs" / f"{s:04d}.{name}.run", options)
(where / "done").write_text("ok")
"""

_STREAM = """
import json, resource, sys, time
from pathlib import Path
import evalkit.measures.streaming as streaming
where, scheduler, per_block = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
paths = sorted((where / "runs").iterdir())
started = time.perf_counter()
frame = streaming.evaluate_files(where / "qrels.txt", paths, {measures}, runs_per_block=per_block,
                                 scheduler=scheduler, n_jobs=2, progress=False)
seconds = time.perf_counter() - started
frame.to_pickle(where / f"streamed-{{scheduler}}.pkl")
own = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))  # KB; ru_maxrss keeps the forking parent's peak
children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps(dict(seconds=seconds, own_mb=own / 1024, worker_mb=children / 1024, rows=len(frame))))
""".format(measures=MEASURES)


def _files() -> Path:
    from evalkit.data.cache import cache_dir as _cache_dir
    from evalkit.data.simulator import DEFAULT_PARAMS_PATH

    simulator = Path(__file__).resolve().parents[1] / "evalkit" / "data" / "simulator.py"
    source = simulator.read_bytes() + DEFAULT_PARAMS_PATH.read_bytes()
    tag = hashlib.sha256(source + _WRITE.encode()).hexdigest()[:12]
    where = _cache_dir() / "bench" / f"runs-{N_RUNS}x{N_TOPICS}x{DEPTH}-s{SEED}-{tag}"
    if not (where / "done").is_file():
        subprocess.run([sys.executable, "-c", _WRITE, str(where), str(N_RUNS), str(N_TOPICS), str(DEPTH), str(SEED)],
                       check=True)
    return where


def _streamed(where: Path, scheduler: str) -> dict:
    done = subprocess.run([sys.executable, "-c", _STREAM, str(where), scheduler, str(RUNS_PER_BLOCK)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(repeat: int = 1) -> list[Result]:
    import pandas as pd

    import evalkit

    where = _files()
    paths = sorted((where / "runs").iterdir())
    size_gb = sum(p.stat().st_size for p in paths) / 1e9
    loads = [os.getloadavg()[0]]

    # the peer: one collection of the first 129 files, in memory (in this process), times 10
    started = time.perf_counter()
    in_memory = evalkit.evaluate(where / "qrels.txt", paths[:129], MEASURES)
    peer_129 = time.perf_counter() - started
    local = _streamed(where, "local")
    loads.append(os.getloadavg()[0])
    serial = _streamed(where, "serial")
    loads.append(os.getloadavg()[0])
    streamed = pd.read_pickle(where / "streamed-local.pkl")
    same_modes = streamed.equals(pd.read_pickle(where / "streamed-serial.pkl"))
    first = streamed[streamed["run"].isin(set(in_memory["run"]))].reset_index(drop=True)
    same = bool(first.equals(in_memory)) and same_modes
    for name in ("streamed-local.pkl", "streamed-serial.pkl"):
        (where / name).unlink()
    peer = 10 * peer_129
    cells = N_RUNS * N_TOPICS * DEPTH
    common = (f"{N_RUNS} runs x {N_TOPICS} topics x {DEPTH} ({cells / 1e6:.1f} M cells, {size_gb:.1f} GB of plain run "
              f"files), blocks of {RUNS_PER_BLOCK} files; the first 129 runs' rows equal the in-memory table, serial = "
              f"local: {same}; {load_note(loads)}")
    # context rows without a ratio (one call each): evaluating 129 of the files in memory, x 10, in the note
    return [
        Result(f"{N_RUNS} simulated runs streamed from files in blocks, 2 local processes", local["seconds"], None,
               "-", "(context)", None,
               f"peak memory: parent {local['own_mb']:.0f} MB, largest worker {local['worker_mb']:.0f} MB; "
               f"evalkit.evaluate of 129 of the files in memory, x 10: {peer:.1f} s; " + common),
        Result("the same, serially (one block at a time in one process)", serial["seconds"], None, "-", "(context)",
               None, f"peak memory {serial['own_mb']:.0f} MB (in memory, 129 runs: {peer_129:.1f} s)"),
    ]
