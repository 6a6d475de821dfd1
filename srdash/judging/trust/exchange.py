"""CSV in and out of the trust store: trust entries and rubric scores, every row checked before any is
written, every problem reported at once with its row and column.

:class:`CsvExchange` holds the CSV methods of :class:`~srdash.judging.trust.TrustStore` (which inherits
them); the readers and the writer are plain functions.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import TYPE_CHECKING

from srdash.errors import Problem, RulesError, ValidationError
from srdash.io.csvsafe import restore_text, write_csv
from srdash.io.private import open_private
from srdash.judging.trust.entry import TrustStoreError, check_value, utc_now
from srdash.judging.trust.settings import TRUST_KINDS

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["CsvExchange", "export_table", "read_trust_csv", "read_scores_csv"]

# CSV import: canonical column -> accepted names (the canonical name first).
_CSV_ALIASES = {
    "judge": ("judge", "expert", "reviewer"),
    "dataset": ("dataset", "task"),
    "method": ("method", "algorithm"),
    "kind": ("kind",),
    "value": ("value", "expert_score", "rating", "rank", "trust"),
    "comment": ("comment", "comments", "note"),
}
_KIND_OF_VALUE_COLUMN = {"expert_score": "rating", "rating": "rating", "rank": "rank"}


class CsvExchange:
    """The CSV methods of :class:`~srdash.judging.trust.TrustStore`.

    A mixin: it writes through the store's transaction (``_transaction``) and its checked writers
    (``_write``, ``_write_score``), and reads :meth:`entries` and :meth:`jury_scores`.
    """

    # -- CSV

    def export_csv(self, path: str | Path) -> int:
        """Write the current entries to a CSV file (private to its owner); returns the number of rows.

        Columns: judge, dataset, method, kind, value, comment, updated_at.
        """
        return export_table(self.entries(), path)

    def export_scores_csv(self, path: str | Path) -> int:
        """Write the current rubric scores to a CSV file (columns judge, dataset, method, criterion,
        score, updated_at); returns the number of rows. :meth:`import_scores_csv` reads it back."""
        return export_table(self.jury_scores(), path)

    def import_csv(self, path: str | Path, *, judge: str | None = None, kind: str | None = None) -> int:
        """Read trust entries from a CSV file into the store, in one transaction.

        The file has columns ``dataset`` (or ``task``), ``method`` and ``value``
        (or ``expert_score``, ``rating``, ``rank``), and optionally ``judge``,
        ``kind`` and ``comment``. Every row is checked before anything is
        written; every problem is reported at once.

        Parameters
        ----------
        path : path-like
        judge : str, optional
            The judge of every row, when the file has no ``judge`` column.
        kind : {'rank', 'rating'}, optional
            The kind of every row, when the file has no ``kind`` column and its
            value column's name does not say (``expert_score`` and ``rating``
            are ratings, ``rank`` is a rank).

        Returns
        -------
        int
            The number of entries written.

        Raises
        ------
        ValidationError
            Listing every problem with its row and column.
        TrustStoreError
            When the file cannot be read, or the review is closed.
        """
        rows = read_trust_csv(Path(path), judge=judge, kind=kind)
        source = f"import:{Path(path).name}"
        with self._transaction() as cursor:
            for row in rows:
                self._write(cursor, row["judge"], row["dataset"], row["method"], row["kind"], row["value"],
                            row["comment"], source)
            cursor.execute("INSERT INTO events (at, judge, action, detail) VALUES (?, ?, 'import', ?)",
                           (utc_now(), ", ".join(sorted({r["judge"] for r in rows})) or "-",
                            f"{len(rows)} entries from {path}"))
        return len(rows)

    def import_scores_csv(self, path: str | Path, rubric, *, judge: str | None = None) -> int:
        """Read rubric scores from a CSV file into the store, in one transaction (all rows or none).

        The file has columns ``dataset``, ``method``, ``criterion`` and
        ``score``, and ``judge`` unless ``judge`` is given. Every row is
        checked first (names, the criterion, a finite score on the rubric's
        scale); every problem is reported at once with its row.

        Returns
        -------
        int
            The number of scores written.

        Raises
        ------
        ValidationError
            Listing every problem with its row and column.
        TrustStoreError
            When the file cannot be read, or the review is closed.
        """
        rows = read_scores_csv(path, rubric, judge=judge)
        path = Path(path)
        with self._transaction() as cursor:
            for row in rows:
                self._write_score(cursor, row["judge"], row["dataset"], row["method"], row["criterion"],
                                  row["score"], f"import:{path.name}")
            cursor.execute("INSERT INTO events (at, judge, action, detail) VALUES (?, ?, 'import-scores', ?)",
                           (utc_now(), ", ".join(sorted({r["judge"] for r in rows})) or "-",
                            f"{len(rows)} scores from {path}"))
        return len(rows)


def export_table(table: pd.DataFrame, path: str | Path) -> int:
    """Write ``table`` to a CSV file readable by its owner only (mode 0600); returns its number of rows."""
    try:
        with open_private(path, "w", newline="", encoding="utf-8") as handle:  # mode 0600: judges' ranks
            write_csv(table, handle, index=False)
    except OSError as exc:
        raise TrustStoreError(f"Cannot write '{path}': {exc}.") from exc
    return len(table)


def read_trust_csv(path: Path, *, judge: str | None, kind: str | None) -> list[dict]:
    """The checked rows of a trust file (see :meth:`CsvExchange.import_csv`).

    Raises
    ------
    ValidationError
        Listing every problem with its row and column.
    TrustStoreError
        When the file cannot be read, or ``kind`` is unknown.
    """
    if kind is not None and kind not in TRUST_KINDS:
        raise TrustStoreError(f"The 'kind' option must be one of 'rank', 'rating'. Got {kind!r}.")
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            header = [h.strip() for h in (reader.fieldnames or [])]
            raw_rows = [{k.strip() if k else k: restore_text(v) for k, v in row.items()} for row in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise TrustStoreError(f"Cannot read the trust file '{path}': {exc}.") from exc
    source = str(path)
    columns: dict[str, str] = {}
    problems = []
    for canonical, names in _CSV_ALIASES.items():
        present = [n for n in names if n in header]
        if len(present) > 1:
            problems.append(Problem(source, None, None, f"columns {', '.join(map(repr, present))} all mean "
                                    f"'{canonical}'; keep one."))
        if present:
            columns[canonical] = present[0]
    for canonical in ("dataset", "method", "value"):
        if canonical not in columns:
            names = [repr(n) for n in _CSV_ALIASES[canonical]]
            listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
            problems.append(Problem(source, None, None, f"no {listed} column. Columns: {', '.join(header)}."))
    if "judge" not in columns and judge is None:
        problems.append(Problem(source, None, None, "no 'judge' column; give the judge's name (--judge NAME)."))
    fixed_kind = kind if "kind" not in columns else None
    if "kind" not in columns and fixed_kind is None:
        fixed_kind = _KIND_OF_VALUE_COLUMN.get(columns.get("value", ""))
        if fixed_kind is None and "value" in columns:
            problems.append(Problem(source, None, None, "no 'kind' column, and the value column "
                                    f"'{columns['value']}' does not say whether it holds ranks or ratings; "
                                    "give --kind rank or --kind rating."))
    if problems:
        raise ValidationError(problems, header=f"The trust file {path} is not valid")
    rows, seen = [], {}
    for number, raw in enumerate(raw_rows, start=1):
        row = {
            "judge": (raw.get(columns["judge"]) or "").strip() if "judge" in columns else judge,
            "dataset": (raw.get(columns["dataset"]) or "").strip(),
            "method": (raw.get(columns["method"]) or "").strip(),
            "kind": (raw.get(columns["kind"]) or "").strip() if "kind" in columns else fixed_kind,
            "comment": raw.get(columns["comment"]) or "" if "comment" in columns else "",
        }
        for canonical in ("judge", "dataset", "method"):
            if not row[canonical]:
                problems.append(Problem(source, number, columns.get(canonical), f"the {canonical} is empty."))
        if row["kind"] not in TRUST_KINDS:
            problems.append(Problem(source, number, columns.get("kind"),
                                    f"{row['kind']!r} is not a kind; expected 'rank' or 'rating'."))
        text = (raw.get(columns["value"]) or "").strip()
        try:
            row["value"] = check_value(row["kind"], float(text)) if text else None
        except ValueError:
            problems.append(Problem(source, number, columns["value"], f"{text!r} is not a number."))
        except TrustStoreError as exc:
            problems.append(Problem(source, number, columns["value"], str(exc)))
        key = (row["judge"], row["dataset"], row["method"])
        if key in seen:
            problems.append(Problem(source, number, None, f"{row['judge']} / {row['dataset']} / {row['method']} "
                                    f"was already given in row {seen[key]}; give one row per model."))
        seen.setdefault(key, number)
        rows.append(row)
    if problems:
        raise ValidationError(problems, header=f"The trust file {path} is not valid")
    return rows


def read_scores_csv(path: str | Path, rubric, *, judge: str | None = None) -> list[dict]:
    """The checked rows of a rubric scores file (see :meth:`CsvExchange.import_scores_csv`).

    Raises
    ------
    ValidationError
        Listing every problem with its row and column.
    TrustStoreError
        When the file cannot be read.
    """
    path = Path(path)
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            header = [h.strip() for h in (reader.fieldnames or [])]
            raw_rows = [{(k or "").strip(): restore_text((v or "").strip())
                         for k, v in row.items() if k is not None}
                        for row in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise TrustStoreError(f"Cannot read the scores file '{path}': {exc}.") from exc
    source = str(path)
    needed = ["dataset", "method", "criterion", "score"] + ([] if judge else ["judge"])
    missing = [c for c in needed if c not in header]
    if missing:
        hint = " (or give --judge NAME)" if "judge" in missing else ""
        raise ValidationError([Problem(source, None, None, f"no {', '.join(map(repr, missing))} column{hint}. "
                                       f"Columns: {', '.join(header)}.")],
                              header=f"The scores file {path} is not valid")
    problems, rows, seen = [], [], {}
    for number, raw in enumerate(raw_rows, start=1):
        row = {"judge": judge or raw.get("judge", ""), **{c: raw.get(c, "") for c in ("dataset", "method",
                                                                                 "criterion")}}
        for column in ("judge", "dataset", "method", "criterion"):
            if not row[column]:
                problems.append(Problem(source, number, column, f"the {column} is empty."))
        text = raw.get("score", "")
        try:
            row["score"] = rubric.check_score(row["criterion"], text) if text else None
        except RulesError as exc:
            problems.append(Problem(source, number, "score" if "score of" in str(exc) else "criterion",
                                    str(exc)))
        key = (row["judge"], row["dataset"], row["method"], row["criterion"])
        if key in seen:
            problems.append(Problem(source, number, None, f"{' / '.join(key)} was already given in row "
                                    f"{seen[key]}; give one row per score."))
        seen.setdefault(key, number)
        rows.append(row)
    if problems:
        raise ValidationError(problems, header=f"The scores file {path} is not valid")
    return rows
