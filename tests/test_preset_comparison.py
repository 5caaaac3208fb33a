"""The class-versus-paper comparison of claims tables (issue 28.4), by hand-made tables and through the command
on claims.csv files on disk."""

from __future__ import annotations

import pandas as pd
import pytest

from evalkit.claims.preset_comparison import changed_conclusions, compare_presets, read_claims_table, summary
from evalkit.cli import main


def _claims(*rows: tuple[str, str]) -> pd.DataFrame:
    return pd.DataFrame({"notebook": ["03_voorhees2014"] * len(rows), "claim": [c for c, _ in rows],
                         "verdict": [v for _, v in rows], "paper": "Voorhees 2014"})


CLASS = _claims(("Table 2: 1stratum is the worst", "yes"),
                ("Table 2: pooling beats 2strata", "inconclusive (0.01 [-0.02, 0.04])"),
                ("KS test, 10 samples: share not rejected", "not rated at class size (10 samples; the paper's 100)"),
                ("Figure 1: pool25 underestimates R", "direction only: yes"),
                ("Table 3: R-hat correlation", "no"))
PAPER = _claims(("Table 2: 1stratum is the worst", "yes"),
                ("Table 2: pooling beats 2strata", "inconclusive (0.02 [-0.01, 0.05])"),
                ("KS test, 100 samples: share not rejected", "no"),
                ("Figure 1: pool25 underestimates R", "direction only: no"),
                ("Table 3: R-hat correlation", "no"),
                ("Sec. 4: R-hat matters more for infAP", "yes"))


def test_same_verdicts_the_class_runs_declines_and_changed_ones():
    comparison = compare_presets(CLASS, PAPER)
    outcome = dict(zip(comparison.claim, comparison.outcome))
    assert outcome == {
        "Table 2: 1stratum is the worst": "same verdict",
        # the interval differs, the rating does not
        "Table 2: pooling beats 2strata": "same verdict",
        # paired although its words state the sizes run (10 and 100 samples): the paper run's words are kept
        "KS test, 100 samples: share not rejected": "not rated at class size",
        "Figure 1: pool25 underestimates R": "changed",
        "Table 3: R-hat correlation": "same verdict",
        "Sec. 4: R-hat matters more for infAP": "only at paper",
    }
    assert list(changed_conclusions(comparison).claim) == ["Figure 1: pool25 underestimates R",
                                                           "Sec. 4: R-hat matters more for infAP"]
    assert summary(comparison) == ("3 of 6 claims keep their verdict at the class preset; 1 are not rated at "
                                   "class size (each says why); 2 differ (1 changed, 1 only at paper).")


def test_a_claim_stated_twice_is_paired_in_order():
    twice_class = _claims(("tau for AP", "yes"), ("tau for AP", "no"))
    twice_paper = _claims(("tau for AP", "yes"), ("tau for AP", "yes"))
    assert list(compare_presets(twice_class, twice_paper).outcome) == ["same verdict", "changed"]


def test_a_paper_run_that_declines_is_not_excused():
    # only the class run may decline at its size; a paper verdict "not rated at class size" is a difference
    comparison = compare_presets(_claims(("x", "yes")), _claims(("x", "not rated at class size (3 trials)")))
    assert list(comparison.outcome) == ["changed"]


def test_the_command_reads_the_folders_and_exits_1_on_a_change(tmp_path, capsys):
    (tmp_path / "class").mkdir()
    (tmp_path / "paper").mkdir()
    CLASS.to_csv(tmp_path / "class" / "claims.csv", index=False)
    PAPER.to_csv(tmp_path / "paper" / "claims.csv", index=False)
    assert main(["claims", "compare", str(tmp_path / "class"), str(tmp_path / "paper")]) == 1
    out = capsys.readouterr().out
    assert "Figure 1: pool25 underestimates R" in out and "Table 3" not in out
    assert out.rstrip().endswith("2 differ (1 changed, 1 only at paper).")
    # the same run on both sides: nothing changes, exit 0, --all lists every claim
    assert main(["claims", "compare", "--all", str(tmp_path / "paper" / "claims.csv"), str(tmp_path / "paper")]) == 0
    out = capsys.readouterr().out
    assert "Table 3" in out and out.rstrip().endswith("0 are not rated at class size (each says why); none changes.")


def test_a_folder_without_claims_is_one_line(tmp_path, capsys):
    assert main(["claims", "compare", str(tmp_path), str(tmp_path)]) == 2
    assert capsys.readouterr().err == (f"evalkit: error: {tmp_path}: no claims.csv (give a batch output folder of "
                                       f"'evalkit notebooks run', or its claims.csv)\n")
    (tmp_path / "claims.csv").write_text("notebook,claim\nx,y\n")
    with pytest.raises(ValueError, match="not a claims table: no column 'verdict'"):
        read_claims_table(tmp_path)
