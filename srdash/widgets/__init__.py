"""ipywidgets classes over the srdash core (the only package importing ipywidgets).

:class:`Dashboard` is the judging app served by ``srdash serve``; the panels it
is made of (:class:`LogPanel`, :class:`ProgressPanel`, :class:`FigurePanel`)
can be reused in other apps.
"""

from srdash.widgets.dashboard import Dashboard
from srdash.widgets.panels import FigurePanel, LogPanel, ProgressPanel

__all__ = ["Dashboard", "LogPanel", "ProgressPanel", "FigurePanel"]
