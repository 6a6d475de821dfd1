"""A visitor's kernel carries only what the page needs (issue 25).

A dashboard kernel whose competition is prepared reads the stored preparation: it must not import sympy
(about 0.8 s and 40 MB per kernel), scikit-learn, scipy (stats or special) or dask, and with the verdict, the
leaderboard's resolution and the figures kept (as `srdash serve` keeps them) it builds no plotly figure. Checked in a fresh interpreter
that runs what the dashboard notebook runs (``Dashboard.from_environment()``: the page is built before it
returns when the competition's preparation is stored), then lists ``sys.modules``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from srdash.apps.board_view import keep_first_page
from srdash.demo.competition import cached_demo
from srdash.judging.competition import load_competition
from srdash.judging.pipeline import prepare_competition

_KERNEL = """
import json, sys
from srdash.apps import Dashboard
app = Dashboard.from_environment()
print(json.dumps({"leaderboard": None if app.verdict is None else list(app.verdict.leaderboard["method"]),
                  "fingerprint": app.result and app.result.fingerprint, "resolution": app.leaderboard.value,
                  "modules": sorted(sys.modules)}))
"""


def test_a_prepared_dashboard_kernel_imports_no_sympy_sklearn_scipy_or_dask():
    competition = load_competition(cached_demo()["competition"])
    expected = list(prepare_competition(competition).runs["method"].unique())  # stored for every visitor
    assert keep_first_page(competition)   # the verdict and its resolution, kept once, as `srdash serve` does
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("SRDASH_COMPETITION", None)  # the demo, as `srdash serve` without INPUT
    done = subprocess.run([sys.executable, "-c", _KERNEL], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["leaderboard"] is not None and sorted(seen["leaderboard"]) == sorted(expected)  # the page is built
    modules = set(seen["modules"])
    # scipy.special (and numpy.f2py, which scipy's array-API layer brings): 0.15-0.25 s a kernel, for the
    # resolution's tests, whose sentence is kept with the verdict
    for heavy in ("sympy", "sklearn", "scipy.stats", "dask", "distributed", "scipy.special", "numpy.f2py"):
        assert heavy not in modules, f"a prepared dashboard kernel imported {heavy}"
    # its figures are read as JSON: no plotly figure is built (plotly's validators, 14 MB; narwhals, PIL)
    for built in ("plotly.graph_objs._figure", "plotly.validator_cache", "narwhals", "PIL"):
        assert built not in modules, f"a prepared dashboard kernel imported {built}"
    assert seen["fingerprint"].startswith("f38b862a1495")   # the demo's (tests/test_move_unchanged.py)
    assert "Nemenyi post-hoc" in seen["resolution"]          # the leaderboard's resolution is shown


# A judge's kernel, as notebooks/review.ipynb runs it (ReviewPage of the environment `srdash review` gives
# Voila), with the two readers a review kernel used to call counted: the dataset descriptions (every ground
# truth parsed with sympy) and the results files.
_JUDGE_KERNEL = """
import json, os, sys
import srdash.io.datasets as datasets
import srdash.judging.preparation as preparation
calls = []
spec_fields, load_results = datasets.spec_fields, preparation.load_results
datasets.spec_fields = lambda *a, **k: (calls.append("descriptions"), spec_fields(*a, **k))[1]
preparation.load_results = lambda *a, **k: (calls.append("results"), load_results(*a, **k))[1]
from srdash.apps.review import ReviewPage
from srdash.apps.visit import query_string  # as notebooks/review.ipynb imports it (tests/test_review_visit.py: its wait)
page = ReviewPage(os.environ)   # served, as the notebook makes it: built before it returns, the competition kept
app = page.app
print(json.dumps({"at_once": app is not None and not page.busy, "calls": calls, "log": page.log_panel.text(), "dataset": app and app.dataset,
                  "cards": app and len(app.cards[app.dataset]), "sympy": "sympy" in sys.modules,
                  "voila": sorted(m for m in ("voila", "jupyter_server", "jsonschema") if m in sys.modules),
                  "built": sorted(m for m in ("plotly.graph_objs._figure", "plotly.validator_cache", "narwhals", "PIL")
                                  if m in sys.modules),
                  "typeset": app and sum("cannot be shown as a formula" not in card.formula.value
                                         for card in app.cards[app.dataset]),
                  "figures": app and sum(any(hasattr(panel, "near_screen") for panel in card.figures.children)
                                         for card in app.cards[app.dataset])}))
"""


def _judge_kernel(competition) -> dict:
    from srdash.cli.review import review_environment

    env = review_environment(judge="ann", store=competition.realworld.store, rules="srbench2022-realworld",
                             competition=competition, base={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    done = subprocess.run([sys.executable, "-c", _JUDGE_KERNEL], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_judges_kernel_reads_the_prepared_competition_and_parses_no_ground_truth():
    from srdash.cli.review import prepare_review

    competition = load_competition(cached_demo()["competition"])
    said = []
    prepare_review(competition, stage=said.append)  # what `srdash review` does once, before any judge
    assert said and said[0].startswith("Competition prepared for every judge (")
    assert said[1].startswith("The cards' formulas, predictions and figures kept for every judge (")
    seen = _judge_kernel(competition)
    assert seen["at_once"], seen["log"]   # built in the cell: the page's first request gets every widget
    assert seen["calls"] == []  # neither the descriptions (their ground truths) nor the results are read again
    # the demo's real-world track: 6 qualified methods on its first dataset under review, each with a formula
    # and predictions; both were kept by prepare_review, so the kernel imports no sympy for them
    assert seen["dataset"] == "exact_formula_easy" and seen["cards"] == 6, seen["log"]
    assert seen["typeset"] == 6 and seen["figures"] == 6, seen
    assert not seen["sympy"], "a judge's kernel imported sympy although the cards' values were kept"
    assert seen["voila"] == [], "a judge's kernel imported Voila's server (1.4 CPU-s)"
    # its 6 cards' figures are read as the JSON their panels send: no plotly figure is built (plotly's
    # validators, 14 MB; narwhals, PIL), as a prepared dashboard kernel builds none
    assert seen["built"] == [], f"a judge's kernel built a plotly figure ({seen['built']}) though they were kept"


def test_a_judges_kernel_of_results_without_models_imports_no_sympy(tmp_path):
    from srdash.judging.pipeline import prepare_competition
    from srdash.judging.trust import TrustStore

    # SRBench's black-box results give each model's size, not the model: 2 methods x 2 datasets here
    (tmp_path / "results.csv").write_text("method,dataset,r2_test,model_size,property\n"
                                          "a,d1,0.9,10,1\nb,d1,0.8,5,1\na,d2,0.7,8,1\nb,d2,0.6,3,1\n")
    (tmp_path / "competition.toml").write_text('results = "results.csv"\nrules = "srbench2022"\n\n'
                                               '[realworld]\nstore = "trust.sqlite"\n')
    TrustStore(tmp_path / "trust.sqlite", seed=0).close()
    competition = load_competition(tmp_path / "competition.toml")
    prepare_competition(competition)
    seen = _judge_kernel(competition)
    assert seen["at_once"] and seen["calls"] == [] and seen["dataset"] == "d1" and seen["cards"] == 2, seen["log"]
    assert not seen["sympy"], "a judge's kernel imported sympy for results without a model"
