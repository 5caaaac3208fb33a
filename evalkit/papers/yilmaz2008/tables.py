"""Yilmaz, Kanoulas & Aslam 2008: pure functions from the experiment's results to tables.

Figure 1's and Figure 2's summaries (beside the paper's shares), the KS validation of the intervals (per run, per
p and form, under every variant tried), the bias of infAP split into its parts, the coverage over samples, and which
estimator dominates in the sweeps of Figures 3 and 4.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from evalkit.papers.yilmaz2008.experiment import DEFAULT_FORM, PAPER_FORM, CIValidation, Sweep, agreement
from evalkit.papers.yilmaz2008.paper import PAPER_FIGURE2_SHARE


# ------------------------------------------------------------------------------------------- figure 1


def figure1_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per p and variance form: judgments, share of the pool, Kendall's tau / rho / RMS of mean infAP against MAP,
    the share of runs whose interval covers MAP (all, judged, unjudged) and the mean interval half-width."""
    rows = []
    for (p, form), g in frame.groupby(["p", "form"], sort=False):
        stats = agreement(g["MAP"].to_numpy(), g["mean_infAP"].to_numpy())
        rows.append({
            "p": p, "form": form, "judgments": int(g["judgments"].iloc[0]), "share": g["share"].iloc[0],
            "tau": stats["tau"][0], "rho": stats["rho"][0], "RMS": stats["rms"][0],
            "covered": g["covers"].mean(), "covered (judged)": g.loc[g.judged, "covers"].mean(),
            "covered (unjudged)": g.loc[~g.judged, "covers"].mean() if (~g.judged).any() else np.nan,
            "mean half-width": ((g["ci_high"] - g["ci_low"]) / 2).mean(),
        })
    return pd.DataFrame(rows)


# -------------------------------------------------------------------------------------- CI validation


def ks_test_normal(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided one-sample Kolmogorov-Smirnov test of each row of ``z`` (K, n) against N(0, 1): (D, p-value),
    as ``scipy.stats.kstest(row, "norm")`` (exact p-value from ``scipy.stats.kstwo``)."""
    from scipy.stats import kstwo, norm

    z = np.sort(np.atleast_2d(np.asarray(z, np.float64)), axis=1)
    n = z.shape[1]
    cdf = norm.cdf(z)
    i = np.arange(1, n + 1)
    d = np.maximum((i / n - cdf).max(axis=1), (cdf - (i - 1) / n).max(axis=1))
    return d, kstwo.sf(d, n)


def ks_per_run(validation: CIValidation, alpha: float = 0.05) -> pd.DataFrame:
    """Per p, variance form and run: the KS statistic and p-value of the trials' z against N(0, 1), whether
    it is rejected at ``alpha``, the empirical sd of mean infAP over trials and the root mean estimated
    variance. Runs with sd = 0 in some trial get NaN (not tested)."""
    z = validation.z  # (n, P, F, S)
    n, P, F, S = z.shape
    rows = np.moveaxis(z, 0, -1).reshape(P * F * S, n)
    ok = np.isfinite(rows).all(axis=1)
    d = np.full(len(rows), np.nan)
    pv = np.full(len(rows), np.nan)
    pc = np.full(len(rows), np.nan)
    if ok.any() and n > 0:
        d[ok], pv[ok] = ks_test_normal(rows[ok])
        _, pc[ok] = ks_test_normal(np.moveaxis(validation.z_centred, 0, -1).reshape(P * F * S, n)[ok])
    idx = np.indices((P, F, S)).reshape(3, -1)
    empirical = validation.mean.std(axis=0, ddof=1) if n > 1 else np.full((P, S), np.nan)  # (P, S)
    estimated = np.sqrt((validation.sd ** 2).mean(axis=0))  # (P, F, S)
    bias = (validation.mean - validation.map[None, None, :]).mean(axis=0)  # (P, S)
    return pd.DataFrame({
        "p": np.asarray(validation.p_values)[idx[0]], "form": np.asarray(validation.forms, object)[idx[1]],
        "run": validation.runs[idx[2]], "judged": validation.judged[idx[2]], "MAP": validation.map[idx[2]],
        "bias": bias[idx[0], idx[2]], "empirical sd": empirical[idx[0], idx[2]],
        "estimated sd": estimated.ravel(), "D": d, "p_value": pv, "p_value (bias removed)": pc,
        "rejected": pd.array([bool(x < alpha) if good else pd.NA for x, good in zip(pv, ok)], dtype="boolean"),
        "coverage": _coverage(rows, validation.confidence),
    })


def _coverage(rows: np.ndarray, confidence: float) -> np.ndarray:
    """Per row, the share of finite z with |z| <= the normal quantile (NaN for a row without finite z)."""
    finite = np.isfinite(rows)
    inside = (np.abs(np.where(finite, rows, np.inf)) <= _z(confidence)).sum(axis=1)
    n = finite.sum(axis=1)
    return np.divide(inside, n, out=np.full(len(rows), np.nan), where=n > 0)


def _z(confidence: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def ks_table(validation: CIValidation, alpha: float = 0.05) -> pd.DataFrame:
    """Per p and variance form: runs tested, the share of runs whose deviations the KS test does **not** reject
    (the paper's 90%; also split by judged / unjudged runs), the same with each run's bias removed (a diagnostic:
    does the variance alone fit?), the coverage of the intervals over all trials and runs, the mean and sd of z
    (0 and 1 if the intervals are right), and the median ratio of empirical to estimated sd (1 if the variance
    is right)."""
    per_run = ks_per_run(validation, alpha)
    z = validation.z
    rows = []
    for i, p in enumerate(validation.p_values):
        for j, form in enumerate(validation.forms):
            g = per_run[(per_run.p == p) & (per_run.form == form)]
            tested = g["p_value"].notna()
            zz = z[:, i, j, :]
            zf = zz[np.isfinite(zz)]
            ratio = (g["empirical sd"] / g["estimated sd"].where(g["estimated sd"] > 0)).replace(np.inf, np.nan)
            rows.append({
                "p": p, "form": form, "trials": validation.trials,
                "judgments": float(validation.judgments[:, i].mean()) if validation.trials else np.nan,
                "runs tested": int(tested.sum()), "runs not tested": int((~tested).sum()),
                "not rejected": float((g.loc[tested, "p_value"] >= alpha).mean()) if tested.any() else np.nan,
                "not rejected (judged)": float((g.loc[tested & g.judged, "p_value"] >= alpha).mean())
                if (tested & g.judged).any() else np.nan,
                "not rejected (unjudged)": float((g.loc[tested & ~g.judged, "p_value"] >= alpha).mean())
                if (tested & ~g.judged).any() else np.nan,
                "not rejected (bias removed)": float((g.loc[tested, "p_value (bias removed)"] >= alpha).mean())
                if tested.any() else np.nan,
                "coverage": float((np.abs(zf) <= _z(validation.confidence)).mean()) if zf.size else np.nan,
                "mean z": float(zf.mean()) if zf.size else np.nan,
                "sd z": float(zf.std(ddof=1)) if zf.size > 1 else np.nan,
                "empirical / estimated sd": float(ratio.median()) if ratio.notna().any() else np.nan,
            })
    return pd.DataFrame(rows)


# ------------------------------------------------------------------- what the validation finds: bias, spread

BIAS_PARTS = ("topics without a sampled relevant document (scored 0)",
              "smoothing to 1/2 where nothing above is sampled",
              "ratio estimator (the rest)")


def bias_per_run(validation: CIValidation) -> pd.DataFrame:
    """Per p and run: E[mean infAP] - MAP over the trials (``bias``), the empirical sd of mean infAP over the
    trials, the bias in sds (``bias / sd``) and in standard errors of the mean over trials (``bias / SE``,
    SE = sd / sqrt(trials)), and the bias split into :data:`BIAS_PARTS` (they add up to ``bias``):

    * a topic with no sampled relevant document scores 0: its part is -AP_t over the trials where that happens;
    * at a sampled relevant document with nothing sampled above it, trec_eval's precision above is smoothed to
      (0 + e)/(0 + 2e) = 1/2 (Yilmaz et al. 2008 Sec. 3, Lidstone): its part is infAP minus infAP with the true
      precision there (:func:`evalkit.measures.inferred.trec_infap_oracle_above`), on the other topics;
    * the rest is the ratio estimator's own bias (an average of estimated precisions over a random number of
      sampled relevant documents, each precision itself a ratio of sampled counts).

    All per run and mean over its scored topics, averaged over the trials."""
    if validation.parts is None:
        raise ValueError("this validation did not record the parts of the error (run ci_validation again)")
    n = validation.trials
    bias = (validation.mean - validation.map[None, None, :]).mean(axis=0)  # (P, S)
    sd = validation.mean.std(axis=0, ddof=1) if n > 1 else np.full(bias.shape, np.nan)
    parts = validation.parts.mean(axis=0)  # (P, 2, S)
    frames = []
    for i, p in enumerate(validation.p_values):
        ratio_sd = np.divide(bias[i], sd[i], out=np.full(len(bias[i]), np.nan), where=sd[i] > 0)
        frames.append(pd.DataFrame({
            "p": p, "run": validation.runs, "judged": validation.judged, "MAP": validation.map, "bias": bias[i],
            "sd": sd[i], "bias / sd": ratio_sd, "bias / SE": ratio_sd * np.sqrt(n),
            BIAS_PARTS[0]: parts[i, 0], BIAS_PARTS[1]: parts[i, 1], BIAS_PARTS[2]: bias[i] - parts[i].sum(axis=0),
        }))
    return pd.concat(frames, ignore_index=True)


def bias_breakdown(validation: CIValidation) -> pd.DataFrame:
    """Per p: the mean over runs of E[mean infAP] - MAP and its three parts (:func:`bias_per_run`), topics
    without a sampled relevant document per trial, the share of runs whose bias is below (above) zero by more than
    2 standard errors, and the correlation of the bias with MAP."""
    per_run = bias_per_run(validation)
    rows = []
    for i, (p, g) in enumerate(per_run.groupby("p", sort=False)):
        row = {"p": p, "trials": validation.trials,
               "empty topics a trial": float(validation.empty_topics[:, i].mean()) if validation.trials else np.nan,
               "bias": g["bias"].mean()}
        row.update({part: g[part].mean() for part in BIAS_PARTS})
        row["runs low by > 2 SE"] = float((g["bias / SE"] < -2).mean())
        row["runs high by > 2 SE"] = float((g["bias / SE"] > 2).mean())
        row["corr(bias, MAP)"] = float(np.corrcoef(g["bias"], g["MAP"])[0, 1]) \
            if g["bias"].std() > 0 and g["MAP"].std() > 0 else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def coverage_per_trial(validation: CIValidation) -> pd.DataFrame:
    """Long table trial, p, form, covered: in every trial, the share of runs whose interval covers MAP (runs with
    an estimated sd of 0 left out)."""
    z = validation.z  # (n, P, F, S)
    finite = np.isfinite(z)
    inside = (np.abs(np.where(finite, z, np.inf)) <= _z(validation.confidence)).sum(axis=3)
    tested = finite.sum(axis=3)
    covered = np.divide(inside, tested, out=np.full(inside.shape, np.nan), where=tested > 0)  # (n, P, F)
    n, P, F = covered.shape
    idx = np.indices((n, P, F)).reshape(3, -1)
    return pd.DataFrame({"trial": idx[0], "p": np.asarray(validation.p_values)[idx[1]],
                         "form": np.asarray(validation.forms, object)[idx[2]], "covered": covered.ravel()})


def coverage_over_trials(validation: CIValidation, forms: Sequence[str] | None = None) -> pd.DataFrame:
    """Per p and variance form: the share of runs whose interval covers MAP, computed in every trial
    (:func:`coverage_per_trial`), summarized over the trials (mean, sd, min, 5% and 95% quantiles, max). Figure 1
    shows one trial; since every run shares that trial's sample, one trial's coverage swings widely, and a claim
    about coverage is graded on the mean."""
    per_trial = coverage_per_trial(validation)
    rows = []
    for (p, form), g in per_trial.groupby(["p", "form"], sort=False):
        if forms is not None and form not in forms:
            continue
        v = g["covered"].to_numpy()
        v = v[np.isfinite(v)]
        rows.append({"p": p, "form": form, "trials": len(v),
                     "mean": float(v.mean()) if len(v) else np.nan,
                     "sd": float(v.std(ddof=1)) if len(v) > 1 else np.nan,
                     "min": float(v.min()) if len(v) else np.nan,
                     "5%": float(np.quantile(v, 0.05)) if len(v) else np.nan,
                     "95%": float(np.quantile(v, 0.95)) if len(v) else np.nan,
                     "max": float(v.max()) if len(v) else np.nan})
    return pd.DataFrame(rows)


def ks_variants(validation: CIValidation, bernoulli: CIValidation | None = None,
                forms: Sequence[str] = (PAPER_FORM, DEFAULT_FORM), few_trials: int = 10,
                alpha: float = 0.05) -> pd.DataFrame:
    """The KS validation under every variant tried to reproduce the paper's 90%: the design as read (uniform
    samples of exactly p N_t documents, all runs), the judged runs only, topics without a sampled relevant
    document dropped (:meth:`~evalkit.papers.yilmaz2008.experiment.CIValidation.without_empty_topics`), only the first
    ``few_trials`` trials (the infAP paper's 10), and Bernoulli sampling (``bernoulli``, a validation run with
    ``method="bernoulli"``). Per variant, p and form: runs tested, the share not rejected, and the share not rejected
    with each run's bias removed (the variance alone)."""
    variants = [("as read: fixed-size uniform samples, all runs", validation, None),
                ("judged runs only", validation, "judged"),
                ("topics without a sampled relevant document dropped", validation.without_empty_topics(), None),
                (f"first {min(few_trials, validation.trials)} trials", validation.head(few_trials), None)]
    if bernoulli is not None:
        variants.append(("Bernoulli samples (each document with probability p)", bernoulli, None))
    rows = []
    for name, v, subset in variants:
        per_run = ks_per_run(v, alpha)
        if subset == "judged":
            per_run = per_run[per_run.judged]
        for (p, form), g in per_run.groupby(["p", "form"], sort=False):
            if form not in forms:
                continue
            tested = g["p_value"].notna()
            rows.append({"variant": name, "p": p, "form": form, "trials": v.trials, "runs tested": int(tested.sum()),
                         "not rejected": float((g.loc[tested, "p_value"] >= alpha).mean()) if tested.any() else np.nan,
                         "not rejected (bias removed)": float((g.loc[tested, "p_value (bias removed)"] >= alpha).mean())
                         if tested.any() else np.nan})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------- figure 2


def figure2_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per k: judgments, share of the pool (and the paper's), RMS / tau / rho over all runs, and RMS and tau over
    the unjudged runs only (the paper's robustness claim)."""
    rows = []
    for k, g in frame.groupby("k", sort=False):
        s = agreement(g["MAP"].to_numpy(), g["mean_xinfAP"].to_numpy())
        u = g[~g.judged]
        su = agreement(u["MAP"].to_numpy(), u["mean_xinfAP"].to_numpy()) if len(u) > 2 else None
        rows.append({"k": k, "judgments": int(g["judgments"].iloc[0]), "share": g["share"].iloc[0],
                     "paper share": PAPER_FIGURE2_SHARE.get(int(k), np.nan),
                     "RMS": s["rms"][0], "tau": s["tau"][0], "rho": s["rho"][0],
                     "RMS (unjudged)": su["rms"][0] if su else np.nan,
                     "tau (unjudged)": su["tau"][0] if su else np.nan,
                     "mean error": float((g["mean_xinfAP"] - g["MAP"]).mean())})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------- figures 3 and 4


def dominance(sweep: Sweep, winner: str, losers: Sequence[str], statistics: Sequence[str] = ("tau", "rho", "RMS"),
              ) -> pd.DataFrame:
    """Per k: does ``winner`` beat every one of ``losers`` on each statistic (trial means; higher tau / rho, lower
    RMS)? Columns: k, share, one bool column per statistic, and ``all``."""
    s = sweep.summary()
    rows = []
    for k, g in s.groupby("k", sort=False):
        g = g.set_index("estimator")
        row = {"k": k, "share": g.loc[winner, "share"]}
        for stat in statistics:
            other = g.loc[list(losers), stat]
            row[stat] = bool(g.loc[winner, stat] <= other.min()) if stat == "RMS" else \
                bool(g.loc[winner, stat] >= other.max())
        row["all"] = all(row[stat] for stat in statistics)
        rows.append(row)
    return pd.DataFrame(rows)
