"""The report on a warm cache: the same page byte for byte, its slow analyses read back, its steps said aloud.

`srdash report` of the 2025-scale demo judged the competition again some 270 times (the bootstrap of rules that
only ``judge`` can judge, the winner certificate); the bootstrap's scores and the certificate's table are kept
in srdash's cache (srdash.analysis.kept), so a second report reads them. These tests check, on a competition of
seconds, that what is read back is what was computed (the page is identical, bit for bit), that it is read
rather than computed, and that a changed input is not answered from the cache. No timing is asserted.
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.analysis import certificate, robustness
from srdash.analysis.kept import ANALYSIS_KIND, kept_array
from srdash.cli import main
from srdash.figures.certificate import certificate_html
from srdash.judging.competition import competition_from_options
from srdash.judging.pipeline import judge_competition
from srdash.judging.rules import load_rules
from srdash.report.build import build_competition_report, render_html

FIXED_TIME = "2026-11-27T00:00:00Z"

# Accuracy and a given model size; a failed run's missing value counts as the table's worst value, an option the
# bootstrap's vectorised engine does not cover, so every redraw is judged (the engine the cache keeps).
RULES = """
name = "speed-test"
title = "A rules file the bootstrap judges redraw by redraw"
kind = "rank-harmonic"
[ranking]
run_aggregation = "median"
missing_run_value = "worst-value"
[[criteria]]
name = "accuracy"
column = "r2_test"
direction = "higher"
weight = 1.0
[[criteria]]
name = "size"
column = "components"
direction = "lower"
weight = 1.0
"""


@pytest.fixture
def competition(tmp_path):
    """3 methods x 4 datasets x 3 runs, one run without a value; its own (empty) cache folder."""
    (tmp_path / "cache").mkdir(mode=0o700)
    rng = np.random.default_rng(7)
    rows = [{"method": m, "dataset": f"d{d}", "run": r, "r2_test": round(float(rng.uniform(0.3, 1.0)), 4),
             "components": int(rng.integers(3, 40))}
            for m in ("alpha", "beta", "gamma") for d in range(4) for r in range(3)]
    table = pd.DataFrame(rows)
    table.loc[7, "r2_test"] = np.nan
    table.to_csv(tmp_path / "results.csv", index=False)
    (tmp_path / "rules.toml").write_text(RULES, encoding="utf-8")
    return competition_from_options(tmp_path / "results.csv", rules=tmp_path / "rules.toml", jobs=1,
                                    cache=str(tmp_path / "cache"))


def _report(competition):
    return build_competition_report(judge_competition(competition), samples=20, n_bootstrap=30, seed=3,
                                    generated_at=FIXED_TIME)


def test_a_warm_report_is_the_cold_report_byte_for_byte_and_reads_its_slow_analyses_back(competition, monkeypatch):
    assert load_rules(competition.rules.source).uses_extended_options  # so every redraw is judged
    judged = {"bootstrap": 0, "certificate": 0}
    for name, module in (("bootstrap", robustness), ("certificate", certificate)):
        def counting(*args, _name=name, _judge=module.judge, **kwargs):
            judged[_name] += 1
            return _judge(*args, **kwargs)

        monkeypatch.setattr(module, "judge", counting)
    cold_report = _report(competition)
    cold, cold_judgings = render_html(cold_report), dict(judged)
    judged.update(bootstrap=0, certificate=0)
    warm_report = _report(competition)
    warm = render_html(warm_report)
    assert warm == cold
    # cold: the bootstrap's verdict once for the rank uncertainty and once for the place intervals (whose own
    # bootstrap resamples datasets' scores, judging nothing more), then each of the 30 redraws, and the certificate
    # judges; warm: the redraws and the certificate's table are read back
    assert cold_judgings["bootstrap"] == 32 and cold_judgings["certificate"] > 10, cold_judgings
    assert judged == {"bootstrap": 2, "certificate": 0}
    assert cold_report.certificate is not None and warm_report.certificate is None
    assert warm_report.certificate_html == cold_report.certificate_html == certificate_html(cold_report.certificate)
    assert 'id="uncertainty"' in warm and 'id="why"' in warm and cold_report.certificate_html in warm


def test_the_kept_bootstrap_equals_the_computed_one_and_a_changed_input_is_computed_again(competition, tmp_path):
    runs = judge_competition(competition).runs
    rules = competition.rules
    cache = str(tmp_path / "cache")
    computed = robustness.bootstrap(runs, rules, n_bootstrap=10, seed=1, cache=False)
    first = robustness.bootstrap(runs, rules, n_bootstrap=10, seed=1, cache=cache)
    kept = robustness.bootstrap(runs, rules, n_bootstrap=10, seed=1, cache=cache)
    for result in (first, kept):
        pd.testing.assert_frame_equal(result.scores, computed.scores, check_exact=True)
        pd.testing.assert_frame_equal(result.summary, computed.summary, check_exact=True)
        assert (result.engine, result.notes) == (computed.engine, computed.notes) == ("judge per resample", ())
    # another seed, or one changed value of the table, is another key: computed, not read
    other_seed = robustness.bootstrap(runs, rules, n_bootstrap=10, seed=2, cache=cache)
    assert not other_seed.scores.equals(computed.scores)
    changed = runs.copy()
    changed.loc[changed.index[0], "r2_test"] = 0.01
    pd.testing.assert_frame_equal(robustness.bootstrap(changed, rules, n_bootstrap=10, seed=1, cache=cache).scores,
                                  robustness.bootstrap(changed, rules, n_bootstrap=10, seed=1, cache=False).scores,
                                  check_exact=True)
    with sqlite3.connect(tmp_path / "cache" / "complexity.sqlite") as connection:
        rows = connection.execute("SELECT COUNT(*) FROM results_v2 WHERE kind = ?", [ANALYSIS_KIND]).fetchone()[0]
    assert rows == 3  # seed 1, seed 2, the changed table


def test_kept_array_keeps_every_bit_and_refuses_a_row_of_another_shape(tmp_path):
    runs = pd.DataFrame({"method": ["a", "b"], "dataset": "d", "r2_test": [0.9, 0.5]})
    rules = load_rules("srbench2022")
    values = np.array([[0.1 + 0.2, -np.inf, np.nan, 5e-324]])  # a float's last bit, infinities, NaN, subnormal
    calls = []

    def compute():
        calls.append(1)
        return values

    for _ in range(2):
        back = kept_array("bits", runs, rules, compute, shape=(1, 4), cache=str(tmp_path))
        assert back.tobytes() == values.tobytes()
    assert len(calls) == 1
    # the same key asked for another shape: the row is not used, the array is computed again
    wide = kept_array("bits", runs, rules, lambda: np.zeros((2, 2)), shape=(2, 2), cache=str(tmp_path))
    assert wide.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert len(calls) == 1
    with pytest.raises(ValueError, match=r"The analysis 'odd' computed an array of shape \(3,\); \(2,\) was expected"):
        kept_array("odd", runs, rules, lambda: np.zeros(3), shape=(2,), cache=str(tmp_path))


def test_srdash_report_says_what_it_computes(competition, tmp_path):
    # default ranking options: the bootstrap's vectorised engine, so the command takes a second or two
    (tmp_path / "plain.toml").write_text(RULES.replace('missing_run_value = "worst-value"\n', ""), encoding="utf-8")
    (tmp_path / "competition.toml").write_text('results = "results.csv"\nrules = "plain.toml"\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["report", str(tmp_path / "competition.toml"), "-o", str(tmp_path / "r.html"),
                                       "--samples", "20"])
    assert result.exit_code == 0, result.output
    said = result.stderr.splitlines()
    for step in ("Weight sensitivity: 20 weight vectors drawn from the simplex",
                 "Rank uncertainty: the verdict judged again on 200 bootstrap resamples of datasets and runs",
                 "Why this winner: the verdict judged again without datasets, runs, methods",
                 "Drawing the SRBench views", "Writing ", "Filling the page's template"):
        assert any(line.startswith(step) for line in said), (step, said)
    # in the order the work is done: the computations, then the drawing, then the page
    first = [next(i for i, line in enumerate(said) if line.startswith(step))
             for step in ("Weight sensitivity", "Rank uncertainty", "Why this winner", "Drawing the leaderboards",
                          "Writing ", "Filling", "Wrote ")]
    assert first == sorted(first)
