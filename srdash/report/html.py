"""The report as one self-contained HTML file (no server, no kernel, no network: plotly.js and every style
inlined once)."""

from __future__ import annotations

from typing import Callable

from srdash._version import __version__
from srdash.report.model import Report
from srdash.report.sections import report_sections

__all__ = ["render_html"]

_TEMPLATE = "report.html.j2"
# The report's plots are interactive but do not offer "edit in Chart Studio" (a network link).
_PLOT_CONFIG = {"displaylogo": False, "responsive": True}



def _environment():
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("srdash.report", "templates"),
        autoescape=True,  # every inserted value is escaped unless explicitly marked as trusted
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def wide_on_a_phone(figure) -> bool:
    """Whether a figure keeps a desk width on a phone (its block scrolls sideways): a heatmap of more than six
    columns, or of five or more whose cells carry numbers, which at 390 px shrank to unreadable dots."""
    for trace in figure.data:
        if trace.type != "heatmap" or trace.x is None:
            continue
        labelled = trace.text is not None or bool(trace.texttemplate)
        if len(trace.x) > 6 or (labelled and len(trace.x) >= 5):
            return True
    return False


def render_html(report: Report, *, stage: Callable[[str], None] | None = None) -> str:
    """The report as one self-contained HTML page.

    plotly.js is inlined once, in the page head; each figure is a ``<div>`` with
    the script that draws it. No resource is loaded from anywhere else (no
    CDN, no fonts, no MathJax), so the page works offline and from disk.

    Parameters
    ----------
    report : Report
    stage : callable, optional, keyword-only
        Called with a sentence naming each step of the drawing before it starts.

    Returns
    -------
    str
        The HTML page (about 5 MB, mostly plotly.js).
    """
    import plotly.io as pio
    from markupsafe import Markup
    from plotly.offline import get_plotlyjs

    sections = []
    figure_count = 0
    built = report_sections(report, stage=stage)
    if stage is not None:
        stage(f"Writing {sum(b.kind == 'figure' for s in built for b in s.blocks)} figures as HTML")
    for section in built:
        blocks = []
        for block in section.blocks:
            if block.kind == "figure":
                figure_count += 1
                # plotly's JSON escapes '<', '>' and '/', and the figure builders escaped user text.
                fragment = pio.to_html(block.content, full_html=False, include_plotlyjs=False,
                                       div_id=f"srdash-figure-{figure_count}", config=_PLOT_CONFIG)
                wide = wide_on_a_phone(block.content)
                blocks.append({"kind": "figure", "html": Markup(fragment), "caption": block.caption, "wide": wide})
            elif block.kind == "html":
                # Fragments from srdash's table helpers, which escape every value they insert.
                blocks.append({"kind": "html", "html": Markup(block.content), "caption": block.caption})
            else:
                blocks.append({"kind": block.kind, "content": block.content, "caption": block.caption})
        sections.append({"key": section.key, "title": section.title, "note": section.note, "blocks": blocks})
    verdict = report.verdict
    if report.is_prediction_competition:
        result = report.predictions
        board = result.combined.final_leaderboard if result.combined is not None else result.final_leaderboard
        winners = " = ".join(map(str, board.loc[board["place"] == 1, "team"]))
        subtitle = (f"{len(result.teams)} teams, {len(result.submissions)} submissions ({len(result.rejected)} "
                    f"rejected); metrics {', '.join(m.label for m in result.metrics)}; rule '{result.rule}'. "
                    f"Final winner: {winners}.")
    else:
        subtitle = (f"{verdict.n_methods} methods, {verdict.per_dataset['dataset'].nunique()} datasets; "
                    f"rules {verdict.rules.name}. Winner: {verdict.winner}.")
    if report.verdict_fingerprint:
        subtitle += f" Verdict fingerprint: {report.verdict_fingerprint[:12]}."
    if stage is not None:
        stage("Filling the page's template (plotly.js inlined once)")
    template = _environment().get_template(_TEMPLATE)
    return template.render(
        title=report.title,
        subtitle=subtitle,
        generated_at=report.generated_at,
        srdash_version=__version__,
        sections=sections,
        figure_count=figure_count,
        reproducibility=[(k, v) for k, v in report.reproducibility.items()],
        rules_texts=list(report.rules_texts.items()),
        plotlyjs=Markup(get_plotlyjs()),  # plotly's own bundle: contains no '</script'
    )
