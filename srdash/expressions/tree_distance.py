"""Graded recovery: the normalised tree edit distance between a model and the ground truth.

SRSD (Matsubara et al., "Rethinking Symbolic Regression Datasets and Benchmarks for Scientific
Discovery", 2022/2024) scores how far a model is from the true equation by the edit distance between
their expression trees, normalised by the true tree's size:

    NED(f̂, f) = min(1, d(f̂, f) / |f|),

with ``d`` the Zhang-Shasha tree edit distance under unit costs (deleting, inserting or relabelling a
node costs 1; srsd-benchmark's ``compute_distance`` with zss's ``simple_distance``) and ``|f|`` the
number of nodes of the true tree. 0 is exact recovery, 1 is nothing in common worth less than building
the truth from scratch.

The trees are :func:`srdash.expressions.expression_tree`'s: every node of ``sympy.preorder_traversal``
is a node (so ``|f|`` is :func:`srdash.expressions.tree_size`), its children are the sympy arguments in
sympy's order, and its label is ``"c"`` for a number or a named constant (so constants' values do not
count: a model that finds the form but not the constants is at distance 0), the name for a variable,
and the class name (``Add``, ``Mul``, ``Pow``, ``sin`` ...) otherwise. (SRSD labels a whole numeric
subtree's root, e.g. the ``Pow`` of ``sqrt(2)``, as a constant too; here it keeps its class name: same
node count, at most one relabel apart.)

Before measuring, both strings are parsed through the whitelist (never ``eval``) and, by default,
simplified as the SRBench 2022 rules do (``sympy.simplify``, then floats rounded to 3 decimals, below
0.001 to 0: the ``simplified-components`` procedure); ``simplify=False`` measures the trees as submitted
(sympy's automatic evaluation only). Tables of models are measured by
:func:`srdash.analysis.recovery.normalised_edit_distances` (simplification in workers under the time
limit, cached), which uses this module's distance.

Cost: the distance takes O(n·m·min(depth, leaves)²) steps in pure Python. A tree above
:data:`MAX_TREE_NODES` nodes is refused (``TreeTooLarge``), except that :func:`normalised_distance`
needs no distance when the model has at least twice the truth's nodes (``d >= n - |f| >= |f|``: NED = 1).
The cap keeps a table of models within minutes (docs/decisions/2026-11-tree-distance-cap.md).

Examples
--------
>>> tree_edit_distance(parse_submitted_model("x0 + x1"), parse_submitted_model("x0*x1"))  # Add -> Mul
1
>>> normalised_tree_edit_distance("2.5*x0 + sin(x1)", "x0 + sin(x1)")  # delete Mul and c: 2 of the truth's 4
0.5
>>> normalised_tree_edit_distance("x0 - x0 + 3.1*x1", "3*x1")  # simplified first: 3.1*x1 vs 3*x1
0.0
"""

from __future__ import annotations

import sympy

from srdash.expressions.complexity import round_floats
from srdash.expressions.submitted import expression_tree, parse_submitted_model

__all__ = ["MAX_TREE_NODES", "TreeTooLarge", "tree_nodes", "tree_edit_distance", "normalised_distance",
           "normalised_tree_edit_distance"]

#: Largest tree (nodes) either side of a distance: bounds its O(n·m·depth²) cost.
MAX_TREE_NODES = 150


class TreeTooLarge(ValueError):
    """A tree has more than :data:`MAX_TREE_NODES` nodes: its distance is not computed."""


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


def tree_nodes(tree: tuple) -> int:
    """Nodes of a ``(label, children)`` tree (without recursion).

    Examples
    --------
    >>> tree_nodes(expression_tree(parse_submitted_model("x0 + sin(x1)")))
    4
    """
    count, stack = 0, [tree]
    while stack:
        _label, children = stack.pop()
        count += 1
        stack.extend(children)
    return count


def tree_edit_distance(a, b) -> int:
    """Zhang-Shasha edit distance between two expressions (or :func:`expression_tree` trees), unit costs.

    Parameters
    ----------
    a, b : sympy.Expr or tuple
        Expressions, or trees as :func:`srdash.expressions.expression_tree` returns them.

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
        if tree_nodes(tree) > MAX_TREE_NODES:
            raise TreeTooLarge(f"The {side} tree has {tree_nodes(tree)} nodes, more than the {MAX_TREE_NODES} a tree "
                               "edit distance is computed for.")
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


def normalised_distance(model_tree: tuple, truth_tree: tuple) -> float:
    """``min(1, d(model, truth) / |truth|)`` of two trees; 1 without computing ``d`` when the model has at
    least twice the truth's nodes (then ``d >= |model| - |truth| >= |truth|``).

    Raises
    ------
    TreeTooLarge
        When the distance is needed and a tree has more than :data:`MAX_TREE_NODES` nodes.

    Examples
    --------
    >>> leaf = ("x0", ())
    >>> normalised_distance(("Add", (leaf,) * 200), leaf)  # 201 nodes against 1: no distance needed
    1.0
    """
    size, model_size = tree_nodes(truth_tree), tree_nodes(model_tree)
    if model_size - size >= size:
        return 1.0
    return min(size, tree_edit_distance(model_tree, truth_tree)) / size


def _prepared(text: str, *, simplify: bool, features):
    expression = parse_submitted_model(text, features=features)
    return round_floats(sympy.simplify(expression), 3) if simplify else expression


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
    return normalised_distance(model_tree, truth_tree)

