"""A Codabench v2 competition bundle written from a srdash competition.

The bundle follows what Codabench's unpacker reads (``src/apps/competitions/unpackers/v2.py`` and
``base_unpacker.py``, codabench@c7dbc75): a zip with ``competition.yaml`` at its root, ``version: 2``,
``title``, ``image``, ``terms``, ``pages``, ``tasks`` (each with a ``scoring_program`` folder whose
``metadata.yaml`` has a ``command``), sequential ``phases`` and one ``leaderboard``
(``src/apps/api/serializers/leaderboards.py``: unique column indexes and keys). Folders are zipped by
Codabench itself (``unpackers/utils.py: zip_if_directory``). :func:`srdash.codabench.validate.validate_bundle`
checks every bundle written here.
"""

from __future__ import annotations

import datetime as _dt
import io
import json
import os
import struct
import zipfile
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Mapping

import yaml

from srdash._version import __version__
from srdash.codabench.columns import FAILED_VALUE, leaderboard_columns
from srdash.codabench.scored import REFERENCE_FILE, SUBMISSION_FILE
from srdash.errors import SrdashError
from srdash.io.csvsafe import write_csv

__all__ = ["SCORING_COMMAND", "Phase", "assemble_bundle", "default_image", "write_bundle"]

#: The scoring program's command, with the worker's paths (compute_worker.py: /app/program, /app/input, /app/output).
SCORING_COMMAND = "python3 /app/program/score.py /app/input /app/output"
# Fixed zip timestamps: the same competition gives the same bundle, byte for byte.
_ZIP_TIME = (2020, 1, 1, 0, 0, 0)

_SCORE_PY = '''\
"""Codabench scoring program: srdash scores the submission (python -m srdash.codabench.score)."""
import importlib.util
import subprocess
import sys

if importlib.util.find_spec("srdash") is None:
    sys.stderr.write("srdash is not installed in this image: the organiser must run this competition in an "
                     "image with srdash installed (pip install srdash=={version}); see the Evaluation page.\\n")
    sys.exit(1)
sys.exit(subprocess.call([sys.executable, "-m", "srdash.codabench.score", *sys.argv[1:]]))
'''


def default_image() -> str:
    """The docker image the bundle names unless told otherwise: one the organiser builds with srdash."""
    return f"srdash-codabench:{__version__}"


def _png_logo() -> bytes:
    """A 32x32 PNG in srdash's blue, drawn here (Codabench needs a logo file)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + bytes((31, 119, 180)) * 32 for _ in range(32))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 32, 32, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def _relative_inside(path: Path, folder: Path, what: str) -> str:
    relative = os.path.relpath(Path(path).absolute(), folder.absolute())
    if relative.startswith(".."):
        raise SrdashError(f"The {what} {str(path)!r} is not under {str(folder)!r}: a bundle copies the data files "
                          "at their place relative to the descriptions. Move it under that folder.")
    return Path(relative).as_posix()


def _reference_files(competition) -> tuple[dict[str, bytes], dict[str, bytes], dict]:
    """(reference files, public files, the reference's spec) of the competition."""
    ref: dict[str, bytes] = {"rules.toml": competition.rules.text.encode("utf-8")}
    public: dict[str, bytes] = {}
    spec: dict = {"rules": "rules.toml", "datasets": None, "descriptions": None,
                  "timeout": competition.simplification.timeout}
    if competition.datasets is not None:
        name = "datasets" + Path(competition.datasets).suffix
        ref[name] = public[name] = Path(competition.datasets).read_bytes()
        spec["datasets"] = name
    if competition.descriptions is not None:
        from srdash.io.datasets import load_dataset_table  # lazy: numpy, pandas

        folder = Path(competition.descriptions).absolute().parent
        name = "descriptions/" + Path(competition.descriptions).name
        ref[name] = Path(competition.descriptions).read_bytes()
        spec["descriptions"] = name
        for dataset in load_dataset_table(competition.descriptions):
            for partition, path in dataset.files.items():
                if not path:
                    continue
                relative = "descriptions/" + _relative_inside(path, folder, f"data file of dataset {dataset.name!r}")
                ref[relative] = Path(path).read_bytes()
                if partition == "train":  # the training data is public; everything else stays hidden
                    public[relative] = ref[relative]
    return ref, public, spec


def _pages(competition, columns, datasets, image: str) -> dict[str, str]:
    rules = competition.rules
    criteria = "\n".join(f"- **{c.name}** ({c.label}): {'higher' if c.direction == 'higher' else 'lower'} is "
                         f"better. {c.description or ''}".rstrip() for c in rules.criteria)
    title = competition.title
    verdict = ("The competition's verdict (methods ranked per dataset, ranks combined across submissions as the "
               "rules say) is not the leaderboard shown here: it is computed by srdash from every scored "
               "submission and published by the organiser at the end, with its verdict fingerprint.")
    return {
        "overview.md": f"# {title}\n\n{rules.description or rules.title or rules.name}\n\n{verdict}\n",
        "evaluation.md": (
            f"# Evaluation\n\nRules: `{rules.name}` (srdash {__version__}).\n\n{rules.description or ''}\n\n"
            f"Criteria, measured per dataset on your submission alone (runs combined by the "
            f"{rules.run_aggregation}):\n\n{criteria}\n\n"
            f"The leaderboard has one column per dataset and criterion, and first `datasets_ok`: the number of "
            f"datasets scored without a failure. A model that does not parse, a missing value or a missing dataset "
            f"counts as the worst value, shown as **-{FAILED_VALUE:.0e}** (or +{FAILED_VALUE:.0e} where lower is "
            f"better) and as *failed* in the detailed results; it never sorts above a real value.\n\n{verdict}\n\n"
            "## Scoring program\n\nThe scoring program runs srdash itself "
            f"(`{SCORING_COMMAND}` calls `python -m srdash.codabench.score`). It needs an image with srdash "
            f"installed: this competition names `{image}`; an organiser builds it without network at scoring "
            f"time, e.g. from\n\n```\nFROM python:3.11-slim\nRUN pip install srdash=={__version__}\n```\n\n"
            "and pushes it where the workers can pull it. Without srdash the program stops with a message on "
            "stderr and writes no scores.\n"),
        "data.md": (
            "# Data and submission format\n\nDatasets: " + ", ".join(f"`{d}`" for d in datasets) + ".\n\n"
            f"Submit a zip holding one file, `{SUBMISSION_FILE}`: one row per (dataset, run), columns `method` "
            "(your method's name, the same on every row), `dataset`, `run`, `model` (the formula as text: "
            "numbers, feature names, arithmetic and usual functions; never evaluated as code)"
            + (". srdash evaluates every model on the hidden test data and scores each dataset's property "
               "itself: metric columns are not needed (srdash's own values replace them). The training data is "
               "the phase's public data." if competition.descriptions is not None else
               " and the metric columns the rules use.")
            + " The sample submission and the starting kit show the format.\n"),
        "terms.md": (f"# Terms\n\nBy submitting you agree that your results, models and method name are published "
                     f"with the verdict of {title}.\n"),
    }


def _sample(competition, method: str | None) -> tuple[str, bytes, list[str]]:
    from srdash.judging.pipeline import load_competition_results  # lazy: numpy, pandas

    table = load_competition_results(competition).table
    datasets = sorted(table["dataset"].astype(str).unique())
    methods = sorted(table["method"].astype(str).unique())
    chosen = method if method is not None else methods[0]
    if chosen not in methods:
        raise SrdashError(f"The 'sample_method' option must be one of the results' methods {methods[:20]}. "
                          f"Got {chosen!r}.")
    rows = table[table["method"] == chosen]
    rows = rows.loc[:, [c for c in rows.columns if not rows[c].isna().all()]]
    return chosen, write_csv(rows, None, index=False).encode("utf-8"), datasets


def write_bundle(competition, path: str | Path, *, start: _dt.date | None = None, development_days: int = 30,
                 final_days: int = 7, image: str | None = None, sample_method: str | None = None,
                 execution_time_limit: int = 600) -> Path:
    """Write ``competition`` as a Codabench v2 bundle (a zip) at ``path``.

    Parameters
    ----------
    competition : srdash.judging.competition.Competition
    path : path
        The zip to write.
    start : datetime.date, keyword-only
        The development phase's first day (default: today).
    development_days, final_days : int, keyword-only
        The phases' lengths; the final phase starts the day after the development phase ends.
    image : str, keyword-only
        The docker image with srdash installed (default :func:`default_image`).
    sample_method : str, keyword-only
        The method whose results are the sample submission (default: the first by name).
    execution_time_limit : int, keyword-only
        Seconds per submission in each phase.

    Returns
    -------
    Path
    """
    if competition.rules.rule_kind.judges_submissions:
        raise SrdashError(f"The rules '{competition.rules.name}' score submissions with weighted meta-scores, not "
                          "methods per dataset: a Codabench bundle needs per-dataset criteria. Use rank rules, or "
                          "`srdash codabench bundle-predictions` for a prediction-file competition.")
    image = image or default_image()
    method, sample, datasets = _sample(competition, sample_method)
    columns = leaderboard_columns(competition.rules.criteria, datasets)
    ref, public, spec = _reference_files(competition)
    spec.update(kind="results", title=competition.title, srdash_version=__version__, datasets_list=datasets,
                columns=[asdict(c) for c in columns])
    ref[REFERENCE_FILE] = json.dumps(spec, indent=1, sort_keys=True).encode("utf-8")
    pages = _pages(competition, columns, datasets, image)
    phases = [Phase("Development", "Submit and see your per-dataset scores.", "Scored on the competition's test "
                    "data.", ref),
              Phase("Final", "The submissions srdash judges for the verdict.", "Scored on the competition's test "
                    "data; the last submission counts.", ref)]
    return assemble_bundle(path, title=competition.title, description=competition.rules.description or "",
                           columns=columns, pages=pages, phases=phases, public=public,
                           sample=(SUBMISSION_FILE, sample, f"{method}'s results"), image=image, start=start,
                           development_days=development_days, final_days=final_days,
                           execution_time_limit=execution_time_limit)


@dataclass(frozen=True)
class Phase:
    """One phase and its task: names, descriptions and the task's reference files (name -> bytes)."""

    name: str
    description: str
    task_description: str
    reference: Mapping[str, bytes]


def assemble_bundle(path: str | Path, *, title: str, description: str, columns, pages: Mapping[str, str],
                    phases, public: Mapping[str, bytes], sample: tuple[str, bytes, str], image: str | None = None,
                    start: _dt.date | None = None, development_days: int = 30, final_days: int = 7,
                    execution_time_limit: int = 600) -> Path:
    """Write a bundle of two sequential phases, one task each (the bundle writers of both competition kinds).

    Parameters
    ----------
    path : path
        The zip to write.
    title, description : str, keyword-only
    columns : sequence of Column, keyword-only
    pages : mapping, keyword-only
        ``overview.md``, ``evaluation.md``, ``data.md``, ``terms.md`` -> Markdown.
    phases : two Phase, keyword-only
        The first lasts ``development_days`` from ``start``; the second starts the next day and lasts
        ``final_days``.
    public : mapping, keyword-only
        Public data files (name -> bytes); none: no public data.
    sample : (file name, bytes, label), keyword-only
        The sample submission's file (also in the starting kit).

    Returns
    -------
    Path
    """
    if development_days < 1 or final_days < 1:
        raise SrdashError(f"The phases' lengths must be at least one day. Got {development_days} and {final_days}.")
    image = image or default_image()
    start = start or _dt.date.today()
    sample_name, sample_bytes, label = sample
    files: dict[str, bytes] = {"logo.png": _png_logo()}
    files.update({f"pages/{name}": text.encode("utf-8") for name, text in pages.items()})
    files["scoring_program/metadata.yaml"] = yaml.safe_dump({"command": SCORING_COMMAND}).encode()
    files["scoring_program/score.py"] = _SCORE_PY.format(version=__version__).encode()
    folders = []
    for index, phase in enumerate(phases):
        # Phases with the same reference data share one folder (Codabench zips each folder once per task).
        same = index == 0 or phase.reference == phases[0].reference
        folder = "reference_data" if same else f"reference_data_{phase.name.lower()}"
        folders.append(folder)
        files.update({f"{folder}/{name}": data for name, data in phase.reference.items()})
    files.update({f"public_data/{name}": data for name, data in public.items()})
    files[f"sample_submission/{sample_name}"] = sample_bytes
    files[f"starting_kit/{sample_name}"] = sample_bytes
    files["starting_kit/README.md"] = (
        f"# Starting kit\n\n`{sample_name}` is {label}, scored like yours. Zip your own `{sample_name}` (at the "
        f"zip's root) and submit it. The Evaluation page says how it is scored (srdash {__version__}).\n"
    ).encode()
    dev_end = start + _dt.timedelta(days=development_days)
    final_start = dev_end + _dt.timedelta(days=1)
    dates = [(start, dev_end), (final_start, final_start + _dt.timedelta(days=final_days))]
    tasks = [{"index": i, "name": f"{phase.name} ({title})"[:200], "description": phase.task_description,
              "scoring_program": "scoring_program", "reference_data": folders[i]} for i, phase in enumerate(phases)]
    common = {"max_submissions_per_day": 5, "max_submissions": 100,
              "execution_time_limit": int(execution_time_limit), "starting_kit": "starting_kit"}
    if public:
        common["public_data"] = "public_data"
    document = {
        "version": 2, "title": title, "description": description[:1000],
        "image": "logo.png", "docker_image": image, "terms": "pages/terms.md",
        "enable_detailed_results": True, "registration_auto_approve": False,
        "pages": [{"title": t, "file": f"pages/{f}"} for t, f in
                  [("Overview", "overview.md"), ("Evaluation", "evaluation.md"), ("Data", "data.md"),
                   ("Terms", "terms.md")]],
        "tasks": tasks,
        "solutions": [{"index": 0, "tasks": list(range(len(phases))), "name": f"Sample submission ({label})"[:200],
                       "path": "sample_submission"}],
        "phases": [{"index": i, "name": phase.name, "description": phase.description,
                    "start": dates[i][0].isoformat(), "end": dates[i][1].isoformat(), "tasks": [i], **common}
                   for i, phase in enumerate(phases)],
        "leaderboards": [{"index": 0, "title": "Results", "key": "main", "submission_rule": "Force_Last",
                          "columns": [{"index": i, "key": c.key, "title": c.title, "sorting": c.sorting}
                                      for i, c in enumerate(columns)]}],
    }
    files["competition.yaml"] = yaml.safe_dump(document, sort_keys=False, allow_unicode=True).encode("utf-8")
    return _write_zip(files, Path(path))


def _write_zip(files: Mapping[str, bytes], path: Path) -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            archive.writestr(zipfile.ZipInfo(name, date_time=_ZIP_TIME), files[name], zipfile.ZIP_DEFLATED)
    try:
        path.write_bytes(buffer.getvalue())
    except OSError as exc:
        raise SrdashError(f"Cannot write the bundle to {str(path)!r}: {exc}") from exc
    return path
