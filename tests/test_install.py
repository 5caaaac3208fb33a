"""The kit as a student without a clone gets it (issue 28.1): a wheel, installed into a fresh virtual environment
outside the checkout, with its dependencies.

One test, in the order a student goes: build the wheel from the checkout (``pip wheel``, as ``pip install .`` or
``pip install git+URL`` build it), install it with its dependencies (from pip's cache when they were downloaded
before) into a new venv in the temporary folder, then, from a folder that is not the checkout and with nothing
pointing back at it (no ``PYTHONPATH``, no ``EVALKIT_NOTEBOOKS``, a new ``EVALKIT_CACHE``): the simulated
collection loads (its parameters ship in the package), ``evalkit notebooks copy`` writes the notebooks and the
solutions out, the tour runs from the installed package and a paper notebook from the copy, in fast mode on the
synthetic collection, and ``evalkit notebooks solutions`` writes into the current folder. The build and install
times are printed (``pytest -s``) and kept as test properties.

Marked ``install`` (``pytest -m "not install"`` leaves it out); CI runs it: a few minutes, most of it the install.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.install

ROOT = Path(__file__).resolve().parents[1]
PAPER_NOTEBOOK = "03_voorhees2014_sampling_strategies"  # the quickest paper notebook in fast mode


def _run(command, cwd, env, timeout=900):
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, (f"{' '.join(map(str, command))} exited {done.returncode}:\n"
                                  f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def _clean_environment(tmp_path: Path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "EVALKIT_NOTEBOOKS", "VIRTUAL_ENV", "PYTHONHOME", "EVALKIT_BATCH")}
    env.update(EVALKIT_CACHE=str(tmp_path / "cache"), EVALKIT_DATA=str(tmp_path / "no-data-here"),
               PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONNOUSERSITE="1")
    return env


def test_the_wheel_installs_outside_the_checkout_and_runs_the_notebooks(tmp_path, record_property):
    assert ROOT not in tmp_path.resolve().parents, "the temporary folder must lie outside the checkout"
    env = _clean_environment(tmp_path)

    started = time.perf_counter()
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", tmp_path / "dist", ROOT], tmp_path, env)
    build_seconds = time.perf_counter() - started
    wheel = next((tmp_path / "dist").glob("evalkit-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    shipped = sorted(n.rsplit("/", 1)[1] for n in names if n.startswith("evalkit/notebooks/"))
    assert shipped == sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert "evalkit/data/synthetic_trec8_params.json" in names
    templates = ROOT / "evalkit" / "batch" / "templates"  # the batch's HTML export reads them from the package
    assert sorted(p.relative_to(ROOT).as_posix() for p in templates.glob("*/*")) == \
        sorted(n for n in names if n.startswith("evalkit/batch/templates/"))

    started = time.perf_counter()
    _run([sys.executable, "-m", "venv", tmp_path / "venv"], tmp_path, env)
    python = tmp_path / "venv" / "bin" / "python"
    _run([python, "-m", "pip", "install", "--quiet", "--progress-bar", "off", f"evalkit @ {wheel.as_uri()}"],
         tmp_path, env, timeout=1800)
    install_seconds = time.perf_counter() - started
    print(f"\nwheel built in {build_seconds:.1f} s ({wheel.stat().st_size / 1e6:.1f} MB); fresh venv with the wheel "
          f"and its dependencies in {install_seconds:.1f} s (load average {os.getloadavg()[0]:.1f})")
    record_property("wheel_build_seconds", round(build_seconds, 1))
    record_property("venv_install_seconds", round(install_seconds, 1))

    work = tmp_path / "student"
    work.mkdir()
    evalkit = tmp_path / "venv" / "bin" / "evalkit"
    where = _run([python, "-c", "import evalkit, evalkit.batch.pipeline as p; print(evalkit.__file__); "
                                "print(p.NOTEBOOK_DIR); c = evalkit.load_dataset('synthetic', fast=True); "
                                "print(c.n_runs, c.n_topics)"], work, env).stdout.split("\n")
    site = tmp_path / "venv" / "lib"
    assert Path(where[0]).is_relative_to(site) and Path(where[1]).is_relative_to(site), where
    assert where[2] == "40 20", where  # the small simulated collection, from the packaged parameters

    copied = _run([evalkit, "notebooks", "copy", "lab", "--solutions"], work, env).stdout
    assert (work / "lab" / "notebooks" / "00_tour.ipynb").is_file(), copied
    assert (work / "lab" / "solutions" / f"{PAPER_NOTEBOOK}_solutions.ipynb").is_file(), copied

    _run([evalkit, "notebooks", "run", "00_tour", "--dataset", "synthetic", "--fast"], work, env)
    record = json.loads((work / "outputs" / "synthetic-fast" / "batch.json").read_text())
    assert [n["status"] for n in record["notebooks"]] == ["ok"], record["notebooks"]
    _run([evalkit, "notebooks", "run", PAPER_NOTEBOOK, "--dataset", "synthetic", "--fast", "--notebooks",
          "lab/notebooks", "--out", "paper-out"], work, env)
    record = json.loads((work / "paper-out" / "batch.json").read_text())
    assert [n["status"] for n in record["notebooks"]] == ["ok"], record["notebooks"]

    _run([evalkit, "notebooks", "solutions"], work, env)
    assert sorted(p.name for p in (work / "solutions").glob("*.ipynb")) == \
        sorted(f"{name[:-6]}_solutions.ipynb" for name in shipped)
    assert not list((tmp_path / "venv" / "lib").glob("python*/site-packages/evalkit/outputs")), \
        "the batch wrote into site-packages"
