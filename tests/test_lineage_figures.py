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
    markers = [t for t in figure.data if t.mode == "markers+text"]
    assert len(markers) == 3
    # each point is named beside it (not only "front 1..n" in the legend), escaped
    assert sorted(t.text[0] for t in markers) == sorted(["a", "b", "&lt;img src=x onerror=alert(1)&gt;"])
    assert all(t.text[0] == t.name for t in markers)
    lines = [t.name for t in figure.data if t.mode == "lines"]
    assert lines == [f"front {n}" for n in sorted(fronts.table["front"].unique())]
    # the error bars are the bootstrap interval
    row = fronts.table.iloc[0]
    first = next(t for t in markers if t.x[0] == row["size"] and t.y[0] == row["accuracy"])
    assert first.error_y.array[0] == row["accuracy_high"] - row["accuracy"]
    ranked = pareto_figure(pareto_fronts(table(), space="rank", n_bootstrap=0))
    assert ranked.layout.yaxis.autorange == "reversed" and "rank" in ranked.layout.xaxis.title.text


def test_pareto_labels_of_points_close_together_go_to_different_sides():
    from srdash.figures.lineage import CHAR_WIDTH, label_box, label_positions, labels_clash

    # three methods almost on one point, two far away: no two labels overlap beyond the boxes' slack of a
    # tenth of a line (in plot fractions, as
    # label_positions scales the axes: log sizes and accuracy each spread over 0.05..0.95)
    x, y = [1, 30, 30.5, 31, 900], [0.1, 0.6, 0.6, 0.61, 0.9]
    names = ["Linear", "GP-GOMEA", "Operon", "AFP_FE", "MRGP"]
    positions = label_positions(x, y, names, log_x=True)
    assert len(set(positions[1:4])) == 3
    xs = 0.05 + 0.9 * np.log10(x) / np.log10(900)
    ys = 0.05 + 0.9 * (np.array(y) - 0.1) / 0.8
    boxes = [label_box(p, px, py, CHAR_WIDTH * len(n)) for p, px, py, n in zip(positions, xs, ys, names)]
    assert not any(labels_clash(boxes[i], boxes[j]) for i in range(5) for j in range(i + 1, 5))


def test_thirty_methods_get_thirty_looks_in_every_figure_that_draws_methods():
    from srdash.figures.leaderboard import simplicity_curve
    from srdash.figures.styles import method_style

    assert len({method_style(i)[:2] for i in range(30)}) == 30
    methods = [f"m{i:02d}" for i in range(30)]
    runs = pd.DataFrame({"method": methods, "components": np.arange(1, 31)})
    curve = simplicity_curve(runs, max_components=40)
    assert len({(t.marker.color, t.marker.symbol) for t in curve.data[1:]}) == 30
    scores = pd.DataFrame({"method": np.repeat(methods, 2), "dataset": np.tile(["d1", "d2"], 30),
                           "r2_test": np.linspace(0, 1, 60)})
    profiles = profiles_figure(performance_profiles(scores))
    assert len({(t.line.color, t.line.dash) for t in profiles.data}) == 30
    assert profiles.layout.legend.orientation == "h"      # under the plot, not over half of it


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
