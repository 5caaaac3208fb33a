"""trec_eval's command line options (``trec_eval.c``'s getopt string ``hvqm:cl:nD:JN:M:R:T:oZ:``), with its exit codes.

Exit codes, as trec_eval's: 1 usage or illegal measure, 2 unreadable input, 4 a measure that cannot be computed,
7 no topic with both results and judgments. Kit additions: several run files after the qrels (one block per run,
each with its ``runid`` line), ``--trec-eval-version 10.0|9.0.8`` (measure list, ``all_trec``, recall-level
rounding) and ``--ties float64|float32`` (default: the version's own, float64 for 10.0, float32 for 9.0.8).
Refused by name: ``-Z`` (z-scores), ``-D`` (debug output), ``-R prefs|qrels_prefs|qrels_jg``, ``-T`` other than
``trec_results``.
"""

from __future__ import annotations

import argparse
import sys

USAGE = """Usage: trec_eval [-h] [-q] {-m measure}* trec_rel_file trec_top_file [trec_top_file ...]
   -h: Give full help information, including other options
   -q: In addition to summary evaluation, give evaluation for each query
   -m: calculate and print measures indicated by 'measure'
       ('-m all_trec' prints all trec_eval measures, '-m official' is default)
"""

EXIT_USAGE = 1
EXIT_INPUT = 2
EXIT_MEASURE = 4
EXIT_NO_TOPICS = 7


class UsageError(Exception):
    """Bad command line: trec_eval prints its usage and exits 1."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # trec_eval: usage on stderr, exit 1 (argparse would exit 2)
        raise UsageError(message)


def _formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.HelpFormatter(prog, width=100)  # a fixed width: the default asks shutil (and imports lzma, bz2)


def build_parser(prog: str = "trec_eval") -> argparse.ArgumentParser:
    p = _Parser(prog=prog, add_help=False, usage=USAGE, allow_abbrev=False, formatter_class=_formatter)
    p.add_argument("-h", "--help", action="store_true")
    p.add_argument("-v", "--version", action="store_true")
    p.add_argument("-q", "--query_eval_wanted", dest="q", action="store_true")
    p.add_argument("-m", "--measure", dest="measure", action="append", default=[])
    p.add_argument("-c", "--complete_rel_info_wanted", dest="c", action="store_true")
    p.add_argument("-l", "--level_for_rel", dest="l", type=int, default=1)
    p.add_argument("-n", "--nosummary", dest="n", action="store_true")
    p.add_argument("-J", "--Judged_docs_only", dest="J", action="store_true")
    p.add_argument("-N", "--Number_docs_in_coll", dest="N", type=int, default=0)
    p.add_argument("-M", "--Max_retrieved_per_topic", dest="M", type=int, default=None)
    p.add_argument("-R", "--Rel_info_format", dest="R", default="qrels")
    p.add_argument("-T", "--Results_format", dest="T", default="trec_results")
    p.add_argument("-o", "--Output_old_results_format", dest="o", action="store_true")
    p.add_argument("-D", "--Debug_level", dest="D", default=None)
    p.add_argument("-Z", "--Zscore", dest="Z", default=None)
    p.add_argument("--trec-eval-version", dest="te_version", choices=("10.0", "9.0.8"), default="10.0")
    p.add_argument("--ties", choices=("float64", "float32"), default=None)
    p.add_argument("files", nargs="*")
    return p


def parse(argv: list[str], prog: str = "trec_eval") -> argparse.Namespace:
    args = build_parser(prog).parse_args(argv)
    if args.help:
        return args
    if args.Z is not None:
        raise UsageError("-Z (z-scores) is not implemented by the kit")
    if args.D is not None:
        raise UsageError("-D (debug output) is not implemented by the kit")
    if args.R != "qrels":
        raise UsageError(f"-R {args.R}: only the 'qrels' format is implemented by the kit (prefs, qrels_prefs "
                         "and qrels_jg are not)")
    if args.T != "trec_results":
        raise UsageError(f"-T {args.T}: illegal retrieval results format")
    if not args.version and len(args.files) < 2:
        raise UsageError("need a qrels file and at least one run file")
    if args.ties is None:
        args.ties = "float64" if args.te_version == "10.0" else "float32"
    return args


def print_usage(message: str | None = None) -> None:
    if message:
        print(f"trec_eval: {message}", file=sys.stderr)
    sys.stderr.write(USAGE)
