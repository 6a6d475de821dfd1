"""Model strings: the only package importing sympy.

One module per idea, their public names re-exported here:

- :mod:`~srdash.expressions.parse`: :func:`parse_model`, the safe parser of untrusted model strings
  (an :mod:`ast` whitelist, never ``eval``), :data:`ALLOWED_FUNCTIONS`;
- :mod:`~srdash.expressions.complexity`: :func:`complexity_table` (SRBench 2022's simplified
  components, in worker processes under a hard time limit, cached), :func:`simplicity_from_components`;
- :mod:`~srdash.expressions.evaluate`: :func:`evaluate_model`, a model's predictions on data;
- :mod:`~srdash.expressions.latex`: :func:`latex_of`;
- :mod:`~srdash.expressions.equivalence`: :func:`equivalence_table`, :func:`equivalent_models`
  (exact re-discovery of a ground truth);
- :mod:`~srdash.expressions.submitted`: SRBench 2023's models as submitted
  (:func:`parse_submitted_model`, :func:`tree_size`, :func:`evaluate_expression`, :func:`expression_tree`).

:mod:`~srdash.expressions.measures` lists what the rules can count on a model;
:mod:`~srdash.expressions.tree_distance` measures graded recovery.
"""

from __future__ import annotations

from srdash.expressions.complexity import COLUMNS, STATUSES, complexity_table, simplicity_from_components
from srdash.expressions.equivalence import equivalence_table, equivalent_models
from srdash.expressions.evaluate import evaluate_model
from srdash.expressions.latex import latex_of
from srdash.expressions.parse import parse_model
from srdash.expressions.vocabulary import ALLOWED_FUNCTIONS, MAX_LITERAL_DIGITS, MAX_LITERAL_EXPONENT
from srdash.expressions.submitted import evaluate_expression, expression_tree, parse_submitted_model, tree_size

# COLUMNS and MAX_LITERAL_* are importable from here as before the split (README), outside __all__ as then.
__all__ = [
    "ALLOWED_FUNCTIONS",
    "STATUSES",
    "complexity_table",
    "evaluate_model",
    "latex_of",
    "parse_model",
    "simplicity_from_components",
    "equivalent_models",
    "equivalence_table",
    "parse_submitted_model",
    "tree_size",
    "evaluate_expression",
    "expression_tree",
]
