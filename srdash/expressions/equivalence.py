"""Exact re-discovery: symbolic equivalence of a model with its ground truth (SRBench 2022 rule).

Used by :mod:`srdash.judging.properties` (the exact-formula property). Every symbolic step is a
:class:`~srdash.expressions._timelimit.WorkerPool` task under a hard time limit, so a hanging
simplification can never block the caller.
"""

from __future__ import annotations

import sqlite3
import warnings
from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np
import sympy

from srdash import cache as _cache
from srdash.expressions._numeric import compile_numeric
from srdash.expressions._timelimit import DEFAULT_MEMORY_LIMIT, WorkerPool
from srdash.expressions.complexity import open_complexity_cache, round_exactly, warm_up_worker, write_cached
from srdash.expressions.parse import parse_model

__all__ = ["equivalent_models", "equivalence_table"]


def _shown_expression(expression, limit: int = 300) -> str:
    text = str(expression)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _not_finite(expression) -> bool:
    return bool(expression.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo))


def _is_constant(expression, *, simplify: bool) -> bool:
    """``expression.is_constant()`` as a bool: None ("cannot tell") and errors count as False."""
    if _not_finite(expression):
        # truth - zoo is zoo, which sympy calls constant: a model that is not finite is never equivalent
        return False
    try:
        return bool(expression.is_constant(simplify=simplify))
    except (TypeError, ValueError, ZeroDivisionError, NotImplementedError, AttributeError):
        return False


def _equivalence_step(step: str, payload):
    """One symbolic step of the equivalence check; runs in a worker process.

    ``simplify``: (text, features) -> the parsed, simplified expression with floats
    rounded as in the 2022 scorer. ``quick``: (truth, model) -> why they are equivalent
    ("" if not shown) from the unsimplified difference and ratio. ``difference`` /
    ``ratio``: the same after ``sympy.simplify`` of the difference / ratio.
    """
    # sympy's cache would make a step's CPU time (and so a timeout) depend on what the worker did before
    sympy.core.cache.clear_cache()
    if step == "simplify":
        text, features = payload
        return round_exactly(sympy.simplify(parse_model(text, features=features)))
    truth, model = payload
    if step == "quick":
        difference, ratio = truth - model, model / truth
        for name, value in (("truth - model", difference), ("model / truth", ratio)):
            if _is_constant(value, simplify=False):
                return f"{name} = {value} is constant" if not value.free_symbols else f"{name} is constant"
        return ""
    reduced = sympy.simplify(truth - model if step == "difference" else model / truth)
    if not _is_constant(reduced, simplify=True):
        return ""
    return f"{'truth - model' if step == 'difference' else 'model / truth'} simplifies to the constant {reduced}"


_SAMPLE_POINTS = 64


def _numerically_different(truth, model) -> bool:
    """True when sample points prove that neither ``truth - model`` nor ``model / truth`` is constant.

    A cheap first look, in this process, before the symbolic steps (which run in
    workers under the time limit): both simplified, rounded expressions are
    evaluated at seeded random points in [-4, 4]; where both are finite and real,
    a difference or ratio that varies by more than 1e-6 of the values' size cannot
    be a constant, so the model is not equivalent whatever sympy would say. Any
    doubt (too few usable points, an error) returns False and leaves the verdict
    to the symbolic steps: this can only save time, never change a verdict.
    """
    symbols = sorted(truth.free_symbols | model.free_symbols, key=lambda symbol: symbol.name)
    if not symbols:
        return False
    rng = np.random.default_rng(0)
    inputs = [rng.uniform(-4.0, 4.0, _SAMPLE_POINTS) for _ in symbols]
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values = [np.broadcast_to(np.asarray(compile_numeric(symbols, e)(*inputs), dtype=complex),
                                      (_SAMPLE_POINTS,)) for e in (truth, model)]
    except Exception:  # noqa: BLE001 - any doubt: leave it to sympy
        return False
    t, m = values
    usable = np.isfinite(t) & np.isfinite(m) & (t.imag == 0) & (m.imag == 0)
    if usable.sum() < _SAMPLE_POINTS // 4:
        return False
    t, m = t.real[usable], m.real[usable]
    size = float(np.max(np.abs(t)) + np.max(np.abs(m)))
    if not np.isfinite(size) or size == 0:
        return False
    difference_varies = np.ptp(t - m) > 1e-6 * size
    away_from_zero = np.abs(t) > 1e-6 * size
    if away_from_zero.sum() < _SAMPLE_POINTS // 4:
        return False
    ratio = m[away_from_zero] / t[away_from_zero]
    ratio_varies = np.ptp(ratio) > 1e-6 * max(float(np.max(np.abs(ratio))), 1e-12)
    return bool(difference_varies and ratio_varies)


def equivalence_table(
    models: Sequence[str | None],
    truths: Sequence[str],
    *,
    features=None,
    timeout: float = 10.0,
    jobs: int = 1,
    progress: Callable[[int, int, dict], None] | None = None,
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
    cache=False,
    retry_timeouts: bool = False,
) -> list[tuple[bool, str]]:
    """Is each model equivalent to its ground truth? The SRBench 2022 exact re-discovery rule.

    As the organisers' ``symbolic_equivalence`` (``competition-2022/experiment/metrics/
    evaluation.py`` of cavalab/srbench): the model and the truth are parsed (safely,
    :func:`parse_model`), simplified with ``sympy.simplify`` and their floats rounded to
    3 decimals (below 0.001 they become 0), here as exact decimals (0.4 -> 2/5) so that
    no binary rounding error survives in the difference. The model is equivalent when the simplified
    model is not 0 and ``truth - model`` or ``model / truth`` is a constant: first
    checked with ``is_constant(simplify=False)`` on the unsimplified difference and ratio,
    then on ``sympy.simplify`` of the difference, then of the ratio. So ``f + 2`` and
    ``3*f`` are equivalent to ``f``; ``3*f + 1`` is not.

    Differences from the 2022 code: the 2022 rounding (sympy's ``round(Float, 3)``) also
    cut the floats' binary precision, so that a model equal to the truth only after
    expanding, e.g. ``(0.4*x1 + 2.5)*(x2 - 3.75) + 10.375`` for ``0.4*x1*x2 - 1.5*x1 +
    2.5*x2 + 1``, kept a residue 9.155e-5*x1 and was *not* equivalent; with exact decimals
    it is. Every step
    (simplifying the model, the truth, the difference, the ratio, the quick check) has
    its own hard limit of ``timeout`` seconds of the CPU time it uses (never the wall clock: a
    busy machine does not turn a check into a timeout), and **a timeout means not equivalent** (the 2022 code went on
    with the unsimplified model); a model that is not finite (``zoo``, ``nan``, ``oo``, e.g.
    ``1/0 + x1``) is not equivalent (in 2022, ``truth - zoo = zoo`` counted as constant).

    Parameters
    ----------
    models : sequence of str or None
        Untrusted model strings; None or "" is a missing model (not equivalent).
    truths : sequence of str
        The ground truth of each model (same length).
    features : None, collection of str, or sequence of (collection of str or None), keyword-only
        Allowed variable names: as in :func:`complexity_table`.
    timeout : float, keyword-only
        Hard limit of each symbolic step, in seconds of the CPU time it uses (the 2022 scorer: 10, on
        the wall clock).
    jobs : int, keyword-only
        Worker processes.
    progress : callable, optional, keyword-only
        ``progress(done, total, counts)`` as verdicts arrive; ``counts`` has the keys
        ``equivalent``, ``not equivalent`` and ``timeout``.
    memory_limit : int or None, keyword-only
        Address-space limit of each worker in bytes.
    cache : False, None, path or srdash.cache.ResultCache, keyword-only
        Where verdicts are kept (kind ``equivalence``, keyed by model, truth,
        features and sympy version; a verdict reached under a limit is reused
        under a longer one, a timeout under the same or a shorter one). False
        (the default): no cache; None: the default cache file.
    retry_timeouts : bool, keyword-only
        Check again the pairs whose cached verdict is a timeout.

    Returns
    -------
    list of (bool, str)
        Per model: equivalent or not, and why (the detail says which step timed out).

    Examples
    --------
    >>> f = "0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1"
    >>> verdicts = equivalence_table([f"{f} + 2", f"3*({f})", f"3*({f}) + 1", "x2 - x2"], [f] * 4)
    >>> [ok for ok, _ in verdicts]
    [True, True, False, False]
    >>> verdicts[3][1]
    'not equivalent: the simplified model is 0'
    """
    models, truths = list(models), list(truths)
    if len(models) != len(truths):
        raise ValueError(f"models and truths must have the same length. Got {len(models)} and {len(truths)}.")
    if features is None or (isinstance(features, Collection) and not isinstance(features, str)
                            and all(isinstance(f, str) for f in features)):
        features = [features] * len(models)
    features = [tuple(f) if f is not None else None for f in features]
    if len(features) != len(models):
        raise ValueError(f"features must be None, one collection, or one entry per model. Got {len(features)} "
                         f"entries for {len(models)} models.")
    verdicts: list[tuple[bool, str] | None] = [None] * len(models)
    store, owned = open_complexity_cache(cache)
    try:
        keys, found = _cached_verdicts(store, models, truths, features, timeout=timeout,
                                       retry_timeouts=retry_timeouts)
        for index, verdict in found.items():
            verdicts[index] = verdict
        _equivalence_work(models, truths, features, verdicts, timeout=timeout, jobs=jobs, progress=progress,
                          memory_limit=memory_limit, done_before=dict(found))
        if store is not None:
            pending = [(keys[index], {"status": "timeout" if "time limit" in detail else "ok",
                                      "equivalent": bool(equivalent), "detail": detail})
                       for index, (equivalent, detail) in enumerate(verdicts)
                       if index in keys and index not in found and "could not be processed" not in detail]
            write_cached(store, pending, limit=timeout, kind="equivalence")
    finally:
        if store is not None and owned:
            store.close()
    return verdicts


# 2: a step's limit counts its CPU time (the wall clock of a busy machine made timeouts); fixed-name numeric code
EQUIVALENCE_PROCEDURE = "srbench2022-equivalence/2"


def _cached_verdicts(store, models, truths, features, *, timeout, retry_timeouts) -> tuple[dict, dict]:
    """({index: key} of the checks worth caching, {index: (equivalent, detail)} found in ``store``)."""
    if store is None:
        return {}, {}
    keys = {index: _cache.cache_key(model, features[index], {"procedure": EQUIVALENCE_PROCEDURE,
                                                               "sympy": sympy.__version__, "truth": truths[index]})
            for index, model in enumerate(models) if isinstance(model, str) and model.strip()
            and isinstance(truths[index], str)}
    try:
        entries = store.get_many(keys.values(), kind="equivalence", limit=timeout,
                                 retry_timeouts=True if retry_timeouts else None)
    except (sqlite3.Error, OSError) as exc:
        warnings.warn(f"The cache {store.path} cannot be read ({exc}); continuing without it.", RuntimeWarning,
                      stacklevel=4)
        return {}, {}
    found = {index: (bool(entries[key]["equivalent"]), str(entries[key]["detail"]))
             for index, key in keys.items() if key in entries}
    return keys, found


def _equivalence_work(models, truths, features, verdicts, *, timeout, jobs, progress, memory_limit,
                      done_before) -> None:
    """Fill the missing ``verdicts`` (None) in worker processes."""
    simplified: dict[tuple, Any] = {}   # (text, features) -> expression, or why it failed (str)
    waiting: dict[tuple, list[int]] = {}
    pairs: dict[int, tuple] = {}        # index -> (truth, model) expressions
    counts = {"equivalent": 0, "not equivalent": 0, "timeout": 0}
    for equivalent, detail in done_before.values():
        counts["equivalent" if equivalent else "timeout" if "time limit" in detail else "not equivalent"] += 1
    for index, model in enumerate(models):
        if verdicts[index] is None and (not isinstance(model, str) or not model.strip()):
            verdicts[index] = (False, "not equivalent: the run has no model")
            counts["not equivalent"] += 1
    if all(verdict is not None for verdict in verdicts):
        if progress is not None:
            progress(len(models), len(models), dict(counts))
        return

    def settle(index: int, equivalent: bool, detail: str) -> None:
        verdicts[index] = (equivalent, detail)
        counts["equivalent" if equivalent else "timeout" if "time limit" in detail else "not equivalent"] += 1
        if progress is not None:
            progress(sum(counts.values()), len(models), dict(counts))

    def failure(result) -> str:
        if result.outcome == "killed":
            return f"took longer than the time limit of {timeout:g} s"
        if result.outcome == "raised" and result.error.startswith("ModelRejected: "):
            return f"was refused: {result.error[len('ModelRejected: '):]}"
        return f"could not be processed ({result.error})"

    with WorkerPool(_equivalence_step, processes=max(1, int(jobs)), time_limit=timeout,
                    memory_limit=memory_limit, keep_spares=True, warm_up=warm_up_worker) as pool:

        def need(key: tuple, index: int) -> None:
            if key in simplified:
                return
            if key not in waiting:
                waiting[key] = []
                pool.submit(("simplify", key), "simplify", key)
            waiting[key].append(index)

        def advance(index: int) -> None:
            truth_key, model_key = (truths[index], features[index]), (models[index], features[index])
            if verdicts[index] is not None or truth_key not in simplified or model_key not in simplified:
                return
            for key, what in ((truth_key, "the ground truth"), (model_key, "the model")):
                if isinstance(simplified[key], str):
                    return settle(index, False, f"not equivalent: {what} {simplified[key]}")
            truth, model = simplified[truth_key], simplified[model_key]
            if model == 0:
                return settle(index, False, "not equivalent: the simplified model is 0")
            if _not_finite(model):
                return settle(index, False, f"not equivalent: the simplified model is not finite ({model})")
            if _numerically_different(truth, model):
                shown = f"simplified model {_shown_expression(model)}, ground truth {_shown_expression(truth)}"
                return settle(index, False, "not equivalent: neither truth - model nor model / truth is constant "
                                            f"(they vary at {_SAMPLE_POINTS} sample points; {shown})")
            pairs[index] = (truth, model)
            pool.submit(("quick", index), "quick", (truth, model))

        for index, model in enumerate(models):
            if verdicts[index] is not None:
                continue
            if not isinstance(model, str) or not model.strip():
                settle(index, False, "not equivalent: the run has no model")
                continue
            need((truths[index], features[index]), index)
            need((model, features[index]), index)
        for result in pool.results():
            step, key = result.task_id
            if step == "simplify":
                simplified[key] = (result.value if result.outcome == "returned" else
                                   f"simplifying it {failure(result)}" if result.outcome == "killed"
                                   else failure(result))
                for index in waiting.pop(key):
                    advance(index)
                continue
            index = key
            truth, model = pairs[index]
            shown = f"simplified model {_shown_expression(model)}, ground truth {_shown_expression(truth)}"
            if result.outcome != "returned":
                what = "difference and ratio" if step == "quick" else step
                settle(index, False, f"not equivalent: checking the {what} {failure(result)} ({shown})")
            elif result.value:
                settle(index, True, f"equivalent: {result.value}")
            elif step != "ratio":
                following = "difference" if step == "quick" else "ratio"
                pool.submit((following, index), following, (truth, model))
            else:
                settle(index, False, f"not equivalent: neither truth - model nor model / truth is constant "
                                     f"({shown})")


def equivalent_models(model_text: str, truth_text: str, *, features: Collection[str] | None = None,
                      timeout: float = 10.0) -> tuple[bool, str]:
    """Is one model equivalent to a ground truth (SRBench 2022 rule)? See :func:`equivalence_table`.

    Each call starts a worker process (about a second): check many models with
    :func:`equivalence_table`, which shares its workers.

    Returns
    -------
    (bool, str)
        Equivalent or not, and why; a step that overruns ``timeout`` gives not equivalent.

    Examples
    --------
    >>> equivalent_models("(0.4*x1 + 2.5)*(x2 - 3.75) + 10.375", "0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1")
    (True, 'equivalent: truth - model is constant')
    """
    return equivalence_table([model_text], [truth_text], features=features, timeout=timeout)[0]
