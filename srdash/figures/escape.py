"""The one place where untrusted text is made inert for display.

Model strings, method and team names, dataset names, file names and comments
come from competitors and judges. Everything srdash shows passes through one of
these two functions:

- :func:`html_text` for HTML (tables, notes, the apps' HTML widgets, the report):
  ``& < > " '`` are escaped, so text can never open a tag or leave an attribute;
- :func:`plotly_text` for plotly's labels (titles, ticks, hover text), which
  render a subset of HTML: ``& < >`` are escaped (plotly shows ``&quot;``
  literally, and a quote cannot open a tag without ``<``).

Examples
--------
>>> html_text('<img src=x onerror="alert(1)">')
'&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
>>> plotly_text("<b>a</b> & \\"b\\"")
'&lt;b&gt;a&lt;/b&gt; &amp; "b"'
"""

from __future__ import annotations

import html

__all__ = ["html_text", "plotly_text"]


def html_text(value: object) -> str:
    """``value`` as text, escaped for HTML content and attribute values."""
    return html.escape(str(value), quote=True)


def plotly_text(value: object) -> str:
    """``value`` as text, escaped for plotly's labels (see the module's note on quotes)."""
    return html.escape(str(value), quote=False)
