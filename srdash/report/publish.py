"""`srdash publish`: a verdict frozen as a folder a reader can cite and `srdash diff` can compare.

The folder's layout and how it is read back: :mod:`srdash.analysis.published`. The same inputs give
the same bytes in any folder and any process: nothing in it depends on where it is written or when
(the report's time and the citation's date are the inputs' date, not the clock).
"""

from __future__ import annotations

import datetime as _datetime
import hashlib
import json
import re
from pathlib import Path

from srdash.analysis.published import MANIFEST, PUBLISHED_FORMAT, published_names, replay_columns
from srdash.errors import SrdashError
from srdash.io.csvsafe import write_csv
from srdash.judging.ranking import judge
from srdash.judging.rules import parse_rules
from srdash.report.build import build_competition_report, write_report

__all__ = ["check_date", "citation_cff", "inputs_date", "publish_result"]

_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def inputs_date(competition) -> str:
    """The date of a competition's inputs (``YYYY-MM-DD``, UTC): the newest modification time of its files
    (the inputs, the competition file and the rules files).

    A copy that keeps the files' times (``cp -p``, ``rsync -t``, an archive) keeps the date; give
    ``srdash publish --date`` to fix it otherwise.
    """
    times = []
    rules_files = [rules.source for rules in (competition.rules, getattr(competition.realworld, "rules", None))
                   if rules is not None and not str(rules.source).startswith(("preset:", "<"))]
    for path in (*(path for _, path in competition.inputs), competition.source, *rules_files):
        path = Path(str(path))
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else []
        times += [p.stat().st_mtime for p in files]
    if not times:
        raise SrdashError("The competition's inputs have no file to date the verdict by; give the date (--date).")
    return _datetime.datetime.fromtimestamp(max(times), _datetime.timezone.utc).date().isoformat()


def check_date(date: str) -> None:
    """Refuse a date that is not a real day written YYYY-MM-DD (it goes into CITATION.cff and the report)."""
    try:
        valid = bool(_DATE.fullmatch(date)) and _datetime.date.fromisoformat(date) is not None
    except ValueError:
        valid = False
    if not valid:
        raise SrdashError(f"The 'date' option must be a date YYYY-MM-DD. Got {date!r}.")


def _quoted(text: str) -> str:
    # a JSON string is a YAML double-quoted scalar: quotes, backslashes, newlines and control characters escaped
    return json.dumps(str(text), ensure_ascii=True)


def citation_cff(*, title: str, fingerprint: str, date: str, rules: str) -> str:
    """A CITATION.cff (Citation File Format 1.2.0) naming a published verdict.

    Examples
    --------
    >>> print(citation_cff(title='My "SR" cup', fingerprint="ab" * 32, date="2026-01-02", rules="srbench2022"))
    ... # doctest: +ELLIPSIS
    cff-version: 1.2.0
    message: "If you use this verdict, cite it as below; its fingerprint identifies it."
    type: dataset
    title: "My \\"SR\\" cup: verdict ababababab..."
    ...
    """
    check_date(date)
    lines = [
        "cff-version: 1.2.0",
        f"message: {_quoted('If you use this verdict, cite it as below; its fingerprint identifies it.')}",
        "type: dataset",
        f"title: {_quoted(f'{title}: verdict {fingerprint[:12]}')}",
        "authors:",
        f"  - name: {_quoted(f'The organisers of {title}')}",
        f"version: {_quoted(fingerprint[:12])}",
        f"date-released: {_quoted(date)}",
        "identifiers:",
        "  - type: other",
        f"    value: {_quoted(f'srdash-verdict-fingerprint:{fingerprint}')}",
        f"    description: {_quoted('SHA-256 verdict fingerprint computed by srdash')}",
        f"abstract: {_quoted(f'The verdict of {title} under the rules {rules}, published by srdash.')}",
        "keywords:",
        "  - symbolic regression",
        "  - benchmark",
        "  - leaderboard",
    ]
    return "\n".join(lines) + "\n"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _refuse_other_contents(folder: Path, fingerprint: str) -> None:
    """A folder that is not empty must hold this same verdict (then it is written again, byte for byte)."""
    if not folder.exists():
        return
    if not folder.is_dir():
        raise SrdashError(f"The output '{folder}' is a file; publish into a new or empty folder.")
    if not any(folder.iterdir()):
        return
    held = None
    try:
        held = json.loads((folder / MANIFEST).read_text(encoding="utf-8")).get("fingerprint")
    except (OSError, ValueError, AttributeError):
        pass
    if held == fingerprint:
        return
    what = (f"holds another verdict ({str(held)[:12]})" if isinstance(held, str) and held
            else "is not empty and holds no published verdict")
    raise SrdashError(f"The output folder '{folder}' {what}; publishing there would mix two verdicts. Publish "
                      f"into a new or empty folder (this verdict is {fingerprint[:12]}).")


def publish_result(result, folder, *, date: str | None = None, samples: int = 2000, seed: int = 0) -> Path:
    """Write a judged competition's verdict as a published folder.

    Parameters
    ----------
    result : CompetitionResult
        From :func:`srdash.judging.pipeline.judge_competition`, of rules that rank per-run results.
    folder : path-like
        A new or empty folder, or one holding this same verdict.
    date : str, optional, keyword-only
        ``YYYY-MM-DD``: the date of the citation and the report (default: :func:`inputs_date`).
    samples, seed : int, keyword-only
        The report's weight samples and seed (see :func:`srdash.report.build.build_competition_report`).

    Returns
    -------
    Path
        The ``published.json`` written (last, so a folder cut short is not a published verdict).

    Raises
    ------
    SrdashError
        Rules that judge submissions, rules changed by options (no rules file says them), a folder holding
        something else, or a verdict its own runs do not give again.
    """
    verdict = result.verdict
    rules = verdict.rules
    if not rules.rule_kind.judges_runs or result.runs is None:
        raise SrdashError(f"`srdash publish` covers rules that rank per-run results (SRBench style); the rules "
                          f"'{rules.name}' are {rules.kind}.")
    if parse_rules(rules.text, source=rules.source, default_name=rules.name).sha256 != rules.sha256:
        raise SrdashError(f"The rules '{rules.name}' were changed by options after they were read; a published "
                          "verdict stores its rules file. Write the rules as applied to a .toml file and name it "
                          "in the competition file.")
    date = date or inputs_date(result.competition)
    check_date(date)
    runs = result.runs[replay_columns(result.runs)]
    replayed = judge(runs, rules, methods=list(verdict.leaderboard["method"])).leaderboard
    if not replayed[["method", "place"]].equals(verdict.leaderboard[["method", "place"]]):
        raise SrdashError("The verdict is not given again by its runs alone (e.g. a qualification stage or "
                          "measures the runs do not keep), so `srdash diff` could not replay it: not published.")
    folder = Path(folder)
    fingerprint = result.fingerprint
    _refuse_other_contents(folder, fingerprint)
    names = published_names(fingerprint, realworld=result.realworld is not None)
    folder.mkdir(parents=True, exist_ok=True)
    write_csv(verdict.leaderboard, folder / names["leaderboard"], index=False)
    if result.realworld is not None:
        write_csv(result.realworld.leaderboard, folder / names["realworld_leaderboard"], index=False)
    write_csv(verdict.per_dataset, folder / names["per_dataset"], index=False)
    write_csv(runs, folder / names["runs"], index=False)
    write_csv(verdict.problems, folder / names["problems"], index=False)
    (folder / names["provenance"]).write_text(json.dumps(dict(verdict.provenance), indent=2, sort_keys=True) + "\n",
                                              encoding="utf-8")
    (folder / names["rules"]).write_text(rules.text, encoding="utf-8")
    report = build_competition_report(result, samples=samples, seed=seed, generated_at=f"{date}T00:00:00Z")
    write_report(report, folder / names["report"], format="html")
    title = result.competition.title
    (folder / names["citation"]).write_text(citation_cff(title=title, fingerprint=fingerprint, date=date,
                                                         rules=rules.name), encoding="utf-8")
    manifest = {"format": PUBLISHED_FORMAT, "fingerprint": fingerprint, "title": title, "date": date,
                "files": {role: {"name": name, "sha256": _sha256(folder / name)} for role, name in names.items()}}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return folder / MANIFEST
