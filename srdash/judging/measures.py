"""The registry of measures: how each criterion's value is obtained from a run.

A rules file says, per criterion, ``measure = "..."``: the value is given in the
results (``column``), counted on the model string (``simplified-components``,
``tree-nodes``, ``rounded-nodes``) or computed from the model and the dataset's
file (``r2-on-data``). The pipeline (:func:`srdash.judging.pipeline.prepare_runs`)
computes each measure a competition's rules ask for, once, and nothing else:
a model is simplified only when a criterion is measured ``simplified-components``.
Which command was called never changes a measure. The model-level functions
live in :mod:`srdash.expressions.measures` (the only package importing sympy),
under the same names; this registry imports no sympy.

Examples
--------
>>> sorted(MEASURES)
['column', 'r2-on-data', 'rounded-nodes', 'simplified-components', 'tree-edit-distance', 'tree-nodes']
>>> measure("tree-nodes").from_model, measure("column").from_model
(True, False)
>>> default_measure("simplicity"), default_measure("r2_test")
('simplified-components', 'column')
>>> measure("nodes")
Traceback (most recent call last):
...
srdash.errors.RulesError: Unknown measure 'nodes'. Measures: 'column', 'r2-on-data', 'rounded-nodes', 'simplified-components', 'tree-edit-distance', 'tree-nodes'.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from srdash.errors import RulesError

__all__ = ["Measure", "MEASURES", "measure", "default_measure", "DATA_PARTITION_PREFIX"]

#: ``r2-on-data`` reads the partition named by its column: ``r2_test`` is R2 on the ``test`` file.
DATA_PARTITION_PREFIX = "r2_"


@dataclass(frozen=True)
class Measure:
    """One way of obtaining a criterion's value.

    Attributes
    ----------
    name : str
        As written in rules files (``measure = "..."``).
    summary : str
        One sentence for readers (shown in errors and docs).
    from_model : bool
        Counted on the model string alone (in :mod:`srdash.expressions.measures`,
        in worker processes under the competition's time limit, cached).
    needs_data : bool
        Computed from the model and the dataset's file (the competition's
        ``descriptions`` name the files).
    how_to_supply : str
        What a user does when the criterion has no data.
    needs_truth : bool
        Compares the model with the dataset's ground truth (column ``true_model``); the results carry
        the value, written by ``srdash analyse tree-distance``.
    """

    name: str
    summary: str
    from_model: bool = False
    needs_data: bool = False
    how_to_supply: str = ""
    needs_truth: bool = False


MEASURES: Mapping[str, Measure] = {
    m.name: m for m in (
        Measure("column", "The value is given in the results' column.",
                how_to_supply="add the column to the results, or declare another measure in the rules"),
        Measure("simplified-components",
                "Components of the sympy-simplified model, floats rounded to 3 decimals, as "
                "round(-log5(components), 1) in the column 'simplicity' (SRBench 2022).",
                from_model=True,
                how_to_supply="give the runs' model strings (column 'model') or their 'components'"),
        Measure("tree-nodes",
                "Nodes of the sympy expression tree of the model as submitted, no simplification "
                "(SRBench 2023).",
                from_model=True, how_to_supply="give the runs' model strings (column 'model')"),
        Measure("rounded-nodes",
                "Nodes of the sympy expression tree after rounding floats (|c| < 1e-4 to 0, else 3 "
                "decimals), no simplification (SRBench 2025, 2022 real-world track).",
                from_model=True, how_to_supply="give the runs' model strings (column 'model')"),
        Measure("r2-on-data",
                "R2 of the model (parsed safely as submitted) on its dataset's file, not rounded "
                "(SRBench 2023 track 1); the column r2_<partition> names the file.",
                needs_data=True,
                how_to_supply="give the runs' model strings (column 'model') and name each dataset's files "
                              "in the competition's descriptions (docs/competition.md)"),
        Measure("tree-edit-distance",
                "SRSD's normalised tree edit distance min(1, d/|truth|) between the model and the ground truth, "
                "both simplified as SRBench 2022 (0 = exact recovery; lower is better); for exact-recovery "
                "datasets.",
                needs_truth=True,
                how_to_supply="give the runs' model strings and ground truths (columns 'model', 'true_model') "
                              "to 'srdash analyse tree-distance', which writes the column 'tree_edit_distance'"),
    )
}


def measure(name: str) -> Measure:
    """The registered measure called ``name``.

    Raises
    ------
    RulesError
        When no measure has that name; the message lists the measures.
    """
    try:
        return MEASURES[name]
    except (KeyError, TypeError):
        listed = ", ".join(f"'{k}'" for k in sorted(MEASURES))
        raise RulesError(f"Unknown measure {name!r}. Measures: {listed}.") from None


def default_measure(column: str) -> str:
    """The measure of a criterion that does not declare one: the 2022 simplicity column is computed from
    the simplified model (as srdash always did); any other column is given in the results."""
    return "simplified-components" if column == "simplicity" else "column"
