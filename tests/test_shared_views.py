"""Heavy views computed once for every visitor (issue 25): the next visitor's kernel reads what the first
one computed, through srdash's cache, and anything the view depends on computes it afresh."""

from __future__ import annotations

import pandas as pd
import pytest

import srdash.apps.certificate as certificate_module
from srdash.apps import dashboard
from srdash.apps.certificate import CertificateView
from srdash.analysis.kept import analysis_key
from srdash.apps.shared import shared_view
from srdash.demo.examples import accuracy_rules

# Three methods on two datasets: a wins both (0.9 > 0.5 > 0.1), so the certificate names a as the winner.
RUNS = pd.DataFrame({"method": ["a", "b", "c"] * 2, "dataset": ["d1"] * 3 + ["d2"] * 3,
                     "r2_test": [0.9, 0.5, 0.1, 0.8, 0.6, 0.2]})


def test_a_second_visitor_of_the_certificate_reads_the_first_ones(tmp_path, monkeypatch):
    first = CertificateView(RUNS, accuracy_rules(), cache=tmp_path)
    assert first.certificate is not None and first.certificate.winner == ("a",)
    calls = []
    original = certificate_module.winner_certificate
    monkeypatch.setattr(certificate_module, "winner_certificate",
                        lambda *a, **k: calls.append(1) or original(*a, **k))
    second = CertificateView(RUNS.copy(), accuracy_rules(), cache=tmp_path)  # another kernel: equal content
    assert calls == [] and second.table.value == first.table.value
    assert second.certificate is None  # shown, not computed here
    # one changed result: computed afresh, and it says so (b now wins d2)
    changed = RUNS.copy()
    changed.loc[4, "r2_test"] = 0.95
    third = CertificateView(changed, accuracy_rules(), cache=tmp_path)
    assert calls == [1] and third.table.value != first.table.value


def test_without_a_cache_every_view_computes(tmp_path):
    calls = []
    for _ in range(2):
        shared_view("x", RUNS, accuracy_rules(), lambda: calls.append(1) or {"html": ""}, cache=False)
    assert len(calls) == 2


def test_the_key_follows_settings_rules_and_content():
    rules = accuracy_rules()
    base = analysis_key("v", RUNS, rules)
    assert analysis_key("v", RUNS.copy(), rules) == base                  # the same content in another kernel
    assert analysis_key("w", RUNS, rules) != base                         # another view
    assert analysis_key("v", RUNS, rules, {"n_bootstrap": 10}) != base    # other settings of the view
    assert analysis_key("v", RUNS.iloc[::-1], rules) != base              # rows in another order: not the same table
    assert analysis_key("v", RUNS, rules.with_options(rank_method="min")) != base  # other rules


def test_the_srbench_views_of_a_second_visitor_are_read(tmp_path, monkeypatch):
    pytest.importorskip("plotly")
    from srdash.apps import more_views  # the dashboard's further views, the SRBench views among them
    from srdash.figures import lineage
    from srdash.judging.ranking import judge

    runs = RUNS.assign(components=[3, 5, 9, 4, 6, 8])
    verdict = judge(runs, accuracy_rules())
    first = more_views.lineage_view(verdict, runs, cache=tmp_path)
    monkeypatch.setattr(lineage, "srbench_views", lambda *a, **k: pytest.fail("computed again"))
    second = more_views.lineage_view(verdict, runs.copy(), cache=tmp_path)
    assert len(second.children) == len(first.children) >= 2


def test_a_second_visitor_of_the_rank_uncertainty_view_reads_the_bootstrap(tmp_path, monkeypatch):
    from srdash.apps import integrity

    first = integrity.RobustnessView(RUNS, accuracy_rules(), n_bootstrap=50, cache=tmp_path)
    assert first.result is not None and "50 redraws" in first.status.value
    monkeypatch.setattr(integrity, "bootstrap", lambda *a, **k: pytest.fail("bootstrapped again"))
    second = integrity.RobustnessView(RUNS.copy(), accuracy_rules(), n_bootstrap=50, cache=tmp_path)
    assert second.result is None                                   # shown, not computed here
    assert second.status.value == first.status.value and second.statement.value == first.statement.value
    before = second.places.outputs
    second.kind = [k for k in integrity.PLACE_PROBABILITY_KINDS if k != second.kind][0]  # the other place chart
    assert second.places.outputs and second.places.outputs != before
    # other settings of the view: computed afresh
    monkeypatch.undo()
    third = integrity.RobustnessView(RUNS, accuracy_rules(), n_bootstrap=60, cache=tmp_path)
    assert third.result is not None and "60 redraws" in third.status.value
