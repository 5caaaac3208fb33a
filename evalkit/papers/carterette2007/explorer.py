"""Carterette (2007): the ipywidgets explorer (sliders for k, c, alpha, the aggregation prior and the number of
trials, redrawing :func:`evalkit.papers.carterette2007.figures.explorer_figure`; in batch the initial figure)."""

from __future__ import annotations

from evalkit.data.collection import Collection
from evalkit.papers.carterette2007.experiment import RTC_SMOOTHED, TrialData
from evalkit.papers.carterette2007.figures import explorer_figure


def explorer(data: TrialData | Collection, n_trials: int = 4, seed: int = 2007, k: int = 10, c: int = 2,
             alpha: float = 0.95, prior=RTC_SMOOTHED["prior"], max_judgments: int | None = None,
             scheduler: str | None = "serial", n_jobs: int | None = None):
    """Widget: sliders for k, c, alpha, the aggregation prior Beta(a, b) and the number of trials; each change
    reruns that many trials and redraws :func:`explorer_figure`.

    The figure is placed in an ``ipywidgets.Output`` as a PNG through ``Output.append_display_data`` rather than
    by capturing output (``with out:``, what ``interactive_output`` does): executed in batch by papermill/nbclient,
    captured output makes the client echo every output back to the kernel over the shell channel, which hung
    the widget cell intermittently (cf. jupyter/nbconvert#1921, jupyter/nbclient#312); and, as
    :func:`evalkit.display.widgets.interactive_figure` does, it pauses briefly before returning."""
    import io
    import time

    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import Image

    from evalkit.display.widgets import SETTLE_SECONDS, batch_mode

    if isinstance(data, Collection):
        data = TrialData.from_collection(data)
    if batch_mode():  # papermill: the initial figure, no live widget (see evalkit.display.widgets.interactive_figure)
        return explorer_figure(data, n_trials, seed, k, c, alpha, prior, max_judgments, scheduler, n_jobs)
    n_runs = data.docs.shape[0]
    style = {"continuous_update": False}
    controls = {
        "k": widgets.IntSlider(value=min(k, n_runs), min=3, max=min(20, n_runs), description="k runs", **style),
        "c": widgets.IntSlider(value=c, min=2, max=9, description="c original", **style),
        "alpha": widgets.FloatSlider(value=alpha, min=0.8, max=0.99, step=0.01, description="α", **style),
        "prior_a": widgets.FloatLogSlider(value=prior[0], base=10, min=0, max=3, step=0.25, description="prior a",
                                          **style),
        "prior_b": widgets.FloatLogSlider(value=prior[1], base=10, min=0, max=3, step=0.25, description="prior b",
                                          **style),
        "trials": widgets.IntSlider(value=n_trials, min=1, max=12, description="trials", **style),
    }
    out = widgets.Output()

    def refresh(_change=None):
        v = {name: control.value for name, control in controls.items()}
        fig = explorer_figure(data, v["trials"], seed, v["k"], v["c"], v["alpha"], (v["prior_a"], v["prior_b"]),
                              max_judgments, scheduler, n_jobs)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=80)
        plt.close(fig)
        out.outputs = ()
        out.append_display_data(Image(data=buffer.getvalue(), format="png"))

    for control in controls.values():
        control.observe(refresh, names="value")
    refresh()
    names = list(controls)
    box = widgets.VBox([widgets.HBox([controls[n] for n in names[:3]]), widgets.HBox([controls[n] for n in names[3:]]),
                        out])
    time.sleep(SETTLE_SECONDS)  # let the burst of widget messages settle before the cell's reply (see evalkit.display.widgets)
    return box
