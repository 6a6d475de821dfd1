"""An organiser's Codabench download, back into srdash results.

What Codabench writes (codabench@c7dbc75):

- the competition's results download (``src/apps/api/views/competitions.py``,
  ``collect_leaderboard_data`` and ``results``): one CSV per phase, named
  ``<leaderboard title> - <phase name>(<phase id>).csv``, with a ``Username`` column
  ``<owner>-<submission id>`` (the parent's id for a multi-task submission), ``fact_sheet_answers``,
  then one column ``<task name>(<task id>)-<column title>`` per task and leaderboard column; its rows
  are the submissions on the leaderboard (``LeaderboardPhaseSerializer.get_submissions`` in
  ``src/apps/api/serializers/leaderboards.py``), so collect reads exactly those;
- each submission's scoring output (``src/apps/api/views/submissions.py``, ``download_many``):
  ``res_<submission id>_<owner>_PhaseId<phase id>_<date>_<file>``, a zip of the scoring program's
  output folder plus the worker's ``metadata`` (``compute_worker.py``), where srdash's scoring
  program left the submission's validated ``results.csv`` (a prediction-file competition: the
  accepted ``predictions.txt``).

The method is the owner, or ``<owner>-<submission id>`` for an owner with several submissions on the
leaderboard. Rows are sorted, so collecting the same export twice writes the same file.
"""

from __future__ import annotations

import re
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from srdash.codabench.predictions import PREDICTIONS_FILE
from srdash.codabench.scored import SUBMISSION_FILE
from srdash.errors import Problem, SrdashError, ValidationError
from srdash.io.csvsafe import write_csv
from srdash.io.files import MAX_FILE_BYTES, read_csv_file
from srdash.io.loading import load_results

__all__ = ["Collected", "collect_export", "leaderboard_files", "write_collected"]

_PHASE = re.compile(r"\((\d+)\)\.csv$")
_USERNAME = re.compile(r"^(.+)-(\d+)$")


@dataclass(frozen=True)
class Collected:
    """The collected results and what could not be collected.

    Attributes
    ----------
    table : DataFrame
        srdash results: one row per (method, dataset, run), sorted; a prediction-file competition: the
        submission listing (``team``, ``file``), sorted by team.
    problems : tuple of str
        Submissions left out, each with why.
    phase : str
        The leaderboard file read.
    predictions : dict
        A prediction-file competition's accepted files (the listing's ``file`` -> bytes); empty otherwise.
    """

    table: pd.DataFrame
    problems: tuple
    phase: str
    predictions: dict = field(default_factory=dict)

    @property
    def methods(self) -> list:
        """The methods (teams) collected."""
        return sorted(self.table["team" if self.predictions else "method"].unique())


def leaderboard_files(export: str | Path) -> list[Path]:
    """The per-phase leaderboard CSVs in ``export``, by name."""
    return sorted(p for p in Path(export).glob("*.csv") if p.is_file() and _PHASE.search(p.name))


def _choose(export: Path, phase: str | None) -> Path:
    files = leaderboard_files(export)
    names = [p.name for p in files]
    if phase is not None:
        files = [p for p in files if f"- {phase}(" in p.name or p.name.endswith(f"({phase}).csv")]
    if len(files) != 1:
        what = "No" if not files else "Several"
        raise SrdashError(f"{what} leaderboard export in {str(export)!r} matches"
                          f"{'' if phase is None else f' the phase {phase!r}'}: give --phase (the phase's name or "
                          f"id). Leaderboard files there: {names[:20]}.")
    return files[0]


def _submissions(path: Path) -> list[tuple[str, str]]:
    try:
        frame = read_csv_file(path, dtype=str, keep_default_na=False)
    except (SrdashError, ValueError) as exc:
        raise SrdashError(f"{path.name}: cannot read the leaderboard export: {exc}") from exc
    if "Username" not in frame.columns:
        raise ValidationError([Problem(source=path.name, row=None, column="Username",
                                       message=f"no 'Username' column; columns: {list(frame.columns)[:20]}")])
    out, problems = [], []
    for row, username in enumerate(frame["Username"], start=1):
        match = _USERNAME.match(username)
        if match is None:
            problems.append(Problem(source=path.name, row=row, column="Username",
                                    message=f"expected '<owner>-<submission id>', got {username[:80]!r}"))
        else:
            out.append((match.group(1), match.group(2)))
    if problems:
        raise ValidationError(problems)
    return out


def _member(zip_path: Path) -> tuple[str, bytes]:
    """The submission's validated copy in a scoring result: (its name, its bytes)."""
    try:
        with zipfile.ZipFile(zip_path) as archive:
            names = [n for n in (SUBMISSION_FILE, PREDICTIONS_FILE) if n in archive.namelist()]
            if not names:
                raise SrdashError(f"{zip_path.name}: no {SUBMISSION_FILE} or {PREDICTIONS_FILE} (the submission "
                                  "was not accepted by srdash's scoring program)")
            info = archive.getinfo(names[0])
            if info.file_size > MAX_FILE_BYTES:
                raise SrdashError(f"{zip_path.name}: {names[0]} is larger than {MAX_FILE_BYTES} bytes")
            with archive.open(info) as handle:  # read at most the limit, whatever the header says
                data = handle.read(MAX_FILE_BYTES + 1)
    except (OSError, zipfile.BadZipFile) as exc:
        raise SrdashError(f"{zip_path.name}: not a readable zip ({exc})") from exc
    if len(data) > MAX_FILE_BYTES:
        raise SrdashError(f"{zip_path.name}: {names[0]} is larger than {MAX_FILE_BYTES} bytes")
    return names[0], data


def write_collected(collected: Collected, output: str | Path) -> Path:
    """Write what was collected: the results CSV at ``output``; for a prediction-file competition, the
    folder ``output`` with ``listing.csv`` (``team``, ``file``) and ``submissions/``."""
    output = Path(output)
    try:
        if not collected.predictions:
            write_csv(collected.table, output, index=False)
            return output
        (output / "submissions").mkdir(parents=True, exist_ok=True)
        for name, data in collected.predictions.items():
            (output / name).write_bytes(data)
        write_csv(collected.table, output / "listing.csv", index=False)
    except OSError as exc:
        raise SrdashError(f"Cannot write the collected results to {str(output)!r}: {exc}") from exc
    return output / "listing.csv"


def collect_export(export: str | Path, *, phase: str | None = None) -> Collected:
    """Collect the scored submissions of one phase of a Codabench download.

    Parameters
    ----------
    export : path
        A folder holding the phase's leaderboard CSV and the submissions' ``res_*.zip`` files.
    phase : str, keyword-only
        The phase's name or id (needed when the folder holds several leaderboard CSVs).

    Returns
    -------
    Collected
    """
    export = Path(export)
    if not export.is_dir():
        raise SrdashError(f"The export {str(export)!r} must be a folder (unzip Codabench's download into it).")
    board = _choose(export, phase)
    phase_id = _PHASE.search(board.name).group(1)
    submissions = _submissions(board)
    owners = pd.Series([owner for owner, _ in submissions]).value_counts()
    zips = {p.name: p for p in export.glob("res_*.zip") if p.is_file()}
    frames, problems, predictions, kinds = [], [], {}, set()
    with tempfile.TemporaryDirectory() as folder:
        for owner, submission in submissions:
            method = owner if owners[owner] == 1 else f"{owner}-{submission}"
            prefix = f"res_{submission}_{owner}_PhaseId{phase_id}_"
            found = sorted(name for name in zips if name.startswith(prefix))
            if len(found) != 1:
                problems.append(f"{owner}-{submission}: {len(found)} scoring results named {prefix}*.zip "
                                "(one expected); left out")
                continue
            try:
                name, data = _member(zips[found[0]])
                if name == SUBMISSION_FILE:
                    target = Path(folder) / f"{submission}.csv"
                    target.write_bytes(data)
                    frames.append(load_results(target).table.assign(method=method))
                else:
                    predictions[f"submissions/{submission}.txt"] = data
                    frames.append(pd.DataFrame({"team": [method], "file": [f"submissions/{submission}.txt"]}))
                kinds.add(name)
            except SrdashError as exc:
                problems.append(f"{owner}-{submission}: {exc}; left out")
    if not frames:
        raise SrdashError(f"No submission of {board.name} could be collected: " + "; ".join(problems[:10]))
    if len(kinds) > 1:
        raise SrdashError(f"{board.name}: some scoring results hold {SUBMISSION_FILE}, others {PREDICTIONS_FILE}: "
                          "one competition has one kind of submission.")
    table = pd.concat(frames, ignore_index=True)
    order = ["team"] if predictions else ["method", "dataset", "run"]
    table = table.sort_values(order, kind="stable").reset_index(drop=True)
    return Collected(table=table, problems=tuple(problems), phase=board.name, predictions=predictions)
