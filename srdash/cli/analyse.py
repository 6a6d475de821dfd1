"""`srdash analyse KIND INPUT`: the analyses SRBench readers expect, each written as a CSV."""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations

from pathlib import Path

import click

from srdash.cli._common import fail_cleanly, judged, refuse_output_onto_input
from srdash.cli._options import bounded
from srdash.errors import SrdashError
from srdash.io.csvsafe import write_csv
from srdash.judging.competition import competition_from_options

KINDS = ("pareto", "profiles", "pairwise", "compare", "recovery", "resources", "srbench2025", "ratings", "bayes",
         "tree-distance")

#: The files ``compare`` writes beside its -o CSV (the pairs): suffix -> what.
COMPARE_SIDECARS = {".mean_ranks.csv": "mean ranks", ".omnibus.csv": "omnibus tests", ".summary.txt": "summary"}


def compare_outputs(output: Path) -> dict[str, Path]:
    """The paths ``compare`` writes for ``-o OUTPUT``: the pairs at OUTPUT, the rest beside it."""
    stem = output.name[:-len(output.suffix)] if output.suffix else output.name
    return {"pairs": output, **{what: output.with_name(stem + suffix) for suffix, what in COMPARE_SIDECARS.items()}}


def _read_table(path: Path):
    import pandas as pd

    try:
        if path.suffix == ".parquet":
            return pd.read_parquet(path)
        return pd.read_csv(path, sep="\t" if path.suffix == ".tsv" or path.name.endswith(".tsv.gz") else ",")
    except Exception as exc:  # noqa: BLE001 - any reader error becomes a clean message
        raise click.ClickException(f"Cannot read the table '{path}': {type(exc).__name__}: {exc}") from None


def _totals(resources) -> str:
    """Each resource's total, and how many runs have no value (not counted) when some have none."""
    import math

    def one(column, total):
        missing = resources.missing.get(column, 0)
        text = "no value" if math.isnan(total) else f"{total:.4g}"
        runs = f"{missing} run{'s' if missing > 1 else ''}"
        return f"{column} {text}" + (f" ({runs} without a value, not counted)" if missing else "")

    return ", ".join(one(c, v) for c, v in resources.totals.items())


def _compute(kind, table, *, accuracy, size, time, method, dataset, space, n_bootstrap, seed, test, p_adjust,
             budget, noise, r2_gate, timeout, jobs, unit="dataset", seed_column=None, correction=None,
             posthoc="wilcoxon-holm", missing="drop", direction="higher", alpha=0.05, rank_rule="srdash", by="method",
             split=None, source="<table>", rope=None, against_winner=False, n_samples=50_000, anchor=None,
             optimum=None, plot=None):
    """The result table of one analysis (and a one-line summary for stderr)."""
    if kind == "tree-distance":
        return _tree_distances(table, timeout=timeout, jobs=jobs, source=source)
    if kind in ("ratings", "bayes"):
        return _reader_analysis(kind, table, metric=accuracy, method=method, dataset=dataset, direction=direction,
                                n_bootstrap=n_bootstrap, seed=seed, rope=rope, against_winner=against_winner,
                                n_samples=n_samples, anchor=anchor, optimum=optimum, plot=plot, source=source)
    if kind == "srbench2025":
        from srdash.analysis.srbench2025 import srbench2025_mean_ranks

        ranks = srbench2025_mean_ranks(table, accuracy=accuracy, size=size, method=method, dataset=dataset,
                                       source=source)
        for note in ranks.notes:
            click.secho(f"Note: {note}", fg="yellow", err=True)
        best = [f"{column} {ranks.table.loc[ranks.table[column + '_avg_rank'].idxmin(), 'method']}"
                for column, _ in ranks.metrics if ranks.table[column + "_avg_rank"].notna().any()]
        return ranks.table, ("SRBench 2025's own mean ranks (its collate script's computation; 1 = best); best: "
                             + (", ".join(best) or "(none)"))
    if kind == "pareto":
        from srdash.analysis.fronts import pareto_fronts

        fronts = pareto_fronts(table, accuracy=accuracy, size=size, method=method, dataset=dataset, space=space,
                               n_bootstrap=n_bootstrap, seed=seed, rank_rule=rank_rule)
        return fronts.table, f"front 1 (non-dominated, {space} space): {', '.join(fronts.front(1))}"
    if kind == "profiles":
        from srdash.analysis.profiles import performance_profiles

        profiles = performance_profiles(table, value=accuracy, method=method, dataset=dataset)
        best = profiles.auc.iloc[0]
        out = {"method": profiles.auc, "seed": profiles.per_seed, "dataset": profiles.per_dataset}[by]
        return out, (f"largest AUC: {best['method']} ({best['auc']:.4f} exact, {best['auc_linear']:.4f} linear; "
                     f"median over {int(best['seeds'])} seed(s) {best['auc_seed_median']:.4f})")
    if kind == "pairwise":
        from srdash.analysis.pairwise import friedman_conover, wilcoxon_holm

        blocks = "datasets" if unit == "dataset" else "(dataset, seed) blocks"
        if test == "wilcoxon":
            result = wilcoxon_holm(table, value=accuracy, method=method, dataset=dataset,
                                   correction=correction or "holm", unit=unit, seed=seed_column)
            summary = (f"Wilcoxon signed-rank on {accuracy} over {blocks}, {result.correction.capitalize()}-corrected "
                       f"over {len(result.pairs)} pairs")
        else:
            result = friedman_conover(table, value=accuracy, method=method, dataset=dataset,
                                      p_adjust=correction or p_adjust, unit=unit, seed=seed_column)
            summary = (f"Friedman chi2 = {result.statistic:.4g}, p = {result.p_value:.3g} over "
                       f"{result.n_datasets} {blocks}; Conover post-hoc "
                       f"({result.correction.capitalize() + '-adjusted' if result.correction != 'none' else 'unadjusted'})")
        for note in result.notes:
            click.secho(f"Note: {note}", fg="yellow", err=True)
        return result.pairs, summary
    if kind == "compare":
        from srdash.analysis import _tables, costs
        from srdash.analysis.comparison import compare, compare_by_group

        options = dict(value=accuracy, direction=direction, method=method, seed=seed_column, unit=unit,
                       posthoc=posthoc, correction=correction or "holm", missing=missing, alpha=alpha)
        if not split:  # say first what it will do (and refuse past the bounds before any work)
            column = _tables.method_column(table, method)
            _tables.check_columns(table, [column, dataset, accuracy], what="the comparison of methods")
            blocked, block = _tables.blocks(table, unit=unit, dataset=dataset, seed=seed_column)
            wide = _tables.wide(blocked, accuracy, method=column, dataset=block).dropna(how="all")
            if wide.shape[1] >= 3:
                costs.check_compare(wide.shape[1], posthoc=posthoc)
                click.echo(costs.compare_plan(wide.shape[1], len(wide), posthoc=posthoc,
                                              missing=int(wide.isna().sum().sum())), err=True)
        if split:
            results = compare_by_group(table, by=split, dataset=dataset, **options)
        else:
            results = (("", compare(table, dataset=dataset, **options)),)
        for group, result in results:
            for note in result.notes:
                click.secho(f"Note{f' ({split} = {group})' if split else ''}: {note}", fg="yellow", err=True)
        return (split, results), ""
    if kind == "recovery":
        from srdash.analysis.recovery import solution_rates, symbolic_solutions

        if {"model", "true_model"} <= set(table.columns):
            recovery = symbolic_solutions(table, r2=accuracy, r2_gate=r2_gate, timeout=timeout, jobs=jobs)
            out = recovery.table
            return out, f"{int(out['solution'].sum())} of {len(out)} models are symbolic solutions"
        rates = solution_rates(table, method=method, noise=noise, n_bootstrap=n_bootstrap, seed=seed)
        return rates.table, f"solution rates of {rates.table['method'].nunique()} methods"
    from srdash.analysis.resources import RESOURCE_COLUMNS, over_budget, resource_summary, training_times

    energy = [c for c in RESOURCE_COLUMNS[1:] if c in table.columns]
    if energy and time not in table.columns:  # eco2AI's columns only: summarise them
        resources = resource_summary(table, columns=energy, method=method, source=source)
        return resources.table, f"totals over every run: {_totals(resources)}"
    times = training_times(table, time=time, method=method, source=source)
    out = times.table
    summary = f"fastest (median): {out['method'].iloc[0]}" if len(out) else "no training times"
    if energy:
        resources = resource_summary(table, columns=energy, method=method, source=source)
        out = out.merge(resources.table.drop(columns="runs"), on="method", how="left")
        summary += "; totals over every run: " + _totals(resources)
    if budget is not None:
        over = over_budget(table, budget=budget, time=time, method=method, dataset=dataset, source=source)
        counts = over.per_method[["method", "over", "share"]].rename(
            columns={"over": "runs_over_budget", "share": "share_over_budget"})
        out = out.merge(counts, on="method", how="left")
        summary += f"; {len(over.table)} runs over the budget of {budget:g} s"
    return out, summary


def _verdict_scores(input_path, rules_name, *, timeout, jobs):
    """The verdict's per-dataset scores under the rules, and how ratings read them: (table, metric,
    direction, optimum, method, dataset); the best score is K, the number of methods ranked."""
    with fail_cleanly():
        competition = competition_from_options(input_path, rules=rules_name, timeout=timeout, jobs=jobs)
    verdict = judged(competition).verdict
    click.echo(f"Judged under the rules '{verdict.rules.name}': methods compared by the per-dataset score "
               f"(harmonic mean of the criteria's ranks, {verdict.n_methods} = best).", err=True)
    return verdict.per_dataset, "dataset_score", "higher", float(verdict.n_methods), "method", "dataset"


def _tree_distances(table, *, timeout, jobs, source):
    """SRSD's normalised tree edit distance of each run's model to its true_model, as new columns."""
    import pandas as pd

    from srdash.analysis.recovery import normalised_edit_distances

    missing = [c for c in ("model", "true_model") if c not in table.columns]
    if missing:
        raise SrdashError(f"{source}: tree-distance needs the columns model and true_model; no column "
                          f"{', '.join(map(repr, missing))}. Columns: {', '.join(map(str, table.columns))}.")
    models = [m if isinstance(m, str) else None for m in table["model"]]
    truths = [t if isinstance(t, str) else None for t in table["true_model"]]
    distances = normalised_edit_distances(models, truths, timeout=timeout, jobs=jobs)
    distances = distances.rename(columns={"ned": "tree_edit_distance"})
    out = table.drop(columns=[c for c in distances.columns if c in table.columns]).reset_index(drop=True)
    out = pd.concat([out, distances], axis=1)
    refused = int((distances["detail"] != "").sum())
    return out, ("normalised tree edit distance (SRSD: min(1, d/|truth|), Zhang-Shasha, unit costs, numbers "
                 f"labelled alike; both simplified as SRBench 2022) in the column tree_edit_distance for {len(out)} "
                 f"models, 0 = exact recovery; {refused} with a reason in 'detail' (an unreadable model: 1)")


def _reader_analysis(kind, table, *, metric, method, dataset, direction, n_bootstrap, seed, rope, against_winner,
                     n_samples, anchor, optimum, plot, source):
    """``ratings`` (Elo, win-rate, improvability, place shares) and ``bayes`` (signed-rank test with a ROPE)."""
    method = method or ("method" if "method" in table.columns or "algorithm" not in table.columns else "algorithm")
    if kind == "ratings":
        from srdash.analysis.ratings import ELO_PER_LOGIT, ratings

        rated = ratings(table, metric=metric, method=method, dataset=dataset, direction=direction, optimum=optimum,
                        anchor=anchor, n_bootstrap=n_bootstrap, seed=seed, source=source)
        for note in rated.notes:
            click.secho(f"Note: {note}", fg="yellow", err=True)
        intervals = (f"95% intervals over {rated.n_bootstrap} bootstrap resamples of the {rated.n_datasets} datasets "
                     f"(seed {rated.seed})" if rated.n_bootstrap else "no intervals (-B 0)")
        return rated.table, (f"Elo from a Bradley-Terry fit of the per-dataset outcomes on {metric} ({direction} is "
                             f"better; {ELO_PER_LOGIT:.1f} Elo per logit unit, penalty "
                             f"{rated.regularization:g}·Σθ²), "
                             f"{rated.anchor} anchored at 1000; {intervals}; improvability measured from the "
                             f"optimum {rated.optimum:g}; best: {rated.table['method'].iloc[0]}")
    from srdash.analysis.bayes import bayes_pairs

    compared = bayes_pairs(table, metric=metric, rope=rope, method=method, dataset=dataset, direction=direction,
                           against_winner=against_winner, n_samples=n_samples, seed=seed, source=source)
    for note in compared.notes:
        click.secho(f"Note: {note}", fg="yellow", err=True)
    if plot is not None:
        from srdash.figures.bayes import bayes_figure

        bayes_figure(compared).write_html(plot, include_plotlyjs=True, full_html=True)
        click.echo(f"Wrote {plot}", err=True)
    return compared.table, (f"Bayesian signed-rank test (Benavoli et al. 2014, baycomp's definition) on {metric}, "
                            f"ROPE ±{compared.rope:g} in {metric}'s units ({direction} is better), "
                            f"{compared.n_samples} posterior draws (seed {compared.seed}); p_left: method_a better "
                            f"by more than the ROPE, p_right: method_b better; {len(compared.table)} pairs")


@click.command(name="analyse")
@click.argument("kind", type=click.Choice(KINDS))
@click.argument("input_path", metavar="INPUT", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="CSV to write. Default: print the table.")
@click.option("--accuracy", "--metric", "accuracy", default="r2_test", show_default=True,
              help="Accuracy (metric) column (pareto, profiles, pairwise, compare, srbench2025, ratings, bayes; "
                   "the R² gate column for recovery).")
@click.option("--size", default="model_size", show_default=True, help="Model-size column (pareto, srbench2025).")
@click.option("--time", "time_column", default="training time (s)", show_default=True,
              help="Training-time column in seconds (resources).")
@click.option("--method", "method_column", default=None,
              help="Method column. Default: 'method', else SRBench's 'algorithm'.")
@click.option("--dataset", "dataset_column", default="dataset", show_default=True, help="Dataset column.")
@click.option("--space", type=click.Choice(["value", "rank"]), default="value", show_default=True,
              help="pareto: median values, or median per-dataset ranks (1 = best).")
@click.option("--rank-rule", type=click.Choice(["srdash", "srbench2021"]), default="srdash", show_default=True,
              help="pareto --space rank: srdash ranks the values as they are, a missing one last; srbench2021 "
                   "rounds them to 3 decimals first and leaves a missing one unranked (SRBench's published ranks).")
@click.option("--by", type=click.Choice(["method", "seed", "dataset"]), default="method", show_default=True,
              help="profiles: one row per method (pooled AUC, and median/min/max over seeds), per (method, "
                   "seed), or per (method, dataset).")
@click.option("-B", "--bootstrap", "n_bootstrap", default=1000, show_default=True, type=bounded("bootstrap-or-none"),
              help="Bootstrap resamples of the datasets for intervals (pareto, recovery rates, ratings); 0: none.")
@click.option("--seed", default=0, show_default=True, type=bounded("seed"), help="Random seed.")
@click.option("--test", type=click.Choice(["wilcoxon", "conover"]), default="wilcoxon", show_default=True,
              help="pairwise: Wilcoxon signed-rank with Holm correction, or Friedman + Conover post-hoc.")
@click.option("--holm/--no-holm", "conover_holm", default=False, show_default=True,
              help="pairwise --test conover: Holm-adjust the post-hoc p-values.")
@click.option("--unit", type=click.Choice(["dataset", "dataset-seed"]), default="dataset", show_default=True,
              help="pairwise, compare: a block of the tests is a dataset (runs combined by their median) or a "
                   "(dataset, seed) pair (each run its own block).")
@click.option("--seed-column", default=None,
              help="--unit dataset-seed: the seed column. Default: 'seed', else 'random_state', else 'run'.")
@click.option("--correction", type=click.Choice(["holm", "bonferroni"]), default=None,
              help="pairwise, compare: family-wise correction of the p-values. Default: holm (pairwise --test "
                   "conover: none unless --holm).")
@click.option("--posthoc", type=click.Choice(["nemenyi", "conover", "wilcoxon-holm"]), default="wilcoxon-holm",
              show_default=True, help="compare: the post-hoc test.")
@click.option("--missing", type=click.Choice(["drop", "worst"]), default="drop", show_default=True,
              help="compare: a missing value leaves its block out of the Friedman-based tests (drop), or is "
                   "the worst value of the table (worst).")
@click.option("--split", default=None, metavar="COLUMN",
              help="compare: one comparison per value of COLUMN (a dataset group, e.g. friedman_dataset, "
                   "derived from SRBench's dataset names when absent).")
@click.option("--direction", type=click.Choice(["higher", "lower"]), default="higher", show_default=True,
              help="compare, ratings, bayes: which values of the metric are better.")
@click.option("--rope", type=bounded("rope"), default=None, metavar="WIDTH",
              help="bayes: half-width of the region of practical equivalence, in the metric's units (0: none).")
@click.option("--against-winner", is_flag=True, help="bayes: compare only the winner (best mean rank) with each "
                                                      "other method instead of every pair.")
@click.option("--samples", "n_samples", default=50_000, show_default=True, type=bounded("bayes-samples"),
              help="bayes: posterior draws (Monte-Carlo standard error at most 0.5/sqrt(draws)).")
@click.option("--plot", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="bayes: also write the figure (stacked p_left, p_rope, p_right per pair) as a standalone HTML.")
@click.option("--rules", "rules_name", default=None, metavar="RULES",
              help="ratings: judge INPUT under these rules (a preset name or a rules file, as `srdash score "
                   "--rules`) and compare the methods by the verdict's per-dataset score instead of --metric.")
@click.option("--anchor", default=None, metavar="METHOD",
              help="ratings: the method rated 1000. Default: the median-rated method.")
@click.option("--optimum", type=bounded("optimum"), default=None,
              help="ratings: the metric's best possible value, from which improvability measures errors. "
                   "Default: 1 when higher is better (R²), 0 when lower is.")
@click.option("--alpha", type=bounded("probability"), default=0.05,
              show_default=True, help="compare: significance level.")
@click.option("--budget", type=bounded("budget-seconds"), default=None,
              help="resources: also count the runs whose training time exceeds this many seconds.")
@click.option("--noise", "noise_column", default="target_noise", show_default=True,
              help="recovery: noise-level column.")
@click.option("--r2-gate", default=0.5, show_default=True, type=bounded("r2-gate"),
              help="recovery with model strings: only models with R² above this are checked (SRBench: 0.5).")
@click.option("--timeout", default=10.0, show_default=True, type=bounded("timeout"),
              help="recovery, tree-distance: hard time limit of each sympy step (of each model), in seconds.")
@click.option("-j", "--jobs", default=1, show_default=True, type=bounded("jobs"),
              help="recovery with model strings, tree-distance: worker processes.")
def analyse(kind, input_path, output, accuracy, size, time_column, method_column, dataset_column, space,
            rank_rule, by, n_bootstrap, seed, test, conover_holm, unit, seed_column, correction, posthoc, missing, direction,
            alpha, split, budget, noise_column, r2_gate, timeout, jobs, rope, against_winner, n_samples, plot, anchor,
            optimum, rules_name):
    """Run one SRBench-style analysis of INPUT (a results table) and write it as a CSV.

    \b
    KIND is one of:
      pareto     Pareto fronts by median accuracy and median size: columns method,
                 accuracy, size, front (1 = non-dominated), accuracy_low/high and
                 size_low/high (bootstrap interval over datasets), datasets.
      profiles   performance profiles: AUC per method (share of (dataset, run)
                 pairs reaching each accuracy threshold in [0, 1], integrated):
                 exact (step function) and linear (points joined, SRBench), pooled
                 and per seed (median, min, max); --by seed|dataset for the tables.
      pairwise   p-values of every pair of methods over datasets.
      compare    one metric (--metric): Friedman (and Skillings-Mack when blocks are
                 incomplete), the --posthoc test with --correction, effect sizes
                 (Cliff's delta, Cohen's d), critical-difference groups and a
                 plain-language summary. With -o PAIRS.csv it also writes
                 PAIRS.mean_ranks.csv, PAIRS.omnibus.csv and PAIRS.summary.txt.
      recovery   with columns model, true_model: SRBench's symbolic-solution rule per
                 model; otherwise solution rates per method and noise level (SRBench's
                 groundtruth.csv).
      resources  training time per method (median, quartiles, range); with
                 --budget, the runs over it (SRBench 2025's 1-hour line: --budget 3600);
                 with eco2AI's duration(s), power_consumption(kWh), CO2_emissions(kg):
                 their median per run and total per method, and the hardware.
      srbench2025  SRBench 2025's own mean ranks, as its collate script computes
                 them: per method the mean over datasets of its rank on the median
                 --accuracy (r2_test, higher is better) and on the median --size
                 (model_size, lower is better) of the runs that exist; a DNF or a
                 (method, dataset) whose runs all failed is unranked there (not srdash's
                 srbench2025 verdict, which counts them as the worst value).
      ratings    per method on --metric: Elo from a Bradley-Terry fit of the
                 per-dataset wins (ties 1/2; 400/ln 10 Elo per logit), --anchor at
                 1000, win-rate, improvability (TabArena: 1 - best error / error,
                 averaged), shares of 1st/2nd/3rd places, with -B bootstrap intervals
                 over datasets; a missing value loses to every value. With --rules,
                 on the verdict's per-dataset score.
      tree-distance  with columns model, true_model: SRSD's normalised tree edit
                 distance min(1, d/|truth|) of each model (both simplified as SRBench
                 2022; trees up to 150 nodes), the column tree_edit_distance that the
                 rules' measure "tree-edit-distance" reads; distance, truth_nodes, detail.
      bayes      the Bayesian signed-rank test with a ROPE (--rope, in the metric's
                 units) for every pair (or --against-winner): p_left (method_a
                 better), p_rope, p_right, a verdict at 0.95; --plot writes the figure.

    INPUT is a CSV (or .tsv, .parquet) with one row per (method, dataset) or per run,
    e.g. SRBench's blackbox_results.csv.
    """
    if kind == "bayes" and rope is None:
        raise click.UsageError(f"bayes needs --rope WIDTH (the ROPE's half-width in {accuracy}'s units; 0: no ROPE).")
    if output is not None or plot is not None:
        written = (compare_outputs(output) if kind == "compare" else {"table": output}) if output is not None else {}
        refuse_output_onto_input([("-o/--output", path) for path in written.values()] + [("--plot", plot)],
                                 [input_path])
    if rules_name is not None and kind != "ratings":
        raise click.UsageError("--rules is an option of ratings only.")
    if rules_name is not None:
        table, accuracy, direction, optimum, method_column, dataset_column = _verdict_scores(
            input_path, rules_name, timeout=timeout, jobs=jobs)
    else:
        table = _read_table(input_path)
    try:
        result, summary = _compute(kind, table, accuracy=accuracy, size=size, time=time_column,
                                   method=method_column, dataset=dataset_column, space=space,
                                   n_bootstrap=n_bootstrap, seed=seed, test=test,
                                   p_adjust="holm" if conover_holm else None, budget=budget,
                                   noise=noise_column, r2_gate=r2_gate, timeout=timeout, jobs=jobs,
                                   unit=unit, seed_column=seed_column, correction=correction, posthoc=posthoc,
                                   missing=missing, direction=direction, alpha=alpha, rank_rule=rank_rule, by=by,
                                   split=split, source=str(input_path), rope=rope, against_winner=against_winner,
                                   n_samples=n_samples, anchor=anchor, optimum=optimum, plot=plot)
    except (SrdashError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    if kind == "compare":
        _write_comparison(result, output)
        return
    click.echo(summary, err=True)
    if output is None:
        click.echo(result.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    else:
        write_csv(result, output, index=False)
        click.echo(f"Wrote {output} ({len(result)} rows)", err=True)


def _write_comparison(outcome, output: Path | None) -> None:
    """The comparisons' paragraphs, pairs, mean ranks and omnibus tests: printed, or written beside -o.

    With ``--split``, each table gets the group column first and the summary one paragraph per group.
    """
    import pandas as pd

    split, results = outcome

    def fmt(v):
        return f"{v:.4g}"

    def heading(group):
        return f"{split} = {group}: " if split else ""

    def joined(attribute):
        frames = [getattr(r, attribute).assign(**{split: group}) if split else getattr(r, attribute)
                  for group, r in results]
        frame = pd.concat(frames, ignore_index=True)
        return frame[[split] + [c for c in frame.columns if c != split]] if split else frame

    if output is None:
        for group, result in results:
            click.echo(heading(group) + result.paragraph)
        for title, attribute in (("Omnibus tests", "omnibus"), ("Mean ranks", "mean_ranks"), ("Pairs", "pairs")):
            click.echo(f"\n{title}:\n" + joined(attribute).to_string(index=False, float_format=fmt))
        return
    paths = compare_outputs(output)
    write_csv(joined("pairs"), paths["pairs"], index=False)
    write_csv(joined("mean_ranks"), paths["mean ranks"], index=False)
    write_csv(joined("omnibus"), paths["omnibus tests"], index=False)
    parts = []
    for group, result in results:
        groups = "; ".join("{" + ", ".join(g) + "}" for g in result.groups) or "(none)"
        parts.append(f"{heading(group)}{result.paragraph}\n\nPost-hoc: {result.posthoc_label}\n"
                     f"Critical-difference groups: {groups}\n")
    paths["summary"].write_text("\n".join(parts), encoding="utf-8")
    for group, result in results:
        click.echo(heading(group) + result.paragraph, err=True)
    click.echo(f"Wrote {', '.join(str(p) for p in paths.values())}", err=True)
