"""Yilmaz, Kanoulas & Aslam 2008: drawing functions. This paper has none of its own.

The notebook draws Figures 1-4 in its cells, from the experiment's frames, with the kit's shared plots
(:func:`evalkit.display.plots.estimate_vs_truth`, :func:`evalkit.display.plots.log_axis_ticks`) and seaborn; the
explorers draw inside their widgets (:mod:`evalkit.papers.yilmaz2008.explorer`).
"""
