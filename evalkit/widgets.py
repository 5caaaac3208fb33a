"""ipywidgets front-ends: sliders that re-run a kit computation and redraw its figure.

Each function returns a widget (display it, or let the notebook show it as the cell's value). Under papermill
the widgets render once, statically; in JupyterLab they are live.
"""

from __future__ import annotations

__all__ = ["pool_depth_explorer", "interactive_figure"]


SETTLE_SECONDS = 0.5


def interactive_figure(draw, **controls):
    """``ipywidgets.interactive_output`` around ``draw(**values)``, the controls stacked above the figure.

    Returns after a short pause (:data:`SETTLE_SECONDS`): building an interactive figure sends a burst of widget
    messages (comm open and update, the Output widget's capture); when the cell's execute_reply follows them at
    once, the notebook runner papermill uses (nbclient + jupyter_client, nbclient issue #312) intermittently misses
    the reply and a batch run hangs. Letting the burst settle avoids it; interactively it costs half a second.
    """
    import time

    import ipywidgets as widgets

    output = widgets.interactive_output(draw, controls)
    box = widgets.VBox([widgets.HBox(list(controls.values())), output])
    time.sleep(SETTLE_SECONDS)
    return box


def pool_depth_explorer(collection, measure: str = "AP", max_depth: int = 100, initial: int = 10):
    """Slider over the pool depth: re-pools the judged runs, re-scores every run, plots pooled against full."""
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from .evaluation import score_matrix
    from .experiments.tour import pooled_scores
    from .plots import estimate_vs_truth

    truth = score_matrix(collection, measure).mean(axis=1)
    judged = collection.judged_runs

    def draw(depth):
        scores, n_judged = pooled_scores(collection, depth, measure)
        fig, ax = plt.subplots(figsize=(5.5, 5))
        estimate_vs_truth(truth, scores.mean(axis=1), judged, xlabel=f"{measure}, full qrels",
                          ylabel=f"{measure}, depth-{depth} pool", ax=ax,
                          title=f"depth {depth}: {n_judged:,} judgments")
        plt.show()

    depth = widgets.IntSlider(value=initial, min=1, max=min(max_depth, collection.depth), description="pool depth",
                              continuous_update=False)
    return interactive_figure(draw, depth=depth)
