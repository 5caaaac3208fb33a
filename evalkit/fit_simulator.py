"""Fit the simulator's parameters to a real collection (TREC-8 for the committed default), and compare.

``collection_statistics(c)`` summarizes any :class:`~evalkit.collection.Collection` (real or simulated) by the
numbers the simulator is fitted to; ``fit_params(c)`` returns a parameter dict for
:func:`evalkit.simulate.simulate_collection`; ``compare(targets, c)`` puts the two side by side.

Two kinds of parameters:

* read off the data directly: the Gamma distribution of the number of relevant documents per topic (moments),
  the group-size distribution, the share of manual runs, how many runs a group had pooled, the share of short
  runs and of their short topics and the quantiles of the short lengths, the quantiles of the per-run tie rate.
* calibrated by simulation (method of simulated moments): the quality and correlation parameters and the number
  of non-relevant candidates, which have no closed form. A damped Newton iteration with a finite-difference
  Jacobian, on common random numbers (the same seeds at every step), matches ten statistics: mean and spread of
  MAP across runs, the within-group spread of MAP, the manual-minus-automatic MAP gap, the spread of mean AP
  across topics, the spread of AP across topics within a run, the overlap of top-100 rankings within and between
  groups, and the number of distinct documents retrieved per topic at depths 100 and 1000.

Re-fit from the command line (a few minutes; the data stay where they are, only statistics are written)::

    python -m evalkit.fit_simulator --data /path/to/trec8 --out data/synthetic_trec8_params.json

Judged runs are those whose top 100 (or whole ranking, if shorter) is fully judged on every topic (72 of TREC-8's
129 runs); the statistics use every run.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import sparse

from .collection import Collection

__all__ = [
    "collection_statistics",
    "average_precision",
    "overlap_at",
    "judged_runs_by_coverage",
    "direct_params",
    "calibrate",
    "fit_params",
    "compare",
    "load_trec8",
    "CALIBRATED",
]

#: (parameter group, name, statistic it mainly moves, lower bound, upper bound) for the simulated-moments fit.
CALIBRATED = (
    ("quality", "mean", "map_mean", 0.0, 8.0),
    ("quality", "sd_group", "map_sd_between_groups", 0.0, 4.0),
    ("quality", "sd_run", "map_sd_within_group", 0.0, 2.0),
    ("quality", "manual_bonus", "map_manual_gap", -2.0, 4.0),
    ("quality", "sd_topic", "topic_map_sd", 0.0, 4.0),
    ("quality", "sd_run_topic", "run_ap_sd", 0.0, 4.0),
    ("retrieval", "shared", "overlap100_between_groups", 0.01, 0.99),
    ("retrieval", "shared_spread", "overlap1000_between_run_sd", 0.0, 5.0),
    ("retrieval", "run_noise", "overlap100_within_group", 0.0, 5.0),
    ("retrieval", "first_stage", "overlap1000_within_group", 1.0, 10.0),
    ("candidates", "n_nonrelevant", "union1000_per_topic", 2000.0, 200000.0),
)

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


def judged_runs_by_coverage(collection: Collection, depth: int = 100) -> np.ndarray:
    """(S,) runs whose top ``depth`` is fully judged on every topic (TREC-8: 72 runs)."""
    grades = collection.grades(depth=depth)
    return ((grades >= 0) | (grades == -3)).all(axis=(1, 2))


def _relevant(collection: Collection) -> np.ndarray:
    """(S, T, D) bool grade >= 1: ``collection.grades() >= 1`` through a dense (topic, doc) table when it is small."""
    qrels = collection.qrels
    if qrels.n_topics * qrels.n_docs > 2e8:
        return collection.grades() >= 1
    table = np.zeros((qrels.n_topics, qrels.n_docs + 1), bool)  # last column: padding (doc -1)
    positive = qrels.grade >= 1
    table[qrels.topic[positive], qrels.doc[positive]] = True
    return table[np.arange(collection.n_topics)[None, :, None], collection.docs]


def _union_size(collection: Collection, k: int, runs: np.ndarray | None = None) -> float:
    docs = collection.docs[:, :, :k] if runs is None else collection.docs[runs, :, :k]
    sizes = []
    for t in range(collection.n_topics):
        d = docs[:, t]
        sizes.append(len(np.unique(d[d >= 0])))
    return float(np.mean(sizes))


def collection_statistics(collection: Collection, judged: np.ndarray | None = None) -> dict:
    """The summary statistics the simulator is fitted to and checked against (a flat dict of floats).

    ``judged``: (S,) bool pooled runs; default ``runs_info['judged']`` if present, else the coverage rule.
    """
    info = collection.runs_info
    if judged is None:
        judged = info["judged"].to_numpy(bool) if "judged" in info else judged_runs_by_coverage(collection)
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
        "relevant_found_share": _found_share(collection),
        "overlap100_within_group": float(ov[same & off].mean()) if (same & off).any() else float("nan"),
        "overlap100_between_groups": float(ov[~same].mean()) if (~same).any() else float("nan"),
        "overlap1000_within_group": float(ov1000[same & off].mean()) if (same & off).any() else float("nan"),
        "overlap1000_between_groups": float(ov1000[~same].mean()) if (~same).any() else float("nan"),
        "overlap1000_between_run_sd": float(np.nanstd(np.nanmean(np.where(same, np.nan, ov1000), axis=1))),
        "overlap_map_correlation": float(np.corrcoef(np.nanmean(np.where(same, np.nan, ov1000), axis=1), run_map)[0, 1]),
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


def _found_share(collection: Collection) -> float:
    """Share of the relevant documents that some run retrieved (at its full depth)."""
    qrels = collection.qrels
    relevant = qrels.grade >= 1
    hit = np.zeros(len(collection.vocabulary), bool)
    hit[collection.docs[collection.docs >= 0]] = True
    return float(hit[qrels.doc[relevant]].mean()) if relevant.any() else float("nan")


# ------------------------------------------------------------------------------------------------ fitting


def direct_params(collection: Collection, judged: np.ndarray | None = None) -> dict:
    """The parameters read off the data without simulation (see the module docstring)."""
    info = collection.runs_info
    if judged is None:
        judged = judged_runs_by_coverage(collection)
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


def _get(params: dict, group: str, name: str) -> float:
    return float(params[group][name])


def _with(params: dict, values: np.ndarray) -> dict:
    out = json.loads(json.dumps(params))
    for (group, name, _, lo, hi), v in zip(CALIBRATED, values):
        v = float(np.clip(v, lo, hi))
        out[group][name] = int(round(v)) if name == "n_nonrelevant" else v
    if out["correlation"]["within_group"] < out["correlation"]["between_groups"]:
        out["correlation"]["within_group"] = out["correlation"]["between_groups"]
    return out


def calibrate(
    params: dict,
    targets: dict,
    n_topics: int = 50,
    n_runs: int = 129,
    depth: int = 1000,
    seeds=(0, 1),
    iterations: int = 6,
    verbose: bool = True,
) -> tuple[dict, pd.DataFrame]:
    """Method of simulated moments for the :data:`CALIBRATED` parameters (damped Newton, finite differences,
    the same ``seeds`` at every evaluation). Returns the parameters and a log of every iteration."""
    from .simulate import simulate_collection

    stat_names = [c[2] for c in CALIBRATED]
    target = np.array([targets[s] for s in stat_names])
    scale = np.maximum(np.abs(target), 1e-3)
    lo = np.array([c[3] for c in CALIBRATED])
    hi = np.array([c[4] for c in CALIBRATED])

    def measure(x):
        p = _with(params, x)
        values = []
        for seed in seeds:
            c = simulate_collection(n_topics, n_runs, depth, seed=seed, params=p)
            s = collection_statistics(c)
            values.append([s[n] for n in stat_names])
        return np.mean(values, axis=0)

    x = np.array([_get(params, g, n) for g, n, *_ in CALIBRATED])
    log = []
    f = measure(x)
    for it in range(iterations):
        r = (f - target) / scale
        log.append({"iteration": it, "loss": float(np.sum(r**2)), **dict(zip(stat_names, f))})
        if verbose:
            print(f"iteration {it}: loss {np.sum(r ** 2):.5f}", flush=True)
        steps = np.maximum(np.abs(x) * 0.05, (hi - lo) * 0.01)
        J = np.empty((len(x), len(x)))
        for i in range(len(x)):
            xi = x.copy()
            xi[i] = np.clip(x[i] + steps[i], lo[i], hi[i])
            if xi[i] == x[i]:
                xi[i] = x[i] - steps[i]
            J[:, i] = ((measure(xi) - f) / scale) / (xi[i] - x[i])
        dx = np.linalg.lstsq(J, -r, rcond=1e-6)[0]
        best = None
        for damping in (1.0, 0.5, 0.25):
            xn = np.clip(x + damping * dx, lo, hi)
            fn = measure(xn)
            loss = np.sum(((fn - target) / scale) ** 2)
            if best is None or loss < best[0]:
                best = (loss, xn, fn)
            if loss < np.sum(r**2):
                break
        if best[0] >= np.sum(r**2):
            break
        x, f = best[1], best[2]
    r = (f - target) / scale
    log.append({"iteration": len(log), "loss": float(np.sum(r**2)), **dict(zip(stat_names, f))})
    return _with(params, x), pd.DataFrame(log)


def fit_params(
    collection: Collection,
    start: dict | None = None,
    iterations: int = 6,
    seeds=(0, 1),
    verbose: bool = True,
) -> dict:
    """Fit every simulator parameter to ``collection`` (direct ones, then the calibrated ones by simulation).

    ``start``: initial values of the calibrated parameters (default: the committed parameters). The result holds
    the targets (the collection's statistics) and the fit log, ready to save as JSON.
    """
    from .simulate import load_params

    judged = judged_runs_by_coverage(collection)
    targets = collection_statistics(collection, judged)
    params = load_params(start) if start is not None else load_params()
    params.update(direct_params(collection, judged))
    params, log = calibrate(params, targets, collection.n_topics, collection.n_runs, collection.depth,
                            seeds=seeds, iterations=iterations, verbose=verbose)
    params["source"] = (
        f"fitted to {collection.name} ({collection.n_runs} runs, {collection.n_topics} topics, depth "
        f"{collection.depth}) by evalkit.fit_simulator.fit_params; summary statistics only"
    )
    params["targets"] = targets
    params["fit"] = {"seeds": list(seeds), "final_loss": float(log["loss"].iloc[-1]), "iterations": int(len(log) - 1)}
    return params


def compare(targets: dict, collection: Collection, keys=None) -> pd.DataFrame:
    """Side by side: the target statistics (e.g. TREC-8's) and ``collection``'s."""
    stats = collection_statistics(collection)
    keys = keys or [k for k in targets if k in stats]
    return pd.DataFrame(
        {"target": [targets[k] for k in keys], collection.name: [stats[k] for k in keys]}, index=pd.Index(keys, name="statistic")
    )


def load_trec8(data: str | os.PathLike) -> Collection:
    """TREC-8 ad hoc from its directory (runs/input.*.gz, qrels.trec8.adhoc.txt, runs_table.tsv)."""
    from .io import read_qrels, read_run

    data = Path(data)
    runs = [read_run(f) for f in sorted((data / "runs").glob("input.*.gz"))]
    table = data / "runs_table.tsv"
    info = pd.read_csv(table, sep="\t").set_index("run") if table.exists() else None
    c = Collection.from_runs(runs, read_qrels(data / "qrels.trec8.adhoc.txt"), "trec8", runs_info=info)
    info = c.runs_info.copy()
    info["judged"] = judged_runs_by_coverage(c)
    from dataclasses import replace

    return replace(c, runs_info=info)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=os.environ.get("EVALKIT_DATA", ""), help="TREC-8 directory")
    parser.add_argument("--out", default=None, help="where to write the parameters (JSON); default: print")
    parser.add_argument("--iterations", type=int, default=6)
    args = parser.parse_args(argv)
    if not args.data:
        parser.error("--data (or EVALKIT_DATA) must point at the TREC-8 directory")
    started = time.time()
    params = fit_params(load_trec8(args.data), iterations=args.iterations)
    text = json.dumps(params, indent=2) + "\n"
    if args.out:
        Path(args.out).write_text(text)
        print(f"wrote {args.out} in {time.time() - started:.0f} s")
    else:
        print(text)


if __name__ == "__main__":
    main()
