"""Notebooks that show on GitHub (issue 38): each plotly figure carries a static PNG beside it.

The committed notebooks are read here, never executed (nbval executes them once, in the same suite, and
notebooks/conftest.py checks there that every figure a cell outputs has its image): explore.ipynb
carries its outputs, the apps' notebooks (served by Voilà, whose only output is a live widget) stay
cleared. srdash.figures.display.show, which every notebook figure goes through, is tested below with
kaleido's real browser, and without kaleido or a browser (the figure stays, one warning says why).
"""

from __future__ import annotations

import base64
import importlib.util
import json
import re
import struct
import subprocess
import sys
from pathlib import Path

import plotly.graph_objects as go
import pytest

from srdash.figures.display import (PLOTLY_MIME, NoImage, StaticImageWarning, close_image_engine, image_engine,
                                    show)

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
#: Served by Voilà (srdash serve / review / predictions serve): their output is a live widget.
APP_NOTEBOOKS = ["dashboard.ipynb", "predictions.ipynb", "review.ipynb", "sensitivity.ipynb"]


def _nbval_check():
    """notebooks/conftest.py, the check nbval's run applies to each cell's fresh outputs."""
    spec = importlib.util.spec_from_file_location("srdash_notebooks_conftest", NOTEBOOKS / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _notebook(name: str) -> dict:
    return json.loads((NOTEBOOKS / name).read_text())


def _outputs(notebook: dict) -> list[dict]:
    return [output for cell in notebook["cells"] if cell["cell_type"] == "code" for output in cell["outputs"]]


def _png_size(png: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk, the first after the 8-byte signature."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert png[12:16] == b"IHDR"
    return struct.unpack(">II", png[16:24])


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else value


# --------------------------------------------------------------------------- the committed notebooks

def test_the_notebooks_are_the_ones_this_file_knows():
    assert sorted(path.name for path in NOTEBOOKS.glob("*.ipynb")) == sorted(APP_NOTEBOOKS + ["explore.ipynb"])


@pytest.mark.parametrize("name", sorted(APP_NOTEBOOKS + ["explore.ipynb"]))
def test_every_committed_plotly_figure_has_a_static_image_beside_it(name):
    assert _nbval_check().figures_without_image(_outputs(_notebook(name))) == []


def test_explore_carries_its_outputs_with_a_png_beside_each_figure():
    notebook = _notebook("explore.ipynb")
    code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    # executed top to bottom in one kernel (nbval refuses outputs on a cell that was not run)
    assert [cell["execution_count"] for cell in code] == list(range(1, len(code) + 1))
    assert all(cell["outputs"] for cell in code[1:])  # the first cell only imports
    figures = [output["data"] for output in _outputs(notebook) if PLOTLY_MIME in output.get("data", {})]
    # the rank heatmap and the simplicity curve, each with its interactive JSON and its PNG (800 px wide,
    # as tall as the figure's layout says: the heatmap grows with its rows); the text says which PNG is there
    assert len(figures) == 2
    for data, title in zip(figures, ["Dataset score", "Simplicity"]):
        width, height = _png_size(base64.b64decode(data["image/png"]))
        assert width == 800 and height == data[PLOTLY_MIME]["layout"]["height"]
        assert re.fullmatch(rf"Figure ['\"]{title}.*['\"] \(static image: PNG {width} x {height}\)",
                            _text(data["text/plain"]))
        assert data[PLOTLY_MIME]["data"]


def test_explore_is_small_and_holds_nothing_that_changes_every_run():
    """Re-executing it changes only what the code changed (measured: a second run gave the same bytes)."""
    text = (NOTEBOOKS / "explore.ipynb").read_text()
    notebook = json.loads(text)
    assert len(text) < 400_000  # two PNGs of about 80 kB and 45 kB (base64: 4/3 of that), tables, JSON
    for cell in notebook["cells"]:
        assert "execution" not in cell["metadata"]  # nbclient's timestamps (record_timing)
    assert set(notebook["metadata"]) <= {"kernelspec", "language_info"}  # no widget state
    for output in _outputs(notebook):
        # plotly's "notebook" renderer would inline plotly.js (about 4.8 MB) as text/html
        assert "plotly" not in _text(output.get("data", {}).get("text/html", "")).lower()
        if "image/png" in output.get("data", {}):
            assert len(output["data"]["image/png"]) < 200_000


@pytest.mark.parametrize("name", APP_NOTEBOOKS)
def test_the_apps_notebooks_stay_cleared(name):
    """Voilà executes them for each visitor; their output, a live widget, means nothing in a static file."""
    for cell in _notebook(name)["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


def test_the_nbval_check_finds_a_figure_without_its_image():
    check = _nbval_check().figures_without_image
    figure = {PLOTLY_MIME: {"data": [], "layout": {}}}
    outputs = [{"output_type": "stream", "name": "stdout", "text": "hello"},
               {"output_type": "execute_result", "data": figure},
               {"output_type": "display_data", "data": {**figure, "image/png": "iVBORw0KGgo="}},
               {"output_type": "display_data", "data": {**figure, "image/svg+xml": "<svg/>"}}]
    assert check(outputs) == [1]
    assert check(None) == [] and check([]) == []
    with pytest.raises(AssertionError, match=r"^nb.ipynb::Cell 3: a plotly figure without a static image beside it "
                                             r"\(show it with srdash.figures.display.show\): \['Figure'\]$"):
        _nbval_check().check_images_beside_figures("nb.ipynb::Cell 3", [
            {"output_type": "display_data", "data": {**figure, "text/plain": "Figure"}}])


@pytest.mark.slow


def test_the_nbval_run_fails_a_notebook_whose_figure_has_no_image(tmp_path):
    """The check runs inside nbval's run of notebooks/ (its conftest.py): a plotly figure output bare fails."""
    (tmp_path / "conftest.py").write_text((NOTEBOOKS / "conftest.py").read_text())
    cell = {"cell_type": "code", "execution_count": None, "id": "bare", "metadata": {}, "outputs": [],
            # plotly's own JSON output, as a figure left as the cell's last expression gives (no srdash: a light kernel)
            "source": "import plotly.io as pio\nimport plotly.graph_objects as go\n"
                      "pio.renderers.default = 'plotly_mimetype'\ngo.Figure(layout={'title': {'text': 'Bare'}})"}
    notebook = {"cells": [cell], "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                             "language": "python"}},
                "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "bare.ipynb").write_text(json.dumps(notebook))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbval-lax", "-p", "no:cacheprovider", "-o", "addopts=", "-q",
         "--rootdir", str(tmp_path), str(tmp_path / "bare.ipynb")],
        cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "bare.ipynb::Cell 0: a plotly figure without a static image beside it (show it with " \
           "srdash.figures.display.show)" in result.stdout


# --------------------------------------------------------------------------- srdash.figures.display.show

@pytest.fixture(scope="module", autouse=True)
def _close_the_browser_after_these_tests():
    """The browser show() starts lives as long as its process: here, the test worker. Close it after this file."""
    yield
    close_image_engine()


@pytest.fixture
def no_engine_yet():
    """The process as if no figure had been drawn yet; afterwards, whatever the test left is forgotten."""
    close_image_engine()
    yield
    close_image_engine()


def test_show_carries_the_interactive_figure_and_a_png_of_the_asked_size():
    figure = go.Figure(go.Bar(x=["a", "b"], y=[1, 2]), layout={"title": {"text": "Two <b>bars</b><br>sub"}})
    shown = show(figure, width=320, height=200)
    bundle = shown._repr_mimebundle_()
    assert sorted(bundle) == ["application/vnd.plotly.v1+json", "image/png", "text/plain"]
    assert _png_size(base64.b64decode(bundle["image/png"])) == (320, 200)
    assert bundle[PLOTLY_MIME]["data"][0]["type"] == "bar"
    assert bundle[PLOTLY_MIME]["data"][0]["y"] == [1, 2]
    assert bundle["text/plain"] == "Figure 'Two bars' (static image: PNG 320 x 200)"


def test_show_takes_the_size_of_the_figure_layout_else_800_by_500():
    assert _png_size(show(go.Figure(layout={"height": 300})).image) == (800, 300)
    assert _png_size(show(go.Figure()).image) == (800, 500)


def test_show_keeps_one_browser_for_the_process():
    show(go.Figure())
    engine = image_engine()
    show(go.Figure())
    assert image_engine() is engine


def test_a_closed_browser_is_said_and_closing_twice_is_harmless(no_engine_yet):
    show(go.Figure())
    engine = image_engine()
    engine.close()
    engine.close()
    with pytest.warns(StaticImageWarning, match=r"^No static image beside the figure: kaleido's browser was closed\.$"):
        assert show(go.Figure()).image is None


def test_show_without_kaleido_keeps_the_interactive_figure_and_says_why(no_engine_yet, monkeypatch):
    monkeypatch.setitem(sys.modules, "kaleido", None)  # import kaleido -> ImportError
    with pytest.warns(StaticImageWarning, match=r"^No static image beside the figure: kaleido is not installed "
                                                r"\(pip install 'srdash\[images\]'\)\.$"):
        shown = show(go.Figure(layout={"title": {"text": "Ranks"}}))
    assert shown.image is None
    assert sorted(shown._repr_mimebundle_()) == ["application/vnd.plotly.v1+json", "text/plain"]
    assert shown.note == "Figure 'Ranks' (no static image: kaleido is not installed (pip install 'srdash[images]'))"
    # the engine's absence is remembered: with kaleido importable again, no second attempt (which would draw)
    monkeypatch.delitem(sys.modules, "kaleido")
    with pytest.warns(StaticImageWarning, match=r"^No static image beside the figure: kaleido is not installed "):
        assert show(go.Figure()).image is None
    with pytest.raises(NoImage, match=r"^kaleido is not installed \(pip install 'srdash\[images\]'\)$"):
        image_engine()


def test_show_without_a_browser_keeps_the_interactive_figure_and_says_why(no_engine_yet, monkeypatch):
    monkeypatch.setenv("BROWSER_PATH", "/nonexistent/chromium")  # kaleido's (choreographer's) browser override
    with pytest.warns(StaticImageWarning, match=r"^No static image beside the figure: kaleido found no "
                                                r"Chromium-based browser \(install chromium, or set BROWSER_PATH\)\.$"):
        shown = show(go.Figure())
    assert shown.image is None and PLOTLY_MIME in shown._repr_mimebundle_()


@pytest.mark.parametrize("option, value", [("width", 0), ("height", -5), ("width", 12.5), ("height", True)])
def test_show_refuses_a_size_that_is_not_a_positive_whole_number(option, value):
    with pytest.raises(ValueError, match=rf"^The '{option}' option must be a positive whole number of pixels\. "
                                         rf"Got {value!r}\.$"):
        show(go.Figure(), **{option: value})
