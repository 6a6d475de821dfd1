"""The trust store and trust aggregation (srdash.judging.trust), and the real-world verdict."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pandas as pd
import pytest

from srdash.errors import RulesError, SrdashError, ValidationError
from srdash.judging.ranking import judge
from srdash.judging.rules import load_rules
from srdash.judging.trust import (
    ReviewSettings,
    TrustStore,
    TrustStoreError,
    blinded_label,
    entry_problems,
    kendalls_w,
    ranks_from_ratings,
    realworld_verdict,
    review_settings,
    trust_summary,
)

REALDATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "realdata"
EXPERT_SCORES = REALDATA / "srbench2022" / "expert_scores.csv"


@pytest.fixture
def store(tmp_path):
    with TrustStore(tmp_path / "trust.sqlite", seed=7) as opened:
        yield opened


# --------------------------------------------------------------------------- ratings -> ranks


@pytest.mark.parametrize("ratings, expected", [
    ([5, 4, 3], [1, 2, 3]),                        # no ties: highest rating = rank 1
    ([3, 5, 3, 1], [2.5, 1, 2.5, 4]),              # the two 3s occupy positions 2 and 3
    ([4, 4, 4], [2, 2, 2]),                        # all tied: the mean position (1+2+3)/3
    ([1, 2, 2, 2, 5], [5, 3, 3, 3, 1]),            # three 2s on positions 2..4 -> 3
    ([2.0], [1.0]),
])
def test_ranks_from_ratings(ratings, expected):
    assert ranks_from_ratings(ratings).tolist() == expected


def test_ranks_from_ratings_tie_rules_and_errors():
    assert ranks_from_ratings([3, 5, 3, 1], method="min").tolist() == [2, 1, 2, 4]
    assert ranks_from_ratings([3, 5, 3, 1], method="dense").tolist() == [2, 1, 2, 3]
    with pytest.raises(SrdashError, match="The 'method' option must be one of 'average', 'min', 'max', "
                                          "'dense'. Got 'mean'."):
        ranks_from_ratings([1, 2], method="mean")
    with pytest.raises(SrdashError, match="Every model needs a rating to be ranked; 1 of 3 have none."):
        ranks_from_ratings([1, np.nan, 2])


def test_ranks_from_ratings_invariant_to_order():
    ratings = np.array([3, 5, 3, 1, 4, 4])
    order = np.random.default_rng(0).permutation(len(ratings))
    assert ranks_from_ratings(ratings[order]).tolist() == ranks_from_ratings(ratings)[order].tolist()


def test_entry_problems_messages():
    labels = {"a": "Model A", "b": "Model B", "c": "Model C", "d": "Model D"}
    problems = entry_problems({"a": 2, "b": 2, "c": 2, "d": None}, kind="rank", labels=labels)
    assert problems == {
        "a": "Rank 2 is also given to Model B and Model C: give each rank once.",
        "b": "Rank 2 is also given to Model A and Model C: give each rank once.",
        "c": "Rank 2 is also given to Model A and Model B: give each rank once.",
        "d": "No rank yet.",
    }
    assert entry_problems({"a": 5, "b": 1}, kind="rank") == {
        "a": "Rank 5 is more than the number of models (2): use 1 to 2."}
    assert entry_problems({"a": 1, "b": 1}, kind="rank", strict=False) == {}
    assert entry_problems({"a": 3, "b": 3, "c": None}, kind="rating") == {"c": "No rating yet."}


# --------------------------------------------------------------------------- Kendall's W


def test_kendalls_w_extremes_and_ties():
    assert kendalls_w(np.array([[1, 2, 3], [1, 2, 3], [1, 2, 3]])) == pytest.approx(1.0)
    assert kendalls_w(np.array([[1, 2], [2, 1]])) == pytest.approx(0.0)
    # ties: judge 1 ranks (1, 2.5, 2.5), judge 2 (1, 2, 3). Rank sums 2, 4.5, 5.5 (mean 4):
    # S = 4 + 0.25 + 2.25 = 6.5; T = 2^3 - 2 = 6 for judge 1;
    # W = 12 * 6.5 / (4 * 24 - 2 * 6) = 78 / 84
    assert kendalls_w(np.array([[1, 2.5, 2.5], [1, 2, 3]])) == pytest.approx(78 / 84)
    assert np.isnan(kendalls_w(np.array([[1, 2, 3]])))          # one judge
    assert np.isnan(kendalls_w(np.array([[1.5, 1.5], [1.5, 1.5]])))   # everything tied


def test_kendalls_w_invariant_to_model_and_judge_order():
    rng = np.random.default_rng(1)
    ranks = np.array([rng.permutation(5) + 1 for _ in range(4)], dtype=float)
    w = kendalls_w(ranks)
    assert kendalls_w(ranks[:, rng.permutation(5)]) == pytest.approx(w)
    assert kendalls_w(ranks[rng.permutation(4)]) == pytest.approx(w)


# --------------------------------------------------------------------------- the store


def test_record_keeps_history_and_value_and_comment_independent(store):
    store.record("ann", "d1", "operon", kind="rank", value=2)
    store.record("ann", "d1", "operon", kind="rank", comment="uses lagged deaths <b>only</b>")
    entry = store.record("ann", "d1", "operon", kind="rank", value=1)
    assert (entry.value, entry.comment) == (1.0, "uses lagged deaths <b>only</b>")
    current = store.entries()
    assert current[["value", "comment"]].values.tolist() == [[1.0, "uses lagged deaths <b>only</b>"]]
    history = store.history()
    assert history["value"].tolist() == [2.0, 2.0, 1.0]
    assert history["comment"].tolist() == ["", "uses lagged deaths <b>only</b>", "uses lagged deaths <b>only</b>"]
    assert history["changed_at"].is_monotonic_increasing
    assert (history["source"] == "app").all()
    cleared = store.record("ann", "d1", "operon", kind="rank", value=None)
    assert cleared.value is None and len(store.history()) == 4


def test_store_is_wal_with_full_sync_and_reopens_with_its_seed(tmp_path):
    path = tmp_path / "sub" / "trust.sqlite"
    with TrustStore(path) as first:
        seed = first.seed
        mode = first._connection.execute("PRAGMA journal_mode").fetchone()[0]
        first.record("ann", "d", "m", kind="rating", value=4)
    assert mode == "wal"
    with TrustStore(path) as again:
        assert again.seed == seed
        assert again.entries()["value"].tolist() == [4.0]
    with TrustStore(path, seed=seed):
        pass
    with pytest.raises(TrustStoreError, match=rf"already has the blinding seed {seed}; it cannot change to "):
        TrustStore(path, seed=seed + 1)


def test_not_a_store_is_refused(tmp_path):
    path = tmp_path / "notes.sqlite"
    path.write_text("this is not a database " * 100)
    with pytest.raises(TrustStoreError, match=r"Cannot open the trust store .*notes.sqlite"):
        TrustStore(path)


@pytest.mark.parametrize("kind, value, message", [
    ("rank", 0, r"A trust rank must be a whole number from 1 \(most trusted\). Got 0."),
    ("rank", 1.5, r"A trust rank must be a whole number from 1 \(most trusted\). Got 1.5."),
    ("rating", 6, r"A trust rating must be a whole number from 1 \(least trust\) to 5 \(most trust\). Got 6."),
    ("rating", "high", r"A trust rating must be a whole number .* Got 'high'."),
    ("score", 1, r"The 'kind' of a trust entry must be one of 'rank', 'rating'. Got 'score'."),
])
def test_invalid_values_are_refused(store, kind, value, message):
    with pytest.raises(TrustStoreError, match=message):
        store.record("ann", "d", "m", kind=kind, value=value)
    assert store.entries().empty and store.history().empty


def test_invalid_names_and_comments_are_refused(store):
    with pytest.raises(TrustStoreError, match=r"The judge's name must be a non-empty text. Got ' '."):
        store.record(" ", "d", "m", kind="rank", value=1)
    with pytest.raises(TrustStoreError, match=r"A comment must be text. Got 3."):
        store.record("ann", "d", "m", kind="rank", comment=3)


def test_one_kind_per_judge_and_dataset(store):
    store.record("ann", "d", "a", kind="rating", value=4)
    with pytest.raises(TrustStoreError, match=r"ann already gave 'd' models a trust rating; one dataset takes "
                                              r"one kind of value"):
        store.record("ann", "d", "b", kind="rank", value=1)
    store.record("ann", "d2", "b", kind="rank", value=1)       # another dataset: fine
    store.record("bob", "d", "b", kind="rank", value=1)        # another judge: fine


def test_blinded_order_is_deterministic_per_judge_and_dataset(tmp_path):
    methods = ["operon", "pysr", "uDSR", "QLattice", "Bingo"]
    with TrustStore(tmp_path / "a.sqlite", seed=11) as store:
        order = store.blinded_order("ann", "cases", methods)
        assert sorted(order) == sorted(methods)
        assert store.blinded_order("ann", "cases", list(reversed(methods))) == order   # input order irrelevant
        orders = {tuple(store.blinded_order(judge, "cases", methods)) for judge in ("ann", "bob", "cy", "dee")}
        assert len(orders) > 1
        assert store.blinded_order("ann", "hosp", methods) != order or store.blinded_order(
            "ann", "deaths", methods) != order
        labels = store.blinded_labels("ann", "cases", methods)
        assert labels[order[0]] == "Model A" and labels[order[-1]] == "Model E"
    with TrustStore(tmp_path / "a.sqlite") as reopened:      # the seed lives in the file
        assert reopened.blinded_order("ann", "cases", methods) == order
    with TrustStore(tmp_path / "b.sqlite", seed=12) as other:
        others = [other.blinded_order(j, "cases", methods) for j in ("ann", "bob", "cy", "dee")]
    with TrustStore(tmp_path / "a.sqlite") as reopened:
        mine = [reopened.blinded_order(j, "cases", methods) for j in ("ann", "bob", "cy", "dee")]
    assert others != mine


def test_blinded_labels_beyond_z():
    assert [blinded_label(i) for i in (0, 25, 26, 51, 52, 701, 702)] == [
        "Model A", "Model Z", "Model AA", "Model AZ", "Model BA", "Model ZZ", "Model AAA"]


def test_position_to_come_back_to(store):
    assert store.position("ann") is None
    store.set_position("ann", "hosp")
    store.set_position("ann", "deaths")
    assert store.position("ann") == "deaths"
    assert store.position("bob") is None


def test_unblinding_closes_the_review(store):
    store.record("ann", "d", "m", kind="rank", value=1)
    assert store.closed is None
    at, by = store.unblind(by="org")
    assert store.closed == (at, "org")
    assert store.unblind(by="someone else") == (at, "org")      # the first time is kept
    with pytest.raises(TrustStoreError, match=r"The review was closed on .* by org, who revealed the method "
                                              r"names; trust entries can no longer change."):
        store.record("ann", "d", "m", kind="rank", value=2)
    assert store.events()["action"].tolist() == ["unblind"]


def test_a_saved_entry_survives_kill_9(tmp_path):
    path = tmp_path / "trust.sqlite"
    script = (
        "import sys, time\n"
        "from srdash.judging.trust import TrustStore\n"
        f"store = TrustStore({str(path)!r}, seed=3)\n"
        "store.record('ann', 'cases', 'operon', kind='rank', value=1, comment='saved before the kill')\n"
        "print('saved', flush=True)\n"
        "time.sleep(60)\n"
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().strip() == "saved"
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == -signal.SIGKILL
    with TrustStore(path) as reopened:
        assert reopened.entries()[["method", "value", "comment"]].values.tolist() == [
            ["operon", 1.0, "saved before the kill"]]


def test_two_judges_writing_at_once_do_not_overwrite_each_other(tmp_path):
    path = tmp_path / "trust.sqlite"
    TrustStore(path, seed=1).close()
    start = threading.Barrier(2)
    errors = []

    def review(judge: str) -> None:
        try:
            with TrustStore(path) as own:      # each judge's app has its own connection
                start.wait()
                for i in range(40):
                    own.record(judge, f"d{i % 4}", f"m{i // 4}", kind="rating", value=1 + i % 5,
                               comment=f"{judge} {i}")
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=review, args=(judge,)) for judge in ("ann", "bob")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    with TrustStore(path) as check:
        entries = check.entries()
        assert entries.groupby("judge").size().to_dict() == {"ann": 40, "bob": 40}
        assert (entries["comment"].str.split().str[0] == entries["judge"]).all()
        assert len(check.history()) == 80


# --------------------------------------------------------------------------- CSV


def test_csv_round_trip(tmp_path, store):
    store.record("ann", "d1", "a", kind="rank", value=1, comment='says "fine", then <script>x</script>')
    store.record("ann", "d1", "b", kind="rank", value=2)
    store.record("bob", "d1", "a", kind="rating", value=3)
    store.record("bob", "d1", "b", kind="rating", comment="no value yet")
    path = tmp_path / "trust.csv"
    assert store.export_csv(path) == 4
    with TrustStore(tmp_path / "copy.sqlite") as copy:
        assert copy.import_csv(path) == 4
        columns = ["judge", "dataset", "method", "kind", "value", "comment"]
        pd.testing.assert_frame_equal(copy.entries()[columns], store.entries()[columns])
        assert set(copy.history()["source"]) == {"import:trust.csv"}
        assert copy.events()["action"].tolist() == ["import"]


def test_csv_import_reports_every_problem_at_once(tmp_path, store):
    path = tmp_path / "bad.csv"
    path.write_text("judge,dataset,method,kind,value\n"
                    "ann,d1,a,rank,1\n"
                    ",d1,b,rank,2\n"
                    "ann,d1,c,grade,3\n"
                    "ann,d1,d,rank,many\n"
                    "ann,d1,a,rank,2\n"
                    "ann,d1,e,rating,9\n")
    with pytest.raises(ValidationError) as caught:
        store.import_csv(path)
    message = str(caught.value)
    assert "(5 problems)" in message
    assert "row 2, column 'judge': the judge is empty." in message
    assert "row 3, column 'kind': 'grade' is not a kind; expected 'rank' or 'rating'." in message
    assert "row 4, column 'value': 'many' is not a number." in message
    assert "row 5: ann / d1 / a was already given in row 1; give one row per model." in message
    assert "row 6, column 'value': A trust rating must be a whole number from 1" in message
    assert store.entries().empty          # nothing written


def test_csv_import_needs_a_judge_and_a_kind(tmp_path, store):
    path = tmp_path / "scores.csv"
    path.write_text("task,method,value\ncases,a,3\n")
    with pytest.raises(ValidationError, match=r"(?s)no 'judge' column; give the judge's name \(--judge NAME\)"
                                              r".*the value column 'value' does not say whether it holds ranks "
                                              r"or ratings; give --kind rank or --kind rating."):
        store.import_csv(path)
    (tmp_path / "score.csv").write_text("task,method,score\ncases,a,3\n")
    with pytest.raises(ValidationError, match=r"no 'value', 'expert_score', 'rating', 'rank' or 'trust' column. "
                                              r"Columns: task, method, score."):
        store.import_csv(tmp_path / "score.csv", judge="x")
    assert store.import_csv(path, judge="expert", kind="rating") == 1
    with pytest.raises(ValidationError, match=r"no 'dataset' or 'task' column. Columns: dataset_name"):
        (tmp_path / "other.csv").write_text("dataset_name,method,value\nx,a,1\n")
        store.import_csv(tmp_path / "other.csv", judge="x", kind="rank")
    with pytest.raises(TrustStoreError, match="Cannot read the trust file"):
        store.import_csv(tmp_path / "missing.csv", judge="x")


# --------------------------------------------------------------------------- aggregation


def entries_frame(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["judge", "dataset", "method", "kind", "value"]).assign(
        comment="", updated_at="")


def test_trust_summary_leaves_out_incomplete_and_inconsistent_entries():
    models = {"d": ["a", "b", "c"]}
    entries = entries_frame([
        ("ann", "d", "a", "rank", 1), ("ann", "d", "b", "rank", 2), ("ann", "d", "c", "rank", 3),
        ("bob", "d", "a", "rank", 1), ("bob", "d", "b", "rank", 1), ("bob", "d", "c", "rank", 3),  # rank 1 twice
        ("cy", "d", "a", "rating", 5), ("cy", "d", "b", "rating", 2),                              # c missing
        ("dee", "d", "a", "rating", 2), ("dee", "d", "b", "rating", 4), ("dee", "d", "c", "rating", 4),
        ("dee", "d", "zz", "rating", 1),                                                          # not reviewed
    ])
    summary = trust_summary(entries, models)
    # ann ranks (1, 2, 3); dee's ratings (2, 4, 4) -> ranks (3, 1.5, 1.5); mean: a 2, b 1.75, c 2.25
    assert summary.table.set_index("method")["trust"].to_dict() == {"a": 2.0, "b": 1.75, "c": 2.25}
    assert summary.table["judges"].tolist() == [2, 2, 2]
    assert summary.problems["detail"].tolist() == [
        "left out: a: Rank 1 is also given to b: give each rank once.; "
        "b: Rank 1 is also given to a: give each rank once.",
        "left out: 1 of 3 models without a value",
        "entries for models not under review ignored: zz",
    ]
    assert summary.problems["judge"].tolist() == ["bob", "cy", "dee"]


def test_trust_summary_median_aggregation_and_disagreements():
    entries = entries_frame([
        (j, "d", m, "rank", r) for j, ranks in (("ann", (1, 2, 3)), ("bob", (1, 3, 2)), ("cy", (3, 2, 1)))
        for m, r in zip("abc", ranks)])
    summary = trust_summary(entries, settings=ReviewSettings(aggregation="median-rank"))
    assert summary.table.set_index("method")["trust"].to_dict() == {"a": 1.0, "b": 2.0, "c": 2.0}
    # a: ranks 1, 1, 3 -> spread 2 (std .943); c: 3, 2, 1 -> spread 2 (std .816); b: 2, 3, 2 -> 1
    assert summary.disagreements[["method", "ranks", "spread"]].values.tolist() == [
        ["a", "ann 1, bob 1, cy 3", 2.0], ["c", "ann 3, bob 2, cy 1", 2.0], ["b", "ann 2, bob 3, cy 2", 1.0]]
    # rank sums 5, 7, 6 (mean 6): S = 2; W = 12 * 2 / (9 * 24) = 1/9
    assert summary.agreement["kendalls_w"].iloc[0] == pytest.approx(1 / 9)


def test_review_settings_from_rules():
    rules = load_rules("srbench2022-realworld")
    assert review_settings(rules) == ReviewSettings()
    rated = replace(rules, sections=MappingProxyType({"review": {"trust_input": "rating", "strict_ranks": False}}))
    assert review_settings(rated) == ReviewSettings(trust_input="rating", strict_ranks=False)
    bad = replace(rules, sections=MappingProxyType({"review": {"trust_input": "stars"}}))
    with pytest.raises(RulesError, match=r"rules 'srbench2022-realworld', \[review\]: review settings: the "
                                         r"'trust_input' option must be one of 'rank', 'rating'. Got 'stars'."):
        review_settings(bad)
    typo = replace(rules, sections=MappingProxyType({"review": {"trust": "rank"}}))
    with pytest.raises(RulesError, match=r"unknown key\(s\) trust in \[review\]. Allowed: aggregation, "
                                         r"strict_ranks, trust_input."):
        review_settings(typo)


# --------------------------------------------------------------------------- the real-world verdict


def realworld_runs() -> pd.DataFrame:
    # two datasets, three methods; 3 runs each, the median run is the middle value
    rows = []
    for dataset, values in {"d1": {"a": (0.9, 0.8, 0.7), "b": (0.6, 0.5, 0.4), "c": (0.95, 0.9, 0.85)},
                            "d2": {"a": (0.5, 0.6, 0.7), "b": (0.9, 0.8, 0.85), "c": (0.3, 0.2, 0.1)}}.items():
        for method, r2s in values.items():
            for run, r2 in enumerate(r2s):
                rows.append((method, dataset, run, r2, {"a": -1.0, "b": -0.5, "c": -2.0}[method]))
    return pd.DataFrame(rows, columns=["method", "dataset", "run", "r2_test", "simplicity"])


def test_realworld_verdict_uses_trust_as_a_criterion():
    # Representatives: d1 a .8, b .5, c .9; d2 a .6, b .85, c .2 (median runs).
    # trust ranks (1 = most trusted) d1: a 1, b 2, c 3; d2: a 3, b 1, c 2 -> ranking ranks (K = 3, higher better)
    # d1: accuracy a2 b1 c3; simplicity a2 b3 c1; trust a3 b2 c1
    #     a (2,2,3) = 3/(1/2+1/2+1/3) = 2.25; b (1,3,2) = 3/(1+1/3+1/2) = 1.636364; c (3,1,1) = 3/(1/3+2) = 1.285714
    # d2: accuracy a2 b3 c1; simplicity a2 b3 c1; trust a1 b3 c2
    #     a (2,2,1) = 3/(1/2+1/2+1) = 1.5; b (3,3,3) = 3; c (1,1,2) = 3/(1+1+1/2) = 1.2
    # final: a 1.875, b 2.318182, c 1.242857
    entries = entries_frame([("ann", "d1", m, "rank", r) for m, r in zip("abc", (1, 2, 3))]
                            + [("ann", "d2", m, "rank", r) for m, r in zip("abc", (3, 1, 2))])
    verdict = realworld_verdict(realworld_runs(), entries, "srbench2022-realworld")
    scores = dict(zip(verdict.leaderboard["method"], verdict.leaderboard["score"]))
    assert scores == pytest.approx({"a": 1.875, "b": 2.318182, "c": 1.242857}, abs=1e-6)
    assert [c.name for c in verdict.criteria] == ["accuracy", "simplicity", "trust"]
    per = verdict.per_dataset.set_index(["dataset", "method"])
    assert per.loc[("d1", "c"), "accuracy"] == 0.9 and per.loc[("d1", "c"), "trust_rank"] == 1.0
    assert not [w for w in verdict.warnings if "trust" in w.lower()]


def test_realworld_verdict_without_complete_review_warns():
    entries = entries_frame([("ann", "d1", m, "rank", r) for m, r in zip("abc", (1, 2, 3))]
                            + [("ann", "d2", "a", "rank", 1)])
    verdict = realworld_verdict(realworld_runs(), entries)
    per = verdict.per_dataset.set_index(["dataset", "method"])
    assert per.xs("d2")["trust_rank"].tolist() == [2.0, 2.0, 2.0]   # nobody reviewed d2: all tie
    assert "No complete trust review yet on d2: there, every model gets the same (worst) trust value." \
        in verdict.warnings
    assert "Trust entries of ann on d2: left out: 2 of 3 models without a value." in verdict.warnings
    empty = realworld_verdict(realworld_runs(), entries_frame([]))
    assert [c.name for c in empty.criteria] == ["accuracy", "simplicity"]
    assert any("Criterion 'trust' has no data" in w for w in empty.warnings)
    assert any("No trust entry yet: this real-world verdict is provisional" in w for w in empty.warnings)


def test_ranking_engine_treats_trust_as_a_normal_lower_is_better_column():
    table = pd.DataFrame({"method": ["a", "b", "c"], "dataset": "d", "run": 0,
                          "r2_test": [0.5, 0.5, 0.5], "simplicity": [-1.0, -1.0, -1.0],
                          "trust": [2.5, 1.0, np.nan]})
    per = judge(table, load_rules("srbench2022-realworld")).per_dataset.set_index("method")
    # b most trusted -> K = 3; a 2; c missing = worst -> 1
    assert per["trust_rank"].to_dict() == {"a": 2.0, "b": 3.0, "c": 1.0}


# --------------------------------------------------------------------------- the 2022 expert


@pytest.mark.realdata
def test_2022_expert_ratings_import_and_give_the_published_trust_ranks(tmp_path):
    if not EXPERT_SCORES.is_file():
        pytest.skip(f"the SRBench 2022 expert ratings are not available at {EXPERT_SCORES}")
    # Hand-derived from expert_scores.csv (ratings 1 = least, 5 = most trust; 9 methods per task).
    # Trust rank, 1 = most trusted, tied ratings share the mean of their positions:
    # cases:  5 operon -> 1; 4 QLattice uDSR -> positions 2,3 -> 2.5;
    #         3 Bingo PS-Tree geneticengine pysr -> positions 4..7 -> 5.5; 2 E2ET -> 8; 1 LassoCV -> 9
    # hosp:   5 QLattice geneticengine uDSR -> 1..3 -> 2; 4 Bingo operon pysr -> 4..6 -> 5;
    #         3 PS-Tree -> 7; 2 E2ET -> 8; 1 LassoCV -> 9
    # deaths: 5 QLattice -> 1; 4 Bingo geneticengine operon uDSR -> 2..5 -> 3.5; 3 PS-Tree pysr -> 6,7 -> 6.5;
    #         2 E2ET -> 8; 1 LassoCV -> 9
    expected = {
        "cases": {"operon": 1, "QLattice": 2.5, "uDSR": 2.5, "Bingo": 5.5, "PS-Tree": 5.5,
                  "geneticengine": 5.5, "pysr": 5.5, "E2ET": 8, "LassoCV": 9},
        "hosp": {"QLattice": 2, "geneticengine": 2, "uDSR": 2, "Bingo": 5, "operon": 5, "pysr": 5,
                 "PS-Tree": 7, "E2ET": 8, "LassoCV": 9},
        "deaths": {"QLattice": 1, "Bingo": 3.5, "geneticengine": 3.5, "operon": 3.5, "uDSR": 3.5,
                   "PS-Tree": 6.5, "pysr": 6.5, "E2ET": 8, "LassoCV": 9},
    }
    with TrustStore(tmp_path / "trust.sqlite") as store:
        assert store.import_csv(EXPERT_SCORES, judge="2022 expert") == 27   # kind: 'expert_score' is a rating
        entries = store.entries()
    assert set(entries["kind"]) == {"rating"}
    summary = trust_summary(entries)
    assert summary.problems.empty
    got = {task: dict(zip(group["method"], group["trust"])) for task, group in summary.table.groupby("dataset")}
    assert got == expected
    # As a criterion (srbench2022-realworld: higher rank = better, ties average, K = 9) the trust rank is
    # K + 1 - the trust rank above, e.g. cases operon 9, QLattice/uDSR 7.5, ... LassoCV 1.
    # The organisers' notebook ranked K - dense rank: cases 5 -> 8, 4 -> 7, 3 -> 6, 2 -> 5, 1 -> 4.
    table = summary.table.assign(run=0)
    for rank_method, transform in (("average", lambda r, dense: 10 - r),
                                   ("k-minus-dense", lambda r, dense: 9 - dense)):
        rules = load_rules("srbench2022-realworld").with_options(rank_method=rank_method)
        # the trust criterion alone (the table has no accuracy or simplicity)
        rules = replace(rules, criteria=(rules.criterion("trust"),))
        per = judge(table, rules).per_dataset
        for task, ranks in expected.items():
            dense = {m: d for d, m_group in enumerate(sorted(set(ranks.values())), start=1)
                     for m in [m for m, r in ranks.items() if r == m_group]}
            got_ranks = per[per["dataset"] == task].set_index("method")["trust_rank"].to_dict()
            assert got_ranks == {m: transform(r, dense[m]) for m, r in ranks.items()}, (task, rank_method)


# --------------------------------------------------------------------------- the CLI


def test_cli_trust_export_and_import(tmp_path):
    from click.testing import CliRunner

    from srdash.cli import main

    runner = CliRunner()
    source = tmp_path / "scores.csv"
    source.write_text("task,method,expert_score,comment\ncases,operon,5,clear\ncases,pysr,3,\n")
    store = tmp_path / "trust.sqlite"
    result = runner.invoke(main, ["trust", "import", str(source), "--store", str(store), "--judge", "expert",
                                  "--create"])
    assert result.exit_code == 0, result.output
    assert f"Imported 2 entries from {source} into {store}" in result.output
    exported = tmp_path / "out.csv"
    result = runner.invoke(main, ["trust", "export", "--store", str(store), "-o", str(exported)])
    assert result.exit_code == 0, result.output
    table = pd.read_csv(exported, keep_default_na=False)
    assert table[["judge", "dataset", "method", "kind", "value", "comment"]].values.tolist() == [
        ["expert", "cases", "operon", "rating", 5.0, "clear"], ["expert", "cases", "pysr", "rating", 3.0, ""]]
    result = runner.invoke(main, ["trust", "import", str(source), "--store", str(store)])
    assert result.exit_code == 1
    assert "no 'judge' column; give the judge's name (--judge NAME)." in result.output


def test_a_comment_never_changes_the_kind_of_an_existing_value(store):
    store.record("ann", "d", "a", kind="rating", value=4)
    entry = store.record("ann", "d", "a", kind="rank", comment="added later by an app asking for ranks")
    assert (entry.kind, entry.value) == ("rating", 4.0)
    assert store.entries()[["kind", "value"]].values.tolist() == [["rating", 4.0]]


def test_another_applications_database_is_left_alone(tmp_path):
    import sqlite3

    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
    with pytest.raises(TrustStoreError, match=r"is an SQLite database, but not an srdash trust store "
                                              r"\(its tables: notes\)"):
        TrustStore(path)
    with sqlite3.connect(path) as connection:
        tables = [r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    assert tables == ["notes"]


# --------------------------------------------------------------------------- hostile input (issue 14, class 6)


def _file_state(path):
    """The bytes of the store and which of its companion files exist."""
    return path.read_bytes(), sorted(p.name for p in path.parent.iterdir())


def test_export_opens_the_store_read_only_and_changes_nothing(tmp_path):
    import os
    import stat

    from click.testing import CliRunner

    from srdash.cli import main

    folder = tmp_path / "media"
    folder.mkdir()
    path = folder / "trust.sqlite"
    with TrustStore(path, seed=1) as store:
        store.record("ann", "d", "a", kind="rank", value=1)
    path.chmod(stat.S_IRUSR | stat.S_IRGRP)
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)            # a store on read-only media
    try:
        before = _file_state(path)
        with TrustStore(path, read_only=True) as store:
            assert store.entries()["value"].tolist() == [1.0] and store.jury_scores().empty
            with pytest.raises(TrustStoreError, match=r"was opened read-only; it cannot change"):
                store.record("ann", "d", "a", kind="rank", value=2)
        out = tmp_path / "out.csv"
        result = CliRunner().invoke(main, ["trust", "export", "--store", str(path), "-o", str(out)])
        assert result.exit_code == 0, result.output
        assert "Wrote 1 entries" in result.output and len(out.read_text().splitlines()) == 2
        assert _file_state(path) == before                    # not a byte, not a -wal or -shm file
    finally:
        folder.chmod(stat.S_IRWXU)
        os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)


def test_export_of_a_mistyped_store_is_an_error_and_creates_nothing(tmp_path):
    from click.testing import CliRunner

    from srdash.cli import main

    typo = tmp_path / "trsut.sqlite"
    result = CliRunner().invoke(main, ["trust", "export", "--store", str(typo), "-o", str(tmp_path / "o.csv")])
    assert result.exit_code == 1
    assert f"There is no trust store at '{typo}' (no such file)" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    with pytest.raises(TrustStoreError, match=r"\(a folder\)"):
        TrustStore(tmp_path, create=False)
    with pytest.raises(TrustStoreError, match=r"no such file"):
        TrustStore(typo, read_only=True)
    assert not typo.exists()


def test_read_only_refuses_a_file_that_is_not_a_store(tmp_path):
    import sqlite3

    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
    with pytest.raises(TrustStoreError, match=r"is not an srdash trust store \(its tables: notes\)"):
        TrustStore(path, read_only=True)


HOSTILE = Path(__file__).parent / "data" / "hostile"


def test_import_refuses_non_finite_values_with_their_rows(tmp_path, store):
    # tests/data/hostile/trust_non_finite.csv: inf, -inf, nan, 1e400 (overflows to inf) and a fine row
    with pytest.raises(ValidationError) as caught:
        store.import_csv(HOSTILE / "trust_non_finite.csv", judge="ann")
    lines = str(caught.value).splitlines()
    assert lines[0].endswith("is not valid (4 problems):")
    for row, text in ((1, "inf"), (2, "-inf"), (3, "nan"), (4, "1e400")):
        assert any(f"trust_non_finite.csv, row {row}, column 'rank': A trust rank must be a whole number "
                   f"from 1 (most trusted). Got " in line for line in lines), (row, text)
    assert store.entries().empty


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan"), 1e400])
def test_record_refuses_non_finite_values(store, value):
    for kind in ("rank", "rating"):
        with pytest.raises(TrustStoreError, match=r"must be a whole number"):
            store.record("ann", "d", "m", kind=kind, value=value)
    assert store.history().empty


# --------------------------------------------------------------------------- roles (issue 14, class 8)


def test_access_keys_identify_their_holder_and_only_a_hash_is_kept(tmp_path):
    import sqlite3

    path = tmp_path / "trust.sqlite"
    with TrustStore(path, seed=2) as store:
        assert not store.keys_issued
        key = store.issue_key("ann")
        organiser = store.issue_key("org", role="organiser")
        assert store.keys_issued and key != organiser and len(key) >= 32
        assert store.identify(key) == ("ann", "judge")
        assert store.identify(organiser) == ("org", "organiser")
        with pytest.raises(TrustStoreError, match=r"This access key is not valid"):
            store.identify(key[:-1])
        with pytest.raises(TrustStoreError, match=r"needs your personal link"):
            store.identify(None)
        with pytest.raises(TrustStoreError, match=r"'role' of an access key must be one of 'judge', 'organiser'"):
            store.issue_key("bob", role="admin")
        assert store.revoke_keys("ann") == 1
        with pytest.raises(TrustStoreError, match=r"This access key was revoked on"):
            store.identify(key)
    raw = path.read_bytes() + b"".join(p.read_bytes() for p in tmp_path.iterdir() if p != path)
    assert key.encode() not in raw and organiser.encode() not in raw
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT count(*) FROM access_keys").fetchone() == (2,)


def test_a_judge_session_sees_only_their_own_entries_and_cannot_unblind(store):
    ann = store.session(store.issue_key("ann"))
    org = store.session(store.issue_key("org", role="organiser"))
    store.record("bob", "d", "a", kind="rank", value=2, comment="bob's")
    ann.record("d", "a", kind="rank", value=1)
    ann.record_score("d", "a", "insight", 4)
    store.record_score("bob", "d", "a", "insight", 2)
    assert ann.entries()["judge"].tolist() == ["ann"] and ann.jury_scores()["judge"].tolist() == ["ann"]
    assert ann.history()["judge"].unique().tolist() == ["ann"] and ann.judges() == ["ann"]
    assert sorted(org.entries()["judge"]) == ["ann", "bob"]
    for action, call in (("reveal the methods", ann.unblind), ("reopen the review", ann.reopen),
                         ("read the review's events", ann.events)):
        with pytest.raises(TrustStoreError, match=f"Only the organiser can {action}; ann holds a judge's key"):
            call()
    assert store.closed is None
    assert not hasattr(ann, "seed") and not hasattr(ann, "__dict__")   # nothing but judge, role and the store
    assert ann.blinded_labels("d", ["a", "b"]) == store.blinded_labels("ann", "d", ["a", "b"])
    org.unblind()
    assert store.closed[1] == "org"
    org.reopen(reason="bob asked for a day more")
    assert store.closed is None
    assert store.events()["action"].tolist() == ["issue-key", "issue-key", "unblind", "reopen"]
    assert store.events()["detail"].iloc[-1].endswith(": bob asked for a day more")


def test_cli_init_issue_key_revoke_and_reopen(tmp_path):
    from click.testing import CliRunner

    from srdash.cli import main

    runner = CliRunner()
    path = tmp_path / "trust.sqlite"
    result = runner.invoke(main, ["trust", "issue-key", "--store", str(path), "--judge", "ann"])
    assert result.exit_code == 1 and "There is no trust store at" in result.output and not path.exists()
    assert runner.invoke(main, ["trust", "init", "--store", str(path), "--seed", "4"]).exit_code == 0
    result = runner.invoke(main, ["trust", "init", "--store", str(path)])
    assert result.exit_code == 1 and "already exists; give the path of a new file" in result.output
    result = runner.invoke(main, ["trust", "issue-key", "--store", str(path), "--judge", "ann",
                                  "--url", "http://host:8866/?token=t"])
    assert result.exit_code == 0, result.output
    link = result.stdout.strip().splitlines()[-1]
    assert link.startswith("http://host:8866/?token=t&key=")
    with TrustStore(path, read_only=True) as store:
        assert store.seed == 4 and store.identify(link.split("key=")[1]) == ("ann", "judge")
    result = runner.invoke(main, ["trust", "revoke", "--store", str(path), "--judge", "ann"])
    assert result.exit_code == 0 and "Revoked 1 key(s) of ann" in result.output
    result = runner.invoke(main, ["trust", "reopen", "--store", str(path), "--by", "org"])
    assert result.exit_code == 0 and "The review is open; nothing to do." in result.output
    with TrustStore(path) as store:
        store.unblind(by="org")
    result = runner.invoke(main, ["trust", "reopen", "--store", str(path), "--by", "org", "--reason", "typo"])
    assert result.exit_code == 0, result.output
    with TrustStore(path, read_only=True) as store:
        assert store.closed is None and store.events()["action"].tolist()[-1] == "reopen"


def test_read_only_sees_what_a_live_writer_just_saved(tmp_path):
    path = tmp_path / "trust.sqlite"
    with TrustStore(path, seed=1) as writer:
        writer.record("ann", "d", "a", kind="rank", value=1)       # still in the write-ahead log
        assert Path(f"{path}-wal").exists()
        with TrustStore(path, read_only=True) as reader:
            assert reader.entries()["value"].tolist() == [1.0]
        writer.record("ann", "d", "a", kind="rank", value=2)       # the writer is unaffected
    with TrustStore(path, read_only=True) as reader:
        assert reader.entries()["value"].tolist() == [2.0]


def test_the_trust_package_keeps_every_name_the_module_exported():
    # judging/trust.py's __all__ before it became a package (issue 36), in its order, and the two
    # constants imported from it without being listed; TrustStoreError keeps its public module name.
    import srdash.judging.trust as trust

    exported = ["TRUST_KINDS", "RATING_SCALE", "AGGREGATIONS", "TrustStoreError", "ReviewSettings",
                "review_settings", "Entry", "TrustStore", "ROLES", "ReviewSession", "default_store_path",
                "blinded_label", "ranks_from_ratings", "entry_problems", "kendalls_w", "TrustSummary",
                "trust_summary", "realworld_table", "realworld_verdict"]
    assert trust.__all__ == exported
    assert [name for name in exported + ["MAX_COMMENT_CHARS", "SCHEMA_VERSION"] if not hasattr(trust, name)] == []
    assert trust.MAX_COMMENT_CHARS == 10_000 and trust.SCHEMA_VERSION == 1
    assert f"{TrustStoreError.__module__}.{TrustStoreError.__qualname__}" == "srdash.judging.trust.TrustStoreError"
