"""The trust review with kernels waiting (`srdash review --visitors 2`) in headless Chromium: each personal link
gets its judge's own page from a waiting kernel (the kernel learns its visitor's key once taken), and a wrong
key is refused before any kernel is handed out (the HTTP side is tests/test_serve.py's)."""

from __future__ import annotations

import pandas as pd
import pytest

from srdash.judging.trust import TrustStore
from test_review_app import OUTSIDE, PAGE_TIMEOUT_MS, context, servers, wait_for_cards  # noqa: F401

pytestmark = [pytest.mark.browser]

expect = pytest.importorskip("playwright.sync_api").expect


def test_waiting_kernels_serve_each_judge_their_own_page(servers, context, tmp_path_factory):
    folder = tmp_path_factory.mktemp("review-pool")
    rows = [{"method": method, "dataset": "d1", "run": 0, "model": model, "r2_test": r2}
            for method, model, r2 in (("a", "1.5*x1 + 2", 0.9), ("b", "x1**2", 0.8))]
    pd.DataFrame(rows).to_csv(folder / "results.csv", index=False)
    with TrustStore(folder / "trust.sqlite", seed=7) as store:
        ann_key = store.issue_key("ann")
        org_key = store.issue_key("carla", role="organiser")
    server = servers["start"](["review", str(folder / "results.csv"), "--store", str(folder / "trust.sqlite"),
                               "--visitors", "2"], name="review-pool")
    servers["started"].append(server)
    page = context.new_page()
    page.goto(server.url + "?key=not-a-key", timeout=PAGE_TIMEOUT_MS)
    expect(page.get_by_text("This access key is not valid")).to_be_visible(timeout=PAGE_TIMEOUT_MS)
    page.goto(server.url + f"?key={ann_key}", timeout=PAGE_TIMEOUT_MS)
    wait_for_cards(page, 2)
    expect(page.locator(".srdash-review")).to_contain_text("Judge: ann")
    assert page.locator(".srdash-organiser").count() == 0
    page.goto(server.url + f"?key={org_key}", timeout=PAGE_TIMEOUT_MS)
    wait_for_cards(page, 2)
    expect(page.locator(".srdash-review")).to_contain_text("Judge: carla")
    expect(page.locator(".srdash-organiser")).to_be_visible()
    page.close()
    server.stop()
    assert "Failed to connect" not in server.log()  # each waiting kernel reached Voilà for its visitor's request
    assert OUTSIDE == []
