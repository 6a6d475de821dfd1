"""Figures of the lineage analyses (srdash.figures.lineage): content and escaping."""

import numpy as np
import pandas as pd

from srdash.analysis.fronts import pareto_fronts
from srdash.analysis.pairwise import friedman_conover, wilcoxon_holm
from srdash.analysis.profiles import performance_profiles
from srdash.analysis.recovery import solution_rates
from srdash.figures.lineage import pairwise_heatmap, pareto_figure, profiles_figure, solution_rates_figure

EVIL = "<img src=x onerror=alert(1)>"


def table():
    rng = np.random.default_rng(0)
    return pd.DataFrame({"method": np.repeat(["a", "b", EVIL], 6), "dataset": np.tile(np.arange(6), 3),
                         "r2_test": rng.uniform(0, 1, 18), "model_size": rng.integers(1, 1000, 18)})


def test_pareto_figure_marks_fronts_and_escapes_names():
    fronts = pareto_fronts(table(), n_bootstrap=30)
    figure = pareto_figure(fronts)
    json = figure.to_json()
    assert EVIL not in json and "&lt;img src=x onerror=alert(1)&gt;" in json
    markers = [t for t in figure.data if t.mode == "markers"]
    assert len(markers) == 3
    lines = [t.name for t in figure.data if t.mode == "lines"]
    assert lines == [f"front {n}" for n in sorted(fronts.table["front"].unique())]
    # the error bars are the bootstrap interval
    row = fronts.table.iloc[0]
    first = next(t for t in markers if t.x[0] == row["size"] and t.y[0] == row["accuracy"])
    assert first.error_y.array[0] == row["accuracy_high"] - row["accuracy"]
    ranked = pareto_figure(pareto_fronts(table(), space="rank", n_bootstrap=0))
    assert ranked.layout.yaxis.autorange == "reversed" and "rank" in ranked.layout.xaxis.title.text


def test_profiles_and_heatmaps():
    figure = profiles_figure(performance_profiles(table()))
    assert len(figure.data) == 3 and all("AUC" in t.name for t in figure.data)
    assert EVIL not in figure.to_json()
    heatmap = pairwise_heatmap(wilcoxon_holm(table()))
    assert heatmap.data[0].z.shape == (3, 3) and EVIL not in heatmap.to_json()
    conover = pairwise_heatmap(friedman_conover(table()))
    assert conover.layout.title.text == "Conover post-hoc tests"
    assert conover.layout.title.subtitle.text == "p-values, after the Friedman test; * p &lt; 0.05"
    rates = solution_rates(pd.DataFrame({"method": [EVIL, "b"], "target_noise": 0.0, "solution": [True, False]}),
                           n_bootstrap=0)
    assert EVIL not in solution_rates_figure(rates).to_json()


def test_srbench_views_add_time_views_when_the_runs_carry_training_time():
    from srdash.figures.lineage import srbench_views

    runs = table().assign(**{"training time (s)": np.linspace(1, 100, 18)})
    views = srbench_views(runs, n_bootstrap=0)
    titles = [view.layout.title.text for view in views]
    assert titles[3].startswith("Training time per method")
    assert (titles[4], views[4].layout.title.subtitle.text) == ("Pareto fronts",
                                                                "median accuracy vs median time (value space)")
    assert len(srbench_views(table(), n_bootstrap=0)) == 3
