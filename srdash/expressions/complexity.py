"""SRBench 2022 complexity of model strings, in worker processes under a hard time limit.

:func:`complexity_table` reproduces the SRBench 2022 complexity procedure
(``competition-2022/experiment/metrics/evaluation.py`` of cavalab/srbench):
``sympy.simplify`` under a time limit, then every float rounded to 3 decimals
(floats below 0.001 in absolute value replaced by 0), then ``components`` = the
number of nodes of ``sympy.preorder_traversal`` of the result and
``simplicity = round(-log(components) / log(5), 1)``. The sympy work runs in
worker processes (see :mod:`srdash.expressions._timelimit`) so the time limit is hard and
holds from any thread, and results are cached on disk (see :mod:`srdash.cache`).
"""

from __future__ import annotations

import math
import sqlite3
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np
import sympy

from srdash import cache as _cache
from srdash.expressions._timelimit import DEFAULT_MEMORY_LIMIT, SoftTimeLimitExceeded, WorkerPool, soft_time_limit
from srdash.expressions.counting import count_nodes
from srdash.expressions.distributed import DaskWorkerPool, resolve_scheduler
from srdash.expressions.parse import count_components, feature_set_of, parse_checked, undefined_reason, parse_model
from srdash.errors import ModelRejected

# pandas is imported inside the functions that build tables: worker processes
# import this module and do not need it (docs/decisions/2026-11-worker-start-costs.md).

__all__ = ["COLUMNS", "STATUSES", "complexity_table", "simplicity_from_components"]


#: Values of the ``status`` column of :func:`complexity_table`.
STATUSES = ("ok", "timeout", "simplify_error", "rejected", "parse_error")

#: Columns of :func:`complexity_table`, in order.
COLUMNS = ("components", "simplicity", "simplified", "status", "reason", "seconds", "features_used")

# Bump when anything that changes a computed result changes (invalidates the cache).
# 2: undefined models rejected; 3: timeouts count CPU time only (a worker killed on the wall clock of a busy
# machine was cached as one)
_PROCEDURE = "srbench2022-complexity/3"


def round_floats(ex1, dec=3):
    """The organisers' ``round_floats``, reproduced literally (including its quirks:
    it walks the *original* expression and substitutes into the running one)."""
    ex2 = ex1
    for a in sympy.preorder_traversal(ex1):
        if isinstance(a, sympy.Float):
            if abs(a) < 10 ** (-dec):
                ex2 = ex2.subs(a, sympy.Integer(0))
            else:
                ex2 = ex2.subs(a, round(a, dec))
    return ex2


def round_exactly(expression):
    """Floats rounded to 3 decimals as in the 2022 scorer (below 0.001 -> 0), but as exact decimals.

    The 2022 ``round_floats`` used sympy's ``round(Float, 3)``, which also cuts the binary
    precision (0.4 becomes 0.4000244140625): a model equal to the truth only after expanding,
    ``(0.4*x1 + 2.5)*(x2 - 3.75) + 10.375``, then differs from it by 9.155e-5*x1 and is not
    equivalent. Exact decimals (0.4 -> 2/5) keep every later step exact.
    """
    replacements = {}
    for node in sympy.preorder_traversal(expression):
        if isinstance(node, sympy.Float):
            value = round(float(node), 3)
            replacements[node] = sympy.Integer(0) if abs(float(node)) < 1e-3 else sympy.Rational(repr(value))
    return expression.xreplace(replacements) if replacements else expression


def simplicity_from_components(components):
    """SRBench 2022 simplicity: ``round(-log(components) / log(5), 1)``.

    Computed as the organisers did, ``-numpy.round(numpy.log(c) / numpy.log(5), 1)``
    (numpy rounds halves to even). Higher is simpler: 1 component gives 0,
    5 give -1, 25 give -2.

    Parameters
    ----------
    components : float or array_like
        Number of nodes of the simplified, rounded model (>= 1). NaN (unknown)
        gives NaN.

    Returns
    -------
    float or numpy.ndarray
        A float for scalar input, an array of the same shape otherwise.

    Raises
    ------
    ValueError
        If a component count is below 1.

    Examples
    --------
    >>> simplicity_from_components(3)  # x1 + x2: Add, x1, x2
    -0.7
    >>> simplicity_from_components([1, 5, 25, float("nan")])
    array([ 0., -1., -2., nan])
    """
    values = np.asarray(components, dtype=float)
    below = values < 1  # NaN compares False
    if below.any():
        raise ValueError(f"components must be at least 1 (a model has at least one node). "
                         f"Got {values[below].flat[0]:g}.")
    with np.errstate(divide="ignore", invalid="ignore"):
        result = -np.round(np.log(values) / np.log(5), 1) + 0.0  # + 0.0 turns -0.0 into 0.0
    return float(result) if result.ndim == 0 else result


@dataclass(frozen=True)
class ComplexitySettings:
    """Everything a worker needs besides the model (picklable)."""

    timeout: float = 10.0
    decimals: int = 3
    max_length: int = 20_000
    max_nodes: int = 10_000
    simplify: bool = True
    #: Replaces ``sympy.simplify`` (tests only); must be importable by the workers.
    simplifier: Callable | None = None
    #: What is counted (:mod:`srdash.expressions.measures`): the SRBench 2022 components of the
    #: simplified model, or the nodes of the tree as submitted or after rounding its floats.
    measure: str = "simplified-components"

    @property
    def grace(self) -> float:
        """Extra time beyond ``timeout`` for parsing, rounding and counting."""
        return max(2.0, 0.5 * self.timeout)

    @property
    def hard_limit(self) -> float:
        """CPU seconds of one model's task after which the parent kills its worker.

        The soft limits inside the task and this hard limit all count the task's
        own CPU time, so that a loaded machine does not change a verdict; the hard
        limit stops work stuck where the soft limits cannot reach it (one long C
        call), after the soft ones have had their chance.
        """
        return self.timeout + self.grace

    def cache_identity(self) -> dict:
        return {
            # measures' procedure 2: timeouts count CPU time only (as _PROCEDURE 3)
            "procedure": _PROCEDURE if self.measure == "simplified-components" else f"srdash-measure/{self.measure}/2",
            "sympy": sympy.__version__,
            # not the time limit: each cached row records its own (srdash.cache)
            "decimals": self.decimals,
            "max_length": self.max_length,
            "max_nodes": self.max_nodes,
        }


class _Outcome(NamedTuple):
    status: str
    components: float
    simplified: str
    reason: str
    features_used: str
    seconds: float = math.nan
    cacheable: bool = False
    cpu_seconds: float = math.nan
    from_cache: bool = False


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def complexity_task(model: str, features: tuple[str, ...] | None, settings: ComplexitySettings) -> tuple:
    """Complexity of one model; runs in a worker process (main thread, so SIGALRM works).

    Returns the fields of :class:`_Outcome` without ``seconds``.
    """
    # str() of an expression with an integer over 4300 digits raises ValueError
    # otherwise; numbers are bounded by the parser (and the time limit).
    if hasattr(sys, "set_int_max_str_digits"):  # Python >= 3.10.7
        sys.set_int_max_str_digits(0)
    # CPU time of this worker: the same model gets the same outcome on a busy machine
    budget_end = time.process_time() + settings.timeout + settings.grace / 2

    def remaining() -> float:
        return max(0.05, budget_end - time.process_time())

    nan = math.nan
    as_submitted = settings.measure != "simplified-components"
    if as_submitted and isinstance(model, str):
        model = model.replace("\n", "")  # as parse_submitted_model (and sympify) read it
    try:
        with soft_time_limit(remaining(), clock="cpu"):
            expression = parse_checked(model, features=features, max_length=settings.max_length,
                                max_nodes=settings.max_nodes, printed=False)
    except ModelRejected as exc:
        return (exc.status, nan, "", exc.reason, "", True)
    except SoftTimeLimitExceeded:
        return ("timeout", nan, "", f"Building the expression took longer than "
                f"{settings.timeout + settings.grace / 2:g} s.", "", False)
    if as_submitted:
        try:
            with soft_time_limit(remaining(), clock="cpu"):
                counted, nodes = count_nodes(expression, settings.measure)
                text = str(counted)
        except SoftTimeLimitExceeded:
            return ("timeout", nan, "", f"Counting the nodes did not finish within {settings.timeout:g} s.",
                    "", False)
        except Exception as exc:  # noqa: BLE001 - RecursionError, MemoryError, sympy errors
            return ("simplify_error", nan, "", _clip(f"Counting the nodes failed ({type(exc).__name__}: {exc})."),
                    "", not isinstance(exc, MemoryError))
        return ("ok", float(nodes), text, "", "", True)
    undefined = undefined_reason(expression)
    if undefined:
        return ("rejected", nan, "", undefined, "", True)

    status, reason, cacheable = "ok", "", True
    simplified = expression
    if settings.simplify:
        simplify = settings.simplifier or sympy.simplify
        try:
            with soft_time_limit(min(settings.timeout, remaining()), clock="cpu"):
                simplified = simplify(expression)
        except SoftTimeLimitExceeded:
            status, cacheable = "timeout", False
            reason = (f"sympy.simplify did not finish within {settings.timeout:g} s; components "
                      f"counted on the unsimplified expression (as SRBench 2022 did).")
        except MemoryError:
            status, cacheable = "simplify_error", False
            reason = ("sympy.simplify ran out of memory (worker memory limit); components counted "
                      "on the unsimplified expression.")
        except Exception as exc:  # noqa: BLE001 - SRBench kept the unsimplified model on any error
            status = "simplify_error"
            reason = _clip(f"sympy.simplify failed ({type(exc).__name__}: {exc}); components counted on "
                           f"the unsimplified expression (as SRBench 2022 did).")
    try:
        with soft_time_limit(remaining(), clock="cpu"):
            rounded = round_floats(simplified, settings.decimals)
            components = count_components(rounded)
            text = str(rounded)
            used = " ".join(sorted(symbol.name for symbol in rounded.free_symbols))
    except SoftTimeLimitExceeded:
        return ("timeout", nan, "", (reason + " " if reason else "") + "Rounding and counting the "
                "expression did not finish in time.", "", False)
    except Exception as exc:  # noqa: BLE001 - RecursionError, MemoryError, sympy errors
        return ("simplify_error", nan, "", _clip(f"Rounding and counting the expression failed "
                f"({type(exc).__name__}: {exc})."), "", cacheable and not isinstance(exc, MemoryError))
    return (status, float(components), text, reason, used, cacheable)


def _timed_complexity_task(model: str, features: tuple[str, ...] | None, settings: ComplexitySettings) -> tuple:
    """:func:`complexity_task` plus the CPU seconds the worker spent on it (cached with the result)."""
    # sympy's cache would make a model's CPU time (and so a timeout) depend on what the worker did before
    sympy.core.cache.clear_cache()
    start = time.process_time()
    return (*complexity_task(model, features, settings), time.process_time() - start)


@dataclass(frozen=True)
class _NotAString:
    """Stands for a model value that is not a string (refused without a worker)."""

    type_name: str


def _model_texts(models) -> tuple[list, Any]:
    import pandas as pd

    if isinstance(models, str):
        raise TypeError("models must be a sequence of model strings, not a single string; "
                        "wrap it in a list.")
    index = models.index if isinstance(models, pd.Series) else pd.RangeIndex(len(models))
    texts: list = []
    for value in (models.tolist() if isinstance(models, pd.Series) else list(models)):
        if isinstance(value, str):
            texts.append(value)
        elif value is None or value is pd.NA or value is pd.NaT:
            texts.append(None)
        elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
            # a constant model that pandas read as a number
            texts.append(None if math.isnan(value) else str(value))
        else:
            texts.append(_NotAString(type(value).__name__))
    return texts, index


def _feature_lists(features, count: int) -> list[tuple[str, ...] | None]:
    if features is None:
        return [None] * count
    if isinstance(features, str):
        raise TypeError(f"features must be a collection of names such as ['x1', 'x2'] (or one "
                        f"collection per model), not the string {features!r}.")
    entries = list(features)
    if all(isinstance(entry, str) for entry in entries):
        if any(len(entry.split()) > 1 for entry in entries):
            raise TypeError("features looks like one space-separated string per model; give one collection "
                            "of names per model instead, e.g. [text.split() for text in features].")
        shared = tuple(sorted(set(entries)))
        return [shared] * count
    if len(entries) != count:
        raise ValueError(f"features has {len(entries)} entries but there are {count} models; give one "
                         f"collection of names for all models or one per model.")
    result = []
    for entry in entries:
        if entry is None or (isinstance(entry, float) and math.isnan(entry)):
            result.append(None)
        elif isinstance(entry, str):
            raise TypeError(f"Each entry of features must be a collection of names or None, not the "
                            f"string {entry!r}.")
        else:
            result.append(tuple(sorted(set(feature_set_of(entry)))))
    return result


def complexity_table(
    models,
    *,
    features=None,
    timeout: float = 10.0,
    jobs: int = 1,
    cache=None,
    progress: Callable[[int, int, dict], None] | None = None,
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
    scheduler=None,
    retry_timeouts: bool = False,
    _measure: str = "simplified-components",
):
    """SRBench 2022 complexity of each model string, under a hard time limit.

    For each model: parse safely (:func:`parse_model`), ``sympy.simplify`` it
    within ``timeout`` seconds (on timeout or error the unsimplified expression
    is kept, as SRBench did), round every float to 3 decimals (floats below
    0.001 in absolute value become 0), count the nodes of
    ``sympy.preorder_traversal``, and compute
    ``simplicity = round(-log(components) / log(5), 1)``.

    The sympy work runs in ``jobs`` worker processes (also for ``jobs=1``), so
    the limit holds from any thread. The limit counts the CPU time the worker
    spent on the model (not its start, not the wall clock), so that the outcome
    does not depend on the machine's load. A worker whose model has used
    ``timeout + grace`` seconds of CPU time (grace = max(2 s, timeout / 2)) is
    killed and replaced; the model gets status ``timeout`` and the components of its
    unsimplified expression, counted by a fresh worker (NaN if that fails too).
    Each worker's memory is capped (``memory_limit``). A failing model never
    stops the others. Identical (model, features) pairs are computed
    once; results are cached on disk (see :mod:`srdash.cache`).

    Parameters
    ----------
    models : sequence of str or pandas.Series
        Model strings; None/NaN means a missing model.
    features : None, collection of str, or sequence of (collection of str or None), keyword-only
        Allowed variable names: None (any name), one collection for every
        model, or one entry per model.
    timeout : float, keyword-only
        Seconds allowed for ``sympy.simplify`` on one model (SRBench: 10).
    jobs : int, keyword-only
        Number of worker processes.
    cache : None, False, path or srdash.cache.ComplexityCache, keyword-only
        None: the default cache file (``$SRDASH_CACHE_DIR`` or the user cache
        directory); a path: that SQLite file; False: no cache. Timeouts are
        cached with their limit: the same or a shorter limit reuses them, a
        longer one computes them again.
    progress : callable, optional, keyword-only
        Called as ``progress(done, total, counts_by_status)`` as results arrive
        (``done`` and ``total`` count rows).
    memory_limit : int or None, keyword-only
        Bytes of address space each worker may use beyond its size after
        start-up (default 4 GiB): a runaway simplification then fails with
        ``MemoryError`` (status ``simplify_error``, not cached).
    scheduler : None, False, str or distributed.Client, keyword-only
        Run the workers on a Dask cluster instead (same task, limits and
        results; ``jobs`` is then ignored): an address ``tcp://HOST:PORT`` or a
        client. None: the ``SRDASH_SCHEDULER`` environment variable if set, else
        local processes; False: local processes. See :mod:`srdash.expressions.distributed`.
    retry_timeouts : bool, keyword-only
        Compute cached timeouts again even under the same limit.

    Returns
    -------
    pandas.DataFrame
        Same index and order as ``models``, columns:

        - ``components`` (float): node count; NaN when the model was refused or
          could not be counted.
        - ``simplicity`` (float): from ``components``; NaN when it is NaN.
        - ``simplified`` (str): the rounded simplified expression ("" if none).
        - ``status`` (str): one of :data:`STATUSES`: ``ok``; ``timeout``
          (simplify ran out of time: unsimplified expression counted);
          ``simplify_error`` (simplify raised: unsimplified expression counted);
          ``rejected`` (outside the whitelist, too large, or undefined or not
          finite everywhere, e.g. ``1/0 + x1``: no components, the worst
          simplicity); ``parse_error``
          (empty or not valid syntax).
        - ``reason`` (str): why, "" when ``ok``.
        - ``seconds`` (float): time spent computing the model (when it was
          computed, for cached results).
        - ``features_used`` (str): sorted, space-separated variables of the
          simplified model (a feature that cancels out is not used).

        ``table.attrs["cache"]`` says how many rows came from the cache
        (``{"rows": ..., "from_cache": ..., "computed": ...}``, ``computed``
        counting distinct computations).

    Examples
    --------
    >>> table = complexity_table(["x1 + x2", "x1/x1 + 0.0004*x2", "open('f')"], cache=False)
    >>> table[["components", "simplicity", "simplified", "status"]]
       components  simplicity simplified    status
    0         3.0        -0.7    x1 + x2        ok
    1         1.0         0.0          1        ok
    2         NaN         NaN             rejected
    >>> table["features_used"].tolist()
    ['x1 x2', '', '']
    >>> table.loc[2, "reason"].split(". ")[0]
    "Unknown function 'open'"
    """
    texts, index = _model_texts(models)
    feature_lists = _feature_lists(features, len(texts))
    if not (isinstance(timeout, (int, float)) and 0 < timeout < math.inf):
        raise ValueError(f"The 'timeout' option must be a positive number of seconds. Got {timeout!r}.")
    if not (isinstance(jobs, (int, np.integer)) and not isinstance(jobs, bool) and jobs >= 1):
        raise ValueError(f"The 'jobs' option must be a positive integer. Got {jobs!r}.")
    settings = ComplexitySettings(timeout=float(timeout), measure=_measure)
    outcomes = compute_outcomes(list(zip(texts, feature_lists)), settings, jobs=int(jobs), cache=cache,
                        progress=progress, memory_limit=memory_limit, scheduler=scheduler,
                        retry_timeouts=retry_timeouts)
    table = outcomes_table(outcomes, index)
    computed = {pair for pair, outcome in zip(zip(texts, feature_lists), outcomes)
                if not outcome.from_cache and isinstance(pair[0], str)}
    table.attrs["cache"] = {"rows": len(outcomes), "from_cache": sum(o.from_cache for o in outcomes),
                            "computed": len(computed)}
    return table


def outcomes_table(outcomes: Sequence[_Outcome], index):
    """The outcomes as complexity_table's DataFrame (COLUMNS), one row per index entry."""
    import pandas as pd

    components = np.array([o.components for o in outcomes], dtype=float)
    return pd.DataFrame(
        {
            "components": components,
            "simplicity": simplicity_from_components(components),
            "simplified": [o.simplified for o in outcomes],
            "status": [o.status for o in outcomes],
            "reason": [o.reason for o in outcomes],
            "seconds": np.array([o.seconds for o in outcomes], dtype=float),
            "features_used": [o.features_used for o in outcomes],
        },
        index=index,
        columns=list(COLUMNS),
    )


def open_complexity_cache(cache) -> tuple[_cache.ComplexityCache | None, bool]:
    """The cache to use and whether we opened it (and must close it)."""
    if cache is False:
        return None, False
    if isinstance(cache, _cache.ComplexityCache):
        return cache, False
    if cache is None or cache is True:
        store = _cache.ComplexityCache()
    else:
        store = _cache.ComplexityCache(cache)
    return store, True


def _worker_pool(settings: ComplexitySettings, *, processes: int, memory_limit, scheduler):
    """Local worker processes, or a Dask cluster when a scheduler is given or configured."""
    if scheduler is not False:
        resolved = resolve_scheduler(scheduler)
        if resolved is not None:
            return DaskWorkerPool(_timed_complexity_task, scheduler=resolved, time_limit=settings.hard_limit,
                                  memory_limit=memory_limit, warm_up=warm_up_worker)
    return WorkerPool(_timed_complexity_task, processes=processes, time_limit=settings.hard_limit,
                      memory_limit=memory_limit, keep_spares=True, warm_up=warm_up_worker)


def warm_up_worker() -> None:
    """Run once by each new worker before its first task: sympy's lazy imports and first-call set-up (about
    0.1 s of CPU) would otherwise count against the first model's time limit, and only where a worker is new."""
    expression = parse_model("exp(x1)/(x2 + 1) + log(x1**2) + sin(x1)*cos(x2) + sqrt(x1) + 0.5*x1*x2")
    round_exactly(sympy.simplify(expression))
    count_components(round_floats(expression))
    bool(expression.is_constant(simplify=False))


def compute_outcomes(pairs, settings: ComplexitySettings, *, jobs: int, cache, progress, memory_limit,
             scheduler=False, retry_timeouts: bool = False) -> list[_Outcome]:
    """Outcomes for (model, features) pairs: cache, then workers; each distinct pair once."""
    rows_of: dict[tuple, list[int]] = {}
    for row, pair in enumerate(pairs):
        rows_of.setdefault(pair, []).append(row)
    results: dict[tuple, _Outcome] = {}
    counts: Counter = Counter()
    done = 0
    total = len(pairs)

    def record(pair, outcome: _Outcome) -> None:
        nonlocal done
        results[pair] = outcome
        done += len(rows_of[pair])
        counts[outcome.status] += len(rows_of[pair])

    for pair in rows_of:
        if pair[0] is None:
            record(pair, _Outcome("parse_error", math.nan, "", "empty model", "", 0.0, False))
        elif isinstance(pair[0], _NotAString):
            record(pair, _Outcome("rejected", math.nan, "", f"The model is not a string "
                                  f"(got {pair[0].type_name}).", "", 0.0, False))

    store, owned = open_complexity_cache(cache)
    keys: dict[tuple, str] = {}
    pending_writes: list[tuple[str, dict]] = []
    try:
        if store is not None:
            identity = settings.cache_identity()
            keys = {pair: _cache.cache_key(pair[0], pair[1], identity) for pair in rows_of if pair not in results}
            try:
                found = store.get_many(keys.values(), limit=settings.timeout,
                                       retry_timeouts=True if retry_timeouts else None)
            except (sqlite3.Error, OSError) as exc:
                warnings.warn(f"The complexity cache {store.path} cannot be read ({exc}); continuing "
                              f"without it.", RuntimeWarning, stacklevel=3)
                store, found = None, {}
            for pair, key in keys.items():
                entry = found.get(key)
                if entry is not None:
                    record(pair, _Outcome(entry["status"], entry["components"], entry["simplified"],
                                          entry["reason"], entry["features_used"], entry["seconds"], False,
                                          entry["cpu_seconds"], True))
        if progress is not None:
            progress(done, total, dict(counts))

        missing = [pair for pair in rows_of if pair not in results]
        if missing:
            with _worker_pool(settings, processes=min(jobs, len(missing)), memory_limit=memory_limit,
                              scheduler=scheduler) as pool:
                for pair in missing:
                    pool.submit((pair, None, 0.0), pair[0], pair[1], settings)
                for result in pool.results():
                    pair, first_failure, first_seconds = result.task_id
                    if first_failure is None and result.outcome in ("killed", "died"):
                        # Count the unsimplified expression in a fresh worker, as after a soft timeout.
                        pool.submit((pair, result, result.seconds), pair[0], pair[1],
                                    replace(settings, simplify=False))
                        continue
                    outcome = _outcome_of(result, first_failure, first_seconds, settings)
                    record(pair, outcome)
                    # A timeout is kept with its limit, also a hard kill (the CPU-time limit plus a grace:
                    # work stuck where no signal reaches, e.g. in C): recomputing it would cost the
                    # whole limit on every scoring and every dashboard kernel. The cache
                    # answers it under the same or a shorter limit only; --retry-timeouts computes it again.
                    if store is not None and (outcome.cacheable or outcome.status == "timeout"):
                        pending_writes.append((keys[pair], {"model": pair[0], **outcome._asdict()}))
                        if len(pending_writes) >= 200:
                            write_cached(store, pending_writes, limit=settings.timeout)
                    if progress is not None:
                        progress(done, total, dict(counts))
    finally:
        if store is not None:
            write_cached(store, pending_writes, limit=settings.timeout)
            if owned:
                store.close()
    return [results[pair] for pair in pairs]


def _outcome_of(result, first_failure, first_seconds: float, settings: ComplexitySettings) -> _Outcome:
    seconds = result.seconds + first_seconds
    if result.outcome == "returned":
        outcome = _Outcome(*result.value[:5], seconds, result.value[5], result.value[6])
    elif result.outcome == "raised":
        outcome = _Outcome("simplify_error", math.nan, "", _clip(f"Internal error in the worker: {result.error}"),
                           "", seconds, False)
    else:
        outcome = _Outcome("simplify_error", math.nan, "", f"The worker failed again: {result.error}.",
                           "", seconds, False)
    if first_failure is None:
        return outcome
    if first_failure.outcome == "killed":
        status = "timeout"
        what = (f"The model used {settings.hard_limit:g} s of CPU time without finishing (time limit "
                f"{settings.timeout:g} s) and its worker was killed")
    else:
        status = "simplify_error"
        what = f"The worker processing the model died ({first_failure.error.removeprefix('the worker process died ')})"
    if outcome.status == "ok":
        return _Outcome(status, outcome.components, outcome.simplified,
                        f"{what}; components counted on the unsimplified expression.",
                        outcome.features_used, seconds, False)
    if outcome.status in ("rejected", "parse_error"):
        return outcome._replace(seconds=seconds)
    return _Outcome(status, math.nan, "", _clip(f"{what}; counting the unsimplified expression failed too: "
                                                 f"{outcome.reason}"), "", seconds, False)


def write_cached(store, pending: list, *, limit: float | None = None, kind: str = "complexity") -> None:
    """Write the pending rows to the cache and empty the list; a cache that cannot be written is a warning."""
    if not pending:
        return
    try:
        store.put_many(pending, kind=kind, limit=limit)
    except (sqlite3.Error, OSError) as exc:
        warnings.warn(f"Could not write to the complexity cache {store.path} ({exc}).", RuntimeWarning,
                      stacklevel=4)
    pending.clear()
