"""Pool metadata a reviewer gives (runs_table.tsv 'judged', collection.json / .toml) or the kit derives, read
through the front door: simulated collections written as TREC files and loaded with load_dataset."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest

from evalkit.data.datasets import load_dataset
from evalkit.data.pool_metadata import PoolMetadataError, describe
from evalkit.data.pools import complete_depths, judged_depth
from evalkit.data.simulator import write_collection

SMALL = {"n_runs": 20, "n_topics": 8, "depth": 30, "topic_ids": [str(401 + t) for t in range(8)]}


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """One small shallow-pool folder (depth-7 pools of each group's first run, judged column, collection.json) and
    its unmarked twin (no judged column, no collection.json)."""
    root = tmp_path_factory.mktemp("pools")
    return {"shallow": write_collection(root / "shallow", "shallow", **SMALL),
            "unmarked": write_collection(root / "unmarked", "unmarked", **SMALL)}


@pytest.fixture()
def folder(folders, tmp_path, monkeypatch):
    """A private copy of the shallow folder to edit, with a private cache."""
    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path / "cache"))
    target = tmp_path / "data"
    shutil.copytree(folders["shallow"], target)
    return target


def _table(folder) -> pd.DataFrame:
    return pd.read_csv(folder / "runs_table.tsv", sep="\t", dtype=str)


def _write_table(folder, frame: pd.DataFrame) -> None:
    frame.to_csv(folder / "runs_table.tsv", sep="\t", index=False)


def test_shallow_folder_says_which_runs_and_how_deep(folders, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path))
    c = load_dataset(str(folders["shallow"]))
    table = _table(folders["shallow"]).set_index("run")
    expected = (table["judged"] == "yes").reindex(c.run_names).to_numpy()
    np.testing.assert_array_equal(c.judged_runs, expected)
    assert expected.sum() == (table["pool_priority"] == "1").sum()  # one run per group contributed
    m = c.metadata
    assert m["judged_runs_source"] == "runs_table.tsv" and m["n_judged"] == expected.sum()
    assert m["judged_depth"] == 7 and m["judged_depth_source"] == "collection.json"
    assert m["pool_coverage"] == 1.0
    assert c.name == "shallow (simulated)"  # collection.json's name
    err = capsys.readouterr().err
    assert (f"shallow (simulated): {expected.sum()} of 20 runs judged (runs_table.tsv column 'judged'); judged "
            "depth 7 (collection.json 'judged_depth')") in err
    assert judged_depth(c) == 7


def test_no_judged_run_is_said_and_no_depth_claimed(folders, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path))
    c = load_dataset(str(folders["unmarked"]))
    assert not c.judged_runs.any()
    assert c.metadata["judged_depth"] is None and c.metadata["judged_depth_source"] == "none"
    assert judged_depth(c) == 0  # never the run depth (30) for an empty pool
    err = capsys.readouterr().err
    assert "unmarked: no run of 20 is judged (rule: derived: every document of the run's top 100 is in the qrels" in err
    assert "a 'judged' column (yes/no) in runs_table.tsv" in err and "\"judged_depth\" in collection.json" in err
    assert "have their top 7 judged on every topic and the count drops most after rank 7" in err
    assert 'The data suggest this collection.json: {"judged_depth": 7' in err


def test_judged_depth_alone_drives_the_derived_rule(folders, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path / "cache"))
    target = tmp_path / "data"
    shutil.copytree(folders["unmarked"], target)
    (target / "collection.json").write_text(json.dumps({"judged_depth": 7}))
    c = load_dataset(str(target))
    # hand check: the runs whose top 7 is judged on every topic, which includes every contributing run
    expected = complete_depths(c) >= 7
    np.testing.assert_array_equal(c.judged_runs, expected)
    contributed = _table(folders["shallow"]).set_index("run")["judged"].reindex(c.run_names) == "yes"
    assert (c.judged_runs | ~contributed.to_numpy()).all()
    assert c.metadata["judged_runs_rule"].startswith("derived: every document of the run's top 7")


@pytest.mark.parametrize("value", ["yes", "Yes", "TRUE", "1", "no", "False", "0", "NO"])
def test_judged_column_values(folder, value):
    table = _table(folder)
    table["judged"] = value
    _write_table(folder, table)
    c = load_dataset(str(folder))
    expected = value.lower() in ("yes", "true", "1")
    assert (c.judged_runs == expected).all()


def test_bad_judged_value_names_file_line_and_value(folder):
    table = _table(folder)
    table.loc[3, "judged"] = "maybe"
    _write_table(folder, table)
    with pytest.raises(PoolMetadataError) as error:
        load_dataset(str(folder))
    run = table.loc[3, "run"]
    assert str(error.value) == (f"{folder / 'runs_table.tsv'}, line 5: column 'judged' of run {run!r} is 'maybe'; "
                                "expected true/false, 1/0 or yes/no")


def test_line_numbers_count_blank_lines_and_empty_cells_are_errors(folder):
    lines = (folder / "runs_table.tsv").read_text().splitlines()
    fields = lines[2].split("\t")
    fields[-1] = ""
    lines[2] = "\t".join(fields)
    (folder / "runs_table.tsv").write_text(lines[0] + "\n\n" + "\n".join(lines[1:]) + "\n")
    with pytest.raises(PoolMetadataError, match=r"runs_table.tsv, line 4: column 'judged' of run '.*' is ''"):
        load_dataset(str(folder))


def test_judged_column_must_cover_every_run_and_only_known_runs(folder):
    table = _table(folder)
    _write_table(folder, table.iloc[1:])
    with pytest.raises(PoolMetadataError, match=f"column 'judged' has no row for run\\(s\\) {table.run[0]}; every run"):
        load_dataset(str(folder))
    extra = pd.concat([table, table.iloc[[0]].assign(run="ghost")], ignore_index=True)
    _write_table(folder, extra)
    with pytest.raises(PoolMetadataError, match="column 'judged' names run\\(s\\) not in runs/: ghost"):
        load_dataset(str(folder))


def test_collection_json_judged_runs_override_and_unknown_runs(folder, capsys):
    table = _table(folder)
    contributed = list(table.run[table.judged == "yes"][:3])
    _write_table(folder, table.drop(columns="judged"))
    (folder / "collection.json").write_text(json.dumps({"judged_runs": contributed, "judged_depth": 7}))
    c = load_dataset(str(folder))
    assert list(c.run_names[c.judged_runs]) == contributed
    assert c.metadata["judged_runs_rule"] == "collection.json 'judged_runs'"
    assert c.metadata["pool_coverage"] == 1.0
    # a run that did not contribute: part of its top 7 is not in the qrels, and the load line says so
    wrong = contributed + list(table.run[table.judged == "no"][:1])
    (folder / "collection.json").write_text(json.dumps({"judged_runs": wrong, "judged_depth": 7}))
    c = load_dataset(str(folder))
    assert c.metadata["pool_coverage"] < 1.0
    assert "of the judged runs' depth-7 pool is in the qrels: check the judged runs" in capsys.readouterr().err
    (folder / "collection.json").write_text(json.dumps({"judged_runs": contributed + ["nosuchrun", "other"]}))
    with pytest.raises(PoolMetadataError, match="'judged_runs' names run\\(s\\) not in runs/: nosuchrun, other"):
        load_dataset(str(folder))


def test_collection_json_and_judged_column_must_agree(folder):
    table = _table(folder)
    judged = list(table.run[table.judged == "yes"])
    (folder / "collection.json").write_text(json.dumps({"judged_runs": judged, "judged_depth": 7}))
    c = load_dataset(str(folder))
    assert "which agrees" in c.metadata["judged_runs_rule"]
    (folder / "collection.json").write_text(json.dumps({"judged_runs": judged[1:], "judged_depth": 7}))
    with pytest.raises(PoolMetadataError, match=f"disagree on run\\(s\\) {judged[0]}"):
        load_dataset(str(folder))


@pytest.mark.parametrize("content, message", [
    ({"gains": {"1": 0.5, "2": 1}}, "'gains' is not supported: the kit does not use a gain map"),
    ({"judged_dept": 7}, "unknown key\\(s\\) 'judged_dept'; known:"),
    ({"judged_depth": 0}, "'judged_depth' must be a whole number in 1..2147483647, got 0"),
    ({"judged_depth": "7"}, "'judged_depth' must be a whole number in 1..2147483647, got '7'"),
    ({"judged_runs": "g01r1"}, "'judged_runs' must be a list of run names"),
    ({"judged_runs": ["a"], "judged_pool_priority": 1}, "give 'judged_runs' or 'judged_pool_priority', not both"),
])
def test_collection_json_is_strict(folder, content, message):
    (folder / "collection.json").write_text(json.dumps(content))
    with pytest.raises(PoolMetadataError, match=message):
        load_dataset(str(folder))


def test_invalid_json_names_the_line(folder):
    (folder / "collection.json").write_text('{\n "judged_depth": 7,\n}\n')
    with pytest.raises(PoolMetadataError, match="collection.json, line 3: not valid JSON"):
        load_dataset(str(folder))


def test_collection_toml_and_pool_priority_rule(folder):
    _write_table(folder, _table(folder).drop(columns="judged"))
    (folder / "collection.json").unlink()
    (folder / "collection.toml").write_text('name = "my pools"\njudged_depth = 7\njudged_pool_priority = 1\n')
    c = load_dataset(str(folder))
    priority = pd.to_numeric(c.runs_info["pool_priority"])
    np.testing.assert_array_equal(c.judged_runs, (priority <= 1).to_numpy())
    assert c.name == "my pools" and c.metadata["pool_priority"] == "used"
    assert c.metadata["judged_runs_rule"] == "runs_table.tsv pool_priority <= 1 (collection.toml 'judged_pool_priority')"
    (folder / "collection.json").write_text("{}")
    with pytest.raises(PoolMetadataError, match="both collection.json and collection.toml are present; keep one"):
        load_dataset(str(folder))


def test_unused_pool_priority_is_said(folders, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path))
    c = load_dataset(str(folders["unmarked"]))
    assert c.metadata["pool_priority"].startswith("not used (\"judged_pool_priority\": N in collection.json")
    c = load_dataset(str(folders["shallow"]))
    assert c.metadata["pool_priority"] == "not used: the judged runs are given explicitly"


def test_metadata_survives_the_cache_and_an_edit_invalidates_it(folder):
    first = load_dataset(str(folder))
    again = load_dataset(str(folder))
    assert again.metadata == first.metadata
    np.testing.assert_array_equal(again.judged_runs, first.judged_runs)
    (folder / "collection.json").write_text(json.dumps({"judged_depth": 5}))
    edited = load_dataset(str(folder))
    assert edited.metadata["judged_depth"] == 5 and edited.name == "data"
    from evalkit.data.datasets import load_directory

    assert load_directory(folder, name="mine").name == "mine"  # an explicit name wins over collection.json's


def test_describe_says_when_the_metadata_looks_wrong():
    line = describe({"n_runs": 10, "n_judged": 4, "judged_runs_rule": "r", "judged_depth": 9,
                     "judged_depth_rule": "d", "pool_coverage": 0.5}, "x")
    assert line == ("x: 4 of 10 runs judged (r); judged depth 9 (d); only 50.0% of the judged runs' depth-9 pool is "
                    "in the qrels: check the judged runs and the judged depth.")


def test_trec8_metadata(trec8):
    m = trec8.metadata
    assert (m["n_judged"], m["judged_depth"], m["judged_runs_source"], m["judged_depth_source"]) == \
        (72, 100, "derived", "derived")
    assert m["pool_coverage"] == 1.0


# -- what the folder's own evidence suggests, and the qrels outside the judged runs' pool (issue 26 items 1, 4) ----

def test_a_folder_with_only_pool_priority_gets_the_complete_suggestion(folders, tmp_path, monkeypatch, capsys):
    """The unmarked folder says nothing about its pools but has runs_table.tsv's pool_priority: the load line
    proposes judged_depth 7 and judged_pool_priority 1, and following it gives exactly the judged runs the shallow
    twin declares (its 'judged' column)."""
    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path / "cache"))
    target = tmp_path / "unmarked"
    shutil.copytree(folders["unmarked"], target)
    collection = load_dataset(str(target))
    line = capsys.readouterr().err
    assert collection.metadata["suggestion"] == '{"judged_depth": 7, "judged_pool_priority": 1}'
    assert ('The data suggest this collection.json: {"judged_depth": 7, "judged_pool_priority": 1} (evalkit '
            'collection suggest DIR shows it and writes it).') in line
    (target / "collection.json").write_text(collection.metadata["suggestion"])
    followed = load_dataset(str(target))
    declared = load_dataset(str(folders["shallow"]))
    np.testing.assert_array_equal(followed.runs_info["judged"].to_numpy(bool), declared.runs_info["judged"].to_numpy(bool))
    assert followed.metadata["judged_depth"] == 7


def test_judgments_outside_the_judged_runs_pool_are_counted_and_said(folder, capsys):
    """Both directions of the coverage: judgments the qrels hold outside the judged runs' depth-7 pool (a later
    round's additions) are counted at load and named in the load line."""
    collection = load_dataset(str(folder))
    assert collection.metadata["pool_coverage"] == 1.0 and collection.metadata["qrels_outside_pool"] == 0
    judged = collection.judged_runs
    unjudged_run = int(np.flatnonzero(~judged)[0])
    qrels = next(folder.glob("qrels*"))
    inside = {(collection.topics[t], collection.vocabulary[d]) for t, d in
              zip(collection.qrels.topic, collection.qrels.doc)}
    extra = []
    for t in range(collection.n_topics):
        for doc in collection.docs[unjudged_run, t, 20:23]:
            key = (collection.topics[t], collection.vocabulary[doc])
            if doc >= 0 and key not in inside:
                extra.append(f"{key[0]} 0 {key[1]} {len(extra) % 2}\n")
    qrels.write_text(qrels.read_text() + "".join(extra))
    capsys.readouterr()
    grown = load_dataset(str(folder))
    assert grown.metadata["qrels_outside_pool"] == len(extra) > 0
    assert grown.metadata["relevant_outside_pool"] == sum(1 for line in extra if line.endswith(" 1\n"))
    assert (f"; {len(extra):,} judgments of the qrels ({grown.metadata['relevant_outside_pool']:,} relevant) lie "
            "outside the judged runs' depth-7 pool.") in capsys.readouterr().err


def test_collection_suggest_shows_writes_and_never_replaces(folders, tmp_path):
    import subprocess
    import sys

    target = tmp_path / "unmarked"
    shutil.copytree(folders["unmarked"], target)
    command = [sys.executable, "-m", "evalkit.cli", "collection", "suggest", str(target)]
    dry = subprocess.run(command + ["--dry-run"], capture_output=True, text=True)
    assert dry.returncode == 0 and "not written (--dry-run)" in dry.stdout
    assert not (target / "collection.json").exists()
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads((target / "collection.json").read_text()) == {"judged_depth": 7, "judged_pool_priority": 1}
    (target / "collection.json").write_text('{"judged_depth": 6}')
    again = subprocess.run(command, capture_output=True, text=True)
    assert again.returncode == 1 and "exists (the kit never replaces it)" in again.stdout
    assert json.loads((target / "collection.json").read_text()) == {"judged_depth": 6}


def _short_and_long_runs(folder):
    """The tester's D1 folder: runs long1, long2 rank 10 documents a topic, short1, short2 only 2; topics t1-t3;
    the qrels are the depth-2 pool of all four runs (grade 1 at rank 1, 0 at rank 2); no collection.json."""
    (folder / "runs").mkdir(parents=True)
    qrels = []
    for run, length in (("long1", 10), ("long2", 10), ("short1", 2), ("short2", 2)):
        lines = [f"t{t} Q0 {run}-{t}-{r} {r} {100 - r} {run}\n" for t in (1, 2, 3) for r in range(1, length + 1)]
        (folder / "runs" / f"{run}.txt").write_text("".join(lines))
        qrels += [f"t{t} 0 {run}-{t}-{r} {r % 2}\n" for t in (1, 2, 3) for r in (1, 2)]
    (folder / "qrels.txt").write_text("".join(qrels))
    return folder


def test_derived_judged_depth_stops_where_the_judged_runs_end(tmp_path, monkeypatch, capsys):
    """Runs shorter than the pool are derived judged (their whole top 100, 2 documents, is in the qrels); their
    pool is judged to their end, rank 2, so the judged depth is 2 (by hand: no judged run has a rank-3 document),
    not the longest run's 10, and `evalkit collection suggest` on the same folder says 2 too. The load line says
    why it stops there."""
    import subprocess
    import sys

    monkeypatch.setenv("EVALKIT_CACHE", str(tmp_path / "cache"))
    folder = _short_and_long_runs(tmp_path / "coll")
    collection = load_dataset(str(folder))
    assert list(collection.run_names[collection.judged_runs]) == ["short1", "short2"]
    assert collection.metadata["judged_depth"] == 2 and judged_depth(collection, runs=collection.judged_runs) == 2
    assert ("2 of 4 runs judged (derived: every document of the run's top 100 is in the qrels, on every topic); "
            "judged depth 2 (derived: every document the judged runs rank is in the qrels, and they rank at most 2 "
            "documents a topic)") in capsys.readouterr().err
    suggested = subprocess.run([sys.executable, "-m", "evalkit.cli", "collection", "suggest", str(folder),
                                "--dry-run"], capture_output=True, text=True)
    assert suggested.returncode == 0 and '"judged_depth": 2' in suggested.stdout
    # a judged run with one document at rank 3 (judged) reaches rank 3: the depth follows it
    with open(folder / "runs" / "short1.txt", "a") as handle:
        handle.write("t2 Q0 extra 3 1 short1\n")
    with open(folder / "qrels.txt", "a") as handle:
        handle.write("t2 0 extra 0\n")
    assert load_dataset(str(folder)).metadata["judged_depth"] == 3
