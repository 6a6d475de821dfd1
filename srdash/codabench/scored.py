"""What the scoring program computes for one submission, whatever the competition's kind.

The reference data's ``srdash.json`` (written by the bundle) says the kind (``results`` or
``predictions``), the leaderboard's columns and what is needed to score.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from srdash.codabench.columns import OK_COLUMN, Column, finite_score
from srdash.errors import SrdashError

__all__ = ["REFERENCE_FILE", "SUBMISSION_FILE", "ScoredSubmission", "failed_scores", "problem", "read_reference"]

#: The reference data's description, written by the bundle.
REFERENCE_FILE = "srdash.json"
#: The one file a results competition's submission holds.
SUBMISSION_FILE = "results.csv"


@dataclass(frozen=True)
class ScoredSubmission:
    """Scores per column key (all of them, finite), per-dataset (or per-metric) rows, problems, the method.

    ``results`` names the validated copy of the submission to leave in the output (file name -> bytes)."""

    scores: dict
    rows: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    method: str = ""
    results: dict = field(default_factory=dict)


def problem(kind: str, detail: str, *, dataset: str = "", run: str = "") -> dict:
    """One problem as the detailed results list it."""
    return {"kind": kind, "dataset": dataset, "run": run, "detail": detail}


def read_reference(ref: str | Path) -> dict:
    """The reference data's ``srdash.json``, its columns as :class:`Column`."""
    path = Path(ref) / REFERENCE_FILE
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
        spec["columns"] = [Column(**c) for c in spec["columns"]]
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise SrdashError(f"The reference data has no readable {REFERENCE_FILE} ({exc}): the bundle is broken; "
                          "tell the organiser.") from exc
    return spec


def failed_scores(columns: Sequence[Column]) -> dict:
    """Every column failed: nothing scored (:data:`OK_COLUMN` 0, the others their worst value)."""
    return {c.key: (0.0 if c.key == OK_COLUMN else finite_score(math.nan, higher_is_better=c.higher_is_better))
            for c in columns}
