"""Tests of srdash.judging.predictions (prediction-file competitions) and `srdash predictions score`."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.errors import SrdashError, ValidationError
from srdash.judging.metrics import METRICS, UndefinedMetricWarning, accuracy_score, get_metric, mean_absolute_error, r2_score, root_mean_squared_error
from srdash.judging.predictions import PredictionResult, score_submissions, to_runs_table
from srdash.io.predictions import Targets, list_submissions, read_solution, read_targets, read_targets_csv
from srdash.figures.predictions import shakeup_figure

DATA = Path(__file__).parent / "data" / "predictions"
REGRESSION = DATA / "regression"
CLASSIFICATION = DATA / "classification"
REALDATA = Path(__file__).parents[1] / "../shared/realdata"


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def regression_targets() -> Targets:
    return read_targets(REGRESSION / "targets_preliminary.txt", REGRESSION / "targets_final.txt")


@pytest.fixture
def six_targets() -> Targets:
    # Six samples, alternately preliminary and final, ids "1".."6".
    return Targets.from_arrays([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], ["preliminary", "final"] * 3)


# =========================================================================== metrics

# Hand-derived values: y_true = (1, 3, 5), y_pred = (1, 3, 8): errors (0, 0, 3).
#   MAE = 3/3 = 1;  RMSE = sqrt(9/3) = sqrt(3);  R2 = 1 - 9 / ((1-3)^2 + 0 + (5-3)^2) = 1 - 9/8 = -0.125.
# Accuracy: labels (0, 1, 2, 2) vs (0, 2, 2, 2): 3 of 4 correct = 0.75.
@pytest.mark.parametrize("function, y_true, y_pred, expected", [
    (mean_absolute_error, [1, 3, 5], [1, 3, 8], 1.0),
    (root_mean_squared_error, [1, 3, 5], [1, 3, 8], math.sqrt(3)),
    (r2_score, [1, 3, 5], [1, 3, 8], -0.125),
    (accuracy_score, [0, 1, 2, 2], [0, 2, 2, 2], 0.75),
])
def test_metric_golden_values(function, y_true, y_pred, expected):
    assert function(y_true, y_pred) == pytest.approx(expected, rel=1e-15)


def test_metric_registry_names_say_the_direction():
    assert {m.short_name for m in METRICS.values()} == {"accuracy", "r2", "rmse", "mae"}
    for metric in METRICS.values():
        assert metric.name.endswith("_score") == (metric.direction == "higher")
        assert metric.name.endswith("_error") == (metric.direction == "lower")
        assert get_metric(metric.short_name) is metric is get_metric(metric.name)


def _random_pair(metric, seed=0, n=50):
    rng = np.random.default_rng(seed)
    if metric.integer_labels:
        return rng.integers(0, 3, n).astype(float), rng.integers(0, 3, n).astype(float)
    y = rng.normal(size=n)
    return y, y + rng.normal(scale=0.5, size=n)


@pytest.mark.parametrize("metric", list(METRICS.values()), ids=list(METRICS))
def test_metric_agrees_with_scikit_learn(metric):
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    y_true, y_pred = _random_pair(metric)
    expected = getattr(sklearn_metrics, metric.name)(y_true, y_pred)
    assert metric.function(y_true, y_pred) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("metric", list(METRICS.values()), ids=list(METRICS))
def test_metric_ignores_the_order_of_samples(metric):
    y_true, y_pred = _random_pair(metric, seed=1)
    order = np.random.default_rng(2).permutation(y_true.size)
    assert metric.function(y_true[order], y_pred[order]) == pytest.approx(metric.function(y_true, y_pred),
                                                                          rel=1e-12)


@pytest.mark.parametrize("metric", list(METRICS.values()), ids=list(METRICS))
def test_metric_perfect_predictions_get_the_best_value(metric):
    y_true, y_pred = _random_pair(metric, seed=3)
    best = {"accuracy_score": 1.0, "r2_score": 1.0, "root_mean_squared_error": 0.0, "mean_absolute_error": 0.0}
    assert metric.function(y_true, y_true) == best[metric.name]
    # ...and imperfect ones a worse value, in the metric's own direction.
    worse = metric.function(y_true, y_pred)
    assert (worse < best[metric.name]) if metric.direction == "higher" else (worse > best[metric.name])


@pytest.mark.parametrize("y_true, y_pred, message", [
    ([1.0, 2.0], [1.0], r"y_pred: has 1 values but y_true has 2"),
    ([], [], r"y_true: must be a non-empty 1-D array"),
    ([1.0, np.nan], [1.0, 2.0], r"y_true: must be finite \(no NaN or infinite values\)"),
    ([1.0, 2.0], [1.0, np.inf], r"y_pred: must be finite"),
    ([1.0, 2.0], ["a", "b"], r"y_pred: must be numbers"),
])
def test_metric_input_errors(y_true, y_pred, message):
    with pytest.raises(ValidationError, match=r"Cannot compute root_mean_squared_error[\s\S]*" + message):
        root_mean_squared_error(y_true, y_pred)


def test_accuracy_needs_integer_labels():
    with pytest.raises(ValidationError, match=r"y_pred: class labels must be integers for accuracy"):
        accuracy_score([0, 1], [0, 0.5])
    assert accuracy_score([0, 1], [0.0, 1.0]) == 1.0  # 1.0 is the label 1


def test_r2_of_constant_targets_is_nan_with_a_warning():
    with pytest.warns(UndefinedMetricWarning, match="R2 is undefined when all targets are equal"):
        assert math.isnan(r2_score([2.0, 2.0], [1.0, 2.0]))


def test_unknown_metric_lists_the_choices():
    with pytest.raises(SrdashError, match=r"The 'metric' option must be one of 'accuracy', 'r2', 'rmse', 'mae', "
                                          r".*'mean_absolute_error'. Got 'mse'."):
        get_metric("mse")


# =========================================================================== golden: regression
#
# tests/data/predictions/regression: targets 1..6 on lines 1..6; preliminary = lines 1, 3, 5
# (targets 1, 3, 5; mean 3, SStot = 4 + 0 + 4 = 8), final = lines 2, 4, 6 (targets 2, 4, 6; SStot = 8).
#
# submission        predictions      prelim errors  rmse   mae  r2              final errors  rmse mae r2
# alpha/first.txt   1 3 3 5 5 7      0 0 0          0      0    1               1 1 1         1    1   1-3/8=.625
# alpha/second.txt  1 2 3 4 8 6      0 0 3          √3     1    1-9/8=-.125     0 0 0         0    0   1
# beta/b1.txt       2 2 4 4 6 6      1 1 1          1      1    .625            0 0 0         0    0   1
# beta/b2.txt       line 2 'abc'     rejected
# gamma/g1.csv      2 3 2 3 6 7      1 -1 1         1      1    .625            1 -1 1        1    1   .625
#   (a CSV with ids in the order 3 1 2 6 5 4; the ids of text targets are the line numbers)
# delta/d1.txt      5 lines          rejected (line 6 missing)
#
# Order within a team is by submitted_at (submissions.csv): alpha first < second, beta b1 < b2.
GOLDEN_SCORES = {
    # (team, submission): {column: value}
    ("alpha", "alpha/first.txt"): dict(rmse_preliminary=0.0, mae_preliminary=0.0, r2_preliminary=1.0,
                                       rmse_final=1.0, mae_final=1.0, r2_final=0.625),
    ("alpha", "alpha/second.txt"): dict(rmse_preliminary=math.sqrt(3), mae_preliminary=1.0, r2_preliminary=-0.125,
                                        rmse_final=0.0, mae_final=0.0, r2_final=1.0),
    ("beta", "beta/b1.txt"): dict(rmse_preliminary=1.0, mae_preliminary=1.0, r2_preliminary=0.625,
                                  rmse_final=0.0, mae_final=0.0, r2_final=1.0),
    ("gamma", "gamma/g1.csv"): dict(rmse_preliminary=1.0, mae_preliminary=1.0, r2_preliminary=0.625,
                                    rmse_final=1.0, mae_final=1.0, r2_final=0.625),
}


def _golden(targets, **options) -> PredictionResult:
    options.setdefault("metric", "rmse")
    return score_submissions(REGRESSION / "submissions.csv", targets, **options)


def test_golden_regression_per_submission_scores(regression_targets):
    result = _golden(regression_targets, extra_metrics=["mae", "r2"])
    table = result.submissions.set_index(["team", "submission"])
    assert list(table.index) == [("alpha", "alpha/first.txt"), ("alpha", "alpha/second.txt"),
                                 ("beta", "beta/b1.txt"), ("beta", "beta/b2.txt"),
                                 ("delta", "delta/d1.txt"), ("gamma", "gamma/g1.csv")]
    assert table["submission_index"].tolist() == [1, 2, 1, 2, 1, 1]
    for key, expected in GOLDEN_SCORES.items():
        assert table.loc[key, "status"] == "ok"
        for column, value in expected.items():
            assert table.loc[key, column] == pytest.approx(value, rel=1e-15, abs=1e-15), (key, column)
    # A rejected submission is listed with its reason and has no scores; the others were scored.
    assert table.loc[("beta", "beta/b2.txt"), "status"] == "rejected"
    assert table.loc[("beta", "beta/b2.txt"), "reason"] == \
        "row 2: 'abc' is not a number; expected one prediction (a number)."
    assert table.loc[("delta", "delta/d1.txt"), "reason"] == \
        "row 6: the solution has 5 lines but the test files have 6 (one line per test sample); line 6 is missing."
    assert table.loc[("beta", "beta/b2.txt"), ["rmse_preliminary", "rmse_final"]].isna().all()
    assert [str(p.source).endswith(name) for p, name in zip(result.problems, ["b2.txt", "d1.txt"])] == [True, True]


def _board(board: pd.DataFrame) -> list[tuple]:
    return [(row.place, row.team, None if pd.isna(row.score) else round(row.score, 12))
            for row in board.itertuples()]


def _shake(result: PredictionResult) -> dict:
    return {row.team: (row.preliminary_place, row.final_place, row.change) for row in result.shakeup.itertuples()}


def test_golden_regression_rule_last_with_ties(regression_targets):
    # Last valid submission per team: alpha/second, beta/b1 (b2 is rejected), gamma/g1, delta none.
    # Preliminary rmse: beta 1, gamma 1 (tie: both place 1), alpha √3 (place 3 - place 2 is skipped),
    # delta no valid submission (last place, 4). Final rmse: alpha 0, beta 0 (tie, 1), gamma 1 (3), delta 4.
    # Shake-up (change = preliminary - final place): alpha 3->1 (+2), beta 1->1 (0), gamma 1->3 (-2), delta 0.
    result = _golden(regression_targets, rule="last")
    assert _board(result.preliminary_leaderboard) == [(1, "beta", 1.0), (1, "gamma", 1.0),
                                                      (3, "alpha", round(math.sqrt(3), 12)), (4, "delta", None)]
    assert _board(result.final_leaderboard) == [(1, "alpha", 0.0), (1, "beta", 0.0), (3, "gamma", 1.0),
                                                (4, "delta", None)]
    assert result.final_leaderboard["submission"].tolist()[:3] == ["alpha/second.txt", "beta/b1.txt", "gamma/g1.csv"]
    assert pd.isna(result.final_leaderboard["submission"].iloc[3])
    assert result.final_leaderboard["entries"].tolist() == [2, 2, 1, 1]
    assert _shake(result) == {"alpha": (3, 1, 2), "beta": (1, 1, 0), "gamma": (1, 3, -2), "delta": (4, 4, 0)}
    assert result.shakeup["team"].tolist() == ["alpha", "beta", "gamma", "delta"]  # by final place, then name


def test_golden_regression_rule_best_preliminary(regression_targets):
    # Best preliminary rmse per team: alpha/first (0), beta/b1 (1), gamma/g1 (1).
    # Preliminary: alpha 0 (1), beta 1 and gamma 1 (tie, 2), delta 4.
    # Final, same submissions: beta 0 (1), alpha 1 and gamma 1 (tie, 2), delta 4.
    result = _golden(regression_targets, rule="best-preliminary")
    assert _board(result.preliminary_leaderboard) == [(1, "alpha", 0.0), (2, "beta", 1.0), (2, "gamma", 1.0),
                                                      (4, "delta", None)]
    assert _board(result.final_leaderboard) == [(1, "beta", 0.0), (2, "alpha", 1.0), (2, "gamma", 1.0),
                                                (4, "delta", None)]
    assert _shake(result) == {"alpha": (1, 2, -1), "beta": (2, 1, 1), "gamma": (2, 2, 0), "delta": (4, 4, 0)}
    counted = result.submissions.loc[result.submissions["counts_final"], "submission"].tolist()
    assert counted == ["alpha/first.txt", "beta/b1.txt", "gamma/g1.csv"]
    assert result.warnings == ()


def test_golden_regression_rule_selected(regression_targets):
    # alpha selected both of its submissions; the others selected none and get their (up to) 2 best
    # preliminary ones: beta/b1 (b2 is rejected), gamma/g1, delta nothing valid.
    # Preliminary = best preliminary among the selected: alpha/first 0 (1), beta 1 and gamma 1 (2), delta 4.
    # Final = best final among the selected: alpha/second 0 and beta/b1 0 (tie, 1), gamma 1 (3), delta 4.
    result = _golden(regression_targets, rule="selected")
    assert _board(result.preliminary_leaderboard) == [(1, "alpha", 0.0), (2, "beta", 1.0), (2, "gamma", 1.0),
                                                      (4, "delta", None)]
    assert _board(result.final_leaderboard) == [(1, "alpha", 0.0), (1, "beta", 0.0), (3, "gamma", 1.0),
                                                (4, "delta", None)]
    assert result.preliminary_leaderboard["submission"].iloc[0] == "alpha/first.txt"
    assert result.final_leaderboard["submission"].iloc[0] == "alpha/second.txt"
    assert _shake(result) == {"alpha": (1, 1, 0), "beta": (2, 1, 1), "gamma": (2, 3, -1), "delta": (4, 4, 0)}
    assert result.warnings == ("3 team(s) selected no submission; their 2 best preliminary submission(s) were used "
                               "(as Kaggle does): 'beta', 'delta', 'gamma'.",)


def test_golden_regression_mae_three_way_tie(regression_targets):
    # Rule last, mae: preliminary alpha/second (0, 0, 3) -> 1, beta (1, 1, 1) -> 1, gamma (1, -1, 1) -> 1:
    # a three-way tie for place 1 that rmse (√3 vs 1 vs 1) breaks. Final: alpha 0, beta 0 (1), gamma 1 (3).
    result = _golden(regression_targets, metric="mae")
    assert _board(result.preliminary_leaderboard) == [(1, "alpha", 1.0), (1, "beta", 1.0), (1, "gamma", 1.0),
                                                      (4, "delta", None)]
    assert _board(result.final_leaderboard) == [(1, "alpha", 0.0), (1, "beta", 0.0), (3, "gamma", 1.0),
                                                (4, "delta", None)]


def test_golden_regression_r2_higher_is_better(regression_targets):
    # Rule last, R2: preliminary beta .625 and gamma .625 (1), alpha -.125 (3); final alpha 1 and beta 1 (1),
    # gamma .625 (3). Same places as rmse, from the other direction.
    result = _golden(regression_targets, metric="r2")
    assert _board(result.preliminary_leaderboard) == [(1, "beta", 0.625), (1, "gamma", 0.625), (3, "alpha", -0.125),
                                                      (4, "delta", None)]
    assert _board(result.final_leaderboard) == [(1, "alpha", 1.0), (1, "beta", 1.0), (3, "gamma", 0.625),
                                                (4, "delta", None)]


def test_golden_regression_targets_csv_gives_the_same_result(regression_targets):
    from_text = _golden(regression_targets, extra_metrics=["mae"])
    from_csv = _golden(read_targets_csv(REGRESSION / "targets.csv"), extra_metrics=["mae"])
    columns = ["team", "submission", "status", "rmse_preliminary", "rmse_final", "mae_preliminary", "mae_final"]
    pd.testing.assert_frame_equal(from_text.submissions[columns], from_csv.submissions[columns])
    pd.testing.assert_frame_equal(from_text.shakeup, from_csv.shakeup)


def test_golden_regression_selecting_too_many_is_refused(regression_targets):
    with pytest.raises(ValidationError, match=r"submissions.csv, column 'selected': team 'alpha' selected 2 "
                                              r"submissions \('alpha/first.txt', 'alpha/second.txt'\); the rule "
                                              r"'selected' allows at most 1 \(max_selected\)."):
        _golden(regression_targets, rule="selected", max_selected=1)


def test_golden_regression_order_by_name(regression_targets):
    # By name, beta's b2.txt still comes after b1.txt, and alpha's second.txt after first.txt: same result.
    by_name = _golden(regression_targets, order="name")
    assert _shake(by_name) == {"alpha": (3, 1, 2), "beta": (1, 1, 0), "gamma": (1, 3, -2), "delta": (4, 4, 0)}


def test_scoring_does_not_mutate_its_inputs(regression_targets):
    listing = list_submissions(REGRESSION / "submissions.csv")
    before = listing.copy()
    score_submissions(listing, regression_targets, metric="rmse")
    pd.testing.assert_frame_equal(listing, before)
    with pytest.raises(ValueError, match="read-only"):
        regression_targets.values[0] = 0.0


def test_permuting_teams_in_the_listing_changes_nothing(regression_targets):
    listing = pd.read_csv(REGRESSION / "submissions.csv", dtype=str, keep_default_na=False)
    listing["file"] = [str(REGRESSION / f) for f in listing["file"]]
    reference = score_submissions(listing, regression_targets, metric="rmse")
    shuffled = listing.sample(frac=1.0, random_state=0).reset_index(drop=True)
    result = score_submissions(shuffled, regression_targets, metric="rmse")
    pd.testing.assert_frame_equal(result.final_leaderboard, reference.final_leaderboard)
    pd.testing.assert_frame_equal(result.shakeup, reference.shakeup)


# =========================================================================== golden: classification
#
# tests/data/predictions/classification/targets.csv: labels s1..s6 = 0 1 1 | 0 2 2, preliminary s1-s3,
# final s4-s6. One submission per team in a folder:
#   red/r.txt    0 1 0 | 0 2 2  -> preliminary 2/3 (s3 wrong), final 3/3 = 1
#   blue/b.csv   0 1 1 | 1 1 2  -> preliminary 1, final 1/3 (s4, s5 wrong)   (CSV, ids shuffled)
#   green/g.txt  0 0 1 | 0 2 1  -> preliminary 2/3 (s2 wrong), final 2/3 (s6 wrong)
#   grey/x.txt   line 2 is 1.5  -> rejected: accuracy needs integer labels
# Preliminary: blue 1 (1), green 2/3 and red 2/3 (tie, 2), grey (4).
# Final: red 1 (1), green 2/3 (2), blue 1/3 (3), grey (4). Shake-up: blue -2, green 0, red +1, grey 0.
def test_golden_classification_accuracy_from_a_folder():
    targets = read_targets_csv(CLASSIFICATION / "targets.csv")
    result = score_submissions(CLASSIFICATION / "submissions", targets, metric="accuracy")
    assert _board(result.preliminary_leaderboard) == [(1, "blue", 1.0), (2, "green", round(2 / 3, 12)),
                                                      (2, "red", round(2 / 3, 12)), (4, "grey", None)]
    assert _board(result.final_leaderboard) == [(1, "red", 1.0), (2, "green", round(2 / 3, 12)),
                                                (3, "blue", round(1 / 3, 12)), (4, "grey", None)]
    assert _shake(result) == {"blue": (1, 3, -2), "green": (2, 2, 0), "red": (2, 1, 1), "grey": (4, 4, 0)}
    assert result.rejected.to_dict("records") == [{
        "team": "grey", "submission": "x.txt",
        "reason": "row 2: '1.5' is not an integer class label; the metric 'accuracy' needs integer labels."}]


# =========================================================================== validation: solutions


@pytest.mark.parametrize("text, message", [
    # too few lines: the first missing line is named
    ("1\n2\n3\n4\n", r"solution.txt, row 5: the solution has 4 lines but the test files have 6 "
                     r"\(one line per test sample\); lines 5-6 are missing."),
    ("1\n2\n3\n4\n5\n6\n7\n", r"solution.txt, row 7: the solution has 7 lines but the test files have 6 "
                              r"\(one line per test sample\); line 7 is extra."),
    ("1\nabc\n3\n4\n5\n6\n", r"solution.txt, row 2: 'abc' is not a number; expected one prediction \(a number\)."),
    ("1\n2\nNaN\n4\n5\n6\n", r"solution.txt, row 3: the prediction is NaN \('NaN'\); predictions must be finite "
                             r"numbers."),
    ("1\n2\n3\n-inf\n5\n6\n", r"solution.txt, row 4: the prediction is infinite \('-inf'\); predictions must be "
                              r"finite numbers."),
    ("1\n2\n3\n4\n1e999\n6\n", r"solution.txt, row 5: the prediction is infinite \('1e999'\)"),
    ("1\n\n3\n4\n5\n6\n", r"solution.txt, row 2: empty; expected one prediction \(a number\)."),
    ("1\n   \n3\n4\n5\n6\n", r"solution.txt, row 2: empty; expected one prediction \(a number\)."),
    ("", r"solution.txt, row 1: the solution has 0 lines but the test files have 6"),
])
def test_solution_errors_name_file_and_line(tmp_path, six_targets, text, message):
    path = _write(tmp_path / "solution.txt", text)
    with pytest.raises(ValidationError, match=rf"The solution .*solution.txt was rejected \(1 problem\):\n"
                                              rf"  - .*{message}"):
        read_solution(path, six_targets)


def test_solution_non_integer_label_for_accuracy(tmp_path, six_targets):
    path = _write(tmp_path / "solution.txt", "1\n2\n3.5\n4\n5\n6\n")
    assert read_solution(path, six_targets)[2] == 3.5  # fine for regression metrics
    with pytest.raises(ValidationError, match=r"solution.txt, row 3: '3.5' is not an integer class label; the "
                                              r"metric 'accuracy' needs integer labels."):
        read_solution(path, six_targets, integer_labels=True)


def test_solution_reports_every_problem_at_once_in_line_order(tmp_path, six_targets):
    path = _write(tmp_path / "solution.txt", "x\n2\n\n4\ninf\n6\n7\n")
    with pytest.raises(ValidationError) as caught:
        read_solution(path, six_targets)
    assert [(p.row, p.message.split(";")[0]) for p in caught.value.problems] == [
        (1, "'x' is not a number"), (3, "empty"), (5, "the prediction is infinite ('inf')"),
        (7, "the solution has 7 lines but the test files have 6 (one line per test sample)"),
    ]
    assert "(4 problems)" in str(caught.value)


def test_solution_with_many_bad_lines_lists_the_first_ten_then_counts(tmp_path):
    targets = Targets.from_arrays(np.arange(30.0), ["preliminary", "final"] * 15)
    path = _write(tmp_path / "solution.txt", "bad\n" * 25 + "1\n" * 5)
    with pytest.raises(ValidationError, match=r"\.\.\. and 15 more rows with non-numbers \(the first 10 are "
                                              r"listed above\)") as caught:
        read_solution(path, targets)
    assert [p.row for p in caught.value.problems] == list(range(1, 11)) + [None]


def test_solution_line_endings_and_final_newline(tmp_path, six_targets):
    for text in ("1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n", "1\n2\n3\n4\n5\n6", " 1 \n2\n3.0\n4e0\n+5\n6\n"):
        path = _write(tmp_path / "solution.txt", text)
        assert read_solution(path, six_targets).tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    # A second final newline is an empty seventh line.
    path = _write(tmp_path / "solution.txt", "1\n2\n3\n4\n5\n6\n\n")
    with pytest.raises(ValidationError, match=r"row 7: empty"):
        read_solution(path, six_targets)


def test_solution_csv_is_matched_by_id(tmp_path, six_targets):
    path = _write(tmp_path / "solution.csv", "id,prediction\n6,60\n1,10\n2,20\n3,30\n4,40\n5,50\n")
    assert read_solution(path, six_targets).tolist() == [10.0, 20.0, 30.0, 40.0, 50.0, 60.0]
    # Recognised by its first line too, whatever the file name.
    path = _write(tmp_path / "solution.txt", "prediction,id\n10,1\n20,2\n30,3\n40,4\n50,5\n60,6\n")
    assert read_solution(path, six_targets).tolist() == [10.0, 20.0, 30.0, 40.0, 50.0, 60.0]


@pytest.mark.parametrize("text, message", [
    ("id,value\n1,1\n", r"solution.csv: missing column 'prediction'; expected id, prediction; found 'id', 'value'."),
    ("id,prediction\n1,1\n2,2\n3,3\n4,4\n5,5\n6,6\n9,9\n",
     r"solution.csv, row 7, column 'id': unknown id '9'; the targets have no sample with this id."),
    ("id,prediction\n1,1\n2,2\n3,3\n4,4\n5,5\n6,6\n2,7\n",
     r"solution.csv, row 7, column 'id': id '2' appears again \(first on row 2\); each sample must appear once."),
    ("id,prediction\n1,1\n2,2\n3,3\n4,4\n5,5\n",
     r"solution.csv, column 'id': no prediction for id '6' \(targets: <array>, row 6\)."),
    ("id,prediction\n1,1\n2,2\n3,x\n4,4\n5,5\n6,6\n",
     r"solution.csv, row 3, column 'prediction': 'x' is not a number"),
    ("id,prediction\n1,1\n2,2\n3,\n4,4\n5,5\n6,6\n",
     r"solution.csv, row 3, column 'prediction': empty; expected one prediction \(a number\)."),
    ("id,prediction\n1,1\n,2\n3,3\n4,4\n5,5\n6,6\n", r"solution.csv, row 2, column 'id': empty id"),
    ("", r"solution.csv: the file is empty; expected a CSV with columns id, prediction."),
])
def test_solution_csv_errors(tmp_path, six_targets, text, message):
    path = _write(tmp_path / "solution.csv", text)
    with pytest.raises(ValidationError, match=message):
        read_solution(path, six_targets)


def test_missing_solution_file(tmp_path, six_targets):
    with pytest.raises(ValidationError, match=r"nothing.txt: file not found."):
        read_solution(tmp_path / "nothing.txt", six_targets)


def test_in_memory_predictions_are_validated_like_files(six_targets):
    listing = pd.DataFrame({"team": ["a", "b"], "file": ["a", "b"]})
    result = score_submissions(listing, six_targets, metric="mae",
                               predictions={"a": [1, 2, 3, 4, 5, 6], "b": [1, 2, 3]})
    assert result.submissions["status"].tolist() == ["ok", "rejected"]
    assert result.rejected.loc[0, "reason"].startswith("row 4: the solution has 3 lines but the test files have 6")


# =========================================================================== validation: targets


def _targets_files(tmp_path, preliminary: str, final: str):
    return _write(tmp_path / "p.txt", preliminary), _write(tmp_path / "f.txt", final)


@pytest.mark.parametrize("preliminary, final, message", [
    ("1\n\n3\n", "\n2\n\n4\n",
     r"f.txt, row 4: this test file has 4 lines but .*p.txt has 3; both need one line per test sample \(an empty "
     r"line where the sample belongs to the other subset\)."),
    ("1\n\n3\n", "\n2\n3\n",
     r"p.txt, row 3: this sample has a target in both test files \(also in .*f.txt\); a sample belongs to exactly "
     r"one subset."),
    ("1\n\n\n", "\n2\n\n",
     r"p.txt, row 3: this sample has a target in neither test file \(the line is empty here and in .*f.txt\); every "
     r"sample belongs to exactly one subset."),
    ("1\n\nthree\n", "\n2\n\n", r"p.txt, row 3: 'three' is not a number; expected one target \(a number\)."),
    ("1\n\n3\n", "\nnan\n\n", r"f.txt, row 2: the target is NaN \('nan'\); targets must be finite numbers."),
    ("1\n\n3\n", "\ninf\n\n", r"f.txt, row 2: the target is infinite \('inf'\); targets must be finite numbers."),
    ("1\n2\n3\n", "\n\n\n", r"p.txt and .*f.txt, column 'subset': the final subset has no sample; each subset needs "
                            r"at least one."),
    ("", "", r"p.txt: the test files are empty; expected one line per test sample."),
])
def test_targets_errors_name_file_and_line(tmp_path, preliminary, final, message):
    p, f = _targets_files(tmp_path, preliminary, final)
    with pytest.raises(ValidationError, match=r"The test files are not valid \(1 problem\):\n  - .*" + message):
        read_targets(p, f)


def test_targets_report_every_problem_of_both_files(tmp_path):
    p, f = _targets_files(tmp_path, "1\nx\n3\n\n", "\n2\n4\n\n")
    with pytest.raises(ValidationError) as caught:
        read_targets(p, f)
    found = [(Path(pr.source).name, pr.row, pr.message.split(";")[0]) for pr in caught.value.problems]
    assert found == [("p.txt", 2, "'x' is not a number"),
                     ("p.txt", 2, "this sample has a target in both test files (also in " + str(f) + ")"),
                     ("p.txt", 3, "this sample has a target in both test files (also in " + str(f) + ")"),
                     ("p.txt", 4, "this sample has a target in neither test file (the line is empty here and in "
                                  + str(f) + ")")]


def test_targets_missing_file(tmp_path):
    p = _write(tmp_path / "p.txt", "1\n")
    with pytest.raises(ValidationError, match=r"missing.txt: file not found."):
        read_targets(p, tmp_path / "missing.txt")


@pytest.mark.parametrize("text, message", [
    ("id,target\n1,1\n", r"targets.csv: missing column 'subset'; expected id, target, subset; found 'id', 'target'."),
    ("id,target,subset\na,1,preliminary\nb,2,public\n",
     r"targets.csv, row 2, column 'subset': unknown subset 'public'; expected 'preliminary' or 'final'."),
    ("id,target,subset\na,1,preliminary\nb,2,\n",
     r"targets.csv, row 2, column 'subset': no subset: the sample is in neither subset; expected 'preliminary' or "
     r"'final'."),
    ("id,target,subset\na,1,preliminary\nb,2,final\na,1,final\n",
     r"targets.csv, row 3, column 'id': id 'a' appears again \(first on row 1\); each sample must appear once."),
    ("id,target,subset\na,1,preliminary\nb,two,final\n",
     r"targets.csv, row 2, column 'target': 'two' is not a number; expected one target \(a number\)."),
    ("id,target,subset\na,1,preliminary\nb,,final\n",
     r"targets.csv, row 2, column 'target': empty; expected one target \(a number\)."),
    ("id,target,subset\na,1,preliminary\nb,-Infinity,final\n",
     r"targets.csv, row 2, column 'target': the target is infinite \('-Infinity'\)"),
    ("id,target,subset\na,1,preliminary\nb,2,preliminary\n",
     r"targets.csv, column 'subset': the final subset has no sample; each subset needs at least one."),
    ("id,target,subset\n", r"targets.csv: the file has no rows; expected one row per test sample."),
])
def test_targets_csv_errors(tmp_path, text, message):
    path = _write(tmp_path / "targets.csv", text)
    with pytest.raises(ValidationError, match=r"The targets file is not valid[\s\S]*" + message):
        read_targets_csv(path)


def test_targets_from_arrays_errors():
    with pytest.raises(ValidationError, match=r"<array>, row 2, column 'values': the target is NaN \('nan'\)"):
        Targets.from_arrays([1.0, np.nan], ["preliminary", "final"])
    with pytest.raises(ValidationError, match=r"values, subsets and ids must have the same length; got 2, 1 and 2."):
        Targets.from_arrays([1.0, 2.0], ["preliminary"])


def test_targets_must_be_integer_labels_for_accuracy(tmp_path):
    p, f = _targets_files(tmp_path, "1\n\n0.5\n", "\n2\n\n")
    targets = read_targets(p, f)
    listing = pd.DataFrame({"team": ["a"], "file": ["a"]})
    with pytest.raises(ValidationError, match=r"Cannot score the submissions \(1 problem\):\n  - .*p.txt, row 3: "
                                              r"target 0.5 is not an integer class label; the metric 'accuracy' "
                                              r"needs integer labels."):
        score_submissions(listing, targets, metric="accuracy", predictions={"a": [1, 2, 0]})


def test_targets_must_vary_for_r2():
    targets = Targets.from_arrays([1.0, 2.0, 1.0, 3.0], ["preliminary", "final"] * 2)
    listing = pd.DataFrame({"team": ["a"], "file": ["a"]})
    with pytest.raises(ValidationError, match=r"<array>: all targets of the preliminary subset are equal \(1\); R2 "
                                              r"is undefined there. Use rmse or mae."):
        score_submissions(listing, targets, metric="rmse", extra_metrics=["r2"], predictions={"a": [1, 2, 1, 3]})


# =========================================================================== validation: listings and options


@pytest.mark.parametrize("text, message", [
    ("name,file\na,a.txt\n", r"listing.csv: missing column 'team'; expected team, file and optionally submitted_at, "
                             r"selected; found 'name', 'file'."),
    ("team,file,submitted_at\na,a.txt,yesterday\n",
     r"listing.csv, row 1, column 'submitted_at': 'yesterday' is not a date-time; expected ISO 8601 such as "
     r"'2024-05-01 12:30:00' \(UTC unless it has an offset\)."),
    ("team,file,selected\na,a.txt,maybe\n",
     r"listing.csv, row 1, column 'selected': 'maybe' is not a yes/no value; use true/false, yes/no, 1/0 or leave "
     r"it empty."),
    ("team,file\na,a.txt\na,a.txt\n", r"listing.csv, row 2, column 'file': file 'a.txt' is listed twice for the "
                                      r"same team."),
    ("team,file\n,a.txt\n", r"listing.csv, row 1, column 'team': empty team name."),
    ("team,file\na,\n", r"listing.csv, row 1, column 'file': empty file name."),
    ("team,file\n", r"listing.csv: no submissions listed."),
    ("team,file,submitted_at\na,a.txt,2024-01-01\na,b.txt,\n",
     r"listing.csv, row 2, column 'submitted_at': no submitted_at; give every submission a time, or none \(then the "
     r"listing order decides\)."),
])
def test_listing_errors(tmp_path, text, message):
    path = _write(tmp_path / "listing.csv", text)
    with pytest.raises(ValidationError, match=r"The submission listing is not valid[\s\S]*" + message):
        list_submissions(path)


def test_listing_without_times_keeps_the_listing_order_and_round_trips():
    listing = pd.DataFrame({"team": ["a", "a", "b"], "file": ["z.txt", "y.txt", "x.txt"]})
    listed = list_submissions(listing)
    assert listed["submission"].tolist() == ["z.txt", "y.txt", "x.txt"]  # z was handed in first
    assert listed["submitted_at"].isna().all()
    pd.testing.assert_frame_equal(list_submissions(listed), listed)


def test_folder_listing_uses_modification_times_or_names(tmp_path):
    for name, day in (("b-late.txt", 3), ("a-early.txt", 1), ("c-middle.txt", 2)):
        path = _write(tmp_path / "subs" / "team" / name, "1\n")
        stamp = pd.Timestamp(f"2024-01-0{day}", tz="UTC").timestamp()
        os.utime(path, (stamp, stamp))
    _write(tmp_path / "subs" / ".hidden", "ignored")
    by_time = list_submissions(tmp_path / "subs")
    assert by_time["submission"].tolist() == ["a-early.txt", "c-middle.txt", "b-late.txt"]
    assert by_time["submitted_at"].tolist() == [pd.Timestamp(f"2024-01-0{d}", tz="UTC") for d in (1, 2, 3)]
    assert by_time["submission_index"].tolist() == [1, 2, 3]
    assert list_submissions(tmp_path / "subs", order="name")["submission"].tolist() == \
        ["a-early.txt", "b-late.txt", "c-middle.txt"]


def test_folder_listing_errors(tmp_path):
    _write(tmp_path / "subs" / "loose.txt", "1\n")
    _write(tmp_path / "subs" / "team" / "nested" / "x.txt", "1\n")
    with pytest.raises(ValidationError, match=r"The submissions folder is not valid \(2 problems\):\n"
                                              r"  - .*loose.txt: is not inside a team folder; expected "
                                              r"SUBMISSIONS/team/submission-file.\n"
                                              r"  - .*nested: is a folder inside a team folder"):
        list_submissions(tmp_path / "subs")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValidationError, match=r"empty: has no submissions"):
        list_submissions(tmp_path / "empty")


@pytest.mark.parametrize("options, message", [
    (dict(metric="rmse", rule="first"), r"The 'rule' option must be one of 'last', 'best-preliminary', 'selected'. "
                                        r"Got 'first'."),
    (dict(metric="rmse", order="mtime"), r"The 'order' option must be one of 'submitted_at', 'name'. Got 'mtime'."),
    (dict(metric="rmse", max_selected=0), r"The 'max_selected' option must be an integer >= 1. Got 0."),
    (dict(metric="rmse", decimals=-1), r"The 'decimals' option must be a non-negative integer or None. Got -1."),
    (dict(metric="f1"), r"The 'metric' option must be one of .* Got 'f1'."),
])
def test_option_errors(six_targets, options, message):
    with pytest.raises(SrdashError, match=message):
        score_submissions(pd.DataFrame({"team": ["a"], "file": ["a"]}), six_targets, **options)


def test_every_submission_rejected_is_a_warning_not_a_crash(six_targets):
    result = score_submissions(pd.DataFrame({"team": ["a", "b"], "file": ["a", "b"]}), six_targets, metric="rmse")
    assert result.final_leaderboard["place"].tolist() == [1, 1]
    assert result.warnings == ("No submission could be scored: every submission was rejected.",)
    assert result.rejected["reason"].tolist() == ["file not found.", "file not found."]


# =========================================================================== several metrics -> ranking engine


def test_runs_table_has_the_per_run_columns(regression_targets):
    result = _golden(regression_targets, extra_metrics=["mae"])
    runs = to_runs_table(result)
    assert list(runs.columns[:5]) == ["method", "dataset", "run", "model", "components"]
    assert {"rmse", "mae", "status", "reason"} <= set(runs.columns)
    # rule last: one counted run per team with a valid submission and subset; delta has none (DNF).
    assert sorted(zip(runs["dataset"], runs["method"], runs["run"])) == [
        ("final", "alpha", 2), ("final", "beta", 1), ("final", "gamma", 1),
        ("preliminary", "alpha", 2), ("preliminary", "beta", 1), ("preliminary", "gamma", 1)]
    every = to_runs_table(result, subsets=["final"], submissions="all")
    assert len(every) == 6 and (every["status"] == "rejected").sum() == 2
    with pytest.raises(SrdashError, match=r"The 'submissions' option must be one of 'counted', 'all'. Got 'best'."):
        to_runs_table(result, submissions="best")


def test_several_metrics_ranked_by_the_ranking_engine(regression_targets):
    ranking = pytest.importorskip("srdash.judging.ranking")
    from srdash.judging.rules import parse_rules

    rules = parse_rules("""
        name = "prediction-metrics"
        [ranking]
        rank_method = "average"
        [[criteria]]
        name = "rmse"
        column = "rmse"
        direction = "lower"
        decimals = 9
        [[criteria]]
        name = "mae"
        column = "mae"
        direction = "lower"
        decimals = 9
    """)
    result = _golden(regression_targets, extra_metrics=["mae"])  # rule last
    verdict = ranking.judge(to_runs_table(result), rules, methods=result.final_leaderboard["team"].tolist())
    # Ranks per subset, higher = better (K = 4 teams; delta is DNF = 1 everywhere):
    #   preliminary rmse: beta 1, gamma 1 tie best -> (3+4)/2 = 3.5 each, alpha √3 -> 2
    #   preliminary mae:  alpha, beta, gamma all 1 -> (2+3+4)/3 = 3 each
    #   final rmse and mae: alpha 0, beta 0 -> 3.5 each, gamma 1 -> 2
    # Harmonic means: preliminary alpha H(2, 3) = 2.4, beta = gamma = H(3.5, 3) = 42/13;
    #                 final alpha = beta = 3.5, gamma = 2; delta 1.
    # Scores (mean of both subsets): beta (42/13 + 3.5)/2 = 3.3654, alpha (2.4 + 3.5)/2 = 2.95,
    #                                gamma (42/13 + 2)/2 = 2.6154, delta 1.
    board = verdict.leaderboard
    assert board["method"].tolist() == ["beta", "alpha", "gamma", "delta"]
    assert board["score"].tolist() == pytest.approx([(42 / 13 + 3.5) / 2, 2.95, (42 / 13 + 2) / 2, 1.0])


# =========================================================================== figure


def test_shakeup_figure_is_a_slope_chart_with_plain_text_names(regression_targets, tmp_path):
    listing = pd.DataFrame({"team": ["<script>alert(1)</script>", "%{customdata[9]}", "same"],
                            "file": ["x", "y", "z"]})
    result = score_submissions(listing, regression_targets, metric="rmse",
                               predictions={"x": [1, 3, 3, 5, 5, 7], "y": [2, 2, 4, 4, 6, 6],
                                            "z": [2, 3, 2, 3, 6, 7]})
    # rmse preliminary: x 0 (1), y 1 and z 1 (2); final: y 0 (1), x 1 and z 1 (2).
    figure = shakeup_figure(result)
    lines = [trace for trace in figure.data if trace.showlegend is not False]
    assert [trace.name for trace in lines] == ["moved up", "moved down", "same place"]
    assert figure.layout.yaxis.range == (2.5, 0.5)          # places 1 and 2, place 1 on top
    assert figure.layout.yaxis2.matches == "y" and figure.layout.yaxis2.side == "right"
    # Names are tick labels (plotly makes room for them), escaped; teams at one place share one label.
    assert figure.layout.yaxis.tickvals == (1, 2)
    # (names are cut at 20 characters: '<script>alert(1)</s…')
    assert figure.layout.yaxis.ticktext == ("&lt;script&gt;alert(1)&lt;/s… (1)", "%{customdata[9]}, same (2)")
    assert figure.layout.yaxis2.ticktext == ("(1) %{customdata[9]}", "(2) &lt;script&gt;alert(1)&lt;/s…, same")
    assert not any("<" in text for axis in (figure.layout.yaxis, figure.layout.yaxis2) for text in axis.ticktext)
    # Names never go into templates, where %{...} would be interpreted.
    assert all("customdata[9]" not in trace.hovertemplate for trace in lines)
    moved_up = figure.data[0]
    assert list(moved_up.x[:2]) == ["preliminary", "final"] and list(moved_up.y[:2]) == [2, 1]
    assert moved_up.customdata[0][0] == "%{customdata[9]}"
    moved_down = figure.data[1]                             # the hover shows the whole name, escaped
    assert moved_down.customdata[0][0] == "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert shakeup_figure(result, title="T", height=400).layout.title.text == "T"


def _constant_predictions(errors: dict[str, tuple[float, float]]):
    """Teams whose preliminary and final errors (targets all 0) are given: (listing, targets, predictions)."""
    targets = Targets.from_arrays([0.0, 0.0], ["preliminary", "final"])
    listing = pd.DataFrame({"team": list(errors), "file": [f"f{i}" for i in range(len(errors))]})
    predictions = {f"f{i}": list(pair) for i, pair in enumerate(errors.values())}
    return listing, targets, predictions


@pytest.mark.parametrize("n_teams", [6, 30])
def test_the_shakeup_chart_gives_every_place_room(n_teams):
    # team i has error i on the preliminary subset and n - i on the final one: places 1..n, reversed.
    listing, targets, predictions = _constant_predictions({f"team {i}": (i, n_teams - i) for i in range(n_teams)})
    figure = shakeup_figure(score_submissions(listing, targets, metric="mae", predictions=predictions))
    margin = figure.layout.margin
    per_place = (figure.layout.height - margin.t - margin.b) / n_places_of(figure)
    assert n_places_of(figure) == n_teams
    assert per_place >= 28                                # one line of 12 px labels and space between them
    assert figure.layout.height == (80 + 70 + 32 * n_teams)   # 342 px for 6 teams (about 100 px before), 1110 for 30
    assert figure.layout.yaxis.automargin and figure.layout.yaxis2.automargin  # room for the names on both sides
    assert figure.layout.yaxis.ticktext[0] == "team 0 (1)" and figure.layout.yaxis2.ticktext[0] == f"(1) team {n_teams - 1}"


def n_places_of(figure) -> int:
    low, high = figure.layout.yaxis.range
    return round(low - high)


def test_teams_at_one_place_share_one_label_and_long_names_are_cut():
    long_name = "<b>a rather long team name</b>"
    # errors: preliminary all 1 (everyone shares place 1); final 1, 1, 1, 2, 2: three teams share place 1.
    listing, targets, predictions = _constant_predictions({"p": (1, 1), "q": (1, 1), "r": (1, 1), long_name: (1, 2),
                                                           "s": (1, 2)})
    figure = shakeup_figure(score_submissions(listing, targets, metric="mae", predictions=predictions))
    # preliminary: one label at place 1 for five teams, as many names as fit in about 20 characters, then '+N more'
    assert figure.layout.yaxis.tickvals == (1,)
    assert figure.layout.yaxis.ticktext == ("&lt;b&gt;a rather long te… +4 more (1)",)
    assert figure.layout.yaxis2.tickvals == (1, 4)
    assert figure.layout.yaxis2.ticktext == ("(1) p, q, r", "(4) &lt;b&gt;a rather long te…, s")
    # every label position is distinct: no two labels drawn at the same place on one side
    for axis in (figure.layout.yaxis, figure.layout.yaxis2):
        assert len(set(axis.tickvals)) == len(axis.tickvals) == len(axis.ticktext)
    # the hover keeps the whole (escaped) name
    hover_names = {row[0] for trace in figure.data if trace.customdata is not None for row in trace.customdata}
    assert "&lt;b&gt;a rather long team name&lt;/b&gt;" in hover_names


def test_the_shakeup_title_is_wrapped_for_narrow_screens(regression_targets):
    listing = pd.DataFrame({"team": ["a", "b"], "file": ["x", "y"]})
    result = score_submissions(listing, regression_targets, metric="rmse",
                               predictions={"x": [1, 3, 3, 5, 5, 7], "y": [2, 2, 4, 4, 6, 6]})
    title = shakeup_figure(result).layout.title.text
    assert title == "Shake-up: preliminary → final place<br>(RMSE, lower is better; rule 'last')"
    assert max(len(line) for line in title.split("<br>")) <= 40


# =========================================================================== command line


def _cli(args):
    from srdash.cli.predictions import predictions

    return CliRunner().invoke(predictions, ["score", *map(str, args)])


def test_cli_scores_the_golden_competition(tmp_path):
    board, shake, prelim, table = (tmp_path / n for n in ("out/board.csv", "shake.csv", "prelim.csv", "subs.csv"))
    per_metric = tmp_path / "per-metric"
    result = _cli(["--targets-preliminary", REGRESSION / "targets_preliminary.txt",
                   "--targets-final", REGRESSION / "targets_final.txt", "--metric", "rmse", "--metric", "mae",
                   REGRESSION / "submissions.csv", "-o", board, "--shakeup", shake, "--preliminary", prelim,
                   "--submissions-table", table, "--per-metric", per_metric])
    assert result.exit_code == 0, result.output + result.stderr
    # Two metrics: -o, --preliminary and --shakeup are the combined leaderboards. Their values
    # are derived in test_several_metrics_ranked_by_the_ranking_engine (final: alpha = beta = 3.5,
    # gamma 2, delta 1; preliminary: beta = gamma = 42/13, alpha 2.4, delta 1).
    written = pd.read_csv(board)
    assert written.columns.tolist() == ["place", "team", "score", "rmse", "rmse_rank", "mae", "mae_rank",
                                        "submission", "entries", "status"]
    assert written[["place", "team"]].values.tolist() == [[1, "alpha"], [1, "beta"], [3, "gamma"], [4, "delta"]]
    assert written["score"].tolist() == pytest.approx([3.5, 3.5, 2.0, 1.0])
    assert written["status"].tolist() == ["ok", "ok", "ok", "no valid submission"]
    assert pd.read_csv(shake)[["team", "change"]].values.tolist() == [["alpha", 2], ["beta", 0], ["gamma", -2],
                                                                      ["delta", 0]]
    assert pd.read_csv(prelim)[["place", "team"]].values.tolist() == [[1, "beta"], [1, "gamma"], [3, "alpha"],
                                                                      [4, "delta"]]
    # Each metric's own leaderboards stay available.
    rmse_final = pd.read_csv(per_metric / "rmse_final.csv")
    assert rmse_final.columns.tolist() == ["place", "team", "score", "submission", "entries"]
    assert rmse_final[["place", "team"]].values.tolist() == [[1, "alpha"], [1, "beta"], [3, "gamma"], [4, "delta"]]
    assert pd.read_csv(per_metric / "rmse_preliminary.csv")["team"].tolist() == ["beta", "gamma", "alpha", "delta"]
    assert sorted(p.name for p in per_metric.iterdir()) == [
        "mae_final.csv", "mae_preliminary.csv", "mae_shakeup.csv",
        "rmse_final.csv", "rmse_preliminary.csv", "rmse_shakeup.csv"]
    assert {"mae_final", "rmse_preliminary", "reason"} <= set(pd.read_csv(table).columns)
    assert "2 of 6 submission(s) rejected:" in result.stderr
    assert "  - beta, beta/b2.txt: row 2: 'abc' is not a number" in result.stderr
    assert "  - delta, delta/d1.txt: row 6: the solution has 5 lines" in result.stderr
    assert ("Final leaderboard (combined: harmonic mean of the per-metric ranks: RMSE (lower is better, weight 1), "
            "MAE (lower is better, weight 1); rule 'last'; 4 of 6 submissions scored):") in result.stdout


def test_cli_targets_csv_and_rule(tmp_path):
    result = _cli(["--targets-csv", CLASSIFICATION / "targets.csv", "-m", "accuracy", "--rule", "best-preliminary",
                   CLASSIFICATION / "submissions", "-o", tmp_path / "board.csv"])
    assert result.exit_code == 0, result.output + result.stderr
    assert pd.read_csv(tmp_path / "board.csv")["team"].tolist() == ["red", "green", "blue", "grey"]
    assert "grey, x.txt: row 2: '1.5' is not an integer class label" in result.stderr


@pytest.mark.parametrize("args, message", [
    (["-m", "rmse"], r"The targets are missing: give --targets-preliminary and --targets-final"),
    (["-m", "rmse", "--targets-csv", REGRESSION / "targets.csv", "--targets-final", REGRESSION / "targets_final.txt"],
     r"Give either --targets-csv or both --targets-preliminary and --targets-final, not both."),
    (["-m", "mse", "--targets-csv", REGRESSION / "targets.csv"], r"Invalid value for '-m' / '--metric'"),
])
def test_cli_usage_errors(tmp_path, args, message):
    result = _cli([*args, REGRESSION / "submissions.csv", "-o", tmp_path / "b.csv"])
    assert result.exit_code == 2
    assert re.search(message, result.stderr)


def test_cli_invalid_targets_fail_cleanly(tmp_path):
    p, f = _targets_files(tmp_path, "1\n\n3\n", "\n2\n3\n")
    result = _cli(["--targets-preliminary", p, "--targets-final", f, "-m", "rmse", REGRESSION / "submissions.csv",
                   "-o", tmp_path / "b.csv"])
    assert result.exit_code == 1
    assert re.search(r"Error: The test files are not valid \(1 problem\):\n  - .*p.txt, row 3: this sample has a "
                     r"target in both test files", result.stderr)
    assert not (tmp_path / "b.csv").exists()


def test_cli_help_explains_inputs_outputs_and_defaults():
    result = CliRunner().invoke(__import__("srdash.cli", fromlist=["main"]).main, ["predictions", "score", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.output.split())  # undo click's line wrapping
    for expected in ("SUBMISSIONS/team/file", "--targets-preliminary", "--targets-csv", "[default: last]",
                     "[default: 2;", "--shakeup", "1 = best", "listed on stderr", "Repeat to compute several"):
        assert expected in text


def test_cli_escapes_control_characters_in_team_names(tmp_path, six_targets):
    folder = tmp_path / "subs"
    _write(folder / "evil\x1b[31m" / "x.txt", "1\n")
    p, f = _targets_files(tmp_path, "1\n\n", "\n2\n")
    result = _cli(["--targets-preliminary", p, "--targets-final", f, "-m", "mae", folder, "-o", tmp_path / "b.csv"])
    assert result.exit_code == 0
    assert "\x1b" not in result.stderr + result.stdout
    assert "evil\\x1b[31m, x.txt" in result.stderr


# =========================================================================== end to end on real data


def _realdata(relative: str) -> Path:
    path = REALDATA / relative
    if not path.exists():
        pytest.skip(f"real data not available: {path} is absent (see ../shared/realdata/README.md)")
    return path


def test_realdata_tests_skip_cleanly_when_the_folder_is_absent():
    with pytest.raises(pytest.skip.Exception, match=r"real data not available: .*no-such-folder.* is absent"):
        _realdata("no-such-folder/data.tsv.gz")


@pytest.mark.realdata
def test_end_to_end_on_a_real_regression_dataset(tmp_path):
    dataset = _realdata("srbench2022/stage0_pmlb/595_fri_c0_1000_10.tsv.gz")
    sklearn = pytest.importorskip("sklearn")
    from sklearn.dummy import DummyRegressor
    from sklearn.linear_model import LinearRegression, Ridge
    from sklearn.metrics import mean_absolute_error as sk_mae, root_mean_squared_error as sk_rmse
    from sklearn.neighbors import KNeighborsRegressor
    from sklearn.tree import DecisionTreeRegressor

    assert sklearn.__version__
    data = pd.read_csv(dataset, sep="\t")
    X, y = data.drop(columns="target").to_numpy(), data["target"].to_numpy()
    rng = np.random.default_rng(0)
    order = rng.permutation(len(y))
    train, test = order[:600], order[600:]
    is_preliminary = rng.random(test.size) < 0.3
    # Targets as the two test files, written with repr so that they read back exactly.
    lines = [repr(float(v)) for v in y[test]]
    _write(tmp_path / "prelim.txt", "".join(f"{v}\n" if p else "\n" for v, p in zip(lines, is_preliminary)))
    _write(tmp_path / "final.txt", "".join("\n" if p else f"{v}\n" for v, p in zip(lines, is_preliminary)))

    models = {  # team -> submissions in order
        "linear": [LinearRegression(), Ridge(alpha=10.0)],
        "tree": [DecisionTreeRegressor(max_depth=2, random_state=0), DecisionTreeRegressor(max_depth=6,
                                                                                           random_state=0)],
        "knn": [KNeighborsRegressor(n_neighbors=15)],
        "baseline": [DummyRegressor()],
    }
    folder = tmp_path / "submissions"
    expected = {}
    for team, estimators in models.items():
        for i, estimator in enumerate(estimators, start=1):
            prediction = estimator.fit(X[train], y[train]).predict(X[test])
            name = f"{i:02d}.csv" if team == "knn" else f"{i:02d}.txt"
            if team == "knn":  # one team hands in a CSV with ids (= line numbers) in shuffled order
                shuffled = rng.permutation(test.size)
                text = "id,prediction\n" + "".join(f"{j + 1},{float(prediction[j])!r}\n" for j in shuffled)
            else:
                text = "".join(f"{float(v)!r}\n" for v in prediction)
            _write(folder / team / name, text)
            expected[(team, name)] = {
                f"{metric}_{subset}": fn(y[test][mask], prediction[mask])
                for metric, fn in (("rmse", sk_rmse), ("mae", sk_mae))
                for subset, mask in (("preliminary", is_preliminary), ("final", ~is_preliminary))}
    broken = "".join(f"{float(v)!r}\n" for v in y[test] * 0.0).splitlines()
    broken[41] = "nan"
    _write(folder / "broken" / "01.txt", "\n".join(broken) + "\n")

    targets = read_targets(tmp_path / "prelim.txt", tmp_path / "final.txt")
    assert targets.n_samples == test.size
    assert int(targets.mask("preliminary").sum()) == int(is_preliminary.sum())
    result = score_submissions(folder, targets, metric="rmse", extra_metrics=["mae", "r2"], rule="best-preliminary",
                               order="name")

    table = result.submissions.set_index(["team", "submission"])
    for key, values in expected.items():
        for column, value in values.items():
            assert table.loc[key, column] == pytest.approx(value, rel=1e-12), (key, column)
    assert table.loc[("broken", "01.txt"), "reason"] == \
        "row 42: the prediction is NaN ('nan'); predictions must be finite numbers."

    # Leaderboards are sorted best first; the mean predictor is beaten by every real model.
    for board in (result.preliminary_leaderboard, result.final_leaderboard):
        assert board["place"].is_monotonic_increasing
        scored = board.dropna(subset=["score"])
        assert scored["score"].is_monotonic_increasing  # rmse: lower is better
        assert scored["team"].iloc[-1] == "baseline"
        assert board["team"].iloc[-1] == "broken" and pd.isna(board["score"].iloc[-1])
    # The shake-up table agrees with both leaderboards.
    shake = result.shakeup.set_index("team")
    for subset, column in (("preliminary", "preliminary_place"), ("final", "final_place")):
        places = result.leaderboard(subset).set_index("team")["place"]
        assert (shake[column] == places.reindex(shake.index)).all()
    assert (shake["change"] == shake["preliminary_place"] - shake["final_place"]).all()
    assert set(shake.index) == {"linear", "tree", "knn", "baseline", "broken"}

    # The command line gives the same final leaderboard and shake-up.
    cli = _cli(["--targets-preliminary", tmp_path / "prelim.txt", "--targets-final", tmp_path / "final.txt",
                "-m", "rmse", "--rule", "best-preliminary", "--order", "name", folder,
                "-o", tmp_path / "board.csv", "--shakeup", tmp_path / "shake.csv"])
    assert cli.exit_code == 0, cli.stderr
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "shake.csv"),
                                  result.shakeup.astype({"team": str}).reset_index(drop=True),
                                  check_dtype=False)
    assert "broken, 01.txt: row 42: the prediction is NaN" in cli.stderr


def test_the_predictions_package_keeps_every_name_the_module_exported():
    # judging/predictions.py's __all__ before it became a package (issue 36), in its order, and the
    # readers it imported from srdash.io.predictions, which docstrings import from it.
    import srdash.io.predictions as readers
    import srdash.judging.predictions as predictions

    exported = ["RULES", "PredictionResult", "CombinedLeaderboards", "score_submissions", "metric_rules",
                "combine_metrics", "check_combine_rules", "to_runs_table", "OPTION_KEYS", "score_from_options"]
    assert predictions.__all__ == exported
    assert [name for name in exported if not hasattr(predictions, name)] == []
    for name in ("Targets", "ORDERS", "SUBSETS", "list_submissions", "read_targets", "read_targets_csv"):
        assert getattr(predictions, name) is getattr(readers, name)
    assert predictions.RULES == ("last", "best-preliminary", "selected")
