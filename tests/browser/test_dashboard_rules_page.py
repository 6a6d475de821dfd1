"""Every preset of the served demo dashboard's Rules dropdown, picked in headless Chromium (issue 37, item 7).

Each one judges (a leaderboard, and the fingerprint `srdash score` gives the demo's competition under those
rules, which differs from the previous one) or the page says why where the leaderboard was; either way no
fingerprint or figure of an earlier verdict stays on the page. A screenshot of a refused preset at 1400x900 goes
to $SRDASH_SCREENSHOT_DIR (else the session's screenshot folder); the refused preset on a phone (390x844) is
tested on test_dashboard.py's phone page (no page load of its own).
"""

from __future__ import annotations

import dataclasses

import pytest

from srdash.apps.verdict_text import RANK_METHOD_LABELS as _RANK_METHOD_LABELS
from srdash.judging.rules import load_rules
from voila_server import expect_no_verdict_shown, pick_rules_preset

pytestmark = pytest.mark.browser

expect = pytest.importorskip("playwright.sync_api").expect

# Voilà's start on a busy machine; what srbench2023-track1 and srbench2025 count (tree nodes, rounded nodes, R² on
# the data) comes with the demo's shipped results (measuring it took 22-28 s of the test's 110 s before).
READY_MS = 900_000
REFUSED = "srbench2023-track2"     # its 'jury' criterion is a column the demo's results do not have


def _expected_fingerprints(names) -> dict[str, str]:
    """The first 12 characters of the verdict fingerprint of the demo's competition under each rules, as
    `srdash score` computes it (the same pipeline), or None where it gives no verdict."""
    from srdash.demo.competition import cached_demo
    from srdash.errors import SrdashError
    from srdash.judging.competition import load_competition
    from srdash.judging.pipeline import judge_competition

    competition = load_competition(cached_demo()["competition"])
    expected = {}
    for name in names:
        try:
            result = judge_competition(dataclasses.replace(competition, rules=load_rules(name)))
        except SrdashError:
            expected[name] = None
        else:
            expected[name] = result.fingerprint[:12]
    return expected


def _open(browser, url, **context_options):
    context = browser.new_context(**context_options)
    page = context.new_page()
    page.goto(url, timeout=120_000)
    expect(page.locator(".srdash-fingerprint-value")).to_be_visible(timeout=READY_MS)
    return context, page


def test_every_preset_judges_or_says_why_with_no_earlier_verdict_on_screen(browser, dashboard_url,
                                                                          screenshot_dir):
    from voila_server import screenshot

    context, page = _open(browser, dashboard_url, viewport={"width": 1400, "height": 900})
    try:
        names = [o.get_attribute("value").split(" (")[0] for o in page.locator(".srdash-rules select option").all()]
        assert names[0] == "srbench2022" and REFUSED in names and "srbench2025" in names
        expected = _expected_fingerprints(names)
        assert expected[REFUSED] is None and expected["srbench2025"] is not None
        previous = page.locator(".srdash-fingerprint-value").inner_text()
        shown_ties = _RANK_METHOD_LABELS["average"]          # srbench2022's
        assert previous == expected["srbench2022"]
        for name in names[1:] + names[:1]:
            pick_rules_preset(page, name)
            ties = _RANK_METHOD_LABELS[load_rules(name).rank_method]
            if expected[name] is None:
                expect_no_verdict_shown(page, name)
                expect(page.locator(".srdash-rank-method select")).to_have_value(ties)
                if ties != shown_ties:
                    expect(page.locator(".srdash-controls-note")).to_contain_text(f"Ties: {ties}, was {shown_ties}")
                shown_ties = ties
                assert "give the runs' model strings" not in page.locator(".srdash-refusal").inner_text()
                if name == REFUSED:
                    screenshot(page, screenshot_dir, "dashboard-refused-preset-1400x900")
                continue
            fingerprint = page.locator(".srdash-fingerprint-value")
            expect(fingerprint).to_have_text(expected[name], timeout=READY_MS)
            assert expected[name] != previous         # another verdict: another fingerprint
            previous = expected[name]
            expect(page.locator(".srdash-refusal")).to_have_count(0)
            expect(page.locator("table.srdash-leaderboard tbody tr").first).to_be_visible()
            # the controls show the rules' own options, and what choosing them set is said beside them
            expect(page.locator(".srdash-rank-method select")).to_have_value(ties)   # a value is its label
            if ties != shown_ties:
                expect(page.locator(".srdash-controls-note")).to_contain_text(f"Ties: {ties}, was {shown_ties}")
            shown_ties = ties
    finally:
        context.close()
