"""Which rules reproduce a published leaderboard: judge a competition under each preset and audit.

``srdash init`` finds a competition's files; when the folder also holds the
leaderboard the organisers published, the rules to draft are the ones whose
verdict reproduces it. :func:`try_presets` judges the competition under every
preset that its results can feed (a preset that needs a column nothing
supplies, or that would simplify every model, is not tried, and says why) and
audits each verdict against the published table (:func:`srdash.analysis.audit.audit`),
with the published table's own precision as the tolerance. :func:`no_property_rules`
writes the SRBench 2022 rules without the property criterion, for results of
datasets that test no property (SRBench's black-box benchmark).

Examples
--------
>>> published_precision(["6.307885", "1.5", "2"])
6
>>> 'column = "property"' in no_property_rules()
False
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from srdash.analysis.audit import audit
from srdash.errors import SrdashError
from srdash.judging.checks import unsupplied_criteria
from srdash.judging.rules import list_presets, load_rules

__all__ = ["PresetTrial", "RulesDraft", "RULES_DRAFT", "try_presets", "best_trial", "draft_rules",
           "published_precision", "no_property_rules"]

_METHOD_COLUMNS = ("method", "team", "algorithm")


@dataclass(frozen=True)
class PresetTrial:
    """One preset judged against the published table.

    Attributes
    ----------
    preset : str
    tried : bool
        False when the preset was not judged (``detail`` says why).
    reproduces : bool
        Every method's score within the published precision and every place equal.
    max_difference : float
        Largest ``|recomputed - published|`` score over the methods both list (NaN when not tried).
    places_differing : int
        Methods whose recomputed place is not the published one (or that one side lacks).
    detail : str
        One line for a reader.
    method_column : str
        The published table's column that names the judged methods.
    tolerance : float
        Half a unit of the published scores' last decimal.
    """

    preset: str
    tried: bool
    reproduces: bool = False
    max_difference: float = math.nan
    places_differing: int = 0
    detail: str = ""
    method_column: str = "method"
    tolerance: float = math.nan


def published_precision(scores: Iterable[str]) -> int:
    """The number of decimals of the most precise published score (as written in the file)."""
    decimals = [len(text.strip().split(".", 1)[1]) for text in scores if "." in str(text).strip()]
    return max(decimals, default=0)


def _published_table(path: Path, methods: set[str]) -> tuple[pd.DataFrame, float, str]:
    """The published table with its method column the one naming the judged methods, and its tolerance
    (half a unit of its last decimal)."""
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    raw.columns = [str(c).strip().lower() for c in raw.columns]
    present = [c for c in _METHOD_COLUMNS if c in raw.columns]
    if not present or "score" not in raw.columns:
        raise SrdashError(f"The published table {path} needs a score column and one of "
                          f"{', '.join(map(repr, _METHOD_COLUMNS))}. Columns: {', '.join(raw.columns)}.")
    column = max(present, key=lambda c: len(set(raw[c].str.strip()) & methods))  # the one naming the methods
    table = raw[[c for c in ("place", "score", "track") if c in raw.columns]].assign(method=raw[column].str.strip())
    return table, 0.5 * 10.0 ** -published_precision(raw["score"]), column


def _trial(preset: str, verdict, published_path: Path) -> PresetTrial:
    methods = set(verdict.leaderboard["method"].astype(str))
    table, tolerance, column = _published_table(published_path, methods)
    found = audit(verdict, table, tolerance=tolerance)
    common = found.comparison.dropna(subset=["published_score", "recomputed_score"])
    largest = float(common["score_difference"].abs().max()) if len(common) else math.nan
    places = int(found.comparison["status"].isin(["place differs", "score and place differ", "only in published",
                                                   "only in recomputed"]).sum())
    if found.passes:
        detail = (f"reproduces all {len(common)} published scores (within {tolerance:g}) and places")
    else:
        detail = (f"{len(found.flagged)} of {len(found.comparison)} methods differ: scores up to {largest:.6g} "
                  f"apart, {places} place(s) differ")
    return PresetTrial(preset, True, found.passes, largest, places, detail, column, tolerance)


def try_presets(judge: Callable[[str], object], published: str | Path, *, columns: Iterable[str],
                from_data: Iterable[str] | None = (), presets: Sequence[str] | None = None) -> list[PresetTrial]:
    """Judge the competition under each preset its results can feed, and audit each verdict.

    Parameters
    ----------
    judge : callable
        ``judge(preset) -> Verdict``: the competition judged under that preset
        (``srdash init`` builds the competition from the files it found).
    published : path
        The published leaderboard (``score``, and ``method``, ``team`` or
        ``algorithm``; optionally ``place``, ``track``); the column whose names
        are the judged methods is used.
    columns : iterable of str, keyword-only
        The results' canonical columns.
    from_data : iterable of str or None, keyword-only
        The columns the dataset files supply (see
        :func:`srdash.judging.checks.unsupplied_criteria`).
    presets : sequence of str, optional
        Default: every preset (:func:`srdash.judging.rules.list_presets`).

    Returns
    -------
    list of PresetTrial
        One per preset, in the order given: those that could not be tried say why.
    """
    columns = set(columns)
    published = Path(published)
    trials = []
    for name in presets if presets is not None else list_presets():
        rules = load_rules(name)
        if not rules.rule_kind.judges_runs:
            trials.append(PresetTrial(name, False, detail="not tried: judges one row per submission"))
            continue
        lacking = unsupplied_criteria(columns, rules, from_data=from_data)
        if lacking:
            trials.append(PresetTrial(name, False, detail="not tried: nothing supplies "
                                      + ", ".join(f"'{c.column}' ({c.name})" for c in lacking)))
            continue
        if any(c.measure == "simplified-components" for c in rules.criteria) and "components" not in columns \
                and "simplicity" not in columns:
            trials.append(PresetTrial(name, False, detail="not tried: it simplifies every model (slow); "
                                      f"try it with `srdash audit --rules {name}`"))
            continue
        try:
            verdict = judge(name)
        except SrdashError as exc:
            trials.append(PresetTrial(name, False, detail=f"not judged: {str(exc).splitlines()[0]}"))
            continue
        trials.append(_trial(name, verdict, published))
    return trials


def best_trial(trials: Sequence[PresetTrial]) -> PresetTrial | None:
    """The trial that reproduces the table, else the closest one (fewest places differing, then the
    smallest score difference); None when no preset was tried."""
    tried = [t for t in trials if t.tried]
    if not tried:
        return None
    return min(tried, key=lambda t: (not t.reproduces, t.places_differing,
                                     np.inf if math.isnan(t.max_difference) else t.max_difference))


def no_property_rules(base: str = "srbench2022") -> str:
    """The text of a rules file: the preset ``base`` without its ``property`` criterion.

    For results of datasets that test no property (SRBench's black-box
    benchmark): the preset refuses them (its property has no data), and a
    verdict that ranks without the property must say so in its rules.
    """
    rules = load_rules(base)
    blocks = rules.text.split("[[criteria]]")
    kept = [block for block in blocks[1:] if 'column = "property"' not in block]
    if len(kept) == len(blocks) - 1:
        raise SrdashError(f"The preset '{base}' has no property criterion.")
    head = blocks[0].replace(f'name = "{base}"', f'name = "{base}-no-property"', 1)
    head = head.replace('title = "', 'title = "Without a dataset property: ', 1)
    # the preset's description counts the property among its criteria: say what these rules do
    head = re.sub(r'description = """.*?"""', lambda _: (
        'description = """\n' + f"The rules of {base} on accuracy and simplicity only: these datasets test no "
        "property.\n" + '"""'), head, count=1, flags=re.S)
    note = (f"# Drafted by `srdash init`: the preset '{base}' without its property criterion, for datasets that\n"
            "# test no property (as SRBench's black-box benchmark). Accuracy and simplicity only.\n")
    return note + head + "".join("[[criteria]]" + block for block in kept)


#: The file name of the rules :func:`draft_rules` drafts when no preset fits.
RULES_DRAFT = "rules.toml"


@dataclass(frozen=True)
class RulesDraft:
    """The rules ``srdash init`` writes into a competition file.

    Attributes
    ----------
    line : str
        The ``rules = ...`` line(s), with a comment saying why.
    rules_file : str or None
        The text of :data:`RULES_DRAFT` to write beside it, when no preset fits.
    notes : tuple of str
        What was tried and found (one line each).
    trials : tuple of PresetTrial
    """

    line: str
    rules_file: str | None = None
    notes: tuple[str, ...] = ()
    trials: tuple[PresetTrial, ...] = ()


def draft_rules(*, columns: Iterable[str], from_data: Iterable[str] | None, published: Sequence[str | Path] = (),
                submissions: bool = False, srbench2025: bool = False,
                judge: Callable[[str], object] | None = None, rules_path: str = RULES_DRAFT) -> RulesDraft:
    """Choose the rules of a drafted competition from what its files hold.

    One row per submission: ``evalrs2022``. SRBench 2025's eco2AI columns:
    ``srbench2025``. A published leaderboard (and ``judge``): the preset whose
    verdict reproduces it (:func:`try_presets`), else the closest, with how far
    each preset tried lies from it. Otherwise ``srbench2022``, unless nothing
    supplies its property (no ``property`` column, no descriptions that score
    one): then :func:`no_property_rules`, as a rules file.

    Parameters
    ----------
    columns : iterable of str, keyword-only
        The results' canonical columns.
    from_data : iterable of str or None, keyword-only
        The columns the dataset descriptions supply (None: the descriptions are the organiser's, any).
    published : sequence of path, keyword-only
        Published leaderboards found (the first is reproduced).
    submissions, srbench2025 : bool, keyword-only
        What the results tables are (see :class:`srdash.io.discover.Found`).
    judge : callable, optional
        ``judge(preset) -> Verdict``, needed to reproduce a published table.
    rules_path : str, optional
        How the competition file names the drafted rules file (relative to it).

    Returns
    -------
    RulesDraft
    """
    columns = set(columns)
    if submissions:
        return RulesDraft('rules = "evalrs2022"        # one row per submission: weighted meta-scores '
                          '(see `srdash rules`)')
    if srbench2025:
        return RulesDraft('rules = "srbench2025"       # the results carry eco2AI energy columns: SRBench 2025\'s '
                          'per-run table (or srbench2022, a .toml file: `srdash rules`)')
    if published and judge is not None:
        trials = tuple(try_presets(judge, published[0], columns=columns, from_data=from_data))
        best = best_trial(trials)
        notes = tuple(f"preset {t.preset} against {Path(published[0]).name}: {t.detail}." for t in trials)
        if best is not None:
            name = Path(published[0]).name
            verb = "reproduces" if best.reproduces else "comes closest to (does NOT reproduce)"
            audit_line = f"srdash audit competition.toml --published {name} --tolerance {best.tolerance:g}"
            if best.method_column != "method":  # srdash audit reads the 'method' column
                audit_line += f" (with {name}'s '{best.method_column}' column as 'method')"
            return RulesDraft(f'rules = "{best.preset}"   # {verb} {name}\n# audit it: {audit_line}',
                              notes=notes, trials=trials)
    else:
        notes = ()
    lacking = unsupplied_criteria(columns, load_rules("srbench2022"), from_data=from_data)
    if any(c.column == "property" for c in lacking):
        return RulesDraft(f'rules = "{rules_path}"   # srbench2022 without its property criterion: the results '
                          'have no property column and no descriptions score one',
                          rules_file=no_property_rules(), notes=notes + (
                              f"no property column and no descriptions scoring one: {RULES_DRAFT} drafted, "
                              "srbench2022 without its property criterion.",))
    return RulesDraft('rules = "srbench2022"       # or srbench2022-as-run, srbench2022-draft, a .toml file '
                      '(`srdash rules`)', notes=notes)
