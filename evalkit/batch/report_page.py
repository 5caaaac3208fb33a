"""The batch report: every executed notebook as an offline HTML page, and ``index.html`` to read first.

``index.html`` shows, all text escaped and no script: a summary (notebooks ok / skipped / failed, claims per
verdict, coloured), the run (dataset and what the kit found in it, parameters, timings, the machine's load
average), one card per notebook (status with the reason a notebook was skipped or failed, its time, the
parameters it took and those not applicable to it, a few key figures linking to the figure in the notebook's
page) and the table of every paper's claims beside the kit's figures, with whatever fields the claims carry
(for example which collection a paper's value was measured on).

The batch (:mod:`evalkit.batch.pipeline`) records what happened in ``batch.json``; without it (a folder of executed
notebooks from elsewhere) each notebook's status is read from its own outputs.
"""

from __future__ import annotations

import html
import json
import os
import re
import time
from pathlib import Path
from urllib.parse import quote

import pandas as pd

from evalkit.batch.html_export import copy_offline_assets, export_notebook, key_figures
from evalkit.claims import CLAIMS_MIME, plans_of, verdict_category, verdict_counts

__all__ = ["write_report", "notebook_status", "claims_table", "findings_markdown", "BATCH_RECORD", "VERDICT_COLUMNS",
           "FINDINGS"]

BATCH_RECORD = "batch.json"
FINDINGS = "findings.md"
VERDICT_COLUMNS = ("verdict", "agrees")  # the first present names a claim's verdict
_CLAIM_ORDER = ["notebook", "paper", "claim", "paper_value", "paper_dataset", "kit_value", "dataset", "verdict",
                "agrees", "note"]
_HEADERS = {"paper_value": "paper's value", "paper_dataset": "paper's collection", "kit_value": "kit's value",
            "dataset": "kit's collection", "agrees": "agrees"}
_STATUS_COLOURS = {"ok": "#2e7d32", "skipped": "#8d6e00", "failed": "#c62828"}
_VERDICT_CLASSES = {"yes": "v-yes", "agrees": "v-yes", "partly": "v-partly", "direction only": "v-partly",
                    "no": "v-no", "not comparable": "v-na", "inconclusive": "v-inc", "": "v-none"}
#: the order verdict counts are shown in
_VERDICT_ORDER = ["yes", "partly", "direction only", "inconclusive", "no", "not comparable", "withheld", "not rated"]
_FIGURES = "figures"


def notebook_status(notebook) -> tuple[str, str]:
    """("ok" | "failed" | "skipped", reason) read from an executed notebook's error output, if any: a
    :class:`evalkit.papers.needs.NeedsNotMet` means skipped, with its sentence as the reason."""
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                name, value = output.get("ename", ""), output.get("evalue", "")
                if name == "NeedsNotMet":
                    return "skipped", value
                return "failed", f"{name}: {value}".strip(": ")
    if notebook.metadata.get("papermill", {}).get("exception"):
        return "failed", "the notebook stopped with an error"
    return "ok", ""


def _claim_rows(notebook) -> list[dict]:
    rows = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            payload = output.get("data", {}).get(CLAIMS_MIME)
            if payload is None:
                continue
            payload = json.loads(payload) if isinstance(payload, str) else payload
            rows.extend(r for r in payload if isinstance(r, dict))
    return rows


def claims_table(notebooks: dict) -> pd.DataFrame:
    """Every claim row of the given notebooks (stem → notebook), all the fields any row carries, blanks where a
    row lacks one; known fields first."""
    rows = [{"notebook": stem, **{str(k): "" if v is None else str(v) for k, v in row.items()}}
            for stem, nb in notebooks.items() for row in _claim_rows(nb)]
    if not rows:
        return pd.DataFrame(columns=["notebook"])
    frame = pd.DataFrame(rows, dtype=object)
    columns = [c for c in _CLAIM_ORDER if c in frame] + [c for c in frame if c not in _CLAIM_ORDER]
    return frame[columns].fillna("")


def _verdict_column(frame: pd.DataFrame) -> str | None:
    return next((c for c in VERDICT_COLUMNS if c in frame), None)


def _title(notebook, fallback: str) -> str:
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return fallback


def _fmt_seconds(seconds) -> str:
    if seconds is None:
        return ""
    seconds = float(seconds)
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds // 60:.0f} min {seconds % 60:02.0f} s"


def _fmt_value(value) -> str:
    return json.dumps(value) if not isinstance(value, str) else repr(value)


def _load(values) -> str:
    return " / ".join(f"{v:.2f}" for v in values) if values else "unknown"


def _badge(status: str) -> str:
    colour = _STATUS_COLOURS.get(status, "#555")
    return f'<span class="badge" style="background:{colour}">{html.escape(status)}</span>'


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:84em;margin:1.5em auto;padding:0 1em;
color:#222;line-height:1.4}
h1{margin-bottom:.2em} h2{margin-top:1.6em;border-bottom:2px solid #ddd;padding-bottom:.2em}
.summary{display:flex;flex-wrap:wrap;gap:.6em;margin:.8em 0}
.count{border-radius:6px;padding:.45em .9em;color:#fff;font-weight:600}
.count.ok{background:#2e7d32}.count.skipped{background:#8d6e00}.count.failed{background:#c62828}
.count.v-yes{background:#2e7d32}.count.v-partly{background:#ef6c00}.count.v-no{background:#c62828}
.count.v-na{background:#546e7a}.count.v-none{background:#9e9e9e}.count.v-other{background:#5e35b1}
.count.v-inc{background:#6d4c41}tr.v-inc td{background:#efebe9}
.alert{background:#ffebee;border-left:6px solid #c62828;padding:.5em .8em;font-weight:600}
.plan{background:#f1f8e9;border-left:4px solid #558b2f;padding:.3em .6em;margin:.4em 0}
.badge{border-radius:4px;padding:.1em .5em;color:#fff;font-size:85%;font-weight:600}
.card{border:1px solid #ddd;border-radius:8px;padding:.8em 1em;margin:.8em 0}
.card h3{margin:.1em 0 .4em}.reason{background:#fff8e1;border-left:4px solid #8d6e00;padding:.3em .6em}
.card.failed .reason{background:#ffebee;border-color:#c62828}
.figures{display:flex;flex-wrap:wrap;gap:.6em;margin-top:.5em}
.figures img{max-width:300px;max-height:230px;border:1px solid #ccc;background:#fff}
table{border-collapse:collapse;font-size:90%}td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left}
th{background:#eee}tr.v-yes td{background:#e8f5e9}tr.v-partly td{background:#fff3e0}tr.v-no td{background:#ffebee}
tr.v-na td{background:#eceff1}.meta td:first-child{font-weight:600;white-space:nowrap}
.muted{color:#666;font-size:90%}code{background:#f4f4f4;padding:0 .2em}
"""


def _verdict_class(verdict: str) -> str:
    """CSS class of a verdict (evalkit.claims.grading's vocabulary): a direction-only rating takes its rating's colour;
    withheld and not-rated verdicts the colour of "not comparable"."""
    key = verdict_category(verdict).lower()
    if key.startswith("direction only:"):
        key = key.split(":", 1)[1].strip()
    if key in ("withheld", "not rated"):
        key = "not comparable"
    return _VERDICT_CLASSES.get(key, "v-other")


def _nothing_ran(entries: list[dict], record: dict) -> str:
    """The report's first line when every notebook was skipped: why, and what to write."""
    if not entries or any(e.get("status") != "skipped" for e in entries):
        return ""
    reasons = list(dict.fromkeys(e.get("reason", "") for e in entries if e.get("reason")))
    facts = (record.get("dataset") or {}).get("facts") or {}
    hint = facts.get("suggestion") or facts.get("hint") or ""
    text = (f"Nothing ran: all {len(entries)} notebooks were skipped, so nothing was measured and the batch exited "
            f"with code 3. Why: {' / '.join(reasons[:3]) or 'see each card'}.")
    if hint:
        text += f" What to write: {hint}"
    return f'<p class="alert">{html.escape(text)}</p>'


def _summary(entries: list[dict], claims: pd.DataFrame) -> str:
    counts = {s: sum(e["status"] == s for e in entries) for s in ("ok", "skipped", "failed")}
    parts = [f'<span class="count {s}">{n} {s}</span>' for s, n in counts.items() if n or s == "ok"]
    out = [f'<div class="summary"><span class="count" style="background:#37474f">{len(entries)} '
           f'notebook{"s" if len(entries) != 1 else ""}</span>'
           + "".join(parts) + "</div>"]
    if counts["skipped"]:
        out.append('<p class="muted">Skipped is not a failure: the notebook found that the collection lacks what it '
                   "needs and said so (the reason is on its card).</p>")
    column = _verdict_column(claims)
    if column is not None and len(claims):
        frame = claims.rename(columns={column: "verdict"}) if column != "verdict" else claims
        for scope, verdicts in verdict_counts(frame).items():
            verdicts = verdicts.rename(index={"": "no verdict"})
            verdicts = verdicts.sort_index(key=lambda index: [
                (_VERDICT_ORDER.index(v.lower()) if v.lower() in _VERDICT_ORDER else len(_VERDICT_ORDER)
                 + (v == "no verdict"), v) for v in index])
            cells = "".join(f'<span class="count {_verdict_class("" if v == "no verdict" else v)}">{n} '
                            f'{html.escape(v)}</span>' for v, n in verdicts.items())
            n = int(verdicts.sum())
            label = (f"{n} claim{'s' if n != 1 else ''} of the papers" if scope == "paper" else
                     f"{n} beyond the papers (not counted above)")
            out.append(f'<div class="summary"><span class="count" style="background:#37474f">{label}</span>'
                       f"{cells}</div>")
    return "\n".join(out)


def _run_section(record: dict) -> str:
    rows = []
    dataset = record.get("dataset", {})
    if dataset:
        given, resolved = dataset.get("given", ""), dataset.get("resolved", "")
        text = html.escape(str(given)) + (f' <span class="muted">({html.escape(str(resolved))})</span>'
                                          if resolved and resolved != given else "")
        rows.append(("dataset", text))
        facts = dataset.get("facts") or {}
        if facts:
            rows.append(("collection", html.escape(", ".join(f"{k}: {v}" for k, v in facts.items()))))
    if "fast" in record:
        rows.append(("mode", "fast (small sizes, few trials)" if record["fast"] else "full"))
    parameters = record.get("parameters") or {}
    if parameters:
        rows.append(("parameters", "<br>".join(f"<code>{html.escape(k)} = {html.escape(_fmt_value(v))}</code>"
                                               for k, v in parameters.items())))
    else:
        rows.append(("parameters", "each notebook's defaults (none given)"))
    if record.get("started"):
        rows.append(("started / finished", html.escape(f"{record['started']} / {record.get('finished', '')}")))
    if record.get("seconds") is not None:
        rows.append(("total time", html.escape(_fmt_seconds(record["seconds"]))))
    load = record.get("load") or {}
    if load:
        rows.append(("load average (1/5/15 min)",
                     html.escape(f"at start {_load(load.get('start'))}; at the end {_load(load.get('end'))}; "
                                 f"{record.get('cpus', '?')} CPUs")))
    for key in ("python", "evalkit", "command"):
        if record.get(key):
            rows.append((key, f"<code>{html.escape(str(record[key]))}</code>"))
    body = "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in rows)
    return f'<table class="meta">{body}</table>'


def _card(entry: dict, figures: list[tuple[str, str]]) -> str:
    stem = entry["name"]
    page, source = quote(stem + ".html"), quote(stem + ".ipynb")
    status = entry["status"]
    title = entry.get("title", "")
    title = f' <span class="muted">{html.escape(title)}</span>' if title and title != stem else ""
    parts = [f'<div class="card {html.escape(status)}" id="{html.escape(stem)}"><h3>{_badge(status)} '
             f'<a href="{page}">{html.escape(stem)}</a>{title}</h3>']
    details = [f"time {_fmt_seconds(entry.get('seconds'))}" if entry.get("seconds") is not None else ""]
    if entry.get("load_before"):
        details.append(f"load average at its start {entry['load_before'][0]:.2f}")
    links = f'<a href="{page}">page</a> &middot; <a href="{source}">.ipynb</a>'
    if entry.get("kernel_log"):
        links += f' &middot; <a href="{quote(entry["kernel_log"])}">kernel log</a>'
    details.append(links)
    parts.append(f'<div class="muted">{" &middot; ".join(html.escape(d) if not d.startswith("<a") else d for d in details if d)}</div>')
    if entry.get("page_error"):
        parts.append(f'<p class="reason"><b>its page could not be rendered:</b> {html.escape(entry["page_error"])} '
                     f'(the executed notebook is <a href="{source}">here</a>)</p>')
    for plan in entry.get("plans") or []:
        line = plan.get("line", "") if isinstance(plan, dict) else str(plan)
        if line:
            parts.append(f'<p class="plan"><b>plan:</b> {html.escape(line)}</p>')
    if entry.get("reason"):
        label = "why it was skipped" if status == "skipped" else "what failed" if status == "failed" else "note"
        parts.append(f'<p class="reason"><b>{label}:</b> {html.escape(entry["reason"])}</p>')
    applied, not_applicable = entry.get("applied") or {}, entry.get("not_applicable") or []
    if applied or not_applicable:
        text = ", ".join(f"<code>{html.escape(k)} = {html.escape(_fmt_value(v))}</code>" for k, v in applied.items())
        if not_applicable:
            text += ("; " if text else "") + "not applicable here: " + ", ".join(
                f"<code>{html.escape(k)}</code>" for k in not_applicable)
        parts.append(f"<div>parameters: {text}</div>")
    if figures:
        images = "".join(f'<a href="{page}{("#" + quote(anchor, safe="=-_")) if anchor else ""}">'
                         f'<img src="{quote(path)}" alt="figure from {html.escape(stem)}" loading="lazy"></a>'
                         for path, anchor in figures)
        parts.append(f'<div class="figures">{images}</div>')
    parts.append("</div>")
    return "\n".join(parts)


def _glance(entries: list[dict], claims: pd.DataFrame) -> str:
    """One row per notebook: status, time, claims recorded, reason; names link to the cards."""
    counts = claims["notebook"].value_counts() if "notebook" in claims else pd.Series(dtype=int)
    rows = []
    for e in entries:
        rows.append(f'<tr><td><a href="#{quote(e["name"])}">{html.escape(e["name"])}</a></td><td>{_badge(e["status"])}'
                    f'</td><td>{html.escape(_fmt_seconds(e.get("seconds")))}</td><td>{int(counts.get(e["name"], 0))}</td>'
                    f'<td>{html.escape(e.get("reason", ""))}</td></tr>')
    return ("<table><thead><tr><th>notebook</th><th>status</th><th>time</th><th>claims</th><th>reason</th></tr>"
            f"</thead><tbody>{''.join(rows)}</tbody></table>")


def _claims_html(claims: pd.DataFrame) -> str:
    if not len(claims):
        return "<p>No claims were recorded.</p>"
    column = _verdict_column(claims)
    head = "".join(f"<th>{html.escape(_HEADERS.get(c, c.replace('_', ' ')))}</th>" for c in claims.columns)
    rows = []
    for record in claims.to_dict("records"):
        css = _verdict_class(record[column]) if column else ""
        cells = "".join(f"<td>{html.escape(str(record[c]))}</td>" for c in claims.columns)
        rows.append(f'<tr class="{css}">{cells}</tr>')
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


_SEED = re.compile(r"^\s*(\w*seed\w*)\s*=\s*([^#\n]+)", re.M)


def _seeds(notebook) -> dict:
    """The seeds a notebook ran with: ``*seed*`` assignments of its parameters cell, then of papermill's injected
    parameters (which win)."""
    seeds = {}
    for tag in ("parameters", "injected-parameters"):
        for cell in notebook.cells:
            if tag in cell.get("metadata", {}).get("tags", []):
                seeds.update({name: value.strip() for name, value in _SEED.findall(cell.source)})
    return seeds


def _md(text) -> str:
    """Text from a notebook or the data, safe in a Markdown table cell (no pipes, no line breaks, no HTML)."""
    return html.escape(" ".join(str(text).split()), quote=False).replace("|", "\\|")


def findings_markdown(notebooks: dict, entries: dict, claims: pd.DataFrame, record: dict) -> str:
    """What the notebooks found, as Markdown generated from the run (never typed by hand): the run's collection,
    code version, date and seeds; per notebook its status, plan lines and claims (verdict, kit's value, interval).
    """
    dataset = (record.get("dataset") or {}).get("label", "") or "?"
    lines = [f"# What the notebooks find on {_md(dataset)}", "",
             f"Generated by `evalkit notebooks run` on {record.get('finished', time.strftime('%Y-%m-%d %H:%M:%S'))} "
             f"from {_md(record.get('code_version', 'unknown code'))}, dataset `{_md(dataset)}`"
             + (", fast mode" if record.get("fast") else "")
             + (f", parameters {_md(json.dumps(record['parameters']))}" if record.get("parameters") else "")
             + ". Each verdict follows the written rules of docs/grading.md; every figure below comes from that run.",
             ""]
    column = _verdict_column(claims)
    for stem, notebook in notebooks.items():
        entry = entries.get(stem, {})
        lines += [f"## {_md(_title(notebook, stem))} (`{stem}`)", ""]
        seeds = _seeds(notebook)
        status = entry.get("status", "?")
        lines.append(f"Status: {status}" + (f" ({_md(entry['reason'])})" if entry.get("reason") else "")
                     + (f"; seeds: {', '.join(f'{k} = {_md(v)}' for k, v in seeds.items())}" if seeds else "") + ".")
        for plan in entry.get("plans") or []:
            lines.append(f"Plan: {_md(plan.get('line', ''))}")
        rows = claims[claims["notebook"] == stem] if "notebook" in claims else claims.iloc[0:0]
        if len(rows):
            lines += ["", "| claim | paper | kit | interval | verdict |", "|---|---|---|---|---|"]
            for row in rows.to_dict("records"):
                scope = " (beyond the paper)" if row.get("scope") == "beyond" else ""
                lines.append(f"| {_md(row.get('claim', ''))}{scope} | {_md(row.get('paper_value', ''))} "
                             f"({_md(row.get('paper_dataset', ''))}) | {_md(row.get('kit_value', ''))} | "
                             f"{_md(row.get('interval', ''))} | {_md(row.get(column, '') if column else '')} |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _write_atomically(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        temporary.write_bytes(data)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_report(folder: str | os.PathLike, dataset: str = "", timings: dict | None = None,
                 progress: bool = False) -> Path:
    """Render every executed notebook in ``folder`` (offline, sanitized), extract key figures, and write
    ``claims.csv`` and ``index.html`` (each written whole). Statuses and timings come from ``batch.json`` when
    the batch wrote one, else from the notebooks (and ``timings``: file name → seconds)."""
    import nbformat

    folder = Path(folder)
    paths = sorted(folder.glob("[0-9][0-9]_*.ipynb"))
    if not paths:
        raise FileNotFoundError(f"{folder}: no executed notebooks to report on")
    record_file = folder / BATCH_RECORD
    record = json.loads(record_file.read_text()) if record_file.is_file() else {}
    entries = {e["name"]: dict(e) for e in record.get("notebooks", [])}
    copy_offline_assets(folder)
    (folder / _FIGURES).mkdir(exist_ok=True)
    notebooks, cards = {}, []
    iterator = paths
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(paths, desc="report pages", unit="page", leave=False)
    for path in iterator:
        notebook = nbformat.read(str(path), as_version=4)
        notebooks[path.stem] = notebook
        entry = entries.setdefault(path.stem, {"name": path.stem})
        try:
            export_notebook(path)
        except Exception as exc:  # one page that cannot be rendered must not cost the report
            entry["page_error"] = f"{type(exc).__name__}: {exc}"
        if "status" not in entry:
            entry["status"], entry["reason"] = notebook_status(notebook)
        if not entry.get("plans"):
            entry["plans"] = plans_of(notebook)
        if entry.get("seconds") is None and timings and path.name in timings:
            entry["seconds"] = timings[path.name]
        entry["title"] = _title(notebook, path.stem)
        log = path.with_name(path.stem + ".kernel.log")
        if log.is_file():
            entry["kernel_log"] = log.name
        figures = []
        for number, (anchor, png) in enumerate(key_figures(notebook), start=1):
            relative = f"{_FIGURES}/{path.stem}-{number}.png"
            _write_atomically(folder / relative, png)
            figures.append((relative, anchor))
        cards.append(_card(entry, figures))
    claims = claims_table(notebooks)
    _write_atomically(folder / "claims.csv", claims.to_csv(index=False).encode("utf-8"))
    _write_atomically(folder / FINDINGS, findings_markdown(notebooks, entries, claims, record).encode("utf-8"))
    shown = [entries[p.stem] for p in paths]
    name = record.get("dataset", {}).get("label") or dataset
    title = f"evalkit report{(': ' + name) if name else ''}"
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title><style>{_CSS}</style></head>
<body>
<h1>{html.escape(title)}</h1>
{_nothing_ran(shown, record)}
<p class="muted">Written {html.escape(time.strftime('%Y-%m-%d %H:%M:%S'))}. Every page here opens offline.</p>
{_summary(shown, claims)}
{_glance(shown, claims)}
<h2>The run</h2>
{_run_section(record) if record else '<p class="muted">No batch record (batch.json): statuses read from the notebooks.</p>'}
<h2>Notebooks</h2>
{''.join(cards)}
<h2>The papers' claims beside the kit's figures</h2>
<p class="muted">One row per claim a notebook recorded; <a href="claims.csv">claims.csv</a> holds the same table.</p>
{_claims_html(claims)}
</body></html>
"""
    index = folder / "index.html"
    _write_atomically(index, page.encode("utf-8"))
    return index
