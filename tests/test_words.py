"""Every sentence true on the page where it stands (issue 38): the organiser's letters, the judge's page after
the reveal, the consoles of `srdash review`, `srdash serve` and `srdash score`, the report, the server's log."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.apps.review import ReviewApp
from srdash.judging.trust import TrustStore

GOLDEN = Path(__file__).parent / "data" / "golden_basic.csv"


def representatives() -> pd.DataFrame:
    """Three methods on two datasets, one representative run each (as representative_runs returns them)."""
    rows = [(method, dataset, 0, model, model, r2, -3.0, 3.0, "ok", "", "x1", 5)
            for dataset in ("d1", "d2")
            for method, model, r2 in (("plain", "x1 + 2", 0.81), ("scaled", "3.0*x1", 0.75), ("third", "x1", 0.5))]
    return pd.DataFrame(rows, columns=["method", "dataset", "run", "model", "simplified", "r2_test", "simplicity",
                                       "components", "status", "reason", "features_used", "n_runs"])


@pytest.fixture
def store(tmp_path):
    with TrustStore(tmp_path / "trust.sqlite", seed=5) as opened:
        yield opened


def _rank(app: ReviewApp, dataset: str, ranks: dict[str, int]) -> None:
    app.dataset_picker.value = dataset
    for card in app.cards[dataset]:
        card.trust.value = ranks[card.method]


# ---------------------------------------------------------------- one set of letters


def test_the_organisers_flags_name_each_model_by_the_letter_its_judge_sees(store):
    # ann and bob disagree on "plain" by 2 ranks (1 vs 3): flagged above a threshold of 1
    ann = ReviewApp(representatives(), store, judge="ann")
    bob = ReviewApp(representatives(), store, judge="bob")
    _rank(ann, "d1", {"plain": 1, "scaled": 2, "third": 3})
    _rank(bob, "d1", {"plain": 3, "scaled": 2, "third": 1})
    ann_letter = {card.method: card.label for card in ann.cards["d1"]}["plain"]
    bob_letter = {card.method: card.label for card in bob.cards["d1"]}["plain"]
    org = ReviewApp(representatives(), store, judge="org", organiser=True, disagreement_threshold=1.0)
    org_letter = {card.method: card.label for card in org.cards["d1"]}["plain"]
    # seed 5 shuffles "plain" to different letters for the three of them, so a letter alone misleads
    assert len({ann_letter, bob_letter, org_letter}) >= 2
    status = org.organiser_status.value
    # the organiser's own cards say whose letters they are
    assert "org's own letters; each judge's page orders and letters the models differently" in \
        org.cards_box.children[0].value
    assert f"<li>d1: ann's {ann_letter}, rank 1; bob's {bob_letter}, rank 3</li>" in status
    assert "named by each judge's own letter, as that judge's page shows it" in status
    assert "plain" not in status                                   # still blinded
    # no letter without its owner: every "Model X" in a flag follows a judge's name
    flags = status[status.index("Flags:"):]
    assert all(re.search(r"(ann|bob)'s $", flags[:m.start()]) for m in re.finditer(r"Model [A-Z]", flags))
    org.confirm_reveal.value = "REVEAL"
    org.unblind()
    assert "d1 / plain: ranks ann 1, bob 3" in org.organiser_status.value
    assert "named by their method" in org.organiser_status.value


# ---------------------------------------------------------------- the judge's page


def test_after_the_reveal_the_judges_page_no_longer_asks_for_ranks_or_promises_saving(store):
    ann = ReviewApp(representatives(), store, judge="ann")
    assert "Give each model a trust rank" in ann.dataset_info.value
    assert "Your entries are saved as you make them" in ann.instructions.value
    org = ReviewApp(representatives(), store, judge="org", organiser=True)
    org.confirm_reveal.value = "REVEAL"
    org.unblind()
    later = ReviewApp(representatives(), store, judge="ann")
    for text in (later.dataset_info.value, later.instructions.value):
        assert "Give each model a trust rank" not in text and "saved as you make them" not in text
    assert "The review is closed: the entries below are read-only." in later.dataset_info.value
    assert "The review is closed: the models are shown with the names of the methods" in later.instructions.value
    # the organiser's own page says so at once, without a reload
    assert "saved as you make them" not in org.instructions.value
    assert "The review is closed" in org.dataset_info.value


def test_the_judges_header_names_no_file_of_the_server_and_the_organisers_does(store):
    ann = ReviewApp(representatives(), store, judge="ann", source="/srv/private/results.csv")
    assert str(store.path) not in ann.header.value and "trust.sqlite" not in ann.header.value
    assert "/srv/private" not in ann.header.value
    assert "every change is saved at once on the review's server" in ann.header.value
    org = ReviewApp(representatives(), store, judge="org", organiser=True)
    assert str(store.path) in org.header.value


def test_the_dashboards_real_world_view_names_the_store_by_its_file_name_only():
    from srdash.apps.more_views import trust_entries_note

    note = trust_entries_note("/home/organiser/private/trust.sqlite")
    assert "trust.sqlite" in note and "/home/organiser" not in note


# ---------------------------------------------------------------- consoles


def test_the_review_console_tells_judges_to_add_query_or_and_key_as_the_link_needs():
    from srdash.cli.review import judge_link_hint

    assert judge_link_hint("http://127.0.0.1:8866/") == "(each judge adds ?key=THEIR-KEY)"
    assert judge_link_hint("http://127.0.0.1:8866/?token=t") == "(each judge adds &key=THEIR-KEY)"


def test_the_serve_console_says_why_fewer_runs_are_prepared_than_were_read():
    from srdash.apps.server import prepared_runs_said

    runs = pd.DataFrame({"method": ["a"] * 584})
    excluded = SimpleNamespace(excluded=("LinearRegression", "Baseline"), flagged=())
    # 684 read, 2 methods x 50 runs excluded: 584 prepared, and the sentence says by whom
    assert prepared_runs_said(SimpleNamespace(runs=runs, filtered=excluded)) == (
        "584 runs: the qualification stage excluded 2 methods (LinearRegression, Baseline) and their runs")
    assert prepared_runs_said(SimpleNamespace(runs=runs, filtered=None)) == "584 runs"
    assert prepared_runs_said(SimpleNamespace(runs=None, filtered=None)) == "the submissions"


def test_scoring_reports_the_properties_the_datasets_declare_not_exact_rediscovery():
    from srdash.judging.pipeline import property_stage

    # SRBench 2023's datasets test no property: R² on the data only
    stage = property_stage([SimpleNamespace(property="none")] * 3)
    assert "re-discover" in stage and "Checking exact re-discovery" not in stage
    assert stage.startswith("No dataset tests a property")
    assert property_stage([SimpleNamespace(property="feature_absence")]) == \
        "Scoring the datasets' properties: feature absence"


def test_score_with_real_world_rules_points_to_the_trust_store_not_a_trust_column():
    from srdash.cli import main

    result = CliRunner().invoke(main, ["score", str(GOLDEN), "--rules", "srbench2022-realworld"])
    assert result.exit_code == 1
    assert "comes from the trust store of their review" in result.output
    assert "srdash review" in result.output and "--store STORE" in result.output
    assert "add the column to the results" not in result.output


# ---------------------------------------------------------------- the report


def test_the_report_states_the_nemenyi_sentence_once():
    from srdash.analysis.significance import significance
    from srdash.report.sections import integrity_sections

    scores = pd.DataFrame({"a": [3.0, 3.0, 3.0, 2.0], "b": [2.0, 1.0, 2.0, 3.0], "c": [1.0, 2.0, 1.0, 1.0]})
    result = significance(scores)
    (section,) = integrity_sections(SimpleNamespace(significance=result, robustness=None))
    assert result.statement in section.note
    subtitle = section.blocks[0].content.layout.title.subtitle.text.replace("<br>", " ")
    assert subtitle == result.test_label                     # the test stays on the diagram, not its verdict
    assert "declares no pair different" in result.statement and "declares no pair" not in subtitle


# ---------------------------------------------------------------- the server's log


def test_the_server_log_drops_the_shutdown_403_of_a_page_that_left_and_keeps_other_failures():
    from srdash.apps.gate import PageLeftShutdown

    def record(message: str) -> logging.LogRecord:
        return logging.LogRecord("tornado.general", logging.WARNING, "", 0, message, None, None)

    noise = "403 POST /voila/api/shutdown/4f1c-9a (127.0.0.1): '_xsrf' argument missing from POST"
    access = "403 POST /voila/api/shutdown/4f1c-9a (127.0.0.1) 1.20ms"
    assert not PageLeftShutdown().filter(record(noise))
    assert not PageLeftShutdown().filter(record(access))
    assert PageLeftShutdown().filter(record("403 GET /voila/render/review.ipynb?key=[hidden] (127.0.0.1) 2.00ms"))
    assert PageLeftShutdown().filter(record("500 POST /voila/api/kernels (127.0.0.1) 3.00ms"))


def test_the_filtered_lines_are_the_ones_tornado_and_voila_write():
    """Protects srdash/apps/gate.py:PageLeftShutdown: Voilà's shutdown route and tornado's refusal wording."""
    import inspect

    import tornado.web

    from srdash.apps.gate import configure

    assert "'_xsrf' argument missing from POST" in inspect.getsource(tornado.web.RequestHandler.check_xsrf_cookie)
    voila_app = Path(pytest.importorskip("voila").__file__).with_name("app.py").read_text(encoding="utf-8")
    assert r'"/voila/api/shutdown/(.*)"' in voila_app
    # srdash's Voilà configuration installs the filter on both loggers that write the line
    configure(SimpleNamespace(Voila=SimpleNamespace(), VoilaExecutor=SimpleNamespace(),
                              VoilaConfiguration=SimpleNamespace(), KernelProvisionerFactory=SimpleNamespace(),
                              ForkProvisioner=SimpleNamespace()))
    for name in ("tornado.general", "tornado.access"):
        assert any(type(f).__name__ == "PageLeftShutdown" for f in logging.getLogger(name).filters)
