"""``trec_eval`` as a drop-in: the console script ``trec_eval`` and ``evalkit eval --format trec_eval``.

Prints exactly what NIST trec_eval prints (10.0 by default, 9.0.8 with ``--trec-eval-version 9.0.8``) for the
qrels-based measures: same lines, same order, same rounding, same exit codes. Several run files may follow the
qrels; each gets the block trec_eval would print for it alone (with its ``runid`` line), so one process can
replace a loop of trec_eval processes. Nothing here imports pandas, scipy, matplotlib or pyarrow: the start-up
cost is Python's and numpy's. Files are read by :mod:`evalkit.trec_eval.reader` (numpy over the bytes); several
runs are shared between the usable CPUs (:mod:`evalkit.trec_eval.workers`: forked worker processes on Linux,
threads elsewhere).

Differences from trec_eval 10.0 (docs/trec_eval.md): a run lacking a qrels topic is scored on the topics it has
(trec_eval 10.0 exits 4 with "result qid ... not found in qrels"; 9.0.8 scores it as the kit does); a document
listed twice in one topic exits 2 naming both lines (trec_eval exits 4 without a line); a NaN score exits 2 naming
its line (trec_eval ranks it as its C library's sort happens to); prefs, qrels_jg and
z-score options are refused by name.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from functools import partial

from evalkit.errors import TrecFormatError, one_line, shown
from evalkit.trec_eval import workers
from evalkit.trec_eval.names import (
    BadParameters,
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
    HELP,
    IllegalFormat,
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

    ``reader``: ``"spans"`` (:mod:`evalkit.trec_eval.reader`: a regular file's fields found as byte spans by
    numpy; other files fall back to the general reader), ``"general"`` (:mod:`evalkit.trec_eval.rankings`' reader,
    which splits every line) or ``"auto"`` (spans). With several runs and more than one usable CPU, the runs are
    shared between the CPUs (:func:`evalkit.trec_eval.workers.how_to_share`: forked processes once the qrels are
    read, or threads, the first runs while the qrels are read); one run is read in this thread alone."""
    from evalkit.trec_eval import rankings
    from evalkit.trec_eval.output import OutputOptions, format_run

    if reader not in ("auto", "spans", "general"):
        raise ValueError(f"reader must be 'auto', 'spans' or 'general', not {reader!r}")
    spans = None
    if reader != "general":
        from evalkit.trec_eval import reader as spans
    spread = 8 if len(run_paths) > 1 else 2  # the qrels table: shorter probes for many runs, less memory for one
    ties = ties or ("float64" if version == "10.0" else "float32")
    max_docs, relevance_level, num_docs_in_coll = _checked_counts(max_docs, relevance_level, num_docs_in_coll)
    selection = select(list(measures) or ["official"], version)
    _check_parameters(selection)

    def read(path, span_reader, general_reader, *args):
        """The span reader's reading, else the general one's. The span reader drops the bytes from ``source`` as
        soon as it has its columns (the memory is free before the tables are built); should it then decline, a
        file is read again (standard input, read once, keeps its bytes)."""
        source = list(rankings.read_input(path))  # [name, bytes]; a file that cannot be read raises here
        done = span_reader(path, *args, source=source if str(path) != "-" else list(source)) if spans else None
        return done, lambda: general_reader(path, (source[0], source[1] or rankings.read_input(path)[1]))

    def read_qrels():
        span_reader = spans and (lambda path, source: spans.read_qrels(path, source=source, spread=spread))
        qrels, general = read(qrels_path, span_reader, partial(rankings.read_qrels, version=version))
        qrels = qrels or general()
        return qrels, OutputOptions(
            per_topic=per_topic, summary=summary, complete=complete, num_docs_in_coll=num_docs_in_coll,
            n_qrels_topics=len(qrels.topics), qrels_positive_total=qrels.positive_total,
            full_precision=full_precision)

    def block(path, judged_by) -> str:
        try:
            run, general = read(path, spans and spans.read_run,  # before the qrels are known
                                partial(rankings.read_run, version=version))
        except TrecFormatError:  # the run cannot be read: an error in the qrels is reported first
            judged_by()
            raise
        qrels, options = judged_by()
        if run is None or not spans.qrels_table(qrels).usable:
            run = general()
        del general
        judged = rankings.rank(run, qrels, ties=ties, max_docs=max_docs, judged_only=judged_only,
                               relevance_level=relevance_level, complete=complete and version == "10.0",
                               last_lookup=len(run_paths) == 1, refuse_ungraded=True)
        if len(judged.topics) == 0:
            raise NoTopics(run.name)
        return "".join(line + "\n" for line in format_run(judged, selection, run.runid, options))  # -n: nothing

    collecting = gc.isenabled()
    gc.disable()  # many short-lived objects, no cycles: the cyclic collector would only rescan them
    try:
        how = workers.how_to_share(run_paths)
        if how == "fork":  # the qrels read here, then each process scores its share of the runs
            loaded = read_qrels()
            blocks = workers.forked_blocks(lambda path: block(path, lambda: loaded), run_paths,
                                           workers.count(run_paths))
        elif how == "threads":  # numpy releases the GIL: runs overlap; the text keeps the runs' order
            from concurrent.futures import Future, ThreadPoolExecutor

            judged_by: Future = Future()  # (qrels, output options), once the qrels are read
            with ThreadPoolExecutor(workers.count(run_paths)) as pool:
                futures = [pool.submit(block, path, judged_by.result) for path in run_paths]
                try:
                    try:
                        judged_by.set_result(read_qrels())
                    except BaseException as exc:
                        judged_by.set_exception(exc)
                        raise
                    blocks = [future.result() for future in futures]  # the first failing run in order raises
                except BaseException:
                    for future in futures:
                        future.cancel()
                    raise
        else:  # the qrels read when the first run is parsed (one run's parsing and the qrels table never overlap)
            loaded = []
            blocks = [block(path, lambda: loaded[0] if loaded else loaded.append(read_qrels()) or loaded[0])
                      for path in run_paths]
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


def main(argv: list[str] | None = None, prog: str = "trec_eval", *, own_process: bool = False) -> int:
    """The command: parse ``argv``, print what trec_eval prints, return its exit code. ``own_process``: this process
    is the command's alone (the console script), so with several run files its memory allocator may be tuned for
    them (:func:`evalkit.trec_eval.workers.keep_freed_memory`)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = parse(argv, prog)
    except UsageError as exc:
        print_usage(str(exc))
        return EXIT_USAGE
    except IllegalFormat as exc:
        print(f"trec_eval: {one_line(exc)}", file=sys.stderr)
        return EXIT_INPUT
    if args.help:
        sys.stdout.write(HELP)
        return 0
    if args.version:
        print(f"trec_eval version {VERSION_TEXT[args.te_version]}", file=sys.stderr)
        return 0
    if sum(1 for f in args.files if f == "-") > 1:
        print_usage("only one input can be '-' (standard input)")
        return EXIT_USAGE
    if own_process and len(args.files) > 2:  # several run files
        workers.keep_freed_memory()
    try:
        text = evaluate_files(args.files[0], args.files[1:], args.measure, version=args.te_version,
                              ties=args.ties, per_topic=args.q, summary=not args.n, complete=args.c,
                              relevance_level=args.l, max_docs=args.M, judged_only=args.J,
                              num_docs_in_coll=args.N)
    except BadParameters as exc:  # trec_eval reads the files, then cannot initialize the measure: exit 2
        print(f"trec_eval: Cannot initialize measure '{exc.measure}': {one_line(exc)}", file=sys.stderr)
        return EXIT_INPUT
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
    """The ``trec_eval`` console script. numpy is not imported yet: its BLAS, which the command never calls, is
    told to start one thread instead of one per core (numpy's import is most of the command's start-up). Ctrl-C
    (SIGINT) ends the command as it ends NIST trec_eval, killed by the signal with nothing printed (its forked
    workers go with it, :func:`evalkit.trec_eval.workers`), not with Python's traceback; a SIGINT the command was
    started ignoring (``nohup``, or ``cmd &`` in a script) stays ignored."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    sys.exit(main(own_process=True))


if __name__ == "__main__":
    console_main()
