"""The one thing pyproject.toml cannot say: the notebooks ship inside the package.

``notebooks/`` stays at the top of the repository (where ``make lab`` and a reader expect it) and is installed as
the package ``evalkit.notebooks`` (``package_dir`` maps it), so a wheel, an sdist or ``pip install git+URL`` holds
every notebook, found at run time with ``importlib.resources`` (:mod:`evalkit.classroom.notebooks`); an editable
install maps it back to the checkout. Every other package is found as before (``find_packages``), so a new
subpackage needs no entry here. The batch's HTML templates (``evalkit/batch/templates/<name>/``, files and no
``__init__.py``) are listed as packages too, each found here, so setuptools builds without its warning that a
folder Python could import is missing from ``packages``; their files are package data of ``evalkit`` in
pyproject.toml (whose package-data takes the place of any given here).

The compiled reader of the collection build (``evalkit/data/_native_runs.c``, :mod:`evalkit.data.native_build`) is an
optional extension: built when a C compiler and Python's headers are at hand, skipped with a warning when not
(``optional=True``), and the kit then builds collections in pure Python, with the same arrays. Everything else is in
pyproject.toml.
"""

from pathlib import Path

from setuptools import Extension, find_packages, setup

TEMPLATES = Path(__file__).resolve().parent / "evalkit" / "batch" / "templates"
TEMPLATE_PACKAGES = [f"evalkit.batch.templates.{folder.name}" for folder in sorted(TEMPLATES.iterdir())
                     if folder.is_dir() and not folder.name.startswith(("_", "."))]

setup(packages=[*find_packages(include=["evalkit", "evalkit.*"]), "evalkit.notebooks", *TEMPLATE_PACKAGES],
      package_dir={"evalkit.notebooks": "notebooks"},
      ext_modules=[Extension("evalkit.data._native_runs", ["evalkit/data/_native_runs.c"], optional=True)])
