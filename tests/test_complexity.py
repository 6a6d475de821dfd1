"""SRBench 2022 complexity: exactness against the organisers' procedure, time
limits, parallel and cached runs, and the `srdash complexity` command.

The reference implementation below copies the organisers' code
(competition-2022/experiment/metrics/evaluation.py of cavalab/srbench). It uses
sympy.parse_expr, which evaluates Python code: only on the trusted strings of
this file.
"""

from __future__ import annotations

import signal
import threading

import numpy as np
import pandas as pd
import pytest
import sympy
from click.testing import CliRunner
from sympy.parsing.sympy_parser import parse_expr

import srdash.expressions as expressions
from srdash.expressions import complexity, equivalence
from srdash.expressions._timelimit import WorkerPool
from srdash.cache import ComplexityCache, default_cache_path
from srdash.cli import main as cli_main
from srdash.expressions import COLUMNS, STATUSES, complexity_table

FEATURES = ["x1", "x2", "x3"]

# The four exact-formula ground truths of the 2022 synthetic track.
GROUND_TRUTHS = [
    "0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1",
    "0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1 + log(30*x3**2)",
    "(0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1)/(1 + 0.2*(x1**2 + x2**2))",
    "(5.5*sin(x1 + x2) + 0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1)/(1 + 0.2*(x1**2 + x2**2))",
]

# Realistic SR outputs: polynomials with float constants, tiny constants that round
# to 0, constants like 1.0004 that round to 1.0, divisions, nested functions.
CORPUS = GROUND_TRUTHS + [
    "x1 + x2",
    "3.2*x1**2 - 0.0004*x2 + 1.0004",
    "sin(x1)*exp(-0.5*x2) + 0.25",
    "sqrt(abs(x1*x2)) + log(x3 + 1.5)",
    "(x1 - x2)/(x1 + x2 + 0.001)",
    "2.71828*exp(x1) - 1.41421*sqrt(x2**2 + 1)",
    "x1*(x1*(x1*0.3 + 0.2) - 1.1) + 4.0",
    "cos(2.0*x1 + 0.5)*sin(x2 - 1.0)",
    "log(exp(x1)) + x2/x2",
    "tanh(0.8*x1 - 0.3*x2) * 12.5",
    "0.0001*x1 + 0.00049*x2 + 1.0005*x3",
    "x1**2 + 2*x1*x2 + x2**2",
    "(x1 + x2)**2 - (x1 - x2)**2",
    "exp(sin(x1)) / (1 + exp(-x2))",
    "atan(x1/x2) + asin(0.5*tanh(x3))",
    "1.0*x1 + 0.0*x2 + -0.0*x3",
    "Max(x1, 0.0) + Min(x2, 1.5)",
    "sign(x1)*x2**2",
    "x1/(1.0 + x2/(1.0 + x3/(1.0 + x1)))",
    "-3.00049*x1 + 2.00051*x2 - 0.99999",
    "sin(x1)**2 + cos(x1)**2 + x2",
    "log(x1**2 * x2**2) - 2*log(abs(x1))",
    "sqrt(x1)*sqrt(x1) + 0.123456789*x2",
    "x1*x2*x3*0.5 + x1*x2*0.25 + x1*0.125 + 0.0625",
    "pow(x1, 2.0) + pow(x2, 0.5)",
    "1/(1 + exp(-(0.7*x1 - 1.3*x2 + 0.2)))",
    "x1**3 - 2.5e-5*x2**2 + 1e3*x3",
    "cosh(x1) - sinh(x1) + exp(-x1)",
    "(x1**2 - 1)/(x1 - 1)",
    "0.5*(x1 + abs(x1))",
    "-(-(-(x1)))",
    "((((x1 + 0.1)*1.1 + 0.2)*1.2 + 0.3)*1.3 + 0.4)",
    "exp(log(x1 + 2.0)*1.5)",
    "x1 - x1 + 5.0009",
    "2.0*x1*(x2 + 3.5) - 7.0*x1",
    "log(x1, 10) + log(x2)",
    "x1**0.5 * x2**-1.5",
    "(sin(x1)+cos(x2))**3 - 0.333*(x3 - 1.0)**2",
    "9.81*x1*x2**2/(2.0*x3)",
    "x1*x2/(x1 + x2)",
    "exp(-x1**2/2.0)/sqrt(2*pi)",
    "x1 + 1.23456e-4*x2**2 + 3.4567",
    "0.9994*x1 + 0.0006",
    "(x1*0.25 + x2*0.25 + x3*0.25 + 0.25)*4",
    "tanh(tanh(tanh(x1*1.5)))*2.0 - 0.0001",
]

# simplify(x) takes well over a minute on this model (measured): a realistic hang.
SLOW_MODEL = "(x1 + 0.5)**7*(x2 - 1.3)**5/(x1*x2 + 0.7)**3 + sin(x1*x2)**3*cos(x1 - x2)**2"


@pytest.fixture(autouse=True)
def _local_workers(monkeypatch):
    monkeypatch.delenv("SRDASH_SCHEDULER", raising=False)


# --------------------------------------------------------------------------- the organisers' procedure


class _SimplifyTimeOut(Exception):
    pass


def _alarm(signum, frame):
    raise _SimplifyTimeOut


def round_floats(ex1, dec=3):
    ex2 = ex1
    for a in sympy.preorder_traversal(ex1):
        if isinstance(a, sympy.Float):
            if abs(a) < 10 ** (-dec):
                ex2 = ex2.subs(a, sympy.Integer(0))
            else:
                ex2 = ex2.subs(a, round(a, dec))
    return ex2


def reference_components(model: str, feature_names=FEATURES, maxtime: int = 10) -> int:
    """get_symbolic_model + the component count of simplicity(), as in evaluation.py."""
    local_dict = {f: sympy.Symbol(f) for f in feature_names}
    sp_model = parse_expr(model, local_dict=local_dict)
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(maxtime)
    try:
        sp_model = sympy.simplify(sp_model)
    except _SimplifyTimeOut:
        pass
    except Exception:  # noqa: BLE001 - as the organisers' bare except
        pass
    signal.alarm(0)
    sp_model = round_floats(sp_model)
    num_components = 0
    for _ in sympy.preorder_traversal(sp_model):
        num_components += 1
    return num_components


@pytest.fixture(scope="module")
def reference():
    return {model: reference_components(model) for model in CORPUS}


@pytest.fixture(scope="module")
def corpus_table():
    return complexity_table(CORPUS, features=FEATURES, jobs=1, cache=False)


def test_corpus_is_large_enough():
    assert len(set(CORPUS)) == len(CORPUS) >= 40


def test_components_equal_the_organisers_procedure(corpus_table, reference):
    assert (corpus_table["status"] == "ok").all(), corpus_table.loc[corpus_table["status"] != "ok", "reason"]
    expected = [reference[model] for model in CORPUS]
    assert corpus_table["components"].tolist() == expected
    # simplicity exactly as the organisers computed it from the count
    np.testing.assert_array_equal(corpus_table["simplicity"],
                                  [-np.round(np.log(c) / np.log(5), 1) + 0.0 for c in expected])


def test_parse_model_builds_what_parse_expr_builds_on_the_corpus():
    local_dict = {f: sympy.Symbol(f) for f in FEATURES}
    for model in CORPUS:
        ours = expressions.parse_model(model, features=FEATURES)
        assert sympy.srepr(ours) == sympy.srepr(parse_expr(model, local_dict=local_dict)), model


HAND_COUNTED = [
    ("x1 + x2", 3, "x1 + x2"),  # Add, x1, x2
    ("x1", 1, "x1"),
    ("exp(x1)", 2, "exp(x1)"),  # exp, x1
    ("x1/x2", 5, "x1/x2"),  # Mul, x1, Pow, x2, -1: a division is a power -1
    ("x1/x1 + 0.0004*x2", 1, "1"),  # x1/x1 = 1 when parsed; 0.0004 < 0.001 rounds to 0
    # 3.2*x1**2 + 1.0 (0.0004*x2 rounds to 0, 1.0004 to 1.0):
    # Add, 1.0, Mul, 3.2, Pow, x1, 2
    ("3.2*x1**2 - 0.0004*x2 + 1.0004", 7, "3.2*x1**2 + 1.0"),
    ("sin(x1)**2 + cos(x1)**2 + x2", 3, "x2 + 1"),  # simplify: Add, 1, x2
    ("(x1 + x2)**2 - (x1 - x2)**2", 4, "4*x1*x2"),  # Mul, 4, x1, x2
    # The 'easier' ground truth: Add, 1, Mul(0.4, x1, x2) = 4, Mul(-1.5, x1) = 3, Mul(2.5, x2) = 3
    # -> 1 + 1 + 4 + 3 + 3 = 12, simplicity round(-log5(12), 1) = round(-1.544, 1) = -1.5
    ("0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1", 12, "0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1"),
]


@pytest.fixture(scope="module")
def hand_counted_table():
    """The hand-counted models that are not in the corpus, computed together (one pool, not one per model)."""
    models = [model for model, _, _ in HAND_COUNTED if model not in CORPUS]
    return complexity_table(models, features=FEATURES, cache=False).set_axis(models)


@pytest.mark.parametrize("model, components, simplified", HAND_COUNTED)
def test_hand_counted_components(corpus_table, hand_counted_table, model, components, simplified):
    if model in CORPUS:
        row = corpus_table.iloc[CORPUS.index(model)]
    else:
        row = hand_counted_table.loc[model]
    assert row["components"] == components
    assert row["simplified"] == simplified
    assert row["simplicity"] == -np.round(np.log(components) / np.log(5), 1) + 0.0


def test_two_jobs_give_the_same_table(corpus_table):
    parallel = complexity_table(CORPUS, features=FEATURES, jobs=2, cache=False)
    pd.testing.assert_frame_equal(parallel.drop(columns="seconds"), corpus_table.drop(columns="seconds"))


# --------------------------------------------------------------------------- statuses, shape


def test_every_failure_is_per_model(tmp_path):
    target = tmp_path / "pwned"
    models = pd.Series(
        ["x1 + x2", None, np.nan, "", "x1 +", f"__import__('os').system('touch {target}')",
         "x1 + x9", 3.5, ["x1"], "9**9**9"],
        index=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
    )
    table = complexity_table(models, features=FEATURES, cache=False)
    assert list(table.columns) == list(COLUMNS)
    assert table.index.tolist() == models.index.tolist()
    assert table["status"].tolist() == ["ok", "parse_error", "parse_error", "parse_error", "parse_error",
                                        "rejected", "rejected", "ok", "rejected", "rejected"]
    assert set(table["status"]) <= set(STATUSES)
    assert table.loc[11, "reason"] == table.loc[12, "reason"] == table.loc[13, "reason"] == "empty model"
    assert table.loc[14, "reason"] == "The model is not valid syntax: invalid syntax at the end of the model."
    assert table.loc[15, "reason"].startswith("Attribute access ('.system')")
    assert table.loc[16, "reason"] == "Unknown variable 'x9'. The features of this dataset are: x1, x2, x3."
    assert table.loc[17, "components"] == 1  # a constant model read as a number by pandas
    assert table.loc[18, "reason"] == "The model is not a string (got list)."
    assert table.loc[19, "reason"].startswith("The power 9**387420489 would be a number")
    failed = table["status"].isin(["rejected", "parse_error"])
    assert table.loc[failed, "components"].isna().all()
    assert table.loc[failed, "simplicity"].isna().all()
    assert (table.loc[failed, "simplified"] == "").all()
    assert (table.loc[~failed, "reason"] == "").all()
    assert not target.exists()


def test_features_per_model_and_features_used():
    table = complexity_table(
        ["x1*x2/x2 + 0.0001*x3", "x1 + x3", "a + b"],
        features=[["x1", "x2", "x3"], ["x1", "x2"], None],
        cache=False,
    )
    # x2 cancels and 0.0001*x3 rounds to 0: only x1 is used.
    assert table["features_used"].tolist() == ["x1", "", "a b"]
    assert table["status"].tolist() == ["ok", "rejected", "ok"]
    assert table.loc[1, "reason"] == "Unknown variable 'x3'. The features of this dataset are: x1, x2."


def test_space_separated_feature_strings_are_refused():
    with pytest.raises(TypeError, match=r"features looks like one space-separated string per model; give one "
                                        r"collection of names per model instead"):
        complexity_table(["x1", "x2"], features=["x1 x2", "x1 x2"], cache=False)


def test_identical_models_are_computed_once(monkeypatch):
    submitted = []

    class CountingPool(WorkerPool):
        def submit(self, task_id, *args):
            submitted.append(args[:2])
            super().submit(task_id, *args)

    monkeypatch.setattr(complexity, "WorkerPool", CountingPool)
    monkeypatch.setattr(equivalence, "WorkerPool", CountingPool)
    table = complexity_table(["x1 + x2", "x1 + x2", "x2 + x1", "x1 + x2"],
                             features=[["x1", "x2"], ["x2", "x1", "x1"], ["x1", "x2"], None], cache=False)
    # (model, sorted features): ("x1 + x2", (x1, x2)) twice, ("x2 + x1", ...), ("x1 + x2", None)
    assert sorted(submitted, key=str) == sorted([("x1 + x2", ("x1", "x2")), ("x2 + x1", ("x1", "x2")),
                                                 ("x1 + x2", None)], key=str)
    assert table["components"].tolist() == [3.0] * 4


def test_progress_reports_rows_and_statuses():
    calls = []
    complexity_table(["x1", "x1", "sin(", None], cache=False,
                     progress=lambda done, total, counts: calls.append((done, total, counts)))
    assert calls[0] == (1, 4, {"parse_error": 1})  # the missing model is known at once
    assert calls[-1] == (4, 4, {"parse_error": 2, "ok": 2})
    assert [done for done, _, _ in calls] == sorted(done for done, _, _ in calls)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"timeout": 0}, r"The 'timeout' option must be a positive number of seconds\. Got 0\."),
        ({"jobs": 0}, r"The 'jobs' option must be a positive integer\. Got 0\."),
        ({"jobs": 1.5}, r"The 'jobs' option must be a positive integer\. Got 1\.5\."),
        ({"features": [["x1"], ["x2"]]}, r"features has 2 entries but there are 1 models"),
    ],
)
def test_invalid_options(options, message):
    with pytest.raises(ValueError, match=message):
        complexity_table(["x1"], cache=False, **options)


def test_models_as_a_single_string_is_a_type_error():
    with pytest.raises(TypeError, match=r"models must be a sequence of model strings, not a single string"):
        complexity_table("x1 + x2", cache=False)


def test_no_models():
    table = complexity_table([], cache=False)
    assert list(table.columns) == list(COLUMNS)
    assert len(table) == 0


# --------------------------------------------------------------------------- time limits


def test_a_hanging_simplify_times_out_and_the_others_are_computed():
    models = [SLOW_MODEL, "x1 + x2", "-" * 300 + "x1", " + ".join(f"x{i}" for i in range(2000)),
              "x1**10**10", "9**9**9", "x1 + " * 5000 + "x1"]
    # No bound on the call's wall time (a loaded machine stretches it): the slow model's stop is what bounds it,
    # and its reason says which limit stopped it.
    table = complexity_table(models, timeout=1.0, jobs=2, cache=False)
    slow = table.iloc[0]
    assert slow["status"] == "timeout"
    # Stopped by its CPU-time limit (1 s of CPU), or, on a machine so loaded that the worker got less than
    # 1 s of CPU in 5 s, by the wall-clock backstop: a timeout either way, counted the same way.
    assert slow["reason"] in (
        "sympy.simplify did not finish within 1 s; components counted on the unsimplified expression "
        "(as SRBench 2022 did).",
        "The model was still being processed 5 s after it started (CPU-time limit 1 s) and its worker was "
        "killed; components counted on the unsimplified expression.")
    # The unsimplified, rounded expression is what SRBench counted after its timeout.
    unsimplified = round_floats(expressions.parse_model(SLOW_MODEL))
    assert slow["components"] == sum(1 for _ in sympy.preorder_traversal(unsimplified))
    assert table["status"].tolist()[1:3] == ["ok", "ok"]
    assert table["components"].tolist()[1:3] == [3.0, 1.0]  # x1 + x2; an even number of minus signs: x1
    assert table.iloc[3]["status"] in ("ok", "timeout")  # 2000 terms: computed or timed out, not a crash
    assert table.iloc[3]["components"] == 2001  # Add and 2000 symbols either way
    assert table["status"].tolist()[4:] == ["rejected", "rejected", "rejected"]
    assert "an integer power of 10,000,000,000" in table.iloc[4]["reason"]
    assert table.iloc[6]["reason"] == "The model is 25,002 characters long; the limit is 20,000."


def _blocking_simplify(expression):
    """Stands for sympy work stuck in C code: it uses CPU time, and the soft limit (SIGPROF) cannot stop it."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM, signal.SIGPROF})
    while True:
        pass


def _hard_kill_run():
    settings = complexity.ComplexitySettings(timeout=0.5, simplifier=_blocking_simplify)
    pairs = [("x1 + x2", None), ("x1*x2*x3", None)]
    return complexity.outcomes_table(
        complexity.compute_outcomes(pairs, settings, jobs=2, cache=False, progress=None,
                             memory_limit=complexity.DEFAULT_MEMORY_LIMIT),
        pd.RangeIndex(2))


def _check_hard_kill(table):
    assert table["status"].tolist() == ["timeout", "timeout"]
    # counted on the unsimplified expression by a fresh worker: Add, x1, x2 and Mul, x1, x2, x3
    assert table["components"].tolist() == [3.0, 4.0]
    # hard limit = timeout + grace = 0.5 + max(2, 0.5 * 0.5) = 2.5 s of the task's CPU time (at least as much
    # wall-clock time)
    assert table.loc[0, "reason"] == ("The model used 2.5 s of CPU time without finishing (time limit 0.5 s) and "
                                      "its worker was killed; components counted on the unsimplified expression.")
    assert (table["seconds"] >= 2.5).all()


def _hungry_simplify(expression):
    """Stands for a simplification that needs more memory than the worker may use."""
    bytearray(2 * 2**30)
    return expression


def test_a_simplification_over_the_memory_limit_is_marked(tmp_path):
    settings = complexity.ComplexitySettings(timeout=30.0, simplifier=_hungry_simplify)
    store = ComplexityCache(tmp_path)
    outcomes = complexity.compute_outcomes([("x1 + x2", None)], settings, jobs=1, cache=store, progress=None,
                                    memory_limit=256 * 2**20)
    assert outcomes[0].status == "simplify_error"
    assert outcomes[0].components == 3.0  # the unsimplified expression, as after any simplify error
    assert outcomes[0].reason == ("sympy.simplify ran out of memory (worker memory limit); components counted "
                                  "on the unsimplified expression.")
    assert len(store) == 0  # depends on the limit: not cached
    store.close()


def _in_a_thread(work):
    """``work()``, run in a thread that is not the main one; its value."""
    results = {}
    thread = threading.Thread(target=lambda: results.update(value=work()))
    thread.start()
    thread.join(600)  # a bound against a hang only: CPU-time limits take longer in wall time on a busy machine
    assert not thread.is_alive(), "the limits did not stop the work within 600 s"
    return results["value"]


@pytest.fixture(scope="module")
def slow_model_from_a_thread(tmp_path_factory):
    """The hanging model and a quick one under a 1 s limit, computed from a thread that is not the main one into
    a new cache: (table, cache path). The soft limit from a thread and the caching of a timeout are checked on
    this one computation (the slow model costs a second of CPU time each time)."""
    path = tmp_path_factory.mktemp("slow-model") / "cache.sqlite"
    with pytest.MonkeyPatch.context() as patch:   # _local_workers, for this module-scoped fixture
        patch.delenv("SRDASH_SCHEDULER", raising=False)
        table = _in_a_thread(lambda: complexity_table([SLOW_MODEL, "x1 + x2"], timeout=1.0, jobs=1, cache=path))
    return table, path


def test_the_limits_hold_when_called_from_a_thread(slow_model_from_a_thread):
    # The hard limit counts the task's CPU time (a busy machine gives it slowly): the table shows each task
    # killed after 2.5 s of CPU time, from a thread that is not the main one (the hard kill is run once, here).
    soft, _ = slow_model_from_a_thread
    assert soft["status"].tolist() == ["timeout", "ok"]
    _check_hard_kill(_in_a_thread(_hard_kill_run))


# --------------------------------------------------------------------------- cache


class _NoWorkers:
    def __init__(self, *args, **kwargs):
        raise AssertionError("a worker pool was started")


def test_cached_results_equal_computed_ones_and_need_no_worker(tmp_path, monkeypatch):
    path = tmp_path / "cache.sqlite"
    models = CORPUS[:6] + ["x1 +", "open('f')", CORPUS[0]]
    cold = complexity_table(models, features=FEATURES, cache=path)
    assert path.exists()
    with ComplexityCache(path) as store:
        assert len(store) == 8  # distinct (model, features) pairs, parse errors and rejections included
    monkeypatch.setattr(complexity, "WorkerPool", _NoWorkers)
    monkeypatch.setattr(equivalence, "WorkerPool", _NoWorkers)
    warm = complexity_table(models, features=FEATURES, cache=path)
    pd.testing.assert_frame_equal(warm, cold)  # `seconds` too: the time it took when computed
    # Other features: not the same computation, not found.
    with pytest.raises(AssertionError, match="a worker pool was started"):
        complexity_table(models[:1], features=["x1", "x2", "x3", "x4"], cache=path)
    # A longer limit: a result finished under 10 s holds (limits: tests/test_cache.py).
    assert complexity_table(models[:1], features=FEATURES, timeout=20.0, cache=path).attrs["cache"]["computed"] == 0


def test_timeouts_are_cached_with_their_limit(slow_model_from_a_thread):
    table, path = slow_model_from_a_thread    # computed with timeout=1.0 and cache=path
    assert table["status"].tolist() == ["timeout", "ok"]
    with ComplexityCache(path) as store:
        assert len(store) == 2  # reuse and retry rules: tests/test_cache.py


def test_default_cache_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("SRDASH_CACHE_DIR", str(tmp_path / "srdash-cache"))
    assert default_cache_path() == tmp_path / "srdash-cache" / "complexity.sqlite"
    complexity_table(["x1 + x2"])  # cache=None: the default cache
    with ComplexityCache() as store:
        assert len(store) == 1


def test_cache_in_a_directory_and_as_an_object(tmp_path):
    complexity_table(["x1 + x2"], cache=tmp_path)
    store = ComplexityCache(tmp_path)
    assert store.path == tmp_path / "complexity.sqlite"
    assert len(store) == 1
    table = complexity_table(["x1 + x2", "x1*x2"], cache=store)
    assert len(store) == 2  # the object stays open and usable
    store.close()
    assert table["components"].tolist() == [3.0, 3.0]


def test_an_unusable_cache_warns_and_scoring_goes_on(tmp_path):
    path = tmp_path / "not-a-database.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.warns(RuntimeWarning, match=r"The complexity cache .*not-a-database\.sqlite cannot be read"):
        table = complexity_table(["x1 + x2"], cache=path)
    assert table["components"].tolist() == [3.0]


# --------------------------------------------------------------------------- CLI


def _write_models(path, rows):
    pd.DataFrame(rows).to_csv(path, index=False)


def test_cli_writes_input_columns_plus_results_in_row_order(tmp_path):
    source = tmp_path / "models.csv"
    _write_models(source, {
        "method": ["b", "a", "c", "d", "e"],
        "model": ["x1*x2 + 0.0001", "x1 + x2", "x1 + x9", "", "x1 + x2"],
        "features": ["x1 x2", "x1 x2", "x1 x2", "", ""],
    })
    output = tmp_path / "out.csv"
    result = CliRunner().invoke(cli_main, ["complexity", str(source), "-o", str(output), "--no-cache",
                                           "--jobs", "1", "--timeout", "5"])
    assert result.exit_code == 0, result.output
    written = pd.read_csv(output, keep_default_na=False)
    assert list(written.columns) == ["method", "model", "features", "components", "simplicity", "simplified",
                                     "status", "reason", "seconds"]
    assert written["method"].tolist() == ["b", "a", "c", "d", "e"]
    assert written["status"].tolist() == ["ok", "ok", "rejected", "parse_error", "ok"]
    assert written["components"].tolist() == ["3.0", "3.0", "", "", "3.0"]  # x1*x2 (0.0001 rounds to 0): Mul, x1, x2
    assert written["simplified"].tolist()[:2] == ["x1*x2", "x1 + x2"]
    assert written.loc[2, "reason"] == "Unknown variable 'x9'. The features of this dataset are: x1, x2."
    assert "Wrote 5 rows to" in result.output


def test_cli_missing_model_column_names_the_columns(tmp_path):
    source = tmp_path / "models.csv"
    _write_models(source, {"method": ["a"], "formula": ["x1"]})
    result = CliRunner().invoke(cli_main, ["complexity", str(source), "-o", str(tmp_path / "out.csv")])
    assert result.exit_code == 1
    assert (f"Error: {source} has no 'model' column (one model string per row). "
            f"Columns present: 'method', 'formula'.") in result.output
    assert not (tmp_path / "out.csv").exists()


def test_cli_cache_and_no_cache_are_exclusive(tmp_path):
    source = tmp_path / "models.csv"
    _write_models(source, {"model": ["x1"]})
    result = CliRunner().invoke(cli_main, ["complexity", str(source), "-o", str(tmp_path / "o.csv"),
                                           "--cache", str(tmp_path / "c.sqlite"), "--no-cache"])
    assert result.exit_code == 2
    assert "Give either --cache PATH or --no-cache, not both." in result.output


def test_cli_second_run_uses_the_cache(tmp_path, monkeypatch):
    source = tmp_path / "models.csv"
    _write_models(source, {"model": ["x1 + x2", "sin(x1)**2 + cos(x1)**2"]})
    arguments = ["complexity", str(source), "--cache", str(tmp_path / "c.sqlite"), "--jobs", "1"]
    first = CliRunner().invoke(cli_main, arguments + ["-o", str(tmp_path / "first.csv")])
    assert first.exit_code == 0, first.output
    monkeypatch.setattr(complexity, "WorkerPool", _NoWorkers)
    monkeypatch.setattr(equivalence, "WorkerPool", _NoWorkers)
    second = CliRunner().invoke(cli_main, arguments + ["-o", str(tmp_path / "second.csv")])
    assert second.exit_code == 0, second.output
    assert (tmp_path / "first.csv").read_text() == (tmp_path / "second.csv").read_text()


def test_cli_help_explains_inputs_outputs_and_defaults():
    result = CliRunner().invoke(cli_main, ["complexity", "--help"])
    assert result.exit_code == 0
    for text in ("column `model`", "column `features`", "components", "simplicity", "status",
                 "[default: 10.0", "all cores", "$SRDASH_CACHE_DIR"):
        assert text in " ".join(result.output.split()), text

