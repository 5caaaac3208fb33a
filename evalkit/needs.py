"""What a notebook needs from a collection, checked before it computes anything.

A notebook that cannot run on the loaded collection stops with :class:`NeedsNotMet`: one readable sentence saying
what it needs, what the collection has, and which parameter or metadata changes it. In JupyterLab the sentence is
shown instead of a traceback (IPython's ``_render_traceback_`` hook); in a batch (:mod:`evalkit.pipeline`) the
notebook is reported as *skipped* with that sentence as the reason, not as *failed*.
"""

from __future__ import annotations

__all__ = ["NeedsNotMet", "require"]


class NeedsNotMet(RuntimeError):
    """The collection lacks something the notebook needs: ``need``, what it ``has``, and ``change`` (how to fix)."""

    def __init__(self, need: str, has: str, change: str):
        self.need, self.has, self.change = need, has, change
        super().__init__(f"This notebook needs {need}; the collection has {has}. {change}")

    def _render_traceback_(self) -> list[str]:  # IPython shows this instead of a traceback
        return [f"{type(self).__name__}: {self}"]


def require(condition: bool, need: str, has: str, change: str) -> None:
    """Raise :class:`NeedsNotMet` unless ``condition`` holds."""
    if not condition:
        raise NeedsNotMet(need, has, change)
