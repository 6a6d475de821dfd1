"""The top-level assets/ folder: drawn by srdash, shipped with the package."""

from __future__ import annotations

from pathlib import Path

from srdash.figures.assets import assets_folder, simplicity_scale_svg, stylesheet

REPO = Path(__file__).resolve().parent.parent


def test_the_simplicity_figure_is_what_srdash_draws():
    # regenerate with: python -m srdash.figures.assets
    assert (REPO / "assets" / "simplicity-score.svg").read_text(encoding="utf-8") == simplicity_scale_svg()


def test_the_simplicity_figure_marks_the_scale_points():
    svg = simplicity_scale_svg()
    # s = 1, 5, 25, 125 components -> simplicity 0, -1, -2, -3: four marked points, y labels 0 .. -3
    assert svg.count("<circle") == 4
    for label in (">0<", ">-1<", ">-2<", ">-3<"):
        assert label in svg


def test_the_apps_stylesheet_is_found():
    assert assets_folder() == REPO / "assets"
    css = stylesheet()
    assert ".srdash-fingerprint" in css and ".srdash-table" in css


def test_assets_are_shipped_in_the_wheel():
    text = (REPO / "pyproject.toml").read_text()
    assert '"assets" = "srdash/assets"' in text
