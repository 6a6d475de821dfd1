"""Pieces shared by the CLI commands."""

from __future__ import annotations

import contextlib
import os
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


def default_jobs() -> int:
    """The cores this process may use (its CPU affinity; ``os.cpu_count()`` where that is unknown).

    Examples
    --------
    >>> default_jobs() >= 1
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def jobs_option(what: str = "simplifying models"):
    """``--jobs``, by default the cores available (as ``--help`` says)."""
    return click.option("--jobs", default=default_jobs, show_default=f"the cores available, {default_jobs()} here",
                        type=click.IntRange(min=1), help=f"Worker processes for {what}.")


def _remember_retry(ctx, param, value):
    ctx.meta["srdash.retry_timeouts"] = bool(value)
    return value


def _open_result_cache(ctx, param, value):
    """Click callback of ``--cache``: one cache object for the whole command (it counts its hits)."""
    from srdash.expressions.cache import ResultCache

    return ResultCache(value, retry_timeouts=ctx.meta.get("srdash.retry_timeouts", False))


def prepare_options(command):
    """The options of the expensive steps shared by every judging command.

    ``cache`` arrives as a :class:`srdash.expressions.cache.ResultCache` (the
    default file unless ``--cache`` names one; ``--retry-timeouts`` applied):
    pass it to every step, and ``cache.stats.as_dict()`` says how many results
    came from it. ``--no-cache`` makes the command pass False instead.
    """
    for option in reversed((
        click.option("--timeout", default=10.0, show_default=True, type=click.FloatRange(min=0, min_open=True),
                     help="Hard time limit in seconds (CPU time) for each model's simplification."),
        jobs_option(),
        click.option("--retry-timeouts", is_flag=True, is_eager=True, expose_value=False, callback=_remember_retry,
                     help="Compute again the results that timed out before under the same limit (a longer "
                          "--timeout retries them anyway)."),
        click.option("--cache", "cache", type=click.Path(path_type=Path), callback=_open_result_cache,
                     help="Cache file of the expensive results (default: srdash's cache in your user cache "
                          "directory)."),
        click.option("--no-cache", is_flag=True, help="Do not read or write the cache."),
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
    jobs = env.get("SRDASH_JOBS")
    if notebook_name == app.NOTEBOOK_NAME and "SRDASH_INPUT" not in env:
        _write_demo_meanwhile()
    click.echo(f"Starting Voilà on {url} ..." + (f" ({jobs} worker processes per page for the models; --jobs to "
                                                 f"change)" if jobs else ""), err=True)
    code = app.serve_dashboard(command, env, url=url, announce=click.echo)
    if code:
        raise click.ClickException(f"Voilà stopped with exit code {code}.")


def _write_demo_meanwhile() -> None:
    """Write the demo's files (and seed its prepared results) while Voilà starts, so the first kernel finds them.

    Best effort, in a daemon thread: should it fail or not be done in time, the kernel writes
    them itself (:func:`srdash.demo.competition.cached_demo` is safe to run twice at once).
    """
    import threading

    def write() -> None:
        from srdash.demo.competition import cached_demo

        try:
            cached_demo()
        except Exception:  # noqa: BLE001 - the kernel does it again and reports any problem
            pass

    threading.Thread(target=write, name="srdash-demo-files", daemon=True).start()


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
