"""Shared fixtures: a small random collection with graded, negative and missing judgments; the simulator's shallow
and tiny collections as TREC files; TREC-8 when present."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalkit.data.collection import Collection
from evalkit.data.trec_files import Qrels, Run

TREC8 = Path(os.environ.get("EVALKIT_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")) / "trec8"


def random_collection(seed: int = 0, n_runs: int = 6, n_topics: int = 7, depth: int = 40, n_docs: int = 80) -> Collection:
    """Runs with ties, short rankings, a topic no run retrieves; qrels graded 0..3 with some -1 and a topic
    without relevant documents."""
    rng = np.random.default_rng(seed)
    topics = [str(300 + t) for t in range(n_topics)]
    docnos = np.array([f"D{rng.integers(0, 10**6):06d}-{i}" for i in range(n_docs)], dtype=object)
    runs = []
    for s in range(n_runs):
        t_col, d_col, s_col = [], [], []
        for t, topic in enumerate(topics[:-1] if s % 3 == 0 else topics):
            length = int(rng.integers(1, depth + 1))
            chosen = rng.choice(n_docs, size=length, replace=False)
            scores = rng.integers(0, 8, size=length).astype(float) / 4  # many ties
            t_col += [topic] * length
            d_col += list(docnos[chosen])
            s_col += list(scores)
        runs.append(Run(f"run{s}", np.array(t_col, object), np.array(d_col, object), np.array(s_col), ordered=False))
    q_rows = []
    for t, topic in enumerate(topics):
        judged = rng.choice(n_docs, size=int(rng.integers(5, n_docs)), replace=False)
        grades = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3], size=len(judged))
        if t == 2:
            grades = np.minimum(grades, 0)  # a topic with no relevant document
        q_rows += [(topic, docnos[d], int(g)) for d, g in zip(judged, grades)]
    qrels = Qrels.from_frame(pd.DataFrame(q_rows, columns=["topic", "docno", "grade"]))
    return Collection.from_runs(runs, qrels, name=f"random{seed}")


def stalled_cache_save(folder, cache: Path) -> subprocess.Popen:
    """A process loading ``folder`` with its cache under ``cache`` that stops in the middle of the save (after
    writing docs.npy, having printed "writing"), for a test to signal or kill there."""
    code = f"""
        import time, evalkit.data.cache as c
        real = c.Path.write_bytes
        def slow(self, data):
            real(self, data)
            if self.name == "docs.npy":
                print("writing", flush=True)
                time.sleep(600)
        c.Path.write_bytes = slow
        from evalkit.data.datasets import load_directory
        load_directory({str(folder)!r})
        """
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "EVALKIT_CACHE": str(cache)})


@pytest.fixture(scope="session")
def trec8_float32():
    """TREC-8 with trec_eval 9.x's score ties (C floats), which pytrec_eval-terrier, the fast oracle, shares."""
    if not TREC8.is_dir():
        pytest.skip("TREC-8 data not found (set EVALKIT_DATA or place it at ../shared/data/trec8)")
    from evalkit.data.datasets import load_directory

    return load_directory(TREC8, name="trec8", ties="float32")


@pytest.fixture(scope="session")
def trec8():
    if not TREC8.is_dir():
        pytest.skip("TREC-8 data not found (set EVALKIT_DATA or place it at ../shared/data/trec8)")
    from evalkit.data.datasets import load_directory

    return load_directory(TREC8, name="trec8")


@pytest.fixture(scope="session")
def simulated_folders(tmp_path_factory):
    """The simulator's shallow collection (depth-7 pools of one run per group, grades 0/1/2, 30 topics; 40 runs:
    the preset's 143 take longer) and the tiny one (3 runs, 5 string-id topics), written once as TREC files."""
    from evalkit.data.simulator import write_collection

    root = tmp_path_factory.mktemp("simulated")
    return {"shallow": write_collection(root / "shallow", "shallow", n_runs=40, depth=50),
            "tiny": write_collection(root / "tiny", "tiny")}


@pytest.fixture(scope="module")
def shallow(simulated_folders):
    """The shallow collection loaded through the front door (a module's own copy: no state shared between
    modules). A module that needs other sizes defines its own ``shallow``."""
    from evalkit.data.datasets import load_dataset

    return load_dataset(str(simulated_folders["shallow"]))


@pytest.fixture(scope="module")
def tiny(simulated_folders):
    from evalkit.data.datasets import load_dataset

    return load_dataset(str(simulated_folders["tiny"]))


SCREENSHOTS = pytest.StashKey[list]()  # "test id: path" of the screenshots the browser tests took


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    taken = config.stash.get(SCREENSHOTS, [])
    if taken:
        terminalreporter.section("browser screenshots")
        for line in taken:
            terminalreporter.write_line(line)
