"""Pieces shared by the CLI commands."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import click

from srdash.errors import SrdashError


def _load_rules(ctx, param, value):
    from srdash.judging.rules import load_rules

    try:
        return load_rules(value)
    except SrdashError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from exc


def rules_reference(ctx, param, value):
    """Click callback: check the rules now; pass on the preset name or the absolute path of the file
    (for a process started elsewhere, e.g. the Voilà app). None stays None."""
    if value is None:
        return None
    from srdash.judging.rules import load_rules

    try:
        load_rules(value)
    except SrdashError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from exc
    path = Path(value)
    return str(path.resolve()) if path.suffix == ".toml" and path.exists() else value


rules_option = click.option(
    "--rules", default="srbench2022", show_default=True, callback=_load_rules,
    help="A rules preset name (srbench2022, srbench2022-as-run, ...; see `srdash rules`) "
         "or the path of a .toml rules file (format: docs/rules.md).")


def prepare_options(command):
    """The options of the expensive step (model simplification) shared by every judging command."""
    for option in reversed((
        click.option("--timeout", default=10.0, show_default=True, type=click.FloatRange(min=0, min_open=True),
                     help="Hard time limit in seconds (CPU time) for each model's simplification."),
        click.option("--jobs", default=1, show_default=True, type=click.IntRange(min=1),
                     help="Worker processes for simplification."),
        click.option("--cache", "cache", type=click.Path(path_type=Path),
                     help="Complexity cache file (default: srdash's cache in your user cache directory)."),
        click.option("--no-cache", is_flag=True, help="Do not read or write the complexity cache."),
    )):
        command = option(command)
    return command


def serve_notebook(notebook_name: str, env: dict, *, port: int, ip: str, preheat: bool = False,
                   print_command: bool = False, what: str = "dashboard", variables=None) -> None:
    """Serve one of srdash's notebooks with Voilà until Ctrl-C (``env`` from :func:`srdash.apps.server.dashboard_environment`).

    With ``print_command``, print the notebook's environment ``variables``
    (default: all of :data:`srdash.apps.server.ENVIRONMENT`) and the Voilà command
    line instead.
    """
    from srdash.apps import server as app

    chosen_port = port or app.free_port(ip)
    command = app.voila_command(app.notebook_path(notebook_name), port=chosen_port, ip=ip, preheat=preheat)
    url = f"http://{ip}:{chosen_port}/"
    if print_command:
        for name in app.ENVIRONMENT if variables is None else variables:
            if name in env:
                click.echo(f"{name}={env[name]}")
        click.echo(" ".join(command))
        return
    if ip not in ("127.0.0.1", "localhost", "::1"):
        click.secho(f"Warning: serving on {ip}: anyone who can reach this address can open the {what}.",
                    fg="yellow", err=True)
    click.echo(f"Starting Voilà on {url} ...", err=True)
    code = app.serve_dashboard(command, env, url=url, announce=click.echo)
    if code:
        raise click.ClickException(f"Voilà stopped with exit code {code}.")


@contextlib.contextmanager
def fail_cleanly():
    """Turn srdash's own errors into a clean CLI error (message, exit code 1)."""
    try:
        yield
    except SrdashError as exc:
        raise click.ClickException(str(exc)) from exc


@contextlib.contextmanager
def progress_bar(description: str):
    """A tqdm progress bar on stderr, fed by ``progress(done, total, counts)`` calls.

    ``progress.stage(text)`` renames the bar for the next step of the work.
    """
    from tqdm import tqdm

    bar = None
    title = description

    def update(done: int, total: int, counts: dict) -> None:
        nonlocal bar
        if bar is None:
            bar = tqdm(total=total, desc=title, file=sys.stderr, unit="model",
                       disable=total == 0, leave=False)
        elif bar.total != total:  # the next step of the same work (e.g. checking equivalences)
            bar.reset(total=total)
        bar.n = done
        failed = sum(v for k, v in counts.items() if k in ("rejected", "parse_error", "simplify_error"))
        bar.set_postfix(failed=failed, timeout=counts.get("timeout", 0), refresh=False)
        bar.refresh()

    def stage(text: str) -> None:
        nonlocal title
        title = text.lower()
        if bar is not None:
            bar.set_description(title, refresh=False)

    update.stage = stage
    try:
        yield update
    finally:
        if bar is not None:
            bar.close()


def competition_of(input_path: Path, *, given: dict, **options):
    """The competition a judging command works on.

    INPUT is either a competition file (``.toml``: everything comes from it, and
    the options that describe a competition must not be given) or a results
    file or folder, which the options complete
    (:func:`srdash.judging.competition.competition_from_options`).

    ``given`` maps option names (as typed) to the values the user set; an
    option left at its default is None there.
    """
    from srdash.judging.competition import competition_from_options, is_competition_file, load_competition

    if is_competition_file(input_path):
        clashing = sorted(name for name, value in given.items() if value not in (None, False, ()))
        if clashing:
            raise click.UsageError(f"{input_path} is a competition file: it already says {', '.join(clashing)}. "
                                   "Change the competition file instead, or give a results file as INPUT.")
        return load_competition(input_path)
    return competition_from_options(input_path, **options)


def echo_fingerprint(result) -> None:
    """Say which verdict this is (every output shows the same fingerprint for the same verdict)."""
    click.echo(f"Verdict fingerprint: {result.fingerprint[:12]} (competition {result.competition.source}; "
               f"full: {result.fingerprint})", err=True)
