"""How each criterion is measured: the registry of measures, the rules' `measure` and `optional`, the
pipeline computing what the rules declare (and nothing else), and the refusal of criteria without data."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.cli import main
from srdash.errors import CriterionWithoutData, RulesError
from srdash.expressions.measures import MODEL_MEASURES, measure_model, measure_table
from srdash.io.loading import load_results
from srdash.judging.measures import MEASURES, default_measure, measure
from srdash.judging.pipeline import prepare_runs
from srdash.judging.ranking import judge
from srdash.judging.rules import load_rules, parse_rules


def _rules(measure_name: str, *, column: str = "size", direction: str = "lower") -> str:
    return (f'name = "m"\n[[criteria]]\nname = "accuracy"\ncolumn = "r2_test"\n'
            f'[[criteria]]\nname = "size"\ncolumn = "{column}"\ndirection = "{direction}"\n'
            f'measure = "{measure_name}"\n')


# -- the registry ----------------------------------------------------------------------------------

def test_one_registry_names_every_measure_and_the_model_side_counts_the_same_ones():
    counted = {name for name, m in MEASURES.items() if m.from_model}
    assert counted == set(MODEL_MEASURES) == {"simplified-components", "tree-nodes", "rounded-nodes"}
    assert [name for name, m in MEASURES.items() if m.needs_data] == ["r2-on-data"]
    assert all(m.summary and m.how_to_supply for m in MEASURES.values())


def test_default_measures_keep_the_2022_behaviour():
    rules = load_rules("srbench2022")
    assert {c.name: c.measure for c in rules.criteria} == {
        "accuracy": "column", "simplicity": "simplified-components", "property": "column"}
    assert default_measure("simplicity") == "simplified-components" and default_measure("size") == "column"
    assert not any(c.optional for c in rules.criteria)


def test_unknown_measure_and_bad_optional_are_refused():
    with pytest.raises(RulesError, match="criterion 'size': Unknown measure 'nodes'. Measures: 'column', "
                                         "'r2-on-data', 'rounded-nodes', 'simplified-components', 'tree-edit-distance', "
                                         "'tree-nodes'."):
        parse_rules(_rules("nodes"))
    with pytest.raises(RulesError, match="criterion 'size': 'optional' must be true or false. Got 'yes'."):
        parse_rules(_rules("tree-nodes") + 'optional = "yes"\n')
    with pytest.raises(RulesError, match="Unknown measure 'nodes'"):
        measure("nodes")


def test_the_measure_and_optional_are_part_of_the_rules_hash():
    rules = parse_rules(_rules("tree-nodes"))
    size = rules.criterion("size")
    other = replace(rules, criteria=(rules.criteria[0], replace(size, measure="rounded-nodes")))
    optional = replace(rules, criteria=(rules.criteria[0], replace(size, optional=True)))
    assert len({rules.sha256, other.sha256, optional.sha256}) == 3
    # Rules that do not name a measure keep the hash srdash gave them before measures existed
    # (srbench2022 at commit fab36f4: same text, same effective options).
    assert load_rules("srbench2022").sha256 == "ed8896988aac3d7f1f4b9496ca068366b43e2e06d90cc968603ed6e7d3e2e56f"


# -- the model-level measures ---------------------------------------------------------------------

@pytest.mark.parametrize("text, tree, rounded, simplified", [
    # x0*x0 is x0**2 on parsing (Pow, x0, 2): 3 nodes whatever the measure
    ("x0*x0", 3, 3, 3),
    # x0 + x0 is 2*x0 on parsing (Mul, 2, x0)
    ("x0 + x0", 3, 3, 3),
    # 0.00005*x1 + x0: rounding sends 0.00005 (< 1e-4) to 0, leaving x0 (1 node); as submitted:
    # Add(Mul(5e-5, x1), x0) = 5 nodes; SRBench 2022 rounds below 0.001 to 0 too
    ("0.00005*x1 + x0", 5, 1, 1),
    # 0.0005*x1 + x0: rounded-nodes keeps 0.0005 (>= 1e-4; to 3 decimals, 0.001) -> 5 nodes; SRBench 2022
    # sets floats below 0.001 to 0 -> x0, 1 node
    ("0.0005*x1 + x0", 5, 5, 1),
    # (x0 + 1)**2 - x0**2 - 2*x0 = Add(Pow(Add(x0, 1), 2), Mul(-1, Pow(x0, 2)), Mul(-2, x0)):
    # 1 + 5 + 5 + 3 = 14 nodes; only simplification finds the constant 1
    ("(x0 + 1)**2 - x0**2 - 2*x0", 14, 14, 1),
])
def test_three_ways_of_counting_a_model(text, tree, rounded, simplified):
    assert measure_model(text, "tree-nodes") == tree
    assert measure_model(text, "rounded-nodes") == rounded
    assert measure_model(text, "simplified-components") == simplified


def test_measure_table_runs_under_the_time_limit_and_caches(tmp_path):
    cache = tmp_path / "cache.sqlite"
    models = ["x0 - x1", "Piecewise((x0, x0 > 0), (1, True)) +\n 2", "open(x0)", None]
    first = measure_table(models, measure="tree-nodes", cache=cache)
    assert first["status"].tolist() == ["ok", "ok", "rejected", "parse_error"]
    # Add(x0, Mul(-1, x1)): 5; Add(2, Piecewise(ExprCondPair(x0, x0 > 0), ExprCondPair(1, True))):
    # Add, 2, Piecewise, pair, x0, >, x0, 0, pair, 1, True = 11
    assert first["nodes"].tolist()[:2] == [5.0, 11.0]
    again = measure_table(models, measure="tree-nodes", cache=cache)
    assert again.attrs["cache"]["from_cache"] == 3 and again["nodes"].equals(first["nodes"])
    # each measure has its own cache rows: the same strings, counted otherwise
    rounded = measure_table(["0.00001 + x0"], measure="rounded-nodes", cache=cache)
    assert rounded.attrs["cache"]["from_cache"] == 0 and rounded["nodes"].tolist() == [1.0]
    with pytest.raises(ValueError, match="The 'measure' option must be one of"):
        measure_table(models, measure="column")


# -- the pipeline computes what the rules declare, and nothing else --------------------------------

def test_prepare_runs_counts_without_simplifying_when_the_rules_say_so(monkeypatch):
    import srdash.expressions as expressions

    results = load_results(pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "r2_test": [0.9, 0.8, 0.7],
                                         "model": ["x1 + x1*x1", "(x1 + 1)**2 - x1**2 - 2*x1", "x1.__class__"]}))

    def no_simplification(*args, **kwargs):
        raise AssertionError("the 2022 simplification was started")

    monkeypatch.setattr(expressions, "complexity_table", no_simplification)
    runs = prepare_runs(results, rules=parse_rules(_rules("tree-nodes")), cache=False)
    assert runs["size"].tolist()[:2] == [5.0, 14.0]   # Add(x1, Pow(x1, 2)); the unsimplified tree (14 nodes)
    assert np.isnan(runs["size"].iloc[2])
    assert runs["status"].tolist() == ["measured", "measured", "rejected"]
    assert runs["simplicity"].isna().all() and (runs["simplified"] == "").all()
    verdict = judge(runs, parse_rules(_rules("tree-nodes")))
    assert verdict.problems["kind"].tolist().count("rejected") == 1


def test_given_values_are_kept_and_the_2022_rules_still_simplify():
    results = load_results(pd.DataFrame({"method": ["a", "b"], "dataset": "d", "r2_test": [0.9, 0.8],
                                         "model": ["x1 + x1*x1", "(x1 + 1)**2 - x1**2 - 2*x1"],
                                         "size": [7.0, None]}))
    runs = prepare_runs(results, rules=parse_rules(_rules("rounded-nodes")), cache=False)
    assert runs["size"].tolist() == [7.0, 14.0] and runs["status"].tolist() == ["given", "measured"]
    simplified = prepare_runs(results, rules=load_rules("srbench2022"), cache=False)
    assert simplified["components"].tolist() == [5.0, 1.0] and simplified["status"].tolist() == ["ok", "ok"]


# -- no silent gaps ----------------------------------------------------------------------------------

def test_a_criterion_without_data_is_refused_with_its_name():
    table = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0, "r2_test": [0.9, 0.8]})
    with pytest.raises(CriterionWithoutData, match=r"Criterion 'size' of the rules 'm' has no data: the column 'size' "
                                                   r"is missing\. It is measured 'tree-nodes'.*give the runs' model "
                                                   r"strings \(column 'model'\)") as caught:
        judge(table, parse_rules(_rules("tree-nodes")))
    assert caught.value.criteria == ("size",)
    optional = parse_rules(_rules("tree-nodes") + "optional = true\n")
    verdict = judge(table, optional)
    assert [c.name for c in verdict.criteria] == ["accuracy"]
    assert any("Criterion 'size' has no data" in w and "optional" in w for w in verdict.warnings)


def test_the_cli_refuses_a_criterion_without_data(tmp_path):
    pd.DataFrame({"method": ["a", "b"], "dataset": "d", "r2_test": [0.9, 0.8],
                  "components": [3, 5]}).to_csv(tmp_path / "results.csv", index=False)
    outcome = CliRunner().invoke(main, ["score", str(tmp_path / "results.csv"), "--no-cache",
                                        "-o", str(tmp_path / "board.csv")])
    assert outcome.exit_code == 1
    assert "Traceback" not in outcome.output and isinstance(outcome.exception, SystemExit)
    assert ("Error: Criterion 'property' of the rules 'srbench2022' has no data: the column 'property' is "
            "missing.") in outcome.output
    assert "add the column to the results" in outcome.output and "optional = true" in outcome.output
    assert not (tmp_path / "board.csv").exists()


def test_r2_on_data_names_a_dataset_without_the_file(tmp_path):
    from srdash.io.datasets import load_dataset_table
    from srdash.judging.submitted import r2_on_data

    # R2 of 2*x0 + 1 on y = 2*x0 + 1 is 1; of x0: 1 - sum((x0 + 1)^2) / sum((y - 3)^2) = 1 - 14/8 = -0.75
    pd.DataFrame({"x0": [0.0, 1.0, 2.0], "y": [1.0, 3.0, 5.0]}).to_csv(tmp_path / "d1.csv", index=False)
    (tmp_path / "datasets.yaml").write_text(
        "datasets:\n  - {name: d1, files: {test: d1.csv}, target: y, property: none}\n"
        "  - {name: d2, files: {train: d1.csv}, target: y, property: none}\n")
    table = load_dataset_table(tmp_path / "datasets.yaml")
    runs = pd.DataFrame({"method": ["a", "b", "a", "c"], "dataset": ["d1", "d1", "d2", "d1"],
                         "model": ["2*x0 + 1", "x0", "x0", "log(x0 - 5)"]})
    measured = r2_on_data(runs, table, column="r2_test", cache=tmp_path / "cache.sqlite")
    assert measured["value"].tolist()[:2] == pytest.approx([1.0, -0.75])
    assert measured.loc[2, "status"] == "no_data"
    assert measured.loc[2, "reason"].startswith("dataset 'd2' has no 'test' file in") and "files: train" in \
        measured.loc[2, "reason"]
    assert measured.loc[3, "status"] == "not finite" and np.isnan(measured.loc[3, "value"])
    from srdash.cache import ResultCache

    with ResultCache(tmp_path / "cache.sqlite") as store:
        assert len(store) == 3   # the three distinct models evaluated on d1
    again = r2_on_data(runs, table, column="r2_test", cache=tmp_path / "cache.sqlite")   # from the cache
    pd.testing.assert_frame_equal(again, measured)
