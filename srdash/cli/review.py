"""`srdash review` (the expert's trust review, a Voilà app) and `srdash trust export/import`."""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations

import functools
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import click

from srdash.apps import server as app
from srdash.analysis import costs
from srdash.cli._options import bounded
from srdash.cli._common import fail_cleanly, jobs_option, refuse_output_onto_input, rules_reference
from srdash.errors import RulesError, SrdashError
from srdash.io.csvsafe import write_csv
from srdash.judging.rules import load_rules
from srdash.judging.competition import competition_from_json, is_competition_file, load_competition
from srdash.io.private import open_private

#: The environment variable the review notebook reads: its options as one JSON object
#: (:data:`srdash.apps.review.REVIEW_OPTIONS`).
ENVIRONMENT = {"SRDASH_REVIEW": "the review's options (judge, store, rules, input or competition, ...) as JSON"}
NOTEBOOK_NAME = "review.ipynb"
_LOCAL_ADDRESSES = ("127.0.0.1", "localhost", "::1")


def _check_rules(ctx, param, value):
    """:func:`rules_reference`, for rules that ask for trust (a ``trust`` criterion)."""
    from srdash.judging.trust import review_settings

    try:
        review_settings(load_rules(value))
    except SrdashError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from exc
    return rules_reference(ctx, param, value)


def _review_competition(path: Path, *, rules: str, store_path, datasets_path, stage):
    """The competition of ``srdash review competition.toml``: its real-world track says the store, the rules
    and the datasets under review; the qualification stage says the methods."""
    from srdash.judging.pipeline import results_under_review

    competition = load_competition(path)
    if competition.realworld is None:
        raise click.UsageError(f"{path} has no real-world track to review: add a [realworld] table naming the "
                               "trust store and the datasets under review (docs/competition.md).")
    clashing = [name for name, value in (("--rules", rules != "srbench2022-realworld" and rules),
                                         ("--store", store_path), ("--datasets", datasets_path)) if value]
    if clashing:
        raise click.UsageError(f"{path} is a competition file: its [realworld] table already says what "
                               f"{', '.join(clashing)} would. Change the competition file instead.")
    results = results_under_review(competition)
    table = results.table
    stage(f"{path}: {table['method'].nunique()} methods under review "
        f"({', '.join(sorted(table['method'].astype(str).unique()))}) on {table['dataset'].nunique()} datasets.")
    return competition, competition.realworld.store


def _checked_inputs(input_path, stage, *, rules: str, store_path, datasets_path) -> dict:
    """What the review reads, checked (run by :func:`srdash.apps.server.start_in_a_child`): the input (the demo's
    competition file without INPUT), its competition, the trust store, its rules, entries and keys."""
    from srdash.judging.trust import TrustStore, default_store_path

    competition = None
    try:
        if input_path is None:  # the built-in demo competition's real-world track, with its own trust store
            from srdash.demo.competition import cached_demo

            input_path = cached_demo()["competition"]
            stage(f"No INPUT: the real-world track of the built-in demo competition ({input_path}).")
        if is_competition_file(input_path):
            competition, store_path = _review_competition(input_path, rules=rules, store_path=store_path,
                                                          datasets_path=datasets_path, stage=stage)
            rules = competition.realworld.rules.source.removeprefix("preset:")
        else:
            from srdash.io.loading import load_results

            results = load_results(input_path, datasets=datasets_path)
            stage(f"{input_path}: {len(results.table)} runs of {results.table['method'].nunique()} "
                f"methods on {results.table['dataset'].nunique()} datasets.")
    except click.UsageError as error:
        return {"usage": error.message}
    # An explicit --store must exist (a mistyped path never becomes a new, empty store); the
    # default store is created on first use.
    create = store_path is None
    store_path = store_path or default_store_path()
    with TrustStore(store_path, create=create) as store:  # checked now, so a bad file is reported here
        entries = len(store.entries())
        keys = store.keys_issued
    return {"input": str(input_path), "competition": None if competition is None else competition.to_json(),
            "store": str(store_path), "rules": rules, "entries": entries, "keys": keys}


def prepare_review(competition, *, stage, data_dir: Path | None = None) -> None:
    """Prepare ``competition`` once for every judge (``srdash review``'s child does, after its check).

    The prepared competition is kept whole in srdash's cache (:mod:`srdash.judging.snapshot`, shared with
    ``srdash score`` and ``srdash serve``): each judge's kernel reads it
    (:func:`srdash.apps.review.environment.prepared_runs_under_review`) instead of reading the results and
    the dataset descriptions again, and a kernel that starts meanwhile waits for it. An error is announced;
    each judge's page then reports it too.

    Parameters
    ----------
    competition : Competition
        With a real-world track.
    stage : callable
        Called with a line saying how the preparation went.
    data_dir : path, optional
        The review's ``--data`` (default: the folder of the competition's descriptions): the cards' LaTeX and
        test predictions are computed once here too and kept for every judge (:mod:`srdash.apps.review.kept`).
    """
    from srdash.judging.pipeline import prepare_competition  # lazy: pandas, numpy (the CLI's import path has none)

    started = time.monotonic()
    try:
        prepared = prepare_competition(competition)
    except Exception as error:  # noqa: BLE001 - told to the organiser; each judge's page shows it too
        stage(f"Could not prepare the competition: {error}")
        return
    stage(f"Competition prepared for every judge ({app.prepared_runs_said(prepared)}, "
          f"{time.monotonic() - started:.1f} s).")
    from srdash.apps.review.environment import representatives_under_review, review_data_dir  # lazy: ipywidgets
    from srdash.apps.review.kept import keep_card_values  # lazy: sympy

    started = time.monotonic()
    try:
        representatives, _, features = representatives_under_review(competition)
        kept = keep_card_values(representatives, features,
                                review_data_dir(competition, None if data_dir is None else str(data_dir)))
    except Exception as error:  # noqa: BLE001 - each judge's kernel then computes its cards itself
        stage(f"Could not prepare the cards' formulas, predictions and figures: {error}")
        return
    stage(f"The cards' formulas, predictions and figures kept for every judge ({kept} values, "
          f"{time.monotonic() - started:.1f} s).")


def review_environment(*, judge: str, store: Path, rules: str, input_path: Path | None = None,
                       data_dir: Path | None = None, datasets: Path | None = None, trust_input: str | None = None,
                       organiser: bool = False, jobs: int = 1, competition=None, base=None) -> dict[str, str]:
    """Environment of the Voilà process: ``base`` (default ``os.environ``) without any inherited review
    option, plus ``SRDASH_REVIEW``, the options as one JSON object (paths made absolute: Voilà runs in
    the notebook's folder).

    Examples
    --------
    >>> env = review_environment(judge="ann", store=Path("t.sqlite"), rules="srbench2022-realworld",
    ...                          base={"SRDASH_REVIEW": "{}", "HOME": "/home/ann"})
    >>> options = json.loads(env["SRDASH_REVIEW"])
    >>> sorted(env), options["judge"], Path(options["store"]).is_absolute()
    (['HOME', 'SRDASH_REVIEW'], 'ann', True)
    """
    env = {k: v for k, v in (os.environ if base is None else base).items()
           if k not in ENVIRONMENT and k != "SRDASH_TOKEN"}
    options = {"judge": judge, "store": str(Path(store).resolve()), "rules": str(rules), "jobs": int(jobs),
               "organiser": bool(organiser)}
    for key, path in (("input", input_path), ("data_dir", data_dir), ("datasets", datasets)):
        if path is not None:
            options[key] = str(Path(path).resolve())
    if trust_input:
        options["trust_input"] = trust_input
    if competition is not None:
        options["competition"] = competition.to_json()
    env["SRDASH_REVIEW"] = json.dumps(options, sort_keys=True)
    return env


def judge_link_hint(url: str) -> str:
    """What each judge adds to the announced ``url``: ``?key=`` when it has no query, else ``&key=``.

    Examples
    --------
    >>> judge_link_hint("http://127.0.0.1:8866/")
    '(each judge adds ?key=THEIR-KEY)'
    >>> judge_link_hint("http://127.0.0.1:8866/?token=abc")
    '(each judge adds &key=THEIR-KEY)'
    """
    return f"(each judge adds {'&' if '?' in url else '?'}key=THEIR-KEY)"


def token_config(token: str) -> Path:
    """A private folder with a voila.json holding the token (kept off the command line, which
    other users of the machine can read).

    Parameters
    ----------
    token : str
        Voilà's access token.

    Returns
    -------
    pathlib.Path
        A new temporary folder (mode 0700) holding ``voila.json`` (mode 0600 from its creation); the caller
        removes it.
    """
    folder = Path(tempfile.mkdtemp(prefix="srdash-review-"))
    with open_private(folder / "voila.json", "w", encoding="utf-8") as config:  # 0600 from its creation
        config.write(json.dumps({"Voila": {"token": token}}))
    return folder


@click.command("review")
@click.argument("input_path", metavar="[INPUT]", required=False, type=click.Path(exists=True, path_type=Path))
@click.option("--judge", help="Your name, as stored with each of your entries (required unless access keys "
                               "were issued: each judge then opens their personal link).")
@click.option("--rules", default="srbench2022-realworld", show_default=True, callback=_check_rules,
              help="Rules preset or .toml rules file: which run represents a method and how trust is entered.")
@click.option("--store", "store_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Trust store file (an existing one: create it with `srdash trust init`). Default: "
                   "trust.sqlite in srdash's user data directory (created if missing; printed at start).")
@click.option("--data", "data_dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Folder with each dataset's test data (<dataset>_test.csv, or a file whose name contains "
                   "the dataset's name and 'test'), to plot predictions against actual values.")
@click.option("--datasets", "datasets_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Dataset table (columns dataset, features) giving each dataset's feature names.")
@click.option("--trust-input", type=click.Choice(["rank", "rating"]),
              help="Enter trust ranks (1 = most trusted) or 1-5 ratings. Default: what the rules say (ranks).")
@click.option("--organiser", is_flag=True,
              help="Also show the organiser's panel: the judges' agreement, unblinding (which closes the "
                   "review) and the real-world leaderboard.")
@click.option("--port", default=0, type=bounded("port"), help="Port to listen on. Default: a free port.")
@click.option("--ip", default="127.0.0.1", show_default=True,
              help="Address to listen on. The default serves this machine only; any other address needs --token.")
@click.option("--visitors", type=bounded("review-visitors"), default=0, show_default=True,
              help="Keep this many judges' kernels ready (imports done) for the next judges who open their links "
                   "(each holds its memory while it waits); the page itself is built once its judge's key is "
                   "checked. 0: each judge's kernel starts when they open their link.")
@click.option("--token", envvar="SRDASH_TOKEN", show_envvar=True,
              help="Secret that visitors must give (URL ?token=SECRET). Required with --ip. The environment "
                   "variable keeps it off the command line, which other users of the machine can read.")
@jobs_option("simplifying the representative models")
@click.option("--print-command", is_flag=True,
              help="Print the environment and the Voilà command line instead of running them.")
def review(input_path, judge, rules, store_path, data_dir, datasets_path, trust_input, organiser, port, ip,
           visitors, token, jobs, print_command):
    """Open the trust review of the models in INPUT for the judge NAME.

    INPUT may be a competition file (competition.toml) with a [realworld]
    table: the review then shows the methods of the real-world track (after
    the qualification stage) on the datasets under review, with the track's
    rules and trust store, as `srdash score` judges them.

    INPUT is what `srdash score` reads (one row per method, dataset and run).
    Each method is represented on each dataset by one model (the rules say
    which run); the judge sees them blinded as Model A, B, ... and enters a
    trust rank (1 = most trusted) or a 1-5 rating, plus an optional comment.
    Every change is saved at once to the trust store; stop at any time and
    come back later. Without INPUT, the real-world track of the built-in demo
    competition (its qualified methods on three datasets, its own trust store).

    The page is served by Voilà at http://IP:PORT/ (printed when ready) until
    you press Ctrl-C.
    """
    if ip not in _LOCAL_ADDRESSES and not token:
        raise click.UsageError(f"Serving on {ip} lets other machines open the review: give a secret with "
                               "--token SECRET (visitors then open the URL with ?token=SECRET).")
    # The inputs are read and checked in a child process (a bad file is reported here, and no server starts):
    # this process supervises Voilà until Ctrl-C and never imports pandas or sympy.
    # A competition is then prepared once in that child, for every judge's kernel (which reads it: prepare_review).
    checked = []

    def check(stage) -> dict:
        checked.append(_checked_inputs(input_path, stage, rules=rules, store_path=store_path,
                                       datasets_path=datasets_path))
        return checked[0]

    def then(stage) -> None:
        if checked and checked[0].get("competition") is not None:
            prepare_review(competition_from_json(checked[0]["competition"]), stage=stage, data_dir=data_dir)

    checking = app.start_in_a_child(check, None if print_command else then,
                                    stage=lambda text: click.echo(text, err=True))
    try:
        with fail_cleanly():
            found = checking.result()
            if "usage" in found:
                raise click.UsageError(found["usage"])
            competition = None
            if found["competition"] is not None:
                competition = competition_from_json(found["competition"])
            input_path, store_path, rules = Path(found["input"]), Path(found["store"]), found["rules"]
            entries, keys = found["entries"], found["keys"]
            click.echo(f"Trust store: {Path(store_path).resolve()} ({entries} entries)")
            if not keys and not (judge or "").strip():
                raise click.UsageError("Missing option '--judge' (or issue personal access keys with "
                                       "`srdash trust issue-key`).")
            if keys:
                click.echo("Access keys are issued: each judge opens the review with their personal link "
                           "(`srdash trust issue-key`); --judge and --organiser are ignored.", err=True)
            notebook = app.notebook_path(NOTEBOOK_NAME)
            chosen_port = port or app.free_port(ip if ip != "localhost" else "127.0.0.1")
            # A kernel of the pool waits, its imports done, for its judge's request (srdash.apps.visit) and
            # builds the page then, from the judge's latest entries; the door checks the key before any kernel
            # is taken (srdash.apps.door).
            command = app.voila_command(notebook, port=chosen_port, ip=ip, preheat=visitors, review=True)
            env = review_environment(judge=judge or "", store=store_path, rules=rules,
                                     input_path=None if competition is not None else input_path,
                                     data_dir=data_dir, datasets=datasets_path, trust_input=trust_input,
                                     organiser=organiser, jobs=jobs, competition=competition)
            if visitors:  # where a waiting kernel asks Voilà for its visitor's request
                env["VOILA_APP_IP"] = app.local_address(ip)
            url = f"http://{ip}:{chosen_port}/"
            shown_url = f"{url}?token={token}" if token else url
            if print_command:
                for name in ENVIRONMENT:
                    if name in env:
                        click.echo(f"{name}={env[name]}")
                click.echo(f"JUPYTER_PATH={app.template_environment(env)['JUPYTER_PATH']}")
                click.echo(" ".join(command) + (" (token in a private voila.json)" if token else ""))
                return
            config_dir = None
            if token:
                config_dir = token_config(token)
                command = app.voila_command(notebook, port=chosen_port, ip=ip, preheat=visitors, review=True,
                                            config_dirs=[config_dir])

            def stage(line: str) -> None:
                if line.startswith("srdash dashboard:"):
                    who = f"for {judge}" if judge and not keys else judge_link_hint(shown_url)
                    click.echo(f"Trust review {who}: {shown_url}  (Ctrl-C to stop)")
                else:
                    click.echo(line)

            click.echo(f"Starting Voilà on {url} ...", err=True)
            try:
                code = app.serve_dashboard(command, env, url=url, stage=stage)
            finally:
                if config_dir is not None:
                    shutil.rmtree(config_dir, ignore_errors=True)
        if code:
            raise click.ClickException(f"Voilà stopped with exit code {code}.")
    finally:
        checking.stop()


@click.group("trust")
def trust() -> None:
    """Create the trust store, issue the judges' access keys, export or import entries (CSV)."""


def _existing(store_path):
    """The store's path; the default one when not given (every command but `trust init` needs an
    existing store: a mistyped path is an error, never a new empty store)."""
    from srdash.judging.trust import default_store_path

    return store_path if store_path is not None else default_store_path()


_store_option = click.option(
    "--store", "store_path", type=click.Path(dir_okay=False, path_type=Path),
    help="Trust store file. Default: trust.sqlite in srdash's user data directory.")


@trust.command("export")
@_store_option
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="CSV file to write: judge, dataset, method, kind, value, comment, updated_at.")
@click.option("--scores", is_flag=True,
              help="Write the jury's rubric scores instead: judge, dataset, method, criterion, score, updated_at.")
def export_command(store_path, output, scores):
    """Write every judge's current trust entries (or rubric scores) to a CSV file; the store is only read."""
    from srdash.judging.trust import TrustStore

    refuse_output_onto_input([("-o/--output", output)], [_existing(store_path)])
    with fail_cleanly(), TrustStore(_existing(store_path), read_only=True) as store:
        count = store.export_scores_csv(output) if scores else store.export_csv(output)
        click.echo(f"Wrote {count} {'scores' if scores else 'entries'} from {store.path} to {output}", err=True)


@trust.command("init")
@_store_option
@click.option("--seed", type=bounded("seed"), help="Seed of the blinded orders (default: a random one, kept in the store).")
def init_command(store_path, seed):
    """Create a new, empty trust store (refused when the file exists)."""
    from srdash.judging.trust import TrustStore, TrustStoreError

    with fail_cleanly():
        path = _existing(store_path)
        if path.exists():
            raise TrustStoreError(f"'{path}' already exists; give the path of a new file.")
        with TrustStore(path, seed=seed) as store:
            click.echo(f"Created the trust store {store.path}", err=True)


@trust.command("issue-key")
@_store_option
@click.option("--judge", required=True, help="The holder's name (a judge, or the organiser).")
@click.option("--organiser", is_flag=True, help="An organiser's key: every entry, agreement, revealing.")
@click.option("--url", help="The review's address (e.g. http://host:8866/?token=SECRET), to print the personal link.")
def issue_key_command(store_path, judge, organiser, url):
    """Issue a personal secret access key (printed once: only its hash is kept).

    Once any key is issued, the review admits only holders of a valid key
    (their link ends with key=KEY): a judge sees and changes only their own
    entries; only an organiser's key shows the organiser's panel.
    """
    from srdash.judging.trust import TrustStore

    with fail_cleanly(), TrustStore(_existing(store_path), create=False) as store:
        key = store.issue_key(judge, role="organiser" if organiser else "judge")
        click.echo(f"Key for {judge} ({'organiser' if organiser else 'judge'}); give it to them only:", err=True)
        if url:
            click.echo(f"{url}{'&' if '?' in url else '?'}key={key}")
        else:
            click.echo(key)


@trust.command("revoke")
@_store_option
@click.option("--judge", required=True, help="Whose keys to revoke.")
def revoke_command(store_path, judge):
    """Revoke every access key of a judge."""
    from srdash.judging.trust import TrustStore

    with fail_cleanly(), TrustStore(_existing(store_path), create=False) as store:
        count = store.revoke_keys(judge)
        click.echo(f"Revoked {count} key(s) of {judge}", err=True)


@trust.command("reopen")
@_store_option
@click.option("--by", "by", required=True, help="The organiser's name, kept in the store's history.")
@click.option("--reason", default="", help="Why, kept in the store's history.")
def reopen_command(store_path, by, reason):
    """Reopen a review the organiser closed (the judges can change their entries again)."""
    from srdash.judging.trust import TrustStore

    with fail_cleanly(), TrustStore(_existing(store_path), create=False) as store:
        if store.closed is None:
            click.echo("The review is open; nothing to do.", err=True)
            return
        store.reopen(by=by, reason=reason)
        click.echo(f"Reopened the review in {store.path}", err=True)


@trust.command("import")
@click.argument("csv_path", metavar="FILE", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@_store_option
@click.option("--judge", help="The judge of every row, when FILE has no 'judge' column.")
@click.option("--kind", type=click.Choice(["rank", "rating"]),
              help="Whether the values are ranks (1 = most trusted) or 1-5 ratings, when FILE does not say "
                   "(a 'kind' column, or a value column called rank, rating or expert_score).")
@click.option("--create", is_flag=True,
              help="Create the store when it does not exist (otherwise a missing store is an error: a mistyped "
                   "path must not start a new, empty store).")
def import_command(csv_path, store_path, judge, kind, create):
    """Read trust entries from FILE into the store (all rows or none).

    FILE has columns dataset (or task), method and value (or expert_score,
    rating, rank), optionally judge, kind and comment. Each entry is kept in
    the store's history with the file's name.
    """
    from srdash.judging.trust import TrustStore

    with fail_cleanly(), TrustStore(_existing(store_path), create=create) as store:
        count = store.import_csv(csv_path, judge=judge, kind=kind)
        click.echo(f"Imported {count} entries from {csv_path} into {store.path}", err=True)


def _explain_plan(scores, rubric, seconds: float) -> int:
    """Say what ``--explain`` will combine and about how long it takes; the largest set of jurors it leaves
    out (two, or one past :data:`srdash.analysis.costs.MAX_EXPLAIN_COMBINATIONS`)."""
    jurors = int(scores["judge"].nunique())
    removed = costs.explain_max_removed(jurors)
    criteria = len(rubric.criteria)
    # the certificate's variants: the other normalisation, each criterion left out, equal weights
    variants = 1 + (criteria if criteria > 1 else 0) + (len({c.weight for c in rubric.criteria}) > 1)
    combinations = costs.explain_combinations(jurors, removed) + variants
    if removed < 2 and jurors > 2:
        click.echo(f"--explain: leaving out every pair of the {jurors} jurors would be "
                   f"{costs.explain_combinations(jurors, 2):,} combinations of the scores, more than the bound of "
                   f"{costs.MAX_EXPLAIN_COMBINATIONS} (srdash.analysis.costs): jurors are left out one at a time.",
                   err=True)
    click.echo(f"--explain: up to {combinations:,} combinations of the scores (each juror"
               f"{' and each pair of jurors' if removed >= 2 else ''} left out, and {variants} variants of the "
               f"rubric), about {combinations * seconds:.0f} s.", err=True)
    return removed


def _rubric(rules):
    from srdash.judging.jury import rubric_from_rules

    rubric = rubric_from_rules(rules)
    if rubric is None:
        raise RulesError(f"The rules '{rules}' declare no [rubric]; a jury needs one (e.g. the preset "
                         "srbench2023-track2; see docs/rules.md).")
    return rubric


@trust.command("import-scores")
@click.argument("csv_path", metavar="FILE", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@_store_option
@click.option("--rules", required=True, callback=rules_reference,
              help="Rules preset or .toml file with the jury's [rubric] (e.g. srbench2023-track2).")
@click.option("--judge", help="The juror of every row, when FILE has no 'judge' column.")
def import_scores_command(csv_path, store_path, rules, judge):
    """Read jurors' rubric scores from FILE into the store (all rows or none).

    FILE has columns judge, dataset, method, criterion and score (one row per
    juror, entry and criterion); every score is checked against the rubric.
    """
    from srdash.judging.trust import TrustStore

    with fail_cleanly():
        rubric = _rubric(rules)
        with TrustStore(_existing(store_path), create=False) as store:
            count = store.import_scores_csv(csv_path, rubric, judge=judge)
            click.echo(f"Imported {count} scores from {csv_path} into {store.path}", err=True)


@trust.command("jury")
@_store_option
@click.option("--rules", required=True, callback=rules_reference,
              help="Rules preset or .toml file with the jury's [rubric] (e.g. srbench2023-track2).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the table (one row per entry) to this CSV file.")
@click.option("--explain", is_flag=True,
              help="Also say what would change the jury's first choice on each dataset: the fewest jurors left "
                   "out, the other normalisation, a rubric criterion left out.")
@click.option("--model", "show_model", is_flag=True,
              help="Also fit the jury model (a second opinion): Plackett-Luce and Bradley-Terry strengths with "
                   "bootstrap intervals, Krippendorff's alpha with its interval, each juror's agreement and severity.")
def jury_command(store_path, rules, output, explain, show_model):
    """The jury's verdict: each entry's mean score and mean per-juror z-score, agreement and flags.

    The store is only read. The score the rules rank by (their
    [rubric] normalisation) gives the rank (1 = best).
    """
    from srdash.judging.jury import jury_summary
    from srdash.judging.trust import TrustStore

    refuse_output_onto_input([("-o/--output", output)],
                             [_existing(store_path), rules if str(rules).endswith(".toml") else None])
    with fail_cleanly():
        rubric = _rubric(rules)
        with TrustStore(_existing(store_path), read_only=True) as store:
            scores = store.jury_scores()
        started = time.perf_counter()
        summary = jury_summary(scores, rubric)
        seconds = time.perf_counter() - started  # one combination of the scores: --explain's unit of work
        table = summary.table.sort_values(["dataset", "rank", "method"], ignore_index=True)
        ranked_by = "mean score" if rubric.normalisation == "none" else "mean per-juror z-score"
        click.echo(f"Ranked by the {ranked_by} (rules: {rules}); both are shown.")
        shown = table[["dataset", "method", "score", "score_z", "jurors", "rank", "spread", "flagged"]]
        click.echo(shown.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        for row in summary.agreement.itertuples():
            w = "undefined (fewer than 2 complete jurors)" if row.kendalls_w != row.kendalls_w else \
                f"{row.kendalls_w:.3f}"
            click.echo(f"{row.dataset}: Kendall's W {w} over {row.jurors} juror(s) who scored all "
                       f"{row.entries} entries")
        for row in summary.flags.itertuples():
            click.echo(f"Flag: {row.dataset} / {row.method}: the jurors differ by {row.spread:g} "
                       f"(more than {rubric.disagreement:g}): {row.scores}")
        for row in summary.calibration.itertuples():
            lean = "lenient" if row.offset > 0 else "severe" if row.offset < 0 else "on the mark"
            click.echo(f"Calibration: {row.judge} on {row.dataset} scored {row.score:g} against {row.reference:g} "
                       f"({row.offset:+g}, {lean})")
        for row in summary.problems.itertuples():
            click.echo(f"Left out: {row.judge} on {row.dataset} / {row.method}: {row.detail}", err=True)
        if explain:
            from srdash.analysis.certificate import jury_certificate, jury_certificate_text

            click.echo(jury_certificate_text(jury_certificate(scores, rubric,
                                                              max_removed=_explain_plan(scores, rubric, seconds))))
        if show_model:
            from srdash.analysis.jury_model import jury_model_text, rubric_jury_model

            stage = functools.partial(click.echo, err=True)
            click.echo(jury_model_text(rubric_jury_model(summary, stage=stage)))
        if output is not None:
            try:
                with open_private(output, "w", newline="", encoding="utf-8") as handle:  # jurors' scores: 0600
                    write_csv(table, handle, index=False)
            except OSError as exc:
                raise click.ClickException(f"Cannot write '{output}': {exc}.") from exc
            click.echo(f"Wrote {len(table)} entries to {output}", err=True)
