"""Rank-level gain models (Lu, Moffat and Culpepper, AIRS 2016; used as the m = 3 first-stage estimators of
Lu et al. 2017, Fig. 2).

For one topic, the *observed gain vector* is the mean gain at each rank over the n contributing runs, for the
ranks d' of the shallow pool (where every document is judged)::

    g_j = (1/n) * sum_{i=1..n} r_{j,i},      j = 1..d'

(a run that ended before rank j is left out of that rank's mean). Each model G(j) is fitted to g by least squares
over j = 1..d', then evaluated at every rank 1..k: interpolation inside d', extrapolation from d' to the metric
depth k. Predictions are clipped to [0, 1] (gains are in [0, 1]), as in the authors' ``fit_prob.py``.

Parametrizations (reconstructed from the AIRS 2016 paper and the authors' scripts, xiaolul/opt_est)::

    Linear   G(j) = a + b j,                                  a >= 0, b <= 0
    Zipf     G(j) = a j^(-c)  ( = lambda / (j^c H_{N,c}) with H_{N,c} = sum_{x<=N} x^(-c), N = 1000
                                in the authors' form; the normalizer only rescales a),    a >= 0, c >= 0
    Weibull  G(j) = lambda [ exp(-((j-1)/alpha)^beta) - exp(-(j/alpha)^beta) ],    lambda, alpha, beta > 0

The Weibull curve is lambda times the probability mass at j - 1 of the discrete (type I, Nakagawa-Osaki) Weibull
distribution, P(X >= x) = exp(-(x/alpha)^beta), X = 0, 1, 2, ...: beta < 1 gives a heavy, slowly decaying tail,
beta > 1 a hump. Fitting: the scale (a or lambda) enters linearly, so it is profiled out (non-negative least
squares for fixed shape); the shape is found on a grid and refined (``scipy.optimize.minimize_scalar`` for Zipf's c,
Nelder-Mead from the best grid point for Weibull's (alpha, beta)) -- deterministic, no random restarts. A topic whose observed gains are all zero gets the zero curve from every model.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

__all__ = [
    "GAIN_MODELS",
    "MODEL_LABELS",
    "observed_gain_vector",
    "fit_gain_model",
    "gain_curve",
    "fit_gain_models",
]

#: model name -> short label used in the paper's tables and figures
MODEL_LABELS = {"linear": "Lin", "zipf": "Zipf", "weibull": "Wei"}
GAIN_MODELS = tuple(MODEL_LABELS)


def observed_gain_vector(pool_gains: np.ndarray, present: np.ndarray | None = None) -> np.ndarray:
    """(T, d') mean gain at each rank over the contributing runs.

    ``pool_gains`` is (n, T, d') (gains of the contributing runs' top d', all judged); ``present`` (same shape,
    bool) marks ranks that hold a document (default: all). Ranks no run reached are NaN.
    """
    g = np.asarray(pool_gains, dtype=np.float64)
    present = np.ones(g.shape, bool) if present is None else np.asarray(present, bool)
    count = present.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, (g * present).sum(axis=0) / np.where(count > 0, count, 1), np.nan)


# ----------------------------------------------------------------------------------------- the three models


def _scale(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Non-negative least-squares scale of basis rows x (..., d) to y (d,): max(0, <x,y>/<x,x>)."""
    xx = np.einsum("...d,...d->...", x, x)
    xy = np.einsum("...d,d->...", x, y)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(xx > 0, np.maximum(xy / np.where(xx > 0, xx, 1.0), 0.0), 0.0)


def _sse(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Residual sum of squares of the best non-negative scale of each basis row; inf where not finite."""
    s = _scale(x, y)
    with np.errstate(invalid="ignore", over="ignore"):
        sse = np.sum((s[..., None] * x - y) ** 2, axis=-1)
    return np.where(np.isfinite(sse), sse, np.inf)


def _zipf_basis(c, ranks):
    return np.asarray(ranks, dtype=np.float64) ** (-np.asarray(c, dtype=np.float64)[..., None])


def _weibull_basis(log_alpha, log_beta, ranks):
    """exp(-(x/a)^b) - exp(-((x+1)/a)^b) at x = rank - 1, written as exp(-u0) * (-expm1(-(u1 - u0))) with
    u1 - u0 = a^-b ((x+1)^b - x^b) so that it stays accurate for very large alpha (the power-law limit)."""
    beta = np.exp(np.asarray(log_beta, dtype=np.float64))[..., None]
    scale = np.exp(-beta * np.asarray(log_alpha, dtype=np.float64)[..., None])  # alpha^-beta
    x = np.asarray(ranks, dtype=np.float64) - 1.0
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        u0 = scale * x**beta
        du = scale * ((x + 1.0) ** beta - x**beta)
        return np.exp(-u0) * -np.expm1(-du)


def _fit_linear(ranks, y):
    """min sum (a + b j - y)^2, a >= 0, b <= 0, by enumerating the active sets of the two bounds."""
    best = (0.0, 0.0)
    best_sse = float(np.sum(y**2))
    candidates = []
    b, a = np.polyfit(ranks, y, 1) if len(ranks) > 1 else (0.0, float(y[0]))
    candidates.append((a, b))
    candidates.append((max(float(y.mean()), 0.0), 0.0))  # b = 0
    jj = float(np.dot(ranks, ranks))
    candidates.append((0.0, min(float(np.dot(ranks, y)) / jj, 0.0)))  # a = 0
    for a, b in candidates:
        if a >= 0 and b <= 0:
            sse = float(np.sum((a + b * ranks - y) ** 2))
            if sse < best_sse - 1e-15:
                best, best_sse = (float(a), float(b)), sse
    return {"a": best[0], "b": best[1]}


_ZIPF_GRID = np.linspace(0.0, 6.0, 61)


def _fit_zipf(ranks, y):
    sse = _sse(_zipf_basis(_ZIPF_GRID, ranks), y)
    i = int(np.argmin(sse))
    lo, hi = _ZIPF_GRID[max(i - 1, 0)], _ZIPF_GRID[min(i + 1, len(_ZIPF_GRID) - 1)]
    res = optimize.minimize_scalar(lambda c: float(_sse(_zipf_basis(c, ranks), y)), bounds=(lo, hi),
                                   method="bounded", options={"xatol": 1e-6})
    c = float(res.x) if res.fun <= sse[i] else float(_ZIPF_GRID[i])
    a = float(_scale(_zipf_basis(c, ranks), y))
    return {"a": a, "c": c}


_WEI_GRID = np.meshgrid(np.log(np.geomspace(0.2, 1e6, 45)), np.log(np.geomspace(0.1, 5.0, 30)), indexing="ij")
_WEI_BOUNDS = [(np.log(0.05), np.log(1e12)), (np.log(0.02), np.log(20.0))]


def _fit_weibull(ranks, y):
    """Profiled least squares over (log alpha, log beta): the best point of a coarse grid, refined by Nelder-Mead
    within bounds (alpha up to 1e12: when the least-squares optimum lies at alpha -> infinity the curve tends to
    the power law lambda' * ((x+1)^beta - x^beta), which the bound reaches to within rounding)."""
    la, lb = _WEI_GRID
    sse = _sse(_weibull_basis(la, lb, ranks), y)
    i, j = np.unravel_index(int(np.argmin(sse)), sse.shape)
    start = np.array([la[i, j], lb[i, j]])
    objective = lambda v: float(_sse(_weibull_basis(v[0], v[1], ranks), y))  # noqa: E731
    res = optimize.minimize(objective, start, method="Nelder-Mead", bounds=_WEI_BOUNDS,
                            options={"xatol": 1e-7, "fatol": 1e-15, "maxiter": 2000})
    v = res.x if res.fun <= sse[i, j] else start
    lam = float(_scale(_weibull_basis(v[0], v[1], ranks), y))
    return {"lambda": lam, "alpha": float(np.exp(v[0])), "beta": float(np.exp(v[1]))}


_FITTERS = {"linear": _fit_linear, "zipf": _fit_zipf, "weibull": _fit_weibull}


def fit_gain_model(model: str, observed: np.ndarray) -> dict:
    """Least-squares parameters of ``model`` ("linear", "zipf", "weibull") for one observed gain vector (ranks
    1..len(observed); NaN ranks are skipped)."""
    if model not in _FITTERS:
        raise ValueError(f"unknown gain model {model!r}; choose one of {GAIN_MODELS}")
    y = np.asarray(observed, dtype=np.float64)
    ranks = np.arange(1, len(y) + 1, dtype=np.float64)
    ok = ~np.isnan(y)
    ranks, y = ranks[ok], y[ok]
    if not len(y) or not np.any(y > 0):
        return {"linear": {"a": 0.0, "b": 0.0}, "zipf": {"a": 0.0, "c": 0.0},
                "weibull": {"lambda": 0.0, "alpha": 1.0, "beta": 1.0}}[model]
    return _FITTERS[model](ranks, y)


def gain_curve(model: str, params: dict, depth: int) -> np.ndarray:
    """The fitted model at ranks 1..depth, clipped to [0, 1]."""
    ranks = np.arange(1, depth + 1, dtype=np.float64)
    if model == "linear":
        curve = params["a"] + params["b"] * ranks
    elif model == "zipf":
        curve = params["a"] * _zipf_basis(params["c"], ranks)
    elif model == "weibull":
        curve = params["lambda"] * _weibull_basis(np.log(params["alpha"]), np.log(params["beta"]), ranks)
    else:
        raise ValueError(f"unknown gain model {model!r}; choose one of {GAIN_MODELS}")
    return np.clip(curve, 0.0, 1.0)


def fit_gain_models(observed: np.ndarray, depth: int, models=GAIN_MODELS) -> tuple[np.ndarray, list[list[dict]]]:
    """Fit every model to every topic's observed gain vector.

    ``observed`` is (T, d'); returns ``(curves, params)`` with ``curves[t, l, j-1]`` = model l's gain at rank j
    (j = 1..depth) for topic t, and ``params[t][l]`` its parameters.
    """
    observed = np.atleast_2d(np.asarray(observed, dtype=np.float64))
    T = observed.shape[0]
    curves = np.zeros((T, len(models), depth))
    params: list[list[dict]] = []
    for t in range(T):
        row = []
        for m_index, model in enumerate(models):
            p = fit_gain_model(model, observed[t])
            curves[t, m_index] = gain_curve(model, p, depth)
            row.append(p)
        params.append(row)
    return curves, params
