"""Pool metadata: which runs contributed to the pools, and how deep the pools were judged.

TREC's run and qrels files do not say which runs were pooled or to what depth; every paper notebook needs both.
A reviewer can say so in the dataset folder; what they do not say is derived from the data. The sources, first
match wins:

**Judged runs** (``runs_info['judged']``)

1. ``collection.json`` (or ``collection.toml``) ``"judged_runs": ["run1", "run2", ...]``;
2. ``runs_table.tsv`` column ``judged``: ``true/false``, ``1/0``, ``yes/no`` (any case), one value for every run;
   if 1 and 2 are both given they must agree;
3. ``collection.json`` ``"judged_pool_priority": N``: the runs with ``pool_priority <= N`` in ``runs_table.tsv``
   (TREC's leaderboards rank each group's runs for pooling; ``1`` takes each group's first-priority run). Used only
   when asked: on TREC-8, ``pool_priority <= 2`` marks 74 runs of which 71 are among the 72 the data show judged;
4. derived (the fallback): a run is judged if, for every topic, every document of its top ``d`` is in the qrels,
   with ``d`` = the ``judged_depth`` of the collection file, else 100 (TREC-8's pool depth; 72 of its 129 runs).

**Judged depth** (``metadata['judged_depth']``)

1. ``collection.json`` ``"judged_depth": d``;
2. derived: the deepest rank ``d`` such that every document of the depth-``d`` pool of the judged runs is in the
   qrels and one of them has a document at rank ``d`` (:func:`evalkit.data.pools.judged_depth`; TREC-8: 100); when
   their whole pool is judged, ``d`` is the deepest rank at which a judged run has a document, and the load line
   says so (judged runs of 2 documents give 2, however long the other runs are);
3. none (``None``) when no run is judged: the kit never claims a depth it cannot see.

The collection file (JSON, or TOML read with :mod:`tomllib`; not both) may hold only these keys: ``name`` (shown
as the collection's name, and matched against the collection a paper's figure comes from, see
:mod:`evalkit.claims.grading`), ``judged_depth``, ``judged_runs``, ``judged_pool_priority``, and free text in
``description``. ``gains`` is refused by name: the trec_eval measures (nDCG, infNDCG) take the grades themselves as
gains, as trec_eval does, and notebook 04's RBP counts a grade >= 1 as gain 1, as the paper does; to use other
gains, write them as the grades of the qrels file. Any other key is an error, so a misspelt key is never ignored.

The result is ``Collection.metadata`` (persisted by the dataset cache), e.g.::

    {"n_runs": 143, "n_judged": 56, "judged_runs_source": "runs_table.tsv",
     "judged_runs_rule": "runs_table.tsv column 'judged'", "judged_depth": 7,
     "judged_depth_source": "collection.json", "judged_depth_rule": "collection.json 'judged_depth'",
     "pool_coverage": 1.0, "qrels_outside_pool": 0, "relevant_outside_pool": 0, "pool_priority": "not used: ...",
     "name": "shallow (simulated)"}

``pool_coverage`` and ``qrels_outside_pool`` are the two directions of the agreement between the qrels and the
judged runs' pool: how much of the pool is judged, and how many judgments lie outside it. ``topics_without_runs``
names the qrels topics no run retrieved a document for: the collection keeps every qrels topic, so every run scores
0 on them (as trec_eval ``-c`` does), where ``trec_eval`` and ``evalkit eval`` without ``-c`` leave them out.
When no run is judged, :func:`suggest` proposes the metadata the folder's own evidence supports (``hint``, ``suggestion``), and the
``evalkit collection suggest DIR`` command writes it.

and :func:`describe` turns it into the one line printed at load.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from evalkit.data.collection import Collection
from evalkit.data.folder import CollectionFile, PoolMetadataError
from evalkit.data.pools import (
    JUDGED_DEPTH,
    complete_depths,
    derive_judged_runs,
    judged_depth,
    pool,
)
from evalkit.errors import listed

__all__ = [
    "resolve_pool_metadata",
    "describe",
    "suggest",
    "pool_depth_evidence",
]

def pool_depth_evidence(collection: Collection) -> int | None:
    """The pool depth the data show: the rank at which the number of runs judged completely on every topic drops
    most (None when no run has even its first document judged on every topic)."""
    depths = complete_depths(collection)
    if not len(depths) or depths.max(initial=0) < 1:
        return None
    top = int(depths.max())
    counts = np.array([(depths >= d).sum() for d in range(1, top + 2)])
    return int(np.argmax(counts[:-1] - counts[1:])) + 1


def suggest(collection: Collection) -> dict:
    """The complete pool metadata the folder's own evidence supports, for ``collection.json``.

    ``judged_depth``: :func:`pool_depth_evidence`. The judged runs: when ``runs_table.tsv`` has a ``pool_priority``
    column, the largest priority P whose runs (``pool_priority <= P``) are all judged to that depth on every topic
    and cover at least 90% of the runs the data show judged there is proposed as ``judged_pool_priority`` (TREC's
    leaderboards say which runs contributed: one run per group at priority 1); else nothing is proposed for the
    runs, and the derived rule at that depth applies. Returns ``{"collection.json": {...}, "why": sentence}`` (an
    empty dict when the data show no pool at all)."""
    depth = pool_depth_evidence(collection)
    if depth is None:
        return {}
    in_data = derive_judged_runs(collection, depth)
    proposal: dict = {"judged_depth": depth}
    why = (f"in the data, {int(in_data.sum())} of {collection.n_runs} runs have their top {depth} judged on every "
           f"topic and the count drops most after rank {depth}")
    info = collection.runs_info
    if "pool_priority" in info and info["pool_priority"].notna().any():
        priority = np.nan_to_num(pd.to_numeric(info["pool_priority"], errors="coerce").to_numpy(float), nan=np.inf)
        best = None
        for level in sorted({float(p) for p in priority if np.isfinite(p)}):
            chosen = priority <= level
            if not (chosen <= in_data).all():
                break
            if chosen.sum() >= 0.9 * in_data.sum():
                best = level
        if best is not None:
            chosen = priority <= best
            proposal["judged_pool_priority"] = int(best) if float(best).is_integer() else best
            extra = int((in_data & ~chosen).sum())
            why += (f"; the {int(chosen.sum())} runs of pool_priority <= {proposal['judged_pool_priority']} are all "
                    f"among them" + (f" ({extra} other {'run is' if extra == 1 else 'runs are'} complete by chance "
                                     f"and left out)" if extra else ""))
    return {"collection.json": proposal, "why": why}


def _judged_from_table(table_judged: pd.Series | None, names: np.ndarray, table_path) -> pd.Series | None:
    if table_judged is None:
        return None
    missing = [r for r in names if r not in table_judged.index]
    if missing:
        raise PoolMetadataError(f"{table_path}: column 'judged' has no row for run(s) {listed(missing)}; every run "
                                "needs a value")
    return table_judged.reindex(names)


def resolve_pool_metadata(collection: Collection, given: CollectionFile | None = None,
                          table_judged: pd.Series | None = None, table_path: os.PathLike | str = "runs_table.tsv"
                          ) -> tuple[np.ndarray, dict]:
    """Decide the judged runs and the judged depth of ``collection`` (rules in the module docstring).

    ``given``: the collection file; ``table_judged``: :func:`parse_judged_column` of ``runs_table.tsv`` (or None).
    Returns the (S,) judged mask and the metadata dict for ``Collection.metadata``. Run names the metadata lists
    that the collection does not have are an error naming them.
    """
    given = given or CollectionFile()
    names = np.asarray(collection.run_names, dtype=object)
    known = set(map(str, names))
    meta: dict = {"n_runs": int(collection.n_runs)}
    if given.name:
        meta["name"] = given.name
    if table_judged is not None:
        unknown = [r for r in table_judged.index if r not in known]
        if unknown:
            raise PoolMetadataError(f"{table_path}: column 'judged' names run(s) not in runs/: {listed(unknown)}")
    from_table = _judged_from_table(table_judged, names, table_path)
    from_file = None
    if given.judged_runs is not None:
        unknown = [r for r in given.judged_runs if r not in known]
        if unknown:
            raise PoolMetadataError(f"{given.path}: 'judged_runs' names run(s) not in runs/: {listed(unknown)}")
        from_file = pd.Series(np.isin(names, list(given.judged_runs)), index=names)
    has_priority = "pool_priority" in collection.runs_info and collection.runs_info["pool_priority"].notna().any()

    if from_file is not None:
        judged = from_file.to_numpy(bool)
        meta["judged_runs_source"] = given.file_name
        meta["judged_runs_rule"] = f"{given.file_name} 'judged_runs'"
        if from_table is not None:
            differ = names[from_table.to_numpy(bool) != judged]
            if len(differ):
                raise PoolMetadataError(
                    f"{given.path} ('judged_runs') and {table_path} (column 'judged') disagree on run(s) "
                    f"{listed(differ)}; make them agree or keep one")
            meta["judged_runs_rule"] += f" (and {Path(table_path).name} column 'judged', which agrees)"
    elif from_table is not None:
        judged = from_table.to_numpy(bool)
        meta["judged_runs_source"] = "runs_table.tsv"
        meta["judged_runs_rule"] = "runs_table.tsv column 'judged'"
    elif given.judged_pool_priority is not None:
        if not has_priority:
            raise PoolMetadataError(f"{given.path}: 'judged_pool_priority' needs a pool_priority column in "
                                    "runs_table.tsv, and there is none")
        priority = pd.to_numeric(collection.runs_info["pool_priority"], errors="coerce").to_numpy(float)
        judged = np.nan_to_num(priority, nan=np.inf) <= given.judged_pool_priority
        meta["judged_runs_source"] = "pool_priority"
        meta["judged_runs_rule"] = (f"runs_table.tsv pool_priority <= {given.judged_pool_priority} "
                                    f"({given.file_name} 'judged_pool_priority')")
    else:
        depth = given.judged_depth or JUDGED_DEPTH
        judged = derive_judged_runs(collection, depth)
        meta["judged_runs_source"] = "derived"
        meta["judged_runs_rule"] = (f"derived: every document of the run's top {depth} is in the qrels, on every "
                                    "topic")
    if has_priority:
        source = meta["judged_runs_source"]
        meta["pool_priority"] = (
            "used" if source == "pool_priority" else
            "not used: the judged runs are given explicitly" if source != "derived" else
            "not used (\"judged_pool_priority\": N in collection.json would take runs of priority <= N as "
            "judged)")
    meta["n_judged"] = int(judged.sum())

    if given.judged_depth is not None:
        if given.judged_depth > collection.depth:
            raise PoolMetadataError(
                f"{given.path}: 'judged_depth' {given.judged_depth} is deeper than the runs go (they rank at most "
                f"{collection.depth} documents a topic): no pool of these runs reaches it; give the depth the "
                "judges went to, at most " + str(collection.depth))
        meta["judged_depth"] = int(given.judged_depth)
        meta["judged_depth_source"] = given.file_name
        meta["judged_depth_rule"] = f"{given.file_name} 'judged_depth'"
    elif judged.any():
        depth = judged_depth(collection, runs=judged)
        meta["judged_depth"] = int(depth) if depth > 0 else None
        meta["judged_depth_source"] = "derived"
        # rankings fill their ranks from rank 1: the judged runs end at the depth when none has a document below it
        runs_end = depth and (depth == collection.depth or not (collection.docs[judged, :, depth] >= 0).any())
        meta["judged_depth_rule"] = (
            f"derived: every document the judged runs rank is in the qrels, and they rank at most {depth} documents "
            "a topic" if runs_end else "derived: the deepest rank to which the judged runs' pool is in the qrels")
    else:
        meta["judged_depth"] = None
        meta["judged_depth_source"] = "none"
        meta["judged_depth_rule"] = "no run is judged, so no judged depth can be derived"
    if judged.any() and meta["judged_depth"]:
        meta["pool_coverage"], meta["qrels_outside_pool"], meta["relevant_outside_pool"] = _coverage(
            collection, judged, meta["judged_depth"])
    unretrieved = ~collection.retrieved.any(axis=0)
    if unretrieved.any():
        meta["topics_without_runs"] = [str(t) for t in collection.topics[unretrieved]]
    if not judged.any():
        proposed = suggest(collection)
        if proposed:
            meta["hint"] = proposed["why"]
            meta["suggestion"] = _json(proposed["collection.json"])
        else:
            meta["hint"] = "no run has even its first document judged on every topic"
    return judged, meta


def _json(proposal: dict) -> str:
    import json

    return json.dumps(proposal)


def _coverage(collection: Collection, judged: np.ndarray, depth: int) -> tuple[float, int, int]:
    """Both directions of the agreement between the qrels and the judged runs' depth-``depth`` pool: the share of
    the pool the qrels judge (1.0 when the metadata is right), and the judgments (and relevant ones) of the qrels
    that lie outside the pool (later additions, other sources: 0 when the qrels are exactly that pool)."""
    p = pool(collection, min(int(depth), collection.depth), judged)
    share = float((collection.qrels.lookup(p.topic, p.doc) >= 0).mean()) if len(p) else float("nan")
    q = collection.qrels
    real = q.grade >= 0
    outside = real & ~p.contains(q.topic, q.doc)
    return share, int(outside.sum()), int((outside & (q.grade > 0)).sum())


def describe(metadata: dict, name: str = "") -> str:
    """The line printed at load: how many runs are judged, the judged depth, and which rule decided each; then the
    qrels topics no run retrieved (``metadata['topics_without_runs']``) and how they are scored; then the hidden
    entries of ``runs/`` that were not read (``metadata['hidden_in_runs']``, see
    :func:`evalkit.data.datasets.load_directory`)."""
    return _describe_pools(metadata, name) + _unretrieved_note(metadata) + _hidden_note(metadata)


def _hidden_note(metadata: dict) -> str:
    hidden = metadata.get("hidden_in_runs")
    if not hidden:
        return ""
    what = "entry, not read as a run" if len(hidden) == 1 else "entries, not read as runs"
    return (f" runs/ holds {len(hidden)} hidden {what}: {listed(hidden, quote=True)} (a name starting with '.' is "
            "never a run, as editors' swap files and .DS_Store are; rename it without the '.' to load it).")


def _describe_pools(metadata: dict, name: str = "") -> str:
    label = f"{metadata.get('name') or name}: " if (metadata.get("name") or name) else ""
    n, k = metadata.get("n_runs"), metadata.get("n_judged")
    if k is None:
        return f"{label}the collection does not say which runs were judged"
    rule = metadata.get("judged_runs_rule", "?")
    if k == 0:
        text = (f"{label}no run of {n} is judged (rule: {rule}). Say which runs contributed to the pools: a "
                "'judged' column (yes/no) in runs_table.tsv, or \"judged_runs\" or \"judged_pool_priority\" in "
                "collection.json; and how deep: \"judged_depth\" in collection.json")
        hint = metadata.get("hint")
        text += f"; {hint}" if hint else ""
        if metadata.get("suggestion"):
            text += (f". The data suggest this collection.json: {metadata['suggestion']} (evalkit collection "
                     "suggest DIR shows it and writes it)")
        return text + "."
    depth = metadata.get("judged_depth")
    depth_text = (f"judged depth {depth} ({metadata.get('judged_depth_rule', '?')})" if depth else
                  f"no judged depth ({metadata.get('judged_depth_rule', '?')})")
    text = f"{label}{k} of {n} runs judged ({rule}); {depth_text}"
    coverage = metadata.get("pool_coverage")
    if coverage is not None and np.isfinite(coverage) and coverage < 1:
        text += (f"; only {coverage:.1%} of the judged runs' depth-{depth} pool is in the qrels: check the "
                 "judged runs and the judged depth")
    outside = metadata.get("qrels_outside_pool")
    if outside:
        text += (f"; {outside:,} judgments of the qrels ({metadata.get('relevant_outside_pool', 0):,} relevant) lie "
                 f"outside the judged runs' depth-{depth} pool")
    if str(metadata.get("pool_priority", "")).startswith("not used ("):
        text += "; pool_priority " + metadata["pool_priority"]
    return text + "."


def _unretrieved_note(metadata: dict) -> str:
    """The qrels topics no run retrieved a document for, and how they are scored (module docstring)."""
    topics = metadata.get("topics_without_runs")
    if not topics:
        return ""
    k = len(topics)
    return (f" {k} qrels {'topic' if k == 1 else 'topics'} no run retrieved a document for "
            f"({listed(topics, quote=True)}): kept, every run scores 0 on {'it' if k == 1 else 'them'} (as "
            f"trec_eval -c does), so means over the collection's topics count {'it' if k == 1 else 'them'}; "
            f"trec_eval and evalkit eval without -c leave {'it' if k == 1 else 'them'} out.")
