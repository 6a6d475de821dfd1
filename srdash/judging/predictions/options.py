"""The options that name a prediction competition (the predictions app's ``SRDASH_PREDICTIONS``, the
CLI), and scoring from them (:func:`score_from_options`)."""

from __future__ import annotations

from typing import Callable, Mapping

from srdash.errors import SrdashError
from srdash.io.predictions import read_targets, read_targets_csv
from srdash.judging.predictions.result import PredictionResult
from srdash.judging.predictions.scoring import score_submissions

__all__ = ["OPTION_KEYS", "score_from_options"]

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
