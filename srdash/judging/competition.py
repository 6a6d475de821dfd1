"""A competition, declared once: everything a verdict depends on.

A ``competition.toml`` names the results, the rules, the dataset descriptions,
the qualification stage, the real-world track and the simplification settings.
It is read and validated once into a frozen :class:`Competition`, which every
door of srdash (CLI, apps, report) judges through the same pipeline
(:func:`srdash.judging.pipeline.judge_competition`). The format is documented
in ``docs/competition.md``; paths are relative to the file.

Examples
--------
>>> import pathlib, tempfile
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> _ = (root / "results.csv").write_text("method,dataset,r2_test\\na,d,0.5\\n")
>>> competition = parse_competition('''
... title = "Tiny"
... results = "results.csv"
... rules = "srbench2022"
... [simplification]
... timeout = 5
... ''', root=root)
>>> competition.title, competition.results[0].name, competition.simplification.timeout
('Tiny', 'results.csv', 5.0)
>>> parse_competition('results = "results.csv"\\nrule = "srbench2022"', root=root)
Traceback (most recent call last):
...
srdash.errors.CompetitionError: <text>, line 2: unknown key 'rule'. Allowed keys: datasets, descriptions, qualification, realworld, report, results, rules, simplification, title.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from srdash.cache import ResultCache
from srdash.errors import CompetitionError, SrdashError
from srdash.judging.limits import COMPETITION_LIMITS
from srdash.judging.rules import Rules, load_rules

__all__ = [
    "Competition",
    "CompetitionError",
    "QualificationStage",
    "RealWorldTrack",
    "Simplification",
    "competition_from_options",
    "default_jobs",
    "load_competition",
    "parse_competition",
]


def default_jobs() -> int:
    """Worker processes used when a competition does not say: the cores this process may use (at most 256).

    Examples
    --------
    >>> default_jobs() >= 1
    True
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not every platform has sched_getaffinity
        cores = os.cpu_count() or 1
    return max(1, min(cores, int(COMPETITION_LIMITS["simplification.jobs"].high)))


@dataclass(frozen=True)
class Simplification:
    """How model strings are simplified (the expensive step).

    Attributes
    ----------
    timeout : float
        Hard CPU-time limit per model, in seconds.
    jobs : int
        Worker processes (default: the cores available, :func:`default_jobs`).
    scheduler : str or None
        Address of a Dask scheduler (``tcp://HOST:PORT``); None: local workers.
    cache : str, None or False
        Cache file; None: srdash's default cache; False: no cache.
    file_cache : str or None
        The cache the competition file named (``cache = ...``), whether used or
        not: it is only used (``cache`` is then the same path) when the user
        confirmed it (``trust_cache`` of :func:`load_competition`, CLI
        ``--trust-competition-cache``), since whoever can write that folder
        decides what its rows say; the verdict's provenance states its use.
    retry_timeouts : bool
        Compute again the models that timed out before under the same limit
        (a longer limit retries them anyway).
    """

    timeout: float = 10.0
    jobs: int = field(default_factory=default_jobs)
    scheduler: str | None = None
    cache: str | None | bool = None
    retry_timeouts: bool = False
    file_cache: str | None = None

    def options(self) -> dict[str, Any]:
        """Keyword options of :func:`srdash.judging.pipeline.prepare_runs`."""
        return {"timeout": self.timeout, "jobs": self.jobs, "cache": self.cache, "scheduler": self.scheduler}

    def open_cache(self):
        """One :class:`srdash.cache.ResultCache` for every step (it counts what it answered),
        or False without a cache."""
        if self.cache is False:
            return False
        return ResultCache(None if self.cache in (None, True) else self.cache, retry_timeouts=self.retry_timeouts)


@dataclass(frozen=True)
class QualificationStage:
    """The stage before the tracks: each method head to head against LinearRegression.

    Attributes
    ----------
    results : Path
        Results of the qualification stage (see ``srdash qualify --help``).
    data : Path or None
        Folder of the qualification datasets: srdash then fits the baseline itself.
    keep_unqualified : bool
        Keep the methods that do not qualify in the tracks, only flagged.
    """

    results: Path
    data: Path | None = None
    keep_unqualified: bool = False


@dataclass(frozen=True)
class RealWorldTrack:
    """The real-world track: an expert panel's trust entries beside accuracy and simplicity.

    Attributes
    ----------
    store : Path
        The trust store (SQLite) of the review.
    rules : Rules
        The track's rules (default preset ``srbench2022-realworld``).
    datasets : tuple of str
        The datasets under review (empty: every dataset of the results).
    """

    store: Path
    rules: Rules = field(default_factory=lambda: load_rules("srbench2022-realworld"))
    datasets: tuple[str, ...] = ()


@dataclass(frozen=True)
class Competition:
    """Everything a verdict depends on, validated once.

    Build with :func:`load_competition` (a ``competition.toml``) or
    :func:`competition_from_options` (the plain arguments of the CLI); both
    give the same object for the same inputs.

    Attributes
    ----------
    title : str
        Shown by the apps and the report (default: the rules' title).
    results : tuple of Path
        Results files or folders (one row per method, dataset and run).
    rules : Rules
    datasets : Path or None
        Dataset table giving each dataset's feature names.
    descriptions : Path or None
        Dataset descriptions: the models are evaluated on the datasets' files
        and each dataset's property is scored by srdash.
    qualification : QualificationStage or None
    realworld : RealWorldTrack or None
    simplification : Simplification
    source : str
        The competition file, or ``"<options>"``.
    """

    results: tuple[Path, ...]
    rules: Rules
    title: str = ""
    datasets: Path | None = None
    descriptions: Path | None = None
    qualification: QualificationStage | None = None
    realworld: RealWorldTrack | None = None
    simplification: Simplification = field(default_factory=Simplification)
    source: str = "<options>"

    def __post_init__(self) -> None:
        if not self.title:
            object.__setattr__(self, "title", self.rules.title or self.rules.name)

    @property
    def sources(self) -> tuple[str, ...]:
        """Every input file or folder the verdict depends on (hashed into the provenance)."""
        paths: list[Path | None] = [*self.results, self.datasets, self.descriptions]
        if self.qualification is not None:
            paths += [self.qualification.results, self.qualification.data]
        if self.realworld is not None:
            paths.append(self.realworld.store)
        return tuple(str(p) for p in paths if p is not None)

    @property
    def inputs(self) -> tuple[tuple[str, Path], ...]:
        """Every input as ``(role, path)``: ``results``, ``datasets``, ``descriptions``,
        ``qualification.results``, ``qualification.data``, ``realworld.store``. The verdict
        fingerprint names each input by its role and its path relative to :attr:`root`."""
        roles: list[tuple[str, Path | None]] = [*(("results", p) for p in self.results),
                                                ("datasets", self.datasets), ("descriptions", self.descriptions)]
        if self.qualification is not None:
            roles += [("qualification.results", self.qualification.results),
                      ("qualification.data", self.qualification.data)]
        if self.realworld is not None:
            roles.append(("realworld.store", self.realworld.store))
        return tuple((role, Path(p)) for role, p in roles if p is not None)

    @property
    def root(self) -> Path:
        """The folder the competition's inputs are named relative to in every published output: the
        competition file's folder, or (plain command-line arguments) the deepest folder holding every
        input. Where that folder lies never enters the verdict fingerprint.

        Examples
        --------
        >>> competition_from_options("/data/comp/results.csv", datasets="/data/comp/sets/table.csv").root
        PosixPath('/data/comp')
        """
        if self.source != "<options>" and is_competition_file(self.source):
            return Path(self.source).absolute().parent
        parents = [str(path.absolute().parent) for _, path in self.inputs]
        return Path(os.path.commonpath(parents)) if parents else Path.cwd()

    def relative(self, path: str | Path) -> str:
        """``path`` as published outputs name it: relative to :attr:`root`, with ``/`` separators.

        Examples
        --------
        >>> c = competition_from_options("/data/comp/results.csv")
        >>> c.relative("/data/comp/results.csv"), c.relative("/data/other/x.csv")
        ('results.csv', '../other/x.csv')
        """
        return Path(os.path.relpath(Path(path).absolute(), self.root)).as_posix()

    def settings(self) -> dict[str, Any]:
        """The competition as plain data (what :meth:`fingerprint` hashes, and what apps receive).

        Paths are absolute; rules are given by their source and SHA-256.
        """
        def path(value):
            return None if value is None else str(value)

        return {
            "title": self.title,
            "results": [str(p) for p in self.results],
            "rules": {"source": self.rules.source, "name": self.rules.name, "sha256": self.rules.sha256,
                      "run_aggregation": self.rules.run_aggregation, "rank_method": self.rules.rank_method,
                      "weights": self.rules.weights},
            "datasets": path(self.datasets),
            "descriptions": path(self.descriptions),
            "qualification": None if self.qualification is None else {
                "results": path(self.qualification.results), "data": path(self.qualification.data),
                "keep_unqualified": self.qualification.keep_unqualified},
            "realworld": None if self.realworld is None else {
                "store": path(self.realworld.store), "rules": {"source": self.realworld.rules.source,
                                                               "sha256": self.realworld.rules.sha256},
                "datasets": list(self.realworld.datasets)},
            "simplification": {"timeout": self.simplification.timeout, "scheduler": self.simplification.scheduler},
        }

    def fingerprint(self) -> str:
        """SHA-256 of what decides the verdict: the settings (rules as applied, time limit) but not
        where files live, how many workers run, or the cache; the inputs enter through their hashes
        in the provenance (see :func:`srdash.judging.pipeline.verdict_fingerprint`).

        Examples
        --------
        >>> a = competition_from_options("r.csv", rules="srbench2022", jobs=1)
        >>> b = competition_from_options("r.csv", rules="srbench2022", jobs=2)
        >>> a.fingerprint() == b.fingerprint()
        True
        >>> a.fingerprint() == competition_from_options("r.csv", rules="srbench2022-as-run").fingerprint()
        False
        """
        settings = self.settings()
        decisive = {
            "rules_sha256": settings["rules"]["sha256"],
            "timeout": settings["simplification"]["timeout"],
            "descriptions": self.descriptions is not None,
            "qualification": None if self.qualification is None else {
                "data": self.qualification.data is not None,
                "keep_unqualified": self.qualification.keep_unqualified},
            "realworld": None if self.realworld is None else {
                "rules_sha256": self.realworld.rules.sha256, "datasets": sorted(self.realworld.datasets)},
        }
        # imported here: the process that supervises Voilà reads competitions without pandas or numpy
        from srdash.judging.fingerprint import canonical_sha256

        return canonical_sha256(decisive)

    def to_json(self) -> str:
        """The competition as one JSON text (how apps receive it); see :func:`competition_from_json`."""
        data = self.settings()
        data["rules"] = {"source": _rules_reference(self.rules),
                         "run_aggregation": self.rules.run_aggregation, "rank_method": self.rules.rank_method,
                         "weights": self.rules.weights}
        if self.realworld is not None:
            data["realworld"]["rules"] = _rules_reference(self.realworld.rules)
        data["simplification"] = {"timeout": self.simplification.timeout, "jobs": self.simplification.jobs,
                                  "scheduler": self.simplification.scheduler,
                                  "cache": self.simplification.cache,
                                  "retry_timeouts": self.simplification.retry_timeouts}
        data["source"] = self.source
        return json.dumps(data, sort_keys=True)

    def with_rules(self, rules: Rules) -> "Competition":
        """The same competition judged by other rules (the dashboard's controls)."""
        return replace(self, rules=rules, title=self.title)


def _rules_reference(rules: Rules) -> str:
    """What :func:`load_rules` needs to load these rules again."""
    source = rules.source
    return source[len("preset:"):] if source.startswith("preset:") else source


def competition_from_json(text: str) -> Competition:
    """The competition serialised by :meth:`Competition.to_json`.

    Examples
    --------
    >>> c = competition_from_options("r.csv", rules="srbench2022", timeout=3, jobs=2)
    >>> competition_from_json(c.to_json()) == c
    True
    """
    data = json.loads(text)
    rules_data = data["rules"]
    rules = load_rules(rules_data["source"]).with_options(
        run_aggregation=rules_data["run_aggregation"], rank_method=rules_data["rank_method"],
        weights=rules_data["weights"])
    qualification = data.get("qualification")
    realworld = data.get("realworld")
    simplification = data["simplification"]
    return Competition(
        title=data["title"],
        results=tuple(Path(p) for p in data["results"]),
        rules=rules,
        datasets=_optional_path(data.get("datasets")),
        descriptions=_optional_path(data.get("descriptions")),
        qualification=None if qualification is None else QualificationStage(
            results=Path(qualification["results"]), data=_optional_path(qualification["data"]),
            keep_unqualified=bool(qualification["keep_unqualified"])),
        realworld=None if realworld is None else RealWorldTrack(
            store=Path(realworld["store"]), rules=load_rules(realworld["rules"]),
            datasets=tuple(realworld["datasets"])),
        simplification=Simplification(timeout=float(simplification["timeout"]), jobs=int(simplification["jobs"]),
                                      scheduler=simplification["scheduler"], cache=simplification["cache"],
                                      retry_timeouts=bool(simplification.get("retry_timeouts", False))),
        source=data.get("source", "<options>"),
    )


def _optional_path(value) -> Path | None:
    return None if value in (None, "") else Path(value).absolute()


def competition_from_options(
    results: str | Path | Sequence[str | Path],
    *,
    rules: str | Path | Rules = "srbench2022",
    title: str = "",
    datasets: str | Path | None = None,
    descriptions: str | Path | None = None,
    qualification: str | Path | None = None,
    qualification_data: str | Path | None = None,
    keep_unqualified: bool = False,
    trust_store: str | Path | None = None,
    realworld_rules: str | Path | Rules = "srbench2022-realworld",
    realworld_datasets: Sequence[str] = (),
    timeout: float = 10.0,
    jobs: int | None = None,
    scheduler: str | None = None,
    cache: str | Path | None | bool = None,
) -> Competition:
    """The competition that plain command-line arguments describe.

    Parameters mirror the keys of ``competition.toml`` (see ``docs/competition.md``).

    Examples
    --------
    >>> c = competition_from_options("results.csv", qualification="q.csv", jobs=2)
    >>> c.qualification.results.name, c.simplification.jobs, c.rules.name
    ('q.csv', 2, 'srbench2022')
    """
    if qualification is None and (qualification_data is not None or keep_unqualified):
        raise CompetitionError("The qualification data and 'keep_unqualified' need the qualification stage's "
                               "results (qualification).")
    paths = [results] if isinstance(results, (str, os.PathLike)) else list(results)
    return Competition(
        title=title,
        results=tuple(Path(p).absolute() for p in paths),
        rules=load_rules(rules),
        datasets=_optional_path(datasets),
        descriptions=_optional_path(descriptions),
        qualification=None if qualification is None else QualificationStage(
            Path(qualification).absolute(), _optional_path(qualification_data), bool(keep_unqualified)),
        realworld=None if trust_store is None else RealWorldTrack(
            Path(trust_store).absolute(), load_rules(realworld_rules), tuple(realworld_datasets)),
        simplification=Simplification(timeout=float(timeout), jobs=jobs or default_jobs(), scheduler=scheduler,
                                      cache=cache),
    )


# --------------------------------------------------------------------------- the competition file

#: Every key of a competition file, by section ("" for the top level), with the type(s) its value may have.
COMPETITION_KEYS: Mapping[str, Mapping[str, type | tuple]] = {
    "": {"title": str, "results": (str, list), "rules": str, "datasets": str, "descriptions": str},
    "qualification": {"results": str, "data": str, "keep_unqualified": bool},
    "realworld": {"store": str, "rules": str, "datasets": list},
    "simplification": {"timeout": (int, float), "jobs": int, "scheduler": str, "cache": (str, bool)},
    "report": {"title": str},
}
_TYPE_NAMES = {str: "text", list: "a list", bool: "true or false", int: "a whole number", float: "a number"}


def _line_of(text: str, section: str, key: str) -> int | None:
    """Line (1-based) where ``key`` is set in ``[section]`` (top level: ``section == ""``)."""
    current = ""
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        header = re.match(r"^\[\s*([A-Za-z0-9_.-]+)\s*\]", stripped)
        if header:
            current = header.group(1)
            continue
        if current == section and re.match(rf"^{re.escape(key)}\s*=", stripped):
            return number
        if current == section and section and key == "" and stripped:
            return number
    return None


def _where(source: str, text: str, section: str, key: str) -> str:
    line = _line_of(text, section, key)
    return f"{source}, line {line}" if line else source


def parse_competition(text: str, *, root: str | Path, source: str = "<text>",
                      trust_cache: bool = False, trust_scheduler: bool = False) -> Competition:
    """Build a :class:`Competition` from the text of a competition file.

    Parameters
    ----------
    text : str
        The TOML text.
    root : path
        Folder that relative paths are relative to (the file's folder).
    source : str
        Name of the file, for messages.
    trust_cache : bool, keyword-only
        Use the cache the file names (``[simplification] cache``). Without it
        such a cache is ignored with a warning and srdash's own cache is used:
        a competition file comes from someone else, and whoever can write the
        cache it names decides what its rows say.

    Raises
    ------
    CompetitionError
        Invalid TOML, an unknown key, a value of the wrong type, a missing
        ``results``, a path that does not exist or rules that cannot be loaded;
        the message names the file, the key and its line.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CompetitionError(f"{source}: not valid TOML: {exc}.") from exc
    root = Path(root)
    for section, allowed in COMPETITION_KEYS.items():
        table = data if section == "" else data.get(section, {})
        if section and not isinstance(table, dict):
            raise CompetitionError(f"{_where(source, text, '', section)}: '{section}' must be a table "
                                   f"([{section}]).")
        for key, value in table.items():
            name = key if not section else f"{section}.{key}"
            if key not in allowed:
                if section == "" and key in COMPETITION_KEYS:
                    continue
                sections = {k for k in COMPETITION_KEYS if k} if section == "" else set()
                listed = ", ".join(sorted(set(allowed) | sections))
                raise CompetitionError(f"{_where(source, text, section, key)}: unknown key '{name}'. "
                                       f"Allowed keys: {listed}.")
            expected = allowed[key]
            types = expected if isinstance(expected, tuple) else (expected,)
            if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
                wanted = " or ".join(_TYPE_NAMES[t] for t in types)
                raise CompetitionError(f"{_where(source, text, section, key)}: '{name}' must be {wanted}. "
                                       f"Got {value!r}.")

    def path(section: str, key: str, value: str | None, *, must_exist: bool = True) -> Path | None:
        if value is None:
            return None
        resolved = (root / value) if not Path(value).is_absolute() else Path(value)
        if must_exist and not resolved.exists():
            name = key if not section else f"{section}.{key}"
            raise CompetitionError(f"{_where(source, text, section, key)}: '{name}' names '{value}', which does "
                                   f"not exist (paths are relative to {root}).")
        return resolved

    def rules_of(section: str, key: str, value: str) -> Rules:
        local = root / value
        reference = str(local) if value.endswith(".toml") and local.exists() else value
        try:
            return load_rules(reference)
        except SrdashError as exc:
            name = key if not section else f"{section}.{key}"
            raise CompetitionError(f"{_where(source, text, section, key)}: '{name}': {exc}") from exc

    if "results" not in data:
        raise CompetitionError(f"{source}: the key 'results' is needed (the results file or folder, or a list "
                               "of them).")
    listed = data["results"] if isinstance(data["results"], list) else [data["results"]]
    if not listed or not all(isinstance(item, str) for item in listed):
        raise CompetitionError(f"{_where(source, text, '', 'results')}: 'results' must be a path or a list of "
                               f"paths. Got {data['results']!r}.")
    results = tuple(path("", "results", item) for item in listed)
    rules = rules_of("", "rules", data.get("rules", "srbench2022"))

    def needs(section: str, key: str, what: str) -> dict:
        table = data[section]
        if key not in table:
            raise CompetitionError(f"{_where(source, text, section, '')}: [{section}] needs '{key}' ({what}).")
        return table

    qualification = None
    if "qualification" in data:
        q = needs("qualification", "results", "the qualification stage's results file")
        qualification = QualificationStage(path("qualification", "results", q["results"]),
                                           path("qualification", "data", q.get("data")),
                                           bool(q.get("keep_unqualified", False)))
    realworld = None
    if "realworld" in data:
        r = needs("realworld", "store", "the trust store of the expert review")
        datasets = r.get("datasets", [])
        if not all(isinstance(d, str) for d in datasets):
            raise CompetitionError(f"{_where(source, text, 'realworld', 'datasets')}: 'realworld.datasets' must "
                                   f"be a list of dataset names. Got {datasets!r}.")
        realworld = RealWorldTrack(path("realworld", "store", r["store"], must_exist=False),
                                   rules_of("realworld", "rules", r.get("rules", "srbench2022-realworld")),
                                   tuple(datasets))
    s = data.get("simplification", {})
    timeout = COMPETITION_LIMITS["simplification.timeout"].check(
        s.get("timeout", 10.0), where=_where(source, text, "simplification", "timeout"), error=CompetitionError)
    jobs = COMPETITION_LIMITS["simplification.jobs"].check(
        s.get("jobs", 0), where=_where(source, text, "simplification", "jobs"), error=CompetitionError)
    cache = s.get("cache")
    file_cache = None
    if isinstance(cache, str):
        file_cache = str(path("simplification", "cache", cache, must_exist=False))
        cache = file_cache if trust_cache else None
        if not trust_cache:
            import warnings

            warnings.warn(f"{_where(source, text, 'simplification', 'cache')}: the competition file names the cache "
                          f"'{file_cache}'; it is not used (srdash's own cache is) unless you confirm it with "
                          f"--trust-competition-cache: whoever can write that cache decides what its results say.",
                          UserWarning, stacklevel=2)
    elif cache is True:
        cache = None
    scheduler = s.get("scheduler") or None
    if scheduler is not None and not trust_scheduler:
        import warnings

        # a competition folder from someone else must not choose where its models are computed
        warnings.warn(f"{_where(source, text, 'simplification', 'scheduler')}: the competition file names the Dask "
                      f"scheduler '{scheduler}'; it is not used (models are simplified on this machine) unless "
                      "you confirm it with --trust-competition-scheduler.",
                      UserWarning, stacklevel=2)
        scheduler = None
    title = data.get("report", {}).get("title") or data.get("title", "")
    return Competition(
        title=title,
        results=results,
        rules=rules,
        datasets=path("", "datasets", data.get("datasets")),
        descriptions=path("", "descriptions", data.get("descriptions")),
        qualification=qualification,
        realworld=realworld,
        simplification=Simplification(timeout=timeout, jobs=jobs or default_jobs(),
                                      scheduler=scheduler, cache=cache,
                                      file_cache=file_cache),
        source=source,
    )


def load_competition(path: str | Path, *, trust_cache: bool = False, trust_scheduler: bool = False) -> Competition:
    """Read and validate a ``competition.toml`` (``trust_cache``: as in :func:`parse_competition`).

    Raises
    ------
    CompetitionError
        See :func:`parse_competition`; also when the file cannot be read.
    """
    path = Path(path)
    if not path.is_file():
        raise CompetitionError(f"Cannot read the competition file '{path}': it is not a file. Write one with "
                               "`srdash init` (or `srdash demo -o DIR` for an example).")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CompetitionError(f"Cannot read the competition file '{path}': {exc}.") from exc
    return parse_competition(text, root=path.resolve().parent, source=str(path), trust_cache=trust_cache,
                             trust_scheduler=trust_scheduler)


def is_competition_file(path: str | Path) -> bool:
    """True when ``path`` is a competition file (a ``.toml`` file), as opposed to results.

    Examples
    --------
    >>> is_competition_file("competition.toml"), is_competition_file("results.csv")
    (True, False)
    """
    return Path(path).suffix.lower() == ".toml"
