"""trec_eval's command line options (``trec_eval.c``'s getopt string ``hvqm:cl:nD:JN:M:R:T:oZ:``), with its exit codes.

Exit codes, as trec_eval's: 1 usage or illegal measure, 2 unreadable input, 4 a measure that cannot be computed,
7 no topic with both results and judgments. Kit additions: several run files after the qrels (one block per run,
each with its ``runid`` line), ``--trec-eval-version 10.0|9.0.8`` (measure list, ``all_trec``, recall-level
rounding) and ``--ties float64|float32`` (default: the version's own, float64 for 10.0, float32 for 9.0.8).
Refused by name: ``-Z`` (z-scores), ``-D`` (debug output), ``-R prefs|qrels_prefs|qrels_jg`` (exit 1); a ``-R``
or ``-T`` trec_eval does not know exits 2 with its message.
"""

from __future__ import annotations

import argparse
import re
import sys

from evalkit.errors import one_line, shown

USAGE = """Usage: trec_eval [-h] [-q] {-m measure}* trec_rel_file trec_top_file [trec_top_file ...]
   -h: Give full help information, including other options
   -q: In addition to summary evaluation, give evaluation for each query
   -m: calculate and print measures indicated by 'measure'
       ('-m all_trec' prints all trec_eval measures, '-m official' is default)
"""

HELP = USAGE + """
Options, as NIST trec_eval's (before, between or after the files; long ones by any unambiguous prefix):
   -q, --query_eval_wanted           per-topic lines as well as the summary ('all') lines
   -m, --measure MEASURE             a measure, a family (official, set, all_trec) or a measure with parameters:
                                     P.5,10  ndcg_cut.10  ndcg.1=3,2=9  set_F.0.5  (P_10 is read as P.10)
   -c, --complete_rel_info_wanted    average over every qrels topic; a topic the run lacks counts
   -l, --level_for_rel N             the lowest grade that counts as relevant (default 1)
   -n, --nosummary                   no summary lines
   -J, --Judged_docs_only            leave documents the qrels do not judge out of the rankings
   -N, --Number_docs_in_coll N       the number of documents in the collection (for measures that need it)
   -M, --Max_retrieved_per_topic N   evaluate each ranking's top N documents only
   -R, --Rel_info_format qrels       the qrels format (the only one the kit reads)
   -T, --Results_format trec_results the run format (the only one)
   -o                                obsolete in trec_eval; ignored
   -v, --version                     the version, on standard error
   -h, --help                        this text
The kit's own:
   several run files after the qrels: one block per run, as trec_eval would print each alone
   --trec-eval-version 10.0|9.0.8    whose measures, all_trec list and rounding (default 10.0)
   --ties float64|float32            how scores are compared for ties (default: the version's own)
Refused by name: -Z (z-scores), -D (debug output), -R prefs|qrels_prefs|qrels_jg, the prefs and *_avgjg
measures. Where else the kit differs from trec_eval (a run lacking a qrels topic, a document listed twice, a NaN
score, numbers written loosely): docs/trec_eval.md in the kit's repository.
"""

EXIT_USAGE = 1
EXIT_INPUT = 2
EXIT_MEASURE = 4
EXIT_NO_TOPICS = 7


class UsageError(Exception):
    """Bad command line: trec_eval prints its usage and exits 1."""


class IllegalFormat(Exception):
    """A ``-R`` or ``-T`` format trec_eval does not know: it says so and exits 2 (trec_eval.c, once the command
    line is otherwise sound)."""


def _integer(text: str) -> int:
    """A decimal integer as atol reads one whole (``1_000`` or ``1e3``, which atol reads as 1, are refused)."""
    if not re.fullmatch(r"[+-]?[0-9]+", text) or len(text) > 100:
        raise ValueError(text)
    return int(text)


_integer.__name__ = "integer"  # argparse names the type in its message: "invalid integer value"


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # trec_eval: usage on stderr, exit 1 (argparse would exit 2)
        raise UsageError(message)


def _formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.HelpFormatter(prog, width=100)  # a fixed width: the default asks shutil (and imports lzma, bz2)


def build_parser(prog: str = "trec_eval") -> argparse.ArgumentParser:
    p = _Parser(prog=prog, add_help=False, usage=USAGE, formatter_class=_formatter)
    p.add_argument("-h", "--help", action="store_true")
    p.add_argument("-v", "--version", action="store_true")
    p.add_argument("-q", "--query_eval_wanted", dest="q", action="store_true")
    p.add_argument("-m", "--measure", dest="measure", action="append", default=[])
    p.add_argument("-c", "--complete_rel_info_wanted", dest="c", action="store_true")
    p.add_argument("-l", "--level_for_rel", dest="l", type=_integer, default=1)
    p.add_argument("-n", "--nosummary", dest="n", action="store_true")
    p.add_argument("-J", "--Judged_docs_only", dest="J", action="store_true")
    p.add_argument("-N", "--Number_docs_in_coll", dest="N", type=_integer, default=0)
    p.add_argument("-M", "--Max_retrieved_per_topic", dest="M", type=_integer, default=None)
    p.add_argument("-R", "--Rel_info_format", dest="R", default="qrels")
    p.add_argument("-T", "--Results_format", dest="T", default="trec_results")
    p.add_argument("-o", "--Output_old_results_format", dest="o", action="store_true")
    p.add_argument("-D", "--Debug_level", dest="D", default=None)
    p.add_argument("-Z", "--Zscore", dest="Z", default=None)
    p.add_argument("--trec-eval-version", dest="te_version", choices=("10.0", "9.0.8"), default="10.0")
    p.add_argument("--ties", choices=("float64", "float32"), default=None)
    p.add_argument("files", nargs="*")
    return p


#: the rel_info formats trec_eval 10.0 knows (formats.c) that the kit does not read
OTHER_REL_FORMATS = ("qrels_jg", "prefs", "qrels_prefs")


def parse(argv: list[str], prog: str = "trec_eval") -> argparse.Namespace:
    """The command line as trec_eval's ``getopt_long`` reads it: options before, between or after the files
    (``--`` ends them), long options by any unambiguous prefix (``--query`` for ``--query_eval_wanted``). Raises
    :class:`UsageError` (exit 1) or :class:`IllegalFormat` (exit 2)."""
    args = build_parser(prog).parse_intermixed_args(argv)
    if args.help:
        return args
    if args.Z is not None:
        raise UsageError("-Z (z-scores) is not implemented by the kit")
    if args.D is not None:
        raise UsageError("-D (debug output) is not implemented by the kit")
    if args.R in OTHER_REL_FORMATS:
        raise UsageError(f"-R {args.R}: only the 'qrels' format is implemented by the kit (prefs, qrels_prefs "
                         "and qrels_jg are not)")
    _check_counts(args)
    if not args.version and len(args.files) < 2:
        raise UsageError("need a qrels file and at least one run file")
    if args.R != "qrels":
        raise IllegalFormat(f"Illegal rel_format {shown(args.R)}")
    if args.T != "trec_results":
        raise IllegalFormat(f"Illegal retrieval results format {shown(args.T)}")
    if args.ties is None:
        args.ties = "float64" if args.te_version == "10.0" else "float32"
    return args


LONG_MAX = 2**63 - 1  # trec_eval reads -M, -l and -N with atol into a C long


def _check_counts(args: argparse.Namespace) -> None:
    """-M, -l and -N as trec_eval would take them where that is sane, else refused by name.

    ``-M`` beyond a C long is no limit (atol saturates: trec_eval evaluates every document); a negative ``-M``
    crashes trec_eval 10.0. ``-l`` below 0 would count the codes of unjudged (-2) and unpooled (-1) documents as
    relevant (trec_eval's ``-l -1`` gives different counts to num_rel_ret and to MAP); beyond a C long it crashes
    trec_eval. ``-N`` is a number of documents: never negative."""
    if args.M is not None:
        if args.M < 0:
            raise UsageError(f"-M {shown(args.M)}: the number of documents evaluated per topic cannot be negative")
        if args.M >= LONG_MAX:
            args.M = None  # trec_eval's atol saturates at LONG_MAX: every document is evaluated
    if args.l < 0:
        raise UsageError(f"-l {shown(args.l)}: the relevance level must be 0 or more (below 0 the codes of unjudged "
                         "and unpooled documents would count as relevant)")
    if args.l > LONG_MAX:
        raise UsageError(f"-l {shown(args.l)}: beyond trec_eval's largest relevance level ({LONG_MAX})")
    if args.N < 0 or args.N > LONG_MAX:
        raise UsageError(f"-N {shown(args.N)}: the number of documents in the collection must be in 0..{LONG_MAX}")


def print_usage(message: str | None = None) -> None:
    if message:
        print(f"trec_eval: {one_line(message)}", file=sys.stderr)
    sys.stderr.write(USAGE)
