"""Keeping text from input (topic ids, run names, docnos, claims) from becoming live HTML.

Two layers. At the source, pandas escapes the cells of Styler tables (:func:`escape_pandas_html`, run at kernel
start by the batch and by :func:`evalkit.display.plots.setup`). At export, every HTML fragment a notebook output carries
goes through :func:`sanitize_html`: an allow-list of the tags and attributes the kit's own tables, notes and figures
use; anything else (``<script>``, ``<svg onload=...>``, ``on*`` attributes, ``javascript:`` links) is escaped, so
it shows as the text it was instead of running. Styler's row and column labels are not escaped by the pandas
option (pandas has none for them); the export layer is what catches those.
"""

from __future__ import annotations

__all__ = ["escape_pandas_html", "sanitize_html", "ALLOWED_TAGS", "PANDAS_ESCAPE_CODE"]

ALLOWED_TAGS = frozenset({
    "a", "abbr", "b", "blockquote", "br", "caption", "code", "col", "colgroup", "dd", "del", "details", "div",
    "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd",
    "label", "li", "mark", "meter", "ol", "p", "pre", "progress", "q", "s", "samp", "small", "span", "strong",
    "style", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul", "var",
})
_GLOBAL_ATTRIBUTES = frozenset({"class", "id", "title", "style", "align", "lang", "dir"})
_TAG_ATTRIBUTES = {
    "a": {"href", "name"},
    "img": {"src", "alt", "width", "height"},
    "td": {"colspan", "rowspan", "valign"},
    "th": {"colspan", "rowspan", "valign", "scope"},
    "table": {"border", "cellpadding", "cellspacing"},
    "col": {"span", "width"},
    "colgroup": {"span"},
    "ol": {"start", "type"},
    "progress": {"value", "max"},
    "meter": {"value", "min", "max", "low", "high", "optimum"},
    "style": {"type", "scoped"},
    "details": {"open"},
}
_IMAGE_DATA = ("data:image/png;", "data:image/jpeg;", "data:image/gif;", "data:image/svg+xml;")

PANDAS_ESCAPE_CODE = ("try:\n    import pandas as _pd\n    _pd.set_option('styler.format.escape', 'html')\n"
                      "    del _pd\nexcept ImportError:\n    pass\n")  # run at kernel start by the batch


def escape_pandas_html() -> None:
    """Make pandas Styler tables escape their cells' text for HTML (``DataFrame.to_html`` already does)."""
    import pandas as pd

    pd.set_option("styler.format.escape", "html")


def _allowed_attribute(tag: str, name: str, value: str) -> bool:
    if name.startswith("on"):
        return False
    if name not in _GLOBAL_ATTRIBUTES and name not in _TAG_ATTRIBUTES.get(tag, ()):
        return False
    lowered = value.strip().lower()
    if tag == "img" and name == "src":
        return lowered.startswith(_IMAGE_DATA) or ":" not in lowered.split("/", 1)[0]  # inline or relative
    if tag == "a" and name == "href":
        return lowered.startswith(("http://", "https://", "mailto:", "#")) or ":" not in lowered.split("/", 1)[0]
    return True


_cleaner = None


def sanitize_html(fragment: str) -> str:
    """``fragment`` with every tag and attribute outside the allow-list escaped (shown as text, never run)."""
    global _cleaner
    if _cleaner is None:
        from bleach.css_sanitizer import ALLOWED_CSS_PROPERTIES, CSSSanitizer
        from bleach.sanitizer import Cleaner

        css = CSSSanitizer(allowed_css_properties=set(ALLOWED_CSS_PROPERTIES) | {
            "vertical-align", "text-align", "white-space", "border-collapse", "border-spacing", "max-width",
            "min-width", "max-height", "overflow", "overflow-x", "display", "flex", "flex-direction", "gap",
            "font-family", "opacity"})
        _cleaner = Cleaner(tags=ALLOWED_TAGS, attributes=_allowed_attribute,
                           protocols={"http", "https", "mailto", "data"}, strip=False, strip_comments=True,
                           css_sanitizer=css)
    return _cleaner.clean(fragment if isinstance(fragment, str) else "".join(fragment))
