"""Declared types of notebook parameters: every value given to a batch is checked before any kernel starts.

Each assignment in a notebook's ``parameters`` cell carries its declaration as the start of its trailing comment,
up to the first ``;`` (the rest is prose for the reader)::

    trials = None            # int in [1, 100000] or None; None: the preset's (paper 50, class: 10)
    pool_depths = [1, 2, 5]  # list of int in [1, 10000], distinct, 1 to 50 items
    measure = "AP"           # measure; any measure name evalkit knows
    preset = "paper"         # one of "class", "paper"

The declaration sits beside the value it describes, in the one place a reader (and papermill) looks, so it is
read where the default is and cannot drift from a separate table. The grammar::

    declaration := alternative ("or" alternative)*
    alternative := "None" | "bool" | scalar | "list of" scalar ("," "distinct" | "," count "items")*
    scalar      := "int" [range] | "float" [range] | "text" ["of at most" N "characters"]
                 | "one of" "quoted" ("," "quoted")* | "measure" | "strategy"
    range       := "in" ("[" | "(") number "," number ("]" | ")")     (brackets: bounds included or not)
    count       := "at most" N | N "to" M

``float`` takes an int as well, never True/False, nan or infinity; ``int`` never a bool; ``text`` is one line of
printable characters, at most 1000 unless declared shorter; a list holds at most 100 items unless declared;
``measure`` is a name :func:`evalkit.measures.registry.parse_measure` reads, ``strategy`` one
:func:`evalkit.judging.stratified_sampling.get_strategy` reads. A value that fits no alternative is refused in
one sentence naming the notebook, the parameter, the value and the declaration (:func:`check_value`).
"""

from __future__ import annotations

import io
import math
import re
import tokenize
from dataclasses import dataclass, field

from evalkit.errors import one_line, shown

__all__ = ["Declaration", "DeclarationError", "parse_declaration", "cell_declarations", "check_value"]

TEXT_LIMIT = 1000
LIST_LIMIT = 100
_TOKEN = re.compile(r"""\s*(?:(?P<quoted>"[^"]*"|'[^']*')|(?P<number>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
                        |(?P<word>[A-Za-z_]+)|(?P<punct>[\[\](),]))""", re.VERBOSE)


class DeclarationError(ValueError):
    """A declaration that does not follow the grammar (module docstring)."""


@dataclass(frozen=True)
class Scalar:
    kind: str  # int, float, text, choice, measure, strategy
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    limit: int = TEXT_LIMIT
    choices: tuple = ()


@dataclass(frozen=True)
class Alternative:
    kind: str  # none, bool, scalar, list
    scalar: Scalar | None = None
    distinct: bool = False
    min_items: int = 0
    max_items: int = LIST_LIMIT


@dataclass(frozen=True)
class Declaration:
    text: str
    alternatives: tuple = field(default_factory=tuple)


def _tokens(text: str) -> list[tuple[str, str]]:
    out, position = [], 0
    text = text.strip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if not match or match.end() == position:
            raise DeclarationError(f"cannot read {text[position:position + 20]!r}")
        kind = match.lastgroup
        out.append((kind, match.group(kind)))
        position = match.end()
        while position < len(text) and text[position].isspace():
            position += 1
    return out


_KINDS = {"punct": "a bracket or a comma", "word": "a type", "quoted": "a quoted choice", "number": "a number"}


class _Reader:
    def __init__(self, text: str):
        self.tokens = _tokens(text)
        self.at = 0

    def peek(self, offset: int = 0):
        i = self.at + offset
        return self.tokens[i] if i < len(self.tokens) else ("end", "")

    def take(self, value: str | None = None, kind: str | None = None) -> str:
        token_kind, token = self.peek()
        if (value is not None and token != value) or (kind is not None and token_kind != kind):
            wanted = repr(value) if value is not None else _KINDS[kind]
            raise DeclarationError(f"expected {wanted}, found {token!r}" if token else f"expected {wanted} at the end")
        self.at += 1
        return token

    def accept(self, value: str) -> bool:
        if self.peek()[1] == value:
            self.at += 1
            return True
        return False


def _number(reader: _Reader) -> float:
    return float(reader.take(kind="number"))


def _whole(reader: _Reader) -> int:
    text = reader.take(kind="number")
    if not re.fullmatch(r"\d+", text):
        raise DeclarationError(f"expected a whole number, found {text!r}")
    return int(text)


def _scalar(reader: _Reader) -> Scalar:
    word = reader.take(kind="word")
    if word in ("int", "float"):
        if not reader.accept("in"):
            return Scalar(word)
        opening = reader.take(kind="punct")
        if opening not in "[(":
            raise DeclarationError(f"a range opens with [ or (, not {opening!r}")
        low = _number(reader)
        reader.take(",")
        high = _number(reader)
        closing = reader.take(kind="punct")
        if closing not in "])":
            raise DeclarationError(f"a range closes with ] or ), not {closing!r}")
        if low > high:
            raise DeclarationError(f"the range [{_bound(low)}, {_bound(high)}] is empty")
        return Scalar(word, low, high, opening == "(", closing == ")")
    if word == "text":
        if reader.accept("of"):
            reader.take("at")
            reader.take("most")
            limit = _whole(reader)
            reader.take("characters")
            return Scalar("text", limit=limit)
        return Scalar("text")
    if word == "one":
        reader.take("of")
        choices = [reader.take(kind="quoted")[1:-1]]
        while reader.peek()[1] == "," and reader.peek(1)[0] == "quoted":
            reader.take(",")
            choices.append(reader.take(kind="quoted")[1:-1])
        return Scalar("choice", choices=tuple(choices))
    if word in ("measure", "strategy"):
        return Scalar(word)
    raise DeclarationError(f"unknown type {word!r} (int, float, text, one of, measure, strategy, bool, None, "
                           "list of)")


def _alternative(reader: _Reader) -> Alternative:
    word = reader.peek()[1]
    if word == "None":
        reader.take()
        return Alternative("none")
    if word == "bool":
        reader.take()
        return Alternative("bool")
    if word == "list":
        reader.take()
        reader.take("of")
        scalar = _scalar(reader)
        distinct, low, high = False, 0, LIST_LIMIT
        while reader.accept(","):
            if reader.accept("distinct"):
                distinct = True
            elif reader.accept("at"):
                reader.take("most")
                high = _whole(reader)
                reader.take("items")
            else:
                low = _whole(reader)
                reader.take("to")
                high = _whole(reader)
                reader.take("items")
        return Alternative("list", scalar, distinct, low, high)
    return Alternative("scalar", _scalar(reader))


def parse_declaration(text: str) -> Declaration:
    """The declaration in ``text`` (a comment's text up to its first ``;``); DeclarationError says what is wrong."""
    reader = _Reader(text)
    if not reader.tokens:
        raise DeclarationError("no declaration")
    alternatives = [_alternative(reader)]
    while reader.accept("or"):
        alternatives.append(_alternative(reader))
    if reader.peek()[0] != "end":
        raise DeclarationError(f"unexpected {reader.peek()[1]!r} after the declaration")
    return Declaration(" ".join(text.split()), tuple(alternatives))


def cell_declarations(source: str) -> dict[str, Declaration | DeclarationError]:
    """For each name the ``parameters`` cell assigns: its declaration, or the DeclarationError saying why there is
    none (no comment, or one that does not parse). The comment read is the one ending the assignment's first
    line, continued by the comment-only lines right after the assignment."""
    import ast

    comments: dict[int, str] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                comments[token.start[0]] = token.string[1:]
    except (tokenize.TokenError, SyntaxError):
        pass
    lines = source.splitlines()
    out: dict = {}
    for statement in ast.parse(source).body:
        targets = statement.targets if isinstance(statement, ast.Assign) else \
            [statement.target] if isinstance(statement, ast.AnnAssign) else []
        comment = comments.get(statement.lineno)
        following = statement.end_lineno + 1  # comment-only lines after the statement continue its comment
        while comment is not None and following in comments and lines[following - 1].lstrip().startswith("#"):
            comment += " " + comments[following]
            following += 1
        for target in targets:
            if not isinstance(target, ast.Name):
                continue
            if comment is None:
                out[target.id] = DeclarationError("no declaration (a trailing comment such as '# int in [1, 100]')")
                continue
            try:
                out[target.id] = parse_declaration(comment.split(";", 1)[0])
            except DeclarationError as exc:
                out[target.id] = DeclarationError(f"its declaration {comment.split(';', 1)[0].strip()!r} does not "
                                                  f"parse: {exc}")
    return out


# -- checking a value ---------------------------------------------------------------------------------------------

def _bound(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else repr(number)


def _range_text(s: Scalar) -> str:
    return f"{'(' if s.low_open else '['}{_bound(s.low)}, {_bound(s.high)}{')' if s.high_open else ']'}"


def _scalar_problem(s: Scalar, value) -> str | None:
    """None if ``value`` fits ``s``, else what is wrong (a phrase)."""
    if s.kind in ("int", "float"):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (s.kind == "int" and
                                                                              not isinstance(value, int)):
            return f"is not {'a whole number' if s.kind == 'int' else 'a number'}"
        if isinstance(value, float) and not math.isfinite(value):
            return "is not a finite number"
        if s.low is not None:
            below = value <= s.low if s.low_open else value < s.low
            above = value >= s.high if s.high_open else value > s.high
            if below or above:
                return f"is outside {_range_text(s)}"
        return None
    if not isinstance(value, str):
        return "is not text"
    if s.kind == "choice":
        return None if value in s.choices else f"is not one of {', '.join(map(repr, s.choices))}"
    if len(value) > s.limit:
        return f"is {len(value)} characters long (at most {s.limit})"
    if not value.isprintable():
        return "holds a line break or a control character"
    if s.kind == "measure":
        from evalkit.measures.registry import parse_measure

        try:
            parse_measure(value)
        except (ValueError, TypeError, OverflowError) as exc:
            return f"is not a measure evalkit knows ({one_line(exc, 150)})"
    if s.kind == "strategy":
        from evalkit.judging.stratified_sampling import get_strategy

        try:
            get_strategy(value)
        except (KeyError, ValueError, TypeError, OverflowError) as exc:
            return f"is not a sampling strategy ({one_line(exc.args[0] if exc.args else exc, 150)})"
    return None


def _problem(alternative: Alternative, value) -> str | None:
    if alternative.kind == "none":
        return None if value is None else "is not None"
    if alternative.kind == "bool":
        return None if isinstance(value, bool) else "is not True or False"
    if alternative.kind == "scalar":
        return _scalar_problem(alternative.scalar, value)
    if not isinstance(value, list):
        return "is not a list"
    low, high = alternative.min_items, alternative.max_items
    if not low <= len(value) <= high:
        wanted = f"exactly {low}" if low == high else f"from {low} to {high}" if low else f"at most {high}"
        return f"has {len(value)} item{'' if len(value) == 1 else 's'} ({wanted})"
    for position, item in enumerate(value):
        problem = _scalar_problem(alternative.scalar, item)
        if problem:
            return f"item {position + 1} ({shown(item)}) {problem}"
    if alternative.distinct:
        seen = set()
        for item in value:
            if item in seen:
                return f"repeats {shown(item)} (the items must be distinct)"
            seen.add(item)
    return None


def _matches_type(alternative: Alternative, value) -> bool:
    """Whether ``value`` has the alternative's type (so its problem, not another's, is the one to report)."""
    if alternative.kind == "list":
        return isinstance(value, list)
    if alternative.kind != "scalar":
        return False
    kind = alternative.scalar.kind
    if kind in ("int", "float"):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, str)


def _phrase(alternative: Alternative) -> str:
    """What a value of this alternative is, in words (for a value of another type altogether)."""
    if alternative.kind in ("none", "bool", "list"):
        return {"none": "None", "bool": "True or False", "list": "a list"}[alternative.kind]
    return {"int": "a whole number", "float": "a number", "text": "text", "choice": "text", "measure":
            "a measure name", "strategy": "a strategy"}[alternative.scalar.kind]


def check_value(notebook: str, name: str, value, declaration: Declaration | DeclarationError | None) -> None:
    """Raise ValueError (one sentence naming the notebook, the parameter, the value and its declaration) unless
    ``value`` fits ``declaration``."""
    where = f"{notebook}: parameter {name}"
    if declaration is None or isinstance(declaration, DeclarationError):
        why = declaration or "it is not assigned in the parameters cell"
        raise ValueError(f"{where} = {shown(value)} cannot be checked: {why}; every parameter given to a batch "
                         "needs a declared type")
    problems = [_problem(a, value) for a in declaration.alternatives]
    if any(p is None for p in problems):
        return
    typed = [p for a, p in zip(declaration.alternatives, problems) if _matches_type(a, value)]
    problem = typed[0] if typed else "is not " + " or ".join(_phrase(a) for a in declaration.alternatives)
    raise ValueError(f"{where} = {shown(value)} {problem} (declared: {declaration.text})")
