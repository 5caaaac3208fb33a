"""Sentences computed from the results they state (issue 13 item 3).

A notebook's Markdown cells are written once; its numbers change with the dataset, the preset and the seed. A
sentence that states a result ("the cap bites 3 of 50 topics", "infAP is below MAP for 118 of 129 runs") is
therefore rendered from the result, in a code cell, with :func:`say`; a Markdown cell states only what holds on
any collection, or names the collection it describes ("on TREC-8, ...").

>>> from evalkit.display import narrative
>>> narrative.text("The cap bites {capped} of {topics} {noun}.", capped=3, topics=50,
...                noun=narrative.plural(50, "topic"))
'The cap bites 3 of 50 topics.'
"""

from __future__ import annotations

__all__ = ["text", "say", "plural", "choose", "dataset_description", "show_dataset", "COLLECTION_NAMES"]

#: how a collection's ``name`` reads in a sentence
COLLECTION_NAMES = {"trec8": "TREC-8 ad hoc (the official qrels)",
                    "synthetic": "the kit's simulated TREC-like collection"}


def text(template: str, **values) -> str:
    """``template`` with ``values`` filled in (``str.format``); a missing value is an error naming it."""
    try:
        return template.format(**values)
    except KeyError as exc:
        raise KeyError(f"narrative: no value given for {{{exc.args[0]}}} in {template[:60]!r}") from None


def say(template: str, **values) -> None:
    """Display ``template`` filled with ``values`` as Markdown in the notebook (plain text outside one)."""
    rendered = text(template, **values)
    try:
        from IPython import get_ipython
        from IPython.display import Markdown, display
    except ImportError:  # pragma: no cover - IPython is a dependency
        print(rendered)
        return
    if get_ipython() is None:
        print(rendered)
    else:
        display(Markdown(rendered))


def plural(n: int, singular: str, plural_form: str | None = None) -> str:
    """``singular`` for 1, else ``plural_form`` (``singular + "s"``)."""
    return singular if int(n) == 1 else (plural_form or singular + "s")


def choose(condition: bool, if_true: str, if_false: str) -> str:
    """One of two phrasings, picked by a computed condition (so the prose follows the numbers)."""
    return if_true if condition else if_false


def dataset_description(collection, preset: str | None = None) -> str:
    """One Markdown sentence: which collection this notebook ran on, its size, and the preset."""
    name = getattr(collection, "name", "?")
    shown = COLLECTION_NAMES.get(name, f"the collection `{name}`")
    if name == "synthetic" and collection.n_runs < 100:
        shown = "the kit's small simulated collection (fast mode, for tests)"
    judged = ""
    try:
        judged = f", {int(collection.judged_runs.sum())} of them contributed to the pools"
    except Exception:  # a collection without pool information
        pass
    size = f"{collection.n_runs} runs{judged}, {collection.n_topics} topics"
    sized = f"; preset **{preset}**" if preset else ""
    return f"**This run uses {shown}**: {size}{sized}."


def show_dataset(collection, preset: str | None = None) -> None:
    """Display :func:`dataset_description` (the line at the top of every notebook saying what it ran on)."""
    say("{line}", line=dataset_description(collection, preset))
