"""Model evaluation on data (srdash.judging.evaluation): metrics, the degenerate-prediction rule, checks of supplied values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score

from srdash.io.datasets import load_dataset_table, write_property_datasets
from srdash.errors import SrdashError
from srdash.judging.evaluation import (METRICS, PREDICTION_STATUSES, Evaluation, evaluate_runs, merge_metrics,
                               merge_values, score_predictions)

ROOT = Path(__file__).resolve().parents[1]
STAGE1 = ROOT / ".." / "shared" / "realdata" / "srbench2022" / "stage1"


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    return write_property_datasets(tmp_path_factory.mktemp("evaluation"), seed=5)


# ---------------------------------------------------------------------------- metrics


def test_metrics_match_scikit_learn():
    rng = np.random.default_rng(0)
    y = rng.normal(size=50)
    predictions = y + rng.normal(scale=[[0.1], [0.5], [2.0]], size=(3, 50))
    scores = score_predictions(y, predictions)
    for row, prediction in zip(scores.itertuples(), predictions):
        assert row.r2 == pytest.approx(r2_score(y, prediction))
        assert row.rmse == pytest.approx(np.sqrt(mean_squared_error(y, prediction)))
        assert row.mae == pytest.approx(mean_absolute_error(y, prediction))
    assert scores["status"].tolist() == ["ok"] * 3


def test_a_hand_computed_example():
    # y = (1, 2, 3, 4), mean 2.5, total sum of squares 5; prediction (1.5, 2, 3, 3.5):
    # squared errors 0.25 + 0 + 0 + 0.25 = 0.5 -> R2 = 1 - 0.5/5 = 0.9, RMSE = sqrt(0.5/4), MAE = 1/4
    row = score_predictions([1, 2, 3, 4], [1.5, 2, 3, 3.5]).iloc[0]
    assert (row.r2, row.rmse, row.mae) == (pytest.approx(0.9), pytest.approx(np.sqrt(0.125)), 0.25)


@pytest.mark.parametrize("metric", list(METRICS))
def test_metrics_do_not_depend_on_the_order_of_rows_or_models(metric):
    rng = np.random.default_rng(1)
    y = rng.normal(size=30)
    predictions = y + rng.normal(size=(4, 30))
    rows, models = rng.permutation(30), rng.permutation(4)
    direct = score_predictions(y, predictions)[metric].to_numpy()
    permuted = score_predictions(y[rows], predictions[models][:, rows])[metric].to_numpy()
    np.testing.assert_allclose(permuted, direct[models])
    # scoring the models one at a time gives the same as scoring them together
    alone = [score_predictions(y, p)[metric].iloc[0] for p in predictions]
    np.testing.assert_allclose(alone, direct)


@pytest.mark.parametrize("prediction, status", [
    ([1.0, np.nan, 3.0], "non_finite"),
    ([1.0, np.inf, 3.0], "non_finite"),
    ([1.0, -np.inf, 3.0], "non_finite"),
    ([1e200, 1.0, 1.0], "non_finite"),  # finite, but the squared error overflows
    ([2.0, 2.0, 2.0], "constant"),
    (2.0, "constant"),  # a scalar is a constant prediction
])
def test_degenerate_predictions_get_the_worst_value_of_every_metric(prediction, status):
    row = score_predictions([1.0, 2.0, 3.5], prediction).iloc[0]
    assert (row.r2, row.rmse, row.mae, row.status) == (-np.inf, np.inf, np.inf, status)
    assert status in PREDICTION_STATUSES


def test_constant_target_uses_the_2022_variance_floor():
    # y_var == 0 -> 1e-9 as the organisers' accuracy(): a perfect model gets 1, any error is hugely negative
    perfect, off = score_predictions([2.0, 2.0], [[2.0, 2.0 + 1e-12], [2.0, 3.0]])["r2"]
    assert perfect == pytest.approx(1.0, abs=1e-3)
    assert off == pytest.approx(1 - 0.5 / 1e-9)


@pytest.mark.parametrize("y, prediction, message", [
    ([], [], "The target must be a non-empty 1-d array"),
    ([1.0, np.nan], [1.0, 2.0], "The target has non-finite values"),
    ([1.0, 2.0], [1.0, 2.0, 3.0], "Each prediction needs 2 values"),
    ([1.0, 2.0], np.zeros((2, 2, 2)), "predictions must have shape"),
])
def test_invalid_inputs_are_refused(y, prediction, message):
    with pytest.raises(SrdashError, match=message):
        score_predictions(y, prediction)


# ---------------------------------------------------------------------------- evaluating runs


def test_evaluate_runs_scores_each_run_on_each_partition(table):
    runs = pd.DataFrame({
        "method": ["truth", "truth", "refused", "missing", "constant", "lost"],
        "dataset": ["exact_easy", "extrapolation", "exact_easy", "exact_easy", "exact_easy", "unknown"],
        "run": [0, 0, 1, 2, 3, 0],
        "model": [table["exact_easy"].truth, table["extrapolation"].truth, "open('x')", None, "x3 - x3 + 2", "x1"],
    })
    evaluation = evaluate_runs(runs, table)
    metrics = evaluation.metrics.set_index(["method", "dataset", "partition"]).sort_index()
    assert metrics.loc[("truth", "exact_easy", "test"), "r2"] == pytest.approx(1.0)
    # every partition but train by default: extrapolation has test and extrapolation
    assert set(metrics.loc[("truth", "extrapolation")].index) == {"test", "extrapolation"}
    assert metrics.loc[("refused", "exact_easy", "test"), "status"] == "rejected"
    assert metrics.loc[("missing", "exact_easy", "test"), "status"] == "no_model"
    assert metrics.loc[("constant", "exact_easy", "test"), "status"] == "constant"
    worst = metrics[metrics["status"] != "ok"]
    assert (worst["r2"] == -np.inf).all() and (worst["rmse"] == np.inf).all()
    problems = evaluation.problems.set_index("method")
    assert problems.loc["refused", "kind"] == "rejected" and "worst value" in problems.loc["refused", "detail"]
    assert "not in the dataset table" in problems.loc[problems.index.isna()].iloc[0]["detail"]
    wide = evaluation.wide()
    assert {"r2_test", "rmse_test", "mae_test", "r2_extrapolation"} <= set(wide.columns)


def test_partitions_option_and_train_partition(table):
    runs = pd.DataFrame({"method": "a", "dataset": "noise_0", "model": [table["noise_0"].truth]})
    evaluation = evaluate_runs(runs, table, partitions=["train", "missing"])
    assert evaluation.metrics["partition"].tolist() == ["train"]
    assert evaluation.metrics["r2"].iloc[0] == pytest.approx(1.0)


def test_unreadable_data_is_a_problem_not_a_crash(tmp_path):
    pd.DataFrame({"x1": ["a", "b"], "y": [1.0, 2.0]}).to_csv(tmp_path / "d_test.csv", index=False)
    bad = load_dataset_table({"datasets": [{"name": "d", "property": "none", "files": {"test": "d_test.csv"},
                                            "target": "y"}]}, root=tmp_path)
    evaluation = evaluate_runs(pd.DataFrame({"method": "a", "dataset": "d", "model": ["x1"]}), bad)
    assert evaluation.metrics.empty
    assert evaluation.problems["kind"].tolist() == ["no_data"]
    assert "must hold a number in every cell" in evaluation.problems["detail"].iloc[0]


def test_evaluate_runs_needs_the_model_column(table):
    with pytest.raises(SrdashError, match=r"no column\(s\) 'model'. Columns: 'method', 'dataset'"):
        evaluate_runs(pd.DataFrame({"method": ["a"], "dataset": ["d"]}), table)


# ---------------------------------------------------------------------------- supplied versus recomputed


def _evaluation(r2) -> Evaluation:
    return Evaluation(pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "run": 0, "partition": "test",
                                    "r2": r2, "rmse": 1.0, "mae": 1.0, "status": "ok", "detail": ""}),
                      pd.DataFrame())


def test_a_mismatch_is_reported_and_the_supplied_value_kept():
    runs = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "run": 0, "r2_test": [0.9, 0.5, np.nan]})
    merged = merge_metrics(runs, _evaluation([0.9004, 0.7, -np.inf]))
    assert merged.runs["r2_test"].tolist() == [0.9004, 0.7, -np.inf]  # recomputed, missing supplied filled
    assert merged.runs["r2_test_supplied"].tolist()[:2] == [0.9, 0.5]
    assert merged.problems[["kind", "method"]].values.tolist() == [["metric_mismatch", "b"]]
    assert "supplied 0.5, recomputed 0.7" in merged.problems["detail"].iloc[0]
    assert runs["r2_test"].tolist()[:2] == [0.9, 0.5]  # the input is not modified
    # prefer the supplied values: the mismatch is still reported
    kept = merge_metrics(runs, _evaluation([0.9004, 0.7, -np.inf]), prefer="supplied")
    assert kept.runs["r2_test"].tolist() == [0.9, 0.5, -np.inf]
    assert "using the supplied value" in kept.problems["detail"].iloc[0]


def test_equal_infinities_agree_and_new_columns_are_added():
    runs = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "run": 0, "r2_test": [-np.inf, 0.1, 0.2]})
    merged = merge_metrics(runs, _evaluation([-np.inf, 0.1, 0.2]))
    assert merged.problems.empty
    assert {"rmse_test", "mae_test"} <= set(merged.runs.columns)


def test_merge_options_are_checked():
    with pytest.raises(SrdashError, match="The 'prefer' option must be one of 'recomputed', 'supplied'. Got 'mine'."):
        merge_values(pd.DataFrame({"method": ["a"], "dataset": ["d"]}), pd.DataFrame(), prefer="mine")


# ---------------------------------------------------------------------------- the real 2022 data


@pytest.mark.realdata
def test_shipped_ground_truths_score_r2_one_on_the_noiseless_2022_datasets():
    if not STAGE1.is_dir():
        pytest.skip(f"the SRBench 2022 stage-1 data is not at {STAGE1} (see ../shared/realdata/README.md)")
    stage1 = load_dataset_table("srbench2022_synthetic", root=STAGE1)
    with_truth = [spec for spec in stage1 if spec.truth is not None]
    runs = pd.DataFrame({"method": "truth", "dataset": [s.name for s in with_truth],
                         "model": [s.truth for s in with_truth]})
    metrics = evaluate_runs(runs, stage1, partitions=["train", "test"]).metrics
    assert (metrics["status"] == "ok").all()
    noiseless = metrics[metrics["dataset"].map({s.name: s.noise_level for s in stage1}) == 0]
    # exact_formula_* (4), localopt_* (3) and noise_base, train and test
    assert len(noiseless) == 16
    np.testing.assert_allclose(noiseless["r2"], 1.0, atol=1e-9)
    extrapolating = metrics["dataset"].str.startswith("extrapolation_")
    noisy = metrics[(metrics["partition"] == "test") & ~metrics.index.isin(noiseless.index) & ~extrapolating]
    levels = noisy["dataset"].map({s.name: s.noise_level for s in stage1})
    np.testing.assert_allclose(noisy["r2"], 1 - levels, atol=0.05)
    # The erf ground truth of extrapolation_* (noise 2.5, 5, 10 % of the training target's
    # variance): on the training range (-15 <= x <= 15) R2 = 1 - noise_level (measured 0.981,
    # 0.962, 0.925). On the test range (15 < x <= 40) erf is ~1 and the target varies little, so
    # R2 is low (0.46, 0.29, 0.16) although the error is the same noise: equal RMSE on both.
    extrapolation = metrics[extrapolating].set_index(["dataset", "partition"])
    assert sorted(extrapolation.index.unique("dataset")) == ["extrapolation_easy", "extrapolation_hard",
                                                              "extrapolation_medium"]
    train = extrapolation.xs("train", level="partition")
    np.testing.assert_allclose(train["r2"], 1 - train.index.map({s.name: s.noise_level for s in stage1}), atol=0.03)
    test = extrapolation.xs("test", level="partition")
    np.testing.assert_allclose(test["rmse"], train["rmse"].loc[test.index], rtol=0.1)
