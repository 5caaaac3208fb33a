"""The ``evalkit`` command line.

``evalkit eval QRELS RUN [RUN ...] [-m MEASURE ...] [-q] [--format kit|trec_eval]``
    ``--format trec_eval`` (the default when every ``-m`` is a trec_eval name: ``map``, ``P.10``, ``P_10``,
    ``official``, ``all_trec``, ...) prints exactly what trec_eval prints, one block per run, and takes
    trec_eval's options (``-c -J -M N -l N -n -N N``, ``--ties``, ``--trec-eval-version``): see
    :mod:`evalkit.trec_eval.cli`. The kit's own format (kit names in ir_measures notation: ``AP``, ``P@10``,
    ``nDCG@100``) prints trec_eval's three columns (measure, topic or ``all``, value); ``-q`` adds per-topic lines.
    Sampled (5-column) qrels enable ``infAP`` (sample_eval.pl's xinfAP), ``infNDCG@k``, ``infP@k`` and ``infR``.
``evalkit measures``
    the measure names the kit knows, with their sources.
``evalkit notebooks run [--dataset D] [--fast] [-p NAME VALUE ...] [--params "NAME=VALUE ..."] [--out DIR] [NOTEBOOK ...]``
    execute the notebooks with papermill and write the offline HTML report (what ``make reproduce`` calls);
    exits 1 if a notebook failed, 3 if none ran (every one skipped: the collection lacks what they need; the
    report's first line says what to write), 2 on bad input, 130/143 if interrupted. Skipped notebooks beside
    ones that ran are not a failure.
``evalkit notebooks solutions [--out DIR] [NOTEBOOK ...]``
    write each notebook with its checkable exercises answered to ``DIR/<name>_solutions.ipynb`` (default
    ``solutions/`` beside the notebooks folder, which students get without them): :mod:`evalkit.classroom.exercises`.
``evalkit plan --dataset D -m MEASURE (--delta X | --ci-width W) [--power P] [--alpha A] [--budget N] ...``
    the judgment-budget planner (:mod:`evalkit.planning`): for each judging design (pools, uniform and
    stratified samples, shallow pools with estimated deep scores), the topics a requirement needs on the
    collection's variance, what they cost, the cheapest design, and with a budget the most power it buys.
``evalkit collection suggest DIR [--dry-run]``
    show the ``collection.json`` a dataset folder's own evidence supports (the judged depth where the number of
    completely judged runs drops most; ``judged_pool_priority`` when runs_table.tsv's pool_priority matches the
    runs judged in the data), then write it; exits 1 without writing when the folder has a collection file.
``evalkit notebooks copy DIR [--solutions] [NOTEBOOK ...]``
    copy the notebooks the kit ships into ``DIR/notebooks`` (and their solutions into ``DIR/solutions``), for a
    student without a clone; never overwrites a file it did not write: :mod:`evalkit.classroom.handout`.
``evalkit report --out DIR``
    rebuild the HTML report from executed notebooks already in DIR.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from evalkit.errors import TrecFormatError, one_line

#: ``evalkit notebooks run``'s exit code when no notebook ran (every one skipped)
NOTHING_RAN = 3

DEFAULT_CLI_MEASURES = ["AP", "P@10", "Rprec", "nDCG", "Bpref"]


def _wants_trec_eval_format(argv: list[str]) -> bool:
    """``evalkit eval`` prints trec_eval's format when asked (``--format trec_eval``), or by default when every
    ``-m`` names a trec_eval measure or family and the qrels are not 5-column sampled qrels (whose ``infAP`` is
    sample_eval.pl's xinfAP, a kit measure)."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--format", choices=("kit", "trec_eval"), default=None)
    pre.add_argument("-m", "--measure", action="append", default=[])
    known, rest = pre.parse_known_args(argv)
    if known.format is not None:
        return known.format == "trec_eval"
    if not known.measure:
        return False
    from evalkit.trec_eval.names import is_trec_eval_name

    if not all(is_trec_eval_name(m) for m in known.measure):
        return False
    files = [a for a in rest if not a.startswith("-") or a == "-"]
    return not (files and _sampled_qrels(files[0]))


def _sampled_qrels(path: str) -> bool:
    """Whether the first content line of a qrels file has 5 fields (sampled qrels); False if it cannot be read."""
    if path == "-":
        return False
    try:
        import gzip

        with open(path, "rb") as handle:
            head = handle.read(1 << 16)
        if head[:2] == b"\x1f\x8b":
            with gzip.open(path, "rb") as handle:
                head = handle.read(1 << 16)
    except OSError:
        return False
    for line in head.split(b"\n"):
        if line.strip() and not line.startswith(b"#"):
            return len(line.split()) == 5
    return False


def _eval(args: argparse.Namespace) -> int:
    from evalkit.measures.evaluation import evaluate

    frame = evaluate(args.qrels, args.runs, args.measure or DEFAULT_CLI_MEASURES, per_topic=args.q, ties=args.ties)
    out = sys.stdout
    for row in frame.itertuples(index=False):
        if args.run_column:
            out.write(f"{row.run}\t")
        out.write(f"{row.measure:<22}\t{row.topic}\t{row.value:.4f}\n")
    return 0


def _measures(args: argparse.Namespace) -> int:
    import pandas as pd

    from evalkit.measures import describe_measures

    with pd.option_context("display.max_colwidth", 120, "display.width", 200):
        print(describe_measures().to_string())
    return 0


def _notebooks(args: argparse.Namespace) -> int:
    import shlex

    from evalkit.batch.parameters import collect_parameters
    from evalkit.batch.pipeline import run_notebooks

    parameters = collect_parameters(args.parameter, args.params)
    command = "evalkit " + " ".join(shlex.quote(a) for a in (args.argv or []))
    outcome = run_notebooks(dataset=args.dataset, fast=args.fast, out=args.out, only=args.notebooks or None,
                            kernel=args.kernel, parameters=parameters, notebooks=args.notebook_dir,
                            cell_timeout=args.cell_timeout, command=command)
    print(outcome.summary())
    return 1 if outcome.failed else NOTHING_RAN if outcome.nothing_ran else 0


def _solutions(args: argparse.Namespace) -> int:
    from evalkit.batch.pipeline import default_base, notebook_paths
    from evalkit.classroom.exercises import write_solutions

    paths = notebook_paths(args.notebooks or None, args.notebook_dir)
    out = args.out or default_base(paths[0].parent) / "solutions"
    for path in write_solutions(paths, out):
        print(path)
    return 0


def _check_plan_options(args: argparse.Namespace) -> None:
    """One ValueError naming the first option out of range (printed as one line by :func:`main`)."""
    if (args.delta is None) == (args.ci_width is None):
        raise ValueError("give one of --delta (a difference to detect) or --ci-width (a cap on the CI width)")
    checks = [("--alpha", args.alpha, 0 < args.alpha < 1, "a number in (0, 1)"),
              ("--power", args.power, args.alpha < args.power < 1, f"a number in ({args.alpha:g}, 1)"),
              ("--delta", args.delta, args.delta is None or args.delta > 0, "a positive difference"),
              ("--ci-width", args.ci_width, args.ci_width is None or args.ci_width > 0, "a positive width"),
              ("--budget", args.budget, args.budget is None or args.budget > 0, "a positive number of judgments"),
              ("--replicates", args.replicates, args.replicates >= 1, "at least 1"),
              ("--systems", args.systems, args.systems is None or args.systems >= 2, "at least 2")]
    for option, value, ok, what in checks:
        if not ok:
            raise ValueError(f"{option} must be {what}, got {value:g}")
    if args.test == "ci" and args.ci_width is None or args.ci_width is not None and args.test not in (None, "ci"):
        raise ValueError("--test ci goes with --ci-width, --test ttest/anova with --delta")


def _plan(args: argparse.Namespace) -> int:
    import pandas as pd

    from evalkit.data.datasets import load_dataset
    from evalkit.measures import parse_measure
    from evalkit.planning.plan import plan, recommendation, summary_table

    _check_plan_options(args)
    try:
        parse_measure(args.measure)
    except ValueError as exc:
        raise ValueError(f"-m/--measure: {exc}") from None
    collection = load_dataset(args.dataset)
    frame = plan(collection, args.measure, alpha=args.alpha, power=args.power, delta=args.delta,
                 ci_width=args.ci_width, budget=args.budget, test=args.test, paired=not args.unpaired,
                 systems=args.systems, replicates=args.replicates, seed=args.seed)
    attrs = frame.attrs
    print(f"collection: {attrs['collection']} ({attrs['runs']} runs, {attrs['topics']} topics, judged depth "
          f"{attrs['judged_depth']}; samples drawn from the depth-{attrs['sample_depth']} pool, "
          f"{attrs['replicates']} draws each, seed {attrs['seed']})")
    print(f"requirement: {attrs['requirement']}")
    table = summary_table(frame)
    formats = {"judgments/topic": "{:,.1f}", "effective variance": "{:.5f}", "bias sd": "{:.4f}",
               "tau vs full": "{:.3f}", "topics": "{:,.0f}", "total judgments": "{:,.0f}",
               "affordable topics": "{:,.0f}", "power within budget": "{:.3f}", "CI width within budget": "{:.4f}"}
    shown = table.copy()
    for column, fmt in formats.items():
        if column in shown:
            shown[column] = [fmt.format(v) if pd.notna(v) and v != float("inf") else "-" for v in shown[column]]
    with pd.option_context("display.width", 250, "display.max_columns", 20, "display.max_colwidth", 60):
        print(shown.to_string())
    for line in recommendation(frame):
        print(line)
    return 0


def _collection_suggest(args: argparse.Namespace) -> int:
    """Show the pool metadata a dataset folder's own evidence supports, then write it to its collection.json (never
    over a collection file that exists: that one is the reviewer's own)."""
    import json
    from pathlib import Path

    from evalkit.data.datasets import load_directory
    from evalkit.data.folder import COLLECTION_FILES, DatasetNotFound
    from evalkit.data.pool_metadata import suggest
    from evalkit.data.trec_files import atomic_write

    directory = Path(args.directory).expanduser()
    existing = [directory / name for name in COLLECTION_FILES if (directory / name).exists()]
    collection = load_directory(directory, cache=False)
    proposed = suggest(collection)
    if not proposed:
        raise DatasetNotFound(f"{directory}: no run has even its first document judged on every topic, so the data "
                              "suggest no pool; say which runs were judged in runs_table.tsv (column 'judged')")
    text = json.dumps(proposed["collection.json"], indent=1) + "\n"
    print(f"{directory}: {proposed['why']}.")
    print(f"collection.json:\n{text}", end="")
    if existing:
        print(f"not written: {existing[0]} exists (the kit never replaces it); compare and edit it yourself")
        return 1
    if args.dry_run:
        print("not written (--dry-run)")
        return 0
    atomic_write(directory / "collection.json", text.encode("utf-8"))
    print(f"written: {directory / 'collection.json'}")
def _copy(args: argparse.Namespace) -> int:
    from evalkit.classroom.handout import copy_notebooks

    done = copy_notebooks(args.folder, args.notebooks or None, solutions=args.solutions,
                          notebooks=args.notebook_dir)
    for path, action in done:
        print(f"{action}: {path}")
    print(f"open them with: jupyter lab {args.folder}")
    return 0


def _report(args: argparse.Namespace) -> int:
    from evalkit.batch.report_page import write_report

    path = write_report(args.out, progress=True)
    print(path)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="evalkit", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    ev = commands.add_parser("eval", help="score runs like trec_eval (and sample_eval.pl for sampled qrels)")
    ev.add_argument("qrels")
    ev.add_argument("runs", nargs="+")
    ev.add_argument("-m", "--measure", action="append", help="measure name, e.g. AP, P@10, nDCG@100, RBP(p=0.95)")
    ev.add_argument("-q", action="store_true", help="also print per-topic values")
    ev.add_argument("--run-column", action="store_true", help="prefix each line with the run name")
    ev.add_argument("--ties", choices=("float64", "float32"), default="float64",
                    help="score ties as trec_eval 10.0 (float64, default) or 9.x / pytrec_eval (float32) see them")
    ev.add_argument("--format", choices=("kit", "trec_eval"), default=None,
                    help="trec_eval: print exactly what trec_eval prints (default when every -m is a trec_eval "
                         "name such as map, P.10, official, all_trec; takes trec_eval's options -c -J -M -l -n "
                         "-N and --ties float64|float32, --trec-eval-version 10.0|9.0.8)")
    ev.set_defaults(func=_eval)

    ms = commands.add_parser("measures", help="list the measures the kit knows")
    ms.set_defaults(func=_measures)

    nb = commands.add_parser("notebooks", help="execute the notebooks with papermill")
    nb_commands = nb.add_subparsers(dest="action", required=True)
    run = nb_commands.add_parser("run")
    run.add_argument("notebooks", nargs="*", help="notebook names (default: all)")
    run.add_argument("--dataset", default="auto",
                     help="auto (TREC-8 when its files are found, else synthetic), synthetic, trec8, or a collection "
                          "folder (a relative path is from the current folder)")
    run.add_argument("--fast", action="store_true", help="small sizes and few trials (what the tests run)")
    run.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"), default=[],
                     help="a notebook parameter, read like papermill's -p (int, float, True/False/None, [list], "
                          "else text); given to the notebooks that have it")
    run.add_argument("--params", default="", metavar='"NAME=VALUE ..."',
                     help="parameters as one string (what make reproduce PARAMS=... passes)")
    run.add_argument("--out", default=None,
                     help="output folder (default outputs/<dataset> beside the notebooks folder); an existing "
                          "folder is replaced only if evalkit made it and it holds nothing evalkit did not write")
    run.add_argument("--notebooks", dest="notebook_dir", default=None, metavar="DIR",
                     help="the notebooks folder (default $EVALKIT_NOTEBOOKS, else the kit's notebooks/)")
    run.add_argument("--kernel", default=None, help="Jupyter kernel name (default: this Python)")
    run.add_argument("--cell-timeout", type=int, default=None, metavar="SECONDS",
                     help="time limit of each cell (default 3600, 300 with --fast)")
    run.set_defaults(func=_notebooks)
    solutions = nb_commands.add_parser("solutions", help="write the solutions notebooks (exercises answered)")
    solutions.add_argument("notebooks", nargs="*", help="notebook names (default: all)")
    solutions.add_argument("--out", default=None, help="folder (default solutions/ beside the notebooks folder)")
    solutions.add_argument("--notebooks", dest="notebook_dir", default=None, metavar="DIR",
                           help="the notebooks folder (default $EVALKIT_NOTEBOOKS, else the kit's notebooks/)")
    solutions.set_defaults(func=_solutions)
    copy = nb_commands.add_parser("copy", help="copy the notebooks (and --solutions) into a folder of yours")
    copy.add_argument("folder", help="where to copy: FOLDER/notebooks (and FOLDER/solutions)")
    copy.add_argument("notebooks", nargs="*", help="notebook names (default: all)")
    copy.add_argument("--solutions", action="store_true", help="also the solutions notebooks (for instructors)")
    copy.add_argument("--notebooks", dest="notebook_dir", default=None, metavar="DIR",
                      help="the notebooks folder (default $EVALKIT_NOTEBOOKS, else the kit's notebooks/)")
    copy.set_defaults(func=_copy)

    pl = commands.add_parser("plan", help="plan a collection: topics x judging design for a power or CI target")
    pl.add_argument("--dataset", default="auto",
                    help="auto (TREC-8 when its files are found, else synthetic), synthetic, trec8, or a collection "
                         "folder: the past collection whose variance the plan uses")
    pl.add_argument("-m", "--measure", default="AP",
                    help="the measure the collection will report: AP, nDCG@k, P@k, RBP(p=x,rel=1), ... (default AP)")
    pl.add_argument("--delta", type=float, default=None, help="the difference between two systems to detect")
    pl.add_argument("--ci-width", type=float, default=None,
                    help="instead of --delta: a cap on the width of the CI of a difference")
    pl.add_argument("--power", type=float, default=0.8, help="the power wanted (default 0.8)")
    pl.add_argument("--alpha", type=float, default=0.05, help="the significance level (default 0.05)")
    pl.add_argument("--budget", type=float, default=None, help="total relevance judgments available")
    pl.add_argument("--test", choices=("ttest", "anova", "ci"), default=None,
                    help="ttest (default with --delta), anova (over --systems systems), ci (with --ci-width)")
    pl.add_argument("--unpaired", action="store_true", help="each system on its own topics (one-way variance)")
    pl.add_argument("--systems", type=int, default=None, help="the ANOVA's number of systems (default: the runs)")
    pl.add_argument("--replicates", type=int, default=5, help="draws of each sampled design (default 5)")
    pl.add_argument("--seed", type=int, default=0, help="seed of the sampled designs' draws (default 0)")
    pl.set_defaults(func=_plan)

    co = commands.add_parser("collection", help="a dataset folder's pool metadata")
    co_commands = co.add_subparsers(dest="action", required=True)
    sg = co_commands.add_parser("suggest", help="show the collection.json the folder's own evidence supports, then "
                                                "write it (never over an existing one)")
    sg.add_argument("directory", help="the dataset folder (runs/, a qrels file, optional runs_table.tsv)")
    sg.add_argument("--dry-run", action="store_true", help="show it only")
    sg.set_defaults(func=_collection_suggest)

    cl = commands.add_parser("claims", help="the claims tables of batch runs")
    cl_commands = cl.add_subparsers(dest="action", required=True)
    cp = cl_commands.add_parser("compare", help="does the class preset change a conclusion? the claims of a class "
                                                "run beside those of a paper run of the same collection")
    cp.add_argument("class_run", help="the class preset's batch output folder (or its claims.csv)")
    cp.add_argument("paper_run", help="the paper preset's batch output folder (or its claims.csv)")
    cp.add_argument("--all", action="store_true", help="list every claim, not only those that differ")
    cp.set_defaults(func=_claims_compare)

    rp = commands.add_parser("report", help="rebuild the HTML report of executed notebooks")
    rp.add_argument("--out", required=True)
    rp.set_defaults(func=_report)
    return parser


def _claims_compare(args) -> int:
    """Exit 0 when no claim changes its verdict between the presets (a class run may decline to rate at its size,
    saying why), 1 when some do (listed), 2 on a folder without claims."""
    import pandas as pd

    from evalkit.claims.preset_comparison import changed_conclusions, compare_presets, read_claims_table, summary

    comparison = compare_presets(read_claims_table(args.class_run), read_claims_table(args.paper_run))
    shown = comparison if args.all else changed_conclusions(comparison)
    if len(shown):
        with pd.option_context("display.max_rows", None, "display.max_colwidth", 70, "display.width", 200):
            print(shown.to_string(index=False))
    print(summary(comparison))
    return 1 if len(changed_conclusions(comparison)) else 0


class _Terminated(KeyboardInterrupt):
    """SIGTERM (or SIGHUP), raised like Ctrl-C so every ``finally`` (staging folders, kernels) runs."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum, self.signal_name = signum, signal.Signals(signum).name


def _raise_terminated(signum, frame):
    raise _Terminated(signum)


def _interrupted(exc: KeyboardInterrupt) -> int:
    """The one line a command stopped by Ctrl-C (or by :class:`_Terminated`'s signal) prints; its exit code."""
    signum = getattr(exc, "signum", signal.SIGINT)
    name = getattr(exc, "signal_name", "SIGINT")
    detail = str(exc) if str(exc) and str(exc) != name else "stopped"
    print(f"evalkit: interrupted ({name}): {detail}", file=sys.stderr)
    return 128 + int(signum)


def main(argv: list[str] | None = None) -> int:
    """Run a command; errors in the input are one line on stderr (exit 2), never a traceback."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["eval"] and _wants_trec_eval_format(argv[1:]):
        from evalkit.trec_eval.cli import main as trec_eval_main

        rest = [a for a in argv[1:] if not a.startswith("--format")]
        if "--format" in argv[1:]:  # "--format trec_eval" as two words
            i = argv[1:].index("--format")
            rest = argv[1:][:i] + argv[1:][i + 2:]
        try:
            return trec_eval_main(rest, prog="evalkit eval")
        except KeyboardInterrupt as exc:  # Ctrl-C: one line, as below, never a traceback
            return _interrupted(exc)
    args = build_parser().parse_args(argv)
    args.argv = argv
    handled = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
    previous = {s: signal.signal(s, _raise_terminated) for s in handled} \
        if threading.current_thread() is threading.main_thread() else {}
    try:
        return args.func(args)
    except (TrecFormatError, ValueError, OSError) as exc:  # bad input or a file the kit cannot read or write
        print(f"evalkit: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        return _interrupted(exc)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


if __name__ == "__main__":
    sys.exit(main())
