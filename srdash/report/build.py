"""Publishable reports of a verdict: one self-contained HTML file, a Markdown summary, a LaTeX table.

:func:`build_report` does the computation once (weight sensitivity, the
reproducibility block) and returns an immutable :class:`Report`; renderers take
that report and return text:

- :func:`render_html`: one HTML file that needs no server, no kernel and no
  network. plotly.js (about 4.8 MB) and every style are inlined once; nothing is
  fetched from a CDN, so the page opens from disk in any browser and its plots
  stay interactive (hover, zoom). Every figure is built by the same pure figure
  functions as the dashboard (:mod:`srdash.figures.leaderboard`,
  :mod:`srdash.figures.sensitivity`, :mod:`srdash.figures.properties`,
  :func:`srdash.figures.predictions.shakeup_figure`);
- :func:`render_markdown`: the leaderboards as Markdown tables, for papers and
  READMEs;
- :func:`leaderboard_latex`: a leaderboard as a LaTeX ``booktabs`` table.

Names of methods, datasets and teams, and model strings, come from competitors
and are untrusted. The HTML template escapes every value it inserts (Jinja2
autoescape); the figure and table helpers escape what they put into plotly
labels and HTML fragments, and plotly's JSON escapes ``<``, ``>`` and ``/`` so a
name cannot close a ``<script>``. Markdown and LaTeX output escape their own
special characters.

The reproducibility block (:func:`reproducibility_block`) records the srdash,
sympy, numpy, pandas and Python versions, the rules' name, source and SHA-256,
the SHA-256 of every input file and the generation time; the report also shows
the rules file in full. Changing one byte of an input or one value of the rules
changes the block, and its ``fingerprint`` (a hash of everything but the time).

Ranks are "higher is better": 1 = worst, K = best (K = number of methods).
Places: 1 = best.

Examples
--------
>>> import pandas as pd
>>> from srdash.judging.ranking import judge
>>> from srdash.judging.rules import load_rules
>>> runs = pd.DataFrame({"method": ["a", "b<i>", "a", "b<i>"], "dataset": ["d1", "d1", "d2", "d2"],
...                      "run": 0, "r2_test": [0.9, 0.8, 0.7, 0.75], "components": [3.0, 9, 5, 30],
...                      "simplicity": [-0.7, -1.4, -1.0, -2.1], "property": [1.0, 0.0, 0.5, 0.5]})
>>> report = build_report(judge(runs, load_rules("srbench2022")), runs=runs, samples=200,
...                       generated_at="2024-01-01T00:00:00Z")
>>> report.reproducibility["generated_at"], report.reproducibility["rules"]
('2024-01-01T00:00:00Z', 'srbench2022')
>>> page = render_html(report)
>>> page.count('class="plotly-graph-div"') == len(report_figures(report))
True
>>> "b&lt;i&gt;" in page and "<td class='srdash-method'>b<i>" not in page
True
>>> print(render_markdown(report).splitlines()[6])
| Place | Method | Score | Accuracy (test R²) | Simplicity (−log₅ components) | Dataset property | Datasets | DNF |
>>> print(leaderboard_latex(report.verdict).splitlines()[9])
1 & a & 1.692 & 1.500 & 2.000 & 1.750 & 2 & 0 \\\\
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from srdash.errors import SrdashError
from srdash.report.html import render_html
from srdash.report.latex import leaderboard_latex
from srdash.report.markdown import render_markdown
from srdash.report.model import (FORMATS, PREDICTIONS_REPORT, Report, build_competition_report, build_prediction_report,
                                 build_report, reproducibility_block)
from srdash.report.sections import report_figures

# The report's names, importable from here as before the split into a model (model.py, sections.py) and its
# renderers (html.py, markdown.py, latex.py).
__all__ = [
    "FORMATS",
    "Report",
    "build_report",
    "build_prediction_report",
    "reproducibility_block",
    "report_figures",
    "render_html",
    "render_markdown",
    "leaderboard_latex",
    "write_report",
    "build_competition_report",
    "PREDICTIONS_REPORT",
]


def write_report(report: Report, path: str | Path, *, format: str = "html",  # noqa: A002 - CLI name
                 stage: Callable[[str], None] | None = None) -> Path:
    """Write the report in one of :data:`FORMATS` and return the path.

    ``latex`` writes the leaderboard table(s): the main track's, then the
    real-world track's when the report has one. ``stage``, when given, is called
    with a sentence naming each step of the HTML page's drawing before it starts.

    Raises
    ------
    SrdashError
        Unknown format, or the file cannot be written.

    Examples
    --------
    >>> import tempfile
    >>> import pandas as pd
    >>> from srdash.judging.ranking import judge
    >>> from srdash.judging.rules import load_rules
    >>> t = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "r2_test": [0.9, 0.8]})
    >>> from srdash.demo.examples import accuracy_rules
    >>> report = build_report(judge(t, accuracy_rules()), samples=50)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = write_report(report, Path(folder) / "board.tex", format="latex")
    ...     len(path.read_text().splitlines())  # 12 lines of frame and header, one row per method
    14
    """
    if format not in FORMATS:
        raise SrdashError(f"The 'format' option must be one of {', '.join(repr(f) for f in FORMATS)}. "
                          f"Got {format!r}.")
    if format == "latex" and report.is_prediction_competition:
        raise SrdashError("The LaTeX table covers results reports; write a prediction competition's report as "
                          "html or md.")
    if format == "html":
        text = render_html(report, stage=stage)
    elif format == "md":
        text = render_markdown(report)
    else:
        text = leaderboard_latex(report.verdict)
        if report.realworld is not None:
            text += "\n" + leaderboard_latex(report.realworld, label="tab:leaderboard-realworld")
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise SrdashError(f"Cannot write the report to '{path}': {exc}.") from exc
    return path
