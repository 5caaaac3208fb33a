"""The kit's input error, in a module of its own so that readers which avoid pandas/pyarrow (the ``trec_eval``
command line) can raise the same exception as :mod:`evalkit.data.trec_files`."""

from __future__ import annotations

import os


class TrecFormatError(ValueError):
    """A TREC run or qrels file that cannot be read: ``file:line: problem``."""

    def __init__(self, path: os.PathLike | str, line: int | None, problem: str):
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {problem}")

    def __reduce__(self):  # pickled whole (a worker process sends its error back): rebuilt from its three parts
        return (type(self), (self.path, self.line, self.problem))


# -- messages: one line, a few hundred characters at most, whatever the input holds ------------------------------

LIST_LIMIT = 10
"""How many names an error message lists before it says how many more there are."""
VALUE_LIMIT = 60
"""How many characters of a value an error message shows."""
LINE_LIMIT = 400
"""The longest error line the kit prints."""


def shown(value, limit: int = VALUE_LIMIT) -> str:
    """``repr(value)`` for a message, cut to about ``limit`` characters (a cut says how long the whole was). A
    huge int is described by its digit count, never converted whole (Python refuses beyond 4300 digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4 * limit:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    if isinstance(value, (list, tuple)) and len(value) > 10:  # never repr a million items
        head = ", ".join(shown(item, 20) for item in value[:5])
        opening, closing = ("[", "]") if isinstance(value, list) else ("(", ")")
        return f"{opening}{head}, …{closing} ({len(value)} items)"
    if isinstance(value, (dict, set, frozenset)) and len(value) > 10:
        return f"a {type(value).__name__} of {len(value)} items"
    try:
        text = repr(value)
    except Exception:  # a repr that fails (or a container too deep to repr)
        return f"a {type(value).__name__}"
    if len(text) <= limit:
        return text
    return f"{text[:limit - 1]}… ({len(value) if isinstance(value, str) else len(text)} characters)"


def listed(items, limit: int = LIST_LIMIT, quote: bool = False) -> str:
    """``a, b, c`` for a message: at most ``limit`` items, then ``and N more``; each item cut by :func:`shown`
    when ``quote`` (repr) or to :data:`VALUE_LIMIT` characters as text. The one helper for every list of names
    an error gives."""
    items = list(items)
    head = [shown(i) if quote else _cut(str(i)) for i in items[:limit]]
    text = ", ".join(head)
    if len(items) > limit:
        text += f" and {len(items) - limit} more"
    return text


def _cut(text: str, limit: int = VALUE_LIMIT) -> str:
    return text if len(text) <= limit else f"{text[:limit - 1]}…"


def one_line(text, limit: int = LINE_LIMIT) -> str:
    """``text`` as one line (newlines and runs of blanks become one space) of at most ``limit`` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else f"{line[:limit - 1]}…"
