"""Yilmaz, Kanoulas & Aslam 2008: drawing functions. None: this paper has nothing for this role.

The notebook draws Figures 1-4 in its own cells from the experiment's frames with the kit's shared plots
(:func:`evalkit.display.plots.estimate_vs_truth`, :func:`evalkit.display.plots.log_axis_ticks`) and seaborn; the
explorers' drawings live with their widgets in :mod:`evalkit.papers.yilmaz2008.explorer`.
"""
