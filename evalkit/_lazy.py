"""Lazy attributes for a package ``__init__``: ``import evalkit`` stays cheap (no pandas, scipy, matplotlib or
pyarrow) and ``evalkit.evaluate`` imports :mod:`evalkit.measures.evaluation` on first use (PEP 562 module ``__getattr__``)."""

from __future__ import annotations

import importlib


def lazy_attributes(package: str, where: dict[str, str]):
    """A module ``__getattr__`` and ``__dir__`` resolving each name in ``where`` (name -> submodule) on first use."""

    def __getattr__(name: str):
        module = where.get(name)
        if module is None:
            if name.startswith("_"):
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
            try:  # a submodule (``evalkit.data.trec_files`` after ``import evalkit``, as before the imports were lazy)
                return importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise
                raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        globals_of_package = importlib.import_module(package).__dict__
        globals_of_package[name] = value  # cache: later lookups do not come back here
        return value

    def __dir__():
        return sorted(set(where) | set(importlib.import_module(package).__dict__))

    return __getattr__, __dir__
