"""What a served review is of: its options (``SRDASH_REVIEW``), the visitor's key, and the inputs of its
:class:`~srdash.apps.review.app.ReviewApp`, read and prepared (the slow part of opening a review, and no widget)."""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

import pandas as pd

from srdash.demo.competition import cached_demo
from srdash.errors import SrdashError
from srdash.io.loading import Results, load_results
from srdash.judging.competition import competition_from_json
from srdash.judging import snapshot
from srdash.judging.pipeline import prepare_competition, prepare_runs, prepared_from_snapshot
from srdash.judging.preparation import check_datasets_under_review
from srdash.judging.representative import representative_choice, representative_runs
from srdash.judging.rules import load_rules
from srdash.judging.trust import TrustStore, review_settings
from srdash.apps.review.app import DEFAULT_RULES, ReviewApp
from srdash.apps.review.kept import KeptCardValues

__all__ = ["REVIEW_OPTIONS", "DEMO_DATASETS", "access_key_from_query", "review_options",
           "review_inputs_from_environment", "review_app_from_environment", "prepared_runs_under_review",
           "representatives_under_review", "review_data_dir"]

# Three demo datasets are plenty to try the review (and simplify quickly).
DEMO_DATASETS = ("exact_formula_medium", "featureselection_easy", "extrapolation_easy")


def _environment_flag(value: str) -> bool:
    return value.strip().lower() in ("1", "true", "yes")


def demo_results(env: Mapping[str, str]):
    """Three datasets of the built-in demo, written once to the cache folder (with their test data)."""
    paths = cached_demo(cache_dir=env.get("SRDASH_CACHE_DIR", "").strip() or None)
    results = load_results(paths["results"], datasets=paths["datasets"])
    table = results.table[results.table["dataset"].isin(DEMO_DATASETS)].reset_index(drop=True)
    return replace(results, table=table), paths["results"].parent


def access_key_from_query(query: str | None) -> str | None:
    """The personal access key in a page's query string (``key=...``), or None.

    Voilà gives the kernel the page's query string (``QUERY_STRING``).

    Examples
    --------
    >>> access_key_from_query("token=abc&key=s3cr%2Dt")
    's3cr-t'
    >>> access_key_from_query("") is None
    True
    """
    from urllib.parse import parse_qs

    values = parse_qs(query or "").get("key")
    return values[-1] if values else None


#: The options of a review, as ``srdash review`` passes them: one JSON object in ``SRDASH_REVIEW``.
REVIEW_OPTIONS = {
    "input": "results file or folder (absent: three datasets of the built-in demo competition)",
    "competition": "a serialised competition (Competition.to_json()): its real-world track is reviewed",
    "judge": "the judge's name (unless access keys were issued)",
    "store": "trust store file (default: trust.sqlite in srdash's user data directory)",
    "rules": "rules preset or .toml file (default: srbench2022-realworld)",
    "data_dir": "folder with the datasets' test files (<dataset>_test.csv), for the figures",
    "datasets": "dataset table giving each dataset's feature names (optional)",
    "trust_input": "'rank' or 'rating': overrides the rules' choice",
    "organiser": "true: show the organiser's panel (agreement, unblinding, leaderboard)",
    "jobs": "worker processes for simplifying models (default: 1)",
}


def review_options(environ: Mapping[str, str]) -> dict:
    """The review's options from ``SRDASH_REVIEW`` (one JSON object; absent: none, the demo review).

    Examples
    --------
    >>> review_options({"SRDASH_REVIEW": '{"judge": "ann", "jobs": 2}'})
    {'judge': 'ann', 'jobs': 2}
    >>> review_options({"SRDASH_REVIEW": '{"juge": "ann"}'})
    Traceback (most recent call last):
    ...
    srdash.errors.SrdashError: SRDASH_REVIEW: unknown option 'juge'. Options: competition, data_dir, datasets, input, jobs, judge, organiser, rules, store, trust_input.
    """
    import json

    text = environ.get("SRDASH_REVIEW", "").strip()
    if not text:
        return {}
    try:
        options = json.loads(text)
    except ValueError as exc:
        raise SrdashError(f"SRDASH_REVIEW is not a JSON object: {exc}. Start the review with `srdash review`.") from exc
    if not isinstance(options, dict):
        raise SrdashError("SRDASH_REVIEW must be a JSON object of options. Start the review with `srdash review`.")
    for key in options:
        if key not in REVIEW_OPTIONS:
            raise SrdashError(f"SRDASH_REVIEW: unknown option {key!r}. Options: {', '.join(sorted(REVIEW_OPTIONS))}.")
    return options


def _option(options: Mapping, key: str) -> str:
    value = options.get(key)
    if value is None or value is False:
        return ""
    return "1" if value is True else str(value)


def review_inputs_from_environment(environ: Mapping[str, str], *, progress=None, stage=None,
                                   access_key: str | None = None, kept_only: bool = False) -> dict | None:
    """The arguments of the :class:`ReviewApp` described by the environment variables of ``srdash review``.

    The slow part of opening a review, and no widget: ``ReviewApp(**inputs)``
    builds the app.

    The options (:data:`REVIEW_OPTIONS`) come as one JSON object in ``SRDASH_REVIEW``. Only the
    candidates for representative run are simplified (usually one run per
    method and dataset), not every run.

    Parameters
    ----------
    environ : mapping
    progress : callable, optional
        ``progress(done, total, counts)``, as :func:`srdash.judging.pipeline.prepare_runs` calls it.
    stage : callable, optional
        Called with a line of text saying what is being done.
    access_key : str, optional
        The visitor's personal key. Once the organiser issued keys (``srdash
        trust issue-key``), it alone says who the judge is and whether they
        are the organiser (the options ``judge`` and ``organiser`` are then
        ignored), and a missing or invalid key is refused.
    kept_only : bool
        True: only what is already prepared, read at once; None when the review's competition is not
        kept prepared in the cache (``srdash review`` keeps it before serving) or the review is of a
        results file rather than a competition. The key is checked either way.

    Returns
    -------
    dict or None
        The keyword arguments of :class:`ReviewApp`.

    Raises
    ------
    SrdashError
        A missing judge or key, unknown rules, unreadable results, a missing
        or unreadable store.
    """
    stage = stage or (lambda text: None)
    options = review_options(environ)
    # The store first: when the organiser issued access keys, the key (not the environment) says
    # who the visitor is and whether they are the organiser.
    store_path = _option(options, "store").strip()
    store = TrustStore(store_path or None, create=not store_path)
    try:
        if store.keys_issued:
            judge, role = store.identify(access_key)
            organiser = role == "organiser"
        else:
            judge = _option(options, "judge").strip()
            organiser = _environment_flag(_option(options, "organiser"))
            if not judge:
                raise SrdashError("No judge's name: start the review with `srdash review --judge NAME` "
                                  "(the review's 'judge').")
    except SrdashError:
        store.close()
        raise
    try:  # the store is closed again if the rest fails
        rules = load_rules(_option(options, "rules").strip() or DEFAULT_RULES)
        settings = review_settings(rules, trust_input=_option(options, "trust_input").strip() or None)
        raw_jobs = _option(options, "jobs").strip() or "1"
        if not raw_jobs.isdigit() or int(raw_jobs) < 1:
            raise SrdashError(f"The review's 'jobs' must be a positive integer (worker processes). Got {raw_jobs!r}.")
        input_path = _option(options, "input").strip()
        data_dir = _option(options, "data_dir").strip() or None
        stage("Loading the results…")
        competition_text = _option(options, "competition").strip()
        competition = None
        if competition_text:
            # The competition's real-world track: its rules, and the methods and datasets under review
            # (after the qualification stage), from the prepared competition the verdict is judged from.
            competition = competition_from_json(competition_text)
            rules = competition.realworld.rules
            settings = review_settings(rules, trust_input=_option(options, "trust_input").strip() or None)
            data_dir = review_data_dir(competition, data_dir)
            source = f"{competition.title} ({competition.source})"
            prepared = None
            if kept_only:
                found = prepared_from_snapshot(competition)
                if found is None:
                    store.close()
                    return None
                snapshot.replay_warnings(found.warnings)   # as prepare_competition does when it reads the snapshot
                prepared = found.prepared
            representatives, runs, features = representatives_under_review(competition, progress=progress,
                                                                           stage=stage, prepared=prepared)
            # the cards' LaTeX and predictions, kept by `srdash review` (prepare_review) for every judge
            return {"representatives": representatives, "store": store, "judge": judge, "rules": rules,
                    "settings": settings, "methods": sorted(set(runs["method"])), "features": features,
                    "data_dir": data_dir, "organiser": organiser, "source": source, "competition": competition,
                    "kept": KeptCardValues()}
        if kept_only:
            store.close()
            return None
        if input_path:
            results = load_results(input_path, datasets=_option(options, "datasets").strip() or None)
            source = input_path
        else:
            results, demo_folder = demo_results(environ)
            data_dir = data_dir or demo_folder
            source = "three datasets of the built-in demo competition"
        accuracy = next((c for c in rules.criteria if c.column == "r2_test"), None)

        def prepare(candidates: pd.DataFrame) -> pd.DataFrame:
            stage(f"Simplifying the {len(candidates)} candidate models (once; they are cached for next time)…")
            return prepare_runs(Results(candidates, results.features, results.sources), jobs=int(raw_jobs),
                                progress=progress)

        representatives = representative_runs(results.table, choice=representative_choice(rules),
                                              decimals=accuracy.decimals if accuracy else 3, prepare=prepare)
        return {"representatives": representatives, "store": store, "judge": judge, "rules": rules,
                "settings": settings, "methods": sorted(set(results.table["method"])), "features": results.features,
                "data_dir": data_dir, "organiser": organiser, "source": source, "competition": competition}
    except BaseException:
        store.close()
        raise


def prepared_runs_under_review(competition, *, progress=None, stage=None, prepared=None
                               ) -> tuple[pd.DataFrame, dict]:
    """The prepared runs of the methods and datasets under review, and each dataset's feature names.

    Read from the prepared competition (:func:`srdash.judging.pipeline.prepare_competition`: the snapshot
    ``srdash review`` prepared once for every judge, and ``srdash score`` and ``srdash serve`` share), so a
    judge's kernel neither reads the results and the dataset descriptions again nor parses a ground truth.
    The real-world verdict picks its representatives from the same runs. Without a snapshot (another
    version of srdash, a changed input file) the competition is prepared here, once, and kept.

    Parameters
    ----------
    competition : Competition
        With a real-world track.
    progress, stage : callable, optional
        As :func:`~srdash.judging.pipeline.prepare_competition` calls them.
    prepared : PreparedCompetition, optional
        The competition already prepared (read from its snapshot by the caller): not prepared again.

    Raises
    ------
    SrdashError
        When the competition has no real-world track, or its inputs cannot be read.
    """
    if competition.realworld is None:
        raise SrdashError(f"The competition {competition.source} has no real-world track: add a [realworld] "
                          "table naming the trust store (docs/competition.md).")
    stage = stage or (lambda text: None)
    if prepared is None:
        stage("Reading the prepared competition…")
        prepared = prepare_competition(competition, progress=progress, stage=stage)
    runs = prepared.runs
    if runs is None:
        raise SrdashError(f"The competition {competition.source} judges submissions, not models: there is no "
                          "model to review.")
    check_datasets_under_review(competition, runs["dataset"])
    chosen = competition.realworld.datasets
    if chosen:
        runs = runs[runs["dataset"].astype(str).isin(chosen)]
    return runs.reset_index(drop=True), dict(prepared.results.features)


def representatives_under_review(competition, *, progress=None, stage=None, prepared=None
                                 ) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """The representative models a competition's judges review, the runs they come from and the features.

    As :func:`prepared_runs_under_review` reads them; each method's representative run on each dataset is the
    competition's real-world rules' choice.

    Parameters
    ----------
    competition : Competition
        With a real-world track.
    progress, stage, prepared : optional
        As :func:`prepared_runs_under_review` takes them.

    Returns
    -------
    representatives, runs : DataFrame
    features : dict of dataset to feature names
    """
    runs, features = prepared_runs_under_review(competition, progress=progress, stage=stage, prepared=prepared)
    rules = competition.realworld.rules
    accuracy = next((c for c in rules.criteria if c.column == "r2_test"), None)
    representatives = representative_runs(runs, choice=representative_choice(rules),
                                          decimals=accuracy.decimals if accuracy else 3)
    return representatives, runs, features


def review_data_dir(competition, data_dir: str | None) -> str | None:
    """The folder of a review's test files: ``--data``, else the folder of the competition's descriptions."""
    if data_dir is None and competition.descriptions is not None:
        return str(competition.descriptions.parent)
    return data_dir


def review_app_from_environment(environ: Mapping[str, str], *, progress=None, stage=None,
                                access_key: str | None = None) -> ReviewApp:
    """Build the :class:`ReviewApp` described by the environment variables of ``srdash review``.

    See :func:`review_inputs_from_environment`.
    """
    return ReviewApp(**review_inputs_from_environment(environ, progress=progress, stage=stage,
                                                      access_key=access_key))
