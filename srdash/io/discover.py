"""Find a competition's files in a folder, for ``srdash init``.

:func:`draft_competition` looks at the files a user has (results tables, SRBench
JSON result folders, dataset descriptions, a qualification stage, its PMLB
datasets, a trust store, SRBench 2022's stage folders) and writes a commented
``competition.toml`` that names them. It only reads file names and the header
line of tables: nothing is judged, and the draft is meant to be read and edited.

Examples
--------
>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "results.csv").write_text("algorithm,dataset,random_state,symbolic_model,r2_test\\n")
>>> text = draft_competition(folder)
>>> 'results = "results.csv"' in text, 'rules = "srbench2022"' in text
(True, True)
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Found", "find_competition_files", "draft_competition"]

_METHOD = {"method", "algorithm", "team", "participant_id"}
_SUBMISSION = {"participant_id", "team", "submission"}
_TABLE_SUFFIXES = (".csv", ".tsv", ".parquet")


@dataclass
class Found:
    """What :func:`find_competition_files` recognised (paths relative to the folder)."""

    results: list[str] = field(default_factory=list)
    submissions: bool = False
    datasets: str | None = None
    descriptions: str | None = None
    qualification: str | None = None
    qualification_data: str | None = None
    trust_store: str | None = None
    notes: list[str] = field(default_factory=list)


def _header(path: Path) -> set[str]:
    if path.suffix == ".parquet":
        try:
            import pyarrow.parquet as pq

            return {str(n).strip().lower() for n in pq.read_schema(path).names}
        except Exception:  # noqa: BLE001 - an unreadable file is simply not recognised
            return set()
    try:
        with path.open(newline="", encoding="utf-8", errors="replace") as handle:
            first = handle.readline()
    except OSError:
        return set()
    delimiter = "\t" if path.suffix == ".tsv" or first.count("\t") > first.count(",") else ","
    return {cell.strip().lower() for cell in next(csv.reader([first], delimiter=delimiter), [])}


def find_competition_files(folder: str | Path) -> Found:
    """Recognise a competition's files in ``folder`` (regular files only; links are not followed)."""
    folder = Path(folder)
    found = Found()
    entries = sorted(p for p in folder.iterdir() if not p.is_symlink())
    for path in entries:
        name = path.name.lower()
        if path.is_dir():
            children = [c for c in path.iterdir() if c.is_file() and not c.is_symlink()]
            if any(c.name.endswith((".tsv.gz", ".tsv")) for c in children) and found.qualification_data is None:
                found.qualification_data = path.name
                found.notes.append(f"{path.name}/ holds tab-separated datasets (SRBench 2022's stage0_pmlb "
                                   "layout): used as the qualification data.")
            elif any(c.suffix == ".json" for c in children):
                found.results.append(path.name)
                found.notes.append(f"{path.name}/ holds JSON files: read as SRBench result files.")
            elif any(c.name.endswith(("_train.csv", "_test.csv")) for c in children):
                found.notes.append(f"{path.name}/ holds train/test CSV files: describe them in a descriptions file "
                                   "(see `srdash datasets --help`; SRBench 2022's stage 1 is described by the "
                                   "shipped srdash/data/srbench2022_synthetic.yaml).")
            continue
        if not path.is_file():
            continue
        if name.endswith((".sqlite", ".sqlite3", ".db")):
            found.trust_store = path.name
        elif name.endswith((".yaml", ".yml")) and ("dataset" in name or "description" in name):
            found.descriptions = path.name
        elif path.suffix.lower() in _TABLE_SUFFIXES:
            header = _header(path)
            if "qualif" in name:
                found.qualification = path.name
            elif {"dataset", "features"} <= header and not header & _METHOD:
                found.datasets = path.name
            elif header & _METHOD and ("dataset" in header or header & _SUBMISSION):
                found.results.append(path.name)
                found.submissions = found.submissions or ("dataset" not in header)
    return found


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def draft_competition(folder: str | Path, *, title: str = "") -> str:
    """The text of a commented ``competition.toml`` for the files in ``folder``.

    Parameters
    ----------
    folder : path
        Where the competition's files are; the paths written are relative to it.
    title : str, optional
        Default: the folder's name.

    Returns
    -------
    str
        Every key of the format, set where a file was recognised and commented
        out (with its default) otherwise.
    """
    folder = Path(folder)
    found = find_competition_files(folder)
    lines = ["# The competition: everything its verdict depends on (docs/competition.md).",
             "# Written by `srdash init`: check every line, then run `srdash score competition.toml`.",
             "# Paths are relative to this file.", ""]
    for note in found.notes:
        lines.append(f"# Found: {note}")
    if found.notes:
        lines.append("")
    lines.append(f"title = {_quoted(title or folder.resolve().name)}")
    if not found.results:
        lines.append('results = "results.csv"   # NOT FOUND: the results table (method, dataset, run, model, r2_test, ...)')
    elif len(found.results) == 1:
        lines.append(f"results = {_quoted(found.results[0])}")
    else:
        lines.append("results = [" + ", ".join(_quoted(r) for r in found.results) + "]")
    if found.submissions:
        lines.append('rules = "evalrs2022"        # one row per submission: weighted meta-scores (see `srdash rules`)')
    else:
        lines.append('rules = "srbench2022"       # or srbench2022-as-run, srbench2022-draft, a .toml file (`srdash rules`)')
    lines.append(f"datasets = {_quoted(found.datasets)}" if found.datasets else
                 '# datasets = "datasets.csv"      # feature names per dataset (columns dataset, features)')
    lines.append(f"descriptions = {_quoted(found.descriptions)}" if found.descriptions else
                 '# descriptions = "datasets.yaml" # models evaluated on the data, properties scored by srdash')
    lines += ["", "# The qualification stage: each method must beat LinearRegression head to head first."]
    if found.qualification or found.qualification_data:
        lines.append("[qualification]")
        lines.append(f"results = {_quoted(found.qualification)}" if found.qualification else
                     'results = "qualification.csv"   # NOT FOUND: the qualification stage\'s results')
        if found.qualification_data:
            lines.append(f"data = {_quoted(found.qualification_data)}")
        lines.append("keep_unqualified = false")
    else:
        lines += ["# [qualification]", '# results = "qualification.csv"', '# data = "stage0_pmlb"',
                  "# keep_unqualified = false"]
    lines += ["", "# The real-world track: the expert review's trust store (`srdash review`)."]
    if found.trust_store:
        lines += ["[realworld]", f"store = {_quoted(found.trust_store)}", 'rules = "srbench2022-realworld"',
                  "# datasets = []                # the datasets under review (default: all)"]
    else:
        lines += ["# [realworld]", '# store = "trust.sqlite"', '# rules = "srbench2022-realworld"',
                  "# datasets = []"]
    lines += ["", "[simplification]", "timeout = 10     # seconds of CPU time per model (part of the verdict)",
              "# jobs = 0        # worker processes (0: every core)", '# scheduler = ""  # a Dask scheduler, tcp://HOST:PORT',
              ""]
    return "\n".join(lines)
