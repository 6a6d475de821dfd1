"""Find a competition's files in a folder, for ``srdash init``.

:func:`draft_competition` looks at the files a user has (results tables, SRBench
JSON result folders, dataset descriptions, dataset files recognised by their
target column, a published leaderboard, a qualification stage, its PMLB
datasets, a trust store, SRBench 2022's stage folders, a prediction
competition's files) and writes a commented ``competition.toml`` that names
them; :func:`draft_descriptions` drafts the descriptions of the dataset files.
This module reads file names, the header line of tables and the results'
dataset column: nothing is judged here (``srdash init`` judges the presets
against a published table through :mod:`srdash.analysis.reproduce`), and the
draft is meant to be read and edited.

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
import gzip
import re
from dataclasses import dataclass, field
from pathlib import Path

from srdash.io.loading import COLUMN_ALIASES

__all__ = ["Found", "find_competition_files", "missing_competition_files", "draft_competition",
           "draft_descriptions", "results_columns", "prediction_command", "DESCRIPTIONS_DRAFT"]

_METHOD = {"method", "algorithm", "team", "participant_id"}
_SUBMISSION = {"participant_id", "team", "submission"}
_TABLE_SUFFIXES = (".csv", ".tsv", ".parquet", ".csv.gz")
# A results table needs one of these (the loader refuses a table without any).
_MODEL = {"model", "symbolic_model", "components", "model_size", "simplicity"}
# A published leaderboard: a score per method, no dataset column.
_SCORE = {"score", "final_score"}
# The target column of a dataset file (SRBench's PMLB and competition datasets).
_TARGETS = ("y", "target")
_PARTITION = re.compile(r"^(?P<name>.+?)[_.-](?P<partition>train|test)$")
#: The file :func:`draft_descriptions` drafts, beside the competition file.
DESCRIPTIONS_DRAFT = "datasets.yaml"


@dataclass
class Found:
    """What :func:`find_competition_files` recognised (paths relative to the folder)."""

    results: list[str] = field(default_factory=list)
    submissions: bool = False
    #: A results table has SRBench 2025's eco2AI columns (energy, CO2): its rules are srbench2025.
    srbench2025: bool = False
    datasets: str | None = None
    descriptions: str | None = None
    qualification: str | None = None
    qualification_data: str | None = None
    trust_store: str | None = None
    #: A prediction competition's files (``targets_preliminary``, ``targets_final``, ``targets_csv``,
    #: ``submissions``): judged by ``srdash predictions score``, not by a competition file.
    predictions: dict[str, str] = field(default_factory=dict)
    #: Published leaderboards (method or team and a score, no dataset column): tables to audit, not results.
    published: list[str] = field(default_factory=list)
    #: Dataset files recognised by their target column: dataset name -> {partition: path}, and its target.
    data_files: dict[str, dict[str, str]] = field(default_factory=dict)
    targets: dict[str, str] = field(default_factory=dict)
    #: A folder of team folders of prediction files (named ``submissions``), when there is no listing.
    prediction_folder: str | None = None
    notes: list[str] = field(default_factory=list)


def _header(path: Path) -> set[str]:
    return set(_header_cells(path))


def _header_cells(path: Path) -> list[str]:
    """The header's cells, lower case, in order (none when unreadable)."""
    if path.suffix == ".parquet":
        try:
            import pyarrow.parquet as pq

            return [str(n).strip().lower() for n in pq.read_schema(path).names]
        except Exception:  # noqa: BLE001 - an unreadable file is simply not recognised
            return []
    try:
        opened = gzip.open(path, "rt", newline="", encoding="utf-8", errors="replace") if path.suffix == ".gz" \
            else path.open(newline="", encoding="utf-8", errors="replace")
        with opened as handle:
            first = handle.readline(_HEADER_LIMIT)
    except (OSError, EOFError):
        return []
    delimiter = "\t" if ".tsv" in path.suffixes or first.count("\t") > first.count(",") else ","
    return [cell.strip().lower() for cell in next(csv.reader([first], delimiter=delimiter), [])]


_HEADER_LIMIT = 1 << 20  # a header line longer than this is not a table's


MAX_DEPTH = 3
"""How many folder levels below the given folder :func:`find_competition_files` searches."""

_SKIPPED_FOLDERS = {"node_modules", "site-packages", "__pycache__", "venv", ".venv", "env"}


def _children(folder: Path) -> list[Path]:
    """Entries of ``folder`` that are not links (links could lead outside it), sorted; none if unreadable."""
    try:
        return sorted(p for p in folder.iterdir() if not p.is_symlink())
    except OSError:
        return []


def _recognise_folder(path: Path, relative: str, found: Found) -> bool:
    """Recognise a folder of datasets or of JSON results; True when it was (its contents are not searched)."""
    children = [c for c in _children(path) if c.is_file()]
    if any(c.name.endswith((".tsv.gz", ".tsv")) for c in children) and found.qualification_data is None:
        found.qualification_data = relative
        found.notes.append(f"{relative}/ holds tab-separated datasets (SRBench 2022's stage0_pmlb "
                           "layout): used as the qualification data.")
        return True
    if any(c.suffix == ".json" for c in children):
        found.results.append(relative)
        return True
    if any(c.name.endswith(("_train.csv", "_test.csv")) for c in children):
        found.notes.append(f"{relative}/ holds train/test CSV files: describe them in a descriptions file "
                           "(see `srdash datasets --help`; SRBench 2022's stage 1 is described by the "
                           "shipped srdash/data/srbench2022_synthetic.yaml).")
        return True
    return False


# eco2AI's columns, which every run of SRBench 2025 carries.
_ECO2AI = {"power_consumption(kwh)", "co2_emissions(kg)"}


def _recognise_file(path: Path, relative: str, found: Found, tables: list[tuple[str, bool]]) -> None:
    name = path.name.lower()
    if name.endswith((".sqlite", ".sqlite3", ".db")):
        found.trust_store = found.trust_store or relative
    elif name.endswith((".yaml", ".yml")) and ("dataset" in name or "description" in name):
        found.descriptions = found.descriptions or relative
    elif name.startswith("target") and name.endswith(".txt"):
        kind = "targets_final" if "final" in name else "targets_preliminary" if "prelim" in name else None
        if kind:
            found.predictions.setdefault(kind, relative)
    elif name.endswith(_TABLE_SUFFIXES):
        cells = _header_cells(path)
        header = set(cells)
        if "qualif" in name:
            found.qualification = found.qualification or relative
        elif {"id", "target", "subset"} <= header:
            found.predictions.setdefault("targets_csv", relative)
        elif {"team", "file"} <= header and "dataset" not in header:
            found.predictions.setdefault("submissions", relative)
        elif {"dataset", "features"} <= header and not header & _METHOD:
            found.datasets = found.datasets or relative
        elif header & _SCORE and header & _METHOD and "dataset" not in header:
            found.published.append(relative)
            found.notes.append(f"{relative} is a published leaderboard ({', '.join(cells)}): a table to audit, "
                               "not results.")
        elif header & _METHOD and ("dataset" in header or header & _SUBMISSION):
            tables.append((relative, "dataset" not in header))
            if header & _ECO2AI:
                found.srbench2025 = True
        elif cells and cells[-1] in _TARGETS and not header & _METHOD and "dataset" not in header:
            _recognise_data_file(path, relative, cells[-1], found)


def _recognise_data_file(path: Path, relative: str, target: str, found: Found) -> None:
    """A dataset's file, by its last column (the target): its name is the file's, without suffixes and
    without a ``_train``/``_test`` ending, which names its partition (default ``test``)."""
    stem = path.name
    for suffix in (".gz", ".csv", ".tsv"):
        stem = stem[: -len(suffix)] if stem.lower().endswith(suffix) else stem
    match = _PARTITION.match(stem)
    dataset, partition = (match["name"], match["partition"].lower()) if match else (stem, "test")
    files = found.data_files.setdefault(dataset, {})
    files.setdefault(partition, relative)
    found.targets.setdefault(dataset, target)


def find_competition_files(folder: str | Path, *, max_depth: int = MAX_DEPTH) -> Found:
    """Recognise a competition's files in ``folder`` and its sub-folders.

    Searches at most ``max_depth`` folder levels down, breadth first, regular
    files and folders only: links are never followed (they could lead outside
    the folder), hidden folders and virtual environments are skipped. Results
    found at the shallowest level where there are any are used; results deeper
    down are listed in ``notes`` as not used. A folder holding ``.json`` files
    is a folder of SRBench result files (several such folders side by side
    become their parent folder, which is read as one).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> (folder / "runs" / "2022").mkdir(parents=True)
    >>> _ = (folder / "runs" / "2022" / "results.csv").write_text("method,dataset,r2_test\\n")
    >>> find_competition_files(folder).results
    ['runs/2022/results.csv']
    """
    folder = Path(folder)
    found = Found()
    result_depth: dict[str, int] = {}
    submissions: dict[str, bool] = {}
    level = [(folder, "")]
    for depth in range(max_depth + 1):
        next_level = []
        for directory, prefix in level:
            for path in _children(directory):
                relative = f"{prefix}{path.name}"
                if path.is_dir():
                    if path.name.startswith((".", "_")) or path.name in _SKIPPED_FOLDERS:
                        continue
                    if path.name.lower() == "submissions" and found.prediction_folder is None:
                        found.prediction_folder = relative
                    before = len(found.results)
                    if _recognise_folder(path, relative, found):
                        if len(found.results) > before:
                            result_depth[relative] = depth
                        continue
                    next_level.append((path, relative + "/"))
                elif path.is_file():
                    tables: list[tuple[str, bool]] = []
                    _recognise_file(path, relative, found, tables)
                    for table, is_submission in tables:
                        found.results.append(table)
                        result_depth[table] = depth
                        submissions[table] = is_submission
        level = next_level
    found.results = _merge_json_folders(found.results, result_depth, submissions)
    if found.results:
        shallowest = min(result_depth[r] for r in found.results)
        used = [r for r in found.results if result_depth[r] == shallowest]
        unused = [r for r in found.results if result_depth[r] != shallowest]
        # beside a table with models or sizes, one without (SRBench's ground-truth rates per noise level)
        # is not results: the loader would refuse it
        without = [r for r in used if r in submissions and not submissions[r] and not _header(folder / r) & _MODEL]
        if len(without) < len(used):
            for result in without:
                found.notes.append(f"{result} has method and dataset columns but no model or model size "
                                   f"({', '.join(sorted(_MODEL))}): not results srdash can judge; not used.")
            used = [r for r in used if r not in without]
        found.results = used
        for result in used:
            found.notes.append(f"{result}/ holds JSON files: read as SRBench result files." if result not in submissions
                               else f"{result} is a results table.")
        for result in unused:
            found.notes.append(f"{result} also looks like results (deeper down): not used; add it to "
                               "`results` if it belongs to the competition.")
        found.submissions = any(submissions.get(r, False) for r in used)
    return found


def _merge_json_folders(results: list[str], depth: dict[str, int], tables: dict[str, bool]) -> list[str]:
    """Several JSON result folders in one parent (one folder per dataset) become the parent."""
    parents: dict[str, list[str]] = {}
    for result in results:
        if result not in tables and "/" in result:
            parents.setdefault(result.rsplit("/", 1)[0], []).append(result)
    merged = []
    for result in results:
        parent = result.rsplit("/", 1)[0] if "/" in result else None
        if parent in parents and len(parents[parent]) > 1:
            if parent not in merged:
                merged.append(parent)
                depth[parent] = depth[result] - 1
        else:
            merged.append(result)
    return merged


def missing_competition_files(found: Found) -> list[str]:
    """What :func:`find_competition_files` did not find, one phrase each (for ``srdash init``)."""
    missing = []
    if not found.results:
        missing.append("results (a table with method/algorithm and dataset columns, or a folder of SRBench "
                       ".json result files)")
    if not found.datasets:
        missing.append("a datasets table (columns dataset, features)")
    if not found.descriptions:
        missing.append("dataset descriptions (*dataset*.yaml)")
    if not (found.qualification or found.qualification_data):
        missing.append("a qualification stage (*qualif*.csv, a folder of .tsv datasets)")
    if not found.trust_store:
        missing.append("a trust store of the expert review (*.sqlite)")
    return missing


def results_columns(folder: str | Path, found: Found) -> tuple[set[str], set[str]]:
    """The canonical columns (aliases resolved: ``algorithm`` is ``method``...) and the dataset names of the
    results tables found (their header and dataset column only; JSON folders and Parquet give none)."""
    folder = Path(folder)
    alias = {name: canonical for canonical, names in COLUMN_ALIASES.items() for name in names}
    columns: set[str] = set()
    datasets: set[str] = set()
    for relative in found.results:
        path = folder / relative
        if not path.is_file() or path.suffix == ".parquet":
            continue
        cells = _header_cells(path)
        named = [alias.get(c, c) for c in cells]
        if "method" not in named and "team" in named:  # as the loader reads SRBench 2023's model files
            named[named.index("team")] = "method"
        columns |= set(named)
        if "dataset" in cells:
            datasets |= _column_values(path, cells.index("dataset"))
    return columns, datasets


def _column_values(path: Path, position: int, *, limit: int = 200_000) -> set[str]:
    """The distinct values of one column of a CSV/TSV file (at most ``limit`` rows are read)."""
    try:
        opened = gzip.open(path, "rt", newline="", encoding="utf-8", errors="replace") if path.suffix == ".gz" \
            else path.open(newline="", encoding="utf-8", errors="replace")
    except OSError:
        return set()
    values: set[str] = set()
    try:
        with opened as handle:
            first = handle.readline(_HEADER_LIMIT)
            delimiter = "\t" if ".tsv" in path.suffixes or first.count("\t") > first.count(",") else ","
            for number, row in enumerate(csv.reader(handle, delimiter=delimiter)):
                if number >= limit:
                    break
                if len(row) > position and row[position].strip():
                    values.add(row[position].strip())
    except (OSError, EOFError, csv.Error):  # a broken file: the loader reports it, with its row, when judging
        pass
    return values


def draft_descriptions(found: Found, datasets: set[str]) -> str | None:
    """The text of a dataset-descriptions file naming each dataset's files, or None.

    Drafted when the folder has no descriptions and a data file (recognised by
    its target column) for every dataset of the results; the datasets' property
    is ``none`` (the organiser adds any). A dataset's single file is its
    ``test`` partition: the file on which ``r2_test`` is measured. Datasets
    without a file are listed in ``found.notes``.

    Examples
    --------
    >>> found = Found(data_files={"d1": {"test": "d1.csv.gz"}}, targets={"d1": "y"})
    >>> print(draft_descriptions(found, {"d1"}))
    # Dataset descriptions drafted by `srdash init`: each dataset's file, recognised by its target column.
    # Add each dataset's property (docs: `srdash datasets --help`); 'none' scores none.
    defaults: {property: none}
    datasets:
      - {name: "d1", target: "y", files: {test: "d1.csv.gz"}}
    <BLANKLINE>
    """
    if found.descriptions or not found.data_files or not datasets:
        return None
    without = sorted(datasets - set(found.data_files))
    if without:
        shown = ", ".join(without[:10]) + (f" and {len(without) - 10} more" if len(without) > 10 else "")
        found.notes.append(f"dataset files (a target column {' or '.join(_TARGETS)}) for "
                           f"{len(datasets) - len(without)} of the results' {len(datasets)} datasets; none for "
                           f"{shown}: no descriptions drafted.")
        return None
    lines = ["# Dataset descriptions drafted by `srdash init`: each dataset's file, recognised by its target column.",
             "# Add each dataset's property (docs: `srdash datasets --help`); 'none' scores none.",
             "defaults: {property: none}", "datasets:"]
    for name in sorted(datasets):
        files = ", ".join(f"{partition}: {_quoted(path)}" for partition, path in sorted(found.data_files[name].items()))
        lines.append(f"  - {{name: {_quoted(name)}, target: {_quoted(found.targets[name])}, files: {{{files}}}}}")
    found.notes.append(f"a data file for each of the {len(datasets)} datasets (target column "
                       f"{', '.join(sorted(set(found.targets[d] for d in datasets)))}): described in "
                       f"{DESCRIPTIONS_DRAFT}, drafted.")
    return "\n".join(lines) + "\n"


def prediction_command(found: Found) -> str | None:
    """The ``srdash predictions score`` command for a prediction competition's files, or None.

    Examples
    --------
    >>> found = Found(predictions={"targets_csv": "targets.csv", "submissions": "submissions.csv"})
    >>> prediction_command(found)
    'srdash predictions score submissions.csv --targets-csv targets.csv --metric rmse -o board.csv'
    """
    files = found.predictions
    if not ({"targets_csv"} <= set(files) or {"targets_preliminary", "targets_final"} <= set(files)):
        return None
    targets = (f"--targets-csv {files['targets_csv']}" if "targets_csv" in files else
               f"--targets-preliminary {files['targets_preliminary']} --targets-final {files['targets_final']}")
    submissions = files.get("submissions") or found.prediction_folder or "SUBMISSIONS"
    return f"srdash predictions score {submissions} {targets} --metric rmse -o board.csv"


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def draft_competition(folder: str | Path, *, title: str = "", found: Found | None = None,
                      rules: str | None = None) -> str:
    """The text of a commented ``competition.toml`` for the files in ``folder``.

    Parameters
    ----------
    folder : path
        Where the competition's files are; the paths written are relative to it.
    title : str, optional
        Default: the folder's name.
    found : Found, optional
        What :func:`find_competition_files` found in ``folder`` (searched again when not given).
    rules : str, optional
        The ``rules = ...`` line(s) to write (``srdash init`` chooses them); default: from what was found.

    Returns
    -------
    str
        Every key of the format, set where a file was recognised and commented
        out (with its default) otherwise.
    """
    folder = Path(folder)
    found = found if found is not None else find_competition_files(folder)
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
    if rules is not None:
        lines += rules.splitlines()
    elif found.submissions:
        lines.append('rules = "evalrs2022"        # one row per submission: weighted meta-scores (see `srdash rules`)')
    elif found.srbench2025:
        lines.append('rules = "srbench2025"       # the results carry eco2AI energy columns: SRBench 2025\'s per-run '
                     'table (or srbench2022, a .toml file: `srdash rules`)')
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
