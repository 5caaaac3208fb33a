"""Fit the simulator's parameters to a real collection (TREC-8 for the committed default), and compare.

``collection_statistics(c)`` summarizes any :class:`~evalkit.data.collection.Collection` (real or simulated) by the
numbers the simulator is fitted to; ``fit_params(c)`` returns a parameter dict for
:func:`evalkit.data.simulator.simulate_collection`; ``compare(targets, c)`` puts the two side by side.

Like with like: TREC-8's qrels are the depth-100 pool of its judged runs, so the statistics of any collection are
computed under that pool's judgments (``pooled_qrels``; on TREC-8 a no-op), while the synthetic collection also
knows its complete judgments (``complete_relevant_mean``, ``pool_found_share``).

Two kinds of parameters:

* read off the data directly: the group-size distribution, how many runs of a group were pooled, the share of
  manual runs, the share of short runs and of their short topics and the quantiles of the short lengths, the
  quantiles of the per-run tie rate (and starting values for the Gamma of ``R`` from its moments).
* calibrated by simulation (method of simulated moments, :func:`calibrate`): the fifteen parameters in
  :data:`CALIBRATED`, each paired with the statistic it mainly moves: mean and spread of pooled ``R``; mean MAP,
  its spread between and within groups, the manual-automatic gap, the spread across topics and within a run;
  overlap of top-100 rankings between and within groups; the depth-100 pool size; how MAP and agreement with
  other groups correlate; the shares of pooled relevant documents found by one group only and by more than ten;
  recall at 1000. Levenberg-Marquardt on common random numbers (the same seeds at every evaluation).

Re-fit from the command line (the data stay where they are; only statistics are written)::

    python -m evalkit.data.simulator_fit --data /path/to/trec8 --out evalkit/data/synthetic_trec8_params.json

(about 15 minutes on two cores: each step simulates two default-size collections per parameter).

Judged runs follow :func:`evalkit.data.pools.derive_judged_runs` (top 100 fully judged on every topic: 72 of
TREC-8's 129 runs); every other statistic uses all the runs.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import sparse

from evalkit.data.collection import Collection, JudgedSet
from evalkit.data.datasets import load_directory
from evalkit.data.pools import derive_judged_runs

__all__ = [
    "collection_statistics",
    "average_precision",
    "overlap_at",
    "pooled_qrels",
    "groups_finding_relevant",
    "direct_params",
    "calibrate",
    "fit_params",
    "compare",
    "CALIBRATED",
]

#: The parameters fitted by simulation: (group, name, the statistic it mainly moves, transform, weight of that
#: statistic in the loss). The search runs on the transformed scale (log for positive parameters, logit for shares,
#: arctanh for correlations), so bounds hold and steps are relative. ``retrieval.first_stage`` is fixed (2: each
#: group's list is twice the depth), a compromise between the within-group overlap at depth 1000 and the cost.
CALIBRATED = (
    ("relevant", "scale", "relevant_mean", "log", 1.0),
    ("relevant", "shape", "relevant_sd", "log", 0.5),
    ("quality", "mean", "map_mean", "identity", 1.0),
    ("quality", "sd_group", "map_sd_between_groups", "log", 1.0),
    ("quality", "sd_run", "map_sd_within_group", "log", 0.5),
    ("quality", "manual_bonus", "map_manual_gap", "identity", 0.5),
    ("quality", "sd_topic", "topic_map_sd", "log", 0.5),
    ("quality", "sd_run_topic", "run_ap_sd", "log", 0.5),
    ("retrieval", "shared", "overlap100_between_groups", "logit", 1.0),
    ("retrieval", "shared_spread", "pool100_judged_per_topic", "log", 1.0),
    ("retrieval", "shared_quality", "overlap_map_correlation", "atanh", 0.5),
    ("retrieval", "visibility_spread", "relevant_found_by_many_share", "logit", 0.5),
    ("retrieval", "manual_shared", "unique_relevant_share", "logit", 0.5),
    ("retrieval", "run_noise", "overlap100_within_group", "log", 1.0),
    ("candidates", "n_nonrelevant", "recall1000_mean", "log", 1.0),
)

#: Bounds applied after the transform back (the candidate count bounds the generation time).
_BOUNDS = {"n_nonrelevant": (2000, 40000), "shared": (0.01, 0.99), "manual_shared": (0.01, 0.99),
           "visibility_spread": (0.0, 1.0), "shared_quality": (-0.95, 0.95)}

_TO = {
    "identity": lambda x: x,
    "log": lambda x: np.log(max(x, 1e-6)),
    "logit": lambda x: np.log(np.clip(x, 1e-4, 1 - 1e-4) / (1 - np.clip(x, 1e-4, 1 - 1e-4))),
    "atanh": lambda x: np.arctanh(np.clip(x, -0.999, 0.999)),
    "log1": lambda x: np.log(max(x - 1, 1e-6)),
}
_FROM = {
    "identity": lambda y: y,
    "log": np.exp,
    "logit": lambda y: 1 / (1 + np.exp(-y)),
    "atanh": np.tanh,
    "log1": lambda y: 1 + np.exp(y),
}
_STEP = 0.1  # finite-difference step on the transformed scale

_LEVELS = [round(x, 2) for x in np.linspace(0, 1, 21)]


# ------------------------------------------------------------------------------------------------ measures


def average_precision(collection: Collection, relevant: np.ndarray | None = None) -> np.ndarray:
    """(S, T) average precision with trec_eval semantics (grade >= 1 relevant; divided by the number of relevant
    judged documents; NaN where the topic has no relevant document or the run retrieved nothing).
    ``relevant``: the (S, T, D) boolean ``grades() >= 1`` if already computed."""
    rel = collection.grades() >= 1 if relevant is None else relevant
    n_rel = collection.qrels.counts(1)
    ranks = np.arange(1, collection.depth + 1)
    ap = (np.cumsum(rel, axis=2) / ranks * rel).sum(axis=2) / np.maximum(n_rel, 1)
    return np.where((n_rel > 0)[None, :] & collection.retrieved, ap, np.nan)


def overlap_at(collection: Collection, k: int = 100) -> np.ndarray:
    """(S, S) mean over topics of |top-k of run i  and  top-k of run j| / k."""
    docs = collection.docs[:, :, :k]
    S = collection.n_runs
    total = np.zeros((S, S))
    for t in range(collection.n_topics):
        d = docs[:, t]
        valid = d >= 0
        _, local = np.unique(d[valid], return_inverse=True)
        member = sparse.csr_matrix(
            (np.ones(len(local), np.float64), (np.nonzero(valid)[0], local)), shape=(S, local.max(initial=-1) + 1)
        )
        total += (member @ member.T).toarray()
    return total / (k * collection.n_topics)


def _relevant(collection: Collection) -> np.ndarray:
    """(S, T, D) bool grade >= 1: ``collection.grades() >= 1`` through a dense (topic, doc) table when it is small."""
    qrels = collection.qrels
    if qrels.n_topics * qrels.n_docs > 2e8:
        return collection.grades() >= 1
    table = np.zeros((qrels.n_topics, qrels.n_docs + 1), bool)  # last column: padding (doc -1)
    positive = qrels.grade >= 1
    table[qrels.topic[positive], qrels.doc[positive]] = True
    return table[np.arange(collection.n_topics)[None, :, None], collection.docs]


def pooled_qrels(collection: Collection, judged: np.ndarray, depth: int = 100) -> JudgedSet:
    """The collection's judgments of the documents in the depth-``depth`` pool of the ``judged`` runs: the qrels TREC
    would have built. On TREC-8 (pool depth 100) this is the official qrels itself."""
    docs = collection.docs[judged, :, :depth]
    topic = np.broadcast_to(np.arange(collection.n_topics)[None, :, None], docs.shape)
    present = docs >= 0
    keys = np.unique(topic[present].astype(np.int64) * len(collection.vocabulary) + docs[present])
    t, d = (keys // len(collection.vocabulary)).astype(np.int32), (keys % len(collection.vocabulary)).astype(np.int32)
    grade = collection.qrels.lookup(t, d)
    keep = grade >= 0
    return JudgedSet.from_arrays(t[keep], d[keep], grade[keep], collection.n_topics, len(collection.vocabulary))


def groups_finding_relevant(collection: Collection, judged: np.ndarray, k: int = 100) -> np.ndarray:
    """Histogram over the relevant documents in the depth-k pool of the judged runs: how many groups' judged runs
    retrieved each (index = number of groups). Index 1 is the pool-bias statistic: what a group's absence from
    the pool would lose."""
    relevant = _relevant(collection)[judged, :, :k]
    docs = collection.docs[judged, :, :k]
    _, group = np.unique(collection.runs_info["group"].to_numpy()[judged], return_inverse=True)
    n_groups = int(group.max(initial=-1)) + 1
    hist = np.zeros(n_groups + 1, np.int64)
    for t in range(collection.n_topics):
        mask = relevant[:, t]
        doc = docs[:, t][mask].astype(np.int64)
        grp = np.broadcast_to(group[:, None], mask.shape)[mask]
        pairs = np.unique(doc * n_groups + grp)
        _, counts = np.unique(pairs // n_groups, return_counts=True)
        hist += np.bincount(counts, minlength=n_groups + 1)
    return hist


def _union_size(collection: Collection, k: int, runs: np.ndarray | None = None) -> float:
    docs = collection.docs[:, :, :k] if runs is None else collection.docs[runs, :, :k]
    sizes = []
    for t in range(collection.n_topics):
        d = docs[:, t]
        sizes.append(len(np.unique(d[d >= 0])))
    return float(np.mean(sizes))


def collection_statistics(collection: Collection, judged: np.ndarray | None = None, pool_depth: int | None = 100) -> dict:
    """The summary statistics the simulator is fitted to and checked against (a flat dict of numbers).

    ``judged``: (S,) bool pooled runs; default ``runs_info['judged']`` if present, else
    :func:`evalkit.data.pools.derive_judged_runs`. ``pool_depth``: the statistics are computed under the qrels TREC's
    process would give, the judgments of the depth-``pool_depth`` pool of the judged runs (the identity on TREC-8,
    whose qrels are that pool); the ``complete_*`` entries use the collection's own qrels. None: own qrels only.
    """
    info = collection.runs_info
    if judged is None:
        judged = info["judged"].to_numpy(bool) if "judged" in info else derive_judged_runs(collection)
    complete_rel = collection.qrels.counts(1)
    if pool_depth is not None:
        collection = collection.with_qrels(pooled_qrels(collection, judged, pool_depth))
    n_rel = collection.qrels.counts(1)
    relevant = _relevant(collection)
    ap = average_precision(collection, relevant)
    run_map = np.nanmean(ap, axis=1)
    p10 = np.nanmean(np.where(collection.retrieved, relevant[:, :, :10].sum(axis=2) / 10, np.nan), axis=1)
    groups = info["group"].to_numpy()
    by_group = pd.Series(run_map).groupby(groups)
    manual = (info["type"] == "manual").to_numpy() if "type" in info else np.zeros(len(run_map), bool)
    gap = run_map[manual].mean() - run_map[~manual].mean() if manual.any() and (~manual).any() else 0.0
    ov = overlap_at(collection, 100)
    ov1000 = overlap_at(collection, 1000)
    same = groups[:, None] == groups[None, :]
    off = ~np.eye(len(groups), dtype=bool)
    lengths = collection.lengths
    short = lengths < collection.depth
    short_runs = short.any(axis=1)
    scores = collection.scores
    valid_pairs = ~np.isnan(scores[:, :, 1:])
    ties = (scores[:, :, 1:] == scores[:, :, :-1]).sum(axis=(1, 2)) / np.maximum(valid_pairs.sum(axis=(1, 2)), 1)
    found_by = groups_finding_relevant(collection, judged)
    stats = {
        "n_topics": collection.n_topics,
        "n_runs": collection.n_runs,
        "depth": collection.depth,
        "relevant_total": int(n_rel.sum()),
        "relevant_mean": float(n_rel.mean()),
        "relevant_sd": float(n_rel.std()),
        "relevant_q25": float(np.percentile(n_rel, 25)),
        "relevant_median": float(np.median(n_rel)),
        "relevant_q75": float(np.percentile(n_rel, 75)),
        "relevant_min": int(n_rel.min()),
        "relevant_max": int(n_rel.max()),
        "map_mean": float(run_map.mean()),
        "map_sd": float(run_map.std()),
        "map_q10": float(np.percentile(run_map, 10)),
        "map_q25": float(np.percentile(run_map, 25)),
        "map_median": float(np.median(run_map)),
        "map_q75": float(np.percentile(run_map, 75)),
        "map_max": float(run_map.max()),
        "map_sd_between_groups": float(by_group.mean().std(ddof=0)),
        "map_sd_within_group": float(np.sqrt(by_group.var(ddof=0).mean())),
        "map_manual_gap": float(gap),
        "topic_map_sd": float(np.nanmean(ap, axis=0).std()),
        "run_ap_sd": float(np.nanmean(np.nanstd(ap, axis=1))),
        "p10_mean": float(p10.mean()),
        "p10_sd": float(p10.std()),
        "recall1000_mean": float(np.mean(relevant.sum(axis=2) / np.maximum(n_rel, 1))),
        "overlap100_within_group": float(ov[same & off].mean()) if (same & off).any() else float("nan"),
        "overlap100_between_groups": float(ov[~same].mean()) if (~same).any() else float("nan"),
        "overlap1000_within_group": float(ov1000[same & off].mean()) if (same & off).any() else float("nan"),
        "overlap1000_between_groups": float(ov1000[~same].mean()) if (~same).any() else float("nan"),
        "overlap1000_between_run_sd": float(np.nanstd(np.nanmean(np.where(same, np.nan, ov1000), axis=1))),
        "overlap_map_correlation": float(np.corrcoef(np.nanmean(np.where(same, np.nan, ov1000), axis=1), run_map)[0, 1]),
        "unique_relevant_share": float(found_by[1] / max(found_by.sum(), 1)),
        "relevant_found_by_many_share": float(found_by[11:].sum() / max(found_by.sum(), 1)),  # > 10 groups
        "complete_relevant_mean": float(complete_rel.mean()),
        "pool_found_share": float(n_rel.sum() / max(complete_rel.sum(), 1)),
        "union100_per_topic": _union_size(collection, 100),
        "union1000_per_topic": _union_size(collection, 1000),
        "pool100_judged_per_topic": _union_size(collection, 100, np.flatnonzero(judged)),
        "judged_share": float(np.mean(judged)),
        "manual_share": float(manual.mean()),
        "n_groups": int(len(by_group)),
        "short_run_share": float(short_runs.mean()),
        "short_topic_share": float(short[short_runs].mean()) if short_runs.any() else 0.0,
        "tie_rate_mean": float(ties.mean()),
    }
    return stats


# ------------------------------------------------------------------------------------------------ fitting


def direct_params(collection: Collection, judged: np.ndarray | None = None) -> dict:
    """The parameters read off the data without simulation (see the module docstring)."""
    info = collection.runs_info
    if judged is None:
        judged = derive_judged_runs(collection)
    n_rel = collection.qrels.counts(1).astype(float)
    mean, var = n_rel.mean(), n_rel.var()
    group_sizes = info.groupby("group", sort=False).size().to_numpy()
    pmf = np.bincount(group_sizes)[1:] / len(group_sizes)
    judged_per_group = pd.Series(judged).groupby(info["group"].to_numpy()).sum()
    sizes = info.groupby("group").size()
    per_group = judged_per_group.reindex(sizes.index)
    typical = int(np.median(per_group[sizes >= 2])) if (sizes >= 2).any() else 1
    lengths = collection.lengths
    short = lengths < collection.depth
    short_runs = short.any(axis=1)
    ratios = lengths[short] / collection.depth
    scores = collection.scores
    valid_pairs = ~np.isnan(scores[:, :, 1:])
    ties = (scores[:, :, 1:] == scores[:, :, :-1]).sum(axis=(1, 2)) / np.maximum(valid_pairs.sum(axis=(1, 2)), 1)
    return {
        "relevant": {"shape": float(mean**2 / var), "scale": float(var / mean), "min": int(max(1, n_rel.min() // 2))},
        "groups": {"size_pmf": [float(x) for x in pmf], "judged_per_group": typical},
        "runs": {"manual_share": float((info["type"] == "manual").mean()) if "type" in info else 0.0},
        "short_runs": {
            "run_share": float(short_runs.mean()),
            "topic_share": float(short[short_runs].mean()) if short_runs.any() else 0.0,
            "length_levels": _LEVELS,
            "length_quantiles": [float(x) for x in np.quantile(ratios, _LEVELS)] if len(ratios) else [1.0] * len(_LEVELS),
        },
        "ties": {"rate_levels": _LEVELS, "rate_quantiles": [float(x) for x in np.quantile(ties, _LEVELS)]},
    }


def _values(params: dict) -> np.ndarray:
    return np.array([_TO[tr](float(params[g][n])) for g, n, _, tr, _ in CALIBRATED])


def _with(params: dict, y: np.ndarray) -> dict:
    out = json.loads(json.dumps(params))
    for (group, name, _, tr, _), value in zip(CALIBRATED, y):
        x = float(np.clip(_FROM[tr](value), *_BOUNDS.get(name, (-np.inf, np.inf))))
        out[group][name] = int(round(x)) if name == "n_nonrelevant" else round(x, 6)
    return out


def calibrate(
    params: dict,
    targets: dict,
    n_topics: int = 50,
    n_runs: int = 129,
    depth: int = 1000,
    seeds=(0, 1),
    iterations: int = 12,
    tolerance: float = 1e-3,
    verbose: bool = True,
) -> tuple[dict, pd.DataFrame]:
    """Method of simulated moments for the :data:`CALIBRATED` parameters.

    Minimizes the weighted squared relative residuals ``weight * ((stat - target) / |target|)^2`` (weights in
    :data:`CALIBRATED`: 1 for the headline statistics, 0.5 for the finer ones) by Levenberg-Marquardt steps
    with a Jacobian from finite differences, updated by Broyden's rule between full re-estimates; every evaluation
    simulates ``n_topics`` x ``n_runs`` x ``depth`` collections with the same ``seeds`` (common random numbers),
    so the map is deterministic. Stops when the squared relative error falls below ``tolerance`` or after
    ``iterations`` steps. Returns the parameters and a log of every accepted step.
    """
    from evalkit.data.simulator import simulate_collection

    stat_names = [c[2] for c in CALIBRATED]
    target = np.array([targets[name] for name in stat_names], float)
    scale = np.maximum(np.abs(target), 1e-2) / np.sqrt([c[4] for c in CALIBRATED])

    def residual(y):
        p = _with(params, y)
        values = []
        for seed in seeds:
            stats = collection_statistics(simulate_collection(n_topics, n_runs, depth, seed=seed, params=p))
            values.append([stats[name] for name in stat_names])
        f = np.mean(values, axis=0)
        return (f - target) / scale, f

    def jacobian(y, r):
        J = np.empty((len(y), len(y)))
        for i in range(len(y)):
            yi = y.copy()
            yi[i] += _STEP
            J[:, i] = (residual(yi)[0] - r) / _STEP
        return J

    y = _values(params)
    r, f = residual(y)
    log = []

    def record(step):
        log.append({"iteration": step, "loss": float(r @ r), **{f"{g}.{n}": float(_FROM[tr](v))
                    for (g, n, _, tr, _), v in zip(CALIBRATED, y)}, **dict(zip(stat_names, f))})
        if verbose:
            print(f"step {step}: loss {r @ r:.5f}", flush=True)
            for (g, n, stat, tr, _), v, fv, tv in zip(CALIBRATED, y, f, target):
                print(f"    {g + '.' + n:26s} {float(_FROM[tr](v)):12.4f}   {stat:28s} {fv:10.4f}  (target {tv:.4f})",
                      flush=True)

    record(0)

    def lm_step(J, r, mu):
        """Levenberg-Marquardt: (J'J + mu diag(J'J)) dy = -J'r, capped at 1.5 on the transformed scale."""
        A = J.T @ J
        dy = np.linalg.solve(A + mu * np.diag(np.diag(A) + 1e-9), -J.T @ r)
        return dy * min(1.0, 1.5 / max(np.abs(dy).max(), 1e-12))

    J, mu, since_fresh = None, 0.3, 0
    for step in range(1, iterations + 1):
        if r @ r < tolerance:
            break
        if J is None or since_fresh >= 6:
            J, since_fresh = jacobian(y, r), 0
        accepted = False
        for _ in range(4):
            y_new = _values(_with(params, y + lm_step(J, r, mu)))  # projected onto the bounds
            r_new, f_new = residual(y_new)
            if r_new @ r_new < r @ r:
                accepted = True
                break
            mu *= 4
        if not accepted:
            if since_fresh == 0:
                break  # a fresh Jacobian and no step helps: as close as this model gets
            J, since_fresh = None, 0  # the Broyden estimate went stale
            continue
        s_vec = y_new - y
        J = J + np.outer((r_new - r) - J @ s_vec, s_vec) / (s_vec @ s_vec)  # Broyden's update
        y, r, f = y_new, r_new, f_new
        mu = max(mu / 3, 1e-3)
        since_fresh += 1
        record(step)
    return _with(params, y), pd.DataFrame(log)


def fit_params(
    collection: Collection,
    start: dict | None = None,
    iterations: int = 12,
    seeds=(0, 1),
    verbose: bool = True,
) -> dict:
    """Fit every simulator parameter to ``collection`` (direct ones, then the calibrated ones by simulation).

    ``start``: initial values of the calibrated parameters (default: the committed parameters). The result holds
    the targets (the collection's statistics) and the fit log, ready to save as JSON.
    """
    from evalkit.data.simulator import PARAMETER_DOC, PARAMETER_NAMES, load_params

    judged = derive_judged_runs(collection)
    targets = collection_statistics(collection, judged)
    params = load_params(start) if start is not None else load_params()
    start_values = {(g, n): params[g][n] for g, n, *_ in CALIBRATED}
    params.update(direct_params(collection, judged))
    for (g, n), value in start_values.items():  # the calibrated ones start from ``start``
        params[g][n] = value
    params, log = calibrate(params, targets, collection.n_topics, collection.n_runs, collection.depth,
                            seeds=seeds, iterations=iterations, verbose=verbose)
    return {
        "source": (
            f"fitted to {collection.name} ({collection.n_runs} runs, {collection.n_topics} topics, depth "
            f"{collection.depth}) by evalkit.data.simulator_fit.fit_params; summary statistics only"
        ),
        **{key: params[key] for key in PARAMETER_NAMES},
        "about": PARAMETER_DOC,
        "fit": {"seeds": list(seeds), "final_loss": float(log["loss"].iloc[-1]), "iterations": int(len(log) - 1),
                "fitted": [f"{g}.{n} <- {stat}" for g, n, stat, *_ in CALIBRATED]},
        "targets": targets,
    }


def compare(targets: dict, collection: Collection, keys=None) -> pd.DataFrame:
    """Side by side: the target statistics (e.g. TREC-8's) and ``collection``'s."""
    stats = collection_statistics(collection)
    keys = keys or [k for k in targets if k in stats]
    return pd.DataFrame(
        {"target": [targets[k] for k in keys], collection.name: [stats[k] for k in keys]}, index=pd.Index(keys, name="statistic")
    )


def main(argv=None) -> None:
    from evalkit.data.datasets import data_root

    root = data_root()
    default = root / "trec8" if root is not None and (root / "trec8").is_dir() else None
    parser = argparse.ArgumentParser(description="Re-fit the simulator's parameters to a TREC collection.")
    parser.add_argument("--data", default=default, help="collection directory (default: $EVALKIT_DATA/trec8)")
    parser.add_argument("--out", default=None, help="where to write the parameters (JSON); default: print")
    parser.add_argument("--start", default=None, help="params JSON to start the calibration from (default: committed)")
    parser.add_argument("--iterations", type=int, default=12)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    args = parser.parse_args(argv)
    if not args.data:
        parser.error("--data must point at the TREC-8 directory (or set EVALKIT_DATA to the folder holding trec8)")
    started = time.time()
    params = fit_params(load_directory(args.data, name="trec8"), start=args.start, iterations=args.iterations,
                        seeds=tuple(args.seeds))
    text = json.dumps(params, indent=1) + "\n"
    if args.out:
        Path(args.out).write_text(text)
        print(f"wrote {args.out} in {time.time() - started:.0f} s")
    else:
        print(text)


if __name__ == "__main__":
    main()
