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
