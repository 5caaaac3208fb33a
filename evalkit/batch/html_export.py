"""Executed notebook → one HTML page that opens offline, with nothing from input live.

:func:`export_notebook` renders a notebook with nbconvert's JupyterLab template, changed in three ways:

* **Offline.** MathJax comes from the ``jupyter-server-mathjax`` package, copied once per output folder into
  ``_static/mathjax/`` (:func:`copy_offline_assets`) and loaded by a relative URL; require.js, the widget manager
  and mermaid, which the stock template loads from the web, are left out (template ``evalkit_offline``).
* **Widgets drawn statically.** A widget view (a tqdm bar, a slider) is replaced by HTML built from the widget
  state the executed notebook carries (:func:`render_widget`): a progress bar stays a progress bar at its final
  value, a control shows its description and value. No widget JavaScript is needed.
* **Sanitized outputs.** Every ``text/html`` and ``text/markdown`` output goes through
  :func:`evalkit.display.html_safety.sanitize_html`; JavaScript outputs are dropped; SVG outputs become ``<img>`` data URIs
  (an SVG loaded as an image cannot run script). Markdown cells are the kit's own text and are left as written.

:func:`key_figures` picks a few PNG figures of a notebook for the report page.
"""

from __future__ import annotations

import base64
import html
import os
import shutil
from pathlib import Path

from evalkit.display.html_safety import sanitize_html
from evalkit.errors import one_line

__all__ = ["export_notebook", "copy_offline_assets", "render_widget", "key_figures", "ASSETS_DIR",
           "MATHJAX_CONFIG", "KEY_FIGURE_TAG"]

ASSETS_DIR = "_static"
MATHJAX_CONFIG = "TeX-AMS-MML_HTMLorMML-full,Safe"
KEY_FIGURE_TAG = "key-figure"  # cells with this tag give the report its figures first
_TEMPLATES = Path(__file__).resolve().parent / "templates"
_WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
_MATHJAX_SKIP = ("localization", os.path.join("extensions", "a11y", "mathmaps"),
                 os.path.join("extensions", "a11y", "mathjax-sre.js"), os.path.join("jax", "output", "SVG"))


def _mathjax_source() -> Path:
    """MathJax's folder in the jupyter-server-mathjax package, found without importing it (its ``__init__``
    imports jupyter_server: seconds)."""
    from importlib.util import find_spec

    spec = find_spec("jupyter_server_mathjax")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("jupyter-server-mathjax is not installed (make install installs it): the report "
                                "pages need its MathJax to show formulas offline")
    return Path(list(spec.submodule_search_locations)[0]).resolve() / "static"


def copy_offline_assets(folder: str | os.PathLike) -> Path:
    """Copy MathJax (the parts an HTML page uses: TeX input, HTML-CSS output, its web fonts) into
    ``folder/_static/mathjax``; about 3 MB. Returns the MathJax folder."""
    source = _mathjax_source()
    target = Path(folder) / ASSETS_DIR / "mathjax"
    if (target / "MathJax.js").is_file():
        return target

    def ignore(directory, names):
        relative = os.path.relpath(directory, source)
        return [n for n in names if os.path.normpath(os.path.join(relative, n)) in _MATHJAX_SKIP]

    try:
        shutil.copytree(source, target, ignore=ignore, dirs_exist_ok=True)
    except shutil.Error as exc:  # one (src, dst, why) per file that failed: thousands on a full disk
        failures = exc.args[0] if exc.args and isinstance(exc.args[0], list) else []
        first = failures[0][2] if failures and len(failures[0]) == 3 else one_line(exc, 200)
        raise OSError(f"could not copy MathJax into {target}: {len(failures) or 'some'} file(s) failed, the first "
                      f"with: {one_line(first, 200)}") from None
    return target


# -- widgets ---------------------------------------------------------------------------------------------------

def _model_ref(value) -> str | None:
    return value[len("IPY_MODEL_"):] if isinstance(value, str) and value.startswith("IPY_MODEL_") else None


_BAR_COLOURS = {"success": "#4caf50", "danger": "#e53935", "warning": "#fb8c00", "info": "#039be5"}


def render_widget(model_id: str, models: dict, depth: int = 0) -> str:
    """Static HTML for the widget ``model_id`` from the notebook's saved widget ``models`` (``state`` dicts).

    Boxes lay out their children, HTML widgets keep their (sanitized) HTML, labels and text are escaped, progress
    bars become ``<progress>`` at their final value, other controls show "description: value". Unknown or
    missing models give an empty string (the caller falls back to the output's plain text).
    """
    model = models.get(model_id)
    if model is None or depth > 20:
        return ""
    name = model.get("model_name", "")
    state = model.get("state", {})
    description = str(state.get("description") or "")
    label = f'<span class="evalkit-widget-label">{html.escape(description)}</span> ' if description else ""
    if name in ("HBoxModel", "VBoxModel", "BoxModel", "GridBoxModel", "AccordionModel", "TabModel"):
        direction = "column" if name in ("VBoxModel", "AccordionModel", "TabModel") else "row"
        parts = [render_widget(ref, models, depth + 1) for ref in map(_model_ref, state.get("children", [])) if ref]
        return (f'<div class="evalkit-widget" style="display:flex;flex-direction:{direction};gap:0.5em;'
                f'align-items:center">{"".join(parts)}</div>')
    if name in ("HTMLModel", "HTMLMathModel"):
        return f"<span>{label}{sanitize_html(str(state.get('value') or ''))}</span>"
    if name in ("LabelModel", "TextModel", "TextareaModel"):
        return f"<span>{label}{html.escape(str(state.get('value') or ''))}</span>"
    if name in ("FloatProgressModel", "IntProgressModel"):
        low, high = float(state.get("min") or 0), float(state.get("max") or 100)
        value = float(state.get("value") or 0)
        colour = _BAR_COLOURS.get(str(state.get("bar_style") or ""), "#2196f3")
        width = 100.0 * (value - low) / (high - low) if high > low else 0.0
        return (f'{label}<span class="evalkit-progress" role="progressbar" aria-valuenow="{value:g}" '
                f'aria-valuemax="{high:g}" style="display:inline-block;width:12em;height:1em;background:#eee;'
                f'vertical-align:middle"><span style="display:block;height:100%;width:{max(0.0, min(width, 100.0)):.1f}%;'
                f'background:{colour}"></span></span>')
    if name == "OutputModel":
        texts = []
        for output in state.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain") or ""
            texts.append(html.escape(text if isinstance(text, str) else "".join(text)))
        return f"<pre>{''.join(texts)}</pre>" if texts else ""
    if "value" in state and not name.endswith(("StyleModel", "LayoutModel")):
        value = state.get("value")
        options = state.get("_options_labels")
        if isinstance(value, int) and options and name in ("DropdownModel", "RadioButtonsModel", "SelectModel",
                                                           "ToggleButtonsModel"):
            value = options[value] if 0 <= value < len(options) else value
        return (f'<span class="evalkit-control">{label or html.escape(name.removesuffix("Model")) + ": "}'
                f"<b>{html.escape(str(value))}</b></span>")
    return ""


def _static_widgets(notebook) -> None:
    """Replace widget views by static HTML from the saved state; drop the state (nothing left to load it)."""
    state = notebook.metadata.get("widgets", {}).get(_WIDGET_STATE, {}).get("state", {})
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            view = data.get(_WIDGET_VIEW)
            if view is None:
                continue
            model_id = view.get("model_id", "") if isinstance(view, dict) else ""
            rendered = render_widget(model_id, state)
            del data[_WIDGET_VIEW]
            if rendered:
                data["text/html"] = rendered
                data.pop("text/plain", None)
    notebook.metadata.pop("widgets", None)


# -- sanitizing --------------------------------------------------------------------------------------------------

def _sanitize_outputs(notebook) -> None:
    from nbconvert.filters.markdown import markdown2html

    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data")
            if not data:
                continue
            for key in [k for k in data if "javascript" in k]:
                del data[key]
            if "image/svg+xml" in data:
                svg = data.pop("image/svg+xml")
                svg = svg if isinstance(svg, str) else "".join(svg)
                encoded = base64.b64encode(svg.encode("utf-8")).decode("ascii")
                data.setdefault("text/html", f'<img src="data:image/svg+xml;base64,{encoded}" alt="figure">')
            if "text/markdown" in data:
                markdown = data.pop("text/markdown")
                data.setdefault("text/html", markdown2html(markdown if isinstance(markdown, str) else
                                                           "".join(markdown)))
            if "text/html" in data:
                data["text/html"] = sanitize_html(data["text/html"])


_PAPERMILL_BANNER = "papermill-error-cell-tag"


def _calm_banners(notebook) -> None:
    """A notebook skipped by a needs-check (:class:`evalkit.papers.needs.NeedsNotMet`) did what it should: papermill's
    red "An Exception was encountered" banners become one note with the reason."""
    errors = [o for c in notebook.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    if not errors or errors[0].get("ename") != "NeedsNotMet":
        return
    reason = html.escape(str(errors[0].get("evalue", "")))
    first = True
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and _PAPERMILL_BANNER in cell.get("metadata", {}).get("tags", []):
            anchor = ' id="papermill-error-cell"' if "papermill-error-cell" in cell.source and not first else ""
            cell.source = (f'<p{anchor} style="background:#fff8e1;border-left:4px solid #8d6e00;padding:.4em .8em">'
                           f"<b>Skipped on this collection:</b> {reason} Nothing failed: the notebook checked what it "
                           "needs before computing anything (the cell below).</p>"
                           if first else f"<p{anchor}><i>The needs-check:</i></p>")
            first = False


def _exporter():
    from nbconvert import HTMLExporter

    return HTMLExporter(extra_template_basedirs=[str(_TEMPLATES)], template_name="evalkit_offline",
                        mathjax_url=f"{ASSETS_DIR}/mathjax/MathJax.js?config={MATHJAX_CONFIG}")


def export_notebook(notebook_path: str | os.PathLike, target: str | os.PathLike | None = None) -> Path:
    """Render an executed notebook to an offline, sanitized HTML page (default: beside it, ``.html``).

    The page loads MathJax from ``_static/mathjax`` in its own folder: call :func:`copy_offline_assets` on that
    folder (the batch does). The page is written whole (a temporary file renamed into place).
    """
    import nbformat

    notebook_path = Path(notebook_path)
    target = Path(target) if target else notebook_path.with_suffix(".html")
    notebook = nbformat.read(str(notebook_path), as_version=4)
    _sanitize_outputs(notebook)
    _calm_banners(notebook)
    _static_widgets(notebook)  # after sanitizing: it writes the kit's own markup, escaping what it takes from state
    body, _ = _exporter().from_notebook_node(notebook, resources={"metadata": {"name": notebook_path.stem}})
    _write_text_atomically(target, body)
    return target


def _write_text_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


# -- figures for the report --------------------------------------------------------------------------------------

def key_figures(notebook, limit: int = 3) -> list[tuple[str, bytes]]:
    """Up to ``limit`` PNG figures of an executed notebook as (cell anchor, PNG bytes): figures of cells tagged
    :data:`KEY_FIGURE_TAG` first, then the others in order."""
    tagged, others = [], []
    for cell in notebook.cells:
        anchor = f"cell-id={cell.get('id', '')}" if cell.get("id") else ""
        for output in cell.get("outputs", []):
            png = output.get("data", {}).get("image/png")
            if not png:
                continue
            raw = base64.b64decode(png if isinstance(png, str) else "".join(png))
            (tagged if KEY_FIGURE_TAG in cell.get("metadata", {}).get("tags", []) else others).append((anchor, raw))
    return (tagged + others)[:limit]
