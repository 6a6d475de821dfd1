"""`srdash explain` on large tables (issue 32): it says what it will do and roughly how long, shows its progress
on stderr, samples the weight search (and says so), and refuses tables past --max-cells with what to do instead.

The table is generated: 300 methods on 4 datasets (1,200 cells), so that the test stays fast.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.analysis.certificate import winner_certificate
from srdash.analysis.certificate_plan import check_plan, plan_certificate
from srdash.cli import main
from srdash.demo.examples import accuracy_and_simplicity_rules
from srdash.errors import SrdashError
from srdash.judging.rules import load_rules


def three_hundred_methods(datasets: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(32)
    skill = rng.normal(size=300)
    rows = [{"method": f"m{m:03d}", "dataset": f"d{d}", "r2_test": round(float(0.8 + 0.05 * skill[m]
                                                                          + rng.normal(0, 0.05)), 3),
             "components": int(rng.integers(1, 60))}
            for m in range(300) for d in range(datasets)]
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    folder = tmp_path_factory.mktemp("explain300")
    three_hundred_methods().to_csv(folder / "results.csv", index=False)
    rules = load_rules("srbench2022").text.replace('column = "property"\n', 'column = "property"\noptional = true\n')
    (folder / "rules.toml").write_text(rules)
    return folder


def _explain(folder, *options):
    return CliRunner().invoke(main, ["explain", str(folder / "results.csv"), "--rules", str(folder / "rules.toml"),
                                     "--no-cache", *options])


def test_explain_refuses_a_table_past_the_bound_and_says_what_to_do(big):
    result = _explain(big, "--max-cells", "1000")
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)  # a message, not a traceback
    assert "Traceback" not in result.output
    # what it would have done, then the refusal
    assert "Explaining 300 methods x 4 datasets x 1 run (1,200 cells)" in result.stderr
    assert ("The table has 300 methods x 4 datasets x 1 run = 1,200 cells, more than the 1,000 `srdash explain` "
            "certifies (--max-cells). Explain a part of it (fewer methods") in result.stderr
    assert "raise --max-cells (estimated: about " in result.stderr
    assert "Why this winner" not in result.stdout


def test_explain_states_its_plan_samples_the_weight_search_and_shows_progress(big):
    result = _explain(big, "--max-cells", "2000", "--weight-methods", "3", "--podium", "1", "--no-variants")
    assert result.exit_code == 0, result.output
    # up front: what it will do and roughly how long
    plan = result.stderr.split("\n")[:2]
    assert plan[0].startswith("Explaining 300 methods x 4 datasets x 1 run (1,200 cells): ")
    assert "weights searched for the 3 best-placed of the 299 other methods (--weight-methods)" in plan[0]
    assert "each of the 300 methods removed in turn" in plan[0]
    assert plan[1].startswith("Estimated: about ") and plan[1].endswith("(rates measured on a 2-core machine).")
    # progress on stderr, stage by stage
    for stage in ("scoring dataset sets", "searching winning weights", "removing each method", "checking invariance"):
        assert stage in result.stderr
    # the certificate says the weight search was sampled
    weights = next(line for line in result.stdout.splitlines() if line.startswith("  weights"))
    assert ("among the 3 best-placed of the 299 other methods searched" in weights
            or "no weights make any of the 3 best-placed of the 299 other methods win" in weights), weights


def test_the_weight_search_takes_the_best_placed_methods():
    # ranks (K = 4) on one dataset, accuracy and simplicity: a (4, 1), b (3, 2), c (2, 4), d (1, 3);
    # harmonic means a 1.6, b 2.4, c 2.667, d 1.5: c wins, then b, a, d. With one method searched, it is b
    # (the best placed of the others); b wins when accuracy weighs more.
    runs = pd.DataFrame({"method": list("abcd"), "dataset": "x", "run": 0, "r2_test": [0.9, 0.8, 0.7, 0.6],
                         "simplicity": [-4.0, -3.0, -1.0, -2.0]})
    certificate = winner_certificate(runs, rules=accuracy_and_simplicity_rules(), podium=1, weight_methods=1,
                                     weight_samples=200)
    assert certificate.winner == ("c",)
    finding = certificate.finding("weights")
    assert finding.changes_to == ("b",)
    assert "among the 1 best-placed of the 3 other methods searched" in finding.reason
    with pytest.raises(SrdashError, match="The 'weight_methods' option must be an integer >= 1. Got 0."):
        winner_certificate(runs, rules=accuracy_and_simplicity_rules(), weight_methods=0)


def test_the_plan_counts_the_work_and_its_estimate_grows_with_the_methods():
    small = plan_certificate(three_hundred_methods().query("method < 'm030'"), criteria=2, variants=20)
    large = plan_certificate(three_hundred_methods(), criteria=2, variants=20)
    # 4 datasets: the sets of 1, 2 and 3 of them, 4 + 6 + 4 = 14
    assert (small.methods, small.cells, small.dataset_sets, small.removals) == (30, 120, 14, 30)
    assert (large.methods, large.cells, large.weight_methods, large.samples_weights) == (300, 1200, 20, True)
    assert large.seconds > 2 * small.seconds  # judgings grow with the cells, removals with methods^2
    assert plan_certificate(three_hundred_methods(), criteria=2, variants=20, weight_methods=None).weight_methods \
        == 299
    with pytest.raises(SrdashError, match=r"1,200 cells, more than the 1,199 `srdash explain` certifies"):
        check_plan(large, max_cells=1_199)
    check_plan(large, max_cells=1_200)  # at the bound: accepted
