"""Issue 32: commands whose cost grows with their input say first what they will do, stay bounded, and refuse
or sample past a documented bound (srdash.analysis.costs) with a clear message, never a traceback.

Before issue 32: `srdash trust jury --model` on 60 jurors x 300 entries took 50 s and 4.7 GB (and more as the
entries grew), `--explain` on 60 jurors combined the scores 1,831 times at 4.9 s each, and `srdash analyse
compare` on 300 methods x 400 datasets did not finish (Nemenyi: 1.7 GB arrays; Wilcoxon: 45,000 scipy calls).
No assertion here is on time: the work is bounded by sizes, and memory is the peak RSS of a child process.
benchmarks/hostile_costs.py measures the seconds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.analysis import costs
from srdash.analysis.jury_model import jury_model
from srdash.cli import main
from srdash.errors import SrdashError

REPO = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
CRITERIA = ("pipeline", "interpretability", "analysis", "insight")
#: Peak RSS allowed to a child running one command (measured: jury --model 336 MB, compare 218 MB).
PEAK_MB = 1000


def jury_scores(jurors: int, datasets: int, methods: int, *, seed: int = 0) -> pd.DataFrame:
    """Rubric scores (srbench2023-track2's four criteria, 1-5) of every juror for every entry: an entry's
    quality plus each juror's noise, rounded and clipped."""
    rng = np.random.default_rng(seed)
    quality = rng.normal(size=(datasets, methods))
    noise = rng.normal(size=(jurors, datasets, methods, len(CRITERIA)))
    scores = np.clip(np.round(3 + quality[None, :, :, None] + noise), 1, 5)
    index = pd.MultiIndex.from_product([[f"j{j:02d}" for j in range(jurors)], [f"d{d}" for d in range(datasets)],
                                        [f"m{m:03d}" for m in range(methods)], list(CRITERIA)],
                                       names=["judge", "dataset", "method", "criterion"])
    return pd.Series(scores.reshape(-1), index=index, name="score").reset_index()


def _store(folder: Path, scores: pd.DataFrame) -> Path:
    source, store = folder / "scores.csv", folder / "trust.sqlite"
    scores.to_csv(source, index=False)
    runner = CliRunner()
    assert runner.invoke(main, ["trust", "init", "--store", str(store)]).exit_code == 0
    done = runner.invoke(main, ["trust", "import-scores", str(source), "--store", str(store),
                                "--rules", "srbench2023-track2"])
    assert done.exit_code == 0, done.output
    return store


def _run_measured(args: list[str]) -> tuple[subprocess.CompletedProcess, float]:
    """``srdash ARGS`` in a child process: its outcome and its peak RSS in MB (the child reports its own VmHWM:
    ``ru_maxrss`` would keep the peak of the test worker the child was forked from)."""
    code = ("import resource, sys\nfrom srdash.cli import main\nsys.argv = ['srdash', *sys.argv[1:]]\n"
            "try:\n    main()\nexcept SystemExit as exit_:\n    code = exit_.code\nelse:\n    code = 0\n"
            "print('PEAK_KB', [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')][0],\n"
            "      file=sys.stderr)\n"
            "sys.exit(code)")
    # the timeout only keeps a hung run from hanging the suite; the bound is the work, not the time
    done = subprocess.run([sys.executable, "-c", code, *args], env=ENV, capture_output=True, text=True, timeout=1800)
    peak = [line for line in done.stderr.splitlines() if line.startswith("PEAK_KB")]
    return done, int(peak[-1].split()[1]) / 1024 if peak else float("nan")


@pytest.mark.skipif(sys.platform != "linux", reason="peak RSS in kB (Linux's ru_maxrss)")
def test_jury_model_of_60_jurors_and_300_entries_says_what_it_fits_and_stays_small(tmp_path):
    store = _store(tmp_path, jury_scores(60, 3, 100))  # 72,000 scores
    done, peak_mb = _run_measured(["trust", "jury", "--store", str(store), "--rules", "srbench2023-track2", "--model"])
    assert done.returncode == 0, done.stderr[-3000:]
    said = done.stderr
    # said first: the rankings (60 jurors x 3 datasets), the methods, the fits and an estimate
    assert "Jury model: 180 rankings (" in said and "of 100 methods by 60 judges" in said
    assert "of 200 bootstrap redraws and without each judge: about " in said
    assert said.index("Jury model: 180 rankings") < said.index("done: fitted the rankings and 200 redraws")
    assert "done: each judge left out" in said
    assert "95% intervals from 200 redraws of the rankings" in done.stdout
    assert peak_mb < PEAK_MB, peak_mb  # before: 4,700 MB


def test_the_jury_models_bootstrap_is_cut_past_its_bound_and_the_notes_say_so(monkeypatch):
    ranks = jury_scores(6, 1, 12).groupby(["judge", "dataset", "method"], as_index=False)["score"].mean()
    ranks["rank"] = ranks.groupby(["judge", "dataset"])["score"].rank(ascending=False)
    full = costs.model_work(n_items=12, n_stages=6 * 11, n_rankings=6, n_fits=1 + 50 + 6, n_pair_fits=1 + 50)
    monkeypatch.setattr(costs, "MAX_MODEL_WORK", full / 4)
    said = []
    model = jury_model(ranks, n_bootstrap=50, stage=said.append)
    expected = costs.model_redraws(n_items=12, n_stages=_stages(ranks), n_rankings=6,
                                   n_judges=6, n_bootstrap=50)
    assert 0 < model.n_bootstrap == expected < 50
    assert any(note.startswith(f"The bootstrap was cut from 50 to {expected} redraws") for note in model.notes)
    assert f"redraws (cut from 50: the bound of {full / 4:.1e} operations)" in said[0]
    monkeypatch.setattr(costs, "MAX_MODEL_WORK", 10.0)
    with pytest.raises(SrdashError, match=r"The jury model of 12 methods over 6 rankings \(\d+ choice stages\) and "
                                          r"6 judges needs about .* more than its bound of 1\.0e\+01 "
                                          r"\(srdash\.analysis\.costs\)\. Fit it to fewer methods"):
        jury_model(ranks, n_bootstrap=50)


def _stages(ranks: pd.DataFrame) -> int:
    """Choice stages of the rankings: one per group of tied ranks, but the last when it holds one method."""
    total = 0
    for _, ranking in ranks.groupby(["judge", "dataset"]):
        sizes = ranking.groupby("rank").size().sort_index()
        total += len(sizes) - (sizes.iloc[-1] == 1)
    return int(total)


def test_explain_leaves_60_jurors_out_one_at_a_time_and_says_so(tmp_path):
    store = _store(tmp_path, jury_scores(60, 1, 4))
    done = CliRunner().invoke(main, ["trust", "jury", "--store", str(store), "--rules", "srbench2023-track2",
                                     "--explain"])
    assert done.exit_code == 0, done.output
    # 1 + 60 + C(60, 2) = 1,831 combinations with pairs; the bound is 250
    assert ("--explain: leaving out every pair of the 60 jurors would be 1,831 combinations of the scores, more "
            "than the bound of 250 (srdash.analysis.costs): jurors are left out one at a time.") in done.output
    # and the rubric's variants: the other normalisation and each of the 4 criteria left out (equal weights)
    assert "--explain: up to 66 combinations of the scores (each juror left out, and 5 variants of the rubric)" \
        in done.output
    assert "Why the jury's choice, dataset d0:" in done.output


def test_explain_bound_in_numbers():
    # every set of up to 2 of 22 jurors: 1 + 22 + 231 = 254 > 250; of 21: 1 + 21 + 210 = 232
    assert costs.explain_combinations(22, 2) == 254 and costs.explain_max_removed(22) == 1
    assert costs.explain_combinations(21, 2) == 232 and costs.explain_max_removed(21) == 2
    assert costs.explain_combinations(3, 2) == 1 + 3 + 3 and costs.explain_combinations(1, 2) == 1


def comparison_table(methods: int, datasets: int, *, missing: float = 0.01, seed: int = 0) -> pd.DataFrame:
    """R² of every method on every dataset (a method's skill plus noise), a share ``missing`` of them absent."""
    rng = np.random.default_rng(seed)
    values = rng.random((datasets, methods)) * 0.5 + rng.normal(size=methods)[None, :] * 0.1
    values[rng.random((datasets, methods)) < missing] = np.nan
    frame = pd.DataFrame(values, index=pd.Index([f"d{i:03d}" for i in range(datasets)], name="dataset"),
                         columns=pd.Index([f"m{j:03d}" for j in range(methods)], name="method"))
    return frame.stack().rename("r2_test").reset_index()


@pytest.fixture(scope="module")
def wide_comparison(tmp_path_factory):
    path = tmp_path_factory.mktemp("compare") / "results.csv"
    comparison_table(300, 400).to_csv(path, index=False)
    return path


@pytest.mark.skipif(sys.platform != "linux", reason="peak RSS in kB (Linux's ru_maxrss)")
def test_compare_300_methods_on_400_datasets_with_missing_values_says_first_and_finishes(wide_comparison, tmp_path):
    output = tmp_path / "pairs.csv"
    done, peak_mb = _run_measured(["analyse", "compare", str(wide_comparison), "--posthoc", "nemenyi",
                                   "-o", str(output)])
    assert done.returncode == 0, done.stderr[-3000:]
    missing = int(comparison_table(300, 400)["r2_test"].isna().sum())
    assert done.stderr.startswith(f"Comparing 300 methods on 400 blocks ({missing} missing values: Skillings-Mack "
                                  "beside Friedman): nemenyi post-hoc and effect sizes for 44,850 pairs, about ")
    omnibus = pd.read_csv(output.with_name("pairs.omnibus.csv"))
    assert omnibus["test"].tolist() == ["Friedman", "Iman-Davenport", "Skillings-Mack"]
    assert int(omnibus.loc[2, "blocks"]) == 400  # Skillings-Mack uses every block
    assert len(pd.read_csv(output)) == 44_850
    # the paragraph stays readable: 12 pairs, 12 groups of at most 20 names spelled out, the rest counted
    # (the summary file lists every group after the paragraph)
    paragraph = output.with_name("pairs.summary.txt").read_text().split("\n\n")[0]
    assert "more significant pair(s) (see the pairs table)" in paragraph
    assert "more group(s) (see the critical-difference diagram)." in paragraph and len(paragraph) < 12_000
    assert peak_mb < PEAK_MB, peak_mb  # before: Nemenyi's 44,850 x 4,801 arrays alone were 1.7 GB each


def test_compare_refuses_wilcoxon_for_44850_pairs_with_what_to_do(wide_comparison):
    done = CliRunner().invoke(main, ["analyse", "compare", str(wide_comparison)])  # --posthoc wilcoxon-holm
    assert done.exit_code == 1 and "Traceback" not in done.output
    assert ("Error: Wilcoxon's signed-rank test for every pair of 300 methods is 44,850 tests (about 90 s), more "
            "than the bound of 10,000 (srdash.analysis.costs.MAX_WILCOXON_PAIRS). Use posthoc 'nemenyi' or "
            "'conover' (--posthoc; every pair at once), or compare fewer methods") in done.output


def test_compare_refuses_any_posthoc_past_50000_pairs():
    from srdash.analysis.comparison import compare

    with pytest.raises(ValueError, match=r"A comparison of 320 methods is 51,040 pairs, more than the bound of "
                                         r"50,000 \(srdash\.analysis\.costs\.MAX_COMPARE_PAIRS\)\. Compare fewer"):
        compare(comparison_table(320, 3, missing=0.0), posthoc="nemenyi")


def test_nemenyi_p_values_above_50_methods_agree_with_the_sum_they_replace(monkeypatch):
    from srdash.analysis import significance

    q = np.linspace(0.05, 7.0, 60)
    for k in (51, 120, 300):
        closed = significance.studentized_range_sf_many(q, k)
        monkeypatch.setattr(significance, "_HORNER_UP_TO", 10**6)  # Horner's sum, k - 2 products per point
        horner = significance.studentized_range_sf_many(q, k)
        monkeypatch.undo()
        np.testing.assert_allclose(closed, horner, rtol=1e-13, atol=1e-300)
    # and against scipy's studentized range (infinite degrees of freedom) at one point
    stats = pytest.importorskip("scipy.stats")
    assert significance.studentized_range_sf(5.0, 300) == pytest.approx(stats.studentized_range.sf(5.0, 300, np.inf),
                                                                         abs=1e-7)
