"""Tests of srdash.io.loading: every input format, the aliases and every validation error."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest

from srdash.errors import Problem, SrdashError, ValidationError
from srdash.io.loading import Results, load_results

DATA = Path(__file__).parent / "data" / "loading"


def expected_runs_table() -> pd.DataFrame:
    """The canonical table of tests/data/loading/runs.* written out by hand.

    Sorted by (dataset, method, run); the empty cells of runs.csv (B/d2/1's
    model, A/d2/0's property, A/d2/1's r2_test) are missing values.
    """
    return pd.DataFrame({
        "method": ["A", "A", "B", "B", "A", "A", "B", "B"],
        "dataset": ["d1", "d1", "d1", "d1", "d2", "d2", "d2", "d2"],
        "run": np.array([0, 1, 0, 1, 0, 1, 0, 1], dtype="int64"),
        "model": ["x1 + x2", "x1 + 1.01*x2", "x1*x2", "min(x1, x2) + 0.1", "sin(x3)", "x3**2", "exp(x1)", None],
        "r2_test": [0.91, 0.9, 0.75, 0.76, 0.55, np.nan, -0.25, 0.1],
        "property": [1.0, 0.0, 0.0, 0.0, np.nan, 0.5, 0.0, 0.0],
        "team": ["alpha", "alpha", "beta", "beta", "alpha", "alpha", "beta", "beta"],
        "feature_names": ["x1 x2"] * 4 + ["x1 x2 x3"] * 4,
    })


def base_frame(**changes) -> pd.DataFrame:
    frame = pd.DataFrame({
        "method": ["A", "A", "B"],
        "dataset": ["d1", "d1", "d1"],
        "run": [0, 1, 0],
        "model": ["x1", "x1 + 1", "x1*2"],
        "r2_test": [0.9, 0.8, 0.7],
    })
    return frame.assign(**changes)


def messages(error: ValidationError) -> list[str]:
    return [str(p) for p in error.problems]


# --------------------------------------------------------------------------- formats


def test_csv_parquet_and_json_folder_give_the_same_canonical_table(tmp_path):
    parquet = tmp_path / "runs.parquet"
    pd.read_csv(DATA / "runs.csv").to_parquet(parquet)  # numbers typed, as a real Parquet file
    expected = expected_runs_table()
    for source in (DATA / "runs.csv", parquet, DATA / "runs_json"):
        results = load_results(source)
        pdt.assert_frame_equal(results.table, expected, check_dtype=False, obj=str(source))
        assert results.table["run"].dtype == np.int64
        assert results.table["r2_test"].dtype == np.float64
        assert dict(results.features) == {"d1": ("x1", "x2"), "d2": ("x1", "x2", "x3")}


def test_the_three_formats_agree_exactly_with_each_other(tmp_path):
    parquet = tmp_path / "runs.parquet"
    pd.read_csv(DATA / "runs.csv").to_parquet(parquet)
    csv_table = load_results(DATA / "runs.csv").table
    pdt.assert_frame_equal(load_results(parquet).table, csv_table)
    pdt.assert_frame_equal(load_results(DATA / "runs_json").table, csv_table)


def test_a_dataframe_gives_the_same_table_and_is_not_modified():
    frame = pd.read_csv(DATA / "runs.csv")
    before = frame.copy()
    results = load_results(frame)
    pdt.assert_frame_equal(results.table, load_results(DATA / "runs.csv").table)
    pdt.assert_frame_equal(frame, before)
    assert results.sources == ()


def test_sources_list_every_file_read():
    assert load_results(DATA / "runs.csv", datasets=DATA / "datasets.csv").sources == (
        str(DATA / "runs.csv"), str(DATA / "datasets.csv"))
    json_sources = load_results(DATA / "runs_json").sources
    assert len(json_sources) == 8
    assert json_sources[0] == str(DATA / "runs_json" / "A_d1_0.json")
    assert json_sources[-1] == str(DATA / "runs_json" / "d2" / "B_d2_1.json")


def test_results_is_frozen():
    results = load_results(base_frame())
    assert isinstance(results, Results)
    with pytest.raises(AttributeError):
        results.table = None
    with pytest.raises(TypeError):
        results.features["d1"] = ("x1",)
    given = {"d1": ["x1", "x2"]}
    built = Results(results.table, given, ["a.csv"])
    given["d1"].append("x3")
    assert built.features["d1"] == ("x1", "x2") and built.sources == ("a.csv",)


def test_rows_are_sorted_by_dataset_method_run_with_a_fresh_index():
    frame = base_frame(dataset=["d2", "d1", "d1"]).iloc[::-1].set_index(pd.Index([7, 3, 5]))
    table = load_results(frame).table
    assert table[["dataset", "method", "run"]].values.tolist() == [["d1", "A", 1], ["d1", "B", 0], ["d2", "A", 0]]
    pdt.assert_index_equal(table.index, pd.RangeIndex(3))


def test_permuting_the_input_rows_changes_nothing():
    frame = pd.read_csv(DATA / "runs.csv")
    reference = load_results(frame).table
    for seed in range(3):
        shuffled = frame.sample(frac=1, random_state=seed)
        pdt.assert_frame_equal(load_results(shuffled).table, reference)


# --------------------------------------------------------------------------- columns


def test_srbench_aliases_become_canonical_names():
    frame = pd.DataFrame({"algorithm": ["A"], "dataset": ["d"], "random_state": [11284],
                          "symbolic_model": ["x1"], "model_size": [3], "r2_test": [0.5]})
    table = load_results(frame).table
    assert list(table.columns) == ["method", "dataset", "run", "model", "components", "r2_test"]
    assert table.loc[0, "run"] == 11284 and table.loc[0, "components"] == 3.0


@pytest.mark.parametrize("alias", ["run", "random_state", "seed", "trial"])
def test_every_run_alias_is_accepted(alias):
    frame = base_frame().rename(columns={"run": alias})
    assert load_results(frame).table["run"].tolist() == [0, 1, 0]


def test_two_columns_meaning_the_same_canonical_column_are_an_error():
    frame = base_frame().rename(columns={"run": "seed"}).assign(trial=[0, 1, 2])
    with pytest.raises(ValidationError, match=r"column 'trial': the columns 'seed' and 'trial' all mean 'run'"):
        load_results(frame)


def test_a_missing_run_column_means_run_0_for_every_row():
    table = load_results(base_frame(method=["A", "B", "C"]).drop(columns="run")).table
    assert table["run"].tolist() == [0, 0, 0]
    assert table["run"].dtype == np.int64


def test_model_may_be_absent_when_components_are_given():
    frame = base_frame().drop(columns="model").assign(components=[3, 5.0, 7])
    table = load_results(frame).table
    assert "model" not in table.columns
    assert table["components"].tolist() == [3.0, 5.0, 7.0]


def test_the_real_srbench_black_box_layout_loads():
    # The header of ../shared/realdata/srbench_results/blackbox_results.csv, two rows.
    frame = pd.DataFrame({"algorithm": ["*AFP", "*AFP"], "dataset": ["1027_ESL", "1028_SWD"],
                          "rmse_test": [0.60, 0.66], "log_mse_test": [0.31, 0.36], "r2_test": [0.83, 0.31],
                          "model_size": [20.5, 47.0], "training time (s)": [1210.9, 3017.6]})
    table = load_results(frame).table
    assert list(table.columns) == ["method", "dataset", "run", "components", "rmse_test", "log_mse_test",
                                   "r2_test", "training time (s)"]


def test_missing_metric_values_are_nan_and_rows_are_kept():
    frame = base_frame(r2_test=[0.9, None, ""], rmse=["nan", "N/A", "0.5"])
    table = load_results(frame).table
    assert len(table) == 3
    assert table["r2_test"].isna().tolist() == [False, True, True]
    assert table["rmse"].isna().tolist() == [True, True, False]


def test_a_missing_model_is_kept_as_missing():
    table = load_results(base_frame(model=["x1", None, "  "])).table
    assert len(table) == 3
    assert table["model"].isna().tolist() == [False, True, True]


def test_a_model_with_an_unknown_variable_is_not_a_loading_problem():
    datasets = pd.DataFrame({"dataset": ["d1"], "features": ["x1"]})
    table = load_results(base_frame(model=["x1", "x7 + zzz", "__import__('os')"]), datasets=datasets).table
    assert table["model"].tolist() == ["x1", "x7 + zzz", "__import__('os')"]


def test_free_text_and_known_text_columns_are_kept_as_text():
    frame = base_frame(comment=["good", "bad", None], team=["1", "2", "3"])
    table = load_results(frame).table
    assert table["comment"].tolist()[:2] == ["good", "bad"] and pd.isna(table.loc[2, "comment"])
    assert table["team"].tolist() == ["1", "2", "3"]  # a known text column stays text


def test_unknown_numeric_columns_are_metrics():
    table = load_results(base_frame(my_score=["1", "2.5", "1e-3"])).table
    assert table["my_score"].dtype == np.float64
    assert table["my_score"].tolist() == [1.0, 2.5, 0.001]


# --------------------------------------------------------------------------- features


def test_features_come_from_the_dataset_table():
    results = load_results(base_frame(), datasets=DATA / "datasets.csv")
    assert dict(results.features) == {"d1": ("x1", "x2"), "d2": ("x1", "x2", "x3")}


def test_features_are_empty_when_unknown():
    assert dict(load_results(base_frame()).features) == {}


def test_json_feature_names_may_be_a_list_or_a_string(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(
        {"algorithm": "A", "dataset": "d1", "random_state": 0, "symbolic_model": "x1", "features": ["x1", "x2"]}))
    (tmp_path / "b.json").write_text(json.dumps(
        {"algorithm": "B", "dataset": "d1", "random_state": 0, "symbolic_model": "x2", "features": "x1 x2"}))
    assert dict(load_results(tmp_path).features) == {"d1": ("x1", "x2")}


def test_conflicting_feature_lists_are_an_error():
    frame = base_frame(features=["x1 x2", "x1 x2", "x1 x3"])
    with pytest.raises(ValidationError, match=re.escape(
            "<DataFrame>, row 3, column 'features': the feature names 'x1 x3' of dataset 'd1' differ "
            "from 'x1 x2' given at row 1")):
        load_results(frame)


def test_features_conflicting_with_the_dataset_table_are_an_error():
    with pytest.raises(ValidationError, match=re.escape(
            f"row 2 of '{DATA / 'datasets.csv'}'")) as caught:
        load_results(base_frame(dataset=["d2"] * 3, features=["x1 x2"] * 3), datasets=DATA / "datasets.csv")
    assert len(caught.value.problems) == 3


def test_dataset_table_problems_are_all_reported():
    datasets = pd.DataFrame({"dataset": ["d1", "", "d1", "d3"], "features": ["x1", "x2", "x1", "x1 x1"]})
    with pytest.raises(ValidationError) as caught:
        load_results(base_frame(), datasets=datasets)
    assert messages(caught.value) == [
        "<DataFrame>, row 2, column 'dataset': is empty; every row needs a dataset name.",
        "<DataFrame>, row 3, column 'dataset': dataset 'd1' is already listed at row 1; list each dataset once.",
        "<DataFrame>, row 4, column 'features': the feature name(s) 'x1' appear more than once.",
    ]


def test_a_dataset_table_without_the_required_columns_lists_the_columns_present():
    with pytest.raises(ValidationError, match=re.escape(
            "column 'features': the dataset table needs columns 'dataset' and 'features'. "
            "Columns present: 'dataset', 'names'.")):
        load_results(base_frame(), datasets=pd.DataFrame({"dataset": ["d1"], "names": ["x1"]}))


# --------------------------------------------------------------------------- validation errors


def test_missing_required_columns_are_listed_with_the_columns_present():
    frame = base_frame().drop(columns=["method", "model"])
    with pytest.raises(ValidationError) as caught:
        load_results(frame)
    assert messages(caught.value) == [
        "<DataFrame>, column 'method': the required column is missing (accepted names: 'method', "
        "'algorithm'). Columns present: 'dataset', 'run', 'r2_test'.",
        "<DataFrame>, column 'model': the input needs a 'model' column (or 'symbolic_model'), a "
        "'components' column (or 'model_size') or a 'simplicity' column; none is present. "
        "Columns present: 'dataset', 'run', 'r2_test'.",
    ]


def test_a_missing_dataset_column_is_reported():
    with pytest.raises(ValidationError, match=r"column 'dataset': the required column is missing"):
        load_results(base_frame().drop(columns="dataset"))


def test_duplicate_keys_name_both_rows():
    frame = base_frame(run=[0, 1, 0], method=["A", "A", "A"])
    with pytest.raises(ValidationError, match=re.escape(
            "<DataFrame>, row 3: duplicate (method, dataset, run) = ('A', 'd1', 0): row 1 has the same key")):
        load_results(frame)


def test_duplicates_without_a_run_column_suggest_adding_one():
    frame = base_frame(method=["A", "A", "B"]).drop(columns="run")
    with pytest.raises(ValidationError, match=r"row 2: duplicate .* The input has no run column, so every "
                                              r"row is run 0: add a 'run' column"):
        load_results(frame)


def test_duplicate_json_runs_name_both_files(tmp_path):
    run = {"algorithm": "A", "dataset": "d1", "random_state": 3, "symbolic_model": "x1", "r2_test": 0.5}
    (tmp_path / "first.json").write_text(json.dumps(run))
    (tmp_path / "second.json").write_text(json.dumps(run))
    with pytest.raises(ValidationError, match=re.escape(
            f"{tmp_path / 'second.json'}: duplicate (method, dataset, run) = ('A', 'd1', 3): "
            f"file '{tmp_path / 'first.json'}' has the same key")):
        load_results(tmp_path)


@pytest.mark.parametrize("column", ["method", "dataset"])
def test_an_empty_method_or_dataset_is_an_error(column):
    frame = base_frame(**{column: ["x", " ", None]})
    with pytest.raises(ValidationError) as caught:
        load_results(frame)
    assert messages(caught.value) == [
        f"<DataFrame>, row 2, column '{column}': is empty; every row needs a {column}.",
        f"<DataFrame>, row 3, column '{column}': is empty; every row needs a {column}.",
    ]


def test_a_non_numeric_metric_names_value_row_and_column():
    with pytest.raises(ValidationError, match=re.escape(
            "<DataFrame>, row 2, column 'r2_test': 'abc' is not a number; a metric column holds numbers "
            "(empty means missing).")):
        load_results(base_frame(r2_test=[0.5, "abc", 0.7]))


def test_a_known_metric_column_must_be_numeric_even_if_no_value_is():
    with pytest.raises(ValidationError) as caught:
        load_results(base_frame(property=["yes", "no", "yes"]))
    assert len(caught.value.problems) == 3


def test_a_mostly_numeric_unknown_column_is_a_metric_with_a_bad_value():
    with pytest.raises(ValidationError, match=r"row 3, column 'mae': '0,5' is not a number"):
        load_results(base_frame(mae=["0.1", "0.2", "0,5"]))


@pytest.mark.parametrize("value, shown", [("1.5", "'1.5'"), (2.5, "2.5"), ("first", "'first'")])
def test_a_non_integer_run_is_an_error(value, shown):
    with pytest.raises(ValidationError, match=re.escape(
            f"<DataFrame>, row 2, column 'run': {shown} is not an integer; 'run' needs a whole number")):
        load_results(base_frame(run=[0, value, 2]))


def test_integral_floats_and_strings_are_valid_runs():
    assert load_results(base_frame(run=[0.0, "1", " 2 "])).table["run"].tolist() == [0, 1, 2]


def test_an_empty_run_is_an_error():
    with pytest.raises(ValidationError, match=r"row 3, column 'run': is empty; 'run' needs a whole number"):
        load_results(base_frame(run=[0, 1, None]))


@pytest.mark.parametrize("value", [0, -3, "-1.5", np.inf])  # -1: SRBench's "not counted", read as unknown
def test_components_must_be_positive(value):
    frame = base_frame().drop(columns="model").assign(model_size=[1, value, 2])
    with pytest.raises(ValidationError, match=r"row 2, column 'model_size': .* is not a finite number >= 1; "
                                              r"'components' counts the nodes of the model"):
        load_results(frame)


def test_non_numeric_components_are_an_error():
    frame = base_frame(components=[1, "many", 2])
    with pytest.raises(ValidationError, match=r"row 2, column 'components': 'many' is not a number"):
        load_results(frame)


def test_several_problems_are_reported_at_once():
    # tests/data/loading/many_problems.csv, by row (1-based, header excluded):
    #  2: same (A, d1, 0) as row 1        3: empty method       4: empty dataset
    #  5: run 1.5                          6: model_size -2      7: model_size 0
    #  8: r2_test '0.7%'                  11: model_size 'big'
    # Rows 9 and 10 only have missing metrics ('' and 'n/a'), which is fine.
    path = DATA / "many_problems.csv"
    with pytest.raises(ValidationError) as caught:
        load_results(path)
    error = caught.value
    assert len(error.problems) == 8
    assert [(p.row, p.column) for p in error.problems] == [
        (2, None), (3, "algorithm"), (4, "dataset"), (5, "seed"), (6, "model_size"), (7, "model_size"),
        (8, "r2_test"), (11, "model_size")]
    assert all(p.source == str(path) for p in error.problems)
    assert str(error).startswith(f"The results in {path} are not valid (8 problems):")
    assert "'0.7%' is not a number" in str(error)


def test_bad_json_files_are_all_reported_by_file_name():
    folder = DATA / "bad_json"
    with pytest.raises(ValidationError) as caught:
        load_results(folder)
    problems = caught.value.problems
    assert [Path(p.source).name for p in problems] == ["a_truncated.json", "b_list.json", "c_text_metric.json"]
    assert problems[0].message.startswith("is not a readable JSON file")
    assert "must hold one JSON object (one run" in problems[1].message and "got a list" in problems[1].message
    assert problems[2] == Problem(str(folder / "c_text_metric.json"), None, "r2_test",
                                  "'very good' is not a number; a metric column holds numbers (empty means missing).")


def test_a_header_with_the_same_name_twice_is_an_error(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("method,dataset,run,model,r2_test,r2_test\nA,d1,0,x1,0.5,0.6\n")
    with pytest.raises(ValidationError, match=r"column 'r2_test': the column name appears 2 times in the header"):
        load_results(path)


def test_an_input_without_rows_is_an_error(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("method,dataset,run,model,r2_test\n")
    with pytest.raises(ValidationError, match=r"empty.csv: has no data rows"):
        load_results(path)


# --------------------------------------------------------------------------- unreadable input


def test_a_missing_path_is_a_clear_error(tmp_path):
    with pytest.raises(SrdashError, match=r"does not exist\. Give a \.csv or \.tsv file"):
        load_results(tmp_path / "nope.csv")


def test_an_unknown_extension_is_a_clear_error(tmp_path):
    path = tmp_path / "results.xlsx"
    path.write_bytes(b"PK")
    with pytest.raises(SrdashError, match=r"results.xlsx': unknown extension\. Give a \.csv or \.tsv"):
        load_results(path)


def test_an_empty_folder_is_a_clear_error(tmp_path):
    with pytest.raises(SrdashError, match=r"contains no \.json result files"):
        load_results(tmp_path)


def test_an_unreadable_parquet_file_is_a_clear_error(tmp_path):
    path = tmp_path / "broken.parquet"
    path.write_bytes(b"not parquet at all")
    with pytest.raises(SrdashError, match=r"Cannot read the results file '.*broken.parquet'"):
        load_results(path)


def test_an_empty_csv_file_is_a_clear_error(tmp_path):
    path = tmp_path / "blank.csv"
    path.write_text("")
    with pytest.raises(SrdashError, match=r"blank.csv': it is empty"):
        load_results(path)


def test_a_source_of_another_type_is_refused():
    with pytest.raises(SrdashError, match=r"must be a path or a pandas DataFrame\. Got list\."):
        load_results([{"method": "A"}])


def test_a_byte_order_mark_is_ignored(tmp_path):
    path = tmp_path / "excel.csv"
    path.write_bytes("method,dataset,model\nA,d1,x1\n".encode("utf-8-sig"))
    assert list(load_results(path).table.columns) == ["method", "dataset", "run", "model"]


def test_tsv_files_are_read(tmp_path):
    path = tmp_path / "runs.tsv"
    pd.read_csv(DATA / "runs.csv").to_csv(path, sep="\t", index=False)
    pdt.assert_frame_equal(load_results(path).table, load_results(DATA / "runs.csv").table)
