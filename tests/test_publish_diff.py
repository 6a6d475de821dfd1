"""`srdash publish` and `srdash diff` (issue 34 item 6): versions a reader can cite and compare.

The golden pair OLD -> NEW differs by one added method (D), one removed dataset (d3) and one rule change
(the simplicity criterion's weight 1 -> 0); the diff must credit each moved place to its cause.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from srdash.analysis.diff import diff_text, diff_verdicts, rules_changes, side_of_published, side_of_result
from srdash.analysis.published import read_published
from srdash.cli import main
from srdash.errors import SrdashError
from srdash.judging.competition import load_competition
from srdash.judging.pipeline import judge_competition
from srdash.judging.rules import load_rules
from srdash.report.publish import citation_cff, publish_result

RULES = """name = "{name}"
title = "Two criteria"
kind = "rank-harmonic"

[ranking]
run_aggregation = "median"
rank_method = "average"

[[criteria]]
name = "accuracy"
column = "r2_test"
direction = "higher"
decimals = 3
weight = 1.0

[[criteria]]
name = "simplicity"
column = "simplicity"
direction = "higher"
decimals = 1
weight = {simplicity_weight}
"""

# Per dataset: (r2_test, simplicity) of each method, one run each. Ranks are higher-is-better (K = best).
#
# d1 and d2 (identical): accuracy order B > A > E > C, simplicity order C > B > A > E, so with K = 4
#   accuracy ranks   A 3, B 4, C 1, E 2;  simplicity ranks A 2, B 3, C 4, E 1;
#   dataset score = harmonic mean of the two ranks (weights 1, 1) = 2ab / (a + b):
#   A 2*3*2/5 = 2.4, B 2*4*3/7 = 3.4286, C 2*1*4/5 = 1.6, E 2*2*1/3 = 1.3333.
# d3 (only in OLD): accuracy A > C > E > B, simplicity A > C > E > B:
#   ranks A (4, 4), C (3, 3), E (2, 2), B (1, 1); dataset scores A 4, C 3, E 2, B 1.
# OLD = mean over d1, d2, d3: A (2*2.4 + 4)/3 = 2.9333, B (2*3.4286 + 1)/3 = 2.6190,
#   C (2*1.6 + 3)/3 = 2.0667, E (2*1.3333 + 2)/3 = 1.5556 -> places A 1, B 2, C 3, E 4.
# Step "datasets removed" (d3 gone, OLD rules): means over d1, d2 = the d1 scores -> B 1, A 2, C 3, E 4:
#   A 1 -> 2 and B 2 -> 1, caused by the removed dataset.
# Step "rules changed" (simplicity weight 0): a dataset score is the accuracy rank alone ((1*a + 0) / 1 over
#   1/a) -> B 4, A 3, E 2, C 1 -> places B 1, A 2, E 3, C 4: C 3 -> 4 and E 4 -> 3, caused by the rules.
# Step "entrants added" (D, r2 0.65 between E's 0.7 and C's 0.6 on d1 and d2), K = 5: accuracy ranks
#   B 5, A 4, E 3, D 2, C 1 -> places B 1, A 2, E 3, D 4, C 5: C 4 -> 5 caused by the added entrant,
#   D enters at 4. C moved in two steps: several causes.
OLD_VALUES = {
    "d1": {"A": (0.8, -1.5), "B": (0.9, -1.0), "C": (0.6, -0.5), "E": (0.7, -2.0)},
    "d3": {"A": (0.9, -0.5), "B": (0.6, -2.0), "C": (0.8, -1.0), "E": (0.7, -1.5)},
}
OLD_VALUES["d2"] = OLD_VALUES["d1"]


def _competition(folder: Path, *, new: bool) -> Path:
    rows = []
    for dataset, values in sorted(OLD_VALUES.items()):
        if new and dataset == "d3":
            continue
        cells = dict(values, **({"D": (0.65, -0.2)} if new else {}))
        rows += [{"method": m, "dataset": dataset, "run": 0, "r2_test": r2, "simplicity": s}
                 for m, (r2, s) in sorted(cells.items())]
    folder.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(folder / "results.csv", index=False)
    (folder / "rules.toml").write_text(RULES.format(name="two-criteria", simplicity_weight=0.0 if new else 1.0))
    (folder / "competition.toml").write_text('title = "Golden cup"\nresults = "results.csv"\nrules = "rules.toml"\n'
                                             '[simplification]\ncache = false\njobs = 1\n')
    return folder / "competition.toml"


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    root = tmp_path_factory.mktemp("golden")
    old = judge_competition(load_competition(_competition(root / "old", new=False)))
    new = judge_competition(load_competition(_competition(root / "new", new=True)))
    return root, old, new


@pytest.fixture(scope="module")
def published(judged):
    root, old, new = judged
    publish_result(old, root / "published old", date="2026-01-02", samples=50)
    publish_result(new, root / "published-new", date="2026-02-03", samples=50)
    return root / "published old", root / "published-new"


def _places(result) -> dict:
    board = result.verdict.leaderboard
    return dict(zip(board["method"], board["place"]))


def test_the_golden_verdicts_are_as_derived(judged):
    _, old, new = judged
    assert _places(old) == {"A": 1, "B": 2, "C": 3, "E": 4}
    assert _places(new) == {"B": 1, "A": 2, "E": 3, "D": 4, "C": 5}
    assert old.verdict.leaderboard.set_index("method")["score"].round(4).to_dict() == {
        "A": 2.9333, "B": 2.619, "C": 2.0667, "E": 1.5556}


def _attribution(diff) -> dict:
    def place(value):
        return None if pd.isna(value) else int(value)

    return {row.method: (place(row.old_place), place(row.new_place), row.causes) for row in diff.table.itertuples()}


def test_each_moved_place_is_credited_to_its_cause(judged):
    _, old, new = judged
    diff = diff_verdicts(side_of_result(old), side_of_result(new))
    assert _attribution(diff) == {
        "B": (2, 1, "datasets removed (d3)"),
        "A": (1, 2, "datasets removed (d3)"),
        "E": (4, 3, "rules changed (criterion 'simplicity': weight 1.0 -> 0.0)"),
        "D": (None, 4, "entrants added (D)"),
        "C": (3, 5, "rules changed (criterion 'simplicity': weight 1.0 -> 0.0); entrants added (D)"),
    }
    assert list(diff.table.loc[diff.table["several_causes"], "method"]) == ["C"]
    assert (diff.entrants_added, diff.datasets_removed, diff.entrants_removed, diff.inputs_changed) == (
        ("D",), ("d3",), (), ())
    # the steps' places, as derived above
    places = {step.name: step.places for step in diff.steps}
    assert places["datasets removed"] == {"B": 1, "A": 2, "C": 3, "E": 4}
    assert places["rules changed"] == {"B": 1, "A": 2, "E": 3, "C": 4}
    text = diff_text(diff)
    assert "5 methods changed place (entering or leaving counts)" in text and "Datasets removed moved B, A." in text
    assert "Entrants added moved C. Entered: D (place 4)." in text
    assert "Several causes: C moved in more than one step." in text


def test_a_published_folder_gives_the_same_diff_as_the_verdicts(judged, published):
    _, old, new = judged
    old_folder, new_folder = published
    from_folders = diff_verdicts(side_of_published(read_published(old_folder)),
                                 side_of_published(read_published(new_folder)))
    from_results = diff_verdicts(side_of_result(old), side_of_result(new))
    pd.testing.assert_frame_equal(from_folders.table, from_results.table)
    assert from_folders.old_fingerprint == old.fingerprint


def test_publishing_twice_gives_the_same_bytes_in_any_folder(judged, published, tmp_path):
    _, old, _ = judged
    first = published[0]   # a name with a space
    again = tmp_path / "elsewhere" / "second"
    publish_result(old, again, date="2026-01-02", samples=50)
    names = sorted(p.name for p in first.iterdir())
    assert names == sorted(p.name for p in again.iterdir())
    assert f"leaderboard-{old.fingerprint[:12]}.csv" in names and "CITATION.cff" in names
    for name in names:
        assert (first / name).read_bytes() == (again / name).read_bytes(), name
        assert str(tmp_path) not in (again / name).read_text(encoding="utf-8"), name
    # the same fingerprint folder is written again; any other contents are refused
    publish_result(old, again, date="2026-01-02", samples=50)
    with pytest.raises(SrdashError, match=r"holds another verdict \([0-9a-f]{12}\); publishing there would mix"):
        publish_result(judged[2], again, date="2026-01-02", samples=50)
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    with pytest.raises(SrdashError, match="is not empty and holds no published verdict"):
        publish_result(old, tmp_path / "busy", date="2026-01-02", samples=50)


def test_another_process_publishes_the_same_bytes(judged, published, tmp_path):
    """Another interpreter (another hash seed, another working folder) writes the same folder."""
    import os
    import subprocess
    import sys

    root, _, _ = judged
    repo = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(repo), PYTHONHASHSEED="12345")
    run = subprocess.run([sys.executable, "-m", "srdash", "publish", str(root / "old" / "competition.toml"), "-o",
                          str(tmp_path / "from another process"), "--date", "2026-01-02", "--samples", "50"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    for path in published[0].iterdir():
        assert (tmp_path / "from another process" / path.name).read_bytes() == path.read_bytes(), path.name


def test_the_citation_is_cff_1_2_0_naming_the_verdict(judged, published):
    _, old, _ = judged
    cff = yaml.safe_load((published[0] / "CITATION.cff").read_text())
    # CFF 1.2.0's required keys, and the verdict's identity
    assert cff["cff-version"] == "1.2.0" and cff["message"] and cff["authors"] == [
        {"name": "The organisers of Golden cup"}]
    assert cff["title"] == f"Golden cup: verdict {old.fingerprint[:12]}"
    assert cff["version"] == old.fingerprint[:12] and cff["date-released"] == "2026-01-02"
    assert cff["identifiers"][0]["value"] == f"srdash-verdict-fingerprint:{old.fingerprint}"
    # a hostile title stays one YAML string
    hostile = yaml.safe_load(citation_cff(title='x"\nauthors: []\n#', fingerprint="0" * 64, date="2026-01-02",
                                          rules="r"))
    assert hostile["title"].startswith('x"\nauthors: []') and hostile["authors"][0]["name"].startswith("The")
    for date in ("2026-1-2", "2026-02-30", "2026-01-02\nauthors: []"):
        with pytest.raises(SrdashError, match=r"The 'date' option must be a date YYYY-MM-DD. Got '2026-"):
            citation_cff(title="t", fingerprint="0" * 64, date=date, rules="r")


def test_a_folder_diffed_with_itself_says_nothing_changed(published):
    result = CliRunner().invoke(main, ["diff", str(published[0]), str(published[0])])
    assert result.exit_code == 0, result.output
    assert "nothing changed" in result.output
    diff = diff_verdicts(side_of_published(read_published(published[0])),
                         side_of_published(read_published(published[0])))
    assert diff.unchanged and not diff.table["moved"].any()


@pytest.mark.parametrize("edit, message", [
    (lambda folder, fp: _rewrite(folder, f"leaderboard-{fp}.csv", lambda t: t.replace("\n1,A,", "\n1,Z,")),
     "fingerprint mismatch"),
    (lambda folder, fp: _rewrite(folder, f"runs-{fp}.csv", lambda t: t.replace("0.9,", "0.1,", 1)),
     r"runs \(runs-[0-9a-f]{12}.csv\) judged again under its rules do not give its leaderboard"),
    (lambda folder, fp: _rewrite(folder, f"rules-{fp}.toml", lambda t: t.replace("weight = 1.0", "weight = 2.0", 1)),
     "is not the rules its provenance names"),
    (lambda folder, fp: _rewrite(folder, f"runs-{fp}.csv", lambda t: t.replace("method,", "who,", 1)),
     r"(?s)its runs \(runs-[0-9a-f]{12}.csv\) are not valid results: .*column 'method': the required column"),
    (lambda folder, fp: _rewrite(folder, f"provenance-{fp}.json", lambda t: "[1, 2]"),
     r"provenance-[0-9a-f]{12}.json is not a JSON object"),
    (lambda folder, fp: (folder / f"report-{fp}.html").write_text("edited"),
     "was changed after publishing"),
    (lambda folder, fp: _link_outside(folder / f"runs-{fp}.csv"), r"runs-[0-9a-f]{12}.csv cannot be read"),
    (lambda folder, fp: (folder / "published.json").write_text("{"), "published.json cannot be read"),
    (lambda folder, fp: (folder / "published.json").write_text(json.dumps(
        dict(json.loads((folder / "published.json").read_text()), fingerprint="../../etc/x"))),
     r"names no verdict fingerprint \(64 hexadecimal digits\)"),
])
def test_an_edited_published_folder_is_refused(published, tmp_path, edit, message):
    folder = tmp_path / "copy"
    shutil.copytree(published[0], folder)
    fingerprint = json.loads((folder / "published.json").read_text())["fingerprint"][:12]
    edit(folder, fingerprint)
    with pytest.raises(SrdashError, match=message):
        read_published(folder)
    result = CliRunner().invoke(main, ["diff", str(folder), str(published[1])])
    assert result.exit_code == 1 and "is refused" in result.output


def _link_outside(path: Path) -> None:
    """The file replaced by a link to a file outside the folder (with the same bytes: only where it lies differs)."""
    outside = path.parent.parent / "outside.csv"
    outside.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(outside)


def _rewrite(folder: Path, name: str, change) -> None:
    """Edit a file and list its new hash in published.json, as a forger would: only the checks of content
    against content (fingerprint, rules hash, replay) can catch it."""
    import hashlib

    path = folder / name
    text = change(path.read_text())
    assert text != path.read_text()
    path.write_text(text)
    manifest = json.loads((folder / "published.json").read_text())
    for entry in manifest["files"].values():
        if entry["name"] == name:
            entry["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    (folder / "published.json").write_text(json.dumps(manifest))


def test_rules_changes_are_named_one_by_one():
    rules = load_rules("srbench2022")
    assert rules_changes(rules, rules) == ()
    assert rules_changes(rules, rules.with_options(run_aggregation="mean", weights={"accuracy": 3.0})) == (
        "run_aggregation 'median' -> 'mean'", "criterion 'accuracy': weight 1.0 -> 3.0")


def test_the_commands_publish_and_diff_the_golden_pair(judged, tmp_path):
    root, old, new = judged
    runner = CliRunner()
    out = runner.invoke(main, ["publish", str(root / "old" / "competition.toml"), "-o", str(tmp_path / "v1"),
                               "--date", "2026-01-02", "--samples", "50"])
    assert out.exit_code == 0, out.output
    assert f"Published {old.fingerprint[:12]}" in out.output
    bad = runner.invoke(main, ["publish", str(root / "old" / "competition.toml"), "-o", str(tmp_path / "v0"),
                               "--date", "2026-13-01"])
    assert bad.exit_code == 2 and "The 'date' option must be a date YYYY-MM-DD. Got '2026-13-01'." in bad.output
    assert not (tmp_path / "v0").exists()
    # a published folder against a competition file, the table as JSON
    out = runner.invoke(main, ["diff", str(tmp_path / "v1"), str(root / "new" / "competition.toml"), "--json",
                               "-o", str(tmp_path / "diff.csv"), "--jobs", "1", "--no-cache"])
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    assert (payload["old"], payload["new"]) == (old.fingerprint, new.fingerprint)
    assert {row["method"]: (row["old_place"], row["new_place"]) for row in payload["places"]} == {
        "B": (2, 1), "A": (1, 2), "E": (4, 3), "D": (None, 4), "C": (3, 5)}
    assert payload["rules_changed"] == ["criterion 'simplicity': weight 1.0 -> 0.0"]
    written = pd.read_csv(tmp_path / "diff.csv")
    assert list(written["method"]) == ["B", "A", "E", "D", "C"]
    assert written.set_index("method").loc["E", "causes"].startswith("rules changed")
    # results files with the options `srdash score` takes: the same results under two rules
    out = runner.invoke(main, ["diff", str(root / "old" / "results.csv"), str(root / "old" / "results.csv"),
                               "--old-rules", str(root / "old" / "rules.toml"), "--rules",
                               str(root / "new" / "rules.toml"), "--no-cache"])
    assert out.exit_code == 0, out.output
    assert "What differs: rules changed (criterion 'simplicity': weight 1.0 -> 0.0). Rules changed moved" in out.stdout


def test_diff_refuses_options_a_competition_file_already_says(judged):
    root, _, _ = judged
    out = CliRunner().invoke(main, ["diff", str(root / "old" / "competition.toml"),
                                    str(root / "new" / "competition.toml"),
                                    "--rules", "srbench2022"])
    assert out.exit_code == 2
    assert "is a competition file: it already says what --rules/--old-rules would" in out.output


def test_removed_entrants_and_changed_inputs_are_named(judged):
    """OLD's runs with C gone and A's d1 value changed (0.8 -> 0.95, now the best there), same rules.

    Without C (K = 3) on d1 = d2: accuracy B 3, A 2, E 1; simplicity B 3, A 2, E 1 -> dataset scores 3, 2, 1;
    on d3: A (3, 3), E (2, 2), B (1, 1) -> 3, 2, 1. Means: A (2+2+3)/3 = 2.333, B (3+3+1)/3 = 2.333, E 1 ->
    A and B tie at 1 (shared place), E 3: A stays 1 and B 2 -> 1 and E 4 -> 3, by the removed entrant.
    A's d1 accuracy 0.95: d1 accuracy A 3, B 2, E 1; simplicity B 3, A 2, E 1 -> A 2*3*2/5 = 2.4,
    B 2*2*3/5 = 2.4, E 1: A gains 0.4/3 and B loses 0.6/3 -> A 1, B 2: B 1 -> 2 by the changed input.
    """
    _, old, _ = judged
    side = side_of_result(old)
    runs = side.runs[side.runs["method"] != "C"].copy()
    runs.loc[(runs["method"] == "A") & (runs["dataset"] == "d1"), "r2_test"] = 0.95
    from srdash.analysis.diff import VerdictSide
    from srdash.judging.ranking import judge

    new = VerdictSide("new", "f" * 64, runs, side.rules, judge(runs, side.rules).leaderboard)
    diff = diff_verdicts(side, new)
    assert _attribution(diff) == {
        "A": (1, 1, ""),
        "B": (2, 2, "entrants removed (C); inputs changed"),
        "E": (4, 3, "entrants removed (C)"),
        "C": (3, None, "entrants removed (C)"),
    }
    assert diff.inputs_changed == (("A", "d1"),) and diff.entrants_removed == ("C",)
    assert list(diff.table.loc[diff.table["several_causes"], "method"]) == ["B"]


REALDATA = Path(__file__).resolve().parents[1].parent / "shared" / "realdata"
BLACKBOX = REALDATA / "srbench_results" / "blackbox_results.csv"


@pytest.mark.realdata
@pytest.mark.skipif(not BLACKBOX.exists(), reason=f"real data not found at {BLACKBOX}")
def test_on_the_blackbox_results_each_move_is_credited_to_what_was_removed(tmp_path):
    from test_realdata_blackbox import blackbox_rules

    results = pd.read_csv(BLACKBOX)
    first_ten = sorted(results["dataset"].unique())[:10]
    smaller = results[(results["algorithm"] != "*AFP") & ~results["dataset"].isin(first_ten)]
    smaller.to_csv(tmp_path / "smaller.csv", index=False)
    rules = str(blackbox_rules(tmp_path))
    out = CliRunner().invoke(main, ["diff", str(BLACKBOX), str(tmp_path / "smaller.csv"), "--rules", rules,
                                    "--no-cache", "--json"])
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    assert payload["entrants_removed"] == ["*AFP"] and payload["datasets_removed"] == first_ten
    assert not (payload["rules_changed"] or payload["inputs_changed"] or payload["entrants_added"])
    # the new places are `srdash score`'s on the smaller file (the steps end in NEW's verdict)
    scored = CliRunner().invoke(main, ["score", str(tmp_path / "smaller.csv"), "--rules", rules, "--no-cache",
                                       "-o", str(tmp_path / "lb.csv")])
    assert scored.exit_code == 0, scored.output
    board = pd.read_csv(tmp_path / "lb.csv")
    places = {row["method"]: row["new_place"] for row in payload["places"] if row["new_place"] is not None}
    assert places == dict(zip(board["method"], board["place"]))
    for row in payload["places"]:
        moved = row["old_place"] != row["new_place"]
        assert bool(row["causes"]) >= moved, row  # every moved place has a cause
        for cause in filter(None, row["causes"].split("; ")):
            assert cause.startswith(("entrants removed (*AFP)", "datasets removed (1027_ESL")), row


def test_the_diff_table_escapes_hostile_names():
    from srdash.analysis.diff import VerdictSide
    from srdash.demo.examples import accuracy_rules
    from srdash.figures.diff import diff_html, diff_rows
    from srdash.judging.ranking import judge

    rules = accuracy_rules()
    runs = pd.DataFrame({"method": ["<script>x</script>", "b"], "dataset": "d", "r2_test": [0.9, 0.5]})
    new = runs.assign(r2_test=[0.5, 0.9])
    diff = diff_verdicts(VerdictSide("v1", "1" * 64, runs, rules, judge(runs, rules).leaderboard),
                         VerdictSide("v2", "2" * 64, new, rules, judge(new, rules).leaderboard))
    page = diff_html(diff)
    assert "<script>" not in page and "&lt;script&gt;" in page
    # b overtakes: the inputs changed moved both places (1 <-> 2)
    assert diff_rows(diff) == [["b", "2", "1", "inputs changed"], ["<script>x</script>", "1", "2", "inputs changed"]]


def test_a_step_that_cannot_be_judged_alone_is_credited_with_the_next():
    """NEW ranks accuracy only and has no simplicity column: OLD's rules cannot judge NEW's runs, so the
    inputs' and the rules' changes are one step. OLD: simplicity decides (b 1, a 2); NEW: accuracy (a 1, b 2)."""
    from srdash.analysis.diff import VerdictSide
    from srdash.demo.examples import accuracy_rules
    from srdash.judging.ranking import judge
    from srdash.judging.rules import parse_rules

    text = RULES.format(name="two", simplicity_weight=1.0)
    old_rules = parse_rules(text.replace("weight = 1.0\n", "weight = 0.0\n", 1))
    runs = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "run": 0, "r2_test": [0.9, 0.5],
                         "simplicity": [-2.0, -1.0]})
    new_runs, new_rules = runs.drop(columns="simplicity"), accuracy_rules()
    diff = diff_verdicts(VerdictSide("v1", "1" * 64, runs, old_rules, judge(runs, old_rules).leaderboard),
                         VerdictSide("v2", "2" * 64, new_runs, new_rules, judge(new_runs, new_rules).leaderboard))
    assert _attribution(diff)["a"][:2] == (2, 1)
    assert _attribution(diff)["a"][2].startswith("inputs changed + rules changed (criterion 'simplicity' removed")
    assert "The step 'inputs changed' cannot be judged on its own" in diff_text(diff)


def test_the_date_is_the_inputs_newest_modification_day(tmp_path):
    import os

    from srdash.report.publish import inputs_date

    competition = load_competition(_competition(tmp_path / "c", new=False))
    # 1767312000 = 2026-01-02T00:00:00Z; the rules file a day later (+86400 s) is the newest input
    for name, stamp in (("results.csv", 1767312000), ("rules.toml", 1767312000 + 86400 + 5),
                        ("competition.toml", 1767312000)):
        os.utime(tmp_path / "c" / name, (stamp, stamp))
    assert inputs_date(competition) == "2026-01-03"


def test_the_report_says_what_changed_since_a_previous_version(judged, published, tmp_path):
    root, old, new = judged
    runner = CliRunner()
    out = runner.invoke(main, ["report", str(root / "new" / "competition.toml"), "-o", str(tmp_path / "r.md"),
                               "--previous", str(published[0]), "--samples", "50"])
    assert out.exit_code == 0, out.output
    text = (tmp_path / "r.md").read_text()
    assert f"## What changed since {old.fingerprint[:12]}" in text
    # Markdown cells are HTML-escaped (a hostile name stays inert): "->" is written "-&gt;"
    assert "| C | 3 | 5 | rules changed (criterion 'simplicity': weight 1.0 -&gt; 0.0); entrants added (D) |" in text
    assert "| D | - | 4 | entrants added (D) |" in text
    out = runner.invoke(main, ["report", str(root / "new" / "competition.toml"), "-o", str(tmp_path / "r.html"),
                               "--previous", str(root / "old" / "competition.toml"), "--samples", "50"])
    assert out.exit_code == 0, out.output
    page = (tmp_path / "r.html").read_text()
    assert f"What changed since {old.fingerprint[:12]}" in page and "srdash-diff" in page
    out = runner.invoke(main, ["report", str(root / "new" / "competition.toml"), "-o", str(tmp_path / "x.md"),
                               "--previous", str(root / "old" / "results.csv")])
    assert out.exit_code == 2 and "is neither a published folder (with published.json) nor a competition file" in (
        out.output)
