"""Prediction-file competitions: score files of predictions against hidden targets.

The files are read by :mod:`srdash.io.predictions`, the metrics are in
:mod:`srdash.judging.metrics` and the shake-up figure is
:func:`srdash.figures.predictions.shakeup_figure`; this package scores:
:mod:`~srdash.judging.predictions.scoring` (the submissions, the rule of which counts),
:mod:`~srdash.judging.predictions.leaderboards` (places and the shake-up),
:mod:`~srdash.judging.predictions.result` (the result, the combined leaderboards, the per-run table),
:mod:`~srdash.judging.predictions.combined` (several metrics combined by the ranking engine) and
:mod:`~srdash.judging.predictions.options` (the options of the app and the CLI). Every name is
importable from here.

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
>>> import pandas as pd
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

# The readers are srdash.io.predictions'; they stay importable from here, as before the split.
from srdash.io.predictions import ORDERS, SUBSETS, Targets, list_submissions, read_targets, read_targets_csv
from srdash.judging.predictions.combined import check_combine_rules, combine_metrics, metric_rules
from srdash.judging.predictions.options import OPTION_KEYS, score_from_options
from srdash.judging.predictions.result import CombinedLeaderboards, PredictionResult, to_runs_table
from srdash.judging.predictions.scoring import RULES, score_submissions

__all__ = [
    "RULES",
    "PredictionResult",
    "CombinedLeaderboards",
    "score_submissions",
    "metric_rules",
    "combine_metrics",
    "check_combine_rules",
    "to_runs_table",
    "OPTION_KEYS",
    "score_from_options",
]
