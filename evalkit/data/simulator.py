"""A simulator of TREC-like test collections with complete judgments: the kit's embedded default data.

``simulate_collection(n_topics=50, n_runs=129, depth=1000, seed=0)`` returns a :class:`~evalkit.data.collection.Collection`
whose statistics were fitted to TREC-8 ad hoc (``evalkit/data/synthetic_trec8_params.json``; :mod:`evalkit.data.simulator_fit`
re-fits them from any collection): relevant-set sizes, the spread of system quality (MAP, P@10), the overlap of
runs' rankings within and between groups, how many groups find each relevant document, groups of correlated runs,
manual runs, runs shorter than the requested depth on some topics, and ties in the scores. Every retrieved document
is judged (grade 0/1, or 0/1/2 with ``graded=True``), so any pooling or sampling method can be checked against the
whole truth.

The generative model
--------------------
Runs come in groups (sizes drawn from TREC-8's group-size distribution); whole groups are manual until the manual
share is reached. Each group ``g`` has a quality deviate ``xi_g`` and a *conformity* ``c_g`` in (0, 1), how much its
view of the documents is the one all systems share::

    logit c_g = logit(shared or manual_shared) + shared_spread * (lam * xi_g + sqrt(1 - lam^2) * nu_g)

(``lam`` = ``shared_quality``: good systems agree with each other). Run ``r`` of group ``g`` separates relevant from
non-relevant documents on topic ``t`` by ::

    delta_rt = max(0, mean + sd_group * xi_g + sd_run * omega_r + manual_bonus * [manual]
                      + sd_topic * tau_t + sd_run_topic * eta_rt)

with ``xi, omega, tau, eta, nu ~ N(0, 1)`` (``xi`` and ``tau`` stratified: one draw in each of n equal-probability
strata, so even 50 topics show the full spread). Per topic ``t``:

* ``R_t ~ Gamma(shape, scale)`` relevant documents (stratified likewise) among ``R_t + n_nonrelevant`` candidates.
* each relevant document has a visibility ``a_d = (1 - w) + w * eta_d^2`` (mean 1; ``w`` = ``visibility_spread``;
  ``w = 1`` is chi-square(1): many nearly invisible relevant documents, a few very easy ones), one for automatic
  systems and an independent one ``a'_d`` for manual systems (people formulate other queries).
* first stage, the group's ranking: ``f_gd = dbar_gt * a_gd + sqrt(c_g) z_d + sqrt(1 - c_g) u_gd`` with the shared
  ``z_d``, the group's own ``u_gd ~ N(0, 1)``, and ``dbar_gt`` the mean ``delta`` of the group's runs; the group keeps
  its top ``K = first_stage * depth`` candidates.
* second stage, each run re-ranks its group's list: ``s_rd = f_gd + (delta_rt - dbar_gt) * a_gd + run_noise * e_rd``
  and returns its ``depth`` best. Short runs (a share of runs, on a share of their topics) return only the top
  ``depth * f``, ``f`` drawn from TREC-8's short lengths.
* ties: each run has a tie rate ``pi_r`` (drawn from TREC-8's distribution of the share of adjacent equal scores);
  each ranked document takes the score of the one above with probability ``pi_r``. Scores are rounded to 6 decimals
  and each ranking is put in trec_eval order (score descending, docno descending).
* judgments: every retrieved document, and every relevant document (some are retrieved by no run: TREC never
  finds them all). TREC-8's qrels are its depth-100 pool of the judged runs; the fit compares like with like by
  computing the synthetic statistics on the synthetic collection's own depth-100 pool
  (:func:`evalkit.data.simulator_fit.collection_statistics`).

Runs carry ``group``, ``type``, ``pool_priority`` (1, 2, ... within the group), ``judged`` (``pool_priority <=
judged_per_group``: TREC-8 pooled the first two runs of each group, about 57% of the runs) and ``quality`` (the
latent mean separation: the truth, for teaching). Documents are named ``SYN-<topic>-<n>``, zero-padded so that string
order is (topic, n) order; ``n`` is a random permutation of the candidates, so docnos say nothing about relevance.

Determinism: every random number comes from ``numpy.random.Generator(PCG64)`` streams spawned from one
``SeedSequence(seed)`` (runs, topics, ties, and one stream per topic for the documents); per-document arithmetic
is IEEE float32 addition and multiplication (no transcendental functions), and orderings are sorts of unique keys,
so the same seed gives identical arrays on any machine with the same numpy. Cost: about
``n_groups * n_topics * (R + n_nonrelevant)`` + ``n_runs * n_topics * K`` normal draws.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd
from scipy import special

from evalkit.data.collection import Collection, JudgedSet

__all__ = ["simulate_collection", "write_collection", "COLLECTION_PRESETS", "load_params", "DEFAULT_PARAMS_PATH",
           "PARAMETER_NAMES", "PARAMETER_DOC"]

DEFAULT_PARAMS_PATH = Path(__file__).resolve().parent / "synthetic_trec8_params.json"

#: The parameter groups and names the simulator reads (every one must be present in a params dict).
PARAMETER_NAMES: dict[str, tuple[str, ...]] = {
    "relevant": ("shape", "scale", "min"),
    "candidates": ("n_nonrelevant",),
    "quality": ("mean", "sd_group", "sd_run", "manual_bonus", "sd_topic", "sd_run_topic"),
    "retrieval": ("shared", "shared_spread", "shared_quality", "manual_shared", "visibility_spread", "run_noise",
                  "first_stage"),
    "groups": ("size_pmf", "judged_per_group"),
    "runs": ("manual_share",),
    "short_runs": ("run_share", "topic_share", "length_levels", "length_quantiles"),
    "ties": ("rate_levels", "rate_quantiles"),
    "graded": ("high_share", "high_boost"),
}

#: What each parameter means (written into the params file as "about").
PARAMETER_DOC: dict[str, str] = {
    "relevant.shape, relevant.scale": "R_t ~ Gamma(shape, scale): relevant documents per topic (all of them, found or not)",
    "relevant.min": "the least number of relevant documents a topic has",
    "candidates.n_nonrelevant": "non-relevant candidate documents per topic (the part of the corpus systems can rank)",
    "quality.mean": "mean separation delta of relevant from non-relevant scores (in noise standard deviations)",
    "quality.sd_group, sd_run": "spread of delta between groups, and of runs around their group",
    "quality.manual_bonus": "added to delta for manual runs",
    "quality.sd_topic, sd_run_topic": "topic difficulty, and the run-by-topic interaction",
    "retrieval.shared, manual_shared": "typical conformity c_g of automatic / manual groups: weight of the shared view",
    "retrieval.shared_spread": "spread of logit c_g across groups (some groups see the collection their own way)",
    "retrieval.shared_quality": "correlation of logit c_g with group quality (good systems agree)",
    "retrieval.visibility_spread": "w in a_d = (1 - w) + w eta^2: how unequal relevant documents are in visibility",
    "retrieval.run_noise": "noise of a run's re-ranking of its group's list (runs of a group differ by this)",
    "retrieval.first_stage": "each group's list holds first_stage * depth candidates (fixed, not fitted)",
    "groups.size_pmf": "P(group has 1, 2, ... runs)",
    "groups.judged_per_group": "runs of each group, by pool priority, that are judged (pooled)",
    "runs.manual_share": "share of runs that are manual (whole groups)",
    "short_runs": "share of runs shorter than depth on some topics, share of their topics, quantiles of length/depth",
    "ties": "quantiles of the per-run share of adjacent equal scores",
    "graded": "graded=True: share of relevant documents that are highly relevant (grade 2), and their extra visibility",
}

_SCORE_DECIMALS = 6
_DESCRIPTIVE = ("source", "about", "fit", "targets")


# ------------------------------------------------------------------------------------------------ parameters


def load_params(params: None | str | os.PathLike | Mapping[str, Any] = None) -> dict:
    """The simulator parameters: the fitted default (None), a JSON file, or a dict.

    A dict may be partial: its groups are merged over the default, key by key, so
    ``{"quality": {"mean": 2.0}}`` changes only the mean quality. Unknown groups or keys are an error.
    """
    if params is not None and not isinstance(params, Mapping):
        with open(params) as handle:
            return _checked(json.load(handle), str(params))
    if not DEFAULT_PARAMS_PATH.exists():
        raise FileNotFoundError(
            f"the simulator's fitted parameters are missing ({DEFAULT_PARAMS_PATH}); re-create them with "
            "`python -m evalkit.data.simulator_fit --data <trec8 directory>` or pass params explicitly"
        )
    with open(DEFAULT_PARAMS_PATH) as handle:
        base = json.load(handle)
    if params is None:
        return _checked(base, str(DEFAULT_PARAMS_PATH))
    merged = copy.deepcopy(base)
    for group, values in params.items():
        if group not in PARAMETER_NAMES:
            if group in _DESCRIPTIVE:  # descriptive keys of a full params file
                merged[group] = copy.deepcopy(values)
                continue
            raise KeyError(f"unknown simulator parameter group {group!r}; known: {sorted(PARAMETER_NAMES)}")
        unknown = set(values) - set(PARAMETER_NAMES[group])
        if unknown:
            raise KeyError(f"unknown parameters in group {group!r}: {sorted(unknown)}")
        merged[group].update(copy.deepcopy(dict(values)))
    return _checked(merged, "params")


def _checked(params: dict, where: str) -> dict:
    for group, names in PARAMETER_NAMES.items():
        missing = [n for n in names if n not in params.get(group, {})]
        if missing:
            raise KeyError(f"{where}: simulator parameters {group}.{missing} are missing")
    ret = params["retrieval"]
    if (not 0 < ret["shared"] < 1 or ret["shared_spread"] < 0 or not -1 <= ret["shared_quality"] <= 1
            or not 0 < ret["manual_shared"] < 1 or not 0 <= ret["visibility_spread"] <= 1 or ret["run_noise"] < 0
            or ret["first_stage"] < 1):
        raise ValueError(
            f"{where}: need 0 < retrieval.shared < 1, retrieval.shared_spread >= 0, -1 <= retrieval.shared_quality"
            " <= 1, 0 < retrieval.manual_shared < 1, 0 <= retrieval.visibility_spread <= 1, retrieval.run_noise >= 0, "
            "retrieval.first_stage >= 1"
        )
    pmf = np.asarray(params["groups"]["size_pmf"], float)
    if (pmf < 0).any() or not np.isclose(pmf.sum(), 1):
        raise ValueError(f"{where}: groups.size_pmf must be non-negative and sum to 1")
    return params


# ------------------------------------------------------------------------------------------------ helpers


def _stratified_uniform(rng: np.random.Generator, n: int) -> np.ndarray:
    """n uniforms, one in each of the n equal strata of [0, 1), in random order (Latin hypercube in 1-D)."""
    return (rng.permutation(n) + rng.random(n)) / n


def _quantile_draw(rng: np.random.Generator, size, levels, quantiles) -> np.ndarray:
    """Draws from the distribution whose quantile function is the piecewise-linear (levels -> quantiles)."""
    return np.interp(rng.random(size), np.asarray(levels, float), np.asarray(quantiles, float))


def _zero_padded(numbers: np.ndarray, width: int) -> np.ndarray:
    """(n, width) uint8 ASCII digits of non-negative integers, zero-padded."""
    out = np.empty((len(numbers), width), np.uint8)
    rest = numbers.astype(np.int64)
    for position in range(width - 1, -1, -1):
        rest, digit = np.divmod(rest, 10)
        out[:, position] = digit + ord("0")
    return out


def _docnos(topic_of_doc: np.ndarray, number: np.ndarray, topic_width: int, number_width: int) -> np.ndarray:
    """``SYN-<topic>-<n>`` for every document, built as bytes without a Python loop."""
    n = len(number)
    parts = [
        np.broadcast_to(np.frombuffer(b"SYN-", np.uint8), (n, 4)),
        _zero_padded(topic_of_doc + 1, topic_width),
        np.full((n, 1), ord("-"), np.uint8),
        _zero_padded(number, number_width),
    ]
    raw = np.ascontiguousarray(np.concatenate(parts, axis=1))
    return raw.view(f"S{raw.shape[1]}").ravel().astype(str).astype(object)


def _top_k(values: np.ndarray, k: int) -> np.ndarray:
    """Column indices of the k largest values of each row, in no particular order.

    ``argpartition`` may pick either of two equal values at the cut, and which one can depend on the CPU's sorting
    kernels; rows with a tie at the cut (rare with float32 noise) are redone with a stable sort, so the choice is
    always the smaller column index.
    """
    n = values.shape[1]
    if k >= n:
        return np.broadcast_to(np.arange(n), values.shape)
    top = np.argpartition(values, n - k, axis=1)[:, n - k:]
    cut = np.take_along_axis(values, top, axis=1).min(axis=1)
    tied = np.flatnonzero((values >= cut[:, None]).sum(axis=1) > k)
    for row in tied:
        top[row] = np.sort(np.argsort(-values[row], kind="stable")[:k])
    return top


def _descending(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Per row, the order that sorts ``values`` descending, equal values by ``index`` ascending (deterministic)."""
    order = np.argsort(-values, axis=1)
    ordered = np.take_along_axis(values, order, axis=1)
    for row in np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1)):
        order[row] = np.lexsort((index[row], -values[row]))
    return order


def _manual_groups(rng: np.random.Generator, sizes: np.ndarray, target: float) -> np.ndarray:
    """Which groups submitted manual runs: groups in random order, taken while that brings the number of manual
    runs closer to ``target`` (TREC's manual runs came mostly from whole groups)."""
    manual = np.zeros(len(sizes), bool)
    count = 0
    for g in rng.permutation(len(sizes)):
        if abs(count + sizes[g] - target) < abs(count - target):
            manual[g] = True
            count += sizes[g]
    return manual


def _group_structure(rng: np.random.Generator, n_runs: int, pmf) -> np.ndarray:
    """Group index of every run: group sizes drawn from ``pmf`` (over sizes 1, 2, ...) until n_runs are covered."""
    sizes = rng.choice(np.arange(1, len(pmf) + 1), size=max(n_runs, 1), p=np.asarray(pmf, float))
    ends = np.cumsum(sizes)
    n_groups = int(np.searchsorted(ends, n_runs) + 1)
    sizes = sizes[:n_groups]
    sizes[-1] -= ends[n_groups - 1] - n_runs
    return np.repeat(np.arange(n_groups), sizes)


# ------------------------------------------------------------------------------------------------ simulator


def simulate_collection(
    n_topics: int = 50,
    n_runs: int = 129,
    depth: int = 1000,
    seed: int | np.random.Generator | np.random.SeedSequence = 0,
    params: None | str | os.PathLike | Mapping[str, Any] = None,
    graded: bool = False,
    name: str = "synthetic",
) -> Collection:
    """A TREC-like collection with complete judgments (see the module docstring for the model).

    ``n_topics`` x ``n_runs`` rankings of ``depth`` documents; ``seed`` (int, SeedSequence or Generator) fixes
    every number; ``params`` = None (fitted to TREC-8), a JSON path, or a (partial) dict of parameter groups;
    ``graded=True`` gives grades 0/1/2 (a share ``graded.high_share`` of the relevant documents is highly relevant
    and ``1 + graded.high_boost`` times as visible). The default size takes about 2-3 seconds on two cores.
    """
    if n_topics < 1 or n_runs < 1 or depth < 1:
        raise ValueError("n_topics, n_runs and depth must be positive")
    p = load_params(params)
    if isinstance(seed, np.random.Generator):
        seed = np.random.SeedSequence(int(seed.integers(2**63)))
    elif not isinstance(seed, np.random.SeedSequence):
        seed = np.random.SeedSequence(int(seed))
    ss_runs, ss_topics, ss_ties, ss_docs = seed.spawn(4)
    rng_runs = np.random.Generator(np.random.PCG64(ss_runs))
    rng_topics = np.random.Generator(np.random.PCG64(ss_topics))
    rng_ties = np.random.Generator(np.random.PCG64(ss_ties))
    topic_seeds = ss_docs.spawn(n_topics)

    # ---- runs: groups, types, quality, ties, shortness
    group = _group_structure(rng_runs, n_runs, p["groups"]["size_pmf"])
    n_groups = int(group[-1]) + 1
    starts = np.searchsorted(group, np.arange(n_groups))
    priority = np.arange(n_runs) - starts[group] + 1
    manual_group = _manual_groups(rng_runs, np.bincount(group), p["runs"]["manual_share"] * n_runs)
    manual = manual_group[group]
    q = p["quality"]
    xi = special.ndtri(_stratified_uniform(rng_runs, n_groups))  # group quality deviates
    group_quality = q["mean"] + q["sd_group"] * xi
    quality = group_quality[group] + q["sd_run"] * rng_runs.standard_normal(n_runs) + q["manual_bonus"] * manual
    ret = p["retrieval"]
    lam = ret["shared_quality"]
    conformity_deviate = lam * xi + np.sqrt(1 - lam**2) * rng_runs.standard_normal(n_groups)
    typical = np.where(manual_group, special.logit(ret["manual_shared"]), special.logit(ret["shared"]))
    conformity = special.expit(typical + ret["shared_spread"] * conformity_deviate)
    tie_rate = _quantile_draw(rng_runs, n_runs, p["ties"]["rate_levels"], p["ties"]["rate_quantiles"])
    sr = p["short_runs"]
    short_run = rng_runs.random(n_runs) < sr["run_share"]

    # ---- topics: relevant-set sizes, difficulty, run-topic separations, short lengths
    rel = p["relevant"]
    u = np.clip(_stratified_uniform(rng_topics, n_topics), 1e-12, 1 - 1e-12)
    n_relevant = np.maximum(np.rint(special.gammaincinv(rel["shape"], u) * rel["scale"]), rel["min"]).astype(np.int64)
    topic_effect = q["sd_topic"] * special.ndtri(_stratified_uniform(rng_topics, n_topics))
    delta = quality[:, None] + topic_effect[None, :] + q["sd_run_topic"] * rng_topics.standard_normal((n_runs, n_topics))
    delta = np.maximum(delta, 0.0)
    short = short_run[:, None] & (rng_topics.random((n_runs, n_topics)) < sr["topic_share"])
    short_len = np.rint(depth * _quantile_draw(rng_topics, (n_runs, n_topics), sr["length_levels"], sr["length_quantiles"]))
    lengths = np.where(short, np.clip(short_len, 1, depth), depth).astype(np.int64)

    # ---- documents and scores, topic by topic: group first stage, then each run re-ranks its group's list
    first_stage = max(depth, int(round(ret["first_stage"] * depth)))
    n_nonrelevant = max(int(p["candidates"]["n_nonrelevant"]), 2 * first_stage)
    n_cand = n_relevant + n_nonrelevant
    n_high = np.rint(n_relevant * p["graded"]["high_share"]).astype(np.int64) if graded else np.zeros(n_topics, np.int64)
    w_shared = np.sqrt(conformity).astype(np.float32)[:, None]
    w_group = np.sqrt(1 - conformity).astype(np.float32)[:, None]
    w_run = np.float32(ret["run_noise"])
    w_vis = np.float32(ret["visibility_spread"])
    boost = np.float32(1 + p["graded"]["high_boost"])
    group_delta = np.zeros((n_groups, n_topics))  # the mean separation of the group's runs on each topic
    np.add.at(group_delta, group, delta)
    group_delta /= np.bincount(group, minlength=n_groups)[:, None]
    run_delta = (delta - group_delta[group]).astype(np.float32)
    group_delta = group_delta.astype(np.float32)

    cand = np.empty((n_runs, n_topics, depth), np.int64)  # document number n within the topic
    raw = np.empty((n_runs, n_topics, depth), np.float64)
    relevant_numbers = []  # per topic: the numbers of the relevant documents (highly relevant first)
    for t in range(n_topics):
        rng = np.random.Generator(np.random.PCG64(topic_seeds[t]))
        n, r = int(n_cand[t]), int(n_relevant[t])
        # how visible each relevant document is to automatic systems (a_d) and to manual ones (a'_d, independent):
        # (1 - w) + w * eta^2, mean 1; w = 1 is chi-square(1): many nearly invisible relevant documents, a few easy
        eta = rng.standard_normal((2, r), dtype=np.float32)
        visibility = (1 - w_vis) + w_vis * eta * eta
        visibility[:, : n_high[t]] *= boost
        gain = visibility[manual_group.astype(np.intp)]  # (G, r)
        # first stage: f_gd = group_delta_gt * gain_gd + sqrt(c_g) z_d + sqrt(1 - c_g) u_gd; keep each group's top K
        f = rng.standard_normal((n_groups, n), dtype=np.float32)
        f *= w_group
        f += w_shared * rng.standard_normal(n, dtype=np.float32)[None, :]
        f[:, :r] += group_delta[:, t, None] * gain
        listed = _top_k(f, first_stage)
        listed_f = np.take_along_axis(f, listed, axis=1)
        listed_gain = np.zeros(listed.shape, np.float32)
        is_rel = listed < r
        listed_gain[is_rel] = gain[np.nonzero(is_rel)[0], listed[is_rel]]
        # second stage: s_rd = f_gd + (delta_rt - group_delta_gt) * gain_gd + sigma_w e_rd on the group's list
        s = rng.standard_normal((n_runs, listed.shape[1]), dtype=np.float32)
        s *= w_run
        s += listed_f[group]
        s += run_delta[:, t, None] * listed_gain[group]
        top = _top_k(s, depth)
        vals = np.take_along_axis(s, top, axis=1)
        order = _descending(vals, top)
        top = np.take_along_axis(top, order, axis=1)
        number = rng.permutation(n)  # candidate index -> document number
        cand[:, t] = number[np.take_along_axis(listed[group], top, axis=1)]
        raw[:, t] = np.take_along_axis(vals, order, axis=1)
        relevant_numbers.append(number[:r])

    # ---- scores: rounded, then ties (a document takes the score of the one above it with probability pi_r).
    # Worked on (rank, run x topic) arrays so that the running maximum runs over contiguous rows.
    rows = n_runs * n_topics
    raw_t = np.ascontiguousarray(np.round(raw, _SCORE_DECIMALS).reshape(rows, depth).T)
    del raw
    rank_col = np.arange(depth, dtype=np.int32)[:, None]
    tie = np.zeros((depth, rows), bool)
    tie[1:] = rng_ties.random((depth - 1, rows), dtype=np.float32) < np.repeat(tie_rate, n_topics).astype(np.float32)[None, :]
    block = np.maximum.accumulate(np.where(tie, 0, rank_col), axis=0)
    scores_t = np.take_along_axis(raw_t, block, axis=0)
    del raw_t

    # ---- trec_eval order: score descending, docno descending (docno order is number order within a topic).
    # Scores are already non-increasing along the rank, so only blocks of equal scores are re-ordered: one stable
    # sort of the unique integer key (row, block start, -number), nearly sorted already. Then cut the short runs.
    tie[1:] = scores_t[1:] == scores_t[:-1]
    block = np.maximum.accumulate(np.where(tie, 0, rank_col), axis=0)
    span = int(n_cand.max())
    if rows * depth * span >= 2**62:
        raise ValueError("collection too large for the int64 ordering key; lower n_runs, n_topics or depth")
    key = (np.arange(rows, dtype=np.int64)[:, None] * depth + block.T) * span + (span - 1 - cand.reshape(rows, depth))
    cand = cand.reshape(-1)[np.argsort(key.ravel(), kind="stable")].reshape(n_runs, n_topics, depth)
    del key, block, tie
    scores = np.ascontiguousarray(scores_t.T).reshape(n_runs, n_topics, depth)
    del scores_t
    rank = np.arange(depth)
    present = rank[None, None, :] < lengths[:, :, None]
    scores[~present] = np.nan

    # ---- vocabulary: per topic the documents some run retrieved plus every relevant one, in docno order
    doc_id = np.full((n_runs, n_topics, depth), -1, np.int64)
    grade_parts, topic_parts, number_parts = [], [], []
    offset = 0
    for t in range(n_topics):
        retrieved = cand[:, t][present[:, t]]
        used = np.zeros(int(n_cand[t]), bool)  # indexed by document number
        used[retrieved] = True
        used[relevant_numbers[t]] = True
        local = np.cumsum(used) - 1
        numbers = np.flatnonzero(used)
        grade = np.zeros(len(numbers), np.int16)
        grade[local[relevant_numbers[t]]] = 1
        grade[local[relevant_numbers[t][: n_high[t]]]] = 2
        doc_id[:, t][present[:, t]] = offset + local[retrieved]
        grade_parts.append(grade)
        topic_parts.append(np.full(len(numbers), t, np.int64))
        number_parts.append(numbers)
        offset += len(numbers)
    topic_of_doc = np.concatenate(topic_parts)
    number_width = max(5, len(str(int(n_cand.max()) - 1)))
    vocabulary = _docnos(topic_of_doc, np.concatenate(number_parts), len(str(n_topics)), number_width)

    qrels = JudgedSet.from_arrays(topic_of_doc, np.arange(len(vocabulary)), np.concatenate(grade_parts), n_topics, len(vocabulary))
    width = len(str(n_groups))
    group_names = np.asarray([f"g{i + 1:0{width}d}" for i in range(n_groups)], dtype=object)
    run_names = np.asarray([f"{group_names[g]}r{k}" for g, k in zip(group, priority)], dtype=object)
    runs_info = pd.DataFrame(
        {
            "group": group_names[group],
            "type": np.where(manual, "manual", "automatic"),
            "judged": priority <= int(p["groups"]["judged_per_group"]),
            "pool_priority": priority,
            "quality": quality,
        },
        index=pd.Index(run_names, name="run"),
    )
    judged_per_group = int(p["groups"]["judged_per_group"])
    metadata = {
        "n_runs": int(n_runs),
        "n_judged": int(runs_info["judged"].sum()),
        "judged_runs_source": "simulator",
        "judged_runs_rule": f"simulator: the first {judged_per_group} run(s) of each group by pool_priority",
        "judged_depth": int(depth),
        "judged_depth_source": "simulator",
        "judged_depth_rule": "simulator: every retrieved document is judged",
    }
    return Collection(
        name=name,
        topics=np.asarray([str(t + 1) for t in range(n_topics)], dtype=object),
        run_names=run_names,
        vocabulary=vocabulary,
        docs=doc_id.astype(np.int32),
        scores=scores,
        qrels=qrels,
        runs_info=runs_info,
        metadata=metadata,
    )


# ------------------------------------------------------------------------------------------------ test collections

#: Collections shaped unlike TREC-8, written as TREC files by :func:`write_collection`.
#:
#: ``shallow``: 143 runs in about 56 groups, 30 topics with numeric ids (301-330), grades 0/1/2, qrels = the
#: depth-7 pool of one run per group (``pool_priority`` 1), runs 100 deep; ``runs_table.tsv`` says which runs
#: contributed (column ``judged``) and ``collection.json`` gives the judged depth (7).
#: ``unmarked``: the same files without the ``judged`` column and without ``collection.json`` (what a reviewer
#: has before saying anything about the pools: the derived rule finds no judged run).
#: ``tiny``: 3 runs (one group each, all contributing), 5 topics with string ids, grades 0/1/2, qrels = the
#: depth-20 pool, runs 50 deep; ``runs_table.tsv`` with ``judged``, ``collection.json`` with the judged depth.
COLLECTION_PRESETS: dict[str, dict] = {
    "shallow": {"n_topics": 30, "n_runs": 143, "depth": 100, "judged_depth": 7, "judged_per_group": 1,
                "size_pmf": [0.3, 0.25, 0.2, 0.15, 0.1], "topic_ids": [str(301 + t) for t in range(30)],
                "judged_column": True, "collection_file": True},
    "unmarked": {"n_topics": 30, "n_runs": 143, "depth": 100, "judged_depth": 7, "judged_per_group": 1,
                 "size_pmf": [0.3, 0.25, 0.2, 0.15, 0.1], "topic_ids": [str(301 + t) for t in range(30)],
                 "judged_column": False, "collection_file": False},
    "tiny": {"n_topics": 5, "n_runs": 3, "depth": 50, "judged_depth": 20, "judged_per_group": 1, "size_pmf": [1.0],
             "topic_ids": ["alpha", "bravo", "charlie", "delta", "echo"],
             "judged_column": True, "collection_file": True},
}


def write_collection(path: str | os.PathLike, preset: str = "shallow", *, seed: int = 0, **overrides) -> Path:
    """Simulate a collection shaped unlike TREC-8 and write it as a dataset folder of TREC files.

    ``preset``: a key of :data:`COLLECTION_PRESETS` (``shallow``, ``unmarked``, ``tiny``); ``overrides`` change any
    of its entries (e.g. ``n_runs=20, depth=50``). The folder gets ``runs/input.<run>`` (TREC run files),
    ``qrels.txt`` (the depth-``judged_depth`` pool of the contributing runs, with the simulator's grades 0/1/2),
    ``runs_table.tsv`` (``run group track type pool_priority`` and, if ``judged_column``, ``judged``) and, if
    ``collection_file``, ``collection.json`` (``name``, ``judged_depth``). The same seed writes the same bytes.
    Load it with ``evalkit.load_dataset(path)``. Returns ``path``.
    """
    if preset not in COLLECTION_PRESETS:
        raise KeyError(f"unknown preset {preset!r}; presets: {', '.join(COLLECTION_PRESETS)}")
    spec = {**COLLECTION_PRESETS[preset], **overrides}
    unknown = set(spec) - set(COLLECTION_PRESETS["shallow"])
    if unknown:
        raise KeyError(f"unknown write_collection options {sorted(unknown)}; known: {sorted(COLLECTION_PRESETS['shallow'])}")
    from evalkit.data.pools import pool

    params = {"groups": {"size_pmf": list(spec["size_pmf"]), "judged_per_group": int(spec["judged_per_group"])}}
    collection = simulate_collection(n_topics=spec["n_topics"], n_runs=spec["n_runs"], depth=spec["depth"],
                                     seed=seed, params=params, graded=True, name=preset)
    topic_ids = np.asarray(spec["topic_ids"], dtype=object)
    if len(topic_ids) != collection.n_topics or len(set(topic_ids)) != len(topic_ids):
        raise ValueError(f"topic_ids must be {collection.n_topics} distinct ids")
    folder = Path(path)
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    info = collection.runs_info
    rank = np.arange(1, collection.depth + 1)
    for s, run in enumerate(collection.run_names):
        docs = collection.docs[s]
        present = docs >= 0
        topic_of = np.broadcast_to(topic_ids[:, None], docs.shape)[present]
        frame = pd.DataFrame({"topic": topic_of, "q0": "Q0", "docno": collection.vocabulary[docs[present]],
                              "rank": np.broadcast_to(rank, docs.shape)[present],
                              "score": collection.scores[s][present], "tag": run})
        frame.to_csv(folder / "runs" / f"input.{run}", sep=" ", header=False, index=False, float_format="%.6f")
    judged = pool(collection, int(spec["judged_depth"]), collection.judged_runs).judged_set(collection.qrels)
    qrels = pd.DataFrame({"topic": topic_ids[judged.topic], "iteration": 0,
                          "docno": collection.vocabulary[judged.doc], "grade": judged.grade})
    qrels.to_csv(folder / "qrels.txt", sep=" ", header=False, index=False)
    table = pd.DataFrame({"run": collection.run_names, "group": info["group"].to_numpy(), "track": "adhoc",
                          "type": info["type"].to_numpy(), "pool_priority": info["pool_priority"].to_numpy()})
    if spec["judged_column"]:
        table["judged"] = np.where(info["judged"].to_numpy(bool), "yes", "no")
    table.to_csv(folder / "runs_table.tsv", sep="\t", index=False)
    description = (f"evalkit simulator, preset {preset!r}, seed {seed}: {collection.n_runs} runs, "
                   f"{collection.n_topics} topics, pools judged to depth {spec['judged_depth']}")
    if spec["collection_file"]:
        (folder / "collection.json").write_text(json.dumps(
            {"name": f"{preset} (simulated)", "judged_depth": int(spec["judged_depth"]), "description": description},
            indent=1) + "\n")
    else:
        (folder / "collection.json").unlink(missing_ok=True)
    return folder
