"""Audit a published leaderboard: recompute it, compare, and check it against itself.

A published table (``method, score`` and optionally ``place``; a ``track``
column when it holds several tracks) is checked two ways:

- **against itself** (:func:`check_published`): places out of order with
  scores (a better place with a lower score), and duplicated places held by
  different scores. Equal scores sharing a place are a tie, not a problem;
- **against a recomputation** (:func:`audit`): side by side, the published and
  recomputed score and place of every method, the score differences beyond a
  tolerance, places that differ, and methods present on one side only.

Recomputed places are the places among the methods that both tables list
(:func:`srdash.judging.ranking.place_from_scores` on their recomputed scores), so that
a method on one side only does not shift the places of all the others; that
method is reported by itself.

Examples
--------
The SRBench 2022 synthetic track as first published, with uDSR at 5.67:

>>> import pandas as pd
>>> published = pd.DataFrame({"place": [1, 2, 3, 4], "method": ["QLattice", "pysr", "uDSR", "operon"],
...                           "score": [6.23, 5.26, 5.67, 4.38]})
>>> print(check_published(published)["detail"].iloc[0])
uDSR is placed 3 with score 5.67, above the score 5.26 of pysr placed 2.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

import numpy as np
import pandas as pd

from srdash.errors import Problem, SrdashError, ValidationError
from srdash.io.csvsafe import restore_text
from srdash.judging.ranking import Verdict, place_from_scores

__all__ = ["Audit", "audit", "load_published", "check_published", "STATUSES", "DEFAULT_TOLERANCE"]

#: Status of a method in :attr:`Audit.comparison`.
STATUSES = ("agrees", "score differs", "place differs", "score and place differ",
            "only in published", "only in recomputed")

#: Half a unit of the second decimal: the precision of the SRBench published tables.
DEFAULT_TOLERANCE = 0.005

_DATAFRAME = "<DataFrame>"
_EPSILON = 1e-9  # float slack on the tolerance: 4.675 - 4.67 must count as 0.005


@dataclass(frozen=True)
class Audit:
    """The audit of a published table.

    Attributes
    ----------
    comparison : DataFrame
        One row per method (recomputed order, then methods only published):
        ``method``, ``published_place``, ``published_score``,
        ``recomputed_place``, ``recomputed_score``, ``score_difference``
        (recomputed - published), ``flagged`` (bool) and ``status`` (one of
        :data:`STATUSES`).
    inconsistencies : DataFrame
        Problems of the published table by itself: ``kind`` ('place out of
        order', 'duplicated place'), ``method``, ``other`` (the method it
        conflicts with) and ``detail``.
    tolerance : float
    track : str or None
    source : str
        The published table's file (or ``"<DataFrame>"``).
    name_hints : Mapping of str to str
        For a method on one side only, a near-identical name on the other side
        (``'PySR'`` -> ``'pysr'``), which is probably the same method.
    """

    comparison: pd.DataFrame
    inconsistencies: pd.DataFrame
    tolerance: float
    track: str | None
    source: str
    name_hints: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def consistent(self) -> bool:
        """The published table passes its own consistency check."""
        return self.inconsistencies.empty

    @property
    def flagged(self) -> pd.DataFrame:
        """The rows of :attr:`comparison` that need attention."""
        return self.comparison[self.comparison["flagged"]].reset_index(drop=True)

    @property
    def passes(self) -> bool:
        """Consistent, and every method agrees within the tolerance."""
        return self.consistent and self.flagged.empty

    def summary(self) -> str:
        """A few sentences for a terminal or a report.

        Examples
        --------
        >>> import pandas as pd
        >>> board = pd.DataFrame({"method": ["a", "b"], "score": [2.0, 1.0]})
        >>> print(audit(board, board).summary())
        The published table is consistent with itself (places follow scores, no duplicated place).
        All 2 methods agree with the recomputation (tolerance 0.005).
        """
        where = f" (track {self.track})" if self.track else ""
        if self.consistent:
            lines = [f"The published table{where} is consistent with itself (places follow scores, "
                     "no duplicated place)."]
        else:
            lines = [f"The published table{where} has {len(self.inconsistencies)} internal inconsistency(ies):"]
            lines += [f"  - {kind}: {detail}" for kind, detail in
                      zip(self.inconsistencies["kind"], self.inconsistencies["detail"])]
        flagged = self.flagged
        if flagged.empty:
            lines.append(f"All {len(self.comparison)} methods agree with the recomputation "
                         f"(tolerance {self.tolerance:g}).")
        else:
            lines.append(f"{len(flagged)} of {len(self.comparison)} methods need attention "
                         f"(tolerance {self.tolerance:g}):")
            for _, row in flagged.iterrows():
                hint = self.name_hints.get(row["method"])
                lines.append(f"  - {row['method']}: {row['status']}{_describe(row)}"
                             + (f"; the other side has {hint!r}, perhaps the same method" if hint else ""))
        return "\n".join(lines)


def load_published(source, *, track: str | None = None) -> pd.DataFrame:
    """Read and validate a published leaderboard, reporting every problem at once.

    Parameters
    ----------
    source : str, path-like or DataFrame
        A CSV file (or DataFrame) with columns ``method`` and ``score``, and
        optionally ``place`` (whole numbers >= 1) and ``track``.
    track : str, optional
        The track to keep, required when the ``track`` column holds several.

    Returns
    -------
    DataFrame
        ``row`` (1-based data row of the source), ``method``, ``score`` and,
        when given, ``place``, ``track``.

    Raises
    ------
    ValidationError
        Missing columns (the message lists those present), empty method names,
        scores that are not numbers, places that are not whole numbers >= 1,
        a method listed twice.
    SrdashError
        Unreadable file; a track problem (several tracks and none chosen, an
        unknown track, a track asked of a table without a ``track`` column).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"track": ["x", "x", "y"], "method": ["a", "b", "a"], "score": [2, 1, 3]})
    >>> load_published(table, track="y")[["method", "score"]]
      method  score
    0      a    3.0
    >>> load_published(table)
    Traceback (most recent call last):
    ...
    srdash.errors.SrdashError: The published table <DataFrame> holds several tracks (x, y); choose one with track= (CLI: --track).
    """
    name, frame = _read(source)
    frame = frame.rename(columns=lambda c: str(c).strip())
    missing = [c for c in ("method", "score") if c not in frame.columns]
    if missing:
        present = ", ".join(map(str, frame.columns))
        raise ValidationError(
            [Problem(name, None, c, "the column is missing; a published table needs 'method' and 'score' "
                                    f"(optionally 'place', 'track'). Columns present: {present}.")
             for c in missing], header=f"The published table {name} is not valid")
    frame = frame.assign(row=np.arange(1, len(frame) + 1))
    if "track" in frame.columns:
        tracks = list(dict.fromkeys(frame["track"].astype(str).str.strip()))
        if track is None and len(tracks) > 1:
            raise SrdashError(f"The published table {name} holds several tracks ({', '.join(tracks)}); choose one "
                              "with track= (CLI: --track).")
        if track is not None and track not in tracks:
            raise SrdashError(f"The published table {name} has no track {track!r}. Tracks: {', '.join(tracks)}.")
        if track is not None:
            frame = frame[frame["track"].astype(str).str.strip() == track]
    elif track is not None:
        raise SrdashError(f"A track ({track!r}) was asked for, but the published table {name} has no 'track' column. "
                          f"Columns: {', '.join(map(str, frame.columns))}.")

    problems = []
    method = frame["method"].astype("string").str.strip()
    for row in frame["row"][method.isna() | (method == "")]:
        problems.append(Problem(name, int(row), "method", "the method name is empty."))
    score = pd.to_numeric(frame["score"], errors="coerce")
    for row, value in zip(frame["row"][score.isna()], frame["score"][score.isna()]):
        problems.append(Problem(name, int(row), "score", f"{value!r} is not a number; every method needs a score."))
    out = pd.DataFrame({"row": frame["row"].to_numpy(), "method": method.to_numpy(dtype=object),
                        "score": score.to_numpy(dtype=float)})
    if "place" in frame.columns:
        place = pd.to_numeric(frame["place"], errors="coerce")
        bad = place.isna() | (place < 1) | (place != np.floor(place))
        for row, value in zip(frame["row"][bad], frame["place"][bad]):
            problems.append(Problem(name, int(row), "place", f"{value!r} is not a whole number >= 1."))
        out["place"] = place.where(~bad).to_numpy()
    if "track" in frame.columns:
        out["track"] = frame["track"].astype(str).str.strip().to_numpy()
    named = out[out["method"].notna() & (out["method"] != "")]
    for method_name, rows in named.groupby("method", sort=True)["row"]:
        if len(rows) > 1:
            listed = ", ".join(str(r) for r in rows)
            problems.append(Problem(name, int(rows.iloc[1]), "method",
                                    f"{method_name!r} is listed more than once (rows {listed}); list each method once"
                                    + (" per track." if "track" in frame.columns else ".")))
    if problems:
        problems.sort(key=lambda p: (p.row or 0, p.column or ""))
        raise ValidationError(problems, header=f"The published table {name} is not valid")
    if "place" in out.columns:
        out["place"] = out["place"].astype(int)
    out.attrs["source"] = name
    return out.reset_index(drop=True)


def check_published(published: pd.DataFrame) -> pd.DataFrame:
    """Internal inconsistencies of a published leaderboard.

    Parameters
    ----------
    published : DataFrame
        Validated (see :func:`load_published`), or any table with ``method``,
        ``score`` and ``place``; without ``place`` there is nothing to check.

    Returns
    -------
    DataFrame
        ``kind``, ``method``, ``other``, ``detail``; one row per conflicting
        pair: *place out of order* when a method has a worse (larger) place
        than another but a strictly higher score, *duplicated place* when two
        methods share a place with different scores.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"method": ["a", "b", "c"], "score": [3.0, 2.0, 2.5], "place": [1, 2, 2]})
    >>> check_published(table)[["kind", "method", "other"]]
                   kind method other
    0  duplicated place      b     c
    """
    columns = ["kind", "method", "other", "detail"]
    if "place" not in published.columns or published.empty:
        return pd.DataFrame(columns=columns)
    table = published.sort_values(["place", "score"], ascending=[True, False], kind="stable")
    rows = []
    records = list(zip(table["method"], table["place"], table["score"]))
    for i, (a, place_a, score_a) in enumerate(records):
        for b, place_b, score_b in records[i + 1:]:
            if place_a == place_b and score_a != score_b:
                rows.append({"kind": "duplicated place", "method": b, "other": a,
                             "detail": f"{b} (score {score_b:g}) and {a} (score {score_a:g}) are both placed "
                                       f"{place_a} although their scores differ."})
            elif place_a < place_b and score_b > score_a:
                rows.append({"kind": "place out of order", "method": b, "other": a,
                             "detail": f"{b} is placed {place_b} with score {score_b:g}, above the score "
                                       f"{score_a:g} of {a} placed {place_a}."})
    return pd.DataFrame(rows, columns=columns)


def audit(recomputed, published, *, tolerance: float = DEFAULT_TOLERANCE, track: str | None = None) -> Audit:
    """Compare a recomputed leaderboard with a published one.

    Parameters
    ----------
    recomputed : Verdict or DataFrame
        A verdict, or a leaderboard with ``method`` and ``score``.
    published : str, path-like or DataFrame
        The published table; validated by :func:`load_published`.
    tolerance : float
        A score difference ``|recomputed - published|`` above this is flagged
        (>= 0; default :data:`DEFAULT_TOLERANCE`).
    track : str, optional
        See :func:`load_published`.

    Returns
    -------
    Audit

    Raises
    ------
    SrdashError, ValidationError
        An invalid tolerance or published table.

    Examples
    --------
    >>> import pandas as pd
    >>> mine = pd.DataFrame({"method": ["a", "b", "c"], "score": [3.0, 2.004, 1.5]})
    >>> theirs = pd.DataFrame({"method": ["a", "b", "d"], "score": [2.9, 2.0, 1.0], "place": [1, 2, 3]})
    >>> audit(mine, theirs).comparison[["method", "score_difference", "status"]]
      method  score_difference              status
    0      a             0.100       score differs
    1      b             0.004              agrees
    2      c               NaN  only in recomputed
    3      d               NaN   only in published
    """
    if not isinstance(tolerance, (int, float)) or isinstance(tolerance, bool) or not tolerance >= 0:
        raise SrdashError(f"The 'tolerance' option must be a number >= 0. Got {tolerance!r}.")
    table = load_published(published, track=track)
    source = table.attrs.get("source", _DATAFRAME)
    board = recomputed.leaderboard if isinstance(recomputed, Verdict) else recomputed
    missing = [c for c in ("method", "score") if c not in board.columns]
    if missing:
        raise SrdashError(f"The recomputed leaderboard needs the column(s) {', '.join(missing)}. "
                          f"Columns: {', '.join(map(str, board.columns))}.")
    board = board[["method", "score"]].assign(method=lambda f: f["method"].astype(str))
    common = board[board["method"].isin(set(table["method"]))]
    places = dict(zip(common["method"], place_from_scores(common["score"].to_numpy(dtype=float))))
    published_by_method = table.set_index("method")
    has_place = "place" in table.columns

    rows = []
    for method, score in zip(board["method"], board["score"]):
        row = {"method": method, "published_place": np.nan, "published_score": np.nan,
               "recomputed_place": places.get(method, np.nan), "recomputed_score": float(score)}
        if method in published_by_method.index:
            row["published_score"] = float(published_by_method.at[method, "score"])
            if has_place:
                row["published_place"] = float(published_by_method.at[method, "place"])
        rows.append(row)
    for method in table["method"]:
        if method not in set(board["method"]):
            rows.append({"method": method,
                         "published_place": float(published_by_method.at[method, "place"]) if has_place else np.nan,
                         "published_score": float(published_by_method.at[method, "score"]),
                         "recomputed_place": np.nan, "recomputed_score": np.nan})
    comparison = pd.DataFrame(rows, columns=["method", "published_place", "published_score",
                                             "recomputed_place", "recomputed_score"])
    comparison["score_difference"] = (comparison["recomputed_score"] - comparison["published_score"]).round(12)
    comparison["status"] = [_status(row, tolerance, has_place) for _, row in comparison.iterrows()]
    comparison["flagged"] = comparison["status"] != "agrees"
    for column in ("published_place", "recomputed_place"):
        comparison[column] = comparison[column].astype("Int64")
    comparison = comparison[["method", "published_place", "recomputed_place", "published_score",
                             "recomputed_score", "score_difference", "status", "flagged"]]
    return Audit(comparison=comparison, inconsistencies=check_published(table), tolerance=float(tolerance),
                 track=track, source=source,
                 name_hints=MappingProxyType(_name_hints(board["method"], table["method"])))


def _read(source) -> tuple[str, pd.DataFrame]:
    if isinstance(source, pd.DataFrame):
        return _DATAFRAME, source.copy()
    path = Path(source)
    if not path.is_file():
        raise SrdashError(f"The published table '{path}' does not exist or is not a file.")
    try:
        return str(path), pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=True,
                                      comment="#").map(restore_text)
    except (OSError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise SrdashError(f"Cannot read the published table '{path}' as CSV: {exc}") from exc


def _status(row, tolerance: float, has_place: bool) -> str:
    if np.isnan(row["published_score"]):
        return "only in recomputed"
    if np.isnan(row["recomputed_score"]):
        return "only in published"
    score_differs = abs(row["score_difference"]) > tolerance + _EPSILON
    place_differs = has_place and row["published_place"] != row["recomputed_place"]
    if score_differs and place_differs:
        return "score and place differ"
    if score_differs:
        return "score differs"
    if place_differs:
        return "place differs"
    return "agrees"


def _describe(row) -> str:
    parts = []
    if not pd.isna(row["published_score"]):
        parts.append(f"published {row['published_score']:g}" + (
            f" (place {row['published_place']})" if not pd.isna(row["published_place"]) else ""))
    if not pd.isna(row["recomputed_score"]):
        parts.append(f"recomputed {row['recomputed_score']:.4g}" + (
            f" (place {row['recomputed_place']})" if not pd.isna(row["recomputed_place"]) else ""))
    return f" ({', '.join(parts)})" if parts else ""


def _name_hints(recomputed: pd.Series, published: pd.Series) -> dict[str, str]:
    """Method only on one side -> a near-identical name on the other (e.g. 'PySR' vs 'pysr')."""
    left, right = set(recomputed), set(published)
    hints = {}
    for mine, theirs in ((left - right, right - left), (right - left, left - right)):
        lowered = {t.lower(): t for t in theirs}
        for name in mine:
            match = lowered.get(name.lower()) or next(iter(difflib.get_close_matches(name, list(theirs), n=1)), None)
            if match:
                hints[name] = match
    return hints
