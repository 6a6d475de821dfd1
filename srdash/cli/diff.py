"""`srdash diff`: which places changed between two verdicts, and why."""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations

from pathlib import Path

import click

from srdash.cli._common import fail_cleanly, judged, refuse_output_onto_input, rules_reference
from srdash.cli._options import bounded
from srdash.judging.competition import competition_from_options, is_competition_file, load_competition
from srdash.io.csvsafe import write_csv


def side_of_path(path: Path, *, rules=None, datasets=None, descriptions=None, timeout=None, jobs=None, cache=None):
    """One side of a diff (`srdash diff`, `srdash report --previous`): a published folder read back, else a
    competition file or results (with the options) judged."""
    from srdash.analysis.diff import side_of_published, side_of_result
    from srdash.analysis.published import is_published_folder, read_published

    given = [name for name, value in (("--rules/--old-rules", rules), ("--datasets", datasets),
                                      ("--descriptions", descriptions), ("--timeout", timeout)) if value is not None]
    with fail_cleanly():
        if is_published_folder(path) or is_competition_file(path):
            if given:
                what = "a published verdict" if is_published_folder(path) else "a competition file"
                raise click.UsageError(f"{path} is {what}: it already says what {', '.join(given)} would. "
                                       "Give those options with results files only.")
            if is_published_folder(path):
                return side_of_published(read_published(path))
            competition = load_competition(path)
            if jobs is not None or cache is False:  # other workers or no cache: the same verdict
                from dataclasses import replace

                simplification = competition.simplification
                competition = replace(competition, simplification=replace(
                    simplification, jobs=simplification.jobs if jobs is None else int(jobs),
                    cache=simplification.cache if cache is None else cache))
        else:
            competition = competition_from_options(path, rules=rules or "srbench2022", datasets=datasets,
                                                   descriptions=descriptions,
                                                   timeout=10.0 if timeout is None else timeout, jobs=jobs,
                                                   cache=cache)
    result = judged(competition)
    with fail_cleanly():
        return side_of_result(result)


@click.command("diff")
@click.argument("old", type=click.Path(exists=True, path_type=Path))
@click.argument("new", type=click.Path(exists=True, path_type=Path))
@click.option("--rules", default=None, callback=rules_reference,
              help="Rules of results files given as OLD or NEW (default srbench2022; see `srdash rules`).")
@click.option("--old-rules", default=None, callback=rules_reference,
              help="Rules of OLD when it is a results file, if not --rules (to see what a change of rules does).")
@click.option("--datasets", type=click.Path(exists=True, path_type=Path),
              help="Dataset table (columns dataset, features) for results files.")
@click.option("--descriptions", type=click.Path(exists=True, path_type=Path),
              help="Dataset descriptions for results files (see `srdash datasets --help`).")
@click.option("--timeout", default=None, type=bounded("timeout"),
              help="Hard time limit in seconds (CPU time) for each model's simplification (default 10).")
@click.option("--jobs", default=None, type=bounded("jobs"),
              help="Worker processes for simplification (default: the cores available).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the cache.")
@click.option("--json", "as_json", is_flag=True, help="Print the diff as one JSON object instead of the table.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the table: JSON when the name ends in .json, else CSV (method, old_place, "
                   "new_place, moved, causes, several_causes).")
def diff_command(old, new, rules, old_rules, datasets, descriptions, timeout, jobs, no_cache, as_json, output):
    """Which places changed from OLD to NEW, and why.

    OLD and NEW are each a published folder (`srdash publish`, read back from
    its files and checked: an edited file is refused), a competition file, or
    results completed by the options `srdash score` takes. OLD becomes NEW in
    steps taken in a fixed order (entrants removed, datasets removed, inputs
    changed, rules changed, datasets added, entrants added), each judged
    again; every method's place change is credited to the steps in which it
    moved ("several causes" when more than one: the credit depends on that
    order). The main track is compared. Places: 1 = best.
    """
    import json

    from srdash.analysis.diff import diff_text, diff_verdicts

    refuse_output_onto_input([("-o/--output", output)], [old, new, datasets, descriptions])
    cache = False if no_cache else None
    sides = [side_of_path(path, rules=side_rules, datasets=datasets, descriptions=descriptions, timeout=timeout, jobs=jobs,
                   cache=cache) for path, side_rules in ((old, old_rules or rules), (new, rules))]
    with fail_cleanly():
        diff = diff_verdicts(*sides)
    table = diff.table.astype({"old_place": object, "new_place": object})
    table = table.where(table.notna(), None)
    payload = {"old": diff.old_fingerprint, "new": diff.new_fingerprint, "unchanged": diff.unchanged,
               "entrants_added": list(diff.entrants_added), "entrants_removed": list(diff.entrants_removed),
               "datasets_added": list(diff.datasets_added), "datasets_removed": list(diff.datasets_removed),
               "rules_changed": list(diff.rules_changed),
               "inputs_changed": [list(cell) for cell in diff.inputs_changed],
               "places": table.to_dict("records"), "text": diff_text(diff)}
    if as_json:
        click.echo(json.dumps(payload, indent=2))
    else:
        shown = diff.table.astype({"old_place": object, "new_place": object})
        click.echo(shown.where(shown.notna(), "-").to_string(index=False))  # "-": not in that verdict
        click.echo(diff_text(diff))
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        if output.suffix.lower() == ".json":
            output.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        else:
            write_csv(diff.table, output, index=False)
        click.echo(f"Wrote {output}", err=True)
