"""``trec_eval`` as a drop-in: the console script ``trec_eval`` and ``evalkit eval --format trec_eval``.

Prints exactly what NIST trec_eval prints (10.0 by default, 9.0.8 with ``--trec-eval-version 9.0.8``) for the
qrels-based measures: same lines, same order, same rounding, same exit codes. Several run files may follow the
qrels; each gets the block trec_eval would print for it alone (with its ``runid`` line), so one process can
replace a loop of trec_eval processes. For one run nothing here imports pandas, scipy, matplotlib or pyarrow: the
start-up cost is Python's and numpy's. From four runs on, pyarrow's reader (:mod:`evalkit.trec_eval.reader`) reads
the runs in threads, the first ones while the qrels are read; its import (about 0.1 s) is paid once. pandas is never
imported.

Differences from trec_eval 10.0 (docs/trec_eval.md): a run lacking a qrels topic is scored on the topics it has
(trec_eval 10.0 exits 4 with "result qid ... not found in qrels"; 9.0.8 scores it as the kit does); a document
listed twice in one topic exits 2 naming both lines (trec_eval exits 4 without a line); prefs, qrels_jg and
z-score options are refused by name.
"""

from __future__ import annotations

import gc
import os
import sys

from evalkit.errors import TrecFormatError, one_line, shown
from evalkit.trec_eval.names import (
    UnknownMeasure,
    cutoff_values,
    double_params,
    pair_params,
    select,
)
from evalkit.trec_eval.options import (
    EXIT_INPUT,
    EXIT_MEASURE,
    EXIT_NO_TOPICS,
    EXIT_USAGE,
    UsageError,
    parse,
    print_usage,
)

VERSION_TEXT = {"10.0": "10.0-rc3 (evalkit)", "9.0.8": "9.0.8 (evalkit)"}


def _check_parameters(selection) -> None:
    from evalkit.trec_eval.names import (
        CUT_DOUBLE,
        CUT_LONG,
        P_DOUBLE,
        P_PAIR,
        RELSTRING,
    )

    for m in selection.measures():
        params = selection.params.get(m.name)
        if m.kind in (CUT_LONG, CUT_DOUBLE):
            cutoff_values(m, params)
        elif m.kind in (P_DOUBLE, RELSTRING):
            double_params(m, params)
        elif m.kind == P_PAIR:
            pair_params(m, params)


def evaluate_files(qrels_path, run_paths, measures=("official",), *, version="10.0", ties=None,
                   per_topic=False, summary=True, complete=False, relevance_level=1, max_docs=None,
                   judged_only=False, num_docs_in_coll=0, full_precision=False, reader="auto") -> str:
    """The text trec_eval prints for each run against the qrels, concatenated (raises on bad input).

    ``reader``: ``"bytes"`` (numpy and bytes.split; no pyarrow import), ``"arrow"`` (pyarrow's CSV reader and a
    hash join, regular files only, others fall back to bytes) or ``"auto"`` (arrow from 4 runs on)."""
    from concurrent.futures import Future

    from evalkit.trec_eval.output import OutputOptions, format_run
    from evalkit.trec_eval.rankings import rank, read_qrels, read_run

    ties = ties or ("float64" if version == "10.0" else "float32")
    max_docs, relevance_level, num_docs_in_coll = _checked_counts(max_docs, relevance_level, num_docs_in_coll)
    selection = select(list(measures) or ["official"], version)
    _check_parameters(selection)
    arrow_read = qrels_table = None
    if reader == "arrow" or (reader == "auto" and len(run_paths) >= 4):  # pyarrow's import pays off
        try:
            from evalkit.trec_eval.reader import prepare as arrow_prepare
            from evalkit.trec_eval.reader import qrels_table
            from evalkit.trec_eval.reader import read_run as arrow_read
        except ImportError:
            arrow_read = None
    workers = min(4, os.cpu_count() or 1) if arrow_read is not None else 1
    judged_by: Future = Future()  # (qrels, output options), once the qrels are read

    def read_qrels_file() -> None:
        try:
            qrels = read_qrels(qrels_path)
            if arrow_read is not None:
                arrow_prepare(qrels)
            judged_by.set_result((qrels, OutputOptions(
                per_topic=per_topic, summary=summary, complete=complete, num_docs_in_coll=num_docs_in_coll,
                n_qrels_topics=len(qrels.topics), qrels_positive_total=qrels.positive_total,
                full_precision=full_precision)))
        except BaseException as exc:
            judged_by.set_exception(exc)
            raise

    def block(path) -> str:
        early = None
        known = judged_by.done() and judged_by.exception() is None
        if arrow_read is not None and str(path) != "-" and (not known or qrels_table(judged_by.result()[0]).usable):
            # parsed while the qrels may still be being read (the fields need no qrels); a file that cannot be read
            # raises here what the general reader would (the qrels' error still comes first: see below)
            early = arrow_read(path)
        qrels, options = judged_by.result()
        run = early if early is not None and qrels_table(qrels).usable else None
        run = run or read_run(path)
        judged = rank(run, qrels, ties=ties, max_docs=max_docs, judged_only=judged_only,
                      relevance_level=relevance_level, complete=complete and version == "10.0")
        if len(judged.topics) == 0:
            raise NoTopics(run.name)
        return "\n".join(format_run(judged, selection, run.runid, options)) + "\n"

    collecting = gc.isenabled()
    gc.disable()  # millions of short-lived tokens, no cycles: the cyclic collector would only rescan them
    try:
        if workers > 1:  # pyarrow and numpy release the GIL: runs overlap; the text keeps the runs' order
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(workers) as pool:
                futures = [pool.submit(block, path) for path in run_paths]  # the files parse meanwhile
                try:
                    read_qrels_file()
                    blocks = [future.result() for future in futures]  # the first failing run in order raises
                except BaseException:
                    for future in futures:
                        future.cancel()
                    raise
        else:
            read_qrels_file()
            blocks = [block(path) for path in run_paths]
    finally:
        if collecting:
            gc.enable()
    return "".join(blocks)


def _checked_counts(max_docs, relevance_level, num_docs_in_coll) -> tuple:
    """The command line's rules for -M, -l and -N (:func:`evalkit.trec_eval.options._check_counts`) for callers
    of :func:`evaluate_files`; ValueError names the argument."""
    from types import SimpleNamespace

    from evalkit.trec_eval.options import _check_counts

    for name, value in (("max_docs", max_docs), ("relevance_level", relevance_level),
                        ("num_docs_in_coll", num_docs_in_coll)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(f"{name} must be an integer, got {shown(value)}")
    args = SimpleNamespace(M=max_docs, l=relevance_level, N=num_docs_in_coll)
    try:
        _check_counts(args)
    except UsageError as exc:
        raise ValueError(str(exc)) from None
    return args.M, args.l, args.N


class NoTopics(Exception):
    """trec_eval exits 7: no topic with both results and judgments."""


def main(argv: list[str] | None = None, prog: str = "trec_eval") -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = parse(argv, prog)
    except UsageError as exc:
        print_usage(str(exc))
        return EXIT_USAGE
    if args.help:
        sys.stdout.write(__doc__ + "\n" + (parse.__module__ and sys.modules[parse.__module__].__doc__))
        return 0
    if args.version:
        print(f"trec_eval version {VERSION_TEXT[args.te_version]}", file=sys.stderr)
        return 0
    if sum(1 for f in args.files if f == "-") > 1:
        print_usage("only one input can be '-' (standard input)")
        return EXIT_USAGE
    try:
        text = evaluate_files(args.files[0], args.files[1:], args.measure, version=args.te_version,
                              ties=args.ties, per_topic=args.q, summary=not args.n, complete=args.c,
                              relevance_level=args.l, max_docs=args.M, judged_only=args.J,
                              num_docs_in_coll=args.N)
    except UnknownMeasure as exc:
        print(f"trec_eval: {one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except TrecFormatError as exc:
        print(f"trec_eval: error: {one_line(exc)}", file=sys.stderr)
        return EXIT_INPUT
    except NoTopics as exc:
        print(f"trec_eval: No queries with both results and relevance info ({one_line(exc)})", file=sys.stderr)
        return EXIT_NO_TOPICS
    except ValueError as exc:
        print(f"trec_eval: Can't calculate measure: {one_line(exc)}", file=sys.stderr)
        return EXIT_MEASURE
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        return 0
    return 0


def console_main() -> None:
    """The ``trec_eval`` console script."""
    sys.exit(main())


if __name__ == "__main__":
    console_main()
