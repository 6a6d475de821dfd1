"""A model's values and R² are the same to the last bit in any process, thread, row order, model order
and call history (issue 37, item 1).

``sympy.lambdify(..., dummify=True)`` named the variables ``Dummy_<n>`` from sympy's process-wide counter
and its printer ordered a sum's terms by those names: when the counter crossed 100, 1000, ... the same
terms were added in another order. Every comparison here is exact (``==`` or ``float.hex``), never approx.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sympy

from srdash.expressions import ALLOWED_FUNCTIONS, evaluate_model, parse_model
from srdash.judging.evaluation import exact_r2_score, exact_sum, score_predictions
from srdash.judging.ranking import judge
from srdash.judging.rules import load_rules
from srdash.judging.submitted import score_submitted_models

ROOT = Path(__file__).resolve().parents[1]
REALDATA = ROOT.parent / "shared" / "realdata" / "srbench2023"


def many_term_model(seed: int = 2023, terms: int = 150) -> str:
    """150 products of two of x0..x11 with 12-decimal coefficients: the order of the sum shows in the last bits."""
    rng = np.random.default_rng(seed)
    parts = []
    for _ in range(terms):
        a, b = rng.integers(0, 12, 2)
        parts.append(f"{rng.uniform(-2000, 2000):.12f}*x{a}*x{b}")
    return " + ".join(parts)


def synthetic_data(rows: int = 500, seed: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({f"x{i}": rng.uniform(-1, 1, rows) for i in range(12)})
    frame["y"] = 3.0 * frame["x0"] * frame["x1"] - frame["x2"] + rng.normal(0, 0.1, rows)
    return frame


def _columns(frame: pd.DataFrame) -> dict:
    return {c: frame[c].to_numpy() for c in frame.columns if c != "y"}


def _dummy_counter_at(target: int) -> None:
    """Make sympy Dummy symbols until the process-wide counter reaches ``target``."""
    while sympy.Dummy._count < target:
        sympy.Dummy()


def test_values_do_not_follow_the_dummy_counter():
    frame = synthetic_data()
    text = many_term_model()
    expression = parse_model(text)
    symbols = sorted(expression.free_symbols, key=lambda s: s.name)
    columns = _columns(frame)
    old, new = set(), set()
    # positions on both sides of 100, 1,000 and 10,000 (and far beyond), in one process. lambdify makes 12 Dummy
    # symbols per call here (one per variable), so the counter at 16 before a boundary has them all below it, at
    # 4 before crosses it among the 12, at 8 after has them all past it. (The counter only goes up: the offsets
    # -16..1 this loop had gave these three positions, then 15 more calls at +20..+188, past it again.)
    for boundary in (100, 1_000, 10_000, 30_000):
        for offset in (-16, -4, 8):
            _dummy_counter_at(max(sympy.Dummy._count, boundary + offset))
            legacy = sympy.lambdify(symbols, expression, modules="numpy", dummify=True)
            old.add(legacy(*[columns[s.name] for s in symbols]).tobytes())
            new.add(evaluate_model(text, columns).tobytes())
    # the model is one the old code got wrong (sympy 1.14: 4 different sums) ...
    assert len(old) > 1
    # ... and srdash's values are one and the same
    assert len(new) == 1


_SCRIPT = r"""
import json, sys
from concurrent.futures import ThreadPoolExecutor
import numpy as np, pandas as pd, sympy
sys.path.insert(0, sys.argv[1] + "/tests")  # by basename: site-packages may hold a 'tests' package
from test_deterministic_evaluation import many_term_model, synthetic_data, _columns
from srdash.expressions import evaluate_model
from srdash.judging.evaluation import exact_r2_score
from srdash.judging.submitted import score_submitted_models

dummies, order, threads, realdata = int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
for _ in range(dummies):
    sympy.Dummy()
frame = synthetic_data()
texts = [many_term_model(seed) for seed in range(4)] + ["x0*x1 - x2", "sin(x3)*exp(x4) + log(x5**2)"]
tasks = [("synthetic", text) for text in texts]
if realdata:
    models = pd.read_csv(realdata + "/track1_models.csv")
    datasets = {name: pd.read_csv(f"{realdata}/{name}.csv.gz") for name in sorted(models["dataset"].unique())}
    tasks += [("2023", row) for row in models.itertuples(index=False)]
if order == "reversed":
    tasks = tasks[::-1]

def run(task):
    kind, item = task
    if kind == "synthetic":
        values = evaluate_model(item, _columns(frame))
        return item, exact_r2_score(frame["y"].to_numpy(), values).hex()
    scored = score_submitted_models(pd.DataFrame([item._asdict()]), datasets)
    return f"{item.team}/{item.dataset}", float(scored["r2_test"].iloc[0]).hex()

if threads == 1:
    results = [run(task) for task in tasks]
else:
    with ThreadPoolExecutor(threads) as pool:
        results = list(pool.map(run, tasks))
print(json.dumps(dict(results), sort_keys=True))
"""


def _r2_in_a_fresh_process(dummies: int, order: str, threads: int) -> dict:
    realdata = str(REALDATA) if REALDATA.is_dir() else ""
    done = subprocess.run([sys.executable, "-c", _SCRIPT, str(ROOT), str(dummies), order, str(threads), realdata],
                          capture_output=True, text=True, check=False, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_r2_identical_in_processes_with_other_histories_orders_and_threads():
    # The 2023 models (when the real data is present) and synthetic many-term models, scored in two fresh
    # processes: nothing made first, models in order, one thread; 9,990 Dummy symbols made first (the counter
    # crosses 10,000 while the models are compiled), reversed order, four threads. (The counter's other
    # crossings, 100 and 1,000, are tested in one process above.)
    runs = [_r2_in_a_fresh_process(0, "forward", 1), _r2_in_a_fresh_process(9_990, "reversed", 4)]
    assert len(runs[0]) == 6 + (30 if REALDATA.is_dir() else 0)
    assert runs[1] == runs[0]
    # and the same as this process, whose history is that of the test session
    frame = synthetic_data()
    text = many_term_model(0)
    assert exact_r2_score(frame["y"].to_numpy(), evaluate_model(text, _columns(frame))).hex() == runs[0][text]


def test_two_teams_with_the_same_model_tie_whatever_is_scored_between_them():
    frame = synthetic_data()
    shared = many_term_model(11)
    between = [many_term_model(seed, terms=30) for seed in range(100, 120)]
    for first_dummies in (0, 985):
        _dummy_counter_at(sympy.Dummy._count + first_dummies)
        # the last team writes the same model without spaces: another string, evaluated on its own
        teams = ["first"] + [f"other{i}" for i in range(len(between))] + ["last"]
        models = pd.DataFrame({"team": teams, "dataset": "d1",
                               "model": [shared, *between, shared.replace(" ", "")]})
        table = score_submitted_models(models, {"d1": frame})
        r2 = table.set_index("method")["r2_test"]
        assert r2["first"].hex() == r2["last"].hex()
        points = judge(table, load_rules("srbench2023-track1")).per_dataset.set_index("method")
        assert points.loc["first", "accuracy_rank"] == points.loc["last", "accuracy_rank"]
        assert points.loc["first", "size_rank"] == points.loc["last", "size_rank"]


# -- row order: each row's value is computed elementwise; the sums are correctly rounded ----------------------

_EVERY_FUNCTION = [
    "sin(x1) + cos(x3) + tan(x3) + cot(x1) + sec(x1) + csc(x1)",
    "exp(x1) + log(x2) + ln(x2) + sqrt(x2) + x2**x1 + x1**3.7 + pow(x2, 0.3) + square(x3) + cube(x1)",
    "asin(x1/4) + acos(x1/4) + atan(x3) + atan2(x1, x3) + arcsin(x1/4) + arccos(x1/4) + arctan(x3)",
    "sinh(x1) + cosh(x1) + tanh(x3) + asinh(x3) + acosh(x2 + 1) + atanh(x1/4) + arcsinh(x3) + arccosh(x2 + 1)"
    " + arctanh(x1/4)",
    "erf(x1) + floor(x3) + ceiling(x1) + sign(x3) + abs(x1) + Abs(x3) + re(x1) + im(x1)",
    "max(x1, x3, x2) + min(x1, x2) + Max(x1, 0) + Min(x3, 1)",
    "Piecewise((x1, x1 > 0), (x3, True)) + Piecewise((x1, ITE(x3 < 0, x1 > 0, x2 > 1)), (x2, True))"
    " + Piecewise((1, And(x1 > 0, Not(x3 > 0))), (2, Or(Eq(x1, 0), Ne(x2, 1))), (0, True))",
    "add(x1, x2) + sub(x1, x3) + mul(x1, x3) + div(x2, x3) + neg(x1) + inv(x2) + factor_terms(2*x1 + 2*x3)",
    "log(x3) + 1/x1 + exp(x3)",  # NaN, inf and overflow on some rows
]


def test_the_row_order_cases_use_every_allowed_function():
    used = {name for text in _EVERY_FUNCTION for name in ALLOWED_FUNCTIONS if f"{name}(" in text}
    assert used == set(ALLOWED_FUNCTIONS)


@pytest.mark.parametrize("text", _EVERY_FUNCTION)
def test_a_rows_value_does_not_depend_on_the_other_rows(text):
    rng = np.random.default_rng(1)
    rows = 1_003  # not a multiple of any SIMD width: every row position of a vector loop and its tail
    columns = {"x1": rng.uniform(-3, 3, rows), "x2": rng.uniform(0.1, 5, rows), "x3": rng.normal(0, 20, rows)}
    columns["x1"][:5] = 0.0
    whole = evaluate_model(text, columns)
    permutation = rng.permutation(rows)
    shuffled = evaluate_model(text, {name: values[permutation] for name, values in columns.items()})
    assert np.array_equal(whole[permutation], shuffled, equal_nan=True)
    strided = evaluate_model(text, {name: np.repeat(values, 2)[::2] for name, values in columns.items()})
    assert np.array_equal(whole, strided, equal_nan=True)
    alone = [evaluate_model(text, {name: values[i:i + 1] for name, values in columns.items()})[0]
             for i in range(0, rows, 17)]
    assert np.array_equal(whole[::17], np.array(alone), equal_nan=True)


def test_r2_does_not_depend_on_the_rows_order():
    rng = np.random.default_rng(3)
    y = rng.normal(0, 1e3, 10_001)
    predictions = y + rng.normal(0, 1e2, y.size)
    permutation = rng.permutation(y.size)
    # numpy's own sums of the same values in another order can differ in the last bits; these cannot
    assert exact_r2_score(y, predictions) == exact_r2_score(y[permutation], predictions[permutation])
    assert exact_r2_score(y, predictions) == exact_r2_score(y[::-1], predictions[::-1])
    scored = score_predictions(y, predictions)
    reordered = score_predictions(y[permutation], predictions[permutation])
    assert scored[["r2", "rmse", "mae"]].equals(reordered[["r2", "rmse", "mae"]])
    assert scored["r2"].iloc[0] == exact_r2_score(y, predictions)


def test_exact_sum_is_correctly_rounded_and_bounded():
    # 1e16 + 1 - 1e16: a left-to-right float sum loses the 1; the correctly rounded sum is 1
    assert exact_sum([1e16, 1.0, -1e16]) == 1.0
    assert exact_sum([1e308, 1e308]) == np.inf      # beyond float64: inf, not an OverflowError
    assert np.isnan(exact_sum([np.inf, -np.inf]))   # undefined: NaN, not a ValueError
    assert np.isnan(exact_sum([1.0, np.nan]))
    # R2 = 1 - 1/8 for residuals (0, 0, -1) around a mean of 3 (squares 4, 0, 4)
    assert exact_r2_score([1.0, 3.0, 5.0], [1.0, 3.0, 6.0]) == 0.875
    assert np.isnan(exact_r2_score([2.0, 2.0], [1.0, 3.0]))  # constant target
