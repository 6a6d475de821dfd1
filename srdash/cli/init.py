"""``srdash init``: write a commented competition file for the files in a folder."""

from __future__ import annotations

from pathlib import Path

import click

from srdash.cli._common import fail_cleanly


@click.command("init")
@click.argument("folder", default=".", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="The file to write. Default: FOLDER/competition.toml.")
@click.option("--force", is_flag=True, help="Overwrite an existing file.")
@click.option("--title", default="", help="The competition's title (default: the folder's name).")
def init_command(folder: Path, output: Path | None, force: bool, title: str) -> None:
    """Write a commented competition.toml for the files in FOLDER (default: here).

    Recognises results tables (method/algorithm, dataset, ... columns), folders
    of SRBench JSON result files, dataset tables and descriptions, a
    qualification stage and its PMLB datasets (SRBench 2022's stage0_pmlb), a
    trust store (*.sqlite) and submission tables (EvalRS), in FOLDER and up to
    three folder levels below it (links are not followed). Lists what it found
    and what it did not; writes nothing and exits with code 2 when it finds no
    results. Read the file, then judge with `srdash score FOLDER/competition.toml`.
    """
    from srdash.io.discover import MAX_DEPTH, draft_competition, find_competition_files, missing_competition_files

    target = output or folder / "competition.toml"
    if target.exists() and not force:
        raise click.UsageError(f"{target} exists; use --force to overwrite it.")
    found = find_competition_files(folder)
    for note in found.notes:
        click.echo(f"Found: {note}")
    missing = missing_competition_files(found)
    for item in missing:
        click.echo(f"Not found: {item}")
    if not found.results:
        click.echo(f"Error: no results in {folder} or the {MAX_DEPTH} folder levels below it; nothing written. "
                   "Give the folder that holds the results table (or the folder of SRBench .json files), "
                   "or write competition.toml by hand (docs/competition.md).", err=True)
        raise SystemExit(2)
    with fail_cleanly():
        text = draft_competition(folder, title=title, found=found)
        target.write_text(text, encoding="utf-8")
    click.echo(f"Wrote {target}. Check it, then run: srdash score {target}")
