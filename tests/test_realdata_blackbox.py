"""`srdash score` on the real SRBench black-box results (21 methods, 122 datasets,
15 missing (method, dataset) cells). Skipped when ../shared/realdata is absent."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from srdash.cli import main

REALDATA = Path(__file__).resolve().parents[1].parent / "shared" / "realdata"
BLACKBOX = REALDATA / "srbench_results" / "blackbox_results.csv"

pytestmark = [
    pytest.mark.realdata,
    pytest.mark.skipif(not BLACKBOX.exists(), reason=f"real data not found at {BLACKBOX}"),
]


def blackbox_rules(folder: Path) -> Path:
    """srbench2022 with its property criterion optional: the black-box datasets test no property, so the
    rules must say that they are judged without one (srbench2022 itself refuses them)."""
    from srdash.judging.rules import load_rules

    text = load_rules("srbench2022").text.replace('column = "property"\n', 'column = "property"\noptional = true\n')
    assert "optional = true" in text
    path = folder / "srbench2022-blackbox.toml"
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def full_verdict(tmp_path_factory):
    out = tmp_path_factory.mktemp("blackbox")
    result = CliRunner().invoke(main, [
        "score", str(BLACKBOX), "--rules", str(blackbox_rules(out)), "-o", str(out / "leaderboard.csv"),
        "--per-dataset", str(out / "per_dataset.csv"), "--problems", str(out / "problems.csv")])
    assert result.exit_code == 0, result.output
    return (result, pd.read_csv(out / "leaderboard.csv"), pd.read_csv(out / "per_dataset.csv"),
            pd.read_csv(out / "problems.csv"))


def test_full_blackbox_scores_with_15_dnf_cells(full_verdict):
    result, leaderboard, per_dataset, problems = full_verdict
    assert len(leaderboard) == 21
    # 'datasets' counts the datasets with a result, 'dnf' the others: 122 judged for every method
    assert ((leaderboard["datasets"] + leaderboard["dnf"]) == 122).all()
    assert leaderboard.set_index("method").loc["*AIFeynman", "datasets"] == 107
    assert leaderboard["dnf"].sum() == 15
    assert leaderboard.set_index("method").loc["*AIFeynman", "dnf"] == 15
    assert (per_dataset["status"] == "DNF").sum() == 15
    assert (problems["kind"] == "DNF").sum() == 15
    # no property column: the rules make it optional, so it is left out with a visible warning
    assert "Criterion 'property' has no data" in result.output
    # the verdict's columns, then the rank resolution's and the failures by type (issue 34)
    assert list(leaderboard.columns) == ["place", "method", "score", "accuracy_rank", "simplicity_rank",
                                         "datasets", "dnf", "places", "places_share", "tied_with_winner",
                                         "timed_out", "did_not_parse", "non_finite", "missing", "imputed"]
    # a DNF cell takes the lowest position on every criterion (it is the only DNF there)
    dnf = per_dataset[per_dataset["status"] == "DNF"]
    assert (dnf["accuracy_rank"] == 1).all() and (dnf["simplicity_rank"] == 1).all()


def test_hand_checkable_subset(tmp_path):
    # Two datasets x three methods of the real file, K = 3, criteria accuracy and
    # simplicity (no property column). Simplicity = round(-log5(model_size), 1):
    #   1027_ESL:     *AIFeynman r2 .645580 -> .646, size 11.5 -> -log5 = -1.5175 -> -1.5
    #                 *Operon    r2 .857675 -> .858, size 49.5 -> -2.4244 -> -2.4
    #                 Linear     r2 .871902 -> .872, size 4    -> -0.8614 -> -0.9
    #   1191_BNG_pbc: *AIFeynman missing (DNF)
    #                 *Operon    r2 .342720 -> .343, size 95   -> -2.8295 -> -2.8
    #                 Linear     r2 .308832 -> .309, size 18   -> -1.7959 -> -1.8
    # Ranks (3 = best):
    #   1027_ESL accuracy AIF 1, Op 2, Lin 3; simplicity Op 1, AIF 2, Lin 3
    #            hmean AIF 2/(1+1/2) = 4/3, Op 4/3, Lin 3
    #   1191     accuracy AIF 1 (DNF), Lin 2, Op 3; simplicity AIF 1, Op 2, Lin 3
    #            hmean AIF 1, Op 2/(1/3+1/2) = 2.4, Lin 2.4
    # final: AIF (4/3+1)/2 = 1.166667; Op (4/3+2.4)/2 = 1.866667; Lin (3+2.4)/2 = 2.7
    data = pd.read_csv(BLACKBOX)
    subset = data[data["dataset"].isin(["1027_ESL", "1191_BNG_pbc"])
                  & data["algorithm"].isin(["*AIFeynman", "*Operon", "Linear"])]
    path = tmp_path / "subset.csv"
    subset.to_csv(path, index=False)
    # srbench2022 ranks a property these results do not have: no verdict, a clear message
    refused = CliRunner().invoke(main, ["score", str(path), "-o", str(tmp_path / "lb.csv")])
    assert refused.exit_code == 1 and "Traceback" not in refused.output
    assert "Criterion 'property' of the rules 'srbench2022' has no data" in refused.output
    assert not (tmp_path / "lb.csv").exists()
    result = CliRunner().invoke(main, ["score", str(path), "--rules", str(blackbox_rules(tmp_path)),
                                       "-o", str(tmp_path / "lb.csv")])
    assert result.exit_code == 0, result.output
    leaderboard = pd.read_csv(tmp_path / "lb.csv")
    assert list(leaderboard["method"]) == ["Linear", "*Operon", "*AIFeynman"]
    assert leaderboard["score"].round(6).tolist() == [2.7, 1.866667, 1.166667]
    assert leaderboard.set_index("method").loc["*AIFeynman", "dnf"] == 1
