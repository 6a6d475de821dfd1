"""`srdash serve`: open the judging dashboard (a Voilà app) in the browser."""

from __future__ import annotations

from pathlib import Path

import click

from srdash.cli._common import fail_cleanly, jobs_option, rules_reference, serve_notebook


@click.command()
@click.argument("input_path", metavar="[INPUT]", required=False,
                type=click.Path(exists=True, path_type=Path))
@click.option("--rules", default="srbench2022", show_default=True, callback=rules_reference,
              help="A rules preset name (srbench2022, srbench2022-as-run, ...; see `srdash rules`) "
                   "or the path of a .toml rules file (format: docs/rules.md). The dashboard can switch "
                   "presets, the run aggregation and the tie rule.")
@click.option("--datasets", "datasets_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Dataset table (columns dataset, features) giving each dataset's feature names; "
                   "models using other names are rejected.")
@click.option("--store", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Trust store of an expert review (`srdash review --store`): adds the real-world "
                   "track leaderboard to the dashboard.")
@click.option("--descriptions", "descriptions_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Dataset descriptions (YAML or CSV, as `srdash score --descriptions`): the models are evaluated "
                   "on the datasets' files, each dataset's property is scored from the models, and the dashboard "
                   "gets a property view (ground truths and models in LaTeX, unwanted features, noise curves).")
@click.option("--qualification", "qualification_path", type=click.Path(exists=True, path_type=Path),
              help="Results of the qualification stage (as `srdash qualify`): the dashboard gets a qualification "
                   "view, and the methods that do not beat LinearRegression there leave the track, as a warning "
                   "above the leaderboard says.")
@click.option("--qualification-data", "qualification_data", type=click.Path(exists=True, path_type=Path),
              help="Folder of the qualification datasets: srdash fits the LinearRegression baseline itself and "
                   "recomputes the qualification models' r2_test.")
@click.option("--view", type=click.Choice(["dashboard", "sensitivity"]), default="dashboard", show_default=True,
              help="The app to open: the judging dashboard, or the weight-sensitivity view alone (the "
                   "one for normalised, weighted rules such as evalrs2022).")
@click.option("--port", default=0, type=click.IntRange(0, 65535),
              help="Port to listen on. Default: a free port.")
@jobs_option()
@click.option("--timeout", default=10.0, show_default=True, type=click.FloatRange(min=0, min_open=True),
              help="Hard time limit in seconds for each model's simplification (SRBench: 10). Models that "
                   "time out keep their unsimplified size and are listed as problems.")
@click.option("--preheat", is_flag=True,
              help="Keep a kernel that has already run the dashboard waiting for the next visitor. Off by "
                   "default: it would simplify every model again while the current visitor's kernel does, "
                   "on the same cores; useful when the input gives the components.")
@click.option("--ip", default="127.0.0.1", show_default=True,
              help="Address to listen on. The default serves this machine only; the dashboard has no "
                   "login, so only change it on a trusted network.")
@click.option("--print-command", is_flag=True,
              help="Print the environment and the Voilà command line instead of running them.")
def serve(input_path, rules, datasets_path, store, descriptions_path, qualification_path, qualification_data, view,
          port, jobs, timeout, preheat, ip, print_command):
    """Open the dashboard on the competition results in INPUT.

    INPUT is what `srdash score` reads: a CSV or Parquet file with one row per
    (method, dataset, run), or a folder of SRBench-style JSON result files.
    Without INPUT the dashboard judges the built-in demo competition
    (see `srdash demo`), with its dataset descriptions and qualification stage:
    the property and qualification views are under "More views".

    The input and the rules are checked first, so a bad file is reported here.
    Then Voilà serves the dashboard notebook at http://IP:PORT/ (the URL is
    printed when it answers) until you press Ctrl-C. The page shows the
    leaderboard (ranks: higher is better), per-dataset ranks, the simplicity
    curve and every problem found (rejected models, timeouts, DNF). Model
    complexity is computed in the background (cached in srdash's user cache
    directory, or in SRDASH_CACHE_DIR if set); the page fills in when it is done.
    """
    from srdash.apps import server as app
    from srdash.judging.rules import load_rules

    with fail_cleanly():
        kind = load_rules(rules).kind
        if kind == "normalised-weighted" and view != "sensitivity":
            raise click.UsageError(f"The rules '{rules}' score submissions with weighted meta-scores; open them "
                                   "with --view sensitivity.")
        if input_path is not None and kind == "normalised-weighted":
            from srdash.judging.multiobjective import load_submissions

            submissions = load_submissions(input_path, load_rules(rules))
            click.echo(f"{input_path}: {len(submissions.table)} submissions.", err=True)
        elif input_path is not None:
            from srdash.io.loading import load_results

            features = datasets_path
            if descriptions_path is not None:
                from srdash.io.datasets import load_dataset_table

                described = load_dataset_table(descriptions_path)
                click.echo(f"{descriptions_path}: {len(described)} dataset descriptions.", err=True)
                features = datasets_path if datasets_path is not None else described.frame()
            results = load_results(input_path, datasets=features)
            click.echo(f"{input_path}: {len(results.table)} runs of {results.table['method'].nunique()} "
                       f"methods on {results.table['dataset'].nunique()} datasets.", err=True)
        elif datasets_path is not None or descriptions_path is not None:
            raise click.UsageError("--datasets and --descriptions only apply to an INPUT; the demo has its own "
                                   "feature names and descriptions.")
        if qualification_data is not None and qualification_path is None:
            raise click.UsageError("--qualification-data needs --qualification (the results of the qualification "
                                   "stage).")
        if (descriptions_path is not None or qualification_path is not None) and view != "dashboard":
            raise click.UsageError("--descriptions and --qualification apply to the dashboard view only.")
        if qualification_path is not None:
            from srdash.judging.qualification import canonical_results, read_qualification_results

            canonical_results(read_qualification_results(qualification_path), source=str(qualification_path),
                              need_r2=qualification_data is None)
        env = app.dashboard_environment(input_path=input_path, rules=rules, datasets=datasets_path, jobs=jobs,
                                        timeout=timeout, store=store, descriptions=descriptions_path,
                                        qualification=qualification_path, qualification_data=qualification_data)
        serve_notebook("sensitivity.ipynb" if view == "sensitivity" else app.NOTEBOOK_NAME, env, port=port, ip=ip,
                       preheat=preheat, print_command=print_command)
