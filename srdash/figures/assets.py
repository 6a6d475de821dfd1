"""The files of the top-level ``assets/`` folder, drawn by srdash.

- ``simplicity-score.svg``: the SRBench 2022 simplicity scale the judging
  criteria refer to, ``round(-log5(s), 1)`` against the number of components
  ``s`` of the simplified model, as a plain SVG (no browser, no plotting
  backend needed; it opens anywhere);
- ``srdash.css``: the apps' stylesheet (:func:`stylesheet`).

``python -m srdash.figures.assets`` writes the SVG again; a test checks that the
committed file is what this module draws.

Examples
--------
>>> svg = simplicity_scale_svg()
>>> svg.startswith("<svg") and "round(-log5(s), 1)" in svg
True
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from srdash.figures.escape import html_text
from srdash.figures.leaderboard import simplicity_score

__all__ = ["simplicity_scale_svg", "stylesheet", "assets_folder"]

_WIDTH, _HEIGHT = 640, 360
_LEFT, _RIGHT, _TOP, _BOTTOM = 64, 24, 40, 56
_MAX_COMPONENTS = 125


def assets_folder() -> Path:
    """The assets folder: inside the installed package, or at the top of a source checkout."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "assets", package.parent / "assets"):
        if candidate.is_dir():
            return candidate
    return package.parent / "assets"


@functools.lru_cache(maxsize=1)
def stylesheet() -> str:
    """The apps' stylesheet (``assets/srdash.css``); empty when the file is missing (the apps still work)."""
    try:
        return (assets_folder() / "srdash.css").read_text(encoding="utf-8")
    except OSError:
        return ""


def _x(components: float) -> float:
    """Log-scaled horizontal position of a component count."""
    span = np.log(_MAX_COMPONENTS)
    return _LEFT + (_WIDTH - _LEFT - _RIGHT) * float(np.log(components)) / span


def _y(score: float) -> float:
    low = -3.0
    return _TOP + (_HEIGHT - _TOP - _BOTTOM) * (0.0 - score) / (0.0 - low)


def simplicity_scale_svg() -> str:
    """The simplicity scale as an SVG document (deterministic text).

    The step curve is ``round(-log5(s), 1)`` for s = 1 .. 125 components; the
    marked points are s = 1, 5, 25 and 125 (simplicity 0, -1, -2, -3).
    """
    counts = np.arange(1, _MAX_COMPONENTS + 1)
    scores = simplicity_score(counts)
    points = []
    for s, score in zip(counts, scores):
        points.append(f"{_x(s):.1f},{_y(score):.1f}")
        points.append(f"{_x(s + 1 if s < _MAX_COMPONENTS else s):.1f},{_y(score):.1f}")
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}" '
             f'viewBox="0 0 {_WIDTH} {_HEIGHT}" font-family="sans-serif" font-size="12">',
             "<title>SRBench 2022 simplicity: round(-log5(s), 1)</title>",
             f'<rect width="{_WIDTH}" height="{_HEIGHT}" fill="white"/>',
             f'<text x="{_WIDTH / 2:.0f}" y="22" text-anchor="middle" font-size="14">'
             "Simplicity = round(-log5(s), 1), s = components of the simplified model</text>"]
    for score in (0.0, -1.0, -2.0, -3.0):
        y = _y(score)
        parts.append(f'<line x1="{_LEFT}" x2="{_WIDTH - _RIGHT}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{_LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{score:g}</text>')
    for s in (1, 2, 5, 10, 25, 50, 125):
        x = _x(s)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{_TOP}" y2="{_HEIGHT - _BOTTOM}" stroke="#eee"/>')
        parts.append(f'<text x="{x:.1f}" y="{_HEIGHT - _BOTTOM + 18}" text-anchor="middle">{s}</text>')
    parts.append(f'<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="{" ".join(points)}"/>')
    for s in (1, 5, 25, 125):
        parts.append(f'<circle cx="{_x(s):.1f}" cy="{_y(simplicity_score([s])[0]):.1f}" r="4" fill="#d62728"/>')
    parts.append(f'<text x="{_WIDTH / 2:.0f}" y="{_HEIGHT - 12}" text-anchor="middle">'
                 "components s (log scale); higher simplicity is simpler</text>")
    parts.append(f'<text transform="translate(16,{_HEIGHT / 2:.0f}) rotate(-90)" text-anchor="middle">'
                 f'{html_text("simplicity")}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


if __name__ == "__main__":  # python -m srdash.figures.assets: draw the SVG again
    target = assets_folder() / "simplicity-score.svg"
    target.write_text(simplicity_scale_svg(), encoding="utf-8")
    print(f"Wrote {target}")
