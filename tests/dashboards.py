"""Dashboards of small tables for the in-process tests: the table written as a results file, the competition
built with the CLI's own function (competition_from_options), the dashboard given that competition only."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from srdash.apps import Dashboard
from srdash.judging.competition import competition_from_options

#: Columns that prepare_competition derives itself: a prepared table written back as results drops them.
DERIVED = ("simplicity", "status", "reason")

#: Three methods on two datasets, one run each, sizes given (nothing to simplify: no worker process); c is last on
#: both datasets' accuracy, a first on both.
THREE_METHODS_TWO_DATASETS = pd.DataFrame({
    "method": ["a", "b", "c"] * 2, "dataset": ["d1"] * 3 + ["d2"] * 3, "run": 0,
    "r2_test": [0.9, 0.8, 0.7, 0.95, 0.6, 0.5], "components": [3.0, 9, 5, 30, 7, 7], "property": 0.5})


def competition_of(table: pd.DataFrame, folder: Path, **options):
    """The competition of ``table`` (written to ``folder/results.csv``) under ``options`` (the CLI's).

    Its cache is ``folder/cache.sqlite``: a module's tests that share a folder prepare the table once and
    open every later dashboard from its snapshot, at once (a model that needs a worker process to measure
    costs seconds on a busy machine).
    """
    path = Path(folder) / "results.csv"
    table.drop(columns=[c for c in DERIVED if c in table.columns]).to_csv(path, index=False)
    options.setdefault("jobs", 1)
    options.setdefault("cache", str(Path(folder) / "cache.sqlite"))
    return competition_from_options(path, **options)


def dashboard_of(table: pd.DataFrame, folder: Path, **options) -> Dashboard:
    """The dashboard of ``table``'s competition, prepared (waited for)."""
    app = Dashboard(competition_of(table, folder, **options))
    assert app.wait(120), "the dashboard's preparation did not finish"
    return app
