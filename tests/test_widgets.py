"""interactive_figure: live widgets interactively, a static draw in batch runs (no Output-widget capture)."""

from __future__ import annotations

import ipywidgets as widgets

from evalkit.display import widgets as kit_widgets


def test_batch_mode_draws_once_with_initial_values(monkeypatch):
    monkeypatch.setenv(kit_widgets.BATCH_ENV, "1")
    calls = []
    result = kit_widgets.interactive_figure(lambda depth, rate: calls.append((depth, rate)),
                                            depth=widgets.IntSlider(value=7), rate=widgets.FloatSlider(value=0.25))
    assert calls == [(7, 0.25)]
    assert "live" in result.data and "JupyterLab" in result.data


def test_interactive_mode_returns_rows_and_output(monkeypatch):
    monkeypatch.delenv(kit_widgets.BATCH_ENV, raising=False)
    monkeypatch.setattr(kit_widgets, "SETTLE_SECONDS", 0.0)
    controls = {"a": widgets.IntSlider(), "b": widgets.IntSlider(), "c": widgets.IntSlider()}
    box = kit_widgets.interactive_figure(lambda a, b, c: None, rows=[["a", "b"], ["c"]], **controls)
    assert isinstance(box, widgets.VBox) and len(box.children) == 3
    assert list(box.children[0].children) == [controls["a"], controls["b"]]
    assert isinstance(box.children[2], widgets.Output)
