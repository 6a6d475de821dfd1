"""Several metrics of a prediction competition combined by the ranking engine; sensitivity, report, serve.

The hand-computed competition used throughout (targets all 0, so a prediction is its error):

    team   preliminary errors  RMSE   MAE  | final errors  RMSE   MAE
    a      (2, 2)              2      2    | (0, 3)        2.121  1.5
    b      (0, 3)              2.121  1.5  | (2, 2)        2      2
    c      (1, 2.5)            1.904  1.75 | (1, 2.5)      1.904  1.75

RMSE = sqrt(mean(e²)): (0, 3) -> sqrt(4.5) = 2.121, (1, 2.5) -> sqrt(3.625) = 1.904.
Ranks per metric (higher is better, K = 3 = best; lower errors are better):

    preliminary  RMSE: c 3, a 2, b 1   MAE: b 3, c 2, a 1
    final        RMSE: c 3, b 2, a 1   MAE: a 3, c 2, b 1

Harmonic mean of the two ranks, H(x, y) = 2 / (1/x + 1/y):

    preliminary  a H(2, 1) = 4/3   b H(1, 3) = 1.5   c H(3, 2) = 2.4  -> c 1, b 2, a 3
    final        a H(1, 3) = 1.5   b H(2, 1) = 4/3   c H(3, 2) = 2.4  -> c 1, a 2, b 3

The two metrics disagree (final: RMSE alone puts c, b, a; MAE alone a, c, b), and the
combined verdict is neither.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.errors import RulesError, SrdashError
from srdash.judging.predictions import CombinedLeaderboards, check_combine_rules, combine_metrics, metric_rules, score_from_options, score_submissions, to_runs_table
from srdash.io.predictions import Targets
from srdash.figures.predictions import shakeup_figure
from srdash.demo.predictions import DEMO_TEAMS, REJECTED_LINE, write_demo_predictions

TARGETS = Targets.from_arrays([0.0] * 4, ["preliminary", "preliminary", "final", "final"])
PREDICTIONS = {"a.txt": [2, 2, 0, 3], "b.txt": [0, 3, 2, 2], "c.txt": [1, 2.5, 1, 2.5]}
H = {"a_p": 4 / 3, "b_p": 1.5, "c_p": 2.4, "a_f": 1.5, "b_f": 4 / 3, "c_f": 2.4}

# Normalised, weighted rules over the same metrics: min-max normalised between the worst and the
# best team, meta-scores 'squared' (RMSE, weight 1) and 'absolute' (MAE, weight 3).
WEIGHTED_RULES = """
name = "pred-weighted"
title = "RMSE and MAE, normalised and weighted"
kind = "normalised-weighted"
[submissions]
team = "team"
[normalisation]
baseline = "worst-of-teams"
best = "best-of-teams"
[groups.squared]
metrics = ["rmse"]
weight = 1.0
[groups.absolute]
metrics = ["mae"]
weight = 3.0
[[criteria]]
name = "rmse"
column = "rmse"
direction = "lower"
[[criteria]]
name = "mae"
column = "mae"
direction = "lower"
"""


def _listing(names=("a", "b", "c")) -> pd.DataFrame:
    return pd.DataFrame({"team": list(names), "file": ["a.txt", "b.txt", "c.txt"]})


@pytest.fixture(scope="module")
def result():
    return score_submissions(_listing(), TARGETS, metric="rmse", extra_metrics=["mae"], predictions=PREDICTIONS)


def _places(board: pd.DataFrame) -> list[tuple[int, str]]:
    return [(int(p), t) for p, t in zip(board["place"], board["team"])]


# =========================================================================== the combined leaderboards


def test_several_metrics_give_a_combined_leaderboard_by_default(result):
    combined = result.combined
    assert isinstance(combined, CombinedLeaderboards)
    assert combined.rules.kind == "rank-harmonic"
    assert _places(combined.final_leaderboard) == [(1, "c"), (2, "a"), (3, "b")]
    assert _places(combined.preliminary_leaderboard) == [(1, "c"), (2, "b"), (3, "a")]
    final = combined.final_leaderboard.set_index("team")
    assert final["score"].to_dict() == pytest.approx({"a": H["a_f"], "b": H["b_f"], "c": H["c_f"]})
    assert final["rmse_rank"].to_dict() == {"a": 1.0, "b": 2.0, "c": 3.0}
    assert final["mae_rank"].to_dict() == {"a": 3.0, "b": 1.0, "c": 2.0}
    assert final.loc["a", "rmse"] == pytest.approx(math.sqrt(4.5))
    assert final.loc["c", "mae"] == pytest.approx(1.75)
    prelim = combined.preliminary_leaderboard.set_index("team")["score"].to_dict()
    assert prelim == pytest.approx({"a": H["a_p"], "b": H["b_p"], "c": H["c_p"]})
    # shake-up of the combined places: a 3 -> 2 (up 1), b 2 -> 3 (down 1), c stays first
    assert combined.shakeup[["team", "change"]].values.tolist() == [["c", 0], ["a", 1], ["b", -1]]


def test_per_metric_leaderboards_stay_available(result):
    # The result itself is ranked by the first metric; ranked_by gives the others.
    assert result.final_leaderboard["team"].tolist() == ["c", "b", "a"]
    mae = result.ranked_by("mae")
    assert mae.final_leaderboard["team"].tolist() == ["a", "c", "b"]
    assert mae.preliminary_leaderboard["team"].tolist() == ["b", "c", "a"]
    assert mae.metric.short_name == "mae" and result.metric.short_name == "rmse"  # result itself unchanged
    with pytest.raises(SrdashError, match=r"The metric 'r2' was not scored; scored metrics: 'rmse', 'mae'\."):
        result.ranked_by("r2")


def test_one_metric_has_no_combined_leaderboard():
    single = score_submissions(_listing(), TARGETS, metric="rmse", predictions=PREDICTIONS)
    assert single.combined is None


def test_combining_is_invariant_to_the_order_of_the_metrics(result):
    swapped = score_submissions(_listing(), TARGETS, metric="mae", extra_metrics=["rmse"], predictions=PREDICTIONS)
    for subset in ("preliminary", "final"):
        assert _places(swapped.combined.leaderboard(subset)) == _places(result.combined.leaderboard(subset))


def test_a_team_without_a_valid_submission_takes_the_lowest_ranks():
    listing = pd.DataFrame({"team": ["a", "b", "c", "d"], "file": ["a.txt", "b.txt", "c.txt", "d.txt"]})
    scored = score_submissions(listing, TARGETS, metric="rmse", extra_metrics=["mae"],
                               predictions={**PREDICTIONS, "d.txt": [0, 0, float("nan"), 0]})
    board = scored.combined.final_leaderboard
    # K = 4: d is DNF (rank 1 on both); a, b, c rank 2..4 as before (+1): c H(4, 3), a H(2, 4), b H(3, 2).
    assert _places(board) == [(1, "c"), (2, "a"), (3, "b"), (4, "d")]
    assert board.set_index("team").loc["d", ["score", "status"]].tolist() == [1.0, "no valid submission"]
    assert board.set_index("team")["score"]["a"] == pytest.approx(2 / (1 / 2 + 1 / 4))


def test_metric_rules_weights_change_the_verdict(result):
    # RMSE weighted 3, MAE 1: final c H_w(3, 2) = 4 / (3/3 + 1/2) = 2.667, b 4 / (3/2 + 1/1) = 1.6,
    # a 4 / (3/1 + 1/3) = 1.2 -> c, b, a (the RMSE order).
    weighted = combine_metrics(result, rules=metric_rules(["rmse", "mae"], weights=[3, 1]))
    board = weighted.final_leaderboard.set_index("team")["score"]
    assert board.to_dict() == pytest.approx({"a": 1.2, "b": 1.6, "c": 8 / 3})


def test_normalised_weighted_rules_combine_the_metrics(tmp_path, result):
    path = tmp_path / "weighted.toml"
    path.write_text(WEIGHTED_RULES)
    combined = combine_metrics(result, rules=path)
    board = combined.final_leaderboard
    # final RMSE normalised between the worst (a, 2.121) and the best (c, 1.904): a 0, c 1,
    # b (2 - 2.121) / (1.904 - 2.121) = 0.558; MAE between b (2) and a (1.5): b 0, a 1, c 0.5.
    # stage 2 = (1 * squared + 3 * absolute) / 4: a 0.75, c (1 + 1.5) / 4 = 0.625, b 0.558 / 4 = 0.139.
    b_squared = (2 - math.sqrt(4.5)) / (math.sqrt(3.625) - math.sqrt(4.5))
    assert _places(board) == [(1, "a"), (2, "c"), (3, "b")]
    assert board.set_index("team")["score"].to_dict() == pytest.approx({"a": 0.75, "c": 0.625,
                                                                        "b": b_squared / 4})
    assert board.columns.tolist() == ["place", "team", "score", "squared", "absolute", "rmse", "mae", "submission",
                                      "entries", "status"]
    # the same rules through score_submissions
    scored = score_submissions(_listing(), TARGETS, metric="rmse", extra_metrics=["mae"], predictions=PREDICTIONS,
                               combine_rules=path)
    assert _places(scored.combined.final_leaderboard) == [(1, "a"), (2, "c"), (3, "b")]
    assert "normalised, weighted meta-scores of the rules 'pred-weighted'" in scored.combined.description


def test_rules_that_do_not_name_the_scored_metrics_are_refused(tmp_path, result):
    with pytest.raises(RulesError, match=r"The rules 'prediction-metrics' do not fit the scored metrics "
                                         r"\('rmse', 'mae'\): criterion 'r2' reads column 'r2', which is not a "
                                         r"scored metric\."):
        combine_metrics(result, rules=metric_rules(["rmse", "r2"]))
    path = tmp_path / "wrong.toml"
    path.write_text(WEIGHTED_RULES.replace('direction = "lower"', 'direction = "higher"', 1))
    with pytest.raises(RulesError, match=r"criterion 'rmse' says higher is better, but rmse is lower-is-better"):
        check_combine_rules(path, ["rmse", "mae"])
    # refused before any file is read
    with pytest.raises(RulesError, match="do not fit"):
        score_submissions(_listing(), TARGETS, metric="rmse", predictions=PREDICTIONS,
                          combine_rules=metric_rules(["rmse", "mae"]))


def test_combining_needs_a_scored_submission():
    scored = score_submissions(_listing(), TARGETS, metric="rmse", extra_metrics=["mae"],
                               predictions={k: [float("nan")] * 4 for k in PREDICTIONS})
    assert scored.combined is None
    with pytest.raises(SrdashError, match=r"No submission could be scored \(every submission was rejected\)"):
        combine_metrics(scored)


def test_combined_shakeup_figure(result):
    figure = shakeup_figure(result.combined)
    assert figure.layout.title.text == "Shake-up: preliminary → final place<br>(combined metrics; rule 'last')"
    moved_up = next(trace for trace in figure.data if trace.name == "moved up")
    assert list(moved_up.y[:2]) == [3, 2]  # a: 3 -> 2


# =========================================================================== sensitivity of the combined verdict


def test_the_combined_verdict_goes_through_the_sensitivity_tools(result):
    from srdash.analysis.sensitivity import Rescorer, find_winning_weights, place_probabilities, rescorer_of

    rescorer = rescorer_of(result.combined, subset="final")
    assert isinstance(rescorer, Rescorer)
    assert rescorer.weight_names == ("rmse", "mae")
    assert rescorer.leaderboard()["method"].tolist() == ["c", "a", "b"]
    # all the weight on one metric gives that metric's order
    assert rescorer.leaderboard([1.0, 0.0])["method"].tolist() == ["c", "b", "a"]
    assert rescorer.leaderboard([0.0, 1.0])["method"].tolist() == ["a", "c", "b"]
    probabilities = place_probabilities(rescorer, samples=400, seed=0).table.set_index("method")
    assert probabilities["p_win"].sum() == pytest.approx(1.0)
    # b is never first: on the final subset it is last on MAE and behind c on RMSE
    assert probabilities.loc["b", "p_win"] == 0.0
    assert probabilities.loc["c", "official_place"] == 1
    assert find_winning_weights(rescorer, "a").exists


def test_rescorer_of_takes_the_subset_of_combined_leaderboards_and_refuses_a_wrong_one(result):
    from types import SimpleNamespace

    from srdash.analysis.sensitivity import rescorer_of
    from srdash.judging.ranking import judge

    # The preliminary verdict, not the final one: H gives c 2.4, b 1.5, a 4/3 on the preliminary subset
    # (a and b swap on the final one: c 2.4, a 1.5, b 4/3).
    preliminary = rescorer_of(result.combined, subset="preliminary").leaderboard()
    assert preliminary["method"].tolist() == ["c", "b", "a"]
    assert preliminary["score"].tolist() == pytest.approx([H["c_p"], H["b_p"], H["a_p"]])
    assert rescorer_of(result.combined).leaderboard()["method"].tolist() == ["c", "a", "b"]  # 'final' by default
    with pytest.raises(SrdashError, match=r"^The 'subset' option must be one of 'preliminary', 'final'\. "
                                          r"Got 'public'\.$"):
        rescorer_of(result.combined, subset="public")
    # A judged competition has one verdict: a subset there is a mistake, not ignored.
    runs = to_runs_table(result, subsets=["final"])
    judged = SimpleNamespace(verdict=judge(runs, metric_rules(result.metrics)), runs=runs)
    assert rescorer_of(judged).leaderboard()["method"].tolist() == ["c", "a", "b"]
    with pytest.raises(SrdashError, match=r"^The 'subset' option is for combined prediction leaderboards; a "
                                          r"judged competition has one verdict\. Got 'final'\.$"):
        rescorer_of(judged, subset="final")


def test_the_runs_table_and_metric_rules_go_through_judge_and_the_rescorer(result):
    from srdash.judging.ranking import judge
    from srdash.analysis.sensitivity import Rescorer, weight_sweep

    rules = metric_rules(result.metrics)
    verdict = judge(to_runs_table(result, subsets=["final"]), rules)
    sweep = weight_sweep(Rescorer.from_verdict(verdict), "mae", points=5, maximum=4.0)
    # Weights (rmse 1, mae w), final ranks a (1, 3), b (2, 1), c (3, 2): score = (1 + w) / (1/r_rmse + w/r_mae).
    # c beats a iff 1/3 + w/2 < 1 + w/3, i.e. w < 4; at w = 4 they tie (5 / (7/3) each) and share place 1.
    # b: (1 + w) / (1/2 + w) is below c for every w. So c keeps place 1 from w = 0 to 4 ...
    assert sweep.values.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    methods = list(Rescorer.from_verdict(verdict).methods)
    c = methods.index("c")
    assert sweep.places[:, c].tolist() == [1, 1, 1, 1, 1]
    # ... and a climbs from last (w = 0: the RMSE order c, b, a) to shared first at w = 4.
    a = methods.index("a")
    assert sweep.places[0, a] == 3 and sweep.places[-1, a] == 1


def test_normalised_weighted_combination_is_linear_for_the_rescorer(tmp_path, result):
    path = tmp_path / "weighted.toml"
    path.write_text(WEIGHTED_RULES)
    from srdash.analysis.sensitivity import rescorer_of

    rescorer = rescorer_of(combine_metrics(result, rules=path), subset="final")
    assert rescorer.linear and rescorer.weight_names == ("squared", "absolute")
    # equal weights: a (0 + 1)/2 = 0.5, c (1 + 0.5)/2 = 0.75, b (0.558 + 0)/2 = 0.279 -> c, a, b
    assert rescorer.leaderboard([1.0, 1.0])["team"].tolist() == ["c", "a", "b"]


# =========================================================================== options and the demo


def test_score_from_options_errors(tmp_path):
    with pytest.raises(SrdashError, match=r"The prediction options need 'submissions'"):
        score_from_options({"targets_csv": "t.csv"})
    with pytest.raises(SrdashError, match=r"Give either 'targets_csv' or both 'targets_preliminary' and "
                                          r"'targets_final', not both\."):
        score_from_options({"submissions": "s", "targets_csv": "t.csv", "targets_final": "f.txt"})
    with pytest.raises(SrdashError, match=r"The targets are missing: give 'targets_preliminary' and "
                                          r"'targets_final'"):
        score_from_options({"submissions": "s", "targets_final": "f.txt"})


def test_demo_competition_is_deterministic_and_shows_everything(tmp_path):
    options = write_demo_predictions(tmp_path / "one")
    again = write_demo_predictions(tmp_path / "two")
    assert (Path(options["targets_final"]).read_bytes() == Path(again["targets_final"]).read_bytes())
    done = []
    scored = score_from_options(options, progress=lambda d, t: done.append((d, t)))
    assert done[-1] == (8, 8) and len(done) == 8
    assert sorted(scored.teams) == sorted(DEMO_TEAMS)
    rejected = scored.rejected
    assert rejected["team"].tolist() == ["steady"]
    assert rejected["reason"].iloc[0].startswith(f"row {REJECTED_LINE}: 'n/a' is not a number")
    shake = scored.combined.shakeup.set_index("team")
    assert shake.loc["overfit", "preliminary_place"] == 1 and shake.loc["overfit", "change"] < -2
    # the two metrics disagree on spiky (few large errors): better on MAE than on RMSE
    by_rmse = scored.final_leaderboard.set_index("team")["place"]
    by_mae = scored.ranked_by("mae").final_leaderboard.set_index("team")["place"]
    assert by_mae["spiky"] < by_rmse["spiky"]


# =========================================================================== report


def _section(page: str, key: str) -> str:
    start = page.index(f'id="{key}"')
    return page[start:page.index("</section>", start)]


def _table_places(fragment: str) -> list[tuple[int, str]]:
    return [(int(p), t) for p, t in re.findall(r'<tr><td class="num">(\d+)</td><td>([^<]*)</td>', fragment)]


def test_prediction_report_shows_the_leaderboards_and_escapes_team_names():
    from srdash.report.build import build_prediction_report, render_html, render_markdown

    scored = score_submissions(_listing(("a", "<b>x</b>", "c")), TARGETS, metric="rmse", extra_metrics=["mae"],
                               predictions=PREDICTIONS)
    report = build_prediction_report(scored, samples=200, generated_at="2024-01-01T00:00:00Z")
    page = render_html(report)
    escaped = "&lt;b&gt;x&lt;/b&gt;"
    combined = _section(page, "combined")
    # two tables: final (c, a, <b>x</b>) then preliminary (c, <b>x</b>, a), see the module docstring
    assert _table_places(combined) == [(1, "c"), (2, "a"), (3, escaped), (1, "c"), (2, escaped), (3, "a")]
    per_metric = _section(page, "predictions")
    # RMSE final, RMSE preliminary, MAE final, MAE preliminary
    assert _table_places(per_metric) == [(1, "c"), (2, escaped), (3, "a"), (1, "c"), (2, "a"), (3, escaped),
                                         (1, "a"), (2, "c"), (3, escaped), (1, escaped), (2, "c"), (3, "a")]
    assert "<b>x</b>" not in page
    # the figure's JSON: "→" and the title's line break "<br>" as JSON escapes
    assert "Shake-up: preliminary \\u2192 final place\\u003cbr\\u003e(combined metrics; rule 'last')" in page
    assert 'id="sensitivity"' in page and 'id="shakeup"' in page
    assert "Final winner: c." in page
    markdown = render_markdown(report)
    assert "| 3 | &lt;b&gt;x&lt;/b&gt; |" in markdown
    assert "<b>x</b>" not in markdown


def test_prediction_report_with_one_metric_and_a_rejected_submission():
    from srdash.report.build import build_prediction_report, render_html, write_report

    scored = score_submissions(_listing(("a", "<i>b</i>", "c")), TARGETS, metric="mae",
                               predictions={**PREDICTIONS, "b.txt": [0, 3, float("nan"), 2]})
    report = build_prediction_report(scored, samples=50, generated_at="2024-01-01T00:00:00Z")
    assert report.place_probabilities is None
    page = render_html(report)
    assert "combined" not in [m for m in re.findall(r'id="([a-z-]+)"', page)]
    # MAE final: a 1.5, c 1.75, <i>b</i> no valid submission (last place)
    assert _table_places(_section(page, "predictions"))[:3] == [(1, "a"), (2, "c"), (3, "&lt;i&gt;b&lt;/i&gt;")]
    rejected = _section(page, "rejected")
    assert "<td>&lt;i&gt;b&lt;/i&gt;</td><td>b.txt</td><td>row 3: the prediction is NaN" in rejected
    assert "<i>b</i>" not in page
    with pytest.raises(SrdashError, match=r"The LaTeX table covers results reports"):
        write_report(report, "board.tex", format="latex")


# =========================================================================== command line


def _write_competition(folder: Path, names=("a", "b", "c")) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "p.txt").write_text("0\n0\n\n\n")
    (folder / "f.txt").write_text("\n\n0\n0\n")
    rows = []
    for name, (file, values) in zip(names, PREDICTIONS.items()):
        (folder / file).write_text("\n".join(map(str, values)) + "\n")
        rows.append(f'"{name}",{file}')
    (folder / "listing.csv").write_text("team,file\n" + "\n".join(rows) + "\n")
    return ["--targets-preliminary", str(folder / "p.txt"), "--targets-final", str(folder / "f.txt")]


def _cli(*args):
    from srdash.cli import main

    return CliRunner().invoke(main, ["predictions", *map(str, args)])


def test_cli_score_with_normalised_weighted_rules(tmp_path):
    targets = _write_competition(tmp_path)
    (tmp_path / "weighted.toml").write_text(WEIGHTED_RULES)
    out = tmp_path / "board.csv"
    result = _cli("score", *targets, "-m", "rmse", "-m", "mae", "--rules", tmp_path / "weighted.toml",
                  tmp_path / "listing.csv", "-o", out)
    assert result.exit_code == 0, result.output + result.stderr
    assert pd.read_csv(out)["team"].tolist() == ["a", "c", "b"]
    refused = _cli("score", *targets, "-m", "rmse", "--rules", tmp_path / "weighted.toml", tmp_path / "listing.csv",
                   "-o", out)
    assert refused.exit_code == 2 and "--rules combines several metrics: give --metric at least twice." in \
        refused.stderr
    missing = _cli("score", *targets, "-m", "rmse", "-m", "mae", "--rules", "nope", tmp_path / "listing.csv",
                   "-o", out)
    assert missing.exit_code == 2 and "No rules preset or file called 'nope'" in missing.stderr


def test_cli_serve_print_command_with_inputs(tmp_path):
    targets = _write_competition(tmp_path)
    result = _cli("serve", *targets, "-m", "rmse", "-m", "mae", "--rule", "best-preliminary",
                  tmp_path / "listing.csv", "--port", "8123", "--print-command")
    assert result.exit_code == 0, result.output + result.stderr
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("SRDASH_PREDICTIONS=")
    options = json.loads(lines[0].split("=", 1)[1])
    assert options == {"submissions": str((tmp_path / "listing.csv").resolve()), "metrics": ["rmse", "mae"],
                       "rule": "best-preliminary", "max_selected": 2, "order": "submitted_at",
                       "targets_preliminary": str((tmp_path / "p.txt").resolve()),
                       "targets_final": str((tmp_path / "f.txt").resolve())}
    # srdash's Voilà template (no CDN links) is found through JUPYTER_PATH, printed before the command
    assert lines[1].startswith("JUPYTER_PATH=") and lines[1].endswith("srdash/apps/jupyter")
    command = lines[2].split()
    assert command[1:3] == ["-m", "srdash.apps.voila_main"] and command[3].endswith("predictions.ipynb")
    assert "--template=srdash" in command
    assert "--port=8123" in command and "--Voila.ip=127.0.0.1" in command
    assert "3 submissions of 3 teams; 4 test samples." in result.stderr
    # the options the app receives score the same competition
    assert score_from_options(options).combined.final_leaderboard["team"].tolist() == ["c", "a", "b"]


def test_cli_serve_without_inputs_serves_the_demo(monkeypatch):
    monkeypatch.setenv("SRDASH_PREDICTIONS", '{"submissions": "old"}')
    result = _cli("serve", "--print-command", "--port", "8124")
    assert result.exit_code == 0, result.output + result.stderr
    lines = result.stdout.strip().splitlines()
    # no SRDASH_PREDICTIONS (the demo): the template's JUPYTER_PATH and the command
    assert len(lines) == 2 and lines[0].startswith("JUPYTER_PATH=") and "predictions.ipynb" in lines[1]


@pytest.mark.parametrize("args, code, message", [
    (["-m", "mae"], 2, r"--metric only apply to SUBMISSIONS; without SUBMISSIONS the built-in demo"),
    (["LISTING", "-m", "rmse"], 2, r"The targets are missing: give --targets-preliminary and --targets-final"),
    (["LISTING", "BADTARGETS"], 1, r"Error: The test files are not valid \(1 problem\):\n  - .*p.txt, row 3: "
                                   r"this sample has a target in both test files"),
    (["LISTING", "TARGETS", "-m", "rmse", "-m", "mae", "--rules", "RULES"], 1,
     r"The rules 'pred-weighted' do not fit the scored metrics \('rmse', 'mae'\): criterion 'rmse' says higher"),
])
def test_cli_serve_validates_inputs_first(tmp_path, args, code, message):
    targets = _write_competition(tmp_path / "ok")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "p.txt").write_text("0\n0\n0\n\n")
    (tmp_path / "bad" / "f.txt").write_text("\n\n0\n0\n")
    (tmp_path / "wrong.toml").write_text(WEIGHTED_RULES.replace('direction = "lower"', 'direction = "higher"', 1))
    replaced = []
    for arg in args:
        if arg == "LISTING":
            replaced.append(tmp_path / "ok" / "listing.csv")
        elif arg == "TARGETS":
            replaced += targets
        elif arg == "BADTARGETS":
            replaced += ["--targets-preliminary", tmp_path / "bad" / "p.txt", "--targets-final",
                         tmp_path / "bad" / "f.txt"]
        elif arg == "RULES":
            replaced.append(tmp_path / "wrong.toml")
        else:
            replaced.append(arg)
    result = _cli("serve", *replaced, "--print-command")
    assert result.exit_code == code, result.output + result.stderr
    assert re.search(message, result.stderr)


def test_cli_report_writes_the_html_and_markdown(tmp_path):
    targets = _write_competition(tmp_path, names=("a", "<b>x</b>", "c"))
    out = tmp_path / "report.html"
    result = _cli("report", *targets, "-m", "rmse", "-m", "mae", tmp_path / "listing.csv", "-o", out,
                  "--samples", "100")
    assert result.exit_code == 0, result.output + result.stderr
    page = out.read_text()
    assert _table_places(_section(page, "combined"))[:3] == [(1, "c"), (2, "a"), (3, "&lt;b&gt;x&lt;/b&gt;")]
    assert "<b>x</b>" not in page
    assert re.search(r"Wrote .*report.html \(html, [\d,]+ bytes, 3 teams, verdict fingerprint [0-9a-f]{12}\)",
                     result.stderr)
    # every submission file is fingerprinted
    assert page.count('data-key="input_sha256:') == 5  # two test files and three submissions
    md = _cli("report", *targets, "-m", "rmse", tmp_path / "listing.csv", "-o", tmp_path / "report.md")
    assert md.exit_code == 0, md.output + md.stderr
    assert "| 1 | c |" in (tmp_path / "report.md").read_text()


def test_cli_help_of_serve_and_report():
    for command, expected in (("serve", ("built-in demo", "--print-command", "--rules", "slope chart")),
                              ("report", ("needs no server", "shake-up slope chart", "--samples"))):
        result = _cli(command, "--help")
        text = " ".join(result.output.split())
        assert result.exit_code == 0
        for phrase in expected:
            assert phrase in text, (command, phrase)
