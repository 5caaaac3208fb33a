"""``evalkit plan`` through the front door: a collection folder written as TREC files, the printed table equal to
evalkit.planning.plan's numbers, and bad options refused in one line that names the option."""

from __future__ import annotations

import pytest

from evalkit.cli import main
from evalkit.data.simulator import write_collection


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return write_collection(tmp_path_factory.mktemp("plan-cli") / "shallow", "shallow", n_runs=30, depth=40)


def test_plan_prints_the_table(folder, capsys):
    from evalkit.data.datasets import load_dataset
    from evalkit.planning import plan

    code = main(["plan", "--dataset", str(folder), "-m", "AP", "--power", "0.8", "--delta", "0.05",
                 "--budget", "3000", "--replicates", "2"])
    out = capsys.readouterr().out
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("collection: shallow (simulated) (30 runs, 30 topics, judged depth 7")
    assert lines[1] == ("requirement: power 0.8 for the paired t-test to detect a difference of 0.05 in AP at "
                        "alpha = 0.05, within 3,000 judgments")
    frame = plan(load_dataset(str(folder)), "AP", power=0.8, delta=0.05, budget=3000, replicates=2)
    full = [line for line in lines if line.startswith("full judgments")][0]
    assert f"{frame.iloc[0]['topics']:,.0f}" in full.split()
    cheapest = frame[frame.cheapest].iloc[0]
    assert any(line.startswith(cheapest["design"]) and "cheapest" in line for line in lines)
    assert f"the cheapest design meeting the requirement is {cheapest['design']}" in out
    assert "Within 3,000 judgments the most is power" in out


def test_plan_for_a_ci_width(folder, capsys):
    assert main(["plan", "--dataset", str(folder), "--ci-width", "0.2", "--replicates", "1"]) == 0
    out = capsys.readouterr().out
    assert "no wider than 0.2" in out and "CI width" not in out.splitlines()[2]  # no budget column without budget


@pytest.mark.parametrize("options, named", [
    (["--delta", "0.05", "--power", "1.5"], "--power"),
    (["--delta", "-0.05"], "--delta"),
    (["--ci-width", "0"], "--ci-width"),
    (["--delta", "0.05", "--budget", "0"], "--budget"),
    (["--delta", "0.05", "--alpha", "2"], "--alpha"),
    (["--delta", "0.05", "--ci-width", "0.1"], "--delta"),
    ([], "--delta"),
    (["--delta", "0.05", "-m", "NotAMeasure"], "-m/--measure"),
    (["--delta", "0.05", "--replicates", "0"], "--replicates"),
    (["--delta", "0.05", "--test", "ci"], "--test"),
])
def test_bad_options_one_line(folder, capsys, options, named):
    assert main(["plan", "--dataset", str(folder)] + options) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("evalkit: error: ") and named in err[0]


def test_missing_dataset_named(tmp_path, capsys):
    assert main(["plan", "--dataset", str(tmp_path / "nothing"), "--delta", "0.05"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nothing" in err[0]
