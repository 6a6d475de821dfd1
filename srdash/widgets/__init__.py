"""ipywidgets classes over the srdash core (the only package importing ipywidgets).

:class:`Dashboard` is the judging app served by ``srdash serve``; the panels it
is made of (:class:`LogPanel`, :class:`ProgressPanel`, :class:`FigurePanel`)
can be reused in other apps. :class:`PredictionsDashboard` is the app of
prediction-file competitions served by ``srdash predictions serve``.
"""

from srdash.widgets.dashboard import Dashboard
from srdash.widgets.panels import FigurePanel, LogPanel, ProgressPanel
from srdash.widgets.predictions import PredictionsDashboard

__all__ = ["Dashboard", "PredictionsDashboard", "LogPanel", "ProgressPanel", "FigurePanel"]
