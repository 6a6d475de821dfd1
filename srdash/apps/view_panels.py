"""The dashboard's "More views" accordion, whose panels are created once and keep their identity.

Each panel is a box made with the accordion; what it shows (a note, a
:class:`~srdash.apps.view_progress.ViewProgress`, the view) changes inside that box, never in the accordion's
``children``. Replacing those children makes the page re-render every panel from the replaced one on, and
the front end's accordion (ipywidgets 8) removes the old panels a moment after it re-selected the open one:
the panel a visitor opened meanwhile is closed and a neighbour's index is sent back to the kernel. Nor does
the kernel ever set ``selected_index`` back after a build: the visitor may have opened another view since.

Examples
--------
>>> panels = ViewPanels(["Weight sensitivity", "Audit a published table"], note_html="<p>Open to compute.</p>")
>>> children = panels.children
>>> panels.place(1, ipywidgets.HTML("<p>the audit</p>"))
>>> panels.children is children, panels.shown("Audit a published table").value
(True, '<p>the audit</p>')
>>> panels.shown(0).value
'<p>Open to compute.</p>'
"""

from __future__ import annotations

from collections.abc import Iterable

import ipywidgets

__all__ = ["ViewPanels"]


class ViewPanels(ipywidgets.Accordion):
    """An accordion of titled panels, each a box whose one child is what the panel shows.

    Parameters
    ----------
    titles : iterable of str
        The panels' titles, in order.
    note_html : str
        What every panel shows at first (an HTML note).
    """

    def __init__(self, titles: Iterable[str], *, note_html: str, **kwargs):
        titles = tuple(str(title) for title in titles)
        super().__init__(children=tuple(ipywidgets.VBox([ipywidgets.HTML(note_html)]) for _ in titles),
                         titles=titles, selected_index=None, **kwargs)

    def index(self, which: int | str) -> int:
        """The position of panel ``which`` (its position or its title)."""
        if isinstance(which, str):
            if which not in self.titles:
                titles = ", ".join(f"'{title}'" for title in self.titles)
                raise KeyError(f"The 'which' argument must be the title of a panel ({titles}). Got '{which}'.")
            return list(self.titles).index(which)
        if not 0 <= int(which) < len(self.children):
            raise IndexError(f"The 'which' argument must be a panel's position, 0 to {len(self.children) - 1}. "
                             f"Got {which}.")
        return int(which)

    def place(self, which: int | str, widget: ipywidgets.Widget) -> None:
        """Show ``widget`` in panel ``which`` (the accordion's children and selection stay as they are)."""
        self.children[self.index(which)].children = (widget,)

    def place_note(self, note_html: str) -> None:
        """Show the note ``note_html`` in every panel (the accordion's children and selection stay as they are)."""
        for panel in self.children:
            panel.children = (ipywidgets.HTML(note_html),)

    def shown(self, which: int | str) -> ipywidgets.Widget:
        """What panel ``which`` (its position or its title) shows: a note, the view's progress or the view."""
        return self.children[self.index(which)].children[0]
