"""Dependency bounds: every runtime and test dependency has an upper bound, the installed versions lie inside the
bounds, and environment.yml says the same as pyproject.toml (so a new major release cannot break an install
silently, and the bounds are known to hold for what the tests ran on)."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
CONDA_NAMES = {"isal": "python-isal"}  # conda-forge's name where it differs from PyPI's


INSTALLED_GROUPS = ("test",)  # what `make install` installs besides the runtime dependencies (bench: `make bench`)


def _requirements(groups=INSTALLED_GROUPS) -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    optional = project["optional-dependencies"]
    names = project["dependencies"] + [d for group in groups for d in optional[group]]
    return [Requirement(d) for d in names]


def test_the_build_requirements_have_upper_bounds_too():
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    for requirement in map(Requirement, build):
        uppers = [s for s in requirement.specifier if s.operator in ("<", "<=", "~=", "==")]
        assert uppers, f"[build-system] {requirement} has no upper bound"


def test_optional_groups_have_upper_bounds_too():
    optional = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for group, requirements in optional.items():
        for requirement in map(Requirement, requirements):
            uppers = [s for s in requirement.specifier if s.operator in ("<", "<=", "~=", "==")]
            assert uppers, f"[{group}] {requirement} has no upper bound"


def test_every_dependency_has_an_upper_bound_that_the_installed_version_meets():
    requirements = _requirements()
    assert len(requirements) >= 18
    for requirement in requirements:
        uppers = [s for s in requirement.specifier if s.operator in ("<", "<=", "~=", "==")]
        assert uppers, f"{requirement} has no upper bound"
        try:
            installed = version(requirement.name)
        except PackageNotFoundError:
            pytest.fail(f"{requirement.name} is a dependency but is not installed")
        assert requirement.specifier.contains(installed, prereleases=True), \
            f"installed {requirement.name} {installed} is outside {requirement.specifier}"


def test_environment_yml_mirrors_pyproject():
    lines = (ROOT / "environment.yml").read_text().splitlines()
    conda = {}
    for line in lines:
        match = re.fullmatch(r"\s*-\s+([A-Za-z0-9_.\-]+)\s*([<>=!~].*)?", line)
        if match and match.group(1) not in ("pip", "python"):
            conda[match.group(1).lower()] = (match.group(2) or "").replace(" ", "")
    for requirement in _requirements():
        names = [CONDA_NAMES.get(requirement.name, requirement.name)]
        names += sorted(requirement.extras)  # dask[distributed]: conda lists distributed on its own
        for name in names:
            assert name.lower() in conda, f"{name} is in pyproject.toml but not in environment.yml"
            spec = conda[name.lower()]
            assert sorted(spec.split(",")) == sorted(str(requirement.specifier).split(",")), \
                f"environment.yml says {name}{spec}, pyproject.toml {requirement}"
