"""Juries with rubrics (srdash.judging.jury) and their scores in the trust store."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from srdash.errors import RulesError
from srdash.judging.jury import (Rubric, RubricCriterion, jury_summary, jury_table, rubric_from_rules,
                                 trust_entries_as_scores)
from srdash.judging.ranking import judge
from srdash.judging.rules import load_rules
from srdash.judging.trust import TrustStore, TrustStoreError, trust_summary

RULES = """
name = "tiny-jury"
kind = "rank-harmonic"

[rubric]
scale = [1, 5]
normalisation = "{normalisation}"
disagreement = 2.0

[[rubric.criteria]]
name = "pipeline"
weight = 2.0

[[rubric.criteria]]
name = "insight"
weight = 1.0

[[criteria]]
name = "jury"
column = "jury_score"
direction = "higher"
decimals = 3
"""

# Three jurors score three entries of one dataset on (pipeline, insight), weights 2:1, so a
# juror's score of an entry is (2 * pipeline + insight) / 3:
#   ann: a (4, 1) -> 3    b (2, 5) -> 3    c (5, 5) -> 5
#   bob: a (5, 2) -> 4    b (4, 1) -> 3    c (1, 1) -> 1     <- c is built to split ann and bob
#   cy:  a (5, 5) -> 5    b (4, 4) -> 4    c (5, 2) -> 4     (cy is lenient)
SCORES = {
    "ann": {"a": (4, 1), "b": (2, 5), "c": (5, 5)},
    "bob": {"a": (5, 2), "b": (4, 1), "c": (1, 1)},
    "cy": {"a": (5, 5), "b": (4, 4), "c": (5, 2)},
}


@pytest.fixture
def competition(tmp_path):
    """The jury's scores, entered through the store as the app does (one score at a time)."""
    rubric = rubric_from_rules(_rules(tmp_path, "none"))
    with TrustStore(tmp_path / "trust.sqlite", seed=5) as store:
        for juror, entries in SCORES.items():
            for method, (pipeline, insight) in entries.items():
                store.record_score(juror, "d", method, "pipeline", pipeline, rubric=rubric)
                store.record_score(juror, "d", method, "insight", insight, rubric=rubric)
        yield store


def _rules(tmp_path, normalisation):
    path = tmp_path / f"jury-{normalisation}.toml"
    path.write_text(RULES.format(normalisation=normalisation))
    return load_rules(path)


def test_three_jurors_plain_mean_the_2023_rule(tmp_path, competition):
    rules = _rules(tmp_path, "none")
    summary = jury_summary(competition.jury_scores(), rubric_from_rules(rules))
    table = summary.table.set_index("method")
    # plain means: a (3 + 4 + 5) / 3 = 4; b (3 + 3 + 4) / 3 = 10/3; c (5 + 1 + 4) / 3 = 10/3
    assert table["score"].tolist() == pytest.approx([4.0, 10 / 3, 10 / 3])
    assert table["rank"].tolist() == [1.0, 2.5, 2.5]            # b and c tie
    assert table["jurors"].tolist() == [3, 3, 3]
    entries = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "run": 0})
    verdict = judge(jury_table(entries, summary), rules)
    assert verdict.leaderboard["method"].iloc[0] == "a"


def test_three_jurors_with_per_juror_z_scores(tmp_path, competition):
    rules = _rules(tmp_path, "z-score")
    summary = jury_summary(competition.jury_scores(), rubric_from_rules(rules))
    table = summary.table.set_index("method")
    # per-juror z-scores (population standard deviation):
    #   ann [3, 3, 5]: mean 11/3, sd sqrt(8)/3  -> [-0.7071, -0.7071, 1.4142]
    #   bob [4, 3, 1]: mean 8/3,  sd sqrt(14)/3 -> [ 1.0690,  0.2673, -1.3363]
    #   cy  [5, 4, 4]: mean 13/3, sd sqrt(2)/3  -> [ 1.4142, -0.7071, -0.7071]
    # means: a 0.5920, b -0.3823, c -0.2097: the lenient cy no longer lifts b, so c passes b
    assert table["score_z"].tolist() == pytest.approx([0.5920, -0.3823, -0.2097], abs=1e-4)
    assert table["rank"].tolist() == [1.0, 3.0, 2.0]
    assert table["score"].tolist() == pytest.approx([4.0, 10 / 3, 10 / 3])   # both are shown
    entries = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "run": 0})
    table = jury_table(entries, summary)
    assert table["jury_score"].tolist() == pytest.approx([0.5920, -0.3823, -0.2097], abs=1e-4)
    verdict = judge(table, rules)
    assert verdict.leaderboard["method"].tolist()[:2] == ["a", "c"]


def test_disagreement_flags_the_entry_built_to_split_the_jury(tmp_path, competition):
    summary = jury_summary(competition.jury_scores(), rubric_from_rules(_rules(tmp_path, "none")))
    # spreads (highest minus lowest juror score): a 5 - 3 = 2, b 4 - 3 = 1, c 5 - 1 = 4; threshold 2
    assert summary.table.set_index("method")["spread"].tolist() == [2.0, 1.0, 4.0]
    assert summary.table.set_index("method")["flagged"].tolist() == [False, False, True]
    assert summary.flags[["method", "scores", "spread"]].values.tolist() == [["c", "ann 5, bob 1, cy 4", 4.0]]
    # Kendall's W of the jurors' orders (ties averaged): ann a 2.5 b 2.5 c 1; bob 1 2 3; cy 1 2.5 2.5;
    # rank sums 4.5, 7, 6.5 (mean 6), S = 3.5; tie terms ann 6, cy 6;
    # W = 12 * 3.5 / (3**2 * (3**3 - 3) - 3 * 12) = 42 / 180
    assert summary.agreement["kendalls_w"].iloc[0] == pytest.approx(42 / 180)
    assert summary.agreement[["jurors", "entries"]].values.tolist() == [[3, 3]]


def test_incomplete_scores_are_left_out_and_said(tmp_path, competition):
    rubric = rubric_from_rules(_rules(tmp_path, "none"))
    competition.record_score("dee", "d", "a", "pipeline", 1, rubric=rubric)      # no insight score
    summary = jury_summary(competition.jury_scores(), rubric, {"d": ["a", "b", "c", "e"]})
    assert summary.problems.values.tolist() == [["dee", "d", "a", "left out: no score for insight"]]
    table = summary.table.set_index("method")
    assert table.loc["a", "jurors"] == 3
    assert math.isnan(table.loc["e", "score"]) and table.loc["e", "rank"] == 4.0   # unscored: last


def test_store_refuses_scores_off_the_rubric_and_keeps_history(tmp_path, competition):
    rubric = rubric_from_rules(_rules(tmp_path, "none"))
    for bad, message in ((float("inf"), r"must be a number from 1 to 5\. Got inf"),
                         (float("nan"), r"Got nan"), (6, r"Got 6"), ("high", r"Got 'high'")):
        with pytest.raises(TrustStoreError, match=message):
            competition.record_score("ann", "d", "a", "pipeline", bad, rubric=rubric)
    with pytest.raises(TrustStoreError, match=r"no criterion 'beauty'\. Criteria: pipeline, insight"):
        competition.record_score("ann", "d", "a", "beauty", 3, rubric=rubric)
    with pytest.raises(TrustStoreError, match=r"must be a finite number\. Got inf"):
        competition.record_score("ann", "d", "a", "pipeline", float("inf"))
    assert len(competition.jury_history()) == 18
    assert competition.jury_scores(judge="bob")["judge"].unique().tolist() == ["bob"]


def test_a_score_survives_reopening_the_store(tmp_path, competition):
    path = competition.path
    competition.close()
    with TrustStore(path, read_only=True) as again:
        assert len(again.jury_scores()) == 18


def test_single_expert_trust_ranks_are_a_one_juror_one_criterion_jury():
    entries = pd.DataFrame({"judge": "expert", "dataset": ["d"] * 4 + ["e"] * 3,
                            "method": ["a", "b", "c", "z", "a", "b", "c"], "kind": "rank",
                            "value": [3.0, 1.0, 4.0, 2.0, 2.0, 3.0, 1.0]})
    rubric = Rubric((RubricCriterion("trust"),), scale=(1, 4))
    jury = jury_summary(trust_entries_as_scores(entries), rubric).table
    trust = trust_summary(entries).table
    assert jury["rank"].tolist() == trust["trust"].tolist()


@pytest.mark.parametrize("section, message", [
    ("[rubric]\nscale = [5, 1]\n[[rubric.criteria]]\nname = 'x'", r"'scale' must be \[lowest, highest\]"),
    ("[rubric]\nnormalisation = 'rank'\n[[rubric.criteria]]\nname = 'x'",
     r"'normalisation' must be one of 'none', 'z-score'\. Got 'rank'"),
    ("[rubric]\ncolour = 1\n[[rubric.criteria]]\nname = 'x'", r"unknown key\(s\) colour"),
    ("[rubric]\nscale = [1, 5]", r"at least one \[\[rubric.criteria\]\]"),
    ("[rubric]\n[[rubric.criteria]]\nname = 'x'\nweight = -1", r"criterion 'x': 'weight' must be a positive"),
    ("[rubric]\n[[rubric.criteria]]\nname = 'x'\n[[rubric.criteria]]\nname = 'x'", r"'x' more than once"),
    ("[rubric]\ndisagreement = -1\n[[rubric.criteria]]\nname = 'x'", r"'disagreement' must be a number"),
])
def test_rubric_errors_name_the_rules(tmp_path, section, message):
    path = tmp_path / "bad.toml"
    path.write_text(f"name = 'bad'\n[[criteria]]\nname = 'jury'\ncolumn = 'jury_score'\n{section}\n")
    with pytest.raises(RulesError, match=r"rules 'bad', \[rubric\]: .*" + message):
        rubric_from_rules(path)


def test_preset_srbench2023_track2():
    rules = load_rules("srbench2023-track2")
    rubric = rubric_from_rules(rules)
    assert [c.label for c in rubric.criteria] == ["Detail of the pipeline", "Interpretability of the models",
                                                 "Pre- and post-analysis", "Insight only SR can give"]
    assert rubric.weights == {"pipeline": 0.25, "interpretability": 0.25, "analysis": 0.25, "insight": 0.25}
    assert [c.column for c in rules.criteria] == ["jury_score"]


def test_verdict_invariant_to_juror_and_entry_order(tmp_path, competition):
    rubric = rubric_from_rules(_rules(tmp_path, "z-score"))
    scores = competition.jury_scores()
    once = jury_summary(scores, rubric).table
    shuffled = jury_summary(scores.sample(frac=1, random_state=3), rubric).table
    pd.testing.assert_frame_equal(once, shuffled)


# --------------------------------------------------------------------------- import and the CLI


def _scores_csv(path):
    rows = [(juror, "d", method, criterion, value) for juror, entries in SCORES.items()
            for method, pair in entries.items() for criterion, value in zip(("pipeline", "insight"), pair)]
    pd.DataFrame(rows, columns=["judge", "dataset", "method", "criterion", "score"]).to_csv(path, index=False)


def test_import_scores_refuses_bad_rows_with_their_numbers(tmp_path):
    rubric = rubric_from_rules(_rules(tmp_path, "none"))
    with TrustStore(tmp_path / "t.sqlite") as store:
        with pytest.raises(Exception) as caught:
            store.import_scores_csv(Path(__file__).parent / "data" / "hostile" / "jury_scores_bad.csv", rubric)
        text = str(caught.value)
        assert "is not valid (4 problems)" in text
        assert "row 2, column 'score': A score of 'insight' must be a number from 1 to 5. Got 'inf'." in text
        assert "row 3, column 'score': A score of 'pipeline' must be a number from 1 to 5. Got 'nan'." in text
        assert "row 4, column 'criterion': The rubric has no criterion 'beauty'" in text
        assert "row 5, column 'score'" in text and "Got '9'" in text
        assert store.jury_scores().empty                  # nothing written


def test_cli_jury_shows_both_scores_the_flag_and_the_agreement(tmp_path):
    from click.testing import CliRunner

    from srdash.cli import main

    rules = tmp_path / "jury-none.toml"
    rules.write_text(RULES.format(normalisation="none"))
    source = tmp_path / "scores.csv"
    _scores_csv(source)
    store = tmp_path / "t.sqlite"
    runner = CliRunner()
    assert runner.invoke(main, ["trust", "init", "--store", str(store)]).exit_code == 0
    result = runner.invoke(main, ["trust", "import-scores", str(source), "--store", str(store),
                                  "--rules", str(rules)])
    assert result.exit_code == 0, result.output
    assert "Imported 18 scores" in result.output
    out = tmp_path / "jury.csv"
    result = runner.invoke(main, ["trust", "jury", "--store", str(store), "--rules", str(rules), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "Ranked by the mean score" in result.output
    assert "d: Kendall's W 0.233 over 3 juror(s) who scored all 3 entries" in result.output
    assert "Flag: d / c: the jurors differ by 4 (more than 2): ann 5, bob 1, cy 4" in result.output
    table = pd.read_csv(out)
    assert table[["method", "score", "rank"]].round(3).values.tolist() == [["a", 4.0, 1.0], ["b", 3.333, 2.5],
                                                                          ["c", 3.333, 2.5]]
    assert table["score_z"].tolist() == pytest.approx([0.5920, -0.3823, -0.2097], abs=1e-4)
    exported = tmp_path / "exported.csv"
    result = runner.invoke(main, ["trust", "export", "--scores", "--store", str(store), "-o", str(exported)])
    assert result.exit_code == 0 and "Wrote 18 scores" in result.output
    again = pd.read_csv(exported)
    assert again[["judge", "method", "criterion", "score"]].values.tolist()[:2] == [
        ["ann", "a", "insight", 1.0], ["ann", "a", "pipeline", 4.0]]
    result = runner.invoke(main, ["trust", "jury", "--store", str(store), "--rules", "srbench2022-realworld"])
    assert result.exit_code == 1 and "declare no [rubric]; a jury needs one" in result.output
    result = runner.invoke(main, ["trust", "jury", "--store", str(tmp_path / "typo.sqlite"), "--rules",
                                  str(rules)])
    assert result.exit_code == 1 and "There is no trust store at" in result.output


def test_a_saved_score_survives_kill_9(tmp_path):
    import signal
    import subprocess
    import sys

    path = tmp_path / "trust.sqlite"
    script = (
        "import time\n"
        "from srdash.judging.trust import TrustStore\n"
        f"store = TrustStore({str(path)!r}, seed=3)\n"
        "store.record_score('ann', 'd', 'a', 'insight', 4)\n"
        "print('saved', flush=True)\n"
        "time.sleep(60)\n"
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().strip() == "saved"
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == -signal.SIGKILL
    with TrustStore(path, read_only=True) as reopened:
        assert reopened.jury_scores()[["judge", "method", "criterion", "score"]].values.tolist() == [
            ["ann", "a", "insight", 4.0]]


def test_a_calibration_entry_shows_each_jurors_offset_and_stays_out_of_the_verdict(tmp_path, competition):
    path = tmp_path / "calibrated.toml"
    path.write_text(RULES.format(normalisation="none") + "\n[rubric.calibration]\nmethod = 'ref'\n"
                    "expected = { pipeline = 3, insight = 3 }\n")
    rubric = rubric_from_rules(path)
    # each juror scores the calibration entry: ann (2, 2) -> 2, bob (3, 3) -> 3, cy (5, 2) -> (10 + 2)/3 = 4;
    # expected (2*3 + 3)/3 = 3, so the offsets are -1 (ann severe), 0, +1 (cy lenient)
    for juror, (pipeline, insight) in {"ann": (2, 2), "bob": (3, 3), "cy": (5, 2)}.items():
        competition.record_score(juror, "d", "ref", "pipeline", pipeline, rubric=rubric)
        competition.record_score(juror, "d", "ref", "insight", insight, rubric=rubric)
    summary = jury_summary(competition.jury_scores(), rubric, {"d": ["a", "b", "c", "ref"]})
    assert summary.calibration[["judge", "score", "reference", "offset"]].values.tolist() == [
        ["ann", 2.0, 3.0, -1.0], ["bob", 3.0, 3.0, 0.0], ["cy", 4.0, 3.0, 1.0]]
    assert summary.table["method"].tolist() == ["a", "b", "c"]          # not judged itself
    assert summary.table["score"].tolist() == pytest.approx([4.0, 10 / 3, 10 / 3])
    assert summary.agreement["kendalls_w"].iloc[0] == pytest.approx(42 / 180)
    # without expected scores, the reference is the jury's mean of it: (2 + 3 + 4)/3 = 3
    plain = Rubric(rubric.criteria, scale=(1, 5), calibration="ref")
    assert jury_summary(competition.jury_scores(), plain).calibration["offset"].tolist() == [-1.0, 0.0, 1.0]
    from click.testing import CliRunner

    from srdash.cli import main

    competition.close()
    result = CliRunner().invoke(main, ["trust", "jury", "--store", str(competition.path), "--rules", str(path)])
    assert result.exit_code == 0, result.output
    assert "Calibration: ann on d scored 2 against 3 (-1, severe)" in result.output
    assert "Calibration: cy on d scored 4 against 3 (+1, lenient)" in result.output


@pytest.mark.parametrize("table, message", [
    ("[rubric.calibration]\nexpected = { pipeline = 3, insight = 3 }", r"'calibration' must be a table with 'method'"),
    ("[rubric.calibration]\nmethod = 'ref'\nexpected = { pipeline = 3 }", r"needs one score per criterion"),
    ("[rubric.calibration]\nmethod = 'ref'\nexpected = { pipeline = 3, insight = 9 }",
     r"A score of 'insight' must be a number from 1 to 5\. Got 9"),
])
def test_calibration_errors(tmp_path, table, message):
    path = tmp_path / "bad.toml"
    path.write_text(RULES.format(normalisation="none") + "\n" + table + "\n")
    with pytest.raises(RulesError, match=message):
        rubric_from_rules(path)
