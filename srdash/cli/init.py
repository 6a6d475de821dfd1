"""``srdash init``: write a commented competition file for the files in a folder."""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import click

from srdash.cli._common import fail_cleanly
from srdash.judging.competition import competition_from_options, load_competition
from srdash.errors import SrdashError

#: Exit status when nothing can be written, or what was written cannot be judged yet.
INCOMPLETE_EXIT_CODE = 2


@click.command("init")
@click.argument("folder", default=".", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="The file to write. Default: FOLDER/competition.toml.")
@click.option("--force", is_flag=True, help="Overwrite existing files.")
@click.option("--title", default="", help="The competition's title (default: the folder's name).")
def init_command(folder: Path, output: Path | None, force: bool, title: str) -> None:
    """Write a commented competition.toml for the files in FOLDER (default: here).

    Recognises results tables (method/algorithm/team, dataset, and a model or
    model size column), folders of SRBench JSON result files, dataset tables
    and descriptions, dataset files (by their target column, y or target:
    drafted into FOLDER/datasets.yaml when every dataset of the results has
    one), a published leaderboard (method or team, score: a table to audit,
    not results), a qualification stage and its PMLB datasets (SRBench 2022's
    stage0_pmlb), a trust store (*.sqlite) and submission tables (EvalRS), in
    FOLDER and up to three folder levels below it (links are not followed).

    The rules: with a published leaderboard, the preset whose verdict
    reproduces it (each preset tried is judged, and how far it lies from the
    table is written down); results without a property (SRBench's black-box
    benchmark) get FOLDER/rules.toml, srbench2022 without its property.

    Then the file is checked as `srdash score` reads it (nothing expensive).
    Exits with code 2, saying what to add, when there are no results (nothing
    written) or the file cannot be judged yet. Read the file, then judge with
    `srdash score FOLDER/competition.toml`.
    """
    from srdash.analysis.reproduce import RULES_DRAFT, draft_rules
    from srdash.io.discover import (DESCRIPTIONS_DRAFT, MAX_DEPTH, draft_competition, draft_descriptions,
                                    find_competition_files, missing_competition_files, prediction_command,
                                    results_columns)

    target = output or folder / "competition.toml"
    if target.exists() and not force:
        raise click.UsageError(f"{target} exists; use --force to overwrite it.")
    found = find_competition_files(folder)
    command = prediction_command(found)
    if not found.results and command:
        click.echo(f"Error: {folder} holds a prediction competition (targets and files of predictions), which "
                   "a competition file does not describe; nothing written. Judge it with (from that folder; "
                   f"choose the metric: rmse, mae, r2 or accuracy):\n  {command}", err=True)
        raise SystemExit(INCOMPLETE_EXIT_CODE)
    if not found.results:
        _echo_found(found, missing_competition_files(found))
        click.echo(f"Error: no results in {folder} or the {MAX_DEPTH} folder levels below it; nothing written. "
                   "Give the folder that holds the results table (or the folder of SRBench .json files), "
                   "or write competition.toml by hand (docs/competition.md).", err=True)
        raise SystemExit(INCOMPLETE_EXIT_CODE)
    with fail_cleanly():
        columns, datasets = results_columns(folder, found)
        descriptions = draft_descriptions(found, datasets)
        from_data = None if found.descriptions else ()
        if descriptions is not None:
            _write(folder / DESCRIPTIONS_DRAFT, descriptions, force=force)
            found.descriptions = DESCRIPTIONS_DRAFT
            partitions = {p for files in found.data_files.values() for p in files}
            from_data = {f"{metric}_{p}" for p in partitions for metric in ("r2", "rmse", "mae")}
        rebase = _rebase(folder, target)
        choice = draft_rules(columns=columns, from_data=from_data, published=[folder / p for p in found.published],
                             submissions=found.submissions, srbench2025=found.srbench2025,
                             judge=_Judge(folder, found), rules_path=rebase(RULES_DRAFT))
        found.notes.extend(choice.notes)
        if choice.rules_file is not None:
            _write(folder / RULES_DRAFT, choice.rules_file, force=force)
        # the competition file's paths are relative to it, wherever -o puts it
        written = replace(found, results=[rebase(r) for r in found.results],
                          **{key: rebase(getattr(found, key)) for key in ("datasets", "descriptions", "qualification",
                                                                          "qualification_data", "trust_store")})
        text = draft_competition(folder, title=title or folder.resolve().name, found=written, rules=choice.line)
        _echo_found(found, missing_competition_files(found))
        target.write_text(text, encoding="utf-8")
    click.echo(f"Wrote {target}.")
    problem = _cannot_judge(target)
    if problem:
        click.echo(f"Error: {target} cannot be judged yet: {problem}\nAdd what is missing (or edit the file), "
                   "then run `srdash score` on it.", err=True)
        raise SystemExit(INCOMPLETE_EXIT_CODE)
    click.echo(f"Check it, then run: srdash score {target}")


def _rebase(folder: Path, target: Path):
    """A function: a path relative to ``folder`` -> the same file relative to ``target``'s folder."""
    prefix = Path(os.path.relpath(folder.resolve(), target.resolve().parent))

    def rebased(path: str | None) -> str | None:
        return None if path is None else (prefix / path).as_posix()

    return rebased


def _echo_found(found, missing) -> None:
    for note in found.notes:
        click.echo(f"Found: {note}")
    for item in missing:
        click.echo(f"Not found: {item}")


def _write(path: Path, text: str, *, force: bool) -> None:
    if path.exists() and not force:
        raise click.UsageError(f"{path} exists; use --force to overwrite it.")
    path.write_text(text, encoding="utf-8")


class _Judge:
    """The competition of the files found, judged under a preset (to compare with a published table).

    Presets that measure the same columns the same way share one preparation (the expensive step):
    the others are judged on it, as the dashboard judges other rules."""

    def __init__(self, folder: Path, found) -> None:
        self.folder, self.found = folder, found
        self.prepared: dict[tuple, object] = {}

    def __call__(self, preset: str):
        from srdash.judging.pipeline import judge_prepared, prepare_competition

        folder, found = self.folder, self.found
        competition = competition_from_options(
            [folder / r for r in found.results], rules=preset,
            datasets=folder / found.datasets if found.datasets else None,
            descriptions=folder / found.descriptions if found.descriptions else None)
        rules = competition.rules
        key = tuple(sorted((c.column, c.measure) for c in rules.criteria))
        if key not in self.prepared:
            self.prepared[key] = prepare_competition(competition)
        return judge_prepared(self.prepared[key], rules=rules).verdict


def _cannot_judge(path: Path) -> str | None:
    """Why ``srdash score`` would refuse the competition file before any expensive work, or None; names
    that look like typos are shown as warnings (the verdict lists them too)."""
    from srdash.judging.checks import similar_name_problems
    from srdash.judging.pipeline import check_competition

    try:
        results = check_competition(load_competition(path))
    except SrdashError as exc:
        return str(exc)
    if results is not None:
        for detail in similar_name_problems(results.table)["detail"]:
            click.secho(f"Warning: {detail}", fg="yellow", err=True)
    return None
