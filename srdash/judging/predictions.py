"""Prediction-file competitions: score files of predictions against hidden targets.

The classic procedure of TunedIT and of Kaggle's public/private leaderboards:
every test sample belongs to exactly one of two subsets, ``preliminary`` (scored
during the competition) and ``final`` (scored at the end, decides the
competition). Each team hands in files with one prediction per test sample.

Formats
-------
Targets
    Two text files (:func:`read_targets`), one line per test sample: the target
    where the sample belongs to that subset, an empty line where it does not. Or
    one CSV (:func:`read_targets_csv`) with columns ``id``, ``target``,
    ``subset`` (``preliminary`` or ``final``).
Solutions
    A text file with one prediction per line, in the order of the test samples,
    or a CSV with columns ``id``, ``prediction`` in any order
    (:func:`read_solution`). A file is read as CSV when its name ends in
    ``.csv`` or its first line contains a comma. The ids of text targets are
    their line numbers (``"1"``, ``"2"``, ...).
Submissions
    A folder of ``team/submission-file`` files or a CSV listing ``team, file``
    and optionally ``submitted_at``, ``selected`` (:func:`list_submissions`).

Locations in messages
---------------------
Every problem names its file and row: for text files the row is the line number
(1 = first line); for CSV files it is the data row, header excluded (so data
row 1 is line 2 of the file). A file's problems are all reported at once; when
one kind of problem hits many lines, the first 10 are listed and then counted.

Examples
--------
>>> targets = Targets.from_arrays([1.0, 2.0, 3.0, 4.0],
...                               ["preliminary", "final", "preliminary", "final"])
>>> listing = pd.DataFrame({"team": ["a", "b"], "file": ["a.txt", "b.txt"]})
>>> predictions = {"a.txt": [1.0, 2.0, 3.0, 5.0], "b.txt": [2.0, 2.0, 4.0, 4.0]}
>>> result = score_submissions(listing, targets, metric="mae", predictions=predictions)
>>> result.final_leaderboard
   place team  score submission  entries
0      1    b    0.0      b.txt        1
1      2    a    0.5      a.txt        1
>>> result.shakeup
  team  preliminary_place  final_place  change  preliminary_score  final_score
0    b                  2            1       1                1.0          0.0
1    a                  1            2      -1                0.0          0.5
"""

from __future__ import annotations

import csv
import html
import io
import os
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from srdash.errors import Problem, SrdashError, ValidationError

if TYPE_CHECKING:  # pragma: no cover
    import plotly.graph_objects as go

    from srdash.judging.rules import Rules

__all__ = [
    "SUBSETS",
    "RULES",
    "ORDERS",
    "Metric",
    "UndefinedMetricWarning",
    "METRICS",
    "get_metric",
    "accuracy_score",
    "r2_score",
    "root_mean_squared_error",
    "mean_absolute_error",
    "Targets",
    "read_targets",
    "read_targets_csv",
    "read_solution",
    "list_submissions",
    "PredictionResult",
    "CombinedLeaderboards",
    "score_submissions",
    "metric_rules",
    "combine_metrics",
    "check_combine_rules",
    "to_runs_table",
    "OPTION_KEYS",
    "score_from_options",
    "shakeup_figure",
]

SUBSETS = ("preliminary", "final")
RULES = ("last", "best-preliminary", "selected")
ORDERS = ("submitted_at", "name")

# One kind of problem on many lines is listed for the first few lines, then counted.
_MAX_LISTED = 10
# Leaderboard scores are compared after rounding to this many decimals (as in
# srdash.judging.ranking) so that sums done in a different order cannot split a tie.
_DEFAULT_DECIMALS = 9
_NAN_WORDS = ("nan", "+nan", "-nan")
_TRUE_WORDS = ("true", "1", "yes", "y", "x")
_FALSE_WORDS = ("false", "0", "no", "n", "")


def _one_of(option: str, value, allowed: Sequence[str]) -> None:
    if value not in allowed:
        listed = ", ".join(f"'{a}'" for a in allowed)
        raise SrdashError(f"The '{option}' option must be one of {listed}. Got {value!r}.")


def _show(text: str, limit: int = 40) -> str:
    """A value from an untrusted file, quoted and shortened for a message."""
    text = str(text)
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


# --------------------------------------------------------------------------- metrics


class UndefinedMetricWarning(RuntimeWarning):
    """A metric is undefined for the given input and NaN is returned."""


def _check_pair(y_true, y_pred, name: str) -> tuple[np.ndarray, np.ndarray]:
    problems = []
    arrays = []
    for label, values in (("y_true", y_true), ("y_pred", y_pred)):
        try:
            array = np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            problems.append(Problem(label, None, None, "must be numbers (an array-like of floats)."))
            continue
        if array.ndim != 1 or array.size == 0:
            problems.append(Problem(label, None, None, f"must be a non-empty 1-D array. Got shape {array.shape}."))
        elif not np.isfinite(array).all():
            problems.append(Problem(label, None, None, "must be finite (no NaN or infinite values)."))
        arrays.append(array)
    if not problems and arrays[0].shape != arrays[1].shape:
        problems.append(Problem("y_pred", None, None,
                                f"has {arrays[1].size} values but y_true has {arrays[0].size}; "
                                "give one prediction per sample."))
    if problems:
        raise ValidationError(problems, header=f"Cannot compute {name}")
    return arrays[0], arrays[1]


def _accuracy(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    return float(np.mean(y_true == y_pred))


def _r2(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    total = np.sum((y_true - y_true.mean()) ** 2)
    if total == 0:
        warnings.warn("R2 is undefined when all targets are equal; returning NaN.", UndefinedMetricWarning,
                      stacklevel=3)
        return float("nan")
    return float(1.0 - np.sum((y_true - y_pred) ** 2) / total)


def _rmse(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    return float(np.sqrt(np.mean((y_true - y_pred) ** 2)))


def _mae(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    return float(np.mean(np.abs(y_true - y_pred)))


def accuracy_score(y_true, y_pred) -> float:
    """Share of correctly classified samples (higher is better).

    ``accuracy = (1/n) * sum_i [y_true_i == y_pred_i]``. Class labels must be
    integer-valued (``1`` and ``1.0`` are the same label).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Integer class labels.

    Returns
    -------
    float
        Between 0 and 1.

    Raises
    ------
    ValidationError
        If the arrays differ in length, are empty, not finite or not integer-valued.

    Examples
    --------
    >>> accuracy_score([0, 1, 2, 2], [0, 2, 2, 2])
    0.75
    """
    y_true, y_pred = _check_pair(y_true, y_pred, "accuracy_score")
    for label, values in (("y_true", y_true), ("y_pred", y_pred)):
        if not np.array_equal(values, np.round(values)):
            raise ValidationError([Problem(label, None, None, "class labels must be integers for accuracy.")],
                                  header="Cannot compute accuracy_score")
    return _accuracy(y_true, y_pred)


def r2_score(y_true, y_pred) -> float:
    """Coefficient of determination R² (higher is better, 1 = perfect).

    ``R2 = 1 - sum_i (y_true_i - y_pred_i)**2 / sum_i (y_true_i - mean(y_true))**2``.
    It is undefined when all targets are equal: a :class:`UndefinedMetricWarning`
    is issued and NaN returned (the competition scorer refuses such targets
    up front instead).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)

    Returns
    -------
    float
        At most 1; unbounded below.

    Examples
    --------
    >>> r2_score([1.0, 3.0, 5.0], [1.0, 3.0, 6.0])  # 1 - 1/8
    0.875
    """
    y_true, y_pred = _check_pair(y_true, y_pred, "r2_score")
    return _r2(y_true, y_pred)


def root_mean_squared_error(y_true, y_pred) -> float:
    """Root mean squared error (lower is better).

    ``RMSE = sqrt((1/n) * sum_i (y_true_i - y_pred_i)**2)``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)

    Returns
    -------
    float
        Non-negative.

    Examples
    --------
    >>> root_mean_squared_error([0.0, 0.0, 0.0, 0.0], [1.0, -1.0, 1.0, -1.0])
    1.0
    """
    y_true, y_pred = _check_pair(y_true, y_pred, "root_mean_squared_error")
    return _rmse(y_true, y_pred)


def mean_absolute_error(y_true, y_pred) -> float:
    """Mean absolute error (lower is better).

    ``MAE = (1/n) * sum_i |y_true_i - y_pred_i|``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)

    Returns
    -------
    float
        Non-negative.

    Examples
    --------
    >>> mean_absolute_error([0.0, 0.0, 0.0], [3.0, 0.0, 0.0])
    1.0
    """
    y_true, y_pred = _check_pair(y_true, y_pred, "mean_absolute_error")
    return _mae(y_true, y_pred)


@dataclass(frozen=True)
class Metric:
    """A metric of prediction competitions.

    Attributes
    ----------
    name : str
        scikit-learn style name: ``*_score`` is higher-is-better, ``*_error`` lower.
    short_name : str
        Name on the command line and in column names (``rmse_final``).
    label : str
        Human-readable name.
    direction : {'higher', 'lower'}
        Which values are better.
    function : callable
        ``function(y_true, y_pred) -> float``, validating its input.
    integer_labels : bool
        Whether targets and predictions must be integer class labels.
    """

    name: str
    short_name: str
    label: str
    direction: str
    function: Callable[..., float] = field(repr=False)
    integer_labels: bool = False
    _compute: Callable[[np.ndarray, np.ndarray], float] = field(repr=False, compare=False, default=None)

    def best_of(self, values: Sequence[float]) -> int:
        """Position of the best value (the first one among equals).

        Examples
        --------
        >>> get_metric("rmse").best_of([0.3, 0.1, 0.1])
        1
        """
        oriented = np.asarray(values, dtype=float)
        oriented = oriented if self.direction == "higher" else -oriented
        return int(np.argmax(np.where(np.isnan(oriented), -np.inf, oriented)))


METRICS: Mapping[str, Metric] = MappingProxyType({
    m.name: m for m in (
        Metric("accuracy_score", "accuracy", "Accuracy", "higher", accuracy_score, True, _accuracy),
        Metric("r2_score", "r2", "R²", "higher", r2_score, False, _r2),
        Metric("root_mean_squared_error", "rmse", "RMSE", "lower", root_mean_squared_error, False, _rmse),
        Metric("mean_absolute_error", "mae", "MAE", "lower", mean_absolute_error, False, _mae),
    )
})
"""Registry of metrics by name (``accuracy_score``, ``r2_score``, ``root_mean_squared_error``,
``mean_absolute_error``)."""


def get_metric(name: str | Metric) -> Metric:
    """The metric called ``name`` (full or short name).

    Examples
    --------
    >>> get_metric("rmse").name, get_metric("rmse").direction
    ('root_mean_squared_error', 'lower')
    >>> get_metric("r2_score").short_name
    'r2'
    """
    if isinstance(name, Metric):
        return name
    for metric in METRICS.values():
        if name in (metric.name, metric.short_name):
            return metric
    allowed = [m.short_name for m in METRICS.values()] + list(METRICS)
    listed = ", ".join(f"'{a}'" for a in allowed)
    raise SrdashError(f"The 'metric' option must be one of {listed}. Got {name!r}.")


# --------------------------------------------------------------------------- reading numbers


def _read_bytes(path: Path, source: str) -> tuple[bytes | None, list[Problem]]:
    try:
        return Path(path).read_bytes(), []
    except FileNotFoundError:
        return None, [Problem(source, None, None, "file not found.")]
    except IsADirectoryError:
        return None, [Problem(source, None, None, "is a folder; expected a file.")]
    except OSError as exc:
        return None, [Problem(source, None, None, f"cannot be read ({exc.strerror or exc}).")]


def _fast_numbers(data: bytes) -> np.ndarray | None:
    """Values of the lines (NaN for empty lines) by pandas' C parser, or None if a line is neither.

    The common case (a clean file) costs one C-level parse; any doubt falls back
    to :func:`_split_lines` + :func:`_parse_lines`, which locate the problems.
    Both count lines the same way (\\n, \\r\\n and \\r end a line; a final
    newline does not start an extra line).
    """
    if not data or b"\x1f" in data:
        return None
    try:
        column = pd.read_csv(io.BytesIO(data), header=None, names=["v"], sep="\x1f", quoting=csv.QUOTE_NONE,
                             skip_blank_lines=False, keep_default_na=False, na_values=[""], engine="c",
                             encoding="utf-8-sig")["v"]
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
        return None
    if column.dtype.kind not in "iuf":
        return None
    return column.to_numpy(dtype=float)


def _split_lines(data: bytes) -> np.ndarray:
    """Stripped lines; a final newline does not start an extra line. \\n, \\r\\n and \\r all end a line."""
    text = data.decode("utf-8-sig", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if not lines:
        return np.array([], dtype=object)
    return pd.Series(lines, dtype=object).str.strip().to_numpy(dtype=object)


def _parse_lines(lines: np.ndarray) -> np.ndarray:
    """Float value of each line; NaN where it is empty or not a number."""
    if lines.size == 0:
        return np.array([], dtype=float)
    return np.asarray(pd.to_numeric(lines, errors="coerce"), dtype=float)


def _listed(source: str, rows: np.ndarray, texts: np.ndarray, column: str | None,
            message: Callable[[str], str], kind: str) -> list[Problem]:
    """Problems for the first rows of one kind, then a count of the rest."""
    problems = [Problem(source, int(r), column, message(t)) for r, t in zip(rows[:_MAX_LISTED], texts[:_MAX_LISTED])]
    if rows.size > _MAX_LISTED:
        problems.append(Problem(source, None, column,
                                f"... and {rows.size - _MAX_LISTED} more rows with {kind} "
                                f"(the first {_MAX_LISTED} are listed above)."))
    return problems


def _number_problems(source: str, texts: np.ndarray, values: np.ndarray, *, what: str, column: str | None,
                     allow_empty: bool, integer_labels: bool, metric_name: str = "accuracy",
                     rows: np.ndarray | None = None) -> list[Problem]:
    """Problems of parsed values: empty, not a number, NaN, infinite, not an integer label."""
    if rows is None:
        rows = np.arange(1, texts.size + 1)
    empty = texts == ""
    nan = np.isnan(values) & ~empty
    nan_word = np.zeros_like(nan)
    nan_word[nan] = pd.Series(texts[nan], dtype=object).str.lower().isin(_NAN_WORDS).to_numpy()
    not_number = nan & ~nan_word
    infinite = np.isinf(values)
    problems: list[Problem] = []
    if not allow_empty:
        problems += _listed(source, rows[empty], texts[empty], column,
                            lambda t: f"empty; expected one {what} (a number).", "an empty value")
    problems += _listed(source, rows[not_number], texts[not_number], column,
                        lambda t: f"{_show(t)} is not a number; expected one {what} (a number).", "non-numbers")
    problems += _listed(source, rows[nan_word], texts[nan_word], column,
                        lambda t: f"the {what} is NaN ({_show(t)}); {what}s must be finite numbers.", "NaN")
    problems += _listed(source, rows[infinite], texts[infinite], column,
                        lambda t: f"the {what} is infinite ({_show(t)}); {what}s must be finite numbers.",
                        "infinite values")
    if integer_labels:
        finite = np.isfinite(values)
        fractional = finite & (values != np.round(np.where(finite, values, 0.0)))
        problems += _listed(source, rows[fractional], texts[fractional], column,
                            lambda t: f"{_show(t)} is not an integer class label; the metric '{metric_name}' "
                                      "needs integer labels.", "non-integer labels")
    return problems


# --------------------------------------------------------------------------- targets


def _readonly(array: np.ndarray) -> np.ndarray:
    array = np.array(array, copy=True)
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class Targets:
    """The hidden targets of a prediction competition, validated.

    Build with :func:`read_targets`, :func:`read_targets_csv` or
    :meth:`Targets.from_arrays`. Arrays are read-only.

    Attributes
    ----------
    values : ndarray of shape (n_samples,)
        Target of each test sample (finite floats).
    subsets : ndarray of shape (n_samples,)
        ``'preliminary'`` or ``'final'`` for each sample.
    ids : ndarray of shape (n_samples,)
        Sample ids (str); for text targets the line numbers ``'1'``, ``'2'``, ...
    sample_sources, sample_rows : ndarray of shape (n_samples,)
        Where each sample's target was read (file and row), for messages.
    sources : tuple of str
        The input files.
    """

    values: np.ndarray
    subsets: np.ndarray
    ids: np.ndarray
    sample_sources: np.ndarray
    sample_rows: np.ndarray
    sources: tuple[str, ...]

    @property
    def n_samples(self) -> int:
        """Number of test samples."""
        return int(self.values.size)

    def mask(self, subset: str) -> np.ndarray:
        """Boolean mask of the samples of ``subset`` ('preliminary' or 'final').

        Examples
        --------
        >>> Targets.from_arrays([1.0, 2.0], ["final", "preliminary"]).mask("final").tolist()
        [True, False]
        """
        _one_of("subset", subset, SUBSETS)
        return self.subsets == subset

    @classmethod
    def from_arrays(cls, values, subsets, *, ids=None, source: str = "<array>") -> "Targets":
        """Targets from arrays (validated like the files).

        Parameters
        ----------
        values : array-like of shape (n_samples,)
            Finite numbers.
        subsets : array-like of shape (n_samples,)
            'preliminary' or 'final' for each sample.
        ids : array-like of str, optional
            Unique sample ids (default ``'1'``, ``'2'``, ...).
        source : str, keyword-only
            Name used in messages.

        Examples
        --------
        >>> t = Targets.from_arrays([1.0, 2.0, 3.0], ["preliminary", "final", "final"])
        >>> t.n_samples, t.ids.tolist()
        (3, ['1', '2', '3'])
        """
        values = np.asarray(values, dtype=float)
        subsets = np.asarray(subsets, dtype=object)
        n = values.size
        ids = np.array([str(i) for i in range(1, n + 1)], dtype=object) if ids is None else \
            np.asarray([str(i) for i in ids], dtype=object)
        problems = []
        if subsets.size != n or ids.size != n:
            problems.append(Problem(source, None, None, f"values, subsets and ids must have the same length; "
                                                        f"got {n}, {subsets.size} and {ids.size}."))
        else:
            rows = np.arange(1, n + 1)
            texts = values.astype(str).astype(object)
            problems += _number_problems(source, texts, values, what="target", column="values",
                                         allow_empty=True, integer_labels=False)
            problems += _subset_problems(source, subsets, rows)
            problems += _id_problems(source, ids, rows, what="sample")
        if not problems:
            problems += _empty_subset_problems(source, subsets)
        if problems:
            raise ValidationError(problems, header="The targets are not valid")
        return cls(_readonly(values), _readonly(subsets), _readonly(ids), _readonly(np.full(n, source, dtype=object)),
                   _readonly(np.arange(1, n + 1)), (source,))


def _subset_problems(source: str, subsets: np.ndarray, rows: np.ndarray) -> list[Problem]:
    known = np.isin(subsets, SUBSETS)
    blank = pd.Series(subsets, dtype=object).fillna("").astype(str).str.strip().to_numpy() == ""
    problems = _listed(source, rows[blank], subsets[blank], "subset",
                       lambda t: "no subset: the sample is in neither subset; expected 'preliminary' or 'final'.",
                       "no subset")
    odd = ~known & ~blank
    problems += _listed(source, rows[odd], subsets[odd], "subset",
                        lambda t: f"unknown subset {_show(t)}; expected 'preliminary' or 'final'.", "unknown subsets")
    return problems


def _id_problems(source: str, ids: np.ndarray, rows: np.ndarray, *, what: str) -> list[Problem]:
    empty = ids == ""
    problems = _listed(source, rows[empty], ids[empty], "id", lambda t: f"empty id; every {what} needs one.",
                       "empty ids")
    series = pd.Series(ids, dtype=object)
    repeated = series.duplicated(keep="first").to_numpy() & ~empty
    if repeated.any():
        first_row = dict(zip(series[~series.duplicated(keep="first")], rows[~series.duplicated(keep="first")]))
        problems += _listed(source, rows[repeated], ids[repeated], "id",
                            lambda t: f"id {_show(t)} appears again (first on row {first_row[t]}); "
                                      f"each {what} must appear once.", "repeated ids")
    return problems


def _empty_subset_problems(source: str, subsets: np.ndarray) -> list[Problem]:
    return [Problem(source, None, "subset", f"the {subset} subset has no sample; each subset needs at least one.")
            for subset in SUBSETS if not np.any(subsets == subset)]


def read_targets(preliminary: str | os.PathLike, final: str | os.PathLike) -> Targets:
    """Read the targets from a preliminary and a final test file.

    Each file has one line per test sample: the target (a number) where the
    sample belongs to that file's subset, an empty line where it does not. Every
    sample must have a target in exactly one of the two files.

    Parameters
    ----------
    preliminary, final : path
        The two text files.

    Returns
    -------
    Targets
        With ids ``'1'``, ``'2'``, ... (line numbers).

    Raises
    ------
    ValidationError
        Listing every problem of both files (file and line): a different number
        of lines, a sample with a target in both files or in neither, a target
        that is not a finite number, an empty subset.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> scratch = tempfile.TemporaryDirectory()
    >>> folder = pathlib.Path(scratch.name)
    >>> _ = (folder / "p.txt").write_text("1\\n\\n3\\n")
    >>> _ = (folder / "f.txt").write_text("\\n2\\n\\n")
    >>> t = read_targets(folder / "p.txt", folder / "f.txt")
    >>> t.values.tolist(), t.subsets.tolist()
    ([1.0, 2.0, 3.0], ['preliminary', 'final', 'preliminary'])
    >>> scratch.cleanup()
    """
    files = {"preliminary": Path(preliminary), "final": Path(final)}
    values, present, problems = {}, {}, []
    for subset, path in files.items():
        data, unreadable = _read_bytes(path, str(path))
        problems += unreadable
        if data is None:
            continue
        fast = _fast_numbers(data)
        if fast is not None and not np.isinf(fast).any():
            values[subset], present[subset] = fast, ~np.isnan(fast)
            continue
        texts = _split_lines(data)
        values[subset], present[subset] = _parse_lines(texts), texts != ""
        problems += _number_problems(str(path), texts, values[subset], what="target", column=None,
                                     allow_empty=True, integer_labels=False)
    if len(values) < 2:
        raise ValidationError(problems, header="The test files are not valid")
    p_source, f_source = str(files["preliminary"]), str(files["final"])
    n_p, n_f = values["preliminary"].size, values["final"].size
    if n_p != n_f:
        longer, shorter = (f_source, p_source) if n_f > n_p else (p_source, f_source)
        problems.append(Problem(longer, min(n_p, n_f) + 1, None,
                                f"this test file has {max(n_p, n_f)} lines but {shorter} has {min(n_p, n_f)}; "
                                "both need one line per test sample (an empty line where the sample belongs "
                                "to the other subset)."))
    n = min(n_p, n_f)
    in_p, in_f = present["preliminary"][:n], present["final"][:n]
    rows = np.arange(1, n + 1)
    both, neither = in_p & in_f, ~in_p & ~in_f
    problems += _listed(p_source, rows[both], rows[both], None,
                        lambda _: f"this sample has a target in both test files (also in {f_source}); "
                                  "a sample belongs to exactly one subset.", "a target in both files")
    problems += _listed(p_source, rows[neither], rows[neither], None,
                        lambda _: f"this sample has a target in neither test file (the line is empty here and "
                                  f"in {f_source}); every sample belongs to exactly one subset.",
                        "a target in neither file")
    subsets = np.full(n, "final", dtype=object)
    subsets[in_p] = "preliminary"
    if not problems and n > 0:
        problems += _empty_subset_problems(f"{p_source} and {f_source}", subsets)
    if n == 0 and not problems:
        problems.append(Problem(p_source, None, None, "the test files are empty; expected one line per test sample."))
    if problems:
        raise ValidationError(problems, header="The test files are not valid")
    sample_sources = np.full(n, f_source, dtype=object)
    sample_sources[in_p] = p_source
    return Targets(
        values=_readonly(np.where(in_p, values["preliminary"][:n], values["final"][:n])),
        subsets=_readonly(subsets),
        ids=_readonly(np.array(list(map(str, range(1, n + 1))), dtype=object)),
        sample_sources=_readonly(sample_sources),
        sample_rows=_readonly(rows),
        sources=(p_source, f_source),
    )


def _read_csv_strings(data: bytes, source: str, required: Sequence[str]) -> tuple[pd.DataFrame | None, list[Problem]]:
    """A CSV as stripped strings (empty string for empty cells), after checking its columns."""
    try:
        table = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False, skip_blank_lines=False,
                            encoding="utf-8-sig")
    except pd.errors.EmptyDataError:
        return None, [Problem(source, None, None, f"the file is empty; expected a CSV with columns "
                                                  f"{', '.join(required)}.")]
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        return None, [Problem(source, None, None, f"cannot be read as CSV ({str(exc).strip()}).")]
    table.columns = [str(c).strip() for c in table.columns]
    missing = [c for c in required if c not in table.columns]
    if missing:
        found = ", ".join(repr(c) for c in table.columns)
        return None, [Problem(source, None, None,
                              f"missing column{'s' if len(missing) > 1 else ''} "
                              f"{', '.join(repr(c) for c in missing)}; expected {', '.join(required)}; "
                              f"found {found}.")]
    return table.apply(lambda col: col.fillna("").astype(str).str.strip()), []


def read_targets_csv(path: str | os.PathLike) -> Targets:
    """Read the targets from one CSV with columns ``id``, ``target``, ``subset``.

    ``subset`` is ``preliminary`` or ``final``; other columns are ignored. The
    order of the rows is the order of the samples for text solutions.

    Parameters
    ----------
    path : path

    Returns
    -------
    Targets

    Raises
    ------
    ValidationError
        Listing every problem (file, data row, column): missing columns, empty
        or repeated ids (a sample listed twice), unknown or empty subsets (a
        sample in neither), targets that are not finite numbers, an empty subset.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> scratch = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(scratch.name) / "targets.csv"
    >>> _ = path.write_text("id,target,subset\\na,1,preliminary\\nb,0,final\\n")
    >>> read_targets_csv(path).subsets.tolist()
    ['preliminary', 'final']
    >>> scratch.cleanup()
    """
    source = str(path)
    data, problems = _read_bytes(Path(path), source)
    table = None
    if data is not None:
        table, problems = _read_csv_strings(data, source, ("id", "target", "subset"))
    if table is None:
        raise ValidationError(problems, header="The targets file is not valid")
    n = len(table)
    rows = np.arange(1, n + 1)
    ids = table["id"].to_numpy(dtype=object)
    subsets = table["subset"].to_numpy(dtype=object)
    texts = table["target"].to_numpy(dtype=object)
    values = _parse_lines(texts)
    problems = _id_problems(source, ids, rows, what="sample")
    problems += _subset_problems(source, subsets, rows)
    problems += _number_problems(source, texts, values, what="target", column="target", allow_empty=False,
                                 integer_labels=False)
    if n == 0:
        problems.append(Problem(source, None, None, "the file has no rows; expected one row per test sample."))
    if not problems:
        problems += _empty_subset_problems(source, subsets)
    if problems:
        raise ValidationError(problems, header="The targets file is not valid")
    return Targets(_readonly(values), _readonly(subsets), _readonly(ids),
                   _readonly(np.full(n, source, dtype=object)), _readonly(rows), (source,))


def _target_metric_problems(targets: Targets, metrics: Sequence[Metric]) -> list[Problem]:
    """Problems of the targets for these metrics: integer labels for accuracy, R2 defined."""
    problems: list[Problem] = []
    for metric in metrics:
        if metric.integer_labels:
            fractional = targets.values != np.round(targets.values)
            for source in dict.fromkeys(targets.sample_sources[fractional]):
                here = fractional & (targets.sample_sources == source)
                problems += _listed(source, targets.sample_rows[here], targets.values[here].astype(str), None,
                                    lambda t, m=metric: f"target {t} is not an integer class label; the metric "
                                                        f"'{m.short_name}' needs integer labels.",
                                    "non-integer targets")
        if metric.name == "r2_score":
            for subset in SUBSETS:
                values = targets.values[targets.mask(subset)]
                if values.size and np.all(values == values[0]):
                    problems.append(Problem(", ".join(targets.sources), None, None,
                                            f"all targets of the {subset} subset are equal ({values[0]:g}); "
                                            "R2 is undefined there. Use rmse or mae."))
    return problems


# --------------------------------------------------------------------------- solutions


def _is_csv(path: Path, data: bytes) -> bool:
    if path.suffix.lower() == ".csv":
        return True
    first = data.split(b"\n", 1)[0]
    return b"," in first


def _plural_lines(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"


def _solution_from_text(data: bytes, source: str, targets: Targets, integer_labels: bool,
                        metric_name: str) -> tuple[np.ndarray, list[Problem]]:
    values = _fast_numbers(data)
    n = targets.n_samples
    if values is not None and values.size == n and np.isfinite(values).all() and \
            not (integer_labels and np.any(values != np.round(values))):
        return values, []
    texts = _split_lines(data)
    values = _parse_lines(texts)
    problems = _number_problems(source, texts, values, what="prediction", column=None, allow_empty=False,
                                integer_labels=integer_labels, metric_name=metric_name)
    if texts.size < n:
        missing = f"line {texts.size + 1} is" if n - texts.size == 1 else f"lines {texts.size + 1}-{n} are"
        problems.append(Problem(source, texts.size + 1, None,
                                f"the solution has {_plural_lines(texts.size)} but the test files have {n} "
                                f"(one line per test sample); {missing} missing."))
    elif texts.size > n:
        extra = f"line {n + 1} is" if texts.size - n == 1 else f"lines {n + 1}-{texts.size} are"
        problems.append(Problem(source, n + 1, None,
                                f"the solution has {_plural_lines(texts.size)} but the test files have {n} "
                                f"(one line per test sample); {extra} extra."))
    return values, problems


def _solution_from_csv(data: bytes, source: str, targets: Targets, integer_labels: bool,
                       metric_name: str) -> tuple[np.ndarray, list[Problem]]:
    table, problems = _read_csv_strings(data, source, ("id", "prediction"))
    if table is None:
        return np.array([]), problems
    rows = np.arange(1, len(table) + 1)
    ids = table["id"].to_numpy(dtype=object)
    texts = table["prediction"].to_numpy(dtype=object)
    numbers = _parse_lines(texts)
    problems = _id_problems(source, ids, rows, what="sample")
    problems += _number_problems(source, texts, numbers, what="prediction", column="prediction",
                                 allow_empty=False, integer_labels=integer_labels, metric_name=metric_name)
    position = pd.Index(targets.ids).get_indexer(ids)
    unknown = (position < 0) & (ids != "")
    problems += _listed(source, rows[unknown], ids[unknown], "id",
                        lambda t: f"unknown id {_show(t)}; the targets have no sample with this id.", "unknown ids")
    missing = ~pd.Index(targets.ids).isin(ids)
    where = [f"{s}, row {r}" for s, r in zip(targets.sample_sources[missing], targets.sample_rows[missing])]
    problems += [Problem(source, None, "id", f"no prediction for id {_show(i)} (targets: {w}).")
                 for i, w in zip(targets.ids[missing][:_MAX_LISTED], where[:_MAX_LISTED])]
    if missing.sum() > _MAX_LISTED:
        problems.append(Problem(source, None, "id", f"... and {missing.sum() - _MAX_LISTED} more ids without "
                                                    f"a prediction (the first {_MAX_LISTED} are listed above)."))
    values = np.full(targets.n_samples, np.nan)
    first = ~pd.Series(ids, dtype=object).duplicated(keep="first").to_numpy() & (position >= 0)
    values[position[first]] = numbers[first]
    return values, problems


def read_solution(path: str | os.PathLike, targets: Targets, *, integer_labels: bool = False) -> np.ndarray:
    """Read one solution file: one prediction per test sample, in the targets' order.

    A text file has one prediction per line, line i for test sample i. A CSV
    (name ending in ``.csv``, or a first line with a comma) has columns ``id``
    and ``prediction`` in any row order, one row per sample id of the targets.

    Parameters
    ----------
    path : path
    targets : Targets
        The test samples (their number and ids).
    integer_labels : bool, keyword-only
        Require integer-valued predictions (class labels, for accuracy).

    Returns
    -------
    ndarray of shape (n_samples,)
        Finite floats.

    Raises
    ------
    ValidationError
        Listing every problem of the file (file, line or row): a different
        number of lines than the test files, an empty line, a prediction that
        is not a number, NaN or infinite, a non-integer label, and for CSV
        missing columns, unknown, repeated or missing ids.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> scratch = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(scratch.name) / "solution.txt"
    >>> _ = path.write_text("1.5\\n2\\n")
    >>> read_solution(path, Targets.from_arrays([1.0, 2.0], ["preliminary", "final"])).tolist()
    [1.5, 2.0]
    >>> _ = path.write_text("abc\\n")
    >>> read_solution(path, Targets.from_arrays([1.0, 2.0], ["preliminary", "final"]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    srdash.errors.ValidationError: The solution ... was rejected (2 problems):
      - ...solution.txt, row 1: 'abc' is not a number; expected one prediction (a number).
      - ...solution.txt, row 2: the solution has 1 line but the test files have 2 (one line per ...
    >>> scratch.cleanup()
    """
    values, problems = _solution(Path(path), targets, integer_labels=integer_labels, metric_name="accuracy")
    if problems:
        raise ValidationError(problems, header=f"The solution {path} was rejected")
    return values


def _solution_from_array(values, source: str, targets: Targets, integer_labels: bool,
                         metric_name: str) -> tuple[np.ndarray, list[Problem]]:
    # The same checks as a text file, on the values' text (row = position + 1).
    try:
        values = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        return np.array([]), [Problem(source, None, None, "the predictions must be numbers.")]
    data = ("\n".join(map(repr, values.tolist())) + "\n").encode() if values.size else b""
    return _solution_from_text(data, source, targets, integer_labels, metric_name)


def _solution(path: Path, targets: Targets, *, integer_labels: bool,
              metric_name: str) -> tuple[np.ndarray, list[Problem]]:
    source = str(path)
    data, problems = _read_bytes(path, source)
    if data is None:
        return np.array([]), problems
    reader = _solution_from_csv if _is_csv(path, data) else _solution_from_text
    values, problems = reader(data, source, targets, integer_labels, metric_name)
    # Sort by row so that a file's report reads top to bottom; whole-file notes stay last.
    problems.sort(key=lambda p: (p.row is None, p.row or 0))
    return values, problems


# --------------------------------------------------------------------------- submissions


def _parse_flags(texts: np.ndarray, source: str, rows: np.ndarray) -> tuple[np.ndarray, list[Problem]]:
    lowered = pd.Series(texts, dtype=object).str.lower()
    true = lowered.isin(_TRUE_WORDS).to_numpy()
    bad = ~true & ~lowered.isin(_FALSE_WORDS).to_numpy()
    problems = _listed(source, rows[bad], texts[bad], "selected",
                       lambda t: f"{_show(t)} is not a yes/no value; use true/false, yes/no, 1/0 or leave it empty.",
                       "unreadable flags")
    return true, problems


def _finish_listing(table: pd.DataFrame, order: str) -> pd.DataFrame:
    """Sort, number the submissions within each team, and fix the column order."""
    keys = ["team", "submitted_at", "_row"] if order == "submitted_at" else ["team", "submission", "_row"]
    table = table.sort_values(keys, kind="stable", na_position="last").reset_index(drop=True)
    table["submission_index"] = table.groupby("team", sort=False).cumcount() + 1
    return table[["team", "submission", "submission_index", "submitted_at", "selected", "file"]]


def _listing_from_table(table: pd.DataFrame, source: str, base: Path | None, order: str) -> pd.DataFrame:
    columns = [str(c).strip() for c in table.columns]
    table = table.set_axis(columns, axis=1)
    missing = [c for c in ("team", "file") if c not in columns]
    if missing:
        raise ValidationError([Problem(source, None, None,
                                       f"missing column{'s' if len(missing) > 1 else ''} "
                                       f"{', '.join(repr(c) for c in missing)}; expected team, file and optionally "
                                       f"submitted_at, selected; found {', '.join(repr(c) for c in columns)}.")],
                              header="The submission listing is not valid")
    n = len(table)
    rows = np.arange(1, n + 1)
    text = {c: table[c].fillna("").astype(str).str.strip().to_numpy(dtype=object) for c in columns}
    problems = _listed(source, rows[text["team"] == ""], text["team"][text["team"] == ""], "team",
                       lambda t: "empty team name.", "empty team names")
    problems += _listed(source, rows[text["file"] == ""], text["file"][text["file"] == ""], "file",
                        lambda t: "empty file name.", "empty file names")
    raw = table["submitted_at"] if "submitted_at" in columns else pd.Series([pd.NaT] * n, dtype=object)
    missing_time = raw.isna().to_numpy() | (pd.Series(text.get("submitted_at", np.full(n, "", dtype=object)))
                                            .isin(["", "NaT"]).to_numpy())
    if missing_time.all():  # no times at all: the listing order decides
        stamps = pd.Series(pd.NaT, index=range(n), dtype="datetime64[ns, UTC]")
    else:
        if pd.api.types.is_datetime64_any_dtype(raw):
            stamps = pd.to_datetime(raw, utc=True)
        else:
            stamps = pd.to_datetime(pd.Series(text["submitted_at"]).where(~missing_time, None), utc=True,
                                    errors="coerce", format="ISO8601")
        bad = stamps.isna().to_numpy() & ~missing_time
        problems += _listed(source, rows[bad], text["submitted_at"][bad], "submitted_at",
                            lambda t: f"{_show(t)} is not a date-time; expected ISO 8601 such as "
                                      "'2024-05-01 12:30:00' (UTC unless it has an offset).", "unreadable dates")
        problems += _listed(source, rows[missing_time], text["submitted_at"][missing_time], "submitted_at",
                            lambda t: "no submitted_at; give every submission a time, or none (then the listing "
                                      "order decides).", "missing dates")
    selected = np.zeros(n, dtype=bool)
    if "selected" in columns:
        selected, flag_problems = _parse_flags(text["selected"], source, rows)
        problems += flag_problems
    pairs = pd.Series(list(zip(text["team"], text["file"])), dtype=object)
    repeated = pairs.duplicated().to_numpy()
    problems += _listed(source, rows[repeated], text["file"][repeated], "file",
                        lambda t: f"file {_show(t)} is listed twice for the same team.", "repeated files")
    if n == 0:
        problems.append(Problem(source, None, None, "no submissions listed."))
    if problems:
        raise ValidationError(problems, header="The submission listing is not valid")
    files = [str(base / f) if base is not None and not Path(f).is_absolute() else f for f in text["file"]]
    names = text["file"]
    if "submission" in columns:  # a listing made by list_submissions keeps its names
        names = np.where(text["submission"] != "", text["submission"], text["file"]).astype(object)
    listing = pd.DataFrame({
        "team": pd.Series(text["team"], dtype=object),
        "submission": pd.Series(names, dtype=object),
        "submitted_at": stamps.reset_index(drop=True),
        "selected": selected,
        "file": pd.Series(files, dtype=object),
        "_row": rows,
    })
    return _finish_listing(listing, order)


def _listing_from_folder(folder: Path, order: str) -> pd.DataFrame:
    records, problems = [], []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        if not entry.is_dir():
            problems.append(Problem(str(entry), None, None, "is not inside a team folder; expected "
                                                            "SUBMISSIONS/team/submission-file."))
            continue
        for item in sorted(entry.iterdir()):
            if item.name.startswith("."):
                continue
            if item.is_dir():
                problems.append(Problem(str(item), None, None, "is a folder inside a team folder; expected only "
                                                               "submission files there."))
                continue
            records.append({"team": entry.name, "submission": item.name, "file": str(item),
                            "submitted_at": pd.Timestamp(item.stat().st_mtime, unit="s", tz="UTC"),
                            "selected": False, "_row": len(records)})
    if not records and not problems:
        problems.append(Problem(str(folder), None, None, "has no submissions; expected SUBMISSIONS/team/"
                                                         "submission-file."))
    if problems:
        raise ValidationError(problems, header="The submissions folder is not valid")
    listing = pd.DataFrame.from_records(records).astype({"team": object, "submission": object, "file": object})
    return _finish_listing(listing, order)


def list_submissions(path: str | os.PathLike | pd.DataFrame, *, order: str = "submitted_at") -> pd.DataFrame:
    """List the submissions of a competition.

    Parameters
    ----------
    path : path or DataFrame
        A folder holding one folder per team with that team's submission files
        (``SUBMISSIONS/team/submission-file``; hidden files are ignored;
        ``submitted_at`` is the file's modification time, UTC, and no
        submission is selected); or a CSV (or DataFrame) with columns ``team``,
        ``file`` (relative to the CSV's folder) and optionally ``submitted_at``
        (ISO 8601, UTC unless it has an offset; for every submission or for
        none), ``selected`` (true/false, yes/no, 1/0 or empty) and
        ``submission`` (a display name; default the file as listed).
    order : {'submitted_at', 'name'}, keyword-only
        How a team's submissions are ordered (this decides which one is the
        *last*): by ``submitted_at``, then listing order (file name in a
        folder; listing order alone when there is no ``submitted_at``); or by file name alone (plain string order, so
        pad numbers: ``sub-02`` before ``sub-10``). Modification times change
        when files are copied, so prefer ``name`` or a listing CSV for folders
        that were copied around.

    Returns
    -------
    DataFrame
        One row per submission, sorted by team then order: ``team``,
        ``submission`` (file name as listed), ``submission_index`` (1-based
        position within the team), ``submitted_at`` (UTC, NaT if unknown),
        ``selected`` (bool), ``file`` (path to read).

    Raises
    ------
    ValidationError
        Listing every problem: missing columns, empty team or file names,
        unreadable dates or flags, a file listed twice, files outside team folders.

    Examples
    --------
    >>> listing = pd.DataFrame({"team": ["b", "a", "a"], "file": ["x.txt", "2.txt", "1.txt"],
    ...                         "submitted_at": ["2024-01-02", "2024-01-01", "2024-01-03"]})
    >>> list_submissions(listing)[["team", "submission", "submission_index"]]
      team submission  submission_index
    0    a      2.txt                 1
    1    a      1.txt                 2
    2    b      x.txt                 1
    >>> list_submissions(listing, order="name")["submission"].tolist()
    ['1.txt', '2.txt', 'x.txt']
    """
    _one_of("order", order, ORDERS)
    if isinstance(path, pd.DataFrame):
        return _listing_from_table(path, "<DataFrame>", None, order)
    path = Path(path)
    if path.is_dir():
        return _listing_from_folder(path, order)
    data, problems = _read_bytes(path, str(path))
    table = None
    if data is not None:
        try:
            table = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False, encoding="utf-8-sig")
        except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as exc:
            problems = [Problem(str(path), None, None, f"cannot be read as a CSV listing ({str(exc).strip()}); "
                                                       "expected columns team, file, submitted_at.")]
    if table is None:
        raise ValidationError(problems, header="The submission listing is not valid")
    return _listing_from_table(table, str(path), path.parent, order)


# --------------------------------------------------------------------------- scoring


@dataclass(frozen=True)
class PredictionResult:
    """The outcome of scoring a prediction competition.

    Attributes
    ----------
    submissions : DataFrame
        One row per submission: ``team``, ``submission``, ``submission_index``,
        ``submitted_at``, ``selected``, ``status`` ('ok' or 'rejected'),
        ``reason`` (why it was rejected; empty if ok), one
        ``<metric>_preliminary`` and ``<metric>_final`` column per metric
        (short names, e.g. ``rmse_final``; NaN when rejected),
        ``counts_preliminary`` and ``counts_final`` (whether the rule made this
        the team's submission on that leaderboard) and ``file``.
    preliminary_leaderboard, final_leaderboard : DataFrame
        One row per team, best first: ``place`` (1 = best), ``team``,
        ``score`` (the ranking metric on that subset), ``submission`` (the one
        that counts) and ``entries`` (submissions handed in, rejected ones
        included). Ties: equal scores (after rounding to ``decimals``) share the
        smallest place and the next place is skipped (1, 2, 2, 4); tied teams
        are listed alphabetically. A team without a counted valid submission
        has no score and shares the last place.
    shakeup : DataFrame
        One row per team, by final place: ``team``, ``preliminary_place``,
        ``final_place``, ``change`` (preliminary minus final place: positive =
        moved up), ``preliminary_score``, ``final_score``.
    metric : Metric
        The metric that ranks the leaderboards.
    metrics : tuple of Metric
        Every metric computed (the ranking one first).
    rule : str
        Which submission counted per team ('last', 'best-preliminary', 'selected').
    max_selected : int
        N for the 'selected' rule.
    problems : tuple of Problem
        Every problem of every rejected submission.
    warnings : tuple of str
        Things the reader must know (teams that selected nothing, ...).
    sources : tuple of str
        The target files.
    """

    submissions: pd.DataFrame
    preliminary_leaderboard: pd.DataFrame
    final_leaderboard: pd.DataFrame
    shakeup: pd.DataFrame
    metric: Metric
    metrics: tuple[Metric, ...]
    rule: str
    max_selected: int
    problems: tuple[Problem, ...] = ()
    warnings: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    decimals: int | None = _DEFAULT_DECIMALS
    combined: "CombinedLeaderboards | None" = None

    @property
    def teams(self) -> tuple[str, ...]:
        """Every team that handed in a submission, sorted."""
        return tuple(sorted(map(str, self.submissions["team"].unique())))

    def ranked_by(self, metric: str | Metric) -> "PredictionResult":
        """The same result with its leaderboards and shake-up ranked by another scored metric.

        The submissions that count stay the ones chosen by the first metric
        (``metrics[0]``), so that every per-metric leaderboard and the combined
        one rank the same submissions.

        Raises
        ------
        SrdashError
            When ``metric`` was not scored.

        Examples
        --------
        >>> targets = Targets.from_arrays([0.0, 0.0, 0.0, 0.0], ["preliminary"] * 2 + ["final"] * 2)
        >>> listing = pd.DataFrame({"team": ["a", "b"], "file": ["a.txt", "b.txt"]})
        >>> result = score_submissions(listing, targets, metric="rmse", extra_metrics=["mae"],
        ...                            predictions={"a.txt": [0, 3, 0, 3], "b.txt": [2, 2, 2, 2]})
        >>> result.final_leaderboard["team"].tolist(), result.ranked_by("mae").final_leaderboard["team"].tolist()
        (['b', 'a'], ['a', 'b'])
        """
        chosen = get_metric(metric)
        if chosen not in self.metrics:
            scored = ", ".join(f"'{m.short_name}'" for m in self.metrics)
            raise SrdashError(f"The metric '{chosen.short_name}' was not scored; scored metrics: {scored}.")
        if chosen == self.metric:
            return self
        preliminary = _leaderboard(self.submissions, "preliminary", chosen, self.decimals)
        final = _leaderboard(self.submissions, "final", chosen, self.decimals)
        return replace(self, metric=chosen, preliminary_leaderboard=preliminary, final_leaderboard=final,
                       shakeup=_shakeup(preliminary, final))

    @property
    def rejected(self) -> pd.DataFrame:
        """The rejected submissions: ``team``, ``submission``, ``reason``."""
        table = self.submissions
        return table.loc[table["status"] == "rejected", ["team", "submission", "reason"]].reset_index(drop=True)

    def leaderboard(self, subset: str) -> pd.DataFrame:
        """The leaderboard of ``subset`` ('preliminary' or 'final')."""
        _one_of("subset", subset, SUBSETS)
        return self.preliminary_leaderboard if subset == "preliminary" else self.final_leaderboard


def _reason(problems: Sequence[Problem]) -> str:
    parts = []
    for p in problems:
        where = "" if p.row is None else f"row {p.row}: "
        column = "" if p.column is None else f"column '{p.column}': "
        parts.append(f"{where}{column}{p.message}")
    return " | ".join(parts)


def _choose(table: pd.DataFrame, metric: Metric, rule: str, max_selected: int) -> tuple[pd.Series, pd.Series, list]:
    """Which submission counts per team on each leaderboard (boolean columns)."""
    prelim_column, final_column = f"{metric.short_name}_preliminary", f"{metric.short_name}_final"
    counts = {"preliminary": np.zeros(len(table), dtype=bool), "final": np.zeros(len(table), dtype=bool)}
    auto_selected = []
    for team, group in table.groupby("team", sort=True):
        ok = group[group["status"] == "ok"]
        if rule == "last":
            if len(ok):
                counts["preliminary"][ok.index[-1]] = counts["final"][ok.index[-1]] = True
            continue
        if rule == "best-preliminary":
            if len(ok):
                best = ok.index[metric.best_of(ok[prelim_column].to_numpy())]
                counts["preliminary"][best] = counts["final"][best] = True
            continue
        # 'selected': Kaggle's rule. A team that selected nothing gets its best preliminary ones.
        if group["selected"].any():
            candidates = ok[ok["selected"]]
        else:
            order = np.argsort(-_oriented(ok[prelim_column].to_numpy(), metric), kind="stable")
            candidates = ok.iloc[np.sort(order[:max_selected])]
            auto_selected.append(team)
        if len(candidates):
            counts["preliminary"][candidates.index[metric.best_of(candidates[prelim_column].to_numpy())]] = True
            counts["final"][candidates.index[metric.best_of(candidates[final_column].to_numpy())]] = True
    return pd.Series(counts["preliminary"], index=table.index), pd.Series(counts["final"], index=table.index), \
        auto_selected


def _oriented(values: np.ndarray, metric: Metric) -> np.ndarray:
    oriented = values if metric.direction == "higher" else -values
    return np.where(np.isnan(oriented), -np.inf, oriented)


def _leaderboard(table: pd.DataFrame, subset: str, metric: Metric, decimals: int | None) -> pd.DataFrame:
    teams = sorted(table["team"].unique())
    counted = table[table[f"counts_{subset}"]].set_index("team")
    board = pd.DataFrame({"team": pd.Series(teams, dtype=object)})
    board["score"] = board["team"].map(counted[f"{metric.short_name}_{subset}"]).astype(float)
    board["submission"] = board["team"].map(counted["submission"]).astype(object)
    board["entries"] = board["team"].map(table.groupby("team").size()).astype(int)
    oriented = _oriented(board["score"].to_numpy(), metric)
    if decimals is not None:
        oriented = np.round(oriented, decimals)
    board.insert(0, "place", pd.Series(oriented).rank(method="min", ascending=False).astype(int).to_numpy())
    return board.sort_values(["place", "team"], kind="stable").reset_index(drop=True)


def score_submissions(submissions: str | os.PathLike | pd.DataFrame, targets: Targets, *, metric: str | Metric,
                      extra_metrics: Sequence[str | Metric] = (), rule: str = "last", max_selected: int = 2,
                      decimals: int | None = _DEFAULT_DECIMALS, order: str = "submitted_at",
                      predictions: Mapping[str, Sequence[float]] | None = None,
                      combine_rules: "Rules | str | os.PathLike | None" = None,
                      progress: Callable[[int, int], None] | None = None) -> PredictionResult:
    """Score every submission and build the preliminary and final leaderboards.

    Each submission file is read and validated (:func:`read_solution`); a
    rejected file is listed with its reason and does not stop the others.
    Valid ones are scored with every metric on both subsets.

    Which submission counts per team is the ``rule``:

    ==================  ======================================  =====================================
    rule                preliminary leaderboard                 final leaderboard
    ==================  ======================================  =====================================
    last                the team's last valid submission        the same submission
    best-preliminary    the best preliminary score              the same submission
    selected            best preliminary among the selected     best final among the selected
    ==================  ======================================  =====================================

    'selected' is Kaggle's rule: each team selects up to ``max_selected``
    submissions (the ``selected`` column of the listing); a team that selected
    none gets its ``max_selected`` best preliminary ones (with a warning); a team
    whose selected submissions were all rejected has no score. Among equal
    scores the earlier submission counts. Rejected submissions never count
    (under 'last', the last *valid* one counts).

    Parameters
    ----------
    submissions : path or DataFrame
        A folder or listing CSV, or a DataFrame, as for :func:`list_submissions`.
    targets : Targets
    metric : str or Metric, keyword-only
        The metric ranking the leaderboards: 'accuracy', 'r2', 'rmse', 'mae'
        (or the full names of :data:`METRICS`).
    extra_metrics : sequence of str or Metric, keyword-only
        Further metrics to compute (columns of ``submissions``; see :func:`to_runs_table`).
    rule : {'last', 'best-preliminary', 'selected'}, keyword-only
    max_selected : int, keyword-only
        N of the 'selected' rule (default 2).
    decimals : int or None, keyword-only
        Scores are compared after rounding to this many decimals (default 9),
        so that float noise cannot split a tie. None compares exact floats.
    order : {'submitted_at', 'name'}, keyword-only
        Order of a team's submissions, as for :func:`list_submissions`.
    predictions : mapping of str to array-like, keyword-only
        In-memory predictions by listed file name, used instead of reading
        those files (validated the same way, rows = positions).
    combine_rules : Rules, preset name or path of a .toml file, keyword-only
        Rules combining the metrics into one leaderboard per subset
        (:func:`combine_metrics`; their criteria name the metrics). Default:
        with several metrics, the harmonic mean of the per-metric ranks
        (:func:`metric_rules`); with one metric, no combined leaderboard.
    progress : callable, keyword-only
        Called as ``progress(done, total)`` after each submission is read and scored.

    Returns
    -------
    PredictionResult
        With ``combined`` set when several metrics were scored (or
        ``combine_rules`` given) and at least one submission is valid.

    Raises
    ------
    SrdashError
        For an unknown metric, rule or order, or a bad ``max_selected``.
    ValidationError
        When the listing is not valid, the targets do not suit a metric
        (non-integer labels for accuracy, constant targets for R2), or a team
        selected more than ``max_selected`` submissions.

    Examples
    --------
    >>> targets = Targets.from_arrays([1.0, 2.0], ["preliminary", "final"])
    >>> listing = pd.DataFrame({"team": ["a", "a"], "file": ["1.txt", "2.txt"]})
    >>> result = score_submissions(listing, targets, metric="rmse", extra_metrics=["mae"],
    ...                            predictions={"1.txt": [1.0, 3.0], "2.txt": [1.0, float("nan")]})
    >>> result.submissions[["submission", "status", "rmse_final", "counts_final"]]
      submission    status  rmse_final  counts_final
    0      1.txt        ok         1.0          True
    1      2.txt  rejected         NaN         False
    >>> print(result.rejected.loc[0, "reason"])
    row 2: the prediction is NaN ('nan'); predictions must be finite numbers.
    """
    metrics = _metric_list(metric, extra_metrics)
    _one_of("rule", rule, RULES)
    _one_of("order", order, ORDERS)
    if not isinstance(max_selected, (int, np.integer)) or isinstance(max_selected, bool) or max_selected < 1:
        raise SrdashError(f"The 'max_selected' option must be an integer >= 1. Got {max_selected!r}.")
    if decimals is not None and (not isinstance(decimals, (int, np.integer)) or decimals < 0):
        raise SrdashError(f"The 'decimals' option must be a non-negative integer or None. Got {decimals!r}.")
    listing = list_submissions(submissions, order=order)
    listing_source = "<DataFrame>" if isinstance(submissions, pd.DataFrame) else str(submissions)
    problems = _target_metric_problems(targets, metrics)
    if rule == "selected":
        per_team = listing[listing["selected"]].groupby("team")["submission"].agg(list)
        for team, names in per_team.items():
            if len(names) > max_selected:
                problems.append(Problem(listing_source, None, "selected",
                                        f"team {_show(team)} selected {len(names)} submissions "
                                        f"({', '.join(map(_show, names))}); the rule 'selected' allows at most "
                                        f"{max_selected} (max_selected)."))
    if problems:
        raise ValidationError(problems, header="Cannot score the submissions")
    if combine_rules is not None:  # refuse rules that do not fit before reading every file
        check_combine_rules(combine_rules, metrics)

    integer_labels = any(m.integer_labels for m in metrics)
    label_metric = next((m.short_name for m in metrics if m.integer_labels), "accuracy")
    masks = {s: targets.mask(s) for s in SUBSETS}
    truth = {s: targets.values[masks[s]] for s in SUBSETS}
    scores = {f"{m.short_name}_{s}": np.full(len(listing), np.nan) for m in metrics for s in SUBSETS}
    status = np.full(len(listing), "ok", dtype=object)
    reasons = np.full(len(listing), "", dtype=object)
    all_problems: list[Problem] = []
    for i, (name, path) in enumerate(zip(listing["submission"], listing["file"])):
        if predictions is not None and name in predictions:
            values, found = _solution_from_array(predictions[name], name, targets, integer_labels, label_metric)
        else:
            values, found = _solution(Path(path), targets, integer_labels=integer_labels, metric_name=label_metric)
        if found:
            status[i], reasons[i] = "rejected", _reason(found)
            all_problems += found
        else:
            for m in metrics:
                for s in SUBSETS:
                    scores[f"{m.short_name}_{s}"][i] = m._compute(truth[s], values[masks[s]])
        if progress is not None:
            progress(i + 1, len(listing))

    table = listing[["team", "submission", "submission_index", "submitted_at", "selected"]].copy()
    table["status"] = status
    table["reason"] = reasons
    for column, values in scores.items():
        table[column] = values
    counts_p, counts_f, auto_selected = _choose(table, metrics[0], rule, max_selected)
    table["counts_preliminary"] = counts_p
    table["counts_final"] = counts_f
    table["file"] = listing["file"]

    notes = []
    if auto_selected:
        notes.append(f"{len(auto_selected)} team(s) selected no submission; their {max_selected} best preliminary "
                     f"submission(s) were used (as Kaggle does): {', '.join(map(_show, auto_selected))}.")
    if not (status == "ok").any():
        notes.append("No submission could be scored: every submission was rejected.")
    preliminary = _leaderboard(table, "preliminary", metrics[0], decimals)
    final = _leaderboard(table, "final", metrics[0], decimals)
    result = PredictionResult(
        submissions=table, preliminary_leaderboard=preliminary, final_leaderboard=final,
        shakeup=_shakeup(preliminary, final), metric=metrics[0], metrics=tuple(metrics), rule=rule,
        max_selected=int(max_selected), problems=tuple(all_problems), warnings=tuple(notes),
        sources=tuple(targets.sources), decimals=decimals,
    )
    if combine_rules is not None:
        result = replace(result, combined=combine_metrics(result, rules=combine_rules))
    elif len(metrics) > 1 and (status == "ok").any():
        result = replace(result, combined=combine_metrics(result))
    return result


def _shakeup(preliminary: pd.DataFrame, final: pd.DataFrame) -> pd.DataFrame:
    """Each team's preliminary and final place and score, by final place."""
    merged = (preliminary[["team", "place", "score"]]
              .merge(final[["team", "place", "score"]], on="team", suffixes=("_p", "_f")))
    return pd.DataFrame({
        "team": merged["team"].astype(object),
        "preliminary_place": merged["place_p"],
        "final_place": merged["place_f"],
        "change": merged["place_p"] - merged["place_f"],
        "preliminary_score": merged["score_p"],
        "final_score": merged["score_f"],
    }).sort_values(["final_place", "team"], kind="stable").reset_index(drop=True)


def _metric_list(metric, extra_metrics) -> list[Metric]:
    if isinstance(extra_metrics, (str, Metric)):
        extra_metrics = [extra_metrics]
    metrics = []
    for m in [metric, *extra_metrics]:
        m = get_metric(m)
        if m not in metrics:
            metrics.append(m)
    return metrics


def to_runs_table(result: PredictionResult, *, subsets: Sequence[str] = SUBSETS,
                  submissions: str = "counted") -> pd.DataFrame:
    """The long per-run table of the ranking engine, one metric per column.

    Each team is a ``method``, each subset a ``dataset`` and each submission a
    ``run`` (its ``submission_index``), so that :func:`srdash.judging.ranking.judge`
    can combine several metrics (rules with one criterion per metric column,
    with the metric's direction).

    Parameters
    ----------
    result : PredictionResult
    subsets : sequence of {'preliminary', 'final'}, keyword-only
        The subsets to include as datasets (default both).
    submissions : {'counted', 'all'}, keyword-only
        'counted': per team and subset, the submission the rule counted (a team
        without one has no row, which the ranking engine treats as DNF).
        'all': every submission, rejected ones with status 'rejected' and NaN
        metrics (the worst value for the ranking engine).

    Returns
    -------
    DataFrame
        Columns ``method``, ``dataset``, ``run``, ``model`` (NA), ``components``
        (NaN), one column per metric (short name: ``rmse``, ``mae``, ...),
        ``status``, ``reason``, ``submission``, ``submitted_at``.

    Examples
    --------
    >>> targets = Targets.from_arrays([1.0, 2.0, 3.0, 5.0], ["preliminary", "final"] * 2)
    >>> listing = pd.DataFrame({"team": ["a", "b"], "file": ["a.txt", "b.txt"]})
    >>> result = score_submissions(listing, targets, metric="rmse", extra_metrics=["mae"],
    ...                            predictions={"a.txt": [1, 2, 3, 4], "b.txt": [2, 2, 3, 5]})
    >>> to_runs_table(result, subsets=["final"])[["method", "dataset", "run", "rmse", "mae"]]
      method dataset  run      rmse  mae
    0      a   final    1  0.707107  0.5
    1      b   final    1  0.000000  0.0
    """
    for subset in subsets:
        _one_of("subset", subset, SUBSETS)
    _one_of("submissions", submissions, ("counted", "all"))
    table = result.submissions
    parts = []
    for subset in subsets:
        chosen = table[table[f"counts_{subset}"]] if submissions == "counted" else table
        part = pd.DataFrame({
            "method": chosen["team"].astype(object).to_numpy(),
            "dataset": subset,
            "run": chosen["submission_index"].to_numpy(),
            "model": pd.Series([pd.NA] * len(chosen), dtype=object),
            "components": np.nan,
            **{m.short_name: chosen[f"{m.short_name}_{subset}"].to_numpy() for m in result.metrics},
            "status": chosen["status"].to_numpy(),
            "reason": chosen["reason"].to_numpy(),
            "submission": chosen["submission"].to_numpy(),
            "submitted_at": chosen["submitted_at"].to_numpy(),
        })
        parts.append(part)
    runs = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    return runs.sort_values(["dataset", "method", "run"], kind="stable").reset_index(drop=True)


# --------------------------------------------------------------------------- several metrics combined


@dataclass(frozen=True, eq=False)
class CombinedLeaderboards:
    """Several metrics combined into one leaderboard per subset by the ranking engine.

    Build with :func:`combine_metrics` (or get ``PredictionResult.combined``).

    Attributes
    ----------
    preliminary_leaderboard, final_leaderboard : DataFrame
        One row per team, best first: ``place`` (1 = best; equal scores share
        the smallest place), ``team``, ``score`` (higher is better), then for
        rank-harmonic rules each metric's value (``rmse``, ...) and rank
        (``rmse_rank``: higher is better, K = best, K = number of teams), for
        normalised-weighted rules each meta-score and each metric's value;
        ``submission`` (the one that counts), ``entries`` (submissions handed
        in) and ``status`` ('ok', or 'no valid
        submission': such a team takes the lowest ranks, or for
        normalised-weighted rules has no score and shares the last place).
    shakeup : DataFrame
        As :attr:`PredictionResult.shakeup`, for the combined places.
    rules : Rules
        The rules that combined the metrics.
    verdicts : Mapping of str to Verdict or MultiObjectiveVerdict
        The ranking engine's verdict on each subset ('preliminary', 'final').
    runs : Mapping of str to DataFrame
        The per-run table each verdict was judged from (:func:`to_runs_table`).
    rule : str
        Which submission counted per team (see :func:`score_submissions`).
    """

    preliminary_leaderboard: pd.DataFrame
    final_leaderboard: pd.DataFrame
    shakeup: pd.DataFrame
    rules: "Rules"
    verdicts: Mapping[str, object]
    runs: Mapping[str, pd.DataFrame]
    rule: str = "last"

    @property
    def description(self) -> str:
        """One sentence saying how the metrics were combined."""
        if self.rules.rule_kind.judges_submissions:
            return (f"normalised, weighted meta-scores of the rules '{self.rules.name}' "
                    "(higher is better)")
        parts = [f"{c.label} ({c.direction} is better, weight {c.weight:g})" for c in self.rules.criteria]
        return "harmonic mean of the per-metric ranks: " + ", ".join(parts)

    def leaderboard(self, subset: str) -> pd.DataFrame:
        """The combined leaderboard of ``subset`` ('preliminary' or 'final')."""
        _one_of("subset", subset, SUBSETS)
        return self.preliminary_leaderboard if subset == "preliminary" else self.final_leaderboard

    def rescorer(self, subset: str = "final"):
        """A :class:`srdash.analysis.sensitivity.Rescorer` of the combined verdict on ``subset`` (weight sensitivity)."""
        from srdash.analysis.sensitivity import Rescorer

        _one_of("subset", subset, SUBSETS)
        return Rescorer.from_verdict(self.verdicts[subset], runs=self.runs[subset])


def _toml_string(text: str) -> str:
    import json

    return json.dumps(str(text), ensure_ascii=False)  # a JSON string is a valid TOML basic string


def metric_rules(metrics: Sequence[str | Metric], *, weights: Sequence[float] | None = None,
                 decimals: int | None = _DEFAULT_DECIMALS) -> "Rules":
    """Rank-harmonic rules with one criterion per metric (the default way to combine metrics).

    On each subset the teams are ranked on each metric (ranks: higher is
    better, K = best; ties share the average position), and a team's score is
    the weighted harmonic mean of its ranks, ``sum(w) / sum(w / rank)``.

    Parameters
    ----------
    metrics : sequence of str or Metric
        At least one; each criterion is named after the metric's short name and
        reads the column of that name in :func:`to_runs_table`.
    weights : sequence of float, keyword-only
        One weight per metric (default 1 each).
    decimals : int or None, keyword-only
        Values are compared after rounding to this many decimals (as the
        leaderboards do).

    Returns
    -------
    Rules
        With the generated TOML in ``text`` (for provenance).

    Examples
    --------
    >>> rules = metric_rules(["rmse", "r2"])
    >>> [(c.name, c.direction) for c in rules.criteria]
    [('rmse', 'lower'), ('r2', 'higher')]
    >>> rules.kind, rules.rank_method
    ('rank-harmonic', 'average')
    """
    from srdash.judging.rules import parse_rules

    chosen = _metric_list(metrics[0], metrics[1:]) if len(metrics) else []
    if not chosen:
        raise SrdashError("metric_rules needs at least one metric.")
    weights = [1.0] * len(chosen) if weights is None else [float(w) for w in weights]
    if len(weights) != len(chosen):
        raise SrdashError(f"Give one weight per metric: {len(chosen)} metrics, {len(weights)} weights.")
    labels = ", ".join(m.label for m in chosen)
    lines = [
        '# Generated by srdash.judging.predictions.metric_rules: one criterion per prediction metric.',
        'name = "prediction-metrics"',
        f"title = {_toml_string('Prediction metrics combined: harmonic mean of ranks (' + labels + ')')}",
        'description = """',
        "On each subset (preliminary, final) the teams are ranked on every metric (higher rank is",
        "better, K = best, ties share the average position); a team's score is the weighted harmonic",
        "mean of its ranks. A team without a valid submission takes the lowest ranks.",
        '"""',
        'kind = "rank-harmonic"',
        "",
        "[ranking]",
        'run_aggregation = "median"',
        'rank_method = "average"',
    ]
    for metric, weight in zip(chosen, weights):
        lines += ["", "[[criteria]]", f'name = "{metric.short_name}"', f'column = "{metric.short_name}"',
                  f'direction = "{metric.direction}"']
        if decimals is not None:
            lines.append(f"decimals = {int(decimals)}")
        lines += [f"weight = {weight!r}", f"label = {_toml_string(metric.label)}",
                  f"description = {_toml_string(f'{metric.label} of the predictions ({metric.direction} is better).')}"]
    return parse_rules("\n".join(lines) + "\n", source="generated:prediction-metrics",
                       default_name="prediction-metrics")


def _load_rules(rules) -> "Rules":
    from srdash.judging.rules import load_rules

    return load_rules(rules)


def check_combine_rules(rules: "Rules | str | os.PathLike", metrics: Sequence[str | Metric]) -> "Rules":
    """Load ``rules`` and check that they can combine ``metrics`` (see :func:`combine_metrics`).

    Returns
    -------
    Rules

    Raises
    ------
    RulesError
        Unknown rules, or a criterion that reads a column which is not a scored
        metric's short name, or declares the wrong direction.

    Examples
    --------
    >>> check_combine_rules(metric_rules(["rmse", "mae"]), ["rmse"])
    Traceback (most recent call last):
    ...
    srdash.errors.RulesError: The rules 'prediction-metrics' do not fit the scored metrics ('rmse'): criterion 'mae' reads column 'mae', which is not a scored metric. Each criterion's column must be the short name of a scored metric (accuracy, r2, rmse, mae: score it with --metric), with that metric's direction.
    """
    rules = _load_rules(rules)
    metrics = [get_metric(m) for m in metrics]
    scored = {m.short_name: m for m in metrics}
    problems = []
    for criterion in rules.criteria:
        metric = scored.get(criterion.column)
        if metric is None:
            problems.append(f"criterion '{criterion.name}' reads column '{criterion.column}', which is not a "
                            "scored metric")
        elif criterion.direction != metric.direction:
            problems.append(f"criterion '{criterion.name}' says {criterion.direction} is better, but "
                            f"{metric.short_name} is {metric.direction}-is-better")
    if problems:
        listed = ", ".join(f"'{name}'" for name in scored)
        from srdash.errors import RulesError

        raise RulesError(f"The rules '{rules.name}' do not fit the scored metrics ({listed}): "
                         + "; ".join(problems) + ". Each criterion's column must be the short name of a scored "
                         "metric (accuracy, r2, rmse, mae: score it with --metric), with that metric's direction.")
    return rules


def combine_metrics(result: PredictionResult, *, rules: "Rules | str | os.PathLike | None" = None
                    ) -> CombinedLeaderboards:
    """Combine the scored metrics into one leaderboard per subset with the ranking engine.

    Each subset is judged on its own: the teams are the methods and each
    team's counted submission is its run (:func:`to_runs_table`). Rank-harmonic
    rules go through :func:`srdash.judging.ranking.judge`; normalised-weighted rules
    through :func:`srdash.judging.multiobjective.judge_submissions` (one submission per
    team: the counted one).

    Parameters
    ----------
    result : PredictionResult
    rules : Rules, preset name or path of a .toml file, keyword-only
        Their criteria read the metric columns (short names, e.g. ``column =
        "rmse"``) with the metrics' directions. Default: :func:`metric_rules`
        over every scored metric (harmonic mean of ranks, equal weights).

    Returns
    -------
    CombinedLeaderboards

    Raises
    ------
    RulesError
        When a criterion reads a column that is not a scored metric, or
        declares the wrong direction.
    SrdashError
        When no submission could be scored.

    Examples
    --------
    Two metrics that disagree (errors on the final samples, targets 0):
    a (0, 3): RMSE 2.121, MAE 1.5; b (2, 2): RMSE 2, MAE 2; c (1, 2.5): RMSE 1.904, MAE 1.75.
    Ranks (3 = best): RMSE c 3, b 2, a 1; MAE a 3, c 2, b 1. Harmonic means:
    c 2 / (1/3 + 1/2) = 2.4, a 2 / (1 + 1/3) = 1.5, b 2 / (1/2 + 1) = 1.333.

    >>> targets = Targets.from_arrays([0.0] * 4, ["preliminary"] * 2 + ["final"] * 2)
    >>> listing = pd.DataFrame({"team": ["a", "b", "c"], "file": ["a", "b", "c"]})
    >>> result = score_submissions(listing, targets, metric="rmse", extra_metrics=["mae"],
    ...                            predictions={"a": [0, 3, 0, 3], "b": [2, 2, 2, 2], "c": [1, 2.5, 1, 2.5]})
    >>> board = combine_metrics(result).final_leaderboard
    >>> board[["place", "team", "score", "rmse_rank", "mae_rank"]].round(3)
       place team  score  rmse_rank  mae_rank
    0      1    c  2.400        3.0       2.0
    1      2    a  1.500        1.0       3.0
    2      3    b  1.333        2.0       1.0
    """
    rules = metric_rules(result.metrics, decimals=result.decimals) if rules is None else _load_rules(rules)
    check_combine_rules(rules, result.metrics)
    if not (result.submissions["status"] == "ok").any():
        raise SrdashError("No submission could be scored (every submission was rejected): there is nothing to "
                          "combine.")
    teams = list(result.teams)
    boards, verdicts, runs_by_subset = {}, {}, {}
    for subset in SUBSETS:
        runs = to_runs_table(result, subsets=[subset])
        if rules.rule_kind.judges_submissions:
            verdict, board = _combined_normalised(runs, rules, teams)
        else:
            verdict, board = _combined_harmonic(runs, rules, teams)
        entries = board["team"].map(result.submissions.groupby("team").size()).astype(int)
        board.insert(board.columns.get_loc("submission") + 1, "entries", entries)
        boards[subset], verdicts[subset], runs_by_subset[subset] = board, verdict, runs
    return CombinedLeaderboards(
        preliminary_leaderboard=boards["preliminary"], final_leaderboard=boards["final"],
        shakeup=_shakeup(boards["preliminary"], boards["final"]), rules=rules,
        verdicts=MappingProxyType(verdicts), runs=MappingProxyType(runs_by_subset), rule=result.rule,
    )


def _combined_harmonic(runs: pd.DataFrame, rules: "Rules", teams: list[str]):
    from srdash.judging.ranking import judge

    verdict = judge(runs, rules, methods=teams)
    lb = verdict.leaderboard
    counted = runs.drop_duplicates("method", keep="last").set_index("method")
    board = pd.DataFrame({"place": lb["place"].to_numpy(), "team": lb["method"].astype(object).to_numpy(),
                          "score": lb["score"].to_numpy(dtype=float)})
    for criterion in verdict.criteria:
        board[criterion.column] = board["team"].map(counted[criterion.column]).astype(float)
        board[f"{criterion.name}_rank"] = lb[f"{criterion.name}_rank"].to_numpy(dtype=float)
    board["submission"] = board["team"].map(counted["submission"]).astype(object)
    board["status"] = np.where(lb["dnf"].to_numpy() > 0, "no valid submission", "ok")
    return verdict, board


def _combined_normalised(runs: pd.DataFrame, rules: "Rules", teams: list[str]):
    from srdash.judging.multiobjective import judge_submissions, scheme_from_rules

    scheme = scheme_from_rules(rules)
    columns = list(dict.fromkeys(c.column for c in scheme.metrics))
    table = pd.DataFrame({scheme.team_column: runs["method"].astype(str).to_numpy(),
                          **{c: runs[c].to_numpy(dtype=float) for c in columns}})
    if scheme.time_column:
        table[scheme.time_column] = runs["submitted_at"].to_numpy()
    verdict = judge_submissions(table, rules)
    lb = verdict.leaderboard
    counted = runs.drop_duplicates("method", keep="last").set_index("method")
    ranked = pd.DataFrame({"place": lb["place"].to_numpy(), "team": lb["team"].astype(object).to_numpy(),
                           "score": lb["stage2"].to_numpy(dtype=float),
                           **{g: lb[g].to_numpy(dtype=float) for g in verdict.meta_scores}})
    missing = [t for t in teams if t not in set(ranked["team"])]
    if missing:  # no valid submission: no score, sharing the last place
        ranked = pd.concat([ranked, pd.DataFrame({"place": len(ranked) + 1, "team": pd.Series(missing, dtype=object),
                                                  "score": np.nan})], ignore_index=True)
    for column in columns:
        ranked[column] = ranked["team"].map(counted[column]).astype(float)
    ranked["submission"] = ranked["team"].map(counted["submission"]).astype(object)
    ranked["status"] = np.where(ranked["team"].isin(missing), "no valid submission", "ok")
    ranked["place"] = ranked["place"].astype(int)
    return verdict, ranked.reset_index(drop=True)


# --------------------------------------------------------------------------- options (app, CLI)

#: Keys of the options of :func:`score_from_options` (the JSON in ``SRDASH_PREDICTIONS``).
OPTION_KEYS = ("targets_preliminary", "targets_final", "targets_csv", "submissions", "metrics", "rule",
               "max_selected", "order", "rules")


def score_from_options(options: Mapping[str, object], *,
                       progress: Callable[[int, int], None] | None = None) -> PredictionResult:
    """Read the targets and score the submissions that ``options`` describe.

    This is how the predictions app (``SRDASH_PREDICTIONS``, written by
    ``srdash predictions serve``) names a competition.

    Parameters
    ----------
    options : mapping
        ``submissions`` (folder or listing CSV; required); either
        ``targets_preliminary`` and ``targets_final`` or ``targets_csv``;
        ``metrics`` (list of metric names, default ``['rmse']``; the first one
        chooses the counted submissions); ``rule``, ``max_selected``, ``order``
        (as :func:`score_submissions`); ``rules`` (preset or .toml file
        combining the metrics, optional). Paths should be absolute.
    progress : callable, keyword-only
        ``progress(done, total)`` after each submission.

    Returns
    -------
    PredictionResult

    Raises
    ------
    SrdashError
        Unknown or missing keys, or invalid values; ValidationError for invalid files.

    Examples
    --------
    >>> score_from_options({"submissions": "s.csv", "metric": "rmse"})
    Traceback (most recent call last):
    ...
    srdash.errors.SrdashError: Unknown prediction option(s) 'metric'. Options: targets_preliminary, targets_final, targets_csv, submissions, metrics, rule, max_selected, order, rules.
    """
    unknown = [key for key in options if key not in OPTION_KEYS]
    if unknown:
        raise SrdashError(f"Unknown prediction option(s) {', '.join(repr(k) for k in unknown)}. "
                          f"Options: {', '.join(OPTION_KEYS)}.")
    if not options.get("submissions"):
        raise SrdashError("The prediction options need 'submissions' (a folder of team/file or a listing CSV).")
    csv_path = options.get("targets_csv")
    pair = (options.get("targets_preliminary"), options.get("targets_final"))
    if csv_path and any(pair):
        raise SrdashError("Give either 'targets_csv' or both 'targets_preliminary' and 'targets_final', not both.")
    if not csv_path and not all(pair):
        raise SrdashError("The targets are missing: give 'targets_preliminary' and 'targets_final' (two text "
                          "files) or 'targets_csv' (one CSV with id, target, subset).")
    metrics = options.get("metrics") or ["rmse"]
    if isinstance(metrics, str):
        metrics = [metrics]
    targets = read_targets_csv(csv_path) if csv_path else read_targets(*pair)
    return score_submissions(options["submissions"], targets, metric=metrics[0], extra_metrics=list(metrics[1:]),
                             rule=options.get("rule", "last"), max_selected=options.get("max_selected", 2),
                             order=options.get("order", "submitted_at"), combine_rules=options.get("rules") or None,
                             progress=progress)


# --------------------------------------------------------------------------- figure


def _plain(text) -> str:
    """Untrusted text made inert for plotly (which renders a subset of HTML)."""
    return html.escape(str(text), quote=False)


def shakeup_figure(result: PredictionResult | CombinedLeaderboards, *, title: str | None = None,
                   height: int | None = None) -> "go.Figure":
    """Slope chart of the shake-up: each team's preliminary place to its final place.

    Lines are green for teams that moved up, red for teams that moved down and
    grey for teams that kept their place; place 1 (the best) is at the top.
    Team names are shown as plain text (HTML is escaped).

    Parameters
    ----------
    result : PredictionResult or CombinedLeaderboards
        One metric's shake-up, or the combined leaderboards' (several metrics).
    title : str, keyword-only
        Default: "Shake-up: preliminary → final place (<metric>, rule '<rule>')"
        (for combined leaderboards "(combined metrics, rule '<rule>')").
    height : int, keyword-only
        Figure height in pixels (default grows with the number of teams).

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> targets = Targets.from_arrays([1.0, 2.0, 3.0, 4.0], ["preliminary", "final"] * 2)
    >>> listing = pd.DataFrame({"team": ["<b>a</b>", "b"], "file": ["a.txt", "b.txt"]})
    >>> result = score_submissions(listing, targets, metric="mae",
    ...                            predictions={"a.txt": [1, 3, 3, 5], "b.txt": [2, 2, 4, 4]})
    >>> figure = shakeup_figure(result)
    >>> [trace.name for trace in figure.data]
    ['moved up', 'moved down']
    >>> figure.data[1].text[0]
    '&lt;b&gt;a&lt;/b&gt; (1)'
    """
    import plotly.graph_objects as go

    shake = result.shakeup
    n_teams = len(shake)
    figure = go.Figure()
    groups = (("moved up", shake["change"] > 0, "#2ca02c"), ("moved down", shake["change"] < 0, "#d62728"),
              ("same place", shake["change"] == 0, "#7f7f7f"))
    for name, mask, colour in groups:
        part = shake[mask.to_numpy()]
        if part.empty:
            continue
        x, y, text, custom, positions = [], [], [], [], []
        for team, p_place, f_place, p_score, f_score in zip(part["team"], part["preliminary_place"],
                                                            part["final_place"], part["preliminary_score"],
                                                            part["final_score"]):
            label = _plain(team)
            x += ["preliminary", "final", None]
            y += [p_place, f_place, None]
            text += [f"{label} ({p_place})", f"{label} ({f_place})", ""]
            positions += ["middle left", "middle right", "middle right"]
            custom += [[label, p_place, f_place, _score_text(p_score)], [label, p_place, f_place,
                                                                          _score_text(f_score)], [""] * 4]
        figure.add_trace(go.Scatter(
            x=x, y=y, text=text, customdata=custom, mode="lines+markers+text", name=name,
            textposition=positions, line={"color": colour, "width": 2}, marker={"size": 8, "color": colour},
            hovertemplate="%{customdata[0]}<br>place %{customdata[1]} → %{customdata[2]}<br>"
                          "score %{customdata[3]}<extra></extra>",
        ))
    if isinstance(result, CombinedLeaderboards):
        what = "combined metrics"
    else:
        what = f"{result.metric.label}, {result.metric.direction} is better"
    figure.update_layout(
        title=title if title is not None else
        f"Shake-up: preliminary → final place ({what}; rule '{result.rule}')",
        height=height if height is not None else max(300, 60 + 28 * n_teams),
        showlegend=True, template="plotly_white", margin={"l": 160, "r": 160},
    )
    figure.update_xaxes(type="category", categoryorder="array", categoryarray=["preliminary", "final"], title=None)
    figure.update_yaxes(autorange="reversed", title="place (1 = best)", dtick=1, zeroline=False)
    return figure


def _score_text(score: float) -> str:
    return "none (no valid submission)" if pd.isna(score) else f"{score:.6g}"
