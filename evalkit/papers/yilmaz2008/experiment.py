"""Yilmaz, Kanoulas & Aslam 2008, the experiment (pure, seeded: see :mod:`evalkit.papers.yilmaz2008`), on the truth
and the sampling designs of :mod:`.gold`: Figure 1's sample per p, the CI validation's trials, Figure 2, the smoothing
study and the sweeps of Figures 3 and 4. The trial functions sent to :func:`evalkit.parallel.run_trials` are
module-level: workers get them pickled by reference."""

from __future__ import annotations

import time
import zlib
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np
import pandas as pd

from evalkit.data.collection import JudgedSet
from evalkit.measures.infap_variance import infap_variance
from evalkit.measures.inferred import (
    SAMPLE_EVAL_SMOOTHING,
    TREC_EVAL_SMOOTHING,
    inferred_measures,
    trec_infap_oracle_above,
)
from evalkit.papers.yilmaz2008.gold import (
    Gold,
    agreement,
    as_gold,
    depth_random_judgments,
    depth_strata_judgments,
    n_judged,
    plain_ndcg,
    positions,
    random_judgments,
    run_means,
)
from evalkit.papers.yilmaz2008.paper import (
    FIGURE2_DEPTHS,
    FIGURE3_DEPTHS,
    P_VALUES,
    VARIANCE_FORMS,
)
from evalkit.parallel import run_trials

DEFAULT_SEED = 2008

FIGURE3_ESTIMATORS = ("xinfAP (depth+random)", "infAP (random)", "infAP (depth+random)")
FIGURE4_ESTIMATORS = ("xinfAP (4 strata)", "infAP (random)", "infNDCG (4 strata)", "nDCG (random)")


_TAGS = {name: zlib.crc32(name.encode()) for name in ("figure1", "figure2", "validation", "figure3", "figure4",
                                                      "random", "explorer")}


def sample_seed(base, tag: str, value: float, extra: int = 0) -> np.random.SeedSequence:
    """Seed of one sample: depends on the base seed, the experiment, the p or k, and nothing else."""
    return np.random.SeedSequence([int(base), _TAGS[tag], round(float(value) * 10000), int(extra)])


# ------------------------------------------------------------------------------------------- figure 1


def _variance_frames(gold: Gold, qrels: JudgedSet, forms: Sequence[str], confidence: float) -> dict:
    out = {}
    for form in forms:
        v = infap_variance(gold.collection, qrels, confidence=confidence, topics=gold.scored,
                           within=positions(gold), **VARIANCE_FORMS[form])
        out[form] = v
    return out


def _check_forms(forms) -> tuple[str, ...]:
    forms = tuple([forms] if isinstance(forms, str) else forms)
    unknown = [f for f in forms if f not in VARIANCE_FORMS]
    if unknown or not forms:
        raise KeyError(f"unknown variance form(s) {unknown}; choose from {list(VARIANCE_FORMS)}")
    return forms


def figure1(data, p_values: Sequence[float] = P_VALUES, seed: int = DEFAULT_SEED,
            forms: Sequence[str] = tuple(VARIANCE_FORMS), confidence: float = 0.95) -> pd.DataFrame:
    """Figure 1: one uniform sample of p% of the pool per p; per run and variance form, mean infAP, its estimated
    sd and ``confidence`` interval, the actual MAP and whether the interval covers it.

    Columns: p, form, run, judged, MAP, mean_infAP, sd, ci_low, ci_high, covers, judgments, share.
    """
    gold = as_gold(data)
    forms = _check_forms(forms)
    names = gold.collection.run_names
    frames = []
    for p in p_values:
        qrels = random_judgments(gold, p, sample_seed(seed, "figure1", p))
        n = n_judged(qrels)
        for form, v in _variance_frames(gold, qrels, forms, confidence).items():
            sd = np.sqrt(v.mean_var)
            frames.append(pd.DataFrame({
                "p": float(p), "form": form, "run": names, "judged": gold.judged, "MAP": gold.map,
                "mean_infAP": v.mean, "sd": sd, "ci_low": v.mean_ci_low, "ci_high": v.mean_ci_high,
                "covers": (v.mean_ci_low <= gold.map) & (gold.map <= v.mean_ci_high),
                "judgments": n, "share": n / gold.n_pooled,
            }))
    return pd.concat(frames, ignore_index=True)


# -------------------------------------------------------------------------------------- CI validation


def _validation_trial(trial_index: int, trial_seed: int, gold: Gold, p_values, forms, confidence,
                      method: str = "fixed") -> dict:
    """One sampling trial: for each p a uniform sample; mean infAP (P, S) and its sd under each form (P, F, S);
    the parts of its error (P, 2, S: topics without a sampled relevant document, the smoothing where nothing
    above is sampled; see :func:`~evalkit.papers.yilmaz2008.tables.bias_breakdown`); and the same mean, truth and sd
    over the topics that have a sampled relevant document (the "empty topics dropped" variant of
    :func:`~evalkit.papers.yilmaz2008.tables.ks_variants`)."""
    c = gold.collection
    S = c.n_runs
    P, F = len(p_values), len(forms)
    mean = np.zeros((P, S))
    sd = np.zeros((P, F, S))
    parts = np.zeros((P, 2, S))
    mean_nonempty = np.zeros((P, S))
    truth_nonempty = np.zeros((P, S))
    sd_nonempty = np.zeros((P, F, S))
    empty_topics = np.zeros(P, np.int64)
    judgments = np.zeros(P, np.int64)
    unsmoothed = np.zeros((P, S))
    n_scored = gold.scored.sum(axis=1).astype(np.float64)
    for i, p in enumerate(p_values):
        qrels = random_judgments(gold, p, sample_seed(trial_seed, "validation", p), method)
        judgments[i] = n_judged(qrels)
        empty = (qrels.counts(1) == 0)[None, :]
        kept = gold.scored & ~empty
        n_kept = kept.sum(axis=1).astype(np.float64)
        for j, v in enumerate(_variance_frames(gold, qrels, forms, confidence).values()):
            mean[i] = v.mean
            sd[i, j] = np.sqrt(v.mean_var)
            sd_nonempty[i, j] = np.sqrt(np.divide((v.var * kept).sum(axis=1), n_kept ** 2, out=np.zeros(S),
                                                  where=n_kept > 0))
            infap = v.infap
        fixed = trec_infap_oracle_above(c, qrels, gold.qrels, within=positions(gold))
        plain = inferred_measures(c, qrels, ["trec_infAP"], trec_smoothing=(0.0, 0.0), within=positions(gold))
        unsmoothed[i] = run_means(plain["trec_infAP"], gold.scored)
        parts[i, 0] = np.divide((-gold.ap * (gold.scored & empty)).sum(axis=1), n_scored, out=np.zeros(S),
                                where=n_scored > 0)
        parts[i, 1] = np.divide(((infap - fixed) * kept).sum(axis=1), n_scored, out=np.zeros(S), where=n_scored > 0)
        mean_nonempty[i] = np.divide((infap * kept).sum(axis=1), n_kept, out=np.zeros(S), where=n_kept > 0)
        truth_nonempty[i] = np.divide((gold.ap * kept).sum(axis=1), n_kept, out=np.zeros(S), where=n_kept > 0)
        empty_topics[i] = int((empty[0] & gold.scored.any(axis=0)).sum())
    return {"mean": mean, "sd": sd, "judgments": judgments, "parts": parts, "mean_nonempty": mean_nonempty,
            "truth_nonempty": truth_nonempty, "sd_nonempty": sd_nonempty, "empty_topics": empty_topics,
            "unsmoothed": unsmoothed}


@dataclass(frozen=True)
class CIValidation:
    """The sampling trials of :func:`ci_validation`.

    ``mean`` (trials, P, S): mean infAP of each run; ``sd`` (trials, P, F, S): its estimated standard deviation
    under each variance form; ``map`` (S,) the actual MAP; ``judgments`` (trials, P). For the bias breakdown
    (:func:`~evalkit.papers.yilmaz2008.tables.bias_breakdown`): ``parts`` (trials, P, 2, S), the error of mean infAP due
    to topics without a sampled relevant document and to the smoothing where nothing above a relevant document was
    sampled; for the "empty topics dropped" variant (:meth:`without_empty_topics`): ``mean_nonempty``,
    ``truth_nonempty`` (trials, P, S) and ``sd_nonempty`` (trials, P, F, S) over the topics with a sampled relevant
    document; ``empty_topics`` (trials, P) how many topics had none. ``method``: how the samples were drawn.
    ``unsmoothed`` (trials, P, S): mean infAP without trec_eval's smoothing (precision above 0 where nothing above
    was sampled; the paper's footnote 4). ``block``: the samples per KS test (the paper's 100); the trials are
    ``trials // block`` consecutive blocks, each a repetition of the paper's experiment (:meth:`block_of`).
    """

    p_values: tuple[float, ...]
    forms: tuple[str, ...]
    runs: np.ndarray
    judged: np.ndarray
    map: np.ndarray
    mean: np.ndarray
    sd: np.ndarray
    judgments: np.ndarray
    n_pooled: int
    trials: int
    seed: int
    confidence: float
    seconds: float = float("nan")
    parts: np.ndarray | None = None
    mean_nonempty: np.ndarray | None = None
    truth_nonempty: np.ndarray | None = None
    sd_nonempty: np.ndarray | None = None
    empty_topics: np.ndarray | None = None
    method: str = "fixed"
    label: str = ""
    unsmoothed: np.ndarray | None = None
    block: int = 0

    _PER_TRIAL = ("mean", "sd", "judgments", "parts", "mean_nonempty", "truth_nonempty", "sd_nonempty",
                  "empty_topics", "unsmoothed")

    @property
    def block_size(self) -> int:
        """Samples per KS test: ``block``, or every trial when not set."""
        return int(self.block) if self.block else int(self.trials)

    @property
    def blocks(self) -> int:
        """How many repetitions of the experiment (blocks of :attr:`block_size` trials) the trials hold."""
        return self.trials // self.block_size if self.block_size else 0

    def _cut(self, start: int, stop: int, label: str) -> "CIValidation":
        cut = {name: (getattr(self, name)[start:stop] if getattr(self, name) is not None else None)
               for name in self._PER_TRIAL}
        return replace(self, trials=stop - start, block=0, label=label, **cut)

    def block_of(self, index: int) -> "CIValidation":
        """The ``index``-th block of :attr:`block_size` trials: one repetition of the paper's experiment."""
        if not 0 <= index < self.blocks:
            raise IndexError(f"block {index} of {self.blocks}")
        n = self.block_size
        return self._cut(index * n, (index + 1) * n, f"{self.label or 'validation'}, block {index + 1}")

    @property
    def z(self) -> np.ndarray:
        """(trials, P, F, S) deviations (mean infAP - MAP) / sd; NaN where sd = 0."""
        dev = (self.mean - self.map[None, None, :])[:, :, None, :]
        return np.divide(dev, self.sd, out=np.full(self.sd.shape, np.nan), where=self.sd > 0)

    @property
    def z_centred(self) -> np.ndarray:
        """(trials, P, F, S) deviations from each run's mean over the trials instead of MAP: the bias removed
        (a diagnostic of the variance alone; the KS test is then only approximate, the centre being estimated)."""
        dev = (self.mean - self.mean.mean(axis=0, keepdims=True))[:, :, None, :]
        return np.divide(dev, self.sd, out=np.full(self.sd.shape, np.nan), where=self.sd > 0)

    def deviations(self) -> pd.DataFrame:
        """Long table: trial, p, form, run, judged, mean_infAP, sd, z."""
        n, P, F, S = self.sd.shape
        idx = np.indices((n, P, F, S)).reshape(4, -1)
        return pd.DataFrame({
            "trial": idx[0], "p": np.asarray(self.p_values)[idx[1]],
            "form": np.asarray(self.forms, object)[idx[2]], "run": self.runs[idx[3]], "judged": self.judged[idx[3]],
            "mean_infAP": self.mean[idx[0], idx[1], idx[3]], "sd": self.sd.ravel(), "z": self.z.ravel(),
        })

    def head(self, trials: int) -> "CIValidation":
        """The first ``trials`` trials only (e.g. the "10 trials" variant of
        :func:`~evalkit.papers.yilmaz2008.tables.ks_variants`)."""
        n = int(min(trials, self.trials))
        return self._cut(0, n, f"{self.label or 'validation'}, first {n} trials")

    def without_empty_topics(self) -> "CIValidation":
        """Every trial's mean infAP, its truth and its sd taken over the topics that have at least one sampled
        relevant document (those without score 0 and are dropped; the truth is MAP over the same topics).
        Stored as ``mean = mean_nonempty - truth_nonempty + map`` so that :attr:`z` is the deviation from that
        truth in sds; ``parts`` are dropped (they describe the whole mean)."""
        if self.mean_nonempty is None:
            raise ValueError("this validation did not record the per-topic parts (run ci_validation again)")
        mean = self.mean_nonempty - self.truth_nonempty + self.map[None, None, :]
        return replace(self, mean=mean, sd=self.sd_nonempty, parts=None, unsmoothed=None,
                       label=f"{self.label or 'validation'}, empty topics dropped")


def ci_validation(data, p_values: Sequence[float] = P_VALUES, trials: int = 100, seed: int = DEFAULT_SEED,
                  forms: Sequence[str] = tuple(VARIANCE_FORMS), confidence: float = 0.95, *, method: str = "fixed",
                  blocks: int = 1, scheduler: str | None = None, n_jobs: int | None = None,
                  progress: bool = True) -> CIValidation:
    """Sec. 2's validation: ``trials`` uniform samples at each p (the paper's 100), repeated ``blocks`` times
    (``trials * blocks`` samples in all: each block is one repetition of the paper's experiment, so a KS pass rate
    gets its spread over repetitions, :func:`~evalkit.papers.yilmaz2008.tables.ks_blocks`); in each sample, every
    run's mean infAP and its sd under every variance form (and the parts of its error,
    :func:`~evalkit.papers.yilmaz2008.tables.bias_breakdown`). ``method``: "fixed" (exactly round(p N_t) documents a
    topic, the default) or "bernoulli". Summarize with :func:`~evalkit.papers.yilmaz2008.tables.ks_table` /
    :func:`~evalkit.papers.yilmaz2008.tables.ks_per_run` /
    :func:`~evalkit.papers.yilmaz2008.tables.coverage_over_trials`."""
    started = time.perf_counter()
    gold = as_gold(data)
    forms = _check_forms(forms)
    p_values = tuple(float(p) for p in p_values)
    if int(blocks) < 1 or int(trials) < 0:
        raise ValueError(f"ci_validation needs trials >= 0 and blocks >= 1, got trials={trials}, blocks={blocks}")
    block, trials = int(trials), int(trials) * int(blocks)
    records = run_trials(_validation_trial, int(trials), seed, args=(gold, p_values, forms, confidence, method),
                         scheduler=scheduler, n_jobs=n_jobs, progress=progress, desc="Yilmaz 2008: CI validation")
    S, P, F = gold.collection.n_runs, len(p_values), len(forms)
    stack = (lambda key, shape: np.stack([r[key] for r in records]) if records else np.zeros(shape))
    return CIValidation(
        p_values=p_values, forms=forms, runs=gold.collection.run_names, judged=gold.judged, map=gold.map,
        mean=stack("mean", (0, P, S)), sd=stack("sd", (0, P, F, S)),
        judgments=stack("judgments", (0, P)), n_pooled=gold.n_pooled, trials=int(trials), seed=seed,
        confidence=confidence, seconds=time.perf_counter() - started, parts=stack("parts", (0, P, 2, S)),
        mean_nonempty=stack("mean_nonempty", (0, P, S)), truth_nonempty=stack("truth_nonempty", (0, P, S)),
        sd_nonempty=stack("sd_nonempty", (0, P, F, S)), empty_topics=stack("empty_topics", (0, P)),
        method=method, label=f"{method} samples, {int(trials)} trials", unsmoothed=stack("unsmoothed", (0, P, S)),
        block=block,
    )


# ------------------------------------------------------------------------------------------- figure 2


def figure2(data, depths: Sequence[int] = FIGURE2_DEPTHS, seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """Figure 2: one depth-k + random sample per k; per run, actual MAP and mean xinfAP.

    Columns: k, run, judged, MAP, mean_xinfAP, judgments, share (of the depth-100 pool)."""
    gold = as_gold(data)
    frames = []
    for k in depths:
        qrels = depth_random_judgments(gold, int(k), sample_seed(seed, "figure2", k))
        xinf = inferred_measures(gold.collection, qrels, ["infAP"], within=positions(gold))["infAP"]
        n = n_judged(qrels)
        frames.append(pd.DataFrame({"k": int(k), "run": gold.collection.run_names, "judged": gold.judged,
                                    "MAP": gold.map, "mean_xinfAP": run_means(xinf, gold.scored),
                                    "judgments": n, "share": n / gold.n_pooled}))
    return pd.concat(frames, ignore_index=True)


#: xinfAP's estimate of the precision in a stratum, (r + a) / (n + b): the variants :func:`smoothing_study` compares
SMOOTHINGS: dict[str, tuple[float, float]] = {
    "sample_eval (r+1e-5)/(n+3e-5)": SAMPLE_EVAL_SMOOTHING,
    "paper / trec_eval (r+e)/(n+2e)": TREC_EVAL_SMOOTHING,
    "none r/n (0 if n = 0)": (0.0, 0.0),
}


@dataclass(frozen=True)
class Figure2Trials:
    """Figure 2's design repeated: ``trials`` samples (seeds) of the depth-k pool + as many random documents again
    at each k, every sample scored with xinfAP under each smoothing of :data:`SMOOTHINGS` (the same samples for
    each), so Figure 2's figures and the smoothing example get their spread over seeds instead of one draw.

    ``means`` (trials, K, M, S): each run's mean xinfAP; ``judgments`` (trials, K); :meth:`stats` the long table.
    """

    depths: tuple[int, ...]
    smoothings: tuple[str, ...]
    runs: np.ndarray
    judged: np.ndarray
    map: np.ndarray
    means: np.ndarray
    judgments: np.ndarray
    n_pooled: int
    trials: int
    seed: int
    seconds: float = float("nan")

    def stats(self) -> pd.DataFrame:
        """One row per trial, k and smoothing: judgments, share of the pool, mean error of mean xinfAP against MAP
        (over runs), RMS, Kendall's tau, Pearson's rho, and RMS / tau over the judged runs and over the others."""
        rows = []
        judged = self.judged
        for t in range(self.trials):
            for i, k in enumerate(self.depths):
                for m, name in enumerate(self.smoothings):
                    est = self.means[t, i, m]
                    a = agreement(self.map, est)
                    row = {"trial": t, "k": int(k), "smoothing": name, "judgments": int(self.judgments[t, i]),
                           "share": self.judgments[t, i] / self.n_pooled,
                           "mean error": float((est - self.map).mean()), "RMS": a["rms"][0], "tau": a["tau"][0],
                           "rho": a["rho"][0]}
                    for label, mask in (("judged", judged), ("unjudged", ~judged)):
                        if mask.sum() > 2:
                            part = agreement(self.map[mask], est[mask])
                            row[f"RMS ({label})"], row[f"tau ({label})"] = part["rms"][0], part["tau"][0]
                        else:
                            row[f"RMS ({label})"] = row[f"tau ({label})"] = np.nan
                    rows.append(row)
        return pd.DataFrame(rows)


def _figure2_trial(trial_index: int, trial_seed: int, gold: Gold, depths, smoothings) -> dict:
    c = gold.collection
    means = np.zeros((len(depths), len(smoothings), c.n_runs))
    judgments = np.zeros(len(depths), np.int64)
    for i, k in enumerate(depths):
        qrels = depth_random_judgments(gold, int(k), sample_seed(trial_seed, "figure2", k))
        judgments[i] = n_judged(qrels)
        for m, constants in enumerate(smoothings):
            xinf = inferred_measures(c, qrels, ["infAP"], smoothing=constants, within=positions(gold))["infAP"]
            means[i, m] = run_means(xinf, gold.scored)
    return {"means": means, "judgments": judgments}


def figure2_trials(data, depths: Sequence[int] = FIGURE2_DEPTHS, trials: int = 20, seed: int = DEFAULT_SEED,
                   smoothings: dict | None = None, *, scheduler: str | None = None, n_jobs: int | None = None,
                   progress: bool = True) -> Figure2Trials:
    """Figure 2 over ``trials`` seeds (:class:`Figure2Trials`): at each k a depth-k + random sample per trial
    (:func:`evalkit.parallel.run_trials`' seeds), scored with xinfAP under every smoothing of ``smoothings``
    (default :data:`SMOOTHINGS`; the first is the kit's xinfAP, ``sample_eval``'s constants)."""
    started = time.perf_counter()
    gold = as_gold(data)
    smoothings = SMOOTHINGS if smoothings is None else dict(smoothings)
    depths = tuple(int(k) for k in depths)
    records = run_trials(_figure2_trial, int(trials), seed, args=(gold, depths, tuple(smoothings.values())),
                         scheduler=scheduler, n_jobs=n_jobs, progress=progress, desc="Yilmaz 2008: Figure 2 seeds")
    K, M, S = len(depths), len(smoothings), gold.collection.n_runs
    means = np.stack([r["means"] for r in records]) if records else np.zeros((0, K, M, S))
    judgments = np.stack([r["judgments"] for r in records]) if records else np.zeros((0, K), np.int64)
    return Figure2Trials(depths, tuple(smoothings), gold.collection.run_names, gold.judged, gold.map, means,
                         judgments, gold.n_pooled, int(trials), seed, time.perf_counter() - started)


def smoothing_study(data, depths: Sequence[int] = FIGURE2_DEPTHS, trials: int = 5, seed: int = DEFAULT_SEED,
                    smoothings: dict | None = None) -> pd.DataFrame:
    """xinfAP on depth-k + random samples under different smoothing constants (the same samples for each).

    When a stratum has no sampled document above a relevant one, the smoothed precision (r + a)/(n + b) is a/b:
    1/3 with ``sample_eval``'s constants, 1/2 with the paper's. With few samples in a large stratum (small k)
    that lifts xinfAP; the paper notes that smoothing matters more as strata multiply. Per k and smoothing, the
    mean over ``trials`` samples (:func:`figure2_trials`, run serially) of the mean error, the RMS error and
    Kendall's tau against MAP."""
    frame = figure2_trials(data, depths, trials, seed, smoothings, scheduler="serial", progress=False).stats()
    return frame.groupby(["k", "smoothing"], sort=False)[["mean error", "RMS", "tau"]].mean().reset_index()


# ------------------------------------------------------------------------------------- figures 3 and 4


@dataclass(frozen=True)
class Sweep:
    """A sweep over pool depths k with repeated trials (Figures 3 and 4).

    ``means`` (trials, K, E, S): each estimator's per-run mean; ``judgments`` (trials, K, E); ``stats``: long
    table trial, k, estimator, measure (AP or nDCG), judgments, share, tau, rho, RMS, mean error (the mean over
    runs of estimate - truth); :meth:`summary` averages over trials as the paper does.
    """

    depths: tuple[int, ...]
    estimators: tuple[str, ...]
    measure_of: tuple[str, ...]  # "AP" or "nDCG" per estimator
    means: np.ndarray
    judgments: np.ndarray
    stats: pd.DataFrame
    trials: int
    seed: int
    seconds: float = float("nan")

    def summary(self) -> pd.DataFrame:
        """Mean over trials of judgments, share, tau, rho and RMS per (k, estimator); plus min/max of tau."""
        g = self.stats.groupby(["k", "estimator"], sort=False, observed=True)
        out = g[["judgments", "share", "tau", "rho", "RMS"]].mean()
        out["tau min"] = g["tau"].min()
        out["tau max"] = g["tau"].max()
        out.insert(0, "measure", g["measure"].first())
        return out.reset_index()


def _figure3_trial(trial_index: int, trial_seed: int, gold: Gold, depths) -> dict:
    c = gold.collection
    S = c.n_runs
    means = np.zeros((len(depths), 3, S))
    judgments = np.zeros((len(depths), 3), np.int64)
    for i, k in enumerate(depths):
        mixed = depth_random_judgments(gold, k, sample_seed(trial_seed, "figure3", k))
        m = inferred_measures(c, mixed, ["infAP", "trec_infAP"], within=positions(gold))
        n = n_judged(mixed)
        rnd = random_judgments(gold, n / gold.n_pooled, sample_seed(trial_seed, "random", k, 3))
        r = inferred_measures(c, rnd, ["trec_infAP"], within=positions(gold))["trec_infAP"]
        means[i, 0] = run_means(m["infAP"], gold.scored)
        means[i, 1] = run_means(r, gold.scored)
        means[i, 2] = run_means(m["trec_infAP"], gold.scored)
        judgments[i] = (n, n_judged(rnd), n)
    return {"means": means, "judgments": judgments}


def _figure4_trial(trial_index: int, trial_seed: int, gold: Gold, depths, ratio, boundaries) -> dict:
    c = gold.collection
    S = c.n_runs
    means = np.zeros((len(depths), 4, S))
    judgments = np.zeros((len(depths), 4), np.int64)
    for i, k in enumerate(depths):
        strat = depth_strata_judgments(gold, k, sample_seed(trial_seed, "figure4", k), ratio, boundaries)
        m = inferred_measures(c, strat, ["infAP", gold.infndcg_name], within=positions(gold))
        n = n_judged(strat)
        rnd = random_judgments(gold, n / gold.n_pooled, sample_seed(trial_seed, "random", k, 4))
        r = inferred_measures(c, rnd, ["trec_infAP"], within=positions(gold))["trec_infAP"]
        means[i, 0] = run_means(m["infAP"], gold.scored)
        means[i, 1] = run_means(r, gold.scored)
        means[i, 2] = run_means(m[gold.infndcg_name], gold.scored)
        means[i, 3] = run_means(plain_ndcg(gold, rnd), gold.scored)
        nr = n_judged(rnd)
        judgments[i] = (n, nr, n, nr)
    return {"means": means, "judgments": judgments}


def _sweep(gold, trial_fn, args, estimators, measure_of, depths, trials, seed, scheduler, n_jobs, progress, desc):
    started = time.perf_counter()
    records = run_trials(trial_fn, int(trials), seed, args=(gold, depths) + tuple(args), scheduler=scheduler,
                         n_jobs=n_jobs, progress=progress, desc=desc)
    K, E, S = len(depths), len(estimators), gold.collection.n_runs
    means = np.stack([r["means"] for r in records]) if records else np.zeros((0, K, E, S))
    judgments = np.stack([r["judgments"] for r in records]) if records else np.zeros((0, K, E), np.int64)
    truth = {"AP": gold.map, "nDCG": gold.mean_ndcg}
    frames = []
    for e, (name, measure) in enumerate(zip(estimators, measure_of)):
        flat = means[:, :, e, :].reshape(-1, S)
        st = agreement(truth[measure], flat) if len(flat) else {"tau": [], "rho": [], "rms": []}
        idx = np.indices((len(records), K)).reshape(2, -1)
        frames.append(pd.DataFrame({
            "trial": idx[0], "k": np.asarray(depths)[idx[1]], "estimator": name, "measure": measure,
            "judgments": judgments[:, :, e].ravel(), "share": judgments[:, :, e].ravel() / gold.n_pooled,
            "tau": st["tau"], "rho": st["rho"], "RMS": st["rms"],
            "mean error": (flat - truth[measure][None, :]).mean(axis=1) if len(flat) else [],
        }))
    stats = pd.concat(frames, ignore_index=True)
    stats["estimator"] = pd.Categorical(stats["estimator"], categories=list(estimators), ordered=True)
    stats = stats.sort_values(["k", "estimator", "trial"], kind="stable").reset_index(drop=True)
    return Sweep(tuple(depths), tuple(estimators), tuple(measure_of), means, judgments, stats, int(trials), seed,
                 time.perf_counter() - started)


def figure3(data, depths: Sequence[int] = FIGURE3_DEPTHS, trials: int = 10, seed: int = DEFAULT_SEED, *,
            scheduler: str | None = None, n_jobs: int | None = None, progress: bool = True) -> Sweep:
    """Figure 3: for each k and trial, a depth-k + random sample (xinfAP, and trec_eval's infAP on the same
    judgments) and a uniform sample of the same size (infAP); tau, rho and RMS of the run means against MAP."""
    gold = as_gold(data)
    depths = tuple(int(k) for k in depths)
    return _sweep(gold, _figure3_trial, (), FIGURE3_ESTIMATORS, ("AP", "AP", "AP"), depths, trials, seed,
                  scheduler, n_jobs, progress, "Yilmaz 2008: Figure 3")


def figure4(data, depths: Sequence[int] = FIGURE3_DEPTHS, trials: int = 10, seed: int = DEFAULT_SEED,
            ratio: Sequence[float] = (3.0, 1.5, 1.0), boundaries=None, *, scheduler: str | None = None,
            n_jobs: int | None = None, progress: bool = True) -> Sweep:
    """Figure 4: for each k and trial, a 4-strata sample (depth-k pool + three strata at rates in ``ratio``;
    xinfAP and infNDCG) and a uniform sample of the same size (infAP and plain nDCG, unjudged = nonrelevant)."""
    gold = as_gold(data)
    depths = tuple(int(k) for k in depths)
    return _sweep(gold, _figure4_trial, (tuple(ratio), boundaries), FIGURE4_ESTIMATORS,
                  ("AP", "AP", "nDCG", "nDCG"), depths, trials, seed, scheduler, n_jobs, progress,
                  "Yilmaz 2008: Figure 4")
