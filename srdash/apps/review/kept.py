"""The cards' formulas, test predictions and figures, computed once by ``srdash review`` and kept for every judge.

Each card of a judge's page shows its model's formula as LaTeX and, with test data, the model's predictions. Both
come from sympy (:func:`srdash.expressions.latex_of`, :func:`srdash.judging.representative.predict_test`), about
0.8 s and 40 MB of imports in every judge's kernel, for values that are the same on every judge's page. So
``srdash review``'s checking child computes them once for every representative model under review
(:func:`keep_card_values`) and keeps them as signed rows of srdash's cache (:meth:`srdash.cache.ResultCache.put_many`;
a changed row is not used); a judge's kernel reads them (:class:`KeptCardValues`) and computes only what is not
kept. A kept value is the very value the kernel would compute: its key covers the model string, the dataset's
feature names, the test file's SHA-256, srdash's code and the versions of sympy and numpy, and the predictions
travel as JSON numbers, which give back every float64 exactly.

A card's figures (predicted against actual, and over time when the test data has dates) are kept the same way, as
the JSON text their :class:`~srdash.apps.panels.FigurePanel` sends (:func:`compute_figures`): a kernel that reads
them builds no plotly figure (1.3 of the 2.0 s of the demo's judge page). Their key covers the model, the
features, the test file's SHA-256, srdash's code (the figure functions) and the versions of sympy, numpy and plotly.
"""

from __future__ import annotations

import functools
import json
from importlib import metadata
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from srdash.cache import ResultCache, cache_key, file_digest
from srdash.errors import SrdashError
from srdash.judging.representative import TestData, find_test_file, load_test_data, predict_test
from srdash.judging.snapshot import code_fingerprint

__all__ = ["KeptCardValues", "keep_card_values", "latex_key", "predictions_key", "figures_key", "compute_latex",
           "compute_predictions", "compute_figures", "formula_text", "LATEX_KIND", "PREDICTIONS_KIND",
           "FIGURES_KIND"]

LATEX_KIND = "review-latex"
PREDICTIONS_KIND = "review-predictions"
FIGURES_KIND = "review-figures"


@functools.lru_cache(maxsize=1)
def _versions() -> tuple[tuple[str, str], ...]:
    # read once per process (each look-up of the installed metadata costs milliseconds, twice per card)
    versions = []
    for name in ("sympy", "numpy"):
        try:
            versions.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            versions.append((name, ""))
    return tuple(versions)


@functools.lru_cache(maxsize=1)
def _plotly_version() -> str:
    try:
        return metadata.version("plotly")
    except metadata.PackageNotFoundError:
        return ""


def _settings(kind: str, test_digest: str = "") -> dict:
    return {"kind": kind, "code": code_fingerprint(), "test": test_digest, **dict(_versions())}


def latex_key(text: str, features: Sequence[str] | None) -> str:
    """The cache key of a formula's kept LaTeX (the text, the features, srdash's code, sympy's version)."""
    return cache_key(text, features, _settings(LATEX_KIND))


def predictions_key(model: str, features: Sequence[str] | None, digest: str) -> str:
    """The cache key of a model's kept predictions on the test file whose SHA-256 is ``digest``."""
    return cache_key(model, features, _settings(PREDICTIONS_KIND, digest))


def figures_key(model: str, features: Sequence[str] | None, digest: str) -> str:
    """The cache key of a card's kept figures: its model's predictions' key material, plotly's version among them."""
    return cache_key(model, features, {**_settings(FIGURES_KIND, digest), "plotly": _plotly_version()})


def formula_text(row: Mapping) -> str | None:
    """The text a card typesets: the simplified model, else the model as given (None: no model)."""
    simplified = row.get("simplified")
    text = simplified if isinstance(simplified, str) and simplified.strip() else row.get("model")
    return text if isinstance(text, str) and text.strip() else None


def compute_latex(text: str, features: Sequence[str] | None) -> tuple[str | None, str]:
    """(LaTeX, "") of a formula, or (None, why not): what a card shows."""
    from srdash.expressions import latex_of  # lazy: sympy

    try:
        return latex_of(text, features=features), ""
    except SrdashError as error:
        return None, str(error)


def compute_predictions(model: str, data: TestData, features: Sequence[str] | None) -> tuple[np.ndarray | None, str]:
    """(predictions, "") of a model on its test data, or (None, the error's text)."""
    try:
        return predict_test(model, data, features=features), ""
    except SrdashError as error:
        return None, str(error)


def compute_figures(data: TestData, predicted: np.ndarray) -> list[str]:
    """The JSON texts of a card's figures, as its panels send them: predicted against actual, then (test data with
    dates) over time."""
    import plotly.io as pio  # lazy: plotly's figure classes, only where a figure is drawn

    from srdash.figures.review import over_time_figure, predicted_vs_actual_figure  # lazy: plotly

    target = str(data.target.name)
    figures = [predicted_vs_actual_figure(data.target, predicted, target=target)]
    if data.dates is not None:
        figures.append(over_time_figure(data.dates, data.target, predicted, target=target))
    return [pio.to_json(figure, validate=False) for figure in figures]


class KeptCardValues:
    """The kept LaTeX and predictions of a review's cards (none when nothing was kept).

    Parameters
    ----------
    cache : ResultCache, optional
        Default: srdash's cache (``SRDASH_CACHE_DIR``). Not read at all until a value is asked for.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder, ResultCache(folder) as cache:
    ...     keep_card_values(pd.DataFrame({"dataset": ["d"], "model": ["x1*x2"], "simplified": [""]}), {},
    ...                      None, cache=cache)
    ...     KeptCardValues(cache).latex("x1*x2", None)
    1
    ('x_{1} x_{2}', '')
    """

    def __init__(self, cache: ResultCache | None = None):
        self._cache = cache

    def _rows(self, keys: list[str], kind: str) -> dict[str, dict]:
        try:
            if self._cache is None:
                self._cache = ResultCache()
            return self._cache.get_many(keys, kind=kind)
        except Exception:  # noqa: BLE001 - an unreadable cache keeps nothing: the kernel computes
            return {}

    def latex(self, text: str, features: Sequence[str] | None) -> tuple[str | None, str] | None:
        """The kept (LaTeX, problem) of ``text``, or None when it was not kept."""
        key = latex_key(text, features)
        row = self._rows([key], LATEX_KIND).get(key)
        if row is None or not isinstance(row.get("problem"), str) or not isinstance(row.get("latex"), (str, type(None))):
            return None
        return row["latex"], row["problem"]

    def predictions(self, model: str, data: TestData, features: Sequence[str] | None,
                    digest: str) -> tuple[np.ndarray | None, str] | None:
        """The kept (predictions, problem) of ``model`` on the test file of SHA-256 ``digest``, or None."""
        key = predictions_key(model, features, digest)
        row = self._rows([key], PREDICTIONS_KIND).get(key)
        if row is None or not isinstance(row.get("problem"), str):
            return None
        values = row.get("predicted")
        if values is None:
            return None, row["problem"]
        if not isinstance(values, list) or len(values) != len(data.target) or not all(
                isinstance(v, float) for v in values):
            return None   # not what this srdash keeps: computed again
        return np.asarray(values, dtype=float), ""

    def figures(self, model: str, data: TestData, features: Sequence[str] | None, digest: str) -> list[dict] | None:
        """The kept figures of ``model`` on the test file of SHA-256 ``digest``, as the dicts their panels send
        (one, or two with dates), or None when they were not kept."""
        key = figures_key(model, features, digest)
        texts = self._rows([key], FIGURES_KIND).get(key, {}).get("figures")
        if not isinstance(texts, list) or len(texts) != (1 if data.dates is None else 2) or not all(
                isinstance(text, str) for text in texts):
            return None   # not what this srdash keeps: drawn again
        try:
            figures = [json.loads(text) for text in texts]
        except ValueError:
            return None
        return figures if all(isinstance(figure, dict) for figure in figures) else None


def keep_card_values(representatives: pd.DataFrame, features: Mapping[str, Sequence[str]],
                     data_dir: str | Path | None, *, cache: ResultCache | None = None) -> int:
    """Compute and keep the LaTeX, test predictions and figures of every representative model; how many values were
    kept.

    Parameters
    ----------
    representatives : DataFrame
        As :class:`~srdash.apps.review.app.ReviewApp` takes them (``dataset``, ``model``, ``simplified``).
    features : mapping of dataset to feature names
    data_dir : path, optional
        The datasets' test files (none: no predictions).
    cache : ResultCache, optional, keyword-only
        Default: srdash's cache.
    """
    own = cache is None
    cache = ResultCache() if own else cache
    try:
        latex_rows, prediction_rows, figure_rows = {}, {}, {}
        for dataset, rows in representatives.groupby("dataset", sort=False):
            names = features.get(dataset) or None
            data, digest = None, ""
            if data_dir is not None:
                path = find_test_file(data_dir, str(dataset))
                if path is not None:
                    try:
                        data, digest = load_test_data(path), file_digest(path)
                    except (SrdashError, OSError):
                        data = None
            for row in rows.to_dict("records"):
                text = formula_text(row)
                if text is not None:
                    key = latex_key(text, names)
                    if key not in latex_rows:
                        latex, problem = compute_latex(text, names)
                        latex_rows[key] = {"status": "ok", "latex": latex, "problem": problem}
                model = row.get("model")
                if data is not None and isinstance(model, str) and model.strip():
                    key = predictions_key(model, names, digest)
                    if key not in prediction_rows:
                        predicted, problem = compute_predictions(model, data, names)
                        prediction_rows[key] = {"status": "ok", "problem": problem,
                                                "predicted": None if predicted is None else
                                                [float(v) for v in predicted]}
                        if predicted is not None:
                            figure_rows[figures_key(model, names, digest)] = {
                                "status": "ok", "figures": compute_figures(data, predicted)}
        return (cache.put_many(latex_rows.items(), kind=LATEX_KIND)
                + cache.put_many(prediction_rows.items(), kind=PREDICTIONS_KIND)
                + cache.put_many(figure_rows.items(), kind=FIGURES_KIND))
    finally:
        if own:
            cache.close()
