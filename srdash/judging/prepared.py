"""What the pipeline hands from step to step: a prepared competition, its tracks, the judged result.

Frozen dataclasses only (built by :mod:`srdash.judging.preparation` and
:mod:`srdash.judging.judgement`, kept whole by :mod:`srdash.judging.snapshot`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Mapping

import pandas as pd

from srdash.errors import SrdashError
from srdash.io.loading import Results
from srdash.judging.ranking import Verdict

if TYPE_CHECKING:  # the core modules import sympy-free, but not for nothing at start-up
    from srdash.judging.competition import Competition
    from srdash.judging.properties import PropertyScores
    from srdash.judging.qualification import FilteredRuns, Qualification

__all__ = ["RUN_STATUSES", "PreparedTrack", "PreparedCompetition", "CompetitionResult", "RealWorldTrackRefused",
           "RealWorldInputs"]


#: Per-run model statuses: ``given`` means the input supplied ``components``; ``measured`` that the model was
#: measured as the rules ask (tree nodes, rounded nodes) and not simplified.
RUN_STATUSES = ("ok", "given", "measured", "timeout", "simplify_error", "rejected", "parse_error")


@dataclass(frozen=True)
class PreparedTrack:
    """Per-run table of a track judged from raw model strings and dataset files.

    Attributes
    ----------
    runs : DataFrame
        :func:`prepare_runs`' table with the metrics recomputed on the data and
        the ``property`` column computed by the dataset's property scorer.
    problems : DataFrame
        ``kind, method, dataset, run, detail``: predictions that failed,
        supplied metrics that disagree with the recomputed ones, property
        scoring problems. Append them to the verdict's problems
        (:func:`with_track_problems`).
    scores : PropertyScores or None
        The property scores the ``property`` column came from (per run, per
        dataset, the noise curves): what the dashboard's property view shows,
        without computing them again.
    """

    runs: pd.DataFrame
    problems: pd.DataFrame
    scores: "PropertyScores | None" = None


@dataclass(frozen=True)
class PreparedCompetition:
    """Everything expensive a competition needs, done once (:func:`prepare_competition`).

    Judging it again under other options (:func:`judge_prepared`) is cheap: the
    dashboard's controls do that.

    Attributes
    ----------
    competition : Competition
    input : DataFrame or Submissions
        The prepared per-run table (rules that judge runs) or the loaded
        submissions (rules that judge submissions).
    results : Results or None
        The loaded results after the qualification stage (runs only).
    track_problems : DataFrame or None
        Problems found while evaluating models on the data (with descriptions).
    properties : PropertyScores or None
    qualification : Qualification or None
    filtered : FilteredRuns or None
        Who the qualification stage excluded or flagged.
    trust_entries : DataFrame or None
        The real-world track's trust entries (None: no real-world track).
    cache_stats : Mapping
        How many results came from the cache, per kind (``hits``, ``misses``,
        ``timeouts_reused``, ...; see :class:`srdash.cache.CacheStats`).
    input_hashes : Mapping
        The SHA-256 of every input file (but the trust store) by role and relative path, taken when the
        competition was prepared (see :func:`competition_input_hashes`; empty: hashed when judged).
    """

    competition: "Competition"
    input: object
    results: Results | None = None
    track_problems: pd.DataFrame | None = None
    properties: "PropertyScores | None" = None
    qualification: "Qualification | None" = None
    filtered: "FilteredRuns | None" = None
    trust_entries: pd.DataFrame | None = None
    cache_stats: Mapping = field(default_factory=lambda: MappingProxyType({}))
    input_hashes: Mapping = field(default_factory=lambda: MappingProxyType({}))

    @property
    def runs(self) -> pd.DataFrame | None:
        """The prepared per-run table (None for submissions)."""
        return self.input if isinstance(self.input, pd.DataFrame) else None

    @property
    def methods_under_review(self) -> tuple[str, ...]:
        """The methods the real-world track (and so its expert review) covers: those of the track,
        after the qualification stage."""
        runs = self.runs
        return () if runs is None else tuple(sorted(runs["method"].astype(str).unique()))

    @property
    def datasets_under_review(self) -> tuple[str, ...]:
        """The datasets the real-world track covers (the competition's list, else every dataset)."""
        runs = self.runs
        chosen = self.competition.realworld.datasets if self.competition.realworld is not None else ()
        if chosen:
            return tuple(chosen)
        return () if runs is None else tuple(sorted(runs["dataset"].astype(str).unique()))


@dataclass(frozen=True)
class CompetitionResult:
    """The verdict of a competition, as every door shows it.

    Attributes
    ----------
    competition : Competition
    prepared : PreparedCompetition
    verdict : Verdict or MultiObjectiveVerdict
        The main track.
    realworld : Verdict or None
        The real-world track (expert trust), when the competition has one.
    fingerprint : str
        :func:`verdict_fingerprint` of the tracks: equal fingerprints, same verdict.
    """

    competition: "Competition"
    prepared: PreparedCompetition
    verdict: object
    realworld: Verdict | None = None
    fingerprint: str = ""

    @property
    def tracks(self) -> dict[str, object]:
        """Track name -> verdict (``main``, and ``realworld`` when present)."""
        tracks = {"main": self.verdict}
        if self.realworld is not None:
            tracks["realworld"] = self.realworld
        return tracks

    @property
    def runs(self) -> pd.DataFrame | None:
        return self.prepared.runs

    @property
    def qualification(self):
        return self.prepared.qualification

    @property
    def properties(self):
        return self.prepared.properties

    @property
    def problems(self) -> pd.DataFrame:
        """Problems of the main track (rejected models, DNF, track problems...)."""
        return self.verdict.problems

    @property
    def provenance(self):
        return self.verdict.provenance


class RealWorldTrackRefused(SrdashError):
    """The real-world track cannot be judged (no trust entry of a (dataset, method) under review)."""


@dataclass(frozen=True, eq=False)
class RealWorldInputs:
    """What the real-world track judges (:func:`realworld_inputs`): the arguments of
    :func:`srdash.judging.trust.realworld_verdict` and the notes on entries left out."""

    runs: pd.DataFrame
    entries: pd.DataFrame
    rules: object
    methods: tuple[str, ...]
    notes: tuple[str, ...]
