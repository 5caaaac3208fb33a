"""The planner's widget: alpha, power, the difference to detect or the CI width, the budget and the measure, each
move re-planning on the measured designs (:func:`evalkit.planning.plan.replan`, instant) and redrawing the
trade-off figure (built on :func:`evalkit.display.widgets.interactive_figure`, static in a batch)."""

from __future__ import annotations

import numpy as np

__all__ = ["planner_explorer", "REQUIREMENTS"]

REQUIREMENTS = ("difference (t-test)", "CI width")


def _draw(collection, plan, designs, replicates, seed, measure, alpha, power, requirement, value, budget):
    import matplotlib.pyplot as plt
    from IPython.display import Markdown, display

    from evalkit.papers.budget_planner.experiment import measure_designs
    from evalkit.papers.budget_planner.figures import plot_tradeoff
    from evalkit.papers.budget_planner.tables import proposal_table
    from evalkit.planning.plan import recommendation, replan

    if measure not in designs:  # measured once per measure, then every move is instant
        designs[measure] = measure_designs(collection, plan, measure, replicates, seed)
    if power <= alpha:
        print(f"power ({power:g}) must be above alpha ({alpha:g})")
        return
    kwargs = {"delta": value} if requirement == REQUIREMENTS[0] else {"ci_width": value}
    frame = replan(designs[measure], alpha=alpha, power=power, budget=budget, **kwargs)
    plot_tradeoff(frame)
    plt.show()
    display(Markdown(" ".join(recommendation(frame))))
    display(proposal_table(frame).style.format({"topics": "{:,.0f}", "judgments per topic": "{:,.0f}",
                                                "total judgments": "{:,.0f}"}))


def planner_explorer(collection, plan, designs: dict, replicates: int = 5, seed: int = 0):
    """Controls for the requirement and the budget above the trade-off figure and the proposal table.
    ``designs``: measure -> :func:`evalkit.planning.designs.design_variances` frame, filled on demand (a measure
    not yet measured takes a few seconds the first time it is chosen)."""
    from functools import partial

    import ipywidgets as widgets

    from evalkit.display.widgets import interactive_figure

    budget = float(plan.budget)
    controls = {
        "measure": widgets.Dropdown(options=list(plan.measures), value=plan.measure, description="measure"),
        "alpha": widgets.FloatSlider(value=plan.alpha, min=0.01, max=0.2, step=0.01, description="alpha",
                                     continuous_update=False),
        "power": widgets.FloatSlider(value=plan.power, min=0.5, max=0.99, step=0.01, description="power",
                                     continuous_update=False),
        "requirement": widgets.Dropdown(options=list(REQUIREMENTS), value=REQUIREMENTS[0], description="plan for"),
        "value": widgets.FloatSlider(value=plan.delta, min=0.01, max=0.3, step=0.005, description="delta / width",
                                     continuous_update=False, readout_format=".3f"),
        "budget": widgets.FloatLogSlider(value=budget, base=10, min=np.log10(budget) - 1.5,
                                         max=np.log10(budget) + 1.0, step=0.05, description="budget",
                                         continuous_update=False, readout_format=",.0f"),
    }
    draw = partial(_draw, collection, plan, designs, replicates, seed)
    return interactive_figure(draw, rows=[["measure", "requirement", "value"], ["alpha", "power", "budget"]],
                              **controls)
