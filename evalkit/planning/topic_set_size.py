"""Topic set size design: how many topics a collection needs for a statistical requirement, and the inverse.

Sakai, "Topic set size design", Information Retrieval Journal 19 (2016) 256-283, applies Nagata's three sample
size designs to IR: given the within-system variance sigma^2 of a measure (:mod:`evalkit.planning.variance`),
the number of topics n such that

1. **the paired t-test** at significance level alpha has power 1 - beta to detect a difference of ``delta``
   (Sakai's minD_t) between two systems;
2. **the one-way ANOVA** over m systems has power 1 - beta when the best and worst system differ by ``delta``
   (minD, the least favourable configuration: the others at the midpoint);
3. **the confidence interval** of the difference between two systems is no wider than ``width`` (the CI-based
   design: the *expected* width, with the unbiasing constant of the sample standard deviation);

and the unpaired variants (Sakai's later paired / unpaired follow-up, ICTIR 2018: each system with its own n
topics), and the minimum detectable difference for a given n (the inverse question). The equations:

**Paired t-test.** The per-topic difference of two systems has variance ``sigma_d^2 = 2 sigma^2`` (the topic
effect cancels; sigma^2 the two-way residual V_E). With ``phi = n - 1`` degrees of freedom and noncentrality
``lambda = sqrt(n) delta / sigma_d``, the power of the two-sided test is::

    power(n) = P(t'(phi, lambda) >= t(phi; alpha/2)) + P(t'(phi, lambda) <= -t(phi; alpha/2))

(t' the noncentral t, t(phi; alpha/2) the upper alpha/2 point of the central t). The unpaired (two-sample, equal
variances) test has ``phi = 2(n - 1)`` and ``lambda = delta / (sigma sqrt(2/n))`` (sigma^2 the one-way V_W).
Nagata's normal approximation, the starting point of Sakai's tools,
``n ~ ((z_{alpha/2} + z_beta) sigma_d / delta)^2 + z_{alpha/2}^2 / 2``, is :func:`ttest_topics_approx`; the
sizes here are exact: the smallest integer n whose noncentral-t power reaches the target.

**One-way ANOVA** over m systems, n topics each: ``phi_A = m - 1``, ``phi_E = m (n - 1)``; with the best and
worst systems ``delta`` apart and the rest at their midpoint, the noncentrality is
``lambda = n delta^2 / (2 sigma^2)``, and ``power(n) = P(F'(phi_A, phi_E, lambda) >= F(phi_A, phi_E; alpha))``.

**CI width.** The 100(1 - alpha)% CI of a paired difference is ``dbar +- t(phi; alpha/2) s_d / sqrt(n)``; its
expected width is::

    E[W] = 2 t(phi; alpha/2) c(phi) sigma_d / sqrt(n),   c(phi) = sqrt(2 / phi) Gamma((phi + 1)/2) / Gamma(phi / 2)

(``c(phi) sigma`` = E[s] for a sample standard deviation s with phi degrees of freedom). The design is the
smallest n with ``E[W] <= width``; ``expected=False`` uses the plug-in width ``2 t sigma_d / sqrt(n)``. Unpaired:
``sigma_d / sqrt(n)`` becomes ``sigma sqrt(2/n)`` and ``phi = 2(n - 1)``.

Every function takes and returns plain numbers (numpy arrays broadcast); a parameter out of range is a
ValueError naming it. Checked against statsmodels' power solvers (``TTestPower``, ``TTestIndPower``,
``FTestAnovaPower``) and hand-computed cases in ``tests/test_planning_sizes.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import special, stats
from scipy.optimize import brentq

__all__ = ["MAX_TOPICS", "check_requirement", "ttest_power", "ttest_topics", "ttest_topics_approx",
           "ttest_power_with_bias", "ttest_topics_with_bias", "anova_power", "anova_topics", "ci_width", "ci_topics",
           "detectable_difference", "topic_set_sizes"]

#: topic set sizes are searched up to here; a requirement that needs more (e.g. delta ~ 0) gets inf
MAX_TOPICS = 10**7


def check_requirement(alpha: float | None = None, power: float | None = None, delta=None, width=None,
                      variance=None, systems: int | None = None) -> None:
    """ValueError naming the first parameter out of range: alpha in (0, 1), power in (alpha, 1), delta > 0,
    width > 0, variance >= 0 (finite), systems >= 2."""
    if alpha is not None and not 0 < float(alpha) < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if power is not None:
        if not 0 < float(power) < 1:
            raise ValueError(f"power must be in (0, 1), got {power}")
        if alpha is not None and float(power) <= float(alpha):
            raise ValueError(f"power must be above alpha ({alpha}), got {power}")
    for name, value in (("delta", delta), ("width", width)):
        if value is not None and not (np.all(np.isfinite(value)) and np.all(np.asarray(value, float) > 0)):
            raise ValueError(f"{name} must be positive, got {value}")
    if variance is not None and not (np.all(np.isfinite(variance)) and np.all(np.asarray(variance, float) >= 0)):
        raise ValueError(f"variance must be finite and >= 0, got {variance}")
    if systems is not None and int(systems) < 2:
        raise ValueError(f"systems must be at least 2, got {systems}")


def _out(value):
    value = np.asarray(value, dtype=np.float64)
    return float(value) if value.ndim == 0 else value


def _sd_of_difference(variance, n, paired: bool):
    """Standard error of the difference of two system means over n topics, and its degrees of freedom."""
    variance, n = np.asarray(variance, np.float64), np.asarray(n, np.float64)
    if paired:
        return np.sqrt(2 * variance / n), n - 1
    return np.sqrt(variance * 2 / n), 2 * (n - 1)


# ------------------------------------------------------------------------------------------------ t-test


def ttest_power(n, delta, variance, alpha: float = 0.05, paired: bool = True):
    """Power of the two-sided t-test of two systems over ``n`` topics (paired: the same topics; unpaired: n
    each) to detect a true difference ``delta``, given the within-system variance (module docstring)."""
    check_requirement(alpha=alpha, delta=delta, variance=variance)
    n = np.asarray(n, np.float64)
    if np.any(n < 2):
        raise ValueError(f"n must be at least 2 topics, got {n}")
    se, df = _sd_of_difference(variance, n, paired)
    with np.errstate(divide="ignore", invalid="ignore"):
        ncp = np.where(se > 0, np.asarray(delta, np.float64) / np.where(se > 0, se, 1.0), np.inf)
    crit = stats.t.isf(alpha / 2, df)
    finite = np.isfinite(ncp)
    ncp_f = np.where(finite, ncp, 0.0)
    power = stats.nct.sf(crit, df, ncp_f) + stats.nct.cdf(-crit, df, ncp_f)
    power = np.where(np.isnan(power), 1.0, power)  # scipy's nct is NaN far in the tail, where the power is 1
    return _out(np.where(finite, power, 1.0))


def ttest_topics_approx(delta, variance, alpha: float = 0.05, power: float = 0.8, paired: bool = True):
    """Nagata's normal approximation (Sakai 2016's starting point):
    ``n ~ ((z_{alpha/2} + z_beta) sigma_d / delta)^2 + z_{alpha/2}^2 / 2`` (paired, sigma_d^2 = 2 sigma^2;
    unpaired: the same with 2 sigma^2 per group, i.e. the two-sample n per system), not rounded."""
    check_requirement(alpha=alpha, power=power, delta=delta, variance=variance)
    z_a, z_b = stats.norm.isf(alpha / 2), stats.norm.isf(1 - power)
    return _out(((z_a + z_b) ** 2) * 2 * np.asarray(variance, float) / np.asarray(delta, float) ** 2 + z_a**2 / 2)


def _smallest_n(reaches, shape, start: int = 2, guess=None):
    """The smallest integer n >= start (per element of ``shape``) with ``reaches(n)`` True, for a condition
    monotone in n; inf where not even MAX_TOPICS reaches it. Vectorized. With a ``guess`` (an approximation of n,
    e.g. Nagata's), a walk from it (one or two evaluations when the guess is within one); elements the walk does
    not settle within a few steps, and every element without a guess: doubling, then bisection."""
    result = np.full(shape, np.nan)
    if guess is not None:
        n = np.clip(np.round(np.asarray(guess, float)), start, MAX_TOPICS)
        n = np.where(np.isfinite(n), n, start)
        ok = reaches(n)
        for _ in range(8):  # walk down while n - 1 still reaches, up while n does not
            down = ok & (n > start)
            below = reaches(np.where(down, n - 1, n)) if down.any() else np.zeros(shape, bool)
            settled = (ok & ~(down & below)) & np.isnan(result)
            result = np.where(settled, n, result)
            open_ = np.isnan(result)
            if not open_.any():
                return result
            n = np.where(open_ & ok, n - 1, np.where(open_, n + 1, n))
            ok = np.where(open_, reaches(n), ok)
    pending = np.isnan(result)
    lo = np.full(shape, start, np.float64)
    ok_lo = reaches(lo)
    hi = lo.copy()
    ok_hi = ok_lo.copy()
    while True:
        grow = pending & ~ok_hi & (hi < MAX_TOPICS)
        if not grow.any():
            break
        hi = np.where(grow, np.minimum(hi * 2, MAX_TOPICS), hi)
        ok_hi = np.where(grow, reaches(hi), ok_hi)
    lo = np.where(ok_lo, lo, np.where(ok_hi, np.floor(hi / 2), hi))  # reaches(lo) False unless lo == start
    found = np.where(ok_lo, lo, np.inf)
    search = pending & ~ok_lo & ok_hi
    while search.any():
        gap = search & (hi - lo > 1)
        if not gap.any():
            break
        mid = np.floor((lo + hi) / 2)
        ok_mid = reaches(np.where(gap, mid, hi))
        hi = np.where(gap & ok_mid, mid, hi)
        lo = np.where(gap & ~ok_mid, mid, lo)
    found = np.where(search, hi, found)
    return np.where(pending, found, result)


def ttest_topics(delta, variance, alpha: float = 0.05, power: float = 0.8, paired: bool = True):
    """The smallest number of topics n >= 2 whose t-test power (:func:`ttest_power`) reaches ``power`` for a true
    difference ``delta`` (Sakai 2016's t-test-based design; unpaired: topics per system). inf when more than
    :data:`MAX_TOPICS` would be needed."""
    check_requirement(alpha=alpha, power=power, delta=delta, variance=variance)
    delta, variance = np.broadcast_arrays(np.asarray(delta, float), np.asarray(variance, float))
    with np.errstate(divide="ignore", invalid="ignore"):
        guess = ttest_topics_approx(np.where(delta > 0, delta, 1.0), variance, alpha, power, paired)
    n = _smallest_n(lambda k: np.asarray(ttest_power(k, delta, variance, alpha, paired)) >= power, delta.shape,
                    guess=guess)
    return _out(n)


def ttest_power_with_bias(n, delta, variance, bias_sd, alpha: float = 0.05, paired: bool = True):
    """Power of the t-test to find the *right* direction when the judging design adds a systematic per-system
    error (:func:`evalkit.planning.designs.bias_variance`) of standard deviation ``bias_sd``: two systems a true
    ``delta`` apart differ on the design's scale by ``delta + eta``, ``eta ~ N(0, 2 bias_sd^2)``, whatever the
    number of topics. The t statistic is then ``(Z + (delta + eta) / se) / sqrt(V / phi)``, and since
    ``Z + eta / se = k Z'`` with ``k = sqrt(1 + 2 bias_sd^2 / se^2)``, it is k times a noncentral t with
    noncentrality ``delta / (k se)``: the power is exactly::

        P(t'(phi, delta / (k se)) >= t(phi; alpha/2) / k)

    As n grows it tends to ``Phi(delta / (sqrt(2) bias_sd))``, not 1: more topics do not remove a bias. With
    ``bias_sd = 0`` this is the upper tail of :func:`ttest_power` (the lower tail, a significant result in the
    wrong direction, is below 1e-6 at any power worth planning for)."""
    check_requirement(alpha=alpha, delta=delta, variance=variance)
    n = np.asarray(n, np.float64)
    if np.any(n < 2):
        raise ValueError(f"n must be at least 2 topics, got {n}")
    se, df = _sd_of_difference(variance, n, paired)
    bias = np.asarray(bias_sd, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        k = np.sqrt(1 + 2 * bias**2 / se**2)
        ncp = np.asarray(delta, float) / (k * se)
    crit = stats.t.isf(alpha / 2, df)
    right = stats.nct.sf(crit / k, df, np.where(np.isfinite(ncp), ncp, 0.0))
    right = np.where(np.isnan(right), (ncp > 0).astype(float), right)
    return _out(np.where(np.isfinite(ncp), right, 1.0))


def ttest_topics_with_bias(delta, variance, bias_sd, alpha: float = 0.05, power: float = 0.8,
                           paired: bool = True):
    """The smallest n >= 2 whose :func:`ttest_power_with_bias` reaches ``power``; inf when the bias caps the
    power below it (``Phi(delta / (sqrt(2) bias_sd)) < power``) or more than :data:`MAX_TOPICS` are needed.
    ``bias_sd = 0`` gives :func:`ttest_topics` (Sakai's design) exactly."""
    check_requirement(alpha=alpha, power=power, delta=delta, variance=variance)
    delta, variance, bias_sd = np.broadcast_arrays(*(np.asarray(v, float) for v in (delta, variance, bias_sd)))
    if np.any(~np.isfinite(bias_sd) | (bias_sd < 0)):
        raise ValueError(f"bias_sd must be finite and >= 0, got {bias_sd}")
    exact = np.asarray(ttest_topics(delta, variance, alpha, power, paired), float)
    biased = bias_sd > 0
    if not biased.any():
        return _out(exact)
    with np.errstate(divide="ignore"):
        ceiling = stats.norm.cdf(delta / (np.sqrt(2) * np.where(biased, bias_sd, 1.0)))
    n = _smallest_n(lambda k: np.asarray(ttest_power_with_bias(k, delta, variance, bias_sd, alpha, paired)) >= power,
                    delta.shape)
    return _out(np.where(biased, np.where(ceiling > power, n, np.inf), exact))


# ------------------------------------------------------------------------------------------------ ANOVA


def anova_power(n, delta, variance, systems: int, alpha: float = 0.05):
    """Power of the one-way ANOVA over ``systems`` systems with ``n`` topics each when the best and the worst
    differ by ``delta`` (least favourable configuration, lambda = n delta^2 / (2 sigma^2); module docstring)."""
    check_requirement(alpha=alpha, delta=delta, variance=variance, systems=systems)
    n = np.asarray(n, np.float64)
    if np.any(n < 2):
        raise ValueError(f"n must be at least 2 topics, got {n}")
    variance = np.asarray(variance, np.float64)
    df_a, df_e = systems - 1, systems * (n - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(variance > 0, n * np.asarray(delta, float) ** 2 / (2 * np.where(variance > 0, variance, 1)),
                       np.inf)
    crit = stats.f.isf(alpha, df_a, df_e)
    finite = np.isfinite(lam)
    power = stats.ncf.sf(crit, df_a, df_e, np.where(finite, lam, 0.0))
    return _out(np.where(finite, power, 1.0))


def anova_topics(delta, variance, systems: int, alpha: float = 0.05, power: float = 0.8):
    """The smallest n >= 2 whose one-way ANOVA power (:func:`anova_power`) reaches ``power`` (Sakai 2016's
    ANOVA-based design, minD = ``delta``)."""
    check_requirement(alpha=alpha, power=power, delta=delta, variance=variance, systems=systems)
    delta, variance = np.broadcast_arrays(np.asarray(delta, float), np.asarray(variance, float))
    n = _smallest_n(lambda k: np.asarray(anova_power(k, delta, variance, systems, alpha)) >= power, delta.shape)
    return _out(n)


# ------------------------------------------------------------------------------------------------ CI


def _c(df):
    """E[s] / sigma for a sample standard deviation with ``df`` degrees of freedom."""
    df = np.asarray(df, np.float64)
    return np.sqrt(2 / df) * np.exp(special.gammaln((df + 1) / 2) - special.gammaln(df / 2))


def ci_width(n, variance, alpha: float = 0.05, paired: bool = True, expected: bool = True):
    """The (expected, with ``expected``) full width of the 100(1 - alpha)% CI of the difference of two systems
    over ``n`` topics (module docstring)."""
    check_requirement(alpha=alpha, variance=variance)
    n = np.asarray(n, np.float64)
    if np.any(n < 2):
        raise ValueError(f"n must be at least 2 topics, got {n}")
    se, df = _sd_of_difference(variance, n, paired)
    width = 2 * stats.t.isf(alpha / 2, df) * se
    return _out(width * _c(df) if expected else width)


def ci_topics(width, variance, alpha: float = 0.05, paired: bool = True, expected: bool = True):
    """The smallest n >= 2 whose CI width (:func:`ci_width`) is at most ``width`` (Sakai 2016's CI-based design)."""
    check_requirement(alpha=alpha, width=width, variance=variance)
    width, variance = np.broadcast_arrays(np.asarray(width, float), np.asarray(variance, float))
    guess = 8 * stats.norm.isf(alpha / 2) ** 2 * variance / width**2  # the normal approximation
    n = _smallest_n(lambda k: np.asarray(ci_width(k, variance, alpha, paired, expected)) <= width, width.shape,
                    guess=guess)
    return _out(n)


# ------------------------------------------------------------------------------------------------ inverse


def _nct_power(crit, df, lam):
    """Two-sided noncentral-t power; scipy's nct returns NaN far in the tail (large lam), where the power is 1."""
    value = stats.nct.sf(crit, df, lam) + stats.nct.cdf(-crit, df, lam)
    return 1.0 if np.isnan(value) else float(value)


def detectable_difference(n, variance, alpha: float = 0.05, power: float = 0.8, test: str = "ttest",
                          paired: bool = True, systems: int = 2):
    """The inverse question: the smallest true difference detected with probability ``power`` over ``n`` topics
    (``test="ttest"``: between two systems; ``"anova"``: the best-worst range over ``systems``), or, with
    ``test="ci"``, the CI width reached (:func:`ci_width`, expected). Solved on the noncentrality parameter."""
    check_requirement(alpha=alpha, power=power, variance=variance)
    n_arr, var_arr = np.broadcast_arrays(np.asarray(n, float), np.asarray(variance, float))
    if np.any(n_arr < 2):
        raise ValueError(f"n must be at least 2 topics, got {n}")
    if test == "ci":
        return ci_width(n_arr, var_arr, alpha, paired)
    out = np.empty(n_arr.shape)
    for index in np.ndindex(n_arr.shape):
        k, v = float(n_arr[index]), float(var_arr[index])
        if test == "ttest":
            se, df = _sd_of_difference(v, k, paired)
            crit = stats.t.isf(alpha / 2, df)
            out[index] = float(se) * brentq(lambda lam: _nct_power(crit, df, lam) - power, 0.0, 200.0, xtol=1e-12)
        elif test == "anova":
            check_requirement(systems=systems)
            df_a, df_e = systems - 1, systems * (k - 1)
            crit = stats.f.isf(alpha, df_a, df_e)
            lam = brentq(lambda x: stats.ncf.sf(crit, df_a, df_e, x) - power, 0.0, 1e4, xtol=1e-12)
            out[index] = np.sqrt(2 * v * lam / k)
        else:
            raise ValueError(f"test must be 'ttest', 'anova' or 'ci', got {test!r}")
    return _out(out)


# ------------------------------------------------------------------------------------------------ summary


def topic_set_sizes(variance: float, unpaired_variance: float | None = None, delta: float | None = None,
                    width: float | None = None, alpha: float = 0.05, power: float = 0.8,
                    systems=(2, 5, 10)) -> pd.DataFrame:
    """The three designs side by side for one measure, as Sakai (2016) tabulates them: one row per design
    (paired / unpaired t-test, one-way ANOVA over each number of ``systems``, paired / unpaired CI), with the
    variance used, the requirement, and the topics needed. ``variance``: the paired (two-way residual) estimate;
    ``unpaired_variance``: the one-way estimate (default: ``variance``), used by the unpaired rows and the ANOVA.
    ``delta`` and/or ``width`` choose which designs are computed."""
    if delta is None and width is None:
        raise ValueError("give delta (a difference to detect) and/or width (a CI width cap)")
    unpaired_variance = variance if unpaired_variance is None else unpaired_variance
    rows = []
    if delta is not None:
        rows.append({"design": "paired t-test", "variance": variance, "requirement": f"detect {delta:g}",
                     "topics": ttest_topics(delta, variance, alpha, power, True)})
        rows.append({"design": "unpaired t-test (per system)", "variance": unpaired_variance,
                     "requirement": f"detect {delta:g}", "topics": ttest_topics(delta, unpaired_variance, alpha,
                                                                               power, False)})
        for m in systems:
            rows.append({"design": f"one-way ANOVA, {m} systems", "variance": unpaired_variance,
                         "requirement": f"range {delta:g}",
                         "topics": anova_topics(delta, unpaired_variance, int(m), alpha, power)})
    if width is not None:
        rows.append({"design": "paired CI", "variance": variance, "requirement": f"width <= {width:g}",
                     "topics": ci_topics(width, variance, alpha, True)})
        rows.append({"design": "unpaired CI (per system)", "variance": unpaired_variance,
                     "requirement": f"width <= {width:g}", "topics": ci_topics(width, unpaired_variance, alpha,
                                                                              False)})
    frame = pd.DataFrame(rows).set_index("design")
    frame.attrs.update(alpha=alpha, power=power)
    return frame
