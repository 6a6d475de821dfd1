"""The scoring program: one submission scored by srdash itself, as Codabench's compute worker runs it.

``python -m srdash.codabench.score INPUT OUTPUT`` (the bundle's ``metadata.yaml`` runs it as
``python3 /app/program/score.py /app/input /app/output``). As ``compute_worker/compute_worker.py``
lays it out (codabench@c7dbc75): ``INPUT/ref`` holds the task's reference data (``srdash.json``,
written by :mod:`srdash.codabench.bundle`: the rules, the datasets, the columns), ``INPUT/res`` the
unzipped submission (``results.csv``: one method's rows, srdash's results format). OUTPUT receives:

- ``scores.json``: exactly the leaderboard's column keys, finite values (:mod:`~.columns`); a file
  that cannot be read scores a failure on every column, a failed model or missing dataset the worst
  value as the rules say, shown as failed in the detailed results;
- ``detailed_results.html``: the per-dataset measures and every problem, self-contained, escaped;
- ``results.csv``: the submission's validated rows, which :mod:`~.collect` gathers at the end.

Never a file named ``metadata`` (the worker refuses an output that has one).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Sequence

from srdash._version import __version__
from srdash.codabench.columns import OK_COLUMN, finite_score
from srdash.codabench.predictions import score_prediction_submission
from srdash.codabench.scored import (REFERENCE_FILE, SUBMISSION_FILE, ScoredSubmission, failed_scores, problem,
                                    read_reference)
from srdash.errors import SrdashError
from srdash.io.csvsafe import write_csv
from srdash.judging.competition import competition_from_options

__all__ = ["REFERENCE_FILE", "SUBMISSION_FILE", "ScoredSubmission", "score_submission", "main", "run"]



def score_submission(input_dir: str | Path, *, jobs: int = 1) -> ScoredSubmission:
    """Score the submission in ``input_dir/res`` against ``input_dir/ref``.

    Parameters
    ----------
    input_dir : path
        The worker's input folder (``ref`` and ``res``).
    jobs : int, keyword-only
        Worker processes for the models' simplification.

    Returns
    -------
    ScoredSubmission
        Its ``scores`` hold exactly the columns' keys, each finite.
    """
    ref, res = Path(input_dir) / "ref", Path(input_dir) / "res"
    spec = read_reference(ref)
    if spec.get("kind") == "predictions":
        return score_prediction_submission(ref, res, spec)
    return _score_results(ref, res, spec, jobs=jobs)


def _submitted_file(res: Path, name: str, columns) -> tuple[Path | None, ScoredSubmission | None]:
    path = res / name
    if path.is_file():
        return path, None
    present = sorted(p.name for p in res.iterdir())[:20] if res.is_dir() else []
    return None, ScoredSubmission(failed_scores(columns), problems=[problem(
        "file", f"The submission must hold a file named {name!r} at its root. Got {present}.")])


def _score_results(ref: Path, res: Path, spec: dict, *, jobs: int) -> ScoredSubmission:
    # lazy: numpy, pandas
    from srdash.judging.pipeline import judge_prepared, load_competition_results, prepare_competition

    columns = spec["columns"]
    scores = failed_scores(columns)
    submission, failed = _submitted_file(res, SUBMISSION_FILE, columns)
    if failed is not None:
        return failed
    options = {k: (ref / spec[k] if spec.get(k) else None) for k in ("datasets", "descriptions")}
    try:
        competition = competition_from_options(submission, rules=ref / spec["rules"], timeout=spec["timeout"],
                                               jobs=jobs, cache=False, **options)
        result = judge_prepared(prepare_competition(competition))
        table = load_competition_results(competition).table
    except SrdashError as exc:
        return ScoredSubmission(scores, problems=[problem("file", str(exc))])
    verdict = result.verdict
    methods = sorted(verdict.per_dataset["method"].unique())
    if len(methods) != 1:
        return ScoredSubmission(scores, problems=[problem("file", f"{SUBMISSION_FILE}, column 'method': a "
                                                          f"submission is one method. Got {len(methods)}: "
                                                          f"{methods[:10]}.")])
    known = list(spec["datasets_list"])
    problems = [problem(str(p["kind"]), str(p["detail"]), dataset=str(p["dataset"]),
                        run="" if p["run"] != p["run"] else str(p["run"]))
                for p in verdict.problems.to_dict("records")]
    per_dataset = {str(r["dataset"]): r for r in verdict.per_dataset.to_dict("records")}
    for dataset in sorted(set(per_dataset) - set(known)):
        problems.append(problem("unknown dataset", f"{SUBMISSION_FILE}, column 'dataset': {dataset!r} is not a "
                                f"dataset of this competition (left out). Expected one of {known[:20]}.",
                                dataset=dataset))
    rows, ok = [], 0
    for dataset in known:
        record = per_dataset.get(dataset)
        values = {c.criterion: (math.nan if record is None else float(record.get(c.criterion, math.nan)))
                  for c in columns if c.dataset == dataset}
        failed = record is None or any(not math.isfinite(v) for v in values.values())
        if record is None:
            problems.append(problem("DNF", "no row for this dataset: the worst value on every criterion",
                                    dataset=dataset))
        ok += not failed
        rows.append({"dataset": dataset, "status": "failed" if failed else "ok",
                     "runs": 0 if record is None else int(record.get("runs", 0)), **values})
        for c in columns:
            if c.dataset == dataset:
                scores[c.key] = finite_score(values[c.criterion], higher_is_better=c.higher_is_better)
    scores[OK_COLUMN] = float(ok)
    # The validated rows of the competition's datasets, for collect: what srdash judges at the end.
    table = table[table["dataset"].isin(known)]
    table = table.loc[:, [c for c in table.columns if not table[c].isna().all()]]
    text = write_csv(table.sort_values(["dataset", "run"], kind="stable"), None, index=False)
    return ScoredSubmission(scores, rows=rows, problems=problems, method=methods[0],
                            results={SUBMISSION_FILE: text.encode("utf-8")})


def run(input_dir: str | Path, output_dir: str | Path, *, jobs: int = 1) -> ScoredSubmission:
    """Score, then write ``scores.json``, ``detailed_results.html`` and the submission's validated copy."""
    from srdash.codabench.detailed import detailed_results_html  # lazy: jinja2

    input_dir, output = Path(input_dir), Path(output_dir)
    output.mkdir(parents=True, exist_ok=True)
    scored = score_submission(input_dir, jobs=jobs)
    spec = read_reference(input_dir / "ref")
    if spec.get("srdash_version") != __version__:  # the verdict at the end must use the bundle's srdash
        scored.problems.insert(0, problem("srdash version", f"The bundle was written by srdash "
                                          f"{spec.get('srdash_version')}; this image runs srdash {__version__}. "
                                          "Tell the organiser: scores may differ from the final verdict's."))
    for name, data in scored.results.items():
        (output / name).write_bytes(data)
    (output / "scores.json").write_text(json.dumps(scored.scores, allow_nan=False, indent=1), encoding="utf-8")
    (output / "detailed_results.html").write_text(
        detailed_results_html(scored, spec["columns"], title=spec.get("title", "")), encoding="utf-8")
    return scored


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry: ``python -m srdash.codabench.score INPUT OUTPUT``; 0 once scores are written."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print("usage: python -m srdash.codabench.score INPUT OUTPUT", file=sys.stderr)
        return 2
    try:
        scored = run(args[0], args[1])
    except SrdashError as exc:
        print(f"srdash could not score this submission: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - a participant sees stderr: one line, no traceback, no scores
        print(f"srdash failed on this submission ({type(exc).__name__}); tell the organiser, who can call "
              "srdash.codabench.score.run(INPUT, OUTPUT) on it in Python to see why.", file=sys.stderr)
        return 1
    for item in scored.problems[:50]:
        print(f"{item['kind']}: {item['dataset']} {item['detail']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
