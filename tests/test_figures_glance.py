"""Figures that read at a glance (issue 38), checked on the figure objects: every heatmap label present and at
least 10 px, label boxes apart, the axes covering the data's bulk, no marker on top of another."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from srdash.analysis.fronts import ParetoFronts
from srdash.analysis.robustness import bootstrap
from srdash.demo.examples import accuracy_rules
from srdash.figures.glance import FONT_SIZE, ROW_HEIGHT, readable_heatmap
from srdash.figures.integrity import place_probability_figure
from srdash.figures.leaderboard import marker_offsets, rank_heatmap, simplicity_curve
from srdash.figures.lineage import CHAR_WIDTH, LINE_HEIGHT, interval_bounds, label_box, label_positions, pareto_figure
from srdash.figures.predictions import DECIMALS, NUMBERS_NOTE, leaderboard_table_html, shakeup_table_html
from srdash.judging.ranking import judge

# the six methods of the demo, whose names the issue found thinned to three on an axis
METHODS = ["ExactSR", "BloatGP", "LassoSR", "PolyRidge", "GreedyGP", "LinearRegression"]


def _runs(n_datasets: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    return pd.DataFrame({"method": np.repeat(METHODS, n_datasets),
                         "dataset": np.tile([f"dataset_{i}" for i in range(n_datasets)], len(METHODS)),
                         "run": 0, "r2_test": rng.uniform(0, 1, len(METHODS) * n_datasets)})


def _assert_readable(figure, *, rows: list[str], columns: list | None) -> None:
    """Every row (and column) has its tick label; ticks and cell texts are at least 10 px."""
    assert list(figure.layout.yaxis.tickvals) == rows
    assert list(figure.layout.yaxis.ticktext) == rows
    if columns is not None:
        assert list(figure.layout.xaxis.tickvals) == columns
    assert figure.layout.xaxis.tickfont.size >= 10 and figure.layout.yaxis.tickfont.size >= 10
    for trace in figure.data:
        if trace.type == "heatmap" and trace.texttemplate:
            # a fixed size: plotly's default ("auto") shrank cell texts to 4 px in a phone-wide figure
            assert trace.textfont.size >= 10
    assert figure.layout.height >= ROW_HEIGHT * len(rows)


def test_place_probability_heatmap_labels_every_method_at_a_readable_size():
    result = bootstrap(_runs(), accuracy_rules(), n_bootstrap=20)
    figure = place_probability_figure(result)
    labels = list(figure.data[0].y)
    assert len(labels) == 6 and all(any(m in label for m in METHODS) for label in labels)
    _assert_readable(figure, rows=labels, columns=None)
    assert list(figure.layout.xaxis.tickvals) == [1, 2, 3, 4, 5, 6]   # every place


def test_rank_heatmap_labels_every_method_and_dataset():
    verdict = judge(_runs(), accuracy_rules())
    figure = rank_heatmap(verdict)
    _assert_readable(figure, rows=list(verdict.leaderboard["method"]), columns=[f"dataset_{i}" for i in range(5)])


def test_a_heatmap_of_many_columns_leaves_their_labels_to_plotly_but_labels_every_row():
    # 50 datasets: one label each could not be read at once; the six methods still each get theirs
    verdict = judge(_runs(50), accuracy_rules())
    figure = rank_heatmap(verdict)
    assert figure.layout.xaxis.tickvals is None
    assert list(figure.layout.yaxis.tickvals) == list(verdict.leaderboard["method"])


def test_property_heatmap_labels_every_method_and_dataset():
    from srdash.figures.properties import property_heatmap
    from srdash.judging.properties import PropertyScores

    per_dataset = pd.DataFrame({"method": np.repeat(METHODS, 2), "dataset": ["feynman_I", "strogatz_2"] * 6,
                                "kind": "exact", "runs": 2, "property": np.linspace(0, 1, 12),
                                "score": "rediscovery"})
    scores = PropertyScores(runs=pd.DataFrame(), per_dataset=per_dataset, noise_curve=pd.DataFrame(),
                            sensitivity=pd.DataFrame(), problems=pd.DataFrame())

    figure = property_heatmap(scores)
    _assert_readable(figure, rows=["feynman_I", "strogatz_2"], columns=sorted(METHODS))


def test_readable_heatmap_keeps_a_larger_font_and_height():
    import plotly.graph_objects as go

    figure = go.Figure(go.Heatmap(z=[[1]], x=["a"], y=["m"], text=[["1"]], texttemplate="%{text}",
                                  textfont={"size": 14}), layout={"height": 900})
    readable_heatmap(figure)
    assert figure.data[0].textfont.size == 14 and figure.layout.height == 900
    assert FONT_SIZE >= 10


def _fronts(size, size_low, size_high, accuracy, names=None) -> ParetoFronts:
    n = len(size)
    table = pd.DataFrame({"method": names or [f"m{i}" for i in range(n)], "accuracy": accuracy, "size": size,
                          "front": 1, "accuracy_low": np.asarray(accuracy) - 0.02,
                          "accuracy_high": np.asarray(accuracy) + 0.02, "size_low": size_low,
                          "size_high": size_high, "datasets": 5})
    return ParetoFronts(table=table, names=("accuracy", "size"), columns=("r2_test", "model_size"),
                        directions=("higher", "lower"), space="value", n_bootstrap=30, confidence=0.95)


def test_a_far_reaching_size_interval_is_cut_at_the_axis_edge_with_its_true_end_on_hover():
    # sizes 10..25 (spread 15); one interval reaches 245: the axis ends at 25 + 2 * 15 = 55 (INTERVAL_REACH),
    # not 245, so the points keep (25 - 10) / (55 - 8) = 32 % of it, not 6 %
    fronts = _fronts([10, 15, 20, 25], [8, 12, 18, 22], [12, 18, 245, 30], [0.9, 0.8, 0.7, 0.6])
    figure = pareto_figure(fronts, log_size=False)
    low, high = figure.layout.xaxis.range
    assert 55 <= high <= 55 + 0.05 * 47 + 1e-9 and low <= 8
    assert (25 - 10) / (high - low) > 0.2
    third = next(t for t in figure.data if t.name == "m2")
    assert third.error_x.array[0] == pytest.approx(55 - 20)          # drawn to the edge
    assert "[18, 245]" in third.hovertemplate                          # the true interval on hover
    cut = next(t for t in figure.data if t.name == "interval cut at the axis' edge")
    assert list(cut.x) == [55] and list(cut.y) == [0.7] and list(cut.marker.symbol) == ["triangle-right"]
    assert "it reaches 245" in cut.text[0]


def test_intervals_within_reach_are_drawn_whole_with_plotlys_own_range():
    fronts = _fronts([10, 15, 20], [5, 12, 18], [14, 18, 30], [0.9, 0.8, 0.7])
    figure = pareto_figure(fronts, log_size=False)
    assert figure.layout.xaxis.range is None
    assert not any(t.name == "interval cut at the axis' edge" for t in figure.data)
    assert interval_bounds([10, 15, 20], [5, 12, 18], [14, 18, 30]) == (5.0, 30.0)


def _boxes(x, y, names, positions, *, log_x):
    """The label boxes label_positions placed, in the same plot fractions it uses."""
    def scaled(values, log):
        values = np.log10(values) if log else np.asarray(values, dtype=float)
        return 0.05 + 0.9 * (values - values.min()) / (values.max() - values.min())

    xs, ys = scaled(np.asarray(x, dtype=float), log_x), scaled(np.asarray(y, dtype=float), False)
    return [label_box(p, px, py, CHAR_WIDTH * len(n)) for p, px, py, n in zip(positions, xs, ys, names)]


def test_pareto_labels_of_close_points_do_not_overlap_and_a_label_without_room_is_left_out():
    # the "LassoSRGreedyGP": two methods of about the same size and accuracy, next to four others
    names = ["LassoSR", "GreedyGP", "ExactSR", "BloatGP", "PolyRidge", "LinearRegression"]
    x = [12, 13, 5, 60, 30, 8]
    y = [0.81, 0.80, 0.99, 0.95, 0.70, 0.55]
    positions = label_positions(x, y, names, log_x=True)
    assert None not in positions
    boxes = _boxes(x, y, names, positions, log_x=True)
    for (a, box_a), (b, box_b) in itertools.combinations(zip(names, boxes), 2):
        width = min(box_a[2], box_b[2]) - max(box_a[0], box_b[0])
        height = min(box_a[3], box_b[3]) - max(box_a[1], box_b[1])
        # the boxes are 14 px lines for 12 px text: a tenth of a line is slack, not text on text
        assert width <= 0 or height <= 0.1 * LINE_HEIGHT, (a, b, positions)
    # ten methods on one point: at most eight places around it, and those left out are named in the legend
    crowd = [f"method_{i}" for i in range(10)]
    positions = label_positions([10] * 10 + [100], [0.5] * 10 + [0.9], crowd + ["far"], log_x=True)
    assert positions.count(None) >= 2 and positions[-1] is not None
    fronts = _fronts([10] * 10 + [100], [9] * 10 + [90], [11] * 10 + [110], [0.5] * 10 + [0.9], names=crowd + ["far"])
    figure = pareto_figure(fronts, log_size=True)
    unlabelled = [t.name for t in figure.data if t.mode == "markers+text" and t.text[0] == ""]
    assert unlabelled and all(t.showlegend for t in figure.data if t.name in unlabelled)


def test_simplicity_markers_at_one_place_are_drawn_apart():
    # six methods, three with the median model of 9 components, two of 10 (same simplicity -1.4):
    # every drawn marker is at least one step (0.12) from any other at about the same size
    runs = pd.DataFrame({"method": METHODS, "components": [9, 9, 9, 10, 10, 40]})
    figure = simplicity_curve(runs, max_components=50)
    drawn = [(np.log10(t.x[0]), t.y[0]) for t in figure.data[1:]]
    for (xa, ya), (xb, yb) in itertools.combinations(drawn, 2):
        assert abs(xa - xb) > 0.1 or abs(ya - yb) >= 0.12 - 1e-9, drawn
    # the hover says the true simplicity (methods in alphabetical order: LinearRegression's 40 components, -2.3)
    assert {t.name: t.customdata[0] for t in figure.data[1:]} == {**dict.fromkeys(METHODS[:5], -1.4),
                                                                  "LinearRegression": -2.3}


def test_marker_offsets_are_deterministic_and_leave_lone_markers_in_place():
    x, y = [9, 40, 9, 9], [-1.4, -2.3, -1.4, -1.4]
    first = marker_offsets(x, y, x_span=2)
    assert list(first) == [0.0, 0.0, 0.12, -0.12]
    assert list(marker_offsets(x, y, x_span=2)) == list(first)


def test_predictions_tables_print_fixed_decimals_and_exact_ranks():
    # the "6, 4.44444, 2.4, 0.143013": now each score and metric value with DECIMALS (4) decimals
    board = pd.DataFrame({"place": [1, 2, 3], "team": ["c", "x", "a"], "score": [2.4, 1.5, 4 / 3],
                          "rmse": [6.0, 4.444444, 0.143013], "rmse_rank": [3.0, 2.0, 1.0],
                          "mae_rank": [2.5, 2.5, 1.0]})
    page = leaderboard_table_html(board, subset="final")
    assert DECIMALS == 4 and "4 decimals" in NUMBERS_NOTE
    for text in ("2.4000", "1.5000", "1.3333", "6.0000", "4.4444", "0.1430"):
        assert f">{text}<" in page
    assert ">2.5<" in page and ">3<" in page     # ranks as they are (a tie's 2.5)
    shake = pd.DataFrame({"team": ["a"], "preliminary_place": [1], "final_place": [1], "change": [0],
                          "preliminary_score": [6], "final_score": [0.143013]})
    assert ">6.0000<" in shakeup_table_html(shake) and ">0.1430<" in shakeup_table_html(shake)
