"""The one HTML table renderer of srdash (a Jinja template with autoescaping).

Tables are built as header cells and rows of :class:`Cell` and rendered by
:func:`table_html`. Text is escaped by :func:`srdash.figures.escape.html_text`
(and the template escapes anything else); a fragment srdash itself writes (a line break in a heading, a
coloured arrow) is passed as :class:`markupsafe.Markup`, whose ``format``
escapes whatever it is given.

Examples
--------
>>> print(table_html([Cell("Team")], [[Cell("<b>x</b>", css="srdash-team")]], css="srdash-table",
...                  row_attributes=[{"data-team": "<b>x</b>"}]))
<table class="srdash-table"><thead><tr><th>Team</th></tr></thead><tbody><tr data-team="&lt;b&gt;x&lt;/b&gt;"><td class="srdash-team">&lt;b&gt;x&lt;/b&gt;</td></tr></tbody></table>
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Mapping, Sequence

import jinja2
from markupsafe import Markup

from srdash.figures.escape import html_text

__all__ = ["Cell", "Markup", "table_html"]

_TEMPLATE = (
    '<table class="{{ css }}"><thead><tr>'
    '{% for cell in header %}<th{% if cell.css %} class="{{ cell.css }}"{% endif %}>{{ cell.text }}</th>{% endfor %}'
    '</tr></thead><tbody>'
    '{% for row in rows %}<tr{% for key, value in attributes[loop.index0].items() %} {{ key }}="{{ value }}"'
    '{% endfor %}>{% for cell in row %}<td{% if cell.css %} class="{{ cell.css }}"{% endif %}>{{ cell.text }}</td>'
    '{% endfor %}</tr>{% endfor %}'
    '</tbody></table>'
)


@dataclass(frozen=True)
class Cell:
    """One cell: its text (escaped when rendered, unless it is :class:`Markup`) and its CSS classes."""

    text: object = ""
    css: str = ""


@functools.lru_cache(maxsize=1)
def _template() -> jinja2.Template:
    return jinja2.Environment(autoescape=True, trim_blocks=True).from_string(_TEMPLATE)


def table_html(header: Sequence[Cell], rows: Sequence[Sequence[Cell]], *, css: str,
               row_attributes: Sequence[Mapping[str, object]] | None = None) -> str:
    """An HTML table; every text and attribute value escaped.

    Parameters
    ----------
    header : sequence of Cell
    rows : sequence of sequences of Cell
    css : str, keyword-only
        The table's classes.
    row_attributes : sequence of mappings, keyword-only
        Per row, extra attributes (e.g. ``data-team``); names are srdash's own.
    """
    attributes = [{key: _escaped(value) for key, value in row.items()} for row in row_attributes] \
        if row_attributes is not None else [{}] * len(rows)
    header = [Cell(_escaped(c.text), c.css) for c in header]
    rows = [[Cell(_escaped(c.text), c.css) for c in row] for row in rows]
    return _template().render(header=header, rows=rows, css=css, attributes=attributes)


def _escaped(text: object) -> Markup:
    """Text escaped by srdash's one helper (:func:`srdash.figures.escape.html_text`); Markup kept as it is."""
    return text if isinstance(text, Markup) else Markup(html_text(text))
