"""What a class needs to get the kit and the notebooks (issue 28.1), short of building a wheel (test_install.py):
the package list, where the notebooks are found and where outputs go, the install cell every notebook starts with,
the links written from the one place that names the repository, and ``evalkit notebooks copy``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from evalkit.batch.pipeline import default_base, notebook_paths, packaged_notebooks
from evalkit.classroom import links
from evalkit.classroom.handout import RECORD, CopyRefused, copy_notebooks

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = notebook_paths()


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"])


# ------------------------------------------------------------------------------------------ packaging


def test_setup_ships_every_package_and_maps_the_notebooks():
    """setup.py's package list is every folder of evalkit/ with an __init__.py, each folder of the batch's HTML
    templates, plus evalkit.notebooks mapped onto the top-level notebooks/ (whose *.ipynb pyproject.toml declares
    as package data, with the templates' files); its one extension, the compiled reader, is optional."""
    done = subprocess.run([sys.executable, "-c", "import setuptools, runpy; captured = {}; "
                           "setuptools.setup = lambda **kw: captured.update(kw); "
                           "runpy.run_path('setup.py'); "
                           "captured['ext_modules'] = [(e.name, e.sources, e.optional) for e in captured['ext_modules']]; "
                           "print(repr(captured))"],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    captured = eval(done.stdout)  # our own setup.py's keyword arguments
    on_disk = sorted(".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "evalkit").rglob("__init__.py"))
    templates = [f"evalkit.batch.templates.{p.name}" for p in (ROOT / "evalkit/batch/templates").iterdir() if p.is_dir()
                 and not p.name.startswith(("_", "."))]
    assert templates, "the batch's HTML export has its template folder"
    assert sorted(captured["packages"]) == sorted([*on_disk, *templates, "evalkit.notebooks"])
    assert captured["package_dir"] == {"evalkit.notebooks": "notebooks"}
    # the compiled reader: optional, so an install without a C compiler still succeeds (and builds in pure Python)
    assert captured["ext_modules"] == [("evalkit.data._native_runs", ["evalkit/data/_native_runs.c"], True)]
    assert (ROOT / "evalkit/data/_native_runs.c").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert config["tool"]["setuptools"]["package-data"]["evalkit.notebooks"] == ["*.ipynb"]
    assert "data/*.json" in config["tool"]["setuptools"]["package-data"]["evalkit"]
    assert "batch/templates/*/*" in config["tool"]["setuptools"]["package-data"]["evalkit"]
    assert "packages" not in config["tool"]["setuptools"], "the packages are listed in setup.py only"


def test_the_checkout_notebooks_are_found_and_outputs_go_beside_them_never_into_the_package(tmp_path, monkeypatch):
    assert packaged_notebooks() == ROOT / "notebooks"  # a checkout or an editable install
    assert default_base(ROOT / "notebooks") == ROOT  # outputs/ and solutions/ beside notebooks/, as before
    student = tmp_path / "lab" / "notebooks"
    student.mkdir(parents=True)
    assert default_base(student) == tmp_path / "lab"
    import evalkit

    monkeypatch.chdir(tmp_path)
    inside = Path(evalkit.__file__).parent / "notebooks"  # where a wheel puts them
    assert default_base(inside) == tmp_path  # the current folder, not site-packages


# ------------------------------------------------------------------------------------------ the install cell


def _install_cell(path: Path) -> tuple[int, dict]:
    cells = _cells(path)
    found = [(i, c) for i, c in enumerate(cells) if links.INSTALL_TAG in c["metadata"].get("tags", [])]
    assert len(found) == 1, f"{path.name}: {len(found)} cells tagged {links.INSTALL_TAG!r}, expected 1"
    return found[0]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_notebook_starts_with_the_install_cell_written_from_pyproject(path):
    index, cell = _install_cell(path)
    cells = _cells(path)
    first_code = next(i for i, c in enumerate(cells) if c["cell_type"] == "code")
    assert index == first_code == 1 and cells[0]["cell_type"] == "markdown", \
        f"{path.name}: the install cell must be the first code cell, right under the title"
    assert _source(cell) == links.install_cell_source(), \
        f"{path.name}: install cell differs from pyproject.toml's repository: python -m evalkit.classroom.links --write"
    assert "core" in cell["metadata"]["tags"]


def _run_install_cell(source: str, evalkit_importable: bool) -> list[tuple[str, str]]:
    """The cell as IPython runs it (magics transformed), with ``get_ipython`` recording the magics it calls and
    ``import evalkit`` failing or not."""
    from IPython.core.inputtransformer2 import TransformerManager

    code = TransformerManager().transform_cell(source)
    calls = []

    class Shell:
        def run_line_magic(self, name, line):
            calls.append((name, line))

    real_import = __builtins__["__import__"] if isinstance(__builtins__, dict) else __builtins__.__import__

    def fake_import(name, *args, **kwargs):
        if name == "evalkit" and not evalkit_importable and not calls:
            raise ModuleNotFoundError("No module named 'evalkit'")
        return real_import(name, *args, **kwargs)

    import builtins

    scope = {"get_ipython": lambda: Shell(), "__builtins__": {**vars(builtins), "__import__": fake_import}}
    exec(compile(code, "<install cell>", "exec"), scope)
    return calls


def test_the_install_cell_does_nothing_where_evalkit_imports_and_pip_installs_it_otherwise():
    source = links.install_cell_source()
    assert _run_install_cell(source, evalkit_importable=True) == []
    calls = _run_install_cell(source, evalkit_importable=False)
    repo = links.repository()
    assert calls == [("pip", f'install --quiet "evalkit @ git+{repo.url}@{repo.branch}"')]


def test_links_come_from_pyproject_and_the_docs_table_is_current(tmp_path):
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    repo = links.repository()
    assert repo.url == config["project"]["urls"]["Repository"] and repo.branch == config["tool"]["evalkit"]["branch"]
    assert repo.is_placeholder == (repo.url == links.PLACEHOLDER)
    doc = (ROOT / "docs" / "classroom.md").read_text()
    block = doc.split(links.LINKS_BEGIN, 1)[1].split(links.LINKS_END, 1)[0].strip()
    assert block == links.links_table([p.name for p in NOTEBOOKS], repo), \
        "docs/classroom.md's links are stale: python -m evalkit.classroom.links --write"
    if repo.is_placeholder:
        assert "placeholder" in doc and links.PLACEHOLDER in doc  # the docs say so honestly
    other = links.Repository("https://github.com/someone/kit.git", "dev")
    assert links.colab_url("00_tour.ipynb", other) == \
        "https://colab.research.google.com/github/someone/kit/blob/dev/notebooks/00_tour.ipynb"
    assert links.binder_url("00_tour.ipynb", other) == \
        "https://mybinder.org/v2/gh/someone/kit/dev?labpath=notebooks%2F00_tour.ipynb"
    with pytest.raises(ValueError, match="not a GitHub URL"):
        links.Repository("https://example.org/kit").github_path


def test_write_links_rewrites_every_copy_from_the_one_place(tmp_path):
    """A checkout whose pyproject names a new repository: the install cells and the docs table follow, a notebook
    without an install cell gets one under its title, and a second run changes nothing."""
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "docs").mkdir()
    text = (ROOT / "pyproject.toml").read_text().replace(links.PLACEHOLDER, "https://github.com/acme/evalkit")
    (tmp_path / "pyproject.toml").write_text(text)
    for path in NOTEBOOKS[:2]:
        (tmp_path / "notebooks" / path.name).write_text(path.read_text())
    bare = json.loads(NOTEBOOKS[0].read_text())
    bare["cells"] = [c for c in bare["cells"] if links.INSTALL_TAG not in c["metadata"].get("tags", [])]
    (tmp_path / "notebooks" / "07_new.ipynb").write_text(json.dumps(bare))
    (tmp_path / "docs" / "classroom.md").write_text(f"intro\n{links.LINKS_BEGIN}\nold\n{links.LINKS_END}\nend\n")
    changed = links.write_links(tmp_path)
    assert len(changed) == 4
    for path in sorted((tmp_path / "notebooks").glob("*.ipynb")):
        index, cell = _install_cell(path)
        assert index == 1 and "git+https://github.com/acme/evalkit@main" in _source(cell)
    doc = (tmp_path / "docs" / "classroom.md").read_text()
    assert doc.startswith("intro\n") and doc.endswith("end\n") and "github/acme/evalkit/blob/main" in doc
    assert links.write_links(tmp_path) == []


# ------------------------------------------------------------------------------------------ evalkit notebooks copy


def test_copy_writes_notebooks_and_solutions_and_refreshes_only_its_own_files(tmp_path):
    target = tmp_path / "lab"
    done = dict((p.relative_to(target).as_posix(), a) for p, a in copy_notebooks(target, solutions=True))
    assert set(done.values()) == {"written"}
    assert sorted(done) == sorted([f"notebooks/{p.name}" for p in NOTEBOOKS]
                                  + [f"solutions/{p.stem}_solutions.ipynb" for p in NOTEBOOKS])
    assert (target / "notebooks" / NOTEBOOKS[0].name).read_bytes() == NOTEBOOKS[0].read_bytes()
    solved = _cells(target / "solutions" / f"{NOTEBOOKS[0].stem}_solutions.ipynb")
    assert any("model-answers" in c["metadata"].get("tags", []) for c in solved)

    again = copy_notebooks(target, solutions=True)
    assert {a for _, a in again} == {"unchanged"}

    # a file this command wrote and nobody touched is refreshed when the kit's version differs
    record = json.loads((target / RECORD).read_text())
    old = b'{"cells": [], "old": true}'
    (target / "notebooks" / NOTEBOOKS[0].name).write_bytes(old)
    import hashlib

    record["files"][f"notebooks/{NOTEBOOKS[0].name}"] = hashlib.sha256(old).hexdigest()
    (target / RECORD).write_text(json.dumps(record))
    updated = dict((p.name, a) for p, a in copy_notebooks(target))
    assert updated[NOTEBOOKS[0].name] == "updated"
    assert (target / "notebooks" / NOTEBOOKS[0].name).read_bytes() == NOTEBOOKS[0].read_bytes()


def test_copy_never_overwrites_a_file_it_did_not_write_and_writes_nothing_then(tmp_path):
    target = tmp_path / "lab"
    (target / "notebooks").mkdir(parents=True)
    mine = target / "notebooks" / NOTEBOOKS[1].name
    mine.write_text("my own notes")
    with pytest.raises(CopyRefused, match=re.escape(f"notebooks/{NOTEBOOKS[1].name}") + ".*nothing was copied"):
        copy_notebooks(target)
    assert mine.read_text() == "my own notes"
    assert sorted(p.name for p in (target / "notebooks").iterdir()) == [NOTEBOOKS[1].name]
    assert not (target / RECORD).exists()

    copy_notebooks(tmp_path / "other", only=[NOTEBOOKS[0].stem])  # a copy the user then edits
    edited = tmp_path / "other" / "notebooks" / NOTEBOOKS[0].name
    edited.write_text(edited.read_text() + " ")
    with pytest.raises(CopyRefused, match="edited since"):
        copy_notebooks(tmp_path / "other")
    assert edited.read_text().endswith(" ")
    with pytest.raises(CopyRefused, match="where the notebooks come from"):
        copy_notebooks(ROOT)


def test_copy_from_the_command_line(tmp_path):
    from batch_helpers import run_cli

    done = run_cli("notebooks", "copy", tmp_path / "lab", "00_tour", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"written: {tmp_path / 'lab' / 'notebooks' / '00_tour.ipynb'}" in done.stdout
    (tmp_path / "lab" / "notebooks" / "00_tour.ipynb").write_text("mine")
    refused = run_cli("notebooks", "copy", tmp_path / "lab", cwd=tmp_path)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert refused.stderr.startswith("evalkit: error: ") and "00_tour.ipynb" in refused.stderr


def test_make_lab_solutions_writes_the_solutions_then_serves_them():
    """``make solutions`` writes solutions/, outside the notebooks/ that ``make lab`` serves to a class; ``make
    lab-solutions`` writes them and opens JupyterLab on that folder (a dry run: the commands make would run)."""
    import shutil

    if not shutil.which("make"):
        pytest.skip("make is not installed")
    done = subprocess.run(["make", "-n", "--no-print-directory", "-o", ".venv/.installed", "lab-solutions",
                           "BIN=/venv/bin", "LAB_ARGS=--no-browser"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    assert lines[0] == "/venv/bin/evalkit notebooks solutions"
    assert lines[1].startswith("/venv/bin/jupyter lab solutions/ ") and lines[1].endswith("--no-browser")
