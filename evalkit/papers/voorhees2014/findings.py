"""Voorhees (2014): the notebook's sentences that state a result, computed from the tables they describe
(:mod:`evalkit.papers.voorhees2014.tables`), each naming the collection and the number of trials. A test compares
each sentence's numbers with its table."""

from __future__ import annotations

import pandas as pd

from evalkit.display.narrative import plural, text
from evalkit.papers.voorhees2014.experiment import Voorhees2014Result
from evalkit.papers.voorhees2014.paper import PAPER_STRATEGIES
from evalkit.papers.voorhees2014.tables import r_hat_impact, table1, table2, table3


#: how a collection's name reads at the start of a sentence
NAMES = {"trec8": "TREC-8", "synthetic": "the simulated collection"}


def collection_name(name: str) -> str:
    """``name`` as a sentence names it ("trec8" -> "TREC-8")."""
    return NAMES.get(str(name), str(name))


def _ci(row: pd.Series, fmt: str = ".3f") -> str:
    return f"{row['mean']:{fmt}} [{row['low']:{fmt}}, {row['high']:{fmt}}]"


def _names(result: Voorhees2014Result) -> list[str]:
    return [s for s in PAPER_STRATEGIES if s in result.strategy_names]


def table1_sentence(result: Voorhees2014Result) -> str:
    """Which of the paper's strategies judges the most and the fewest documents per topic, with intervals."""
    t1 = table1(result).rename(columns={"per topic": "mean"})
    names = _names(result) or list(t1.index)
    most, fewest = t1.loc[names, "mean"].idxmax(), t1.loc[names, "mean"].idxmin()
    return text("On {collection}, over {trials} {trial_word}, {most} judges the most documents of the paper's "
                "strategies, {most_ci} per topic (mean [95% interval over the trials]), and {fewest} the fewest, "
                "{fewest_ci}.", collection=collection_name(result.dataset), trials=result.trials,
                trial_word=plural(result.trials, "trial"), most=most, most_ci=_ci(t1.loc[most], ".1f"),
                fewest=fewest, fewest_ci=_ci(t1.loc[fewest], ".1f"))


def table2_sentence(result: Voorhees2014Result) -> str:
    """Per measure, the most and the least accurate of the paper's strategies, with intervals."""
    t2 = table2(result)
    names = _names(result) or [s.name for s in result.strategies]
    parts = []
    for m in result.measures:
        part = t2.xs(m, level="measure").loc[names]
        best, worst = part["mean"].idxmax(), part["mean"].idxmin()
        parts.append(f"{m}: most accurate {best} {_ci(part.loc[best])}, least {worst} {_ci(part.loc[worst])}")
    return text("On {collection}, over {trials} {trial_word} (accuracy, mean [95% interval]): {parts}.",
                collection=collection_name(result.dataset), trials=result.trials,
                trial_word=plural(result.trials, "trial"),
                parts="; ".join(parts))


def table3_sentence(result: Voorhees2014Result) -> str:
    """The weakest and the strongest R̂ correlation among the paper's strategies, with intervals."""
    t3 = table3(result)
    names = _names(result) or list(t3.index)
    weakest, strongest = t3.loc[names, "mean"].idxmin(), t3.loc[names, "mean"].idxmax()
    return text("On {collection}, over {trials} {trial_word}, {weakest} estimates R worst (Pearson r "
                "{weakest_ci}) and {strongest} best ({strongest_ci}).", collection=collection_name(result.dataset),
                trials=result.trials, trial_word=plural(result.trials, "trial"), weakest=weakest,
                weakest_ci=_ci(t3.loc[weakest]), strongest=strongest, strongest_ci=_ci(t3.loc[strongest]))


def r_hat_sentence(result: Voorhees2014Result, strategy: str = "2strata") -> str:
    """For one strategy: how far infAP's and infNDCG's scores move when the gold R replaces R̂, and what that does
    to the accuracy of the significant pairs (:func:`~evalkit.papers.voorhees2014.tables.r_hat_impact`)."""
    impact = r_hat_impact(result)
    if strategy not in impact.index:
        strategy = impact.index[0]
    row = impact.loc[strategy]
    return text("On {collection}, over {trials} {trial_word}, with the gold R in place of R̂ the {strategy} "
                "samples' infAP scores move by {ap} % of the gold scores and their infNDCG scores by {ndcg} % "
                "(mean [95% interval]); the accuracy of the significant pairs changes by {ap_acc} (MAP) and "
                "{ndcg_acc} (NDCG) points.", collection=collection_name(result.dataset), trials=result.trials,
                trial_word=plural(result.trials, "trial"), strategy=strategy,
                ap=row[("MAP", "score shift (%)")], ndcg=row[("NDCG", "score shift (%)")],
                ap_acc=row[("MAP", "accuracy change (points)")], ndcg_acc=row[("NDCG", "accuracy change (points)")])


def verdicts_sentence(claims_table: pd.DataFrame, dataset: str) -> str:
    """How the paper's claims came out on ``dataset``: the verdicts counted (the paper's rows only)."""
    from evalkit.claims.grading import verdict_counts

    counts = verdict_counts(claims_table).get("paper", pd.Series(dtype=int))
    total = int(counts.sum())
    listed = ", ".join(f"{n} {verdict}" for verdict, n in counts.items())
    return text("On {dataset}, {total} of the paper's {claim_word} graded: {listed}.",
                dataset=collection_name(dataset), total=total, claim_word=plural(total, "claim"),
                listed=listed or "none")


def sensitivity_sentence(frame: pd.DataFrame, trials: int) -> str:
    """How many verdicts the rate sweep (:func:`~evalkit.papers.voorhees2014.sensitivity.rate_sensitivity`)
    leaves unchanged, and which it changes."""
    rows = frame[~frame.index.str.contains("judgments/topic")]
    changed = list(rows.index[rows["survives"] == "no"])
    factors = [c for c in frame.columns if c != "survives"]
    return text("With the reconstructed rates multiplied by {factors} ({trials} {trial_word} each), {same} of "
                "{total} verdicts stay the same wherever the interval decides them{changed}.", factors=", ".join(
                    c.replace("rates ", "") for c in factors), trials=trials, trial_word=plural(trials, "trial"),
                same=len(rows) - len(changed), total=len(rows),
                changed=("; these change: " + "; ".join(changed)) if changed else "")
