"""Yilmaz, Kanoulas & Aslam 2008: pure functions from the experiment's results to tables.

Figure 1's and Figure 2's summaries (beside the paper's shares), the KS validation of the intervals (per run, per
p and form, under every variant tried), the bias of infAP split into its parts, the coverage over samples, and which
estimator dominates in the sweeps of Figures 3 and 4.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from evalkit.papers.yilmaz2008.experiment import CIValidation, Sweep
from evalkit.papers.yilmaz2008.gold import agreement
from evalkit.papers.yilmaz2008.paper import (
    DEFAULT_FORM,
    PAPER_FIGURE2_SHARE,
    PAPER_FORM,
)

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
    from scipy.stats import kstwo

    d, n = _ks_statistic(z)
    return d, kstwo.sf(d, n)


def _ks_statistic(z: np.ndarray) -> tuple[np.ndarray, int]:
    """The KS statistic D of each row of ``z`` (K, n) against N(0, 1), and n."""
    from scipy.special import ndtr

    z = np.sort(np.atleast_2d(np.asarray(z, np.float64)), axis=1)
    n = z.shape[1]
    cdf = ndtr(z)
    i = np.arange(1, n + 1)
    return np.maximum((i / n - cdf).max(axis=1), (cdf - (i - 1) / n).max(axis=1)), n


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
    is right).

    A validation of several blocks (repetitions of the paper's experiment, :func:`ks_blocks`) is tested block by
    block, as the paper tested its 100 samples, and each column is the median over the blocks (``blocks`` says
    how many; :func:`~evalkit.papers.yilmaz2008.intervals.ks_interval` gives their spread)."""
    if validation.blocks > 1:
        whole = _block_tables(validation, alpha)
        table = whole.drop(columns="block").groupby(["p", "form"], sort=False).median(numeric_only=True)
        table = table.reset_index()
        table.insert(2, "blocks", validation.blocks)
        return table
    table = _ks_table_one(validation, alpha)
    table.insert(2, "blocks", 1)
    return table


def ks_blocks(validation: CIValidation, alpha: float = 0.05) -> pd.DataFrame:
    """Long table block, p, form, not rejected, not rejected (bias removed): the KS test's pass rates in every
    block of :attr:`~evalkit.papers.yilmaz2008.experiment.CIValidation.block_size` samples (one repetition of the
    paper's experiment each). Since every run shares each sample, one block's pass rate swings widely: a claim about
    it is read on the spread over blocks."""
    return _block_tables(validation, alpha)[["block", "p", "form", "not rejected", "not rejected (bias removed)"]]


_BLOCK_TABLES: dict[tuple, tuple] = {}


def _block_tables(validation: CIValidation, alpha: float) -> pd.DataFrame:
    """The KS table of every block (column ``block``), computed once per validation and alpha."""
    key = (id(validation), float(alpha))
    hit = _BLOCK_TABLES.get(key)
    if hit is not None and hit[0] is validation:
        return hit[1]
    frames = [_ks_table_one(validation.block_of(b) if validation.blocks > 1 else validation, alpha).assign(block=b)
              for b in range(max(validation.blocks, 1))]
    frame = pd.concat(frames, ignore_index=True)
    if len(_BLOCK_TABLES) >= 4:
        _BLOCK_TABLES.pop(next(iter(_BLOCK_TABLES)))
    _BLOCK_TABLES[key] = (validation, frame)
    return frame


def _ks_passes(rows: np.ndarray, alpha: float) -> np.ndarray:
    """(K,) bool: the two-sided KS test of each row of ``rows`` (K, n) against N(0, 1) does not reject at
    ``alpha``, i.e. its statistic D is at most the exact critical value (``scipy.stats.kstwo.isf(alpha, n)``): the
    same decision as ``p-value >= alpha`` (:func:`ks_test_normal`), without an exact p-value per row."""
    from scipy.stats import kstwo

    if rows.shape[1] == 0:
        return np.zeros(len(rows), bool)
    d, _ = _ks_statistic(rows)
    return d <= kstwo.isf(alpha, rows.shape[1])


def _ks_flags(validation: CIValidation, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(P, F, S) bool each: the run was tested (finite z in every trial), its deviations pass the KS test, and
    they pass with its bias removed (:attr:`~evalkit.papers.yilmaz2008.experiment.CIValidation.z_centred`)."""
    z, zc = validation.z, validation.z_centred  # (n, P, F, S)
    n = validation.trials
    rows, rows_c = np.moveaxis(z, 0, -1), np.moveaxis(zc, 0, -1)  # (P, F, S, n)
    tested = np.isfinite(rows).all(axis=-1) & (n > 0)
    passed, passed_c = np.zeros(tested.shape, bool), np.zeros(tested.shape, bool)
    if tested.any():
        passed[tested] = _ks_passes(rows[tested], alpha)
        passed_c[tested] = _ks_passes(rows_c[tested], alpha)
    return tested, passed, passed_c


def _ks_table_one(validation: CIValidation, alpha: float) -> pd.DataFrame:
    z = validation.z  # (n, P, F, S)
    n = validation.trials
    empirical = validation.mean.std(axis=0, ddof=1) if n > 1 else np.full(validation.mean.shape[1:], np.nan)
    estimated = np.sqrt((validation.sd ** 2).mean(axis=0))  # (P, F, S)
    judged = validation.judged
    flags = _ks_flags(validation, alpha)
    share = (lambda mask, values: float(values[mask].mean()) if mask.any() else np.nan)
    rows = []
    for i, p in enumerate(validation.p_values):
        for j, form in enumerate(validation.forms):
            tested, passed, passed_c = (f[i, j] for f in flags)
            zz = z[:, i, j, :]
            zf = zz[np.isfinite(zz)]
            ratio = np.divide(empirical[i], estimated[i, j], out=np.full(len(judged), np.nan),
                              where=estimated[i, j] > 0)
            rows.append({
                "p": p, "form": form, "trials": n,
                "judgments": float(validation.judgments[:, i].mean()) if n else np.nan,
                "runs tested": int(tested.sum()), "runs not tested": int((~tested).sum()),
                "not rejected": share(tested, passed), "not rejected (judged)": share(tested & judged, passed),
                "not rejected (unjudged)": share(tested & ~judged, passed),
                "not rejected (bias removed)": share(tested, passed_c),
                "coverage": float((np.abs(zf) <= _z(validation.confidence)).mean()) if zf.size else np.nan,
                "mean z": float(zf.mean()) if zf.size else np.nan,
                "sd z": float(zf.std(ddof=1)) if zf.size > 1 else np.nan,
                "empirical / estimated sd": float(np.nanmedian(ratio)) if np.isfinite(ratio).any() else np.nan,
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
    with each run's bias removed (the variance alone). A validation of several blocks is read on its first block
    (the paper's number of samples)."""
    if validation.blocks > 1:
        validation = validation.block_of(0)
    if bernoulli is not None and bernoulli.blocks > 1:
        bernoulli = bernoulli.block_of(0)
    variants = [("as read: fixed-size uniform samples, all runs", validation, None),
                ("judged runs only", validation, "judged"),
                ("topics without a sampled relevant document dropped", validation.without_empty_topics(), None),
                (f"first {min(few_trials, validation.trials)} trials", validation.head(few_trials), None)]
    if bernoulli is not None:
        variants.append(("Bernoulli samples (each document with probability p)", bernoulli, None))
    rows = []
    for name, v, subset in variants:
        tested, passed, passed_c = _ks_flags(v, alpha)
        if subset == "judged":
            tested = tested & v.judged[None, None, :]
        for i, p in enumerate(v.p_values):
            for j, form in enumerate(v.forms):
                if form not in forms:
                    continue
                t = tested[i, j]
                rows.append({"variant": name, "p": p, "form": form, "trials": v.trials, "runs tested": int(t.sum()),
                             "not rejected": float(passed[i, j][t].mean()) if t.any() else np.nan,
                             "not rejected (bias removed)": float(passed_c[i, j][t].mean()) if t.any() else np.nan})
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


# ------------------------------------------------------------------------------------ truth, deviations


def truth_table(gold) -> pd.DataFrame:
    """:func:`~evalkit.papers.yilmaz2008.gold.truth_counts` as a one-column table: which truth the notebook
    uses and how it covers the collection's qrels, both ways."""
    from evalkit.papers.yilmaz2008.gold import truth_counts

    counts = truth_counts(gold)
    return pd.DataFrame({"count": list(counts.values())}, index=pd.Index(list(counts), name=gold.collection.name))


def deviations(gold, plan=None, validation: CIValidation | None = None, figure2=None, bernoulli=None,
               alpha: float = 0.05, form: str | None = None) -> pd.DataFrame:
    """Where this replication deviates from the paper: one row per difference, with why and its effect (computed
    from the results given, where it can be). Columns ``what differs from the paper``, ``why``, ``effect``.

    ``plan``: the notebook's plan (depth scaling, sizes); ``validation`` (its variance forms, blocks);
    ``figure2``: :class:`~evalkit.papers.yilmaz2008.experiment.Figure2Trials` (the smoothing); ``bernoulli``: the
    validation with Bernoulli samples (the sampling variant); ``form``: the variance form the claims use (default:
    the plan's ``variance_form``, else the kit's default)."""
    from evalkit.papers.yilmaz2008.gold import truth_counts
    from evalkit.papers.yilmaz2008.paper import FIGURE2_DEPTHS, PAPER_POOL_DEPTH

    counts = truth_counts(gold)
    if form is None:
        form = (plan.parameters.get("variance_form") if plan is not None else None) or DEFAULT_FORM
    rows = [(
        f"truth: AP under the depth-{gold.depth} pool of the {int(gold.judged.sum())} judged runs, graded by the "
        "collection's qrels",
        "the paper's complete judgment set is the depth-100 pool (footnote 2); every sample is drawn from the pool, "
        "so a relevant document outside it is invisible to every estimator",
        f"{counts['judgments outside it']:,} qrels judgments ({counts['relevant outside it']:,} relevant) lie outside "
        f"the pool and are not in the truth; {counts['pooled documents the qrels do not judge']:,} pooled documents "
        "the qrels do not judge count as nonrelevant")]
    if gold.depth < PAPER_POOL_DEPTH:
        shares = (plan["shares"] if plan is not None and "shares" in plan.parameters else {})
        rows.append((
            f"pool depth {gold.depth} instead of 100; depths k scaled by {gold.depth}/100",
            "the qrels know nothing below the judged depth",
            "the designs judge " + ", ".join(f"{v:.0%} (k = {k})" for k, v in sorted(shares.items()))
            + " of the pool; the paper's depth-10/5/1 designs judged "
            + "/".join(f"{PAPER_FIGURE2_SHARE[k]:.1%}" for k in FIGURE2_DEPTHS) if shares else "-"))
    if validation is not None:
        table = ks_table(validation, alpha)
        ratio = table.groupby("form", sort=False)["empirical / estimated sd"].agg(["min", "max"])
        rows.append((
            f"the variance of infAP in {len(validation.forms)} forms; the claims use '{form}' (the parameter "
            "variance_form)",
            "the Appendix leaves the population proportion in var[PC_above] unknown (the kit plugs in the estimate, "
            "or its unbiased estimate, with or without the Appendix's covariances)",
            "empirical / estimated sd (median over runs): " + "; ".join(
                f"{form} {r['min']:.2f}-{r['max']:.2f}" for form, r in ratio.iterrows())))
        if validation.blocks > 1:
            blocks = ks_blocks(validation, alpha)
            spread = blocks.groupby("form", sort=False)["not rejected (bias removed)"].agg(["min", "max"])
            rows.append((
                f"the validation repeated: {validation.blocks} blocks of {validation.block_size} samples (the "
                "paper: one experiment of 100)",
                "every run shares each sample, so one experiment's pass rate swings; the claims read its spread",
                "KS pass rate with the bias removed, range over blocks: " + "; ".join(
                    f"{form} {r['min']:.0%}-{r['max']:.0%}" for form, r in spread.iterrows())))
        if validation.block_size < 100:
            rows.append((f"{validation.block_size} samples per p (the paper's 100)", "the class preset's size",
                         "the KS test has little power: its claims read 'not rated at class size'"))
    rows.append((
        "uniform samples of exactly round(p N_t) documents per topic",
        "the paper says 'p% of the pool' without saying how",
        _bernoulli_effect(validation, bernoulli, alpha)))
    if figure2 is not None and len(figure2.smoothings) > 1:
        stats = figure2.stats()
        k = min(figure2.depths)
        err = stats[stats.k == k].groupby("smoothing", sort=False)["mean error"].median()
        rows.append((
            "xinfAP with sample_eval's smoothing (r + 1e-5)/(n + 3e-5), not the paper's (r + e)/(n + 2e)",
            "NIST's sample_eval.pl is what TREC runs; the paper states its formula with e/2e",
            f"mean error of mean xinfAP at k = {k} (median over {figure2.trials} seeds): "
            + "; ".join(f"{name} {v:+.4f}" for name, v in err.items())))
    rows += [
        ("Figure 4's strata: equal-width bands of pool ranks k+1..depth, rates in the ratio 3 : 1.5 : 1 scaled so "
         "that the budget equals the depth-k pool",
         "the paper gives neither the boundaries nor whether 55/27/18% are rates", "-"),
        ("'a random sample of the same size': uniform over the pool at the rate judged / pooled",
         "the paper does not say how the size was matched", "at most one judgment per topic more or fewer"),
        ("Figures 1-2 graded over samples and seeds (the paper shows one sample each)",
         "one sample is one draw: a claim is graded on the spread", "see the claims' intervals"),
        ("TREC-9 and TREC-10 not run", "their runs and qrels are not shipped", "Fig. 4's claim is TREC-8's only"),
    ]
    return pd.DataFrame(rows, columns=["what differs from the paper", "why", "effect"])


def _bernoulli_effect(validation, bernoulli, alpha) -> str:
    if validation is None or bernoulli is None:
        return "-"
    fixed = validation.block_of(0) if validation.blocks > 1 else validation
    other = bernoulli.block_of(0) if bernoulli.blocks > 1 else bernoulli
    forms = [f for f in other.forms if f in fixed.forms]
    if not forms:
        return "-"
    a, b = ks_table(fixed, alpha), ks_table(other, alpha)
    form = forms[0]
    return (f"KS pass rate with Bernoulli samples {'/'.join(f'{v:.0%}' for v in b.loc[b.form == form, 'not rejected'])}"
            f" vs {'/'.join(f'{v:.0%}' for v in a.loc[a.form == form, 'not rejected'])} ({form}; the variants table)")
