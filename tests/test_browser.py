"""A student's view, in a real browser (issue 13, "Tests and proof" and item 7).

Debian's Chromium (``/usr/bin/chromium``, or ``$EVALKIT_CHROMIUM``) driven by Playwright for Python:

* ``make lab`` starts JupyterLab on a temporary copy of the notebook that has the tour's pool-depth slider (as root
  the Makefile adds ``--allow-root``: this is the check that it does), the browser runs every cell from the Run menu
  on the synthetic collection in fast mode, no cell may end in an error, and moving the slider from the keyboard
  must redraw the figure (a different PNG).
* The report pages the batch exports (``evalkit.batch.report_page.write_report``) of every notebook with formulas open
  from ``file://`` with every non-file request aborted, and MathJax typesets their formulas: no raw TeX left
  visible, no TeX error box (a page loading MathJax from the web, as the stock template does, fails the check).

Screenshots go to ``$EVALKIT_SCREENSHOTS`` (default: a new ``evalkit-screenshots-*`` folder in the system's
temporary folder) and their paths are listed at the end of the pytest run. Both tests skip, saying why, when Chromium or Playwright is absent; ``.ci/run`` installs
Chromium with apt-get when it runs as root.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
CHROMIUM = Path(os.environ.get("EVALKIT_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SLIDER_CALL = re.compile(r"\bpool_depth_explorer\(")  # evalkit.display.widgets' IntSlider over the pool depth (the tour)
LONG_CELL_TAG = "long-running"  # a cell that can run over 10 s and must show a moving progress bar (issue 28.3)
PROGRESS_NOTEBOOKS = ("03", "04", "05")  # the notebooks whose long cells the issue names
PROGRESS_RUN_SECONDS = 900  # the class preset up to and through the long cell, on a busy machine
SERVER_START_SECONDS = 90
RUN_ALL_SECONDS = 180
REDRAW_SECONDS = 60


def _playwright_or_skip():
    if os.environ.get("EVALKIT_BROWSER_UNAVAILABLE"):
        pytest.skip(os.environ["EVALKIT_BROWSER_UNAVAILABLE"])
    if not CHROMIUM.is_file():
        pytest.skip(f"Chromium not found at {CHROMIUM}: on Debian `apt-get install -y chromium` (.ci/run does "
                    "when it runs as root), or set EVALKIT_CHROMIUM to a Chromium binary")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright for Python is not installed (it is in the test extra: make install)")
    return sync_playwright


@pytest.fixture(scope="module")
def browser():
    sync_playwright = _playwright_or_skip()
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def screenshot_folder():
    """Gives ``$EVALKIT_SCREENSHOTS``, else a new ``evalkit-screenshots-*`` folder in the system's temporary folder,
    made on first use (a skipped run leaves nothing): not under pytest's basetemp, whose last three runs only are
    kept (another pytest run of the same account would delete the screenshots before anyone looked at them)."""
    import tempfile

    made: list[Path] = []

    def folder() -> Path:
        if not made:
            base = os.environ.get("EVALKIT_SCREENSHOTS")
            made.append(Path(base) if base else Path(tempfile.mkdtemp(prefix="evalkit-screenshots-")))
        return made[0]

    return folder


@pytest.fixture
def screenshots(request, screenshot_folder):
    """Takes this test's screenshots; their paths are listed at the end of the run."""
    folder = screenshot_folder() / request.node.name
    folder.mkdir(parents=True, exist_ok=True)
    taken: list[Path] = []

    def take(locator_or_page, name: str, **options) -> Path:
        path = folder / name
        locator_or_page.screenshot(path=str(path), **options)
        taken.append(path)
        print(f"screenshot: {path}")
        return path

    yield take
    from conftest import SCREENSHOTS

    request.config.stash.setdefault(SCREENSHOTS, []).extend(f"{request.node.nodeid}: {p}" for p in taken)


# -- which notebook ----------------------------------------------------------------------------------------------

def _code(notebook_path: Path) -> str:
    cells = json.loads(notebook_path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def slider_notebook() -> Path:
    """The notebook that shows the tour's pool-depth slider (found by what it calls, not by its file name), or
    ``$EVALKIT_BROWSER_NOTEBOOK``."""
    if os.environ.get("EVALKIT_BROWSER_NOTEBOOK"):
        return Path(os.environ["EVALKIT_BROWSER_NOTEBOOK"]).resolve()
    found = sorted(p for p in NOTEBOOKS.glob("**/*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts and SLIDER_CALL.search(_code(p)))
    assert found, f"no notebook under {NOTEBOOKS} calls {SLIDER_CALL.pattern}: which one has the slider now?"
    return found[0]


def formula_count(path: Path) -> int:
    """Inline or display formulas in the notebook's Markdown cells."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return len(re.findall(r"\$[^$\n]+\$", text))


def math_notebooks() -> list[Path]:
    """The notebooks whose Markdown holds formulas, most formulas first."""
    counted = sorted(((formula_count(p), p.name, p) for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")), reverse=True)
    found = [p for n, _, p in counted if n > 0]
    assert found, f"no notebook in {NOTEBOOKS} has a formula in its Markdown"
    return found


def fast_copy(source: Path, target: Path, parameters: dict | None = None) -> Path:
    """``source`` with papermill's injected-parameters cell (synthetic collection, fast mode, or ``parameters``)
    written to ``target`` (the notebooks are never touched)."""
    import nbformat
    from papermill.iorw import load_notebook_node
    from papermill.parameterize import parameterize_notebook

    notebook = load_notebook_node(str(source))
    notebook = parameterize_notebook(notebook, parameters or {"dataset": "synthetic", "fast": True},
                                     kernel_name="python3", language="python")
    notebook.metadata.setdefault("kernelspec", {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                                "language": "python"})  # else JupyterLab asks which kernel
    nbformat.write(notebook, str(target))
    return target


# -- JupyterLab through `make lab` --------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _lab_command(folder: Path, port: int, token: str) -> list[str]:
    """``make lab`` in ``folder`` (a copy of the Makefile beside ``notebooks/``), run with this interpreter's
    Jupyter and without reinstalling; only LAB_ARGS are ours. Without make: the command the Makefile runs."""
    lab_args = ["--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={token}", "--LabApp.news_url=None",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    bin_dir = Path(sys.executable).parent
    make = shutil.which("make")
    if make and (bin_dir / "jupyter").is_file():
        shutil.copy2(ROOT / "Makefile", folder / "Makefile")
        return [make, "--no-print-directory", "-o", ".venv/.installed", "lab", f"BIN={bin_dir}",
                "LAB_ARGS=" + " ".join(lab_args)]
    root = ["--allow-root"] if hasattr(os, "getuid") and os.getuid() == 0 else []
    return [sys.executable, "-m", "jupyter", "lab", "notebooks/", *root, *lab_args]


def _quiet_lab_environment(folder: Path) -> dict:
    """Jupyter's config, data, runtime, settings and workspaces in ``folder``: nothing read from or left in the
    user's, the news toast off, and not in batch mode (widgets live)."""
    settings = folder / "lab-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false", "checkForUpdates": false}')
    notebook_settings = folder / "lab-settings" / "@jupyterlab" / "notebook-extension"
    notebook_settings.mkdir(parents=True)  # every cell in the page, in order (no windowing): cells are found by index
    (notebook_settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    environment = {k: v for k, v in os.environ.items() if k != "EVALKIT_BATCH"}
    environment.update({
        "JUPYTER_CONFIG_DIR": str(folder / "jupyter-config"), "JUPYTER_DATA_DIR": str(folder / "jupyter-data"),
        "JUPYTER_RUNTIME_DIR": str(folder / "jupyter-runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(folder / "lab-settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(folder / "lab-workspaces"), "PYTHONUNBUFFERED": "1",
    })
    return environment


@contextmanager
def jupyter_lab(folder: Path):
    """JupyterLab serving ``folder/notebooks`` on a free localhost port: yields (base URL, token, command, log)."""
    token, port = secrets.token_hex(16), _free_port()
    command = _lab_command(folder, port, token)
    log_path = folder / "jupyter-lab.log"
    base = f"http://127.0.0.1:{port}"
    with open(log_path, "wb") as log:
        server = subprocess.Popen(command, cwd=folder, env=_quiet_lab_environment(folder), stdout=log,
                                  stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while True:
            if server.poll() is not None:
                pytest.fail(f"{' '.join(command[:4])} … exited ({server.returncode}) before serving:\n"
                            + log_path.read_text(errors="replace")[-3000:])
            try:
                request = urllib.request.Request(f"{base}/api/status", headers={"Authorization": f"token {token}"})
                with urllib.request.urlopen(request, timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not answer on {base} within {SERVER_START_SECONDS} s:\n"
                                + log_path.read_text(errors="replace")[-3000:])
                time.sleep(0.3)
        yield base, token, command, log_path
    finally:
        try:  # the server stops its kernels on the way out
            urllib.request.urlopen(urllib.request.Request(f"{base}/api/shutdown", method="POST",
                                                          headers={"Authorization": f"token {token}"}), timeout=5)
        except OSError:
            pass
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGTERM)  # our own process group (start_new_session)
            server.wait(timeout=10)


# -- the checks ----------------------------------------------------------------------------------------------------

_LOCAL = ("http://127.0.0.1:", "ws://127.0.0.1:", "data:", "blob:", "about:")
_RUN_ALL_ENDED = """() => {
  const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputArea-prompt')]
      .map(e => e.textContent.trim());
  if (prompts.length === 0 || prompts.some(t => t === '[*]:')) return false;
  if (prompts.every(t => /^\\[\\d+\\]:$/.test(t))) return true;
  return [...document.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
      .some(e => /Traceback|^\\w*Error\\b/m.test(e.textContent));  // run-all stops at an error
}"""


def _block_the_network(context, allowed=_LOCAL) -> list[str]:
    """Abort every request outside ``allowed``; returns the list the aborted URLs are appended to."""
    blocked: list[str] = []

    def route(route):
        url = route.request.url
        if url.startswith(allowed):
            route.continue_()
        else:
            blocked.append(url)
            route.abort()

    context.route("**/*", route)
    return blocked


def _figure_src(cell) -> str:
    images = cell.locator(".jp-OutputArea-output img")
    return images.last.get_attribute("src") if images.count() else ""


def _saved_notebook(page, path: Path, modified_before: int, seconds: float = 30) -> dict:
    """The notebook as the browser saved it: waits until the file changed and holds executed cells.

    Waits with ``page.wait_for_timeout``, not ``time.sleep``: the network route that blocks outside requests is
    served by this thread, and a sleeping thread holds the save request (seen: "Saving started" for 30 s)."""
    deadline = time.monotonic() + seconds
    while True:
        if path.stat().st_mtime_ns != modified_before:
            try:
                saved = json.loads(path.read_text(encoding="utf-8"))
            except ValueError:  # being written
                saved = None
            if saved and any(c.get("execution_count") for c in saved["cells"] if c["cell_type"] == "code"):
                return saved
        assert time.monotonic() < deadline, f"{path.name} was not saved from the browser within {seconds} s"
        page.wait_for_timeout(300)


def test_notebook_runs_in_jupyterlab_and_the_slider_redraws_the_figure(browser, tmp_path, screenshots):
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    source = slider_notebook()
    folder = tmp_path / "lab"
    (folder / "notebooks").mkdir(parents=True)
    notebook = fast_copy(source, folder / "notebooks" / source.name)
    with jupyter_lab(folder) as (base, token, command, log_path):
        if command[0].endswith("make") and hasattr(os, "getuid") and os.getuid() == 0:
            assert "--allow-root" in log_path.read_text(errors="replace").splitlines()[0], \
                "make lab as root did not pass --allow-root"
        context = browser.new_context(viewport={"width": 1280, "height": 1000})
        blocked = _block_the_network(context, _LOCAL)
        page = context.new_page()
        page.set_default_timeout(REDRAW_SECONDS * 1000)
        page.goto(f"{base}/lab/tree/{notebook.name}?token={token}")
        kernel_idle = page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"\| Idle$"))
        kernel_idle.wait_for(timeout=SERVER_START_SECONDS * 1000)

        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
        page.wait_for_function(_RUN_ALL_ENDED, timeout=RUN_ALL_SECONDS * 1000)
        kernel_idle.wait_for(timeout=RUN_ALL_SECONDS * 1000)
        screenshots(page, "1-after-run-all.png")

        saved_before = notebook.stat().st_mtime_ns
        page.locator(".jp-NotebookPanel-toolbar [data-command='docmanager:save']").first.click()  # the saved
        # file is the record of what each cell output
        try:
            saved = _saved_notebook(page, notebook, saved_before)
        except AssertionError:
            screenshots(page, "save-failed.png")
            raise
        errors = [(i, "".join(c["source"]).split("\n")[0][:60], o.get("ename"), o.get("evalue"))
                  for i, c in enumerate(saved["cells"]) for o in c.get("outputs", []) if o.get("output_type") == "error"]
        assert not errors, (f"{source.name} in JupyterLab: cells ending in an error (cell index in the copy with "
                            f"papermill's injected-parameters cell, first line, error, message): {errors}")
        not_run = [i for i, c in enumerate(saved["cells"]) if c["cell_type"] == "code" and not c.get("execution_count")]
        assert not not_run, f"{source.name} in JupyterLab: code cells that did not run (cell index): {not_run}"
        assert "Traceback" not in page.locator(".jp-Notebook").inner_text()

        cell = page.locator(".jp-CodeCell", has=page.locator(".widget-slider"))
        assert cell.count() == 1, f"{source.name}: expected one cell with a slider, found {cell.count()}"
        handle = cell.locator(".noUi-handle")
        handle.scroll_into_view_if_needed()
        page.wait_for_function("c => c.querySelector('.jp-OutputArea-output img')", arg=cell.element_handle())
        before_src, before_value = _figure_src(cell), float(handle.get_attribute("aria-valuenow"))
        low, high = float(handle.get_attribute("aria-valuemin")), float(handle.get_attribute("aria-valuemax"))
        screenshots(cell, "2-slider-before.png")

        # one key press, one change event, one redraw: Page Up/Down moves the handle 5 steps toward the far end
        key = "PageUp" if high - before_value >= before_value - low else "PageDown"
        assert high > low, f"the slider has nowhere to move ({low}..{high})"
        handle.focus()
        page.keyboard.press(key)
        page.wait_for_function("([h, v]) => parseFloat(h.getAttribute('aria-valuenow')) !== v",
                               arg=[handle.element_handle(), before_value])
        after_value = float(handle.get_attribute("aria-valuenow"))
        try:
            page.wait_for_function(
                "([c, before]) => { const img = [...c.querySelectorAll('.jp-OutputArea-output img')].pop();"
                " return img && img.complete && img.src !== before; }",
                arg=[cell.element_handle(), before_src], timeout=REDRAW_SECONDS * 1000)
        except PlaywrightTimeout:
            screenshots(page, "slider-no-redraw.png")
            pytest.fail(f"{source.name}: the slider moved from {before_value:g} to {after_value:g} ({key}) but the "
                        f"figure was not redrawn within {REDRAW_SECONDS} s")
        kernel_idle.wait_for(timeout=REDRAW_SECONDS * 1000)
        after_src = _figure_src(cell)
        screenshots(cell, "3-slider-after.png")
        assert cell.locator(".widget-readout").inner_text().strip() == f"{after_value:g}"
        assert after_src.startswith("data:image/png") and after_src != before_src, \
            "moving the slider did not change the figure"
        print(f"slider: {before_value:g} -> {after_value:g} ({key}); figure PNG {len(before_src)} -> "
              f"{len(after_src)} characters of data URI")
        assert not blocked, f"JupyterLab asked for resources outside localhost: {blocked[:5]}"
        context.close()


_TYPESET = ".MathJax, .MathJax_Display, mjx-container"  # MathJax 2 (the bundled one) or 3
_MATHJAX_DONE = ("() => !!document.querySelector('.MathJax, .MathJax_Display, mjx-container') && !!window.MathJax"
                 " && (!MathJax.Hub || MathJax.Hub.queue.pending === 0) && !document.querySelector('.MathJax_Processing')")


_UNDEFINED_MACROS = """() => [...document.querySelectorAll('[data-mathml]')]
    .flatMap(e => [...e.getAttribute('data-mathml').matchAll(/<mtext mathcolor="red">(\\\\[A-Za-z]+)</g)].map(m => m[1]))"""


def open_offline(browser, page_path: Path):
    """``page_path`` opened from ``file://`` with every other request aborted: (context, page, aborted URLs)."""
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    blocked = _block_the_network(context, ("file://", "data:", "blob:", "about:"))
    page = context.new_page()
    page.goto(page_path.as_uri())
    return context, page, blocked


def math_problems(page, blocked: list[str], seconds: float = 60) -> list[str]:
    """What keeps a reader offline from seeing the page's formulas: MathJax not done, TeX left as text in the
    rendered Markdown, TeX errors, requests that needed the network."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    problems = []
    try:
        page.wait_for_function(_MATHJAX_DONE, timeout=seconds * 1000)
    except PlaywrightTimeout:
        problems.append(f"MathJax typeset nothing within {seconds:g} s")
    markdown = "\n".join(page.locator(".jp-MarkdownCell .jp-RenderedMarkdown").all_inner_texts())
    if not markdown.strip():
        problems.append("no rendered Markdown cell")
    raw = re.findall(r"\$[^$\n]{1,80}\$|\\\(|\\\[|\$\$", markdown)
    if raw:
        problems.append(f"{len(raw)} formulas left as TeX text, e.g. {raw[:3]}")
    errors = page.locator(".merror, .noError, .MathJax_Error, mjx-merror").all_inner_texts()
    if errors:
        problems.append(f"MathJax could not typeset {len(errors)}: {errors[:3]}")
    undefined = page.evaluate(_UNDEFINED_MACROS)
    if undefined:
        problems.append(f"undefined TeX macros (shown in red): {sorted(set(undefined))[:5]}")
    if blocked:
        problems.append(f"asked for {len(blocked)} resources outside its folder, e.g. {blocked[:3]}")
    return problems


def test_offline_report_page_typesets_math_with_the_network_blocked(browser, tmp_path, screenshots):
    import nbformat

    from evalkit.batch.report_page import write_report

    sources = math_notebooks()
    folder = tmp_path / "outputs" / "synthetic"
    folder.mkdir(parents=True)
    for source in sources:  # their Markdown is what MathJax typesets: no need to execute them
        shutil.copy2(source, folder / source.name)
    broken = nbformat.v4.new_notebook()  # a hand-made page the check must fail: a TeX error, an undefined macro
    broken.cells = [nbformat.v4.new_markdown_cell("# Broken formulas\n\nFine $x_i$, unbalanced $\\frac{1}{$, "
                                                  "undefined $\\notamacro{x}$.")]
    nbformat.write(broken, str(folder / "99_broken_formulas.ipynb"))
    write_report(folder, dataset="synthetic")

    context, page, blocked = open_offline(browser, folder / "99_broken_formulas.html")
    problems = math_problems(page, blocked)
    context.close()
    assert any("could not typeset 1" in p for p in problems) and any("notamacro" in p for p in problems), problems

    found = {}
    for number, source in enumerate(sources):
        page_path = folder / f"{source.stem}.html"
        assert page_path.is_file(), f"write_report wrote no page for {source.name}"
        context, page, blocked = open_offline(browser, page_path)
        problems = math_problems(page, blocked)
        if number == 0:
            page.locator(_TYPESET).first.scroll_into_view_if_needed()
            screenshots(page, "offline-page-math.png")
        if page.locator(_TYPESET).count() == 0:
            problems.append("no formula typeset")
        if problems:
            found[page_path.name] = problems
        context.close()
    assert not found, f"offline report pages in {folder}: {found}"

    # the check fails on the page the stock template writes: MathJax from a CDN, out of reach offline
    online = folder / "mathjax-from-the-web.html"
    text = (folder / f"{sources[0].stem}.html").read_text(encoding="utf-8")
    assert "_static/mathjax/MathJax.js" in text
    online.write_text(text.replace("_static/mathjax/MathJax.js", "https://cdn.jsdelivr.net/npm/mathjax@2/MathJax.js"),
                      encoding="utf-8")
    context, page, blocked = open_offline(browser, online)
    problems = math_problems(page, blocked, seconds=3)
    screenshots(page, "offline-page-cdn-mathjax.png")
    context.close()
    assert any("left as TeX text" in p for p in problems) and any("outside its folder" in p for p in problems), \
        problems


# -- progress bars and exercise marks (issue 28) -------------------------------------------------------------------

_WATCH_BARS = """(index) => {
  window.__bars = [];
  window.__barWatch = setInterval(() => {
    const cell = document.querySelectorAll('.jp-Notebook .jp-Cell')[index];
    if (!cell) return;
    const widths = [...cell.querySelectorAll('.jp-OutputArea-output .progress-bar')]
        .map(b => parseFloat(b.style.width || b.style.height || '0'));
    if (widths.length) window.__bars.push(widths);
  }, 40);
}"""


def _long_cell(notebook: Path) -> int | None:
    """Index of the first cell tagged :data:`LONG_CELL_TAG` in ``notebook``, or None."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return next((i for i, c in enumerate(cells) if LONG_CELL_TAG in c.get("metadata", {}).get("tags", [])), None)


def bar_moved(samples: list[list[float]]) -> bool:
    """Whether a progress bar was seen part-way (strictly between empty and full) in the polled widths."""
    return any(0.0 < width < 100.0 for widths in samples for width in widths)


def test_bar_moved_tells_a_moving_bar_from_one_that_jumps():
    assert bar_moved([[0.0], [12.5], [100.0]])
    assert not bar_moved([[0.0], [0.0], [100.0]]) and not bar_moved([])


def _run_cell_watching_bars(page, notebook_name: str, index: int, seconds: float) -> list[list[float]]:
    """Run every cell from the top through cell ``index`` while polling that cell's progress bars."""
    page.evaluate(_WATCH_BARS, index)
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    cell.scroll_into_view_if_needed()
    cell.click(position={"x": 5, "y": 5})  # select it (the prompt area), then run everything above and it
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name=re.compile(r"^Run All Above Selected Cell")).click()
    ran = ("([first, last]) => { const cells = [...document.querySelectorAll('.jp-Notebook .jp-Cell')];"
           " if (cells.some(c => [...c.querySelectorAll('.jp-OutputArea-output[data-mime-type="
           "\"application/vnd.jupyter.stderr\"]')].some(e => /Traceback/.test(e.textContent)))) return 'error';"
           " return cells.slice(first, last + 1).filter(c => c.classList.contains('jp-CodeCell')).every(c =>"
           " /^\\[\\d+\\]:$/.test(((c.querySelector('.jp-InputArea-prompt') || {}).textContent || '').trim())); }")
    for first, last, step in ((0, index - 1, "the cells above it"), (index, index, "the cell")):
        if first == index:
            cell.click(position={"x": 5, "y": 5})
            page.keyboard.press("Escape")
            page.keyboard.press("Shift+Enter")
        outcome = page.wait_for_function(ran, arg=[first, last], timeout=seconds * 1000).json_value()
        assert outcome is True, f"{notebook_name}: {step} ended in an error"
    return page.evaluate("() => { clearInterval(window.__barWatch); return window.__bars; }")


@pytest.mark.parametrize("prefix", PROGRESS_NOTEBOOKS)
def test_a_progress_bar_moves_in_the_long_cell(prefix, browser, tmp_path, screenshots):
    """The first cell tagged ``long-running`` of notebooks 03, 04 and 05, at the class preset on the synthetic
    collection: a progress bar must be seen part-way while the cell runs (a bar that jumps from empty to full, or
    none, fails), and a notebook without such a cell fails."""
    source = next(iter(sorted(NOTEBOOKS.glob(f"{prefix}_*.ipynb"))), None)
    if source is None:
        pytest.skip(f"no notebook {prefix}_*.ipynb")
    assert _long_cell(source) is not None, (f"{source.name}: no cell tagged {LONG_CELL_TAG!r} (tag the longest "
                                            "cell, the one with a progress bar)")
    folder = tmp_path / "lab"
    (folder / "notebooks").mkdir(parents=True)
    notebook = fast_copy(source, folder / "notebooks" / source.name,
                         {"dataset": "synthetic", "fast": False, "preset": "class"})
    index = _long_cell(notebook)
    with jupyter_lab(folder) as (base, token, command, log_path):
        context = browser.new_context(viewport={"width": 1280, "height": 1000})
        blocked = _block_the_network(context, _LOCAL)
        page = context.new_page()
        page.set_default_timeout(REDRAW_SECONDS * 1000)
        page.goto(f"{base}/lab/tree/{notebook.name}?token={token}")
        page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"\| Idle$")).wait_for(
            timeout=SERVER_START_SECONDS * 1000)
        samples = _run_cell_watching_bars(page, notebook.name, index, PROGRESS_RUN_SECONDS)
        cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
        screenshots(cell, f"{prefix}-long-cell-after.png")
        assert "Traceback" not in cell.inner_text(), cell.inner_text()[-2000:]
        assert samples, f"{source.name}: the cell tagged {LONG_CELL_TAG!r} (index {index}) showed no progress bar"
        assert bar_moved(samples), (f"{source.name}: the progress bar of cell {index} never showed a value between "
                                    f"empty and full (widths seen: {sorted({w for s in samples for w in s})[:10]})")
        print(f"{source.name} cell {index}: {len(samples)} polls with a bar, widths "
              f"{sorted({round(w) for s in samples for w in s})[:12]}")
        assert not blocked, f"JupyterLab asked for resources outside localhost: {blocked[:5]}"
        context.close()


def test_exercise_marks_render_without_an_emoji_font(browser, tmp_path, screenshots):
    """The right / not yet / to do marks of exercises.check in JupyterLab: each is a drawn image (an SVG that the
    browser decoded, of non-zero size) beside its word, with no emoji character that a machine without an emoji
    font would show as an empty box."""
    import nbformat

    folder = tmp_path / "lab"
    (folder / "notebooks").mkdir(parents=True)
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    notebook.cells = [nbformat.v4.new_code_cell(
        "from evalkit.classroom.exercises import Verdict\n"
        "for right in (True, False, None):\n"
        "    display(Verdict('00.1', right, f'Exercise 00.1: mark for {right}'))")]
    nbformat.write(notebook, str(folder / "notebooks" / "marks.ipynb"))
    with jupyter_lab(folder) as (base, token, command, log_path):
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        page = context.new_page()
        page.set_default_timeout(REDRAW_SECONDS * 1000)
        page.goto(f"{base}/lab/tree/marks.ipynb?token={token}")
        page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"\| Idle$")).wait_for(
            timeout=SERVER_START_SECONDS * 1000)
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
        page.wait_for_function("() => document.querySelectorAll('.evalkit-verdict img').length === 3",
                               timeout=RUN_ALL_SECONDS * 1000)
        marks = page.evaluate("""() => [...document.querySelectorAll('.evalkit-verdict')].map(v => {
            const img = v.querySelector('img'); const box = img.getBoundingClientRect();
            return {alt: img.alt, decoded: img.complete && img.naturalWidth > 0, width: box.width,
                    height: box.height, word: v.querySelector('strong').textContent, text: v.textContent}; })""")
        screenshots(page.locator(".jp-OutputArea").first, "exercise-marks.png")
        context.close()
    assert [m["word"] for m in marks] == ["right", "not yet", "to do"] == [m["alt"] for m in marks]
    for mark in marks:
        assert mark["decoded"] and mark["width"] >= 12 and mark["height"] >= 12, mark
        assert not re.search("[\u2600-\u27bf\U0001f300-\U0001faff\ufe0f]", mark["text"]), mark


def test_a_glossary_link_opens_the_tour_and_its_glossary(browser, tmp_path, screenshots):
    """What the notebooks link a term to, ``[term](00_tour.ipynb#glossary)``, clicked in JupyterLab: the tour opens,
    its glossary heading carries the anchor (JupyterLab's sanitizer keeps it, as ``data-jupyter-id``), and the
    tour's own link to ``#glossary`` scrolls there. (JupyterLab 4.6 opens another notebook at its top: it applies
    the fragment before the cells are rendered, so the jump happens in the tour, from its first cell.)"""
    import nbformat

    tour = next(NOTEBOOKS.glob("00_*.ipynb"))
    folder = tmp_path / "lab"
    (folder / "notebooks").mkdir(parents=True)
    shutil.copy2(tour, folder / "notebooks" / tour.name)
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    notebook.cells = [nbformat.v4.new_markdown_cell(f"Scored with [infAP]({tour.name}#glossary).")]
    nbformat.write(notebook, str(folder / "notebooks" / "linking.ipynb"))
    anchor = '.jp-RenderedMarkdown [data-jupyter-id="glossary"], .jp-RenderedMarkdown #glossary'
    in_view = (f"() => {{ const a = document.querySelector('{anchor}'); if (!a) return false;"
               " const r = a.getBoundingClientRect(); return r.top >= 0 && r.top < window.innerHeight; }")
    with jupyter_lab(folder) as (base, token, command, log_path):
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        page = context.new_page()
        page.set_default_timeout(REDRAW_SECONDS * 1000)
        page.goto(f"{base}/lab/tree/linking.ipynb?token={token}")
        page.locator(".jp-RenderedMarkdown a", has_text="infAP").click()
        page.locator(".lm-TabBar-tab.lm-mod-current", has_text=tour.name).wait_for()
        page.locator(anchor).first.wait_for(state="attached")
        heading = page.locator(".jp-RenderedMarkdown h2", has=page.locator('[data-jupyter-id="glossary"], #glossary'))
        assert "Glossary" in heading.first.inner_text()
        page.locator(".jp-RenderedMarkdown a[href='#glossary']").first.click()
        page.wait_for_function(in_view)
        screenshots(page, "glossary-from-the-tour-link.png")
        context.close()
