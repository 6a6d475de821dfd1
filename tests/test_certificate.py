"""The winner certificate (srdash.analysis.certificate) and `srdash explain`.

Golden competitions are built by hand below, each with its derivation; ranks run from
1 (worst) to K (best), one criterion (accuracy = r2_test, ties average), so a dataset's
score is the method's rank there and the final score the mean over datasets.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.analysis.certificate import FAMILIES, certificate_text, rules_variants, winner_certificate
from srdash.cli import main
from srdash.demo.examples import accuracy_rules
from srdash.errors import SrdashError
from srdash.judging.ranking import judge
from srdash.judging.rules import load_rules



def one_dataset_decides() -> pd.DataFrame:
    """Removing d1, and only d1, makes b the winner.

    r2_test and ranks (K = 3):
      d1: a .9 (3), c .5 (2), b .1 (1)
      d2: a .9 (3), b .5 (2), c .1 (1)
      d3: b .9 (3), a .5 and c .5 tie (1.5 each)
    totals a 7.5, b 6, c 4.5 -> scores a 2.5, b 2, c 1.5: a wins by 1.5 (total).
    Removing one dataset d changes a's total lead over b by -(rank_a(d) - rank_b(d)):
      d1: lead 1.5 - 2 = -0.5 -> b wins (b 5/2 = 2.5 against a 4.5/2 = 2.25);
      d2: 1.5 - 1 = 0.5 -> a stays; d3: 1.5 + 1.5 = 3 -> a stays.
    a's lead over c (3) shrinks by at most 2 (d2): c never wins.
    """
    return pd.DataFrame({
        "method": ["a", "b", "c"] * 3, "dataset": ["d1"] * 3 + ["d2"] * 3 + ["d3"] * 3, "run": 0,
        "r2_test": [0.9, 0.1, 0.5, 0.9, 0.5, 0.1, 0.5, 0.9, 0.5]})


def robust_winner() -> pd.DataFrame:
    """No set of up to 2 datasets changes the winner; 3 make a tie.

    Two methods (K = 2), five datasets: a wins d1..d4 (rank 2 against 1), b wins d5.
    Totals a 2*4 + 1 = 9, b 4 + 2 = 6: a leads by 3. Removing k of d1..d4 cuts the lead by k,
    removing d5 raises it by 1: with 2 datasets removed the lead is at least 1; removing three
    of d1..d4 makes a tie (a = b), the first such set in order being d1, d2, d3.
    """
    rows = []
    for i in range(1, 6):
        a, b = (0.9, 0.1) if i < 5 else (0.1, 0.9)
        rows += [{"method": "a", "dataset": f"d{i}", "run": 0, "r2_test": a},
                 {"method": "b", "dataset": f"d{i}", "run": 0, "r2_test": b}]
    return pd.DataFrame(rows)


def test_removing_one_named_dataset_changes_the_winner():
    certificate = winner_certificate(one_dataset_decides(), rules=accuracy_rules())
    assert certificate.winner == ("a",)
    assert dict(certificate.scores) == pytest.approx({"a": 2.5, "b": 2.0, "c": 1.5})
    data = certificate.finding("data", 1)
    assert data.stays is False and data.items == ("d1",) and data.changes_to == ("b",)
    assert data.line() == "data      changes to b: without dataset d1, b is first alone (b 2.5 against a 2.25)."
    # the claim is what judging without d1 gives
    runs = one_dataset_decides()
    assert judge(runs[runs["dataset"] != "d1"], accuracy_rules()).winner == "b"


def test_no_set_of_two_datasets_changes_the_winner_and_the_certificate_says_so():
    certificate = winner_certificate(robust_winner(), rules=accuracy_rules(), max_removed=2)
    data = certificate.finding("data", 1)
    assert data.stays is True and data.items == ()
    # C(5, 1) + C(5, 2) = 5 + 10 sets
    assert data.line() == "data      stays: no set of up to 2 of the 5 datasets changes it (all 15 sets checked)."
    three = winner_certificate(robust_winner(), rules=accuracy_rules(), max_removed=3).finding("data", 1)
    assert three.stays is False and three.items == ("d1", "d2", "d3") and three.changes_to == ("a", "b")


def test_runs_search_names_the_seed_and_states_its_bound():
    # Two methods, one dataset, three runs (seeds 0, 1, 2), median of the runs:
    # a 0.9, 0.9, 0.1 (median 0.9); b 0.5, 0.5, 0.95 (median 0.5): a wins.
    # Without seed 0: a median(0.9, 0.1) = 0.5, b median(0.5, 0.95) = 0.725 -> b wins; the same
    # without seed 1; without seed 2: a 0.9, b 0.5 -> a. The first in order is seed 0.
    runs = pd.DataFrame({"method": ["a"] * 3 + ["b"] * 3, "dataset": "d", "run": [0, 1, 2] * 2,
                         "r2_test": [0.9, 0.9, 0.1, 0.5, 0.5, 0.95]})
    finding = winner_certificate(runs, rules=accuracy_rules()).finding("runs", 1)
    assert finding.stays is False and finding.items == ("0",) and finding.changes_to == ("b",)
    # 3 single seeds judged; pairs are not searched (they would leave one run: size <= 3 - 1 = 2,
    # 3 more judgings fit the budget of 30)
    assert "re-judgings, budget 30" in finding.search
    bounded = winner_certificate(runs, rules=accuracy_rules(), budget=2).finding("runs", 1)
    assert bounded.stays is None and "no exhaustive size fits" in bounded.search
    assert bounded.reason == "not searched: judging again each run removed would take 3 re-judgings, more than the " \
        "budget of 2."


def test_every_place_and_family_has_one_line():
    certificate = winner_certificate(one_dataset_decides(), rules=accuracy_rules())
    assert [p for p, _ in certificate.podium] == [1, 2, 3]
    assert [(f.place, f.family) for f in certificate.findings] == [(p, f) for p in (1, 2, 3) for f in FAMILIES]
    text = certificate_text(certificate)
    for line in ("Place 1: a", "Place 2: b", "Place 3: c", "Name- and order-invariant: yes"):
        assert line in text
    # removing c: a and b are ranked (2, 1), (2, 1), (1, 2): a stays first
    assert certificate.finding("entrants", 1).stays is True


def test_weights_give_the_nearest_winning_vector():
    # srbench2022 without property, one dataset, K = 3: ranks (accuracy, simplicity) a (3, 2),
    # b (2, 3), c (1, 1): a and b tie at equal weights (2 / (1/3 + 1/2) = 2.4 each), so any
    # tilt makes one of them win alone.
    runs = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "run": 0, "r2_test": [0.9, 0.5, 0.1],
                         "simplicity": [-2.0, -1.0, -3.0]})
    from srdash.demo.examples import accuracy_and_simplicity_rules

    certificate = winner_certificate(runs, rules=accuracy_and_simplicity_rules(), podium=1, weight_samples=200)
    assert certificate.winner == ("a", "b")
    weights = certificate.finding("weights", 1)
    assert weights.stays is False and weights.changes_to in (("a",), ("b",))
    assert "L1 distance" in weights.reason


def test_renaming_and_reordering_change_nothing():
    certificate = winner_certificate(one_dataset_decides(), rules=accuracy_rules())
    assert dict(certificate.invariance) == {"rows shuffled": True, "methods renamed": True,
                                            "methods listed in reverse order": True}
    assert certificate.invariant


def test_refusals_say_what_to_do():
    with pytest.raises(SrdashError, match=r"needs its rules \(rules=...\)"):
        winner_certificate(one_dataset_decides())
    with pytest.raises(SrdashError, match="The 'podium' option must be an integer >= 1. Got 0."):
        winner_certificate(one_dataset_decides(), rules=accuracy_rules(), podium=0)
    with pytest.raises(SrdashError, match="The 'budget' option must be an integer >= 0. Got -1."):
        winner_certificate(one_dataset_decides(), rules=accuracy_rules(), budget=-1)
    from types import SimpleNamespace

    submissions = SimpleNamespace(competition=SimpleNamespace(rules=load_rules("evalrs2022")), runs=None)
    with pytest.raises(SrdashError, match="the rules 'evalrs2022' judge submissions. Use `srdash sensitivity`"):
        winner_certificate(submissions)
    certificate = winner_certificate(one_dataset_decides(), rules=accuracy_rules())
    with pytest.raises(SrdashError, match="No finding for family 'money' and place 1. Families: data, runs"):
        certificate.finding("money")


def _random_competition(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [{"method": m, "dataset": f"d{d}", "run": r, "r2_test": round(float(rng.uniform(0.3, 1.0)), 2),
             "simplicity": round(float(rng.uniform(-3, -0.5)), 1), "property": round(float(rng.uniform()), 1),
             "size": int(rng.integers(3, 9))}
            for m in "abcd" for d in range(5) for r in range(2)]
    return pd.DataFrame(rows[:-2])  # d's last dataset is a DNF


@pytest.mark.parametrize(("preset", "seed"), [("srbench2022", 0), ("srbench2022", 1), ("srbench2022-as-run", 0),
                                               ("srbench2023-track1", 1)])
def test_each_removal_claim_is_what_judging_without_it_gives(preset, seed):
    # srbench2022: the fast exact search; srbench2022-as-run (simplicity normalised over the whole
    # table): each set judged again; srbench2023-track1: one harmonic mean of all ranks.
    runs, rules = _random_competition(seed), load_rules(preset)
    certificate = winner_certificate(runs, rules=rules, podium=1, max_removed=1, budget=5, weight_samples=50)
    official = judge(runs, rules).leaderboard
    winners = sorted(official.loc[official["place"] == 1, "method"])
    data = certificate.finding("data", 1)
    for dataset in sorted(runs["dataset"].unique()):
        board = judge(runs[runs["dataset"] != dataset], rules, methods=sorted(runs["method"].unique())).leaderboard
        after = sorted(board.loc[board["place"] == 1, "method"])
        if data.stays:
            assert after == winners, dataset
        elif data.items == (dataset,):
            assert after == list(data.changes_to) != winners
    if data.stays is False:
        assert data.items  # one named dataset


def test_variants_skip_combinations_the_rules_refuse():
    rules = load_rules("srbench2022-as-run")  # DNFs left out: rank-mean refuses that
    names = [name for name, _, _ in rules_variants(rules)]
    assert "run_aggregation = rank-mean" not in names
    assert "preset srbench2022" in names and "preset srbench2022-as-run" not in names
    assert "ties = tolerance 1e-09" in names


# --------------------------------------------------------------------------- the demo


@pytest.fixture(scope="module")
def demo_result():
    from srdash.demo.competition import cached_demo
    from srdash.judging.competition import load_competition
    from srdash.judging.pipeline import judge_competition

    return judge_competition(load_competition(cached_demo()["competition"]))


def test_rules_variants_on_the_demo_equal_judging_each_variant(demo_result):
    from srdash.judging.pipeline import judge_prepared

    certificate = winner_certificate(demo_result, podium=1, budget=0, weight_samples=200)
    assert len(certificate.variants) >= 15
    for row in certificate.variants.itertuples():
        direct = judge_prepared(demo_result.prepared, rules=row.rules).verdict.leaderboard
        winners = direct.loc[direct["place"] == 1, "method"].tolist()
        assert row.winner == " = ".join(winners), row.variant
        assert row.winner_score == pytest.approx(direct["score"].iloc[0], abs=1e-12), row.variant
        assert row.changes == (winners != list(certificate.winner)), row.variant
    assert certificate.invariant


# --------------------------------------------------------------------------- the command


def test_explain_prints_the_certificate(tmp_path):
    path = tmp_path / "results.csv"
    one_dataset_decides().assign(components=3, property=0.5).to_csv(path, index=False)
    result = CliRunner().invoke(main, ["explain", str(path), "--no-cache"])
    assert result.exit_code == 0, result.output
    for line in ("Why this winner: a", "Place 1: a", "  data      changes to b: without dataset d1",
                 "Rules variants (", "Name- and order-invariant: yes", "Verdict fingerprint:"):
        assert line in result.output


def test_report_shows_why_this_winner_after_the_leaderboard():
    import dataclasses

    from srdash.report.build import build_report, render_html

    runs = one_dataset_decides()
    rules = accuracy_rules()
    certificate = winner_certificate(runs, rules=rules)
    report = dataclasses.replace(build_report(judge(runs, rules), runs=runs, samples=20), certificate=certificate)
    page = render_html(report)
    assert page.index('id="leaderboard"') < page.index('id="why"') < page.index('id="ranks"')
    section = page[page.index('id="why"'):]
    section = section[:section.index("</section>")]
    assert "Why this winner" in section and "without dataset d1, b is first alone" in section
    assert "Name- and order-invariant: yes" in section


def test_dashboard_view_follows_the_rules_and_shows_errors_in_its_log():
    from srdash.apps.certificate import CertificateView

    runs, rules = one_dataset_decides(), accuracy_rules()
    view = CertificateView(runs, rules)
    assert view.certificate.winner == ("a",) and "without dataset d1" in view.table.value
    view.rules = rules.with_options(rank_method="min")
    assert view.certificate.rules.rank_method == "min"
    view.rules = load_rules("evalrs2022")  # judges submissions, not runs
    assert "judge() ranks per-run results" in view.log_panel.text()


# --------------------------------------------------------------------------- juries

JURY_RULES = """
name = "tiny-jury"
kind = "rank-harmonic"

[rubric]
scale = [1, 5]
normalisation = "none"

[[rubric.criteria]]
name = "pipeline"
weight = 2.0

[[rubric.criteria]]
name = "insight"
weight = 1.0

[[criteria]]
name = "jury"
column = "jury_score"
direction = "higher"
"""

# (pipeline, insight) per juror and entry (tests/test_jury.py's jury); weights 2:1, so a
# juror's score is (2 * pipeline + insight) / 3:
#   ann: a 3, b 3, c 5;  bob: a 4, b 3, c 1;  cy: a 5, b 4, c 4  -> means a 4, b 10/3, c 10/3: a first.
JURY = {"ann": {"a": (4, 1), "b": (2, 5), "c": (5, 5)},
        "bob": {"a": (5, 2), "b": (4, 1), "c": (1, 1)},
        "cy": {"a": (5, 5), "b": (4, 4), "c": (5, 2)}}


def _jury_scores() -> pd.DataFrame:
    return pd.DataFrame([{"judge": j, "dataset": "d", "method": m, "criterion": c, "score": float(v)}
                         for j, entries in JURY.items() for m, pair in entries.items()
                         for c, v in zip(("pipeline", "insight"), pair)])


def test_jury_certificate_names_the_juror_and_the_criterion():
    from srdash.analysis.certificate import jury_certificate
    from srdash.judging.jury import rubric_from_rules
    from srdash.judging.rules import parse_rules

    certificate = jury_certificate(_jury_scores(), rubric_from_rules(parse_rules(JURY_RULES)))
    assert dict(certificate.winners) == {"d": ("a",)}
    # without ann: a (4 + 5)/2 = 4.5, b 3.5, c 2.5 -> a; without bob: a (3 + 5)/2 = 4, b 3.5, c (5 + 4)/2 = 4.5 -> c
    jurors = certificate.finding("jurors", "d")
    assert jurors.items == ("bob",) and jurors.changes_to == ("c",)
    assert jurors.line() == "jurors    changes to c: without juror bob, c is first (c 4.5 against a 4)."
    # z-scores (tests/test_jury.py): a 0.592, b -0.382, c -0.210 -> a stays
    assert certificate.finding("normalisation", "d").stays is True
    # insight only: ann a 1, b 5, c 5; bob a 2, b 1, c 1; cy a 5, b 4, c 2 -> a 8/3, b 10/3, c 8/3: b;
    # pipeline only: a 14/3, b 10/3, c 11/3 -> a; equal weights: a 11/3, b 10/3, c 9.5/3 -> a
    rubric = certificate.finding("rubric", "d")
    assert rubric.items == ("without pipeline",) and rubric.changes_to == ("b",)
    with pytest.raises(SrdashError, match="No finding for family 'jurors' on dataset 'x'. Families: jurors"):
        certificate.finding("jurors", "x")
    with pytest.raises(SrdashError, match="max_removed must be >= 1. Got 0"):
        jury_certificate(_jury_scores(), certificate.rubric, max_removed=0)


def test_trust_jury_explain_prints_the_jury_certificate(tmp_path):
    from srdash.judging.jury import rubric_from_rules
    from srdash.judging.trust import TrustStore

    rules = tmp_path / "jury.toml"
    rules.write_text(JURY_RULES)
    rubric = rubric_from_rules(load_rules(rules))
    with TrustStore(tmp_path / "trust.sqlite", seed=5) as store:
        for row in _jury_scores().itertuples():
            store.record_score(row.judge, row.dataset, row.method, row.criterion, row.score, rubric=rubric)
    result = CliRunner().invoke(main, ["trust", "jury", "--store", str(tmp_path / "trust.sqlite"), "--rules",
                                       str(rules), "--explain"])
    assert result.exit_code == 0, result.output
    assert "Why the jury's choice, dataset d: a" in result.output
    assert "jurors    changes to c: without juror bob" in result.output
