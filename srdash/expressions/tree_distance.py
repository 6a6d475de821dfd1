"""Graded recovery: the normalised tree edit distance between a model and the ground truth.

SRSD (Matsubara et al., "Rethinking Symbolic Regression Datasets and Benchmarks for Scientific
Discovery", 2022/2024) scores how far a model is from the true equation by the edit distance between
their expression trees, normalised by the true tree's size:

    NED(f̂, f) = min(1, d(f̂, f) / |f|),

with ``d`` the Zhang-Shasha tree edit distance under unit costs (deleting, inserting or relabelling a
node costs 1; srsd-benchmark's ``compute_distance`` with zss's ``simple_distance``) and ``|f|`` the
number of nodes of the true tree. 0 is exact recovery, 1 is nothing in common worth less than building
the truth from scratch.

The trees are built as SRSD builds them from sympy: every node of ``sympy.preorder_traversal`` is a
node (so ``|f|`` is :func:`srdash.expressions.tree_size`), its children are the sympy arguments in
sympy's order, and its label is ``"Const"`` for any number (so constants' values do not count: a
model that finds the form but not the constants is at distance 0), the name for a variable, and the
function's class name (``Add``, ``Mul``, ``Pow``, ``sin`` ...) otherwise.

Before measuring, both strings are parsed through the whitelist (never ``eval``) and, by default,
simplified as the SRBench 2022 rules do (``sympy.simplify``, then floats rounded to 3 decimals, below
0.001 to 0: the ``simplified-components`` procedure); ``simplify=False`` measures the trees as submitted
(sympy's automatic evaluation only).

Cost: the distance takes O(n·m·min(depth, leaves)²) steps in pure Python. A tree above
:data:`MAX_TREE_NODES` nodes (either side) is refused (``TreeTooLarge``); measured on this machine, two
random 150-node trees take well under a second.

Examples
--------
>>> tree_edit_distance(parse_submitted_model("x0 + x1"), parse_submitted_model("x0*x1"))  # Add -> Mul
1
>>> normalised_tree_edit_distance("2.5*x0 + sin(x1)", "x0 + sin(x1)")  # delete Mul and Const: 2 of the truth's 4
0.5
>>> normalised_tree_edit_distance("x0 - x0 + 3.1*x1", "3*x1")  # simplified first: 3.1*x1 vs 3*x1
0.0
"""

from __future__ import annotations

import math

import sympy

from srdash.errors import ModelRejected
from srdash.expressions import _round_floats, parse_submitted_model

__all__ = ["MAX_TREE_NODES", "TreeTooLarge", "expression_tree", "tree_edit_distance",
           "normalised_tree_edit_distance", "tree_distance_table"]

#: Largest tree (nodes) either side of a distance: bounds its O(n·m·depth²) cost.
MAX_TREE_NODES = 150
#: The label of every number (SRSD's ``Const``).
CONST = "Const"


class TreeTooLarge(ValueError):
    """A tree has more than :data:`MAX_TREE_NODES` nodes: its distance is not computed."""


def _label(node) -> str:
    if node.is_number:
        return CONST
    if isinstance(node, sympy.Symbol):
        return node.name
    return type(node).__name__


def expression_tree(expression) -> tuple:
    """The labelled ordered tree of a sympy expression: ``(label, (child, ...))``, children in sympy's order.

    Examples
    --------
    >>> expression_tree(parse_submitted_model("2*x0"))
    ('Mul', (('Const', ()), ('x0', ())))
    """
    return (_label(expression), tuple(expression_tree(arg) for arg in expression.args))


def _postorder(tree) -> tuple[list, list]:
    """Labels in post-order and, for each node, the post-order index of its leftmost leaf."""
    labels, leftmost = [], []

    def walk(node):
        label, children = node
        first = None
        for child in children:
            index = walk(child)
            if first is None:
                first = leftmost[index]
        labels.append(label)
        leftmost.append(len(labels) - 1 if first is None else first)
        return len(labels) - 1

    walk(tree)
    return labels, leftmost


def _keyroots(leftmost: list) -> list:
    """The nodes with no ancestor sharing their leftmost leaf (the root and every left-sibling-having node)."""
    last = {}
    for index, leaf in enumerate(leftmost):
        last[leaf] = index
    return sorted(last.values())


def _size(tree) -> int:
    return 1 + sum(_size(child) for child in tree[1])


def tree_edit_distance(a, b) -> int:
    """Zhang-Shasha edit distance between two expressions (or :func:`expression_tree` trees), unit costs.

    Parameters
    ----------
    a, b : sympy.Expr or tuple
        Expressions, or trees as :func:`expression_tree` returns them.

    Returns
    -------
    int
        The least number of node deletions, insertions and relabellings turning ``a`` into ``b``.

    Raises
    ------
    TreeTooLarge
        When a tree has more than :data:`MAX_TREE_NODES` nodes.
    """
    trees = [t if isinstance(t, tuple) else expression_tree(t) for t in (a, b)]
    for side, tree in zip(("first", "second"), trees):
        if _size(tree) > MAX_TREE_NODES:
            raise TreeTooLarge(f"The {side} tree has {_size(tree)} nodes, more than the {MAX_TREE_NODES} a tree edit "
                               "distance is computed for.")
    (labels_a, left_a), (labels_b, left_b) = _postorder(trees[0]), _postorder(trees[1])
    n, m = len(labels_a), len(labels_b)
    distance = [[0] * m for _ in range(n)]
    for i in _keyroots(left_a):
        for j in _keyroots(left_b):
            li, lj = left_a[i], left_b[j]
            rows, cols = i - li + 2, j - lj + 2
            forest = [[0] * cols for _ in range(rows)]
            for x in range(1, rows):
                forest[x][0] = x
            for y in range(1, cols):
                forest[0][y] = y
            for x in range(1, rows):
                node_a = li + x - 1
                for y in range(1, cols):
                    node_b = lj + y - 1
                    if left_a[node_a] == li and left_b[node_b] == lj:
                        forest[x][y] = min(forest[x - 1][y] + 1, forest[x][y - 1] + 1,
                                           forest[x - 1][y - 1] + (labels_a[node_a] != labels_b[node_b]))
                        distance[node_a][node_b] = forest[x][y]
                    else:
                        forest[x][y] = min(forest[x - 1][y] + 1, forest[x][y - 1] + 1,
                                           forest[left_a[node_a] - li][left_b[node_b] - lj]
                                           + distance[node_a][node_b])
    return distance[n - 1][m - 1]


def _prepared(text: str, *, simplify: bool, features):
    expression = parse_submitted_model(text, features=features)
    return _round_floats(sympy.simplify(expression), 3) if simplify else expression


def normalised_tree_edit_distance(model: str, truth: str, *, simplify: bool = True, features=None) -> float:
    """SRSD's normalised edit distance ``min(1, d(model, truth) / |truth|)`` between two model strings.

    Runs in this process without a time limit (``sympy.simplify`` of a hostile model can be slow):
    judging runs it in a worker under the competition's limit.

    Parameters
    ----------
    model, truth : str
        The model and the ground truth, parsed through the whitelist.
    simplify : bool, keyword-only
        Simplify both first as the SRBench 2022 rules do (``sympy.simplify``, floats rounded to 3
        decimals); False: the trees as submitted.
    features : collection of str, keyword-only
        The variable names allowed (None: any).

    Returns
    -------
    float
        In [0, 1]; 0 is exact recovery (constants' values aside).

    Raises
    ------
    ModelRejected
        When the whitelist parser refuses either string.
    TreeTooLarge
        When either tree has more than :data:`MAX_TREE_NODES` nodes.
    """
    model_tree = expression_tree(_prepared(model, simplify=simplify, features=features))
    truth_tree = expression_tree(_prepared(truth, simplify=simplify, features=features))
    size = _size(truth_tree)
    return min(size, tree_edit_distance(model_tree, truth_tree)) / size


def _distance_task(model, truth, simplify: bool) -> tuple:
    """One pair in a worker: ``(distance or NaN, status, reason)``."""
    try:
        return normalised_tree_edit_distance(model, truth, simplify=simplify), "ok", ""
    except ModelRejected as exc:
        return math.nan, "rejected", str(exc)
    except TreeTooLarge as exc:
        return math.nan, "too_large", str(exc)


def tree_distance_table(models, truths, *, simplify: bool = True, timeout: float = 10.0, jobs: int = 1):
    """SRSD's normalised tree edit distance of each model to its ground truth, each pair under a hard time limit.

    Every pair runs in a worker process (:class:`srdash.expressions._timelimit.WorkerPool`) that is killed
    after ``timeout`` seconds: simplifying a hostile model can take forever.

    Parameters
    ----------
    models, truths : sequence of str
        Model strings and their ground truths, pairwise (same length).
    simplify : bool, keyword-only
        As in :func:`normalised_tree_edit_distance`.
    timeout : float, keyword-only
        Seconds per pair.
    jobs : int, keyword-only
        Worker processes.

    Returns
    -------
    pandas.DataFrame
        ``tree_edit_distance`` (in [0, 1]; NaN when not computed), ``status`` (``ok``, ``rejected``,
        ``too_large``, ``timeout``, ``error``), ``reason``; one row per pair, in order.

    Raises
    ------
    ValueError
        When the two sequences differ in length.
    """
    import pandas as pd

    from srdash.expressions._timelimit import WorkerPool

    models, truths = list(models), list(truths)
    if len(models) != len(truths):
        raise ValueError(f"models and truths must pair up. Got {len(models)} models and {len(truths)} truths.")
    rows = [(math.nan, "error", "") for _ in models]
    todo = []
    for index, (model, truth) in enumerate(zip(models, truths)):
        if not isinstance(model, str) or not isinstance(truth, str):
            rows[index] = (math.nan, "rejected", "no model string" if not isinstance(model, str) else "no ground truth")
        else:
            todo.append(index)
    if todo:
        with WorkerPool(_distance_task, processes=min(jobs, len(todo)), time_limit=timeout) as pool:
            for index in todo:
                pool.submit(index, models[index], truths[index], simplify)
            for result in pool.results():
                if result.outcome == "returned":
                    rows[result.task_id] = result.value
                elif result.outcome == "killed":
                    rows[result.task_id] = (math.nan, "timeout", f"over the time limit of {timeout:g} s")
                else:
                    rows[result.task_id] = (math.nan, "error", result.error)
    return pd.DataFrame(rows, columns=["tree_edit_distance", "status", "reason"])
