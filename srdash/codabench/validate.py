"""An offline check of a Codabench v2 bundle: what Codabench's unpacker and leaderboard serializer refuse.

Written from Codabench's source at codabench@c7dbc75 (commit c7dbc756b07b133f8e552ae626fab54817ed93f3):
``src/apps/competitions/unpackers/v2.py`` (pages, tasks, solutions, terms, image, phases,
leaderboards; every file named must exist and pages and terms be non-empty), ``base_unpacker.py``
(``_validate_phase_ordering``: a phase followed by another needs an end, and the next starts strictly
after it), ``src/apps/api/views/competitions.py`` (``collect_leaderboard_data``: the results download
names its CSV columns by column title, so equal titles would merge),
``src/apps/api/serializers/leaderboards.py`` (at least one column, unique indexes and keys,
computation indexes), ``src/apps/leaderboards/models.py`` (key and title lengths, sorting and
submission rule choices), ``compute_worker/compute_worker.py`` (a scoring program's
``metadata.yaml`` with a ``command``). Only the first leaderboard is used by Codabench.
"""

from __future__ import annotations

import datetime as _dt
import zipfile
from pathlib import Path, PurePosixPath

import yaml

from srdash.codabench.columns import KEY_LIMIT

__all__ = ["validate_bundle"]

_REQUIRED = ("title", "image", "terms", "pages", "tasks", "phases", "leaderboards")
_SORTING = ("desc", "asc")
_SUBMISSION_RULES = ("Add", "Add_And_Delete", "Add_And_Delete_Multiple", "Force_Last", "Force_Latest_Multiple",
                     "Force_Best")
_COMPUTATIONS = ("avg", "sum", "min", "max")
_MAX_YAML = 5_000_000


class _Bundle:
    def __init__(self, archive: zipfile.ZipFile):
        self.names = {n for n in archive.namelist()}
        self.archive = archive

    def is_dir(self, name: str) -> bool:
        prefix = str(PurePosixPath(name)).rstrip("/") + "/"
        return any(n.startswith(prefix) for n in self.names)

    def size(self, name: str) -> int | None:
        name = str(PurePosixPath(name))
        return self.archive.getinfo(name).file_size if name in self.names else None

    def read(self, name: str) -> bytes:
        return self.archive.read(str(PurePosixPath(name)))


def _date(value, where: str, problems: list):
    if value in (None, ""):
        return None
    if isinstance(value, _dt.datetime):
        return value.replace(tzinfo=None)
    if isinstance(value, _dt.date):
        return _dt.datetime.combine(value, _dt.time())
    try:
        return _dt.datetime.fromisoformat(str(value)).replace(tzinfo=None)
    except ValueError:
        problems.append(f"{where}: {value!r} is not a date (YYYY-MM-DD or an ISO date and time).")
        return None


def _file(bundle: _Bundle, name, where: str, problems: list, *, non_empty: bool = False,
          folder_ok: bool = True) -> None:
    if not isinstance(name, str) or not name:
        problems.append(f"{where}: a file name is needed. Got {name!r}.")
        return
    if folder_ok and bundle.is_dir(name):
        return
    size = bundle.size(name)
    if size is None:
        problems.append(f"{where}: {name!r} is not in the bundle.")
    elif non_empty and size == 0:
        problems.append(f"{where}: {name!r} is empty; it must have content.")


def _program(bundle: _Bundle, name: str, where: str, problems: list) -> None:
    if not bundle.is_dir(name):
        return  # a zip inside the bundle: Codabench reads it as it is; nothing more to check offline
    metadata = f"{name.rstrip('/')}/metadata.yaml"
    if bundle.size(metadata) is None:
        problems.append(f"{where}: {name!r} has no metadata.yaml at its root.")
        return
    try:
        content = yaml.safe_load(bundle.read(metadata))
    except yaml.YAMLError as exc:
        problems.append(f"{where}: {metadata} is not YAML ({exc}).")
        return
    if not isinstance(content, dict) or not content.get("command"):
        problems.append(f"{where}: {metadata} has no 'command'.")


def _leaderboard(board, problems: list) -> None:
    where = "leaderboards[0]"
    if not isinstance(board, dict):
        problems.append(f"{where}: a mapping is needed.")
        return
    for name, limit in (("title", 64), ("key", KEY_LIMIT)):
        value = board.get(name)
        if not isinstance(value, str) or not value or len(value) > limit:
            problems.append(f"{where}: '{name}' must be text of 1 to {limit} characters. Got {value!r}.")
    rule = board.get("submission_rule", "Add")
    if rule not in _SUBMISSION_RULES:
        problems.append(f"{where}: 'submission_rule' must be one of {', '.join(_SUBMISSION_RULES)}. Got {rule!r}.")
    columns = board.get("columns") or []
    if not columns:
        problems.append(f"{where}: a leaderboard needs at least 1 column.")
        return
    indexes = [c.get("index") for c in columns if isinstance(c, dict)]
    keys = [c.get("key") for c in columns if isinstance(c, dict)]
    for value, what in ((indexes, "indexes"), (keys, "keys")):
        duplicates = sorted({str(v) for v in value if value.count(v) > 1})
        if duplicates:
            problems.append(f"{where}: columns must have unique {what}. Repeated: {', '.join(duplicates)}.")
    titles = [c.get("title") for c in columns if isinstance(c, dict)]
    repeated = sorted({str(t) for t in titles if titles.count(t) > 1})
    if repeated:  # collect_leaderboard_data keys the download's CSV columns by title: equal titles merge
        problems.append(f"{where}: columns with the same title become one column of the results download. "
                        f"Repeated: {', '.join(repeated)}.")
    for position, column in enumerate(columns):
        at = f"{where}.columns[{position}]"
        if not isinstance(column, dict):
            problems.append(f"{at}: a mapping is needed.")
            continue
        for name in ("title", "key"):
            value = column.get(name)
            if not isinstance(value, str) or not value or len(value) > KEY_LIMIT:
                problems.append(f"{at}: '{name}' must be text of 1 to {KEY_LIMIT} characters. Got {value!r}.")
        if column.get("sorting", "desc") not in _SORTING:
            problems.append(f"{at}: 'sorting' must be 'desc' or 'asc'. Got {column.get('sorting')!r}.")
        computation, pointers = column.get("computation"), column.get("computation_indexes")
        if computation is not None and computation not in _COMPUTATIONS:
            problems.append(f"{at}: 'computation' must be one of {', '.join(_COMPUTATIONS)}. Got {computation!r}.")
        if computation is not None and not pointers:
            problems.append(f"{at}: a column with a computation needs 'computation_indexes'.")
        if pointers and computation is None:
            problems.append(f"{at}: 'computation_indexes' without a 'computation'.")
        for pointer in str(pointers or "").split(",") if pointers else ():
            if pointer.strip() == str(column.get("index")):
                problems.append(f"{at}: a column's computation cannot use the column itself.")
            elif pointer.strip() not in {str(i) for i in indexes}:
                problems.append(f"{at}: computation index {pointer.strip()!r} is no column's index.")


def validate_bundle(path: str | Path) -> list[str]:
    """Every problem Codabench would refuse the bundle at ``path`` for (an empty list: none found).

    Parameters
    ----------
    path : path
        A bundle zip.

    Returns
    -------
    list of str
        One sentence per problem, naming where in ``competition.yaml`` it is.
    """
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        return [f"{str(path)!r} is not a readable zip: {exc}."]
    with archive:
        bundle = _Bundle(archive)
        if "competition.yaml" not in bundle.names:
            return ["The bundle has no competition.yaml at its root."]
        if bundle.size("competition.yaml") > _MAX_YAML:
            return [f"competition.yaml is larger than {_MAX_YAML} bytes."]
        try:
            document = yaml.safe_load(bundle.read("competition.yaml"))
        except yaml.YAMLError as exc:
            return [f"competition.yaml is not YAML: {exc}"]
        if not isinstance(document, dict):
            return ["competition.yaml must be a mapping."]
        return _problems(bundle, document)


def _problems(bundle: _Bundle, document: dict) -> list[str]:
    problems: list[str] = []
    if document.get("version") != 2:
        problems.append(f"'version' must be 2 (otherwise Codabench reads the older format). "
                        f"Got {document.get('version')!r}.")
    for key in _REQUIRED:
        if not document.get(key):
            problems.append(f"'{key}' is missing or empty.")
    if document.get("image"):
        _file(bundle, document["image"], "image", problems, non_empty=True, folder_ok=False)
    if document.get("terms"):
        _file(bundle, document["terms"], "terms", problems, non_empty=True, folder_ok=False)
    for position, page in enumerate(document.get("pages") or []):
        _file(bundle, (page or {}).get("file"), f"pages[{position}]", problems, non_empty=True, folder_ok=False)
    task_indexes = set()
    for position, task in enumerate(document.get("tasks") or []):
        where = f"tasks[{position}]"
        if not isinstance(task, dict) or "index" not in task:
            problems.append(f"{where}: no 'index'.")
            continue
        if task["index"] in task_indexes:
            problems.append(f"{where}: duplicate task index {task['index']!r}.")
        task_indexes.add(task["index"])
        if "key" in task:
            continue  # an existing task on the platform
        if "scoring_program" not in task:
            problems.append(f"{where}: no 'scoring_program'.")
        for kind in ("ingestion_program", "input_data", "scoring_program", "reference_data"):
            if kind in task:
                _file(bundle, task[kind], f"{where}.{kind}", problems, non_empty=True)
        if isinstance(task.get("scoring_program"), str):
            _program(bundle, task["scoring_program"], f"{where}.scoring_program", problems)
    for position, solution in enumerate(document.get("solutions") or []):
        where = f"solutions[{position}]"
        missing = [t for t in (solution or {}).get("tasks") or [] if t not in task_indexes]
        if not (solution or {}).get("tasks") or missing:
            problems.append(f"{where}: its 'tasks' must name task indexes. Not found: {missing}.")
        if "key" not in (solution or {}):
            _file(bundle, (solution or {}).get("path"), f"{where}.path", problems, non_empty=True)
    phases = sorted((p for p in document.get("phases") or [] if isinstance(p, dict)), key=lambda p: p.get("index", 0))
    dates = []
    for phase in phases:
        where = f"phase {phase.get('name', phase.get('index'))!r}"
        if not phase.get("tasks"):
            problems.append(f"{where}: a phase must contain at least one task.")
        for task in phase.get("tasks") or []:
            if task not in task_indexes:
                problems.append(f"{where}: task {task!r} is no task's index.")
        for kind in ("public_data", "starting_kit"):
            if phase.get(kind):
                _file(bundle, phase[kind], f"{where}.{kind}", problems, non_empty=True)
        dates.append((where, _date(phase.get("start"), f"{where}.start", problems),
                      _date(phase.get("end"), f"{where}.end", problems)))
    for (first, _, end), (second, start, _) in zip(dates, dates[1:]):
        if end is None:
            problems.append(f"{first} must have an end because a phase comes after it.")
        elif start is None or start < end:
            problems.append(f"Phases must be sequential: {second} starts before {first} has ended.")
        elif start == end:
            problems.append(f"Phases' dates conflict: {second} must start after {first} has ended.")
    for where, start, end in dates:
        if start is not None and end is not None and end < start:
            problems.append(f"{where} ends before it starts.")
    boards = document.get("leaderboards") or []
    if boards:
        _leaderboard(boards[0], problems)
    return problems
