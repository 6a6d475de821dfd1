"""Small widget panels used by the apps: a log, a progress line, a figure area, a page beacon.

Every method here may be called from the background thread that prepares the
runs: they only assign widget traits (``Output.outputs``, ``IntProgress.value``,
...), never capture output with ``with output:``, which depends on the
kernel's current message and is unreliable outside the main thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import json
import re
import threading
import time
import traceback

import anywidget
import comm
import ipywidgets as widgets
import traitlets
import plotly.graph_objects as go
import plotly.io as pio

from srdash.figures.escape import html_text
from srdash.errors import SrdashError

__all__ = ["LogPanel", "ProgressPanel", "FigurePanel", "NearScreen", "WhenNear", "PageReady", "BackgroundWork", "widget_tree",
           "logged"]

_FAILED_STATUSES = ("rejected", "parse_error", "simplify_error")

class LogPanel(widgets.VBox):
    """A visible log: errors raised in callbacks end up here instead of vanishing.

    srdash's own errors (:class:`~srdash.errors.SrdashError`) show their message
    only; anything else shows its traceback, since it is a bug.

    Examples
    --------
    >>> log = LogPanel()
    >>> log.report(SrdashError("The file is empty."), context="loading the results")
    >>> log.text()
    'Error while loading the results: The file is empty.\\n'
    """

    def __init__(self, **kwargs):
        self.output = widgets.Output(layout=widgets.Layout(max_height="220px", overflow="auto"))
        clear = widgets.Button(description="Clear log", icon="trash",
                               layout=widgets.Layout(width="auto"), tooltip="Remove every message")
        clear.on_click(lambda _: self.clear())
        self._title = widgets.HTML("<b>Log</b> <span style='color:#666'>(errors and notes)</span>")
        super().__init__([widgets.HBox([self._title, clear]), self.output], **kwargs)
        self.add_class("srdash-log")

    def info(self, text: str) -> None:
        """Append a line of information."""
        self.output.outputs += ({"output_type": "stream", "name": "stdout", "text": text.rstrip("\n") + "\n"},)

    def report(self, error: BaseException, *, context: str = "") -> None:
        """Append an error: the message for srdash's errors, the traceback otherwise."""
        where = f" while {context}" if context else ""
        if isinstance(error, SrdashError):
            text = f"Error{where}: {error}\n"
        else:
            trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))
            text = f"Unexpected error{where} (please report it):\n{trace}"
        self.output.outputs += ({"output_type": "stream", "name": "stderr", "text": text},)

    def text(self) -> str:
        """Everything logged so far, as plain text."""
        return "".join(o.get("text", "") for o in self.output.outputs)

    def clear(self) -> None:
        self.output.outputs = ()


class ProgressPanel(widgets.HBox):
    """A progress bar and a line of counts for the model simplification.

    ``update(done, total, counts)`` has the signature of the ``progress``
    callback of :func:`srdash.judging.pipeline.prepare_runs`.

    Examples
    --------
    >>> panel = ProgressPanel()
    >>> panel.update(3, 10, {"ok": 1, "rejected": 1, "timeout": 1})
    >>> panel.bar.value, panel.bar.max
    (3, 10)
    >>> "3 / 10 models" in panel.label.value and "1 failed" in panel.label.value
    True
    >>> panel.stage("Checking exact re-discovery…")
    >>> panel.update(1, 4, {"timeout": 1})
    >>> panel.label.value.split(" (")[0]
    'Checking exact re-discovery: 1 / 4 models done, 0 failed, 1 timed out'

    """

    def __init__(self, **kwargs):
        self.bar = widgets.IntProgress(value=0, min=0, max=1, bar_style="info",
                                       layout=widgets.Layout(width="260px"))
        self.label = widgets.HTML("")
        self._task = "Simplifying models"
        self._started = time.monotonic()
        super().__init__([self.bar, self.label], layout=widgets.Layout(align_items="center"), **kwargs)
        self.add_class("srdash-progress")

    def stage(self, text: str) -> None:
        """Show what is being done (before counts are known); the counts that follow are of it."""
        self.bar.bar_style = "info"
        self.label.value = html_text(text)
        self._task = text.rstrip("…. ") or self._task

    def update(self, done: int, total: int, counts: dict) -> None:
        self.bar.max = max(int(total), 1)
        self.bar.value = int(done)
        failed = sum(int(counts.get(status, 0)) for status in _FAILED_STATUSES)
        timed_out = int(counts.get("timeout", 0))
        self.label.value = (f"{html_text(self._task)}: {int(done)} / {int(total)} models done, "
                            f"{failed} failed, {timed_out} timed out "
                            f"({time.monotonic() - self._started:.0f} s)")

    def finish(self, text: str) -> None:
        self.bar.value = self.bar.max
        self.bar.bar_style = "success"
        self.label.value = html_text(text)

    def fail(self, text: str) -> None:
        self.bar.bar_style = "danger"
        self.label.value = f"<span style='color:#b00'>{html_text(text)}</span>"


_TAG = re.compile(r"<[^>]*>")  # a title's markup (coloured words), left out of its plain text


def _plotly_bundle(figure: go.Figure | dict) -> dict:
    """The mime bundle of a figure (or of its JSON as a dict) for JupyterLab's (and Voilà's) plotly renderer.

    plotly.js is loaded once by the renderer extension, unlike a FigureWidget,
    which ships its own copy for each figure.
    """
    data = _figure_data(figure)
    title = (data.get("layout", {}).get("title") or {}).get("text") or ""
    return {
        "application/vnd.plotly.v1+json": {**data, "config": {"displaylogo": False, "responsive": True}},
        "text/plain": f"<plotly figure: {_TAG.sub('', title) or 'untitled'}>",
    }


def _figure_data(figure: go.Figure | dict) -> dict:
    """A figure's JSON as a dict (a dict is that already: a figure kept as JSON builds no plotly object)."""
    return figure if isinstance(figure, dict) else json.loads(pio.to_json(figure, validate=False))


class NearScreen(anywidget.AnyWidget):
    """A placeholder that tells the kernel once a browser has scrolled it near the screen.

    It shows ``text`` (in a box as high as what will replace it, its
    ``layout.min_height``, so that the page does not jump), and sends
    ``{"event": "near"}`` once when it comes within ``margin`` pixels (default
    ``NEAR_PX``) of what the visitor sees: of the box the page scrolls in (Voilà's
    page scrolls inside one), else of the window (a browser's IntersectionObserver);
    hidden (a dataset not shown, a closed section), it waits until it is shown. See
    ``FigurePanel(when_near=True)`` (margin 0) and :class:`WhenNear`.

    Like :class:`PageReady`, it receives nothing from the kernel once created
    (``text`` and ``margin`` are read when it is drawn): an anywidget loaded more
    than 2 s after its model was created would lose it (see srdash's Voilà template).
    """

    NEAR_PX = 200
    _esm = """
    export default {
      render({ model, el }) {
        el.classList.add("srdash-note", "srdash-near-screen");
        el.textContent = model.get("text");
        let observer = null;
        let stopped = false;
        // The margin counts only around the observer's root: when the page scrolls inside a box (Voila's page
        // does), the outermost box that scrolls is the root; else the window. Looked for once el is in the page.
        const scroller = () => {
          let found = null;
          for (let node = el.parentElement; node && node !== document.body; node = node.parentElement) {
            const style = getComputedStyle(node);
            if (["auto", "scroll"].includes(style.overflowY) && node.scrollHeight > node.clientHeight + 1) found = node;
          }
          return found;
        };
        const observe = () => {
          if (stopped) return;
          if (!el.isConnected) { requestAnimationFrame(observe); return; }
          observer = new IntersectionObserver((entries) => {
            if (entries.some((entry) => entry.isIntersecting)) {
              observer.disconnect();
              model.send({ event: "near" });
            }
          }, { root: scroller(), rootMargin: `${model.get("margin")}px 0px` });
          observer.observe(el);
        };
        observe();
        return () => { stopped = true; if (observer) observer.disconnect(); };
      },
    };
    """
    text = traitlets.Unicode("").tag(sync=True)
    margin = traitlets.Int(NEAR_PX, min=0).tag(sync=True)


class FigurePanel(widgets.Output):
    """An output area showing one plotly figure at a time (replaced, not appended).

    ``when_near=True`` (for a served page): a figure is drawn only once the
    browser has scrolled its panel near the screen (:class:`NearScreen`
    stands in for it until then); after that, each figure shown is drawn at
    once. A page of many figures below the first screen opens without drawing
    them: plotly's first figure on a page costs the browser about a second
    of CPU (its module is evaluated then; measured with one Chromium page on
    a 2-core machine), every further figure less.

    Examples
    --------
    >>> panel = FigurePanel()
    >>> panel.show(go.Figure(layout={"title": {"text": "Ranks"}}))
    >>> panel.outputs[0]["data"]["text/plain"]
    '<plotly figure: Ranks>'
    >>> later = FigurePanel(when_near=True)
    >>> later.show(go.Figure(layout={"title": {"text": "Ranks"}}))
    >>> later.outputs[0]["data"]["text/plain"]
    'Drawing the figure…'
    >>> later.near_screen._handle_custom_msg({"event": "near"}, [])
    >>> later.outputs[0]["data"]["text/plain"]
    '<plotly figure: Ranks>'
    """

    def __init__(self, *, when_near: bool = False, **kwargs):
        super().__init__(**kwargs)
        self._lock = threading.Lock()
        self._waiting: go.Figure | None = None  # the figure to draw once the panel is near the screen
        self.near_screen: NearScreen | None = None
        if when_near:
            # drawn once in sight, not before: plotly's drawing costs a page most of a CPU-second, which a
            # visitor who does not scroll (the dashboard's heatmap is just below a desk's first screen) never pays
            self.near_screen = NearScreen(text="Drawing the figure…", margin=0)
            self.near_screen.on_msg(self._on_near_screen)

    def show(self, figure: go.Figure | dict) -> None:
        """Show ``figure`` (or its JSON as a dict, :func:`srdash.apps.board_view.kept_figure`) in place of what
        the panel showed."""
        with self._lock:
            if self.near_screen is not None:  # not near the screen yet: wait for it
                self._waiting = figure
                # the figure's height (360 px: the plotly renderer's default)
                height = figure.get("layout", {}).get("height") if isinstance(figure, dict) else figure.layout.height
                self.near_screen.layout.min_height = f"{int(height or 360)}px"
                self._set({"output_type": "display_data", "metadata": {}, "data": {
                    "application/vnd.jupyter.widget-view+json": {
                        "model_id": self.near_screen.model_id, "version_major": 2, "version_minor": 0},
                    "text/plain": self.near_screen.text}})
                return
        self._set({"output_type": "display_data", "data": _plotly_bundle(figure), "metadata": {}})

    def _on_near_screen(self, widget, content, buffers) -> None:
        if not (isinstance(content, dict) and content.get("event") == "near"):
            return
        with self._lock:
            figure, self._waiting = self._waiting, None
            beacon, self.near_screen = self.near_screen, None
        if beacon is not None:
            if figure is not None:
                self.show(figure)
            beacon.close()

    def _set(self, output: dict) -> None:
        # Re-sending the same figure makes the front end draw it again (and a second
        # time off screen, for its PNG copy): work for nothing and a flicker.
        if self.outputs != (output,):
            self.outputs = (output,)

    def message(self, text: str) -> None:
        with self._lock:
            self._waiting = None
        self.outputs = ({"output_type": "display_data",
                         "data": {"text/html": f"<div class='srdash-note'>{html_text(text)}</div>",
                                  "text/plain": text},
                         "metadata": {}},)


class WhenNear(widgets.VBox):
    """A box that holds a placeholder until a browser has scrolled it near the screen, then ``content``.

    ``content`` exists from the start: the kernel may change it meanwhile, and it appears as it then is. Only
    its views wait, which cost the browser (a judge's detail card: about 18 of them). The placeholder is a
    :class:`NearScreen` saying ``text``; give it about the content's height (``height``, or the stylesheet)
    so that the page does not jump.

    Examples
    --------
    >>> card = widgets.HTML("Model A")
    >>> box = WhenNear(card, text="Model A in detail…", height="600px")
    >>> box.shown, box.children == (box.near_screen,), box.near_screen.text
    (False, True, 'Model A in detail…')
    >>> box.near_screen._handle_custom_msg({"event": "near"}, [])
    >>> box.shown, box.children == (card,), box.near_screen
    (True, True, None)
    """

    def __init__(self, content: widgets.Widget, *, text: str, height: str | None = None, **kwargs):
        self.content = content
        # everything the placeholder shows is given as it is created: it receives nothing afterwards
        self.near_screen: NearScreen | None = NearScreen(text=text, layout=widgets.Layout(min_height=height))
        self.near_screen.on_msg(self._on_near_screen)
        super().__init__([self.near_screen], **kwargs)

    @property
    def shown(self) -> bool:
        """Whether the box holds its content (a browser has scrolled it near the screen)."""
        return self.near_screen is None

    def _on_near_screen(self, widget, content, buffers) -> None:
        if not (isinstance(content, dict) and content.get("event") == "near") or self.near_screen is None:
            return
        beacon, self.near_screen = self.near_screen, None
        self.children = (self.content,)
        beacon.close()   # after the box has let it go: the page removes its view with the box's change


class PageReady(anywidget.AnyWidget):
    """An invisible widget that tells the kernel when a browser has displayed it.

    When a browser opens a Voilà page, it connects to the kernel, then its widget
    manager asks for every widget's state in one snapshot and creates them. New
    widgets the kernel creates meanwhile can be lost, or can make the manager give
    up on the snapshot and ask for each widget alone, which loses the page: a box
    names a widget it has not created yet ("widget model not found" in the
    browser's console) and the page shows a JavaScript error instead of the app.
    Forced with the build starting as the page connects
    (``tests/browser/test_review_burst.py``): 1 page of 6, then 1-2 pages of 24
    with the build on the kernel's thread; with the widgets made apart and attached
    once displayed, still 1 of 12 (the page fell back to one request per widget).

    So a served page creates or changes widgets only once a browser has displayed
    it, which it says through this beacon (:meth:`BackgroundWork.build`); its slow
    work before that computes, and makes no widget. The message comes from the
    beacon's own front end (a few lines of JavaScript, run by anywidget):
    "displayed" once it has drawn the beacon, after every widget it loaded.

    Examples
    --------
    >>> beacon = PageReady()
    >>> beacon.displayed
    False
    >>> beacon.wait(timeout=0)
    False
    >>> beacon._on_message(beacon, {"event": "displayed"}, [])
    >>> beacon.displayed, beacon.wait(timeout=0)
    (True, True)
    """

    # The message leaves once the beacon is in the document and the browser has painted a frame with
    # it (two animation frames later): the page's text is on screen before the kernel sends what waits
    # for the beacon (figures, see BackgroundWork.after_display), whose drawing would otherwise delay
    # that first paint (plotly draws for most of a second).
    _esm = """
    export default {
      render({ model, el }) {
        const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
        (async () => {
          while (!el.isConnected) await frame();
          await frame();
          await frame();
          model.send({ event: "displayed" });
        })();
      },
    };
    """

    def __init__(self, **kwargs):
        kwargs.setdefault("layout", widgets.Layout(display="none"))
        super().__init__(**kwargs)
        self._displayed = threading.Event()
        self._pending: list = []
        self._pending_lock = threading.Lock()
        self.on_msg(self._on_message)

    def _on_message(self, widget, content, buffers) -> None:
        if isinstance(content, dict) and content.get("event") == "displayed":
            with self._pending_lock:
                self._displayed.set()
                pending, self._pending = self._pending, []
            for action in pending:
                action()

    def when_displayed(self, action) -> None:
        """Call ``action()`` now if a browser has displayed the page, else as soon as one does (in the
        thread that hears it: the kernel's), in the order they were asked for."""
        with self._pending_lock:
            if not self._displayed.is_set():
                self._pending.append(action)
                return
        action()

    @property
    def displayed(self) -> bool:
        """Whether a browser has displayed the page (since this kernel started)."""
        return self._displayed.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until a browser has displayed the beacon; False after ``timeout`` seconds."""
        return self._displayed.wait(timeout)


def widget_tree(root) -> list[widgets.Widget]:
    """Every widget in ``root`` (a widget, or a list, tuple or dict of them) and every widget they name
    through their synced traits (children, layout, style, ...), each once, a widget after all it names."""
    found: list[widgets.Widget] = []
    seen: set[int] = set()
    stack: list = [(root, False)]
    while stack:
        item, named_done = stack.pop()
        if isinstance(item, dict):
            stack.extend((value, False) for value in reversed(list(item.values())))
        elif isinstance(item, (list, tuple)):
            stack.extend((value, False) for value in reversed(item))
        elif isinstance(item, widgets.Widget):
            if named_done:
                found.append(item)
            elif id(item) not in seen:
                seen.add(id(item))
                stack.append((item, True))
                stack.extend((getattr(item, key, None), False) for key in reversed(item.keys))
    return found


def _send_again(root: widgets.Widget) -> None:
    """Once a page is displayed: the widgets under ``root`` whose comm the page closed are opened again (the
    page gets them anew), each after the widgets it names; every other one sends its state again (what the
    page missed while it was creating it from the kernel's snapshot)."""
    manager = comm.get_comm_manager()
    for widget in widget_tree(root):   # a widget after every widget it names
        if widget.comm is None:
            continue
        if widget.comm.comm_id not in manager.comms:
            widget.close()
            widget.open()
        else:
            widget.send_state()


class BackgroundWork:
    """The slow work of an app, in a thread, and the page it changes.

    The thread computes, then hands what creates or changes widgets to
    :meth:`build`, which runs it on the kernel's thread once a browser has
    displayed the page (see :class:`PageReady`); in a notebook (not ``served``) at
    once. Put :attr:`page_ready` in the app's children.

    Examples
    --------
    >>> work = BackgroundWork(served=False)   # a notebook's: built at once
    >>> page = widgets.VBox([])
    >>> def slow():
    ...     made = "computed"
    ...     work.build(lambda: setattr(page, "children", [widgets.HTML(made)]), root=page)
    >>> work.start(slow, name="example")
    >>> work.wait(10), [child.value for child in page.children], work.running
    (True, ['computed'], False)
    """

    def __init__(self, *, served: bool = False):
        self.page_ready = PageReady()
        self.served = served
        self._thread: threading.Thread | None = None
        # A served page is built on the kernel's own thread (see build); a notebook's where it is.
        self._page_loop = _running_loop() if served else None
        self._page_thread = threading.current_thread()
        self._builds: list[tuple] = []
        self._builds_lock = threading.Lock()
        self._sends_again = False

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, target, *args, name: str) -> None:
        """Run ``target(*args)`` in a daemon thread (the caller checks :attr:`running` first)."""
        self._thread = threading.Thread(target=target, args=args, name=name, daemon=True)
        self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the work; True when it has finished (or never started).

        On the kernel's thread, the builds that the work hands over meanwhile are run here (they would
        otherwise wait for this very thread).
        """
        if self._thread is None:
            return True
        if self._page_loop is None or threading.current_thread() is not self._page_thread:
            self._thread.join(timeout)
            return not self.running
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.running and (deadline is None or time.monotonic() < deadline):
            self._run_builds()
            self._thread.join(0.05)
        self._run_builds()
        return not self.running

    def build(self, action, *, root) -> None:
        """Call ``action()``, which creates or changes the widgets of the page under ``root``, so that no page
        loses any of them.

        Served, it runs on the kernel's own thread once a browser has displayed the page (at once if one
        has): a page loading the kernel's widgets (connected, asking for their states, creating them) that
        meanwhile gets new widgets can lose them, or fall back to asking for each widget alone and lose
        the page (see :class:`PageReady`). The first time, the widgets the page shows send their state
        again (what it missed while it was creating them). In a notebook (not ``served``, or no running
        event loop): at once, in the calling thread. An error of ``action`` goes to the caller
        when it runs at once; otherwise to the kernel's log (``action`` reports its own errors).
        """
        if not self.served:
            action()
            return
        if not self.page_ready.displayed and not self._sends_again:
            self._sends_again = True   # the first build before the page is displayed: what it shows is sent again
            self._on_page_thread(lambda: self.page_ready.when_displayed(lambda: _send_again(root)))
        self._on_page_thread(lambda: self.page_ready.when_displayed(action))

    def _on_page_thread(self, action) -> None:
        """``action()`` on the kernel's thread (the caller waits for it), or here when this is it or there is
        none; its error is raised here."""
        if self._page_loop is None or threading.current_thread() is self._page_thread:
            action()
            return
        done: concurrent.futures.Future = concurrent.futures.Future()
        with self._builds_lock:
            self._builds.append((action, done))
        try:
            self._page_loop.call_soon_threadsafe(self._run_builds)
        except RuntimeError:   # the kernel's loop is closed: the kernel is shutting down
            self._run_builds()
        done.result()

    def _run_builds(self) -> None:
        with self._builds_lock:
            builds, self._builds = self._builds, []
        for action, done in builds:
            try:
                done.set_result(action())
            except BaseException as error:  # noqa: BLE001 - raised again in the thread that asked
                done.set_exception(error)

    def after_display(self, action) -> None:
        """``action()`` once a browser has displayed the page (:meth:`PageReady.when_displayed`);
        at once when there is no page to wait for (not ``served``: a notebook)."""
        if self.served:
            self.page_ready.when_displayed(action)
        else:
            action()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread (a kernel's, while it runs a cell), or None."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class BackgroundApp(widgets.VBox):
    """Base class of srdash's apps: slow work in a background thread, a busy state, one log.

    ``served`` (the apps' option; ``from_environment`` sets it): the work
    changes the page only once a browser has displayed it (see
    :class:`PageReady`); False (a notebook): at once.

    A subclass calls :meth:`_init_app` first in its ``__init__`` (before
    building its widgets), puts :attr:`page_ready` and :attr:`log_panel` among
    its children, and starts its slow work with :meth:`_start_background`.
    While the work runs :attr:`busy` is True, so the app can freeze its
    controls; errors of callbacks decorated with :func:`logged` go to
    :attr:`log_panel`.

    Attributes
    ----------
    busy : traitlet (bool)
        True while background work runs.
    log_panel : LogPanel
        The app's one log.
    page_ready : PageReady
        Put it in the children; the background thread waits for it before changing the page.
    """

    busy = traitlets.Bool(False, help="True while background work runs; the app's controls are frozen.")

    def _init_app(self, *, served: bool = False, log_panel: LogPanel | None = None) -> None:
        """``log_panel``: an enclosing app's log, to report to instead of a log of its own."""
        self._work = BackgroundWork(served=served)
        self.page_ready = self._work.page_ready
        self._own_log = log_panel is None
        self.log_panel = LogPanel() if log_panel is None else log_panel

    def _start_background(self, target, *args, name: str) -> None:
        """Run ``target(*args)`` in the background thread, busy meanwhile (the target clears :attr:`busy`)."""
        self.busy = True
        self._work.start(target, *args, name=name)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the background work; True when it has finished."""
        return self._work.wait(timeout)

    def _show_figure(self, panel: "FigurePanel", figure: go.Figure, *, drawing: str = "Drawing the figure…",
                     still=None) -> None:
        """Show ``figure`` in ``panel`` once the page is displayed (progressive display: the page's
        text first, then its figures, which plotly draws for most of a second); in a notebook at once.
        Meanwhile the panel says ``drawing``. ``still()``, if given, is asked then: False drops the
        figure (what it showed was withdrawn meanwhile)."""
        if self._work.served and not self.page_ready.displayed:
            panel.message(drawing)
        self._work.after_display(lambda: panel.show(figure) if still is None or still() else None)

    def _load(self, loader, *, done, failed, context: str) -> None:
        """The usual background work: ``done(loader())``, or ``failed()`` and the error in the log.

        ``loader`` computes and makes no widget; ``done`` and ``failed`` change the page, through
        :meth:`BackgroundWork.build` (served: once a browser has displayed it); an error of ``done`` goes to
        the log too. :attr:`busy` ends either way.
        """
        def report(error: Exception) -> None:
            failed()
            self.log_panel.report(error, context=context)

        def show(value) -> None:
            try:
                done(value)
            except Exception as error:  # noqa: BLE001 - shown to the user, in the log
                report(error)

        try:
            value = loader()
        except Exception as error:  # noqa: BLE001 - shown to the user, in the log
            # bound now: a served page runs the build later, after Python has unbound ``error``
            self._work.build(lambda failure=error: report(failure), root=self)
        else:
            self._work.build(lambda: show(value), root=self)
        finally:
            self.busy = False


def logged(context: str):
    """Decorate a widget method so that an exception goes to ``self.log_panel``, visibly.

    Callback errors in ipywidgets otherwise vanish; with this they are shown in
    the widget's :class:`LogPanel` (what failed, and while doing what) and the
    callback returns None.
    """
    def decorate(method):
        @functools.wraps(method)
        def wrapper(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except Exception as error:  # noqa: BLE001 - shown to the user, see LogPanel.report
                self.log_panel.report(error, context=context)
                return None
        return wrapper
    return decorate
