"""How the organiser's page names a model: by its method once revealed, else by each judge's own letter.

Letters are shuffled per judge and dataset (:meth:`srdash.judging.trust.TrustStore.blinded_order`), so
"Model F" means another model to each judge. Before the reveal the organiser's page therefore never shows
a letter alone: every letter stands beside the name of the judge whose page shows it ("ann's Model F"),
so the organiser can ask ann about the very model she ranked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import pandas as pd

from srdash.figures.escape import html_text

__all__ = ["naming_note", "flag_item_html", "judge_values"]


def naming_note(*, revealed: bool) -> str:
    """The sentence that says how the organiser's flags name the models.

    Examples
    --------
    >>> naming_note(revealed=False)
    "Models are named by each judge's own letter, as that judge's page shows it."
    """
    if revealed:
        return "Models are named by their method (the methods are revealed)."
    return "Models are named by each judge's own letter, as that judge's page shows it."


def judge_values(table: pd.DataFrame, dataset: str, method: str, column: str) -> list[tuple[str, float]]:
    """(judge, value) of one model, in judge order, from a table with judge, dataset, method and ``column``."""
    mine = table[(table["dataset"].astype(str) == str(dataset)) & (table["method"].astype(str) == str(method))]
    return sorted((str(j), float(v)) for j, v in zip(mine["judge"], mine[column]) if pd.notna(v))


def flag_item_html(dataset: str, method: str, values: Iterable[tuple[str, float]], *, noun: str, revealed: bool,
                   label_of: Callable[[str], Mapping[str, str]]) -> str:
    """One flag of the organiser's panel: the model, named as :func:`naming_note` says, and each judge's value.

    Parameters
    ----------
    dataset, method : str
        The flagged model (``method`` is never shown before the reveal).
    values : iterable of (judge, value)
        Each judge's rank or score of it.
    noun : str
        What the values are ("rank", "score").
    revealed : bool
        Whether the method names are revealed.
    label_of : callable
        ``label_of(judge)`` -> {method: "Model A", ...}: that judge's letters on ``dataset``.

    Examples
    --------
    >>> letters = {"ann": {"m1": "Model F"}, "bob": {"m1": "Model C"}}
    >>> flag_item_html("d", "m1", [("ann", 2.0), ("bob", 4.0)], noun="rank", revealed=False,
    ...                label_of=letters.__getitem__)
    "<li>d: ann's Model F, rank 2; bob's Model C, rank 4</li>"
    >>> flag_item_html("d", "m1", [("ann", 2.0), ("bob", 4.0)], noun="rank", revealed=True,
    ...                label_of=letters.__getitem__)
    '<li>d / m1: ranks ann 2, bob 4</li>'
    """
    values = list(values)
    if revealed:
        listed = ", ".join(f"{html_text(judge)} {value:g}" for judge, value in values)
        return f"<li>{html_text(dataset)} / {html_text(method)}: {noun}s {listed}</li>"
    listed = "; ".join(f"{html_text(judge)}'s {html_text(label_of(judge).get(method, '?'))}, {noun} {value:g}"
                       for judge, value in values)
    return f"<li>{html_text(dataset)}: {listed}</li>"
