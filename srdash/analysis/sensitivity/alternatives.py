"""Irrelevant alternatives: which pairs of competitors swap places when one other competitor is
removed (:func:`irrelevant_alternatives`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from srdash.analysis.sensitivity.places import places_many
from srdash.analysis.sensitivity.rescorer import Rescorer

__all__ = ["irrelevant_alternatives"]


def irrelevant_alternatives(rescorer: Rescorer, *, weights=None) -> pd.DataFrame:
    """Remove one competitor at a time and list the pairs of others that swap places.

    Under rank-based rules the others' ranks, hence scores, depend on who takes
    part; a verdict whose order changes when a competitor leaves depends on that
    competitor's presence.

    Parameters
    ----------
    rescorer : Rescorer
    weights : optional
        Weights to judge with (default: official).

    Returns
    -------
    DataFrame
        One row per removed competitor, most disruptive first: ``removed``,
        ``winner`` (with everyone), ``winner_without``, ``winner_changes``,
        ``swaps`` (pairs whose order reverses) and ``swapped_pairs`` (text:
        "x/y" means x was ahead of y and is now behind).

    Examples
    --------
    Three methods on two datasets, each of ``b`` and ``c`` second on one of them:

    >>> import pandas as pd
    >>> from srdash.judging.ranking import judge
    >>> from srdash.judging.rules import load_rules
    >>> runs = pd.DataFrame({"method": ["a", "b", "c", "a", "b", "c"], "run": 0,
    ...                      "dataset": ["d1", "d1", "d1", "d2", "d2", "d2"],
    ...                      "r2_test": [0.9, 0.8, 0.1, 0.9, 0.1, 0.8]})
    >>> from srdash.demo.examples import accuracy_rules
    >>> rules = accuracy_rules()
    >>> table = irrelevant_alternatives(Rescorer.from_verdict(judge(runs, rules)))
    >>> table[["removed", "winner", "winner_without", "swaps"]]
      removed winner winner_without  swaps
    0       a      a          b = c      0
    1       b      a              a      0
    2       c      a              a      0
    """
    w = rescorer.weights_from(weights)
    methods = np.array(rescorer.methods, dtype=object)
    places = places_many(rescorer.scores(w)[None, :])[0]
    winner = " = ".join(methods[places == 1])
    rows = []
    for index, removed in enumerate(rescorer.methods if len(rescorer.methods) >= 3 else ()):
        reduced = rescorer.without(removed)
        keep = np.arange(len(methods)) != index
        names, before = methods[keep], places[keep]
        after = places_many(reduced.scores(w)[None, :])[0]
        # x/y: x was strictly ahead of y and is now strictly behind
        ahead, behind = np.nonzero((before[:, None] < before[None, :]) & (after[:, None] > after[None, :]))
        swapped = [f"{names[i]}/{names[j]}" for i, j in zip(ahead, behind)]
        winner_without = " = ".join(names[after == 1])
        leader_before = " = ".join(names[before == before.min()])  # the best of the others before the removal
        rows.append({"removed": removed, "winner": winner, "winner_without": winner_without,
                     "winner_changes": winner_without != leader_before,
                     "swaps": len(swapped), "swapped_pairs": "; ".join(swapped)})
    table = pd.DataFrame(rows, columns=["removed", "winner", "winner_without", "winner_changes", "swaps",
                                        "swapped_pairs"])
    return table.sort_values(["winner_changes", "swaps", "removed"], ascending=[False, False, True],
                             kind="stable").reset_index(drop=True)
