"""The benchmarks' protocol (bench/README.md, "Rules"), kept by the code: every ratio is the median of at least
``ROUNDS`` paired, interleaved rounds, states what is inside its timer, both sides' CPU seconds and the load; no bench
module builds a ratio row any other way; bench/RESULTS.md, once written by this protocol, shows it on every row."""

from __future__ import annotations

import ast
import re
import sys
import time
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import common  # noqa: E402  (bench/common.py)


def test_the_documented_minimum_is_the_code_s():
    readme = (BENCH / "README.md").read_text()
    documented = re.search(r"median of at least (\d+) paired, interleaved rounds", readme)
    assert documented, "bench/README.md states the rounds behind every ratio"
    assert int(documented.group(1)) == common.ROUNDS >= 5


def test_a_ratio_row_needs_the_protocol():
    ok = dict(ours_cpu=1.0, peer_cpu=2.0, rounds=5, timer="the call", load="load average 1.0",
              round_ratios=[2.0] * 5)
    common.Result("row", 1.0, 2.0, "peer", ">= 1x", True, **ok)
    for missing in ({"rounds": 3, "round_ratios": [2.0] * 3}, {"timer": ""}, {"ours_cpu": None}, {"load": ""},
                    {"round_ratios": [2.0] * 4}):
        with pytest.raises(ValueError):
            common.Result("row", 1.0, 2.0, "peer", ">= 1x", True, **{**ok, **missing})
    common.Result("absolute", 1.0, None, "-", "< 2 s", True)  # no peer, no ratio: no rounds needed


def test_paired_rounds_alternate_and_the_ratio_is_the_median_of_the_rounds():
    calls = []

    def busy(seconds):
        end = time.process_time() + seconds
        while time.process_time() < end:
            pass

    def ours():
        calls.append("ours")
        busy(0.002)

    def peer():
        calls.append("peer")
        time.sleep(0.002)

    pair = common.paired(ours, peer, rounds=2)  # fewer asked: the documented minimum still holds
    assert pair.rounds == common.ROUNDS and len(pair.peer) == common.ROUNDS
    assert calls[:4] == ["ours", "peer", "peer", "ours"]  # the order alternates round by round
    assert pair.ratio == sorted(pair.ratios)[len(pair.ratios) // 2]  # the median of the rounds' own ratios
    assert pair.cpu("ours") >= 0.0019 and pair.cpu("peer") < pair.cpu("ours")  # CPU seconds: busy, not asleep


def test_a_ratio_from_a_second_core_says_so():
    """Rounds made by hand (no clock): 3x faster on the wall, 0.5x in CPU seconds: the row says the ratio holds only
    on two idle cores; with the CPU ratio at the target too, it says nothing of the kind."""
    threaded = common.Paired(ours=[(1.0, 2.0)] * 4 + [(5.0, 2.0)], peer=[(3.0, 1.0)] * 5, loads=[1.0, 1.2])
    row = threaded.result("row", "peer", ">= 2x", 2, "one call each")
    assert row.ratio == 3.0 and row.met and row.rounds == 5 and row.load == "load average 1.0-1.2"
    assert row.ours == 1.0 and row.ours_cpu == 2.0 and row.peer_cpu == 1.0
    assert "holds only on two idle cores" in row.note
    serial = common.Paired(ours=[(1.0, 1.0)] * 5, peer=[(3.0, 3.0)] * 5, loads=[1.0])
    assert "idle cores" not in serial.result("row", "peer", ">= 2x", 2, "one call each").note


def _result_calls(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Result":
            yield node


@pytest.mark.parametrize("module", sorted(p.name for p in BENCH.glob("bench_*.py")))
def test_no_bench_module_builds_a_ratio_outside_the_protocol(module):
    """A row with a peer's time is made by ``Paired.result`` only: a direct ``Result(...)`` gives ``peer=None``."""
    tree = ast.parse((BENCH / module).read_text())
    for call in _result_calls(tree):
        peer = call.args[2] if len(call.args) > 2 else next((k.value for k in call.keywords if k.arg == "peer"), None)
        assert isinstance(peer, ast.Constant) and peer.value is None, \
            f"{module}:{call.lineno}: a ratio row outside Paired.result"


def test_results_md_shows_the_protocol_on_every_ratio_row():
    text = (BENCH / "RESULTS.md").read_text()
    header = next(line for line in text.splitlines() if line.startswith("| suite |"))
    columns = [c.strip() for c in header.strip("|").split("|")]
    if "rounds" not in columns:
        pytest.skip("bench/RESULTS.md predates the paired protocol: regenerate it with make bench")
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines()
            if line.startswith("| ") and not line.startswith("| suite |")]
    checked = 0
    for row in rows:
        cell = dict(zip(columns, row))
        if not cell["ratio"]:
            continue
        checked += 1
        assert int(cell["rounds"]) >= common.ROUNDS, cell["benchmark"]
        assert cell["evalkit CPU (s)"] and cell["peer CPU (s)"], cell["benchmark"]
        assert cell["inside the timer"] and cell["load"].startswith("load average"), cell["benchmark"]
    assert checked > 0


def test_the_readme_s_summary_is_the_last_results_md_s():
    """make bench writes RESULTS.md and the README's summary together: the README's rows are RESULTS.md's."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_run", BENCH / "run.py")
    bench_run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_run)
    text = (BENCH / "RESULTS.md").read_text()
    if "| rounds |" not in text:
        pytest.skip("bench/RESULTS.md predates the paired protocol: regenerate it with make bench")
    readme = (BENCH.parent / "README.md").read_text()
    assert bench_run.with_summary(readme, text) == readme
    assert "| ratio | target | met |" in readme


def test_every_shape_of_row_prints_and_nothing_is_written_for_a_subset(tmp_path, monkeypatch, capsys):
    """A row with CPU seconds and no peer (an absolute target) once stopped make bench after its first module; a
    run of named modules prints its table and leaves RESULTS.md and the README alone."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_run", BENCH / "run.py")
    bench_run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_run)
    (tmp_path / "bench_shapes.py").write_text(
        "import common\n"
        "def run():\n"
        "    return [common.Result('absolute, CPU', 1.0, None, '-', '< 2 s', True, ours_cpu=1.5),\n"
        "            common.Result('absolute', 1.0, None, '-', '< 2 s', True),\n"
        "            common.Paired(ours=[(1.0, 1.0)] * 5, peer=[(2.0, 2.0)] * 5, loads=[1.0])"
        ".result('paired', 'peer', '>= 1x', 1, 'the call')]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(bench_run, "HERE", tmp_path)
    assert bench_run.main(["shapes"]) == 0
    printed = capsys.readouterr().out
    assert "absolute, CPU: ours 1.000" in printed and "(CPU 1.500)" in printed and "| shapes | paired |" in printed
    assert not (tmp_path / "RESULTS.md").exists()
