"""`srdash review` (the expert's trust review, a Voilà app) and `srdash trust export/import`."""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from pathlib import Path

import click

from srdash.cli._common import fail_cleanly, jobs_option, rules_reference

#: Environment variables read by the review notebook (``ReviewApp.from_environment``).
ENVIRONMENT = {
    "SRDASH_INPUT": "results file or folder (absent: three datasets of the built-in demo competition)",
    "SRDASH_JUDGE": "the judge's name (required)",
    "SRDASH_STORE": "trust store file (default: trust.sqlite in srdash's user data directory)",
    "SRDASH_RULES": "rules preset or .toml file (default: srbench2022-realworld)",
    "SRDASH_DATA_DIR": "folder with the datasets' test files (<dataset>_test.csv), for the figures",
    "SRDASH_DATASETS": "dataset table giving each dataset's feature names (optional)",
    "SRDASH_TRUST_INPUT": "'rank' or 'rating': overrides the rules' choice",
    "SRDASH_ORGANISER": "1: show the organiser's panel (agreement, unblinding, leaderboard)",
    "SRDASH_JOBS": "worker processes for simplifying models (default: 1)",
}
NOTEBOOK_NAME = "review.ipynb"
_LOCAL_ADDRESSES = ("127.0.0.1", "localhost", "::1")


def _check_rules(ctx, param, value):
    """:func:`rules_reference`, for rules that ask for trust (a ``trust`` criterion)."""
    from srdash.errors import SrdashError
    from srdash.judging.rules import load_rules
    from srdash.judging.trust import review_settings

    try:
        review_settings(load_rules(value))
    except SrdashError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from exc
    return rules_reference(ctx, param, value)


def review_environment(*, judge: str, store: Path, rules: str, input_path: Path | None = None,
                       data_dir: Path | None = None, datasets: Path | None = None, trust_input: str | None = None,
                       organiser: bool = False, jobs: int = 1, base=None) -> dict[str, str]:
    """Environment of the Voilà process: ``base`` (default ``os.environ``) without any inherited
    review variable, plus the given options (paths made absolute: Voilà runs in the notebook's folder).

    Examples
    --------
    >>> env = review_environment(judge="ann", store=Path("t.sqlite"), rules="srbench2022-realworld",
    ...                          base={"SRDASH_ORGANISER": "1", "HOME": "/home/ann"})
    >>> sorted(env), Path(env["SRDASH_STORE"]).is_absolute()
    (['HOME', 'SRDASH_JOBS', 'SRDASH_JUDGE', 'SRDASH_RULES', 'SRDASH_STORE'], True)
    """
    env = {k: v for k, v in (os.environ if base is None else base).items()
           if k not in ENVIRONMENT and k != "SRDASH_TOKEN"}
    env.update({"SRDASH_JUDGE": judge, "SRDASH_STORE": str(Path(store).resolve()), "SRDASH_RULES": str(rules),
                "SRDASH_JOBS": str(int(jobs))})
    for name, path in (("SRDASH_INPUT", input_path), ("SRDASH_DATA_DIR", data_dir), ("SRDASH_DATASETS", datasets)):
        if path is not None:
            env[name] = str(Path(path).resolve())
    if trust_input:
        env["SRDASH_TRUST_INPUT"] = trust_input
    if organiser:
        env["SRDASH_ORGANISER"] = "1"
    return env


def _token_config(token: str) -> Path:
    """A private folder with a voila.json holding the token (kept off the command line, which
    other users of the machine can read)."""
    folder = Path(tempfile.mkdtemp(prefix="srdash-review-"))
    config = folder / "voila.json"
    config.write_text(json.dumps({"Voila": {"token": token}}))
    config.chmod(stat.S_IRUSR | stat.S_IWUSR)
    return folder


@click.command("review")
@click.argument("input_path", metavar="[INPUT]", required=False, type=click.Path(exists=True, path_type=Path))
@click.option("--judge", required=True, help="Your name, as stored with each of your entries.")
@click.option("--rules", default="srbench2022-realworld", show_default=True, callback=_check_rules,
              help="Rules preset or .toml rules file: which run represents a method and how trust is entered.")
@click.option("--store", "store_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Trust store file (created if missing). Default: trust.sqlite in srdash's user data "
                   "directory (printed at start).")
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
@click.option("--port", default=0, type=click.IntRange(0, 65535), help="Port to listen on. Default: a free port.")
@click.option("--ip", default="127.0.0.1", show_default=True,
              help="Address to listen on. The default serves this machine only; any other address needs --token.")
@click.option("--token", envvar="SRDASH_TOKEN", show_envvar=True,
              help="Secret that visitors must give (URL ?token=SECRET). Required with --ip. The environment "
                   "variable keeps it off the command line, which other users of the machine can read.")
@jobs_option("simplifying the representative models")
@click.option("--print-command", is_flag=True,
              help="Print the environment and the Voilà command line instead of running them.")
def review(input_path, judge, rules, store_path, data_dir, datasets_path, trust_input, organiser, port, ip,
           token, jobs, print_command):
    """Open the trust review of the models in INPUT for the judge NAME.

    INPUT is what `srdash score` reads (one row per method, dataset and run).
    Each method is represented on each dataset by one model (the rules say
    which run); the judge sees them blinded as Model A, B, ... and enters a
    trust rank (1 = most trusted) or a 1-5 rating, plus an optional comment.
    Every change is saved at once to the trust store; stop at any time and
    come back later. Without INPUT, three datasets of the built-in demo.

    The page is served by Voilà at http://IP:PORT/ (printed when ready) until
    you press Ctrl-C.
    """
    from srdash.apps import server as app
    from srdash.judging.trust import TrustStore, default_store_path

    if ip not in _LOCAL_ADDRESSES and not token:
        raise click.UsageError(f"Serving on {ip} lets other machines open the review: give a secret with "
                               "--token SECRET (visitors then open the URL with ?token=SECRET).")
    with fail_cleanly():
        if input_path is not None:
            from srdash.io.loading import load_results

            results = load_results(input_path, datasets=datasets_path)
            click.echo(f"{input_path}: {len(results.table)} runs of {results.table['method'].nunique()} "
                       f"methods on {results.table['dataset'].nunique()} datasets.", err=True)
        elif datasets_path is not None:
            raise click.UsageError("--datasets only applies to an INPUT; the demo has its own feature names.")
        store_path = store_path or default_store_path()
        with TrustStore(store_path) as store:  # created and checked now, so a bad file is reported here
            entries = len(store.entries())
        click.echo(f"Trust store: {Path(store_path).resolve()} ({entries} entries)")
        notebook = app.notebook_path(NOTEBOOK_NAME)
        chosen_port = port or app.free_port(ip if ip != "localhost" else "127.0.0.1")
        # No preheated kernel: it would run the notebook before the judge's latest entries.
        command = app.voila_command(notebook, port=chosen_port, ip=ip, preheat=False)
        env = review_environment(judge=judge, store=store_path, rules=rules, input_path=input_path,
                                 data_dir=data_dir, datasets=datasets_path, trust_input=trust_input,
                                 organiser=organiser, jobs=jobs)
        url = f"http://{ip}:{chosen_port}/"
        shown_url = f"{url}?token={token}" if token else url
        if print_command:
            for name in ENVIRONMENT:
                if name in env:
                    click.echo(f"{name}={env[name]}")
            click.echo(" ".join(command) + (" (token in a private voila.json)" if token else ""))
            return
        config_dir = None
        if token:
            config_dir = _token_config(token)
            env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(filter(None, [str(config_dir),
                                                                      env.get("JUPYTER_CONFIG_PATH")]))

        def announce(line: str) -> None:
            if line.startswith("srdash dashboard:"):
                click.echo(f"Trust review for {judge}: {shown_url}  (Ctrl-C to stop)")
            else:
                click.echo(line)

        click.echo(f"Starting Voilà on {url} ...", err=True)
        try:
            code = app.serve_dashboard(command, env, url=url, announce=announce)
        finally:
            if config_dir is not None:
                shutil.rmtree(config_dir, ignore_errors=True)
    if code:
        raise click.ClickException(f"Voilà stopped with exit code {code}.")


@click.group("trust")
def trust() -> None:
    """Export or import the trust entries of the review (CSV)."""


_store_option = click.option(
    "--store", "store_path", type=click.Path(dir_okay=False, path_type=Path),
    help="Trust store file. Default: trust.sqlite in srdash's user data directory.")


@trust.command("export")
@_store_option
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="CSV file to write: judge, dataset, method, kind, value, comment, updated_at.")
def export_command(store_path, output):
    """Write every judge's current trust entries to a CSV file."""
    from srdash.judging.trust import TrustStore

    with fail_cleanly(), TrustStore(store_path) as store:
        count = store.export_csv(output)
        click.echo(f"Wrote {count} entries from {store.path} to {output}", err=True)


@trust.command("import")
@click.argument("csv_path", metavar="FILE", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@_store_option
@click.option("--judge", help="The judge of every row, when FILE has no 'judge' column.")
@click.option("--kind", type=click.Choice(["rank", "rating"]),
              help="Whether the values are ranks (1 = most trusted) or 1-5 ratings, when FILE does not say "
                   "(a 'kind' column, or a value column called rank, rating or expert_score).")
def import_command(csv_path, store_path, judge, kind):
    """Read trust entries from FILE into the store (all rows or none).

    FILE has columns dataset (or task), method and value (or expert_score,
    rating, rank), optionally judge, kind and comment. Each entry is kept in
    the store's history with the file's name.
    """
    from srdash.judging.trust import TrustStore

    with fail_cleanly(), TrustStore(store_path) as store:
        count = store.import_csv(csv_path, judge=judge, kind=kind)
        click.echo(f"Imported {count} entries from {csv_path} into {store.path}", err=True)
