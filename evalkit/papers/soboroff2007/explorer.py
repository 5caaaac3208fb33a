"""Soboroff (2007): the ipywidgets explorer of the sampling design (rpt, phase-1 depth, slope), built on
:func:`evalkit.display.widgets.interactive_figure`."""

from __future__ import annotations

from evalkit.data.collection import Collection
from evalkit.judging.relevance_sampling import DEFAULTS
from evalkit.papers.soboroff2007.figures import draw_design

__all__ = ["explorer"]


def explorer(collection: Collection, rpt: float = DEFAULTS["rpt"], phase1_depth: int = DEFAULTS["phase1_depth"],
             slope: float = DEFAULTS["slope"], budget: int = DEFAULTS["budget"], max_depth="judged", seed=0):
    """Sliders for rpt (new relevant per ``budget`` judgments), the phase-1 pool depth and the slope, redrawing
    :func:`draw_design` (depths per topic, MAP / infAP scatter)."""
    import ipywidgets as widgets

    from evalkit.data.pools import judged_depth
    from evalkit.display.widgets import interactive_figure

    cap = judged_depth(collection) if max_depth == "judged" else (collection.depth if max_depth is None
                                                                  else int(max_depth))
    if cap < 2:
        raise ValueError(f"{collection.name}: judgments reach depth {cap}; the explorer needs a phase-1 pool and "
                         "a sample below it (see plan())")
    cache: dict = {}
    relevant = widgets.IntSlider(value=round(rpt * budget), min=1, max=max(2, budget // 2),
                                 description=f"rel / {budget}", continuous_update=False)
    step = 5 if cap >= 50 else 1  # 5-rank steps on TREC-8-deep pools, single ranks on shallow ones
    depth = widgets.IntSlider(value=min(phase1_depth, cap - 1), min=step, max=cap - 1, step=step,
                              description="phase-1 depth", continuous_update=False)
    fall = widgets.FloatSlider(value=slope, min=0.005, max=0.1, step=0.005, readout_format=".3f",
                               description="slope", continuous_update=False)
    return interactive_figure(
        lambda relevant, depth, fall: draw_design(collection, relevant / budget, depth, fall, budget, cap, seed,
                                                  cache),
        relevant=relevant, depth=depth, fall=fall,
    )
