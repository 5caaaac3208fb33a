"""The tour's widget: a slider over the pool depth that re-pools, re-scores and redraws."""

from __future__ import annotations

from evalkit.measures.evaluation import score_matrix
from evalkit.papers.tour.experiment import pooled_scores

__all__ = ["pool_depth_explorer"]


def pool_depth_explorer(collection, measure: str = "AP", max_depth: int = 100, initial: int = 10):
    """Slider over the pool depth: re-pools the judged runs, re-scores every run, plots pooled against full."""
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from evalkit.display.plots import estimate_vs_truth
    from evalkit.display.widgets import interactive_figure

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
