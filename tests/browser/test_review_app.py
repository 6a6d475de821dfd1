"""The real trust review app (`srdash review`, Voilà) driven by headless Chromium.

One small competition (4 methods, 2 datasets, 3 runs each) and one trust store
for the module. The tests run in file order, each on a fresh server when it
needs one:

1. ann ranks both datasets (and comments); the page is reloaded: her entries are there;
2. the server is killed with SIGKILL (the whole process group, kernels included) and
   restarted: her entries are still there;
3. bob sees another blinded order;
4. the organiser reveals the methods: the real-world leaderboard follows ann's ranks.

Every method's models have the same shape and its representative (median) run the
same test R2, so accuracy and simplicity tie between the three honest methods and the
leaderboard order is decided by ann's trust ranks alone. The fourth method's name and
model string are HTML/script: they must show as text.
Set SRDASH_SCREENSHOT_DIR to keep the screenshots.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

from srdash.apps.server import free_port
from review_cards import PLACES, scroll_below_window, scroll_to_cards
from voila_server import child_processes  # tests/child_processes.py, which voila_server puts on sys.path
from voila_server import (CHROMIUM, PLOT, VoilaServer, figure_text_problems, plot_title, refuse_other_machines,
                          screenshot)
from srdash.judging.trust import TrustStore

# No retry (srdash installs no rerun plugin): a page that misses a card is a real failure (the review
# builds its widgets only once the page is displayed: srdash.apps.panels.PageReady).
pytestmark = [pytest.mark.browser]

expect = pytest.importorskip("playwright.sync_api").expect

HOSTILE_METHOD = "<i>mallory</i>"
HOSTILE_MODEL = "<script>window.pwned = 1</script><img src=x onerror=\"window.pwned = 2\">"
# method -> the three runs' models; run 1 (test R2 0.90, the median of .85 .90 .95) represents it.
MODELS = {
    "alpha": ("1.25*x1 + 7", "1.5*x1 + 2", "1.75*x1 + 9"),
    "beta": ("2.25*x1 + 7", "2.5*x1 + 1", "2.75*x1 + 9"),
    "gamma": ("0.25*x1 + 7", "0.5*x1 + 3", "0.75*x1 + 9"),
    HOSTILE_METHOD: (HOSTILE_MODEL,) * 3,
}
REPRESENTATIVE = {method: models[1] for method, models in MODELS.items()}
# ann's trust ranks (1 = most trusted), the same on both datasets.
ANN_RANKS = {"gamma": 1, "alpha": 2, "beta": 3, HOSTILE_METHOD: 4}
# The leaderboard, by hand (K = 4, ranks higher = better, ties averaged), on each dataset:
#   accuracy: all four at 0.90 -> 2.5 each
#   simplicity: the three honest models have the same shape -> positions 2..4 -> 3 each;
#               mallory's model is refused by the parser -> worst -> 1
#   trust: gamma 4, alpha 3, beta 2, mallory 1
#   harmonic means: gamma (2.5, 3, 4) = 3.051; alpha (2.5, 3, 3) = 2.812; beta (2.5, 3, 2) = 2.432;
#                   mallory (2.5, 1, 1) = 1.25 -- the same on both datasets, so these are the scores.
EXPECTED_BOARD = [("gamma", "3.051"), ("alpha", "2.812"), ("beta", "2.432"), (HOSTILE_METHOD, "1.250")]
DATASETS = ("d1", "d2")

PAGE_TIMEOUT_MS = 120_000


# --------------------------------------------------------------------------- the competition and the server


@pytest.fixture(scope="module")
def competition(tmp_path_factory):
    folder = tmp_path_factory.mktemp("review-app")
    rows = []
    for dataset in DATASETS:
        for method, models in MODELS.items():
            for run, (model, r2) in enumerate(zip(models, (0.85, 0.90, 0.95))):
                rows.append({"method": method, "dataset": dataset, "run": run, "model": model, "r2_test": r2})
    pd.DataFrame(rows).to_csv(folder / "results.csv", index=False)
    data = folder / "data"
    data.mkdir()
    dates = pd.date_range("2021-03-01", periods=30, freq="D")
    x1 = [float(i % 10) for i in range(30)]
    pd.DataFrame({"date": dates.strftime("%Y-%m-%d"), "x1": x1,
                  "y": [1.5 * x + 2 + 0.3 * (i % 3) for i, x in enumerate(x1)]}).to_csv(data / "d1_test.csv",
                                                                                       index=False)
    pd.DataFrame({"x1": x1, "y": [0.5 * x + 3 for x in x1]}).to_csv(data / "d2_test.csv", index=False)
    # A store whose blinding seed gives ann and bob different orders on d1 (the seed lives in the
    # store; the first seed that does it is taken, so the test cannot depend on luck).
    store = folder / "trust.sqlite"
    for seed in range(100):
        with TrustStore(folder / f"probe-{seed}.sqlite", seed=seed) as probe:
            if probe.blinded_order("ann", "d1", MODELS) != probe.blinded_order("bob", "d1", MODELS):
                break
    TrustStore(store, seed=seed).close()
    return {"folder": folder, "results": folder / "results.csv", "data": data, "store": store}


@pytest.fixture(scope="module")
def servers(start_server):
    """Every review server of the module; stopped at its end."""
    return {"start": start_server, "started": []}


def start(servers: dict, competition: dict, judge: str, *, organiser: bool = False) -> VoilaServer:
    """`srdash review` for ``judge`` (its own process session, so a SIGKILL takes the whole tree)."""
    arguments = ["review", str(competition["results"]), "--judge", judge, "--store", str(competition["store"]),
                 "--data", str(competition["data"])] + (["--organiser"] if organiser else [])
    server = servers["start"](arguments, name=f"review-{judge}")
    servers["started"].append(server)
    return server


# --------------------------------------------------------------------------- page helpers


#: Requests of the module's pages to anything but the server (aborted): none expected.
OUTSIDE: list[str] = []


@pytest.fixture(scope="module")
def context(browser):
    # Tall viewport: the lab template scrolls inside its own container.
    context = browser.new_context(viewport={"width": 1300, "height": 3000})
    refuse_other_machines(context, OUTSIDE)
    yield context
    context.close()


def open_page(context, url: str, state: dict):
    page = context.new_page()
    page.on("requestfailed", lambda request: state.setdefault("failed", []).append(request.url))
    page.on("dialog", lambda dialog: (state.setdefault("dialogs", []).append(dialog.message), dialog.dismiss()))
    page.on("pageerror", lambda error: state.setdefault("errors", []).append(str(error)))
    page.goto(url, timeout=PAGE_TIMEOUT_MS)
    wait_for_cards(page)
    return page


def wait_for_overview(page, n: int = len(MODELS)) -> None:
    """The shown dataset's overview: a row of rank buttons per model (above the cards, which wait to be scrolled to)."""
    expect(page.locator(".srdash-compare .srdash-rank-row:visible")).to_have_count(n, timeout=PAGE_TIMEOUT_MS)


def wait_for_cards(page, n: int = len(MODELS)) -> None:
    """The shown dataset's ``n`` cards, each put into the page as the test scrolls to it (as a judge does)."""
    wait_for_overview(page, n)
    scroll_to_cards(page, n, timeout=PAGE_TIMEOUT_MS)
    expect(page.locator(".srdash-card:visible select").first).to_be_visible(timeout=PAGE_TIMEOUT_MS)


def card_methods(page) -> list[str]:
    """The method behind each card, in page order, recognised by its raw model string."""
    by_model = {model: method for method, model in REPRESENTATIVE.items()}
    raw = [page.locator(".srdash-card:visible").nth(i).locator(".srdash-raw pre").text_content()
           for i in range(page.locator(".srdash-card:visible").count())]
    return [by_model[text] for text in raw]


def shown_ranks(page) -> list[str]:
    cards = page.locator(".srdash-card:visible")
    return [cards.nth(i).locator("select").evaluate("s => s.options[s.selectedIndex].text")
            for i in range(cards.count())]


def rank_label(rank: int, n: int = len(MODELS)) -> str:
    return f"{rank} (most trusted)" if rank == 1 else f"{rank} (least trusted)" if rank == n else str(rank)


# The cards' places no one can see (the next dataset's, built ahead: placeholders, or cards once scrolled to), and
# any of their controls that could take focus or a click: each is focused and hit-tested at its centre
HIDDEN_CARDS_OPERABLE_JS = """() => {
  const hidden = [...document.querySelectorAll('.srdash-card-later')].filter(card => !card.checkVisibility());
  const operable = [];
  hidden.forEach(card => card.querySelectorAll('select, textarea, input, button').forEach(control => {
    control.focus();
    const r = control.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (document.activeElement === control || control.contains(hit) || r.width > 0) operable.push(control.tagName);
  }));
  return {hidden: hidden.length, operable};
}"""


def go_to(page, dataset: str) -> None:
    if not page.locator("h2", has_text=f": {dataset}").count():
        page.get_by_role("button", name="Next dataset").click()
    expect(page.locator("h2", has_text=f": {dataset}")).to_be_visible(timeout=30_000)
    wait_for_cards(page)


# --------------------------------------------------------------------------- the tests


@pytest.fixture(scope="module")
def ann_state():
    return {}


def test_ann_ranks_both_datasets_and_a_reload_keeps_them(servers, competition, context, ann_state,
                                                          tmp_path_factory):
    server = start(servers, competition, "ann")
    assert f"Trust store: {competition['store'].resolve()}" in server.log()
    state = {}
    page = open_page(context, server.url, state)
    expect(page.get_by_text("Trust review — real-world track")).to_be_visible()
    expect(page.get_by_text("1 = the model you trust most")).to_be_visible()
    for dataset in DATASETS:
        go_to(page, dataset)
        methods = card_methods(page)
        ann_state[dataset] = methods
        cards = page.locator(".srdash-card:visible")
        first = cards.nth(0)
        first.locator("textarea").fill(f"ann on {dataset}: <b>not bold</b>")
        first.locator("textarea").press("Tab")                     # the comment is sent when the box is left
        expect(first.locator("text=✓ saved")).to_be_visible(timeout=30_000)
        for i, method in enumerate(methods):
            cards.nth(i).locator("select").select_option(label=rank_label(ANN_RANKS[method]))
        for i in range(len(methods)):
            expect(cards.nth(i).locator("text=✓ saved")).to_be_visible(timeout=30_000)
        expect(page.locator(".srdash-card:visible", has_text="⚠")).to_have_count(0)
        if dataset == "d1":
            # d2's cards, built ahead, wait in the page, hidden: none can be seen, focused (so reached by Tab) or
            # clicked, so no entry of ann's on d1 can land on one of them
            expect(page.locator(".srdash-card-later")).to_have_count(2 * len(MODELS), timeout=60_000)
            assert page.evaluate(HIDDEN_CARDS_OPERABLE_JS) == {"hidden": len(MODELS), "operable": []}
            expect(plot_title(page, "Over time (test data)").first).to_be_visible(
                timeout=60_000)
            screenshot(page, tmp_path_factory.getbasetemp() / "screenshots", "review-ann-d1")
    expect(page.get_by_text("All 2 datasets reviewed")).to_be_visible()
    assert OUTSIDE == [] and not state.get("failed"), (OUTSIDE, state.get("failed"))  # nothing left the machine

    page.reload()
    wait_for_cards(page)
    expect(page.locator("h2", has_text=": d2")).to_be_visible()    # back where she left off
    check_ann_entries(page)
    assert not state.get("dialogs"), state
    page.close()


def check_ann_entries(page) -> None:
    for dataset in ("d2", "d1"):
        if not page.locator("h2", has_text=f": {dataset}").count():
            page.get_by_role("button", name="Previous dataset").click()
            expect(page.locator("h2", has_text=f": {dataset}")).to_be_visible(timeout=30_000)
            wait_for_cards(page)
        methods = card_methods(page)
        ranks = shown_ranks(page)
        assert [int(r.split()[0]) for r in ranks] == [ANN_RANKS[m] for m in methods], (dataset, ranks)
        expect(page.locator(".srdash-card:visible").nth(0).locator("textarea")).to_have_value(
            f"ann on {dataset}: <b>not bold</b>")
        expect(page.get_by_text("All 2 datasets reviewed")).to_be_visible()


def test_entries_survive_kill_9_of_the_server(servers, competition, context):
    ann = next(s for s in servers["started"] if s.process.poll() is None)
    ann.kill()
    assert ann.process.returncode == -signal.SIGKILL
    restarted = start(servers, competition, "ann")
    page = open_page(context, restarted.url, {})
    check_ann_entries(page)
    with TrustStore(competition["store"]) as store:
        entries = store.entries(judge="ann")
    assert len(entries) == 8 and entries["value"].notna().all()
    page.close()
    restarted.stop()


def test_a_second_judge_sees_another_blinded_order(bob_desk_page, ann_state):
    page = bob_desk_page
    expect(page.locator("h2", has_text=": d1")).to_be_visible()
    wait_for_cards(page)
    assert [page.locator(".srdash-card:visible h3").nth(i).text_content() for i in range(4)] == [
        "Model A", "Model B", "Model C", "Model D"]
    assert card_methods(page) != ann_state["d1"]
    assert sorted(card_methods(page)) == sorted(ann_state["d1"])
    assert [r.startswith("—") for r in shown_ranks(page)] == [True] * 4   # ann's entries are hers


def test_hostile_model_and_names_are_shown_as_text_and_the_leaderboard_follows_the_entries(
        servers, competition, context, tmp_path_factory):
    organiser = start(servers, competition, "org", organiser=True)
    state = {}
    page = open_page(context, organiser.url, state)
    hostile_card = page.locator(".srdash-card:visible").nth(card_methods(page).index(HOSTILE_METHOD))
    hostile_card.get_by_role("button", name="Show the model as submitted").click()
    expect(hostile_card.locator(".srdash-raw pre")).to_have_text(HOSTILE_MODEL)
    expect(hostile_card.get_by_text("This model cannot be shown as a formula")).to_be_visible()
    assert page.evaluate("() => window.pwned") is None
    # nothing of the model string became an element (plotly's own images are fine)
    assert page.locator(".srdash-card [onerror], .srdash-card img[src='x'], .srdash-card script").count() == 0

    expect(page.locator(".srdash-completeness")).to_contain_text("ann")
    page.get_by_placeholder("type REVEAL to confirm").fill("REVEAL")
    page.get_by_role("button", name="Reveal the methods and close the review").click()
    board = page.locator("table.srdash-leaderboard")
    expect(board).to_be_visible(timeout=60_000)
    expect(board.locator("tbody tr")).to_have_count(4)
    shown = [(board.locator("tbody tr").nth(i).locator(".srdash-method").text_content(),
              board.locator("tbody tr").nth(i).locator(".srdash-score").text_content()) for i in range(4)]
    assert shown == EXPECTED_BOARD
    expect(hostile_card.locator("h3")).to_have_text(f"Model {'ABCD'[card_methods(page).index(HOSTILE_METHOD)]}"
                                                    f" — {HOSTILE_METHOD}")
    expect(page.locator(".srdash-card:visible select").first).to_be_disabled()
    expect(page.get_by_role("button", name="Methods revealed (review closed)")).to_be_disabled()
    shot = screenshot(page, tmp_path_factory.getbasetemp() / "screenshots", "review-organiser")
    page.locator(".srdash-organiser").screenshot(path=str(shot.with_name("review-organiser-panel.png")))
    assert page.evaluate("() => window.pwned") is None and not state.get("dialogs")
    assert not state.get("failed") and OUTSIDE == [], (state.get("failed"), OUTSIDE)
    page.close()
    organiser.stop()
    with TrustStore(competition["store"]) as store:
        assert store.closed is not None and store.closed[1] == "org"


def test_listening_elsewhere_requires_the_token(competition, tmp_path):
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    port = free_port("127.0.0.2")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SRDASH_")}
    env.update({"SRDASH_CACHE_DIR": str(competition["folder"] / "cache"), "SRDASH_TOKEN": "s3cret-token",
                "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "IPYTHONDIR": str(tmp_path / "ipython")})
    TrustStore(tmp_path / "t.sqlite").close()
    process = child_processes.start([sys.executable, "-m", "srdash", "review", str(competition["results"]),
                                     "--judge", "eve", "--store", str(tmp_path / "t.sqlite"), "--ip", "127.0.0.2",
                                     "--port", str(port)],
                                    env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.2:{port}/"
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(line.decode() for line in process.stdout), daemon=True)
    reader.start()
    try:
        # Wait for srdash to announce the link (not only for the server to answer: a SIGTERM sent before
        # srdash's own readiness check has passed stops it before it prints the link).
        deadline = time.monotonic() + child_processes.START_BOUND
        while not any(line.startswith("Trust review for eve:") for line in lines):
            assert process.poll() is None and time.monotonic() < deadline, "".join(lines)
            time.sleep(0.1)
        with urllib.request.urlopen(base, timeout=30) as response:      # redirected to the login page
            assert "login" in response.url
        with urllib.request.urlopen(base + "?token=s3cret-token", timeout=60) as response:
            assert response.status == 200 and "login" not in response.url
        commands = _command_lines(process.pid)
        assert any("-m srdash.apps.voila_main" in c for c in commands)
        assert not [c for c in commands if "s3cret-token" in c]      # not visible in `ps`
    finally:
        child_processes.stop(process)
        reader.join(timeout=30)
    assert f"Trust review for eve: {base}?token=s3cret-token" in "".join(lines)


def _command_lines(pid: int) -> list[str]:
    lines = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if os.getpgid(int(proc.name)) == pid:
                    lines.append((proc / "cmdline").read_bytes().replace(b"\0", b" ").decode())
            except (OSError, ProcessLookupError):
                continue
    return lines


# --------------------------------------------------------------------------- widths: a wide screen and a phone

# Every typeset formula that is shown lies whole inside its box (none scrolls), and so does each
# formula of "All models at a glance"; every button shows its whole label.
FORMULA_PROBLEMS_JS = """() => {
  const problems = [];
  const shown = e => e.getBoundingClientRect().height > 0 && getComputedStyle(e).visibility === 'visible';
  document.querySelectorAll('.srdash-formula, .srdash-compare-formula').forEach((box, i) => {
    if (!shown(box)) return;
    if (box.scrollWidth > box.clientWidth + 1) problems.push(`formula ${i} is wider than its box (${box.scrollWidth} > ${box.clientWidth}): '${box.textContent.trim().slice(0, 40)}'`);
    const r = box.getBoundingClientRect();
    box.querySelectorAll('mjx-container, .MathJax').forEach(math => {
      const m = math.getBoundingClientRect();
      if (shown(math) && m.width > 0 && (m.right > r.right + 1 || m.left < r.left - 1)) problems.push(`typeset formula ${i} runs past its box (${Math.round(m.right)} > ${Math.round(r.right)})`);
    });
  });
  document.querySelectorAll('.srdash-review button').forEach(button => {
    if (shown(button) && button.scrollWidth > button.clientWidth + 1) problems.push(`button '${button.textContent.trim()}' is cut (${button.scrollWidth} > ${button.clientWidth})`);
  });
  return problems;
}"""

CARD_PROBLEMS_JS = """() => {
  const problems = [];
  const width = document.documentElement.clientWidth;
  document.querySelectorAll('.srdash-card, .srdash-compare, .srdash-organiser').forEach((box, i) => {
    const r = box.getBoundingClientRect();
    if (r.right > width + 1) problems.push(`${box.className.split(' ').pop()} ${i} runs past the window (${Math.round(r.right)} > ${width})`);
    if (box.scrollWidth > box.clientWidth + 1) problems.push(`${box.className.split(' ').pop()} ${i}: its content is wider than it (${box.scrollWidth} > ${box.clientWidth})`);
    box.querySelectorAll('td, .srdash-explain, h3').forEach(cell => {
      const c = cell.getBoundingClientRect();
      if (c.width > 0 && c.right > r.right + 1) problems.push(`${box.className.split(' ').pop()} ${i}: '${cell.textContent.trim().slice(0, 30)}' is cut at its edge`);
    });
  });
  return problems;
}"""


def test_on_a_phone_a_card_and_its_figures_come_when_the_judge_scrolls_to_it(bob_phone_page):
    page = bob_phone_page
    places = page.locator(PLACES)
    # the cards are below the first screen: each of d1's four waits as a placeholder of about its size, and no
    # figure is drawn
    expect(places).to_have_count(4)
    assert page.locator(".srdash-card:visible").count() == 0 and page.locator(PLOT).count() == 0
    expect(places.first).to_contain_text(re.compile(r"^Model [A-D] in detail…$"))
    box = places.first.bounding_box()
    assert box["y"] > 844 + 200 and box["height"] >= 800  # below the window and its margin; about a card's height
    # scrolled to 100 px above the first place, within NearScreen's 200 px margin (of the box the page scrolls in):
    # the card comes before the judge sees its place (it did not, while the margin was the window's)
    scroll_below_window(places.first, 100)
    expect(places.first.locator(".srdash-card")).to_have_count(1, timeout=60_000)
    assert places.first.bounding_box()["y"] > 844
    for i in range(2):       # the judge scrolls to the first cards; one of them is an honest model's, with figures
        places.nth(i).scroll_into_view_if_needed()
        card = places.nth(i).locator(".srdash-card")
        expect(card).to_be_visible(timeout=60_000)
        if card.locator(".srdash-figure").count():    # mallory's card has none
            card.locator(".srdash-figure").first.scroll_into_view_if_needed()
            expect(plot_title(card, "Predicted vs actual")).to_be_visible(timeout=60_000)
            break
    # the last card, further down, is not in the page yet; no more than two cards' figures are drawn
    assert places.last.locator(".srdash-card").count() == 0 and page.locator(PLOT).count() <= 4


# bob's review, a second judge's (test_a_second_judge_sees_another_blinded_order), opened once at a desk's width
# and once on a phone: each page serves every test that reads the review at its width (a review page costs a
# kernel and a browser's drawing of it), and his server every page (one server less to start). The desk's page is
# opened before the organiser reveals the methods, the phone's after: the layout is checked on a blinded review
# at a desk's width and on a revealed one (longer titles: "Model D — <i>mallory</i>") on a phone.
@pytest.fixture(scope="module")
def bob_server(servers, competition) -> VoilaServer:
    return start(servers, competition, "bob")


def _bob_page(browser, bob_server, viewport: dict):
    context = browser.new_context(viewport=viewport)
    refuse_other_machines(context, OUTSIDE)
    page = context.new_page()
    page.goto(bob_server.url, timeout=PAGE_TIMEOUT_MS)
    wait_for_overview(page)   # at the top: the tests that need the cards scroll to them
    return context, page


@pytest.fixture(scope="module")
def bob_desk_page(browser, bob_server):
    """bob's page on a wide screen (1400 x 3000: tall, the lab template scrolls inside its own container)."""
    context, page = _bob_page(browser, bob_server, {"width": 1400, "height": 3000})
    yield page
    context.close()


@pytest.fixture(scope="module")
def bob_phone_page(browser, bob_server):
    """bob's page on a phone (390 x 844), opened at the top."""
    context, page = _bob_page(browser, bob_server, {"width": 390, "height": 844})
    yield page
    context.close()


@pytest.mark.parametrize("width", [1400, 390])
def test_the_review_at_a_wide_screen_and_a_phone_has_no_clipped_or_overlapping_text(request, tmp_path_factory,
                                                                                     width):
    if width == 390:
        # the phone's page, after the judge scrolled to a card there; as tall as the wide screen's for a
        # whole-page screenshot (the width alone lays the cards out)
        page = request.getfixturevalue("bob_phone_page")
        page.set_viewport_size({"width": 390, "height": 3000})
    else:
        page = request.getfixturevalue("bob_desk_page")
    wait_for_cards(page)
    cards = page.locator(".srdash-card:visible")
    for i in range(cards.count()):  # a card's figures are drawn when the judge scrolls to it
        cards.nth(i).scroll_into_view_if_needed()
    expect(plot_title(page, "Over time (test data)").first).to_be_visible(
        timeout=60_000)
    # d1: two figures on each of the three honest cards (mallory's model has no predictions)
    expect(page.locator(PLOT)).to_have_count(6, timeout=60_000)
    expect(page.locator(".srdash-near-screen:visible")).to_have_count(0)
    page.wait_for_timeout(1000)                       # plotly's responsive resize
    screenshot(page, tmp_path_factory.getbasetemp() / "screenshots", f"review-{width}px")
    assert page.evaluate(CARD_PROBLEMS_JS) == []
    assert page.evaluate(FORMULA_PROBLEMS_JS) == []
    assert figure_text_problems(page) == []
    assert OUTSIDE == []


def _readme_commands() -> dict[str, list[str]]:
    """The README's commands for the demo competition, verbatim (comments dropped), by subcommand."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    commands = {}
    for line in readme.splitlines():
        words = line.split("#", 1)[0].split()
        if len(words) >= 3 and words[0] == "srdash" and words[1] in ("demo", "review") and "demo" in " ".join(words):
            commands.setdefault(words[1], words[1:])
    return commands


def test_the_readmes_judge_commands_open_the_review_of_the_demo(browser, tmp_path):
    """`srdash demo -o demo/` then `srdash review demo/competition.toml --judge ann`, as the README writes them:
    the judge sees the demo's real-world track (its six qualified methods, blinded)."""
    commands = _readme_commands()
    assert commands["demo"] == ["demo", "-o", "demo/"]
    assert commands["review"] == ["review", "demo/competition.toml", "--judge", "ann"]
    subprocess.run([sys.executable, "-m", "srdash", *commands["demo"]], cwd=tmp_path, check=True,
                   capture_output=True, env={**os.environ, "SRDASH_CACHE_DIR": str(tmp_path / "cache")})
    server = VoilaServer(commands["review"], tmp_path, name="readme-review")
    context = browser.new_context(viewport={"width": 1300, "height": 3000})
    try:
        page = context.new_page()
        page.goto(server.url, timeout=PAGE_TIMEOUT_MS)
        wait_for_overview(page, 6)    # MeanBaseline left out
        expect(page.locator(PLACES)).to_have_count(6)
        page_text = page.locator("body").inner_text()
        assert "MeanBaseline" not in page_text and "ExactSR" not in page_text   # blinded
        assert "Model A" in page_text
    finally:
        context.close()
        server.stop()
