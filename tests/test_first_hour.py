"""The first hour of an organiser (issue 21): what `srdash score`, the dashboard and the report say first."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.demo.examples import accuracy_rules

from srdash.cli import main
from srdash.judging.competition import competition_from_options, load_competition
from srdash.judging.ranking import judge
from srdash.judging.rules import load_rules


def _results(folder, *, models: bool = True):
    # a, b on d1 and d2; c only on d1 (DNF on d2)
    rows = [("a", "d1", "x1 + 1", 0.9), ("b", "d1", "x1*x1", 0.8), ("c", "d1", "x1", 0.7),
            ("a", "d2", "x1 + 2", 0.9), ("b", "d2", "x1*x1 + 1", 0.95)]
    table = pd.DataFrame(rows, columns=["method", "dataset", "model", "r2_test"]).assign(property=0.5)
    if not models:
        table = table.drop(columns="model").assign(model_size=[3, 5, 1, 3, 6])
    path = folder / "results.csv"
    table.to_csv(path, index=False)
    return path


def test_the_datasets_column_counts_datasets_with_a_result_not_dnf_cells():
    from srdash.figures.leaderboard import leaderboard_html

    table = pd.DataFrame({"method": ["a", "b", "c", "a", "b"], "dataset": ["d1", "d1", "d1", "d2", "d2"],
                          "r2_test": [0.9, 0.8, 0.7, 0.9, 0.95]})
    verdict = judge(table, accuracy_rules())
    row_c = verdict.leaderboard.set_index("method").loc["c"]
    assert (row_c["datasets"], row_c["dnf"]) == (1, 1)                # the verdict's table: 1 with a result, 1 DNF
    page = leaderboard_html(verdict)
    c_row = page[page.index(">c<"):].split("</tr>")[0]
    cells = [cell.split(">", 1)[1].split("<", 1)[0] for cell in c_row.split("<td")[1:]]
    assert cells[-2:] == ["1", "1"]                                   # shown: 1 dataset with a result, 1 DNF


def test_score_with_output_also_prints_the_leaderboard(tmp_path):
    path = _results(tmp_path)
    result = CliRunner().invoke(main, ["score", str(path), "-o", str(tmp_path / "lb.csv"), "--no-cache"])
    assert result.exit_code == 0, result.output
    assert "Leaderboard:" in result.stderr and "place" in result.stderr and " a " in result.stderr + " "
    assert (tmp_path / "lb.csv").exists()


def test_no_progress_bar_when_no_model_is_simplified(tmp_path):
    path = _results(tmp_path, models=False)
    result = CliRunner().invoke(main, ["score", str(path), "--no-cache"])
    assert result.exit_code == 0, result.output
    assert "simplifying models" not in result.stderr and "model/s" not in result.stderr


def test_a_refused_model_is_one_problem_with_its_reason(tmp_path):
    table = pd.DataFrame({"method": ["a", "b", "a", "b"], "dataset": ["d1", "d1", "d2", "d2"],
                          "model": ["x1 + 1", "__import__('os').system('true')", "x1", "x1*x1"],
                          "r2_test": [0.9, 0.999, 0.8, 0.7], "property": 0.5})
    table.to_csv(tmp_path / "results.csv", index=False)
    result = CliRunner().invoke(main, ["score", str(tmp_path / "results.csv"), "--no-cache",
                                       "--problems", str(tmp_path / "problems.csv")])
    assert result.exit_code == 0, result.output
    problems = pd.read_csv(tmp_path / "problems.csv")
    mine = problems[problems["method"] == "b"]
    assert mine["kind"].tolist() == ["rejected"], mine
    assert "is not allowed in a model" in mine["detail"].iloc[0]
    assert "counted as the worst value on Simplicity" in mine["detail"].iloc[0]
    assert "recomputed" not in " ".join(problems["detail"])


def test_the_report_opens_with_the_leaderboard_before_the_qualification_stage():
    from srdash.demo.competition import cached_demo
    from srdash.judging.pipeline import judge_competition
    from srdash.report.build import build_competition_report, render_html

    competition = load_competition(cached_demo()["competition"])
    report = build_competition_report(judge_competition(competition), samples=20)
    page = render_html(report)
    assert page.index(">Leaderboard") < page.index(">Qualification stage")


def test_the_dashboard_shows_the_competitions_own_title(tmp_path):
    from srdash.apps.dashboard import Dashboard

    competition = replace(competition_from_options(_results(tmp_path)), title="srbench_results")
    app = Dashboard(competition, start=False)
    assert ">srbench_results</h2>" in app.title.value
    untitled = Dashboard(competition_from_options(_results(tmp_path)), start=False)
    assert f">{load_rules('srbench2022').title}</h2>" in untitled.title.value   # no title of its own: the rules'


def test_the_demo_dashboard_and_the_demo_report_carry_the_same_title():
    from srdash.apps.dashboard import Dashboard
    from srdash.demo.competition import cached_demo

    competition = load_competition(cached_demo()["competition"])
    app = Dashboard(competition, start=False)
    assert competition.title != competition.rules.title
    assert f">{competition.title}</h2>" in app.title.value


def test_the_dashboard_explains_the_score_behind_a_closed_disclosure(tmp_path):
    from srdash.apps.dashboard import Dashboard

    competition = competition_from_options(_results(tmp_path))
    app = Dashboard(competition, start=False)
    assert competition.rules.description.split()[0] not in app.title.value    # the title is only the title
    children = list(app.children)
    board = next(i for i, c in enumerate(children) if app.leaderboard in getattr(c, "children", ()))
    assert board < children.index(app.scoring) < children.index(app.warnings) + 2   # below the leaderboard
    from srdash.figures.leaderboard import scoring_html

    from srdash.judging.rules import parse_rules

    # simplicity and property optional: the raw results have neither (no simplification here)
    optional = competition.rules.text.replace('column = "simplicity"\n', 'column = "simplicity"\noptional = true\n')
    optional = optional.replace('column = "property"\n', 'column = "property"\noptional = true\n')
    rules = parse_rules(optional, source="<test>")
    page = scoring_html(judge(pd.read_csv(tmp_path / "results.csv").drop(columns="property"), rules))
    assert "<details class='srdash-scoring'>" in page and " open" not in page.split(">")[0]
    assert "Accuracy" in page and "Simplicity" not in page      # only the criteria with data (no model column)


def test_a_refused_models_worst_value_is_not_warned_about_again():
    from srdash.judging.domains import check_domains

    table = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "run": 0, "r2_test": [0.9, float("-inf"), 1.5],
                          "status": ["ok", "rejected", "ok"]})
    checked = check_domains(table, load_rules("srbench2022"))
    assert checked.table["r2_test"].isna().tolist() == [False, True, True]   # both count as the worst value
    assert len(checked.problems) == 1 and "method 'c'" in checked.problems[0]  # only c's is news
