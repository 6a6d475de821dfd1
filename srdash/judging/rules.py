"""Judging rules, declared as data.

A competition's rules live in a TOML file: which criteria are ranked, in which
direction, rounded how, weighted how, how runs are aggregated and how ties are
ranked. srdash ships presets in ``srdash/presets/``; a new competition is a new
rules file, not new code. The format is documented in ``docs/rules.md``.

Examples
--------
>>> rules = load_rules("srbench2022")
>>> [c.name for c in rules.criteria]
['accuracy', 'simplicity', 'property']
>>> rules.run_aggregation, rules.rank_method
('median', 'average')
>>> rules.with_options(run_aggregation="mean").run_aggregation
'mean'
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from srdash.errors import RulesError
from srdash.judging.kinds import DEFAULT_KIND, KINDS, RuleKind, rule_kind
from srdash.judging.limits import MIN_WEIGHT_RATIO, RULES_LIMITS, check_any_numbers, shown
from srdash.judging.measures import default_measure, measure as _measure

__all__ = [
    "Criterion",
    "Rules",
    "load_rules",
    "list_presets",
    "RUN_AGGREGATIONS",
    "RANK_METHODS",
    "DIRECTIONS",
    "SCORES",
    "TIES",
    "DNF_RULES",
    "MISSING_RANKS",
    "MISSING_RUN_VALUES",
    "PLACES",
    "DATASET_ORDERS",
    "NORMALISATIONS",
    "ROUNDINGS",
]

RUN_AGGREGATIONS = ("median", "mean", "rank-mean")
RANK_METHODS = ("average", "min", "max", "dense", "k-minus-dense", "dense-from-best")
#: How the ranks become a method's final score (``[ranking] score``): the mean over datasets of
#: each dataset's harmonic mean of criteria ranks (SRBench 2022), or one harmonic mean of
#: all the (dataset, criterion) ranks (SRBench 2023 track 1).
SCORES = ("dataset-mean", "harmonic-over-all")
DIRECTIONS = ("higher", "lower")
#: How values are compared when ranked (``[ranking] ties``): exactly (values that differ in the last
#: binary digit are ranked apart), or within ``tie_tolerance``.
TIES = ("exact", "tolerance")
#: What a method without any run on a dataset counts as (``[ranking] dnf``): last on every criterion;
#: left out (not ranked there, and its final score is the mean over the datasets it has results for);
#: or the worst per-run value of the criterion in the whole table.
DNF_RULES = ("last", "left-out", "worst-value")
#: What a criterion a method has no value for on a dataset (every run missing, with
#: ``missing_run_value = "skipped"``) counts as in the harmonic mean (``[ranking] missing_rank``):
#: ranked as the worst value, or rank K (the best), as the SRBench 2022 notebook did.
MISSING_RANKS = ("worst", "best")
#: How the leaderboard's places compare final scores (``[ranking] places``): rounded to 9 decimals (scores
#: that differ only in float noise share a place), or exactly, as an organiser's sort of the scores did.
PLACES = ("rounded", "exact")
#: The order in which a method's dataset scores are summed for its final score (``[ranking] dataset_order``):
#: by name, or as the SRBench 2022 notebook's groupby keys sorted them (task, then difficulty easier <
#: easy < medium < hard, then name). A compensated sum of the same values in another order can differ
#: in the last digit.
DATASET_ORDERS = ("name", "srbench2022-task-difficulty")
#: What a run with a missing value counts as (``[ranking] missing_run_value``): the worst value (below
#: every measured value, "rank n + 1"); left out of the aggregation over runs (a mean or median of the
#: other runs); or the worst per-run value of the criterion measured in the whole table (the srbench2025
#: preset's choice: min R2, max size; SRBench 2025's own mean ranks skip the run).
MISSING_RUN_VALUES = ("worst", "skipped", "worst-value")
#: How a criterion's per-run values are normalised before aggregation (criterion key ``normalisation``):
#: not at all, or min-max over every run of every method and dataset of the table.
NORMALISATIONS = ("none", "min-max-table")
#: When a criterion with ``decimals`` is rounded (criterion key ``rounding``).
ROUNDINGS = ("both", "per-run", "after-aggregation", "never")


def _text(option: str, value: Any, where: str, *, optional: bool = False) -> None:
    """Refuse a number, boolean, list or table where the rules expect text (``name = 5`` was taken)."""
    if not isinstance(value, str) and not (optional and value is None):
        raise RulesError(f"{where}: '{option}' must be text (in quotes). Got {shown(value)}.")


def _one_of(option: str, value: Any, allowed: tuple[str, ...], where: str) -> None:
    if not isinstance(value, str) or value not in allowed:
        listed = ", ".join(f"'{a}'" for a in allowed)
        raise RulesError(f"{where}: the '{option}' option must be one of {listed}. Got {value!r}.")


@dataclass(frozen=True)
class Criterion:
    """One ranked criterion.

    Attributes
    ----------
    name : str
        Short name used in column names (``<name>_rank``).
    column : str
        Column of the per-run table holding the criterion's value.
    direction : {'higher', 'lower'}
        Which values are better.
    decimals : int or None
        Values are rounded to this many decimals (when: ``rounding``), so that
        near-equal values tie. None: no rounding.
    weight : float
        Weight in the (weighted) harmonic mean of ranks.
    label : str
        Human-readable name for tables and figures.
    description : str
        One or two sentences explaining the criterion to a reader.
    domain : (float, float) or None
        The closed interval ``[low, high]`` of possible values (TOML:
        ``domain = [-inf, 1.0]`` for R2). Values outside it, and infinite
        values, are problems counted as the worst value (see
        :mod:`srdash.judging.domains`). None: any finite value.
    rounding : {'both', 'per-run', 'after-aggregation', 'never'}
        When ``decimals`` applies: to each run's value and again after
        aggregating the runs (the default), only per run, only after
        aggregating, or never.
    normalisation : {'none', 'min-max-table'}
        ``min-max-table``: each run's value becomes ``(v - min) / (max - min)``,
        min and max over the finite values of every run of every method and
        dataset of the table (0 when they are equal), after the per-run
        rounding and before the aggregation over runs.
    measure : str
        How the value is obtained (see :mod:`srdash.judging.measures`):
        ``column`` (given in the results), ``simplified-components``,
        ``tree-nodes``, ``rounded-nodes`` (counted on the model) or
        ``r2-on-data``. Default: ``simplified-components`` for the column
        ``simplicity``, else ``column``.
    optional : bool
        A criterion with no value at all is left out of the harmonic mean (with
        a warning) only when optional; otherwise the verdict is refused.
    """

    name: str
    column: str
    direction: str = "higher"
    decimals: int | None = None
    weight: float = 1.0
    label: str = ""
    description: str = ""
    domain: tuple[float, float] | None = None
    rounding: str = "both"
    normalisation: str = "none"
    measure: str = ""
    optional: bool = False

    def __post_init__(self) -> None:
        where = f"criterion '{self.name}'"
        for option in ("name", "column", "label", "description", "measure"):
            _text(option, getattr(self, option), where)
        _one_of("direction", self.direction, DIRECTIONS, where)
        _one_of("rounding", self.rounding, ROUNDINGS, where)
        _one_of("normalisation", self.normalisation, NORMALISATIONS, where)
        if not self.measure:
            object.__setattr__(self, "measure", default_measure(self.column))
        try:
            _measure(self.measure)
        except RulesError as exc:
            raise RulesError(f"{where}: {exc}") from None
        if not isinstance(self.optional, bool):
            raise RulesError(f"{where}: 'optional' must be true or false. Got {self.optional!r}.")
        if self.decimals is not None:
            if not isinstance(self.decimals, int):  # 3.0 is not a count of decimals
                raise RulesError(f"{where}: 'decimals' must be {RULES_LIMITS['criteria.decimals'].describe()}. "
                                 f"Got {shown(self.decimals)}.")
            RULES_LIMITS["criteria.decimals"].check(self.decimals, where=where)
        object.__setattr__(self, "weight", RULES_LIMITS["criteria.weight"].check(self.weight, where=where))
        if not self.label:
            object.__setattr__(self, "label", self.name)
        if self.domain is not None:
            bounds = self.domain
            if (not isinstance(bounds, (list, tuple)) or len(bounds) != 2
                    or not all(RULES_LIMITS["criteria.domain"].admits(b) for b in bounds)
                    or bounds[0] > bounds[1]):
                raise RulesError(f"{where}: 'domain' must be two numbers [low, high] with low <= high "
                                 f"(inf allowed). Got {shown(bounds)}.")
            object.__setattr__(self, "domain", (float(bounds[0]), float(bounds[1])))


@dataclass(frozen=True)
class Rules:
    """A competition's judging rules.

    Build with :func:`load_rules`; derive variants with :meth:`with_options`.

    Attributes
    ----------
    name : str
        Preset or file name.
    title : str
        One-line title.
    description : str
        What the rules say, for readers of the verdict.
    kind : {'rank-harmonic', 'normalised-weighted'}
        ``rank-harmonic``: per-dataset ranks of each criterion combined by a
        (weighted) harmonic mean, averaged over datasets (SRBench).
    criteria : tuple of Criterion
    run_aggregation : {'median', 'mean', 'rank-mean'}
        How the runs of a method on a dataset are combined: the median or mean
        of the values (then ranked), or ``rank-mean``: methods are ranked among
        the runs with the same run id, and each method's ranks are averaged
        over the runs (the 2022 draft rules).
    score : {'dataset-mean', 'harmonic-over-all'}
        ``dataset-mean``: the mean over datasets of the weighted harmonic mean of
        each dataset's criteria ranks; ``harmonic-over-all``: one weighted harmonic
        mean of every (dataset, criterion) rank (SRBench 2023 track 1).
    min_relative : tuple (column, ratio) or None
        A run passes only if ``value > ratio * best``, ``best`` being the best
        value of ``column`` on the dataset over all methods and runs (when
        ``best <= 0`` no run passes); a failing run counts as the worst value
        on every criterion. None: no threshold.
    rank_method : {'average', 'min', 'max', 'dense', 'k-minus-dense'}
        How tied values are ranked. Ranks run from 1 (worst) to K (best), K the
        number of methods; ``k-minus-dense`` is K minus the dense rank counted
        from the best value (best gets K - 1, and the worst can get 0);
        ``dense-from-best`` is K + 1 minus that dense rank (best gets K).
    ties : {'exact', 'tolerance'}
        ``exact``: values are compared as floats (0.1 + 0.2 and 0.3 are ranked
        apart; the verdict warns where that happened); ``tolerance``: sorted
        values closer than ``tie_tolerance`` to their neighbour tie (a chain of
        close values is one tie).
    tie_tolerance : float
        The absolute tolerance of ``ties = 'tolerance'`` (0 with exact ties).
    dnf : {'last', 'left-out', 'worst-value'}
        A method without any run on a dataset: tied last on every criterion;
        left out (not ranked there; its final score is the mean over the
        datasets it has results for); or given the worst per-run value of the
        criterion in the whole table.
    missing_rank : {'worst', 'best'}
        A criterion a method has no value for on a dataset where it has runs
        (possible with ``missing_run_value = 'skipped'``): ranked as the worst
        value, or not ranked and counted as rank K in the harmonic mean.
    missing_run_value : {'worst', 'skipped', 'worst-value'}
        A run's missing value counts as the worst value (below every measured
        value), is left out of the aggregation over runs, or counts as the
        worst value of the criterion measured in the whole table (the srbench2025 preset).
    runs_per_dataset : int
        The runs every (method, dataset) with results should have (the srbench2025
        preset: 30); the missing ones count as runs whose every value is missing (see
        ``missing_run_value``). 0: no expectation, the runs given are the runs.
    places : {'rounded', 'exact'}
        Leaderboard places from the final scores rounded to 9 decimals (equal there:
        the same place), or from the exact scores (SRBench 2022 as run).
    dataset_order : {'name', 'srbench2022-task-difficulty'}
        The order in which each method's dataset scores are summed for its final
        score: by dataset name, or task then difficulty (easier, easy, medium,
        hard) then name, as the SRBench 2022 notebook grouped them.
    competition_sympy_version : str or None
        The sympy version the competition itself used, if stated. Component
        counts depend on it.
    text : str
        The rules file's full text (for provenance).
    source : str
        Where the rules came from (preset name or path).
    sections : Mapping
        Every table of the rules file, for rule kinds with options of their own.
    """

    name: str
    title: str
    description: str
    kind: str
    criteria: tuple[Criterion, ...]
    run_aggregation: str = "median"
    rank_method: str = "average"
    competition_sympy_version: str | None = None
    min_relative: tuple[str, float] | None = None
    score: str = "dataset-mean"
    ties: str = "exact"
    tie_tolerance: float = 0.0
    dnf: str = "last"
    missing_rank: str = "worst"
    missing_run_value: str = "worst"
    runs_per_dataset: int = 0
    places: str = "rounded"
    dataset_order: str = "name"
    text: str = ""
    source: str = ""
    sections: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        where = f"rules '{self.name}'"
        for option in ("name", "title", "description"):
            _text(option, getattr(self, option), where)
        _text("competition_sympy_version", self.competition_sympy_version, where, optional=True)
        _one_of("kind", self.kind, tuple(KINDS), where)
        _one_of("run_aggregation", self.run_aggregation, RUN_AGGREGATIONS, where)
        _one_of("rank_method", self.rank_method, RANK_METHODS, where)
        _one_of("score", self.score, SCORES, where)
        _one_of("ties", self.ties, TIES, where)
        _one_of("dnf", self.dnf, DNF_RULES, where)
        _one_of("missing_rank", self.missing_rank, MISSING_RANKS, where)
        _one_of("missing_run_value", self.missing_run_value, MISSING_RUN_VALUES, where)
        _one_of("places", self.places, PLACES, where)
        _one_of("dataset_order", self.dataset_order, DATASET_ORDERS, where)
        tolerance = RULES_LIMITS["ranking.tie_tolerance"].check(self.tie_tolerance, where=where)
        if self.ties == "tolerance" and tolerance <= 0:
            raise RulesError(f"{where}: ties = 'tolerance' needs a 'tie_tolerance' > 0. Got {tolerance!r}.")
        if self.ties == "exact" and tolerance != 0:
            raise RulesError(f"{where}: a 'tie_tolerance' ({tolerance!r}) needs ties = 'tolerance'; "
                             "with ties = 'exact' values are compared exactly.")
        object.__setattr__(self, "tie_tolerance", float(tolerance))
        if not isinstance(self.runs_per_dataset, int):  # 30.0 is not a count of runs
            raise RulesError(f"{where}: 'runs_per_dataset' must be "
                             f"{RULES_LIMITS['ranking.runs_per_dataset'].describe()} (0: no expectation). "
                             f"Got {shown(self.runs_per_dataset)}.")
        RULES_LIMITS["ranking.runs_per_dataset"].check(self.runs_per_dataset, where=where)
        if self.min_relative is not None:
            column, ratio = self.min_relative
            object.__setattr__(self, "min_relative", (column, RULES_LIMITS["filters.min_relative.ratio"].check(
                ratio, where=f"{where}: [filters] min_relative")))
        if self.run_aggregation == "rank-mean":
            changed = [k for k in ("dnf", "missing_rank", "missing_run_value", "runs_per_dataset")
                       if getattr(self, k) != _RANKING_DEFAULTS[k]]
            if changed:  # rank-mean ranks every run slot, a missing run being the worst: these would do nothing
                raise RulesError(f"{where}: run_aggregation = 'rank-mean' ranks each run, a missing run or DNF "
                                 f"as the worst; it cannot be combined with {', '.join(changed)} other than the "
                                 "default.")
        if not self.criteria:
            raise RulesError(f"{where}: at least one criterion is needed.")
        names = [c.name for c in self.criteria]
        duplicated = sorted({n for n in names if names.count(n) > 1})
        if duplicated:
            raise RulesError(f"{where}: criterion names must be unique. Repeated: {', '.join(duplicated)}.")
        largest = max(c.weight for c in self.criteria)
        if largest <= 0:
            raise RulesError(f"{where}: at least one criterion needs a weight > 0.")
        negligible = [c for c in self.criteria if 0 < c.weight < MIN_WEIGHT_RATIO * largest]
        if negligible:  # it would break exact ties and nothing else; 0 says that plainly
            c = negligible[0]
            raise RulesError(f"{where}: criterion '{c.name}': 'weight' {c.weight!r} is less than a millionth of the "
                             f"largest weight ({largest:g}); it would decide nothing but exact ties. Give it 0 to "
                             "leave it out, or a larger weight.")

    @property
    def sha256(self) -> str:
        """Hash of the rules as applied (file text plus any option changed since)."""
        digest = hashlib.sha256(self.text.encode())
        digest.update(repr(self._effective()).encode())
        return digest.hexdigest()

    def _effective(self) -> tuple:
        return (
            self.kind,
            self.run_aggregation,
            self.rank_method,
            self.min_relative,
            *(() if self.score == "dataset-mean" else (self.score,)),  # hashes of older rules unchanged
            *((("ranking", tuple((k, getattr(self, k)) for k in _RANKING_DEFAULTS if k not in _LATER_OPTIONS)
                             # hashes of older rules unchanged: a later option counts only when it is set
                             + tuple((k, getattr(self, k)) for k in _LATER_OPTIONS
                                     if getattr(self, k) != _RANKING_DEFAULTS[k])),)
              if self.uses_extended_options else ()),
            tuple((c.name, c.column, c.direction, c.decimals, float(c.weight))
                  + ((c.domain,) if c.domain is not None else ())
                  + ((c.rounding, c.normalisation) if (c.rounding, c.normalisation) != ("both", "none") else ())
                  # hashes of older rules unchanged: only a measure or optional other than the default counts
                  + ((("measure", c.measure),) if c.measure != default_measure(c.column) else ())
                  + ((("optional", True),) if c.optional else ()) for c in self.criteria),
        )

    @property
    def uses_extended_options(self) -> bool:
        """True when an option on ties, DNFs, missing values, rounding or normalisation is not its default.

        Such rules are judged by :func:`srdash.judging.ranking.judge` only: the fast paths of the bootstrap
        and of weight sensitivity judge again instead.

        Examples
        --------
        >>> load_rules("srbench2022").uses_extended_options, load_rules("srbench2022-as-run").uses_extended_options
        (False, True)
        """
        return (any(getattr(self, k) != v for k, v in _RANKING_DEFAULTS.items())
                or any((c.rounding, c.normalisation) != ("both", "none") for c in self.criteria))

    @property
    def rule_kind(self) -> RuleKind:
        """The registered kind of these rules (see :mod:`srdash.judging.kinds`)."""
        return rule_kind(self.kind)

    @property
    def weights(self) -> dict[str, float]:
        """Criterion name -> weight."""
        return {c.name: float(c.weight) for c in self.criteria}

    def criterion(self, name: str) -> Criterion:
        """The criterion called ``name``."""
        for c in self.criteria:
            if c.name == name:
                return c
        known = ", ".join(f"'{c.name}'" for c in self.criteria)
        raise RulesError(f"The rules '{self.name}' have no criterion '{name}'. Criteria: {known}.")

    def with_options(
        self,
        *,
        run_aggregation: str | None = None,
        rank_method: str | None = None,
        weights: Mapping[str, float] | None = None,
        **ranking: Any,
    ) -> "Rules":
        """A copy with other options; unchanged when every option is None.

        Parameters
        ----------
        run_aggregation, rank_method : str, optional
            See the class attributes.
        weights : mapping of criterion name to weight, optional
            Criteria not named keep their weight.
        **ranking
            ``ties``, ``tie_tolerance``, ``dnf``, ``missing_rank``, ``missing_run_value``,
            ``runs_per_dataset``, ``places``, ``dataset_order`` (see the class attributes); None leaves one
            unchanged.

        Examples
        --------
        >>> r = load_rules("srbench2022").with_options(weights={"accuracy": 2})
        >>> r.weights
        {'accuracy': 2.0, 'simplicity': 1.0, 'property': 1.0}
        >>> load_rules("srbench2022").with_options(rank_method="mean")
        Traceback (most recent call last):
        ...
        srdash.errors.RulesError: rules 'srbench2022': the 'rank_method' option must be one of 'average', 'min', 'max', 'dense', 'k-minus-dense', 'dense-from-best'. Got 'mean'.
        """
        criteria = self.criteria
        if weights is not None:
            known = {c.name for c in criteria}
            unknown = sorted(set(weights) - known)
            if unknown:
                raise RulesError(
                    f"Unknown criterion in weights: {', '.join(unknown)}. Criteria: {', '.join(sorted(known))}."
                )
            criteria = tuple(replace(c, weight=float(weights.get(c.name, c.weight))) for c in criteria)
        unknown = sorted(set(ranking) - set(_RANKING_DEFAULTS))
        if unknown:
            raise RulesError(f"Unknown option(s) {', '.join(unknown)}. Options: run_aggregation, rank_method, "
                             f"weights, {', '.join(_RANKING_DEFAULTS)}.")
        return replace(
            self,
            criteria=criteria,
            run_aggregation=run_aggregation if run_aggregation is not None else self.run_aggregation,
            rank_method=rank_method if rank_method is not None else self.rank_method,
            **{k: v for k, v in ranking.items() if v is not None},
        )


#: The options on ties, DNFs and missing values, with the defaults that keep older rules' behaviour.
_RANKING_DEFAULTS = {"ties": "exact", "tie_tolerance": 0.0, "dnf": "last", "missing_rank": "worst",
                     "missing_run_value": "worst", "runs_per_dataset": 0, "places": "rounded",
                     "dataset_order": "name"}
#: Options added after rules hashes were published: in the hash only when set.
_LATER_OPTIONS = ("runs_per_dataset", "places", "dataset_order")


def list_presets() -> list[str]:
    """Names of the rules presets shipped with srdash.

    Examples
    --------
    >>> "srbench2022" in list_presets()
    True
    """
    folder = resources.files("srdash") / "presets"
    return sorted(p.name[: -len(".toml")] for p in folder.iterdir() if p.name.endswith(".toml"))


def load_rules(name_or_path: str | Path | Rules) -> Rules:
    """Load a rules preset by name, or a rules file by path.

    Parameters
    ----------
    name_or_path : str, Path or Rules
        A preset name (see :func:`list_presets`), a path to a ``.toml`` rules
        file, or a :class:`Rules` (returned as is).

    Returns
    -------
    Rules

    Raises
    ------
    RulesError
        Unknown preset, unreadable file, or invalid content; the message says
        what was expected.

    Examples
    --------
    >>> load_rules("srbench2022-as-run").rank_method
    'k-minus-dense'
    >>> load_rules("nope")
    Traceback (most recent call last):
    ...
    srdash.errors.RulesError: No rules preset or file called 'nope'. Presets: ...
    """
    if isinstance(name_or_path, Rules):
        return name_or_path
    text_name = str(name_or_path)
    path = Path(text_name)
    if path.suffix == ".toml" and path.exists():
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise RulesError(f"Cannot read the rules file '{path}': {exc}.") from exc
        return parse_rules(text, source=str(path), default_name=path.stem)
    preset = resources.files("srdash") / "presets" / f"{text_name}.toml"
    if "/" not in text_name and preset.is_file():
        return parse_rules(preset.read_text(encoding="utf-8"), source=f"preset:{text_name}", default_name=text_name)
    presets = ", ".join(list_presets())
    raise RulesError(
        f"No rules preset or file called '{text_name}'. Presets: {presets}; "
        "or give the path of a .toml rules file (see docs/rules.md)."
    )


_CRITERION_KEYS = {"name", "column", "direction", "decimals", "weight", "label", "description", "domain",
                   "rounding", "normalisation", "measure", "optional"}
#: Every key of a rules file's [ranking] table.
RANKING_KEYS = {"run_aggregation", "rank_method", "score", *_RANKING_DEFAULTS}


def parse_rules(text: str, *, source: str = "<text>", default_name: str = "rules") -> Rules:
    """Build :class:`Rules` from the text of a TOML rules file.

    Examples
    --------
    >>> r = parse_rules('''
    ... name = "tiny"
    ... [[criteria]]
    ... name = "accuracy"
    ... column = "r2_test"
    ... ''')
    >>> r.kind, r.criteria[0].direction
    ('rank-harmonic', 'higher')
    >>> parse_rules('[[criteria]]\\nname = "a"\\ncolumn = "b"\\ncolour = "red"')
    Traceback (most recent call last):
    ...
    srdash.errors.RulesError: <text>: unknown key 'colour' in criterion 'a'. Allowed keys: column, decimals, description, direction, domain, label, measure, name, normalisation, optional, rounding, weight.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"{source}: not valid TOML: {exc}.") from exc
    check_any_numbers(data, where=source)  # the declared keys are checked where they are read
    kind = data.get("kind", DEFAULT_KIND)
    allowed = rule_kind(kind).top_level_keys
    if allowed is not None:
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise RulesError(
                f"{source}: unknown top-level key(s) {', '.join(unknown)}. Allowed: {', '.join(sorted(allowed))}."
            )
    raw_criteria = data.get("criteria", [])
    if not isinstance(raw_criteria, list) or not raw_criteria:
        raise RulesError(f"{source}: a rules file needs at least one [[criteria]] table.")
    for table in ("ranking", "filters"):
        if not isinstance(data.get(table, {}), dict):
            raise RulesError(f"{source}: '{table}' must be a table ([{table}]). Got {shown(data[table])}.")
    criteria = []
    for i, raw in enumerate(raw_criteria, start=1):
        if not isinstance(raw, dict):
            raise RulesError(f"{source}: criterion #{i} must be a table ([[criteria]]). Got {shown(raw)}.")
        label = raw.get("name", f"#{i}")
        unknown = sorted(set(raw) - _CRITERION_KEYS)
        if unknown:
            raise RulesError(
                f"{source}: unknown key '{unknown[0]}' in criterion '{label}'. "
                f"Allowed keys: {', '.join(sorted(_CRITERION_KEYS))}."
            )
        missing = [k for k in ("name", "column") if k not in raw]
        if missing:
            raise RulesError(f"{source}: criterion '{label}' needs the key(s) {', '.join(missing)}.")
        criteria.append(Criterion(**raw))
    ranking = data.get("ranking", {})
    unknown = sorted(set(ranking) - RANKING_KEYS)
    if unknown:
        raise RulesError(f"{source}: unknown key '{unknown[0]}' in [ranking]. "
                         f"Allowed keys: {', '.join(sorted(RANKING_KEYS))}.")
    min_relative = None
    threshold = data.get("filters", {}).get("min_relative")
    if threshold is not None:
        if (not isinstance(threshold, dict) or set(threshold) != {"column", "ratio"}
                or not isinstance(threshold["ratio"], (int, float)) or not isinstance(threshold["column"], str)):
            raise RulesError(f"{source}: [filters] min_relative must be a table with keys 'column' (text) and "
                             f"'ratio' (a number). Got {shown(threshold)}.")
        min_relative = (str(threshold["column"]), threshold["ratio"])  # its bounds: Rules
    return Rules(
        name=data.get("name", default_name),
        title=data.get("title", data.get("name", default_name)),
        description=data.get("description", ""),
        kind=kind,
        criteria=tuple(criteria),
        run_aggregation=ranking.get("run_aggregation", "median"),
        rank_method=ranking.get("rank_method", "average"),
        competition_sympy_version=data.get("competition_sympy_version"),
        min_relative=min_relative,
        score=ranking.get("score", "dataset-mean"),
        ties=ranking.get("ties", "exact"),
        tie_tolerance=ranking.get("tie_tolerance", 0.0),
        dnf=ranking.get("dnf", "last"),
        missing_rank=ranking.get("missing_rank", "worst"),
        missing_run_value=ranking.get("missing_run_value", "worst"),
        runs_per_dataset=ranking.get("runs_per_dataset", 0),
        places=ranking.get("places", "rounded"),
        dataset_order=ranking.get("dataset_order", "name"),
        text=text,
        source=source,
        sections=MappingProxyType({k: v for k, v in data.items() if isinstance(v, dict)}),
    )
