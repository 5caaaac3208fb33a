"""Carterette (2007), the aggregation prior Beta(a, a), the one parameter the kit has to reconstruct that decides
the verdicts (the paper trained its own on TREC-4, which the kit does not have, and states a = b = 1, with which the
kit's RTC collapses): RTC run at many strengths (:func:`rtc_sweep`, one pool of workers, the same runs for every
strength), the strength chosen on the collection studied by two-fold topic-split cross-validation
(:func:`topic_split_sweeps` runs it, :func:`prior_cross_validation` chooses and scores the choice on the held-out
half), a second opinion on a simulated collection the choice was not made on (:func:`second_opinion_collection`),
the main experiment's trials re-run with RTC at other strengths for the sensitivity of the verdicts
(:func:`with_rtc_from`), and what is left of RTC when its fitted p hardly vary (:func:`constant_p_evidence`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalkit.confidence import ExpertAggregation
from evalkit.data.collection import Collection
from evalkit.papers.carterette2007.experiment import (
    PAIR_TYPES,
    ExperimentResults,
    TrialData,
    carterette_trial,
)
from evalkit.papers.carterette2007.paper import PRIOR_GRID
from evalkit.papers.carterette2007.scoring import (
    INTERVAL_SEED,
    paired_interval,
    trial_interval,
    trial_tallies,
    w_bar_interval,
)
from evalkit.papers.carterette2007.tables import rtc_summary
from evalkit.stats import ratio_interval

#: the strengths a = b of the aggregation prior the kit chooses among (:data:`~evalkit.papers.carterette2007.paper.
#: PRIOR_GRID`)
PRIOR_STRENGTHS = PRIOR_GRID

#: the simulator's parameters for the second opinion on the prior (:func:`second_opinion_collection`): TREC-8's
#: fit with the two features of TREC-8's runs that produce its confident zero-judgment mistakes removed (no run
#: returns a short list; no tied scores)
SECOND_OPINION_PARAMS = {"short_runs": {"run_share": 0.0},
                         "ties": {"rate_quantiles": [0.0] * 21}}


def _rtc_task(index: int, trial_seed, strength: float, part: str, datasets: dict, trial_kwargs: dict) -> dict:
    """One RTC-only trial of :func:`carterette_trial` at the prior Beta(strength, strength) on ``datasets[part]``
    (module-level: workers receive it by reference)."""
    kwargs = dict(trial_kwargs)
    model_kwargs = dict(kwargs.pop("model_kwargs", None) or {})
    model = ExpertAggregation(prior=(float(strength), float(strength)), **model_kwargs)
    return carterette_trial(index, trial_seed, datasets[part], model=model, run_mtc=False, **kwargs)


def rtc_sweep(datasets: dict, strengths=PRIOR_STRENGTHS, n_trials: int = 30, seed: int = 2007, *,
              scheduler: str | None = None, n_jobs: int | None = None, progress: bool = True,
              desc: str = "carterette2007: RTC per prior strength", **trial_kwargs) -> dict:
    """RTC alone (MTC and IP skipped) at the prior Beta(a, a) for every a in ``strengths`` on every collection of
    ``datasets`` (``{part: TrialData}``, e.g. the two halves of the topics): ``n_trials`` trials each, the same
    trial seeds (so the same runs) for every strength and part, all through one pool of workers with one progress
    bar. ``trial_kwargs`` go to :func:`carterette_trial` (``model_kwargs`` to the model). Returns
    ``{(part, a): ExperimentResults}``."""
    from evalkit.parallel import run_tasks, trial_seeds

    datasets = {str(part): data for part, data in datasets.items()}
    seeds = trial_seeds(seed, int(n_trials))
    keys = [(part, float(a)) for part in datasets for a in strengths]
    tasks = [(index, trial_seed, a, part) for part, a in keys for index, trial_seed in enumerate(seeds)]
    outputs = run_tasks(_rtc_task, tasks, args=(datasets, trial_kwargs), scheduler=scheduler, n_jobs=n_jobs,
                        progress=progress, desc=desc, what="trial")
    out = {}
    for number, (part, a) in enumerate(keys):
        chunk = outputs[number * len(seeds):(number + 1) * len(seeds)]
        trials = pd.DataFrame([o["trial"] for o in chunk])
        pairs = pd.concat([pd.DataFrame(o["pairs"]) for o in chunk], ignore_index=True) if chunk else pd.DataFrame()
        if len(pairs):
            pairs["pair_type"] = pairs["n_original"].map(PAIR_TYPES)
        out[(part, a)] = ExperimentResults(trials=trials, pairs=pairs, params={
            "n_trials": int(n_trials), "seed": seed, "data": datasets[part].name, "prior": (a, a), **trial_kwargs})
    return out


def topic_halves(n_topics: int, seed: int = 2007) -> tuple[np.ndarray, np.ndarray]:
    """The topics (indices) split at random into two halves (the first gets the odd one out), each sorted:
    the folds of :func:`choose_prior_by_topic_split`."""
    if n_topics < 2:
        raise ValueError(f"a topic split needs at least 2 topics, got {n_topics}")
    order = np.random.default_rng(seed).permutation(n_topics)
    cut = (n_topics + 1) // 2
    return np.sort(order[:cut]), np.sort(order[cut:])


@dataclass
class TopicSplit:
    """The sweeps behind the two-fold topic-split choice of the prior (:func:`topic_split_sweeps`): ``halves`` the
    topic indices of halves "A" and "B", ``topic_ids`` their ids, ``sweeps`` :func:`rtc_sweep`'s results per
    (half, strength). :func:`evalkit.papers.carterette2007.tables.prior_cross_validation` makes the choice."""

    halves: dict
    topic_ids: dict
    strengths: tuple
    sweeps: dict
    n_trials: int
    seed: int
    name: str = "collection"


def topic_split_sweeps(data: TrialData, strengths=PRIOR_STRENGTHS, n_trials: int = 30, seed: int = 2007, *,
                       topic_ids=None, **sweep_kwargs) -> TopicSplit:
    """The runs behind choosing the aggregation prior's strength on the collection studied by two-fold topic-split
    cross-validation: the topics split at random (``seed``) into halves A and B (:func:`topic_halves`), and RTC
    alone run for ``n_trials`` trials at every strength on each half's topics (:func:`rtc_sweep`: the same runs for
    every strength and half). ``topic_ids`` name the topics (default their indices)."""
    first, second = topic_halves(data.docs.shape[1], seed)
    halves = {"A": first, "B": second}
    ids = np.asarray(topic_ids if topic_ids is not None else np.arange(data.docs.shape[1]), dtype=object)
    parts = {part: data.topics(index, name=f"{data.name}, half {part}") for part, index in halves.items()}
    sweeps = rtc_sweep(parts, strengths, n_trials, seed, **sweep_kwargs)
    return TopicSplit(halves=halves, topic_ids={part: [str(t) for t in ids[index]] for part, index in halves.items()},
                      strengths=tuple(float(a) for a in strengths), sweeps=sweeps, n_trials=int(n_trials), seed=seed,
                      name=data.name)


def second_opinion_collection(n_topics: int = 50, n_runs: int = 129, depth: int = 100, seed: int = 1) -> TrialData:
    """A collection the prior was not chosen on, for a second opinion: the simulator
    (:func:`evalkit.data.simulator.simulate_collection`, every retrieved document judged) with
    :data:`SECOND_OPINION_PARAMS` (TREC-8's fit without short lists or ties), ``seed`` 1, lists cut at ``depth``.
    Its other summary statistics are still TREC-8's: a second opinion, not an independent collection."""
    from evalkit.data.simulator import simulate_collection

    collection = simulate_collection(n_topics=n_topics, n_runs=n_runs, depth=depth, seed=seed,
                                     params=SECOND_OPINION_PARAMS, name="simulated, no short lists or ties")
    return TrialData.from_collection(collection, depth)


#: the columns of a trial that RTC decides (replaced by :func:`with_rtc_from`)
RTC_TRIAL_COLUMNS = ("judged_rtc", "relevant_rtc", "status_rtc", "first_pair_p_rtc", "tau_rtc", "p_mean_rtc",
                     "p_range_rtc", "p_sd_rtc", "tau_constant_p")
RTC_PAIR_COLUMNS = ("p_rtc", "emap_i_rtc", "emap_j_rtc")


def with_rtc_from(results: ExperimentResults, rtc_only: ExperimentResults) -> ExperimentResults:
    """The trials of ``results`` (MTC, RTC and IP) with RTC's columns taken from ``rtc_only`` (the same seed and
    settings, e.g. another prior; MTC and IP do not depend on it): the first ``len(rtc_only.trials)`` trials. The
    runs of every trial must match (else a ValueError: the two were not run with the same seed and k)."""
    n = len(rtc_only.trials)
    trials = results.trials[results.trials["trial"] < n].reset_index(drop=True).copy()
    pairs = results.pairs[results.pairs["trial"] < n].reset_index(drop=True).copy()
    other = rtc_only.trials.sort_values("trial").reset_index(drop=True)
    if len(trials) != n or not (trials["runs"].to_numpy() == other["runs"].to_numpy()).all():
        raise ValueError("with_rtc_from: the RTC-only trials drew other runs (run them with the same seed and k)")
    for column in RTC_TRIAL_COLUMNS:
        if column in other:
            trials[column] = other[column].to_numpy()
    other_pairs = rtc_only.pairs.sort_values(["trial", "i", "j"]).reset_index(drop=True)
    pairs = pairs.sort_values(["trial", "i", "j"]).reset_index(drop=True)
    for column in RTC_PAIR_COLUMNS:
        pairs[column] = other_pairs[column].to_numpy()
    return ExperimentResults(trials=trials, pairs=pairs, params={**results.params, **{
        k: v for k, v in rtc_only.params.items() if k in ("prior", "model")}, "n_trials": n})


def prior_strength_table(data: TrialData | Collection, strengths=PRIOR_STRENGTHS, n_trials: int = 100,
                         seed: int = 2007, *, coefficient_uncertainty: bool = False, scheduler: str | None = None,
                         n_jobs: int | None = None, progress: bool = True, **trial_kwargs) -> pd.DataFrame:
    """RTC with the aggregation prior Beta(a, a) for each a in ``strengths`` (the same ``n_trials`` trials, same
    seed, for each; MTC and IP are skipped; :func:`~evalkit.papers.carterette2007.experiment.rtc_sweep`). One row
    per a: :func:`rtc_summary`. ``coefficient_uncertainty`` turns on
    :class:`~evalkit.confidence.ExpertAggregation`'s option."""
    if isinstance(data, Collection):
        data = TrialData.from_collection(data)
    model_kwargs = dict(trial_kwargs.pop("model_kwargs", {}) or {})
    if coefficient_uncertainty:
        model_kwargs["coefficient_uncertainty"] = True
    sweeps = rtc_sweep({"all": data}, strengths, n_trials, seed, scheduler=scheduler, n_jobs=n_jobs,
                       progress=progress, model_kwargs=model_kwargs, **trial_kwargs)
    return strength_table({a: res for (_, a), res in sweeps.items()})


def strength_table(by_strength: dict) -> pd.DataFrame:
    """One row per prior strength a (``{a: ExperimentResults}``): :func:`rtc_summary` with W-bar's interval."""
    rows = []
    for a, res in by_strength.items():
        w = w_bar_interval(res)
        rows.append({"a = b": float(a), **rtc_summary(res), "W_bar 95% interval": w.bounds(".2f") if w.finite else ""})
    return pd.DataFrame(rows)


def choose_prior(table: pd.DataFrame) -> float:
    """The strength a of a strength table (:func:`strength_table`) with the best (highest) W-bar, the paper's
    summary of calibration (closer to 0 is better, positive counts as good); on ties the weakest."""
    best = table["W_bar"].max()
    return float(table.loc[table["W_bar"] == best, "a = b"].min())



@dataclass
class PriorChoice:
    """The aggregation prior's strength chosen by two-fold topic-split cross-validation
    (:func:`prior_cross_validation`): ``table`` one row per (half, strength) with W-bar and its interval,
    ``chosen`` the strength each half chooses (best W-bar on its own trials), ``held_out`` per half the W-bar on
    that half of the strength the *other* half chose (an :class:`~evalkit.stats.Interval`: the honest figure),
    ``prior`` the strength the kit uses (best W-bar pooled over both halves, the weakest on ties), ``pooled`` its
    pooled W-bar, ``runner_up`` the next best strength and ``margin`` the pooled W-bar of the choice minus the
    runner-up's over the same trials (an Interval: whether the choice is more than noise), and ``split`` the sweeps
    (:class:`TopicSplit`)."""

    table: pd.DataFrame
    chosen: dict
    held_out: dict
    prior: float
    pooled: object
    split: TopicSplit
    runner_up: float = float("nan")
    margin: object = None

    @property
    def agree(self) -> bool:
        return len(set(self.chosen.values())) == 1


def _best(scores: dict) -> float:
    """The strength with the highest W-bar (``{a: (sum W, pairs)}``), the weakest on ties; NaN when none has pairs."""
    values = {a: w / n for a, (w, n) in scores.items() if n}
    if not values:
        return float("nan")
    best = max(values.values())
    return float(min(a for a, v in values.items() if v == best))


def prior_cross_validation(split: TopicSplit) -> PriorChoice:
    """Choose the aggregation prior's strength from the sweeps of :func:`topic_split_sweeps`: each half chooses
    the strength with the best W-bar on its own trials (W-bar, the paper's summary of calibration: closer to 0 is
    better, positive counts as good; the weakest on ties), and that choice is scored on the *other* half (read from
    the other half's sweep: those topics played no part in the choice). The strength the kit uses is the best
    W-bar pooled over both halves' trials: it saw every topic, so a W-bar at that strength on all topics is not a
    held-out figure."""
    rows, per_half, pooled = [], {}, {}
    for (part, a), res in split.sweeps.items():
        tally = trial_tallies(res.pairs, "rtc")
        w, n = float(tally["w"].sum()), int(tally["pairs"].sum())
        per_half.setdefault(part, {})[a] = (w, n)
        total = pooled.setdefault(a, [np.zeros(0), np.zeros(0)])
        total[0], total[1] = np.r_[total[0], tally["w"]], np.r_[total[1], tally["pairs"]]
        interval = ratio_interval(tally["w"], tally["pairs"], seed=INTERVAL_SEED)
        rows.append({"half": part, "topics": len(split.halves[part]), "a = b": a, "trials": len(res.trials),
                     "median judged": float(res.trials["judged_rtc"].median()), "W_bar": interval.estimate,
                     "W_bar 95% interval": interval.bounds(".2f") if interval.finite else "",
                     "mean tau": float(res.trials["tau_rtc"].mean())})
    chosen = {part: _best(scores) for part, scores in per_half.items()}
    held_out = {}
    for part in per_half:
        other = next((p for p in per_half if p != part), part)
        res = split.sweeps.get((part, chosen[other]))
        if res is not None:
            held_out[part] = w_bar_interval(res)
    totals = {a: (float(w.sum()), int(n.sum())) for a, (w, n) in pooled.items()}
    prior = _best(totals)
    w, n = pooled.get(prior, [np.zeros(0), np.zeros(0)])
    runner_up = _best({a: v for a, v in totals.items() if a != prior})
    margin = None
    if np.isfinite(runner_up):  # the same runs and pairs at every strength: a paired difference over (half, trial)
        margin = ratio_interval(w - pooled[runner_up][0], n, seed=INTERVAL_SEED)
    table = pd.DataFrame(rows)
    if len(table):
        table["chosen by its half"] = [a == chosen[part] for part, a in zip(table["half"], table["a = b"])]
    return PriorChoice(table=table, chosen=chosen, held_out=held_out, prior=prior,
                       pooled=ratio_interval(w, n, seed=INTERVAL_SEED), split=split, runner_up=runner_up,
                       margin=margin)


def constant_p_evidence(results: ExperimentResults) -> dict:
    """What is left of RTC when its fitted p hardly vary: the median over trials of the range and standard
    deviation of the fitted p of the unjudged documents (``range``, ``sd``), RTC's mean tau and that of a constant p
    equal to their mean (``tau_rtc``, ``tau_constant``: :class:`~evalkit.stats.Interval` over trials), and their
    paired difference (``difference``)."""
    trials = results.trials
    if "p_range_rtc" not in trials or trials["p_range_rtc"].isna().all():
        return {}
    return {"range": float(trials["p_range_rtc"].median()), "sd": float(trials["p_sd_rtc"].median()),
            "mean": float(trials["p_mean_rtc"].median()),
            "tau_rtc": trial_interval(results, "tau_rtc"), "tau_constant": trial_interval(results, "tau_constant_p"),
            "difference": paired_interval(results, "tau_rtc", "tau_constant_p")}


def sensitivity_runs(results: ExperimentResults, data: TrialData, strengths, n_trials: int, seed: int, *,
                     prior=None, **sweep_kwargs) -> dict:
    """The main experiment's first ``n_trials`` trials with RTC at every strength a of ``strengths`` (Beta(a, a)):
    ``{a: ExperimentResults}`` for the sensitivity of the verdicts. MTC and IP do not depend on the prior, so theirs
    are the main experiment's (:func:`with_rtc_from`); RTC runs again (:func:`rtc_sweep`, the same seed, so the
    same runs) except at the main experiment's own ``prior`` (a, a), whose trials are the main experiment's."""
    n = int(min(n_trials, len(results.trials)))
    own = float(prior[0]) if prior is not None and float(prior[0]) == float(prior[1]) else None
    others = [float(a) for a in strengths if float(a) != own]
    sweeps = rtc_sweep({"all": data}, others, n, seed, **sweep_kwargs) if others else {}
    out = {}
    for a in sorted(float(a) for a in strengths):
        if a == own:
            keep = results.trials["trial"] < n
            out[a] = ExperimentResults(results.trials[keep].reset_index(drop=True),
                                       results.pairs[results.pairs["trial"] < n].reset_index(drop=True),
                                       {**results.params, "n_trials": n})
        else:
            out[a] = with_rtc_from(results, sweeps[("all", a)])
    return out
