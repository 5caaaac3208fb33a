"""The one thing pyproject.toml cannot say: the notebooks ship inside the package.

``notebooks/`` stays at the top of the repository (where ``make lab`` and a reader expect it) and is installed as
the package ``evalkit.notebooks`` (``package_dir`` maps it), so a wheel, an sdist or ``pip install git+URL`` holds
every notebook, found at run time with ``importlib.resources`` (:mod:`evalkit.classroom.notebooks`); an editable
install maps it back to the checkout. Every other package is found as before (``find_packages``), so a new
subpackage needs no entry here. Everything else is in pyproject.toml.
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["evalkit", "evalkit.*"]), "evalkit.notebooks"],
      package_dir={"evalkit.notebooks": "notebooks"})
