"""The static report: self-contained HTML, same figures as the app, escaping, reproducibility, CLI.

Input is the demo competition (as shipped: ``srdash.demo.competition.cached_demo``). To keep the
tests fast, and independent of how loaded the machine is, the runs carry
``components`` given directly (a token count of the model string, a stand-in
for the simplified size: nothing here depends on how components were
obtained); only the demo's hostile model is left to the real pipeline, which
rejects it without any sympy work, so the problems list has a real entry.
"""

from __future__ import annotations

import dataclasses
import html
import re

import markupsafe
import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.cli import main
from srdash.demo.competition import HOSTILE_MODEL, cached_demo
from srdash.errors import SrdashError
from srdash.figures.leaderboard import leaderboard_html, rank_heatmap, simplicity_curve
from srdash.figures.sensitivity import place_probability_heatmap, ternary_winner_figure
from srdash.io.loading import load_results
from srdash.judging.pipeline import prepare_runs
from srdash.judging.ranking import judge
from srdash.report.build import (Report, build_report, leaderboard_latex, render_html, render_markdown, report_figures,
                           reproducibility_block, write_report)
from srdash.judging.rules import load_rules, parse_rules
from srdash.analysis.sensitivity import Rescorer, place_probabilities, ternary_winner_map

SAMPLES = 300
FIXED_TIME = "2024-05-01T12:00:00Z"
_TOKEN = re.compile(r"[A-Za-z_]\w*|\d+\.?\d*(?:[eE][-+]?\d+)?|\*\*|[-+*/]")


def _with_given_components(table: pd.DataFrame) -> pd.DataFrame:
    """The demo table with ``components`` given (token counts), except for the hostile model."""
    sizes = table["model"].map(lambda model: float(max(1, len(_TOKEN.findall(str(model))))))
    return table.assign(components=sizes.where(table["model"] != HOSTILE_MODEL))


@pytest.fixture(scope="module")
def demo_table() -> pd.DataFrame:
    # the shipped demo, which is the generator's bytes (test_demo_fingerprint), read instead of generated (2.7 CPU-s)
    paths = cached_demo()
    return _with_given_components(load_results(paths["results"], datasets=paths["datasets"]).table)


@pytest.fixture(scope="module")
def demo_runs(demo_table) -> pd.DataFrame:
    results = load_results(demo_table)
    return prepare_runs(results, cache=False)


@pytest.fixture(scope="module")
def demo_verdict(demo_runs):
    return judge(demo_runs, load_rules("srbench2022"))


@pytest.fixture(scope="module")
def demo_report(demo_verdict, demo_runs) -> Report:
    return build_report(demo_verdict, runs=demo_runs, samples=SAMPLES, generated_at=FIXED_TIME)


@pytest.fixture(scope="module")
def demo_page(demo_report) -> str:
    return render_html(demo_report)


def _section(page: str, key: str) -> str:
    start = page.index(f'id="{key}"')
    return page[start:page.index("</section>", start)]


# --------------------------------------------------------------------------- self-contained HTML


def test_html_report_is_self_contained(demo_page, demo_report):
    from plotly.offline import get_plotlyjs

    # plotly.js inlined exactly once; outside it, no external script, stylesheet, font or image
    # (plotly.js itself holds URL strings, e.g. for map tiles, that these plots never use).
    plotlyjs = get_plotlyjs()
    assert demo_page.count(plotlyjs) == 1
    page = demo_page.replace(plotlyjs, "")
    assert not re.search(r"<script[^>]+src=", page)
    assert not re.search(r"<link\b", page)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "@import" not in page and "url(" not in page
    n_figures = len(report_figures(demo_report))
    assert demo_page.count('class="plotly-graph-div"') == n_figures
    assert f'<meta name="srdash-figures" content="{n_figures}">' in demo_page
    # every view that makes sense without a kernel
    for key in ("leaderboard", "ranks", "simplicity", "properties", "sensitivity", "problems", "reproducibility"):
        assert f'id="{key}"' in demo_page, key
    assert 4_000_000 < len(demo_page.encode()) < 8_000_000  # mostly plotly.js


def test_report_sections_hold_the_demo_facts(demo_page, demo_report, demo_verdict):
    board = _section(demo_page, "leaderboard")
    assert board.index("ExactSR") < board.index("MeanBaseline")  # the demo's winner first
    problems = _section(demo_page, "problems")
    assert "rejected" in problems and "DNF" in problems and "exact_formula_hard" in problems
    assert html.escape(HOSTILE_MODEL) in problems  # shown as text, never evaluated
    # 3 criteria -> the ternary map is shown; place probabilities over SAMPLES weight vectors
    assert demo_report.ternary is not None and demo_report.place_probabilities.samples == SAMPLES
    assert demo_report.notes == ()


def test_report_uses_the_app_figure_functions(demo_report, demo_verdict, demo_runs):
    figures = report_figures(demo_report)
    json_of = [f.to_json() for f in figures]
    assert rank_heatmap(demo_verdict).to_json() == json_of[0]
    assert rank_heatmap(demo_verdict, criterion="accuracy").to_json() in json_of
    assert rank_heatmap(demo_verdict, criterion="property").to_json() in json_of  # the properties view
    assert simplicity_curve(demo_runs).to_json() in json_of
    rescorer = Rescorer.from_verdict(demo_verdict, runs=demo_runs)
    assert place_probability_heatmap(place_probabilities(rescorer, samples=SAMPLES, seed=0)).to_json() in json_of
    assert ternary_winner_figure(ternary_winner_map(rescorer)).to_json() in json_of
    assert leaderboard_html(demo_verdict) in render_html(demo_report)


# --------------------------------------------------------------------------- escaping


HOSTILE_NAME = "<script>alert('method')</script>"
HOSTILE_DATASET = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def hostile_report() -> Report:
    runs = pd.DataFrame({
        "method": [HOSTILE_NAME, "b|c_d & e%", HOSTILE_NAME, "b|c_d & e%"],
        "dataset": [HOSTILE_DATASET, HOSTILE_DATASET, "d2", "d2"], "run": 0,
        "model": ["x1 </script><script>alert(2)</script>", "x1", "x1", None],
        "r2_test": [0.9, 0.8, 0.7, None], "components": [3.0, 9, 5, 30],
        "simplicity": [-0.7, -1.4, -1.0, -2.1], "property": [0.5, 0.4, 0.3, 0.2],
        "status": ["rejected", "ok", "ok", "ok"], "reason": ["<b>bad</b>", "", "", ""]})
    verdict = judge(runs, load_rules("srbench2022"))
    return build_report(verdict, runs=runs, samples=50, title="<i>Title</i>", generated_at=FIXED_TIME)


def test_html_escapes_user_text(hostile_report):
    page = render_html(hostile_report)
    for raw in ("<script>alert(", "<img src=x", "<b>bad</b>", "<i>Title</i>", "</script><script>alert(2)"):
        assert raw not in page, raw
    assert "&lt;i&gt;Title&lt;/i&gt;" in page
    assert "&lt;script&gt;alert(" in page  # shown, as text


def test_markdown_and_latex_escape_user_text(hostile_report):
    markdown = render_markdown(hostile_report)
    assert "<script>" not in markdown and "&lt;script&gt;" in markdown
    assert r"b\|c\_d &amp; e%" in markdown  # a '|' cannot split the table
    latex = leaderboard_latex(hostile_report.verdict)
    assert r"b|c\_d \& e\%" in latex and r"\textless{}script\textgreater{}" in latex


# --------------------------------------------------------------------------- reproducibility


@pytest.fixture(scope="module")
def results_file(tmp_path_factory, demo_table):
    """The demo as a CSV file, every row with its components (so no model needs a worker)."""
    path = tmp_path_factory.mktemp("report-input") / "results.csv"
    demo_table.assign(components=demo_table["components"].fillna(1.0)).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def small_results_file(tmp_path_factory, demo_table):
    """Two of the demo's datasets, every method (the hostile model among them), as a CSV file with components:
    for the checks of what a command writes around the verdict (formats, titles, hashes, a trust store's
    section), which no competition's size changes; a report of it costs 1.3 CPU-s instead of 2.7."""
    path = tmp_path_factory.mktemp("report-small-input") / "results.csv"
    table = demo_table[demo_table["dataset"].isin(["exact_formula_easier", "noise_base"])]
    table.assign(components=table["components"].fillna(1.0)).to_csv(path, index=False)
    return path


def _file_report(path, rules, demo_generated_at=FIXED_TIME) -> Report:
    results = load_results(path)
    runs = prepare_runs(results, cache=False)
    return build_report(judge(runs, rules), runs=runs, sources=results.sources, samples=50,
                        generated_at=demo_generated_at)


def test_reproducibility_block_changes_with_an_input_byte_and_a_rules_value(small_results_file, tmp_path):
    results_file = small_results_file
    rules = load_rules("srbench2022")
    original = _file_report(results_file, rules)
    block = original.reproducibility
    key = f"input_sha256:{results_file}"
    assert set(block) >= {"generated_at", "srdash_version", "sympy_version", "rules", "rules_sha256", key,
                          "block_sha256"}
    assert block["generated_at"] == FIXED_TIME and block["sympy_version"] == "1.14.0"

    # Same inputs, later: same fingerprint (the time is recorded but not fingerprinted).
    again = _file_report(results_file, rules, demo_generated_at="2030-01-01T00:00:00Z")
    assert again.reproducibility["block_sha256"] == block["block_sha256"]

    # One byte of the input changes: r2 "0.9..." -> "0.8..." in the first data row.
    data = results_file.read_bytes()
    changed_file = tmp_path / "results.csv"
    first_row = data.index(b"\n") + 1
    digit = data.index(b"0.9", first_row) + 2 if b"0.9" in data[first_row:] else None
    assert digit is not None
    changed_file.write_bytes(data[:digit] + b"8" + data[digit + 1:])
    changed_input = _file_report(changed_file, rules)
    assert changed_input.reproducibility[f"input_sha256:{changed_file}"] != block[key]
    assert changed_input.reproducibility["block_sha256"] != block["block_sha256"]

    # One value of the rules changes (the accuracy weight), in a rules file.
    text = rules.text.replace("weight = 1.0", "weight = 2.0", 1)
    assert text != rules.text
    rules_path = tmp_path / "heavier-accuracy.toml"
    rules_path.write_text(text, encoding="utf-8")
    changed_rules = _file_report(results_file, load_rules(rules_path))
    assert changed_rules.reproducibility["rules_sha256"] != block["rules_sha256"]
    assert changed_rules.reproducibility["block_sha256"] != block["block_sha256"]

    # The rendered block shows it, with the rules file in full.
    shown = {name: _section(render_html(report), "reproducibility")
             for name, report in (("original", original), ("input", changed_input), ("rules", changed_rules))}
    assert shown["original"] != shown["input"] and shown["original"] != shown["rules"]
    assert str(markupsafe.escape(rules.text)) in shown["original"]
    assert str(markupsafe.escape(text)) in shown["rules"]
    assert block[key] in shown["original"] and FIXED_TIME in shown["original"]


def test_reproducibility_block_records_every_rules_and_keeps_verdict_provenance():
    rules = load_rules("srbench2022")
    block = reproducibility_block(rules, other_rules=[load_rules("srbench2022-realworld")],
                                  provenance={"input_sha256:x.csv": "abc", "rules": "ignored"},
                                  generated_at=FIXED_TIME)
    assert block["rules"] == "srbench2022"  # computed entries win over inherited ones
    assert block["input_sha256:x.csv"] == "abc"
    assert block["rules[srbench2022-realworld]_sha256"] == load_rules("srbench2022-realworld").sha256


# --------------------------------------------------------------------------- other tracks


def test_realworld_prediction_and_property_sections(demo_runs, demo_verdict):
    from srdash.io.datasets import load_dataset_table
    from srdash.io.predictions import Targets
    from srdash.judging.predictions import score_submissions
    from srdash.judging.properties import property_scores
    from srdash.judging.trust import realworld_verdict

    dataset = "exact_formula_easier"
    methods = sorted(demo_runs["method"].unique())
    entries = pd.DataFrame({"judge": "ann", "dataset": dataset, "method": methods, "kind": "rating",
                            "value": [float(1 + i % 5) for i in range(len(methods))]})
    realworld = realworld_verdict(demo_runs, entries)
    targets = Targets.from_arrays([1.0, 2.0, 3.0, 4.0], ["preliminary", "final"] * 2)
    listing = pd.DataFrame({"team": ["<b>t1</b>", "t2"], "file": ["a.txt", "b.txt"]})
    predictions = score_submissions(listing, targets, metric="mae",
                                    predictions={"a.txt": [1, 3, 3, 5], "b.txt": [2, 2, 4, 4]})
    table = load_dataset_table({"datasets": [{"name": "fs", "property": "feature_absence",
                                              "files": {"test": "fs.csv"}, "target": "y",
                                              "features": "x1 x2 x3", "irrelevant": "x3"}]}, check_files=False)
    properties = property_scores(pd.DataFrame({"method": ["a", "b"], "dataset": "fs", "model": ["x1", "x1 + x3"]}),
                                 table, cache=False)

    report = build_report(demo_verdict, runs=demo_runs, realworld=realworld, predictions=predictions,
                          properties=properties, samples=50, generated_at=FIXED_TIME)
    page = render_html(report)
    for key in ("realworld", "predictions", "properties"):
        assert f'id="{key}"' in page
    assert "Leaderboard (real-world track)" in page and "Final leaderboard" in page
    assert "&lt;b&gt;t1&lt;/b&gt;" in page and "<b>t1</b>" not in page
    assert report.reproducibility["rules[srbench2022-realworld]"] == "srbench2022-realworld"
    assert "srbench2022-realworld" in report.rules_texts
    markdown = render_markdown(report)
    assert "## Leaderboard (real-world track)" in markdown and "## Final leaderboard" in markdown
    figure_types = [f.data[0].type for f in report_figures(report)]
    assert figure_types.count("heatmap") >= 6  # includes the real-world ranks and the property scores


# --------------------------------------------------------------------------- Markdown and LaTeX


def test_markdown_leaderboard_lists_every_method_in_order(demo_report, demo_verdict):
    lines = render_markdown(demo_report).splitlines()
    start = lines.index("## Leaderboard") + 2
    rows = [line for line in lines[start + 2:] if line.startswith("| ")]
    rows = rows[:demo_verdict.n_methods]
    methods = [row.split(" | ")[1] for row in rows]
    assert methods == demo_verdict.leaderboard["method"].tolist()
    assert lines[start].startswith("| Place | Method | Score |")


def test_latex_leaderboard_has_one_row_per_method(demo_verdict):
    latex = leaderboard_latex(demo_verdict, caption="Demo", label="tab:demo")
    body = latex[latex.index("\\midrule"):latex.index("\\bottomrule")].splitlines()[1:]
    assert len(body) == demo_verdict.n_methods and body[0].startswith("1 & ExactSR & ")
    assert "\\caption{Demo}" in latex and "\\label{tab:demo}" in latex


# --------------------------------------------------------------------------- errors


def test_errors_say_what_to_do(demo_report, demo_verdict, tmp_path):
    with pytest.raises(SrdashError, match=r"The 'format' option must be one of 'html', 'md', 'latex'. Got 'pdf'."):
        write_report(demo_report, tmp_path / "r.pdf", format="pdf")
    with pytest.raises(SrdashError, match=r"A report is built from a Verdict .* Got DataFrame"):
        build_report(demo_verdict.leaderboard)
    single = judge(pd.DataFrame({"method": "a", "dataset": "d", "r2_test": [0.5]}),
                   parse_rules('[[criteria]]\nname = "accuracy"\ncolumn = "r2_test"'))
    report = build_report(single)
    assert report.notes == ("Weight sensitivity is not shown: there is only one method.",)
    assert 'id="sensitivity"' not in render_html(report)


# --------------------------------------------------------------------------- CLI


def test_cli_report_writes_html_markdown_and_latex(results_file, small_results_file, tmp_path):
    runner = CliRunner()
    html_path = tmp_path / "report.html"
    result = runner.invoke(main, ["report", str(results_file), "-o", str(html_path), "--samples", "50",
                                  "--no-cache", "--title", "Demo <2024>"])
    assert result.exit_code == 0, result.output
    page = html_path.read_text(encoding="utf-8")
    assert "<title>Demo &lt;2024&gt;</title>" in page
    assert "input_sha256:results:results.csv" in page and str(results_file.parent) not in page
    assert "Wrote" in result.output and "fingerprint" in result.output

    # the other formats from the small input (the formats are the claim here; the whole demo went into the HTML)
    md_path = tmp_path / "summary.md"
    result = runner.invoke(main, ["report", str(small_results_file), "-o", str(md_path), "--samples", "50",
                                  "--no-cache"])
    assert result.exit_code == 0, result.output
    assert md_path.read_text(encoding="utf-8").startswith("# SRBench 2022 synthetic track")

    tex_path = tmp_path / "board.txt"
    result = runner.invoke(main, ["report", str(small_results_file), "-o", str(tex_path), "--format", "latex",
                                  "--samples", "50", "--no-cache"])
    assert result.exit_code == 0, result.output
    assert "\\begin{tabular}" in tex_path.read_text(encoding="utf-8")


def test_cli_report_with_a_trust_store(small_results_file, tmp_path):
    results_file = small_results_file
    from srdash.judging.trust import TrustStore

    store_path = tmp_path / "trust.sqlite"
    methods = sorted(pd.read_csv(results_file)["method"].unique())
    with TrustStore(store_path, seed=1) as store:
        for i, method in enumerate(methods):
            store.record("ann", "exact_formula_easier", method, kind="rating", value=1 + i % 5)
    output = tmp_path / "report.md"
    result = CliRunner().invoke(main, ["report", str(results_file), "--trust", str(store_path), "-o", str(output),
                                       "--samples", "50", "--no-cache"])
    assert result.exit_code == 0, result.output
    text = output.read_text(encoding="utf-8")
    assert "## Leaderboard (real-world track)" in text
    hashed = [line for line in text.splitlines() if line.startswith("| input\\_sha256:")]
    assert len(hashed) == 1 and "results.csv" in hashed[0]
    # the trust store enters by its entries (a store's bytes change with keys and events too)
    from srdash.judging.fingerprint import entries_sha256
    with TrustStore(store_path, read_only=True) as store:
        expected = entries_sha256(store.entries())
    entries = [line for line in text.splitlines() if line.startswith("| input\\_entries\\_sha256:")]
    assert len(entries) == 1 and entries[0].endswith("trust.sqlite | `" + expected + "` |")


def _sha256(path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_cli_report_refuses_submission_rules(results_file, tmp_path):
    result = CliRunner().invoke(main, ["report", str(results_file), "--rules", "evalrs2022",
                                       "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 2
    assert "covers rules that rank per-run results" in result.output and "Use `srdash score`" in result.output


def test_report_is_frozen(demo_report):
    with pytest.raises(dataclasses.FrozenInstanceError):
        demo_report.title = "other"


def test_a_heatmap_whose_cells_carry_numbers_keeps_a_desk_width_on_a_phone():
    # At 390 px plotly shrank the numbers in a six-column heatmap's cells to 3-7 px (the property scores, the
    # place probabilities); such a heatmap now keeps its desk width in a block that scrolls sideways.
    import plotly.graph_objects as go

    from srdash.report.html import wide_on_a_phone

    def heatmap(columns, **text):
        return go.Figure(go.Heatmap(z=[list(range(columns))], x=[f"m{i}" for i in range(columns)], **text))

    assert wide_on_a_phone(heatmap(6, texttemplate="%{z:.2f}"))
    assert wide_on_a_phone(heatmap(5, text=[["a"] * 5], texttemplate="%{text}"))
    assert not wide_on_a_phone(heatmap(4, texttemplate="%{z:.2f}"))   # four cells fit a phone
    assert not wide_on_a_phone(heatmap(6))                              # colours only: nothing to read
    assert wide_on_a_phone(heatmap(7))                                  # many columns, as before
    assert not wide_on_a_phone(go.Figure(go.Scatter(x=list(range(20)), y=list(range(20)))))
