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


def _among(names: list[str]) -> str:
    """What a sentence picks among: "the paper's 5 strategies" (or "the 3 strategies" when none is the paper's)."""
    paper = all(n in PAPER_STRATEGIES for n in names)
    return f"the paper's {len(names)} strategies" if paper else f"the {len(names)} strategies"


def table2_sentence(result: Voorhees2014Result) -> str:
    """Voorhees 2014 Table 2: per measure, the most and the least accurate of the paper's strategies (the accuracy
    of the significant pairs, Sec. 3), with intervals; the sentence says it picks among the paper's strategies and
    names any other strategy of the table (e.g. medical2012) that is more accurate still. A measure whose accuracy
    is NaN for every one of them (no trial had a significant pair to score) says so."""
    t2 = table2(result)
    names = _names(result) or [s.name for s in result.strategies]
    parts = []
    for m in result.measures:
        every = t2.xs(m, level="measure")
        part = every.loc[[n for n in names if n in every.index]]
        means = part["mean"].dropna()
        if means.empty:
            parts.append(f"{m}: no accuracy (no trial had a significant pair to score)")
            continue
        best, worst = means.idxmax(), means.idxmin()
        above = every[~every.index.isin(names) & (every["mean"] > means[best])]
        beyond = "".join(f" (beyond the paper, {s} is more accurate still: {_ci(row)})" for s, row in above.iterrows())
        if len(means) == 1:
            parts.append(f"{m}: only {best} has an accuracy, {_ci(part.loc[best])}{beyond}")
        elif means[best] == means[worst]:
            parts.append(f"{m}: all {len(means)} tie at {means[best]:.3f}{beyond}")
        else:
            parts.append(f"{m}: most accurate {best} {_ci(part.loc[best])}, least {worst} "
                         f"{_ci(part.loc[worst])}{beyond}")
    return text("On {collection}, over {trials} {trial_word} (accuracy, mean [95% interval]; the most and the least "
                "accurate of {among}): {parts}.", collection=collection_name(result.dataset), trials=result.trials,
                trial_word=plural(result.trials, "trial"), among=_among(names), parts="; ".join(parts))


def table3_sentence(result: Voorhees2014Result) -> str:
    """Voorhees 2014 Table 3: the weakest and the strongest R̂ correlation (Pearson r of R̂ with the gold R over
    the topics) among the paper's strategies, with intervals. When no strategy has a correlation (every trial's r
    is undefined: R̂ or the gold R the same on every topic) the sentence says so and why."""
    t3 = table3(result)
    names = [n for n in (_names(result) or list(t3.index)) if n in t3.index]
    means = t3.loc[names, "mean"].dropna()
    if means.empty:
        gold = pd.Series(result.gold_R)
        why = (f"only {len(gold)} {plural(len(gold), 'topic')}" if len(gold) < 2
               else f"the gold R is {gold.iloc[0]:g} on every one of the {len(gold)} topics" if gold.nunique() == 1
               else "R̂ is the same on every topic, or undefined, in every trial")
        return text("On {collection}, over {trials} {trial_word}, no strategy's R̂ correlates with R: Pearson r is "
                    "undefined ({why}).", collection=collection_name(result.dataset), trials=result.trials,
                    trial_word=plural(result.trials, "trial"), why=why)
    weakest, strongest = means.idxmin(), means.idxmax()
    return text("On {collection}, over {trials} {trial_word}, of {among}, {weakest} estimates R worst (Pearson r "
                "{weakest_ci}) and {strongest} best ({strongest_ci}).", collection=collection_name(result.dataset),
                trials=result.trials, trial_word=plural(result.trials, "trial"), among=_among(names),
                weakest=weakest, weakest_ci=_ci(t3.loc[weakest]), strongest=strongest,
                strongest_ci=_ci(t3.loc[strongest]))


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
