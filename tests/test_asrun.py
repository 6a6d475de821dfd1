"""The "as run" presets give the SRBench 2022 organisers' numbers bit for bit.

The organisers' computation is transcribed from their notebooks in
``tests/reference/srbench2022_notebook.py`` (cell by cell, with the arithmetic of the pandas and
scipy they ran: Kahan-compensated group means, ``size / sum(1 / a)`` harmonic means), not from
srdash's steps. Here ``srbench2022-as-run`` (stage 1) and ``srbench2022-realworld-as-run`` (stage 2,
from the representative models on) are judged by srdash and compared with ``==``: every final score,
every rank and dataset score, and the places (ties included), on seeded random competitions with
DNFs, missing values and planted float-noise ties:

- ``0.3`` against ``0.1 + 0.2`` (different values: ranked apart by both);
- normalised simplicities whose means are equal in exact arithmetic but reached along different
  float paths (``PLANTED_TRIPLES``): the organisers' compensated mean makes them equal, a plain
  left-to-right sum and pandas 3.1's own mean do not (the 0.1555555555555556 case of issue 37).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from reference.srbench2022_notebook import pandas13_group_mean, scipy17_hmean, stage1, stage2, stage2_representatives
from srdash.errors import RulesError
from srdash.expressions import simplicity_from_components
from srdash.judging import compensated
from srdash.judging.kernel import weighted_harmonic_mean
from srdash.judging.ranking import judge
from srdash.judging.rules import load_rules, parse_rules
from srdash.judging.trust import realworld_verdict

CRITERIA = {"r2_test": "accuracy", "simplicity": "simplicity", "property_score": "property"}

#: Component counts of three runs of two methods. Their simplicities -round(log5(c), 1) have equal sums
#: (-1.4 - 2.1 - 1.1 = -2.0 - 0.4 - 2.2 = -4.6), so with the table's simplicity running from -2.5 to 0 the
#: normalised means are equal in exact arithmetic (2.9 / 7.5 = 0.38666...). Found by search: the
#: organisers' Kahan-compensated mean in run order makes them the same float; a plain left-to-right sum
#: and numpy's add.reduceat (pandas 3.1's groupby mean of NaN-free sorted groups) do not
#: (test_planted_triples_differ_along_other_float_paths).
PLANTED_TRIPLES = ((9, 28, 6), (24, 2, 32))


#: The SRBench 2022 synthetic track's datasets, as srdash names them (srdash/data/srbench2022_synthetic.yaml).
NAMES_2022 = tuple(f"{task}_{level}" for task, levels in [
    ("exact_formula", ("easier", "easy", "medium", "hard")), ("featureselection", ("easy", "medium", "hard")),
    ("localopt", ("easy", "medium", "hard")), ("extrapolation", ("easy", "medium", "hard")),
    ("noise", ("base", "easy", "medium", "hard"))] for level in levels)


def random_competition(rng: np.random.Generator, names: tuple[str, ...] = ()) -> pd.DataFrame:
    """3-6 methods, 3-8 datasets (d0, d1, ... or some of ``names``), 1-5 runs, DNFs, missing values and
    planted float-noise ties (on the first dataset)."""
    n_methods, n_datasets, n_runs = rng.integers(3, 7), rng.integers(3, 9), rng.integers(1, 6)
    methods = [f"m{i}" for i in range(n_methods)]
    datasets = ([str(d) for d in rng.choice(names, size=n_datasets, replace=False)] if names
                else [f"d{j}" for j in range(n_datasets)])
    rows = []
    for method in methods:
        for dataset in datasets:
            for run in range(n_runs):
                rows.append({"method": method, "dataset": dataset, "run": run,
                             "r2_test": rng.uniform(0.5, 1.0),
                             "components": float(rng.integers(1, 60)),
                             "property": float(rng.choice([0.0, 0.25, 0.5, 1.0]))})
    table = pd.DataFrame(rows)
    # float noise: on two datasets two methods' properties are 0.3 and 0.1 + 0.2 in every run
    for dataset in rng.choice(datasets, size=2, replace=False):
        first, second = rng.choice(methods, size=2, replace=False)
        table.loc[(table["dataset"] == dataset) & (table["method"] == first), "property"] = 0.3
        table.loc[(table["dataset"] == dataset) & (table["method"] == second), "property"] = 0.1 + 0.2
    # float paths: on the first dataset two methods have exactly the planted three runs; a third spans the simplicity
    # scale (1 component: 0; 60: -2.5), so that the table's normalisation is the one the triples assume
    first, second, third = rng.choice(methods, size=3, replace=False)
    planted = [{"method": m, "dataset": datasets[0], "run": run, "r2_test": rng.uniform(0.5, 1.0),
                "components": float(c), "property": float(rng.choice([0.0, 1.0]))}
               for m, triple in zip((first, second), PLANTED_TRIPLES) for run, c in enumerate(triple)]
    table = table[~((table["dataset"] == datasets[0]) & table["method"].isin([first, second]))]
    table = pd.concat([table, pd.DataFrame(planted)], ignore_index=True)
    span = table.index[(table["dataset"] == datasets[0]) & (table["method"] == third)]
    table.loc[span[0], "components"] = 1.0
    table.loc[span[-1] if len(span) > 1 else span[0], "components"] = 60.0 if len(span) > 1 else 1.0
    # missing values: a run's R2, and every run's property of one (method, dataset) (a missing rank)
    table.loc[table.index[rng.integers(len(table))], "r2_test"] = np.nan
    method, dataset = rng.choice(methods), rng.choice(datasets)
    table.loc[(table["method"] == method) & (table["dataset"] == dataset), "property"] = np.nan
    # DNFs: a few (method, dataset) cells without any run, never on the first dataset; every method keeps a result
    cells = [(m, d) for m in methods for d in datasets[1:]]
    for index in rng.choice(len(cells), size=rng.integers(1, 4), replace=False):
        m, d = cells[index]
        table = table[~((table["method"] == m) & (table["dataset"] == d))]
    # the runs in (method, dataset, run) order: the order both sum them in
    return table.sort_values(["method", "dataset", "run"], kind="stable").reset_index(drop=True)


def judged(table: pd.DataFrame, rules=None):
    runs = table.assign(simplicity=simplicity_from_components(table["components"]))
    return judge(runs.drop(columns="components"), rules or load_rules("srbench2022-as-run"))


def exact_places(scores: pd.Series) -> pd.Series:
    """Places from exact scores (1 = best, equal scores share the smallest): the notebook's sorted order."""
    return scores.rank(method="min", ascending=False).astype(int)


@pytest.mark.parametrize("seed", range(24))
def test_as_run_preset_equals_the_notebook_bit_for_bit(seed):
    assert_as_the_notebook(random_competition(np.random.default_rng(seed)))


# seeds 55, 80 and 93: a method's final score differs in the last digit when its datasets are summed by name
@pytest.mark.parametrize("seed", [*range(8), 55, 80, 93])
def test_as_run_preset_sums_the_datasets_in_the_notebooks_order(seed):
    assert_as_the_notebook(random_competition(np.random.default_rng(seed), NAMES_2022))


def test_the_dataset_order_matters_in_the_last_digit():
    # name order puts exact_formula_hard before exact_formula_medium, the notebook's groupby the other way
    table = random_competition(np.random.default_rng(55), NAMES_2022)
    winners, _ = stage1(table)
    by_name = judged(table, load_rules("srbench2022-as-run").with_options(dataset_order="name"))
    scores = by_name.leaderboard.set_index("method")["score"]
    assert scores.to_dict() != winners.to_dict()
    assert (scores - winners).abs().max() < 1e-14


def assert_as_the_notebook(table: pd.DataFrame) -> None:
    winners, df_sumh = stage1(table)
    verdict = judged(table)
    board = verdict.leaderboard.set_index("method")
    assert board["score"].to_dict() == winners.to_dict()  # == on floats: every bit
    assert board["place"].to_dict() == exact_places(winners).to_dict()
    assert list(board.index) == sorted(winners.index, key=lambda m: (-winners[m], m))
    per = verdict.per_dataset.set_index(["dataset", "method"])
    reference = df_sumh.set_index(["dataset", "algorithm"])
    ranked = per.loc[reference.index]
    for column, name in CRITERIA.items():
        expected = reference[column + "_rank"].fillna(verdict.n_methods)  # a missing rank counts as K
        assert ranked[f"{name}_rank"].tolist() == expected.tolist()
    assert ranked["dataset_score"].tolist() == reference["hmean_score"].tolist()
    # a DNF has no row in the notebook's df_sum, and no rank or dataset score in srdash
    dnf = per[per["status"] == "DNF"]
    assert not set(dnf.index) & set(reference.index)
    assert dnf["dataset_score"].isna().all() and dnf["accuracy_rank"].isna().all()


@pytest.mark.parametrize("seed", range(24))
def test_planted_float_path_tie_is_a_tie(seed):
    table = random_competition(np.random.default_rng(seed))
    _, df_sumh = stage1(table)
    per = judged(table).per_dataset
    d0 = per[per["dataset"] == "d0"].set_index("method")
    reference = df_sumh[df_sumh["dataset"] == "d0"].set_index("algorithm")
    runs = table[table["dataset"] == "d0"].groupby("method")["components"].apply(tuple)
    a, b = [m for m, components in runs.items() if components in PLANTED_TRIPLES]  # (9.0, 28.0, 6.0) == (9, 28, 6)
    assert reference.loc[a, "simplicity"] == reference.loc[b, "simplicity"]  # tied in the organisers' sums
    assert reference.loc[a, "simplicity_rank"] == reference.loc[b, "simplicity_rank"]
    assert d0.loc[a, "simplicity"] == d0.loc[b, "simplicity"]  # and in srdash's
    assert d0.loc[a, "simplicity_rank"] == d0.loc[b, "simplicity_rank"]


def test_planted_triples_differ_along_other_float_paths():
    # The plant is a real float-path case: normalised as in the table, (s + 2.5) / 2.5, the means summed left to
    # right or by numpy.add.reduceat differ in the last digit; the compensated ones (srdash, reference) do not.
    normalised = [[(float(simplicity_from_components(c)) + 2.5) / 2.5 for c in t] for t in PLANTED_TRIPLES]
    assert [(v[0] + v[1] + v[2]) / 3 for v in normalised] == [0.3866666666666667, 0.38666666666666666]
    assert [np.add.reduceat(np.array(v), [0])[0] / 3 for v in normalised] == [0.3866666666666667,
                                                                             0.38666666666666666]
    frame = pd.DataFrame({"g": ["a"] * 3 + ["b"] * 3, "v": normalised[0] + normalised[1]})
    reference = pandas13_group_mean(frame, ["g"], ["v"])["v"].tolist()
    ours = compensated.group_mean(frame[["v"]].to_numpy(), np.repeat([0, 1], 3), 2)[:, 0].tolist()
    assert reference == ours == [0.38666666666666666, 0.38666666666666666]


def test_issue_37_tie_gives_one_place():
    # Two methods equal on R2 and property whose simplicity runs are the planted triples: tied in the
    # organisers' computation, so one place; a third method spans the simplicity scale (1 and 60 components).
    rows = ([("a", r, c) for r, c in enumerate(PLANTED_TRIPLES[0])]
            + [("b", r, c) for r, c in enumerate(PLANTED_TRIPLES[1])] + [("c", 0, 1), ("c", 1, 60), ("c", 2, 5)])
    table = pd.DataFrame(rows, columns=["method", "run", "components"]).assign(
        dataset="d", r2_test=[0.9] * 6 + [0.5] * 3, property=[1.0] * 6 + [0.0] * 3)
    winners, _ = stage1(table)
    board = judged(table).leaderboard.set_index("method")
    # reference: both get ranks (K - 1, K - 2, K - 1) = (2, 1, 2) with K = 3 ('c' is simplest, the rest worst),
    # so 3 / (1/2 + 1 + 1/2) = 1.5; 'c' gets (1, 2, 1): 3 / (1 + 1/2 + 1) = 1.2
    assert winners.to_dict() == {"a": 1.5, "b": 1.5, "c": 1.2}
    assert board["score"].to_dict() == winners.to_dict()
    assert board["place"].to_dict() == {"a": 1, "b": 1, "c": 3}


def test_planted_float_noise_ties_are_ranked_apart_and_listed():
    # 0.3 and 0.1 + 0.2 are different floats: the notebook ranks them apart, so does the preset, and says so
    table = random_competition(np.random.default_rng(0))
    verdict = judged(table)
    noise = [w for w in verdict.warnings if w.startswith("Float-noise tie")]
    assert any("criterion 'property'" in w and "0.30000000000000004" in w for w in noise)


def test_the_old_shortcuts_differ_from_the_notebook():
    # the published-words preset with the notebook's mean and K - dense rank (DNF last, every criterion
    # rounded, no normalisation, missing values worst) is not the organisers' computation: it differs by points
    old = load_rules("srbench2022").with_options(run_aggregation="mean", rank_method="k-minus-dense")
    largest = 0.0
    for seed in range(20):
        table = random_competition(np.random.default_rng(seed))
        winners, _ = stage1(table)
        runs = table.assign(simplicity=simplicity_from_components(table["components"])).drop(columns="components")
        scores = judge(runs, old).leaderboard.set_index("method")["score"]
        largest = max(largest, float((scores - winners).abs().max()))
    assert largest > 1.0


def test_compensated_mean_is_pandas_1_3_group_mean():
    # srdash's vectorised loop against the reference's row-by-row transcription of pandas 1.3's group_mean,
    # on values whose sums need the compensation (multiples of 1/30, sums of up to 12), with NaN skipped
    rng = np.random.default_rng(7)
    values = rng.choice(np.linspace(0.0, 1.0, 31), size=(400, 2))
    values[rng.random(values.shape) < 0.1] = np.nan
    groups = rng.integers(0, 40, size=400)
    frame = pd.DataFrame({"g": groups, "x": values[:, 0], "y": values[:, 1]})
    expected = pandas13_group_mean(frame, ["g"], ["x", "y"]).set_index("g").reindex(range(40))
    ours = compensated.group_mean(values, groups, 40)
    np.testing.assert_array_equal(ours, expected.to_numpy())
    plain = np.array([values[groups == g, 0][~np.isnan(values[groups == g, 0])].sum() for g in range(40)])
    assert (compensated.group_mean(values, groups, 40, divide=False)[:, 0] != plain).any()  # the path matters


def test_harmonic_mean_is_scipy_1_7s():
    # scipy 1.7 (the notebooks' Python 3.9.7 era): size / sum(1 / a). Ranks (1, 1, 7): 3 / (1 + 1 + 1/7) =
    # 1.4000000000000001, where scipy >= 1.9's 1 / mean(1 / a) gives 1.4; srdash's kernel gives scipy 1.7's
    ranks = np.array([1.0, 1.0, 7.0])
    assert scipy17_hmean(ranks) == 1.4000000000000001 != 1 / np.mean(1 / ranks)
    assert float(weighted_harmonic_mean(ranks, np.ones(3))) == 1.4000000000000001
    assert scipy17_hmean(np.array([0.0, 3.0, 7.0])) == float(weighted_harmonic_mean(np.array([0.0, 3.0, 7.0]),
                                                                                   np.ones(3))) == 0.0


def test_places_option_is_checked():
    text = '[ranking]\nplaces = "{}"\n[[criteria]]\nname = "accuracy"\ncolumn = "r2_test"\n'
    assert parse_rules(text.format("exact")).places == "exact"
    with pytest.raises(RulesError, match=r"the 'places' option must be one of 'rounded', 'exact'. Got 'fuzzy'."):
        parse_rules(text.format("fuzzy"))
    text = text.replace("places", "dataset_order")
    assert parse_rules(text.format("srbench2022-task-difficulty")).dataset_order == "srbench2022-task-difficulty"
    with pytest.raises(RulesError, match=r"the 'dataset_order' option must be one of 'name', "
                                         r"'srbench2022-task-difficulty'. Got 'size'."):
        parse_rules(text.format("size"))


def test_exact_places_separate_scores_that_differ_by_float_noise():
    # Dense ranks equal to the values (fillers c, e, f hold 1, 2, 3 everywhere). a's dataset scores are
    # hmean(1,1,1) = 1, hmean(1,1,2) = 1.2, hmean(2,3,3) = 2.5714285714285716 on d1, d2, d3; b has the same
    # three on d3, d1, d2. Summed in dataset order they differ in the last bit (4.771428571428571 and
    # 4.771428571428572, found by search), so the means do too: rounded places tie a and b, exact do not.
    ranks = {"a": [(1, 1, 1), (1, 1, 2), (2, 3, 3)], "b": [(1, 1, 2), (2, 3, 3), (1, 1, 1)],
             "c": [(1, 1, 1)] * 3, "e": [(2, 2, 2)] * 3, "f": [(3, 3, 3)] * 3}
    table = pd.DataFrame([{"method": m, "dataset": f"d{i + 1}", "run": 0, "x": r[0], "y": r[1], "z": r[2]}
                          for m, per in ranks.items() for i, r in enumerate(per)])
    text = ('[ranking]\nrun_aggregation = "mean"\nrank_method = "dense"\nplaces = "{}"\n'
            + "".join(f'[[criteria]]\nname = "{c}"\ncolumn = "{c}"\n' for c in "xyz"))
    rounded, exact = (judge(table, parse_rules(text.format(p))).leaderboard.set_index("method")
                      for p in ("rounded", "exact"))
    assert exact.loc["a", "score"] < exact.loc["b", "score"]  # 4.771428571428571 / 3 < 4.771428571428572 / 3
    assert exact.loc["a", "score"] == pytest.approx(exact.loc["b", "score"], rel=1e-15)
    # f (3) and e (2) come first, c (1) last
    assert rounded["place"].to_dict() == {"f": 1, "e": 2, "a": 3, "b": 3, "c": 5}
    assert exact["place"].to_dict() == {"f": 1, "e": 2, "b": 3, "a": 4, "c": 5}


# ---------------------------------------------------------------------------
# The real-world track (srbench2022-realworld-as-run), from the representative models on.
# ---------------------------------------------------------------------------
def random_realworld(rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One representative model per (method, task), 4-9 methods, ratings 1-5, a DNF, planted ties."""
    methods = [f"m{i}" for i in range(rng.integers(4, 10))]
    tasks = ["cases", "deaths", "hosp"]
    rows = [{"method": m, "task": t, "r2_test": rng.uniform(0.0, 1.0),
             "simplicity": float(simplicity_from_components(float(rng.integers(1, 200)))),
             "expert_score": int(rng.integers(1, 6))} for m in methods for t in tasks]
    table = pd.DataFrame(rows)
    # R2 equal after rounding to 3 decimals, and a simplicity tie, on one task
    table.loc[[0, 3], "r2_test"] = [0.8124, 0.8121]
    table.loc[[1, 4], "simplicity"] = table.loc[1, "simplicity"]
    drop = rng.integers(3, len(table))  # a DNF: no model, no rating (the first method keeps them all)
    return table.drop(index=drop).reset_index(drop=True), table


@pytest.mark.parametrize("seed", range(20))
def test_realworld_as_run_equals_the_notebook_bit_for_bit(seed):
    representatives, _ = random_realworld(np.random.default_rng(seed))
    winners, df_sum = stage2(representatives[["method", "task", "r2_test", "simplicity"]],
                             representatives[["method", "task", "expert_score"]])
    runs = representatives.rename(columns={"task": "dataset"}).assign(run=0)
    entries = runs[["dataset", "method"]].assign(judge="expert", kind="rating",
                                                 value=runs["expert_score"].astype(float))
    verdict = realworld_verdict(runs.drop(columns="expert_score"), entries, "srbench2022-realworld-as-run")
    board = verdict.leaderboard.set_index("method")
    assert board["score"].to_dict() == winners.to_dict()
    assert board["place"].to_dict() == exact_places(winners).to_dict()
    per = verdict.per_dataset.set_index(["dataset", "method"]).loc[
        df_sum.set_index(["task", "algorithm"]).index]
    for column, name in {"r2_test": "accuracy", "simplicity": "simplicity", "expert_score": "trust"}.items():
        assert per[f"{name}_rank"].tolist() == df_sum[column + "_rank"].tolist()
    assert per["dataset_score"].tolist() == df_sum["trust_score"].tolist()


def random_realworld_runs(rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
    """1-10 runs per (method, task) with missing R2s, equally close middle runs and a DNF; the ratings."""
    methods = [f"m{i}" for i in range(rng.integers(4, 8))]
    rows = []
    for m in methods:
        for t in ("cases", "deaths", "hosp"):
            for run in range(rng.integers(1, 11)):
                rows.append({"method": m, "task": t, "run": run, "r2_test": float(rng.choice([0.25, 0.5, 0.75, 0.875])
                             if rng.random() < 0.4 else rng.uniform(0.0, 1.0)),
                             "components": float(rng.integers(1, 100))})
    runs = pd.DataFrame(rows)
    runs.loc[rng.choice(len(runs), size=3, replace=False), "r2_test"] = np.nan
    # two runs 0.25 and 0.75 around a median of 0.5, the later one simpler (srdash's own rule would take it)
    planted = pd.DataFrame({"method": methods[0], "task": "cases", "run": [0, 1], "r2_test": [0.25, 0.75],
                            "components": [50.0, 3.0]})
    runs = pd.concat([runs[~((runs["method"] == methods[0]) & (runs["task"] == "cases"))], planted])
    runs = runs[~((runs["method"] == methods[-1]) & (runs["task"] == "hosp"))]  # a DNF
    runs = runs.assign(simplicity=simplicity_from_components(runs["components"]))
    ratings = pd.DataFrame([{"method": m, "task": t, "expert_score": int(rng.integers(1, 6))}
                            for m, t in runs[["method", "task"]].drop_duplicates().itertuples(index=False)])
    return runs.sort_values(["method", "task", "run"], kind="stable").reset_index(drop=True), ratings


@pytest.mark.parametrize("seed", range(20))
def test_realworld_as_run_chooses_the_notebooks_representatives(seed):
    runs, ratings = random_realworld_runs(np.random.default_rng(seed))
    representatives = stage2_representatives(runs)
    winners, df_sum = stage2(representatives[["method", "task", "r2_test", "simplicity"]], ratings)
    table = runs.rename(columns={"task": "dataset"})
    entries = ratings.rename(columns={"task": "dataset", "expert_score": "value"}).assign(judge="expert",
                                                                                          kind="rating")
    verdict = realworld_verdict(table, entries, "srbench2022-realworld-as-run")
    chosen = verdict.per_dataset[verdict.per_dataset["status"] == "ok"].set_index(["dataset", "method"])
    expected = representatives.set_index(["task", "method"])
    assert chosen["accuracy"].tolist() == expected.loc[chosen.index, "r2_test"].round(3).tolist()
    assert verdict.leaderboard.set_index("method")["score"].to_dict() == winners.to_dict()
    assert verdict.leaderboard.set_index("method")["place"].to_dict() == exact_places(winners).to_dict()
    first = sorted(runs["method"].unique())[0]
    assert expected.loc[("cases", first), "run"] == 0  # 0.25 and 0.75 are equally close to 0.5: the first run


# The notebook's real-world table (uDSR 5.75 ... LassoCV 3.45) cannot be recomputed: the representative
# models' test R2 and (unsimplified) sizes were never published. What can be checked is the trust
# criterion as the notebook ranked it: K - dense rank of the 1-5 ratings, K = 9 with the LassoCV
# baseline ranked among the eight finalists.
REALDATA = Path(__file__).parents[1] / ".." / "shared" / "realdata" / "srbench2022"


@pytest.mark.skipif(not (REALDATA / "expert_scores.csv").exists(),
                    reason="../shared/realdata/srbench2022/expert_scores.csv is not here (public data kept out "
                           "of the repository)")
def test_realworld_as_run_ranks_the_expert_ratings_as_the_notebook():
    ratings = pd.read_csv(REALDATA / "expert_scores.csv").rename(columns={"task": "dataset"})
    # one run per (method, task) with equal R2 and simplicity: only the trust ranks differ
    runs = ratings[["method", "dataset"]].assign(run=0, r2_test=0.5, simplicity=-1.0)
    entries = ratings.rename(columns={"expert_score": "value"}).assign(judge="expert", kind="rating")
    verdict = realworld_verdict(runs, entries, "srbench2022-realworld-as-run")
    assert verdict.n_methods == 9  # LassoCV counts in K
    merged = verdict.per_dataset.merge(ratings, on=["dataset", "method"])
    expected = 9 - merged.groupby("dataset")["expert_score"].rank(ascending=False, method="dense")
    np.testing.assert_array_equal(merged["trust_rank"].to_numpy(), expected.to_numpy())
    cases = merged[merged["dataset"] == "cases"].set_index("method")["trust_rank"]
    assert (cases["operon"], cases["uDSR"], cases["LassoCV"]) == (8.0, 7.0, 4.0)  # ratings 5, 4, 1


@pytest.mark.parametrize("seed", range(4))
def test_as_run_verdict_does_not_depend_on_the_row_order(seed):
    # srdash sums each method's runs in run order and its datasets in the notebook's order, whatever order the
    # rows come in: the same bits from a shuffled table
    table = random_competition(np.random.default_rng(seed), NAMES_2022)
    shuffled = table.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    first, second = (judged(t).leaderboard.set_index("method")[["place", "score"]] for t in (table, shuffled))
    assert first.to_dict() == second.to_dict()
