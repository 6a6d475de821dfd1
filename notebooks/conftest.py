"""nbval's run of these notebooks also checks what GitHub will show: each plotly figure a cell outputs
carries a static image in the same output (srdash.figures.display.show), in the outputs nbval has just
produced, not only in the committed file (tests/test_notebooks.py reads that one)."""

from __future__ import annotations

import pytest
from nbval.plugin import IPyNbCell

PLOTLY_MIME = "application/vnd.plotly.v1+json"
STATIC_IMAGES = ("image/png", "image/svg+xml")


def figures_without_image(outputs) -> list[int]:
    """Indexes of the outputs that hold a plotly figure and no static image of it."""
    return [index for index, output in enumerate(outputs or [])
            if PLOTLY_MIME in output.get("data", {}) and not any(m in output["data"] for m in STATIC_IMAGES)]


def check_images_beside_figures(nodeid: str, outputs) -> None:
    """Raise AssertionError naming the cell and its figures (their text) when one has no static image."""
    missing = figures_without_image(outputs)
    if missing:
        notes = [str(outputs[index]["data"].get("text/plain", "")) for index in missing]
        raise AssertionError(f"{nodeid}: a plotly figure without a static image beside it (show it with "
                             f"srdash.figures.display.show): {notes}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    result = yield
    if isinstance(item, IPyNbCell):
        # nbval keeps the outputs a cell just produced in test_outputs (read directly: a rename fails here)
        check_images_beside_figures(item.nodeid, item.test_outputs)
    return result
