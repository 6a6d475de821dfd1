"""One competition, one verdict, through every door.

For the demo competition (qualification stage, dataset descriptions and a
real-world track with its trust store), every door shows the same leaderboard
and the same verdict fingerprint:
`srdash score`, the report, the dashboard in Chromium, the sensitivity app's
official order, `srdash robustness`'s official order and `srdash audit`'s
recomputed table.

All doors share one cache folder, seeded with the demo's prepared results
(shipped with srdash), so no door waits for sympy and every door reads the
same prepared results.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.cli import main

pytestmark = [pytest.mark.browser, pytest.mark.slow]

expect = pytest.importorskip("playwright.sync_api").expect

APP_READY_TIMEOUT_MS = 900_000
_FINGERPRINT = re.compile(r"Verdict fingerprint: ([0-9a-f]{12})")


@pytest.fixture(scope="module")
def competitions(tmp_path_factory):
    """The demo competition file (with its real-world track: the demo expert's trust ranks), and the same
    without the real-world track; one shared cache folder.

    The demo comes from :func:`srdash.demo.competition.cached_demo`, which seeds the cache with the
    demo's prepared results (shipped with srdash): no door waits for sympy.
    """
    from srdash.demo.competition import cached_demo

    folder = tmp_path_factory.mktemp("doors")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SRDASH_CACHE_DIR", str(folder / "cache"))
        with_trust = cached_demo()["competition"]
        plain = with_trust.parent / "plain.toml"
        text = with_trust.read_text()
        plain.write_text(text[:text.index("\n[realworld]")] + "\n")
        yield {"plain": plain, "with-trust": with_trust, "cache": folder / "cache", "folder": folder}


@pytest.fixture(scope="module")
def copies(competitions):
    """Two byte-identical copies of the demo's competition folder elsewhere than the original: one deeper down,
    one with a space in its name."""
    import shutil

    source = competitions["plain"].parent
    root = competitions["folder"] / "moved"
    made = {"deeper": root / "one" / "level" / "deeper", "spaced": root / "with a space"}
    for copy in made.values():
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns("plain.toml", "out-*"))
    return made


@pytest.fixture(scope="module")
def dashboard_of_a_copy(copies, competitions, start_server, browser):
    """The dashboard's door, opened on the copy with a space in its name: its leaderboard, fingerprint and
    real-world leaderboard (one server for both tests that read it: a dashboard door is the slowest)."""
    return _dashboard(start_server, browser, copies["spaced"] / "competition.toml", competitions["cache"])


def _cli(*arguments: str) -> str:
    result = CliRunner().invoke(main, [str(a) for a in arguments])
    assert result.exit_code == 0, result.output
    return result.output


def _cli_doors(competition: Path, out: Path) -> dict:
    """Leaderboard order and fingerprint of every command-line door."""
    out.mkdir(exist_ok=True)
    doors = {}
    _cli("score", competition, "-o", out / "lb.csv", "--jobs", "2")
    board = pd.read_csv(out / "lb.csv")
    provenance = json.loads((out / "lb.csv.provenance.json").read_text())
    doors["score"] = (list(board["method"]), provenance["verdict_fingerprint"][:12])
    scores = dict(zip(board["method"], board["score"]))

    _cli("report", competition, "-o", out / "report.html", "--samples", "50")
    html = (out / "report.html").read_text()
    first_board = html[html.index("srdash-leaderboard"):]
    first_board = first_board[:first_board.index("</table>")]
    doors["report"] = (re.findall(r"<td class=.srdash-method.>([^<]+)</td>", first_board),
                       _FINGERPRINT.search(html).group(1))

    _cli("robustness", competition, "-B", "20", "-o", out / "robustness.csv")
    robust = pd.read_csv(out / "robustness.csv").sort_values("place", kind="stable")
    sidecar = json.loads((out / "robustness.csv.provenance.json").read_text())
    doors["robustness"] = (list(robust["method"]), sidecar["verdict_fingerprint"][:12])

    _cli("audit", competition, "--published", out / "lb.csv", "-o", out / "audit.csv")
    audit = pd.read_csv(out / "audit.csv")
    assert not audit["flagged"].any(), audit
    recomputed = audit.sort_values("recomputed_place", kind="stable")
    assert dict(zip(recomputed["method"], recomputed["recomputed_score"])) == pytest.approx(scores)
    sidecar = json.loads((out / "audit.csv.provenance.json").read_text())
    doors["audit"] = (list(recomputed["method"]), sidecar["verdict_fingerprint"][:12])

    output = _cli("sensitivity", competition, "--samples", "50", "-o", out / "sensitivity.csv")
    sensitivity = pd.read_csv(out / "sensitivity.csv").sort_values("official_place", kind="stable")
    doors["sensitivity"] = (list(sensitivity["method"]), _FINGERPRINT.search(output).group(1))
    return doors


def _sensitivity_app_order(competition: Path) -> list[str]:
    """The official order of the sensitivity app (the class its notebook builds), judged by the pipeline."""
    from srdash.apps.sensitivity import SensitivityView
    from srdash.judging.competition import load_competition

    view = SensitivityView.from_competition(load_competition(competition), served=False)
    assert view.wait(600)
    board = view.rescorer.leaderboard()
    return list(board.sort_values("place", kind="stable")["method"])


def _dashboard(start_server, browser, competition: Path, cache: Path) -> tuple[list[str], str, list[str]]:
    server = start_server(["serve", str(competition), "--jobs", "2"], name=f"{competition.parent.name}-{competition.stem}",
                          env={"SRDASH_CACHE_DIR": str(cache)})
    context = browser.new_context(viewport={"width": 1400, "height": 3000})
    page = context.new_page()
    try:
        page.goto(server.url, timeout=120_000)
        expect(page.locator(".srdash-fingerprint-value")).to_be_visible(timeout=APP_READY_TIMEOUT_MS)
        methods = page.locator(".srdash-leaderboard-panel table.srdash-leaderboard .srdash-method").all_text_contents()
        fingerprint = page.locator(".srdash-fingerprint-value").text_content()
        realworld = []
        title = page.get_by_text("Real-world track (expert trust)")
        if title.count():
            title.click()
            tables = page.locator(".widget-accordion table.srdash-leaderboard .srdash-method")
            expect(tables.first).to_be_visible(timeout=120_000)
            realworld = tables.all_text_contents()
        return methods, fingerprint, realworld
    finally:
        context.close()


def test_every_door_gives_the_same_verdict(competitions, request):
    # The competition with its real-world track (the plain one differs by the trust store only, whose effect
    # on the fingerprint is tested below): every door, the real-world leaderboard included. The dashboard is
    # opened on a byte-identical copy of the folder (the test below needs one there too).
    competition = competitions["with-trust"]
    doors = _cli_doors(competition, competitions["folder"] / "out-with-trust")
    expected_order, expected_fingerprint = doors["score"]
    # the demo's 7 methods less MeanBaseline, which did not qualify
    assert len(expected_order) == 6 and "MeanBaseline" not in expected_order
    for door, (order, fingerprint) in doors.items():
        assert order == expected_order, door
        assert fingerprint == expected_fingerprint, door
    assert _sensitivity_app_order(competition) == expected_order
    # asked for here, after the command-line doors, not while the test workers all start at once
    methods, fingerprint, realworld = request.getfixturevalue("dashboard_of_a_copy")
    assert methods == expected_order
    assert fingerprint == expected_fingerprint
    from srdash.judging.competition import load_competition
    from srdash.judging.pipeline import judge_competition

    result = judge_competition(load_competition(competition))
    assert result.realworld is not None and "MeanBaseline" not in set(result.realworld.leaderboard["method"])
    assert realworld == list(result.realworld.leaderboard["method"])
    assert result.fingerprint[:12] == expected_fingerprint


def test_the_trust_store_changes_the_fingerprint(competitions):
    from srdash.judging.competition import load_competition
    from srdash.judging.pipeline import judge_competition

    plain = judge_competition(load_competition(competitions["plain"]))
    with_trust = judge_competition(load_competition(competitions["with-trust"]))
    assert list(plain.verdict.leaderboard["method"]) == list(with_trust.verdict.leaderboard["method"])
    assert plain.fingerprint != with_trust.fingerprint


def test_the_same_files_in_any_folder_give_one_fingerprint(competitions, copies, dashboard_of_a_copy):
    """The verdict fingerprint is an identity: byte-identical competition folders (one deeper, one with a
    space in its name) give one fingerprint in `srdash score`, `srdash report` and the dashboard, equal to
    the built-in demo's; the report publishes no absolute path."""
    from srdash.judging.competition import load_competition
    from srdash.judging.pipeline import judge_competition

    expected = judge_competition(load_competition(competitions["with-trust"])).fingerprint[:12]
    seen = set()
    for copy in copies.values():
        out = copy / "out"
        _cli("score", copy / "competition.toml", "-o", out / "lb.csv", "--jobs", "2")
        seen.add(json.loads((out / "lb.csv.provenance.json").read_text())["verdict_fingerprint"][:12])
    # the report of the deeper copy, the dashboard of the other (the other doors are tested on the original above)
    deeper = copies["deeper"]
    _cli("report", deeper / "competition.toml", "-o", deeper / "out" / "report.html", "--samples", "20")
    html = (deeper / "out" / "report.html").read_text()
    seen.add(_FINGERPRINT.search(html).group(1))
    for absolute in (str(deeper), str(competitions["folder"]), str(Path.home())):
        assert absolute not in html  # inputs are named relative to the competition's folder
    assert 'data-key="input_sha256:results:results.csv"' in html
    seen.add(dashboard_of_a_copy[1])
    assert seen == {expected}
