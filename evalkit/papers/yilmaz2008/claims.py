"""Yilmaz, Kanoulas & Aslam 2008: the paper's statements beside the kit's numbers (:func:`claims`) and the
findings in words (:func:`findings_markdown`), every number and conclusion computed from the results."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalkit.papers.yilmaz2008.experiment import (
    DEFAULT_FORM,
    FIGURE3_ESTIMATORS,
    FIGURE4_ESTIMATORS,
    PAPER_FORM,
    CIValidation,
    Gold,
    Sweep,
)
from evalkit.papers.yilmaz2008.paper import PAPER_KS_NOT_REJECTED, PAPER_TREC8_JUDGMENTS
from evalkit.papers.yilmaz2008.tables import (
    BIAS_PARTS,
    bias_breakdown,
    coverage_over_trials,
    dominance,
    figure1_summary,
    figure2_summary,
    ks_table,
)


def findings_markdown(validation: CIValidation, alpha: float = 0.05, form: str = DEFAULT_FORM) -> str:
    """The validation's two findings in words, every number (and every conclusion) computed from ``validation``:
    (a) the bias of infAP and its parts, (b) the variance forms' fit, with and without the bias (Markdown)."""
    t = ks_table(validation, alpha)
    b = bias_breakdown(validation) if validation.parts is not None else None
    cov = coverage_over_trials(validation, [form])
    ps = "/".join(f"{p:.0%}" for p in validation.p_values)
    joined = (lambda values, fmt="{:.0%}": "/".join(fmt.format(v) for v in values))

    def col(f, column, fmt="{:.0%}"):
        g = t[t.form == f]
        return joined(g[column], fmt) if len(g) else "n/a"

    lines = [f"**What {validation.trials} samples at p = {ps} show** (every number below is computed from this run):", ""]
    if validation.trials < 50:
        lines += [f"*Only {validation.trials} samples: the KS test has little power to reject, and the coverage and "
                  "bias estimates are rough. The paper used 100.*", ""]
    if b is not None:
        low = b["runs low by > 2 SE"]
        direction = "falls short of" if (b["bias"] < 0).all() else "differs from"
        verdict = ("a clear bias" if (low >= 0.5).any() else "a bias in some runs" if (low >= 0.1).any()
                   else "no clear bias")
        lines.append(
            f"* **(a) The bias: {verdict}.** Mean infAP {direction} MAP by {joined(b['bias'], '{:+.3f}')} on average "
            f"over runs; {joined(low)} of the runs are low by more than 2 standard errors (high: "
            f"{joined(b['runs high by > 2 SE'])}); correlation of the bias with MAP "
            f"{joined(b['corr(bias, MAP)'], '{:+.2f}')}. It splits into {joined(b[BIAS_PARTS[0]], '{:+.3f}')} from "
            f"topics with no sampled relevant document (they score 0; {joined(b['empty topics a trial'], '{:.1f}')} "
            f"topics a sample), {joined(b[BIAS_PARTS[1]], '{:+.3f}')} from the smoothing to 1/2 where nothing above a "
            f"relevant document was sampled, and {joined(b[BIAS_PARTS[2]], '{:+.3f}')} from the ratio estimator "
            "itself. The variance formula cannot see a bias.")
    forms = [f for f in (PAPER_FORM, form) if f in validation.forms]
    ratios = {f: t.loc[t.form == f, "empirical / estimated sd"] for f in forms}
    if PAPER_FORM in ratios:
        r = ratios[PAPER_FORM]
        verdict = "too small" if (r > 1.2).any() else "about right"
        text = (f"* **(b) The paper's variance is {verdict}.** With the paper's formula ({PAPER_FORM}) the empirical "
                f"sd of mean infAP is {joined(r, '{:.2f}')} times the estimated one (median over runs)")
        if form != PAPER_FORM and form in ratios:
            text += f"; with {form} {joined(ratios[form], '{:.2f}')}"
        lines.append(text + ".")
    if forms:
        kit, paper = t[t.form == form], t[t.form == PAPER_FORM]
        pass_kit = kit["not rejected (bias removed)"].to_numpy()
        pass_paper = paper["not rejected (bias removed)"].to_numpy() if len(paper) else pass_kit
        if (pass_kit >= 0.8).all() and (pass_paper >= 0.8).all():
            reading = "once the bias is removed both forms pass: the failure is the bias"
        elif (pass_kit >= 0.8).all():
            reading = "the shift explains the failure only once the variance is also corrected"
        else:
            reading = "even without the bias the test rejects many runs: the variance does not fit either"
        text = f"* **Kept apart.** The KS test does not reject {col(form, 'not rejected')} of the runs ({form})"
        if form != PAPER_FORM and len(paper):
            text += f" and {col(PAPER_FORM, 'not rejected')} with the paper's formula"
        text += f" (the paper: {PAPER_KS_NOT_REJECTED:.0%}). Removing each run's bias, {joined(pass_kit)} pass"
        if form != PAPER_FORM and len(paper):
            text += f" ({form}) against {joined(pass_paper)} with the paper's formula"
        lines.append(text + f": {reading}.")
    if len(cov):
        lines.append(
            f"* **Coverage.** Over the {validation.trials} samples the 95% intervals ({form}) cover MAP for "
            f"{joined(cov['mean'])} of the runs on average, ranging from {joined(cov['min'])} to {joined(cov['max'])} "
            "between samples: one sample (Figure 1) says little.")
    return "\n".join(lines)


def _pct(values) -> str:
    return ", ".join(f"{v:.0%}" for v in values)


def claims(gold: Gold, fig1: pd.DataFrame | None = None, validation: CIValidation | None = None,
           fig2: pd.DataFrame | None = None, fig3: Sweep | None = None, fig4: Sweep | None = None,
           form: str = DEFAULT_FORM, alpha: float = 0.05) -> list:
    """The paper's statements beside the kit's numbers (:class:`evalkit.claims.Claim` rows) for whatever parts
    were run."""
    from evalkit.claims import Claim

    paper = "Yilmaz, Kanoulas & Aslam 2008"
    data = gold.collection.name
    out = [Claim(paper, f"size of the depth-{gold.depth} pool of the contributing runs (TREC-8: depth 100)",
                 f"{PAPER_TREC8_JUDGMENTS:,}", f"{gold.n_pooled:,}", data,
                 ("yes" if gold.n_pooled == PAPER_TREC8_JUDGMENTS else "no") if data == "trec8" else "",
                 "the truth of every experiment here")]
    ps = (lambda values: "/".join(f"{p:.0%}" for p in values))
    if fig1 is not None or (validation is not None and validation.trials > 1):
        if validation is not None and validation.trials > 1:
            cov = coverage_over_trials(validation, [form])
            one = ""
            if fig1 is not None:
                f = figure1_summary(fig1)
                one = f"; Figure 1's one sample: {_pct(f[f.form == form]['covered'])}"
            agrees = "yes" if (cov["mean"] >= 0.9).all() else "partly" if (cov["mean"] >= 0.75).all() else "no"
            out.append(Claim(paper, f"Fig. 1: 95% CIs of mean infAP cover the actual MAP (p = {ps(cov.p)})",
                             "the greatest majority",
                             f"mean over {validation.trials} samples {_pct(cov['mean'])} of runs (5-95% of samples: "
                             + ", ".join(f"{a:.0%}-{b:.0%}" for a, b in zip(cov["5%"], cov["95%"])) + f"; {form})"
                             + one, data, agrees,
                             "graded on the mean over samples: one sample, shared by every run, swings coverage "
                             f"from {_pct(cov['min'])} to {_pct(cov['max'])}" + (
                                 "; misses fall mostly below the diagonal (bias)" if validation.parts is not None
                                 and (bias_breakdown(validation)["runs low by > 2 SE"] >= 0.5).any() else "")))
        else:
            f = figure1_summary(fig1)
            mine = f[f.form == form]
            agrees = "yes" if (mine["covered"] >= 0.9).all() else "partly" if (mine["covered"] >= 0.75).all() else "no"
            out.append(Claim(paper, f"Fig. 1: 95% CIs of mean infAP cover the actual MAP (p = {ps(mine.p)}, one "
                             "sample)", "the greatest majority", f"{_pct(mine['covered'])} of runs ({form})", data,
                             agrees, "one sample only: coverage swings widely between samples"))
    if validation is not None and validation.trials > 1:
        t = ks_table(validation, alpha)
        kit = t[t.form == form]
        paper_form = t[t.form == PAPER_FORM]
        agrees = "yes" if (kit["not rejected"] >= 0.8).all() else "partly" if (kit["not rejected"] >= 0.5).any() else "no"
        causes = []
        if validation.parts is not None and (bias_breakdown(validation)["runs low by > 2 SE"] >= 0.1).any():
            causes.append("a bias (next row)")
        if len(paper_form) and (paper_form["empirical / estimated sd"] > 1.2).any():
            causes.append("with the paper's formula, a variance too small (the row after)")
        out.append(Claim(paper, f"KS test of the deviations (in sds) against N(0,1), {validation.trials} samples, "
                         f"alpha = {alpha}: share of runs not rejected", f"{PAPER_KS_NOT_REJECTED:.0%}",
                         f"{_pct(kit['not rejected'])} at p = {ps(kit.p)} ({form})"
                         + (f"; {_pct(paper_form['not rejected'])} with the paper's formula" if len(paper_form) else ""),
                         data, agrees, ("causes kept apart: " + "; ".join(causes)) if causes else ""))
        if validation.parts is not None:
            b = bias_breakdown(validation)
            low = b["runs low by > 2 SE"]
            out.append(Claim(paper, "infAP is an unbiased estimator of AP (Sec. 2), so mean infAP - MAP is centred "
                             "on 0", "unbiased, by construction",
                             f"E[mean infAP] - MAP = {', '.join(f'{v:+.3f}' for v in b['bias'])} at p = {ps(b.p)}; "
                             f"{_pct(low)} of runs low by > 2 SE; parts: empty topics "
                             f"{', '.join(f'{v:+.3f}' for v in b[BIAS_PARTS[0]])}, smoothing to 1/2 "
                             f"{', '.join(f'{v:+.3f}' for v in b[BIAS_PARTS[1]])}, ratio estimator "
                             f"{', '.join(f'{v:+.3f}' for v in b[BIAS_PARTS[2]])}", data,
                             "no" if (low >= 0.5).any() else "partly" if (low >= 0.1).any() else "yes",
                             "topics with no sampled relevant document score 0; with nothing sampled above a relevant "
                             "document the precision above is smoothed to 1/2; the rest is the ratio estimator's bias"))
        if len(paper_form):
            ratio = paper_form["empirical / estimated sd"]
            out.append(Claim(paper, "the variance of infAP (Sec. 2, Appendix: the estimate plugged into the "
                             "hypergeometric formula) fits: with the bias removed the KS test passes",
                             "90% not rejected", f"paper's formula: empirical / estimated sd {', '.join(f'{r:.2f}' for r in ratio)}; "
                             f"bias removed {_pct(paper_form['not rejected (bias removed)'])} pass (kit's "
                             f"{form}: {_pct(kit['not rejected (bias removed)'])})", data,
                             "yes" if (paper_form["not rejected (bias removed)"] >= 0.8).all() else
                             "partly" if (paper_form["not rejected (bias removed)"] >= 0.8).any() else "no",
                             "'bias removed' centres each run on its own mean over the samples (the KS test is then "
                             "conservative)" + ("; the kit's unbiased variance passes where the paper's does not"
                                                if (kit["not rejected (bias removed)"] >= 0.8).all()
                                                and (paper_form["not rejected (bias removed)"] < 0.8).any() else "")))
    if fig2 is not None:
        f = figure2_summary(fig2)
        shares = "/".join(f"{s:.1%}" for s in f["share"])
        paper_shares = "/".join(f"{s:.1%}" for s in f["paper share"])
        close = np.nanmax(np.abs(f["share"] - f["paper share"])) <= 0.005
        out.append(Claim(paper, f"Fig. 2: share of the depth-{gold.depth} pool judged by depth-"
                         + "/".join(map(str, f.k))
                         + " + equal random", paper_shares, shares, data,
                         ("yes" if close else "no") if data == "trec8" else "",
                         "the paper's shares are TREC-8's"))
        out.append(Claim(paper, "Fig. 2: xinfAP vs actual MAP (RMS, tau, rho) at depth-" + "/".join(map(str, f.k)),
                         "unbiased; unseen runs (pluses) evaluated reliably (values only in the figure)",
                         "; ".join(f"k={k}: RMS {r:.3f}, tau {t:.3f}, rho {c:.3f} (unjudged runs tau {u:.3f})"
                                   for k, r, t, c, u in zip(f.k, f.RMS, f.tau, f.rho, f["tau (unjudged)"])),
                         data, "yes" if (f.tau > 0.9).iloc[0] and (f["mean error"].abs() <= 0.02).all() else
                         "partly", "mean error " + ", ".join(f"{e:+.3f}" for e in f["mean error"])
                         + ": sample_eval's smoothing lifts xinfAP where the random stratum is thinly sampled "
                         "(smoothing_study)"))
    if fig3 is not None:
        d = dominance(fig3, FIGURE3_ESTIMATORS[0], FIGURE3_ESTIMATORS[1:])
        s = fig3.summary()
        k10 = s[s.k == 10] if (s.k == 10).any() else s[s.k == s.k.max()]
        out.append(Claim(paper, "Fig. 3: xinfAP (depth + random) beats infAP (random) and infAP (depth + random) "
                         "in tau, rho and RMS at every k",
                         "at all levels of incompleteness, all three statistics",
                         f"all three at {int(d['all'].sum())} of {len(d)} depths (tau {int(d['tau'].sum())}, rho "
                         f"{int(d['rho'].sum())}, RMS {int(d['RMS'].sum())}); at k={int(k10.k.iloc[0])}: tau "
                         + ", ".join(f"{t:.3f}" for t in k10.tau) + " (xinfAP, infAP random, infAP depth+random)",
                         data, "yes" if d["all"].all() else "partly" if d["all"].mean() >= 0.5 else "no",
                         kind="direction"))
    if fig4 is not None:
        ap = dominance(fig4, FIGURE4_ESTIMATORS[0], [FIGURE4_ESTIMATORS[1]], ("tau", "RMS"))
        nd = dominance(fig4, FIGURE4_ESTIMATORS[2], [FIGURE4_ESTIMATORS[3]], ("tau", "RMS"))
        ok = ap["all"].all() and nd["all"].all()
        out.append(Claim(paper, "Fig. 4 (4 strata): xinfAP beats infAP and infNDCG beats nDCG on random judgments "
                         "of the same size (tau and RMS)", "consistently, TREC 8, 9 and 10",
                         f"xinfAP: {int(ap['all'].sum())} of {len(ap)} depths; infNDCG: {int(nd['all'].sum())} "
                         f"of {len(nd)} depths (TREC-9/10 not run)", data,
                         "yes" if ok else "partly" if (ap["all"].mean() + nd["all"].mean()) / 2 >= 0.5 else "no",
                         kind="direction"))
        s = fig4.summary()
        rms = s.pivot(index="k", columns="estimator", values="RMS")
        out.append(Claim(paper, "Fig. 4: nDCG on random judgments has a high RMS error (it does not estimate)",
                         "high RMS", f"RMS nDCG (random) {rms[FIGURE4_ESTIMATORS[3]].min():.3f}-"
                         f"{rms[FIGURE4_ESTIMATORS[3]].max():.3f} vs infNDCG {rms[FIGURE4_ESTIMATORS[2]].min():.3f}-"
                         f"{rms[FIGURE4_ESTIMATORS[2]].max():.3f}", data,
                         "yes" if (rms[FIGURE4_ESTIMATORS[3]] > rms[FIGURE4_ESTIMATORS[2]]).all() else "partly",
                         kind="direction"))
    out.append(Claim(paper, "TREC-9 and TREC-10 panels", "same conclusions as TREC-8",
                     "not run: the data are not available here", data, "",
                     "point the notebook's dataset at a TREC-9/10 directory to run them"))
    return out
