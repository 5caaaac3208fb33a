"""Measures by name, in ir_measures' notation: ``AP``, ``P@10``, ``nDCG@100``, ``RBP(p=0.95)``.

A name parses into a :class:`MeasureSpec` (family, typed parameters, cut-off); each family is a
:class:`MeasureFamily` in the registry, with a description citing its source and the function computing it over
runs x topics. Users write names, not function calls: ``evalkit.evaluate(qrels, runs, ["AP", "P@10"])``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

__all__ = ["MeasureSpec", "MeasureFamily", "REGISTRY", "parse_measure", "register", "describe_measures"]

_NAME = re.compile(r"^(?P<family>[A-Za-z_]+)(?:\((?P<params>[^)]*)\))?(?:@(?P<cutoff>\d+))?$")


@dataclass(frozen=True)
class MeasureSpec:
    """A parsed measure name: family, parameters and optional rank cut-off."""

    family: str
    params: tuple[tuple[str, float | None], ...] = ()
    cutoff: int | None = None

    @property
    def param(self) -> dict[str, float | None]:
        return dict(self.params)

    def __str__(self) -> str:
        text = self.family
        given = [(k, v) for k, v in self.params if v is not None]
        if given:
            text += "(" + ",".join(f"{k}={v:g}" for k, v in given) + ")"
        if self.cutoff is not None:
            text += f"@{self.cutoff}"
        return text


@dataclass(frozen=True)
class MeasureFamily:
    """One family of measures: how its names look and how it is computed.

    ``compute(context, spec)`` returns a (runs, topics) array; ``context`` is an
    :class:`evalkit.measures.evaluation.EvaluationContext`.
    """

    name: str
    description: str
    compute: Callable
    params: dict[str, float | None] = field(default_factory=dict)  # parameter -> default (None: not given)
    cutoff: str = "optional"  # "optional", "required" or "none"
    needs_strata: bool = False
    aliases: tuple[str, ...] = ()


REGISTRY: dict[str, MeasureFamily] = {}


def register(family: MeasureFamily) -> MeasureFamily:
    for key in (family.name, *family.aliases):
        REGISTRY[key.lower()] = family
    return family


def parse_measure(name: str | MeasureSpec) -> MeasureSpec:
    """Parse ``name`` (e.g. ``"RBP(p=0.8)@100"``) and check it against the registry; ValueError says what is wrong."""
    if isinstance(name, MeasureSpec):
        return name
    match = _NAME.match(name.replace(" ", ""))
    if not match:
        raise ValueError(f"cannot parse measure {name!r}; expected e.g. 'AP', 'P@10', 'nDCG@100', 'RBP(p=0.95)'")
    family = REGISTRY.get(match["family"].lower())
    if family is None:
        known = ", ".join(sorted({f.name for f in REGISTRY.values()}))
        raise ValueError(f"unknown measure {match['family']!r} in {name!r}; known: {known}")
    params = dict(family.params)
    if match["params"]:
        for item in match["params"].split(","):
            key, _, value = item.partition("=")
            if key not in family.params:
                raise ValueError(f"{family.name} takes no parameter {key!r} (takes: {', '.join(family.params) or 'none'})")
            try:
                params[key] = float(value)
            except ValueError:
                raise ValueError(f"parameter {key} of {family.name} must be a number, got {value!r}") from None
    cutoff = int(match["cutoff"]) if match["cutoff"] else None
    if family.cutoff == "required" and cutoff is None:
        raise ValueError(f"{family.name} needs a cut-off, e.g. {family.name}@10")
    if family.cutoff == "none" and cutoff is not None:
        raise ValueError(f"{family.name} takes no cut-off")
    if cutoff is not None and cutoff < 1:
        raise ValueError(f"cut-off must be >= 1 in {name!r}")
    return MeasureSpec(family.name, tuple(sorted(params.items())), cutoff)


#: measure families computed from the grades and per-topic qrels statistics alone, one (run, topic) at a time: the
#: evaluation scores these block by block (:mod:`evalkit.measures.evaluation`), and a few plain run files can be
#: scored by them without a collection (:mod:`evalkit.measures.plain_files`); any other family (the inferred ones, a
#: user's own) sees the whole collection at once
PER_RANKING_FAMILIES = frozenset({"AP", "P", "R", "Rprec", "nDCG", "Bpref", "RBP", "RBPres", "NumRel", "NumRet"})


def describe_measures():
    """A DataFrame of the registered measure families: name, parameters, cut-off, description."""
    import pandas as pd

    families = {f.name: f for f in REGISTRY.values()}
    return pd.DataFrame(
        [
            {
                "measure": f.name,
                "parameters": ", ".join(f"{k}={v:g}" if v is not None else f"{k} (optional)"
                                        for k, v in f.params.items()),
                "cut-off": f.cutoff,
                "needs sampled qrels": f.needs_strata,
                "description": f.description,
            }
            for f in families.values()
        ]
    ).set_index("measure")
