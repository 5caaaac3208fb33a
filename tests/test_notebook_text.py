"""No Markdown cell of any notebook holds a control character (issue 13: notebook 05's Markdown held a literal
backspace where ``\\bar`` was meant, a Python string's ``"\\b"``; MathJax showed "Math input error").

Allowed: newline and tab. Anything else below 0x20, and DEL (0x7f), is reported with the notebook, the cell index
and id, the line and the character's code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p for p in (ROOT / "notebooks").glob("**/*.ipynb") if ".ipynb_checkpoints" not in p.parts)
ALLOWED = {"\n", "\t"}


def is_control(character: str) -> bool:
    return (ord(character) < 0x20 and character not in ALLOWED) or character == "\x7f"


def markdown_control_characters(path: Path) -> list[str]:
    """One line per control character in the notebook's Markdown cells: where it is and what it is."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    found = []
    for index, cell in enumerate(cells):
        if cell.get("cell_type") != "markdown":
            continue
        source = cell.get("source", "")
        text = source if isinstance(source, str) else "".join(source)
        for line_number, line in enumerate(text.split("\n"), start=1):
            for column, character in enumerate(line, start=1):
                if is_control(character):
                    cell_id = f" (id {cell['id']})" if cell.get("id") else ""
                    context = line[max(0, column - 20): column + 20]
                    found.append(f"{path.name}: Markdown cell {index}{cell_id}, line {line_number}, column {column}: "
                                 f"control character U+{ord(character):04X} in {context!r}")
    return found


def test_there_are_notebooks_to_check():
    assert NOTEBOOKS, "no notebooks found under notebooks/"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_markdown_cells_hold_no_control_characters(notebook):
    found = markdown_control_characters(notebook)
    assert not found, "\n".join(found)


def test_the_check_finds_a_backspace_and_says_where(tmp_path):
    """A hand-made notebook with the fault notebook 05 had (``"\\bar"`` written from a Python string) and others."""
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# Clean\n\nTabs\tand newlines are fine: $\\bar W$."),
        nbformat.v4.new_code_cell("x = '\b'  # code cells are not checked"),
        nbformat.v4.new_markdown_cell("The mean $\bar W$ of the\nbins, a bell \x07, a DEL \x7f and a CR\r\n."),
    ]
    path = tmp_path / "99_faulty.ipynb"
    nbformat.write(notebook, str(path))

    found = markdown_control_characters(path)
    assert len(found) == 4, found
    assert found[0].startswith(f"99_faulty.ipynb: Markdown cell 2 (id {notebook.cells[2].id}), line 1, column 11: "
                               "control character U+0008")
    assert [line.split("control character ")[1][:6] for line in found] == ["U+0008", "U+0007", "U+007F", "U+000D"]
    assert "line 2" in found[1]
    with pytest.raises(AssertionError, match="Markdown cell 2"):
        test_markdown_cells_hold_no_control_characters(path)
