"""`srdash report`: publish a verdict as one self-contained HTML file, Markdown or a LaTeX table."""

from __future__ import annotations

from pathlib import Path

import click

from srdash.cli._common import fail_cleanly, prepare_options, progress_bar, rules_option

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
@click.option("--properties", "properties_path", type=click.Path(exists=True, path_type=Path),
              help="Dataset table describing each dataset's property (YAML or CSV, see `srdash datasets`): "
                   "score the properties from the models and data and show them.")
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
                   properties_path, title, samples, seed, timeout, jobs, cache, no_cache, scheduler):
    """Write a report of the competition results in INPUT.

    INPUT is what `srdash score` reads: a CSV or Parquet file with one row per
    (method, dataset, run), or a folder of SRBench-style JSON files. The HTML
    report is one file that needs no server and no network (plotly.js and all
    styles are inlined): the leaderboards, per-dataset ranks, simplicity
    curve, properties, weight sensitivity (place probabilities, ternary winner
    map), the problems and a reproducibility block (versions, the rules file
    in full, the SHA-256 of every input file, the generation time).

    Ranks are 'higher is better' (K = best, 1 = worst); places: 1 = best.
    """
    from srdash.io.loading import load_results
    from srdash.judging.pipeline import prepare_runs
    from srdash.judging.ranking import judge
    from srdash.report.build import build_report, write_report

    if rules.kind != "rank-harmonic":
        raise click.UsageError(f"`srdash report` covers rank-harmonic rules (SRBench style); the rules "
                               f"'{rules.name}' are {rules.kind}. Use `srdash score` for them.")
    chosen = _format_of(output, output_format)
    from srdash.expressions.distributed import scheduler_setting

    with fail_cleanly(), scheduler_setting(scheduler):
        results = load_results(input_path, datasets=datasets_path)
        with progress_bar("simplifying models") as progress:
            runs = prepare_runs(results, timeout=timeout, jobs=jobs, cache=False if no_cache else cache,
                                progress=progress)
        verdict = judge(runs, rules)
        sources = [*results.sources] + [str(p) for p in (datasets_path, properties_path) if p is not None]
        realworld = None
        if trust_path is not None:
            from srdash.judging.trust import TrustStore, realworld_verdict

            with TrustStore(trust_path, read_only=True) as store:   # a report never writes the store
                entries = store.entries()
            realworld = realworld_verdict(runs, entries, realworld_rules)
            sources.append(str(trust_path))
        properties = None
        if properties_path is not None:
            from srdash.io.datasets import load_dataset_table
            from srdash.judging.properties import property_scores

            properties = property_scores(runs, load_dataset_table(properties_path), timeout=timeout, jobs=jobs,
                                         cache=False if no_cache else cache)
        report = build_report(verdict, runs=runs, sources=sources, realworld=realworld, properties=properties,
                              title=title, samples=samples, seed=seed)
        path = write_report(report, output, format=chosen)
    for note in verdict.warnings:
        click.secho(f"Warning: {note}", fg="yellow", err=True)
    size = path.stat().st_size
    click.echo(f"Wrote {path} ({chosen}, {size:,} bytes, {verdict.n_methods} methods, "
               f"fingerprint {report.reproducibility['fingerprint'][:12]}).", err=True)
