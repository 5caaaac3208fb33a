"""Notebook parameters given to a batch: parsed like papermill's ``-p``, routed to the notebooks that have them.

``evalkit notebooks run -p k 3 -p name value`` and ``make reproduce PARAMS="phase1_depth=5 k=3"`` (the Makefile
passes ``--params "$PARAMS"``). Values are read as papermill reads ``-p`` values: ``True``/``False``/``None``, an
integer, a float, a list literal (``[5,10,20]``, which papermill's ``-y`` takes), else a string. A parameter goes
to each notebook whose ``parameters`` cell assigns it and is reported as not applicable for the others: one batch
may carry a parameter meant for one notebook. A name that no notebook of the batch has is an error naming it and
the known ones. Each value is then checked against the type its notebook declares beside it
(:mod:`evalkit.batch.parameter_types`, :func:`check_parameters`), before any kernel starts.
"""

from __future__ import annotations

import ast
import re
import shlex
from pathlib import Path

from evalkit.errors import listed, one_line, shown

__all__ = ["parse_value", "parse_assignments", "collect_parameters", "notebook_parameters", "route_parameters",
           "check_parameters", "parameters_source", "RESERVED"]

RESERVED = {"dataset": "--dataset", "fast": "--fast"}  # set by the batch itself, through these options
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_INT = re.compile(r"[+-]?[0-9]+\Z")
_FLOAT = re.compile(r"[+-]?([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)([eE][+-]?[0-9]+)?\Z|[+-]?(inf|nan)\Z", re.IGNORECASE)


VALUE_LIMIT = 10_000
"""The longest value text a batch reads (a list of a thousand numbers fits; the declarations bound the rest)."""


def parse_value(text: str):
    """``text`` as papermill's ``-p`` reads it: bool, None, int, float, a list literal, else the string.

    Unlike ``int()``, digit groups with underscores (``1_000``) stay strings, as trec_eval would not read them.
    A value longer than :data:`VALUE_LIMIT` characters, or a list nested too deep to read, is an error.
    """
    if len(text) > VALUE_LIMIT:
        raise ValueError(f"parameter value {shown(text)} is longer than {VALUE_LIMIT} characters")
    if text in ("True", "False"):
        return text == "True"
    if text == "None":
        return None
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    if text.startswith("[") and text.endswith("]"):
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
            raise ValueError(f"parameter value {shown(text)} looks like a list but is not a Python literal; "
                             "write it as [1, 2, 3] or ['a', 'b']") from None
        if not isinstance(value, list):
            raise ValueError(f"parameter value {shown(text)} looks like a list but is not one")
        return value
    return text


def _checked_name(name: str, where: str) -> str:
    if not _NAME.match(name) or len(name) > 100:
        raise ValueError(f"{where}: {shown(name)} is not a parameter name (letters, digits and _, not starting with a "
                         "digit)")
    if name in RESERVED:
        raise ValueError(f"{where}: {name!r} is set by the batch; use {RESERVED[name]} instead")
    return name


def parse_assignments(text: str, where: str = "--params") -> list[tuple[str, str]]:
    """``"phase1_depth=5 k=3 name='two words'"`` → [(name, raw value), ...] (shell-style quoting)."""
    if len(text or "") > 10 * VALUE_LIMIT:
        raise ValueError(f"{where}: {len(text)} characters; at most {10 * VALUE_LIMIT}")
    try:
        words = shlex.split(text or "")
    except ValueError as exc:
        raise ValueError(f"{where}: {exc} in {shown(text)}") from None
    pairs = []
    for word in words:
        name, sep, value = word.partition("=")
        if not sep:
            raise ValueError(f"{where}: {shown(word)} is not NAME=VALUE")
        pairs.append((_checked_name(name, where), value))
    return pairs


def collect_parameters(pairs: list[tuple[str, str]] | None = None, assignments: str | None = None) -> dict:
    """Parameters from ``-p NAME VALUE`` pairs and a ``--params "NAME=VALUE ..."`` string, values parsed.

    The same name given twice with different values is an error (which one was meant?).
    """
    given = [(_checked_name(n, "-p"), v) for n, v in (pairs or [])] + parse_assignments(assignments or "")
    parameters: dict = {}
    for name, raw in given:
        value = parse_value(raw)
        if name in parameters and parameters[name] != value:
            raise ValueError(f"parameter {name!r} given twice, as {shown(parameters[name])} and {shown(value)}")
        parameters[name] = value
    return parameters


def parameters_source(path: str | Path) -> str | None:
    """The source of the notebook's ``parameters`` cell (None if it has none)."""
    import json

    try:  # plain JSON: nbformat's schema machinery takes seconds to import, too long for a refusal
        with open(path, encoding="utf-8") as handle:
            cells = json.load(handle)["cells"]
        tagged = [c for c in cells if "parameters" in (c.get("metadata") or {}).get("tags", [])]
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
        raise ValueError(f"{path}: not a readable notebook ({type(exc).__name__}: {one_line(exc, 200)})") from None
    if not tagged:
        return None
    source = tagged[0].get("source", "")
    return source if isinstance(source, str) else "".join(source)


def notebook_parameters(path: str | Path) -> dict:
    """The names assigned in the notebook's ``parameters`` cell, with their default values as source text."""
    source = parameters_source(path)
    if source is None:
        return {}
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ValueError(f"{path}: its parameters cell is not valid Python (line {exc.lineno}: {exc.msg})") from None
    names: dict = {}
    for statement in tree.body:
        targets = statement.targets if isinstance(statement, ast.Assign) else \
            [statement.target] if isinstance(statement, ast.AnnAssign) else []
        for target in targets:
            if isinstance(target, ast.Name):
                names[target.id] = ast.get_source_segment(source, statement.value) if statement.value else None
    return names


def route_parameters(parameters: dict, notebooks: dict[str, dict]) -> dict[str, tuple[dict, list[str]]]:
    """For each notebook (name → its parameters), the given parameters it takes and the names not applicable.

    Raises ``ValueError`` for a parameter no notebook of the batch has, naming the known ones.
    """
    known = sorted({name for names in notebooks.values() for name in names} - set(RESERVED))
    unknown = [name for name in parameters if name not in known]
    if unknown:
        raise ValueError(f"unknown notebook parameter{'s' if len(unknown) > 1 else ''} {listed(unknown)}: "
                         f"no notebook in this batch has it in its parameters cell; known: "
                         f"{listed(known, limit=40) or 'none'}")
    return {notebook: ({k: v for k, v in parameters.items() if k in names},
                       [k for k in parameters if k not in names])
            for notebook, names in notebooks.items()}


def check_parameters(routes: dict[str, tuple[dict, list[str]]], paths: dict[str, Path]) -> None:
    """Check every value routed to a notebook against the type its ``parameters`` cell declares
    (:mod:`evalkit.batch.parameter_types`), before any kernel starts; ValueError names the notebook, the parameter,
    the value and the declaration."""
    from evalkit.batch.parameter_types import cell_declarations, check_value

    for notebook, (applied, _) in routes.items():
        if not applied:
            continue
        declarations = cell_declarations(parameters_source(paths[notebook]) or "")
        for name, value in applied.items():
            check_value(notebook, name, value, declarations.get(name))
