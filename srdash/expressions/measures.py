"""What the rules can count on a model string, side by side (the model side of
:mod:`srdash.judging.measures`).

Three ways of measuring a model's size, each named by the rules' ``measure``:

``simplified-components``
    SRBench 2022: ``sympy.simplify``, floats rounded to 3 decimals (below 0.001: 0),
    nodes counted (:func:`srdash.expressions.complexity_table`).
``tree-nodes``
    SRBench 2023: the nodes of the sympy tree of the model *as submitted*: sympy's
    automatic evaluation only (:func:`srdash.expressions.parse_submitted_model`,
    :func:`srdash.expressions.tree_size`).
``rounded-nodes``
    SRBench 2025 and the 2022 real-world track: every float ``c`` of the submitted
    tree rounded (``|c| < 1e-4`` becomes 0, any other to 3 decimals), sympy's
    automatic evaluation only, no simplification; then the nodes counted.

Every model string is parsed through the whitelist (never ``eval``/``sympify``) and
measured in a worker process under the competition's time limit; results are cached
(:mod:`srdash.cache`) under the measure's own procedure name.

Examples
--------
>>> measure_model("x0*x0 + 0.00002*x1 - 1.23456", "tree-nodes")
8
>>> measure_model("x0*x0 + 0.00002*x1 - 1.23456", "rounded-nodes")  # x0**2 - 1.235: Add, Pow, x0, 2, -1.235
5
>>> measure_model("x0*x0 + 0.00002*x1 - 1.23456", "simplified-components")
5
>>> measure_table(["x0 - x1", "open(x0)"], measure="tree-nodes", cache=False)[["nodes", "status"]]
   nodes    status
0    5.0        ok
1    NaN  rejected
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import sympy

from srdash.expressions.complexity import round_floats, complexity_table
from srdash.expressions.counting import (MODEL_MEASURES, ROUND_DECIMALS, ROUND_TO_ZERO_BELOW,  # noqa: F401 - re-exported
                                        ModelMeasure, count_nodes)
from srdash.expressions.parse import count_components
from srdash.expressions.submitted import parse_submitted_model
from srdash.expressions.tree_distance import normalised_tree_edit_distance

__all__ = ["ModelMeasure", "MODEL_MEASURES", "TRUTH_MEASURES", "count_nodes", "measure_model", "measure_table"]


#: The measures that compare a model string with the ground truth's: name -> ``f(model, truth) -> float``
#: (:mod:`srdash.expressions.tree_distance`; tables under a time limit:
#: :func:`srdash.analysis.recovery.normalised_edit_distances`).
TRUTH_MEASURES: Mapping[str, Callable] = {"tree-edit-distance": normalised_tree_edit_distance}


def measure_model(text: str, measure: str, *, features=None) -> int:
    """The size of one model string under ``measure``, in this process (no time limit: for examples
    and tests; judging uses :func:`measure_table`).

    Raises
    ------
    ModelRejected
        When the whitelist parser refuses the string.
    """
    if MODEL_MEASURES[measure].simplifies:
        simplified = sympy.simplify(parse_submitted_model(text, features=features))
        return count_components(round_floats(simplified, ROUND_DECIMALS))
    return count_nodes(parse_submitted_model(text, features=features), measure)[1]


def measure_table(models, *, measure: str, features=None, timeout: float = 10.0, jobs: int = 1, cache=None,
                  progress=None, scheduler=None, retry_timeouts: bool = False):
    """The size of each model string under ``measure``, under a hard time limit, cached.

    The same workers, limits, cache and statuses as
    :func:`srdash.expressions.complexity_table` (which is ``measure="simplified-components"``).

    Parameters
    ----------
    models : sequence of str or pandas.Series
    measure : str, keyword-only
        One of :data:`MODEL_MEASURES`.
    features, timeout, jobs, cache, progress, scheduler, retry_timeouts : keyword-only
        As in :func:`srdash.expressions.complexity_table`.

    Returns
    -------
    pandas.DataFrame
        ``nodes`` (float, NaN when refused), ``expression`` (the counted expression
        as text), ``status``, ``reason``, ``seconds``; for ``simplified-components`` also
        ``simplicity`` and ``features_used``.
    """
    if measure not in MODEL_MEASURES:
        raise ValueError(f"The 'measure' option must be one of {', '.join(map(repr, MODEL_MEASURES))}. "
                         f"Got {measure!r}.")
    table = complexity_table(models, features=features, timeout=timeout, jobs=jobs, cache=cache,
                             progress=progress, scheduler=scheduler, retry_timeouts=retry_timeouts,
                             _measure=measure)
    table = table.rename(columns={"components": "nodes", "simplified": "expression"})
    if not MODEL_MEASURES[measure].simplifies:
        table = table.drop(columns=["simplicity", "features_used"])
    return table
