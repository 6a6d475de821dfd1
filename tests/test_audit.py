"""Tests of the audit of published tables (srdash.analysis.audit, `srdash audit`)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.analysis.audit import audit, check_published, load_published
from srdash.cli import main
from srdash.errors import SrdashError, ValidationError
from srdash.judging.ranking import judge
from srdash.judging.rules import load_rules

DATA = Path(__file__).parent / "data" / "audit"
REALDATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "realdata"
PUBLISHED_2022 = REALDATA / "srbench2022" / "published_final.csv"


def golden_verdict():
    """tests/data/audit/competition.csv under accuracy.toml: A 8/3, B 2, C 4/3 (derivation in README.md)."""
    return judge(pd.read_csv(DATA / "competition.csv"), load_rules(DATA / "accuracy.toml"))


def needs_realdata():
    if not PUBLISHED_2022.is_file():
        pytest.skip(f"real data not available: {PUBLISHED_2022} is absent (see ../shared/realdata/README.md)")


# ---------------------------------------------------------------------------
# The SRBench 2022 published finals
# ---------------------------------------------------------------------------
@pytest.mark.realdata
@pytest.mark.parametrize("track", ["synthetic", "real-world"])
def test_2022_published_table_passes_its_own_consistency_check(track):
    needs_realdata()
    table = load_published(PUBLISHED_2022, track=track)
    assert len(table) == {"synthetic": 9, "real-world": 8}[track]
    assert check_published(table).empty


@pytest.mark.realdata
def test_2022_table_with_the_first_published_udsr_score_is_out_of_order(tmp_path):
    # uDSR was first published at 5.67 while placed third, behind pysr's 5.26 at place 2
    needs_realdata()
    edited = pd.read_csv(PUBLISHED_2022)
    edited.loc[(edited["track"] == "synthetic") & (edited["method"] == "uDSR"), "score"] = 5.67
    path = tmp_path / "published_first.csv"
    edited.to_csv(path, index=False)
    problems = check_published(load_published(path, track="synthetic"))
    assert problems[["kind", "method", "other"]].values.tolist() == [["place out of order", "uDSR", "pysr"]]
    assert problems["detail"].iloc[0] == "uDSR is placed 3 with score 5.67, above the score 5.26 of pysr placed 2."
    # the other track is untouched
    assert check_published(load_published(path, track="real-world")).empty


# ---------------------------------------------------------------------------
# Recomputed vs published (golden: tests/data/audit/README.md)
# ---------------------------------------------------------------------------
def test_golden_recomputation_agrees_with_the_rounded_publication():
    result = audit(golden_verdict(), DATA / "published_ok.csv")
    assert result.passes and result.consistent
    table = result.comparison.set_index("method")
    assert table["status"].tolist() == ["agrees"] * 3
    # recomputed - published: 8/3 - 2.67 = -0.00333, 2 - 2.00 = 0, 4/3 - 1.33 = +0.00333
    assert table["score_difference"].tolist() == pytest.approx([-1 / 300, 0.0, 1 / 300])
    assert table["recomputed_place"].tolist() == [1, 2, 3]


def test_a_score_beyond_the_tolerance_is_flagged():
    result = audit(golden_verdict(), DATA / "published_off.csv")
    assert result.consistent and not result.passes
    flagged = result.flagged
    assert flagged["method"].tolist() == ["B"]
    assert flagged["status"].iloc[0] == "score differs"
    assert flagged["score_difference"].iloc[0] == pytest.approx(2.0 - 2.10)
    assert "B: score differs (published 2.1 (place 2), recomputed 2 (place 2))" in result.summary()


@pytest.mark.parametrize("tolerance, flagged", [(0.0999, True), (0.1, False), (0.2, False)])
def test_tolerance_is_inclusive(tolerance, flagged):
    # B differs by exactly 0.1 (up to float error): not beyond a tolerance of 0.1
    result = audit(golden_verdict(), DATA / "published_off.csv", tolerance=tolerance)
    assert ("B" in set(result.flagged["method"])) is flagged


def test_half_a_unit_of_the_second_decimal_is_within_the_default_tolerance():
    board = pd.DataFrame({"method": ["x"], "score": [4.675]})
    published = pd.DataFrame({"method": ["x"], "score": [4.67]})
    assert audit(board, published).passes


def test_places_that_differ_are_flagged():
    board = pd.DataFrame({"method": ["a", "b"], "score": [2.0, 1.0]})
    published = pd.DataFrame({"method": ["a", "b"], "score": [2.0, 1.0], "place": [2, 1]})
    result = audit(board, published)
    assert result.comparison["status"].tolist() == ["place differs", "place differs"]
    # the published table itself is also out of order: b is placed 1 with the lower score
    assert result.inconsistencies["kind"].tolist() == ["place out of order"]


def test_methods_missing_on_either_side_with_a_name_hint():
    board = pd.DataFrame({"method": ["a", "PySR", "extra"], "score": [3.0, 2.0, 1.0]})
    published = pd.DataFrame({"method": ["a", "pysr"], "score": [3.0, 2.0], "place": [1, 2]})
    result = audit(board, published)
    status = dict(zip(result.comparison["method"], result.comparison["status"]))
    assert status == {"a": "agrees", "PySR": "only in recomputed", "extra": "only in recomputed",
                      "pysr": "only in published"}
    assert result.name_hints["PySR"] == "pysr" and result.name_hints["pysr"] == "PySR"
    assert "the other side has 'pysr', perhaps the same method" in result.summary()
    # places are counted among the methods on both sides: 'a' is 1st there
    assert result.comparison.set_index("method").loc["a", "recomputed_place"] == 1


def test_track_selection():
    result = audit(golden_verdict(), DATA / "published_tracks.csv", track="first")
    assert result.passes and result.track == "first"
    other = audit(golden_verdict(), DATA / "published_tracks.csv", track="second")
    assert other.flagged["method"].tolist() == ["A", "B", "C"]


# ---------------------------------------------------------------------------
# Internal consistency
# ---------------------------------------------------------------------------
def test_duplicated_place_with_different_scores_is_flagged_but_a_tie_is_not():
    table = pd.DataFrame({"method": ["a", "b", "c", "d"], "score": [3.0, 2.0, 2.0, 1.5], "place": [1, 2, 2, 2]})
    problems = check_published(table)
    # b and c tie at 2.0 and share place 2 (fine); d shares it with a lower score (twice)
    assert problems[["kind", "method", "other"]].values.tolist() == [
        ["duplicated place", "d", "b"], ["duplicated place", "d", "c"]]


def test_no_place_column_nothing_to_check():
    assert check_published(pd.DataFrame({"method": ["a", "b"], "score": [1.0, 2.0]})).empty


# ---------------------------------------------------------------------------
# Validation of the published table (every error tested)
# ---------------------------------------------------------------------------
def test_missing_columns_are_listed():
    with pytest.raises(ValidationError, match=r"column 'score': the column is missing; .* Columns present: method, "
                                              r"points"):
        load_published(pd.DataFrame({"method": ["a"], "points": [1]}))


def test_every_bad_row_is_reported_at_once(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("place,method,score\n1,a,2.0\nsecond,b,high\n3,,1.0\n4,a,0.5\n")
    with pytest.raises(ValidationError) as caught:
        load_published(path)
    message = str(caught.value)
    assert f"The published table {path} is not valid (4 problems)" in message
    assert f"{path}, row 2, column 'place': 'second' is not a whole number >= 1." in message
    assert f"{path}, row 2, column 'score': 'high' is not a number; every method needs a score." in message
    assert f"{path}, row 3, column 'method': the method name is empty." in message
    assert f"{path}, row 4, column 'method': 'a' is listed more than once (rows 1, 4); list each method once." \
        in message


@pytest.mark.parametrize("place", ["0", "1.5", "-2"])
def test_places_must_be_whole_numbers_from_one(place):
    with pytest.raises(ValidationError, match=f"'{place}' is not a whole number >= 1"):
        load_published(pd.DataFrame({"method": ["a"], "score": ["1"], "place": [place]}))


def test_track_errors():
    tracks = DATA / "published_tracks.csv"
    with pytest.raises(SrdashError, match=r"holds several tracks \(first, second\); choose one with track= "
                                          r"\(CLI: --track\)"):
        load_published(tracks)
    with pytest.raises(SrdashError, match="has no track 'third'. Tracks: first, second."):
        load_published(tracks, track="third")
    with pytest.raises(SrdashError, match="A track \\('first'\\) was asked for, but the published table .* has no "
                                          "'track' column"):
        load_published(DATA / "published_ok.csv", track="first")


def test_missing_file():
    with pytest.raises(SrdashError, match="The published table 'nope.csv' does not exist or is not a file."):
        load_published("nope.csv")


def test_tolerance_error():
    with pytest.raises(SrdashError, match="The 'tolerance' option must be a number >= 0. Got -1."):
        audit(golden_verdict(), DATA / "published_ok.csv", tolerance=-1)


def test_recomputed_leaderboard_needs_method_and_score():
    with pytest.raises(SrdashError, match="The recomputed leaderboard needs the column\\(s\\) score. Columns: method, "
                                          "points."):
        audit(pd.DataFrame({"method": ["a"], "points": [1.0]}), DATA / "published_ok.csv")


def test_audit_does_not_mutate_its_inputs():
    published = pd.read_csv(DATA / "published_ok.csv")
    copy = published.copy()
    audit(golden_verdict(), published)
    pd.testing.assert_frame_equal(published, copy)


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------
def run_audit(*arguments):
    return CliRunner().invoke(main, ["audit", str(DATA / "competition.csv"), "--rules", str(DATA / "accuracy.toml"),
                                     *arguments])


def test_cli_audit_agrees(tmp_path):
    out = tmp_path / "audit.csv"
    result = run_audit("--published", str(DATA / "published_ok.csv"), "-o", str(out), "--strict")
    assert result.exit_code == 0, result.output
    assert "All 3 methods agree with the recomputation (tolerance 0.005)." in result.output
    written = pd.read_csv(out)
    assert written["status"].tolist() == ["agrees"] * 3
    block = json.loads(Path(f"{out}.provenance.json").read_text())
    # inputs are named by role and path relative to the competition's folder (never absolute)
    assert "input_sha256:published:published_ok.csv" in block
    assert "input_sha256:results:competition.csv" in block
    assert block["audit_tolerance"] == "0.005"


def test_cli_audit_flags_a_difference_and_strict_exits_3():
    result = run_audit("--published", str(DATA / "published_off.csv"))
    assert result.exit_code == 0
    assert "1 of 3 methods need attention (tolerance 0.005):" in result.output
    assert "B: score differs" in result.output
    strict = run_audit("--published", str(DATA / "published_off.csv"), "--strict")
    assert strict.exit_code == 3


def test_cli_audit_track_and_tolerance():
    result = run_audit("--published", str(DATA / "published_tracks.csv"), "--track", "second", "--tolerance", "2")
    assert result.exit_code == 0, result.output
    assert "(track second)" in result.output
    # with a tolerance of 2 only C's score differs (4/3 - 3 = -1.67 is within; places all differ)
    assert "3 of 3 methods need attention (tolerance 2):" in result.output


def test_cli_audit_errors_are_clean():
    result = run_audit("--published", str(DATA / "published_tracks.csv"))
    assert result.exit_code == 1
    assert "holds several tracks (first, second)" in result.output
    assert "Traceback" not in result.output
    missing = run_audit()
    assert missing.exit_code == 2 and "Missing option '--published'" in missing.output


# ---------------------------------------------------------------------------
# Audit view (ipywidgets)
# ---------------------------------------------------------------------------
def test_audit_view_follows_upload_track_and_tolerance():
    pytest.importorskip("ipywidgets")
    from srdash.apps.integrity import AuditView

    view = AuditView(golden_verdict())
    assert view.result is None and view.tolerance == 0.005
    content = (DATA / "published_tracks.csv").read_bytes()
    view.upload.value = ({"name": "published_tracks.csv", "type": "text/csv", "size": len(content),
                          "content": memoryview(content),
                          "last_modified": datetime.datetime(2022, 7, 1, tzinfo=datetime.timezone.utc)},)
    assert [value for _, value in view.track_input.options] == ["first", "second"]
    assert view.track == "first" and view.result.passes
    view.track_input.value = "second"
    assert view.result.flagged["method"].tolist() == ["A", "B", "C"]
    view.tolerance_input.value = 100.0
    # scores now agree within the tolerance, but every place still differs
    assert set(view.result.flagged["status"]) == {"place differs"}
    assert "Audit of the published table (track second)" in view.table.outputs[0]["data"]["text/plain"]


def test_audit_view_reports_errors_in_its_log():
    pytest.importorskip("ipywidgets")
    from srdash.apps.integrity import AuditView

    view = AuditView(golden_verdict(), pd.DataFrame({"method": ["A"], "score": ["x"]}))
    assert view.result is None
    assert "'x' is not a number; every method needs a score." in view.log_panel.text()
