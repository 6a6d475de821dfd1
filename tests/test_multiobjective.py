"""Normalised, weighted meta-score rules (srdash.judging.multiobjective) and the evalrs2022 preset."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.cli import main
from srdash.errors import RulesError, SrdashError, ValidationError
from srdash.judging.multiobjective import judge_submissions, load_submissions, scheme_from_rules
from srdash.judging.rules import parse_rules

REALDATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "realdata"
EVALRS = REALDATA / "evalrs2022" / "evalrs_2022_submissions.parquet"
needs_realdata = pytest.mark.skipif(not EVALRS.is_file(),
                                    reason=f"real EvalRS data not found at {EVALRS} (../shared/realdata is absent)")

# ---------------------------------------------------------------------------
# A tiny competition, computed by hand.
#   normalised = (value - baseline) / (best - baseline)
#   acc: baseline 0.1, best 0.5; div: 0, 1; fair: -0.5, 0
#   meta-scores: performance = acc; beyond = mean(div, fair); weights 1 and 2
#   stage 2 = (1 * performance + 2 * beyond) / 3; acc < 0.12 scores -100
#
# t1  s1 (.3, .5, -.25) stage1 .55/3 = .183333  <- selected (s2: (.5 + .2 - .4)/3 = .1)
#        acc (.3-.1)/.4 = .5, div .5, fair (-.25+.5)/.5 = .5 -> perf .5, beyond .5 -> stage2 .5
# t2  s3 (.5, .8, -.1)  stage1 .4: acc 1, div .8, fair .8 -> perf 1, beyond .8 -> (1 + 1.6)/3 = .866667
# t3  s4 (.11, 1, 0)    stage1 .37: acc .11 < .12 -> stage2 -100 (perf .025, beyond 1)
# t4  s5 (.25, .5, -.25) on Jan 2 and s6 (.375, .375, -.25) on Jan 1: both stage1 .5/3 (exact in
#     binary): the earliest, s6, is selected: acc .6875, div .375, fair .5 -> beyond .4375
#     -> stage2 (.6875 + .875)/3 = .520833   (s5 would give (.375 + 1)/3 = .458333)
# Leaderboard: t2 .866667, t4 .520833, t1 .5, t3 -100.
# ---------------------------------------------------------------------------
TINY_RULES = """
name = "tiny-normalised"
kind = "normalised-weighted"
[submissions]
team = "team"
submitted_at = "submitted_at"
[normalisation]
baseline = "constants"
best = "constants"
[baseline]
acc = 0.1
div = 0.0
fair = -0.5
[best]
acc = 0.5
div = 1.0
fair = 0.0
[thresholds.acc]
minimum = 0.12
action = "score"
score = -100.0
[groups.performance]
metrics = ["acc"]
weight = 1.0
[groups.beyond]
label = "Beyond accuracy"
metrics = ["div", "fair"]
weight = 2.0
[[criteria]]
name = "acc"
column = "acc"
[[criteria]]
name = "div"
column = "div"
[[criteria]]
name = "fair"
column = "fair"
"""


def tiny_submissions() -> pd.DataFrame:
    return pd.DataFrame({
        "team": ["t1", "t1", "t2", "t3", "t4", "t4"],
        "acc": [0.3, 0.5, 0.5, 0.11, 0.25, 0.375],
        "div": [0.5, 0.2, 0.8, 1.0, 0.5, 0.375],
        "fair": [-0.25, -0.4, -0.1, 0.0, -0.25, -0.25],
        "submitted_at": pd.to_datetime(["2022-01-01", "2022-01-02", "2022-01-01", "2022-01-01",
                                        "2022-01-02", "2022-01-01"]),
    })


def tiny_rules(text: str = TINY_RULES):
    return parse_rules(text, source="tiny.toml")


def test_tiny_competition_matches_the_hand_computation():
    verdict = judge_submissions(tiny_submissions(), tiny_rules())
    board = verdict.leaderboard
    assert list(board.columns[:6]) == ["place", "team", "stage1", "stage2", "performance", "beyond"]
    assert board["team"].tolist() == ["t2", "t4", "t1", "t3"]
    assert board["place"].tolist() == [1, 2, 3, 4]
    assert board["stage2"].tolist() == pytest.approx([2.6 / 3, 1.5625 / 3, 0.5, -100.0])
    assert board["stage1"].tolist() == pytest.approx([0.4, 0.5 / 3, 0.55 / 3, 0.37])
    assert board["stage1_place"].tolist() == [1, 4, 3, 2]
    assert board.set_index("team").loc["t3", "status"] == "acc < 0.12: score -100"
    assert board.set_index("team").loc["t3", "performance"] == pytest.approx(0.025)
    assert board["submission"].tolist() == [3, 6, 1, 4]  # 1-based input rows of the selected ones
    assert verdict.submissions["selected"].tolist() == [True, False, True, True, False, True]
    assert verdict.winner == "t2"


def test_equal_stage1_scores_select_the_earliest_submission_then_the_first():
    frame = tiny_submissions()
    verdict = judge_submissions(frame, tiny_rules())
    assert verdict.leaderboard.set_index("team").loc["t4", "submission"] == 6  # s6, submitted first
    without_times = judge_submissions(frame.drop(columns="submitted_at"), tiny_rules())
    assert without_times.leaderboard.set_index("team").loc["t4", "submission"] == 5  # input order
    assert without_times.leaderboard.set_index("team").loc["t4", "stage2"] == pytest.approx(1.375 / 3)


def test_a_threshold_can_exclude_instead_of_scoring():
    verdict = judge_submissions(tiny_submissions(), tiny_rules(TINY_RULES.replace(
        'action = "score"\nscore = -100.0', 'action = "exclude"')))
    assert verdict.leaderboard["team"].tolist() == ["t2", "t4", "t1"]
    excluded = verdict.problems[verdict.problems["kind"] == "excluded"]
    assert excluded["team"].tolist() == ["t3"]
    assert "acc < 0.12: excluded" in excluded["detail"].iloc[0]


def test_references_computed_from_the_teams_span_zero_to_one():
    rules = tiny_rules(TINY_RULES.replace('baseline = "constants"\nbest = "constants"',
                                          'baseline = "worst-of-teams"\nbest = "best-of-teams"'))
    verdict = judge_submissions(tiny_submissions(), rules)
    normalised = verdict.normalised.set_index("team")
    assert (normalised.min() == 0).all() and (normalised.max() == 1).all()
    # selected submissions: acc .3 .5 .11 .375 -> baseline .11, best .5
    assert verdict.baseline["acc"] == 0.11 and verdict.best["acc"] == 0.5


def test_a_reference_team_gives_the_baseline():
    rules = tiny_rules(TINY_RULES.replace('baseline = "constants"', 'baseline = "team:t1"'))
    verdict = judge_submissions(tiny_submissions(), rules)
    assert dict(verdict.baseline) == {"acc": 0.3, "div": 0.5, "fair": -0.25}
    assert verdict.leaderboard.set_index("team").loc["t1", "stage2"] == 0.0


def test_missing_metric_values_make_a_submission_ineligible():
    frame = pd.concat([tiny_submissions(), pd.DataFrame({
        "team": ["t1", "t5"], "acc": [0.9, 0.4], "div": [0.9, np.nan], "fair": [np.nan, 0.0],
        "submitted_at": pd.to_datetime(["2022-01-03", "2022-01-03"])})], ignore_index=True)
    verdict = judge_submissions(frame, tiny_rules())
    assert verdict.leaderboard.set_index("team").loc["t1", "submission"] == 1  # row 7 (acc .9) is not eligible
    assert "t5" not in set(verdict.leaderboard["team"])
    kinds = verdict.problems.set_index("submission", drop=False)
    assert verdict.problems["kind"].tolist() == ["missing value", "missing value", "no eligible submission"]
    assert kinds["detail"].iloc[0] == "no value for fair; the submission is not eligible"


def test_scaling_the_weights_changes_nothing_and_uniform_weights_give_the_plain_mean():
    frame, rules = tiny_submissions(), tiny_rules()
    official = judge_submissions(frame, rules).leaderboard
    scaled = judge_submissions(frame, rules, weights={"performance": 7.5, "beyond": 15.0}).leaderboard
    pd.testing.assert_frame_equal(official.drop(columns="stage2"), scaled.drop(columns="stage2"))
    assert scaled["stage2"].tolist() == pytest.approx(official["stage2"].tolist())
    uniform = judge_submissions(frame, rules, weights={"performance": 1.0, "beyond": 1.0}).leaderboard
    ok = uniform["status"] == "ok"
    assert uniform.loc[ok, "stage2"].tolist() == pytest.approx(
        ((uniform.loc[ok, "performance"] + uniform.loc[ok, "beyond"]) / 2).tolist())


@pytest.mark.parametrize("weights, message", [
    ({"speed": 1.0}, "Unknown meta-score in weights: speed. Meta-scores: performance, beyond."),
    ({"beyond": -1.0}, r"Meta-score weights must be finite numbers >= 0. Got beyond = -1.0."),
    ({"performance": 0.0, "beyond": 0.0}, "At least one meta-score weight must be > 0."),
])
def test_bad_weights_are_refused(weights, message):
    with pytest.raises(RulesError, match=message.replace("(", r"\(").replace(")", r"\)")):
        judge_submissions(tiny_submissions(), tiny_rules(), weights=weights)


# --------------------------------------------------------------------------- rules errors


@pytest.mark.parametrize("edit, message", [
    (('metrics = ["acc"]', 'metrics = ["acc", "speed"]'), "names unknown metric(s) speed. Criteria: acc, div, fair."),
    (("fair = -0.5\n", ""), "[baseline] has no value for fair; every grouped metric needs one."),
    (("acc = 0.1\n", "acc = 0.5\n"), "baseline and best are equal for acc; min-max normalisation would divide by 0."),
    (('action = "score"', 'action = "drop"'), "'action' must be one of 'score', 'exclude'. Got 'drop'."),
    (('kind = "normalised-weighted"', 'kind = "normalised-weighted"\ncolour = "red"'), "unknown top-level key(s) colour."),
    (('metrics = ["acc"]', 'metrics = ["acc", "div"]'), "metric 'div' is in two groups (performance and beyond)"),
    (('baseline = "constants"', 'baseline = "median"'), "[normalisation] 'baseline' must be one of 'constants', "
                                                       "'worst-of-teams', 'team:<name>'. Got 'median'."),
    (('score = -100.0', ''), "with action = 'score' needs 'score'"),
    (('[groups.performance]', '[groups.performance]\ncolour = 1'), "[groups.performance] has unknown key(s) colour."),
    (('column = "acc"', 'column = "acc"\nweight = 0.0'), "[groups.performance]: every metric of the group has "
                                                         "weight 0; its mean is undefined."),
])
def test_invalid_rules_say_what_is_wrong(edit, message):
    old, new = edit
    assert old in TINY_RULES
    with pytest.raises(RulesError) as error:
        judge_submissions(tiny_submissions(), tiny_rules(TINY_RULES.replace(old, new, 1)))
    assert message in str(error.value)
    assert str(error.value).startswith("The rules 'tiny-normalised' (tiny.toml) are not valid (1 problem):")


def test_every_rules_problem_is_reported_at_once():
    text = TINY_RULES.replace('action = "score"', 'action = "drop"').replace("fair = -0.5\n", "").replace(
        'weight = 2.0', 'weight = "heavy"')
    with pytest.raises(RulesError, match=r"are not valid \(3 problems\)"):
        scheme_from_rules(tiny_rules(text))


def test_rank_harmonic_rules_are_refused():
    with pytest.raises(RulesError, match="are of kind 'rank-harmonic'; normalised-weighted scoring needs rules"):
        judge_submissions(tiny_submissions(), "srbench2022")


# --------------------------------------------------------------------------- input errors


def test_every_input_problem_is_listed_with_its_row_and_column():
    frame = tiny_submissions().drop(columns="fair").assign(acc=["0.3", "high", 0.5, 0.11, "", 0.375])
    frame.loc[2, "team"] = " "
    with pytest.raises(ValidationError) as error:
        load_submissions(frame, tiny_rules())
    assert [str(p) for p in error.value.problems] == [
        "<DataFrame>: metric column(s) 'fair' missing. Columns: team, acc, div, submitted_at.",
        "<DataFrame>, row 3, column 'team': the team name is empty.",
        "<DataFrame>, row 2, column 'acc': 'high' is not a number; a metric column holds numbers (empty means missing).",
    ]


def test_a_missing_team_column_lists_the_columns(tmp_path):
    path = tmp_path / "subs.csv"
    tiny_submissions().rename(columns={"team": "who"}).to_csv(path, index=False)
    with pytest.raises(ValidationError, match=r"the team column 'team' is missing \(also accepted: team, "
                                              r"participant_id, method\). Columns: who, acc, div, fair, submitted_at"):
        load_submissions(path, tiny_rules())


def test_unreadable_inputs_are_refused(tmp_path):
    with pytest.raises(SrdashError, match="Cannot find the submissions file"):
        load_submissions(tmp_path / "nope.csv", tiny_rules())
    (tmp_path / "subs.json").write_text("{}")
    with pytest.raises(SrdashError, match=r"submissions come as a .csv, .tsv or .parquet file"):
        load_submissions(tmp_path / "subs.json", tiny_rules())


def test_a_csv_file_gives_the_same_verdict_as_the_dataframe(tmp_path):
    path = tmp_path / "subs.csv"
    tiny_submissions().to_csv(path, index=False)
    from_file = judge_submissions(path, tiny_rules()).leaderboard
    pd.testing.assert_frame_equal(from_file, judge_submissions(tiny_submissions(), tiny_rules()).leaderboard)


def test_cli_score_dispatches_normalised_weighted_rules(tmp_path):
    (tmp_path / "rules.toml").write_text(TINY_RULES)
    tiny_submissions().to_csv(tmp_path / "subs.csv", index=False)
    out = tmp_path / "board.csv"
    result = CliRunner().invoke(main, ["score", str(tmp_path / "subs.csv"), "--rules", str(tmp_path / "rules.toml"),
                                       "-o", str(out), "--per-dataset", str(tmp_path / "subs_scored.csv")])
    assert result.exit_code == 0, result.output
    board = pd.read_csv(out)
    assert board.columns[:6].tolist() == ["place", "team", "stage1", "stage2", "performance", "beyond"]
    assert board["team"].tolist() == ["t2", "t4", "t1", "t3"]
    assert "1 team(s) fail a threshold: acc < 0.12: score -100." in result.output
    assert pd.read_csv(tmp_path / "subs_scored.csv")["selected"].sum() == 4
    assert (tmp_path / "board.csv.provenance.json").is_file()


def test_cli_score_reports_bad_submissions_cleanly(tmp_path):
    (tmp_path / "rules.toml").write_text(TINY_RULES)
    tiny_submissions().drop(columns="div").to_csv(tmp_path / "subs.csv", index=False)
    result = CliRunner().invoke(main, ["score", str(tmp_path / "subs.csv"), "--rules", str(tmp_path / "rules.toml")])
    assert result.exit_code == 1
    assert "metric column(s) 'div' missing" in result.output


# --------------------------------------------------------------------------- the evalrs2022 preset

# The organisers' constants, typed here from the published replication code
# (github.com/RecList/e-pluribus-unum-evalrs-2022, README.md, class PhaseOne), so that the
# hand computation below does not depend on the preset it checks.
CBOW = {"hit_rate": 0.018763, "mrr": 0.001654, "mred_country": -0.006944, "mred_user_activity": -0.012460,
        "mred_track_popularity": -0.006816, "mred_artist_popularity": -0.003915, "mred_gender": -0.004354,
        "being_less_wrong": 0.2744871, "latent_diversity": -0.324706}
BEST_P1 = {"hit_rate": 0.264642, "mrr": 0.067493, "mred_country": -0.004490, "mred_user_activity": -0.006922,
           "mred_track_popularity": -0.005865, "mred_artist_popularity": -0.003623, "mred_gender": -0.000032,
           "being_less_wrong": 0.40635, "latent_diversity": -0.202812}
METRICS = ["hit_rate", "mrr", "mred_country", "mred_track_popularity", "mred_user_activity",
           "mred_artist_popularity", "mred_gender", "being_less_wrong", "latent_diversity"]


def test_the_evalrs2022_preset_holds_the_published_rules():
    scheme = scheme_from_rules("evalrs2022")
    assert dict(scheme.baseline) == CBOW and dict(scheme.best) == BEST_P1
    assert [(g.name, g.metrics, g.weight) for g in scheme.groups] == [
        ("performance", ("hit_rate", "mrr"), 1.0),
        ("fairness", ("mred_country", "mred_user_activity", "mred_track_popularity", "mred_artist_popularity",
                      "mred_gender"), 1.5),
        ("behavioural", ("being_less_wrong", "latent_diversity"), 1.5)]
    (threshold,) = scheme.thresholds
    assert (threshold.metric, threshold.minimum, threshold.action, threshold.score) == ("hit_rate", 0.015, "score", -100.0)
    assert sorted(c.name for c in scheme.metrics) == sorted(METRICS)
    assert {c.direction for c in scheme.metrics} == {"higher"}
    assert scheme.team_column == "participant_id"


def _hand_stage2(row: pd.Series) -> float:
    """The organisers' get_score_stage_two, written out again from the published code."""
    if row["hit_rate"] < 0.015:
        return -100.0
    n = {m: (row[m] - CBOW[m]) / (BEST_P1[m] - CBOW[m]) for m in METRICS}
    performance = (n["hit_rate"] + n["mrr"]) / 2
    fairness = (n["mred_country"] + n["mred_user_activity"] + n["mred_track_popularity"]
                + n["mred_artist_popularity"] + n["mred_gender"]) / 5
    behavioural = (n["being_less_wrong"] + n["latent_diversity"]) / 2
    return (1 * performance + 1.5 * fairness + 1.5 * behavioural) / (1 + 1.5 + 1.5)


@pytest.mark.realdata
@needs_realdata
def test_evalrs2022_leaderboard_from_the_real_submissions():
    raw = pd.read_parquet(EVALRS)
    verdict = judge_submissions(EVALRS, "evalrs2022")
    board = verdict.leaderboard
    assert len(raw) == 770 and len(board) == 57
    assert board.columns[:7].tolist() == ["place", "team", "stage1", "stage2", "performance", "fairness",
                                          "behavioural"]
    assert board["stage2"].is_monotonic_decreasing
    assert verdict.problems.empty

    # Each team's best stage-1 submission, recomputed here: the plain mean of the nine metrics.
    raw = raw.assign(stage1=raw[METRICS].mean(axis=1))
    best = raw.loc[raw.groupby("participant_id")["stage1"].idxmax()].set_index("participant_id")
    assert int((best["hit_rate"] < 0.015).sum()) == int((board["stage2"] == -100).sum())

    # One team's stage-2 score by hand: the team in second place.
    team = board["team"].iloc[1]
    expected = _hand_stage2(best.loc[team])
    assert board["stage2"].iloc[1] == pytest.approx(expected, rel=1e-12)
    # ... and every other team's too, and their stage-1 scores.
    by_team = board.set_index("team")
    hand = best.apply(_hand_stage2, axis=1)
    assert by_team["stage2"].to_numpy() == pytest.approx(hand.loc[by_team.index].to_numpy(), rel=1e-12)
    assert by_team["stage1"].to_numpy() == pytest.approx(best.loc[by_team.index, "stage1"].to_numpy(), rel=1e-12)


@pytest.mark.realdata
@needs_realdata
def test_cli_score_on_the_real_evalrs_submissions(tmp_path):
    out = tmp_path / "leaderboard.csv"
    result = CliRunner().invoke(main, ["score", str(EVALRS), "--rules", "evalrs2022", "-o", str(out)])
    assert result.exit_code == 0, result.output
    board = pd.read_csv(out)
    assert len(board) == 57
    assert board.columns.tolist()[:7] == ["place", "team", "stage1", "stage2", "performance", "fairness",
                                          "behavioural"]
    assert board["place"].iloc[0] == 1


# --------------------------------------------------------------------------- refusals while judging


def test_judging_refuses_what_cannot_be_ranked(tmp_path):
    nothing_eligible = tiny_submissions().assign(fair=np.nan)
    with pytest.raises(SrdashError, match=r"No team has an eligible submission \(one with every metric value\)"):
        judge_submissions(nothing_eligible, tiny_rules())
    everyone_excluded = tiny_rules(TINY_RULES.replace('minimum = 0.12\naction = "score"\nscore = -100.0',
                                                      'minimum = 0.9\naction = "exclude"'))
    with pytest.raises(SrdashError, match="Every team is excluded by the rules' thresholds; nothing to rank."):
        judge_submissions(tiny_submissions(), everyone_excluded)
    flat = tiny_rules(TINY_RULES.replace('baseline = "constants"\nbest = "constants"',
                                         'baseline = "worst-of-teams"\nbest = "best-of-teams"'))
    with pytest.raises(SrdashError, match="The computed best and baseline are equal for div"):
        judge_submissions(tiny_submissions().assign(div=0.5), flat)
    absent = tiny_rules(TINY_RULES.replace('baseline = "constants"', 'baseline = "team:cbow"'))
    with pytest.raises(SrdashError, match="The rules take the baseline from team 'cbow', which has no eligible"):
        judge_submissions(tiny_submissions(), absent)
    (tmp_path / "broken.parquet").write_text("not parquet")
    with pytest.raises(SrdashError, match="Cannot read the submissions file '.*broken.parquet'"):
        judge_submissions(tmp_path / "broken.parquet", tiny_rules())
