"""Pieces shared by the CLI commands."""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations

import contextlib
import functools
import sys
from pathlib import Path

import click

from srdash.cache import ResultCache
from srdash.apps import server as app
from srdash.cli._options import bounded
from srdash.errors import SrdashError
from srdash.io.csvsafe import write_csv
from srdash.judging.rules import load_rules
from srdash.judging.competition import competition_from_options, default_jobs, is_competition_file, load_competition
from srdash.judging.inputs import read_inputs


def _load_rules(ctx, param, value):
    try:
        return load_rules(value)
    except SrdashError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from exc


def rules_reference(ctx, param, value):
    """Click callback: check the rules now; pass on the preset name or the absolute path of the file
    (for a process started elsewhere, e.g. the Voilà app). None stays None."""
    if value is None:
        return None
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


def jobs_option(what: str = "simplifying models"):
    """``--jobs``, by default the cores available (as ``--help`` says)."""
    return click.option("--jobs", default=default_jobs, show_default=f"the cores available, {default_jobs()} here",
                        type=bounded("jobs"), help=f"Worker processes for {what}.")


def _remember_retry(ctx, param, value):
    ctx.meta["srdash.retry_timeouts"] = bool(value)
    return value


def _open_result_cache(ctx, param, value):
    """Click callback of ``--cache``: one cache object for the whole command (it counts its hits)."""
    return ResultCache(value, retry_timeouts=ctx.meta.get("srdash.retry_timeouts", False))


def prepare_options(command):
    """The options of the expensive steps shared by every judging command.

    ``cache`` arrives as a :class:`srdash.cache.ResultCache` (the
    default file unless ``--cache`` names one; ``--retry-timeouts`` applied):
    pass it to every step, and ``cache.stats.as_dict()`` says how many results
    came from it. ``--no-cache`` makes the command pass False instead.
    """
    for option in reversed((
        click.option("--timeout", default=10.0, show_default=True, type=bounded("timeout"),
                     help="Hard time limit in seconds (CPU time) for each model's simplification."),
        jobs_option(),
        click.option("--trust-competition-scheduler", is_flag=True,
                     help="Use the Dask scheduler a competition file names ([simplification] scheduler); without "
                          "this option it is ignored with a warning (a competition folder from someone else must not "
                          "choose where its models are computed, nor what comes back)."),
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


def serve_notebook(notebook_name: str, env: dict, *, port: int, ip: str, preheat: int = 0,
                   print_command: bool = False, what: str = "dashboard", variables=None,
                   cull_idle: float | None = None, started=None) -> None:
    """Serve one of srdash's notebooks with Voilà until Ctrl-C (``env`` from :func:`srdash.apps.server.app_environment`).

    With ``print_command``, print the notebook's environment ``variables``
    (default: all of :data:`srdash.apps.server.ENVIRONMENT`) and the Voilà command
    line instead. ``started``: see
    :func:`srdash.apps.server.serve_dashboard`.
    """
    chosen_port = port or app.free_port(ip)
    notebook = app.notebook_path(notebook_name)
    culling = {} if cull_idle is None else {"cull_idle_timeout": cull_idle,
                                            "cull_interval": min(app.CULL_INTERVAL, max(1.0, cull_idle / 4))}
    command = app.voila_command(notebook, port=chosen_port, ip=ip, preheat=preheat, **culling)
    url = f"http://{ip}:{chosen_port}/"
    if print_command:
        for name in app.ENVIRONMENT if variables is None else variables:
            if name in env:
                click.echo(f"{name}={env[name]}")
        click.echo(f"JUPYTER_PATH={app.template_environment(env)['JUPYTER_PATH']}")
        click.echo(" ".join(command))
        return
    if ip not in ("127.0.0.1", "localhost", "::1"):
        click.secho(f"Warning: serving on {ip}: anyone who can reach this address can open the {what}.",
                    fg="yellow", err=True)

    def begun() -> None:  # Voilà's process runs: said once ``started`` (e.g. the inputs' check) has passed
        if started is not None:
            started()
        click.echo(f"Starting Voilà on {url} ...", err=True)

    code = app.serve_dashboard(command, env, url=url, stage=click.echo, started=begun)
    if code:
        raise click.ClickException(f"Voilà stopped with exit code {code}.")


@contextlib.contextmanager
def fail_cleanly():
    """Turn srdash's own errors into a clean CLI error (message, exit code 1)."""
    try:
        yield
    except SrdashError as exc:
        raise click.ClickException(str(exc)) from exc


def refuse_output_onto_input(outputs, inputs) -> None:
    """Refuse (usage error, exit 2) an output path that is one of the inputs or lies inside an input folder.

    ``outputs``: ``(option, path or None)`` pairs; ``inputs``: paths of files or
    folders read. Paths are compared once resolved (links followed) and, for
    files that exist, by device and inode, so ``./r.csv``, ``r.csv`` and a link
    to it are one file. An SQLite store's ``-wal`` and ``-shm`` files count as
    the store.
    """
    import os

    def identity(path: Path):
        try:
            info = path.stat()
        except OSError:
            return None
        return info.st_dev, info.st_ino

    resolved_inputs = []
    for path in inputs:
        if path is None:
            continue
        path = Path(path).expanduser().resolve()
        resolved_inputs.append((path, identity(path)))
        for suffix in ("-wal", "-shm", "-journal"):
            resolved_inputs.append((path.with_name(path.name + suffix), None))
    for option, output in outputs:
        if output is None:
            continue
        target = Path(output).expanduser().resolve()
        target_identity = identity(target)
        for path, path_identity in resolved_inputs:
            same = target == path or (target_identity is not None and target_identity == path_identity)
            inside = path.is_dir() and os.path.commonpath([str(target), str(path)]) == str(path)
            if same or inside:
                what = f"lies inside the input folder '{path}'" if inside and not same else f"is the input '{path}'"
                raise click.UsageError(f"{option} '{output}' {what}; writing there would overwrite what srdash "
                                       f"reads. Give another output path.")


#: Where :func:`command_inputs` keeps what the command read, in click's context (one command's lifetime).
_INPUTS = "srdash.inputs"


def command_inputs(competition):
    """The competition's descriptions, read and checked once per command
    (:func:`srdash.judging.inputs.read_inputs`; a bad file is refused cleanly, naming file, row and column).

    Kept in click's context, which lives as long as one command: the command's later steps (the files to
    protect, the judging) reuse it, and the next command reads a file edited meanwhile again.
    """
    context = click.get_current_context(silent=True)
    kept = None if context is None else context.meta.get(_INPUTS)
    if kept is not None and kept.descriptions_path == competition.descriptions:
        return kept
    with fail_cleanly():
        inputs = read_inputs(competition)
    if context is not None:
        context.meta[_INPUTS] = inputs
    return inputs


def competition_files(competition) -> list:
    """Every file or folder a competition reads: its inputs, its competition file and the data files its
    descriptions name (the inputs :func:`refuse_output_onto_input` protects)."""
    if competition is None:
        return []
    files = [*competition.sources, None if str(competition.source).startswith("<") else competition.source]
    return files + list(command_inputs(competition).data_files)


def with_sidecar(option: str, output) -> list:
    """``(option, path)`` pairs of an output and the ``<output>.provenance.json`` written beside it."""
    return [(option, output), (option, None if output is None else Path(f"{output}.provenance.json"))]


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


@contextlib.contextmanager
def progress_bar(description: str, *, unit: str = "model"):
    """A tqdm progress bar on stderr, fed by ``progress(done, total, counts)`` calls.

    ``progress.stage(text)`` renames the bar for the next step of the work; ``unit`` names what is
    counted (the models' failures and timeouts are shown beside a bar of models).
    """
    from tqdm import tqdm

    bar = None
    title = description

    def update(done: int, total: int, counts: dict) -> None:
        nonlocal bar
        if bar is None and done >= total:  # nothing to wait for (models given, or all from the cache): no bar
            return
        if bar is None:
            # redrawn at most 5 times a second on a terminal; in a log (not a terminal), where each redraw
            # stays, every 10 s
            bar = tqdm(total=total, desc=title, file=sys.stderr, unit=unit, disable=total == 0, leave=False,
                       mininterval=0.2 if _is_terminal(sys.stderr) else 10.0)
        elif bar.total != total:  # the next step of the same work (e.g. checking equivalences)
            bar.reset(total=total)
        if counts or unit == "model":  # the models' failures and timeouts; other work has none
            failed = sum(v for k, v in counts.items() if k in ("rejected", "parse_error", "simplify_error"))
            bar.set_postfix(failed=failed, timeout=counts.get("timeout", 0), refresh=False)
        bar.update(done - bar.n)

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
            bar.refresh()  # the last counts, once (between two redraws of a log they would not be seen)
            bar.close()


#: The options that describe a competition, as typed (for the message when INPUT is a competition file).
_COMPETITION_OPTIONS = {"rules": "--rules", "datasets": "--datasets", "descriptions": "--descriptions",
                        "qualification": "--qualification", "qualification_data": "--qualification-data",
                        "keep_unqualified": "--keep-unqualified", "trust_store": "--trust",
                        "realworld_rules": "--realworld-rules", "scheduler": "--scheduler"}


def competition_input(command=None, *, trust: bool = True, required: bool = True):
    """Decorator: INPUT (a competition file or results) and the options that describe a competition.

    The command receives ``competition`` (a :class:`srdash.judging.competition.Competition`,
    or None when INPUT is optional and absent) instead of those options.
    INPUT is either a competition file (``.toml``: everything comes from it,
    and the options that describe a competition must not be given) or a
    results file or folder, which the options complete. Both build the same
    in-memory competition.
    """
    if command is None:
        return functools.partial(competition_input, trust=trust, required=required)

    @functools.wraps(command)
    def wrapper(input_path, rules, datasets, descriptions, qualification, qualification_data, keep_unqualified,
                timeout, jobs, cache, no_cache, retry_timeouts, scheduler, trust_competition_cache=False,
                trust_competition_scheduler=False,
                trust_store=None, realworld_rules=None, **kwargs):
        given = {"datasets": datasets, "descriptions": descriptions, "qualification": qualification,
                 "qualification_data": qualification_data, "keep_unqualified": keep_unqualified,
                 "trust_store": trust_store, "scheduler": scheduler,
                 "rules": None if rules is None else rules,
                 "realworld_rules": realworld_rules}
        if input_path is None:
            clashing = sorted(_COMPETITION_OPTIONS[name] for name, value in given.items() if value not in (None, False))
            if clashing:
                raise click.UsageError(f"{', '.join(clashing)} only apply to an INPUT (the built-in demo has its "
                                       "own rules, feature names, descriptions and qualification stage).")
        with fail_cleanly():
            if input_path is not None and is_competition_file(input_path) and timeout is not None:
                raise click.UsageError(f"{input_path} is a competition file: its time limit is part of the verdict. "
                                       "Change [simplification] timeout in the file instead of --timeout.")
            if input_path is None:
                competition = None
            elif is_competition_file(input_path):
                clashing = sorted(_COMPETITION_OPTIONS[name] for name, value in given.items()
                                  if value not in (None, False))
                if clashing:
                    raise click.UsageError(f"{input_path} is a competition file: it already says what "
                                           f"{', '.join(clashing)} would. Change the competition file instead, or "
                                           "give a results file as INPUT.")
                competition = load_competition(input_path, trust_cache=trust_competition_cache,
                                               trust_scheduler=trust_competition_scheduler)
                if jobs is not None or no_cache or cache is not None or retry_timeouts:
                    competition = _with_simplification(competition, jobs=jobs, cache=False if no_cache else cache,
                                                       retry_timeouts=retry_timeouts)
            else:
                if qualification is None and (qualification_data is not None or keep_unqualified):
                    raise click.UsageError("--qualification-data and --keep-unqualified need --qualification "
                                           "(the results of the qualification stage).")
                options = {k: v for k, v in given.items() if v is not None}
                options.pop("keep_unqualified", None)
                competition = competition_from_options(
                    input_path, **options, keep_unqualified=keep_unqualified,
                    timeout=10.0 if timeout is None else timeout, jobs=jobs, cache=False if no_cache else cache)
                if retry_timeouts:
                    competition = _with_simplification(competition, jobs=None, cache=None, retry_timeouts=True)
        return command(competition=competition, **kwargs)

    options = [
        click.argument("input_path", metavar="INPUT" if required else "[INPUT]", required=required,
                       type=click.Path(exists=True, path_type=Path)),
        click.option("--rules", default=None, callback=rules_reference,
                     help="A rules preset name (default srbench2022; see `srdash rules`) or the path of a .toml "
                          "rules file (format: docs/rules.md)."),
        click.option("--datasets", "datasets", type=click.Path(exists=True, path_type=Path),
                     help="Dataset table (columns dataset, features) giving each dataset's feature names; "
                          "models using other names are rejected."),
        click.option("--descriptions", "--properties", "descriptions", type=click.Path(exists=True, path_type=Path),
                     help="Dataset descriptions (YAML or CSV, see `srdash datasets --help`): the models are "
                          "evaluated on the datasets' files, the metrics recomputed and each dataset's property "
                          "scored from the models (--properties is the former name)."),
        click.option("--qualification", "qualification", type=click.Path(exists=True, path_type=Path),
                     help="Results of the qualification stage (format: `srdash qualify --help`): methods that do "
                          "not beat LinearRegression there leave every track (see --keep-unqualified)."),
        click.option("--qualification-data", "qualification_data", type=click.Path(exists=True, path_type=Path),
                     help="Folder of the qualification datasets (.tsv.gz/.tsv/.csv, target column 'target'): "
                          "srdash fits the LinearRegression baseline itself and recomputes r2_test there."),
        click.option("--keep-unqualified", is_flag=True,
                     help="Keep the methods that did not qualify in the tracks, only flagged in the warnings."),
    ]
    if trust:
        options += [
            click.option("--trust", "--store", "trust_store", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                         help="Trust store of the expert review (SQLite, from `srdash review`): adds the "
                              "real-world track."),
            click.option("--realworld-rules", "realworld_rules", default=None,
                         help="Rules of the real-world track (default srbench2022-realworld)."),
        ]
    options += [
        click.option("--timeout", default=None, type=bounded("timeout"),
                     help="Hard time limit in seconds (CPU time) for each model's simplification (default 10)."),
        click.option("--jobs", default=None, type=bounded("jobs"),
                     help="Worker processes for simplification (default: the cores available)."),
        click.option("--cache", "cache", type=click.Path(path_type=Path),
                     help="Complexity cache file (default: srdash's cache in your user cache directory)."),
        click.option("--no-cache", is_flag=True, help="Do not read or write the cache."),
        click.option("--trust-competition-cache", is_flag=True,
                     help="Use the cache a competition file names ([simplification] cache); without this option it "
                          "is ignored with a warning (whoever can write it decides what its results say)."),
        click.option("--retry-timeouts", is_flag=True,
                     help="Compute again the models that timed out before under the same limit (a longer time "
                          "limit retries them anyway). The provenance says how many results came from the cache."),
        click.option("--scheduler", metavar="tcp://HOST:PORT",
                     help="Simplify the models on this Dask scheduler's workers (same results and time limits; "
                          "--jobs is then ignored)."),
    ]
    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper


def _with_simplification(competition, *, jobs, cache, retry_timeouts: bool = False):
    """The competition with other workers, cache or retries (they do not change the verdict)."""
    from dataclasses import replace

    s = competition.simplification
    return replace(competition, simplification=replace(s, jobs=s.jobs if jobs is None else int(jobs),
                                                       cache=s.cache if cache is None else cache,
                                                       retry_timeouts=s.retry_timeouts or bool(retry_timeouts)))


def judged(competition, *, what: str = "simplifying models"):
    """Judge a competition through the one pipeline, with a progress bar on stderr."""
    from srdash.judging.pipeline import judge_competition

    with fail_cleanly():
        with progress_bar(what) as progress:
            return judge_competition(competition, progress=progress, stage=progress.stage,
                                     inputs=command_inputs(competition))


def write_leaderboard(verdict, output, *, entity: str = "methods") -> None:
    """Print the leaderboard, or write it with its provenance file (``OUTPUT.provenance.json``)."""
    import json

    if output is None:
        click.echo(verdict.leaderboard.to_string(index=False))
        return
    Path(output).parent.mkdir(parents=True, exist_ok=True)
    write_csv(verdict.leaderboard, output, index=False)
    Path(f"{output}.provenance.json").write_text(json.dumps(dict(verdict.provenance), indent=2) + "\n")
    click.echo(f"Wrote {output} ({len(verdict.leaderboard)} {entity}) and {output}.provenance.json", err=True)


def write_table(table, path, *, what: str = "") -> None:
    """Write one more table the user asked for (``--per-dataset``, ``--problems``...), if asked."""
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        write_csv(table, path, index=False)
        click.echo(f"Wrote {path}" + (f" ({what})" if what else ""), err=True)


def echo_problems(verdict, *, hint: str = "") -> None:
    """Count the verdict's warnings and problems on stderr."""
    for note in verdict.warnings:
        click.secho(f"Warning: {note}", fg="yellow", err=True)
    if len(verdict.problems):
        counts = verdict.problems["kind"].value_counts().to_dict()
        listed = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
        click.echo(f"{len(verdict.problems)} problem(s): {listed}{hint}.", err=True)


def echo_fingerprint(result) -> None:
    """Say which verdict this is (every output shows the same fingerprint for the same verdict)."""
    click.echo(f"Verdict fingerprint: {result.fingerprint[:12]} (competition {result.competition.source}; "
               f"full: {result.fingerprint})", err=True)
