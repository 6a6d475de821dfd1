"""`srdash report`: publish a verdict as one self-contained HTML file, Markdown or a LaTeX table."""

from __future__ import annotations

from pathlib import Path

import click

from srdash.cli._common import competition_of, echo_fingerprint, fail_cleanly, prepare_options, progress_bar, rules_option

_SUFFIX_FORMATS = {".md": "md", ".markdown": "md", ".tex": "latex", ".latex": "latex"}


def _format_of(output: Path, chosen: str | None) -> str:
    if chosen is not None:
        return chosen
    return _SUFFIX_FORMATS.get(output.suffix.lower(), "html")


@click.command("report")
@click.argument("input_path", metavar="INPUT", type=click.Path(exists=True, path_type=Path))
@rules_option
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="File to write: the HTML report, the Markdown summary or the LaTeX table (see --format).")
@click.option("--format", "output_format", type=click.Choice(["html", "md", "latex"]),
              help="html: one self-contained page (plots, tables, reproducibility block; opens offline); "
                   "md: Markdown summary with the leaderboard tables; latex: the leaderboard as a booktabs "
                   "table. Default: from the output's suffix (.md, .tex), else html.")
@click.option("--trust", "trust_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Expert trust store (SQLite, from `srdash review`): adds the real-world track's leaderboard.")
@click.option("--realworld-rules", default="srbench2022-realworld", show_default=True,
              help="Rules of the real-world track (used with --trust).")
@click.option("--datasets", "datasets_path", type=click.Path(exists=True, path_type=Path),
              help="Dataset table (columns dataset, features) giving each dataset's feature names; "
                   "models using other names are rejected.")
@click.option("--descriptions", "--properties", "properties_path", type=click.Path(exists=True, path_type=Path),
              help="Dataset descriptions (YAML or CSV, see `srdash datasets`): the models are evaluated on the "
                   "datasets' files and each dataset's property scored by srdash, as `srdash score "
                   "--descriptions` (--properties is the former name).")
@click.option("--qualification", "qualification_path", type=click.Path(exists=True, path_type=Path),
              help="Results of the qualification stage, as `srdash score --qualification`.")
@click.option("--qualification-data", "qualification_data", type=click.Path(exists=True, path_type=Path),
              help="Folder of the qualification datasets, as `srdash score --qualification-data`.")
@click.option("--keep-unqualified", is_flag=True, help="Keep the methods that did not qualify, only flagged.")
@click.option("--title", help="Title of the report (default: the rules' title).")
@click.option("--samples", default=2000, show_default=True, type=click.IntRange(min=10),
              help="Weight vectors drawn from the simplex for the weight-sensitivity views.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of that draw (same seed, same report).")
@prepare_options
@click.option("--scheduler", metavar="tcp://HOST:PORT",
              help="Simplify the models on this Dask scheduler's workers (same results and time limits; "
                   "--jobs is then ignored). Default: the SRDASH_SCHEDULER environment variable, else local "
                   "worker processes.")
def report_command(input_path, rules, output, output_format, trust_path, realworld_rules, datasets_path,
                   properties_path, qualification_path, qualification_data, keep_unqualified, title, samples, seed, timeout, jobs, cache, no_cache, scheduler):
    """Write a report of the competition in INPUT.

    INPUT is what `srdash score` reads: a competition file (competition.toml),
    or results (a CSV or Parquet file with one row per (method, dataset, run),
    or a folder of SRBench-style JSON files) completed by the options. The HTML
    report is one file that needs no server and no network (plotly.js and all
    styles are inlined): the leaderboards, per-dataset ranks, simplicity
    curve, properties, weight sensitivity (place probabilities, ternary winner
    map), the problems and a reproducibility block (versions, the rules file
    in full, the SHA-256 of every input file, the generation time).

    Ranks are 'higher is better' (K = best, 1 = worst); places: 1 = best.
    """
    from srdash.judging.pipeline import judge_competition
    from srdash.report.build import build_competition_report, write_report

    chosen = _format_of(output, output_format)
    with fail_cleanly():
        competition = competition_of(
            input_path,
            given={"--datasets": datasets_path, "--descriptions": properties_path, "--trust": trust_path,
                   "--qualification": qualification_path, "--qualification-data": qualification_data,
                   "--keep-unqualified": keep_unqualified, "--scheduler": scheduler,
                   "--rules": None if rules.name == "srbench2022" else rules.name},
            rules=rules, title=title or "", datasets=datasets_path, descriptions=properties_path,
            qualification=qualification_path, qualification_data=qualification_data,
            keep_unqualified=keep_unqualified, trust_store=trust_path, realworld_rules=realworld_rules,
            timeout=timeout, jobs=jobs, scheduler=scheduler, cache=False if no_cache else cache)
        if not competition.rules.rule_kind.judges_runs:
            raise click.UsageError(f"`srdash report` covers rules that rank per-run results (SRBench style); the "
                                   f"rules '{competition.rules.name}' are {competition.rules.kind}. Use `srdash "
                                   "score` for them.")
        with progress_bar("simplifying models") as progress:
            result = judge_competition(competition, progress=progress, stage=progress.stage)
        verdict = result.verdict
        report = build_competition_report(result, samples=samples, seed=seed)
        path = write_report(report, output, format=chosen)
    for note in verdict.warnings:
        click.secho(f"Warning: {note}", fg="yellow", err=True)
    size = path.stat().st_size
    click.echo(f"Wrote {path} ({chosen}, {size:,} bytes, {verdict.n_methods} methods, "
               f"fingerprint {report.reproducibility['fingerprint'][:12]}).", err=True)
    echo_fingerprint(result)
