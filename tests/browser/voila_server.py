"""One way to run a real srdash Voilà app for the browser tests.

:class:`VoilaServer` starts a command (``srdash serve``, ``srdash review``,
``srdash predictions serve``...) in its own process session with hermetic
cache and Jupyter folders, waits until Voilà answers, and stops it with
SIGTERM (Voilà then shuts its kernels down) or kills the whole tree with
SIGKILL. The ``start_server`` fixture (conftest.py) stops what a module started.

:func:`watched_page` opens a page that records what it asked of other machines; :data:`PLOT` and
:func:`plot_title` find an app's plotly figures; :func:`figure_text_problems`, :func:`layout_problems`,
:func:`cut_buttons`, :func:`heatmaps_shown` and :func:`pareto_label_overlaps` check what a screenshot test looks at; :func:`screenshot` keeps one. :func:`process_tree`, :func:`is_kernel` and
:func:`socket_owners` find a server's kernels among its processes.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Mapping, Sequence

import pytest

from srdash.apps.server import free_port

# tests/child_processes.py: pytest puts tests/browser on sys.path for these files, and tests/ only when it
# collects a file there first
_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:
    sys.path.append(_TESTS)
import child_processes  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
REPO = Path(__file__).resolve().parents[2]

# A plotly figure in the page (an output area or a FigureWidget). Look for figures only there: after drawing a
# figure, JupyterLab's plotly renderer draws it a second time for a PNG copy (Plotly.toImage), in a
# div it appends to <body> off screen (left: -5000px) and removes about 50 ms later. A page-wide
# ".js-plotly-plot" locator sees two copies of the figure at that moment (strict-mode errors, counts
# one too high: measured on every redraw of the predictions app's chart).
PLOT = ".jp-OutputArea .js-plotly-plot"


def plot_title(scope, text: str):
    """The title of the figure whose title contains ``text``, in ``scope`` (a Playwright page or locator)."""
    return scope.locator(f"{PLOT} .gtitle", has_text=text)


# Text plotly has laid out: titles, axis titles, tick labels, annotations, legend entries, colour bars.
_FIGURE_TEXT = ".gtitle, .xtitle, .ytitle, .xtick text, .ytick text, .annotation-text, .legendtext, .colorbar text"
FIGURE_TEXT_PROBLEMS_JS = """(selector) => {
  const problems = [];
  const width = document.documentElement.clientWidth;
  document.querySelectorAll('%s').forEach((plot, p) => {
    const svg = plot.querySelector('.main-svg');
    if (!svg) return;
    const frame = svg.getBoundingClientRect();
    const name = `plot ${p} ('${(plot.querySelector('.gtitle') || {textContent: ''}).textContent.slice(0, 40)}')`;
    // a figure wider than the window is fine inside an srdash panel that fits it and scrolls sideways (with
    // its sign); not inside the page's own scrolling container
    const panel = plot.closest('.srdash-heatmap-panel, .srdash-scroll, .widget-output');
    const scrolls = panel !== null && ['auto', 'scroll'].includes(getComputedStyle(panel).overflowX)
      && panel.getBoundingClientRect().right <= width + 1;
    if (frame.right > width + 1 && !scrolls) problems.push(`${name} runs past the window (${Math.round(frame.right)} > ${width})`);
    const boxes = [...plot.querySelectorAll(selector)]
      .filter(t => t.textContent.trim() && t.getBoundingClientRect().width > 0)
      .map(t => [t.textContent.trim(), t.getBoundingClientRect(), t]);
    for (const [text, b] of boxes) {
      if (b.left < frame.left - 1 || b.right > frame.right + 1 || b.top < frame.top - 1 || b.bottom > frame.bottom + 1)
        problems.push(`${name}: '${text}' is clipped`);
    }
    // Rotated tick labels: their boxes are the upright rectangles around slanted text and overlap
    // while the text does not. Two labels of one axis, slanted alike, collide when their anchors are
    // closer than a line of text across the slant: |dx| * |sin(angle)| < font size.
    const number = (element, what) => {
      const m = new RegExp(what + '[(]([-0-9.]+)').exec(element.getAttribute('transform') || '');
      return m ? parseFloat(m[1]) : 0;
    };
    const slanted = (a, b) => {
      const axis = e => e.parentElement.getAttribute('class') || '';
      const angle = number(a, 'rotate');
      if (angle === 0 || angle !== number(b, 'rotate') || axis(a) !== axis(b)) return null;
      const across = Math.abs(number(a, 'translate') - number(b, 'translate')) * Math.abs(Math.sin(angle * Math.PI / 180));
      return across < 0.8 * parseFloat(getComputedStyle(a).fontSize);
    };
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const [s, a, u] = boxes[i], [t, b, v] = boxes[j];
      const collide = slanted(u, v);
      if (collide === true) problems.push(`${name}: '${s}' overlaps '${t}'`);
      if (collide !== null) continue;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1 && h > 1) problems.push(`${name}: '${s}' overlaps '${t}'`);
    }
  });
  return problems;
}""" % PLOT


def figure_text_problems(page) -> list[str]:
    """Clipped or overlapping text in the page's plotly figures, read from the label boxes plotly laid out.

    Each problem names the figure (by its title) and the text. Wait for plotly's
    responsive resize (about a second after the figures appear) before asking.
    """
    return page.evaluate(FIGURE_TEXT_PROBLEMS_JS, _FIGURE_TEXT)


LAYOUT_PROBLEMS_JS = """(selector) => {
  const problems = [];
  const width = document.documentElement.clientWidth;
  const scrollsInside = (el) => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const style = getComputedStyle(p);
      if (['auto', 'scroll'].includes(style.overflowX)) return p.getBoundingClientRect().right <= width + 1;
    }
    return false;
  };
  document.querySelectorAll(selector).forEach((el, i) => {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > width + 1 && !scrollsInside(el))
      problems.push(`${el.tagName.toLowerCase()}.${el.className.split(' ').slice(-1)[0]} ${i} runs past the window (${Math.round(r.right)} > ${width})`);
  });
  return problems;
}"""


#: Every URL but this machine's servers (127.0.0.1), files and in-page data.
_OTHER_MACHINES = re.compile(r"^(?!http://127\.0\.0\.1:|ws://127\.0\.0\.1:|file://|data:|blob:)")


def refuse_other_machines(context, outside: list[str]) -> None:
    """Abort (and record in ``outside``) every request of ``context`` to anything but 127.0.0.1 or a file."""
    def route(route):
        outside.append(route.request.url)
        route.abort()

    # A pattern, which Playwright's driver matches itself: the ~100 requests of a page to its server never reach
    # this process (a Python matcher took each one there and back: 1 CPU-s more per 12 review pages).
    context.route(_OTHER_MACHINES, route)


@contextlib.contextmanager
def watched_page(browser, url: str, *, width: int, height: int):
    """A page of a context of its own at ``url`` (``width`` x ``height``), every request to other machines refused
    (:func:`refuse_other_machines`): yields ``(page, outside, failed, errors)``, what it asked of other machines, its
    failed requests and its errors; the context is closed after."""
    context = browser.new_context(viewport={"width": width, "height": height})
    outside: list[str] = []
    refuse_other_machines(context, outside)
    page = context.new_page()
    failed: list[str] = []
    errors: list[str] = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(url, timeout=120_000)
        yield page, outside, failed, errors
    finally:
        context.close()


def weight_slider_problems(page, scope: str = "", *, drag: str | bool = False) -> list[str]:
    """What keeps the weight sliders under ``scope`` from being used: a track under 120 px, or (``drag``: the
    criterion's name, True for the first slider) a slider whose knob a mouse drag to 5 % of its track does
    not move."""
    from playwright.sync_api import expect

    tracks = page.locator(f"{scope} .srdash-weight-slider .noUi-target".strip())
    problems = [] if tracks.count() else [f"no weight slider under {scope!r}"]
    for i in range(tracks.count()):
        box = tracks.nth(i).bounding_box()
        if box is None or box["width"] < 120:
            problems.append(f"weight slider {i}: its track is {box and round(box['width'])} px wide (< 120)")
    if drag:
        kind = "slider" if drag is True else drag
        slider = page.locator(f"{scope} .srdash-weight-{kind}".strip()).first
        readout = slider.locator(".widget-readout")
        before = readout.inner_text()
        handle, track = slider.locator(".noUi-handle").bounding_box(), slider.locator(".noUi-target").bounding_box()
        middle = handle["y"] + handle["height"] / 2
        page.mouse.move(handle["x"] + handle["width"] / 2, middle)
        page.mouse.down()
        page.mouse.move(track["x"] + 0.05 * track["width"], middle, steps=5)
        page.mouse.up()
        try:
            expect(readout).not_to_have_text(before)
        except AssertionError:
            problems.append(f"dragging the {drag} slider left its readout at {before}")
    return problems


_OFF_SCREEN_JS = """([selectors, width, height]) => {
  const problems = [];
  for (const selector of selectors) {
    const element = document.querySelector(selector);
    if (!element) { problems.push(`no ${selector}`); continue; }
    const range = document.createRange();          // the text itself, not its block's width
    range.selectNodeContents(element);
    const box = range.getBoundingClientRect();
    if (box.width === 0 || box.left < 0 || box.top < 0 || box.right > width + 0.5 || box.bottom > height)
      problems.push(`${selector} ('${element.textContent.trim().slice(0, 60)}') at (${Math.round(box.left)}, ${Math.round(box.top)}) - (${Math.round(box.right)}, ${Math.round(box.bottom)}) is outside the first ${width} x ${height} screen`);
  }
  return problems;
}"""


def first_screen_problems(page, selectors, width: int, height: int) -> list[str]:
    """The texts (the first element matching each selector) that are missing, empty or not wholly on the first
    ``width`` x ``height`` screen."""
    return page.evaluate(_OFF_SCREEN_JS, [list(selectors), width, height])


# Buttons whose label does not fit ("Find weights" read "Find we..."): scrollWidth beyond clientWidth.
_CUT_BUTTONS_JS = """() => [...document.querySelectorAll('button')]
  .filter(b => b.getBoundingClientRect().width > 0 && b.scrollWidth > b.clientWidth + 1)
  .map(b => `'${b.textContent.trim()}' (${b.scrollWidth} > ${b.clientWidth})`)"""

# Per heatmap figure shown: its title, the smallest font of its tick labels and cell texts, and its row labels.
_HEATMAP_TEXT_JS = """(plot) => [...document.querySelectorAll(plot)]
  .filter(p => p.querySelector('.heatmaplayer') && p.getBoundingClientRect().width > 0)
  .map(p => {
    const texts = [...p.querySelectorAll('.xtick text, .ytick text, .heatmaplayer text')]
      .filter(t => t.textContent.trim());
    return {title: (p.querySelector('.gtitle') || {textContent: ''}).textContent.slice(0, 50),
            smallest: Math.min(...texts.map(t => parseFloat(getComputedStyle(t).fontSize))),
            rows: p.querySelectorAll('.ytick text').length};
  })"""

# Pairs of point labels (scatter text) of the shown Pareto fronts whose boxes overlap by more than a pixel.
_LABEL_OVERLAPS_JS = """(plot) => {
  const overlaps = [];
  [...document.querySelectorAll(plot)].filter(p => p.getBoundingClientRect().width > 0
      && (p.querySelector('.gtitle') || {textContent: ''}).textContent.startsWith('Pareto fronts')).forEach(p => {
    const boxes = [...p.querySelectorAll('.textpoint text')].filter(t => t.textContent.trim())
      .map(t => [t.textContent, t.getBoundingClientRect()]);
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const [s, a] = boxes[i], [t, b] = boxes[j];
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1 && h > 1) overlaps.push(`'${s}' overlaps '${t}'`);
    }
  });
  return overlaps;
}"""


def cut_buttons(page) -> list[str]:
    """The page's shown buttons whose label does not fit in them (issue 38), each with its widths."""
    return page.evaluate(_CUT_BUTTONS_JS)


def heatmaps_shown(page) -> list[dict]:
    """Per heatmap figure shown: its ``title``, the ``smallest`` font size (px) of its tick labels and cell
    texts, and its number of labelled ``rows``."""
    return page.evaluate(_HEATMAP_TEXT_JS, PLOT)


def pareto_label_overlaps(page) -> list[str]:
    """Pairs of point labels of the shown Pareto fronts that overlap (issue 38's "LassoSRGreedyGP")."""
    return page.evaluate(_LABEL_OVERLAPS_JS, PLOT)


#: How long the dashboard may take to judge under a rules preset picked in its Rules dropdown, in ms: a bound
#: only against a hang (Voilà's start and a judging on a busy machine).
RULES_READY_MS = 900_000


def pick_rules_preset(page, name: str) -> None:
    """Pick the preset ``name`` in the dashboard's Rules dropdown (once it is enabled)."""
    from playwright.sync_api import expect

    select = page.locator(".srdash-rules select")
    expect(select).to_be_enabled(timeout=RULES_READY_MS)
    # an option's value attribute is its label (ipywidgets), with plain spaces
    values = [o.get_attribute("value") for o in select.locator("option").all()]
    select.select_option(value=next(v for v in values if v.split(" (")[0] == name))


def expect_no_verdict_shown(page, name: str) -> None:
    """The dashboard says why the rules ``name`` give no verdict where the leaderboard was, and shows no
    fingerprint, leaderboard or figure of an earlier verdict."""
    from playwright.sync_api import expect

    refusal = page.locator(".srdash-refusal")
    expect(refusal).to_contain_text(f"No verdict under the rules '{name}'.", timeout=RULES_READY_MS)
    expect(page.locator(".srdash-rules select")).to_be_enabled(timeout=RULES_READY_MS)
    expect(page.locator(".srdash-fingerprint-value")).to_have_count(0)
    expect(page.locator("table.srdash-leaderboard")).to_have_count(0)
    expect(page.locator(f".srdash-dashboard {PLOT}")).to_have_count(0)
    expect(page.locator(".srdash-heatmap-panel")).to_contain_text("No verdict: no per-dataset ranks.")


def layout_problems(page, selector: str) -> list[str]:
    """Elements matching ``selector`` that run past the window, unless they scroll inside a panel that fits."""
    return page.evaluate(LAYOUT_PROBLEMS_JS, selector)


def screenshot(page, folder, name: str) -> Path:
    """A full-page screenshot ``name``.png in $SRDASH_SCREENSHOT_DIR, its path printed; without that variable
    only the path in ``folder`` (no picture): the pictures are for people to look at, no assert reads them, and
    about 25 full-page captures cost the suite some 30 s of its CPU."""
    keep = os.environ.get("SRDASH_SCREENSHOT_DIR")
    folder = Path(keep or folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    if keep:
        page.screenshot(path=str(path), full_page=True)
        print(f"screenshot: {path}")
    return path


def is_kernel(pid: int) -> bool:
    """Whether process ``pid`` is a kernel Voilà runs: ipykernel, started by jupyter_client or forked by
    srdash's zygote (whose command line :func:`child_processes.command_line` completes with what it is)."""
    try:
        return "ipykernel" in child_processes.command_line(pid)
    except OSError:
        return False


def process_tree(pid: int) -> list[tuple[int, bytes]]:
    """``pid`` and its descendants, with their command lines."""
    children, found, todo = child_processes.child_pids(), [], [pid]
    while todo:
        current = todo.pop()
        todo.extend(children.get(current, []))
        try:
            found.append((current, Path(f"/proc/{current}/cmdline").read_bytes()))
        except OSError:
            pass
    return found


def socket_owners(fragment: str) -> set[int]:
    """Processes holding a Unix socket whose path contains ``fragment`` (a kernel's ipc sockets)."""
    inodes = {line.split()[6] for line in Path("/proc/net/unix").read_text().splitlines()[1:]
              if len(line.split()) > 7 and fragment in line.split()[7]}
    owners = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                links = {str(fd.readlink()) for fd in (entry / "fd").iterdir()}
            except OSError:
                continue
            if any(f"socket:[{inode}]" in links for inode in inodes):
                owners.add(int(entry.name))
    return owners


class VoilaServer:
    """``python -m <module> <arguments> --port P`` serving at :attr:`url`.

    Parameters
    ----------
    arguments : sequence of str
        Arguments after ``python -m srdash`` (without ``--port``: a free one is added; ``serve`` without
        ``--visitors`` gets ``--visitors 1``).
    folder : Path
        Where the cache, the Jupyter folders and the log go.
    name : str
        Names the log file.
    env : mapping, optional
        Extra environment variables. Inherited ``SRDASH_*`` variables are removed first.
    """

    def __init__(self, arguments: Sequence[str], folder: Path, *, name: str = "server",
                 env: Mapping[str, str] | None = None, module: str = "srdash"):
        if not Path(CHROMIUM).exists():
            pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        environment = {k: v for k, v in os.environ.items() if not k.startswith("SRDASH_")}
        environment.update({
            "SRDASH_CACHE_DIR": str(folder / "cache"),
            "JUPYTER_RUNTIME_DIR": str(folder / "runtime"),
            "JUPYTER_DATA_DIR": str(folder / "data"),  # Voilà writes a notebook-signing key there
            "IPYTHONDIR": str(folder / "ipython"),
            "PYTHONUNBUFFERED": "1",
            # the srdash under test (this checkout), not whichever one the environment has installed
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        })
        environment.update(env or {})
        arguments = list(arguments)
        if module == "srdash" and arguments[:1] == ["serve"] and "--visitors" not in arguments:
            # one kernel waiting, not one per core: a test opens one page at a time, and each waiting
            # kernel runs the whole notebook (several CPU seconds the other test workers need); a pool
            # of several is tested in test_visitors
            arguments += ["--visitors", "1"]
        self.log_path = folder / f"{name}-{self.port}.log"
        self._log = open(self.log_path, "wb")
        # its own session, and SIGTERM when this test process dies (even by SIGKILL): nothing outlives the run
        self.process = child_processes.start([sys.executable, "-m", module, *arguments, "--port", str(self.port)],
                                             env=environment, cwd=folder, stdout=self._log,
                                             stderr=subprocess.STDOUT)
        try:
            child_processes.wait_until_serving(self.process, self.url, log=self.log_path)
        except BaseException:
            self.kill()
            raise

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        """SIGTERM: srdash stops Voilà, which shuts its kernels down; SIGKILL to the whole server if it has not
        ended after :func:`child_processes.stop`'s grace."""
        child_processes.stop(self.process)
        self._log.close()

    def kill(self) -> None:
        """SIGKILL to every process of the server at once: nothing gets a chance to flush."""
        child_processes.kill(self.process)
        self._log.close()
