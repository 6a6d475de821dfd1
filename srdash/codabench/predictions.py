"""Prediction-file competitions on Codabench: their bundle and their scoring.

A submission is one predictions file (one line per test sample, srdash's prediction format,
:mod:`srdash.io.predictions`). The development phase scores the preliminary samples, the final phase
the final ones (:func:`srdash.judging.predictions.score_submissions`); the leaderboard has one column
per metric. Each phase's reference data holds both target files (srdash reads them together, which
checks that every sample has a target in exactly one) and says which subset it scores.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
from dataclasses import asdict
from pathlib import Path
from typing import Sequence

from srdash._version import __version__
from srdash.codabench.bundle import Phase, assemble_bundle
from srdash.codabench.columns import FAILED_VALUE, Column, finite_score
from srdash.codabench.scored import REFERENCE_FILE, ScoredSubmission, failed_scores, problem
from srdash.errors import SrdashError

__all__ = ["PREDICTIONS_FILE", "metric_columns", "score_prediction_submission", "write_prediction_bundle"]

#: The one file a prediction competition's submission holds.
PREDICTIONS_FILE = "predictions.txt"
_TARGETS = {"preliminary": "targets_preliminary.txt", "final": "targets_final.txt"}


def metric_columns(metrics: Sequence[str]) -> tuple[Column, ...]:
    """One column per metric, sorted as the metric's direction says.

    Examples
    --------
    >>> [(c.key, c.sorting) for c in metric_columns(["rmse", "r2"])]
    [('rmse', 'asc'), ('r2', 'desc')]
    """
    from srdash.judging.metrics import get_metric  # lazy: numpy

    columns = []
    for name in metrics:
        metric = get_metric(name)
        columns.append(Column(metric.short_name, metric.label[:36], "desc" if metric.direction == "higher"
                              else "asc", criterion=metric.short_name))
    return tuple(columns)


def write_prediction_bundle(path: str | Path, *, targets_preliminary: str | Path, targets_final: str | Path,
                            metrics: Sequence[str], sample: str | Path, title: str = "A prediction competition",
                            start: _dt.date | None = None, development_days: int = 30, final_days: int = 7,
                            image: str | None = None, execution_time_limit: int = 600) -> Path:
    """Write a Codabench v2 bundle for a prediction-file competition.

    Parameters
    ----------
    path : path
        The zip to write.
    targets_preliminary, targets_final : path, keyword-only
        The two target files (as ``srdash predictions score``).
    metrics : sequence of str, keyword-only
        The metrics, one leaderboard column each (the first ranks ``srdash predictions score``).
    sample : path, keyword-only
        A valid predictions file: the sample submission (checked against the targets here).
    title : str, keyword-only
    start, development_days, final_days, image, execution_time_limit : keyword-only
        As in :func:`srdash.codabench.bundle.write_bundle`.

    Returns
    -------
    Path
    """
    from srdash.io.predictions import read_solution, read_targets  # lazy: numpy, pandas
    from srdash.judging.metrics import get_metric  # lazy: numpy

    if not metrics:
        raise SrdashError("The 'metrics' option must name at least one metric. Got none.")
    targets = read_targets(targets_preliminary, targets_final)
    read_solution(sample, targets)  # a sample that srdash refuses would mislead every participant
    columns = metric_columns(metrics)
    base = {"kind": "predictions", "title": title, "srdash_version": __version__, "metrics": list(metrics),
            "columns": [asdict(c) for c in columns], "targets": _TARGETS}
    files = {_TARGETS["preliminary"]: Path(targets_preliminary).read_bytes(),
             _TARGETS["final"]: Path(targets_final).read_bytes()}

    def reference(subset: str) -> dict:
        spec = {**base, "subset": subset}
        return {**files, REFERENCE_FILE: json.dumps(spec, indent=1, sort_keys=True).encode("utf-8")}

    labels = "\n".join(f"- **{c.key}** ({get_metric(c.key).label}): {'higher' if c.higher_is_better else 'lower'} "
                       "is better." for c in columns)
    verdict = ("The competition's verdict (the final leaderboard, the metrics combined by ranks across teams, the "
               "shake-up) is computed by srdash from every scored submission and published by the organiser.")
    pages = {
        "overview.md": f"# {title}\n\nPredict the target of every test sample.\n\n{verdict}\n",
        "evaluation.md": (f"# Evaluation\n\nMetrics (srdash {__version__}):\n\n{labels}\n\nThe development phase "
                          "scores a preliminary share of the test samples, the final phase the others. A file that "
                          f"srdash refuses scores the worst value on every metric (shown as {FAILED_VALUE:.0e} or "
                          f"-{FAILED_VALUE:.0e}) and says why in the detailed results.\n\n{verdict}\n\n"
                          "The scoring program runs srdash itself: the organiser's image must have it installed "
                          f"(`pip install srdash=={__version__}`).\n"),
        "data.md": (f"# Submission\n\nA zip holding `{PREDICTIONS_FILE}`: one line per test sample, in order, "
                    f"{targets.n_samples} lines, a number on each.\n"),
        "terms.md": f"# Terms\n\nYour team name and scores are published with the verdict of {title}.\n",
    }
    phases = [Phase("Development", "Scored on the preliminary samples.", "Preliminary samples.",
                    reference("preliminary")),
              Phase("Final", "Scored on the final samples.", "Final samples.", reference("final"))]
    return assemble_bundle(path, title=title, description="A prediction-file competition judged by srdash.",
                           columns=columns, pages=pages, phases=phases, public={},
                           sample=(PREDICTIONS_FILE, Path(sample).read_bytes(), "a valid predictions file"),
                           image=image, start=start, development_days=development_days, final_days=final_days,
                           execution_time_limit=execution_time_limit)


def score_prediction_submission(ref: Path, res: Path, spec: dict) -> ScoredSubmission:
    """Score ``res/predictions.txt`` on the phase's subset with every metric (the scoring program's step)."""
    import pandas as pd

    from srdash.io.predictions import read_targets  # lazy: numpy, pandas
    from srdash.judging.predictions import score_submissions  # lazy: numpy, pandas

    columns, subset = spec["columns"], spec["subset"]
    scores = failed_scores(columns)
    path = res / PREDICTIONS_FILE
    if not path.is_file():
        present = sorted(p.name for p in res.iterdir())[:20] if res.is_dir() else []
        return ScoredSubmission(scores, problems=[problem(
            "file", f"The submission must hold a file named {PREDICTIONS_FILE!r} at its root. Got {present}.")])
    try:
        targets = read_targets(ref / spec["targets"]["preliminary"], ref / spec["targets"]["final"])
        metrics = spec["metrics"]
        result = score_submissions(pd.DataFrame({"team": ["submission"], "file": [str(path)]}), targets,
                                   metric=metrics[0], extra_metrics=metrics[1:], rule="last")
    except SrdashError as exc:
        return ScoredSubmission(scores, problems=[problem("file", str(exc))])
    row = result.submissions.iloc[0]
    problems = [problem("rejected", str(p)) for p in result.problems]
    values = {c.key: float(row[f"{c.key}_{subset}"]) if row["status"] == "ok" else math.nan for c in columns}
    for c in columns:
        scores[c.key] = finite_score(values[c.key], higher_is_better=c.higher_is_better)
    failed = row["status"] != "ok" or any(not math.isfinite(v) for v in values.values())
    rows = [{"dataset": f"{subset} samples", "status": "failed" if failed else "ok", "runs": 1, **values}]
    return ScoredSubmission(scores, rows=rows, problems=problems, method="(this submission)",
                            results={} if failed else {PREDICTIONS_FILE: path.read_bytes()})
