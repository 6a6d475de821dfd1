"""A plotly figure for a notebook: interactive in Jupyter, a static PNG beside it for every other reader.

GitHub, nbviewer and plain-text frontends do not run plotly.js: a figure saved only as plotly's
JSON (``application/vnd.plotly.v1+json``) shows there as nothing. :func:`show` returns an object
whose MIME bundle carries both the plotly JSON (which Jupyter draws, interactive) and a PNG
rendered by kaleido (which the others show). The PNG is drawn by one headless Chromium per
process (kaleido's, started on first use and kept: the first image costs the browser's start,
each later one a fraction of a second), from a page that holds everything it needs: plotly.js
from the installed plotly package, no MathJax, and every http(s) request sent to a closed local
port, so rendering never asks any other machine for anything.

Without kaleido or a Chromium-based browser, :func:`show` still returns the interactive figure
and says once, in a warning, why the static image is missing.

Examples
--------
>>> import plotly.graph_objects as go
>>> shown = show(go.Figure(go.Bar(x=["a", "b"], y=[1, 2])), image=False)
>>> sorted(shown._repr_mimebundle_())
['application/vnd.plotly.v1+json', 'text/plain']
>>> shown.image is None, shown.note
(True, 'Figure (no static image: not asked for (image=False))')
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import html
import re
import threading
import warnings
from dataclasses import dataclass, field
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

__all__ = ["PLOTLY_MIME", "FigureDisplay", "StaticImageWarning", "show"]

#: The MIME type Jupyter's plotly renderer reads (plotly's ``plotly_mimetype`` renderer).
PLOTLY_MIME = "application/vnd.plotly.v1+json"

#: The image's size when the figure's layout does not set one (pixels): legible on GitHub's page
#: (about 900 px wide) and a modest PNG (tens of kB).
DEFAULT_WIDTH = 800
DEFAULT_HEIGHT = 500

# Every http(s) request of the rendering page goes to this closed port (Chromium's --proxy-server):
# the page must render from local files, and if anything asks for more, it fails here, on this machine.
_NOWHERE = "127.0.0.1:9"


class StaticImageWarning(UserWarning):
    """No static image could be drawn beside a figure (the figure is still shown, interactive)."""


@dataclass(frozen=True)
class FigureDisplay:
    """A figure as a notebook output: plotly's JSON and, when it could be drawn, a PNG of it.

    Jupyter displays it through :meth:`_repr_mimebundle_` (the last expression of a cell).

    Attributes
    ----------
    figure_json : dict
        What plotly's ``plotly_mimetype`` renderer sends for the figure (data, layout, config).
    image : bytes or None
        The PNG, or None when it could not be drawn.
    note : str
        One line for plain-text readers: the figure's title and whether the image is there, and if not, why.
    """

    figure_json: dict = field(repr=False)
    image: bytes | None = field(repr=False)
    note: str

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, Any]:
        import base64

        bundle: dict[str, Any] = {PLOTLY_MIME: self.figure_json, "text/plain": self.note}
        if self.image is not None:
            bundle["image/png"] = base64.b64encode(self.image).decode("ascii")
        return bundle


def show(figure: go.Figure, *, width: int | None = None, height: int | None = None,
         image: bool = True) -> FigureDisplay:
    """``figure`` as a notebook output with both the interactive figure and a static PNG of it.

    Parameters
    ----------
    figure : plotly.graph_objects.Figure
        The figure (srdash's figure functions return one).
    width, height : int, optional
        The PNG's size in pixels; default the figure layout's, else 800 x 500.
    image : bool, default True
        False: no PNG (the interactive figure only).

    Returns
    -------
    FigureDisplay
        Displayed by Jupyter as plotly's figure, by GitHub and nbviewer as the PNG.

    Warns
    -----
    StaticImageWarning
        When the PNG cannot be drawn (kaleido not installed, no Chromium-based browser, the browser
        failed): the output then holds the interactive figure only, and its text says why.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> show(go.Figure(layout={"title": {"text": "Ranks"}}), image=False).note
    "Figure 'Ranks' (no static image: not asked for (image=False))"
    """
    for name, value in (("width", width), ("height", height)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ValueError(f"The '{name}' option must be a positive whole number of pixels. Got {value!r}.")
    # plotly's own mimetype renderer: the same JSON (and config) Jupyter gets from ``figure`` itself
    figure_json = pio.renderers["plotly_mimetype"].to_mimebundle(figure.to_dict())[PLOTLY_MIME]
    layout = figure.layout
    size = (int(width or layout.width or DEFAULT_WIDTH), int(height or layout.height or DEFAULT_HEIGHT))
    title = _title(figure)
    if not image:
        return FigureDisplay(figure_json, None, _note(title, "no static image: not asked for (image=False)"))
    try:
        png = image_engine().render(figure_json, width=size[0], height=size[1])
    except NoImage as reason:
        warnings.warn(f"No static image beside the figure: {reason}.", StaticImageWarning, stacklevel=2)
        return FigureDisplay(figure_json, None, _note(title, f"no static image: {reason}"))
    return FigureDisplay(figure_json, png, _note(title, f"static image: PNG {size[0]} x {size[1]}"))


def _title(figure: go.Figure) -> str:
    """The title's first line as plain text (srdash's titles are escaped HTML with <br> and <span>)."""
    text = figure.layout.title.text
    return "" if text is None else html.unescape(re.sub(r"<[^>]*>", "", str(text).split("<br>")[0]))


def _note(title: str, image_state: str) -> str:
    return f"Figure {title!r} ({image_state})" if title else f"Figure ({image_state})"


class NoImage(Exception):
    """Why no PNG could be drawn (its message completes "No static image beside the figure: ...")."""


class ImageEngine:
    """One kaleido (one headless Chromium) for the process, driven from its own thread's event loop.

    Jupyter's kernel runs an event loop in the main thread already, so kaleido's coroutines run in a
    loop of their own; the browser stays open between figures and closes when the process exits.
    :func:`show` gets the process's engine from :func:`image_engine`.
    """

    def __init__(self) -> None:
        import kaleido  # optional (the images extra): imported only when a PNG is asked for

        async def opened():
            browser = kaleido.Kaleido(mathjax=False, proxy_server=_NOWHERE)
            await browser.open()
            return browser

        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="srdash-kaleido", daemon=True)
        self._thread.start()
        self._lock = threading.Lock()
        try:
            self._kaleido = self._call(opened())
        except BaseException:
            self._loop.call_soon_threadsafe(self._loop.stop)
            raise
        atexit.register(self.close)

    def _call(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def render(self, figure_json: dict, *, width: int, height: int) -> bytes:
        """The PNG of ``figure_json`` (plotly's JSON: data and layout), ``width`` x ``height`` pixels.

        Raises
        ------
        NoImage
            When the browser was closed, or kaleido could not draw the figure.
        """
        spec = {key: figure_json[key] for key in ("data", "layout") if key in figure_json}
        opts = {"format": "png", "width": width, "height": height, "scale": 1}
        with self._lock:
            if not self._loop.is_running():
                raise NoImage("kaleido's browser was closed")
            try:
                return self._call(self._kaleido.calc_fig(spec, opts=opts))
            except Exception as error:  # kaleido's own errors: a render that failed or timed out
                raise NoImage(f"kaleido could not draw it ({type(error).__name__}: {error})") from error

    def close(self) -> None:
        """Close the browser (at the process's exit, or earlier); one already gone is not an error then."""
        with self._lock:
            if self._loop.is_closed() or not self._loop.is_running():
                return
            atexit.unregister(self.close)
            with contextlib.suppress(Exception):
                self._call(self._kaleido.close())
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()


_ENGINE_LOCK = threading.Lock()
#: The process's engine, or the reason it could not start (a browser that failed to start is not retried).
_ENGINE: list[ImageEngine | NoImage] = []


def image_engine() -> ImageEngine:
    """The process's engine, started on the first call and kept (:func:`show` draws every PNG with it).

    Returns
    -------
    ImageEngine

    Raises
    ------
    NoImage
        When it cannot start (kaleido not installed, no Chromium-based browser, a browser that failed to
        start). The reason is kept: later calls raise it again without trying again.
    """
    with _ENGINE_LOCK:
        if not _ENGINE:
            _ENGINE.append(_start_engine())
        engine = _ENGINE[0]
    if isinstance(engine, NoImage):
        raise NoImage(str(engine))  # a new exception each time: the stored one's traceback stays its own
    return engine


def _start_engine() -> ImageEngine | NoImage:
    try:
        import kaleido  # noqa: F401
    except ImportError:
        return NoImage("kaleido is not installed (pip install 'srdash[images]')")
    from kaleido.errors import ChromeNotFoundError

    try:
        return ImageEngine()
    except ChromeNotFoundError:
        return NoImage("kaleido found no Chromium-based browser (install chromium, or set BROWSER_PATH)")
    except Exception as error:  # a browser that would not start: say why, keep the interactive figure
        return NoImage(f"kaleido's browser did not start ({type(error).__name__}: {error})")


def close_image_engine() -> None:
    """Close the process's browser, if one was started, and forget it, or the reason it could not start.

    The next figure :func:`show` draws starts a new one (or tries again to). The browser also closes by
    itself when the process exits; this frees it earlier.

    Examples
    --------
    >>> close_image_engine()   # the next figure's PNG starts a new browser
    """
    with _ENGINE_LOCK:
        engines = list(_ENGINE)
        _ENGINE.clear()
    for engine in engines:
        if isinstance(engine, ImageEngine):
            engine.close()
