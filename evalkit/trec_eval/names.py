"""trec_eval's measure names, parameters and families (``-m``), for trec_eval 10.0 and 9.0.8.

``-m NAME`` or ``-m NAME.PARAMS`` selects a measure the way ``trec_eval.c``'s ``mark_measure`` does: ``P.5,10``
gives ``P_5`` and ``P_10``; a family (``official``, ``set``, ``all_trec``) marks every measure it lists. The kit
also accepts ``P_10`` for ``P.10`` (trec_eval itself refuses it; scripts often write it so).

Measures are printed in trec_eval's internal order (``te_trec_measures`` in ``measures.c``), not in the order
they were asked for; each trec_eval version has its own list:

* 10.0 (NIST HEAD, reports 10.0-rc3) adds ``dcg``, ``ideal_dcg``, ``rbp``, ``rbp_resid`` and ``unj`` and lists
  ``unj rbp rbp_resid`` in ``all_trec``;
* 9.0.8 has neither.

Both list ``yaap`` (``m_yaap.c``) after ``num_nonrel_judged_ret`` and the prefs measures; neither version's
``all_trec`` includes it, so it is printed only when named.

Two measures are called infAP in the literature, and the kit keeps them apart by name:

* ``infAP`` here is **trec_eval's** ``infAP`` (``m_infap.c``, Yilmaz & Aslam 2006: one uniform sample of the
  pool, unsampled pool documents coded ``-1`` in the qrels);
* ``xinfAP`` (the kit's ``infAP`` measure name with 5-column sampled qrels, see :mod:`evalkit.measures.inferred`) is
  NIST ``sample_eval.pl``'s stratified estimator (Yilmaz, Kanoulas & Aslam 2008, eqs. 3-5), which trec_eval does
  not compute. ``-m xinfAP`` in trec_eval format is refused with a pointer to the kit's format.

Prefs, qrels_jg and z-score measures (``-R prefs``, ``-R qrels_jg``, ``-Z``) are not implemented and are refused
by name (exit 1, like any unknown measure in trec_eval).
"""

from __future__ import annotations

import math
import re

from evalkit.errors import shown

# value kinds, after trec_eval's init/print functions (meas_init.c, meas_print_*.c)
LONG = "long"  # te_init_meas_s_long: printed with %ld, summed (num_ret, num_rel, ...)
DOUBLE = "double"  # te_init_meas_s_double: one value, averaged
GEOMETRIC = "geometric"  # calc_avg_meas_s_gm: exp(mean of logs); not printed per topic
CUT_LONG = "cut_long"  # te_init_meas_a_double_cut_long: P.5,10 -> P_5, P_10
CUT_DOUBLE = "cut_double"  # te_init_meas_a_double_cut_double: iprec_at_recall.0,.5 -> iprec_at_recall_0.00, ...
P_DOUBLE = "p_double"  # te_init_meas_s_double_p_double: one value, parameters as doubles (utility, set_F)
P_PAIR = "p_pair"  # te_init_meas_s_double_p_pair: one value, parameters name=value (ndcg.1=3,2=9; rbp.p=0.8)
RELSTRING = "relstring"  # printed per topic only, quoted
RUNID = "runid"
NUM_Q = "num_q"


class TrecMeasure:
    """One trec_eval measure: its name, how it is parameterized and printed, and its default parameters. (Plain
    classes here and in the other modules the command line imports: ``dataclasses`` costs its start-up 5 ms.)"""

    __slots__ = ("name", "kind", "default")

    def __init__(self, name: str, kind: str, default: tuple = ()):
        self.name, self.kind, self.default = name, kind, default

    def __repr__(self) -> str:
        return f"TrecMeasure({self.name!r}, {self.kind!r}, {self.default!r})"


_MEASURES_9 = [
    TrecMeasure("runid", RUNID), TrecMeasure("num_q", NUM_Q), TrecMeasure("num_ret", LONG),
    TrecMeasure("num_rel", LONG), TrecMeasure("num_rel_ret", LONG), TrecMeasure("map", DOUBLE),
    TrecMeasure("gm_map", GEOMETRIC), TrecMeasure("Rprec", DOUBLE), TrecMeasure("bpref", DOUBLE),
    TrecMeasure("recip_rank", DOUBLE),
    TrecMeasure("iprec_at_recall", CUT_DOUBLE, (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)),
    TrecMeasure("P", CUT_LONG, (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
    TrecMeasure("relstring", RELSTRING, (10.0,)),
    TrecMeasure("recall", CUT_LONG, (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
    TrecMeasure("infAP", DOUBLE), TrecMeasure("gm_bpref", GEOMETRIC),
    TrecMeasure("Rprec_mult", CUT_DOUBLE, (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
    TrecMeasure("utility", P_DOUBLE, (1.0, -1.0, 0.0, 0.0)),
    TrecMeasure("11pt_avg", P_DOUBLE, (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)),
    TrecMeasure("binG", DOUBLE), TrecMeasure("G", P_PAIR),
    TrecMeasure("ndcg", P_PAIR), TrecMeasure("ndcg_rel", P_PAIR), TrecMeasure("Rndcg", P_PAIR),
    TrecMeasure("ndcg_cut", CUT_LONG, (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
    TrecMeasure("map_cut", CUT_LONG, (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
    TrecMeasure("relative_P", CUT_LONG, (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
    TrecMeasure("success", CUT_LONG, (1, 5, 10)),
    TrecMeasure("set_P", DOUBLE), TrecMeasure("set_relative_P", DOUBLE), TrecMeasure("set_recall", DOUBLE),
    TrecMeasure("set_map", DOUBLE), TrecMeasure("set_F", P_DOUBLE, (1.0,)),
    TrecMeasure("num_nonrel_judged_ret", LONG), TrecMeasure("yaap", DOUBLE),
]


def _measures_10() -> list[TrecMeasure]:
    by_name = {m.name: m for m in _MEASURES_9}
    order = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
             "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
             "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut",
             "map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
             "num_nonrel_judged_ret", "yaap", "rbp", "rbp_resid", "unj"]
    extra = {"dcg": TrecMeasure("dcg", P_PAIR), "ideal_dcg": TrecMeasure("ideal_dcg", P_PAIR),
             "rbp": TrecMeasure("rbp", P_PAIR), "rbp_resid": TrecMeasure("rbp_resid", P_PAIR),
             "unj": TrecMeasure("unj", CUT_LONG, (5, 10, 20))}
    return [by_name.get(n) or extra[n] for n in order]


MEASURES = {"10.0": _measures_10(), "9.0.8": list(_MEASURES_9)}
VERSIONS = tuple(MEASURES)

_OFFICIAL = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
             "recip_rank", "iprec_at_recall", "P"]
_SET = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
        "set_relative_P", "set_map", "set_F"]
_ALL_TREC_9 = _OFFICIAL + ["relstring", "recall", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg",
                           "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg",
                           "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
                           "num_nonrel_judged_ret"]
_ALL_TREC_10 = _OFFICIAL + ["relstring", "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
                            "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut",
                            "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P",
                            "set_map", "set_F", "num_nonrel_judged_ret"]
FAMILIES = {
    "10.0": {"official": _OFFICIAL, "set": _SET, "all_trec": _ALL_TREC_10},
    "9.0.8": {"official": _OFFICIAL, "set": _SET, "all_trec": _ALL_TREC_9},
}
# names trec_eval knows but the kit does not compute (other input formats): refused by name
NOT_IMPLEMENTED = {
    "all_prefs", "prefs", "qrels_jg", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "ndcg_p",
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
    "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
}


class UnknownMeasure(ValueError):
    """A ``-m`` argument trec_eval would refuse (exit 1: ``trec_eval: illegal measure '...'``)."""


class BadParameters(UnknownMeasure):
    """A known measure's parameters that trec_eval cannot initialize it with (exit 2: ``trec_eval: Cannot
    initialize measure '...'``, trec_eval.c after ``init_meas``), or that the kit refuses where trec_eval's
    ``atol``/``atof`` would read them loosely. ``measure``: the measure's name."""

    def __init__(self, measure: str, message: str):
        super().__init__(message)
        self.measure = measure


class Selection:
    """The measures marked by the ``-m`` arguments, with their parameters, in trec_eval's print order."""

    def __init__(self, version: str):
        self.version = version
        self.marked: set = set()
        self.params: dict = {}  # measure name -> parameter string (the text after the '.')

    def measures(self) -> list[TrecMeasure]:
        return [m for m in MEASURES[self.version] if m.name in self.marked]


def is_trec_eval_name(text: str, version: str = "10.0") -> bool:
    """Whether ``text`` (a ``-m`` argument) names a trec_eval measure or family (with or without parameters)."""
    try:
        select([text], version)
    except UnknownMeasure:
        return False
    return True


def _underscore_form(name: str, known: dict) -> tuple[str, str] | None:
    """``P_10`` -> (``P``, ``10``); ``iprec_at_recall_0.10`` -> (``iprec_at_recall``, ``0.10``)."""
    for base in sorted(known, key=len, reverse=True):
        m = known[base]
        if m.kind in (CUT_LONG, CUT_DOUBLE) and name.startswith(base + "_") and len(name) > len(base) + 1:
            return base, name[len(base) + 1:]
    return None


def select(arguments: list[str], version: str = "10.0") -> Selection:
    """Mark the measures named by ``-m`` arguments as trec_eval ``version`` does; raises :class:`UnknownMeasure`.

    Like trec_eval, a later ``-m P.5`` replaces the parameters of an earlier ``-m P.10`` (the first one given is
    the one used: ``meas_init.c`` takes the first matching argument), and a family marks its members with their
    default parameters unless parameters were given for them."""
    if version not in MEASURES:
        raise ValueError(f"unknown trec_eval version {version!r}; known: {', '.join(VERSIONS)}")
    known = {m.name: m for m in MEASURES[version]}
    selection = Selection(version)
    underscored: dict[str, list[str]] = {}  # P_5, P_10: the kit's extension, cutoffs gathered
    for text in arguments:
        if text.partition(".")[0] in NOT_IMPLEMENTED:  # before P_avgjg reads as P with the cutoff 'avgjg'
            raise UnknownMeasure(f"illegal measure {shown(text)} (not available in the kit's trec_eval {version})")
        whole = None if text in known or text.partition(".")[0] in known else _underscore_form(text, known)
        if whole is not None:
            selection.marked.add(whole[0])
            underscored.setdefault(whole[0], []).append(whole[1])
            continue
        name, dot, params = text.partition(".")
        if dot and not params:
            raise UnknownMeasure(f"improper measure in parameter {shown(text)}")
        if name in FAMILIES[version] and not dot:
            selection.marked.update(FAMILIES[version][name])
            continue
        if name not in known:
            split = None if dot else _underscore_form(name, known)
            if split is None:
                hint = ""
                if name in {"dcg", "ideal_dcg", "rbp", "rbp_resid", "unj"}:  # 10.0's, asked of 9.0.8
                    hint = f" (not available in the kit's trec_eval {version})"
                elif name == "xinfAP":
                    hint = (" (xinfAP is sample_eval.pl's estimator, not a trec_eval measure: use the kit's "
                            "format, evalkit eval -m infAP with 5-column sampled qrels)")
                raise UnknownMeasure(f"illegal measure {shown(text)}{hint}")
            selection.marked.add(split[0])
            underscored.setdefault(split[0], []).append(split[1])
            continue
        selection.marked.add(name)
        if dot and name not in selection.params:
            selection.params[name] = params
    for name, values in underscored.items():
        given = selection.params.get(name)
        parts = (given.split(",") if given else []) + [v for v in values if v not in (given or "").split(",")]
        selection.params[name] = ",".join(dict.fromkeys(parts))
    return selection


LONG_MAX = 2**63 - 1  # trec_eval reads cutoffs with atol into a C long
GAIN_LIMIT = 2**30  # gains are compared as (int) (gain1 - gain2) by gain_init.c: beyond, C's conversion is undefined


_INTEGER = re.compile(r"[+-]?[0-9]{1,100}")
_REAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?(inf|infinity|nan)", re.IGNORECASE)


def _int(text: str) -> int:
    """A decimal integer, whole (Python's int() also takes ``1_0`` and blanks, which trec_eval's atol reads
    otherwise)."""
    if not _INTEGER.fullmatch(text):
        raise ValueError(text)
    return int(text)


def _float(text: str) -> float:
    """A decimal number, whole (``1_0`` refused as in :func:`_int`; inf and nan are read, then refused by name)."""
    if len(text) > 100 or not _REAL.fullmatch(text):
        raise ValueError(text)
    return float(text)


def _illegal(measure: TrecMeasure, params: str, why: str = "") -> BadParameters:
    return BadParameters(measure.name, f"illegal parameters {shown(params)} for measure '{measure.name}'"
                          + (f": {why}" if why else ""))


def cutoff_values(measure: TrecMeasure, params: str | None) -> tuple:
    """Sorted, checked cutoffs of a ``cut_long``/``cut_double`` measure (``get_long_cutoffs`` in meas_init.c).
    Refused by name: a cutoff that is not a number, not positive (long cutoffs), beyond a C long (atol would
    saturate it and print another name), not finite (double cutoffs), or given twice."""
    if params is None:
        return tuple(measure.default)
    parts = params.split(",")
    try:
        if measure.kind == CUT_LONG:
            values = sorted(_int(p) for p in parts)
        else:
            values = sorted(_float(p) for p in parts)
    except ValueError:
        raise _illegal(measure, params) from None
    if measure.kind == CUT_LONG and values[0] <= 0:
        raise BadParameters(measure.name, f"non-positive cutoff in {shown(measure.name + '.' + params)}")
    if measure.kind == CUT_LONG and values[-1] > LONG_MAX:
        raise _illegal(measure, params, f"cutoff {shown(values[-1])} is beyond trec_eval's largest ({LONG_MAX})")
    if measure.kind == CUT_DOUBLE and not all(math.isfinite(v) for v in values):
        raise _illegal(measure, params, "a cutoff is not a finite number")
    if len(set(values)) != len(values):
        raise BadParameters(measure.name, f"duplicate cutoffs in {shown(measure.name + '.' + params)}")
    return tuple(values)


def double_params(measure: TrecMeasure, params: str | None) -> tuple:
    """The parameters of a ``p_double`` measure, in the order given (``get_double_params``); finite numbers."""
    if params is None:
        return tuple(measure.default)
    try:
        values = tuple(_float(p) for p in params.split(","))
    except ValueError:
        raise _illegal(measure, params) from None
    if not all(math.isfinite(v) for v in values):
        raise _illegal(measure, params, "a parameter is not a finite number")
    return values


def pair_params(measure: TrecMeasure, params: str | None) -> list:
    """``name=value`` parameters of a ``p_pair`` measure (``get_param_pairs``): [(name, value)] in the order given,
    a name given twice kept twice (gain_init.c and m_rbp.c each decide which one counts). Values are finite
    numbers; a gain (an integer name) within +-2**30, as trec_eval compares gains as C ints."""
    if params is None:
        return []
    out = []
    for part in params.split(","):
        key, eq, value = part.partition("=")
        if not eq or not key:
            raise _illegal(measure, params)
        try:
            number = _float(value)
        except ValueError:
            raise _illegal(measure, params) from None
        if not math.isfinite(number):
            raise _illegal(measure, params, f"the value of {shown(key)} is not a finite number")
        if re.fullmatch(r"[+-]?[0-9]+", key) and abs(number) > GAIN_LIMIT:
            raise _illegal(measure, params, f"the gain of grade {shown(key)} is beyond +-{GAIN_LIMIT} (trec_eval "
                                            "compares gains as C ints)")
        out.append((key, number))
    return out


def cutoff_label(measure: TrecMeasure, value) -> str:
    """The printed name of one cutoff: ``P_10`` (``%s_%ld``), ``iprec_at_recall_0.10`` (``%s_%3.2f``)."""
    if measure.kind == CUT_LONG:
        return f"{measure.name}_{value}"
    return f"{measure.name}_{value:3.2f}"

