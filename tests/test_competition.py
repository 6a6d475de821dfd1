"""The competition file, the one pipeline and the registry of rule kinds."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.cli import main
from srdash.errors import CompetitionError, SrdashError
from srdash.judging.competition import (competition_from_json, competition_from_options, load_competition,
                                        parse_competition)
from srdash.judging.kinds import KINDS
from srdash.judging.pipeline import judge_competition

PACKAGE = Path(__file__).resolve().parent.parent / "srdash"


def test_no_rule_kind_name_is_compared_outside_the_registry():
    """Kinds are told apart by srdash.judging.kinds only: no `x == "rank-harmonic"` (or !=, in) elsewhere."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "kinds.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                names = [o.value for o in operands if isinstance(o, ast.Constant) and isinstance(o.value, str)]
                for o in operands:  # also `kind in ("rank-harmonic", ...)`
                    if isinstance(o, (ast.Tuple, ast.List, ast.Set)):
                        names += [e.value for e in o.elts if isinstance(e, ast.Constant)]
                if set(names) & set(KINDS):
                    offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
            if isinstance(node, ast.Match):
                offenders += [f"{path.relative_to(PACKAGE)}:{node.lineno}"
                              for case in node.cases if isinstance(case.pattern, ast.MatchValue)
                              and getattr(case.pattern.value, "value", None) in KINDS]
    assert offenders == []


def test_the_registry_check_finds_a_comparison(tmp_path):
    """The check above is not vacuous: the same walk finds a planted comparison."""
    tree = ast.parse('if rules.kind == "normalised-weighted":\n    pass\n')
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Compare)
             and any(isinstance(o, ast.Constant) and o.value in KINDS for o in n.comparators)]
    assert len(found) == 1


@pytest.fixture
def folder(tmp_path) -> Path:
    # Two methods, two datasets. Ranks (srbench2022: average ties, higher = better):
    # d1: accuracy a 0.9 > b 0.8 -> a 2, b 1; simplicity (components 5 vs 9) a 2, b 1
    # d2: accuracy b 0.75 > a 0.7 -> a 1, b 2; simplicity (5 vs 30) a 2, b 1
    # property: all equal -> 1.5 each. Dataset scores (harmonic mean of the three ranks):
    # a: d1 3/(1/2 + 1/2 + 1/1.5) = 1.8, d2 3/(1 + 1/2 + 1/1.5) = 1.3846 -> mean 1.5923
    # b: d1 3/(1 + 1 + 1/1.5) = 1.125, d2 1.3846 -> mean 1.2548
    pd.DataFrame({"method": ["a", "b", "a", "b"], "dataset": ["d1", "d1", "d2", "d2"],
                  "r2_test": [0.9, 0.8, 0.7, 0.75], "components": [5, 9, 5, 30], "property": 0.5}).to_csv(
        tmp_path / "results.csv", index=False)
    return tmp_path


def test_a_competition_file_and_the_options_give_the_same_verdict(folder):
    (folder / "competition.toml").write_text('results = "results.csv"\nrules = "srbench2022"\n'
                                             '[simplification]\ncache = false\n')
    from_file = judge_competition(load_competition(folder / "competition.toml"))
    from_options = judge_competition(competition_from_options(folder / "results.csv", cache=False))
    board = from_file.verdict.leaderboard
    assert board["method"].tolist() == ["a", "b"]
    assert board["score"].round(4).tolist() == [1.5923, 1.2548]
    assert from_file.fingerprint == from_options.fingerprint
    assert from_file.verdict.provenance["verdict_fingerprint"] == from_file.fingerprint


def test_the_fingerprint_follows_the_verdict_and_the_inputs(folder):
    base = judge_competition(competition_from_options(folder / "results.csv", cache=False))
    other_rules = judge_competition(competition_from_options(folder / "results.csv", rules="srbench2022-as-run",
                                                             cache=False))
    assert base.fingerprint != other_rules.fingerprint
    frame = pd.read_csv(folder / "results.csv")
    frame.loc[0, "r2_test"] = 0.91  # same places, another input byte
    frame.to_csv(folder / "results.csv", index=False)
    changed = judge_competition(competition_from_options(folder / "results.csv", cache=False))
    assert changed.verdict.leaderboard["method"].tolist() == ["a", "b"]
    assert changed.fingerprint != base.fingerprint


def test_the_competition_travels_as_one_json_object(folder):
    competition = competition_from_options(folder / "results.csv", rules="srbench2022-as-run", timeout=3, jobs=2)
    again = competition_from_json(competition.to_json())
    assert again == competition and again.fingerprint() == competition.fingerprint()


@pytest.mark.parametrize("text, message", [
    ('results = "results.csv"\nrule = "x"\n', r"<text>, line 2: unknown key 'rule'\. Allowed keys: .*rules"),
    ('results = "nope.csv"\n', r"<text>, line 1: 'results' names 'nope.csv', which does not exist"),
    ('results = "results.csv"\n[simplification]\ntimeout = -1\n',
     r"<text>, line 3: 'simplification.timeout' must be a number of seconds > 0 and at most 86,400 \(one day\)\. Got -1"),
    ('results = "results.csv"\n[simplification]\njobs = "two"\n',
     r"<text>, line 3: 'simplification.jobs' must be a whole number\. Got 'two'"),
    ('results = "results.csv"\nrules = "nope"\n', r"<text>, line 2: 'rules': No rules preset or file called 'nope'"),
    ('results = "results.csv"\n[qualification]\ndata = "."\n', r"\[qualification\] needs 'results'"),
    ('title = "x"\n', r"<text>: the key 'results' is needed"),
    ('results = [\n', r"<text>: not valid TOML"),
])
def test_competition_file_errors_name_the_key_and_line(folder, text, message):
    with pytest.raises(CompetitionError, match=message):
        parse_competition(text, root=folder)


def test_a_competition_file_refuses_options_that_say_the_same(folder):
    (folder / "competition.toml").write_text('results = "results.csv"\n')
    result = CliRunner().invoke(main, ["score", str(folder / "competition.toml"), "--rules", "srbench2022-as-run"])
    assert result.exit_code == 2
    assert "is a competition file: it already says what --rules would" in result.output
    result = CliRunner().invoke(main, ["score", str(folder / "competition.toml"), "--timeout", "3"])
    assert result.exit_code == 2 and "its time limit is part of the verdict" in result.output


def test_score_prints_the_fingerprint_of_the_competition_file(folder):
    (folder / "competition.toml").write_text('results = "results.csv"\n[simplification]\ncache = false\n')
    result = CliRunner().invoke(main, ["score", str(folder / "competition.toml")])
    assert result.exit_code == 0, result.output
    expected = judge_competition(load_competition(folder / "competition.toml")).fingerprint
    assert re.search(rf"Verdict fingerprint: {expected[:12]}", result.output)


def test_init_writes_a_competition_file_that_judges(tmp_path):
    """`srdash init` on an SRBench-like folder: results with SRBench names, a qualification stage, a store."""
    pd.DataFrame({"algorithm": ["a", "b"], "dataset": "d", "random_state": 0, "r2_test": [0.9, 0.5],
                  "model_size": [3, 5]}).to_csv(tmp_path / "results.csv", index=False)
    pd.DataFrame({"method": ["LinearRegression", "a", "b"], "dataset": "q", "run": 0,
                  "r2_test": [0.5, 0.9, 0.6]}).to_csv(tmp_path / "qualification.csv", index=False)
    (tmp_path / "stage0_pmlb").mkdir()
    (tmp_path / "stage0_pmlb" / "q.tsv").write_text("x\ttarget\n1\t2\n")
    result = CliRunner().invoke(main, ["init", str(tmp_path)])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "competition.toml").read_text()
    assert 'results = "results.csv"' in text and '[qualification]\nresults = "qualification.csv"' in text
    assert 'data = "stage0_pmlb"' in text and "# [realworld]" in text
    competition = load_competition(tmp_path / "competition.toml")
    assert competition.qualification.data == tmp_path / "stage0_pmlb"
    again = CliRunner().invoke(main, ["init", str(tmp_path)])
    assert again.exit_code == 2 and "exists; use --force" in again.output


def _small_competition(folder: Path) -> Path:
    """Three methods on three datasets, a qualification stage that excludes one, and a trust store."""
    from srdash.judging.trust import TrustStore

    rows = []
    for d, dataset in enumerate(["d1", "d2", "d3"]):
        for m, method in enumerate(["a", "b", "c", "weak"]):
            for run in range(2):
                rows.append({"method": method, "dataset": dataset, "run": run, "model": f"x1 + {m}",
                             "r2_test": 0.9 - 0.1 * m + 0.01 * d + 0.001 * run, "components": 3 + 2 * m + d,
                             "property": 0.5 + 0.1 * ((m + d) % 3)})
    pd.DataFrame(rows).to_csv(folder / "results.csv", index=False)
    pd.DataFrame({"method": ["LinearRegression", "a", "b", "c", "weak"], "dataset": "q", "run": 0,
                  "r2_test": [0.5, 0.9, 0.8, 0.7, 0.1]}).to_csv(folder / "qualification.csv", index=False)
    with TrustStore(folder / "trust.sqlite", seed=1) as store:
        for dataset in ("d1", "d2"):
            for rank, method in enumerate(["b", "a", "c"], start=1):
                store.record("judge", dataset, method, kind="rank", value=float(rank))
    (folder / "competition.toml").write_text(
        'title = "Small"\nresults = "results.csv"\n[qualification]\nresults = "qualification.csv"\n'
        '[realworld]\nstore = "trust.sqlite"\ndatasets = ["d1", "d2"]\n[simplification]\ncache = false\n')
    return folder / "competition.toml"


def test_the_report_shows_every_section_the_dashboard_shows(tmp_path):
    competition = _small_competition(tmp_path)
    score = CliRunner().invoke(main, ["score", str(competition), "-o", str(tmp_path / "lb.csv")])
    assert score.exit_code == 0, score.output
    fingerprint = re.search(r"Verdict fingerprint: ([0-9a-f]{12})", score.output).group(1)
    result = CliRunner().invoke(main, ["report", str(competition), "-o", str(tmp_path / "r.html"),
                                       "--samples", "50"])
    assert result.exit_code == 0, result.output
    html = (tmp_path / "r.html").read_text()
    for section in ("qualification", "leaderboard", "why", "realworld", "jury", "ranks", "simplicity", "properties",
                    "significance", "uncertainty", "sensitivity", "problems", "reproducibility"):
        assert f'id="{section}"' in html, section
    assert f"Verdict fingerprint: {fingerprint}" in html
    # 'weak' did not qualify: it leaves every track, the real-world one included
    board = pd.read_csv(tmp_path / "lb.csv")
    assert sorted(board["method"]) == ["a", "b", "c"]
    realworld = judge_competition(load_competition(competition)).realworld
    assert sorted(realworld.leaderboard["method"]) == ["a", "b", "c"]
    assert sorted(realworld.per_dataset["dataset"].unique()) == ["d1", "d2"]


def test_explain_says_whether_leaving_out_a_judge_changes_the_real_world_winner(tmp_path):
    from srdash.analysis.jury_model import leave_one_judge_out
    from srdash.judging.pipeline import realworld_inputs
    from srdash.judging.trust import TrustStore

    competition = _small_competition(tmp_path)
    with TrustStore(tmp_path / "trust.sqlite") as store:           # a second judge, who trusts c most
        for dataset in ("d1", "d2"):
            for rank, method in enumerate(["c", "a", "b"], start=1):
                store.record("second", dataset, method, kind="rank", value=float(rank))
    result = CliRunner().invoke(main, ["explain", str(competition), "--no-variants"])
    assert result.exit_code == 0, result.output
    inputs = realworld_inputs(judge_competition(load_competition(competition)).prepared)
    table = leave_one_judge_out(inputs.runs, inputs.entries, inputs.rules, methods=list(inputs.methods))
    assert list(table["left_out"]) == ["nobody", "judge", "second"]
    assert f"Real-world track, winner {table['winner'].iloc[0]}:" in result.output
    for row in table.iloc[1:].itertuples():
        assert f"without {row.left_out}: {'changes to ' + row.winner if row.changes else 'stays'}" in result.output


def test_the_review_lists_only_the_methods_under_review(tmp_path):
    """`srdash review competition.toml`: the real-world track's methods (qualified) on its datasets."""
    from srdash.apps.review import review_inputs_from_environment
    from srdash.judging.pipeline import results_under_review

    competition_file = _small_competition(tmp_path)
    result = CliRunner().invoke(main, ["review", str(competition_file), "--judge", "ann", "--print-command"])
    assert result.exit_code == 0, result.output
    assert "3 methods under review (a, b, c) on 2 datasets" in result.output
    env_line = next(line for line in result.output.splitlines() if line.startswith("SRDASH_REVIEW="))
    options = json.loads(env_line[len("SRDASH_REVIEW="):])
    assert options["store"] == str(tmp_path / "trust.sqlite") and "competition" in options
    competition = load_competition(competition_file)
    under_review = results_under_review(competition).table
    assert sorted(under_review["method"].unique()) == ["a", "b", "c"]  # 'weak' did not qualify
    options = {"competition": competition.to_json(), "judge": "ann", "store": str(tmp_path / "trust.sqlite")}
    inputs = review_inputs_from_environment({"SRDASH_REVIEW": json.dumps(options)})
    try:
        assert inputs["methods"] == ["a", "b", "c"]
        assert sorted(inputs["representatives"]["dataset"].unique()) == ["d1", "d2"]
        assert inputs["rules"].name == "srbench2022-realworld"
    finally:
        inputs["store"].close()
    clash = CliRunner().invoke(main, ["review", str(competition_file), "--judge", "ann", "--store", "x.sqlite"])
    assert clash.exit_code == 2 and "its [realworld] table already says what --store would" in clash.output


def test_the_provenance_says_how_many_results_came_from_the_cache(folder):
    """Two runs on one cache: the first computes every model, the second reads them all; same fingerprint."""
    pd.DataFrame({"method": ["a", "b"], "dataset": "d", "r2_test": [0.9, 0.8], "property": 0.5,
                  "model": ["x1 + 1", "x1*x1 + x1"]}).to_csv(folder / "models.csv", index=False)
    competition = competition_from_options(folder / "models.csv", cache=str(folder / "cache.sqlite"), jobs=1)
    cold = judge_competition(competition)
    whole = judge_competition(competition)  # the whole prepared competition is reused (srdash.judging.snapshot)
    from srdash.cache import ResultCache
    from srdash.judging.snapshot import snapshot_key

    with ResultCache(folder / "cache.sqlite") as cache:
        cache.forget_snapshot(snapshot_key(competition))
    warm = judge_competition(competition)  # without it: every model from the cache's rows
    assert (cold.provenance["cache_hits"], cold.provenance["cache_misses"]) == ("0", "2")
    assert "reused" in whole.provenance["cache_snapshot"] and "cache_hits" not in whole.provenance
    assert (warm.provenance["cache_hits"], warm.provenance["cache_misses"]) == ("2", "0")
    assert warm.provenance["cache_hits:complexity"] == "2 of 2"
    assert warm.fingerprint == whole.fingerprint == cold.fingerprint


def _store_entries(path: Path, entries) -> None:
    from srdash.judging.trust import TrustStore

    path.unlink(missing_ok=True)
    with TrustStore(path, seed=1) as store:
        for dataset, method, value in entries:
            store.record("judge", dataset, method, kind="rank", value=float(value))


def test_trust_entries_that_match_nothing_under_review_are_counted_and_named(tmp_path):
    competition = _small_competition(tmp_path)
    # 6 entries under review (d1, d2 x a, b, c); 4 more: d3 is not under review (2 entries), 'weak' did not
    # qualify (1), 'ghost' is no method (1): 4 of 10 are left out, each reason named.
    _store_entries(tmp_path / "trust.sqlite",
                   [(d, m, r) for d in ("d1", "d2") for r, m in enumerate(["b", "a", "c"], start=1)]
                   + [("d3", "a", 1), ("d3", "b", 2), ("d1", "weak", 4), ("d2", "ghost", 4)])
    result = judge_competition(load_competition(competition))
    notes = [w for w in result.realworld.warnings if "trust entries name no" in w]
    assert notes == ["4 of 10 trust entries name no (dataset, method) under review and are left out (datasets not "
                     "under review: d3; methods not under review: ghost, weak (did not qualify))."]
    assert sorted(result.realworld.leaderboard["method"]) == ["a", "b", "c"]


def test_a_real_world_track_without_a_matching_entry_is_refused(tmp_path):
    competition = _small_competition(tmp_path)
    _store_entries(tmp_path / "trust.sqlite", [("D1", "A", 1), ("D1", "B", 2)])  # names in another case
    with pytest.raises(SrdashError, match=r"none of the 2 trust entries in .*trust.sqlite names a \(dataset, "
                                          r"method\) under review.*The entries name datasets D1 and methods A, B"):
        judge_competition(load_competition(competition))
    result = CliRunner().invoke(main, ["score", str(competition)])
    assert result.exit_code != 0 and "none of the 2 trust entries" in result.output
    assert "Traceback" not in result.output


def test_a_real_world_track_with_an_empty_or_absent_store_is_refused(tmp_path):
    competition = _small_competition(tmp_path)
    (tmp_path / "trust.sqlite").unlink()
    with pytest.raises(SrdashError, match=r"trust store .*trust.sqlite does not exist\. Collect the experts' "
                                          r"entries with `srdash review"):
        judge_competition(load_competition(competition))
    _store_entries(tmp_path / "trust.sqlite", [])
    with pytest.raises(SrdashError, match=r"trust store .*trust.sqlite holds no trust entries"):
        judge_competition(load_competition(competition))


def _srbench_json(path: Path, algorithm: str, dataset: str, seed: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'{{"algorithm": "{algorithm}", "dataset": "{dataset}", "random_state": {seed}, '
                    f'"r2_test": 0.9, "symbolic_model": "x1 + 1"}}')


def test_init_finds_srbench_json_results_one_level_down(tmp_path):
    """SRBench's layout: one folder per dataset of JSON result files, under a results folder."""
    for dataset in ("d1", "d2"):
        for algorithm in ("a", "b"):
            _srbench_json(tmp_path / "results" / dataset / f"{algorithm}_0.json", algorithm, dataset, 0)
    result = CliRunner().invoke(main, ["init", str(tmp_path)])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "competition.toml").read_text()
    assert 'results = "results"\n' in text and "NOT FOUND" not in text.split("[qualification]")[0]
    assert "Found: results/ holds JSON files" in result.output
    assert "Not found: a trust store" in result.output and "Wrote" in result.output
    assert load_competition(tmp_path / "competition.toml").results == (tmp_path / "results",)


def test_init_finds_a_results_table_two_levels_down_and_ignores_links(tmp_path):
    (tmp_path / "runs" / "2022").mkdir(parents=True)
    pd.DataFrame({"algorithm": ["a", "b"], "dataset": "d", "random_state": 0, "r2_test": [0.9, 0.5]}).to_csv(
        tmp_path / "runs" / "2022" / "results.csv", index=False)
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    pd.DataFrame({"method": ["x"], "dataset": "d", "r2_test": [0.1]}).to_csv(outside / "other.csv", index=False)
    (tmp_path / "linked").symlink_to(outside, target_is_directory=True)
    (tmp_path / "linked.csv").symlink_to(outside / "other.csv")
    result = CliRunner().invoke(main, ["init", str(tmp_path)])
    # written, and checked as `srdash score` reads it: these results have no model nor size (exit 2, what to add)
    assert result.exit_code == 2, result.output
    assert "competition.toml cannot be judged yet" in result.output and "needs a 'model' column" in result.output
    text = (tmp_path / "competition.toml").read_text()
    assert 'results = "runs/2022/results.csv"' in text and "linked" not in text and "NOT FOUND: the results" not in text
    assert load_competition(tmp_path / "competition.toml").results == (tmp_path / "runs" / "2022" / "results.csv",)


def test_init_without_results_writes_nothing_and_exits_2(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "readme.txt").write_text("nothing to judge here")
    (tmp_path / "trust.sqlite").write_bytes(b"")
    result = CliRunner().invoke(main, ["init", str(tmp_path)])
    assert result.exit_code == 2
    assert not (tmp_path / "competition.toml").exists()
    assert "no results in" in result.output and "nothing written" in result.output
    assert "Not found: results" in result.output


def test_init_finds_a_flat_folder_of_srbench_json_files_one_level_down(tmp_path):
    for algorithm in ("a", "b"):
        _srbench_json(tmp_path / "blackbox" / f"{algorithm}_d1_0.json", algorithm, "d1", 0)
    (tmp_path / "README.md").write_text("results of the black-box track")
    result = CliRunner().invoke(main, ["init", str(tmp_path), "--title", "srbench_results"])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "competition.toml").read_text()
    assert 'results = "blackbox"' in text and 'title = "srbench_results"' in text


def test_the_dashboard_shows_the_main_track_while_the_real_world_track_awaits_its_entries(tmp_path):
    # the dashboard judges with refused_realworld="warn": an organiser opens it before the review starts
    from srdash.judging.pipeline import judge_prepared, prepare_competition

    competition = _small_competition(tmp_path)
    (tmp_path / "trust.sqlite").unlink()
    result = judge_prepared(prepare_competition(load_competition(competition)), refused_realworld="warn")
    assert result.realworld is None and sorted(result.verdict.leaderboard["method"]) == ["a", "b", "c"]
    assert any(w.startswith("Not shown: The real-world track cannot be judged: its trust store")
               for w in result.verdict.warnings)
