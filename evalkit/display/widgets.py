"""ipywidgets front-ends: sliders that re-run a kit computation and redraw its figure.

Each function returns a widget (display it, or let the notebook show it as the cell's value). Under papermill
the widgets render once, statically; in JupyterLab they are live.
"""

from __future__ import annotations

import os
import time

__all__ = ["interactive_figure", "batch_mode"]


SETTLE_SECONDS = 0.5
BATCH_ENV = "EVALKIT_BATCH"  # set by evalkit.batch.pipeline.run_notebook while papermill executes a notebook


def batch_mode() -> bool:
    """True when the notebook runs in a batch (papermill via :func:`evalkit.batch.pipeline.run_notebook`)."""
    return os.environ.get(BATCH_ENV, "") not in ("", "0")


def interactive_figure(draw, rows=None, **controls):
    """Controls above a figure that ``draw(**values)`` redraws whenever a control changes.

    ``rows`` (a list of lists of control names) lays the controls out in rows; by default one row.

    In a batch run (:func:`batch_mode`) no widget is shown: ``draw`` runs once with the controls' initial values,
    its figure and tables going straight to the cell's output, and a note says the controls are live in
    JupyterLab. This keeps papermill runs free of the Output-widget capture that makes nbclient intermittently
    miss a cell's reply and hang (nbclient issue #312, nbconvert #1921). Interactively the box is returned after a
    short pause (:data:`SETTLE_SECONDS`) for the same reason.
    """
    import ipywidgets as widgets

    if batch_mode():
        from IPython.display import HTML

        draw(**{name: control.value for name, control in controls.items()})
        names = ", ".join(getattr(c, "description", "") or n for n, c in controls.items())
        return HTML(f"<p><i>Interactive controls ({names}) are live when this notebook is opened in JupyterLab "
                    "(<code>make lab</code>); the figure above shows their initial values.</i></p>")
    output = widgets.interactive_output(draw, controls)
    rows = rows or [list(controls)]
    box = widgets.VBox([widgets.HBox([controls[name] for name in row]) for row in rows] + [output])
    time.sleep(SETTLE_SECONDS)
    return box
