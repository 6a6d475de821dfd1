"""Reading prediction-file competitions: targets, solution files and submission listings.

Every value comes from an untrusted file; every problem names the file and row
(see :mod:`srdash.judging.predictions` for the formats and how rows are counted).
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from srdash.errors import Problem, SrdashError, ValidationError
from srdash.io.csvcolumns import MAX_SOLUTION_COLUMNS, binary_problem, read_csv_columns, shown_names
from srdash.io.files import FileRefused, read_file_bytes

__all__ = ["SUBSETS", "ORDERS", "Targets", "read_targets", "read_targets_csv", "read_solution", "list_submissions"]

SUBSETS = ("preliminary", "final")
ORDERS = ("submitted_at", "name")

# One kind of problem on many lines is listed for the first few lines, then counted.
_MAX_LISTED = 10
_NAN_WORDS = ("nan", "+nan", "-nan")
_TRUE_WORDS = ("true", "1", "yes", "y", "x")
_FALSE_WORDS = ("false", "0", "no", "n", "")


def one_of(option: str, value, allowed: Sequence[str]) -> None:
    """Raise SrdashError when an option's ``value`` is not one of ``allowed``.

    >>> one_of("subset", "all", SUBSETS)
    Traceback (most recent call last):
    srdash.errors.SrdashError: The 'subset' option must be one of 'preliminary', 'final'. Got 'all'.
    """
    if value not in allowed:
        listed = ", ".join(f"'{a}'" for a in allowed)
        raise SrdashError(f"The '{option}' option must be one of {listed}. Got {value!r}.")


def quoted(text: str, limit: int = 40) -> str:
    """A value from an untrusted file, quoted and shortened to ``limit`` characters for a message.

    >>> quoted("x" * 50, limit=8)
    "'xxxxx...'"
    """
    text = str(text)
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")



# --------------------------------------------------------------------------- reading numbers


def _read_bytes(path: Path, source: str, root=None) -> tuple[bytes | None, list[Problem]]:
    # Links leaving ``root``, dangling links, FIFOs, devices and oversized files are
    # refused per file, without quoting their content (srdash.io.files).
    try:
        data = read_file_bytes(path, root=root)
    except FileRefused as exc:
        return None, [Problem(source, None, None, exc.reason)]
    binary = binary_problem(data, source)  # no text file holds NUL bytes; refused without quoting them
    return (None, [binary]) if binary else (data, [])


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
                        lambda t: f"{quoted(t)} is not a number; expected one {what} (a number).", "non-numbers")
    problems += _listed(source, rows[nan_word], texts[nan_word], column,
                        lambda t: f"the {what} is NaN ({quoted(t)}); {what}s must be finite numbers.", "NaN")
    problems += _listed(source, rows[infinite], texts[infinite], column,
                        lambda t: f"the {what} is infinite ({quoted(t)}); {what}s must be finite numbers.",
                        "infinite values")
    if integer_labels:
        finite = np.isfinite(values)
        fractional = finite & (values != np.round(np.where(finite, values, 0.0)))
        problems += _listed(source, rows[fractional], texts[fractional], column,
                            lambda t: f"{quoted(t)} is not an integer class label; the metric '{metric_name}' "
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
        one_of("subset", subset, SUBSETS)
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
                        lambda t: f"unknown subset {quoted(t)}; expected 'preliminary' or 'final'.", "unknown subsets")
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
                            lambda t: f"id {quoted(t)} appears again (first on row {first_row[t]}); "
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


def _read_csv_strings(data: bytes, source: str, required: Sequence[str],
                      max_columns: int | None = None) -> tuple[pd.DataFrame | None, list[Problem]]:
    """The ``required`` columns of a CSV as stripped strings, the header checked first (:mod:`srdash.io.csvcolumns`)."""
    return read_csv_columns(data, source=source, required=required, max_columns=max_columns)


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


def target_metric_problems(targets: Targets, metrics: Sequence) -> list[Problem]:
    """Problems of the targets for these metrics: integer labels for accuracy, R2 defined.

    ``metrics`` are :class:`srdash.judging.metrics.Metric` objects, read only through their
    ``integer_labels``, ``name`` and ``short_name`` (io sits below judging and does not import it)."""
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
    table, problems = _read_csv_strings(data, source, ("id", "prediction"), MAX_SOLUTION_COLUMNS)
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
                        lambda t: f"unknown id {quoted(t)}; the targets have no sample with this id.", "unknown ids")
    missing = ~pd.Index(targets.ids).isin(ids)
    where = [f"{s}, row {r}" for s, r in zip(targets.sample_sources[missing], targets.sample_rows[missing])]
    problems += [Problem(source, None, "id", f"no prediction for id {quoted(i)} (targets: {w}).")
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
    values, problems = solution_from_file(Path(path), targets, integer_labels=integer_labels, metric_name="accuracy")
    if problems:
        raise ValidationError(problems, header=f"The solution {path} was rejected")
    return values


def solution_from_array(values, source: str, targets: Targets, integer_labels: bool,
                        metric_name: str) -> tuple[np.ndarray, list[Problem]]:
    """(values, problems) of predictions given as an array, checked as :func:`read_solution` checks a text
    file (row = position + 1); the problems listed, not raised."""
    try:
        values = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        return np.array([]), [Problem(source, None, None, "the predictions must be numbers.")]
    data = ("\n".join(map(repr, values.tolist())) + "\n").encode() if values.size else b""
    return _solution_from_text(data, source, targets, integer_labels, metric_name)


def solution_from_file(path: Path, targets: Targets, *, integer_labels: bool,
                       metric_name: str, root=None) -> tuple[np.ndarray, list[Problem]]:
    """(values, problems) of one solution file, checked as by :func:`read_solution`; the problems listed, not
    raised, by row. ``root``: a file that resolves outside this folder is refused."""
    source = str(path)
    data, problems = _read_bytes(path, source, root)
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
                       lambda t: f"{quoted(t)} is not a yes/no value; use true/false, yes/no, 1/0 or leave it empty.",
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
                                       f"submitted_at, selected; found {shown_names(columns)}.")],
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
                            lambda t: f"{quoted(t)} is not a date-time; expected ISO 8601 such as "
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
                        lambda t: f"file {quoted(t)} is listed twice for the same team.", "repeated files")
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
            try:  # a dangling link has no target to stat: listed, then refused when read
                modified = item.stat().st_mtime
            except OSError:
                modified = item.lstat().st_mtime
            records.append({"team": entry.name, "submission": item.name, "file": str(item),
                            "submitted_at": pd.Timestamp(modified, unit="s", tz="UTC"),
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
    one_of("order", order, ORDERS)
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
            problems = [Problem(str(path), None, None, f"cannot be read as a CSV listing ({quoted(exc, 120)}); "
                                                       "expected columns team, file, submitted_at.")]
    if table is None:
        raise ValidationError(problems, header="The submission listing is not valid")
    return _listing_from_table(table, str(path), path.parent, order)


