"""The dataset cache (evalkit.data.cache): keyed by content, checked on every load, rebuilt when damaged, safe when
saves are killed or run concurrently, and faithful for any docno and any run-table string."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import random_collection, stalled_cache_save

import evalkit
from evalkit.data import cache as cache_module
from evalkit.data.cache import MARKER, CacheWarning, load_cached, save_cached
from evalkit.data.collection import Collection
from evalkit.data.datasets import load_directory
from evalkit.data.trec_files import Qrels, Run


def _write_directory(folder: Path, collection: Collection, table: str | None = None) -> Path:
    (folder / "runs").mkdir(parents=True)
    for i, name in enumerate(collection.run_names):  # file names from positions: a tag may hold any character
        evalkit.write_run(collection.to_run(name), folder / "runs" / f"input.r{i}.gz")
    evalkit.write_qrels(collection.to_qrels(), folder / "qrels.test.txt")
    if table is not None:
        (folder / "runs_table.tsv").write_text(table)
    return folder


@pytest.fixture()
def dataset(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path / "cache"))
    folder = _write_directory(tmp_path / "coll", random_collection(11, n_runs=4))
    return folder


def _entries(tmp_path) -> list[Path]:
    return sorted((tmp_path / "cache").iterdir())


def _same(a: Collection, b: Collection) -> None:
    np.testing.assert_array_equal(a.docs, b.docs)
    np.testing.assert_array_equal(a.scores, b.scores)
    assert list(a.vocabulary) == list(b.vocabulary) and list(a.topics) == list(b.topics)
    assert list(a.run_names) == list(b.run_names)
    np.testing.assert_array_equal(a.qrels.grade, b.qrels.grade)
    np.testing.assert_array_equal(a.qrels.doc, b.qrels.doc)
    pd.testing.assert_frame_equal(a.runs_info, b.runs_info)
    assert a.metadata == b.metadata


def _load_quietly(folder):
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)  # a healthy cache gives no warning
        return load_directory(folder)


def test_cached_reload_equals_the_sources_and_skips_parsing(dataset, tmp_path, monkeypatch):
    first = _load_quietly(dataset)
    (folder,) = _entries(tmp_path)
    assert (folder / MARKER).is_file() and (folder / "manifest.json").is_file()
    import evalkit.data.datasets as datasets

    monkeypatch.setattr(datasets, "read_runs", lambda *a, **k: pytest.fail("the cache was not used"))
    second = _load_quietly(dataset)
    _same(first, second)
    second.runs_info.loc[second.run_names[0], "judged"] = False  # the run table is as writable as a fresh one
    monkeypatch.undo()
    _same(_load_quietly(dataset), load_directory(dataset, cache=False))


def test_edit_keeping_size_and_mtime_is_seen(dataset, tmp_path):
    """Keyed by content: an edit that keeps size and modification time (touch -d, os.utime) is re-read."""
    before = _load_quietly(dataset)
    qrels_file = dataset / "qrels.test.txt"
    stat = qrels_file.stat()
    text = qrels_file.read_text()
    edited = text.replace(" 0\n", " 1\n", 3)  # three nonrelevant documents become relevant; same size
    assert edited != text and len(edited) == len(text)
    qrels_file.write_text(edited)
    os.utime(qrels_file, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert qrels_file.stat().st_size == stat.st_size and qrels_file.stat().st_mtime_ns == stat.st_mtime_ns
    after = _load_quietly(dataset)
    assert int((after.qrels.grade > 0).sum()) == int((before.qrels.grade > 0).sum()) + 3
    _same(after, load_directory(dataset, cache=False))
    ap_after = evalkit.evaluate(None, after, ["AP"], per_topic=False).value.to_numpy()
    ap_files = evalkit.evaluate(qrels_file, sorted((dataset / "runs").iterdir()), ["AP"], per_topic=False)
    np.testing.assert_allclose(ap_after, ap_files.value.to_numpy(), atol=1e-12)


def _flip_bit(path: Path, offset_from_end: int = 10) -> None:
    data = bytearray(path.read_bytes())
    data[-offset_from_end] ^= 0x01
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", ["flipped bit in docs.npy", "truncated scores.npy", "empty meta.json",
                                    "empty manifest.json", "missing q_grade.npy", "garbled vocabulary",
                                    "manifest of another version"])
def test_damaged_cache_is_rebuilt_with_one_warning(dataset, tmp_path, damage):
    sources = _load_quietly(dataset)
    (folder,) = _entries(tmp_path)
    if damage == "flipped bit in docs.npy":
        stat = (folder / "docs.npy").stat()
        _flip_bit(folder / "docs.npy")
        os.utime(folder / "docs.npy", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    elif damage == "truncated scores.npy":
        data = (folder / "scores.npy").read_bytes()
        (folder / "scores.npy").write_bytes(data[: len(data) // 2])
    elif damage == "empty meta.json":
        (folder / "meta.json").write_text("")
    elif damage == "empty manifest.json":
        (folder / "manifest.json").write_text("")
    elif damage == "missing q_grade.npy":
        (folder / "q_grade.npy").unlink()
    elif damage == "garbled vocabulary":
        _flip_bit(folder / "vocabulary_data.npy", 1)
    else:
        manifest = json.loads((folder / "manifest.json").read_text())
        manifest["version"] = -1
        (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.warns(CacheWarning) as caught:
        rebuilt = load_directory(dataset)
    assert len(caught) == 1 and "damaged" in str(caught[0].message) and str(folder) in str(caught[0].message)
    assert "\n" not in str(caught[0].message)
    _same(rebuilt, sources)
    assert _entries(tmp_path) == [folder]  # rebuilt in place, nothing left beside it
    _same(_load_quietly(dataset), sources)  # and healthy again


def test_non_ascii_docnos_topics_and_run_names(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path / "cache"))
    runs = [Run("système-α", np.array(["q-é", "q-é", "401"], object), np.array(["doc-ü", "文書-1", "d😀"], object),
                np.array([2.0, 1.0, 0.5]), ordered=False),
            Run("NA", np.array(["401"], object), np.array(["doc-ü"], object), np.array([1.0]), ordered=False)]
    qrels = Qrels(np.array(["401", "q-é", "q-é"], object), np.array(["d😀", "doc-ü", "文書-1"], object),
                  np.array([1, 0, 2]))
    folder = _write_directory(tmp_path / "coll", Collection.from_runs(runs, qrels))
    first = _load_quietly(folder)
    assert "文書-1" in set(first.vocabulary)
    _same(first, _load_quietly(folder))


def test_run_table_strings_stay_strings(tmp_path, monkeypatch):
    """NA, null, N/A, nan and empty cells (tags in run names too) are strings on a cached reload, not NaN."""
    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path / "cache"))
    names = ["NA", "null", "N/A", "nan", "None"]
    runs = [Run(n, np.array(["1"], object), np.array([f"d{i}"], object), np.array([1.0]), ordered=False)
            for i, n in enumerate(names)]
    qrels = Qrels(np.array(["1"], object), np.array(["d0"], object), np.array([1]))
    table = "run\tgroup\ttype\tpool_priority\n" + "".join(
        f"{n}\t{g}\t{t}\t{p}\n" for n, g, t, p in zip(names, ["null", "NA", "", "nan", "N/A"],
                                                       ["N/A", "", "null", "NA", "nan"], ["1", "", "2", "", "3"]))
    folder = _write_directory(tmp_path / "coll", Collection.from_runs(runs, qrels), table)
    first, second = _load_quietly(folder), _load_quietly(folder)
    for loaded in (first, second):
        info = loaded.runs_info
        assert list(info.index) == names and list(loaded.run_names) == names
        assert list(info["group"]) == ["null", "NA", "", "nan", "N/A"]
        assert list(info["type"]) == ["N/A", "", "null", "NA", "nan"]
        assert info["pool_priority"].isna().tolist() == [False, True, False, True, False]
    _same(first, second)


def test_metadata_is_persisted(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path / "cache"))
    from dataclasses import replace

    collection = replace(random_collection(12), metadata={"pool": {"depth": 100, "rule": "all top-100 judged"},
                                                          "note": "ünïcode"})
    where = tmp_path / "cache" / "x-0123456789abcdef01234567"
    assert save_cached(collection, where)
    _same(load_cached(where), collection)


def test_unwritable_cache_warns_once_and_loads(dataset, tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("EVALKIT_CACHE", str(blocker))
    with pytest.warns(CacheWarning, match="could not write the dataset cache") as caught:
        loaded = load_directory(dataset)
    assert len(caught) == 1
    _same(loaded, load_directory(dataset, cache=False))
    assert blocker.read_text().startswith("a file")


def _python(code: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)


def test_killed_save_leaves_nothing_behind_and_concurrent_loads_agree(dataset, tmp_path):
    """A save killed mid-way (SIGKILL) leaves a temporary folder that the next save removes; two processes loading
    the same dataset at once both succeed with the same numbers and leave one healthy cache."""
    env = {**os.environ, "EVALKIT_CACHE": str(tmp_path / "cache")}
    stuck = stalled_cache_save(dataset, tmp_path / "cache")
    assert stuck.stdout.readline().strip() == "writing"
    stuck.send_signal(signal.SIGKILL)
    stuck.wait()
    leftovers = [p for p in _entries(tmp_path) if p.name.startswith(".tmp-")]
    assert len(leftovers) == 1 and (leftovers[0] / "docs.npy").is_file()
    # a folder the kit did not make is never removed, even if it looks like a temporary one
    foreign = tmp_path / "cache" / ".tmp-not-ours"
    foreign.mkdir()
    (foreign / "precious.txt").write_text("keep me")

    script = f"""
        import hashlib, evalkit
        from evalkit.data.datasets import load_directory
        c = load_directory({str(dataset)!r})
        ap = evalkit.evaluate(None, c, ["AP"], per_topic=False).value.round(12).tolist()
        print(hashlib.sha256(c.docs.tobytes() + c.scores.tobytes()).hexdigest(), ap)
        """
    loaders = [_python(script, env=env) for _ in range(2)]
    outputs = [p.communicate(timeout=300) for p in loaders]
    assert [p.returncode for p in loaders] == [0, 0], [err for _, err in outputs]
    assert outputs[0][0] == outputs[1][0] and outputs[0][0].strip()
    entries = _entries(tmp_path)
    assert [p.name for p in entries if p.name.startswith(".tmp-")] == [".tmp-not-ours"]
    assert (foreign / "precious.txt").read_text() == "keep me"
    (healthy,) = [p for p in entries if not p.name.startswith(".tmp-")]
    assert load_cached(healthy) is not None


def test_stale_temporaries_of_dead_processes_are_cleaned(tmp_path):
    root = tmp_path / "cache"
    root.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    host = cache_module._host()
    made = {
        "dead, ours": (root / f".tmp-{host}-{dead_pid}-abcdef12-trec8-x", True),
        "alive, ours": (root / f".tmp-{host}-{os.getpid()}-abcdef12-trec8-x", True),
        "other host": (root / f".tmp-otherhost-{dead_pid}-abcdef12-trec8-x", True),
        "no marker": (root / f".tmp-{host}-{dead_pid}-abcdef12-user", False),
        "version 3, dead": (root / f"trec8-{'a' * 24}.tmp{dead_pid}", None),
        "version 3, other files": (root / f"trec8-{'b' * 24}.tmp{dead_pid}", "other"),
    }
    for folder, marker in made.values():
        folder.mkdir()
        if marker is True:
            (folder / MARKER).write_bytes(b"")
        (folder / ("notes.txt" if marker == "other" else "meta.json")).write_text("{}")
    old = made["other host"][0]
    os.utime(old, (time.time() - 2 * 86400,) * 2)  # abandoned for two days: removed whatever the host
    removed = set(cache_module.clean_stale_temporaries(root))
    assert removed == {made["dead, ours"][0], made["version 3, dead"][0], old}
    assert all(folder.exists() for folder, _ in made.values() if folder not in removed)


def test_a_healthy_cache_is_never_replaced(dataset, tmp_path):
    """A process that rebuilt a damaged cache while another already replaced it keeps the other's (readers of that
    folder are not disturbed), and leaves no temporary folder."""
    first = _load_quietly(dataset)
    (folder,) = _entries(tmp_path)
    inode = (folder / "docs.npy").stat().st_ino
    assert save_cached(first, folder)
    assert _entries(tmp_path) == [folder] and (folder / "docs.npy").stat().st_ino == inode
