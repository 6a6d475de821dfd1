"""Hostile numbers (issue 32): every number of a rules file, a competition file or a CLI option is bounded.

One test (or a few) per class of the issue, in the order of its list, then property-based tests over every
numeric key and option, enumerated from the code's own declarations (a new key without a declared bound
fails them). The inputs come from ``tests/data/hostile/make_values.py`` (``benchmarks/hostile_values.py``
measures the same cases). Resource bounds are asserted loosely: a refusal measured at about 0.3 s and
25 MB (the child's peak RSS) is asserted under 60 s and 400 MB.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import io
import math
import re
import tempfile
import time
from pathlib import Path

import click
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from srdash.cli import main
from srdash.cli._options import BoundedFloat, BoundedInt
from srdash.errors import CompetitionError, RulesError
from srdash.judging import competition as competition_module
from srdash.judging.competition import parse_competition
from srdash.judging.limits import COMPETITION_LIMITS, OPTION_LIMITS, RULES_LIMITS
from srdash.judging.ranking import judge
from srdash.judging.rules import RANKING_KEYS, Criterion, Rules, load_rules, parse_rules

HOSTILE = Path(__file__).parent / "data" / "hostile"
DOCS = Path(__file__).resolve().parents[1] / "docs"

_spec = importlib.util.spec_from_file_location("make_values", HOSTILE / "make_values.py")
MAKE = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(MAKE)

TABLE = pd.read_csv(io.StringIO(MAKE.RESULTS))

# Loose bounds: several times what benchmarks/hostile_values.py measures (about 0.3 s and 25 MB a refusal,
# 2.6 s and 160 MB for a command judging the tiny competition at an option's bound).
REFUSAL_SECONDS, REFUSAL_MB = 60, 400
JUDGED_SECONDS, JUDGED_MB = 240, 800


def _cases(where: str | None = None):
    return [pytest.param(where_, spec, key, id=what) for what, where_, spec, key in MAKE.ISSUE_VALUES
            if where is None or where_ == where]


# --------------------------------------------------------------------------- 1. a count sizes memory


@pytest.mark.parametrize("where, spec, key", _cases())
def test_the_issues_values_are_refused_before_any_data_is_read(tmp_path, where, spec, key):
    """Each of the issue's values (counts, precisions, weights, options) ends the command at once with a
    message naming the key and its range, never a traceback."""
    arguments = MAKE.write_case(tmp_path, where, spec)
    code, stderr, seconds, peak_mb = MAKE.run_srdash(arguments, cwd=tmp_path)
    assert code == (2 if where == "option" else 1), stderr
    assert key in stderr
    if where == "rules":
        assert RULES_LIMITS[spec[0]].describe() in stderr or "'domain' must be two numbers [low, high]" in stderr
    elif where == "competition":
        assert COMPETITION_LIMITS[f"simplification.{spec[0]}"].describe() in stderr
    else:
        assert re.search(r"is not in the range \d+<=x<=\d+\.|is not allowed: it must be a finite number", stderr)
    assert "Traceback" not in stderr
    assert seconds < REFUSAL_SECONDS and peak_mb < REFUSAL_MB
    assert not (tmp_path / "cache").exists()  # nothing was prepared


def test_runs_per_dataset_at_its_bound_is_judged_within_bounds(tmp_path):
    """100 runs per dataset (the bound) pad the tiny competition to 600 rows: judged in seconds."""
    competition = MAKE.competition_folder(tmp_path, rules_file=MAKE.rules_text("ranking.runs_per_dataset", 100))
    code, stderr, seconds, peak_mb = MAKE.run_srdash(["score", str(competition)], cwd=tmp_path)
    assert code == 0, stderr
    # one problem per (method, dataset): 3 methods x 2 datasets, each "98 of the 100 runs missing"
    assert "6 problem(s): 6 missing run" in stderr
    assert seconds < JUDGED_SECONDS and peak_mb < JUDGED_MB


def test_a_count_is_refused_naming_the_key_and_its_range():
    with pytest.raises(RulesError, match=r"rules 'hostile': 'runs_per_dataset' must be a whole number >= 0 and "
                                         r"at most 100 \(0: no expectation\)\. Got 20\.0\."):
        parse_rules(MAKE.rules_text("ranking.runs_per_dataset", 20.0))  # a float is not a count
    with pytest.raises(RulesError, match=r"'runs_per_dataset' must be a whole number >= 0 and at most 100\. "
                                         r"Got 1180591620717411303424\."):  # 2**70
        parse_rules(MAKE.rules_text("ranking.runs_per_dataset", 2**70))
    with pytest.raises(CompetitionError, match=r"<text>, line 5: 'simplification\.jobs' must be a whole number >= 0 "
                                               r"and at most 256\. Got 1000000000\."):
        parse_competition('results = "r.csv"\nrules = "srbench2022"\n\n[simplification]\njobs = 1000000000\n',
                          root=_folder_with_results())


def _folder_with_results() -> Path:
    root = Path(tempfile.mkdtemp())
    (root / "r.csv").write_text(MAKE.RESULTS)
    return root


# --------------------------------------------------------------------------- 2. values that silently change the verdict


@pytest.mark.parametrize("key, value, message", [
    ("criteria.weight", math.nan, r"criterion 'accuracy': 'weight' must be a finite number >= 0 and at most "
                                  r"1,000,000\. Got nan\."),
    ("criteria.weight", math.inf, r"'weight' must be a finite number >= 0 and at most 1,000,000\. Got inf\."),
    ("criteria.weight", True, r"'weight' must be a finite number .* Got True\."),
    ("criteria.weight", "1", r"'weight' must be a finite number .* Got '1'\."),
    ("criteria.weight", 1e-300, r"'weight' 1e-300 is less than a millionth of the largest weight \(1\); it would "
                                r"decide nothing but exact ties\. Give it 0"),
    ("ranking.tie_tolerance", 1e300, r"'tie_tolerance' must be a finite number >= 0 and at most 1,000,000\. "
                                     r"Got 1e\+300\."),
    ("ranking.tie_tolerance", math.nan, r"'tie_tolerance' must be a finite number .* Got nan\."),
    ("filters.min_relative.ratio", 1.5, r"\[filters\] min_relative: 'ratio' must be a finite number >= 0 and "
                                        r"< 1\. Got 1\.5\."),
    ("criteria.domain", math.nan, r"'domain' must be two numbers \[low, high\] with low <= high \(inf allowed\)\. "
                                  r"Got \[nan, 1\.0\]\."),
])
def test_values_that_changed_the_verdict_are_refused(key, value, message):
    with pytest.raises(RulesError, match=message):
        parse_rules(MAKE.rules_text(key, value), source="rules.toml")


_PLAIN = MAKE.rules_text()


@pytest.mark.parametrize("text, message", [
    (_PLAIN.replace('name = "hostile"', 'name = 5'), r"rules '5': 'name' must be text \(in quotes\)\. Got 5\."),
    (_PLAIN.replace('name = "hostile"', 'name = "h"\ncompetition_sympy_version = 1.14'),
     r"rules 'h': 'competition_sympy_version' must be text \(in quotes\)\. Got 1\.14\."),
    (_PLAIN.replace('name = "accuracy"', 'name = 7'), r"criterion '7': 'name' must be text \(in quotes\)\. Got 7\."),
    (_PLAIN.replace('column = "r2_test"', 'column = "r2_test"\nlabel = true'),
     r"criterion 'accuracy': 'label' must be text \(in quotes\)\. Got True\."),
    ('name = "x"\ncriteria = [5]\n', r"rules\.toml: criterion #1 must be a table \(\[\[criteria\]\]\)\. Got 5\."),
    ('ranking = 5\n' + _PLAIN, r"rules\.toml: 'ranking' must be a table \(\[ranking\]\)\. Got 5\."),
    ('filters = 5\n' + _PLAIN, r"rules\.toml: 'filters' must be a table \(\[filters\]\)\. Got 5\."),
    (_PLAIN.replace('name = "hostile"', 'name = "h"\n[filters]\nmin_relative = { column = 5, ratio = 0.5 }'),
     r"\[filters\] min_relative must be a table with keys 'column' \(text\) and 'ratio' \(a number\)\."),
])
def test_a_number_where_text_or_a_table_is_expected_is_refused(text, message):
    """TOML gives numbers, booleans and lists wherever the file has them: ``criteria = [5]`` and
    ``ranking = 5`` ended in AttributeError and TypeError, ``name = 5`` was taken."""
    with pytest.raises(RulesError, match=message):
        parse_rules(text, source="rules.toml")


def test_any_other_number_of_a_rules_file_is_finite():
    """A number in a kind's own table (here EvalRS's group weight) is checked too: NaN there was taken."""
    text = (load_rules("evalrs2022").text
            .replace('metrics = ["hit_rate", "mrr"]\nweight = 1.0', 'metrics = ["hit_rate", "mrr"]\nweight = nan'))
    assert "weight = nan" in text
    with pytest.raises(RulesError, match=r"evalrs\.toml: 'groups\.performance\.weight' must be a finite number "
                                         r">= -1e\+15 and at most 1e\+15\. Got nan\."):
        parse_rules(text, source="evalrs.toml")


def test_a_criterion_that_decides_nothing_is_stated_in_the_verdict():
    """Weight 0, a rounding or a tolerance that ties every value: the verdict says the criterion decides
    nothing (the values differ on both datasets, so the rules, not the data, tie them)."""
    zero = judge(TABLE, parse_rules(MAKE.rules_text("criteria.weight", 0)))
    assert "Criterion 'accuracy' has weight 0: it decides nothing (its ranks are shown, not counted in the " \
           "score)." in zero.warnings
    # the spans of r2_test are 0.43 (d1) and 0.46 (d2): a tolerance of 1 ties them all, 0.44 does not
    wide = judge(TABLE, parse_rules(MAKE.rules_text("ranking.tie_tolerance", 1.0)))
    assert ("Criterion 'accuracy' (column 'r2_test'): within the tie_tolerance 1 its values tie on every dataset: "
            "it ranks every method alike and decides nothing.") in wide.warnings
    assert set(wide.leaderboard["accuracy_rank"]) == {2.0}  # three methods tied: average rank 2
    narrow = judge(TABLE, parse_rules(MAKE.rules_text("ranking.tie_tolerance", 0.44)))
    assert not any("decides nothing" in w for w in narrow.warnings)
    # rounded to 0 decimals the values still differ: 0.50 -> 0 (half to even) and 0.55 -> 1 on d1, 0.40 -> 0 and
    # 0.71 -> 1 on d2
    assert not any("rounded to 0 decimals" in w
                   for w in judge(TABLE, parse_rules(MAKE.rules_text("criteria.decimals", 0))).warnings)
    # r2_test / 2 + 0.5 lies in [0.7, 0.965]: rounded to 0 decimals every value is 1.0
    high = TABLE.assign(r2_test=TABLE["r2_test"] / 2 + 0.5)
    rounded = judge(high, parse_rules(MAKE.rules_text("criteria.decimals", 0)))
    assert ("Criterion 'accuracy' (column 'r2_test'): rounded to 0 decimals its values tie on every dataset: it "
            "ranks every method alike and decides nothing.") in rounded.warnings


# --------------------------------------------------------------------------- 3. commands whose cost grows


@pytest.mark.parametrize("command, arguments, message", [
    ("robustness", ["-B", "1000000000"], r"Invalid value for '-B' / '--bootstrap': 1000000000 is not in the "
                                         r"range 1<=x<=10000\."),
    ("robustness", ["--confidence", "nan"], r"Invalid value for '--confidence': 'nan' is not allowed: it must be "
                                            r"a finite number > 0 and < 1\."),
    ("sensitivity", ["--samples", "1000000000"], r"Invalid value for '--samples': 1000000000 is not in the range "
                                                 r"1<=x<=200000\."),
    ("sensitivity", ["--seed", "-1"], r"Invalid value for '--seed': -1 is not in the range 0<=x<=4294967295\."),
    ("score", ["--timeout", "inf"], r"Invalid value for '--timeout': inf is not in the range 0<x<=86400\."),
    ("score", ["--jobs", "100000"], r"Invalid value for '--jobs': 100000 is not in the range 1<=x<=256\."),
    ("explain", ["--max-removed", "1000000"], r"Invalid value for '--max-removed': 1000000 is not in the range "
                                              r"1<=x<=20\."),
    ("analyse", ["--r2-gate", "nan"], r"Invalid value for '--r2-gate': 'nan' is not allowed: it must be a finite "
                                      r"number < 1\."),
])
def test_costly_options_are_refused_with_their_name_and_range(tmp_path, command, arguments, message):
    competition = MAKE.competition_folder(tmp_path, rules_file=MAKE.rules_text())
    inputs = ["recovery", str(tmp_path / "results.csv")] if command == "analyse" else [str(competition)]
    started = time.perf_counter()
    result = CliRunner().invoke(main, [command, *inputs, *arguments])
    assert result.exit_code == 2, result.output
    assert re.search(message, result.output), result.output
    assert time.perf_counter() - started < REFUSAL_SECONDS


@pytest.mark.parametrize("arguments", [["robustness", "-B", "10000"], ["sensitivity", "--samples", "200000"]])
def test_costly_options_at_their_bound_stay_bounded(tmp_path, arguments):
    """At the bound, on the tiny competition: measured 2.6 s / 160 MB (robustness) and 1.4 s / 150 MB."""
    competition = MAKE.competition_folder(tmp_path, rules_file=MAKE.rules_text())
    code, stderr, seconds, peak_mb = MAKE.run_srdash([arguments[0], str(competition), *arguments[1:]], cwd=tmp_path)
    assert code == 0, stderr
    assert seconds < JUDGED_SECONDS and peak_mb < JUDGED_MB


# --------------------------------------------------------------------------- 4. tracebacks from extreme values


@pytest.mark.parametrize("key, value, message", [
    ("criteria.decimals", 10**12, r"'decimals' must be a whole number >= 0 and at most 17\. Got 1000000000000\."),
    ("criteria.decimals", 309, r"'decimals' must be a whole number >= 0 and at most 17\. Got 309\."),
    ("criteria.decimals", 1e12, r"'decimals' must be a whole number >= 0 and at most 17\. Got 1000000000000\.0\."),
    ("criteria.domain", 10**400, r"'domain' must be two numbers .* Got \[an integer of 401 digits, 1\.0\]\."),
])
def test_extreme_values_are_refused_not_crashed_on(key, value, message):
    with pytest.raises(RulesError, match=message):
        parse_rules(MAKE.rules_text(key, value))


def test_an_extreme_time_limit_is_refused_not_crashed_on():
    with pytest.raises(CompetitionError, match=r"'simplification\.timeout' must be a number of seconds > 0 and at "
                                               r"most 86,400 \(one day\)\. Got an integer of 401 digits\."):
        parse_competition(f'results = "r.csv"\n[simplification]\ntimeout = {10**400}\n', root=_folder_with_results())


# --------------------------------------------------------------------------- every key and option, declared


def _numeric(annotation) -> bool:
    text = str(annotation)
    return "int" in text.replace("Criterion", "") or "float" in text


def rules_numeric_keys() -> set[str]:
    """Every numeric key of a rules file, from the dataclasses that hold them."""
    keys = {f"criteria.{f.name}" for f in dataclasses.fields(Criterion) if _numeric(f.type)}
    for f in dataclasses.fields(Rules):
        if not _numeric(f.type):
            continue
        if f.name in RANKING_KEYS:
            keys.add(f"ranking.{f.name}")
        elif f.name == "min_relative":
            keys.add("filters.min_relative.ratio")
        else:  # a new numeric field: declare its key here and its bound in RULES_LIMITS
            keys.add(f"<undeclared>.{f.name}")
    return keys


def competition_numeric_keys() -> set[str]:
    keys = set()
    for section, table in competition_module.COMPETITION_KEYS.items():
        for key, types in table.items():
            types = types if isinstance(types, tuple) else (types,)
            if int in types or float in types:
                keys.add(f"{section}.{key}" if section else key)
    return keys


def numeric_options() -> list[tuple[str, click.Parameter]]:
    found = []

    def walk(command, prefix):
        if isinstance(command, click.Group):
            for name, sub in sorted(command.commands.items()):
                walk(sub, f"{prefix} {name}")
            return
        for param in command.params:
            if isinstance(param.type, (click.types.IntParamType, click.types.FloatParamType)):
                found.append((f"{prefix} {param.opts[-1]}", param))

    walk(main, "srdash")
    return found


def test_every_numeric_rules_key_has_a_declared_bound():
    keys = rules_numeric_keys()
    assert keys == set(RULES_LIMITS)
    assert {"criteria.decimals", "criteria.weight", "criteria.domain", "ranking.tie_tolerance",
            "ranking.runs_per_dataset", "filters.min_relative.ratio"} <= keys  # the enumeration finds them


def test_every_numeric_competition_key_has_a_declared_bound():
    assert competition_numeric_keys() == set(COMPETITION_LIMITS) == {"simplification.timeout", "simplification.jobs"}


def test_every_numeric_option_is_bounded():
    options = numeric_options()
    assert len(options) >= 50  # every command's --jobs, --timeout, --seed, -B, --samples ...
    for name, param in options:
        assert isinstance(param.type, (BoundedInt, BoundedFloat)), name
        assert param.type.limit in OPTION_LIMITS.values(), name
        assert math.isfinite(param.type.limit.high), name


def test_the_docs_list_every_limit():
    rules_doc = (DOCS / "rules.md").read_text()
    competition_doc = (DOCS / "competition.md").read_text()
    for key, limit in RULES_LIMITS.items():
        assert f"`{key}`" in rules_doc and limit.describe() in rules_doc, key
    for key, limit in COMPETITION_LIMITS.items():
        assert f"`{key}`" in competition_doc and limit.describe() in competition_doc, key
    for name, param in numeric_options():
        assert f"`{name.rsplit(' ', 1)[0]}` | `{param.opts[-1]}`" in competition_doc, name
        assert param.type.limit.describe() in competition_doc, name


# --------------------------------------------------------------------------- property-based: any hostile value

_ROOT = _folder_with_results()
HOSTILE_NUMBERS = st.one_of(
    st.sampled_from([math.nan, math.inf, -math.inf, -1, -1.0, 0, 0.0, 1e300, -1e300, 2**63, 2**64, 10**30,
                     True, False, "3", 0.5, 1e-300]),
    st.integers(min_value=-2**70, max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
)


def _judged_within_bounds(rules: Rules) -> None:
    started = time.perf_counter()
    verdict = judge(TABLE, rules)
    assert time.perf_counter() - started < JUDGED_SECONDS
    assert verdict.leaderboard["score"].notna().all()
    assert len(verdict.per_dataset) == 6  # 3 methods x 2 datasets, whatever the value


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(sorted(RULES_LIMITS)), value=HOSTILE_NUMBERS)
def test_any_hostile_rules_value_is_refused_naming_its_range_or_judged(key, value):
    text = MAKE.rules_text(key, value)
    try:
        rules = parse_rules(text, source="rules.toml")
    except RulesError as exc:
        message = str(exc)
        name = key.rsplit(".", 1)[-1]
        assert f"'{name}'" in message, message
        limit = RULES_LIMITS[key]
        assert (limit.describe() in message or "two numbers [low, high]" in message  # the domain's own words
                or "'ratio' (a number)" in message  # min_relative's own check of its type
                or "less than a millionth of the largest weight" in message  # a negligible weight
                or "needs a 'tie_tolerance' > 0" in message), message
        return
    assert RULES_LIMITS[key].admits(_stored(rules, key)), (key, value)
    _judged_within_bounds(rules)


def _stored(rules: Rules, key: str):
    """The value of ``key`` as the rules hold it (``MAKE.rules_text`` sets it on the first criterion)."""
    section, _, name = key.partition(".")
    if section == "criteria":
        value = getattr(rules.criteria[0], name)
        return value[0] if name == "domain" else value
    if section == "ranking":
        return getattr(rules, name)
    return rules.min_relative[1]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(sorted(COMPETITION_LIMITS)), value=HOSTILE_NUMBERS)
def test_any_hostile_competition_value_is_refused_naming_its_range_or_accepted_within_it(key, value):
    section, name = key.split(".")
    text = f'results = "r.csv"\nrules = "srbench2022-as-run"\n[{section}]\n{name} = {MAKE.toml_value(value)}\n'
    try:
        competition = parse_competition(text, root=_ROOT)
    except CompetitionError as exc:
        assert f"'{key}'" in str(exc), str(exc)
        assert COMPETITION_LIMITS[key].describe() in str(exc) or "must be a whole number. Got" in str(exc) \
            or "must be a whole number or a number. Got" in str(exc), str(exc)
        return
    simplification = competition.simplification
    assert 0 < simplification.timeout <= COMPETITION_LIMITS["simplification.timeout"].high
    assert 1 <= simplification.jobs <= COMPETITION_LIMITS["simplification.jobs"].high


HOSTILE_TEXT = st.one_of(
    st.sampled_from(["nan", "-nan", "inf", "-inf", "1e9", "1e400", "-1", "0", "1.5", "1000000000",
                     "99999999999999999999999", "true", "", "0x10", "1_000"]),
    st.integers(min_value=-2**70, max_value=2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)
OPTIONS = numeric_options()


@settings(max_examples=150, deadline=None)
@given(option=st.sampled_from(range(len(OPTIONS))), text=HOSTILE_TEXT)
def test_any_hostile_option_value_is_refused_naming_its_range_or_accepted_within_it(option, text):
    name, param = OPTIONS[option]
    limit = param.type.limit
    try:
        value = param.type.convert(text, param, None)
    except click.BadParameter as exc:
        message = exc.format_message()
        assert limit.describe() in message or "is not in the range" in message or "is not a valid" in message, \
            (name, message)
        return
    assert limit.admits(value), (name, text, value)
