"""Cheap checks of a competition's loaded results, run before any expensive work.

Two checks, both on names only (no model is parsed, no file other than the results is read):

- :func:`check_criterion_columns` refuses results that lack the column of a required
  criterion that nothing else will supply (a model measure, the dataset files), naming the
  results file, the column, and the columns present that look like it ("did you mean 'r2'?").
  Without it the refusal came only after every model had been simplified.
- :func:`similar_name_problems` flags a method (or dataset) whose name nearly equals
  another's -- same letters up to case, spacing and punctuation, or one typing slip apart --
  while the two never share a dataset (a method) or a method (a dataset): a typo that would
  otherwise add a competitor of its own. Flagged, never refused: two real methods may have
  close names.

Examples
--------
>>> similar_names("r2_test", ["method", "dataset", "r2", "property"])
['r2']
>>> typing_distance("ExcatSR", "ExactSR")  # one transposition
1
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

import pandas as pd

from srdash.errors import CriterionWithoutData
from srdash.judging.measures import measure

__all__ = ["check_criterion_columns", "similar_names", "similar_name_problems", "typing_distance",
           "unsupplied_criteria", "with_similar_names_flagged",
           "SIMILAR_NAME"]

#: The problems' ``kind`` for a name that nearly equals another's.
SIMILAR_NAME = "similar name"

_PROBLEM_COLUMNS = ["kind", "method", "dataset", "run", "detail"]
# Columns the pipeline computes from the dataset files when the competition has descriptions.
_FROM_DATA = re.compile(r"^(r2|rmse|mae)_\w+$|^property$")


def _folded(name: str) -> str:
    """The name without case, spacing or punctuation: 'Exact SR', 'exact_sr' and 'ExactSR' fold alike."""
    return re.sub(r"[\W_]+", "", str(name).casefold())


def typing_distance(a: str, b: str) -> int:
    """Edits (insert, delete, replace, swap two neighbours) that turn ``a`` into ``b``.

    The optimal-string-alignment distance: a swapped pair of letters is one slip.

    Examples
    --------
    >>> typing_distance("pysr", "pysr"), typing_distance("pysr", "pysrr"), typing_distance("abcd", "abdc")
    (0, 1, 1)
    """
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


def _nearly_equal(a: str, b: str) -> bool:
    """Same name up to case, spacing and punctuation, or one slip apart (two for names of 8+ letters);
    names shorter than 4 letters only when they fold alike (x1 and x2 are different names)."""
    fa, fb = _folded(a), _folded(b)
    if fa == fb:
        return True
    shorter = min(len(fa), len(fb))
    if shorter < 4 or abs(len(fa) - len(fb)) > 2:
        return False
    # a slip on a digit makes another name (dataset_1, dataset_2; feynman_I_10_7, feynman_I_10_8)
    if re.sub(r"\D", "", fa) != re.sub(r"\D", "", fb):
        return False
    return typing_distance(fa, fb) <= (2 if shorter >= 8 else 1)


def similar_names(name: str, candidates: Iterable[str], *, limit: int = 3) -> list[str]:
    """The candidates that look like ``name``: folded alike, one contains the other, or close spelling.

    Parameters
    ----------
    name : str
        The name looked for (a column the rules need, say ``r2_test``).
    candidates : iterable of str
        The names present.
    limit : int, keyword-only
        At most this many, closest first.

    Returns
    -------
    list of str

    Examples
    --------
    >>> similar_names("r2_test", ["R2 Test", "rmse_test", "team"])
    ['R2 Test', 'rmse_test']
    """
    target = _folded(name)
    scored = []
    for candidate in dict.fromkeys(str(c) for c in candidates):
        folded = _folded(candidate)
        if not folded or candidate == name:
            continue
        ratio = difflib.SequenceMatcher(None, target, folded).ratio()
        # one begins or ends the other: 'r2' for 'r2_test', 'test_r2' for 'r2'
        contained = len(folded) >= 2 and (target.startswith(folded) or target.endswith(folded)
                                          or folded.startswith(target) or folded.endswith(target))
        if folded == target:
            scored.append((0, -ratio, candidate))
        elif contained:
            scored.append((1, -ratio, candidate))
        elif ratio >= 0.6:
            scored.append((2, -ratio, candidate))
    return [candidate for *_, candidate in sorted(scored)[:limit]]


def _supplied(criterion, columns: set[str], from_data) -> bool:
    """Whether the pipeline will have a value for the criterion's column (only names are looked at)."""
    if criterion.column in columns:
        return True
    how = measure(criterion.measure)
    if how.needs_data:  # without descriptions the pipeline refuses it with its own message, as cheaply
        return True
    if how.from_model:
        return bool({"model", "components", "simplicity"} & columns) if criterion.measure == "simplified-components" \
            else "model" in columns
    return from_data(criterion.column)


def unsupplied_criteria(columns: Iterable[str], rules, *, from_data: Iterable[str] | None = ()) -> list:
    """The required criteria of ``rules`` that results with these columns leave without a value.

    Parameters
    ----------
    columns : iterable of str
        The canonical results' columns (``model``, ``components``, ...).
    rules : Rules
    from_data : iterable of str or None, keyword-only
        The columns the dataset descriptions will compute; None: any the evaluation can compute
        (``r2_<partition>``, ``rmse_<partition>``, ``mae_<partition>``, ``property``).

    Returns
    -------
    list of Criterion
        Empty for rules that judge submissions.

    Examples
    --------
    >>> from srdash.judging.rules import load_rules
    >>> [c.name for c in unsupplied_criteria(["method", "dataset", "components", "r2_test"], load_rules("srbench2022"))]
    ['property']
    """
    if not rules.rule_kind.judges_runs:
        return []
    columns = set(map(str, columns))
    computed = (lambda column: bool(_FROM_DATA.match(column))) if from_data is None else set(from_data).__contains__
    return [c for c in rules.criteria if not c.optional and not _supplied(c, columns, computed)]


def check_criterion_columns(table: pd.DataFrame, rules, *, sources: Sequence[str] = (),
                            has_descriptions: bool = False) -> None:
    """Refuse results without the column of a required criterion that nothing will compute.

    Cheap: looks at the column names only. A criterion is supplied when the
    results have its column, when its measure counts it on the models (and
    the results have models, or components for the 2022 simplicity), when it is
    measured on the data files, or when the competition has descriptions and
    the column is one the evaluation computes (``r2_<partition>``,
    ``rmse_<partition>``, ``mae_<partition>``, ``property``). Optional
    criteria are never refused.

    Parameters
    ----------
    table : DataFrame
        The canonical results table (:attr:`srdash.io.loading.Results.table`).
    rules : Rules
    sources : sequence of str, keyword-only
        The results files, named in the message.
    has_descriptions : bool, keyword-only
        The competition names dataset descriptions.

    Raises
    ------
    CriterionWithoutData
        Naming the file, each missing column, the columns present that look
        like it, and what to do.

    Examples
    --------
    >>> from srdash.judging.rules import load_rules
    >>> table = pd.DataFrame({"method": ["a"], "dataset": ["d"], "run": [0], "components": [3.0],
    ...                       "r2": [0.9], "property": [1.0]})
    >>> check_criterion_columns(table, load_rules("srbench2022"), sources=["results.csv"])
    Traceback (most recent call last):
    ...
    srdash.errors.CriterionWithoutData: Criterion 'accuracy' of the rules 'srbench2022' has no data: ... Did you mean 'r2'? ...
    """
    columns = set(map(str, table.columns))
    missing = unsupplied_criteria(columns, rules, from_data=None if has_descriptions else ())
    if not missing:
        return
    where = ", ".join(sources) if sources else "The results"
    present = ", ".join(repr(c) for c in table.columns)
    lines = []
    for criterion in missing:
        how = measure(criterion.measure)
        alike = similar_names(criterion.column, columns - {"method", "dataset", "run"})
        hint = f" Did you mean {' or '.join(map(repr, alike))}?" if alike else ""
        # the opening words are those of the refusal after judging (ranking._refuse_missing_criteria)
        lines.append(f"Criterion '{criterion.name}' of the rules '{rules.name}' has no data: the column "
                     f"'{criterion.column}' is missing. {where}, column '{criterion.column}': not among the "
                     f"columns {present}.{hint} It is measured '{criterion.measure}' ({how.summary.rstrip('.')}): "
                     f"{how.how_to_supply}.")
    lines.append("A verdict without it would rank on the other criteria alone: rename the column, give its data, "
                 "choose rules without it (`srdash rules`), or mark it `optional = true` in the rules "
                 "(docs/rules.md).")
    raise CriterionWithoutData("\n".join(lines), criteria=[c.name for c in missing])


#: Above this many names, only names that fold alike are compared (all pairs would take minutes).
MAX_NAMES_COMPARED = 2000


def _near_pairs(members: dict[str, frozenset]) -> list[tuple[str, str]]:
    names = sorted(members)
    if len(names) > MAX_NAMES_COMPARED:
        folded: dict[str, list[str]] = {}
        for name in names:
            folded.setdefault(_folded(name), []).append(name)
        candidates = [(a, b) for group in folded.values() for i, a in enumerate(group) for b in group[i + 1:]]
    else:
        candidates = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    return [(a, b) for a, b in candidates if not (members[a] & members[b]) and _nearly_equal(a, b)]


def similar_name_problems(table: pd.DataFrame) -> pd.DataFrame:
    """Methods and datasets whose names nearly equal another's and that never meet: probably typos.

    Two methods are flagged when their names fold alike (case, spacing,
    punctuation) or are one typing slip apart (two for names of 8 letters or
    more; digits must agree), and no dataset has results of both; two datasets
    likewise when no method has results on both. The name on fewer datasets
    (methods) is named as the likely typo. Beyond :data:`MAX_NAMES_COMPARED`
    names of one kind, only names that fold alike are compared.

    Parameters
    ----------
    table : DataFrame
        With ``method`` and ``dataset`` columns.

    Returns
    -------
    DataFrame
        ``kind`` (:data:`SIMILAR_NAME`), ``method``, ``dataset``, ``run`` (missing), ``detail``;
        one row per pair.

    Examples
    --------
    >>> table = pd.DataFrame({"method": ["ExactSR", "ExactSR", "ExcatSR", "pysr", "pysr", "pysr"],
    ...                       "dataset": ["d1", "d2", "d3", "d1", "d2", "d3"]})
    >>> print(similar_name_problems(table)["detail"].iloc[0][:70])
    Method 'ExcatSR' (1 dataset) looks like 'ExactSR' (2 datasets) and the
    """
    rows = []
    if table.empty or not {"method", "dataset"} <= set(table.columns):
        return pd.DataFrame(rows, columns=_PROBLEM_COLUMNS)
    pairs = table[["method", "dataset"]].dropna().astype(str).drop_duplicates()
    for column, other, noun, other_noun in (("method", "dataset", "Method", "dataset"),
                                            ("dataset", "method", "Dataset", "method")):
        members = {name: frozenset(group) for name, group in pairs.groupby(column, sort=True)[other]}
        for a, b in _near_pairs(members):
            rare, common = sorted((a, b), key=lambda n: (len(members[n]), n))
            n_rare, n_common = len(members[rare]), len(members[common])
            detail = (f"{noun} {rare!r} ({n_rare} {other_noun}{'s' if n_rare != 1 else ''}) looks like {common!r} "
                      f"({n_common} {other_noun}{'s' if n_common != 1 else ''}) and the two never share a "
                      f"{other_noun}: a typo would make one {column} two"
                      f"{' competitors' if column == 'method' else ' datasets'}. Rename it if it is the same "
                      f"{column}.")
            rows.append({"kind": SIMILAR_NAME, "method": rare if column == "method" else None,
                         "dataset": rare if column == "dataset" else None, "run": None, "detail": detail})
    return pd.DataFrame(rows, columns=_PROBLEM_COLUMNS)


def with_similar_names_flagged(verdict, table: pd.DataFrame | None):
    """The verdict with :func:`similar_name_problems` of ``table`` among its problems, and a warning naming
    each, so that every door (CLI, apps, report) shows them.

    Parameters
    ----------
    verdict : Verdict
    table : DataFrame or None
        The results judged (None: nothing to check).

    Returns
    -------
    Verdict
    """
    if table is None:
        return verdict
    found = similar_name_problems(table)
    if found.empty:
        return verdict
    problems = found if verdict.problems.empty else pd.concat([verdict.problems, found], ignore_index=True)
    return replace(verdict, problems=problems, warnings=tuple(verdict.warnings) + tuple(found["detail"]))
