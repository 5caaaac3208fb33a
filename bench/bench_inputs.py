"""Input benchmarks (issue 11): the content-keyed, checksummed cache, and reading awkward layouts.

* cached reload of TREC-8: what a second ``load_directory`` pays, with the SHA-256 content key over the 64 MB of
  sources and the CRC-32 check of the cache's own files included; the hash's share is reported beside it.
* runs in trec_eval's ``results.test`` layout (padded fields, doubled and mixed blanks, comment lines): the general
  (vectorized) path against pandas' whitespace tokenizer on the same files.
* qrels: ``read_qrels`` against pandas' whitespace tokenizer.
"""

from __future__ import annotations

import gzip
import os
import tempfile
from pathlib import Path

from common import Result, median_time, paired, trec8_dir


def _messy(text: bytes) -> bytes:
    """A TREC-8 run in trec_eval's results.test layout: tabs, the score padded with spaces, a doubled blank, blank
    and comment lines."""
    lines = text.split(b"\n")
    out = [b"# converted to the results.test layout", b""]
    for line in lines:
        if line:
            f = line.split()
            out.append(b"\t".join([f[0], f[1], f[2], f[3], b"  " + f[4], f[5]]) + b"  ")
    return b"\n".join(out) + b"\n\n"


def run(repeat: int = 5) -> list[Result]:
    from evalkit.data.cache import content_key
    from evalkit.data.datasets import load_directory, read_runs
    from evalkit.data.trec_files import read_qrels

    folder = trec8_dir()
    if folder is None:
        return [Result("input benchmarks", float("nan"), None, "-", "-", None, "TREC-8 data not found: skipped")]
    results = []
    run_files = sorted((folder / "runs").glob("input.*"))
    qrels_file = folder / "qrels.trec8.adhoc.txt"
    sources = run_files + [qrels_file, folder / "runs_table.tsv"]
    with tempfile.TemporaryDirectory() as cache:
        os.environ["EVALKIT_CACHE"] = cache
        load_directory(folder, name="trec8")
        reload = median_time(lambda: load_directory(folder, name="trec8"), repeat)
        digest = median_time(lambda: content_key(sources, folder, {"name": "trec8"}), repeat)
        (where,) = [p for p in Path(cache).iterdir() if p.is_dir()]  # the one entry load_directory wrote
        cached_bytes = sum(p.stat().st_size for p in where.iterdir())
    source_bytes = sum(p.stat().st_size for p in sources)
    results.append(Result("cached reload of TREC-8 (content key + checksums)", reload, None, "-", "< 0.5 s",
                          reload < 0.5, f"SHA-256 content key over {source_bytes / 1e6:.0f} MB of sources: "
                                        f"{digest:.3f} s ({100 * digest / reload:.0f}% of the reload); CRC-32 over "
                                        f"{cached_bytes / 1e6:.0f} MB of cache files inside"))

    import pandas as pd

    with tempfile.TemporaryDirectory() as scratch:  # a scratch copy, deleted at once; never in the repository
        messy = []
        for path in run_files[:32]:
            target = Path(scratch) / path.name.removesuffix(".gz")
            target.write_bytes(_messy(gzip.decompress(path.read_bytes())))
            messy.append(target)

        def peer():
            return [pd.read_csv(p, sep=r"\s+", header=None, comment="#", skip_blank_lines=True,
                                names=["topic", "q0", "docno", "rank", "score", "tag"]) for p in messy]

        rounds = paired(lambda: read_runs(messy), peer, repeat, warmup=True)  # warm: the page cache
    results.append(rounds.result("parse 32 TREC-8 runs in the results.test layout", "pandas.read_csv(sep=r'\\s+')",
                                 ">= 0.5x", 0.5, "reading and parsing the 32 plain files to columns; imports excluded",
                                 "general path (lines trimmed and split by pyarrow's string kernels, every field "
                                 "checked whole) within 2x of pandas' tokenizer, which checks nothing"))

    def peer_qrels():  # the same result: columns sorted by (topic, docno), strings as numpy object arrays
        frame = pd.read_csv(qrels_file, sep=r"\s+", header=None, names=["topic", "iter", "docno", "rel"],
                            dtype={"topic": str, "docno": str}).sort_values(["topic", "docno"])
        return frame["topic"].to_numpy(object), frame["docno"].to_numpy(object), frame["rel"].to_numpy()

    rounds = paired(lambda: read_qrels(qrels_file), peer_qrels, repeat, warmup=True)
    results.append(rounds.result("read the TREC-8 qrels (86,830 lines)", "pandas.read_csv(sep=r'\\s+') + sort",
                                 ">= 1x", 1, "reading and parsing the qrels file to sorted columns; imports excluded",
                                 "whole-field integer checks, duplicate check, sorted by topic and docno"))
    return results
