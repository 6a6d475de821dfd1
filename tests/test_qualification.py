"""The qualification stage (srdash.judging.qualification): head to head against LinearRegression."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split

from srdash.errors import SrdashError, ValidationError
from srdash.judging.evaluation import score_predictions
from srdash.judging.qualification import (canonical_results, evaluate_qualification_models, filter_qualified,
                                  fit_baseline, qualification_split, qualify, read_qualification_data)

ROOT = Path(__file__).resolve().parents[1]
PMLB = ROOT / ".." / "shared" / "realdata" / "srbench2022" / "stage0_pmlb"
LR = "LinearRegression"


def golden() -> pd.DataFrame:
    """Two datasets x two runs. By hand (R2 rounded to 3 decimals; a missing run is a loss):

    method  d1/0          d1/1          d2/0          d2/1          W T L   per-dataset median    rank diff
    LR      .700          .600          .500          .400                  d1 .650, d2 .450
    good    .800 win      .600 tie      .5004->.500 tie .900 win    2 2 0   d1 .700 >, d2 .700 >  (+1 +1)/2 = +1
    mixed   .900 win      .100 loss     .600 win      .300 loss     2 0 2   d1 .500 <, d2 .450 =  (-1 + 0)/2 = -.5
    partial .990 win      (missing)     .990 win      (missing)     2 0 2   d1 median(.99,-inf) = -inf <,
                                                                            d2 -inf <             (-1 -1)/2 = -1
    flat    .000 loss ... (all four)                                0 0 4                         -1
    rule 'wins' (wins > losses): good qualifies; mixed (2 = 2), partial (2 = 2), flat do not.
    rule 'mean-rank' (> 0): good only.
    """
    r2 = {LR: [0.7, 0.6, 0.5, 0.4], "good": [0.8, 0.6, 0.5004, 0.9], "mixed": [0.9, 0.1, 0.6, 0.3],
          "partial": [0.99, None, 0.99, None], "flat": [0.0, 0.0, 0.0, 0.0]}
    rows = []
    for method, values in r2.items():
        for (dataset, run), value in zip([("d1", 0), ("d1", 1), ("d2", 0), ("d2", 1)], values):
            if value is not None:
                rows.append({"algorithm": method, "dataset": dataset, "random_state": run, "r2_test": value})
    return pd.DataFrame(rows)


def test_golden_head_to_head_by_hand():
    q = qualify(golden())
    table = q.table.set_index("method")
    assert table.loc["good", ["wins", "ties", "losses"]].tolist() == [2, 2, 0]
    assert table.loc["mixed", ["wins", "ties", "losses"]].tolist() == [2, 0, 2]
    assert table.loc["partial", ["wins", "ties", "losses"]].tolist() == [2, 0, 2]
    assert table.loc["flat", ["wins", "ties", "losses"]].tolist() == [0, 0, 4]
    assert table["mean_rank_difference"].to_dict() == {"good": 1.0, "mixed": -0.5, "partial": -1.0, "flat": -1.0}
    assert q.qualified == ("good",)
    assert set(q.not_qualified) == {"mixed", "partial", "flat"}
    assert "wins > losses" in q.rule and "rounded to 3 decimals" in q.rule
    assert q.problems["kind"].tolist() == ["missing_run", "missing_run"]
    assert LR not in set(q.table["method"])
    h2h = q.head_to_head.set_index(["method", "dataset", "run"])
    assert h2h.loc[("good", "d2", 0), "outcome"] == "tie"  # 0.5004 rounds to 0.500
    assert h2h.loc[("partial", "d1", 1), "r2"] == -np.inf


def test_mean_rank_rule_and_rounding_options():
    assert qualify(golden(), rule="mean-rank").qualified == ("good",)
    # with 4 decimals 0.5004 beats 0.5: good wins 3, ties 1
    table = qualify(golden(), decimals=4).table.set_index("method")
    assert table.loc["good", ["wins", "ties"]].tolist() == [3, 1]


def test_permuting_rows_changes_nothing():
    shuffled = golden().sample(frac=1, random_state=3)
    pd.testing.assert_frame_equal(qualify(shuffled).table, qualify(golden()).table)


def test_baseline_rows_replace_those_of_the_results():
    results = golden()
    better_baseline = pd.DataFrame({"method": LR, "dataset": ["d1", "d1", "d2", "d2"], "run": [0, 1, 0, 1],
                                    "r2_test": 0.95})
    # against 0.95 everywhere: good and mixed lose all four, partial wins 2 (0.99) and loses 2 (missing)
    q = qualify(results, baseline_rows=better_baseline)
    assert q.qualified == ()
    assert q.table.set_index("method").loc["partial", ["wins", "losses"]].tolist() == [2, 2]


def test_runs_without_a_baseline_result_are_reported():
    results = pd.concat([golden(), pd.DataFrame({"algorithm": ["good"], "dataset": ["d3"], "random_state": [0],
                                                 "r2_test": [0.5]})])
    problems = qualify(results).problems
    assert problems.loc[problems["kind"] == "no_baseline", "dataset"].tolist() == ["d3"]


@pytest.mark.parametrize("frame, message", [
    (pd.DataFrame({"method": ["a"], "r2_test": [0.5]}), r"column 'dataset': the required column is missing"),
    (pd.DataFrame({"method": ["a"], "dataset": ["d"], "r2_test": ["high"]}),
     r"row 1, column 'r2_test': 'high' is not a number"),
    (pd.DataFrame({"method": ["a", "a"], "dataset": "d", "run": [0, 0], "r2_test": 0.5}),
     r"row 2: duplicate \(method, dataset, run\) = \('a', 'd', 0\)"),
    (pd.DataFrame({"method": ["a"], "dataset": ["d"], "run": [0.5], "r2_test": [0.1]}),
     r"row 1, column 'run': 0.5 is not an integer"),
    (pd.DataFrame({"method": ["a"], "algorithm": ["b"], "dataset": ["d"], "r2_test": [0.1]}),
     r"the columns 'method' and 'algorithm' all mean 'method'"),
])
def test_invalid_results_are_reported_with_row_and_column(frame, message):
    with pytest.raises(ValidationError, match=message):
        qualify(frame)


def test_every_problem_is_reported_at_once():
    frame = pd.DataFrame({"method": ["a", ""], "dataset": ["d", "d"], "r2_test": ["high", "0.5"]})
    with pytest.raises(ValidationError) as caught:
        canonical_results(frame)
    assert [(p.row, p.column) for p in caught.value.problems] == [(2, "method"), (1, "r2_test")]


def test_refusals_say_what_to_do():
    with pytest.raises(SrdashError, match="no rows of the baseline 'LinearRegression'. Give the qualification data"):
        qualify(pd.DataFrame({"method": ["a"], "dataset": ["d"], "r2_test": [0.5]}))
    with pytest.raises(SrdashError, match="The 'rule' option must be one of 'wins', 'mean-rank'. Got 'best'."):
        qualify(golden(), rule="best")


def test_filter_qualified_removes_visibly():
    q = qualify(golden())
    track = pd.DataFrame({"method": ["good", "flat", "newcomer"], "dataset": "t", "r2_test": 0.5})
    filtered = filter_qualified(track, q)
    assert filtered.runs["method"].tolist() == ["good", "newcomer"]
    assert filtered.excluded == ("flat",) and filtered.unknown == ("newcomer",)
    assert filtered.notes == ("Excluded from the track (did not qualify against LinearRegression): flat (1 run left out).",
                              "Kept without qualification results: newcomer.")
    kept = filter_qualified(track, q, exclude=False, unknown="exclude")
    assert kept.runs["method"].tolist() == ["good", "flat"] and kept.flagged == ("flat",)
    assert kept.notes[0] == "Did not qualify against LinearRegression but kept in the track: flat."
    with pytest.raises(SrdashError, match="The 'unknown' option must be one of 'keep', 'exclude'. Got 'drop'."):
        filter_qualified(track, q, unknown="drop")


# ---------------------------------------------------------------------------- fitting the baseline


def _line_data(seed: int = 0, n: int = 80) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    frame["target"] = 2 * frame["a"] - frame["b"] + 0.5 * frame["a"] ** 2 + rng.normal(scale=0.1, size=n)
    return frame


def test_split_and_baseline_follow_the_2022_procedure():
    frame = _line_data()
    split = qualification_split(frame, seed=4)
    X = frame[["a", "b"]].to_numpy()
    X_train, X_test, y_train, y_test = train_test_split(X, frame["target"].to_numpy(), train_size=0.75,
                                                        test_size=0.25, random_state=4)
    np.testing.assert_array_equal(split.X_test, X_test)
    expected = r2_score(y_test, LinearRegression().fit(X_train, y_train).predict(X_test))
    rows = fit_baseline({"line": frame}, seeds={"line": [4]})
    assert rows.to_dict("records") == [{"method": LR, "dataset": "line", "run": 4,
                                        "r2_test": pytest.approx(expected)}]
    assert qualification_split(frame, seed=1, max_rows=40).X_train.shape == (30, 2)


def test_model_strings_are_evaluated_on_the_test_split():
    frame = _line_data()
    results = pd.DataFrame({"method": ["exactish", "constant", "refused"], "dataset": "line", "run": 0,
                            "model": ["2*a - b + 0.5*a**2", "1.25", "a + open('x')"]})
    r2 = evaluate_qualification_models(results, {"line": frame}).set_index("method")["r2_test"]
    assert r2["exactish"] > 0.99
    assert r2["constant"] == -np.inf and r2["refused"] == -np.inf


def test_read_qualification_data_checks_the_files(tmp_path):
    with pytest.raises(SrdashError, match="has no qualification data file"):
        read_qualification_data(tmp_path)
    (tmp_path / "d.csv").write_text("a,y\n1,2\n")
    with pytest.raises(SrdashError, match="has no target column 'target'. Columns: 'a', 'y'."):
        read_qualification_data(tmp_path)
    (tmp_path / "d.csv").write_text("a,target\n1,2\nx,3\n")
    with pytest.raises(SrdashError, match=r"row 2, column 'a': 'x' is not a number"):
        read_qualification_data(tmp_path)


def test_cli_fits_the_baseline_and_filters_a_track(tmp_path):
    from srdash.cli import main

    data = tmp_path / "data"
    data.mkdir()
    _line_data(0).to_csv(data / "line.csv", index=False)
    _line_data(1).to_csv(data / "other.csv", index=False)
    results = pd.DataFrame({"algorithm": ["good"] * 4 + ["flat"] * 4, "dataset": ["line", "line", "other", "other"] * 2,
                            "random_state": [0, 1] * 4,
                            "symbolic_model": ["2*a - b + 0.5*a**2"] * 4 + ["0.5"] * 4})
    results.to_csv(tmp_path / "results.csv", index=False)
    pd.DataFrame({"method": ["good", "flat"], "dataset": "t", "model": "x"}).to_csv(tmp_path / "track.csv",
                                                                                     index=False)
    runner = CliRunner()
    out = runner.invoke(main, ["qualify", str(tmp_path / "results.csv"), "--data", str(data), "-o",
                               str(tmp_path / "q.csv"), "--head-to-head", str(tmp_path / "h.csv"),
                               "--track", str(tmp_path / "track.csv"), "--track-output", str(tmp_path / "kept.csv")])
    assert out.exit_code == 0, out.output
    table = pd.read_csv(tmp_path / "q.csv").set_index("method")
    assert table.loc["good", "wins"] == 4 and bool(table.loc["good", "qualified"])
    assert table.loc["flat", "losses"] == 4 and not bool(table.loc["flat", "qualified"])
    assert len(pd.read_csv(tmp_path / "h.csv")) == 8
    assert pd.read_csv(tmp_path / "kept.csv")["method"].tolist() == ["good"]
    assert "Rule: A method qualifies when" in out.stderr
    assert "Excluded from the track (did not qualify against LinearRegression): flat (1 run left out)." in out.stderr
    # without the data, the baseline's rows must be in the results
    refused = runner.invoke(main, ["qualify", str(tmp_path / "results.csv")])
    assert refused.exit_code == 1 and "have no r2_test column. Give the qualification data (`srdash qualify --data`" \
        in refused.output
    results.assign(r2_test=0.5).to_csv(tmp_path / "scored.csv", index=False)
    refused = runner.invoke(main, ["qualify", str(tmp_path / "scored.csv")])
    assert refused.exit_code == 1 and "no rows of the baseline 'LinearRegression'" in refused.output
    usage = runner.invoke(main, ["qualify", str(tmp_path / "results.csv"), "--track", str(tmp_path / "track.csv")])
    assert usage.exit_code == 2 and "--track needs --track-output" in usage.output


# ---------------------------------------------------------------------------- figures and view


def test_qualification_figure_table_and_view():
    from srdash.figures.properties import qualification_figure, qualification_html
    from srdash.apps.properties import QualificationView

    q = qualify(golden())
    figure = qualification_figure(q)
    assert [trace.name for trace in figure.data] == ["win", "tie", "loss"]
    assert list(figure.data[0].y)[0] == "good ✓ qualified"
    page = qualification_html(q)
    assert page.count("not qualified") == 3 and "<b>Rule.</b>" in page
    view = QualificationView(q, notes=filter_qualified(golden().rename(columns={"algorithm": "method"}), q).notes)
    assert "Excluded from the track" in view.notes_area.value
    assert "2 problem(s)" in view.problems_area.value
    view.qualification = None
    assert "No qualification results" in view.table.value


# ---------------------------------------------------------------------------- the 20 PMLB datasets


@pytest.mark.realdata
def test_qualification_on_the_20_pmlb_datasets_end_to_end():
    if not PMLB.is_dir():
        pytest.skip(f"the SRBench 2022 qualification data is not at {PMLB} (see ../shared/realdata/README.md)")
    from sklearn.ensemble import RandomForestRegressor

    data = read_qualification_data(PMLB)
    assert len(data) == 20
    seeds, max_rows = [0, 1], 600  # subsample rows and keep the ensemble small: the test stays fast
    rows = []
    for name, frame in data.items():
        for seed in seeds:
            split = qualification_split(frame, seed=seed, max_rows=max_rows)
            forest = RandomForestRegressor(n_estimators=10, max_features=0.5, random_state=seed)
            forest.fit(split.X_train, split.y_train)
            rows.append({"method": "Forest", "dataset": name, "run": seed,
                         "r2_test": score_predictions(split.y_test, forest.predict(split.X_test))["r2"].iloc[0]})
            # a clearly worse method: the training mean, as a model string
            rows.append({"method": "Constant", "dataset": name, "run": seed,
                         "model": repr(float(split.y_train.mean()))})
    results = pd.DataFrame(rows)
    recomputed = evaluate_qualification_models(results, data, max_rows=max_rows)
    results = results.set_index(["method", "dataset", "run"])
    results.loc[recomputed.set_index(["method", "dataset", "run"]).index, "r2_test"] = \
        recomputed.set_index(["method", "dataset", "run"])["r2_test"]
    baseline = fit_baseline(data, seeds=seeds, max_rows=max_rows)
    # LinearRegression against itself: every comparison ties, so it does not qualify (wins > losses fails)
    itself = baseline.assign(method="LR copy")
    q = qualify(pd.concat([results.reset_index(), itself]), baseline_rows=baseline)
    table = q.table.set_index("method")
    assert q.qualified == ("Forest",)
    assert table.loc["Forest", "wins"] > 3 * table.loc["Forest", "losses"]
    assert table.loc["Forest", "mean_rank_difference"] > 0.5
    assert table.loc["Constant", ["wins", "ties", "losses"]].tolist() == [0, 0, 40]
    assert table.loc["LR copy", ["wins", "ties", "losses"]].tolist() == [0, 40, 0]
    assert table.loc["LR copy", "mean_rank_difference"] == 0
