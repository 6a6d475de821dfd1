"""The Voilà apps: ipywidgets classes over the srdash core, and the server that runs them.

:class:`Dashboard` is the judging app served by ``srdash serve``; the panels it
is made of (:class:`LogPanel`, :class:`ProgressPanel`, :class:`FigurePanel`)
can be reused in other apps. :class:`PredictionsDashboard` is the app of
prediction-file competitions served by ``srdash predictions serve``.
:mod:`srdash.apps.server` starts Voilà and imports no widget library, so the
CLI can use it without ipywidgets; the widget classes load on first use.
"""

import importlib

__all__ = ["Dashboard", "PredictionsDashboard", "LogPanel", "ProgressPanel", "FigurePanel"]

_HOMES = {
    "Dashboard": "srdash.apps.dashboard",
    "PredictionsDashboard": "srdash.apps.predictions",
    "LogPanel": "srdash.apps.panels",
    "ProgressPanel": "srdash.apps.panels",
    "FigurePanel": "srdash.apps.panels",
}


def __getattr__(name):
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'srdash.apps' has no attribute {name!r}")
