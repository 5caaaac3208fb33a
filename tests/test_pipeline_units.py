"""The batch's parts without a kernel: parameters, output-folder safety, statuses, claims, widgets, sanitizing."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import nbformat
import pytest
from batch_helpers import HOSTILE_RUN, HOSTILE_TOPIC, write_notebook

from evalkit.batch.html_export import render_widget
from evalkit.batch.outputs import (
    MARKER,
    OutputFolderRefused,
    Staging,
    check_target,
    clean_stale,
    output_label,
    resolve_target,
)
from evalkit.batch.parameters import (
    collect_parameters,
    notebook_parameters,
    parse_value,
    route_parameters,
)
from evalkit.batch.report_page import claims_table, notebook_status
from evalkit.display.html_safety import sanitize_html

# -- parameters ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, value", [
    ("3", 3), ("-2", -2), ("0.25", 0.25), ("1e-3", 0.001), ("True", True), ("False", False), ("None", None),
    ("[5, 10, 20]", [5, 10, 20]), ("['a','b']", ["a", "b"]), ("pool15", "pool15"), ("true", "true"),
    ("1_000", "1_000"), ("", ""), ("two words", "two words"), ("3.", 3.0),
])
def test_values_are_read_like_papermill_p(text, value):
    parsed = parse_value(text)
    assert parsed == value and type(parsed) is type(value)


def test_a_broken_list_is_an_error_not_a_string():
    with pytest.raises(ValueError, match=r"\[pool15, pool25\]' looks like a list but is not a Python literal"):
        parse_value("[pool15, pool25]")


def test_parameters_from_p_pairs_and_a_make_string():
    given = collect_parameters([["k", "3"]], "phase1_depth=5 name='two words' depths=[5,10]")
    assert given == {"k": 3, "phase1_depth": 5, "name": "two words", "depths": [5, 10]}


@pytest.mark.parametrize("pairs, text, message", [
    ([["k", "3"], ["k", "4"]], "", "'k' given twice, as 3 and 4"),
    ([], "k", "'k' is not NAME=VALUE"),
    ([], "dataset=x", "use --dataset"),
    ([["fast", "True"]], "", "use --fast"),
    ([["2k", "1"]], "", "is not a parameter name"),
    ([], "name='unclosed", "No closing quotation"),
])
def test_bad_parameters_are_refused_by_name(pairs, text, message):
    with pytest.raises(ValueError, match=message):
        collect_parameters(pairs, text)


def test_parameters_go_to_the_notebooks_that_have_them(tmp_path):
    first = write_notebook(tmp_path / "01_a.ipynb", parameters="dataset = 'x'\nfast = False\nk: int = 10  # runs\n")
    second = write_notebook(tmp_path / "02_b.ipynb", parameters="dataset = 'x'\nfast = False\nphase1_depth = 10")
    found = {p.stem: notebook_parameters(p) for p in (first, second)}
    assert found["01_a"] == {"dataset": "'x'", "fast": "False", "k": "10"}
    routes = route_parameters({"k": 3}, found)
    assert routes == {"01_a": ({"k": 3}, []), "02_b": ({}, ["k"])}
    with pytest.raises(ValueError, match=r"unknown notebook parameter nope: .*known: k, phase1_depth$"):
        route_parameters({"k": 3, "nope": 1}, found)


def test_a_broken_parameters_cell_names_the_notebook(tmp_path):
    path = write_notebook(tmp_path / "01_a.ipynb", parameters="k = (")
    with pytest.raises(ValueError, match=r"01_a.ipynb: its parameters cell is not valid Python"):
        notebook_parameters(path)


# -- output folders --------------------------------------------------------------------------------------------------

def test_labels_are_names_never_paths(tmp_path, monkeypatch):
    (tmp_path / "some" / "dir").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "some" / "dir")
    assert output_label("..") == "some"
    assert output_label(".") == "dir"
    assert output_label("/") == "dataset"
    assert output_label(str(tmp_path / "some" / "dir" / "..")) == "some"
    assert output_label("synthetic", fast=True) == "synthetic-fast"
    assert output_label(str(tmp_path / "my <b>data set")) == "my_b_data_set"
    assert output_label(str(tmp_path / ".hidden")) == "hidden"


@pytest.mark.parametrize("where", [".", "..", "/", "checkout"])
def test_existing_folders_without_the_marker_are_refused(tmp_path, monkeypatch, where):
    (tmp_path / "checkout").mkdir()
    monkeypatch.chdir(tmp_path / "checkout")
    target = resolve_target(tmp_path / "checkout" if where == "checkout" else where)
    with pytest.raises(OutputFolderRefused, match="was not made by evalkit"):
        check_target(target)


def test_a_symlink_pointing_outside_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / MARKER).write_text("{}")  # even one that looks like the kit's
    (tmp_path / "outputs").mkdir()
    link = tmp_path / "outputs" / "x"
    link.symlink_to(outside)
    with pytest.raises(OutputFolderRefused, match="symbolic link"):
        resolve_target(link)
    with pytest.raises(OutputFolderRefused, match="symbolic link"):
        check_target(link)


def test_a_file_is_refused_and_a_marked_folder_or_nothing_accepted(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputFolderRefused, match="not a folder"):
        check_target(tmp_path / "file")
    check_target(tmp_path / "absent")
    (tmp_path / "ours").mkdir()
    (tmp_path / "ours" / MARKER).write_text("{}")
    check_target(tmp_path / "ours")


def test_publish_replaces_only_a_marked_folder_and_discard_leaves_it(tmp_path):
    target = tmp_path / "outputs" / "x"
    with Staging(target) as staging:
        (staging.path / "index.html").write_text("first")
        staging.publish()
    assert (target / "index.html").read_text() == "first" and (target / MARKER).is_file()
    assert oct(target.stat().st_mode & 0o777) != oct(0o700)  # readable like any folder the user makes
    with Staging(target) as staging:
        (staging.path / "index.html").write_text("interrupted")
        raise_here = staging.path
    assert not raise_here.exists() and (target / "index.html").read_text() == "first"
    with Staging(target) as staging:
        (staging.path / "index.html").write_text("second")
        staging.publish()
    assert (target / "index.html").read_text() == "second"
    assert sorted(p.name for p in target.parent.iterdir()) == ["x"]  # no staging or old folder left
    (target / MARKER).unlink()  # someone else's folder now
    with pytest.raises(OutputFolderRefused):
        with Staging(target) as staging:
            staging.publish()
    assert (target / "index.html").read_text() == "second"


def test_files_the_user_added_or_changed_keep_a_kit_folder_from_being_replaced(tmp_path):
    """A folder the kit made holds what the kit wrote; a reviewer's notes put beside the report, or a page of it
    edited, are not the kit's to delete: the next publish is refused naming them, and the folder is as it was."""
    target = tmp_path / "outputs" / "x"
    with Staging(target) as staging:
        (staging.path / "index.html").write_text("first")
        (staging.path / "figures").mkdir()
        (staging.path / "figures" / "f.png").write_bytes(b"png")
        staging.publish()
    check_target(target)  # as the kit left it: replaceable
    (target / ".ipynb_checkpoints").mkdir()  # JupyterLab opened a notebook of the report: still replaceable
    (target / ".ipynb_checkpoints" / "x-checkpoint.ipynb").write_text("{}")
    check_target(target)

    (target / "my_notes.md").write_text("mine")
    (target / "figures" / "mine").mkdir()
    with pytest.raises(OutputFolderRefused, match=r"not written by evalkit: figures/mine, my_notes.md\)"):
        check_target(target)
    with pytest.raises(OutputFolderRefused, match="my_notes.md"):
        with Staging(target) as staging:
            (staging.path / "index.html").write_text("second")
            staging.publish()
    assert (target / "my_notes.md").read_text() == "mine" and (target / "index.html").read_text() == "first"
    assert sorted(p.name for p in target.parent.iterdir()) == ["x"]

    (target / "my_notes.md").unlink()
    (target / "figures" / "mine").rmdir()
    check_target(target)
    (target / "index.html").write_text("edited by hand")
    with pytest.raises(OutputFolderRefused, match=r"changed since evalkit wrote them: index.html\)"):
        check_target(target)


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_leftovers_of_dead_batches_are_cleaned_and_nothing_else(tmp_path):
    dead, alive = _dead_pid(), os.getpid()
    leftovers = {
        f".x.evalkit-staging-{dead}-abc": ".evalkit-staging",  # killed batch: removed
        f".x.evalkit-staging-{alive}-abc": ".evalkit-staging",  # running batch: kept
        f".y.evalkit-staging-{dead}-abc": None,  # looks like ours, no marker: kept
        f".z.evalkit-old-{dead}-abc": MARKER,  # swap interrupted, z missing: put back
    }
    for name, marker in leftovers.items():
        (tmp_path / name).mkdir()
        if marker:
            (tmp_path / name / marker).write_text(json.dumps({"pid": 0}))
    (tmp_path / "mine").mkdir()
    handled = clean_stale(tmp_path)
    assert len(handled) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f".x.evalkit-staging-{alive}-abc", f".y.evalkit-staging-{dead}-abc", "mine", "z"])


# -- statuses, claims, widgets, sanitizing ---------------------------------------------------------------------

def _executed(outputs_per_cell, metadata=None):
    notebook = nbformat.v4.new_notebook(metadata=metadata or {})
    for outputs in outputs_per_cell:
        cell = nbformat.v4.new_code_cell("x")
        cell.outputs = outputs
        notebook.cells.append(cell)
    return notebook


def test_status_is_read_from_the_error_output():
    needs = nbformat.v4.new_output("error", ename="NeedsNotMet", evalue="This notebook needs 2 runs.", traceback=[])
    other = nbformat.v4.new_output("error", ename="ZeroDivisionError", evalue="division by zero", traceback=[])
    assert notebook_status(_executed([[]])) == ("ok", "")
    assert notebook_status(_executed([[], [needs]])) == ("skipped", "This notebook needs 2 runs.")
    assert notebook_status(_executed([[other]])) == ("failed", "ZeroDivisionError: division by zero")


def test_claims_keep_every_field_and_blank_the_missing():
    from evalkit.claims import CLAIMS_MIME

    rows_a = [{"paper": "P", "claim": "c1", "paper_value": "0.8", "kit_value": "0.7", "agrees": "yes",
               "paper_dataset": "TB06"}]
    rows_b = [{"paper": "Q", "claim": "c2", "kit_value": "1", "verdict": "not comparable", "extra": 5}]
    output = lambda rows: nbformat.v4.new_output("display_data", data={CLAIMS_MIME: rows})  # noqa: E731
    table = claims_table({"01_a": _executed([[output(rows_a)]]), "02_b": _executed([[output(rows_b)]])})
    assert list(table.columns) == ["notebook", "paper", "claim", "paper_value", "paper_dataset", "kit_value",
                                   "verdict", "agrees", "extra"]
    assert table.loc[1, "paper_dataset"] == "" and table.loc[1, "extra"] == "5" and table.loc[0, "extra"] == ""


def test_a_tqdm_widget_is_drawn_from_its_saved_state():
    models = {
        "box": {"model_name": "HBoxModel", "state": {"children": ["IPY_MODEL_left", "IPY_MODEL_bar", "IPY_MODEL_r"]}},
        "left": {"model_name": "HTMLModel", "state": {"value": f"{HOSTILE_RUN}: 100%"}},
        "bar": {"model_name": "FloatProgressModel", "state": {"value": 3, "max": 4, "bar_style": "success"}},
        "r": {"model_name": "HTMLModel", "state": {"value": " 3/4 [00:01&lt;00:00]"}},
        "slider": {"model_name": "IntSliderModel", "state": {"value": 10, "description": "pool <i>depth</i>"}},
    }
    drawn = render_widget("box", models)
    assert "width:75.0%" in drawn and "3/4 [00:01&lt;00:00]" in drawn
    assert "<script>" not in drawn and "&lt;script&gt;" in drawn
    assert render_widget("slider", models) == ('<span class="evalkit-control"><span class="evalkit-widget-label">'
                                               "pool &lt;i&gt;depth&lt;/i&gt;</span> <b>10</b></span>")
    assert render_widget("missing", models) == ""


@pytest.mark.parametrize("fragment, kept, gone", [
    (f"<th>{HOSTILE_TOPIC}</th>", "&lt;svg/onload=alert(13)&gt;", "<svg"),
    (f"<td>{HOSTILE_RUN}</td>", "&lt;script&gt;", "<script"),
    ('<p onclick="steal()">x</p>', "<p>x</p>", "onclick"),
    ('<a href="javascript:alert(1)">x</a>', "<a>x</a>", "javascript"),
    ('<img src="https://tracker.example/x.png">', "<img>", "tracker"),
    ('<img src="data:image/png;base64,AAAA">', 'src="data:image/png;base64,AAAA"', "<script"),
    ('<style>.x{color:red}</style><table id="T_1"><tr><td class="data">1</td></tr></table>',
     '<style>.x{color:red}</style><table id="T_1"><tbody><tr><td class="data">1</td></tr></tbody></table>', "&lt;"),
    ('<iframe src="x"></iframe>', "&lt;iframe", "<iframe"),
])
def test_sanitizing_escapes_what_is_not_the_kits_markup(fragment, kept, gone):
    cleaned = sanitize_html(fragment)
    assert kept in cleaned and gone not in cleaned


def test_a_signal_during_the_swap_arrives_after_it():
    import signal

    from evalkit.batch.outputs import _signals_held

    order = []
    # the handlers the held signals go back to, set here: a handler left by other code in this process (SIG_IGN for
    # SIGINT, say) would otherwise decide what the second block does
    previous = {signal.SIGTERM: signal.signal(signal.SIGTERM, lambda number, frame: order.append(f"handler {number}")),
                signal.SIGINT: signal.signal(signal.SIGINT, signal.default_int_handler)}
    try:
        with _signals_held():
            signal.raise_signal(signal.SIGTERM)  # to this thread, handled before the block goes on
            order.append("swap done")
        with pytest.raises(KeyboardInterrupt):
            with _signals_held():
                signal.raise_signal(signal.SIGINT)
                order.append("second swap done")
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    assert order == ["swap done", f"handler {int(signal.SIGTERM)}", "second swap done"]


@pytest.mark.parametrize("verdict, css, category", [
    ("yes", "v-yes", "yes"),
    ("no", "v-no", "no"),
    ("direction only: no", "v-no", "direction only: no"),
    ("direction only: partly", "v-partly", "direction only: partly"),
    ("withheld: 3 runs (< 10)", "v-na", "withheld"),
    ("not rated: NaN", "v-na", "not rated"),
    ("not comparable", "v-na", "not comparable"),
    ("not rated: degenerate (sampling rate 1.0 on 30 of 30 topics)", "v-na", "not rated"),
    ("not rated at class size (10 samples per p)", "v-na", "not rated"),
    ("inconclusive (0.01 [-0.02, 0.04] (95% bootstrap over 300 trials))", "v-inc", "inconclusive"),
    ("direction only: inconclusive", "v-inc", "direction only: inconclusive"),
    ("", "v-none", ""),
])
def test_report_colours_and_counts_every_verdict_of_evalkit_report(verdict, css, category):
    from evalkit.batch.report_page import _verdict_class
    from evalkit.claims import verdict_category as _verdict_category

    assert _verdict_class(verdict) == css
    assert _verdict_category(verdict) == category


def test_plots_setup_makes_styler_tables_escape_input_text():
    """Interactive sessions (JupyterLab, not the batch) call evalkit.display.plots.setup() first: a hostile topic id in a
    Styler table must render as text there too."""
    import pandas as pd

    from evalkit.display import plots
    hostile = "<svg/onload=alert(13)>"
    with pd.option_context("styler.format.escape", None):
        plots.setup()
        html = pd.DataFrame({"topic": [hostile], "AP": [0.5]}).style.to_html()
    assert hostile not in html and "&lt;svg/onload=alert(13)&gt;" in html
